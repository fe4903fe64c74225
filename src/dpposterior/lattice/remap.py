"""Remaps of the lattice release at k >= 3: Bayes (average) and minimax (worst, with a certificate), and their exact pmf.

Definitions (docs/lattice.md; docs/definitions.md §9-§10 for the objectives).  The lattice release draws
``z = c + w`` (:mod:`.noise`); a remap ``T(z, r)`` (row-stochastic, a function of ``z`` only) turns it into an
element of R(n).  The remapped release ``P(r | c) = sum_z K(z | c) T(z, r)`` is eps-DP by post-processing
(proof in :mod:`.noise`).  ``L(c, r) = H(BI(c), Dir(a + r))`` (docs/definitions.md §2) via
:class:`~dpposterior.distances.hellinger.HellingerGrid`.

Truncation, accounted as bounds.  The sum over ``z`` runs over ``window(n, k, W)`` (:func:`.noise.window`);
outside it the release uses :func:`project` (a fixed deterministic map).  For every ``c`` the kernel's mass
outside the window is at most ``tail = tail_bound(k, eps, W)`` (:mod:`.noise`), and a loss is in ``[0, 1]``, so

* ``E_win(c) <= E(c) <= E_win(c) + tail`` with ``E_win(c) = sum_{z in window} K(z | c) sum_r T(z, r) L(c, r)``;
* ``P_win(r | c) <= P(r | c) <= P_win(r | c) + tail`` for every output ``r``.

:class:`Errors` carries both ends; the worst case and the average are reported as intervals, and a
claim "at most" uses the upper end.

Bayes remap (average objective): ``T(z) = argmin_r sum_c pi(c) K(z | c) L(c, r)`` for ``z`` in the window,
``pi = DirMult(n, a)`` (the prior predictive, docs/definitions.md §9).  Among all remaps of the lattice release
it minimises ``sum_c pi(c) E_win(c)`` (row by row), hence ``sum_c pi(c) E(c)`` up to ``tail``.

Minimax remap (worst objective): an LP (scipy HiGHS) over the rows ``T(z, .)`` of the inner window
``z_i >= -W1``; the rows of the rest of the window are the Bayes remap's (fixed).  Certificate, for the
problem ``min over remaps T of max_c E(c)`` (remaps of this release):

* lower: for the LP's dual weights ``lambda`` on data sets (any distribution on R(n) works), the Bayes
  risk ``sum_{z in window} min_r sum_c lambda(c) K(z | c) L(c, r)`` (the z outside dropped: their terms are
  >= 0) is at most ``sum_c lambda(c) E_T(c) <= max_c E_T(c)`` for every remap ``T``;
* upper: ``max_c (E_win(c) + tail)`` of the remap found.

A release at large n works out only what its draw needs: :func:`local_bayes_at` (one ``z``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln, logsumexp

from .. import validate as _validate
from ..distances.hellinger import HellingerGrid, hellinger, hellinger_from_log_bc, lgamma_jensen_gap
from ..errors import InputError, SizeError
from ..models import candidate_rank, candidates, check_size, log_prior_predictive
from ..randomness import bit_source, choose, float_weights
from .noise import log_normaliser, pair_distance, radius_for, sample_noise, tail_bound_of, window

#: Default truncation: the kernel's mass outside the window is at most this, for every data set.
DEFAULT_TOL = 1e-9

#: Floats one dense block may hold (chunks of the (data sets x window) products).
BLOCK_ENTRIES = 2**23

#: A minimax LP of the lattice release (the window's here, the corner LP of :mod:`.corners`, the edge table's of
#: :mod:`.corners_any`) with at least this many nonzeros in its inequality rows, and at least :data:`IPM_DENSITY` per
#: variable, is solved by HiGHS's interior point with crossover (a vertex, as the simplex's); any other by
#: ``method="highs"`` (the dual simplex).  See :func:`lp_method`.
IPM_NONZEROS = 1_200_000
#: Nonzeros per variable from which the interior point is chosen (with :data:`IPM_NONZEROS`).
IPM_DENSITY = 150


def lp_method(nonzeros: int, variables: int) -> str:
    """HiGHS's method for a minimax LP of the lattice release with ``nonzeros`` entries in its inequality rows over
    ``variables`` columns (functions of public inputs): ``"highs-ipm"`` (interior point, then crossover to a vertex)
    where ``nonzeros >= IPM_NONZEROS`` and ``nonzeros >= IPM_DENSITY * variables``, else ``"highs"``.  The LPs are
    docs/lattice.md's (the minimax remap, the corner and edge tables); the measurement is docs/pipeline.md's
    ("Taken: the interior point on the large dense lattice LPs").  The k = 4 corner LP without an edge table stays on
    ``"highs"`` (it does not ask: at 1.94M nonzeros, 218 a variable, the simplex took 1.9 s, the interior point 3.7).

    Why, measured (every such LP of the pipeline's ``lattice~worst`` jobs solved both ways, CPU s of the solve,
    ``scipy.optimize.linprog`` with the same tolerances; the shared 2-core host at load 6-8): large and dense, the
    interior point is 1.35-4x sooner: the k = 3 corner LP at n = 20, eps = 0.5 (2.04M nonzeros, 217 a variable)
    15.3 -> 5.3, the k = 3 window LP at n = 20, eps = 1 (2.70M, 227) 10.6 -> 4.6, the k = 4 edge table's LP at
    n = 10, eps = 1 (1.89M, 178) 18.2 -> 4.6, a k = 3 window LP of 1.28M (178) 5.4 -> 4.0; smaller or sparser, the
    simplex is sooner: window LPs of 2.15M (55 a variable) 2.1 against 4.6, 1.03M (65) 1.4 against 1.9, 0.86M (20)
    1.1 against 8.2, the corner LP at 0.95M (98) 1.2 against 1.5-1.6.  The thresholds sit between those points (a
    fit to them, not a law: a LP outside them may be slower either way; both methods give an optimal vertex).

    What it changes, and why nothing certified does: these LPs are degenerate, and the interior point's crossover
    may end at another optimal vertex than the simplex (the same optimum to ~1e-8 relative; the k = 4 edge table at
    n = 10, eps = 1: t 0.49157972 -> 0.49157973), so the remap's last digits and the release's computed errors
    move.  Whichever table the LP returns is a remap, so the release is eps-DP; its errors are computed exactly from
    the table afterwards, and every lower bound is recomputed from the LP's duals (any weights on data sets give a
    valid bound), so a certificate is checked, never read off the LP."""
    return "highs-ipm" if nonzeros >= IPM_NONZEROS and nonzeros >= IPM_DENSITY * variables else "highs"


#: Rows :func:`project` maps at a time (its temporaries, a few int64 arrays of that many rows, stay within ~20 MiB).
PROJECT_ROWS = 2**16


def project(z: ArrayLike, n: int) -> NDArray[np.int64]:
    """A fixed map from lattice points with sum n to R(n): negative coordinates to 0, the excess taken
    from the largest coordinates (ties: the first), one unit at a time (docs/lattice.md).

    Computed in closed form, not unit by unit: with ``y = max(z, 0)``, excess ``e`` and ``f(m) = sum_i max(y_i - m,
    0)`` (nonincreasing in m), the units taken lower every coordinate above a level to it, a round of one unit per
    coordinate at a time, in index order among equals.  So the result is ``min(y, m)`` with ``m`` the least level with
    ``f(m) <= e``, less one unit on the first ``e - f(m)`` coordinates (by index) with ``y_i >= m``: fewer than all
    of them, since ``f(m - 1) - f(m)`` counts them and ``f(m - 1) > e``.

    ``m`` from the counts sorted: with ``s_1 >= ... >= s_k`` the sorted ``y``, ``P_j = s_1 + ... + s_j`` and ``s_(k+1)
    = 0``, ``f(m) = P_j - j m`` on ``[s_(j+1), s_j]``.  ``g_j = f(s_j) = P_j - j s_j`` is nondecreasing in j
    (``g_(j+1) - g_j = j (s_j - s_(j+1))``) with ``g_1 = 0 <= e``, so the largest j with ``g_j <= e`` is the number of
    them.  At that j, ``f(s_j) <= e`` and ``f(s_(j+1)) > e`` (or ``j = k`` and ``s_(k+1) = 0``), so ``m`` lies in
    ``[s_(j+1), s_j]`` and is the least integer ``m >= 0`` with ``P_j - j m <= e``:
    ``max(0, ceil((P_j - e) / j))``.  (A bisection on ``f`` gives the same m; the one-unit map is tested against
    this.)"""
    z = np.array(z, dtype=np.int64, ndmin=2)
    y = np.maximum(z, 0)
    excess = y.sum(axis=1) - n
    todo = np.flatnonzero(excess > 0)
    if not todo.size:
        return y
    k = y.shape[1]
    steps = np.arange(1, k + 1)
    for at in range(0, len(todo), PROJECT_ROWS):  # a block of rows at a time: its temporaries stay small
        rows = todo[at:at + PROJECT_ROWS]
        yt, e = y[rows], excess[rows]
        s = -np.sort(-yt, axis=1)  # each row's counts, largest first
        P = np.cumsum(s, axis=1)
        j = np.count_nonzero(P - steps * s <= e[:, None], axis=1)  # >= 1: g_1 = 0
        Pj = np.take_along_axis(P, (j - 1)[:, None], axis=1)[:, 0]
        lo = np.maximum(-((e - Pj) // j), 0)  # ceil((P_j - e) / j), at least 0
        r = e - np.maximum(yt - lo[:, None], 0).sum(axis=1)
        top = yt >= lo[:, None]
        y[rows] = np.where(top, lo[:, None], yt) - (top & (np.cumsum(top, axis=1) <= r[:, None]))
    return y


@dataclass
class Errors:
    """Expected errors ``E(c)`` of a remapped lattice release (docs/definitions.md §9), with their truncation bound.

    ``low`` = ``E_win(c)`` and ``high = low + tail`` bracket ``E(c)`` for each data set (rows of ``counts``).
    """

    counts: NDArray[np.int64]
    low: NDArray[np.float64]
    tail: float
    log_pi: NDArray[np.float64]

    @property
    def high(self) -> NDArray[np.float64]:  # noqa: D102
        return np.minimum(self.low + self.tail, 1.0)

    @property
    def worst(self) -> tuple[float, float]:
        """``(lower, upper)`` bounds on ``max_c E(c)``."""
        return float(self.low.max()), float(self.high.max())

    @property
    def average(self) -> tuple[float, float]:
        """``(lower, upper)`` bounds on ``sum_c pi(c) E(c)``."""
        p = np.exp(self.log_pi - logsumexp(self.log_pi))
        return float(p @ self.low), float(p @ self.high)


class LatticeSetup:
    """The lattice release for one prior, n and eps at k >= 2: window, kernel, loss (docs/lattice.md).

    ``tol`` bounds the kernel's mass outside the window (for every data set); ``W`` is chosen from it by
    :func:`.noise.radius_for`.  Dense objects: ``|R(n)| x |window|`` kernel blocks and the ``|R(n)|^2`` loss.
    """

    def __init__(self, prior: ArrayLike, n: int, epsilon: float, tol: float = DEFAULT_TOL):
        a = np.asarray(prior, dtype=np.float64)
        self._build(_validate.prior(a, a.size), _validate.integer(n, "n", 1), _validate.epsilon(epsilon), tol)

    @classmethod
    def trusted(cls, a: NDArray[np.float64], n: int, epsilon: float, tol: float = DEFAULT_TOL) -> LatticeSetup:
        """The set-up of a prior, n and eps validated where they entered (the registry entry's): nothing again."""
        setup = cls.__new__(cls)
        setup._build(np.asarray(a, dtype=np.float64), int(n), float(epsilon), tol)
        return setup

    def _build(self, a: NDArray[np.float64], n: int, epsilon: float, tol: float) -> None:
        self.n, self.a, self.k, self.eps = n, a, a.size, epsilon
        self.W = radius_for(self.k, self.eps, tol)
        self.tail = tail_bound_of(self.k, self.eps, self.W)
        self.R = candidates(self.n, self.k)
        self.Z = window(self.n, self.k, self.W)
        self.log_pi = log_prior_predictive(self.a, self.R)
        self.log_Z = log_normaliser(self.k, self.eps)
        check_size(len(self.R) ** 2, 8, "the loss matrix of the lattice remap")
        self.grid = HellingerGrid(self.a, self.n)
        self.L = self.grid.hellinger(self.R, self.R)  # L[c, r]

    def log_kernel(self, ci: NDArray[np.int64], zi: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
        """``ln K(z | c)`` for data sets ``R[ci]`` (rows) and window points ``Z[zi]`` (columns; all if None)."""
        Z = self.Z if zi is None else self.Z[zi]
        return -self.eps * pair_distance(self.R[ci][:, None, :], Z[None, :, :]) - self.log_Z

    def _c_blocks(self, width: int = 0):
        step = max(1, BLOCK_ENTRIES // max(1, len(self.Z), width))
        for lo in range(0, len(self.R), step):
            yield np.arange(lo, min(len(self.R), lo + step))

    def bayes_risk_rows(self, log_weight: NDArray[np.float64]) -> NDArray[np.float64]:
        """``rho(z, r) = sum_c lambda(c) K(z | c) L(c, r)`` for every window point, ``lambda = exp(log_weight)``."""
        out = np.zeros((len(self.Z), len(self.R)))
        for ci in self._c_blocks():
            Kc = np.exp(self.log_kernel(ci) + log_weight[ci][:, None])  # (B, |Z|)
            out += Kc.T @ self.L[ci]
        return out

    def errors(self, remap: Remap) -> Errors:
        """Exact ``E_win(c)`` of a remapped release for every data set, with the truncation bound (docs/lattice.md)."""
        low = np.zeros(len(self.R))
        for ci in self._c_blocks():
            K = np.exp(self.log_kernel(ci))
            if remap.index is not None:
                low[ci] = (K * self.L[ci][:, remap.index]).sum(axis=1)
            else:
                low[ci] = np.einsum("bz,zr,br->b", K, remap.table, self.L[ci])
        return Errors(self.R, low, self.tail, self.log_pi)

    def pmf_rows(self, remap: Remap, ci: ArrayLike) -> tuple[NDArray[np.float64], float]:
        """``P_win(r | c)`` for data sets ``R[ci]`` (rows) over R(n) and the bound ``tail``:
        ``P_win <= P(r | c) <= P_win + tail`` (docs/lattice.md)."""
        ci = np.asarray(ci, dtype=np.int64).reshape(-1)
        K = np.exp(self.log_kernel(ci))
        return K @ remap.dense(len(self.R)), self.tail

    def in_window(self, z: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Whether each row of ``z`` lies in the window."""
        return np.all(np.asarray(z) >= -self.W, axis=-1)

    def window_index(self, z: NDArray[np.int64]) -> NDArray[np.int64]:
        """The row of ``self.Z`` holding each window point ``z``."""
        return candidate_rank(np.asarray(z, dtype=np.int64) + self.W)


@dataclass
class Remap:
    """A remap on the window: ``index[z]`` (deterministic, an R(n) row) or a row-stochastic ``table``; ``errors``:
    :meth:`LatticeSetup.errors` of it on the setup it was solved on, where its solve computed them (its certificate's
    upper end), so that the errors are not computed twice."""

    index: NDArray[np.int64] | None = None
    table: NDArray[np.float64] | None = None
    certificate: dict | None = None
    errors: Errors | None = field(default=None, repr=False, compare=False)

    def draw_row(self, row: int, bits) -> int:
        """One output rank drawn from the randomised row ``table[row]`` by integer weights
        (:func:`~dpposterior.randomness.float_weights`: total variation at most ``|R(n)| 2^-(B-1)`` from it)."""
        p = self.table[row]
        nz = np.flatnonzero(p > 0)
        return int(nz[choose(float_weights(p[nz]), 1, bits)[0]])

    def dense(self, n_out: int) -> NDArray[np.float64]:
        """The table ``T(z, r)`` as a dense array."""
        if self.table is not None:
            return self.table
        T = np.zeros((len(self.index), n_out))
        T[np.arange(len(self.index)), self.index] = 1.0
        return T


def bayes_remap(setup: LatticeSetup, log_weight: NDArray[np.float64] | None = None) -> tuple[Remap, float]:
    """The Bayes remap ``T(z) = argmin_r sum_c lambda(c) K(z | c) L(c, r)`` on the window (docs/lattice.md) and its
    Bayes risk over the window, ``sum_z min_r rho(z, r)``; ``lambda`` = the prior predictive unless given."""
    lw = setup.log_pi if log_weight is None else log_weight
    lw = lw - logsumexp(lw)
    rho = setup.bayes_risk_rows(lw)
    index = np.argmin(rho, axis=1)
    return Remap(index=index), float(rho[np.arange(len(index)), index].sum())


def minimax_remap(setup: LatticeSetup, inner: int | None = None, gap: float = 1e-4,
                  r_radius: int | None = None, base: Remap | None = None,
                  free_rows: NDArray[np.bool_] | None = None, drop: float = 1e-13, certify: bool = True) -> Remap:
    """The minimax remap by LP (scipy HiGHS) over the rows of the inner window ``z_i >= -inner``, the
    other rows fixed to the Bayes remap, with its certificate (docs/lattice.md; lower and upper in the module
    docstring).  ``inner`` defaults to ``min(W, ceil(8 / eps))``; ``r_radius`` (default: every output) restricts
    the outputs a row may use to those within that substitution distance of :func:`project` ``(z)``, plus the
    Bayes remap's output (a smaller LP; the certificate still bounds the minimax over *all* remaps).
    ``base``: the deterministic remap of the fixed rows (default the window's Bayes remap; e.g.
    :func:`local_bayes_remap` at large n); ``free_rows``: a mask of the window's rows the LP may change (default:
    the inner window), e.g. the rows near the vertices, where the Bayes remap has its worst case.
    ``drop``: LP coefficients below it are left out (the remap's errors are then computed exactly);
    ``certify=False`` skips the lower end (a dense Bayes risk, ``|window| |R(n)|^2``): ``lower`` is then nan.
    ``certificate["closed"]``: the relative gap ``(upper - lower) / upper`` is at most ``gap`` (1e-4, as the
    k = 2 minimax remap) or ``upper - lower <= 1e-9``.
    """
    from scipy import sparse
    from scipy.optimize import linprog

    if base is None:
        base, _ = bayes_remap(setup)
    W1 = min(setup.W, math.ceil(8 / setup.eps)) if inner is None else min(int(inner), setup.W)
    inside = np.all(setup.Z >= -W1, axis=1)
    free = np.flatnonzero(inside if free_rows is None else inside & free_rows)
    fixed = np.setdiff1d(np.arange(len(setup.Z)), free)
    nR, nF = len(setup.R), len(free)
    # the variables: pairs (row f of the free rows, output r)
    if r_radius is None:
        vf = np.repeat(np.arange(nF), nR)
        vr = np.tile(np.arange(nR), nF)
    else:
        near = pair_distance(project(setup.Z[free], setup.n)[:, None, :], setup.R[None, :, :]) <= r_radius
        near[np.arange(nF), base.index[free]] = True
        vf, vr = np.nonzero(near)
    nv = vf.size
    check_size(nR * min(nv, BLOCK_ENTRIES), 8, "the minimax remap's LP")
    # E_win(c) = sum_{(f, r)} K(z_f | c) L(c, r) T(f, r) + b(c); variables T then t.  Entries of the LP's rows
    # below ``drop`` are left out (sparse LP): the LP only chooses T; the errors of the remap found are then
    # computed exactly, so the certificate's upper end does not depend on the dropped entries.
    parts = []
    b = np.zeros(nR)
    for ci in setup._c_blocks(nv):
        K = np.exp(setup.log_kernel(ci))
        block = K[:, free[vf]] * setup.L[ci][:, vr]
        block[block < drop] = 0.0
        parts.append(sparse.csr_array(block))
        b[ci] = (K[:, fixed] * setup.L[ci][:, base.index[fixed]]).sum(axis=1)
    A_ub = sparse.hstack([sparse.vstack(parts), sparse.csr_array(-np.ones((nR, 1)))]).tocsr()
    A_eq = sparse.hstack([sparse.csr_array((np.ones(nv), (vf, np.arange(nv))), shape=(nF, nv)),
                          sparse.csr_array((nF, 1))]).tocsr()
    cost = np.zeros(nv + 1)
    cost[-1] = 1.0
    res = linprog(cost, A_ub=A_ub, b_ub=-b, A_eq=A_eq, b_eq=np.ones(nF), bounds=(0, None),
                  method=lp_method(A_ub.nnz, A_ub.shape[1]),
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise InputError(f"the minimax remap's LP failed: {res.message}")
    T = np.zeros((nF, nR))
    T[vf, vr] = np.clip(res.x[:-1], 0.0, None)
    T /= T.sum(axis=1, keepdims=True)
    table = base.dense(nR).copy()
    table[free] = T
    remap = Remap(table=table)
    lam = np.clip(-res.ineqlin.marginals, 0.0, None)
    if lam.sum() <= 0:
        lam = np.ones(nR)
    lower = float("nan")
    if certify:
        with np.errstate(divide="ignore"):
            _, lower = bayes_remap(setup, np.log(lam / lam.sum()))
    remap.errors = setup.errors(remap)
    upper = remap.errors.worst[1]
    rel = (upper - lower) / upper if upper > 0 else 0.0
    remap.certificate = {"lower": lower, "upper": upper, "gap": rel, "inner": W1, "tail": setup.tail,
                         "closed": bool(certify and (rel <= gap or upper - lower <= 1e-9))}
    return remap


def sample_release(setup: LatticeSetup, remap: Remap, counts: ArrayLike, size: int = 1, rng=None) -> NDArray[np.int64]:
    """``size`` draws of the remapped lattice release for data ``counts`` (rows of ``(size, k)``; docs/lattice.md).

    The noise is exact (:func:`.noise.sample_noise`); a deterministic remap is read exactly; a randomised row is
    drawn by :func:`~dpposterior.randomness.choose` on its float weights (total variation at most
    ``|R(n)| 2^-(B-1)`` from the row, :func:`~dpposterior.randomness.float_weights`).  Outside the window:
    :func:`project`.
    """
    c = _validate.counts(counts, k=setup.k, n=setup.n)
    bits = bit_source(rng)
    z = c[None, :] + sample_noise(setup.k, setup.eps, size, bits)
    out = project(z, setup.n)
    inside = np.flatnonzero(setup.in_window(z))
    rows = setup.window_index(z[inside])
    for j, zi in zip(inside, rows):
        if remap.index is not None:
            r = int(remap.index[zi])
        else:
            r = remap.draw_row(zi, bits)
        out[j] = setup.R[r]
    return out


@lru_cache(maxsize=32)
def _ball(k: int, D: int) -> NDArray[np.int64]:
    """Every ``w`` in the sum-zero lattice with ``d(w) <= D``, lexicographic (cached, read-only).

    Enumerated over the box ``[-D, D]^(k-1)`` (the last coordinate is minus the sum of the others), then
    filtered: ``(2D + 1)^(k-1)`` candidates instead of the ``C(2kD + k - 1, k - 1)`` of a window.  The box is
    walked one value of the first coordinate at a time (a block of ``(2D + 1)^(k-2)`` candidates), each block
    filtered and kept as int16 where ``D`` fits it: the blocks in order of the first coordinate, each
    lexicographic in the rest, are the whole box's lexicographic order, so the filtered points are the same
    rows in the same order as filtering the whole box at once (:func:`_ball_whole`; tested), and the peak is
    the ball itself (k = 4, D = 144: 10,057,489 points, 0.32 GB) instead of ~8 box-sized arrays (2.7 GB)."""
    k, D = int(k), int(D)
    if k < 2:
        return _ball_whole(k, D)
    dtype = np.int16 if 2 * k * D < np.iinfo(np.int16).max else np.int64
    axes = np.meshgrid(*([np.arange(-D, D + 1)] * (k - 2)), indexing="ij")
    rest = (np.stack([x.ravel() for x in axes], axis=1) if k > 2 else np.zeros((1, 0))).astype(np.int64)
    rest_sum, rest_abs = rest.sum(axis=1), np.abs(rest).sum(axis=1)
    blocks = []
    for x0 in range(-D, D + 1):
        last = -(x0 + rest_sum)
        keep = (abs(x0) + rest_abs + np.abs(last)) // 2 <= D
        if keep.any():
            block = np.empty((int(keep.sum()), k), dtype=dtype)
            block[:, 0] = x0
            block[:, 1:k - 1] = rest[keep]
            block[:, k - 1] = last[keep]
            blocks.append(block)
    out = np.concatenate(blocks).astype(np.int64, copy=False)
    del blocks
    out.setflags(write=False)
    return out


def _ball_whole(k: int, D: int) -> NDArray[np.int64]:
    """:func:`_ball` by filtering the whole box ``[-D, D]^(k-1)`` at once (the definition; small D only)."""
    axes = np.meshgrid(*([np.arange(-D, D + 1)] * (k - 1)), indexing="ij")
    head = np.stack([x.ravel() for x in axes], axis=1).astype(np.int64)
    w = np.concatenate([head, -head.sum(axis=1, keepdims=True)], axis=1)
    return w[np.abs(w).sum(axis=1) // 2 <= D]


def _offsets(k: int, D: int) -> NDArray[np.int64]:
    """Every ``w`` in the sum-zero lattice with ``d(w) <= D`` (lexicographic)."""
    return _ball(int(k), int(D))


def local_bayes_remap(setup: LatticeSetup, c_radius: int | None = None, r_radius: int = 4,
                      log_weight: NDArray[np.float64] | None = None) -> Remap:
    """:func:`local_bayes_at` at every point of the window, vectorised (docs/lattice.md): the same remap, so its
    exact errors (:meth:`LatticeSetup.errors`) are those of the release that computes one draw at a time.
    Work ``|window| x |c offsets| x |r offsets|`` reads of the loss matrix, whatever the size of R(n)^2.
    ``log_weight``: weights ``lambda`` on the data sets of R(n) in place of the prior predictive."""
    k, n, eps = setup.k, setup.n, setup.eps
    Dc = radius_for(k, eps, 1e-12) if c_radius is None else int(c_radius)
    oc, orr = _offsets(k, Dc), _offsets(k, int(r_radius))
    P = project(setup.Z, n)
    index = np.empty(len(setup.Z), dtype=np.int64)
    step = max(1, BLOCK_ENTRIES // (len(oc) * len(orr)))
    for lo in range(0, len(setup.Z), step):
        sl = slice(lo, min(len(setup.Z), lo + step))
        p, z = P[sl], setup.Z[sl]
        cs = p[:, None, :] + oc[None, :, :]  # (B, |oc|, k)
        rs = p[:, None, :] + orr[None, :, :]
        c_ok = np.all(cs >= 0, axis=2)
        r_ok = np.all(rs >= 0, axis=2)
        ci = candidate_rank(np.where(c_ok[..., None], cs, 0))
        ri = candidate_rank(np.where(r_ok[..., None], rs, 0))
        base_w = setup.log_pi if log_weight is None else log_weight
        lw = base_w[ci] - eps * pair_distance(cs, z[:, None, :])
        lw = np.where(c_ok, lw, -np.inf)
        w = np.exp(lw - lw.max(axis=1, keepdims=True))
        risk = np.einsum("bc,bcr->br", w, setup.L[ci[:, :, None], ri[:, None, :]])
        risk = np.where(r_ok, risk, np.inf)
        best = np.argmin(risk, axis=1)
        index[sl] = ri[np.arange(len(best)), best]
    return Remap(index=index)


def reweighted_remap(setup: LatticeSetup, rounds: int = 8, step: float = 20.0, c_radius: int | None = None,
                     r_radius: int = 4) -> tuple[Remap, list[float]]:
    """A deterministic remap for the worst case at sizes where the minimax LP does not run (docs/lattice.md).

    Multiplicative weights: ``lambda_0 = pi``; round ``t`` takes the local Bayes remap under ``lambda_t``
    (:func:`local_bayes_remap`), computes its exact errors ``E_t`` and sets
    ``ln lambda_(t+1) = ln lambda_t + step E_t``.  Returns the remap with the smallest certified worst case
    (upper end) and the upper ends of every round.  No lower bound: a heuristic whose value is exact.
    """
    lw = setup.log_pi.copy()
    best, best_worst, trace = None, np.inf, []
    for _ in range(int(rounds)):
        r = local_bayes_remap(setup, c_radius, r_radius, lw)
        e = setup.errors(r)
        trace.append(e.worst[1])
        if e.worst[1] < best_worst:
            best, best_worst = r, e.worst[1]
        lw = lw + step * e.low
        lw = lw - lw.max()
    return best, trace


def _local_inputs(prior, n, epsilon, z, c_radius):
    """The validated inputs of a local remap at one point: ``(a, k, n, eps, z, Dc, project(z))``, ``Dc`` the data
    sets' radius (default ``radius_for(k, eps, 1e-12)``)."""
    a = _validate.prior(prior)
    k = a.size
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    z = np.asarray(z, dtype=np.int64).reshape(k)
    if int(z.sum()) != n:
        raise InputError("z must sum to n")
    Dc = radius_for(k, eps, 1e-12) if c_radius is None else int(c_radius)
    return a, k, n, eps, z, Dc, project(z, n)[0]


def local_bayes_at(prior: ArrayLike, n: int, epsilon: float, z: ArrayLike, c_radius: int | None = None,
                   r_radius: int = 4) -> NDArray[np.int64]:
    """The local Bayes remap at one point ``z`` (docs/lattice.md).

    ``T_loc(z) = argmin`` over ``r`` in R(n) with ``d(r, project(z)) <= r_radius`` of
    ``sum_c pi(c) e^(-eps d(z, c)) L(c, r)``, the sum over ``c`` in R(n) with ``d(c, project(z)) <= c_radius``
    (default ``radius_for(k, eps, 1e-12)``).  A function of ``z`` alone (a fixed remap, whatever the data),
    so the release stays eps-DP; its work is ``O(c_radius^(k-1) r_radius^(k-1))`` whatever n (the losses of the
    local pairs by :func:`~dpposterior.distances.hellinger.hellinger`, no table over ``0..n``).  It equals the
    window's Bayes remap when the two radii hold every competitive output and all but a negligible share of
    the weight (the tests compare the two).
    """
    a, k, n, eps, z, Dc, p = _local_inputs(prior, n, epsilon, z, c_radius)
    cs = p[None, :] + _offsets(k, Dc)
    cs = cs[np.all(cs >= 0, axis=1)]
    rs = p[None, :] + _offsets(k, int(r_radius))
    rs = rs[np.all(rs >= 0, axis=1)]
    lw = log_prior_predictive(a, cs) - eps * (np.abs(cs - z[None, :]).sum(axis=1) // 2)
    w = np.exp(lw - lw.max())
    # the local pairs only (no table over 0..n: the work does not grow with n)
    risk = w @ hellinger(a + cs[:, None, :], a + rs[None, :, :])
    return rs[int(np.argmin(risk))]


#: The weight share the local search may leave out (:func:`local_bayes_search`): its average error exceeds
#: that of the exact argmin over the same outputs by at most this.
SEARCH_SHARE = 1e-6
#: Steps of :func:`local_bayes_search` before it stops where it is (a cap; never reached in the tests).
SEARCH_STEPS = 256


#: Largest ``(n + 1)^2`` at which the one-point search reads each coordinate's ``J`` from a table over every pair of
#: values ``0..n`` (:func:`_jensen_table`, built once per ``(a_i, n)``) instead of evaluating it per step: the exact
#: errors' near ties hand thousands of points to the search at the same (a, n) (k = 3, n = 20, eps = 0.5: 3,948).
JENSEN_TABLE_ENTRIES = 2**18


def square_table(n: int) -> bool:
    """Whether the losses at total ``n`` read the square table over every pair of values (:func:`_jensen_table`):
    ``(n + 1)^2 <= JENSEN_TABLE_ENTRIES`` (public n; the one rule every reader of that table and every plan that prices
    it reads)."""
    return (int(n) + 1) ** 2 <= JENSEN_TABLE_ENTRIES


@lru_cache(maxsize=8)
def _jensen_table(ai: float, n: int) -> NDArray[np.float64]:
    """``J(a_i + c, a_i + r)`` for every ``c, r`` in ``0..n`` (:func:`~dpposterior.distances.hellinger.lgamma_jensen_gap`,
    elementwise: each entry is the float a call at that one pair returns)."""
    x = np.arange(n + 1, dtype=np.float64)
    table = lgamma_jensen_gap(ai + x[:, None], ai + x[None, :])
    table.setflags(write=False)
    return table


@lru_cache(maxsize=4)
def _jensen_band(ai: float, n: int, band: int) -> NDArray[np.float64]:
    """``J(a_i + c, a_i + c + d)`` for every ``c`` in ``0..n`` and ``d`` in ``-band..band`` (at ``[c, d + band]``;
    entries with ``c + d`` off ``0..n`` hold a clipped pair and are never read), each the float
    :func:`~dpposterior.distances.hellinger.lgamma_jensen_gap` returns at that one pair (elementwise, as
    :func:`_jensen_table`)."""
    c = np.arange(n + 1, dtype=np.int64)[:, None]
    r = np.clip(c + np.arange(-band, band + 1, dtype=np.int64)[None, :], 0, n)
    table = lgamma_jensen_gap(ai + c.astype(np.float64), ai + r.astype(np.float64))
    table.setflags(write=False)
    return table


def _local_hellinger(a: NDArray[np.float64], cs: NDArray[np.int64], rs: NDArray[np.int64],
                     n: int | None = None, band: int = 0) -> NDArray[np.float64]:
    """``H(Dir(a + c), Dir(a + r))`` for every pair (rows ``cs``, columns ``rs``) of one total n.

    Per coordinate, ``ln BC = sum_i J(a_i + c_i, a_i + r_i)`` (the totals' term is 0 when the sums agree;
    :mod:`~dpposterior.distances.hellinger`): each ``J`` is evaluated once per pair of *values* of a coordinate
    (:func:`~dpposterior.distances.hellinger.lgamma_jensen_gap`, accurate at any n) and gathered; given the total
    ``n`` with ``(n + 1)^2 <= JENSEN_TABLE_ENTRIES``, gathered from :func:`_jensen_table`, else given ``band`` > 0
    (the caller's guarantee: every ``|c_i - r_i| <= band``), from :func:`_jensen_band` (the same floats either way,
    summed in the same order)."""
    log_bc = np.zeros((len(cs), len(rs)))
    # each gather as the columns of the outputs, then their rows at the data sets (np.take of whole rows: the same
    # entries as indexing both at once, ~10x faster over many data sets)
    if n is not None and square_table(n):
        for i in range(a.size):
            log_bc += np.take(_jensen_table(float(a[i]), int(n))[:, rs[:, i]], cs[:, i], axis=0)
        return hellinger_from_log_bc(log_bc, out=log_bc)
    if n is not None and band > 0:  # the caller's guarantee: every |c_i - r_i| <= band
        width = 2 * int(band)
        for i in range(a.size):  # entry [c, r - c + band] of the flat table: c (2 band + 1) + r - c + band
            at = (cs[:, i] * width + int(band)).reshape(-1, 1) + rs[:, i].reshape(1, -1)
            log_bc += np.take(_jensen_band(float(a[i]), int(n), int(band)), at)
        return hellinger_from_log_bc(log_bc, out=log_bc)
    for i in range(a.size):
        uc, ic = np.unique(cs[:, i], return_inverse=True)
        ur, ir = np.unique(rs[:, i], return_inverse=True)
        J = lgamma_jensen_gap(a[i] + uc[:, None].astype(np.float64), a[i] + ur[None, :].astype(np.float64))
        log_bc += np.take(J[:, ir.reshape(-1)], ic.reshape(-1), axis=0)
    return hellinger_from_log_bc(log_bc, out=log_bc)


def _search_weights(a: NDArray[np.float64], eps: float, z: NDArray[np.int64], Dc: int, p: NDArray[np.int64]
                    ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The data sets ``c`` of R(n) with ``d(c, p) <= Dc`` (the ball's order) and ``ln pi(c) - eps d(z, c)`` up to a
    constant at each, as :func:`local_bayes_search` weighs them: the same floats as over the whole ball then kept
    where ``c >= 0`` (each entry the same sums in the same order; tested)."""
    cs, lw, half = search_terms(a, z, Dc, p)
    return cs, lw - eps * half


def rn_sums(a: NDArray[np.float64], n: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """``(cs, L)``: R(n) in the order of :func:`~dpposterior.models.candidates` and the sums ``L(c) = sum_i
    [lnGamma(a_i + c_i) - lnGamma(c_i + 1)]`` at each, added left to right from 0 as :func:`search_terms` adds them over
    a ball (each term the same float: a table entry at the value ``c_i``, whatever the table's range), so the same
    floats.  Kept for the last two ``(a, n)`` (read-only arrays): every one-point search at ``n <= Dc`` reads them."""
    return _rn_sums(np.asarray(a, dtype=np.float64).tobytes(), int(n))


@lru_cache(maxsize=2)
def _rn_sums(a_bytes: bytes, n: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    a = np.frombuffer(a_bytes, dtype=np.float64)
    cs = candidates(n, a.size)
    lw = np.zeros(len(cs))
    v = np.arange(n + 1)
    for i in range(a.size):
        table = gammaln(a[i] + v) - gammaln(v + 1.0)
        lw += table[cs[:, i]]
    cs.setflags(write=False)
    lw.setflags(write=False)
    return cs, lw


def search_terms(a: NDArray[np.float64], z: NDArray[np.int64], Dc: int, p: NDArray[np.int64]
                 ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
    """``(cs, L, D)``: :func:`_search_weights`' data sets, its sums ``L(c) = sum_i [lnGamma(a_i + c_i) - lnGamma(c_i +
    1)]`` (left to right) and the integers ``D = d(z, c)``, so that its log-weights are ``L - eps D`` (those floats).

    Where ``n = sum p <= Dc`` every c of R(n) lies within ``Dc`` of ``p`` (``d(c, p) <= n``), so the ball's points in
    R(n) are R(n) itself; the ball's order is lexicographic in the offset ``c - p``, that is in ``c``, the order of
    :func:`~dpposterior.models.candidates`: the same rows in the same order, read from R(n) without building the ball
    (k = 4, Dc = 144: 10 M points, 0.13 s a search at n = 10), the same table entries at each (tested)."""
    k = a.size
    n = int(p.sum())
    if n <= Dc:
        # R(n) and its sums do not depend on p or z (read once per (a, n): the same floats, below), only d(z, c)
        cs, lw = rn_sums(a, n)
        return cs, lw, np.abs(cs - z[None, :]).sum(axis=1) // 2
    ball = _ball(k, Dc)
    # the ball's points in R(n) (c = p + v >= 0, one coordinate at a time: the ball is mostly off R(n) at small n)
    ok = ball[:, 0] >= -p[0]
    for i in range(1, k):
        ok &= ball[:, i] >= -p[i]
    if not ok.all():
        ball = ball[ok]
    cs = p[None, :] + ball
    # ln pi(c) up to a constant, and -eps d(z, c), coordinate by coordinate from small tables (the ball's
    # coordinates span 2 Dc + 1 values): sum_i [lnGamma(a_i + c_i) - lnGamma(c_i + 1)] - eps |z_i - c_i| / 2
    lw = np.zeros(len(cs))
    dist = np.zeros(len(cs), dtype=np.int64)
    for i in range(k):
        v = np.arange(p[i] - Dc, p[i] + Dc + 1)
        table = gammaln(a[i] + np.maximum(v, 0)) - gammaln(np.maximum(v, 0) + 1.0)
        col = ball[:, i] + Dc
        lw += table[col]
        dist += np.abs(v - z[i])[col]
    return cs, lw, dist // 2


def local_bayes_search(prior: ArrayLike, n: int, epsilon: float, z: ArrayLike, c_radius: int | None = None,
                       r_radius: int = 1, share: float = SEARCH_SHARE, band: int = 0,
                       gap: list | None = None) -> NDArray[np.int64]:
    """The local Bayes remap at one point ``z`` by a search over outputs, for a draw at any n (docs/lattice.md).

    Weights ``w(c) = pi(c) e^(-eps d(z, c))`` over the c in R(n) within ``c_radius`` of ``p = project(z)``
    (default ``radius_for(k, eps, 1e-12)``), as :func:`local_bayes_at`; the lightest c whose total weight is at
    most ``share`` of the whole are left out.  Then, from ``centre = p``: the risk ``S(r) = sum_c w(c) L(c, r)``
    over the outputs within ``r_radius`` of the centre.  The centre is returned if it attains the ball's
    minimum; else the argmin (ties: the first, lexicographic) is returned if it lies strictly inside the ball,
    else it becomes the centre and the search repeats (``S`` at the centre decreases strictly, so it stops;
    at most :data:`SEARCH_STEPS` moves).

    A fixed function of ``z`` (whatever the data), so the release stays eps-DP.  The share left out moves every
    ``S(r)`` by at most ``share sum_c w(c)`` (a loss is in [0, 1]), so the output's risk exceeds the minimum over
    the outputs the search examined by at most that: the average error by at most ``share``.  Work:
    ``|c ball| + (kept c) x |r ball| x steps`` Hellinger look-ups (no gammaln per pair).  ``band`` > 0 reads the
    losses from a table over ``|c_i - r_i| <= band`` built once per (a_i, n) (:func:`_local_hellinger`: the same
    floats, so the same output; for many searches at one n).

    ``gap``: a list, which the search sets to ``[its smallest step margin relative to the total weight]``: over its
    steps, ``min_{r != r*} (risk(r) - risk(r*)) / sum_C w`` (``r*`` the step's argmin; inf where the ball holds one
    output).  Only recorded, never read: the output is the same floats with or without it (the orbit certificate of
    :func:`.search.local_search_many` reads it).
    """
    a, k, n, eps, z, Dc, p = _local_inputs(prior, n, epsilon, z, c_radius)
    cs, lw = _search_weights(a, eps, z, Dc, p)
    w = np.exp(lw - lw.max())
    order = np.argsort(-w, kind="stable")
    cum = np.cumsum(w[order])
    keep = np.sort(order[: int(np.searchsorted(cum, cum[-1] * (1.0 - share))) + 1])
    cs, w = cs[keep], w[keep]
    ball = _ball(k, int(r_radius))
    centre = p
    for _ in range(SEARCH_STEPS):
        rs = centre[None, :] + ball
        rs = rs[np.all(rs >= 0, axis=1)]
        # the band table holds every pair while |c_i - r_i| <= Dc + 1 + |centre_i - p_i| (c within Dc of p, r
        # within 1 of the centre) is within it; else the losses are evaluated (the same floats)
        b = band if band > 0 and Dc + 1 + int(np.abs(centre - p).max()) <= band else 0
        risk = w @ _local_hellinger(a, cs, rs, n, b)
        j = int(np.argmin(risk))
        if gap is not None:
            others = np.delete(risk, j)
            step = float(others.min() - risk[j]) / float(cum[-1]) if others.size else math.inf
            gap[:] = [min(gap[0], step) if gap else step]
        here = int(np.flatnonzero(np.all(rs == centre[None, :], axis=1))[0])
        if risk[j] >= risk[here]:  # the centre is a minimiser of the ball
            return centre
        if int(np.abs(rs[j] - centre).sum()) // 2 < int(r_radius):
            return rs[j]
        centre = rs[j]
    return centre


#: The float margin's constant part of the batched searches' bounds (:mod:`.search`, :mod:`.batched`; their module
#: docstrings).
FLOAT_MARGIN = 1e-9


class _Fallback:
    """Counts the z handed to :func:`.remap.local_bayes_search`, refusing (one line) past ``limit`` of them."""

    def __init__(self, limit: int, band: int = 0):
        self.limit, self.count, self.band = limit, 0, band

    def refuse_past(self, count: int) -> None:
        """The one-line refusal once ``count`` points are handed on (known before the first search: refused then,
        not after ``limit`` searches that end in the same refusal)."""
        if count > self.limit:
            raise SizeError(f"the lattice release's local remap on the window hands more than {self.limit} points to "
                            "the one-point search (near ties): not computed within its limit")

    def __call__(self, a, n, eps, z):
        self.count += 1
        self.refuse_past(self.count)
        return local_bayes_search(a, n, eps, z, band=self.band)
