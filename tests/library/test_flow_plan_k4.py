"""The dual flows' plan at k = 4 (``lattice.yardstick.flow_costs``, read by ``plan_flow``) at or above every run
recorded in ``benchmarks/flow_k4.json`` (CPU seconds of ``flow_bound`` alone at Dir(1,1,1,1)) and in
``benchmarks/windows_first_k4.json`` (its flows, ``WEIGHTED_FLOW_STEPS`` steps), and not far above them; k = 3 as
fitted before."""

from __future__ import annotations

import json
import pathlib

import pytest

from dpposterior.lattice import yardstick as ys

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: (n, eps, radius, steps, CPU s)
RUNS = [(r["n"], r["epsilon"], r["radius"], r["steps"], r["cpu"])
        for r in json.loads((ROOT / "benchmarks" / "flow_k4.json").read_text(encoding="utf-8"))]
RUNS += [(r["n"], r["epsilon"], r["radius"], ys.WEIGHTED_FLOW_STEPS, r["cpu_flows"])
         for r in json.loads((ROOT / "benchmarks" / "windows_first_k4.json").read_text(encoding="utf-8"))]
#: a plan at most this many times its run (a run of a second or more)
MOST_OVER = 2.5


def _planned(n, radius, steps):
    setup, per = ys.flow_costs(n, 4, radius)
    return setup + per * steps


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"n{r[0]}-eps{r[1]}-r{r[2]}-s{r[3]}")
def test_the_flows_plan_holds_each_run(run):
    n, _, radius, steps, cpu = run
    planned = _planned(n, radius, steps)
    assert planned >= cpu
    assert cpu < 1.0 or planned <= MOST_OVER * cpu


def test_the_runs_cover_both_parts():
    """One step (mostly the set-up) and many steps, at three n."""
    assert {r[3] for r in RUNS} >= {1, 14, 19, 20} and len({r[0] for r in RUNS}) >= 5


def test_plan_flow_reads_it_and_k3_is_unchanged():
    """``plan_flow``'s chosen flows cost what ``flow_costs`` gives; at k = 3 the factors are 1."""
    import numpy as np

    plan, (radius, steps, _, polish) = ys.plan_flow(np.ones(4), 50, 1.0, 19.8)
    setup, per = ys.flow_costs(50, 4, radius)
    assert polish == 0 and plan.seconds == pytest.approx(setup + per * steps)
    N, offsets = ys.flow_shape(50, 3, 6)
    assert ys.flow_costs(50, 3, 6)[1] == pytest.approx(
        (ys.FLOW_SECONDS_PER_ENTRY * N * offsets + ys.FLOW_SECONDS_PER_OFFSET * offsets) * ys.flow_scale(N))
