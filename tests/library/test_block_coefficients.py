"""A block's middle coefficients of the factor route, computed where they are read
(dpposterior.lattice.scale._BlockCoefficients).

The oracle is the definition, entry by entry in plain Python: ``PT[t, j, r] = A[x_r, j] Bt[y_r, j - rd - (t - rp) +
rb]`` (one product of two floats), against any order of requests (each a shift and a run of rows of d), and the row
by row form for single moved rows.  Both must be those products exactly, whatever was computed before.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.lattice.scale import _BlockCoefficients


def _tables(seed: int, n1: int, rd: int, rp: int):
    rng = np.random.default_rng(seed)
    rb = rd + rp
    A = rng.random((n1, 2 * rd + 1))
    Bt = rng.random((n1, 2 * rb + 1))
    return A, Bt, np.ascontiguousarray(A.T), np.ascontiguousarray(Bt.T)


def _oracle(A, Bt, x, y, t, j, r, rp, rd):
    rb = rd + rp
    return float(A[int(x[r]), j]) * float(Bt[int(y[r]), j - rd - (t - rp) + rb])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), rd=st.integers(0, 4), rp=st.integers(0, 4), rows=st.integers(1, 9),
       data=st.data())
def test_coefficients_are_the_products_of_their_definition_in_any_order_of_requests(seed, rd, rp, rows, data):
    n1 = 12
    A, Bt, AT, BtT = _tables(seed, n1, rd, rp)
    rng = np.random.default_rng(seed + 1)
    x = rng.integers(0, n1, rows).astype(np.int32)
    y = rng.integers(0, n1, rows).astype(np.int32)
    co = _BlockCoefficients(A, AT, Bt, BtT, x, y, rp, rd, rd + rp)
    T, J = 2 * rp + 1, 2 * rd + 1
    for _ in range(data.draw(st.integers(1, 8))):
        t = data.draw(st.integers(0, T - 1))
        j0 = data.draw(st.integers(0, J - 1))
        W = data.draw(st.integers(1, J - j0))
        got = co.pt(t, j0, W)
        assert got.shape == (W, rows)
        for i in range(W):
            for r in range(rows):
                assert got[i, r] == _oracle(A, Bt, x, y, t, j0 + i, r, rp, rd)
        # the row-by-row form: a subset of the rows, each at its own shift
        pick = np.array(data.draw(st.lists(st.integers(0, rows - 1), min_size=1, max_size=rows)), dtype=np.int64)
        shifts = np.array([data.draw(st.integers(0, T - 1)) for _ in pick], dtype=np.int64)
        got = co.rows(pick, shifts, j0, W)
        assert got.shape == (len(pick), W)
        for q, (r, s) in enumerate(zip(pick.tolist(), shifts.tolist())):
            for i in range(W):
                assert got[q, i] == _oracle(A, Bt, x, y, s, j0 + i, r, rp, rd)
    # every row computed so far still holds its product (a later request never overwrites one)
    for t in range(T):
        lo, hi = co.lo[t], co.hi[t]
        for j in range(lo, hi):
            for r in range(rows):
                assert co.PT[t, j, r] == _oracle(A, Bt, x, y, t, j, r, rp, rd)
