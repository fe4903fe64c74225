"""The optimal eps-DP release (docs/definitions.md §9 optimal, §10 geometric + remap).

k = 2: geometric noise followed by a remap tailored to the loss, at any n
--------------------------------------------------------------------------
The release draws ``z = clamp(c + D, 0, n)`` with ``P(D = d) ∝ e^(-eps |d|)`` (exact integer
sampling) and outputs ``r ~ T(z, .)`` (:mod:`dpposterior.remap`), so
``P(r | c) = sum_z G(z | c) T(z, r)``.  ``spec.objective``:

* ``"average"``: ``T`` is the deterministic Bayes remap under the prior predictive
  ``pi = BetaBinomial(n, a)``: ``T(z) = argmin_r sum_c pi(c) G(z | c) H(c, r)`` (:func:`~dpposterior.remap.bayes_remap`);
* ``"worst"``: ``T`` is the minimax remap ``argmin_T max_c E_T(c)`` with its certificate
  ``lower <= min_T max_c E_T(c) <= upper`` (:func:`~dpposterior.remap.minimax_remap`); a certified
  relative gap above :data:`MAX_GAP` and absolute gap above :data:`ABS_GAP` is refused in one line;
  from ``ENDS_FROM`` on the remap is the end-window one (section below).
  A second stage on the same restricted LP
  picks, among remaps with ``E(c) <= upper``, one with the least prior-predictive average error.

Expected errors (``dpposterior accuracy``): :meth:`OptimalMechanism.direct_errors` gives
``E(c)`` of the solved remap by :func:`dpposterior.remap.risk` (a window of z around each c, the rest
bounded rigorously below ``1e-17 E(c)``), O(n W) instead of the O(n^2) walk over whole rows; at k = 2,
n = 1e4, eps = 1 the solve dominates (average ~3 s, worst ~2.5 s with its certificate).

The worst objective at large n: end windows
-----------------------------------------------------
From :data:`ENDS_FROM` on, ``worst`` is :func:`~dpposterior.remap.minimax_ends`: the minimax remap whose
non-identity rows are confined to two end windows ``z < A`` and ``z > n - A`` (A grown until the
certificate closes), the identity elsewhere.  Why the ends: near c = 0 the posterior
``Beta(a1 + c, a2 + n - c)`` is asymptotically n-free and its Hellinger steps are largest, while in the
interior the identity's risk is far below the worst case (Beta(1,1), eps = 1, n = 1e6: its bound below is
~0.04 at c = 100, against a worst case of 0.158).  The certificate is rigorous and local (proofs in
:func:`~dpposterior.remap.minimax_ends` and :func:`~dpposterior.remap.identity_risk_bound`):

* lower: the Bayes risk of the LP's duals on one end; z far from that end are dropped (terms >= 0) and the
  minimum over every r lies within the end, because ``L(c, r)`` is nondecreasing as r moves away from c
  (the outputs form a line in the Beta family's natural parameters, whose log-partition is convex);
* upper: the exact windowed :func:`~dpposterior.remap.risk` on every c within ``W = ln(1e18)/eps`` of a
  free row, and for every other c the identity's risk bounded in O(n) without a Hellinger table: unit steps
  ``H(x, x+1)^2 <= 1/(4 (a1 + x)) + 1/(4 (a2 + n - x - 1))`` (Wendel's inequality), the triangle
  inequality, and the geometric tails; plus the free rows' mass ``2 q^(W+1)/(1+q)``.

A relative gap above :data:`MAX_GAP` is refused as for the whole-range search.  The second stage (least
average among minimax remaps) moves only the free rows, so the remap cached for (prior, n, eps) is one
object: the release at a drawn z reads ``T(z)`` from it (the identity in the interior) and its pmf,
``accuracy`` and the certificate describe the same release.  The solve sees public inputs only and is done
by :meth:`OptimalMechanism.set_up` before a padded release times its reference draws.  Below
``ENDS_FROM`` the whole-range :func:`~dpposterior.remap.minimax_remap` runs (tested against the LP); the
tests compare the two where both run (n = 300-2000), and the end windows at n = 1e6.  Cost at n = 1e6,
eps = 1: ~0.5 s (estimate :func:`ends_seconds`, growing like ``eps^-3.8``: eps = 0.25 takes ~90 s).

That geometric + remap attains the optimum of the LP over all eps-DP tables is Ghosh, Roughgarden and
Sundararajan (2012) / Gupte and Sundararajan (2010) for losses nondecreasing in ``|r - c|``; the tests
check it against the LP (:func:`solve_table`) rather than assume it.

Privacy (proof, next to the code).  ``G`` is eps-DP cell by cell: for ``0 < z < n``,
``G(z | c) / G(z | c') = e^(-eps (|z - c| - |z - c'|)) <= e^eps`` for ``|c - c'| = 1``; at the ends
``G(0 | c) = q^c / (1 + q)`` and ``G(n | c) = q^(n - c) / (1 + q)`` change by the factor ``q^(+-1)``.
For any row-stochastic ``T`` that does not look at c,
``P(r | c) = sum_z G(z | c) T(z, r) <= sum_z e^eps G(z | c') T(z, r) = e^eps P(r | c')``.
So the release is eps-DP whatever T is: computed from the prior, from floats, rounded, or only partly
optimal.  Adjacent data sets at k = 2 are ``c' = c +- 1`` (one record changes category).  The
sampler's only inexactness is the integer weights of a randomised row (total variation
``<= m 2^-127`` for an m-entry row, :func:`dpposterior.remap.sample`), which is again a remap.
``certificate(...)["concrete_epsilon"]`` is the exact worst-case scan of the rows when the scan
budget (``DPPOSTERIOR_MAX_PAIRS``) allows it, else eps (by the argument above; ``"scanned": False``).

k >= 3: the linear program
--------------------------
Variables ``P(r | c)`` for every data set c and output r of R(n) (``|R(n)|^2`` of them).
Constraints: each row sums to 1, ``P >= 0`` and, for every ordered adjacent pair ``(c, c')`` and
every r, ``P(r | c) <= e^eps P(r | c')`` (pure eps-DP).  Objective: ``"worst"`` minimises ``t``
subject to ``sum_r P(r | c) H(BI(c), r) <= t``; ``"average"`` the prior-predictive average.
Solved with ``scipy.optimize.linprog`` (HiGHS, :data:`SOLVERS`; at k = 2 :data:`SOLVERS_K2`) on sparse constraints, within
:data:`MAX_OUTPUTS` outputs and the time budget ``DPPOSTERIOR_MAX_SOLVE_SECONDS`` (estimated before
solving from public n, k: :meth:`OptimalMechanism.solve_seconds`).

Repair and certificate.  A solver returns the table up to its feasibility tolerance, so after
the solve negatives are clipped to 0 and rows renormalised; then the table is mixed with the
uniform table, ``P' = (1 - lam) P + lam U``.  The DP constraints are linear, so a mixture of
eps-DP tables is eps-DP, and for a violation ``v = P(r|c) - e^eps P(r|c') > 0`` the mixture
satisfies the constraint as soon as ``lam >= v / (v + u (e^eps - 1))`` (``u = 1/|R(n)|``); the
largest such lam over all pairs (at least ``MIN_MIX``, which also makes every entry positive) is
used.  The repaired log table is then certified by the exact worst-case scan
(:func:`.scan.worst_case_scan` on its rows); if the scan (in floating point)
exceeds eps, lam is doubled and the scan repeated.  Finally the repaired table's exact objective value
is compared with the geometric release's (same objective): worse by more than a relative
:data:`GEOMETRIC_SLACK` (plus the repair's own cost ``lam max H``) means the solver did not reach
the optimum (it happens at large eps, whose ``e^eps`` coefficients defeat HiGHS' tolerances) and the
call is refused in one line; a table worse than the geometric release is never returned.

The LP by orbits (k = 4, a symmetric prior)
--------------------------------------------
Where the whole LP is past :data:`MAX_OUTPUTS` or its solve budget, a prior left unchanged by the permutations
``s`` of the categories (Dir(1,1,1,1): all 24) gives the same LP over far fewer variables
(:meth:`OptimalMechanism.lp_route` ``"orbits"``; :func:`solve_table` with ``orbits``).  Proof that it loses nothing
and stays private.  Each ``s`` maps R(n) onto itself and adjacent pairs onto adjacent pairs, and leaves the prior
predictive and the Hellinger loss unchanged (``L(s c, s r) = L(c, r)``), so ``T -> T o s`` (``T(s c, s r)``) maps
feasible tables to feasible tables with the same worst case and the same average.  The LP is convex, so the
average of ``T o s`` over the group is feasible and no worse: an invariant table attains the optimum.  Over invariant
tables a variable is one orbit of ``(c, r)`` and the constraints of an orbit are images of one another, so one
per orbit is kept (:func:`~dpposterior.lattice.yardstick._orbit_lp`, the yardstick's reduction of the same LP).
The table returned is the invariant one, each entry its orbit's value; it then takes the repair, the exact scan
and the check against the geometric release as any solved table does, so its guarantee is the scan's, whatever
the solver's tolerance or the losses' last bits (whose floats need not be exactly invariant: that moves only how
near the optimum the table is, never its privacy).  At k in :data:`ORBIT_K` (4), within
:data:`MAX_ORBIT_OUTPUTS` and its plan (:func:`orbit_lp_seconds`, :func:`orbit_lp_bytes`): at Dir(1,1,1,1) n = 6
to 12 by default.

The LP over a coarser lattice (k = 4, a symmetric prior, ``worst``, small eps)
-----------------------------------------------------------------------------------
Past the LP by orbits, ``worst`` at eps <= :data:`COARSE_MAX_EPSILON` and every ``a_i >= COARSE_MIN_PRIOR`` solves
the same LP with the outputs restricted to a coarser lattice (:meth:`OptimalMechanism.lp_route` ``"coarse"``,
:func:`coarse_outputs`: the members of R(n) with at least ``k - 1`` counts a multiple of the step, ``step R(n /
step)`` where the step divides n), by orbits as above, the first step of :data:`COARSE_STEPS` that applies at eps
and whose plan fits (:meth:`OptimalMechanism.coarse_step`).  Every other output gets probability 0.  Why: at small
eps the optimum's error is large (Dir(1,1,1,1), eps 0.5: about 0.65), its outputs need little resolution, and the LP
over a seventeenth to three fifths of the outputs fits where the whole one does not (eps 0.5: n = 13 to 18 at the default
limit; eps 0.75: n = 13, 14 and 16).

What holds.  The restricted set is unchanged by every permutation of the categories, so the orbit argument above
applies to the restricted LP unchanged: the table returned attains the restricted LP's optimum.  A table with zero
columns is a table of the whole LP, so the release is private by the same repair and exact scan (its guarantee is
the scan's), but it is **not** the optimum: the restricted optimum is at least the whole one (Dir(1,1,1,1), eps 0.5,
n = 12, step 2: 0.6643 against 0.6504).  So its value is no yardstick (the certificate names it ``coarse_lp_value``,
never ``lp_optimum``), :meth:`OptimalMechanism.is_optimum` is False there, and the route is taken only where its
worst case was measured below the lattice release's (the constants' docstrings;
``benchmarks/optimal_coarse_k4.json``).  ``average`` keeps the lattice release.

Remapped geometric (any k)
--------------------------
``remapped-geometric``: the library's ``geometric`` release (the sequential clamp,
:mod:`.clamped`) followed by the Bayes remap over R(n) under the prior predictive (Dirichlet-multinomial),
``T(z) = argmin_r sum_c pi(c) G(z | c) H(c, r)``.  eps-DP by post-processing (as above, with the
geometric release's own eps-DP); not proven optimal for k >= 3 (the tests measure its gap to the LP).
At k = 2 it is ``optimal~average``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from .. import remap as rm
from ..distances import DEFAULT_DISTANCE, DistanceGrid, HellingerGrid
from ..errors import InputError, SizeError
from ..limits import Plan, Task, limit_setting
from ..models import (
    candidate_rank,
    candidates,
    check_size,
    log_prior_predictive,
    memory_limit,
    n_candidates,
    neighbour_moves,
)
from ..validate import _exact, estimate_text  # _exact: a bound printed exactly: "<= 30, got 30.000001", never "got 30"
from .base import Family, Guarantee, Mechanism, Objective, Rows, _as_rng, _bits, _inverse_cdf, risk_plan

if TYPE_CHECKING:
    from .spec import ReleaseSpec
from ..lattice.remap import DEFAULT_TOL
from .clamped import CLAMPED_MECHANISMS, clamped_log_pmf_rows, geometric_noise_tables
from .lattice import LATTICE
from .scan import worst_case_scan

#: Largest |R(n)| the LP is attempted for, k >= 3 (|R(n)|^2 variables).
MAX_OUTPUTS = 260
#: The k at which the LP by orbits (module docstring, "The LP by orbits") runs, where the whole LP is past its limits
#: at a symmetric prior: k = 4, where its plan is measured.  At k = 3 the lattice release past the whole LP is already
#: within 1.05 of the yardstick (README), and the pipeline's k = 3 grids stay the releases they were; at k = 5 the
#: reduction over 120 permutations costs more than the k = 4 fit says (Dir(1,1,1,1,1), eps 1, n = 8: 10.0 CPU s
#: against 5.5 planned; n = 6: 1.8 against 2.1), so k = 5 keeps the lattice release until its own fit is measured.
ORBIT_K = (4,)
#: Largest |R(n)| of the LP by orbits (k = 4: n = 14); its plan (:func:`orbit_lp_seconds`) is the limit before it.
MAX_ORBIT_OUTPUTS = 680
#: The steps of the LP over a coarser lattice (module docstring, "The LP over a coarser lattice"), each with the
#: largest eps it is used at (``worst`` only), tried in turn past the LP by orbits: the first whose plan fits is the
#: route.  Measured at Dir(1,1,1,1) against the lattice release's worst case (benchmarks/optimal_coarse_k4.json):
#: at eps 0.5, n = 13 to 18 (and 21), 4 % to 16 % below it; step 2 at eps 0.6 and 0.75 below too (n = 14: 0.6289 against
#: 0.6660, 0.5806 against 0.6194; n = 16 at 0.75: 0.5759 against 0.6316), at eps 1 above (n = 14: 0.5220 against
#: 0.4919; n = 16: 0.5153 against 0.4973); step 3 at eps 0.6 and 0.75 level or above (n = 15: 0.6707 against 0.6737,
#: 0.6405 against 0.6300).  Step 4 is left out: at eps 0.5, n = 20 (56 outputs) 0.7426 against 0.7406.  ``average``
#: keeps the lattice release: by step 2 at n = 12, eps 0.5, its average was 5 % above the whole LP's (0.6472
#: against 0.6141), where the lattice release's is closer.
COARSE_STEPS = ((2, 0.75), (3, 0.5))
#: Largest eps of that route.
COARSE_MAX_EPSILON = max(eps for _, eps in COARSE_STEPS)
#: Least ``a_i`` of that route.  At n = 15, eps 0.5 (step 3) its worst case was below the lattice release's at
#: Dir(5,5,5,5) (0.5144 against 0.6490) and Dir(20,20,20,20) (0.3296 against 0.5023), level at Dir(0.5,0.5,0.5,0.5)
#: (0.7645 against 0.7632): weaker priors keep the lattice release.
COARSE_MIN_PRIOR = 1.0
#: Largest |R(n)| the coarser route is considered at (k = 4: n = 18).  n = 19 and 20 are past the limit by their
#: plans; n = 21 (step 3) fits its plan (42.9 s) but ran at 0.92 of it at eps 0.01 (39.3 CPU s; 27.7 to 31.9 s at eps
#: 0.1 to 0.5, benchmarks/optimal_coarse_k4.json), where every run admitted here is at most 0.69 of its plan: too
#: close for a slower host, so it stays with the lattice release (its worst case there was 0.6893 against 0.7444).
MAX_COARSE_SIZE = 1330
#: Largest eps the LP is solved for (k >= 3): its constraints carry e^eps, and HiGHS reports a model error
#: once that passes ~1e20 (eps ~ 46).  Below it, a table worse than the geometric release is refused.
MAX_EPSILON = 30.0
#: HiGHS methods tried in turn, k >= 3 (a badly scaled table can stop one and not another).  Interior point first:
#: with its crossover it returns a vertex as simplex does, 4-9x sooner on these LPs (k = 3, n = 10, eps = 2: 3.6 s
#: against 32 s for HiGHS' automatic choice, the optima equal to 1e-7 relative; k = 4, n = 5: 1.2 s against 8.5 s).
#: Which optimal vertex it returns may differ from simplex's: the objective's value is the optimum either way, the
#: other objective's is not optimised (the release is certified after the repair below, whatever the vertex)
SOLVERS = ("highs-ipm", "highs", "highs-ds")
#: The same at k = 2 (the oracle of geometric + remap), where HiGHS' automatic choice is the fastest (n = 100:
#: 2.7 s against 25 s by interior point)
SOLVERS_K2 = ("highs", "highs-ds", "highs-ipm")
#: Largest certified relative gap ``(upper - lower) / upper`` of the worst-case remap (k = 2).
MAX_GAP = 1e-4
#: ... or an absolute gap ``upper - lower`` at most this.  At large eps every expected error is tiny
#: (k = 2, n = 20, eps = 25: ``upper`` 8.4e-12), below the LP's own tolerances (1e-10), and the least
#: favourable prior the LP returns is a point mass, whose Bayes risk is exactly 0: no relative certificate
#: is meaningful there.  An absolute one is: ``0 <= min_T max_c E_T(c) <= upper``, so the released remap's
#: worst case is within ``upper - lower`` (here <= 1e-9) of the optimum's, absolutely.
ABS_GAP = 1e-9
#: A solved LP table may be worse than the geometric release by at most this (relative) plus its repair's cost.
GEOMETRIC_SLACK = 1e-9
#: ``ln P(r | c)`` reported for an output the remap never produces (``P = 0`` for every c): finite, so
#: that the scans' differences between adjacent rows are 0 there, never ``-inf - -inf``; ``exp`` of it is 0.
NEVER = -1e300
#: From this n on (k = 2, ``average``) a draw computes ``T(z)`` for the drawn z only
#: (:func:`~dpposterior.remap.bayes_remap_at`).
PER_Z_FROM = 20_000
#: From this n on (k = 2, ``worst``) the minimax remap is the end-window one (:func:`~dpposterior.remap.minimax_ends`):
#: non-identity rows near c = 0 and c = n only, certified locally in O(n); below it, the whole-range search.
ENDS_FROM = 20_000
#: Seconds of the end-window solve (measured on 2 shared cores, Beta(1,1), n = 1e6: 0.9 s at eps = 1, 0.5 s at
#: eps = 2, 6.6 s at eps = 0.5, 88 s at eps = 0.25), with margin ~2x: ``2 (0.3 + 3e-7 n + 0.7 eps^-3.8)``.
def ends_seconds(n: int, epsilon: float) -> float:
    """Estimated seconds of :func:`~dpposterior.remap.minimax_ends` from public n and eps (docs/definitions.md §10)."""
    return 2.0 * (0.3 + 3e-7 * n + 0.7 * float(epsilon) ** -3.8)


#: Seconds per ``(n + 1)^2`` of the k = 2 whole-range solves (measured at n = 1e4 on 2 shared cores, with margin):
#: the Bayes remap (``bayes_scores``), and the minimax remap with its second stage and exact certificate.  The
#: latter measures ~2.5e-8 (windowed :func:`~dpposterior.remap.risk`: 2.5 s at n = 1e4, 7.9 s at n = 2e4); with the
#: restricted LP's estimate beside it (:func:`worst_lp_seconds`), that keeps a plan within 2x of the measured CPU
#: seconds at n = 5,000 to 15,000 (benchmarks/plans.json; it was 2e-7, 5.5x over at n = 5,000).
REMAP_SECONDS_PER_N2 = {"average": 6e-8, "worst": 2.5e-8}
#: Bytes per count (n + 1) of the k = 2 remap's solve at its peak (measured: worst, n = 15,000: 429 MB; average,
#: n = 20,000, eps = 0.1: 529 MB; benchmarks/plans.json).
REMAP_BYTES_PER_COUNT = 25e3
#: Seconds per nonzero of the whole-range minimax remap's restricted LP (k = 2 ``worst``), times
#: ``sqrt(nonzeros / 1e6)`` past 1e6 (HiGHS on these LPs is superlinear): measured on 2 cores shared with other
#: jobs, Beta(1,1), 2-6.5e-5 s per nonzero at ~1e6 (n = 100, eps = 1e-3: 20 s; n = 200, eps = 0.1: 35 s;
#: n = 500, eps = 0.25: 64 s under load), past 120 s at 3.4-3.9e6 (n = 150, eps = 1e-3; n = 300, eps = 0.05).
#: The typical cost, not the loaded maximum: the pipeline's grids (n <= 1000 at eps >= 0.25, ~1e6 nonzeros) stay
#: within the default budget, as they ran before.  At small eps each row z spreads over ~30/eps counts and ~2/eps
#: outputs, so this term, not ``(n + 1)^2``, is the cost (n = 200, eps = 1e-3 ran over 400 s under an estimate
#: of 0.01 s; this one gives ~900 s).
LP_SECONDS_PER_NONZERO = 4e-5


def worst_lp_seconds(n: int, epsilon: float) -> float:
    """Estimated seconds of the restricted LP of :func:`~dpposterior.remap.minimax_remap` from public n and eps
    (docs/definitions.md §10): its nonzeros are at most (active rows: two ends' ``2 W_z + 1``, ``W_z = ln(1e10)/eps``)
    x (outputs per row ``2 K + 1``, ``K = 1/eps + 1``) x (counts per row ``2 W + 1``, ``W = ln(1e13)/eps``), each
    capped at n + 1; the solve's time is :data:`LP_SECONDS_PER_NONZERO` per nonzero, superlinear past 1e6."""
    N, eps = int(n) + 1, float(epsilon)
    wz, wc = math.ceil(math.log(1e10) / eps), math.ceil(math.log(1e13) / eps)
    band = max(2, math.ceil(1.0 / eps) + 1)
    nnz = float(min(N, 2 * (2 * wz + 1))) * min(N, 2 * band + 1) * min(N, 2 * wc + 1)
    return LP_SECONDS_PER_NONZERO * nnz * max(1.0, math.sqrt(nnz / 1e6))


#: Seconds per loss entry of one per-z Bayes remap ``T(z)`` (:func:`~dpposterior.remap.bayes_remap_at`: a
#: ``width^2`` Hellinger block), and its bytes per entry (the block and its near-diagonal series' index arrays):
#: measured at n = 1e5, Beta(1,1): eps = 0.05, width ~2000: 2.3-3.2 s, 0.86 GB; eps = 0.02: 9-14 s, 2.6 GB.
PER_Z_SECONDS_PER_ENTRY = 6e-7
PER_Z_BYTES_PER_ENTRY = 100
#: A padded release computes up to this many ``T(z)``: 2 x 2 reference draws, the draw, and its padding's worth.
PER_Z_DRAWS = 8


def per_z_width(a: tuple, n: int, epsilon: float, tail: float = 1e-18) -> int:
    """The widest window ``bayes_remap_at`` can take at any z, from public (prior, n, eps) (docs/definitions.md §10).

    Proof: a kept c has ``w(c) >= tail sum(w) / N >= tail w(z) / N`` with ``w(c) = pi(c) G(z | c)``,
    ``G(z | c) <= q^|z-c| / (1 + q)`` and ``G(z | z) >= p0 = (1 - q)/(1 + q)``, so
    ``|z - c| eps <= ln(N / tail) + ln(pi(c) / pi(z)) - ln(1 - q)``; the window is the hull of such c."""
    N = int(n) + 1
    log_pi = _log_pi(a, int(n))
    spread = float(log_pi.max() - log_pi.min())
    eps = float(epsilon)
    if not math.isfinite(spread):
        return N
    d = (math.log(N / tail) + spread - math.log(-math.expm1(-eps))) / eps
    return int(min(N, 2 * math.ceil(d) + 1))


#: Seconds of one k >= 3 linear program per ``(P N)^2``, ``P = k (k - 1) |R(n - 1)|`` (moved from compare).
LP_SECONDS_PER_SIZE2 = 1.5e-8
#: Seconds per ``|R(n)|^3`` of the remapped geometric release's dense Bayes remap (k >= 3).
DENSE_SECONDS_PER_N3 = 2e-9


class SolverError(InputError):
    """The LP solver failed on these (valid) settings: one line, exit status 2 at the command line."""


#: Smallest uniform mixing weight of the repair (keeps every entry > 0, costs < 1e-9 in error).
MIN_MIX = 1e-10


class OptimalRows(Rows):
    """Rows of the solved table: ``ln P(. | c)`` looked up by the rank of c."""

    def __init__(self, a, n, log_table: NDArray[np.float64]):
        super().__init__(a, n)
        self.log_table = log_table

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        return self.log_table[candidate_rank(counts)].copy()


def _adjacent_pairs(cands: NDArray[np.int64]) -> NDArray[np.int64]:
    """Every ordered adjacent pair ``(rank c, rank c')``, ``c' = c - e_i + e_j``, i != j."""
    out = [np.stack(move, axis=1) for move in neighbour_moves(cands, ordered=True)]
    return np.concatenate(out) if out else np.empty((0, 2), dtype=np.int64)


def symmetry_order(prior) -> int:
    """The number of permutations of the categories that leave the prior unchanged (exactly): the product of the
    factorials of the multiplicities of its values.  Public prior."""
    _, counts = np.unique(np.asarray(prior, dtype=np.float64), return_counts=True)
    return math.prod(math.factorial(int(m)) for m in counts)


#: Peak bytes of the LP by orbits: a constant, bytes per unreduced DP constraint (the matrix before its reduction)
#: and bytes per entry of the dense |R(n)| x |R(n)| table and its checks (the repair, the scan, the exact errors
#: against the geometric release), above the same record's peaks (Dir(1,1,1,1): n = 10, 213 to 217 MB, planned 353;
#: n = 12, 417 to 428 MB, planned 684) and the coarser lattice's (benchmarks/optimal_coarse_k4.json: n = 21, step 3,
#: 1,319 MiB, planned 1,525 MB; n = 18, 631 MiB, planned 756 MB).
ORBIT_LP_BYTES = (1.5e8, 250.0, 180.0)


def orbit_lp_seconds(n: int, k: int, order: int, outputs: int | None = None) -> float:
    """Estimated seconds of the LP by orbits and its certificate (:func:`_solved`: the solve, the reduction, the
    repair's scan and the check against the geometric release); public n, k, order (:func:`symmetry_order`).

    The yardstick's measured fit of the same LP (:func:`~dpposterior.lattice.yardstick.whole_seconds` at its
    ``|pairs| = k (k - 1) |R(n - 1)|`` neighbour pairs and ``|R(n)|`` outputs, its certificate included), held above
    every run of ``benchmarks/optimal_orbits_k4.json`` (Dir(1,1,1,1), both objectives, n = 6 to 12 at eps 0.5, 1
    and 2 and n = 10 at eps 0.25 and 4; n = 12: 9.9 to 18.4 CPU s against 28.1 planned).  At n = 13 it plans 58.7 s,
    over the default limit.  ``outputs``: the LP over that many outputs (:func:`coarse_outputs`; the fit's groups),
    held above every run of ``benchmarks/optimal_coarse_k4.json``; default all of R(n)."""
    from ..lattice.yardstick import whole_seconds

    if n <= 0:
        return whole_seconds(1, 1, 0, max(1, order), k)
    size = n_candidates(n, k)
    return whole_seconds(size, size if outputs is None else outputs, k * (k - 1) * n_candidates(n - 1, k),
                         max(1, order), k)


def orbit_lp_bytes(n: int, k: int, outputs: int | None = None) -> float:
    """Estimated peak bytes of the LP by orbits (:data:`ORBIT_LP_BYTES`) over ``outputs`` outputs (default all of
    R(n)); public n, k."""
    base, per_row, per_entry = ORBIT_LP_BYTES
    if n <= 0:
        return base
    size = n_candidates(n, k)
    return (base + per_row * k * (k - 1) * n_candidates(n - 1, k) * (size if outputs is None else outputs)
            + per_entry * float(size) ** 2)


@lru_cache(maxsize=64)
def coarse_size(n: int, k: int, step: int) -> int:
    """``|coarse_outputs(R(n), step)|``; public n, k, step (|R(n)| at most :data:`MAX_COARSE_SIZE`)."""
    return int(coarse_outputs(candidates(n, k), step).sum())


def coarse_outputs(cands: NDArray[np.int64], step: int) -> NDArray[np.bool_]:
    """Which members of R(n) (``cands``, rows) are outputs of the LP over the step-``step`` lattice (module docstring,
    "The LP over a coarser lattice"): those with at least ``k - 1`` counts a multiple of ``step`` (``step * R(n /
    step)`` where ``step`` divides n).  The set is unchanged by every permutation of the categories.  Public."""
    cands = np.asarray(cands, dtype=np.int64)
    if step <= 1:
        return np.ones(len(cands), dtype=bool)
    return (cands % step == 0).sum(axis=1) >= cands.shape[1] - 1


def solve_table(a: NDArray[np.float64], n: int, epsilon: float, objective: str,
                distance: str = DEFAULT_DISTANCE, orbits: bool = False, step: int = 1) -> tuple[NDArray, float, float]:
    """Solve the LP (module docstring) with the ``distance`` loss (Hellinger by default; another distance is the
    oracle of the k = 2 remap under it): ``(table (N, N), lam, LP optimum)`` before the repair's mixing.

    ``orbits`` (the module docstring, "The LP by orbits"): the same LP over the tables invariant under the
    permutations of the categories that leave the prior unchanged, one variable per orbit of ``(c, r)`` and one
    constraint per orbit of constraints (:func:`~dpposterior.lattice.yardstick._orbit_lp`); the table returned is the
    invariant one, ``T(c, r)`` its orbit's value.  ``step`` >= 2 (with ``orbits``; module docstring, "The LP over a
    coarser lattice"): the same LP with ``T(c, r) = 0`` outside :func:`coarse_outputs`, its optimum that LP's (at
    least the whole LP's)."""
    cands = candidates(n, a.size)
    N = len(cands)
    out = np.flatnonzero(coarse_outputs(cands, step)) if orbits else np.arange(N)
    M = len(out)
    H = DistanceGrid(a, n, distance).values(cands, cands[out])
    scale = float(H.max()) or 1.0  # the LP sees H / max H (same minimiser; HiGHS needs it at tiny H, e.g. a = 1e9)
    H = H / scale
    nv = N * M + (objective == "worst" or orbits)  # by orbits the last variable is t (cost 0 for the average)
    pairs = _adjacent_pairs(cands)
    P = len(pairs)
    r = np.arange(M)
    rows = (np.arange(P)[:, None] * M + r[None, :]).ravel()
    dp = sparse.coo_matrix(
        (np.concatenate([np.ones(P * M), np.full(P * M, -np.exp(epsilon))]),
         (np.concatenate([rows, rows]),
          np.concatenate([(pairs[:, 0:1] * M + r).ravel(), (pairs[:, 1:2] * M + r).ravel()]))),
        shape=(P * M, nv))
    eq = sparse.coo_matrix((np.ones(N * M), (np.repeat(np.arange(N), M), np.arange(N * M))), shape=(N, nv))
    if objective == "worst":
        err = sparse.coo_matrix(
            (np.concatenate([H.ravel(), -np.ones(N)]),
             (np.concatenate([np.repeat(np.arange(N), M), np.arange(N)]),
              np.concatenate([np.arange(N * M), np.full(N, N * M)]))),
            shape=(N, nv))
        A_ub = sparse.vstack([dp, err]).tocsr()
        cost = np.zeros(nv)
        cost[-1] = 1.0
    else:
        A_ub = dp.tocsr()
        pi = np.exp(log_prior_predictive(a, cands))
        cost = np.zeros(nv)
        cost[:N * M] = (pi[:, None] * H).ravel()
    from scipy.optimize import linprog  # heavy: loaded where an LP is solved, not at start-up

    A_eq, b_eq, expand = eq.tocsr(), np.ones(N), None
    if orbits:
        from ..lattice.yardstick import _orbit_lp, _symmetry_images

        images = [img for _, img in _symmetry_images(a, cands)]
        images_out = images if M == N else [img for _, img in _symmetry_images(a, cands[out])]
        A_ub, A_eq, cost, _, kept, expand = _orbit_lp(images, images_out, pairs, N, M, A_ub, A_eq, cost,
                                                      worst_rows=objective == "worst")
        b_eq = b_eq[kept]
    solvers = SOLVERS_K2 if a.size == 2 else SOLVERS
    for method in solvers:
        res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=A_eq, b_eq=b_eq,
                      bounds=(0, None), method=method)
        if res.status == 0:
            break
    else:
        raise SolverError(f"the optimal mechanism's linear program for k={a.size}, n={n}, epsilon={epsilon:g} "
                          f"was not solved by HiGHS ({', '.join(solvers)}): {' '.join(str(res.message).split())[:120]}")
    x = res.x if expand is None else expand @ res.x  # by orbits: the invariant table, each entry its orbit's value
    T = np.zeros((N, N))
    T[:, out] = np.clip(x[:N * M].reshape(N, M), 0.0, None)  # outside the coarse outputs: never released
    T /= T.sum(axis=1, keepdims=True)
    # repair: smallest uniform mixing weight that makes every DP constraint hold exactly
    u = 1.0 / N
    v = T[pairs[:, 0]] - np.exp(epsilon) * T[pairs[:, 1]]
    v = v[v > 0]
    lam = float(np.max(v / (v + u * np.expm1(epsilon)))) if v.size else 0.0
    return T, max(lam, MIN_MIX), float(res.fun) * scale


