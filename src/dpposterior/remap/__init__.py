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
float64 rounding (relative ~ 1e-15 / (1 - q) per product).  :class:`HellingerLoss` takes
``ln BC`` from :class:`dpposterior.distances.hellinger.BetaLogBC` (lnGamma tables, Hankel structure,
with the midpoint series of :mod:`dpposterior.distances` near the diagonal), relative error
<= ~1e-10 of ``ln BC``; :func:`dpposterior.distances.hellinger` is the reference it is tested against.

Modules (each imports only those listed after it)
-------------------------------------------------
* :mod:`.bayes` (Bayes remap, ``B(lam)``, the prior predictive), :mod:`.ends` (the minimax remap at
  large n, :func:`identity_risk_bound`) over :mod:`.minimax` (the minimax remap, its certificate),
  and :mod:`.sample` (pmf rows, exact draws);
* :mod:`.risk`: the :class:`Remap` table and the exact risks ``E(c)`` and scores ``S_w(z, r)``;
* :mod:`.loss` (the :class:`Loss` protocol, :class:`HellingerLoss`, :class:`MatrixLoss`,
  :class:`DistanceLoss`, the GRS premise check) and :mod:`.kernel` (``G(z | c)``).

Every public name is re-exported here: ``from dpposterior.remap import risk`` and ``rm.risk`` keep working.

Validation
----------
n and eps are validated once, by :func:`geometric_kernel` (the one place they enter: every solver, risk
and sampler takes a kernel and checks its other arguments, the weights, the loss, the remap, the counts,
against ``kernel.size``).  :class:`HellingerLoss` validates its prior (a user may build one from raw
input; as does :func:`as_loss` from a prior) but takes n as given; :func:`prior_predictive` takes its
prior and n as validated by its caller (the mechanisms pass values checked where the CLI and library
input enters, :mod:`dpposterior.validate`).
"""

from __future__ import annotations

from .bayes import bayes_remap, bayes_remap_at, bayes_risk, bayes_scores, prior_predictive
from .ends import identity_risk_bound, minimax_ends
from .kernel import GeometricKernel, geometric_kernel
from .loss import (
    BLOCK_ENTRIES,
    DistanceLoss,
    HellingerLoss,
    Loss,
    MatrixLoss,
    PairLoss,
    as_loss,
    loss_for,
    monotonicity_violations,
)
from .minimax import MAX_LP_NONZEROS, MinimaxResult, RemapGapError, minimax_remap, pair_scores
from .risk import RISK_TAIL, Remap, average_risk, risk, worst_risk
from .sample import geometric_draw, log_pmf_rows, pmf_row, sample

__all__ = [
    "GeometricKernel", "geometric_kernel", "Loss", "PairLoss", "HellingerLoss", "MatrixLoss", "DistanceLoss",
    "as_loss", "loss_for", "prior_predictive", "Remap", "bayes_scores", "bayes_remap", "bayes_remap_at",
    "bayes_risk", "risk", "average_risk", "worst_risk", "MinimaxResult", "minimax_remap", "minimax_ends",
    "identity_risk_bound", "pmf_row", "log_pmf_rows", "pair_scores", "geometric_draw", "sample",
    "monotonicity_violations", "RemapGapError", "BLOCK_ENTRIES", "MAX_LP_NONZEROS", "RISK_TAIL",
]
