"""docs/definitions.md §2: Kullback-Leibler divergence between Dirichlet distributions, checked against mpmath."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior import distance
from dpposterior.distances import kl, lgamma_bregman
from dpposterior.errors import InputError

RTOL = 1e-12


def kl_mp(p, q, dps=50):
    """The closed form at ``dps`` digits, parameters taken as exact."""
    with mpmath.workdps(dps):
        p = [mpmath.mpf(x) for x in p]
        q = [mpmath.mpf(x) for x in q]
        lb = lambda v: mpmath.fsum(mpmath.loggamma(x) for x in v) - mpmath.loggamma(mpmath.fsum(v))  # noqa: E731
        big_p = mpmath.fsum(p)
        return lb(q) - lb(p) + mpmath.fsum((x - y) * (mpmath.digamma(x) - mpmath.digamma(big_p)) for x, y in zip(p, q))


def kl_quad_mp(p, q, dps=30):
    """Brute force for Beta: int f_p ln(f_p / f_q) dx by quadrature over the logit."""
    with mpmath.workdps(dps):
        p1, p2, q1, q2 = (mpmath.mpf(v) for v in (*p, *q))

        def logf(a, b):
            lb = mpmath.loggamma(a) + mpmath.loggamma(b) - mpmath.loggamma(a + b)
            return lambda t: -a * mpmath.log1p(mpmath.exp(-t)) - b * mpmath.log1p(mpmath.exp(t)) - lb
        fp, fq = logf(p1, p2), logf(q1, q2)
        # f_p(x) dx = exp(fp(t)) dt; the log ratio of the x-densities equals that of the t-densities
        integrand = lambda t: mpmath.exp(fp(t)) * (fp(t) - fq(t))  # noqa: E731
        lo, hi = -(dps * 2.4 + 60) / p1 - 40, (dps * 2.4 + 60) / p2 + 40
        m, sd = mpmath.log(p1 / p2), mpmath.sqrt(1 / p1 + 1 / p2)
        pts = sorted({lo, hi} | {m + k * sd for k in range(-20, 21) if lo < m + k * sd < hi})
        return mpmath.quad(integrand, pts)


def assert_close(got, want, rtol=RTOL):
    assert math.isfinite(got)
    assert abs(got - float(want)) <= rtol * float(want), (got, float(want), abs(got - float(want)) / float(want))


def test_closed_form_and_hand_values():
    assert float(kl([2.0, 1.0], [1.0, 1.0])) == pytest.approx(math.log(2) - 0.5, rel=1e-14)
    # KL(U(0,1) || Beta(2,1)) = int ln(1 / (2x)) dx = 1 - ln 2
    assert float(kl([1.0, 1.0], [2.0, 1.0])) == pytest.approx(1 - math.log(2), rel=1e-14)


@pytest.mark.parametrize("p, q", [((0.5, 3.0), (2.0, 1.5)), ((4.0, 9.0), (4.5, 8.5)), ((0.1, 0.2), (3.0, 0.7)),
                                  ((20.0, 30.0), (25.0, 22.0))])
def test_beta_vs_quadrature(p, q):
    """KL of Betas against brute-force numerical integration (independent of the closed form)."""
    assert_close(float(kl(p, q)), kl_quad_mp(p, q), 1e-12)


@pytest.mark.parametrize("n", [10, 10**3, 10**6, 10**9])
@pytest.mark.parametrize("prior", [(1.0, 1.0), (0.5, 0.5), (0.2, 3.0)])
def test_adjacent_beta_posteriors_large_n(n, prior):
    """Neighbours Dir(a + c) vs Dir(a + c'): 1e-12 relative (KL ~ 2e-6 at n = 1e6), both directions."""
    a = np.array(prior)
    for c1 in sorted({0, 1, n // 10, n // 2, n - 1}):
        c = np.array([c1, n - c1])
        d = c + (np.array([1, -1]) if c1 < n else np.array([-1, 1]))
        assert_close(float(kl(a + c, a + d)), kl_mp(a + c, a + d))
        assert_close(float(kl(a + d, a + c)), kl_mp(a + d, a + c))
    if n == 10**6:
        c = np.array([n // 2, n - n // 2])
        assert 1e-6 < float(kl(a + c, a + c + [1, -1])) < 1e-5


def test_raw_log_beta_differences_fail_where_ours_holds():
    """The known-bad idea: lnB(q) - lnB(p) + ... in plain float64 loses everything at n = 1e9; the test can fail."""
    from scipy.special import gammaln, psi
    n = 10**9
    p = np.array([1.0 + n // 2, 1.0 + n - n // 2])
    q = p + [1.0, -1.0]
    want = float(kl_mp(p, q))
    lb = lambda v: gammaln(v).sum() - gammaln(v.sum())  # noqa: E731
    naive = lb(q) - lb(p) + ((p - q) * (psi(p) - psi(p.sum()))).sum()
    assert abs(naive - want) > 1e-3 * want
    assert_close(float(kl(p, q)), want)


@pytest.mark.parametrize("n", [10**3, 10**6, 10**9])
def test_dirichlet_k3_posteriors_vs_closed_form_in_mpmath(n):
    a = np.array([0.5, 1.0, 2.0])
    c = np.array([n // 3, n // 3, n - 2 * (n // 3)])
    for i, j, shift in [(0, 1, 1), (2, 0, 1), (1, 2, 7), (0, 2, n // 5), (1, 0, n // 3)]:
        d = c.copy()
        d[i] -= shift
        d[j] += shift
        assert_close(float(kl(a + c, a + d)), kl_mp(a + c, a + d))


param = st.floats(0.05, 50.0)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 4).flatmap(lambda k: st.tuples(st.lists(param, min_size=k, max_size=k),
                                                    st.lists(param, min_size=k, max_size=k))))
def test_random_small_dirichlets_vs_mpmath(pq):
    """Random small-parameter Dirichlets (different totals included): 1e-11 relative to the 50-digit closed form."""
    p, q = np.array(pq[0]), np.array(pq[1])
    want = kl_mp(p, q)
    got = float(kl(p, q))
    assert got >= 0.0
    assert abs(got - float(want)) <= 1e-11 * float(want) + 1e-15, (p, q, got, float(want))


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 4).flatmap(lambda k: st.tuples(
    st.lists(st.floats(-3, 9).map(lambda e: 10.0 ** e), min_size=k, max_size=k),
    st.lists(st.floats(-3, 9).map(lambda e: 10.0 ** e), min_size=k, max_size=k))))
def test_properties_wide_range(pq):
    """Parameters from 1e-3 to 1e9, totals far apart included (where K(P, Q) would cancel O(n) terms):
    KL >= 0, KL(p, p) = 0, and 1e-9 relative to mpmath (the Stirling form subtracts nothing of size n)."""
    p, q = np.array(pq[0]), np.array(pq[1])
    assert float(kl(p, p)) == 0.0 and not np.signbit(kl(p, p))
    want = float(kl_mp(p, q))
    got = float(kl(p, q))
    assert got >= 0.0
    assert abs(got - want) <= 1e-9 * want + 1e-300, (p, q, got, want)


@pytest.mark.parametrize("p, q", [
    ([1e6, 10.0 ** 7.5], [1e-3, 1e-3]),
    ([422324093.7212518, 413138806.3106066], [0.0013472035104145233, 0.003168454250880562]),
])
def test_rows_far_apart_keep_their_accuracy(p, q):
    """Every p_i far above q_i (found by the wide-range test): q_i - p_i rounds there, and e_i formed by cancelling
    the p_i p_j terms lost ~ulp p_j / Q (2.6e-9 and 3.1e-7 relative); 1 + e_i = (q_i / p_i)(P / Q) does not."""
    want = float(kl_mp(p, q))
    assert abs(float(kl(p, q)) - want) <= 1e-12 * want


@pytest.mark.parametrize("n", [10**4, 10**6, 10**9])
def test_different_totals_large_n(n):
    """Posteriors of different n (and scaled ones): the raw sum_i K_i - K(P, Q) loses ~1e-16 n of absolute accuracy."""
    a = np.array([0.5, 1.0, 2.0])
    c = np.array([n // 2, n // 3, n - n // 2 - n // 3])
    for q in (a + c + [1, 0, 0], a + c + [3, 2, 5], a + 2 * c, (a + c) * 1.5, a + c // 2, a + c[::-1]):
        assert_close(float(kl(a + c, q)), kl_mp(a + c, q), 1e-11)
        assert_close(float(kl(q, a + c)), kl_mp(q, a + c), 1e-11)


def test_asymmetric():
    p, q = np.array([2.0, 5.0]), np.array([0.5, 0.5])
    assert abs(float(kl(p, q)) - float(kl(q, p))) > 0.1
    assert_close(float(kl(q, p)), kl_mp(q, p))


def test_bregman_terms_nonnegative_and_accurate():
    for x, y in [(1e9, 1e9 + 1), (5e5, 5e5 - 3), (0.2, 7.0), (3.0, 3.2), (1e6, 1.0)]:
        with mpmath.workdps(50):
            want = mpmath.loggamma(y) - mpmath.loggamma(x) - (mpmath.mpf(y) - x) * mpmath.digamma(x)
        assert_close(float(lgamma_bregman(x, y)), want, 1e-12)


def test_broadcasts_and_registry_path():
    a = np.array([1.0, 1.0, 1.0])
    c = a + np.array([[5, 3, 2], [4, 4, 2], [0, 0, 10]])
    grid = kl(c[:, None, :], c[None, :, :])
    assert grid.shape == (3, 3)
    np.testing.assert_array_equal(np.diag(grid), 0.0)
    for i in range(3):
        for j in range(3):
            assert grid[i, j] == float(kl(c[i], c[j])) == float(distance("kl", c[i], c[j]))


def test_refuses_bad_parameters_in_one_line():
    for p, q in [([1, 0], [1, 1]), ([1, np.inf], [1, 1]), ([1, 2], [1, 2, 3]), ([1], [1]), ([1, 2], None)]:
        with pytest.raises(InputError) as exc:
            kl(p, q)
        assert "\n" not in str(exc.value)


def test_series_coefficients_shared_between_repeated_arguments_give_each_pair_its_own_value():
    # the series' polygammas are evaluated once per distinct x and gathered back: every pair must get exactly the
    # value it gets alone (a wrong gather would hand one pair another's coefficients)
    from dpposterior.distances.kl import _omega_bregman, lgamma_bregman

    x = np.repeat(np.array([0.7, 3.5, 12.0, 250.5]), 5)
    y = x * (1.0 + np.tile(np.array([-0.09, -0.01, 0.0, 0.02, 0.08]), 4))
    alone = np.array([lgamma_bregman(np.array([a]), np.array([b]))[0] for a, b in zip(x, y)])
    assert np.array_equal(lgamma_bregman(x, y), alone)
    h = y - x
    alone = np.array([_omega_bregman(np.array([a]), np.array([b]), np.array([d]))[0] for a, b, d in zip(x, y, h)])
    assert np.array_equal(_omega_bregman(x, y, h), alone)