@lru_cache(maxsize=16)
def _solved(a: tuple, n: int, epsilon: float, objective: str, orbits: bool = False, step: int = 1
            ) -> tuple[NDArray, float, float, float]:
    arr = np.asarray(a, dtype=np.float64)
    T, lam, opt = solve_table(arr, n, epsilon, objective, orbits=orbits, step=step)
    N = T.shape[0]
    while True:
        log_table = np.log((1.0 - lam) * T + lam / N)
        loss = worst_case_scan(OptimalRows(arr, n, log_table))[0] if n > 0 else 0.0
        if loss <= epsilon or lam >= 1.0:
            break
        lam = min(1.0, 2.0 * lam)
    log_table.setflags(write=False)
    _check_against_geometric(arr, n, epsilon, objective, log_table, lam)
    return log_table, lam, float(loss), opt


def _exact_values(a: NDArray[np.float64], n: int, log_table: NDArray[np.float64]) -> tuple[float, float]:
    """``(max_c E(c), sum_c pi(c) E(c))`` of a log table over R(n) x R(n), exactly (dense, small |R(n)|)."""
    cands = candidates(n, a.size)
    H = HellingerGrid(a, n).hellinger(cands, cands)
    P = np.exp(log_table)
    E = (P * H).sum(axis=1) / P.sum(axis=1)
    pi = np.exp(log_prior_predictive(a, cands))
    return float(E.max()), float(pi @ E / pi.sum())


