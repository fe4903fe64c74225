"""The local search of the lattice release at many points at once, and the exact errors it gives (docs/lattice.md).

The one-point search (:func:`dpposterior.lattice.remap.local_bayes_search`, what a draw computes) is the oracle of
the batched one: the same output at every point, ties included.  The errors route is checked against the pmf at one
data set of the same release (:meth:`LatticeMechanism.pmf_at`, its own bracket).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpposterior.mechanisms.lattice as lattice_entry
from dpposterior import SizeError
from dpposterior.lattice.noise import window
from dpposterior.lattice.remap import local_bayes_search
from dpposterior.lattice.search import local_search_many
from dpposterior.limits import Task
from dpposterior.mechanisms import LATTICE, ReleaseSpec
from dpposterior.models import candidate_rank, candidates


def _one_by_one(prior, n, eps, Z):
    return np.stack([local_bayes_search(np.asarray(prior, float), n, eps, z) for z in Z])


@pytest.mark.parametrize("prior, n, eps, W", [((1, 1, 1), 9, 1.0, 5),  # symmetric: exact ties between outputs
                                             ((2, 0.5, 1), 12, 1.0, 4),
                                             ((0.5, 0.5, 0.5), 7, 2.0, 4),
                                             ((3, 1, 0.2), 10, 0.5, 3)])
def test_batched_search_is_the_one_point_search_at_every_window_point(prior, n, eps, W):
    Z = window(n, 3, W)
    stats = {}
    got = local_search_many(prior, n, eps, Z, stats=stats)
    assert np.array_equal(got, _one_by_one(prior, n, eps, Z))
    assert stats["decided"] + stats["fallback"] == len(Z)


@pytest.mark.parametrize("block", [1, 7])
def test_the_kernel_rows_of_the_offsets_in_blocks_give_the_one_point_search(monkeypatch, block):
    """Off R(n) the kernel rows of the offsets are computed a block of offsets at a time (memory: at n = 10, eps =
    0.25 all of them at once took ~13 GB); with blocks of one offset, or of a few, the outputs are the one-point
    search's at every window point, most of them off R(n)."""
    import dpposterior.lattice.search as search

    near = len(search._ball(3, int(min(search.radius_for(3, 1.0, search.NEAR_TAIL),
                                       search.radius_for(3, 1.0, 1e-12) - 2))))
    monkeypatch.setattr(search, "BLOCK_ENTRIES", block * near)
    Z = window(4, 3, 6)
    assert np.array_equal(local_search_many((1, 2, 0.5), 4, 1.0, Z), _one_by_one((1, 2, 0.5), 4, 1.0, Z))


def test_most_points_are_decided_by_the_batched_bounds():
    """Dir(1,1,1), n = 40, eps = 1: the bounds decide the search at (nearly) every point, and equal outputs."""
    Z = window(40, 3, 4)
    stats = {}
    got = local_search_many((1, 1, 1), 40, 1.0, Z, stats=stats)
    assert stats["decided"] >= 0.95 * len(Z)
    picks = np.random.default_rng(5).choice(len(Z), 60, replace=False)
    assert np.array_equal(got[picks], _one_by_one((1, 1, 1), 40, 1.0, Z[picks]))


@settings(max_examples=12, deadline=None)
@given(prior=st.lists(st.sampled_from([0.3, 0.5, 1.0, 2.0, 5.0]), min_size=3, max_size=3),
       n=st.integers(3, 25), eps=st.sampled_from([0.7, 1.0, 1.5, 3.0]), seed=st.integers(0, 2**31))
def test_batched_search_equals_the_one_point_search_hypothesis(prior, n, eps, seed):
    Z = window(n, 3, 6)
    picks = np.random.default_rng(seed).choice(len(Z), min(len(Z), 25), replace=False)
    got = local_search_many(prior, n, eps, Z[picks])
    assert np.array_equal(got, _one_by_one(prior, n, eps, Z[picks]))


