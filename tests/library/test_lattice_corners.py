"""The corner remap of ``lattice~worst`` (dpposterior.lattice.corners; docs/lattice.md, "A worst-case remap at any n").

The oracles transcribe the definitions with scipy only: the kernel ``e^(-eps d(w)) / Z`` with ``Z = 1 + 6 x / (1 - x)^2``
at k = 3 (``x = e^-eps``), the Hellinger distance between Dirichlets by ``gammaln``; the remap under test supplies
``T(z, .)`` (:meth:`CornerRemap.transition`).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammaln

from dpposterior.lattice import corners
from dpposterior.lattice.noise import window
from dpposterior.lattice.search import local_search_many, window_errors
from dpposterior.limits import Task
from dpposterior.mechanisms import LATTICE, OPTIMAL, ReleaseSpec


def _hellinger(a, c, r):
    """H(Dir(a + c), Dir(a + r)) for rows of c and r (same total), from the Beta-function formula."""
    a = np.asarray(a, float)
    x, y = a + c, a + r
    m = (x + y) / 2
    log_bc = (gammaln(m).sum(-1) - gammaln(m.sum(-1))
              - 0.5 * (gammaln(x).sum(-1) - gammaln(x.sum(-1)) + gammaln(y).sum(-1) - gammaln(y.sum(-1))))
    return np.sqrt(np.clip(1 - np.exp(np.minimum(log_bc, 0)), 0, 1))


def _offsets(D):
    """Every w in Z^3 with sum 0 and |w|_1 / 2 <= D."""
    return np.array([(i, j, -i - j) for i in range(-D, D + 1) for j in range(-D, D + 1)
                     if (abs(i) + abs(j) + abs(i + j)) // 2 <= D], dtype=np.int64)


def _kernel_weights(eps, offs):
    x = math.exp(-eps)
    Z = 1 + 6 * x / (1 - x) ** 2
    return np.exp(-eps * (np.abs(offs).sum(1) // 2)) / Z


def _brute_errors(remap, a, n, eps, We):
    """E(c) = sum over d(w) <= We of K(w) sum_r T(c + w, r) L(c, r), every c of R(n), term by term."""
    offs = _offsets(We)
    wts = _kernel_weights(eps, offs)
    R = np.array([(i, j, n - i - j) for i in range(n + 1) for j in range(n + 1 - i)], dtype=np.int64)
    Z = np.unique((R[:, None, :] + offs[None, :, :]).reshape(-1, 3), axis=0)
    out, p = remap.transition(Z)
    index = {tuple(z): i for i, z in enumerate(Z.tolist())}
    E = np.zeros(len(R))
    for ci, c in enumerate(R):
        rows = [index[tuple(z)] for z in (c + offs).tolist()]
        L = _hellinger(a, np.broadcast_to(c, out[rows].shape), out[rows])  # (|offs|, J)
        E[ci] = (wts * (p[rows] * L).sum(1)).sum()
    return R, E


@pytest.mark.parametrize("a, n, eps, We", [((1, 1, 1), 24, 2.0, 6), ((2, 0.5, 1), 30, 1.0, 7),
                                            ((1, 1, 1), 40, 2.0, 5)])
def test_corner_errors_equal_the_definition(a, n, eps, We):
    remap = corners.corner_remap(a, n, eps, depth=6 if eps < 2 else None)
    local = local_search_many(a, n, eps, window(n, 3, We))
    got = corners.corner_errors(remap, local, We)
    R, E = _brute_errors(remap, a, n, eps, We)
    assert np.array_equal(got.counts, R)
    assert np.abs(got.low - E).max() < 1e-12
    # and the table changed the errors near the vertices (else the test could not tell the remaps apart)
    assert np.abs(got.low - window_errors(a, n, eps, local, We).low).max() > 1e-3


def test_translated_table_past_the_reference_n():
    a, eps = (1, 1, 1), 2.0
    n_ref = corners.reference_n(eps)
    big, ref = corners.corner_remap(a, n_ref + 500, eps), corners.corner_remap(a, n_ref, eps)
    assert big.n_ref == ref.n == n_ref
    z = np.array([[n_ref - 3, 2, 1], [1, n_ref + 1, -2], [0, 4, n_ref - 4]])
    zb = z.copy()
    j = np.argmax(z, axis=1)
    zb[np.arange(3), j] += 500
    assert np.array_equal(big.rows(zb), ref.rows(z)) and (ref.rows(z) >= 0).all()
    ob, pb = big.transition(zb)
    orf, pr = ref.transition(z)
    orf[np.arange(3), :, j] += 500
    assert np.array_equal(pb, pr) and np.array_equal(ob, orf)


def test_certificate_is_below_every_remap_it_bounds():
    """The lower end bounds min over remaps of the worst case: below the corner release's own worst case and below the
    window's minimax remap (another remap of the same release), where that LP runs."""
    from dpposterior.lattice.remap import LatticeSetup, minimax_remap

    a, n, eps = (1, 1, 1), 12, 1.0
    remap = corners.corner_remap(a, n, eps, certify=True)
    lower = remap.certificate["lower"]
    We = 15
    local = local_search_many(a, n, eps, window(n, 3, We))
    worst = corners.corner_errors(remap, local, We).high.max()
    window_minimax = minimax_remap(LatticeSetup(a, n, eps), r_radius=2)
    assert 0.2 < lower <= worst
    assert lower <= window_minimax.certificate["upper"]
    # the certificate at n = 12 with all of R(n) near the corners: no far term; at n = 60 the far bound enters
    big = corners.corner_remap(a, 60, eps, certify=True)
    assert 0.25 < big.certificate["lower"] <= big.certificate["lp"] + 1e-3


