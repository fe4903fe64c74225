"""A remap of the lattice release that is minimax where its worst case sits: near the vertices (k = 3, any n).

Definitions (docs/lattice.md, "A worst-case remap at any n"; docs/definitions.md §9 for the objectives).  The
lattice release draws ``z = c + w`` (:mod:`.noise`); a remap ``T(z, .)`` (a distribution over R(n) chosen from
public inputs, never reading ``c``) is post-processing, so any remap keeps eps-DP.  Under the local Bayes remap
(:func:`.remap.local_bayes_search`, ``lattice~average``'s) the worst case sits at data sets next to a vertex
(``(2, 996, 2)`` at Dir(1,1,1), n = 1000, eps = 1) and the data sets away from the vertices are far below it.

* **Free rows.** ``F = {z : n - max_i z_i <= depth, z_i >= -inner}``: the lattice points within ``depth`` of a
  vertex (:func:`default_depth`, :func:`inner_radius`).
* **Constrained data sets.** ``A = {c in R(n) : d(c, F) <= W}``, ``W = radius_for(k, eps, LP_TOL)``: every data set
  whose kernel weight on ``F`` the LP keeps (``d`` the substitution distance, docs/definitions.md §1).
* **Edge rows** (eps < 1 only: :func:`edge_top` ``U = ceil(5 / eps)``, 0 at eps >= 1).  A point ``z`` with one count
  ``-W <= z_i <= U`` and the other two ``>= m0`` (:func:`edge_floor`) is a row of edge ``i``; the edge table
  (:class:`EdgeTable`) gives it ``z + b(z_i) + rho`` with probability ``tau_i(z_i, rho)`` (``rho`` within
  :data:`R_RADIUS`, ``b`` moving a negative count to 0): the same at every position along the edge and every n.
  ``tau_i`` is one LP per edge (:func:`_edge_tables`), ``min t`` with ``E_W(c) <= t`` for the data sets with
  ``c_i <= U`` at a few positions along the edge (:func:`edge_positions`), the rows above ``U`` the identity there.
  (Under the local Bayes remap the data sets with a count 0 are at ~0.525 all along the edges at eps = 0.5,
  Dir(1,1,1); under the edge table 0.39 and below past 20 from a vertex.)
* **Fixed rows.** ``G = {z : d(z, A) <= W} \\ F``: the edge table's row where ``z`` is an edge row, else the local
  Bayes remap (:func:`.search.local_search_many`, what an ``average`` draw computes).
* **The corner remap.** On ``F``, a table ``T(z, .)`` over the outputs within :data:`R_RADIUS` of ``project(z)``,
  solved by the LP ``min t`` subject to ``sum_{z in F u G, d(z, c) <= W} K(z | c) sum_r T(z, r) L(c, r) <= t`` for
  every ``c`` in ``A`` (rows of ``T`` on the simplex; a tie-break :data:`REGULARISER` times the average over ``A``
  moves ``t`` by at most that).  Off ``F u G``: the edge table's row on an edge, else the local Bayes remap.  ``T``
  (and ``tau``) is a fixed function of ``z`` and public inputs: the release is eps-DP whatever the LPs return.
  Every data set whose kernel weight on ``F`` within ``W`` is nonzero is constrained; the others' errors are
  computed exactly, not assumed.
* **n.** The LP's size depends on ``(k, eps, depth)`` only once the corners are apart.  Past
  ``N_REF = 4 (depth + 3 W)`` (:func:`reference_n`) the table is solved at ``N_REF`` and *translated*: a point of
  vertex ``j`` reads the row of ``z - (n - N_REF) e_j`` and its outputs move by ``+ (n - N_REF) e_j`` (the kernel is
  translation invariant; the losses near a vertex converge as n grows but are not constant, so the table is a good,
  not an optimal, remap there; its errors are computed exactly at n).  Up to ``N_REF`` it is solved at n itself.

* **One corner for three** (:func:`symmetric_solve`).  At a symmetric prior, eps < 1 and the corners apart
  (:func:`corners_apart`) the LP is solved at one vertex and the other two read its image under a permutation of the
  categories, the edge table likewise: an optimal solution of the three-corner LP (proof in :func:`_solve`), a third
  of its rows, constraints and fixed rows' searches.  Elsewhere the three-corner LP, as before.
* **Small eps** (the decision).  At eps = 0.25 and 0.1 the corner remap does not fit its plan
  (:meth:`~dpposterior.mechanisms.lattice.LatticeMechanism.check_corners`), from public inputs, so ``worst`` past the
  window's LP takes zero corner rows there: the local Bayes remap everywhere
  (:func:`~dpposterior.mechanisms.lattice.corners_fit`).  The plan's terms: at
  eps = 0.25 the time up to n ~ 20 (n = 15: ~46 s planned, the three edge LPs ~39 s of it; the corners are not
  apart, so one corner does not apply), then the memory: the three-corner LP (~4 GiB) up to n = 286, then the fixed
  rows' batched local search at ``n_ref`` (its tables over the boundary rows of R(n_ref) times the near ball:
  ~27 GiB planned at n_ref = 560, beside 1.4 GiB for one corner's LP); at eps = 0.1 the time (~597 s at n = 15),
  then the memory (8.4 GiB for one corner's LP alone).  A smaller ``depth`` changes none of it: ``n_ref =
  4 (depth + 3 W)``, the fixed rows and the edge LPs are W's (W = 42 and 105), not depth's.  What would: the fixed
  rows' search over the rows near one vertex only (a sub-grid of R(n_ref)), then one corner's LP.

Certificate (proof; as at k = 2, :mod:`dpposterior.remap.minimax`).  For the LP's dual weights ``lambda`` on a set
``C`` of data sets (any distribution on any ``C`` works; the duals on ``A``, and the same restricted to the data sets
within ``depth`` of a vertex, the larger bound kept) and every remap ``T`` of this release (deterministic or not),
``max_c E_T(c) >= sum_{c in C} lambda(c) E_T(c) = sum_z sum_r T(z, r) rho(z, r) >= sum_{z in F} min_r rho(z, r)``
with ``rho(z, r) = sum_{c in C} lambda(c) K(z | c) L(c, r)``, ``F`` here the z within ``W`` of ``C`` (the others
dropped: their terms are >= 0).  Let ``depth`` be the largest ``n - max_i c_i`` over ``C``.  The minimum runs over all
of R(n): the outputs ``N = {r : n - max_i r_i <= depth + reach}`` exactly; for ``r`` off ``N`` and ``c`` in ``C``
with ``j = argmax_i c_i``, ``r_j <= n - depth - reach - 1`` while ``c_j >= n - depth``, and merging the other
coordinates can only shrink Hellinger (data processing of an f-divergence), so ``L(c, r) >= Lfar_j``, the least
Beta-marginal distance over those two ranges (enumerated).  So
``lower = sum_{z in F} min(min_{r in N} rho(z, r), sum_j Lfar_j sum_{c in C_j} lambda(c) K(z | c))``, lowered by
the float rounding of its sums (``(|C| + |F| + 8) 2^-52`` relative) and :data:`LOSS_SLACK` per unit of weight for
the losses' own evaluation, is at most ``min_T max_c E_T(c)``: the best worst case of any remap of this release.

Errors (:func:`corner_errors`).  ``E(c) = sum_{d(w) <= We} K(w) sum_r T(c + w, r) L(c, r)`` (bracket
``tail_bound(k, eps, We)``): the local Bayes remap's sum (:func:`.search.window_errors`) for every ``c`` whose
ball misses the table's rows ``F u G`` (the same terms), recomputed term by term, in the same order, for the ``c``
whose ball meets them or meets an edge row (a count within ``U + We`` of 0).  The local Bayes remap is needed only
at the window's points off both tables (:func:`corner_local_outputs`): every other point lies in the ball of a
recomputed ``c`` only, and the recomputation reads the tables there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate as _validate
from ..distances.hellinger import hellinger_from_log_bc, lgamma_jensen_gap
from ..errors import InputError
from ..models import candidate_rank, candidates
from ..randomness import choose, float_weights
from .noise import log_normaliser, radius_for, sphere_count, tail_bound, window
from .remap import _ball, local_bayes_search, lp_method, project

#: The LP keeps the kernel's mass within ``radius_for(k, eps, LP_TOL)`` of each corner data set (the rest, at most
#: this much loss, is left to the exact errors computed afterwards).
LP_TOL = 1e-3
#: Outputs a row of the corner table may use: within this substitution distance of ``project(z)``.
R_RADIUS = 2
#: Weight of the tie-break (module docstring): the LP's ``t`` is within this of the minimax over the table.
REGULARISER = 1e-4
#: Absolute slack per unit of dual weight for the float evaluation of the losses (a few ulp of ``ln BC`` through
#: ``sqrt(1 - BC)``; far above the measured differences between two evaluations, 1e-15).
LOSS_SLACK = 1e-9
#: Entries of one block of the LP's sums.
BLOCK_ENTRIES = 2**21
#: Data sets of one block of the errors' recomputation (each offset's temporaries: a few (block x outputs x k) arrays).
ERROR_BLOCK = 2**15


def default_depth(epsilon: float) -> int:
    """The free rows' depth: ``ceil(10 / sqrt(eps))`` at eps >= 1 (10 at eps = 1, where the local Bayes remap's data
    sets whose two smaller counts both exceed 8 are already below the corner optimum; 8 at eps = 2), 14 below (with
    the edge table the worst case is the corners' there: Dir(1,1,1), n = 100, eps = 0.5, the LP's ``t`` 0.4830 at
    depth 10, 0.4738 at depth 15; 14, the deepest whose solve is estimated within the default 45 s at eps = 0.5)."""
    eps = float(epsilon)
    return 14 if eps < 1.0 else int(math.ceil(10.0 / math.sqrt(eps)))


def pair_loss(a: NDArray[np.float64], c: NDArray[np.int64], r: NDArray[np.int64]) -> NDArray[np.float64]:
    """``L(c, r) = H(Dir(a + c), Dir(a + r))`` elementwise over the rows of ``c`` and ``r`` (same shape ``(..., k)``,
    both of one total n): ``ln BC = sum_i J(a_i + c_i, a_i + r_i)`` (docs/definitions.md §2), each ``J`` evaluated
    once per pair of values of a coordinate (:func:`~dpposterior.distances.hellinger.lgamma_jensen_gap`)."""
    c = np.asarray(c, dtype=np.int64)
    r = np.asarray(r, dtype=np.int64)
    log_bc = np.zeros(c.shape[:-1])
    for i in range(a.size):
        ci, ri = c[..., i], r[..., i]
        if not ci.size:
            break
        lo = min(int(ci.min()), int(ri.min()))
        span = max(int(ci.max()), int(ri.max())) - lo + 1
        if span * span <= max(PAIR_LOSS_DENSE, ci.size):
            # the values' whole range as the table's axis, read by offset: the same J at every pair of values (J is
            # evaluated elementwise), without sorting the values (np.unique over millions of entries)
            vals = np.arange(lo, lo + span, dtype=np.int64)
            J = lgamma_jensen_gap(a[i] + vals[:, None].astype(np.float64), a[i] + vals[None, :].astype(np.float64))
            log_bc += J[ci - lo, ri - lo]
            continue
        vals = np.unique(np.concatenate([ci.ravel(), ri.ravel()]))
        J = lgamma_jensen_gap(a[i] + vals[:, None].astype(np.float64), a[i] + vals[None, :].astype(np.float64))
        log_bc += J[np.searchsorted(vals, ci), np.searchsorted(vals, ri)]
    return hellinger_from_log_bc(log_bc, out=log_bc)


#: :func:`pair_loss` reads its table by offset over the values' whole range where the range squared is at most this or
#: the number of pairs (else by the distinct values, sorted).
PAIR_LOSS_DENSE = 2**16


def corner_sets(n: int, k: int, depth: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(C, vertex)``: the data sets within ``depth`` of a vertex (lexicographic) and, for each, the vertex
    ``argmax_i c_i`` (the first of a tie)."""
    depth = min(int(depth), n)
    parts = []
    for j in range(k):
        for s in range(depth + 1):  # the other counts sum to s
            parts.append(np.insert(candidates(s, k - 1), j, n - s, axis=1))
    C = np.unique(np.concatenate(parts), axis=0)
    C = C[np.argsort(candidate_rank(C), kind="stable")]
    return C, np.argmax(C, axis=1)


