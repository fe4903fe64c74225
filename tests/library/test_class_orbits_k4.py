"""The k = 4 class route's searches by orbits (mechanisms/lattice.py: ``class_orbits``, ``CLASS_ORBIT_SECONDS``,
``_group_outputs_m``):

* at a symmetric prior the leads are searched together by orbits (``local_search_batch(..., orbits=True)``) and the
  column's ``T(z, m)`` is the one of the one-point searches at every class (the same floats), where that route is
  forced on and off;
* the price by orbits is over every run measured (``benchmarks/class_orbits_k4.json`` and, at the edges,
  ``class_orbits_k4_s97.json``: the same leads searched both ways in one process on an idle host, equal outputs at
  every lead), at most 0.7 of it, and the route runs by orbits
  only where they are faster there (a one-point price of ``CLASS_ORBIT_MIN_SECONDS`` or more);
* the run's check reads the same price (a column whose searches it puts over the limit is refused before any runs);
* the plan admits eps 0.25 and 0.3 at n = 17 and 18 (both objectives; n = 16 before), now to n = 23 and 24, and
  refuses the next n in one line; an asymmetric prior keeps the one-point price;
* where the region route's plan is over the limit and the class route's by orbits within it (eps 0.33 to 0.35 at
  n = 17 to 19) the column runs by classes; a cell the region route admits keeps it; every eps from 0.25 to 0.4 is
  admitted at n = 18.
"""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dpposterior.lattice.column import reach_classes
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.optimal import LATTICE
from dpposterior.models import SizeError

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "class_orbits_k4.json"
#: The same at the edges (eps 0.25 to 0.4, n = 16 to 25), where the price was refitted.
BENCH_EDGES = BENCH.with_name("class_orbits_k4_s97.json")


@pytest.mark.parametrize("eps, m", [(0.5, (2, 2, 1, 1)), (0.5, (1, 1, 1, 5)), (0.25, (2, 1, 1, 1)),
                                    (0.3, (3, 1, 2, 2))])
def test_by_orbits_the_same_column_as_one_at_a_time(eps, m, monkeypatch):
    a, m = np.ones(4), np.array(m, dtype=np.int64)
    n = int(m.sum())
    w = L.working_epsilon(eps, 4)
    Dc = L._radius(4, w, 1e-12)
    Z, _ = reach_classes(n, 4, m, Dc, LATTICE.column_radius(n, 4, w))
    monkeypatch.setattr(L, "CLASS_ORBIT_MIN_SECONDS", 0.0)
    assert L.class_orbits(a, 10, n, 4)
    by_orbits = L._group_outputs_m(a, n, w, m, Z, Dc)
    monkeypatch.setattr(L, "CLASS_ORBIT_MIN_SECONDS", np.inf)
    assert not L.class_orbits(a, 10, n, 4)
    one = L._group_outputs_m(a, n, w, m, Z, Dc)
    assert np.array_equal(by_orbits, one) and one.sum() > 0


def test_the_price_by_orbits_is_over_every_run():
    rows = json.loads(BENCH.read_text())["runs"] + json.loads(BENCH_EDGES.read_text())["runs"]
    assert len(rows) >= 18 and all(r["equal"] for r in rows)
    for r in rows:
        n = sum(r["released"])
        points = r["leads"] + r["alone"]
        price = L.class_search_seconds(points, n, 4, orbits=True)
        one = L.class_search_seconds(points, n, 4)
        assert r["orbits_cpu_s"] <= 0.7 * price, r
        # by orbits exactly where they ran faster than one at a time
        assert L.class_orbits(np.ones(4), points, n, 4) == (one >= L.CLASS_ORBIT_MIN_SECONDS)
        if one >= L.CLASS_ORBIT_MIN_SECONDS:
            assert r["orbits_cpu_s"] < r["one_point_cpu_s"] and price < one, r
    assert any(r["orbits_cpu_s"] > r["one_point_cpu_s"] for r in rows)  # below the threshold: slower


def test_an_asymmetric_prior_keeps_the_one_point_price():
    assert not L.class_orbits(np.array([1.0, 1.0, 1.0, 2.0]), 30000, 18, 4)
    W = LATTICE.column_radius(18, 4, 0.25)
    assert L.group_seconds(18, 4, W, True, np.array([1.0, 1, 1, 2])) == L.group_seconds(18, 4, W, True)
    assert L.group_seconds(18, 4, W, True, np.ones(4))[1] < 0.4 * L.group_seconds(18, 4, W, True)[1]


