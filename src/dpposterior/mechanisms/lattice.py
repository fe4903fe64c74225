"""The lattice release: K-norm noise on the sum-zero lattice, then a remap for the loss (docs/lattice.md).

The release (any k >= 2)
------------------------
From the data ``c`` in R(n) draw ``z = c + w``, ``w`` on ``L_k = {w in Z^k : sum w = 0}`` with
``P(w) = e^(-eps d(w)) / Z(eps, k)``, ``d(w) = |w|_1 / 2`` the substitution distance (docs/definitions.md §1), by
the exact integer sampler :func:`dpposterior.lattice.noise.sample_noise`; then output ``r = T(z)`` in R(n), a
remap chosen from public inputs (prior, n, eps) for the objective (docs/definitions.md §9):

* ``average``: the Bayes remap ``T(z) = argmin_r sum_c pi(c) K(z | c) H(c, r)`` on the window
  ``z_i >= -W`` (:func:`~dpposterior.lattice.remap.bayes_remap`), deterministic;
* ``worst``: the minimax remap by LP with its certificate (:func:`~dpposterior.lattice.remap.minimax_remap`,
  outputs within 2 of ``project(z)`` plus the Bayes output; the certificate bounds the minimax over *all*
  remaps of this release), randomised rows.

Outside the window (probability at most ``tail = tail_bound(k, eps, W)`` for every c) the release outputs
``T(project(z))``: the row of the window point ``project(z)`` (R(n) lies in the window).  At k = 2 this makes the
``average`` release *equal* to ``optimal~average`` (geometric + Bayes remap): there ``d(w) = |w_1|`` and
``P(z | c) = (1 - x)/(1 + x) x^|z_1 - c_1|`` (``x = e^-eps``) is the clamped geometric kernel's interior; for
``z_1 <= 0`` the posterior ``pi(c) x^(c_1 - z_1)`` is the same for every such z (and for the clamped point
``z_1 = 0``), so ``T(z) = T(0)``, and symmetrically at ``n``; tested (pmfs equal within the tail bound).

A draw at large n (``average``, where the window's remap is over its fixed draw cost :data:`DENSE_DRAW_SECONDS`,
a constant of public n, k, eps) computes ``T`` at the drawn z only: the local search
:func:`~dpposterior.lattice.remap.local_bayes_search` (the data sets and outputs near ``project(z)``, work
independent of n).  It is a fixed function of z, so the release is eps-DP; its pmf is not computed (``pmf``,
``accuracy``, ``privacy`` refuse in one line at those sizes), and the tests compare it with the window's Bayes
remap where both run.  ``worst`` has no such fallback: past the minimax LP's time budget it is refused in one
line (use ``lattice~average``).

Rows and errors, with the truncation
-------------------------------------
Over the window, ``P_win(r | c) = sum_{z in window} K(z | c) T(z, r)``, and the out-of-window mass is at most
``tail`` for every c, so ``P_win(r | c) <= P(r | c) <= P_win(r | c) + tail``.  :meth:`LatticeMechanism.rows`
returns ``ln P_win`` (the lower end: each row sums to ``1 - (out-of-window mass)``, at least ``1 - tail``), so
``pmf`` prints lower ends; ``privacy``'s scan of these rows is the exact concrete eps of ``P_win``, which is
itself eps-DP term by term (the window does not depend on c); ``posterior`` and ``--noise-aware`` use them as
the likelihood.  :meth:`LatticeMechanism.direct_errors` returns the upper end ``E_win(c) + tail`` of
``E(c)`` (a loss is in [0, 1]), so no reported error is below the true one, hence never below the LP's optimum.

Privacy (proof, next to the code; Hardt and Talwar 2010, the K-norm mechanism for ``K = conv{e_i - e_j}``)
------------------------------------------------------------------------------------------------------------
``K(z | c) = e^(-eps d(z - c)) / Z`` with ``Z`` the same for every c (``L_k`` is translation invariant).  For
neighbours ``c' = c - e_i + e_j``, ``d`` is a norm on ``L_k`` (half the l1 norm) and ``d(c - c') = 1``, so
``|d(z - c) - d(z - c')| <= 1`` and ``K(z | c) <= e^eps K(z | c')`` for every z: pure eps-DP.  ``T`` (any
remap chosen without the data, deterministic or randomised, including the local search and the rule outside
the window) is post-processing: ``P(r | c) = sum_z K(z | c) T(z, r) <= e^eps P(r | c')``.  The proof of the
noise law and of the sampler's exactness: :mod:`dpposterior.lattice.noise`.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.special import logsumexp

from ..distances import DEFAULT_DISTANCE
from ..errors import InputError, SizeError
from ..lattice import search as _search
from ..lattice.batched import EXACT_SHIFT_BITS
from ..lattice.column import window_column
from ..lattice.noise import radius_for, sample_noise, sphere_count, tail_bound, window
from ..lattice.pointwise import ball_pmf
from ..lattice.remap import (
    BLOCK_ENTRIES,
    DEFAULT_TOL,
    LatticeSetup,
    Remap,
    bayes_remap,
    local_bayes_search,
    minimax_remap,
    project,
)
from ..limits import Plan, Task, admit, duration_text, limit_setting
from ..models import candidate_rank, check_size, log_prior_predictive, n_candidates
from ..validate import big_number, estimate_text
from .base import NO_ROUTE, PAIRS_PER_SECOND, Family, Guarantee, Mechanism, Objective, Rows, _bits, pure

if TYPE_CHECKING:
    from .spec import ReleaseSpec

#: ``ln P`` reported for an output the remap never produces over the window (finite, as ``optimal``'s).
NEVER = -1e300
#: Seconds of the window's Bayes remap and its errors per ``|window| |R(n)|^2`` and per ``|window| |R(n)|``
#: (measured on 2 shared cores: k = 3, n = 40, eps = 1: 2.9 s; k = 4, n = 10: 104 s; with margin).
DENSE_SECONDS = (1.5e-9, 6e-7)
#: Seconds of the minimax remap's LP as ``coef x (variables x outputs)^power``, fitted to CPU seconds measured on 2
#: shared cores at load 2-4 (2026-11-28), k = 3, eps = 1: n = 12, 16, 20, 25: 1.7, 3.2, 10.4, 119 s (the fit gives
#: 1.1, 5.0, 18, 69); checked at k = 4, n = 3: 8.8 s, and k = 3, n = 20, eps = 2: 5.9 s (benchmarks/plans.json).  The
#: earlier ``2e-5`` per (variable x output) was 10-26x above the measured seconds at n <= 20.
MINIMAX_SECONDS = (8.1e-14, 2.148)
#: Bytes of the minimax remap's LP per (variable x output) at its peak (measured, k = 3, eps = 1: n = 20, 479 MB in all;
#: n = 25, 786 MB; k = 4, n = 3: 881 MB; 2026-11-28).
MINIMAX_BYTES = 100.0
#: Outputs a minimax row may use: within this substitution distance of ``project(z)`` (plus the Bayes output).
MINIMAX_R_RADIUS = 2
#: Largest estimated cost (seconds) of the window's Bayes remap at which an ``average`` draw reads it; above it,
#: the draw runs the local search at its z (a constant: the release's law depends on public n, k, eps only).
DENSE_DRAW_SECONDS = 20.0
#: Seconds of the local search per point of its data-set ball and per box point enumerated (measured, k = 3, 4).
LOCAL_SECONDS = (3e-6, 3e-8)
#: Draws of a padded release (its reference draws, the draw and up to three draws of padding:
#: ``dpposterior.padding.RELEASE_SETUPS``), for the local search's time budget.
PADDED_DRAWS = 8.0
#: Largest |R(n)| whose exact rows the entry computes when asked by size alone (``check_size``: ``pmf``, ``accuracy``,
#: ``compare``'s rows: k = 2 up to n = 59, k = 3 up to n = 9, k = 4 up to n = 5), so that ``compare``'s budget, shared
#: by every solved row, still holds the LP and the k = 2 remaps where it held them; its draws run at any n, and
#: ``optimal`` reads the rows past it where its own LP stops (within the solve budget).
ROWS_MAX_OUTPUTS = 60
#: Seconds of :meth:`LatticeMechanism.pmf_at` per point of its ball where a draw reads the window's remap (a look-up).
BALL_SECONDS = 2e-6
#: The pmf at one data set by orbits (:meth:`LatticeMechanism.plan_pmf_at`, k >= 4, a symmetric prior): a plan counts
#: each orbit handed on (off R(n), or a count at most 1) this many times, its representative's search and the points of
#: its orbit searched again where the representative is not certified.  Measured (CPU s, Dir(1,1,1,1), eps = 1,
#: c = (25, 25, 25, 25), 2026-11-29, load ~1): tol 1e-5 / 1e-7 / 3e-8 / 1e-8 / 1e-9: 0.9 / 1.9 / 3.8 / 7.5 / 13.9 s
#: against planned 0.5 / 2.6 / 4.7 / 7.4 / 18.7 s (without orbits: 8.4 s at 1e-5, ~225 s at 1e-9).
PMF_ORBIT_HANDED = 2.0
#: Largest ball :meth:`LatticeMechanism.plan_pmf_at` lists to count its points (in R(n), next to a face, orbits); past
#: it the plan counts every point as handed on (far over the solve limit: the ball at k = 4 grows like D^3).
PMF_PLAN_POINTS = 2_000_000
#: Seconds of the exact errors of ``lattice~average`` where a draw runs the local search (k = 3,
#: :meth:`LatticeMechanism.local_errors`).  The batched local remap
#: (:func:`~dpposterior.lattice.search.local_search_many`): a constant, per (output x offset of the near ball) and per
#: window point; the offset sum (:func:`~dpposterior.lattice.search.window_errors`): per loss evaluation.  Measured on
#: the 2 shared cores, CPU seconds, Dir(1,1,1), eps = 1: at load 10-12 (docs/lattice.md) n = 300: 5.3 + 1.2, n = 1000:
#: 39.3 + 16.1; at load 5-7 (2026-11-28) n = 100: 0.6 + 0.03, n = 300: 1.8 + 0.3, n = 1000: 18.8 in all.  The
#: constants give 1.5-3x the second set (about the first), so a plan's seconds are within 2x of a loaded machine's
#: (benchmarks/plans.py).
LOCAL_SEARCH_SECONDS = (0.5, 1.5e-8, 2.5e-5)
LOCAL_SUM_SECONDS = 2.25e-8
#: The corner release's errors by orbits (:func:`orbit_route`, k = 3, a symmetric prior, one corner for three) from
#: this n: the local search one representative per orbit of R(n) (:func:`~dpposterior.lattice.search.local_search_many`,
#: which runs so at a symmetric prior at any n) planned at its table's sixth, and its near ties at the band table's
#: share.  Below it the plan is the route without orbits (an upper estimate).
ORBIT_MIN_N = 400
#: The route by orbits sums the errors at one data set per rotation class (:func:`~dpposterior.lattice.corners.
#: rotation_classes`: the release is rotation-equivariant there, its edge table built by rotations) and at the data
#: sets within the bracket's radius of a window point where it is not (the local outputs' ties off R(n), ``project``
#: breaking them by index); planned at this many of the latter (measured, Dir(1,1,1), eps = 0.5: 730 at n = 300 and 1000).
ROTATION_NEAR_ROWS = 2_000
#: A one-point search of a near tie in the batched local remap costs at most this share of :func:`local_seconds` (a
#: draw's search, which covers the whole ball): measured, Dir(1,1,1), eps = 0.5: n = 50, 3,120 of them in 11.7 CPU s;
#: n = 100, 3,147 in 15.6 s (4-5 ms each, against 39 ms for a draw's; 2026-11-28); n = 300, 4,377 of them, 37.3 CPU s for
#: the whole remap of which ~5 s the batched part (~7.3 ms each at load 12-16).  A plan of the errors counts none of
#: them (their number depends on public n, k, eps, but is known only by running: ~50 at eps = 1, n = 300, ~3,100 at
#: eps = 0.5, n = 50-100, 4,377 at n = 300), so there the plan's seconds are low; the run stays within the solve limit.
#: 0.19 (7.4 ms at eps = 0.5) lets n = 300 run (5,380 allowed; at 0.25, 4,091: refused while the whole took 37 s).
FALLBACK_SHARE = 0.19
#: Below this eps a plan of those errors counts their near ties (:func:`local_tie_seconds`; from it :func:`local_ties`,
#: below): a share ``min(1,
#: LOCAL_TIE_SHARE / sqrt(n eps))`` of the window's points, each a one-point search reading the band table
#: (:func:`~dpposterior.lattice.search.fallback_band`) at ``LOCAL_TIE_SECONDS[0] + LOCAL_TIE_SECONDS[1] x min(|ball of
#: Dc|, |R(n)|)`` (its data sets), where the band table fits (else :data:`FALLBACK_SHARE` of a draw's search).
#: Measured, Dir(1,1,1), the window's points the batched search leaves undecided (2026-11-29, load ~5): eps = 0.25,
#: n = 15, 20, 30, 50, 100, 300: 15,468 of 20,503 (0.75), 14,808 of 21,528 (0.69), 13,731 of 23,653 (0.58), 12,948 of
#: 28,203 (0.46), 13,410 of 41,328 (0.32), 22,659 of 118,828 (0.19): ``share x sqrt(n eps)`` 1.45 to 1.65; eps = 0.5,
#: n = 50, 100, 300: 0.30, 0.17, 0.056 (1.5, 1.2, 0.69); eps = 1: 0.002.  The whole errors (CPU s, ties searched):
#: eps = 0.25, n = 15, 20, 30, 50: 16.6, 14.4, 17.3, 22.0 s (at most 1.07, 0.97, 1.26, 1.70 ms a tie).  Before, no tie
#: was planned: 1.0-1.5 s planned, and the run refused after ~2-6 s at ~1,470 ties (``FALLBACK_SHARE`` of a draw's
#: 0.157 s search each: 30 ms against ~1-2 ms).
LOCAL_TIE_MAX_EPSILON = 0.5
LOCAL_TIE_SHARE = 1.7
LOCAL_TIE_SECONDS = (1.5e-3, 8e-7)
#: Where the local search hands its undecided points to the batched search (n <= ``REST_BATCH_MAX_N`` and its tables
#: fit: :func:`~dpposterior.lattice.search.batch_tables_fit`), a near tie below :data:`LOCAL_TIE_MAX_EPSILON` costs
#: ``LOCAL_TIE_BATCH_SECONDS[0] n^LOCAL_TIE_BATCH_SECONDS[1]`` (the batched search's tables are over R(n)), not a
#: one-point search.  Fitted to the whole errors' CPU s less the plan's search and sum, per planned tie, Dir(1,1,1),
#: eps = 0.25 (2026-11-30, load ~3, benchmarks/plans_fit.json): n = 20, 50, 100, 300: 0.11, 0.29, 0.68, 3.5 ms
#: (2.2e-6 n^1.3 s), taken 1.5x for a loaded machine: the plans 3.8, 9.1, 22.5, 154 s against 3.0, 5.8, 13.6, 107
#: CPU s run (before: 28.7, 36.6, 83.1, 909 s, each tie a one-point search).
LOCAL_TIE_BATCH_SECONDS = (3.3e-6, 1.3)
#: Bytes a plan of those errors adds for that batched search of the near ties (its blocks and tables): measured peaks
#: (the call's growth, the same runs) 190, 277, 438, 1,067 MB at n = 20, 50, 100, 300 against 103, 226, 434, 1,286 MB
#: planned without it.
LOCAL_TIE_BATCH_BYTES = 1.2e8
#: The near ties the batched local remap over the window hands to the one-point search (k = 3, the local errors of
#: ``average``: :meth:`LatticeMechanism._local_plan`), planned from public n, eps as ``min(|window|, A(eps) + B(eps) n)``
#: (:func:`local_ties`): ``A = TIES_A[0] (0.5 / eps)^TIES_A[1]`` up to eps = ``TIES_A[2]``, falling as
#: ``(TIES_A[2] / eps)^TIES_A[3]`` past it; ``B = TIES_B[0]`` up to eps = ``TIES_B[1]``, falling as
#: ``(TIES_B[1] / eps)^TIES_B[2]`` past it.  Counted at Dir(1,1,1) (the symmetric prior's exact ties, the most; CPU-free:
#: the batched part run, the undecided points counted, 2026-11-29): eps = 0.3: n = 20, 9,738; eps = 0.4: n = 20, 5,466;
#: n = 50, 4,872; eps = 0.5: n = 20, 3,336; n = 50, 3,120; n = 100, 3,147; n = 300, 4,377; n = 500, see
#: benchmarks/compare_h58.json; eps = 0.6: n = 50, 2,229; n = 200, 2,895; eps = 0.75: n = 50, 33; n = 200, 957; eps = 1:
#: n = 50, 0; n = 100, 24; n = 300, ~50.  The model is above each (by 1.0-1.4x where it matters: n = 300, eps = 0.5
#: plans 5,350 of the 5,390 its solve limit allows).
TIES_A = (3400.0, 2.5, 0.6, 15.0)
TIES_B = (6.5, 0.75, 11.0)
#: The same where the searches read their losses from a band table (:func:`~dpposterior.lattice.search.fallback_band`,
#: n > 511) on the corner release's route by orbits: measured 2.08 ms each (0.053 of a draw's 38.9 ms; Dir(1,1,1),
#: eps = 0.5, n = 1000, 6,714 of them in 14.0 CPU s, load ~12, 2026-11-29), 2.64 ms at n = 600 before the flat
#: gather; 1.5x the measured share, so 7,640 fit at n = 1000.
BAND_FALLBACK_SHARE = 0.08
#: The k = 3 local errors at a symmetric prior where the search hands its undecided points on one at a time (n past
#: ``REST_BATCH_MAX_N``) and eps in ``[LOCAL_TIE_MAX_EPSILON, LOCAL_ORBIT_MAX_EPSILON)`` (:func:`orbit_average`): the
#: search by orbits over the whole window, an undecided orbit searched once where its step margins certify it
#: (:func:`~dpposterior.lattice.search.orbit_threshold`), planned as ``LOCAL_ORBIT_TABLE`` times the orbit route's
#: table (:func:`local_error_seconds`, ``orbits``) and ``LOCAL_ORBIT_TIES`` times :func:`local_ties` one-point
#: searches, each at ``LOCAL_ORBIT_SEARCH`` of a draw's (:func:`local_seconds`).  Measured (CPU s of the search,
#: Dir(1,1,1), eps = 0.5, n = 1000, 2026-11-30, load ~3.8, the same outputs at all 598,965 window points): before,
#: the batched part 29.9 s and 9,105 one-point searches 20.5 s (53.0 s in all; planned 118.8, refused); after, 24 s
#: (its edge rows kept only near the points off R(n): the table's plan 21.2 s) and 1,542 representatives and 4,128
#: points searched, 6.7 s (1.2 ms each; 5,670 = 0.57 of :func:`local_ties`): 30.5 s in all, peak 1,161 -> 514 MB
#: (the whole errors: benchmarks/plans_fit.json).
LOCAL_ORBIT_MAX_EPSILON = 0.75
#: ``(below, from)``: the corner release's errors by orbits (:func:`orbit_route`) plan their local search by orbits
#: (:func:`_window_outputs` below eps 0.75, else :func:`~dpposterior.lattice.corners.corner_local_outputs`) at this
#: factor times :func:`local_error_seconds`' (``orbits``) search term, ``below`` under :data:`LOCAL_ORBIT_MAX_EPSILON`
#: and ``from`` it (:func:`orbit_search_factor`, :func:`orbit_solve_terms`): that term counts the batched search's
#: table only, not the one-point searches of the representatives it leaves undecided and of their near ties (3,354
#: of them at Dir(1,1,1), eps = 0.5, n = 1,000: 5.7 of the search's 20.3 CPU s), many below eps 0.75 and few from it,
#: where the term is 2x to 4x over its run and left as it was (``compare``'s budgets read it).  Measured (CPU s of the
#: search in the process, Dir(1,1,1), 2026-12-01, load 0.8 to 8.7, both trees, ``benchmarks/plans_h72.json``) against
#: the term: eps = 0.5, n = 500, 700, 1,000: 7.2 to 7.7, 12.4 to 12.5, 20.0 to 20.6 s against 6.5, 11.4, 21.2 s (8.5,
#: 14.8, 27.6 now); eps = 0.6, n = 500, 700, 1,000: 6.0 to 6.1, 9.9, 16.9 to 17.4 against 5.8, 10.2, 19.1 (7.6, 13.2,
#: 24.8 now); eps = 0.75, n = 1,000: 8.0 to 8.1 against 17.3; eps = 0.9, n = 1,000: 4.2 to 4.3 against 16.2.
ORBIT_SEARCH_FACTOR = (1.3, 1.0)
#: :attr:`~dpposterior.limits.Plan.shared`'s key of that search over the whole window (:func:`_window_search`)
WINDOW_SEARCH_KEY = "lattice window search"
LOCAL_ORBIT_TABLE = 1.35
LOCAL_ORBIT_TIES = 0.6
LOCAL_ORBIT_SEARCH = 0.04
#: The bracket of those errors: the kernel's mass left out of the offset sum (as the other translation routes).
LOCAL_ERROR_TOL = 1e-5
#: The noise-aware posterior's window column (:meth:`LatticeMechanism.local_posterior`): seconds of the column per
#: (data set x point mapping to the output), and of the rule per window point where a draw reads the window's remap (a
#: look-up); points mapping to one output the plan counts per data set (measured: a few dozen at the faces, one or two
#: inside).
COLUMN_SECONDS = (5e-8, 2e-6)
COLUMN_POINTS = 64
#: The column's window: its kernel tail is at most ``COLUMN_TOL / |R(n)|`` (:meth:`LatticeMechanism.column_radius`).
COLUMN_TOL = 1e-4
#: The batched local search hands to the one-point search about this share of the window's points deeper than
#: :data:`FALLBACK_DEPTH` outside R(n) (their searches walk along a face past its tables; measured k = 3, eps = 1,
#: n = 120, W = 25: 2,442 of 7,830), each at :func:`local_seconds`; the rest of the batched search is counted at
#: :data:`COLUMN_SEARCH_FACTOR` times the errors' constants (measured, CPU s on 2 shared cores at load 10-16,
#: Dir(1,1,1): n = 120, eps = 1: 15.2 s; n = 300, eps = 2: 9.3 s; n = 1000, eps = 2: 36.5 s, eps = 5: 13.9 s).
FALLBACK_DEPTH, DEEP_SHARE = 10, 0.5
COLUMN_SEARCH_FACTOR = 1.5
#: The window column's peak memory over the batched search's count (measured 826 MB at n = 1000, eps = 5).
COLUMN_MEMORY_FACTOR = 2.0
#: The local column (:meth:`LatticeMechanism._local_column`): each point of its reach region costs a constant (the
#: Python of one search) plus this share of a draw's one-point search (:func:`local_seconds`).  Fitted to the release
#: next to a vertex, the slowest case (its points off R(n) each handed to the one-point search), CPU s on the 2 shared
#: cores at load ~30 (2026-11-28, Dir(1,...,1), ``_search_points`` over the region or a sample of it): k = 3, eps = 1:
#: n = 1e3, 1.7 ms a point; n = 1e6, 2.2 ms (9.9 ms estimated for a draw); eps = 0.25: n = 1e3, 14.0 ms; n = 1e6, 14.8
#: ms (157 ms); k = 4, eps = 2, n = 1e4: 4.8 ms (69 ms); eps = 30: 2.0 ms (0.04 ms).  At the centre: 0.04 ms (k = 3,
#: n = 1e3, eps = 1, the batched table), 0.8 ms (n = 1e6).  The plan (public n, k, eps) must hold the vertex: at eps = 1
#: it gives 4.5 ms a point, 2-2.6x the measured; it was ``0.6 x local_seconds`` (6 ms, 38 s at n = 1e3, eps = 1).
LOCAL_COLUMN_POINT, LOCAL_COLUMN_SHARE = 2e-3, 0.25
#: The local column's descent filter (:func:`~dpposterior.lattice.column.descent_filter`) over the reach region: seconds
#: a point plus a share per (coordinate x radius) of its per-point sums, in log space (measured on the 2 shared cores at
#: load ~12, 2026-11-29, region enumerated and filtered, at the centre: k = 4, eps = 1, 777,961 points, 2.9 s; k = 3,
#: eps = 0.25, 100,621 points, 1.0 s (prior (0.5, 1, 3)); eps = 0.1, n = 1e6, 624,037 points, 25.8 s: the fit 1.2-2.5x
#: above each).
FILTER_SECONDS = (2e-6, 5e-8)
#: The descent filter's exact pre-filter (:func:`~dpposterior.lattice.column.descent_cut`) over the reach region:
#: seconds a point and coordinate (the projection, ``H(project(z), r)`` and the region's summary; its tables are
#: counted in it), after which the per-point test (:data:`FILTER_SECONDS`) runs only at the points at or below the cut,
#: ``CUT_FACTOR`` times :func:`~dpposterior.lattice.column.cut_estimate`'s count for a release at the centre.
#: Measured on the 2 shared cores at load ~4 (2026-11-29, CPU s, Dir(1,...,1), the release at the centre, the filter
#: less its per-point test): k = 3, n = 1e6, eps = 0.1, 624,037 points, 0.63 s (0.34 us a point and coordinate; 5,041
#: at or below the cut, estimated 5,041; the per-point test at those 0.20 s, planned 0.50 s); eps = 0.25, 100,621
#: points, 0.09 s (805 at the cut, estimated 805); k = 4, n = 1e4, eps = 1, 777,961 points, 0.35 s (0.11 us; 959, 959).
#: The fit ~1.8x above the largest.  Before the pre-filter the per-point test ran at every point: 57.2 CPU s at k = 3,
#: n = 1e6, eps = 0.1 (planned 31.3 s by :data:`FILTER_SECONDS`).
CUT_SECONDS, CUT_FACTOR = 6e-7, 2.0
#: The local column's risk filter (:func:`~dpposterior.lattice.column.risk_filter`), run first at every point of the
#: region: seconds a point and coordinate (measured on the 2 shared cores at load ~8, 2026-11-29, the centre's region:
#: k = 4, n = 100, eps = 1, 973,133 parts, 4.0 s; k = 3, n = 1000, eps = 0.1, 837,518, 1.9 s: the fit 1.5-2.5x above).
RISK_SECONDS = 2.5e-6
#: Below this eps the batched search leaves the local column's kept points of R(n) undecided (near ties), and a plan
#: counts each as a one-point search (:data:`INSIDE_SHARE`) where the centre's region reaches off R(n): measured at
#: k = 3, n = 1e3, eps = 0.1, 38 CPU ms a kept point (33,612 kept: ~21 minutes); at eps = 0.25 the batched search
#: decides them (n = 60, 120, 300 at the centre: 5.7, 2.0, 2.2 CPU s in all, release included), 2026-11-29, load ~15.
COLUMN_BATCH_MIN_EPSILON = 0.25
#: A local search at a point of R(n) away from its faces, where the batched search's tables do not fit, over a draw's
#: estimate (:func:`local_seconds`, which holds the vertex): measured at the centre of n = 1e6 (k = 3), 0.030 of it at
#: eps = 0.25 (4.8 ms), 0.045 at eps = 0.1 (44 ms), 0.092 at eps = 1 (0.9 ms).
INSIDE_SHARE = 0.15
#: The points off R(n) (or with a count below 2) the descent filter keeps for a release at the centre of R(n), over the
#: points of ``c0 + U(Dc)`` off R(n) (several z off R(n) share a projection, and the region near a face is wider than
#: ``U``): measured at k = 3, eps = 0.25, n = 500: 43,987 against 12,650 (3.5x); eps = 0.5, n = 300: 8,352 / 1,218
#: (6.9x); eps = 1, n = 60: 7,776 / 4,446 (1.75x), n = 120: 3,003 / 900 (3.3x).  Above all of them, so that a plan
#: that admits the centre's release is not refused at its column (where it is over, the window column, if it fits,
#: is the route).  Not for the corner release (``worst`` past its window), whose table holds the points near the
#: vertices: measured k = 3, eps = 1, n = 24 and 60, 3.3 and 3.6 CPU s in all.
OFF_FACTOR = 8.0
#: Bytes of the batched local search's tables past which the local column searches one point at a time (the same
#: rule as the window's undecided points, :func:`~dpposterior.lattice.search.batch_tables_fit`).
SEARCH_TABLE_BYTES = _search.SEARCH_TABLE_BYTES
#: ``worst`` reads the window's minimax remap where its LP is estimated within this many seconds (a constant, the
#: default solve limit, so the release's law depends on public n, k, eps only: where it ran before, it runs now); past
#: it, at k = 3, the corner remap (:mod:`dpposterior.lattice.corners`), at k = 4 its k >= 4 form
#: (:mod:`dpposterior.lattice.corners_any`), elsewhere the refusal as before.
WINDOW_WORST_SECONDS = 45.0
#: Seconds of the corner remap's solve: ``c0 + c1 x (LP entries)^power``, the LP's entries being the (data set x free
#: row) pairs within its radius times the outputs of a row, plus its fixed rows' batched local search at ``n_ref``
#: (:data:`LOCAL_SEARCH_SECONDS`).  Measured on the 2 shared cores at load ~16 (CPU seconds, Dir(1,1,1), n = 1000,
#: 2026-11-28): eps = 2, 1, 0.5: 0.43, 2.35, 39.5 s for 2.6e5, 1.3e6, 1.1e7 entries (the fit with 1.5x margin).
CORNER_SECONDS = (0.3, 4e-8, 1.3)
#: Seconds of the same LP at k = 3 where its corners are not apart (:func:`~dpposterior.lattice.corners.corners_apart`
#: false, eps < 1: the three corners' blocks share constraints, one LP over all three): ``c1 x (LP entries) x
#: min(constraints, cap)``, planned where it is above :data:`CORNER_SECONDS`' LP term (that fit, one corner's blocks at
#: n = 1000, is under these runs).  Measured (CPU s of ``linprog`` alone, HiGHS's interior point, Dir(1,1,1),
#: eps = 0.5, 2026-12-01, load 1.3 to 4.7, ``benchmarks/plans_h69.json``), 7.5e6 entries planned at each: n = 30, 40,
#: 50 (496, 861, 1,326 constraints: every data set of R(n)) 30.2, 42.2, 68.1 and 79.2 s; n = 70, 100, 150 (1,995 to
#: 1,998: the corners' regions almost apart) 41.4, 49.1, 50.0 s; against 34.5 s planned by :data:`CORNER_SECONDS`.
#: The time grows with the constraints while they are all of R(n) and falls back past it, so the cap is the slowest
#: run's count (n = 50): the fit 1.15x n = 50's slower run, 1.13x n = 30's, 1.8x to 2.2x from n = 70.  Not read by
#: :func:`corners_fit` (the release's law keeps the plan it was set by).
CORNER_JOINT_SECONDS = (9.2e-9, 1326)
#: The same LP where the solve first drops the constraints it proves implied
#: (:func:`~dpposterior.lattice.corners.drops_implied`, the rule the solve reads: the interior point, eps 0.5 to 0.6,
#: the constraints at least 0.49 times the free rows, n = 32 to 46; :func:`~dpposterior.lattice.corners.implied_bound`:
#: the ranges' bound and the dual bound, ~2 s of its own): the LP keeps about 500 to 520 of them whatever n, and its
#: time no longer grows with the constraints: ``c0 + c1 x (LP entries)`` in place of :data:`CORNER_JOINT_SECONDS`'
#: term, above :data:`CORNER_SECONDS`' (``corners_fit``'s, 34.3 s at eps 0.5, which stays the floor).
#: Measured (``benchmarks/corner_lp_h72.json``, Dir(1,1,1), 2026-12-01, load 5.9 to 7.3; CPU s of the corner solve
#: with the bound / of ``linprog`` alone): eps 0.5, n = 32, 35, 38, 40, 45 (42, 144, 267, 358, 591 implied): 20.7 /
#: 17.3, 27.2 / 23.0, 25.2 / 21.5, 19.8 / 15.6, 18.2 / 14.0 s; eps 0.6, n = 35 (165): 14.6 / 12.1 s.  The session ran
#: 1.6x to 1.8x faster than the one before on the same code (n = 40 with the ranges' bound alone: 23.8 s against 37.5
#: and 42.2 s, ``corner_lp_h71.json``, whose LP kept 612 constraints against 503 now), so the term is held above those
#: slower runs scaled by the constraints kept (36.2 s x 503 / 612 + 2 s for the bound = 31.8 s): eps 0.5 (7.5e6
#: entries) 34.0 s (the floor 34.3 read), eps 0.6 (5.0e6) 26.0 s.  The releases: eps 0.5 18.9 to 27.8 s against 41.0
#: planned, eps 0.6, n = 35 15.2 s against 30.1.
CORNER_IMPLIED_SECONDS = (10.0, 3.2e-6)
#: Seconds of the same LP where it is solved by the dual simplex
#: (:func:`~dpposterior.lattice.corners.joint_simplex`: more constraints than free rows), ``c0 + c1 x (LP
#: entries)^power``, planned where it is above :data:`CORNER_SECONDS`' LP term; :data:`CORNER_JOINT_SECONDS` stays
#: the plan of the interior point where it still runs (fewer constraints than free rows: eps = 0.5, n <= 45).
#: Measured (CPU s of ``linprog`` inside the release, Dir(1,1,1), 2026-12-01, load 3.8 to 5,
#: ``benchmarks/corner_lp_k3.json``; docs/lattice.md, "The three-corner LP's method"): eps = 0.5 (7.5e6 entries),
#: n = 50, 100, 150: 33.2, 26.4, 20.6 s; eps = 0.6, 0.75, n = 50 (5.0e6, 3.4e6): 19.7, 16.3 s.  The time is nearly
#: flat in the entries (~9,000 to 11,500 iterations each), hence the constant: the fit 1.11x n = 50's run at eps
#: 0.5, 1.6x and 1.8x at eps 0.6 and 0.75.  Not read by :func:`corners_fit`.
CORNER_SIMPLEX_SECONDS = (22.0, 2.0e-6, 1.0)
#: Seconds of the same LP by the dual simplex where the solve first drops the constraints it proves implied
#: (:func:`~dpposterior.lattice.corners.implied_simplex`, the rule the solve reads: eps 0.5 to 0.51, n_ref 107 to
#: where the corners are apart, n = 160 at eps 0.5; the cells the term above refused): ``c0 + c1 x (LP entries)``, the
#: dual bound's ~2 s included, in place of the term above and of :data:`CORNER_SECONDS`' (whose 34.4 s at eps 0.5 would
#: put the whole plan at 2.2x its runs).  Measured (Dir(1,1,1), eps 0.5, 7.5e6 entries, 1,521 of 1,998 constraints
#: dropped at every n, CPU s, 2026-12-01): the solve (``corners._solve`` alone, load 2 to 3.5) at n = 107, 120, 140, 160
#: 18.4, 20.1, 18.2, 18.3 s, of which ``linprog`` 10.6, 13.2, 10.0, 10.8 s (26.6 s whole at n = 120); ``accuracy
#: --objective worst`` (``benchmarks/corner_errors_h73cr.json``, load 6.2 to 7.0) 21.5 to 24.5 s against 34.5 to
#: 38.1 s planned (1.4x to 1.6x).  This term 22.0 s (1.5x to 1.8x the LP and its bound), the corner remap's 28.8 to
#: 29.1 s (1.4x to 1.6x the solve).
CORNER_SIMPLEX_IMPLIED_SECONDS = (10.0, 1.6e-6)
#: Seconds of the same LP at k = 3 where its corners are apart (:func:`_corners_joint` false) and eps < 1: a floor under
#: :data:`CORNER_SECONDS`' LP term, which is under these runs from eps ~0.6 (that fit's entries grow with the kernel's
#: radius, the LP's time here does not: every cell below solves 4,760 free-row columns against 378 to 528 data sets).
#: Measured (``benchmarks/plans_h71.json``, ``release --prior 1,1,1 --mechanism optimal --objective worst --seed 1``,
#: Dir(1,1,1), 2026-12-01, load 2.3 to 3.2, both trees; CPU s of the whole process / of ``linprog`` alone), n = 300
#: and 1,000: eps 0.6, 5.6 to 6.7 / 3.1 to 3.6 (the term 4.9 s); eps 0.75, 5.7 to 6.4 / 3.4 to 4.2 (3.0 s; 6.1 to 8.0
#: whole-process at load ~4 the round before); eps 0.9, 3.6 to 4.1 / 2.1 to 2.5 (2.0 s); and in one process, the plan
#: and the release alone (``benchmarks/plans_fit.json``, load ~4 to 5): 6.5, 6.4 and 5.1 to 5.6 s, and 8.2 at eps 0.75,
#: n = 1,000.  The padded release's plan with this floor: 10.1, 8.8 and 8.2 s, 1.1x to 2.3x the runs.  Not read by
#: :func:`corners_fit` (the release's law keeps the plan it was set by), nor from eps 1 (not measured there).
CORNER_APART_SECONDS = 6.5
#: ``(eps_from, seconds)``: from ``eps_from`` up to eps 1 the floor above is ``seconds`` (:func:`corner_apart_floor`):
#: there the LP is smaller (its kernel's radius shorter) and the release ran in 3.0 to 3.5 s (CPU s of the whole
#: process, ``benchmarks/plans_h72.json``, eps 0.9, 0.95 and 0.99, n = 300 and 1,000, both trees, load 2.9 to 4.4),
#: and 5.1 to 5.5 s in one process with its plan (``benchmarks/plans_fit.json``, eps 0.9, load 3.6 to 3.8), against
#: 8.0 to 8.2 s planned with the floor of 6.5 s (2.3x to 2.7x over); with this floor the padded release's plan is
#: 5.7 to 5.9 s.  The exact errors' plans keep the floor of 6.5 s there (``corner_seconds(high=False)``): ``compare``
#: sizes its yardstick's blocks by what its rows' plans leave of its limit, to the second, so a lower row plan would
#: move its bounds at eps 0.9 to 1, n = 400 to 1,000 (not measured here).
CORNER_APART_HIGH = (0.9, 4.2)
#: The same LP's peak bytes against :data:`CORNER_BYTES` a pair (its corners not apart, as above): the release's peak
#: RSS at n = 50 1,261 MB (1,141 MiB over the interpreter's ~120), 1.02x the 1.18e9 bytes planned before; n = 30, 100,
#: 150: 1,057 to 1,167 MB.  Not read by :func:`corners_fit`.
CORNER_JOINT_BYTES = 1.25
#: The corner release's errors at k = 3 (:meth:`LatticeMechanism._corner_plan`): its local search over the window
#: (:func:`~dpposterior.lattice.corners.corner_local_outputs`' batched search, where the release reads the local Bayes remap)
#: over :func:`local_error_seconds`' search, where it is not by orbits and its corners are apart below eps 1 (the
#: window's points its bounds leave undecided are searched again in batches, which that plan, fitted at eps 1, does not
#: count).  Measured (``accuracy --prior 1,1,1 --mechanism lattice --objective worst``, CPU s of
#: ``corner_local_outputs`` in the process, Dir(1,1,1), 2026-12-01, load 2.3 to 2.9): eps 0.5, n = 300: 8.2 and 8.4 s
#: against 5.17 planned (1.6x; the whole call 25.3 to 33.1 s against 33.1 planned, 36.7 at load ~4 the round before);
#: eps 0.75, n = 300: 4.8 against 3.39 (1.4x).  Where the corners are not apart (n <= 160 at eps 0.5) the search is
#: not measured here and the plan stays (its solve at eps 0.5, n = 100 is planned at 44.9 s of the 45 s limit).
CORNER_LOCAL_SEARCH_FACTOR = 2.0
#: The same where the dual simplex solves it (:func:`_corners_simplex`), in :func:`corner_peak_terms` (a symmetric
#: prior, eps 0.5 to 1) only: the whole release's peak RSS (``benchmarks/corner_lp_k3.json``, 2026-12-01, and
#: ``benchmarks/plans_h71.json``, load 2 to 5) eps 0.5, n = 50, 70, 100, 150: 957, 964, 958, 926 MiB; eps 0.6, n = 50
#: and 100: 693, 689; eps 0.75, n = 50 and 100: 565, 547, 20 to 25 % under the interior point's at the same cells.  The
#: plan with this factor (the LP's stage, :data:`CORNER_PEAK_BYTES`' ``base`` plus its entries): 1,277, 880 and 636 MB,
#: 1.21x, 1.16x and 1.03x the largest whole-process peak at each eps (interpreter included), where 1.25 gave 1.5x.
CORNER_SIMPLEX_BYTES = 1.05
#: Seconds per loss entry of the corner remap's edge LPs (eps < 1; ``corner_sizes``' ``edge_entries``), and per term of
#: the errors' recomputation near the edges (``corners.edge_error_terms``).  Measured on the 2 shared cores at load
#: 10-22 (CPU s, Dir(1,1,1), eps = 0.5, 2026-11-28): the three edge LPs (1.5e7 entries) 3.5 s.  The recomputation
#: (each window point's row looked up once on a grid, a one-output row read directly) at load 15-40: n = 100
#: (3.8e7 terms) 1.13 s, 13.1 s before; n = 1000 (3.75e8 terms) 20.7 s (the fit with ~2x margin over n = 1000's).
EDGE_SECONDS = 2.5e-7
EDGE_TERM_SECONDS = 1e-7
#: Bytes of the corner remap's solve per entry of its LP, at its peak (measured: eps = 0.5, 1.1e7 entries, 2.0 GB
#: before its sums ran in blocks; eps = 1: 1.3e6 entries, 316 MB, with the interpreter's ~100 MB).
CORNER_BYTES = 150.0
#: The corner remap's peak bytes at k = 3, eps 0.5 to 1, a symmetric prior, as a refusal term of its own
#: (:func:`corner_bytes` without ``law``; :func:`corners_fit`, which decides the route, keeps :data:`CORNER_BYTES` and
#: its fixed rows' table of every output of R(n_ref)): ``(base, region, search, search_n)``, the solve's stages one
#: after another (each one's temporaries freed before the next), so its peak is the largest of its region sets
#: (``region`` bytes per data set of the LP's constraints x point of the LP's ball, ``A + ball(W)`` before its union),
#: its fixed rows' batched search (``search + search_n x n_ref`` bytes per point of its near ball) and its LP (``base``
#: plus the LP's entries at :data:`CORNER_BYTES`, :data:`CORNER_JOINT_BYTES` where its corners are not apart: what
#: the earlier stages keep, HiGHS's own tables).  Measured (``benchmarks/plans_h70.json``, Dir(1,1,1), seed 1,
#: 2026-12-01, load ~3; tracemalloc for a stage's own peak, ``ru_maxrss`` for the run's): the region sets 120 bytes
#: a pair at eps 0.5 (n_ref 50, 170, 300) and 0.75 (n_ref 100 to 224), 211 to 318 MiB; the fixed rows' search 10 to
#: 41 MiB (5.9 to 10.7 KB a near point, n_ref 100 to 300); the whole release's peak RSS over the ~90 MiB at the
#: solve's entry: eps 0.5, n = 300 to 1,000, 374 MiB; eps 0.75, 219 MiB (the LP's entries 1.1e6: 204 bytes each, over
#: :data:`CORNER_BYTES`, HiGHS's tables and what the earlier stages keep); against 2.4 and 0.67 GiB planned with the
#: fixed rows' table of every output (12 bytes a pair of R(n_ref) x near ball).  The fit: ``base`` 96 MiB,
#: ``region`` 1.25x the region sets'.
CORNER_PEAK_BYTES = (96.0 * 2**20, 150.0, 8192.0, 24.0)
#: The eps from which :func:`corner_bytes` reads :data:`CORNER_PEAK_BYTES` (the measured range; below it the fixed rows'
#: table of every output is kept, not measured there).  From it ``worst`` reads the corner remap at every n
#: (:func:`corners_fit`), so a lower refusal admits no other route.
CORNER_PEAK_MIN_EPSILON = 0.5
#: The same at k = 4 (:mod:`dpposterior.lattice.corners_any`): seconds ``c0 + c1 x (LP entries)^power`` plus its fixed
#: rows' batched local search at ``n_ref`` (:func:`batched_seconds`); measured on the 2 shared cores (CPU s, Dir(1,1,1,1),
#: 2026-11-28, load 25-28): eps = 2, n = 20: 1.1 s (1.4e6 entries estimated); eps = 1, n = 20: 10.9 s (6.6e6); the fit
#: ``7e-10 x^1.5``; eps = 1 at n = 10,000 (n_ref = 88, 6.8e6 entries): 34.6 s with its fixed rows' searches, so 2x.
CORNER_SECONDS_ANY = (0.5, 1.5e-9, 1.5)
#: The same LP's seconds from eps = 1 (``c0 + c1 x (LP entries)^power``; its fixed rows' search and an edge table's
#: LPs planned beside it as above): measured with today's solve
#: (``benchmarks/worst_k4_parts.json``: CPU s of ``corner_remap_any`` at its defaults, Dir(1,1,1,1), 2026-11-30, load
#: ~4-5): eps = 1, n = 70 and 100 (n_ref 70 and 88, 6.8e6 entries planned): 9.9 and 11.7 s against 30.1 planned
#: with the constant above (fitted to 34.6 s at load 25-28 before the solve's regions went by candidates); eps = 2,
#: n = 100 (n_ref 52, 1.4e6): 1.0 s against 3.1; and (``benchmarks/corner_plans_k4.json``, load ~5) eps = 2, n = 10
#: (8.2e5 entries): 1.39 s, n = 20 (1.4e6): 0.7 s.  ``c1`` is 1.5x the fit through the large ones (6.6e-10), ``c0``
#: takes the small ones' overhead.  Refitted (``benchmarks/corner_solve_k4_from_one.json``: the same solve per eps at
#: n = 1,000, where ``n_ref`` stops growing, 2026-12-06, load 0.3): eps 1, 1.1, 1.25, 1.5, 2, 2.5, 3, 5: 7.4, 4.0, 2.3,
#: 2.0, 0.58, 0.36, 0.23, 0.15 s against 21.8, 15.5, 10.9, 7.4, 2.8, 2.0, 1.5, 1.0 planned with ``c1`` = 1e-9 (2.9x to
#: 6.7x over).  ``c1`` is now the fit through the large ones at load ~4-5 (6.6e-10, above): 16.0 s planned at eps 1
#: (2.2x the idle run, 1.4x the 11.7 s at load ~4-5), 11.5 at eps 1.1 (2.9x), 2.6 at eps 2 (4.5x, 2.6x the 1.0 s at
#: load ~4-5); ``c0`` above the small ones' overhead (eps 2, n = 10: 1.91 s planned against 1.39 s at load ~5 and
#: 1.87 s at load 4.4, ``benchmarks/small_corner_column_k4.json``).  Below eps = 1 the
#: constant above stays (:data:`CORNER_ANY_SMALL_EPS` is measured against it, and :func:`corners_fit` reads it below
#: eps 1, where the release's law must not move; from eps 1 :func:`corners_fit` does not read a plan at k = 4).
CORNER_SECONDS_ANY_FROM_ONE = (1.4, 6.5e-10, 1.5)
#: Factors on that plan's seconds and bytes below eps = 1 at k >= 4, where the fit above was not measured: the solve's
#: regions and its LP grow faster than the LP's entries as eps falls.  Measured (Dir(1,1,1,1), eps = 0.5, CPU s and
#: peak of the process, ``benchmarks/corner_solve_k4.py``, 2026-11-30 at load ~5): n = 5: 2.1 s, 249 MiB against 5.8 s
#: and 274 MiB planned; n = 10: 18.3 s (24.6 in another run; the LP 14-20 s of it, HiGHS's simplex on a dense
#: 286 x 8,476 matrix, unchanged) and 676 MiB against 24.2 s and 758 MiB; n = 20: 83.7 s, 2,215 MiB against 250 s and
#: 3.5 GiB (refused by its seconds; n = 20 now solves by orbits, :data:`CORNER_ORBIT_SECONDS`).  The regions by
#: candidates (:func:`.corners_any.regions`) took the union of the free rows' balls out (n = 10: 29.5 -> 18.3 s,
#: 1,820 -> 676 MiB, the same table), so the bytes' factor fell from 8.5; the seconds' factor stays n = 10's (the LP
#: sets it).  ``benchmarks/corner_plans_k4.json`` (2026-11-30, load ~5; growth over the interpreter): n = 5, 1.6 s,
#: 109 MiB; n = 10, 16.0 s, 593 MiB; both factors needed (``tests/library/test_corner_plans_k4.py``).
CORNER_ANY_SMALL_EPS = (8.0, 3.5)
#: The k >= 4 corner solve by orbits (:func:`~dpposterior.lattice.corners_any.corner_orbits`: a symmetric prior, no
#: edge table, past ``CORNER_ORBIT_ENTRIES``): seconds ``c0 + c1 x (LP entries)`` for its regions, its matrices and
#: HiGHS on the orbit columns, plus its fixed rows' search (:func:`face_orbit_seconds` at ``n_ref``), and bytes per
#: entry at its peak (every entry's loss and index are held before the orbit sums).  Measured (Dir(1,1,1,1), eps = 0.5,
#: n = 20, 6.6e6 entries, CPU s at load ~4, 2026-11-30): 17.7 s, of which the search 9.9-10.9 and the rest ~7; peak
#: 1,064 MiB.
CORNER_ORBIT_SECONDS = (0.5, 1.5e-6)
CORNER_ORBIT_BYTES = 200.0
#: Below this eps the k >= 4 corner remap's errors are refused by their plan: at Dir(1,1,1,1), n = 5, eps = 0.25 (under
#: the pipeline's limits) the route planned 64.5 s and 1.0 GB and its job peaked at 6.7 GB (2026-11-29); eps = 0.5 is
#: measured (n = 5: 9.1 CPU s, 1.02 GB; n = 10: 31.3 CPU s, 2.1 GB, planned 39.5 s and 1.8 GB).  That peak was the
#: solve's regions (the union of the free rows' balls, 560 x 104,223 points at W = 31): the solve alone 48.2 CPU s and
#: 6,322 MiB, by candidates (:func:`.corners_any.regions`) 17.0 s and 704 MiB, the same table
#: (``benchmarks/corner_solve_k4.json``, 2026-11-30).  The route is still refused: with it the errors took 50.9 CPU s
#: and peaked at 1,765 MiB in their offset sums, over the plan's 64.5 s / 1,023 MiB on bytes, and the solve ran 17.0 s
#: and 704 MiB against its 13.6 s / 275 MiB below eps 0.5 (``CORNER_ANY_SMALL_EPS`` is measured at eps 0.5 only).
#: With the fixed rows read off the window and the constant part off one loss table (the same table): the solve 10.5
#: CPU s and 568 MiB of growth, with the errors 38.0 s and 1,625 MiB (2026-11-30, load ~5): still over the errors'
#: plan on bytes, and admitting it would add ~38 s to the main job's ``which-to-use`` (k = 4, n = 5, eps 0.25).
CORNER_ERRORS_ANY_MIN_EPSILON = 0.5
#: The k >= 4 corner errors' rest sum over R(n) (:func:`~dpposterior.lattice.batched.window_errors_any`, where not by
#: orbits) against ``LOCAL_SUM_SECONDS`` per (data set x offset) term: measured (Dir(1,1,1,1), CPU s of the errors
#: less their search and differences, ``benchmarks/worst_k4_parts.json``, 2026-11-30, load 4.3-4.8): eps = 1, n = 70,
#: 47.2 s against 34.6; eps = 2, n = 100, 14.6 and 13.8 s against 11.4 (the whole route 18.0 and 17.4 s against 17.7
#: planned before).  An upper end of those ratios (1.36, 1.28), from eps = 1 (below it not measured, and the route's
#: plan is far above its runs there: eps = 0.5, n = 20, 37.3 s against 54.3, ``benchmarks/corner_plans_k4.json``).
CORNER_SUM_FACTOR_ANY = 1.5
#: Seconds per (table row, offset) term of the k = 4 corner errors' differences at the tables' rows
#: (:func:`~dpposterior.lattice.corners_any.corner_errors_any`, ``delta``: the rest's loss and the row's outputs of
#: positive probability, a rank read off a grid, a weighted bincount), against
#: :func:`~dpposterior.lattice.corners_any.delta_terms`' upper end.  Measured (CPU s, Dir(1,1,1,1), eps = 1, the edge
#: table by orbits, 2026-11-29, load ~12): see docs/lattice.md, "The errors by the tables' differences".
DELTA_SECONDS = 2e-7
#: Bytes per term of a block of the differences (the offsets' mask, the data sets as int64 k-vectors, their losses).
DELTA_BYTES = 128.0


def edge_data_set_count(n: int, k: int, x: int) -> int:
    """Data sets of R(n) whose second smallest count is at most ``x`` (closed form): all of R(n) less those with at
    most one count ``<= x``, i.e. every count ``> x`` or exactly one (of k, with value ``v <= x``) ``<= x``."""
    n, x = int(n), int(x)

    def above(m: int, parts: int) -> int:  # compositions of m into `parts` counts each > x
        rest = m - parts * (x + 1)
        return math.comb(rest + parts - 1, parts - 1) if rest >= 0 else 0

    one = sum(above(n - v, k - 1) for v in range(0, min(x, n) + 1))
    return math.comb(n + k - 1, k - 1) - above(n, k) - k * one


#: Seconds of the batched local search at k >= 4 (:func:`~dpposterior.lattice.batched.local_search_batch`): per entry
#: of its table (output x point of the ball of radius ``batch_radius``), and per one-point search it hands on (the z
#: off R(n), the near ties) a constant plus a share per point of the data sets' ball (``radius_for(k, eps, 1e-12)``).
#: Measured on the 2 shared cores at load 12-18 (2026-11-28, CPU s), Dir(1,1,1,1): the pmf at one data set at
#: c = (25, 25, 25, 25), eps = 1, tol 1e-5 (24,739 points, all in R(n)): 11-12 s; the window errors at n = 20, eps = 2
#: (~32,000 handed on, 21,127 ball points each): 85 s, and eps = 3 (~15,800 handed on): 27 s, so ~2.6 ms and ~1.7 ms a
#: one-point search (10-36 ms at eps = 1, 162,133 ball points).
BATCH_SECONDS = (3e-8, 1.5e-3, 7e-8)
#: Seconds of the batched local search's grouped route (:func:`~dpposterior.lattice.batched.local_search_batch`: the
#: window's points off R(n), one search per distinct positive part ``max(z, 0)``, :func:`offwindow_parts`): per part, a
#: constant plus a share per data set of its ball in R(n) (``m = min(|ball of Dc|, |R(n)|)``); its near ties (a share
#: ``min(1, TIE_SHARE / n)`` of the parts: 2,236 of 20,862 at n = 10, 2,496 of 41,302 at n = 20; exact ties between
#: permuted outputs, commoner at small n) each a one-point search of :data:`ONE_POINT_SECONDS`, and each group (a projection,
#: at most ``min(|R(n)|, parts)``) filters the whole ball once.  Measured on the 2 shared cores at load 10-12
#: (2026-11-29, CPU s, Dir(1,1,1,1), eps = 1, W = 19, ``local_search_batch`` over the window): n = 10, 20,862 parts
#: (|R(n)| = 286), 3.8 s, of which ~2.5 s its 2,236 near ties; n = 20, 41,302 parts (|R(n)| = 1,771), 12.6 s with 2,496
#: near ties.  The whole errors' plans (``benchmarks/plans.py``, k = 4) against the runs: see benchmarks/plans.json.
GROUP_SECONDS = (1e-5, 1.0e-7)
TIE_SHARE = 1.1
#: One one-point search (:func:`~dpposterior.lattice.remap.local_bayes_search`) handed on: a constant, per data set of
#: its ball in R(n) and per point of the whole ball it filters (measured 2026-11-29, Dir(1,1,1,1), n = 5: 0.9 ms at
#: eps = 1 (162,133 ball points), 7.0 ms at eps = 0.5 (1,270,345), 55 ms at eps = 0.25 (10,057,489)).
ONE_POINT_SECONDS = (3e-4, 7e-8, 5.5e-9)
#: Draws at once from which :meth:`LatticeMechanism.sample` computes the local search of all of them together
#: (:func:`~dpposterior.lattice.batched.local_search_batch`, equal outputs; measured at k = 4, eps = 1, n = 100 to 1e4,
#: 200 draws: 1.3-2.1 ms a draw against 16-17 ms one at a time); a release's draw (size 1) runs the one-point search.
BATCH_DRAWS = 32
#: Smallest eps the lattice release is built for: its window's radius grows like 1/eps (eps = 0.01: W ~ 3000).
MIN_EPSILON = 0.01


def working_epsilon(epsilon: float, k: int) -> float:
    """The eps the lattice release runs at for the claimed ``epsilon`` (docs/lattice.md, "The working eps"): at
    ``k >= 4``, the largest ``num / 2^j <= epsilon`` with ``j <= 20`` and ``num < 2^20`` (``epsilon`` itself where it
    is of that form already: 0.25, 0.5, 0.75, 1, 1.25, 2, 30, ...), unless that falls below :data:`MIN_EPSILON`; at
    ``k <= 3``, ``epsilon``.  A function of the public eps and k alone.

    Privacy: the release at ``w = working_epsilon(eps, k) <= eps`` is ``w``-DP (the module docstring's proof at
    ``w``), so eps-DP: ``e^w <= e^eps``.  The claim stays eps.  Accuracy: ``eps - w < 2^-20`` (about 1e-6) below eps
    0.5 (eps 0.4: ``w = 0.39999961853``; eps 0.1: ``w = 0.09999942779``) and ``w > eps (1 - 2^-19)`` from it, so the
    release is that of an eps smaller by at most that.  Why: at such a ``w`` every shift of a clamp group is exact at
    Dir(1, ..., 1) (:func:`~dpposterior.lattice.batched.exact_shift_weights`, the same grid), so the searches share one
    search a group (:func:`~dpposterior.lattice.batched._orbit_search`): measured at Dir(1,1,1,1), average, the
    noise-aware column at eps 0.35, 0.4 and 0.6 ran 0.17x to 0.48x of its CPU time at eps itself
    (``benchmarks/working_eps_k4.json``).  Not at k <= 3, where no route reads the clamp groups (the same outputs as
    before there).

    Computed as ``floor(eps 2^j) / 2^j`` with ``j = 20 - max(0, e)``, ``eps = m 2^e`` (``0.5 <= m < 1``,
    ``math.frexp``): ``eps 2^j = m 2^(e + j) < 2^20`` exactly when ``e + j <= 20``, so this ``j`` is the largest
    allowed, and every product and quotient by a power of two is exact.  Where eps already has that form its
    denominator divides ``2^j``, so the floor returns eps itself."""
    eps = float(epsilon)
    if int(k) < 4:
        return eps
    j = EXACT_SHIFT_BITS - max(0, math.frexp(eps)[1])
    w = math.floor(eps * 2.0**j) / 2.0**j
    return w if w >= MIN_EPSILON else eps


def working_spec(spec: ReleaseSpec, k: int) -> ReleaseSpec:
    """``spec`` at :func:`working_epsilon` (the same object where that is its eps)."""
    w = working_epsilon(spec.epsilon, k)
    return spec if w == spec.epsilon else replace(spec, privacy=replace(spec.privacy, epsilon=w))


def claimed_text(text: str, epsilon: float, working: float) -> str:
    """``text`` (a plan's words or a refusal) naming the claimed ``epsilon`` where it named the working eps
    (``eps=<working:g>``, as every message of this module writes the release's eps): ``eps=0.3 (working eps
    0.29999924)``, so a user reads the eps they asked for and the one the release runs at.  Unchanged where the two are
    equal."""
    if working == epsilon:
        return text
    import re

    said = f"eps={epsilon:g} (working eps {working:.8g})"
    return re.sub(rf"eps={re.escape(f'{working:g}')}(?![0-9.e])", lambda _: said, text)


def _at_working_epsilon(cls):
    """Every method of ``cls`` that takes a ``spec`` and a ``k``, ``prior``, ``a`` or ``counts`` runs with
    :func:`working_spec` (idempotent: a working eps is its own), so every plan, draw, pmf, error and posterior of the
    release reads one eps, whichever method a caller enters by.  What such a call returns or raises in words (a
    :class:`~dpposterior.limits.Plan`'s ``what`` and ``refusal``, an :class:`~dpposterior.errors.InputError`'s line)
    names the claimed eps beside the working one (:func:`claimed_text`)."""
    import functools
    import inspect

    def wrap(method):
        names = list(inspect.signature(method).parameters)
        where = {name: names.index(name) for name in ("spec", "k", "prior", "a", "counts") if name in names}

        def arg(name, args, kwargs):
            if name in kwargs:
                return kwargs[name]
            i = where.get(name)
            return args[i] if i is not None and i < len(args) else None

        @functools.wraps(method)
        def run(*args, **kwargs):
            spec = arg("spec", args, kwargs)
            k = arg("k", args, kwargs)
            if k is None:
                for name in ("prior", "a", "counts"):
                    value = arg(name, args, kwargs)
                    if value is not None:
                        k = np.shape(value)[-1]
                        break
            w = spec
            if spec is not None and k is not None:
                w = working_spec(spec, int(k))
                if w is not spec:
                    if "spec" in kwargs:
                        kwargs["spec"] = w
                    else:
                        args = args[:where["spec"]] + (w,) + args[where["spec"] + 1:]
            if w is spec:
                return method(*args, **kwargs)
            try:
                out = method(*args, **kwargs)
            except InputError as exc:  # its line, in place (the same exception, its type and fields kept)
                if exc.args and isinstance(exc.args[0], str):
                    exc.args = (claimed_text(exc.args[0], spec.epsilon, w.epsilon), *exc.args[1:])
                raise
            if isinstance(out, Plan):
                out = replace(out, what=claimed_text(out.what, spec.epsilon, w.epsilon),
                              refusal=claimed_text(out.refusal, spec.epsilon, w.epsilon))
            return out

        return run

    for name, value in list(vars(cls).items()):
        if inspect.isfunction(value):
            names = inspect.signature(value).parameters
            if "spec" in names and any(x in names for x in ("k", "prior", "a", "counts")):
                setattr(cls, name, wrap(value))
    return cls


def _radius(k: int, epsilon: float, tol: float) -> int:
    """:func:`~dpposterior.lattice.noise.radius_for`, refused in one line below :data:`MIN_EPSILON` (before the
    search for the radius, whose cost grows like 1/eps)."""
    if float(epsilon) < MIN_EPSILON:
        raise SizeError(f"the lattice release is built for epsilon >= {MIN_EPSILON:g}, got {float(epsilon):g} "
                        "(its window grows like 1/eps)")
    return radius_for(k, float(epsilon), tol)


def _window_size(n: int, k: int, W: int) -> int:
    return math.comb(n + k * W + k - 1, k - 1)


def dense_seconds(n: int, k: int, epsilon: float) -> float:
    """Estimated seconds of the window's Bayes remap and its exact errors, from public n, k, eps (docs/lattice.md)."""
    W = _radius(k, float(epsilon), DEFAULT_TOL)
    Z, R = float(_window_size(n, k, W)), float(n_candidates(n, k))
    return DENSE_SECONDS[0] * Z * R * R + DENSE_SECONDS[1] * Z * R


def _minimax_size(n: int, k: int, epsilon: float) -> float:
    """``(variables x outputs)`` of the minimax remap's LP: the rows near ``project(z)`` on the inner window."""
    W = _radius(k, float(epsilon), DEFAULT_TOL)
    W1 = min(W, math.ceil(8 / float(epsilon)))
    R = n_candidates(n, k)
    ball = sum(sphere_count(k, t) for t in range(MINIMAX_R_RADIUS + 1))
    return float(_window_size(n, k, W1)) * min(R, ball + 1) * R


def minimax_seconds(n: int, k: int, epsilon: float) -> float:
    """Estimated seconds of the minimax remap (its LP, the Bayes base and the certificate), from public n, k, eps: a
    power of the LP's size (:data:`MINIMAX_SECONDS`) and the window's Bayes remap."""
    coef, power = MINIMAX_SECONDS
    return coef * _minimax_size(n, k, epsilon) ** power + dense_seconds(n, k, epsilon)


def window_bytes(n: int, k: int, epsilon: float, objective: str) -> float:
    """Estimated peak bytes of the window's remap, from public n, k, eps: the ``|R(n)|^2`` losses and the window's
    kernel blocks, and for ``worst`` the minimax LP (:data:`MINIMAX_BYTES` per variable x output)."""
    W = _radius(k, float(epsilon), DEFAULT_TOL)
    Z, R = _window_size(n, k, W), n_candidates(n, k)
    base = 8.0 * (R * R + 2 * Z * R + 2 * BLOCK_ENTRIES)
    return base + (MINIMAX_BYTES * _minimax_size(n, k, epsilon) if objective == Objective.WORST else 0.0)


def local_error_seconds(n: int, k: int, epsilon: float, orbits: bool = False) -> tuple[float, float]:
    """Estimated seconds of :meth:`LatticeMechanism.local_errors` from public n, k, eps (docs/lattice.md): ``(the
    batched local remap on window(n, k, W), the offset sum over d(w) <= W)``, ``W`` the radius of the bracket.
    ``orbits``: the corner release's route by orbits (:func:`orbit_route`): the search's table at the rows one
    representative per orbit reads (a sixth of R(n), and the rows near the faces); the offset sum at one data set per
    rotation class (a third of R(n)) and the data sets near a point where the release is not rotation-equivariant
    (:data:`ROTATION_NEAR_ROWS`)."""
    from ..lattice.search import EDGE, NEAR_TAIL

    eps = float(epsilon)
    near, offsets = ball_size(k, eps, NEAR_TAIL), ball_size(k, eps, LOCAL_ERROR_TOL)
    R, Z = float(n_candidates(n, k)), float(_window_size(n, k, _radius(k, eps, LOCAL_ERROR_TOL)))
    c0, c1, c2 = LOCAL_SEARCH_SECONDS
    if orbits:
        rows = R / 6.0 + 3.0 * (EDGE + 1) * (n + 1)
        summed = min(R, R / 3.0 + ROTATION_NEAR_ROWS)
        return c0 + c1 * rows * near + c2 * Z, LOCAL_SUM_SECONDS * summed * offsets
    return c0 + c1 * R * near + c2 * Z, LOCAL_SUM_SECONDS * R * offsets


def _ties_batched(n: int, k: int, epsilon: float) -> bool:
    """Whether the local search hands its undecided points to the batched search (public n, k, eps;
    :func:`~dpposterior.lattice.search._undecided_by_one_point`)."""
    from ..lattice.search import REST_BATCH_MAX_N, batch_tables_fit

    return int(n) <= REST_BATCH_MAX_N and batch_tables_fit(int(k), int(n), float(epsilon))


def local_tie_seconds(n: int, k: int, epsilon: float, batched: bool = True) -> tuple[float, float]:
    """``(ties, seconds of one)``: the near ties a plan of :meth:`LatticeMechanism.local_errors` counts (k = 3, not by
    orbits) and the seconds of one, from public n, k, eps, each at the cost :meth:`LatticeMechanism._max_fallback`
    allows it: below :data:`LOCAL_TIE_MAX_EPSILON` a share of the window (:data:`LOCAL_TIE_SHARE`), each a point of the
    batched search where the local search hands them to it (:data:`LOCAL_TIE_BATCH_SECONDS`), else reading the band
    table where it fits (:data:`LOCAL_TIE_SECONDS`); from it :func:`local_ties`, each at :data:`FALLBACK_SHARE` of a
    draw's search.  ``batched=False``: each at the one-point price even where they go to the batched search (an
    upper end: the corner route's plan, whose admissions in the pipeline it keeps)."""
    from ..lattice.search import fallback_band

    eps = float(epsilon)
    if eps >= LOCAL_TIE_MAX_EPSILON:
        return local_ties(n, k, eps), FALLBACK_SHARE * local_seconds(k, eps)
    Dc = _radius(k, eps, 1e-12)
    if batched and _ties_batched(n, k, eps):  # handed to the batched search
        one = LOCAL_TIE_BATCH_SECONDS[0] * float(n) ** LOCAL_TIE_BATCH_SECONDS[1]
    elif fallback_band(n, eps) > 0:
        ball = float(sum(sphere_count(k, t) for t in range(Dc + 1)))
        one = LOCAL_TIE_SECONDS[0] + LOCAL_TIE_SECONDS[1] * min(ball, float(n_candidates(n, k)))
    else:
        one = FALLBACK_SHARE * local_seconds(k, eps)
    Z = float(_window_size(n, k, _radius(k, eps, LOCAL_ERROR_TOL)))
    return min(1.0, LOCAL_TIE_SHARE / math.sqrt(max(1, int(n)) * eps)) * Z, one


def orbit_average(n: int, k: int, epsilon: float, symmetric: bool) -> bool:
    """Whether the plan of the k = 3 local errors (``average``) is the search by orbits with its undecided orbits
    certified by one search (:data:`LOCAL_ORBIT_TABLE`, public inputs): k = 3, a ``symmetric`` prior, the undecided
    points searched one at a time (not :func:`_ties_batched`) and ``LOCAL_TIE_MAX_EPSILON <= eps <
    LOCAL_ORBIT_MAX_EPSILON``."""
    eps = float(epsilon)
    return (int(k) == 3 and bool(symmetric) and not _ties_batched(n, k, eps)
            and LOCAL_TIE_MAX_EPSILON <= eps < LOCAL_ORBIT_MAX_EPSILON)


def orbit_average_seconds(n: int, k: int, epsilon: float) -> tuple[float, float, float]:
    """``(the batched search by orbits, its one-point searches, the seconds of one)`` of :func:`orbit_average`'s
    route, from public n, k, eps (:data:`LOCAL_ORBIT_TABLE`, :data:`LOCAL_ORBIT_TIES`, :data:`LOCAL_ORBIT_SEARCH`)."""
    eps = float(epsilon)
    table = LOCAL_ORBIT_TABLE * local_error_seconds(n, k, eps, orbits=True)[0]
    return table, LOCAL_ORBIT_TIES * local_ties(n, k, eps), LOCAL_ORBIT_SEARCH * local_seconds(k, eps)


def orbit_search_factor(epsilon: float) -> float:
    """The factor on the planned search of the corner release's errors by orbits (:data:`ORBIT_SEARCH_FACTOR`, public
    eps)."""
    below, above = ORBIT_SEARCH_FACTOR
    return below if float(epsilon) < LOCAL_ORBIT_MAX_EPSILON else above


def orbit_solve_terms(n: int, k: int, epsilon: float, symmetric: bool) -> tuple[float, float]:
    """``(its local search, the corner remap)``: the two terms of the solve of the corner release's errors by orbits
    (:func:`orbit_route`), from public n, k, eps.  The search is :func:`orbit_search_factor` times
    :func:`local_error_seconds`' (``orbits``) search term; where that adds to the term (below eps 0.75), the corner
    remap's term (:func:`corner_seconds`, 2.4x to 2.6x its run there: 5.1 to 5.7 CPU s against 13.8 at eps 0.5,
    3.8 against 9.9 at eps 0.6, n = 500 to 1,000, ``benchmarks/plans_h72.json``) gives up as much, so that the
    solve's plan (their sum, which the solve limit and ``compare``'s total read) is as before and each term is above
    its stage's runs."""
    table = local_error_seconds(n, k, epsilon, True)[0]
    corner = corner_seconds(n, k, epsilon, symmetric, high=False)
    search = orbit_search_factor(epsilon) * table
    return search, corner - max(0.0, search - table)


def orbit_route(n: int, k: int, epsilon: float, symmetric: bool) -> bool:
    """Whether the corner release's exact errors take the route by orbits (``"corner remap, by orbits"``, from
    public inputs): k = 3, a symmetric prior, one corner solved for three and ``n >=`` :data:`ORBIT_MIN_N`: the
    local search one representative per orbit (:func:`~dpposterior.lattice.search.local_search_many`), its near ties
    by the band table (planned at :data:`BAND_FALLBACK_SHARE`)."""
    return (int(k) == 3 and bool(symmetric) and int(n) >= ORBIT_MIN_N
            and corner_plan_sizes(int(n), int(k), float(epsilon), True).get("corners_solved") == 1)


def batched_seconds(k: int, epsilon: float, inside: float, handed: float) -> tuple[float, float]:
    """Estimated seconds of :func:`~dpposterior.lattice.batched.local_search_batch` over ``inside`` points of R(n),
    ``handed`` of all its points handed to the one-point search, from those counts and k, eps: ``(its table, the
    one-point searches)`` (:data:`BATCH_SECONDS`; the table's outputs are about the points in R(n) and their
    neighbours).  A plan counts as handed on the points off R(n) and those of R(n) with a count at most 1 (the near
    ties measured were there: on a face, or one step from it)."""
    from ..lattice.batched import batch_radius

    eps = float(epsilon)
    V = sum(sphere_count(k, t) for t in range(batch_radius(k, eps) + 1))
    Dc = sum(sphere_count(k, t) for t in range(_radius(k, eps, 1e-12) + 1))
    return BATCH_SECONDS[0] * 1.2 * inside * V, handed * (BATCH_SECONDS[1] + BATCH_SECONDS[2] * Dc)


#: The corner route's search over R(n) (k >= 4) leaves to its grouped route only points with exactly one zero count
#: (on a face): measured at Dir(1,1,1,1) (2026-11-29, ``local_search_batch`` over R(n) or over its face points), every
#: point it left had one zero count, 300 of R(20)'s 684 face points and 3,204 of R(50)'s 4,704 at eps = 1, 396 of 684 at
#: eps = 0.5, none at eps = 1.5 (n = 50, 100), 2 (n = 50, 100, 200), 3 and 4; what decides it is the table's tail term
#: ``tail_bound(k, eps, rho - 1)`` (3.7e-4 at eps = 1, 4.7e-4 at 0.5, 1.1e-4 at 1.5, 3.1e-5 at 2).  A plan counts the
#: share ``min(1, (tail / FACE_TAIL)^2)`` of the face points as left (an upper envelope of those runs: 1 at eps <= 1, and
#: falling faster than the tail, as none was left at eps >= 1.5 at any n measured).  Below
#: :data:`FACE_MIN_EPSILON` the table leaves points inside R(n) too (eps = 0.5: 740 of R(20), 226 with no zero count;
#: 3,000 of R(30)), and a plan counts every point of R(n).
FACE_TAIL = 3.5e-4
FACE_MIN_EPSILON = 1.0
#: Seconds of one face point in the grouped route, as a multiple of :func:`one_point_seconds` (its data sets are the
#: one-point search's ball in R(n), each point its own group): measured (CPU s, load ~10, 2026-11-29, 200 face points
#: each) 1.7, 7.6, 17.1 ms at eps = 1, n = 20, 50, 100; 1.8 ms at eps = 2, n = 100; 23.5 ms at eps = 0.5, n = 50, against
#: ``one_point_seconds`` 1.3, 2.8, 12.5, 1.9 and 8.9 ms (ratios 0.95 to 2.7).
FACE_FACTOR = 3.0


def low_count_points(n: int, k: int) -> float:
    """Points of R(n) with a count at most 1 (closed form: all of R(n) but those with every count >= 2)."""
    rows = float(n_candidates(n, k))
    return rows - math.comb(n - 2 * k + k - 1, k - 1) if n >= 2 * k else rows


def face_points(n: int, k: int) -> int:
    """Points of R(n) with exactly one zero count (closed form: the zero's place, then ``k - 1`` positive counts)."""
    return int(k) * math.comb(int(n) - 1, int(k) - 2) if int(n) >= int(k) - 1 else 0


def face_seconds(n: int, k: int, epsilon: float) -> float:
    """Estimated seconds of the points the corner route's search over R(n) leaves to its grouped route (their near
    ties handed to the one-point search included), from public n, k, eps (:data:`FACE_TAIL`, :data:`FACE_FACTOR`,
    :data:`FACE_MIN_EPSILON`): a share of the face points, or below ``FACE_MIN_EPSILON`` every point of R(n)."""
    from ..lattice.batched import batch_radius

    eps = float(epsilon)
    if eps < FACE_MIN_EPSILON:
        return float(n_candidates(n, k)) * FACE_FACTOR * one_point_seconds(n, k, eps)
    share = min(1.0, (tail_bound(k, eps, batch_radius(k, eps) - 1) / FACE_TAIL) ** 2)
    return face_points(n, k) * share * FACE_FACTOR * one_point_seconds(n, k, eps)


#: At a symmetric prior the worst route's search over R(n) (k >= 4) runs one point per orbit of the categories'
#: permutations (:func:`~dpposterior.lattice.batched._orbit_search`, the same outputs): its table over
#: ``ORBIT_SHARE[0] / k!`` of R(n), its grouped route over that share of the face points :func:`face_seconds` counts,
#: and the points of the orbits whose representative is not certified (near or exact ties: two equal counts) searched
#: again point by point, each a face point in the grouped route and a one-point search.  Those points grow like n (the
#: points with two equal counts) at eps >= :data:`FACE_MIN_EPSILON`, faster below; a plan counts ``FACE_LEFT[0] n`` of
#: them, below ``FACE_MIN_EPSILON`` ``FACE_LEFT[1] n^1.5`` (each at most |R(n)|).  Measured (Dir(1,1,1,1), 2026-11-29,
#: ``local_search_batch`` over R(n) with ``orbits``; points left / face points / R(n), CPU s at load ~15): eps = 1,
#: n = 16: 24 / 420 / 969; n = 20: 36 / 684 / 1,771, 0.35 s; n = 30: 52 / 1,624 / 5,456, 0.74 s; n = 50: 96 / 4,704 /
#: 23,426, 2.3 s (30.4 s without orbits, 1,154 orbits); n = 100: 192 / 19,404 / 176,851, 13.1 s (8,037 orbits);
#: eps = 0.5, n = 10: 98 / 144 / 286; n = 20: 272 / 684 / 1,771,
#: 7.5 s; eps = 2, n = 20: none.
FACE_LEFT = (2.5, 4.0)


def face_orbit_seconds(n: int, k: int, epsilon: float) -> tuple[float, float]:
    """Estimated seconds of the worst route's search over R(n) by orbits (a symmetric prior, k >= 4), from public n,
    k, eps: ``(its table, the face points' grouped route and the points searched again)`` (:data:`FACE_LEFT`)."""
    share = min(1.0, ORBIT_SHARE[0] / math.factorial(int(k)))
    rows = float(n_candidates(n, k))
    table, _ = batched_seconds(k, float(epsilon), share * rows, 0.0)
    left = FACE_LEFT[0] * n if float(epsilon) >= FACE_MIN_EPSILON else FACE_LEFT[1] * float(n) ** 1.5
    one = one_point_seconds(n, k, epsilon)
    handed = share * face_seconds(n, k, epsilon) + min(rows, left) * (FACE_FACTOR + 1.0) * one
    if float(epsilon) >= FACE_MIN_EPSILON and int(n) >= FACE_ORBIT_MOST_MIN_N:  # at most c n^p in all
        c, p = FACE_ORBIT_MOST
        handed = min(handed, max(0.0, c * float(n) ** p - table))
    return table, handed


#: From :data:`FACE_MIN_EPSILON` the search by orbits (:func:`face_orbit_seconds`) is planned at most at
#: ``FACE_ORBIT_MOST = (c, p)``: ``c x n^p`` seconds in all (its table and the points it hands on; ``k = 4``), where the
#: sum of its parts' estimates is above that.  Measured (Dir(1,1,1,1), eps = 1, the search over R(n) by orbits alone,
#: ``corners_any.rest_window_outputs``, CPU s, 2026-11-30): n = 70, 9.1 and 11.0 s (load ~3.5-4,
#: ``benchmarks/corner_orbit_sums_k4.json``), 10.6 s (load ~4.3, ``benchmarks/worst_k4_parts.json``); n = 100, 22.9
#: and 24.0 s, 25.9 s (load ~3.8).  Between them the runs grow like n^2.4, not n^3: ``c`` is 1.3x n = 70's largest
#: run over 70^2.5, so 14.3 s planned at n = 70 and 35.0 at n = 100 (1.35x its largest run), where ``4.2e-5 n^3``
#: planned 14.4 and 42.0 (63.1 by its parts, whose face points' share grows like n^4).
FACE_ORBIT_MOST = (3.5e-4, 2.5)
#: ... from this n (where it was measured; below it the parts' sum, as before).
FACE_ORBIT_MOST_MIN_N = 70
#: Seconds of the corner errors' rest sum by orbits (:func:`~dpposterior.lattice.corners_any.orbit_rest_errors`, where
#: :func:`~dpposterior.lattice.corners_any.orbit_sum`): per (sorted data set x offset) term, per term at the
#: non-equivariant points, per window point (the orbit check); and those terms' count as ``ORBIT_BROKEN_TERMS x
#: n^1.5 x |ball|`` (counted at Dir(1,1,1,1), eps = 1: 4.5, 4.9, 4.4 at n = 20, 70, 100).  Measured (CPU s at load
#: ~3.5, 2026-11-30): n = 100, 1.99e8 + 1.09e8 terms, 23.8-24.6 s (the sum over R(n) it replaces: 72.9 s in the same
#: run); n = 70, 7.2e7 + 7.0e7, 11.2 s.
ORBIT_SUM_SECONDS = (7e-8, 1.5e-7, 2e-6)
ORBIT_BROKEN_TERMS = 5.5


#: Bytes per window point and category of the rest sum by orbits beyond the sum's own (its sorted copies, permutations
#: and orbit ids: ~6 int64 arrays of the window's shape; measured: see :data:`ORBIT_SUM_SECONDS`).
ORBIT_SUM_BYTES = 48.0


def orbit_sum_seconds(n: int, k: int, epsilon: float, We: int) -> float:
    """Estimated seconds of the corner errors' rest sum by orbits from public n, k, eps, ``We``
    (:data:`ORBIT_SUM_SECONDS`)."""
    from ..lattice.corners_any import sorted_data_sets

    offsets = float(sum(sphere_count(k, t) for t in range(int(We) + 1)))
    rows = float(n_candidates(n, k))
    broken = min(rows, ORBIT_BROKEN_TERMS * float(n) ** 1.5) * offsets
    c0, c1, c2 = ORBIT_SUM_SECONDS
    return c0 * sorted_data_sets(n, k) * offsets + c1 * broken + c2 * float(_window_size(n, k, int(We)))


def offwindow_parts(n: int, k: int, W: int) -> int:
    """Distinct positive parts ``y = max(z, 0)`` of the points ``z`` of ``window(n, k, W)`` off R(n) (closed form):
    ``y`` has ``j >= 1`` zero counts (those where ``z_i`` is in ``[-W, 0]``) and ``k - j`` positive ones summing to
    ``n + e``, ``e`` (the excess, ``-sum`` of the negative counts) in ``1..j W``."""
    n, k, W = int(n), int(k), int(W)
    return sum(math.comb(k, j) * math.comb(n + e - 1, k - j - 1) for j in range(1, k) for e in range(1, j * W + 1))


def one_point_seconds(n: int, k: int, epsilon: float) -> float:
    """Estimated seconds of one one-point search the batched local search hands on (:data:`ONE_POINT_SECONDS`)."""
    ball = float(sum(sphere_count(k, t) for t in range(_radius(k, float(epsilon), 1e-12) + 1)))
    c0, c1, c2 = ONE_POINT_SECONDS
    return c0 + c1 * min(ball, float(n_candidates(n, k))) + c2 * ball


def grouped_seconds(n: int, k: int, epsilon: float, W: int, more: float = 0.0) -> float:
    """Estimated seconds of the batched local search's grouped route over ``window(n, k, W)``'s points off R(n) and
    ``more`` points of R(n), its near ties included (:data:`GROUP_SECONDS`), from public n, k, eps, W."""
    ball = float(sum(sphere_count(k, t) for t in range(_radius(k, float(epsilon), 1e-12) + 1)))
    rows = float(n_candidates(n, k))
    parts = offwindow_parts(n, k, W) + float(more)
    return (parts * (GROUP_SECONDS[0] + GROUP_SECONDS[1] * min(ball, rows))
            + tie_share(n) * parts * one_point_seconds(n, k, epsilon) + min(rows, parts) * ONE_POINT_SECONDS[2] * ball)


#: At a symmetric prior the batched errors search one point per orbit under the permutations of the categories
#: (:func:`~dpposterior.lattice.batched.local_search_batch` with ``orbits``).  A plan counts ``ORBIT_SHARE[0] / k!``
#: of the window's points as searched (measured at k = 4, Dir(1,1,1,1), eps = 1: 7,153 orbits of 156,849 points at
#: n = 20, 15,609 of 349,504 at n = 50: ~1/22), the near ties as :func:`tie_orbit_share` of the positive parts
#: (orbits not certified, each point a one-point search: 2,236 of 20,862 at n = 10, 2,496 of 41,302 at n = 20, 6,196
#: of 147,022 at n = 50; eps = 2: 888 of 13,242 at n = 20, 2,332 of 58,062 at n = 50), and ``ORBIT_SHARE[2]`` points
#: searched again (the grouped route) per near tie (8,696 for 2,496 at n = 20, 17,892 for 6,196 at n = 50).  Each
#: point searched costs ``ORBIT_PART[0] + ORBIT_PART[1] x`` its data sets (``min(|ball of Dc|, |R(n)|)``), fitted
#: with the one-point searches' :data:`ONE_POINT_SECONDS` to CPU s on the 2 shared cores at load 12-15 (2026-11-29,
#: the searches alone, the orbits / the points searched again / the near ties): n = 20, eps = 1: 0.58 / 0.70 / 3.1 s;
#: n = 50, eps = 2: 1.27 / 1.24 / 2.7 s; n = 50, eps = 1: see docs/lattice.md.
ORBIT_SHARE = (1.5, 0.75, 3.5)
ORBIT_PART = (3e-5, 3e-8)
#: The near ties' share of the positive parts (:func:`tie_orbit_share`) falls like ``n^-ORBIT_TIE_POWER``, and below
#: eps = 1 it is larger by ``(1 / eps)^ORBIT_TIE_EPS_POWER`` (the certificate's tail is wider there).  An upper envelope
#: of the counts of this route's runs (``local_search_batch(..., orbits=True)`` over the window, Dir(1,1,1,1),
#: 2026-11-29, near ties / the plan's positive parts; benchmarks/average_k4_plan.json): eps = 1, n = 10, 20, 30, 50:
#: 2,236 / 21,138, 2,496 / 42,318, 3,700 / 71,898, 6,196 / 156,258 (planned 2,819, 3,356, 4,207, 6,234); eps = 2,
#: n = 20, 50, 100: 888 / 14,558, 2,332 / 67,298, 4,888 / 243,198 (planned 1,154, 2,684, 5,767); eps = 0.5, n = 3, 5,
#: 10, 20: 17,998 / 57,518, 58,706 / 64,806, 29,660 / 85,746, 36,542 / 139,326 (planned every part at n = 3 and 5,
#: 54,399, 52,558).  Not measured below eps = 0.5.  ``0.35 / sqrt(n)``, each near tie a one-point search, was 1.2-1.7x
#: above the counts at eps >= 1 and below them at eps = 0.5, where the one-point searches' cost made the plan 2.6-21x
#: the run all the same.
ORBIT_TIE_POWER = 0.75
ORBIT_TIE_EPS_POWER = 2.25
#: Seconds of one near tie of the search by orbits beyond its point's search (``ORBIT_PART``): the grouped route's
#: exact steps (:func:`~dpposterior.lattice.batched._grouped_search`: the one-point search's kept set, a sort of its
#: data sets, and its product at each open step), a constant plus a share per data set (``min(|ball of Dc| / 2,
#: |R(n)|)``, as ``ORBIT_PART``).  The share fitted to CPU s on the 2 shared cores at load 9-13 (2026-11-29,
#: Dir(1,1,1,1), the points searched again and their near ties together against ``ORBIT_SHARE``'s counts): n = 50,
#: eps = 1, 26.6 s (17,736 points, 6,196 near ties; the exact steps ~7.5 s of it, profiled); eps = 2, 2.7 s (4,580
#: points, 2,332 near ties); before, each near tie a one-point search (:data:`ONE_POINT_SECONDS`): 41.3 s at n = 50,
#: eps = 1.  The constant from the run with the most near ties per data set: n = 5, eps = 0.5, 58,706 near ties of
#: 64,806 parts, the whole search 18.6 CPU s at load ~18 (planned 20.5 s).
#: Since the kept set is found by a sort of the values (:func:`~dpposterior.lattice.batched._kept`) and the grouped
#: route keeps its sums across steps, the constant is 1.2e-4 (the n = 10, eps = 0.5 errors: 7.67 CPU s at load ~3.9
#: against 9.35 before, planned 17.9; benchmarks/plans_fit.json).
EXACT_TIE_SECONDS = (1.2e-4, 4e-8)
#: Past ``ORBIT_NEAR_KNEE`` data sets a search (``near`` of :func:`orbit_seconds`), its per-data-set terms
#: (``ORBIT_PART[1]``, ``EXACT_TIE_SECONDS[1]``, ``ONE_POINT_SECONDS[2]``) grow by ``(near / ORBIT_NEAR_KNEE) ^
#: ORBIT_NEAR_POWER`` (the searches' arrays leave the caches): fitted to the search's CPU s (``local_search_batch``
#: with ``orbits`` over the window, Dir(1,1,1,1), benchmarks/plans_fit.json and average_k4_plan.json) over the plan's
#: per-data-set terms: 0.77-1.11 at 1,771 data sets (n = 20, eps 0.5, 1, 2), 1.02 at 5,456 (n = 30, eps = 1), 1.17
#: at 10,564 (n = 50, eps = 2), 1.43 at 23,426 (n = 50, eps = 1: 55.3 s run at load ~5 against 39.6 planned before;
#: ~83 s for the whole errors at load ~15); the fit gives 1.34 and 1.70 there, an upper end for a loaded machine.
#: Since the grouped route writes its loss rows in place (:func:`~dpposterior.lattice.batched._loss_rows`), the n =
#: 50, eps = 1 errors ran in 52.4 CPU s at load ~5 and 47.5 at load ~1 (63.6 before; plans_fit.json), 0.90-1.00 of
#: the plan's terms without the growth (52.6 s): kept as the margin of a loaded machine.  Since the grouped route keeps
#: its sums across steps and finds the kept set by a value sort (:func:`~dpposterior.lattice.batched._kept`), the same
#: errors ran side by side with the code before (CPU s, load ~3.8, benchmarks/average_k4_search_side.json): n = 50,
#: eps = 1, 54.2 -> 45.1; eps = 2, 5.9 -> 5.4; n = 100, eps = 2, 24.5 -> 22.6; n = 20, eps = 1, 3.3 -> 2.8.  The
#: growth is now 0.05 (1.09 at 23,426 data sets): the n = 50, eps = 1 plan 56.0 s (43.0 s of search) against 45.1 run.
ORBIT_NEAR_KNEE = 4000.0
ORBIT_NEAR_POWER = 0.05


#: Copies of the window's points (k int64 each) a plan of the k >= 4 average errors counts (the search by orbits holds
#: its points, their canonical forms, outputs and orbit indices at once): the calls' peak growth was 14-27 such copies
#: (Dir(1,1,1,1), benchmarks/plans_fit.json: n = 10, 20 at eps 0.5, 1, 2, n = 50 at eps 1, 2; 303 MB at n = 50, eps = 1
#: and 383 MB at n = 20, eps = 0.5 against 134 and 198 MB planned with 2 copies).
BATCH_WINDOW_COPIES = 20.0


def near_factor(near: float) -> float:
    """The growth of a search's per-data-set cost with its ``near`` data sets (:data:`ORBIT_NEAR_KNEE`)."""
    return max(1.0, float(near) / ORBIT_NEAR_KNEE) ** ORBIT_NEAR_POWER


def tie_orbit_share(n: int, epsilon: float) -> float:
    """The share of the positive parts a plan of the search by orbits counts as near ties, from public n, eps
    (:data:`ORBIT_TIE_POWER`): ``ORBIT_SHARE[1] n^-ORBIT_TIE_POWER max(1, 1 / eps)^ORBIT_TIE_EPS_POWER``, at most 1."""
    grow = max(1.0, 1.0 / float(epsilon)) ** ORBIT_TIE_EPS_POWER
    return min(1.0, ORBIT_SHARE[1] * grow / max(1, int(n)) ** ORBIT_TIE_POWER)


#: Where every shift of a clamp group is exact (:func:`~dpposterior.lattice.batched.exact_shift_weights`: Dir(1, ...,
#: 1) at a working eps), the search by orbits searches one point per uncertified clamp group, not every point of an
#: uncertified orbit (:func:`~dpposterior.lattice.batched._orbit_search`), so it runs well under the terms of
#: :func:`orbit_seconds`, which were fitted before that: those terms times ``factor`` at eps below ``upto`` (the
#: first pair whose ``upto`` exceeds eps).  Fitted to the search's CPU s on the 2 shared cores at load 1.3 to 1.8
#: (2026-12-07, Dir(1,1,1,1), ``local_search_batch(..., orbits=True)`` over the window, each point in its own process;
#: benchmarks/average_k4_plan_exact.json), the terms over the run: 7.0 to 7.6 at eps 0.5 (n = 10 to 40), 7.6 to 17 at
#: eps 0.25 (n = 10 to 20), 3.4 to 4.2 at eps 0.75 to 2 (n = 20 to 60; 2.0 at n = 20, eps 2, a 0.38 s search).  With
#: the factors the plan is 1.75x to 1.91x the run at eps 0.5 and 2.0x to 2.5x from eps 0.75 (1.2x at n = 20, eps 2):
#: within 2x of a host about twice as loaded too (at load 16 to 20 the same search ran 3.7x the CPU s:
#: docs/lattice.md).  The whole calls are held to it in benchmarks/plans_fit.json.  Below eps 0.5 the terms are kept
#: (factor 1): there the search needs 2.7 GB (n = 10 and 12, eps 0.25, against 3.5 GB planned), over the 2 GB a
#: ``compare`` call is held to, and where it would newly fit (n <= 12) the LP by orbits, the optimum, runs; with 0.25
#: ``compare`` at n = 12, eps 0.25 showed 4 rows against 17, at 2.8 GB (benchmarks/compare_orbit_exact_k4.json).
#: Other symmetric priors keep the terms (Dir(2,2,2,2), n = 20, eps 0.5: 9.7 s against 38.7 planned).
ORBIT_EXACT_SHIFT_FACTOR = ((0.5, 1.0), (0.75, 0.25), (math.inf, 0.6))
#: The corner release at k = 4 prices its search by orbits over R(n) at :func:`exact_shift_factor` at eps up to this,
#: where it was measured (Dir(1,1,1,1); docs/lattice.md, the sections on ``exact_shift_factor`` and
#: ``corner_search_factor``): in its errors (:meth:`LatticeMechanism._corner_plan_any`: the rest's search,
#: :func:`face_orbit_seconds`, and the corner solve's fixed rows; the whole errors at 1.4x to 1.65x under the plan at eps
#: 0.5, n = 20 to 26, 1.5x to 1.64x at eps 0.6, n = 26 to 30, 2.0x to 2.4x at eps 0.75, n = 34 to 42), and wherever a
#: draw's plan or the noise-aware column's counts the solve (:func:`corner_solve_seconds`; the solve alone at 1.67x to
#: 3.1x under it, eps 0.5 to 0.75).
CORNER_EXACT_SHIFT_MAX_EPSILON = 0.75


def exact_shift_factor(epsilon: float, exact: bool) -> float:
    """The factor :func:`orbit_seconds` puts on its terms (:data:`ORBIT_EXACT_SHIFT_FACTOR`; 1 where ``exact`` is
    False, the shifts of a clamp group not exact)."""
    if not exact:
        return 1.0
    return next(factor for upto, factor in ORBIT_EXACT_SHIFT_FACTOR if float(epsilon) < upto)


def corner_exact_factor(epsilon: float, symmetric: bool, exact: bool) -> float:
    """The factor on the corner release's search by orbits over R(n): :func:`exact_shift_factor` where the prior is
    ``symmetric``, every clamp group's shifts are ``exact`` (:func:`exact_shifts`) and eps is at most
    :data:`CORNER_EXACT_SHIFT_MAX_EPSILON`; else 1.  The one rule the errors' plan
    (:meth:`LatticeMechanism._corner_plan_any`) and :func:`corner_search_factor` read."""
    eps = float(epsilon)
    return exact_shift_factor(eps, symmetric and exact and eps <= CORNER_EXACT_SHIFT_MAX_EPSILON)


def corner_search_factor(prior, epsilon: float) -> float:
    """The factor on the corner solve's fixed rows' search by orbits over R(n) (:func:`corner_seconds`'
    ``search_factor``) where a draw's plan or the noise-aware column's counts the solve: :func:`corner_exact_factor`
    at this public prior (1 where it is None).  Never read by the law (:func:`corners_fit` prices the solve with
    ``law=True``), so no release moves."""
    if prior is None:
        return 1.0
    return corner_exact_factor(epsilon, symmetric_corners(prior), exact_shifts(prior, float(epsilon)))


def corner_solve_seconds(n: int, k: int, epsilon: float, prior) -> float:
    """Estimated seconds of the corner remap's solve at this public prior: :func:`corner_seconds` at
    :func:`symmetric_corners` with its fixed rows' search at :func:`corner_search_factor` (what a draw's plan and the
    noise-aware column's count for it)."""
    return corner_seconds(n, k, epsilon, symmetric_corners(prior), search_factor=corner_search_factor(prior, epsilon))


#: At k = 4 where every clamp group's shifts are exact (Dir(1,1,1,1) at a working eps) at eps
#: :data:`ORBIT_EXACT_MIN_EPSILON` to :data:`ORBIT_EXACT_MAX_EPSILON`, the search by orbits is priced by its own fit
#: (:func:`orbit_exact_fit`), not by the terms fitted before the clamp groups times :func:`exact_shift_factor`: those
#: were 2.4x to 4.9x its runs past n = 50 at eps 1 and from eps 1.25 at every n measured (their per-data-set cost grows
#: with the data sets, the runs' less: a certified search sums over the data sets its drop keeps, an exact step over its
#: kept set), so ``lattice~average``'s errors were refused at eps 1 from n = 59 while they ran in 15 to 30 CPU s to n =
#: 80. Per search, ``near`` its data sets (``min(|ball of Dc| / 2, |R(n)|)``, as the terms count a point on a face), ``g
#: = max(1, 1 / eps)``: a certified search (one a clamp group's lead, counted ``ORBIT_SHARE[0] / k!`` of the positive
#: parts, as the terms) ``A near^a g^b`` CPU s (the first triple), a point of an uncertified orbit (its exact steps;
#: counted :func:`tie_orbit_share` of the positive parts) ``B near^c g^d`` (the second), the batched table as before,
#: and :data:`ORBIT_EXACT_POINT_SECONDS` a window point (its orbit pairs and clamp groups). Fitted (2026-12-07, two
#: processes at once on the 2 cores, load ~2; the search alone, its two phases timed apart: ``python
#: benchmarks/average_k4_plan.py --search-only --points ...``, ``benchmarks/average_k4_plan_large.json``): eps 0.75, n =
#: 30 to 70, 4.8 to 78.6 s; eps 1, n = 30 to 100, 2.2 to 47.7 s; eps 1.25, n = 60, 100; eps 1.5, n = 50 to 100; eps 2, n
#: = 50, 100. The plan 1.44x to 3.1x the run (1.44x to 1.88x at eps 1, to 2.73x at eps 0.75, n = 30; most at eps 1.5),
#: each phase above its own run.
ORBIT_EXACT_SECONDS = ((6.5e-6, 0.43, 2.3), (1.75e-6, 0.66, 0.9))
ORBIT_EXACT_POINT_SECONDS = 3e-6
ORBIT_EXACT_MIN_EPSILON = 0.75
#: The largest eps the fit was measured at; past it the terms times :func:`exact_shift_factor`, as before.
ORBIT_EXACT_MAX_EPSILON = 2.0


def orbit_exact_fit(k: int, epsilon: float, exact: bool) -> bool:
    """Whether :func:`orbit_seconds` prices the search by :data:`ORBIT_EXACT_SECONDS` (k = 4, ``exact``: every clamp
    group's shifts exact, eps within :data:`ORBIT_EXACT_MIN_EPSILON` to :data:`ORBIT_EXACT_MAX_EPSILON`, where it was
    measured), from public inputs; else the terms times :func:`exact_shift_factor`."""
    return int(k) == 4 and bool(exact) and ORBIT_EXACT_MIN_EPSILON <= float(epsilon) <= ORBIT_EXACT_MAX_EPSILON


def orbit_near(n: int, k: int, epsilon: float) -> float:
    """The data sets of a search at a point on a face that the search by orbits is priced at: the ball's points with
    that count >= 0, at most about half of the ball (v and -v), and at most R(n)."""
    ball = float(sum(sphere_count(k, t) for t in range(_radius(k, float(epsilon), 1e-12) + 1)))
    return min(ball / 2.0, float(n_candidates(n, k)))


def orbit_tie_seconds(n: int, k: int, epsilon: float, exact: bool = False) -> float:
    """Estimated seconds of one near tie of the search by orbits (a point of an uncertified orbit searched with its
    exact steps), from public n, k, eps: :data:`ORBIT_EXACT_SECONDS`' second triple where :func:`orbit_exact_fit`,
    else the terms (``ORBIT_SHARE[2]`` points searched again, :data:`EXACT_TIE_SECONDS`), without
    :func:`exact_shift_factor`.  :func:`orbit_seconds` prices its near ties at it (with the factor on the terms) and
    the run's cap on them (:meth:`LatticeMechanism._batched_fallback`) divides what the limit leaves by it: one rule."""
    near = orbit_near(n, k, epsilon)
    if orbit_exact_fit(k, epsilon, exact):
        B, c, d = ORBIT_EXACT_SECONDS[1]
        return B * near ** c * max(1.0, 1.0 / float(epsilon)) ** d
    grow = near_factor(near)
    part = ORBIT_PART[0] + ORBIT_PART[1] * near * grow
    return ORBIT_SHARE[2] * part + EXACT_TIE_SECONDS[0] + EXACT_TIE_SECONDS[1] * near * grow


def orbit_seconds(n: int, k: int, epsilon: float, W: int, exact: bool = False) -> tuple[float, float]:
    """Estimated seconds of the batched local search by orbits over ``window(n, k, W)`` (a symmetric prior), from
    public n, k, eps, W: ``(the table and the grouped route over one point per orbit, the points searched again and
    the near ties' exact steps)``.  Where :func:`orbit_exact_fit` (k = 4, ``exact``, eps 0.75 to 2) by
    :data:`ORBIT_EXACT_SECONDS`; else by the terms (:data:`ORBIT_SHARE`, :data:`ORBIT_PART`,
    :data:`ONE_POINT_SECONDS`, :data:`EXACT_TIE_SECONDS`, the per-data-set terms grown by :func:`near_factor`), both
    times :func:`exact_shift_factor` where ``exact`` (:func:`~dpposterior.lattice.batched.exact_shift_weights` of the
    public prior and eps).  The near ties either way at :func:`orbit_tie_seconds` each."""
    share = min(1.0, ORBIT_SHARE[0] / math.factorial(int(k)))
    eps = float(epsilon)
    ball = float(sum(sphere_count(k, t) for t in range(_radius(k, eps, 1e-12) + 1)))
    rows = float(n_candidates(n, k))
    parts = offwindow_parts(n, k, W) + low_count_points(n, k)
    near = orbit_near(n, k, eps)
    table, _ = batched_seconds(k, eps, share * rows, 0.0)
    ties = tie_orbit_share(n, eps) * parts
    tie = orbit_tie_seconds(n, k, eps, exact)
    if orbit_exact_fit(k, eps, exact):
        A, a, b = ORBIT_EXACT_SECONDS[0]
        lead = A * near ** a * max(1.0, 1.0 / eps) ** b
        points = float(_window_size(n, k, W))
        return table + ORBIT_EXACT_POINT_SECONDS * points + share * parts * lead, ties * tie
    grow = near_factor(near)
    part = ORBIT_PART[0] + ORBIT_PART[1] * near * grow
    searched = table + share * parts * part + min(rows, share * parts) * ONE_POINT_SECONDS[2] * ball * grow
    factor = exact_shift_factor(eps, exact)
    return factor * searched, factor * ties * tie


def local_ties(n: int, k: int, epsilon: float) -> float:
    """The near ties a plan of the k = 3 local errors counts (:data:`TIES_A`, :data:`TIES_B`), from public n, eps: at most
    the window's points (0 at k != 3, where this route does not run)."""
    if int(k) != 3:
        return 0.0
    eps = float(epsilon)
    a0, ap, a_eps, a_fall = TIES_A
    b0, b_eps, b_fall = TIES_B
    A = a0 * (0.5 / eps) ** ap * (min(1.0, a_eps / eps) ** a_fall)
    B = b0 * min(1.0, b_eps / eps) ** b_fall
    Z = float(_window_size(n, k, _radius(k, eps, LOCAL_ERROR_TOL)))
    return min(Z, A + B * int(n))


def tie_share(n: int) -> float:
    """The share of the grouped route's parts a plan counts as near ties handed on (:data:`TIE_SHARE`)."""
    return min(1.0, TIE_SHARE / max(1, int(n)))


def ball_size(k: int, epsilon: float, tol: float = DEFAULT_TOL) -> int:
    """Points of the ball ``d(w) <= D`` around one data set that :meth:`LatticeMechanism.pmf_at` visits, ``D`` the
    radius whose kernel mass beyond is at most ``tol`` (docs/lattice.md, "The pmf at one data set")."""
    return sum(sphere_count(k, t) for t in range(_radius(k, float(epsilon), tol) + 1))


def local_seconds(k: int, epsilon: float) -> float:
    """Estimated seconds of one local-search draw (:func:`~dpposterior.lattice.remap.local_bayes_search`), from k, eps."""
    Dc = _radius(k, float(epsilon), 1e-12)
    ball = sum(sphere_count(k, t) for t in range(Dc + 1))
    return LOCAL_SECONDS[0] * ball + LOCAL_SECONDS[1] * k * float(2 * Dc + 1) ** (k - 1)


#: A padded release's local-search draws (:func:`draw_seconds`): seconds per box entry of the data sets' ball, built
#: once per process (:func:`~dpposterior.lattice.remap._ball`, cached), per ball point a draw filters to R(n), and per
#: ball point in R(n) a draw weighs, sorts and searches.  Measured (CPU s, Dir(1,...,1), one process, 2026-11-29,
#: load ~1-4): k = 4, eps = 0.25 (Dc = 144, 10,057,489 ball points, 96.6M box entries): the ball 0.87-1.3 s; a draw
#: 2.8-3.3 s at n = 1e4 (the whole ball in R(n)), 0.21 s at n = 100, 0.13 s at n = 10; eps = 0.4: 0.48 s at n = 1e4
#: (2.47M points); k = 3, n = 1e6, eps = 0.1: 0.04 s.  :func:`local_seconds` (the older fit, which the route rules
#: keep) plans 33 s a draw at k = 4, eps = 0.25.
LOCAL_DRAW_SECONDS = (1.5e-8, 2e-8, 3.5e-7)


def draw_seconds(n: int, k: int, epsilon: float, setups: float = 1.0) -> float:
    """Estimated seconds of ``setups`` local-search draws (:func:`~dpposterior.lattice.remap.local_bayes_search`) in
    one process, from public n, k, eps (:data:`LOCAL_DRAW_SECONDS`): the ball built once, then per draw its points
    filtered to R(n) and those in R(n) (at most ``min(|ball|, |R(n)|)``) weighed and searched."""
    Dc = _radius(k, float(epsilon), 1e-12)
    ball = float(sum(sphere_count(k, t) for t in range(Dc + 1)))
    inside = min(ball, float(n_candidates(int(n), k)))
    c_box, c_ball, c_in = LOCAL_DRAW_SECONDS
    return c_box * k * float(2 * Dc + 1) ** (k - 1) + float(setups) * (c_ball * ball + c_in * inside)


@lru_cache(maxsize=16)
def corner_plan_sizes(n: int, k: int, epsilon: float, symmetric: bool = False) -> dict:
    """:func:`~dpposterior.lattice.corners.corner_sizes` (k = 3; ``symmetric``: the prior's
    :func:`~dpposterior.lattice.corners.symmetric_prior`, one corner solved where the corners are apart) or
    :func:`~dpposterior.lattice.corners_any.corner_sizes_any` (k >= 4) (cached; public n, k, eps, prior)."""
    if int(k) >= 4:
        from ..lattice.corners_any import corner_sizes_any

        return corner_sizes_any(int(n), int(k), float(epsilon), bool(symmetric))
    from ..lattice.corners import corner_sizes

    return corner_sizes(int(n), int(k), float(epsilon), symmetric=bool(symmetric))


def symmetric_corners(prior) -> bool:
    """Whether the corner remap at this (public) prior may solve one corner for three (k = 3, a symmetric prior:
    :func:`~dpposterior.lattice.corners.symmetric_solve`), or (k >= 4, a symmetric prior) solve its edge table's joint
    LP by orbits where :func:`~dpposterior.lattice.corners_any.edge_orbits`; False plans the solve without, an upper
    estimate at k = 3 (at k = 4 the plan of what runs at that prior)."""
    return len(prior) >= 3 and _symmetric(prior)


def _symmetric(prior) -> bool:
    """Whether the (public) prior is symmetric (:func:`~dpposterior.lattice.corners.symmetric_prior`: every ``a_i``
    equal), so that the batched errors may search one point per orbit (:func:`orbit_seconds`)."""
    from ..lattice.corners import symmetric_prior

    return symmetric_prior(prior)


def corner_seconds(n: int, k: int, epsilon: float, symmetric: bool = False, law: bool = False, high: bool = True,
                   search_factor: float = 1.0) -> float:
    """Estimated seconds of the corner remap (its LP and its fixed rows, the batched local search at ``n_ref``), from
    public n, k, eps and whether the prior is symmetric (docs/lattice.md, "A worst-case remap at any n").  At k = 3
    the LP's term is the larger of :data:`CORNER_SECONDS`' and, where the corners are not apart (eps < 1),
    :data:`CORNER_JOINT_SECONDS`' (:data:`CORNER_SIMPLEX_SECONDS`' where the dual simplex solves it,
    :data:`CORNER_IMPLIED_SECONDS`' where its implied constraints are dropped first), where they are
    apart (eps < 1) :data:`CORNER_APART_SECONDS`; ``law``: :data:`CORNER_SECONDS`' alone, the plan
    :func:`corners_fit` (which remap a release reads) was set by, so that no release's law moves with a refit of the
    plan; ``high=False`` (the exact errors' plans): :data:`CORNER_APART_SECONDS` at every eps below 1, not
    :data:`CORNER_APART_HIGH`'s lower floor (:func:`corner_apart_floor`); ``search_factor``: on the fixed rows' search
    by orbits at k >= 4 (the errors' plan at :func:`exact_shift_factor`; never with ``law``)."""
    from ..lattice.search import NEAR_TAIL

    size = corner_plan_sizes(n, k, epsilon, bool(symmetric))
    if int(k) >= 4 and size.get("corner_orbits"):
        # by orbits (a symmetric prior, no edge table): the LP's matrices in its entries, HiGHS on the orbit columns,
        # and the fixed rows' search at their projections (at most R(n_ref)) by orbits, as the errors' own search
        c0, c1 = CORNER_ORBIT_SECONDS
        search = sum(face_orbit_seconds(size["n_ref"], k, epsilon))
        return c0 + c1 * float(size["pairs"] * size["outputs"]) + (1.0 if law else search_factor) * search
    if int(k) >= 4:  # the LP and its fixed rows' batched local search at n_ref (every one counted as handed on)
        c0, c1, power = CORNER_SECONDS_ANY_FROM_ONE if float(epsilon) >= 1.0 else CORNER_SECONDS_ANY
        # by orbits (a symmetric prior, the edge table's joint LP) the whole LP is its edge seconds
        lp = 0.0 if size.get("edge_orbits") else c0 + c1 * float(size["pairs"] * size["outputs"]) ** power
        sec = lp + sum(batched_seconds(k, epsilon, size["fixed"], 0.0)) + size["edge_seconds"]
        return sec * (CORNER_ANY_SMALL_EPS[0] if float(epsilon) < 1.0 else 1.0)
    c0, c1, c2 = LOCAL_SEARCH_SECONDS
    search = c0 + c1 * float(n_candidates(size["n_ref"], k)) * ball_size(k, epsilon, NEAR_TAIL) + c2 * size["fixed"]
    c0, c1, power = CORNER_SECONDS
    entries = float(size["pairs"] * size["outputs"])
    lp = c1 * entries ** power
    if not law and float(epsilon) < 1.0 and _corners_joint(n, k, epsilon):
        if _corners_simplex(n, k, epsilon) and _corners_implied(n, k, epsilon):
            # the implied constraints dropped before the dual simplex: its own term, in place of CORNER_SECONDS' too
            s0, s1 = CORNER_SIMPLEX_IMPLIED_SECONDS
            lp = s0 + s1 * entries
        elif _corners_simplex(n, k, epsilon):
            s0, s1, power = CORNER_SIMPLEX_SECONDS
            lp = max(lp, s0 + s1 * entries ** power)
        else:
            c1, cap = CORNER_JOINT_SECONDS
            if _corners_implied(n, k, epsilon):  # the implied constraints dropped first
                s0, s1 = CORNER_IMPLIED_SECONDS
                lp = max(lp, s0 + s1 * entries)
            else:
                lp = max(lp, c1 * entries * min(float(size["constraints"]), float(cap)))
    elif not law and int(k) == 3 and float(epsilon) < 1.0:
        lp = max(lp, corner_apart_floor(epsilon) if high else CORNER_APART_SECONDS)
    return c0 + lp + search + EDGE_SECONDS * size["edge_entries"]


def corner_apart_floor(epsilon: float) -> float:
    """The floor under the k = 3 corner LP's seconds where its corners are apart, eps < 1, from public eps:
    :data:`CORNER_APART_SECONDS`, and from ``CORNER_APART_HIGH[0]`` the lower ``CORNER_APART_HIGH[1]``."""
    start, floor = CORNER_APART_HIGH
    return floor if float(epsilon) >= start else CORNER_APART_SECONDS


def _corners_simplex(n: int, k: int, epsilon: float) -> bool:
    """Whether the k = 3 corner LP at ``n_ref`` (its default depth) is solved by the dual simplex
    (:func:`~dpposterior.lattice.corners.joint_simplex`, the rule the solve reads), from public n, k, eps."""
    from ..lattice.corners import joint_simplex

    n_ref, depth = _corner_reference(n, k, epsilon)
    return joint_simplex(int(k), n_ref, float(epsilon), depth)


def _corners_implied(n: int, k: int, epsilon: float) -> bool:
    """Whether the k = 3 corner LP at ``n_ref`` (its default depth) drops its implied constraints before the interior
    point (:func:`~dpposterior.lattice.corners.drops_implied`, the rule the solve reads), from public n, k, eps."""
    from ..lattice.corners import drops_implied

    n_ref, depth = _corner_reference(n, k, epsilon)
    return drops_implied(int(k), n_ref, float(epsilon), depth)


def _corners_joint(n: int, k: int, epsilon: float) -> bool:
    """Whether the k = 3 corner LP at ``n_ref`` (its default depth) has its corners not apart
    (:func:`~dpposterior.lattice.corners.corners_apart`), from public n, k, eps.  False at every k other than 3: the
    joint LP's constants (:data:`CORNER_JOINT_SECONDS`, :data:`CORNER_JOINT_BYTES`) were fitted at k = 3 only (k >= 4
    plans its corner solve by :data:`CORNER_SECONDS_ANY` and its own terms)."""
    from ..lattice.corners import corners_apart

    if int(k) != 3:
        return False
    n_ref, depth = _corner_reference(n, k, epsilon)
    return not corners_apart(n_ref, int(k), float(epsilon), depth)


def _corner_reference(n: int, k: int, epsilon: float) -> tuple[int, int]:
    """The corner LP's ``(n_ref, depth)`` at its default depth (:func:`~dpposterior.lattice.corners.default_depth`):
    the size it is solved at, ``min(n, reference_n(eps, depth, k))``, from public n, k, eps."""
    from ..lattice.corners import default_depth, reference_n

    depth = default_depth(epsilon)
    return min(int(n), reference_n(float(epsilon), depth, int(k))), depth


#: Peak bytes past which ``worst`` at k = 3 does not read the corner remap (:func:`corners_fit`): the default exact-table
#: memory (``DPPOSTERIOR_MEMORY_GB``'s 4 GiB) as a constant, so that the release's law does not move with a setting.
CORNER_WORST_BYTES = 4.0 * 2**30
#: Seconds past which the same (:func:`corners_fit`): the default solve limit as a constant, as
#: :data:`WINDOW_WORST_SECONDS`.
CORNER_WORST_SECONDS = 45.0


#: At k = 4, the eps below which ``worst`` falls back to the local Bayes remap where the corner remap does not fit
#: (:func:`corners_fit`, as at k = 3); from it the corner route stays the route at every n past the window (its plan
#: refuses it in one line where over), so that every release admitted from that eps is unchanged.
CORNER_FALLBACK_EPSILON_K4 = 0.5
#: From that eps up to this one (k = 4), ``worst`` reads the corner remap where its solve's plan alone (at a symmetric
#: prior: :func:`corner_seconds`, :func:`corner_bytes`) fits :data:`CORNER_WORST_SECONDS` and
#: :data:`CORNER_WORST_BYTES`, else the local Bayes remap (``lattice~average``'s release).  Past it the solve was refused
#: by every default limit (its own plan, held to the default solve limit and memory by every route that reads it), so
#: every release the defaults admitted before keeps its law; the cells it opens were refused in one line
#: (Dir(1,1,1,1), eps = 0.5: n = 30 60 s, n = 100 1,041 s and 5.0 GiB planned; eps = 0.9, n = 100: 575 s).  From eps 1
#: the corner solve fits at every n (its largest plan 16.0 s), and the rule is not read there.
CORNER_SOLVE_FALLBACK_MAX_EPSILON_K4 = 1.0
#: At k = 4, ``(eps, n0)``: at that working eps (exactly, where it was measured) ``worst`` reads the local Bayes remap
#: (``lattice~average``'s release) from n = n0 on, although the corner solve fits there.  At Dir(1,1,1,1), eps 0.75 the
#: corner release has the lower worst case to n = 20 (0.64653 against 0.64829) and the higher from n = 21 (0.64946
#: against 0.64702) to 42 (0.63674 against 0.63341), and the higher average at every n from 16 to 42; at Dir(2,2,2,2),
#: n = 36 its worst case is 0.69587 against 0.64244 (``benchmarks/worst_k4_routes_eps075.json``).  Past n = 42 the
#: corner solve does not fit, and the local Bayes remap was the release already.  The release's errors and
#: noise-aware column are then ``average``'s, which the default limits admit to n = 49 and 45 (the corner route's
#: column was refused from n = 32).  At the working eps of 0.8, 0.85, 0.9 and 0.95 the same holds from n = 20, 13, 12
#: and 13 (the corner release ahead at n = 19, 12, 11 and 12; behind at every n measured from the edge to the last n
#: where its solve fits, 46, 48, 49 and 51, by up to 15 %; the higher average at every n measured;
#: ``benchmarks/worst_k4_routes_eps08_095.json``).  Constants, so the release's law depends on public n, k, eps only;
#: a remap of the same noise, so eps-DP as any remap.
CORNER_BEHIND_K4 = ((0.75, 21), (working_epsilon(0.8, 4), 20), (working_epsilon(0.85, 4), 13),
                    (working_epsilon(0.9, 4), 12), (working_epsilon(0.95, 4), 13))


def corners_fit(n: int, k: int, epsilon: float) -> bool:
    """Whether ``worst`` past the window's LP reads the corner remap (the corner depth: the default's rows, or none),
    from public n, k, eps only.  At k = 3 the corner remap's plan for a padded release (its solve,
    :func:`corner_seconds`, and :data:`PADDED_DRAWS` local searches) within :data:`CORNER_WORST_SECONDS` and its peak
    (:func:`corner_bytes`) within :data:`CORNER_WORST_BYTES`, both at a symmetric prior's plan (one corner for three
    where it applies: the lower estimate; an asymmetric prior's release over its limits is refused in one line by
    :meth:`LatticeMechanism.check_corners`, as before).  Constants, not the limits a user sets, so that the release's
    law depends on public n, k, eps only.  Past them the corner table has no rows: every z reads the local Bayes remap,
    so the release is ``lattice~average``'s (the same draws, pmf and errors, :meth:`LatticeMechanism.release_key`), a
    remap of the same noise, so eps-DP as any remap.  A smaller depth would not fit sooner: the corner remap's cost at
    small eps is its fixed rows' search at ``n_ref`` and its edge LPs, both set by the kernel's radius, not the depth
    (docs/lattice.md, "Small eps").  Measured plans (Dir(1,1,1)): eps >= 0.5 fits at every n (the largest, eps = 0.5,
    n = 100: 41.4 s, 1.3 GB), eps = 0.25 and 0.1 fit at no n (n = 15: 45.7 and 597 s; n = 1000: 28 and 550 GiB).
    k = 4 below :data:`CORNER_FALLBACK_EPSILON_K4`: the same rule (the corner plan at a symmetric prior, by its orbits
    where they apply).  Measured plans (Dir(1,1,1,1)): no n fits below eps = 0.5 (eps = 0.45, n = 1: 49.9 s; eps =
    0.25, n = 10: 329 s, n = 100: 23.4 GiB), so every ``worst`` release there past the window's LP is
    ``lattice~average``'s.  k = 4 from that eps below :data:`CORNER_SOLVE_FALLBACK_MAX_EPSILON_K4`: the corner solve's
    plan alone (at a symmetric prior) within the same constants, so that every release the default limits admitted
    before is unchanged (a padded release admitted there had its solve within them: its plan is the solve's plus its
    draws'), and the ones past it, refused before by every default limit, release the local Bayes remap.  k = 4 from
    eps 1, and k >= 5: always (the corner remap's own plan refuses it, unchanged).  k = 4 at an eps of
    :data:`CORNER_BEHIND_K4` from its n: never (the corner release was measured behind the local Bayes remap)."""
    k, eps = int(k), float(epsilon)
    if k == 4 and any(eps == e and int(n) >= n0 for e, n0 in CORNER_BEHIND_K4):
        return False
    if k == 4 and CORNER_FALLBACK_EPSILON_K4 <= eps < CORNER_SOLVE_FALLBACK_MAX_EPSILON_K4:
        return (corner_seconds(int(n), k, eps, True, law=True) <= CORNER_WORST_SECONDS
                and corner_bytes(int(n), k, eps, True, law=True) <= CORNER_WORST_BYTES)
    if k != 3 and not (k == 4 and eps < CORNER_FALLBACK_EPSILON_K4):
        return True
    seconds = corner_seconds(int(n), k, eps, True, law=True) + PADDED_DRAWS * local_seconds(k, eps)
    return seconds <= CORNER_WORST_SECONDS and corner_bytes(int(n), k, eps, True, law=True) <= CORNER_WORST_BYTES


def corner_draw_seconds(n: int, k: int, epsilon: float, setups: float = 1.0) -> float:
    """Estimated seconds of ``setups`` draws of the corner release off its tables (each the local search at
    ``project(z)``, :func:`~dpposterior.lattice.remap.local_bayes_search`, as ``lattice~average``'s draw), from public
    n, k, eps.  At k >= 4 from :data:`CORNER_FALLBACK_EPSILON_K4` by the draws' own fit (:func:`draw_seconds`); below
    it, and at k = 3, the older per-search estimate (:func:`local_seconds`), which :func:`corners_fit` reads there as
    the release's law (so it must not move)."""
    if int(k) >= 4 and float(epsilon) >= CORNER_FALLBACK_EPSILON_K4:
        return draw_seconds(int(n), int(k), float(epsilon), setups)
    return setups * local_seconds(int(k), float(epsilon))


def corner_bytes(n: int, k: int, epsilon: float, symmetric: bool = False, law: bool = False) -> float:
    """Estimated peak bytes of the corner remap's solve, from public n, k, eps and whether the prior is symmetric (at
    k = 3 where the corners are not apart, eps < 1, the LP's bytes times :data:`CORNER_JOINT_BYTES`; at k = 3, a
    symmetric prior, eps from :data:`CORNER_PEAK_MIN_EPSILON` below 1, the largest of the solve's stages,
    :data:`CORNER_PEAK_BYTES`; ``law``: neither, the plan
    :func:`corners_fit` was set by, as :func:`corner_seconds`, so that no release's route moves with the refusal's
    refit)."""
    from ..lattice.search import NEAR_TAIL

    size = corner_plan_sizes(n, k, epsilon, bool(symmetric))
    if int(k) >= 4 and size.get("corner_orbits"):
        return CORNER_ORBIT_BYTES * size["pairs"] * size["outputs"] + 64.0 * 2**20
    if int(k) >= 4:  # the LP, and the fixed rows' table of the batched search (as :meth:`_batched_plan` counts it)
        peak = (CORNER_BYTES * size["pairs"] * size["outputs"] + 13 * (8 * k + 8) * size["fixed"] + size["edge_bytes"]
                + 64.0 * 2**20)
        return peak * (CORNER_ANY_SMALL_EPS[1] if float(epsilon) < 1.0 else 1.0)
    joint = not law and float(epsilon) < 1.0 and _corners_joint(n, k, epsilon)
    lp = CORNER_BYTES * size["pairs"] * size["outputs"] * (CORNER_JOINT_BYTES if joint else 1.0)
    if not law and bool(symmetric) and CORNER_PEAK_MIN_EPSILON <= float(epsilon) < 1.0:
        return max(corner_peak_terms(n, k, epsilon))
    # the LP, and the fixed rows' batched search at n_ref: its table of (output x near offset) products, ~1.5 of them
    # per pair with temporaries (measured: eps = 0.5, n_ref = 292, 43,071 outputs x 3,997 offsets: 2.0 GB peak)
    search = 12.0 * n_candidates(size["n_ref"], k) * ball_size(k, epsilon, NEAR_TAIL)
    return lp + search


def corner_peak_terms(n: int, k: int, epsilon: float) -> tuple[float, float, float]:
    """The k = 3 corner solve's peak bytes by stage at a symmetric prior, eps < 1 (:data:`CORNER_PEAK_BYTES`), from
    public n, k, eps: its region sets (``A + ball(W)`` over every corner's constraints, before their union), its fixed
    rows' batched search at ``n_ref``, its LP with what the stages before it keep.  The stages run one after another
    and each frees its temporaries, so the solve's peak is the largest (:func:`corner_bytes`)."""
    from ..lattice.corners import LP_TOL
    from ..lattice.search import NEAR_TAIL

    size = corner_plan_sizes(n, k, epsilon, True)
    joint = float(epsilon) < 1.0 and _corners_joint(n, k, epsilon)
    base, region, near, near_n = CORNER_PEAK_BYTES
    constraints = size["constraints"] * int(k) // size["corners_solved"]
    factor = (CORNER_SIMPLEX_BYTES if _corners_simplex(n, k, epsilon) else CORNER_JOINT_BYTES) if joint else 1.0
    lp = CORNER_BYTES * size["pairs"] * size["outputs"] * factor
    return (region * constraints * ball_size(k, epsilon, LP_TOL),
            (near + near_n * size["n_ref"]) * ball_size(k, epsilon, NEAR_TAIL), base + lp)


#: ``worst`` at k = 4 reads the face table (:mod:`dpposterior.lattice.faces_any`: the local Bayes remap at every z, an
#: LP's rows near the faces) instead of the corner table at these public inputs, a symmetric prior: the eps its constants
#: were tuned at, and the n where its worst case was measured below the corner route's (docs/lattice.md, "A face table
#: at k = 4"; ``benchmarks/worst_k4_face_route.json``; from n = 51 "The face table to n = 60" and "... to n = 68").
#: To n = 68: the table's own build (:func:`~dpposterior.lattice.faces_any.plan_face_table`) fits the default solve
#: limit at every n, but the noise-aware posterior of the face route reads ``lattice~average``'s column, which is
#: planned over it past n = 68, where the corner route's is admitted to n = 160; so past 68 ``worst`` keeps the corner
#: table, and no cell the defaults admitted is refused.  Constants, so the release's law depends on public inputs only.
FACE_EPSILONS = (1.0,)
FACE_N = (30, 68)


def faces_fit(prior, n: int, k: int, epsilon: float) -> bool:
    """Whether ``worst`` past the window's LP reads the face table (:data:`FACE_EPSILONS`, :data:`FACE_N`, k = 4, a
    symmetric prior), from public inputs only; else the corner table as before."""
    return (int(k) == 4 and float(epsilon) in FACE_EPSILONS and FACE_N[0] <= int(n) <= FACE_N[1]
            and prior is not None and len(prior) == 4 and _symmetric(prior))


#: The face tables built in this process, by public inputs ``(prior, n, eps)`` (at most :data:`FACE_TABLES_HELD`).
_FACE_TABLES: dict = {}
FACE_TABLES_HELD = 2


def _face(a: tuple, n: int, epsilon: float, window_fallback: int | None = None):
    """The face table of the release (cached per public inputs: the draws, the column and the errors read the same
    table), its LP's constant part by :func:`~dpposterior.lattice.faces_any.lp_rest_errors` (never the data).

    ``window_fallback`` (the errors' route): the local Bayes remap at the face rows and the LP's data sets read from
    the rest's own search over the window (:func:`_batched_outputs` by orbits, with that limit of exact steps) instead
    of searched again.  Both builds give the same table bit for bit (``face_remap_any``'s ``window_outputs``), so one
    cache serves both: a table built by either is what the other returns (``compare``'s set-up and its errors build it
    once)."""
    from ..lattice.faces_any import face_remap_any

    key = (tuple(float(x) for x in a), int(n), float(epsilon))
    hit = _FACE_TABLES.get(key)
    if hit is not None:
        return hit
    if window_fallback is None:
        remap = face_remap_any(np.asarray(a, dtype=np.float64), int(n), float(epsilon))
    else:
        W = _radius(len(a), epsilon, LOCAL_ERROR_TOL)
        out = _batched_outputs(a, n, epsilon, window_fallback, True)
        remap = face_remap_any(np.asarray(a, dtype=np.float64), int(n), float(epsilon), window_outputs=(out, W))
    while len(_FACE_TABLES) >= FACE_TABLES_HELD:
        _FACE_TABLES.pop(next(iter(_FACE_TABLES)))
    _FACE_TABLES[key] = remap
    return remap


_face.cache_clear = _FACE_TABLES.clear  # type: ignore[attr-defined]


@lru_cache(maxsize=2)
def _face_errors(a: tuple, n: int, epsilon: float, max_fallback: int):
    """The route ``"face table"`` after its plan: the rest's window errors (:func:`_batched_errors` by orbits, the same
    call and cache as ``lattice~average``'s row), then the face rows' differences
    (:func:`~dpposterior.lattice.faces_any.face_errors_any`); bracket ``tail_bound(k, eps, W) <= LOCAL_ERROR_TOL``."""
    from ..lattice.faces_any import face_errors_any
    from ..lattice.scale import Bracket

    W = _radius(len(a), epsilon, LOCAL_ERROR_TOL)
    rest = _batched_errors(a, n, epsilon, max_fallback, True)
    E = face_errors_any(_face(a, n, epsilon, max_fallback), rest.low, W)
    return Bracket(rest.counts, E, rest.tail, rest.offsets)


@lru_cache(maxsize=4)
def _corner(a: tuple, n: int, epsilon: float):
    """The corner remap (cached per public inputs: the draws and the errors read the same table)."""
    if len(a) >= 4:
        from ..lattice.corners_any import cached_corner_remap_any

        return cached_corner_remap_any(a, int(n), float(epsilon))
    from ..lattice.corners import cached_corner_remap, default_depth

    return cached_corner_remap(a, int(n), float(epsilon), default_depth(epsilon))


def _edge_rows_to(remap, m: NDArray[np.int64], W: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Every edge row of the corner release (:class:`~dpposterior.lattice.corners.EdgeTable`, off the corner table,
    coordinates ``>= -W``) whose outputs hold ``m``, with ``T(z, m)``: enumerated from the rows' offsets (``z = m -
    offset``), so none is missed whatever its distance from ``m``.  Empty without an edge table (eps >= 1)."""
    k = len(m)
    if remap.edges is None:
        return np.zeros((0, k), dtype=np.int64), np.zeros(0)
    E = remap.edges
    i, ui, j = np.nonzero(E.probs > 0)
    z = m[None, :] - E.offsets[i, ui, j]
    li, lu = remap.edge_rows(z)
    ok = (li == i) & (lu == ui) & (remap.rows(z) < 0) & np.all(z >= -W, axis=1)
    return z[ok], E.probs[i, ui, j][ok]


def _table_rows_to(remap, n: int, m: NDArray[np.int64], W: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The corner table's rows at ``n`` (translated back from ``n_ref``; any k) whose outputs hold ``m``, with
    coordinates ``>= -W`` (the window), and ``T(z, m)`` at each: the local column's points on the table."""
    table = remap.points.copy()
    table[np.arange(len(table)), remap.corner] += n - remap.n_ref
    outs = remap.row_outputs(np.arange(len(table)))
    t_tab = (remap.probs * np.all(outs == m[None, None, :], axis=2)).sum(axis=1)
    keep = (t_tab > 0) & np.all(table >= -W, axis=1)
    return table[keep], t_tab[keep]


def _face_rows_to(remap, m: NDArray[np.int64], W: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The face table's rows (:class:`~dpposterior.lattice.faces_any.FaceRemap`, enumerated whole) whose outputs hold
    ``m``, with coordinates ``>= -W`` (the window), and ``T(z, m)`` at each: the local column's points on the table."""
    t_tab = (remap.probs * np.all(remap.outputs == m[None, None, :], axis=2)).sum(axis=1)
    keep = (t_tab > 0) & np.all(remap.points >= -W, axis=1)
    return remap.points[keep], t_tab[keep]


@lru_cache(maxsize=2)
def _corner_errors(a: tuple, n: int, epsilon: float, max_fallback: int, orbits: bool = False):
    """:meth:`LatticeMechanism.corner_errors` after its checks: the local remap's window errors, then the data sets
    whose ball meets the corner table recomputed (:func:`~dpposterior.lattice.corners.corner_errors`); ``orbits``
    (:func:`orbit_route`): the fallback budget of the route by orbits and its sums by rotation classes (the same
    values, to the sums' rounding: :func:`~dpposterior.lattice.corners.rotation_classes`)."""
    from ..lattice.corners import corner_errors, corner_local_outputs, corner_shape, default_depth
    from ..lattice.search import window_errors

    W = _radius(len(a), epsilon, LOCAL_ERROR_TOL)
    # the local remap only where the release reads it (the table's rows hold most near ties at small eps), known from
    # the table's shape before its solve: a refusal past max_fallback comes before the LP and its fixed rows
    shape = corner_shape(a, n, epsilon, default_depth(epsilon))
    if orbits and shared_search(n, len(a), epsilon, True):
        # the search kept with the average's errors (:func:`_window_outputs`): the same outputs where the release reads
        # them, project(z) elsewhere, as corner_local_outputs builds them
        from ..lattice.corners import local_points
        from ..lattice.noise import window

        out = _window_outputs(a, n, epsilon, local_points(shape, window(n, len(a), W)), max_fallback)
    else:
        out = corner_local_outputs(shape, W, max_fallback=max_fallback)
    remap = _corner(a, n, epsilon)
    if orbits:  # the offset sums one data set per rotation class (the same errors, to the sums' rounding)
        return corner_errors(remap, out, W, rotations=True)
    return corner_errors(remap, out, W, window_errors(a, n, epsilon, out, W))


@lru_cache(maxsize=2)
def _corner_errors_any(a: tuple, n: int, epsilon: float, max_fallback: int, orbit_sums: bool = False):
    """The route ``"corner remap"`` at k >= 4 after its plan (:func:`~dpposterior.lattice.corners_any.corner_errors_any`:
    the rest's window errors, then the terms at the tables' rows added; bracket ``tail_bound(k, eps, W) <=
    LOCAL_ERROR_TOL``); ``"corner remap, by orbits"`` (``orbit_sums``, where
    :func:`~dpposterior.lattice.corners_any.orbit_sum`): the rest's sum by orbits, the same sum in another order."""
    from ..lattice.corners_any import corner_errors_any

    return corner_errors_any(_corner(a, n, epsilon), _radius(len(a), epsilon, LOCAL_ERROR_TOL), max_fallback,
                             orbit_sums=orbit_sums)


@lru_cache(maxsize=8)
def _setup(a: tuple, n: int, epsilon: float) -> LatticeSetup:
    return LatticeSetup.trusted(np.asarray(a, dtype=np.float64), n, epsilon, DEFAULT_TOL)


@lru_cache(maxsize=8)
def _remap(a: tuple, n: int, epsilon: float, objective: str) -> Remap:
    """The remap of ``objective`` on the window (cached per public inputs)."""
    setup = _setup(a, n, epsilon)
    if objective == Objective.AVERAGE:
        return bayes_remap(setup)[0]
    return minimax_remap(setup, r_radius=MINIMAX_R_RADIUS)


#: The local search's outputs over the window of the local errors, per public inputs (the last two): ``(searched, out)``
#: over ``window(n, k, W)`` (:func:`_window_outputs`).
_WINDOW_SEARCHES: dict = {}


def _window_outputs(a: tuple, n: int, epsilon: float, need: NDArray[np.bool_] | None,
                    max_fallback: int) -> NDArray[np.int64]:
    """The local search (what a draw computes, :func:`~dpposterior.lattice.search.local_search_many`) at the points
    ``need`` of ``window(n, k, W)`` (``W`` the radius of :data:`LOCAL_ERROR_TOL`; None: every point), ``project(z)``
    at the others; the outputs of every point searched before at the same public inputs are kept and read, so the
    local errors of ``average`` and the corner release's by orbits (:func:`shared_search`) search each point once
    between them, whichever runs first.  The same outputs either way: the search's output at z does not depend on the
    other points searched with it.  ``max_fallback``: the points searched now that the search may hand on."""
    from ..lattice.noise import window
    from ..lattice.remap import project
    from ..lattice.search import local_search_many

    W = _radius(len(a), epsilon, LOCAL_ERROR_TOL)
    key = (a, int(n), float(epsilon), W)
    Z = window(n, len(a), W)
    if key not in _WINDOW_SEARCHES:
        while len(_WINDOW_SEARCHES) >= 2:
            _WINDOW_SEARCHES.pop(next(iter(_WINDOW_SEARCHES)))
        _WINDOW_SEARCHES[key] = (np.zeros(len(Z), dtype=bool), project(Z, n))
    searched, out = _WINDOW_SEARCHES[key]
    need = np.ones(len(Z), dtype=bool) if need is None else np.asarray(need, dtype=bool)
    todo = np.flatnonzero(need & ~searched)
    if todo.size:
        out[todo] = local_search_many(a, n, epsilon, Z[todo], max_fallback=max_fallback)
        searched[todo] = True
    return np.where(need[:, None], out, project(Z, n))


def shared_search(n: int, k: int, epsilon: float, symmetric: bool) -> bool:
    """Whether the corner release's errors by orbits (:func:`orbit_route`) and the local errors of ``average``
    (:func:`orbit_average`) both read :func:`_window_outputs` at these public inputs, so that ``compare`` counts the
    corner release's search once (:attr:`~dpposterior.limits.Plan.shared`)."""
    return orbit_route(n, k, epsilon, symmetric) and orbit_average(n, k, epsilon, symmetric)


@lru_cache(maxsize=2)
def _local_errors(a: tuple, n: int, epsilon: float, max_fallback: int):
    """:meth:`LatticeMechanism.local_errors` after its checks (cached per public inputs: ``optimal~average`` past its LP
    is the same release)."""
    from ..lattice.search import window_errors

    W = _radius(len(a), epsilon, LOCAL_ERROR_TOL)
    return window_errors(a, n, epsilon, _window_outputs(a, n, epsilon, None, max_fallback), W)


@lru_cache(maxsize=2)
def _batched_errors(a: tuple, n: int, epsilon: float, max_fallback: int, orbits: bool = False):
    """The route ``"batched local search"`` (k >= 4) after its plan: the local search at every point of the window
    (:func:`~dpposterior.lattice.batched.local_search_batch`; ``orbits``: one per orbit at a symmetric prior, the same
    outputs), then the offset sum over ``d(w) <= W`` (:func:`~dpposterior.lattice.batched.window_errors_any`),
    ``tail = tail_bound(k, eps, W) <= 1e-5``.  By ``orbits`` where :func:`~dpposterior.lattice.corners_any.orbit_sum`
    (public inputs: past the terms the default limits admitted on the sum over R(n), so every cell computed before
    keeps its floats) the offset sum runs by orbits too (:func:`~dpposterior.lattice.corners_any.orbit_rest_errors`:
    the whole sum at one sorted data set per orbit, the terms at the points where the search's outputs are not
    equivariant added at every data set; the same sum, its additions in another order, proof there)."""
    from ..lattice.batched import window_errors_any

    k = len(a)
    W = _radius(k, epsilon, LOCAL_ERROR_TOL)
    outputs = _batched_outputs(a, n, epsilon, max_fallback, orbits)
    if orbits and _orbit_rest_sum(n, k, epsilon, a):
        from ..lattice.corners_any import orbit_rest_errors
        from ..lattice.remap import _ball
        from ..lattice.scale import Bracket
        from ..models import candidates

        low = orbit_rest_errors(np.asarray(a, dtype=np.float64), int(n), float(epsilon), window(int(n), k, W), outputs,
                                W)
        return Bracket(candidates(int(n), k), low, float(tail_bound(k, epsilon, W)), len(_ball(k, W)))
    return window_errors_any(a, n, epsilon, outputs, W)


def _orbit_rest_sum(n: int, k: int, epsilon: float, prior) -> bool:
    """Whether the batched errors by orbits sum by orbits too (:func:`_batched_errors`): a symmetric ``prior`` and
    :func:`~dpposterior.lattice.corners_any.orbit_sum` at the errors' radius; public inputs only."""
    from ..lattice.corners_any import orbit_sum

    return bool(orbit_sum(n, k, epsilon, _radius(k, epsilon, LOCAL_ERROR_TOL), _symmetric(prior)))


@lru_cache(maxsize=1)
def _batched_outputs(a: tuple, n: int, epsilon: float, max_fallback: int, orbits: bool = False) -> NDArray[np.int64]:
    """The local search at every point of the window ``window(n, k, W)``, ``W`` the errors' radius
    (:func:`~dpposterior.lattice.batched.local_search_batch`): what :func:`_batched_errors` sums and the face table's
    build reads (:func:`_face`), cached so that the errors of both rows run it once."""
    from ..lattice.batched import local_search_batch
    from ..lattice.noise import window

    W = _radius(len(a), epsilon, LOCAL_ERROR_TOL)
    out = local_search_batch(a, n, epsilon, window(n, len(a), W), max_fallback=max_fallback, orbits=orbits)
    out.flags.writeable = False
    return out


def _search_points(a: NDArray, n: int, epsilon: float, Z: NDArray) -> NDArray[np.int64]:
    """What a draw computes at each z of ``Z`` (:func:`~dpposterior.lattice.remap.local_bayes_search`): by the batched
    local search (:func:`~dpposterior.lattice.batched.local_search_batch`), with its per-coordinate tables (``k (n +
    1) (2 rho + 1)`` floats, a few copies) where they stay within :data:`SEARCH_TABLE_BYTES`, else without them (every
    point to its grouped route: the searches that share a projection together, each step certified or taken by the
    one-point search's own floats; at large n the table decides few points anyway).  The same outputs either way
    (each route returns the one-point search's), chosen from public n, k, eps."""
    from ..lattice.batched import local_search_batch

    k = a.size
    if not len(Z):
        return np.zeros((0, k), dtype=np.int64)
    return local_search_batch(a, n, epsilon, Z, tables=_search.batch_tables_fit(k, n, epsilon))


#: The k >= 4 corner release's local column where ``n <= Dc`` (:meth:`LatticeMechanism._small_corner_column_plan`):
#: CPU seconds and bytes a point of the window (enumerated, looked up in the corner and edge tables, projected, its
#: projections made distinct, :func:`_unique_rows`, and the column's sum over the points that map to the release).
#: Measured 2026-12-06 on one idle host (load ~1; ``python benchmarks/small_corner_parts_k4.py --out
#: benchmarks/small_corner_parts_k4.json ...``: the column less its corner solve, searches and filter, 22 releases):
#: 0.71 to 1.61 us a point over 0.78 M to 2.8 M points (eps 0.5 to 0.75, n = 12 to 30; next to a face, where ~200,000
#: points map to the release, as at the centre).  Set at 4.5 us on 2026-12-01 from runs on a loaded host (load 5 to
#: 13), where the same columns took 2.5x to 4x their idle CPU s.  The fit is 2.2x over the most.  Below eps 1 only
#: (:func:`small_corner_point_seconds`), where it was measured.
SMALL_CORNER_POINT_SECONDS = 3.5e-6
#: The same from eps 1, as set on 2026-12-01 (not measured idle there: at eps 2, n = 10 the column and its corner solve
#: took 2.14 CPU s at load ~5, ``benchmarks/small_corner_column_k4.json``, within 1.05x of the plan with this term).
SMALL_CORNER_POINT_SECONDS_FROM_ONE = 4.5e-6
SMALL_CORNER_POINT_BYTES = 400.0


def small_corner_point_seconds(epsilon: float) -> float:
    """CPU seconds a window point of the k >= 4 corner release's column where ``n <= Dc``, from public eps:
    :data:`SMALL_CORNER_POINT_SECONDS` below eps 1, else :data:`SMALL_CORNER_POINT_SECONDS_FROM_ONE`."""
    return SMALL_CORNER_POINT_SECONDS if float(epsilon) < 1.0 else SMALL_CORNER_POINT_SECONDS_FROM_ONE


#: One one-point local search at a point of R(n) where ``n <= Dc`` (it reads R(n) itself): CPU seconds, a constant and
#: a data set of R(n).  Measured 2026-12-01, Dir(1,1,1,1), k = 4, 200 points of R(n) each (load ~5): 0.45 ms (n = 10,
#: eps = 0.5), 0.84 (n = 20), 2.05 (n = 26), 0.86 (n = 20, eps = 1), 1.30 (n = 29, eps = 1), 0.49 (n = 18, eps = 2),
#: 0.29 (n = 9, eps = 4); the fit 1.5-4.4x above each.
SMALL_SEARCH_SECONDS = (8e-4, 1e-6)
SMALL_SEARCH_ROWS = 5000


def _one_point_searches(a: NDArray, n: int, epsilon: float, Z: NDArray) -> NDArray[np.int64]:
    """:func:`~dpposterior.lattice.remap.local_bayes_search` at each point of ``Z``, one at a time: what a draw computes
    there, by definition.  Where ``n <= Dc`` each search reads R(n) itself (``remap.search_terms``), 1.5 ms at k = 4,
    n = 10, where the batched search's per-coordinate tables take ~46 ms a point (286 points of R(10), eps = 0.5:
    0.14 against 13.2 CPU s, the same outputs)."""
    if not len(Z):
        return np.zeros((0, a.size), dtype=np.int64)
    return np.stack([local_bayes_search(a, n, epsilon, z) for z in Z]).astype(np.int64)


def small_search_seconds(points: float, n: int, k: int) -> float:
    """Estimated seconds of :func:`_one_point_searches` at ``points`` points of R(n) where ``n <= Dc``:
    :data:`SMALL_SEARCH_SECONDS` each (a constant plus a data set of R(n), all of them in its ball) where |R(n)| is
    within the measured :data:`SMALL_SEARCH_ROWS`, else :data:`ONE_SEARCH_SECONDS` (its cost a data set grows with
    |R(n)|: 103 ms at n = 60, eps = 0.25, |R(n)| = 39,711)."""
    rows = float(n_candidates(n, k))
    c = SMALL_SEARCH_SECONDS if rows <= SMALL_SEARCH_ROWS else ONE_SEARCH_SECONDS
    return float(points) * (c[0] + c[1] * rows)


#: One one-point local search at a kept projection of the k >= 4 corner release where ``n <= Dc``
#: (:meth:`LatticeMechanism._corner_column_any`, :meth:`LatticeMechanism._small_corner_column_plan`): CPU seconds, a
#: constant and a data set of R(n) times ``max(1, 1 / eps)``, where |R(n)| is within :data:`SMALL_SEARCH_ROWS` (past
#: it :func:`small_search_seconds`' cost); read at k >= 5 and below :data:`SMALL_CORNER_SEARCH_MIN_EPSILON`, where
#: :data:`SMALL_CORNER_SEARCH_K4` was not measured.  Measured Dir(1,1,1,1), worst, on the 2 shared cores (CPU ms a
#: search; |R(n)|): 2026-12-01 at load ~5, the release at the centre: eps = 1, n = 28: 3,409 searches, 1.11 ms (4,495);
#: n = 29: 3,655, 1.36 ms (4,960); and :data:`SMALL_SEARCH_SECONDS`' 200-point runs: 0.45 (eps 0.5, n = 10, 286), 0.84
#: (n = 20, 1,771), 2.05 (n = 26, 3,654), 0.86 (eps 1, n = 20), 0.49 (eps 2, n = 18, 1,330), 0.29 (eps 4, n = 9, 220).
#: The fit 1.75x to 3x above each (tests/library/test_noise_aware_k4_corner_orbits_h74k4.py).
SMALL_CORNER_SEARCH_SECONDS = (8e-4, 4e-7)
#: The same search at k = 4 from :data:`SMALL_CORNER_SEARCH_MIN_EPSILON`, since R(n) and its sums are read once
#: (``remap.rn_sums``): CPU seconds ``c0 + c1 x |R(n)|`` a search, ``c1`` doubled where |R(n)| is past ``past``, up to
#: :data:`SMALL_CORNER_SEARCH_ROWS`.  Measured 2026-12-06 on one idle host (load ~1; ``python
#: benchmarks/small_corner_search_k4.py --out benchmarks/small_corner_search_k4.json ...``, 300 points of R(n) a cell):
#: eps 0.5, n = 10 to 56: 0.15 to 7.0 ms (0.22 us a data set at n = 56), n = 60 to 72: 13.0 to 25.7 ms (0.33 to 0.42
#: us); eps 0.6 to 4 at or below eps 0.5's; the column's own searches alike (eps 0.6, n = 30, (8, 8, 7, 7): 5,022 in
#: 4.8 CPU s, 0.96 ms).  The fit is 1.7x to 6.9x over each (1.7x to 2.6x at eps 0.5 from n = 12;
#: tests/library/test_small_corner_search_k4.py).  No ``1 / eps`` factor: where ``n <= Dc`` every search reads all of
#: R(n), so eps sets only how far it moves (eps 0.5 and 0.6 at n = 30: 1.15 and 1.11 ms); below eps 0.5, where it
#: moves further (eps 0.25, n = 60: 234 ms), the term above stays (the k = 4 corner release starts at eps 0.5,
#: :func:`corners_fit`).
SMALL_CORNER_SEARCH_K4 = (5e-4, 3.5e-7, 35_000.0)  # c0, c1, past
#: The measured range of :data:`SMALL_CORNER_SEARCH_K4`: |R(72)|, the largest ``n <= Dc`` from eps 0.5 at k = 4.
SMALL_CORNER_SEARCH_ROWS = 67_525
#: The smallest eps :data:`SMALL_CORNER_SEARCH_K4` holds at.
SMALL_CORNER_SEARCH_MIN_EPSILON = 0.5


def small_corner_search_seconds(points: float, n: int, k: int, epsilon: float) -> float:
    """Estimated seconds of :func:`_one_point_searches` at ``points`` kept projections of the k >= 4 corner release
    where ``n <= Dc``, from the count and public n, k, eps: at k = 4 from :data:`SMALL_CORNER_SEARCH_MIN_EPSILON` with
    |R(n)| within :data:`SMALL_CORNER_SEARCH_ROWS`, :data:`SMALL_CORNER_SEARCH_K4` each; elsewhere
    :data:`SMALL_CORNER_SEARCH_SECONDS` each where |R(n)| is within :data:`SMALL_SEARCH_ROWS`, else
    :func:`small_search_seconds`.  The plan and the run's check read it."""
    rows = float(n_candidates(n, k))
    if int(k) == 4 and float(epsilon) >= SMALL_CORNER_SEARCH_MIN_EPSILON and rows <= SMALL_CORNER_SEARCH_ROWS:
        c0, c1, past = SMALL_CORNER_SEARCH_K4
        return float(points) * (c0 + c1 * rows * (2.0 if rows > past else 1.0))
    if rows > SMALL_SEARCH_ROWS:
        return small_search_seconds(points, n, k)
    c0, c1 = SMALL_CORNER_SEARCH_SECONDS
    return float(points) * (c0 + c1 * rows * max(1.0, 1.0 / float(epsilon)))


def _inside_seconds(points: float, n: int, k: int, epsilon: float) -> float:
    """Estimated seconds of the local search at ``points`` points of R(n) away from its faces (the local column's
    points near a release inside R(n)): the batched search (:func:`batched_seconds`) where its tables fit
    (:data:`SEARCH_TABLE_BYTES`), else :data:`INSIDE_SHARE` of a draw's one-point search each."""

    if _search.batch_tables_fit(k, n, epsilon):
        return sum(batched_seconds(k, epsilon, points, 0.0))
    return points * INSIDE_SHARE * local_seconds(k, epsilon)


def _certified_seconds(prior, points: float, n: int, k: int, epsilon: float) -> float:
    """Estimated seconds of the local column's points of R(n) below :data:`COLUMN_BATCH_MIN_EPSILON`: the stay
    certificate at every point (one per orbit at a symmetric prior: counted as ``k! / 2`` points an orbit, measured
    3.1 at k = 3, n = 1e3, eps = 0.1; the run counts its orbits, :func:`_check_stays`), then :data:`STAY_MISS_SHARE` of
    them searched, each at :data:`INSIDE_SHARE` of a draw's one-point search (as without the certificate)."""
    a = np.asarray(prior, dtype=np.float64)
    orbit = math.factorial(k) / 2 if np.all(a == a[0]) else 1
    return (_stay_seconds(points / orbit, k, epsilon)
            + STAY_MISS_SHARE * points * INSIDE_SHARE * local_seconds(k, epsilon))


#: The share of the local column's searched parts (points off R(n), far from it at small n) that the grouped route
#: leaves undecided and hands to the one-point search: ``min(1, COLUMN_TIE_SHARE / (n eps))``, above the errors'
#: :func:`tie_share` (measured 2026-11-29, Dir(1,...,1), the release at the centre: k = 4, n = 10, eps = 1, 11,556 of
#: 50,108 parts (0.23); k = 3, n = 15, eps = 0.1, 86,157 of 107,062 (0.80), 83 CPU s in all).
COLUMN_TIE_SHARE = 2.5
#: k = 4, eps = 1, where every data set of R(n) lies within a searched part's ball and |R(n)| is within
#: :data:`COLUMN_PART_ROWS` (n = 30 to 50): the local column's searches (its parts and its points of R(n) together)
#: cost this many CPU seconds per searched point and data set of R(n), all in (the grouped route, its exact steps at
#: the near ties, the one-point searches), with :data:`GROUP_SECONDS`' constant a part.  Measured 2026-11-30,
#: Dir(1,1,1,1), the release at the centre, ``time.process_time`` of the searches in one process (load 2-8): n = 30,
#: 83,507 points, 25.6 s (5.6e-8); n = 40, 91,939, 65.8 s (5.8e-8); n = 50, 84,207, 123.3 s (6.25e-8); the fit 1.2x the
#: largest.  The terms :func:`_parts_seconds` sums elsewhere planned these at 2.1x, 1.9x and 1.7x their runs.
COLUMN_PART_ROW_SECONDS = 7.5e-8
#: The range of |R(n)| where :data:`COLUMN_PART_ROW_SECONDS` was measured (k = 4: n = 30 to 50).
COLUMN_PART_ROWS = (5456, 23426)


#: k = 3 where ``Dc >= n`` (every data set of R(n) in each search's ball: the grouped search's whole-ball route,
#: :func:`~dpposterior.lattice.batched._grouped_search`), eps and |R(n)| within the measured range
#: (:data:`WHOLE_COLUMN_EPSILON`, :data:`WHOLE_COLUMN_ROWS`): the local column's searches cost ``c0 + c1 |R(n)| / eps``
#: CPU seconds a searched point, all in (the grouped route and its exact steps at the near ties).  Measured
#: 2026-12-01, Dir(1,1,1), the releases of seed 1, ``time.process_time`` of the searches in the release's own process
#: (load 2.2 to 2.3): eps = 0.1, n = 50, 134,550 points, 18.3 s (136 us a point); eps = 0.15, n = 50, 68,790, 9.9 s
#: (144 us); eps = 0.1, n = 100, 162,230, 80.6 s (497 us); eps = 0.15, n = 100, 70,207, 23.7 s (338 us).  The fit
#: 1.4x to 1.9x above each (the terms :func:`_parts_seconds` sums elsewhere planned them at 1.8x, 0.9x, 1.3x, 1.8x: the
#: second below its run), the most at eps 0.15, n = 100, whose whole process ran up to 39.7 CPU s at load ~5 (planned
#: 44.4 s; ``benchmarks/noise_aware_k3_h71.json``).
WHOLE_PART_SECONDS = (7e-5, 1.45e-8)
#: :data:`WHOLE_PART_SECONDS` at eps up to ``WHOLE_CUT_EPSILON`` (a walk that enters a cycle ended by its period,
#: :class:`~dpposterior.lattice.batched._Walks`): refitted on the whole ``release --noise-aware`` process (Dir(1,1,1),
#: seed 1, CPU s at load 3 to 9, 2026-12-01, ``benchmarks/noise_aware_k3_h74na3.json`` and
#: ``benchmarks/noise_aware_k3_h73na3.json``): eps = 0.1, n = 41, 45, 49, 51, 55, 56 (next to a face), 58 (next to a
#: face), 60, 100: 11.8, 12.3, 14.4, 15.8, 18.5, 19.2, 23.6, 24.7, 62.1 s; eps = 0.105 to 0.117, n = 51: 10.1 to 14.0 s;
#: eps = 0.12, n = 45, 80 (centre and next to a face), 100: 9.2, 26.5 and 23.9, 38.3 s; the edges it opens, eps = 0.1,
#: n = 71 (centre, next to a face): 27.5, 26.6 s; eps = 0.12, n = 97: 39.4 s (load 10.4).  The fit with the plan's
#: other terms 1.2x to 1.97x above each (the constants before: 2.25x to 3.1x), 1.18x above eps = 0.1, n = 100 at load
#: 8.6 (69.4 s; planned 82 s, refused by the default limit).  c1 was then raised from 7.9e-9 (9 %) because an edge
#: that fit admitted ran 1.10x under it: eps = 0.12, n = 93 next to a face, (2, 45, 46) with seed 2, 40.1 s against
#: 44.3 planned; it admits eps 0.1 to n = 67 and eps 0.12 to n = 90 (small n planned up to 2.15x their runs).
#: Above eps 0.12 (eps = 0.15, n = 100 ran 39.7 s against 44.4 planned) the constants before.
WHOLE_CUT_SECONDS, WHOLE_CUT_EPSILON = (3.5e-5, 8.6e-9), 0.12
#: The same cells' filters (:func:`~dpposterior.lattice.column.search_filter`: the risk filter at every point of the
#: region, the descent filter at those it keeps), CPU seconds a region point all in: measured 4.49 s (323,610 points),
#: 2.24 s (152,628), 5.94 s (365,085) and 2.39 s (181,503), 1.4e-5, 1.5e-5, 1.6e-5 and 1.3e-5 a point; the fit ~1.5x
#: the largest (the terms :data:`RISK_SECONDS` and :data:`FILTER_SECONDS` planned these at 4.2x, 2.8x, 1.8x, 1.6x).
WHOLE_FILTER_SECONDS = 2.4e-5
#: The same cells' peak bytes over the interpreter with the library loaded (peak RSS less a refused call's), a region
#: point: 176 MB (323,610 points, 544 bytes each), 106 MB (152,628, 695), 307 MB (365,085, 841), 231 MB (181,503,
#: 1,273; the last two below the region plan's other terms, 377 and 342 MiB).  The fit: at least this many bytes a
#: region point in all (the region plan's bytes were 144 MB at the first, 110 MB at the second).
WHOLE_POINT_BYTES = 1000.0
#: The range of eps and of |R(n)| where :data:`WHOLE_PART_SECONDS`, :data:`WHOLE_FILTER_SECONDS` and
#: :data:`WHOLE_POINT_BYTES` hold (k = 3, n = 41 to 100).  Fitted at n = 50 to 100 (above) with the searches' walks in
#: full; with a walk that enters a cycle ended by its period (:class:`~dpposterior.lattice.batched._Walks`, the same
#: outputs) the whole process of ``release --noise-aware`` (Dir(1,1,1), seed 1, CPU s at load 5 to 7, 2026-12-01)
#: ran: eps = 0.1, n = 41, 45, 49, 51, 60, 100: 11.8, 12.3, 14.4, 15.8, 21.1, 62.1 s against 33.8, 38.0, 42.6, 45.1,
#: 58.0, 140 planned (2.3x to 3.0x); eps = 0.105, 0.11, 0.115, 0.117 at n = 51: 14.0, 12.5, 11.0, 10.1 s against 40.3,
#: 36.1, 32.6, 31.3; eps = 0.12, n = 100: 32.1 to 35.9 s against 84; eps = 0.12, n = 45: 9.2 s against 25.1; eps = 0.15,
#: n = 45 and 49: 5.4 to 5.9 and 6.1 s against 15.4 and 17.1 (``benchmarks/noise_aware_k3_h73na3.json``).  Before the
#: cycles were cut, eps 0.1 to 0.115 at n = 51 to 60 ran 1.2x to 6.7x over these plans (a walk between two tied
#: outputs ran to SEARCH_STEPS moves, each an exact step), so the column was refused there by a rule below eps 0.12;
#: from eps 0.1 the plans are now the fit's, and the rule holds below eps 0.1 only (:func:`whole_column_unplanned`).
WHOLE_COLUMN_EPSILON, WHOLE_COLUMN_ROWS = (0.1, 0.15), (903, 5151)


def whole_column_fit(n: int, k: int, epsilon: float) -> bool:
    """Whether the local column's searches, filters and bytes are planned by the whole-ball fit
    (:data:`WHOLE_PART_SECONDS`, :data:`WHOLE_FILTER_SECONDS`, :data:`WHOLE_POINT_BYTES`): k = 3, ``Dc >= n`` and eps,
    |R(n)| within the measured range; public n, k, eps."""
    eps = float(epsilon)
    return (int(k) == 3 and WHOLE_COLUMN_EPSILON[0] <= eps <= WHOLE_COLUMN_EPSILON[1]
            and _radius(int(k), eps, 1e-12) >= int(n)
            and WHOLE_COLUMN_ROWS[0] <= n_candidates(int(n), int(k)) <= WHOLE_COLUMN_ROWS[1])


#: Below this eps and past the whole-ball fit's rows (|R(n)| above ``WHOLE_COLUMN_ROWS[1]``, from n = 101), where the
#: region route's plan does not count its points by the sample alone, the local column is not planned
#: (:func:`whole_column_unplanned`).  Measured (Dir(1,1,1), ``release --noise-aware``, seed 1, counts (64, 64, 64),
#: ``DPPOSTERIOR_MAX_SOLVE_SECONDS=1000``, 2026-12-01): eps = 0.105, n = 192 ran 112 CPU s against 28.2 s planned,
#: and its run's own check estimated 183 s; between n = 101 and 191 every such cell is planned over 45 s (eps 0.1,
#: n = 150: 233 s planned, 140 s run), so the rule refuses no cell the plan admitted but that one.
WHOLE_UNPLANNED_EPSILON = 0.12


def whole_column_unplanned(n: int, k: int, epsilon: float) -> str:
    """The one-line reason the local column is not planned, or ``""``; k = 3, ``Dc >= n``, where the region route's
    plan does not count its points by the sample alone (read by :meth:`LatticeMechanism._region_column_plan`), and
    either eps below the whole-ball fit's range (``WHOLE_COLUMN_EPSILON[0]`` = 0.1) with |R(n)| past 1,326 (from
    n = 51: no run there measured against the terms that would plan them), or eps below
    :data:`WHOLE_UNPLANNED_EPSILON` with |R(n)| past the fit's rows (from n = 101: a plan measured under its run);
    public n, k, eps."""
    eps, n, k = float(epsilon), int(n), int(k)
    if k != 3 or _radius(k, eps, 1e-12) < n:
        return ""
    rows = n_candidates(n, k)
    if eps < WHOLE_COLUMN_EPSILON[0] and rows > n_candidates(50, 3):
        return (f"the noise-aware posterior's local column for k={k}, n={n}, eps={eps:g} is not computed "
                f"(local column): below eps {WHOLE_COLUMN_EPSILON[0]:g} from n = 51 its searches have no measured plan")
    if eps < WHOLE_UNPLANNED_EPSILON and rows > WHOLE_COLUMN_ROWS[1]:
        return (f"the noise-aware posterior's local column for k={k}, n={n}, eps={eps:g} is not computed "
                f"(local column): below eps {WHOLE_UNPLANNED_EPSILON:g} from n = 101 its searches have no plan "
                "that their measured runs stay under")
    return ""


#: k = 3 where the plan counts every release (:func:`sampled_parts_route`): the local column's search at its distinct
#: positive parts off R(n) or next to its faces costs ``c0 + c1 Dc min(|ball|, |R(n)|)`` CPU seconds a part (``Dc``
#: the data-set radius, ``|ball|`` the data sets within ``Dc`` of a point, ``|R(n)|`` the data sets: a part's group
#: reads at most ``min(|ball|, |R(n)|)`` of them, its walk about ``Dc`` steps), all in (the grouped route, its exact
#: steps at the near ties, the one-point searches).  Measured (Dir(1,1,1), :func:`_search_points` on the parts and the
#: points of R(n) the stay certificate leaves, ``time.process_time`` in one process, the limit raised, 2026-12-02),
#: CPU s of the search (parts; ms a part; load): eps 0.15, n = 204, (44, 80, 80) 26.0 s (19,934; 1.31; 4.8) and (10,
#: 10, 184) 55.0 s (47,744; 1.15; 8.3); eps 0.3, n = 204, (8, 8, 188) 8.3 s (12,982; 0.64; 8.3); eps 0.25, n = 300,
#: (12, 12, 276) 22.9 s (18,455; 1.24; 8.7); eps 0.15, n = 300, (16, 16, 268) 141.9 s (50,526; 2.81; 11.5); and
#: past the sampled route, eps 0.2, n = 1,000, (10, 10, 980) 114.8 s (30,816; 3.72; 13.3).  The line through them
#: times ``SAMPLED_PART_MARGIN``: the term 1.22x (the last) to 1.77x (eps 0.25) each search.  The terms before
#: (:data:`GROUP_SECONDS`, ties, one-point) were 1.9x to 3.9x these runs.
SAMPLED_PART_SECONDS = (1.5e-4, 2.75e-10)
SAMPLED_PART_MARGIN = 1.25
#: CPU seconds of one release's sample in :func:`_sampled_release_off` (the plan's own work, counted in the plan: the
#: whole command runs it).  Measured 2026-12-02 (Dir(1,1,1), load ~8): 0.37 to 0.78 s a release at eps 0.1 to 0.3,
#: n = 204 to 1,000 (the most at n = 1,000, eps 0.1).
SAMPLED_RELEASE_SECONDS = 0.8


def sampled_parts_route(n: int, k: int, epsilon: float) -> bool:
    """Whether :func:`_parts_seconds` reads :data:`SAMPLED_PART_SECONDS`: k = 3, eps within
    :data:`SAMPLED_PART_EPSILON` and from :data:`SAMPLED_PART_MIN_ROWS` data sets (where it was measured), the centre's
    region reaching off R(n)
    (:func:`sampled_column`: the plan counts every release, :func:`sampled_release_probes`), not the whole-ball fit
    (:func:`whole_column_fit`, measured all in) and the batched search's tables fitting; public n, k, eps.  The plan
    and the run's check (:func:`_check_searches`) read it through :func:`_parts_seconds`."""
    eps, n, k = float(epsilon), int(n), int(k)
    return (k == 3 and SAMPLED_PART_EPSILON[0] <= eps <= SAMPLED_PART_EPSILON[1]
            and (sampled_column(n, k, eps) or family_past_reach(n, k, eps))
            and n_candidates(n, k) >= SAMPLED_PART_MIN_ROWS and not whole_column_fit(n, k, eps)
            and _search.batch_tables_fit(k, n, eps))


#: The eps where :data:`SAMPLED_PART_SECONDS` was measured, and the fewest data sets (|R(204)|): below them (n up to
#: 203, where a part's group reads all of R(n) and its constant terms weigh more) the terms before are kept.
SAMPLED_PART_EPSILON, SAMPLED_PART_MIN_ROWS = (0.1, 0.3), 21115


def _parts_seconds(parts: float, n: int, k: int, epsilon: float) -> float:
    """Estimated seconds of the local search at ``parts`` distinct points off R(n) (or of R(n) next to its faces), one
    a positive part ``max(z, 0)`` (the search reads only it): the batched search's grouped route where its tables fit
    (:data:`SEARCH_TABLE_BYTES`; :data:`GROUP_SECONDS` a part, and :data:`COLUMN_TIE_SHARE` of them handed to the
    one-point search), else :data:`LOCAL_COLUMN_POINT` plus :data:`LOCAL_COLUMN_SHARE` of a draw's one-point search
    each.  At k = 4, eps = 1, n = 30 to 50 (R(n) within a part's ball): :data:`COLUMN_PART_ROW_SECONDS` per part and
    data set of R(n), the searches' measured cost all in; at k = 3 where ``Dc >= n`` (:func:`whole_column_fit`),
    :data:`WHOLE_PART_SECONDS` likewise; at k = 3 where the plan counts every release (:func:`sampled_parts_route`),
    :data:`SAMPLED_PART_SECONDS`."""

    if whole_column_fit(n, k, epsilon):  # measured all in (WHOLE_PART_SECONDS; WHOLE_CUT_SECONDS up to eps 0.12)
        c = WHOLE_CUT_SECONDS if float(epsilon) <= WHOLE_CUT_EPSILON else WHOLE_PART_SECONDS
        return parts * (c[0] + c[1] * float(n_candidates(n, k)) / float(epsilon))
    if sampled_parts_route(n, k, epsilon):  # measured at face and vertex releases (SAMPLED_PART_SECONDS)
        Dc = _radius(k, float(epsilon), 1e-12)
        ball = float(sum(sphere_count(k, t) for t in range(Dc + 1)))
        c0, c1 = SAMPLED_PART_SECONDS
        return parts * SAMPLED_PART_MARGIN * (c0 + c1 * Dc * min(ball, float(n_candidates(n, k))))
    if _search.batch_tables_fit(k, n, epsilon):
        ball = float(sum(sphere_count(k, t) for t in range(_radius(k, float(epsilon), 1e-12) + 1)))
        rows = float(n_candidates(n, k))
        ties = min(1.0, max(tie_share(n), COLUMN_TIE_SHARE / (max(1, int(n)) * float(epsilon))))
        # a near tie is taken by the grouped route's exact steps (the one-point search's floats on its kept set),
        # not handed to the one-point search (:data:`EXACT_TIE_SECONDS`, its data sets as :func:`orbit_seconds`')
        if (int(k) == 4 and float(epsilon) == 1.0 and rows <= ball
                and COLUMN_PART_ROWS[0] <= rows <= COLUMN_PART_ROWS[1]):  # measured all in (COLUMN_PART_ROW_SECONDS)
            return parts * (GROUP_SECONDS[0] + COLUMN_PART_ROW_SECONDS * rows)
        tie = EXACT_TIE_SECONDS[0] + EXACT_TIE_SECONDS[1] * min(ball / 2.0, rows)
        return (parts * (GROUP_SECONDS[0] + GROUP_SECONDS[1] * min(ball, rows))
                + ties * parts * tie + min(rows, parts) * ONE_POINT_SECONDS[2] * ball)
    return parts * (LOCAL_COLUMN_POINT + LOCAL_COLUMN_SHARE * local_seconds(k, epsilon))


#: Bytes of the local column's reach region (enumerated, keyed and projected: 8 k words a point) past which a k >= 4
#: release searched by the local search enumerates the region's classes of positive part instead
#: (:func:`~dpposterior.lattice.column.reach_classes`, one point and its count a class: the same column), so that every
#: region admitted before keeps its route and its floats.  At k = 4, eps = 0.25: n = 10, 17.1 M points (4.1 GiB) in
#: 1.41 M classes; n = 100, 30.9 M in 6.55 M.
PART_CLASS_MIN_BYTES = 2.0 * 2**30


def part_class_route(n: int, k: int, epsilon: float, W: int, Dc: int) -> bool:
    """Whether the local column of a release searched by the local search (not the corner or face table's) enumerates
    the reach region by positive-part classes: ``k >= 4``, the region enumerated whole (not the cut route: the centre's
    counts within ``(k - 1) Dc``) and its points' bytes past :data:`PART_CLASS_MIN_BYTES`; public n, k, eps."""
    from ..lattice.column import reach_size

    if k < 4 or n // k > (k - 1) * Dc:
        return False
    return 8.0 * 8 * k * min(float(reach_size(k, Dc)), float(_window_size(n, k, W))) > PART_CLASS_MIN_BYTES


#: The sampled route's kept points of R(n) that the stay certificate leaves to the batched search, where the centre's
#: kept points reach the faces (``n < SAMPLED_FACE_RATIO Dc``, public): their share and seconds each, in a plan.
#: Measured (Dir(1,1,1), CPU s at load ~4, 2026-12-01, the releases drawn at the centre with seed 1): eps = 0.1, n = 300
#: (n / Dc = 0.93), 1,889 of 16,291 kept points left (0.116), their search ~24.7 s (13 ms each); eps = 0.15, n = 200
#: (0.93), 164 of 7,621 (0.022); none of 10,516, 23,388, 29,879 at eps = 0.15, n = 300 (1.40) and eps = 0.1, n = 500
#: (1.55), 700 (2.17).  The fit: the largest share and cost measured, ~1.2x.
SAMPLED_FACE_RATIO, SAMPLED_MISS_SHARE, SAMPLED_MISS_SECONDS = 1.2, 0.14, 0.015
#: :data:`SAMPLED_MISS_SECONDS` where ``Dc >= n`` (every group of the grouped search reads all of R(n): its data sets
#: computed once, its loss rows kept across groups, no table step; :func:`~dpposterior.lattice.batched._grouped_search`).
#: Measured (Dir(1,1,1), the release of seed 1 at (100, 100, 100), eps = 0.1, n = 300, the 1,889 points left, CPU s of
#: ``local_search_batch`` alone at load ~2 to 4, 2026-12-01): 9.4 s (5.0 ms each) against 28.7 s (15.2 ms) before.
#: The fit ~1.5x.
SAMPLED_MISS_WHOLE_SECONDS = 0.0075
#: Bytes the sampled route's plan adds to the region route's (the risk filter's blocks and the stay certificate's
#: tables beside the region): the runs' peak growth over the interpreter with the library loaded was 3 to 52 MB above
#: the region route's bytes (Dir(1,1,1), eps = 0.15, n = 200, 300; eps = 0.1, n = 500, 700:
#: ``benchmarks/release_k3_holes.json``, the new tree's peak less the old tree's refusal's).  Added wherever
#: :func:`sampled_column` holds (k = 3, the centre's region off R(n): the risk filter runs first over the region), also
#: where :func:`~dpposterior.lattice.column.filtered_estimate` finds an edge: measured there (Dir(1,1,1), eps = 0.15,
#: n = 50, the release at (17, 17, 16), 2026-12-01, ``benchmarks/plans_h71.json``): 134 MiB traced peak (tracemalloc,
#: the release and its column), 158 to 165 MiB RSS growth over the same command at n = 5 before it, against 105 MiB
#: planned without these bytes (185 MiB with them).
SAMPLED_BYTES = 80.0 * 2**20


def sampled_column(n: int, k: int, epsilon: float) -> bool:
    """Whether the local column's plan (:meth:`LatticeMechanism._region_column_plan`) counts the points both filters
    keep by :func:`~dpposterior.lattice.column.filtered_sample` alone where
    :func:`~dpposterior.lattice.column.filtered_estimate` finds no edge (the descent filter keeps every data set near
    the centre: Dir(1,1,1), eps = 0.15, n = 200), rather than every region point at a one-point search's cost: k = 3
    and the centre's region reaching off R(n) (``n // k <= (k - 1) Dc``), where the risk filter runs first and the
    sample counts what it leaves; public n, k, eps.  The run counts its own kept points against the solve limit
    (:func:`_check_stays`, :func:`_check_searches`), so a release the sample undercounts is refused in one line.
    Measured (Dir(1,1,1), the release at the centre, ``benchmarks/release_k3_holes.json``): eps = 0.15, n = 200, the
    filters keep 7,632 points, all in R(n) (the sample: 7,580), 4.8 CPU s in all against 2.7e4 s planned before."""
    Dc = _radius(k, float(epsilon), 1e-12)
    return int(k) == 3 and int(n) // int(k) <= (int(k) - 1) * Dc


#: The sampled plan's second release (:func:`sampled_probe`): the centre's least count lowered by
#: ``SAMPLED_PROBE_SHARE`` of the noise's median distance ``radius_for(k, eps, SAMPLED_PROBE_TAIL)`` (17 at eps 0.1, 12
#: at eps 0.15).  Why: the points off R(n) that both filters keep jump with the release's least count.  Dir(1,1,1),
#: counted exactly (2026-12-01): eps = 0.1, n = 204, at the centre (68, 68, 68) none of 12,247 kept points is off R(n),
#: at (67, 69, 68) 36,428 of 48,674 are, at (65, 66, 73) 84,175 (the release of seed 1 at the data (68, 68, 68) was
#: (67, 66, 71): 76,150, its search checked at ~215 s, 139 CPU s run), so a plan that counted the centre alone was
#: 27 s; n = 300: none at (80, 110, 110) and (75, 113, 112), 36,414 at (70, 115, 115), 63,753 at (30, 176, 94);
#: eps = 0.15, n = 204: none at (50, 92, 62), 23,659 at (39, 80, 85).  How far releases fall (the remap pulls them in):
#: seeds 1 to 16 at the data (100, 100, 100), eps = 0.1, lowered the least count by 1 to 70 (median 12, 7 of 16 by 17
#: or more, 3 past the jump); seeds 1 to 12 at (68, 68, 68), eps = 0.15, by 1 to 29 (median 7, 4 of 12 by 12 or more,
#: 1 past the jump).  A release past the probe keeps more (next to a face or a vertex), so the plan counts the most
#: over :func:`sampled_release_probes`, the probe among them.  Below :data:`COLUMN_BATCH_MIN_EPSILON` only (the stay
#: certificate's route, where the runs above were measured).
SAMPLED_PROBE_TAIL, SAMPLED_PROBE_SHARE = 0.5, 0.5


def sampled_probe(n: int, k: int, epsilon: float) -> NDArray[np.int64] | None:
    """The second release the sampled plan counts (:meth:`LatticeMechanism._region_column_plan`), or ``None``: where
    :func:`sampled_column` holds below :data:`COLUMN_BATCH_MIN_EPSILON`, the centre ``c0`` of R(n) with its least count
    ``c`` (the first of them) lowered by ``min(c, floor(SAMPLED_PROBE_SHARE radius_for(k, eps, SAMPLED_PROBE_TAIL)))``
    and that amount added to the other counts as evenly as it goes (the first of them first), so that it stays in
    R(n); public n, k, eps.  One of :func:`sampled_release_probes`, over which the plan takes the most kept points off
    R(n) (those :func:`_parts_seconds` plans); the run counts its own release's (:func:`_check_searches`)."""
    eps, n, k = float(epsilon), int(n), int(k)
    if eps >= COLUMN_BATCH_MIN_EPSILON or not sampled_column(n, k, eps):
        return None
    c = np.full(k, n // k, dtype=np.int64)
    c[: n - int(c.sum())] += 1
    i = int(np.argmin(c))
    low = min(int(c[i]), int(SAMPLED_PROBE_SHARE * _radius(k, eps, SAMPLED_PROBE_TAIL)))
    c[i] -= low
    rest = [j for j in range(k) if j != i]
    for t, j in enumerate(rest):
        c[j] += low // (k - 1) + (1 if t < low % (k - 1) else 0)
    return c


#: Where :func:`sampled_column` holds, the releases :func:`sampled_release_probes` names besides the centre and the
#: probe, as shares of ``Dc = radius_for(k, eps, 1e-12)``: next to a face (the least count ``t Dc``, the others even)
#: and next to a vertex (the two least counts ``t Dc``, the third the rest).  Why: the distinct positive parts off R(n)
#: (or next to its faces) that both filters keep are a function of the release's distance to the faces, in three
#: regimes, and the most sits on a plateau next to a vertex.  Dir(1,1,1), counted by the sample
#: (:func:`sampled_release_parts`, 2026-12-02; ``t`` of the face's least count, then of the vertex's two): eps = 0.15, n
#: = 204 (``Dc`` = 215): none at the centre and the probe, 28,976 / 29,126 / 20,948 along a face at t = 0, 0.1, 0.2,
#: and 34,706 / 43,365 / 46,666 / 49,374 / 49,633 / 48,580 next to a vertex at t = 0 to 0.125 by 0.025; eps = 0.1, n =
#: 300: 62,048 / 64,199 / 49,681 and 77,656 to 113,391 (the most at t = 0.1); n = 1,000: 95,579 / 94,944 / 71,320 and
#: 87,174 to 125,455 (t = 0.1); eps = 0.25, n = 300: 14,844 / 14,648 / 10,664 and 12,709 to 17,972 (t = 0.1); eps =
#: 0.3, n = 204: 9,922 / 9,795 / 7,166 and 9,188 to 12,700 (t = 0.1, 12,660 at 0.125).  So the vertex at t = 0.075
#: and 0.1 (the plateau's top, within 1 % of the most measured at every cell) and the face at t = 0.1 (under the
#: vertex at every cell measured: a guard) stand for every release; 5 samples in place of 11 (~2.5 s of a plan, not
#: ~5 s).  The regimes' widths scale with ``Dc`` (the noise's reach), so the shares hold across eps.
SAMPLED_FACE_SHARES, SAMPLED_VERTEX_SHARES = (0.1,), (0.075, 0.1)
#: Where the family is costed release by release (:func:`family_costed`: past the centre's reach, and within it from
#: n = 205) it also holds a release on the face's plateau: least count ``floor(0.03 Dc)``.  There the most sits along
#: a face, at least counts 2 to 8, not next to a vertex.
#: Dir(1,1,1), n = 1,000, the distinct parts and points of R(n) the stay certificate leaves, as the run's check
#: counts them (2026-12-02): eps 0.25, least count 0, 1, 4, 8, 12 (0.1 Dc): 26,784 + 2,633, 27,496 + 3,325, 27,790 +
#: 4,149, 26,990 + 4,562, 27,790 + 3,737 at (2, 499, 499); the vertex (10, 10, 980) 20,434 + 1,353; eps 0.2, least
#: count 0, 2, 4, 16 (0.1 Dc): 35,834 + 2,359, 37,138 + 2,579, 37,388 + 2,595, 34,204 + 2,595; its vertices (10, 10,
#: 980) and (2, 2, 996) 30,816 + 768 and 26,242 + 330.
FAMILY_FACE_SHARES = (0.03,)


def sampled_release_probes(prior, n: int, k: int, epsilon: float) -> list[NDArray[np.int64]]:
    """The public releases over which the local column's plan takes the most kept points off R(n)
    (:meth:`LatticeMechanism._region_column_plan`), k = 3 where the centre's region reaches off R(n)
    (:func:`sampled_column`; else empty): the centre of R(n), :func:`sampled_probe` (where given), and the releases
    of :data:`SAMPLED_FACE_SHARES` and :data:`SAMPLED_VERTEX_SHARES` (counts ``floor(t Dc)`` clipped to ``n // k``:
    next to each face and each vertex), each in every distinct order of its counts unless the prior is symmetric (every
    ``a_i`` equal: the filters' counts are then the same at every permutation of a release, the sample's box and draws
    permuted with it, up to the sample's noise); public prior, n, k, eps.  Every release of R(n) lies in one of the
    three regimes these points sample (next to a vertex, along a face, in the middle, where the centre and the probe
    stand), so the most over them is what a plan over every release counts: a stated, measured family, not a proof
    (the run still checks its own release, :func:`_check_searches`)."""
    eps, n, k = float(epsilon), int(n), int(k)
    if k != 3 or not (sampled_column(n, k, eps) or family_past_reach(n, k, eps)):
        return []
    from ..lattice.column import _centre

    probe = sampled_probe(n, k, eps)
    Dc = _radius(k, eps, 1e-12)
    out = [_centre(k, n)] + ([] if probe is None else [probe])
    faces = SAMPLED_FACE_SHARES + (FAMILY_FACE_SHARES if family_costed(n, k, eps) else ())
    for t in faces:
        low = min(int(t * Dc), n // k)
        rest = n - low
        out.append(np.array([low] + [rest // (k - 1) + (1 if j < rest % (k - 1) else 0) for j in range(k - 1)]))
    for t in SAMPLED_VERTEX_SHARES:
        low = min(int(t * Dc), n // k)
        out.append(np.array([low] * (k - 1) + [n - (k - 1) * low]))
    a = np.asarray(prior, dtype=np.float64)
    if not np.all(a == a[0]):
        from itertools import permutations

        out = [np.array(q, dtype=np.int64) for r in out for q in sorted(set(permutations(r.tolist())))]
    return [np.asarray(r, dtype=np.int64) for r in out]


def _offcentre_probes(prior: tuple, n: int, epsilon: float) -> list[NDArray[np.int64]]:
    """:func:`sampled_release_probes` but the centre of R(n) (which the plan estimates on its own)."""
    from ..lattice.column import _centre

    c0 = _centre(len(prior), n)
    return [r for r in sampled_release_probes(prior, n, len(prior), epsilon) if not np.array_equal(r, c0)]


def sampled_release_parts(prior, n: int, epsilon: float, Dc: int, W: int, released) -> float:
    """An estimate, from public inputs (for a plan; not a bound), of the distinct positive parts ``max(z, 0)`` of the
    reach region at ``released`` (k = 3) that both filters keep with a count below 2: what the run's check counts
    (:func:`_check_searches`: one point a positive part, :func:`_outputs_m`), not the region's points
    (:func:`~dpposterior.lattice.column.filtered_sample`'s third count, up to 1.6x more next to a vertex).

    Count (proof).  The region's points have ``sum z = n`` and ``z_i >= -W``.  A positive part ``y`` with at most one
    zero count is the part of one point only: none, ``z = y``; one at ``i``, ``z_i = n - sum_{j != i} y_j`` (the other
    counts equal y's).  A part with two zeros (k = 3) is ``y = m e_l`` with ``m = n - z_i - z_j`` in ``[n, n + 2 W]``:
    at most ``3 (2 W + 1)`` of them.  So the parts are the kept points whose part has at most one zero, plus at most
    ``min(3 (2 W + 1), kept points whose part has two)``; both counts taken from the sample of
    :func:`~dpposterior.lattice.column.filtered_sample` (the box's size times the share, one point added to the
    first).  Measured (Dir(1,1,1), eps 0.15, n = 204): at (10, 10, 184) the sample gives 46,666 + 1,005, the run
    counts 47,744 (335 of two zeros); at (44, 80, 80) 20,015 against 19,934."""
    from ..lattice.column import _filtered_sample_points

    scale, z, keep, _ = _filtered_sample_points(np.asarray(prior, dtype=np.float64), n, epsilon, Dc, W, released)
    rest = keep & ~np.all(z >= 2, axis=1)
    zeros = np.count_nonzero(z <= 0, axis=1)  # the zero counts of max(z, 0)
    one = scale * (np.count_nonzero(rest & (zeros <= 1)) + 1)
    return float(one + min(3.0 * (2 * W + 1), scale * np.count_nonzero(rest & (zeros >= 2))))


@lru_cache(maxsize=32)
def _sampled_release_off(prior: tuple, n: int, epsilon: float, Dc: int, W: int) -> tuple[float, int]:
    """``(parts, samples)``: the most distinct kept positive parts off R(n) or next to its faces
    (:func:`sampled_release_parts`) over :func:`sampled_release_probes` but the centre (whose sample the plan has
    already drawn: :func:`~dpposterior.lattice.column.filtered_sample`, the same draws, at least its parts), and the
    releases sampled; cached by its public inputs (each sample up to :data:`SAMPLED_RELEASE_SECONDS`)."""
    rest = _offcentre_probes(prior, n, epsilon)
    return max([0.0] + [sampled_release_parts(prior, n, epsilon, Dc, W, r) for r in rest]), len(rest)


def sampled_face_reach(n: int, k: int, epsilon: float) -> bool:
    """Whether the sampled plan counts the kept points the stay certificate leaves (:data:`SAMPLED_MISS_SHARE` of
    them, :func:`stay_left_seconds` each): ``k`` times the least count of the centre below ``SAMPLED_FACE_RATIO Dc``
    (the kept points reach the faces; ``n`` itself up to its rounding), and wherever :func:`sampled_probe` is given:
    there the plan counts every release (:func:`sampled_release_probes`), those on a face (least count 0) among them.
    Measured (Dir(1,1,1), eps = 0.1, n = 400, ``Dc`` = 322): at the centre (134, 133, 133) the certificate left few
    (7.9 CPU s in all), at the probe (152, 98, 150) 1,476 of 19,467, searched in 18.6 CPU s (30.3 s in all; the plan
    without this term 23.1 s); public n, k, eps."""
    if sampled_probe(n, k, epsilon) is not None:  # every release, those on a face among them
        return True
    Dc = _radius(int(k), float(epsilon), 1e-12)
    return int(k) * (int(n) // int(k)) < SAMPLED_FACE_RATIO * Dc


def stay_left_seconds(points: float, n: int, k: int, epsilon: float) -> float:
    """Estimated seconds of the search at ``points`` points of R(n) the stay certificate leaves (k = 3, the sampled
    route): :data:`SAMPLED_MISS_WHOLE_SECONDS` each where ``Dc >= n``, else :data:`SAMPLED_MISS_SECONDS`.  Read by the
    plan (:func:`sampled_face_reach`) and by the run's check (:func:`_check_searches`, ``stays_left``).  Measured
    (Dir(1,1,1), eps = 0.1, CPU s of the search alone, 2026-12-01): n = 204, the centre, 6,648 points 11.8 s (1.8 ms
    each); n = 300, 1,889 points 9.4 s (5.0 ms); n = 400 (``Dc < n``), 1,476 points 18.6 s (12.6 ms); the batched
    search's terms (:func:`_inside_seconds`) had checked these at 8.3, 2.4 and 1.8 s."""
    each = SAMPLED_MISS_WHOLE_SECONDS if _radius(int(k), float(epsilon), 1e-12) >= int(n) else SAMPLED_MISS_SECONDS
    return float(points) * each


#: Where the family is costed release by release (:func:`family_costed`), a release with a count at most
#: ``FACE_PART_SHARE Dc`` (on a face or next to it, a vertex among them) has its parts' searches planned at
#: :func:`face_part_factor` times :func:`_parts_seconds` (``FACE_PART_FACTOR`` where no row of
#: :data:`FACE_PART_FACTORS` holds).  Measured (Dir(1,1,1), ``posterior --released``, the whole process, CPU s, the
#: limit raised, 2026-12-02, load 5 to 8), against :func:`release_search_seconds` without it: eps 0.3, n = 1,000,
#: (3, 499, 498) 79.9 s (32 s; 2.5x), n = 1e4, (3, 4999, 4998) 139.5 s (43 s; 3.2x); eps 0.25, n = 1,000, (4, 498,
#: 498) over 148 CPU s (stopped; 68 s); the vertices (10, 10, n - 20) at 0.8x to 1.5x of theirs (eps 0.3, n = 1,000:
#: 31.5 s, 21 s).
#: Next to a face the searches of the parts with a zero count run longer than the fit's (measured next to vertices
#: and at faces' least counts 0.1 Dc to 0.2 Dc).  The factor: 1.2x the largest ratio measured.
#: From ``FACE_PART_MIN_N`` only: at eps 0.3, n = 204 the face (2, 101, 101) ran 13.2 s (planned 15.95 without it),
#: at n = 600 (2, 299, 299) 53.4 s (2.1x its check without it); eps 1, n = 1e6, (2, 499999, 499999) 30.7 s.
FACE_PART_SHARE, FACE_PART_FACTOR, FACE_PART_MIN_N = 0.1, 4.0, 205
#: :func:`face_part_factor` by eps and n: rows ``(eps_low, eps_high, n_high, factor)``, the first row with
#: ``eps_low <= eps <= eps_high`` and ``n <= n_high`` read, else :data:`FACE_PART_FACTOR`.  Fitted on the measured
#: face releases (the family's plateau release and its neighbours, ``posterior --released``, the whole process, the
#: limit raised; ``benchmarks/face_runs_h78na3.json``): each row's factor puts the cell's plan at least 1.2 times every
#: run measured at its eps and at an n up to ``n_high``, with the run's CPU s growing with n at a fixed eps (so a row
#: holds below the n measured) and, from eps 0.3 to 0.75, falling with eps at a fixed n (so a row fitted at
#: ``eps_low`` holds up to ``eps_high``).  Not a proof: a measured fit, checked by the run at its own release.
#: Measured (Dir(1,1,1), CPU s; the plan at factor 4 and what the run needs, ``1.2 x run`` over the plan's other terms,
#: as a factor): eps 0.5: n = 1,000, (1, 499, 500) 20.7 s (1.74); n = 1e4, (1, 4999, 5000) 33.1 s (2.48) and (2,
#: 4999, 4999) 29.5 s (2.17); eps 0.75: n = 1,000 7.0 s (1.96), n = 1e4 8.9 s (2.39); eps 0.3: n = 437, (3, 217, 217)
#: 30.8 s (1.58), n = 600, (2, 299, 299) 53.4 s (2.44), n = 1,000 (3, 499, 498) 79.9 s (about 2.9), n = 1e4 139.5 s
#: (about 3.8); eps 1, n = 1e6, (0, 500000, 500000) 46.7 s (3.07); eps 0.25, n = 300, (3, 148, 149) 47.5 s.  Past n =
#: 1e4 at eps 0.5 and 0.75 the parts are planned by the one-point search's terms (the batched search's tables do not
#: fit) and no row is fitted.  Below eps 0.3 the ratios are not measured but over the limit (kept at 4).
#: At eps 1 no row: there the plan's other terms weigh more and the runs sit closer to it (n = 1e4, (0, 5000, 5000)
#: 5.2 s against 7.0 planned at factor 4).
#: Refitted where the searches are priced after the exact descent filter (:func:`exact_filter_priced`: the factor on
#: the parts it keeps, its own cost beside them), on runs with the filter (``benchmarks/face_runs_filter_plan_h81fx.json``,
#: the whole process, CPU s, load 1.4 to 7.3, 2026-12-03; the plan at factor 1 / 4 over the run): eps 1: n = 1e5,
#: (0, 50000, 50000) 4.49 s (1.16x / 1.37x), n = 1e6, 3.19 s (2.95x / 7.1x), `worst` 6.09 s (2.3x / 4.5x); eps 0.75:
#: n = 1e5, (1, 50000, 49999) 3.29 s (2.2x / 2.8x), n = 1e6 4.08 s (1.8x / 2.4x); eps 0.5: n = 1,000, (1, 500, 499)
#: 5.04 s (2.2x), n = 1e4 5.85 s (2.2x), `worst` 12.45 s (2.2x), n = 1e5 6.35 s (6.0x / 18x); eps 0.3: n = 437, (3,
#: 217, 217) 16.5 s (2.0x), n = 600, (2, 299, 299) 23.7 s (1.53x), n = 1,000, (10, 495, 495) 21.2 s (2.1x), n = 1e4,
#: (3, 4999, 4998) 25.8 s (2.4x).  The filter's cost weighs most of these plans (the factor moves eps 0.3 to 0.5 up
#: to n = 1e4 by under 15 %); eps 1 to n = 1e5 needs 1.5 (kept at 2.75), eps 0.3 to 0.75 to n = 1e5 is held by 1.25
#: (the one-point search's terms past the batched tables, n = 1e5, price a part several times its run).  Past the rows
#: (eps 0.5 at n = 1e6, eps 1 at n = 1e6: measured at 4 only) and below eps 0.3 (eps 0.2, n = 1,000, (4, 498, 498) past
#: 60 s) the factor stays 4.
FACE_PART_FACTORS: tuple[tuple[float, float, int, float], ...] = ((0.75, 1.0, 100_000, 2.75), (0.3, 0.75, 100_000, 1.25))


def face_part_factor(n: int, epsilon: float) -> float:
    """The factor :func:`release_search_seconds` puts on a face release's parts (:func:`face_release`): the first row
    of :data:`FACE_PART_FACTORS` that holds at (eps, n), else :data:`FACE_PART_FACTOR`; public n and eps.  Read by the
    plan (:func:`sampled_release_cost`, each release of the family) and by the run's check at its own release."""
    eps, n = float(epsilon), int(n)
    for low, high, most, factor in FACE_PART_FACTORS:
        if low <= eps <= high and n <= most:
            return factor
    return FACE_PART_FACTOR


def face_release(released, n: int, k: int, epsilon: float) -> bool:
    """Whether a public release's parts are planned at :func:`face_part_factor` (:func:`release_search_seconds`):
    :func:`family_costed`, n from :data:`FACE_PART_MIN_N`, and a count of ``released`` at most
    ``FACE_PART_SHARE Dc``."""
    if released is None or int(n) < FACE_PART_MIN_N or not family_costed(n, k, epsilon):
        return False
    return int(np.min(np.asarray(released))) <= FACE_PART_SHARE * _radius(int(k), float(epsilon), 1e-12)


def release_search_seconds(inside: float, parts: float, n: int, k: int, epsilon: float,
                           stays_left: bool = False, released=None) -> float:
    """Estimated seconds of the local column's searches at one release: ``inside`` points of R(n) with every count
    at least 2 by :func:`_inside_seconds` (``stays_left``, k = 3: what the stay certificate left, at the larger of that
    and :func:`stay_left_seconds`, but where the whole-ball fit plans them, :func:`whole_column_fit`, measured all in
    with the parts) and ``parts`` distinct positive parts off R(n) or next to its faces by :func:`_parts_seconds`.
    ``released`` (public): on a face or next to it (:func:`face_release`) the parts at :func:`face_part_factor` times.
    The run's check (:func:`_check_searches`) reads it at its own release, the plan at each release of its family
    (:func:`sampled_release_cost`): one rule."""
    first = _inside_seconds(inside, n, k, epsilon)
    if stays_left and k == 3 and not whole_column_fit(n, k, epsilon):  # the fit measured them all in
        first = max(first, stay_left_seconds(inside, n, k, epsilon))
    face = face_part_factor(n, epsilon) if face_release(released, n, k, epsilon) else 1.0
    return first + face * _parts_seconds(parts, n, k, epsilon)


#: The exact descent filter's own CPU s (:func:`exact_filter_seconds`, k = 3): ``(fixed, a point of R(n) with every
#: count at least 2, a positive part with a count below 2)``, the last two per data set of the search's ball of ``Dc``
#: (the filter's work a projection: the ball's data sets and their loss rows).  Measured
#: (:func:`~dpposterior.lattice.batched.descent_filter_exact` alone, Dir(1,1,1), n = 1,000, CPU s, load 1.1 to 1.4,
#: 2026-12-03; ``benchmarks/exact_filter_cost_h81fx.json``): at the face's plateau releases eps 1, 0.5, 0.3, 0.2 (ball
#: 3,169 to 78,247 data sets) a part 0.034, 0.099, 0.22, 0.60 ms (1.1e-8 to 0.6e-8 a part and data set: the parts
#: share projections) and a point of R(n) 0.44, 1.1, 2.9, 7.0 ms (1.4e-7 to 0.9e-7); the centre at eps 0.2, 155 points
#: 1.9 s (1.6e-7 a point and data set, the tables' setup in it).  On the plan's own sample at load 1.2 to 3.3
#: (``benchmarks/exact_filter_sample_h80pl.json``, the same points) a part cost up to 2.6e-8 per data set (eps 0.2,
#: (16, 492, 492)), 2.5x the light-load figure.  The fit: the most of these (the loaded ones).
EXACT_FILTER_SECONDS = (0.05, 1.6e-7, 2.6e-8)
#: The fixed subsample at which :func:`sampled_release_cost` runs the exact descent filter at each release of the
#: family (:func:`exact_filter_priced`): ``(points of R(n) with every count at least 2, positive parts with a count below
#: 2)``, drawn with the public seed 0 from the release's sample; the kept share taken at its one-sided
#: ``FAMILY_FILTER_CONFIDENCE`` Clopper-Pearson upper end (exact for draws with replacement, so conservative for these
#: draws without: the plan's estimate of the share is below it in at most 1 % of the samples).  The plan's own cost of it:
#: :func:`exact_filter_seconds` at these counts a release (eps 0.2: 0.98 s; eps 1: 0.08 s).
FAMILY_FILTER_POINTS, FAMILY_FILTER_CONFIDENCE = (32, 256), 0.99


def exact_filter_priced(n: int, k: int, epsilon: float) -> bool:
    """Whether the local column's searches at a release are priced after the exact descent filter
    (:func:`~dpposterior.lattice.batched.descent_filter_exact`): what it keeps searched, plus its own cost at every
    point it reads (:func:`filtered_release_seconds`), in the plan (:func:`sampled_release_cost`, each release of the
    family) and in the run's two-stage check (:func:`_check_filtered`): k = 3 where the plan is costed release by
    release (:func:`family_costed`); public n, k, eps.  Elsewhere the searches are priced before it (every point the
    filters before it keep: :func:`_check_searches`).  Why: next to a face or a vertex the filter keeps 0 or 1 of the
    plan's sampled parts (8 to 24 % at the face's plateau release), and the runs took 1.4 to 19 CPU s where the plan
    priced every part at 43 to 178 s (``benchmarks/face_runs_exact_h80pl.json``)."""
    return int(k) == 3 and family_costed(n, k, epsilon)


def exact_filter_seconds(inside: float, parts: float, k: int, epsilon: float) -> float:
    """Estimated seconds of the exact descent filter at ``inside`` points of R(n) with every count at least 2 and
    ``parts`` distinct positive parts with a count below 2: :data:`EXACT_FILTER_SECONDS`, per data set of the search's
    ball of ``Dc``; public counts, k, eps.  Read by the plan and by the run's check (:func:`filtered_release_seconds`)."""
    if inside <= 0 and parts <= 0:
        return 0.0
    ball = float(ball_size(int(k), float(epsilon), 1e-12))
    c0, c_in, c_part = EXACT_FILTER_SECONDS
    return c0 + ball * (c_in * float(inside) + c_part * float(parts))


def filtered_release_seconds(inside: float, parts: float, kept_inside: float, kept_parts: float, n: int, k: int,
                             epsilon: float, stays_left: bool = False, released=None) -> float:
    """Estimated seconds of the local column's exact descent filter and searches at one release
    (:func:`exact_filter_priced`): the filter at the ``inside`` points and ``parts`` it reads
    (:func:`exact_filter_seconds`) plus the searches of what it keeps (:func:`release_search_seconds` at
    ``kept_inside``, ``kept_parts``).  One rule: the plan at each release of its family (:func:`sampled_release_cost`,
    the kept counts by a subsample's upper end) and the run's check (:func:`_check_filtered`, the counts themselves)."""
    return (exact_filter_seconds(inside, parts, k, epsilon)
            + release_search_seconds(kept_inside, kept_parts, n, k, epsilon, stays_left, released))


def _kept_share(prior, n: int, epsilon: float, released, Y: NDArray[np.int64], most: int) -> float:
    """The exact descent filter's kept share of the points ``Y`` (distinct positive parts of a release's sample), at
    its one-sided :data:`FAMILY_FILTER_CONFIDENCE` Clopper-Pearson upper end, from at most ``most`` of them drawn with
    the public seed 0 (the same draws at every call with the same public inputs); 0 where ``Y`` is empty."""
    from scipy.stats import beta

    from ..lattice.batched import descent_filter_exact

    if not len(Y):
        return 0.0
    if len(Y) > most:
        Y = Y[np.sort(np.random.default_rng(0).choice(len(Y), most, replace=False))]
    x, N = int(np.count_nonzero(descent_filter_exact(prior, n, epsilon, released, Y))), len(Y)
    return 1.0 if x >= N else float(beta.ppf(FAMILY_FILTER_CONFIDENCE, x + 1, N - x))


#: The eps where the k = 3 plan reads its family of releases also past the centre's reach
#: (:func:`family_past_reach`): ``[low, high]``.
FAMILY_PAST_REACH_EPSILON = (0.1, 1.0)
#: The most of a family release's sampled kept points of R(n) at which :func:`sampled_release_cost` runs the stay
#: certificate (a fixed subsample; ~11 ms a point at eps 0.1): its share of them left, taken at its upper end.
FAMILY_STAY_POINTS = 64


def family_past_reach(n: int, k: int, epsilon: float) -> bool:
    """Whether the k = 3 local column's plan takes the most over its family of releases
    (:func:`sampled_release_probes`: the centre, next to a face, next to a vertex) where the centre's region lies
    within R(n) (not :func:`sampled_column`): eps within :data:`FAMILY_PAST_REACH_EPSILON`, from n = 101 (past the
    whole-ball fit's rows).  Why: a release next to a face or a vertex has its region off R(n) at every n (its least
    count below ``(k - 1) Dc``), so the distinct parts its search reads do not fall with n; a plan that reads the
    centre alone there is under its run (eps 0.2, n = 1,000: planned 4.9 s, the vertex (10, 10, 980) runs 118 CPU s).
    Public n, k, eps."""
    eps, n, k = float(epsilon), int(n), int(k)
    return (k == 3 and FAMILY_PAST_REACH_EPSILON[0] <= eps <= FAMILY_PAST_REACH_EPSILON[1]
            and not sampled_column(n, k, eps) and n_candidates(n, k) > WHOLE_COLUMN_ROWS[1])


def family_costed(n: int, k: int, epsilon: float) -> bool:
    """Whether the k = 3 local column's plan takes the most seconds over its family of releases, each costed as its
    run's check counts it (:func:`sampled_release_cost`, :func:`_sampled_release_family`), with the release on the
    face's plateau (:data:`FAMILY_FACE_SHARES`) among them and the face releases' parts at :func:`face_part_factor`:
    past the centre's reach (:func:`family_past_reach`), and within it (:func:`sampled_column`) from
    :data:`FACE_PART_MIN_N`, at eps within :data:`FAMILY_PAST_REACH_EPSILON`.  Why within the reach too: there the
    plan counted the family's parts at the centre's cost alone, and a release on the face's plateau ran over it
    (eps 0.3, n = 600: planned 7.5 s, (2, 299, 299) ran 53.4 CPU s; the plan also dipped at the reach's edge between
    refused neighbours, eps 0.25, n = 700 and eps 0.12, n = 1,600).  Up to n = 204 the plans within the reach stay
    as measured (eps 0.3, n = 204, (2, 101, 101): 13.2 s run, 15.95 s planned).  Public n, k, eps."""
    eps, n, k = float(epsilon), int(n), int(k)
    if family_past_reach(n, k, eps):
        return True
    return (k == 3 and FAMILY_PAST_REACH_EPSILON[0] <= eps <= FAMILY_PAST_REACH_EPSILON[1] and n >= FACE_PART_MIN_N
            and sampled_column(n, k, eps) and n_candidates(n, k) > WHOLE_COLUMN_ROWS[1])


def sampled_release_cost(prior, n: int, epsilon: float, Dc: int, W: int, released, stop: float = math.inf
                         ) -> tuple[float, float, float]:
    """``(parts, left, seconds)``: estimates, from public inputs (for a plan; not a bound), at the public release
    ``released`` (k = 3) of the distinct positive parts both filters keep with a count below 2
    (:func:`sampled_release_parts`, the same sample), of the kept points of R(n) with every count at least 2 that the
    stay certificate leaves (below :data:`COLUMN_BATCH_MIN_EPSILON`: the certificate, :func:`~dpposterior.lattice.
    batched.stays`, run at the sample's kept points; else every kept one) and of the local column's work at that
    release: the filters (the risk filter at every region point, :data:`RISK_SECONDS`; the descent filter at those it
    keeps, :data:`FILTER_SECONDS`), the stay certificate at the kept points of R(n) (:func:`_stay_seconds`) and the
    searches (:func:`release_search_seconds`, the rule the run's check reads at its own release).

    ``stop`` (:func:`_sampled_release_family`'s, :func:`family_stop`): where :func:`exact_filter_priced` and a lower
    end of ``seconds`` known before the plan's own certificate and filter runs is already over ``stop``, that lower
    end is returned as ``seconds`` without them: the filters, the certificate's price and the exact filter's own cost
    at the fewest points it can read (``left`` at least one point a sample weight; the searches of what it keeps cost
    at least 0).  Why it may: every term of ``seconds`` is at least the lower end's, so a release is over ``stop``
    with the shortcut exactly where it is over without it; the family stops at the same release, and the plan is
    refused as before, its seconds again a lower end.  Measured (Dir(1,1,1), average, eps 0.12, n = 1,600, the
    default limit): the refusal's plan took 26 CPU s, 20 of them costing three releases (their certificates and
    exact filters 17 s)."""
    from ..lattice.column import _filtered_sample_points

    k = 3
    a = np.asarray(prior, dtype=np.float64)
    eps = float(epsilon)
    scale, z, keep, risk = _filtered_sample_points(a, n, eps, Dc, W, released)
    inside = keep & np.all(z >= 2, axis=1)
    rest = keep & ~np.all(z >= 2, axis=1)
    zeros = np.count_nonzero(z <= 0, axis=1)
    parts = float(scale * (np.count_nonzero(rest & (zeros <= 1)) + 1)
                  + min(3.0 * (2 * W + 1), scale * np.count_nonzero(rest & (zeros >= 2))))
    certified = eps < COLUMN_BATCH_MIN_EPSILON
    priced = exact_filter_priced(n, k, eps)
    stay = 0.0
    descent = FILTER_SECONDS[0] + FILTER_SECONDS[1] * k * (Dc + 1)
    filters = scale * len(z) * RISK_SECONDS * k + scale * (np.count_nonzero(risk) + 1) * descent
    if certified:
        inR = keep & np.all(z >= 0, axis=1)
        stay = _stay_seconds(scale * (np.count_nonzero(inR) + 1), k, eps)
    if priced:  # a lower end before the plan's own runs (docstring, ``stop``)
        lower = filters + stay + exact_filter_seconds(scale, parts, k, eps)
        if lower > stop:
            return parts, float(scale), float(lower)
    if certified:
        from ..lattice.batched import stays

        pts = z[inside]
        if len(pts) > FAMILY_STAY_POINTS:  # the certificate's share at a fixed subsample (its upper end, 2 sigma)
            pts = pts[np.random.default_rng(0).choice(len(pts), FAMILY_STAY_POINTS, replace=False)]
        share = float(np.count_nonzero(~stays(a, n, eps, pts))) / len(pts) if len(pts) else 0.0
        share = min(1.0, share + 2.0 * math.sqrt(max(share * (1.0 - share), 1.0 / max(1, len(pts))) / max(1, len(pts))))
        left = scale * (share * np.count_nonzero(inside) + 1)
    else:
        left = scale * (np.count_nonzero(inside) + 1)
    if priced:  # what the exact descent filter keeps, and its own cost (one rule with the check)
        r = np.asarray(released, dtype=np.int64)
        low = np.unique(np.maximum(z[rest], 0), axis=0)
        share_in = _kept_share(a, n, eps, r, np.unique(z[inside], axis=0), FAMILY_FILTER_POINTS[0])
        share_low = _kept_share(a, n, eps, r, low, FAMILY_FILTER_POINTS[1])
        seconds = filters + stay + filtered_release_seconds(left, parts, share_in * left, share_low * parts, n, k,
                                                            eps, stays_left=certified, released=released)
    else:
        seconds = filters + stay + release_search_seconds(left, parts, n, k, eps, stays_left=certified,
                                                          released=released)
    return parts, float(left), float(seconds)


def _family_probes(prior: tuple, n: int, epsilon: float) -> list[NDArray[np.int64]]:
    """The releases :func:`_sampled_release_family` costs: :func:`sampled_release_probes` but the centre (planned by
    the centre's own estimate), the centre too where :func:`exact_filter_priced` (its own estimate prices every point
    the filters before it keep, not the filter's cost)."""
    return (sampled_release_probes(prior, n, len(prior), epsilon) if exact_filter_priced(n, len(prior), epsilon)
            else _offcentre_probes(prior, n, epsilon))


@lru_cache(maxsize=32)
def _sampled_release_family(prior: tuple, n: int, epsilon: float, Dc: int, W: int, stop: float = math.inf
                            ) -> tuple[float, float, int, bool]:
    """``(seconds, parts, samples, stopped)``: the most local-column seconds and the most distinct kept parts
    (:func:`sampled_release_cost`) over :func:`_family_probes`, and the releases sampled; cached by its public
    inputs (each sample up to :data:`SAMPLED_RELEASE_SECONDS`).  ``stop``: the releases are costed in order until
    one is over ``stop`` seconds (``stopped`` then true, and ``seconds`` and ``parts`` the most over those costed: a
    lower end), since a plan over its limit is refused whatever the rest cost (:func:`family_stop`)."""
    rest = _family_probes(prior, n, epsilon)
    costs = []
    for r in rest:
        costs.append(sampled_release_cost(prior, n, epsilon, Dc, W, r, stop))
        if costs[-1][2] > stop:
            break
    stopped = len(costs) < len(rest)
    return max([0.0] + [c[2] for c in costs]), max([0.0] + [c[0] for c in costs]), len(rest), stopped


def family_stop(cost: float) -> float:
    """The seconds past which the k = 3 local column's plan stops costing its family of releases
    (:func:`_sampled_release_family`), given ``cost``, what the plan has counted on top of the family's most
    (its own samples): the solve limit in force less ``cost``.  Why it may: the plan's solve cost is at least the
    most over the releases costed plus ``cost``, so once one release is over this, the plan is over the limit and
    refused (:meth:`~dpposterior.limits.Plan.refused`), whatever the others cost; its seconds are then a lower end
    (``Plan.at_least``), and a refusal says "at least".  The plan also stops before the releases off the centre
    (:func:`_sampled_release_off`) where the centre's own kept points are already over the limit.  Measured
    (Dir(1,1,1), k = 3, eps 0.1, n = 500, the default limit): the refusal took 46 CPU s costing every release, 1.3 s
    now.  The limit is public (a setting), so
    where the plan stops depends on public inputs only, and a plan that fits costs every release, as before."""
    return limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS") - float(cost)


#: The local column runs by classes also where the region route's solve is planned over this many seconds and the class
#: route's within them (:meth:`LatticeMechanism._class_route`): the default solve limit as a constant, so that every
#: column the defaults admitted on the region route keeps it (Dir(1,1,1,1), eps = 0.5, n = 10: the region route 88.6 s
#: planned, refused before; the class route 9.0 s).
CLASS_FALLBACK_SECONDS = 45.0
#: The local column's class route (:func:`part_class_route`), CPU seconds: a positive-part class enumerated and kept
#: (:func:`~dpposterior.lattice.column.reach_classes`), a class grouped (:func:`~dpposterior.lattice.column.clamp_groups`,
#: a part plus a part and data set of R(n) for its float check); one one-point search a group is planned by
#: :func:`small_search_seconds` (the same search, measured where it reads R(n) itself).  Measured 2026-11-30,
#: Dir(1,1,1,1), eps = 0.25, CPU s on the 2 shared cores: n = 10, 1,410,618 classes 2.4 s, grouped 5.4 s (4,136
#: groups), their searches 2.5 s (0.6 ms each).  2026-12-01, Dir(1,1,1,1), eps = 0.5, n = 15 (287,146 classes,
#: |R(15)| = 816, 13,216 groups; ``benchmarks/plans_h69.json``): classes and grouping 5.1 s at load ~2.9 (6.9 s at load
#: ~5 the day before), their searches 11.2 s (14.1), and n = 10, eps = 0.25 again: 5.7 and 2.6 s.  A class grouped
#: costs ``c x |R(n)|^power`` (3.3 to 3.8 us at |R(10)| = 286, 16 to 23 at |R(15)|: faster than the data sets, the
#: fit before planned 4.1 s at n = 15), the searches less than ``ONE_SEARCH_SECONDS`` planned (42.9 s).  The
#: grouping's fit 1.15x n = 15's slower run, 2.0x n = 10's of this day; the searches' 1.9x and 1.7x.
#: Refitted by what the grouping does (:func:`~dpposterior.lattice.column.clamp_groups`): a sort of the classes, then
#: per group of one clamp ``v`` the lead's data sets and sums (``search_terms``, over its ball in R(n)) and the shifts'
#: float check: ``CLASS_SECONDS`` a class plus :data:`GROUP_LEAD_SECONDS` a group (a constant and a data set of R(n)),
#: the groups counted by :func:`~dpposterior.lattice.column.clamp_group_count` (an upper end).  Measured (classes and
#: grouping, CPU s; classes, groups, |R(n)|, load): eps = 0.25, n = 10: 5.7 s (1.41 M, 4,136, 286, ~3); n = 14: 9.65 s
#: (1.54 M, 10,830, 680, 9.6; 2026-12-02); n = 16: 13.25 s (load 14.2); n = 18: 17.1 s (load 9.4); eps = 0.5, n = 15:
#: 5.13 s (287,146, 13,216, 816, 2.9; 6.9 s at load ~5); n = 16: 5.86 s (15,929 groups, 969, 3.0).  The per-class fit
#: before (``1.05e-9 |R(n)|^1.5`` a class) planned the eps 0.25 cells 1.5 to 3.5x over them (33.3 s at n = 14) while it
#: held eps 0.5's at 1.15x: there a class costs more because the groups are more per class.  The fit 1.4 to 1.7x above
#: the eps 0.25 runs, 2.1 to 2.4x above eps 0.5's (tests/library/test_noise_aware_k4_unique_rows_h75na4.py).
CLASS_SECONDS = 4.5e-6
GROUP_LEAD_SECONDS = (3e-4, 5e-7)
#: The class route's enumeration and grouping where :func:`exact_shifts` holds, CPU seconds a class: there
#: :func:`~dpposterior.lattice.column.clamp_groups` runs no float check (it is known to pass at every shift), so a
#: group costs nothing past its classes' sort.  Measured side by side on one idle host (load ~1; the same groups by
#: SHA-256 on both trees; ``python benchmarks/clamp_groups_k4.py --old OLD/src --new src --out
#: benchmarks/clamp_groups_k4.json ...``): 3.2 to 4.0 us a class over 12 releases at eps 0.25 to 0.5, n = 10 to 22
#: (298 k to 1.82 M classes, 4,136 to 40,250 groups: 1.0 to 6.8 CPU s, against 5.1 to 25.1 with the check).  This
#: fit is 1.99 to 2.49x over them (tests/library/test_clamp_groups_k4.py).
CLASS_EXACT_SECONDS = 8e-6
#: One one-point search past :data:`SMALL_SEARCH_ROWS` (a search alone at n = 10, 20, 40, 60, eps = 0.25: 1.5, 1.6, 11.9,
#: 103 ms, |R(n)| = 286 to 39,711; :func:`small_search_seconds`).
ONE_SEARCH_SECONDS = (8e-4, 3e-6)
#: :func:`~dpposterior.lattice.column.near_data_sets` over its box, seconds per box point (its first count's range
#: times ``(2 R + 1)^(k - 2)``): measured 2.4 s for 11 x 2,005^2 at k = 4, n = 10, R = 1,002 (the same run).
NEAR_BOX_SECONDS = 1.2e-7


def exact_shifts(prior, epsilon: float) -> bool:
    """Whether every clamp group's float check (:func:`~dpposterior.lattice.column.clamp_groups`) passes, known from
    public inputs: every ``a_i = 1`` (each ``lnGamma(a_i + c_i) - lnGamma(c_i + 1)`` is the difference of one float
    with itself, so ``L = 0``) and eps a float with a power-of-two denominator of at most ``2^20`` and a numerator below
    ``2^20`` (so ``eps D``, ``L - eps D`` and their differences are exact for every integer ``D < 2^30``): then the
    log-weights at every shift are exactly the lead's less a constant.  Elsewhere (measured at Dir(1,1,1,1), eps = 0.3:
    865,780 of 869,916 parts alone; Dir(0.5,1,2,3), eps = 0.25: 1,392,674 of 1,410,618) the plan counts every part.
    The rule is :func:`~dpposterior.lattice.batched.exact_shift_weights` (the searches by orbits read it too)."""
    from ..lattice.batched import exact_shift_weights

    return exact_shift_weights(prior, epsilon)


#: One one-point search of the class route (:func:`class_search_seconds`; a group's lead, a positive part in
#: ``[0, n]^k`` whose search reads R(n) itself, ``n <= Dc``): CPU seconds, a constant and a data set of R(n), where
#: |R(n)| is within :data:`SMALL_SEARCH_ROWS`.  Measured 2026-12-02, Dir(1,1,1,1), 400 group leads each (of
#: :func:`~dpposterior.lattice.column.clamp_groups` at the release; CPU ms a search, |R(n)|, load): eps = 0.25:
#: (3,3,2,2) 0.445 (286, 3.1); (0,0,1,14) 0.714 (816, 3.4); (5,5,4,4) 1.106 (1,330, 4.5); (17,1,1,1) 1.057 and
#: (5,5,5,5) 1.094 (1,771, 4.8 to 5.6); all 15,929 leads of (4,4,4,4) 0.781 (969, 2.6); eps = 0.5: (4,4,4,4) 0.654
#: (969, 6.0); (5,4,4,4) 1.002 and (17,0,0,0) 0.903 (1,140, 6.5); (5,5,5,5) 0.972 (1,771, 7.1); (6,6,5,5) 1.284
#: (2,300, 7.5).  At higher load the same searches ran slower: all leads, :data:`CLASS_SECONDS`' runs (load 9 to 14):
#: eps = 0.25, n = 10, 2.72 s (4,136 leads, 0.66 ms); n = 14, 8.27 s (10,830, 0.76 ms); n = 16, 16.87 s (15,929,
#: 1.06 ms); n = 18, 27.04 s (22,420, 1.21 ms); eps = 0.5, n = 15, 10.72 s (13,216, 0.81 ms); n = 16, 13.27 s (15,929,
#: 0.83 ms).  :data:`SMALL_SEARCH_SECONDS` (fitted on R(n)'s own points) planned these 1.5 to 2.7x over them; this fit
#: is 1.2 to 1.6x over the loaded runs and 1.4 to 1.9x over the others
#: (tests/library/test_noise_aware_k4_class_search_h76na4.py).
CLASS_SEARCH_SECONDS = (6.5e-4, 6.5e-7)
#: The class route's searches at a symmetric prior (:func:`class_orbits`) run by orbits
#: (:func:`~dpposterior.lattice.batched.local_search_batch` with ``orbits``: one certified search a distinct sorted
#: pair, the near ties by their exact steps; the one-point search's output at every lead, proved and tested there),
#: priced at a constant (CPU s) plus a share of :data:`CLASS_SEARCH_SECONDS`' one-point price, where |R(n)| is within
#: :data:`SMALL_SEARCH_ROWS`.  Measured side by side on one idle host (the same leads, both searches in one process,
#: equal outputs at every lead; ``python benchmarks/class_orbits_k4.py --out benchmarks/class_orbits_k4.json ...``):
#: CPU s (leads, one at a time, by orbits) eps 0.25, n = 14: 10,830, 5.39, 3.54; n = 16: 15,929, 9.69, 4.38; n = 18:
#: 22,420, 17.71 and 18.64, 6.42 and 6.50; eps 0.3, n = 17: 18,990, 11.50 and 11.73, 4.17 and 3.92; n = 18: 22,420,
#: 15.24, 4.78; n = 20: 30,471, 25.26, 6.76; eps 0.35 to 0.5, n = 14 to 17: 0.17x to 0.35x.  So 0.17x to 0.66x the
#: one-point CPU s; at eps 0.25, n = 10 (4,136 leads) 2.63 s against 1.37 (:data:`CLASS_ORBIT_MIN_SECONDS`).  And at
#: the edges (2026-12-06, idle, ``benchmarks/class_orbits_k4_s97.json``): eps 0.25, n = 23: 45,840 leads, 44.5 and
#: 13.8 s; eps 0.3, n = 24: 51,925, 55.7 and 15.3 s; eps 0.35 and 0.4, n = 25: 58,526, 63.3 and 14.6 s, 62.3 and
#: 13.3 s.  The runs by orbits grow by about 0.1 of the one-point price (eps 0.25: 6.5 s at a price of 34.0, 13.8 at
#: 107.3), so the price is 6.0 s plus 0.2 of it: 1.97x to 2.9x over each run at eps 0.25 and 0.3 and at the edges
#: (4.4x to 6x at eps 0.35 to 0.5, n <= 17); it was 4.0 s plus 0.25 (2.2x to 3.4x at the edges).
CLASS_ORBIT_SECONDS = (6.0, 0.2)
#: The one-point price (:data:`CLASS_SEARCH_SECONDS`) from which the searches run by orbits: below it the batched
#: search's fixed cost is more than it saves (eps 0.25, n = 10: 2.63 CPU s by orbits, 1.37 s one at a time).
CLASS_ORBIT_MIN_SECONDS = 10.0


def class_orbits(prior, points: float, n: int, k: int) -> bool:
    """Whether the class route's searches at ``points`` group leads and lone parts run by orbits
    (:func:`_group_outputs_m`): a symmetric prior (every ``a_i`` equal: the permutations of the categories map the
    search at a point to the search at its image), |R(n)| within :data:`SMALL_SEARCH_ROWS` (where measured) and their
    one-point price at least :data:`CLASS_ORBIT_MIN_SECONDS`; public prior, count, n, k."""
    a = np.asarray(prior, dtype=np.float64).ravel()
    return bool(a.size >= 3 and np.all(a == a[0]) and float(n_candidates(n, k)) <= SMALL_SEARCH_ROWS
                and class_search_seconds(points, n, k) >= CLASS_ORBIT_MIN_SECONDS)


def class_search_seconds(points: float, n: int, k: int, orbits: bool = False) -> float:
    """Estimated seconds of the class route's searches (:func:`_group_outputs_m`) at ``points`` group leads and lone
    parts: :data:`CLASS_SEARCH_SECONDS` each where |R(n)| is within :data:`SMALL_SEARCH_ROWS`, else
    :func:`small_search_seconds`; where they run by ``orbits`` (:func:`class_orbits`) :data:`CLASS_ORBIT_SECONDS`, a
    constant and a share of that.  From the count and public n, k.  The plan (:func:`group_seconds`) and the run's
    check (:func:`_group_outputs_m`) read it."""
    rows = float(n_candidates(n, k))
    if rows > SMALL_SEARCH_ROWS:
        return small_search_seconds(points, n, k)
    one = float(points) * (CLASS_SEARCH_SECONDS[0] + CLASS_SEARCH_SECONDS[1] * rows)
    return CLASS_ORBIT_SECONDS[0] + CLASS_ORBIT_SECONDS[1] * one if orbits else one


def group_seconds(n: int, k: int, W: int, grouped: bool = True, prior=None, as_before: bool = False
                  ) -> tuple[float, float]:
    """``(grouping, searches)``: estimated seconds of the class route's enumeration and grouping, and of its searches,
    from public n, k, ``W`` and prior.  The grouping: where ``grouped`` (:func:`exact_shifts`) :data:`CLASS_EXACT_SECONDS`
    a class, else (or ``as_before``: priced as before its float check was known to pass, what
    :meth:`LatticeMechanism._class_route` compares first) :data:`CLASS_SECONDS` a class and :data:`GROUP_LEAD_SECONDS` a
    group.  The searches: one a group (:func:`~dpposterior.lattice.column.clamp_group_count`) where ``grouped``, else
    one a part; :func:`class_search_seconds`, by orbits where :func:`class_orbits` holds at ``prior`` (None: one at a
    time)."""
    from ..lattice.column import clamp_group_count, part_class_count

    parts, rows = float(part_class_count(n, k, W)), float(n_candidates(n, k))
    groups = float(clamp_group_count(n, k, W))
    if grouped and not as_before:  # no float check (clamp_groups): the classes' enumeration and sort
        grouping = parts * CLASS_EXACT_SECONDS
    else:
        grouping = parts * CLASS_SECONDS + groups * (GROUP_LEAD_SECONDS[0] + GROUP_LEAD_SECONDS[1] * rows)
    searched = groups if grouped else parts
    orbits = prior is not None and class_orbits(prior, searched, n, k)
    return grouping, class_search_seconds(searched, n, k, orbits)


def _group_outputs_m(a: NDArray, n: int, eps: float, m: NDArray, Z: NDArray[np.int64], Dc: int
                     ) -> NDArray[np.float64]:
    """``1.0`` at the points of ``Z`` (one a positive part) whose one-point local search (what a draw computes)
    outputs ``m``, else ``0.0``: one search a group of :func:`~dpposterior.lattice.column.clamp_groups` (the same
    computation at every point of a group, proved there), each point outside a group searched itself; the searches
    checked against the solve limit before the first runs (one line).  At a symmetric prior (:func:`class_orbits`)
    the leads and lone points are searched together by orbits
    (:func:`~dpposterior.lattice.batched.local_search_batch`, equal to the one-point search at every point), else one
    at a time."""
    from ..lattice.batched import local_search_batch
    from ..lattice.column import clamp_groups

    k = a.size
    lead, group = clamp_groups(a, n, eps, Z, Dc)
    alone = np.flatnonzero(group < 0)
    searches = len(lead) + len(alone)
    orbits = class_orbits(a, searches, n, k)
    _solve_limit(class_search_seconds(searches, n, k, orbits),
                 f"the noise-aware posterior's local column at this release for k={k}, n={n}, eps={eps:g} "
                 f"({searches:,} one-point searches)")
    if orbits and searches:
        out = local_search_batch(a, n, eps, np.concatenate([Z[lead], Z[alone]]), orbits=True)
        found = np.all(out == m, axis=1)
        hit_lead, hit_alone = found[: len(lead)], found[len(lead):].astype(np.float64)
    else:
        hit_lead = np.array([bool(np.all(local_bayes_search(a, n, eps, z) == m)) for z in Z[lead]], dtype=bool)
        hit_alone = np.array([float(np.all(local_bayes_search(a, n, eps, Z[j]) == m)) for j in alone])
    hit = np.zeros(len(Z))
    grouped = group >= 0
    hit[grouped] = hit_lead[group[grouped]]
    hit[alone] = hit_alone
    return hit


#: The local column's searches by orbits (:func:`column_orbits`), priced by what they run: CPU seconds an orbit (a
#: distinct sorted pair ``(max(z, 0), project(z))`` of the kept parts, :func:`~dpposterior.lattice.batched.orbit_count`:
#: one certified search each), times ``(1 / eps)^COLUMN_ORBIT_EPS_POWER`` below eps 1 (the orbits the certificate
#: leaves, searched with their exact steps, grow there); and a kept part and data set of its ball in R(n) (``min(|ball
#: of Dc|, |R(n)|)``) over eps (each part mapped to its orbit's output, those left uncertified searched one by one).
#: Fitted on one idle host (the searches' CPU s at 58 releases, eps 0.35 to 2.75, n = 12 to 5,000: centres, faces,
#: edges, vertices, four different counts; ``benchmarks/orbit_check_k4_s89.json``, ``..._loweps_s90.json``,
#: ``..._loweps_s91.json``; ``python benchmarks/orbit_price_k4.py --out benchmarks/orbit_price_k4.json``) as the
#: coefficients with the least spread of run over price (a linear programme), scaled so that the largest run over
#: price is the old rule's (a price a part, ``(4e-5, 1.2e-8)`` a part and data set of its ball, times grow for the
#: first): no run is priced further under than it was.  The fit on the 46 runs at eps 0.5 to 2.75 gave these two;
#: with the runs below eps 0.75 it gives ``(5.85e-4, 1.025e-8)`` (and 0.549 for the face term's scale, 0.552 before),
#: within 1 %, so they are kept and every plan at eps >= 1 stays where it was scanned.  Run over price 0.10 to 0.78
#: before (8x), 0.27 to 0.79 now (2.96x); at the 22 releases of ``benchmarks/orbit_check_k4_clean.json`` (another
#: host, not fitted on) 3.5x before, 2.3x now.  Priced by parts alone, refitted, the spread is 3.7x here and 3.6x
#: there: the orbits carry the gain.
COLUMN_ORBIT_SECONDS = (5.8e-4, 1.02e-8)
#: The growth of :data:`COLUMN_ORBIT_SECONDS`' orbit term below eps 1: the exponent (of 0 to 2.25 by 0.05) whose fit
#: spreads least (2.95x at 0.9; 3.56x at 0, 5.66x at 2.25, the near ties' :data:`ORBIT_TIE_EPS_POWER` it used
#: before).  Measured below eps 1 (search CPU s over orbits): 5.9e-4 to 8.1e-4 s an orbit at eps 0.35 to 0.6, n = 12 and
#: 20, against 5.8e-4 at eps 1; the runs at eps 0.35 to 0.75, n = 12 to 40, sit at 0.27 to 0.79 of their price, where
#: ``(1 / eps)^2.25`` put them at 0.10 to 0.78.  Not measured below eps 0.35 on this route (eps 0.3, n = 12 takes the
#: class route, :func:`part_class_route`).
COLUMN_ORBIT_EPS_POWER = 0.9
#: Bytes a reach-region point of the local column by orbits (:func:`column_orbits`), at least, in a plan: the peak RSS
#: growth over the interpreter of ``release --noise-aware`` (average, eps = 1, the release at the centre; the same
#: peaks as OLD/src's runs, whose plan was below them too; ``benchmarks/noise_aware_k4_h73k4.json``) was ~170 MB at
#: n = 30 (540,274 points), ~315 MB at n = 40 (657,359), ~330 MB at n = 60 (939,929): 350 to 480 bytes a point.
COLUMN_ORBIT_POINT_BYTES = 600.0
#: A kept part with a count at least n in the searches by orbits where every shift is exact (:func:`exact_shifts`;
#: :func:`column_orbit_seconds`' ``clamp``): CPU seconds each, its mapping to its clamp group's output, besides the
#: group's one search.  Measured (``benchmarks/clamp_leads_k4.json``, ``benchmarks/clamp_price_k4.json``): with this
#: term and the groups priced as parts in orbits, the searches at the 11 releases where every shift is exact (eps 0.5
#: to 1.75) run at 0.49 to 0.68 of their price (0.80 without it at eps 0.5, (3, 3, 3, 11): 311,299 such parts in 4,727
#: groups).
CLAMP_PART_SECONDS = 5e-6
#: Below eps ``CLAMP_LOW_EPS[0]`` the searches by clamp groups (:func:`column_orbit_seconds`' ``clamp``) are priced
#: ``(CLAMP_LOW_EPS[0] / eps)^CLAMP_LOW_EPS[1]`` times more: each group's search reads more of its data sets (the kept
#: set, 1 - 1e-6 of the weights, and the certified search's columns grow as the weights flatten) while the groups and
#: their leads stay as many.  Measured (Dir(1,1,1,1), average, the release at its working eps, CPU s of the searches,
#: ``benchmarks/orbit_check_k4_working_s93.json``, the counts in ``benchmarks/clamp_price_k4.json``): (5, 5, 5, 5) 6.6 s
#: at eps 0.5 (0.65 of the price) and 18.5 s at eps 0.4 (1.39 of the price without this factor: 3,866 and 3,744 groups
#: searched, 2,648 leads at both), (2, 2, 2, 12) 13.7 s at eps 0.4 (1.39); at eps 0.6 the runs sit at 0.46 to 0.51.
#: With the factor (2.18 at eps 0.4) both eps 0.4 runs sit at 0.64; below eps 0.4 it is extrapolated (6.0 at eps 0.3).
#: Not where the batched search's tables read a ball cut to ``|v_i| <= n`` (the batch radius past n,
#: :class:`~dpposterior.lattice.batched._Sums`) and eps is at least ``CLAMP_LOW_EPS_CUT`` (:func:`clamp_low_factor`):
#: there the same two releases' searches ran 7.1 and 4.7 CPU s (0.38x and 0.34x of the whole ball's), 0.53 and 0.47 of
#: the price without the factor, and four more at n = 17 and 23 (centre, edge, vertex) 0.51 to 0.59
#: (``benchmarks/orbit_check_k4_ball_s94.json``); the whole columns (with the grouped sum of
#: :func:`~dpposterior.lattice.column.column_from_points`) at 0.39 to 0.58 of the plans so priced at eps 0.4, n = 17 to
#: 23 (eleven releases: centre, faces, edges, vertices) and 0.38 to 0.53 at eps 0.45, n = 26 (four;
#: ``benchmarks/column_runs_k4_s94.json``); at eps 0.35 to 0.39, n = 17 to 23, thirteen releases, at 0.40 to 0.51 of the
#: plans priced without it (``benchmarks/column_runs_k4_s95.json``), so the cut is eps 0.35's working eps (the plan
#: reads the eps a release runs at: a claimed eps 0.35 runs at 0.34999943).  Below it no run measured the cut (at eps
#: 0.3 and 0.25 the column takes the class route, which does not read it): the factor stays.
CLAMP_LOW_EPS = (0.5, 3.5)
CLAMP_LOW_EPS_CUT = working_epsilon(0.35, 4)


def clamp_low_factor(n: int, k: int, epsilon: float) -> float:
    """The clamp groups' price factor below eps 0.5 (:data:`CLAMP_LOW_EPS`), 1 where the batched search's ball is cut
    to ``|v_i| <= n`` (its radius past n) at eps from :data:`CLAMP_LOW_EPS_CUT`; public n, k, eps."""
    from ..lattice.batched import batch_radius

    eps = float(epsilon)
    if eps >= CLAMP_LOW_EPS_CUT and batch_radius(int(k), eps) > int(n):
        return 1.0
    return max(1.0, CLAMP_LOW_EPS[0] / eps) ** CLAMP_LOW_EPS[1]


def column_orbits(prior, n: int, k: int, epsilon: float) -> bool:
    """Whether the local column's searches (:func:`_outputs_m`, the region route and the face table's points off it)
    run by orbits (:func:`~dpposterior.lattice.batched.local_search_batch` with ``orbits``: one certified search per
    orbit of the pairs ``(max(z, 0), project(z))`` under the permutations of the categories, the rest searched as
    before; the same output at every point, proved and tested there): ``k >= 4``, a symmetric prior (every ``a_i``
    equal), eps at least :data:`COLUMN_BATCH_MIN_EPSILON` and the batched search's tables within
    :data:`SEARCH_TABLE_BYTES`; public prior, n, k, eps.  The plan (:meth:`LatticeMechanism._region_column_plan`) and
    the runs (:func:`_outputs_m`, :func:`_check_searches`; the k >= 4 corner release's projections where ``n > Dc``,
    :meth:`LatticeMechanism._corner_column_any`) read this one rule."""
    a = np.asarray(prior, dtype=np.float64)
    eps = float(epsilon)
    return (int(k) >= 4 and a.size == int(k) and bool(np.all(a == a[0])) and eps >= COLUMN_BATCH_MIN_EPSILON
            and _search.batch_tables_fit(int(k), int(n), eps))


#: Where every clamp group's shifts are exact (Dir(1,1,1,1) at a working eps) at eps
#: :data:`COLUMN_PART_SETS_MIN_EPSILON` to 1.5, :func:`column_orbit_seconds` prices an orbit and a part's data sets at
#: :data:`COLUMN_EXACT_SECONDS` (not :data:`COLUMN_ORBIT_SECONDS`), and a part's data sets ``m = min(|ball of Dc|,
#: |R(n)|) / eps`` as they are up to :data:`COLUMN_PART_SETS_KNEE` (``|R(50)|``, k = 4) and as ``KNEE (m /
#: KNEE)^COLUMN_PART_SETS_POWER`` past it: the searches a part leads to read the data sets their drop keeps (a
#: certified search) and their kept sets (an exact step), which grow more slowly than R(n) (as the errors' search:
#: :data:`ORBIT_EXACT_SECONDS`), and since the clamp groups the searches run at 0.13 to 0.45 of the price fitted before
#: them.  Priced as before, the run's check was 2.2x to 8.0x the searches at 42 releases (Dir(1,1,1,1), the centre and
#: :func:`cut_release_family` at eps 0.75, n = 50, 60; eps 1, n = 40, 60, 80, 100; eps 1.25, n = 80, 100; eps 1.5,
#: n = 100, 127; the searches' CPU s at the release, two processes at once, load ~2, 2026-12-07, ``python
#: benchmarks/column_parts_k4.py``, ``benchmarks/column_parts_k4.json``), so ``release --noise-aware`` with
#: ``average`` was refused at eps 1 from n = 53 while its column ran in 12 to 16 CPU s at n = 60.  Now the check is
#: 1.32x to 3.98x the searches (the coefficients and power of this form with the least largest ratio and every ratio at
#: least 1.3; the most at the vertex releases of eps 1.25 and 1.5, whose checks are a third of the others').  Below
#: eps 0.75, past eps 1.5 (:data:`COLUMN_PART_SETS_MAX_EPSILON`) and where the shifts are not exact the price is as
#: before.
COLUMN_EXACT_SECONDS = (4e-4, 8e-9)
COLUMN_PART_SETS_KNEE = 23426.0
COLUMN_PART_SETS_POWER = 0.6
COLUMN_PART_SETS_MIN_EPSILON = 0.75
#: The largest eps the fit was measured at (eps 1.5, n = 100 to 174); past it the price is as before (the face term's
#: cells past the cut and the band tables' runs, eps 2 to 2.75, were fitted on it).
COLUMN_PART_SETS_MAX_EPSILON = 1.5


def column_exact_fit(epsilon: float, exact: bool) -> bool:
    """Whether :func:`column_orbit_seconds` reads :data:`COLUMN_EXACT_SECONDS` and the knee: ``exact`` (every clamp
    group's shifts exact) and eps within :data:`COLUMN_PART_SETS_MIN_EPSILON` to :data:`COLUMN_PART_SETS_MAX_EPSILON`,
    where it was measured; public eps."""
    return bool(exact) and COLUMN_PART_SETS_MIN_EPSILON <= float(epsilon) <= COLUMN_PART_SETS_MAX_EPSILON


def column_part_sets(n: int, k: int, epsilon: float, exact: bool = False) -> float:
    """The data sets a kept part is priced at by :func:`column_orbit_seconds`: ``m = min(|ball of Dc|, |R(n)|) / eps``,
    and where :func:`column_exact_fit` past :data:`COLUMN_PART_SETS_KNEE`, ``KNEE (m /
    KNEE)^COLUMN_PART_SETS_POWER``; public n, k, eps."""
    eps = float(epsilon)
    m = min(float(ball_size(k, eps, 1e-12)), float(n_candidates(n, k))) / eps
    if column_exact_fit(eps, exact) and m > COLUMN_PART_SETS_KNEE:
        return COLUMN_PART_SETS_KNEE * (m / COLUMN_PART_SETS_KNEE) ** COLUMN_PART_SETS_POWER
    return m


def column_orbit_seconds(parts: float, orbits: float, n: int, k: int, epsilon: float, faces: float = 0.0,
                         clamp: tuple[float, float, float] | None = None, exact: bool = False) -> float:
    """Estimated seconds of the local column's searches by orbits (:func:`column_orbits`) at ``parts`` distinct
    positive parts falling into ``orbits`` orbits: :data:`COLUMN_ORBIT_SECONDS`, and where :func:`face_part_orbit_cell`
    holds, ``faces`` of the parts (those with a count at most 1: off R(n) or next to a face) at
    :func:`face_part_orbit_seconds` each besides; from the counts and public n, k, eps.  The run's check
    (:func:`_check_searches`) reads it at its own release, counting its orbits
    (:func:`~dpposterior.lattice.batched.orbit_count`); the plan (:meth:`LatticeMechanism._region_column_plan`;
    :func:`cut_release_cost` at each release of :func:`cut_release_family`) at the releases it samples, estimating
    them (:func:`release_search_counts`): one rule.  ``clamp = (clamped, keys, clamp_orbits)`` where every shift is
    exact (:func:`exact_shifts`; :func:`release_search_counts`): ``parts`` and ``orbits`` are then those of the parts
    with every count below n, and the ``clamped`` others, in ``keys`` clamp groups and ``clamp_orbits`` orbits (one
    search a group at most, the certified and the exact-step search alike, each group within one orbit's clamp:
    :func:`~dpposterior.lattice.batched._orbit_search`), count as ``min(keys, clamped)`` parts in ``min(keys,
    clamp_orbits)`` orbits and :data:`CLAMP_PART_SECONDS` each besides (so never over the price without the groups
    by more than that term), all times :func:`clamp_low_factor` below eps 0.5; a part's data sets then priced by
    :func:`column_part_sets` with ``exact``, and at eps 0.75 to 1.5 an orbit and a part's data sets at
    :data:`COLUMN_EXACT_SECONDS`.  ``exact`` alone: that pricing (the call for the parts apart from the clamped
    ones)."""
    if clamp is not None:
        clamped, keys, clamp_orbits = (float(x) for x in clamp)
        low = clamp_low_factor(n, k, epsilon)  # the groups' searches below eps 0.5
        return low * (column_orbit_seconds(float(parts) + min(keys, clamped), float(orbits) + min(keys, clamp_orbits),
                                           n, k, epsilon, faces, exact=True)
                      + clamped * CLAMP_PART_SECONDS)
    eps = float(epsilon)
    grow = max(1.0, 1.0 / eps) ** COLUMN_ORBIT_EPS_POWER  # an orbit's search grows below eps 1
    face = float(faces) * face_part_orbit_seconds(n, k, eps) if face_part_orbit_cell(n, k, eps) else 0.0
    per_orbit, per_set = COLUMN_EXACT_SECONDS if column_exact_fit(eps, exact) else COLUMN_ORBIT_SECONDS
    return float(orbits) * per_orbit * grow + float(parts) * per_set * column_part_sets(n, k, eps, exact) + face


#: The local column's searches by orbits at a release next to a face where the centre takes the cut route
#: (:func:`face_part_orbit_cell`): CPU seconds a kept part with a count at most 1 (off R(n) or next to a face), a
#: constant and a data set of its ball (``min(|ball of Dc|, |R(n)|)``), besides :data:`COLUMN_ORBIT_SECONDS`: the
#: first pair where the loss rows read a table (:func:`~dpposterior.lattice.batched.loss_tables`: the square Jensen
#: table, ``(n + 1)^2 <= JENSEN_TABLE_ENTRIES``, or past it a band table), the second where they do not (each loss
#: row's gaps by ``lgamma_jensen_gap``, a fixed cost a group however small the ball).  Why:
#: the table route decides few of these points (they are off R(n)), so nearly all go to the grouped search, whose
#: groups (one a projection) next to a face hold ~18 points each, and the orbits collapse little at a release whose
#: counts differ (none of 42,253 at (107, 499, 393, 1)); the centre's fit (:data:`COLUMN_ORBIT_SECONDS`, measured at
#: symmetric releases of small n, up to 24 points an orbit) is 2.8x to 4.6x under them.  Measured (Dir(1,1,1,1),
#: average, the searches' CPU s at the release with the limit raised, ``benchmarks/average_face_searches_h81av*.json``;
#: parts, those with a count at most 1, seconds, load): eps 2, n = 300, (30, 120, 149, 1) 38,684, 38,238, 21.4 s (4.4;
#: 15.7 s at load 1); (145, 5, 5, 145) 47,738, 46,927, 10.6 s (4.5); (3, 6, 141, 150) 46,632, 45,941, 13.2 s (7.5);
#: n = 1,000, (107, 499, 393, 1) 42,253, 41,027, 57.5 s (6.2; 46.1 s at load 1); (498, 1, 1, 500) 46,135, 45,938,
#: 38.9 s (7.7); (997, 1, 1, 1) 19,101, 19,085, 4.1 s (4.8); n = 3,000, (999, 999, 1001, 1) 70,955, 68,798, 59.9 s
#: (load 1, a run before the JSON's); eps 3, n = 1,000, (107, 499, 393, 1) 11,589, 11,589, 11.4 s (6.6).  The second
#: pair through the loaded face runs at eps 2 and 3 (1.24x each with the rest of the price); the first 1.33x the face
#: run at n = 300, eps 2, with the second's shape (not measured at another eps).  The edges and the vertex run 2x to 8x
#: under it (their orbits collapse 2.6x to 5x, which a part's price did not see).  Those pairs were
#: ``((3.0e-4, 7.0e-9), (9.5e-4, 2.3e-8))`` with the price a part; with the price by orbits
#: (:data:`COLUMN_ORBIT_SECONDS`, whose orbit term now carries part of what they priced) they are scaled by the same
#: fit, 0.552 (``benchmarks/orbit_price_k4.json``), rounded up.  Past n = 511 the loss rows were evaluated (the second
#: pair) until they read band tables: side by side on one idle host, the same columns bit for bit, the searches at
#: eps 2, n = 1,000 next to a face or an edge ran 12.3 to 16.2 CPU s against 26.0 to 35.5 before
#: (``python benchmarks/band_tables_k4.py --old OLD/src --new src --out benchmarks/band_tables_k4.json ...``), as the
#: table's runs at n = 300 (15.7 s at 38,684 parts): the first pair holds them as it holds those.
COLUMN_FACE_SECONDS = ((1.7e-4, 3.9e-9), (5.3e-4, 1.3e-8))
#: Past n = 1,000 a face part's search with its loss rows tabled costs more as n grows (the losses between neighbours
#: flatten, so the ties between equal counts take more exact steps): measured (the same record) at eps 2 the runs
#: over :data:`COLUMN_FACE_SECONDS`' tables pair are 0.40 to 0.51 at n = 1,000, 0.74 and 0.75 at n = 3,000
#: ((999, 999, 1001, 1), (0, 1000, 1000, 1000)), 0.45 and 1.14 at n = 1e4 ((0, 1666, 3333, 5001), (0, 3334, 3333,
#: 3333)).  With ``(n / 1,000)^0.5`` on that pair every run is at 0.17 to 0.55 of its check's price (1.8x over the
#: closest; the face term is part of the price, so ``^0.3`` left n = 1e4 at 0.75, ``^0.4`` at 0.64).  At n = 1e4 this
#: is the evaluated pair's price again (3.16x the tables pair, against 3.19x).
FACE_BAND_GROWTH = (1000.0, 0.5)


def face_part_orbit_cell(n: int, k: int, epsilon: float) -> bool:
    """Whether :func:`column_orbit_seconds` prices the parts with a count at most 1 at :func:`face_part_orbit_seconds`:
    ``k >= 4`` and a release at the centre of R(n) with every count past ``(k - 1) Dc`` (the centre takes the cut
    route, :meth:`LatticeMechanism._cut_column_plan`; only a release next to a face, an edge or a vertex takes the
    region route searched by orbits, where the term was measured).  Public n, k, eps.  Elsewhere (the centre's own
    region reaching off R(n)) the centre's fit holds its measured runs, all in, and is kept."""
    k, n = int(k), int(n)
    return k >= 4 and n // k > (k - 1) * _radius(k, float(epsilon), 1e-12)


def face_part_orbit_seconds(n: int, k: int, epsilon: float) -> float:
    """Seconds :func:`column_orbit_seconds` adds a kept part with a count at most 1 where :func:`face_part_orbit_cell`
    holds: :data:`COLUMN_FACE_SECONDS` (the tables' pair where the loss rows read a table,
    :func:`~dpposterior.lattice.batched.loss_tables`, times :func:`face_band_growth`, else the other; public n, k,
    eps), its constant plus its share of ``min(|ball of Dc|, |R(n)|)``."""
    from ..lattice.batched import loss_tables

    eps = float(epsilon)
    ball = float(ball_size(k, eps, 1e-12))
    tabled = loss_tables(n, k, eps)
    c0, c1 = COLUMN_FACE_SECONDS[0] if tabled else COLUMN_FACE_SECONDS[1]
    grow = face_band_growth(n) if tabled else 1.0
    return grow * (c0 + c1 * min(ball, float(n_candidates(n, k))))


def face_band_growth(n: int) -> float:
    """The factor on :data:`COLUMN_FACE_SECONDS`' tables pair past ``FACE_BAND_GROWTH[0]``:
    ``(n / FACE_BAND_GROWTH[0])^FACE_BAND_GROWTH[1]``, else 1; public n."""
    return max(1.0, float(n) / FACE_BAND_GROWTH[0]) ** FACE_BAND_GROWTH[1]


#: The k >= 4 corner release's projections searched by orbits (:meth:`LatticeMechanism._corner_column_any`, where
#: :func:`column_orbits` holds and ``n > Dc``): CPU seconds, a constant, and a kept projection and an orbit of them (one
#: certified search each: :func:`~dpposterior.lattice.batched.orbit_count`) at the rates of
#: :data:`CORNER_PROJECTION_ORBIT_RATES`.
CORNER_PROJECTION_ORBIT_SECONDS = 1.5
#: ``((eps, seconds a projection, seconds an orbit), ...)``: the rates of :data:`CORNER_PROJECTION_ORBIT_SECONDS` from
#: each eps up to the next (the first also below it, times ``(1 / eps)^ORBIT_TIE_EPS_POWER`` below eps 1: the near ties'
#: growth, not refitted here).  Measured 2026-12-06 (Dir(1,1,1,1), worst, ``local_search_batch(..., orbits=True)`` over
#: the kept projections at the centre and the releases of :func:`cut_release_family`; CPU s on one core of the shared
#: host, load ~1 to 2; ``benchmarks/corner_projections_k4.json``): eps 0.9 to 1, n = 45 to 1,000, 0.24 to 52.0 s (the
#: most at the spread release of n = 1,000: 45,450 projections in as many orbits); eps 1.1 to 3, n = 300 to 1e4, 0.02
#: to 8.9 s.  At eps 1 the tables' certificate leaves most projections next to a face to the grouped route (near
#: ties: 2,465 of 16,744 orbits at n = 300, 10.4 of 18.0 CPU s; a first step that moves off the face is not decided at
#: the second either); from eps 1.1 it decides them, so the rate falls 4x: a step at eps 1.1's working eps
#: (:func:`working_epsilon`, 1.0999985: the eps a release runs at).  The rates price every run above 1s 1.2x to 1.7x
#: above it.
CORNER_PROJECTION_ORBIT_RATES = ((0.0, 1e-4, 1.25e-3), (working_epsilon(1.1, 4), 0.0, 3e-4))


def corner_projection_orbit_seconds(points: float, orbits: float, epsilon: float) -> float:
    """Estimated seconds of the k >= 4 corner release's projections searched by orbits (:func:`column_orbits`) at
    ``points`` kept projections in ``orbits`` orbits (:func:`~dpposterior.lattice.batched.orbit_count`, one search
    each): :data:`CORNER_PROJECTION_ORBIT_SECONDS` and the rates of :data:`CORNER_PROJECTION_ORBIT_RATES` at public eps.
    Read by the run's check at its own projections (:func:`_check_searches`) and by the plan at each release of its
    family (:func:`_corner_release_most`)."""
    eps = float(epsilon)
    _, per_point, per_orbit = [rates for rates in CORNER_PROJECTION_ORBIT_RATES if eps >= rates[0]][-1]
    grow = max(1.0, 1.0 / eps) ** ORBIT_TIE_EPS_POWER  # the orbits left (near ties) grow below eps 1
    return CORNER_PROJECTION_ORBIT_SECONDS + (float(points) * per_point + float(orbits) * per_orbit) * grow


def _unique_rows(P: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """``np.unique(P, axis=0, return_index=True, return_inverse=True)`` for rows ``P`` of counts ``>= 0``: the same
    three arrays (the inverse flat), by one integer key a row.  Proof: with ``b = max(P) + 1`` the key ``sum_i P_i
    b^(k - 1 - i)`` writes a row in base ``b`` (each digit in ``[0, b - 1]``), so two rows have the same key iff they
    are equal, and the keys' order is the rows' lexicographic order (the order ``np.unique(..., axis=0)`` sorts them
    in); so the distinct keys, sorted, are the distinct rows in that order, each row's inverse index is its key's, and
    the first index of a key (``np.unique`` of a 1-D array with ``return_index`` sorts stably) is its row's first.
    The key fits an int64 while ``b^k < 2^63`` (else the rows' own unique).  Row-wise unique sorts a structured view
    of the rows (6.0 of 9.1 CPU s of the k = 4 corner column at eps = 0.5, n = 22: 2.4 M rows); one int64 sort is
    several times faster.  Tested against ``np.unique(..., axis=0)``."""
    P = np.asarray(P, dtype=np.int64)
    k = P.shape[1]
    b = int(P.max()) + 1 if len(P) else 1
    if not len(P) or int(P.min()) < 0 or b ** k >= 2**63:
        uniq, first, back = np.unique(P, axis=0, return_index=True, return_inverse=True)
        return uniq, first, back.reshape(-1)
    key = np.ravel_multi_index(tuple(P.T), (b,) * k)  # sum_i P_i b^(k - 1 - i)
    _, first, back = np.unique(key, return_index=True, return_inverse=True)
    return P[first], first, back.reshape(-1)


def _check_searches(Z: NDArray[np.int64], n: int, k: int, epsilon: float, orbits: bool = False,
                    projections: bool = False, stays_left: bool = False, released=None, prior=None) -> None:
    """Refuse (one line) the local column's searches at one release where the points left by the descent filter
    (:func:`~dpposterior.lattice.column.descent_filter`) are estimated over the solve limit: those of R(n) with every
    count above 1 by :func:`_inside_seconds`, the rest (off R(n) or next to its faces: the grouped route or the
    one-point search) by :func:`_parts_seconds`.  ``Z`` holds one point a positive part ``max(z, 0)`` (the search
    reads only it).  The plan counts the points of a release at the centre of R(n) (k = 3 below eps 0.25 on the sampled
    route: the most over :func:`sampled_release_probes`, every release's regime); next to a face, at small eps, the
    filter keeps more (the release is public: this depends on it, never on the data).  ``orbits``: the searches by
    orbits (:func:`column_orbits`), its points and their orbits (one sort) by :func:`column_orbit_seconds`, as the
    plan counts them (where every shift is exact at ``prior``, :func:`exact_shifts`, the parts with a count at least n
    by their clamp groups: :func:`column_orbit_seconds`' ``clamp``); with ``projections``, the corner release's
    projections by orbits, their orbits (one sort) by :func:`corner_projection_orbit_seconds`.
    ``stays_left``: ``Z`` is what the stay certificate left (k = 3): those with every count above 1 at the larger of
    :func:`_inside_seconds` and :func:`stay_left_seconds` (what the plan counts them at), but where the whole-ball fit
    plans them (:func:`whole_column_fit`, measured all in with the parts)."""
    if orbits and projections:  # the corner release's projections by orbits: one search an orbit
        from ..lattice.batched import orbit_count

        seconds = corner_projection_orbit_seconds(len(Z), orbit_count(Z, n), epsilon)
    elif orbits and prior is not None and exact_shifts(prior, epsilon):  # the clamped parts by their clamp groups
        from ..lattice.batched import orbit_count

        clamped = np.any(Z >= n, axis=1)
        keys = len(np.unique(np.minimum(np.maximum(Z[clamped], 0), n), axis=0)) if clamped.any() else 0
        rest = Z[~clamped]
        faces = int(np.count_nonzero(rest.min(axis=1) <= 1)) if len(rest) else 0
        seconds = column_orbit_seconds(len(rest), orbit_count(rest, n), n, k, epsilon, faces,
                                       clamp=(int(clamped.sum()), keys, orbit_count(Z[clamped], n)))
    elif orbits:  # the search by orbits (column_orbits): its parts and their orbits, those with a count <= 1 besides
        from ..lattice.batched import orbit_count

        faces = int(np.count_nonzero(Z.min(axis=1) <= 1)) if len(Z) else 0
        seconds = column_orbit_seconds(len(Z), orbit_count(Z, n), n, k, epsilon, faces)
    else:
        inside = int(np.count_nonzero(np.all(Z >= 2, axis=1)))
        seconds = release_search_seconds(inside, len(Z) - inside, n, k, epsilon, stays_left, released)
    _solve_limit(seconds, f"the noise-aware posterior's local column at this release for k={k}, n={n}, "
                          f"eps={epsilon:g} ({len(Z):,} points whose search can output it)")


def _check_filtered(Z: NDArray[np.int64], kept: NDArray[np.bool_] | None, n: int, k: int, epsilon: float,
                    stays_left: bool = False, released=None) -> None:
    """Refuse (one line) the local column's exact descent filter and searches at one release where
    :func:`exact_filter_priced`, by :func:`filtered_release_seconds` (the plan's rule): ``kept`` None, before the
    filter runs, at the filter's own cost at ``Z`` (one point a positive part; those with every count above 1 apart), so
    that a filter over the limit is refused before it runs; else, after it and before any search, at that cost plus
    the searches of the points ``kept`` (what the filter left).  Counts of points only: the release is public, and
    the points are the reach region's, a function of it (never of the data)."""
    inside = np.all(Z >= 2, axis=1)
    n_in = int(np.count_nonzero(inside))
    if kept is None:
        seconds = exact_filter_seconds(n_in, len(Z) - n_in, k, epsilon)
        what = "its exact descent filter"
    else:
        k_in = int(np.count_nonzero(kept & inside))
        seconds = filtered_release_seconds(n_in, len(Z) - n_in, k_in, int(np.count_nonzero(kept)) - k_in, n, k,
                                           epsilon, stays_left, released)
        what = "the searches the exact descent filter keeps"
    _solve_limit(seconds, f"the noise-aware posterior's local column at this release for k={k}, n={n}, "
                          f"eps={epsilon:g} ({what}; {len(Z):,} points whose search can output it)")


def _descent_exact(a: NDArray, n: int, eps: float, m: NDArray, Z: NDArray[np.int64]) -> NDArray[np.bool_]:
    """False at the points of ``Z`` whose search cannot output ``m`` by the descent lemma with their own risks
    (:func:`~dpposterior.lattice.batched.descent_filter_exact`, proved there), True at the rest: run on the points
    left to search after their check (:func:`_check_searches`), so the checks and refusals are those of the points
    the filters before it keep; its work is about one step of the search per point (the release and the first
    ball's outputs over the search's whole ball), within what the check counts for their searches at k = 3.  At k >= 4
    every point is kept (nothing run): the ball of ``Dc`` holds ~10^5 data sets and the searches there are certified
    over a few of them (measured at k = 4, eps = 1, n = 1,000, (10, 10, 10, 970): the filter ~50x the searches it
    would save), so it is run at k = 3 only (public k; the same column either way)."""
    from ..lattice.batched import descent_filter_exact

    if a.size != 3:
        return np.ones(len(Z), dtype=bool)
    return descent_filter_exact(a, n, eps, m, Z) if len(Z) else np.zeros(0, dtype=bool)


def _outputs_m(a: NDArray, n: int, eps: float, m: NDArray, Z: NDArray[np.int64], Dc: int,
               boxes: bool = False) -> NDArray[np.float64]:
    """``1.0`` at the points ``z`` of ``Z`` whose local search (what a draw computes) outputs ``m``, else ``0.0``.
    The search at ``z`` reads only its positive part ``y = max(z, 0)``: its data sets, start and weights are those of
    ``y`` (``2 d(z, c) = sum_i |y_i - c_i| + sum(y) - n`` for every c of R(n), the same integers;
    :mod:`~dpposterior.lattice.batched`), so one ``z`` a positive part is filtered by the risk and descent lemmas
    (:func:`~dpposterior.lattice.column.search_filter`, each a function of ``y``: of ``y``, ``project(y)`` and
    ``sum(y) - n``), checked against the solve limit (:func:`_check_searches`) and searched, and its output read at
    every ``z`` of that ``y``."""
    from ..lattice.column import search_filter

    if not len(Z):
        return np.zeros(0)
    _, first, back = _unique_rows(np.maximum(Z, 0))  # np.unique(..., axis=0)'s arrays, by int64 keys
    reps = Z[first]
    may = search_filter(a, n, eps, m, reps, Dc)  # the rest cannot map to m (the risk and descent lemmas)
    idx = np.flatnonzero(may)
    hit = np.zeros(len(reps))
    if eps < COLUMN_BATCH_MIN_EPSILON and idx.size:
        # the stay certificate first (each a point of R(n) whose search certifiably returns the point itself)
        from ..lattice.batched import stays

        cand = reps[idx]
        inR = np.flatnonzero(np.all(cand >= 0, axis=1))
        _check_stays(cand[inR], a, n, eps)
        st = np.zeros(len(cand), dtype=bool)
        st[inR] = stays(a, n, eps, cand[inR])
        hit[idx[st]] = np.all(cand[st] == m[None, :], axis=1)
        idx = idx[~st]
    if boxes and idx.size:
        # the box stay certificate (staybox.box_stays): a certified point's search returns the point itself
        cand = reps[idx]
        st = _box_certified(a, n, eps, cand)
        hit[idx[st]] = np.all(cand[st] == m[None, :], axis=1)
        idx = idx[~st]
    # at a symmetric prior, one certified search per orbit (column_orbits: the same outputs); not on the cut route,
    # whose plan counts its box certificates
    orbits = not boxes and column_orbits(a, n, a.size, eps)
    left = eps < COLUMN_BATCH_MIN_EPSILON
    if exact_filter_priced(n, a.size, eps):
        # two stages (:func:`_check_filtered`): the filter's own cost first (from the count before it), then its cost
        # and the searches of what it keeps, before any search runs
        _check_filtered(reps[idx], None, n, a.size, eps, stays_left=left, released=m)
        kept = _descent_exact(a, n, eps, m, reps[idx]) if idx.size else np.zeros(0, dtype=bool)
        _check_filtered(reps[idx], kept, n, a.size, eps, stays_left=left, released=m)
        idx = idx[kept]
    else:
        _check_searches(reps[idx], n, a.size, eps, orbits=orbits, stays_left=left, released=m, prior=a)
        if idx.size:
            idx = idx[_descent_exact(a, n, eps, m, reps[idx])]
    if idx.size and orbits:
        from ..lattice.batched import local_search_batch

        hit[idx] = np.all(local_search_batch(a, n, eps, reps[idx], orbits=True) == m[None, :], axis=1)
    elif idx.size:
        hit[idx] = np.all(_search_points(a, n, eps, reps[idx]) == m[None, :], axis=1)
    return hit[back.reshape(-1)]


#: The cut route of the local column (:meth:`LatticeMechanism._cut_column_plan`): seconds and bytes a data set within
#: ``W`` of the release (enumerated, its prior and column, the posterior's weights and marginals over them).
CUT_COLUMN_SECONDS, CUT_COLUMN_BYTES = 2e-6, 100.0
#: The grids :func:`_box_certified` tries in turn (a cell that fails is tried again as the cells of the next grid;
#: the points of a cell that fails at the last are searched): on every axis the same 1-D grid (:func:`box_grid`), the
#: cell at ``x`` about ``x / q`` wide, so that a cell is fitted to the counts (the certificate's slack per coordinate
#: grows with the count).  Dir(1,1,1,1), eps = 0.25, n = 1e4: at (1000, 2000, 3000, 4000) the cells ``(11, 21, 41,
#: 61)`` about it are certified, ``(15, 31, 51, 81)`` a third of them.
BOX_GRIDS = (40, 56, 80, 112)
#: Seconds of one :func:`~dpposterior.lattice.staybox.box_stays` per (ball point x move): measured (the pair split)
#: 0.21 CPU s a certified box alone, 0.43 s in a release at load ~7, for 335,203 x 12 at k = 4, eps = 0.25 (a box
#: that fails stops at its first failing move: ~0.1 s), 2026-11-30; the fit 1.2x above the loaded figure.
BOX_SECONDS = 1.3e-7


#: The boxes a plan counts for :func:`_box_certified` where it knows the points the filters keep at the centre
#: (:func:`box_passes_planned`): ``BOX_FIRST_FACTOR`` times the cells of the first grid they occupy (a release off the
#: centre puts its kept points across more cells of the grid: the same ~10,000 points occupy 25 cells at the centre,
#: 37 to 68 at releases drawn there) and ``BOX_LATER_SHARE`` of the later grids' (a pass runs only on the points the
#: passes before it left, and a certified cell leaves none).  Measured (``benchmarks/cut_column_fit.json``, Dir(1,1,1,1),
#: CPU s on the 2 shared cores at load ~4, 2026-12-01): n = 1000, eps = 0.5, six releases: 37 to 68 boxes, every one
#: certified on the first grid (planned 93); eps = 0.6, 1: 23, 8; n = 2000, 1e4, eps = 0.5: 10, 1.
BOX_FIRST_FACTOR, BOX_LATER_SHARE = 3.0, 0.05


def box_passes_planned(a: NDArray, n: int, epsilon: float, Dc: int, cut_points: NDArray[np.int64]) -> float:
    """The boxes a plan counts for :func:`_box_certified` at a release at the centre ``c0`` of R(n), from public
    inputs (for a plan; not a bound): where :func:`~dpposterior.lattice.column.filtered_points` estimates the points
    the descent filter keeps at ``c0`` (the ones certified), :data:`BOX_FIRST_FACTOR` times the cells they occupy of the
    first grid and :data:`BOX_LATER_SHARE` of those of each later grid (a pass runs only on the points the passes
    before it left);
    elsewhere every cell of every grid that the cut region's points ``cut_points`` occupy (an upper end: each pass's
    points are among them)."""
    from ..lattice.column import filtered_points

    kept = filtered_points(a, n, epsilon, Dc)
    if kept is None:
        return float(sum(len(_cells(a, cut_points, n, q)[0]) for q in BOX_GRIDS)) if len(cut_points) else 0.0
    counts = [len(_cells(a, kept, n, q)[0]) for q in BOX_GRIDS]
    return BOX_FIRST_FACTOR * float(counts[0]) + BOX_LATER_SHARE * float(sum(counts[1:]))


def box_seconds(k: int, epsilon: float) -> float:
    """Estimated seconds of one box certificate (:data:`BOX_SECONDS` per ball point and move)."""
    rho = min(radius_for(k, float(epsilon), 5e-3), radius_for(k, float(epsilon), 1e-12))
    return BOX_SECONDS * float(sum(sphere_count(k, t) for t in range(rho + 1))) * k * (k - 1)


@lru_cache(maxsize=16)
def box_grid(n: int, q: int) -> NDArray[np.int64]:
    """The boundaries ``b_0 = 0 < b_1 < ...`` (past n) of the 1-D grid of :func:`_box_certified`: ``b_{j+1} = b_j +
    max(1, b_j // q)``, cell j the integers ``[b_j, b_{j+1} - 1]``, about ``x / q`` wide at x."""
    b = [0]
    while b[-1] <= n:
        b.append(b[-1] + max(1, b[-1] // q))
    out = np.array(b, dtype=np.int64)
    out.setflags(write=False)
    return out


def _cells(a: NDArray, Z: NDArray[np.int64], n: int, q: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(keys, back)``: the cells of :func:`box_grid` (the same on every axis) holding the points, one key (its cell
    index per coordinate) per cell (sorted at a symmetric prior: one cell per orbit under the permutations of the
    categories, the grid being the same on every axis), ``back`` each point's key row."""
    cells = np.searchsorted(box_grid(n, q), Z, side="right") - 1
    if np.all(a == a[0]):
        cells = np.sort(cells, axis=1)
    keys, back = np.unique(cells, axis=0, return_inverse=True)
    return keys, back.reshape(-1)


def _cut_points(a: NDArray, n: int, eps: float, m: NDArray, Dc: int) -> NDArray[np.int64]:
    """:func:`~dpposterior.lattice.column.cut_region` at the release ``m``, held to the solve limit at its own counts
    (the plan counts a release at the centre; the cut's box grows where a count of ``m`` is lower, public): its box
    (:data:`CUT_SECONDS` a point and coordinate) before it is enumerated, then both filters at the points at the cut
    (:data:`FILTER_SECONDS`, :data:`RISK_SECONDS`) with the box, each refused in one line past the limit."""
    from ..lattice.column import cut_region

    k = a.size
    what = f"the noise-aware posterior's cut region at this release for k={k}, n={n}, eps={eps:g}"
    box = [0]

    def check(points: int) -> None:
        box[0] = points
        _solve_limit(points * CUT_SECONDS * k, f"{what} ({points:,} points enumerated)")

    Z = cut_region(a, n, eps, m, Dc, check=check)
    per_point = FILTER_SECONDS[0] + FILTER_SECONDS[1] * k * (Dc + 1) + RISK_SECONDS * k
    _solve_limit(box[0] * CUT_SECONDS * k + len(Z) * per_point, f"{what} ({len(Z):,} points to filter)")
    return Z


def _box_certified(a: NDArray, n: int, eps: float, Z: NDArray[np.int64]) -> NDArray[np.bool_]:
    """True at the points of ``Z`` (data sets of R(n)) whose grid cell (the grids :data:`BOX_GRIDS` in turn, the whole
    cell, :func:`box_grid` on each axis) :func:`~dpposterior.lattice.staybox.box_stays` certifies: their search
    returns them (the proof there); False at the rest (nothing claimed).  At a symmetric prior one cell per orbit is
    certified (its index sorted; the grid is the same on every axis, so a permuted cell is a cell): every exact
    quantity of the certificate (``pi``, ``d``, ``H``, R(n), the balls, the bounds over the box) is invariant under a
    permutation of the categories applied to the box, the points and the outputs together, and its float allowance
    reads the prior's values only (as :func:`~dpposterior.lattice.batched.stays`' orbits).  Each pass is checked
    against the solve limit before it runs, with the passes before it (one line)."""
    from ..lattice.staybox import box_stays

    k = a.size
    out = np.zeros(len(Z), dtype=bool)
    left = np.arange(len(Z))
    boxes = 0
    for q in BOX_GRIDS:
        if not left.size:
            break
        keys, back = _cells(a, Z[left], n, q)
        boxes += len(keys)
        _solve_limit(boxes * box_seconds(k, eps),
                     f"the noise-aware posterior's box stay certificates at this release for k={k}, n={n}, "
                     f"eps={eps:g} ({boxes:,} boxes, to the grid x/{q})")
        grid = box_grid(n, q)
        ok = np.array([box_stays(a, n, eps, grid[key], grid[key + 1] - 1) for key in keys], dtype=bool)
        out[left[ok[back]]] = True
        left = left[~ok[back]]
    return out


#: The stay certificate (:func:`~dpposterior.lattice.batched.stays`), seconds per point certified and point of its
#: first ball (``d <= radius_for(k, eps, STAY_TAILS[0]) + 1``): measured on the 2 shared cores at load ~8
#: (2026-11-29, Dir(1,1,1), eps = 0.1, the 31,265 points the filters keep at the release (362, 308, 330), n = 1e3):
#: 13.8 CPU s by orbits (10,090 certified: 6.0e-8 a point and ball point), 48.5 s without (31,265: 6.7e-8); the fit
#: with 1.35-1.5x margin.
STAY_SECONDS = 9e-8
#: The share of the points the stay certificate leaves to the local search, in a plan (measured 0 of 31,265 at k = 3,
#: n = 1e3, eps = 0.1; a release with more is refused at its searches in one line, :func:`_check_searches`).
STAY_MISS_SHARE = 1e-3


def _stay_seconds(points: float, k: int, epsilon: float) -> float:
    """Estimated seconds of the stay certificate at ``points`` points (one per orbit at a symmetric prior)."""
    from ..lattice.batched import STAY_TAILS

    rho = _radius(k, float(epsilon), STAY_TAILS[0]) + 1
    return points * STAY_SECONDS * float(sum(sphere_count(k, t) for t in range(rho + 1)))


def _check_stays(Z: NDArray[np.int64], a: NDArray, n: int, epsilon: float) -> None:
    """Refuse (one line) the stay certificate at the points ``Z`` where estimated over the solve limit (one point per
    orbit at a symmetric prior, as it runs)."""
    k = a.size
    count = len(np.unique(np.sort(Z, axis=1), axis=0)) if np.all(a == a[0]) and len(Z) else len(Z)
    _solve_limit(_stay_seconds(count, k, epsilon), f"the noise-aware posterior's stay certificate at this release for "
                                                   f"k={k}, n={n}, eps={epsilon:g} ({count:,} points)")


#: CPU seconds of :func:`~dpposterior.lattice.column.reach_region`: an offset of ``U(Dc)`` it builds to look its points
#: up (``"offset"``), and a point it builds by its route (:func:`~dpposterior.lattice.column.reach_build`): the region
#: from the offsets (every count past ``(k - 1) Dc``: the offsets alone), the window (all of it made, projected, keyed
#: and looked up at once), the whole window where ``n <= Dc`` (the region itself, made alone: 0.04 to 0.17 us a point
#: at eps 0.25 to 0.75, n = 20 to 42; its price kept as before, 0.5 us, which the plans below eps 1 were measured all
#: in with, :data:`ORBIT_REST_SECONDS`) or the box (a slab of the first count at a time).  Measured 2026-12-06 (k = 4,
#: Dir(1,1,1,1), ``reach_region`` alone, CPU s on the shared 2-core host at load ~1 to 2, 44 releases at eps 0.9 to
#: 3, n = 45 to 1e4; ``benchmarks/corner_projections_k4.json``): the offsets alone 1.52 s at (250, 250, 250, 250),
#: eps 1 (777,961 offsets); the window 2.5 to 15.9 s (n = 45 to 300, 0.86 M to 13.6 M points); the box 0.08 to 9.7 s
#: (0.13 M to 41 M points; the most a point next to a vertex, (10, 10, 10, 970) at eps 1, n = 1,000: 2.88 s for 3.7 M).
#: These rates price every run 1.13x to 2.64x above it.
REACH_BOX_SECONDS = {"offset": 2.4e-6, "offsets": 0.0, "window": 1.25e-6, "whole": 5e-7, "box": 4.5e-7}


def reach_box_seconds(points: float, route: str = "box", offsets: float = 0.0) -> float:
    """Seconds of :func:`~dpposterior.lattice.column.reach_region` building ``points`` points on its ``route`` and
    ``offsets`` offsets of ``U(Dc)`` (:data:`REACH_BOX_SECONDS`)."""
    return float(points) * REACH_BOX_SECONDS[route] + float(offsets) * REACH_BOX_SECONDS["offset"]


def reach_build_seconds(n: int, k: int, released, Dc: int, W: int) -> float:
    """Seconds of :func:`~dpposterior.lattice.column.reach_region` at the public release ``released``: what it builds
    there (:func:`~dpposterior.lattice.column.reach_build`) at its route's rates.  Read by the run's check
    (:meth:`LatticeMechanism._local_column`, at its release) and by the plans at their families' releases
    (:func:`cut_release_cost`, :func:`_corner_release_most`)."""
    from ..lattice.column import reach_build

    return reach_box_seconds(*reach_build(n, k, released, Dc, W))


def offcentre_reach_points(n: int, k: int, W: int, Dc: int) -> float:
    """The most points :func:`~dpposterior.lattice.column.reach_region` builds at any release with a count at most
    ``L = (k - 1) Dc`` (next to a face or a vertex), from public n, k, W, Dc: each side of its box is ``hi_i - lo_i +
    1 <= 2 (L + (k - 1) W) + 1`` (:func:`~dpposterior.lattice.column.reach_box_bounds`: ``lo_i >= -W``, ``hi_i <= r_i
    + L + s W`` with ``s <= k - 1`` small counts, and ``lo_i = r_i - L`` where ``r_i > L``), and a box is built only
    where it costs no more than the window (at most :data:`~dpposterior.lattice.column.WINDOW_POINT_COST` windows),
    else the window is; so at most the larger of that box bound (capped at that many windows) and the window where
    some release may build it."""
    from ..lattice.column import WINDOW_POINT_COST

    box, window = _offcentre_sizes(n, k, W, Dc)
    return max(min(box, WINDOW_POINT_COST * window), window if WINDOW_POINT_COST * window < box else 0.0)


def _offcentre_sizes(n: int, k: int, W: int, Dc: int) -> tuple[float, float]:
    """``(box, window)``: the bound on the box of a release with a count at most ``(k - 1) Dc``
    (:func:`offcentre_reach_points`: ``(2 (k - 1) (Dc + W) + 1)^(k - 1)``) and the window's points, public n, k, W, Dc."""
    return float(2 * (k - 1) * (Dc + W) + 1) ** (k - 1), float(_window_size(n, k, W))


def offcentre_reach_seconds(n: int, k: int, W: int, Dc: int) -> float:
    """The most seconds of :func:`~dpposterior.lattice.column.reach_region` at any release with a count at most ``(k -
    1) Dc``, public n, k, W, Dc: a release builds its box (at most :func:`offcentre_reach_points`' bound, and at most
    :data:`~dpposterior.lattice.column.WINDOW_POINT_COST` windows, else it would build the window) with the offsets,
    or, where the window costs less than the bound, possibly the window (the whole window where ``n <= Dc``); the most
    of those at their rates (:func:`reach_box_seconds`)."""
    from ..lattice.column import WINDOW_POINT_COST, reach_size

    box, window = _offcentre_sizes(n, k, W, Dc)
    offsets = reach_size(k, Dc)
    boxed = reach_box_seconds(min(box, WINDOW_POINT_COST * window), "box", offsets)
    if WINDOW_POINT_COST * window >= box:  # no release builds the window
        return boxed
    windowed = reach_box_seconds(window, "whole") if n <= Dc else reach_box_seconds(window, "window", offsets)
    return max(boxed, windowed)


class _Counted(Exception):
    """Stops :func:`~dpposterior.lattice.column.cut_region` once it has counted its box (the plan's count only)."""


def cut_box_count(a: NDArray, n: int, eps: float, m: NDArray, Dc: int) -> int:
    """The points of the box :func:`~dpposterior.lattice.column.cut_region` enumerates at the release ``m`` (every
    count past ``(k - 1) Dc``), counted as the run's check (:func:`_cut_points`) counts them, never enumerated: the
    count is what ``cut_region`` hands its ``check`` before it builds any point."""
    from ..lattice.column import cut_region

    box = [0]

    def count(points: int) -> None:
        box[0] = points
        raise _Counted

    try:
        cut_region(a, n, eps, m, Dc, check=count)
    except _Counted:
        pass
    return box[0]


def cut_family(n: int, k: int, Dc: int) -> list[NDArray[np.int64]]:
    """Releases whose every count is past ``L = (k - 1) Dc`` with one, two or ``k - 1`` counts at ``L + 1`` and the
    rest as even as they go (the cut's box grows as counts fall to ``L``): the public family the plan of the cut
    route reads besides the centre (:meth:`LatticeMechanism._cut_column_plan`).  Empty where no such release
    exists."""
    L = (k - 1) * Dc
    out = []
    for low in sorted({1, 2, k - 1}):
        rest = n - low * (L + 1)
        if rest <= (k - low) * L:
            continue
        c = np.full(k, L + 1, dtype=np.int64)
        c[low:] = rest // (k - low)
        c[low: low + rest - int(c[low:].sum())] += 1
        out.append(c)
    return out


#: The releases :func:`cut_release_family` names, as ``(counts at the low value, share of Dc)``: next to a face (one
#: count ``floor(t Dc)``, the rest as even as they go), an edge (two) and a vertex (three).  Why: the parts both filters
#: keep with a count at most 1 at a release next to a face are a function of its low counts, and the most sits along a
#: face (flat in the low count from 0 to ~0.3 Dc), next to an edge at ~0.25 Dc, next to a vertex at ~0.1 Dc; past
#: ``Dc`` none.  Dir(1,1,1,1), counted by the sample (:func:`~dpposterior.lattice.column.filtered_sample`'s points at
#: the release, 2026-12-03; low count: kept points / those with a count at most 1): eps 2, n = 1,000 (Dc = 18): face
#: 0: 59,725 / 59,496, 1: 60,655 / 59,505, 5: 59,705 / 57,381, 12: 52,933 / 52,334, 18: 260 / 0; edge 1: 65,453 /
#: 65,208, 5: 79,559 / 78,492, 8: 54,492 / 54,010; vertex 1: 44,816 / 44,816, 5: 27,427 / 27,128; n = 3,000 and 1e4
#: the same shape (face 69,866 and 80,017 at 1, edge 93,246 and 108,500 at 5); eps 1.5, n = 1,000 (Dc = 24): face
#: 142,883 at 1, edge 171,094 at 5, vertex 109,677 at 2.
CUT_RELEASE_SHARES = ((1, 0.05), (2, 0.25), (3, 0.1))
#: One more release of :func:`cut_release_family`: ``j`` counts at ``floor(t Dc)`` next to a face, the other ``k - j``
#: in the ratio ``1 : 2 : ... : k - j`` (the last takes the rest).  The releases above have equal counts, and their
#: kept parts fall 3x to 5x into orbits; where the other counts differ by more than the region's reach no permutation
#: maps a kept pair to another, so the parts are the orbits and the searches by orbits cost the most
#: (:data:`COLUMN_ORBIT_SECONDS`).  Measured 2026-12-05 (Dir(1,1,1,1), average, ``benchmarks/orbit_check_k4_s89.json``):
#: eps 2, n = 379, (37, 151, 190, 1) 39,656 parts in 36,267 orbits, its check priced over the family's most without
#: this release; n = 1,000, (107, 499, 393, 1) 42,253 parts, 42,253 orbits.
CUT_RELEASE_SPREAD = (1, 0.05)
#: CPU seconds of one release's sample in :func:`cut_release_cost` with its orbits' weights
#: (:func:`release_orbit_counts`; the plan's own work, counted in the plan): 0.15 to 0.53 s measured 2026-12-05
#: (Dir(1,1,1,1), the family's releases at eps 0.5 to 2.75, n = 17 to 1e4, idle; the most at eps 0.5 and next to a
#: vertex at eps 1, where most kept points have many kept images); held at ~2x.
CUT_RELEASE_SAMPLE_SECONDS = 1.0
#: The peak growth of the local column at a release of :func:`cut_release_family` (the region route searched by
#: orbits), bytes: a constant and a kept part (:func:`cut_release_cost`'s first count, from the plan's sample).  Measured
#: 2026-12-04, Dir(1,1,1,1), average, ``local_posterior`` alone at the release, each in its own process
#: (``benchmarks/noise_aware_k4_face_bytes.json``; kept parts, peak growth): eps 3, n = 300, (30, 120, 150, 0) 10,325,
#: 21 MB; n = 1,000, (108, 499, 393, 0) 11,932, 22 MB; eps 2, n = 300, (29, 119, 151, 1) 39,623, 64 MB and (148, 0, 1,
#: 151) 49,113, 70 MB; n = 511, (99, 199, 212, 1) 46,944, 63 MB and (254, 0, 1, 256) 55,023, 91 MB: 1.35 to 2.0 kB a
#: part.  The cut route's plan counted the centre's points only (0.5 to 1.8 MB planned at these cells); this rule is
#: 1.3x to 1.6x over each run.
CUT_RELEASE_BYTES = (8e6, 2e3)


def cut_release_bytes(parts: float) -> float:
    """Estimated peak bytes of the local column at a release of :func:`cut_release_family` with ``parts`` kept parts
    (:data:`CUT_RELEASE_BYTES`); from the plan's public sample."""
    return CUT_RELEASE_BYTES[0] + CUT_RELEASE_BYTES[1] * float(parts)


def cut_release_family(n: int, k: int, epsilon: float) -> list[NDArray[np.int64]]:
    """The public releases next to a face, an edge and a vertex (:data:`CUT_RELEASE_SHARES`: ``j`` counts at
    ``floor(t Dc)``, the others as even as they go) and next to a face with the others spread apart
    (:data:`CUT_RELEASE_SPREAD`) over which the k >= 4 plan takes the most where the centre takes the cut route
    (:meth:`LatticeMechanism._cut_column_plan`; the centre itself is planned there), and below it on the region route
    searched by orbits (:meth:`LatticeMechanism._region_column_plan`): such releases take the region
    route searched by orbits, whose work the centre's costs do not bound (Dir(1,1,1,1), average,
    eps 2, n = 1,000: the centre 0.05 CPU s, (107, 499, 393, 1) 46 s).  A stated, measured family, not a proof (the run
    still checks its own release, :func:`_check_searches`).  Public n, k, eps."""
    n, k = int(n), int(k)
    Dc = _radius(k, float(epsilon), 1e-12)
    out = []
    for low, t in CUT_RELEASE_SHARES:
        v = min(int(t * Dc), n // k)
        rest = n - low * v
        out.append(np.array([v] * low + [rest // (k - low) + (1 if j < rest % (k - low) else 0)
                                         for j in range(k - low)], dtype=np.int64))
    # next to a face with the other counts spread apart (CUT_RELEASE_SPREAD)
    low, t = CUT_RELEASE_SPREAD
    v = min(int(t * Dc), n // k)
    rest = n - low * v
    w = np.arange(1, k - low + 1)
    spread = rest * w // int(w.sum())
    spread[-1] += rest - int(spread.sum())
    out.append(np.concatenate([np.full(low, v), spread]).astype(np.int64))
    return out


#: The k >= 4 local column by orbits (:func:`column_orbits`) besides its searches and its reach box, where eps is within
#: :data:`ORBIT_REST_EPSILON` and the centre's region reaches off R(n) (``n // k <= (k - 1) Dc``): CPU seconds a point
#: of its reach region (the risk and descent filters, the enumeration, the column over the data sets near the release,
#: all in).  Measured on one idle host (the column's CPU s less its searches', 16 releases at eps 0.35 to 0.75, n = 12
#: to 40; ``benchmarks/orbit_check_k4_loweps_s90.json``, ``..._s91.json``, ``benchmarks/orbit_check_k4_s89.json``;
#: ``python benchmarks/orbit_filters_k4.py --out benchmarks/orbit_filters_k4.json`` prints each): 1.7 to 2.7 us a region
#: point, so with the box the runs sit at 0.43 to 0.68 of this price; the filters' rule (:data:`RISK_SECONDS` a point
#: and coordinate, :data:`FILTER_SECONDS` at the points the risk filter keeps, its term growing with Dc) priced them at
#: 12 to 33 us (0.06 to 0.22).  At eps 1 the rate holds too: with the box, the price is over the rest at 37 releases
#: (Dir(1,1,1,1), average, n = 20 to 100: the 20 of ``benchmarks/column_parts_k4.json``, the centre and
#: :func:`cut_release_family` at n = 40, 60, 80, 100, this tree's column, load ~2, at 0.45 to 0.66 of it; the 17 of
#: ``benchmarks/orbit_filters_k4.json``, an earlier tree on another host, at 0.55 to 0.87), where the filters' rule
#: priced it at 1.8x to 4.0x the rate (n = 80, (9, 9, 31, 31): 13.7 s against 4.5 s, the run's rest 4.35 s with its box
#: of 3.48 s planned), and that rest is what held ``average``'s noise-aware column at eps 1 to n = 60 (planned 45.7 s at
#: n = 61, 37.5 s at n = 60 now; admitted to n = 68).  Not used past eps 1: at eps 1.25 and 1.5 the same rest sits at
#: up to 0.90 and 0.92 of the rate's price (``orbit_filters_k4.json``), at eps 1.75 and above it ran up to 27 us a point
#: (the column over R(n) weighs); nor on the cut route (larger n) or at k >= 5 (not measured).
#: The low end is eps 0.35's working eps (:func:`working_epsilon`, 0.34999943): the plan reads the eps a release runs
#: at, so the claimed eps 0.35, measured here, stays inside.  The high end is eps 1, a working eps itself.
ORBIT_REST_SECONDS = 3.5e-6
ORBIT_REST_EPSILON = (working_epsilon(0.35, 4), 1.0)


def orbit_rest_seconds(region: float, kept: float, n: int, k: int, epsilon: float, Dc: int) -> float:
    """Estimated seconds of the k >= 4 local column by orbits besides its searches and reach box, at ``region`` points
    of its reach region of which the risk filter keeps ``kept``: :data:`ORBIT_REST_SECONDS` a region point where k = 4,
    eps is within :data:`ORBIT_REST_EPSILON` and ``n // k <= (k - 1) Dc`` (measured there), else the filters' rule
    (:data:`RISK_SECONDS` a point and coordinate, the descent filter's :data:`FILTER_SECONDS` at the kept points); from
    public counts, n, k, eps, Dc.  The plan reads it at the centre (:meth:`LatticeMechanism._region_column_plan`) and at
    each release of the family (:func:`cut_release_cost`)."""
    eps = float(epsilon)
    if (int(k) == 4 and ORBIT_REST_EPSILON[0] <= eps <= ORBIT_REST_EPSILON[1]
            and int(n) // 4 <= 3 * int(Dc)):  # where it was measured
        return float(region) * ORBIT_REST_SECONDS
    descent = FILTER_SECONDS[0] + FILTER_SECONDS[1] * k * (Dc + 1)
    return float(region) * RISK_SECONDS * k + float(kept) * descent


def cut_release_cost(prior, n: int, epsilon: float, Dc: int, W: int, released) -> tuple[float, float, float, float]:
    """``(parts, faces, region, seconds)``: estimates, from public inputs (for a plan; not a bound), at the public
    release ``released`` (k >= 4, a symmetric prior: :func:`column_orbits`; a count at most ``(k - 1) Dc``, the region
    route) of the kept parts (the points both filters keep in the sample of
    :func:`~dpposterior.lattice.column.filtered_sample` at the release: at least the distinct positive parts the run's
    check counts), those with a count at most 1, the region's points, and the local column's work there: its reach box
    built (:func:`reach_build_seconds`, what the run's check
    reads), the rest besides the searches (:func:`orbit_rest_seconds`: a rate a region point where measured, else the
    risk filter at every region point and the descent filter at those it keeps) and the searches by orbits
    (:func:`column_orbit_seconds`, the rule the run's check reads at its own release) at the kept distinct positive parts
    and their orbits, what that check counts (:func:`release_search_counts`). ``parts`` and ``faces`` stay the kept
    points (what :func:`cut_release_bytes` was fitted on)."""
    from ..lattice.column import _filtered_sample_points

    a = np.asarray(prior, dtype=np.float64)
    k, eps = a.size, float(epsilon)
    scale, z, keep, risk = _filtered_sample_points(a, n, eps, Dc, W, released)
    parts = scale * (np.count_nonzero(keep) + 1)
    faces = scale * (np.count_nonzero(keep & (z.min(axis=1) <= 1)) + 1)
    region = scale * (len(z) + 1)
    searched, orbits, searched_faces, clamp = release_search_counts(a, n, eps, Dc, W, released)
    filters = orbit_rest_seconds(region, scale * (np.count_nonzero(risk) + 1), n, k, eps, Dc)
    seconds = (reach_build_seconds(n, k, released, Dc, W) + filters
               + column_orbit_seconds(searched, orbits, n, k, eps, searched_faces, clamp=clamp))
    return float(parts), float(faces), float(region), float(seconds)


def release_orbit_counts(prior, n: int, epsilon: float, Dc: int, W: int, released) -> tuple[float, float, float]:
    """``(parts, orbits, faces)``: estimates, from public inputs (for a plan; not a bound), at the public release
    ``released`` (k >= 4, a symmetric prior), of what the run's check (:func:`_check_searches`) counts there: the
    distinct positive parts the filters keep, their orbits (:func:`~dpposterior.lattice.batched.orbit_count`, one
    search each) and those parts with a count at most 1.  The sample of
    :func:`~dpposterior.lattice.column.filtered_sample` at the release, each kept point weighed by
    :func:`~dpposterior.lattice.column.part_shares` (one over the box's points with its part, so a part counts once
    in expectation: next to an edge or a vertex a part has up to ``(W + 1)^2`` or more points off R(n)) and, for the
    orbits, by :func:`~dpposterior.lattice.column.orbit_weights` besides (one over its pair's kept images, so an orbit
    counts once).  Measured at 22 releases (``benchmarks/orbit_estimate_k4.json``): the parts 0.938x to 1.016x the
    check's, the orbits 0.953x to 1.031x."""
    scale, kept, share, weights = _kept_sample(prior, n, epsilon, Dc, W, released)
    return _sample_counts(scale, kept, share, weights, np.ones(len(kept), dtype=bool))


def _kept_sample(prior, n: int, epsilon: float, Dc: int, W: int, released):
    """``(scale, kept, share, weights)``: the kept points of :func:`~dpposterior.lattice.column.filtered_sample` at the
    release, each one's :func:`~dpposterior.lattice.column.part_shares` and
    :func:`~dpposterior.lattice.column.orbit_weights`, and the sample's scale."""
    from ..lattice.column import _filtered_sample_points, orbit_weights, part_shares

    a = np.asarray(prior, dtype=np.float64)
    eps = float(epsilon)
    scale, z, keep, _ = _filtered_sample_points(a, n, eps, Dc, W, released)
    kept = z[keep]
    share = part_shares(n, Dc, W, released, kept)
    weights = orbit_weights(a, n, eps, Dc, released, kept) if len(kept) else np.zeros(0)
    return scale, kept, share, weights


def _sample_counts(scale: float, kept: NDArray, share: NDArray, weights: NDArray, mask: NDArray
                   ) -> tuple[float, float, float]:
    """``(parts, orbits, faces)`` estimated over the kept sample points in ``mask`` (:func:`release_orbit_counts`'s
    rule): the shares' sum, their sum weighed by the orbit weights, and the shares of the parts with a count at most
    1, each scaled (one is added first, so an empty sample never estimates zero)."""
    share, weights, kept = share[mask], weights[mask], kept[mask]
    faces = float(share[kept.min(axis=1) <= 1].sum()) if len(kept) else 0.0
    return (float(scale * (share.sum() + 1)), float(scale * ((share * weights).sum() + 1)),
            float(scale * (faces + 1)))


def release_search_counts(prior, n: int, epsilon: float, Dc: int, W: int, released
                          ) -> tuple[float, float, float, tuple[float, float, float] | None]:
    """``(parts, orbits, faces, clamp)``: what :func:`column_orbit_seconds` reads at the public release ``released``
    (a plan's estimate, as :func:`release_orbit_counts`).  Where every shift is exact (:func:`exact_shifts`) and
    :func:`~dpposterior.lattice.column.clamp_key_bound` counts the clamps: the first three over the kept sample points
    with every count below n, and ``clamp = (clamped, keys, clamp_orbits)``: the kept parts with a count at least n
    and their orbits (the sample's estimates, as the others') and the bound on their clamp groups (at least what the
    run's check counts); else :func:`release_orbit_counts` and None."""
    from ..lattice.column import clamp_key_bound

    a = np.asarray(prior, dtype=np.float64)
    eps = float(epsilon)
    keys = clamp_key_bound(n, Dc, W, released) if exact_shifts(a, eps) else None
    if keys is None:
        return (*release_orbit_counts(a, n, eps, Dc, W, released), None)
    scale, kept, share, weights = _kept_sample(a, n, eps, Dc, W, released)
    clamped = np.any(kept >= n, axis=1)
    parts, orbits, _ = _sample_counts(scale, kept, share, weights, clamped)
    return (*_sample_counts(scale, kept, share, weights, ~clamped), (parts, float(keys), orbits))


@lru_cache(maxsize=32)
def _cut_release_most(prior: tuple, n: int, epsilon: float, Dc: int, W: int) -> tuple[float, float, int, float]:
    """``(seconds, region, samples, parts)``: the most of :func:`cut_release_cost`'s seconds and region points over
    :func:`cut_release_family`, the releases sampled, and the most kept parts; cached by its public inputs."""
    costs = [cut_release_cost(prior, n, epsilon, Dc, W, r) for r in cut_release_family(n, len(prior), epsilon)]
    return max(c[3] for c in costs), max(c[2] for c in costs), len(costs), max(c[0] for c in costs)


#: CPU seconds of one release's sample in :func:`_corner_release_most` (:func:`corner_release_counts`: the sample of
#: :func:`~dpposterior.lattice.column.filtered_sample` and the orbit weights of its kept points of R(n); the plan's own
#: work, counted in the plan): 0.07 to 0.16 s measured 2026-12-06 (Dir(1,1,1,1), the centre and the family's releases
#: at eps 1 to 2, n = 85 to 1e4, load ~2); held at about 2x.
CORNER_RELEASE_SAMPLE_SECONDS = 0.35


def corner_release_counts(prior, n: int, epsilon: float, Dc: int, W: int, released) -> tuple[float, float]:
    """``(projections, orbits)``: estimates, from public inputs (for a plan; not a bound), at the public release
    ``released`` of the k >= 4 corner release's kept projections (:meth:`LatticeMechanism._corner_column_any`: the
    distinct projections of its reach region that :func:`~dpposterior.lattice.column.search_filter` keeps) and their
    orbits (:func:`~dpposterior.lattice.batched.orbit_count`, one search each), at a symmetric prior.

    Count.  A point ``p`` of R(n) in the reach region is its own projection; and the projection ``p = project(z)`` of
    a region point is such a point (``p >= 0 >= -W``, ``sum p = n``, ``project(p) = p``, so ``project(p) - r`` is
    ``project(z) - r``, in ``U(Dc)``).  So the kept projections are the kept points of R(n) in the region (those the
    run reads from the corner and edge tables less: an upper end).  The sample of
    :func:`~dpposterior.lattice.column.filtered_sample` at the release, its kept points with every count at least 0,
    each weighed by :func:`~dpposterior.lattice.column.orbit_weights` for the orbits (a point of R(n) is its own pair
    ``(z, z)``); one point added to each (an empty sample never estimates zero).  Measured against the runs at the
    31 releases with n <= 300 and 400 orbits or more (``benchmarks/corner_projections_k4.json``): 0.66x to 1.23x."""
    from ..lattice.column import _filtered_sample_points, orbit_weights

    a = np.asarray(prior, dtype=np.float64)
    scale, z, keep, _ = _filtered_sample_points(a, n, epsilon, Dc, W, released)
    kept = z[keep & np.all(z >= 0, axis=1)]
    weights = orbit_weights(a, n, epsilon, Dc, released, kept) if len(kept) else np.zeros(0)
    return float(scale * (len(kept) + 1)), float(scale * (weights.sum() + 1))


@lru_cache(maxsize=32)
def _corner_release_most(prior: tuple, n: int, epsilon: float, Dc: int, W: int) -> tuple[float, int, float]:
    """``(seconds, samples, orbits)``: the most, over the centre of R(n) and :func:`cut_release_family` (next to a face,
    an edge and a vertex, and next to a face with the others spread apart, where no permutation maps a kept projection
    to another: the most orbits measured), of the k >= 4 corner release's work at a release that the run's checks
    price (:meth:`LatticeMechanism._local_column`): its reach region's box (:func:`reach_build_seconds`, the most
    over the release's permutations: the box reads the first ``k - 1`` counts, so a release with its small count
    last builds a larger one) and its projections by orbits (:func:`corner_projection_orbit_seconds` at the counts
    :func:`corner_release_counts` estimates; a symmetric prior: the same at every permutation); the releases sampled;
    the most orbits.  Cached by its public inputs."""
    from itertools import permutations

    k = len(prior)
    c0 = np.full(k, n // k, dtype=np.int64)
    c0[: n - int(c0.sum())] += 1
    releases = [c0, *cut_release_family(n, k, epsilon)]
    most = seconds = 0.0
    for r in releases:
        points, orbits = corner_release_counts(prior, n, epsilon, Dc, W, r)
        box = max(reach_build_seconds(n, k, r[list(s)], Dc, W) for s in permutations(range(k)))
        most = max(most, orbits)
        seconds = max(seconds, box + corner_projection_orbit_seconds(points, orbits, epsilon))
    return seconds, len(releases), most


def _solve_limit(seconds: float, what: str) -> None:
    limit = limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS")
    if seconds > limit:
        raise SizeError(f"{what} is estimated at {estimate_text(seconds)} s, over the limit of {limit:g} s "
                        "(set DPPOSTERIOR_MAX_SOLVE_SECONDS to raise it)")


def _batched_rule(a: NDArray, c: NDArray, epsilon: float, D: int, orbits: bool = False):
    """The output rank of what a draw computes at each z of the ball ``d(z - c) <= D`` (the local search, by
    :func:`~dpposterior.lattice.batched.local_search_batch`, all at once; ``orbits``: one search per orbit of the
    ball's points at a symmetric prior, the same outputs), as a rule for
    :func:`~dpposterior.lattice.pointwise.ball_pmf` (a look-up by the points' lexicographic keys)."""
    from ..lattice.batched import local_search_batch
    from ..lattice.remap import _ball

    n, k = int(c.sum()), c.size
    Z = c[None, :] + _ball(k, D)  # lexicographic, as ball_pmf hands them on
    ranks = candidate_rank(local_search_batch(a, n, epsilon, Z, orbits=orbits))
    base = n + 2 * D + 1

    def key(z):
        out = np.zeros(len(z), dtype=np.int64)
        for i in range(k - 1):
            out = out * base + (z[:, i] + D)
        return out

    keys = key(Z)

    def rule(z):
        return ranks[np.searchsorted(keys, key(np.asarray(z, dtype=np.int64)))]
    return rule


class LatticeRows(Rows):
    """Rows ``ln P_win(. | c)`` of the remapped lattice release over R(n): the lower ends of the bracket
    ``P_win <= P <= P_win + tail`` (module docstring), exact in log space: for each output r,
    ``ln P_win(r | c) = logsumexp over z with T(z, r) > 0 of (ln K(z | c) + ln T(z, r))`` (no underflow at
    large eps, so the scans' ratios are the release's)."""

    def __init__(self, a, n, setup: LatticeSetup, remap: Remap):
        super().__init__(a, n)
        self.setup, self.remap = setup, remap
        self.tail = setup.tail
        csc = sparse.csc_array(remap.dense(len(setup.R)))
        csc.eliminate_zeros()
        csc.sort_indices()
        self._csc = csc

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        ci = candidate_rank(counts)
        out = np.full((len(ci), len(self.cands)), NEVER)
        step = max(1, BLOCK_ENTRIES // max(1, len(self.setup.Z)))
        ptr, idx, val = self._csc.indptr, self._csc.indices, np.log(self._csc.data)
        for lo in range(0, len(ci), step):
            logK = self.setup.log_kernel(ci[lo:lo + step])
            for r in range(len(self.cands)):
                s, e = ptr[r], ptr[r + 1]
                if e > s:
                    out[lo:lo + step, r] = logsumexp(logK[:, idx[s:e]] + val[s:e], axis=1)
        return out


@_at_working_epsilon
class LatticeMechanism(Mechanism):
    """K-norm noise on the sum-zero lattice, then the objective's remap (module docstring; docs/lattice.md)."""

    family = Family.LATTICE
    objectives = tuple(Objective)
    sampling_guarantee = ("exact integer lattice noise (no float between the random bits and the draw); average: a "
                          "deterministic remap, total variation 0; worst: a randomised row drawn by integer weights, "
                          "total variation <= |R(n)| 2^-127 from the row (randomness.float_weights)")

    def release_key(self, prior, n: int, spec: ReleaseSpec) -> tuple:
        """The lattice release of one objective (``optimal`` past its linear program is this release); ``worst`` where
        its corner table has no rows (:func:`corners_fit`) is ``average``'s release where that one runs the local
        search too (not where ``average`` reads the window's Bayes remap: another remap)."""
        k, n = len(prior), int(n)
        if (spec.objective == Objective.WORST and not self.uses_window(n, k, spec) and not corners_fit(
                n, k, spec.epsilon) and not self.uses_window(n, k, spec.averaged())):
            return ("lattice", str(Objective.AVERAGE))
        return ("lattice", str(spec.objective))

    def same_release(self, k: int) -> str | None:
        """At k = 2, ``optimal``: the same kernel (the clamped two-sided geometric, module docstring) and a remap that
        is the Bayes remap (``average``: equal within the tail bound, tested) or a minimax remap (``worst``: the same
        optimum within both certificates)."""
        return "optimal" if k == 2 else None

    # -- checks and budgets (public n, k, eps only) ---------------------------------------------

    def check(self, spec: ReleaseSpec) -> ReleaseSpec:
        """Refuse eps below :data:`MIN_EPSILON` (one line, before any radius is computed)."""
        spec = super().check(spec)
        _radius(2, spec.epsilon, DEFAULT_TOL)
        return spec

    def check_distance(self, spec: ReleaseSpec, k: int) -> None:
        """Hellinger only (the remap's loss); any other distance is refused in one line."""
        if spec.distance != DEFAULT_DISTANCE:
            raise InputError(f"lattice under {spec.distance} is not built (its remap's loss is Hellinger's): "
                             "use --distance hellinger")

    def check_size(self, n: int, k: int, what: str) -> None:
        """Refuse rows over :data:`ROWS_MAX_OUTPUTS` outputs (one line), then the memory of rows over R(n)."""
        size = n_candidates(n, k)
        if size > ROWS_MAX_OUTPUTS:
            raise SizeError(f"the lattice release's exact rows for k={k}, n={n} cover |R(n)| = {size} outputs, over "
                            f"the limit of {ROWS_MAX_OUTPUTS} (its draws run at any n)")
        super().check_size(n, k, what)

    def uses_window(self, n: int, k: int, spec: ReleaseSpec) -> bool:
        """Whether a draw reads the window's remap (else ``average`` runs the local search at its z)."""
        if spec.objective == Objective.WORST:
            return k not in (3, 4) or minimax_seconds(n, k, spec.epsilon) <= WINDOW_WORST_SECONDS
        return dense_seconds(n, k, spec.epsilon) <= DENSE_DRAW_SECONDS

    def uses_corners(self, n: int, k: int, spec: ReleaseSpec, prior=None) -> bool:
        """Whether a draw reads the corner remap (``worst`` at k = 3, 4 past the window's LP, :data:`WINDOW_WORST_SECONDS`):
        the corner table near the vertices, the local search elsewhere (docs/lattice.md); where the corner remap does not
        fit (:func:`corners_fit`) no row is the table's: a draw runs the local search, as ``average``'s.  Not where the
        face table is read (:meth:`uses_faces`, which needs the ``prior``)."""
        return (spec.objective == Objective.WORST and not self.uses_window(n, k, spec)
                and corners_fit(n, k, spec.epsilon) and not self.uses_faces(n, k, spec, prior))

    def uses_faces(self, n: int, k: int, spec: ReleaseSpec, prior=None) -> bool:
        """Whether a draw reads the face table (``worst`` at k = 4 past the window's LP where :func:`faces_fit`): its
        LP's rows near the faces, the local Bayes remap at z elsewhere (:mod:`dpposterior.lattice.faces_any`)."""
        return (spec.objective == Objective.WORST and not self.uses_window(n, k, spec)
                and faces_fit(prior, n, k, spec.epsilon))

    def check_corners(self, n: int, k: int, spec: ReleaseSpec, setups: float = 1.0, symmetric: bool = False,
                      prior=None) -> None:
        """Refuse (one line, before any work) the corner remap's solve and ``setups`` local searches over the memory or
        the solve limit (``symmetric``: :func:`symmetric_corners` of the prior; ``prior``: the solve's fixed rows'
        search at :func:`corner_search_factor`, else as counted without it)."""
        self.check_distance(spec, k)
        size = corner_plan_sizes(n, k, spec.epsilon, symmetric)
        one = ", one corner for three" if size.get("corners_solved") == 1 else ""
        fixed = f", its fixed rows' local search at n_ref={size['n_ref']}" if k == 3 else ""
        check_size(math.ceil(corner_bytes(n, k, spec.epsilon, symmetric) / 8), 8,
                   f"the lattice release's corner remap for k={k}, eps={spec.epsilon:g} (its LP: {size['pairs']:,} "
                   f"pairs x {size['outputs']} outputs{one}{fixed})")
        _solve_limit(corner_seconds(n, k, spec.epsilon, symmetric, search_factor=corner_search_factor(prior, spec.epsilon))
                     + corner_draw_seconds(n, k, spec.epsilon, setups),
                     f"the lattice release's corner remap for k={k}, n={n}, eps={spec.epsilon:g} (its LP and "
                     f"{setups:g} local searches)")

    def check_window(self, n: int, k: int, spec: ReleaseSpec, what: str = "the lattice release's window remap") -> None:
        """Refuse (one line, before any work) the window's remap over the memory or the time budget."""
        self.check_distance(spec, k)
        try:
            check_size(math.ceil(window_bytes(n, k, spec.epsilon, spec.objective) / 8), 8,
                       f"{what} for k={k}, n={n} (|R(n)|^2 losses, the window's kernel"
                       f"{', its LP' if spec.objective == Objective.WORST else ''})")
            sec = minimax_seconds(n, k, spec.epsilon) if spec.objective == Objective.WORST else dense_seconds(
                n, k, spec.epsilon)
            _solve_limit(sec, f"{what} ({spec.objective}) for k={k}, n={n}, eps={spec.epsilon:g}")
        except SizeError as exc:
            if spec.objective != Objective.WORST or not self._average_draws(n, k, spec):
                raise
            # the average objective's draws need no window remap at this size: say so at the end of the line, only
            # where its own budget accepts the same inputs
            raise SizeError(f"{exc}; lattice~average (--objective average) releases here") from None

    def _average_draws(self, n: int, k: int, spec: ReleaseSpec) -> bool:
        """Whether a padded release of ``lattice~average`` at the same public inputs fits its budget (the remedy a
        worst-case refusal names only where it works)."""
        try:
            self.check_draw(n, k, spec.averaged(), PADDED_DRAWS)
        except SizeError:
            return False
        return True

    def check_exact(self, n: int, k: int, spec: ReleaseSpec, prior=None) -> None:
        """The pmf and the errors exist where a draw reads the window's remap (the same release)."""
        if self.uses_faces(n, k, spec, prior):
            raise SizeError(f"the lattice release's exact pmf for k={k}, n={n}, eps={spec.epsilon:g} (worst) is not "
                            "computed: its draws read the face table or compute the local remap at the drawn point")
        if self.uses_corners(n, k, spec):
            raise SizeError(f"the lattice release's exact pmf for k={k}, n={n}, eps={spec.epsilon:g} (worst) is not "
                            "computed: its draws read the corner table or compute the local remap at the drawn point")
        if not self.uses_window(n, k, spec):
            raise SizeError(f"the lattice release's exact pmf for k={k}, n={n}, eps={spec.epsilon:g} is not computed: "
                            f"its draws compute the remap at the drawn point only (the window's remap is estimated "
                            f"at {estimate_text(dense_seconds(n, k, spec.epsilon))} s, over {DENSE_DRAW_SECONDS:g} s)")
        self.check_window(n, k, spec)

    def check_draw(self, n: int, k: int, spec: ReleaseSpec, setups: float = 1.0, symmetric: bool = False,
                   prior=None) -> None:
        """Refuse a draw over its budget: the window's remap, or ``setups`` local searches (``symmetric``:
        :func:`symmetric_corners` of the prior, for the corner remap; ``prior``: for the face table,
        :meth:`uses_faces`, and the corner solve's :func:`corner_search_factor`)."""
        if self.uses_window(n, k, spec):
            self.check_window(n, k, spec)
            return
        if self.uses_faces(n, k, spec, prior):
            self.check_distance(spec, k)
            admit(self._face_table_plan(n, k, spec, setups))
            return
        if self.uses_corners(n, k, spec):
            self.check_corners(n, k, spec, setups, symmetric, prior)
            return
        self.check_distance(spec, k)
        Dc = _radius(k, spec.epsilon, 1e-12)
        check_size(k * (2 * Dc + 1) ** (k - 1), 8 * 3, f"the lattice release's local search for k={k}, "
                   f"eps={spec.epsilon:g}")
        _solve_limit(draw_seconds(n, k, spec.epsilon, setups),
                     f"the lattice release's local search for k={k}, eps={spec.epsilon:g} ({setups:g} draws)")

    def solve_seconds(self, n: int, k: int, objective: str | None = None, epsilon: float | None = None) -> float:
        """Estimated seconds of the remap behind the rows (eps 1 if not given): the Bayes remap or the minimax LP."""
        eps = 1.0 if epsilon is None else float(epsilon)
        return minimax_seconds(n, k, eps) if objective == Objective.WORST else dense_seconds(n, k, eps)

    def setup_seconds(self, n, k):
        """The remap is cached per (prior, n, eps, objective): a batch's set-up is a look-up."""
        return 1e-4

    def audit_entry_seconds(self, n, k):
        """The exact lattice draw (a Python loop over the sphere point, ~30 us at k = 3, 4) and a look-up; where an
        ``average`` draw at eps = 1 runs the local search (eps is not known here), that search per draw."""
        base = 1.5e-5 + 2e-6 * k
        if dense_seconds(n, k, 1.0) > DENSE_DRAW_SECONDS:
            return base + local_seconds(k, 1.0) / k
        return base

    def check_setup(self, n, k, *, setups=1.0, what="a draw"):
        """Nothing from n and k alone: the budget needs eps and the objective (:meth:`check_draw`, run by
        :meth:`set_up` and :meth:`sample` before any work)."""
        return None

    # -- the remap and the rows ----------------------------------------------------------------

    def remap(self, prior, n: int, spec: ReleaseSpec) -> Remap:
        """The window's remap of ``spec.objective`` (cached), within its budget."""
        self.check_window(int(n), len(prior), spec)
        return _remap(tuple(float(x) for x in prior), int(n), spec.epsilon, spec.objective)

    def rows(self, prior, n, spec):
        a = np.asarray(prior, dtype=np.float64)
        self.check_exact(int(n), a.size, spec, a)
        remap = self.remap(a, n, spec)
        return LatticeRows(a, int(n), _setup(tuple(a.tolist()), int(n), spec.epsilon), remap)

    def plan_errors(self, prior, n: int, spec: ReleaseSpec, measure: str | None = None) -> Plan:
        """The route of the exact errors (module docstring): the window's remap (``"window remap"``: its upper ends
        under Hellinger, the remap's loss) where a draw reads it; at k = 3 past it (``average``, and ``worst`` where its
        corner table has no rows: :func:`corners_fit`), the local remap at every point of the window (``"local
        search"``, :meth:`local_errors`, a bracket of :data:`LOCAL_ERROR_TOL`), and at
        k >= 4 the same by the batched local search (``"batched local search"``, :meth:`_batched_plan`); another
        ``measure`` walks the rows (lower ends).  Else no route: the draws compute the remap at the drawn point only."""
        k = len(prior)
        what = self.errors_what(n, k, spec)
        self.check_distance(spec, k)
        if measure is not None and measure != DEFAULT_DISTANCE:  # the rows' lower ends, under another distance
            return self._window_plan(prior, n, spec, what, rows=True)
        if k == 3 and not self.uses_window(n, k, spec) and not self.uses_corners(n, k, spec):
            return self._local_plan(n, k, spec, what, ties=True, symmetric=_symmetric(prior))
        if self.uses_faces(n, k, spec, prior):
            return self._face_plan(n, k, spec, what, exact_shifts(prior, spec.epsilon))
        if self.uses_corners(n, k, spec):
            if k >= 4:
                return self._corner_plan_any(n, k, spec, what, _symmetric(prior), exact_shifts(prior, spec.epsilon))
            return self._corner_plan(n, k, spec, what, symmetric_corners(prior))
        if k >= 4 and not self.uses_window(n, k, spec):  # average, or worst where the corner table has no rows
            return self._batched_plan(n, k, spec, what, _symmetric(prior), exact_shifts(prior, spec.epsilon))
        return self._window_plan(prior, n, spec, what)

    def _face_table_plan(self, n: int, k: int, spec: ReleaseSpec, setups: float = 1.0) -> Plan:
        """The plan of the face table's build (:func:`_face`: :func:`~dpposterior.lattice.faces_any.plan_face_table`,
        a solve) and ``setups`` draws' local searches off it."""
        from ..lattice.faces_any import plan_face_table

        plan = plan_face_table(n, k, spec.epsilon)
        if plan.refusal:
            return plan
        sec = plan.seconds + setups * local_seconds(k, spec.epsilon)
        return replace(plan, seconds=sec, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", sec),), advice=self._advice(spec))

    def _face_plan(self, n: int, k: int, spec: ReleaseSpec, what: str, exact: bool = False) -> Plan:
        """The plan of the face release's errors (route ``"face table"``, :func:`_face_errors`): the rest's errors
        (:meth:`_batched_plan` by orbits: the same call as ``lattice~average``'s row, so ``compare`` runs it once,
        ``Plan.shared``), the table's build from that search's outputs (a solve,
        :func:`~dpposterior.lattice.faces_any.plan_face_shared`: :func:`_face` with ``window_fallback``, no search of
        its own) and its differences (:func:`~dpposterior.lattice.faces_any.plan_face_any`'s terms)."""
        from ..lattice.faces_any import FACE_TERM_SECONDS, FACE_TERM_SHARE, face_rows_count, plan_face_shared

        rest = self._batched_plan(n, k, spec.averaged(), what, True, exact)
        table = plan_face_shared(n, k, spec.epsilon)
        if table.refusal:
            return replace(table, what=what)
        diff = FACE_TERM_SECONDS * FACE_TERM_SHARE * face_rows_count(n) * ball_size(k, spec.epsilon, LOCAL_ERROR_TOL)
        # two solves, each cached on its own and each held to the solve limit: the rest's search (lattice~average's)
        # and the table's build from its outputs (the table a draw reads, bit for bit)
        return replace(rest, route="face table", seconds=rest.seconds + table.seconds + diff,
                       memory_bytes=max(rest.memory_bytes, table.memory_bytes),
                       costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", dict(rest.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"]),
                              ("DPPOSTERIOR_MAX_SOLVE_SECONDS", table.seconds),
                              ("DPPOSTERIOR_MAX_PAIRS", dict(rest.costs)["DPPOSTERIOR_MAX_PAIRS"])),
                       shared=rest.shared, advice=self._advice(spec))

    def _corner_plan(self, n: int, k: int, spec: ReleaseSpec, what: str, symmetric: bool = False) -> Plan:
        """The plan of :meth:`corner_errors` (``worst`` past the window's LP): the local remap's errors
        (:meth:`_local_plan`, k = 3; at k = 4 :meth:`_batched_plan` over R(n) only, the rest reading ``project(z)``)
        and the corner remap's solve (a solve, with the batched remap)."""
        if k >= 4:
            return self._corner_plan_any(n, k, spec, what)
        from ..lattice.corners import edge_error_terms

        orbits = orbit_route(n, k, spec.epsilon, symmetric)
        local = self._local_plan(n, k, spec, what, orbits, batched_ties=False)
        # the search shared with the average's errors (_window_outputs): its part counted once in compare
        shared = (((WINDOW_SEARCH_KEY, n, k, float(spec.epsilon)), dict(local.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"]),
                  ) if orbits and shared_search(n, k, spec.epsilon, symmetric) else ()
        corner = corner_seconds(n, k, spec.epsilon, symmetric, high=False)
        # the local search where the release reads it, not by orbits, its corners apart below eps 1: the window's
        # search with the points it cannot decide at once (CORNER_LOCAL_SEARCH_FACTOR)
        extra = ((CORNER_LOCAL_SEARCH_FACTOR - 1.0) * dict(local.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"]
                 if not orbits and float(spec.epsilon) < 1.0 and not _corners_joint(n, k, spec.epsilon) else 0.0)
        if orbits:  # by orbits: its one-point searches as well as its table (orbit_solve_terms)
            searched, corner = orbit_solve_terms(n, k, spec.epsilon, symmetric)
            extra = searched - dict(local.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"]
        search = dict(local.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"] + extra + corner
        # the data sets near an edge recomputed with the edge table's rows (eps < 1), an offset sum; by orbits one per
        # rotation class and those near a point that breaks the rotation (as the sums: local_error_seconds)
        terms = edge_error_terms(n, k, spec.epsilon, _radius(k, spec.epsilon, LOCAL_ERROR_TOL))
        if orbits and terms:
            terms = min(terms, terms / 3.0 + ROTATION_NEAR_ROWS * ball_size(k, spec.epsilon, LOCAL_ERROR_TOL))
        edge = EDGE_TERM_SECONDS * terms
        return replace(local, route="corner remap, by orbits" if orbits else "corner remap", shared=shared,
                       seconds=local.seconds + extra + corner + edge,
                       memory_bytes=max(local.memory_bytes, corner_bytes(n, k, spec.epsilon, symmetric)),
                       costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", search),
                              ("DPPOSTERIOR_MAX_PAIRS", dict(local.costs)["DPPOSTERIOR_MAX_PAIRS"]
                               + edge * PAIRS_PER_SECOND)))

    def _corner_plan_any(self, n: int, k: int, spec: ReleaseSpec, what: str, symmetric: bool = False,
                         exact: bool = False) -> Plan:
        """The plan of the corner release's errors at k >= 4 (:func:`~dpposterior.lattice.corners_any.corner_errors_any`):
        the batched local search over R(n) (its table, and the face points it leaves: :func:`face_seconds`; at a
        ``symmetric`` prior one point per orbit, :func:`face_orbit_seconds`: the same route, whose search takes the
        orbits wherever the prior is symmetric, so its name and its refusals read as before), the
        offset sum over R(n) (as :meth:`_batched_plan`'s), the corner solve, and the terms at the tables' rows added as
        differences (:func:`~dpposterior.lattice.corners_any.delta_terms`, :data:`DELTA_SECONDS`).  ``exact``
        (:func:`exact_shifts` of the prior and eps): the search by orbits over R(n), in the rest and in the corner
        solve's fixed rows, at :func:`exact_shift_factor` up to :data:`CORNER_EXACT_SHIFT_MAX_EPSILON`."""
        from ..lattice.corners_any import BLOCK_ENTRIES, delta_terms, orbit_sum

        eps = spec.epsilon
        if eps < CORNER_ERRORS_ANY_MIN_EPSILON:
            return Plan(task=Task.ERRORS, route="corner remap", what=what, refusal=(
                f"{what}: the corner remap's errors at k >= 4 below eps = {CORNER_ERRORS_ANY_MIN_EPSILON:g} are not "
                "planned (their peak is not measured; use --objective average)"))
        W = _radius(k, eps, LOCAL_ERROR_TOL)
        rows, Z = float(n_candidates(n, k)), float(_window_size(n, k, W))
        factor = corner_exact_factor(eps, symmetric, exact)
        if symmetric:
            table, handed = (factor * part for part in face_orbit_seconds(n, k, eps))
        else:
            table, _ = batched_seconds(k, eps, rows, 0.0)
            handed = face_seconds(n, k, eps)
        offsets = ball_size(k, eps, LOCAL_ERROR_TOL)
        orbit = orbit_sum(n, k, eps, W, symmetric)
        total = orbit_sum_seconds(n, k, eps, W) if orbit else LOCAL_SUM_SECONDS * rows * offsets
        # the rest's sum over R(n) at k >= 4 from eps 1 (where measured) runs slower a term than the k = 3 constant
        # (its seconds only: the pair budget counts its terms)
        sum_seconds = total if orbit or eps < 1.0 else CORNER_SUM_FACTOR_ANY * total
        # the terms at the tables' rows, added as differences to the rest's sum (corner_errors_any's delta route):
        # every table row in the window against its offsets inside R(n) (delta_terms, an upper end)
        top = corner_plan_sizes(n, k, eps, symmetric)["edge_top"]
        delta = DELTA_SECONDS * delta_terms(n, k, eps, W, top)
        corner = corner_seconds(n, k, eps, symmetric, search_factor=factor)
        side = float(n + k * W + 1)
        # the window, its grid and the rest's table; the solve; a block of the differences (BLOCK_ENTRIES terms: the
        # mask, the data sets and the losses, DELTA_BYTES each) and the ranks' grid
        # (by orbits: the orbit check's sorted copies and the window's grid of indices, ORBIT_SUM_BYTES per point)
        memory = max((16.0 + (ORBIT_SUM_BYTES if orbit else 0.0)) * k * Z + 4.0 * k * side ** (k - 1)
                     + 13 * (8 * k + 8) * rows + 64.0 * 2**20 + DELTA_BYTES * BLOCK_ENTRIES
                     + 8.0 * (n + 1.0) ** (k - 1), corner_bytes(n, k, eps, symmetric))
        # by orbits, two solves, each cached on its own and each held to the solve limit (as the face route's): the
        # rest's search over R(n) and the corner table's LP (what a draw runs); else one, as before
        solves = ((("DPPOSTERIOR_MAX_SOLVE_SECONDS", table + handed), ("DPPOSTERIOR_MAX_SOLVE_SECONDS", corner)) if orbit
                  else (("DPPOSTERIOR_MAX_SOLVE_SECONDS", table + handed + corner),))
        return Plan(task=Task.ERRORS, route="corner remap, by orbits" if orbit else "corner remap", what=what,
                    seconds=table + handed + sum_seconds + delta + corner, memory_bytes=memory,
                    bracket=LOCAL_ERROR_TOL,
                    costs=solves + (("DPPOSTERIOR_MAX_PAIRS", (total + delta) * PAIRS_PER_SECOND),),
                    advice="use a smaller n")

    def corner_errors(self, prior, n: int, spec: ReleaseSpec):
        """``E(c)`` of ``lattice~worst`` where its draws read the corner remap (k = 3, 4), for every c of R(n), as a
        :class:`~dpposterior.lattice.scale.Bracket` ``low <= E <= low + tail`` (docs/lattice.md, "A worst-case remap at
        any n"): the local remap's errors (:meth:`local_errors`' sum) for the data sets whose ball misses the corner
        table, the rest recomputed with the table's rows."""
        a = np.asarray(prior, dtype=np.float64)
        plan = self.plan_errors(a, int(n), spec)
        admit(plan)
        return self.direct_errors(plan, a, n, spec)

    def _window_plan(self, prior, n: int, spec: ReleaseSpec, what: str, rows: bool = False) -> Plan:
        """The window's remap (its memory and solve), then its upper ends or (``rows``) a walk over its rows; no route
        where a draw does not read the window (its errors are those of a remap computed at the drawn point only)."""
        k = len(prior)
        route = "dense rows" if rows else "window remap"
        if not self.uses_window(n, k, spec):
            return Plan(task=Task.ERRORS, route=route, what=what, refusal=(
                f"{what} are not computed: its draws compute the remap at the drawn point only (the window's remap "
                f"would take {duration_text(dense_seconds(n, k, spec.epsilon))}, over the {DENSE_DRAW_SECONDS:g} s a "
                f"draw may spend on it){'; lattice~average has exact errors at k = 3' if k != 3 else ''}"))
        sec = self.solve_seconds(n, k, spec.objective, spec.epsilon)
        window = Plan(task=Task.ERRORS, route=route, what=what, seconds=sec,
                      memory_bytes=window_bytes(n, k, spec.epsilon, spec.objective), bracket=DEFAULT_TOL,
                      costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", sec),), advice=self._advice(spec))
        if not rows:
            return window
        walk = self.rows_plan(prior, n, spec, solve_seconds=sec)
        return replace(walk, memory_bytes=max(walk.memory_bytes, window.memory_bytes), bracket=DEFAULT_TOL,
                       advice=window.advice) if not walk.refusal else walk

    @staticmethod
    def _advice(spec: ReleaseSpec) -> str:
        return "use --objective average" if spec.objective == Objective.WORST else "use a smaller n"

    def _local_plan(self, n: int, k: int, spec: ReleaseSpec, what: str, orbits: bool = False,
                    ties: bool = False, batched_ties: bool = True, symmetric: bool = False) -> Plan:
        """The plan of :meth:`local_errors` (k = 3, ``average``): its memory, the batched remap (a solve) and the
        offset sum (a translation route's sum, counted against ``DPPOSTERIOR_MAX_PAIRS`` as the sequential clamp's);
        ``orbits``: as the corner release's route by orbits computes them (:func:`local_error_seconds`); else with the
        near ties it hands to the one-point search (:func:`local_tie_seconds`, each at the cost :meth:`_max_fallback`
        allows it) below :data:`LOCAL_TIE_MAX_EPSILON`, and from it where ``ties`` (the local errors alone, where
        :func:`local_ties` was counted), so that a run whose near ties are over what the solve limit leaves is refused
        by its plan, before the batched remap runs.  The corner route from that eps (small n, or an asymmetric prior)
        does not count them: its near ties were not counted there, and its run still refuses in one line past what
        the limit leaves.  ``batched_ties``: the near ties at the batched search's price where the run hands them to
        it (:func:`local_tie_seconds`); the corner route keeps the one-point price (an upper end).  ``symmetric``
        (the local errors alone, a symmetric prior): where :func:`orbit_average`, the search by orbits with its
        undecided orbits certified by one search (:func:`orbit_average_seconds`)."""
        from ..lattice.search import EDGE, NEAR_TAIL

        near = ball_size(k, spec.epsilon, NEAR_TAIL)
        rows = float(n_candidates(n, k))
        Z = float(_window_size(n, k, _radius(k, spec.epsilon, LOCAL_ERROR_TOL)))
        # the batched remap: its table (19 per output), the kept rows near the faces (2 x 3 (EDGE + 1) (n + 1) x |near|),
        # ~60 floats per window point (the search's steps), ~16 padded grids, a run's temporaries (8 (n + 1) x |near|);
        # measured: 1.05 GB peak at n = 1000 (this count: 0.75 GB of arrays, plus the interpreter)
        Dc = _radius(k, spec.epsilon, 1e-12)
        memory = 8.0 * (20 * rows + 6 * (EDGE + 1) * (n + 1) * near + 60 * Z + 16 * (n + 1 + 2 * Dc) ** 2
                        + 8 * (n + 1) * near)
        search, total = local_error_seconds(n, k, spec.epsilon, orbits)
        if not orbits and ties and orbit_average(n, k, spec.epsilon, symmetric):
            table, count, one = orbit_average_seconds(n, k, spec.epsilon)
            search = table + count * one
        elif not orbits and (ties or spec.epsilon < LOCAL_TIE_MAX_EPSILON):  # the near ties, each a one-point search
            count, one = local_tie_seconds(n, k, spec.epsilon, batched_ties)
            search += count * one
            if spec.epsilon < LOCAL_TIE_MAX_EPSILON and _ties_batched(n, k, spec.epsilon):
                memory += LOCAL_TIE_BATCH_BYTES
        shared = ()
        if not orbits and ties and shared_search(n, k, spec.epsilon, symmetric):
            # the part the corner release's errors by orbits search too (_window_outputs): what their plan counts
            shared = (((WINDOW_SEARCH_KEY, n, k, float(spec.epsilon)),
                       min(search, local_error_seconds(n, k, spec.epsilon, True)[0])),)
        return Plan(task=Task.ERRORS, route="local search", what=what, seconds=search + total, memory_bytes=memory,
                    bracket=LOCAL_ERROR_TOL, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", search),
                                                    ("DPPOSTERIOR_MAX_PAIRS", total * PAIRS_PER_SECOND)),
                    advice="use a smaller n", shared=shared)

    def _batched_plan(self, n: int, k: int, spec: ReleaseSpec, what: str, symmetric: bool = False,
                      exact: bool = False) -> Plan:
        """The plan of the exact errors of ``average`` at k >= 4 where a draw runs the local search (route ``"batched
        local search"``): :func:`~dpposterior.lattice.batched.local_search_batch` at every point of the window (a
        solve: its table over R(n), the one-point searches of the window's points off R(n) and of the near ties; at a
        ``symmetric`` prior one search per orbit, :func:`orbit_seconds`), then the offset sum
        (:func:`~dpposterior.lattice.batched.window_errors_any`, a translation route's sum, as k = 3's; by orbits
        where :func:`_orbit_rest_sum`, :func:`orbit_sum_seconds`), with the bracket :data:`LOCAL_ERROR_TOL`."""
        from ..lattice.batched import BLOCK_ENTRIES as BATCH_BLOCK

        eps = spec.epsilon
        W = _radius(k, eps, LOCAL_ERROR_TOL)
        rows, Z = float(n_candidates(n, k)), float(_window_size(n, k, W))
        edge = low_count_points(n, k)
        # the points off R(n) and those of R(n) with a count at most 1 (near ties): the grouped route, one search per
        # positive part
        if symmetric:
            table, handed = orbit_seconds(n, k, eps, W, exact)
        else:
            table, _ = batched_seconds(k, eps, rows, 0.0)
            handed = grouped_seconds(n, k, eps, W, edge)
        # the offset sum: over R(n), or by orbits (:func:`_batched_errors`, :func:`orbit_sum_seconds`)
        orbit = symmetric and _orbit_rest_sum(n, k, eps, np.ones(k))
        total = (orbit_sum_seconds(n, k, eps, W) if orbit
                 else LOCAL_SUM_SECONDS * rows * ball_size(k, eps, LOCAL_ERROR_TOL))
        side = float(n + k * W + 1)
        # the window's points, outputs and the search's copies of them (BATCH_WINDOW_COPIES k int64 each), its outputs
        # on the grid (k int32 per grid point), the table's outputs and sums (~ (8 k + 8) x 13 per point of R(n)), G's
        # blocks (~ 8 arrays of BLOCK_ENTRIES); by orbits the orbit check's copies (ORBIT_SUM_BYTES per point)
        memory = ((BATCH_WINDOW_COPIES * 8.0 + (ORBIT_SUM_BYTES if orbit else 0.0)) * k * Z
                  + 4.0 * k * side ** (k - 1) + 13 * (8 * k + 8) * rows + 64.0 * BATCH_BLOCK)
        # by orbits (a symmetric prior) the face release's errors read the same cached call (_batched_errors)
        shared = ((("lattice rest errors", n, k, float(eps)), table + handed + total),) if symmetric else ()
        return Plan(task=Task.ERRORS, route="batched local search", what=what, seconds=table + handed + total,
                    memory_bytes=memory, bracket=LOCAL_ERROR_TOL,
                    costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", table + handed),
                           ("DPPOSTERIOR_MAX_PAIRS", total * PAIRS_PER_SECOND)), advice="use a smaller n",
                    shared=shared)

    def direct_errors(self, plan: Plan, prior, n: int, spec: ReleaseSpec, measure: str | None = None):
        """Run :meth:`plan_errors`' route: :meth:`local_errors` or the window's upper ends ``E_win(c) + tail``."""
        a = np.asarray(prior, dtype=np.float64)
        if plan.route == "local search":
            return _local_errors(tuple(a.tolist()), int(n), spec.epsilon,
                                 self._max_fallback(int(n), a.size, spec, symmetric=_symmetric(a)))
        if plan.route == "face table":
            return _face_errors(tuple(a.tolist()), int(n), spec.epsilon,
                                self._batched_fallback(int(n), a.size, spec, True, True, exact_shifts(a, spec.epsilon)))
        if plan.route in ("corner remap", "corner remap, by orbits") and a.size >= 4:
            return _corner_errors_any(tuple(a.tolist()), int(n), spec.epsilon,
                                      self._corner_fallback(int(n), a.size, spec, _symmetric(a)),
                                      plan.route == "corner remap, by orbits")
        if plan.route in ("corner remap", "corner remap, by orbits"):
            orbits = plan.route == "corner remap, by orbits"
            return _corner_errors(tuple(a.tolist()), int(n), spec.epsilon,
                                  self._max_fallback(int(n), a.size, spec, orbits), orbits)
        if plan.route == "batched local search":
            sym = _symmetric(a)
            fallback = self._batched_fallback(int(n), a.size, spec, True, sym, exact_shifts(a, spec.epsilon))
            return _batched_errors(tuple(a.tolist()), int(n), spec.epsilon, fallback, sym)
        remap = _remap(tuple(a.tolist()), int(n), spec.epsilon, spec.objective)
        # the minimax remap's solve computed them on this setup (its certificate's upper end)
        if remap.errors is not None:
            return remap.errors.high
        return _setup(tuple(a.tolist()), int(n), spec.epsilon).errors(remap).high

    @staticmethod
    def _max_fallback(n: int, k: int, spec: ReleaseSpec, orbits: bool = False, symmetric: bool = False) -> int:
        """The one-point searches the batched local remap may hand its near ties to: what the solve limit leaves after
        the planned search (a plan's seconds count none; their number depends on public n, k, eps only, and the run
        stays within the limit, refusing in one line past it).  ``orbits``: the corner release's route by orbits
        (its search's estimate, and each search at :data:`BAND_FALLBACK_SHARE` where it reads a band table: past the
        whole Jensen table, n > 511).  ``symmetric``: the local errors at a symmetric prior, where
        :func:`orbit_average`: what the limit leaves after that route's table, at its price of one search."""
        from ..lattice.remap import square_table
        from ..lattice.search import fallback_band

        if not orbits and orbit_average(n, k, spec.epsilon, symmetric):
            table, _, one = orbit_average_seconds(n, k, spec.epsilon)
            return max(1, int((limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS") - table) / one))
        left = limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS") - local_error_seconds(n, k, spec.epsilon, orbits)[0]
        if not orbits and spec.epsilon < LOCAL_TIE_MAX_EPSILON:  # the ties as the plan counts each: all it planned
            return max(1, int(left / local_tie_seconds(n, k, spec.epsilon)[1]))
        band = orbits and k == 3 and not square_table(n) and fallback_band(n, spec.epsilon) > 0
        share = BAND_FALLBACK_SHARE if band else FALLBACK_SHARE
        return max(1, int(left / (share * local_seconds(k, spec.epsilon))))

    @staticmethod
    def _batched_fallback(n: int, k: int, spec: ReleaseSpec, window: bool = False, orbits: bool = False,
                          exact: bool = False) -> int:
        """The one-point searches the batched local search (k >= 4) may hand on: what the solve limit leaves after its
        table (and, over the ``window``, its grouped route: :func:`grouped_seconds`, or by ``orbits``
        :func:`orbit_seconds`, its terms times :func:`exact_shift_factor` where ``exact``, the seconds of one not), at
        the estimated seconds of one (:data:`BATCH_SECONDS`); past it the run refuses in one line."""
        if window and orbits:
            W = _radius(k, spec.epsilon, LOCAL_ERROR_TOL)
            searched, _ = orbit_seconds(n, k, spec.epsilon, W, exact)
            one = orbit_tie_seconds(n, k, spec.epsilon, exact)  # as orbit_seconds prices a near tie
            return max(1, int((limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS") - searched) / one))
        rows = float(n_candidates(n, k))
        table, _ = batched_seconds(k, spec.epsilon, rows, 0.0)
        one = batched_seconds(k, spec.epsilon, 0.0, 1.0)[1]
        if window:  # the window's points off R(n) too (the grouped route, its planned near ties included)
            W = _radius(k, spec.epsilon, LOCAL_ERROR_TOL)
            table += grouped_seconds(n, k, spec.epsilon, W) * (1.0 - tie_share(n))
            one = one_point_seconds(n, k, spec.epsilon)
        return max(1, int((limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS") - table) / one))

    @classmethod
    def _corner_fallback(cls, n: int, k: int, spec: ReleaseSpec, symmetric: bool) -> int:
        """The one-point searches the corner errors' search over R(n) (k >= 4) may hand on: at a ``symmetric`` prior,
        where it searches one point per orbit, what the solve limit leaves after its table by orbits
        (:func:`face_orbit_seconds`, as :meth:`_corner_plan_any` plans it), at :func:`one_point_seconds` each; else
        :meth:`_batched_fallback`'s."""
        if not symmetric:
            return cls._batched_fallback(n, k, spec)
        table, _ = face_orbit_seconds(n, k, spec.epsilon)
        return max(1, int((limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS") - table)
                          / one_point_seconds(n, k, spec.epsilon)))

    def plan_draw(self, prior, n: int, spec: ReleaseSpec) -> Plan:
        """A padded release's draws: the window's remap (solved once) where a draw reads it, else
        :data:`PADDED_DRAWS` local searches (:meth:`check_draw`'s budget as the plan's refusal)."""
        k = len(prior)
        what = f"a padded release of {self.label(spec)} for k={k}, n={n}"
        if self.uses_faces(n, k, spec, prior):
            self.check_distance(spec, k)
            return replace(self._face_table_plan(n, k, spec, PADDED_DRAWS), task=Task.DRAW, what=what)
        window = self.uses_window(n, k, spec)
        corners = self.uses_corners(n, k, spec)
        route = "window remap" if window else "corner remap" if corners else "local search"
        try:
            self.check_draw(n, k, spec, PADDED_DRAWS, symmetric_corners(prior), prior)
        except SizeError as exc:
            return Plan(task=Task.DRAW, route=route, what=what, refusal=str(exc))
        sec = (self.solve_seconds(n, k, spec.objective, spec.epsilon) if window
               else draw_seconds(n, k, spec.epsilon, PADDED_DRAWS) if not corners
               else corner_draw_seconds(n, k, spec.epsilon, PADDED_DRAWS))
        if corners:
            sym = symmetric_corners(prior)
            return Plan(task=Task.DRAW, route=route, what=what,
                        seconds=sec + corner_solve_seconds(n, k, spec.epsilon, prior),
                        memory_bytes=corner_bytes(n, k, spec.epsilon, sym))
        return Plan(task=Task.DRAW, route=route, what=what, seconds=sec)

    def check_local_errors(self, n: int, k: int, spec: ReleaseSpec, symmetric: bool = False) -> None:
        """Refuse (one line, before any work) :meth:`local_errors` over its budgets, from public n, k, eps: the memory
        (``DPPOSTERIOR_MEMORY_GB``), the batched remap (a solve, ``DPPOSTERIOR_MAX_SOLVE_SECONDS``) and the offset sum
        (a translation route's sum, ``DPPOSTERIOR_MAX_PAIRS`` at ``PAIRS_PER_SECOND``, as the sequential clamp's)."""
        self.check_distance(spec, k)
        if k != 3:
            raise SizeError(f"the lattice release's exact errors for k={k}, n={n}, eps={spec.epsilon:g} are not "
                            "computed: its draws compute the remap at the drawn point only (the batched remap is "
                            "built for k = 3)")
        admit(self._local_plan(n, k, spec, f"the lattice release's exact errors (average) for k={k}, n={n}, "
                                           f"eps={spec.epsilon:g} (the local remap at every point of its window)",
                                ties=True, symmetric=symmetric))

    def local_errors(self, prior, n: int, spec: ReleaseSpec):
        """``E(c)`` of ``lattice~average`` where its draws run the local search (k = 3), for every c of R(n), as a
        :class:`~dpposterior.lattice.scale.Bracket` ``low <= E <= low + tail`` (docs/lattice.md, "Errors at scale").

        ``T(z)``, what a draw computes at z (:func:`~dpposterior.lattice.remap.local_bayes_search`), at every point of
        ``window(n, 3, W)`` by :func:`~dpposterior.lattice.search.local_search_many` (the same output at every z),
        then the offset sum over ``d(w) <= W`` (:func:`~dpposterior.lattice.search.window_errors`, the sum of
        :func:`~dpposterior.lattice.scale.lattice_errors`; every ``c + w`` lies in the window),
        ``tail = tail_bound(3, eps, W) <= 1e-5``."""
        a = np.asarray(prior, dtype=np.float64)
        self.check_local_errors(int(n), a.size, spec, _symmetric(a))
        return _local_errors(tuple(a.tolist()), int(n), spec.epsilon,
                             self._max_fallback(int(n), a.size, spec, symmetric=_symmetric(a)))

    def working_epsilon(self, prior, n: int, spec: ReleaseSpec) -> float:
        """:func:`working_epsilon` at ``k = len(prior)`` (the spec this method is called with is already the working
        one: the class decorator)."""
        return spec.epsilon

    def remap_name(self, prior, n: int, spec: ReleaseSpec) -> str:
        """Which remap a draw reads (docs/lattice.md), the :meth:`certificate`'s ``"remap"`` without building it, from
        public prior, n, k, eps and objective only (the same tests as the draw's route): ``"face table"`` (``worst``,
        :meth:`uses_faces`), ``"corner minimax"`` (:meth:`uses_corners`), ``"bayes"`` or ``"minimax"`` (the window's
        remap, :meth:`uses_window`), else ``"local search"``: the local Bayes remap at the drawn point (``average``
        past the window, and ``worst`` where neither table fits: :func:`corners_fit`)."""
        k, n = len(prior), int(n)
        if self.uses_faces(n, k, spec, prior):
            return "face table"
        if self.uses_corners(n, k, spec):
            return "corner minimax"
        if not self.uses_window(n, k, spec):
            return "local search"
        return "bayes" if spec.objective == Objective.AVERAGE else "minimax"

    def certificate(self, prior, n: int, spec: ReleaseSpec) -> dict:
        """``{"remap", "tail"}`` and, for ``worst``, the minimax certificate ``lower``, ``upper``, ``gap``,
        ``closed`` (docs/lattice.md); ``remap`` is ``"bayes"``, ``"minimax"`` or ``"local search"``."""
        k = len(prior)
        if self.uses_faces(int(n), k, spec, prior):
            self.check_draw(int(n), k, spec, prior=prior)
            remap = _face(tuple(float(x) for x in prior), int(n), spec.epsilon)
            return {"remap": "face table"} | {key: remap.certificate[key] for key in ("lp", "rows", "constraints")}
        if self.uses_corners(int(n), k, spec):
            self.check_corners(int(n), k, spec, symmetric=symmetric_corners(prior), prior=prior)
            remap = _corner(tuple(float(x) for x in prior), int(n), spec.epsilon)
            return {"remap": "corner minimax"} | {key: remap.certificate[key] for key in ("lp", "depth", "n_ref")}
        if not self.uses_window(int(n), k, spec):
            return {"remap": "local search"}
        remap = self.remap(prior, n, spec)
        out = {"remap": "bayes" if spec.objective == Objective.AVERAGE else "minimax",
               "tail": _setup(tuple(float(x) for x in prior), int(n), spec.epsilon).tail}
        if remap.certificate:
            out |= {key: remap.certificate[key] for key in ("lower", "upper", "gap", "closed")}
        return out

    # -- the noise-aware posterior (docs/lattice.md, "The noise-aware posterior") ----------------------------------

    def column_radius(self, n: int, k: int, epsilon: float) -> int:
        """``W`` of the window column: the kernel's mass outside ``window(n, k, W)`` is at most ``COLUMN_TOL / |R(n)|``
        (and ``DEFAULT_TOL``), so that the bound relative to a typical release's likelihood, about ``1 / |R(n)|``, is
        about ``COLUMN_TOL``; from public n, k, eps.  Past the window of the release's own remap a draw outputs the row
        of ``project(z)``, and so does the column."""
        return _radius(k, float(epsilon), min(DEFAULT_TOL, COLUMN_TOL / float(n_candidates(n, k))))

    def plan_posterior(self, prior, n: int, spec: ReleaseSpec) -> Plan:
        """The window column (:meth:`local_posterior`, ``"window column"``): the release's remap at every point of
        ``window(n, k, W)`` as a draw computes it (the window's remap where a draw reads it, else the batched local
        search, k = 3), then one column over R(n).  Its seconds and bytes from public n, k, eps; refused in one line
        where the remap behind it is (the window's remap over its budget) or not built (the batched search at k != 3).
        Where a draw runs the local search (or reads the corner table) the local column follows the same release
        (:meth:`_local_column_plan`): it is the route for the corner release, and for the local search wherever the
        window column is refused or planned slower (both plans from public n, k, eps only)."""
        k = len(prior)
        eps = spec.epsilon
        what = (f"the noise-aware posterior of {self.label(spec)} ({spec.objective}) for k={k}, n={n}, eps={eps:g} "
                "(the column of the release's pmf at the released output)")
        if n < 1:
            return Plan(task=Task.POSTERIOR, route=NO_ROUTE, what=what, refusal="no local route")
        self.check_distance(spec, k)
        if self.uses_corners(n, k, spec) or self.uses_faces(n, k, spec, prior):
            # the corner remap's (or the face table's) rows and the local search elsewhere
            return self._local_column_plan(prior, n, k, spec, what)
        window = self._window_column_plan(n, k, spec, what)
        if self.uses_window(n, k, spec):
            return window
        # a draw runs the local search: both columns follow it; the one planned faster of those that fit
        local = self._local_column_plan(prior, n, k, spec, what)
        if window.refused() or (local.fits and local.seconds < window.seconds):
            return local
        return window

    def _window_column_plan(self, n: int, k: int, spec: ReleaseSpec, what: str) -> Plan:
        """The window column's plan (route ``"window column"``): the release's remap at every window point."""
        eps = spec.epsilon
        W = self.column_radius(n, k, eps)
        Z, R = float(_window_size(n, k, W)), float(n_candidates(n, k))
        column = COLUMN_SECONDS[0] * R * COLUMN_POINTS
        if self.uses_window(n, k, spec):
            try:
                self.check_window(n, k, spec)
            except SizeError as exc:
                return Plan(task=Task.POSTERIOR, route="window column", what=what, refusal=str(exc))
            solve = self.solve_seconds(n, k, spec.objective, eps)
            return Plan(task=Task.POSTERIOR, route="window column", what=what,
                        seconds=solve + COLUMN_SECONDS[1] * Z + column,
                        memory_bytes=window_bytes(n, k, eps, spec.objective) + 8.0 * (3 * k + 4) * Z + 8.0 * k * R,
                        bracket=DEFAULT_TOL, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", solve),),
                        advice=self._advice(spec))
        if k != 3:
            return Plan(task=Task.POSTERIOR, route="window column", what=what, refusal=(
                f"{what} is not computed: its draws compute the remap at the drawn point only, and the column needs "
                f"it at every point of a window of {big_number(int(Z))} points (the batched local search is built for "
                "k = 3)"))
        from ..lattice.search import EDGE, NEAR_TAIL

        near = ball_size(k, eps, NEAR_TAIL)
        c0, c1, c2 = LOCAL_SEARCH_SECONDS
        deep = max(0.0, Z - float(_window_size(n, k, min(W, FALLBACK_DEPTH))))
        search = COLUMN_SEARCH_FACTOR * (c0 + c1 * R * near + c2 * Z) + DEEP_SHARE * deep * local_seconds(k, eps)
        Dc = _radius(k, eps, 1e-12)
        # the batched search's memory (as the errors' local plan counts it) and the window's points and outputs
        memory = COLUMN_MEMORY_FACTOR * 8.0 * (20 * R + 6 * (EDGE + 1) * (n + 1) * near + 60 * Z
                                               + 16 * (n + 1 + 2 * Dc) ** 2 + 8 * (n + 1) * near + 2 * k * Z)
        return Plan(task=Task.POSTERIOR, route="window column", what=what, seconds=search + column,
                    memory_bytes=memory, bracket=DEFAULT_TOL, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", search),),
                    advice="use a smaller n")

    def _local_column_plan(self, prior, n: int, k: int, spec: ReleaseSpec, what: str) -> Plan:
        """The local column's plan (route ``"local column"``, :meth:`local_posterior`), from public n, k, eps and the prior:
        the reach region (:func:`~dpposterior.lattice.column.reach_region`, ``min(|U(Dc)|, |window|)`` points) enumerated and
        filtered by the descent lemma (:func:`~dpposterior.lattice.column.descent_filter`, :data:`FILTER_SECONDS` a point),
        the local search at the points it keeps, counted for a release at the centre of R(n)
        (:func:`~dpposterior.lattice.column.filtered_estimate`; each point by the batched search's :func:`batched_seconds`
        where its tables fit, else :data:`INSIDE_SHARE` of a draw's one-point search), and for ``worst`` the corner remap's
        solve; then the column over the data sets within ``M + W`` of r (``M`` the estimate's radius). Where the centre's
        region reaches off R(n) (``n / k <= (k - 1) Dc``) its points off R(n), :data:`OFF_FACTOR` times those of ``c0 +
        U(Dc)`` (not for the corner release), count at the one-point search's cost (the filter keeps most of them, measured:
        1,549,818 of 1,549,818 at k = 4, n = 100, eps = 1). Where the estimate finds no edge (the filter keeps nearly
        everything) every region point counts at the one-point search's cost (:data:`LOCAL_COLUMN_POINT`,
        :data:`LOCAL_COLUMN_SHARE`, fitted next to a vertex), except at k = 3 where the centre's region reaches off R(n)
        (:func:`sampled_column`): there the sample below counts what both filters keep, and where the kept points reach
        the faces (``n < SAMPLED_FACE_RATIO Dc``) :data:`SAMPLED_MISS_SHARE` of them are searched after the stay
        certificate. A release whose filtered points are more than the plan's (next
        to a face at small eps) is refused at its column in one line (:func:`_check_searches`). Where the centre's region
        reaches off R(n), the points both filters keep (:func:`~dpposterior.lattice.column.search_filter`, the risk
        filter first) are counted by a sample of the region
        (:func:`~dpposterior.lattice.column.filtered_sample`): those in R(n) with every count above 1 by
        :func:`_inside_seconds`, the rest by :func:`_parts_seconds` (at most the ``OFF_FACTOR`` count above), and the
        filters' own work (:data:`RISK_SECONDS` a point and coordinate, :data:`FILTER_SECONDS` at the points the risk
        filter keeps). The k >= 4 corner release filters the projections of its points off the table (points of R(n))
        rather than the points themselves; the sample's count of the points stands for them (not checked apart:
        measured k = 4, n = 100, eps = 1, worst, 25.7 CPU s in all, planned 41 s). Refused in one line where over the
        limits."""
        eps = spec.epsilon
        W = self.column_radius(n, k, eps)
        Dc = _radius(k, eps, 1e-12)
        if k >= 4 and not self.uses_corners(n, k, spec, prior) and n // k > (k - 1) * Dc:
            return self._cut_column_plan(prior, n, k, spec, what, W, Dc)
        if self._class_route(prior, n, k, spec, W, Dc):
            return self._class_column_plan(prior, n, k, spec, what, W)
        return self._region_column_plan(prior, n, k, spec, what, W, Dc)

    def _class_route(self, prior, n: int, k: int, spec: ReleaseSpec, W: int, Dc: int) -> bool:
        """Whether the local column of a release searched by the local search (not the corner or face table's, not the
        cut route's: the centre's counts within ``(k - 1) Dc``) runs by positive-part classes: where
        :func:`part_class_route` (the region's points past :data:`PART_CLASS_MIN_BYTES`), or where the region route's
        solve (:meth:`_region_column_plan`) is planned over :data:`CLASS_FALLBACK_SECONDS` and the class route's
        (:meth:`_class_column_plan`) within it, each priced as before the searches ran by orbits (and the class
        route's grouping as before its float check was skipped where known to pass); or else, both priced as they run
        (:func:`column_orbits`, :func:`class_orbits`, :data:`CLASS_EXACT_SECONDS`), where the region route's is still
        over it and the class route's within it (so a cell the region route admitted keeps its route: eps 0.33 to 0.4
        at n = 17 to 24 where the region route is refused, run by classes).  Both routes give the same ``T(z, m)``
        at every point, so the same column (tested); which one runs depends on the public prior, n, k, eps only, and
        the plan and the run read this one rule."""
        if (k < 4 or n // k > (k - 1) * Dc or self.uses_corners(n, k, spec, prior)
                or self.uses_faces(n, k, spec, prior)):
            return False
        if part_class_route(n, k, spec.epsilon, W, Dc):
            return True

        def held(plan: Plan) -> float:
            return dict(plan.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"]

        region = self._region_column_plan(prior, n, k, spec, "", W, Dc, orbits_allowed=False)
        if held(region) <= CLASS_FALLBACK_SECONDS:
            return False
        if held(self._class_column_plan(prior, n, k, spec, "", W, orbits_allowed=False)) <= CLASS_FALLBACK_SECONDS:
            return True
        return (held(self._class_column_plan(prior, n, k, spec, "", W)) <= CLASS_FALLBACK_SECONDS
                and held(self._region_column_plan(prior, n, k, spec, "", W, Dc)) > CLASS_FALLBACK_SECONDS)

    def _region_column_plan(self, prior, n: int, k: int, spec: ReleaseSpec, what: str, W: int, Dc: int,
                            orbits_allowed: bool = True) -> Plan:
        """The local column's plan on the region route (:meth:`_local_column_plan`'s docstring: the reach region, its
        filters and searches, the column), from public inputs.  Where the searches run by orbits (:func:`column_orbits`;
        the corner release's projections: :func:`corner_projection_orbit_seconds` at the most orbits over the centre and
        :func:`cut_release_family`, :func:`_corner_release_most`) the points both filters keep are counted by the sample
        (:func:`~dpposterior.lattice.column.filtered_sample`; also where
        :func:`~dpposterior.lattice.column.filtered_estimate` finds no edge) and searched at
        :func:`column_orbit_seconds`.  ``orbits_allowed=False``: the plan as without orbits (what
        :meth:`_class_route` compares, so that its choice, and the floats of every column it chose, stay as before)."""
        from ..lattice.batched import batch_radius
        from ..lattice.column import (
            FILTER_BLOCK_ENTRIES,
            cut_estimate,
            filtered_estimate,
            filtered_sample,
            reach_inside_count,
            reach_size,
        )

        eps = spec.epsilon
        if k >= 4 and n <= Dc and self.uses_corners(n, k, spec) and not self.uses_faces(n, k, spec, prior):
            return self._small_corner_column_plan(prior, n, k, spec, what, W, Dc)
        region = min(float(reach_size(k, Dc)), float(_window_size(n, k, W)))
        estimate = filtered_estimate(np.asarray(prior, dtype=np.float64), n, eps, Dc)
        tables = 8.0 * 4 * k * (n + 1) * (2 * batch_radius(k, eps) + 1)
        by_sample = estimate is None and sampled_column(n, k, eps)
        unplanned = "" if by_sample else whole_column_unplanned(n, k, eps)
        if unplanned:  # below the fit's eps the region's searches are not measured with the cycles cut
            return Plan(task=Task.POSTERIOR, route="local column", what=what, refusal=unplanned,
                        advice="use a larger eps")
        # the searches by orbits (k >= 4, a symmetric prior): the points both filters keep counted by the sample where
        # the centre's region reaches off R(n), with or without an edge; the corner release's projections
        # (_corner_column_any) by their orbits at the family's releases (_corner_release_most)
        at_least = False  # the seconds a lower end: the family's costing stopped over the limit (family_stop)
        orbits = orbits_allowed and column_orbits(prior, n, k, eps) and not self.uses_corners(n, k, spec, prior)
        corner_orbits = orbits_allowed and column_orbits(prior, n, k, eps) and self.uses_corners(n, k, spec, prior)
        corner_family = False  # the corner release's boxes and projections priced at its family (_corner_release_most)
        if orbits and estimate is None and n // k <= (k - 1) * Dc:
            estimate = (0, (k - 1) * (Dc + W) + W)
        if by_sample:
            # the descent filter alone keeps every data set at the centre, but the centre's region reaches off R(n), so
            # both filters' kept points are counted by the sample (below), from 0 here
            estimate = (0, (k - 1) * (Dc + W) + W)
        if estimate is None:
            points, M = region, (k - 1) * (Dc + W) + W
            search = points * (LOCAL_COLUMN_POINT + LOCAL_COLUMN_SHARE * local_seconds(k, eps))
            search += region * (RISK_SECONDS * k + FILTER_SECONDS[0] + FILTER_SECONDS[1] * k * (Dc + 1))
        else:
            points, M = float(estimate[0]), estimate[1]
            search = (_inside_seconds(points, n, k, eps) if eps >= COLUMN_BATCH_MIN_EPSILON
                      else _certified_seconds(prior, points, n, k, eps))
            if corner_orbits:  # the corner release's kept projections by orbits: the most over its family's releases
                corner_most, corner_samples, _ = _corner_release_most(
                    tuple(float(x) for x in np.asarray(prior).ravel()), n, eps, Dc, W)
                search, corner_family = corner_most, True
            descent = FILTER_SECONDS[0] + FILTER_SECONDS[1] * k * (Dc + 1)
            # the descent filter (its pre-filter at every point, its test at those at or below the cut; every point
            # where the cut is not estimated), the risk filter at those it keeps (search_filter's order here)
            cut = cut_estimate(prior, n, eps, Dc)
            tested = region if cut is None else min(region, CUT_FACTOR * float(cut))
            filters = region * CUT_SECONDS * k + tested * descent + points * RISK_SECONDS * k
            sampling = family_seconds = 0.0
            reaches_off = n // k <= (k - 1) * Dc  # the centre's region reaches off R(n)
            if reaches_off:  # the filters' counts by a sample
                sampled, inside, kept_off, risk_kept = filtered_sample(prior, n, eps, Dc, W)
                # the risk filter at every point, the descent filter at those it keeps (search_filter's order here)
                filters = min(region, sampled) * RISK_SECONDS * k + risk_kept * descent
                if orbits:  # by orbits, measured all in where it was (orbit_rest_seconds)
                    filters = orbit_rest_seconds(min(region, sampled), risk_kept, n, k, eps, Dc)
                if whole_column_fit(n, k, eps):  # measured all in (WHOLE_FILTER_SECONDS)
                    filters = region * WHOLE_FILTER_SECONDS
                c0 = np.full(k, n // k, dtype=np.int64)
                c0[: n - int(c0.sum())] += 1
                # the region's offsets off R(n) at c0, counted (reach_inside_count: the same integer as enumerating
                # reach_offsets(k, Dc), never held: 1.3e8 offsets at k = 4, eps = 0.25)
                off = float(reach_size(k, Dc) - reach_inside_count(c0, Dc))
                centre_points = max(points, inside)
                # by orbits: the centre's kept points fall into orbits as its sample's do (release_orbit_counts)
                orbit_share = 1.0
                centre_clamp = None  # where every shift is exact: the centre's split (release_search_counts)
                if orbits:
                    centre_parts, centre_orbits, _, centre_clamp = release_search_counts(prior, n, eps, Dc, W, c0)
                    if centre_clamp is not None:  # the shares of every kept part, clamped or not
                        centre_all = centre_parts + centre_clamp[0]
                        centre_clamp = (centre_parts / centre_all, centre_orbits / centre_all,
                                        centre_clamp[0] / centre_all, centre_clamp[1], centre_clamp[2] / centre_all)
                    else:
                        orbit_share = min(1.0, centre_orbits / centre_parts)

                def searched(kept: float) -> tuple[float, float, float]:
                    """``(search, points, parts)`` with ``kept`` points kept off R(n): the seconds rise with it."""
                    pts = centre_points
                    secs = (_inside_seconds(pts, n, k, eps) if eps >= COLUMN_BATCH_MIN_EPSILON
                            else _certified_seconds(prior, pts, n, k, eps))
                    if self.uses_corners(n, k, spec, prior):  # the corner release reads its table at the vertices
                        prt = off if k == 3 else min(off, float(n_candidates(n, k)))  # k >= 4: one a projection
                        prt = min(prt, kept)
                    else:  # one search a positive part max(z, 0): at most those of the window's points off R(n)
                        prt = min(OFF_FACTOR * off, float(offwindow_parts(n, k, W)), kept)
                    pts = pts + prt
                    secs += _parts_seconds(prt, n, k, eps)
                    if orbits and centre_clamp is not None:  # the clamped parts by their clamp groups
                        rest_share, orbit_rest, clamp_share, keys, clamp_orbit = centre_clamp
                        secs = column_orbit_seconds(pts * rest_share, pts * orbit_rest, n, k, eps,
                                                    clamp=(pts * clamp_share, keys, pts * clamp_orbit))
                    elif orbits:  # every kept point (of R(n) and off it) searched by orbits (column_orbits)
                        secs = column_orbit_seconds(pts, pts * orbit_share, n, k, eps)
                    if corner_orbits:  # the corner release's kept projections (points of R(n)) by orbits
                        secs = corner_most
                    if by_sample and sampled_face_reach(n, k, eps):  # the kept points the stay certificate leaves
                        secs += stay_left_seconds(SAMPLED_MISS_SHARE * (pts - prt), n, k, eps)
                    return secs, pts, prt

                if (k == 3 and n_candidates(n, k) > WHOLE_COLUMN_ROWS[1]
                        and not self.uses_corners(n, k, spec, prior)):
                    # the most over every release (next to a vertex, along a face, in the middle): the plan holds
                    # wherever the release falls.  Not up to n = 100 (the whole-ball fit's rows, measured all in, next
                    # to a face too), where the centre keeps the most: eps 0.12, n = 90, 109,497 positive parts at
                    # (30, 30, 30), 64,980 at (4, 4, 82); eps 0.15, n = 100, 68,268 at (34, 33, 33), 43,598 at (5, 5,
                    # 90); below n = 41 the family's counts are clipped to n // 3, about the centre
                    prior_t = tuple(float(x) for x in np.asarray(prior).ravel())
                    sampling = len(_offcentre_probes(prior_t, n, eps)) * SAMPLED_RELEASE_SECONDS
                    if searched(kept_off)[0] + filters + sampling > family_stop(0.0):
                        # over the limit on the centre's kept points alone (the family's can only add): a lower end
                        at_least = True
                    else:
                        family, samples = _sampled_release_off(prior_t, n, eps, Dc, W)
                        kept_off = max(kept_off, family)
                        sampling = samples * SAMPLED_RELEASE_SECONDS  # the plan's own samples, run by the command
                search, points, _ = searched(kept_off)
                M = (k - 1) * (Dc + W) + W
            if family_costed(n, k, eps):  # the corner release's table only takes points off the searches
                # past the centre's reach the releases next to a face or a vertex still reach off R(n); within it, a
                # release on the face's plateau keeps more than the centre's costs say
                prior_t = tuple(float(x) for x in np.asarray(prior).ravel())
                samples = len(_family_probes(prior_t, n, eps))
                sampling = samples * SAMPLED_RELEASE_SECONDS
                if exact_filter_priced(n, k, eps):  # the exact descent filter at each release's fixed subsample
                    sampling += samples * exact_filter_seconds(*FAMILY_FILTER_POINTS, k, eps)
                if at_least or search + filters + sampling > family_stop(0.0):  # over the limit before the family
                    at_least = True
                else:  # costed release by release until one is over the limit (family_stop)
                    family_seconds, _, _, at_least = _sampled_release_family(prior_t, n, eps, Dc, W,
                                                                             family_stop(sampling))
            if orbits and reaches_off:
                # k >= 4 by orbits, the centre's region reaching off R(n): a release next to a face, an edge or a
                # vertex may keep more than the centre (its run's check reads column_orbit_seconds at its own parts),
                # so the most over cut_release_family, each costed as that check counts it (cut_release_cost: its
                # distinct parts), as on the cut route (_cut_column_plan)
                most, _, samples, _ = _cut_release_most(tuple(float(x) for x in np.asarray(prior).ravel()), n, eps,
                                                        Dc, W)
                family_seconds = max(family_seconds, most)
                sampling += (samples + 1) * CUT_RELEASE_SAMPLE_SECONDS  # the family's and the centre's samples
            if corner_orbits:  # the samples of _corner_release_most, the plan's own work
                sampling += corner_samples * CORNER_RELEASE_SAMPLE_SECONDS
            # the most over the family (sampled_release_cost: each release's filters, certificate and searches as its
            # run's check counts them), and the plan's own samples
            search = max(search + filters, family_seconds) + sampling
        # the data sets within M + W of r, all in R(n) (at small n, R(n) itself)
        near = min(float(sum(sphere_count(k, t) for t in range(M + W + 1))), float(n_candidates(n, k)))
        # the region's points (enumerated, keyed, projected), the filter's blocks, the searches' tables (the batched
        # search's where they fit, else one point's ball), the data sets near r with their column and weights
        memory = (8.0 * 8 * k * region + 8.0 * 12 * FILTER_BLOCK_ENTRIES
                  + (3 * tables if tables <= SEARCH_TABLE_BYTES else 8.0 * 4 * k * ball_size(k, eps, 1e-12))
                  + 8.0 * (k + 4) * near)
        column = COLUMN_SECONDS[0] * near * COLUMN_POINTS
        if sampled_column(n, k, eps):  # the risk filter first over the region (search_filter), however counted
            memory += SAMPLED_BYTES
        if k == 3 and Dc >= n:  # the grouped search's loss rows kept across groups (k = 3 only): at most twice its cap,
            # or |R(n)|^2 floats twice
            from ..lattice.batched import LOSS_CACHE_BYTES

            rows = float(n_candidates(n, k))
            memory += min(2.0 * LOSS_CACHE_BYTES, 16.0 * rows * rows)
        if whole_column_fit(n, k, eps):  # measured all in (WHOLE_POINT_BYTES)
            memory = max(memory, WHOLE_POINT_BYTES * region)
        if orbits:  # measured all in (COLUMN_ORBIT_POINT_BYTES)
            memory = max(memory, COLUMN_ORBIT_POINT_BYTES * region)
        if self.uses_faces(n, k, spec, prior):  # the face table's build (what a draw reads)
            from ..lattice.faces_any import plan_face_table

            face = plan_face_table(n, k, eps)
            memory = max(memory, face.memory_bytes)
            # two solves, each cached on its own and each held to the solve limit (as the face release's errors): the
            # table's build (the same call a draw runs, built once in `release --noise-aware`) and the column's searches
            return Plan(task=Task.POSTERIOR, route="local column", what=what, seconds=face.seconds + search + column,
                        memory_bytes=memory, bracket=DEFAULT_TOL,
                        costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", face.seconds),
                               ("DPPOSTERIOR_MAX_SOLVE_SECONDS", search)), advice="use a larger eps", at_least=at_least)
        elif self.uses_corners(n, k, spec):
            sym = symmetric_corners(prior)
            search += corner_solve_seconds(n, k, eps, prior)
            memory = max(memory, corner_bytes(n, k, eps, sym))
            if k >= 4 and n // k > (k - 1) * Dc and not corner_family:  # (else the family's boxes, above)
                # the centre's region is c0 + U(Dc); a release next to a face or a vertex (a count at most (k - 1) Dc)
                # builds its region's box first (offcentre_reach_seconds: the most over them; the run's check reads
                # reach_build_seconds at its release): measured eps 1, n = 1,000, (2, 332, 333, 333): 46.5 CPU s in all,
                # the box 47 M points, against 25 s planned at the centre
                search += offcentre_reach_seconds(n, k, W, Dc)
        return Plan(task=Task.POSTERIOR, route="local column", what=what, seconds=search + column,
                    memory_bytes=memory, bracket=DEFAULT_TOL, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", search),),
                    advice="use a larger eps", at_least=at_least)

    def _small_corner_column_plan(self, prior, n: int, k: int, spec: ReleaseSpec, what: str, W: int, Dc: int
                                  ) -> Plan:
        """The local column's plan for the k >= 4 corner release where ``n <= Dc`` (:meth:`_corner_column_any`): the
        reach region is the window (:func:`~dpposterior.lattice.column.reach_region`), enumerated and looked up in the
        corner and edge tables and projected (:func:`small_corner_point_seconds` a point); the filters and one one-point
        search (:func:`small_corner_search_seconds`) at each distinct projection, at most |R(n)| of them; the column
        over the data sets near the release (at most R(n)); and the corner remap's solve.  Public n, k, eps and prior
        only."""
        from ..lattice.column import reach_size

        eps = spec.epsilon
        region = min(float(reach_size(k, Dc)), float(_window_size(n, k, W)))
        rows = float(n_candidates(n, k))
        search = (region * small_corner_point_seconds(eps)
                  + rows * (RISK_SECONDS * k + FILTER_SECONDS[0] + FILTER_SECONDS[1] * k * (Dc + 1))
                  + small_corner_search_seconds(rows, n, k, eps))
        sym = symmetric_corners(prior)
        search += corner_solve_seconds(n, k, eps, prior)
        column = COLUMN_SECONDS[0] * rows * COLUMN_POINTS
        memory = max(SMALL_CORNER_POINT_BYTES * region + 8.0 * (k + 4) * rows, corner_bytes(n, k, eps, sym))
        return Plan(task=Task.POSTERIOR, route="local column", what=what, seconds=search + column,
                    memory_bytes=memory, bracket=DEFAULT_TOL, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", search),),
                    advice="use a larger eps")

    def _class_column_plan(self, prior, n: int, k: int, spec: ReleaseSpec, what: str, W: int,
                           orbits_allowed: bool = True) -> Plan:
        """The local column's plan on the class route (:func:`part_class_route`; :meth:`_local_column`): the region's
        positive-part classes enumerated and grouped, one one-point search a group (:func:`group_seconds`, every
        group counted: an upper end; one a part where :func:`exact_shifts` does not hold), the data sets near the
        release (:data:`NEAR_BOX_SECONDS`) and the column over them, :data:`COLUMN_SECONDS` an entry.  Measured k = 4,
        n = 10, eps = 0.25, Dir(1,1,1,1): 13.2 and 13.7 CPU s in all with the release (average, worst), peak 597 MB;
        planned 24.7 s, 1.12 GiB (``benchmarks/noise_aware_k4_classes.json``).  At a symmetric prior the searches run
        by orbits (:func:`class_orbits`, :data:`CLASS_ORBIT_SECONDS`); ``orbits_allowed=False``: priced one search a
        lead, and the grouping with its float check (:data:`GROUP_LEAD_SECONDS`), as before (what :meth:`_class_route`
        compares first, so that no cell it sent one way moves)."""
        from ..lattice.column import BLOCK_ENTRIES, clamp_group_count, part_class_count

        parts, rows = float(part_class_count(n, k, W)), float(n_candidates(n, k))
        grouping, searches = group_seconds(n, k, W, exact_shifts(prior, spec.epsilon),
                                           prior if orbits_allowed else None, as_before=not orbits_allowed)
        # the data sets within M + W of the release (M at most (k - 1) (Dc + W) + W), by the box of their first
        # count's range and (2 R + 1)^(k - 2) of the others; the column over them against one part a group mapping to
        # the release (the parts of a group share its output)
        R = (k - 1) * (_radius(k, spec.epsilon, 1e-12) + W) + 2 * W
        box = float(min(n, 2 * R) + 1) * float(2 * R + 1) ** (k - 2)
        column = NEAR_BOX_SECONDS * box + COLUMN_SECONDS[0] * rows * float(clamp_group_count(n, k, W))
        # the classes (points, counts, positive parts, clamps, projections, the grouping's sort: 14 k + 8 words
        # each), the near box's slabs (3 k + 2 words a point of (2 R + 1)^(k - 2)) and the column's blocks
        memory = (8.0 * (14 * k + 8) * parts + 8.0 * (3 * k + 2) * float(2 * R + 1) ** (k - 2)
                  + 8.0 * 4 * BLOCK_ENTRIES + 8.0 * (k + 4) * rows)
        return Plan(task=Task.POSTERIOR, route="local column", what=what, seconds=grouping + searches + column,
                    memory_bytes=memory, bracket=DEFAULT_TOL,
                    costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", grouping + searches),), advice="use a larger eps")

    def _cut_column_plan(self, prior, n: int, k: int, spec: ReleaseSpec, what: str, W: int, Dc: int) -> Plan:
        """The local column's plan at k >= 4 where a release at the centre ``c0`` of R(n) has every count past
        ``(k - 1) Dc`` (route ``"local column"``; :meth:`_local_column`'s cut route): the points at the descent
        filter's cut enumerated (:func:`~dpposterior.lattice.column.cut_region`, at ``c0``: its box's points at
        :data:`CUT_SECONDS` a point and coordinate), both filters at each (:data:`FILTER_SECONDS`,
        :data:`RISK_SECONDS`), one box certificate per cell they occupy of each grid of :data:`BOX_GRIDS` (one per
        orbit at a symmetric prior; :func:`box_seconds`; at most what the passes of :func:`_box_certified` run), and
        the column over the data sets within ``W`` of the release (``M = 0``: at the centre every kept point is
        certified to stay, so only ``r`` maps to ``r``; measured at Dir(1,1,1,1), eps = 0.25, n = 1e4),
        :data:`CUT_COLUMN_SECONDS` and :data:`CUT_COLUMN_BYTES` a data set.  The seconds held to the limit are the most of
        that and what a release elsewhere builds before its searches, so that a cell is refused before anything is
        drawn where such a release is over the limit: next to a face or a vertex (a count at most ``(k - 1) Dc``, the
        region route) its reach region's box, :func:`offcentre_reach_seconds` (the most over those releases); with
        every count past ``(k - 1) Dc``, the cut's box at each release of :func:`cut_family` (:func:`cut_box_count`,
        :data:`CUT_SECONDS` a point and coordinate).  The run reads the same terms at its own release
        (:meth:`_local_column`, :func:`_cut_points`).  Measured before: at eps 0.5, n = 1,000 the release (10, 10, 10,
        970) ran over 200 CPU s (2.5 GB) against 9.3 s planned, refused by nothing.  Where the searches run by orbits
        (:func:`column_orbits`, a symmetric prior) it also takes the most over the releases next to a face, an edge and
        a vertex (:func:`cut_release_family`), each costed as its run's checks count it (:func:`cut_release_cost`: its
        box, filters and searches by :func:`column_orbit_seconds`; its bytes by its kept parts,
        :func:`cut_release_bytes`): measured at Dir(1,1,1,1), average, eps 2, such a release ran 8x to 10x the centre's
        plan (n = 1,000, (107, 499, 393, 1): 43.5 CPU s against 5.1 planned; n = 3,000, (999, 999, 1001, 1): 57.6
        against 6.1).  Not planned here: the certificates at a release with every count past ``(k - 1) Dc`` off the
        centre, and the searches at a release the family does not stand for (an asymmetric prior among them), checked
        at its own counts when it runs (:func:`_box_certified`, its passes together; :func:`_check_searches`; the data sets,
        :func:`~dpposterior.lattice.column.near_data_sets`), each refused in one line past its limit."""
        from ..lattice.column import cut_region

        a = np.asarray(prior, dtype=np.float64)
        eps = spec.epsilon
        c0 = np.full(k, n // k, dtype=np.int64)
        c0[: n - int(c0.sum())] += 1
        stats: dict = {}
        Zc = cut_region(a, n, eps, c0, Dc, stats)
        cells = box_passes_planned(a, n, eps, Dc, Zc)
        points = float(len(Zc))
        filters = (float(stats["box"]) * CUT_SECONDS * k
                   + points * (FILTER_SECONDS[0] + FILTER_SECONDS[1] * k * (Dc + 1) + RISK_SECONDS * k))
        search = filters + cells * box_seconds(k, eps)
        # a release elsewhere: next to a face or a vertex (a count at most (k - 1) Dc) its reach region's box built
        # (offcentre_reach_seconds, the most over such releases), with every count past it the cut's box at the family
        # of releases with counts at (k - 1) Dc + 1 (cut_family): the same terms the run's checks read at its release
        search = max(search, offcentre_reach_seconds(n, k, W, Dc),
                     *(cut_box_count(a, n, eps, c, Dc) * CUT_SECONDS * k for c in cut_family(n, k, Dc)))
        near = min(float(sum(sphere_count(k, t) for t in range(W + 1))), float(n_candidates(n, k)))
        column = CUT_COLUMN_SECONDS * near
        memory = 8.0 * 8 * k * points + CUT_COLUMN_BYTES * near
        if column_orbits(a, n, k, eps):
            # the releases next to a face, an edge, a vertex (cut_release_family) take the region route searched by
            # orbits: each costed as its run's checks count it (cut_release_cost), the most held to the limit, and the
            # plan's own samples; their bytes by the most kept parts (cut_release_bytes)
            most, _, samples, parts = _cut_release_most(tuple(float(x) for x in a), n, eps, Dc, W)
            search = max(search, most) + samples * CUT_RELEASE_SAMPLE_SECONDS
            memory = max(memory, cut_release_bytes(parts))
        return Plan(task=Task.POSTERIOR, route="local column", what=what, seconds=search + column,
                    memory_bytes=memory, bracket=DEFAULT_TOL, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", search),),
                    advice="use a larger eps")

    def local_posterior(self, plan: Plan, prior, n: int, spec: ReleaseSpec, released):
        """``(R(n), ln pi(c) + ln P_W(m | c), |R(n)|, bound)`` for the release ``released`` (docs/lattice.md, "The
        noise-aware posterior"): the column of :func:`~dpposterior.lattice.column.window_column` from the remap a draw
        computes at every point of ``window(n, k, W)`` (``W`` = :meth:`column_radius`), the same outputs as
        :meth:`sample`'s: the window's remap (outside its own window, the row of ``project(z)``) where a draw reads
        it, else :func:`~dpposterior.lattice.search.local_search_many` (equal to
        :func:`~dpposterior.lattice.remap.local_bayes_search` at every point).

        Bound (proof).  ``P_W <= P(m | c) <= P_W + tail`` for every c (:mod:`dpposterior.lattice.column`), so the
        mass the weights ``pi(c) P_W(m | c)`` leave out is at most ``tail sum_c pi(c) = tail``, relative to the kept
        mass ``sum_c pi(c) P_W(m | c)`` at most ``tail / that`` (times ``1 + 1e-6`` for rounding)."""
        a = np.asarray(prior, dtype=np.float64)
        k, n = a.size, int(n)
        m = np.asarray(released, dtype=np.int64).reshape(k)
        W = self.column_radius(n, k, spec.epsilon)
        if plan.route == "local column":
            return self._local_column(a, n, spec, m, W)
        Zw = window(n, k, W)
        if self.uses_window(n, k, spec):
            setup = _setup(tuple(a.tolist()), n, spec.epsilon)
            remap = self.remap(a, n, spec)
            inside = setup.in_window(Zw)
            rows = np.empty(len(Zw), dtype=np.int64)
            rows[inside] = setup.window_index(Zw[inside])
            if (~inside).any():  # outside the remap's window: the row of project(z), as a draw
                rows[~inside] = setup.window_index(project(Zw[~inside], n))
            if remap.index is not None:
                R, log_col, tail = window_column(n, k, spec.epsilon, m, W, Zw, outputs=setup.R[remap.index[rows]])
            else:
                r = int(candidate_rank(m[None, :])[0])
                R, log_col, tail = window_column(n, k, spec.epsilon, m, W, Zw, probabilities=remap.table[rows, r])
        else:
            from ..lattice.search import local_search_many

            out = local_search_many(a, n, spec.epsilon, Zw)
            R, log_col, tail = window_column(n, k, spec.epsilon, m, W, Zw, outputs=out)
        log_pi = log_prior_predictive(a, R)
        logw = log_pi + log_col
        kept = logsumexp(logw)
        bound = math.exp(min(700.0, math.log(tail) - kept)) * (1 + 1e-6) if np.isfinite(kept) else math.inf
        return R, logw, len(R), bound

    def _local_column(self, a: NDArray, n: int, spec: ReleaseSpec, m: NDArray, W: int):
        """The route ``"local column"`` of :meth:`local_posterior` (docs/lattice.md, "The noise-aware posterior").

        ``T`` is what a draw computes: the local search (:func:`~dpposterior.lattice.remap.local_bayes_search`, by
        :func:`~dpposterior.lattice.batched.local_search_batch`, equal outputs) at every point of the reach region
        (:func:`~dpposterior.lattice.column.reach_region`, ``Dc = radius_for(k, eps, 1e-12)``, the search's own data
        sets' radius), and for ``worst`` past its window (k = 3) the corner table's row where a point has one
        (:func:`~dpposterior.lattice.corners.corner_transition`: every row of the table whose outputs hold r is added
        to the region), and at eps < 1 the edge table's row where a point is on an edge (every edge row whose outputs
        hold r, enumerated from its offsets: :func:`_edge_rows_to`); at k >= 4 the corner table's rows likewise, and
        off the table the local search of ``project(z)``, what that release's draw computes there
        (:meth:`_corner_column_any`).

        Reach lemma (proof, exact arithmetic).  The search returns a centre ``r`` that attains the least risk
        ``S(r) = sum_c w(c) H(c, r)`` over its neighbours ``d(r', r) <= 1`` in R(n), the c kept all in
        ``B = {c : d(c, p) <= Dc}``, ``p = project(z)``, ``w(c) > 0``.  If ``u = r - p`` had ``u_i > Dc`` and
        ``u_j < -Dc``, then ``r_i > c_i`` and ``r_j < c_j`` for every c of B, and ``r' = r - e_i + e_j`` is in R(n);
        per coordinate ``J(c_i, x)`` (the Jensen gap of ``lnGamma``, ``ln BC = sum_i J(c_i, r_i)``) strictly increases
        as x moves toward ``c_i`` (its derivative in x is ``(psi((2 a_i + c_i + x) / 2) - psi(a_i + x)) / 2``, of the
        sign of ``c_i - x``), so ``H(c, r') < H(c, r)`` for every c and ``S(r') < S(r)``: not a minimiser.  So ``u``
        lies in ``U(Dc)`` (every ``u_i <= Dc`` or every ``u_i >= -Dc``).  The corner table's rows are enumerated
        whole.  What is assumed: that the search's float comparisons agree with this order (they may tie where
        every ``H`` rounds to 1) and that it stops before its step cap (:data:`~dpposterior.lattice.remap.SEARCH_STEPS`);
        neither is proved here (docs/lattice.md).

        Descent and risk filters.  Of the region's points searched (the table's rows are enumerated whole), only those
        that :func:`~dpposterior.lattice.column.search_filter` keeps are searched: the lemmas of
        :func:`~dpposterior.lattice.column.descent_filter` and :func:`~dpposterior.lattice.column.risk_filter` (proved
        there, assuming only a float margin) show the search at any other point cannot output ``m``, so the
        points with ``T(z, m) > 0`` and the column are unchanged (tested: the same floats with and without it).  Their
        number, known once ``m`` is, is checked against the solve limit (:func:`_check_searches`, one line).

        Cut route (k >= 4, every count of ``m`` past ``(k - 1) Dc``): only the region's points at the descent
        filter's cut are enumerated (:func:`~dpposterior.lattice.column.cut_region`: the filters keep the same points
        as over the whole region, proved there), and the kept points of a grid cell certified by
        :func:`~dpposterior.lattice.staybox.box_stays` output themselves (proved there); the rest are searched as
        above.  The same ``T`` at every point, so the same column (tested).

        Bound: :func:`~dpposterior.lattice.column.local_column`'s ``leftover`` over the kept mass
        ``sum_{c in C} pi(c) P_S(m | c)`` (times ``1 + 1e-6`` for rounding)."""
        from ..lattice.column import local_column, reach_region

        k, eps = a.size, spec.epsilon
        Dc = _radius(k, eps, 1e-12)
        # k >= 4, every count of the release past (k - 1) Dc: only the region's points at the descent filter's cut
        # (cut_region: the same points kept), and the box stay certificate before the search
        cut = k >= 4 and not self.uses_corners(n, k, spec, a) and int(m.min()) > (k - 1) * Dc
        classes = not cut and self._class_route(a, n, k, spec, W, Dc)
        if classes:  # the region's positive-part classes, each with its count of window points (the same column)
            from ..lattice.column import reach_classes

            Z, counts = reach_classes(n, k, m, Dc, W)
            t = _group_outputs_m(a, n, eps, m, Z, Dc) * counts
            C, log_col, leftover = local_column(n, k, eps, m, Z, t, Dk=self.column_radius(n, k, eps), W=W)
            return self._column_posterior(a, n, k, C, log_col, leftover, blocks=True)
        if k >= 4 and not cut:  # the whole region enumerated: refused in one line past the memory limit (as planned)
            from ..lattice.column import reach_size

            check_size(min(reach_size(k, Dc), _window_size(n, k, W)), 8.0 * 8 * k,
                       f"the local column's reach region at this release (k={k}, n={n}, eps={eps:g})")
        if k >= 4 and not cut:  # the region's box (or window) built: refused in one line past the limit (planned)
            from ..lattice.column import reach_build

            points, route, offsets = reach_build(n, k, m, Dc, W)
            _solve_limit(reach_box_seconds(points, route, offsets),
                         f"the noise-aware posterior's reach region at this release (k={k}, n={n}, eps={eps:g}; "
                         f"{points:,} points built)")
        Z = _cut_points(a, n, eps, m, Dc) if cut else reach_region(n, k, m, Dc, W)
        if self.uses_faces(n, k, spec, a):  # the face table's rows whose outputs hold m, the local search elsewhere
            remap = _face(tuple(a.tolist()), n, eps)
            Zt, t_tab = _face_rows_to(remap, m, W)
            Zoff = Z[remap.rows(Z) < 0]
            t_off = _outputs_m(a, n, eps, m, Zoff, Dc, boxes=cut)
            Z = np.concatenate([Zoff[t_off > 0], Zt])
            t = np.concatenate([t_off[t_off > 0], t_tab])
        elif self.uses_corners(n, k, spec) and k >= 4:
            Z, t = self._corner_column_any(a, n, eps, m, Z, W, Dc)
        elif self.uses_corners(n, k, spec):
            from ..lattice.corners import cached_corner_remap, default_depth

            remap = cached_corner_remap(tuple(a.tolist()), n, eps, default_depth(eps))
            Zt, t_tab = _table_rows_to(remap, n, m, W)
            off = (remap.rows(Z) < 0) & (remap.edge_rows(Z)[0] < 0)  # off the table and off the edge table (eps < 1)
            Zoff = Z[off]
            t_off = _outputs_m(a, n, eps, m, Zoff, Dc)
            Zoff, t_off = Zoff[t_off > 0], t_off[t_off > 0]
            Ze, t_edge = _edge_rows_to(remap, m, W)
            Z = np.concatenate([Zoff, Zt, Ze])
            t = np.concatenate([t_off, t_tab, t_edge])
        else:
            t = _outputs_m(a, n, eps, m, Z, Dc, boxes=k >= 4 and cut)
        C, log_col, leftover = local_column(n, k, eps, m, Z, t, Dk=self.column_radius(n, k, eps), W=W)
        return self._column_posterior(a, n, k, C, log_col, leftover, blocks=cut)

    @staticmethod
    def _column_posterior(a: NDArray, n: int, k: int, C: NDArray, log_col: NDArray, leftover: float, blocks: bool):
        """``(C, ln pi(c) + ln P_S(m | c), |R(n)|, bound)`` from the local column (:meth:`_local_column`'s bound)."""
        from ..lattice.column import log_prior_rows

        logw = log_prior_rows(a, C)  # log_prior_predictive's floats, by tables
        logw += log_col  # in place (the same floats as the sum)
        del log_col
        if not len(logw):
            kept = -np.inf
        elif blocks and len(logw) > 2**20:  # a block at a time (scipy's logsumexp holds copies of the whole: 1.8e7 here)
            kept = float(logsumexp([logsumexp(logw[s:s + 2**20]) for s in range(0, len(logw), 2**20)]))
        else:
            kept = logsumexp(logw)
        bound = math.exp(min(700.0, math.log(leftover) - kept)) * (1 + 1e-6) if np.isfinite(kept) else math.inf
        return C, logw, n_candidates(n, k), bound

    @staticmethod
    def _corner_column_any(a: NDArray, n: int, eps: float, m: NDArray, Z: NDArray, W: int, Dc: int
                           ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """The points and ``T(z, m)`` of the k >= 4 corner release (:class:`~dpposterior.lattice.corners_any.
        AnyCornerRemap`, what a draw reads) for the local column: every row of its table whose outputs hold ``m`` (the
        table enumerated whole, translated to n, coordinates ``>= -W``), with its probability; and off the table the
        points ``z`` of the reach region ``Z`` with ``B(project(z)) = m``, ``B`` the local search at the projection
        (a point of R(n): :func:`_search_points`, the batched search's outputs equal the one-point search's; where
        :func:`column_orbits` holds, by orbits, one certified search per orbit: the same outputs, proved in
        :func:`~dpposterior.lattice.batched._orbit_search`, so the same ``T`` and floats); where
        it has an edge table (:class:`~dpposterior.lattice.corners_any.EdgeTableAny`), every edge row whose outputs hold
        ``m`` (enumerated from the table's offsets, :meth:`~dpposterior.lattice.corners_any.EdgeTableAny.rows_to`, so
        none is missed whatever its distance from ``m``) and the region's points off both tables.

        Reach (proof).  Off the table ``T(z) = B(p)``, ``p = project(z)`` in R(n), and ``B(p)`` is the local search's
        output at ``p`` (whose own projection is ``p``), so by the reach lemma (:meth:`_local_column`) ``m - p`` lies
        in ``U(Dc)``; ``U`` is symmetric, so ``project(z) - m`` does, and every such ``z`` of the window is in ``Z``
        (:func:`~dpposterior.lattice.column.reach_region`)."""
        from ..lattice.column import search_filter

        remap = _corner(tuple(a.tolist()), n, eps)
        Zt, t_tab = _table_rows_to(remap, n, m, W)
        Zoff = Z[(remap.rows(Z) < 0) & (remap.edge_rows(Z)[0] < 0)]  # off the table and off the edge table
        t_off = np.zeros(len(Zoff))
        if len(Zoff):
            uniq, _, back = _unique_rows(project(Zoff, n))
            # the risk and descent lemmas at each projection (a point of R(n), searched as itself): the rest cannot
            # map to m
            may = search_filter(a, n, eps, m, uniq, Dc)
            out = np.full(uniq.shape, -1, dtype=np.int64)
            if n <= Dc:  # every data set of R(n) in each search's ball: one-point searches (small_corner_search_seconds)
                _solve_limit(small_corner_search_seconds(int(may.sum()), n, len(m), eps),
                             f"the noise-aware posterior's local column at this release for k={len(m)}, n={n}, "
                             f"eps={eps:g} ({int(may.sum()):,} points whose search can output it)")
                out[may] = _one_point_searches(a, n, eps, uniq[may])
            elif column_orbits(a, n, len(m), eps):  # one certified search per orbit (the same outputs)
                from ..lattice.batched import local_search_batch

                _check_searches(uniq[may], n, len(m), eps, orbits=True, projections=True)
                out[may] = local_search_batch(a, n, eps, uniq[may], orbits=True)
            else:
                _check_searches(uniq[may], n, len(m), eps)
                out[may] = _search_points(a, n, eps, uniq[may])
            t_off = np.all(out[back.reshape(-1)] == m[None, :], axis=1).astype(np.float64)
        Ze, t_edge = np.zeros((0, len(m)), dtype=np.int64), np.zeros(0)
        if remap.edges is not None:  # every edge row whose outputs hold m, enumerated from the table's offsets
            Ze, t_edge = remap.edges.rows_to(m, lambda z: remap.rows(z) >= 0)
            keep = np.all(Ze >= -W, axis=1)
            Ze, t_edge = Ze[keep], t_edge[keep]
        return np.concatenate([Zoff, Zt, Ze]), np.concatenate([t_off, t_tab, t_edge])

    # -- the pmf at one data set ---------------------------------------------------------------

    def pmf_at_one_data_set(self, prior, n: int, spec: ReleaseSpec) -> bool:
        """Past :data:`ROWS_MAX_OUTPUTS` outputs the rows over R(n) are not computed: ``pmf`` takes
        :meth:`pmf_at` (its plan, :meth:`plan_pmf_at`)."""
        return n_candidates(n, len(prior)) > ROWS_MAX_OUTPUTS

    def pmf_at_seconds(self, n: int, k: int, spec: ReleaseSpec, tol: float = DEFAULT_TOL, counts=None,
                       prior=None) -> float:
        """Estimated seconds of :meth:`pmf_at` (its plan's, :meth:`plan_pmf_at`)."""
        return self.plan_pmf_at(prior, n, k, spec, tol, counts).seconds

    def plan_pmf_at(self, prior, n: int, k: int, spec: ReleaseSpec, tol: float = DEFAULT_TOL, counts=None) -> Plan:
        """The plan of :meth:`pmf_at` (docs/lattice.md, "The pmf at one data set"): ``Task.PMF``, its bracket the tail
        bound beyond the ball's radius, its seconds held to ``DPPOSTERIOR_MAX_SOLVE_SECONDS``.  Routes: ``"window
        remap"`` (the window's remap, then a look-up per point of the ball, where a draw reads the window); ``"local
        search per point"`` (k = 3: one local search per point of the ball); at k >= 4 ``"batched local search"`` over
        the ball's points in R(n), the rest handed on, or at a symmetric prior ``"batched local search, by orbits"``
        (one search per orbit of the ball's points under the permutations of the categories, :data:`PMF_ORBIT_HANDED`).
        ``counts``: the data set asked (a query, not a release), for the estimate at k >= 4 (without it every point
        counts as handed on); ``prior``: for the route by orbits (None: planned without)."""
        eps = spec.epsilon
        D = _radius(k, eps, tol)
        ball = ball_size(k, eps, tol)
        what = (f"the lattice release's pmf at one data set for k={k}, n={n}, eps={eps:g} ({ball:,} points within "
                f"distance {D})")
        bracket = float(tail_bound(k, eps, D))
        if self.uses_window(n, k, spec):
            return Plan(task=Task.PMF, route="window remap", what=what, bracket=bracket,
                        seconds=self.solve_seconds(n, k, spec.objective, eps) + BALL_SECONDS * ball,
                        memory_bytes=window_bytes(n, k, eps, spec.objective))
        if self.uses_faces(n, k, spec, prior):
            return Plan(task=Task.PMF, route="face table", what=what, refusal=(
                f"the lattice release's pmf at one data set for k={k}, n={n}, eps={eps:g} (worst) is not built: its "
                "face table's rows are randomised (lattice~average, --objective average, has it)"))
        if self.uses_corners(n, k, spec):
            return Plan(task=Task.PMF, route="corner remap", what=what, refusal=(
                f"the lattice release's pmf at one data set for k={k}, n={n}, eps={eps:g} (worst) is not built: its "
                "corner table's rows are randomised (lattice~average, --objective average, has it)"))
        memory = float(ball) * k * 8 * 6 + 4 * 8 * float(2**20)  # the ball, its keys and ranks; a block of the table
        if k < 4:
            seconds = ball * local_seconds(k, eps)
            return Plan(task=Task.PMF, route="local search per point", what=what, seconds=seconds, bracket=bracket,
                        memory_bytes=memory, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", seconds),))
        orbits = prior is not None and _symmetric(prior)
        if counts is None or ball > PMF_PLAN_POINTS:  # without the data set, or a ball too large to list: all handed on
            seconds = sum(batched_seconds(k, eps, 0, ball))
        else:
            from ..lattice.remap import _ball

            Z = np.asarray(counts, dtype=np.int64)[None, :] + _ball(k, D)
            if orbits:  # the distinct sorted points (one per orbit)
                Z = np.unique(-np.sort(-Z, axis=1), axis=0)
            low = Z.min(axis=1)
            inside = int(np.count_nonzero(low >= 0))
            handed = len(Z) - inside + int(np.count_nonzero((low >= 0) & (low <= 1)))
            seconds = sum(batched_seconds(k, eps, inside, (PMF_ORBIT_HANDED if orbits else 1.0) * handed))
        route = "batched local search, by orbits" if orbits else "batched local search"
        return Plan(task=Task.PMF, route=route, what=what, seconds=seconds, bracket=bracket, memory_bytes=memory,
                    costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", seconds),))

    def check_pmf_at(self, n: int, k: int, spec: ReleaseSpec, tol: float = DEFAULT_TOL, counts=None,
                     prior=None) -> Plan:
        """Admit (one line past a limit, before any work) :meth:`pmf_at`'s plan (:meth:`plan_pmf_at`) and return it;
        the window route's memory and time are held by :meth:`check_window`."""
        self.check_distance(spec, k)
        if self.uses_window(n, k, spec):
            self.check_window(n, k, spec)
        else:
            check_size(n_candidates(n, k), 8, f"the lattice release's pmf at one data set for k={k}, n={n}")
        return admit(self.plan_pmf_at(prior, n, k, spec, tol, counts))

    def pmf_at(self, prior, counts, spec: ReleaseSpec, tol: float = DEFAULT_TOL) -> tuple[NDArray, float]:
        """``(P_D(. | c), tail)`` over ``candidates(n, k)`` at the one data set ``counts``, with
        ``P_D <= P(r | c) <= P_D + tail <= P_D + tol`` (docs/lattice.md, "The pmf at one data set";
        :func:`~dpposterior.lattice.pointwise.ball_pmf`).

        ``T`` is what a draw computes at each z of the ball ``d(z - c) <= D`` (``D`` from ``tol``): the window's
        remap (outside the window: the row of ``project(z)``) where a draw reads it, else the local search at z
        (:func:`~dpposterior.lattice.remap.local_bayes_search`; at k >= 4 all at once by the batched search, by orbits
        at a symmetric prior: the same outputs).  So it runs at the sizes where the rows over R(n) are not computed,
        one data set at a time; the route is the one :meth:`plan_pmf_at` names.
        """
        a = np.asarray(prior, dtype=np.float64)
        c = np.asarray(counts, dtype=np.int64).reshape(-1)
        n, k = int(c.sum()), c.size
        plan = self.check_pmf_at(n, k, spec, tol, c, a)
        D = _radius(k, spec.epsilon, tol)
        if plan.route == "window remap":
            setup = _setup(tuple(a.tolist()), n, spec.epsilon)
            remap = self.remap(a, n, spec)

            def rule(z):
                inside = setup.in_window(z)
                z = z.copy()
                if (~inside).any():
                    z[~inside] = project(z[~inside], n)
                rows = setup.window_index(z)
                return remap.index[rows] if remap.index is not None else remap.table[rows]
        elif plan.route.startswith("batched local search"):  # all at once, then a look-up (lattice.batched)
            rule = _batched_rule(a, c, spec.epsilon, D, orbits=plan.route.endswith("by orbits"))
        else:
            def rule(z):
                return candidate_rank(np.stack([local_bayes_search(a, n, spec.epsilon, zi) for zi in z]))
        return ball_pmf(c, spec.epsilon, rule, D)

    # -- draws ---------------------------------------------------------------------------------

    def set_up(self, prior, n: int, spec: ReleaseSpec) -> None:
        """Solve (and cache) the window's remap from public inputs only, before a padded release times its
        reference draws; refuse (one line) a draw over its budget."""
        k = len(prior)
        self.check_draw(int(n), k, spec, PADDED_DRAWS, symmetric_corners(prior), prior)
        if self.uses_window(int(n), k, spec):
            self.remap(prior, n, spec)
        elif self.uses_faces(int(n), k, spec, prior):
            _face(tuple(float(x) for x in prior), int(n), spec.epsilon)
        elif self.uses_corners(int(n), k, spec):
            _corner(tuple(float(x) for x in prior), int(n), spec.epsilon)

    @staticmethod
    def _local_outputs(prior, n: int, spec: ReleaseSpec, z: NDArray[np.int64]) -> NDArray[np.int64]:
        """The local Bayes remap at each drawn z (:func:`~dpposterior.lattice.remap.local_bayes_search`)."""
        # T(z) is a function of z alone: computed once per distinct z (many draws from one data set repeat z),
        # many distinct z together (Monte Carlo: the batched search gives the one-point search's outputs; at a
        # symmetric prior one search per orbit of the z under the permutations of the categories, the same outputs)
        distinct, back = np.unique(z, axis=0, return_inverse=True)
        if len(distinct) >= BATCH_DRAWS:
            from ..lattice.batched import local_search_batch

            out = local_search_batch(prior, n, spec.epsilon, distinct, orbits=True)
        else:
            out = np.stack([local_bayes_search(prior, n, spec.epsilon, zi) for zi in distinct])
        return out[back.reshape(-1)]

    def sample(self, prior, counts, spec, size, rng):
        n, k = int(counts.sum()), counts.size
        self.check_draw(n, k, spec, symmetric=symmetric_corners(prior), prior=prior)
        bits = _bits(rng)
        z = counts[None, :] + sample_noise(k, spec.epsilon, size, bits)
        if self.uses_faces(n, k, spec, prior):  # the face table's row where z has one (drawn by integer weights)
            remap = _face(tuple(float(x) for x in prior), n, spec.epsilon)
            on = remap.rows(z) >= 0
            out = np.empty((size, k), dtype=np.int64)
            if (~on).any():  # elsewhere the local Bayes remap at z, as lattice~average's draw
                out[~on] = self._local_outputs(prior, n, spec, z[~on])
            for j in np.flatnonzero(on):
                out[j] = remap.draw(z[j], bits)
            return out
        if self.uses_corners(n, k, spec):
            remap = _corner(tuple(float(x) for x in prior), n, spec.epsilon)
            return np.stack([remap.draw(zi, bits) for zi in z])
        if not self.uses_window(n, k, spec):
            return self._local_outputs(prior, n, spec, z)
        setup = _setup(tuple(float(x) for x in prior), n, spec.epsilon)
        remap = self.remap(prior, n, spec)
        inside = setup.in_window(z)
        zi = np.empty(size, dtype=np.int64)
        if inside.any():
            zi[inside] = setup.window_index(z[inside])
        if (~inside).any():  # outside the window: the row of project(z)
            zi[~inside] = setup.window_index(project(z[~inside], n))
        if remap.index is not None:
            return setup.R[remap.index[zi]].copy()
        out = np.empty((size, k), dtype=np.int64)
        for j, row in enumerate(zi):
            out[j] = setup.R[remap.draw_row(row, bits)]
        return out


#: The registry entry (registered by :mod:`dpposterior.mechanisms.registry`).
LATTICE = LatticeMechanism(
    id="lattice", name="lattice (K-norm noise on the sum-zero lattice + remap)",
    seed_name="beyond the drafts: the K-norm mechanism on the data's lattice, then a remap for the loss",
    weight_or_scale="P(w) ∝ exp(-eps |w|_1 / 2) on {w in Z^k: sum w = 0}, then a remap",
    guarantee=Guarantee.theorem(
        "eps-DP: K-norm noise on the sum-zero lattice shaped by the substitution distance, then a remap "
        "(post-processing)", pure(),
        reference="Hardt and Talwar 2010 (the K-norm mechanism), K = conv{e_i - e_j}",
        proof="K(z | c) = e^(-eps d(z - c)) / Z with Z the same for every c; d (half the l1 norm) is a norm on the "
              "sum-zero lattice and d(c - c') = 1 for neighbours, so |d(z - c) - d(z - c')| <= 1 and "
              "K(z | c) <= e^eps K(z | c') for every z.  The remap is chosen from public inputs (prior, n, eps) "
              "and never reads c: post-processing keeps eps-DP."),
    distances=(DEFAULT_DISTANCE,),
)
