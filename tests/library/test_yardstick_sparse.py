"""The yardstick's sparse block (module docstring of :mod:`dpposterior.lattice.yardstick`, "Sparse blocks"): its
data sets and pairs against brute-force transcriptions, its certified value that of the relaxed LP written out by
tests/reference.py (which imports nothing from the library) and at most the LP's optimum, where ``compare`` plans
it, and its plan above its recorded runs."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import yardstick as ys
from dpposterior.yardstick import block_bounds, plan_blocks

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _sparse(R: list[tuple[int, ...]], step: int) -> list[tuple[int, ...]]:
    """The definition: every count a multiple of ``step``, or all but one, that one larger than every other."""
    out = []
    for c in R:
        off = [i for i, x in enumerate(c) if x % step]
        if not off or (len(off) == 1 and all(c[off[0]] > x for i, x in enumerate(c) if i != off[0])):
            out.append(c)
    return out


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 10), k=st.integers(2, 4), step=st.integers(1, 4))
def test_the_sparse_block_is_its_definition(n, k, step):
    got = [tuple(c) for c in ys.sparse_block(n, k, step).tolist()]
    assert got == _sparse(ref.compositions(n, k), step)
    for perm in itertools.permutations(range(k)):  # unchanged by every permutation of the categories
        assert sorted(tuple(c[p] for p in perm) for c in got) == got


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 8), k=st.integers(2, 4), step=st.integers(1, 3))
def test_the_pairs_are_every_pair_within_the_step(n, k, step):
    S = ys.sparse_block(n, k, 2)
    members = [tuple(c) for c in S.tolist()]
    got = {(members[i], members[j]) for i, j in ys._pairs(S, step).tolist()}
    want = {(c, d) for c in members for d in members if 1 <= ref.dist(c, d) <= step}
    assert got == want
    pairs = ys._pairs(S, step)
    assert [ref.dist(members[i], members[j]) for i, j in pairs.tolist()] == ys._pair_distances(S, pairs).tolist()
    if step == 1:  # the neighbouring pairs, in the order of the unit moves
        assert {(members[i], members[j]) for i, j in pairs.tolist()} == {
            (c, d) for c in members for d in ref.neighbours(c) if d in set(members)}


@pytest.mark.parametrize("prior, n, eps", [((1.0, 1.0, 1.0), 6, 0.5), ((1.0, 1.0, 1.0), 7, 1.0),
                                           ((1.0, 1.0, 1.0, 1.0), 4, 0.5), ((2.0, 1.0, 1.0), 6, 0.75)])
def test_the_certified_value_is_the_relaxed_lp_and_below_the_optimum(prior, n, eps):
    """The certified value is the reference's relaxed LP (its pairs at distance d with e^(d eps)) from below, within
    the certificate's rounding, and at most the whole LP's optimum; a factor e^eps at every distance would be a
    tighter LP, the reference's value at step 1 over the same rows (no pair kept) a looser one."""
    b = ref.brute(prior, n)
    rows = _sparse(ref.compositions(n, len(prior)), 2)
    want = ref.sparse_lp_value(b, eps, rows, 2)
    got = ys.sparse_bound(prior, n, eps).worst
    assert want - 1e-7 <= got <= want + 1e-9
    assert got <= ref.optimal_lp_value(b, eps, "worst") + 1e-9
    assert ref.sparse_lp_value(b, eps, rows, 1) < got - 1e-3  # the pairs at distance 2 carry the bound


@pytest.mark.parametrize("prior, n, eps, radius", [((1.0, 1.0, 1.0), 6, 0.5, 2), ((1.0, 1.0, 1.0), 7, 1.0, 3),
                                                   ((2.0, 1.0, 1.0), 6, 0.75, 2), ((1.0, 1.0, 1.0, 1.0), 5, 0.5, 2),
                                                   ((0.5, 1.0, 2.0), 8, 0.5, 3)])
