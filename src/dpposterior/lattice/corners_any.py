"""The corner remap of the lattice release at k >= 4 (built and measured at k = 4): minimax near the vertices.

Definitions (docs/lattice.md, "A worst-case remap at k = 4"; docs/definitions.md §9 for the objectives; the k = 3
remap, :mod:`.corners`, is the model).  The lattice release draws ``z = c + w`` (:mod:`.noise`); a remap
``T(z, .)`` chosen from public inputs (prior, n, eps), never reading ``c``, is post-processing, so any remap keeps
eps-DP whatever the LP below returns.  At k = 4 under the Bayes remap the worst case sits next to a vertex (Dir(1,1,1,1),
n = 10, eps = 2: at ``(7, 1, 1, 1)``, the three small counts 1; the edges' and faces' largest errors are those of the
same data sets, docs/lattice.md).

* **Free rows.** ``F = {z : n - max_i z_i <= depth, z_i >= -inner}`` (:func:`default_depth`, :func:`inner_radius`).
* **Constrained data sets.** ``A = {c in R(n) : d(c, F) <= W}``, ``W = radius_for(k, eps, LP_TOL)``.
* **The rest.** Off ``F``: ``T(z) = B(project(z))``, ``B`` the local Bayes remap (:func:`.remap.local_bayes_search`,
  ``lattice~average``'s) at the point of R(n) that :func:`.remap.project` maps z to.  On R(n) it is the local Bayes
  remap itself; off R(n) (probability small away from the vertices, where ``F`` holds them) it reads the local Bayes
  output of ``project(z)``, so that every output of the rest is the batched local search's over R(n) only
  (:func:`.batched.local_search_batch`, whose one-point searches off R(n) made the k = 4 errors cost hours).
* **Edge rows** (:class:`EdgeTableAny`; at ``1 <= eps < 2`` where the joint LP's plan fits, :func:`uses_edges`).
  Under the rest's remap the worst case also sits along the 6 edges, at data sets with two small counts (Dir(1,1,1,1),
  eps = 1, n = 20: 0.5525 at every edge distance up to 4 and vertex distance 7-8, the corners' level), where the
  corner rows do not reach.  A point ``z`` off ``F`` whose two smaller counts (every count but the largest and the
  second largest) lie in ``[-EDGE_LOW, top]`` (:func:`edge_top_any`, :data:`EDGE_LOW`), whose second largest is
  ``>= top + 1`` and whose largest exceeds the small counts' negative parts is a row of the edge ``{largest,
  second}``: it draws ``z + base + rho`` (``base`` moves the negative small counts to 0 from the largest count,
  ``rho`` within :data:`R_RADIUS`, read in role order) with probability ``tau_e(small counts, rho)``: one row per
  value of the small counts, the same at every position along the edge and every n (a translation along the edge
  moves the row and its outputs alike, and the kernel is translation invariant).  ``tau`` and the corner rows are one
  LP (:func:`_solve_edges`): ``min t`` with ``E_W(c) <= t`` for the corner data sets and the edge data sets
  (:func:`edge_data_sets`).  At a symmetric prior, where that LP is over its share (:func:`edge_orbits`), it is
  solved with one variable per orbit of the categories' permutations (:func:`_lp_orbits`; Dir(1,1,1,1), eps = 1,
  n = 20: 8.3 CPU s against 57.9, its ``t`` 0.49839 against 0.49835), so the release uses it there too.
* **LP** (HiGHS): rows of ``T`` on ``F`` over the outputs within :data:`R_RADIUS` of ``project(z)``,
  ``min t`` subject to ``sum_{d(z, c) <= W} K(z | c) sum_r T(z, r) L(c, r) <= t`` for every ``c`` of ``A`` (the rows
  off ``F`` a constant), plus :data:`REGULARISER` times the average over ``A`` as a tie-break.  The LP chooses the
  remap only: the release's errors are computed exactly afterwards (:func:`corner_errors_any`), so nothing rests on
  the LP's cut or its solver tolerance.  Below eps = 1 at a symmetric prior past :data:`CORNER_ORBIT_ENTRIES`
  (:func:`corner_orbits`) it runs with one variable per orbit of the categories' permutations (:func:`_free_orbits`),
  every constraint kept (Dir(1,1,1,1), eps = 0.5, n = 20: HiGHS 44 -> 0.6 CPU s, its t 0.72970 -> 0.73030).
* **n.** Past ``N_REF = 4 (depth + 2 W + inner)`` (:func:`reference_n`) the table is solved at ``N_REF`` and translated as
  at k = 3: a point of vertex ``j`` (``argmax z``) reads the row of ``z - (n - N_REF) e_j``, its outputs moved by
  ``+ (n - N_REF) e_j``.  The edge table is read as it is at every n.  A fixed function of z and public inputs.

Privacy.  The corner table, the edge table and the choice of using the edge table (:func:`uses_edges`) are functions
of the prior, n, k and eps only, never of the data set, so ``z -> T(z, .)`` is post-processing of the eps-DP lattice
noise (:mod:`.noise`): the release is eps-DP whatever the LPs return (a remap that reads ``c`` would not be).

Certificate (:func:`certify_any`): :func:`.corners.certified_lower` (proof in :mod:`.corners`, any k, any weights on
any set of data sets), with the LP's duals restricted to the data sets within ``depth`` of a vertex, and with those of
the corner block's own LP, the larger kept: at most ``min_T max_c E_T(c)`` over every remap ``T`` of this release.
The block's depth is the deepest whose plan (:func:`plan_certify_any`, public n, k, eps) fits its share of seconds.
At small n (where :func:`plan_certify_simplex_any` fits its own share) also weights on every data set of R(n), by an
ascent from the uniform weights (:func:`certify_simplex_any`): within 1 % of the window LP's optimum where it runs.

Errors (:func:`corner_errors_any`).  ``E(c) = sum_{d(w) <= We} K(w) sum_r T(c + w, r) L(c, r)`` (bracket
``tail_bound(k, eps, We)``): :func:`.batched.window_errors_any` with the rest's outputs at every window point, then
at every table row ``z`` of the window (the translated ``F``, the edge rows) and every offset ``w`` with ``z - w`` in
R(n) the difference of the row's term and the rest's added (:func:`_table_deltas`: the same sum in another order).
The certificate bounds every remap of the release, so the edge table changes no step of its proof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate as _validate
from ..distances.hellinger import hellinger_from_log_bc
from ..errors import InputError
from ..limits import Plan, Task, admit
from ..models import candidate_rank, candidates
from ..randomness import choose, float_weights
from .corners import CERTIFY_CELLS, _union, _window_key, certified_lower, pair_loss, symmetric_prior
from .noise import log_normaliser, radius_for, sphere_count, tail_bound, window
from .remap import _ball, local_bayes_search, lp_method, project

#: The LP keeps the kernel's mass within ``radius_for(k, eps, LP_TOL)`` of each constrained data set (the LP only
#: chooses the remap; its errors are computed exactly).
LP_TOL = 0.1
#: Outputs a free row may use: within this substitution distance of ``project(z)`` (13 at k = 4).
R_RADIUS = 1
#: The certificate keeps the rows within ``radius_for(k, eps, CERT_TOL)`` of its weighted data sets (the kernel mass
#: beyond, dropped from the bound, is at most this share of it).
CERT_TOL = 1e-3
#: Weight of the tie-break: the average error over ``A``.
REGULARISER = 1e-4
#: How far below 0 an edge row's small counts reach (the rows below it are the rest's): at eps = 1, n = 20, 2 gives
#: the LP's t 0.4984 in 58 s of CPU, 8 (every row within the LP's cut) 0.4971 in ~120 s.
EDGE_LOW = 2
#: Entries of one block of the errors' recomputation and of the LP's sums.
BLOCK_ENTRIES = 2**21
#: The certificate's seconds: :func:`plan_certify_any` takes the deepest corner block whose estimate fits them (the
#: default solve limit; a constant, so the bound is a function of public inputs only).  The block's depth moves the
#: bound: Dir(1,1,1,1), eps = 2, n = 20: depth 3, 5, 7 give 0.2308, 0.2609, 0.2666 against the release's worst case
#: 0.2808; eps = 1, n = 20: depth 3, 4, 5, 6: 0.3654, 0.3940, 0.4112, 0.4228 against 0.5525.
CERT_SECONDS = 45.0
#: The deepest corner block :func:`plan_certify_any` tries: past it the blocks of two vertices meet at n = 20 and the
#: LP outgrows its estimate for little (eps = 2, n = 20, depth 9: 72.8 s of CPU against 15.7 estimated, 0.26726
#: against 0.26650 at depth 7; depth 8 with the kernel cut at 4: over 69 s).
MAX_CERT_DEPTH = 7
#: The corner block's LP (:func:`block_duals_any`, which only chooses the certificate's weights) cuts its kernel at
#: ``radius_for(k, eps, CERT_LP_TOL)`` (3, 6, 12 at eps = 2, 1, 0.5).  Dir(1,1,1,1), n = 20: eps = 2, depth 7, the cut
#: 4 and 3: 0.26665 and 0.26650 in 10.8 and 4.4 s; eps = 1, depth 4, the cut 8, 6, 5: 0.39402, 0.39408, 0.39332 in ~35,
#: 7.2, 3.3 s.
CERT_LP_TOL = 0.5
#: Seconds of the corner block's LP: ``c0 + c1 x entries^power``, ``entries = |C0| x |ball(W)| x |ball(R_RADIUS)|`` (an
#: upper end of its nonzeros).  Measured on the 2 shared cores at load 15-35 (CPU s, Dir(1,1,1,1), 2026-11-28), n = 20:
#: eps = 2, cut 4, depth 3, 5, 7 (3.2e5, 9.0e5, 1.9e6 entries): 0.63, 2.1, 10.8 s; cut 3, depth 7 (9.2e5): 4.4 s;
#: eps = 1, cut 8, depth 3 (2.1e6): 14.2 s; cut 6, depth 4 (1.7e6): 7.2 s; n = 10 (the blocks meet: slower per entry):
#: eps = 2, cut 3, all of R(10) (5.5e5): 6.3 s with the products; eps = 1, cut 6, depth 4 (1.7e6): 18.9 s.  The fit
#: covers the slowest.
CERT_LP_SECONDS = (0.5, 1.5e-8, 1.5)
#: Seconds per multiply-add of :func:`.corners.certified_lower`'s product (rows x weighted data sets x outputs) and
#: per loss it evaluates (measured: 1.2e10 multiply-adds and 8.3e5 losses, 1.1 s).
CERT_PRODUCT_SECONDS = (1.2e-10, 2e-7)
#: Bytes of the corner block's LP per entry at its peak (measured: 1.9e6 entries, 781 MB with the product's tables).
CERT_LP_BYTES = 300.0


def default_depth(epsilon: float) -> int:
    """The free rows' depth at k = 4: ``ceil(4 / sqrt(max(eps, 1)))`` (4 at eps <= 1, 3 at eps = 2)."""
    return int(math.ceil(4.0 / math.sqrt(max(float(epsilon), 1.0))))


def inner_radius(epsilon: float) -> int:
    """How far below 0 a free row's coordinates reach at k = 4: 2 at every eps (at eps = 1, n = 20: the solve 11 s of
    CPU; with 3 and ``W = 9``, 2,240 free rows, it had not finished after 3.5 minutes)."""
    return 2


def reference_n(epsilon: float, k: int = 4, depth: int | None = None) -> int:
    """``N_REF = 4 (depth + 2 W + inner)``: past it the table is solved at ``N_REF`` and translated (the free rows
    and the data sets within ``W`` of them lie near one vertex each)."""
    depth = default_depth(epsilon) if depth is None else int(depth)
    return 4 * (depth + 2 * radius_for(k, float(epsilon), LP_TOL) + inner_radius(epsilon))


