"""docs/definitions.md §4: exact output distributions and samplers of the eight mechanisms, and parameter checks;
the distance as a mechanism setting."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

import dpposterior as dp
import reference as ref
from conftest import (
    ALL_IDS,
    EXPONENTIAL_IDS,
    GEOMETRIC_IDS,
    LAPLACE_IDS,
    MECHANISM_IDS,
    deltas,
    distance_setting,
    epsilons,
    gammas,
    setting,
)
from dpposterior import MECHANISMS, InputError, SizeError, log_pmf, mechanism_audit, sample, validate, weight
from dpposterior.accuracy import expected_errors
from dpposterior.mechanisms import ReleaseSpec, laplace_scale
from dpposterior.mechanisms.optimal import SolverError
from dpposterior.models import candidate_rank, candidates
from dpposterior.validate import big_number


def test_registry_ids_and_claims():
    assert tuple(MECHANISMS) == ALL_IDS
    assert {m for m in MECHANISMS if MECHANISMS[m].family == "exponential"} == set(EXPONENTIAL_IDS)
    assert {m for m in MECHANISMS if MECHANISMS[m].family == "laplace"} == set(LAPLACE_IDS)
    assert {m for m in MECHANISMS if MECHANISMS[m].family == "geometric"} == set(GEOMETRIC_IDS)
    eps, delta = 0.7, 1e-6
    claims = {m: MECHANISMS[m].claimed(eps, delta) for m in MECHANISMS}
    assert claims["ehdl"] == (None, None)
    assert claims["mh"] == (2 * eps, 0.0)
    assert claims["mh-delta"] == (eps, delta)
    for m in ("ehd", "ehds", "lszhang", "lsdim", "lshist", "geometric"):
        assert claims[m] == (eps, 0.0)


@pytest.mark.parametrize("mech, k, eps, scale", [
    ("lszhang", 2, 0.5, 4.0), ("lszhang", 4, 1.0, 2.0),
    ("lsdim", 2, 1.0, 2.0), ("lsdim", 3, 1.0, 3.0), ("lsdim", 4, 2.0, 2.0),
    ("lshist", 2, 1.0, 1.0), ("lshist", 3, 0.5, 4.0),
])
def test_laplace_scales(mech, k, eps, scale):
    assert laplace_scale(mech, k, eps) == pytest.approx(scale, rel=1e-15)


@settings(max_examples=200, deadline=None)
@given(setting(), st.sampled_from(MECHANISM_IDS), epsilons, deltas, gammas)
def test_pmf_matches_naive_transcription(s, mech, eps, delta, gamma):
    """exp(-w H)/Z with mpmath (exponential family) or the cell-by-cell scipy cdf (Laplace family)."""
    prior, c = s
    if mech != "ehds":  # gamma is read by ehds only (mh fixes it to 1); elsewhere a non-default one is refused
        gamma = 1.0
    b = ref.brute(prior, sum(c))
    got = np.exp(log_pmf(mech, prior, c, epsilon=eps, delta=delta, gamma=gamma))
    want = np.array(b.pmf(mech, c, eps, delta, gamma))
    if mech not in EXPONENTIAL_IDS:
        # the reference subtracts cdf values near 1 for far positive cells: ~1e-16 absolute
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-14)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-9)
        assert weight(mech, prior, c, epsilon=eps, delta=delta, gamma=gamma) == pytest.approx(
            b.weight(mech, c, eps, delta, gamma), rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(setting(n_max=30, n_max_k4=12), st.sampled_from(MECHANISM_IDS), epsilons, deltas)
def test_pmf_normalised_and_positive(s, mech, eps, delta):
    prior, c = s
    lp = log_pmf(mech, prior, c, epsilon=eps, delta=delta)
    assert lp.shape == (math.comb(sum(c) + len(c) - 1, len(c) - 1),)
    assert np.all(np.isfinite(lp)) and np.all(lp < 0.0)  # every candidate has positive probability
    assert abs(math.fsum(np.exp(lp)) - 1.0) <= 1e-12


@pytest.mark.parametrize("gsm", ["exact", "paper"])
def test_ehd_uses_requested_global_sensitivity(gsm):
    prior, c = (0.3, 0.6), (2, 3)
    b = ref.brute(prior, 5)
    got = np.exp(log_pmf("ehd", prior, c, epsilon=1.0, global_sensitivity_method=gsm))
    np.testing.assert_allclose(got, b.pmf("ehd", c, 1.0, gs=gsm), rtol=1e-9)


def test_laplace_large_n_tails_are_exact():
    """Far cells (probabilities ~1e-200) stay finite in log space: ln P matches the closed form."""
    n, eps = 2000, 1.0
    lp = log_pmf("lshist", (1.0, 1.0), (1000, 1000), epsilon=eps)  # scale 1/eps
    assert np.all(np.isfinite(lp))
    # interior cell m_1 = c_1 + d, d >= 1: ln(0.5 e^{-d} (1 - e^{-1}))
    for d in (1, 10, 500, 999):
        want = math.log(0.5) - d * eps + math.log1p(-math.exp(-eps))
        assert lp[1000 + d] == pytest.approx(want, rel=1e-12)
    # clamped top cell m_1 = n: P(Y >= 1000) = 0.5 e^{-1000}
    assert lp[n] == pytest.approx(math.log(0.5) - 1000.0, rel=1e-12)


# --- samplers vs exact pmf: chi-square goodness of fit ---------------------------------------

GOF_SETTINGS = {2: ((0.5, 2.0), (3, 5)), 3: ((0.7, 1.0, 2.0), (2, 3, 1))}
N_DRAWS = 20_000


def pooled_chisquare(observed, expected_prob):
    """Chi-square GOF with cells of expected count < 5 pooled (smallest first) into one cell."""
    observed = np.asarray(observed, dtype=float)
    expected = np.asarray(expected_prob, dtype=float) * observed.sum()
    order = np.argsort(expected)
    small = order[np.cumsum(expected[order]) < 5.0]
    if small.size and small.size < len(order):
        small = order[: small.size + 1]  # the pooled cell reaches expected >= 5
    big = np.setdiff1d(np.arange(len(expected)), small)
    obs = np.append(observed[big], observed[small].sum()) if small.size else observed
    exp = np.append(expected[big], expected[small].sum()) if small.size else expected
    assert np.all(exp >= 5.0)
    return chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


def draw_histogram(mech, prior, c, eps, seed, **kw):
    m = sample(mech, prior, c, epsilon=eps, size=N_DRAWS, rng=np.random.default_rng(seed), **kw)
    assert m.shape == (N_DRAWS, len(c))
    assert np.all(m >= 0) and np.all(m.sum(axis=1) == sum(c))
    return np.bincount(candidate_rank(m), minlength=len(candidates(sum(c), len(c))))


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("mech", MECHANISM_IDS)
def test_sampler_matches_exact_pmf(mech, k):
    prior, c = GOF_SETTINGS[k]
    eps = 1.0
    hist = draw_histogram(mech, prior, c, eps, seed=20240 + 7 * k + MECHANISM_IDS.index(mech))
    p = np.exp(log_pmf(mech, prior, c, epsilon=eps))
    assert pooled_chisquare(hist, p) > 1e-3


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("mech, wrong", [
    ("mh", lambda prior, c: log_pmf("mh", prior, c, epsilon=2.0)),  # epsilon doubled
    ("ehds", lambda prior, c: log_pmf("mh", prior, c, epsilon=1.0)),  # another mechanism's pmf
    ("lsdim", lambda prior, c: log_pmf("lsdim", prior, c, epsilon=2.0)),
    ("lshist", lambda prior, c: log_pmf("lsdim", prior, c, epsilon=1.0)),  # (lszhang = lshist at k = 3)
])
def test_goodness_of_fit_rejects_wrong_pmf(mech, wrong, k):
    """The same test has power: samples of one distribution are rejected against a neighbouring one."""
    prior, c = GOF_SETTINGS[k]
    hist = draw_histogram(mech, prior, c, 1.0, seed=99 + k)
    assert pooled_chisquare(hist, np.exp(log_pmf(mech, prior, c, epsilon=1.0))) > 1e-3
    assert pooled_chisquare(hist, np.exp(wrong(prior, c))) < 1e-6


def test_sampler_reproducible_and_accepts_seed():
    a = sample("mh", (1.0, 1.0), (4, 4), epsilon=1.0, size=50, rng=7)
    b = sample("mh", (1.0, 1.0), (4, 4), epsilon=1.0, size=50, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    assert sample("lsdim", (1.0, 1.0, 1.0), (1, 2, 3), epsilon=1.0, size=0, rng=1).shape == (0, 3)


# --- bad input --------------------------------------------------------------------------------

BASE = dict(prior=(1.0, 1.0), counts=(3, 4))


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(counts=(3, -1)), "counts must be non-negative"),
    (dict(counts=(2.5, 3)), "counts must be integers"),
    (dict(counts=(7,), prior=(1.0,)), "counts needs at least 2 categories"),
    (dict(prior=(1.0, 0.0)), r"prior must be > 0"),
    (dict(prior=(1.0, -0.5)), r"prior must be > 0"),
    (dict(prior=(1.0, 1.0, 1.0)), "prior has 3 entries but the counts have 2 categories"),
    (dict(epsilon=0.0), "epsilon must be a positive number"),
    (dict(epsilon=-1.0), "epsilon must be a positive number"),
    (dict(epsilon=float("nan")), "epsilon must be a positive number"),
    (dict(epsilon=float("inf")), "epsilon must be a positive number"),
    (dict(delta=0.0), r"delta must be in \(0, 1\)"),
    (dict(delta=1.0), r"delta must be in \(0, 1\)"),
    (dict(delta=-1e-8), r"delta must be in \(0, 1\)"),
    (dict(delta=float("nan")), r"delta must be in \(0, 1\)"),
    (dict(gamma=0.0), "gamma must be a positive number"),
    (dict(gamma=-2.0), "gamma must be a positive number"),
    (dict(mech="laplace"), "unknown mechanism 'laplace'; choose one of ehd, ehdl, ehds, mh, mh-delta, "
                           "lszhang, lsdim, lshist, geometric"),
    (dict(mech="mh", gamma=0.5), "mechanism 'mh' is defined with gamma = 1"),
    (dict(global_sensitivity_method="approx"), "global sensitivity must be one of exact, paper"),
])
@pytest.mark.parametrize("fn", ["log_pmf", "sample"])
def test_bad_input_raises_input_error(kwargs, pattern, fn):
    args = dict(mech="ehds", epsilon=1.0, delta=1e-8, gamma=1.0, global_sensitivity_method="exact", **BASE)
    args.update(kwargs)
    f = log_pmf if fn == "log_pmf" else sample
    with pytest.raises(InputError, match=pattern) as info:
        f(args.pop("mech"), args.pop("prior"), args.pop("counts"), **args)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("mech", MECHANISM_IDS)
def test_size_error_names_the_size(mech):
    with pytest.raises(SizeError, match=r"k=4, n=1000000.*entries.*GiB") as info:
        log_pmf(mech, (1.0, 1.0, 1.0, 1.0), (250_000,) * 4, epsilon=1.0)
    assert f"{math.comb(1_000_003, 3):,} entries" in str(info.value)


def test_weight_rejects_laplace_and_sample_rejects_bad_rng():
    with pytest.raises(InputError, match="not an exponential mechanism"):
        weight("lsdim", (1.0, 1.0), (2, 2), epsilon=1.0)
    with pytest.raises(InputError, match="rng must be a seed or a numpy Generator"):
        sample("mh", (1.0, 1.0), (2, 2), epsilon=1.0, rng="seed")
    with pytest.raises(InputError, match="size must be >= 0"):
        sample("mh", (1.0, 1.0), (2, 2), epsilon=1.0, size=-1)


PRIORS = [(validate.MIN_PRIOR,) * 2, (1e6,) * 2, (validate.MIN_PRIOR,) * 3, (1e6,) * 3,
          (validate.MIN_PRIOR, 1e6, 1.0)]


def _eps_range(mech: str) -> list[float]:
    top = validate.MAX_EPSILON if MECHANISMS[mech].family != "optimal" else 30.0
    return [validate.MIN_EPSILON, 1.0, top]


def _lp_refuses(mech: str, k: int, eps: float) -> bool:
    """The optimal mechanism's linear program (k >= 3) at eps = 30: HiGHS returns a table worse than the geometric
    release there, which the mechanism refuses in one line rather than return."""
    return MECHANISMS[mech].family == "optimal" and k >= 3 and eps >= 30.0


@pytest.mark.parametrize("mech", ALL_IDS)  # every registered mechanism
@pytest.mark.parametrize("prior", PRIORS, ids=lambda p: ",".join(f"{x:g}" for x in p))
def test_edges_give_a_finite_pmf_and_valid_draws(mech, prior):
    k = len(prior)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow or an invalid value is a failure here
        for counts in ([0] * (k - 1) + [5], [0] * (k - 1) + [1], [1] + [0] * (k - 1)):
            for eps in _eps_range(mech):
                try:
                    lp = log_pmf(mech, prior, counts, epsilon=eps)
                except SolverError as exc:  # the LP at k >= 3 and eps 30 is right or refused, never wrong
                    assert _lp_refuses(mech, k, eps) and "use geometric" in str(exc), exc
                    continue
                except SizeError as exc:  # the lattice release below its smallest eps: refused in one line
                    assert mech == "lattice" and eps < 0.01 and "epsilon >= 0.01" in str(exc), exc
                    continue
                assert not np.isnan(lp).any() and not np.isposinf(lp).any()
                assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-9)
                draws = sample(mech, prior, counts, epsilon=eps, size=20, rng=1)
                assert draws.shape == (20, k) and (draws >= 0).all() and (draws.sum(axis=1) == sum(counts)).all()


def test_optimal_refuses_epsilon_beyond_its_solver_range():
    with pytest.raises(validate.InputError, match="epsilon <= 30"):
        log_pmf("optimal", (1, 1), (2, 3), epsilon=31.0)


def test_sample_has_a_draw_budget(monkeypatch):
    monkeypatch.setenv("DPPOSTERIOR_MAX_DRAW_ENTRIES", "10")
    assert dp.sample("lshist", [1, 1], [3, 4], epsilon=1, size=5, rng=1).shape == (5, 2)
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_DRAW_ENTRIES"):
        dp.sample("lshist", [1, 1], [3, 4], epsilon=1, size=6, rng=1)
    # the auditor's sampler draws in batches within it, so audits are not limited by it
    draw = mechanism_audit.mechanism_sampler("ehds", [1, 1], epsilon=1)
    x = draw(np.array([3, 4]), 23, np.random.default_rng(1))
    assert x.shape == (23, 2) and (x.sum(axis=1) == 7).all()


def test_sample_refuses_large_tables_from_public_inputs(monkeypatch):
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_RELEASE_WORK"):
        dp.sample("ehd", [1, 1], [33_000_000, 33_000_000], epsilon=1, size=1)
    monkeypatch.setenv("DPPOSTERIOR_MAX_RELEASE_WORK", "1e3")
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_RELEASE_WORK"):  # k (n + 1) = 2 * 20001 > 1e3
        dp.sample("ehds", [1, 1], [10_000, 10_000], epsilon=1, size=1)
    assert dp.sample("lshist", [1, 1], [10_000, 10_000], epsilon=1, size=1, rng=1).shape == (1, 2)  # O(k): no tables


def test_numbers_past_float_range_are_printed():
    assert big_number(10**600) == "1.00e+600"
    assert big_number(-(3 * 10**400)) == "-3.00e+400"
    assert big_number(12345678) == "1.23e+07" and big_number(42) == "42" and big_number(0.5) == "0.5"
    with pytest.raises(SizeError, match=r"1\.02e\+600 entries"):
        dp.log_pmf("ehds", [1] * 1000, [1] * 1000, epsilon=1)


@pytest.mark.parametrize("call, needle", [
    (lambda: dp.log_pmf("ehds", [1, 1], [3, 4], epsilon=1, objective="average"), "objective applies to optimal and lattice only"),
    (lambda: dp.log_pmf("geometric", [1, 1], [3, 4], epsilon=1, gamma=5), "gamma applies to ehds only"),
    (lambda: dp.concrete_epsilon("lshist", [1, 1], 5, epsilon=1, global_sensitivity_method="paper"),
     "global_sensitivity_method applies to ehd only"),
])
def test_a_setting_the_mechanism_ignores_is_refused_in_the_api(call, needle):
    with pytest.raises(InputError, match=needle):
        call()


SCORED = ["ehd", "ehdl", "ehds", "mh", "mh-delta"]


def test_params_validate_the_distance_in_one_line():
    assert ReleaseSpec.of("ehds", 1.0).distance == "hellinger"
    assert ReleaseSpec.of("ehds", 1.0, distance="kl").distance == "kl"
    with pytest.raises(InputError) as e:
        ReleaseSpec.of("ehds", 1.0, distance="js")
    assert str(e.value) == "unknown distance 'js'; choose one of: hellinger, tv, kl"
    with pytest.raises(InputError, match="unknown distance 3"):
        ReleaseSpec.of("ehds", 1.0, distance=3)
    assert ReleaseSpec.of("ehds", 1.0, distance="tv").distance == "tv"


@settings(max_examples=20, deadline=None)
@given(distance_setting(), st.sampled_from(SCORED), epsilons, st.data())
def test_exponential_pmf_scores_with_the_distance(s, mech, eps, data):
    """P(r | c) = exp(-w(c) D(BI(c), r)) / Z with w from D's sensitivities, against brute force."""
    distance, prior, n = s
    b = ref.brute(prior, n, distance)
    c = b.cands[data.draw(st.integers(0, len(b.cands) - 1))]
    got = np.exp(log_pmf(mech, prior, c, epsilon=eps, distance=distance))
    assert np.allclose(got, b.pmf(mech, c, eps), rtol=1e-8, atol=1e-14)


