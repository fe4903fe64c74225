"""The remapped release ``P(r | c) = sum_z G(z | c) T(z, r)``: pmf rows and exact draws (docs/definitions.md §10, k = 2)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse

from ..errors import InputError
from ..randomness import bit_source, choose, discrete_laplace, float_weights
from .kernel import GeometricKernel
from .loss import BLOCK_ENTRIES
from .risk import Remap, _as_remap

__all__ = ["pmf_row", "log_pmf_rows", "geometric_draw", "sample"]


def pmf_row(kernel: GeometricKernel, remap, c: int) -> NDArray[np.float64]:
    """``P(. | c) = sum_z G(z | c) T(z, .)`` for one c, O(n + nnz T) (docs/definitions.md §10).

    Exact up to float64 rounding; sums to 1 to rounding.  No (n+1)^2 object is built.
    """
    T = _as_remap(remap, kernel.size)
    if not (0 <= int(c) <= kernel.n):
        raise InputError(f"c must lie in 0..{kernel.n}")
    g = kernel.rows([int(c)])[0]
    return np.asarray(T.table.T @ g).reshape(-1)


def log_pmf_rows(kernel: GeometricKernel, remap, cs: ArrayLike, never: float = -np.inf) -> NDArray[np.float64]:
    """``ln P(r | c) = ln sum_z G(z | c) T(z, r)`` for counts ``cs``: ``(len(cs), n+1)`` (docs/definitions.md §10).

    Exact in log space (a log-sum-exp per output over the z with ``T(z, r) > 0``, from
    :meth:`GeometricKernel.log_pmf`), so nothing underflows at any n; O(len(cs) nnz(T)), in blocks of
    :data:`BLOCK_ENTRIES`.  An output no z maps to has ``P(r | c) = 0`` for every c: ``never`` there.
    """
    T = _as_remap(remap, kernel.size)
    N = kernel.size
    csc = sparse.csc_array(T.table)
    csc.eliminate_zeros()
    csc.sort_indices()
    z = csc.indices.astype(np.int64)
    logt = np.log(csc.data)
    counts = np.diff(csc.indptr)
    used = np.flatnonzero(counts > 0)
    st = csc.indptr[:-1][used]
    cs = np.asarray(cs, dtype=np.int64).reshape(-1)
    if cs.size and (cs.min() < 0 or cs.max() > kernel.n):
        raise InputError(f"counts must lie in 0..{kernel.n}")
    # outputs reached from exactly one z with probability 1 (most of a Bayes remap): a copy of ln G
    single = (counts[used] == 1) & (csc.data[st] == 1.0)
    r_one, z_one = used[single], z[st[single]]
    multi = used[~single]
    mask = np.zeros(z.size, dtype=bool)
    mask[np.repeat(~single, counts[used])] = True
    zm, logtm = z[mask], logt[mask]
    stm = np.concatenate([[0], np.cumsum(counts[multi])[:-1]]).astype(np.int64) if multi.size else np.zeros(0, np.int64)
    segm = np.repeat(np.arange(multi.size), counts[multi])
    out = np.full((cs.size, N), float(never))
    step = max(1, BLOCK_ENTRIES // N)
    zf = np.arange(N, dtype=np.float64)
    for s in range(0, cs.size, step):
        c = cs[s: s + step]
        if kernel.n == 0:
            out[s: s + step, :] = 0.0
            continue
        # ln G(z | c) for every z: ln p0 - eps |z - c|, the two end cells replaced
        LG = np.subtract.outer(c.astype(np.float64), zf)
        np.abs(LG, out=LG)
        LG *= -kernel.eps
        LG += kernel.log_p0
        LG[:, 0] = kernel.log_edge - kernel.eps * c
        LG[:, kernel.n] = kernel.log_edge - kernel.eps * (kernel.n - c)
        if r_one.size:
            out[s: s + step, r_one] = LG[:, z_one]
        if multi.size:
            M = LG[:, zm]
            M += logtm[None, :]
            mx = np.maximum.reduceat(M, stm, axis=1)
            M -= mx[:, segm]
            np.exp(M, out=M)
            out[s: s + step, multi] = mx + np.log(np.add.reduceat(M, stm, axis=1))
    return out


def geometric_draw(eps: float | Fraction, size: int, rng) -> NDArray[np.int64]:
    """``size`` exact draws of ``P(D = d) = (1-q)/(1+q) q^|d|``, ``q = exp(-eps)`` (docs/definitions.md §10).

    Uses :func:`dpposterior.randomness.discrete_laplace` (Canonne-Kamath-Steinke 2020, Alg. 1-2):
    uniform integers and exact rational arithmetic only, with the rate ``Fraction(eps)`` (the exact
    value of the float eps, so the law is the one :class:`GeometricKernel` describes).
    """
    bits = bit_source(rng)
    out = discrete_laplace(Fraction(eps), int(size), bits)
    return np.asarray(out, dtype=object if isinstance(out, list) else np.int64)


def sample(kernel: GeometricKernel, remap, c: int, size: int = 1, rng=None) -> NDArray[np.int64]:
    """Exact draws of the remapped release ``r ~ P(. | c)`` (docs/definitions.md §10).

    ``z = clamp(c + D, 0, n)`` with D from :func:`geometric_draw` (exact), then ``r = T(z)``:
    a look-up for a deterministic row; for a randomised row, integer weights
    ``W_i = max(1, round(T(z, r_i) 2^(128 - e)))`` (:func:`dpposterior.randomness.float_weights`,
    exact for every probability above ``2^-75`` of the row's largest) and an exact integer draw
    (:func:`dpposterior.randomness.choose`): ``TV(draw, T(z, .)) <= m 2^-127`` for an m-entry row.
    Privacy does not depend on that rounding: any remap is post-processing (eps-DP exactly).
    ``rng``: a seed or Generator (experiments) or None (the OS CSPRNG).  Needs only ``T(z)`` for
    the drawn z, so ``remap`` may also be a callable ``z -> (r's, probabilities)`` (e.g. built on
    :func:`bayes_remap_at` at n = 1e6).
    """
    bits = bit_source(rng)
    n = kernel.n
    c = int(c)
    if not (0 <= c <= n):
        raise InputError(f"c must lie in 0..{n}")
    D = geometric_draw(kernel.eps, size, bits)
    z = np.array([min(max(c + int(d), 0), n) for d in D], dtype=np.int64) if D.dtype == object \
        else np.clip(c + D, 0, n)
    if callable(remap) and not isinstance(remap, Remap):
        row = remap
    else:
        T = _as_remap(remap, kernel.size)
        row = T.row
    out = np.empty(size, dtype=np.int64)
    for zz in np.unique(z):
        idx = np.flatnonzero(z == zz)
        r, p = row(int(zz))
        r = np.asarray(r, dtype=np.int64)
        if r.size == 1:
            out[idx] = r[0]
        else:
            out[idx] = r[choose(float_weights(p), idx.size, bits)]
    return out

