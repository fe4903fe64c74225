"""The average yardstick's windows with a ring folded inwards (``lattice.yardstick.column_bound(inner=...)``, the LP
over the inner offsets only, the ring past them paid by a fixed ``y >= 0``): one window's certified value against that
window's whole LP written here from its definition (no library code in the oracle), every bound below the LP of
``tests/reference.py`` (average and weighted), below each release's average error, and the plan from public inputs."""

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


def _offsets(k: int, radius: int) -> list[tuple[int, ...]]:
    """The points ``delta`` with ``sum delta = 0`` and ``|delta|_1 <= 2 radius``, from the definition."""
    import itertools

    out = []
    for v in itertools.product(range(-radius, radius + 1), repeat=k - 1):
        d = v + (-sum(v),)
        if sum(abs(x) for x in d) <= 2 * radius:
            out.append(d)
    return out


def _window_lp(D: list[tuple[int, ...]], w: np.ndarray, eps: float) -> float:
    """``min w^T x`` over ``0 <= x <= 1`` with ``x(u) <= e^eps x(v)`` for every two points one substitution apart: a
    window's column LP, from its definition."""
    rows = []
    for i, u in enumerate(D):
        for j, v in enumerate(D):
            if i != j and sum(abs(p - q) for p, q in zip(u, v)) == 2:
                row = np.zeros(len(D))
                row[i], row[j] = 1.0, -math.exp(eps)
                rows.append(row)
    if not rows:  # one point: no pair
        return float(np.minimum(w, 0.0).sum())
    res = linprog(w, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), bounds=(0.0, 1.0), method="highs")
    assert res.status == 0
    return float(res.fun)


@settings(max_examples=50, deadline=None)
@given(st.integers(3, 4), st.integers(1, 3), st.data(), st.sampled_from([0.1, 0.5, 1.0, 2.0]),
       st.integers(0, 2**31), st.floats(-0.5, 0.0))
def test_the_ring_and_the_inner_lp_certify_at_most_the_whole_windows_lp(k, radius, data, eps, seed, low):
    """The ring's sends are a ``y >= 0`` of the whole window's LP, so the inner LP's optimum over the folded costs
    plus what stays negative on the ring is at most the whole window's LP (weak duality; the oracle solves both from
    their definitions).  Fails when the ring sends ``pos`` in place of ``e^-eps pos`` (the inner rim gains too much),
    or when the ring's negative costs are dropped (``low`` below 0 puts some there)."""
    if k == 4 and radius == 3:
        radius = 2
    inner = data.draw(st.integers(0, radius - 1))
    D, dist, inward = ys._offsets(k, radius)
    rng = np.random.default_rng(seed)
    W = rng.uniform(low, 1.0, (len(D), 3))
    W[0] = -rng.uniform(0.0, 1.0, 3)  # the centre: -mu(r)
    W[dist <= inner] -= rng.uniform(0.0, 0.6, (int((dist <= inner).sum()), 3))
    lp_at = np.flatnonzero(dist <= inner)
    order = [int(o) for o in np.argsort(-dist, kind="stable") if dist[o] > inner]
    ins_at = [np.asarray(i, dtype=np.intp) for i in inward]
    A_in, ringed, size = ys._fold_ring(W, order, ins_at, math.exp(-eps), lp_at)
    assert np.all(ringed <= 0.0) and np.all(size >= 0.0)
    D_list = [tuple(int(x) for x in d) for d in D]
    inner_list = [D_list[i] for i in lp_at]
    assert sorted(D_list) == sorted(_offsets(k, radius))  # the library's window is the defined one
    for j in range(W.shape[1]):
        folded = _window_lp(inner_list, A_in[:, j], eps) + ringed[j]
        whole = _window_lp(D_list, W[:, j], eps)
        slack = (radius + 8) * 2.0**-50 * (size[j] + np.abs(W[:, j]).sum()) + 1e-9
        assert folded <= whole + slack, (j, folded, whole)


PRIORS = [(1.0, 1.0, 1.0), (0.5, 2.0, 1.0)]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(PRIORS), st.integers(2, 6), st.sampled_from([0.5, 1.0, 2.0]), st.integers(1, 4),
       st.integers(0, 3), st.integers(1, 3), st.floats(0.3, 1.2), st.integers(0, 2**31), st.booleans())
