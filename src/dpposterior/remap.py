"""Geometric release followed by a remap, at any n (docs/definitions.md §10, k = 2).

Objects (docs/definitions.md §10)
---------------------------------
* ``G(z | c)``: the two-sided geometric release of one count c in {0..n},
  ``P(D = d) = (1 - q)/(1 + q) q^|d|``, ``q = exp(-eps)`` (scale ``1/eps`` at k = 2),
  ``z = clamp(c + D, 0, n)``; the boundary cells take the tails:
  ``G(0 | c) = q^c / (1 + q)``, ``G(n | c) = q^(n - c) / (1 + q)``, else ``tanh(eps/2) q^|z - c|``.
  It is eps-DP: ``G(z | c) <= e^eps G(z | c +- 1)`` cell by cell.
* A remap ``T(z, r)`` (row-stochastic) and the remapped mechanism
  ``P(r | c) = sum_z G(z | c) T(z, r)``: eps-DP by post-processing (whatever T is, even one
  computed from the prior, from floats, or rounded, because T never looks at c).
* ``E(c) = sum_r P(r | c) L(c, r)``; worst ``max_c E(c)``; average ``sum_c pi(c) E(c)`` with
  ``pi = BetaBinomial(n, a1, a2)``.  ``L`` is any loss matrix; the default is
  ``L(c, r) = H(Beta(a1 + c, a2 + n - c), Beta(a1 + r, a2 + n - r))``.
* Bayes remap (average objective): ``T(z) = argmin_r S_w(z, r)``,
  ``S_w(z, r) = sum_c w(c) G(z | c) L(c, r)`` with ``w = pi``.  Its average error is
  ``sum_z min_r S_pi(z, r)`` exactly.
* Minimax remap (worst objective): ``min_T max_c E_T(c)``.  For any distribution ``lam`` on c,
  ``B(lam) = sum_z min_r S_lam(z, r)`` is the smallest ``sum_c lam(c) E_T(c)`` over remaps, hence a
  lower bound on ``min_T max_c E_T(c)``; ``max_c E_T(c)`` of any remap T is an upper bound.  By the
  minimax theorem (a bilinear game on two simplices) ``max_lam B(lam) = min_T max_c E_T(c)``.
  Whether these equal the optimum over *all* eps-DP mechanisms (the LP of §9) is the content of
  Ghosh-Roughgarden-Sundararajan / Gupte-Sundararajan for losses nondecreasing in ``|r - c|``;
  the tests check it against the LP rather than assume it.

Exactness
---------
Every product with G uses the kernel's structure: ``sum_c q^|z - c| v(c)`` is a forward and a
backward first-order recurrence (``scipy.signal.lfilter``), the boundary cells are the ends of
those recurrences; no entry is truncated.  All terms are non-negative, so the only error is
float64 rounding (relative ~ 1e-15 / (1 - q) per product).  :class:`HellingerLoss` evaluates
``ln BC`` from lnGamma tables (Hankel structure) with the midpoint series near the diagonal,
relative error <= ~1e-10 of ``ln BC`` (see its docstring); :func:`dpposterior.distances.hellinger`
is the reference it is tested against.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse
from scipy.special import gammaln, polygamma

from .budget import budget_setting
from .distances import DEFAULT_DISTANCE, beta_matrix, get_distance, hellinger_from_log_bc
from .errors import InputError, SizeError
from .randomness import bit_source, choose, discrete_laplace, float_weights

__all__ = [
    "GeometricKernel", "geometric_kernel", "HellingerLoss", "MatrixLoss", "as_loss", "prior_predictive",
    "Remap", "bayes_scores", "bayes_remap", "bayes_remap_at", "bayes_risk", "risk", "average_risk",
    "worst_risk", "MinimaxResult", "minimax_remap", "minimax_ends", "identity_risk_bound", "pmf_row",
    "log_pmf_rows", "pair_scores", "geometric_draw", "sample",
    "monotonicity_violations", "RemapGapError",
]

#: Entries of an (n+1) x block work array (bounds the memory of every blocked loop: ~8 bytes each,
#: a handful of arrays alive at once -> ~100 MB).
BLOCK_ENTRIES = 2_500_000


#: Largest constraint matrix of the restricted minimax LP (each nonzero ~40 bytes inside HiGHS).
MAX_LP_NONZEROS = 20_000_000


class RemapGapError(InputError):
    """The minimax search stopped before its certified gap reached the requested tolerance."""


# --------------------------------------------------------------------------------------------
# The geometric kernel G(z | c)


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


# --------------------------------------------------------------------------------------------
# Loss matrices (computed by blocks)

_SERIES_TERMS = 8
_SERIES_COEF = np.array([1.0 / math.factorial(2 * j) for j in range(1, _SERIES_TERMS + 1)])
#: Largest n whose polygamma tables are tabulated whole (16 x (2n+1) doubles); larger n compute
#: the polygammas only at the half-integers a block touches.
_FULL_TABLE_N = 200_000


class HellingerLoss:
    """``L(c, r) = H(Beta(a1 + c, a2 + n - c), Beta(a1 + r, a2 + n - r))`` by blocks (docs/definitions.md §2, §10).

    Both posteriors have the same total, so ``ln BC = J1 + J2`` with the Jensen gaps
    ``J1 = lnG(a1 + (c+r)/2) - (lnG(a1 + c) + lnG(a1 + r))/2`` and the same for coordinate 2 with
    ``n - c, n - r``: three look-ups in a table of lnGamma on the half-integer grid (a Hankel
    structure, so a block costs O(block) and no (n+1)^2 table is stored).  A direct difference
    of lnGamma values has absolute error ~4e-16 mu ln mu (mu = a + (c+r)/2), i.e. relative error
    ~4e-16 ln(mu) / t^2 with ``t = |c - r| / (2 mu)``.  Within the band ``|c - r| <= D``,
    ``D = 4e-3 M sqrt(ln M)`` (``M = max(a) + n``), every coordinate with ``t <= 0.1`` uses
    instead the midpoint series ``J = -sum_j h^(2j) psi^(2j-1)(mu)/(2j)!`` (8 terms, remainder
    < t^16 relative, as :mod:`dpposterior.distances`); outside the band ``t > D/(2M)`` and the
    direct difference is within ~1e-10 relative.  So ``ln BC`` is within ~1e-10 relative
    (tested against :func:`dpposterior.distances.hellinger`), and ``H = sqrt(-expm1(ln BC))``.
    """

    def __init__(self, prior: ArrayLike, n: int):
        a = np.asarray(prior, dtype=np.float64).reshape(-1)
        if a.size != 2 or not np.all(np.isfinite(a)) or np.any(a <= 0):
            raise InputError(f"prior must be two finite positive numbers (a Beta prior), got {prior!r}")
        self.prior = a
        self.n, _ = _check_n_eps(n, 1.0)
        s = 0.5 * np.arange(2 * self.n + 1)
        self._lg = [gammaln(a[0] + s), gammaln(a[1] + s)]
        # ln BC(c, r) = F[c + r] - g[c] - g[r] (direct differences; Hankel in c + r)
        self._F = self._lg[0] + self._lg[1][::-1]
        self._g = 0.5 * (self._lg[0][0::2] + self._lg[1][0::2][::-1])
        M = float(a.max()) + self.n
        self.band = int(min(self.n, math.ceil(4e-3 * M * math.sqrt(math.log(M + 2.0))) + 2))
        self._psi: list | None = None
        self._psi_at: list[dict[int, NDArray[np.float64]]] = [{}, {}]

    @property
    def size(self) -> int:
        return self.n + 1

    def _coefs(self, i: int, s: NDArray[np.int64]) -> list[NDArray[np.float64]]:
        """``psi^(2j-1)(a_i + s/2) / (2j)!`` for j = 1..8 at half-integer indices s."""
        if self.n <= _FULL_TABLE_N:
            if self._psi is None:
                grid = [self.prior[k] + 0.5 * np.arange(2 * self.n + 1) for k in range(2)]
                self._psi = [[_SERIES_COEF[j] * polygamma(2 * j + 1, g) for j in range(_SERIES_TERMS)] for g in grid]
            return [tab[s] for tab in self._psi[i]]
        u, inv = np.unique(s, return_inverse=True)
        cache = self._psi_at[i]  # s -> the 8 coefficients, computed once per half-integer touched
        missing = [v for v in u.tolist() if v not in cache]
        if missing:
            x = self.prior[i] + 0.5 * np.asarray(missing, dtype=np.float64)
            vals = np.stack([_SERIES_COEF[j] * polygamma(2 * j + 1, x) for j in range(_SERIES_TERMS)], axis=1)
            cache.update(zip(missing, vals))
        M = np.stack([cache[v] for v in u.tolist()], axis=1)
        return [M[j][inv] for j in range(_SERIES_TERMS)]

    def log_bc(self, cs: ArrayLike, rs: ArrayLike) -> NDArray[np.float64]:
        """``ln BC`` for every pair of counts ``cs`` x outputs ``rs``: shape ``(len(cs), len(rs))``."""
        cs = np.asarray(cs, dtype=np.int64).reshape(-1)
        rs = np.asarray(rs, dtype=np.int64).reshape(-1)
        n = self.n
        if cs.size and (cs.min() < 0 or cs.max() > n) or rs.size and (rs.min() < 0 or rs.max() > n):
            raise InputError(f"counts and outputs must lie in 0..{n}")
        if rs.size and _contiguous(rs):
            out = np.lib.stride_tricks.sliding_window_view(self._F, rs.size)[cs + rs[0]]
        else:
            out = self._F[cs[:, None] + rs[None, :]]
        out -= self._g[cs][:, None]
        out -= self._g[rs][None, :]
        # near the diagonal: the midpoint series where it applies (class docstring)
        D = self.band
        if cs.size and rs.size:
            if _contiguous(cs):
                # the band |r - c| <= D, built directly: rows c = r + d, d = -D..D
                lo_d = max(-D, int(cs[0]) - int(rs.max()))
                hi_d = min(D, int(cs[-1]) - int(rs.min()))
                offs = np.arange(lo_d, hi_d + 1) if hi_d >= lo_d else np.zeros(0, dtype=np.int64)
                jj = np.repeat(np.arange(rs.size), offs.size)
                ii = (rs[:, None] + offs[None, :]).reshape(-1) - cs[0]
                ok = (ii >= 0) & (ii < cs.size)
                ri, ci = ii[ok], jj[ok]
            else:
                ri, ci = np.nonzero(np.abs(rs[None, :] - cs[:, None]) <= D)
            if ri.size:
                out[ri, ci] = self._band_log_bc(cs[ri], rs[ci])
        np.minimum(out, 0.0, out=out)
        return out

    def log_bc_pairs(self, c: ArrayLike, r: ArrayLike) -> NDArray[np.float64]:
        """``ln BC`` at the pairs ``(c[i], r[i])`` (elementwise): the same formulas, in the same order of
        operations, as :meth:`log_bc` (direct differences, the midpoint series within the band), so each
        value equals the corresponding entry of a block bit for bit; O(1) per pair."""
        c = np.asarray(c, dtype=np.int64).reshape(-1)
        r = np.asarray(r, dtype=np.int64).reshape(-1)
        n = self.n
        if c.shape != r.shape:
            raise InputError("log_bc_pairs needs as many counts as outputs")
        if c.size and (min(c.min(), r.min()) < 0 or max(c.max(), r.max()) > n):
            raise InputError(f"counts and outputs must lie in 0..{n}")
        out = self._F[c + r]
        out -= self._g[c]
        out -= self._g[r]
        band = np.flatnonzero(np.abs(r - c) <= self.band)
        if band.size:
            out[band] = self._band_log_bc(c[band], r[band])
        np.minimum(out, 0.0, out=out)
        return out

    def _band_log_bc(self, c: NDArray[np.int64], r: NDArray[np.int64]) -> NDArray[np.float64]:
        """``ln BC = J1 + J2`` at the pairs ``(c[i], r[i])`` within the band: each coordinate's Jensen gap from
        the lnGamma table, or its midpoint series where ``|r - c| / 2 <= 0.1 mu`` (class docstring); shared
        by :meth:`log_bc` and :meth:`log_bc_pairs`, so both give the same bits."""
        n = self.n
        h = 0.5 * (r - c).astype(np.float64)
        total = 0.0
        # coordinate i's counts: (c, r) for i = 0, (n - c, n - r) for i = 1
        for i, (ci_, ri_) in enumerate(((c, r), (n - c, n - r))):
            s = ci_ + ri_
            mu = self.prior[i] + 0.5 * s
            near = np.abs(h) <= 0.1 * mu
            j = self._lg[i][s] - 0.5 * (self._lg[i][2 * ci_] + self._lg[i][2 * ri_])
            if near.any():
                hn = h[near]
                h2 = hn * hn
                power = np.ones_like(hn)
                acc = np.zeros_like(hn)
                for coef in self._coefs(i, s[near]):
                    power = power * h2
                    acc -= power * coef
                j[near] = acc
            total = total + np.minimum(j, 0.0)
        return total

    def pairs(self, c: ArrayLike, r: ArrayLike) -> NDArray[np.float64]:
        """``L(c[i], r[i])`` elementwise (Hellinger distance), equal to :meth:`block`'s entries bit for bit."""
        out = self.log_bc_pairs(c, r)
        return hellinger_from_log_bc(out, out=out)

    def block(self, cs: ArrayLike, rs: ArrayLike) -> NDArray[np.float64]:
        """``L(c, r)`` for counts ``cs`` x outputs ``rs`` (Hellinger distance)."""
        out = self.log_bc(cs, rs)
        return hellinger_from_log_bc(out, out=out)

    def dense(self) -> NDArray[np.float64]:
        """The whole ``(n+1) x (n+1)`` loss matrix (small n and tests)."""
        idx = np.arange(self.size)
        return self.block(idx, idx)

    #: ``L(c, r) = L(r, c)`` (a distance between the two posteriors)
    symmetric = True
    max_loss = 1.0


