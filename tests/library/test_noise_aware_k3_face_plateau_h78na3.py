"""The k = 3 noise-aware plan within the centre's reach counts its family release by release (:func:`L.family_costed`:
the release on the face's plateau among them, each costed as its run's check counts it), and the face releases' parts
are costed by eps and n (:func:`L.face_part_factor`, one function read by the plan and by the run's check).

- the runs in :data:`RUNS` predate the exact descent filter (the searches it drops ran in them): each such cell is
  now refused, or measured again with the filter (``benchmarks/face_runs_filter_plan_h81fx.json``, where
  tests/library/test_noise_aware_k3_filter_plan_h81fx.py holds the plan at least 1.2 times every run);
- :func:`L.face_part_factor` and :func:`L.family_costed` against transcriptions of their definitions;
- the cells the plan now refuses, refused in one line each.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior.mechanisms import lattice as L

from .test_noise_aware_k3_h73na3 import _plan  # the plan at Dir(1,1,1), its limit raised where asked

#: ``posterior --prior 1,1,1 --released R --n N --mechanism optimal --objective average --epsilon EPS`` with
#: ``DPPOSTERIOR_MAX_SOLVE_SECONDS=100000``, the whole process: (eps, n, released, CPU s, load), 2026-12-02
#: (``benchmarks/face_runs_h78na3.json``; the run is the same code in OLD/src), before the exact descent filter.
RUNS = [
    (0.5, 1000, (1, 499, 500), 20.65, 7.5),
    (0.5, 10_000, (1, 4999, 5000), 33.06, 2.0),
    (0.5, 10_000, (2, 4999, 4999), 29.49, 4.9),  # exit 2 after its searches: not an output of the release
    (0.75, 1000, (1, 499, 500), 6.95, 6.0),
    (0.75, 10_000, (1, 4999, 5000), 8.87, 8.3),
    (1.0, 10**6, (0, 500000, 500000), 46.68, 6.4),
    (0.3, 437, (3, 217, 217), 30.79, 7.4),
    (0.3, 600, (2, 299, 299), 53.4, 10.3),  # the closing note's run (OLD/src)
    (0.25, 300, (3, 148, 149), 47.54, 10.5),
    (0.25, 437, (3, 217, 217), 60.28, 10.5),
    (0.5, 437, (1, 218, 218), 8.08, 9.8),
    (0.5, 2000, (1, 999, 1000), 22.11, 10.2),
    (1.0, 10_000, (0, 5000, 5000), 5.18, 9.8),
]
#: Runs stopped by hand past the limit (CPU s when stopped), before the exact descent filter: their cells are refused
#: at the default limit.  (eps 0.5, n = 1e5, (1, 49999, 50000) stopped at 169.7 s then; with the filter (1, 50000,
#: 49999) runs 6.35 s, its cell admitted: ``benchmarks/face_runs_filter_plan_h81fx.json``.)
STOPPED = [
    (0.25, 700, (3, 348, 349), 127.7, 9.6),
]


@pytest.mark.parametrize("run", RUNS + STOPPED, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_each_cell_measured_before_the_filter_is_refused_or_measured_with_it(run):
    """A cell admitted now has a run with the filter (the plan's bound is asserted on those runs); the runs before it
    bound nothing now (the searches the filter drops ran in them)."""
    import json
    import pathlib

    eps, n = run[0], run[1]
    if _plan(n, eps).refused():
        return
    bench = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "face_runs_filter_plan_h81fx.json"
    measured = {(r["eps"], r["n"]) for r in json.loads(bench.read_text())["runs"] if not r["stopped_at_cap"]}
    assert (eps, n) in measured


@pytest.mark.parametrize("run", STOPPED, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_a_run_stopped_past_the_limit_sits_in_a_refused_cell(run, monkeypatch):
    eps, n, _, seconds, _ = run
    assert _plan(n, eps, limit=1e6, monkeypatch=monkeypatch).seconds >= seconds
    monkeypatch.delenv("DPPOSTERIOR_MAX_SOLVE_SECONDS")
    line = _plan(n, eps).refused()
    assert line and "\n" not in line


def _family_costed_oracle(n: int, eps: float) -> bool:
    """k = 3, eps in [0.1, 1], |R(n)| past 5,151 (n from 101); past the centre's reach (``n // 3 > 2 Dc``) at every
    such n, within it from n = 205."""
    Dc = L._radius(3, eps, 1e-12)
    rows = (n + 1) * (n + 2) // 2
    return 0.1 <= eps <= 1.0 and rows > 5151 and (n // 3 > 2 * Dc or n >= 205)


@pytest.mark.parametrize("eps", [0.05, 0.1, 0.12, 0.25, 0.3, 0.5, 0.75, 1.0, 1.25])
@pytest.mark.parametrize("n", [50, 100, 101, 204, 205, 300, 600, 700, 1000, 1600, 10**6])
def test_the_family_is_costed_release_by_release_from_n_205_within_the_reach(n, eps):
    assert L.family_costed(n, 3, eps) == _family_costed_oracle(n, eps)
    assert not L.family_costed(n, 4, eps)
    assert L.WHOLE_COLUMN_ROWS[1] == 5151  # the oracle's rows


def test_the_plateau_release_is_in_the_family_at_the_hole():
    """eps 0.3, n = 600: the face's plateau (floor(0.03 Dc) = 3) is a release of the family."""
    fam = {tuple(int(x) for x in r) for r in L.sampled_release_probes((1, 1, 1), 600, 3, 0.3)}
    assert (3, 299, 298) in fam or (3, 298, 299) in fam


def _factor_oracle(n: int, eps: float) -> float:
    """eps 0.75 to 1 up to n = 1e5: 2.75; eps 0.3 to 0.75 (0.75 read by the row before) up to n = 1e5: 1.25; else 4."""
    if 0.75 <= eps <= 1.0 and n <= 100_000:
        return 2.75
    if 0.3 <= eps <= 0.75 and n <= 100_000:
        return 1.25
    return 4.0


@pytest.mark.parametrize("eps", [0.1, 0.25, 0.29, 0.3, 0.4, 0.5, 0.6, 0.75, 0.76, 0.9, 1.0])
@pytest.mark.parametrize("n", [205, 437, 438, 600, 1000, 2000, 10_000, 10_001, 100_000, 10**6])
def test_the_face_factor_is_its_table(n, eps):
    assert L.face_part_factor(n, eps) == _factor_oracle(n, eps)
    # the factor rises with n (a row fitted at its largest n holds below it)
    assert L.face_part_factor(n, eps) <= L.face_part_factor(10 * n, eps)
    assert L.face_part_factor(n, eps) == 4.0 or eps >= 0.3  # below eps 0.3 not refitted


def test_the_runs_check_reads_the_same_factor_at_its_release():
    """The run's check (release_search_seconds at its own release) puts face_part_factor on a face release's parts,
    1 at the centre."""
    for n, eps, face in [(1000, 0.5, (1, 499, 500)), (600, 0.3, (3, 298, 299)), (10**6, 1.0, (0, 500000, 500000))]:
        c = np.array([n // 3 + (1 if i < n % 3 else 0) for i in range(3)])
        f = L.release_search_seconds(0, 5000, n, 3, eps, released=np.array(face))
        assert f == pytest.approx(L.face_part_factor(n, eps) * L.release_search_seconds(0, 5000, n, 3, eps, released=c))


#: Cells admitted before (on the centre's costs within the reach) and refused now, with the worst release measured
#: (CPU s, :data:`RUNS` and :data:`STOPPED`): the plan before, the run.
NEWLY_REFUSED = [
    (0.25, 300, 44.7, 47.54),   # (3, 148, 149)
    (0.25, 700, 23.0, 127.7),   # (3, 348, 349), stopped
    (0.12, 1600, 22.0, None),   # its face (8, 796, 796) checked by the run's own rule at 2,105 s before the factor
]


@pytest.mark.parametrize("cell", NEWLY_REFUSED, ids=lambda c: f"{c[0]}-{c[1]}")
def test_the_cells_refused_now_are_refused_in_one_line(cell):
    eps, n, _, _ = cell
    line = _plan(n, eps).refused()
    assert line and "\n" not in line and "over the limit" in line




def test_eps_1_n_1e5_face_is_under_its_plan(monkeypatch):
    """eps 1, n = 1e5, (0, 50000, 50000) ran 8.67 CPU s (399 MiB, load 9.8) against 7.7 s planned before the exact
    descent filter; with it (:func:`L._descent_exact`) the same release runs 3.4 CPU s (400 MiB, load 3.3,
    ``benchmarks/face_runs_exact_h80pl.json``): the plan (7.75 s) now over 1.2 times the run."""
    assert _plan(100_000, 1.0, limit=1e6, monkeypatch=monkeypatch).seconds >= 1.2 * 3.4
