"""docs/definitions.md §2: the Hellinger distance between Dirichlet/Beta distributions (dpposterior.distances.hellinger),
checked against mpmath: right or refused, and the bound behind its refusal."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpposterior as dp
import reference as ref
from dpposterior import hellinger
from dpposterior.distances import HELLINGER_TOLERANCE, HellingerGrid, lgamma_jensen_gap, log_beta
from dpposterior.errors import InputError, SizeError
from dpposterior.models import candidates

RTOL = 1e-10


def assert_matches_mpmath(p, q, rtol=RTOL):
    got = float(hellinger(p, q))
    want = ref.hellinger_mp(p, q)
    assert math.isfinite(got)
    assert abs(got - float(want)) <= rtol * float(want), (p, q, got, float(want))
    return got, float(want)


def test_closed_form_beta21_beta12():
    # BC(Beta(2,1), Beta(1,2)) = B(1.5,1.5)/B(2,1) = pi/4
    assert float(hellinger([2.0, 1.0], [1.0, 2.0])) ** 2 == pytest.approx(1 - math.pi / 4, rel=1e-14)


@pytest.mark.parametrize("n", [1, 10, 100, 10**4, 10**6, 10**7, 10**8, 10**9])
@pytest.mark.parametrize("prior", [(1.0, 1.0), (0.5, 0.5), (0.2, 3.0)])
def test_adjacent_beta_posteriors_large_n(n, prior):
    """Dir(a + c) vs a neighbour, k = 2, balanced and unbalanced data, up to n = 1e9."""
    a = np.array(prior)
    for c1 in {n // 2, n // 10, 1, n}:
        c = np.array([c1, n - c1])
        d = c + np.array([-1, 1]) if c1 >= 1 else c + np.array([1, -1])
        got, want = assert_matches_mpmath(a + c, a + d)
        assert 0 < got < 1


@pytest.mark.parametrize("n", [10**3, 10**6, 10**9])
def test_far_beta_posteriors_large_n(n):
    """Candidates a few steps and far away from the truth keep 1e-10 relative accuracy."""
    a = np.array([1.0, 1.0])
    c = np.array([n // 2, n - n // 2])
    for shift in (2, 7, min(1000, n // 4), n // 4, n // 2):
        assert_matches_mpmath(a + c, a + c + np.array([-shift, shift]))


@pytest.mark.parametrize("n", [10**3, 10**6, 10**9])
def test_adjacent_dirichlet_posteriors_large_n(n):
    a = np.array([0.5, 1.0, 2.0])
    c = np.array([n // 3, n // 3, n - 2 * (n // 3)])
    for i, j in [(0, 1), (2, 0), (1, 2)]:
        d = c.copy()
        d[i] -= 1
        d[j] += 1
        assert_matches_mpmath(a + c, a + d)


@settings(max_examples=150, deadline=None)
@given(
    k=st.integers(2, 4),
    log10_n=st.floats(0, 9),
    data=st.data(),
)
def test_hellinger_vs_mpmath_random(k, log10_n, data):
    """Random priors, totals up to 1e9 and perturbations: 1e-10 relative whenever H >= 1e-6."""
    n = int(10**log10_n)
    prior = np.array([data.draw(st.floats(0.1, 5.0)) for _ in range(k)])
    w = np.array([data.draw(st.floats(0.05, 1.0)) for _ in range(k)])
    c = np.floor(n * w / w.sum()).astype(np.int64)
    c[-1] += n - c.sum()
    shift = data.draw(st.integers(1, max(1, min(n, 10**6))))
    i, j = data.draw(st.permutations(range(k)))[:2]
    moved = min(shift, int(c[i]))
    d = c.copy()
    d[i] -= moved
    d[j] += moved
    p, q = prior + c, prior + d
    want = float(ref.hellinger_mp(p, q))
    got = float(hellinger(p, q))
    assert math.isfinite(got) and 0.0 <= got <= 1.0
    if want >= 1e-6:
        assert abs(got - want) <= RTOL * want, (p, q, got, want)
    else:
        assert abs(got - want) <= 1e-16


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 4).flatmap(lambda k: st.tuples(
    st.lists(st.floats(0.01, 1e9), min_size=k, max_size=k),
    st.lists(st.floats(0.01, 1e9), min_size=k, max_size=k))))
def test_hellinger_properties(pq):
    """H in [0, 1], symmetric, finite, H(p, p) = 0, for arbitrary positive parameters up to 1e9."""
    p, q = np.array(pq[0]), np.array(pq[1])
    assert float(hellinger(p, p)) == 0.0
    want = float(ref.hellinger_mp(p, q))
    scale = max(abs(math.lgamma(p.sum())), abs(math.lgamma(q.sum())), 1.0)
    try:
        h = float(hellinger(p, q))
    except InputError as exc:
        # Different totals (never the case inside R(n)): ln BC = sum_i J_i - J(P, Q) cancels, and
        # where the rounding of gammaln (~eps_mach * lnGamma(total)) moves H by more than
        # HELLINGER_TOLERANCE the function refuses; that needs large totals.
        assert "not accurate in float64" in str(exc) and scale > 1e4, (p, q, want)
        return
    assert math.isfinite(h) and 0.0 <= h <= 1.0
    assert float(hellinger(q, p)) == pytest.approx(h, rel=1e-12, abs=1e-300)
    assert abs(h - want) <= HELLINGER_TOLERANCE + 1e-10 * want, (p, q, h, want)


def test_hellinger_broadcasts_and_no_nan_at_1e9():
    n = 10**9
    a = np.array([1.0, 1.0])
    t = np.array([0, 1, n // 2, n - 1, n])
    c = np.column_stack([t, n - t])
    h = hellinger(a + c[:, None, :], a + c[None, :, :])
    assert h.shape == (5, 5)
    assert np.all(np.isfinite(h)) and np.all((h >= 0) & (h <= 1))
    np.testing.assert_array_equal(np.diag(h), 0.0)
    assert not np.any(np.signbit(h))  # H(p, p) is +0.0, never -0.0 (it is printed in tables)
    np.testing.assert_allclose(h, h.T, rtol=1e-12)


def test_log_beta_and_jensen_gap_vs_mpmath():
    for v, tol in [([0.3, 2.5, 7.0], 1e-13), ([0.3, 2.5, 1e6], 1e-9)]:  # 1e6: gammaln ~1e7 cancels
        with mpmath.workdps(40):
            want = sum(mpmath.loggamma(x) for x in v) - mpmath.loggamma(sum(mpmath.mpf(x) for x in v))
        assert float(log_beta(v)) == pytest.approx(float(want), rel=tol)
    for x, y in [(1e9 + 0.5, 1e9 - 0.5), (3.0, 3.2), (0.2, 7.0), (5e5, 5e5 + 1)]:
        with mpmath.workdps(50):
            j = mpmath.loggamma((mpmath.mpf(x) + y) / 2) - (mpmath.loggamma(x) + mpmath.loggamma(y)) / 2
        assert float(lgamma_jensen_gap(x, y)) == pytest.approx(float(j), rel=1e-10)
        assert float(lgamma_jensen_gap(x, y)) <= 0


@pytest.mark.parametrize("prior, n", [((1.0, 1.0), 8), ((0.3, 2.0), 40), ((0.5, 1.0, 4.0), 12),
                                      ((0.2, 0.7, 1.0, 3.0), 6), ((1.0, 1.0), 10**5)])
def test_hellinger_grid_agrees_with_hellinger(prior, n):
    a = np.array(prior)
    k = a.size
    if k == 2 and n > 1000:
        t = np.array([0, 1, 2, n // 3, n // 2, n - 1, n])
        cands = np.column_stack([t, n - t])
    else:
        cands = candidates(n, k)
    counts = cands[:: max(1, len(cands) // 7)]
    grid = HellingerGrid(a, n).hellinger(counts, cands)
    direct = hellinger(a + counts[:, None, :], a + cands[None, :, :])
    np.testing.assert_allclose(grid, direct, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n", [10**4, 2 * 10**4])
def test_regression_authors_defect_divided_by_log_sum(n):
    """docs/definitions.md §2: the authors' code divided lnB by ln(sum a), ~3x too small near n = 1e4. We must match mpmath."""
    a = np.array([1.0, 1.0])
    c = np.array([n // 2, n - n // 2])
    for shift in (1, 3):
        r = c + np.array([-shift, shift])
        want = float(ref.hellinger_mp(a + c, a + r))
        ours = float(hellinger(a + c, a + r))
        defective = ref.hellinger_defective(a + c, a + r)
        assert ours == pytest.approx(want, rel=1e-10)
        ratio = ours / defective
        # for same-total posteriors ln BC is divided by ln(n + 2): H shrinks by ~sqrt(ln(n + 2)) ~ 3
        assert ratio == pytest.approx(math.sqrt(math.log(n + 2)), rel=1e-3)
        assert 2.9 < ratio < 3.3


def _mp_hellinger(p, q):
    import mpmath as mp

    mp.mp.dps = 60
    lb = lambda v: sum(mp.loggamma(mp.mpf(x)) for x in v) - mp.loggamma(sum(mp.mpf(x) for x in v))  # noqa: E731
    m = [(mp.mpf(a) + mp.mpf(b)) / 2 for a, b in zip(p, q)]
    return float(mp.sqrt(1 - mp.exp(lb(m) - (lb(p) + lb(q)) / 2)))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 16), st.integers(1, 9)), min_size=2, max_size=3),
       st.lists(st.tuples(st.integers(0, 16), st.integers(1, 9)), min_size=2, max_size=3))
