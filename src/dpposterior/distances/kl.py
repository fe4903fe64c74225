"""Kullback-Leibler divergence between Dirichlet (and Beta) distributions (docs/definitions.md §2).

``KL(Dir(p) || Dir(q)) = lnB(q) - lnB(p) + sum_i (p_i - q_i) (psi(p_i) - psi(P))`` with ``P = sum p``.

Numerics
--------
Written per coordinate (``Q = sum q``),

    KL = sum_i K(p_i, q_i) - K(P, Q),   K(x, y) = lnGamma(y) - lnGamma(x) - (y - x) psi(x) >= 0,

``K`` being the Bregman divergence of the convex ``lnGamma``.  Every ``K(p_i, q_i)`` is >= 0, so
the sum has no cancellation, and for two posteriors of the same n (every candidate in R(n))
``P = Q`` and ``K(P, Q) = 0``.  A raw difference of ``gammaln`` values would lose
``~1e-16 * x ln x`` in absolute terms -- at n = 1e6 that is ~1e-9 against a KL of ~1e-7 between
neighbours -- so where ``|y - x| <= SERIES_THRESHOLD * x`` we sum the Taylor series of lnGamma
around ``x`` with ``h = y - x``:

    K = sum_{j >= 2} psi^(j-1)(x) h^j / j!,

truncated after :data:`KL_SERIES_TERMS` terms (the j-th term is below ``(|h|/x)^(j-2)`` times the
first, so the remainder is below ``1e-16`` of K).  Elsewhere ``K`` is the direct difference,
accurate to about ``2e-14 ln(x)`` relative (``K >= 0.0048 x`` there).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln, polygamma, psi

from ..errors import InputError
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
        # add the smallest terms first
        terms = []
        for j in range(2, KL_SERIES_TERMS + 2):
            power = power * hn
            terms.append(power * (_INV_FACT[j - 2] * polygamma(j - 1, xn)))
        for term in reversed(terms):
            acc += term
        out[near] = acc
    return np.maximum(out, 0.0)


def lgamma_diff(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    """``lnGamma(y) - lnGamma(x)``; for y within 10% of x as ``K(x, y) + (y - x) psi(x)``, free of the cancellation of two large ``gammaln`` values."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    h = y - x
    near = np.abs(h) <= KL_SERIES_THRESHOLD * x
    # far apart the plain difference is as good as it gets (and K + h psi(x) would cancel when x -> 0)
    return np.where(near, lgamma_bregman(x, y) + h * psi(x), gammaln(y) - gammaln(x))


def log_beta_diff(p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """``lnB(q) - lnB(p)`` over the last axis (broadcasting), term by term with :func:`lgamma_diff`."""
    p, q = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64))
    return lgamma_diff(p, q).sum(axis=-1) - lgamma_diff(p.sum(axis=-1), q.sum(axis=-1))


#: Largest relative uncertainty of KL that :func:`kl` returns (else it refuses).
KL_TOLERANCE = 1e-6
_EPS = np.finfo(np.float64).eps


def _bregman_rounding(x: NDArray[np.float64], y: NDArray[np.float64], k: NDArray[np.float64]) -> NDArray[np.float64]:
    """A bound on the absolute rounding error of :func:`lgamma_bregman` (value ``k``): the direct difference
    loses a few ulps of its largest term, the series ~1e-15 of K."""
    h = y - x
    far = np.abs(h) > KL_SERIES_THRESHOLD * x
    with np.errstate(divide="ignore"):
        size = np.abs(gammaln(y)) + np.abs(gammaln(x)) + np.abs(h * psi(x))
    return np.where(far, 4 * _EPS * size, 0.0) + 1e-15 * k


def kl_unchecked(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """:func:`kl` without the validation (float64 arrays of positive parameters, broadcastable)."""
    p, q = np.broadcast_arrays(p, q)
    P, Q = p.sum(axis=-1), q.sum(axis=-1)
    terms = lgamma_bregman(p, q)
    whole = lgamma_bregman(P, Q)
    total = np.maximum(terms.sum(axis=-1) - whole, 0.0)
    # For different totals K(P, Q) is subtracted: refuse where rounding could move KL by > KL_TOLERANCE.
    diff = P != Q
    if diff.any():
        err = _bregman_rounding(p, q, terms).sum(axis=-1) + _bregman_rounding(P, Q, whole)
        bad = diff & (err > KL_TOLERANCE * total)
        if bad.any():
            i = int(np.flatnonzero(bad.reshape(-1))[0])
            raise InputError(f"kl is not accurate in float64 here: KL = {total.reshape(-1)[i]:.9g} is only known to "
                             f"+-{err.reshape(-1)[i]:.3g} (totals {float(np.broadcast_to(P, bad.shape).reshape(-1)[i]):.6g} "
                             f"and {float(np.broadcast_to(Q, bad.shape).reshape(-1)[i]):.6g} differ and cancel); the "
                             f"accepted relative error is {KL_TOLERANCE:g}")
    return total + 0.0  # + 0.0: never -0.0


def kl(p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """Kullback-Leibler divergence ``KL(Dir(p) || Dir(q))`` over the last axis, any k (docs/definitions.md §2).

    Broadcasts like :func:`~dpposterior.distances.hellinger`.  Not symmetric and not a metric;
    ``KL >= 0`` with ``KL(p, p) = 0``.

    Accuracy (tested against 50-digit mpmath): when ``sum(p) == sum(q)`` (any two members of
    R(n)) every term is >= 0 and the result is accurate to ~1e-13 relative for parameters up to
    1e9 (worst seen ~2e-14), e.g. neighbours at n = 1e6 (KL ~ 1e-7).  For different totals the
    term ``K(P, Q)`` is subtracted, so the absolute error is ~1e-16 (sum_i K_i + K(P, Q)): the
    relative error grows by the ratio of that sum to KL (1e-9 for concentrations 2e6 vs 2e6 + 2;
    1e-8 for far Dirichlets with totals near 1e6), and where a bound on it exceeds
    :data:`KL_TOLERANCE` (1e-6) of KL it raises :class:`~dpposterior.errors.InputError` instead of
    returning a wrong value (totals of 1e9 and 1.6e9, say).

    >>> float(kl([2.0, 1.0], [1.0, 1.0]))  # ln 2 - 1/2
    0.1931471805599453
    """
    p, q = parameter_array(p, "p"), parameter_array(q, "q")
    same_length(p, q, "p", "q")
    shape = np.broadcast_shapes(p.shape, q.shape)
    check_size(math.prod(shape), 8 * 8, f"kl over broadcast shape {shape}")
    return kl_unchecked(p, q)
