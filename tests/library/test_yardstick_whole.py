"""The yardstick's worst case from the whole LP over its orbits (dpposterior.lattice.yardstick.corner_bound at depth n,
planned by plan_corner(whole=True), what compare asks for).

Oracles: the LP of docs/definitions.md §9 written densely in tests/reference.py without the library, the exact errors
of releases of the same setting, and the recorded runs of benchmarks/yardstick_whole.py (the plan at or above them).
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import yardstick as ys
from dpposterior.yardstick import block_bounds, plan_blocks

RUNS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "yardstick_whole.json"


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0, 1.0), (0.5, 1.0, 1.0, 2.0), (1.0, 1.0, 1.0), (2.0, 0.5, 2.0)]),
       st.integers(1, 5), st.sampled_from([0.05, 0.5, 1.0, 2.0, 5.0]))
@example((2.0, 0.5, 2.0), 5, 5.0)
def test_the_whole_lp_by_orbits_is_the_lp(a, n, eps):
    """At depth n the corner block is all of R(n), solved once over the orbits of every permutation fixing the prior:
    its certified value is at most the LP's optimum and, being the LP itself, within the solvers' tolerance of it
    (2e-6, or 1e-3 of it: at eps = 5 the certificate built from HiGHS's duals, clipped to y >= 0, loses 6.1e-6 of
    0.0143286 at Dir(2, 0.5, 2), n = 5, the constraints' e^eps = 148 multiplying the duals' tolerance)."""
    if len(a) == 4:
        n = min(n, 3)
    lp = ref.optimal_lp_value(ref.brute(a, n), eps, "worst")
    b = ys.corner_bound(list(a), n, eps, n)
    assert b.worst <= lp + 1e-9
    assert b.worst == pytest.approx(lp, abs=2e-6, rel=1e-3)
    assert b.blocks == 1


def test_the_whole_lp_is_planned_where_the_blocks_stop_short():
    """Dir(1,1,1,1), eps = 0.5, n = 10: the deepest corner block within 20 s is depth 8 (``corner_cost``'s k = 4 fit;
    depth 7 within 10 s); the whole LP (a 24th of it by orbits) fits and is taken, only with ``whole``; at n = 12 it
    does not fit and the blocks stay."""
    a = [1.0] * 4
    before, depth = ys.plan_corner(a, 10, 0.5, 20.0)
    assert depth == 8 and before.route == "corner blocks, depth 8"
    assert ys.plan_corner(a, 10, 0.5, 10.0)[1] == 7
    plan, depth = ys.plan_corner(a, 10, 0.5, 20.0, whole=True)
    assert depth == 10 and plan.fits and plan.route.startswith("the whole LP") and plan.seconds <= 20.0
    assert ys.plan_corner(a, 12, 0.5, 20.0, whole=True) == ys.plan_corner(a, 12, 0.5, 20.0)
    # where the blocks already reach n the plan is as before
    assert ys.plan_corner(a, 6, 0.5, 20.0, whole=True) == ys.plan_corner(a, 6, 0.5, 20.0)
    # compare's mode asks for it; the pipeline's (no ``whole``) does not
    worst = plan_blocks(a, 10, 0.5, 10.0, start=True, floor=0.3, whole=True)["worst"]
    assert worst[1] == 10 and worst[0].route.startswith("the whole LP")
    assert plan_blocks(a, 10, 0.5, 10.0, start=True, floor=0.3)["worst"][1] == 7


def test_the_whole_lp_plan_is_at_or_above_its_runs():
    """benchmarks/yardstick_whole.json and yardstick_whole_h79yd.json: every recorded run at or below its plan (time
    within 4x, memory above)."""
    calls = json.loads(RUNS.read_text())["calls"] + json.loads(RUNS.with_name("yardstick_whole_h79yd.json").read_text())["calls"]
    assert len(calls) >= 5
    for c in calls:
        R = ys.corner_block(c["n"], c["k"], 0, c["n"])
        rows, groups, pairs = ys.block_shape(c["n"], R, ys.CORNER_REACH)
        order = len(ys._symmetry_images(np.ones(c["k"]), R))
        planned = ys.whole_seconds(rows, groups, pairs, order, c["k"])
        assert c["cpu_seconds"] <= planned <= 4 * c["cpu_seconds"] + 1.0, c
        assert c["peak_bytes"] <= ys.whole_bytes(rows, groups, pairs, order) + 150e6, c


def test_the_whole_lp_is_below_every_release_and_above_the_old_bound():
    """Dir(1,1,1,1), eps = 0.5, n = 6 (the LP by orbits in ~0.4 s): the bound is below the exact worst case of every
    closed-form release there, and the block_bounds text names it."""
    from dpposterior.accuracy import expected_errors

    a, n, eps = np.ones(4), 6, 0.5
    plans = {"worst": ys.plan_corner(a, n, eps, 20.0, whole=True)}
    got = block_bounds(a, n, eps, plans)["worst"]
    for name in ("geometric", "lszhang", "lsdim", "ehd"):
        assert got[0] <= expected_errors(name, a, n, epsilon=eps).worst
    assert got[0] == pytest.approx(ys.corner_bound(a, n, eps, n).worst)


@pytest.mark.heavy
def test_the_whole_lp_at_n10_is_below_the_worst_release():
    """Dir(1,1,1,1), eps = 0.5, n = 10: the whole LP (0.64125) is below the corner remap's exact worst case (0.68824)
    and above the average's dual compare printed before (0.59935)."""
    from dpposterior.accuracy import expected_errors

    a, n, eps = np.ones(4), 10, 0.5
    bound = ys.corner_bound(a, n, eps, n).worst
    assert 0.5994 < bound < 0.6413
    assert bound <= expected_errors("lattice", a, n, epsilon=eps, objective="worst").worst


def test_the_whole_lp_is_solved_once_at_any_prior(monkeypatch):
    """At depth n every corner block is R(n): one solve, not one per class of equal prior weights."""
    calls = []
    solve = ys.block_bound

    def counted(*args, **kw):
        calls.append(args[3].shape)
        return solve(*args, **kw)

    monkeypatch.setattr(ys, "block_bound", counted)
    a = [0.5, 1.0, 1.0, 2.0]
    assert len(ys.corners(a)) == 3
    whole = ys.corner_bound(a, 3, 1.0, 3)
    assert len(calls) == 1 and whole.blocks == 1
    ys.corner_bound(a, 3, 1.0, 2)
    assert len(calls) == 4
