"""Kullback-Leibler divergence between Dirichlet (and Beta) distributions (docs/definitions.md §2).

``KL(Dir(p) || Dir(q)) = lnB(q) - lnB(p) + sum_i (p_i - q_i) (psi(p_i) - psi(P))`` with ``P = sum p``.

Numerics
--------
Term by term, ``KL = sum_i K(p_i, q_i) - K(P, Q)`` (totals ``P = sum p``, ``Q = sum q``) with the
Bregman divergence of lnGamma ``K(x, y) = lnGamma(y) - lnGamma(x) - (y - x) psi(x) >= 0``.  Raw
differences of ``gammaln`` would lose ``~1e-16 * x ln x`` absolutely -- at n = 1e6 that is ~1e-9
against a KL of ~2e-6 between neighbours, and at n = 1e9 1900 times KL: the known-bad idea -- and
even with every ``K`` exact the subtraction of ``K(P, Q)`` cancels O(n) terms when the totals differ.
So every lnGamma is split by
Stirling, ``lnGamma(v) = (v - 1/2) ln v - v + ln(2 pi)/2 + omega(v)``, which gives with ``u = (y - x)/x``

    K(x, y) = x phi(u) + chi(u)/2 + [omega(y) - omega(x) - (y - x) omega'(x)],
    phi(u) = (1 + u) ln(1 + u) - u >= 0,   chi(u) = u - ln(1 + u) >= 0,

and the O(n) parts are combined analytically (``sum_i p_i (u_i - U) = 0``, ``U = (Q - P)/P``):

    KL = (Q/P) sum_i p_i phi(e_i)                          e_i = q_i P / (p_i Q) - 1
       + sum_i [p_i chi(e_i) + (P - p_i) chi(u_i)] / (2 P)      (= (sum_i chi(u_i) - chi(U)) / 2)
       + sum_i Omega(p_i, q_i) - Omega(P, Q),               Omega = the bracket above.

The first two lines are sums of terms >= 0 (the second is the Jensen gap of chi rewritten), ``phi`` and ``chi``
use their Taylor series for small arguments and ``1 + e``, ``1 + u`` are formed as ratios where they
are far from 1; ``omega`` (~ 1/(12 v)) comes from Stirling's series for v >= 10 and from ``gammaln``
below, and ``Omega(x, y)`` from its own Taylor series at x when y is within 10% of x (exact even for
arguments one ulp apart).  Nothing of size n is ever subtracted.  (:func:`lgamma_bregman`, the
series for ``K`` itself, is kept for :func:`lgamma_diff`, which the TV uses.)
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln, polygamma, psi

from ..models import check_size
from ..validate import parameter_array, same_length

#: ``|y - x| / x`` below which K uses the Taylor series around x.
KL_SERIES_THRESHOLD = 0.1
#: Terms of that series (powers h^2 .. h^(KL_SERIES_TERMS + 1)).
KL_SERIES_TERMS = 16
_INV_FACT = np.array([1.0 / math.factorial(j) for j in range(2, KL_SERIES_TERMS + 2)])


def lgamma_bregman(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    """``K(x, y) = lnGamma(y) - lnGamma(x) - (y - x) psi(x)`` for x, y > 0, accurately; broadcasts. ``K >= 0``."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    h = y - x
    out = np.empty(x.shape)
    near = np.abs(h) <= KL_SERIES_THRESHOLD * x
    far = ~near
    out[far] = gammaln(y[far]) - gammaln(x[far]) - h[far] * psi(x[far])
    if near.any():
        xn, hn = x[near], h[near]
        acc = np.zeros(xn.shape)
        power = hn.copy()
        # the polygammas once per distinct x (a table over R(n) repeats each x along its row); smallest terms first
        ux, inverse = np.unique(xn, return_inverse=True)
        inverse = inverse.reshape(-1)
        terms = []
        for j in range(2, KL_SERIES_TERMS + 2):
            power = power * hn
            terms.append(power * (_INV_FACT[j - 2] * polygamma(j - 1, ux))[inverse])
        for term in reversed(terms):
            acc += term
        out[near] = acc
    return np.maximum(out, 0.0)


