"""docs/definitions.md §3: local, global, gamma-smooth and beta-smooth sensitivities vs their definitions, under
Hellinger and under another distance (tv, kl)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpposterior as dp
import reference as ref
from conftest import deltas, epsilons, gammas, prior_value_low, setting
from dpposterior import InputError, SizeError
from dpposterior.models import candidates
from dpposterior.sensitivity import (
    PAPER_GLOBAL_SENSITIVITY,
    beta_smooth_sensitivity,
    beta_smooth_sensitivity_all,
    global_sensitivity,
    local_sensitivity,
    sensitivity_work,
    smooth_sensitivity,
    smooth_sensitivity_all,
    smoothing_beta,
)

# The reference H is plain double precision (math.lgamma): absolute error ~1e-13 at these sizes.
ATOL = 1e-9


@settings(max_examples=150, deadline=None)
@given(setting())
def test_local_sensitivity_reduced_form_equals_definition(s):
    """LS via the k(k-1) adjacent posteriors == max over c' AND r in R(n) of |H(BI(c),r) - H(BI(c'),r)|."""
    prior, c = s
    b = ref.brute(prior, sum(c))
    assert local_sensitivity(prior, c) == pytest.approx(b.ls_definition(c), abs=ATOL)


@settings(max_examples=60, deadline=None)
@given(setting())
def test_local_sensitivity_vectorised_over_all_counts(s):
    prior, c = s
    n, k = sum(c), len(c)
    b = ref.brute(prior, n)
    got = local_sensitivity(prior, candidates(n, k))
    assert got.shape == (len(b.cands),)
    np.testing.assert_allclose(got, b.LS, atol=ATOL)
    # leading axes are preserved
    assert local_sensitivity(prior, candidates(n, k)[None, :, :]).shape == (1, len(b.cands))


@settings(max_examples=80, deadline=None)
@given(setting())
def test_global_sensitivity_exact_is_max_of_definitional_ls(s):
    prior, c = s
    b = ref.brute(prior, sum(c))
    assert global_sensitivity(prior, sum(c), method="exact") == pytest.approx(b.gs(), abs=ATOL)


def test_global_sensitivity_paper_constant():
    assert PAPER_GLOBAL_SENSITIVITY == pytest.approx(math.sqrt(1 - math.pi / 4), rel=1e-15)
    for prior, n in [((1.0, 1.0), 1), ((0.2, 0.3), 7), ((1.0, 2.0, 3.0), 4)]:
        assert global_sensitivity(prior, n, method="paper") == PAPER_GLOBAL_SENSITIVITY
    # = LS at n = 1 under Beta(1, 1), by the definition and by the library
    b = ref.brute((1.0, 1.0), 1)
    assert b.ls_definition((1, 0)) == pytest.approx(PAPER_GLOBAL_SENSITIVITY, rel=1e-12)
    assert local_sensitivity((1.0, 1.0), (1, 0)) == pytest.approx(PAPER_GLOBAL_SENSITIVITY, rel=1e-12)
    assert global_sensitivity((1.0, 1.0), 1) == pytest.approx(PAPER_GLOBAL_SENSITIVITY, rel=1e-12)


@pytest.mark.parametrize("prior", [(0.5, 0.5), (0.2, 1.5), (0.3, 0.3, 0.3)])
def test_paper_constant_understates_gs_for_priors_below_one(prior):
    exact = global_sensitivity(prior, 5)
    assert exact > PAPER_GLOBAL_SENSITIVITY * 1.02  # e.g. 0.4732 for (0.5, 0.5), 0.618 for (0.2, 1.5)
    assert exact == pytest.approx(ref.brute(prior, 5).gs(), abs=ATOL)


def test_global_sensitivity_bad_method():
    with pytest.raises(InputError, match="exact, paper"):
        global_sensitivity((1.0, 1.0), 3, method="guess")


@settings(max_examples=100, deadline=None)
@given(setting(), gammas)
def test_smooth_sensitivity_vs_definition(s, gamma):
    prior, c = s
    n, k = sum(c), len(c)
    b = ref.brute(prior, n)
    assert smooth_sensitivity(prior, c, gamma) == pytest.approx(b.smooth(c, gamma), abs=ATOL)
    all_ = smooth_sensitivity_all(prior, n, gamma)
    np.testing.assert_allclose(all_, [b.smooth(cc, gamma) for cc in b.cands], atol=ATOL)


@settings(max_examples=80, deadline=None)
@given(setting(), gammas)
def test_smooth_sensitivity_properties(s, gamma):
    """S >= LS and 1/S(c) - 1/S(c') <= gamma for every adjacent pair (docs/definitions.md §3)."""
    prior, c = s
    n, k = sum(c), len(c)
    cands = candidates(n, k)
    S = smooth_sensitivity_all(prior, n, gamma)
    LS = local_sensitivity(prior, cands)
    assert np.all(S >= LS * (1 - 1e-12))
    index = {tuple(m): i for i, m in enumerate(cands.tolist())}
    for i, m in enumerate(cands.tolist()):
        for mp in ref.neighbours(m):
            assert 1 / S[i] - 1 / S[index[mp]] <= gamma * (1 + 1e-12)


@settings(max_examples=100, deadline=None)
@given(setting(), epsilons, deltas)
def test_beta_smooth_sensitivity_vs_definition(s, eps, delta):
    prior, c = s
    n, k = sum(c), len(c)
    b = ref.brute(prior, n)
    assert smoothing_beta(eps, delta, n) == pytest.approx(ref.smoothing_b(eps, delta, n), rel=1e-12)
    assert beta_smooth_sensitivity(prior, c, eps, delta) == pytest.approx(b.beta_smooth(c, eps, delta), abs=ATOL)
    all_ = beta_smooth_sensitivity_all(prior, n, eps, delta)
    np.testing.assert_allclose(all_, [b.beta_smooth(cc, eps, delta) for cc in b.cands], atol=ATOL)


@settings(max_examples=60, deadline=None)
@given(setting(), epsilons, deltas)
def test_beta_smooth_sensitivity_properties(s, eps, delta):
    """S_b >= LS and S_b(c) <= e^b S_b(c') for adjacent c, c' (the beta-smoothness)."""
    prior, c = s
    n, k = sum(c), len(c)
    cands = candidates(n, k)
    b = smoothing_beta(eps, delta, n)
    S = beta_smooth_sensitivity_all(prior, n, eps, delta)
    assert np.all(S >= local_sensitivity(prior, cands) * (1 - 1e-12))
    index = {tuple(m): i for i, m in enumerate(cands.tolist())}
    for i, m in enumerate(cands.tolist()):
        for mp in ref.neighbours(m):
            assert S[i] <= math.exp(b) * S[index[mp]] * (1 + 1e-12)


@pytest.mark.parametrize("prior, c, gamma", [
    ((1.0, 1.0), (50, 50), 1.0), ((0.3, 2.0), (3, 120), 0.5), ((0.5, 1.0, 2.0), (10, 0, 25), 1.0),
    ((1.0, 1.0, 1.0, 1.0), (5, 5, 5, 5), 2.0),
])
def test_smooth_search_per_point_matches_all_at_once_larger_n(prior, c, gamma):
    """The bounded per-point search and the lattice distance transform agree beyond brute-force sizes."""
    n, k = sum(c), len(c)
    cands = candidates(n, k)
    i = int(np.flatnonzero((cands == np.array(c)).all(axis=1))[0])
    assert smooth_sensitivity(prior, c, gamma) == pytest.approx(smooth_sensitivity_all(prior, n, gamma)[i], rel=1e-12)
    assert beta_smooth_sensitivity(prior, c, 1.0, 1e-8) == pytest.approx(
        beta_smooth_sensitivity_all(prior, n, 1.0, 1e-8)[i], rel=1e-12)


def test_table1_local_sensitivity_printed_value():
    """Seed 000 Table 1 prints H = 0.233629480709 for one step from (4, 4) under Beta(1, 1): that is LS(c)."""
    assert round(local_sensitivity((1.0, 1.0), (4, 4)), 12) == 0.233629480709


@pytest.mark.parametrize("gamma", [0.0, -1.0, float("nan"), float("inf"), "x"])
def test_bad_gamma(gamma):
    with pytest.raises(InputError, match="gamma must be a positive number"):
        smooth_sensitivity((1.0, 1.0), (2, 3), gamma)


@settings(max_examples=40, deadline=None)
@given(setting(k_max=4, n_max=40, n_max_k4=10), gammas, epsilons, deltas)
def test_smooth_per_point_search_vs_all_at_once_random(s, gamma, eps, delta):
    """The per-point search stops at a certified distance; the distance transform does not: they agree."""
    prior, c = s
    n, k = sum(c), len(c)
    i = int(np.flatnonzero((candidates(n, k) == np.array(c)).all(axis=1))[0])
    assert smooth_sensitivity(prior, c, gamma) == pytest.approx(smooth_sensitivity_all(prior, n, gamma)[i], rel=1e-12)
    assert beta_smooth_sensitivity(prior, c, eps, delta) == pytest.approx(
        beta_smooth_sensitivity_all(prior, n, eps, delta)[i], rel=1e-12)


@pytest.mark.parametrize("n", [10**3, 10**6, 10**9])
@pytest.mark.parametrize("prior", [(1.0, 1.0), (0.2, 3.0), (0.5, 1.0, 2.0)])
def test_local_sensitivity_large_n_vs_mpmath(n, prior):
    """The reduced LS (its own adjacent-pair formula, not hellinger()) keeps 1e-10 relative digits at n = 1e9."""
    a = np.array(prior)
    k = a.size
    for c in (np.array([n // k] * (k - 1) + [n - (k - 1) * (n // k)]), np.array([1] + [0] * (k - 2) + [n - 1])):
        want = max(float(ref.hellinger_mp(a + c, a + np.array(d))) for d in ref.neighbours(tuple(c)))
        assert local_sensitivity(a, c) == pytest.approx(want, rel=1e-10)


@settings(max_examples=60, deadline=None)
@given(a1=st.floats(0.01, 5), a2=st.floats(0.01, 5), n=st.integers(1, 3000))
def test_global_sensitivity_k2_endpoints_equal_the_full_scan(a1, a2, n):
    """GS for k = 2 uses only c_1 in {0, 1, n-1, n} (concavity); the scan over all n + 1 data sets agrees."""
    t = np.arange(n + 1)
    full = local_sensitivity([a1, a2], np.column_stack([t, n - t])).max()
    assert global_sensitivity([a1, a2], n) == pytest.approx(full, rel=1e-14)


def test_local_and_global_sensitivity_need_no_k_by_k_table():
    # k = 100,000 took a 74.5 GiB k x k table; now O(k)
    assert 0 < dp.local_sensitivity([1] * 100_000, [1] * 100_000) <= dp.global_sensitivity([1] * 100_000, 100_000)
    with pytest.raises(InputError, match="prior has 2 entries but the counts have 10000"):
        dp.local_sensitivity([1, 1], np.ones((10, 10_000), np.int8))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([1e-12, 0.3, 1.0, 5.0, 1e6]), min_size=2, max_size=6), st.data())
def test_local_sensitivity_is_the_minimum_over_the_k_by_k_table(prior, data):
    from dpposterior.distances import hellinger_from_log_bc
    from dpposterior.sensitivity import adjacent_log_bc

    k = len(prior)
    c = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=1, max_size=3)))
    c = c[c.sum(axis=1) > 0]
    if not len(c):
        return
    want = hellinger_from_log_bc(adjacent_log_bc(prior, c).reshape(len(c), -1).min(axis=-1))
    assert (dp.local_sensitivity(prior, c) == want).all()  # the same additions: exactly equal