def test_a_ring_keeps_every_bound_below_the_lp(a, n, eps, radius, inner, steps, f, seed, flows):
    """``column_bound`` with a ring (any inner radius, the flows first or not, one or more steps) is at most the LP
    optimum of the average (``tests/reference.py``); with ``inner`` at or past ``radius`` it is the bound without a
    ring, bit for bit."""
    N = math.comb(n + len(a) - 1, len(a) - 1)
    E = np.random.default_rng(seed).uniform(0.0, 1.0, N)
    lp = ref.optimal_lp_value(ref.brute(a, n), eps, "average")
    pi = ys._predictive(np.array(a), candidates(n, len(a)))
    got = ys.column_bound(a, n, eps, f * pi * E, radius=radius, steps=steps, flows=flows, primal=True,
                          inner=min(inner, radius))
    assert got.average <= lp + 1e-9
    same = ys.column_bound(a, n, eps, f * pi * E, radius=radius, steps=steps, flows=flows, primal=True,
                           inner=radius)
    plain = ys.column_bound(a, n, eps, f * pi * E, radius=radius, steps=steps, flows=flows, primal=True)
    assert same.values == plain.values


@settings(max_examples=10, deadline=None)
@given(st.integers(3, 5), st.sampled_from([0.5, 1.0]), st.integers(0, 2**31))
def test_a_ring_keeps_the_weighted_bound_below_the_weighted_lp(n, eps, seed):
    """Under weights other than pi (the worst case's route) the ring's bound is at most the weighted LP's optimum
    (``tests/reference.py``), hence at most the optimal worst case."""
    a = (1.0, 1.0, 1.0)
    N = math.comb(n + 2, 2)
    w = np.random.default_rng(seed).uniform(0.1, 1.0, N)
    w = ys.objective_weights(a, n, w)
    lp = ref.weighted_lp_value(ref.brute(a, n), eps, w)
    got = ys.column_bound(a, n, eps, 0.9 * w * 0.3, radius=3, steps=2, flows=True, primal=True, inner=1, weights=w)
    assert got.average <= lp + 1e-9


def test_the_ring_certifies_more_than_its_inner_window_alone():
    """At Dir(1,1,1), n = 40, eps = 0.5, from a flat start: the inner LP with the ring folded in certifies at least
    what the inner window alone does (the ring only adds the mass an eps-DP column keeps past it), and the ring's
    bound is below the whole window's by the LP's optimum."""
    a, n, eps = (1.0, 1.0, 1.0), 40, 0.5
    pi = ys._predictive(np.array(a), candidates(n, 3))
    got = {}
    for m in (0.3, 0.4):
        alone = ys.column_bound(a, n, eps, m * pi, radius=3, steps=1, primal=True).average
        ring = ys.column_bound(a, n, eps, m * pi, radius=7, steps=1, primal=True, inner=3).average
        whole = ys.column_bound(a, n, eps, m * pi, radius=7, steps=1, primal=True).average
        assert alone < ring <= whole + 1e-12
        got[m] = (alone, ring, whole)
    # 0.3 pi is feasible for the ring (its bound is sum mu) where the inner window alone certifies nothing
    assert got[0.3][0] == 0.0 and got[0.3][1] == pytest.approx(0.3, rel=1e-9)
    assert got[0.4][1] == pytest.approx(0.29115, abs=1e-4) and got[0.4][2] == pytest.approx(0.31746, abs=1e-4)


