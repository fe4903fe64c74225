"""Theoretical accuracy bounds of the drafts (docs/definitions.md §6), transcribed with their sources.

Conventions: ``t`` is a Hellinger threshold, the error of a release is ``H = H(BI(c), r)``.
Where a draft's printed formula is wrong, both the *printed* form and a *corrected* form
are given, so a notebook can print each beside the exact value from the pmf.

* 004 §6.1.1 (L755-759, Dwork-Roth with u = -H, OPT = 0, |R_OPT| = 1; 000 §5.2 L241-243):
  ``Pr[H >= t] <= |R| exp(-eps t / (2 GS))`` -> :func:`exponential_tail_bound` with ``w = eps/(2 GS)``.
* 004 §6.2 (L795-799), the same for M_H with GS -> S(c): :func:`mh_tail_bound`.
* 004 §6.2 (L779-793) "three accuracy bounds", printed without the factor 2 of Def. 6:
  bound 1 (exact tail) and bound 2 (``|R| e^{-eps t/S} / NL``): :func:`mh_draft_tail_bounds`.
* 004 §6.1.2 (L761-769) discretised Laplace: :func:`laplace_tail`, :func:`discretised_laplace_pmf`,
  :func:`abs_discretised_laplace_pmf`; 004 §6.1.3 improved Laplace is the same with its scale.
* 003 Thm 4.5 (L165-173; proof L179-191), Beta only: :func:`thm45_steps`, :func:`thm45`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import validate
from .distances import hellinger
from .errors import InputError
from .models import candidates, n_candidates
from .sensitivity import PAPER_GLOBAL_SENSITIVITY, local_sensitivity, smooth_sensitivity


def exponential_tail_bound(size: int, weight: float, t: ArrayLike) -> NDArray[np.float64]:
    """``Pr[H >= t] <= |R| exp(-w t)`` for an exponential mechanism of weight w over |R| = size (004 §6.1.1).

    Valid for every weight: the normaliser is >= 1 because BI(c) itself has weight e^0 = 1.
    """
    if int(size) < 1:
        raise InputError(f"candidate-set size must be >= 1, got {size!r}")
    w = validate.positive(weight, "weight")
    return np.minimum(1.0, int(size) * np.exp(-w * np.asarray(t, dtype=np.float64)))


def mh_tail_bound(prior: ArrayLike, counts: ArrayLike, epsilon: float, t: ArrayLike) -> NDArray[np.float64]:
    """004 §6.2 (L795-799) for M_H (Def. 6, gamma = 1): ``Pr[H >= t] <= |R| exp(-eps t / (2 S(c)))``."""
    c = validate.counts(counts)
    a = validate.prior(prior, c.size)
    w = validate.positive(epsilon, "epsilon") / (2.0 * smooth_sensitivity(a, c, 1.0))
    return exponential_tail_bound(n_candidates(int(c.sum()), c.size), w, t)


def mh_draft_tail_bounds(prior: ArrayLike, counts: ArrayLike, epsilon: float, t: ArrayLike,
                         factor: float = 1.0) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """004 §6.2 (L779-793) bounds 1 and 2 on ``Pr[H >= t]`` with weight ``eps / (factor S(c))``.

    Printed with ``factor = 1`` (no 2); ``factor = 2`` is the as-defined ``mh``. Bound 1 is the
    exact tail ``sum_{H_r >= t} e^{-w H_r} / NL``; bound 2 is ``|R| e^{-w t} / NL``, NL = sum_r e^{-w H_r}.
    """
    c = validate.counts(counts)
    a = validate.prior(prior, c.size)
    w = validate.positive(epsilon, "epsilon") / (validate.positive(factor, "factor") * smooth_sensitivity(a, c, 1.0))
    h = hellinger(a + c, a + candidates(int(c.sum()), c.size))
    logw = -w * h
    top = logw.max()
    nl = np.exp(logw - top).sum()
    t = np.atleast_1d(np.asarray(t, dtype=np.float64))
    hs = np.sort(h)
    tail_w = np.concatenate([np.cumsum(np.exp(-w * hs - top)[::-1])[::-1], [0.0]])
    first = np.searchsorted(hs, t, side="left")  # index of the first H >= t
    bound1 = tail_w[first] / nl
    bound2 = np.minimum(1.0, h.size * np.exp(-w * t - top) / nl)
    return bound1, bound2


def laplace_tail(t: ArrayLike, scale: float) -> NDArray[np.float64]:
    """``Pr[|Y| >= t] = e^{-t/b}`` for ``Y ~ Lap(b)``, t >= 0 (004 §6.1.2 L763, 000 §5.1 L231)."""
    b = validate.positive(scale, "scale")
    return np.exp(-np.maximum(np.asarray(t, dtype=np.float64), 0.0) / b)


def discretised_laplace_pmf(t: ArrayLike, scale: float, form: str = "corrected") -> NDArray[np.float64]:
    """``Pr[floor(Y) = t]`` for ``Y ~ Lap(b)``, integer t (004 §6.1.2 L765-769).

    ``form="printed"``: the draft's ``1/2 (e^{-(t-1)/b} - e^{-t/b})`` (it integrates [t-1, t), so it
    is the law of ceil(Y) for t >= 1 and is wrong for t <= 0). ``form="corrected"``: the mass of
    [t, t+1): ``1/2 (e^{-t/b} - e^{-(t+1)/b})`` for t >= 0, ``1/2 (e^{(t+1)/b} - e^{t/b})`` for t <= -1.
    """
    b = validate.positive(scale, "scale")
    t = np.asarray(t, dtype=np.float64)
    if form == "printed":
        return 0.5 * (np.exp(-(t - 1.0) / b) - np.exp(-t / b))
    if form != "corrected":
        raise InputError(f"form must be 'printed' or 'corrected', got {form!r}")
    return np.where(t >= 0, 0.5 * (np.exp(-t / b) - np.exp(-(t + 1.0) / b)),
                    0.5 * (np.exp((t + 1.0) / b) - np.exp(t / b)))


def abs_discretised_laplace_pmf(s: ArrayLike, scale: float, form: str = "floor") -> NDArray[np.float64]:
    """Law of the step count ``s >= 0`` of discretised Laplace noise.

    ``form="floor"``: ``|floor(Y)|`` (the project's mechanisms, docs/definitions.md §4): ``1/2 (1 - e^{-1/b})`` at 0,
    ``1/2 (e^{-(s-1)/b} - e^{-(s+1)/b})`` for s >= 1. ``form="toward-zero"``: ``floor(|Y|)``, i.e.
    ``e^{-s/b} - e^{-(s+1)/b}`` (000 §5.1 L233, the Laplace column of 000 Table 1).
    """
    b = validate.positive(scale, "scale")
    s = np.asarray(s, dtype=np.float64)
    if form == "toward-zero":
        return np.exp(-s / b) - np.exp(-(s + 1.0) / b)
    if form != "floor":
        raise InputError(f"form must be 'floor' or 'toward-zero', got {form!r}")
    return np.where(s == 0, 0.5 * (1.0 - np.exp(-1.0 / b)), 0.5 * (np.exp(-(s - 1.0) / b) - np.exp(-(s + 1.0) / b)))


def thm45_steps(prior: ArrayLike, counts: ArrayLike, t: float) -> int:
    """k of 003 Thm 4.5: the largest s with both s-step neighbours ``Beta(a1+c1 -+ s, ...)`` at H < t (Beta only).

    A side that would leave the lattice counts as satisfied (no candidate there). Returns 0 when
    only BI(c) is within t (t > 0 assumed).
    """
    c = validate.counts(counts)
    if c.size != 2:
        raise InputError("003 Thm 4.5 is stated for the Beta-Binomial model (k = 2)")
    a = validate.prior(prior, 2)
    n = int(c.sum())
    m1 = np.arange(n + 1)
    h = hellinger(a + c, a + np.column_stack([m1, n - m1]))
    k = 0
    while k < n:
        s = k + 1
        lo, hi = c[0] - s, c[0] + s
        ok_lo = lo < 0 or h[lo] < t
        ok_hi = hi > n or h[hi] < t
        if not (ok_lo and ok_hi) or (lo < 0 and hi > n):
            break
        k = s
    return k


def thm45(prior: ArrayLike, counts: ArrayLike, t: float, epsilon: float,
          gs: float = PAPER_GLOBAL_SENSITIVITY) -> dict[str, dict[str, float]]:
    """003 Thm 4.5 (L165-173) bounds on ``Pr[H(BI(c), M(c)) < t]``, printed and corrected (Beta only).

    Printed (k = :func:`thm45_steps`): LSZhang ``(1 - (e^{-k eps/2} + e^{-(k+1) eps/2})/2)^2``;
    LSHist ``1 - (e^{-k eps} + e^{-(k+1) eps})/2``; EHD ``((2k e^{-eps} + 1)/n, (2k+1)/(n e^{-eps}))``;
    EHDL the same with ``exp(-eps/(2 LS))``. Corrected: LSZhang with one noise (docs/definitions.md §4, as
    lszhang is defined for k = 2) drops the square; EHD/EHDL use |R| = n + 1 and the weight
    ``w = eps/(2 GS)`` (``gs``; default sqrt(1 - pi/4) as in the proof) or ``eps/(2 LS)``:
    ``(2k e^{-w t} + 1)/(n+1) <= P <= N_t / ((n+1) e^{-w})``, N_t = #{r: H < t}.
    Laplace values ignore clamping (as the proof does): they are exact in the lattice interior.
    """
    eps = validate.positive(epsilon, "epsilon")
    t = validate.positive(t, "t")
    c = validate.counts(counts)
    a = validate.prior(prior, c.size)
    k = thm45_steps(a, c, t)
    n = int(c.sum())
    m1 = np.arange(n + 1)
    n_t = int(np.sum(hellinger(a + c, a + np.column_stack([m1, n - m1])) < t))
    ls = float(local_sensitivity(a, c))
    one_zhang = 1.0 - 0.5 * (math.exp(-k * eps / 2) + math.exp(-(k + 1) * eps / 2))
    out = {
        "printed": {
            "lszhang": one_zhang**2,
            "lshist": 1.0 - 0.5 * (math.exp(-k * eps) + math.exp(-(k + 1) * eps)),
            "ehd_low": (2 * k * math.exp(-eps) + 1) / n,
            "ehd_high": (2 * k + 1) / (n * math.exp(-eps)),
            "ehdl_low": (2 * k * math.exp(-eps / (2 * ls)) + 1) / n,
            "ehdl_high": (2 * k + 1) / (n * math.exp(-eps / (2 * ls))),
        },
        "corrected": {"lszhang": one_zhang,
                      "lshist": 1.0 - 0.5 * (math.exp(-k * eps) + math.exp(-(k + 1) * eps))},
        "k": {"steps": k, "n_within": n_t},
    }
    for name, w in (("ehd", eps / (2 * validate.positive(gs, "gs"))), ("ehdl", eps / (2 * ls))):
        out["corrected"][f"{name}_low"] = (2 * k * math.exp(-w * t) + 1) / (n + 1)
        out["corrected"][f"{name}_high"] = min(1.0, n_t / ((n + 1) * math.exp(-w)))
    return out
