"""The batched local search at any k (lattice.batched) and the exact errors and pmf of lattice~average built on it.

Oracles: the errors by their definition, ``E(c) = sum over z of K(z - c) L(c, T(z))`` with the kernel, the loss and the
window written here (gammaln only), ``T`` the one-point search a draw runs (the release's definition)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammaln

import dpposterior as dp
from dpposterior.errors import SizeError
from dpposterior.lattice.batched import local_search_batch, window_errors_any
from dpposterior.lattice.noise import radius_for, tail_bound, window
from dpposterior.lattice.remap import local_bayes_search, project
from dpposterior.lattice.search import local_search_many, window_errors
from dpposterior.limits import Task
from dpposterior.mechanisms import MECHANISMS, ReleaseSpec
from dpposterior.mechanisms import lattice as lattice_module


def _hellinger(a, c, r):
    """H(Dir(a + c), Dir(a + r)) for c, r of one total, from lnGamma (the definition, docs/definitions.md §2)."""
    x, y = np.asarray(a, float) + c, np.asarray(a, float) + r
    log_bc = np.sum(gammaln((x + y) / 2) - (gammaln(x) + gammaln(y)) / 2)
    return math.sqrt(max(0.0, 1.0 - math.exp(min(0.0, log_bc))))


def _points(n, k, low):
    """Every integer z with sum n and every count >= low (a box, filtered)."""
    for head in itertools.product(range(low, n - low * (k - 1) + 1), repeat=k - 1):
        last = n - sum(head)
        if last >= low:
            yield np.array(head + (last,))


def _errors_by_definition(a, n, eps, W, T):
    """``sum over z with d(z - c) <= W of e^(-eps d(z - c)) / Z L(c, T(z))`` for every c of R(n), lexicographic; the
    normaliser summed over a ball far past W (eps >= 0.7)."""
    k = len(a)
    L = 60 if k <= 4 else 20  # the box [-L, L]^(k-1) holds the ball d(w) <= L; past it, a mass below 1e-15 here
    head = np.stack(np.meshgrid(*([np.arange(-L, L + 1)] * (k - 1)), indexing="ij"), axis=-1).reshape(-1, k - 1)
    d = (np.abs(head).sum(axis=1) + np.abs(head.sum(axis=1))) // 2
    Zn = math.fsum(np.exp(-eps * d[d <= L]))
    out = []
    for c in _points(n, k, 0):
        total = 0.0
        for z in _points(n, k, -W):
            d = int(np.abs(z - c).sum()) // 2
            if d <= W:
                total += math.exp(-eps * d) / Zn * _hellinger(a, c, T[tuple(z)])
        out.append(total)
    return np.array(out)


@pytest.mark.parametrize("a, n, eps, W", [((1, 1, 1, 1), 5, 1.5, 2), ((2, 0.5, 1, 1), 5, 2.0, 2),
                                          ((0.5, 0.5, 0.5, 0.5), 6, 2.0, 2), ((3, 1, 0.2, 1), 4, 1.5, 1),
                                          ((1, 1, 1), 12, 0.7, 3)])
def test_the_batched_search_is_the_one_point_search_at_every_point_of_a_window(a, n, eps, W):
    Z = window(n, len(a), W)
    stats = {}
    got = local_search_batch(a, n, eps, Z, stats=stats)
    want = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    assert np.array_equal(got, want)
    assert stats["decided"] >= 1 and stats["decided"] + stats["fallback"] == len(Z)


def test_the_batched_search_decides_the_points_off_the_faces_at_k4_n60():
    """Dir(1,1,1,1), n = 60: a sample of points of R(n) (faces and interior); each equals the one-point search, and the
    points with every count at least 2 are decided without it (the table's certificate)."""
    rng = np.random.default_rng(1)
    a, n, eps = np.ones(4), 60, 1.0
    Z = np.array([z for z in _points(n, 4, 0)])[rng.choice(39711, 120, replace=False)]
    Z = np.vstack([Z, [[0, 0, 0, 60], [1, 1, 29, 29], [15, 15, 15, 15]]])
    stats = {}
    got = local_search_batch(a, n, eps, Z, stats=stats)
    assert np.array_equal(got, np.stack([local_bayes_search(a, n, eps, z) for z in Z]))
    assert stats["fallback"] <= np.count_nonzero(Z.min(axis=1) <= 1) + 3


@settings(max_examples=8, deadline=None)
@given(st.lists(st.sampled_from([0.3, 0.5, 1.0, 2.0, 4.0]), min_size=4, max_size=4), st.integers(2, 7),
       st.sampled_from([1.5, 2.0, 3.0]))
def test_the_batched_search_on_drawn_priors(a, n, eps):
    Z = window(n, 4, 1)
    assert np.array_equal(local_search_batch(a, n, eps, Z), np.stack([local_bayes_search(a, n, eps, z) for z in Z]))


def test_its_refusal_past_the_limit_of_points_handed_on():
    Z = window(5, 4, 2)
    with pytest.raises(SizeError, match="^the lattice release's local remap on the window hands more than 3 points"):
        local_search_batch(np.ones(4), 5, 1.0, Z, max_fallback=3)


@pytest.mark.parametrize("a, n, eps, W", [((1, 1, 1, 1), 4, 1.5, 3), ((2, 0.5, 1, 1), 3, 2.0, 2),
                                          ((1, 1, 1), 8, 0.8, 4)])
def test_window_errors_are_the_errors_by_their_definition(a, n, eps, W):
    k = len(a)
    Z = window(n, k, W)
    T = local_search_batch(a, n, eps, Z)
    got = window_errors_any(a, n, eps, T, W)
    want = _errors_by_definition(a, n, eps, W, {tuple(z): r for z, r in zip(Z, T)})
    assert np.abs(got.low - want).max() < 1e-12
    assert got.tail == tail_bound(k, eps, W)


def test_the_bracket_holds_the_errors_of_a_wider_window():
    """``low(W) <= E <= low(W) + tail(W)`` for a remap on the window: against the sum over a wider window (W + 4),
    itself within its bracket."""
    a, n, eps = (1, 2, 1, 0.5), 4, 1.0
    W = radius_for(4, eps, 1e-3)
    wide = W + 4
    Zw = window(n, 4, wide)
    T = project(Zw, n)  # any remap: the bracket is the kernel's mass left out
    far = window_errors_any(a, n, eps, T, wide)
    inner = np.all(Zw >= -W, axis=1)
    near = window_errors_any(a, n, eps, T[inner], W)
    assert np.all(near.low <= far.low + 1e-15) and np.all(far.low <= near.low + near.tail)
    assert np.all(far.low + far.tail <= near.low + near.tail + 1e-15)


def test_k3_numbers_unchanged_the_generic_sum_is_window_errors_bit_for_bit():
    for a, n, eps in (((1, 1, 1), 40, 1.0), ((2, 0.5, 1), 25, 0.5), ((1, 1, 1), 30, 2.0)):
        W = radius_for(3, eps, 1e-4)
        T = local_search_many(a, n, eps, window(n, 3, W))
        assert np.array_equal(window_errors_any(a, n, eps, T, W).low, window_errors(a, n, eps, T, W).low)
        spec = ReleaseSpec.of("lattice", eps, objective="average")
        if not MECHANISMS["lattice"].uses_window(n, 3, spec):
            assert MECHANISMS["lattice"].plan(Task.ERRORS, spec, np.asarray(a, float), n).route == "local search"
    spec = ReleaseSpec.of("lattice", 1.0, objective="average")
    assert MECHANISMS["lattice"].plan(Task.ERRORS, spec, np.ones(3), 300).route == "local search"


@pytest.mark.parametrize("prior", [(1.0, 2.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0)])
def test_the_route_planned_at_k4_is_the_route_run(monkeypatch, prior):
    """With the draws on the local search at small n (the window's draw budget set to 0), the errors of
    lattice~average at k = 4 are planned as the batched local search, run by it (by orbits at the symmetric prior),
    and equal the errors by their definition within the float sum's rounding; the bracket is the plan's."""
    monkeypatch.setattr(lattice_module, "DENSE_DRAW_SECONDS", 0.0)
    monkeypatch.setattr(lattice_module, "LOCAL_ERROR_TOL", 1e-3)
    lattice_module._batched_errors.cache_clear()
    ran = []
    real = lattice_module._batched_errors

    def counted(*args):
        ran.append(args)
        return real(*args)
    monkeypatch.setattr(lattice_module, "_batched_errors", counted)
    a, n, eps = np.array(prior), 3, 3.0
    spec = ReleaseSpec.of("lattice", eps, objective="average")
    plan = MECHANISMS["lattice"].plan(Task.ERRORS, spec, a, n)
    assert plan.route == "batched local search" and plan.fits and plan.bracket == 1e-3
    e = dp.expected_errors(spec, a, n)
    assert ran and e.tail <= plan.bracket
    assert ran[0][-1] == bool(np.all(a == a[0]))  # one search per orbit at the symmetric prior only
    W = radius_for(4, eps, 1e-3)
    Z = window(n, 4, W)
    T = {tuple(z): local_bayes_search(a, n, eps, z) for z in Z}
    want = _errors_by_definition(a, n, eps, W, T)
    assert np.abs(e.expected - want).max() < 1e-12  # the lower ends (accuracy reports the bracket beside them)


def test_k4_errors_at_n100_are_planned_and_refused_in_one_line():
    """Dir(1,1,1,1), n = 100, eps = 1: a plan of the batched route (its estimate: hours, the window's points off R(n)
    each a one-point search), refused in one line naming the setting, as accuracy does."""
    spec = ReleaseSpec.of("lattice", 1.0, objective="average")
    plan = MECHANISMS["lattice"].plan(Task.ERRORS, spec, np.ones(4), 100)
    assert plan.route == "batched local search" and not plan.fits
    text = plan.refused()
    assert "\n" not in text and "DPPOSTERIOR_MAX_SOLVE_SECONDS" in text
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_SOLVE_SECONDS"):
        dp.expected_errors(spec, np.ones(4), 100)


def test_the_pmf_at_one_data_set_at_k4_is_its_definition(monkeypatch):
    """k = 4, the draws on the local search (window budget 0): ``pmf_at`` (batched) equals the sum over the ball of
    the kernel times the indicator of the one-point search's output, and its estimate fits where the ball is inside
    R(n) (Fig. 3c's c at tol 1e-5) but not without the data set."""
    monkeypatch.setattr(lattice_module, "DENSE_DRAW_SECONDS", 0.0)
    from dpposterior.lattice.noise import log_normaliser
    from dpposterior.lattice.remap import _ball
    from dpposterior.models import candidate_rank, n_candidates

    a, c, eps, tol = np.array([1.0, 0.5, 2.0, 1.0]), np.array([3, 1, 2, 2]), 2.0, 1e-3
    spec = ReleaseSpec.of("lattice", eps, objective="average")
    p, tail = MECHANISMS["lattice"].pmf_at(a, c, spec, tol=tol)
    D = radius_for(4, eps, tol)
    want = np.zeros(n_candidates(8, 4))
    for w in _ball(4, D):
        r = local_bayes_search(a, 8, eps, c + w)
        want[candidate_rank(r)] += math.exp(-eps * (np.abs(w).sum() // 2) - log_normaliser(4, eps))
    assert np.abs(p - want).max() < 1e-14 and tail == tail_bound(4, eps, D)
    spec1 = ReleaseSpec.of("lattice", 1.0, objective="average")
    MECHANISMS["lattice"].check_pmf_at(100, 4, spec1, 1e-5, counts=np.array([25, 25, 25, 25]))
    with pytest.raises(SizeError, match=r"pmf at one data set for k=4, n=100, eps=1 \(24,739 points within distance 19\)"):
        MECHANISMS["lattice"].check_pmf_at(100, 4, spec1, 1e-5)


def test_many_draws_at_once_are_the_draws_one_at_a_time(monkeypatch):
    """``sample`` of many draws (Monte Carlo) runs the batched search: the same outputs, draw by draw, as the one-point
    search on the same noise (the same seeded bits)."""
    counts = np.array([30, 10, 40, 20])
    spec = ReleaseSpec.of("lattice", 1.0, objective="average")
    assert not MECHANISMS["lattice"].uses_window(100, 4, spec)
    size = lattice_module.BATCH_DRAWS + 8
    batched = MECHANISMS["lattice"].sample(np.ones(4), counts, spec, size, np.random.default_rng(7))
    monkeypatch.setattr(lattice_module, "BATCH_DRAWS", 10**9)
    one = MECHANISMS["lattice"].sample(np.ones(4), counts, spec, size, np.random.default_rng(7))
    assert np.array_equal(batched, one) and len(np.unique(one, axis=0)) > 3


@settings(max_examples=12, deadline=None)
@given(st.lists(st.sampled_from([0.3, 0.5, 1.0, 2.0, 4.0]), min_size=4, max_size=4), st.integers(1, 9),
       st.sampled_from([0.8, 1.0, 1.5, 3.0]), st.integers(0, 2**31))
def test_the_grouped_route_is_the_one_point_search_wherever_it_decides(a, n, eps, seed):
    """The grouped route (the points that share a projection, over the one-point search's whole ball) at points
    drawn on and off R(n): every output it certifies is the one-point search's (the definition a draw runs)."""
    from dpposterior.lattice.batched import _grouped_search

    rng = np.random.default_rng(seed)
    Z = window(n, 4, 4)
    Z = Z[rng.choice(len(Z), min(len(Z), 40), replace=False)]
    got, ok = _grouped_search(np.asarray(a, float), n, eps, Z, 1e-9)
    want = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    assert np.array_equal(got[ok], want[ok])
    assert ok.any()  # (a symmetric prior at small n has exact ties: those go to the one-point search)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0, 1.0), (0.5, 0.5, 0.5, 0.5), (2.0, 2.0, 1.0, 1.0), (0.3, 1.0, 2.0, 4.0)]),
       st.integers(1, 9), st.sampled_from([0.8, 1.0, 1.5, 3.0]), st.integers(0, 2**31))
def test_the_grouped_routes_exact_steps_are_the_one_point_search_at_every_point(a, n, eps, seed):
    """With its exact steps (a step the certificate leaves open taken by the one-point search's own floats) the
    grouped route decides every point, on and off R(n), symmetric priors (exact ties) included, and each output is
    the one-point search's: bit-for-bit the argmin of the same floats, so ties break the same way."""
    from dpposterior.lattice.batched import _grouped_search
    from dpposterior.lattice.search import _Fallback

    rng = np.random.default_rng(seed)
    Z = window(n, 4, 4)
    Z = Z[rng.choice(len(Z), min(len(Z), 60), replace=False)]
    count = _Fallback(len(Z))
    got, ok = _grouped_search(np.asarray(a, float), n, eps, Z, 1e-9, count)
    want = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    assert ok.all()
    assert np.array_equal(got, want)


def test_the_exact_steps_break_exact_ties_as_the_one_point_search_does():
    """Dir(1,1,1,1), n = 9, eps = 1: points where the certificate cannot decide (exact ties between permuted
    outputs) are decided by the exact steps, each as the one-point search decides it (a tie broken the other way,
    e.g. by the lower exact sum, fails here)."""
    from dpposterior.lattice.batched import _grouped_search
    from dpposterior.lattice.search import _Fallback

    a = np.ones(4)
    Z = window(9, 4, 3)
    _, certified = _grouped_search(a, 9, 1.0, Z, 1e-9)
    ties = Z[~certified]
    assert len(ties) >= 20
    count = _Fallback(len(ties))
    got, ok = _grouped_search(a, 9, 1.0, ties, 1e-9, count)
    assert ok.all() and count.count == len(ties)
    assert np.array_equal(got, np.stack([local_bayes_search(a, 9, 1.0, z) for z in ties]))
    with pytest.raises(SizeError, match="^the lattice release's local remap on the window hands more than 3 "):
        _grouped_search(a, 9, 1.0, ties, 1e-9, _Fallback(3))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from([0.3, 0.5, 1.0, 2.0]), min_size=4, max_size=4), st.integers(1, 12),
       st.sampled_from([0.5, 1.0, 2.0]), st.lists(st.integers(0, 6), min_size=4, max_size=4), st.integers(0, 3))