def geometric_values(a: NDArray[np.float64], n: int, epsilon: float) -> tuple[float, float]:
    """``(worst, average)`` expected error of the library's ``geometric`` release (sequential clamp), exactly."""
    k = a.size
    cands = candidates(n, k)
    scale = (1.0 if k == 2 else 2.0) / epsilon
    return _exact_values(a, n, clamped_log_pmf_rows(geometric_noise_tables(scale, n), cands, cands))


def _check_against_geometric(a, n, epsilon, objective, log_table, lam) -> None:
    """Refuse (one line) a solved table worse than the geometric release on its own objective (module docstring)."""
    got = _exact_values(a, n, log_table)[objective == "average"]
    geo = geometric_values(a, n, epsilon)[objective == "average"]
    if got > geo * (1.0 + GEOMETRIC_SLACK) + lam:
        raise SolverError(f"the LP solver did not reach the optimum at eps = {epsilon:g} (k={a.size}, n={n}: "
                          f"its table's {objective} error {got:.4g} > the geometric release's {geo:.4g}); use geometric")




# ---------------------------------------------------------------------------------------------
# k = 2: geometric + remap


@dataclass(frozen=True)
class RemapSolution:
    """A solved k = 2 remap: ``remap`` (:class:`~dpposterior.remap.Remap`), the certified bounds (``worst``:
    ``lower <= min_T max_c E_T(c) <= upper``, ``gap``) or the exact Bayes risk ``average``."""

    kernel: rm.GeometricKernel
    remap: rm.Remap
    objective: str
    value: float
    lower: float = math.nan
    upper: float = math.nan
    gap: float = math.nan


