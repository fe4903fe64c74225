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

Choice of blocks and groups (k = 3 here; any k works by the theorem).  Blocks: the cells of a grid of side
``side`` in the first ``k - 1`` counts (a partition of R(n)); groups: every output within substitution distance
``reach`` of the block kept as its own group, all other outputs lumped into one group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate as _validate
from ..distances.hellinger import HellingerGrid
from ..errors import InputError
from ..models import candidates, log_prior_predictive

#: Lowered from every certified block value (rounding of the dual sums; see the module docstring).
MARGIN = 1e-12


@dataclass
class Yardstick:
    """Certified lower bounds on the optimum's worst-case and average errors (docs/lattice.md)."""

    worst: float
    average: float
    blocks: int
    worst_block: tuple[int, ...]


def block_bound(a: NDArray[np.float64], n: int, epsilon: float, S: NDArray[np.int64], reach: int,
                log_pi: NDArray[np.float64] | None = None, grid: HellingerGrid | None = None,
                worst: bool = True) -> tuple[float, float]:
    """Certified ``(worst(S, G), average(S, G))`` of one block ``S`` (rows: data sets of R(n); module docstring).

    ``log_pi``: the log prior predictive of the rows of ``S`` normalised over the whole of R(n); without it the
    average is not solved (nan); ``worst=False``: the worst case is not solved (nan).
    """
    from scipy import sparse
    from scipy.optimize import linprog

    k = a.size
    grid = HellingerGrid(a, n) if grid is None else grid
    R = candidates(n, k)
    dist = np.abs(R[:, None, :] - S[None, :, :]).sum(axis=-1).min(axis=1) // 2  # d(r, S)
    near = np.flatnonzero(dist <= reach)
    far = np.flatnonzero(dist > reach)
    Lfull = grid.hellinger(S, R)
    Lg = Lfull[:, near]
    if far.size:
        Lg = np.column_stack([Lg, Lfull[:, far].min(axis=1)])
    nS, nG = Lg.shape
    index = {tuple(c): i for i, c in enumerate(S.tolist())}
    pairs = []
    for i, c in enumerate(S.tolist()):
        for p in range(k):
            for q in range(k):
                if p != q and c[p] >= 1:
                    d = list(c)
                    d[p] -= 1
                    d[q] += 1
                    j = index.get(tuple(d))
                    if j is not None:
                        pairs.append((i, j))
    pairs_arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    nv = nS * nG + 1
    e = math.exp(epsilon)
    # Q(g | c_i) - e^eps Q(g | c_j) <= 0 for every kept pair and group
    m = len(pairs_arr) * nG
    rows = np.repeat(np.arange(m), 2)
    gi = np.tile(np.arange(nG), len(pairs_arr))
    ci = np.repeat(pairs_arr[:, 0], nG)
    cj = np.repeat(pairs_arr[:, 1], nG)
    cols = np.column_stack([ci * nG + gi, cj * nG + gi]).ravel()
    vals = np.tile([1.0, -e], m)
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
        else:
            if log_pi is None:
                out.append(float("nan"))
                continue
            A_ub = A_dp
            cost = np.append((np.exp(log_pi)[:, None] * Lg).ravel(), 0.0)
        b_ub = np.zeros(A_ub.shape[0])
        res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, 1), method="highs-ipm")
        if res.status != 0:
            raise InputError(f"a block LP of the yardstick failed: {res.message}")
        y_ub = np.minimum(res.ineqlin.marginals, 0.0)
        y_eq = res.eqlin.marginals
        rc = cost - A_ub.T @ y_ub - A_eq.T @ y_eq
        value = float(y_ub @ b_ub + y_eq @ b_eq + np.minimum(rc, 0.0).sum())
        scale = float(np.abs(y_ub) @ np.abs(b_ub) + np.abs(y_eq) @ b_eq
                      + (np.abs(cost) + abs(A_ub).T @ np.abs(y_ub) + abs(A_eq).T @ np.abs(y_eq)).sum())
        longest = max(A_ub.shape[0], A_eq.shape[0], nv) + 2
        out.append(value - longest * 2.0**-52 * scale - MARGIN)
    return out[0], out[1]


def corner_bound(prior: ArrayLike, n: int, epsilon: float, depth: int, reach: int = 4) -> Yardstick:
    """Certified lower bound on the optimal worst-case error from the k corner blocks ``{c : c_i >= n - depth}``
    (docs/lattice.md; a block of the theorem in the module docstring, so ``worst <= OPT_worst``).

    A corner block has one artificial edge (``c_i = n - depth``); the simplex's own boundary drops no
    constraint, so it loses less than a grid cell of the same size.  ``average`` is nan.
    """
    a = _validate.prior(prior)
    k = a.size
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    depth = _validate.integer(depth, "depth", 0, n)
    R = candidates(n, k)
    grid = HellingerGrid(a, n)
    worst, where = -np.inf, ()
    for i in range(k):
        S = R[R[:, i] >= n - depth]
        w, _ = block_bound(a, n, eps, S, reach, None, grid)
        if w > worst:
            worst, where = w, (i,)
    return Yardstick(worst=max(worst, 0.0), average=float("nan"), blocks=k, worst_block=where)


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