def lgamma_diff(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    """``lnGamma(y) - lnGamma(x)``; for y within 10% of x as ``K(x, y) + (y - x) psi(x)``.

    Free of the cancellation of two large ``gammaln`` values."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    h = y - x
    near = np.abs(h) <= KL_SERIES_THRESHOLD * x
    # far apart the plain difference is as good as it gets (and K + h psi(x) would cancel when x -> 0)
    return np.where(near, lgamma_bregman(x, y) + h * psi(x), gammaln(y) - gammaln(x))


def log_beta_diff(p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """``lnB(q) - lnB(p)`` over the last axis (broadcasting), term by term with :func:`lgamma_diff`."""
    p, q = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64))
    return lgamma_diff(p, q).sum(axis=-1) - lgamma_diff(p.sum(axis=-1), q.sum(axis=-1))


_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
#: ``B_2j / (2j (2j - 1))``: Stirling's series of omega(v) = sum_j c_j v^(1 - 2j), used for v >= OMEGA_SERIES_MIN.
_OMEGA_COEF = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)
OMEGA_SERIES_MIN = 10.0


def _phi(e: NDArray[np.float64], r: NDArray[np.float64]) -> NDArray[np.float64]:
    """``(1 + e) ln(1 + e) - e = r ln r - (r - 1) >= 0``, r = 1 + e given accurately; series for |e| < 0.1."""
    out = np.empty(e.shape)
    near = np.abs(e) < 0.1
    ef, rf = e[~near], r[~near]
    out[~near] = np.where(np.abs(ef) < 0.5, rf * np.log1p(ef), rf * np.log(rf)) - ef
    en = e[near]
    acc = np.zeros(en.shape)
    for j in range(20, 1, -1):  # sum_{j >= 2} (-e)^j / (j (j - 1)); |e|^19 < 1e-19
        acc = acc * (-en) + 1.0 / (j * (j - 1))
    out[near] = acc * en * en
    return out


def _chi(u: NDArray[np.float64], r: NDArray[np.float64]) -> NDArray[np.float64]:
    """``u - ln(1 + u) = u - ln r >= 0``, r = 1 + u given accurately; series for |u| < 0.1."""
    out = np.empty(u.shape)
    near = np.abs(u) < 0.1
    uf, rf = u[~near], r[~near]
    out[~near] = uf - np.where(np.abs(uf) < 0.5, np.log1p(uf), np.log(rf))
    un = u[near]
    acc = np.zeros(un.shape)
    for j in range(20, 1, -1):  # sum_{j >= 2} (-u)^j / j
        acc = acc * (-un) + 1.0 / j
    out[near] = acc * un * un
    return out


def _omega(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """Stirling's remainder ``omega(v) = lnGamma(v) - (v - 1/2) ln v + v - ln(2 pi)/2`` (~ 1/(12 v))."""
    out = np.empty(v.shape)
    big = v >= OMEGA_SERIES_MIN
    vb = v[big]
    inv2 = 1.0 / (vb * vb)
    acc = np.zeros(vb.shape)
    for c in reversed(_OMEGA_COEF):
        acc = acc * inv2 + c
    out[big] = acc / vb
    vs = v[~big]
    out[~big] = gammaln(vs) - (vs - 0.5) * np.log(vs) + vs - _HALF_LOG_2PI
    return out


def _omega_prime(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """``omega'(v) = psi(v) - ln v + 1/(2 v)``."""
    out = np.empty(v.shape)
    big = v >= OMEGA_SERIES_MIN
    vb = v[big]
    inv2 = 1.0 / (vb * vb)
    acc = np.zeros(vb.shape)
    for j, c in reversed(list(enumerate(_OMEGA_COEF))):
        acc = acc * inv2 - (2 * j + 1) * c
    out[big] = acc * inv2
    vs = v[~big]
    out[~big] = psi(vs) - np.log(vs) + 0.5 / vs
    return out


def _omega_derivatives(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``omega^(j)(x) / j!`` for j = 2 .. KL_SERIES_TERMS + 1, shape ``(terms, len(x))``.

    For x >= OMEGA_SERIES_MIN term by term from Stirling's series (no cancellation); below, as
    ``psi^(j-1)(x) - d^j/dx^j [(x - 1/2) ln x - x]``, all of size O(1) or dominated by psi's pole.
    Evaluated once per distinct x: a table over R(n) repeats each ``a_i + c_i`` along its row.
    """
    ux, inverse = np.unique(x, return_inverse=True)
    if ux.size < x.size:
        return _omega_derivatives(ux)[:, inverse.reshape(-1)]
    out = np.empty((KL_SERIES_TERMS, x.size))
    big = x >= OMEGA_SERIES_MIN
    xb, xs = x[big], x[~big]
    for row, j in enumerate(range(2, KL_SERIES_TERMS + 2)):
        acc = np.zeros(xb.shape)
        for m, c in enumerate(_OMEGA_COEF, start=1):
            power = 1 - 2 * m  # d^j x^power = power (power - 1) ... (power - j + 1) x^(power - j)
            falling = math.prod(range(power - j + 1, power + 1))
            acc += c * falling * xb ** (power - j)
        out[row, big] = acc * _INV_FACT[row]
        # d^j [(x - 1/2) ln x - x] = (-1)^j (j-2)! / x^(j-1) + (-1)^j (j-1)! / (2 x^j)
        sj = (-1) ** j * (math.factorial(j - 2) / xs ** (j - 1) + 0.5 * math.factorial(j - 1) / xs ** j)
        out[row, ~big] = (polygamma(j - 1, xs) - sj) * _INV_FACT[row]
    return out


def _omega_bregman(x: NDArray[np.float64], y: NDArray[np.float64], h: NDArray[np.float64]) -> NDArray[np.float64]:
    """``omega(y) - omega(x) - h omega'(x)``, ``h = y - x`` given (more accurately than y - x for totals): by
    omega's Taylor series at x when ``|h| <= 0.1 x`` (arguments one ulp apart still give a relative-accurate
    value), else directly."""
    x, y, h = np.broadcast_arrays(x, y, h)
    out = np.empty(x.shape)
    near = np.abs(h) <= KL_SERIES_THRESHOLD * x
    far = ~near
    out[far] = _omega(y[far]) - _omega(x[far]) - h[far] * _omega_prime(x[far])
    if near.any():
        hn = h[near]
        coef = _omega_derivatives(x[near])
        power = hn.copy()
        terms = []
        for row in range(KL_SERIES_TERMS):
            power = power * hn
            terms.append(power * coef[row])
        acc = np.zeros(hn.shape)
        for term in reversed(terms):
            acc += term
        out[near] = acc
    return out


def _others(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """``sum_{j != i} v_j`` for every i of each row, from exclusive prefix and suffix sums (never ``sum - v_i``)."""
    zero = np.zeros(v.shape[:-1] + (1,))
    before = np.concatenate([zero, np.cumsum(v[..., :-1], axis=-1)], axis=-1)
    after = np.concatenate([np.cumsum(v[..., :0:-1], axis=-1)[..., ::-1], zero], axis=-1)
    return before + after


def _kl_rows(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """KL for rows ``(N, k)``: ``L + S + Omega`` of the module docstring, none of which cancels."""
    h = q - p
    P, H = p.sum(-1), h.sum(-1)
    # Q: from H when the totals are close (consistent with H, which is exact there), else summed (P + H cancels)
    Q = np.where(np.abs(H) <= KL_SERIES_THRESHOLD * P, P + H, q.sum(-1))
    rest, oh = _others(p), _others(h)
    # e_i = (h_i P - p_i H) / (p_i Q) with the p_i h_i terms cancelled exactly: accurate to a few ulps of
    # scale = (|h_i| rest_i + p_i |H - h_i|) / (p_i Q), the size of what cancels (near-equal rows: scale ~ |e|)
    e = (h * rest - p * oh) / (p * Q[:, None])
    scale = (np.abs(h) * rest + p * np.abs(oh)) / (p * Q[:, None])
    r = (q / p) * (P / Q)[:, None]  # = 1 + e to a few ulps of r, accurate where e ~ -1
    # r - 1 where its error (ulps of 1 + r) is the smaller: |e| >= 0.5, or rows far apart (q_i << p_i: h_i = q_i - p_i
    # rounds, and the cancellation above loses ~ulp p_j / Q; 3e-7 relative in KL at p ~ (4.2e8, 4.1e8), q ~ 1e-3)
    e = np.where((np.abs(e) < 0.5) & (scale <= 1.0 + r), e, r - 1.0)
    lead = (Q / P) * (p * _phi(e, r)).sum(-1)
    # sum_i chi(u_i) - chi(U) = sum_i [p_i chi(e_i) + (P - p_i) chi(u_i)] / P  (Jensen gap of chi, plus the rest)
    half = 0.5 * (p * _chi(e, r) + rest * _chi(h / p, q / p)).sum(-1) / P
    om = _omega_bregman(p, q, h).sum(-1) - _omega_bregman(P, Q, H)
    return lead + half + om


def kl_unchecked(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """:func:`kl` without the validation (float64 arrays of positive parameters, broadcastable)."""
    p, q = np.broadcast_arrays(p, q)
    shape, k = p.shape[:-1], p.shape[-1]
    out = _kl_rows(p.reshape(-1, k), q.reshape(-1, k))
    out = np.where((p == q).all(axis=-1).reshape(-1), 0.0, np.maximum(out, 0.0))
    return out.reshape(shape) + 0.0  # + 0.0: never -0.0


def kl(p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """Kullback-Leibler divergence ``KL(Dir(p) || Dir(q))`` over the last axis, any k (docs/definitions.md §2).

    Broadcasts like :func:`~dpposterior.distances.hellinger`.  Not symmetric and not a metric;
    ``KL >= 0`` with ``KL(p, p) = 0``.

    Accuracy (against the closed form in mpmath at 50-90 digits; module docstring for the method):
    for two posteriors of the same n ~1e-14 relative up to n = 1e9 (neighbours at n = 1e6 have
    KL ~ 2e-6, at n = 1e9 ~ 2e-9); for any parameters in [1e-3, 1e9], different totals and arguments one ulp apart
    included, worst seen 3e-11 relative (typically 1e-13).  Nothing of size n is subtracted, so
    there is no refusal.

    >>> round(float(kl([2.0, 1.0], [1.0, 1.0])), 14)  # ln 2 - 1/2
    0.19314718055995
    """
    p, q = parameter_array(p, "p"), parameter_array(q, "q")
    same_length(p, q, "p", "q")
    shape = np.broadcast_shapes(p.shape, q.shape)
    check_size(math.prod(shape), 8 * 8, f"kl over broadcast shape {shape}")
    return kl_unchecked(p, q)
