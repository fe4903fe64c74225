"""The yardstick's column LPs over whole windows and its tabulated window losses (dpposterior.lattice.yardstick).

Oracles written here without the library's solver or losses: each column LP as a dense ``linprog`` over data sets
enumerated with itertools (on the window, and on all of R(n)), and the window losses as the per-pair formula the
module evaluated before its tables (``lgamma_jensen_gap`` at each pair, summed over the categories).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from dpposterior.distances.hellinger import hellinger_from_log_bc, lgamma_jensen_gap
from dpposterior.lattice import yardstick as ys
from dpposterior.models import candidate_rank, candidates, log_prior_predictive


def compositions(n, k):
    return [c for c in itertools.product(range(n + 1), repeat=k) if sum(c) == n]


def column_lp(nodes, w, eps):
    """``min w x`` over ``x`` in ``[0, 1]`` with ``x(c) <= e^eps x(c')`` for every pair of ``nodes`` one substitution
    apart (dense, every pair written out)."""
    index = {c: i for i, c in enumerate(nodes)}
    rows = []
    for c in nodes:
        for p, q in itertools.permutations(range(len(c)), 2):
            d = list(c)
            d[p] -= 1
            d[q] += 1
            if tuple(d) in index:
                row = np.zeros(len(nodes))
                row[index[c]], row[index[tuple(d)]] = 1.0, -math.exp(eps)
                rows.append(row)
    res = linprog(w, A_ub=np.array(rows) if rows else None, b_ub=np.zeros(len(rows)) if rows else None,
                  bounds=[(0, 1)] * len(nodes), method="highs")
    assert res.status == 0
    return res.fun


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([3, 4]), st.integers(0, 5), st.integers(0, 4), st.sampled_from([0.05, 0.5, 1.0, 3.0]),
       st.integers(0, 2**31 - 1))
def test_the_whole_window_lp_lies_between_the_window_and_the_column(k, n, radius, eps, seed):
    """The column LP over the whole window (points off R(n) free, of cost 0; :class:`_ColumnLP`) certifies a value at
    or above the LP on the window's data sets alone (it only adds constraints) and at or below the column LP on all
    of R(n) when the cost is >= 0 off the window (column_bound's docstring): the relaxation behind each output."""
    if k == 4:
        n = min(n, 3)
    rng = np.random.default_rng(seed)
    R = compositions(n, k)
    r = R[rng.integers(len(R))]
    dist = {c: sum(abs(x - y) for x, y in zip(c, r)) // 2 for c in R}
    w_all = np.array([rng.uniform(-1, 1) if dist[c] <= radius else rng.uniform(0, 1) for c in R])
    window = [c for c in R if dist[c] <= radius]
    whole = column_lp(R, w_all, eps)
    inside = column_lp(window, np.array([w_all[R.index(c)] for c in window]), eps)
    D, _, _ = ys._offsets(k, radius)
    around = ys._neighbour_offsets(D)
    pairs = np.array([(o, j) for o in range(len(D)) for j in around[o]], dtype=np.int64).reshape(-1, 2)
    e = math.exp(eps)
    lp = ys._ColumnLP(len(D), pairs, e)
    w = np.array([w_all[R.index(tuple(int(x) for x in np.add(r, d)))] if min(np.add(r, d)) >= 0 else 0.0 for d in D])
    x, y = lp.solve(w)
    rc = w + np.bincount(pairs[:, 0], weights=y, minlength=len(D)) - e * np.bincount(pairs[:, 1], weights=y,
                                                                                       minlength=len(D))
    certified = float(np.minimum(rc, 0.0).sum())
    assert np.all(y >= 0) and np.all((x >= -1e-9) & (x <= 1 + 1e-9))
    assert inside - 1e-7 <= certified <= whole + 1e-12
    # a second solve from the first one's basis (the costs of another output) certifies the same as a fresh model
    w2 = w * rng.uniform(0.5, 1.5, len(w))
    _, y2 = lp.solve(w2)
    _, y3 = ys._ColumnLP(len(D), pairs, e).solve(w2)
    c2 = [float(np.minimum(w2 + np.bincount(pairs[:, 0], weights=v, minlength=len(D)) - e * np.bincount(
        pairs[:, 1], weights=v, minlength=len(D)), 0.0).sum()) for v in (y2, y3)]
    assert abs(c2[0] - c2[1]) <= 1e-7


def window_losses_per_pair(a, R, pi, D):
    """The window losses by the per-pair formula: ``ln BC`` summed over the categories of one call of
    ``lgamma_jensen_gap`` on the whole rows (what the module computed before its tables)."""
    N = len(R)
    C = np.full((len(D), N), -1, dtype=np.int32)
    PL = np.zeros((len(D), N))
    for o, delta in enumerate(D):
        c = R + delta
        ok = np.all(c >= 0, axis=1)
        if ok.any():
            C[o, ok] = candidate_rank(c[ok])
            loss = hellinger_from_log_bc(lgamma_jensen_gap(a + c[ok], a + R[ok]).sum(axis=1))
            PL[o, ok] = pi[C[o, ok]] * np.maximum(loss * (1 - ys.LOSS_MARGIN) - ys.LOSS_MARGIN, 0.0)
    valid = C >= 0
    C[~valid] = 0
    return C, valid, PL


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0), (0.5, 2.0, 1.0), (1e-12, 1e9, 1.0), (1.0, 1.0, 1.0, 1.0),
                        (0.3, 1.0, 2.0, 5.0)]), st.integers(0, 40), st.integers(0, 6))
def test_tabulated_window_losses_are_the_per_pair_floats(a, n, radius):
    """The tables of ``J`` per category give the very floats of the per-pair formula (bit for bit)."""
    a = np.array(a)
    if a.size == 4:
        n = min(n, 15)
    R = candidates(n, a.size)
    lp = log_prior_predictive(a, R)
    pi = np.exp(lp - np.logaddexp.reduce(lp))
    D, _, _ = ys._offsets(a.size, min(radius, n))
    for got, want in zip(ys._window_losses(a, R, pi, D), window_losses_per_pair(a, R, pi, D)):
        assert got.dtype == want.dtype and np.array_equal(got, want)