def test_the_search_off_r_n_reads_the_positive_part_only(a, n, eps, y, i):
    """Two points with the same positive part ``y = max(z, 0)`` (the excess ``sum(y) - n`` below 0 on the counts
    where ``y`` is 0, spread two ways) get the same output of the one-point search: what the batched search's sharing
    of one search per ``y`` rests on."""
    y = np.array(y)
    e = int(y.sum()) - n
    zero = np.flatnonzero(y == 0)
    if e <= 0 or not zero.size:
        return
    z1 = y.copy()
    z1[zero[0]] -= e
    z2 = y.copy()
    z2[zero[i % zero.size]] -= e // 2
    z2[zero[-1]] -= e - e // 2
    assert np.array_equal(local_bayes_search(a, n, eps, z1), local_bayes_search(a, n, eps, z2))


@pytest.mark.parametrize("n, k, W", [(10, 4, 3), (3, 4, 5), (7, 3, 4), (0, 4, 2), (12, 5, 2)])
def test_the_plans_count_of_positive_parts_is_the_windows(n, k, W):
    """``offwindow_parts`` (closed form, the grouped route's searches in the plan) against the distinct ``max(z, 0)``
    of the window's points off R(n), enumerated."""
    Z = window(n, k, W)
    off = Z[np.any(Z < 0, axis=1)]
    want = len({tuple(np.maximum(z, 0)) for z in off})
    assert lattice_module.offwindow_parts(n, k, W) == want


