"""The k = 4 noise-aware plan (optimal, average, Dir(1,1,1,1)) where the centre's counts are within ``(k - 1) Dc``
(the region route searched by orbits) and the centre's region reaches off R(n): it takes the most over the releases
next to a face, an edge and a vertex (``cut_release_family``), each costed by the rule its run's check reads
(``cut_release_cost``, at its distinct positive parts).  The runs'
seconds are read from the committed benchmarks (no timing here): ``noise_aware_k4_region_family_s82.json`` and
``noise_aware_k4_below_cut_s81.json`` (``posterior --released``, whole-process CPU s)."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"


def _plan(n: int, eps: float, objective: str = "average"):
    spec = ReleaseSpec.of("optimal", eps, objective=objective)
    return spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), n)


def _check(r: dict) -> float:
    """The run's check at a recorded release, by the rule now (``column_orbit_seconds`` at the parts, orbits and parts
    with a count at most 1 it counted, where every clamp group's shifts are exact at that rule's price: these runs
    came before the clamp groups and record no clamped parts; the seconds recorded in the JSON are of the tree that ran
    them)."""
    from dpposterior.mechanisms.lattice import column_orbit_seconds, exact_shifts

    c = r["checks"][0]
    return column_orbit_seconds(c["points"], c["orbits"], sum(r["released"]), 4, r["epsilon"], c["faces"],
                                exact=exact_shifts(np.ones(4), r["epsilon"]))


def _older_code(eps: float) -> bool:
    """Whether a recorded run's cell is priced by the fit to this code's runs (``column_exact_fit``: Dir(1,1,1,1), eps
    0.75 to 1.5).  These runs are of the code before the clamp groups, on a slow host (the centre's searches at eps 1,
    n = 50 in 30.5 CPU s; this code's at n = 60 in 8.9): there they are not what runs, and this code's runs are held by
    tests/library/test_column_parts_k4.py; elsewhere the price is as before and they are held here."""
    from dpposterior.mechanisms.lattice import column_exact_fit

    return column_exact_fit(eps, True)


def _runs() -> list[dict]:
    """The finished runs (no wall-clock timeout) of both benchmarks: epsilon, n, released, whole-process CPU s."""
    out = [dict(epsilon=r["epsilon"], n=r["n"], released=r["released"], cpu=r["cpu_s"])
           for r in json.loads((BENCH / "noise_aware_k4_region_family_s82.json").read_text())["rows"]]
    for r in json.loads((BENCH / "noise_aware_k4_below_cut_s81.json").read_text())["rows"]:
        raised = r.get("raised")
        if raised and "stopped" not in raised.get("note", ""):
            out.append(dict(epsilon=r["epsilon"], n=r["n"], released=r["released"], cpu=raised["user"] + raised["sys"]))
    return out


#: A whole-process run against its plan: within this factor of the plan's seconds plus the interpreter's start (the
#: runs are ``posterior --released``, whole process; the plan counts the column's work only).  The family is priced
#: at the run's own check (``column_orbit_seconds`` at its distinct parts), fitted at the centre; next to a face or an
#: edge the searches run 1.4x to 1.7x that check on a slow host (``benchmarks/orbit_check_k4.json``), so a run there may
#: pass its plan by up to this much.
RUN_OVER_PLAN, INTERPRETER_SECONDS = 1.1, 2.5


def test_every_measured_run_is_within_the_plan():
    """Every finished run (face, edge, vertex releases; eps 1 to 2, n = 30 to 300) is within the plan's seconds by
    :data:`RUN_OVER_PLAN` plus the interpreter (the old plan at the centre was 1.7 to 12 s against runs of 14 to 289 s;
    at eps 1, n = 51 the runs are 35.3 to 42.8 s against 38.2 planned), now that the family is taken wherever the
    centre's region reaches off R(n), each release at its distinct parts.  The runs at eps 0.75 to 1.5 are of the code
    before the clamp groups (:func:`_older_code`); the seven others (eps 2) are held here."""
    checked = 0
    for r in _runs():
        if _older_code(r["epsilon"]):
            continue
        plan = _plan(r["n"], r["epsilon"])
        assert r["cpu"] <= RUN_OVER_PLAN * plan.seconds + INTERPRETER_SECONDS, (r, plan.seconds)
        checked += 1
    assert checked >= 7


def test_the_family_is_taken_where_the_centre_is_next_to_a_face_too():
    """The plan's part held to the limit is at least the family's most at eps 2, n = 219 (the centre alone 1.3 s) and
    at eps 1, n = 51, where the centre keeps 9 % of its region off R(n) (once left to the centre's own plan, whose
    release next to a vertex was then refused after the draw from about n = 58)."""
    from dpposterior.mechanisms.lattice import LatticeMechanism, _cut_release_most, _radius

    def most(n, eps):
        Dc = _radius(4, eps, 1e-12)
        return _cut_release_most((1.0,) * 4, n, eps, Dc, LatticeMechanism.column_radius(None, n, 4, eps))[0]

    for n, eps in ((219, 2.0), (51, 1.0)):
        plan = _plan(n, eps)
        assert max(float(v) for _, v in plan.costs) >= most(n, eps) > 10.0
        assert not plan.refused()


@pytest.mark.parametrize("n, eps", [(80, 1.0), (100, 1.0), (300, 1.0), (69, 1.0), (291, 1.5), (100, 0.75)])
def test_cells_whose_face_releases_run_over_the_limit_are_refused_up_front_in_one_line(n, eps):
    """Before: admitted at the centre's cost, a face release drawn and its posterior refused by the run's own check
    (3 to 23 CPU s and, at eps 1, n = 300, 3.1 GB first)."""
    plan = _plan(n, eps)
    refusal = plan.refused()
    assert refusal and "\n" not in refusal and "local column" in refusal


def test_the_plan_holds_the_runs_checks_next_to_a_face_an_edge_and_a_vertex():
    """At each release of ``benchmarks/orbit_check_k4.json`` (eps 1 and 1.25, n = 42 to 66: the centre, a face, an
    edge, vertices) the plan's part held to the limit is at least what the run's own check priced there, so a cell
    admitted up front is not refused after the draw at them.  At eps 1, n = 66 the vertex release's check (66.3 s by
    the rule then; 37.0 s by the fit now, ``COLUMN_EXACT_SECONDS``) was over the default limit and the cell refused up
    front (the centre's plan alone was 21.3 s); it is admitted now (43.0 s planned, the column's rest at its rate), and
    n = 69 is refused."""
    runs = json.loads((BENCH / "orbit_check_k4.json").read_text())["runs"]
    for r in runs:
        plan = _plan(sum(r["released"]), r["epsilon"])
        limited = max(float(v) for _, v in plan.costs)
        assert limited >= _check(r), (r["released"], limited)
    assert _plan(69, 1.0).refused() and not _plan(66, 1.0).refused()


#: A release's column (CPU s) against its plan at the last admitted cells, on a slow host: this host ran the centre's
#: searches at eps 1, n = 50 in 30.5 CPU s, where ``COLUMN_ORBIT_SECONDS`` was fitted at 16.1.  Next to a face or an
#: edge the searches there ran 1.5x to 1.7x the check's price a part, so the column passed the plan by up to 1.27x
#: (eps 1, n = 54, (5, 5, 22, 22): 55.3 against 43.6; eps 2, n = 379, (37, 151, 190, 1): 52.5 against 42.4).  Priced
#: by orbits and parts (fitted on a host 2.5x to 3.3x faster than this one) by up to 1.30x: eps 2.5, n = 1,400,
#: (140, 560, 699, 1), 50.0 against 38.4 (44.7 before; its searches are 0.58x the price on the fit's host).
SLOW_HOST_OVER_PLAN = 1.35


def _held(name: str) -> int:
    """At each run of ``name`` with a region searched: the plan's part held to the limit at least its check, and where
    the cell is admitted the column's CPU s within :data:`SLOW_HOST_OVER_PLAN` of the plan; the cells admitted."""
    admitted = 0
    for r in json.loads((BENCH / name).read_text())["runs"]:
        if not r["checks"]:  # past the cut (no region searched)
            continue
        plan = _plan(sum(r["released"]), r["epsilon"])
        assert max(float(v) for _, v in plan.costs) >= _check(r), r["released"]
        if not plan.refused():
            if not _older_code(r["epsilon"]):
                assert r["cpu_seconds"] <= SLOW_HOST_OVER_PLAN * plan.seconds, (r["released"], plan.seconds)
            admitted += 1
    return admitted