#: A loss counts as nondecreasing in |r - c| up to this absolute tolerance (the distances' stated accuracy:
#: total variation saturates at 1 with rounding noise ~1e-15 far from c).
MONOTONE_TOL = 1e-10


@lru_cache(maxsize=4)
def _loss(a: tuple, n: int, distance: str = DEFAULT_DISTANCE):
    """The k = 2 loss under ``distance`` (:func:`~dpposterior.remap.loss_for`).  Another distance than Hellinger
    is first checked to be nondecreasing in ``|r - c|`` (the premise of the geometric + remap optimum,
    docs/definitions.md §10), else refused in one line; Hellinger's monotonicity is proved (module docstring)."""
    loss = rm.loss_for(distance, a, n)
    if distance != DEFAULT_DISTANCE:
        bad = rm.monotonicity_violations(loss, n, MONOTONE_TOL)
        if bad:
            c, r, r2 = bad[0]
            raise InputError(f"the {distance} loss for prior {a}, n={n} is not nondecreasing in |r - c| (at c={c}: "
                             f"r={r} -> {r2}), so geometric + remap is not known to be optimal: use --distance hellinger")
    return loss


@lru_cache(maxsize=4)
def _log_pi(a: tuple, n: int) -> NDArray[np.float64]:
    out = rm.prior_predictive(a, n, log=True)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=16)