def test_k4_errors_at_n10_are_planned_within_the_solve_limit():
    """Dir(1,1,1,1), n = 10, eps = 1 (compare's row): the batched route's plan fits the default limits now that the
    points off R(n) are searched one per positive part (it was ~1,460 s, one one-point search per point)."""
    spec = ReleaseSpec.of("lattice", 1.0, objective="average")
    plan = MECHANISMS["lattice"].plan(Task.ERRORS, spec, np.ones(4), 10)
    assert plan.route == "batched local search" and plan.fits and plan.seconds < 45


@pytest.mark.parametrize(("n", "eps"), [(3, 0.5), (10, 1.0), (20, 2.0)])
def test_the_plan_of_the_search_by_orbits_counts_at_least_its_near_ties(n, eps):
    """Dir(1,1,1,1): the near ties the plan of the search by orbits counts (``tie_orbit_share`` of its positive parts:
    the window's parts off R(n) and R(n)'s points with a count at most 1) are at least the rows the run takes an
    exact step at (``stats["fallback"]``), over the window of the errors' radius.  Fails with the count before it
    (``0.35 / sqrt(n)``: 11,623 planned at n = 3, eps = 0.5, where 17,998 are run)."""
    W = lattice_module._radius(4, eps, lattice_module.LOCAL_ERROR_TOL)
    stats = {}
    local_search_batch(np.ones(4), n, eps, window(n, 4, W), orbits=True, stats=stats)
    parts = lattice_module.offwindow_parts(n, 4, W) + lattice_module.low_count_points(n, 4)
    assert 0 < stats["fallback"] <= lattice_module.tie_orbit_share(n, eps) * parts


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([0.5, 1.0, 2.0]), st.integers(1, 8), st.sampled_from([1.0, 1.5, 2.0, 3.0]),
       st.integers(1, 3))
def test_one_search_per_orbit_is_the_one_point_search_at_every_point(ai, n, eps, W):
    """At a symmetric prior, the batched search by orbits (one sorted point searched per orbit of the categories'
    permutations, its output permuted back where certified and the projections agree) against the one-point search
    (the definition a draw runs) at every point of a window, and against the search without orbits."""
    a = np.full(4, ai)
    Z = window(n, 4, W)
    stats = {}
    got = local_search_batch(a, n, eps, Z, orbits=True, stats=stats)
    want = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    assert np.array_equal(got, want)
    assert np.array_equal(got, local_search_batch(a, n, eps, Z))
    assert stats["orbits"] < len(Z) and stats["mapped"] + stats["left"] == len(Z)


def test_orbits_at_a_prior_that_is_not_symmetric_is_the_search_without_them():
    a, n, eps = (1.0, 1.0, 1.0, 2.0), 5, 1.5
    Z = window(n, 4, 2)
    stats = {}
    got = local_search_batch(a, n, eps, Z, orbits=True, stats=stats)
    assert "orbits" not in stats
    assert np.array_equal(got, np.stack([local_bayes_search(a, n, eps, z) for z in Z]))


