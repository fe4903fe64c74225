"""The k = 4 searches by orbits priced by their clamp groups where every shift is exact (mechanisms/lattice.py:
``column_orbit_seconds(clamp=)``, ``release_search_counts``, ``_check_searches(prior=)``; lattice/column.py:
``clamp_key_bound``).

* a part with a count at least n projects as its clamp does (the lemma the bound rests on), and the bound is the
  region's distinct clamps, at least the kept ones the check counts;
* the runs measured (``benchmarks/clamp_price_k4.json``) sit under their price, and would not with the groups
  unpriced;
* the check reads the split only where every shift is exact; eps 0.5 ``average`` is admitted to n = 30 and refused
  in one line past it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.lattice.column import clamp_key_bound, reach_region, search_filter
from dpposterior.lattice.remap import project
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as lattice_module
from dpposterior.mechanisms.optimal import LATTICE

RUNS = json.loads((Path(__file__).parents[2] / "benchmarks" / "clamp_price_k4.json").read_text())["rows"]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_a_clamped_part_projects_as_its_clamp(n, data):
    k = 4
    v = np.array(data.draw(st.lists(st.integers(0, n), min_size=k, max_size=k)), dtype=np.int64)
    v[data.draw(st.integers(0, k - 1))] = n
    x = np.array([data.draw(st.integers(0, 40)) if v[i] == n else 0 for i in range(k)], dtype=np.int64)
    assert np.array_equal(project(v + x, n), project(v, n))


@pytest.mark.parametrize("eps, released", [(0.5, (3, 3, 3, 11)), (1.0, (2, 2, 2, 2)), (2.0, (0, 0, 1, 5)),
                                           (0.75, (1, 0, 0, 5))])
def test_the_bound_is_the_regions_clamps(eps, released):
    m = np.array(released)
    n, k = int(m.sum()), 4
    Dc, W = lattice_module._radius(k, eps, 1e-12), LATTICE.column_radius(n, k, eps)
    Z = reach_region(n, k, m, Dc, W)
    Y = np.unique(np.maximum(Z, 0), axis=0)
    clamps = np.minimum(Y[np.any(Y >= n, axis=1)], n)
    bound = clamp_key_bound(n, Dc, W, m)
    assert bound == len(np.unique(clamps, axis=0))
    _, first = np.unique(np.maximum(Z, 0), axis=0, return_index=True)
    reps = Z[first]
    R = np.maximum(reps[search_filter(np.ones(k), n, eps, m, reps, Dc)], 0)
    assert bound >= len(np.unique(np.minimum(R[np.any(R >= n, axis=1)], n), axis=0))


def test_the_bound_stops_past_its_vectors():
    """Its enumeration is held to CLAMP_KEY_VECTORS (then the plan prices the clamped parts as the others)."""
    assert clamp_key_bound(10**4, 20, 18, (2500, 2500, 2500, 2500)) == 0
    assert clamp_key_bound(10**4, 500, 400, (2500, 2500, 2500, 2500)) is None


EXACT = [r for r in RUNS if r["exact_shifts"]]


def test_the_runs_are_recorded():
    assert len(EXACT) >= 8 and any(r["clamped"] > 100_000 for r in EXACT)


@pytest.mark.parametrize("run", EXACT, ids=[r["cell"] for r in EXACT])
def test_each_run_sits_under_its_price(run):
    assert 0.3 <= run["run_over_price"] <= 0.85


def test_the_groups_unpriced_would_put_runs_over_their_price():
    """With the clamped parts and their groups left out of the price, some run is over it."""
    over = []
    for r in EXACT:
        eps, cs = r["cell"].split(":")
        n = sum(int(x) for x in cs.split(","))
        price = lattice_module.column_orbit_seconds(r["rest_parts"], r["rest_orbits"], n, 4, float(eps), r["rest_faces"])
        over.append(r["searches_cpu_s"] / price)
    assert max(over) > 1.0


def test_the_check_reads_the_split_only_at_exact_shifts(monkeypatch):
    got = []
    monkeypatch.setattr(lattice_module, "_solve_limit", lambda seconds, what: got.append(seconds))
    n = 8
    Z = np.array([(n + 3, -3, 0, 0), (n + 1, -1, 0, 0), (n, 0, 0, 0), (2, 2, 2, 2), (3, 2, 2, 1)], dtype=np.int64)
    for eps in (0.5, 0.6):
        lattice_module._check_searches(Z, n, 4, eps, orbits=True, prior=np.ones(4))
        lattice_module._check_searches(Z, n, 4, eps, orbits=True)
    split_05, whole_05, split_06, whole_06 = got
    assert split_05 < whole_05 and split_06 == whole_06
    assert split_05 == pytest.approx(lattice_module.column_orbit_seconds(2, 2, n, 4, 0.5, 1, clamp=(3, 1, 1)))


@pytest.mark.parametrize("n, admitted", [(30, True), (31, False)])
def test_eps_half_average_is_admitted_to_n_30(n, admitted):
    spec = ReleaseSpec.of("optimal", 0.5, objective="average")
    refusal = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), n).refused()
    assert (not refusal) == admitted
    assert admitted or "\n" not in refusal
