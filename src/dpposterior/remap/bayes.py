"""The Bayes remap: ``T(z) = argmin_r S_w(z, r)`` for a prior on the counts (docs/definitions.md §10, k = 2).

With ``w = pi`` (:func:`prior_predictive`) it is the average objective's optimum; for any distribution
``lam`` on the counts, :func:`bayes_risk` ``B(lam)`` is a lower bound on the minimax remap risk.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln

from ..errors import InputError
from .kernel import GeometricKernel
from .loss import Loss, as_loss
from .risk import _scores, _weights

__all__ = ["prior_predictive", "bayes_scores", "bayes_remap", "bayes_remap_at", "bayes_risk"]


def prior_predictive(prior: ArrayLike, n: int, log: bool = False) -> NDArray[np.float64]:
    """``pi(c) = BetaBinomial(c; n, a1, a2)``, c = 0..n (docs/definitions.md §9), normalised in log space.

    The prior (two positive finite numbers) and n are taken as validated by the caller."""
    a = np.asarray(prior, dtype=np.float64).reshape(-1)
    n = int(n)
    c = np.arange(n + 1, dtype=np.float64)
    # a[1] + (n - c), not a[1] + n - c: a prior below ulp(n) (1e-12 at n = 40001) is absorbed by n, and the
    # latter gives lnGamma(0) = inf at c = n (then NaN everywhere)
    logp = (gammaln(n + 1.0) - gammaln(c + 1.0) - gammaln(n - c + 1.0)
          + gammaln(a[0] + c) + gammaln(a[1] + (n - c)) - gammaln(a.sum() + n)
          - (gammaln(a[0]) + gammaln(a[1]) - gammaln(a.sum())))
    top = logp.max()
    logp -= top + math.log(np.exp(logp - top).sum())
    return logp if log else np.exp(logp)


def bayes_scores(kernel: GeometricKernel, weights: ArrayLike,
                 loss: Loss | ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """``(min_r S_w(z, r), argmin_r S_w(z, r))`` for every z, ``S_w = sum_c w(c) G(z|c) L(c, r)`` (docs/definitions.md §10).

    Exact in float64 (:mod:`dpposterior.remap`, "Exactness"); O(n) memory per column block, O(n^2) time.
    ``sum_z min_r S_w(z, r)`` is the Bayes risk ``B(w)`` (``w`` normalised to 1).
    """
    loss = as_loss(loss, kernel.n)
    w = _weights(weights, kernel.size)
    best, arg, _ = _scores(kernel, w, loss)
    return best, arg


def bayes_remap(kernel: GeometricKernel, weights: ArrayLike, loss: Loss | ArrayLike) -> NDArray[np.int64]:
    """The Bayes remap ``r(z) = argmin_r sum_c w(c) G(z|c) L(c, r)`` (docs/definitions.md §10), deterministic.

    Guarantee: among all remaps of G, it minimises ``sum_c w(c) E(c)`` (each z's row is chosen
    independently, and a deterministic argmin is optimal for a linear objective); eps-DP by
    post-processing.  With ``w = pi`` and a loss nondecreasing in ``|r - c|`` it is, by
    Ghosh-Roughgarden-Sundararajan, optimal among all eps-DP mechanisms (checked against the LP
    in the tests).  Exact (:mod:`dpposterior.remap`, "Exactness"); ties go to the smallest r.
    """
    return bayes_scores(kernel, weights, loss)[1]


def bayes_remap_at(kernel: GeometricKernel, log_weights: ArrayLike, loss: Loss | ArrayLike, z: int,
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


def bayes_risk(kernel: GeometricKernel, lam: ArrayLike, loss: Loss | ArrayLike) -> tuple[float, NDArray[np.int64]]:
    """``B(lam) = sum_z min_r sum_c lam(c) G(z|c) L(c, r)`` and the Bayes response ``r(z)`` (docs/definitions.md §10).

    Guarantee: ``B(lam) <= sum_c lam(c) E_T(c) <= max_c E_T(c)`` for every remap T, so ``B(lam)``
    is a lower bound on the minimax remap risk for any distribution lam.  Exact (no truncation).
    """
    loss = as_loss(loss, kernel.n)
    w = _weights(lam, kernel.size)
    best, arg, _ = _scores(kernel, w, loss)
    return float(best.sum()), arg