def _contiguous(a: NDArray[np.int64]) -> bool:
    return a.size > 0 and int(a[-1]) - int(a[0]) == a.size - 1 and bool(np.all(np.diff(a) == 1))


def _block_t(loss, rs: NDArray[np.int64], cs: NDArray[np.int64]) -> NDArray[np.float64]:
    """``L(cs, rs)`` transposed, ``(len(rs), len(cs))``, C-contiguous (symmetric losses: one block)."""
    if getattr(loss, "symmetric", False):
        return loss.block(rs, cs)
    return np.ascontiguousarray(loss.block(cs, rs).T)


class MatrixLoss:
    """Any loss given as a dense ``(n+1) x (n+1)`` matrix ``L[c, r] >= 0``."""

    def __init__(self, matrix: ArrayLike):
        L = np.asarray(matrix, dtype=np.float64)
        if L.ndim != 2 or L.shape[0] != L.shape[1] or L.shape[0] < 1:
            raise InputError(f"a loss matrix must be square (n+1) x (n+1), got shape {L.shape}")
        if not np.all(np.isfinite(L)) or np.any(L < 0):
            raise InputError("a loss matrix must be finite and non-negative")
        self.matrix = L
        self.n = L.shape[0] - 1
        self.max_loss = float(L.max())

    @property
    def size(self) -> int:
        return self.n + 1

    def block(self, cs: ArrayLike, rs: ArrayLike) -> NDArray[np.float64]:
        cs = np.asarray(cs, dtype=np.int64).reshape(-1)
        rs = np.asarray(rs, dtype=np.int64).reshape(-1)
        return self.matrix[np.ix_(cs, rs)]

    def pairs(self, c: ArrayLike, r: ArrayLike) -> NDArray[np.float64]:
        """``L(c[i], r[i])`` elementwise."""
        return self.matrix[np.asarray(c, dtype=np.int64), np.asarray(r, dtype=np.int64)]

    def dense(self) -> NDArray[np.float64]:
        return self.matrix.copy()


