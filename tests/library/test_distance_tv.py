"""docs/definitions.md §2: total variation between Beta distributions, checked against 50-digit mpmath."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpposterior import distance
from dpposterior.distances import tv
from dpposterior.distances.tv import STEP_SUM_MAX, crossings
from dpposterior.errors import InputError

RTOL = 1e-10


# --- references --------------------------------------------------------------------------------------------

def _log_density(a, b, lb):
    """log density of t = logit(x) under Beta(a, b): a ln x + b ln(1 - x) - lnB."""
    return lambda t: -a * mpmath.log1p(mpmath.exp(-t)) - b * mpmath.log1p(mpmath.exp(t)) - lb


def _lb(a, b):
    return mpmath.loggamma(a) + mpmath.loggamma(b) - mpmath.loggamma(a + b)


def tv_quad_mp(p, q, dps=50):
    """Brute force: 1/2 int |f_p - f_q| dt over the logit by mpmath.quad, split at the crossings
    (sign changes of ln f_p - ln f_q on a grid, refined by findroot) and around both modes."""
    with mpmath.workdps(dps):
        p1, p2, q1, q2 = (mpmath.mpf(v) for v in (*p, *q))
        fp, fq = _log_density(p1, p2, _lb(p1, p2)), _log_density(q1, q2, _lb(q1, q2))
        g = lambda t: fp(t) - fq(t)  # noqa: E731
        digits = dps * mpmath.log(10) + 20
        lo, hi = -digits / min(p1, q1) - 50, digits / min(p2, q2) + 50
        pts = {lo, hi}
        for a, b in ((p1, p2), (q1, q2)):
            m, sd = mpmath.log(a / b), mpmath.sqrt(1 / a + 1 / b)
            pts.update(m + k * sd for k in range(-12, 13))
            pts.update(m + s * sd * 1.6 ** e for e in range(2, 22) for s in (-1, 1))
        grid = sorted(x for x in pts if lo <= x <= hi)
        vals = [g(x) for x in grid]
        cross = [mpmath.findroot(g, (x0, x1), solver="anderson")
                 for x0, x1, v0, v1 in zip(grid, grid[1:], vals, vals[1:]) if v0 * v1 < 0]
        nodes = sorted(set(grid) | set(cross))
        f = lambda t: abs(mpmath.exp(fp(t)) - mpmath.exp(fq(t)))  # noqa: E731
        return mpmath.fsum(mpmath.quad(f, [x0, x1]) for x0, x1 in zip(nodes, nodes[1:])) / 2


def tv_same_total_mp(p, shift, dps=50):
    """Exact TV of Beta(p1, p2) vs Beta(p1 + shift, p2 - shift), integer shift > 0: the densities cross once, at
    t0 = (lnB(q) - lnB(p)) / shift, and TV = sum_{j < shift} Gamma(N) / (Gamma(p1+j+1) Gamma(p2-j)) x^(p1+j) (1-x)^(p2-j-1)
    (from I_x(a, b) - I_x(a+1, b-1) = x^a (1-x)^(b-1) / (a B(a, b)))."""
    with mpmath.workdps(dps):
        p1, p2 = mpmath.mpf(p[0]), mpmath.mpf(p[1])
        t0 = (_lb(p1 + shift, p2 - shift) - _lb(p1, p2)) / shift
        lx, l1x = -mpmath.log1p(mpmath.exp(-t0)), -mpmath.log1p(mpmath.exp(t0))
        lgn = mpmath.loggamma(p1 + p2)
        return mpmath.fsum(mpmath.exp(lgn - mpmath.loggamma(p1 + j + 1) - mpmath.loggamma(p2 - j)
                                      + (p1 + j) * lx + (p2 - j - 1) * l1x) for j in range(shift))


def assert_close(got, want, rtol=RTOL):
    assert math.isfinite(got)
    assert abs(got - float(want)) <= rtol * float(want), (got, float(want), abs(got - float(want)) / float(want))


# --- closed forms ------------------------------------------------------------------------------------------

def test_closed_forms():
    # Beta(2,1) vs Beta(1,2): densities 2x and 2(1-x) cross at 1/2; TV = 3/4 - 1/4
    assert float(tv([2.0, 1.0], [1.0, 2.0])) == pytest.approx(0.5, rel=1e-14)
    # Beta(1,1) vs Beta(2,1): TV = 1/4
    assert float(tv([1.0, 1.0], [2.0, 1.0])) == pytest.approx(0.25, rel=1e-14)


@pytest.mark.parametrize("a, b", [(0.5, 3.0), (2.0, 7.5), (0.01, 0.02), (1e-3, 3e-3), (40.0, 41.0), (3.0, 1e4),
                                  (1e-8, 1.0), (1e-300, 1.0)])
def test_beta_a1_vs_beta_b1_closed_form(a, b):
    """Beta(a, 1) vs Beta(b, 1): F = x^a, crossing x0 = (a/b)^(1/(b-a)), TV = x0^a - x0^b (b = 0 branch;
    for (0.01, 0.02) and (1e-3, 3e-3) the crossing is at x ~ 1e-30 and 1e-239: the far-tail series)."""
    with mpmath.workdps(50):
        x0 = (mpmath.mpf(a) / b) ** (1 / (mpmath.mpf(b) - a))
        want = x0 ** a - x0 ** b
    assert_close(float(tv([a, 1.0], [b, 1.0])), want, 1e-12)
    assert_close(float(tv([1.0, a], [1.0, b])), want, 1e-12)  # mirrored: the a = 0 branch
    assert_close(float(tv([b, 1.0], [a, 1.0])), want, 1e-12)


# --- adjacent and near posteriors at large n ------------------------------------------------------------------

@pytest.mark.parametrize("n", [10, 1000, 10**6, 10**9])
@pytest.mark.parametrize("prior", [(1.0, 1.0), (0.5, 0.5), (0.2, 3.0)])
def test_adjacent_posteriors_large_n(n, prior):
    """Beta(a1 + c, a2 + n - c) vs Beta(a1 + c + 1, a2 + n - c - 1): 1e-10 relative (achieved ~1e-14), TV ~ 1e-3 at 1e6."""
    for c in sorted({0, 1, n // 10, n // 2, 4 * n // 7, n - 2}):
        p = (prior[0] + c, prior[1] + n - c)
        q = (p[0] + 1, p[1] - 1)
        want = tv_same_total_mp(p, 1)
        got = float(tv(p, q))
        assert_close(got, want, 1e-13)
        assert float(tv(q, p)) == pytest.approx(got, rel=1e-13)
        if n == 10**6 and c == n // 2:
            assert 5e-4 < got < 1e-3


@pytest.mark.parametrize("n", [10**3, 10**6, 10**9])
@pytest.mark.parametrize("shift", [2, 7, 300, STEP_SUM_MAX, STEP_SUM_MAX + 1, 3000])
def test_candidates_several_steps_away(n, shift):
    """Candidates up to STEP_SUM_MAX steps away use the step sum, farther ones two incomplete Betas: both 1e-10."""
    if shift >= n // 3:
        pytest.skip("shift beyond the data")
    a = np.array([1.0, 1.0])
    for c1 in (n // 2, n // 7):
        p = a + np.array([c1, n - c1])
        assert_close(float(tv(p, p + [shift, -shift])), tv_same_total_mp(p, shift))
        assert_close(float(tv(p + [shift, -shift], p)), tv_same_total_mp(p, shift))


def test_far_candidates_vs_quadrature():
    """The incomplete-Beta path against brute-force quadrature (not the step-sum identity)."""
    for p, q in [((5001.0, 5001.0), (7501.0, 2501.0)), ((1.5, 1e6), (901.5, 999100.0)),
                 ((2.0, 30.0), (30.0, 2.0)), ((400.3, 600.2), (350.3, 650.2))]:
        assert_close(float(tv(p, q)), tv_quad_mp(p, q))


# --- random small parameters: brute-force quadrature -------------------------------------------------------------

param = st.floats(0.05, 30.0).map(lambda x: round(x, 3))


@settings(max_examples=10, deadline=None)
@given(st.tuples(param, param, param, param))
def test_tv_vs_quadrature_random(v):
    """Random Betas, different totals included (0, 1 or 2 crossings), against mpmath.quad at 50 digits."""
    p, q = v[:2], v[2:]
    want = tv_quad_mp(p, q)
    got = float(tv(p, q))
    if want == 0:
        assert got == 0.0
    else:
        assert abs(got - float(want)) <= 1e-10 * float(want) + 1e-15, (p, q, got, float(want))


def test_two_crossings_found():
    """Same mean, different spread: two crossings, both found; TV matches quadrature."""
    p, q = (30.0, 30.0), (3.0, 3.0)
    t1, t2 = crossings(*(np.array([v]) for v in (*p, *q)))
    assert np.isfinite(t1[0]) and np.isfinite(t2[0]) and t1[0] == pytest.approx(-t2[0], rel=1e-12)
    assert_close(float(tv(p, q)), tv_quad_mp(p, q))
    p, q = (1e6, 1e6), (1e6 + 3, 1e6 + 3)  # concentrations differ slightly: TV ~ 1e-6
    assert_close(float(tv(p, q)), tv_quad_mp(p, q), 1e-9)  # achieved 5e-11


# --- properties ------------------------------------------------------------------------------------------------

pos = st.floats(0.05, 1e4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(pos, pos), min_size=3, max_size=3))
@example([(1.0, 1.0), (1.0, 9999.999999999998), (2609.0, 10000.0)])  # far tail: T_q underflowed, 0 * inf was NaN
def test_metric_properties(ps):
    """TV in [0, 1], TV(p, p) = 0, symmetric, triangle inequality on random triples."""
    p, q, r = (np.array(x) for x in ps)
    assert float(tv(p, p)) == 0.0
    pq, qr, pr = float(tv(p, q)), float(tv(q, r)), float(tv(p, r))
    for d in (pq, qr, pr):
        assert 0.0 <= d <= 1.0
    assert float(tv(q, p)) == pytest.approx(pq, rel=1e-9, abs=1e-15)
    assert pr <= pq + qr + 1e-12


def test_tv_bounds_hellinger():
    """H^2 <= TV <= H sqrt(2 - H^2) (H with 1 - BC, the library's convention), on a grid."""
    from dpposterior import hellinger
    rng = np.random.default_rng(3)
    p = rng.uniform(0.2, 50, (300, 2))
    q = rng.uniform(0.2, 50, (300, 2))
    h, t = hellinger(p, q), tv(p, q)
    assert np.all(h ** 2 <= t + 1e-12) and np.all(t <= h * np.sqrt(2 - h ** 2) + 1e-12)


def test_broadcasting_matches_pairwise():
    n = 10**6
    a = np.array([0.5, 0.5])
    m = np.array([0, 1, 10, n // 2, n // 2 + 1, n - 1, n])
    c = a + np.column_stack([m, n - m])
    grid = tv(c[:, None, :], c[None, :, :])
    assert grid.shape == (7, 7)
    for i in range(7):
        for j in range(7):
            assert grid[i, j] == float(tv(c[i], c[j]))
    np.testing.assert_array_equal(np.diag(grid), 0.0)
    assert not np.any(np.signbit(grid))
    np.testing.assert_allclose(grid, grid.T, rtol=1e-12)


def test_refuses_k3_and_bad_parameters_in_one_line():
    for call in (lambda: tv([1, 2, 3], [3, 2, 1]), lambda: distance("tv", [1, 2, 3], [3, 2, 1])):
        with pytest.raises(InputError, match=r"tv is exact for Beta \(k = 2\) only") as exc:
            call()
        assert "\n" not in str(exc.value)
    for p, q in [([1, 0], [1, 1]), ([1, np.nan], [1, 1]), ([1, 2], [1, 2, 3]), ("ab", [1, 1]), ([True, 2], [1, 1])]:
        with pytest.raises(InputError) as exc:
            tv(p, q)
        assert "\n" not in str(exc.value)