def _with_orbits(Z):
    """The rows of Z with every permutation of their categories (whole orbits, so that one search serves six)."""
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    return np.unique(np.concatenate([Z[:, list(p)] for p in perms]), axis=0)


@settings(max_examples=15, deadline=None)
@given(a=st.sampled_from([0.3, 0.5, 1.0, 2.0, 5.0]), n=st.integers(3, 30), eps=st.sampled_from([0.5, 0.7, 1.0, 2.0]),
       seed=st.integers(0, 2**31))
def test_one_search_per_orbit_is_the_one_point_search_hypothesis(a, n, eps, seed):
    """At a symmetric prior the points of R(n) are searched one per orbit and the output moved by the permutation:
    at every point, orbits whole (on R(n), off it, on the mirror lines), the one-point search's output."""
    Z = window(n, 3, 5)
    picks = np.random.default_rng(seed).choice(len(Z), min(len(Z), 8), replace=False)
    Zo = _with_orbits(Z[picks])
    stats = {}
    got = local_search_many((a, a, a), n, eps, Zo, orbits=True, stats=stats)
    assert np.array_equal(got, _one_by_one((a, a, a), n, eps, Zo))
    on = np.all(Zo >= 0, axis=1)
    orbits = len(np.unique(np.sort(Zo[on], axis=1), axis=0))
    assert stats["searched"] <= len(Zo) - int(on.sum()) + orbits  # at most one search per orbit of R(n)
    assert stats["decided"] + stats["fallback"] == len(Zo)


def test_one_search_per_orbit_searches_a_sixth_of_r_n():
    """Dir(1,1,1), n = 60, eps = 1, the whole window: the same outputs with and without orbits, with about a sixth
    of the points searched, and the one-point search's output at sampled points."""
    Z = window(60, 3, 6)
    with_orbits, without = {}, {}
    got = local_search_many((1, 1, 1), 60, 1.0, Z, stats=with_orbits)
    assert np.array_equal(got, local_search_many((1, 1, 1), 60, 1.0, Z, orbits=False, stats=without))
    inside = int(np.all(Z >= 0, axis=1).sum())
    assert without["searched"] == len(Z)
    assert with_orbits["searched"] < 0.2 * len(Z)
    picks = np.random.default_rng(3).choice(len(Z), 40, replace=False)
    assert np.array_equal(got[picks], _one_by_one((1, 1, 1), 60, 1.0, Z[picks]))


@pytest.mark.parametrize("n, eps", [(1, 1.0), (5, 0.7)])
def test_one_search_per_orbit_deep_off_r_n(n, eps):
    """Deep off R(n) ``project`` breaks ties among equal counts by index, so some z are not images of their
    representative's projection (e.g. (-12, 7, 6) at n = 1): those are searched each, and every output is the
    one-point search's."""
    from dpposterior.lattice.remap import project
    from dpposterior.lattice.search import canonical_order

    Z = window(n, 3, 12)
    u, perm = canonical_order(Z)
    assert not np.all(project(u, n) == np.take_along_axis(project(Z, n), perm, axis=1))
    assert np.array_equal(local_search_many((1, 1, 1), n, eps, Z), _one_by_one((1, 1, 1), n, eps, Z))


def test_canonical_order_is_a_permutation_onto_the_box():
    from dpposterior.lattice.search import canonical_order

    Z = np.random.default_rng(1).integers(-3, 50, size=(500, 3))
    Z[:100, 1] = Z[:100, 0]  # ties
    u, perm = canonical_order(Z)
    assert np.array_equal(np.sort(perm, axis=1), np.tile([0, 1, 2], (len(Z), 1)))
    assert np.array_equal(u, np.take_along_axis(Z, perm, axis=1))
    assert np.all((u[:, 1] <= u[:, 0]) & (u[:, 0] <= u[:, 2]))


