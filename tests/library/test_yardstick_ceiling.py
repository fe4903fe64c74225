"""The ceiling of the average's duals (``lattice.yardstick.window_ceiling``): an upper end of every bound the flows,
the exact windows and the release's start can certify with windows of a given radius, and its use in the plan of
``compare``'s yardstick (``yardstick.plan_blocks``' ``floor``): an average dual that cannot beat the bound at hand is
not run, and its share goes to the worst case's corner blocks (docs/lattice.md, "A yardstick at any n")."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import yardstick as ys
from dpposterior.models import candidates, log_prior_predictive
from dpposterior.yardstick import marginal_bound, plan_blocks

PRIORS = [(1.0, 1.0, 1.0), (0.5, 2.0, 1.0), (2.0, 0.5, 3.0), (1.0, 1.0, 1.0, 1.0), (0.3, 1.0, 2.0, 0.7)]


def _oracle(a, n, radius):
    """``sum_c pi(c) min_j min_(+-) H(Beta(a_j + c_j, A - a_j + n - c_j), Beta(a_j + c_j +- m, ...))``, ``m =
    ceil(2 (radius + 1) / k)``, written out from the definitions (tests/reference.py's Hellinger and Dirichlet-
    multinomial); infinite when ``radius >= n``."""
    k, A = len(a), sum(a)
    if radius >= n:
        return math.inf
    m = -(-2 * (radius + 1) // k)
    total = 0.0
    for c in ref.compositions(n, k):
        cap = math.inf
        for j in range(k):
            for t in (c[j] + m, c[j] - m):
                if 0 <= t <= n:
                    cap = min(cap, ref.hellinger((a[j] + c[j], A - a[j] + n - c[j]), (a[j] + t, A - a[j] + n - t)))
        total += ref.dirichlet_multinomial(a, c) * cap
    return total


def _pi(a, n):
    lp = log_prior_predictive(np.asarray(a, dtype=np.float64), candidates(n, len(a)))
    return np.exp(lp - np.logaddexp.reduce(lp))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PRIORS), st.integers(1, 9), st.integers(0, 10))
def test_the_ceiling_is_the_prior_weighted_far_cap(a, n, radius):
    want = _oracle(a, n, radius)
    got = ys.window_ceiling(a, n, radius)
    if math.isinf(want):
        assert math.isinf(got)
    else:
        assert want <= got <= want * (1 + 1e-8) + 1e-15, (got, want)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(PRIORS), st.integers(1, 6), st.sampled_from([0.05, 0.3, 1.0, 3.0]), st.integers(0, 4),
       st.integers(1, 4), st.floats(0.0, 20.0), st.integers(0, 2**31))
def test_no_dual_certifies_above_its_windows_ceiling(a, n, eps, radius, steps, scale, seed):
    """Whatever the multipliers (random, far above the cap too) and steps: the flows, the exact windows and the
    release's start stay at or below the ceiling of their radius."""
    k = len(a)
    N = math.comb(n + k - 1, k - 1)
    rng = np.random.default_rng(seed)
    pi = _pi(a, n)
    ceiling = ys.window_ceiling(a, n, radius)
    start = pi * rng.uniform(0.0, scale, N)
    assert ys.flow_bound(a, n, eps, radius=radius, steps=steps, start=start).average <= ceiling
    assert ys.flow_bound(a, n, eps, radius=radius, steps=steps).average <= ceiling
    assert ys.column_bound(a, n, eps, start, radius=radius, steps=min(steps, 2)).average <= ceiling
    if k == 3:
        errors = rng.uniform(0.0, scale, N)
        assert ys.release_bound(a, n, eps, errors, radius=radius, steps=min(steps, 2)).average <= ceiling


def test_the_ceiling_is_reached():
    """The ceiling is no loose constant: at small eps and small windows the duals reach it (k = 4) or pass the
    ceiling of the next smaller radius (k = 3), so a ceiling computed one radius short fails here."""
    a, n, eps = (1.0, 1.0, 1.0, 1.0), 6, 0.1
    ceiling = ys.window_ceiling(a, n, 1)
    for got in (ys.flow_bound(a, n, eps, radius=1, steps=60).average,
                ys.column_bound(a, n, eps, _pi(a, n) * 10, radius=1, steps=1).average):
        assert ceiling * (1 - 1e-6) <= got <= ceiling
    a, n, eps = (1.0, 1.0, 1.0), 8, 0.05
    got = ys.flow_bound(a, n, eps, radius=1, steps=60).average
    assert ys.window_ceiling(a, n, 0) < got <= ys.window_ceiling(a, n, 1)


def test_the_ceiling_grows_with_the_radius():
    got = [ys.window_ceiling((1.0, 1.0, 1.0), 40, r) for r in range(0, 41)]
    assert all(x <= y for x, y in zip(got, got[1:])) and math.isinf(got[-1])


# --- the plan -----------------------------------------------------------------------------------------------------


