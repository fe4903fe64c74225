"""The stay certificate for a whole box of data sets at once: every ``z`` of R(n) in a box ``lo <= z <= hi`` is
certified to be returned by the local search (:func:`.remap.local_bayes_search`, its defaults) as itself, by one set
of sums over the search's ball instead of one per point (:func:`.batched.stays`).

Lemma (monotone in the counts).  ``J(x, y) = lnGamma((x + y) / 2) - (lnGamma(x) + lnGamma(y)) / 2`` (the Jensen gap,
``ln BC`` of two posteriors of one total is ``sum_i J(a_i + c_i, a_i + r_i)``) has, for fixed offsets ``s, t``,
``d/dx J(x + s, x + t) = psi(x + (s + t) / 2) - (psi(x + s) + psi(x + t)) / 2 >= 0`` (``psi`` is concave on
``(0, inf)``).  So ``H(z + v, z + u)`` (Hellinger distance of the posteriors, ``sqrt(1 - BC)``) is non-increasing in
each ``z_i`` for fixed ``v, u``: over the box it lies between its value at ``z = hi`` and at ``z = lo``.  Likewise
``ln pi(c) = sum_i f_i(c_i) + const`` with ``f_i(x) = lnGamma(a_i + x) - lnGamma(x + 1)`` monotone in x, so
``pi(z + v)`` over the box lies between the products of each ``f_i``'s end values.

Certificate (proof; the notation of :func:`.batched.stays`).  For each z of the box (in R(n)) the search stays at z
iff its computed risk at z is at most that at every ``r = z + u``, ``d(u) = 1``.  With the weights ``w(c) = pi(c) /
pimax e^(-eps d(z, c))`` (``pimax`` the largest ``pi`` over the box ``[lo - Dc, hi + Dc]`` clipped to ``[0, n]``, which
holds every data set of every z's search, so ``T = sum_C w <= Z(eps, k) =: T+``), :func:`.batched.stays` shows that
``S^_B(r) - S^_B(z) > 4 mu T+ + (H^(r, z) (1 + 1e-6) + 1e-9) T+ (share + tail_bound(k, eps, rho))`` certifies the stay,
``B = z + ball(rho)``, ``S_B(q) = sum_{v in ball(rho)} w(z + v) H(z + v, q)``.  Here, for every z of the box at once,
``S_B(z + u) - S_B(z) = sum_v e^(-eps d(v)) p(v) D(v)`` with ``p(v) = pi(z + v) / pimax`` in ``[p_lo(v), p_hi(v)]``
and ``D(v) = H(z + v, z + u) - H(z + v, z) >= D_low(v)``, the pair split below; each term is at least
``e^(-eps d(v)) D_low(v) (p_lo if D_low >= 0 else p_hi)``, whose float sum
``L^(u)`` lies within ``mu T+`` of its exact value (the same sums as ``stays``', ``mu`` the same), and each of the two
H's per term within ``1e-9`` (so ``2e-9 T+`` more).  ``H(z + u, z) <= Hmax(u, 0)``.  So where for every ``u != 0``

    ``L^(u) > 6 mu T+ + 2e-9 T+ + (Hmax(u, 0) (1 + 1e-6) + 1e-9) T+ (share + tail_bound(k, eps, rho))``

every z of the box stays.  The box must lie inside R(n) with room: ``lo_i >= rho + 2`` (every ``z + v`` and ``z + u``
a data set), ``hi_i + rho + 1 <= n``.

Pair split (proof of ``D >= D_low``).  Let ``u = e_p - e_q`` and ``f(x) = sqrt(1 - e^x)`` (``H = f(ln BC)``).  Then
``ln BC(z + v, z + u) = C(z) + A(z)`` and ``ln BC(z + v, z) = C(z) + B(z)`` with the coordinates off the move's pair
shared, ``C = sum_{i != p, q} J(a_i + z_i + v_i, a_i + z_i)``, and ``A, B`` the pair's terms (``+ u_i`` in A's second
argument).  Each term is non-decreasing in its ``z_i`` (the lemma), so over the box ``C`` lies in ``[C_lo, C_hi]`` (at
``z = lo, hi``), ``A <= A_hi`` (at ``hi``) and ``B >= B_lo`` (at ``lo``).  Every sum of J's is ``<= 0`` (``J <= 0``),
and on ``x <= 0`` f is decreasing and concave (``f'' = -e^x / (2 f) - e^(2x) / (4 f^3) < 0``).  So ``D = f(C + A) -
f(C + B) >= g(C) = f(C + A_hi) - f(C + B_lo)``, and ``g' = f'(C + A_hi) - f'(C + B_lo)`` keeps one sign (f' is
decreasing), so ``g >= D_low = min(g(C_lo), g(C_hi))`` over the range.  ``D_low`` is at least ``f(C_hi + A_hi) -
f(C_lo + B_lo)`` (f decreasing), the bound with each distance at the opposite corner of the box (``Hmin(v, u) -
Hmax(v, 0)``), so the pair split certifies every box that bound does, and larger ones: the spread of the coordinates
off the pair enters both distances at the same C.  The float sums: each computed H within ``1e-9`` as above, so the
computed ``D_low`` within ``2e-9``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln

from ..distances.hellinger import lgamma_jensen_gap
from .noise import log_normaliser, radius_for, tail_bound

#: Entries (ball points x outputs) of one block of :func:`box_stays`' sums.
BOX_BLOCK_ENTRIES = 2**21


def _float_margin(a: NDArray[np.float64], n: int, eps: float, Dc: int) -> float:
    """``mu`` of :func:`.batched.stays` (the largest magnitude of ``ln pi`` over R(n) plus ``eps Dc``)."""
    from .remap import FLOAT_MARGIN

    ends = np.array([0.0, float(n)])
    fmax = max(float(np.abs(gammaln(a[i] + ends) - gammaln(ends + 1.0)).max()) for i in range(a.size))
    return FLOAT_MARGIN + 16.0 * (2 * a.size * fmax + eps * Dc) * 2.0**-53


@lru_cache(maxsize=4)
def _ball_terms(k: int, rho: int, eps: float) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """The ball ``d(v) <= rho`` as per-coordinate columns ``v_i + rho`` (rows: the coordinates) and its kernel
    ``e^(-eps d(v))``, once per (k, rho, eps)."""
    from .remap import _ball

    ball = _ball(k, rho)
    cols = np.ascontiguousarray((ball + rho).T.astype(np.intp))
    cols.setflags(write=False)
    kern = np.exp(-eps * (np.abs(ball).sum(axis=1) // 2).astype(np.float64))
    kern.setflags(write=False)
    return cols, kern


def _hellinger(log_bc: NDArray[np.float64]) -> NDArray[np.float64]:
    """``f(x) = sqrt(1 - e^x)`` at ``x = ln BC`` (clipped at 0): the Hellinger distance, as the search computes it."""
    return np.sqrt(-np.expm1(np.minimum(log_bc, 0.0)))


def box_stays(prior: ArrayLike, n: int, epsilon: float, lo: ArrayLike, hi: ArrayLike, rho: int | None = None) -> bool:
    """True where every data set ``z`` with ``lo <= z <= hi`` (coordinatewise, sum n) is certified to be returned by
    the local search as itself (module docstring, the proof); False where not certified (nothing is claimed).
    ``rho``: the ball of the exact terms (default ``radius_for(k, eps, 5e-3)``, :data:`.batched.STAY_TAILS`' first)."""
    from .remap import SEARCH_SHARE, _ball

    a = np.asarray(prior, dtype=np.float64)
    k, n, eps = a.size, int(n), float(epsilon)
    lo = np.asarray(lo, dtype=np.int64).reshape(k)
    hi = np.asarray(hi, dtype=np.int64).reshape(k)
    Dc = radius_for(k, eps, 1e-12)
    rho = min(radius_for(k, eps, 5e-3) if rho is None else int(rho), Dc)
    if np.any(lo > hi) or np.any(lo < rho + 2) or np.any(hi + rho + 1 > n):
        return False
    if int(lo.sum()) > n or int(hi.sum()) < n:
        return True  # no data set in the box
    cols, kern = _ball_terms(k, rho, eps)
    ball1 = _ball(k, 1)
    moves = ball1[np.any(ball1 != 0, axis=1)]
    span = np.arange(-rho, rho + 1, dtype=np.float64)  # the values of one coordinate of the ball (column v_i + rho)
    # ln pi over the box [lo - Dc, hi + Dc] at most (each f_i monotone: its end points)
    f_lo = [gammaln(a[i] + float(max(lo[i] - Dc, 0))) - gammaln(float(max(lo[i] - Dc, 0)) + 1.0) for i in range(k)]
    f_hi = [gammaln(a[i] + float(min(hi[i] + Dc, n))) - gammaln(float(min(hi[i] + Dc, n)) + 1.0) for i in range(k)]
    ref = float(sum(max(x, y) for x, y in zip(f_lo, f_hi)))
    # p_lo, p_hi at each v: per coordinate the ends z_i = lo_i, hi_i of f_i(z_i + v_i), from tables over v_i
    lp_lo, lp_hi = np.full(cols.shape[1], -ref), np.full(cols.shape[1], -ref)
    for i in range(k):
        x0, x1 = float(lo[i]) + span, float(hi[i]) + span
        e0 = gammaln(a[i] + x0) - gammaln(x0 + 1.0)
        e1 = gammaln(a[i] + x1) - gammaln(x1 + 1.0)
        lp_lo += np.minimum(e0, e1)[cols[i]]
        lp_hi += np.maximum(e0, e1)[cols[i]]
    w_lo, w_hi = kern * np.exp(lp_lo), kern * np.exp(lp_hi)
    # per coordinate, at every ball point: J(a_i + z_i + v_i, a_i + z_i + t) at z_i = lo_i (t = 0) and at z_i = hi_i
    # (t = 0, 1, -1); each term is non-decreasing in z_i (the lemma), so these are its ends over the box
    j_lo, j_hi, j_up, j_down = [], [], [], []
    for i in range(k):
        base_lo, base_hi = a[i] + float(lo[i]), a[i] + float(hi[i])
        j_lo.append(lgamma_jensen_gap(base_lo + span, base_lo)[cols[i]])
        j_hi.append(lgamma_jensen_gap(base_hi + span, base_hi)[cols[i]])
        j_up.append(lgamma_jensen_gap(base_hi + span, base_hi + 1.0)[cols[i]])
        j_down.append(lgamma_jensen_gap(base_hi + span, base_hi - 1.0)[cols[i]])
    h_max0 = _hellinger(sum(j_lo))  # Hmax(v, 0) = f(C_lo + B_lo), shared by the moves
    Zk = math.exp(log_normaliser(k, eps))
    tail = tail_bound(k, eps, rho)
    mu = _float_margin(a, n, eps, Dc)
    for u in moves:
        p, q = int(np.flatnonzero(u > 0)[0]), int(np.flatnonzero(u < 0)[0])
        rest = [i for i in range(k) if i != p and i != q]
        c_lo, c_hi = sum(j_lo[i] for i in rest), sum(j_hi[i] for i in rest)
        a_hi = j_up[p] + j_down[q]  # the most A(z) (the move's pair, at z = hi)
        b_lo = j_lo[p] + j_lo[q]  # the least B(z) (the pair, at z = lo)
        # D >= g(C) = f(C + A_hi) - f(C + B_lo), monotone in C (f concave): its least over [C_lo, C_hi] at an end
        d_low = np.minimum(_hellinger(c_lo + a_hi) - h_max0, _hellinger(c_hi + a_hi) - _hellinger(c_hi + b_lo))
        L = float(np.dot(np.where(d_low >= 0, w_lo, w_hi), d_low))
        log_hu = sum(float(lgamma_jensen_gap(a[i] + float(lo[i] + u[i]), a[i] + float(lo[i]))) for i in range(k))
        h_u = math.sqrt(-math.expm1(min(log_hu, 0.0)))
        need = 6 * mu * Zk + 2e-9 * Zk + (h_u * (1 + 1e-6) + 1e-9) * Zk * (SEARCH_SHARE + tail)
        if not L > need:
            return False
    return True
