"""The k = 4 corner remap of ``lattice~worst`` (dpposterior.lattice.corners_any; docs/lattice.md, "A worst-case remap
at k = 4").

The oracles transcribe the definitions with scipy only: the kernel ``e^(-eps d(w)) / Z`` with ``Z`` summed over a box
of the sum-zero lattice, the Hellinger distance between Dirichlets by ``gammaln``; the remap under test supplies its
table and the rest's outputs (the local Bayes output of ``project(z)``, :meth:`AnyCornerRemap.transition`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpposterior as dp
from dpposterior.errors import SizeError
from dpposterior.lattice import corners_any
from dpposterior.limits import Task
from dpposterior.mechanisms import LATTICE, OPTIMAL, ReleaseSpec

from .test_lattice_corners import _hellinger  # the oracle's H(Dir(a + c), Dir(a + r)), any k


def _offsets(D):
    """Every w in Z^4 with sum 0 and |w|_1 / 2 <= D."""
    r = range(-2 * D, 2 * D + 1)
    out = [(i, j, l, -i - j - l) for i, j, l in itertools.product(r, r, r)
           if (abs(i) + abs(j) + abs(l) + abs(i + j + l)) // 2 <= D]
    return np.array(out, dtype=np.int64)


def _Z(eps, D=20):
    """The kernel's normaliser, summed over d(w) <= D (D = 20 at eps = 2: the rest is below 1e-15; 40 at eps = 1:
    below 1e-12)."""
    return float(np.exp(-eps * (np.abs(_offsets(D)).sum(1) // 2)).sum())


def _R(n):
    return np.array([c for c in itertools.product(range(n + 1), repeat=4) if sum(c) == n], dtype=np.int64)


def _brute_errors(remap, a, n, eps, We):
    """E(c) = sum over d(w) <= We of K(w) sum_r T(c + w, r) L(c, r), every c of R(n), term by term."""
    offs = _offsets(We)
    wts = np.exp(-eps * (np.abs(offs).sum(1) // 2)) / _Z(eps)
    R = _R(n)
    Z = np.unique((R[:, None, :] + offs[None, :, :]).reshape(-1, 4), axis=0)
    out, p = remap.transition(Z)
    index = {tuple(z): i for i, z in enumerate(Z.tolist())}
    E = np.zeros(len(R))
    for ci, c in enumerate(R):
        rows = [index[tuple(z)] for z in (c + offs).tolist()]
        L = _hellinger(a, np.broadcast_to(c, out[rows].shape), out[rows])  # (|offs|, J)
        E[ci] = (wts * (p[rows] * L).sum(1)).sum()
    return R, E


@pytest.mark.parametrize("a, n0, n, eps", [((1, 1, 1, 1), 7, 7, 2.0), ((2, 0.5, 1, 1), 8, 11, 2.0)])
def test_corner_errors_equal_the_definition(a, n0, n, eps):
    """At n0 and translated past it (n > n0): the errors over R(n) equal the definition's sum, and the table changed
    them (the test can tell the remaps apart)."""
    remap = corners_any._at(corners_any.solve_any(np.asarray(a, float), n0, eps, 2, 2), n)
    We = 5
    got = corners_any.corner_errors_any(remap, We)
    R, E = _brute_errors(remap, a, n, eps, We)
    order = np.lexsort(R.T[::-1])
    R, E = R[order], E[order]
    order = np.lexsort(got.counts.T[::-1])
    assert np.array_equal(got.counts[order], R)
    assert np.abs(got.low[order] - E).max() < 1e-12
    Zw, rest = corners_any.rest_window_outputs(np.asarray(a, float), n, eps, We)
    from dpposterior.lattice.batched import window_errors_any

    assert np.abs(got.low - window_errors_any(a, n, eps, rest, We).low).max() > 1e-3


def _errors_one_offset_at_a_time(remap, We):
    """The recomputation as first written: for each block of data sets near the table, one offset at a time, the
    table's row of every ``z = c + w`` looked up (:meth:`AnyCornerRemap.rows`) and the rest's output read at the
    window key of z, ``acc += K(w) term``; the rest of R(n) the window errors."""
    from dpposterior.distances.hellinger import hellinger_from_log_bc
    from dpposterior.lattice.batched import window_errors_any
    from dpposterior.lattice.corners import _window_key
    from dpposterior.lattice.noise import log_normaliser
    from dpposterior.lattice.remap import _ball
    from dpposterior.lattice.scale import _LossTables

    a, n, eps, k = remap.a, remap.n, remap.epsilon, remap.a.size
    _, rest = corners_any.rest_window_outputs(a, n, eps, We)
    base = window_errors_any(a, n, eps, rest, We)
    offs = _ball(k, We)
    wts = np.exp(-eps * (np.abs(offs).sum(axis=1) // 2) - log_normaliser(k, eps))
    pts = remap.points.copy()
    pts[np.arange(len(pts)), remap.corner] += n - remap.n_ref
    ai = corners_any.near_data_sets(pts, offs)
    A = corners_any._unrank(ai, n, k)
    tables = _LossTables(a, n, base.counts).tables

    def loss(c, r):
        lb = tables[0][c[..., 0] * (n + 1) + r[..., 0]]
        for i in range(1, k):
            lb = lb + tables[i][c[..., i] * (n + 1) + r[..., i]]
        return hellinger_from_log_bc(lb, out=lb)

    low = base.low.copy()
    step = 7  # small blocks: the sums must not depend on the blocking
    for lo in range(0, len(A), step):
        c = A[lo:lo + step]
        acc = np.zeros(len(c))
        for w, kw in zip(offs, wts):
            z = c + w[None, :]
            f = remap.rows(z)
            on = f >= 0
            term = np.empty(len(c))
            if (~on).any():
                term[~on] = loss(c[~on], rest[_window_key(z[~on], We)])
            if on.any():
                ro = remap.row_outputs(f[on])
                term[on] = (remap.probs[f[on]] * loss(np.broadcast_to(c[on][:, None, :], ro.shape), ro)).sum(axis=1)
            acc += kw * term
        low[ai[lo:lo + step]] = acc
    return low


@pytest.mark.parametrize("a, n0, n, eps, We", [((1, 1, 1, 1), 7, 7, 2.0, 5), ((2, 0.5, 1, 1), 8, 11, 2.0, 5),
                                               ((1, 1, 1, 1), 12, 12, 2.0, 7)])
def test_corner_errors_in_blocks_are_the_one_offset_sums_bit_for_bit(a, n0, n, eps, We):
    """The recomputation in blocks of (offset x data set), its keys read off the window's grid and its sum over
    offsets a reduction down the rows, gives the floats of the sum one offset at a time (the pipeline's results are
    compared byte for byte), here with the table translated (n > n0) and at the route's own radius."""
    remap = corners_any._at(corners_any.solve_any(np.asarray(a, float), n0, eps, 2, 2), n)
    got = corners_any.corner_errors_any(remap, We, delta=False)
    want = _errors_one_offset_at_a_time(remap, We)
    assert got.low.tobytes() == want.tobytes()
    # the route by the tables' differences: the same sums in another order
    assert np.abs(corners_any.corner_errors_any(remap, We).low - want).max() < 1e-13


