"""The k = 4 noise-aware plan (``release --noise-aware``, optimal, Dir(1,1,1,1)) against the runs measured at releases
next to a face, an edge or a vertex (benchmarks/noise_aware_k4_faces_h80f4.json, CPU s of the whole process): where
the plan admits, its seconds must be at least the measured run.  At average, eps 2 the plan was 8x to 10x under the
face releases' runs (the centre's cost only); it now takes the most over releases next to a face, an edge and a vertex
(``cut_release_family``), so it is at least them too.  No timing here: the runs' seconds are read from the JSON."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "noise_aware_k4_faces_h80f4.json"


def _runs() -> list[dict]:
    return [r for r in json.loads(BENCH.read_text())["runs"] if r["rc"] == 0 and not r.get("timed_out")]


def _measured(counts: str, eps: float, objective: str) -> dict:
    (run,) = [r for r in _runs() if r["counts"] == counts and r["epsilon"] == eps and r["objective"] == objective
              and not r["raised"]]
    return run


def _plan_seconds(n: int, eps: float, objective: str) -> float:
    spec = ReleaseSpec.of("optimal", eps, objective=objective)
    return float(spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), n).seconds)


# (counts, eps, objective): runs whose release has a count 0 or 1 (face, edge, vertex) or the centre, where the
# current plan is at least the run
COVERED = [("30,40,30,0", 1.0, "worst"), ("30,40,30,0", 2.0, "worst"), ("25,25,25,25", 1.0, "worst"),
           ("80,120,100,0", 1.0, "worst"), ("108,500,392,0", 2.0, "worst"), ("108,5000,4892,0", 2.0, "worst"),
           ("1500,1500,0,0", 2.0, "worst"), ("2997,1,1,1", 2.0, "worst")]

# where the plan was under the measured run (the centre's cost only): the average objective's face release at eps 2,
# n = 3,000 (plan 6.1 s, the run 57.6 CPU s, admitted and past the 45 s limit) and n = 1,000 (plan 5.1 s, the run
# 43.5 CPU s); the family's face release now holds the plan above them.  Those runs are of that tree; this tree runs
# the same cells in 30.2 s (limit raised; refused up front) and 20.1 s (admitted):
# benchmarks/corner_family_k4_runs.json, which the plan is held against here
UNDER = [("1000,1000,1000,0", 2.0, "average"), ("108,500,392,0", 2.0, "average")]
FAMILY_RUNS = BENCH.parent / "corner_family_k4_runs.json"


def _this_trees_run(counts: str, eps: float, objective: str) -> dict:
    runs = [r for r in json.loads(FAMILY_RUNS.read_text())["runs"] if r["tree"] == "new" and r["rc"] == 0
            and r["counts"] == counts and r["epsilon"] == eps and r["objective"] == objective]
    assert len(runs) == 1
    return runs[0]


def test_measured_releases_are_next_to_a_face_or_at_the_centre():
    for counts, eps, objective in COVERED + UNDER:
        released = np.asarray(_measured(counts, eps, objective)["released"])
        assert released.sum() == sum(int(c) for c in counts.split(","))
        assert released.min() <= 1 or released.max() - released.min() <= 2


@pytest.mark.parametrize("counts, eps, objective", COVERED)
def test_plan_at_least_the_measured_run(counts, eps, objective):
    run = _measured(counts, eps, objective)
    n = sum(int(c) for c in counts.split(","))
    assert _plan_seconds(n, eps, objective) >= run["cpu_seconds"]


@pytest.mark.parametrize("counts, eps, objective", UNDER)
def test_plan_at_least_the_average_face_run(counts, eps, objective):
    run = _this_trees_run(counts, eps, objective)
    n = sum(int(c) for c in counts.split(","))
    assert _plan_seconds(n, eps, objective) >= run["cpu_seconds"]
