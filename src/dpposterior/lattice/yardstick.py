"""A certified lower bound on the best achievable error (worst case and average) at any n: a yardstick below the LP.

The optimum (docs/definitions.md §9) is the LP over eps-DP tables ``P(r | c)`` on R(n) x R(n).  This module
solves *relaxations* of it, each provably at or below the optimum, at sizes where the LP itself does not run.

Block relaxation (definition).  Take a set ``S`` of data sets (a *block*) and a partition ``G`` of the outputs
R(n) into *groups*.  ``LP(S, G)``: variables ``Q(g | c) >= 0`` for ``c`` in ``S``, ``g`` in ``G``;
``sum_g Q(g | c) = 1``; ``Q(g | c) <= e^eps Q(g | c')`` for every neighbouring pair with *both* ends in ``S``;
loss ``L'(c, g) = min_{r in g} L(c, r)``.  Objectives: ``min t`` with ``sum_g Q(g | c) L'(c, g) <= t`` for every
``c`` in ``S`` (worst), or ``min sum_{c in S} pi(c) sum_g Q(g | c) L'(c, g)`` (average; ``pi`` the prior predictive
normalised over the whole of R(n)).

Theorem.  (i) ``worst(S, G) <= OPT_worst`` for every block; (ii) for disjoint blocks ``S_1..S_m``,
``sum_j average(S_j, G_j) <= OPT_average``.
Proof.  Let ``P`` be any eps-DP table on R(n).  ``Q(g | c) = sum_{r in g} P(r | c)`` (post-processing by the
map r -> its group, the data-processing inequality of DP) is feasible for ``LP(S, G)``: rows sum to 1, and
summing ``P(r | c) <= e^eps P(r | c')`` over ``r`` in ``g`` gives the constraint for every pair kept (dropping
the pairs that leave ``S`` only removes constraints).  Its loss is no larger:
``sum_g Q(g | c) L'(c, g) = sum_g sum_{r in g} P(r | c) min_{r' in g} L(c, r') <= sum_r P(r | c) L(c, r) = E_P(c)``.
So ``worst(S, G) <= max_{c in S} E_P(c) <= max_c E_P(c)`` and
``average(S_j, G_j) <= sum_{c in S_j} pi(c) E_P(c)``; summing over disjoint blocks gives at most
``sum_c pi(c) E_P(c)``.  Take ``P`` optimal.  QED.

Certified value of each block LP (rigorous even though HiGHS works in floats).  For the LP
``min cost^T x``, ``A_ub x <= b_ub``, ``A_eq x = b_eq``, ``0 <= x <= 1`` (every ``Q`` is at most 1 and ``t`` may be
capped at 1 since every loss is at most 1, so the box changes no optimum), any ``y_ub <= 0`` and ``y_eq`` give
``cost^T x >= y_ub^T b_ub + y_eq^T b_eq + sum_j min(0, rc_j)`` with ``rc = cost - A_ub^T y_ub - A_eq^T y_eq``
(weak duality with the box: ``rc^T x >= sum min(0, rc_j)`` for ``x`` in ``[0, 1]``).  The duals of HiGHS
(interior point with crossover, faster here than the simplex), clipped to the right signs, are plugged in.
Rounding: a float sum of ``m`` terms is within ``(m - 1) u sum |terms|`` of the exact one (``u = 2^-53``), so
the value is lowered by ``gamma (|y_eq|^T b_eq + sum_j (|cost_j| + (|A_ub|^T |y_ub|)_j + (|A_eq|^T |y_eq|)_j))``
with ``gamma = (terms of the longest sum + 2) 2^-52``, plus :data:`MARGIN`.

Sparse blocks.  Two data sets ``c, c'`` of R(n) at substitution distance ``d`` (``|c - c'|_1 = 2 d``) are joined
by a path of ``d`` neighbouring pairs inside R(n) (move one unit at a time along ``c' - c``; every count stays between
the two ends'), so every eps-DP table has ``P(r | c) <= e^(d eps) P(r | c')``.  A block ``S`` may therefore keep,
besides its neighbouring pairs, every pair at distance ``d <= step`` with the constraint ``Q(g | c) <= e^(d eps)
Q(g | c')``: the proof of the theorem holds word for word (the constraints kept are implied by eps-DP), so
``worst(S, G) <= OPT_worst`` still.  The sparse block (:func:`sparse_block`, :func:`sparse_bound`) takes the data sets
whose counts are multiples of ``step``, all but the largest: a ``step^(k-1)``-th of R(n) under every permutation of
the categories, where the worst case sits at small eps (the vertices are in it), with every output its own group.
At Dir(1,1,1,1), eps = 0.5, n = 12 it certifies 0.63937 against the LP's 0.65040 in a 25th of its time.  Larger,
its members' outputs beyond a ball are lumped as :func:`ball_bound` does (``sparse_bound``'s ``radius``; proof in its
docstring): n = 20, radius 10, 0.64472 in 19 CPU s against the whole block's 0.64671 in 45.

What ``compare`` runs (planned from public prior, n and eps, each within its share of the command):
the worst case from the *corner blocks* ``{c : c_i >= n - depth}`` (:func:`corner_bound`, :func:`plan_corner`:
the releases' worst case sits next to a vertex, and a corner block loses only its one artificial edge), and the
average from a *dual solution of the whole LP* (:func:`flow_bound`, :func:`plan_flow`; proof in its docstring),
which needs no partition and so loses nothing on block edges, then, where the share allows, the same dual with each
window's ``y`` optimal (:func:`column_bound`: one small LP per output; proof in its docstring); where a release's
errors are at hand (k = 3 and 4), that dual started from them (:func:`release_bound`, :func:`plan_release`: the flows
in every window first, an LP where they leave a deficit, as many as fit).  At k = 4, in what those plans leave, the
worst case also from the same dual under other weights than pi (:func:`weighted_bound`, :func:`plan_weighted`: a
worst case is at least any weighted average of the errors; the weights the minimax LP's own at a smaller n, carried
over and mixed with pi), or, where it fits there (k = 4, eps <= 0.5), the LP with every data set's outputs beyond a
ball of a few substitutions lumped into one (:func:`ball_bound`, :func:`plan_ball`; proof in its docstring).

Choice of blocks and groups for :func:`lower_bound` (k = 3 here; any k works by the theorem).  Blocks: the cells
of a grid of side ``side`` in the first ``k - 1`` counts (a partition of R(n)); groups: every output within
substitution distance ``reach`` of the block kept as its own group, all other outputs lumped into one group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate as _validate
from ..distances.hellinger import HellingerGrid
from ..errors import InputError
from ..limits import Plan, Task, duration_text
from ..models import candidate_rank, candidates, log_prior_predictive

#: Outputs within this substitution distance of a corner block are their own groups, the rest one group (at
#: Dir(1,1,1), n = 100, eps = 1, depth 10, reach 2, 3 and 4 agree to 1e-9; docs/lattice.md).
CORNER_REACH = 2
#: Lowered from every certified block value (rounding of the dual sums; see the module docstring).
MARGIN = 1e-12


@dataclass
class Yardstick:
    """Certified lower bounds on the optimum's worst-case and average errors (docs/lattice.md)."""

    worst: float
    average: float
    blocks: int
    worst_block: tuple[int, ...]


#: Candidates per chunk when the far group's loss is taken over all of R(n) (memory: |S| x chunk doubles).
CHUNK = 1 << 16


def _pairs(S: NDArray[np.int64], step: int = 1) -> NDArray[np.int64]:
    """The ordered pairs ``(i, j)`` of members of the block (rows of ``S``: data sets of one n) at substitution
    distance at most ``step`` (``|S[i] - S[j]|_1 = 2 d``, ``1 <= d <= step``); ``step`` 1: the neighbouring pairs.
    Their distances: :func:`_pair_distances`."""
    k = S.shape[1]
    index = {tuple(c): i for i, c in enumerate(S.tolist())}
    moves = _moves(k, step)
    pairs = []
    for i, c in enumerate(S.tolist()):
        for move in moves:
            j = index.get(tuple(x + m for x, m in zip(c, move)))
            if j is not None:
                pairs.append((i, j))
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def _moves(k: int, step: int) -> list[tuple[int, ...]]:
    """The nonzero integer vectors of ``k`` coordinates summing to 0 with ``|m|_1 <= 2 step`` (moves of at most
    ``step`` substitutions), the unit moves ``e_q - e_p`` first in the order ``(p, q)``."""
    from itertools import product

    unit = [tuple((x == q) - (x == p) for x in range(k)) for p in range(k) for q in range(k) if p != q]
    if step <= 1:
        return unit
    longer = [m for m in product(range(-step, step + 1), repeat=k)
              if sum(m) == 0 and 2 < sum(map(abs, m)) <= 2 * step]
    return unit + longer


def _pair_distances(S: NDArray[np.int64], pairs: NDArray[np.int64]) -> NDArray[np.int64]:
    """The substitution distance of each pair of :func:`_pairs` (half the L1 distance of its ends)."""
    return np.abs(S[pairs[:, 0]] - S[pairs[:, 1]]).sum(axis=1) // 2


def _near_outputs(n: int, S: NDArray[np.int64], reach: int) -> NDArray[np.int64]:
    """The outputs ``r`` of R(n) within substitution distance ``reach`` of the block ``S`` (each coordinate of such
    an ``r`` is within ``reach`` of a member's, so the box around ``S`` holds them all), in candidate order."""
    k = S.shape[1]
    lo = np.maximum(S.min(axis=0) - reach, 0)
    hi = np.minimum(S.max(axis=0) + reach, n)
    axes = [np.arange(lo[i], hi[i] + 1) for i in range(k - 1)]
    box = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, k - 1)
    last = n - box.sum(axis=1)
    box = np.column_stack([box, last])[(last >= lo[-1]) & (last <= hi[-1])]
    dist = np.abs(box[:, None, :] - S[None, :, :]).sum(axis=-1).min(axis=1) // 2
    near = box[dist <= reach]
    order = np.lexsort(near.T[::-1])  # lexicographic, as candidates(n, k)
    return near[order]


def _groups(grid: HellingerGrid, n: int, S: NDArray[np.int64], reach: int,
            source: NDArray[np.int64] | None = None):
    """The near outputs of the block (one group each) and, per member, the far group's loss
    ``min over r with d(r, S) > reach of L(c, r)`` (None when no output is far), taken over all of R(n) in chunks.
    ``source``: member ``i`` takes member ``source[i]``'s far loss (an image of it under a symmetry of the block and
    the prior, :func:`_symmetry_images`), which alone is scanned."""
    near = _near_outputs(n, S, reach)
    k = S.shape[1]
    R = candidates(n, k)
    if len(R) == len(near):
        return near, None
    todo = np.arange(len(S)) if source is None else np.unique(source)
    far = np.full(len(todo), np.inf)
    for start in range(0, len(R), CHUNK):
        part = R[start:start + CHUNK]
        lo, hi = S.min(axis=0) - reach, S.max(axis=0) + reach
        inbox = np.all((part >= lo) & (part <= hi), axis=1)
        keep = np.ones(len(part), dtype=bool)
        if inbox.any():
            d = np.abs(part[inbox][:, None, :] - S[None, :, :]).sum(axis=-1).min(axis=1) // 2
            keep[np.flatnonzero(inbox)[d <= reach]] = False
        if keep.any():
            far = np.minimum(far, grid.hellinger(S[todo], part[keep]).min(axis=1))
    if source is None:
        return near, far
    full = np.empty(len(S))
    full[todo] = far
    return near, full[source]


def _symmetry_images(a: NDArray[np.float64], S: NDArray[np.int64]) -> list[tuple[list[int], NDArray[np.int64]]]:
    """The permutations ``s`` of the categories (``s c = c[perm]``) that leave the prior (exactly) and the block ``S``
    (as a set) unchanged, each with the index of ``s c`` in ``S`` for every member ``c`` (the identity first): a
    group, as the permutations fixing two things are."""
    from itertools import permutations

    index = {c: i for i, c in enumerate(map(tuple, S.tolist()))}
    out = []
    for perm in permutations(range(a.size)):
        p = list(perm)
        if not np.array_equal(a[p], a):
            continue
        img = [index.get(c) for c in map(tuple, S[:, p].tolist())]
        if all(i is not None for i in img):
            out.append((p, np.array(img, dtype=np.int64)))
    return out


def _orbit_lp(images_s, images_g, pairs_arr, nS, nG, A_ub, A_eq, cost, worst_rows: bool = True):
    """The block's worst-case LP restricted to the solutions invariant under the block's symmetries (proof in
    :func:`block_bound`): one variable per orbit of ``(c, g)`` (its columns summed), one constraint per orbit of
    constraints (the rows of an orbit coincide on invariant solutions).  Returns ``(A_ub, A_eq, cost, rows_ub,
    rows_eq, P)``, the rows kept (their right sides are the original's at those rows) and the 0/1 matrix ``P`` that
    maps an orbit solution to the invariant solution (``x = P y``).  ``A_ub``'s rows: the DP rows (pair-major,
    group-minor), then, where ``worst_rows``, one worst-case row per member; the last variable is ``t``, its own
    orbit."""
    from scipy import sparse

    nv = nS * nG + 1
    var = np.arange(nv - 1)
    vc, vg = var // nG, var % nG
    rep = var.copy()
    pair_index = {p: i for i, p in enumerate(map(tuple, pairs_arr.tolist()))}
    m = len(pairs_arr) * nG
    row_dp = np.arange(m)
    rep_dp = row_dp.copy()
    rep_c = np.arange(nS)
    for si, gi in zip(images_s, images_g):
        rep = np.minimum(rep, si[vc] * nG + gi[vg])
        pim = np.array([pair_index[(int(si[x]), int(si[y]))] for x, y in pairs_arr.tolist()], dtype=np.int64)
        rep_dp = np.minimum(rep_dp, pim[row_dp // nG] * nG + gi[row_dp % nG])
        rep_c = np.minimum(rep_c, si)
    _, col = np.unique(np.append(rep, nv - 1), return_inverse=True)
    P = sparse.csr_array((np.ones(nv), (np.arange(nv), col.ravel())), shape=(nv, int(col.max()) + 1))
    keep_c = np.flatnonzero(rep_c == np.arange(nS))
    rows_ub = np.concatenate([np.flatnonzero(rep_dp == row_dp)] + ([m + keep_c] if worst_rows else []))
    return (A_ub @ P)[rows_ub].tocsr(), (A_eq @ P)[keep_c].tocsr(), P.T @ cost, rows_ub, keep_c, P


def block_bound(a: NDArray[np.float64], n: int, epsilon: float, S: NDArray[np.int64], reach: int,
                log_pi: NDArray[np.float64] | None = None, grid: HellingerGrid | None = None,
                worst: bool = True, symmetric: bool = False, duals: dict | None = None, step: int = 1
                ) -> tuple[float, float]:
    """Certified ``(worst(S, G), average(S, G))`` of one block ``S`` (rows: data sets of R(n); module docstring).

    ``step``: the pairs kept are those of members at substitution distance ``d <= step`` (:func:`_pairs`), each with
    the constraint ``Q(g | c) <= e^(d eps) Q(g | c')`` (module docstring, "Sparse blocks"); 1: the neighbouring pairs.

    ``log_pi``: the log prior predictive of the rows of ``S`` normalised over the whole of R(n); without it the
    average is not solved (nan); ``worst=False``: the worst case is not solved (nan).

    ``symmetric`` (the worst case only): solve the LP over the solutions invariant under the group ``Gamma`` of the
    permutations of the categories that leave the prior and ``S`` unchanged (:func:`_symmetry_images`; at a corner
    block of a symmetric prior the permutations of the other counts: a half of the LP at k = 3, a sixth at k = 4).
    Proof that this is still at most ``OPT_worst``.  Each ``s`` in ``Gamma`` maps the neighbour pairs of ``S`` onto
    themselves and the groups onto groups (``d(s r, S) = d(r, s^-1 S) = d(r, S)``: the near outputs permuted, the
    far group onto itself), and ``L(s c, s r) = L(c, r)``.  The losses are made exactly invariant by taking
    ``L''(c, g) = min_s L'(s c, s g)`` (in exact arithmetic the same; in floats at most ``L'``, so the theorem holds
    for ``L''`` as for ``L'``).  Then ``LP(S, G)`` with ``L''`` is invariant: ``(x o s)`` is feasible with the same
    ``t`` when ``x`` is, and so is their average over ``Gamma`` (convexity), an invariant solution.  So the LP over
    invariant solutions has the same optimum, and it is the LP with one variable per orbit of ``(c, g)`` and one
    constraint per orbit of constraints (on invariant solutions the constraints of an orbit are one another's
    images, each holding exactly when the others do).  Its certified value (module docstring: weak duality with the
    box, applied to the reduced LP) is at most its optimum, so at most ``OPT_worst``.  The far group's loss is
    scanned once per orbit of members (:func:`_groups`).

    ``duals``: a dict that receives, under ``"worst"``, HiGHS's multipliers of the worst case's rows
    ``sum_g Q(g | c) L'(c, g) <= t`` (clipped to ``>= 0``; an orbit's spread evenly over its members), one per row of
    ``S``: where ``S`` is all of R(n) the weights ``lambda`` of the minimax LP's saddle point (``sum lambda = 1`` at
    the optimum), which only choose the weights of :func:`weighted_worst` (any weights give a valid bound); under
    ``"rows"`` the multipliers of the rows ``sum_g Q(g | c) = 1`` (an orbit's spread evenly the same way), which only
    choose where :func:`weighted_bound`'s dual starts.
    """
    from scipy import sparse
    from scipy.optimize import linprog

    grid = HellingerGrid(a, n) if grid is None else grid
    images = _symmetry_images(a, S) if symmetric and worst else []
    images_s = [img for _, img in images]
    source = np.min(np.stack(images_s), axis=0) if len(images) > 1 else None
    near, far_loss = _groups(grid, n, S, reach, source)
    Lg = grid.hellinger(S, near)
    if far_loss is not None:
        Lg = np.column_stack([Lg, far_loss])
    nS, nG = Lg.shape
    images_g = []
    if source is not None:  # the groups' images: the near outputs permuted, the far group (last) fixed
        near_index = {r: i for i, r in enumerate(map(tuple, near.tolist()))}
        for p, si in images:
            gi = np.array([near_index[r] for r in map(tuple, near[:, p].tolist())] + [nG - 1] * (nG - len(near)),
                          dtype=np.int64)
            images_g.append(gi)
            Lg = np.minimum(Lg, Lg[si][:, gi])  # L'' = min over the orbit: exactly invariant
    pairs_arr = _pairs(S, step)
    nv = nS * nG + 1
    # Q(g | c_i) - e^(d eps) Q(g | c_j) <= 0 for every kept pair (at distance d) and group
    e = np.exp(epsilon * _pair_distances(S, pairs_arr).astype(np.float64))
    m = len(pairs_arr) * nG
    rows = np.repeat(np.arange(m), 2)
    gi = np.tile(np.arange(nG), len(pairs_arr))
    ci = np.repeat(pairs_arr[:, 0], nG)
    cj = np.repeat(pairs_arr[:, 1], nG)
    cols = np.column_stack([ci * nG + gi, cj * nG + gi]).ravel()
    vals = np.column_stack([np.ones(m), -np.repeat(e, nG)]).ravel()
    A_dp = sparse.csr_array((vals, (rows, cols)), shape=(m, nv))
    A_eq = sparse.hstack([sparse.kron(sparse.eye_array(nS), np.ones((1, nG))), sparse.csr_array((nS, 1))]).tocsr()
    b_eq = np.ones(nS)
    out = []
    for objective in ("worst", "average"):
        if objective == "worst":
            if not worst:
                out.append(float("nan"))
                continue
            E = sparse.hstack([sparse.block_diag([Lg[i][None, :] for i in range(nS)]), sparse.csr_array(-np.ones((nS, 1)))])
            A_ub = sparse.vstack([A_dp, E]).tocsr()
            cost = np.zeros(nv)
            cost[-1] = 1.0
            if source is not None:  # one variable per orbit, one constraint per orbit (docstring)
                A_ub, A_eq_w, cost, _, kept, _ = _orbit_lp(images_s, images_g, pairs_arr, nS, nG, A_ub, A_eq, cost)
                res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=A_eq_w, b_eq=b_eq[kept],
                              bounds=(0, 1), method="highs-ipm")
                out.append(_certified(res, cost, A_ub, np.zeros(A_ub.shape[0]), A_eq_w, b_eq[kept]))
                if duals is not None:  # the orbit's multiplier spread over its members
                    least = np.stack(images_s).min(axis=0)
                    lam = np.zeros(nS)
                    lam[kept] = np.maximum(-np.asarray(res.ineqlin.marginals)[-len(kept):], 0.0)
                    duals["worst"] = lam[least] / np.bincount(least, minlength=nS)[least]
                    nu = np.zeros(nS)
                    nu[kept] = np.asarray(res.eqlin.marginals)
                    duals["rows"] = nu[least] / np.bincount(least, minlength=nS)[least]
                continue
        else:
            if log_pi is None:
                out.append(float("nan"))
                continue
            A_ub = A_dp
            cost = np.append((np.exp(log_pi)[:, None] * Lg).ravel(), 0.0)
        b_ub = np.zeros(A_ub.shape[0])
        res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, 1), method="highs-ipm")
        out.append(_certified(res, cost, A_ub, b_ub, A_eq, b_eq))
        if objective == "worst" and duals is not None:
            duals["worst"] = np.maximum(-np.asarray(res.ineqlin.marginals)[-nS:], 0.0)
            duals["rows"] = np.asarray(res.eqlin.marginals, dtype=np.float64)
    return out[0], out[1]


def _certified(res, cost, A_ub, b_ub, A_eq, b_eq) -> float:
    """The certified value of a block LP from HiGHS's duals (module docstring: weak duality with the box, lowered
    by the rounding of its sums and :data:`MARGIN`)."""
    if res.status != 0:
        raise InputError(f"a block LP of the yardstick failed: {res.message}")
    y_ub = np.minimum(res.ineqlin.marginals, 0.0)
    y_eq = res.eqlin.marginals
    rc = cost - A_ub.T @ y_ub - A_eq.T @ y_eq
    value = float(y_ub @ b_ub + y_eq @ b_eq + np.minimum(rc, 0.0).sum())
    scale = float(np.abs(y_ub) @ np.abs(b_ub) + np.abs(y_eq) @ b_eq
                  + (np.abs(cost) + abs(A_ub).T @ np.abs(y_ub) + abs(A_eq).T @ np.abs(y_eq)).sum())
    longest = max(A_ub.shape[0], A_eq.shape[0], len(cost)) + 2
    return value - longest * 2.0**-52 * scale - MARGIN


def corners(prior: ArrayLike) -> list[int]:
    """One vertex per class of equal prior weights: the categories ``i`` whose ``a_i`` is the first of its value.

    Swapping two categories of equal ``a_i`` maps R(n), the neighbour relation, the loss and the prior predictive
    onto themselves, so the corner blocks of ``i`` and ``j`` have the same relaxation value."""
    a = np.asarray(prior, dtype=np.float64)
    return [i for i in range(a.size) if not np.any(a[:i] == a[i])]


def corner_block(n: int, k: int, i: int, depth: int) -> NDArray[np.int64]:
    """The corner block ``{c in R(n) : c_i >= n - depth}`` (rows in candidate order)."""
    R = candidates(depth, k)  # the other counts sum to at most depth: c = r + (n - depth) e_i
    R = R.copy()
    R[:, i] += n - depth
    return R[np.lexsort(R.T[::-1])]


