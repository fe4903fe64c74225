"""Exact expected errors at scale for a release that is a noise kernel plus a boundary rule, without the |R(n)|^2 table.

Definition (docs/definitions.md §9, expected error; docs/lattice.md, "Errors at scale").  A *translation
release* draws a noise offset ``w`` from a kernel ``K`` that does not depend on the data and releases
``r = B(c, w)`` in R(n) by a fixed boundary rule ``B``.  Its expected error is

    ``E(c) = sum_w K(w) L(c, B(c, w))``,   ``L(c, r) = H(BI(c), Dir(a + r))`` (docs/definitions.md §2).

Two releases have this form:

* the sequential clamp of :mod:`dpposterior.mechanisms.clamped` (``geometric``, and the floor-Laplace entries):
  ``w = (D_1..D_{k-1})`` iid integer noise of one law (the pmf's own point table), and
  ``B(c, w)_i = clamp(c_i + D_i, 0, n - B_1 - ... - B_{i-1})`` for ``i < k``, ``B_k = n - sum`` (the clamped
  cells of the pmf take the tails: summing the point masses of ``D`` reproduces them exactly);
* the lattice release (:mod:`.noise`): ``w`` in the sum-zero lattice with ``K(w) = e^(-eps d(w)) / Z``,
  ``B(c, w) = T(c + w)`` for a deterministic remap ``T`` of lattice points with sum n (:func:`project`, or a
  :class:`WindowRemap` table on a window with :func:`project` outside).

Computation.  The sum runs over a finite set ``S`` of offsets (the heaviest ones: a level set of ``K``), each
offset vectorised over every ``c`` of R(n) at once, so the work is ``|S| |R(n)|`` loss evaluations and the
memory ``O(|R(n)| + k (n + 1)^2)``, never ``|R(n)|^2``.  The loss is read from per-coordinate tables: both
posteriors have total ``A + n``, so ``ln BC(c, r) = sum_i J_i(c_i, r_i)`` with ``J_i(x, y)`` the Jensen gap of
lnGamma at ``a_i + x``, ``a_i + y`` (:class:`~dpposterior.distances.hellinger.HellingerGrid` rows, with the
midpoint series near the diagonal): each pair's loss is the same float, bit for bit, as the dense walk's
(:func:`dpposterior.accuracy.expected_errors`).

Truncation, a rigorous bracket.  Every loss is in ``[0, 1]`` and every term is ``>= 0``, so with
``E_low(c) = sum_{w in S} K(w) L(c, B(c, w))``:

    ``E_low(c) <= E(c) <= E_low(c) + tail``,   ``tail >= K(outside S) = 1 - K(S)``.

For the clamp, ``tail = 1 - fsum(K(S))`` plus a margin for the float rounding of the point masses (relative
``~1e-15`` each, :data:`ROUNDING_MARGIN` covers it); for the lattice, ``tail = tail_bound(k, eps, W)``
(:func:`.noise.tail_bound`, proven in :mod:`.noise`) with ``S = {d(w) <= W}``.  :class:`Bracket` carries
``low`` and ``tail``; the worst case and the average are brackets too.

Interface (for the registry entries; ``tol`` bounds ``tail``):

* :func:`clamped_errors` ``(prior, n, log_point, tol)`` and its cost :func:`clamped_work`;
* :func:`lattice_errors` ``(prior, n, epsilon, rule=None, tol)`` with ``rule`` None (:func:`project`), a
  :class:`WindowRemap` or any vectorised function ``z (B, k) -> r (B, k)`` of lattice points with sum n
  (deterministic, a function of ``z`` only); its cost :func:`lattice_work`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate as _validate
from ..distances.hellinger import HellingerGrid, hellinger_from_log_bc
from ..errors import InputError
from ..models import candidate_rank, candidates, check_size, n_candidates
from .noise import log_normaliser, radius_for, tail_bound
from .remap import project

#: Default bound on the kernel's mass left out (the width of every bracket).
DEFAULT_TOL = 1e-5
#: The wider bracket the sequential clamp's factor route takes where the default one is over the budget.
WIDE_TOL = 1e-4
#: The widest, where neither finer one fits (k = 4, n = 100 at eps = 1: ~27 s against ~55 s at WIDE_TOL): 0.2 % of
#: the errors there (~0.5), so a ranking stands and the value is stated as the bracket it is.
COARSE_TOL = 1e-3
#: The factor route's brackets, finest first: the route takes the first within the budget.
FACTOR_TOLS = (DEFAULT_TOL, WIDE_TOL, COARSE_TOL)
#: Added to ``1 - fsum(K(S))``: covers the float rounding of the point masses and of their sum.
ROUNDING_MARGIN = 1e-13
#: Entries of one block (data sets x offsets) of the vectorised sum.
BLOCK_ENTRIES = 2**20
#: Measured loss evaluations per second of the offset loop (k = 3, n = 1000, on the shared 2-core machine,
#: ``benchmarks/scale.py``); the cost estimates divide by it.  Each of the three rates here was measured at load 7-10;
#: at load 2-4 the routes ran 2.5-2.8x faster (benchmarks/plans.json, 2026-11-28): they are taken 1.5x the loaded
#: rates, so a plan's seconds are within 2x of both.
EVALUATIONS_PER_SECOND = 4.5e7
#: The same from k = 4, and the seconds of the route's set-up there (the noise table and its offsets, whatever the
#: work): Dir(1,1,1,1), n = 50 (2026-11-30, load ~3, benchmarks/plans_fit.json), CPU s run against the k = 3 rate's
#: plan: eps = 1, geometric 32.7 / 28.5, lszhang 33.4 / 29.7 (~1.19x under at load ~15, 2026-11-29); eps = 2, 3.6 /
#: 3.1, 5.2 / 3.4.  With these: 35.3, 36.6, 5.2, 5.5 s planned.
EVALUATIONS_PER_SECOND_ANY = 3.8e7
LOSS_SETUP_SECONDS_ANY = 1.5
#: Measured loss evaluations per second of :func:`clamped_errors_by_factors` (k = 4, n = 100: 5.47e9 in 61-66 s of CPU
#: before its per-group bookkeeping ran in batches, in ~54 s after, 1.0e8/s, at load 7-10 on the shared 2-core
#: machine; k = 3, n = 1000: 8.1e8 in 10-15 s), so the estimate is about the measured CPU seconds at that load and
#: above them on an idle core (``benchmarks/scale.py``).
FACTOR_EVALUATIONS_PER_SECOND = 1.5e8
#: The same at k = 3, where each group's interval is one coordinate long and the per-group work weighs more: k = 3,
#: n = 1000: 8.1e8 in 10-15 s; n = 3000 (bracket 1e-3): 3.1e9 in 60 s of CPU (2026-11-26), 5.2e7/s.
FACTOR_K3_EVALUATIONS_PER_SECOND = 7.5e7
#: Entries of one block (data sets x the inner interval) of :func:`clamped_errors_by_factors` (cache-sized).
FACTOR_BLOCK_ENTRIES = 2**17
#: Most entries of the coefficients at every shift of one block of :func:`clamped_errors_by_factors` (64 MB).
FACTOR_SHIFT_ENTRIES = 2**23
#: Shortest run of rows :func:`clamped_errors_by_factors` reads as a slice of its coefficients (shorter: a gather).
FACTOR_RUN = 64
#: Most (group, data set) pairs whose per-row arithmetic :func:`clamped_errors_by_factors` runs as one array.
FACTOR_GROUP_ENTRIES = 2**18
#: The level sets of :func:`clamped_errors_by_factors` step by this in log mass (finer than the loss route's 1: fewer
#: offsets for the same bracket).
FACTOR_STEP = 0.25
#: Most offsets :func:`clamped_errors_by_factors` sums (its margin covers the sums' rounding up to this count).
FACTOR_MAX_OFFSETS = 4_000_000
#: Relative error allowed for one ``exp`` of numpy (a few ulp, generously) in :func:`factor_margin`.
FACTOR_ULPS = 2e-15
#: A bound on the rounding of one cap sum of :func:`clamped_errors_by_orbits` (at most :data:`FACTOR_MAX_OFFSETS`
#: terms and weight sums of at most 1, ``2^-52`` each: 1e-9 each) and of its two additions.
ORBIT_MARGIN = 3e-9


@dataclass(frozen=True)
class Bracket:
    """``low <= E(c) <= low + tail`` for every data set of ``counts`` (module docstring; docs/definitions.md §9)."""

    counts: NDArray[np.int64]
    low: NDArray[np.float64]
    tail: float
    offsets: int

    @property
    def high(self) -> NDArray[np.float64]:
        """``min(low + tail, 1)``: the upper end of each bracket."""
        return np.minimum(self.low + self.tail, 1.0)


class _LossTables:
    """``ln BC(c, r) = sum_i J_i(c_i, r_i)`` from k tables of ``(n + 1)^2`` Jensen gaps (HellingerGrid rows)."""

    def __init__(self, a: NDArray[np.float64], n: int, R: NDArray[np.int64]):
        k = a.size
        check_size(k * (n + 1) ** 2, 8, f"the loss tables for k={k}, n={n}")
        grid = HellingerGrid(a, n)
        all_c = np.arange(n + 1)
        self.n = n
        self.tables = [grid.rows(i, all_c).ravel() for i in range(k)]
        self.base = [R[:, i] * (n + 1) for i in range(k)]
        self.counts = R

    def loss(self, m: list[NDArray[np.int64]], rows: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
        """``L(c, r)`` for the data sets ``R[rows]`` (all if None) against their outputs ``r`` (one array per
        coordinate)."""
        out = np.zeros(m[0].shape)
        for tab, base, mi in zip(self.tables, self.base, m):
            out += tab[(base if rows is None else base[rows]) + mi]
        np.minimum(out, 0.0, out=out)
        return hellinger_from_log_bc(out, out=out)

    def translated(self, rows: NDArray[np.int64], offsets: NDArray[np.int64],
                   weights: NDArray[np.float64]) -> NDArray[np.float64]:
        """``sum_j weights[j] L(c, c + offsets[j])`` for the data sets ``R[rows]``, every ``c + offsets[j]`` in R(n)
        (no clamp; offsets are full k-vectors with sum 0), each loss the same float as :meth:`loss`'s.

        The offsets are grouped by their first ``k - 2`` coordinates; within a group the ``(k-1)``-th runs over an
        interval (a level set of a product of unimodal laws), so coordinates ``k - 1`` and ``k`` are read as
        slices of per-coordinate band tables ``J_i(c, c + delta)`` (no gathers)."""
        k = len(self.tables)
        n = self.n
        reach = int(np.abs(offsets).max(initial=0))
        cols = np.arange(-reach, reach + 1)
        c_all = np.arange(n + 1)
        bands = []
        for tab in self.tables:  # band[c, delta + reach] = J(c, c + delta), 0 off the table (never read)
            m = c_all[:, None] + cols[None, :]
            ok = (m >= 0) & (m <= n)
            bands.append(np.where(ok, tab[(c_all[:, None] * (n + 1) + np.clip(m, 0, n))], 0.0))
        groups = [(p, lo, hi, int(p.sum()), ww) for p, lo, hi, ww in _prefix_groups(offsets, weights, k)]
        out = np.zeros(rows.size)
        c = self.counts[rows]
        width = max(g[2] - g[1] + 1 for g in groups)
        step = max(1, BLOCK_ENTRIES // width)
        for lo in range(0, rows.size, step):
            cb = c[lo:lo + step]
            acc = np.zeros(len(cb))
            rows_b = [bands[i][cb[:, i]] for i in range(k)]  # (B, 2 reach + 1) each
            for prefix, d_lo, d_hi, s, wg in groups:
                head = np.zeros(len(cb))
                for i in range(k - 2):
                    head += rows_b[i][:, int(prefix[i]) + reach]
                block = head[:, None] + rows_b[k - 2][:, d_lo + reach:d_hi + reach + 1]
                # coordinate k moves by -(s + d): from -(s + d_lo) down to -(s + d_hi)
                hi_col, lo_col = -(s + d_lo) + reach, -(s + d_hi) + reach
                last = rows_b[k - 1][:, lo_col:hi_col + 1][:, ::-1]
                block += last
                # H = sqrt(-expm1(min(ln BC, 0))), as hellinger_from_log_bc (its final + 0.0 only turns -0.0 to 0.0)
                np.minimum(block, 0.0, out=block)
                np.expm1(block, out=block)
                np.negative(block, out=block)
                np.sqrt(block, out=block)
                acc += block @ wg
            out[lo:lo + step] = acc
        return out


def _check(prior: ArrayLike, n: int) -> tuple[NDArray[np.float64], int]:
    a = _validate.prior(prior)
    if a.size < 2:
        raise InputError("a translation release needs k >= 2 categories")
    return a, _validate.integer(n, "n", 0)


# ---------------------------------------------------------------------------------------------
# the sequential clamp


def clamp_offsets(log_point: ArrayLike, k: int, tol: float = DEFAULT_TOL, step: float = 1.0
                  ) -> tuple[NDArray[np.int64], NDArray[np.float64], float]:
    """The heaviest noise vectors ``(D_1..D_{k-1})`` of the sequential clamp and the mass left out (module docstring).

    ``log_point``: ``ln P(D = d)`` on ``d = -D..D`` (a point table with offset ``D``, length ``2D + 1``; the law
    must sum to 1 over all integers).  Returns ``(offsets (M, k - 1), weights (M,), tail)``: the level set
    ``{sum_i ln P(d_i) >= tau}`` for the largest ``tau`` (in steps of ``step``, 1 by default) whose left-out mass
    ``tail = 1 - fsum(weights) + ROUNDING_MARGIN`` is at most ``tol``.
    """
    logp = np.asarray(log_point, dtype=np.float64).reshape(-1)
    if logp.size % 2 != 1:
        raise InputError("the point table must have odd length 2D + 1")
    if not (0 < tol < 1):
        raise InputError(f"tol must lie in (0, 1), got {tol!r}")
    D = logp.size // 2
    k = _validate.integer(k, "k", 2, 64)
    d = np.arange(-D, D + 1)
    top = float(logp.max())
    tau = math.log(tol) + (k - 2) * top
    while True:
        vecs = np.zeros((1, 0), dtype=np.int64)
        logs = np.zeros(1)
        useful = logp + (k - 2) * top >= tau  # the values a coordinate of the level set can take
        lp_u, d_u = logp[useful], d[useful]
        for j in range(k - 1):
            rest = (k - 2 - j) * top  # the best the remaining coordinates can add
            check_size(logs.size * lp_u.size, 8 * k, f"the noise offsets of the sequential clamp for k={k}")
            cand = logs[:, None] + lp_u[None, :]
            keep = cand + rest >= tau
            rows, cols = np.nonzero(keep)
            vecs = np.column_stack([vecs[rows], d_u[cols]])
            logs = cand[rows, cols]
        w = np.exp(logs)
        tail = max(0.0, 1.0 - math.fsum(w.tolist())) + ROUNDING_MARGIN
        edge = np.abs(vecs).max(initial=0) >= D
        if tail <= tol or edge:
            if tail > tol:
                raise InputError(f"the point table (|d| <= {D}) holds too little mass for tol {tol:g}: widen it")
            return vecs, w, tail
        tau -= step


def clamp_radius(log_point_at: Callable[[int], NDArray[np.float64]], k: int, tol: float = DEFAULT_TOL) -> int:
    """A table half-width ``D`` for :func:`clamp_offsets`: the smallest power of 2 (>= 8, at most 2^20) whose table
    leaves out less than ``tol / 1000`` of the noise's mass (``log_point_at(D)``: the point table on ``-D..D``)."""
    D = 8
    while True:
        outside = 1.0 - math.fsum(np.exp(log_point_at(D)).tolist())
        if outside < tol * 1e-3 or D >= 1 << 20:
            return D
        D *= 2