@settings(max_examples=6, deadline=None)
@given(a=st.sampled_from([0.5, 1.0, 3.0]), n=st.integers(520, 700), eps=st.sampled_from([0.5, 1.0]),
       seed=st.integers(0, 2**31))
def test_the_band_table_gives_the_one_point_search_bit_for_bit(a, n, eps, seed):
    """Past the whole Jensen table (n > 511) the searches a batch hands on read their losses from a band table:
    the same floats as evaluated per search, so the same outputs (points next to a face and a vertex, where the
    near ties are)."""
    from dpposterior.lattice.remap import _local_hellinger
    from dpposterior.lattice.search import fallback_band

    prior = np.array([a, 2.0, 0.7])
    band = fallback_band(n, eps)
    assert band > 0
    rng = np.random.default_rng(seed)
    p = np.array([int(rng.integers(0, 40)), 0, 0])
    p[1] = int(rng.integers(0, n - p[0] + 1))
    p[2] = n - p[0] - p[1]
    cs = p[None, :] + np.array([[x, y, -x - y] for x in range(-30, 31, 3) for y in range(-30, 31, 5)])
    cs = cs[np.all(cs >= 0, axis=1)]
    rs = p[None, :] + np.array([[0, 0, 0], [1, -1, 0], [-1, 0, 1], [0, 1, -1]])
    rs = rs[np.all(rs >= 0, axis=1)]
    assert np.array_equal(_local_hellinger(prior, cs, rs, n, band), _local_hellinger(prior, cs, rs, n))
    z = p + np.array([int(rng.integers(-3, 4)), 0, 0])
    z[1] = n - z[0] - z[2]
    assert np.array_equal(local_bayes_search(prior, n, eps, z, band=band), local_bayes_search(prior, n, eps, z))


def test_points_handed_on_past_their_limit_are_refused_in_one_line():
    Z = window(9, 3, 5)  # symmetric prior: exact ties, handed to the one-point search
    with pytest.raises(SizeError, match=r"^the lattice release's local remap on the window hands more than 0 points"):
        local_search_many((1, 1, 1), 9, 1.0, Z, max_fallback=0)


def test_points_past_the_limit_are_refused_before_any_one_point_search(monkeypatch):
    """The points to hand on are known after the batched pass: past the limit the refusal comes then, not after
    ``limit`` one-point searches that end in it."""
    import dpposterior.lattice.remap as remap
    import dpposterior.lattice.search as search

    calls = []
    monkeypatch.setattr(remap, "local_bayes_search", lambda *args, **kw: calls.append(args) or args[3])
    monkeypatch.setattr(search, "REST_BATCH_MAX_N", 0)  # the one-point route for the undecided points
    Z = window(9, 3, 5)
    stats = {}
    local_search_many((1, 1, 1), 9, 1.0, Z, stats=stats)
    assert stats["fallback"] >= 2 and len(calls) == stats["fallback"]
    calls.clear()
    with pytest.raises(SizeError, match=r"hands more than 1 points"):
        local_search_many((1, 1, 1), 9, 1.0, Z, max_fallback=1)
    assert calls == []


def test_local_errors_match_the_pmf_at_one_data_set(monkeypatch):
    """Where a draw runs the local search (forced here at n = 10), E(c) from the batched remap and the offset sum
    equals sum_r P(r | c) L(c, r) from the pmf at one data set (both brackets: 1e-5)."""
    from dpposterior.distances.hellinger import hellinger

    monkeypatch.setattr(lattice_entry, "DENSE_DRAW_SECONDS", 0.0)
    prior, n, spec = np.array([2.0, 0.5, 1.0]), 10, ReleaseSpec.of("lattice", 1.0, objective="average")
    assert not LATTICE.uses_window(n, 3, spec)
    plan = LATTICE.plan(Task.ERRORS, spec, prior, n)
    assert plan.route == "local search"
    br = LATTICE.direct_errors(plan, prior, n, spec)
    assert br.tail <= 1e-5
    R = candidates(n, 3)
    for c in [(0, 0, 10), (3, 3, 4)]:
        p, tail = LATTICE.pmf_at(prior, c, spec, tol=1e-5)
        e = float(p @ hellinger(prior + np.array(c), prior + R))
        low = br.low[int(candidate_rank(np.array(c)))]
        assert low - 1e-12 <= e + tail and e <= low + br.tail + 1e-12


