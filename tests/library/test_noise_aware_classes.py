"""The local column by classes (docs/lattice.md, "The noise-aware posterior"; lattice/column.py).

* ``part_classes``: the window's points grouped by positive part, with their counts, against a brute-force
  enumeration of the window (the oracle imports nothing from the library);
* a column summed by classes (one point and its count a class) against the sum over every window point, for a remap
  that reads the positive part only (the oracle's own);
* ``clamp_groups``: every point of a group has its lead's one-point search output;
* ``search_terms`` read from R(n) where it lies inside the search's ball: the ball's rows, floats and order;
* the plan chooses the class route at k = 4, eps = 0.25, n = 10 and 100 only (no other target cell changes route),
  runs it at n = 10 within its plan, and refuses n = 100 in one line; the class route's posterior is the region
  route's where both run.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref


def _window_points(n, k, W):
    """Every z in Z^k with sum n and every z_i >= -W (brute force)."""
    for head in itertools.product(range(-W, n + (k - 1) * W + 1), repeat=k - 1):
        last = n - sum(head)
        if last >= -W:
            yield (*head, last)


def _positive(z):
    return tuple(max(x, 0) for x in z)


def _d(z, c):
    return sum(abs(x - y) for x, y in zip(z, c)) // 2


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 6), k=st.integers(3, 5), W=st.integers(0, 3))
def test_part_classes_are_the_windows_positive_parts_with_their_counts(n, k, W):
    from dpposterior.lattice.column import part_class_count, part_classes

    reps, counts = part_classes(n, k, W)
    want = Counter(_positive(z) for z in _window_points(n, k, W))
    assert len(reps) == len(want) == part_class_count(n, k, W)
    got = {}
    for z, m in zip(reps.tolist(), counts.tolist()):
        assert sum(z) == n and min(z) >= -W  # a point of the window
        got[_positive(z)] = m
    assert got == dict(want)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 5), k=st.integers(3, 4), W=st.integers(0, 3), eps=st.sampled_from([0.25, 0.7, 1.3]),
       salt=st.integers(0, 10**6))
def test_a_column_by_classes_is_the_sum_over_every_window_point(n, k, W, eps, salt):
    """The oracle: ``sum over window points z of T(y(z)) e^(-eps d(z, c))`` at every c of R(n), T an arbitrary
    0/1/fractional function of the positive part; the library: one term per class weighted by its count."""
    from dpposterior.lattice.column import column_from_points, part_classes
    from dpposterior.lattice.noise import log_normaliser

    def T(y):  # an arbitrary remap probability that reads the positive part only
        h = hash((salt, *y)) % 7
        return 0.0 if h < 3 else h / 7.0

    R = [c for c in itertools.product(range(n + 1), repeat=k) if sum(c) == n]
    pts = list(_window_points(n, k, W))
    want = [sum(T(_positive(z)) * math.exp(-eps * _d(z, c)) for z in pts) for c in R]
    reps, counts = part_classes(n, k, W)
    t = np.array([T(_positive(z)) for z in reps.tolist()]) * counts
    keep = t > 0
    got = np.exp(column_from_points(np.array(R), eps, reps[keep], t[keep]) + log_normaliser(k, eps))
    assert np.allclose(got, want, rtol=1e-11, atol=0.0)


@pytest.mark.parametrize("prior, eps", [((1.0, 1.0, 1.0, 1.0), 0.25), ((1.0, 1.0, 1.0, 1.0), 0.3),
                                        ((0.5, 1.0, 2.0, 3.5), 0.25), ((0.5, 1.0, 2.0, 3.5), 0.7)])
def test_every_point_of_a_clamp_group_has_its_leads_search_output(prior, eps):
    from dpposterior.lattice.column import clamp_groups, part_classes
    from dpposterior.lattice.noise import radius_for
    from dpposterior.lattice.remap import local_bayes_search

    a = np.array(prior)
    n, W = 5, 4
    Dc = radius_for(4, eps, 1e-12)
    Z, _ = part_classes(n, 4, W)
    lead, group = clamp_groups(a, n, eps, Z, Dc)
    assert len(lead) < len(Z)  # some points share a search
    out_lead = np.stack([local_bayes_search(a, n, eps, z) for z in Z[lead]])
    for j in range(len(Z)):
        if group[j] >= 0:
            assert np.array_equal(local_bayes_search(a, n, eps, Z[j]), out_lead[group[j]]), Z[j]
    if prior == (1.0, 1.0, 1.0, 1.0) and eps == 0.25:  # L = 0 and eps D exact: every point joins its group
        assert np.all(group >= 0)


@pytest.mark.parametrize("k, eps", [(3, 1.0), (3, 0.5), (4, 1.0), (4, 2.0)])
def test_search_terms_read_from_R_n_are_the_balls_rows_and_floats(k, eps):
    """Where n <= Dc the search's data sets are R(n) itself: the same rows, order and floats as the ball filtered."""
    from dpposterior.lattice.noise import radius_for
    from dpposterior.lattice.remap import _ball, _search_weights, project

    rng = np.random.default_rng(k)
    Dc = radius_for(k, eps, 1e-12)
    for _ in range(12):
        n = int(rng.integers(1, min(Dc, 30) + 1))
        a = rng.uniform(0.2, 5.0, k)
        z = rng.integers(-15, n + 15, k)
        z[-1] = n - z[:-1].sum()
        # then a second point at the same (a, n): R(n) and its sums read from the cache, its distances its own
        for shift in (0, 3):
            zs = z + shift * np.eye(k, dtype=np.int64)[0] - shift * np.eye(k, dtype=np.int64)[1]
            p = project(zs, n)[0]
            ball = _ball(k, Dc)
            ball = ball[np.all(ball >= -p[None, :], axis=1)]
            cs, lw = ref.search_weights(a, eps, zs, p, ball, Dc)
            got_cs, got_lw = _search_weights(a, eps, zs, Dc, p)
            assert np.array_equal(got_cs, cs) and np.array_equal(got_lw, lw)