def _project_by_units(z, n):
    """``project`` by its definition (docs/lattice.md): negative counts to 0, then the excess taken one unit at a time
    from a largest count (ties: the first by index)."""
    y = [max(int(v), 0) for v in z]
    for _ in range(sum(y) - n):
        top = max(y)
        y[y.index(top)] -= 1
    return tuple(y)


def test_the_projection_breaks_ties_by_index_so_orbits_pair_it():
    """``project`` takes the excess from the first of equal largest counts, so the projection of a permuted point is
    not always the permuted projection: the route by orbits keys each point by the pair (positive part, projection),
    so such points share an orbit only with points whose pair is the permuted pair, and are the one-point search's."""
    z, s = np.array([3, 3, 1, -1]), np.array([1, 0, 2, 3])  # s swaps the two equal counts: z[s] is z
    assert np.array_equal(z[s], z) and not np.array_equal(project(z[s], 6)[0], project(z, 6)[0][s])
    stats = {}
    Z = window(6, 4, 2)
    got = local_search_batch(np.ones(4), 6, 1.5, Z, orbits=True, stats=stats)
    assert np.array_equal(got, np.stack([local_bayes_search(np.ones(4), 6, 1.5, z) for z in Z]))
    # the orbits are those of the pairs, by the definitions written here: fewer than the points' own orbits once the
    # points off R(n) sharing a positive part are one
    pairs = {tuple(sorted(zip(np.maximum(z, 0).tolist(), _project_by_units(z, 6)), reverse=True)) for z in Z}
    assert stats["orbits"] == len(pairs) < len({tuple(sorted(z.tolist())) for z in Z})
    assert stats["mapped"] + stats["left"] == len(Z)


@pytest.mark.parametrize("n, eps, W", [(6, 1.5, 2), (12, 1.0, 6)])
def test_an_uncertified_orbit_mapped_by_symmetry_is_caught(monkeypatch, n, eps, W):
    """The route maps an orbit's output only where its search is certified: taken as certified everywhere (the
    near and exact ties of a symmetric prior mapped by the permutation), some point's output is not the one-point
    search's, so the comparison with the definition above can fail."""
    from dpposterior.lattice import batched

    Z = window(n, 4, W)
    want = np.stack([local_bayes_search(np.ones(4), n, eps, z) for z in Z])
    real_search = batched._search

    def every_row_certified(*args, **kwargs):
        got = real_search(*args, **kwargs)
        if kwargs.get("certified"):
            out, ok = got
            assert not ok.all()  # some orbit is not certified here
            return out, np.ones_like(ok)
        return got

    monkeypatch.setattr(batched, "_search", every_row_certified)
    wrong = local_search_batch(np.ones(4), n, eps, Z, orbits=True)
    assert not np.array_equal(wrong, want)


def _ball_by_definition(k, D):
    """Every w in Z^k with sum 0 and d(w) = |w|_1 / 2 <= D (a box, filtered)."""
    return [np.array(w) for w in itertools.product(range(-D, D + 1), repeat=k) if sum(w) == 0
            and sum(map(abs, w)) <= 2 * D]


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([0.5, 1.0, 2.0]), st.lists(st.integers(0, 3), min_size=4, max_size=4),
       st.sampled_from([1.5, 2.0, 3.0]))
def test_the_pmf_at_one_data_set_by_orbits_is_its_definition_within_its_bracket(ai, c, eps):
    """At a symmetric prior (route by orbits, the draws on the local search: window budget 0), ``pmf_at`` is the sum
    over its ball of the kernel times the indicator of the one-point search's output (the release's definition), and
    its bracket holds the same sum over a ball 2 wider (which is below the pmf): ``P_D <= P_D+2 <= P_D + tail``."""
    from dpposterior.lattice.noise import log_normaliser
    from dpposterior.models import candidate_rank, n_candidates

    a, c, tol = np.full(4, ai), np.array(c), 1e-2
    n = int(c.sum())
    if n == 0:
        return
    spec = ReleaseSpec.of("lattice", eps, objective="average")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lattice_module, "DENSE_DRAW_SECONDS", 0.0)
        plan = MECHANISMS["lattice"].check_pmf_at(n, 4, spec, tol, counts=c, prior=a)
        assert plan.route == "batched local search, by orbits"
        p, tail = MECHANISMS["lattice"].pmf_at(a, c, spec, tol=tol)
    D = radius_for(4, eps, tol)
    inner, outer = np.zeros(n_candidates(n, 4)), np.zeros(n_candidates(n, 4))
    for w in _ball_by_definition(4, D + 2):
        d = int(np.abs(w).sum()) // 2
        K = math.exp(-eps * d - log_normaliser(4, eps))
        r = int(candidate_rank(local_bayes_search(a, n, eps, c + w)))
        outer[r] += K
        if d <= D:
            inner[r] += K
    assert np.abs(p - inner).max() < 1e-14 and tail == plan.bracket == tail_bound(4, eps, D)
    assert np.all(p <= outer + 1e-15) and np.all(outer <= p + tail + 1e-15)
    assert abs(p.sum() - 1.0) <= tail + 1e-12


def test_many_draws_at_a_balanced_data_set_by_orbits_are_the_draws_one_at_a_time(monkeypatch):
    """Monte Carlo draws at a symmetric prior and a balanced data set (Fig. 5b's, most z share an orbit) run the
    batched search by orbits: the same outputs, draw by draw, as the one-point search on the same seeded bits."""
    counts = np.array([10, 10, 10, 10])
    spec = ReleaseSpec.of("lattice", 1.0, objective="average")
    assert not MECHANISMS["lattice"].uses_window(40, 4, spec)
    size = 200
    batched = MECHANISMS["lattice"].sample(np.ones(4), counts, spec, size, np.random.default_rng(11))
    monkeypatch.setattr(lattice_module, "BATCH_DRAWS", 10**9)
    one = MECHANISMS["lattice"].sample(np.ones(4), counts, spec, size, np.random.default_rng(11))
    assert np.array_equal(batched, one) and len(np.unique(one, axis=0)) > 20


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.3, 0.5, 1.0, 2.0, 4.0]), min_size=4, max_size=4), st.integers(1, 12),
       st.integers(0, 2**31))
def test_the_grouped_routes_loss_rows_are_the_hellinger_distances_in_place(a, n, seed):
    """The loss rows of the grouped route (a row per output, a column per data set, written in place into part of a
    larger array): each entry ``H(Dir(a + c), Dir(a + r))`` by its definition (lnGamma, within 1e-12), and the very
    float of the one-point search's losses (:func:`.remap._local_hellinger`, transposed), the rows around untouched."""
    from dpposterior.lattice.batched import _loss_rows
    from dpposterior.lattice.remap import _local_hellinger

    rng = np.random.default_rng(seed)
    a = np.asarray(a, float)
    R = np.array(list(_points(n, 4, 0)))
    rs = R[rng.choice(len(R), min(len(R), 7), replace=False)]
    # a few data sets (gathered coordinate by coordinate), and all of R(n) (more than the pairs of two counts' values:
    # their partial sums tabled)
    for cs in (R[rng.choice(len(R), min(len(R), 6), replace=False)], R[rng.permutation(len(R))]):
        room = np.full((len(rs) + 3, len(cs)), 7.0)
        _loss_rows(a, cs, rs, n, room[2:2 + len(rs)])
        want = np.array([[_hellinger(a, c, r) for c in cs] for r in rs])
        assert np.allclose(room[2:2 + len(rs)], want, rtol=0, atol=1e-12)
        assert np.array_equal(room[2:2 + len(rs)], _local_hellinger(a, cs, rs, n).T)
        assert np.all(room[:2] == 7.0) and np.all(room[2 + len(rs):] == 7.0)


