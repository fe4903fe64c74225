"""The grouped local search where every group's data sets are all of R(n) (``Dc >= n``: small eps), and the kept sets
of many rows at once (lattice.batched): the same outputs as the one-point search a draw runs, bit for bit.

Oracles: :func:`dpposterior.lattice.remap.local_bayes_search` (the release's definition, one point at a time) and
``reference.kept_set`` (the kept set by its definition, written apart from the library)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import batched
from dpposterior.lattice.noise import radius_for, window
from dpposterior.lattice.remap import local_bayes_search


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0), (0.5, 2.0, 1.0), (3.0, 0.3, 0.3)]), st.integers(2, 10),
       st.sampled_from([0.1, 0.15, 0.25]), st.sampled_from([0, 2**40]), st.integers(0, 2**31))
def test_the_search_with_whole_balls_is_the_one_point_search(a, n, eps, cache, seed):
    """k = 3, eps 0.1 to 0.25, n <= 10 (so ``Dc >= n``: one set of data sets for every group, the loss rows kept from
    group to group, the table route skipped): at points drawn on and off R(n) the batched search returns the one-point
    search's output at each, whether the loss rows are kept across all groups or started anew at each (cache 0)."""
    assert radius_for(3, eps, 1e-12) >= n
    rng = np.random.default_rng(seed)
    Z = window(n, 3, 4)
    Z = Z[rng.choice(len(Z), min(len(Z), 30), replace=False)]
    old = batched.LOSS_CACHE_BYTES
    try:
        batched.LOSS_CACHE_BYTES = cache
        got = batched.local_search_batch(a, n, eps, Z)
    finally:
        batched.LOSS_CACHE_BYTES = old
    want = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    assert np.array_equal(got, want)


def test_the_loss_rows_kept_across_groups_are_read_by_their_outputs():
    """Dir(1,1,1), n = 8, eps = 0.1, the whole window of radius 3 (many groups, each reading rows another wrote):
    the one-point search's outputs, and not every output the same (the check has something to compare)."""
    a = np.ones(3)
    Z = window(8, 3, 3)
    got = batched.local_search_batch(a, 8, 0.1, Z)
    want = np.stack([local_bayes_search(a, 8, 0.1, z) for z in Z])
    assert np.array_equal(got, want)
    assert len(np.unique(want, axis=0)) > 3


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 1e-300, 1e-7, 0.1, 0.25, 0.5, 1.0]), min_size=6, max_size=6),
                min_size=1, max_size=8),
       st.sampled_from([1e-6, 0.05, 0.3]))
def test_the_kept_sets_of_many_rows_are_each_rows_by_definition(rows, share):
    """:func:`_kept_rows` on a block of weights (ties, zeros and subnormal-sized weights included) is each row's kept
    set by its definition, at any share."""
    W = np.array(rows)
    old = batched.SEARCH_SHARE
    try:
        batched.SEARCH_SHARE = share
        got = batched._kept_rows(W)
    finally:
        batched.SEARCH_SHARE = old
    assert len(got) == len(W)
    for g, w in zip(got, W, strict=True):
        assert np.array_equal(g, ref.kept_set(w, share))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_kept_sets_of_search_like_weights(seed):
    """Weights like the search's (exponentials of integer distances: many exact ties), 200 rows of 3,000."""
    rng = np.random.default_rng(seed)
    W = np.exp(-0.1 * rng.integers(0, 200, (200, 3000))) * rng.choice([1.0, 0.5], (200, 3000))
    for g, w in zip(batched._kept_rows(W), W, strict=True):
        assert np.array_equal(g, ref.kept_set(w, batched.SEARCH_SHARE))


@pytest.mark.parametrize("n, eps", [(16, 3.0), (24, 2.0)])
def test_the_search_where_balls_are_not_whole_is_the_one_point_search(n, eps):
    """k = 3 where ``Dc < n`` (each group its own data sets, no rows kept across groups, the table route run): the
    window of radius 2, on and off R(n), is the one-point search's at every point."""
    assert radius_for(3, eps, 1e-12) < n
    a = np.array([1.0, 0.5, 2.0])
    Z = window(n, 3, 2)
    got = batched.local_search_batch(a, n, eps, Z)
    want = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    assert np.array_equal(got, want)


def _recorded_runs():
    """The new tree's runs recorded by ``benchmarks/noise_aware_k3_small_eps.py`` that ran within the default limits."""
    import json
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "noise_aware_k3_small_eps.json"
    runs = json.loads(path.read_text(encoding="utf-8"))["runs"]
    return [r for r in runs if r["tree"] == "new" and not r["raised"] and r["rc"] == 0]


def test_the_noise_aware_plans_at_small_eps_hold_their_runs():
    """``release --noise-aware`` (optimal, Dir(1,1,1), k = 3, eps 0.1 to 0.15) where the new tree ran it within the
    default limits: the local column's plan (seconds, from public inputs) is above the whole process's CPU seconds and
    at most 2.5x them where it admits the cell (a cell whose release next to a vertex is over the limit is refused up
    front in one line).  (Bytes: the whole process's peak growth is
    above the column's planned bytes in both trees at n = 50, eps = 0.15, the release's own arrays beside it.)"""
    from dpposterior.limits import Task
    from dpposterior.mechanisms import ReleaseSpec

    runs = _recorded_runs()
    assert any(r["epsilon"] == 0.1 and sum(int(x) for x in r["counts"].split(",")) == 300 for r in runs)
    for r in runs:
        n = sum(int(x) for x in r["counts"].split(","))
        spec = ReleaseSpec.of("optimal", r["epsilon"], objective=r["objective"])
        plan = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(3), n)
        assert r["cpu_seconds"] <= plan.seconds, (plan.seconds, r)
        if plan.refused():  # the plan counts every release since (test_noise_aware_k3_all_releases_h75na3): a release
            # next to a vertex keeps tens of thousands of points off R(n), so the cell is refused up front, one line
            assert "\n" not in plan.refused() and "over the limit" in plan.refused(), r
        else:
            assert plan.seconds <= 2.5 * max(1.0, r["cpu_seconds"]), (plan.seconds, r)
