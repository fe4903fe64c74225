"""The flows under pi computed once for the average's flows then exact windows and the weighted worst case
(``lattice.yardstick``: ``windows_bound``'s ``keep``, ``weighted_bound``'s ``flow``, ``weighted_costs``' and
``plan_weighted``'s ``flows_at_hand``, ``window_flow_seconds``; ``yardstick.plan_blocks`` and ``block_bounds``): the
same floats as each computing its own, one ``flow_bound`` call where both run, a plan that drops exactly the flows'
part, and the weighted bound below the worst-case LP of ``tests/reference.py`` (no library code) whatever flows it
is handed."""

from __future__ import annotations

import json
import math
import pathlib
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import yardstick as ys
from dpposterior.yardstick import block_bounds, plan_blocks


def test_handed_flows_give_the_same_floats_as_computing_them():
    """``weighted_bound`` handed ``windows_bound``'s flows (same radius and steps) returns the same float as when it
    computes them itself; handed flows of another radius or step count it computes its own (the same float again)."""
    a, n, eps = np.ones(3), 5, 1.0
    kept: dict = {}
    ys.windows_bound(a, n, eps, 2, 10, 1, keep=kept)
    assert kept["flow"].radius == 2 and kept["flow"].steps == 10
    own = ys.weighted_bound(a, n, eps, 3, 2, 10, 3)
    assert ys.weighted_bound(a, n, eps, 3, 2, 10, 3, flow=kept["flow"]) == own
    other = ys.flow_bound(a, n, eps, radius=1, steps=10)
    assert ys.weighted_bound(a, n, eps, 3, 2, 10, 3, flow=other) == own
    fewer = ys.flow_bound(a, n, eps, radius=2, steps=3)
    assert ys.weighted_bound(a, n, eps, 3, 2, 10, 3, flow=fewer) == own


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([((1.0, 1.0, 1.0), 4), ((0.5, 2.0, 1.0), 4), ((1.0, 1.0, 1.0), 5)]),
       st.sampled_from([0.5, 1.0, 2.0]), st.integers(0, 2**31))
def test_any_handed_flows_keep_the_weighted_bound_below_the_worst_case_lp(setting, eps, seed):
    """The handed flows only choose the start: with their multipliers replaced by arbitrary non-negative numbers the
    weighted bound is still at most the LP oracle's worst-case optimum (weak duality), and it is not vacuous with
    the true flows."""
    a, n = setting
    a = np.asarray(a)
    worst = ref.optimal_lp_value(ref.brute(tuple(a), n), eps, "worst")
    flow = ys.flow_bound(a, n, eps, radius=2, steps=10)
    rng = np.random.default_rng(seed)
    wild = ys.FlowBound(average=0.0, mu=rng.uniform(0.0, 2.0, flow.mu.size), steps=flow.steps, radius=flow.radius)
    for handed in (flow, wild):
        assert ys.weighted_bound(a, n, eps, n - 2, 2, 10, 3, flow=handed) <= worst + 1e-9
    assert ys.weighted_bound(a, n, eps, n - 2, 2, 10, 3, flow=flow) >= 0.3 * worst


def test_block_bounds_computes_the_flows_once_and_the_same_bounds(monkeypatch):
    """Where the average's flows then exact windows and the weighted worst case both run (the same radius and flow
    steps), ``block_bounds`` calls ``flow_bound`` once and certifies what the two functions give on their own."""
    a, n, eps = np.ones(3), 5, 1.0
    fits = SimpleNamespace(fits=True)
    plans = {ys.WINDOWS_KEY: (fits, (2, 10, 2)), ys.WEIGHTED_KEY: (fits, (3, 2, 10, 3))}
    alone_average = ys.windows_bound(a, n, eps, 2, 10, 2)
    alone_worst = ys.weighted_bound(a, n, eps, 3, 2, 10, 3)
    calls = []
    flow_bound = ys.flow_bound
    monkeypatch.setattr(ys, "flow_bound", lambda *args, **kw: calls.append(kw) or flow_bound(*args, **kw))
    out = block_bounds(a, n, eps, plans)
    assert len(calls) == 1
    assert out["average"][0] == alone_average and out["worst"][0] == alone_worst
    worst = ref.optimal_lp_value(ref.brute((1.0, 1.0, 1.0), n), eps, "worst")
    assert out["worst"][0] <= worst + 1e-9


@pytest.mark.parametrize("n", [12, 15, 20, 25])
def test_the_shared_plan_drops_exactly_the_flows(n):
    """``weighted_costs(flows_at_hand=True)`` is its plan less :func:`window_flow_seconds` (the same evaluation
    cost, radius and memory), and ``window_costs``' fixed part is those flows plus the windows' set-up."""
    a = np.ones(4)
    m, radius, fixed, per, memory = ys.weighted_costs(a, n, 0.5)
    m2, radius2, shared, per2, memory2 = ys.weighted_costs(a, n, 0.5, flows_at_hand=True)
    flows = ys.window_flow_seconds(a, n)
    assert (m, radius, per, memory) == (m2, radius2, per2, memory2)
    assert flows > 0 and shared == pytest.approx(fixed - flows, rel=1e-12)
    _, f, _, _ = ys.window_costs(a, n)
    assert f > flows


def test_plan_blocks_shares_the_flows_only_where_the_windows_run(monkeypatch):
    """Dir(1,1,1,1), eps = 0.5: at n = 20 (the release's start capped, so the flows then exact windows run; the
    balls' LP over its bytes) the weighted plan is the shared one; at eps = 1, n = 20 (the release's start runs, no
    flows) it is the whole one."""
    # the plans beside which the sparse block is not planned (where it is: tests/library/test_yardstick_sparse.py;
    # at Dir(1,1,1,1), n = 20, eps = 0.5 it is now)
    monkeypatch.setattr(ys, "SPARSE_K", ())
    a = np.ones(4)
    out = plan_blocks(a, 20, 0.5, 46.8, start=True, floor=0.1, whole=True, weighted=True, deeper=True)
    assert out[ys.WINDOWS_KEY][0].fits
    plan, size = out[ys.WEIGHTED_KEY]
    m, radius, fixed, per, _ = ys.weighted_costs(a, 20, 0.5, flows_at_hand=True)
    assert plan.seconds == pytest.approx(fixed + per * size[3], rel=1e-12)
    out = plan_blocks(a, 20, 1.0, 61.5, start=True, floor=0.1, whole=True, weighted=True, deeper=True)
    assert ys.WINDOWS_KEY not in out
    plan, size = out[ys.WEIGHTED_KEY]
    m, radius, fixed, per, _ = ys.weighted_costs(a, 20, 1.0)
    assert plan.seconds == pytest.approx(fixed + per * size[3], rel=1e-12)


def test_the_shared_plan_is_above_the_recorded_runs():
    """The shared plan (the flows left to the windows' plan) at or above every recorded run's minimax LP and exact
    windows (``benchmarks/weighted_worst_k4.json``, CPU seconds in one process), and the flows' part above its
    flows."""
    runs = json.loads((pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "weighted_worst_k4.json").read_text())
    assert runs
    for run in runs:
        _, _, shared, per, _ = ys.weighted_costs(np.ones(4), run["n"], run["epsilon"], flows_at_hand=True)
        assert shared >= run["cpu_weights"]
        assert shared + per * run["evaluations"] >= run["cpu_weights"] + run["cpu_windows"]
        assert ys.window_flow_seconds(np.ones(4), run["n"]) >= run["cpu_flows"]
        assert math.isfinite(shared)