@settings(max_examples=8, deadline=None)
@given(st.integers(2, 7), st.sampled_from([1.0, 1.5, 2.0, 3.0]), st.integers(1, 3))
def test_the_rest_by_orbits_is_the_one_point_search_at_every_window_point(n, eps, We):
    """The worst route's rest at a symmetric prior (one search per orbit of R(n)) against the definition a draw runs,
    the one-point search at ``project(z)``, at every point of the window, and against the search without orbits."""
    from dpposterior.lattice.remap import local_bayes_search, project

    a = np.ones(4)
    Zw, got = corners_any.rest_window_outputs(a, n, eps, We)
    want = np.stack([local_bayes_search(a, n, eps, p) for p in project(Zw, n)])
    assert np.array_equal(got, want)
    assert np.array_equal(got, corners_any.rest_window_outputs(a, n, eps, We, orbits=False)[1])


def test_the_corner_route_by_orbits_gives_the_table_and_the_errors_bit_for_bit(monkeypatch):
    """The solve's fixed rows and the errors' rest searched by orbits (the default at a symmetric prior) give the same
    table and the same floats as the search point by point (the pipeline's results are compared byte for byte)."""
    from dpposterior.lattice import batched

    a, n0, n, eps, We = np.ones(4), 7, 9, 2.0, 4
    remap = corners_any._at(corners_any.solve_any(a, n0, eps, 2, 2), n)
    got = corners_any.corner_errors_any(remap, We)
    search = batched.local_search_batch
    monkeypatch.setattr(batched, "local_search_batch", lambda *args, orbits=False, **kw: search(*args, **kw))
    plain = corners_any._at(corners_any.solve_any(a, n0, eps, 2, 2), n)
    assert plain.outputs.tobytes() == remap.outputs.tobytes() and plain.probs.tobytes() == remap.probs.tobytes()
    want = corners_any.corner_errors_any(plain, We, orbits=False)
    assert got.low.tobytes() == want.low.tobytes()