def test_hellinger_is_right_or_refuses(pe, qe):
    """Against 60-digit mpmath: within HELLINGER_TOLERANCE (1e-6) absolute, or an InputError, never wrong."""
    k = min(len(pe), len(qe))
    p = [m * 10.0**e for e, m in pe[:k]]
    q = [m * 10.0**e for e, m in qe[:k]]
    try:
        h = float(dp.hellinger(p, q))
    except InputError as exc:
        assert "not accurate in float64" in str(exc)
        return
    assert abs(h - _mp_hellinger(p, q)) <= 1e-6, (p, q, h)


def test_hellinger_refuses_the_cancelling_case_it_got_wrong():
    with pytest.raises(InputError, match="not accurate"):
        dp.hellinger([1e15, 1e15], [1, 1])  # true value 0.99988; float64 gave 0.0
    assert float(dp.hellinger([1e8, 1e8], [1, 1])) == pytest.approx(_mp_hellinger([1e8, 1e8], [1, 1]), abs=1e-9)
    with pytest.raises(InputError, match="Dirichlet parameters"):
        dp.hellinger([True, 2], [1, 2])
    with pytest.raises(SizeError):
        dp.hellinger(np.ones((10**5, 1, 2)), np.ones((1, 10**5, 2)))


def test_the_lgamma_bound_behind_hellingers_refusal_holds():
    from scipy.special import gammaln

    from dpposterior.distances import _lgamma_bound

    v = np.concatenate([np.logspace(-12, 16, 100_000), np.linspace(0.01, 10, 100_000)])
    assert (np.abs(gammaln(v)) <= _lgamma_bound(v)).all()


