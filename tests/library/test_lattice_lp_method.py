"""HiGHS's method for the lattice release's minimax LPs (dpposterior.lattice.remap.lp_method): the interior point
(with crossover) on the large dense ones, the simplex elsewhere.  Either way the LP's optimum is the same, and what
is certified is checked from the table and the duals the LP returns, not read off it: here each of the three LPs
(the window's, the k = 3 corner LP, the k = 4 edge table's) is solved both ways at a small size (the interior point
forced by setting its thresholds to 0), and each result is checked against the other."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize

from dpposterior.lattice import corners, corners_any
from dpposterior.lattice import remap as lattice_remap
from dpposterior.lattice.noise import window
from dpposterior.lattice.remap import LatticeSetup, lp_method, minimax_remap
from dpposterior.lattice.search import local_search_many


@pytest.mark.parametrize("nonzeros,variables,method", [
    (2_037_300, 9_388, "highs-ipm"),   # the k = 3 corner LP, n = 20, eps = 0.5
    (2_700_021, 11_920, "highs-ipm"),  # the k = 3 window LP, n = 20, eps = 1
    (1_892_498, 10_637, "highs-ipm"),  # the k = 4 edge table's LP, n = 10, eps = 1
    (1_283_571, 7_228, "highs-ipm"),
    (2_150_328, 39_309, "highs"),      # large but sparse: the simplex is sooner
    (1_034_346, 15_913, "highs"),
    (948_276, 9_712, "highs"),
    (857_121, 42_856, "highs"),
    (1_199_999, 10, "highs"),
    (1_200_000, 8_000, "highs-ipm"),
    (1_200_000, 8_001, "highs"),
])
def test_the_method_by_size_and_density(nonzeros, variables, method):
    assert lp_method(nonzeros, variables) == method


@pytest.fixture
def methods(monkeypatch):
    """The HiGHS methods of the LPs solved under the test (scipy's ``linprog`` spied on; the lattice modules import
    it where they solve)."""
    seen = []
    real = scipy.optimize.linprog

    def spy(*args, **kwargs):
        seen.append(kwargs.get("method"))
        return real(*args, **kwargs)

    monkeypatch.setattr(scipy.optimize, "linprog", spy)
    return seen


def _interior_point(monkeypatch):
    monkeypatch.setattr(lattice_remap, "IPM_NONZEROS", 0)
    monkeypatch.setattr(lattice_remap, "IPM_DENSITY", 0)


def test_window_lp_by_interior_point_keeps_its_certificate(methods, monkeypatch):
    """k = 3, n = 6, eps = 1: both remaps' certificates close (gap 1e-4), each one's lower end is below the other's
    worst case (a lower bound over every remap of the release), and their worst cases agree within the gap."""
    s = LatticeSetup([1, 2, 1], 6, 1.0)
    simplex = minimax_remap(s)
    assert methods == ["highs"]
    _interior_point(monkeypatch)
    ipm = minimax_remap(s)
    assert methods == ["highs", "highs-ipm"]
    for r in (simplex, ipm):
        assert r.certificate["closed"]
        assert np.allclose(r.table.sum(axis=1), 1.0) and (r.table >= 0).all()
        assert r.errors.worst[1] == pytest.approx(s.errors(r).worst[1], abs=1e-15)  # computed from the table
    assert ipm.certificate["lower"] <= simplex.certificate["upper"] + 1e-12
    assert simplex.certificate["lower"] <= ipm.certificate["upper"] + 1e-12
    assert ipm.certificate["upper"] == pytest.approx(simplex.certificate["upper"], rel=1e-4)


def test_corner_lp_by_interior_point_has_the_same_optimum(methods, monkeypatch):
    """k = 3, n = 12, eps = 1 (the corner remap with its certificate): the LP's t agrees, the certified lower end of
    each is below the other's exact worst case (the errors recomputed from the table, the local Bayes rows
    elsewhere)."""
    a, n, eps, We = (1, 1, 1), 12, 1.0, 15
    local = local_search_many(a, n, eps, window(n, 3, We))
    simplex = corners.corner_remap(a, n, eps, certify=True)
    assert "highs" in methods and "highs-ipm" not in methods
    _interior_point(monkeypatch)
    ipm = corners.corner_remap(a, n, eps, certify=True)
    assert "highs-ipm" in methods
    assert ipm.certificate["lp"] == pytest.approx(simplex.certificate["lp"], abs=1e-7)
    worst = {id(r): corners.corner_errors(r, local, We).high.max() for r in (simplex, ipm)}
    assert ipm.certificate["lower"] <= worst[id(simplex)] and simplex.certificate["lower"] <= worst[id(ipm)]
    assert worst[id(ipm)] == pytest.approx(worst[id(simplex)], abs=1e-6)
    assert np.allclose(ipm.probs.sum(axis=1), 1.0) and (ipm.probs >= 0).all()


def test_edge_table_lp_by_interior_point_has_the_same_optimum(methods, monkeypatch):
    """k = 4, n = 6, eps = 1, the corner and edge tables solved together: the LP's t agrees and both tables' rows are
    distributions."""
    a = np.array([1.0, 2.0, 1.0, 0.5])
    simplex = corners_any.solve_any(a, 6, 1.0, 1, 2, top=1)
    assert methods == ["highs"]
    _interior_point(monkeypatch)
    ipm = corners_any.solve_any(a, 6, 1.0, 1, 2, top=1)
    assert methods == ["highs", "highs-ipm"]
    assert ipm.certificate["lp"] == pytest.approx(simplex.certificate["lp"], abs=1e-7)
    assert ipm.edges.lp == ipm.certificate["lp"]
    for p in (ipm.probs, ipm.edges.probs):
        assert np.allclose(p.sum(axis=-1), 1.0) and (p >= 0).all()
