"""The k = 4 edge table's joint LP by orbits (``lattice.corners_any._lp_orbits``, a symmetric prior): its orbits
against the permutations enumerated, the LP a restriction of the LP without orbits (never below its ``t``), the tables
distributions and their errors the definition's, above the certificate and the window LP's optimum, and the release
solving by orbits exactly where its plan says (docs/lattice.md, "The edge table by orbits")."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpposterior.lattice import corners_any
from dpposterior.mechanisms import LATTICE, ReleaseSpec

from .test_lattice_corners_any import _brute_errors_edges


def _orbit(v):
    """Every image of the k-vectors in ``v`` under one permutation applied to all of them (the oracle)."""
    v = [tuple(int(x) for x in u) for u in v]
    return {tuple(tuple(u[p] for p in perm) for u in v) for perm in itertools.permutations(range(len(v[0])))}


def test_lp_orbits_are_the_permutation_orbits():
    """Two free-row variables ``(z, r)`` share an orbit exactly when one permutation maps both z and r to the other's
    (every pair enumerated, k = 4); an edge variable's orbit is the same on every edge, and swapping its two small
    counts with their offsets keeps it."""
    rng = np.random.default_rng(3)
    Fz = rng.integers(-2, 6, size=(14, 4))
    Fz = np.concatenate([Fz, Fz[:4, ::-1], Fz[4:7, [1, 0, 3, 2]]])
    rb = np.array([[0, 0, 0, 0], [1, -1, 0, 0], [0, 0, -1, 1], [-1, 0, 1, 0]])
    cand = Fz[:, None, :] + rb[None, :, :]
    f_ok = np.ones(cand.shape[:2], dtype=bool)
    f_ok[::3, 1] = False
    small = np.array([[0, 0], [0, 1], [1, 0]])
    e_off = np.zeros((3, 2, 4), dtype=np.int64)
    e_off[:, 1] = [1, 0, -1, 0]
    e_off[2, 1] = [1, 0, 0, -1]  # small counts (1, 0) with rho (0, -1): the image of (0, 1) with (-1, 0)
    e_valid = np.ones((3, 2), dtype=bool)
    vorb = corners_any._lp_orbits(Fz, cand, f_ok, small, e_off, e_valid, 6)
    fi, ji = np.nonzero(f_ok)
    pairs = [(Fz[f], cand[f, j]) for f, j in zip(fi, ji)]
    for x in range(len(pairs)):
        for y in range(len(pairs)):
            same = (tuple(map(tuple, np.array(pairs[y]).tolist())) in _orbit(pairs[x]))
            assert (vorb[x] == vorb[y]) == same
    edge = vorb[len(fi):].reshape(6, -1)
    assert (edge == edge[0]).all()  # the six edges one orbit
    # (u, rho) = ((0, 1), (.., 0, -1, ..)) and ((1, 0), (.., -1, 0)) are one orbit (the small counts swapped)
    assert edge[0, 3] == edge[0, 5] and edge[0, 1] != edge[0, 3]


@pytest.fixture(scope="module")
def remaps():
    """The corner and edge tables at Dir(1,1,1,1), n = 6, eps = 1 (depth 1, top 1), with and without orbits."""
    a = np.ones(4)
    return a, corners_any.solve_any(a, 6, 1.0, 1, 2, top=1), corners_any.solve_any(a, 6, 1.0, 1, 2, top=1,
                                                                                     orbits=True)


def test_the_lp_by_orbits_is_a_restriction_with_every_constraint(remaps):
    """The LP by orbits takes one value per orbit and keeps every constraint, so its ``t`` is never below the LP's
    without orbits (dropping constraints, one per orbit of data sets, went below it: the ties break the symmetry);
    its tables are distributions, one value per orbit on the edge table's six edges."""
    a, full, orb = remaps
    assert orb.certificate["orbit_variables"] > 0 and full.certificate["orbit_variables"] == 0
    assert orb.certificate["orbit_variables"] < full.certificate["variables"] / 5
    assert orb.certificate["lp"] >= full.certificate["lp"] - 1e-7
    for p in (orb.probs, orb.edges.probs):
        assert (p >= 0).all() and np.allclose(p.sum(axis=-1), 1.0)
    assert np.allclose(np.sort(orb.edges.probs, axis=-1), np.sort(orb.edges.probs[:1], axis=-1))
    lam = orb.duals[1]
    assert lam.shape == (len(orb.duals[0]),) and (lam >= 0).all() and lam.sum() > 0


def test_the_release_by_orbits_errors_are_the_definition_and_above_its_bounds(remaps):
    """The release with the tables by orbits: its errors equal the definition's sum term by term (the tables read by
    their definitions), and its worst case is above the certificate over every remap of the release."""
    a, _, orb = remaps
    got = corners_any.corner_errors_any(orb, 4)
    R, E = _brute_errors_edges(orb, a, 6, 1.0, 4)
    order = np.lexsort(R.T[::-1])
    R, E = R[order], E[order]
    order = np.lexsort(got.counts.T[::-1])
    assert np.array_equal(got.counts[order], R)
    assert np.abs(got.low[order] - E).max() < 1e-12
    bound = corners_any.certify_any(orb)
    assert 0 < bound <= corners_any.corner_errors_any(orb, 12).high.max()