def test_hellinger_default_is_unchanged():
    prior, c = (0.5, 2.0), np.array([3, 1])
    for mech in ["ehd", "ehds", "mh-delta", "lshist", "geometric", "optimal"]:
        a = log_pmf(mech, prior, c, epsilon=1.0)
        assert np.array_equal(a, log_pmf(mech, prior, c, epsilon=1.0, distance="hellinger"))
    e0, e1 = expected_errors("ehds", prior, 6, epsilon=1.0), expected_errors("ehds", prior, 6, epsilon=1.0,
                                                                             distance="hellinger")
    assert np.array_equal(e0.expected, e1.expected) and "distance" not in e0.as_dict()


def test_refusals_are_one_line():
    with pytest.raises(InputError) as e:
        ReleaseSpec.of("remapped-geometric", 1.0, distance="kl")
    assert str(e.value) == "remapped-geometric under kl is not built yet; use --distance hellinger"
    with pytest.raises(InputError) as e:  # optimal: any distance at k = 2, Hellinger's LP at k >= 3
        expected_errors("optimal", (1, 1, 1), 3, epsilon=1.0, distance="kl")
    assert str(e.value).startswith("optimal under kl at k=3 is not built")
    with pytest.raises(InputError, match="tv is exact for Beta"):
        log_pmf("ehd", (1, 1, 1), (1, 1, 1), epsilon=1.0, distance="tv")
    with pytest.raises(InputError, match="tv is exact for Beta"):
        expected_errors("geometric", (1, 1, 1), 3, epsilon=1.0, distance="tv")
    with pytest.raises(SizeError, match="rejection sampler is built for Hellinger"):
        sample("ehd", (1, 1), (20_000, 20_000), epsilon=1.0, distance="tv", rng=1)
