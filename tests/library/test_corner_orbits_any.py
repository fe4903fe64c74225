"""The k = 4 corner LP by orbits without an edge table (dpposterior.lattice.corners_any.solve_any with ``orbits``,
``_free_orbits``, ``corner_orbits``) and the loss table read by offset (dpposterior.lattice.corners.pair_loss), each
against a transcription of its definition (itertools, math, numpy only in the oracles)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.lattice import corners, corners_any


def _same_orbit(z1, r1, z2, r2):
    """Whether some permutation p of the categories maps (z1, r1) to (z2, r2): z2 = z1[p] and r2 = r1[p]."""
    return any(list(z1[list(p)]) == list(z2) and list(r1[list(p)]) == list(r2)
               for p in itertools.permutations(range(len(z1))))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(-2, 3), min_size=4, max_size=4),
                          st.lists(st.integers(-2, 3), min_size=4, max_size=4)), min_size=1, max_size=12),
       st.randoms(use_true_random=False))
def test_free_orbits_are_the_orbits_of_the_permutations(pairs, rnd):
    """Two (row, output) variables share an orbit id iff a permutation of the categories maps one onto the other."""
    z = np.array([p[0] for p in pairs], dtype=np.int64)
    r = np.array([p[1] for p in pairs], dtype=np.int64)
    # and a permuted copy of some variables, so that orbits of more than one variable occur
    extra = [rnd.randrange(len(z)) for _ in range(len(z))]
    perms = [rnd.sample(range(4), 4) for _ in extra]
    z = np.concatenate([z, np.array([z[i][p] for i, p in zip(extra, perms)])])
    r = np.concatenate([r, np.array([r[i][p] for i, p in zip(extra, perms)])])
    ids = corners_any._free_orbits(z, r)
    for i in range(len(z)):
        for j in range(len(z)):
            assert (ids[i] == ids[j]) == _same_orbit(z[i], r[i], z[j], r[j])


def _hellinger(a, c, r):
    """H(Dir(a + c), Dir(a + r)) by its definition: sqrt(1 - BC), ln BC = sum_i J(x_i, y_i) - J(sum x, sum y),
    J(x, y) = lnGamma((x + y) / 2) - (lnGamma(x) + lnGamma(y)) / 2."""
    def J(x, y):
        return math.lgamma((x + y) / 2) - (math.lgamma(x) + math.lgamma(y)) / 2

    x = [ai + ci for ai, ci in zip(a, c)]
    y = [ai + ri for ai, ri in zip(a, r)]
    log_bc = min(sum(J(xi, yi) for xi, yi in zip(x, y)) - J(sum(x), sum(y)), 0.0)
    return math.sqrt(max(0.0, -math.expm1(log_bc)))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 40), st.integers(1, 30), st.sampled_from([0.5, 1.0, 2.5]), st.integers(0, 10**6))
def test_pair_loss_read_by_offset_is_its_definition_and_the_sorted_route_bit_for_bit(n, m, a0, seed):
    """Both of pair_loss's routes (the values' whole range read by offset; the distinct values sorted, forced by a
    zero threshold on few pairs far apart) give the same floats, and each is H by its definition."""
    rng = np.random.default_rng(seed)
    k = 4
    a = np.array([a0, 1.0, 2.0, 0.7])
    cuts = np.sort(rng.integers(0, n + 1, size=(2, m, k - 1)), axis=2)
    edges = np.concatenate([np.zeros((2, m, 1), dtype=np.int64), cuts, np.full((2, m, 1), n)], axis=2)
    c, r = np.diff(edges[0], axis=1), np.diff(edges[1], axis=1)
    dense = corners.pair_loss(a, c, r)
    old = corners.PAIR_LOSS_DENSE
    try:
        corners.PAIR_LOSS_DENSE = 0
        c2, r2 = c.copy(), r.copy()
        sparse_route = corners.pair_loss(a, c2, r2) if (n + 1) ** 2 > m else dense
    finally:
        corners.PAIR_LOSS_DENSE = old
    np.testing.assert_array_equal(dense, sparse_route)
    want = np.array([_hellinger(a, ci, ri) for ci, ri in zip(c.tolist(), r.tolist())])
    np.testing.assert_allclose(dense, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("n0,eps,depth,inner", [(6, 2.0, 1, 1), (7, 3.0, 2, 1), (6, 2.0, 2, 2)])
def test_the_corner_lp_by_orbits_is_a_remap_and_its_t_never_below_the_lp_without(n0, eps, depth, inner):
    """By orbits every row is a distribution over outputs in R(n0) within R_RADIUS of project(z), its rows take one
    value per orbit where the candidate sets are equivariant, and the LP's t (every constraint kept) is at least the
    LP's without orbits (a restriction of its variables)."""
    a = np.ones(4)
    plain = corners_any.solve_any(a, n0, eps, depth, inner, 0, orbits=False)
    orb = corners_any.solve_any(a, n0, eps, depth, inner, 0, orbits=True)
    assert orb.certificate["lp"] >= plain.certificate["lp"] - 1e-9
    np.testing.assert_array_equal(orb.points, plain.points)
    p, o = orb.probs, orb.outputs
    assert np.all(p >= 0) and np.allclose(p.sum(axis=1), 1.0)
    live = p > 0
    assert np.all(o[live] >= 0) and np.all(o[live].sum(axis=1) == n0)
    proj = corners_any.project(orb.points, n0)
    assert np.all((np.abs(o - proj[:, None, :]).sum(axis=2) // 2)[live] <= corners_any.R_RADIUS)
    # one value per orbit: T(z, r) = T(z[q], r[q]) for every permutation q mapping a row to a row
    table = {}
    for z, oo, pp in zip(orb.points.tolist(), o.tolist(), p.tolist()):
        for rr, t in zip(oo, pp):
            if t > 0:
                table[(tuple(z), tuple(rr))] = t
    rows = {tuple(z) for z in orb.points.tolist()}
    for (z, rr), t in list(table.items())[:200]:
        for q in itertools.permutations(range(4)):
            zq, rq = tuple(z[i] for i in q), tuple(rr[i] for i in q)
            if zq in rows and (zq, rq) in table:
                assert table[(zq, rq)] == pytest.approx(t, abs=1e-9)


def test_the_orbit_route_is_taken_past_its_entries_only_at_a_symmetric_prior():
    """The gate is public (n, k, eps, the prior's symmetry): Dir(1,1,1,1), eps = 0.5 takes the orbit LP at n = 20,
    not at n = 5 or 10 (their tables are the ones solved before, bit for bit), never with an edge table or at an
    asymmetric prior; the plan's sizes say which."""
    assert corners_any.corner_orbits(20, 4, 0.5, True)
    assert not corners_any.corner_orbits(20, 4, 0.5, False)
    for n in (5, 10, 12):
        assert not corners_any.corner_orbits(n, 4, 0.5, True)
    assert corners_any.corner_sizes_any(20, 4, 0.5, True)["corner_orbits"]
    assert not corners_any.corner_sizes_any(20, 4, 1.0, True)["corner_orbits"]  # the edge table's joint LP
    for n in (30, 50, 100):  # eps = 1 past the edge table's share: the LP without orbits, as before
        assert not corners_any.corner_orbits(n, 4, 1.0, True) and corners_any.corner_entries(n, 4, 1.0) > 2.5e6
    s = corners_any.corner_sizes_any(20, 4, 0.5, True)
    assert corners_any.corner_entries(20, 4, 0.5) == s["pairs"] * s["outputs"]