def test_far_loss_is_the_least_marginal_distance():
    a = np.array([1.0, 2.0, 0.5])
    n, depth, reach = 40, 5, 4
    got = corners.far_loss(a, n, depth, reach, 1)
    best = min(_beta_h(a, 1, n, c2, r2) for c2 in range(n - depth, n + 1) for r2 in range(0, n - depth - reach))
    assert abs(got - best) < 1e-12


def _beta_h(a, j, n, cj, rj):
    A = a.sum()
    return _hellinger(np.array([a[j], A - a[j]]), np.array([cj, n - cj], float), np.array([rj, n - rj], float))


def test_the_plans_route_is_the_corner_remap_and_it_is_run():
    prior, n, eps = np.ones(3), 60, 2.0
    spec = ReleaseSpec.of("lattice", eps, objective="worst")
    assert LATTICE.plan(Task.DRAW, spec, prior, n).route == "corner remap"
    plan = LATTICE.plan(Task.ERRORS, spec, prior, n)
    assert plan.route == "corner remap" and not plan.refusal
    E = LATTICE.direct_errors(plan, prior, n, spec)
    remap = corners.cached_corner_remap((1.0, 1.0, 1.0), n, eps, corners.default_depth(eps))
    We = 8  # radius_for(3, 2, 1e-5)
    direct = corners.corner_errors(remap, local_search_many(prior, n, eps, window(n, 3, We)), We)
    assert np.array_equal(E.low, direct.low)
    # below the local Bayes remap's worst case (lattice~average's), which it replaces near the vertices
    avg = LATTICE.direct_errors(LATTICE.plan(Task.ERRORS, spec.averaged(), prior, n), prior, n, spec.averaged())
    assert E.high.max() < avg.low.max() - 0.005
    # optimal~worst past its LP is this release
    ospec = ReleaseSpec.of("optimal", eps, objective="worst")
    assert OPTIMAL.plan(Task.DRAW, ospec, prior, 100).route == "corner remap"


def test_draws_follow_the_remap_of_the_errors():
    """The sampler's outputs at a data set next to a vertex have the pmf sum_z K(z | c) T(z, .) of the remap whose
    errors are reported (chi-square), T from the same table."""
    from scipy.stats import chisquare

    import dpposterior as dp

    prior, n, eps = (1.0, 1.0, 1.0), 60, 2.0
    c = np.array([1, 58, 1])
    remap = corners.cached_corner_remap(prior, n, eps, corners.default_depth(eps))
    offs = _offsets(12)
    wts = _kernel_weights(eps, offs)
    out, p = remap.transition(c + offs)
    pmf = {}
    for o, q, w in zip(out, p, wts):
        for r, pr in zip(map(tuple, o), q):
            if pr > 0:
                pmf[r] = pmf.get(r, 0.0) + w * pr
    draws = dp.sample("lattice", prior, tuple(c), epsilon=eps, objective="worst", size=3000, rng=11)
    keys = sorted(pmf, key=lambda r: -pmf[r])
    big = [r for r in keys if pmf[r] * 3000 >= 5]
    seen = {r: 0 for r in big}
    rest = 0
    for d in map(tuple, draws.tolist()):
        if d in seen:
            seen[d] += 1
        else:
            rest += 1
    f_exp = np.array([pmf[r] for r in big] + [1 - sum(pmf[r] for r in big)]) * 3000
    f_obs = np.array([seen[r] for r in big] + [rest])
    assert chisquare(f_obs, f_exp * f_obs.sum() / f_exp.sum()).pvalue > 1e-6
    assert any(0 < q.max() < 1 for q in remap.probs)  # some rows are randomised: the test reads them