def test_accuracy_reports_the_local_release_with_its_bracket(monkeypatch):
    """The accuracy command's route: a bracket (truncation_bound) instead of a refusal."""
    import dpposterior as dp

    monkeypatch.setattr(lattice_entry, "DENSE_DRAW_SECONDS", 0.0)
    e = dp.expected_errors("lattice", (1, 1, 1), 30, epsilon=1.0, objective="average")
    assert 0 < e.tail <= 1e-5 and 0 < e.average <= e.worst <= 1
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "0.001")
    with pytest.raises(SizeError, match=r"expected errors of lattice \(average\) for k=3, n=30, eps=1: would take "
                                        r".* \(local search: .* over the limit of 0.001 seconds .*"
                                        r"DPPOSTERIOR_MAX_SOLVE_SECONDS to raise it\)$"):
        dp.expected_errors("lattice", (1, 1, 1), 30, epsilon=1.0, objective="average")


def test_window_errors_are_the_offset_sum_of_scale():
    """The table-read sum gives the same floats as lattice_errors with the same remap as a rule."""
    from dpposterior.lattice.scale import lattice_errors
    from dpposterior.lattice.search import window_errors

    prior, n, eps, W = (2, 0.5, 1), 14, 1.0, 15
    Z = window(n, 3, W)
    out = local_search_many(prior, n, eps, Z)
    table = candidate_rank(out)
    R = candidates(n, 3)
    ref = lattice_errors(prior, n, eps, lambda z: R[table[candidate_rank(z + W)]], 1e-5)
    got = window_errors(prior, n, eps, out, W)
    assert np.array_equal(got.low, ref.low) and got.tail == ref.tail and got.offsets == ref.offsets


def _correlate_oracle(pi, kernel, p, Dc):
    """``scipy.ndimage.correlate(pi, kernel, mode="constant", cval=0.0)`` at ``p``, written out: start at 0.0, add
    ``pi(p + v) kernel(v)`` one tap at a time in row-major order, a tap kept where ``|kernel(v)| > DBL_EPSILON``, 0
    off the grid."""
    import sys

    acc = 0.0
    for i in range(kernel.shape[0]):
        for j in range(kernel.shape[1]):
            w = float(kernel[i, j])
            if abs(w) <= sys.float_info.epsilon:
                continue
            x, y = p[0] + i - Dc, p[1] + j - Dc
            acc += (float(pi[x, y]) if 0 <= x < pi.shape[0] and 0 <= y < pi.shape[1] else 0.0) * w
    return acc


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 14), Dc=st.integers(0, 6), eps=st.sampled_from([0.05, 0.5, 2.0, 40.0]),
       seed=st.integers(0, 2**16))
def test_the_gathered_correlation_is_ndimages_sum_bit_for_bit(n, Dc, eps, seed):
    """The totals' correlation at the points (``_correlate_at``: one tap at a time over the points, without ndimage's (taps)^2 border table)
    gives the same floats as the sequential sum ``ndimage.correlate`` computes, and as ndimage itself."""
    from scipy import ndimage

    from dpposterior.lattice.search import _correlate_at

    rng = np.random.default_rng(seed)
    c1, c2 = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = n - c1 - c2 >= 0
    pi = np.where(ok, rng.random(ok.shape) * np.exp(rng.normal(0.0, 20.0, ok.shape)), 0.0)
    v = np.arange(-Dc, Dc + 1)
    v1, v2 = np.meshgrid(v, v, indexing="ij")
    d = (np.abs(v1) + np.abs(v2) + np.abs(v1 + v2)) // 2
    kernel = np.where(d <= Dc, np.exp(-eps * d), 0.0)
    pts = np.column_stack([c1[ok], c2[ok], (n - c1 - c2)[ok]])
    pts = pts[rng.random(len(pts)) < 0.6]
    got = _correlate_at(pi, kernel, pts, Dc)
    assert [float(x) for x in got] == [_correlate_oracle(pi, kernel, p, Dc) for p in pts]
    assert np.array_equal(got, ndimage.correlate(pi, kernel, mode="constant", cval=0.0)[pts[:, 0], pts[:, 1]])


