"""The k = 4 class route's one-point searches planned by what they cost (mechanisms/lattice.py:
``class_search_seconds``, ``CLASS_SEARCH_SECONDS``; read by ``group_seconds``, the plan, and by ``_group_outputs_m``,
the run's check):

* the term is above every measured search (a table: 400 group leads a release, and every lead at load 9 to 14) by at
  least 1.2x and within 2x; the grouping's term is unchanged;
* ``small_search_seconds`` (the other routes' term) is unchanged, and past ``SMALL_SEARCH_ROWS`` the class term is it;
* the run's check reads the same function: a column whose searches the term puts over the limit is refused in one line
  before any search runs;
* the plan opens eps 0.25 at n = 16 (both objectives) and eps 0.5 and 0.625 ``average`` at n = 17, by classes,
  each planned above every release measured there (``benchmarks/noise_aware_k4_h76na4*.json`` then; now, the leads
  searched by orbits, ``benchmarks/noise_aware_k4_class_orbits.json``, eps 0.25 and 0.3 to n = 18; the grouping
  without its float check, test_clamp_groups_k4.py: eps 0.25 to n = 22); the cells next to them stay refused in one
  line, and the CLI exits 2 with one line there.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as lattice_module
from dpposterior.mechanisms.optimal import LATTICE
from dpposterior.models import SizeError

#: Measured one-point searches of the class route (Dir(1,1,1,1), k = 4; CPU ms a search on the 2 shared cores):
#: (n, ms, load).  400 group leads a release, 2026-12-02: eps 0.25 at (3,3,2,2), (0,0,1,14), (5,5,4,4), (17,1,1,1),
#: (5,5,5,5); all 15,929 leads of (4,4,4,4); eps 0.5 at (4,4,4,4), (5,4,4,4), (17,0,0,0), (5,5,5,5), (6,6,5,5).  Then
#: every lead of the release at the centre, at load 9 to 14 (``CLASS_SECONDS``' runs): eps 0.25, n = 10, 14, 16, 18;
#: eps 0.5, n = 15, 16.
MEASURED_SEARCHES = [(10, 0.445, 3.1), (14, 0.714, 3.4), (18, 1.106, 4.5), (20, 1.057, 4.8), (20, 1.094, 5.6),
                     (16, 0.781, 2.6), (16, 0.654, 6.0), (17, 1.002, 6.5), (17, 0.903, 6.7), (20, 0.972, 7.1),
                     (22, 1.284, 7.5), (10, 0.658, 9.0), (14, 0.764, 9.6), (16, 1.059, 14.2), (18, 1.206, 9.4),
                     (15, 0.811, 2.9), (16, 0.833, 3.0)]


@pytest.mark.parametrize("n, ms, load", MEASURED_SEARCHES)
def test_the_class_search_term_is_above_its_measured_searches(n, ms, load):
    planned = 1e3 * lattice_module.class_search_seconds(1, n, 4)
    assert 1.2 * ms < planned < 2.0 * ms


def test_the_other_terms_are_unchanged():
    assert lattice_module.SMALL_SEARCH_SECONDS == (8e-4, 1e-6)
    assert lattice_module.CLASS_SECONDS == 4.5e-6 and lattice_module.GROUP_LEAD_SECONDS == (3e-4, 5e-7)
    assert lattice_module.small_search_seconds(1, 16, 4) == pytest.approx(8e-4 + 1e-6 * 969)
    # past the measured rows the class route's searches cost what a one-point search past them does
    assert lattice_module.class_search_seconds(7.0, 40, 4) == lattice_module.small_search_seconds(7.0, 40, 4)


@pytest.mark.parametrize("eps, n", [(0.25, 16), (0.5, 17), (0.25, 10)])
def test_the_plan_counts_its_searches_by_the_class_term(eps, n):
    W = LATTICE.column_radius(n, 4, eps)
    from dpposterior.lattice.column import clamp_group_count

    _, searches = lattice_module.group_seconds(n, 4, W, True)
    assert searches == lattice_module.class_search_seconds(clamp_group_count(n, 4, W), n, 4)


def test_the_runs_check_reads_the_same_term(monkeypatch):
    """``_group_outputs_m`` checks its searches by ``class_search_seconds`` before the first runs: with the term
    raised past the limit, one line, and no search run."""
    a, n, eps = np.ones(4), 6, 0.5
    m = np.array([2, 2, 1, 1])
    from dpposterior.lattice.column import reach_classes

    Dc = lattice_module._radius(4, eps, 1e-12)
    Z, _ = reach_classes(n, 4, m, Dc, LATTICE.column_radius(n, 4, eps))
    ran = []
    monkeypatch.setattr(lattice_module, "local_bayes_search", lambda *args: ran.append(1))
    monkeypatch.setattr(lattice_module, "CLASS_SEARCH_SECONDS", (1.0, 0.0))
    with pytest.raises(SizeError) as refused:
        lattice_module._group_outputs_m(a, n, eps, m, Z, Dc)
    assert "\n" not in str(refused.value) and "one-point searches" in str(refused.value) and not ran


#: ``release --noise-aware`` measured (CPU s of the whole process, the release and its posterior).  First in the tree
#: that searched the class route's leads one at a time (``benchmarks/noise_aware_k4_h76na4.json`` and ``..._quarter``,
#: ``..._eps0625``, on the 2 shared cores at load 8 to 15): eps 0.5, n = 17, 23.7 to 32.2 s, 200 MB; eps 0.25, n = 16,
#: 30.1 to 36.5 s, 670 MB; eps 0.625, n = 17, 21.8 to 30.9 s, 160 MB.  Now, with the leads searched by orbits
#: (``class_orbits``), side by side with that tree on an idle host (``benchmarks/noise_aware_k4_class_orbits.json``,
#: the same outputs by SHA-256): each row of this tree run within its limits, read here.
CLASS_ORBIT_RUNS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "noise_aware_k4_class_orbits.json"
MEASURED_RUNS = [(r["epsilon"], r["objective"], sum(int(x) for x in r["counts"].split(",")), r["cpu_seconds"],
                  r["peak_mb"]) for r in json.loads(CLASS_ORBIT_RUNS.read_text())["runs"]
                 if r["tree"] == "new" and not r["raised"] and r["rc"] == 0]


def test_the_runs_read_are_the_cells_opened():
    assert {(eps, n) for eps, _, n, _, _ in MEASURED_RUNS} >= {(0.25, 16), (0.25, 18), (0.3, 17), (0.3, 18), (0.5, 17)}


@pytest.mark.parametrize("eps, objective, n, cpu, peak_mb", MEASURED_RUNS)
def test_the_opened_cells_are_admitted_by_classes_above_their_runs(eps, objective, n, cpu, peak_mb):
    """Each run within its plan by 1.2x or more (the seconds and the bytes) and within 5x (the grouping's term, fitted
    at load 9 to 14, is 2.4x to 3.3x over the idle runs)."""
    a = np.ones(4)
    spec = ReleaseSpec.of("lattice", eps, objective=objective)  # optimal~worst there: the LP over a coarser lattice
    plan = spec.mechanism.plan(Task.POSTERIOR, spec, a, n)
    assert not plan.refused() and plan.route == "local column"
    W = LATTICE.column_radius(n, 4, eps)
    assert LATTICE._class_route(a, n, 4, spec, W, lattice_module._radius(4, eps, 1e-12))
    assert 1.2 * cpu < plan.seconds < 5.0 * cpu
    assert 1.2 * peak_mb * 2**20 < plan.memory_bytes
    assert plan.memory_bytes < 2 * 2**30


@pytest.mark.parametrize("eps, n, objective", [(0.25, 24, "worst"), (0.25, 24, "average"), (0.5, 31, "average"),
                                               (0.625, 35, "average"),
                                               (0.5, 12, "worst"), (0.5, 31, "worst"), (0.25, 30, "average")])
def test_the_cells_next_to_them_stay_refused_in_one_line(eps, n, objective):
    spec = ReleaseSpec.of("optimal", eps, objective=objective)
    refusal = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), n).refused()
    assert refusal and "\n" not in refusal


def test_the_cli_refuses_eps_quarter_at_n_24_in_one_line_with_exit_2():
    proc = subprocess.run([sys.executable, "-m", "dpposterior", "release", "--prior", "1,1,1,1", "--counts",
                           "6,6,6,6", "--mechanism", "optimal", "--epsilon", "0.25", "--noise-aware", "--seed", "1"],
                          capture_output=True, text=True, timeout=600)
    lines = [ln for ln in proc.stderr.strip().splitlines() if not ln.startswith("dpposterior: warning")]
    assert proc.returncode == 2
    assert len(lines) == 1 and "over the limit" in lines[0] and "Traceback" not in proc.stderr