def _remap_solved(a: tuple, n: int, epsilon: float, objective: str,
                  distance: str = DEFAULT_DISTANCE) -> RemapSolution:
    """The k = 2 remap for ``objective`` under the ``distance`` loss (module docstring), cached per (prior, n,
    eps, objective, distance).  The end windows (large n) are Hellinger's: their interior bound is for it."""
    kernel = rm.geometric_kernel(n, epsilon)
    loss = _loss(a, n, distance)
    pi = np.exp(_log_pi(a, n))
    if objective == "average":
        smin, r = rm.bayes_scores(kernel, pi, loss)
        return RemapSolution(kernel, rm.Remap.deterministic(r), objective, float(smin.sum()))
    res = None
    if n >= ENDS_FROM and distance == DEFAULT_DISTANCE:
        try:
            res = rm.minimax_ends(kernel, loss, tol=MAX_GAP, strict=False, average_weights=pi, atol=ABS_GAP)
        except rm.RemapGapError:  # pragma: no cover - strict=False never raises it
            res = None
        except InputError:  # the windows would cover the range (tiny eps): the whole-range search, if in budget
            _solve_limit(REMAP_SECONDS_PER_N2["worst"] * float(n + 1) ** 2 + worst_lp_seconds(n, epsilon),
                          f"the optimal mechanism's worst remap for k=2, n={n} (its end windows cover the range)")
            res = None
    if res is None:
        res = rm.minimax_remap(kernel, loss, tol=MAX_GAP, strict=False, average_weights=pi)
    if not (res.gap <= MAX_GAP or res.upper - res.lower <= ABS_GAP):
        raise SizeError(f"the minimax remap for n={n}, eps={epsilon:g} reached a certified gap of {res.gap:.2g} "
                        f"(over {MAX_GAP:g}; lower {res.lower:.6g}, upper {res.upper:.6g}): use --objective average")
    return RemapSolution(kernel, res.remap, objective, res.upper, res.lower, res.upper, res.gap)


class _BayesAt:
    """``z -> T(z)`` of the Bayes remap for one z at a time (:func:`~dpposterior.remap.bayes_remap_at`), memoised.

    ``bayes_remap_at`` keeps the c whose weight ``pi(c) G(z | c)`` is at least ``1e-18 / (n+1)`` of the
    total (the rest carries < 1e-18 of it) and returns the argmin over that window; for a loss
    nondecreasing in ``|r - c|`` with ``H <= 1`` the chosen r's score exceeds the exact minimum
    ``min_r S_pi(z, r)`` by at most ``1e-18 sum_c pi(c) G(z | c)`` (a relative ``slack`` it reports,
    ~1e-15 here).  So it is the full Bayes remap's ``T(z)`` unless two outputs' scores are within that
    slack (the tests compare both wherever the full remap runs).
    """

    def __init__(self, a: tuple, n: int, epsilon: float):
        self.kernel = rm.geometric_kernel(n, epsilon)
        self.loss, self.log_pi = _loss(a, n), _log_pi(a, n)
        # the loss's polygamma tables (~2 s at n = 1e5) are a set-up from (prior, n), built here, by
        # OptimalMechanism.set_up, so that a padded release's first reference draw is a draw and not this
        self.loss.tabulate()
        self.memo: dict[int, int] = {}

    def __call__(self, z: int):
        if z not in self.memo:
            self.memo[z] = rm.bayes_remap_at(self.kernel, self.log_pi, self.loss, int(z))[0]
        return np.array([self.memo[z]], dtype=np.int64), np.ones(1)


@lru_cache(maxsize=4)
def _bayes_at(a: tuple, n: int, epsilon: float) -> _BayesAt:
    return _BayesAt(a, n, epsilon)


class RemapRows(Rows):
    """Rows ``ln P(. | c)`` of geometric + remap at k = 2, exact in log space (:func:`~dpposterior.remap.log_pmf_rows`)."""

    def __init__(self, a, n, solution: RemapSolution):
        super().__init__(a, n)
        self.solution = solution
        csc = sparse.csc_array(solution.remap.table)
        csc.eliminate_zeros()
        csc.sort_indices()
        self._csc = csc

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        return rm.log_pmf_rows(self.solution.kernel, self.solution.remap, counts[:, 0], never=NEVER)

    def column(self, r: int, cs: NDArray[np.int64]) -> NDArray[np.float64]:
        """``ln P(r | c)`` for the counts ``cs`` (first coordinates), O(len(cs) x |T^-1(r)|)."""
        s, e = self._csc.indptr[r], self._csc.indptr[r + 1]
        if e == s:
            return np.full(cs.size, NEVER)
        M = self.solution.kernel.log_pmf(self._csc.indices[s:e][None, :], cs[:, None]) + np.log(self._csc.data[s:e])
        mx = M.max(axis=1)
        return mx + np.log(np.exp(M - mx[:, None]).sum(axis=1))


def _solve_limit(seconds: float, what: str) -> None:
    limit = limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS")
    if seconds > limit:
        raise SizeError(f"{what} is estimated at {estimate_text(seconds)} s, over the limit of {_exact(limit)} s "
                        "(set DPPOSTERIOR_MAX_SOLVE_SECONDS to raise it)")


def _scan_certificate(rows: Rows, n: int, epsilon: float) -> tuple[float, bool]:
    """The exact worst-case scan of ``rows`` when ``DPPOSTERIOR_MAX_PAIRS`` allows it, else eps (post-processing)."""
    if n == 0:
        return 0.0, True
    if len(rows.cands) ** 2 > limit_setting("DPPOSTERIOR_MAX_PAIRS"):
        return float(epsilon), False
    return float(worst_case_scan(rows)[0]), True


