"""The average yardstick's exact windows with the flows first (``lattice.yardstick.column_bound(flows=True)``, the
route of ``release_bound``): the flows' certificate of one window against that window's LP written here from its
definition (no library code in the oracle), the same bound as every window's LP, a cap on the LPs that only lowers
it, every value below the LP of ``tests/reference.py``, and the capped plan from public inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import reference as ref
from dpposterior.accuracy import expected_errors
from dpposterior.lattice import yardstick as ys
from dpposterior.models import candidate_rank, candidates
from dpposterior.yardstick import block_bounds


def _window_lp(D: np.ndarray, w: np.ndarray, eps: float) -> float:
    """``min w^T x`` over ``0 <= x <= 1`` with ``x(u) <= e^eps x(v)`` for every two offsets one substitution apart
    (``u - v = e_p - e_q``): the window's column LP, from its definition."""
    rows = []
    for i, u in enumerate(D):
        for j, v in enumerate(D):
            diff = u - v
            if i != j and np.abs(diff).sum() == 2:
                row = np.zeros(len(D))
                row[i], row[j] = 1.0, -math.exp(eps)
                rows.append(row)
    res = linprog(w, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), bounds=(0.0, 1.0), method="highs")
    assert res.status == 0
    return float(res.fun)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 4), st.integers(1, 3), st.sampled_from([0.1, 0.5, 1.0, 2.0]), st.integers(0, 2**31),
       st.floats(0.0, 3.0))
def test_the_flows_certify_at_most_each_windows_lp(k, radius, eps, seed, spread):
    """The flows' value of a window is that of a ``y >= 0`` of its column LP, so at most the LP's optimum (up to the
    rounding allowance): fails when the flows pay less than they send (e.g. ``pos`` sent in place of
    ``e^-eps pos``)."""
    D, dist, inward = ys._offsets(k, radius)
    walk = ys._FlowWalk.of(dist, inward, ys._neighbour_offsets(D), math.exp(-eps))
    rng = np.random.default_rng(seed)
    W = rng.uniform(-1.0, spread, (len(D), 5))
    W[0] = -rng.uniform(0.0, 1.0, 5)  # the centre: -mu(r) (its loss to itself is 0)
    got, size = ys._window_flows(W, walk)
    for j in range(W.shape[1]):
        slack = (radius + 8) * 2.0**-50 * size[j] + 1e-12
        assert got[j] - slack <= _window_lp(D, W[:, j], eps) + 1e-9, (j, got[j])
        assert got[j] <= 0.0


PRIORS = [(1.0, 1.0, 1.0), (0.5, 2.0, 1.0)]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(PRIORS), st.integers(2, 5), st.sampled_from([0.5, 1.0, 2.0]), st.integers(0, 3),
       st.integers(1, 3), st.floats(0.3, 1.5), st.integers(0, 2**31))
def test_flows_first_give_every_windows_lp_bound_and_a_cap_only_lowers_it(a, n, eps, radius, steps, f, seed):
    """With the flows first the bound is the one of every window's LP (an LP wherever the flows leave a deficit; the
    LP's certificate where higher); a cap on the LPs gives at most that, at least the flows' alone, growing with
    the cap (its LPs are those of the largest deficits, a larger cap's a superset); each below the LP optimum."""
    N = math.comb(n + len(a) - 1, len(a) - 1)
    E = np.random.default_rng(seed).uniform(0.0, 1.0, N)
    lp = ref.optimal_lp_value(ref.brute(a, n), eps, "average")
    pi = ys._predictive(np.array(a), candidates(n, len(a)))
    every = ys.column_bound(a, n, eps, f * pi * E, radius=radius, steps=steps)
    first = ys.column_bound(a, n, eps, f * pi * E, radius=radius, steps=steps, flows=True)
    assert first.average <= lp + 1e-9 and every.average <= lp + 1e-9
    assert first.values[0] == pytest.approx(every.values[0], rel=1e-7, abs=1e-9)
    capped = [ys.column_bound(a, n, eps, f * pi * E, radius=radius, steps=1, flows=True, most=m).average
              for m in (0, 1, 3, None)]
    assert all(x <= y + 1e-12 for x, y in zip(capped, capped[1:])), capped
    assert capped[-1] <= lp + 1e-9


def test_a_capped_plan_runs_below_the_lp_and_every_release():
    """:func:`block_bounds` with a capped plan (one evaluation, 2 LPs, the capped scales): below the LP's optimum and
    the release's own average error."""
    a, n, eps = (1.0, 1.0, 1.0), 7, 0.5
    E = expected_errors("lattice", np.array(a), n, epsilon=eps, objective="average")
    start = ("lattice (average)", np.zeros(len(E.counts)))
    start[1][candidate_rank(E.counts)] = E.expected
    plan = ys.plan_release(list(a), n, eps, 40.0)[0]
    got = block_bounds(list(a), n, eps, {"average": (plan, (4, 1, 2))}, start)["average"]
    assert 0.0 < got[0] <= ref.optimal_lp_value(ref.brute(a, n), eps, "average") + 1e-9
    assert got[0] <= E.average and "2 windows' LPs" in got[1]


def test_the_capped_plan_at_n_1000_eps_half():
    """Dir(1,1,1), n = 1000, eps = 0.5 in ``compare``'s share (~12.9 s): no evaluation with every window's LP fits,
    one with the LPs of the largest deficits does, at radius 12 (6 / eps) and at least RELEASE_MIN_LP_SHARE of the
    83,834 orbits; a share too small for that share of LPs refuses."""
    plan, (radius, steps, most) = ys.plan_release([1.0, 1.0, 1.0], 1000, 0.5, 12.9)
    assert plan.fits and plan.seconds <= 12.9 and steps == 1 and radius >= 12
    assert ys.orbit_count([1, 1, 1], 1000) == 83834 and most >= ys.RELEASE_MIN_LP_SHARE * 83834
    assert ys.release_scales(steps, most is not None) == ys.RELEASE_CAPPED_SCALES
    assert not ys.plan_release([1.0, 1.0, 1.0], 1000, 0.5, 6.0)[0].fits