def test_lp_is_the_minimax_of_its_cut_errors():
    """The LP's t is the largest of its constrained data sets' errors with the kernel cut at W (the brute-force sum
    over every z within W, the table on F and the rest elsewhere), within the tie-break; every free row is a
    distribution over outputs within R_RADIUS of project(z)."""
    a, n, eps = np.array([1.0, 2.0, 1.0, 0.5]), 6, 2.0
    remap = corners_any.solve_any(a, n, eps, 2, 2)
    A, lam = remap.duals
    W = remap.W
    offs = _offsets(W)
    wts = np.exp(-eps * (np.abs(offs).sum(1) // 2)) / _Z(eps)
    E = np.zeros(len(A))
    Z = np.unique((A[:, None, :] + offs[None, :, :]).reshape(-1, 4), axis=0)
    out, p = remap.transition(Z)
    index = {tuple(z): i for i, z in enumerate(Z.tolist())}
    for i, c in enumerate(A):
        rows = [index[tuple(z)] for z in (c + offs).tolist()]
        E[i] = (wts * (p[rows] * _hellinger(a, np.broadcast_to(c, out[rows].shape), out[rows])).sum(1)).sum()
    t = remap.certificate["lp"]
    assert abs(E.max() - t) < 1e-4 + 1e-7
    assert np.allclose(remap.probs.sum(1), 1.0) and (remap.probs >= 0).all()
    from dpposterior.lattice.remap import project

    p = project(remap.points, n)
    d = np.abs(remap.outputs - p[:, None, :]).sum(-1) // 2
    assert (d[remap.probs > 0] <= corners_any.R_RADIUS).all()
    # the duals weigh the constraints that bind
    assert np.all(E[lam > 1e-6] > t - 1e-3)


def test_certified_bound_below_the_window_lp_and_the_release():
    """k = 4, n = 3, eps = 2 (the window's minimax LP runs): the certified bound is positive and at most the window
    LP's worst case (an upper end of the best worst case over remaps); at n = 12 at most the corner release's exact
    worst case, and within 7 % of it."""
    spec = ReleaseSpec.of("lattice", 2.0, objective="worst")
    a = np.ones(4)
    window = LATTICE.certificate(a, 3, spec)
    assert window["remap"] == "minimax"
    bound = corners_any.certify_any(corners_any.corner_remap_any(a, 3, 2.0))
    assert 0.5 * window["lower"] < bound <= window["lower"] + 1e-9
    remap = corners_any.corner_remap_any(a, 12, 2.0)
    bound = corners_any.certify_any(remap)
    worst = corners_any.corner_errors_any(remap, 7).high.max()
    # the planned block (depth 7) closes the bracket to ~1.05 (the remap's depth 3 left 1.23)
    assert 0.93 * worst < bound <= worst


def test_routes_of_lattice_and_optimal_worst_at_k4():
    """Past the window's LP (k = 4, n = 20, eps = 2) lattice~worst and optimal~worst are the corner remap, planned for
    errors and draws; a draw at n = 10,000 runs; k = 3's and k = 5's routes are as before."""
    spec = ReleaseSpec.of("lattice", 2.0, objective="worst")
    a = np.ones(4)
    assert LATTICE.uses_window(5, 4, spec) and not LATTICE.uses_window(20, 4, spec)
    pe = LATTICE.plan(Task.ERRORS, spec, a, 20)
    pd = LATTICE.plan_draw(a, 20, spec)
    assert pe.route == pd.route == "corner remap" and pe.fits and not pd.refusal
    # the errors' search one point per orbit at a symmetric prior (the same route, a smaller estimate)
    assert pe.seconds < LATTICE.plan(Task.ERRORS, spec, (1.0, 1.0, 1.0, 2.0), 20).seconds
    po = OPTIMAL.plan(Task.ERRORS, ReleaseSpec.of("optimal", 2.0, objective="worst"), a, 20)
    assert po.route == "corner remap"
    draws = dp.sample("lattice", a, (9000, 500, 300, 200), epsilon=2.0, objective="worst", size=3, rng=1)
    assert draws.shape == (3, 4) and (draws.sum(1) == 10000).all() and (draws >= 0).all()
    # a draw near a vertex reads the table (translated from n_ref)
    remap = corners_any.cached_corner_remap_any((1.0, 1.0, 1.0, 1.0), 10000, 2.0)
    assert remap.n_ref < 10000 and remap.rows(np.array([[9998, 1, 1, 0]]))[0] >= 0
    assert LATTICE.uses_window(8, 5, spec)
    assert LATTICE.uses_window(27, 3, ReleaseSpec.of("lattice", 2.0, objective="worst")) == (
        not LATTICE.uses_corners(27, 3, spec))
    assert math.isfinite(LATTICE.certificate(a, 20, spec)["lp"])


def test_the_k4_corner_releases_posterior_is_its_own_local_column(monkeypatch):
    """Off its table the k = 4 corner remap outputs the local remap of project(z): its posterior is the local column
    that follows it (the table's rows, then the local search of project(z); checked against the brute-force column in
    tests/library/test_noise_aware_column.py), planned as that route, never refused for it."""
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1e9")
    for name, mech in (("lattice", LATTICE), ("optimal", OPTIMAL)):
        spec = ReleaseSpec.of(name, 2.0, objective="worst")
        plan = mech.plan(Task.POSTERIOR, spec, np.ones(4), 20)
        assert plan.route == "local column" and not plan.refusal
    average = LATTICE.plan(Task.POSTERIOR, ReleaseSpec.of("lattice", 2.0, objective="average"), np.ones(4), 20)
    assert average.route == "local column" and not average.refusal


def test_the_k4_corner_errors_plan_counts_the_terms_at_the_tables_rows():
    """The errors add the terms at the tables' rows in blocks (never a table of every table point x every offset,
    which at eps = 0.25 was 23 GiB and met the OOM killer in a pipeline job, and at eps = 0.5 refused n = 10 at
    ~12 GiB): eps = 1 at n = 10 fits within 1 GiB and eps = 0.5 within 2 GiB (its solve's measured 676 MiB:
    mechanisms.lattice.CORNER_ANY_SMALL_EPS); at eps = 0.25 the corner errors are not planned (n = 5's job peaked at
    6.7 GB against 1.0 GB planned), so ``worst`` takes the local Bayes remap's route, refused in one line by its own
    plan at these n."""
    from dpposterior.limits import admit

    a = np.ones(4)
    for n in (5, 10):
        spec = ReleaseSpec.of("lattice", 0.25, objective="worst")
        corner = LATTICE._corner_plan_any(n, 4, spec, "the corner errors", symmetric=True)
        assert corner.route == "corner remap" and not corner.fits and "not planned" in corner.refused()
        plan = LATTICE.plan(Task.ERRORS, spec, a, n)
        assert plan.route == "batched local search" and not plan.fits
        with pytest.raises(SizeError, match="batched local search") as err:
            admit(plan)
        assert "\n" not in str(err.value)
    for eps, gib in ((0.5, 2), (1.0, 1)):
        plan = LATTICE.plan(Task.ERRORS, ReleaseSpec.of("lattice", eps, objective="worst"), a, 10)
        assert plan.route == "corner remap" and plan.memory_bytes < gib * 2**30 and plan.fits
    # its solve ran 676 MiB at eps = 0.5, n = 10 (benchmarks/corner_solve_k4.json; `accuracy` with the errors 683
    # MiB): a plan below that is not the route's
    plan = LATTICE.plan(Task.ERRORS, ReleaseSpec.of("lattice", 0.5, objective="worst"), a, 10)
    assert plan.memory_bytes >= 684 * 2**20


def test_certificate_plan_counts_its_sets_and_takes_the_deepest_block_within_its_share():
    """The plan's closed forms equal the sets the certificate builds, by brute force: the block's data sets (every c
    of R(n) with n - max c <= depth) and the rows within ``reach`` of one vertex's data sets (far from the other
    vertices); the default depth is the deepest whose estimate fits ``CERT_SECONDS`` (the next one does not)."""
    n = 200
    for m, reach in [(0, 2), (3, 2), (2, 5), (5, 3)]:
        block = 4 * sum(1 for u in itertools.product(range(m + 1), repeat=3) if sum(u) <= m)  # 4 vertices apart
        assert corners_any.certificate_sizes_any(n, 4, 2.0, m)["block"] == block
        near = {(n - sum(u),) + u for u in itertools.product(range(m + 1), repeat=3) if sum(u) <= m}
        rows = {tuple(np.add(c, w)) for c in near for w in _offsets(reach).tolist()}
        assert len(rows) == corners_any._rows_near(4, m, reach)
    assert corners_any.certificate_sizes_any(5, 4, 2.0, 9)["block"] == len(_R(5))
    for eps, n in [(2.0, 20), (2.0, 100), (1.0, 10), (1.0, 100), (0.5, 10)]:
        plan, depth = corners_any.plan_certify_any(n, 4, eps)
        assert depth >= 1 and plan.route == f"corner block, depth {depth}"
        assert depth == 1 or plan.seconds <= corners_any.CERT_SECONDS
        if depth < min(n, corners_any.MAX_CERT_DEPTH):
            assert corners_any.plan_certify_any(n, 4, eps, depth + 1)[0].seconds > corners_any.CERT_SECONDS
    # eps = 2 affords a deeper block than the remap's (depth 3), the one that closes the bracket
    assert corners_any.plan_certify_any(100, 4, 2.0)[1] >= 7


def test_certificate_over_its_limit_is_refused_in_one_line(monkeypatch):
    """The certificate is admitted by its plan: under a small solve limit it refuses in one line, before any LP."""
    remap = corners_any.corner_remap_any(np.ones(4), 12, 2.0)
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "0.1")
    with pytest.raises(SizeError) as info:
        corners_any.certify_any(remap)
    assert "certificate" in str(info.value) and "\n" not in str(info.value)


# -- the edge table (k = 4, 1 <= eps < 2) --------------------------------------------------------------------------


def _edge_T(edges, z):
    """The edge table's row at one lattice point z by its definition (docs/lattice.md), or None: the largest count
    (first of a tie), the second largest (likewise), the other two in index order; a row when the two others lie in
    [-low, top], the second largest is >= top + 1 and the largest >= their negative parts + 1; its outputs are
    z + the table's offset read in that role order."""
    z = list(int(x) for x in z)
    i = max(range(4), key=lambda x: (z[x], -x))
    j = max((x for x in range(4) if x != i), key=lambda x: (z[x], -x))
    small = [x for x in range(4) if x not in (i, j)]
    neg = sum(max(0, -z[x]) for x in small)
    if not (all(-edges.low <= z[x] <= edges.top for x in small) and z[j] >= edges.top + 1 and z[i] >= neg + 1):
        return None
    pair = [tuple(p) for p in edges.pairs.tolist()].index(tuple(sorted((i, j))))
    side = edges.top + edges.low + 1
    u = (z[small[0]] + edges.low) * side + (z[small[1]] + edges.low)
    order = [i, j] + small
    outs = []
    for off in edges.offsets[pair, u]:
        o = list(z)
        for r, x in enumerate(order):
            o[x] += int(off[r])
        outs.append(o)
    return np.array(outs, dtype=np.int64), edges.probs[pair, u]


def _brute_errors_edges(remap, a, n, eps, We):
    """E(c) term by term with T from the definition: the corner table's row (translated), else the edge row
    (:func:`_edge_T`), else the local Bayes output of project(z) (the one-point search)."""
    from dpposterior.lattice.remap import local_bayes_search, project

    offs = _offsets(We)
    wts = np.exp(-eps * (np.abs(offs).sum(1) // 2)) / _Z(eps, 40)
    R = _R(n)
    E = np.zeros(len(R))
    cache = {}
    for ci, c in enumerate(R):
        acc = 0.0
        for w, kw in zip(offs, wts):
            z = c + w
            key = tuple(z.tolist())
            if key not in cache:
                f = int(remap.rows(z[None, :])[0])
                if f >= 0:
                    cache[key] = (remap.row_outputs(np.array([f]))[0], remap.probs[f])
                else:
                    cache[key] = _edge_T(remap.edges, z) or (
                        local_bayes_search(a, n, eps, project(z[None, :], n)[0])[None, :], np.ones(1))
            out, p = cache[key]
            acc += kw * float((p * _hellinger(a, np.broadcast_to(c, out.shape), out)).sum())
        E[ci] = acc
    return R, E


@pytest.fixture(scope="module")
def edge_remap():
    """The corner and edge tables solved together at n = 6, eps = 1 (depth 1, so that the edge rows matter; top 1)."""
    a = np.array([1.0, 1.0, 2.0, 0.5])
    return a, corners_any.solve_any(a, 6, 1.0, 1, 2, top=1)


def test_edge_table_errors_equal_the_definition(edge_remap):
    """k = 4, n = 6, eps = 1 with the edge table: every error equals the definition's sum with T transcribed from the
    tables' definitions (the edge rows by their roles, not by the library's lookup), and the edge table moved them
    (with it removed the errors differ: the test can tell)."""
    from dataclasses import replace

    a, remap = edge_remap
    assert remap.edges is not None and (remap.edges.probs.sum(2) > 0.999).all()
    We = 4
    got = corners_any.corner_errors_any(remap, We)
    R, E = _brute_errors_edges(remap, a, 6, 1.0, We)
    order = np.lexsort(R.T[::-1])
    R, E = R[order], E[order]
    order = np.lexsort(got.counts.T[::-1])
    assert np.array_equal(got.counts[order], R)
    assert np.abs(got.low[order] - E).max() < 1e-12
    without = corners_any.corner_errors_any(replace(remap, edges=None), We)
    assert np.abs(without.low - got.low).max() > 1e-3
    # the transition (what a draw and the column read) is the definition's at every point of a box
    Z = np.array([z for z in itertools.product(range(-2, 9), repeat=3)], dtype=np.int64)
    Z = np.concatenate([Z, 6 - Z.sum(1, keepdims=True)], axis=1)
    out, p = remap.transition(Z)
    for z, o, q in zip(Z, out, p):
        if remap.rows(z[None, :])[0] >= 0:
            continue
        want = _edge_T(remap.edges, z)
        if want is None:
            assert q[0] == 1.0 and not q[1:].any()
            continue
        got_rows = {tuple(x): y for x, y in zip(o.tolist(), q) if y > 0}
        want_rows = {tuple(x): y for x, y in zip(want[0].tolist(), want[1]) if y > 0}
        assert got_rows == want_rows


def test_edge_rows_to_an_output_are_every_edge_row_that_reaches_it(edge_remap):
    """:meth:`EdgeTableAny.rows_to` (the local column's edge rows) against a scan of a box of lattice points around
    the output: the same points with the same T(z, m)."""
    a, remap = edge_remap
    for m in ([3, 2, 1, 0], [4, 2, 0, 0], [2, 2, 1, 1]):
        m = np.array(m, dtype=np.int64)
        got_z, got_t = remap.edges.rows_to(m, lambda z: remap.rows(z) >= 0)
        Z = np.array([z for z in itertools.product(range(-3, 10), repeat=3)], dtype=np.int64)
        Z = np.concatenate([Z, 6 - Z.sum(1, keepdims=True)], axis=1)
        want = {}
        for z in Z:
            if remap.rows(z[None, :])[0] >= 0:
                continue
            row = _edge_T(remap.edges, z)
            if row is None:
                continue
            t = float(row[1][np.all(row[0] == m, axis=1)].sum())
            if t > 0:
                want[tuple(z.tolist())] = t
        assert {tuple(z): t for z, t in zip(got_z.tolist(), got_t)} == pytest.approx(want)
        assert want


def test_edge_table_translates_along_its_edge_and_the_remap_past_n_ref():
    """The edge table's row is the same at every position along its edge: at n = 40 the row of z and of z moved by
    t (e_i - e_j) along the edge {i, j} give the same offsets (the outputs move with z; the larger of the two stays the
    larger); and the remap at n past its
    n_ref reads, at a point near vertex j, the row solved at n_ref of the point moved back by (n - n_ref) e_j."""
    a = np.ones(4)
    base = corners_any.solve_any(a, 12, 1.0, 1, 2, top=1)
    remap = corners_any._at(base, 40)
    z = np.array([[28, 10, 1, 1], [27, 14, 0, -1], [12, 27, 1, 0]], dtype=np.int64)  # the roles kept when moved
    for t in (1, 3, -2):
        moved = z + t * np.array([1, -1, 0, 0])
        o1, p1 = remap.transition(z)
        o2, p2 = remap.transition(moved)
        assert np.array_equal(p1, p2) and np.array_equal(o2 - moved[:, None, :], o1 - z[:, None, :])
        assert (remap.edge_rows(z)[0] >= 0).all()
    # past n_ref: a point near vertex 0 at n = 40 reads the row of the point at n_ref = 12
    zt = np.array([[39, 1, 0, 0], [40, 0, 0, 0], [39, 0, 2, -1]], dtype=np.int64)
    assert (remap.rows(zt) >= 0).all()
    back = zt - np.array([28, 0, 0, 0])
    o40, p40 = remap.transition(zt)
    o12, p12 = base.transition(back)
    assert np.array_equal(p40, p12) and np.array_equal(o40, o12 + np.array([28, 0, 0, 0]))


def test_certified_bound_below_the_lp_and_the_edge_release():
    """With the edge table: at k = 4, n = 4, eps = 1.5 (the window's LP runs; depth 1 and top 1, so that edge rows lie
    off the corner rows) the certified bound is at most the window LP's certified optimum and the release's exact worst
    case is not below it; at n = 10, eps = 1 (the defaults, the edge table in use) the bound is below the release's
    exact worst case."""
    a = np.ones(4)
    spec = ReleaseSpec.of("lattice", 1.5, objective="worst")
    window = LATTICE.certificate(a, 4, spec)
    assert window["remap"] == "minimax"
    remap = corners_any.solve_any(a, 4, 1.5, 1, 2, top=1)
    assert remap.edges is not None and (remap.edge_rows(corners_any.window(4, 4, 2))[0] >= 0).any()
    bound = corners_any.certify_any(remap)
    assert 0 < bound <= window["lower"] + 1e-9
    assert corners_any.corner_errors_any(remap, 12).high.max() >= window["lower"] - 1e-9
    remap = corners_any.corner_remap_any(a, 10, 1.0)
    assert remap.edges is not None
    bound, worst = corners_any.certify_any(remap), corners_any.corner_errors_any(remap, 12).high.max()
    # the whole-simplex weights (measured 0.4900 against 0.49828) lift it past the corner blocks' 0.45826
    assert 0.97 * worst < bound <= worst


def test_the_edge_releases_local_column_holds_every_row_that_reaches_its_output():
    """The local column of the k = 4 corner release with its edge table (n = 10, eps = 1): every point of a region and
    every row of the two tables (enumerated whole, on or off the box) with ``T(z, m) > 0`` is in the column with that
    probability, and nothing else; off both tables the local search of project(z).  (At n <= 8 the corner rows hold
    every edge row.)"""
    from dpposterior.mechanisms.lattice import LatticeMechanism, _corner, _radius

    a, n, eps = np.array([1.0, 1.0, 2.0, 1.0]), 10, 1.0
    remap = _corner(tuple(a.tolist()), n, eps)
    assert remap.edges is not None
    edged = 0
    for m in ([5, 4, 1, 0], [4, 5, 0, 1], [10, 0, 0, 0]):
        m = np.array(m, dtype=np.int64)
        box = m + _offsets(3)  # a region around m (the column's own region is wider; any region is checked alike)
        Z, t = LatticeMechanism._corner_column_any(a, n, eps, m, box, 8, _radius(4, eps, 1e-12))  # the column's Dc
        got = {tuple(z): x for z, x in zip(Z.tolist(), t) if x > 0}
        allz = np.unique(np.concatenate([box, Z]), axis=0)
        out, p = remap.transition(allz)
        inbox = {tuple(z) for z in box.tolist()}
        tables = (remap.rows(allz) >= 0) | (remap.edge_rows(allz)[0] >= 0)
        want = {}
        for z, o, q, on in zip(allz.tolist(), out, p, tables):
            x = float(q[np.all(o == m, axis=1)].sum())
            if x > 0 and (on or tuple(z) in inbox):
                want[tuple(z)] = x
        assert got == pytest.approx(want)
        edged += sum(remap.edge_rows(np.array([z]))[0][0] >= 0 for z in want)
    assert edged > 0


# -- the whole-simplex certificate (small n) -------------------------------------------------------------------------


def test_rows_within_counts_the_lattice_points_near_the_simplex():
    """The closed form of the points within ``reach`` of R(n) (sum n, the negative parts summing to at most reach)
    equals their enumeration over a box."""
    for n, reach in [(0, 3), (1, 2), (4, 3), (7, 1), (3, 5)]:
        box = range(-reach, n + reach + 1)
        count = sum(1 for u in itertools.product(box, repeat=3)
                    if -reach <= n - sum(u) and sum(max(-x, 0) for x in (*u, n - sum(u))) <= reach)
        assert corners_any.rows_within(n, 4, reach) == count


@pytest.mark.parametrize("a, n, eps", [((1.0, 1.0, 1.0, 1.0), 3, 2.0), ((0.5, 2.0, 1.0, 1.0), 3, 1.0)])
def test_simplex_certificate_below_the_window_lp_and_close_to_it(a, n, eps):
    """Where the window's minimax LP runs (its certified optimum over every remap of the release), the whole-simplex
    bound is at most that optimum and within 1 % of it (measured 0.993 and 0.9995): the ascent's weights are near the
    LP's own duals."""
    window = LATTICE.certificate(np.array(a), n, ReleaseSpec.of("lattice", eps, objective="worst"))
    assert window["remap"] == "minimax"
    bound = corners_any.certify_simplex_any(a, n, eps)
    assert 0.99 * window["lower"] < bound <= window["lower"] + 1e-9


def test_simplex_certificate_is_planned_and_refused_in_one_line(monkeypatch):
    """Its plan takes the most ascent steps within its share (the next one does not fit), none past it at n = 30,
    eps = 1 (where ``certify_any`` then keeps the corner blocks alone); under a small solve limit it refuses in one
    line before anything runs."""
    for eps, n in [(1.0, 10), (1.0, 20), (2.0, 20), (0.5, 12)]:
        plan, steps = corners_any.plan_certify_simplex_any(n, 4, eps)
        assert plan.route == f"whole simplex, {steps} steps" and plan.seconds <= corners_any.SIMPLEX_CERT_SECONDS
        if steps < corners_any.SIMPLEX_MAX_STEPS:
            assert corners_any.plan_certify_simplex_any(n, 4, eps, steps + 1)[0].seconds > corners_any.SIMPLEX_CERT_SECONDS
    assert corners_any.plan_certify_simplex_any(30, 4, 1.0)[0].seconds > corners_any.SIMPLEX_CERT_SECONDS
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "0.001")
    with pytest.raises(SizeError) as info:
        corners_any.certify_simplex_any(np.ones(4), 10, 1.0)
    assert "whole-simplex certificate" in str(info.value) and "\n" not in str(info.value)


def test_simplex_weights_climb_from_the_uniform():
    """The ascent keeps the best weights it met: their certified bound is at least the uniform weights' (eps = 1,
    n = 6), and strictly above it here (the uniform weights certify the average, below the worst case)."""
    a = np.ones(4)
    lo = corners_any.certify_simplex_any(a, 6, 1.0, steps=0)
    hi = corners_any.certify_simplex_any(a, 6, 1.0, steps=10)
    assert lo < hi


@pytest.mark.parametrize("n, k", [(0, 4), (1, 4), (2, 4), (3, 4), (7, 4), (12, 4), (4, 5), (9, 5), (2, 3), (6, 3)])
def test_the_face_points_closed_form_is_the_enumeration(n, k):
    """``face_points(n, k)``: the points of R(n) with exactly one zero count, counted by enumeration."""
    from dpposterior.mechanisms import lattice as lattice_module

    want = sum(1 for c in itertools.product(range(n + 1), repeat=k) if sum(c) == n and c.count(0) == 1)
    assert lattice_module.face_points(n, k) == want


@pytest.mark.parametrize("n, eps", [(16, 1.0), (20, 1.0), (20, 2.0), (10, 1.5), (12, 0.5)])
def test_the_corner_plan_counts_every_point_its_search_leaves(monkeypatch, n, eps):
    """What the corner route's search over R(n) leaves to its grouped route (recorded where the table hands it on; the
    grouped route itself stubbed) is no more than the plan counts: at eps >= FACE_MIN_EPSILON only face points (one
    zero count), at most ``face_points x min(1, (tail / FACE_TAIL)^2)``; below it every point of R(n) is counted, and the
    table leaves points inside R(n) too."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.noise import tail_bound
    from dpposterior.mechanisms import lattice as lattice_module

    left = []

    def record(a, n_, eps_, Z, mu, exact=None, P=None, kept_columns=False, drop=0.0):
        left.append(np.array(Z))
        return np.zeros_like(Z), np.ones(len(Z), dtype=bool)

    monkeypatch.setattr(batched, "_grouped_search", record)
    R = _R(n)
    batched.local_search_batch(np.ones(4), n, eps, R)
    Z = np.concatenate(left) if left else np.zeros((0, 4), dtype=np.int64)
    if eps < lattice_module.FACE_MIN_EPSILON:
        assert np.any(Z.min(axis=1) > 0)  # inside points left: so the plan counts all of R(n)
        return
    assert np.all((Z == 0).sum(axis=1) == 1)
    share = min(1.0, (tail_bound(4, eps, batched.batch_radius(4, eps) - 1) / lattice_module.FACE_TAIL) ** 2)
    assert len(Z) <= lattice_module.face_points(n, 4) * share
    if eps == 1.0:  # at eps = 1 the table leaves many face points (132 of 420 at n = 16, 300 of 684 at n = 20)
        assert share == 1.0 and len(Z) > 0


def test_the_k4_corner_errors_at_eps2_n100_are_planned_within_the_limits():
    """Dir(1,1,1,1), eps = 2, n = 100 (compare's row): the corner route's search leaves no face point there (the
    table's tail 3.1e-5), so its plan counts a share of them and fits (it counted every point with a count at most 1
    as a one-point search: ~136 s).  At eps = 1, n = 50 the search by orbits (one face point per orbit, ~1/20 of
    them) and the data sets recomputed counted in closed form fit too (80.5 s of solve and 8.8e8 sums planned before);
    n = 100 fits by orbits (``test_corner_orbit_plans.py``), and without orbits (a prior that is not symmetric) n = 50
    does not.  At a symmetric prior, eps = 1, n = 50 the release reads the face table instead."""
    a = np.ones(4)
    plan = LATTICE.plan(Task.ERRORS, ReleaseSpec.of("lattice", 2.0, objective="worst"), a, 100)
    assert plan.route == "corner remap" and plan.fits
    spec = ReleaseSpec.of("lattice", 1.0, objective="worst")
    plan = LATTICE.plan(Task.ERRORS, spec, a, 50)
    # there the release reads the face table (mechanisms.lattice.faces_fit), whose errors rest on the average's
    # search, planned within the solve limit (42.5 s of 45); the corner route's own plan fits too
    assert plan.route == "face table" and plan.fits
    assert LATTICE._corner_plan_any(50, 4, spec, "the corner route", True).fits
    # n = 100: its search by orbits capped at its measured n^3 law, the rest's sum by orbits and its two solves each
    # within the solve limit (before: refused, 93 s of solve over 45)
    plan = LATTICE.plan(Task.ERRORS, spec, a, 100)
    assert plan.route == "corner remap, by orbits" and plan.fits
    plan = LATTICE.plan(Task.ERRORS, spec, (1.0, 1.0, 1.0, 1.5), 50)
    assert plan.route == "corner remap" and not plan.fits


@pytest.mark.parametrize("n, eps", [(16, 1.0), (20, 1.0), (10, 0.5), (12, 2.0)])
def test_the_orbit_plan_counts_the_points_the_search_by_orbits_searches_again(n, eps):
    """The points the worst route's search by orbits searches again point by point (orbits whose representative is
    not certified) are no more than its plan counts (:data:`FACE_LEFT`): ``FACE_LEFT[0] n`` at eps >= 1,
    ``FACE_LEFT[1] n^1.5`` below; and at eps = 1 some are (the plan's term is not idle)."""
    from dpposterior.lattice import batched
    from dpposterior.mechanisms import lattice as lattice_module

    stats = {}
    batched.local_search_batch(np.ones(4), n, eps, _R(n), orbits=True, stats=stats)
    c = lattice_module.FACE_LEFT
    assert stats["left"] <= (c[0] * n if eps >= lattice_module.FACE_MIN_EPSILON else c[1] * n ** 1.5)
    if eps == 1.0:
        assert stats["left"] > 0