@pytest.mark.parametrize("rows", [1, 2])
def test_the_grouped_route_grows_its_loss_rows_keeping_the_ones_reached(monkeypatch, rows):
    """With room for only ``rows`` losses at first (grown as outputs are reached) the grouped route, exact steps
    included, is still the one-point search at every point (rows lost or misplaced when the room grows fail here)."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.search import _Fallback

    monkeypatch.setattr(batched, "GROUP_ROWS", rows)
    a = np.array([1.0, 1.0, 2.0, 0.5])
    Z = window(6, 4, 3)
    Z = Z[np.random.default_rng(5).choice(len(Z), 80, replace=False)]
    got, ok = batched._grouped_search(a, 6, 1.0, Z, 1e-9, _Fallback(len(Z)))
    assert ok.all()
    assert np.array_equal(got, np.stack([local_bayes_search(a, 6, 1.0, z) for z in Z]))


def _kept_by_definition(w, share):
    """The one-point search's kept set (docs/lattice.md): the heaviest weights in the stable order by ``-w``, the
    first ``m + 1`` with ``m`` the ``searchsorted`` of ``(1 - share)`` times the sequential total, sorted."""
    heavy = np.argsort(-w, kind="stable")
    cum = np.cumsum(w[heavy])
    return np.sort(heavy[: int(np.searchsorted(cum, cum[-1] * (1.0 - share))) + 1])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1e-300, 1e-7, 0.1, 0.25, 0.5, 1.0]), min_size=1, max_size=40),
       st.sampled_from([1e-6, 0.05, 0.3]), st.integers(0, 2**31))
def test_the_kept_set_without_the_stable_argsort_is_the_one_point_searchs(values, share, seed):
    """:func:`_kept` (a sort of the values, then the weights above the last kept value and the first of its ties in
    index order) is the definition's kept set, ties and zero weights included, at any share; and on weights like the
    search's (exponentials of distances, many exact ties)."""
    from dpposterior.lattice import batched

    w = np.array(values)
    old = batched.SEARCH_SHARE
    try:
        batched.SEARCH_SHARE = share
        assert np.array_equal(batched._kept(w), _kept_by_definition(w, share))
        rng = np.random.default_rng(seed)
        w = np.exp(-1.0 * rng.integers(0, 30, 5000)) * rng.choice([1.0, 0.5], 5000)
        assert np.array_equal(batched._kept(w), _kept_by_definition(w, share))
    finally:
        batched.SEARCH_SHARE = old


@pytest.mark.parametrize("k", [3, 4, 5])
def test_the_ball_shift_finds_each_output_in_the_ball_before_the_move(k):
    """``shift[b, j]`` is the index of ``ball1[b] + ball1[j]`` in ``ball1`` where that offset is within 1, else -1
    (brute force over the lattice's offsets within 1)."""
    from dpposterior.lattice.batched import _ball_shift
    from dpposterior.lattice.remap import _ball

    ball1 = _ball(k, 1)
    shift = _ball_shift(ball1)
    for b, u in enumerate(ball1):
        for j, v in enumerate(ball1):
            x = u + v
            hits = [q for q, y in enumerate(ball1) if np.array_equal(x, y)]
            assert shift[b, j] == (hits[0] if hits else -1)
            assert (np.abs(x).sum() // 2 <= 1) == bool(hits)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0, 1.0), (2.0, 2.0, 1.0, 1.0), (0.3, 1.0, 2.0, 4.0)]), st.integers(6, 12),
       st.sampled_from([0.8, 1.0, 1.5]), st.integers(0, 2**31))
def test_the_grouped_routes_sums_kept_across_steps_are_the_sums_of_the_step(a, n, eps, seed):
    """The sums ``S(z, r)`` the grouped route keeps from one step to the next (an output within 1 of the last centre)
    are those it would compute at the step: every einsum the route runs is checked against the full sums of its
    rows over the same loss rows, and the outputs against the one-point search (the walks are long enough to
    move: some sums are kept)."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.search import _Fallback

    seen = {"steps": 0}
    real_decide = batched._decide

    def decide(S, real, Tplus, tail, mu, centre, **kw):
        if np.ndim(tail) or tail == 0.0:  # the grouped route's (a tail per row): every sum against its definition's
            import sys

            f = sys._getframe(1).f_locals
            if "HT" in f and "keys" in f and "have" in f:
                w, HT, active, keys, have = f["w"], f["HT"], f["active"], f["keys"], f["have"]
                rl = f["real"]
                offsets = np.concatenate([[0], np.cumsum(rl.sum(axis=1))])
                for t in range(len(active)):
                    cols = [have[kk] for kk in keys[offsets[t]:offsets[t + 1]]]
                    want = np.array([math.fsum(w[active[t]] * HT[c]) for c in cols])
                    assert np.allclose(S[t, rl[t]], want, rtol=1e-12, atol=0.0)
                seen["steps"] += int(f["last_S"] is not None)
        return real_decide(S, real, Tplus, tail, mu, centre, **kw)

    rng = np.random.default_rng(seed)
    Z = window(n, 4, 3)
    Z = Z[rng.choice(len(Z), min(len(Z), 30), replace=False)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batched, "_decide", decide)
        got, ok = batched._grouped_search(np.asarray(a, float), n, eps, Z, 1e-9, _Fallback(len(Z)))
    assert ok.all()
    assert np.array_equal(got, np.stack([local_bayes_search(a, n, eps, z) for z in Z]))
    assert seen["steps"] > 0


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0, 1.0), (0.5, 0.5, 0.5, 0.5), (2.0, 2.0, 1.0, 1.0), (0.3, 1.0, 2.0, 4.0)]),
       st.integers(1, 9), st.sampled_from([0.8, 1.0, 1.5, 3.0]), st.integers(0, 2**31), st.sampled_from([1, 7, 64]))
def test_the_grouped_route_over_its_rows_kept_sets_is_the_one_point_search(a, n, eps, seed, block):
    """With ``kept_columns`` (the losses and sums over the union of a block's kept sets, exact steps reading the kept
    sets through it) the grouped route decides every point, on and off R(n), symmetric priors (exact ties) included,
    as the one-point search does, bit for bit; blocks of 1 to 64 rows (``GROUP_ENTRIES`` small: a block's columns
    and loss rows its own)."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.search import _Fallback

    rng = np.random.default_rng(seed)
    Z = window(n, 4, 4)
    Z = Z[rng.choice(len(Z), min(len(Z), 60), replace=False)]
    count = _Fallback(len(Z))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batched, "GROUP_ENTRIES", block * 200)
        got, ok = batched._grouped_search(np.asarray(a, float), n, eps, Z, 1e-9, count, kept_columns=True)
    assert ok.all()
    assert np.array_equal(got, np.stack([local_bayes_search(a, n, eps, z) for z in Z]))