def corner_bound(prior: ArrayLike, n: int, epsilon: float, depth: int, reach: int = CORNER_REACH,
                 symmetric: bool = True) -> Yardstick:
    """Certified lower bound on the optimal worst-case error from the corner blocks ``{c : c_i >= n - depth}``
    (docs/lattice.md; a block of the theorem in the module docstring, so ``worst <= OPT_worst``), one per class of
    equal prior weights (:func:`corners`).

    A corner block has one artificial edge (``c_i = n - depth``); the simplex's own boundary drops no
    constraint, so it loses less than a grid cell of the same size, and the worst case of the releases sits next
    to a vertex.  With ``depth = n`` the block is all of R(n) and ``reach >= n`` keeps every output: the LP itself.
    ``average`` is nan.  ``symmetric``: each block's LP over the solutions invariant under the permutations of the
    categories that fix its vertex and the prior (:func:`block_bound`: the same optimum, a half of the LP at k = 3 at a
    symmetric prior, a sixth at k = 4); False solves the whole block LP.  At ``depth = n`` every corner block is all
    of R(n) (one block, solved once), invariant under every permutation of the categories that leaves the prior
    unchanged, so the LP is solved over one variable per orbit of that whole group (at Dir(1,1,1,1) a 24th of it):
    with the default reach every output is its own group and every neighbouring pair is kept, so this is the LP of
    docs/definitions.md §9 itself, its value certified from its duals (Dir(1,1,1,1), eps = 0.5: 0.64125 at n = 10,
    6.1 CPU s, where the average's dual certified 0.5994).
    """
    a = _validate.prior(prior)
    k = a.size
    n = _validate.integer(n, "n", 0)
    eps = _validate.epsilon(epsilon)
    depth = _validate.integer(depth, "depth", 0, n)
    grid = HellingerGrid(a, n)
    worst, where = -np.inf, ()
    # at depth n every corner block is all of R(n): one solve (over all the prior's symmetries, :func:`block_bound`)
    solved = corners(a)[:1] if depth == n else corners(a)
    for i in solved:
        w, _ = block_bound(a, n, eps, corner_block(n, k, i, depth), reach, None, grid, symmetric=symmetric)
        if w > worst:
            worst, where = w, (i,)
    return Yardstick(worst=max(worst, 0.0), average=float("nan"), blocks=len(solved), worst_block=where)