@pytest.mark.parametrize("prior, n, eps", [((1, 1, 1), 9, 1.0), ((0.5, 2.0, 1.0), 12, 0.5), ((1, 1, 1), 20, 0.25)])
def test_the_undecided_points_go_to_the_batched_search_with_the_same_outputs(monkeypatch, prior, n, eps):
    """Up to REST_BATCH_MAX_N the points the bounds leave undecided are searched by the batched local search, and
    the outputs are the one-point route's at every point (it fails if the batched route is not taken, or if it
    returns another output anywhere)."""
    import dpposterior.lattice.batched as batched
    import dpposterior.lattice.search as search

    Z = window(n, 3, 5 if n < 20 else 4)
    stats, seen = {}, []
    real = batched.local_search_batch
    monkeypatch.setattr(batched, "local_search_batch",
                        lambda *args, **kw: seen.append(len(args[3])) or real(*args, **kw))
    got = local_search_many(prior, n, eps, Z, orbits=False, stats=stats)
    assert stats["fallback"] > 0 and seen == [stats["fallback"]]
    monkeypatch.setattr(search, "REST_BATCH_MAX_N", 0)
    assert np.array_equal(local_search_many(prior, n, eps, Z, orbits=False), got)


def _undecided_one_at_a_time(monkeypatch):
    """The route past REST_BATCH_MAX_N (the undecided points searched one at a time), forced at a small n."""
    import dpposterior.lattice.search as search

    monkeypatch.setattr(search, "REST_BATCH_MAX_N", 0)
    return search


@pytest.mark.parametrize("n, eps, W", [(20, 0.5, 8), (12, 0.5, 10), (40, 0.5, 6)])
def test_one_search_certifies_an_undecided_orbit(monkeypatch, n, eps, W):
    """Dir(1,1,1), where the undecided points go one at a time: an undecided representative is searched once and
    its output moved to its orbit where its step margins certify it (search module docstring, "Orbits, one
    search"); the outputs are the one-point search's at every window point.  With the margin taken to 0 (a mutant
    that moves every representative's output to its orbit) a tie of the flat strips next to a face is broken the
    other way at some point (the next test): the margin is what makes it exact."""
    search = _undecided_one_at_a_time(monkeypatch)
    Z = window(n, 3, W)
    stats = {}
    got = local_search_many((1, 1, 1), n, eps, Z, stats=stats)
    want = _one_by_one((1, 1, 1), n, eps, Z)
    assert np.array_equal(got, want)
    assert stats["orbit_searched"] > 0 and stats["decided"] + stats["fallback"] - stats["orbit_searched"] <= len(Z)


def test_without_the_margin_some_tie_is_broken_the_other_way(monkeypatch):
    """The mutant of the test above (the margin taken to 0: every representative's output moved to its orbit) differs
    from the one-point search at one of its cells at least.  Which cell turns on ties in the last bits of the risks,
    which differ by host (not by numpy or scipy version; likely numpy's SIMD exp and log): (40, 0.5, 6) breaks on the
    hosts before, not on an AVX2-only one (AMD EPYC, no AVX-512, 2026-12-04), where (20, 0.5, 8) and (12, 0.5, 10)
    do."""
    search = _undecided_one_at_a_time(monkeypatch)
    monkeypatch.setattr(search, "orbit_threshold", lambda a, n, eps, U: np.zeros(len(U)))
    differs = []
    for n, eps, W in ((20, 0.5, 8), (12, 0.5, 10), (40, 0.5, 6)):
        Z = window(n, 3, W)
        differs.append(not np.array_equal(local_search_many((1, 1, 1), n, eps, Z), _one_by_one((1, 1, 1), n, eps, Z)))
    assert any(differs)


