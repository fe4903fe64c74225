"""The near ties of the lattice release's exact errors by the local search (k = 3, small eps): what the plan admits
runs (the one-point searches it allows hold every tie the batched search leaves), and what would not run is refused
by the plan, before any work (:func:`dpposterior.mechanisms.lattice.local_tie_seconds`)."""

from __future__ import annotations

import numpy as np
import pytest

import dpposterior.lattice.search as search
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms.lattice import LATTICE, LOCAL_ERROR_TOL, _radius


def _ties(monkeypatch, n, eps):
    """The window's points the batched search leaves undecided (the one-point searches themselves not run)."""
    from dpposterior.lattice.noise import window

    got = {}

    def count(a, n, eps, Z, out, done, max_fallback, stats, searched):
        got["ties"] = int((~done).sum())
        return out

    monkeypatch.setattr(search, "_search_undecided", count)
    search.local_search_many(np.ones(3), n, eps, window(n, 3, _radius(3, eps, LOCAL_ERROR_TOL)))
    return got["ties"]


@pytest.mark.parametrize("n, eps, objective", [(15, 0.25, "worst"), (30, 0.25, "average"), (50, 0.5, "average")])
def test_the_plan_admits_every_tie_of_what_it_runs(monkeypatch, n, eps, objective):
    """Where the plan of the local errors fits, the one-point searches it allows are at least the ties the run
    meets (measured 15,468 at n = 15 and 13,731 at n = 30, eps = 0.25; before, ~1,470 were allowed: the run refused
    after its batched part) and at least the ties it planned."""
    spec = ReleaseSpec.given("lattice", epsilon=eps, objective=objective)
    plan = LATTICE.plan_errors(np.ones(3), n, spec)
    assert plan.route == "local search" and plan.fits
    allowed = LATTICE._max_fallback(n, 3, spec)
    assert _ties(monkeypatch, n, eps) <= allowed
    from dpposterior.mechanisms.lattice import local_tie_seconds

    assert local_tie_seconds(n, 3, eps)[0] <= allowed


def test_a_plan_over_its_ties_is_refused_before_running():
    """k = 3, n = 300, eps = 0.25: ~23,000 ties planned, each a point of the batched search (~5.5 ms at n = 300):
    refused in one line by the plan (154 s planned; 107 CPU s run).  At n = 100 the same ties (~14,000, 13,410 met)
    are planned at that search's price, not the one-point search's (~5.6 ms each, 83 s planned against 13.6 CPU s
    run): admitted, with every tie the run meets allowed (before the batched search took them, it was planned at ~2 s
    and refused at run time with 13,410 ties against ~1,450 allowed)."""
    spec = ReleaseSpec.given("lattice", epsilon=0.25, objective="average")
    plan = LATTICE.plan_errors(np.ones(3), 300, spec)
    assert plan.route == "local search" and not plan.fits
    assert "\n" not in plan.refused()
    plan = LATTICE.plan_errors(np.ones(3), 100, spec)
    assert plan.route == "local search" and plan.fits
    assert LATTICE._max_fallback(100, 3, spec) >= 13_410