def test_a_randomised_row_is_drawn_with_its_probabilities():
    from scipy.stats import chisquare

    from dpposterior.randomness import bit_source

    remap = corners.cached_corner_remap((1.0, 1.0, 1.0), 60, 2.0, corners.default_depth(2.0))
    mixed = np.flatnonzero((remap.probs.max(axis=1) < 0.8) & (remap.probs.max(axis=1) > 0.2))
    assert mixed.size
    f = int(mixed[0])
    z = remap.points[f]
    out, p = remap.transition(z)
    bits = bit_source(5)
    draws = [tuple(remap.draw(z, bits)) for _ in range(2000)]
    support = [tuple(o) for o, q in zip(out[0], p[0]) if q > 0]
    assert set(draws) <= set(support)
    counts = np.array([draws.count(r) for r in support])
    expected = np.array([q for q in p[0] if q > 0]) * 2000
    assert chisquare(counts, expected).pvalue > 1e-6


def test_the_corner_solve_over_its_limit_is_refused_in_one_line(monkeypatch):
    """eps = 0.25: the corner LP is estimated over the memory and the solve limits (from public n, k, eps; nothing is
    built), each refused in one line naming its setting; so a draw takes no corner rows there (the local search's
    route, admitted: ``corners_fit``), while at eps = 1 the corner remap is the route."""
    from dpposterior.errors import SizeError

    spec = ReleaseSpec.of("lattice", 0.25, objective="worst")
    with pytest.raises(SizeError) as exc:
        LATTICE.check_corners(10**6, 3, spec, symmetric=True)
    line = str(exc.value)
    assert "corner remap" in line and "DPPOSTERIOR_MEMORY_GB" in line and "\n" not in line
    monkeypatch.setenv("DPPOSTERIOR_MEMORY_GB", "100")
    with pytest.raises(SizeError) as exc:
        LATTICE.check_corners(15, 3, spec, setups=8)
    line = str(exc.value)
    assert "corner remap" in line and "DPPOSTERIOR_MAX_SOLVE_SECONDS" in line and "\n" not in line
    monkeypatch.delenv("DPPOSTERIOR_MEMORY_GB")
    plan = LATTICE.plan(Task.DRAW, spec, np.ones(3), 10**6)
    assert plan.route == "local search" and plan.fits
    plan = LATTICE.plan(Task.DRAW, ReleaseSpec.of("lattice", 1.0, objective="worst"), np.ones(3), 10**6)
    assert plan.route == "corner remap" and plan.fits


def _edge_lp_transcribed(a, n0, eps, i):
    """The edge LP of edge ``i`` transcribed (module docstring of lattice.corners): variables ``tau(u, rho)`` for
    ``-W <= u <= top`` and ``rho`` within 2 (sum 0) with ``max(u, 0) + rho_i >= 0``; for every data set ``c`` with
    ``c_i <= top`` at the positions (both ends), ``sum_w K(w) [z_i <= top] sum_rho tau(z_i, rho) L(c, z + b(z_i) + rho)
    + sum_w K(w) [z_i > top] L(c, z) <= t``, ``z = c + w`` over ``d(w) <= W``; ``min t``.  Returns ``(t, E)`` with
    ``E(table)``: the constraints' left sides under a given table."""
    from scipy.optimize import linprog

    from dpposterior.lattice.noise import radius_for

    W = radius_for(3, eps, 1e-3)
    top, floor = corners.edge_top(eps), corners.edge_floor(eps)
    offs = _offsets(W)
    wts = _kernel_weights(eps, offs)
    rhos = _offsets(2)
    j, l = [x for x in range(3) if x != i]
    us = list(range(-W, top + 1))
    var = [(u, q) for u in us for q in range(len(rhos)) if max(u, 0) + rhos[q][i] >= 0]
    index = {v: x for x, v in enumerate(var)}

    def base(u):
        m = max(0, -u)
        b = np.zeros(3, dtype=np.int64)
        b[i], b[j], b[l] = m, -(m // 2), -(m - m // 2)
        return b

    rows, rhs, data = [], [], []
    for m, s in corners.edge_positions(n0, top, floor, W):
        for near_j in (True, False):
            for ci in range(top + 1):
                c = np.zeros(3, dtype=np.int64)
                c[i], c[j] = ci, (s if near_j else m - ci - s)
                c[l] = m - ci - c[j]
                row = np.zeros(len(var))
                const = 0.0
                for w, kw in zip(offs, wts):
                    z = c + w
                    if z[i] <= top:
                        qs = [q for q in range(len(rhos)) if (int(z[i]), q) in index]
                        outs = z + base(int(z[i])) + rhos[qs]
                        L = _hellinger(a, np.broadcast_to(c, outs.shape), outs)
                        for q, loss in zip(qs, L):
                            row[index[(int(z[i]), q)]] += kw * loss
                    else:
                        const += kw * _hellinger(a, c[None, :], z[None, :])[0]
                rows.append(row)
                rhs.append(const)
                data.append(c)
    A = np.array(rows)
    nv = len(var)
    A_ub = np.hstack([A, -np.ones((len(A), 1))])
    A_eq = np.zeros((len(us), nv + 1))
    for x, (u, _q) in enumerate(var):
        A_eq[us.index(u), x] = 1.0
    cost = np.zeros(nv + 1)
    cost[-1] = 1.0
    res = linprog(cost, A_ub=A_ub, b_ub=-np.array(rhs), A_eq=A_eq, b_eq=np.ones(len(us)), bounds=(0, None),
                  method="highs")
    assert res.status == 0

    def errors(table):
        x = np.zeros(nv)
        for ui, u in enumerate(us):
            for off, p in zip(table.offsets[i, ui], table.probs[i, ui]):
                rho = off - base(u)
                q = int(np.flatnonzero((rhos == rho).all(axis=1))[0])
                x[index[(u, q)]] += p
        return A @ x + np.array(rhs)

    return res.x[-1], errors


@settings(max_examples=4, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0), (2.0, 0.5, 1.0), (0.7, 1.5, 3.0)]), st.sampled_from([0.8, 0.9]),
       st.integers(20, 60), st.integers(0, 2))
