"""The near ties of the k = 3 local errors (``lattice~average`` past its window) are planned, so a run whose near ties
are over what the solve limit leaves is refused by its plan, before the batched remap runs (not while it runs).

* the plan's count (:func:`~dpposterior.mechanisms.lattice.local_tie_seconds`) is at or above the near ties the batched
  remap leaves undecided, counted by running its batched part at Dir(1,1,1) (the symmetric prior's exact ties, the
  most) over small cells of n and eps;
* the plan's refusal is the run's: a plan admitted allows every near tie it counts (``_max_fallback``), one refused
  counts more than that;
* Dir(1,1,1), n = 500, eps = 0.5 (which refused while it ran) is refused by its plan, in ``compare``'s plan too.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior import ranking
from dpposterior.errors import SizeError
from dpposterior.lattice import search
from dpposterior.lattice.noise import window
from dpposterior.limits import admit
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec

ONES = np.ones(3)


@pytest.fixture(autouse=True)
def _default_limits(monkeypatch):
    for name in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MEMORY_GB", "DPPOSTERIOR_MAX_PAIRS",
                 "DPPOSTERIOR_MAX_COMPARE_SECONDS"):
        monkeypatch.delenv(name, raising=False)


def _spec(eps):
    return ReleaseSpec.of("lattice", eps, objective="average")


def _counted_ties(monkeypatch, n, eps):
    """The points the batched local remap over the errors' window leaves undecided (handed to
    ``search._search_undecided``), counted without running those searches."""
    got = {}

    def count(a, n_, eps_, Z, out, done, max_fallback, stats, searched):
        got["ties"] = int((~done).sum())
        return out

    monkeypatch.setattr(search, "_search_undecided", count)
    W = L._radius(3, eps, L.LOCAL_ERROR_TOL)
    search.local_search_many(ONES, n, eps, window(n, 3, W))
    return got["ties"]


@pytest.mark.parametrize(("n", "eps"), [(20, 0.4), (20, 0.5), (50, 0.5), (50, 0.6), (50, 0.75), (100, 1.0),
                                        (60, 2.0)])
def test_planned_near_ties_cover_the_counted_ones(monkeypatch, n, eps):
    assert L.local_tie_seconds(n, 3, eps)[0] >= _counted_ties(monkeypatch, n, eps)


@pytest.mark.parametrize("eps", [0.4, 0.5, 0.6, 0.75, 1.0])
@pytest.mark.parametrize("n", [50, 300, 500, 1000])
def test_the_plan_refuses_exactly_where_its_near_ties_are_over_what_the_run_allows(n, eps):
    from dpposterior.mechanisms import MECHANISMS

    lattice = MECHANISMS["lattice"]
    spec = _spec(eps)
    plan = lattice.plan_errors(ONES, n, spec)
    if plan.route != "local search":
        pytest.skip(f"{plan.route} at n = {n}, eps = {eps}")
    if L.orbit_average(n, 3, eps, True):  # by orbits, an undecided orbit certified by one search
        table, ties, _ = L.orbit_average_seconds(n, 3, eps)
        over = table > 45.0 or ties > lattice._max_fallback(n, 3, spec, symmetric=True)
        assert bool(plan.refused()) == over
        return
    search_seconds, _ = L.local_error_seconds(n, 3, eps)
    if search_seconds > 45.0:  # refused on the batched remap alone
        assert plan.refused()
        return
    over = L.local_tie_seconds(n, 3, eps)[0] > lattice._max_fallback(n, 3, spec)
    assert bool(plan.refused()) == over


def test_n500_eps05_is_refused_by_its_plan_before_it_runs(monkeypatch):
    """n = 500, eps = 0.5 at an asymmetric prior (at Dir(1,1,1) the search by orbits is admitted): the plan (20.9 s
    without its near ties) was admitted and the run refused after its batched remap; now the plan refuses, and
    ``compare`` leaves the row out with the plan's reason."""
    from dpposterior.mechanisms import MECHANISMS

    def never(*args, **kw):
        raise AssertionError("the local errors ran")

    prior = np.array([1.0, 1.0, 1.5])  # asymmetric
    monkeypatch.setattr(search, "local_search_many", never)
    assert not MECHANISMS["lattice"].plan_errors(np.ones(3), 500, _spec(0.5)).refused()
    plan = MECHANISMS["lattice"].plan_errors(prior, 500, _spec(0.5))
    assert plan.route == "local search"
    with pytest.raises(SizeError, match="over the limit"):
        admit(plan)
    rows = {rp.variant.label: rp for rp in ranking.plan_compare(prior, 500, 0.5)}
    average = [label for label in rows if label.endswith("(average)") and rows[label].plan is not None
               and rows[label].plan.route == "local search"]
    assert average and all(rows[label].left_out for label in average)


def test_the_corner_route_from_eps_half_is_admitted_as_its_run_allows(monkeypatch):
    """Dir(1,1,1), n = 20, eps = 0.5, ``worst``: the corner route (not by orbits) runs its local errors within what
    the solve limit leaves (``_max_fallback``); the near-tie count of the local errors alone is not added to its plan
    (with it the plan was 45 s over and ``which-to-use`` lost its worst-case row at that cell)."""
    from dpposterior.mechanisms import MECHANISMS

    spec = ReleaseSpec.of("lattice", 0.5, objective="worst")
    plan = MECHANISMS["lattice"].plan_errors(ONES, 20, spec)
    assert plan.route == "corner remap" and not plan.refused()
    ties, one = L.local_tie_seconds(20, 3, 0.5)
    assert dict(plan.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"] + ties * one > 45.0  # counted, it would be refused
