"""The exact descent filter of the noise-aware column (``lattice.batched.descent_filter_exact``) and the batched
search without its table (``local_search_batch(..., tables=False)``): each point the filter drops has a search whose
output is not the release (the search itself, one point at a time, is the definition), the filter drops most points
that do not map to the release next to a face or a vertex, and the column is the same floats with and without it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.lattice.batched import descent_filter_exact, local_search_batch
from dpposterior.lattice.remap import local_bayes_search, project
from dpposterior.mechanisms import ReleaseSpec

from .test_noise_aware_column import _force_local_column  # draws and columns by the local search at every n


def _box(n, k, lo, hi):
    """Every z of sum n with every coordinate in [lo, hi] (lexicographic)."""
    axes = np.meshgrid(*([np.arange(lo, hi + 1)] * (k - 1)), indexing="ij")
    head = np.stack([x.ravel() for x in axes], axis=1)
    z = np.concatenate([head, n - head.sum(axis=1, keepdims=True)], axis=1)
    return z[(z[:, -1] >= lo) & (z[:, -1] <= hi)]


@settings(max_examples=40, deadline=None)
@given(k=st.sampled_from([3, 4]), n=st.sampled_from([3, 20, 200, 10**5]), eps=st.sampled_from([0.5, 1.0, 2.0, 4.0]),
       prior=st.sampled_from([0.5, 1.0, 3.0]), data=st.data())
def test_the_filter_keeps_every_point_at_its_searchs_output(k, n, eps, prior, data):
    """The search's output at z (in R(n), on its faces, outside it), taken as the release: the filter keeps z."""
    if k == 4 and eps < 1:
        return  # one search at k = 4, eps = 0.5 takes seconds
    head = [data.draw(st.integers(-6, min(n, 30) + 6)) for _ in range(k - 1)]
    z = np.array([*head, n - sum(head)])
    if z.min() < -8:
        return
    a = np.full(k, prior)
    a[0] = 1.0
    r = local_bayes_search(a, n, eps, z)
    assert descent_filter_exact(a, n, eps, r, z[None, :])[0]


@pytest.mark.parametrize("n, eps, prior, releases", [
    (30, 1.0, 1.0, [(0, 15, 15), (1, 1, 28), (2, 14, 14), (10, 10, 10)]),
    (20, 0.5, 3.0, [(0, 0, 20), (1, 9, 10), (3, 3, 14)]),
    (60, 2.0, 0.5, [(0, 30, 30), (1, 1, 58), (20, 20, 20)]),
])
def test_the_filter_keeps_what_maps_and_drops_most_of_the_rest(n, eps, prior, releases):
    """Every point of a box around R(n) (k = 3, off R(n) down to -6), each release next to a face, a vertex or at the
    centre: every z whose search outputs the release is kept, and of the z with ``project(z) != r`` that do not map
    to it at least 80 % are dropped (the test then has a filter to fail)."""
    k, a = 3, np.array([1.0, prior, prior])
    Z = _box(n, k, -6, n + 6)
    out = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    P = project(Z, n)
    for r in releases:
        r = np.array(r)
        keep = descent_filter_exact(a, n, eps, r, Z)
        hit = np.all(out == r[None, :], axis=1)
        assert keep[hit].all()
        other = ~hit & ~np.all(P == r[None, :], axis=1)
        assert (~keep[other]).mean() >= 0.8, (tuple(r), (~keep[other]).mean())


def test_the_search_without_its_table_is_the_one_point_search():
    """``tables=False`` sends every point to the grouped route: the one-point search's output at each point next to a
    face and a vertex, in R(n) and off it, at a large n (where the table does not fit) and a small one."""
    rng = np.random.default_rng(7)
    for n, eps, m in [(10**6, 1.0, (2, 499999, 499999)), (40, 1.0, (1, 1, 38)), (10**4, 0.5, (10, 10, 9980))]:
        m = np.array(m)
        U = rng.integers(-25, 26, (200, 2))
        Z = np.concatenate([m[:2] + U, (n - (m[:2] + U).sum(axis=1))[:, None]], axis=1)
        Z = Z[Z.min(axis=1) >= -25]
        a = np.array([1.0, 2.0, 1.0])
        got = local_search_batch(a, n, eps, Z, tables=False)
        want = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
        assert np.array_equal(got, want)