def test_edge_lp_equals_its_transcription(a, eps, n0, i):
    """The edge table's LP value is the transcribed LP's optimum, and its rows meet it at every constrained data set."""
    table = corners._edge_tables(np.asarray(a), n0, eps)
    t, errors = _edge_lp_transcribed(a, n0, eps, i)
    assert abs(table.lp[i] - t) < 1e-6 * max(1.0, t)
    assert errors(table).max() <= t + 1e-6
    assert np.allclose(table.probs.sum(axis=2), 1.0)


def test_corner_errors_with_the_edge_table_equal_the_definition():
    """At eps < 1 the release reads the edge table on the edges, off the corner table too (n past N_REF): its errors
    are still the definition's at data sets on the edges, near a vertex and inside, and differ from the local Bayes
    remap's on an edge away from the vertices."""
    a, n, eps, We = (1, 1, 1), 200, 0.8, 6
    remap = corners.corner_remap(a, n, eps, depth=3)
    assert remap.edges is not None and remap.n_ref < n
    local = local_search_many(a, n, eps, window(n, 3, We))
    got = corners.corner_errors(remap, local, We)
    rng = np.random.default_rng(3)
    R = got.counts
    edge = (R.min(axis=1) <= 2) & (np.sort(R, axis=1)[:, 1] >= 60)
    pick = np.concatenate([rng.choice(np.flatnonzero(edge), 12, replace=False),
                           rng.choice(np.flatnonzero(R.max(axis=1) >= n - 4), 4, replace=False),
                           rng.choice(np.flatnonzero(R.min(axis=1) >= 20), 4, replace=False)])
    offs = _offsets(We)
    wts = _kernel_weights(eps, offs)
    for ci in pick:
        c = R[ci]
        out, p = remap.transition(c + offs)
        L = _hellinger(a, np.broadcast_to(c, out.shape), out)
        assert abs(got.low[ci] - (wts * (p * L).sum(1)).sum()) < 1e-12
    # the edge rows off the corner table are read (the local Bayes remap's errors differ there)
    off_table = edge & (np.sort(R, axis=1)[:, 1] >= 90)
    assert (remap.rows(R[off_table]) < 0).all()
    assert np.abs(got.low - window_errors(a, n, eps, local, We).low)[off_table].max() > 1e-3


@pytest.mark.parametrize("n", [12, 16])
def test_certificate_at_small_eps_is_below_the_lp_optimum(n):
    """At eps = 0.5 (the edge table, the block at depth 12) the certificate stays below the window's minimax LP's
    optimum (its upper end: a remap of the same release) and the corner release's own worst case."""
    from dpposterior.lattice.remap import LatticeSetup, minimax_remap

    a, eps = (1, 1, 1), 0.5
    remap = corners.corner_remap(a, n, eps, certify=True)
    lower = remap.certificate["lower"]
    window_minimax = minimax_remap(LatticeSetup(a, n, eps), r_radius=2)
    assert 0.4 < lower <= window_minimax.certificate["upper"]
    We = 20
    worst = corners.corner_errors(remap, local_search_many(a, n, eps, window(n, 3, We)), We).high.max()
    assert lower <= worst