def test_the_orbit_routes_left_points_over_their_kept_sets_decide_exact_ties_as_the_one_point_search():
    """Dir(1,1,1,1), n = 9, eps = 1: the points the certificate leaves to exact steps (exact ties between permuted
    outputs), searched over their kept sets' union, are the one-point search's outputs; the union is smaller than
    the ball (what it saves), and every one of them takes an exact step."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.search import _Fallback

    a = np.ones(4)
    Z = window(9, 4, 3)
    _, certified = batched._grouped_search(a, 9, 1.0, Z, 1e-9)
    ties = Z[~certified]
    count = _Fallback(len(ties))
    got, ok = batched._grouped_search(a, 9, 1.0, ties, 1e-9, count, kept_columns=True)
    assert ok.all() and count.count == len(ties) >= 20
    assert np.array_equal(got, np.stack([local_bayes_search(a, 9, 1.0, z) for z in ties]))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.3, 0.5, 1.0, 2.0, 4.0]), min_size=4, max_size=4), st.integers(2, 14),
       st.integers(0, 2**31))
def test_the_loss_rows_of_a_balls_outputs_share_their_gathers_and_are_the_one_point_searchs(a, n, seed):
    """The loss rows of the outputs of a ball of radius 1 (outputs sharing ``(r_0, r_1)`` and ``r_i``: the gathers
    shared), in a shuffled order with repeats: each the very float of :func:`.remap._local_hellinger` (transposed),
    and within 1e-12 of the definition."""
    from dpposterior.lattice.batched import _loss_rows
    from dpposterior.lattice.remap import _ball, _local_hellinger

    rng = np.random.default_rng(seed)
    a = np.asarray(a, float)
    R = np.array(list(_points(n, 4, 0)))
    centre = R[rng.integers(len(R))]
    rs = centre[None, :] + _ball(4, 1)
    rs = rs[np.all(rs >= 0, axis=1)]
    rs = rs[rng.integers(0, len(rs), len(rs) + 3)]
    for cs in (R[rng.choice(len(R), min(len(R), 6), replace=False)], R[rng.permutation(len(R))]):
        out = np.empty((len(rs), len(cs)))
        _loss_rows(a, cs, rs, n, out)
        assert np.array_equal(out, _local_hellinger(a, cs, rs, n).T)
        want = np.array([[_hellinger(a, c, r) for c in cs[:5]] for r in rs])
        assert np.allclose(out[:, :5], want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("a, eps", [((1.0, 1.0, 1.0, 1.0), 3.0), ((0.5, 2.0, 1.0, 1.0), 2.0)])
def test_the_rows_of_one_projection_with_different_kept_sets_read_their_own(a, eps):
    """n = 30: the points of the window that share a projection (one group) have kept sets that differ (the weights
    fall fast at this eps), so a block's columns are their union and each exact step must read its own row's kept
    set through it: every output is the one-point search's (the union of one row's kept set only, or a kept set
    read at the wrong columns, fails here)."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.search import _Fallback

    a = np.asarray(a, float)
    Z = window(30, 4, 4)
    P = project(Z, 30)
    keys, counts = np.unique(P, axis=0, return_counts=True)
    groups = [np.flatnonzero(np.all(P == keys[j], axis=1)) for j in np.argsort(-counts)[:3]]
    Z = Z[np.concatenate(groups)]
    got, ok = batched._grouped_search(a, 30, eps, Z, 1e-9, _Fallback(len(Z)), kept_columns=True)
    assert ok.all() and len(Z) >= 30
    assert np.array_equal(got, np.stack([local_bayes_search(a, 30, eps, z) for z in Z]))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from([0.3, 0.5, 1.0, 2.0, 4.0]), min_size=4, max_size=4), st.integers(3, 20),
       st.sampled_from([0.8, 1.0, 1.5, 3.0]), st.sampled_from([1e-11, 1e-4, 1e-2, 0.2]), st.integers(0, 2**31),
       st.sampled_from([1, 3, 10**6]))
def test_the_grouped_route_over_its_heavy_columns_certifies_only_the_one_point_searchs_outputs(a, n, eps, drop, seed,
                                                                                              block):
    """With ``drop`` (the sums over the columns where some row weighs at least ``drop``, the weight off them a tail
    of each decision) every output the grouped route certifies is the one-point search's, at points on and off R(n);
    at the orbit route's ``drop`` it certifies as many as over the whole ball, less at most a few; blocks of a row or
    a few (a block's columns its own, the next block back to the whole ball)."""
    from dpposterior.lattice import batched

    rng = np.random.default_rng(seed)
    a = np.asarray(a, float)
    Z = window(n, 4, 4)
    Z = Z[rng.choice(len(Z), min(len(Z), 40), replace=False)]
    with pytest.MonkeyPatch.context() as mp:  # blocks of ~block rows (a block's columns its own)
        mp.setattr(batched, "GROUP_ENTRIES", block * 1771)
        got, ok = batched._grouped_search(a, n, eps, Z, 1e-9, drop=drop)
    want = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    assert np.array_equal(got[ok], want[ok])
    if drop == batched.ORBIT_DROP_WEIGHT:
        _, whole = batched._grouped_search(a, n, eps, Z, 1e-9)
        assert ok.sum() >= whole.sum() - 2



@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=4, max_size=4), st.integers(3, 16),
       st.sampled_from([0.8, 1.0, 1.5, 3.0]), st.sampled_from([1e-7, 1e-3, 0.2]), st.integers(0, 2**31))
def test_the_drops_tried_in_turn_certify_only_the_one_point_searchs_outputs(a, n, eps, first, seed):
    """The certified route with drops tried in turn (a strong one, then the orbit route's on the rows it left open):
    every output it certifies is the one-point search's, at points on and off R(n), and it certifies as many as the
    orbit route's drop alone, less at most a few (the second try's blocks hold fewer rows, so fewer columns)."""
    from dpposterior.lattice import batched

    rng = np.random.default_rng(seed)
    a = np.asarray(a, float)
    Z = window(n, 4, 4)
    Z = Z[rng.choice(len(Z), min(len(Z), 40), replace=False)]
    stats: dict = {}
    got, ok = batched._search(a, n, eps, Z, None, stats, certified=True, drop=(first, batched.ORBIT_DROP_WEIGHT))
    want = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    assert np.array_equal(got[ok], want[ok])
    _, alone = batched._search(a, n, eps, Z, None, {}, certified=True, drop=batched.ORBIT_DROP_WEIGHT)
    assert ok.sum() >= alone.sum() - 2
    assert stats["decided"] == ok.sum()


