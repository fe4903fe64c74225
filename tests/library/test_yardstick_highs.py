"""Which HiGHS the yardstick's column LPs run (dpposterior.lattice.yardstick._ColumnLP): scipy's bundled bindings, a
private module, else the public ``linprog`` route; both certify the same bound.

The oracle is the column LP of a whole window written out densely here and solved with ``linprog`` (no library
solver); the bound of :func:`column_bound` is compared between the two routes and against the LP's optimum.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
import scipy
from scipy.optimize import linprog

from dpposterior.lattice import yardstick as ys
from dpposterior.models import candidates


def test_scipys_bundled_highs_bindings_are_where_the_fast_route_looks():
    """The fast route imports ``scipy.optimize._highspy._core`` (private).  A scipy that moves it would make every
    column LP take the slower public route without a word: this test is that word."""
    assert ys.HIGHS_MODULE == "scipy.optimize._highspy._core"
    core = importlib.import_module("scipy.optimize._highspy._core")
    assert ys._highs_core() is core, (
        f"scipy {scipy.__version__} moved its HiGHS bindings: _ColumnLP now solves through linprog (slower); "
        "point HIGHS_MODULE at their new place")


def test_without_the_bindings_the_column_lp_takes_linprog(monkeypatch):
    """A scipy without the module (import fails) gives None, and a model built then has no HiGHS object."""
    real = importlib.import_module

    def moved(name, *args):
        if name == ys.HIGHS_MODULE:
            raise ModuleNotFoundError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", moved)
    assert ys._highs_core() is None
    assert ys._ColumnLP(2, np.array([[0, 1], [1, 0]]), math.e)._h is None


def _window(k, radius, eps):
    D, _, _ = ys._offsets(k, radius)
    around = ys._neighbour_offsets(D)
    pairs = np.array([(o, j) for o in range(len(D)) for j in around[o]], dtype=np.int64).reshape(-1, 2)
    return D, pairs, math.exp(eps)


@pytest.mark.parametrize("k, radius, eps", [(3, 2, 0.5), (3, 4, 1.0), (4, 2, 2.0)])
def test_both_routes_solve_the_column_lp(monkeypatch, k, radius, eps):
    """Each route's ``x`` is optimal for the dense LP written here and its ``y >= 0`` certifies that optimum."""
    D, pairs, e = _window(k, radius, eps)
    rng = np.random.default_rng(k * 100 + radius)
    dense = np.zeros((len(pairs), len(D)))
    dense[np.arange(len(pairs)), pairs[:, 0]] = 1.0
    dense[np.arange(len(pairs)), pairs[:, 1]] = -e
    fast = ys._ColumnLP(len(D), pairs, e)
    monkeypatch.setattr(ys, "_highs_core", lambda: None)
    public = ys._ColumnLP(len(D), pairs, e)
    assert fast._h is not None and public._h is None
    for _ in range(3):
        w = rng.uniform(-1, 1, len(D))
        oracle = linprog(w, A_ub=dense, b_ub=np.zeros(len(pairs)), bounds=[(0, 1)] * len(D), method="highs")
        for lp in (fast, public):
            x, y = lp.solve(w)
            rc = w + dense.T @ y
            assert np.all(y >= 0)
            assert abs(float(w @ x) - oracle.fun) <= 1e-8
            assert abs(float(np.minimum(rc, 0.0).sum()) - oracle.fun) <= 1e-7


def _lp_average(a, n, eps):
    """The average optimum (docs/definitions.md §9) as a dense LP over R(n) x R(n), written here."""
    from scipy.special import gammaln

    R = candidates(n, len(a))
    N = len(R)
    A = np.asarray(a)
    post = A + R
    lbc = (gammaln((post[:, None, :] + post[None, :, :]) / 2).sum(-1) - gammaln(
        (post[:, None, :] + post[None, :, :]).sum(-1) / 2)
        - 0.5 * (gammaln(post).sum(-1) - gammaln(post.sum(-1)))[:, None]
        - 0.5 * (gammaln(post).sum(-1) - gammaln(post.sum(-1)))[None, :])
    H = np.sqrt(np.maximum(1.0 - np.exp(lbc), 0.0))
    logpi = (gammaln(n + 1) - gammaln(R + 1).sum(-1) + gammaln(A.sum()) - gammaln(n + A.sum())
             + (gammaln(A + R) - gammaln(A)).sum(-1))
    pi = np.exp(logpi)
    pi /= pi.sum()
    rows = []
    for c in range(N):
        for d in range(N):
            if np.abs(R[c] - R[d]).sum() == 2:
                for r in range(N):
                    row = np.zeros(N * N)
                    row[c * N + r], row[d * N + r] = 1.0, -math.exp(eps)
                    rows.append(row)
    eq = np.kron(np.eye(N), np.ones(N))
    res = linprog((pi[:, None] * H).ravel(), A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=eq, b_eq=np.ones(N),
                  bounds=(0, 1), method="highs")
    assert res.status == 0
    return res.fun


@pytest.mark.parametrize("n, eps", [(4, 0.5), (6, 1.0)])
def test_both_routes_give_the_same_certified_bound(monkeypatch, n, eps):
    """:func:`column_bound` through the bindings and through ``linprog``: the same value within 1e-9 (both are the
    Lagrangian dual at optimal columns; only ties between optimal duals may differ), each below the LP's optimum."""
    a = [1.0, 1.0, 1.0]
    mu = ys.flow_bound(a, n, eps, radius=n, steps=5).mu
    fast = ys.column_bound(a, n, eps, mu, radius=n, steps=3).average
    monkeypatch.setattr(ys, "_highs_core", lambda: None)
    public = ys.column_bound(a, n, eps, mu, radius=n, steps=3).average
    assert abs(fast - public) <= 1e-9
    lp = _lp_average(a, n, eps)
    assert 0 < fast <= lp + 1e-9 and 0 < public <= lp + 1e-9