RTOL = 1e-8


@st.composite
def small(draw, distance):
    """(prior, n): k = 2 for tv (its domain); k = 2 or 3 for kl; n small enough for the brute force."""
    k = 2 if distance == "tv" else draw(st.sampled_from([2, 3]))
    prior = tuple(draw(prior_value_low) for _ in range(k))
    n = draw(st.integers(1, 5 if k == 2 else 3))
    return prior, n


def _close(got, want):
    assert np.allclose(got, want, rtol=RTOL, atol=1e-12), (got, want)


@pytest.mark.parametrize("distance", ["tv", "kl"])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_ls_gs_and_smooth_sensitivities_equal_the_definitions(distance, data):
    prior, n = data.draw(small(distance))
    gamma, eps, delta = data.draw(gammas), data.draw(epsilons), data.draw(deltas)
    b = ref.brute(prior, n, distance)
    cands = candidates(n, len(prior))
    _close(local_sensitivity(prior, cands, distance=distance), [b.ls_definition(c) for c in b.cands])
    _close(global_sensitivity(prior, n, distance=distance), b.gs())
    _close(smooth_sensitivity_all(prior, n, gamma, distance=distance), [b.smooth(c, gamma) for c in b.cands])
    _close(beta_smooth_sensitivity_all(prior, n, eps, delta, distance=distance),
           [b.beta_smooth(c, eps, delta) for c in b.cands])
    c = b.cands[data.draw(st.integers(0, len(b.cands) - 1))]
    _close(smooth_sensitivity(prior, c, gamma, distance=distance), b.smooth(c, gamma))
    _close(beta_smooth_sensitivity(prior, c, eps, delta, distance=distance), b.beta_smooth(c, eps, delta))