class OptimalMechanism(Mechanism):
    """The eps-DP release minimising the expected Hellinger error (docs/definitions.md §9, §10; module docstring)."""

    family = Family.OPTIMAL
    tailored = True  # the remap's loss (k = 2)
    objectives = tuple(Objective)
    releases_of = "lattice"  # k >= 3 past the linear program (release_key)
    sampling_guarantee = ("k = 2: exact integer geometric draw, then the remap (integer weights for a randomised "
                          "row, total variation <= m 2^-127); k >= 3: integer-weight inverse cdf of the table")

    def check(self, spec: ReleaseSpec) -> ReleaseSpec:
        """Refuse eps above :data:`MAX_EPSILON` (one line): the LP's limit (k >= 3), kept at k = 2, where
        every expected error is already below ~1e-12 and no relative certificate is meaningful."""
        spec = super().check(spec)
        if spec.epsilon > MAX_EPSILON:
            raise InputError(f"the optimal mechanism is solved for epsilon <= {_exact(MAX_EPSILON)}, "
                             f"got {_exact(spec.epsilon)} "
                             "(e^eps coefficients past ~1e13 defeat the solver)")
        return spec

    # -- cost estimates (public n, k, objective only) ------------------------------------------

    def solve_seconds(self, n: int, k: int, objective: str | None = "worst", epsilon: float | None = None) -> float:
        """Estimated seconds of the solve behind the table: k = 2 the remap (``REMAP_SECONDS_PER_N2``
        times ``(n+1)^2``; ``worst`` from ``ENDS_FROM`` on, given eps, :func:`ends_seconds`; ``average`` draws
        at ``n >= PER_Z_FROM`` need none, see :meth:`draw_solve_seconds`), k >= 3 the LP
        (``LP_SECONDS_PER_SIZE2`` times ``(P N)^2``, ``P = k (k - 1) |R(n - 1)|``)."""
        if k == 2:
            whole = REMAP_SECONDS_PER_N2[objective or "worst"] * float(n + 1) ** 2
            if (objective or "worst") == "worst" and epsilon is not None:
                whole += worst_lp_seconds(n, epsilon)
                if n >= ENDS_FROM:
                    return min(whole, ends_seconds(n, epsilon))
            return whole
        size = k * (k - 1) * n_candidates(n - 1, k) * n_candidates(n, k) if n > 0 else 0
        return LP_SECONDS_PER_SIZE2 * float(size) ** 2

    def draw_solve_seconds(self, n: int, k: int, objective: str, epsilon: float | None = None) -> float:
        """Seconds of the set-up a draw needs (the solve); for k = 2 ``average`` from ``PER_Z_FROM`` on, no solve
        but a ``T(z)`` per draw: :data:`PER_Z_DRAWS` of them, each ``width^2`` loss entries (:func:`per_z_width`)."""
        if k == 2 and objective == "average" and n >= PER_Z_FROM:
            return 0.0
        return self.solve_seconds(n, k, objective, epsilon)

    def check_per_z(self, prior, n: int, spec: ReleaseSpec) -> None:
        """k = 2 ``average`` from ``PER_Z_FROM`` on: refuse, from public (prior, n, eps), a per-z remap whose
        windows would not fit the memory or the solve budget (small eps: a window spans ~2 (41 + ln n)/eps)."""
        width = per_z_width(tuple(float(x) for x in prior), int(n), spec.epsilon)
        check_size(width * width, PER_Z_BYTES_PER_ENTRY,
                   f"the optimal mechanism's per-z average remap for k=2, n={n} (a {width}-wide window)")
        _solve_limit(PER_Z_DRAWS * (PER_Z_SECONDS_PER_ENTRY * float(width) ** 2 + 3e-8 * n),
                     f"the optimal mechanism's per-z average remap for k=2, n={n} (a {width}-wide window per draw)")

    def check_solve(self, n: int, k: int, spec: ReleaseSpec, what: str = "the optimal table", draw: bool = False,
                    prior=None) -> None:
        """Refuse, before solving and from public inputs only, a table over the size, eps or time budget, or
        under a distance it is not built for (:meth:`check_distance`); ``prior`` (k >= 3): the LP by orbits where
        it is the route (:meth:`lp_route`)."""
        self.check_distance(spec, k)
        route = self.lp_route(n, k, spec, prior) if k >= 3 else None
        if route in ("orbits", "coarse"):
            super().check_size(n, k, what)  # its memory is part of the route (:meth:`lp_route`)
            kind = "by orbits" if route == "orbits" else f"over the step-{self.coarse_step(n, k, spec, prior)} lattice"
            _solve_limit(self.lp_seconds(n, k, spec, prior),
                         f"the optimal mechanism's linear program {kind} for k={k}, n={n}")
            return
        if k >= 3:
            self._check_lp_size(n, k, what)
        sec = (self.draw_solve_seconds(n, k, spec.objective, spec.epsilon) if draw
               else self.solve_seconds(n, k, spec.objective, spec.epsilon))
        kind = "linear program" if k >= 3 else f"{spec.objective} remap"
        _solve_limit(sec, f"the optimal mechanism's {kind} for k={k}, n={n}")

    def check_distance(self, spec: ReleaseSpec, k: int) -> None:
        """k = 2: any distance of the registry (the remap's loss); k >= 3: Hellinger only (the linear program's
        loss), refused in one line otherwise."""
        super().check_distance(spec, k)
        if k >= 3 and spec.distance != DEFAULT_DISTANCE:
            raise InputError(f"optimal under {spec.distance} at k={k} is not built (the k >= 3 linear program is "
                             "Hellinger's): use --distance hellinger, or k = 2")

    def check_size(self, n: int, k: int, what: str) -> None:
        """The exact rows over R(n) (k >= 3: the LP's size is no refusal, the lattice release takes over)."""
        super().check_size(n, k, what)

    def _check_lp_size(self, n: int, k: int, what: str) -> None:
        if k >= 3:
            size = n_candidates(n, k)
            if size > MAX_OUTPUTS:
                raise SizeError(f"the optimal mechanism's linear program for k={k}, n={n} has |R(n)| = {size} "
                                f"outputs, over the limit of {MAX_OUTPUTS} (|R(n)|^2 variables)")
        super().check_size(n, k, what)

    def audit_entry_seconds(self, n, k):
        """k = 2: the geometric draw and a remap look-up (``T(z)`` on demand past ``PER_Z_FROM``: O(n) per new z);
        k >= 3: the inverse cdf of the solved table."""
        if k == 2:
            return 1e-6 + (3e-8 * n if n >= PER_Z_FROM else 0.0)
        return 0.3e-6 * n_candidates(n, k)

    def setup_seconds(self, n, k):
        """The solve is cached per (prior, n, eps, objective), so a batch's set-up is a look-up."""
        return 1e-4

    def check_setup(self, n, k, *, setups=1.0, what="a draw"):
        """k >= 3: nothing from n and k alone (past the LP's budgets the lattice release is used, whose budget
        needs eps: :meth:`sample` and :meth:`set_up` check it); k = 2: the draw itself is O(1) once solved, and
        :meth:`sample` checks the objective's solve."""
        self.check_size(n, k, what)

    # -- k >= 3: the LP where it runs, the lattice release beyond ------------------------------

    def lp_route(self, n: int, k: int, spec: ReleaseSpec, prior=None) -> str | None:
        """k >= 3: the linear program's route from public n, k, eps, objective and prior: ``"whole"`` within
        :data:`MAX_OUTPUTS` and the solve budget (every table); else ``"orbits"`` (the tables invariant under the
        prior's symmetries, module docstring "The LP by orbits") at k in :data:`ORBIT_K` and a symmetric prior
        (every ``a_i`` equal: the priors its plan was measured at; a prior with fewer symmetries would solve the same
        way, more slowly, and is left to the lattice release), within :data:`MAX_ORBIT_OUTPUTS`, the solve budget
        (:meth:`lp_seconds`) and memory; else ``"coarse"`` (the same over a coarser lattice of outputs, module
        docstring "The LP over a coarser lattice": ``worst`` at eps <= :data:`COARSE_MAX_EPSILON`, the first of
        :data:`COARSE_STEPS` that applies and fits, :meth:`coarse_step`); else None (the lattice release).  Without
        ``prior``: the whole LP only."""
        from ..lattice.corners import symmetric_prior

        size = n_candidates(n, k)  # the sizes first: past both, no setting is read
        if size <= MAX_OUTPUTS and self.solve_seconds(n, k, spec.objective, spec.epsilon) <= \
                limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS"):
            return "whole"
        if (prior is None or k not in ORBIT_K or len(prior) != k or size > max(MAX_ORBIT_OUTPUTS, MAX_COARSE_SIZE)
                or not symmetric_prior(prior)):
            return None
        if size <= MAX_ORBIT_OUTPUTS and self._orbits_fit(n, k, prior, None):
            return "orbits"
        return "coarse" if self.coarse_step(n, k, spec, prior) else None

    def _orbits_fit(self, n: int, k: int, prior, outputs: int | None) -> bool:
        """Whether the LP by orbits over ``outputs`` outputs (default all of R(n)) fits the solve budget and memory."""
        return orbit_lp_seconds(n, k, symmetry_order(prior), outputs) <= limit_setting(
            "DPPOSTERIOR_MAX_SOLVE_SECONDS") and orbit_lp_bytes(n, k, outputs) <= memory_limit()

    def coarse_step(self, n: int, k: int, spec: ReleaseSpec, prior) -> int | None:
        """The step of the LP over a coarser lattice (module docstring), past the LP by orbits at k in
        :data:`ORBIT_K`, a symmetric prior with every ``a_i >= COARSE_MIN_PRIOR``, ``worst`` and eps <=
        :data:`COARSE_MAX_EPSILON`: the first of :data:`COARSE_STEPS` used at eps whose plan fits; None where none
        does or the route does not apply.  Public inputs."""
        from ..lattice.corners import symmetric_prior

        if (spec.objective != "worst" or spec.epsilon > COARSE_MAX_EPSILON or k not in ORBIT_K or len(prior) != k
                or n_candidates(n, k) > MAX_COARSE_SIZE or not symmetric_prior(prior)
                or float(prior[0]) < COARSE_MIN_PRIOR):
            return None
        for step, most in COARSE_STEPS:
            if spec.epsilon <= most and self._orbits_fit(n, k, prior, coarse_size(int(n), k, step)):
                return step
        return None

    def _lp_args(self, n: int, k: int, spec: ReleaseSpec, prior) -> tuple[bool, int]:
        """``(orbits, step)`` of :func:`_solved` on the LP's route (:meth:`lp_route`)."""
        route = self.lp_route(n, k, spec, prior)
        if route == "coarse":
            return True, int(self.coarse_step(n, k, spec, prior))
        return route == "orbits", 1

    def _lp_outputs(self, n: int, k: int, spec: ReleaseSpec, prior) -> int | None:
        """The LP's outputs on its route: None (all of R(n)) but on ``"coarse"``."""
        step = self._lp_args(n, k, spec, prior)[1]
        return coarse_size(int(n), k, step) if step > 1 else None

    def lp_seconds(self, n: int, k: int, spec: ReleaseSpec, prior=None) -> float:
        """k >= 3: estimated seconds of the linear program on its route (:meth:`lp_route`; by orbits, over all of
        R(n) or a coarser lattice, :func:`orbit_lp_seconds`, else :meth:`solve_seconds`)."""
        if self.lp_route(n, k, spec, prior) in ("orbits", "coarse"):
            return orbit_lp_seconds(n, k, symmetry_order(prior), self._lp_outputs(n, k, spec, prior))
        return self.solve_seconds(n, k, spec.objective, spec.epsilon)

    def lp_planned(self, n: int, k: int, spec: ReleaseSpec, prior=None) -> bool:
        """k >= 3: whether the linear program over all of R(n), whose table is the optimum, is the planned route
        (:meth:`lp_route` ``"whole"`` or ``"orbits"``), from public n, k, eps, objective and prior alone (no solve;
        its solver may still fail, which :meth:`uses_lattice` finds by solving).  The coarser lattice's LP is not the
        optimum: False there."""
        return self.lp_route(n, k, spec, prior) in ("whole", "orbits")

    def is_optimum(self, prior, n: int, spec: ReleaseSpec) -> bool:
        """k >= 3: whether the release is the LP's optimum (:meth:`lp_planned` and solved), not the lattice release
        nor the coarser lattice's LP; k = 2: True (geometric + remap, the optimum).  Public inputs only."""
        k = len(prior)
        return k < 3 or (self.lp_planned(n, k, spec, prior) and not self.uses_lattice(prior, n, spec))

    def uses_lattice(self, prior, n: int, spec: ReleaseSpec) -> bool:
        """k >= 3: whether the release is the lattice release with the objective's remap (docs/lattice.md) rather
        than the LP's table: the LP is over :data:`MAX_OUTPUTS`, over the time budget, or its solver did not
        reach the optimum (:class:`SolverError`, e.g. k = 3, eps = 30).  From public inputs only."""
        k = len(prior)
        if k < 3:
            return False
        route = self.lp_route(n, k, spec, prior)
        if route is None:
            return True
        self.check_distance(spec, k)
        try:
            _solved(tuple(float(x) for x in prior), int(n), spec.epsilon, spec.objective,
                    *self._lp_args(n, k, spec, prior))
        except SolverError:
            return True
        return False

    def oracle_value(self, prior, n, spec):
        """k = 2 and ``n + 1 <= MAX_OUTPUTS``: the full linear program's optimum for ``spec.objective`` (under the
        loss of ``spec.distance``)
        (:func:`solve_table`, HiGHS, before the repair's mixing): the oracle that the geometric + remap
        release (the module docstring's theorem) must match.  None elsewhere (k >= 3 *is* the LP; larger n
        is past the LP's limit)."""
        a = np.asarray(prior, dtype=np.float64)
        if a.size != 2 or int(n) + 1 > MAX_OUTPUTS or int(n) < 1:
            return None
        value = solve_table(a, int(n), spec.epsilon, spec.objective, spec.distance)[2]
        return {"objective": spec.objective, "value": float(value), "solver": "linear program (HiGHS)"}

    # -- the table -----------------------------------------------------------------------------

    def _solution(self, prior, n, spec, draw=False) -> RemapSolution:
        self.check_solve(n, 2, spec, draw=draw)
        return _remap_solved(tuple(float(x) for x in prior), int(n), spec.epsilon, spec.objective,
                             spec.distance)

    def certificate(self, prior, n: int, spec: ReleaseSpec) -> dict[str, float]:
        """k >= 3: ``{"concrete_epsilon", "mix", "lp_optimum"}`` of the repaired, certified LP table.
        k = 2: ``concrete_epsilon`` (the exact scan when the pair budget allows, ``scanned``), ``mix`` 0,
        ``lp_optimum`` (the certified optimum: ``upper`` or the Bayes risk) and, for ``worst``,
        ``lower``, ``upper``, ``gap``."""
        k = len(prior)
        if k == 2:
            sol = self._solution(prior, n, spec)
            eps_c, scanned = _scan_certificate(RemapRows(np.asarray(prior, dtype=np.float64), int(n), sol),
                                               int(n), spec.epsilon)
            out = {"concrete_epsilon": eps_c, "scanned": scanned, "mix": 0.0, "lp_optimum": sol.value}
            if spec.objective == "worst":
                out |= {"lower": sol.lower, "upper": sol.upper, "gap": sol.gap}
            return out
        if self.uses_lattice(prior, int(n), spec):
            return {"release": "lattice"} | LATTICE.certificate(prior, n, spec)
        self.check_solve(n, k, spec, prior=prior)
        orbits, step = self._lp_args(n, k, spec, prior)
        _, lam, loss, opt = _solved(tuple(float(x) for x in prior), int(n), spec.epsilon, spec.objective, orbits, step)
        if step > 1:  # the coarser lattice's LP: its optimum is no bound on the whole LP's (no ``lp_optimum``)
            return {"concrete_epsilon": loss, "mix": lam, "coarse_lp_value": opt, "output_step": step}
        return {"concrete_epsilon": loss, "mix": lam, "lp_optimum": opt}

    def rows(self, prior, n, spec):
        a = np.asarray(prior, dtype=np.float64)
        if a.size == 2:
            return RemapRows(a, int(n), self._solution(prior, n, spec))
        if self.uses_lattice(a, int(n), spec):
            return LATTICE.rows(a, n, spec)
        self.check_solve(n, a.size, spec, prior=a)
        table = _solved(tuple(float(x) for x in prior), int(n), spec.epsilon, spec.objective,
                        *self._lp_args(n, a.size, spec, a))[0]
        return OptimalRows(a, n, table)

    def plan_errors(self, prior, n: int, spec: ReleaseSpec, measure: str | None = None) -> Plan:
        """k = 2: the solved remap's risk (``"remap risk"``, O(n W), after the remap's solve); k >= 3: the linear
        program's rows where it runs (its solve, then 2 passes over R(n)^2 and its certificate's one), else the lattice
        release it is (:meth:`uses_lattice`), with the lattice release's own plan and numbers."""
        k = len(prior)
        what = self.errors_what(n, k, spec)
        if k == 2:
            try:
                self.check_distance(spec, 2)
                self.check_size(n, 2, what)
            except SizeError as exc:
                return Plan(task=Task.ERRORS, route="remap risk", what=what, refusal=str(exc))
            return risk_plan(what, n, spec.epsilon, self.solve_seconds(n, 2, spec.objective, spec.epsilon),
                             REMAP_BYTES_PER_COUNT * (n + 1))
        if self.uses_lattice(prior, n, spec):
            plan = LATTICE.plan_errors(prior, n, spec, measure)
            what = f"{what} (past its linear program: the lattice release)"
            return replace(plan, what=what, refusal=plan.refusal.replace(plan.what, what, 1))
        plan = self.rows_plan(prior, n, spec, route="rows of the linear program", passes=3,
                              solve_seconds=self.lp_seconds(n, k, spec, prior))
        if self.lp_route(n, k, spec, prior) in ("orbits", "coarse"):  # the LP's matrix before its reduction
            plan = replace(plan, memory_bytes=max(plan.memory_bytes,
                                                  orbit_lp_bytes(n, k, self._lp_outputs(n, k, spec, prior))))
        return plan

    def direct_errors(self, plan: Plan, prior, n: int, spec: ReleaseSpec, measure: str | None = None):
        """k = 2: ``E(c)`` of geometric + the solved remap, :func:`~dpposterior.remap.risk` with the loss of
        ``measure`` (default: the distance the remap was solved for, whose maximum is the certificate's ``upper``),
        O(n W), docs/definitions.md §9-§10; k >= 3 past the linear program: the lattice release's route."""
        if len(prior) != 2:
            return LATTICE.direct_errors(plan, prior, n, spec, measure)
        a = tuple(float(x) for x in prior)
        sol = self._solution(prior, n, spec)
        return rm.risk(sol.kernel, sol.remap, _loss(a, int(n), measure or spec.distance))

    def release_key(self, prior, n: int, spec: ReleaseSpec) -> tuple | None:
        """k = 2, ``average``: geometric noise and its Bayes remap (``remapped-geometric`` there is the same release);
        k >= 3 past the linear program: the lattice release's."""
        if len(prior) == 2:
            return ("geometric + Bayes remap", spec.distance) if spec.objective == Objective.AVERAGE else None
        return LATTICE.release_key(prior, n, spec) if self.uses_lattice(prior, n, spec) else None

    def working_epsilon(self, prior, n: int, spec: ReleaseSpec) -> float:
        """k >= 3 past the linear program: the lattice release's (:func:`~dpposterior.mechanisms.lattice.working_epsilon`);
        else the claimed eps (the linear program's table is solved at it)."""
        if len(prior) >= 3 and self.uses_lattice(prior, n, spec):
            return LATTICE.working_epsilon(prior, n, spec)
        return spec.epsilon

    def remap_name(self, prior, n: int, spec: ReleaseSpec) -> str | None:
        """k >= 3 past the linear program: the lattice release's remap (:meth:`LatticeMechanism.remap_name`); on the LP
        over a coarser lattice ``"coarse LP"``; else None (the linear program's table: kernel and remap solved
        together)."""
        if len(prior) >= 3 and self.uses_lattice(prior, n, spec):
            return LATTICE.remap_name(prior, n, spec)
        if len(prior) >= 3 and self.lp_route(n, len(prior), spec, prior) == "coarse":
            return "coarse LP"
        return None

    def plan_draw(self, prior, n: int, spec: ReleaseSpec) -> Plan:
        """k >= 3 past the linear program: the lattice release's draw plan (the release it is); else the entry's own
        set-up check (:meth:`Mechanism.plan_draw`), at k >= 3 with the table's solve (:meth:`lp_seconds`, held to
        the solve limit, which :meth:`lp_route` already keeps it within)."""
        if len(prior) >= 3 and self.uses_lattice(prior, n, spec):
            plan = LATTICE.plan_draw(prior, n, spec)
            what = f"{plan.what} (optimal past its linear program)"
            return replace(plan, what=what, refusal=plan.refusal.replace(plan.what, what, 1))
        plan = super().plan_draw(prior, n, spec)
        if len(prior) >= 3 and not plan.refusal:  # the table's solve (set-up, before the draws), as the route runs it
            k, solve = len(prior), self.lp_seconds(n, len(prior), spec, prior)
            memory = (orbit_lp_bytes(n, k, self._lp_outputs(n, k, spec, prior))
                      if self.lp_route(n, k, spec, prior) in ("orbits", "coarse") else plan.memory_bytes)
            plan = replace(plan, seconds=plan.seconds + solve, memory_bytes=max(plan.memory_bytes, memory),
                           costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", solve),))
        return plan

    def plan_posterior(self, prior, n: int, spec: ReleaseSpec) -> Plan:
        """k >= 3 past the linear program: the lattice release's noise-aware posterior (the release it is); else the
        entry's own (none: the exact sum over the rows)."""
        if len(prior) >= 3 and self.uses_lattice(prior, n, spec):
            plan = LATTICE.plan_posterior(prior, n, spec)
            what = plan.what.replace(LATTICE.label(spec), self.label(spec), 1)
            return replace(plan, what=what, refusal=plan.refusal.replace(plan.what, what, 1))
        return super().plan_posterior(prior, n, spec)

    def pmf_at_one_data_set(self, prior, n: int, spec: ReleaseSpec) -> bool:
        """k >= 3 past the linear program: as the lattice release (the release it is), its pmf at one data set where
        its rows over R(n) are not computed."""
        return len(prior) >= 3 and self.uses_lattice(prior, n, spec) and LATTICE.pmf_at_one_data_set(prior, n, spec)

    def check_pmf_at(self, n: int, k: int, spec: ReleaseSpec, tol: float = DEFAULT_TOL, counts=None,
                     prior=None) -> Plan:
        """The lattice release's plan of its pmf at one data set (:meth:`pmf_at_one_data_set`), admitted."""
        return LATTICE.check_pmf_at(n, k, spec, tol, counts, prior)

    def pmf_at(self, prior, counts, spec: ReleaseSpec, tol: float = DEFAULT_TOL):
        """The lattice release's pmf at one data set, with its bracket (:meth:`pmf_at_one_data_set`)."""
        return LATTICE.pmf_at(prior, counts, spec, tol)

    def local_posterior(self, plan: Plan, prior, n: int, spec: ReleaseSpec, released):
        """k >= 3 past the linear program: the lattice release's route (:meth:`plan_posterior`)."""
        if len(prior) >= 3 and self.uses_lattice(prior, n, spec):
            return LATTICE.local_posterior(plan, prior, n, spec, released)
        return super().local_posterior(plan, prior, n, spec, released)

    def log_likelihood(self, rows, released, counts):
        if isinstance(rows, RemapRows):
            return rows.column(int(np.asarray(released).reshape(-1)[0]), np.asarray(counts, dtype=np.int64)[:, 0])
        return super().log_likelihood(rows, released, counts)

    def log_likelihood_cost(self, rows):
        if isinstance(rows, RemapRows):
            return 8
        return super().log_likelihood_cost(rows)

    def set_up(self, prior, n: int, spec: ReleaseSpec) -> None:
        """k = 2: solve (and cache) the remap a draw needs, from public inputs only, before a padded release
        times its reference draws (``average`` from ``PER_Z_FROM`` on: the per-z remap with its loss tables
        built, so a draw costs one ``T(z)``); k >= 3: the lattice release's set-up where it is used, else the LP's
        table (solved and cached here, so a refusal comes before a ledger's charge and outside the timed draws)."""
        if len(prior) == 2:
            self.remap_for_draws(prior, n, spec)
        elif self.uses_lattice(prior, int(n), spec):
            LATTICE.set_up(prior, n, spec)

    def remap_for_draws(self, prior, n: int, spec: ReleaseSpec):
        """The k = 2 remap a draw uses: the cached solution, or ``T(z)`` on demand (``average``, n >= PER_Z_FROM)."""
        a = tuple(float(x) for x in prior)
        if spec.objective == "average" and n >= PER_Z_FROM:
            if spec.distance != DEFAULT_DISTANCE:  # the per-z remap is Hellinger's: another loss is solved whole
                return self._solution(prior, n, spec).remap
            self.check_distance(spec, 2)
            self.check_per_z(a, n, spec)
            return _bayes_at(a, int(n), spec.epsilon)
        return self._solution(prior, n, spec, draw=True).remap

    def sample(self, prior, counts, spec, size, rng):
        n, k = int(counts.sum()), counts.size
        if k == 2:
            T = self.remap_for_draws(prior, n, spec)
            r = rm.sample(rm.geometric_kernel(n, spec.epsilon), T, int(counts[0]), size, _bits(rng))
            return np.stack([r, n - r], axis=1)
        if self.uses_lattice(prior, n, spec):
            return LATTICE.sample(prior, counts, spec, size, rng)
        rng = _as_rng(rng)
        return _inverse_cdf(self.log_pmf(prior, counts, spec), candidates(n, k), size, rng)


# ---------------------------------------------------------------------------------------------
# remapped geometric, any k


@lru_cache(maxsize=8)
def _dense_remap(a: tuple, n: int, epsilon: float) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """k >= 3: ``(T as output ranks per input rank, ln G (c rows, z columns))`` of the remapped geometric release."""
    arr = np.asarray(a, dtype=np.float64)
    cands = candidates(n, arr.size)
    logG = clamped_log_pmf_rows(geometric_noise_tables(2.0 / epsilon, n), cands, cands)
    pi = np.exp(log_prior_predictive(arr, cands))
    H = HellingerGrid(arr, n).hellinger(cands, cands)
    S = (pi[:, None] * np.exp(logG)).T @ H  # S[z, r] = sum_c pi(c) G(z | c) H(c, r)
    T = np.argmin(S, axis=1).astype(np.int64)
    logG.setflags(write=False)
    T.setflags(write=False)
    return T, logG


class DenseRemapRows(Rows):
    """Rows ``ln P(r | c) = ln sum_{z: T(z) = r} G(z | c)`` over R(n) (k >= 3), exact in log space."""

    def __init__(self, a, n, T, logG):
        super().__init__(a, n)
        self.T, self.logG = T, logG
        self.order = np.argsort(T, kind="stable")
        self.used, self.starts = np.unique(T[self.order], return_index=True)

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        M = self.logG[candidate_rank(counts)][:, self.order]
        mx = np.maximum.reduceat(M, self.starts, axis=1)
        seg = np.repeat(np.arange(self.used.size), np.diff(np.append(self.starts, M.shape[1])))
        M -= mx[:, seg]
        out = np.full((counts.shape[0], len(self.cands)), NEVER)
        out[:, self.used] = mx + np.log(np.add.reduceat(np.exp(M), self.starts, axis=1))
        return out


class RemappedGeometricMechanism(Mechanism):
    """``geometric`` followed by the Bayes remap over R(n) under the prior predictive (module docstring)."""

    family = Family.REMAPPED_GEOMETRIC
    sampling_guarantee = "the geometric release's exact integer draw, then a deterministic look-up: total variation 0"

    def solve_seconds(self, n: int, k: int, objective: str | None = None) -> float:
        """k = 2: ``optimal~average``'s Bayes remap; k >= 3: the dense ``|R(n)|^3`` product."""
        if k == 2:
            return OPTIMAL.solve_seconds(n, 2, "average")
        return DENSE_SECONDS_PER_N3 * float(n_candidates(n, k)) ** 3

    def check_size(self, n, k, what):
        if k >= 3:  # four |R(n)|^2 tables (ln G, G, H, S)
            from ..models import check_size
            size = n_candidates(n, k)
            check_size(size * size, 4 * 8, f"{what}: the remapped geometric tables over R(n)^2 for k={k}, n={n}")
        super().check_size(n, k, what)

    def _check(self, n, k, what="the remapped geometric release", draw=False):
        self.check_size(n, k, what)
        if not (draw and k == 2 and n >= PER_Z_FROM):
            _solve_limit(self.solve_seconds(n, k), f"the remapped geometric release's Bayes remap for k={k}, n={n}")

    def check_setup(self, n, k, *, setups=1.0, what="a draw"):
        self._check(n, k, what, draw=True)

    def audit_entry_seconds(self, n, k):
        return OPTIMAL.audit_entry_seconds(n, 2) if k == 2 else 2e-6

    def setup_seconds(self, n, k):
        return 1e-4

    @staticmethod
    def _average(spec: ReleaseSpec) -> ReleaseSpec:
        return spec.averaged()

    def certificate(self, prior, n: int, spec: ReleaseSpec) -> dict[str, float]:
        """``{"concrete_epsilon", "scanned"}``: the exact scan where the pair budget allows, else eps."""
        rows = self.rows(np.asarray(prior, dtype=np.float64), int(n), spec)
        eps_c, scanned = _scan_certificate(rows, int(n), spec.epsilon)
        return {"concrete_epsilon": eps_c, "scanned": scanned}

    def rows(self, prior, n, spec):
        a = np.asarray(prior, dtype=np.float64)
        if a.size == 2:
            return OPTIMAL.rows(a, n, self._average(spec))
        self._check(n, a.size)
        T, logG = _dense_remap(tuple(a.tolist()), int(n), spec.epsilon)
        return DenseRemapRows(a, int(n), T, logG)

    def plan_errors(self, prior, n: int, spec: ReleaseSpec, measure: str | None = None) -> Plan:
        """k = 2: ``optimal~average``'s plan (the same release); k >= 3: the dense Bayes remap (its ``|R(n)|^3``
        product), then the walk over its rows."""
        if len(prior) == 2:
            return replace(OPTIMAL.plan_errors(prior, n, self._average(spec), measure),
                           what=self.errors_what(n, 2, spec))
        return self.rows_plan(prior, n, spec, route="rows of the dense remap",
                              solve_seconds=self.solve_seconds(n, len(prior)))

    def release_key(self, prior, n: int, spec: ReleaseSpec) -> tuple | None:
        """k = 2: ``optimal~average``'s (the same release)."""
        return OPTIMAL.release_key(prior, n, self._average(spec)) if len(prior) == 2 else None

    def direct_errors(self, plan: Plan, prior, n: int, spec: ReleaseSpec, measure: str | None = None):
        """k = 2: ``optimal~average``'s route."""
        return OPTIMAL.direct_errors(plan, prior, n, self._average(spec), measure)

    def log_likelihood(self, rows, released, counts):
        return OPTIMAL.log_likelihood(rows, released, counts)

    def log_likelihood_cost(self, rows):
        return OPTIMAL.log_likelihood_cost(rows)

    def set_up(self, prior, n: int, spec: ReleaseSpec) -> None:
        """k = 2: ``optimal~average``'s set-up (the same release), with its budget; k >= 3: nothing."""
        if len(prior) == 2:
            OPTIMAL.set_up(prior, n, self._average(spec))

    def sample(self, prior, counts, spec, size, rng):
        n, k = int(counts.sum()), counts.size
        if k == 2:
            return OPTIMAL.sample(prior, counts, self._average(spec), size, rng)
        self._check(n, k, draw=True)
        T, _ = _dense_remap(tuple(float(x) for x in prior), n, spec.epsilon)
        z = _GEOMETRIC.sample(prior, counts, spec, size, rng)
        return candidates(n, k)[T[candidate_rank(z)]]


_GEOMETRIC = next(m for m in CLAMPED_MECHANISMS if m.id == "geometric")

#: The registry entries (registered by :mod:`dpposterior.mechanisms.registry`).
OPTIMAL = OptimalMechanism(
    id="optimal", name="optimal (geometric + remap at k = 2, LP at k >= 3)",
    seed_name="beyond the drafts: geometric + remap (k = 2), the LP over P(r | c) (k >= 3)",
    weight_or_scale="k = 2: remap of geometric noise; k >= 3: table P(r | c) from an LP",
    guarantee=Guarantee.post_processing(
        "eps-DP: k = 2 post-processing of the geometric release (certified by the exact concrete eps where the scan "
        "budget allows); k >= 3 LP constraints over adjacent pairs, repaired and certified by the exact concrete eps",
        _GEOMETRIC.guarantee,
        proof="k = 2: the release is T(z), z the geometric release and T a remap chosen from public inputs (prior, "
              "n, eps), so it is eps-DP as z is (post-processing).  k >= 3: the LP's constraints are the eps-DP "
              "inequalities over adjacent pairs; the repaired table is certified by the exact concrete eps."),
    # k = 2 takes any distance as its remap's loss (checked nondecreasing in |r - c|); the k >= 3 linear program
    # is Hellinger's (OptimalMechanism.check_distance)
)
REMAPPED_GEOMETRIC = RemappedGeometricMechanism(
    id="remapped-geometric", name="remapped geometric (Bayes remap under the prior predictive)",
    seed_name="beyond the drafts: geometric followed by the Bayes remap over R(n)",
    weight_or_scale="1/eps (k=2), 2/eps, then a remap",
    guarantee=Guarantee.post_processing(
        "eps-DP by post-processing of the geometric release; optimal on average at k = 2, not proven optimal for "
        "k >= 3", _GEOMETRIC.guarantee,
        proof="The release is T(z), z the geometric release and T the Bayes remap computed from public inputs "
              "(prior, n, eps): post-processing keeps eps-DP."),
    # the k >= 3 dense Bayes remap is Hellinger's only (docs/mechanisms.md, "Other distances")
    distances=(DEFAULT_DISTANCE,),
)