@settings(max_examples=10, deadline=None)
@given(st.integers(2, 8), st.sampled_from([1.0, 1.5, 3.0]), st.integers(1, 3), st.sampled_from([1e-3, 0.2, 0.9]))
def test_the_orbit_route_with_a_strong_first_drop_is_the_one_point_search_at_every_point(n, eps, W, first):
    """Dir(1,1,1,1): the search by orbits whose first drop leaves many rows open (0.2, 0.9: most columns dropped, the
    rows tried again at the second) against the one-point search at every point of a window."""
    from dpposterior.lattice import batched

    Z = window(n, 4, W)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batched, "ORBIT_DROP_WEIGHTS", (first, batched.ORBIT_DROP_WEIGHT))
        got = local_search_batch(np.ones(4), n, eps, Z, orbits=True)
    assert np.array_equal(got, np.stack([local_bayes_search(np.ones(4), n, eps, z) for z in Z]))


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0, 1.0), (0.5, 0.5, 0.5, 0.5), (2.0, 2.0, 1.0, 1.0)]), st.integers(3, 12),
       st.sampled_from([0.8, 1.0, 1.5]), st.integers(0, 2**31), st.booleans())
def test_the_exact_steps_over_their_candidates_are_the_one_point_search(a, n, eps, seed, kept_columns):
    """An exact step multiplies only its candidates' columns (the others 0) and takes the argmin over the candidates
    (:func:`_exact_steps` with ``cand``): at priors with exact ties between permuted outputs, every point the grouped
    route decides is the one-point search's output bit for bit, some exact steps had fewer candidates than outputs
    (the shortcut ran), and each step's candidates are those of :func:`_decide`'s rule transcribed here: a real
    output is left out only where its interval's low end is above the least high end."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.search import _Fallback

    seen = {"steps": 0, "fewer": 0}
    real_decide = batched._decide

    def decide(S, real, Tplus, tail, mu, centre, candidates=False):
        got = real_decide(S, real, Tplus, tail, mu, centre, candidates=candidates)
        if candidates:
            best, cand = got
            T = np.asarray(Tplus, dtype=float)[:, None]
            for t in range(len(S)):
                lo = [S[t, j] - (batched.SEARCH_SHARE + 2 * mu) * T[t, 0] for j in range(S.shape[1])]
                hi = [S[t, j] + np.ravel(tail * np.ones_like(T))[t] * T[t, 0] + 2 * mu * T[t, 0]
                      for j in range(S.shape[1])]
                least = min(hi[j] for j in range(S.shape[1]) if real[t, j])
                want = [bool(real[t, j]) and lo[j] <= least for j in range(S.shape[1])]
                assert cand[t].tolist() == want
                if best[t] < 0:
                    seen["steps"] += 1
                    seen["fewer"] += int(sum(want) < int(real[t].sum()))
        return got

    rng = np.random.default_rng(seed)
    Z = window(n, 4, 3)
    Z = Z[rng.choice(len(Z), min(len(Z), 40), replace=False)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batched, "_decide", decide)
        got, ok = batched._grouped_search(np.asarray(a, float), n, eps, Z, 1e-9, _Fallback(len(Z)),
                                          kept_columns=kept_columns)
    assert ok.all()
    assert np.array_equal(got, np.stack([local_bayes_search(a, n, eps, z) for z in Z]))
    assert seen["fewer"] <= seen["steps"]


def test_the_exact_steps_over_their_candidates_ran_on_exact_ties():
    """Dir(1,1,1,1), n = 9, eps = 1, the orbit route's left points (exact ties): the exact steps used fewer candidate
    columns than outputs at most steps, and the outputs are the one-point search's."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.search import _Fallback

    a = np.ones(4)
    Z = window(9, 4, 3)
    _, certified = batched._grouped_search(a, 9, 1.0, Z, 1e-9)
    ties = Z[~certified]
    seen = {"steps": 0, "fewer": 0}
    real_decide = batched._decide

    def decide(S, real, Tplus, tail, mu, centre, candidates=False):
        got = real_decide(S, real, Tplus, tail, mu, centre, candidates=candidates)
        if candidates:
            best, cand = got
            open_ = best < 0
            seen["steps"] += int(open_.sum())
            seen["fewer"] += int((cand[open_].sum(axis=1) < real[open_].sum(axis=1)).sum())
        return got

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batched, "_decide", decide)
        got, ok = batched._grouped_search(a, 9, 1.0, ties, 1e-9, _Fallback(len(ties)), kept_columns=True)
    assert ok.all()
    assert np.array_equal(got, np.stack([local_bayes_search(a, 9, 1.0, z) for z in ties]))
    assert seen["steps"] >= 20 and seen["fewer"] >= seen["steps"] // 2


@pytest.mark.parametrize("k, eps, n", [(4, 0.39999961853027344, 6), (4, 1.0, 3), (3, 0.5, 4), (5, 2.0, 2)])
def test_the_tables_ball_leaves_out_only_offsets_off_r_n(k, eps, n):
    """Where the batch radius ``rho`` exceeds n the tables' ball keeps the offsets with every ``|v_i| <= n``: at each
    offset left out, ``r + v`` is off R(n) for every r of R(n) (so its ``G`` is 0), and every offset kept is in the
    full ball."""
    from dpposterior.lattice.batched import _ball, _Sums, batch_radius
    from dpposterior.models import candidates

    rho = batch_radius(k, eps)
    assert rho > n
    full = _ball(k, rho)
    kept = _Sums(np.ones(k), n, eps, rho).ball
    key = {tuple(v) for v in kept}
    assert key <= {tuple(v) for v in full} and len(key) == len(kept) < len(full)
    out = np.array([v for v in full if tuple(v) not in key])
    R = candidates(n, k)
    at = R[:, None, :] + out[None, :, :]
    assert not np.any(np.all((at >= 0) & (at <= n), axis=2))


def test_the_batched_search_at_a_small_working_eps_is_the_one_point_search():
    """k = 4 at eps 0.4's working eps, n = 6 (the tables' ball cut to |v_i| <= n): with and without orbits, the
    one-point search at every point of a window."""
    a, n, eps = np.ones(4), 6, 0.39999961853027344
    Z = window(n, 4, 2)
    want = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    assert np.array_equal(local_search_batch(a, n, eps, Z), want)
    assert np.array_equal(local_search_batch(a, n, eps, Z, orbits=True), want)


def _near(rng, n, size, spread, face):
    """A point of R(n) (on a face where ``face``) and ``size`` data sets of R(n) around it, each count within
    ``spread`` of the point's."""
    cut = np.sort(rng.integers(0, n + 1, 3))
    centre = np.diff(np.concatenate([[0], cut, [n]]))
    if face:
        centre = np.array([0, centre[1] + centre[0], centre[2], centre[3]])
    d = rng.integers(-spread, spread + 1, size=(8 * size, 4))
    d[:, 3] = -d[:, :3].sum(axis=1)
    cs = centre + d
    cs = cs[np.all((cs >= 0) & (cs <= n), axis=1)][:size]
    return centre, cs


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0.3, 0.5, 1.0, 2.0, 4.0]), min_size=4, max_size=4), st.integers(512, 4000),
       st.integers(1, 40), st.booleans(), st.integers(0, 2**31))
