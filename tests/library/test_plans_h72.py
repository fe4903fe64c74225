"""Plans of the k = 3 worst case held to the runs recorded side by side in ``benchmarks/plans_h72.json``
(``benchmarks/plans_h72.py``: each cell's command in a process of its own, in the tree before and in this one, CPU s
of the whole process, the stages timed in it):

* the corner release's exact errors by orbits (``accuracy --objective worst``, route ``"corner remap, by orbits"``,
  eps 0.5 to 0.9, n = 500 to 1,000): the call within its plan (above every run, at most :data:`MOST_OVER` x each),
  and its local search by orbits (the stage the solve limit holds with the corner remap) within its term (:func:`~dpposterior.mechanisms.lattice.orbit_search_factor`);
* the corner release where its corners are apart at eps 0.9 to 0.99 (:data:`CORNER_APART_HIGH`, ``law=False``
  only): the padded release's plan above every run and at most :data:`MOST_OVER` x each;
* the routes and refusals of every recorded cell as in the tree before, and its output the same bit for bit.

Each refitted term moved back makes one of these fail."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORD = json.loads((ROOT / "benchmarks" / "plans_h72.json").read_text(encoding="utf-8"))
ROWS = RECORD["rows"]
#: a plan at most this many times a run's CPU seconds (the recorded runs of a cell differ by at most 1.08x)
MOST_OVER = 2.0
ORBITS = [r for r in ROWS if r["kind"] == "acc" and r["plan_new"]["route"] == "corner remap, by orbits"]
RELEASES = [r for r in ROWS if r["kind"] == "release"]


def _runs(row: dict) -> list[dict]:
    return [row[t] for t in ("old", "new") if t in row and row[t]["rc"] == 0]


def _errors_plan(n: int, eps: float):
    spec = ReleaseSpec.of("lattice", eps, objective="worst")
    return spec.mechanism.plan(Task.ERRORS, spec, np.ones(3), n)


def _draw_plan(n: int, eps: float):
    spec = ReleaseSpec.of("optimal", eps, objective="worst")
    return spec.mechanism.plan(Task.DRAW, spec, np.ones(3), n)


def _outside(cell: str, planned: float, runs: list[float], most: float = MOST_OVER) -> list[str]:
    """Why ``planned`` is not within [the slowest run, ``most`` x the fastest] (empty where it is)."""
    out = []
    if planned < max(runs):
        out.append(f"{cell}: {planned:.2f} s planned < {max(runs):.2f} run")
    if planned > most * min(runs):
        out.append(f"{cell}: {planned:.2f} s planned > {most} x {min(runs):.2f} run")
    return out


def _searched(run: dict) -> float:
    """CPU s of the run's local search by orbits: shared with the average's errors (``_window_outputs``, below eps
    0.75) or its own (``corner_local_outputs``)."""
    return sum(s for stage, s in run["stages"] if stage in ("_window_outputs", "corner_local_outputs"))


def _search_planned(n: int, eps: float) -> float:
    """The errors' plan of its search by orbits: the solve's cost less the corner remap's."""
    return dict(_errors_plan(n, eps).costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"] - L.corner_seconds(n, 3, eps, True)


def _orbit_misses() -> list[str]:
    out = []
    for r in ORBITS:
        runs = _runs(r)
        out += _outside(r["cell"], _errors_plan(r["n"], r["eps"]).seconds, [x["cpu_s"] for x in runs])
        searched = max(_searched(x) for x in runs)
        if _search_planned(r["n"], r["eps"]) < searched:
            out.append(f"{r['cell']}: search {_search_planned(r['n'], r['eps']):.2f} s planned < {searched:.2f} run")
    return out


def test_the_recorded_cells_span_the_route_by_orbits():
    cells = {(r["eps"], r["n"]) for r in ORBITS}
    assert {(0.5, 500), (0.5, 700), (0.5, 1000), (0.9, 1000)} <= cells
    assert all(L.orbit_route(n, 3, e, True) for e, n in cells)
    assert all(r["same_output"] for r in ORBITS)


def test_every_recorded_call_by_orbits_and_its_search_are_within_their_plan():
    assert _orbit_misses() == []


@pytest.mark.parametrize("factor", [(1.0, 0.6), (1.3, 1.0), (1.3, 0.4)])
def test_the_search_factor_moved_makes_a_recorded_call_miss(monkeypatch, factor):
    """(1, .): the plan before below eps 0.75 (6.5 s of search planned at eps 0.5, n = 500 against 7.7 s run);
    (., 1): the plan before from it (27.8 s planned at eps 0.9, n = 1,000 against 11.7 s run: over 2x); (., 0.4):
    eps 0.75, n = 1,000 under its search (6.9 s planned < 8.1 run)."""
    monkeypatch.setattr(L, "ORBIT_SEARCH_FACTOR", factor)
    assert _orbit_misses()


def test_the_routes_and_refusals_of_the_recorded_cells_did_not_move():
    for r in ROWS:
        if r["kind"] == "cmp":
            continue
        assert r["plan_new"]["route"] == r["plan_old"]["route"], r["cell"]
        assert bool(r["plan_new"]["refusal"]) == bool(r["plan_old"]["refusal"]), r["cell"]
        assert r["same_output"], r["cell"]


def test_the_search_factor_is_read_on_the_route_by_orbits_only(monkeypatch):
    """The plans of the route without orbits (n < ORBIT_MIN_N, or eps 1) and of the release do not read it."""
    grid = [(n, e) for e in (0.5, 0.6, 0.75, 0.9, 1.0) for n in (100, 300, 399, 400, 1000)]
    before = [(_errors_plan(n, e).seconds, _draw_plan(n, e).seconds) for n, e in grid]
    monkeypatch.setattr(L, "ORBIT_SEARCH_FACTOR", (9.0, 9.0))
    after = [(_errors_plan(n, e).seconds, _draw_plan(n, e).seconds) for n, e in grid]
    moved = [a[0] != b[0] for a, b in zip(after, before)]
    assert moved == [L.orbit_route(n, 3, e, True) for n, e in grid]
    assert [a[1] for a in after] == [b[1] for b in before]


# The corner release where its corners are apart, eps 0.9 to 0.99 (CORNER_APART_HIGH)
def _release_misses() -> list[str]:
    out = []
    for r in RELEASES:
        out += _outside(r["cell"], _draw_plan(r["n"], r["eps"]).seconds, [x["cpu_s"] for x in _runs(r)])
    return out


def test_the_recorded_releases_span_eps_09_to_1():
    cells = {(r["eps"], r["n"]) for r in RELEASES}
    assert {(e, n) for e in (0.9, 0.95, 0.99, 1.0) for n in (300, 1000)} <= cells
    assert all(not L._corners_joint(n, 3, e) for e, n in cells)


def test_every_recorded_release_is_within_its_plan_and_not_far_below_it():
    assert _release_misses() == []


@pytest.mark.parametrize("value", [6.5, 0.0])
def test_the_high_floor_moved_makes_a_recorded_release_miss(monkeypatch, value):
    """6.5 (the floor below eps 0.9, as before): 8.0 s planned against 3.0 s run at eps 0.99 (over 2x); 0: the
    floor taken out, eps 0.95 under its run (3.2 s planned < 3.3)."""
    monkeypatch.setattr(L, "CORNER_APART_HIGH", (0.9, value))
    assert _release_misses()


def test_the_high_floor_is_read_from_eps_09_below_1_only(monkeypatch):
    """The floor's value at each eps (public), and the law (``corners_fit``, ``law=True``) unmoved by it."""
    assert L.corner_apart_floor(0.89) == L.CORNER_APART_SECONDS
    assert L.corner_apart_floor(0.9) == L.corner_apart_floor(0.99) == L.CORNER_APART_HIGH[1]
    grid = [(n, e) for e in (0.6, 0.75, 0.85, 0.9, 0.95, 0.99, 1.0, 2.0) for n in (50, 100, 300, 1000)]
    law = [(L.corners_fit(n, 3, e), L.corner_seconds(n, 3, e, True, law=True)) for n, e in grid]
    plans = [L.corner_seconds(n, 3, e, True) for n, e in grid]
    monkeypatch.setattr(L, "CORNER_APART_HIGH", (0.9, 1e6))
    assert [(L.corners_fit(n, 3, e), L.corner_seconds(n, 3, e, True, law=True)) for n, e in grid] == law
    moved = [x != y for x, y in zip([L.corner_seconds(n, 3, e, True) for n, e in grid], plans)]
    assert moved == [0.9 <= e < 1.0 and not L._corners_joint(n, 3, e) for n, e in grid]