def test_the_balls_certify_the_reference_relaxation_below_the_whole_block(prior, n, eps, radius):
    """``sparse_bound(radius=)`` is the reference's LP with each member's outputs beyond the radius lumped (its pairs
    at distance d with e^(d eps); a factor e^eps at distance 2 would put it above), from below within the
    certificate's rounding; a real relaxation of the whole block here, and the pairs at distance 2 carry it."""
    b = ref.brute(prior, n)
    rows = _sparse(ref.compositions(n, len(prior)), 2)
    want = ref.sparse_ball_lp_value(b, eps, rows, 2, radius, radius - 1)
    got = ys.sparse_bound(prior, n, eps, 2, radius).worst
    assert want - 1e-7 <= got <= want + 1e-9
    assert got < ys.sparse_bound(prior, n, eps).worst - 1e-3
    assert ref.sparse_ball_lp_value(b, eps, rows, 1, radius, radius - 1) < got - 1e-3


@pytest.mark.parametrize("n, radius", [(6, 2), (9, 3), (10, 10)])
def test_the_ball_shape_counts_the_pairs_within_the_radius(n, radius):
    """``sparse_ball_shape``'s count, the plan's size, is the number of (member, output) pairs within the radius
    (counted by brute force), and the LP before its reduction has exactly those variables and one lump per member
    whose ball misses an output."""
    a = np.ones(4)
    R = ref.compositions(n, 4)
    rows = _sparse(R, 2)
    want = sum(ref.dist(c, r) <= radius for c in rows for r in R)
    lumps = sum(any(ref.dist(c, r) > radius for r in R) for c in rows)
    count, order = ys.sparse_ball_shape(a, n, radius)
    assert (count, order) == (want, 24)
    cost, A_ub, A_eq, b_eq = ys._ball_lp(a, n, 0.5, radius, radius - 1, False, ys.sparse_block(n, 4), 2)
    assert A_eq.shape == (len(rows), want + lumps + 1)


def test_wider_balls_certify_no_less_up_to_the_whole_block():
    """Radius r is a relaxation of radius r + 1 (its solution with the outputs at distance r + 1 folded into the lump
    is feasible), so the certified values do not fall with the radius, up to the certificate's rounding; at radius n
    (every output in every ball) the whole block's value."""
    a = np.ones(4)
    values = [ys.sparse_bound(a, 8, 0.5, 2, radius).worst for radius in range(2, 8)]
    whole = ys.sparse_bound(a, 8, 0.5).worst
    assert all(b >= c - 1e-8 for c, b in zip(values, values[1:])) and values[-1] <= whole + 1e-9
    assert values[0] < whole - 1e-2
    cost, A_ub, A_eq, b_eq = ys._ball_lp(a, 8, 0.5, 8, 8, True, ys.sparse_block(8, 4), 2)
    from scipy.optimize import linprog

    res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=A_eq, b_eq=b_eq, bounds=(0, 1))
    assert res.fun == pytest.approx(whole, abs=1e-7)


def test_the_bound_at_n12_is_close_to_the_lp():
    """Dir(1,1,1,1), eps = 0.5, n = 12: 0.63937, where the LP by orbits is 0.65040 (tests of that LP hold it)."""
    assert ys.sparse_bound(np.ones(4), 12, 0.5).worst == pytest.approx(0.63937, abs=1e-4)