def test_the_class_route_is_chosen_at_the_small_eps_cells_only():
    from dpposterior.lattice.noise import radius_for
    from dpposterior.mechanisms import lattice as lat

    for k, ns, epss in ((3, (15, 1000, 10**6), (0.1, 0.25, 1.0, 30.0)), (4, (10, 100, 10**4), (0.25, 1.0, 30.0))):
        for n in ns:
            for eps in epss:
                W = lat.LATTICE.column_radius(n, k, eps)
                chosen = lat.part_class_route(n, k, eps, W, radius_for(k, eps, 1e-12))
                assert chosen == (k == 4 and eps == 0.25 and n in (10, 100)), (k, n, eps)


def test_the_class_route_fits_at_n_10_and_refuses_n_100_in_one_line():
    from dpposterior import SizeError
    from dpposterior.noise_aware import plan_posterior

    for objective in ("average", "worst"):
        plan = plan_posterior("lattice", np.ones(4), 10, epsilon=0.25, objective=objective)
        assert plan.route == "local column" and plan.fits and plan.memory_bytes < 2 * 2**30
        with pytest.raises(SizeError) as exc:
            plan_posterior("optimal", np.ones(4), 100, epsilon=0.25, objective=objective)
        assert "\n" not in str(exc.value) and "noise-aware posterior" in str(exc.value)


def test_the_class_route_runs_its_groups_searches(monkeypatch):
    """At k = 4, n = 10, eps = 0.25 the column runs by classes: one one-point search a clamp group (4,136), not one a
    positive part (1,410,618), and its posterior has a finite weight and a small bound."""
    from dpposterior.lattice import remap
    from dpposterior.mechanisms import ReleaseSpec
    from dpposterior.mechanisms import lattice as lat

    calls = []
    real = remap.local_bayes_search

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(lat, "local_bayes_search", counted)
    a = np.ones(4)
    spec = ReleaseSpec.given("lattice", epsilon=0.25, objective="average")
    plan = lat.LATTICE.plan_posterior(a, 10, spec)
    C, logw, N, bound = lat.LATTICE.local_posterior(plan, a, 10, spec, np.array([2, 2, 2, 4]))
    assert len(calls) == 4136 and N == 286 and len(C) == 286
    assert np.isfinite(logw).any() and bound < 1e-6


