"""The far cap of the windows' duals (``lattice.yardstick.far_cap``, the one cap every dual and ``window_ceiling``
read) and the pooled cap (``_aggregate_far``: a lower bound on the loss to every output whose window leaves a data set
out, from the k = 2 loss of the pooled counts of every split of the categories at the window's whole radius; read by
the weighted worst case's dual, ``column_bound(pooled=True)``, not by the averages', ``AGGREGATE_FAR_K``); the bounds
at k = 4 with every multiplier at either cap stay below the LP; the weighted worst case's start from the minimax LP's
row multipliers (docs/lattice.md, "The far cap by pooled counts")."""

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
    would hold under it), and so is the cap the duals read; that one infinite where the window is all of R(n)."""
    a = np.asarray(a)
    R = np.array(ref.compositions(n, a.size))
    cap = ys.far_cap(a, n, R, radius)
    if radius >= n:
        assert np.all(np.isinf(cap))
        return
    want = _far_losses(a, n, radius)
    for got in (cap, ys._aggregate_far(a, n, R, radius)):
        assert np.all(got <= want + 1e-12), (got - want).max()
        assert np.all((got > 0) | np.isinf(want))


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
    cap = ys._aggregate_far(np.asarray(a), n, R, radius)
    want = np.array([_pooled_oracle(a, n, radius, tuple(c)) for c in R.tolist()])
    assert np.all(cap <= want) and np.allclose(cap, want, rtol=1e-9, atol=1e-12)
    single = ys._beta_far(np.asarray(a), n, R, -(-2 * (radius + 1) // len(a)))
    assert np.all(cap >= single - 1e-12) and np.any(cap > single + 0.01)


@pytest.mark.parametrize("a,n", [((1.0, 1.0, 1.0), 9), ((0.5, 2.0, 1.0), 12), ((1.0, 1.0, 1.0, 1.0), 10),
                                 ((1.0, 0.3, 1.0, 2.0), 8)])
def test_the_duals_keep_the_one_category_cap(a, n):
    """Outside ``AGGREGATE_FAR_K`` (every k here) the cap is :func:`_beta_far`'s at ``ceil(2 (radius + 1) / k)``, the
    same floats as before, so no bound or plan moves."""
    a = np.asarray(a)
    R = candidates(n, a.size)
    assert a.size not in ys.AGGREGATE_FAR_K
    for radius in (1, 3, 5):
        assert np.array_equal(ys.far_cap(a, n, R, radius), ys._beta_far(a, n, R, -(-2 * (radius + 1) // a.size)))
    assert np.all(np.isinf(ys.far_cap(a, n, R, n)))


@pytest.mark.parametrize("a,eps,at", [((1.0, 1.0, 1.0, 1.0), 1.0, (4, 0, 0, 0)), ((1.0, 1.0, 1.0, 1.0), 0.5, (1, 1, 1, 1)),
                                      ((1.0, 0.3, 1.0, 2.0), 2.0, (0, 0, 0, 4)), ((1.0, 1.0, 1.0, 1.0), 0.5, None)])
def test_duals_with_every_multiplier_at_the_cap_stay_below_the_lp(a, eps, at):
    """k = 4, n = 4 (the dense reference LP): the release start from errors of 1 (every multiplier clipped to the far
    cap, where a cap above the far losses would certify more than the LP), the flows and the exact windows, at
    radius 1 to 3, under weights on one data set (its worst case, ``weighted_lp_value``) or pi (the average); the
    exact windows under the pooled cap too (``pooled``), started above it."""
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
        # the pooled cap (weighted_bound's): every multiplier started at it, and held under it
        pooled = pi * ys._aggregate_far(a, n, R, radius)
        # (infinite where no output leaves the data set out of its window)
        cols = ys.column_bound(a, n, eps, np.minimum(pooled * 2, pi * 10), radius=radius, steps=4, flows=True,
                               weights=w, pooled=True)
        assert cols.average <= want + 1e-7 and np.all(cols.mu <= pooled * (1 + 1e-12))


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


@pytest.mark.parametrize("a,n,eps", [((1.0, 1.0, 1.0), 5, 1.0), ((1.0, 1.0, 1.0, 1.0), 4, 0.5),
                                     ((1.0, 1.0, 1.0, 1.0), 5, 2.0)])
def test_the_minimax_lps_row_multipliers_are_its_saddle_point(a, n, eps):
    """``whole_weights``' ``rows``: the multipliers ``nu`` of the rows ``sum_r P(r | c) = 1``, with ``lambda`` summing
    to 1, sum to the LP's optimum (the dense reference's), as at a saddle point of ``min_P max_c E_P(c)``; and
    ``mixed_weights``' start is ``share`` of them where the carry is the identity (m = n)."""
    a = np.asarray(a)
    rows: dict = {}
    value, lam = ys.whole_weights(a, n, eps, rows)
    want = ref.optimal_lp_value(ref.brute(tuple(a), n), eps, "worst")
    assert math.fsum(lam) == pytest.approx(1.0, abs=1e-6)
    assert math.fsum(rows["rows"]) == pytest.approx(want, abs=1e-6) and value <= want + 1e-9
    start: dict = {}
    ys.mixed_weights(a, n, eps, n, 0.5, start)
    assert np.allclose(start["rows"], 0.5 * rows["rows"] / math.fsum(lam), rtol=1e-9, atol=1e-12)


def test_the_weighted_start_is_at_least_as_good_as_it_was_at_a_small_size():
    """Dir(1,1,1,1), n = 8, eps 0.5, from the LP at n = 6 (windows of radius 3, 2 evaluations): the bound from the
    carried row multipliers is below the whole LP and within reach of it (a start of 0 certifies far less)."""
    a, n, eps = np.ones(4), 8, 0.5
    worst = ys.corner_bound(a, n, eps, n).worst
    got = ys.weighted_bound(a, n, eps, 6, 3, 10, 2)
    w = ys.objective_weights(a, n, ys.mixed_weights(a, n, eps, 6, 0.5))
    zero = ys.weighted_worst(ys.column_bound(a, n, eps, np.zeros(len(w)), radius=3, steps=2, primal=True, flows=True,
                                             weights=w).average, w)
    assert zero < got <= worst + 1e-9