class DistanceLoss(MatrixLoss):
    """``L(c, r) = D(Beta(a1 + c, a2 + n - c), Beta(a1 + r, a2 + n - r))`` for a registry distance ``D``
    (docs/definitions.md §2, §10), as the dense matrix of its exact values (``(n + 1)^2`` evaluations,
    refused in one line past ``DPPOSTERIOR_MAX_SENSITIVITY_WORK``).  KL's rounding below 0 at ``r = c`` is
    set to 0.  For Hellinger use :class:`HellingerLoss` (blocked, any n): :func:`loss_for` chooses."""

    def __init__(self, name: str, prior: ArrayLike, n: int):
        dist = get_distance(name)
        a = np.asarray(prior, dtype=np.float64).reshape(-1)
        if a.size != 2:
            raise InputError(f"the remap's loss is for k = 2 (a Beta prior), got {a.size} prior entries")
        dist.check(2)
        n = int(n)
        work = float(n + 1) ** 2
        limit = budget_setting("DPPOSTERIOR_MAX_SENSITIVITY_WORK")
        if work > limit:
            raise SizeError(f"the {dist.name} loss matrix for n={n} takes {work:.3g} distance evaluations, over the "
                            f"budget of {limit:.3g} (use a smaller n, or set DPPOSTERIOR_MAX_SENSITIVITY_WORK)")
        L = beta_matrix(dist.name, a, n)
        if L is None:
            c = np.arange(n + 1, dtype=np.float64)
            post = np.stack([a[0] + c, a[1] + n - c], axis=1)
            L = np.asarray(dist.value(post[:, None, :], post[None, :, :]), dtype=np.float64)
        super().__init__(np.where(L > 0, L, 0.0))
        self.name = dist.name


def loss_for(distance: str, prior: ArrayLike, n: int):
    """The k = 2 loss of docs/definitions.md §10 under a registry distance: :class:`HellingerLoss` for
    Hellinger (blocked, any n), else :class:`DistanceLoss` (dense, exact)."""
    if get_distance(distance).name == DEFAULT_DISTANCE:
        return HellingerLoss(prior, n)
    return DistanceLoss(distance, prior, n)


def as_loss(loss, n: int):
    """The loss ``L(c, r)`` of docs/definitions.md §10 as an object with ``.block(cs, rs)``: from a
    dense matrix (:class:`MatrixLoss`), an object that already has ``block``, or a Beta prior
    ``(a1, a2)`` (:class:`HellingerLoss`)."""
    if hasattr(loss, "block"):
        obj = loss
    else:
        arr = np.asarray(loss, dtype=np.float64)
        obj = MatrixLoss(arr) if arr.ndim == 2 else HellingerLoss(arr, n)
    if obj.size != n + 1:
        raise InputError(f"the loss is for n = {obj.size - 1}, the kernel for n = {n}")
    return obj


def prior_predictive(prior: ArrayLike, n: int, log: bool = False) -> NDArray[np.float64]:
    """``pi(c) = BetaBinomial(c; n, a1, a2)``, c = 0..n (docs/definitions.md §9), normalised in log space."""
    a = np.asarray(prior, dtype=np.float64).reshape(-1)
    if a.size != 2 or np.any(~(a > 0)) or not np.all(np.isfinite(a)):
        raise InputError(f"prior must be two finite positive numbers, got {prior!r}")
    n, _ = _check_n_eps(n, 1.0)
    c = np.arange(n + 1, dtype=np.float64)
    lp = (gammaln(n + 1.0) - gammaln(c + 1.0) - gammaln(n - c + 1.0)
          + gammaln(a[0] + c) + gammaln(a[1] + n - c) - gammaln(a.sum() + n)
          - (gammaln(a[0]) + gammaln(a[1]) - gammaln(a.sum())))
    top = lp.max()
    lp -= top + math.log(np.exp(lp - top).sum())
    return lp if log else np.exp(lp)


# --------------------------------------------------------------------------------------------
# Remaps


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