def clamped_errors(prior: ArrayLike, n: int, log_point: ArrayLike, tol: float = DEFAULT_TOL,
                   counts: ArrayLike | None = None) -> Bracket:
    """``E(c)`` of the sequential clamp with iid integer noise ``ln P(D = d) = log_point[d + D]`` for every c of
    R(n) (or of the rows ``counts`` of R(n) only: each row's sum is the same whatever the other rows), as a
    :class:`Bracket` (module docstring; docs/definitions.md §4, §9), without an |R(n)|^2 table."""
    a, n = _check(prior, n)
    k = a.size
    offs, w, tail = clamp_offsets(log_point, k, tol)
    R = candidates(n, k) if counts is None else np.asarray(counts, dtype=np.int64).reshape(-1, k)
    tables = _LossTables(a, n, R)
    full = np.column_stack([offs, -offs.sum(axis=1)])  # the last count moves by minus the others' sum
    # interior: no clamp acts for any offset of S.  With no clamp before i, the room left is
    # rem_i = c_i + ... + c_k - (d_1 + ... + d_{i-1}), so 0 <= c_i + d_i <= rem_i for every offset when
    # c_i >= max(-d_i) and c_(i+1) + ... + c_k >= max(d_1 + ... + d_i), for each i < k.
    low_need = np.max(-offs, axis=0)
    prefix_need = np.max(np.cumsum(offs, axis=1), axis=0)
    suffix = np.cumsum(R[:, ::-1], axis=1)[:, ::-1]  # suffix[:, i] = c_i + ... + c_k
    inside = np.all(R[:, : k - 1] >= low_need[None, :], axis=1) & np.all(suffix[:, 1:] >= prefix_need[None, :], axis=1)
    acc = np.zeros(len(R))
    acc[inside] = tables.translated(np.flatnonzero(inside), full, w)
    edge = np.flatnonzero(~inside)
    Re = R[edge]
    for d, wt in zip(offs, w):
        rem = np.full(len(edge), n, dtype=np.int64)
        m = []
        for i in range(k - 1):
            mi = np.clip(Re[:, i] + int(d[i]), 0, rem)
            rem = rem - mi
            m.append(mi)
        m.append(rem)
        acc[edge] += wt * tables.loss(m, edge)
    return Bracket(R, acc, float(tail), len(offs))


def clamped_work(n: int, k: int, log_point: ArrayLike, tol: float = DEFAULT_TOL, step: float = 1.0) -> int:
    """Loss evaluations of :func:`clamped_errors` (offsets times ``|R(n)|``; with ``step`` =
    :data:`FACTOR_STEP`, of :func:`clamped_errors_by_factors`), from public n, k and the noise law."""
    offs, _, _ = clamp_offsets(log_point, k, tol, step)
    return len(offs) * n_candidates(n, k)


# ---------------------------------------------------------------------------------------------
# the sequential clamp by Bhattacharyya factors (the route past the loss route's budget)


def factor_margin(k: int) -> float:
    """A bound on ``|H~ - H|`` for one loss of :func:`clamped_errors_by_factors`, plus the sums' rounding.

    ``BC = prod_i F_i`` with ``F_i = exp(J_i)`` evaluated in floats (relative error at most :data:`FACTOR_ULPS`
    each, products and the subtraction one rounding each, ``BC <= 1``), so ``|u~ - u| <= (k + 1) FACTOR_ULPS`` for
    ``u = 1 - BC``; ``|sqrt(u~) - sqrt(u)| <= sqrt(|u~ - u|)``; ``1e-9`` covers the rounding of the weighted sums
    (at most :data:`FACTOR_MAX_OFFSETS` terms of at most 1 each, ``2^-52`` each)."""
    return math.sqrt((k + 1) * FACTOR_ULPS) + 1e-9


def loss_seconds(k: int, work: float) -> float:
    """Estimated seconds of :func:`clamped_errors` for ``work`` loss evaluations (:func:`clamped_work`) at ``k``:
    at :data:`EVALUATIONS_PER_SECOND` at k = 3, from k = 4 at :data:`EVALUATIONS_PER_SECOND_ANY` plus
    :data:`LOSS_SETUP_SECONDS_ANY`."""
    if int(k) <= 3:
        return float(work) / EVALUATIONS_PER_SECOND
    return float(work) / EVALUATIONS_PER_SECOND_ANY + LOSS_SETUP_SECONDS_ANY


