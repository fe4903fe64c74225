"""``lattice.column.column_from_points`` sums the points that share their positive part and negative mass once: the
same column as the sum over every point by its definition (``ln sum_j w_j e^(-eps d(z_j, c)) - ln Z``, ``d`` half the
L1 distance), up to rounding, at points off R(n) with many sharing one positive part; and the same floats as before
where no two points share one."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.lattice.column import column_from_points
from dpposterior.lattice.noise import log_normaliser


def _by_definition(c: np.ndarray, eps: float, z: np.ndarray, w: np.ndarray) -> np.ndarray:
    out = []
    for row in c:
        terms = [math.log(wj) - eps * (int(np.abs(zj - row).sum()) // 2) for zj, wj in zip(z, w, strict=True)]
        top = max(terms)
        out.append(top + math.log(math.fsum(math.exp(t - top) for t in terms)))
    return np.array(out)


def _points(rng, n: int, k: int, size: int, spread: int) -> np.ndarray:
    """Points summing to n, many with negative counts (their positive parts repeated)."""
    z = rng.integers(-spread, n + spread + 1, size=(size, k))
    z[:, -1] = n - z[:, :-1].sum(axis=1)
    return z


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 5), st.integers(0, 12), st.sampled_from([0.25, 0.39999961853027344, 1.0, 3.0]),
       st.integers(0, 2**31 - 1))
def test_the_grouped_sum_is_the_sum_over_every_point(k, n, eps, seed):
    rng = np.random.default_rng(seed)
    z = _points(rng, n, k, 200, 4)
    z = np.concatenate([z, z[:50]])  # repeated points too
    w = rng.uniform(0.1, 1.0, size=len(z))
    c = rng.integers(0, n + 1, size=(12, k))
    c[:, -1] = n - c[:, :-1].sum(axis=1)
    c = c[c[:, -1] >= 0]
    got = column_from_points(c, eps, z, w) + log_normaliser(k, eps)
    want = _by_definition(c, eps, z, w)
    assert np.allclose(got, want, rtol=0, atol=1e-12), np.abs(got - want).max()


def test_points_that_share_nothing_keep_their_floats():
    """No two points share a positive part (every point in R(n)): the sum is the one over the points as given."""
    rng = np.random.default_rng(1)
    n, k, eps = 9, 4, 0.5
    z = np.unique(_points(rng, n, k, 300, 0), axis=0)
    z = z[np.all(z >= 0, axis=1)]
    w = rng.uniform(0.1, 1.0, size=len(z))
    c = z[:20]
    from scipy.special import logsumexp

    d = np.abs(c[:, None, :] - z[None, :, :]).sum(axis=2) // 2
    want = logsumexp(np.log(w)[None, :] - eps * d, axis=1) - log_normaliser(k, eps)
    assert column_from_points(c, eps, z, w).tobytes() == want.tobytes()


def test_a_vertex_shares_many():
    """Next to a vertex the points off R(n) share few positive parts: the grouped sum reads far fewer terms, the
    same column."""
    n, k, eps = 20, 4, 0.4
    head = np.stack(np.meshgrid(*([np.arange(-6, 2)] * 3), indexing="ij"), axis=-1).reshape(-1, 3)
    z = np.concatenate([head, n - head.sum(axis=1, keepdims=True)], axis=1)  # 512 points, counts of 1 at most
    y = np.unique(np.concatenate([np.maximum(z, 0), np.maximum(-z, 0).sum(axis=1, keepdims=True)], axis=1), axis=0)
    assert len(y) * 3 < len(z)
    w = np.ones(len(z))
    c = np.array([[1, 1, 1, 17], [0, 0, 0, 20], [5, 5, 5, 5]])
    got = column_from_points(c, eps, z, w) + log_normaliser(k, eps)
    assert np.allclose(got, _by_definition(c, eps, z, w), rtol=0, atol=1e-12)