def _block_width(N: int) -> int:
    return max(1, min(N, BLOCK_ENTRIES // max(N, 1)))


def _scores(kernel: GeometricKernel, w: NDArray[np.float64], loss, remap: Remap | None = None):
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


def bayes_scores(kernel: GeometricKernel, weights: ArrayLike, loss) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """``(min_r S_w(z, r), argmin_r S_w(z, r))`` for every z, ``S_w = sum_c w(c) G(z|c) L(c, r)`` (docs/definitions.md §10).

    Exact in float64 (module docstring); O(n) memory per column block, O(n^2) time.
    ``sum_z min_r S_w(z, r)`` is the Bayes risk ``B(w)`` (``w`` normalised to 1).
    """
    loss = as_loss(loss, kernel.n)
    w = _weights(weights, kernel.size)
    best, arg, _ = _scores(kernel, w, loss)
    return best, arg


def _weights(weights, N: int) -> NDArray[np.float64]:
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.size != N or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise InputError(f"weights must be {N} finite non-negative numbers with a positive sum")
    return w / w.sum()


def bayes_remap(kernel: GeometricKernel, weights: ArrayLike, loss) -> NDArray[np.int64]:
    """The Bayes remap ``r(z) = argmin_r sum_c w(c) G(z|c) L(c, r)`` (docs/definitions.md §10), deterministic.

    Guarantee: among all remaps of G, it minimises ``sum_c w(c) E(c)`` (each z's row is chosen
    independently, and a deterministic argmin is optimal for a linear objective); eps-DP by
    post-processing.  With ``w = pi`` and a loss nondecreasing in ``|r - c|`` it is, by
    Ghosh-Roughgarden-Sundararajan, optimal among all eps-DP mechanisms (checked against the LP
    in the tests).  Exact (module docstring); ties go to the smallest r.
    """
    return bayes_scores(kernel, weights, loss)[1]


def bayes_remap_at(kernel: GeometricKernel, log_weights: ArrayLike, loss, z: int,
                   tail: float = 1e-18) -> tuple[int, float]:
    """``T(z)`` of the Bayes remap for ONE z without any (n+1)^2 object: ``(r, slack)`` (docs/definitions.md §10).

    ``log w(c) = log_weights(c) + ln G(z | c)`` costs O(n).  The window ``[lo, hi]`` is the hull of
    the c with ``w(c) >= tail * sum(w) / (n+1)``, so the mass outside is ``< tail * sum(w)``; the
    argmin of ``S_in(r) = sum_{c in window} w(c) L(c, r)`` over ``r`` in the window is returned.
    Bound: for a loss nondecreasing in ``|r - c|`` (moving r towards the window lowers every
    ``L(c, r)`` of the window) and ``0 <= L <= L_max``,
    ``S(z, r) - min_r' S(z, r') <= tail * L_max * sum(w)``; ``slack`` is that bound relative to
    ``S(z, r)``.  Cost O(n + window^2); the window is ~ 2 ln(1/tail)/eps wide for smooth priors.
    """
    loss = as_loss(loss, kernel.n)
    lw = np.asarray(log_weights, dtype=np.float64).reshape(-1)
    N = kernel.size
    if lw.size != N:
        raise InputError(f"log_weights must have {N} entries")
    if not (0 <= int(z) <= kernel.n):
        raise InputError(f"z must lie in 0..{kernel.n}")
    c = np.arange(N)
    lw = lw + kernel.log_pmf(int(z), c)
    top = lw.max()
    total = np.exp(lw - top).sum()  # sum(w) / e^top
    keep = np.flatnonzero(lw - top >= math.log(tail * total / N))
    lo, hi = int(keep.min()), int(keep.max())
    win = np.arange(lo, hi + 1)
    w = np.exp(lw[lo: hi + 1] - top)
    S_in = w @ loss.block(win, win)
    j = int(np.argmin(S_in))
    bound = tail * float(getattr(loss, "max_loss", 1.0)) * total
    return lo + j, bound / max(float(S_in[j]), 1e-300)


# --------------------------------------------------------------------------------------------
# Risks E(c), exactly


def _risk_terms(kernel: GeometricKernel, T: Remap, loss, cs: NDArray[np.int64]) -> NDArray[np.float64]:
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


def _window_sums(kernel: GeometricKernel, T: Remap, loss, cs: NDArray[np.int64], W: int,
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


def _risk_dense(kernel: GeometricKernel, T: Remap, loss, cs: NDArray[np.int64]) -> NDArray[np.float64]:
    """``E(c)`` from whole rows (every z and r), O(n (n + nnz T)): losses without ``pairs``."""
    out = np.empty(cs.size)
    width = _block_width(kernel.size)
    for s in range(0, cs.size, width):
        out[s: s + width] = _risk_terms(kernel, T, loss, cs[s: s + width]).sum(axis=1)
    return out


def risk(kernel: GeometricKernel, remap, loss, cs: ArrayLike | None = None) -> NDArray[np.float64]:
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
    sense of the module docstring, and ``E(c) (1 + 1e-17)`` is a rigorous upper bound where one is
    needed (the certificates' tolerances are >= 1e-12).  Losses without ``pairs`` use whole rows.
    """
    loss = as_loss(loss, kernel.n)
    T = _as_remap(remap, kernel.size)
    n = kernel.n
    cs = np.arange(kernel.size) if cs is None else np.asarray(cs, dtype=np.int64).reshape(-1)
    if cs.size and (cs.min() < 0 or cs.max() > n):
        raise InputError(f"counts must lie in 0..{n}")
    lmax = float(getattr(loss, "max_loss", math.nan))
    if not hasattr(loss, "pairs") or not (math.isfinite(lmax) and lmax >= 0):
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


def average_risk(kernel: GeometricKernel, remap, loss, weights: ArrayLike) -> float:
    """Average error ``sum_c w(c) E(c)`` of the remapped release (w normalised; ``w = pi`` is the
    average objective of docs/definitions.md §10).  Exact as :func:`risk` (all terms, float64)."""
    w = _weights(weights, kernel.size)
    return float(w @ risk(kernel, remap, loss))


def worst_risk(kernel: GeometricKernel, remap, loss) -> tuple[float, int]:
    """Worst-case error ``(max_c E(c), the first maximising c)`` of the remapped release
    (docs/definitions.md §10); an upper bound on the minimax remap risk.  Exact as :func:`risk`."""
    E = risk(kernel, remap, loss)
    i = int(np.argmax(E))
    return float(E[i]), i


def bayes_risk(kernel: GeometricKernel, lam: ArrayLike, loss) -> tuple[float, NDArray[np.int64]]:
    """``B(lam) = sum_z min_r sum_c lam(c) G(z|c) L(c, r)`` and the Bayes response ``r(z)`` (docs/definitions.md §10).

    Guarantee: ``B(lam) <= sum_c lam(c) E_T(c) <= max_c E_T(c)`` for every remap T, so ``B(lam)``
    is a lower bound on the minimax remap risk for any distribution lam.  Exact (no truncation).
    """
    loss = as_loss(loss, kernel.n)
    w = _weights(lam, kernel.size)
    best, arg, _ = _scores(kernel, w, loss)
    return float(best.sum()), arg


# --------------------------------------------------------------------------------------------
# Minimax remap: constraint and column generation on a restricted LP, exact certificate


class MinimaxResult(NamedTuple):
    """``remap`` (randomised, sparse), certified ``lower <= min_T max_c E_T(c) <= upper``,
    ``gap = (upper - lower)/upper`` and the least favourable ``lam`` found."""

    remap: Remap
    lower: float
    upper: float
    gap: float
    lam: NDArray[np.float64]


def _solve_restricted(kernel, loss, C, pairs_z, pairs_r, zact_mask, base: Remap, W: int, drop: float,
                      methods=("highs", "highs-ds", "highs-ipm"), pair_cost=None, t_cap=None,
                      tight_first: bool = True):
    """min t s.t. E(c) <= t (c in C) over T(z, r), (z, r) in the listed pairs (z active), the
    other rows of T fixed at ``base``.  Returns (t, {z: (r, p)}, lam on C).

    Second stage (``pair_cost`` given): minimise ``sum pair_cost * T(z, r)`` instead, subject to
    ``E(c) <= t <= t_cap`` on the same constraints."""
    N = kernel.size
    C = np.asarray(C, dtype=np.int64)
    nv = pairs_z.size
    # constant part of E(c): rows z that are not active, within q^W <= 1e-18 of c (O(|C| W); a search LP
    # only: every certificate is recomputed from T)
    if hasattr(loss, "pairs"):
        const = _window_sums(kernel, base, loss, C, min(kernel.n, kernel.window(1e-18)), skip=zact_mask)
        Lc = None
    else:
        const = (_risk_terms(kernel, base, loss, C) * (~zact_mask)[None, :]).sum(axis=1)
        Lc = loss.block(C, np.arange(N))
    order = np.argsort(pairs_z, kind="stable")
    pz, pr = pairs_z[order], pairs_r[order]
    nnz = int((np.searchsorted(pz, C + W, side="right") - np.searchsorted(pz, C - W, side="left")).sum())
    if nnz > MAX_LP_NONZEROS:
        raise SizeError(f"the restricted minimax LP would have {nnz:,} nonzeros (over {MAX_LP_NONZEROS:,}); "
                        f"eps = {kernel.eps:g} spreads each count over ~{W} cells at n = {kernel.n}: "
                        "use a smaller band or a larger eps")
    # every (c, pair) with |z - c| <= W, gathered at once: c's pairs are pz[lo[c]:hi[c]]
    lo = np.searchsorted(pz, C - W, side="left")
    hi = np.searchsorted(pz, C + W, side="right")
    lens = hi - lo
    idx = np.repeat(lo - (np.cumsum(lens) - lens), lens) + np.arange(int(lens.sum()))
    ii = np.repeat(np.arange(C.size), lens)
    cc = C[ii]
    v = kernel.pmf(pz[idx], cc) * (Lc[ii, pr[idx]] if Lc is not None else loss.pairs(cc, pr[idx]))
    ok = v > drop
    rows, cols, vals = [ii[ok]], [order[idx][ok]], [v[ok]]
    rows.append(np.arange(C.size))
    cols.append(np.full(C.size, nv))
    vals.append(-np.ones(C.size))
    A_ub = sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(C.size, nv + 1))
    zs, zinv = np.unique(pairs_z, return_inverse=True)
    A_eq = sparse.csr_array((np.ones(nv), (zinv, np.arange(nv))), shape=(zs.size, nv + 1))
    obj = np.zeros(nv + 1)
    if pair_cost is None:
        obj[-1] = 1.0
    else:
        obj[:nv] = pair_cost
    from scipy.optimize import linprog  # imported where an LP is solved

    # tight tolerances first; HiGHS' defaults if it stops without a status (Beta(0.5,0.5), n = 500, eps = 0.25):
    # a search LP only, every certificate is recomputed exactly from T
    tight = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
    res = None
    for method, opts in ((m, o) for m in methods for o in ((tight, {}) if tight_first else ({},))):
        res = linprog(obj, A_ub=A_ub, b_ub=-const, A_eq=A_eq, b_eq=np.ones(zs.size),
                      bounds=[(0, None)] * nv + [(None, t_cap)], method=method, options=opts)
        if res.status == 0:
            break
    if res is None or res.status != 0:
        raise InputError(f"the restricted minimax LP failed: {getattr(res, 'message', '')}")
    x = np.maximum(res.x[:nv], 0.0)
    lam = np.maximum(-res.ineqlin.marginals, 0.0) if pair_cost is None else np.zeros(C.size)
    # group pairs by z efficiently
    grp = np.argsort(zinv, kind="stable")
    bounds_ = np.searchsorted(zinv[grp], np.arange(zs.size + 1))
    out = {}
    for k, z in enumerate(zs):
        idx = grp[bounds_[k]: bounds_[k + 1]]
        p = x[idx]
        mx = p.max()
        keep = p > 1e-12 * max(mx, 1e-300)
        if not keep.any():
            keep = p == mx
        out[int(z)] = (pairs_r[idx][keep], p[keep])
    return float(res.x[-1]), out, lam


def pair_scores(kernel: GeometricKernel, weights: ArrayLike, loss, pairs_z: ArrayLike, pairs_r: ArrayLike,
                tail: float = 1e-18) -> NDArray[np.float64]:
    """``S_w(z, r) = sum_c w(c) G(z | c) L(c, r)`` at listed pairs (docs/definitions.md §10), O(W) per pair.

    The sum runs over ``|c - z| <= W`` with ``q^W <= tail`` (:meth:`GeometricKernel.window`), so it is
    below the exact value by at most ``tail * max L`` (relative to ``sum_c w(c) = 1``): an objective for
    the second stage of :func:`minimax_remap`, never a certificate.
    """
    loss = as_loss(loss, kernel.n)
    w = _weights(weights, kernel.size)
    pz = np.asarray(pairs_z, dtype=np.int64).reshape(-1)
    pr = np.asarray(pairs_r, dtype=np.int64).reshape(-1)
    W = kernel.window(tail)
    out = np.empty(pz.size)
    order = np.argsort(pz, kind="stable")
    zs, first = np.unique(pz[order], return_index=True)
    bounds_ = np.append(first, pz.size)
    for i, z in enumerate(zs):
        idx = order[bounds_[i]: bounds_[i + 1]]
        cs = np.arange(max(0, int(z) - W), min(kernel.n, int(z) + W) + 1)
        v = w[cs] * kernel.pmf(int(z), cs)
        out[idx] = v @ loss.block(cs, pr[idx])
    return out


def minimax_remap(kernel: GeometricKernel, loss, *, tol: float = 1e-4, band: int | None = None,
                  start=None, max_rounds: int = 40, strict: bool = True, verbose: bool = False,
                  average_weights: ArrayLike | None = None) -> MinimaxResult:
    """The minimax remap ``argmin_T max_c E_T(c)`` with a certificate (docs/definitions.md §10).

    Algorithm (restricted LP with constraint and column generation; the bounds are exact):

    1. Start from ``T0`` (identity, or ``start``) and compute ``E_T0(c)`` for every c exactly.
    2. Active inputs ``Z``: the z within ``ln(1e10)/eps`` of a c with ``E_T0(c) >= 0.5 max E``
       (all z when n < 64); candidate outputs ``R_z`` (``|r - z| <= band``, default ``1/eps + 1``;
       all r when n < 64); constrained data sets ``C``: every c within ``W = ln(1e18)/eps`` of Z
       (so no c outside C moves by more than ~1e-18).  Solve with HiGHS ``min t`` s.t.
       ``E_T(c) <= t`` for c in C, over ``T(z, r)``, ``z in Z``, ``r in R_z``; rows outside Z are
       fixed (their contribution to ``E(c)`` is an exact constant; coefficients below 1e-13 are
       dropped from the search LP only, and restored if the search stalls).  ``lam`` = the LP's duals on C (they sum to 1).
    3. Certificate, exactly (no truncation): ``upper = max_c E_T(c)`` over ALL c and
       ``lower = B(lam) = sum_z min_{all r} S_lam(z, r)`` over ALL z and r.  By weak duality of the
       game, ``lower <= min_T max_c E_T(c) <= upper`` whatever the LP returned.
    4. If ``(upper - lower)/upper > tol``, grow: inputs near a c outside C with ``E(c)`` near or
       above the LP's t join Z (and C grows with Z);
       the Bayes responses ``argmin_r S_lam(z, r)`` (and neighbours) join ``R_z``; inputs z outside
       Z whose fixed row loses to the Bayes response join Z.  The restricted LP's value minus
       ``B(lam)`` is the sum of those losses (LP duality, up to the dropped 1e-13 coefficients) and
       ``upper - t`` comes from c outside C, so each round removes a cause of the gap; the sets only
       grow and are finite, and when no cause remains ``lower = t = upper`` up to the LP tolerance
       (1e-10).  Soundness never rests on the LP: both bounds are recomputed from T and lam.

    5. Second stage (``average_weights`` given, e.g. the prior predictive): on the same restricted
       LP, minimise the weighted average error of the active rows, ``sum T(z, r) S_w(z, r)``
       (:func:`pair_scores`), subject to ``E(c) <= upper`` for every constrained c, so that among
       minimax remaps the one released is also good on average (slack rows no longer arbitrary).
       The certificate is recomputed exactly afterwards (``upper`` over all c, ``lower`` unchanged);
       if its gap exceeds ``tol`` the first-stage remap is kept.

    Returns :class:`MinimaxResult`.  If the gap is not reached: :class:`RemapGapError` when
    ``strict`` (else the result with its larger gap).  Guarantee of the release: eps-DP by
    post-processing for any T; the risk bounds are exact up to float64 rounding (~1e-13 relative).
    """
    loss = as_loss(loss, kernel.n)
    n, N = kernel.n, kernel.size
    W = kernel.window(1e-18)    # a row z moves E(c) by < 1e-18 beyond this distance
    Wz = kernel.window(1e-10)   # rows activated around a data set of interest
    K = band if band is not None else max(2, math.ceil(1.0 / kernel.eps) + 1)
    small = N < 64
    T = _as_remap(start, N) if start is not None else Remap.identity(n)
    E = risk(kernel, T, loss)
    zact = np.zeros(N, dtype=bool)
    cmask = np.zeros(N, dtype=bool)  # constrained data sets: every c within W of an active row
    Rz: dict[int, set[int]] = {}

    def spread(mask, width):
        idx = np.flatnonzero(mask)
        mark = np.zeros(N + 1, dtype=np.int64)
        np.add.at(mark, np.clip(idx - width, 0, N), 1)
        np.add.at(mark, np.clip(idx + width + 1, 0, N), -1)
        return np.cumsum(mark)[:N] > 0

    def activate(zs):
        for z in np.asarray(zs, dtype=np.int64).reshape(-1):
            z = int(z)
            if not zact[z]:
                zact[z] = True
                Rz[z] = set(range(N)) if small else set(range(max(0, z - K), min(n, z + K) + 1))
                Rz[z].update(T.row(z)[0].tolist())
        cmask[:] |= spread(zact, W)

    core = np.ones(N, dtype=bool) if small else E >= 0.5 * E.max()
    activate(np.flatnonzero(spread(core, Wz)))
    lower, upper, gap = 0.0, float(E.max()), math.inf
    lam = np.zeros(N)
    drop = 1e-13
    Wc = min(W, kernel.window(drop))  # coefficients G(z|c) L(c,r) below `drop` leave the search LP
    for rnd in range(max_rounds):
        zs_sorted = np.flatnonzero(zact)
        pz = np.concatenate([np.full(len(Rz[z]), z, dtype=np.int64) for z in zs_sorted])
        pr = np.concatenate([np.fromiter(sorted(Rz[z]), dtype=np.int64) for z in zs_sorted])
        Cl = np.flatnonzero(cmask)
        t_lp, rows, lam_c = _solve_restricted(kernel, loss, Cl, pz, pr, zact, T, W if drop == 0 else Wc, drop)
        T = Remap.from_rows(rows, T)
        lam = np.zeros(N)
        lam[Cl] = lam_c
        if lam.sum() <= 0:
            lam[Cl[np.argmax(E[Cl])]] = 1.0
        lam /= lam.sum()
        # exact risks where the active rows reach (elsewhere E moves by < 1e-18; all c at the end)
        near = np.flatnonzero(cmask)
        E[near] = risk(kernel, T, loss, near)
        smin, resp, s_at = _scores(kernel, lam, loss, T)
        lower = float(smin.sum())
        upper = float(E.max())
        gap = (upper - lower) / upper if upper > 0 else 0.0
        if verbose:
            lost_ = s_at - smin
            outside = sum(int(resp[z]) not in Rz[int(z)] for z in np.flatnonzero(zact))
            print(f"round {rnd}: |C|={int(cmask.sum())} |Z|={int(zact.sum())} pairs={pz.size} t_lp={t_lp:.9f} "
                  f"lower={lower:.9f} upper={upper:.9f} gap={gap:.3g}; loss on active rows "
                  f"{lost_[zact].sum():.3g} (max at z={int(np.argmax(np.where(zact, lost_, -1)))}), inactive "
                  f"{lost_[~zact].sum():.3g}; responses outside R_z: {outside}")
        if gap <= tol:
            E = risk(kernel, T, loss)  # the final certificate: every c, exactly
            upper = float(E.max())
            gap = (upper - lower) / upper if upper > 0 else 0.0
            if gap <= tol:
                break
        # grow the restricted problem (the gap's causes: docstring, step 4)
        before = int(zact.sum()) + sum(len(v) for v in Rz.values())
        hot = (~cmask) & (E > t_lp * (1.0 - 1e-3))
        lost = s_at - smin
        far = (~zact) & (lost > tol * upper / (8.0 * N))
        activate(np.flatnonzero(spread(hot, Wz) | far))
        for z in np.flatnonzero(zact):
            rz = Rz[int(z)]
            for r in (resp[z] - 1, resp[z], resp[z] + 1):
                if 0 <= r <= n:
                    rz.add(int(r))
        if int(zact.sum()) + sum(len(v) for v in Rz.values()) == before:
            if drop > 0:
                drop = 0.0
                continue
            break
    if not gap <= tol and strict:
        raise RemapGapError(f"minimax remap: certified gap {gap:.3g} > tol {tol:g} after the search "
                            f"(lower {lower:.9g}, upper {upper:.9g})")
    if average_weights is not None and gap <= tol:
        zs_sorted = np.flatnonzero(zact)
        pz = np.concatenate([np.full(len(Rz[z]), z, dtype=np.int64) for z in zs_sorted])
        pr = np.concatenate([np.fromiter(sorted(Rz[z]), dtype=np.int64) for z in zs_sorted])
        cost = pair_scores(kernel, average_weights, loss, pz, pr)
        scale = float(cost.max()) or 1.0
        try:
            # interior point with HiGHS' default tolerances: this LP is degenerate at its optimum face
            # (Beta(5,5), n = 500, eps = 0.25: dual simplex 29 s, IPM 3 s; tight tolerances stall both);
            # the result is kept only if its exact certificate holds
            _, rows2, _ = _solve_restricted(kernel, loss, np.flatnonzero(cmask), pz, pr, zact, T, W, 0.0,
                                            methods=("highs-ipm", "highs"), pair_cost=cost / scale,
                                            t_cap=upper, tight_first=False)
        except InputError:
            rows2 = None
        if rows2 is not None:
            T2 = Remap.from_rows(rows2, T)
            upper2 = float(risk(kernel, T2, loss).max())
            gap2 = (upper2 - lower) / upper2 if upper2 > 0 else 0.0
            if gap2 <= tol:
                T, upper, gap = T2, upper2, gap2
    return MinimaxResult(T, lower, upper, gap, lam)


# --------------------------------------------------------------------------------------------
# Minimax remap at large n: non-identity rows in two end windows, a local certificate


def identity_risk_bound(kernel: GeometricKernel, prior: ArrayLike) -> NDArray[np.float64]:
    """A rigorous upper bound ``U(c) >= E_id(c) = sum_z G(z | c) H(c, z)`` for every c, O(n) (docs/definitions.md §10).

    Proof.  (i) Unit steps: both posteriors have the same total, so ``ln BC`` of ``c = x`` and ``x + 1`` is
    ``J(a1 + x) + J(a2 + n - x - 1)`` with ``-J(y) = (lnG(y) + lnG(y + 1))/2 - lnG(y + 1/2)
    = (1/2) ln(y G(y)^2 / G(y + 1/2)^2)``; Wendel's inequality ``G(y + 1/2) >= G(y) y / sqrt(y + 1/2)``
    gives ``-J(y) <= (1/2) ln(1 + 1/(2y)) <= 1/(4y)``, and ``H^2 = 1 - BC <= -ln BC``, so
    ``H(x, x + 1) <= phi(x) = sqrt(1/(4 (a1 + x)) + 1/(4 (a2 + n - x - 1)))``.  (ii) H is a metric, so
    ``H(c, z) <= sum of phi over the |z - c| steps between them``.  (iii) ``z = clamp(c + D)`` is between c
    and ``c + D``, so ``E_id(c) <= sum_{j >= 0} phi(c + j) P(D > j) + sum_{j >= 0} phi(c - 1 - j) P(D < -j)``
    with ``P(D > j) = P(D < -j) = q^(j+1)/(1+q)``: two sums ``sum_j q^j phi(.)``, computed as convolutions with
    ``q^j``, ``j <= J`` (``q^J <= 1e-20``), plus the rest's bound ``q^(J+1)/(1-q) max phi``; a factor
    ``1 + 1e-12`` covers float64 rounding.  O(n J); past ``n J = 5e7`` the exact recurrences (lfilter).
    """
    a = np.asarray(prior, dtype=np.float64).reshape(-1)
    n, q = kernel.n, kernel.q
    if n == 0:
        return np.zeros(1)
    x = np.arange(n, dtype=np.float64)
    phi = np.sqrt(0.25 / (a[0] + x) + 0.25 / (a[1] + n - x - 1.0))
    right = np.zeros(n + 1)
    left = np.zeros(n + 1)
    J = kernel.window(1e-20)
    if n * J <= 50_000_000:
        kern = np.exp(-kernel.eps * np.arange(J + 1))
        rest = math.exp(-kernel.eps * (J + 1)) / -math.expm1(-kernel.eps) * float(phi.max())
        right[:n] = np.correlate(np.concatenate([phi, np.zeros(J)]), kern, mode="valid") + rest  # sum_j q^j phi(c + j)
        left[1:] = np.convolve(phi, kern)[:n] + rest                                            # sum_j q^j phi(c - 1 - j)
    else:
        from scipy.signal import lfilter

        right[:n] = lfilter([1.0], [1.0, -q], phi[::-1])[::-1]
        left[1:] = lfilter([1.0], [1.0, -q], phi)
    return (q / (1.0 + q)) * (right + left) * (1.0 + 1e-12)


def _side_lower(kernel: GeometricKernel, loss, C: NDArray[np.int64], lam: NDArray[np.float64], left: bool):
    """``B(lam)`` for lam on one end (normalised), with the Bayes response and ``S(z, z)`` on that end's z.

    Exact as a lower bound: the z outside ``[0, max supp + W]`` (left end) are dropped (terms >= 0), and
    ``min_r`` over every r is attained at ``r <= max supp lam`` (``L(c, r)`` nondecreasing in ``r >= c``:
    :func:`minimax_ends`), which the range of r covers; mirror image at the right end."""
    n, W = kernel.n, kernel.window(1e-18)
    keep = lam > 0
    supp, w = C[keep], lam[keep] / lam[keep].sum()
    if left:
        grid = np.arange(0, min(n, int(supp.max()) + W) + 1)
    else:
        grid = np.arange(max(0, int(supp.min()) - W), n + 1)
    G = kernel.pmf(grid[:, None], supp[None, :]) * w[None, :]
    S = G @ loss.block(supp, grid)  # S[z, r], z and r both over the grid
    j = np.argmin(S, axis=1)
    smin = S[np.arange(grid.size), j]
    return float(smin.sum()), grid, grid[j], smin, np.diagonal(S).copy()


def minimax_ends(kernel: GeometricKernel, loss: "HellingerLoss", *, tol: float = 1e-4, A: int | None = None,
                 band: int | None = None, average_weights: ArrayLike | None = None,
                 max_rounds: int = 30, strict: bool = True) -> MinimaxResult:
    """A minimax remap whose non-identity rows lie in two end windows, with a certificate computed locally
    (docs/definitions.md §10).  For large n: every step costs O(n) at most, none O(n^2).

    The remap: ``T(z) = z`` except for the free rows ``z < A`` and ``z > n - A``; those rows solve the
    restricted LP ``min t`` s.t. ``E_T(c) <= t`` for the constrained c (every c within ``W = ln(1e18)/eps``
    of a free row), outputs ``|r - z| <= band`` grown by Bayes responses, as :func:`minimax_remap`.
    Certificate, rigorous for every remap and every n (nothing is truncated without a bound):

    * lower: ``max`` over the two ends of ``B(lam_end)`` (lam = the LP's duals restricted to one end and
      normalised; each is a distribution, so each Bayes risk is a lower bound).  Along the outputs
      ``r -> Beta(a1 + r, a2 + n - r)`` (a line in the Beta family's natural parameters, log-partition
      ``K`` convex) ``ln BC(s, t) = K((s+t)/2) - (K(s) + K(t))/2`` has ``d/dt = (K'((s+t)/2) - K'(t))/2 <= 0``
      for ``t >= s``: ``L(c, r)`` is nondecreasing in ``r >= c`` (and in ``r <= c`` downwards), so for lam
      on c <= m the minimum over all r is attained at ``r <= m`` (:func:`_side_lower`);
    * upper: ``E_T(c)`` by :func:`risk` on the constrained c; for every other c the free rows are farther
      than W (mass ``<= 2 q^(W+1)/(1+q)``, loss <= 1) and the identity rows give at most
      :func:`identity_risk_bound` ``U(c)``, so ``upper = max(max_C E_T, max_(c not in C) U(c) + 2 q^(W+1)/(1+q))``.

    If the gap exceeds ``tol``: Bayes responses join the free rows' outputs; a non-free z whose identity
    row loses to its Bayes response, or an interior bound above the LP's t, doubles A.  Second stage
    (``average_weights``): among the free rows only (interior rows stay the identity, so this remap and its
    local solution are one object), minimise the weighted average subject to ``E(c) <= upper`` on C; kept
    if its certificate (recomputed) still meets ``tol``.  Raises :class:`InputError` when the windows
    would cover the range (use :func:`minimax_remap`), :class:`RemapGapError` (``strict``) when the gap is
    not reached.
    """
    loss = as_loss(loss, kernel.n)
    if not isinstance(loss, HellingerLoss):
        raise InputError("minimax_ends needs the Hellinger loss (its interior bound is for Hellinger)")
    n, N = kernel.n, kernel.size
    W = kernel.window(1e-18)
    K = band if band is not None else max(2, math.ceil(1.0 / kernel.eps) + 1)
    A = int(A) if A is not None else 4 * W
    tail = 2.0 * math.exp(-(W + 1) * kernel.eps) / (1.0 + kernel.q)
    U = identity_risk_bound(kernel, loss.prior)
    identity = Remap.identity(n)
    Rz: dict[int, set[int]] = {}

    def windows(A):
        if 2 * (A + 2 * W) + 2 > n:
            raise InputError(f"the end windows (A = {A}, W = {W}) cover 0..{n}: use minimax_remap")
        free = np.zeros(N, dtype=bool)
        free[:A] = True
        free[n - A + 1:] = True
        cm = np.zeros(N, dtype=bool)
        cm[: A + W] = True
        cm[n - A - W + 1:] = True
        for z in np.flatnonzero(free).tolist():
            Rz.setdefault(z, set(range(max(0, z - K), min(n, z + K) + 1)))
        return free, np.flatnonzero(cm), float(U[~cm].max()) + tail if (~cm).any() else 0.0

    free, C, inner = windows(A)
    lower, upper, gap, T, lam_c = 0.0, math.inf, math.inf, identity, np.zeros(0)
    pz = pr = np.zeros(0, dtype=np.int64)
    for _ in range(max_rounds):
        zs = np.flatnonzero(free)
        pz = np.concatenate([np.full(len(Rz[z]), z, dtype=np.int64) for z in zs.tolist()])
        pr = np.concatenate([np.fromiter(sorted(Rz[z]), dtype=np.int64) for z in zs.tolist()])
        t_lp, rows, lam_c = _solve_restricted(kernel, loss, C, pz, pr, free, identity, W, 0.0)
        T = Remap.identity_with_rows(n, rows)
        E_C = risk(kernel, T, loss, C)
        upper = max(float(E_C.max()), inner)
        if lam_c.sum() <= 0:
            lam_c = (E_C == E_C.max()).astype(np.float64)
        lower, grow_A = 0.0, inner > t_lp * (1.0 - 1e-3)
        for left in (True, False):
            lam = lam_c * ((C <= n // 2) if left else (C > n // 2))
            if lam.sum() <= 0:
                continue
            b, grid, resp, smin, s_diag = _side_lower(kernel, loss, C, lam, left)
            lower = max(lower, b)
            for z, r in zip(grid.tolist(), resp.tolist()):
                if free[z]:
                    Rz[z].update(x for x in (r - 1, r, r + 1) if 0 <= x <= n)
            lost = s_diag - smin
            grow_A |= bool(np.any((~free[grid]) & (lost > tol * upper / (8.0 * grid.size))))
        gap = (upper - lower) / upper if upper > 0 else 0.0
        if gap <= tol or upper - lower <= 0.0:
            break
        if grow_A:
            A *= 2
            free, C, inner = windows(A)
        elif sum(len(v) for v in Rz.values()) == pz.size:
            break  # nothing left to grow: the gap stands (refused by the caller, or RemapGapError)
    if not gap <= tol and strict:
        raise RemapGapError(f"minimax remap (end windows): certified gap {gap:.3g} > tol {tol:g} after the search "
                            f"(lower {lower:.9g}, upper {upper:.9g})")
    if average_weights is not None and gap <= tol:
        cost = pair_scores(kernel, average_weights, loss, pz, pr)
        scale = float(cost.max()) or 1.0
        try:
            _, rows2, _ = _solve_restricted(kernel, loss, C, pz, pr, free, identity, W, 0.0,
                                            pair_cost=cost / scale, t_cap=upper)
        except InputError:
            rows2 = None
        if rows2 is not None:
            T2 = Remap.identity_with_rows(n, rows2)
            upper2 = max(float(risk(kernel, T2, loss, C).max()), inner)
            gap2 = (upper2 - lower) / upper2 if upper2 > 0 else 0.0
            if gap2 <= tol:
                T, upper, gap = T2, upper2, gap2
    lam = np.zeros(N)
    if lam_c.size:
        lam[C] = lam_c / lam_c.sum()
    return MinimaxResult(T, lower, upper, gap, lam)


# --------------------------------------------------------------------------------------------
# The remapped mechanism: pmf rows and exact sampling


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


# --------------------------------------------------------------------------------------------
# The GRS premise


def monotonicity_violations(loss, n: int, tol: float = 0.0) -> list[tuple[int, int, int]]:
    """Triples ``(c, r, r')`` with ``|r' - c| = |r - c| + 1`` on the same side and ``L(c, r') < L(c, r) - tol``.

    Empty iff L is nondecreasing in ``|r - c|`` for every fixed c (the premise of
    Ghosh-Roughgarden-Sundararajan, docs/definitions.md §10).  O(n^2) time, blocked.
    """
    loss = as_loss(loss, n)
    N = n + 1
    out = []
    width = _block_width(N)
    r = np.arange(N)
    for s in range(0, N, width):
        cs = np.arange(s, min(N, s + width))
        L = loss.block(cs, r)
        d = L[:, 1:] - L[:, :-1]  # L(c, r+1) - L(c, r)
        right = (r[None, :-1] >= cs[:, None]) & (d < -tol)   # moving right, away from c
        left = (r[None, 1:] <= cs[:, None]) & (d > tol)      # moving left, away from c
        for i, j in zip(*np.nonzero(right)):
            out.append((int(cs[i]), int(j), int(j + 1)))
        for i, j in zip(*np.nonzero(left)):
            out.append((int(cs[i]), int(j + 1), int(j)))
    return out