def factor_rate(k: int) -> float:
    """The measured rate of :func:`clamped_errors_by_factors` at ``k`` (loss evaluations per second), which its cost
    estimates divide by: :data:`FACTOR_K3_EVALUATIONS_PER_SECOND` at k = 3, :data:`FACTOR_EVALUATIONS_PER_SECOND`
    from k = 4."""
    return FACTOR_K3_EVALUATIONS_PER_SECOND if k == 3 else FACTOR_EVALUATIONS_PER_SECOND


def factor_tol(k: int, tol: float) -> float:
    """The mass :func:`clamped_errors_by_factors` may leave out so that its whole bracket (that mass plus twice
    :func:`factor_margin`) is at most ``tol``."""
    inner = tol - 2.0 * factor_margin(k)
    if inner <= 0:
        raise InputError(f"a bracket of {tol:g} is below the factor route's rounding margin")
    return inner


def _prefix_group_arrays(offs: NDArray[np.int64], w: NDArray[np.float64], k: int
                         ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """The offsets sorted by their first ``k - 1`` coordinates, their weights, and the bounds ``starts, stops`` of
    the groups sharing the first ``k - 2`` (a group's ``(k-1)``-th coordinate runs over an interval: a level set of
    a product of unimodal laws)."""
    order = np.lexsort(offs[:, : k - 1].T[::-1])
    offs, w = offs[order], w[order]
    keys = offs[:, : k - 2]
    new = np.r_[True, np.any(keys[1:] != keys[:-1], axis=1)]
    starts = np.flatnonzero(new)
    stops = np.r_[starts[1:], len(offs)]
    if np.any(np.diff(offs[:, k - 2])[~new[1:]] != 1):
        raise InputError("the offsets' last free coordinate must run over an interval per group")
    return offs, w, starts, stops


def _prefix_groups(offs: NDArray[np.int64], w: NDArray[np.float64], k: int) -> list[tuple]:
    """The offsets grouped by their first ``k - 2`` coordinates: ``(prefix, d_lo, d_hi, weights)`` with the
    ``(k-1)``-th coordinate running over ``d_lo..d_hi`` (:func:`_prefix_group_arrays`)."""
    offs, w, starts, stops = _prefix_group_arrays(offs, w, k)
    return [(offs[a, : k - 2].copy(), int(offs[a, k - 2]), int(offs[b - 1, k - 2]), w[a:b].copy())
            for a, b in zip(starts.tolist(), stops.tolist())]


def _hellinger_of_bc(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """``sqrt(max(1 - v, 0))`` in place (``v`` a Bhattacharyya coefficient in floats)."""
    np.subtract(1.0, v, out=v)
    np.fmax(v, 0.0, out=v)
    return np.sqrt(v, out=v)


def _factor_tables(a, n: int, k: int, rd: int, rb: int):
    """The factor route's tables: ``flat[i]``, the Bhattacharyya factors ``F_i(c, r)`` of coordinate i over
    ``(c, r)`` in ``0..n`` (flattened), and the bands ``A[x, d + rd] = F_(k-1)(x, x + d)``,
    ``B[y, j] = F_k(y, y - (j - rb))`` for ``j - rb = d - delta`` (with their transposes); 0 outside ``0..n`` (the entry
    lies in a clamped range: its H is 1 there, and the weights of those ranges are taken off again; every product
    stays in [0, 1], so 1 - BC needs no clamp)."""
    n1 = n + 1
    grid = HellingerGrid(a, n)
    all_c = np.arange(n1)
    flat = []
    for i in range(k):
        f = grid.rows(i, all_c)
        np.exp(f, out=f)
        flat.append(f.ravel())
    cols = np.arange(-rd, rd + 1)
    m = all_c[:, None] + cols[None, :]
    A = np.where((m >= 0) & (m <= n), flat[k - 2][all_c[:, None] * n1 + np.clip(m, 0, n)], 0.0)
    cols = np.arange(-rb, rb + 1)
    m = all_c[:, None] - cols[None, :]
    Bt = np.where((m >= 0) & (m <= n), flat[k - 1][all_c[:, None] * n1 + np.clip(m, 0, n)], 0.0)
    return flat, A, Bt, np.ascontiguousarray(A.T), np.ascontiguousarray(Bt.T)


class _BlockCoefficients:
    """A block's middle coefficients (rows ``(x, y)`` of :func:`_factor_tables`' bands), computed where they are read.

    ``PT[delta + rp, j, r] = A[x_r, j] B[y_r, j - rd - delta + rb]``, row r's coefficients at the shift delta a head
    clamp can give, stored by column of d (a group reads contiguous rows): :meth:`pt` returns the rows ``j0 .. j0 +
    W - 1`` of one shift, computing only those of that shift not computed before (a group's interval of d is
    narrower the farther its prefix is from 0, so most of the table is never read).  :meth:`rows`: the same
    coefficients row by row for single moved rows, ``PT[shift_r, j0 + i, r]`` for ``i < W``, gathered from the bands
    for those rows only.  Every entry is the same one product of two floats as a table computed in full, so the
    sums read from it are the same floats."""

    def __init__(self, A, AT, Bt, BtT, x, y, rp: int, rd: int, rb: int):
        self.A, self.Bt, self.x, self.y, self.rp, self.rd = A, Bt, x, y, rp, rd
        self.AxT, self.BtY = AT[:, x], BtT[:, y]
        self.base = rb - rd + rp  # PT[t, j] reads BtY[base - t + j]
        self.PT = np.empty((2 * rp + 1, 2 * rd + 1, len(x)))
        self.lo = [0] * (2 * rp + 1)  # per shift, the rows computed: lo .. hi - 1 (none while lo == hi)
        self.hi = [0] * (2 * rp + 1)

    def _fill(self, t: int, a: int, b: int) -> None:
        c = self.base - t
        np.multiply(self.AxT[a:b], self.BtY[c + a:c + b], out=self.PT[t, a:b])

    def pt(self, t: int, j0: int, W: int):
        """``PT[t, j0:j0 + W]`` (a view of the whole table's layout), its rows computed."""
        lo, hi, j1 = self.lo[t], self.hi[t], j0 + W
        if lo == hi:
            self._fill(t, j0, j1)
            self.lo[t], self.hi[t] = j0, j1
        elif j0 < lo or j1 > hi:
            if j0 < lo:
                self._fill(t, j0, lo)
                self.lo[t] = j0
            if j1 > hi:
                self._fill(t, hi, j1)
                self.hi[t] = j1
        return self.PT[t, j0:j1]

    def rows(self, r, shifts, j0: int, W: int):
        """``PT[shifts[i], j0:j0 + W, r[i]]`` as rows ``(len(r), W)``, a new array: one contiguous run of ``W`` entries
        of each band per row (a window view of ``Bt``, so the gather copies runs, not single entries)."""
        win = np.lib.stride_tricks.sliding_window_view(self.Bt, W, axis=1)
        out = self.A[self.x[r], j0:j0 + W]
        out *= win[self.y[r], 2 * self.rp - shifts + j0]
        return out


def _moved_runs(gm, rm, shift_m, groups: int):
    """The runs of a block's moved rows (group ``gm``, row ``rm``, shift ``shift_m``, in that order): a run is one
    group's consecutive rows at one shift.  Returns the mask of rows outside runs of :data:`FACTOR_RUN` or more, and
    per group its long runs as ``(first row, stop row, shift, index of the run's first entry)``."""
    cut = np.flatnonzero(np.diff(gm) | (np.diff(rm) != 1) | np.diff(shift_m)) + 1
    r_lo = np.r_[0, cut]
    r_hi = np.r_[cut, gm.size]
    long_run = np.flatnonzero(r_hi - r_lo >= FACTOR_RUN)
    short = np.ones(gm.size, dtype=bool)
    for u in long_run.tolist():
        short[r_lo[u]:r_hi[u]] = False
    runs_of = [[] for _ in range(groups)]
    for u in long_run.tolist():
        a0 = int(r_lo[u])
        runs_of[int(gm[a0])].append((int(rm[a0]), int(rm[a0]) + int(r_hi[u]) - a0, int(shift_m[a0]), a0))
    return short, runs_of


def clamped_errors_by_factors(prior: ArrayLike, n: int, log_point: ArrayLike, tol: float = DEFAULT_TOL,
                              block_entries: int = FACTOR_BLOCK_ENTRIES, counts: ArrayLike | None = None,
                              no_room: bool = False) -> Bracket:
    """``E(c)`` of the sequential clamp (as :func:`clamped_errors`: the same law, the same tables ``J_i``; its level
    sets step by :data:`FACTOR_STEP`) for every c of R(n), as a :class:`Bracket`, by Bhattacharyya factors instead
    of one ``expm1`` per loss (docs/lattice.md, "Errors at scale"; docs/definitions.md §4, §9).

    ``BC(c, m) = prod_i F_i(c_i, m_i)`` with ``F_i = exp(J_i)`` (tables of ``(n + 1)^2``).  The offsets are
    grouped by their first ``k - 2`` coordinates; per group and per data set the clamps of those coordinates give
    the head ``prod_{i <= k-2} F_i`` and the room ``rem`` left for the last two counts.  Over the group's interval
    of ``d = D_(k-1)``: where ``c_(k-1) + d < 0`` the output is ``(0, rem)``, where ``c_(k-1) + d > rem`` it is
    ``(rem, 0)`` (both constant in ``d``: one loss times the weights' partial sum), and in between it is
    ``(c_(k-1) + d, rem - c_(k-1) - d)``, read from two band tables: where no head clamp acts, one product of
    the bands per prefix sum, stored by column of ``d`` (a group reads contiguous rows of it); elsewhere a per-row
    shift (a run of rows at one shift as a slice of the same table, else one contiguous run per row of the products
    stored row by row).  The per-group arithmetic runs over batches of groups at once.  The bands hold 0 off the
    table, so over the whole interval every product is in ``[0, 1]`` (no clamp of ``1 - BC``) and the clamped
    ranges' entries give ``H = 1``, whose weights are taken off again.  Every loss is within :func:`factor_margin`
    of the loss route's, so
    ``low = max(sum - margin, 0)`` and ``tail = (mass left out) + 2 margin``: still ``low <= E <= low + tail``.
    Work ``|offsets| |R(n)|`` products (no ``expm1``), memory ``O(k (n + 1)^2 + block)``.  ``counts``: the rows of
    R(n) to compute (None: all; a row's sums do not depend on the other rows of its block, whose order only makes
    the slices longer or shorter).

    ``no_room``: a (row, group) pair where a head clamp acted and left no room (``rem = 0``) has one output
    ``(.., 0, 0)`` over the group's whole interval of ``d``, so its terms are one loss times the group's mass, taken
    so instead of its band products and its clamped ranges: the same real sum, other floats (the same terms
    regrouped; the weighted sums' rounding, of at most :data:`FACTOR_MAX_OFFSETS` terms of at most 1 each, is what
    the ``1e-9`` of :func:`factor_margin` covers in any order), so the bracket holds as stated.  False (the
    default): the floats of :func:`clamped_errors_by_factors_shared`, bit for bit.
    """
    a, n = _check(prior, n)
    k = a.size
    offs, w, tail = clamp_offsets(log_point, k, tol, FACTOR_STEP)
    if len(offs) > FACTOR_MAX_OFFSETS:
        raise InputError(f"the factor route takes at most {FACTOR_MAX_OFFSETS:.0e} noise offsets (its rounding margin), "
                         f"got {len(offs):.2e}: use a wider bracket")
    R = candidates(n, k) if counts is None else np.asarray(counts, dtype=np.int64).reshape(-1, k)
    margin = factor_margin(k)
    offs, w, starts, stops = _prefix_group_arrays(offs, w, k)
    # the groups in order of the prefix's sum s (stable: within one s, the prefixes' lexicographic order)
    order = np.argsort(-offs[starts, : k - 2].sum(axis=1), kind="stable")
    starts, stops = starts[order], stops[order]
    G = len(starts)
    P = offs[starts, : k - 2].astype(np.int32)  # (G, k - 2) prefixes
    S = -P.sum(axis=1)
    D_LO = offs[starts, k - 2].astype(np.int32)
    WID = (stops - starts).astype(np.int32)
    S_, WID_, D_LO_ = S.tolist(), WID.tolist(), D_LO.tolist()
    wgs = [w[a:b] for a, b in zip(starts.tolist(), stops.tolist())]
    # the weights' partial sums of every group, concatenated: group g's are CW[CB[g] : CB[g] + WID[g] + 1]
    cws = [np.r_[0.0, np.cumsum(w[a:b])] for a, b in zip(starts.tolist(), stops.tolist())]
    CB = np.r_[0, np.cumsum([c.size for c in cws])[:-1]].astype(np.int64)
    CW = np.concatenate(cws)
    TOT = CW[CB + WID]
    rd = int(np.abs(offs[:, k - 2]).max(initial=0))  # reach of the inner coordinate
    rp = int(np.abs(offs[:, : k - 2]).sum(axis=1).max(initial=0))  # reach of the shift a head clamp can cause
    rb = rd + rp
    n1 = n + 1
    width = int(WID.max())
    shifts = (2 * rp + 1) * (2 * rd + 1)  # entries of one row's coefficients at every shift
    step = max(1, min(block_entries // width, FACTOR_SHIFT_ENTRIES // shifts))
    chunk = max(1, FACTOR_GROUP_ENTRIES // step)  # groups whose per-row arithmetic runs as one array
    check_size(k * n1 * n1 + 4 * n1 * (2 * rb + 1) + shifts * step + 8 * block_entries + 16 * chunk * step, 8,
               f"the Bhattacharyya factor tables for k={k}, n={n}")
    flat, A, Bt, AT, BtT = _factor_tables(a, n, k, rd, rb)
    Fx, Fy = flat[k - 2], flat[k - 1]
    acc = np.zeros(len(R))
    buf = np.empty(width * step)
    for lo in range(0, len(R), step):
        cb = R[lo:lo + step].astype(np.int32)  # int32 indices: the per-row arithmetic below is much of the cost
        B = len(cb)
        x, y = cb[:, k - 2], cb[:, k - 1]
        xb, yb = x * n1, y * n1
        co = _BlockCoefficients(A, AT, Bt, BtT, x, y, rp, rd, rb)
        out = np.zeros(B)
        cols_b = [cb[:, i].copy() for i in range(k - 2)]
        base_b = [c * n1 for c in cols_b]
        neg_x, y1, x_y = -x, y + 1, x + y
        Fx0, Fy0 = Fx[xb], Fy[yb]
        for g0 in range(0, G, chunk):
            g1 = min(G, g0 + chunk)
            # every group of the chunk against every row at once, (groups, rows): the head clamps, in order
            mi = cols_b[0][None, :] + P[g0:g1, 0, None]
            np.maximum(mi, 0, out=mi)
            np.minimum(mi, n, out=mi)
            rem = n - mi
            mi += base_b[0][None, :]
            head = flat[0].take(mi)
            for i in range(1, k - 2):
                mi = cols_b[i][None, :] + P[g0:g1, i, None]
                np.maximum(mi, 0, out=mi)
                np.minimum(mi, rem, out=mi)
                rem -= mi
                mi += base_b[i][None, :]
                head *= flat[i].take(mi)
            delta = rem - x_y[None, :]  # -(sum of the prefix) = S where no head clamp acts
            head, rem, delta = head.ravel(), rem.ravel(), delta.ravel()
            # the clamped ranges of d: constant outputs (0, rem) for the first n_low values of d (where x + d_lo < 0),
            # (rem, 0) from hi_from on (where x + d_hi > rem); one loss per pair times the weights' partial sum.  Their
            # entries in the band products below are 0 (H = 1), so each adds weight (H - 1).  Dense over (groups,
            # rows): a pair outside a clamped range reads the partial sum 0 (n_low = 0) or TOT - TOT = 0 (hi_from =
            # WID), so it adds +-0.0 to its row (its loss is finite: v in [0, 1]); the sums over the groups run in
            # group order, as a scatter of the clamped pairs alone would add them.
            g_lo, g_hi = D_LO[g0:g1, None], WID[g0:g1, None]
            cb0 = CB[g0:g1, None]
            rem2, delta2 = rem.reshape(g1 - g0, B), delta.reshape(g1 - g0, B)
            head2 = head.reshape(g1 - g0, B)
            still = delta2 == S[g0:g1, None]
            # a moved pair with no room left (rem = 0) has the one output (.., 0, 0) over its whole interval: one
            # loss times the group's mass, in place of its band products and its clamped ranges
            full = (rem2 == 0) & ~still if no_room else np.zeros_like(still)
            n_low = neg_x[None, :] - g_lo
            np.clip(n_low, 0, g_hi, out=n_low)
            np.copyto(n_low, 0, where=full)
            if n_low.any():
                v = head2 * Fx0[None, :]
                v *= Fy.take(yb[None, :] + rem2)
                h = _hellinger_of_bc(v)
                h -= 1.0
                h *= CW.take(cb0 + n_low)
                out += np.add.reduce(h, axis=0)
            hi_from = delta2 + y1[None, :] - g_lo
            np.clip(hi_from, 0, g_hi, out=hi_from)
            np.copyto(hi_from, g_hi, where=full)
            if (hi_from < g_hi).any():
                v = head2 * Fy0[None, :]
                v *= Fx.take(xb[None, :] + rem2)
                h = _hellinger_of_bc(v)
                h -= 1.0
                h *= TOT[g0:g1, None] - CW.take(cb0 + hi_from)
                out += np.add.reduce(h, axis=0)
            gf, rf = np.nonzero(full)
            if rf.size:
                v = head2[gf, rf] * Fx0[rf]
                v *= Fy0[rf]
                out += np.bincount(rf, TOT[g0 + gf] * _hellinger_of_bc(v), minlength=B)
            # between them: F_(k-1)(x, x + d) F_k(y, y + delta - d) over the whole interval, the clamped entries 0;
            # where no head clamp acts (delta = S) a slice of PT, else (a moved pair) a run of PR at its own shift
            gm, rm = np.nonzero(~still)
            moved = gm * B + rm
            n_moved = np.bincount(gm, minlength=g1 - g0).tolist()
            head_m, shift_m = head[moved], delta[moved] + rp
            # a group's unmoved rows lie in one range (the rows are in lexicographic order: within a block of one
            # first count, a head clamp moves a run of rows at either end); its moved rows inside that range are
            # read in the slice of PT too, with head 0 (H = 1 throughout): their cw[W] is taken off
            first = still.argmax(axis=1)
            stop = B - still[:, ::-1].argmax(axis=1)
            head[moved] = 0.0
            inner = (rm >= first[gm]) & (rm < stop[gm]) & (np.asarray(n_moved)[gm] < B)
            out -= np.bincount(rm[inner], TOT[g0 + gm[inner]], minlength=B)
            first, stop = first.tolist(), stop.tolist()
            keep = ~full[gm, rm]  # the moved pairs with room left: their band products at their own shift
            gm, rm, head_m, shift_m = gm[keep], rm[keep], head_m[keep], shift_m[keep]
            # runs of a group's moved rows at one shift (a head clamp of the first count moves every row of a
            # first count by the same shift): a long run reads a slice of PT, the rest one run of PR each
            short, runs_of = _moved_runs(gm, rm, shift_m, g1 - g0)
            n_short = np.bincount(gm[short], minlength=g1 - g0).tolist()
            s_ends = np.cumsum(n_short).tolist()
            rm_s, shift_s, head_s = rm[short], shift_m[short], head_m[short]
            head = head.reshape(g1 - g0, B)
            for t in range(g1 - g0):
                g = g0 + t
                s, W, j0, wg, nm = S_[g] + rp, WID_[g], D_LO_[g] + rd, wgs[g], n_moved[t]
                if nm < B:
                    a, b = first[t], stop[t]
                    blk = buf[:W * (b - a)].reshape(W, b - a)
                    np.multiply(co.pt(s, j0, W)[:, a:b], head[t, a:b][None, :], out=blk)
                    np.subtract(1.0, blk, out=blk)
                    out[a:b] += wg @ np.sqrt(blk, out=blk)
                for a, b, sh, at in runs_of[t]:
                    blk = buf[:W * (b - a)].reshape(W, b - a)
                    np.multiply(co.pt(sh, j0, W)[:, a:b], head_m[at:at + b - a][None, :], out=blk)
                    np.subtract(1.0, blk, out=blk)
                    out[a:b] += wg @ np.sqrt(blk, out=blk)
                nm = n_short[t]
                if nm:
                    e = s_ends[t]
                    oi = rm_s[e - nm:e]
                    blk = co.rows(oi, shift_s[e - nm:e], j0, W)
                    blk *= head_s[e - nm:e][:, None]
                    np.subtract(1.0, blk, out=blk)
                    out[oi] += np.sqrt(blk, out=blk) @ wg
        acc[lo:lo + step] = out
    low = np.maximum(acc - margin, 0.0)
    return Bracket(R, low, float(tail) + 2.0 * margin, len(offs))


# ---------------------------------------------------------------------------------------------
# the sequential clamp by orbits of the first k - 1 counts (a prior symmetric in them)


def orbit_symmetric(prior: ArrayLike) -> bool:
    """Whether :func:`clamped_errors_by_orbits` applies: k >= 3 and ``a_1 = ... = a_(k-1)`` (the same floats; the
    last pseudo-count may differ).  A public input only."""
    a = np.asarray(prior, dtype=np.float64).reshape(-1)
    return a.size >= 3 and bool(np.all(a[: a.size - 1] == a[0]))


def orbit_tol(k: int, tol: float, route: str) -> float:
    """The mass :func:`clamped_errors_by_orbits` may leave out so that its whole bracket (that mass, twice the base
    route's :func:`factor_margin` for ``route = "factors"``, and four :data:`ORBIT_MARGIN`) is at most ``tol``."""
    inner = (factor_tol(k, tol) if route == "factors" else tol) - 4.0 * ORBIT_MARGIN
    if inner <= 0:
        raise InputError(f"a bracket of {tol:g} is below the orbit route's rounding margin")
    return inner


def _orbit_layout(n: int, k: int, offs: NDArray[np.int64], w: NDArray[np.float64]) -> list[tuple]:
    """Per cap position ``m`` (0-based, ``m < k - 1``) and per prefix ``p = (D_1..D_m)`` of the offsets: ``(m, p,
    d values of D_(m+1) ascending, the weights' suffix sums W(D_(m+1) >= d) (one more entry, 0), bound)``, the
    weights summed over the rest of each offset; ``bound = sum_j max(p_j, 0) + max d``: only data sets whose tail
    ``c_(m+2) + ... + c_k`` (:func:`cap_tail`) is below ``bound`` can have the cap act at ``m`` for this prefix
    (:func:`clamp_cap_sums`).

    Proof.  The cap acts at ``m`` iff ``S_m <= n`` and ``c_(m+1) + D_(m+1) > n - S_m`` (:func:`clamp_cap_sums`), so
    it needs ``max d > n - S_m - c_(m+1)``.  With ``c_1 + ... + c_k = n``, ``n - S_m - c_(m+1) = tail + sum_(j<=m)
    (c_j - x_j)``, and ``c_j - x_j = c_j - max(c_j + p_j, 0) = min(-p_j, c_j) >= min(-p_j, 0) = -max(p_j, 0)``
    (``c_j >= 0``).  So it needs ``tail - sum_j max(p_j, 0) < max d``, i.e. ``tail < bound``.  It cannot be
    lowered in general: at ``p_j >= 0`` for every j the inequality is an equality, so a data set with ``tail =
    bound - 1`` and ``S_m <= n`` has the cap act with ``D_(m+1) = max d``.  At ``m = k - 2`` the tail is ``c_k``;
    at smaller ``m`` it is ``c_k`` plus more counts, so fewer data sets pass (Dir(1,1,1,1), n = 100, eps 0.5, the
    factor route's offsets: 4.2e6 (data set, prefix) pairs at ``m = 1`` against 9.9e6 with ``c_k < bound``)."""
    out = []
    for m in range(k - 1):
        keys, inv = np.unique(offs[:, : m + 1], axis=0, return_inverse=True)
        wk = np.bincount(inv.reshape(-1), weights=w, minlength=len(keys))
        new = np.r_[True, np.any(keys[1:, :m] != keys[:-1, :m], axis=1)] if m else np.r_[True, np.zeros(len(keys) - 1, bool)]
        starts = np.flatnonzero(new)
        stops = np.r_[starts[1:], len(keys)]
        for s0, s1 in zip(starts.tolist(), stops.tolist()):
            p = keys[s0, :m].astype(np.int64)
            d = keys[s0:s1, m].astype(np.int64)
            if np.any(np.diff(d) != 1):  # a level set of a product of unimodal laws: an interval per prefix
                raise InputError("the offsets' next coordinate must run over an interval per prefix")
            suf = np.r_[np.cumsum(wk[s0:s1][::-1])[::-1], 0.0]
            out.append((m, p, d, suf, int(np.maximum(p, 0).sum()) + int(d[-1])))
    return out


def cap_tail(counts: NDArray[np.int64], m: int) -> NDArray[np.int64]:
    """``c_(m+2) + ... + c_k`` of each row: what :func:`_orbit_layout`'s bound at cap position ``m`` is against."""
    return np.asarray(counts, dtype=np.int64)[:, m + 1:].sum(axis=1)


def clamp_cap_sums(prior: ArrayLike, n: int, offs: NDArray[np.int64], w: NDArray[np.float64],
                   counts: NDArray[np.int64], layout: list[tuple] | None = None) -> NDArray[np.float64]:
    """``E_cap(c) = sum_{w in S, cap acts} K(w) L(c, B(c, w))`` for the rows ``counts`` of R(n): the part of the
    sequential clamp's truncated sum where the upper clamp acts (:func:`clamped_errors_by_orbits`).

    With ``x_j = max(c_j + D_j, 0)`` and ``S_m = x_1 + ... + x_m``, no clamp from above acts before coordinate
    ``m + 1`` iff ``S_m <= n`` (the ``x_j`` are >= 0, so the partial sums only grow); it acts there iff
    ``c_(m+1) + D_(m+1) > n - S_m``, and then the output is ``(x_1, .., x_m, n - S_m, 0, .., 0)``: it depends on the
    prefix ``(D_1..D_m)`` alone, so the offsets sharing a prefix are one term, weighted by the mass of those with
    ``D_(m+1) > n - S_m - c_(m+1)`` (a suffix sum of :func:`_orbit_layout`).  Each loss is the loss route's float
    (:class:`_LossTables`, the coordinates summed in the same order).  ``layout``: :func:`_orbit_layout` of
    ``offs``, ``w`` if the caller has it.

    Which data sets a prefix visits: the cap can act at ``m`` only where the tail ``c_(m+2) + ... + c_k`` is below
    the prefix's bound (:func:`_orbit_layout`, with the proof), so the rows are sorted by that tail once per ``m`` and each
    prefix reads a leading slice of contiguous columns (no gathers of rows, no scatter: the sums are kept in that
    order and put back once per ``m``).  A visited data set where the cap does not act (``S_m > n`` or no mass
    above ``n - S_m - c_(m+1)``) adds ``0 * L`` with a finite ``L`` (its table indices, off the table only where
    ``S_m > n``, are clipped into it): ``acc + 0.0`` is ``acc``, so every sum is the
    same float as the one-prefix-at-a-time pass over the kept rows (the same terms, in the layout's order)."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    R = np.asarray(counts, dtype=np.int64).reshape(-1, k)
    tables = _LossTables(a, n, R).tables
    n1 = n + 1
    layout = _orbit_layout(n, k, offs, w) if layout is None else layout
    acc = np.zeros(len(R))
    for m in range(k - 1):
        mine = [entry for entry in layout if entry[0] == m]
        if not mine:
            continue
        tail = cap_tail(R, m)
        order = np.argsort(tail, kind="stable")
        tail = tail[order]
        cut_all = int(np.searchsorted(tail, max(e[4] for e in mine), side="left"))
        if cut_all == 0:
            continue
        order = order[:cut_all]
        cs = [R[order, j] for j in range(k)]
        base = [cs[j] * n1 for j in range(m)]
        cap_at = cs[m] * n1 + n  # J_(m+1)(c_(m+1), n - S_m) read at cap_at - S_m
        room = n - cs[m]  # t = n - S_m - c_(m+1) = room - S_m
        zero = [tables[j][cs[j] * n1] for j in range(m + 1, k)]  # J_j(c_j, 0)
        acc_s = acc[order]
        # the prefixes sharing their first m - 1 coordinates are consecutive (the layout is in lexicographic order):
        # the terms of those coordinates (x_j and J_j(c_j, x_j), j < m - 1) are computed once per run of them, over
        # the run's longest slice, and each prefix reads its leading part (the same floats, added in the same order)
        cuts = np.searchsorted(tail, [e[4] for e in mine], side="left")
        keys = [tuple(e[1][: max(m - 1, 0)].tolist()) for e in mine]
        run_cut = {}
        for key, cut in zip(keys, cuts.tolist()):
            run_cut[key] = max(run_cut.get(key, 0), cut)
        head_key, head_out, head_s = None, None, None
        tmp_all, x_all = np.empty(cut_all), np.empty(cut_all, dtype=np.int64)
        for (_, p, d, suf, _), cut, key in zip(mine, cuts.tolist(), keys):
            if cut == 0:
                continue
            # S_m <= sum_(j<=m) (c_j + max(p_j, 0)) = n - c_(m+1) - tail + sum_j max(p_j, 0): S_m > n (an index past
            # the tables, the clamp from above acting before m + 1) only in the leading rows with tail < that sum.
            # Every table read clips its index into the table (take's mode "clip"): a no-op where S_m <= n (each
            # index is then inside), and where S_m > n a finite loss, weighted 0 below
            over = int(np.searchsorted(tail, int(np.maximum(p, 0).sum()), side="left")) if m else 0
            if m >= 2 and key != head_key:
                head_key, hc = key, run_cut[key]
                head_out, head_s = np.zeros(hc), np.zeros(hc, dtype=np.int64)
                for j in range(m - 1):
                    x = np.add(cs[j][:hc], int(p[j]))
                    np.maximum(x, 0, out=x)  # x_j (past n only where S_m > n)
                    if j == 0:
                        head_s[:] = x
                    else:
                        head_s += x
                    x += base[j][:hc]
                    if j == 0:
                        np.take(tables[j], x, out=head_out, mode="clip")
                    else:
                        head_out += np.take(tables[j], x, mode="clip")
            x, tmp = x_all[:cut], tmp_all[:cut]
            if m == 0:
                s = 0
                out = np.take(tables[0], cap_at[:cut], mode="clip")
            else:
                j = m - 1
                np.add(cs[j][:cut], int(p[j]), out=x)
                np.maximum(x, 0, out=x)  # x_j
                s = x + head_s[:cut] if m >= 2 else x.copy()
                x += base[j][:cut]
                if m >= 2:
                    out = head_out[:cut] + np.take(tables[j], x, out=tmp, mode="clip")
                else:
                    out = np.take(tables[j], x, mode="clip")
                np.subtract(cap_at[:cut], s, out=x)
                out += np.take(tables[m], x, out=tmp, mode="clip")
            for z in zero:
                out += z[:cut]
            np.subtract(room[:cut], s, out=x)  # t
            x += 1 - int(d[0])
            mass = np.take(suf, x, mode="clip")  # W(D_(m+1) > t): d runs over an interval; t clipped to 0 .. d.size
            if over:
                mass[:over] *= s[:over] <= n  # 0 where the clamp from above acted before coordinate m + 1
            np.minimum(out, 0.0, out=out)
            np.expm1(out, out=out)
            np.negative(out, out=out)
            np.sqrt(out, out=out)
            out *= mass
            acc_s[:cut] += out
        acc[order] = acc_s
    return acc



def orbit_cap_work(n: int, k: int, log_point: ArrayLike, tol: float, step: float) -> tuple[int, int]:
    """``(visits, prefixes)`` of :func:`clamp_cap_sums` over R(n): the (prefix, data set) pairs it visits (exactly: the
    data sets whose tail ``c_(m+2) + ... + c_k`` is below each prefix's bound, :func:`_orbit_layout`) and its prefixes
    (one vectorised pass each), from public n, k and the noise law.  The data sets of R(n) with tail ``T`` at cap
    position ``m``: ``C(n - T + m, m)`` heads (``m + 1`` counts summing to ``n - T``) times ``C(T + k - m - 2,
    k - m - 2)`` tails.  Kept for the last few public inputs (a plan asks once per row of one release)."""
    return _orbit_cap_work(int(n), int(k), _table_key(log_point), float(tol), float(step))


def offsets_count(log_point: ArrayLike, k: int, tol: float, step: float) -> int:
    """``len(clamp_offsets(log_point, k, tol, step)[0])``, kept for the last few public inputs (a plan asks for it
    once per bracket tried and once per row of one release)."""
    return _offsets_count(_table_key(log_point), int(k), float(tol), float(step))


def _table_key(log_point: ArrayLike) -> bytes:
    return np.ascontiguousarray(log_point, dtype=np.float64).reshape(-1).tobytes()


@functools.lru_cache(maxsize=16)
def _offsets_count(log_point: bytes, k: int, tol: float, step: float) -> int:
    return len(clamp_offsets(np.frombuffer(log_point, dtype=np.float64), k, tol, step)[0])


@functools.lru_cache(maxsize=8)
def _orbit_cap_work(n: int, k: int, log_point: bytes, tol: float, step: float) -> tuple[int, int]:
    offs, w, _ = clamp_offsets(np.frombuffer(log_point, dtype=np.float64), k, tol, step)
    below = []
    for m in range(k - 1):
        per = [math.comb(n - t + m, m) * math.comb(t + k - m - 2, k - m - 2) for t in range(n + 1)]
        below.append(np.r_[0.0, np.cumsum(np.array(per, dtype=np.float64))])  # below[m][b]: tail < b
    layout = _orbit_layout(n, k, offs, w)
    return int(sum(below[m][min(max(b, 0), n + 1)] for m, *_, b in layout)), len(layout)


def orbit_moved_pairs(n: int, k: int, log_point: ArrayLike, tol: float, step: float) -> int:
    """The (data set, group) pairs of :func:`clamped_errors_by_factors` over the orbits' representatives
    (:func:`orbit_rows`) where a head clamp acts: the group's prefix ``(p_1..p_(k-2))`` (:func:`_prefix_groups` of the
    offsets) leaves a room ``n - x_1 - ... - x_(k-2)``, ``x_i = clamp(c_i + p_i, 0, n - x_1 - ... - x_(i-1))``, other
    than ``n - sum_i (c_i + p_i)`` (the route's moved pairs).  Those pairs take the route's per-row paths (a shift of
    their own, a run or a row of the coefficients, the clamped ranges), dearer per product than a slice; the count
    depends on the first ``k - 2`` counts only, so it is taken over their distinct values with multiplicity.  From
    public n, k and the noise law; kept for the last few of them."""
    return _orbit_moved_pairs(int(n), int(k), _table_key(log_point), float(tol), float(step))


@functools.lru_cache(maxsize=8)
def _orbit_moved_pairs(n: int, k: int, log_point: bytes, tol: float, step: float) -> int:
    offs, _, _ = clamp_offsets(np.frombuffer(log_point, dtype=np.float64), k, tol, step)
    prefixes = np.unique(offs[:, : k - 2], axis=0)
    R = candidates(n, k)
    heads, mult = np.unique(R[np.all(np.diff(R[:, : k - 1], axis=1) <= 0, axis=1), : k - 2], axis=0,
                            return_counts=True)
    moved = 0
    chunk = max(1, 2**19 // max(1, len(heads)))  # (prefixes, heads) arrays of at most 4 MB each
    for g0 in range(0, len(prefixes), chunk):
        p = prefixes[g0:g0 + chunk, None, :]
        rem = np.full((p.shape[0], len(heads)), n, dtype=np.int64)
        for i in range(k - 2):
            rem -= np.clip(heads[None, :, i] + p[:, :, i], 0, rem)
        free = n - heads.sum(axis=1)[None, :] - p.sum(axis=2)  # the room left where no head clamp acts
        moved += int(((rem != free) * mult[None, :]).sum())
    return moved


def orbit_rows(n: int, k: int) -> int:
    """Data sets of R(n) whose first ``k - 1`` counts are sorted (the orbits' representatives)."""
    R = candidates(n, k)
    return int(np.all(np.diff(R[:, : k - 1], axis=1) <= 0, axis=1).sum())


def clamped_errors_by_orbits(prior: ArrayLike, n: int, log_point: ArrayLike, tol: float = DEFAULT_TOL,
                             route: str = "factors") -> Bracket:
    """``E(c)`` of the sequential clamp for every c of R(n) (as :func:`clamped_errors` for ``route = "loss"``, as
    :func:`clamped_errors_by_factors` for ``"factors"``: the same offsets ``S``), computed at the data sets whose
    first ``k - 1`` counts are sorted and at the data sets near the clamp from above, at a prior with
    ``a_1 = ... = a_(k-1)`` (:func:`orbit_symmetric`; docs/lattice.md, "Errors at scale").

    Proof.  Write ``E_S(c) = E_free(c) + E_cap(c)``, ``E_cap`` the terms of ``S`` where the clamp from above acts
    (:func:`clamp_cap_sums`: iff ``sum_(j<k) max(c_j + D_j, 0) > n``).  Where it does not act the output is
    ``B(c, w) = (x_1, .., x_(k-1), n - sum x)`` with ``x_j = max(c_j + D_j, 0)``: coordinate by coordinate.  Let
    ``s`` permute the first ``k - 1`` coordinates.  Then (i) the condition ``sum_j max(c_j + D_j, 0) > n`` is the
    same at ``(s c, s w)`` as at ``(c, w)`` (a sum over j); (ii) ``B(s c, s w) = s B(c, w)`` where it does not act;
    (iii) ``K(s w) = K(w)`` (iid ``D_j``) and ``s S = S`` (a level set of ``sum_j ln P(D_j)``); (iv)
    ``L(s c, s r) = L(c, r)`` (``ln BC = sum_i J_i(c_i, r_i)``, ``J_i`` depending on ``a_i`` only, and
    ``a_(s i) = a_i``).  So ``E_free(s c) = sum_w K(s w) L(s c, B(s c, s w)) [no cap] = E_free(c)``.  The clamp from
    above does not commute with ``s`` (the first coordinate to reach the room takes it: ``E_cap`` is not symmetric),
    and no permutation moving coordinate k is a symmetry (``D_k = -(D_1 + ... + D_(k-1))`` has another law).  With
    ``u`` = c with its first k - 1 counts sorted: ``E_S(c) = E_S(u) - E_cap(u) + E_cap(c)``, and ``E_cap = 0`` where
    ``c_k >= max_p bound_p`` (:func:`_orbit_layout`).

    Bracket.  The base route at the representatives gives ``low_u <= E_S(u) <= low_u + 2 f`` (``f`` its
    :func:`factor_margin`, 0 for the loss route, whose losses are the reference floats); each cap sum is within
    :data:`ORBIT_MARGIN` of its exact value (the reference losses, at most ``|S|`` terms and weight sums of at most 1,
    2^-52 each, and the two additions).  So ``low = max(low_u - cap_u + cap_c - 2 ORBIT_MARGIN, 0)`` (``low_u`` where
    both caps are 0) and ``tail = (base tail) + 4 ORBIT_MARGIN``: still ``low <= E(c) <= low + tail``.
    Work: the base route over the representatives (about ``|R(n)| / (k - 1)!``) plus :func:`orbit_cap_work` losses.
    """
    a, n = _check(prior, n)
    k = a.size
    if not orbit_symmetric(a):
        raise InputError("the orbit route needs k >= 3 and a prior with a_1 = ... = a_(k-1)")
    if route not in ("factors", "loss"):
        raise InputError(f"unknown base route {route!r}")
    R = candidates(n, k)
    head = R[:, : k - 1]
    reps = np.all(np.diff(head, axis=1) <= 0, axis=1)  # decreasing: the head clamps of the factor route act rarely
    if route == "factors":
        # the representatives by their second count first: a lower clamp of that count moves every row with the
        # same second count by the same shift, so those rows are read as one run (the rows' order changes only
        # which slices the route reads, each row's sum being its own)
        U = R[reps]
        by = np.lexsort((U[:, 2], U[:, 0], U[:, 1])) if k >= 4 else np.arange(len(U))
        base = clamped_errors_by_factors(a, n, log_point, tol, counts=U[by], no_room=True)
        low_u = np.empty_like(base.low)
        low_u[by] = base.low
        base = Bracket(U, low_u, base.tail, base.offsets)
        offs, w, _ = clamp_offsets(log_point, k, tol, FACTOR_STEP)
    else:
        base = clamped_errors(a, n, log_point, tol, counts=R[reps])
        offs, w, _ = clamp_offsets(log_point, k, tol)
    u = R.copy()
    u[:, : k - 1] = -np.sort(-head, axis=1)
    at = (np.cumsum(reps) - 1)[candidate_rank(u)]  # each c's representative, as a row of base
    low = base.low[at]
    layout = _orbit_layout(n, k, offs, w)
    near = np.flatnonzero(R[:, k - 1] < max(b for *_, b in layout))
    if near.size:
        cap = clamp_cap_sums(a, n, offs, w, R[near], layout)
        cap_of = np.zeros(len(R))
        cap_of[near] = cap
        cap_u = cap_of[np.flatnonzero(reps)][at[near]]
        moved = (cap != 0) | (cap_u != 0)
        sel = near[moved]
        low[sel] = np.maximum(low[sel] - cap_u[moved] + cap[moved] - 2.0 * ORBIT_MARGIN, 0.0)
    return Bracket(R, low, float(base.tail) + 4.0 * ORBIT_MARGIN, base.offsets)


# ---------------------------------------------------------------------------------------------
# the lattice release and a deterministic remap


@dataclass(frozen=True)
class WindowRemap:
    """A deterministic remap given as a table on ``window(n, k, W)`` (:func:`.noise.window`, lexicographic):
    ``index[j]`` is the rank in R(n) (``candidates`` order) of the output of window point ``j``; outside the
    window the rule is :func:`project` (docs/lattice.md)."""

    n: int
    W: int
    index: NDArray[np.int64]

    def __call__(self, z: NDArray[np.int64]) -> NDArray[np.int64]:
        """The outputs ``T(z)`` of lattice points ``z`` (rows, each summing to n)."""
        z = np.asarray(z, dtype=np.int64)
        R = candidates(self.n, z.shape[1])
        out = np.empty_like(z)
        inside = np.all(z >= -self.W, axis=1)
        out[inside] = R[self.index[candidate_rank(z[inside] + self.W)]]
        if (~inside).any():
            out[~inside] = project(z[~inside], self.n)
        return out


def lattice_offsets(k: int, epsilon: float, tol: float = DEFAULT_TOL
                    ) -> tuple[NDArray[np.int64], NDArray[np.float64], float]:
    """The lattice noise offsets ``d(w) <= W`` with ``W = radius_for(k, eps, tol)``, their masses
    ``e^(-eps d(w)) / Z`` and ``tail = tail_bound(k, eps, W)`` (:mod:`.noise`; docs/lattice.md)."""
    k = _validate.integer(k, "k", 2, 64)
    eps = _validate.epsilon(epsilon)
    W = radius_for(k, eps, tol)
    check_size(math.comb(k * W + k - 1, k - 1), 8 * k, f"the lattice offsets for k={k}, W={W}")
    box = candidates(k * W, k) - W  # every w with sum 0 and w_i >= -W
    dist = np.abs(box).sum(axis=1) // 2
    offs = box[dist <= W]
    w = np.exp(-eps * dist[dist <= W] - log_normaliser(k, eps))
    return offs, w, tail_bound(k, eps, W)


def lattice_errors(prior: ArrayLike, n: int, epsilon: float,
                   rule: Callable[[NDArray[np.int64]], NDArray[np.int64]] | None = None,
                   tol: float = DEFAULT_TOL) -> Bracket:
    """``E(c)`` of the lattice release ``z = c + w`` followed by the deterministic remap ``rule`` (None:
    :func:`project`; a :class:`WindowRemap`; any vectorised ``z -> r``) for every c of R(n), as a
    :class:`Bracket` (module docstring; docs/lattice.md), without an |R(n)|^2 table."""
    a, n = _check(prior, n)
    k = a.size
    offs, w, tail = lattice_offsets(k, epsilon, tol)
    R = candidates(n, k)
    tables = _LossTables(a, n, R)
    acc = np.zeros(len(R))
    for off, wt in zip(offs, w):
        z = R + off[None, :]
        if rule is None:  # project moves only the points with a negative coordinate
            neg = np.flatnonzero((z < 0).any(axis=1))
            if neg.size:
                z[neg] = project(z[neg], n)
            r = z
        else:
            r = np.asarray(rule(z), dtype=np.int64)
            if r.shape != z.shape or np.any(r < 0) or np.any(r.sum(axis=1) != n):
                raise InputError("a remap must map lattice points with sum n to R(n), row for row")
        acc += wt * tables.loss([r[:, i] for i in range(k)])
    return Bracket(R, acc, float(tail), len(offs))


def lattice_work(n: int, k: int, epsilon: float, tol: float = DEFAULT_TOL) -> int:
    """Loss evaluations of :func:`lattice_errors` (offsets times ``|R(n)|``), from public n, k and eps."""
    offs, _, _ = lattice_offsets(k, epsilon, tol)
    return len(offs) * n_candidates(n, k)


# ---------------------------------------------------------------------------------------------
# several sequential clamps in one pass (the same boundary rule, several noise laws)


def _factor_layout(k: int, log_point: ArrayLike, tol: float) -> dict:
    """The offsets of :func:`clamped_errors_by_factors` for one noise law, grouped and ordered as it orders them
    (by the prefix's sum, then lexicographically), with its block sizes ``step`` and ``chunk``."""
    offs, w, tail = clamp_offsets(log_point, k, tol, FACTOR_STEP)
    if len(offs) > FACTOR_MAX_OFFSETS:
        raise InputError(f"the factor route takes at most {FACTOR_MAX_OFFSETS:.0e} noise offsets (its rounding margin), "
                         f"got {len(offs):.2e}: use a wider bracket")
    offs, w, starts, stops = _prefix_group_arrays(offs, w, k)
    order = np.argsort(-offs[starts, : k - 2].sum(axis=1), kind="stable")
    starts, stops = starts[order], stops[order]
    rd = int(np.abs(offs[:, k - 2]).max(initial=0))
    rp = int(np.abs(offs[:, : k - 2]).sum(axis=1).max(initial=0))
    width = int((stops - starts).max())
    shifts = (2 * rp + 1) * (2 * rd + 1)
    step = max(1, min(FACTOR_BLOCK_ENTRIES // width, FACTOR_SHIFT_ENTRIES // shifts))
    return dict(offs=offs, w=w, tail=tail, starts=starts, stops=stops, rd=rd, rp=rp, step=step,
                chunk=max(1, FACTOR_GROUP_ENTRIES // step), count=len(offs))


def shared_factor_pass(k: int, log_points: list, tol: float) -> bool:
    """Whether :func:`clamped_errors_by_factors_shared` computes these laws in one pass (else it runs
    :func:`clamped_errors_by_factors` once per law): each law's blocks are the same (``step``) and each law's groups
    fit one chunk, so every law's sums are taken in the order of its own run."""
    lay = [_factor_layout(k, lp, tol) for lp in log_points]
    return len({d["step"] for d in lay}) == 1 and all(len(d["starts"]) <= d["chunk"] for d in lay)


def clamped_errors_by_factors_shared(prior: ArrayLike, n: int, log_points: list, tol: float = DEFAULT_TOL,
                                     block_entries: int = FACTOR_BLOCK_ENTRIES) -> list[Bracket]:
    """:func:`clamped_errors_by_factors` of several noise laws of the sequential clamp (one :class:`Bracket` per
    ``log_points[j]``, each the same floats as that function's own call), their products shared.

    The loss of an offset at a data set does not depend on the law (the boundary rule and the tables ``F_i`` are
    the same): only the weights do.  So the groups of every law (the offsets sharing the first ``k - 2``
    coordinates) are taken together, by prefix: the head clamps, the band products and, per group, the block
    ``sqrt(1 - BC)`` over the hull of the laws' intervals of ``d`` are computed once, and each law adds its own
    weights times the rows of that block over its own interval, in the order of its own run (its groups in its own
    order, each correction summed over its own groups as one ``bincount``, the same shapes): the same operations on
    the same floats as :func:`clamped_errors_by_factors` for that law alone.  Where the laws' blocks differ (their
    ``step``) or a law's groups take more than one chunk (:func:`shared_factor_pass`), each law runs alone."""
    a, n = _check(prior, n)
    k = a.size
    if not shared_factor_pass(k, log_points, tol):
        return [clamped_errors_by_factors(a, n, lp, tol, block_entries) for lp in log_points]
    lay = [_factor_layout(k, lp, tol) for lp in log_points]
    if block_entries != FACTOR_BLOCK_ENTRIES:
        return [clamped_errors_by_factors(a, n, lp, tol, block_entries) for lp in log_points]
    R = candidates(n, k)
    margin = factor_margin(k)
    step = lay[0]["step"]
    rd = max(d["rd"] for d in lay)
    rp = max(d["rp"] for d in lay)
    rb = rd + rp
    n1 = n + 1
    # the union's groups: one per prefix, in the order of the prefixes' sum then lexicographic (every law's own
    # order is this order restricted to its prefixes); its interval the hull of the laws' intervals
    prefixes = {}
    for j, d in enumerate(lay):
        for t, (s0, s1) in enumerate(zip(d["starts"].tolist(), d["stops"].tolist())):
            key = tuple(d["offs"][s0, : k - 2].tolist())
            prefixes.setdefault(key, []).append((j, t, int(d["offs"][s0, k - 2]), s1 - s0))
    keys = sorted(prefixes, key=lambda p: (-sum(p), p))
    G = len(keys)
    P = np.array(keys, dtype=np.int32).reshape(G, k - 2)
    S = -P.sum(axis=1)
    U_LO = np.array([min(e[2] for e in prefixes[p]) for p in keys], dtype=np.int32)
    U_HI = np.array([max(e[2] + e[3] - 1 for e in prefixes[p]) for p in keys], dtype=np.int32)
    width = int((U_HI - U_LO + 1).max())
    # per law: its groups' places in the union (in its own order), and its arrays as its own run builds them
    laws = []
    for j, d in enumerate(lay):
        where = {}
        for u, p in enumerate(keys):
            for jj, t, _, _ in prefixes[p]:
                if jj == j:
                    where[t] = u
        idx = np.array([where[t] for t in range(len(d["starts"]))], dtype=np.int64)
        if np.any(np.diff(idx) <= 0):  # pragma: no cover - the union's order restricts to each law's own
            raise AssertionError("a law's groups out of the union's order")
        starts, stops, w = d["starts"], d["stops"], d["w"]
        D_LO = d["offs"][starts, k - 2].astype(np.int32)
        WID = (stops - starts).astype(np.int32)
        cws = [np.r_[0.0, np.cumsum(w[s0:s1])] for s0, s1 in zip(starts.tolist(), stops.tolist())]
        CB = np.r_[0, np.cumsum([c.size for c in cws])[:-1]].astype(np.int64)
        CW = np.concatenate(cws)
        laws.append(dict(idx=idx, D_LO=D_LO, WID=WID, D_HI=D_LO + WID - 1, CB=CB, CW=CW, TOT=CW[CB + WID],
                         wgs=[w[s0:s1] for s0, s1 in zip(starts.tolist(), stops.tolist())], G=len(starts),
                         S=S[idx], acc=np.zeros(len(R)), inv={int(u): t for t, u in enumerate(idx.tolist())}))
    check_size(k * n1 * n1 + 4 * n1 * (2 * rb + 1) + (2 * rp + 1) * (2 * rd + 1) * step + 8 * block_entries
               + 16 * G * step * (1 + len(lay)), 8, f"the Bhattacharyya factor tables for k={k}, n={n}")
    flat, A, Bt, AT, BtT = _factor_tables(a, n, k, rd, rb)
    Fx, Fy = flat[k - 2], flat[k - 1]
    buf = np.empty(width * step)
    for lo in range(0, len(R), step):
        cb = R[lo:lo + step].astype(np.int32)
        B = len(cb)
        x, y = cb[:, k - 2], cb[:, k - 1]
        xb, yb = x * n1, y * n1
        co = _BlockCoefficients(A, AT, Bt, BtT, x, y, rp, rd, rb)
        cols_b = [cb[:, i].copy() for i in range(k - 2)]
        base_b = [c * n1 for c in cols_b]
        neg_x, y1, x_y = -x, y + 1, x + y
        Fx0, Fy0 = Fx[xb], Fy[yb]
        # the head clamps of every prefix against every row, once for all laws
        mi = cols_b[0][None, :] + P[:, 0, None]
        np.maximum(mi, 0, out=mi)
        np.minimum(mi, n, out=mi)
        rem_u = n - mi
        mi += base_b[0][None, :]
        head_u = flat[0].take(mi)
        for i in range(1, k - 2):
            mi = cols_b[i][None, :] + P[:, i, None]
            np.maximum(mi, 0, out=mi)
            np.minimum(mi, rem_u, out=mi)
            rem_u -= mi
            mi += base_b[i][None, :]
            head_u *= flat[i].take(mi)
        delta_u = rem_u - x_y[None, :]
        still_u = delta_u == S[:, None]
        first_u = still_u.argmax(axis=1)
        stop_u = B - still_u[:, ::-1].argmax(axis=1)
        runs_u = []  # per law: its own corrections and bookkeeping, as its own run
        for L in laws:
            idx, D_LO, D_HI, WID, CB, CW, TOT = L["idx"], L["D_LO"], L["D_HI"], L["WID"], L["CB"], L["CW"], L["TOT"]
            Gj = L["G"]
            head, rem, delta = head_u[idx].ravel(), rem_u[idx].ravel(), delta_u[idx].ravel()
            out = np.zeros(B)
            gg, r = np.nonzero(neg_x[None, :] > D_LO[:, None])
            if r.size:
                low = gg * B + r
                n_low = np.minimum(neg_x[r] - D_LO[gg], WID[gg])
                v = head[low] * Fx0[r]
                v *= Fy[yb[r] + rem[low]]
                h = _hellinger_of_bc(v)
                h -= 1.0
                out += np.bincount(r, CW[CB[gg] + n_low] * h, minlength=B)
            gg, r = np.nonzero(delta.reshape(Gj, B) + y[None, :] < D_HI[:, None])
            if r.size:
                high = gg * B + r
                hi_from = np.maximum(delta[high] + y1[r] - D_LO[gg], 0)
                v = head[high] * Fy0[r]
                v *= Fx[xb[r] + rem[high]]
                h = _hellinger_of_bc(v)
                h -= 1.0
                out += np.bincount(r, (TOT[gg] - CW[CB[gg] + hi_from]) * h, minlength=B)
            still = delta.reshape(Gj, B) == L["S"][:, None]
            gm, rm = np.nonzero(~still)
            moved = gm * B + rm
            n_moved = np.bincount(gm, minlength=Gj).tolist()
            head_m, shift_m = head[moved], delta[moved] + rp
            first = still.argmax(axis=1)
            stop = B - still[:, ::-1].argmax(axis=1)
            inner = (rm >= first[gm]) & (rm < stop[gm]) & (np.asarray(n_moved)[gm] < B)
            out -= np.bincount(rm[inner], TOT[gm[inner]], minlength=B)
            short, runs_of = _moved_runs(gm, rm, shift_m, Gj)
            n_short = np.bincount(gm[short], minlength=Gj).tolist()
            runs_u.append(dict(out=out, head_m=head_m, runs_of=runs_of, n_short=n_short,
                               s_ends=np.cumsum(n_short).tolist(), rm_s=rm[short], shift_s=shift_m[short],
                               head_s=head_m[short], n_moved=n_moved))
        head_u[~still_u] = 0.0  # a moved row inside the unmoved range: H = 1 throughout (its weight taken off)
        first_l, stop_l = first_u.tolist(), stop_u.tolist()
        for u in range(G):
            s, lo_u, Wu = int(S[u]) + rp, int(U_LO[u]), int(U_HI[u] - U_LO[u] + 1)
            j0u = lo_u + rd
            blk_u = None
            ab = (first_l[u], stop_l[u])
            runs_done = {}
            for L, st in zip(laws, runs_u):
                t = L["inv"].get(u)
                if t is None:
                    continue
                out, W, dlo, wg = st["out"], int(L["WID"][t]), int(L["D_LO"][t]), L["wgs"][t]
                off = dlo - lo_u
                if st["n_moved"][t] < B:
                    a0, b0 = ab
                    if blk_u is None:
                        blk_u = buf[:Wu * (b0 - a0)].reshape(Wu, b0 - a0)
                        np.multiply(co.pt(s, j0u, Wu)[:, a0:b0], head_u[u, a0:b0][None, :], out=blk_u)
                        np.subtract(1.0, blk_u, out=blk_u)
                        np.sqrt(blk_u, out=blk_u)
                    out[a0:b0] += wg @ blk_u[off:off + W]
                for a0, b0, sh, at in st["runs_of"][t]:
                    got = runs_done.get((a0, b0, sh))
                    if got is None:
                        got = co.pt(sh, j0u, Wu)[:, a0:b0] * st["head_m"][at:at + b0 - a0][None, :]
                        np.subtract(1.0, got, out=got)
                        np.sqrt(got, out=got)
                        runs_done[(a0, b0, sh)] = got
                    out[a0:b0] += wg @ got[off:off + W]
                nm = st["n_short"][t]
                if nm:
                    e = st["s_ends"][t]
                    oi = st["rm_s"][e - nm:e]
                    j0 = dlo + rd
                    blk = co.rows(oi, st["shift_s"][e - nm:e], j0, W)
                    blk *= st["head_s"][e - nm:e][:, None]
                    np.subtract(1.0, blk, out=blk)
                    out[oi] += np.sqrt(blk, out=blk) @ wg
        for L, st in zip(laws, runs_u):
            L["acc"][lo:lo + step] = st["out"]
    return [Bracket(R, np.maximum(L["acc"] - margin, 0.0), float(d["tail"]) + 2.0 * margin, d["count"])
            for L, d in zip(laws, lay)]


def shared_work(n: int, k: int, log_points: list, tol: float = DEFAULT_TOL, step: float = 1.0) -> int:
    """Loss evaluations of one pass over the union of several laws' offsets (with ``step`` = :data:`FACTOR_STEP`,
    :func:`clamped_errors_by_factors_shared`'s): ``|union| |R(n)|``."""
    union = set()
    for lp in log_points:
        union.update(map(tuple, clamp_offsets(lp, k, tol, step)[0].tolist()))
    return len(union) * n_candidates(n, k)