def test_the_class_route_is_the_region_routes_column(monkeypatch):
    """Where both run (k = 4, n = 10, eps = 1): the class route's posterior weights are the region route's."""
    from dpposterior.mechanisms import ReleaseSpec
    from dpposterior.mechanisms import lattice as lat

    a = np.ones(4)
    spec = ReleaseSpec.given("lattice", epsilon=1.0, objective="average")
    m = np.array([2, 2, 2, 4])
    plan = lat.LATTICE.plan_posterior(a, 10, spec)
    C0, w0, N0, b0 = lat.LATTICE.local_posterior(plan, a, 10, spec, m)
    monkeypatch.setattr(lat, "PART_CLASS_MIN_BYTES", 0.0)
    plan = lat.LATTICE.plan_posterior(a, 10, spec)
    C1, w1, N1, b1 = lat.LATTICE.local_posterior(plan, a, 10, spec, m)
    assert np.array_equal(C0, C1) and N0 == N1
    assert np.allclose(w1, w0, rtol=1e-12, atol=0.0) and math.isclose(b0, b1, rel_tol=1e-9)


def test_the_class_routes_plan_holds_its_recorded_runs():
    """The plan at k = 4, n = 10, eps = 0.25 against the runs in ``benchmarks/noise_aware_k4_classes.json`` (the
    whole call, release included): at or above each run's CPU s and peak, within 2.5x."""
    import json
    import pathlib

    from dpposterior.noise_aware import plan_posterior

    root = pathlib.Path(__file__).resolve().parents[2]
    record = json.loads((root / "benchmarks" / "noise_aware_k4_classes.json").read_text(encoding="utf-8"))
    runs = [row for row in record["rows"] if row["n"] == 10 and row["status"] == 0]
    assert len(runs) == 2
    for row in runs:
        plan = plan_posterior("lattice", np.ones(4), 10, epsilon=0.25, objective=row["objective"])
        assert row["cpu_s"] <= plan.seconds <= 2.5 * row["cpu_s"]
        peak = row["peak_mb_max_so_far"] * 2**20
        assert peak <= plan.memory_bytes <= 2.5 * peak


@pytest.mark.parametrize("prior, eps, exact", [((1, 1, 1, 1), 0.25, True), ((1, 1, 1, 1), 0.3, True),
                                               ((0.5, 1, 2, 3), 0.25, False), ((0.5, 1, 2, 3), 0.3, False)])
def test_the_plan_counts_a_search_a_part_where_the_shifts_are_not_exact(prior, eps, exact):
    """Where the groups' float check cannot pass for every part (public prior and the working eps the release runs
    at), the plan counts a search a part and refuses in one line before anything runs; where it can, every part joins
    a group (measured in ``test_every_point_of_a_clamp_group_has_its_leads_search_output`` and the route's own run).
    At Dir(1,1,1,1) every working eps has exact shifts (eps 0.3 runs at 0.29999924, a multiple of 2^-20); eps 0.3
    itself has not."""
    from dpposterior import SizeError
    from dpposterior.mechanisms import lattice as lat
    from dpposterior.noise_aware import plan_posterior

    assert not lat.exact_shifts(np.ones(4), 0.3)
    assert lat.exact_shifts(np.array(prior, dtype=float), lat.working_epsilon(eps, 4)) == exact
    if exact:
        assert plan_posterior("lattice", np.array(prior, dtype=float), 10, epsilon=eps, objective="average").fits
    else:
        with pytest.raises(SizeError) as exc:
            plan_posterior("optimal", np.array(prior, dtype=float), 10, epsilon=eps, objective="average")
        assert "\n" not in str(exc.value)
