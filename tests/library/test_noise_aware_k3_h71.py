"""The noise-aware posterior's local column at k = 3 where ``Dc >= n`` (small eps: every data set of R(n) in each
search's ball), planned by the whole-ball fit (:func:`dpposterior.mechanisms.lattice.whole_column_fit`): each term
above the runs it was fitted to and at most 2x over them, the whole plan above the whole process, and the calls it
opens admitted under the default limit while the ones past the fit stay refused in one line.

The runs (CPU s in the release's own process, Dir(1,1,1), the release of seed 1, load 2.2 to 2.3, 2026-12-01): the
searches (``_search_points``), the filters (``search_filter``) and the whole process (``getrusage``), with its peak RSS
less that of a refused call (the interpreter with the library loaded, ~135 MB).  The side-by-side runs of both trees
are in ``benchmarks/noise_aware_k3_h71.json`` (``benchmarks/noise_aware_k3_small_eps.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import benchmark_records
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L

#: (n, eps, searched points, searches' CPU s, region points, filters' CPU s, whole process CPU s, peak growth bytes)
RUNS = [
    (50, 0.1, 134_550, 18.31, 323_610, 4.49, 26.19, 176e6),
    (50, 0.15, 68_790, 9.92, 152_628, 2.24, 15.11, 106e6),
    (100, 0.1, 162_230, 80.63, 365_085, 5.94, 92.32, 307e6),
    (100, 0.15, 70_207, 23.73, 181_503, 2.39, 28.82, 231e6),
]
#: a term at most this many times its run
MOST_OVER = 2.0


def _plan(n, eps, objective="average", limit=None, monkeypatch=None):
    if limit is not None:
        monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", str(limit))
    spec = ReleaseSpec.of("optimal", eps, objective=objective)
    return spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(3), n)


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"n={r[0]}-eps={r[1]}")
def test_the_whole_ball_fit_holds_where_it_was_measured(run):
    """Every measured cell is in the fit's range (public n, k, eps) and its ``Dc >= n``."""
    n, eps = run[0], run[1]
    assert L.whole_column_fit(n, 3, eps)
    assert L._radius(3, eps, 1e-12) >= n


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"n={r[0]}-eps={r[1]}")
def test_the_searches_term_is_above_its_runs_and_not_far(run):
    """:func:`_parts_seconds` at the points searched: above the searches' CPU s, at most 2x."""
    n, eps, points, seconds = run[:4]
    if eps <= L.WHOLE_CUT_EPSILON:
        pytest.skip("measured with the walks in full; refitted up to eps 0.12 (test_noise_aware_k3_sampled_h74na3)")
    planned = L._parts_seconds(points, n, 3, eps)
    assert seconds <= planned <= MOST_OVER * seconds, (planned, seconds)


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"n={r[0]}-eps={r[1]}")
def test_the_filters_term_is_above_its_runs_and_not_far(run):
    """The filters' term (:data:`WHOLE_FILTER_SECONDS` a region point): above the filters' CPU s, at most 2x."""
    n, eps, _, _, region, seconds = run[:6]
    planned = region * L.WHOLE_FILTER_SECONDS
    assert seconds <= planned <= MOST_OVER * seconds, (planned, seconds)


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"n={r[0]}-eps={r[1]}")
def test_the_plan_is_above_the_whole_process(run, monkeypatch):
    """The column's plan (seconds and bytes) above the whole process of its release (CPU s, peak growth), its seconds
    at most 2x."""
    n, eps = run[0], run[1]
    if eps <= L.WHOLE_CUT_EPSILON:
        pytest.skip("measured with the walks in full; refitted up to eps 0.12 (test_noise_aware_k3_sampled_h74na3)")
    plan = _plan(n, eps, limit=1e5, monkeypatch=monkeypatch)
    assert plan.route == "local column"
    assert run[6] <= plan.seconds <= MOST_OVER * run[6], (plan.seconds, run[6])
    assert plan.memory_bytes >= run[7]


@pytest.mark.parametrize("objective", ["average", "worst"])
@pytest.mark.parametrize("n,eps", [(50, 0.1), (100, 0.15), (50, 0.15)])
def test_the_cells_the_fit_opens_are_admitted_under_the_default_limit(n, eps, objective):
    """eps 0.1 at n = 50 and eps 0.15 at n = 100 (refused before: 52.7 and 48.5 s planned) fit the default 45 s."""
    plan = _plan(n, eps, objective)
    assert plan.fits and not plan.refused(), plan.refusal


@pytest.mark.parametrize("n", [100, 150, 200])
def test_eps_01_past_n_50_is_still_refused_in_one_line(n):
    """eps 0.1, n = 100 to 200: refused in one line (planned over the default limit)."""
    plan = _plan(n, 0.1)
    assert not plan.fits
    assert plan.refused() and "\n" not in plan.refused()


@pytest.mark.parametrize("n,eps", [(30, 0.1), (40, 0.1), (101, 0.1), (100, 0.2), (100, 0.25), (10, 0.15)])
def test_the_fit_stays_inside_its_measured_range(n, eps):
    """Outside eps 0.1 to 0.15 and |R(n)| from 903 to 5,151 (n = 41 to 100) the terms are the ones before."""
    assert not L.whole_column_fit(n, 3, eps)
    assert not L.whole_column_fit(n, 4, eps)


def test_the_fits_range_is_n_41_to_100():
    """|R(n)| at k = 3: 903 at n = 41, 5,151 at n = 100 (the range's ends)."""
    assert L.n_candidates(41, 3) == L.WHOLE_COLUMN_ROWS[0]
    assert L.n_candidates(100, 3) == L.WHOLE_COLUMN_ROWS[1]


def _bench_runs():
    return [r for r in benchmark_records.new_runs("noise_aware_k3_h71.json")
            if L.whole_column_fit(sum(int(c) for c in r["counts"].split(",")), 3, r["epsilon"])]


@pytest.mark.parametrize("rec", _bench_runs(), ids=lambda r: f"{r['counts']}-{r['epsilon']}-{r['objective']}")
def test_the_side_by_side_runs_are_under_this_trees_plan(rec, monkeypatch):
    """Each release the side-by-side benchmark ran on this tree in the fit's range (CPU s of the whole process, load 3
    to 5): under this tree's plan of it (seconds), the plan recomputed here."""
    n = sum(int(c) for c in rec["counts"].split(","))
    if rec["epsilon"] <= L.WHOLE_CUT_EPSILON and L.whole_column_fit(n, 3, rec["epsilon"]):
        pytest.skip("run with the search's walks in full (before their cycles were cut); the fit up to eps 0.12 is "
                    "refitted on runs since (test_noise_aware_k3_sampled_h74na3)")
    plan = _plan(n, rec["epsilon"], rec["objective"], limit=1e5, monkeypatch=monkeypatch)
    assert rec["cpu_seconds"] <= plan.seconds, (rec["cpu_seconds"], plan.seconds)