def test_the_loss_rows_past_the_jensen_table_are_read_from_band_tables(a, n, spread, face, seed):
    """Past the square table (``(n + 1)^2 > JENSEN_TABLE_ENTRIES``) the loss rows of a ball's outputs at data sets
    around it are read from band tables (one per ``(a_i, n)``, widened when a call needs more): each entry the very
    float of :func:`.remap._local_hellinger` evaluated per pair (transposed), and within 1e-9 of the definition;
    the same after a call that widened the tables and where the band is past ``JENSEN_BAND_ENTRIES`` (evaluated)."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.remap import _ball, _local_hellinger

    rng = np.random.default_rng(seed)
    a = np.asarray(a, float)
    centre, cs = _near(rng, n, 60, spread, face)
    rs = centre[None, :] + _ball(4, 1)
    rs = rs[np.all(rs >= 0, axis=1)]
    rs = rs[rng.integers(0, len(rs), len(rs) + 2)]
    _, wide = _near(rng, n, 20, 3 * spread + 20, face)
    for data in (cs, wide, cs):
        out = np.full((len(rs), len(data)), 7.0)
        batched._loss_rows(a, data, rs, n, out)
        assert np.array_equal(out, _local_hellinger(a, data, rs, n).T)
        # the definition by lnGamma differences loses ~1e-16 x ln x in ln BC (x up to 4,000), ~1e-10 in H
        want = np.array([[_hellinger(a, c, r) for c in data[:4]] for r in rs[:3]])
        assert np.allclose(out[:3, :4], want, rtol=0, atol=1e-9)
    tables = {key: t.shape for key, t in batched._BAND_TABLES.items()}
    assert all(key[1] != n or (shape[0] == n + 1 and shape[0] * shape[1] <= batched.JENSEN_BAND_ENTRIES)
               for key, shape in tables.items())


def test_the_band_tables_stop_at_their_size(monkeypatch):
    """Where ``(n + 1)(2 band + 1)`` is past ``JENSEN_BAND_ENTRIES`` the loss rows are evaluated per pair, no table is
    built, and the entries are the same floats; below it one table a prior value and n, kept at most
    ``BAND_TABLES_KEPT``."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.remap import _ball, _local_hellinger

    rng = np.random.default_rng(5)
    a = np.array([1.0, 0.5, 2.0, 1.0])
    centre, cs = _near(rng, 3000, 50, 30, False)
    rs = centre[None, :] + _ball(4, 1)
    monkeypatch.setattr(batched, "_BAND_TABLES", {})
    monkeypatch.setattr(batched, "JENSEN_BAND_ENTRIES", 3001 * 11)
    out = np.empty((len(rs), len(cs)))
    batched._loss_rows(a, cs, rs, 3000, out)
    assert batched._BAND_TABLES == {} and np.array_equal(out, _local_hellinger(a, cs, rs, 3000).T)
    monkeypatch.setattr(batched, "JENSEN_BAND_ENTRIES", 2**20)
    batched._loss_rows(a, cs, rs, 3000, out)
    assert sorted(batched._BAND_TABLES) == [(0.5, 3000), (1.0, 3000), (2.0, 3000)]
    assert np.array_equal(out, _local_hellinger(a, cs, rs, 3000).T)
    for m in range(3001, 3001 + batched.BAND_TABLES_KEPT):
        batched._loss_rows(np.ones(4), cs, rs, m, out)
    assert len(batched._BAND_TABLES) <= batched.BAND_TABLES_KEPT


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.3, 4.0), min_size=3, max_size=4), st.integers(0, 300), st.sampled_from([1.5, 2.0, 3.0]),
       st.integers(0, 2**32 - 1))
def test_the_search_balls_data_sets_are_their_definition(a, n, eps, seed):
    """``_ball_data_sets`` at ``p`` of R(n) (next to a face, at a vertex or inside): the points ``p + v`` of the ball
    in R(n) in the ball's order, ``ln pi`` at each but its constant (``sum_i lnGamma(a_i + c_i) - lnGamma(c_i + 1)``, the
    same floats: the same table entries added in coordinate order from 0), and their coordinates as int32 rows,
    transcribed from the definition over the ball's points one at a time."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.remap import _ball

    a = np.asarray(a)
    k = a.size
    rng = np.random.default_rng(seed)
    # next to a face or a vertex (Dirichlet 0.3 shares), or inside with the whole ball in R(n) (shares near 1 / k)
    p = rng.multinomial(n, rng.dirichlet(np.full(k, 0.3 if seed % 2 else 300.0)))
    Dc = radius_for(k, eps, 1e-12)
    ball = _ball(k, Dc)
    cs, base, csT = batched._ball_data_sets(a, p.astype(np.int64), batched._BallRows(ball, Dc))
    want = [p + v for v in ball if np.all(p + v >= 0)]
    assert np.array_equal(cs, np.array(want).reshape(-1, k)) and cs.dtype == np.int64
    assert np.array_equal(csT, cs.T) and csT.dtype == np.int32 and csT.flags.c_contiguous
    assert np.all(cs.sum(axis=1) == n) and np.all(cs <= n)
    expect = []
    for c in want:
        s = 0.0
        for i in range(k):
            s += float(gammaln(a[i] + c[i]) - gammaln(c[i] + 1.0))
        expect.append(s)
    assert np.array_equal(base, np.array(expect))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6), st.integers(1, 40), st.integers(2, 4), st.sampled_from([0.1, 0.37, 1.0, 1.5, 2.75, 30.0]),
       st.integers(0, 2**31))
def test_the_grouped_routes_weights_are_their_expression_s_floats(rows, cols, k, eps, seed):
    """The grouped route's weights of a block (:func:`.batched._block_weights`): the very floats of ``e^(lw - max
    lw)`` with ``lw = ln pi(c) - eps (|z - c|_1 // 2)`` (the one-point search's expression, written here), and each
    row's float sum."""
    from dpposterior.lattice.batched import _block_weights

    rng = np.random.default_rng(seed)
    cs = rng.integers(0, 60, (cols, k))
    zb = rng.integers(-30, 90, (rows, k))
    base = rng.normal(0.0, 20.0, cols)
    dist = np.array([[sum(abs(int(z[i]) - int(c[i])) for i in range(k)) for c in cs] for z in zb])
    lw = base[None, :] - eps * (dist // 2)
    want = np.exp(lw - lw.max(axis=1, keepdims=True))
    w, T = _block_weights(np.ascontiguousarray(cs.T, dtype=np.int32), zb, base, eps)
    assert w.tobytes() == want.tobytes()
    assert T.tobytes() == want.sum(axis=1).tobytes()