def test_an_edge_row_is_drawn_with_its_probabilities():
    """Off the corner table, on an edge, a draw reads the edge table: its outputs are the row's, with its weights."""
    from scipy.stats import chisquare

    from dpposterior.randomness import bit_source

    remap = corners.cached_corner_remap((1.0, 1.0, 1.0), 200, 0.8, 3)
    edges = remap.edges
    i, ui = [int(x[0]) for x in np.nonzero((edges.probs.max(axis=2) < 0.8) & (edges.probs.max(axis=2) > 0.1))]
    u = ui - edges.W
    z = np.full(3, 0, dtype=np.int64)
    z[i] = u
    z[[x for x in range(3) if x != i]] = [100, 100 - u]
    assert remap.rows(z)[0] < 0 and remap.edge_rows(z[None, :])[0][0] == i
    out, p = remap.transition(z)
    assert np.allclose(p[0, :edges.probs.shape[2]], edges.probs[i, ui])
    bits = bit_source(7)
    draws = [tuple(remap.draw(z, bits)) for _ in range(2000)]
    support = [tuple(o) for o, q in zip(out[0], p[0]) if q > 0]
    assert set(draws) <= set(support) and all(min(r) >= 0 and sum(r) == 200 for r in support)
    counts = np.array([draws.count(r) for r in support])
    assert chisquare(counts, np.array([q for q in p[0] if q > 0]) * 2000).pvalue > 1e-6


def test_a_draw_at_a_million_fits_its_plan_at_eps_one_half():
    """eps = 0.5 (the edge table, depth 14): a draw at n = 1e6 is planned within the default limits."""
    plan = LATTICE.plan(Task.DRAW, ReleaseSpec.of("lattice", 0.5, objective="worst"), np.ones(3), 10**6)
    assert plan.route == "corner remap" and plan.fits


def test_the_columns_edge_rows_are_every_edge_row_that_reaches_r():
    """The noise-aware column of the corner release at eps < 1 adds the edge rows whose outputs hold r, enumerated
    from the rows' offsets: the same rows, with the same T(z, r), as a scan of every point of a box around r."""
    from dpposterior.mechanisms.lattice import _edge_rows_to

    remap = corners.cached_corner_remap((1.0, 1.0, 1.0), 400, 0.8, 3)
    for m in (np.array([1, 200, 199]), np.array([0, 150, 250]), np.array([300, 97, 3])):
        Z, t = _edge_rows_to(remap, m, 40)
        assert len(Z)
        box = np.array([(m[0] + i, m[1] + j, m[2] - i - j) for i in range(-30, 31) for j in range(-30, 31)])
        box = box[(remap.rows(box) < 0) & (remap.edge_rows(box)[0] >= 0) & np.all(box >= -40, axis=1)]
        out, p = remap.transition(box)
        tb = (p * np.all(out == m[None, None, :], axis=2)).sum(axis=1)
        want = {tuple(z): v for z, v in zip(box.tolist(), tb) if v > 0}
        got = {tuple(z): v for z, v in zip(Z.tolist(), t)}
        assert got.keys() == want.keys() and all(abs(got[z] - want[z]) < 1e-15 for z in got)


def test_the_local_search_runs_only_where_the_release_reads_it():
    """``corner_local_outputs`` searches the window's points off both tables only: the errors are the same floats as
    with the local remap at every point, whatever stands at the other points (they are never read), and the points
    left out are many at eps < 1 (the edge rows)."""
    a, n, eps, We = (1, 1, 1), 200, 0.8, 6
    remap = corners.corner_remap(a, n, eps, depth=3)
    Z = window(n, 3, We)
    full = local_search_many(a, n, eps, Z)
    st = {}
    part = corners.corner_local_outputs(remap, We, stats=st)
    need = corners.local_points(remap, Z)
    assert st["points"] == need.sum() < 0.8 * len(Z)
    assert np.array_equal(part[need], full[need])
    want = corners.corner_errors(remap, full, We).low
    assert np.array_equal(corners.corner_errors(remap, part, We).low, want)
    other = part.copy()
    other[~need] = (n, 0, 0)  # anything in R(n)
    assert np.array_equal(corners.corner_errors(remap, other, We).low, want)


