"""The k = 4 corner remap's LP sets (dpposterior.lattice.corners_any.regions; docs/lattice.md, "A worst-case remap at
k = 4"): the free rows F, the constrained data sets A = {c in R(n0) : d(c, F) <= W} and the rest's rows within W of A,
each sorted lexicographically, against a transcription of the definitions by enumeration (numpy and itertools only)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpposterior.lattice import corners_any


def _points(total, low, high, k=4):
    """Every z in Z^k with sum ``total`` and ``low <= z_i <= high``, lexicographic."""
    r = range(low, high + 1)
    out = [p + (total - sum(p),) for p in itertools.product(r, repeat=k - 1) if low <= total - sum(p) <= high]
    return np.array(out, dtype=np.int64).reshape(-1, k)


def _within(P, Q, W):
    """The rows of P within d = |p - q|_1 / 2 <= W of some row of Q."""
    if not len(Q):
        return np.zeros(len(P), dtype=bool)
    return np.array([(np.abs(Q - p).sum(axis=1) // 2).min() <= W for p in P], dtype=bool)


def _oracle(n0, depth, W, W1):
    Z = _points(n0, -W1, n0 + 3 * W1)
    F = Z[n0 - Z.max(axis=1) <= depth]
    R = _points(n0, 0, n0)
    A = R[_within(R, F, W)]
    Zg = _points(n0, -W, n0 + 3 * W)  # a row within W of a data set has every count >= -W
    G = Zg[_within(Zg, A, W)]
    fset = {tuple(z) for z in F}
    G = G[np.array([tuple(z) not in fset for z in G], dtype=bool)].reshape(-1, 4)
    return F, A, G


@settings(max_examples=25, deadline=None)
@given(n0=st.integers(1, 9), eps=st.sampled_from([1.0, 2.0, 3.0]), depth=st.integers(0, 4), inner=st.integers(0, 2))
@example(n0=9, eps=3.0, depth=0, inner=0)  # the candidates' reach (depth + W) short of n0 matters here
@example(n0=9, eps=2.0, depth=1, inner=2)
def test_the_corner_regions_are_their_definitions(n0, eps, depth, inner):
    W, W1, shift, F, fkeys, A, G = corners_any.regions(4, n0, eps, depth, inner)
    assert W1 == min(inner, W) and shift == W1 + 2 * W
    oF, oA, oG = _oracle(n0, depth, W, W1)
    np.testing.assert_array_equal(F, oF)
    np.testing.assert_array_equal(A, oA)
    np.testing.assert_array_equal(G, oG)
    assert np.all(np.diff(fkeys) > 0)
    # without the rest: the same F and A
    _, _, _, F2, _, A2, G2 = corners_any.regions(4, n0, eps, depth, inner, rest=False)
    assert G2 is None
    np.testing.assert_array_equal(F2, oF)
    np.testing.assert_array_equal(A2, oA)