def test_kl_local_sensitivity_is_not_the_metric_reduction():
    """Beta(1, 1), n = 2, c = (1, 1): the reduction max_c' KL(BI(c) || BI(c')) = ln 2 = 0.693, but the
    definition's max over r is 2.307 (c' = (0, 2), r = (2, 0)): the reduction is 3.3 times too small."""
    prior, c = (1.0, 1.0), (1, 1)
    b = ref.brute(prior, 2, "kl")
    reduction = max(ref.kl((1 + c[0], 1 + c[1]), (1 + d[0], 1 + d[1])) for d in ref.neighbours(c))
    assert reduction == pytest.approx(np.log(2.0), rel=1e-12)
    ls = local_sensitivity(prior, c, distance="kl")
    assert ls == pytest.approx(b.ls_definition(c), rel=RTOL)
    assert ls == pytest.approx(2.306852819440055, rel=1e-12)
    # the maximising pair: c' = (0, 2), r = (2, 0)
    want = abs(ref.kl((2, 2), (3, 1)) - ref.kl((1, 3), (3, 1)))
    assert ls == pytest.approx(want, rel=1e-12) and ls > 3 * reduction


def test_tv_metric_reduction_equals_max_over_r():
    """For a metric the maximum over r is attained at r = BI(c'): both readings agree (here exactly)."""
    b = ref.brute((0.5, 2.0), 4, "tv")
    for c in b.cands:
        reduction = max(ref.tv((0.5 + c[0], 2 + c[1]), (0.5 + d[0], 2 + d[1])) for d in ref.neighbours(c))
        assert b.ls_definition(c) == pytest.approx(reduction, rel=1e-12)