@pytest.mark.parametrize("n, eps, depth", [(200, 0.8, 3), (8, 0.8, 3), (20, 2.0, None)])
def test_the_tables_shape_marks_the_points_of_the_solved_table(n, eps, depth):
    """:func:`corners.corner_shape` (no LP) tells the same points apart as the solved table (its rows and its edge
    rows, inside R(n) and past it, below and past N_REF), so the local search can run before the solve."""
    a = (1, 1, 1)
    depth = corners.default_depth(eps) if depth is None else depth
    remap = corners.corner_remap(a, n, eps, depth=depth)
    shape = corners.corner_shape(a, n, eps, depth)
    Z = window(n, 3, 9)
    assert np.array_equal(shape.rows(Z), remap.rows(Z))
    assert all(np.array_equal(x, y) for x, y in zip(shape.edge_rows(Z), remap.edge_rows(Z)))
    need = corners.local_points(shape, Z)
    assert np.array_equal(need, corners.local_points(remap, Z))
    assert 0 < need.sum() < len(Z)


def test_a_refusal_of_the_local_search_comes_before_the_corner_solve(monkeypatch):
    """The errors of ``lattice~worst`` by the corner remap refuse past their one-point searches before any LP: the
    local search runs on the table's shape first, so a point that ends in that refusal costs no solve."""
    from dpposterior.errors import SizeError
    from dpposterior.mechanisms import lattice as lat

    def no_solve(*args, **kwargs):
        raise AssertionError("the corner LP was solved before the refusal")

    monkeypatch.setattr(corners, "_solve", no_solve)
    corners.cached_corner_remap.cache_clear()
    lat._corner.cache_clear()
    lat._corner_errors.cache_clear()
    with pytest.raises(SizeError, match="more than 100 points to the one-point search"):
        lat._corner_errors((1.0, 1.0, 1.0), 6, 0.5, 100)  # 2,958 of 3,258 points handed on
    corners.cached_corner_remap.cache_clear()
    lat._corner.cache_clear()


def test_the_symmetric_edge_table_meets_each_edges_own_lp():
    """At a symmetric prior one edge LP serves the three: each edge's rows (edge 0's under a permutation) meet the
    optimum of that edge's own LP, transcribed and solved apart, at every one of its constrained data sets."""
    a, n0, eps = (1.0, 1.0, 1.0), 40, 0.8
    table = corners._edge_tables(np.asarray(a), n0, eps, symmetric=True)
    for i in range(3):
        t, errors = _edge_lp_transcribed(a, n0, eps, i)
        assert abs(table.lp[i] - t) < 1e-6 * max(1.0, t)
        assert errors(table).max() <= t + 1e-6
    # not at an asymmetric prior: there edge 0's rows miss edge 1's optimum
    b = (2.0, 0.5, 1.0)
    t, errors = _edge_lp_transcribed(b, n0, eps, 1)
    assert errors(corners._edge_tables(np.asarray(b), n0, eps, symmetric=True)).max() > t + 1e-4


def _lp_errors(remap, a, eps, C):
    """The corner LP's left sides at the data sets C: sum over d(w) <= W of K(w) sum_r T(c + w, r) L(c, r)."""
    offs = _offsets(remap.W)
    wts = _kernel_weights(eps, offs)
    out = []
    for c in C:
        o, p = remap.transition(c + offs)
        out.append((wts * (p * _hellinger(a, np.broadcast_to(c, o.shape), o)).sum(1)).sum())
    return np.array(out)