@settings(max_examples=12, deadline=None)
@given(a=st.sampled_from([0.3, 0.5, 1.0, 2.0, 5.0]), n=st.integers(3, 30), eps=st.sampled_from([0.4, 0.5, 0.7, 1.0]),
       seed=st.integers(0, 2**31))
def test_one_search_per_undecided_orbit_is_the_one_point_search_hypothesis(a, n, eps, seed):
    """The same at any symmetric prior, orbits whole (on R(n), off it, on the mirror lines)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _undecided_one_at_a_time(monkeypatch)
        Z = window(n, 3, 6)
        picks = np.random.default_rng(seed).choice(len(Z), min(len(Z), 10), replace=False)
        Zo = _with_orbits(Z[picks])
        assert np.array_equal(local_search_many((a, a, a), n, eps, Zo), _one_by_one((a, a, a), n, eps, Zo))


def test_the_step_margin_is_recorded_without_changing_the_output():
    """``local_bayes_search``'s ``gap``: the same output with or without it, and the smallest step margin over its
    steps, relative to the total weight (0 < gap at a point with a strict minimiser; inf never at k = 3)."""
    for z in ([5, 7, 8], [-3, 2, 21], [10, 10, 0]):
        gap: list = []
        out = local_bayes_search(np.ones(3), 20, 0.5, np.array(z), gap=gap)
        assert np.array_equal(out, local_bayes_search(np.ones(3), 20, 0.5, np.array(z)))
        assert len(gap) == 1 and 0.0 <= gap[0] < np.inf


def test_the_corner_release_and_the_average_search_each_point_once_with_the_same_errors(monkeypatch):
    """Dir(1,1,1), n = 400, eps = 0.5 (the corner release's errors by orbits, and the average's by orbits with its
    undecided orbits certified): whichever runs first, the window's points are searched once between them
    (``_window_outputs``), and each release's errors are the floats it gives alone."""
    import dpposterior.lattice.search as search

    n, eps, a = 400, 0.5, (1.0, 1.0, 1.0)
    assert lattice_entry.shared_search(n, 3, eps, True)
    W = lattice_entry._radius(3, eps, lattice_entry.LOCAL_ERROR_TOL)
    size = len(window(n, 3, W))
    fallback = lattice_entry.LATTICE._max_fallback(n, 3, _spec_of("average", eps), symmetric=True)
    corner_fallback = lattice_entry.LATTICE._max_fallback(n, 3, _spec_of("worst", eps), True)

    def fresh():
        lattice_entry._WINDOW_SEARCHES.clear()
        lattice_entry._local_errors.cache_clear()
        lattice_entry._corner_errors.cache_clear()

    def average():
        return lattice_entry._local_errors(a, n, eps, fallback)

    def worst():
        return lattice_entry._corner_errors(a, n, eps, corner_fallback, True)

    fresh()
    alone = {"average": average().low.copy()}
    fresh()
    alone["worst"] = worst().low.copy()
    real, points = search.local_search_many, []
    monkeypatch.setattr(search, "local_search_many", lambda *args, **kw: points.append(len(args[3])) or real(*args, **kw))
    for first, second in ((average, worst), (worst, average)):
        fresh()
        points.clear()
        got = {f.__name__: f().low.copy() for f in (first, second)}
        assert sum(points) == size  # every window point once (the corner release reads most of them)
        assert all(np.array_equal(got[k], alone[k]) for k in alone)
    fresh()


def _spec_of(objective, eps):
    return ReleaseSpec.of("lattice", eps, objective=objective)
