"""The noise-aware posterior's local column at k = 3, small eps, where ``Dc >= n`` (every data set of R(n) in each
search's ball), with the grouped search's cycles cut (:class:`dpposterior.lattice.batched._Walks`): planned by the
whole-ball fit (:func:`dpposterior.mechanisms.lattice.whole_column_fit`, now from n = 41) at every eps from 0.1, with no
rule refusing eps below 0.12; each plan above its measured run; the cells it opens admitted under the default limit;
the cells over it refused in one line (exit 2 at the command), and planned (not refused) with the limit raised.

The side-by-side runs are in ``benchmarks/noise_aware_k3_h73na3.json`` (``benchmarks/noise_aware_k3_small_eps.py``).
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import benchmark_records
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L

from .test_noise_aware_k3_h72 import _cli_refusal

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORD = ROOT / "benchmarks" / "noise_aware_k3_h73na3.json"

#: Runs of the whole ``release --noise-aware`` process on this tree (Dir(1,1,1), seed 1, CPU s, load 5 to 7,
#: 2026-12-01): (counts, eps, objective, CPU s).
RUNS = [
    ("14,14,13", 0.1, "worst", 11.8), ("15,15,15", 0.1, "average", 12.3), ("17,16,16", 0.1, "average", 14.4),
    ("17,17,17", 0.1, "worst", 15.8), ("17,17,17", 0.105, "worst", 14.0), ("17,17,17", 0.11, "worst", 12.5),
    ("17,17,17", 0.115, "worst", 11.0), ("17,17,17", 0.117, "worst", 10.1), ("20,20,20", 0.1, "worst", 21.1),
    ("34,33,33", 0.1, "average", 62.1), ("50,50,50", 0.1, "worst", 140.8), ("34,33,33", 0.12, "worst", 32.1),
    ("37,37,36", 0.15, "worst", 24.9), ("44,43,43", 0.15, "average", 19.2), ("15,15,15", 0.15, "worst", 5.4),
    ("17,16,16", 0.15, "average", 6.1), ("15,15,15", 0.12, "average", 9.2),
]
#: a plan at most this many times its run (the fit's constants are the ones fitted with the walks in full)
MOST_OVER = 3.2


def _plan(n, eps, objective="average", limit=None, monkeypatch=None):
    if limit is not None:
        monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", str(limit))
    spec = ReleaseSpec.of("optimal", eps, objective=objective)
    return spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(3), n)


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_each_plan_is_above_its_run_and_not_far(run, monkeypatch):
    """The plan's seconds (the limit raised, so that it states them) above the whole process's CPU s, at most
    :data:`MOST_OVER` times."""
    counts, eps, objective, seconds = run
    n = sum(int(c) for c in counts.split(","))
    plan = _plan(n, eps, objective, limit=1e5, monkeypatch=monkeypatch)
    if L.whole_column_unplanned(n, 3, eps):  # past the fit's rows below eps 0.12: refused by the rule, not planned
        assert plan.refused() == L.whole_column_unplanned(n, 3, eps)
        return
    assert not plan.refused() and plan.route == "local column"
    assert seconds <= plan.seconds, (plan.seconds, seconds)
    if not (L.sampled_release_probes((1, 1, 1), n, 3, eps) and L.n_candidates(n, 3) > L.WHOLE_COLUMN_ROWS[1]):
        # (past n = 100 the plan counts every release, test_noise_aware_k3_plan_parts_h76na3: a run at the centre
        # is not its worst release)
        assert plan.seconds <= MOST_OVER * seconds, (plan.seconds, seconds)


@pytest.mark.parametrize("objective", ["average", "worst"])
@pytest.mark.parametrize("n,eps", [(41, 0.1), (45, 0.1), (49, 0.1), (50, 0.1), (51, 0.105), (51, 0.11), (55, 0.11),
                                   (51, 0.115), (58, 0.115), (51, 0.119), (60, 0.119), (45, 0.15), (49, 0.12)])
def test_the_cells_opened_are_admitted(n, eps, objective):
    """eps 0.1 at n = 41 to 49 (fit from n = 41) and eps 0.105 to 0.119 from n = 51 (no rule): admitted under the
    default limit, by the whole-ball fit."""
    assert L.whole_column_fit(n, 3, eps)
    plan = _plan(n, eps, objective)
    assert plan.fits and not plan.refused(), plan.refusal


@pytest.mark.parametrize("objective", ["average", "worst"])
@pytest.mark.parametrize("n,eps", [(100, 0.1), (200, 0.1), (203, 0.1), (100, 0.12), (150, 0.12), (101, 0.15),
                                   (110, 0.15), (132, 0.15)])
def test_the_cells_still_out_are_refused_in_one_line(n, eps, objective, monkeypatch):
    """Over the default limit: refused in one line that states the seconds; with the limit raised, planned."""
    line = _plan(n, eps, objective).refused()
    assert line and "\n" not in line and "over the limit" in line
    assert not _plan(n, eps, objective, limit=1e5, monkeypatch=monkeypatch).refused()


def test_the_fits_range_starts_at_n_41():
    """|R(41)| = 903 is the fit's first end: n = 41 in, n = 40 out (its plan the one before)."""
    assert L.WHOLE_COLUMN_ROWS[0] == L.n_candidates(41, 3) == 903
    assert L.whole_column_fit(41, 3, 0.1) and not L.whole_column_fit(40, 3, 0.1)
    assert not L.whole_column_fit(41, 3, 0.099) and not L.whole_column_fit(41, 3, 0.151)