def test_one_corner_solve_serves_the_three_at_a_symmetric_prior(monkeypatch):
    """Where the corners are apart (symmetric prior), one corner's LP lifted by the permutations has the three-corner
    LP's optimum, its table is equivariant, and its rows meet that optimum at every constrained data set (the LP's
    sums transcribed with gammaln).  The three-corner LP is given the same edge table: the edge LP's optimum is not
    unique, and with another edge table the fixed rows, hence t, differ."""
    a, n0, eps, depth = np.ones(3), 120, 0.8, 3
    assert corners.symmetric_solve(a, n0, eps, depth) and not corners.symmetric_solve(a, 60, eps, depth)
    assert not corners.symmetric_solve([1.0, 1.0, 2.0], n0, eps, depth)
    one = corners._solve(a, n0, eps, depth)
    assert one.certificate["corners_solved"] == 1
    edge_tables = corners._edge_tables
    monkeypatch.setattr(corners, "_edge_tables", lambda a, n0, e, symmetric=False: edge_tables(a, n0, e, True))
    three = corners._solve(a, n0, eps, depth, symmetric=False)
    assert three.certificate["corners_solved"] == 3
    t = three.certificate["lp"]
    assert abs(one.certificate["lp"] - t) < 1e-8
    W, W1, shift, Fz, A, M, mkeys, free = corners._regions(3, n0, eps, depth)
    assert np.array_equal(one.points, M)
    # equivariant: the row of s z is s applied to the row of z (the outputs as sets with their probabilities)
    rng = np.random.default_rng(5)
    for m in rng.choice(np.flatnonzero(one.corner == 0), 40, replace=False):
        o0, p0 = one.transition(M[m][None, :])
        for j in (1, 2):
            oj, pj = one.transition(np.roll(M[m], j)[None, :])
            assert sorted(zip(map(tuple, np.roll(o0[0], j, axis=-1)[p0[0] > 0]), p0[0][p0[0] > 0])) == \
                sorted(zip(map(tuple, oj[0][pj[0] > 0]), pj[0][pj[0] > 0]))
    # feasible at t for the three-corner LP: every constrained data set of every vertex
    E = _lp_errors(one, a, eps, A)
    assert E.max() <= t + 1e-6 and E.max() > t - 1e-3
    # the duals lifted too: a vertex's data set carries vertex 0's weight of its preimage
    C, lam = one.duals
    assert np.array_equal(C, A)
    key = {tuple(c): x for c, x in zip(C.tolist(), lam)}
    assert all(key[tuple(np.roll(c, 1))] == x for c, x in zip(C.tolist(), lam) if np.argmax(c) == 0)