def _kernel(eps: float, k: int, z: NDArray[np.int64], c: NDArray[np.int64]) -> NDArray[np.float64]:
    """``K(z | c) = e^(-eps d(z - c)) / Z`` for broadcast rows ``z``, ``c``."""
    d = np.abs(z - c).sum(axis=-1) // 2
    return np.exp(-eps * d - log_normaliser(k, eps))


def _window_key(z: NDArray[np.int64], W: int) -> NDArray[np.int64]:
    """A key of lattice points with one sum and every coordinate ``>= -W``: their rank in ``window(n, k, W)``."""
    return candidate_rank(np.asarray(z, dtype=np.int64) + W)


@dataclass
class CornerRemap:
    """The corner table (module docstring), held at ``n_ref`` (the release's ``n`` when ``n <= N_REF``): ``points``
    (the rows ``M = F u G``, sorted by ``keys``), for each up to ``J`` outputs ``outputs[m, j]`` with probabilities
    ``probs[m, j]`` (0 padded; a ``G`` row is its local Bayes output with probability 1), ``corner[m]`` its vertex.
    At ``n > n_ref`` a point ``z`` of vertex ``j`` (``argmax z``) reads the row of ``z - (n - n_ref) e_j`` and
    the output moves back by ``+ (n - n_ref) e_j``: the corners at ``n`` are translates of those at ``n_ref``."""

    a: NDArray[np.float64]
    n: int
    n_ref: int
    epsilon: float
    depth: int
    inner: int
    W: int
    shift: int
    points: NDArray[np.int64]
    keys: NDArray[np.int64]
    outputs: NDArray[np.int64]
    probs: NDArray[np.float64]
    corner: NDArray[np.int64]
    free: NDArray[np.bool_]
    certificate: dict = field(default_factory=dict)
    #: The LP's constrained data sets (at ``n_ref``) and their dual weights, for :func:`certify_remap`.
    duals: tuple | None = None
    #: The edge table (:class:`EdgeTable`; None at eps >= 1): the rows near an edge off ``M``.
    edges: EdgeTable | None = None

    def rows(self, z: ArrayLike) -> NDArray[np.int64]:
        """The row of ``M`` holding each lattice point ``z`` (rows summing to n, translated to ``n_ref``), or -1."""
        z = np.array(z, dtype=np.int64, ndmin=2).reshape(-1, self.a.size)
        out = np.full(len(z), -1, dtype=np.int64)
        j = np.argmax(z, axis=1)
        zr = z.copy()
        zr[np.arange(len(z)), j] -= self.n - self.n_ref
        ok = np.all(zr >= -self.shift, axis=1)
        if ok.any():
            key = _window_key(zr[ok], self.shift)
            pos = np.clip(np.searchsorted(self.keys, key), 0, len(self.keys) - 1)
            hit = (self.keys[pos] == key) & (self.corner[pos] == j[ok])
            out[np.flatnonzero(ok)] = np.where(hit, pos, -1)
        return out

    def row_outputs(self, rows: NDArray[np.int64]) -> NDArray[np.int64]:
        """The outputs of rows of ``M`` at the release's ``n`` (``(B, J, k)``)."""
        out = self.outputs[rows].copy()
        if self.n != self.n_ref:
            out[np.arange(len(rows)), :, self.corner[rows]] += self.n - self.n_ref
        return out

    def edge_rows(self, z: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(edge, index)`` of the edge table's row at each ``z`` (sums n; :meth:`EdgeTable.lookup`), -1 where it
        has none (no edge table, or off every edge)."""
        if self.edges is None:
            return np.full(len(z), -1), np.full(len(z), -1)
        return self.edges.lookup(z)

    def transition(self, z: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """``T(z, .)`` at every row of ``z``: ``(outputs (B, J, k), probs (B, J))``; off the table the edge table's
        row (:class:`EdgeTable`), else the local Bayes output (:func:`.remap.local_bayes_search`, as a draw computes
        it) with probability 1."""
        z = np.array(z, dtype=np.int64, ndmin=2).reshape(-1, self.a.size)
        rows = self.rows(z)
        ei, eu = self.edge_rows(z)
        J = max(self.outputs.shape[1], 1 if self.edges is None else self.edges.probs.shape[2])
        out = np.zeros((len(z), J, self.a.size), dtype=np.int64)
        p = np.zeros((len(z), J))
        on = rows >= 0
        Jt = self.outputs.shape[1]
        out[on, :Jt], p[on, :Jt] = self.row_outputs(rows[on]), self.probs[rows[on]]
        edge = ~on & (ei >= 0)
        if edge.any():
            Je = self.edges.probs.shape[2]
            out[edge, :Je] = self.edges.outputs(z[edge], ei[edge], eu[edge])
            p[edge, :Je] = self.edges.probs[ei[edge], eu[edge]]
        for i in np.flatnonzero(~on & ~edge):
            out[i, :] = local_bayes_search(self.a, self.n, self.epsilon, z[i])
            p[i, 0] = 1.0
        return out, p

    def draw(self, z: ArrayLike, bits) -> NDArray[np.int64]:
        """One output at the lattice point ``z``: a row of the table drawn by integer weights
        (:func:`~dpposterior.randomness.float_weights`: total variation at most ``J 2^-127`` from the row), else the
        local Bayes output."""
        z = np.asarray(z, dtype=np.int64).reshape(self.a.size)
        f = int(self.rows(z)[0])
        if f >= 0:
            p, outs = self.probs[f], self.row_outputs(np.array([f]))[0]
        else:
            ei, eu = self.edge_rows(z[None, :])
            if ei[0] < 0:
                return local_bayes_search(self.a, self.n, self.epsilon, z)
            p, outs = self.edges.probs[ei[0], eu[0]], self.edges.outputs(z[None, :], ei, eu)[0]
        nz = np.flatnonzero(p > 0)
        pick = nz[int(choose(float_weights(p[nz]), 1, bits)[0])] if nz.size > 1 else nz[0]
        return outs[pick]


def _union(C: NDArray[np.int64], ball: NDArray[np.int64], shift: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The distinct points ``c + w`` (``c`` a row of ``C``, ``w`` of ``ball``) sorted by key (coordinates
    ``>= -shift``)."""
    pts = (C[:, None, :] + ball[None, :, :]).reshape(-1, C.shape[1])
    keys, idx = np.unique(_window_key(pts, shift), return_index=True)
    return pts[idx], keys


def reference_n(epsilon: float, depth: int | None = None, k: int = 3) -> int:
    """``N_REF``: past it the table is solved at ``N_REF`` and translated (the corners' rows ``M`` reach
    ``depth + 2 W`` from a vertex; ``4 (depth + 3 W)`` keeps the three corners, and the local Bayes remap's data sets
    around them, apart)."""
    depth = default_depth(epsilon) if depth is None else int(depth)
    return 4 * (depth + 3 * radius_for(k, float(epsilon), LP_TOL))


def inner_radius(epsilon: float) -> int:
    """How far below 0 a free row's coordinates reach: ``ceil(6 / sqrt(max(eps, 1)))`` (docs/lattice.md)."""
    return int(math.ceil(6.0 / math.sqrt(max(float(epsilon), 1.0))))


def corner_remap(prior: ArrayLike, n: int, epsilon: float, depth: int | None = None, certify: bool = False,
                 symmetric: bool | None = None) -> CornerRemap:
    """The corner remap at (prior, n, eps) by its LP (scipy HiGHS), with the certificate at ``n`` if ``certify``
    (module docstring; docs/lattice.md).  k = 3 (the local Bayes rows come from :func:`.search.local_search_many`).
    ``symmetric``: one corner solved for three (default :func:`symmetric_solve`, what the release runs; False: the
    three-corner LP, for a comparison).

    ``certificate``: ``lp`` (the LP's ``t`` at ``n_ref``: the largest ``E`` over the constrained data sets with
    the kernel cut at ``W``), ``lower`` (certified at ``n``: at most the best worst case over all remaps of the
    release; nan without ``certify``), sizes."""
    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    depth = default_depth(eps) if depth is None else _validate.integer(depth, "depth", 0)
    remap = _translated(_solve(a, min(n, reference_n(eps, depth, a.size)), eps, depth, symmetric=symmetric), n)
    if certify:
        remap.certificate = dict(remap.certificate, lower=certify_remap(remap))
    return remap


def _translated(remap: CornerRemap, n: int) -> CornerRemap:
    from dataclasses import replace

    return replace(remap, n=int(n), certificate=dict(remap.certificate))


def _regions(k: int, n0: int, eps: float, depth: int):
    """The LP's sets at ``n0`` (:func:`_solve`): ``(W, inner, shift, F, A, M, keys of M, M's free mask)``."""
    W = radius_for(k, eps, LP_TOL)
    W1 = min(inner_radius(eps), W)
    shift = W1 + 2 * W
    parts = []
    for j in range(k):
        for s in range(-(k - 1) * W1, min(depth, n0 + (k - 1) * W1) + 1):
            u = candidates(s + (k - 1) * W1, k - 1) - W1  # the other coordinates, >= -W1, summing to s
            parts.append(np.insert(u, j, n0 - s, axis=1))
    Fz = np.concatenate(parts)
    Fz = Fz[np.all(Fz >= -W1, axis=1)]
    Fz, fkeys = _union(Fz, np.zeros((1, k), dtype=np.int64), shift)
    ball = _ball(k, W)
    A, _ = _union(Fz, ball, shift)
    A = A[np.all(A >= 0, axis=1)]
    M, mkeys = _union(np.concatenate([(A[:, None, :] + ball[None, :, :]).reshape(-1, k), Fz]),
                      np.zeros((1, k), dtype=np.int64), shift)
    return W, W1, shift, Fz, A, M, mkeys, np.isin(mkeys, fkeys)


def corner_sizes(n: int, k: int, epsilon: float, depth: int | None = None, symmetric: bool = False) -> dict:
    """The corner LP's sizes from public n, k, eps, in closed form (no set is built, so a plan at a small eps costs
    nothing): ``n_ref``, ``free`` and ``fixed`` rows, ``constraints`` and ``pairs`` (data set x free row pairs within
    ``W``), ``outputs`` per row.  Per corner ``C(m + k - 1, k - 1)`` points lie within ``m`` of a vertex; the pairs
    are a quarter of ``free x |ball(W)|`` (the free rows near a vertex see only part of their ball in R(n); Dir(1,1,1),
    eps = 2, 1, 0.5: 13,425, 70,278, 579,330 pairs counted, 12,968, 68,517, 618,898 estimated), each count capped by
    the whole window.  ``symmetric`` (the prior's :func:`symmetric_prior`): where :func:`one_corner` holds the LP,
    its fixed rows and the edge LPs are one corner's and one edge's (``corners_solved`` 1; a third of each count)."""
    eps = float(epsilon)
    depth = default_depth(eps) if depth is None else int(depth)
    n0 = min(int(n), reference_n(eps, depth, k))
    W = radius_for(k, eps, LP_TOL)
    W1 = min(inner_radius(eps), W)

    def near(m: int) -> int:
        return k * math.comb(m + k - 1, k - 1)

    free = min(near(depth + (k - 1) * W1), math.comb(n0 + k * W1 + k - 1, k - 1))
    constraints = min(near(depth + W), math.comb(n0 + k - 1, k - 1))
    fixed = max(0, min(near(depth + 2 * W + (k - 1) * W), math.comb(n0 + k * W + k - 1, k - 1)) - free)
    ball = sum(sphere_count(k, t) for t in range(W + 1))
    outputs = sum(sphere_count(k, t) for t in range(R_RADIUS + 1))
    top = edge_top(eps)
    # the edge LPs (eps < 1): per edge, its data sets (both ends, twelve positions, counts 0..top) x the ball x outputs
    edge_entries = 0 if top == 0 else k * 24 * (top + 1) * ball * outputs
    pairs = min(free * ball // 4, free * constraints)
    solved = 1 if one_corner(symmetric, k, n0, eps, depth) else k
    return {"n_ref": n0, "free": free * solved // k, "fixed": fixed * solved // k,
            "constraints": constraints * solved // k, "pairs": pairs * solved // k, "outputs": outputs,
            "edge_entries": edge_entries * solved // k, "corners_solved": solved}


def edge_error_terms(n: int, k: int, epsilon: float, We: int) -> int:
    """Terms ``(data set, offset)`` :func:`corner_errors` recomputes for the edge table (0 without one): the data sets
    with a count within ``top + We`` of 0, each over the ball of radius ``We``."""
    top = edge_top(epsilon)
    if top == 0:
        return 0
    ball = sum(sphere_count(k, t) for t in range(int(We) + 1))
    return k * (int(n) + 1) * min(int(n) + 1, top + int(We) + 1) * ball


def corners_apart(n0: int, k: int, epsilon: float, depth: int) -> bool:
    """Whether the corner LP's three corners are apart at ``n0``: ``n0 > 2 depth + 4 W + (k - 2) (inner + 2 W)``.

    Proof that then every point of the table's rows ``M`` (so of ``F`` and ``A``) is near exactly one vertex ``j``
    (``z_j >= n0 - depth - 2 W``), that ``j`` is its ``argmax``, and that a constraint of ``A`` near ``j`` reads only
    rows near ``j``: a free row has ``z_j >= n0 - depth`` for its argmax ``j``, a data set within ``W`` of it
    ``c_j >= n0 - depth - W``, a row within ``W`` of that ``>= n0 - depth - 2 W``; the coordinates of ``M`` are
    ``>= -(inner + 2 W)``, so two of them ``>= n0 - depth - 2 W`` would sum to at most ``n0 + (k - 2) (inner + 2 W)``,
    below ``2 (n0 - depth - 2 W)`` under the condition.  So the LP is ``k`` blocks (one per vertex) sharing ``t``."""
    W = radius_for(k, float(epsilon), LP_TOL)
    W1 = min(inner_radius(epsilon), W)
    return int(n0) > 2 * int(depth) + 4 * W + (k - 2) * (W1 + 2 * W)


def symmetric_solve(a: ArrayLike, n0: int, epsilon: float, depth: int) -> bool:
    """Whether :func:`_solve` solves one corner and gives the others its images (docs/lattice.md): k = 3, eps < 1
    (the edge table's range, where three corners took up to ~45 s; at eps >= 1 the three-corner LP runs as before,
    in at most ~5 s, every number there unchanged), a symmetric prior (:func:`symmetric_prior`) and the corners
    apart (:func:`corners_apart`).  From public inputs only, so the release's law is a function of them."""
    a = np.asarray(a, dtype=np.float64)
    return one_corner(symmetric_prior(a), a.size, n0, epsilon, depth)


def one_corner(symmetric: bool, k: int, n0: int, epsilon: float, depth: int) -> bool:
    """:func:`symmetric_solve` from whether the prior is symmetric (the plans' form: :func:`corner_sizes`)."""
    return (bool(symmetric) and int(k) == 3 and float(epsilon) < 1.0
            and corners_apart(int(n0), int(k), epsilon, int(depth)))


def corner_lp_method(k: int, n0: int, epsilon: float, depth: int, nonzeros: int, variables: int
                     ) -> tuple[str, dict]:
    """HiGHS's method, and its options beside the tolerances, for the corner LP (:func:`_solve`) from public inputs
    and the LP's size: the dual simplex without presolve (``"highs-ds"``, ``presolve`` off) where
    :func:`joint_simplex` holds, else :func:`.remap.lp_method` as before (the interior point on these LPs).

    Why (measured: CPU s of ``linprog`` alone on the LP :func:`_solve` builds, Dir(1,1,1), the same tolerances 1e-10,
    the shared 2-core host at load ~3; docs/lattice.md, "The three-corner LP's method").  The three-corner LP is dense
    and short: eps = 0.5, n = 50, 1,326 inequality and 1,134 equality rows over 14,278 columns, 5.6M nonzeros (30 %
    of the matrix).  The interior point ends "imprecise" there (the tie-break's costs reach 2e-11) and HiGHS then
    cleans its crossover's basis with the dual simplex from a far-off start: 99 s in all (the interior point ~70 s
    wall, the clean-up ~60 s).  The dual simplex from HiGHS's own start: 37.5 s with presolve, 29.5 s without
    (presolve removes 84 rows and costs more than it saves); n = 100: 25.5 s against ~47 s.  The same optimum both
    ways: ``t`` 0.4827012829 (n = 50) and 0.4752591994 (n = 100), the objective equal to 1e-10.  Where the
    constraints are fewer than the free rows (eps = 0.5, n = 30 and 40: 496 and 861 against 1,134) the dual simplex
    stalls (over 135 s at n = 30, over 120 s at n = 40, against ~28 s and ~42 s by the interior point), so there the
    interior point stays, after the constraints :func:`implied_constraints` proves implied are dropped where
    :func:`drops_implied` holds (eps 0.5 to 0.6, n = 32 to 46; before the dual simplex at eps 0.5 to 0.51, n_ref from
    107: :func:`implied_simplex`).  Which optimal solution the LP returns changes the
    remap's last digits, never what is certified: the table is a remap whatever the LP returns (eps-DP), its errors are
    computed exactly from it, and every lower bound is recomputed from the LP's duals (any weights on data sets give a
    valid bound)."""
    if joint_simplex(k, n0, epsilon, depth):
        return "highs-ds", {"presolve": False}
    return lp_method(nonzeros, variables), {}


def joint_lp(k: int, n0: int, epsilon: float, depth: int) -> bool:
    """Whether :func:`_solve` at ``n0`` is the three-corner LP with its corners not apart (k = 3, eps < 1,
    :func:`corners_apart` false), from public inputs."""
    return int(k) == 3 and float(epsilon) < 1.0 and not corners_apart(int(n0), int(k), float(epsilon), int(depth))


def joint_simplex(k: int, n0: int, epsilon: float, depth: int) -> bool:
    """Whether :func:`corner_lp_method` solves the corner LP at ``n0`` by the dual simplex: the three-corner LP
    (:func:`joint_lp`) with at least as many constraints as free rows (:func:`corner_sizes`' closed forms, from public
    inputs only, so that the plan and the solve read one rule)."""
    if not joint_lp(k, n0, epsilon, depth):
        return False
    size = corner_sizes(int(n0), int(k), float(epsilon), int(depth))
    return size["constraints"] > size["free"]


#: Where :func:`drops_implied` holds: eps in this range (measured, Dir(1,1,1): eps = 0.5 and 0.6 the LP 1.6x to 2.1x
#: faster; eps = 0.75, n = 45 slower, 38 to 44 CPU s against 27 to 29 with every constraint) ...
IMPLIED_EPSILON = (0.5, 0.6)
#: ... and at least this many constraints per free row (eps 0.5 and 0.6: n = 32, 561 against 1,134, to n = 46; with
#: the ranges' bound alone n = 35 dropped 21 of 666 and ran no faster, with the dual bound 144, 23.9 s against 43.4)
IMPLIED_RATIO = 0.49


def joint_interior(k: int, n0: int, epsilon: float, depth: int) -> bool:
    """Whether :func:`_solve` at ``n0`` is the three-corner LP (:func:`joint_lp`) solved by the interior point (not
    :func:`joint_simplex`), from public inputs."""
    return joint_lp(k, n0, epsilon, depth) and not joint_simplex(k, n0, epsilon, depth)


#: ``(eps_lo, eps_hi, n_from)``: where :func:`drops_implied` also holds before the dual simplex
#: (:func:`joint_simplex`): eps within ``[eps_lo, eps_hi]`` and ``n0 >= n_from`` (up to where the corners are apart,
#: n0 = 160 at eps 0.5; :func:`implied_simplex`).  These are the cells whose exact errors the full LP's plan refused
#: (eps 0.5 to 0.51, n = 107 to 160).  Measured (Dir(1,1,1), eps 0.5, n = 120, CPU s at load ~2): the LP keeps 477
#: of 1,998 constraints, ``linprog`` 26.6 -> 13.2 s, the solve 32.0 -> 20.1 s, ``t`` the same to 2e-15.  The LP's
#: optimum is not unique there, so the reduced LP returns another optimal table (rows up to 0.45 apart in total
#: variation; the exact worst case 0.4743875212559552 -> ...632): a remap of the same ``t``, still eps-DP, its errors
#: computed exactly from it.  The release at these n (admitted before) reads the same table, so its law moves with it
#: (to another optimum of the same LP); elsewhere the LP is solved whole, as before.
IMPLIED_SIMPLEX = (0.5, 0.51, 107)


def implied_simplex(k: int, n0: int, epsilon: float, depth: int) -> bool:
    """Whether :func:`drops_implied` holds before the dual simplex (:data:`IMPLIED_SIMPLEX`, :func:`joint_simplex`),
    from public inputs only."""
    lo, hi, start = IMPLIED_SIMPLEX
    return lo <= float(epsilon) <= hi and int(n0) >= start and joint_simplex(k, n0, epsilon, depth)


def drops_implied(k: int, n0: int, epsilon: float, depth: int) -> bool:
    """Whether :func:`_solve` at ``n0`` drops the constraints :func:`implied_constraints` proves implied before its LP:
    :func:`joint_interior`, eps within :data:`IMPLIED_EPSILON` and the constraints at least :data:`IMPLIED_RATIO`
    times the free rows (:func:`corner_sizes`' closed forms), or before the dual simplex where :func:`implied_simplex`,
    from public inputs only, so that the plan and the solve read one rule.  Measured (CPU s of the LP, Dir(1,1,1),
    eps = 0.5; docs/lattice.md, "The three-corner LP's method"), by the ranges' bound alone: n = 40, 612 of 861
    constraints kept, 45.9 -> 28.8 s; n = 45, 661 of 1,081 kept, 54.3 -> 26.3 s; with the dual bound
    (:func:`implied_constraints` with the LP's rows, ~2 s of its own), at load ~4: n = 32, 519 of 561 kept, 19.0 s;
    n = 35, 522 of 666, 23.9 s; n = 38, 513 of 780, 23.9 s.
    Sound at any input (the proof in :func:`implied_constraints`); the rule only says where it pays."""
    if implied_simplex(k, n0, epsilon, depth):
        return True
    lo, hi = IMPLIED_EPSILON
    if not (joint_interior(k, n0, epsilon, depth) and lo <= float(epsilon) <= hi):
        return False
    size = corner_sizes(int(n0), int(k), float(epsilon), int(depth))
    return size["constraints"] >= IMPLIED_RATIO * size["free"]


#: Rounds of the dual ascent behind :func:`implied_constraints`' lower bound on the LP's ``t`` (measured, Dir(1,1,1),
#: eps = 0.5: n = 35, 100 and 200 rounds give 0.48935 and 0.48989 against the optimum 0.49039, so 134 and 144 of the
#: 147 constraints the optimum would drop; n = 40, 200 rounds, 358 of 360; ~10 ms a round) ...
IMPLIED_ROUNDS = 200
#: ... and its step: the weights ``exp(step x sum of the constraints' values at the best responses so far)``
#: (multiplicative weights; n = 35, 300 rounds: step 0.3, 1, 3, 10 give 129, 144, 144, 129 drops).
IMPLIED_STEP = 2.0


def _dual_value(b: NDArray[np.float64], matrix, first: NDArray[np.int64], lam: NDArray[np.float64]
                ) -> tuple[float, NDArray[np.float64]]:
    """``f(lam) = sum_c lam(c) b(c) + sum_z min_r sum_c lam(c) K(z | c) L(c, r)`` (``matrix`` the LP's inequality
    rows, its last column ``t``'s, ``first`` each free row's first variable), and the per-variable sums."""
    g = (matrix.T @ lam)[:-1]
    return float(lam @ b + np.minimum.reduceat(g, first).sum()), g


def implied_constraints(b: NDArray[np.float64], coef: NDArray[np.float64], ci: NDArray[np.int64],
                        reps: NDArray[np.int64], matrix=None, first: NDArray[np.int64] | None = None,
                        rounds: int = IMPLIED_ROUNDS, step: float | None = None) -> NDArray[np.bool_]:
    """:func:`implied_bound`'s mask: ``hi(c) < tau - margin``, True where the constraint is implied."""
    hi, tau, margin, _ = implied_bound(b, coef, ci, reps, matrix, first, rounds, step)
    return hi < tau - margin


def implied_bound(b: NDArray[np.float64], coef: NDArray[np.float64], ci: NDArray[np.int64],
                  reps: NDArray[np.int64], matrix=None, first: NDArray[np.int64] | None = None,
                  rounds: int = IMPLIED_ROUNDS, step: float | None = None
                  ) -> tuple[NDArray[np.float64], float, float, NDArray[np.float64]]:
    """Which constraints of the corner LP (:func:`_solve`) hold at every feasible point of the others: ``(hi, tau,
    margin, weights)``, the constraint at ``c`` implied where ``hi(c) < tau - margin`` (:func:`implied_constraints`),
    ``weights`` the certificate of ``tau`` (weights >= 0 summing to 1, on kept constraints only, with ``f(weights) >=
    tau``, ``f`` below).

    The LP's constraint at ``c`` reads ``E(c; T) = b(c) + sum_{z in F, d(z, c) <= W} sum_r K(z | c) L(c, r) T(z, r)
    <= t`` with each free row ``T(z, .)`` a distribution over its outputs.  ``coef`` holds ``K(z | c) L(c, r)`` pair by
    pair (``ci`` the data set of each pair ``(c, z)``, ``reps`` its number of outputs, entries in that order), so per
    data set ``lo(c) = b(c) + sum_z min_r K(z | c) L(c, r)`` and ``hi(c) = b(c) + sum_z max_r K(z | c) L(c, r)`` bound
    ``E(c; T)`` for every remap ``T``: ``lo(c) <= E(c; T) <= hi(c)``.

    A lower bound ``tau`` on ``t`` over the LP's feasible points, and the constraints with ``hi(c) < tau - margin``
    dropped.  Two bounds, the larger read:

    * ``lo* = max_c lo(c)``: let ``c*`` attain it (kept, as ``hi(c*) >= lo(c*)``); for any ``(T, t)`` satisfying the
      kept constraints, ``E(c; T) <= hi(c) < lo(c*) <= E(c*; T) <= t``.
    * Weak duality (with ``matrix``, the LP's inequality rows with ``t``'s column last, and ``first``, each free row's
      first variable, the variables grouped by row): for weights ``lam >= 0`` summing to 1 on a set ``K`` of
      constraints, every ``(T, t)`` satisfying those in ``K`` has ``t >= sum_c lam(c) E(c; T) = sum_c lam(c) b(c) +
      sum_z sum_r (sum_c lam(c) K(z | c) L(c, r)) T(z, r) >= f(lam)``, ``f(lam) = sum_c lam(c) b(c) + sum_z min_r
      sum_c lam(c) K(z | c) L(c, r)`` (each ``T(z, .)`` a distribution).  The weights: ``rounds`` of multiplicative
      weights (the constraints' player against each row's best response, ``step``, default :data:`IMPLIED_STEP`;
      deterministic, from the LP's data only), ``lam0`` the iterate with the largest ``tau0 = f(lam0)``; then ``K0 =
      {c : hi(c) >= tau0 - margin}``, ``lam1`` = ``lam0`` on ``K0`` renormalised and ``tau1 = f(lam1)``; the
      constraints with ``hi(c) < min(tau0, tau1) - margin`` are dropped.  They lie outside ``K0``, so the reduced LP
      keeps every constraint ``lam1`` weighs, and each of its feasible points has ``t >= tau1 >= min(tau0, tau1) >
      hi(c) + margin >= E(c; T)``: every dropped constraint holds.  (In exact arithmetic ``tau1 >= tau0``: with
      ``lam0 = (1 - a) lam1 + a mu``, ``mu`` on constraints with ``hi < tau0``, and ``T1`` a row choice at which
      ``f(lam1)`` is attained, ``tau0 = f(lam0) <= (1 - a) f(lam1) + a sum_c mu(c) E(c; T1) <= (1 - a) tau1 + a tau0``;
      the ``min`` only keeps the float test on the proof's side.)

    So the LP without them has the same feasible set and cost (the tie-break's average still runs over all of ``A``),
    hence the same optimal solutions; their duals are 0 (strictly slack at every feasible point), so the kept
    constraints' duals with zeros are the LP's duals and every bound from them holds.  The margin: 1e-9 plus the
    sums' rounding, ``(|A| + |F| + pairs of one c + 4) x 2^-52`` times the largest magnitude summed (~1e-12 here), so
    the float test stays on the proof's side."""
    starts = np.cumsum(reps) - reps  # every pair has at least one output (project(z) itself)
    lo = b + np.bincount(ci, weights=np.minimum.reduceat(coef, starts), minlength=len(b))
    hi = b + np.bincount(ci, weights=np.maximum.reduceat(coef, starts), minlength=len(b))
    tau = float(lo.max())
    weights = (np.arange(len(b)) == np.argmax(lo)).astype(np.float64)
    scale = max(float(np.abs(hi).max()), float(np.abs(lo).max()), 1.0)
    nF = 0 if first is None else len(first)
    margin = 1e-9 + (len(b) + nF + int(np.bincount(ci, minlength=1).max()) + 4) * 2.0**-52 * scale
    if matrix is not None and int(rounds) > 0 and len(b):
        nv = matrix.shape[1] - 1
        counts = np.diff(np.append(first, nv))
        row_of = np.repeat(np.arange(len(first)), counts)
        lam = np.full(len(b), 1.0 / len(b))
        w = np.zeros(len(b))
        tau0, lam0 = -np.inf, lam
        for _ in range(int(rounds)):
            val, g = _dual_value(b, matrix, first, lam)
            if val > tau0:
                tau0, lam0 = val, lam
            # each row's best response: its first output at the least weighted loss
            at = np.flatnonzero(g == np.repeat(np.minimum.reduceat(g, first), counts))
            x = np.zeros(nv + 1)
            x[at[np.r_[True, row_of[at[1:]] != row_of[at[:-1]]]]] = 1.0
            w += (IMPLIED_STEP if step is None else float(step)) * (b + matrix @ x)
            lam = np.exp(w - w.max())
            lam /= lam.sum()
        lam1 = np.where(hi >= tau0 - margin, lam0, 0.0)
        if lam1.sum() > 0:
            tau1, _ = _dual_value(b, matrix, first, lam1 / lam1.sum())
            if min(tau0, tau1) > tau:
                tau, weights = min(tau0, tau1), lam1 / lam1.sum()
    return hi, tau, margin, weights


def _solve(a, n0, eps, depth, r_radius: int | None = None, symmetric: bool | None = None) -> CornerRemap:
    """The table at ``n0`` (module docstring): free rows ``F`` (within ``depth`` of a vertex, coordinates
    ``>= -inner``), constrained data sets ``A = {c : d(c, F) <= W}``, fixed rows ``G = {z : d(z, A) <= W} \\ F`` (the
    local Bayes remap).

    ``symmetric`` (default :func:`symmetric_solve`): solve vertex 0's block only (its free rows, its constraints and
    its fixed rows: the corners are apart) and give vertex ``j`` the image of vertex 0's rows, fixed rows included,
    under the cyclic permutation ``s_j`` of the categories (``s_j(x)_y = x_(y - j mod k)``, :func:`numpy.roll`), the
    edge table by the same rotations (:func:`_edge_tables`).  Proof that this is an optimal solution of the three-corner LP
    (the same ``t``, the tie-break included): the prior is invariant, so ``L(s c, s r) = L(c, r)``, and ``s_j`` maps
    ``F``, ``A``, ``M``, the kernel and the outputs within ``r_radius`` of ``project(z)`` onto themselves and vertex
    0's block onto vertex ``j``'s (:func:`corners_apart`); so with vertex ``j``'s fixed rows the image of vertex 0's,
    a row set ``x`` is feasible for block 0 at ``t`` exactly when ``x o s_j^-1`` is for block ``j``.  The LP's cost is
    ``t + g(x) / |A|`` (``g`` the tie-break's sum, :data:`REGULARISER`) and ``|A| = k |A_0|``: the block's is
    ``t + g_0(x) / |A_0|``; the lift of a block solution costs the same, and any solution ``(t, x_0, ..., x_(k-1))``
    costs ``(1 / k) sum_j (t + g_0(x_j o s_j) / |A_0|)``, at least the block's optimum, as each ``(t, x_j o s_j)`` is
    feasible for block 0.  (In exact arithmetic; the LP's floats are its own sums.  Any table is a remap, so the
    release is eps-DP whatever the LP returns, and its errors are computed exactly afterwards.)  Tested against the
    three-corner solve."""
    from scipy import sparse
    from scipy.optimize import linprog

    from .search import local_search_many

    k = a.size
    W, W1, shift, Fz, A, M, mkeys, free = _regions(k, n0, eps, depth)
    r_radius = R_RADIUS if r_radius is None else int(r_radius)
    sym = symmetric_solve(a, n0, eps, depth) if symmetric is None else bool(symmetric)
    corner = np.argmax(M, axis=1)
    A_all = A
    solved = corner == 0 if sym else np.ones(len(M), dtype=bool)  # the rows of M this LP solves
    if sym:
        Fz, A = Fz[np.argmax(Fz, axis=1) == 0], A[np.argmax(A, axis=1) == 0]
    Gz = M[solved & ~free]
    edges = _edge_tables(a, n0, eps, symmetric=sym) if edge_top(eps) > 0 else None
    if edges is None:
        lb = local_search_many(a, n0, eps, Gz) if len(Gz) else np.zeros((0, k), dtype=np.int64)
    else:  # the fixed rows on an edge read the edge table, the others the local Bayes remap
        g_out, g_p = _fixed_rows(a, n0, eps, Gz, edges)
    nF, nA = len(Fz), len(A)
    # the variables: pairs (free row, output within r_radius of project(z))
    rb = _ball(k, r_radius)
    cand = project(Fz, n0)[:, None, :] + rb[None, :, :]
    ok = np.all(cand >= 0, axis=2)
    J = rb.shape[0]
    vf, vj = np.nonzero(ok)
    vr = cand[vf, vj]
    nv = len(vf)
    start = np.searchsorted(vf, np.arange(nF))
    count = np.bincount(vf, minlength=nF)
    logZ = log_normaliser(k, eps)
    d = np.abs(A[:, None, :] - Fz[None, :, :]).sum(axis=-1) // 2
    ci, fi = np.nonzero(d <= W)
    kv = np.exp(-eps * d[ci, fi] - logZ)
    reps = count[fi]
    row = np.repeat(ci, reps)
    var = np.repeat(start[fi], reps) + (np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps))
    coef = np.repeat(kv, reps)
    for lo in range(0, len(coef), BLOCK_ENTRIES):  # in blocks: the pairs' count vectors never whole
        sl = slice(lo, lo + BLOCK_ENTRIES)
        coef[sl] *= pair_loss(a, A[row[sl]], vr[var[sl]])
    # the fixed rows' part b(c)
    b = np.zeros(nA)
    step = max(1, BLOCK_ENTRIES // max(1, len(Gz)))
    for lo in range(0, nA, step):  # in blocks of data sets: the (A x G) distances never whole
        dg = np.abs(A[lo:lo + step, None, :] - Gz[None, :, :]).sum(axis=-1) // 2
        gi_c, gi_z = np.nonzero(dg <= W)
        if edges is None:
            b[lo:lo + step] += np.bincount(gi_c, weights=np.exp(-eps * dg[gi_c, gi_z] - logZ) * pair_loss(
                a, A[lo + gi_c], lb[gi_z]), minlength=len(dg))
        else:
            go = g_out[gi_z]
            Lg = (g_p[gi_z] * pair_loss(a, np.broadcast_to(A[lo + gi_c][:, None, :], go.shape), go)).sum(axis=1)
            b[lo:lo + step] += np.bincount(gi_c, weights=np.exp(-eps * dg[gi_c, gi_z] - logZ) * Lg,
                                           minlength=len(dg))
    A_ub = sparse.csr_array((np.append(coef, -np.ones(nA)), (np.append(row, np.arange(nA)),
                                                            np.append(var, np.full(nA, nv)))), shape=(nA, nv + 1))
    A_eq = sparse.csr_array((np.ones(nv), (vf, np.arange(nv))), shape=(nF, nv + 1))
    cost = np.zeros(nv + 1)
    cost[-1] = 1.0
    cost[:nv] = REGULARISER * np.bincount(var, weights=coef, minlength=nv) / nA  # the average over A, as a tie-break
    keep = np.ones(nA, dtype=bool)
    if len(reps) and drops_implied(k, n0, eps, depth):  # the implied constraints dropped (same optimal solutions)
        keep = ~implied_constraints(b, coef, ci, reps, A_ub, start)
        A_ub = A_ub[keep]
    method, options = corner_lp_method(k, n0, eps, depth, A_ub.nnz, A_ub.shape[1])
    res = linprog(cost, A_ub=A_ub, b_ub=-b[keep], A_eq=A_eq, b_eq=np.ones(nF), bounds=(0, None), method=method,
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10, **options})
    if res.status != 0:
        raise InputError(f"the corner remap's LP failed: {res.message}")
    x = np.clip(res.x[:-1], 0.0, None)
    x[x < 1e-12] = 0.0
    T = np.zeros((nF, J))
    T[vf, vj] = x
    T /= T.sum(axis=1, keepdims=True)
    order = np.argsort(-T, axis=1, kind="stable")[:, : int(max(1, (T > 0).sum(axis=1).max()))]
    pF = np.take_along_axis(T, order, axis=1)
    oF = np.take_along_axis(cand, order[..., None], axis=1)
    oF = np.where((pF > 0)[..., None], oF, oF[:, :1, :])  # padding: the row's first output
    width = pF.shape[1]
    fs = free[solved]
    ns = int(solved.sum())
    if edges is None:
        outputs = np.repeat(lb[:, None, :], width, axis=1) if len(Gz) else np.zeros((0, width, k), dtype=np.int64)
        probs = np.zeros((ns, width))
        full_out = np.zeros((ns, width, k), dtype=np.int64)
        full_out[fs], probs[fs] = oF, pF
        full_out[~fs], probs[~fs, 0] = outputs, 1.0
    else:
        width = max(width, g_p.shape[1])
        probs = np.zeros((ns, width))
        full_out = np.zeros((ns, width, k), dtype=np.int64)
        full_out[fs] = oF[:, :1, :]
        full_out[fs, :pF.shape[1]], probs[fs, :pF.shape[1]] = oF, pF
        full_out[~fs] = g_out[:, :1, :]
        full_out[~fs, :g_p.shape[1]], probs[~fs, :g_p.shape[1]] = g_out, g_p
    lam = np.zeros(nA)
    lam[keep] = np.clip(-res.ineqlin.marginals, 0.0, None)
    if sym:  # vertex j: the image of vertex 0's rows (and of its duals) under s_j
        src = _lift(M, mkeys, corner, shift)
        full_out, probs = _roll_outputs(full_out[src], corner), probs[src]
        ca = np.argmax(A_all, axis=1)
        lam = lam[_lift(A_all, _window_key(A_all, shift), ca, shift)]
        A = A_all
    cert = {"lp": float(res.x[-1]), "depth": depth, "inner": W1, "W": W, "n_ref": n0, "variables": nv,
            "constraints": nA, "implied": int(nA - keep.sum()), "free_rows": nF, "fixed_rows": len(Gz),
            "lower": float("nan"), "corners_solved": 1 if sym else k}
    remap = CornerRemap(a=a, n=n0, n_ref=n0, epsilon=eps, depth=depth, inner=W1, W=W, shift=shift, points=M,
                        keys=mkeys, outputs=full_out, probs=probs, corner=corner, free=free,
                        certificate=cert, duals=(A, lam), edges=edges)
    if edges is not None:
        cert["edge_lp"] = max(edges.lp)
    return remap


def _lift(P: NDArray[np.int64], keys: NDArray[np.int64], corner: NDArray[np.int64], shift: int) -> NDArray[np.int64]:
    """For every row ``p`` of ``P`` (sorted by ``keys``) of vertex ``j = corner[p]``: the place, among the rows of
    vertex 0 (in ``P``'s order), of ``s_j^-1 p = roll(p, -j)`` (:func:`_solve`'s symmetry)."""
    keys0 = keys[corner == 0]
    src = np.empty(len(P), dtype=np.int64)
    for j in range(P.shape[1]):
        at = np.flatnonzero(corner == j)
        pre = _window_key(np.roll(P[at], -j, axis=1), shift)
        pos = np.clip(np.searchsorted(keys0, pre), 0, max(0, len(keys0) - 1))
        if len(at) and not np.array_equal(keys0[pos], pre):
            raise RuntimeError("the corners' rows are not images of one another")
        src[at] = pos
    return src


def _roll_outputs(out: NDArray[np.int64], corner: NDArray[np.int64]) -> NDArray[np.int64]:
    """Outputs (last axis the k counts) of rows of vertex ``j`` moved by ``s_j`` (``roll(., j)``), in place."""
    for j in range(1, out.shape[-1]):
        at = corner == j
        out[at] = np.roll(out[at], j, axis=-1)
    return out


def _fixed_rows(a, n0, eps, Gz, edges: EdgeTable) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The fixed rows' outputs and probabilities (``(G, J, k)``, ``(G, J)``): the edge table's row where ``z`` is on
    an edge, else the local Bayes output with probability 1 (padding: the row's first output)."""
    from .search import local_search_many

    k = a.size
    ei, eu = edges.lookup(Gz)
    on = ei >= 0
    Je = edges.probs.shape[2]
    g_out = np.zeros((len(Gz), Je, k), dtype=np.int64)
    g_p = np.zeros((len(Gz), Je))
    g_out[on], g_p[on] = edges.outputs(Gz[on], ei[on], eu[on]), edges.probs[ei[on], eu[on]]
    if (~on).any():
        g_out[~on] = local_search_many(a, n0, eps, Gz[~on])[:, None, :]
        g_p[~on, 0] = 1.0
    return g_out, g_p


def far_loss(a: NDArray[np.float64], n: int, depth: int, reach: int, j: int) -> float:
    """``Lfar_j``: the least Beta-marginal Hellinger distance between a count ``c_j >= n - depth`` and a count
    ``r_j <= n - depth - reach - 1`` of coordinate ``j`` (module docstring; inf when no such ``r_j``)."""
    top = n - depth - reach - 1
    if top < 0:
        return float("inf")
    A = float(a.sum())
    cj = np.arange(max(0, n - depth), n + 1, dtype=np.float64)[:, None]
    best = float("inf")
    for lo in range(0, top + 1, 2**20):
        rj = np.arange(lo, min(top, lo + 2**20 - 1) + 1, dtype=np.float64)[None, :]
        log_bc = lgamma_jensen_gap(a[j] + cj, a[j] + rj) + lgamma_jensen_gap(A - a[j] + n - cj, A - a[j] + n - rj)
        best = min(best, float(hellinger_from_log_bc(log_bc).min()))
    return best


def certificate_depth(epsilon: float, depth: int) -> int:
    """The corner block's depth for :func:`certify_remap`: the remap's ``depth`` at eps >= 1, 12 below (Dir(1,1,1),
    n = 100, eps = 0.5: block depth 10, 12, 15 give 0.4499, 0.4553, 0.4553, in 17, 29, 58 s of CPU)."""
    return int(depth) if float(epsilon) >= 1.0 else 12


def certify_remap(remap: CornerRemap, block_depth: int | None = None) -> float:
    """The certificate's lower end at the remap's ``n`` (module docstring), the largest over three choices of weights
    (any weights certify): the LP's dual weights on its constrained data sets (translated from ``n_ref``); the same
    restricted to the data sets within ``depth`` of a vertex (where the duals sit on a data set whose error the fixed
    rows pin, the first is weak); the duals of the corner block's own LP (:func:`block_duals`, depth
    ``block_depth``, default :func:`certificate_depth`: Dir(1,1,1), n = 100, eps = 1: depth 3, 8, 12 give 0.2749,
    0.3126, 0.3153 against 0.3144 from the first; n = 300, eps = 0.5, before the edge table: depth 6, 10, 15 give
    0.4229, 0.4469, 0.4515 against 0.3802).  The edge table changes no step of the proof: it bounds every remap."""
    A, lam = remap.duals
    A = A.copy()
    j = np.argmax(A, axis=1)
    A[np.arange(len(A)), j] += remap.n - remap.n_ref
    choices = [(A, lam, lam > 0), (A, lam, (lam > 0) & (remap.n - A.max(axis=1) <= remap.depth))]
    if block_depth is None:
        block_depth = certificate_depth(remap.epsilon, remap.depth)
    C0, lam0 = block_duals(remap.a, remap.n, remap.epsilon, block_depth)
    choices.append((C0, lam0, lam0 > 0))
    best = 0.0
    for pts, weights, sel in choices:
        if not sel.any():
            continue
        C, w = pts[sel], weights[sel]
        depth = int((remap.n - C.max(axis=1)).max())
        Fz, _ = _union(C, _ball(remap.a.size, remap.W), remap.W)
        best = max(best, certified_lower(remap.a, remap.n, remap.epsilon, C, np.argmax(C, axis=1), Fz, w, depth,
                                         remap.W))
    return best


def block_duals(a: NDArray[np.float64], n: int, eps: float, depth: int, r_radius: int = R_RADIUS,
                W: int | None = None) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Dual weights for the certificate from the corner block's own LP: ``min t`` subject to ``E(c) <= t`` for the
    data sets ``C0`` within ``depth`` of a vertex, every row ``z`` within ``W`` of ``C0`` free (outputs within
    :data:`R_RADIUS` of ``project(z)``), the kernel cut at ``W``.  Returns ``(C0, duals)``; only the weights are used
    (:func:`certified_lower` bounds every remap whatever they are).  ``W``: the kernel's cut (default
    ``radius_for(k, eps, LP_TOL)``)."""
    from scipy import sparse
    from scipy.optimize import linprog

    k = a.size
    W = radius_for(k, eps, LP_TOL) if W is None else int(W)
    C0, _ = corner_sets(n, k, depth)
    Fz, _ = _union(C0, _ball(k, W), W)
    rb = _ball(k, int(r_radius))
    cand = project(Fz, n)[:, None, :] + rb[None, :, :]
    vf, vj = np.nonzero(np.all(cand >= 0, axis=2))
    vr = cand[vf, vj]
    nv, nF, nC = len(vf), len(Fz), len(C0)
    start = np.searchsorted(vf, np.arange(nF))
    count = np.bincount(vf, minlength=nF)
    d = np.abs(C0[:, None, :] - Fz[None, :, :]).sum(axis=-1) // 2
    ci, fi = np.nonzero(d <= W)
    reps = count[fi]
    row = np.repeat(ci, reps)
    var = np.repeat(start[fi], reps) + (np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps))
    coef = np.repeat(np.exp(-eps * d[ci, fi] - log_normaliser(k, eps)), reps) * pair_loss(a, C0[row], vr[var])
    A_ub = sparse.csr_array((np.append(coef, -np.ones(nC)), (np.append(row, np.arange(nC)),
                                                            np.append(var, np.full(nC, nv)))), shape=(nC, nv + 1))
    A_eq = sparse.csr_array((np.ones(nv), (vf, np.arange(nv))), shape=(nF, nv + 1))
    cost = np.zeros(nv + 1)
    cost[-1] = 1.0
    res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(nC), A_eq=A_eq, b_eq=np.ones(nF), bounds=(0, None), method="highs")
    if res.status != 0:
        return C0, np.ones(nC)
    return C0, np.clip(-res.ineqlin.marginals, 0.0, None)


#: Entries of one block of rows of :func:`certified_lower`'s tables (its kernel, its product with the losses).
CERTIFY_CELLS = 2**24


def certified_lower(a, n, eps, C, vertex, Fz, lam, depth, reach) -> float:
    """The certificate's lower end (module docstring) for dual weights ``lam`` on the corner data sets ``C``."""
    k = a.size
    if lam.sum() <= 0:
        lam = np.ones(len(C))
    lam = lam / lam.sum()
    N, _ = corner_sets(n, k, depth + reach)  # every output within reach of a data set within depth of a vertex
    L = pair_loss(a, np.broadcast_to(C[:, None, :], (len(C), len(N), k)),
                  np.broadcast_to(N[None, :, :], (len(C), len(N), k)))  # (|C|, |N|)
    from ..models import n_candidates

    fars = [(vertex == j, far_loss(a, n, depth, reach, j)) for j in range(k)] if len(N) < n_candidates(n, k) else []
    parts = []
    step = max(1, CERTIFY_CELLS // (len(C) * (k + 1) + len(N)))
    for lo in range(0, len(Fz), step):  # in blocks of rows: the (rows x outputs) table never whole
        lk = _kernel(eps, k, Fz[lo:lo + step, None, :], C[None, :, :]) * lam[None, :]  # (rows, |C|)
        near = (lk @ L).min(axis=1)
        if fars:
            far = np.zeros(len(lk))
            for sel, loss in fars:
                if sel.any():
                    far += loss * lk[:, sel].sum(axis=1)
            near = np.minimum(near, far)
        parts.append(near)
    total = float(np.concatenate(parts).sum()) if parts else 0.0
    margin = (len(C) + len(Fz) + 8) * 2.0**-52 * total + LOSS_SLACK
    return max(0.0, total - margin)


def local_points(remap: CornerRemap, Z: ArrayLike) -> NDArray[np.bool_]:
    """Which rows ``z`` of ``Z`` (lattice points summing to the remap's n) the corner release maps by the local Bayes
    remap: those off the corner table and off every edge row (:meth:`CornerRemap.transition`).  Elsewhere ``T(z, .)``
    is a table's row, so :func:`corner_errors` never reads ``local_outputs`` there."""
    z = np.asarray(Z, dtype=np.int64).reshape(-1, remap.a.size)
    return (remap.rows(z) < 0) & (remap.edge_rows(z)[0] < 0)


def corner_shape(a: ArrayLike, n: int, epsilon: float, depth: int) -> CornerRemap:
    """The corner release's table at (prior, n, eps, depth) without its rows: which points are the table's
    (:func:`_regions`' ``M`` at ``n_ref``, translated as :func:`cached_corner_remap`'s) and which the edge table's
    (:meth:`EdgeTable.lookup`: ``edge_top``, ``edge_floor`` and the LP's radius), from public inputs alone, no LP
    solved.  So :func:`local_points` of it equals that of the solved table (tested), and the local remap's outputs
    (:func:`corner_local_outputs`, with its refusal past ``max_fallback``) can run before the solve."""
    a = np.asarray(a, dtype=np.float64)
    k, eps, depth = a.size, float(epsilon), int(depth)
    n0 = min(int(n), reference_n(eps, depth, k))
    W, W1, shift, _, _, M, mkeys, free = _regions(k, n0, eps, depth)
    top = edge_top(eps)
    edges = None if top <= 0 else EdgeTable(top=top, floor=edge_floor(eps, k), W=W,
                                            offsets=np.zeros((k, 0, 0, k), dtype=np.int64), probs=np.zeros((k, 0, 0)),
                                            lp=())
    return CornerRemap(a=a, n=int(n), n_ref=n0, epsilon=eps, depth=depth, inner=W1, W=W, shift=shift, points=M,
                       keys=mkeys, outputs=np.zeros((len(M), 0, k), dtype=np.int64), probs=np.zeros((len(M), 0)),
                       corner=np.argmax(M, axis=1), free=free, edges=edges)


def corner_local_outputs(remap: CornerRemap, We: int, max_fallback: int | None = None,
                         stats: dict | None = None, orbits: bool | None = None) -> NDArray[np.int64]:
    """``local_outputs`` for :func:`corner_errors` (k = 3): the local Bayes remap
    (:func:`.search.local_search_many`, ``max_fallback`` and ``stats`` its own) at the points of ``window(n, 3, We)``
    the release maps by it (:func:`local_points`), ``project(z)`` at the others (never read there: every data set
    whose ball meets a table's row is recomputed from the rows, and the rest read only the local points).  So the
    errors are the same floats as with the local remap at every point, and the near ties on the edges and at the
    vertices, which the release never searches, cost nothing (Dir(1,1,1), eps = 0.5: most of them lie there).
    ``remap`` may be the table's :func:`corner_shape` (only which points are the tables' is read); ``orbits`` as
    :func:`.search.local_search_many`'s."""
    from .search import local_search_many

    Z = window(remap.n, remap.a.size, int(We))
    need = local_points(remap, Z)
    out = np.empty_like(Z)
    out[~need] = project(Z[~need], remap.n)
    out[need] = local_search_many(remap.a, remap.n, remap.epsilon, Z[need], max_fallback=max_fallback, stats=stats,
                                  orbits=orbits)
    return out


def rotation_symmetric(remap: CornerRemap) -> bool:
    """Whether the table's rows are images of one another under the cyclic permutations of the categories (k = 3,
    a symmetric prior, one corner solved for three: :func:`_solve`), so that :func:`corner_errors` may compute one
    data set per rotation class (:func:`rotation_classes`)."""
    return remap.a.size == 3 and symmetric_prior(remap.a) and remap.certificate.get("corners_solved") == 1


#: Most window points whose release is not rotation-equivariant (:func:`rotation_classes`) before the errors are
#: computed at every data set (the near ones computed directly cost a ball each).
ROTATION_BREAKS = 20_000


def rotation_classes(remap: CornerRemap, local_outputs: NDArray[np.int64], We: int
                     ) -> tuple[NDArray[np.bool_], NDArray[np.int64]] | None:
    """``(computed, source)`` over R(n) (:func:`~dpposterior.models.candidates`' order) for :func:`corner_errors`
    where :func:`rotation_symmetric`: ``E(c) = E(source[c])``, and ``computed`` (``source[c] == c``) holds one data
    set per rotation class and every data set within ``We`` of a window point where the release is not equivariant;
    None past :data:`ROTATION_BREAKS` such points.

    Proof.  Let ``s = roll(., 1)`` and ``T(s z, s r) = T(z, r)`` at every z of the ball ``c + w`` (``d(w) <= We``).
    The kernel depends on ``d(w) = d(s w)`` and ``L(s c, s r) = L(c, r)`` (a symmetric prior), so
    ``E(s c) = sum_w K(w) sum_r T(s c + s w, s r) L(s c, s r) = E(c)`` (substituting ``w -> s w``, ``r -> s r``).
    Equivariance is checked, not assumed, at every window point: the local outputs ``out(s z) = s out(z)`` and the
    table's and edge table's rows ``T(s z, s .) = T(z, .)`` as distributions; a point that fails puts its whole orbit
    in the set B.  B is rotation invariant, so a data set with no point of B within ``We`` has none in the balls of
    its images either, and its value is its class representative's (the least rank of the three).  The float sums
    differ from a direct computation at ``s c`` only by their order (within the sums' rounding, far below the
    bracket's ``tail``)."""
    n, k = remap.n, remap.a.size
    We = int(We)
    Zw = window(n, k, We)
    sZ = np.roll(Zw, 1, axis=1)
    idx = _window_key(sZ, We)
    loc = local_points(remap, Zw)
    ok = loc == loc[idx]
    both = loc & loc[idx]
    ok[both] = np.all(local_outputs[idx[both]] == np.roll(local_outputs[both], 1, axis=1), axis=1)
    tab = np.flatnonzero(~loc & ~loc[idx])
    for lo in range(0, tab.size, ERROR_BLOCK):
        t = tab[lo:lo + ERROR_BLOCK]
        o1, p1 = remap.transition(Zw[t])
        o2, p2 = remap.transition(sZ[t])
        # rows compared as distributions (the order of a row's outputs is free): outputs with p > 0 by rank
        ranks = []
        for o, p in ((np.roll(o1, 1, axis=2), p1), (o2, p2)):
            r = np.where(p > 0, candidate_rank(np.maximum(o, 0).reshape(-1, k)).reshape(p.shape), -1)
            order = np.argsort(r, axis=1, kind="stable")
            ranks.append((np.take_along_axis(r, order, axis=1), np.take_along_axis(np.where(p > 0, p, 0.0), order,
                                                                                   axis=1)))
        ok[t] = np.all(ranks[0][0] == ranks[1][0], axis=1) & np.all(ranks[0][1] == ranks[1][1], axis=1)
    bad = Zw[~ok]
    if len(bad) * 3 > ROTATION_BREAKS:
        return None
    bad = np.concatenate([bad, np.roll(bad, 1, axis=1), np.roll(bad, 2, axis=1)])
    R = candidates(n, k)
    rank = np.arange(len(R))
    rep = np.minimum(rank, np.minimum(candidate_rank(np.roll(R, 1, axis=1)), candidate_rank(np.roll(R, 2, axis=1))))
    computed = rep == rank
    if len(bad):
        near = np.zeros(len(R), dtype=bool)
        for w in _ball(k, We):
            c = bad + w[None, :]
            c = c[np.all(c >= 0, axis=1)]
            near[candidate_rank(c)] = True
        computed |= near
    return computed, np.where(computed, rank, rep)


def corner_errors(remap: CornerRemap, local_outputs: NDArray[np.int64], We: int, base=None, rotations: bool = False):
    """``E(c)`` of the corner release for every c of R(n) (k = 3), as a :class:`.scale.Bracket` (module docstring):
    ``local_outputs`` is the local Bayes remap (:func:`.search.local_search_many`) at every point of
    ``window(n, 3, We)`` (lexicographic) that the release maps by it (:func:`local_points`; any point of R(n) at the
    others: :func:`corner_local_outputs`), ``base`` its :func:`.search.window_errors` (computed if None; then with
    ``rotations``, where :func:`rotation_symmetric`, at one data set per rotation class and the rest copied:
    :func:`rotation_classes`)."""
    from .scale import Bracket, _LossTables
    from .search import window_errors

    a, n, eps, k = remap.a, remap.n, remap.epsilon, remap.a.size
    We = int(We)
    classes = rotation_classes(remap, local_outputs, We) if (rotations and base is None
                                                               and rotation_symmetric(remap)) else None
    if classes is not None:
        R = candidates(n, k)
        sub = window_errors(a, n, eps, local_outputs, We, counts=R[classes[0]])
        base = Bracket(R, np.zeros(len(R)), sub.tail, sub.offsets)
        base.low[classes[0]] = sub.low
    elif base is None:
        base = window_errors(a, n, eps, local_outputs, We)
    offs = _ball(k, We)
    wts = np.exp(-eps * (np.abs(offs).sum(axis=1) // 2) - log_normaliser(k, eps))
    R = base.counts
    # the data sets whose ball meets the table's rows: each row (at n) plus every offset, marked on a grid (c_1, c_2)
    pts = remap.points.copy()
    pts[np.arange(len(pts)), remap.corner] += n - remap.n_ref
    pad = remap.shift + We
    side = n + 1 + 4 * pad
    mark = np.zeros(side * side, dtype=bool)
    at = (pts[:, 0] + pad) * side + (pts[:, 1] + pad)
    for w in offs:
        mark[at + (w[0] * side + w[1])] = True
    meet = mark[(R[:, 0] + pad) * side + (R[:, 1] + pad)]
    if remap.edges is not None:  # and the data sets whose ball meets an edge row: a count within top + We of 0
        meet |= R.min(axis=1) <= remap.edges.top + We
    if classes is not None:
        meet &= classes[0]
    A = R[meet]
    ai = candidate_rank(A)
    # every point z = c + w of the window, on its grid (z_1 + We, z_2 + We): its row of the table (or -1), its edge
    # row (or -1) and its place in local_outputs, each as :meth:`CornerRemap.rows`, :meth:`CornerRemap.edge_rows`
    # and the window's order give them (the same values, looked up once)
    Zw = window(n, k, We)
    gside = n + 1 + 3 * We  # z_i + We runs from 0 to n + 3 We
    gw = (Zw[:, 0] + We) * gside + (Zw[:, 1] + We)
    row_at = np.full(gside * gside, -1, dtype=np.int64)
    row_at[gw] = remap.rows(Zw)
    ei_w, eu_w = remap.edge_rows(Zw)
    edge_at = np.full(gside * gside, -1, dtype=np.int64)
    edge_at[gw] = ei_w
    edge_u = np.full(gside * gside, -1, dtype=np.int64)
    edge_u[gw] = eu_w
    local_at = np.full(gside * gside, -1, dtype=np.int64)
    local_at[gw] = _window_key(Zw, We)
    del Zw, gw, ei_w, eu_w
    tables = _LossTables(a, n, R).tables
    n1 = n + 1

    def loss(c, r):
        lb = tables[0][c[..., 0] * n1 + r[..., 0]] + tables[1][c[..., 1] * n1 + r[..., 1]] + tables[2][
            c[..., 2] * n1 + r[..., 2]]
        return hellinger_from_log_bc(lb, out=lb)

    # the table's rows with one output (probability 1, the rest 0): their first output at n
    single = (remap.probs[:, 0] == 1.0) & np.all(remap.probs[:, 1:] == 0.0, axis=1)
    shift_n = n - remap.n_ref
    first = remap.outputs[:, 0, :].copy()
    first[np.arange(len(first)), remap.corner] += shift_n
    low = base.low.copy()
    for lo in range(0, len(A), ERROR_BLOCK):
        c = A[lo:lo + ERROR_BLOCK]
        gc = (c[:, 0] + We) * gside + (c[:, 1] + We)
        acc = np.zeros(len(c))
        for w, kw in zip(offs, wts):
            g = gc + (w[0] * gside + w[1])
            f = row_at[g]
            on = f >= 0
            term = np.empty(len(c))
            ei = edge_at[g]
            edge = ~on & (ei >= 0)
            rest = ~on & ~edge
            if rest.any():
                r = local_outputs[local_at[g[rest]]]
                term[rest] = loss(c[rest], r)
            if edge.any():
                z = c[edge] + w[None, :]
                eu = edge_u[g[edge]]
                ro = remap.edges.outputs(z, ei[edge], eu)
                cc = np.broadcast_to(c[edge][:, None, :], ro.shape)
                term[edge] = (remap.edges.probs[ei[edge], eu] * loss(cc, ro)).sum(axis=1)
            if on.any():
                one = np.flatnonzero(on)
                many = one[~single[f[one]]]
                one = one[single[f[one]]]
                if one.size:  # 1.0 L + 0.0 (L' + ...) is L exactly: the row's one output
                    term[one] = loss(c[one], first[f[one]])
                if many.size:
                    fo = f[many]
                    ro = remap.outputs[fo]
                    if shift_n:
                        ro[np.arange(len(fo)), :, remap.corner[fo]] += shift_n
                    cc = np.broadcast_to(c[many][:, None, :], ro.shape)
                    term[many] = (remap.probs[fo] * loss(cc, ro)).sum(axis=1)
            acc += kw * term
        low[ai[lo:lo + ERROR_BLOCK]] = acc
    if classes is not None:
        low = low[classes[1]]
    return Bracket(R, low, float(tail_bound(k, eps, int(We))), len(offs))


@lru_cache(maxsize=4)
def cached_corner_remap(a: tuple, n: int, epsilon: float, depth: int) -> CornerRemap:
    """:func:`corner_remap` per public inputs (cached: the draws and the errors read the same table)."""
    eps = float(epsilon)
    return _translated(_solve(np.asarray(a, dtype=np.float64), min(int(n), reference_n(eps, depth, len(a))), eps,
                              int(depth)), int(n))


def corner_transition(prior: ArrayLike, n: int, epsilon: float, Z: ArrayLike
                      ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """``T(z, .)`` of the corner remap at (prior, n, eps) (its default depth; the table ``lattice~worst`` draws from)
    at every row ``z`` of ``Z`` (lattice points summing to n): ``(outputs (B, J, k), probs (B, J))``, zero-padded;
    off the table the local Bayes output with probability 1 (:meth:`CornerRemap.transition`).  For a likelihood
    column ``P(r | c) = sum_z K(z | c) T(z, r)``."""
    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    remap = cached_corner_remap(tuple(a.tolist()), n, eps, default_depth(eps))
    return remap.transition(Z)


def edge_top(epsilon: float) -> int:
    """The edge table's top count ``U`` (module docstring): 0 at eps >= 1 (no edge table: there the local Bayes remap's
    edges are 10-18 % below the corners' worst case), else ``ceil(5 / eps)`` (10 at eps = 0.5, where the local Bayes
    remap's data sets with a count 0 are at ~0.525 all along the edges, its worst case past the corners)."""
    eps = float(epsilon)
    return 0 if eps >= 1.0 else int(math.ceil(5.0 / eps))


def edge_floor(epsilon: float, k: int = 3) -> int:
    """The edge rows' floor ``m0`` on their two other counts: above ``U`` (the edge of a row is its one count
    ``<= U``) and at least ``ceil(W / 2) + R_RADIUS`` (every output of the table is then in R(n))."""
    eps = float(epsilon)
    return max(edge_top(eps) + 1, (radius_for(k, eps, LP_TOL) + 1) // 2 + R_RADIUS)


@dataclass
class EdgeTable:
    """The edge table (module docstring): a row ``z`` of edge ``i`` (``-W <= z_i <= top``, the other counts
    ``>= floor``) draws ``z + offsets[i, z_i + W, j]`` with probability ``probs[i, z_i + W, j]``: the same at every
    position along the edge and every n (a translation along the edge moves the row and its outputs alike)."""

    top: int
    floor: int
    W: int
    offsets: NDArray[np.int64]
    probs: NDArray[np.float64]
    lp: tuple

    def lookup(self, z: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(edge i, index z_i + W)`` of every row of ``z`` (sums n), ``-1`` for a point off every edge."""
        i = np.argmin(z, axis=1)
        u = z[np.arange(len(z)), i]
        others = np.sort(z, axis=1)[:, 1]
        on = (u >= -self.W) & (u <= self.top) & (others >= self.floor)
        return np.where(on, i, -1), np.where(on, u + self.W, -1)

    def outputs(self, z: NDArray[np.int64], i: NDArray[np.int64], ui: NDArray[np.int64]) -> NDArray[np.int64]:
        """The outputs (``(B, J, k)``) of edge rows ``z`` (``i``, ``ui`` from :meth:`lookup`)."""
        return z[:, None, :] + self.offsets[i, ui]


def _edge_base(k: int, i: int, u: NDArray[np.int64]) -> NDArray[np.int64]:
    """``b(u)``: a row of edge ``i`` below 0 moves its count ``i`` to 0, the other two counts giving ``floor(m / 2)``
    and ``ceil(m / 2)`` (``m = max(0, -u)``), so that its outputs ``z + b + rho`` start in R(n)."""
    m = np.maximum(0, -u)
    j, l = [x for x in range(k) if x != i]
    b = np.zeros((len(u), k), dtype=np.int64)
    b[:, i], b[:, j], b[:, l] = m, -(m // 2), -(m - m // 2)
    return b


def edge_positions(n0: int, top: int, floor: int, W: int) -> list[tuple[int, int]]:
    """The edge LP's positions ``(n, s)``: at ``m = max(n0, 2 (floor + W) + top)`` (a data set with a count up to
    ``top`` and the other two ``>= floor + W``: every row within ``W`` of it is then an edge row) and at ``10 m``
    (the loss along an edge moves with n), ``s`` the count of the nearer vertex's other coordinate from ``floor + W``
    to ``m / 2``, six of them (both ends of the edge are taken by the caller)."""
    lo = floor + W
    m0 = max(int(n0), 2 * lo + top)
    hi = max(lo, (m0 - top) // 2)
    ss = sorted({int(round(lo + (hi - lo) * f)) for f in (0.0, 0.1, 0.25, 0.5, 0.75, 1.0)})
    return [(m, s) for m in (m0, 10 * m0) for s in ss]


def symmetric_prior(a: ArrayLike) -> bool:
    """Whether every permutation of the categories leaves the prior unchanged (``a_i`` all equal, exactly)."""
    a = np.asarray(a, dtype=np.float64)
    return bool(np.all(a == a[0]))


def _edge_tables(a: NDArray[np.float64], n0: int, eps: float, symmetric: bool = False) -> EdgeTable:
    """The edge table (module docstring), one LP per edge ``i`` (scipy HiGHS): ``min t`` subject to ``E_W(c) <= t`` for
    the data sets ``c`` with ``c_i <= top`` at the positions :func:`edge_positions` (both ends), the rows with
    ``z_i <= top`` the table's, the others the identity (a stand-in for the local Bayes remap, whose outputs there
    are near the identity; the release's errors are then computed exactly), rows on the simplex.

    ``symmetric`` (a symmetric prior only; :func:`symmetric_solve` decides): solve edge 0's LP only and give edge
    ``i`` its image under the cyclic permutation ``s_i = roll(., i)`` of the categories (category ``x`` to
    ``x + i mod 3``), the rotation by which :func:`_solve` lifts vertex 0's rows, so that the whole release is
    rotation-equivariant (:func:`rotation_classes`; with a swap for edge 1 it was not past the corner table).  Proof
    that this meets the optimum of edge ``i``'s LP: ``s_i`` maps edge 0's data sets (both ends: ``c_1 = s`` and
    ``c_2 = s``) onto edge ``i``'s, its kernel ``K(w) = K(s_i w)`` and its ball onto themselves, and its variables
    ``(u, rho)`` onto ``(u, s_i rho)`` with the base ``s_i b_0(u)`` (``max(u, 0) + rho_0 >= 0`` is
    ``max(u, 0) + (s_i rho)_i >= 0``); the prior being invariant, ``L(s_i c, s_i r) = L(c, r)``, so ``tau`` is
    feasible for edge 0 at ``t`` exactly when ``tau o s_i^-1`` is for the LP of edge ``i`` with that base.  That LP
    has edge ``i``'s optimum: the transposition of the two other counts maps edge ``i``'s data sets onto
    themselves and the base ``b_i`` (:func:`_edge_base`, ``floor(m / 2)`` on the first other count) onto
    ``s_i b_0`` where ``m`` is odd (the same where it is even), so the two LPs are images of one another.  So the
    three edges' rows meet one optimum ``t``, the tie-break included (in exact arithmetic; each LP's floats are its
    own sums in its own order).  Its optimum is not unique: the three solves may return other rows (at eps = 0.5
    they do), so :func:`_solve` takes this only with its own one-corner solve.  Tested against the three solves."""
    from scipy import sparse
    from scipy.optimize import linprog

    k = a.size
    top, floor = edge_top(eps), edge_floor(eps, k)
    W = radius_for(k, eps, LP_TOL)
    ball = _ball(k, W)
    kw = np.exp(-eps * (np.abs(ball).sum(axis=1) // 2) - log_normaliser(k, eps))
    rb = _ball(k, R_RADIUS)
    J = len(rb)
    us = np.arange(-W, top + 1)
    nu = len(us)
    offsets, probs, lps = [], [], []
    for i in range(1 if symmetric else k):
        base = _edge_base(k, i, us)
        off = base[:, None, :] + rb[None, :, :]  # (nu, J, k)
        valid = np.maximum(us, 0)[:, None] + rb[None, :, i] >= 0
        vu, vj = np.nonzero(valid)
        nv = len(vu)
        vidx = np.full((nu, J), -1)
        vidx[vu, vj] = np.arange(nv)
        j, l = [x for x in range(k) if x != i]
        rows, cols, vals, fixed = [], [], [], []
        for m, s in edge_positions(n0, top, floor, W):
            for near_j in (True, False):  # both ends of the edge
                for ci in range(top + 1):
                    c = np.zeros(k, dtype=np.int64)
                    c[i] = ci
                    c[j] = s if near_j else m - ci - s
                    c[l] = m - ci - c[j]
                    z = c[None, :] + ball
                    on = z[:, i] <= top
                    out = z[on][:, None, :] + off[z[on, i] + W]
                    # a row's outputs off R(n) are not variables (clipped here only to evaluate the rest)
                    L = pair_loss(a, np.broadcast_to(c, out.shape), np.maximum(out, 0)) * kw[on][:, None]
                    vi = vidx[z[on, i] + W]
                    ok = vi >= 0
                    acc = np.bincount(vi[ok], weights=L[ok], minlength=nv)
                    nz = np.flatnonzero(acc)
                    rows.append(np.full(len(nz), len(fixed)))
                    cols.append(nz)
                    vals.append(acc[nz])
                    fixed.append(float(kw[~on] @ pair_loss(a, np.broadcast_to(c, z[~on].shape), z[~on])))
        nC = len(fixed)
        row, col, val = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
        A_ub = sparse.csr_array((np.append(val, -np.ones(nC)), (np.append(row, np.arange(nC)),
                                                               np.append(col, np.full(nC, nv)))), shape=(nC, nv + 1))
        A_eq = sparse.csr_array((np.ones(nv), (vu, np.arange(nv))), shape=(nu, nv + 1))
        cost = np.zeros(nv + 1)
        cost[-1] = 1.0
        cost[:nv] = REGULARISER * np.bincount(col, weights=val, minlength=nv) / nC
        res = linprog(cost, A_ub=A_ub, b_ub=-np.asarray(fixed), A_eq=A_eq, b_eq=np.ones(nu), bounds=(0, None),
                      method="highs", options={"primal_feasibility_tolerance": 1e-10,
                                               "dual_feasibility_tolerance": 1e-10})
        if res.status != 0:
            raise InputError(f"the corner remap's edge LP failed: {res.message}")
        x = np.clip(res.x[:-1], 0.0, None)
        x[x < 1e-12] = 0.0
        T = np.zeros((nu, J))
        T[vu, vj] = x
        T /= T.sum(axis=1, keepdims=True)
        offsets.append(off)
        probs.append(T)
        lps.append(float(res.x[-1]))
    if symmetric:  # edge i: edge 0's rows under the rotation s_i = roll(., i) (docstring), the same probabilities
        for i in range(1, k):
            offsets.append(np.roll(offsets[0], i, axis=-1))
            probs.append(probs[0])
            lps.append(lps[0])
    T = np.stack(probs)
    width = int(max(1, (T > 0).sum(axis=2).max()))
    order = np.argsort(-T, axis=2, kind="stable")[:, :, :width]
    P = np.take_along_axis(T, order, axis=2)
    O = np.take_along_axis(np.stack(offsets), order[..., None], axis=2)
    O = np.where((P > 0)[..., None], O, O[:, :, :1, :])  # padding: the row's first output
    return EdgeTable(top=top, floor=floor, W=W, offsets=O, probs=P, lp=tuple(lps))
