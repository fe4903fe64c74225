"""Remaps ``T(z, r)`` and the exact risks ``E(c)`` of the remapped release (docs/definitions.md §10, k = 2).

``P(r | c) = sum_z G(z | c) T(z, r)``, ``E(c) = sum_r P(r | c) L(c, r)``, and the scores
``S_w(z, r) = sum_c w(c) G(z | c) L(c, r)`` the Bayes and minimax remaps minimise, computed by blocks with
the kernel's recurrences (no truncation) or over a window with a rigorous tail bound (:func:`risk`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse

from ..errors import InputError
from .kernel import GeometricKernel
from .loss import BLOCK_ENTRIES, Loss, PairLoss, _block_t, _block_width, as_loss

__all__ = ["Remap", "risk", "average_risk", "worst_risk"]


@dataclass(frozen=True)
class Remap:
    """A row-stochastic remap ``T(z, r)`` stored sparse (CSR over z), docs/definitions.md §10.

    Deterministic rows have one entry; randomised rows a few.  Any T is allowed: the remapped
    release is eps-DP by post-processing whatever T is.
    """

    table: sparse.csr_array

    @classmethod
    def deterministic(cls, r_of_z: ArrayLike) -> "Remap":
        """``T(z, r) = 1[r = r_of_z[z]]``."""
        r = np.asarray(r_of_z, dtype=np.int64).reshape(-1)
        N = r.size
        if N == 0 or r.min() < 0 or r.max() >= N:
            raise InputError(f"r_of_z must map 0..{N - 1} into 0..{N - 1}")
        return cls(sparse.csr_array((np.ones(N), r, np.arange(N + 1)), shape=(N, N)))

    @classmethod
    def identity(cls, n: int) -> "Remap":
        return cls.deterministic(np.arange(n + 1))

    @classmethod
    def from_rows(cls, rows: dict[int, tuple[NDArray, NDArray]], base: "Remap") -> "Remap":
        """``base`` with the rows ``z -> (r's, probabilities)`` replaced (probabilities renormalised)."""
        T = base.table.tolil(copy=True)
        for z, (r, p) in rows.items():
            p = np.asarray(p, dtype=np.float64)
            T.rows[z] = list(np.asarray(r, dtype=np.int64).tolist())
            T.data[z] = list((p / p.sum()).tolist())
        return cls(sparse.csr_array(T))

    @classmethod
    def identity_with_rows(cls, n: int, rows: dict[int, tuple[NDArray, NDArray]]) -> "Remap":
        """The identity on 0..n with the rows ``z -> (r's, probabilities)`` replaced (renormalised), built
        directly in CSR form: O(n + entries), for large n with a few replaced rows."""
        N = n + 1
        zs = np.array(sorted(rows), dtype=np.int64)
        cnt = np.ones(N, dtype=np.int64)
        if zs.size:
            cnt[zs] = [len(rows[int(z)][0]) for z in zs]
        indptr = np.concatenate([[0], np.cumsum(cnt)])
        indices = np.empty(int(indptr[-1]), dtype=np.int64)
        data = np.ones(int(indptr[-1]))
        keep = np.ones(N, dtype=bool)
        keep[zs] = False
        indices[indptr[:-1][keep]] = np.flatnonzero(keep)
        for z in zs.tolist():
            r, p = (np.asarray(v) for v in rows[z])
            o = np.argsort(r, kind="stable")
            a = indptr[z]
            indices[a: a + r.size] = r[o]
            data[a: a + r.size] = p[o] / p.sum()
        return cls(sparse.csr_array((data, indices, indptr), shape=(N, N)))

    @property
    def size(self) -> int:
        return self.table.shape[0]

    @property
    def is_deterministic(self) -> bool:
        return bool(np.all(np.diff(self.table.indptr) == 1))

    def r_of_z(self) -> NDArray[np.int64]:
        """For a deterministic remap, the output of each z (else InputError)."""
        if not self.is_deterministic:
            raise InputError("the remap is randomised")
        return self.table.indices.astype(np.int64)

    def row(self, z: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """The outputs and probabilities ``T(z, .)`` of one z."""
        s, e = self.table.indptr[z], self.table.indptr[z + 1]
        return self.table.indices[s:e].astype(np.int64), self.table.data[s:e].astype(np.float64)

    def dense(self) -> NDArray[np.float64]:
        """The whole table ``T[z, r]`` (small n and tests)."""
        return self.table.toarray()


def _as_remap(remap, N: int) -> Remap:
    if isinstance(remap, Remap):
        out = remap
    else:
        arr = np.asarray(remap)
        out = Remap.deterministic(arr) if arr.ndim == 1 else Remap(sparse.csr_array(np.asarray(arr, dtype=np.float64)))
    if out.size != N or out.table.shape != (N, N):
        raise InputError(f"the remap must be {N} x {N}, got {out.table.shape}")
    data = out.table.data
    indptr = out.table.indptr
    filled = bool(np.all(np.diff(indptr) > 0))
    sums = np.add.reduceat(data, indptr[:-1]) if filled and data.size else np.zeros(N)
    if not np.all(np.isfinite(data)) or np.any(data < 0) or np.any(np.abs(sums - 1.0) > 1e-9):
        raise InputError("a remap must be row-stochastic: non-negative rows summing to 1")
    return out


# --------------------------------------------------------------------------------------------
# Scores S_w(z, r) = sum_c w(c) G(z | c) L(c, r), by blocks of r


def _scores(kernel: GeometricKernel, w: NDArray[np.float64], loss: Loss, remap: Remap | None = None):
    """``(min_r S_w(z, r), argmin (smallest r on ties), sum_r T(z, r) S_w(z, r) or None)`` for every z.

    Exact: S is computed column block by column block with :meth:`GeometricKernel.apply_t`
    (no truncation); only the rows of L where ``w > 0`` are evaluated.
    """
    N = kernel.size
    support = np.flatnonzero(w > 0)
    best = np.full(N, np.inf)
    arg = np.zeros(N, dtype=np.int64)
    at = np.zeros(N) if remap is not None else None
    T = remap.table.tocsc() if remap is not None else None
    width = _block_width(N)
    full = support.size == N
    VT = None if full else np.zeros((width, N))
    for start in range(0, N, width):
        rs = np.arange(start, min(N, start + width))
        if full:
            VT = _block_t(loss, rs, support)
            VT *= w[None, :]
        else:
            VT[:] = 0.0
            VT[: rs.size, support] = w[None, support] * _block_t(loss, rs, support)
        ST = kernel.apply_t_last(VT[: rs.size])  # ST[r, z] = S(z, r)
        j = np.argmin(ST, axis=0)
        m = ST[j, np.arange(N)]
        better = m < best
        best[better] = m[better]
        arg[better] = rs[j[better]]
        if T is not None:
            Tb = T[:, start: start + rs.size]
            at += np.asarray(Tb.multiply(ST.T).sum(axis=1)).reshape(-1)
    return best, arg, at


def _weights(weights, N: int) -> NDArray[np.float64]:
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.size != N or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise InputError(f"weights must be {N} finite non-negative numbers with a positive sum")
    return w / w.sum()


# --------------------------------------------------------------------------------------------
# Risks E(c), exactly


def _risk_terms(kernel: GeometricKernel, T: Remap, loss: Loss, cs: NDArray[np.int64]) -> NDArray[np.float64]:
    """``G(z | c) sum_r T(z, r) L(c, r)`` for the counts ``cs`` and every z: ``(len(cs), n+1)``."""
    N = kernel.size
    Lrows = loss.block(cs, np.arange(N))
    if T.is_deterministic:
        r = T.r_of_z()
        LT = Lrows if np.array_equal(r, np.arange(N)) else Lrows[:, r]
    else:
        LT = (T.table @ Lrows.T).T
    LT *= kernel.rows(cs)
    return LT


#: Largest share of ``E(c)`` the windowed :func:`risk` may leave out (a rigorous bound, below float64 rounding).
RISK_TAIL = 1e-17


def _window_sums(kernel: GeometricKernel, T: Remap, loss: PairLoss, cs: NDArray[np.int64], W: int,
                 skip: NDArray[np.bool_] | None = None) -> NDArray[np.float64]:
    """``sum_{|z - c| <= W} G(z | c) sum_r T(z, r) L(c, r)`` for the counts ``cs``, O(len(cs) W nnz-per-row)
    (the z with ``skip[z]`` left out)."""
    n = kernel.n
    indptr = T.table.indptr.astype(np.int64)
    indices = T.table.indices.astype(np.int64)
    data = T.table.data
    det = T.is_deterministic
    nnz_max = 1 if det else int(np.diff(indptr).max())
    d = np.arange(-W, W + 1)
    step = max(1, BLOCK_ENTRIES // (d.size * nnz_max))
    out = np.empty(cs.size)
    for s in range(0, cs.size, step):
        c = cs[s: s + step]
        Z = c[:, None] + d[None, :]
        ok = (Z >= 0) & (Z <= n)
        if skip is not None:
            ok &= ~skip[np.clip(Z, 0, n)]
        row = np.nonzero(ok)[0]
        z = Z[ok]
        cc = c[row]
        g = kernel.pmf(z, cc)
        if det:
            pos = indptr[z]
        else:
            cnt = indptr[z + 1] - indptr[z]
            pos = np.repeat(indptr[z] - (np.cumsum(cnt) - cnt), cnt) + np.arange(int(cnt.sum()))
            row, cc, g = np.repeat(row, cnt), np.repeat(cc, cnt), np.repeat(g, cnt)
        v = g * data[pos]
        v *= loss.pairs(cc, indices[pos])
        out[s: s + step] = np.bincount(row, weights=v, minlength=c.size)
    return out


def _risk_dense(kernel: GeometricKernel, T: Remap, loss: Loss, cs: NDArray[np.int64]) -> NDArray[np.float64]:
    """``E(c)`` from whole rows (every z and r), O(n (n + nnz T)): losses without ``pairs``."""
    out = np.empty(cs.size)
    width = _block_width(kernel.size)
    for s in range(0, cs.size, width):
        out[s: s + width] = _risk_terms(kernel, T, loss, cs[s: s + width]).sum(axis=1)
    return out


def risk(kernel: GeometricKernel, remap, loss: Loss | ArrayLike, cs: ArrayLike | None = None) -> NDArray[np.float64]:
    """``E(c) = sum_z G(z | c) sum_r T(z, r) L(c, r)`` for the counts ``cs`` (default all) (docs/definitions.md §10).

    Windowed, O(n W nnz-per-row) for all c instead of O(n^2): the sum runs over ``|z - c| <= W``, and
    what it leaves out is bounded rigorously.  The z outside the window carry
    ``P(|z - c| > W) = s(c) q^(W+1) / (1 + q)`` (``s(c)`` = the number of sides, 0 to 2, where the
    window stops before 0 or n; the clamped end cells are inside that mass), each with a loss at most
    ``max L`` (1 for Hellinger), so the left-out part is at most ``s(c) q^(W+1) max L / (1 + q)``.
    ``W`` starts at :meth:`GeometricKernel.window` ``(1e-20)`` and, for every c where that bound exceeds
    :data:`RISK_TAIL` times the windowed sum, grows to the smallest W making it hold (at most n: the
    whole row, nothing left out).  So the result is below the exact ``E(c)`` by at most
    ``1e-17 E(c)``, under float64 rounding of its non-negative sums (~1e-16 relative): exact in the
    sense of :mod:`dpposterior.remap` ("Exactness"), and ``E(c) (1 + 1e-17)`` is a rigorous upper bound where one is
    needed (the certificates' tolerances are >= 1e-12).  Losses without ``pairs`` use whole rows.
    """
    loss = as_loss(loss, kernel.n)
    T = _as_remap(remap, kernel.size)
    n = kernel.n
    cs = np.arange(kernel.size) if cs is None else np.asarray(cs, dtype=np.int64).reshape(-1)
    if cs.size and (cs.min() < 0 or cs.max() > n):
        raise InputError(f"counts must lie in 0..{n}")
    lmax = float(loss.max_loss) if isinstance(loss, PairLoss) else math.nan
    if not (math.isfinite(lmax) and lmax >= 0):
        return _risk_dense(kernel, T, loss, cs)
    W = min(n, kernel.window(1e-20))
    out = _window_sums(kernel, T, loss, cs, W)
    if W < n and lmax > 0:
        sides = (cs > W).astype(np.float64) + (cs + W < n)
        log_gap = math.log(RISK_TAIL / lmax) - math.log1p(kernel.q)
        with np.errstate(divide="ignore"):
            need = np.log(sides) - np.log(out) - log_gap  # (W' + 1) eps >= need keeps the tail <= RISK_TAIL E
        bad = need > (W + 1) * kernel.eps
        if bad.any():
            top = float(np.max(need[bad]))
            W2 = n if not math.isfinite(top) else min(n, max(W + 1, math.ceil(top / kernel.eps) - 1))
            out[bad] = _window_sums(kernel, T, loss, cs[bad], W2)
    return out


def average_risk(kernel: GeometricKernel, remap, loss: Loss | ArrayLike, weights: ArrayLike) -> float:
    """Average error ``sum_c w(c) E(c)`` of the remapped release (w normalised; ``w = pi`` is the
    average objective of docs/definitions.md §10).  Exact as :func:`risk` (all terms, float64)."""
    w = _weights(weights, kernel.size)
    return float(w @ risk(kernel, remap, loss))


def worst_risk(kernel: GeometricKernel, remap, loss: Loss | ArrayLike) -> tuple[float, int]:
    """Worst-case error ``(max_c E(c), the first maximising c)`` of the remapped release
    (docs/definitions.md §10); an upper bound on the minimax remap risk.  Exact as :func:`risk`."""
    E = risk(kernel, remap, loss)
    i = int(np.argmax(E))
    return float(E[i]), i