@dataclass
class AnyCornerRemap:
    """The corner table (module docstring) at ``n_ref``: the free rows ``points`` (sorted by ``keys``), up to ``J``
    outputs each ``outputs[m, j]`` with probabilities ``probs[m, j]`` (0 padded), ``corner[m]`` the vertex; at ``n``
    a point of vertex ``j`` reads the row of ``z - (n - n_ref) e_j``, its outputs moved by ``+ (n - n_ref) e_j``.
    Off the table: the local Bayes output of ``project(z)``."""

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
    certificate: dict = field(default_factory=dict)
    duals: tuple | None = None
    #: The edge table (:class:`EdgeTableAny`; None where :func:`edge_top_any` is 0): the rows near an edge off the
    #: corner table.
    edges: EdgeTableAny | None = None

    def edge_rows(self, z: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """``(edge, index, roles)`` of the edge table's row at each ``z`` off the corner table
        (:meth:`EdgeTableAny.lookup`), ``-1`` where it has none (no edge table, on the corner table, off every edge)."""
        z = np.asarray(z, dtype=np.int64).reshape(-1, self.a.size)
        if self.edges is None:
            none = np.full(len(z), -1, dtype=np.int64)
            return none, none, np.zeros((len(z), self.a.size), dtype=np.int64)
        e, u, order = self.edges.lookup(z)
        off = self.rows(z) >= 0
        return np.where(off, -1, e), np.where(off, -1, u), order

    def rows(self, z: ArrayLike) -> NDArray[np.int64]:
        """The table's row holding each lattice point ``z`` (rows summing to n), or -1."""
        k = self.a.size
        z = np.array(z, dtype=np.int64, ndmin=2).reshape(-1, k)
        out = np.full(len(z), -1, dtype=np.int64)
        j = np.argmax(z, axis=1)
        zr = z.copy()
        zr[np.arange(len(z)), j] -= self.n - self.n_ref
        ok = np.all(zr >= -self.shift, axis=1) & (zr.sum(axis=1) == self.n_ref)
        if ok.any():
            key = _window_key(zr[ok], self.shift)
            pos = np.clip(np.searchsorted(self.keys, key), 0, len(self.keys) - 1)
            hit = (self.keys[pos] == key) & (self.corner[pos] == j[ok])
            out[np.flatnonzero(ok)] = np.where(hit, pos, -1)
        return out

    def row_outputs(self, rows: NDArray[np.int64]) -> NDArray[np.int64]:
        """The outputs of table rows at the release's ``n`` (``(B, J, k)``)."""
        out = self.outputs[rows].copy()
        if self.n != self.n_ref:
            out[np.arange(len(rows)), :, self.corner[rows]] += self.n - self.n_ref
        return out

    def transition(self, z: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """``T(z, .)`` at every row of ``z``: ``(outputs (B, J, k), probs (B, J))``; off the table the local Bayes
        output of ``project(z)`` with probability 1."""
        z = np.array(z, dtype=np.int64, ndmin=2).reshape(-1, self.a.size)
        rows = self.rows(z)
        J = self.outputs.shape[1]
        ee, eu, eo = self.edge_rows(z)
        if self.edges is not None:
            J = max(J, self.edges.probs.shape[2])
        out = np.zeros((len(z), J, self.a.size), dtype=np.int64)
        p = np.zeros((len(z), J))
        on = rows >= 0
        Jt = self.outputs.shape[1]
        out[on, :Jt], p[on, :Jt] = self.row_outputs(rows[on]), self.probs[rows[on]]
        edge = ee >= 0
        if edge.any():
            Je = self.edges.probs.shape[2]
            out[edge, :Je] = self.edges.outputs(z[edge], ee[edge], eu[edge], eo[edge])
            p[edge, :Je] = self.edges.probs[ee[edge], eu[edge]]
        rest = ~on & ~edge
        if rest.any():  # the rest: one local search per distinct projection
            uniq, back = np.unique(project(z[rest], self.n), axis=0, return_inverse=True)
            lb = np.stack([local_bayes_search(self.a, self.n, self.epsilon, u) for u in uniq])
            out[rest] = lb[back.reshape(-1)][:, None, :]
            p[rest, 0] = 1.0
        return out, p

    def draw(self, z: ArrayLike, bits) -> NDArray[np.int64]:
        """One output at ``z``: a table row (the corner table's, else the edge table's) drawn by integer weights
        (:func:`~dpposterior.randomness.float_weights`, total variation at most ``J 2^-127`` from the row), else the
        local Bayes output of ``project(z)``."""
        z = np.asarray(z, dtype=np.int64).reshape(self.a.size)
        f = int(self.rows(z)[0])
        if f >= 0:
            p, outs = self.probs[f], self.row_outputs(np.array([f]))[0]
        else:
            ee, eu, eo = self.edge_rows(z[None, :])
            if ee[0] < 0:
                return local_bayes_search(self.a, self.n, self.epsilon, project(z, self.n)[0])
            p, outs = self.edges.probs[ee[0], eu[0]], self.edges.outputs(z[None, :], ee, eu, eo)[0]
        nz = np.flatnonzero(p > 0)
        pick = nz[int(choose(float_weights(p[nz]), 1, bits)[0])] if nz.size > 1 else nz[0]
        return outs[pick]


def regions(k: int, n0: int, eps: float, depth: int, inner: int, rest: bool = True):
    """The LP's sets at ``n0``: ``(W, W1, shift, F, fkeys, A, G)``: free rows (sorted by key), constrained data sets
    ``A = {c in R(n0) : d(c, F) <= W}`` (sorted by key) and the other rows within ``W`` of ``A`` (the LP's constant
    part; sorted by key, None if not ``rest``).  ``A`` is found among the data sets with a count ``>= n0 - depth - W``
    (:func:`_near_data_sets`), not as the union of ``F``'s balls: the same set, in the same order, without the
    ``|F| x |ball(W)|`` points (Dir(1,1,1,1), n = 10, eps = 0.5: 16M points and ~1 GB)."""
    W = radius_for(k, eps, LP_TOL)
    W1 = min(int(inner), W)
    shift = W1 + 2 * W
    parts = []
    for j in range(k):
        for s in range(-(k - 1) * W1, min(depth, n0 + (k - 1) * W1) + 1):
            u = candidates(s + (k - 1) * W1, k - 1) - W1  # the other coordinates, >= -W1, summing to s
            parts.append(np.insert(u, j, n0 - s, axis=1))
    Fz = np.concatenate(parts)
    Fz = Fz[np.all(Fz >= -W1, axis=1) & (n0 - Fz.max(axis=1) <= depth)]
    Fz, fkeys = _union(Fz, np.zeros((1, k), dtype=np.int64), shift)
    A = _near_data_sets(Fz, k, n0, depth, W, shift)
    if not rest:
        return W, W1, shift, Fz, fkeys, A, None
    if len(A) == math.comb(n0 + k - 1, k - 1):
        # every data set constrained: the rows within W of R(n0) are those whose negative parts sum to at most W (the
        # distance to R(n0), :func:`rows_within`), read off the window: the same set as the union of A's balls
        Zw = window(n0, k, W)
        gkeys = np.unique(_window_key(Zw[np.maximum(-Zw, 0).sum(axis=1) <= W], shift))
    else:
        ball = _ball(k, W)
        gk = []
        step = max(1, BLOCK_ENTRIES // len(ball))
        for lo in range(0, len(A), step):  # in blocks: the (A x ball) points never whole
            gk.append(np.unique(_window_key(A[lo:lo + step, None, :] + ball[None, :, :], shift)))
        gkeys = np.unique(np.concatenate(gk))
    gkeys = gkeys[~np.isin(gkeys, fkeys)]
    G = _unrank(gkeys, n0 + k * shift, k) - shift
    return W, W1, shift, Fz, fkeys, A, G


def _near_data_sets(Fz: NDArray[np.int64], k: int, n0: int, depth: int, W: int, shift: int) -> NDArray[np.int64]:
    """``{c in R(n0) : min_z d(c, z) <= W}`` over the rows ``z`` of ``Fz`` (each with a count ``>= n0 - depth``),
    sorted by :func:`.corners._window_key` (``shift``), i.e. lexicographically.

    Why the candidates suffice: if ``d(c, z) <= W`` with ``z_j >= n0 - depth``, then ``c_j >= n0 - depth - W``, since
    both sum to ``n0`` and so ``|c_j - z_j| <= |c - z|_1 / 2 = d(c, z)``.  So only the data sets with a count at
    least ``n0 - depth - W`` are tried, each against every row of ``Fz`` in blocks."""
    reach = min(int(depth) + int(W), n0)
    parts = [np.insert(candidates(s, k - 1), j, n0 - s, axis=1) for j in range(k) for s in range(reach + 1)]
    P = np.unique(np.concatenate(parts), axis=0)  # a data set with two large counts comes once
    keep = np.zeros(len(P), dtype=bool)
    step = max(1, BLOCK_ENTRIES // max(1, len(Fz)))
    for lo in range(0, len(P), step):  # in blocks of candidates: the distance table never whole
        d2 = np.abs(P[lo:lo + step, None, :] - Fz[None, :, :]).sum(axis=2)  # twice the distance
        keep[lo:lo + step] = d2.min(axis=1) <= 2 * W
    A = P[keep]
    return A[np.argsort(_window_key(A, shift), kind="stable")]


def _free_orbits(z: NDArray[np.int64], r: NDArray[np.int64]) -> NDArray[np.int64]:
    """The orbit of each free-row variable ``(z, r)`` (rows of ``z`` and ``r``) under the permutations of the categories
    applied to both: the pairs ``(z_i, r_i)`` of its columns, sorted (two variables are in one orbit iff one's columns
    are a permutation of the other's).  Orbit ids are the ranks of those keys (:func:`numpy.unique`'s order)."""
    base = int(max(np.abs(z).max(initial=0), np.abs(r).max(initial=0))) + 1
    span = 2 * base + 1
    keys = np.sort((z + base) * span + (r + base), axis=1)
    _, vorb = np.unique(keys, axis=0, return_inverse=True)
    return vorb.reshape(-1)


def _unique_rows(M):
    """``(M', keep)``: the distinct rows of the sparse matrix ``M`` (CSR, canonical), the first of each kept, in order."""
    from scipy import sparse

    M = sparse.csr_array(M)
    M.sum_duplicates()
    M.sort_indices()
    seen: dict = {}
    keep = []
    for i in range(M.shape[0]):
        lo, hi = M.indptr[i], M.indptr[i + 1]
        key = (M.indices[lo:hi].tobytes(), M.data[lo:hi].tobytes())
        if key not in seen:
            seen[key] = i
            keep.append(i)
    keep = np.asarray(keep, dtype=np.int64)
    return M[keep], keep


def _unrank(keys: NDArray[np.int64], total: int, k: int) -> NDArray[np.int64]:
    """The points of ``candidates(total, k)`` at the ranks ``keys`` (the inverse of ``candidate_rank``)."""
    C = candidates(total, k)
    return C[keys]


def _rest_outputs(a, n0, eps, Z) -> NDArray[np.int64]:
    """``B(project(z))`` at every row of ``Z`` (the batched local search over the distinct projections; at a
    symmetric prior one search per orbit, :func:`.batched._orbit_search`: the same outputs)."""
    from .batched import local_search_batch

    if not len(Z):
        return np.zeros((0, a.size), dtype=np.int64)
    P = project(Z, n0)
    uniq, back = np.unique(P, axis=0, return_inverse=True)
    return local_search_batch(a, n0, eps, uniq, orbits=True)[back.reshape(-1)]


def solve_any(a: NDArray[np.float64], n0: int, eps: float, depth: int, inner: int, top: int | None = None,
              orbits: bool = False) -> AnyCornerRemap:
    """The table at ``n0`` by its LP (module docstring); with the edge table (:func:`_solve_edges`, by orbits if
    ``orbits``) where ``top`` (default :func:`edge_top_any`) is positive.  Without it, ``orbits`` (a symmetric prior):
    one variable per orbit of the free rows' (row, output) pairs (:func:`_free_orbits`), every constraint kept, so its
    ``t`` is never below the LP's without orbits (the argument is :func:`_lp_orbits`'s: the LP is convex and a
    permutation of the categories maps a feasible table to a feasible one of the same cost where the sets and the
    rest are equivariant; where ties break that, the LP may choose a worse table, never an unsafe one)."""
    top = edge_top_any(eps) if top is None else int(top)
    if top > 0:
        return _solve_edges(a, n0, eps, depth, inner, top, orbits=orbits)
    from scipy import sparse
    from scipy.optimize import linprog

    k = a.size
    W, W1, shift, Fz, fkeys, A, Gz = regions(k, n0, eps, depth, inner)
    lb = _rest_outputs(a, n0, eps, Gz)
    nF, nA = len(Fz), len(A)
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
    rows_, vars_, coefs = [], [], []
    b = np.zeros(nA)
    # the rest's constant part reads each pair (data set, the rest's output) from one table: the fixed rows' outputs
    # are few (the points of R(n0) they project to), so ``L(c, lb[g]) = Lb[c, out[g]]``, the same floats as one
    # pair_loss call per (c, g) (pair_loss is elementwise) at |A| x |outputs| losses, not |A| x |G|
    outs_b, out_g = (np.unique(lb, axis=0, return_inverse=True) if len(Gz)
                     else (np.zeros((0, k), dtype=np.int64), np.zeros(0, dtype=np.int64)))
    out_g = out_g.reshape(-1)
    # the distances to the fixed rows in int16 (coordinates within n0 + shift), the kernel read off a table by distance
    Ab16, Gz16 = A.astype(np.int16), Gz.astype(np.int16)
    kw_b = np.exp(-eps * np.arange(W + 1) - logZ)
    step = max(1, BLOCK_ENTRIES // max(1, nF, len(Gz), len(outs_b)))
    for lo in range(0, nA, step):  # in blocks of data sets: the distance tables never whole
        Ab = A[lo:lo + step]
        d = np.abs(Ab[:, None, :] - Fz[None, :, :]).sum(axis=-1) // 2
        ci, fi = np.nonzero(d <= W)
        kv = np.exp(-eps * d[ci, fi] - logZ)
        reps = count[fi]
        row = np.repeat(ci, reps)
        var = np.repeat(start[fi], reps) + (np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps))
        rows_.append(row + lo)
        vars_.append(var)
        coefs.append(np.repeat(kv, reps) * pair_loss(a, Ab[row], vr[var]))
        if len(Gz):
            Lb = pair_loss(a, np.broadcast_to(Ab[:, None, :], (len(Ab), len(outs_b), k)),
                           np.broadcast_to(outs_b[None, :, :], (len(Ab), len(outs_b), k)))
            dg = np.abs(Ab16[lo:lo + step, None, :] - Gz16[None, :, :]).sum(axis=-1, dtype=np.int16) // 2
            gc, gz = np.nonzero(dg <= W)
            b[lo:lo + step] += np.bincount(gc, weights=kw_b[dg[gc, gz]] * Lb[gc, out_g[gz]], minlength=len(Ab))
    row, var, coef = np.concatenate(rows_), np.concatenate(vars_), np.concatenate(coefs)
    A_ub = sparse.csr_array((np.append(coef, -np.ones(nA)), (np.append(row, np.arange(nA)),
                                                            np.append(var, np.full(nA, nv)))), shape=(nA, nv + 1))
    A_eq = sparse.csr_array((np.ones(nv), (vf, np.arange(nv))), shape=(nF, nv + 1))
    cost = np.zeros(nv + 1)
    cost[-1] = 1.0
    cost[:nv] = REGULARISER * np.bincount(var, weights=coef, minlength=nv) / nA
    b_eq = np.ones(nF)
    if orbits:  # one variable per orbit of (row, output) pairs; every constraint kept (:func:`_free_orbits`)
        vorb = _free_orbits(Fz[vf], vr)
        nO = int(vorb.max()) + 1
        P = sparse.csr_array((np.ones(nv + 1), (np.arange(nv + 1), np.append(vorb, nO))), shape=(nv + 1, nO + 1))
        A_ub, A_eq = (A_ub @ P).tocsr(), (A_eq @ P).tocsr()
        # one equality per orbit of rows: the rows of an orbit give the same equality over the orbit variables
        A_eq, keep = _unique_rows(A_eq)
        b_eq = b_eq[keep]
        cost = np.append(np.bincount(vorb, weights=cost[:nv], minlength=nO), 1.0)
    res = linprog(cost, A_ub=A_ub, b_ub=-b, A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if res.status != 0:
        raise InputError(f"the corner remap's LP failed: {res.message}")
    x = np.clip(res.x[:-1][vorb] if orbits else res.x[:-1], 0.0, None)
    x[x < 1e-12] = 0.0
    T = np.zeros((nF, J))
    T[vf, vj] = x
    T /= T.sum(axis=1, keepdims=True)
    order = np.argsort(-T, axis=1, kind="stable")[:, : int(max(1, (T > 0).sum(axis=1).max()))]
    pF = np.take_along_axis(T, order, axis=1)
    oF = np.take_along_axis(cand, order[..., None], axis=1)
    oF = np.where((pF > 0)[..., None], oF, oF[:, :1, :])  # padding: the row's first output
    lam = np.clip(-res.ineqlin.marginals, 0.0, None)
    cert = {"lp": float(res.x[-1]), "depth": int(depth), "inner": W1, "W": W, "n_ref": n0, "variables": nv,
            "constraints": nA, "free_rows": nF, "fixed_rows": len(Gz), "entries": len(coef), "lower": float("nan")}
    return AnyCornerRemap(a=a, n=n0, n_ref=n0, epsilon=eps, depth=int(depth), inner=W1, W=W, shift=shift,
                          points=Fz, keys=fkeys, outputs=oF, probs=pF, corner=np.argmax(Fz, axis=1),
                          certificate=cert, duals=(A, lam))


def corner_remap_any(prior: ArrayLike, n: int, epsilon: float, depth: int | None = None, inner: int | None = None,
                     certify: bool = False, edges: bool | None = None, orbits: bool | None = None
                     ) -> AnyCornerRemap:
    """The corner remap at (prior, n, eps), k >= 4 (module docstring), with its certificate at ``n`` if
    ``certify``: ``certificate["lp"]`` the LP's ``t`` at ``n_ref`` (the kernel cut at ``W``), ``["lower"]`` at most
    the best worst case over every remap of the release.  ``edges``: with the edge table where the release uses it
    (None, :func:`uses_edges`), wherever :func:`edge_top_any` allows it (True; not the release's law past
    :data:`EDGE_WORST_SECONDS`), or never (False).  ``orbits``: the joint LP by orbits (:func:`_lp_orbits`) as the
    release solves it (None, :func:`edge_orbits`; without an edge table :func:`corner_orbits`), always (True, a
    symmetric prior only) or never (False)."""
    a = _validate.prior(prior)
    if a.size < 4:
        raise InputError("the k >= 4 corner remap needs k >= 4 (k = 3: lattice.corners)")
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    depth = default_depth(eps) if depth is None else _validate.integer(depth, "depth", 0)
    inner = inner_radius(eps) if inner is None else _validate.integer(inner, "inner", 0)
    sym = symmetric_prior(a)
    if orbits and not sym:
        raise InputError("the corner remap's LP by orbits needs a symmetric prior")
    top = uses_edges(n, a.size, eps, sym) if edges is None else edge_top_any(eps) if edges else 0
    if orbits is None:
        orbits = edge_orbits(n, a.size, eps, sym) if top else corner_orbits(n, a.size, eps, sym)
    remap = _at(solve_any(a, min(n, reference_n(eps, a.size, depth)), eps, depth, inner, top, orbits), n)
    if certify:
        remap.certificate["lower"] = certify_any(remap)
    return remap


def _at(remap: AnyCornerRemap, n: int) -> AnyCornerRemap:
    from dataclasses import replace

    return replace(remap, n=int(n), certificate=dict(remap.certificate))


@lru_cache(maxsize=4)
def cached_corner_remap_any(a: tuple, n: int, epsilon: float) -> AnyCornerRemap:
    """:func:`corner_remap_any` at its defaults per public inputs (cached: the draws and the errors read one table)."""
    eps = float(epsilon)
    depth = default_depth(eps)
    sym = symmetric_prior(a)
    top = uses_edges(int(n), len(a), eps, sym)
    orbits = edge_orbits(int(n), len(a), eps, sym) if top else corner_orbits(int(n), len(a), eps, sym)
    return _at(solve_any(np.asarray(a, dtype=np.float64), min(int(n), reference_n(eps, len(a), depth)), eps, depth,
                         inner_radius(eps), top, orbits), int(n))


def block_duals_any(a: NDArray[np.float64], n: int, eps: float, depth: int, W: int
                    ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Weights for the certificate from the corner block's own LP (as :func:`.corners.block_duals`, outputs within
    :data:`R_RADIUS`): ``min t`` s.t. ``E(c) <= t`` for the data sets ``C0`` within ``depth`` of a vertex, every row
    within ``W`` of ``C0`` free, the kernel cut at ``W``.  Only the weights are used (any weights certify)."""
    from .corners import block_duals

    return block_duals(a, n, eps, depth, r_radius=R_RADIUS, W=W)


def _rows_near(k: int, m: int, reach: int) -> int:
    """Lattice points within ``reach`` of the data sets within ``m`` of one vertex ``j``, counted in closed form: the
    distance from ``z`` to those data sets is ``max(N, P - m)`` with ``N``, ``P`` the sums of the negative and positive
    parts of ``z`` off ``j``, so the count is ``sum_s C(k-1, s) C(reach, s) C(m + reach + k-1-s, k-1-s)`` over the
    ``s`` negative coordinates."""
    return sum(math.comb(k - 1, s) * math.comb(reach, s) * math.comb(m + reach + k - 1 - s, k - 1 - s)
               for s in range(k))


def certificate_sizes_any(n: int, k: int, epsilon: float, block_depth: int, depth: int | None = None) -> dict:
    """The certificate's sizes (:func:`certify_any` at corner block ``block_depth``, the remap's ``depth``) from public
    n, k, eps in closed form (no set built): ``entries`` of the block LP (``|C0| |ball(W)| |ball(R_RADIUS)|``, an upper
    end), and for each of its two weightings the product :func:`.corners.certified_lower` forms, ``rows x data sets x
    outputs`` (``products``, ``losses``: data sets x outputs; ``cells``: the largest table, rows x (data sets +
    outputs))."""
    eps = float(epsilon)
    depth = default_depth(eps) if depth is None else int(depth)
    W, reach = radius_for(k, eps, CERT_LP_TOL), radius_for(k, eps, CERT_TOL)
    total = math.comb(n + k - 1, k - 1)

    def near(m: int) -> int:
        return min(k * math.comb(m + k - 1, k - 1), total)

    def ball(r: int) -> int:
        return sum(sphere_count(k, t) for t in range(r + 1))

    products = losses = cells = 0
    for m in (min(depth, n), min(int(block_depth), n)):
        rows = min(k * _rows_near(k, m, reach), math.comb(n + k * reach + k - 1, k - 1))
        products += rows * near(m) * near(m + reach)
        losses += near(m) * near(m + reach)
        cells = max(cells, rows * (near(m) + near(m + reach)))
    return {"block": near(int(block_depth)), "entries": near(int(block_depth)) * ball(W) * ball(R_RADIUS),
            "products": products, "losses": losses, "cells": cells}


def plan_certify_any(n: int, k: int, epsilon: float, block_depth: int | None = None,
                     seconds: float = CERT_SECONDS) -> tuple[Plan, int]:
    """The plan of :func:`certify_any` and its corner block's depth: ``block_depth`` if given, else the deepest (at
    most ``n`` and :data:`MAX_CERT_DEPTH`, at least 1) whose estimated seconds fit ``seconds``; the block LP
    (:data:`CERT_LP_SECONDS`) and the two products (:data:`CERT_PRODUCT_SECONDS`), held to
    ``DPPOSTERIOR_MAX_SOLVE_SECONDS`` and ``DPPOSTERIOR_MEMORY_GB`` by :func:`~dpposterior.limits.admit`.  Public
    inputs only (n, k, eps)."""
    eps = float(epsilon)
    what = f"the k >= 4 corner release's certificate for k={k}, n={n}, eps={eps:g}"

    def plan(d: int) -> Plan:
        size = certificate_sizes_any(n, k, eps, d)
        c0, c1, power = CERT_LP_SECONDS
        secs = (c0 + c1 * float(size["entries"]) ** power + CERT_PRODUCT_SECONDS[0] * size["products"]
                + CERT_PRODUCT_SECONDS[1] * size["losses"])
        # the LP, or certified_lower's tables in blocks of rows (each at most CERTIFY_CELLS, a few copies at once)
        memory = max(CERT_LP_BYTES * size["entries"], 24.0 * min(size["cells"], CERTIFY_CELLS)) + 64.0 * 2**20
        return Plan(task=Task.ERRORS, route=f"corner block, depth {d}", what=what, seconds=secs, memory_bytes=memory,
                    costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", secs),), advice="use a larger eps or a smaller block")

    if block_depth is not None:
        return plan(int(block_depth)), int(block_depth)
    best = (plan(1), 1)
    for d in range(2, max(1, min(int(n), MAX_CERT_DEPTH)) + 1):
        p = plan(d)
        if p.seconds > seconds:
            break
        best = (p, d)
    return best


def certify_any(remap: AnyCornerRemap, block_depth: int | None = None, reach: int | None = None) -> float:
    """The certified lower bound at the remap's ``n`` (:func:`.corners.certified_lower`; module docstring): the
    largest over the LP's duals restricted to the data sets within ``depth`` of a vertex (translated from ``n_ref``)
    and the corner block's own duals (:func:`block_duals_any` at depth ``block_depth``, its kernel cut at
    ``radius_for(k, eps, CERT_LP_TOL)``; default the deepest block whose plan fits :data:`CERT_SECONDS`,
    :func:`plan_certify_any`, which is admitted first: a one-line :class:`~dpposterior.errors.SizeError` past the
    limits).  ``reach`` (default ``radius_for(k, eps, CERT_TOL)``): the rows kept within it of the weighted data sets
    (the rest dropped: their terms are >= 0) and the outputs enumerated within ``depth + reach`` of a vertex.
    Any weights certify, so the solver's duals need no tolerance.  Where :func:`plan_certify_simplex_any` fits
    :data:`SIMPLEX_CERT_SECONDS` and the limits (public n, k, eps), also :func:`certify_simplex_any`'s bound."""
    k, n = remap.a.size, remap.n
    plan, block_depth = plan_certify_any(n, k, remap.epsilon, block_depth)
    admit(plan)
    reach = radius_for(k, remap.epsilon, CERT_TOL) if reach is None else int(reach)
    A, lam = remap.duals
    A = A.copy()
    A[np.arange(len(A)), np.argmax(A, axis=1)] += n - remap.n_ref
    choices = [(A, lam, (lam > 0) & (n - A.max(axis=1) <= remap.depth))]
    C0, lam0 = block_duals_any(remap.a, n, remap.epsilon, block_depth, radius_for(k, remap.epsilon, CERT_LP_TOL))
    choices.append((C0, lam0, lam0 > 0))
    best = 0.0
    for pts, weights, sel in choices:
        if not sel.any():
            continue
        C, w = pts[sel], weights[sel]
        depth = int((n - C.max(axis=1)).max())
        Fz, _ = _union(C, _ball(k, reach), reach)
        best = max(best, certified_lower(remap.a, n, remap.epsilon, C, np.argmax(C, axis=1), Fz, w, depth, reach))
    # and, where its plan fits its own share and the limits (small n), the weights on every data set of R(n)
    simplex, steps = plan_certify_simplex_any(n, k, remap.epsilon)
    if simplex.seconds <= SIMPLEX_CERT_SECONDS and simplex.fits:
        best = max(best, certify_simplex_any(remap.a, n, remap.epsilon, steps))
    return best


def rest_window_outputs(a: NDArray[np.float64], n: int, eps: float, We: int, max_fallback: int | None = None,
                        stats: dict | None = None, orbits: bool = True) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(window(n, k, We), B(project(z)))`` at each of its points: the batched local search over R(n), read at
    each point's projection; ``orbits`` (at a symmetric prior): one search per orbit of R(n) under the permutations
    of the categories (:func:`.batched._orbit_search`, the same outputs: its proof there)."""
    from .batched import local_search_batch

    k = a.size
    R = candidates(n, k)
    out = local_search_batch(a, n, eps, R, max_fallback=max_fallback, stats=stats, orbits=orbits)
    Zw = window(n, k, We)
    return Zw, out[candidate_rank(project(Zw, n))]


def near_data_sets(points: NDArray[np.int64], offsets: NDArray[np.int64]) -> NDArray[np.int64]:
    """The ranks in R(n) (:func:`~dpposterior.models.candidate_rank`, sorted) of the data sets ``p + w >= 0``, ``p`` a
    row of ``points`` (summing to n), ``w`` of ``offsets``: built in blocks of points, so the ``(points x offsets)``
    table is never whole (k = 4, eps = 0.5: 1,144 points x 175,825 offsets would be 6.4 GB of int64)."""
    k = points.shape[1]
    keys = np.zeros(0, dtype=np.int64)
    step = max(1, BLOCK_ENTRIES // max(1, len(offsets)))
    for lo in range(0, len(points), step):
        z = (points[lo:lo + step, None, :] + offsets[None, :, :]).reshape(-1, k)
        keys = np.union1d(keys, candidate_rank(z[np.all(z >= 0, axis=1)]))
    return keys


def table_loss(a: NDArray[np.float64], n: int, R: NDArray[np.int64]):
    """``L(c, r) = H(Dir(a + c), Dir(a + r))`` (the Hellinger loss, docs/definitions.md §2) for arrays of data sets
    ``c`` and outputs ``r`` of R(n) (last axis k), from :class:`.scale._LossTables`' per-coordinate log-BC tables
    added in coordinate order: the closure the offset sums over R(n) share."""
    from .scale import _LossTables

    tables = _LossTables(a, n, R).tables
    n1, k = n + 1, np.asarray(a).size

    def loss(c, r):
        lb = tables[0][c[..., 0] * n1 + r[..., 0]]
        for i in range(1, k):
            lb = lb + tables[i][c[..., i] * n1 + r[..., i]]
        return hellinger_from_log_bc(lb, out=lb)

    return loss


def offset_weights(k: int, eps: float, We: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The offsets ``w`` with ``d(w) <= We`` and their lattice-noise probabilities ``K(w) = exp(-eps d(w)) / Z``
    (:mod:`.noise`, docs/lattice.md), as the offset sums over R(n) read them."""
    offs = _ball(k, int(We))
    return offs, np.exp(-eps * (np.abs(offs).sum(axis=1) // 2) - log_normaliser(k, eps))


def corner_errors_any(remap: AnyCornerRemap, We: int, max_fallback: int | None = None, orbits: bool = True,
                      delta: bool = True, orbit_sums: bool | None = None, stats: dict | None = None):
    """``E(c)`` of the corner release (k >= 4) for every c of R(n), as a :class:`.scale.Bracket` ``low <= E <= low +
    tail_bound(k, eps, We)`` (module docstring): the rest's window errors (:func:`.batched.window_errors_any`), then
    the tables' rows.  ``orbits``: the rest's search one point per orbit at a symmetric prior
    (:func:`rest_window_outputs`; the same outputs, so the same floats).

    ``delta`` (default): only the terms at the tables' rows are added, as differences
    (:func:`_table_deltas`): ``E(c) = E_rest(c) + sum_{w : c + w a table row} K(w) (sum_r T(c + w, r) L(c, r) -
    L(c, B(project(c + w))))``, the same sum as ``E(c) = sum_w K(w) sum_r T(c + w, r) L(c, r)`` term by term (the
    rest's sum holds every term once, with the rest's output at the table's rows too), its terms in another order
    (so equal up to float rounding: at most a few ulps of a sum of at most ``|ball(We)|`` terms each in [0, 1]).
    Its terms: the table rows in the window times their offsets inside R(n) (Dir(1,1,1,1), eps = 1, n = 50: 4.4e7
    against 5.8e8 for every data set near the tables).  ``delta=False``: every c whose ball meets the tables' rows
    recomputed term by term, its whole sum in offset order (the route before).

    ``orbit_sums`` (None: :func:`orbit_sum`, public inputs): with ``delta``, the rest's sum by orbits
    (:func:`orbit_rest_errors`: the same sum, its additions in another order) instead of
    :func:`.batched.window_errors_any`; ``stats`` receives its counts."""
    from .batched import window_errors_any
    from .scale import Bracket

    a, n, eps, k = remap.a, remap.n, remap.epsilon, remap.a.size
    Zw, rest = rest_window_outputs(a, n, eps, int(We), max_fallback, orbits=orbits)
    R = candidates(n, k)
    offs, wts = offset_weights(k, eps, int(We))
    loss = table_loss(a, n, R)

    We = int(We)
    win_rows = remap.rows(Zw)
    # the edge table's rows among the window's points off the corner table, looked up once per point (not once per
    # term): ``win_edge[i]`` their index in ``edge_out`` / ``edge_p`` (the same outputs and probabilities a per-term
    # lookup reads), -1 elsewhere
    win_edge = np.full(len(Zw), -1, dtype=np.int64)
    edge_out = edge_p = None
    if remap.edges is not None:
        free = np.flatnonzero(win_rows < 0)
        ee, eu, eo = remap.edges.lookup(Zw[free])
        sel = ee >= 0
        win_edge[free[sel]] = np.arange(int(sel.sum()))
        edge_out = remap.edges.outputs(Zw[free[sel]], ee[sel], eu[sel], eo[sel])
        edge_p = remap.edges.probs[ee[sel], eu[sel]]
    if orbit_sums is None:
        orbit_sums = orbit_sum(n, k, eps, We, symmetric_prior(a))
    if delta and orbit_sums:
        low = orbit_rest_errors(a, n, eps, Zw, rest, We, stats)
    elif delta:
        low = window_errors_any(a, n, eps, rest, We).low.copy()
    if delta:
        on = np.flatnonzero(win_rows >= 0)
        ro = remap.row_outputs(win_rows[on])
        _table_deltas(low, Zw[on], ro, remap.probs[win_rows[on]], rest[on], offs, wts, loss)
        if edge_out is not None:
            ie = np.flatnonzero(win_edge >= 0)
            _table_deltas(low, Zw[ie], edge_out[win_edge[ie]], edge_p[win_edge[ie]], rest[ie], offs, wts, loss)
        return Bracket(R, low, float(tail_bound(k, eps, We)), len(offs))

    pts = remap.points.copy()
    pts[np.arange(len(pts)), remap.corner] += n - remap.n_ref
    ai = near_data_sets(pts, offs)
    if remap.edges is not None:  # and every c whose ball meets an edge row: its k - 2 smaller counts within top + We
        near_edge = np.sort(R, axis=1)[:, k - 3] <= remap.edges.top + We
        ai = np.union1d(ai, candidate_rank(R[near_edge]))
    A = _unrank(ai, n, k)
    # the rest's sum only where some data set is not recomputed (a recomputed E(c) is its whole sum)
    low = window_errors_any(a, n, eps, rest, We).low if len(ai) < len(R) else np.zeros(len(R))
    # every z = c + w lies in the window (each |w_i| <= d(w)): its key there (the rest's index) read off a grid of
    # its first k - 1 coordinates, linear in z, so a block's keys are an outer sum of its data sets' and offsets'
    side = n + k * We + 1
    stride = side ** np.arange(k - 2, -1, -1, dtype=np.int64)
    grid = np.zeros(side ** (k - 1), dtype=np.int64)
    grid[(Zw[:, :-1] + We) @ stride] = np.arange(len(Zw))
    off_lin = offs[:, :-1] @ stride
    step = max(1, BLOCK_ENTRIES // len(offs))
    for lo in range(0, len(A), step):
        # one block of data sets against every offset at once, offset-major: ``term[w, c]`` the inner sum at
        # ``z = c + w``; the sum over offsets then runs down the rows in offset order (a reduction over the outer
        # axis adds row after row), the same additions in the same order as one offset at a time
        c = A[lo:lo + step]
        key = grid[off_lin[:, None] + ((c[:, :-1] + We) @ stride)[None, :]].reshape(-1)
        ci = np.broadcast_to(np.arange(len(c)), (len(offs), len(c))).reshape(-1)
        f = win_rows[key]
        on = f >= 0
        term = np.empty(len(key))
        off = ~on
        if edge_out is not None and off.any():  # the edge table's rows, off the corner table
            m = win_edge[key]
            ie = np.flatnonzero(off & (m >= 0))
            if ie.size:
                ro = edge_out[m[ie]]
                term[ie] = (edge_p[m[ie]] * loss(np.broadcast_to(c[ci[ie]][:, None, :], ro.shape), ro)).sum(axis=1)
                off[ie] = False
        if off.any():
            term[off] = loss(c[ci[off]], rest[key[off]])
        if on.any():
            fo = f[on]
            ro = remap.row_outputs(fo)
            term[on] = (remap.probs[fo] * loss(np.broadcast_to(c[ci[on]][:, None, :], ro.shape), ro)).sum(axis=1)
        term = term.reshape(len(offs), len(c))
        term *= wts[:, None]
        low[ai[lo:lo + step]] = np.add.reduce(term, axis=0)
    return Bracket(R, low, float(tail_bound(k, eps, We)), len(offs))


def _table_deltas(low: NDArray[np.float64], Z: NDArray[np.int64], outs: NDArray[np.int64], probs: NDArray[np.float64],
                  rest: NDArray[np.int64], offs: NDArray[np.int64], wts: NDArray[np.float64], loss) -> int:
    """Add to ``low`` (indexed by :func:`~dpposterior.models.candidate_rank` over R(n)) every term of the table rows
    ``Z`` (outputs ``outs[m, j]`` with ``probs[m, j]``, the rest's output ``rest[m]`` there): for each row ``z`` and
    offset ``w`` with ``c = z - w`` in R(n) (``z`` sums to n, so ``c >= 0`` suffices), ``K(w) (sum_j p_j L(c, o_j) -
    L(c, rest))``.  Only a row's outputs of positive probability are evaluated (a vertex of the LP has few).  Returns
    the number of (row, offset) terms."""
    if not len(Z):
        return 0
    width = int(max(1, (probs > 0).sum(axis=1).max()))
    order = np.argsort(-probs, axis=1, kind="stable")[:, :width]
    probs = np.take_along_axis(probs, order, axis=1)
    outs = np.take_along_axis(outs, order[..., None], axis=1)
    count = 0
    k = Z.shape[1]
    n = int(Z[0].sum())
    # a data set's rank read off a grid of its first k - 1 counts (base n + 1), linear in c: c = z - w gives
    # key(z) - key(w) wherever c >= 0
    stride = (n + 1) ** np.arange(k - 2, -1, -1, dtype=np.int64)
    R = candidates(n, k)
    rank = np.zeros((n + 1) ** (k - 1), dtype=np.int64)
    rank[R[:, :-1] @ stride] = np.arange(len(R))
    zkey, wkey = Z[:, :-1] @ stride, offs[:, :-1] @ stride
    step = max(1, BLOCK_ENTRIES // len(offs))
    for lo in range(0, len(Z), step):
        z = Z[lo:lo + step]
        ok = offs[None, :, 0] <= z[:, None, 0]
        for i in range(1, k):
            ok &= offs[None, :, i] <= z[:, None, i]
        zi, wi = np.nonzero(ok)
        if not len(zi):
            continue
        zi = zi + lo
        cc = Z[zi] - offs[wi]
        count += len(zi)
        d = -loss(cc, rest[zi])
        for j in range(width):  # the outputs of positive probability, column by column (padding has p = 0)
            pj = probs[zi, j]
            has = pj > 0
            if has.any():
                d[has] += pj[has] * loss(cc[has], outs[zi[has], j])
        low += np.bincount(rank[zkey[zi] - wkey[wi]], weights=wts[wi] * d, minlength=len(low))
    return count


#: The rest's offset sum runs by orbits (:func:`orbit_rest_errors`) at a symmetric prior where the sum over R(n) has
#: more (data set, offset) terms than this: the old sum's terms past the default pair budget (4e8 evaluations at
#: ``PAIRS_PER_SECOND`` 1e7 and ``LOCAL_SUM_SECONDS`` 2.25e-8 per term: 1.78e9 terms), so that every cell the default
#: limits admitted before keeps its route and its floats (Dir(1,1,1,1), eps = 1: from n = 73; eps = 2, n = 100:
#: 5.1e8).
ORBIT_SUM_TERMS = 1.78e9


#: ... and from this eps only, where its plan's count of the terms at non-equivariant points was measured (below it
#: the ties are more: Dir(1,1,1,1), eps = 0.75, n = 50, 10.4 n^1.5 |ball| terms against 4.4-4.9 at eps = 1).
ORBIT_SUM_MIN_EPSILON = 1.0


def orbit_sum(n: int, k: int, epsilon: float, We: int, symmetric: bool) -> bool:
    """Whether :func:`corner_errors_any` sums the rest's errors by orbits (:func:`orbit_rest_errors`): a symmetric
    prior, eps from :data:`ORBIT_SUM_MIN_EPSILON` and more than :data:`ORBIT_SUM_TERMS` terms ``|R(n)| x
    |ball(We)|``; public inputs only."""
    offsets = sum(sphere_count(k, t) for t in range(int(We) + 1))
    return (bool(symmetric) and float(epsilon) >= ORBIT_SUM_MIN_EPSILON
            and math.comb(int(n) + k - 1, k - 1) * offsets > ORBIT_SUM_TERMS)


def sorted_data_sets(n: int, k: int) -> int:
    """``|{c in R(n) : c_1 >= ... >= c_k}|``: the partitions of n into at most k parts (one per orbit of R(n)),
    ``p(m, j) = p(m, j - 1) + p(m - j, j)``."""
    p = np.zeros(int(n) + 1, dtype=np.int64)
    p[0] = 1
    for j in range(1, int(k) + 1):
        for m in range(j, int(n) + 1):
            p[m] += p[m - j]
    return int(p[int(n)])


def equivariant_points(Zw: NDArray[np.int64], outputs: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Over the points ``z`` of a permutation-closed set ``Zw`` with a deterministic map ``z -> outputs[z]``: True
    where the whole orbit of ``z`` under the permutations ``s`` of the categories is mapped equivariantly
    (``out(s z') = s out(z')`` for every ``s`` and every ``z'`` of the orbit).

    Proof of the check.  Write each ``z`` as ``z = s_z(u)``, ``u`` its decreasing sort, ``s_z`` the stable sort's
    permutation, and ``v_z = s_z^-1(out(z))``.  The orbit is called equivariant here iff ``v_z`` is the same ``v`` for
    all its points and ``v_i = v_j`` wherever ``u_i = u_j``.  Then for any ``s`` and ``z``: ``s z = s_{sz}(u)`` and
    ``s s_z(u) = s_{sz}(u)``, so ``g = s_{sz}^-1 s s_z`` fixes ``u``, so it permutes only equal coordinates of
    ``u``, which ``v`` shares, so ``g v = v`` and ``out(s z) = s_{sz}(v) = s s_z(v) = s out(z)``.  (Conversely an
    equivariant orbit passes: ``u`` is a point of it.)"""
    k = Zw.shape[1]
    perm = np.argsort(-Zw, axis=1, kind="stable")
    U = np.take_along_axis(Zw, perm, axis=1)
    V = np.take_along_axis(outputs, perm, axis=1)
    _, first, uid = np.unique(U, axis=0, return_index=True, return_inverse=True)
    uid = uid.reshape(-1)
    broken = np.any(V != V[first[uid]], axis=1)
    for i in range(k - 1):  # u sorted: equal coordinates are adjacent
        broken |= (U[:, i] == U[:, i + 1]) & (V[:, i] != V[:, i + 1])
    bad = np.zeros(len(first), dtype=bool)
    np.logical_or.at(bad, uid, broken)
    return ~bad[uid]


def _point_sums(Z: NDArray[np.int64], outs: NDArray[np.int64], offs: NDArray[np.int64], wts: NDArray[np.float64],
                loss, n: int, size: int) -> tuple[NDArray[np.float64], int]:
    """``S(c) = sum K(w) L(c, outs[z])`` over the points ``z`` of ``Z`` (each summing to n) and the offsets ``w``
    (``offs``, lexicographic, a permutation-closed ball; ``wts`` their kernel) with ``c = z - w`` in R(n), for every
    c (indexed by :func:`~dpposterior.models.candidate_rank`); and the number of (point, offset) terms.

    ``loss(c, r)`` must be symmetric (``loss(s c, s r) = loss(c, r)``: a symmetric prior).  ``z - w >= 0`` iff
    ``y - v >= 0`` for ``y = s z`` (``z`` sorted increasing) and ``v = s w``, a bijection of the ball keeping ``K``,
    so each point reads the offsets ``v <= y``: those with ``v_1 <= y_1 = min z`` are a prefix of the lexicographic
    ball, and the points are taken in groups of equal ``(y_1, y_2)`` against the offsets with ``v_1 <= y_1``, ``v_2
    <= y_2``; ``c = s^-1 (y - v)`` and its loss ``loss(y - v, s r)``.  Needs k >= 3."""
    k = offs.shape[1]
    S = np.zeros(size)
    if not len(Z):
        return S, 0
    stride = (n + 1) ** np.arange(k - 2, -1, -1, dtype=np.int64)
    R = candidates(n, k)
    rank = np.zeros((n + 1) ** (k - 1), dtype=np.int64)
    rank[R[:, :-1] @ stride] = np.arange(len(R))
    order = np.argsort(Z, axis=1, kind="stable")
    Y = np.take_along_axis(Z, order, axis=1)
    by = np.lexsort((Y[:, 1], Y[:, 0]))
    Z, outs, order, Y = Z[by], outs[by], order[by], Y[by]
    # in the sorted frame: the outputs ``s r`` (``loss`` is symmetric: one table for every category) and each
    # coordinate's stride, so that the rank's key of ``c = s^-1 (y - v)`` is ``key(z) - sum_j v_j stride_{s^-1 j}``
    rr = np.take_along_axis(outs, order, axis=1)
    sk = np.append(stride, 0)[order]
    kz = Z[:, :-1] @ stride
    # the points in groups of equal (y_1, y_2); each group reads the offsets with v_1 <= y_1 and v_2 <= y_2
    starts = np.flatnonzero(np.r_[True, np.any(Y[1:, :2] != Y[:-1, :2], axis=1)])
    ends = np.r_[starts[1:], len(Y)]
    count = 0
    for lo, hi in zip(starts.tolist(), ends.tolist()):
        sel = np.flatnonzero((offs[:, 0] <= Y[lo, 0]) & (offs[:, 1] <= Y[lo, 1]))
        if not len(sel):
            continue
        osel = offs[sel]
        step = max(1, BLOCK_ENTRIES // len(sel))
        for b0 in range(lo, hi, step):
            y = Y[b0:min(hi, b0 + step)]
            ok = osel[None, :, 2] <= y[:, None, 2]
            for i in range(3, k):
                ok &= osel[None, :, i] <= y[:, None, i]
            zi, wj = np.nonzero(ok)
            if not len(zi):
                continue
            zi = zi + b0
            wi = sel[wj]
            count += len(zi)
            key = kz[zi]
            for j in range(k):
                key -= offs[wi, j] * sk[zi, j]
            S += np.bincount(rank[key], weights=wts[wi] * loss(Y[zi] - offs[wi], rr[zi]), minlength=size)
    return S, count


def orbit_rest_errors(a: NDArray[np.float64], n: int, eps: float, Zw: NDArray[np.int64], rest: NDArray[np.int64],
                      We: int, stats: dict | None = None) -> NDArray[np.float64]:
    """``E(c) = sum_{d(w) <= We} K(w) L(c, rest(c + w))`` for every c of R(n) (the rest's sum of
    :func:`.batched.window_errors_any`, ``rest`` given at every point of ``Zw = window(n, k, We)``) at a symmetric
    prior, by orbits: the whole sum at one data set per orbit (its decreasing sort), the terms at the non-equivariant
    points (:func:`equivariant_points`) added at every data set.

    Proof.  Let ``B`` be the window's points whose orbit is not equivariant (a union of orbits) and split
    ``E(c) = E_G(c) + E_B(c)`` by whether ``c + w`` lies in ``B``.  For a permutation ``s``: the kernel depends on
    ``d(w) = d(s w)``, the ball and the window are permutation-closed, ``s(c + w)`` is in ``B`` iff ``c + w`` is,
    ``rest(s z) = s rest(z)`` off ``B`` and ``L(s c, s r) = L(c, r)`` at a symmetric prior, so substituting ``w -> s
    w`` gives ``E_G(s c) = E_G(c)``.  Hence ``E(c) = E(u) - E_B(u) + E_B(c)``, ``u`` the sort of c, every term
    computed exactly: ``E(u)`` summed over every offset, ``E_B`` over the points of ``B`` and their offsets
    (:func:`_point_sums`).  The floats differ from the direct sum only in the order of additions and in ``E_B(u)``
    taken away (each a sum of at most ``|ball(We)|`` terms in [0, 1]: a few ulps of 1 times that count, far below the
    bracket's tail).  ``stats``: the counts (sorted data sets, points of B, their terms)."""

    k = a.size
    We = int(We)
    R = candidates(n, k)
    offs, wts = offset_weights(k, eps, We)
    loss = table_loss(a, n, R)

    bad = ~equivariant_points(Zw, rest)
    EB, terms = _point_sums(Zw[bad], rest[bad], offs, wts, loss, n, len(R))
    srt = np.all(R[:, :-1] >= R[:, 1:], axis=1)
    U = R[srt]
    # the whole sum at the sorted data sets, a block of them against every offset (offset-major, summed in offset
    # order); every c + w lies in the window, its index read off a grid of its first k - 1 coordinates
    side = n + k * We + 1
    stride = side ** np.arange(k - 2, -1, -1, dtype=np.int64)
    grid = np.zeros(side ** (k - 1), dtype=np.int64)
    grid[(Zw[:, :-1] + We) @ stride] = np.arange(len(Zw))
    off_lin = offs[:, :-1] @ stride
    EU = np.empty(len(U))
    step = max(1, BLOCK_ENTRIES // len(offs))
    for lo in range(0, len(U), step):
        c = U[lo:lo + step]
        key = grid[off_lin[:, None] + ((c[:, :-1] + We) @ stride)[None, :]]
        term = loss(np.broadcast_to(c[None, :, :], key.shape + (k,)), rest[key])
        term *= wts[:, None]
        EU[lo:lo + step] = np.add.reduce(term, axis=0)
    urank = candidate_rank(U)
    base = np.zeros(len(R))
    base[urank] = EU - EB[urank]
    if stats is not None:
        stats.update(sorted=len(U), broken=int(bad.sum()), broken_terms=terms)
    return base[candidate_rank(-np.sort(-R, axis=1))] + EB


#: The share of a table row's offsets ``w`` (``d(w) <= We``) with ``z - w`` in R(n), the terms :func:`_table_deltas`
#: evaluates (an upper end: the rows lie near the faces, so most of their ball leaves R(n)).  Counted at Dir(1,1,1,1),
#: eps = 1, We = 19 (the corner and edge tables' rows in the window): n = 20, 30, 50, 100: 0.068, 0.131, 0.180, 0.215.
DELTA_SHARE = 0.25


def table_rows(n: int, k: int, epsilon: float, top: int) -> int:
    """The tables' rows at n (an upper end in closed form, public inputs): the corner table's free rows
    (:func:`_free_rows`), and with an edge table (``top > 0``) for each pair of categories and each value of the
    ``k - 2`` small counts in ``[-EDGE_LOW, top]`` the splits of the rest ``m <= n + (k - 2) EDGE_LOW`` into two counts
    ``>= top + 1`` (``m - 2 (top + 1) + 1``).  Dir(1,1,1,1), eps = 1: n = 50, 11,296 against 9,796 in the window."""
    rows = _free_rows(n, k, float(epsilon))
    if top:
        side = int(top) + EDGE_LOW + 1
        rows += math.comb(k, 2) * side ** (k - 2) * max(0, int(n) + (k - 2) * EDGE_LOW - 2 * (int(top) + 1) + 1)
    return rows


def delta_terms(n: int, k: int, epsilon: float, We: int, top: int) -> float:
    """The (row, offset) terms :func:`corner_errors_any` adds at the tables' rows (``delta``), an upper end from public
    inputs: :func:`table_rows` x ``|ball(We)|`` x :data:`DELTA_SHARE` (Dir(1,1,1,1), eps = 1, n = 50: 7.0e7 against
    4.4e7 counted)."""
    offsets = sum(sphere_count(k, t) for t in range(int(We) + 1))
    return DELTA_SHARE * table_rows(n, k, epsilon, top) * offsets


def _free_rows(n: int, k: int, eps: float) -> int:
    """The corner table's free rows at (n, k, eps), an upper end in closed form (:func:`corner_sizes_any`)."""
    depth, W1 = default_depth(eps), inner_radius(eps)
    n0 = min(int(n), reference_n(eps, k, depth))
    W1 = min(W1, radius_for(k, eps, LP_TOL))
    return min(k * math.comb(depth + (k - 1) * W1 + k - 1, k - 1), math.comb(n0 + k * W1 + k - 1, k - 1))


def _corner_constraints(n: int, k: int, eps: float) -> int:
    """The corner LP's constrained data sets at (n, k, eps), an upper end in closed form (:func:`corner_sizes_any`)."""
    depth = default_depth(eps)
    n0 = min(int(n), reference_n(eps, k, depth))
    return min(k * math.comb(depth + radius_for(k, eps, LP_TOL) + k - 1, k - 1), math.comb(n0 + k - 1, k - 1))


def corner_entries(n: int, k: int, epsilon: float) -> float:
    """The corner LP's entries without an edge table, an upper end from public inputs: (data set, free row) pairs
    within ``W`` (``|A| |F| / k``) times the outputs per row (:func:`corner_sizes_any`'s ``pairs x outputs``)."""
    eps = float(epsilon)
    outputs = sum(sphere_count(k, t) for t in range(R_RADIUS + 1))
    return float(_free_rows(n, k, eps) * _corner_constraints(n, k, eps) // k * outputs)


#: The corner LP without an edge table runs by orbits (:func:`solve_any`, :func:`corner_orbits`) at a symmetric prior
#: where its entries (:func:`corner_entries`) pass this: Dir(1,1,1,1), eps = 0.5, n = 20 (6.6e6 entries, 1,771 data
#: sets x 8,896 variables, HiGHS's simplex 44 CPU s, the whole solve 77 s) by orbits 0.6 s and 17.7 s, its t 0.73030
#: against 0.72970, the release's worst case 0.74064 against 0.74005.  Below it (every cell the default limits
#: admitted before: at eps < 1 the plan without orbits passed 45 s from 3.0e6 entries, n = 15) the table is the one
#: solved before, bit for bit.
CORNER_ORBIT_ENTRIES = 2.5e6
#: ... and below this eps only: from eps = 1 the LP without orbits is planned without the small-eps factor and runs
#: where it fits (eps = 1, n = 30 to 100 past the edge table's share: `compare`'s k = 4 rows), so its table is kept.
CORNER_ORBIT_MAX_EPSILON = 1.0


def corner_orbits(n: int, k: int, epsilon: float, symmetric: bool) -> bool:
    """Whether the corner LP without an edge table runs by orbits (:func:`_free_orbits`): a symmetric prior (public),
    eps below :data:`CORNER_ORBIT_MAX_EPSILON` and more than :data:`CORNER_ORBIT_ENTRIES` entries
    (:func:`corner_entries`); public inputs only, so the release's law is too."""
    return (bool(symmetric) and float(epsilon) < CORNER_ORBIT_MAX_EPSILON
            and corner_entries(n, k, epsilon) > CORNER_ORBIT_ENTRIES)


def corner_sizes_any(n: int, k: int, epsilon: float, symmetric: bool = False) -> dict:
    """The k >= 4 corner LP's sizes from public n, k, eps in closed form (no set built): ``n_ref``, ``free``,
    ``constraints``, ``fixed`` rows, ``pairs`` (data set x free row within ``W``) and ``outputs`` per free row, each
    count per corner ``k C(m + k - 1, k - 1)`` for the points within ``m`` of a vertex, capped by the window.
    ``symmetric``: the prior's (public), for the edge table's joint LP by orbits (:func:`uses_edges`)."""
    eps = float(epsilon)
    depth, W1 = default_depth(eps), inner_radius(eps)
    n0 = min(int(n), reference_n(eps, k, depth))
    W = radius_for(k, eps, LP_TOL)
    W1 = min(W1, W)

    def near(m: int) -> int:
        return k * math.comb(m + k - 1, k - 1)

    free = _free_rows(n, k, eps)
    constraints = _corner_constraints(n, k, eps)
    # the fixed rows' local searches run at their distinct projections, the points of R(n_ref) within depth + 2 W
    fixed = min(near(depth + 2 * W), math.comb(n0 + k - 1, k - 1))
    edges = edge_sizes(n, k, eps) if uses_edges(n, k, eps, symmetric) else {"top": 0, "variables": 0,
                                                                             "constraints": 0}
    return {"n_ref": n0, "free": free, "fixed": fixed, "constraints": constraints,
            "pairs": free * constraints // k, "outputs": sum(sphere_count(k, t) for t in range(R_RADIUS + 1)),
            "edge_top": edges["top"], "edge_seconds": edge_seconds(n, k, eps, symmetric) if edges["top"] else 0.0,
            "edge_orbits": bool(edges["top"]) and edge_orbits(n, k, eps, symmetric),
            "corner_orbits": not edges["top"] and corner_orbits(n, k, eps, symmetric),
            "edge_bytes": edge_bytes(n, k, eps, symmetric) if edges["top"] else 0.0}


def edge_bytes(n: int, k: int, epsilon: float, symmetric: bool = False) -> float:
    """Peak bytes of the joint LP beyond the corner LP's (:data:`EDGE_LP_BYTES` per constrained data set x edge
    variable); by orbits (:func:`edge_orbits`) its columns are the orbits, ``1 / k!`` of them.  Measured by orbits at
    Dir(1,1,1,1), eps = 1, n = 50: the whole process (the solve and the errors) 470 MB resident, against ~1.0 GB the
    corner LP's term and this one plan."""
    size = edge_sizes(n, k, epsilon)
    if edge_orbits(n, k, epsilon, symmetric):
        return EDGE_LP_BYTES * size["constraints"] * size["variables"] / math.factorial(k)
    return EDGE_LP_BYTES * size["constraints"] * size["variables"]


def corner_transition_any(prior: ArrayLike, n: int, epsilon: float, Z: ArrayLike
                          ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """``T(z, .)`` of the k >= 4 corner remap (its defaults; the table ``lattice~worst`` draws from) at every row of
    ``Z``: ``(outputs (B, J, k), probs (B, J))`` (:meth:`AnyCornerRemap.transition`)."""
    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    return cached_corner_remap_any(tuple(a.tolist()), n, eps).transition(Z)


#: The joint LP with the edge table is solved where its extra estimate (:func:`edge_seconds`, public n, k, eps) fits
#: this many seconds (a constant, so the release's law depends on public inputs only); past it the corner table alone,
#: as before.  15 s leaves the corner LP's own estimate (~27 s at eps = 1, n = 20) and a padded release's eight local
#: searches within the default 45 s solve limit wherever they ran before: at eps = 1, n = 9 and 10 (n = 20 would be
#: 75 s: its draws, planned at ~105 s, would be refused by default; ``corner_remap_any(..., edges=True)`` solves it).
EDGE_WORST_SECONDS = 15.0
#: Seconds of the joint LP beyond the corner LP's: per (constrained data set x edge variable), its edge columns being
#: dense (measured CPU s, Dir(1,1,1,1), eps = 1, load 5-6, 2026-11-28: n = 10, 286 data sets: 20.5 s against 10.4 s
#: without the edge table; n = 20, 1,616 data sets: 58 s against 12.3 s; 2,592 edge variables).
EDGE_LP_SECONDS = 1.5e-5
#: Bytes of the joint LP per (constrained data set x edge variable), at its peak (measured: n = 20, eps = 1, 1.06 GB
#: with the errors' recomputation, against 0.52 GB without the edge table; n = 10, eps = 1, without orbits, the solve's
#: growth over the interpreter 410 MB against 331 MB planned at 130, 2026-11-30, ``benchmarks/corner_plans_k4.json``:
#: so 300).
EDGE_LP_BYTES = 300.0
#: The whole joint LP by orbits (a symmetric prior, :func:`_lp_orbits`; corner and edge rows, in place of the corner
#: LP's estimate and the edge part's): ``c0 + c1 x constraints x (free rows x outputs + edge variables) / k!``, the
#: constraints and variables as :func:`edge_sizes` and :func:`corner_sizes_any` count them (upper ends).  Measured CPU s,
#: Dir(1,1,1,1), eps = 1, load ~3, 2026-11-29, the whole solve (its matrices, HiGHS, the tables): n = 10, 2.1 s (286 data
#: sets, 593 orbit variables), n = 20, 8.3 s (1,616; 607), n = 50, 15.6 s (2,834; 607), against 20.5 s and 57.9 s
#: (n = 10, 20) without orbits; the fit (c1 = 7.6e-6 at n = 10, 6.0e-6 at n = 20) with a margin for load.
EDGE_ORBIT_LP_SECONDS = (0.5, 1e-5)


def edge_sizes(n: int, k: int, epsilon: float) -> dict:
    """The joint LP's edge part from public n, k, eps in closed form: ``variables`` (edges x small-count rows x outputs
    within :data:`R_RADIUS`, an upper end: outputs off R(n) are not variables), ``constraints`` (the corner LP's, plus
    the edge data sets: every edge, every small-count pair up to ``top``, every position up to ``n_ref``; at most
    ``|R(n_ref)|``)."""
    eps = float(epsilon)
    top = edge_top_any(eps)
    if top == 0:
        return {"top": 0, "variables": 0, "constraints": 0}
    depth = default_depth(eps)
    n0 = min(int(n), reference_n(eps, k, depth))
    W = radius_for(k, eps, LP_TOL)
    side = top + min(W, EDGE_LOW) + 1
    outputs = sum(sphere_count(k, t) for t in range(R_RADIUS + 1))
    corner = min(k * math.comb(depth + W + k - 1, k - 1), math.comb(n0 + k - 1, k - 1))
    edge = math.comb(k, 2) * (top + 1) ** (k - 2) * max(0, n0 - 2 * (top + 1))
    return {"top": top, "variables": math.comb(k, 2) * side ** (k - 2) * outputs,
            "constraints": min(corner + edge, math.comb(n0 + k - 1, k - 1))}


def edge_seconds(n: int, k: int, epsilon: float, symmetric: bool = False) -> float:
    """The joint LP's seconds beyond the corner LP's (:data:`EDGE_LP_SECONDS`), 0 without an edge table; by orbits
    where :func:`edge_orbits` the whole joint LP's (:data:`EDGE_ORBIT_LP_SECONDS`; the corner LP's estimate is then
    not counted, :func:`corner_sizes_any`'s ``edge_orbits``)."""
    size = edge_sizes(n, k, epsilon)
    if edge_orbits(n, k, epsilon, symmetric):
        free = _free_rows(n, k, float(epsilon)) * sum(sphere_count(k, t) for t in range(R_RADIUS + 1))
        c0, c1 = EDGE_ORBIT_LP_SECONDS
        return c0 + c1 * size["constraints"] * (free + size["variables"]) / math.factorial(k)
    return EDGE_LP_SECONDS * size["constraints"] * size["variables"]


def edge_orbits(n: int, k: int, epsilon: float, symmetric: bool) -> bool:
    """Whether the joint LP runs by orbits (:func:`_lp_orbits`): a symmetric prior (public), where the LP without
    orbits is over :data:`EDGE_WORST_SECONDS` (where it fits, the table is the one solved before, bit for bit)."""
    size = edge_sizes(n, k, epsilon)
    return bool(symmetric) and EDGE_LP_SECONDS * size["constraints"] * size["variables"] > EDGE_WORST_SECONDS


def uses_edges(n: int, k: int, epsilon: float, symmetric: bool = False) -> int:
    """The edge table's top count at (n, k, eps): :func:`edge_top_any` where some edge row lies off the corner rows
    (``n >= depth + top + 2``: a second largest count ``>= top + 1`` below the largest, itself below ``n - depth``) and
    the joint LP's estimate (by orbits at a ``symmetric`` prior where :func:`edge_orbits`) fits
    :data:`EDGE_WORST_SECONDS`, else 0 (the corner table alone, as before).  Public inputs only."""
    top = edge_top_any(epsilon)
    # below n = depth + top + 2 every edge row lies in F (the corner rows come first): nothing to solve for
    if top == 0 or int(n) < default_depth(epsilon) + top + 2:
        return 0
    return top if edge_seconds(n, k, epsilon, symmetric) <= EDGE_WORST_SECONDS else 0


def edge_top_any(epsilon: float) -> int:
    """The edge table's top count ``U`` at k >= 4 (:class:`EdgeTableAny`): ``ceil(3 / eps)`` at ``1 <= eps < 2`` (3 at
    eps = 1, where under the rest's remap the data sets whose two smaller counts sum to at most 4 sit at the
    corners' level all along the edges: Dir(1,1,1,1), n = 20, 0.5525), else 0: no edge table (at eps = 2 the edges are
    below the vertices, which bind; below eps = 1 the table's LP is not built)."""
    eps = float(epsilon)
    return int(math.ceil(3.0 / eps)) if 1.0 <= eps < 2.0 else 0


def _roles(z: NDArray[np.int64]) -> NDArray[np.int64]:
    """Each row's coordinates in role order: the largest (the first of a tie), the second largest (likewise), then
    the others in index order."""
    B, k = z.shape
    i = np.argmax(z, axis=1)
    zm = z.copy()
    zm[np.arange(B), i] = np.iinfo(np.int64).min
    j = np.argmax(zm, axis=1)
    idx = np.broadcast_to(np.arange(k), (B, k))
    rest = idx[(idx != i[:, None]) & (idx != j[:, None])].reshape(B, k - 2)
    return np.concatenate([i[:, None], j[:, None], rest], axis=1)


@dataclass
class EdgeTableAny:
    """The edge table at k >= 4 (module docstring, "Edge rows").  A point ``z`` off the corner table whose ``k - 2``
    smaller counts (every coordinate but the largest and the second largest, :func:`_roles`) lie in ``[-low, top]``,
    whose second largest is ``>= top + 1`` and whose largest is at least its ``k - 2`` counts' negative parts plus
    :data:`R_RADIUS` is a row of the edge ``{largest, second}``; it draws ``z + offsets[e, u, j]`` (in role order:
    largest, second, the small counts) with probability ``probs[e, u, j]``, ``u`` the small counts' index
    (:meth:`lookup`).  The same at every position along the edge and every n: a translation along the edge moves the
    row and its outputs alike, and the kernel is translation invariant."""

    k: int
    top: int
    low: int
    pairs: NDArray[np.int64]
    offsets: NDArray[np.int64]
    probs: NDArray[np.float64]
    lp: float

    @property
    def side(self) -> int:
        return self.top + self.low + 1

    def lookup(self, z: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """``(edge e, index u, roles)`` of every row of ``z``; ``e = u = -1`` off every edge (the corner table is not
        consulted here: its rows come first)."""
        z = np.asarray(z, dtype=np.int64).reshape(-1, self.k)
        if not len(z):
            e = np.zeros(0, dtype=np.int64)
            return e, e, np.zeros((0, self.k), dtype=np.int64)
        order = _roles(z)
        zr = np.take_along_axis(z, order, axis=1)
        small = zr[:, 2:]
        neg = np.maximum(-small, 0).sum(axis=1)
        on = (np.all((small >= -self.low) & (small <= self.top), axis=1) & (zr[:, 1] >= self.top + 1)
              & (zr[:, 0] >= neg + R_RADIUS))
        u = np.zeros(len(z), dtype=np.int64)
        for col in range(small.shape[1]):
            u = u * self.side + np.clip(small[:, col] + self.low, 0, self.side - 1)
        lo, hi = np.minimum(order[:, 0], order[:, 1]), np.maximum(order[:, 0], order[:, 1])
        e = self._pair_index[lo * self.k + hi]
        return np.where(on, e, -1), np.where(on, u, -1), order

    @property
    def _pair_index(self) -> NDArray[np.int64]:
        out = np.full(self.k * self.k, -1, dtype=np.int64)
        out[self.pairs[:, 0] * self.k + self.pairs[:, 1]] = np.arange(len(self.pairs))
        return out

    def outputs(self, z: NDArray[np.int64], e: NDArray[np.int64], u: NDArray[np.int64], order: NDArray[np.int64]
                ) -> NDArray[np.int64]:
        """The outputs ``(B, J, k)`` of edge rows ``z`` (``e``, ``u``, ``order`` from :meth:`lookup`)."""
        off = self.offsets[e, u]  # (B, J, k) in role order
        out = np.repeat(z[:, None, :], off.shape[1], axis=1)
        np.add.at(out, (np.arange(len(z))[:, None, None], np.arange(off.shape[1])[None, :, None],
                        order[:, None, :]), off)
        return out

    def rows_to(self, m: NDArray[np.int64], skip) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """Every edge row ``z`` whose outputs hold ``m``, with ``T(z, m)``: enumerated from the table's offsets in
        every role order (``z = m - offset``), kept where :meth:`lookup` gives that row and that order and ``skip(z)``
        (the corner table's rows, which come first) is false.  So none is missed whatever its distance from ``m``."""
        import itertools

        e, u, j = np.nonzero(self.probs > 0)
        zs, ts = [], []
        for perm in itertools.permutations(range(self.k)):
            order = np.array(perm, dtype=np.int64)
            if np.any(np.diff(order[2:]) < 0) or not np.any(np.all(self.pairs == np.sort(order[:2]), axis=1)):
                continue
            off = np.zeros((len(e), self.k), dtype=np.int64)
            off[:, order] = self.offsets[e, u, j]
            z = m[None, :] - off
            le, lu, lo = self.lookup(z)
            ok = (le == e) & (lu == u) & np.all(lo == order[None, :], axis=1)
            if ok.any():
                ok[ok] &= ~skip(z[ok])
            zs.append(z[ok])
            ts.append(self.probs[e, u, j][ok])
        if not zs:
            return np.zeros((0, self.k), dtype=np.int64), np.zeros(0)
        z, t = np.concatenate(zs), np.concatenate(ts)
        # one row may hold m through several of its outputs only if two offsets coincide (they do not); sum anyway
        uniq, back = np.unique(z, axis=0, return_inverse=True)
        return uniq, np.bincount(back.reshape(-1), weights=t, minlength=len(uniq))

    def role_base(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(small, base)`` for every index ``u``: the small counts of the row and the offset (role order) that moves
        their negative parts to 0 from the largest count, so that ``z + base + rho`` is in R(n)."""
        grids = np.meshgrid(*([np.arange(-self.low, self.top + 1)] * (self.k - 2)), indexing="ij")
        small = np.stack([g.ravel() for g in grids], axis=1).astype(np.int64)
        base = np.zeros((len(small), self.k), dtype=np.int64)
        base[:, 2:] = np.maximum(-small, 0)
        base[:, 0] = -base[:, 2:].sum(axis=1)
        return small, base


def edge_data_sets(n0: int, k: int, table: EdgeTableAny, depth: int) -> NDArray[np.int64]:
    """The edge LP's constrained data sets at ``n0``: every ``c`` of R(n0) that is itself an edge row
    (:meth:`EdgeTableAny.lookup`) with its second largest count within ``top + 1 + depth + 2 W`` of ``top + 1``
    (next to the corners, where the corner rows meet the edge rows), and past that every fourth value of it (the
    table is the same all along the edge; the errors are computed exactly afterwards)."""
    R = candidates(n0, k)
    e, _, order = table.lookup(R)
    R, order = R[e >= 0], order[e >= 0]
    second = R[np.arange(len(R)), order[:, 1]]
    start = table.top + 1
    near = second <= start + depth + 2 * table.low
    return R[near | ((second - start) % 4 == 0)]


def _lp_orbits(Fz: NDArray[np.int64], cand: NDArray[np.int64], f_ok: NDArray[np.bool_], small: NDArray[np.int64],
               e_off: NDArray[np.int64], e_valid: NDArray[np.bool_], n_pairs: int) -> NDArray[np.int64]:
    """The joint LP's variables' orbits under the permutations of the categories (a symmetric prior;
    :func:`_solve_edges`): a free row's ``(z, r)`` pair up to a permutation applied to both (its columns ``(z_i, r_i)``
    sorted); an edge variable's ``(rho_largest, rho_second)`` and its small counts' ``(u_i, rho_i)`` pairs sorted, the
    same on every edge.  Every constraint is kept: with ties the constraints of a data set and of its image differ, and
    one per orbit of data sets let the LP's ``t`` fall below the LP's without orbits (Dir(1,1,1,1), n = 10, eps = 1:
    0.4882 against 0.49155, its release's worst case 0.5161 against 0.49828).

    Why it loses nothing where the parametrisation is equivariant: the LP ``min t`` is convex and a permutation of the
    categories maps a feasible ``(T, t)`` to a feasible one of the same cost (the prior, the kernel, the loss and the
    sets are invariant), so the average over the permutations is feasible with the same ``t`` and takes one value per
    orbit.  Where ties (the projection's and the roles', by index) break the equivariance the LP may choose a worse
    table, never an unsafe one: it only chooses the remap, whose errors are computed exactly afterwards, and any
    table is post-processing of the noise."""
    fi, ji = np.nonzero(f_ok)
    z, r = Fz[fi], cand[fi, ji]
    base = int(max(np.abs(z).max(), np.abs(r).max(), np.abs(e_off).max(), np.abs(small).max())) + 1
    span = 2 * base + 1
    fkey = np.sort((z + base) * span + (r + base), axis=1)
    ui, uj = np.nonzero(e_valid)
    off = e_off[ui, uj]
    sm = np.sort((small[ui] + base) * span + (off[:, 2:] + base), axis=1)
    ekey = np.concatenate([((off[:, 0] + base) * span + off[:, 1] + base)[:, None], sm,
                           np.full((len(ui), 1), -1, dtype=np.int64)], axis=1)
    keys = np.concatenate([np.concatenate([np.zeros((len(fi), 1), dtype=np.int64), fkey], axis=1),
                           np.tile(np.concatenate([np.ones((len(ui), 1), dtype=np.int64), ekey], axis=1),
                                   (n_pairs, 1))])
    _, vorb = np.unique(keys, axis=0, return_inverse=True)
    return vorb.reshape(-1)


def _solve_edges(a: NDArray[np.float64], n0: int, eps: float, depth: int, inner: int, top: int,
                 orbits: bool = False) -> AnyCornerRemap:
    """The corner table and the edge table at ``n0`` by one LP (module docstring, "Edge rows"): the variables are the
    free rows' distributions (outputs within :data:`R_RADIUS` of ``project(z)``) and the edge table's (outputs
    ``z + base + rho``, ``rho`` within :data:`R_RADIUS`, role order); ``min t`` with ``E_W(c) <= t`` for the corner
    data sets ``A`` and the edge data sets (:func:`edge_data_sets`); every other row within ``W`` of them the rest
    (``B(project(z))``, a constant).  ``orbits`` (a symmetric prior): one variable per orbit of the categories'
    permutations (:func:`_lp_orbits`), every constraint kept, so its ``t`` is never below the LP's without orbits."""
    from scipy import sparse
    from scipy.optimize import linprog

    k = a.size
    W, W1, shift, Fz, fkeys, A, _ = regions(k, n0, eps, depth, inner, rest=False)
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)], dtype=np.int64)
    rb = _ball(k, R_RADIUS)
    J = len(rb)
    low = min(W, EDGE_LOW)
    table = EdgeTableAny(k=k, top=int(top), low=low, pairs=pairs, offsets=np.zeros((0, 0, J, k), dtype=np.int64),
                         probs=np.zeros((0, 0, J)), lp=float("nan"))
    small, base = table.role_base()
    S = len(small)
    e_off = base[:, None, :] + rb[None, :, :]  # (S, J, k), role order
    e_valid = np.all(np.maximum(small, 0)[:, None, :] + rb[None, :, 2:] >= 0, axis=2)  # the small counts stay >= 0
    # variables: the free rows' (row, output) pairs, then the edge table's (edge, u, output) triples
    cand = project(Fz, n0)[:, None, :] + rb[None, :, :]
    f_ok = np.all(cand >= 0, axis=2)
    nF = len(Fz)
    f_var = np.full((nF, J), -1, dtype=np.int64)
    f_var[f_ok] = np.arange(int(f_ok.sum()))
    nvF = int(f_ok.sum())
    e_var = np.full((len(pairs), S, J), -1, dtype=np.int64)
    e_var[:, e_valid] = nvF + np.arange(len(pairs) * int(e_valid.sum())).reshape(len(pairs), -1)
    nv = nvF + len(pairs) * int(e_valid.sum())
    C = np.unique(np.concatenate([A, edge_data_sets(n0, k, table, depth)]), axis=0)
    nC = len(C)
    ball = _ball(k, W)
    kw = np.exp(-eps * (np.abs(ball).sum(axis=1) // 2) - log_normaliser(k, eps))
    # every row within W of C, classified once: a free row, an edge row, or the rest (its output B(project(z)))
    zkeys = []
    step = max(1, BLOCK_ENTRIES // len(ball))
    for lo in range(0, nC, step):
        zkeys.append(np.unique(_window_key(C[lo:lo + step, None, :] + ball[None, :, :], shift)))
    zkeys = np.unique(np.concatenate(zkeys))
    Zall = _unrank(zkeys, n0 + k * shift, k) - shift
    pos = np.clip(np.searchsorted(fkeys, zkeys), 0, len(fkeys) - 1)
    frow = np.where(fkeys[pos] == zkeys, pos, -1)
    ee, eu, eorder = table.lookup(Zall)
    ee[frow >= 0] = -1
    rest = (frow < 0) & (ee < 0)
    rest_out = np.zeros_like(Zall)
    rest_out[rest] = _rest_outputs(a, n0, eps, Zall[rest])
    # each row's J outputs (k-vectors at n0) and variable ids (-1: not a variable; the rest's one output: -2)
    outs = np.repeat(Zall[:, None, :], J, axis=1)
    vids = np.full((len(Zall), J), -1, dtype=np.int64)
    fr = frow >= 0
    outs[fr], vids[fr] = cand[frow[fr]], f_var[frow[fr]]
    er = ee >= 0
    if er.any():
        outs[er] = Zall[er][:, None, :].repeat(J, axis=1)
        off = e_off[eu[er]]
        o = outs[er]
        np.add.at(o, (np.arange(int(er.sum()))[:, None, None], np.arange(J)[None, :, None],
                      eorder[er][:, None, :]), off)
        outs[er] = o
        vids[er] = e_var[ee[er], eu[er]]
    outs[rest, 0] = rest_out[rest]
    vids[rest, 0] = -2
    blocks = []
    b = np.zeros(nC)
    step = max(1, BLOCK_ENTRIES // (len(ball) * J))
    for lo in range(0, nC, step):  # in blocks of data sets: the (C x ball x outputs) losses never whole
        c = C[lo:lo + step]
        zi = np.searchsorted(zkeys, _window_key(c[:, None, :] + ball[None, :, :], shift))  # (B, ball)
        v = vids[zi]  # (B, ball, J)
        ci, bi, ji = np.nonzero(v != -1)
        L = kw[bi] * pair_loss(a, c[ci], outs[zi[ci, bi], ji])
        fixed = v[ci, bi, ji] == -2
        b[lo:lo + len(c)] += np.bincount(ci[fixed], weights=L[fixed], minlength=len(c))
        var = ~fixed
        blocks.append(sparse.csr_array((L[var], (ci[var], v[ci, bi, ji][var])), shape=(len(c), nv)))
    M = sparse.vstack(blocks, format="csr")
    M.sum_duplicates()
    A_ub = sparse.hstack([M, sparse.csr_array(-np.ones((nC, 1)))], format="csr")
    eq_rows = np.concatenate([np.repeat(np.arange(nF), f_ok.sum(axis=1)),
                              nF + np.repeat(np.arange(len(pairs) * S), np.tile(e_valid.sum(axis=1), len(pairs)))])
    eq_cols = np.concatenate([f_var[f_ok], e_var[:, e_valid].reshape(-1)])
    # the variables in order: f_var row-major, e_var (edge, u) row-major, so each equality's columns are its own
    A_eq = sparse.csr_array((np.ones(nv), (eq_rows, np.sort(eq_cols))), shape=(nF + len(pairs) * S, nv + 1))
    cost = np.zeros(nv + 1)
    cost[-1] = 1.0
    cost[:nv] = REGULARISER * np.asarray(M.sum(axis=0)).reshape(-1) / nC
    b_eq = np.ones(nF + len(pairs) * S)
    nO = 0
    if orbits:  # one variable per orbit of (row, output) pairs; every constraint kept
        vorb = _lp_orbits(Fz, cand, f_ok, small, e_off, e_valid, len(pairs))
        nO = int(vorb.max()) + 1
        P = sparse.csr_array((np.ones(nv + 1), (np.arange(nv + 1), np.append(vorb, nO))), shape=(nv + 1, nO + 1))
        A_ub, b_ub = (A_ub @ P).tocsr(), -b
        A_eq = (A_eq @ P).tocsr()
        cost = np.append(np.bincount(vorb, weights=cost[:nv], minlength=nO), 1.0)
    else:
        b_ub = -b
    # (its edge columns are dense: each appears in every constraint near its edge)
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(0, None),
                  method=lp_method(A_ub.nnz, A_ub.shape[1]))
    if res.status != 0:
        raise InputError(f"the corner remap's LP (with its edge table) failed: {res.message}")
    # by orbits every pair takes its orbit's value
    x = np.clip(res.x[:-1][vorb] if orbits else res.x[:-1], 0.0, None)
    x[x < 1e-12] = 0.0
    T = np.zeros((nF, J))
    T[f_ok] = x[f_var[f_ok]]
    T /= T.sum(axis=1, keepdims=True)
    order = np.argsort(-T, axis=1, kind="stable")[:, : int(max(1, (T > 0).sum(axis=1).max()))]
    pF = np.take_along_axis(T, order, axis=1)
    oF = np.take_along_axis(cand, order[..., None], axis=1)
    oF = np.where((pF > 0)[..., None], oF, oF[:, :1, :])  # padding: the row's first output
    Te = np.zeros((len(pairs), S, J))
    Te[:, e_valid] = x[e_var[:, e_valid]]
    Te /= Te.sum(axis=2, keepdims=True)
    width = int(max(1, (Te > 0).sum(axis=2).max()))
    eorder2 = np.argsort(-Te, axis=2, kind="stable")[:, :, :width]
    Pe = np.take_along_axis(Te, eorder2, axis=2)
    Oe = np.take_along_axis(np.broadcast_to(e_off, (len(pairs), S, J, k)), eorder2[..., None], axis=2)
    Oe = np.where((Pe > 0)[..., None], Oe, Oe[:, :, :1, :])
    lam = np.clip(-res.ineqlin.marginals, 0.0, None)
    table = EdgeTableAny(k=k, top=int(top), low=low, pairs=pairs, offsets=Oe, probs=Pe, lp=float(res.x[-1]))
    cert = {"lp": float(res.x[-1]), "depth": int(depth), "inner": W1, "W": W, "n_ref": n0, "variables": nv,
            "constraints": nC, "free_rows": nF, "fixed_rows": int(rest.sum()), "entries": int(M.nnz),
            "edge_top": int(top), "edge_rows": len(pairs) * S, "edge_constraints": nC - len(A), "lower": float("nan"),
            "orbit_variables": nO}
    return AnyCornerRemap(a=a, n=n0, n_ref=n0, epsilon=eps, depth=int(depth), inner=W1, W=W, shift=shift,
                          points=Fz, keys=fkeys, outputs=oF, probs=pF, corner=np.argmax(Fz, axis=1),
                          certificate=cert, duals=(C, lam), edges=table)


# -- the whole-simplex certificate (small n): weights on every data set, by ascent -----------------------------------

#: The whole-simplex certificate's share of seconds (:func:`plan_certify_simplex_any`): it runs where its plan, at one
#: ascent step at least, fits them (a constant, so whether it runs is a function of public inputs only).
SIMPLEX_CERT_SECONDS = 45.0
#: The most ascent steps on its weights (:func:`simplex_weights_any`); fewer where the plan's share runs out.
#: Dir(1,1,1,1), eps = 1, n = 20 (the ascent's rows at ``SIMPLEX_ASCENT_TOL``): uniform weights 0.4614, 10 steps 0.4628,
#: 30 steps 0.4637; n = 10: 0.4858 -> 0.4899 (30 steps); eps = 0.5, n = 10: 0.6150 -> 0.6479 (20 steps).
SIMPLEX_MAX_STEPS = 30
#: Step size of the exponentiated-gradient ascent (errors are ~0.1 apart: eta = 30 oscillated, 3 climbs steadily).
SIMPLEX_ETA = 3.0
#: The ascent keeps the rows within ``radius_for(k, eps, SIMPLEX_ASCENT_TOL)`` of R(n) (it only chooses the weights;
#: the bound itself sums the rows within ``radius_for(k, eps, CERT_TOL)``).
SIMPLEX_ASCENT_TOL = 1e-2
#: Seconds per multiply-add of one ascent step (float32 ``rows x |R| x |R|``; measured 2.1e-11 at eps = 1, n = 20,
#: 9.1e10 of them in 1.9 s of CPU at load ~2, padded for a loaded host); the bound's own float64 product is
#: :data:`CERT_PRODUCT_SECONDS` (measured there: 1.2e11 in 7.9 s at load 7, the kernel included).
SIMPLEX_STEP_SECONDS = 3e-11
#: Seconds per kernel entry (row x data set: the distance and its exponential; the ascent's and the bound's tables):
#: eps = 1, n = 20, 5.1e7 entries and the losses in 6.3 s with one ascent evaluation, at load 7.
SIMPLEX_KERNEL_SECONDS = 4e-8
#: Bytes per (data set x output) of the losses' table at its peak (:func:`.corners.pair_loss` over R(n) x R(n), its
#: temporaries included: eps = 1, n = 20, 1.66 GB resident for 3.1e6 pairs with everything else).
SIMPLEX_LOSS_BYTES = 450.0


def rows_within(n: int, k: int, reach: int) -> int:
    """The lattice points ``z`` (integer, summing to n) within substitution distance ``reach`` of R(n), in closed
    form: that distance is the sum of ``z``'s negative parts (moving that much mass from the positive coordinates),
    so with ``s`` negative coordinates summing to ``-m`` (``C(m - 1, s - 1)`` ways) the other ``k - s`` are ``>= 0``
    and sum to ``n + m``: ``sum_s C(k, s) sum_{m = s}^{reach} C(m - 1, s - 1) C(n + m + k - s - 1, k - s - 1)``."""
    total = math.comb(n + k - 1, k - 1)
    for s in range(1, k):
        for m in range(s, int(reach) + 1):
            total += math.comb(k, s) * math.comb(m - 1, s - 1) * math.comb(n + m + k - s - 1, k - s - 1)
    return total


def plan_certify_simplex_any(n: int, k: int, epsilon: float, steps: int | None = None,
                             seconds: float = SIMPLEX_CERT_SECONDS) -> tuple[Plan, int]:
    """The plan of :func:`certify_simplex_any` and its ascent steps: ``steps`` if given, else the most (at most
    :data:`SIMPLEX_MAX_STEPS`, at least 0: the uniform weights) whose estimate fits ``seconds``.  The estimate: the
    losses ``|R|^2`` (:data:`CERT_PRODUCT_SECONDS`), the kernels ``(rows + rows_a) x |R|``
    (:data:`SIMPLEX_KERNEL_SECONDS`), each step and the first evaluation ``rows_a |R|^2`` (:data:`SIMPLEX_STEP_SECONDS`),
    the bound ``rows |R|^2`` (float64, :data:`CERT_PRODUCT_SECONDS`); memory the ascent's float32 kernel
    ``rows_a x |R|``, the losses (:data:`SIMPLEX_LOSS_BYTES` per pair) and a block of the bound's tables.  Public
    inputs only (n, k, eps)."""
    eps = float(epsilon)
    R = math.comb(int(n) + k - 1, k - 1)
    rows = rows_within(int(n), k, radius_for(k, eps, CERT_TOL))
    rows_a = rows_within(int(n), k, radius_for(k, eps, SIMPLEX_ASCENT_TOL))
    what = f"the k >= 4 corner release's whole-simplex certificate for k={k}, n={n}, eps={eps:g}"

    def plan(m: int) -> Plan:
        secs = (CERT_PRODUCT_SECONDS[1] * R * R + SIMPLEX_KERNEL_SECONDS * (rows + rows_a) * R
                + SIMPLEX_STEP_SECONDS * (m + 1) * rows_a * R * R + CERT_PRODUCT_SECONDS[0] * rows * R * R)
        # the ascent's kernel, the losses R x R (pair_loss's float64 temporaries, SIMPLEX_LOSS_BYTES each) and a block
        # of the bound's tables; measured at eps = 1, n = 20: 1.66 GB resident, estimated 1.97 GiB
        memory = 4.0 * rows_a * R + SIMPLEX_LOSS_BYTES * R * R + 24.0 * CERTIFY_CELLS + 64.0 * 2**20
        return Plan(task=Task.ERRORS, route=f"whole simplex, {m} steps", what=what, seconds=secs,
                    memory_bytes=memory, costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", secs),),
                    advice="use a larger eps or a smaller n")

    if steps is not None:
        return plan(int(steps)), int(steps)
    best = (plan(0), 0)
    for m in range(1, SIMPLEX_MAX_STEPS + 1):
        p = plan(m)
        if p.seconds > seconds:
            break
        best = (p, m)
    return best


def simplex_weights_any(a: NDArray[np.float64], n: int, eps: float, steps: int) -> NDArray[np.float64]:
    """Weights ``lambda`` on every data set of R(n) (in :func:`~dpposterior.models.candidates` order) for
    :func:`.corners.certified_lower`: the best of ``steps`` exponentiated-gradient steps from the uniform weights on
    ``g(lambda) = sum_z min_r sum_c lambda(c) K(z | c) L(c, r)`` (the rows within ``radius_for(k, eps,
    SIMPLEX_ASCENT_TOL)`` of R(n), float32).  ``g`` is concave and the errors ``E(c)`` of its best response
    ``T(z) = argmin_r`` are a supergradient, so ``lambda <- lambda exp(eta (E - max E))`` climbs towards the weights
    whose bound is the best worst case over remaps; any weights certify, so nothing rests on its floats or its steps."""
    k = a.size
    C = candidates(int(n), k)
    reach = radius_for(k, eps, SIMPLEX_ASCENT_TOL)
    Fz, _ = _union(C, _ball(k, reach), reach)
    L = pair_loss(a, np.broadcast_to(C[:, None, :], (len(C), len(C), k)),
                  np.broadcast_to(C[None, :, :], (len(C), len(C), k))).astype(np.float32)
    from .corners import _kernel

    step = max(1, CERTIFY_CELLS // (len(C) * (k + 1)))
    K = np.concatenate([_kernel(eps, k, Fz[lo:lo + step, None, :], C[None, :, :]).astype(np.float32)
                        for lo in range(0, len(Fz), step)])
    lam = np.full(len(C), 1.0 / len(C))
    best, best_lam = -1.0, lam.copy()
    for it in range(int(steps) + 1):
        g, E = 0.0, np.zeros(len(C))
        lam32 = lam.astype(np.float32)
        for lo in range(0, len(Fz), step):
            Kb = K[lo:lo + step]
            P = (Kb * lam32[None, :]) @ L
            r = P.argmin(axis=1)
            g += float(P[np.arange(len(P)), r].sum(dtype=np.float64))
            E += np.einsum("zc,cz->c", Kb, L[:, r], optimize=True)
        if g > best:
            best, best_lam = g, lam.copy()
        if it == int(steps):
            break
        lam = lam * np.exp(SIMPLEX_ETA * (E - E.max()))
        lam /= lam.sum()
    return best_lam


def certify_simplex_any(a: ArrayLike, n: int, epsilon: float, steps: int | None = None) -> float:
    """A certified lower bound on the best worst case over every remap of the lattice release at (prior, n, eps), from
    weights on every data set of R(n) (:func:`simplex_weights_any`; ``steps`` default: the most its plan,
    :func:`plan_certify_simplex_any`, fits in :data:`SIMPLEX_CERT_SECONDS`; admitted first: a one-line
    :class:`~dpposterior.errors.SizeError` past the limits).

    Proof (:func:`.corners.certified_lower`, module docstring of :mod:`.corners`): for any weights ``lambda`` on any
    set ``C`` of data sets and any remap ``T``, ``max_c E_T(c) >= sum_c lambda(c) E_T(c) = sum_z sum_r T(z, r)
    rho(z, r) >= sum_z min_r rho(z, r)``, ``rho(z, r) = sum_c lambda(c) K(z | c) L(c, r) >= 0``; here ``C = R(n)``,
    the minimum runs over all of R(n) exactly (no far bound), and the rows farther than ``radius_for(k, eps, CERT_TOL)``
    from R(n) are dropped (their terms are >= 0); the sum is lowered by its float rounding.  Restricting the max to
    ``C`` and the sum to some rows can only lower it, so the bound holds for every remap of this release, the corner
    and edge tables included."""
    from .corners import certified_lower

    a = _validate.prior(a)
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    k = a.size
    plan, steps = plan_certify_simplex_any(n, k, eps, steps)
    admit(plan)
    lam = simplex_weights_any(a, n, eps, steps)
    C = candidates(n, k)
    reach = radius_for(k, eps, CERT_TOL)
    Fz, _ = _union(C, _ball(k, reach), reach)
    return certified_lower(a, n, eps, C, np.argmax(C, axis=1), Fz, lam, n, reach)


__all__ = ["AnyCornerRemap", "certificate_sizes_any", "corner_errors_any", "corner_remap_any", "corner_sizes_any",
           "certify_any", "certify_simplex_any", "default_depth", "inner_radius", "plan_certify_any",
           "plan_certify_simplex_any", "reference_n", "rows_within"]
