"""The plan of the worst case from every data set's ball of outputs (lattice.yardstick.plan_ball) and where
``compare``'s yardstick takes it (dpposterior.yardstick.plan_blocks)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dpposterior.lattice import yardstick as ys
from dpposterior.yardstick import block_bounds, plan_blocks

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
RUNS = (BENCH / "yardstick_k4_restricted_h81yd.json", BENCH / "yardstick_k4_balls_idle.json")


def test_the_plan_is_above_every_recorded_run():
    runs = [r for path in RUNS for r in json.loads(path.read_text())["runs"]]
    assert len(runs) >= 13
    for r in runs:
        if r["inner"] != r["radius"] - 1:
            continue
        secs, memory = ys.ball_cost(np.ones(4), r["n"], r["radius"])
        assert secs >= r["cpu_seconds"], r
        assert memory >= r["peak_bytes"], r


def test_the_shape_counts_the_lp_s_variables():
    # ball_shape counts the pairs (c, r) within the radius by a formula; the LP lists them
    a = np.ones(4)
    for n, radius in ((5, 2), (7, 3), (6, 6)):
        cost, A_ub, A_eq, b_eq = ys._ball_lp(a, n, 0.5, radius, radius - 1, symmetric=False)
        count, order = ys.ball_shape(a, n, radius)
        far = A_eq.shape[1] - 1 - count
        assert order == 24 and 0 <= far <= A_eq.shape[0]
        assert A_eq.sum() == count + far


def test_plan_ball_refuses_where_it_was_not_measured():
    assert not ys.plan_ball(np.ones(3), 20, 0.5, 45.0)[0].fits
    assert not ys.plan_ball(np.ones(4), 20, 1.0, 45.0)[0].fits
    assert not ys.plan_ball(np.ones(4), 6, 0.5, 45.0)[0].fits
    plan, radius = ys.plan_ball(np.ones(4), 14, 0.5, 45.0)
    assert plan.fits and radius == 7 and plan.seconds <= 45.0
    assert ys.plan_ball(np.ones(4), 14, 0.5, 30.0)[1] == 6


def test_compare_takes_the_balls_in_the_weighted_dual_s_place_where_they_fit():
    """Dir(1,1,1,1), eps = 0.5, compare's share at n = 14 (93.6 s for both objectives): the balls' LP of radius 7
    in the weighted dual's place; at n = 12 the whole LP runs and neither is planned; at n = 20 the balls are over
    their bytes and the weighted dual stays."""
    a = np.ones(4)

    def plans(n, share):
        return plan_blocks(a, n, 0.5, share / 2, start=True, floor=0.1, whole=True, weighted=True, deeper=True)

    out = plans(14, 93.6)
    assert out[ys.BALL_KEY][0].fits and out[ys.BALL_KEY][1] == 7 and ys.WEIGHTED_KEY not in out
    assert sum(p.seconds for p, _ in out.values() if p.fits) <= 93.6
    out = plans(12, 129.2)
    assert ys.BALL_KEY not in out and ys.WEIGHTED_KEY not in out and out["worst"][1] == 12
    out = plans(20, 49.6)
    assert ys.BALL_KEY not in out and ys.WEIGHTED_KEY in out


def test_block_bounds_runs_the_planned_balls():
    a = np.ones(4)
    plan, radius = ys.plan_ball(a, 8, 0.5, 45.0)
    assert plan.fits and radius == 7
    got = block_bounds(a, 8, 0.5, {ys.BALL_KEY: (plan, 3)})
    assert got["worst"][0] == pytest.approx(ys.ball_bound(a, 8, 0.5, 3), abs=0)
    assert got["worst"][0] <= ys.corner_bound(a, 8, 0.5, 8).worst + 1e-9
    assert "3 substitutions" in got["worst"][1]