@pytest.mark.parametrize("prior", [(1.0, 1.0, 1.0), (1.0, 1.0, 2.0), (0.5, 0.5, 0.5)])
@pytest.mark.parametrize("n, eps", [(300, 0.5), (100, 0.5), (1000, 1.0), (15, 0.25)])
def test_the_plan_counts_the_corners_the_release_solves(prior, n, eps):
    """The plan's sizes solve one corner exactly where the release does (a symmetric prior, eps < 1, the corners
    apart at n_ref), and then it counts a third of the three-corner LP; the errors' and the draws' plans follow."""
    from dpposterior.mechanisms.lattice import corner_plan_sizes, corner_seconds, symmetric_corners

    depth = corners.default_depth(eps)
    n0 = min(n, corners.reference_n(eps, depth))
    runs_one = corners.symmetric_solve(prior, n0, eps, depth)
    assert runs_one == (prior[0] == prior[1] == prior[2] and eps < 1 and n0 > 160 if eps == 0.5 else False)
    size = corner_plan_sizes(n, 3, eps, symmetric_corners(prior))
    three = corner_plan_sizes(n, 3, eps, False)
    assert size["corners_solved"] == (1 if runs_one else 3)
    assert size["pairs"] == (three["pairs"] // 3 if runs_one else three["pairs"])
    spec = ReleaseSpec.of("lattice", eps, objective="worst")
    if LATTICE.uses_corners(n, 3, spec):  # the errors' plan: the three-corner one less the solve's difference
        planned = corner_seconds(n, 3, eps, symmetric_corners(prior))
        full = corner_seconds(n, 3, eps, False)
        assert (planned < full) == runs_one
        got = dict(LATTICE.plan_errors(prior, n, spec).costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"]
        three = dict(LATTICE._corner_plan(n, 3, spec, "x", False).costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"]
        assert got == pytest.approx(three - (full - planned), rel=1e-12)


@settings(max_examples=3, deadline=None)
@given(st.integers(170, 230), st.integers(0, 2**31 - 1))
def test_errors_by_rotation_classes_equal_the_sums_at_every_data_set(n, seed):
    """One corner for three (Dir(1,1,1), eps = 0.8): the release, its edge table built by rotations, is
    rotation-equivariant at every window point, so the errors at one data set per rotation class, copied to the
    class, equal the direct offset sums at every data set (to the sums' rounding) and the definition at copied data
    sets.  With one local output moved off its rotation (a release that is not equivariant there) the check puts the
    data sets near that point back, and the sums still equal the direct ones."""
    a, eps, We = (1, 1, 1), 0.8, 6
    remap = corners.corner_remap(a, n, eps, depth=3)
    assert corners.rotation_symmetric(remap)
    local = corners.corner_local_outputs(remap, We)
    computed, source = corners.rotation_classes(remap, local, We)
    R = window_errors(a, n, eps, local, We).counts
    assert np.array_equal(source[computed], np.flatnonzero(computed)) and computed[source].all()
    # one data set per class (the orbits of roll(., 1)), and besides only data sets near a window point off R(n)
    # (the local outputs' ties there, broken by index): none near an edge row or the corner table
    index = {c: i for i, c in enumerate(map(tuple, R.tolist()))}
    first = np.array([min(index[tuple(np.roll(c, j))] for j in range(3)) == i for i, c in enumerate(R)])
    assert computed[first].all() and first.sum() == (len(R) + 2 * (n % 3 == 0)) // 3
    assert (R[computed & ~first].min(axis=1) < We).all()
    got = corners.corner_errors(remap, local, We, rotations=True)
    want = corners.corner_errors(remap, local, We, window_errors(a, n, eps, local, We))
    assert np.abs(got.low - want.low).max() < 1e-13
    rng = np.random.default_rng(seed)
    offs = _offsets(We)
    wts = _kernel_weights(eps, offs)
    for ci in rng.choice(np.flatnonzero(~computed), 6, replace=False):
        c = R[ci]
        out, p = remap.transition(c + offs)
        assert abs(got.low[ci] - (wts * (p * _hellinger(a, np.broadcast_to(c, out.shape), out)).sum(1)).sum()) < 1e-12
    # a point the release maps by the local remap, inside R(n), its output moved by one unit
    Z = window(n, 3, We)
    inside = np.flatnonzero(corners.local_points(remap, Z) & np.all(Z >= 2, axis=1))
    at = rng.choice(inside)
    moved = local.copy()
    moved[at] = Z[at] + np.array([1, -1, 0])
    computed2, _ = corners.rotation_classes(remap, moved, We)
    near = np.abs(R - Z[at]).sum(axis=1) // 2 <= We
    assert computed2[near].all() and computed2.sum() > computed.sum()
    got = corners.corner_errors(remap, moved, We, rotations=True)
    want = corners.corner_errors(remap, moved, We, window_errors(a, n, eps, moved, We))
    assert np.abs(got.low - want.low).max() < 1e-13


def test_the_symmetric_edge_table_is_built_by_rotations():
    """Edge i's rows are edge 0's under roll(., i), the rotation the corners are lifted by (a swap for one edge would
    leave the release not rotation-equivariant past the corner table)."""
    table = corners._edge_tables(np.ones(3), 40, 0.8, symmetric=True)
    for i in (1, 2):
        assert np.array_equal(table.offsets[i], np.roll(table.offsets[0], i, axis=-1))
        assert np.array_equal(table.probs[i], table.probs[0])


def test_the_errors_plan_takes_the_orbits_at_a_symmetric_prior():
    """The route by orbits from public inputs: a symmetric prior, one corner for three, n >= ORBIT_MIN_N; its
    search planned below the route without orbits, its sums by rotation classes (without them, at n = 1000,
    eps = 0.5, they would be over DPPOSTERIOR_MAX_PAIRS), and more near ties allowed (the band table)."""
    from dpposterior.mechanisms.lattice import ORBIT_MIN_N

    spec = ReleaseSpec.of("lattice", 0.5, objective="worst")
    plan = LATTICE.plan_errors((1.0, 1.0, 1.0), 600, spec)
    assert plan.route == "corner remap, by orbits" and not plan.refusal
    plain = LATTICE._corner_plan(600, 3, spec, "x", False)
    assert plain.route == "corner remap"
    got, want = dict(plan.costs), dict(plain.costs)
    assert got["DPPOSTERIOR_MAX_SOLVE_SECONDS"] < want["DPPOSTERIOR_MAX_SOLVE_SECONDS"]
    assert got["DPPOSTERIOR_MAX_PAIRS"] < want["DPPOSTERIOR_MAX_PAIRS"]
    assert LATTICE._max_fallback(1000, 3, spec, True) > 6714 > LATTICE._max_fallback(1000, 3, spec)  # measured ties
    big = LATTICE.plan_errors((1.0, 1.0, 1.0), 1000, spec)
    assert big.route == "corner remap, by orbits" and not big.refused()
    plain = dict(LATTICE._corner_plan(1000, 3, spec, "x", False).costs)["DPPOSTERIOR_MAX_PAIRS"]
    assert plain > 4e8 > dict(big.costs)["DPPOSTERIOR_MAX_PAIRS"]  # the default limit, by the rotation classes
    assert LATTICE.plan_errors((1.0, 1.0, 2.0), 1000, spec).route == "corner remap"
    assert LATTICE.plan_errors((1.0, 1.0, 1.0), ORBIT_MIN_N - 1, spec).route == "corner remap"
    assert LATTICE.plan_errors((1.0, 1.0, 1.0), 1000, ReleaseSpec.of("lattice", 1.0, objective="worst")
                               ).route == "corner remap"  # eps >= 1: three corners solved