@pytest.mark.parametrize("k, n, eps, m, objective", [(3, 40, 1.0, (1, 1, 38), "average"),
                                                     (3, 30, 1.0, (0, 15, 15), "average"),
                                                     (3, 60, 0.5, (2, 29, 29), "average"),
                                                     (3, 30, 3.0, (28, 1, 1), "worst"),
                                                     (3, 40, 1.0, (3, 19, 18), "worst"),
                                                     (3, 30, 0.5, (0, 0, 30), "worst")])
def test_the_column_is_the_same_with_and_without_the_filter(monkeypatch, k, n, eps, m, objective):
    """The local column at releases next to a face or a vertex with the exact descent filter and with it keeping
    every point: the same data sets, the same floats, the same bound (the filter drops only points whose search does
    not output m; the order of the rest is kept)."""
    import dpposterior.lattice.batched as batched

    lat = _force_local_column(monkeypatch)
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1e5")
    a = np.array([1.0, 2.0, 1.0, 1.0][:k])
    spec = ReleaseSpec.given("lattice", epsilon=eps, objective=objective)
    plan = lat.LATTICE.plan_posterior(a, n, spec)
    assert plan.route == "local column"
    calls = []
    real = batched.descent_filter_exact

    def counted(*args):
        keep = real(*args)
        calls.append(int((~keep).sum()))
        return keep

    monkeypatch.setattr(batched, "descent_filter_exact", counted)
    got = lat.LATTICE.local_posterior(plan, a, n, spec, np.array(m))
    monkeypatch.setattr(batched, "descent_filter_exact", lambda prior, n, eps, r, Z: np.ones(len(Z), bool))
    want = lat.LATTICE.local_posterior(plan, a, n, spec, np.array(m))
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]) and got[2:] == want[2:]
    assert calls and sum(calls) > 0  # the filter ran and dropped points


def test_the_column_at_k4_does_not_run_the_filter(monkeypatch):
    """At k = 4 the column keeps every point without running the filter (its ball outweighs the searches it would
    save); the route is otherwise the same."""
    import dpposterior.lattice.batched as batched

    lat = _force_local_column(monkeypatch)
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1e5")
    monkeypatch.setattr(batched, "descent_filter_exact", lambda *args: pytest.fail("run at k = 4"))
    a = np.array([1.0, 2.0, 1.0, 1.0])
    spec = ReleaseSpec.given("lattice", epsilon=2.0, objective="average")
    plan = lat.LATTICE.plan_posterior(a, 20, spec)
    assert plan.route == "local column"
    assert len(lat.LATTICE.local_posterior(plan, a, 20, spec, np.array((1, 1, 9, 9)))[0])


@pytest.mark.parametrize("n, eps, m", [(1000, 0.5, (3, 499, 498)), (10**6, 1.0, (2, 499999, 499999)),
                                       (200, 1.0, (0, 0, 200))])
def test_the_tabled_losses_decide_as_the_evaluated_ones(monkeypatch, n, eps, m):
    """The filter's losses gathered from its tables of J and evaluated per search (``_loss_rows``, its table past
    :data:`EXACT_DESCENT_TABLE_ENTRIES`): the same decisions at every point of a box around a release next to a face
    or a vertex, off R(n) included."""
    import dpposterior.lattice.batched as batched

    m = np.array(m)
    k = 3
    U = _box(0, k, -12, 12)
    Z = m[None, :] + U
    Z = Z[Z.min(axis=1) >= -12]
    a = np.array([1.0, 2.0, 1.0])
    got = descent_filter_exact(a, n, eps, m, Z)
    monkeypatch.setattr(batched, "EXACT_DESCENT_TABLE_ENTRIES", 0)
    want = descent_filter_exact(a, n, eps, m, Z)
    assert np.array_equal(got, want) and (~got).sum() > len(Z) // 2
