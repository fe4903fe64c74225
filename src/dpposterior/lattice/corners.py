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
* **Fixed rows.** ``G = {z : d(z, A) <= W} \\ F``: the local Bayes remap (:func:`.search.local_search_many`, what an
  ``average`` draw computes).
* **The corner remap.** On ``F``, a table ``T(z, .)`` over the outputs within :data:`R_RADIUS` of ``project(z)``,
  solved by the LP ``min t`` subject to ``sum_{z in F u G, d(z, c) <= W} K(z | c) sum_r T(z, r) L(c, r) <= t`` for
  every ``c`` in ``A`` (rows of ``T`` on the simplex; a tie-break :data:`REGULARISER` times the average over ``A``
  moves ``t`` by at most that).  Off ``F``: the local Bayes remap.  ``T`` is a fixed function of ``z`` and public
  inputs: the release is eps-DP whatever the LP returns.  Every data set whose kernel weight on ``F`` within ``W``
  is nonzero is constrained; the others' errors move by at most ``LP_TOL`` from the local Bayes remap's (computed
  exactly, not assumed).
* **n.** The LP's size depends on ``(k, eps, depth)`` only once the corners are apart.  Past
  ``N_REF = 4 (depth + 3 W)`` (:func:`reference_n`) the table is solved at ``N_REF`` and *translated*: a point of
  vertex ``j`` reads the row of ``z - (n - N_REF) e_j`` and its outputs move by ``+ (n - N_REF) e_j`` (the kernel is
  translation invariant; the losses near a vertex converge as n grows but are not constant, so the table is a good,
  not an optimal, remap there; its errors are computed exactly at n).  Up to ``N_REF`` it is solved at n itself.

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
whose ball meets them.
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
from .noise import log_normaliser, radius_for, sphere_count, tail_bound
from .remap import _ball, local_bayes_search, project

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
#: Entries of one block of the errors' recomputation (data sets x offsets).
BLOCK_ENTRIES = 2**21


def default_depth(epsilon: float) -> int:
    """The free rows' depth: ``ceil(10 / sqrt(max(eps, 1)))`` (10 at eps <= 1, where at eps = 1 the local Bayes remap's
    data sets whose two smaller counts both exceed 8 are already below the corner optimum; 8 at eps = 2).  Not deeper
    at eps < 1: at eps = 0.5 the worst case is then the edges' (docs/lattice.md), and depth 15 (inner 9) took the LP
    from 11 s to 40 s of CPU for its ``t`` from 0.5253 to 0.5222."""
    return int(math.ceil(10.0 / math.sqrt(max(float(epsilon), 1.0))))


