"""The k = 4 corner remap's plans against what ran (benchmarks/corner_plans_k4.json: Dir(1,1,1,1), eps 0.5, 1, 2,
n = 5, 10, 20, the solve and the worst route's errors, each in its own process): today's plan of each call is at
least its recorded CPU seconds (calls of a second or more: below it a process's own start-up dominates) and its
recorded peak growth over the interpreter; and each of the plan's factors measured there is needed (taken out, some
recorded run is over its plan)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dpposterior.lattice import corners_any
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as mlattice

ROWS = json.loads((pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "corner_plans_k4.json")
                  .read_text(encoding="utf-8"))["rows"]


def _planned(row) -> tuple[float, float]:
    n, eps = row["n"], row["eps"]
    if row["what"] == "solve":
        return mlattice.corner_seconds(n, 4, eps, True), mlattice.corner_bytes(n, 4, eps, True)
    spec = ReleaseSpec.of("lattice", eps, objective="worst")
    plan = spec.mechanism.plan(Task.ERRORS, spec, np.ones(4), n)
    assert plan.route == row["route"]
    return plan.seconds, plan.memory_bytes


def _under(rows=ROWS) -> list[str]:
    """The recorded calls whose plan today is below what they ran."""
    mlattice.corner_plan_sizes.cache_clear()
    out = []
    for row in rows:
        seconds, memory = _planned(row)
        if row["cpu_s"] >= 1.0 and seconds < row["cpu_s"]:
            out.append(f"{row['what']} n={row['n']} eps={row['eps']}: {seconds:.1f} s planned, {row['cpu_s']} run")
        if memory < row["growth_bytes"]:
            out.append(f"{row['what']} n={row['n']} eps={row['eps']}: {memory / 2**20:.0f} MiB planned, "
                       f"{row['growth_bytes'] / 2**20:.0f} run")
    mlattice.corner_plan_sizes.cache_clear()
    return out


def test_the_grid_is_recorded_whole():
    assert {(r["what"], r["n"], r["eps"]) for r in ROWS} == {(w, n, e) for w in ("solve", "errors")
                                                            for n in (5, 10, 20) for e in (0.5, 1.0, 2.0)}
    assert all("error" not in r for r in ROWS)


def test_every_corner_plan_is_at_least_what_ran():
    assert _under() == []


@pytest.mark.parametrize("name,value", [("CORNER_ANY_SMALL_EPS", (1.0, 1.0)), ("CORNER_ORBIT_SECONDS", (0.5, 0.0)),
                                        ("CORNER_ORBIT_BYTES", 0.0)])
def test_each_factor_of_the_plans_is_needed(monkeypatch, name, value):
    """Each measured factor, taken out, leaves some recorded run over its plan."""
    monkeypatch.setattr(mlattice, name, value)
    assert _under()


def test_the_edge_lps_bytes_are_needed(monkeypatch):
    """The joint LP's bytes per (data set x edge variable) at 130 (before): eps = 1, n = 10 ran over its plan."""
    monkeypatch.setattr(corners_any, "EDGE_LP_BYTES", 130.0)
    assert any("n=10 eps=1.0" in u and "MiB" in u for u in _under())