def test_compare_plans_the_sparse_block_where_it_was_measured_better():
    """``compare``'s mode at Dir(1,1,1,1): the sparse block first at eps 0.5 and 0.75 past the whole LP (n = 14), the
    corner blocks at their cheapest beside it and no deeper one, the average the flows then each window's LP; not
    beside the whole LP (n = 12), not at eps 1 (the corner blocks certify more there), within the worst case's share
    (half of both) and never leaving the average less than ``SPARSE_AVERAGE_SECONDS``; past that share its widest
    ball within it (n = 20 at 49.6 s: radius 8)."""
    a = np.ones(4)

    def plans(n, eps, share):
        return plan_blocks(a, n, eps, share / 2, start=True, floor=0.1, whole=True, weighted=True, deeper=True)

    for eps in (0.5, 0.75):
        out = plans(14, eps, 120.0)
        assert out[ys.SPARSE_KEY][0].fits and out[ys.SPARSE_KEY][1][0] == 2
        assert out["worst"][0].seconds <= ys.SPARSE_CORNER_SECONDS and out["worst"][1] == 5
        assert sum(p.seconds for p, _ in out.values() if p.fits) <= 120.0
    assert ys.SPARSE_KEY not in plans(14, 1.0, 120.0)
    assert ys.SPARSE_KEY not in plans(12, 0.5, 129.2)
    out = plans(20, 0.5, 49.6)
    assert out[ys.SPARSE_KEY][1] == (2, 8) and out[ys.SPARSE_KEY][0].seconds <= 49.6 / 2 - out["worst"][0].seconds
    for share in (29.9, 21.0):
        out = plans(17, 0.5, share)
        average = sum(p.seconds for key, (p, _) in out.items() if p.fits and "average" in key)
        assert out[ys.SPARSE_KEY][0].fits and average >= 0.9 * ys.SPARSE_AVERAGE_SECONDS
        assert out[ys.SPARSE_KEY][0].seconds <= share / 2
        assert len(out["average"][1]) == 4  # the flows then each window's LP, not a release's start
        assert sum(p.seconds for p, _ in out.values() if p.fits) <= share
    assert ys.SPARSE_KEY not in plans(17, 0.5, 19.0)  # the average's half would be less than its floor
    assert not ys.plan_sparse(a, 3, 0.5, 45.0)[0].fits
    assert not ys.plan_sparse(a, 16, 0.5, 2.0)[0].fits and ys.plan_sparse(a, 16, 0.5, 20.0)[0].fits
    # the whole block where it fits and is planned no longer than the widest ball, else the widest ball that fits
    assert ys.plan_sparse(a, 12, 0.5, 45.0)[1] == (2, None)
    assert ys.plan_sparse(a, 20, 0.5, math.inf)[1] == (2, ys.SPARSE_MAX_RADIUS)
    assert ys.plan_sparse(a, 20, 0.5, 20.0)[1] == (2, 8)


def test_block_bounds_runs_the_planned_sparse_block():
    a = np.ones(4)
    plan, size = ys.plan_sparse(a, 8, 0.5, 45.0)
    got = block_bounds(a, 8, 0.5, {ys.SPARSE_KEY: (plan, size)})
    assert got["worst"][0] == pytest.approx(ys.sparse_bound(a, 8, 0.5).worst, abs=0)
    assert "sparse block" in got["worst"][1] and "within" not in got["worst"][1]
    got = block_bounds(a, 8, 0.5, {ys.SPARSE_KEY: (plan, (2, 3))})
    assert got["worst"][0] == pytest.approx(ys.sparse_bound(a, 8, 0.5, 2, 3).worst, abs=0)
    assert "within 3 substitutions" in got["worst"][1]


def test_the_plan_holds_above_every_recorded_run():
    """benchmarks/yardstick_sparse_k4.json: each run's CPU seconds below its plan, and each bound at most the best
    release's worst case recorded beside it."""
    runs = _runs()
    assert len(runs) >= 20 and sum("best_release" in run for run in runs) >= 16 and sum("radius" in r for r in runs) >= 10
    for run in runs:
        assert run["cpu_seconds"] < _cost(run)[0]
        assert run["sparse"] <= run.get("best_release", math.inf)


def test_the_plan_s_bytes_hold_above_every_recorded_peak():
    for run in _runs():
        assert run["peak_mb"] * 2**20 < _cost(run)[1]


def _runs() -> list[dict]:
    """The recorded runs: the whole block (benchmarks/yardstick_sparse_k4.json) and its balls
    (benchmarks/yardstick_sparse_balls_k4.json)."""
    return [run for name in ("yardstick_sparse_k4.json", "yardstick_sparse_balls_k4.json")
            for run in json.loads((BENCH / name).read_text())["runs"]]


def _cost(run: dict) -> tuple[float, float]:
    """The plan's (seconds, bytes) of a recorded run (the whole block's, or its balls' at the run's radius)."""
    if "radius" in run:
        return ys.sparse_ball_cost(np.ones(4), run["n"], run["radius"])
    return ys.sparse_cost(np.ones(4), run["n"])
