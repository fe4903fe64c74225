"""The two-sided geometric release of one count, clamped to 0..n: ``G(z | c)`` (docs/definitions.md §10, k = 2).

The one place in :mod:`dpposterior.remap` that validates n and eps (:func:`geometric_kernel`): every
solver, risk and sampler takes a kernel, and checks its other arguments against ``kernel.size``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InputError

__all__ = ["GeometricKernel", "geometric_kernel"]


def _check_n_eps(n, eps) -> tuple[int, float]:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or int(n) < 0:
        raise InputError(f"n must be a non-negative integer, got {n!r}")
    try:
        e = float(eps)
    except (TypeError, ValueError):
        raise InputError(f"eps must be a positive number, got {eps!r}") from None
    if not (e > 0 and math.isfinite(e)):
        raise InputError(f"eps must be a finite positive number, got {eps!r}")
    return int(n), e


class GeometricKernel:
    """The clamped two-sided geometric release ``G(z | c)`` for one count, k = 2 (docs/definitions.md §10).

    ``G(z | c) = p0 q^|z-c|`` for ``0 < z < n`` (``p0 = (1-q)/(1+q) = tanh(eps/2)``),
    ``G(0 | c) = q^c/(1+q)``, ``G(n | c) = q^(n-c)/(1+q)``; ``n = 0`` gives ``G = 1``.
    Guarantee: eps-DP (each cell's ratio between c and c +- 1 is at most ``q^-1 = e^eps``).
    Products with G cost O(n) per vector (:meth:`apply_t`, :meth:`apply`) and are exact up to
    float64 rounding of non-negative sums; :meth:`rows` gives dense rows for blocks and tests.
    """

    def __init__(self, n: int, eps: float):
        self.n, self.eps = _check_n_eps(n, eps)
        self.q = math.exp(-self.eps)
        self.p0 = math.tanh(self.eps / 2.0)
        self.log_p0 = math.log(self.p0) if self.p0 > 0 else -math.inf
        self.log_edge = -math.log1p(self.q)
        self._sym = None

    @property
    def size(self) -> int:
        """Number of counts / outputs, ``n + 1``."""
        return self.n + 1

    def window(self, tail: float = 1e-18) -> int:
        """Smallest ``W`` with ``q^W <= tail``: cells farther than W from c carry < ``tail`` each."""
        return max(1, math.ceil(-math.log(tail) / self.eps))

    def log_pmf(self, z: ArrayLike, c: ArrayLike) -> NDArray[np.float64]:
        """``ln G(z | c)`` (broadcasts), exact in log space (no underflow at any n)."""
        z = np.asarray(z, dtype=np.int64)
        c = np.asarray(c, dtype=np.int64)
        z, c = np.broadcast_arrays(z, c)
        if self.n == 0:
            return np.zeros(z.shape)
        out = self.log_p0 - self.eps * np.abs(z - c).astype(np.float64)
        out = np.where(z == 0, self.log_edge - self.eps * c, out)
        out = np.where(z == self.n, self.log_edge - self.eps * (self.n - c), out)
        return out

    def pmf(self, z: ArrayLike, c: ArrayLike) -> NDArray[np.float64]:
        """``G(z | c)`` (broadcasts)."""
        return np.exp(self.log_pmf(z, c))

    def rows(self, cs: ArrayLike) -> NDArray[np.float64]:
        """Dense rows ``G(. | c)`` for the counts ``cs``: shape ``(len(cs), n + 1)``."""
        cs = np.asarray(cs, dtype=np.int64).reshape(-1)
        if self.n == 0:
            return np.ones((cs.size, 1))
        if cs.size and (cs.min() < 0 or cs.max() > self.n):
            raise InputError(f"counts must lie in 0..{self.n}")
        n = self.n
        if self._sym is None:  # p0 q^|d| for d = -n..n, one exp per d (Toeplitz rows are windows of it)
            self._sym = np.exp(self.log_p0 - self.eps * np.abs(np.arange(-n, n + 1)).astype(np.float64))
        out = np.lib.stride_tricks.sliding_window_view(self._sym, n + 1)[n - cs]
        out[:, 0] = np.exp(self.log_edge - self.eps * cs)
        out[:, n] = np.exp(self.log_edge - self.eps * (n - cs))
        return out

    def dense(self) -> NDArray[np.float64]:
        """The whole table ``G[c, z]`` ((n+1)^2 entries: small n and tests only)."""
        return self.rows(np.arange(self.size))

    def _filters(self, v: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        """Forward ``f(z) = sum_{c<=z} q^(z-c) v(c)`` and backward ``b(z) = sum_{c>=z} q^(c-z) v(c)`` along axis 0."""
        from scipy.signal import lfilter  # ~0.4 s to import: only where a recurrence runs (not in a draw)

        a = [1.0, -self.q]
        f = lfilter([1.0], a, v, axis=0)
        b = lfilter([1.0], a, v[::-1], axis=0)[::-1]
        return f, b

    def apply_t(self, v: ArrayLike) -> NDArray[np.float64]:
        """``out(z) = sum_c G(z | c) v(c)`` along axis 0 (v: ``(n+1,)`` or ``(n+1, m)``), O(n) per column.

        Interior ``z``: ``p0 (f + b - v)``; ``z = 0``: ``b(0)/(1+q)``; ``z = n``: ``f(n)/(1+q)``.
        """
        v = np.asarray(v, dtype=np.float64)
        if v.shape[0] != self.size:
            raise InputError(f"apply_t needs {self.size} rows, got {v.shape[0]}")
        if self.n == 0:
            return v.copy()
        f, b = self._filters(v)
        first = b[0] / (1.0 + self.q)
        last = f[self.n] / (1.0 + self.q)
        out = f
        out += b
        out -= v
        out *= self.p0
        out[0] = first
        out[self.n] = last
        return out

    def apply_t_last(self, vt: NDArray[np.float64]) -> NDArray[np.float64]:
        """:meth:`apply_t` along the LAST axis of ``vt`` (``(m, n+1)``, contiguous rows: ~2x faster)."""
        if vt.shape[-1] != self.size:
            raise InputError(f"apply_t_last needs {self.size} columns, got {vt.shape[-1]}")
        if self.n == 0:
            return vt.copy()
        from scipy.signal import lfilter

        a = [1.0, -self.q]
        f = lfilter([1.0], a, vt, axis=-1)
        b = lfilter([1.0], a, vt[:, ::-1], axis=-1)[:, ::-1]
        first = b[:, 0] / (1.0 + self.q)
        last = f[:, self.n] / (1.0 + self.q)
        f += b
        f -= vt
        f *= self.p0
        f[:, 0] = first
        f[:, self.n] = last
        return f

    def apply(self, u: ArrayLike) -> NDArray[np.float64]:
        """``out(c) = sum_z G(z | c) u(z)`` along axis 0, O(n) per column (interior z by the two
        recurrences on u with its end cells zeroed; the end cells add ``u(0) q^c/(1+q)`` and
        ``u(n) q^(n-c)/(1+q)``)."""
        u = np.asarray(u, dtype=np.float64)
        if u.shape[0] != self.size:
            raise InputError(f"apply needs {self.size} rows, got {u.shape[0]}")
        if self.n == 0:
            return u.copy()
        inner = u.copy()
        inner[0] = 0.0
        inner[self.n] = 0.0
        f, b = self._filters(inner)
        out = (f + b - inner) * self.p0
        c = np.arange(self.size, dtype=np.float64)
        shape = (-1,) + (1,) * (u.ndim - 1)
        left = np.exp(self.log_edge - self.eps * c).reshape(shape)
        right = np.exp(self.log_edge - self.eps * (self.n - c)).reshape(shape)
        out += left * u[0] + right * u[self.n]
        return out


def geometric_kernel(n: int, eps: float) -> GeometricKernel:
    """The exact clamped geometric kernel ``G(z | c)`` for k = 2, scale ``1/eps`` (docs/definitions.md §10)."""
    return GeometricKernel(n, eps)