@pytest.mark.parametrize("n,eps,before", [(40, 0.1, 44.7), (30, 0.1, 39.9), (100, 0.15, 44.38),
                                          (133, 0.15, 65.95), (203, 0.1, 324.06), (41, 0.16, 15.25)])
def test_the_plans_outside_the_change_are_the_old_trees(n, eps, before, monkeypatch):
    """Cells the change does not reach keep the old tree's plan (``benchmarks/plan_scan_h73na3.json`` scans every
    cell); n = 133, eps 0.15 and n = 203, eps 0.1 (42.46 and 145.5 s then) count every release since
    (test_noise_aware_k3_all_releases_h75na3), by distinct positive parts over five releases
    (test_noise_aware_k3_plan_parts_h76na3: 90.05 and 462.38 s before).  Planned with the limit raised: a plan over
    the default limit stops at a lower end."""
    plan = _plan(n, eps, limit=1e5, monkeypatch=monkeypatch)
    if before is not None:
        assert plan.seconds == pytest.approx(before, abs=0.1)
    assert not L.whole_column_fit(n, 3, eps) or n >= 50


def test_the_cli_refuses_in_one_line_with_exit_2():
    """``release --noise-aware`` at eps 0.15, n = 110 (planned 55 s): exit 2, one line, no traceback."""
    proc, lines = _cli_refusal("37,37,36", "0.15")
    assert proc.returncode == 2
    assert len(lines) == 1 and "over the limit" in lines[0] and "Traceback" not in proc.stderr


@pytest.mark.parametrize("rec", benchmark_records.new_runs(RECORD.name),
                         ids=lambda r: f"{r['counts']}-{r['epsilon']}-{r['objective']}-{r['raised']}")
def test_the_side_by_side_runs_are_under_this_trees_plan(rec, monkeypatch):
    """Each release this tree ran in the benchmark (CPU s of the whole process): under this tree's plan of it."""
    n = sum(int(c) for c in rec["counts"].split(","))
    plan = _plan(n, rec["epsilon"], rec["objective"], limit=1e5, monkeypatch=monkeypatch)
    if L.whole_column_unplanned(n, 3, rec["epsilon"]):  # refused by the rule past the fit's rows, whatever the limit
        assert plan.refused()
        return
    assert rec["cpu_seconds"] <= plan.seconds, (rec["cpu_seconds"], plan.seconds)


def test_the_benchmark_outputs_match_the_old_tree():
    """Where both trees released a cell (the old tree's limit raised, its rule lifted where it refused), the JSON
    printed has the same hash."""
    runs = benchmark_records.runs(RECORD.name)
    if not runs:
        pytest.skip("no benchmark record")
    done: dict = {}
    for r in runs:
        if r["rc"] == 0:
            done.setdefault((r["counts"], r["epsilon"], r["objective"]), {})[r["tree"]] = r["sha256"]
    both = [v for v in done.values() if len(v) == 2]
    assert both
    assert all(v["new"] == v["old"] for v in both)


@pytest.mark.parametrize("n", [51, 60, 100, 192])
def test_below_eps_01_the_cells_stay_refused_whatever_the_limit(n, monkeypatch):
    """eps 0.08 (below the fit's range, never measured) from n = 51: refused in one line as before, limit raised."""
    line = _plan(n, 0.08, limit=1e5, monkeypatch=monkeypatch).refused()
    assert line == L.whole_column_unplanned(n, 3, 0.08) and line and "\n" not in line and "below eps 0.1 " in line
    assert not L.whole_column_unplanned(50, 3, 0.08)
    assert not L.whole_column_unplanned(min(n, 100), 3, 0.1)


@pytest.mark.parametrize("objective", ["average", "worst"])
@pytest.mark.parametrize("n,eps", [(101, 0.1), (150, 0.1), (192, 0.1), (192, 0.105), (150, 0.115)])
def test_past_the_fits_rows_below_eps_012_refused_whatever_the_limit(n, eps, objective, monkeypatch):
    """eps 0.1 to 0.119 from n = 101 (|R(n)| past the fit's rows) where the region route does not count by the sample
    alone: refused in one line whatever the limit (eps 0.105, n = 192 ran 112 CPU s against 28.2 s planned)."""
    line = _plan(n, eps, objective, limit=1e5, monkeypatch=monkeypatch).refused()
    assert line == L.whole_column_unplanned(n, 3, eps) and line and "\n" not in line and "below eps 0.12 " in line


@pytest.mark.parametrize("n,eps", [(100, 0.119), (100, 0.1), (101, 0.12), (192, 0.12), (193, 0.105), (204, 0.1)])
def test_the_rule_past_the_fits_rows_stops_at_its_edges(n, eps):
    """Not at n = 100 (the fit's last row), not from eps 0.12, not where the plan counts by the sample alone."""
    assert not _plan(n, eps, limit=None).refusal or "below eps" not in _plan(n, eps).refusal