def test_the_runs_check_reads_the_price_by_orbits(monkeypatch):
    a, n, eps = np.ones(4), 6, 0.5
    m = np.array([2, 2, 1, 1])
    Dc = L._radius(4, eps, 1e-12)
    Z, _ = reach_classes(n, 4, m, Dc, LATTICE.column_radius(n, 4, eps))
    ran = []
    monkeypatch.setattr(L, "CLASS_ORBIT_MIN_SECONDS", 0.0)
    monkeypatch.setattr(L, "CLASS_ORBIT_SECONDS", (1e5, 0.0))
    monkeypatch.setattr("dpposterior.lattice.batched.local_search_batch", lambda *args, **kw: ran.append(1))
    with pytest.raises(SizeError) as refused:
        L._group_outputs_m(a, n, eps, m, Z, Dc)
    assert "\n" not in str(refused.value) and not ran


@pytest.mark.parametrize("objective", ["average", "worst"])
@pytest.mark.parametrize("eps, last", [(0.25, 23), (0.3, 24)])
def test_the_plan_admits_n_17_to_its_edge_and_refuses_the_next(eps, last, objective):
    """n = 17 and 18 by the searches run by orbits; to ``last`` with the grouping's check skipped where it is known
    to pass (test_clamp_groups_k4.py) and the price by orbits refitted at the edges (one n further)."""
    spec = ReleaseSpec.of("lattice", eps, objective=objective)  # optimal~worst at 17, 18: the LP over a coarser lattice
    plans = {n: spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), n) for n in (17, 18, last, last + 1)}
    assert not plans[17].refused() and not plans[18].refused() and not plans[last].refused()
    refusal = plans[last + 1].refused()
    assert refusal and "\n" not in refusal


def _class_route(eps: float, n: int) -> bool:
    spec = ReleaseSpec.of("optimal", eps, objective="average")
    W = LATTICE.column_radius(n, 4, eps)
    return LATTICE._class_route(np.ones(4), n, 4, spec, W, L._radius(4, eps, 1e-12))


@pytest.mark.parametrize("eps", [0.33, 0.35])
def test_refused_on_the_region_route_the_class_route_by_orbits_runs(eps):
    """eps 0.33 to 0.35 at n = 17 to 19: the region route's plan is over the limit (by orbits at eps 0.35, by the
    filters' rule below it), the class route's by orbits within it, so they run by classes; n = 25 stays refused."""
    spec = ReleaseSpec.of("optimal", eps, objective="average")
    for n in (17, 18, 19):
        assert _class_route(eps, n)
        assert not spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), n).refused()
    refusal = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), 25).refused()
    assert refusal and "\n" not in refusal


def test_a_cell_the_region_route_admits_keeps_it():
    assert not _class_route(0.36, 17) and not _class_route(0.4, 20)


def test_every_eps_from_a_quarter_to_0_4_is_admitted_at_n_18():
    """The admitted n no longer dip between eps 0.3 and 0.4 (eps 0.33 to 0.35 ended at 16, eps 0.39 at 16 before the
    cut's rule started at a working eps)."""
    for eps in (0.25, 0.3, 0.33, 0.35, 0.36, 0.38, 0.39, 0.4):
        spec = ReleaseSpec.of("optimal", eps, objective="average")
        assert not spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), 18).refused(), eps


#: ``release --noise-aware`` at the cells the refit admits, this tree against the tree before (its limit raised there).
OPENED = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "noise_aware_k4_class_orbits_s97.json"


def test_the_cells_the_refit_admits_run_within_their_plans_with_the_old_output():
    """eps 0.25, n = 23; eps 0.3, n = 24; eps 0.4, n = 25 (worst): this tree releases under the default limits at
    under 0.6 of the plan's seconds and within its bytes, the tree before refused (exit 2, one line) and, its limit
    raised, printed the same JSON (SHA-256); and today's plan admits each."""
    runs = json.loads(OPENED.read_text())["runs"]
    new = [r for r in runs if r["tree"] == "new"]
    assert len(new) == 3
    for r in new:
        assert r["rc"] == 0 and r["cpu_seconds"] < 0.6 * r["plan"]["seconds"], r["counts"]
        assert r["peak_mb"] * 2**20 < r["plan"]["bytes"]
        old = [o for o in runs if o["tree"] == "old" and o["counts"] == r["counts"]]
        assert any(o["rc"] == 2 and not o["raised"] for o in old)
        assert [o["sha256"] for o in old if o["raised"]] == [r["sha256"]]
        spec = ReleaseSpec.of("optimal", r["epsilon"], objective=r["objective"])
        counts = [int(x) for x in r["counts"].split(",")]
        assert not spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), sum(counts)).refused()