def test_the_last_admitted_cells_hold_their_releases_checks(evaluated_loss_rows):
    """At the last n admitted when they were recorded (eps 1, n = 54; 1.25, 65; 1.5, 118; 2, 379), at eps 2.5, n = 1,400,
    and at eps 2, n = 300 and eps 2.75, n = 5,000, releases next to an edge, a vertex and a face
    (``benchmarks/orbit_check_k4_edges.json``): each plan's part held to the limit at least the run's check, so where
    the cell is admitted none is refused after the draw, and there the column's CPU s within
    :data:`SLOW_HOST_OVER_PLAN` of the plan.  Priced by orbits and parts (``column_orbit_seconds``) the last admitted n
    were eps 1, n = 52; 1.25, 67; 1.5, 127 (and 129); the next n refused.  At eps 1 the searches by clamp groups
    (priced so where every shift is exact) admitted n = 53 and 54.  With the reach region priced by the route it
    builds (``reach_build_seconds``: the window past ``Dc`` costs more than its old price) the last admitted were eps
    1, n = 52; 1.25, 66; 1.5, 123; with the searches priced by their fit from eps 0.75 (``COLUMN_EXACT_SECONDS``) they
    are eps 1, n = 60; 1.25, 90; 1.5, 174; with the column's rest at its rate to eps 1 (``orbit_rest_seconds``),
    eps 1, n = 68.  These runs evaluated their loss rows past n = 511
    (before the band tables), so they are held against the plans of that route (the band tables' runs:
    tests/library/test_band_tables_k4.py)."""
    assert _held("orbit_check_k4_edges.json") >= 5
    assert not _plan(68, 1.0).refused() and _plan(69, 1.0).refused()
    assert not _plan(90, 1.25).refused() and _plan(91, 1.25).refused()
    assert not _plan(174, 1.5).refused() and _plan(175, 1.5).refused()


def test_releases_with_four_different_counts_are_held_as_the_familys_are(evaluated_loss_rows):
    """One release at a time on an idle host (``benchmarks/orbit_check_k4_clean.json``): the seventeen releases of the
    two files above again, and releases with four different counts at eps 1, n = 50 ((4, 9, 14, 23), (2, 7, 17, 24),
    (1, 5, 14, 30), (8, 11, 14, 17)) and n = 54 ((5, 9, 17, 23)), which no release of the family is.  Their kept
    parts still fall into orbits 4.3x to 7x, so their searches ran 33.8 to 42.1 CPU s, as the family's next to an
    edge (37.6 s) and at the centre (34.7 s) did.  At each cell the plan's part held to the limit is at least the run's
    check, and at each admitted cell the column within :data:`SLOW_HOST_OVER_PLAN` of the plan (as the route they ran:
    past n = 511 their loss rows were evaluated)."""
    assert _held("orbit_check_k4_clean.json") >= 17
