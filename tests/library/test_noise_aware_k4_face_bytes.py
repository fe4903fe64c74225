"""The k = 4 cut route's plan counts the bytes of the releases next to a face, an edge or a vertex
(``lattice.cut_release_bytes``): above each recorded run's peak growth (``benchmarks/noise_aware_k4_face_bytes.json``,
``local_posterior`` alone at the release, each in its own process) and not far above it; with the term taken out, the
runs are over their plans (the centre's points alone: 0.5 to 1.8 MB planned)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNS = json.loads((ROOT / "benchmarks" / "noise_aware_k4_face_bytes.json").read_text(encoding="utf-8"))["runs"]
#: a plan at most this many times the run's peak growth
MOST_OVER = 3.0


def _cut(run) -> bool:
    """The releases whose centre takes the cut route (every count of the centre past ``3 Dc``)."""
    n, eps = sum(run["released"]), run["epsilon"]
    return n // 4 > 3 * L._radius(4, eps, 1e-12)


def _plan_bytes(monkeypatch, run) -> float:
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1e5")  # a refused cell still states its bytes
    spec = ReleaseSpec.of("optimal", run["epsilon"], objective="average")
    return spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), sum(run["released"])).memory_bytes


def test_the_recorded_runs_include_faces_and_edges_past_the_cut():
    cut = [r for r in RUNS if _cut(r)]
    assert len(cut) >= 6 and {r["epsilon"] for r in cut} == {2.0, 3.0}
    assert any(min(r["released"]) == 0 and sorted(r["released"])[1] <= 1 for r in cut)  # an edge


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"{r['epsilon']:g}-{','.join(map(str, r['released']))}")
def test_each_run_is_within_its_plans_bytes_and_not_far_below(monkeypatch, run):
    planned = _plan_bytes(monkeypatch, run)
    assert planned >= run["peak_growth_bytes"]
    if _cut(run):
        assert planned <= MOST_OVER * run["peak_growth_bytes"]


def test_without_the_term_the_runs_are_over_their_plans(monkeypatch):
    L._cut_release_most.cache_clear()
    monkeypatch.setattr(L, "cut_release_bytes", lambda parts: 0.0)
    over = [r for r in RUNS if _cut(r) and _plan_bytes(monkeypatch, r) < r["peak_growth_bytes"]]
    assert len(over) == sum(_cut(r) for r in RUNS)
