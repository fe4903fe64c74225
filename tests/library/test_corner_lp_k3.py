"""The k = 3 three-corner LP by the dual simplex (:func:`dpposterior.lattice.corners.corner_lp_method`,
:func:`~dpposterior.lattice.corners.joint_simplex`) and its plan (:data:`~dpposterior.mechanisms.lattice.
CORNER_SIMPLEX_SECONDS`), held to the runs of ``benchmarks/corner_lp_k3.json`` (``benchmarks/corner_lp_k3.py``: the
tree before and this tree side by side).

* The rule is the definition: the three-corner LP (k = 3, eps < 1, corners not apart) with more constraints than free
  rows, counted on the sets the solve builds.
* Recorded runs (the tree before by the interior point, this tree by the dual simplex where the rule holds): the
  LP's ``t`` and the release's exact worst case equal to the tree before's within the LP's tolerance at every cell,
  every recorded lower bound below them, and this tree's plan above each run (CPU s and peak bytes) and at most
  :data:`MOST_OVER` x it."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dpposterior.lattice import corners
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L

ROOT = pathlib.Path(__file__).resolve().parents[2]
_RECORD = ROOT / "benchmarks" / "corner_lp_k3.json"
ROWS = json.loads(_RECORD.read_text(encoding="utf-8"))["rows"] if _RECORD.exists() else []
#: a plan at most this many times its run's CPU s
MOST_OVER = 2.0
#: the interpreter with numpy, scipy and the library imported
BASE_MB = 120.0
#: the LP's tolerance on a worst case (its feasibility tolerances 1e-10, the tie-break's weight 1e-4 on the average)
WORST_TOL = 1e-6


@pytest.mark.parametrize("n,eps,depth", [(30, 0.5, 14), (40, 0.5, 14), (50, 0.5, 14), (100, 0.5, 14),
                                         (50, 0.6, 14), (50, 0.75, 14), (50, 0.9, 14), (28, 0.75, 1),
                                         (20, 0.5, 14), (200, 0.5, 14), (50, 1.0, 10)])
def test_the_rule_is_more_constraints_than_free_rows_of_the_three_corner_lp(n, eps, depth):
    n0 = min(n, corners.reference_n(eps, depth))
    _, _, _, Fz, A, _, _, _ = corners._regions(3, n0, eps, depth)
    joint = eps < 1.0 and not corners.corners_apart(n0, 3, eps, depth)
    assert corners.joint_simplex(3, n0, eps, depth) == (joint and len(A) > len(Fz))
    assert corners.corner_lp_method(3, n0, eps, depth, 10**7, 10**4)[0] == (
        "highs-ds" if joint and len(A) > len(Fz) else "highs-ipm")


def test_the_recorded_cells_are_the_ones_measured():
    cells = {r["cell"] for r in ROWS}
    assert {"0.5:30", "0.5:40", "0.5:50", "0.5:70", "0.5:100", "0.5:150", "0.6:50", "0.75:50"} <= cells


def test_the_worst_case_is_the_tree_befores_and_above_its_lower_bound():
    """At every recorded cell (the tree before with its limit raised): the release's exact worst case within the LP's
    tolerance of the tree before's, the LP's t likewise, and every recorded lower bound below both worst cases."""
    for row in ROWS:
        old, new = row["old"], row.get("new_raised", row["new"])
        assert old["rc"] == 0 and new["rc"] == 0, row["cell"]
        assert abs(new["worst"] - old["worst"]) <= WORST_TOL, row["cell"]
        assert abs(new["lp_t"] - old["lp_t"]) <= WORST_TOL, row["cell"]
        for run in (old, new):
            if "lower" in run:
                assert run["lower"] <= min(old["worst"], new["worst"]), row["cell"]


def _misses(monkeypatch) -> list[str]:
    """The recorded runs of this tree whose plan (now) is below the run, or far above it."""
    for name in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MAX_MEMORY_GB"):
        monkeypatch.setenv(name, "1e5" if "SECONDS" in name else "8")
    out = []
    for row in ROWS:
        run, n, eps = row.get("new_raised", row["new"]), row["n"], row["eps"]
        plan = L.LATTICE.plan_draw(np.ones(3), n, ReleaseSpec.of("lattice", eps, objective="worst"))
        if plan.seconds < run["cpu_s"] or plan.seconds > MOST_OVER * run["cpu_s"]:
            out.append(f"{row['cell']}: {plan.seconds:.1f} s planned against {run['cpu_s']} run")
        if plan.memory_bytes < (run["peak_mb"] - BASE_MB) * 2**20:
            out.append(f"{row['cell']}: {plan.memory_bytes / 2**20:.0f} MiB planned < {run['peak_mb']} MB peak")
        solve = L.corner_seconds(n, 3, eps, True)
        if solve < run["solve_s"]:
            out.append(f"{row['cell']}: solve {solve:.1f} s planned against {run['solve_s']} run")
    return out


def test_every_recorded_run_is_within_its_plan_and_not_far_below_it(monkeypatch):
    assert _misses(monkeypatch) == []


@pytest.mark.parametrize("factor", [
    ("CORNER_SIMPLEX_SECONDS", (0.0, 2.0e-6, 1.0)),  # the dual simplex's constant left out
    ("CORNER_SIMPLEX_SECONDS", (11.0, 1.0e-6, 1.0)),  # at half the price
    ("CORNER_JOINT_SECONDS", (4e-9, 1326)),          # the interior point's rate lower: n = 40 under its run
])
def test_each_term_set_lower_makes_a_recorded_run_miss(monkeypatch, factor):
    name, value = factor
    monkeypatch.setattr(L, name, value)
    assert _misses(monkeypatch), name


def test_the_dual_simplex_plan_is_read_where_the_solve_reads_it(monkeypatch):
    """The plan's rule is the solve's (:func:`~dpposterior.lattice.corners.joint_simplex`): planned as the interior
    point, the recorded dual-simplex cells are far over their runs."""
    monkeypatch.setattr(L, "_corners_simplex", lambda n, k, eps: False)
    assert any("planned against" in m for m in _misses(monkeypatch))


def test_the_releases_law_is_unchanged():
    """Which remap a ``worst`` release reads (:func:`corners_fit`) and the plan it is decided by are the tree
    before's at every recorded cell."""
    for row in ROWS:
        n, eps = row["n"], row["eps"]
        assert L.corners_fit(n, 3, eps) == row["plan_old"]["corners_fit"], row["cell"]


@pytest.mark.parametrize("n", [50, 100, 160])
def test_the_cells_the_dual_simplex_opens_fit_the_default_limits(monkeypatch, n):
    """k = 3, worst, eps 0.5, n = 50 to 160: the padded release's plan within the default solve limit (refused before,
    ~98 s planned, 50 to 86 s run)."""
    for name in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MAX_MEMORY_GB"):
        monkeypatch.delenv(name, raising=False)
    plan = L.LATTICE.plan_draw(np.ones(3), n, ReleaseSpec.of("lattice", 0.5, objective="worst"))
    assert not plan.refused() and plan.seconds <= 45.0
