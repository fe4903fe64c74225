"""Tests of dpposterior.accuracy (docs/definitions.md §6): exact error law from the pmf, Monte Carlo summaries."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference as ref
from conftest import distance_setting, epsilons
from dpposterior import accuracy as A
from dpposterior import mechanisms as M
from dpposterior.accuracy import exact_accuracy, expected_errors, release_error
from dpposterior.distances import hellinger
from dpposterior.errors import InputError
from dpposterior.mechanisms import log_pmf
from dpposterior.models import candidates


def test_release_error_matches_hellinger():
    m = np.array([[4, 4], [5, 3], [0, 8]])
    got = A.release_error([1, 1], [4, 4], m)
    want = [hellinger([5, 5], [1 + r[0], 1 + r[1]]) for r in m]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got[0] == 0.0


@pytest.mark.parametrize("bad", [np.array([[4, 5]]), np.array([[-1, 9]]), np.array([4, 4])])
def test_release_error_rejects_bad_releases(bad):
    with pytest.raises(InputError):
        A.release_error([1, 1], [4, 4], bad)


def test_weighted_quantile_small_law():
    v, p = [3.0, 1.0, 2.0], [0.5, 0.25, 0.25]
    assert A.weighted_quantile(v, p, 0.25) == 1.0
    assert A.weighted_quantile(v, p, 0.5) == 2.0
    assert A.weighted_quantile(v, p, 0.51) == 3.0
    with pytest.raises(InputError):
        A.weighted_quantile(v, p, 1.5)


@pytest.mark.parametrize("mech", ["mh", "lshist", "lsdim"])
def test_exact_accuracy_agrees_with_brute_force_and_sampling(mech):
    prior, c = [1, 1], [10, 10]
    lp = M.log_pmf(mech, prior, c, epsilon=1.0)
    cands = candidates(20, 2)
    p = np.exp(lp)
    h = np.array([hellinger([11, 11], [1 + m[0], 1 + m[1]]) for m in cands])
    ex = A.exact_accuracy(mech, prior, c, epsilon=1.0)
    assert ex.mean == pytest.approx(float(p @ h), rel=1e-12)
    assert ex.p_exact == pytest.approx(p[10], rel=1e-12)
    assert ex.q25 <= ex.median <= ex.q75
    draws = M.sample(mech, prior, c, epsilon=1.0, size=40000, rng=7)
    err = A.release_error(prior, c, draws)
    assert abs(err.mean() - ex.mean) < 4 * err.std() / math.sqrt(err.size)
    assert np.mean(err == 0) == pytest.approx(ex.p_exact, abs=0.01)


def test_mh_exact_probability_approaches_tanh_limit():
    # large-n limit of P(exact) for mh at k = 2 is tanh(eps/4) (catalogue §4.5, docs/definitions.md §8: ~0.245)
    ex = A.exact_accuracy("mh", [1, 1], [5000, 5000], epsilon=1.0)
    assert ex.p_exact == pytest.approx(math.tanh(0.25), abs=2e-3)
    ex = A.exact_accuracy("lshist", [1, 1], [5000, 5000], epsilon=1.0)
    assert ex.p_exact == pytest.approx(0.5 * (1 - math.exp(-1)), rel=1e-9)


def test_step_probabilities_table1_formula():
    # 000 Table 1 exp column = exp(-eps H / LS(c)) weights, eps = 0.8, c = (4, 4) (docs/definitions.md §7)
    from dpposterior.sensitivity import local_sensitivity
    c = np.array([4, 4])
    cands = candidates(8, 2)
    h = hellinger(1 + c, 1 + cands)
    logits = -0.8 * h / local_sensitivity([1, 1], c)
    lp = logits - np.log(np.exp(logits).sum())
    got = A.step_probabilities(lp, c)
    printed = [0.37924298484, 0.340809715054, 0.158265808563, 0.0785621424847, 0.0431193490585]
    np.testing.assert_allclose(got[:5], printed, rtol=1e-9)
    assert got.sum() == pytest.approx(1.0)


def test_mc_summary_values():
    e = np.arange(1, 101, dtype=float)
    s = A.mc_summary(e)
    assert s["mean"] == 50.5 and s["runs"] == 100
    assert s["median"] == pytest.approx(50.5)
    assert s["ci_low"] < 50.5 < s["ci_high"]
    assert s["ci_high"] - s["mean"] == pytest.approx(1.959964 * np.std(e, ddof=1) / 10, rel=1e-5)
    assert s["notch_high"] - s["median"] == pytest.approx(1.57 * (s["q75"] - s["q25"]) / 10)
    with pytest.raises(InputError):
        A.mc_summary([])


@pytest.mark.parametrize("mech,prior,n", [("mh", (1.0, 1.0), 6), ("lshist", (1.0, 1.0), 6),
                                          ("geometric", (0.5, 2.0), 5), ("ehds", (1.0, 1.0, 1.0), 3),
                                          ("geometric", (1.0, 1.0, 1.0), 3)])
def test_expected_errors_match_brute(mech, prior, n):
    b = ref.brute(prior, n)
    e = expected_errors(mech, prior, n, epsilon=1.0)
    want = np.array([ref.expected_error(b, mech, c, 1.0) for c in b.cands])
    pred = np.array([ref.dirichlet_multinomial(prior, c) for c in b.cands])
    assert [tuple(c) for c in e.counts] == b.cands
    np.testing.assert_allclose(e.expected, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(e.predictive, pred, rtol=1e-9)
    assert pred.sum() == pytest.approx(1.0)
    assert e.worst == pytest.approx(want.max(), rel=1e-9)
    assert want[b.index[tuple(e.worst_counts)]] == pytest.approx(want.max(), rel=1e-9)  # ties: any maximiser
    assert e.average == pytest.approx(float(pred @ want), rel=1e-9)


def test_issue_table_beta11_n50():
    # the numbers of the expected-error table for Beta(1,1), n = 50, eps = 1 (3 decimals)
    assert round(expected_errors("mh", [1, 1], 50, epsilon=1).worst, 3) == 0.858
    assert round(expected_errors("lshist", [1, 1], 50, epsilon=1).worst, 3) == 0.236
    assert round(expected_errors("geometric", [1, 1], 50, epsilon=1).worst, 3) == 0.185


def test_calibrated_expected_errors_carry_calibration():
    e = expected_errors("mh", [1, 1], 10, epsilon=1, calibrate=True)
    assert e.calibration is not None and e.calibration.concrete_epsilon <= 1.0
    d = e.as_dict()
    assert set(d) == {"mechanism", "epsilon", "worst_expected_error", "worst_counts", "average_expected_error",
                      "calibration"}


@settings(max_examples=10, deadline=None)
@given(distance_setting(), st.sampled_from(["ehd", "ehds", "mh-delta", "geometric", "lshist"]), epsilons)
def test_expected_errors_measure_the_distance(s, mech, eps):
    distance, prior, n = s
    b = ref.brute(prior, n, distance)
    e = expected_errors(mech, prior, n, epsilon=eps, distance=distance)
    want = [ref.expected_error(b, mech, c, eps) for c in b.cands]
    assert np.allclose(e.expected, want, rtol=1e-8, atol=1e-14)
    assert e.as_dict()["distance"] == distance


@pytest.mark.parametrize("mech,prior,n,distance,measure", [
    ("ehd", (1.0, 1.0), 9, "hellinger", "hellinger"), ("mh", (0.5, 2.0, 1.0), 4, "hellinger", "hellinger"),
    ("ehds", (1.0, 1.0), 7, "kl", "kl"), ("ehds", (1.0, 1.0), 7, "kl", "hellinger"),
    ("mh-delta", (1.0, 1.0, 1.0), 3, "hellinger", "kl"), ("lshist", (1.0, 1.0), 6, "hellinger", "hellinger")])
def test_an_exponential_entry_shares_its_score_table_with_the_error_bit_for_bit(mech, prior, n, distance, measure):
    # the expected error reads one table where the score's distance is the measure: it must be the same numbers as
    # the log-pmf rows and the measure's own rows computed apart
    from dpposterior.distances import DistanceGrid
    from dpposterior.mechanisms import ReleaseSpec

    spec = ReleaseSpec.of(mech, 1.0, 1e-8, distance=distance)
    rows = spec.mechanism.rows(np.asarray(prior), n, spec)
    grid = DistanceGrid(np.asarray(prior), n, measure)
    block = rows.cands[::2]
    lp, h = rows.with_losses(block, grid)
    assert np.array_equal(lp, rows(block))
    assert np.array_equal(h, grid.values(block, rows.cands))


def test_clamped_noise_ignores_the_distance_but_measures_with_it():
    prior, c = (1.0, 1.0), np.array([3, 2])
    for mech in ["lshist", "geometric"]:
        assert np.array_equal(log_pmf(mech, prior, c, epsilon=1.0), log_pmf(mech, prior, c, epsilon=1.0, distance="kl"))
    lp = log_pmf("geometric", prior, c, epsilon=1.0)
    cands = [(m, 5 - m) for m in range(6)]
    want = sum(math.exp(x) * ref.kl((4.0, 3.0), (1 + m[0], 1 + m[1])) for x, m in zip(lp, cands))
    assert exact_accuracy("geometric", prior, c, epsilon=1.0, distance="kl").mean == pytest.approx(want, rel=1e-10)
    assert release_error(prior, c, [[5, 0]], distance="tv")[0] == pytest.approx(ref.tv((4, 3), (6, 1)), rel=1e-9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mech=st.sampled_from(["ehd", "ehds", "mh", "lszhang", "lsdim", "lshist"]),
       prior=st.lists(st.sampled_from([0.5, 1.0, 4.0]), min_size=2, max_size=3), n=st.integers(1, 25),
       measure=st.sampled_from([None, "tv", "kl"]), rows_per_chunk=st.integers(1, 7))
def test_the_walks_chunk_does_not_change_a_float(monkeypatch, mech, prior, n, measure, rows_per_chunk):
    # the exponential and clamped rows cap the walk's chunk (walk_chunk_bytes): every operation on a chunk is row by
    # row, so any chunk gives the expected errors of one whole chunk bit for bit
    from dpposterior.mechanisms.clamped import ClampedRows
    from dpposterior.mechanisms.exponential import ExponentialRows

    if measure is not None and len(prior) > 2:
        measure = None  # KL and TV are the k = 2 measures
    kw = dict(epsilon=1.0, measure=measure)
    N = len(candidates(n, len(prior)))
    with monkeypatch.context() as m:
        for cls in (ClampedRows, ExponentialRows):
            m.setattr(cls, "walk_chunk_bytes", None)
        whole = expected_errors(mech, prior, n, **kw)
    with monkeypatch.context() as m:
        for cls in (ClampedRows, ExponentialRows):
            m.setattr(cls, "walk_chunk_bytes", 8 * N * rows_per_chunk)
        chunked = expected_errors(mech, prior, n, **kw)
    assert np.array_equal(chunked.expected, whole.expected)
    assert (chunked.worst, chunked.average) == (whole.worst, whole.average)