def test_the_release_by_orbits_is_not_below_the_window_lp():
    """At n = 4, eps = 1.5 (the window's LP runs; depth 1, top 1) the release by orbits has a worst case at least the
    window LP's certified optimum."""
    a = np.ones(4)
    window = LATTICE.certificate(a, 4, ReleaseSpec.of("lattice", 1.5, objective="worst"))
    remap = corners_any.solve_any(a, 4, 1.5, 1, 2, top=1, orbits=True)
    assert remap.certificate["orbit_variables"] > 0
    assert corners_any.corner_errors_any(remap, 12).high.max() >= window["lower"] - 1e-9
    with pytest.raises(Exception, match="symmetric"):
        corners_any.corner_remap_any([1, 1, 1, 2], 9, 1.0, orbits=True)


@pytest.mark.parametrize("n, eps", [(9, 1.0), (10, 1.0), (20, 1.0), (30, 1.0), (50, 1.0), (20, 1.5), (20, 2.0),
                                    (20, 0.5)])
def test_the_release_solves_by_orbits_where_its_plan_says(n, eps):
    """Which table the release solves (public n, k, eps and whether the prior is symmetric): the LP without orbits
    where its estimate fits (n = 9, 10 at eps = 1: the table as before), by orbits at a symmetric prior past it while
    that fits (n = 20), the corner table alone past both; the plan's sizes and seconds count what runs."""
    from dpposterior.mechanisms.lattice import corner_plan_sizes, corner_seconds

    full = corners_any.EDGE_LP_SECONDS * np.prod([corners_any.edge_sizes(n, 4, eps)[x]
                                                  for x in ("constraints", "variables")])
    top = corners_any.edge_top_any(eps)
    fits_full = top > 0 and n >= corners_any.default_depth(eps) + top + 2 and full <= corners_any.EDGE_WORST_SECONDS
    assert corners_any.uses_edges(n, 4, eps, False) == (top if fits_full else 0)
    orbits = corners_any.edge_orbits(n, 4, eps, True)
    assert orbits == (top > 0 and full > corners_any.EDGE_WORST_SECONDS)
    sym = corners_any.uses_edges(n, 4, eps, True)
    assert sym >= corners_any.uses_edges(n, 4, eps, False)
    size = corner_plan_sizes(n, 4, eps, True)
    assert size["edge_top"] == sym
    assert size["edge_orbits"] == bool(sym and orbits)
    if sym and orbits:  # the whole joint LP by orbits in place of the corner LP's estimate, within the edge share
        from dpposterior.mechanisms.lattice import batched_seconds

        lp = corners_any.edge_seconds(n, 4, eps, True)
        assert size["edge_seconds"] == pytest.approx(lp) and lp <= corners_any.EDGE_WORST_SECONDS
        assert corner_seconds(n, 4, eps, True) == pytest.approx(lp + sum(batched_seconds(4, eps, size["fixed"], 0.0)))
    elif size["corner_orbits"]:  # no edge table, the corner LP by orbits (eps < 1 past its entries)
        assert eps < 1 and not corner_plan_sizes(n, 4, eps, False)["corner_orbits"]
        assert corner_seconds(n, 4, eps, True) < corner_seconds(n, 4, eps, False)
    else:
        assert corner_seconds(n, 4, eps, True) == corner_seconds(n, 4, eps, False)
    assert (n, eps, sym, orbits) in {(9, 1.0, 3, False), (10, 1.0, 3, False), (20, 1.0, 3, True), (30, 1.0, 0, True),
                                     (50, 1.0, 0, True), (20, 1.5, 2, True), (20, 2.0, 0, False),
                                     (20, 0.5, 0, False)}


def test_the_k4_worst_release_at_n20_is_the_table_by_orbits():
    """What runs is what the plan chose: ``lattice~worst`` at Dir(1,1,1,1), n = 20, eps = 1 draws from the corner and
    edge tables solved by orbits (an asymmetric prior: the corner table alone), and its errors' plan counts them."""
    from dpposterior.mechanisms.lattice import _corner

    remap = _corner((1.0,) * 4, 20, 1.0)
    assert remap.edges is not None and remap.certificate["orbit_variables"] > 0
    spec = ReleaseSpec.of("lattice", 1.0, objective="worst")
    sym, asym = LATTICE.plan_errors(np.ones(4), 20, spec), LATTICE.plan_errors(np.array([1.0, 1, 1, 1.5]), 20, spec)
    assert sym.route == asym.route == "corner remap" and not sym.refusal
    from dpposterior.mechanisms.lattice import corner_seconds, face_orbit_seconds

    solve = dict(sym.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"]
    assert solve == pytest.approx(sum(face_orbit_seconds(20, 4, 1.0)) + corner_seconds(20, 4, 1.0, True))
    assert corner_seconds(20, 4, 1.0, True) != corner_seconds(20, 4, 1.0, False)
    assert corners_any.corner_remap_any([1.0, 1, 1, 1.5], 20, 1.0).edges is None
