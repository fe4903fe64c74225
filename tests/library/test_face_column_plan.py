"""The noise-aware column of the k = 4 face release (``worst``, eps = 1, n = 30 to 50) and of ``average`` there: plans
held to the runs recorded in ``benchmarks/noise_aware_k4_small_eps.json`` (``n30_face_route``) and
``benchmarks/face_shared_build.json`` (the own build's runs), and the admissions they change.

* the face table's build (:func:`~dpposterior.lattice.faces_any.plan_face_table`) is planned at or above each
  recorded build and within 2.5x of it;
* the column's searches (:func:`~dpposterior.mechanisms.lattice._parts_seconds` and ``_inside_seconds`` at the
  recorded counts) at or above each recorded run;
* the face release's column is two solves (the table's build, the same call a draw runs, and the column's searches),
  each held to the solve limit, so ``release --noise-aware --objective worst`` at n = 30 is admitted again, and the
  route planned is the route that runs.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from dpposterior.lattice.faces_any import plan_face_table
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORD = json.loads((ROOT / "benchmarks" / "noise_aware_k4_small_eps.json").read_text(encoding="utf-8"))[
    "n30_face_route"]
#: the release's own build timed beside the shared build (``own_build_cpu_s``, one process per n)
BUILDS = json.loads((ROOT / "benchmarks" / "face_shared_build.json").read_text(encoding="utf-8"))["builds"]
ONES = np.ones(4)


@pytest.fixture(autouse=True)
def _default_limits(monkeypatch):
    for name in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MEMORY_GB"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("n", [30, 40, 50])
def test_face_build_plan_holds_its_runs(n):
    runs = [v for key, v in RECORD["face_build_cpu_s"].items() if key.split("_")[0] == str(n)]
    runs += RECORD["pieces_cpu_s"]["face_build"] if n == 30 else []
    runs += [b["own_build_cpu_s"] for b in BUILDS if b["n"] == n and b["epsilon"] == 1.0]
    planned = plan_face_table(n, 4, 1.0).seconds
    assert runs and all(planned >= run for run in runs)
    assert planned <= 2.5 * min(runs)


def test_column_search_plan_holds_its_runs():
    rec = RECORD["average_column_n30_40_50"]
    for n, points, run in zip((30, 40, 50), rec["searched"], rec["search_cpu_s"], strict=True):
        # every searched point counted as a part (the inside ones are cheaper: an upper end)
        assert L._parts_seconds(points, n, 4, 1.0) >= run


def test_face_column_is_two_solves_and_admitted_at_n30():
    spec = ReleaseSpec.of("lattice", 1.0, objective="worst")
    assert L.LATTICE.uses_faces(30, 4, spec, ONES)
    plan = L.LATTICE.plan_posterior(ONES, 30, spec)
    assert plan.route == "local column"
    solves = [sec for name, sec in plan.costs if name == "DPPOSTERIOR_MAX_SOLVE_SECONDS"]
    assert len(solves) == 2 and solves[0] == pytest.approx(plan_face_table(30, 4, 1.0).seconds)
    assert plan.seconds >= sum(solves)
    assert plan.fits
    # optimal past its LP is this release, and its plan the same
    ospec = ReleaseSpec.of("optimal", 1.0, objective="worst")
    oplan = ospec.mechanism.plan_posterior(ONES, 30, ospec)
    assert oplan.route == "local column" and oplan.fits


def test_release_noise_aware_worst_at_n30_runs_its_plan():
    """``release --noise-aware --objective worst`` at k = 4, n = 30, eps = 1 (the face release): admitted at the
    default limits and run (refused on the tree before, the column planned at 92.9 s)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_MAX") and k != "DPPOSTERIOR_MEMORY_GB"}
    proc = subprocess.run([sys.executable, "-m", "dpposterior", "release", "--prior", "1,1,1,1", "--counts", "7,7,8,8",
                           "--mechanism", "optimal", "--objective", "worst", "--epsilon", "1", "--seed", "7",
                           "--noise-aware", "--json"], capture_output=True, text=True, cwd=ROOT,
                          env=env | {"OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-500:]
    out = json.loads(proc.stdout)
    assert out["noise_aware"]["route"] == "local column"
    assert sum(out["released_counts"]) == 30
    assert out["noise_aware"]["dropped_mass_bound"] < 1e-3