@settings(max_examples=6, deadline=None)
@given(st.integers(4, 7), st.sampled_from([0.5, 1.0, 2.0]))
def test_the_ring_route_from_a_release_stays_below_it_and_the_lp(n, eps):
    """``block_bounds`` reads the ring from the plan's ``(radius, steps, most)`` (``release_inner``) as
    ``release_bound`` computes it, started from the lattice release's errors at ``RELEASE_RING_SCALES``: below the
    LP optimum of the average (``tests/reference.py``) and below that release's own average error."""
    a = (1.0, 1.0, 1.0)
    got = expected_errors("lattice", np.array(a), n, epsilon=eps, objective="average")
    E = np.zeros(len(got.counts))
    E[candidate_rank(got.counts)] = got.expected
    orbits = ys.orbit_count(a, n)
    size = (12, 1, orbits)
    assert ys.release_inner(a, n, 12, orbits) == 12 - ys.RELEASE_RING
    plan, _ = ys.plan_release(a, n, eps, 40.0)
    bounds = block_bounds(a, n, eps, {"average": (plan, size)}, ("lattice (average)", E))
    value, how = bounds["average"]
    assert "ring" in how
    direct = ys.release_bound(a, n, eps, E, radius=12, steps=1, scales=ys.RELEASE_RING_SCALES, most=orbits,
                              inner=12 - ys.RELEASE_RING).average
    assert value == direct
    assert value <= ref.optimal_lp_value(ref.brute(a, n), eps, "average") + 1e-9
    assert value <= got.average + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0), (0.5, 2.0, 1.0), (1.0, 1.0, 1.0, 1.0)]),
       st.sampled_from([50, 120, 300, 500, 1000, 2000]), st.sampled_from([0.25, 0.5, 1.0, 2.0]),
       st.floats(3.0, 60.0))
def test_the_plan_names_a_ring_where_and_only_where_the_run_reads_one(a, n, eps, seconds):
    """What ``plan_release`` plans and what its run reads agree (public inputs only): where ``release_inner`` gives a
    ring, the route says so, the cap covers at least ``RELEASE_RING_LP_SHARE`` of the orbits and the seconds are the
    set-up, the flows and that many LPs over the inner offsets; elsewhere no ring is named.  Fails if the last resort
    could leave a cap at or above the ring's share (the run would then fold a ring the plan did not cost)."""
    plan, (radius, steps, most) = ys.plan_release(a, n, eps, seconds)
    inner = ys.release_inner(a, n, radius, most)
    k = len(a)
    if inner is None:
        assert "ring" not in plan.route
        return
    orbits = ys.orbit_count(a, n)
    assert k in ys.RELEASE_RING_K and steps == 1 and most >= ys.RELEASE_RING_LP_SHARE * orbits
    assert f"within {inner}, the ring" in plan.route
    offsets = ys.offset_count(k, radius)
    setup = ys.RELEASE_SETUP_PER_ENTRY * orbits * offsets * k / 3
    flows = ys.RELEASE_FLOW_PER_ENTRY * orbits * offsets * k * (k - 1) / 6
    assert plan.seconds == pytest.approx(setup + flows + most * ys.release_lp_seconds(k, ys.offset_count(k, inner)))
    assert ys.release_scales(steps, ys.release_capped(a, n, most), ring=True) == ys.RELEASE_RING_SCALES


def test_the_ring_is_planned_at_k3_n1000_eps05_in_compares_share():
    """Dir(1,1,1), n = 1000, eps = 0.5 in the 12.9 s ``compare`` leaves the average: window 12, LPs over radius 4
    (before: 10,802 whole-window LPs at 0.75)."""
    plan, size = ys.plan_release((1.0, 1.0, 1.0), 1000, 0.5, 12.9)
    assert plan.fits and size[0] == 12 and size[1] == 1 and size[2] > 40_000
    assert ys.release_inner((1.0, 1.0, 1.0), 1000, 12, size[2]) == 4


def test_release_inner_reads_the_ring_rule_alone():
    """A ring only at k = 3, only for a capped plan whose cap reaches ``RELEASE_RING_LP_SHARE`` of the orbits and
    whose window leaves an inner radius of at least ``RELEASE_RING_MIN_INNER``."""
    a3, a4 = (1.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0)
    orbits = ys.orbit_count(a3, 1000)
    share = math.ceil(ys.RELEASE_RING_LP_SHARE * orbits)
    assert ys.release_inner(a3, 1000, 12, share) == 12 - ys.RELEASE_RING
    assert ys.release_inner(a3, 1000, 12, share - 1) is None
    assert ys.release_inner(a3, 1000, 12, None) is None
    assert ys.release_inner(a3, 1000, ys.RELEASE_RING + ys.RELEASE_RING_MIN_INNER - 1, orbits) is None
    assert ys.release_inner(a4, 100, 12, ys.orbit_count(a4, 100)) is None