def pair_loss(a: NDArray[np.float64], c: NDArray[np.int64], r: NDArray[np.int64]) -> NDArray[np.float64]:
    """``L(c, r) = H(Dir(a + c), Dir(a + r))`` elementwise over the rows of ``c`` and ``r`` (same shape ``(..., k)``,
    both of one total n): ``ln BC = sum_i J(a_i + c_i, a_i + r_i)`` (docs/definitions.md §2), each ``J`` evaluated
    once per pair of values of a coordinate (:func:`~dpposterior.distances.hellinger.lgamma_jensen_gap`)."""
    c = np.asarray(c, dtype=np.int64)
    r = np.asarray(r, dtype=np.int64)
    log_bc = np.zeros(c.shape[:-1])
    for i in range(a.size):
        vals = np.unique(np.concatenate([c[..., i].ravel(), r[..., i].ravel()]))
        J = lgamma_jensen_gap(a[i] + vals[:, None].astype(np.float64), a[i] + vals[None, :].astype(np.float64))
        log_bc += J[np.searchsorted(vals, c[..., i]), np.searchsorted(vals, r[..., i])]
    return hellinger_from_log_bc(log_bc, out=log_bc)


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

    def transition(self, z: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """``T(z, .)`` at every row of ``z``: ``(outputs (B, J, k), probs (B, J))``; off the table the local Bayes
        output (:func:`.remap.local_bayes_search`, as a draw computes it) with probability 1."""
        z = np.array(z, dtype=np.int64, ndmin=2).reshape(-1, self.a.size)
        rows = self.rows(z)
        J = self.outputs.shape[1]
        out = np.zeros((len(z), J, self.a.size), dtype=np.int64)
        p = np.zeros((len(z), J))
        on = rows >= 0
        out[on], p[on] = self.row_outputs(rows[on]), self.probs[rows[on]]
        for i in np.flatnonzero(~on):
            out[i, :] = local_bayes_search(self.a, self.n, self.epsilon, z[i])
            p[i, 0] = 1.0
        return out, p

    def draw(self, z: ArrayLike, bits) -> NDArray[np.int64]:
        """One output at the lattice point ``z``: a row of the table drawn by integer weights
        (:func:`~dpposterior.randomness.float_weights`: total variation at most ``J 2^-127`` from the row), else the
        local Bayes output."""
        z = np.asarray(z, dtype=np.int64).reshape(self.a.size)
        f = int(self.rows(z)[0])
        if f < 0:
            return local_bayes_search(self.a, self.n, self.epsilon, z)
        p = self.probs[f]
        nz = np.flatnonzero(p > 0)
        pick = nz[int(choose(float_weights(p[nz]), 1, bits)[0])] if nz.size > 1 else nz[0]
        return self.row_outputs(np.array([f]))[0, pick]


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


def corner_remap(prior: ArrayLike, n: int, epsilon: float, depth: int | None = None, certify: bool = False
                 ) -> CornerRemap:
    """The corner remap at (prior, n, eps) by its LP (scipy HiGHS), with the certificate at ``n`` if ``certify``
    (module docstring; docs/lattice.md).  k = 3 (the local Bayes rows come from :func:`.search.local_search_many`).

    ``certificate``: ``lp`` (the LP's ``t`` at ``n_ref``: the largest ``E`` over the constrained data sets with
    the kernel cut at ``W``), ``lower`` (certified at ``n``: at most the best worst case over all remaps of the
    release; nan without ``certify``), sizes."""
    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    depth = default_depth(eps) if depth is None else _validate.integer(depth, "depth", 0)
    remap = _translated(_solve(a, min(n, reference_n(eps, depth, a.size)), eps, depth), n)
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


def corner_sizes(n: int, k: int, epsilon: float, depth: int | None = None) -> dict:
    """The corner LP's sizes from public n, k, eps, in closed form (no set is built, so a plan at a small eps costs
    nothing): ``n_ref``, ``free`` and ``fixed`` rows, ``constraints`` and ``pairs`` (data set x free row pairs within
    ``W``), ``outputs`` per row.  Per corner ``C(m + k - 1, k - 1)`` points lie within ``m`` of a vertex; the pairs
    are a quarter of ``free x |ball(W)|`` (the free rows near a vertex see only part of their ball in R(n); Dir(1,1,1),
    eps = 2, 1, 0.5: 13,425, 70,278, 579,330 pairs counted, 12,968, 68,517, 618,898 estimated), each count capped by
    the whole window."""
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
    return {"n_ref": n0, "free": free, "fixed": fixed, "constraints": constraints,
            "pairs": min(free * ball // 4, free * constraints), "outputs": sum(sphere_count(k, t)
                                                                              for t in range(R_RADIUS + 1))}


def _solve(a, n0, eps, depth) -> CornerRemap:
    """The table at ``n0`` (module docstring): free rows ``F`` (within ``depth`` of a vertex, coordinates
    ``>= -inner``), constrained data sets ``A = {c : d(c, F) <= W}``, fixed rows ``G = {z : d(z, A) <= W} \\ F`` (the
    local Bayes remap)."""
    from scipy import sparse
    from scipy.optimize import linprog

    from .search import local_search_many

    k = a.size
    W, W1, shift, Fz, A, M, mkeys, free = _regions(k, n0, eps, depth)
    Gz = M[~free]
    lb = local_search_many(a, n0, eps, Gz) if len(Gz) else np.zeros((0, k), dtype=np.int64)
    nF, nA = len(Fz), len(A)
    # the variables: pairs (free row, output within R_RADIUS of project(z))
    rb = _ball(k, R_RADIUS)
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
        b[lo:lo + step] += np.bincount(gi_c, weights=np.exp(-eps * dg[gi_c, gi_z] - logZ) * pair_loss(
            a, A[lo + gi_c], lb[gi_z]), minlength=len(dg))
    A_ub = sparse.csr_array((np.append(coef, -np.ones(nA)), (np.append(row, np.arange(nA)),
                                                            np.append(var, np.full(nA, nv)))), shape=(nA, nv + 1))
    A_eq = sparse.csr_array((np.ones(nv), (vf, np.arange(nv))), shape=(nF, nv + 1))
    cost = np.zeros(nv + 1)
    cost[-1] = 1.0
    cost[:nv] = REGULARISER * np.bincount(var, weights=coef, minlength=nv) / nA  # the average over A, as a tie-break
    res = linprog(cost, A_ub=A_ub, b_ub=-b, A_eq=A_eq, b_eq=np.ones(nF), bounds=(0, None), method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
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
    outputs = np.repeat(lb[:, None, :], width, axis=1) if len(Gz) else np.zeros((0, width, k), dtype=np.int64)
    probs = np.zeros((len(M), width))
    full_out = np.zeros((len(M), width, k), dtype=np.int64)
    full_out[free], probs[free] = oF, pF
    full_out[~free], probs[~free, 0] = outputs, 1.0
    lam = np.clip(-res.ineqlin.marginals, 0.0, None)
    cert = {"lp": float(res.x[-1]), "depth": depth, "inner": W1, "W": W, "n_ref": n0, "variables": nv,
            "constraints": nA, "free_rows": nF, "fixed_rows": len(Gz), "lower": float("nan")}
    remap = CornerRemap(a=a, n=n0, n_ref=n0, epsilon=eps, depth=depth, inner=W1, W=W, shift=shift, points=M,
                        keys=mkeys, outputs=full_out, probs=probs, corner=np.argmax(M, axis=1), free=free,
                        certificate=cert, duals=(A, lam))
    return remap


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


def certify_remap(remap: CornerRemap, block_depth: int | None = None) -> float:
    """The certificate's lower end at the remap's ``n`` (module docstring), the largest over three choices of weights
    (any weights certify): the LP's dual weights on its constrained data sets (translated from ``n_ref``); the same
    restricted to the data sets within ``depth`` of a vertex (where the duals sit on a data set whose error the fixed
    rows pin, the first is weak); the duals of the corner block's own LP (:func:`block_duals`, depth
    ``block_depth``, default the remap's ``depth``: Dir(1,1,1), n = 100, eps = 1: depth 3, 8, 12 give 0.2749, 0.3126,
    0.3153 against 0.3144 from the first; n = 300, eps = 0.5: depth 6, 10, 15 give 0.4229, 0.4469, 0.4515 against
    0.3802)."""
    A, lam = remap.duals
    A = A.copy()
    j = np.argmax(A, axis=1)
    A[np.arange(len(A)), j] += remap.n - remap.n_ref
    choices = [(A, lam, lam > 0), (A, lam, (lam > 0) & (remap.n - A.max(axis=1) <= remap.depth))]
    C0, lam0 = block_duals(remap.a, remap.n, remap.epsilon, remap.depth if block_depth is None else block_depth)
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


def block_duals(a: NDArray[np.float64], n: int, eps: float, depth: int
                ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Dual weights for the certificate from the corner block's own LP: ``min t`` subject to ``E(c) <= t`` for the
    data sets ``C0`` within ``depth`` of a vertex, every row ``z`` within ``W`` of ``C0`` free (outputs within
    :data:`R_RADIUS` of ``project(z)``), the kernel cut at ``W``.  Returns ``(C0, duals)``; only the weights are used
    (:func:`certified_lower` bounds every remap whatever they are)."""
    from scipy import sparse
    from scipy.optimize import linprog

    k = a.size
    W = radius_for(k, eps, LP_TOL)
    C0, _ = corner_sets(n, k, depth)
    Fz, _ = _union(C0, _ball(k, W), W)
    rb = _ball(k, R_RADIUS)
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


def certified_lower(a, n, eps, C, vertex, Fz, lam, depth, reach) -> float:
    """The certificate's lower end (module docstring) for dual weights ``lam`` on the corner data sets ``C``."""
    k = a.size
    if lam.sum() <= 0:
        lam = np.ones(len(C))
    lam = lam / lam.sum()
    N, _ = corner_sets(n, k, depth + reach)  # every output within reach of a data set within depth of a vertex
    L = pair_loss(a, np.broadcast_to(C[:, None, :], (len(C), len(N), k)),
                  np.broadcast_to(N[None, :, :], (len(C), len(N), k)))  # (|C|, |N|)
    lk = _kernel(eps, k, Fz[:, None, :], C[None, :, :]) * lam[None, :]  # (nF, |C|)
    near = (lk @ L).min(axis=1)
    from ..models import n_candidates

    if len(N) < n_candidates(n, k):
        far = np.zeros(len(Fz))
        for j in range(k):
            sel = vertex == j
            if sel.any():
                far += far_loss(a, n, depth, reach, j) * lk[:, sel].sum(axis=1)
        near = np.minimum(near, far)
    total = float(near.sum())
    margin = (len(C) + len(Fz) + 8) * 2.0**-52 * total + LOSS_SLACK
    return max(0.0, total - margin)


def corner_errors(remap: CornerRemap, local_outputs: NDArray[np.int64], We: int, base=None):
    """``E(c)`` of the corner release for every c of R(n) (k = 3), as a :class:`.scale.Bracket` (module docstring):
    ``local_outputs`` is the local Bayes remap at every point of ``window(n, 3, We)`` (lexicographic;
    :func:`.search.local_search_many`), ``base`` its :func:`.search.window_errors` (computed if None)."""
    from .scale import Bracket, _LossTables
    from .search import window_errors

    a, n, eps, k = remap.a, remap.n, remap.epsilon, remap.a.size
    if base is None:
        base = window_errors(a, n, eps, local_outputs, We)
    offs = _ball(k, int(We))
    wts = np.exp(-eps * (np.abs(offs).sum(axis=1) // 2) - log_normaliser(k, eps))
    R = base.counts
    # the data sets whose ball meets F
    pts = remap.points.copy()
    pts[np.arange(len(pts)), remap.corner] += n - remap.n_ref
    A, _ = _union(pts, offs, remap.shift + We)
    A = A[np.all(A >= 0, axis=1)]
    ai = candidate_rank(A)
    tables = _LossTables(a, n, R).tables
    n1 = n + 1

    def loss(c, r):
        lb = tables[0][c[..., 0] * n1 + r[..., 0]] + tables[1][c[..., 1] * n1 + r[..., 1]] + tables[2][
            c[..., 2] * n1 + r[..., 2]]
        return hellinger_from_log_bc(lb, out=lb)

    low = base.low.copy()
    step = max(1, BLOCK_ENTRIES // len(offs))
    for lo in range(0, len(A), step):
        c = A[lo:lo + step]
        acc = np.zeros(len(c))
        for w, kw in zip(offs, wts):
            z = c + w[None, :]
            f = remap.rows(z)
            on = f >= 0
            term = np.empty(len(c))
            if (~on).any():
                r = local_outputs[_window_key(z[~on], We)]
                term[~on] = loss(c[~on], r)
            if on.any():
                fo = f[on]
                ro = remap.row_outputs(fo)
                cc = np.broadcast_to(c[on][:, None, :], ro.shape)
                term[on] = (remap.probs[fo] * loss(cc, ro)).sum(axis=1)
            acc += kw * term
        low[ai[lo:lo + step]] = acc
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