def test_hellinger_refuses_large_different_totals_that_cancel_in_the_series():
    """Found by the property test above: the midpoint series of two large, different totals (|J| ~ 2e10)
    cancels against the coordinates' down to ln BC ~ -4e-3, so its few-ulp error moved H by 5e-5."""
    with pytest.raises(InputError, match="not accurate"):
        dp.hellinger([5e12, 1], [6e12, 1])  # true value 0.0643490834; float64 gave 0.0642977
    assert float(dp.hellinger([1e6, 1], [1.1e6, 1])) == pytest.approx(_mp_hellinger([1e6, 1], [1.1e6, 1]), abs=1e-9)


def test_series_polygammas_shared_between_repeated_midpoints_give_each_pair_its_own_value():
    # the midpoint series evaluates its polygammas once per distinct midpoint and gathers them back: every pair must
    # get exactly the value it gets alone (a wrong gather would hand one pair another midpoint's coefficients)
    from dpposterior.distances.hellinger import lgamma_jensen_gap

    x = np.repeat(np.array([0.5, 2.0, 7.5, 40.0, 3000.5]), 6)
    y = x * (1.0 + np.tile(np.array([-0.15, -0.05, 0.0, 0.01, 0.05, 0.15]), 5))
    x, y = x - 0.5 * (y - x), y - 0.5 * (y - x)  # a few midpoints shared exactly, some not
    alone = np.array([lgamma_jensen_gap(np.array([a]), np.array([b]))[0] for a, b in zip(x, y)])
    assert np.array_equal(lgamma_jensen_gap(x, y), alone)
