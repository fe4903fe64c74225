"""Calibrated exponential mechanisms (docs/definitions.md §9) against a brute-force transcription (tests/reference.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior import calibration as cal
from dpposterior import privacy
from dpposterior.errors import InputError
from dpposterior.mechanisms.calibrated import RTOL, losses


@pytest.mark.parametrize("mech,prior,n,eps", [("ehds", (1.0, 1.0), 4, 1.0), ("mh", (1.0, 1.0), 5, 0.5),
                                              ("ehd", (2.0, 0.5), 4, 1.0), ("ehds", (1.0, 1.0, 1.0), 3, 1.0)])
def test_calibrated_factor_is_certified_and_maximal(mech, prior, n, eps):
    c = cal.calibration(mech, prior, n, epsilon=eps)
    b = ref.brute(prior, n)
    brute_eps = ref.scaled_concrete_epsilon(b, mech, eps, c.factor)
    # certified: the brute-force loss at kappa* is <= eps (rounding of the two transcriptions: 1e-9)
    assert brute_eps <= eps * (1 + 1e-9)
    assert c.concrete_epsilon == pytest.approx(brute_eps, rel=1e-8)
    # maximal within the stated tolerance: a factor RTOL (plus rounding) larger exceeds eps
    assert ref.scaled_concrete_epsilon(b, mech, eps, c.factor * (1 + 3 * RTOL)) > eps


def test_calibrated_release_matches_privacy_module():
    c = cal.calibration("ehds", [1, 1], 20, epsilon=1.0)
    loss = privacy.concrete_epsilon("ehds", [1, 1], 20, epsilon=1.0, calibrate=True)
    assert loss.concrete_epsilon == pytest.approx(c.concrete_epsilon, rel=1e-12)
    assert loss.claimed_epsilon == 1.0 and loss.claimed_delta == 0.0 and not loss.exceeds_claim


def test_losses_match_brute_at_several_factors():
    from dpposterior.mechanisms import ExponentialRows, ReleaseSpec

    params = ReleaseSpec.of("mh", 1.0)

    mech = params.mechanism
    a = np.array([1.0, 1.0])
    rows = ExponentialRows(a, 5, mech._weights_all(a, 5, params), 1.0)
    ks = [0.3, 1.0, 2.7]
    got = losses(rows, ks)
    b = ref.brute((1.0, 1.0), 5)
    for k, g in zip(ks, got):
        assert g == pytest.approx(ref.scaled_concrete_epsilon(b, "mh", 1.0, k), rel=1e-8)


@pytest.mark.parametrize("mech,prior,n", [("mh", (1.0, 1.0), 7), ("ehds", (1.0, 1.0, 1.0), 5),
                                          ("ehd", (0.5, 1.0, 2.0, 1.0), 3)])
def test_refining_losses_over_a_subset_of_pairs_match_the_brute_force_and_the_whole_walk(mech, prior, n):
    # the refining passes share each data set's row among its pairs: the loss over every adjacent pair must be the
    # brute force's, and bit for bit the bracketing walk's (which computes each pair's two rows apart)
    from dpposterior.mechanisms import ExponentialRows, ReleaseSpec
    from dpposterior.mechanisms.calibrated import subset_losses

    params = ReleaseSpec.of(mech, 1.0)
    a = np.asarray(prior)
    rows = ExponentialRows(a, n, params.mechanism._weights_all(a, n, params), 1.0)
    ks = np.array([0.3, 1.0, 2.7])
    whole, c, cp, _ = losses(rows, ks, per_pair=True)
    got = subset_losses(rows, c, cp, ks)
    assert np.array_equal(got, whole)
    b = ref.brute(prior, n)
    for k, g in zip(ks, got):
        assert g == pytest.approx(ref.scaled_concrete_epsilon(b, mech, 1.0, k), rel=1e-8)
    half = subset_losses(rows, c[::2], cp[::2], ks)  # a subset's loss never exceeds the whole walk's
    assert np.all(half <= whole)


def test_only_exponential_mechanisms():
    with pytest.raises(InputError):
        cal.calibration("lshist", [1, 1], 5, epsilon=1.0)


def _walk_and_table(mech, prior, n, eps):
    """``_calibrate`` by the walk over the adjacent pairs (no kept table) and by the kept table."""
    import importlib

    from dpposterior.mechanisms import ReleaseSpec

    calibrated = importlib.import_module("dpposterior.mechanisms.calibrated")
    spec = ReleaseSpec.of(mech, eps).base()
    base = spec.entry
    a = tuple(float(x) for x in prior)
    share = calibrated.TABLE_SHARE
    try:
        calibrated.TABLE_SHARE = 0.0  # nothing fits: the walk
        walk = calibrated._calibrate(base, a, n, spec)
    finally:
        calibrated.TABLE_SHARE = share
    assert calibrated._table_fits(n_rows(len(a), n))
    return walk, calibrated._calibrate(base, a, n, spec)


def n_rows(k, n):
    from math import comb
    return comb(n + k - 1, k - 1)


@settings(max_examples=25, deadline=None)
@given(mech=st.sampled_from(["ehd", "ehdl", "ehds", "mh", "mh-delta"]),
       prior=st.lists(st.sampled_from([0.5, 1.0, 2.0, 5.0]), min_size=2, max_size=4),
       n=st.integers(1, 9), eps=st.sampled_from([0.1, 0.5, 1.0, 3.0]))
def test_kept_table_calibration_is_the_walks_bit_for_bit(mech, prior, n, eps):
    # the kept table (each row once, the passes from the largest kappa down, the certificate from the table) gives
    # the walk's factor and certified loss exactly, not merely close
    walk, table = _walk_and_table(mech, prior, n, eps)
    assert (table.factor, table.concrete_epsilon) == (walk.factor, walk.concrete_epsilon)


def test_kept_table_pair_losses_are_the_walks_per_pair():
    # every adjacent pair's loss from the table's runs of rows equals the walk's pair by pair
    import importlib

    from dpposterior.mechanisms import ExponentialRows, ReleaseSpec

    calibrated = importlib.import_module("dpposterior.mechanisms.calibrated")
    params = ReleaseSpec.of("ehds", 1.0)
    a = np.array([1.0, 2.0, 0.5])
    rows = ExponentialRows(a, 12, params.mechanism._weights_all(a, 12, params), 1.0)
    table = calibrated._Table(rows)
    ks = [0.4, 2.5]
    _, c, cp, per = losses(rows, ks, per_pair=True)
    for t, kap in enumerate(ks):
        pl = table.pair_losses(kap)
        got = dict(zip(zip(map(tuple, c.tolist()), map(tuple, cp.tolist())), per[:, t].tolist()))
        cands = rows.cands
        mine = dict(zip(zip(map(tuple, cands[table_ia(table)].tolist()), map(tuple, cands[table_ib(table)].tolist())),
                        pl.tolist()))
        assert mine == got


def table_ia(table):
    return np.concatenate([np.arange(a, a + m) for _, a, _, m in table.runs])


def table_ib(table):
    return np.concatenate([np.arange(b, b + m) for _, _, b, m in table.runs])


@settings(max_examples=30, deadline=None)
@given(prior=st.lists(st.sampled_from([0.5, 1.0, 3.0]), min_size=2, max_size=4), n=st.integers(1, 12),
       data=st.data())
def test_a_rows_numbers_do_not_depend_on_its_batch(prior, n, data):
    # the kept table computes every row of R(n) in chunks, the walk in other batches: a row of H and of the log-pmf
    # must be the same floats whatever rows are computed with it (every operation row-wise or elementwise)
    from dpposterior.distances import HellingerGrid
    from dpposterior.mechanisms import exponential_log_pmf_rows
    from dpposterior.models import candidates

    cands = candidates(n, len(prior))
    grid = HellingerGrid(prior, n)
    whole = grid.hellinger(cands, cands)
    pick = data.draw(st.lists(st.integers(0, len(cands) - 1), min_size=1, max_size=8))
    assert np.array_equal(grid.hellinger(cands[pick], cands), whole[pick])
    w = data.draw(st.lists(st.floats(0.01, 50.0), min_size=len(cands), max_size=len(cands)))
    assert np.array_equal(exponential_log_pmf_rows(np.asarray(w)[pick], whole[pick]),
                          exponential_log_pmf_rows(w, whole)[pick])


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 5), cols=st.integers(1, 40), data=st.data())
def test_log_pmf_rows_are_the_allocating_transcriptions(rows, cols, data):
    # exponential_log_pmf_rows reuses one buffer for the exponentials: bit for bit the expression it replaced, and
    # the calibration's _lse_rows at a factor
    import importlib

    from dpposterior.mechanisms import exponential_log_pmf_rows

    calibrated = importlib.import_module("dpposterior.mechanisms.calibrated")
    h = np.asarray(data.draw(st.lists(st.floats(0.0, 1.0), min_size=rows * cols, max_size=rows * cols)))
    h = h.reshape(rows, cols)
    w = np.asarray(data.draw(st.lists(st.floats(0.01, 100.0), min_size=rows, max_size=rows)))
    kappa = data.draw(st.floats(0.1, 10.0))
    x = np.multiply(-(kappa * w)[:, None], h)
    top = x.max(axis=1, keepdims=True)
    x -= top + np.log(np.exp(x - top).sum(axis=1, keepdims=True))
    got = exponential_log_pmf_rows(kappa * w, h)
    assert np.array_equal(got, x)
    assert np.array_equal(calibrated._lse_rows(np.multiply(-kappa * w[:, None], h)), x)
