"""The far cap of the windows' duals at k = 4 (``lattice.yardstick.far_cap``, ``_aggregate_far``): a lower bound on the
loss to every output whose window leaves a data set out, from the k = 2 loss of the pooled counts of every split of
the categories at the window's whole radius; and the bounds held under it stay below the LP (docs/lattice.md, "The
far cap by pooled counts")."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import yardstick as ys
from dpposterior.models import candidate_rank, candidates, log_prior_predictive

PRIORS_K4 = [(1.0, 1.0, 1.0, 1.0), (1.0, 0.3, 1.0, 2.0), (0.5, 2.0, 1.0, 3.0)]


def _far_losses(a, n, radius):
    """Per data set (``ref.compositions`` order): the least loss to an output more than ``radius`` substitutions
    away, infinite where there is none (brute force with the reference's Hellinger distance)."""
    b = ref.brute(tuple(a), n)
    out = []
    for i, c in enumerate(b.cands):
        far = [b.H[i][j] for j, r in enumerate(b.cands) if ref.dist(c, r) > radius]
        out.append(min(far) if far else math.inf)
    return np.array(out)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(PRIORS_K4), st.integers(1, 6), st.integers(0, 6))
def test_the_pooled_cap_is_below_every_far_loss(a, n, radius):
    """At or below the least loss to every output outside the window, wherever there is one (so the windows' proof
    holds); infinite where the window is all of R(n)."""
    a = np.asarray(a)
    R = np.array(ref.compositions(n, a.size))
    cap = ys.far_cap(a, n, R, radius)
    if radius >= n:
        assert np.all(np.isinf(cap))
        return
    want = _far_losses(a, n, radius)
    assert np.all(cap <= want + 1e-12), (cap - want).max()
    assert np.all((cap > 0) | np.isinf(want))


def _pooled_oracle(a, n, radius, c):
    """``min_J min_(+-) H(Beta(a_J + c_J, A - a_J + n - c_J), Beta(a_J + c_J +- (radius + 1), ...))`` over the nonempty
    proper subsets J, written out from the definitions (the reference's Beta Hellinger)."""
    import itertools

    k, A, m = len(a), sum(a), radius + 1
    best = math.inf
    for size in range(1, k):
        for J in itertools.combinations(range(k), size):
            aJ, cJ = sum(a[j] for j in J), sum(c[j] for j in J)
            for t in (cJ + m, cJ - m):
                if 0 <= t <= n:
                    best = min(best, ref.hellinger((aJ + cJ, A - aJ + n - cJ), (aJ + t, A - aJ + n - t)))
    return best


@pytest.mark.parametrize("a,n,radius", [((1.0, 1.0, 1.0, 1.0), 8, 2), ((1.0, 0.3, 1.0, 2.0), 7, 3),
                                        ((0.5, 2.0, 1.0, 3.0), 9, 5)])
def test_the_pooled_cap_is_its_definition(a, n, radius):
    """Each data set's cap is the pooled oracle's, lowered only by the loss margin; and above the one-category cap
    (:func:`_beta_far` at ``ceil(2 (radius + 1) / k)``) somewhere: the reason it is used."""
    R = candidates(n, len(a))
    cap = ys.far_cap(np.asarray(a), n, R, radius)
    want = np.array([_pooled_oracle(a, n, radius, tuple(c)) for c in R.tolist()])
    assert np.all(cap <= want) and np.allclose(cap, want, rtol=1e-9, atol=1e-12)
    single = ys._beta_far(np.asarray(a), n, R, -(-2 * (radius + 1) // len(a)))
    assert np.all(cap >= single - 1e-12) and np.any(cap > single + 0.01)


@pytest.mark.parametrize("a,n", [((1.0, 1.0, 1.0), 9), ((0.5, 2.0, 1.0), 12)])
def test_k3_keeps_the_one_category_cap(a, n):
    """At k = 3 the cap is :func:`_beta_far`'s as before (the same floats), so k = 3's bounds do not move."""
    R = candidates(n, 3)
    for radius in (1, 3, 5):
        assert np.array_equal(ys.far_cap(np.asarray(a), n, R, radius),
                              ys._beta_far(np.asarray(a), n, R, -(-2 * (radius + 1) // 3)))


@pytest.mark.parametrize("a,eps,at", [((1.0, 1.0, 1.0, 1.0), 1.0, (4, 0, 0, 0)), ((1.0, 1.0, 1.0, 1.0), 0.5, (1, 1, 1, 1)),
                                      ((1.0, 0.3, 1.0, 2.0), 2.0, (0, 0, 0, 4)), ((1.0, 1.0, 1.0, 1.0), 0.5, None)])
def test_duals_with_every_multiplier_at_the_cap_stay_below_the_lp(a, eps, at):
    """k = 4, n = 4 (the dense reference LP): the release start from errors of 1 (every multiplier clipped to the far
    cap, where a cap above the far losses would certify more than the LP), the flows and the exact windows, at
    radius 1 to 3, under weights on one data set (its worst case, ``weighted_lp_value``) or pi (the average)."""
    n = 4
    a = np.asarray(a)
    R = candidates(n, a.size)
    b = ref.brute(tuple(a), n)
    if at is None:
        w = None
        want = ref.optimal_lp_value(b, eps, "average")
    else:
        w = np.full(len(R), 1e-3)
        w[candidate_rank(np.array([at]))] = 1.0
        w = ys.objective_weights(a, n, w)
        want = ref.weighted_lp_value(b, eps, w)
    for radius in (1, 2, 3):
        got = ys.release_bound(a, n, eps, np.ones(len(R)), radius=radius, steps=3, weights=w)
        assert got.average <= want + 1e-7, (radius, got.average, want)
        pi = ys.objective_weights(a, n, w)
        assert np.all(got.mu <= pi * ys.far_cap(a, n, R, radius) * (1 + 1e-12))
        flow = ys.flow_bound(a, n, eps, radius=radius, steps=30, weights=w)
        assert flow.average <= want + 1e-7
        cols = ys.column_bound(a, n, eps, flow.mu, radius=radius, steps=4, flows=True, weights=w)
        assert cols.average <= want + 1e-7


@pytest.mark.parametrize("n,eps", [(6, 0.5), (7, 1.0)])
def test_the_k4_duals_stay_below_the_whole_lp(n, eps):
    """Dir(1,1,1,1) at n = 6, 7 (the whole LP by HiGHS over all of R(n): the average's and, by orbits, the worst
    case's): the windows' average bound at radius 2 and 3 (where the cap binds) below the average LP, and the
    weighted worst case below the worst-case LP."""
    a = np.ones(4)
    R = candidates(n, 4)
    lp = log_prior_predictive(a, R)
    lp = lp - np.logaddexp.reduce(lp)
    _, average = ys.block_bound(a, n, eps, R, n, lp, worst=False)
    worst = ys.corner_bound(a, n, eps, n).worst
    for radius in (2, 3):
        assert ys.windows_bound(a, n, eps, radius, 30, 4) <= average + 1e-9
    assert ys.weighted_bound(a, n, eps, n - 2, 3, 20, 4) <= worst + 1e-9