def lower_bound(prior: ArrayLike, n: int, epsilon: float, side: int = 8, reach: int = 6,
                objective: str = "both", at: ArrayLike | None = None) -> Yardstick:
    """Certified lower bounds on the optimal worst-case and average errors (docs/definitions.md §9; docs/lattice.md).

    Partitions R(n) into grid cells of ``side`` in the first ``k - 1`` counts and solves each block's
    relaxation (module docstring): worst = the largest block value, average = the sum of the block values.
    ``objective="average"`` solves only the average LPs (worst is then nan); ``objective="worst"`` solves only
    the worst-case LP of the cells holding the data sets ``at`` (rows; default
    the vertices ``n e_i`` of the simplex): any set of blocks gives a valid worst-case bound; the average is
    then nan.
    """
    a = _validate.prior(prior)
    k = a.size
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    objective = _validate.choice(objective, ("both", "worst", "average"), "objective")
    R = candidates(n, k)
    lp = log_prior_predictive(a, R)
    lp = lp - np.logaddexp.reduce(lp)
    grid = HellingerGrid(a, n)
    cells = R[:, : k - 1] // side
    keys, inverse = np.unique(cells, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    todo = range(len(keys))
    if objective == "worst":
        pts = n * np.eye(k, dtype=np.int64)
        if at is not None:
            pts = np.array([_validate.counts(c, "at", k=k, n=n) for c in np.asarray(at).reshape(-1, k)])
        todo = sorted({int(np.flatnonzero((keys == v).all(axis=1))[0]) for v in pts[:, : k - 1] // side})
    worst, total, where = -np.inf, 0.0, ()
    for b in todo:
        members = np.flatnonzero(inverse == b)
        w, avg = block_bound(a, n, eps, R[members], reach, lp[members] if objective != "worst" else None, grid,
                             worst=objective != "average")
        total += avg
        if w > worst:
            worst, where = w, tuple(int(v) for v in keys[b])
    return Yardstick(worst=max(worst, 0.0) if objective != "average" else float("nan"),
                     average=max(total, 0.0) if objective != "worst" else float("nan"), blocks=len(todo), worst_block=where)


# --- plans: the relaxation run by compare, sized from public prior, n and eps --------------------------------

#: Seconds of one block LP (HiGHS interior point, 2 shared cores), fitted to the measured solves of
#: benchmarks/yardstick_grid.py's settings: ``LP_SECONDS_BASE + LP_SECONDS_SCALE (m / 3e4)^LP_SECONDS_POWER``
#: with ``m`` = kept pairs x groups (the neighbour constraints); an over-estimate by ~1.5x at eps = 1, as eps = 2
#: solves ~1.5x slower.
LP_SECONDS_BASE = 0.3
LP_SECONDS_SCALE = 3.5
LP_SECONDS_POWER = 2.4
#: Bytes per neighbour constraint of one block LP (the matrix, HiGHS's copy and its factors), an upper end of the
#: measured peaks.
LP_BYTES_PER_ROW = 3000.0
#: Loss evaluations per second of the far group's scan over R(n) (:class:`HellingerGrid`, ~7e7 measured).
SCAN_PER_SECOND = 3e7
#: Seconds each objective's relaxation may take inside ``compare`` (the largest depth or side within it is run).
BLOCK_SECONDS = 20.0
#: The deepest corner block and the widest grid cell tried (beyond them the solve grows past any budget here).
MAX_DEPTH = 16
MAX_SIDE = 16
#: Largest ``members x near outputs x k (k - 1)`` of a corner block :func:`plan_corner` lists (far past any budget).
MAX_BLOCK_ENTRIES = 5e7


def block_shape(n: int, S: NDArray[np.int64], reach: int, step: int = 1) -> tuple[int, int, int]:
    """``(rows, groups, pairs)`` of the relaxation of block ``S`` (module docstring): its data sets, its groups
    (near outputs plus the far group when R(n) has more) and its kept ordered pairs (:func:`_pairs` at ``step``)."""
    k = S.shape[1]
    near = len(_near_outputs(n, S, reach))
    groups = near + (1 if math.comb(n + k - 1, k - 1) > near else 0)
    return len(S), groups, len(_pairs(S, step))


def lp_seconds(pairs: int, groups: int) -> float:
    """Estimated seconds of one block LP with ``pairs x groups`` neighbour constraints (:data:`LP_SECONDS_SCALE`)."""
    return LP_SECONDS_BASE + LP_SECONDS_SCALE * (pairs * groups / 3e4) ** LP_SECONDS_POWER


def _scan_seconds(n: int, k: int, rows: int) -> float:
    """Seconds of the far group's scan of one block: ``rows x |R(n)|`` losses."""
    return rows * math.comb(n + k - 1, k - 1) * k / SCAN_PER_SECOND


def _over(plan: Plan, seconds: float, share: float | None = None) -> Plan:
    """``plan`` refused when its estimate is over ``seconds`` (the relaxation's own share of a command, which the
    refusal names: ``share`` where given, else ``seconds``)."""
    if plan.seconds <= seconds:
        return plan
    return replace(plan, refusal=f"{plan.what}: would take {duration_text(plan.seconds)} ({plan.route}), over its "
                                 f"share of {seconds if share is None else share:g} s")


def _share_plan(what: str, route: str, seconds: float, memory: float, share: float,
                refusals: tuple[tuple[bool, str], ...] = (), too_few: bool = False) -> Plan:
    """A relaxation's plan of ``seconds`` and ``memory`` bytes within its ``share`` of a command: refused (one line)
    at the first of ``refusals`` that holds (``(refused, why)``, from public inputs), then over :data:`FLOW_BYTES`,
    then where ``too_few`` evaluations fit or it is over ``share`` (:func:`_over`)."""
    plan = Plan(task=Task.ERRORS, route=route, what=what, seconds=seconds, memory_bytes=memory,
                costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", seconds),), advice="use a smaller n")
    for refused, why in refusals:
        if refused:
            return replace(plan, refusal=f"{what}: {why}")
    if memory > FLOW_BYTES:
        return replace(plan, refusal=f"{what}: needs ~{memory / 2**30:.3g} GiB ({route}), over its share of "
                                     f"{FLOW_BYTES / 2**30:.3g} GiB")
    return _over(plan, -math.inf if too_few else share, share)


#: :func:`corner_cost` at k in :data:`CORNER_FIT_K`: seconds of one corner block's LP over its orbits,
#: ``base + scale (m / 3e4)^power`` with ``m`` its neighbour constraints over the symmetry order, fitted at or above
#: every measured :func:`corner_bound` at Dir(1,1,1,1), depths 6 to 9, n = 20 to 100, eps 0.5 to 2
#: (``benchmarks/corner_plan_fit.json``, CPU s at load 3.5 to 5): depth 8 ran 11.0 to 16.1 s, planned 18.4 to 19.0 s
#: (:func:`lp_seconds`' power 2.4, fitted at k = 3's smaller blocks, planned 26.0 to 26.7 s), and grew 0.13 to
#: 0.14 GB, planned 0.21 to 0.26 GB (1.2 to 1.6 GB before); depth 9 at n = 100, eps 0.5 ran 45.2 s, planned 54.0 s;
#: depth 6 ran 2.4 s where 1.7 s was planned before.  ``tests/library/test_corner_plan_fit.py`` holds the plan at or
#: above those runs.
CORNER_FIT_K = (4,)
#: The fit holds from this depth (its runs: depths 6 to 9); shallower blocks, LPs of a few ms (the fit's base alone
#: would plan 1.5 s at depth 0 and leave a 1.5 s share no block), keep :func:`lp_seconds`.
CORNER_FIT_MIN_DEPTH = 6
CORNER_FIT_SECONDS = (1.5, 3.2, 2.0)
#: At k in :data:`CORNER_FIT_K`, ``yardstick.plan_blocks``' first corner plan (the one planned before the average's)
#: is within this many seconds, not :data:`BLOCK_SECONDS`: depth 7 (6.4 s planned), as under the fit before, so a
#: depth 8 (18.4 to 19.5 s) is taken only in what the average's and the weighted worst case's plans leave
#: (``deeper``).  There those plans certify more per second: Dir(1,1,1,1), n = 20, eps = 0.5, the average's bound
#: 0.5875 bounds the worst case above depth 8's 0.5609, and depth 8 first would cut its evaluations from 8 to 5.
CORNER_FIRST_SECONDS = 10.0


def corner_cost(prior: ArrayLike, n: int, depth: int) -> tuple[float, float]:
    """Estimated ``(seconds, bytes)`` of :func:`corner_bound` at ``depth`` below ``n``: per distinct corner
    (:func:`corners`) one block LP over its invariant solutions (:func:`lp_seconds` of its neighbour constraints over
    the order of the permutations fixing the vertex and the prior) and the far group's scan over R(n), and the
    LP's bytes (:data:`LP_BYTES_PER_ROW` per constraint) with the scan's chunk.  Public inputs only (prior, n,
    depth)."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    many = len(corners(a))
    # corner_bound solves each block over its invariant solutions: the permutations fixing vertex 0 and the prior
    # divide the LP's constraints and the far group's scan (a half at k = 3, a sixth at k = 4, symmetric prior)
    order = len(_symmetry_images(a, corner_block(max(n, 1), k, 0, min(n, 1))))
    rows, groups, pairs = block_shape(n, corner_block(n, k, 0, depth), CORNER_REACH)
    scan = 8.0 * rows * min(CHUNK, math.comb(n + k - 1, k - 1)) * 4
    if k in CORNER_FIT_K and depth >= CORNER_FIT_MIN_DEPTH:
        # the measured fit: the LP over orbits holds a 1 / order share of the constraints, and the far group's scan
        # a 1 / order share of the rows (their bytes too)
        base, scale, power = CORNER_FIT_SECONDS
        secs = many * (base + scale * (pairs * groups / order / 3e4) ** power + _scan_seconds(n, k, rows / order))
        return secs, (LP_BYTES_PER_ROW * max(pairs, rows) * groups + scan) / order
    secs = many * (lp_seconds(pairs / order, groups) + _scan_seconds(n, k, rows / order))
    return secs, LP_BYTES_PER_ROW * max(pairs * groups, rows * groups) + scan


def plan_corner(prior: ArrayLike, n: int, epsilon: float, seconds: float = BLOCK_SECONDS,
                whole: bool = False) -> tuple[Plan, int]:
    """The plan of :func:`corner_bound` (worst case) and its depth: the deepest corner block (at most ``n`` and
    :data:`MAX_DEPTH`) whose estimated seconds over the distinct corners (:func:`corners`) fit ``seconds`` (depth 0
    refused when even it does not); held to
    ``DPPOSTERIOR_MAX_SOLVE_SECONDS`` and ``DPPOSTERIOR_MEMORY_GB`` by :func:`~dpposterior.limits.admit`.  Public
    inputs only (prior, n, eps).

    ``whole``: where the deepest block that fits is shallower than ``n``, the block of depth ``n`` (all of R(n): the LP
    itself, :func:`corner_bound`) is planned too, solved once over the orbits of every permutation of the categories
    that fixes the prior, and taken where it fits ``seconds`` (its cost does not grow with the depth before it: a
    corner block of depth below ``n`` is invariant only under the permutations fixing its vertex, R(n) under all of
    them, a 24th of the LP at Dir(1,1,1,1) against a 6th).  Its estimate (:func:`whole_seconds`) adds the reduction to
    orbits to the LP's; its memory (:func:`whole_bytes`) the unreduced constraints to the reduced LP's."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    what = f"the yardstick's corner blocks for k={k}, n={n}, eps={epsilon:g}"
    best = None
    for depth in range(0, min(n, MAX_DEPTH) + 1):
        # a cheap upper end first (members x near outputs x moves), so a large k never lists a huge block
        if best is not None and math.comb(depth + k - 1, k - 1) * math.comb(depth + CORNER_REACH + k - 1, k - 1) * k * (
                k - 1) > MAX_BLOCK_ENTRIES:
            break
        secs, memory = corner_cost(a, n, depth)
        if best is not None and secs > seconds:
            break
        best = (depth, secs, memory)
    route = f"corner blocks, depth {best[0]}"
    size = math.comb(n + k - 1, k - 1)
    if whole and best[0] < n <= MAX_DEPTH and size * size * k * (k - 1) <= MAX_BLOCK_ENTRIES:
        R = corner_block(n, k, 0, n)
        rows, groups, pairs = block_shape(n, R, CORNER_REACH)
        full = len(_symmetry_images(a, R))
        secs = whole_seconds(rows, groups, pairs, full, k)
        if secs <= seconds:
            best = (n, secs, whole_bytes(rows, groups, pairs, full))
            route = f"the whole LP over its orbits (corner block of depth {n})"
    depth, secs, memory = best
    plan = Plan(task=Task.ERRORS, route=route, what=what, seconds=secs,
                memory_bytes=memory, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", secs),), advice="use a smaller n")
    return _over(plan, seconds), depth


#: The step of :func:`sparse_bound`'s block (:func:`sparse_block`).
SPARSE_STEP = 2
#: ``dpposterior.yardstick.plan_blocks``' key of the sparse block's plan (its worst case; the larger bound is kept).
SPARSE_KEY = "worst (sparse)"
#: Where ``compare`` plans the sparse block (first), the corner blocks get this share (depth 5 at k = 4, 0.5 s
#: planned: next to the sparse block they certify nothing more) ...
SPARSE_CORNER_SECONDS = 1.0
#: ... and the average at least this many seconds of what is left: Dir(1,1,1,1), eps = 0.5, n = 17, the flows then
#: each window's LP certify 0.5755 planned at 10.3 s (0.5769 in the 21.4 s ``compare`` gave them before), 0.5233 at
#: 8.0 s.
SPARSE_AVERAGE_SECONDS = 10.0
#: The k at which ``compare`` plans :func:`sparse_bound` (:func:`plan_sparse`), and the largest eps: measured at
#: Dir(1,1,1,1) against the corner block of depth 8 (benchmarks/yardstick_sparse_k4.json): eps 0.75, n = 14 and 16,
#: 0.5306 and 0.5278 against 0.5009 and 0.4966; eps 1, 0.4195 and 0.4139 against 0.4385 and 0.4346.
SPARSE_K = (4,)
SPARSE_MAX_EPSILON = 0.75


#: Bytes of :func:`sparse_bound`'s process before its LP (the interpreter, numpy, scipy; 146 MB in all at n = 12).
SPARSE_BASE_BYTES = 1.5e8


def sparse_block(n: int, k: int, step: int = SPARSE_STEP) -> NDArray[np.int64]:
    """The sparse block of R(n) (module docstring, "Sparse blocks"; rows in candidate order): the data sets with every
    count a multiple of ``step``, or all but one, that one the largest count.  Unchanged by every permutation of the
    categories.  Public n, k, step."""
    R = candidates(n, k)
    off = R % step != 0
    keep = ~off.any(axis=1)
    one = off.sum(axis=1) == 1
    keep |= one & (np.where(off, R, -1).max(axis=1) == R.max(axis=1))
    return R[keep]


def sparse_bound(prior: ArrayLike, n: int, epsilon: float, step: int = SPARSE_STEP,
                 radius: int | None = None) -> Yardstick:
    """Certified lower bound on the optimal worst-case error from the sparse block (:func:`sparse_block`; module
    docstring, "Sparse blocks"): the LP over its data sets, every pair at most ``step`` substitutions apart kept with
    ``e^(d eps)``, each output near it its own group, solved over the orbits of the permutations that fix the prior
    and the block (:func:`block_bound`).  ``average`` is nan.  Dir(1,1,1,1), eps = 0.5, n = 12: 0.63937 in 0.6 CPU s,
    where the whole LP is 0.65040 (15 CPU s).

    ``radius`` (below ``n``): the same block with each member's outputs beyond ``radius`` substitutions lumped into
    one, :func:`ball_bound`'s relaxation ``B(radius, radius - 1)`` with its rows the block's members and its pairs the
    block's (at distance ``d <= step``, each with ``e^(d eps)``).  Proof that it is at most ``OPT_worst``:
    :func:`ball_bound`'s word for word, with ``e^(d eps)`` for ``e^eps`` (every eps-DP table satisfies
    ``P(r | c) <= e^(d eps) P(r | c')`` at distance ``d``, module docstring), over the members only (a row dropped
    only drops constraints and a row of the maximum); the block is unchanged by the prior's permutations, so the
    reduction to orbits holds as there.  Dir(1,1,1,1), eps = 0.5, n = 20: radius 10 0.64472 in 19 to 21 CPU s, the
    whole block 0.64671 in 45 s (benchmarks/yardstick_sparse_balls_k4.json, benchmarks/yardstick_sparse_k4.json)."""
    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    step = _validate.integer(step, "step", 1, n)
    S = sparse_block(n, a.size, step)
    if radius is None or _validate.integer(radius, "radius", 1) >= n:
        w, _ = block_bound(a, n, eps, S, CORNER_REACH, None, None, symmetric=True, step=step)
        return Yardstick(worst=max(w, 0.0), average=float("nan"), blocks=1, worst_block=())
    worst = _solve_ball_lp(*_ball_lp(a, n, eps, radius, radius - 1, True, S, step))
    return Yardstick(worst=worst, average=float("nan"), blocks=1, worst_block=())


def sparse_cost(prior: ArrayLike, n: int, step: int = SPARSE_STEP) -> tuple[float, float]:
    """Estimated ``(seconds, bytes)`` of :func:`sparse_bound`: the corner blocks' fit (:data:`CORNER_FIT_SECONDS`)
    at the sparse block's pairs and groups over the order of its symmetries, and the whole LP's bytes
    (:func:`whole_bytes`: the reduced LP and the unreduced constraints) above :data:`SPARSE_BASE_BYTES`; both held
    above its runs, each in a process of its own (benchmarks/yardstick_sparse_k4.json: Dir(1,1,1,1), eps 0.5,
    n = 12 to 20, 0.29 to 0.51 of the seconds planned; n = 20, 1,092 MB against 1,669 MB).  Public inputs only."""
    a = np.asarray(prior, dtype=np.float64)
    S = sparse_block(n, a.size, step)
    rows, groups, pairs = block_shape(n, S, CORNER_REACH, step)
    order = max(1, len(_symmetry_images(a, S)))
    base, scale, power = CORNER_FIT_SECONDS
    return (base + scale * (pairs * groups / order / 3e4) ** power,
            SPARSE_BASE_BYTES + whole_bytes(rows, groups, pairs, order))


#: Where the whole sparse block does not fit, its balls (:func:`sparse_bound`'s ``radius``) from this radius (5
#: certifies less than the corner blocks of depth 8: Dir(1,1,1,1), eps = 0.5, n = 20, 0.5567 against 0.5609; 6
#: 0.6051) to this one (the largest measured: :func:`sparse_ball_cost` is not extrapolated to wider balls).
SPARSE_MIN_RADIUS = 6
SPARSE_MAX_RADIUS = 12
#: ... at eps at most this (at 0.75 they certify less than the plans they displace in ``compare``: Dir(1,1,1,1),
#: n = 24, radius 6 0.4931 against 0.5053; benchmarks/compare_sparse_balls_k4.json).
SPARSE_BALL_MAX_EPSILON = 0.5
#: :func:`sparse_ball_cost`: ``base + scale (x / 1e5)^power`` CPU s with ``x`` the LP's variables over the symmetry
#: order times 24 (:func:`sparse_ball_shape`), and ``SPARSE_BALL_BYTES[0]`` bytes per such variable above
#: ``SPARSE_BALL_BYTES[1]``, at or above every recorded run (benchmarks/yardstick_sparse_balls_k4.json, Dir(1,1,1,1),
#: eps 0.5, n = 14 to 28, radius 6 to 12: 1.4x to 2.0x its CPU s, 1.2x to 2.0x its peak).
SPARSE_BALL_FIT_SECONDS = (1.0, 4.7, 1.9)
SPARSE_BALL_BYTES = (3e3, 2e8)


def sparse_ball_shape(prior: ArrayLike, n: int, radius: int, step: int = SPARSE_STEP) -> tuple[int, int]:
    """``(variables, order)`` of :func:`sparse_bound`'s LP at ``radius`` before its reduction to orbits: the pairs
    ``(c, r)`` of a member ``c`` of the sparse block and an output within ``radius`` substitutions (``r - c`` an
    offset with ``c >= -(r - c)``), and the order of the permutations fixing the prior.  Public inputs only."""
    a = np.asarray(prior, dtype=np.float64)
    S = sparse_block(n, a.size, step)
    D = _ball_offsets(a.size, min(radius, n))
    count = 0
    for start in range(0, len(D), 256):
        count += int(np.all(S[:, None, :] >= -D[None, start:start + 256, :], axis=2).sum())
    return count, len(symmetries(a))


def sparse_ball_cost(prior: ArrayLike, n: int, radius: int, step: int = SPARSE_STEP) -> tuple[float, float]:
    """Estimated ``(seconds, bytes)`` of :func:`sparse_bound` at ``radius`` (:data:`SPARSE_BALL_FIT_SECONDS`,
    :data:`SPARSE_BALL_BYTES`).  Public inputs only."""
    count, order = sparse_ball_shape(prior, n, radius, step)
    base, scale, power = SPARSE_BALL_FIT_SECONDS
    x = count * 24 / order
    return base + scale * (x / 1e5) ** power, SPARSE_BALL_BYTES[0] * x + SPARSE_BALL_BYTES[1]


def plan_sparse(prior: ArrayLike, n: int, epsilon: float, seconds: float) -> tuple[Plan, tuple[int, int | None]]:
    """The plan of :func:`sparse_bound` (worst case) and its ``(step, radius)``, within ``seconds`` (refused over
    it, as :func:`plan_corner`'s): the whole block (radius None) at ``n <= SPARSE_MAX_RADIUS`` or where it fits and is
    planned at most as long as the widest ball or at eps above :data:`SPARSE_BALL_MAX_EPSILON`, else the largest
    radius from :data:`SPARSE_MAX_RADIUS` down to :data:`SPARSE_MIN_RADIUS` that fits (at Dir(1,1,1,1), eps = 0.5,
    n = 18 radius 10 certified 0.64652 in 8.7 CPU s, the whole block 0.6477 in 16 s, planned at 44 s).  Refused
    where the block is not sparser than R(n) (``n`` below ``2 step``) or R(n) x R(n) is over
    :data:`MAX_BLOCK_ENTRIES`.  Public inputs only."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    what = f"the yardstick's sparse block for k={k}, n={n}, eps={epsilon:g}"
    route = f"sparse block, step {SPARSE_STEP}"
    size = math.comb(n + k - 1, k - 1)
    if n < 2 * SPARSE_STEP or size * size > MAX_BLOCK_ENTRIES:
        plan = Plan(task=Task.ERRORS, route=route, what=what, seconds=0.0, memory_bytes=0.0,
                    refusal=f"{what}: not planned at n < {2 * SPARSE_STEP} or |R(n)|^2 over {MAX_BLOCK_ENTRIES:g}")
        return plan, (SPARSE_STEP, None)
    secs, memory = sparse_cost(a, n)
    radius = min(SPARSE_MAX_RADIUS, n - 1)
    if n <= SPARSE_MAX_RADIUS or epsilon > SPARSE_BALL_MAX_EPSILON or (
            secs <= seconds and secs <= sparse_ball_cost(a, n, radius)[0]):
        plan = Plan(task=Task.ERRORS, route=route, what=what, seconds=secs, memory_bytes=memory,
                    costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", secs),), advice="use a smaller n")
        return _over(plan, seconds), (SPARSE_STEP, None)
    secs, memory = sparse_ball_cost(a, n, radius)
    while secs > seconds and radius > SPARSE_MIN_RADIUS:
        radius -= 1
        secs, memory = sparse_ball_cost(a, n, radius)
    plan = Plan(task=Task.ERRORS, route=f"{route}, outputs within {radius} substitutions of each member", what=what,
                seconds=secs, memory_bytes=memory, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", secs),),
                advice="use a smaller n")
    return _over(plan, seconds), (SPARSE_STEP, radius)


#: Seconds per entry ``images x pairs x groups`` of the reduction of the whole LP to its orbits
#: (:func:`_orbit_lp`: each image maps every unreduced constraint), a constant (the loss grid, the block), and bytes
#: per unreduced constraint (the constraint matrix before its reduction), fitted to the runs at Dir(1,1,1,1),
#: n = 6 to 11, eps 0.5 to 2, and Dir(1,1,1), n = 20 (benchmarks/yardstick_whole.json, each in its own process;
#: tests/library/test_yardstick_whole.py holds the plan above them).
WHOLE_REDUCE_SECONDS = 2e-7
WHOLE_BASE_SECONDS = 0.5
WHOLE_BYTES_PER_ROW = 200.0
#: :func:`whole_seconds` at k in :data:`CORNER_FIT_K`: the whole call (LP over orbits, reduction, far scan),
#: ``base + scale (m / 3e4)^power`` with ``m`` its neighbour constraints over the symmetry order, fitted at or above
#: every recorded run at Dir(1,1,1,1), n = 6 to 13, eps 0.5 to 2 (benchmarks/yardstick_whole.json and
#: benchmarks/yardstick_whole_h79yd.json, CPU s on the shared 2-core host, 2026-11-30 and 2026-12-02, load 2.9 to
#: 5.0): n = 10 ran 4.6 to 6.2 s, planned 6.6 (8.3 by the k = 3 constants); n = 12 ran 14.3 to 18.2 s, planned 28.1
#: (50.4); n = 13 ran 40.6 s, planned 58.7 (128.0).  The k = 3 constants' power 2.4 came from smaller LPs.
WHOLE_FIT_SECONDS = (2.0, 4.2, 1.8)


def whole_seconds(rows: int, groups: int, pairs: int, order: int, k: int | None = None) -> float:
    """Estimated seconds of :func:`corner_bound` at depth ``n`` (the whole LP over the orbits of a group of
    ``order`` permutations): the reduced LP (:func:`lp_seconds` of a ``1 / order`` share of its neighbour
    constraints), the reduction (:data:`WHOLE_REDUCE_SECONDS`) and a constant; ``rows``, ``groups``, ``pairs`` of
    :func:`block_shape`.  At ``k`` in :data:`CORNER_FIT_K` the measured fit :data:`WHOLE_FIT_SECONDS` of the whole
    call instead."""
    if k in CORNER_FIT_K:
        base, scale, power = WHOLE_FIT_SECONDS
        return base + scale * (pairs * groups / order / 3e4) ** power
    return WHOLE_BASE_SECONDS + lp_seconds(pairs / order, groups) + WHOLE_REDUCE_SECONDS * order * pairs * groups


def whole_bytes(rows: int, groups: int, pairs: int, order: int) -> float:
    """Estimated bytes of :func:`corner_bound` at depth ``n``: the reduced LP (:data:`LP_BYTES_PER_ROW` per reduced
    constraint) and the unreduced constraint matrix (:data:`WHOLE_BYTES_PER_ROW` per constraint)."""
    return LP_BYTES_PER_ROW * max(pairs, rows) * groups / order + WHOLE_BYTES_PER_ROW * pairs * groups


def grid_cells(n: int, k: int, side: int) -> int:
    """An upper bound on the number of grid cells of side ``side`` over R(n): the points ``x`` of ``N^(k-1)`` with
    ``sum x <= n // side + k - 2`` (a cell's corner ``side x`` has ``sum <= n``)."""
    return math.comb(n // side + k - 2 + k - 1, k - 1)


def plan_grid(prior: ArrayLike, n: int, epsilon: float, seconds: float = BLOCK_SECONDS) -> tuple[Plan, int]:
    """The plan of :func:`lower_bound`'s average (grid blocks of side ``side``, reach :data:`CORNER_REACH`) and its
    side: the widest side (at most :data:`MAX_SIDE` and ``n + 1``) whose estimated seconds fit ``seconds``; when even
    side 2 does not fit, the plan of side 2, refused.  Public inputs only."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    what = f"the yardstick's grid blocks for k={k}, n={n}, eps={epsilon:g}"
    best = None
    for side in range(2, min(n + 1, MAX_SIDE) + 1):
        lo = max(0, n // 2 - side)
        cell = np.stack(np.meshgrid(*[np.arange(side)] * (k - 1), indexing="ij"), -1).reshape(-1, k - 1) + lo // (k - 1)
        cell = np.column_stack([cell, n - cell.sum(axis=1)])
        cell = cell[cell[:, -1] >= 0]
        rows, groups, pairs = block_shape(n, cell, CORNER_REACH)
        cells = min(grid_cells(n, k, side), math.comb(n + k - 1, k - 1))
        secs = cells * (lp_seconds(pairs, groups) + _scan_seconds(n, k, rows))
        if best is not None and secs > seconds:
            break
        best = (side, secs, LP_BYTES_PER_ROW * pairs * groups + 8.0 * rows * min(CHUNK, math.comb(n + k - 1, k - 1)) * 4)
    if best is None:  # n = 0: one data set, one block
        best = (1, LP_SECONDS_BASE, 1e6)
    side, secs, memory = best
    plan = Plan(task=Task.ERRORS, route=f"grid blocks, side {side}", what=what, seconds=secs, memory_bytes=memory,
                costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", secs),), advice="use a smaller n")
    return _over(plan, seconds), side


# --- the average from a dual solution of the whole LP --------------------------------------------------------

#: Substitution radius of the windows of :func:`flow_bound` (offsets ``c - r`` kept per output): the default, and
#: the widest :func:`plan_flow` takes (Dir(1,1,1), n = 50, eps = 0.5: 0.3690 at radius 8, 0.3761 at 10).
FLOW_RADIUS = 8
FLOW_MAX_RADIUS = 12
#: Ascent steps of :func:`flow_bound` by default, and the step size (relative, per data set).
FLOW_STEPS = 200
FLOW_RATE = 0.05
#: Outward sweeps of :func:`flow_bound` after each inward pass (a second changed nothing measurable).
FLOW_SWEEPS = 1
#: Seconds of :func:`flow_bound`: per ascent step ``FLOW_SECONDS_PER_ENTRY`` per (data set, offset) plus
#: ``FLOW_SECONDS_PER_OFFSET`` per offset; the set-up (losses) ``FLOW_SETUP_PER_ENTRY`` per (data set, offset) and
#: category.  Fitted with a margin (x1.7) to Dir(1,1,1), n = 20 and 100, eps = 1 on the shared 2-core machine.
FLOW_SECONDS_PER_ENTRY = 2.5e-8
FLOW_SECONDS_PER_OFFSET = 1.5e-5
FLOW_SETUP_PER_ENTRY = 1e-7
#: Past ``FLOW_LARGE[0]`` data sets the flows' seconds per entry grow as ``(N / FLOW_LARGE[0])^FLOW_LARGE[1]`` (their
#: per-data-set arrays leave the caches): measured (CPU s, Dir(1,1,1), eps = 0.5, load ~5, 2026-11-29, the command's
#: allocator settings) n = 500, radius 8, 17 steps: 26.8 s run against 19.8 planned without it (28.6 with it); n = 1000,
#: radius 2, 24 steps: 14.4 s against 8.6 (16.3); the fit at n = 20 and 100 (N <= 5,151) is unchanged.
FLOW_LARGE = (2e4, 0.2)
#: At k >= 4 the flows' set-up and ascent steps (:func:`plan_flow`) at ``FLOW_K4[0]`` and ``FLOW_K4[1]`` times the
#: k = 3 fit: a step moves each entry's flows to its k (k - 1) neighbours (2x k = 3's), the set-up's losses were
#: planned per category as well.  Measured at Dir(1,1,1,1) (CPU s, ``benchmarks/flow_k4.json``, load 3-4): one step
#: 0.41, 1.97, 1.82 s (n = 20 radius 8, n = 40 radius 8, n = 50 radius 6) against 1.58, 10.82, 9.50 planned at the k = 3
#: fit; each further step 0.23, 1.36, 1.17 s against 0.12, 0.67, 0.57 (1.9-2.0x); 19, 14, 19 steps 4.55, 19.64, 22.82
#: s against 3.77, 19.47, 19.80 (under); the flows of ``windows_first_k4.json`` (20 steps, n = 12 to 25, load 4-5.6)
#: 3.1-9.0 s, and 7.5 s at n = 20 (19 steps, a loaded ``compare``).  With these factors: 7.8, 32.4, 37.0 s planned for
#: the three (1.6-1.7x their runs here, above the 7.5 s), n = 12 and 20 steps 3.6 s.
FLOW_K4 = (0.25, 3.2)
#: Bytes per (data set, offset) of :func:`flow_bound` (the index, ``pi L``, the running reduced costs, their
#: ascent fractions in float32, masks; 37 measured at n = 300) and the most it may hold.
FLOW_BYTES_PER_ENTRY = 48.0
FLOW_BYTES = 1.5e9
#: Fewest ascent steps :func:`plan_flow` accepts before it narrows the windows, and the narrowest window it runs.
FLOW_MIN_STEPS = 10
FLOW_MIN_RADIUS = 2
#: Ascent steps that reach within ~1 % of the bound's plateau (Dir(1,1,1), n = 100, eps = 1): a window wider than
#: FLOW_RADIUS is taken only with that many.
FLOW_GOOD_STEPS = 60
#: :func:`plan_flow` adds :func:`column_bound`'s steps (windows of at most COLUMN_RADIUS, at most COLUMN_STEPS) only
#: when the objective's share is at least COLUMN_MIN_SHARE seconds (``compare``'s 20 s, not the pipeline's 1.5 s),
#: and only in what the flows leave of it.
COLUMN_MIN_SHARE = 10.0
#: ... and only at eps below COLUMN_MAX_EPSILON: at eps >= 1 the flows are within 0.2 % of the LP and one step of
#: exact windows gained at most 0.2 % (Dir(1,1,1), n = 10, 20, 50) for up to 9 CPU s more.
COLUMN_MAX_EPSILON = 0.75
#: ... except at k >= COLUMN_ANY_EPSILON_K, where they run at every eps: at k = 4 the flows lose more (Dir(1,1,1,1),
#: eps = 1: radius 8, 60 steps 0.4523 at n = 10 and 0.4286 at n = 20; then 12 steps of exact windows 0.4664, +3.1 %,
#: in 2.3 CPU s, and 4 steps 0.4378, +2.1 %, in 21 s), and the average's bound is the worst case's there (the corner
#: blocks are lower: 0.4583 and 0.3941 at depth 4).
COLUMN_ANY_EPSILON_K = 4
COLUMN_RADIUS = FLOW_MAX_RADIUS
COLUMN_STEPS = 40
#: The exact windows take the widest radius with at least COLUMN_GOOD_STEPS steps, else this radius (Dir(1,1,1),
#: eps = 0.5, n = 50, 15 steps: 0.4038 at radius 8, 0.4248 at radius 12).
COLUMN_GOOD_STEPS = 12
COLUMN_MIN_RADIUS = FLOW_RADIUS
#: Fewer steps than this do not pay for the flows' shorter share (one step after flows of 20 s gained 1.3 % at
#: Dir(1,1,1), eps = 0.5, n = 50; five steps after flows of 10 s 9.6 % at n = 100): the flows keep BLOCK_SECONDS.
COLUMN_FEW_STEPS = 4
#: Where the exact windows run, the flows (their starting multipliers) are planned within this fraction of the share.
COLUMN_FLOW_SHARE = 0.25
#: The average's share in ``compare`` where the exact windows run (eps < COLUMN_MAX_EPSILON): they need more steps
#: than the flows (Dir(1,1,1), eps = 0.5, n = 50: 0.3837 after 1 step, 0.4258 after 30), at most the solve limit.
COLUMN_SECONDS = 40.0
#: Seconds of one column LP of :func:`column_bound`: ``COLUMN_SECONDS_BASE + COLUMN_SECONDS_PER_NODE`` per point of
#: its window (every offset: the model is shared and warm-started, :class:`_ColumnLP`); an upper end (x1.1-1.6) of
#: Dir(1,1,1), eps = 0.5 and 1, n = 100 and 300 on the shared 2-core machine: 0.71 ms at radius 12, 0.27-0.35 ms at 8.
COLUMN_SECONDS_BASE = 1e-4
COLUMN_SECONDS_PER_NODE = 1.5e-6
#: The same per point at k >= 4, where each point has k (k - 1) neighbour constraints (12 against 6): Dir(1,1,1,1),
#: eps = 1, n = 20 (radius 8, 2,057 points, 108 orbits) took 1.37-1.71 s per step of 40 (6.1-7.7 us per point, load
#: 15-25), which the k = 3 constant under-planned 3.5x; an upper end of those.
COLUMN_SECONDS_PER_NODE_K4 = 7.5e-6

#: Outputs whose windows :func:`column_bound` evaluates together (memory: ~``(offsets + pairs) x batch`` doubles).
COLUMN_BATCH = 1024
#: :func:`column_bound` with ``flows``: an output's window takes the flows' certificate, no LP, when their value is
#: at least ``-FLOW_SKIP`` times the window's multipliers (each such window loses at most that against its LP, whose
#: value is <= 0; over all windows at most ``FLOW_SKIP`` times the offsets times ``sum mu``).
FLOW_SKIP = 1e-9
#: :func:`column_bound`'s first Polyak target lies this far above its first value (relative).
COLUMN_RATE = 0.05
#: Relative lowering of every loss used by :func:`flow_bound` (covers ``hellinger``'s ~1e-12 relative accuracy).
LOSS_MARGIN = 1e-10


def column_step_seconds(k: int, orbits: int, offsets: int) -> float:
    """Planned seconds of one step of :func:`column_bound`: one column LP per orbit of outputs, each
    :data:`COLUMN_SECONDS_BASE` plus a cost per point of its window (:data:`COLUMN_SECONDS_PER_NODE`, at k >= 4
    :data:`COLUMN_SECONDS_PER_NODE_K4`).  Public inputs only."""
    per_node = COLUMN_SECONDS_PER_NODE if int(k) <= 3 else COLUMN_SECONDS_PER_NODE_K4
    return orbits * (COLUMN_SECONDS_BASE + per_node * offsets)


def _predictive(a: NDArray[np.float64], R: NDArray[np.int64]) -> NDArray[np.float64]:
    """The prior predictive pi over the data sets ``R`` (all of R(n)), normalised over them: the weights every bound
    of this module and :func:`window_ceiling` hold their multipliers under (the same floats in each)."""
    log_pi = log_prior_predictive(a, R)
    return np.exp(log_pi - np.logaddexp.reduce(log_pi))


def objective_weights(prior: ArrayLike, n: int, weights: ArrayLike | None = None) -> NDArray[np.float64]:
    """The weights ``w`` over R(n) (candidate order) that :func:`flow_bound`, :func:`column_bound` and
    :func:`release_bound` bound ``sum_c w(c) E_P(c)`` under: the prior predictive pi (:func:`_predictive`, the
    average's) where ``weights`` is None, else ``weights`` made invariant under :func:`symmetries` (the mean over
    each orbit, written at every member from its least member's value, so equal floats across an orbit, as
    :func:`column_bound`'s one output per orbit needs) and divided by their sum.  Any ``w >= 0`` summing to 1 gives
    ``max_c E_P(c) >= sum_c w(c) E_P(c)``: the worst case's bound (:func:`weighted_worst`)."""
    a = np.asarray(prior, dtype=np.float64)
    R = candidates(n, a.size)
    if weights is None:
        return _predictive(a, R)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (len(R),) or not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0:
        raise InputError(f"weights must hold one finite non-negative number per data set ({len(R)}), not all 0")
    images = np.array([candidate_rank(R[:, list(s)]) for s in symmetries(a)])
    rep = images.min(axis=0)
    w = w[images].mean(axis=0)[rep]
    return w / w.sum()


def _offsets(k: int, radius: int) -> tuple[NDArray[np.int64], NDArray[np.int64], list[list[int]]]:
    """The offsets ``delta`` (``sum delta = 0``, ``d(delta) = |delta|_1 / 2 <= radius``), their ``d``, and for each
    its *inward* neighbours ``delta - e_p + e_q`` (``delta_p > 0 > delta_q``: one step closer to 0)."""
    import itertools

    rows = [v + (-sum(v),) for v in itertools.product(range(-radius, radius + 1), repeat=k - 1)]
    D = np.array([v for v in rows if sum(abs(x) for x in v) <= 2 * radius], dtype=np.int64).reshape(-1, k)
    index = {tuple(v): i for i, v in enumerate(D.tolist())}
    inward = []
    for v in D.tolist():
        ins = []
        for p in range(k):
            for q in range(k):
                if v[p] > 0 > v[q]:
                    w = list(v)
                    w[p] -= 1
                    w[q] += 1
                    ins.append(index[tuple(w)])
        inward.append(ins)
    return D, np.abs(D).sum(axis=1) // 2, inward


def _beta_far(a: NDArray[np.float64], n: int, R: NDArray[np.int64], m: int) -> NDArray[np.float64]:
    """Per data set ``c``: a lower bound on ``L(c, r)`` over every ``r`` with some ``|r_j - c_j| >= m``:
    ``min_j`` of the k = 2 loss of category j at ``c_j +- m`` (module docstring of :func:`flow_bound`).  The k = 2
    loss of category j depends on ``c_j`` alone, so it is computed once per value ``0..n`` (``O(k n)`` losses, not
    ``O(k |R(n)|)``: ~2.5 CPU s less at Dir(1,1,1), n = 1000) and read at each data set; ``hellinger`` is
    elementwise, so each value is the float the per-data-set evaluation gives."""
    from ..distances.hellinger import hellinger

    A = float(a.sum())
    v = np.arange(n + 1, dtype=np.float64)
    out = np.full(len(R), np.inf)
    for j in range(a.size):
        p = np.column_stack([a[j] + v, A - a[j] + n - v])
        g = np.full(n + 1, np.inf)
        for step in (m, -m):
            t = v + step
            ok = (t >= 0) & (t <= n)
            if ok.any():
                q = np.column_stack([a[j] + t[ok], A - a[j] + n - t[ok]])
                g[ok] = np.minimum(g[ok], np.asarray(hellinger(p[ok], q)))
        np.minimum(out, g[R[:, j]], out=out)
    return np.maximum(out * (1 - LOSS_MARGIN) - LOSS_MARGIN, 0.0)


#: The categories' counts at which the far cap of the windows' duals is :func:`_aggregate_far` (the loss of every
#: split of the categories into two parts, at the window's whole radius) rather than :func:`_beta_far` (one category
#: at a share of it): none.  Measured at k = 4 and not taken: the pooled cap raises the ceiling ``sum pi cap``
#: (Dir(1,1,1,1), n = 20, radius 8: 0.6545 -> 0.9157, the exact least far loss 0.9247; n = 100, radius 6: 0.2818 ->
#: 0.4687) but, as the multipliers' projection, lowers what ``compare``'s short duals certify (n = 100, eps 1, a
#: release's start, one evaluation: the average 0.2668 -> 0.2320; n = 15, eps 0.5: the weighted worst case 0.6107 ->
#: 0.6077; n = 100, eps 0.5: 0.3458 -> 0.3479; benchmarks/compare_h76yd.json).  Any cap at or below the far losses
#: is valid (so both are), and the lower one clips a start from a release's errors where they are large.
AGGREGATE_FAR_K: tuple[int, ...] = ()


def _aggregate_far(a: NDArray[np.float64], n: int, R: NDArray[np.int64], radius: int) -> NDArray[np.float64]:
    """Per data set ``c``: a lower bound on ``L(c, r)`` over every ``r`` of R(n) with ``d(c, r) > radius``: the least,
    over the nonempty proper subsets ``J`` of the categories, of the k = 2 loss of the pooled counts
    ``c_J = sum_(j in J) c_j`` against ``c_J +- (radius + 1)``, lowered as :func:`_beta_far`'s.

    Proof.  Let ``d = d(c, r) >= radius + 1`` and ``J = {j : r_j > c_j}`` (nonempty and proper: both sum to n and
    ``r != c``).  Then ``r_J - c_J = sum_(j in J) (r_j - c_j) = d`` (the positive parts sum to half of
    ``|r - c|_1``).  Pooling the categories of ``J`` maps ``Dir(a + c)`` to ``Beta(a_J + c_J, A - a_J + n - c_J)``
    (the aggregation property of the Dirichlet), so by the data-processing inequality of the Hellinger distance
    (an f-divergence) ``L(c, r)`` is at least the k = 2 loss between the pooled posteriors, which is nondecreasing in
    ``|r_J - c_J|`` (docs/definitions.md §10; :func:`_beta_far` reads the same fact), hence at least its value at
    ``c_J + (radius + 1)`` (at ``-(radius + 1)`` for the complement).  Each pooled loss depends on ``c_J`` alone: one
    evaluation per value ``0..n`` and subset, read at each data set.  At most ``n + 1`` values for each of the
    ``2^k - 2`` subsets (14 at k = 4)."""
    from itertools import combinations

    from ..distances.hellinger import hellinger

    A = float(a.sum())
    k = a.size
    m = int(radius) + 1
    v = np.arange(n + 1, dtype=np.float64)
    out = np.full(len(R), np.inf)
    for size in range(1, k):
        for J in combinations(range(k), size):
            aJ = float(a[list(J)].sum())
            p = np.column_stack([aJ + v, A - aJ + n - v])
            g = np.full(n + 1, np.inf)
            for step in (m, -m):
                t = v + step
                ok = (t >= 0) & (t <= n)
                if ok.any():
                    q = np.column_stack([aJ + t[ok], A - aJ + n - t[ok]])
                    g[ok] = np.minimum(g[ok], np.asarray(hellinger(p[ok], q)))
            np.minimum(out, g[R[:, list(J)].sum(axis=1)], out=out)
    return np.maximum(out * (1 - LOSS_MARGIN) - LOSS_MARGIN, 0.0)


def far_cap(a: NDArray[np.float64], n: int, R: NDArray[np.int64], radius: int,
            pooled: bool = False) -> NDArray[np.float64]:
    """The far cap every windows' dual holds ``mu / pi`` under (:func:`flow_bound`, :func:`column_bound`, so
    :func:`release_bound`, and :func:`window_ceiling`): a lower bound on ``L(c, r)`` over the outputs ``r`` whose
    window (``d(c, r) <= radius``) leaves ``c`` out; infinite where ``radius >= n`` (no output leaves it out).
    :func:`_aggregate_far` at k in :data:`AGGREGATE_FAR_K` or where ``pooled`` (:func:`weighted_bound`'s dual), else
    :func:`_beta_far` at ``m_0 = ceil(2 (radius + 1) / k)`` (some ``|r_j - c_j| >= m_0`` as
    ``|r - c|_1 >= 2 (radius + 1)``).  Either is at or below every far loss, so either certifies."""
    k = a.size
    radius = min(int(radius), n)
    if radius >= n:
        return np.full(len(R), np.inf)
    if pooled or k in AGGREGATE_FAR_K:
        return _aggregate_far(a, n, R, radius)
    return _beta_far(a, n, R, -(-2 * (radius + 1) // k))


#: :func:`window_ceiling` is raised by this relative amount: it sums the same products ``pi cap`` as the bounds hold
#: their multipliers under, in another order (~|R(n)| 2^-53 relative at most).
CEILING_MARGIN = 1e-9


def window_ceiling(prior: ArrayLike, n: int, radius: int) -> float:
    """An upper end of every bound :func:`flow_bound`, :func:`column_bound` and :func:`release_bound` can certify
    with windows of ``radius`` substitutions, whatever their multipliers and steps: ``sum_c pi(c) cap(c)`` with
    ``cap`` the far cap of :func:`far_cap` (infinite when ``radius >= n``).

    Proof.  Each of the three bounds is ``sum_c mu(c)`` plus terms ``min(0, .)`` (the windows' reduced costs, or
    the column LPs' certified values ``sum_u min(0, rc(u))``), minus a rounding allowance ``>= 0``, and each holds
    ``0 <= mu <= pi cap`` (:func:`flow_bound`: ``tau`` started and kept in ``[0, cap]``; :func:`column_bound`, and
    so :func:`release_bound`: ``mu`` clipped to ``pi cap``, then to its orbit's least).  So each is at most
    ``sum_c pi(c) cap(c)``.  Public inputs only (prior, n, radius): ``compare``'s plan leaves out a dual whose
    windows cannot beat a bound already at hand (:func:`dpposterior.yardstick.plan_blocks`' ``floor``)."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    radius = min(int(radius), n)
    if radius >= n:
        return math.inf
    R = candidates(n, k)
    cap = far_cap(a, n, R, radius)
    pi = _predictive(a, R)
    return float(pi @ cap) * (1.0 + CEILING_MARGIN)


def whole_weights(prior: ArrayLike, n: int, epsilon: float,
                  rows: dict | None = None) -> tuple[float, NDArray[np.float64]]:
    """The minimax LP over all of R(n) (:func:`corner_bound` at depth ``n``: one variable per orbit of the prior's
    symmetries, certified from its duals) and its saddle point's weights ``lambda`` over R(n) (candidate order; the
    multipliers of its rows ``E(c) <= t``, :func:`block_bound`'s ``duals``): ``(certified optimum, lambda)``.
    ``rows``: a dict that receives, under ``"rows"``, the multipliers ``nu`` of its rows ``sum_r P(r | c) = 1`` (at
    the saddle point the optimal ``mu`` of ``min_P sum_c lambda(c) E_P(c)``'s Lagrangian dual)."""
    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    duals: dict = {}
    value, _ = block_bound(a, n, eps, corner_block(n, a.size, 0, n), CORNER_REACH, None, None, symmetric=True,
                           duals=duals)
    if rows is not None:
        rows["rows"] = duals["rows"]
    return value, duals["worst"]


def carry_weights(prior: ArrayLike, weights: ArrayLike, m: int, n: int) -> NDArray[np.float64]:
    """Weights over R(m) carried to R(n) (candidate order): each data set ``c`` of R(n) takes the weight of the point
    of R(m) nearest ``c m / n`` (each count rounded down, the rest given to the largest remainders, the first on
    ties); then :func:`objective_weights` (invariant under the prior's symmetries, summing to 1).  Each point's
    weight is taken whole, not shared among the data sets that take it: the points near the simplex's boundary,
    which fewer data sets take, keep their weight per data set (Dir(1,1,1,1), eps = 0.5, n = 10 -> 20, mixed half
    and half with pi, flows of radius 8 then exact windows: 0.6032 after 7 evaluations, 0.5956 shared).  Public
    inputs only: ``weights`` come from the LP at ``m``."""
    a = np.asarray(prior, dtype=np.float64)
    lam = np.asarray(weights, dtype=np.float64)
    return objective_weights(a, n, lam[_carried_points(a.size, m, n)])


def _carried_points(k: int, m: int, n: int) -> NDArray[np.int64]:
    """Per data set ``c`` of R(n) (candidate order): the rank in R(m) of the point nearest ``c m / n``
    (:func:`carry_weights`' rule)."""
    R = candidates(n, k)
    x = R * (m / n)
    base = np.floor(x).astype(np.int64)
    left = m - base.sum(axis=1)
    order = np.argsort(-(x - base), axis=1, kind="stable")
    ranks = np.argsort(order, axis=1, kind="stable")
    return candidate_rank(base + (ranks < left[:, None]))


def mixed_weights(prior: ArrayLike, n: int, epsilon: float, m: int, share: float,
                  start: dict | None = None) -> NDArray[np.float64]:
    """``share`` times the minimax LP's weights at ``m`` carried to ``n`` (:func:`whole_weights`,
    :func:`carry_weights`) plus ``1 - share`` times the prior predictive pi, made invariant and summing to 1
    (:func:`objective_weights`): the weights of :func:`weighted_worst`.  Public inputs only (prior, n, eps, m).
    ``start``: a dict that receives, under ``"rows"``, ``share`` times the LP's row multipliers ``nu`` carried the
    same way (each data set takes its point's, over the carried weights' sum), the LP's part of
    :func:`weighted_bound`'s start."""
    a = _validate.prior(prior)
    rows: dict = {}
    _, lam = whole_weights(a, m, epsilon, rows)
    if start is not None:
        at = _carried_points(a.size, m, n)
        start["rows"] = share * rows["rows"][at] / math.fsum(lam[at].tolist())
    w = share * carry_weights(a, lam, m, n) + (1.0 - share) * _predictive(a, candidates(n, a.size))
    return objective_weights(a, n, w)


def weighted_worst(value: float, weights: ArrayLike) -> float:
    """A certified lower bound on the optimal worst case from a certified lower bound ``value`` on
    ``min_P sum_c w(c) E_P(c)`` (:func:`flow_bound`, :func:`column_bound`, :func:`release_bound` with ``weights``).

    Proof.  For every eps-DP table ``P`` and ``w >= 0``, ``sum_c w(c) E_P(c) <= (sum_c w(c)) max_c E_P(c)``; take
    ``P`` optimal for the worst case: ``value <= min_P sum_c w(c) E_P(c) <= (sum_c w(c)) OPT_worst``.  So
    ``OPT_worst >= value / sum_c w(c)``; ``sum w`` is taken by ``math.fsum`` (correctly rounded) and raised by
    ``2^-50`` relative, the quotient lowered by as much."""
    w = np.asarray(weights, dtype=np.float64)
    total = math.fsum(w.tolist()) * (1.0 + 2.0**-50)
    return max(0.0, float(value) / total * (1.0 - 2.0**-50)) if total > 0 else 0.0


@dataclass
class FlowBound:
    """A certified lower bound on the optimal average error (:func:`flow_bound`) and the multipliers behind it."""

    average: float
    mu: NDArray[np.float64]
    steps: int
    radius: int
    #: every evaluation's certified value in order (:func:`column_bound`; empty where not kept)
    values: tuple[float, ...] = ()
    #: the column LPs solved at each evaluation (:func:`column_bound`; the others' windows taken from the flows)
    lps: tuple[int, ...] = ()


def _neighbour_offsets(D: NDArray[np.int64]) -> list[list[int]]:
    """For each offset, every offset one substitution away (``delta - e_p + e_q``, ``p != q``) among ``D``."""
    k = D.shape[1]
    index = {tuple(v): i for i, v in enumerate(D.tolist())}
    out = []
    for v in D.tolist():
        nb = []
        for p in range(k):
            for q in range(k):
                if p != q:
                    w = list(v)
                    w[p] -= 1
                    w[q] += 1
                    j = index.get(tuple(w))
                    if j is not None:
                        nb.append(j)
        out.append(nb)
    return out


#: :func:`rank_table` is built only up to this many entries (``(n + 1)^(k - 1)`` int64).
RANK_TABLE_ENTRIES = 1 << 22


def rank_table(n: int, k: int) -> NDArray[np.int64] | None:
    """``T[c_0, ..., c_(k-2)]`` = :func:`~dpposterior.models.candidate_rank` of ``c`` for every ``c`` of R(n) (the
    last count is ``n`` minus the others, so the first ``k - 1`` name it), other entries 0 and never read; None
    above :data:`RANK_TABLE_ENTRIES`.  A look-up in place of the rank's arithmetic: the same integers
    (:func:`~dpposterior.models.candidates` lists R(n) in rank order)."""
    if k < 2 or (n + 1) ** (k - 1) > RANK_TABLE_ENTRIES:
        return None
    R = candidates(n, k)
    T = np.zeros((n + 1,) * (k - 1), dtype=np.int64)
    T[tuple(R[:, :-1].T)] = np.arange(len(R))
    return T


def _window_losses(a: NDArray[np.float64], R: NDArray[np.int64], pi: NDArray[np.float64], D: NDArray[np.int64]):
    """Per offset ``o`` and output ``r`` (rows of ``R``): the rank ``C[o, r]`` of the data set ``c = r + D[o]``, whether
    it lies in R(n) (``valid``; ``C`` is 0 where not) and ``pi(c) L(c, r)`` with the loss lowered by a relative
    :data:`LOSS_MARGIN` (0 where not valid).

    ``ln BC(c, r) = sum_j J(a_j + c_j, a_j + r_j)`` (the totals' term is 0: both sum to n), and ``c_j = r_j + D[o, j]``,
    so each term is read from a table of ``J(a_j + v + d, a_j + v)`` over the values ``v`` in ``0..n`` and the
    offsets' coordinates ``d`` (:func:`_jensen_bands`): the floats of one call of
    :func:`~dpposterior.distances.hellinger.lgamma_jensen_gap` per pair, summed in the same order."""
    from ..distances.hellinger import hellinger_from_log_bc

    N = len(R)
    n = int(R[0].sum()) if N else 0
    bands, reach = _jensen_bands(a, n, int(np.abs(D).max()) if D.size else 0)
    C = np.full((len(D), N), -1, dtype=np.int32 if N < 2**31 else np.int64)
    PL = np.zeros((len(D), N))  # pi(c) L(c, r), c = r + D[o]
    table = rank_table(n, a.size)
    counts = [np.ascontiguousarray(R[:, j]) for j in range(a.size)]
    for o, delta in enumerate(D.tolist()):
        # the outputs whose c = r + delta lies in R(n) (only a negative coordinate of delta can leave it)
        ok = None
        for j, d in enumerate(delta):
            if d < 0:
                ok = counts[j] >= -d if ok is None else ok & (counts[j] >= -d)
        at = slice(None) if ok is None else np.flatnonzero(ok)
        parts = [v[at] for v in counts]
        if len(parts[0]) == 0:
            continue
        if table is None:
            rank = candidate_rank(np.column_stack([v + d for v, d in zip(parts, delta)]))
        else:
            rank = table[tuple(v + d for v, d in zip(parts[:-1], delta[:-1]))]
        C[o, at] = rank
        log_bc = np.zeros(len(rank))
        for j in range(a.size):
            log_bc += bands[j][delta[j] + reach][parts[j]]
        loss = hellinger_from_log_bc(log_bc, out=log_bc)
        PL[o, at] = pi[rank] * np.maximum(loss * (1 - LOSS_MARGIN) - LOSS_MARGIN, 0.0)
    valid = C >= 0
    C[~valid] = 0  # read only where valid
    return C, valid, PL


def _jensen_bands(a: NDArray[np.float64], n: int, reach: int) -> tuple[list[NDArray[np.float64]], int]:
    """Per category ``j``: ``T[d + reach, v] = J(a_j + v + d, a_j + v)`` for ``v`` in ``0..n`` and ``|d| <= reach``
    with ``0 <= v + d <= n`` (0 elsewhere, never read), each entry the float
    :func:`~dpposterior.distances.hellinger.lgamma_jensen_gap` returns at that one pair (it is elementwise)."""
    from ..distances.hellinger import lgamma_jensen_gap

    v = np.arange(n + 1, dtype=np.int64)
    out = []
    for j in range(a.size):
        T = np.zeros((2 * reach + 1, n + 1))
        for d in range(-reach, reach + 1):
            x = v + d
            ok = (x >= 0) & (x <= n)
            T[d + reach, ok] = lgamma_jensen_gap(a[j] + x[ok].astype(np.float64), a[j] + v[ok].astype(np.float64))
        out.append(T)
    return out, reach


def flow_bound(prior: ArrayLike, n: int, epsilon: float, radius: int = FLOW_RADIUS, steps: int = FLOW_STEPS,
               rate: float = FLOW_RATE, sweeps: int = FLOW_SWEEPS, start: ArrayLike | None = None,
               weights: ArrayLike | None = None) -> FlowBound:
    """Certified lower bound on the optimal average error (docs/definitions.md §9) from a dual solution of the whole
    LP, built from one window per output.

    Weak duality.  Write ``pi`` for the prior predictive, ``L`` the loss, ``q = e^-eps``.  For any ``mu`` (one
    number per data set) and any ``y >= 0`` (one per output ``r`` and ordered neighbouring pair ``(c, c')``, the
    multiplier of ``P(r | c) - e^eps P(r | c') <= 0``), the reduced cost
    ``rc(r, c) = pi(c) L(c, r) - mu(c) + sum_c' y_r(c, c') - e^eps sum_c' y_r(c', c)`` gives, for every eps-DP
    table ``P`` (so ``0 <= P <= 1``):
    ``sum_c pi(c) E_P(c) = sum_c mu(c) + sum_(r,c) P(r | c) rc(r, c) - sum y (P(r|c) - e^eps P(r|c')) >=
    sum_c mu(c) + sum_(r,c) min(0, rc(r, c))`` (rows sum to 1; each ``y`` term is ``<= 0``; ``P(r | c) in [0, 1]``).
    Take ``P`` optimal: the right side is at most the optimum.

    The flows.  For each output ``r``, ``y_r`` lives on the window ``d(c, r) <= radius``: the data sets are
    visited from the rim inwards, and one ``c`` whose running reduced cost ``A`` is positive sends ``q A f_j`` to
    each of its inward neighbours ``c'_j`` (one step closer to ``r``; they lie in R(n) when ``c`` does), with
    fractions ``f_j >= 0`` summing to 1 (in proportion to the neighbours' current deficits ``max(0, -A)``, equal
    when none has one), i.e. ``y_r(c'_j, c) = q A f_j``: ``c`` pays ``e^eps sum_j q A f_j = A`` (its reduced cost
    becomes 0) and each ``c'_j`` gains ``q A f_j``.  Then ``sweeps`` times, from ``r`` outwards, a data set ``c``
    still in surplus ``A > 0`` (after the inward pass only ``r`` itself can be) fills its neighbours' deficits
    ``D_j = max(0, -A_j)`` in any direction: ``y_r(c'_j, c) = theta D_j`` with
    ``theta = min(1, q A / sum_j D_j)``, so ``c`` pays ``e^eps theta sum_j D_j <= A`` and ``c'_j`` gains at most
    its deficit.  Every pair with ``c`` outside the window has ``y = 0``; there
    ``rc = pi(c) (L(c, r) - mu(c) / pi(c)) >= 0`` because ``mu(c) / pi(c)`` is held at or below a lower bound of
    ``L(c, r)`` over those ``r``: such an ``r`` has some ``|r_j - c_j| >= m_0 = ceil(2 (radius + 1) / k)``,
    and by the data-processing inequality (:mod:`dpposterior.yardstick`, step 1) ``L(c, r)`` is at least the
    k = 2 loss of category j, nondecreasing in ``|r_j - c_j|`` (docs/definitions.md §10), hence at least its
    value at ``c_j +- m_0`` (:func:`_beta_far`; at k in :data:`AGGREGATE_FAR_K` the tighter :func:`_aggregate_far`,
    the same argument on the pooled counts of the categories where ``r`` exceeds ``c``: :func:`far_cap`).  So the
    bound is ``sum mu + sum over windows of min(0, A)``, exact for these ``mu``
    and ``y`` up to rounding.

    Rounding and losses.  Losses are lowered by a relative :data:`LOSS_MARGIN` (a smaller loss only lowers the
    LP); the value is lowered by ``(radius + 8) 2^-50`` times the sum of the absolute values of every term added
    (``sum mu``, ``pi L``, ``mu``, every share sent and received), which bounds the float error of each running
    sum and of ``e^eps q = 1``.

    The multipliers.  ``mu = pi tau`` with ``tau`` started at 1.1 times the mean loss to a neighbour and improved by
    ``steps`` of Adam on a supergradient of the bound (1 minus the total weight of each data set's reduced costs
    that stay negative, through the flows, their fractions held fixed), multiplicative per data set, projected
    onto ``[0, far bound]``; the best value seen is kept.  Any ``mu`` is valid: the steps only tighten.  ``start``:
    the first ``mu`` instead (one per data set, in candidate order; projected the same way).

    Weights (``weights``).  Every step above reads ``pi`` only as the objective's weights: with any ``w >= 0`` in its
    place (``pi L`` -> ``w L``, ``mu = w tau``, the far cap ``mu <= w cap``) the same argument bounds
    ``min_P sum_c w(c) E_P(c)``, and for ``w`` summing to 1 that is at most ``min_P max_c E_P(c)``, the optimal
    worst case (``max_c E_P(c) >= sum_c w(c) E_P(c)`` for every ``P``; :func:`weighted_worst`).  ``weights`` is taken
    through :func:`objective_weights` (invariant under the prior's symmetries, summing to 1); None: ``pi``, the
    average's bound as before.
    """
    a = _validate.prior(prior)
    k = a.size
    n = _validate.integer(n, "n", 0)
    eps = _validate.epsilon(epsilon)
    R = candidates(n, k)
    N = len(R)
    pi = objective_weights(a, n, weights)
    D, dist, inward = _offsets(k, min(radius, n))
    around = _neighbour_offsets(D) if sweeps else []
    outward = [int(o) for o in np.argsort(dist, kind="stable")]
    q = math.exp(-eps)
    C, valid, PL = _window_losses(a, R, pi, D)
    total_pl = float(PL.sum())  # every pi L >= 0
    # mu / pi held below the loss to every output outside the window (docstring)
    cap = far_cap(a, n, R, radius)
    order = [int(o) for o in np.argsort(-dist, kind="stable") if dist[o] > 0]
    ones = np.flatnonzero(dist == 1)
    h = np.bincount(C[ones][valid[ones]], weights=PL[ones][valid[ones]], minlength=N)
    h = h / np.maximum(np.bincount(C[ones][valid[ones]], minlength=N), 1) / np.maximum(pi, 1e-300)
    tau = np.minimum(1.1 * h, cap) if N > 1 else np.zeros(N)
    if start is not None:
        start = np.asarray(start, dtype=np.float64)
        if start.shape != (N,) or not np.all(np.isfinite(start)):
            raise InputError(f"start must hold one finite number per data set ({N})")
        tau = np.clip(start / np.maximum(pi, 1e-300), 0.0, cap)
    best, best_mu = -math.inf, np.zeros(N)
    m1, m2 = np.zeros(N), np.zeros(N)
    # each offset's neighbours as an index array (distinct, never the offset itself), so that one numpy call reads or
    # updates all their rows; every float below is the one the row-by-row sums gave (same operations, same order:
    # a sum over neighbours adds their rows in the listed order, as the axis-0 reduction does; a sum along a row is
    # the row's own sum), which keeps the bound's value bit for bit
    ins_at = [np.asarray(ins, dtype=np.intp) for ins in inward]
    around_at = [np.asarray(j, dtype=np.intp) for j in around]
    for step in range(max(1, steps)):
        mu = pi * tau
        # row by row (one offset at a time): no temporary of the whole table
        A = np.empty_like(PL)
        size = 0.0
        for o in range(len(D)):
            np.subtract(PL[o], mu[C[o]], out=A[o])
            A[o][~valid[o]] = 0.0
            size += float(np.abs(A[o]).sum())
        passed = np.zeros(A.shape, dtype=bool)
        fracs = {}
        for o in order:
            pos = np.maximum(A[o], 0.0)
            passed[o] = pos > 0
            ins = ins_at[o]
            # shares in proportion to the inward neighbours' deficits (equal when none has one)
            need = np.maximum(-A[ins], 0.0)
            total = need.sum(axis=0)
            has = total > 0
            frac = np.where(has, need / np.where(has, total, 1.0), 1.0 / len(ins))
            fracs[o] = frac.astype(np.float32)  # for the ascent's direction only
            qpos = q * pos
            size += float(pos.sum())
            send = qpos * frac
            for v in send.sum(axis=1).tolist():
                size += v
            A[ins] += send
            A[o] = np.minimum(A[o], 0.0)
        for _ in range(sweeps):
            # from the centre outwards, a data set still in surplus fills its neighbours' deficits (docstring)
            for o in outward:
                pos = np.maximum(A[o], 0.0)
                if not pos.any():
                    continue
                nb = around_at[o]
                need = np.maximum(-A[nb], 0.0)
                total = need.sum(axis=0)
                theta = np.minimum(1.0, q * pos / np.where(total > 0, total, 1.0)) * (total > 0)
                y = theta * need
                A[nb] += y
                paid = 0.0
                for row in y:
                    paid = paid + row
                for v in y.sum(axis=1).tolist():
                    size += v
                A[o] -= paid / q
                size += float(pos.sum())
        size += float(mu.sum()) + total_pl
        value = (float(mu.sum()) + sum(float(np.minimum(A[o], 0.0).sum()) for o in range(len(D)))
                 - (min(radius, n) + 8) * 2.0**-50 * size)
        if value > best:
            best, best_mu = value, mu
        if step == steps - 1:
            break
        g = A  # reused in place: 1 where a reduced cost stays negative
        for o in range(len(D)):
            g[o] = A[o] < 0
        for o in reversed(order):
            back = q * (g[ins_at[o]] * fracs[o]).sum(axis=0)
            g[o] = np.where(passed[o], back, g[o])
        grad = np.ones(N)
        for o in range(len(D)):
            grad -= np.bincount(C[o][valid[o]], weights=g[o][valid[o]], minlength=N)
        m1 = 0.9 * m1 + 0.1 * grad
        m2 = 0.999 * m2 + 0.001 * grad * grad
        t = step + 1
        tau = tau * np.exp(rate * (m1 / (1 - 0.9**t)) / (np.sqrt(m2 / (1 - 0.999**t)) + 1e-12))
        tau = np.minimum(tau, cap)
    return FlowBound(average=max(best, 0.0), mu=best_mu, steps=steps, radius=min(radius, n))


def symmetries(prior: ArrayLike) -> list[tuple[int, ...]]:
    """The permutations ``s`` of the categories that leave the prior unchanged (``a[s] == a``, exactly), identity
    first: each maps the LP of docs/definitions.md §9 onto itself (``pi``, the loss and the neighbours are invariant)."""
    import itertools

    a = np.asarray(prior, dtype=np.float64)
    return [s for s in itertools.permutations(range(a.size)) if np.array_equal(a[list(s)], a)]


def orbit_count(prior: ArrayLike, n: int) -> int:
    """How many orbits R(n) has under :func:`symmetries` (Burnside: the mean over the group of the data sets each
    permutation fixes, i.e. the compositions of n constant on its cycles): the column LPs of one step of
    :func:`column_bound`.  Public inputs only."""
    group = symmetries(prior)
    total = 0
    for s in group:
        seen, cycles = set(), []
        for i in range(len(s)):
            if i not in seen:
                length, j = 0, i
                while j not in seen:
                    seen.add(j)
                    j = s[j]
                    length += 1
                cycles.append(length)
        ways = [1] + [0] * n  # solutions of sum_j cycles[j] x_j = n, x_j >= 0
        for length in cycles:
            for m in range(length, n + 1):
                ways[m] += ways[m - length]
        total += ways[n]
    return total // len(group)


#: Where scipy keeps its bundled HiGHS bindings (there in scipy 1.17.1; a private module, whose place is no promise):
#: the fast route of :class:`_ColumnLP`.  tests/library/test_yardstick_highs.py names it, so a scipy that moves it
#: fails there.
HIGHS_MODULE = "scipy.optimize._highspy._core"


def _highs_core():
    """scipy's bundled HiGHS bindings (:data:`HIGHS_MODULE`) with every name :class:`_ColumnLP` uses, else None (a
    scipy that moved or renamed them): then :class:`_ColumnLP` takes the public ``linprog`` route."""
    import importlib

    try:
        core = importlib.import_module(HIGHS_MODULE)
    except ImportError:
        return None
    names = ("_Highs", "HighsLp", "HighsModelStatus", "HighsStatus", "MatrixFormat", "kHighsInf")
    return core if all(hasattr(core, name) for name in names) else None


class _ColumnLP:
    """The column LP of :func:`column_bound` over a whole window (every offset), one HiGHS model kept across outputs:
    ``min w^T x`` with ``x(o) - e^eps x(o') <= 0`` for every ordered neighbouring pair of offsets and ``0 <= x <= 1``.
    Only the costs change from one output to the next, so each solve starts from the previous optimal basis (primal
    feasible: a few simplex iterations).  ``primal``: HiGHS's primal simplex (``simplex_strategy`` 4), which starts
    from that basis as it is (Dir(1,1,1), n = 100, eps = 0.5, radius 12: ~1.5x faster than HiGHS's choice; another
    optimal vertex may come out, so another supergradient, the same certificate).

    Which HiGHS.  scipy's bundled one (the build ``linprog(method="highs")`` calls), through its bindings at
    :data:`HIGHS_MODULE`, found by :func:`_highs_core`.  That module is private: where a scipy has moved it, each
    solve is ``scipy.optimize.linprog(method="highs")`` from scratch instead (public; slower, no warm start).  Not
    the ``highspy`` package: it would be a second HiGHS build beside scipy's, a new dependency whose version drifts
    from the one ``linprog`` runs, and its bases, hence the yardstick's floats, could differ from the pipeline's.
    Either route certifies the same way: the certificate never depends on the solver's accuracy, only on ``y >= 0``
    (:func:`column_bound`); both return HiGHS's row duals, clipped."""

    def __init__(self, size: int, pairs: NDArray[np.int64], e: float, primal: bool = False):
        from scipy import sparse

        m = len(pairs)
        A = sparse.csc_array((np.tile([1.0, -e], m), (np.repeat(np.arange(m), 2), pairs.ravel())), shape=(m, size))
        highs = _highs_core()
        if highs is None:
            self._h, self._A = None, A.tocsr()
            return
        model = highs.HighsLp()
        model.num_col_, model.num_row_ = size, m
        model.a_matrix_.num_col_, model.a_matrix_.num_row_ = size, m
        model.a_matrix_.format_ = highs.MatrixFormat.kColwise
        model.a_matrix_.start_, model.a_matrix_.index_, model.a_matrix_.value_ = A.indptr, A.indices, A.data
        model.col_cost_, model.col_lower_, model.col_upper_ = np.zeros(size), np.zeros(size), np.ones(size)
        model.row_lower_, model.row_upper_ = np.full(m, -highs.kHighsInf), np.zeros(m)
        self._h, self._optimal, self._index = highs._Highs(), highs.HighsModelStatus.kOptimal, np.arange(
            size, dtype=np.int32)
        self._h.setOptionValue("output_flag", False)
        for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
            self._h.setOptionValue(option, 1e-10)
        if primal:  # the previous optimal basis stays primal feasible when only the costs change
            self._h.setOptionValue("simplex_strategy", 4)
        if self._h.passModel(model) == highs.HighsStatus.kError:
            raise InputError("a column LP of the yardstick could not be set up")

    def solve(self, w: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(x, y)``: an optimal column and the pairs' multipliers ``y >= 0`` (HiGHS's row duals, clipped)."""
        if self._h is None:
            return self._solve_public(w)
        self._h.changeColsCost(len(self._index), self._index, w)
        self._h.run()
        if self._h.getModelStatus() != self._optimal:
            raise InputError(f"a column LP of the yardstick failed: {self._h.modelStatusToString(self._h.getModelStatus())}")
        solution = self._h.getSolution()
        return np.asarray(solution.col_value), np.maximum(-np.asarray(solution.row_dual), 0.0)

    def _solve_public(self, w: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """:meth:`solve` through ``linprog(method="highs")`` (the same tolerances; its ``ineqlin.marginals`` are
        HiGHS's row duals)."""
        from scipy.optimize import linprog

        tol = 1e-10
        res = linprog(w, A_ub=self._A, b_ub=np.zeros(self._A.shape[0]), bounds=(0.0, 1.0), method="highs",
                      options={"primal_feasibility_tolerance": tol, "dual_feasibility_tolerance": tol})
        if res.status != 0:
            raise InputError(f"a column LP of the yardstick failed: {' '.join(str(res.message).split())[:120]}")
        return np.asarray(res.x), np.maximum(-np.asarray(res.ineqlin.marginals), 0.0)



@dataclass
class _FlowWalk:
    """The order in which :func:`_window_flows` visits a window's offsets (:func:`_offsets`): inwards from the rim with
    each offset's inward neighbours, then outwards from the centre with all its neighbours; ``q = e^-eps``."""

    order: list[int]
    ins_at: list[NDArray[np.intp]]
    outward: list[int]
    around_at: list[NDArray[np.intp]]
    q: float

    @classmethod
    def of(cls, dist, inward, around, q: float) -> "_FlowWalk":
        return cls(order=[int(o) for o in np.argsort(-dist, kind="stable") if dist[o] > 0],
                   ins_at=[np.asarray(i, dtype=np.intp) for i in inward],
                   outward=[int(o) for o in np.argsort(dist, kind="stable")],
                   around_at=[np.asarray(j, dtype=np.intp) for j in around], q=q)


def _window_flows(W: NDArray[np.float64], walk: _FlowWalk) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The flows of :func:`flow_bound` (its inward pass and one outward sweep, the same rules) in each column of ``W``
    (rows: offsets; one column per output, its window's costs ``w``): per column the value ``sum_u min(0, A(u))``
    of the running reduced costs ``A`` and the sum of the absolute values of every term added (the initial ``|w|``,
    each surplus paid, each share sent), whose ``(radius + 8) 2^-50`` times bounds the distance of that value from
    the exact ``sum_u min(0, rc(u))`` of the flows' ``y >= 0`` (:func:`flow_bound`'s rounding argument)."""
    A = W.copy()
    size = np.abs(A).sum(axis=0)
    q = walk.q
    for o in walk.order:
        pos = np.maximum(A[o], 0.0)
        ins = walk.ins_at[o]
        need = np.maximum(-A[ins], 0.0)
        total = need.sum(axis=0)
        has = total > 0
        send = (q * pos) * np.where(has, need / np.where(has, total, 1.0), 1.0 / len(ins))
        size += pos + send.sum(axis=0)
        A[ins] += send
        np.minimum(A[o], 0.0, out=A[o])
    for o in walk.outward:
        pos = np.maximum(A[o], 0.0)
        if not pos.any():
            continue
        nb = walk.around_at[o]
        need = np.maximum(-A[nb], 0.0)
        total = need.sum(axis=0)
        y = np.minimum(1.0, q * pos / np.where(total > 0, total, 1.0)) * (total > 0) * need
        paid = y.sum(axis=0)
        A[nb] += y
        A[o] -= paid / q
        size += paid + pos
    return np.minimum(A, 0.0).sum(axis=0), size


def _fold_ring(W: NDArray[np.float64], order: list[int], ins_at: list[NDArray[np.intp]], q: float,
               inner: NDArray[np.intp]) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The ring of :func:`column_bound`'s ``inner``: in each column of ``W`` (rows: a window's offsets; one column per
    output, its costs ``w``) the offsets of ``order`` (those past the inner radius, from the rim inwards) each send
    ``q max(0, A)`` in equal parts to their inward neighbours (:func:`_offsets`: one step closer to the output), i.e.
    ``y(u', u) = q max(0, A(u)) / |inward(u)|`` for each inward neighbour ``u'`` of ``u``, which leaves
    ``min(0, A(u))`` at ``u``.  Returns the running costs at the ``inner`` offsets (the inner LP's costs), per column
    the sum of what stays negative on the ring (``sum min(0, A(u))``) and the sum of the absolute values of every
    term added (each surplus sent and each share received), for the rounding allowance of :func:`_window_flows`."""
    A = W.copy()
    deficit = np.zeros(W.shape[1])
    size = np.zeros(W.shape[1])
    for o in order:
        pos = np.maximum(A[o], 0.0)
        ins = ins_at[o]
        send = (q * pos) / len(ins)
        A[ins] += send
        size += pos + len(ins) * send
        deficit += np.minimum(A[o], 0.0)
    return A[inner], deficit, size


def column_bound(prior: ArrayLike, n: int, epsilon: float, mu: ArrayLike, radius: int = FLOW_RADIUS,
                 steps: int = 1, rate: float = COLUMN_RATE, symmetric: bool = True,
                 scales: tuple[float, ...] = (1.0,), primal: bool = False, flows: bool = False,
                 most: int | None = None, weights: ArrayLike | None = None, pooled: bool = False,
                 inner: int | None = None) -> FlowBound:
    """Certified lower bound on the optimal average error (docs/definitions.md §9): the dual of :func:`flow_bound` at
    multipliers ``mu`` (one per data set, in candidate order; e.g. :func:`flow_bound`'s), each window's ``y`` the
    *optimal* one, then ``steps - 1`` ascent steps on ``mu``.

    Lagrangian dual.  Relaxing only the row sums ``sum_r P(r | c) = 1`` with multipliers ``mu`` leaves one problem
    per output ``r``: ``V_r = min sum_c x(c) (pi(c) L(c, r) - mu(c))`` over the columns ``x`` with ``0 <= x <= 1``
    and ``x(c) <= e^eps x(c')`` for neighbours, and ``OPT >= sum_c mu(c) + sum_r V_r`` for every ``mu`` (weak
    duality; with the optimal ``mu`` it is the LP optimum).  The column problem is solved on the whole window
    ``H_r = {r + delta : d(delta) <= radius}`` of points summing to n, *including* those with a negative coordinate
    (off R(n)): there ``x`` is a free variable in ``[0, 1]`` of cost 0, and every neighbouring pair within ``H_r``
    is constrained, so every output shares one LP and only its costs change (:class:`_ColumnLP`).  Relaxation:
    ``mu`` is first lowered to ``pi`` times the far cap of :func:`flow_bound` (a lower bound on every loss outside
    a window), so the cost ``pi(c) L(c, r) - mu(c)`` is ``>= 0`` on R(n) off the window.  Let ``x`` be a feasible
    column on R(n) and ``z(u) = max_c x(c) e^(-eps d(c, u))`` (``c`` in R(n)) on ``H_r``.  Then ``z = x`` on R(n)
    (two data sets at distance ``d`` are joined by ``d`` substitutions inside R(n), each coordinate moving
    monotonically between its two ends, so ``x(c') <= e^(eps d) x(c)``), ``z`` lies in ``[0, 1]``, and
    ``z(u) <= e^eps z(u')`` for neighbours (``d(c, u) <= d(c, u') + 1``): ``z`` is feasible on ``H_r`` with cost
    the window's part of ``x``'s, at most ``x``'s whole cost.  So the window LP is at most ``V_r``.
    Certificate: the column LP's duals (HiGHS), clipped to ``y >= 0``, give ``V_r >= sum_u min(0, rc_r(u))`` over
    ``H_r`` with ``rc_r(u) = w(u) + sum_u' y(u, u') - e^eps sum_u' y(u', u)`` (``w`` the cost; weak duality with the
    box, exact for any ``y >= 0`` whatever HiGHS's accuracy).  Rounding: each reduced cost is a float sum of at most
    ``2 k (k - 1) + 2`` terms and each output's part a sum of ``|H_r|`` of them, within
    ``(|H_r| + 2 k (k - 1) + 8) 2^-52`` times that output's sum of absolute terms (``pi L``, ``mu``, each ``y``
    and ``e^eps y``); the sum over outputs within ``(outputs + 16) 2^-52`` times the whole; the value is lowered by
    both.  Losses are lowered by :data:`LOSS_MARGIN` as in :func:`flow_bound`.

    Symmetry (``symmetric``, the default).  Let ``s`` permute the categories with ``a[s] = a`` (:func:`symmetries`).
    Then ``pi(s c) = pi(c)``, ``L(s c, s r) = L(c, r)`` and ``s`` maps neighbours to neighbours, so when
    ``mu(s c) = mu(c)`` the column problem at ``s r`` is the image of the one at ``r``: the image of its ``y`` is a
    ``y >= 0`` there with the same reduced costs (the same floats: the losses of ``r``'s window are used for its
    image, each at or below the true loss), and ``V_(s r)`` is certified by ``V_r``.  So only one output per orbit
    is solved, its value counted once per member of its orbit.  ``mu`` is made invariant first: the mean over its
    orbit of ``mu`` (clipped to the far cap), then clipped to the smallest cap over the orbit.  The dual function
    ``g`` is concave and ``g(mu o s) = g(mu)``, so the orbit mean is at least ``g(mu)``: nothing is lost.
    ``symmetric=False`` solves every output at ``mu`` as given.

    Ascent (any ``mu`` is valid; the steps only choose which one): ``1 - sum_r x_r(c)`` (``x_r`` HiGHS's column
    solution, scattered over the orbit of ``r`` with weight ``|orbit| / |group|``: the orbit mean of the
    supergradient) is a supergradient of the dual at ``mu``.  Each step is Polyak's towards a target above the best
    value so far: ``mu / pi`` moves by ``(target - value) / |pi g|^2`` times ``pi g``, with ``target = best +
    delta``, ``delta`` first ``rate`` times the first value and multiplied by 0.7 at every step whose last three
    values stayed below the best (the target is not known, so it is guessed and lowered; Dir(1,1,1), eps = 0.5,
    n = 20, radius 12: 0.4931 after 30 steps against the LP's 0.4975, where a step of ``0.01 / sqrt(t)`` reached
    0.4858 in 10).  Projected onto ``[0, far cap]``; the best value is kept.

    Scales (``scales``): the first ``len(scales)`` evaluations are at ``f mu`` for each ``f`` given (each made
    invariant and clipped as above: every one is a valid multiplier, so the best of them is a bound), and the
    ascent goes on from the best of them; ``steps`` counts every evaluation.  For a start from a release's own
    errors (:func:`release_bound`): ``mu = f pi E`` with ``f`` a little below 1.  ``primal``: :class:`_ColumnLP`'s.

    Flows first (``flows``).  Each window first takes the flows of :func:`flow_bound` (:func:`_window_flows`: its
    inward pass and one outward sweep, on the whole window ``H_r``): a ``y >= 0`` on neighbouring pairs of ``H_r``,
    so by the certificate above ``V_r`` is at least their ``sum_u min(0, rc_r(u))``, lowered by their rounding
    allowance (:func:`flow_bound`'s ``(radius + 8) 2^-50`` times the sum of every term's absolute value, which
    bounds the distance of the running reduced costs from the exact ``rc_r`` of that ``y``; added here with the
    window's ``pi L`` and ``mu`` to the allowance above).  Where that value is below ``-FLOW_SKIP`` times the
    window's multipliers (:data:`FLOW_SKIP`) the window's LP is solved too and the larger of the two certified
    values is taken (each is at most ``V_r``); elsewhere the flows' value stands, within ``FLOW_SKIP sum mu`` of the
    LP's (which is ``<= 0``).  ``most``: at most that many LPs per evaluation, those of the largest deficits
    (weighted by the orbit's size); the others keep the flows' value, still a certified one.  A window without an LP
    adds ``x = 0`` to the supergradient.

    Cost: one LP of ``|H_r|`` variables and ~``k (k - 1) |H_r|`` constraints per orbit of outputs and step
    (:func:`orbit_count` of them), each started from the previous one's optimal basis; with the flows first, the
    flows in every window and an LP only where they leave a deficit.

    Weights (``weights``, :func:`objective_weights`; None: ``pi``).  The Lagrangian above reads ``pi`` only as the
    objective's weights: with ``w`` in its place (costs ``w(c) L(c, r) - mu(c)``, ``mu`` clipped to ``w`` times the
    far cap) every step holds as written and bounds ``min_P sum_c w(c) E_P(c)``, at most the optimal worst case when
    ``w`` sums to 1 (:func:`weighted_worst`).  The symmetry shortcut needs ``w(s c) = w(c)`` exactly, as it needs
    ``pi``'s: :func:`objective_weights` writes one float per orbit.

    ``pooled``: the far cap is :func:`_aggregate_far`'s (:func:`far_cap`), at or below every far loss as the
    one-category cap is, so the relaxation above holds as written; it lets ``mu`` rise higher, which a long ascent or
    a start from a solved LP's multipliers (:func:`weighted_bound`) can use, and which can lower a one-evaluation start
    from a release's errors (docs/lattice.md, "The far cap by pooled counts").

    A ring folded inwards (``inner`` below ``radius``).  The LP is solved over the offsets within ``inner`` only; the
    *ring* (the offsets of the window past ``inner``) is handled first by a fixed ``y >= 0``: from the rim inwards,
    each ring point ``u`` whose running cost ``A(u)`` is positive sends ``q A(u)`` in equal parts to its inward
    neighbours (``y(u', u) = q A(u) / |inward(u)|``, the multipliers of ``x(u') <= e^eps x(u)``), so ``u``'s reduced
    cost becomes ``min(0, A(u))`` and the inner rim's costs rise by what they receive (:func:`_fold_ring`).  Off
    R(n) the costs are 0, so nothing is sent from there.  The window LP over the inner offsets with those raised
    costs gives its duals, and the two together are one ``y >= 0`` on the neighbouring pairs of the whole window
    ``H_r`` (radius ``radius``): the certificate above holds as written, ``V_r >= sum_u min(0, rc_r(u))`` over
    ``H_r``, i.e. the inner LP's ``sum min(0, rc)`` plus what stays negative on the ring.  So a window of ``radius``
    substitutions (its far cap, its ``mu`` clipped to ``pi`` times that cap) costs an LP of ``inner`` only: the
    ring stands in for the mass an eps-DP column must keep past the inner window (``x(u) >= e^-eps x(u')``), which
    a narrower window alone would drop.  Rounding: the ring's sends are added to the flows' allowance (``(radius +
    8) 2^-50`` times their absolute sum), beside the LP's.  The supergradient reads the inner LP's ``x`` only (the
    ascent's direction, not the certificate).  ``inner`` None (or at least ``radius``): no ring, as before.
    """
    a = _validate.prior(prior)
    k = a.size
    n = _validate.integer(n, "n", 0)
    eps = _validate.epsilon(epsilon)
    R = candidates(n, k)
    N = len(R)
    mu = np.asarray(mu, dtype=np.float64).copy()
    if mu.shape != (N,) or not np.all(np.isfinite(mu)):
        raise InputError(f"mu must hold one finite number per data set ({N})")
    radius = min(_validate.integer(radius, "radius", 0), n)
    pi = objective_weights(a, n, weights)
    D, dist, inward = _offsets(k, radius)
    cap = far_cap(a, n, R, radius, pooled)
    top = np.where(np.isinf(cap), np.inf, pi * cap)  # pi * cap; no cap where the window is all of R(n), w = 0 too
    # the images of every data set under the symmetries (row 0: the identity), one output per orbit
    images = np.array([candidate_rank(R[:, list(s)]) for s in (symmetries(a) if symmetric else [tuple(range(k))])])
    top = top[images].min(axis=0)
    rep = images.min(axis=0)
    outputs = np.flatnonzero(rep == np.arange(N))
    orbit = np.bincount(rep, minlength=N)
    # the windows of the solved outputs only (column i: output outputs[i]; the same floats as over all of R(n))
    C, valid, PL = _window_losses(a, R[outputs], pi, D)
    # ordered neighbouring offsets (o, o2): the pair (r + D[o], r + D[o2]) of a window
    around = _neighbour_offsets(D)
    # the LP's offsets: the whole window, or within ``inner`` with the ring folded inwards first (docstring)
    ring = inner is not None and int(inner) < radius
    lp_at = np.flatnonzero(dist <= int(inner)) if ring else np.arange(len(D))
    where = {int(o): i for i, o in enumerate(lp_at.tolist())}
    pairs = np.array([(where[o], where[j]) for o in lp_at.tolist() for j in around[o] if j in where],
                     dtype=np.int64).reshape(-1, 2)
    fold = ([int(o) for o in np.argsort(-dist, kind="stable") if dist[o] > int(inner)],
            [np.asarray(i, dtype=np.intp) for i in inward], math.exp(-eps), lp_at) if ring else None
    e = math.exp(eps)
    lp = _ColumnLP(len(lp_at), pairs, e, primal)
    # rc = w + out_of y - e^eps into y over a batch of outputs (one column of y per output)
    from scipy import sparse

    out_of = sparse.csr_array((np.ones(len(pairs)), (pairs[:, 0], np.arange(len(pairs)))), shape=(len(lp_at), len(pairs)))
    into = sparse.csr_array((np.ones(len(pairs)), (pairs[:, 1], np.arange(len(pairs)))), shape=(len(lp_at), len(pairs)))
    walk = _FlowWalk.of(dist, inward, around, math.exp(-eps)) if flows else None
    scales = tuple(float(f) for f in scales) or (1.0,)
    if not all(math.isfinite(f) and f >= 0 for f in scales):
        raise InputError("scales must be finite and at least 0")
    base, values, lps = mu, [], []
    best, best_mu, best_covered, delta, below = -math.inf, np.zeros(N), None, None, 0
    for step in range(max(1, steps, len(scales))):
        if step < len(scales):  # the first evaluations: the given multipliers scaled (docstring)
            mu = base * scales[step]
        mu = np.minimum(np.clip(mu, 0.0, top)[images].mean(axis=0), top)
        value, size, margin, solved = float(mu.sum()), float(np.abs(mu).sum()), 0.0, 0
        covered = np.zeros(N)
        last = step == max(1, steps, len(scales)) - 1  # no supergradient needed after it
        times = orbit[outputs].astype(np.float64)
        solve = np.arange(len(outputs))
        got = None
        if flows:  # the flows' y in every window first (docstring: "Flows first")
            got, moved, own, mass = (np.empty(len(outputs)) for _ in range(4))
            for lo in range(0, len(outputs), COLUMN_BATCH):
                hi = min(lo + COLUMN_BATCH, len(outputs))
                ok, m_c = valid[:, lo:hi], np.where(valid[:, lo:hi], mu[C[:, lo:hi]], 0.0)
                got[lo:hi], moved[lo:hi] = _window_flows(np.where(ok, PL[:, lo:hi] - m_c, 0.0), walk)
                own[lo:hi] = np.abs(PL[:, lo:hi]).sum(axis=0) + np.abs(m_c).sum(axis=0)
                mass[lo:hi] = m_c.sum(axis=0)
            part = own + moved
            value += float(times @ got)
            size += float(times @ part)
            margin += float(times @ ((4 * (radius + 8) + len(D) + 8) * part))
            # an LP where the flows leave a deficit, the largest deficits first when ``most`` caps them
            solve = np.flatnonzero(got < -FLOW_SKIP * mass)
            if most is not None and len(solve) > most:
                solve = np.sort(solve[np.argsort(times[solve] * got[solve], kind="stable")[:max(0, int(most))]])
        for lo in range(0, len(solve), COLUMN_BATCH):
            at = solve[lo:lo + COLUMN_BATCH]
            ok, cols = valid[:, at], C[:, at]
            m_c = np.where(ok, mu[cols], 0.0)
            # the whole window's column LP: data sets off R(n) cost 0 (docstring: a relaxation)
            W = np.where(ok, PL[:, at] - m_c, 0.0)
            ringed, moved = np.zeros(len(at)), np.zeros(len(at))
            if fold is not None:  # the ring's y first, the LP over the inner offsets (docstring)
                W, ringed, moved = _fold_ring(W, *fold)
                ok, cols = ok[lp_at], cols[lp_at]
            X = np.zeros(W.shape)
            Yb = np.empty((len(pairs), len(at)))
            for j in range(len(at)):
                X[:, j], Yb[:, j] = lp.solve(W[:, j])
            # rc(c) = w(c) + sum_c' y(c, c') - e^eps sum_c' y(c', c): y(c, c') the multiplier of x(c) - e x(c') <= 0
            rc = W + (out_of @ Yb - e * (into @ Yb))
            part = (np.abs(PL[:, at]).sum(axis=0) + np.abs(m_c).sum(axis=0) + (1.0 + e) * Yb.sum(axis=0)
                    + moved)
            cert = np.minimum(rc, 0.0).sum(axis=0) + ringed
            if got is not None:  # the LP's certificate replaces the flows' where higher (each is one for V_r)
                cert = np.maximum(cert, got[at]) - got[at]
            value += float(times[at] @ cert)
            size += float(times[at] @ part)
            margin += float(times[at] @ ((len(D) + 2 * k * (k - 1) + 8) * part))
            if fold is not None:
                margin += float(times[at] @ (4 * (radius + 8) * part))
            solved += len(at)
            if not last:
                weight = np.where(ok, X * (times[at] / len(images)), 0.0)
                for image in images:
                    covered += np.bincount(image[cols[ok]], weights=weight[ok], minlength=N)
        value -= 2.0**-52 * (margin + (len(outputs) + 16) * size)
        values.append(value)
        lps.append(solved)
        if value > best:
            best, best_mu, best_covered, below = value, mu.copy(), covered, 0
        else:
            below += 1
        if len(scales) - 1 <= step < steps - 1:
            if step == len(scales) - 1 and len(scales) > 1:  # the ascent goes on from the best scale
                mu, value, covered, below = best_mu.copy(), best, best_covered, 0
            grad = pi * (1.0 - covered)
            if delta is None:
                delta = rate * max(value, 1e-12)
            if below >= 3:
                delta *= 0.7
            norm = float(grad @ grad)
            if norm <= 0:
                break
            mu = mu + (best + delta - value) / norm * pi * grad
    return FlowBound(average=max(best, 0.0), mu=best_mu, steps=max(1, steps, len(scales)), radius=radius,
                     values=tuple(values), lps=tuple(lps))


#: :func:`release_bound`: the scales of a release's errors tried first (the bound falls fast once the scale passes
#: the release's ratio to the optimum: Dir(1,1,1), n = 300, eps = 0.5, radius 12, one step each: 0.2232 at 0.90,
#: 0.2328 at 0.94, 0.2121 at 0.96, 0.1177 at 0.98; the release's average 0.2491), and the ascent's first target
#: above the best of them (relative).
RELEASE_SCALES = (0.94, 0.9)
RELEASE_RATE = 0.01
#: :func:`plan_release`'s last resort, one evaluation at ``RELEASE_SCALES[0]`` alone: Dir(1,1,1), n = 1000, eps = 1,
#: radius 6 from the lattice release's errors (average 0.075473): 0.065852 at 0.94, 0.065592 at 0.90 (each one
#: evaluation, ~23 CPU s at load ~18, planned 19.7 s), where two evaluations are planned at 36.2 s.
RELEASE_ONE = RELEASE_SCALES[:1]
#: :func:`plan_release`: the widest window radius it takes (at most), and the fewest evaluations (scales, then
#: ascent steps) it accepts; the widest radius with RELEASE_GOOD_STEPS evaluations is taken, else the widest with
#: the fewest, else none.
RELEASE_MAX_RADIUS = 16
RELEASE_MIN_RADIUS = 6
#: ... and at small eps at least ``RELEASE_EPS_RADIUS / eps`` (at most RELEASE_MAX_RADIUS): narrower windows certify
#: nothing there.  Dir(1,1,1), eps = 0.5, from the lattice release's errors: n = 300, radius 12, one evaluation at 0.94
#: 0.2328 (the release 1.070 of it) where ``compare`` ran radius 7 with 6 evaluations and printed the k = 2 bound
#: 0.1090 (2.285); n = 1000, radius 6, one and two evaluations 0.0, radius 8, two 0.0107 (the k = 2 bound 0.0632).
RELEASE_EPS_RADIUS = 6.0
RELEASE_GOOD_STEPS = 6
RELEASE_MAX_STEPS = COLUMN_STEPS
#: Seconds of one column LP of :func:`release_bound` (primal simplex): ``RELEASE_SECONDS_BASE +
#: RELEASE_SECONDS_PER_NODE`` per point of its window; an upper end (x1.2-1.4) of Dir(1,1,1), eps = 0.5 and 1, n = 300
#: and 1000, radius 6 to 14 on the shared 2-core machine at load ~8 (0.13 ms at 127 points, 0.6 ms at 631; 0.17 ms
#: at 61 under load 19).  The narrowest radius: at n = 1000, eps = 1 radius 4 certified 0.0489 (below the flows'
#: 0.0516), radius 6 0.0659.
RELEASE_SECONDS_BASE = 7e-5
RELEASE_SECONDS_PER_NODE = 1e-6
#: The same per point at k >= 4 (a point has k (k - 1) = 12 neighbour constraints): Dir(1,1,1,1), n = 100, eps = 1,
#: radius 6 (923 points), one evaluation from ``lattice (worst)``'s errors at 0.94: 6,146 LPs in 20.8 CPU s beside the
#: flows, 4,000 in 13.0 s (3.3-3.4 ms each, load ~3.3), 4,301 in 18.2 s (4.2 ms, load ~5.5); at 0.9, 3,800 in 8.9 s
#: (2.3 ms, load ~4.2); where the k = 3 constant scaled by k (k - 1) / 6 planned 1.9 ms.  An upper end of those.
RELEASE_SECONDS_PER_NODE_K4 = 4.5e-6
#: A window wide against n costs more per point at k = 4: the column LPs of Dir(1,1,1,1) from a flat start
#: (benchmarks/release_lp_k4.json, load ~5) took 26-37 ms at n = 10, radius 6 (923 points; 4.2 ms planned), 0.16 s at
#: radius 8, 0.44-0.83 s at radius 10; 6.0 ms and 15-19 ms at n = 20, radius 6 and 8; 3.3-4.2 ms at n = 100, radius 6.
#: ``(a, b)`` of ``max(1, a exp(b radius / n))`` (:func:`release_wide_factor`): above every one of those.
RELEASE_WIDE = (0.35, 6.0)
#: The categories' counts where :func:`plan_release` runs (measured at k = 3 and 4).  Dir(1,1,1,1), n = 100, eps = 2,
#: from the lattice release's errors (average 0.14639), one evaluation at 0.94 with the flows first: radius 3 0.12935
#: (21 LPs, 0.9 CPU s), 4 0.13736 (436 LPs, 1.5 s), 6 0.13742 (363 LPs, 2.8 s, 0.29 GB), where the flows' 36 ascent steps
#: of radius 2 certified 0.12052 in 26 s.
RELEASE_K = (3, 4)
#: :func:`release_bound` takes the flows' ``y`` in every window first and solves a window's LP only where they leave
#: a deficit (:func:`column_bound`'s ``flows``): seconds per (orbit of outputs, offset) of the set-up (the windows'
#: losses, :func:`_window_losses`) and of the flows at each evaluation.  Upper ends of Dir(1,1,1), n = 1000, eps = 0.5,
#: radius 12 (39.3 M entries) on the shared 2-core machine at load ~4: the set-up with the predictive, the far cap and
#: the orbits 3.1 CPU s (8e-8 per entry), the flows with their costs 2.5 s (6.4e-8).
RELEASE_SETUP_PER_ENTRY = 1e-7
RELEASE_FLOW_PER_ENTRY = 8e-8
#: Bytes per (orbit of outputs, offset) of :func:`release_bound`: the windows' ranks (int32), membership and losses
#: (13 bytes) and the batches' and HiGHS's working memory; measured peak below.
RELEASE_BYTES_PER_ENTRY = 20.0
#: :func:`plan_release`'s last resort where one evaluation with every window's LP does not fit: one evaluation that
#: solves the LPs of the windows with the largest deficits after the flows, as many as fit, at least this share of
#: the orbits, started at :data:`RELEASE_CAPPED_SCALES`.  Dir(1,1,1), n = 1000, eps = 0.5, radius 12, scale 0.75: the
#: flows alone certify 0.0892, with the 4,000 largest deficits' LPs 0.1035, 8,000 0.1089, 12,000 0.1108, all 30,506
#: with a deficit 0.1123 (83,834 orbits): a wider window with fewer LPs than this share loses more than it gains.
RELEASE_MIN_LP_SHARE = 0.12
#: ... where the flows certify most (the LPs then mend only the largest deficits): Dir(1,1,1), eps = 0.5, radius 12,
#: one evaluation with 8,000 LPs at n = 1000: 0.1051, 0.1089, 0.0953, 0.0580 at scales 0.7, 0.75, 0.8, 0.85; the flows
#: alone at n = 300: 0.1739, 0.1840, 0.1721, 0.1146 at the same scales, -0.0008 at 0.9.
RELEASE_CAPPED_SCALES = (0.75,)
#: At k in :data:`RELEASE_RING_K`, before that last resort: one evaluation whose LPs cover only the offsets within
#: ``radius - RELEASE_RING`` of their output, the ring past them folded inwards (:func:`column_bound`'s ``inner``), so
#: an LP costs what a narrower window's does and more of them fit, for the windows with the largest deficits, at
#: least :data:`RELEASE_RING_LP_SHARE` of the orbits, at :data:`RELEASE_RING_SCALES`.  Dir(1,1,1), n = 1000, eps = 0.5,
#: window 12, from ``lattice (average)``'s errors (average 0.15147; 83,834 orbits; CPU s of the LPs at load ~5): every
#: window's LP at 0.9 certified 0.13254 over the whole window (~34 s), 0.13254 with the LPs over radius 8 and a ring
#: of 4 (21.6 s), 0.12668 over radius 6 (15.6 s); in the share the last resort fills (12.9 s planned; there: 10,713
#: whole-window LPs at 0.75, 0.1103): inner radius 6 with 30,000 LPs 0.11495 at 0.8 (12.5 s), 0.10258 at 0.85; inner
#: 5 with 36,000 LPs 0.11706 at 0.8 (9.1 s); inner 4 (a ring of 8) with 44,000 LPs 0.11856 at 0.8 (9.3 s).
RELEASE_RING = 8
RELEASE_RING_K = (3,)
RELEASE_RING_MIN_INNER = 4
RELEASE_RING_LP_SHARE = 0.35
RELEASE_RING_SCALES = (0.8,)
#: At k >= 4, where one evaluation with every window's LP does not fit, first one evaluation at :data:`RELEASE_ONE`
#: (:data:`RELEASE_ONE_WORST` from a release built for the worst case) that solves the LPs of the largest deficits, as
#: many as fit, at least this share of the orbits (it then mends most windows, and a start near the optimum is worth
#: more than a lower scale): Dir(1,1,1,1), n = 100, eps = 1, radius 6, from ``lattice (worst)``'s errors (8,037
#: orbits, 6,146 with a deficit at 0.94): 3,800 LPs 0.25272 at 0.94, 0.25820 at 0.92, 0.25888 at 0.9; 4,000 LPs
#: 0.25587 at 0.94; every deficit's LP 0.26379 at 0.94; every LP at :data:`RELEASE_CAPPED_SCALES` 0.2300.  From
#: ``lattice (average)``'s errors at eps = 2 only 363 windows have a deficit: a cap above that changes nothing.
RELEASE_ONE_LP_SHARE = 0.4
#: The scale of one evaluation from a release built for the worst case (``compare``'s start where no release built for
#: the average was computed): its average is further above the optimum's than an average release's, and a lower
#: scale also leaves fewer and cheaper LPs (the measurements above).
RELEASE_ONE_WORST = RELEASE_SCALES[-1:]
#: Before that share, at k >= 4, the widest radius where the LPs of at least this share of the orbits fit: most
#: windows with a deficit then get their LP, and a narrower window with them certifies more than a wider one with
#: fewer.  From a release built for the worst case that evaluation is at :data:`RELEASE_MANY_WORST`.  Dir(1,1,1,1),
#: n = 100, eps = 1, from ``lattice (worst)``'s errors (8,037 orbits; ``benchmarks/average_start_any.py``, CPU s at
#: load 3.5-3.9, ``benchmarks/average_start_h65.json``): radius 6, 5,700 LPs (0.71 of the orbits) at 0.92: 0.26681
#: (the best average 1.182 of it), 17.5 s; every deficit's LP (5,959) at 0.9: 0.26405 (1.194), 21.4 s; radius 7 with
#: 3,559 LPs (0.44, what :data:`RELEASE_ONE_LP_SHARE` takes in a 26 s share) at 0.9: 0.26066 (1.210), 19.3 s; radius
#: 6 with 3,800 at 0.9: 0.25888 (1.218).
RELEASE_MANY_LP_SHARE = 0.7
#: The scale of that evaluation (every deficit's LP at radius 6, from ``lattice (worst)``'s errors: 0.26379 at 0.94,
#: 0.26690 at 0.92, 0.26405 at 0.9, 0.26069 at 0.88; with 3,800 LPs 0.9 was the best, 0.25888 against 0.25820).
RELEASE_MANY_WORST = (0.92,)
#: The scale of the one evaluation from a baseline's errors (:func:`plan_release`'s ``baseline``: ``compare`` computed no
#: lattice or optimal row).  A baseline is far above the optimum, and unevenly so (``lszhang``'s clamp costs most near
#: the faces), so ``f pi E`` is a good multiplier only well below 1.  Dir(1,1,1,1), n = 100, eps = 0.5, from
#: ``lszhang``'s errors (average 0.68930; ``benchmarks/baseline_start_k4.json``): radius 12, the flows alone, 0.2413,
#: 0.2895, 0.2973, -0.1098 at 0.35, 0.42, 0.47, 0.55; radius 12 with the 1,500 largest deficits' LPs at 0.5 0.3277
#: (49.6 CPU s, 1.8 GB); radius 10 with 3,000 at 0.5 0.3443 (53.6 s, 1.1 GB).
BASELINE_SCALES = (0.55,)


def release_bound(prior: ArrayLike, n: int, epsilon: float, errors: ArrayLike, radius: int = COLUMN_RADIUS,
                  steps: int = RELEASE_GOOD_STEPS, scales: tuple[float, ...] = RELEASE_SCALES,
                  rate: float = RELEASE_RATE, most: int | None = None, weights: ArrayLike | None = None,
                  inner: int | None = None) -> FlowBound:
    """Certified lower bound on the optimal average error (docs/definitions.md §9): :func:`column_bound` started
    from a release's own errors, ``mu = f pi E`` (``E(c)`` the release's expected error at each data set, in
    candidate order; ``f`` each of ``scales``, then Polyak steps from the best; ``steps`` evaluations in all).

    Why this start.  The column problem of output ``r`` is a cone (``x(c) <= e^eps x(c')``) cut by the box: its
    value is 0 when every direction of the cone costs at least 0 and falls fast past it.  Where the LP is nearly
    translation invariant, the cost ``pi(c) (L(c, r) - mu(c) / pi(c))`` is non-negative on the cone exactly when
    ``mu(c) / pi(c)`` is at most the least normalised loss of an eps-DP column around ``c``: the local optimum's
    error.  A good release's ``E(c)`` is close to it from above, so ``mu = f pi E`` with ``f`` a little below the
    release's ratio to the optimum leaves most column values at 0 and ``sum mu`` near ``f`` times its average.

    Certificate: any ``mu`` gives a valid bound (Lagrangian weak duality, :func:`column_bound`'s docstring, which
    also clips ``mu`` to the far cap and makes it invariant under the prior's symmetries); ``E`` only chooses the
    point.  So the bound is at most the optimum whatever ``errors`` holds (any non-negative finite numbers), and
    therefore at most every release's average error.

    Each evaluation takes the flows' ``y`` in every window first and solves a window's LP only where they leave a
    deficit (:func:`column_bound`'s ``flows``: the same bound, fewer LPs), at most ``most`` of them (the largest
    deficits; None: every one), each over the offsets within ``inner`` with the ring past them folded inwards where
    given (:func:`column_bound`'s ``inner``).  ``weights``: :func:`column_bound`'s (``mu = f w E``; None: ``pi``);
    with weights summing to 1 the bound is at most the optimal worst case (:func:`weighted_worst`), whatever
    ``errors`` holds."""
    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 0)
    E = np.asarray(errors, dtype=np.float64)
    N = math.comb(n + a.size - 1, a.size - 1)
    if E.shape != (N,) or not np.all(np.isfinite(E)) or np.any(E < 0):
        raise InputError(f"errors must hold one finite non-negative number per data set ({N})")
    pi = objective_weights(a, n, weights)
    return column_bound(a, n, epsilon, pi * E, radius=radius, steps=steps, rate=rate, scales=scales, primal=True,
                        flows=True, most=most, weights=weights, inner=inner)


def release_scales(steps: int, capped: bool, worst: bool = False, many: bool = False,
                   baseline: bool = False, ring: bool = False) -> tuple[float, ...]:
    """The scales :func:`release_bound` starts from under :func:`plan_release`'s ``(steps, capped)``: from a
    baseline's errors (``baseline``: :func:`plan_release`'s ``baseline``) :data:`BASELINE_SCALES` whatever the plan; a
    capped evaluation with a ring (``ring``: :func:`release_inner` not None) :data:`RELEASE_RING_SCALES`; another
    capped evaluation's :data:`RELEASE_CAPPED_SCALES`; else :data:`RELEASE_SCALES`, the first alone (:data:`RELEASE_ONE`)
    where one evaluation is planned, or where the start is a release built for the worst case (``worst``)
    :data:`RELEASE_MANY_WORST` where most windows' LPs are solved (``many``: :func:`release_many`), else the last
    (:data:`RELEASE_ONE_WORST`).  Public inputs only (the plan's, and which release starts)."""
    if baseline:
        return BASELINE_SCALES
    if capped and ring:
        return RELEASE_RING_SCALES
    if capped:
        return RELEASE_CAPPED_SCALES
    if steps >= len(RELEASE_SCALES):
        return RELEASE_SCALES
    if worst:
        return RELEASE_MANY_WORST if many else RELEASE_ONE_WORST
    return RELEASE_ONE


def release_many(prior: ArrayLike, n: int, most: int | None) -> bool:
    """Whether :func:`plan_release`'s one evaluation solves most windows' LPs: every one (``most`` None) or at least
    :data:`RELEASE_MANY_LP_SHARE` of the orbits, at k >= 4.  Public inputs only."""
    return len(prior) >= 4 and (most is None or most >= RELEASE_MANY_LP_SHARE * orbit_count(prior, n))


def release_capped(prior: ArrayLike, n: int, most: int | None) -> bool:
    """Whether :func:`plan_release`'s cap ``most`` is its last resort (started at :data:`RELEASE_CAPPED_SCALES`): any
    cap at k = 3; at k >= 4 a cap below :data:`RELEASE_ONE_LP_SHARE` of the orbits (one at or above it is one
    evaluation at :func:`release_scales`' one scale).  Public inputs only."""
    return most is not None and (len(prior) < 4 or most < RELEASE_ONE_LP_SHARE * orbit_count(prior, n))


def release_inner(prior: ArrayLike, n: int, radius: int, most: int | None) -> int | None:
    """The inner radius of :func:`plan_release`'s ``(radius, steps, most)`` (:func:`column_bound`'s ``inner``: the
    LPs over the offsets within it, the ring past it folded inwards), or None (the LPs over the whole window): at k in
    :data:`RELEASE_RING_K`, ``radius - RELEASE_RING`` where that is at least :data:`RELEASE_RING_MIN_INNER` and the
    plan is capped with at least :data:`RELEASE_RING_LP_SHARE` of the orbits.  :func:`plan_release` plans a ring there
    and only there: it tries the ring first, and where no ring fits, the capped last resort's cap is below that share
    (its LPs over the whole window cost more than the ring's over the inner offsets).  Read by the plan and the run
    (:func:`dpposterior.yardstick.block_bounds`).  Public inputs only."""
    k = len(prior)
    inner = int(radius) - RELEASE_RING
    if (k not in RELEASE_RING_K or most is None or inner < RELEASE_RING_MIN_INNER
            or most < RELEASE_RING_LP_SHARE * orbit_count(prior, n)):
        return None
    return inner


def release_lp_seconds(k: int, offsets: int, n: int | None = None, radius: int | None = None) -> float:
    """Planned seconds of one column LP of :func:`release_bound` over a window of ``offsets`` points:
    :data:`RELEASE_SECONDS_BASE` plus :data:`RELEASE_SECONDS_PER_NODE` per point scaled by ``k (k - 1) / 6`` (the
    neighbour constraints per point, measured at k = 3), at k >= 4 :data:`RELEASE_SECONDS_PER_NODE_K4` per point;
    at k >= 4, with ``n`` and ``radius``, times :func:`release_wide_factor` (a window wide against n).  Public inputs
    only."""
    if k >= 4:
        wide = release_wide_factor(n, radius) if n is not None and radius is not None else 1.0
        return (RELEASE_SECONDS_BASE + RELEASE_SECONDS_PER_NODE_K4 * offsets) * wide
    return RELEASE_SECONDS_BASE + RELEASE_SECONDS_PER_NODE * offsets * k * (k - 1) / 6


def release_wide_factor(n: int, radius: int) -> float:
    """The factor on a k >= 4 column LP's planned seconds where its window is wide against the simplex:
    ``max(1, RELEASE_WIDE[0] exp(RELEASE_WIDE[1] radius / n))``.  Public inputs only."""
    return max(1.0, RELEASE_WIDE[0] * math.exp(RELEASE_WIDE[1] * radius / max(int(n), 1)))


def plan_release(prior: ArrayLike, n: int, epsilon: float, seconds: float = COLUMN_SECONDS,
                 baseline: bool = False) -> tuple[Plan, tuple[int, int, int | None]]:
    """The plan of :func:`release_bound` (average) and its ``(radius, steps, most)``: the widest window radius (at
    most :data:`RELEASE_MAX_RADIUS` and n, at least :data:`RELEASE_MIN_RADIUS` and :data:`RELEASE_EPS_RADIUS` / eps)
    whose set-up and :data:`RELEASE_GOOD_STEPS` evaluations fit ``seconds``, with as many evaluations as fit (at most
    :data:`RELEASE_MAX_STEPS`); else the widest with ``len(RELEASE_SCALES)``; else the widest with one evaluation (the
    first scale alone, :data:`RELEASE_ONE`); each evaluation planned at the flows in every window
    (:data:`RELEASE_FLOW_PER_ENTRY` per orbit of outputs and offset) and one column LP per orbit of outputs
    (:func:`orbit_count`; :func:`release_lp_seconds`: an upper end, as an LP runs only where the flows leave a
    deficit), the set-up :data:`RELEASE_SETUP_PER_ENTRY`; ``most`` None.
    Else, at k >= 4, the widest radius where one evaluation with the LPs of at least :data:`RELEASE_MANY_LP_SHARE` of
    the orbits fits, else of at least :data:`RELEASE_ONE_LP_SHARE`, ``most`` the LPs that fit (the largest deficits';
    started at :func:`release_scales`' one scale).  Else the widest radius where one evaluation with the LPs of at
    least :data:`RELEASE_MIN_LP_SHARE` of the orbits fits, ``most`` the LPs that fit (the largest deficits'; started
    at :data:`RELEASE_CAPPED_SCALES`, :func:`release_capped`); else refused.  Before that last resort, at k in
    :data:`RELEASE_RING_K`, the widest radius where one evaluation with the LPs of at least
    :data:`RELEASE_RING_LP_SHARE` of the orbits fits with each LP over the offsets within ``radius - RELEASE_RING``
    (:func:`release_inner`; :func:`column_bound`'s ``inner``, its LP planned at :func:`release_lp_seconds` of those
    offsets, the set-up and flows at the whole window's), started at :data:`RELEASE_RING_SCALES`.
    ``baseline`` (the errors are a baseline's, far above the optimum: ``compare`` computed no lattice or optimal row):
    one evaluation only, at :data:`BASELINE_SCALES`, at the widest radius down to :data:`RELEASE_MIN_RADIUS` (not
    the eps rule: a narrower window with more LPs certifies more from such a start, the measurements at
    :data:`BASELINE_SCALES`) where the LPs of at least :data:`RELEASE_ONE_LP_SHARE` of the orbits fit (at most every
    orbit's), else of at least :data:`RELEASE_MIN_LP_SHARE`; else refused.  Any start gives a certified bound
    (:func:`release_bound`): the baseline only chooses the point.  A column LP is planned at
    :func:`release_lp_seconds`.  Only at k in :data:`RELEASE_K`.  Public inputs only (prior, n, eps; the release whose
    errors start it is one ``compare`` computed, itself planned from public inputs)."""
    k = len(prior)
    what = f"the yardstick's exact windows from a release's errors for k={k}, n={n}, eps={epsilon:g}"
    orbits = orbit_count(prior, n)
    fewest = len(RELEASE_SCALES)
    options = []
    narrowest = (RELEASE_MIN_RADIUS if baseline else
                 min(RELEASE_MAX_RADIUS, max(RELEASE_MIN_RADIUS, math.ceil(RELEASE_EPS_RADIUS / epsilon))))
    for radius in range(min(RELEASE_MAX_RADIUS, n), min(narrowest, n) - 1, -1):
        offsets = offset_count(k, radius)
        # per entry: the losses' k bands and the flows' (and an LP row's) k (k - 1) neighbours, measured at k = 3
        setup = RELEASE_SETUP_PER_ENTRY * orbits * offsets * k / 3
        flows = RELEASE_FLOW_PER_ENTRY * orbits * offsets * k * (k - 1) / 6
        lp = release_lp_seconds(k, offsets, n, radius)
        per = flows + orbits * lp
        fit = int(min(RELEASE_MAX_STEPS, (seconds - setup) // per)) if seconds > setup else 0
        most = int(min(orbits, (seconds - setup - flows) // lp)) if seconds > setup + flows else 0
        options.append((radius, fit, most, setup, per, flows, lp, RELEASE_BYTES_PER_ENTRY * orbits * offsets))
    room = [o for o in options if o[7] <= FLOW_BYTES]
    full = None if baseline else (next((o for o in room if o[1] >= RELEASE_GOOD_STEPS), None)
                                  or next((o for o in room if o[1] >= fewest), None)
                                  or next((o for o in room if o[1] >= 1), None))
    # at k >= 4 one evaluation at the first scale with most windows' LPs before the last resort; from a baseline's
    # errors the widest window with at least RELEASE_ONE_LP_SHARE of them, every one at most
    if baseline:
        one = next((o[:2] + (min(o[2], orbits),) + o[3:] for o in room if o[2] >= RELEASE_ONE_LP_SHARE * orbits), None)
    else:
        one = None if full or k < 4 else (next((o for o in room if o[2] >= RELEASE_MANY_LP_SHARE * orbits), None)
                                          or next((o for o in room if o[2] >= RELEASE_ONE_LP_SHARE * orbits), None))
    # at k in RELEASE_RING_K, before the last resort: the LPs over the inner offsets, the ring folded inwards
    # (release_inner), as many as fit, at least RELEASE_RING_LP_SHARE of the orbits
    ring = None
    if not (full or one or baseline) and k in RELEASE_RING_K:
        for radius, _, _, setup, _, flows, _, memory in room:
            if radius - RELEASE_RING < RELEASE_RING_MIN_INNER:
                continue
            lp = release_lp_seconds(k, offset_count(k, radius - RELEASE_RING))
            most = int(min(orbits, (seconds - setup - flows) // lp)) if seconds > setup + flows else 0
            if most >= RELEASE_RING_LP_SHARE * orbits:
                ring = (radius, 1, most, setup, 0.0, flows, lp, memory)
                break
    capped = None if full or one or ring else next(
        (o for o in room if o[2] >= max(1.0, RELEASE_MIN_LP_SHARE * orbits)), None)
    capped = ring or capped
    radius, fit, most, setup, per, flows, lp, memory = full or one or capped or (
        options[-1] if options else (0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0))
    if one or capped:
        steps, secs = 1, setup + flows + most * lp
        how = f"the flows in every window, the LPs of the {most:,} largest deficits" + (", at one scale" if one else "")
        if ring:
            how += f" over the offsets within {radius - RELEASE_RING}, the ring past them folded inwards"
    else:
        # one evaluation (the first scale alone) only where no more fit
        steps, most = max(fit, 1 if fit == 1 else fewest), None
        secs = setup + per * steps
        how = "the flows in every window, an LP where they leave a deficit"
    source = "a baseline's" if baseline else "a release's"
    route = (f"exact windows of radius {radius} from {source} errors, {steps} "
             f"evaluation{'s' if steps != 1 else ''} ({how})")
    return _share_plan(what, route, secs, memory, seconds, ((k not in RELEASE_K, f"not measured at k={k}"),)), (
        radius, steps, most)


def offset_count(k: int, radius: int) -> int:
    """The number of offsets of :func:`_offsets` (``sum delta = 0``, ``|delta|_1 <= 2 radius``), by counting: at
    distance ``j >= 1``, ``p`` positive and ``m`` negative coordinates carry ``j`` each."""
    total = 1
    for j in range(1, radius + 1):
        for p in range(1, min(k, j) + 1):
            for m in range(1, min(k - p, j) + 1):
                total += math.comb(k, p) * math.comb(k - p, m) * math.comb(j - 1, p - 1) * math.comb(j - 1, m - 1)
    return total


def exact_windows(k: int, epsilon: float) -> bool:
    """Whether :func:`plan_flow` may add :func:`column_bound`'s steps at this k and eps (share permitting): eps below
    :data:`COLUMN_MAX_EPSILON`, or k at least :data:`COLUMN_ANY_EPSILON_K`.  Public inputs only."""
    return epsilon < COLUMN_MAX_EPSILON or k >= COLUMN_ANY_EPSILON_K


def flow_shape(n: int, k: int, radius: int) -> tuple[int, int]:
    """``(data sets, offsets)`` of :func:`flow_bound` at this size: ``|R(n)|`` and the offsets within ``radius``."""
    return math.comb(n + k - 1, k - 1), offset_count(k, min(radius, n))


def flow_scale(N: float) -> float:
    """The factor on the flows' planned seconds per entry at ``N`` data sets (:data:`FLOW_LARGE`): 1 up to
    ``FLOW_LARGE[0]``."""
    return max(1.0, float(N) / FLOW_LARGE[0]) ** FLOW_LARGE[1]


def flow_costs(n: int, k: int, radius: int) -> tuple[float, float]:
    """Estimated seconds of :func:`flow_bound`'s set-up and of each ascent step at windows of ``radius`` (public n, k):
    ``FLOW_SETUP_PER_ENTRY`` per (data set, offset) and category, ``FLOW_SECONDS_PER_ENTRY`` per (data set, offset)
    plus ``FLOW_SECONDS_PER_OFFSET`` per offset, both times :func:`flow_scale` and at k >= 4 :data:`FLOW_K4`."""
    N, offsets = flow_shape(n, k, radius)
    large = flow_scale(N)
    setup_k, step_k = FLOW_K4 if k >= 4 else (1.0, 1.0)
    setup = FLOW_SETUP_PER_ENTRY * N * offsets * k * large * setup_k
    per = (FLOW_SECONDS_PER_ENTRY * N * offsets + FLOW_SECONDS_PER_OFFSET * offsets) * large * step_k
    return setup, per


def plan_flow(prior: ArrayLike, n: int, epsilon: float,
              seconds: float = BLOCK_SECONDS) -> tuple[Plan, tuple[int, int, int, int]]:
    """The plan of :func:`flow_bound` (average) and its ``(radius, steps, column radius, column steps)``: the widest
    window (at most :data:`FLOW_MAX_RADIUS`, at least :data:`FLOW_MIN_RADIUS`) within :data:`FLOW_BYTES` that leaves
    at least :data:`FLOW_GOOD_STEPS` ascent steps within ``seconds`` when wider than :data:`FLOW_RADIUS`, else at
    least :data:`FLOW_MIN_STEPS`, with as many steps as fit (at most :data:`FLOW_STEPS`); refused when none does.
    Then, only when ``seconds`` is at least :data:`COLUMN_MIN_SHARE` and eps below :data:`COLUMN_MAX_EPSILON` (any
    eps at k >= :data:`COLUMN_ANY_EPSILON_K`),
    the flows are planned within :data:`COLUMN_FLOW_SHARE` of ``seconds`` and as many steps of :func:`column_bound`
    (the flows' radius, at most :data:`COLUMN_RADIUS`; at most :data:`COLUMN_STEPS`; one column LP per orbit of
    outputs, :func:`orbit_count`) as fit in what the flows leave of ``seconds``; where fewer than
    :data:`COLUMN_FEW_STEPS` would fit, none, and the flows are planned within :data:`BLOCK_SECONDS`.  Public inputs
    only."""
    k = len(prior)
    what = f"the yardstick's dual flows for k={k}, n={n}, eps={epsilon:g}"
    # the exact windows first: the widest radius (at most COLUMN_RADIUS) with COLUMN_GOOD_STEPS steps in what the
    # flows leave, else COLUMN_MIN_RADIUS with the steps that fit; none when fewer than COLUMN_FEW_STEPS fit
    column = None
    if seconds >= COLUMN_MIN_SHARE and exact_windows(k, epsilon):
        left, orbits = (1.0 - COLUMN_FLOW_SHARE) * seconds, orbit_count(prior, n)
        for cr in range(min(COLUMN_RADIUS, n), min(COLUMN_MIN_RADIUS, n) - 1, -1):
            N, offsets = flow_shape(n, k, cr)
            setup = FLOW_SETUP_PER_ENTRY * N * offsets * k
            per = column_step_seconds(k, orbits, offsets)
            fit = int(min(COLUMN_STEPS, (left - setup) // per)) if left > setup else 0
            if fit >= COLUMN_GOOD_STEPS or (cr == min(COLUMN_MIN_RADIUS, n) and fit >= COLUMN_FEW_STEPS):
                column = (cr, setup, per)
                break
    # the flows: their multipliers start the exact windows (within COLUMN_FLOW_SHARE of the share, no wider than
    # them), else the bound itself (within BLOCK_SECONDS)
    flow_seconds = COLUMN_FLOW_SHARE * seconds if column else min(seconds, BLOCK_SECONDS)
    options = []
    for radius in range(min(column[0] if column else FLOW_MAX_RADIUS, n), min(FLOW_MIN_RADIUS, n) - 1, -1):
        N, offsets = flow_shape(n, k, radius)
        memory = FLOW_BYTES_PER_ENTRY * N * offsets
        setup, per = flow_costs(n, k, radius)
        steps = int(min(FLOW_STEPS, (flow_seconds - setup) // per)) if flow_seconds > setup else 0
        options.append((radius, max(steps, FLOW_MIN_STEPS), setup + per * max(steps, FLOW_MIN_STEPS), memory, steps))
    # past FLOW_RADIUS a window only with enough steps to converge; up to it, the widest with the fewest accepted
    choice = next((o for o in options if o[3] <= FLOW_BYTES and o[4] >= (
        FLOW_GOOD_STEPS if o[0] > FLOW_RADIUS else FLOW_MIN_STEPS)), options[-1])[:4]
    radius, steps, secs, memory = choice
    route = f"dual flows, windows of radius {radius}, {steps} steps"
    # then the exact windows in what the flows leave (at most the flows' own radius: their multipliers are then
    # within the same far cap, none lowered)
    polish = (min(radius, COLUMN_RADIUS), 0)
    if column and secs <= seconds:
        N, offsets = flow_shape(n, k, polish[0])
        setup = FLOW_SETUP_PER_ENTRY * N * offsets * k
        per = column_step_seconds(k, orbit_count(prior, n), offsets)
        polish = (polish[0], int(max(0, min(COLUMN_STEPS, (seconds - secs - setup) // per))))
        if polish[1] >= 1:
            secs += setup + per * polish[1]
            memory = max(memory, FLOW_BYTES_PER_ENTRY * N * offsets)
            route += f", then {polish[1]} steps of exact windows of radius {polish[0]} (one per orbit of outputs)"
    return _share_plan(what, route, secs, memory, seconds, too_few=choice[2] > seconds), (radius, steps, *polish)


# --- the worst case from a weighted average: weak duality under weights other than pi -----------------------------

#: The categories' counts where :func:`plan_weighted` runs (measured at k = 4 only), and the largest eps: at
#: Dir(1,1,1,1), n = 20, eps = 2 ``compare`` printed the same JSON with it as without (the corner blocks' 0.25979 the
#: larger; 32.3 CPU s against 20.0, benchmarks/compare_h65mix.json).
WEIGHTED_K = (4,)
WEIGHTED_MAX_EPSILON = 1.0
#: The minimax LP whose saddle-point weights are carried (:func:`mixed_weights`): at this n (at most n - 1), and the
#: share of its weights in the mix with pi.  Dir(1,1,1,1), eps = 0.5, n = 20 (flows of radius 8, 20 steps, then
#: exact windows of radius 8): from n = 10 at a half 0.6032 after 7 evaluations (pi alone: 0.5875 after 40 flow steps
#: and 6 evaluations); from n = 8 with the weight shared (:func:`carry_weights`) 0.5660 after 6, from 10 0.5883.
WEIGHTED_FROM = 10
WEIGHTED_SHARE = 0.5
#: The start of :func:`weighted_bound`'s dual, a factor on the mix of the LP's carried row multipliers and pi's flows'
#: (Dir(1,1,1,1), eps = 0.5, n = 15, from n = 10, under the pooled far cap: 0.5433, 0.5705, 0.5977, 0.6180 after 1 to
#: 4 evaluations, where the flows under the mixed weights and the one-category cap started 0.5373, 0.5633, 0.5890,
#: 0.6107; the same start under the one-category cap 0.5295, 0.5547 after 1 and 2, 0.6044 after 4).
WEIGHTED_START_SCALE = 0.9
#: The windows' radius (at most n): at radius 6 the dual stalls at ~0.544 (15 evaluations, either weights), at 8 it
#: passes 0.60 (above).
WEIGHTED_RADIUS = 8
WEIGHTED_FLOW_STEPS = 20
#: Evaluations of exact windows: at least (fewer certify less than the corner blocks at n = 20, eps = 0.5: 0.5115,
#: 0.5358, 0.5594, 0.5802 after 1 to 4), at most.
WEIGHTED_MIN_STEPS = 4
WEIGHTED_MAX_STEPS = 8
#: Factors on the flows' (:func:`plan_flow`'s constants) and the exact windows' (:func:`release_lp_seconds` per
#: orbit of outputs, the flows per entry) planned seconds at this k: Dir(1,1,1,1), n = 20, radius 8 at load ~4: 20
#: flow steps 5.5-6.7 CPU s (3.9 planned by the flows' constants), 40 steps 14.0-17.7 s (6.3); an evaluation of
#: exact windows 2.0-5.3 s (3.9 planned by the release's constants).  Upper ends.
WEIGHTED_FLOW_FACTOR = 2.0
WEIGHTED_COLUMN_FACTOR = 1.5
#: :func:`dpposterior.yardstick.plan_blocks`' key of the weighted worst case (:func:`weighted_bound`).
WEIGHTED_KEY = "worst (weighted)"
#: Seconds added to the flows' part of :func:`window_costs` (the losses' set-up at small n, where the windows reach
#: past R(n)): Dir(1,1,1,1), eps = 0.5, n = 12, radius 8: the flows 3.1 CPU s against 2.9 planned by the constants
#: alone (load 4.1; benchmarks/windows_first_k4.json).
WINDOWS_BASE_SECONDS = 1.0
#: The factor on an evaluation of exact windows under pi (:func:`plan_windows`; :data:`WEIGHTED_COLUMN_FACTOR` is the
#: weighted dual's, whose LPs ran 2.0-5.3 s an evaluation at n = 20): Dir(1,1,1,1), eps = 0.5, radius 8 at load
#: 4.0-5.6, CPU s an evaluation against this factor's plan: n = 12 3.5 / 4.6, n = 15 1.2 / 3.3, n = 20 1.4-1.9 /
#: 2.9, n = 25 1.5 / 3.1 (benchmarks/windows_first_k4.json).  An upper end.
WINDOWS_COLUMN_FACTOR = 0.75


def weighted_costs(prior: ArrayLike, n: int, epsilon: float,
                   flows_at_hand: bool = False) -> tuple[int, int, float, float, float]:
    """``(m, radius, fixed seconds, seconds per evaluation, bytes)`` of :func:`weighted_bound` as
    :func:`plan_weighted` plans it (its docstring).  ``flows_at_hand``: the flows under pi are given to it (computed
    by :func:`windows_bound` in the same call, :func:`window_flow_seconds` of its plan), so its fixed part is the
    minimax LP and the windows' set-up only.  Public inputs only."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    m = max(1, min(WEIGHTED_FROM, n - 1))
    R0 = corner_block(m, k, 0, m)
    rows, groups, pairs = block_shape(m, R0, CORNER_REACH)
    order = len(_symmetry_images(a, R0))
    fixed = whole_seconds(rows, groups, pairs, order, k)
    memory = whole_bytes(rows, groups, pairs, order)
    radius, windows, per, window_memory = window_costs(a, n)
    if flows_at_hand:
        windows -= window_flow_seconds(a, n)
    return m, radius, fixed + windows, per, max(memory, window_memory)


def window_flow_seconds(prior: ArrayLike, n: int) -> float:
    """The flows' part of :func:`window_costs`' fixed seconds (:data:`WINDOWS_BASE_SECONDS` and
    :data:`WEIGHTED_FLOW_STEPS` flow steps of radius ``min(WEIGHTED_RADIUS, n)`` at :func:`plan_flow`'s constants
    times :data:`WEIGHTED_FLOW_FACTOR`); the rest of it is the exact windows' set-up.  Public inputs only."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    N, offsets = flow_shape(n, k, min(WEIGHTED_RADIUS, n))
    return WINDOWS_BASE_SECONDS + WEIGHTED_FLOW_FACTOR * flow_scale(N) * (
        FLOW_SETUP_PER_ENTRY * N * offsets * k + WEIGHTED_FLOW_STEPS * (
            FLOW_SECONDS_PER_ENTRY * N * offsets + FLOW_SECONDS_PER_OFFSET * offsets))


def window_costs(prior: ArrayLike, n: int,
                 column_factor: float = WEIGHTED_COLUMN_FACTOR) -> tuple[int, float, float, float]:
    """``(radius, fixed seconds, seconds per evaluation, bytes)`` of the flows then exact windows that
    :func:`weighted_bound` and :func:`windows_bound` run: windows of radius ``min(WEIGHTED_RADIUS, n)``,
    :data:`WINDOWS_BASE_SECONDS` and :data:`WEIGHTED_FLOW_STEPS` flow steps at :func:`plan_flow`'s constants times
    :data:`WEIGHTED_FLOW_FACTOR` and the windows' set-up (the fixed part), an evaluation at one column LP per orbit
    of outputs (:func:`release_lp_seconds`) and the flows in every window, times ``column_factor`` (the weighted
    dual's :data:`WEIGHTED_COLUMN_FACTOR`; pi's :data:`WINDOWS_COLUMN_FACTOR`).  Public inputs only (prior, n)."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    radius = min(WEIGHTED_RADIUS, n)
    N, offsets = flow_shape(n, k, radius)
    fixed = window_flow_seconds(a, n)
    orbits = orbit_count(a, n)
    fixed += RELEASE_SETUP_PER_ENTRY * orbits * offsets * k / 3
    per = column_factor * orbits * (release_lp_seconds(k, offsets, n, radius)
                                    + RELEASE_FLOW_PER_ENTRY * offsets * k * (k - 1) / 6)
    memory = max(FLOW_BYTES_PER_ENTRY * N * offsets, RELEASE_BYTES_PER_ENTRY * orbits * offsets)
    return radius, fixed, per, memory


def plan_weighted(prior: ArrayLike, n: int, epsilon: float, seconds: float = BLOCK_SECONDS,
                  flows_at_hand: bool = False) -> tuple[Plan, tuple[int, int, int, int]]:
    """The plan of :func:`weighted_bound` (worst case) and its ``(m, radius, flow steps, evaluations)``: the minimax
    LP at ``m = min(WEIGHTED_FROM, n - 1)`` (:func:`whole_seconds`, :func:`whole_bytes`, as :func:`plan_corner`'s
    whole LP), the flows of radius ``min(WEIGHTED_RADIUS, n)`` (:data:`WEIGHTED_FLOW_STEPS` steps at
    :func:`plan_flow`'s constants times :data:`WEIGHTED_FLOW_FACTOR`) and as many evaluations of exact windows as fit
    ``seconds`` (at most :data:`WEIGHTED_MAX_STEPS`; each :func:`orbit_count` column LPs at :func:`release_lp_seconds`
    and the flows in every window, times :data:`WEIGHTED_COLUMN_FACTOR`); refused where fewer than
    :data:`WEIGHTED_MIN_STEPS` fit, at k not in :data:`WEIGHTED_K`, at eps above :data:`WEIGHTED_MAX_EPSILON`, or at
    ``n <= WEIGHTED_FROM + 1`` (the whole LP itself runs there, :func:`plan_corner`).  ``flows_at_hand``: the same
    flows are computed in the same call by :func:`windows_bound` and given to :func:`weighted_bound` (its ``flow``),
    so they are not planned twice (:func:`weighted_costs`).  Public inputs only (prior, n, eps)."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    what = f"the yardstick's weighted worst case for k={k}, n={n}, eps={epsilon:g}"
    m, radius, fixed, per, memory = weighted_costs(a, n, epsilon, flows_at_hand)
    steps = int(min(WEIGHTED_MAX_STEPS, (seconds - fixed) // per)) if seconds > fixed else 0
    used = max(steps, WEIGHTED_MIN_STEPS)
    secs = fixed + per * used
    route = (f"the LP's dual weights at n={m} mixed with pi, windows of radius {radius}, {WEIGHTED_FLOW_STEPS} flow "
             f"steps, {used} evaluations")
    refusals = ((k not in WEIGHTED_K, f"not measured at k={k}"),
                (epsilon > WEIGHTED_MAX_EPSILON, f"the corner blocks certify more at eps above {WEIGHTED_MAX_EPSILON:g}"),
                (n <= WEIGHTED_FROM + 1, f"the whole LP runs at n={n}"))
    return _share_plan(what, route, secs, memory, seconds, refusals, steps < WEIGHTED_MIN_STEPS), (
        m, radius, WEIGHTED_FLOW_STEPS, used)


def weighted_bound(prior: ArrayLike, n: int, epsilon: float, m: int, radius: int, flow_steps: int,
                   steps: int, share: float = WEIGHTED_SHARE, flow: FlowBound | None = None) -> float:
    """Certified lower bound on the optimal worst case (docs/definitions.md §9): :func:`column_bound`'s dual
    (``steps`` evaluations, flows first) under the weights :func:`mixed_weights` (the minimax LP's at ``m`` carried to
    ``n``, ``share`` of them, mixed with pi; the pooled far cap, :func:`_aggregate_far`), over their sum
    (:func:`weighted_worst`), started from
    :data:`WEIGHTED_START_SCALE` times the mix of the two parts' own multipliers: ``share`` times the LP's row
    multipliers carried as its weights are (:func:`mixed_weights`' ``start``) plus ``1 - share`` times those of
    :func:`flow_bound` under pi (``flow_steps`` ascent steps).

    Proof.  For every ``w >= 0`` summing to 1 and every eps-DP table ``P``, ``max_c E_P(c) >= sum_c w(c) E_P(c)``;
    so ``OPT_worst >= min_P sum_c w(c) E_P(c)``, and the dual certifies a lower bound on that minimum (weak duality
    with ``w`` as the objective's weights: :func:`column_bound`'s "Weights") at any multipliers ``mu``.  The weights
    and the start only choose which bound (at the saddle point of the minimax LP at ``n``, its own weights and row
    multipliers give its optimum); they are computed from public inputs only.

    ``flow``: :func:`flow_bound`'s result under pi at this ``radius`` and ``flow_steps`` when the caller has it
    (:func:`windows_bound`'s ``keep``: the same deterministic computation, so the same multipliers and the same
    bound); only its ``mu`` is read, as a start, so whichever flows are given the bound holds (weak duality above)."""
    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 1)
    start: dict = {}
    w = objective_weights(a, n, mixed_weights(a, n, epsilon, m, share, start))
    if flow is None or (flow.radius, flow.steps) != (min(radius, n), flow_steps):
        flow = flow_bound(a, n, epsilon, radius=radius, steps=flow_steps)
    value = 0.0
    if steps:
        mu = WEIGHTED_START_SCALE * (start["rows"] + (1.0 - share) * flow.mu)
        value = column_bound(a, n, epsilon, mu, radius=radius, steps=steps, primal=True, flows=True, weights=w,
                             pooled=True).average
    return weighted_worst(value, objective_weights(a, n, w))


# --- the average from the flows then exact windows, where a release's start is capped -----------------------------

#: Evaluations of exact windows of :func:`windows_bound`: at least, at most.  Dir(1,1,1,1), eps = 0.5, n = 20 (radius
#: 8, 20 flow steps; flows 0.5105): 0.5228, 0.5485, 0.5691, 0.5722, 0.5733, 0.5875 after 1 to 6, where the release's
#: start capped to the 14 LPs that fit (radius 14, one evaluation) certified 0.4583.
WINDOWS_MIN_STEPS = 2
WINDOWS_MAX_STEPS = WEIGHTED_MAX_STEPS
#: :func:`dpposterior.yardstick.plan_blocks`' key of the average from the flows then exact windows
#: (:func:`windows_bound`).
WINDOWS_KEY = "average (flows first)"
#: At k in :data:`WEIGHTED_K` and eps at most this, where ``compare`` would start the average's exact windows from a
#: baseline's errors (no release built for an objective was computed), it plans the flows then exact windows
#: (:func:`plan_windows`) in the same share instead, where they fit: Dir(1,1,1,1), eps = 0.5, n = 30 and 34, 0.5392
#: and 0.4896 against the start from geometric's errors' 0.4269 and 0.4245 (benchmarks/compare_windows_k4.json).
WINDOWS_OVER_BASELINE_MAX_EPSILON = 0.5


def plan_windows(prior: ArrayLike, n: int, epsilon: float,
                 seconds: float = BLOCK_SECONDS) -> tuple[Plan, tuple[int, int, int]]:
    """The plan of :func:`windows_bound` (average) and its ``(radius, flow steps, evaluations)``: the flows and as
    many evaluations of exact windows as fit ``seconds`` (at most :data:`WINDOWS_MAX_STEPS`), each part at
    :func:`window_costs` (:func:`plan_weighted`'s constants for the same computation under other weights, an
    evaluation at :data:`WINDOWS_COLUMN_FACTOR`); refused where fewer than :data:`WINDOWS_MIN_STEPS` fit, at k not
    in :data:`WEIGHTED_K`, or over :data:`FLOW_BYTES`.  Public inputs only (prior, n, eps)."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    what = f"the yardstick's flows then exact windows for k={k}, n={n}, eps={epsilon:g}"
    radius, fixed, per, memory = window_costs(a, n, WINDOWS_COLUMN_FACTOR)
    steps = int(min(WINDOWS_MAX_STEPS, (seconds - fixed) // per)) if seconds > fixed else 0
    used = max(steps, WINDOWS_MIN_STEPS)
    secs = fixed + per * used
    route = f"flows of radius {radius}, {WEIGHTED_FLOW_STEPS} steps, then {used} evaluations of exact windows (flows first)"
    return _share_plan(what, route, secs, memory, seconds, ((k not in WEIGHTED_K, f"not measured at k={k}"),),
                       steps < WINDOWS_MIN_STEPS), (radius, WEIGHTED_FLOW_STEPS, used)


def windows_bound(prior: ArrayLike, n: int, epsilon: float, radius: int, flow_steps: int, steps: int,
                  keep: dict | None = None) -> float:
    """Certified lower bound on the optimal average error (docs/definitions.md §9): :func:`flow_bound` (``flow_steps``
    ascent steps, windows of ``radius``), then ``steps`` evaluations of :func:`column_bound` started from its
    multipliers with the flows first in every window (``flows``, ``primal``): :func:`weighted_bound`'s computation
    under pi.  Proof: each is a certified lower bound (weak duality: their docstrings), so the larger is too.
    ``keep``: a dict that receives, under ``"flow"``, the flows' :class:`FlowBound` (before the exact windows run),
    for :func:`weighted_bound`'s ``flow``."""
    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 1)
    flow = flow_bound(a, n, epsilon, radius=radius, steps=flow_steps)
    if keep is not None:
        keep["flow"] = flow
    value = flow.average
    if steps:
        value = max(value, column_bound(a, n, epsilon, flow.mu, radius=radius, steps=steps, primal=True,
                                        flows=True).average)
    return value


# --- the worst case from every data set's own ball of outputs (k = 4, where the whole LP does not fit) -------------

#: :func:`plan_ball` at these k and eps (measured at Dir(1,1,1,1), eps = 0.5 only), from this radius (smaller balls
#: certify less than the weighted dual: n = 12, radius 5 0.6179), and the key of its plan in
#: :func:`dpposterior.yardstick.plan_blocks`.
BALL_K = (4,)
BALL_MAX_EPSILON = 0.5
BALL_MIN_RADIUS = 6
#: ... to this radius (the largest measured: the fit below is not extrapolated to wider balls).
BALL_MAX_RADIUS = 7
BALL_KEY = "worst (balls)"
#: :func:`ball_cost`: ``base + scale (x / 1e5)^power`` CPU s with ``x`` the LP's variables over the symmetry order
#: times 24 (:func:`ball_shape`), at or above every recorded run (benchmarks/yardstick_k4_restricted_h81yd.json,
#: Dir(1,1,1,1), eps = 0.5, load 4 to 7: n = 12 radius 7 10.9 s, planned 15.2; n = 14 radius 6 21.0 s, planned 28.9;
#: n = 15 radius 6 and 7 in the JSON), and bytes ``BALL_BYTES`` per variable plus the interpreter's.
BALL_FIT_SECONDS = (1.0, 6.7, 1.8)
BALL_BYTES = (3e3, 2e8)
#: :func:`ball_bound`'s HiGHS options: the interior point without crossover (the certificate reads any duals, weak
#: duality with the box; Dir(1,1,1,1), n = 12, eps = 0.5, radius 7: 9.5 CPU s against 11.7 with crossover, the same
#: certified value to 1e-8).
BALL_HIGHS = {"run_crossover": "off"}


def _ball_offsets(k: int, radius: int) -> NDArray[np.int64]:
    """The moves ``r - c`` (integer, summing to 0) of substitution distance ``sum |r - c| / 2`` at most ``radius``."""
    axes = np.stack(np.meshgrid(*[np.arange(-radius, radius + 1)] * (k - 1), indexing="ij"), -1).reshape(-1, k - 1)
    D = np.column_stack([axes, -axes.sum(axis=1)])
    return D[np.abs(D).sum(axis=1) <= 2 * radius]


def _ball_lp(a: NDArray[np.float64], n: int, epsilon: float, radius: int, inner: int, symmetric: bool,
             S: NDArray[np.int64] | None = None, step: int = 1):
    """The LP of :func:`ball_bound` (its docstring), over one variable per orbit where ``symmetric``: ``(cost, A_ub,
    A_eq, b_eq)`` (``b_ub = 0``).  ``S``: its rows, a block of R(n) unchanged by the permutations that fix the prior
    (all of R(n) by default), with every pair of members at most ``step`` substitutions apart (distance ``d``) kept
    with the factor ``e^(d eps)`` (:func:`sparse_bound`)."""
    from itertools import permutations

    from scipy import sparse

    k = a.size
    Rall = candidates(n, k)
    R = Rall if S is None else S
    N, Nout = len(R), len(Rall)
    perms = [list(p) for p in permutations(range(k)) if np.array_equal(a[list(p)], a)] if symmetric else [
        list(range(k))]
    rank = np.full(Nout, -1, np.int64)  # member index of each data set of R(n), -1 off the block
    rank[candidate_rank(R)] = np.arange(N)
    colperm = np.stack([candidate_rank(Rall[:, p]) for p in perms])
    rowperm = np.stack([rank[candidate_rank(R[:, p])] for p in perms])
    if np.any(rowperm < 0):
        raise InputError("the ball LP's block is not unchanged by the prior's symmetries")
    L = HellingerGrid(a, n).hellinger(R, Rall)
    # L'' = min over the orbit: exactly invariant
    L = np.min(np.stack([L[np.ix_(rp, cp)] for rp, cp in zip(rowperm, colperm)]), axis=0)
    D = _ball_offsets(k, min(radius, n))
    nd = len(D)
    dist = np.abs(D).sum(axis=1) // 2
    d_index = {d: i for i, d in enumerate(map(tuple, D.tolist()))}
    d_perm = np.stack([np.array([d_index[d] for d in map(tuple, D[:, p].tolist())]) for p in perms])
    out = R[:, None, :] + D[None, :, :]
    inside = np.all(out >= 0, axis=2)
    ridx = np.full((N, nd), -1, np.int64)
    ridx[inside] = candidate_rank(out[inside])
    var = np.full((N, nd), -1, np.int64)
    nx = int(inside.sum())
    var[inside] = np.arange(nx)
    far = inside.sum(axis=1) < Nout
    fid = np.full(N, -1, np.int64)
    fid[far] = nx + np.arange(int(far.sum()))
    nv = nx + int(far.sum()) + 1
    near = np.zeros((N, Nout), dtype=bool)
    near[np.nonzero(inside)[0], ridx[inside]] = True
    far_loss = np.where(near, np.inf, L).min(axis=1)
    moves = [np.array(m, np.int64) for m in _moves(k, step)]
    move_index = {tuple(m.tolist()): i for i, m in enumerate(moves)}
    m_perm = [np.array([move_index[tuple(m[p].tolist())] for m in moves]) for p in perms]
    rows, cols, vals, keys = [], [], [], []
    count = 0
    for mi, move in enumerate(moves):
        e = math.exp(epsilon * (int(np.abs(move).sum()) // 2))
        to = R + move
        ok = np.all(to >= 0, axis=1)
        ok[ok] = rank[candidate_rank(to[ok])] >= 0
        cs = np.flatnonzero(ok)
        c2 = rank[candidate_rank(to[ok])]
        shifted = np.array([d_index.get(d, -1) for d in map(tuple, (D - move).tolist())])
        # x(c, r) <= e^(d eps) x(c', r): r in both balls and within ``inner`` of one end
        dd = np.flatnonzero(shifted >= 0)
        dd = dd[np.minimum(dist[dd], dist[shifted[dd]]) <= inner]
        v1, v2 = var[cs][:, dd], var[c2][:, shifted[dd]]
        ci, di = np.nonzero((v1 >= 0) & (v2 >= 0))
        ids = count + np.arange(len(ci))
        rows += [ids, ids]
        cols += [v1[ci, di], v2[ci, di]]
        vals += [np.ones(len(ci)), np.full(len(ci), -e)]
        keys.append(np.column_stack([np.zeros(len(ci), np.int64), cs[ci], np.full(len(ci), mi), dd[di]]))
        count += len(ci)
        # sum of x(c, r) over r in c's ball and out of c''s <= e^(d eps) F(c')
        vs = var[cs][:, np.flatnonzero(shifted < 0)]
        member = (vs >= 0) & far[c2][:, None]
        has = np.flatnonzero(member.any(axis=1))
        ids = count + np.arange(len(has))
        ri, vi = np.nonzero(member[has])
        rows += [ids[ri], ids]
        cols += [vs[has][ri, vi], fid[c2[has]]]
        vals += [np.ones(len(ri)), np.full(len(has), -e)]
        keys.append(np.column_stack([np.ones(len(has), np.int64), cs[has], np.full(len(has), mi),
                                     np.zeros(len(has), np.int64)]))
        count += len(has)
    # sum_r x(c, r) L''(c, r) + F(c) L_far(c) - t <= 0
    ci, di = np.nonzero(inside)
    rows += [count + ci, count + np.flatnonzero(far), count + np.arange(N)]
    cols += [var[ci, di], fid[far], np.full(N, nv - 1)]
    vals += [L[ci, ridx[ci, di]], far_loss[far], -np.ones(N)]
    keys.append(np.column_stack([np.full(N, 2), np.arange(N), np.zeros(N, np.int64), np.zeros(N, np.int64)]))
    count += N
    A_ub = sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(count, nv))
    keys = np.concatenate(keys)
    A_eq = sparse.csr_array((np.ones(nx + int(far.sum())), (np.concatenate([ci, np.flatnonzero(far)]),
                                                             np.concatenate([var[ci, di], fid[far]]))), shape=(N, nv))
    cost = np.zeros(nv)
    cost[-1] = 1.0
    if len(perms) == 1:
        return cost, A_ub, A_eq, np.ones(N)
    # one variable per orbit of (c, r) / F(c), one constraint per orbit of (kind, c, move, offset)
    rep = np.arange(nv)
    fc = np.flatnonzero(far)
    for rp, dp in zip(rowperm, d_perm):
        rep[:nx] = np.minimum(rep[:nx], var[rp[ci], dp[di]])
        rep[nx:nv - 1] = np.minimum(rep[nx:nv - 1], fid[rp[fc]])
    _, col = np.unique(rep, return_inverse=True)
    P = sparse.csr_array((np.ones(nv), (np.arange(nv), col.ravel())), shape=(nv, int(col.max()) + 1))

    def code(kk):
        return ((kk[:, 0] * N + kk[:, 1]) * len(moves) + kk[:, 2]) * nd + kk[:, 3]

    own = code(keys)
    least = own.copy()
    for rp, dp, mp in zip(rowperm, d_perm, m_perm):
        image = np.column_stack([keys[:, 0], rp[keys[:, 1]], np.where(keys[:, 0] == 2, 0, mp[keys[:, 2]]),
                                 np.where(keys[:, 0] == 0, dp[keys[:, 3]], 0)])
        least = np.minimum(least, code(image))
    keep = np.flatnonzero(least == own)
    kept_rows = np.flatnonzero(rowperm.min(axis=0) == np.arange(N))
    return P.T @ cost, (A_ub[keep] @ P).tocsr(), (A_eq[kept_rows] @ P).tocsr(), np.ones(len(kept_rows))


def ball_bound(prior: ArrayLike, n: int, epsilon: float, radius: int, inner: int | None = None,
               symmetric: bool = True) -> float:
    """Certified lower bound on the optimal worst-case error (docs/definitions.md §9) from every data set of R(n)
    with its own ball of outputs: the LP with the constraints far from both ends of a pair dropped.

    Relaxation ``B(radius, inner)``.  ``d`` the substitution distance, ``N(c) = {r in R(n) : d(c, r) <= radius}``.
    Variables ``x(c, r) >= 0`` for ``r`` in ``N(c)``, ``F(c) >= 0`` where ``N(c)`` is not all of R(n), ``t``.
    ``sum_r x(c, r) + F(c) = 1``; for every neighbouring ``(c, c')``: ``x(c, r) <= e^eps x(c', r)`` for ``r`` in
    ``N(c) & N(c')`` with ``min(d(c, r), d(c', r)) <= inner`` (default ``radius - 1``), and
    ``sum_{r in N(c) - N(c')} x(c, r) <= e^eps F(c')``; ``sum_r x(c, r) L''(c, r) + F(c) L_far(c) <= t`` with
    ``L'' = min_s L(s c, s r)`` over the permutations ``s`` of the categories fixing the prior (at most ``L``) and
    ``L_far(c) = min_{r not in N(c)} L''(c, r)``.  Minimise ``t``.

    Theorem: ``B <= OPT_worst``.  Proof.  Let ``P`` be any eps-DP table and set ``x(c, r) = P(r | c)``,
    ``F(c) = P(R(n) - N(c) | c)``.  Rows sum to 1; the kept pointwise constraints are ``P``'s own; ``N(c) - N(c')``
    lies outside ``N(c')``, so summing ``P(r | c) <= e^eps P(r | c')`` over it gives at most ``e^eps F(c')``; and
    ``sum_{r not in N(c)} P(r | c) L(c, r) >= F(c) L_far(c)``, so each row's loss is at most ``E_P(c)``, and
    ``t = max_c E_P(c)`` is feasible.  Take ``P`` optimal.  QED.  Dropping rows (data sets) instead loses more: at
    n = 12, eps = 0.5 the LP over the 389 of 455 data sets within 4 of a vertex or the centre (every output kept)
    certified 0.6370 in 13.2 CPU s, against this relaxation's 0.6443 at radius 7 in 12.3 s (the LP 0.6504, 18 s).
    At ``radius >= n`` and ``inner >= n`` every output is in every ball and every constraint is kept: the LP itself.

    ``symmetric``: over one variable per orbit of ``(c, r)`` (and ``F(c)``) and one constraint per orbit under those
    permutations (a 24th of the LP at Dir(1,1,1,1)): every part above is invariant under them (``d``, the balls,
    ``L''`` exactly, the pairs), so the average of a solution's images is an invariant solution with the same ``t``
    (convexity) and the LP over invariant solutions has the same optimum (:func:`block_bound`'s argument).  The
    value is certified from HiGHS's duals (:func:`_certified`: weak duality with the box), at most the optimum of
    the LP it solved, so at most ``OPT_worst``."""
    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    radius = _validate.integer(radius, "radius", 1)
    inner = radius - 1 if inner is None else _validate.integer(inner, "inner", 0)
    return _solve_ball_lp(*_ball_lp(a, n, eps, radius, inner, symmetric))


def _solve_ball_lp(cost, A_ub, A_eq, b_eq) -> float:
    """The certified value (:func:`_certified`, at least 0) of a :func:`_ball_lp` LP (``b_ub = 0``), by HiGHS's
    interior point with :data:`BALL_HIGHS`."""
    import warnings

    from scipy.optimize import OptimizeWarning, linprog

    b_ub = np.zeros(A_ub.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptimizeWarning)  # HiGHS's own option names, passed through by scipy
        res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, 1), method="highs-ipm",
                      options=dict(BALL_HIGHS))
    return max(_certified(res, cost, A_ub, b_ub, A_eq, b_eq), 0.0)


def ball_shape(prior: ArrayLike, n: int, radius: int) -> tuple[int, int]:
    """``(variables, order)`` of :func:`ball_bound`'s LP before its reduction to orbits: the pairs ``(c, r)`` with
    ``d(c, r) <= radius`` (per offset ``r - c``, the data sets ``c`` with ``c >= -(r - c)``: ``C(n - s + k - 1,
    k - 1)`` of them, ``s`` the offset's distance), and the order of the permutations fixing the prior.  Public
    inputs only (prior, n, radius)."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    s = np.abs(_ball_offsets(k, min(radius, n))).sum(axis=1) // 2
    count = sum(math.comb(n - int(x) + k - 1, k - 1) for x in s)
    return count, len(symmetries(a))


def ball_cost(prior: ArrayLike, n: int, radius: int) -> tuple[float, float]:
    """Estimated ``(seconds, bytes)`` of :func:`ball_bound` at ``radius`` (:data:`BALL_FIT_SECONDS`,
    :data:`BALL_BYTES`).  Public inputs only (prior, n, radius)."""
    count, order = ball_shape(prior, n, radius)
    base, scale, power = BALL_FIT_SECONDS
    x = count * 24 / order
    return base + scale * (x / 1e5) ** power, BALL_BYTES[0] * x + BALL_BYTES[1]


def plan_ball(prior: ArrayLike, n: int, epsilon: float, seconds: float = BLOCK_SECONDS) -> tuple[Plan, int]:
    """The plan of :func:`ball_bound` (worst case) and its radius: the largest radius from :data:`BALL_MIN_RADIUS`
    to ``n - 1`` and :data:`BALL_MAX_RADIUS` (radius n is the whole LP, :func:`plan_corner`'s ``whole``) whose
    :func:`ball_cost` fits ``seconds``; refused (one line) at k not in :data:`BALL_K`, eps above
    :data:`BALL_MAX_EPSILON`, n at most :data:`BALL_MIN_RADIUS`, over :data:`FLOW_BYTES`, or where even
    :data:`BALL_MIN_RADIUS` does not fit.  Public inputs only (prior, n, eps)."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    what = f"the yardstick's worst case from every data set's ball of outputs for k={k}, n={n}, eps={epsilon:g}"
    radius = BALL_MIN_RADIUS
    secs, memory = ball_cost(a, n, radius) if k in BALL_K and n > BALL_MIN_RADIUS else (math.inf, 0.0)
    while radius + 1 < min(n, BALL_MAX_RADIUS + 1):
        more = ball_cost(a, n, radius + 1)
        if more[0] > seconds:
            break
        radius, (secs, memory) = radius + 1, more
    route = f"balls of {radius} substitutions around every data set, the LP over their orbits"
    refusals = ((k not in BALL_K, f"not measured at k={k}"),
                (epsilon > BALL_MAX_EPSILON, f"not measured at eps above {BALL_MAX_EPSILON:g}"),
                (n <= BALL_MIN_RADIUS, f"the whole LP runs at n={n}"))
    return _share_plan(what, route, secs, memory, seconds, refusals), radius