def test_at_n_1000_eps_half_the_corner_blocks_come_first_and_the_flows_are_left_out():
    """Dir(1,1,1), n = 1000, eps = 0.5 in ``compare``'s share (8.6 s each): the corner blocks take depth 14 of both
    shares (12 before; the flows, planned at their measured cost per entry there, no longer fit 8.6 s); at a share of
    13 s the flows that fit what they leave, windows of radius 2, cannot certify more than 0.0494, below the k = 2
    bound 0.0632, so they are not planned (nor run: ``block_bounds`` runs the plans)."""
    a, n, eps = [1.0, 1.0, 1.0], 1000, 0.5
    floor = marginal_bound(a, n, eps).average
    assert ys.window_ceiling(a, n, 2) <= floor < ys.window_ceiling(a, n, 3)
    before = plan_blocks(a, n, eps, 8.6)
    assert not before["average"][0].fits and before["average"][1][0] == 2 and before["worst"][1] == 12
    after = plan_blocks(a, n, eps, 8.6, floor=floor)
    assert after["worst"] == ys.plan_corner(a, n, eps, 2 * 8.6) and after["worst"][1] == 14
    assert "average" not in after or not after["average"][0].fits
    plain = plan_blocks(a, n, eps, 13.0 * 2 - after["worst"][0].seconds)
    assert plain["average"][0].fits and plain["average"][1][0] == 2  # what the flows would be
    assert set(plan_blocks(a, n, eps, 13.0, floor=floor)) == {"worst"}
    # a floor below the ceiling keeps them
    assert plan_blocks(a, n, eps, 13.0, floor=0.0)["average"] == plain["average"]


@pytest.mark.parametrize("n,eps,share", [(500, 0.5, 11.7), (300, 0.5, 32.8), (1000, 1.0, 23.2), (1000, 2.0, 45.5),
                                         (50, 1.0, 58.0), (20, 0.5, 1.5), (1000, 0.5, 8.6)])
@pytest.mark.parametrize("start", [False, True])
def test_the_corner_blocks_first_then_the_average_in_what_they_leave(n, eps, share, start):
    """With a floor (``compare``): the corner blocks within both shares (at most BLOCK_SECONDS), the average's plans
    those of before within what they leave (at most its own share); all of it within the two shares.  With a floor
    above every ceiling, no average dual is planned."""
    a = [1.0, 1.0, 1.0]
    before = plan_blocks(a, n, eps, share, start=start)
    after = plan_blocks(a, n, eps, share, start=start, floor=0.0)
    assert after["worst"] == ys.plan_corner(a, n, eps, min(ys.BLOCK_SECONDS, 2 * share))
    assert after["worst"][1] >= before["worst"][1]
    rest = plan_blocks(a, n, eps, min(share, 2 * share - after["worst"][0].seconds), start=start)
    assert {key: plan for key, plan in after.items() if key != "worst"} == {
        key: plan for key, plan in rest.items() if key != "worst"}
    assert sum(plan.seconds for plan, _ in after.values() if plan.fits) <= 2 * share + 1e-9
    none = plan_blocks(a, n, eps, share, start=start, floor=math.inf)
    assert none["worst"] == after["worst"]
    assert all(not plan.fits for key, (plan, _) in none.items() if key != "worst")


def _far_per_data_set(a, n, R, m):
    """The far cap as first written: the k = 2 losses evaluated at every data set (``hellinger`` over R(n))."""
    from dpposterior.distances.hellinger import hellinger

    A = float(a.sum())
    out = np.full(len(R), np.inf)
    for j in range(a.size):
        cj = R[:, j].astype(np.float64)
        p = np.column_stack([a[j] + cj, A - a[j] + n - cj])
        for step in (m, -m):
            t = cj + step
            ok = (t >= 0) & (t <= n)
            if ok.any():
                q = np.column_stack([a[j] + t[ok], A - a[j] + n - t[ok]])
                out[ok] = np.minimum(out[ok], np.asarray(hellinger(p[ok], q)))
    return np.maximum(out * (1 - ys.LOSS_MARGIN) - ys.LOSS_MARGIN, 0.0)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(PRIORS), st.integers(0, 30), st.integers(1, 12))
def test_the_far_cap_by_values_is_the_per_data_set_one_bit_for_bit(a, n, m):
    """The far cap read from one table per category is the same floats as evaluated at every data set, so the
    flows' and the exact windows' bounds are unchanged by it."""
    a = np.asarray(a, dtype=np.float64)
    R = candidates(n, a.size)
    assert np.array_equal(ys._beta_far(a, n, R, m), _far_per_data_set(a, n, R, m))


@pytest.mark.parametrize("a,n,m", [((1.0, 1.0, 1.0), 300, 2), ((0.5, 2.0, 1.0), 200, 5), ((1.0,) * 4, 40, 3)])
def test_the_far_cap_by_values_is_the_same_at_larger_n(a, n, m):
    a = np.asarray(a, dtype=np.float64)
    R = candidates(n, a.size)
    assert np.array_equal(ys._beta_far(a, n, R, m), _far_per_data_set(a, n, R, m))