def test_hellinger_is_the_default_and_unchanged():
    prior, c = (0.7, 1.3, 2.0), (2, 0, 3)
    assert local_sensitivity(prior, c, distance="hellinger") == local_sensitivity(prior, c)
    assert global_sensitivity(prior, 5, distance="hellinger") == global_sensitivity(prior, 5)
    assert smooth_sensitivity(prior, c, 0.5, distance="hellinger") == smooth_sensitivity(prior, c, 0.5)
    assert sensitivity_work("hellinger", 10**6, 3) == 0


def test_refusals_are_one_line():
    with pytest.raises(InputError, match="unknown distance 'js'; choose one of: hellinger, tv, kl"):
        local_sensitivity((1, 1), (1, 1), distance="js")
    with pytest.raises(InputError, match="tv") as e:
        global_sensitivity((1, 1, 1), 3, distance="tv")
    assert "\n" not in str(e.value)
    with pytest.raises(InputError, match="Hellinger's, not kl's"):
        global_sensitivity((1, 1), 3, "paper", distance="kl")
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_SENSITIVITY_WORK") as e:
        global_sensitivity((1, 1), 10_000, distance="kl")
    assert "\n" not in str(e.value) and "maximum over r" in str(e.value)


def test_budget_counts_the_max_over_r_for_kl_only():
    assert sensitivity_work("tv", 100, 2) == 2 * 101
    assert sensitivity_work("kl", 100, 2) == 2 * 101 * 101
    assert sensitivity_work("kl", 3, 3, counts=1) == 6 * 10
