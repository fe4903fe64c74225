"""A face table for the lattice release at k = 4: the local Bayes remap at every z, and minimax rows near the faces.

Definitions (docs/lattice.md, "A face table at k = 4"; docs/definitions.md §9 for the objectives).  The lattice
release draws ``z = c + w`` (:mod:`.noise`).  Under ``lattice~average``'s remap (the local Bayes output ``B(z)`` of
:func:`.remap.local_bayes_search` at z itself, :func:`.batched.local_search_batch`) the k = 4 worst case sits inside
a face: Dir(1,1,1,1), eps = 1, n = 50, 0.48350 at (41, 5, 4, 0), every data set above 0.4768 with one count 0 and
the two middle counts in 3..7.  This release keeps ``B(z)`` everywhere except on the **face rows**

    ``F = {z : sum z = n, s_0 in [-FACE_LOW, FACE_ZERO], s_1 in [1, FACE_SECOND], s_2 <= FACE_THIRD, s_2 < s_3}``

(``s`` the sorted coordinates of z, ascending), whose rows ``T(z, .)`` are chosen by an LP over the outputs
``B(z*) + rho`` (``z*`` the sorted row, ``rho`` within :data:`R_RADIUS`, closed under the permutations that fix
``z*``, moved back to z's order): one variable per orbit of ``(z, r)`` pairs under the categories' permutations (a
symmetric prior: the LP over invariant tables), ``min t`` subject to ``E_model(c) <= t`` for the constrained data
sets (one per orbit: sorted ``c`` near the rows), where ``E_model(c) = E_B(c) + sum_{z in F, d(z, c) <= W} K(z - c)
(sum_r T(z, r) L(c, r) - L(c, B(z)))`` (``E_B`` the average release's own window sum; the rows of F beyond ``W`` of c
counted at ``B(z)``).  A restriction of the full LP: every other row is fixed at ``B(z)`` and every constraint of the
chosen data sets kept.  The LP only chooses the table; the release's errors are computed exactly afterwards
(:func:`face_errors_any`), so nothing rests on its cut, its orbits or its solver's tolerance.

Privacy.  ``F``, its table and ``B`` are functions of the prior, n, k and eps only, never of the data set, so
``z -> T(z, .)`` is post-processing of the eps-DP lattice noise: the release is eps-DP whatever the LP returns.

Errors (:func:`face_errors_any`): ``E(c) = E_B(c) + sum_{z in F, c = z - w in R(n)} K(w) (sum_r T(z, r) L(c, r) -
L(c, B(z)))`` (:func:`.corners_any._table_deltas`), the same sum as ``sum_w K(w) sum_r T(c + w, r) L(c, r)`` over
``d(w) <= We`` term by term, in another order; bracket ``tail_bound(k, eps, We)`` as ``lattice~average``'s.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate as _validate
from ..errors import InputError
from ..limits import Plan, Task
from ..models import candidates
from .corners import pair_loss, symmetric_prior
from .noise import log_normaliser, radius_for
from .remap import _ball, lp_method

#: How far below 0 a face row's smallest count reaches, and how far above.
FACE_LOW = 2
FACE_ZERO = 2
#: The face rows' second smallest count lies in ``[1, FACE_SECOND]``, the third at most ``FACE_THIRD``: at
#: Dir(1,1,1,1), eps = 1, n = 50 every data set of ``lattice~average`` above 0.47 has its sorted counts
#: ``(0, 2..8, 3..10, .)``.
FACE_SECOND = 9
FACE_THIRD = 12
#: Outputs a face row may use: within this substitution distance of ``B(z)``.
R_RADIUS = 1
#: The LP keeps the kernel's mass within ``radius_for(k, eps, FACE_LP_TOL)`` of each constrained data set.
FACE_LP_TOL = 0.3
#: Weight of the tie-break: the average over the constrained data sets.
REGULARISER = 1e-4
#: A data set is constrained where its model error can move (some row of F within ``W``) and ``E_B(c)`` is at least
#: this share of the largest ``E_B``: 0, every one.  With 0.9 (178 of 827 orbits at Dir(1,1,1,1), eps = 1, n = 50) the
#: LP's ``t`` was the same but the release's worst case rose to 0.55111 at (37, 9, 2, 2), against 0.47040 with all.
CONSTRAIN_SHARE = 0.0


def _sorted_key(s: NDArray[np.int64], base: int) -> NDArray[np.int64]:
    """An integer key of sorted rows (coordinates ``>= -base``, below ``base`` after the shift)."""
    key = np.zeros(len(s), dtype=np.int64)
    span = 2 * base + 1
    for i in range(s.shape[1]):
        key = key * span + (s[:, i] + base)
    return key


def in_faces(z: NDArray[np.int64], low: int = FACE_LOW, zero: int = FACE_ZERO, second: int = FACE_SECOND,
             third: int = FACE_THIRD) -> NDArray[np.bool_]:
    """Whether each row ``z`` (k = 4) is a face row (module docstring), from its sorted coordinates."""
    s = np.sort(np.asarray(z, dtype=np.int64), axis=-1)
    return ((s[..., 0] >= -low) & (s[..., 0] <= zero) & (s[..., 1] >= 1) & (s[..., 1] <= second)
            & (s[..., 2] <= third) & (s[..., 2] < s[..., 3]))


def face_patterns(n: int, low: int = FACE_LOW, zero: int = FACE_ZERO, second: int = FACE_SECOND,
                  third: int = FACE_THIRD) -> NDArray[np.int64]:
    """The sorted face rows (ascending) at n: one per orbit of F."""
    out = [(s0, s1, s2, n - s0 - s1 - s2) for s0 in range(-low, zero + 1) for s1 in range(max(s0, 1), second + 1)
           for s2 in range(s1, third + 1) if n - s0 - s1 - s2 > s2]
    return np.array(out, dtype=np.int64).reshape(-1, 4)


def _orbit(p: NDArray[np.int64]) -> NDArray[np.int64]:
    """The distinct permutations of one row."""
    return np.unique(np.array(list(itertools.permutations(p.tolist())), dtype=np.int64), axis=0)


@dataclass
class FaceRemap:
    """The face table at (prior, n, eps): rows ``points`` (sorted by key), up to ``J`` outputs each ``outputs[m, j]``
    with probabilities ``probs[m, j]`` (0 padded), ``rest[m]`` the local Bayes output ``B(z)`` there.  Off the table:
    ``B(z)``."""

    a: NDArray[np.float64]
    n: int
    epsilon: float
    points: NDArray[np.int64]
    outputs: NDArray[np.int64]
    probs: NDArray[np.float64]
    rest: NDArray[np.int64]
    certificate: dict = field(default_factory=dict)
    duals: tuple | None = None

    def rows(self, z: ArrayLike) -> NDArray[np.int64]:
        """The table's row holding each lattice point ``z`` (summing to n), or -1."""
        from ..models import candidate_rank

        z = np.array(z, dtype=np.int64, ndmin=2).reshape(-1, self.a.size)
        out = np.full(len(z), -1, dtype=np.int64)
        ok = np.all(z >= -FACE_LOW, axis=1) & (z.sum(axis=1) == self.n) & in_faces(z)
        if ok.any():
            keys = candidate_rank(self.points + FACE_LOW)
            q = candidate_rank(z[ok] + FACE_LOW)
            pos = np.clip(np.searchsorted(keys, q), 0, len(keys) - 1)
            out[np.flatnonzero(ok)] = np.where(keys[pos] == q, pos, -1)
        return out

    def draw(self, z: ArrayLike, bits) -> NDArray[np.int64]:
        """One output at ``z``: the face row drawn by integer weights (:func:`~dpposterior.randomness.float_weights`,
        total variation at most ``J 2^-127`` from the row), else ``B(z)``."""
        from ..randomness import choose, float_weights
        from .remap import local_bayes_search

        z = np.asarray(z, dtype=np.int64).reshape(self.a.size)
        f = int(self.rows(z)[0])
        if f < 0:
            return local_bayes_search(self.a, self.n, self.epsilon, z)
        p = self.probs[f]
        nz = np.flatnonzero(p > 0)
        pick = nz[int(choose(float_weights(p[nz]), 1, bits)[0])] if nz.size > 1 else nz[0]
        return self.outputs[f, pick]


def _row_outputs(a: NDArray[np.float64], n: int, reps: NDArray[np.int64], rest: NDArray[np.int64]
                 ) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """For each sorted row ``z*`` the offsets ``D`` (``(P, J, k)``, in the sorted frame) of its outputs: ``B(z*) - z* +
    rho``, ``rho`` within :data:`R_RADIUS`, closed under the permutations that fix ``z*``, kept where ``z* + D >= 0``;
    ``valid`` marks the real ones (padding repeats the first)."""
    k = a.size
    rb = _ball(k, R_RADIUS)
    rows = []
    for p, b in zip(reps, rest):
        D = b - p + rb
        groups = [np.flatnonzero(p == v) for v in np.unique(p)]
        perms = [np.arange(k)]
        for g in groups:
            if len(g) > 1:
                new = []
                for q in perms:
                    for s in itertools.permutations(g.tolist()):
                        r = q.copy()
                        r[g] = q[list(s)]
                        new.append(r)
                perms = new
        D = np.unique(np.concatenate([D[:, q] for q in perms]), axis=0)
        D = D[np.all(p + D >= 0, axis=1)]
        rows.append(D)
    J = max(len(D) for D in rows)
    out = np.zeros((len(reps), J, k), dtype=np.int64)
    valid = np.zeros((len(reps), J), dtype=bool)
    for m, D in enumerate(rows):
        out[m, :len(D)] = D
        out[m, len(D):] = D[0]
        valid[m, :len(D)] = True
    return out, valid


#: The radius of the LP's constant part when the release builds its own (:func:`lp_rest_errors`): ``E_B(c)`` summed over
#: ``d(w) <= radius_for(k, eps, LP_REST_TOL)`` only (13 at k = 4, eps = 1, against the errors' 19).  The LP only
#: chooses the table; its constant read lower by at most ``tail_bound(k, eps, W2)`` (< 1e-3) moves no guarantee (the
#: release's errors are computed exactly afterwards), and it needs the local Bayes remap only within ``W + W2`` of the
#: face rows, not over the whole window.
LP_REST_TOL = 1e-3


def face_data_sets(n: int, epsilon: float, W: int | None = None) -> NDArray[np.int64]:
    """The data sets the face LP constrains: sorted c of R(n) (ascending) with a face row within ``W`` (default
    ``radius_for(4, eps, FACE_LP_TOL)``); public n, eps only."""
    eps = float(epsilon)
    W = radius_for(4, eps, FACE_LP_TOL) if W is None else int(W)
    R = candidates(int(n), 4)
    cand = R[np.all(np.diff(R, axis=1) >= 0, axis=1)]
    ball = _ball(4, W)
    keep = np.array([bool(in_faces(c[None, :] + ball).any()) for c in cand], dtype=bool)
    return cand[keep]


def window_outputs_at(outputs: NDArray[np.int64], n: int, We: int, Z: ArrayLike) -> NDArray[np.int64]:
    """The rows of ``outputs`` (one per point of ``window(n, k, We)``, lexicographic) at the points ``Z`` (each summing
    to n with every coordinate ``>= -We``): ``window(n, k, We)`` is ``R(n + k We) - We`` in :func:`~dpposterior.models.
    candidates`' order, so a point's row is the rank of ``z + We``."""
    from ..models import candidate_rank

    outputs = np.asarray(outputs, dtype=np.int64)
    Z = np.asarray(Z, dtype=np.int64).reshape(-1, outputs.shape[1])
    if Z.size and (np.any(Z < -int(We)) or np.any(Z.sum(axis=1) != int(n))):
        raise InputError(f"a point outside the window of n={n}, W={We}")
    return outputs[candidate_rank(Z + int(We))]


#: Entries (data sets x ball points) of one block of :func:`lp_rest_errors`' losses.
LP_REST_BLOCK = 2**18


def lp_rest_errors(prior: ArrayLike, n: int, epsilon: float, cand: NDArray[np.int64], W2: int | None = None,
                   max_fallback: int | None = None, window_outputs: tuple[NDArray[np.int64], int] | None = None
                   ) -> NDArray[np.float64]:
    """``E_B``'s window sum over ``d(w) <= W2`` (default ``radius_for(k, eps, LP_REST_TOL)``) at each data set of
    ``cand``: ``sum_w K(w) L(c, B(c + w))`` with ``B`` the local Bayes remap
    (:func:`.batched.local_search_batch` by orbits, the outputs a draw computes), the same sum as
    :func:`.batched.window_errors_any`'s at a smaller radius, so at most ``tail_bound(k, eps, W2)`` below ``E_B(c)``.
    What the face LP reads as its constant part when the release builds the table itself.

    ``window_outputs``: ``(outputs, We)``, ``B`` already computed at every point of ``window(n, k, We)`` (``We >=
    W2``: every ``c + w`` lies in it), read there instead of searched (:func:`window_outputs_at`).  The same array:
    :func:`.batched.local_search_batch` returns the one-point search's output at every z whichever points it is called
    with (its docstring), so the same ``B`` at the same points, then the same sums in the same order."""
    from .batched import local_search_batch

    a = _validate.prior(prior)
    k = a.size
    eps = float(epsilon)
    W2 = radius_for(k, eps, LP_REST_TOL) if W2 is None else int(W2)
    ball = _ball(k, W2)
    wts = np.exp(-eps * (np.abs(ball).sum(axis=1) // 2) - log_normaliser(k, eps))
    out = np.empty(len(cand))
    if window_outputs is not None:
        # B read off the window at each c + w (no union of the balls, no search)
        if int(window_outputs[1]) < W2:
            raise InputError(f"the window's outputs reach {window_outputs[1]}, the LP's sums {W2}")
        for i, c in enumerate(cand):
            r = window_outputs_at(window_outputs[0], int(n), int(window_outputs[1]), c[None, :] + ball)
            out[i] = float(np.dot(wts, pair_loss(a, np.broadcast_to(c, r.shape), r)))
        return out
    # the points c + w of every ball by one int64 key a point, sum_j (z_j + W2) span^(k - 1 - j): each digit z_j + W2
    # lies in [0, n + 2 W2] (c in R(n), |w_j| <= W2), so the key is z's digits in base span, one key per point, in
    # z's lexicographic order; and it is linear, the key of c plus that of w + W2, so the balls' keys are sums of two
    # small tables (no row of the balls is formed).  The distinct keys, sorted, decoded, are np.unique(..., axis=0)'s
    # rows of the balls' points (the same Z, so the same B); a point's row is its key's place among them.
    cand = np.asarray(cand, dtype=np.int64).reshape(-1, k)
    if cand.size and (int(cand.min()) < 0 or int(cand.max()) > int(n) or np.any(cand.sum(axis=1) != int(n))):
        raise InputError(f"a constrained data set outside R(n) for n={n}")
    span = int(n) + 2 * W2 + 2
    if span ** k >= 2**63:
        raise InputError(f"the face LP's window sums at n={n}, k={k} are too large for one int64 key a point")
    place = span ** np.arange(k - 1, -1, -1, dtype=np.int64)
    kc = cand @ place
    kw = (ball + W2) @ place
    zkey = np.unique((kc[:, None] + kw[None, :]).reshape(-1))
    Z = np.stack(np.unravel_index(zkey, (span,) * k), axis=1).astype(np.int64) - W2
    B = local_search_batch(a, int(n), eps, Z, max_fallback=max_fallback, orbits=True)
    # the losses of a block of data sets at once (pair_loss is elementwise: each entry the float a data set alone
    # gets, one table of J per block instead of one per data set), each sum as before (one dot per data set)
    step = max(1, LP_REST_BLOCK // len(ball))
    for lo in range(0, len(cand), step):
        r = B[np.searchsorted(zkey, kc[lo:lo + step, None] + kw[None, :])]
        losses = pair_loss(a, np.broadcast_to(cand[lo:lo + step, None, :], r.shape), r)
        for j, row in enumerate(losses):
            out[lo + j] = float(np.dot(wts, row))
    return out


def face_remap_any(prior: ArrayLike, n: int, epsilon: float, low_errors: NDArray[np.float64] | None = None,
                   W: int | None = None, share: float = CONSTRAIN_SHARE,
                   max_fallback: int | None = None,
                   window_outputs: tuple[NDArray[np.int64], int] | None = None) -> FaceRemap:
    """The face table (module docstring) at (prior, n, eps), k = 4, a symmetric prior.  ``low_errors``: ``E_B(c)``
    over R(n) (lexicographic, :func:`~dpposterior.models.candidates`), the average release's window sum, which the
    LP's constant part reads.  ``W``: the LP's kernel cut (default ``radius_for(k, eps, FACE_LP_TOL)``); ``share``:
    which data sets near the rows are constrained (:data:`CONSTRAIN_SHARE`).

    ``window_outputs``: ``(outputs, We)``, the local Bayes remap ``B`` at every point of ``window(n, 4, We)``
    (lexicographic; ``We >= max(FACE_LOW, radius_for(4, eps, LP_REST_TOL))``), e.g. the average release's errors'
    own search: ``B`` at the face rows and at the LP's data sets is read there instead of searched again.  The same
    table, bit for bit (the same ``B`` at the same points, :func:`lp_rest_errors`), so what a draw reads."""
    from scipy import sparse
    from scipy.optimize import linprog

    from ..models import candidate_rank
    from .batched import local_search_batch

    a = _validate.prior(prior)
    if a.size != 4 or not symmetric_prior(a):
        raise InputError("the face table is built for k = 4 at a symmetric prior")
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    k = 4
    W = radius_for(k, eps, FACE_LP_TOL) if W is None else int(W)
    reps = face_patterns(n)
    if not len(reps):
        raise InputError(f"no face rows at n={n}")
    # every face row (sorted by its window key) and B(z) at each, the outputs E_B read there (ties included)
    pts = np.concatenate([_orbit(p) for p in reps])
    pkeys = candidate_rank(pts + FACE_LOW)
    order = np.argsort(pkeys)
    pts, pkeys = pts[order], pkeys[order]
    if window_outputs is None:
        rest = local_search_batch(a, n, eps, pts, orbits=True)
    else:
        if int(window_outputs[1]) < FACE_LOW:
            raise InputError(f"the window's outputs reach {window_outputs[1]}, the face rows {FACE_LOW}")
        rest = window_outputs_at(window_outputs[0], n, int(window_outputs[1]), pts)
    rest_rep = rest[np.searchsorted(pkeys, candidate_rank(reps + FACE_LOW))]
    D, valid = _row_outputs(a, n, reps, rest_rep)
    P, J = valid.shape
    base = n + FACE_LOW + 1
    rep_keys = _sorted_key(reps, base)
    # variables: orbits of (z, r) pairs, keyed by the sorted columns (z_i, r_i) of the representative's pairs
    span = 2 * base + 1
    pr, pj = np.nonzero(valid)
    cols = (reps[pr] + base) * span + (reps[pr] + D[pr, pj] + base)
    cols = np.sort(cols, axis=1)
    _, var = np.unique(cols, axis=0, return_inverse=True)
    var = var.reshape(-1)
    nv = int(var.max()) + 1
    vid = np.full((P, J), -1, dtype=np.int64)
    vid[pr, pj] = var
    # constrained data sets: sorted c of R(n) with E_B(c) >= share x max E_B, within W of a face row
    if low_errors is None:  # the release's own: E_B at the constrained data sets only, to a smaller radius
        cand = face_data_sets(n, eps, W)
        cand_low = lp_rest_errors(a, n, eps, cand, max_fallback=max_fallback, window_outputs=window_outputs)
        cand_low = np.where(cand_low >= share * cand_low.max(), cand_low, -1.0)
    else:
        R = candidates(n, k)
        low = np.asarray(low_errors, dtype=np.float64)
        cand = R[np.all(np.diff(R, axis=1) >= 0, axis=1)]
        cand_low = low[candidate_rank(cand)]
        cand_low = np.where(cand_low >= share * low.max(), cand_low, -1.0)
    ball = _ball(k, W)
    kw = np.exp(-eps * (np.abs(ball).sum(axis=1) // 2) - log_normaliser(k, eps))
    # the rest's output B(z) at every face row near the constrained data sets: its sorted row's, moved back
    rows_, vars_, coefs, b, keep = [], [], [], [], []
    for ci, c in enumerate(cand):
        if cand_low[ci] < 0:
            continue
        Z = c[None, :] + ball
        inF = in_faces(Z)
        if not inF.any():
            continue
        Zf, wf = Z[inF], kw[inF]
        perm = np.argsort(Zf, axis=1, kind="stable")
        S = np.take_along_axis(Zf, perm, axis=1)
        ri = np.searchsorted(rep_keys, _sorted_key(S, base))
        # outputs r: r[perm[i]] = S[i] + D[i]
        r = np.empty((len(Zf), J, k), dtype=np.int64)
        np.put_along_axis(r, np.broadcast_to(perm[:, None, :], r.shape), S[:, None, :] + D[ri], axis=2)
        rb_ = rest[np.searchsorted(pkeys, candidate_rank(Zf + FACE_LOW))]
        ok = valid[ri]
        L = pair_loss(a, np.broadcast_to(c, r.shape), r)
        row = len(keep)
        m, j = np.nonzero(ok)
        rows_.append(np.full(len(m), row))
        vars_.append(vid[ri[m], j])
        coefs.append(wf[m] * L[m, j])
        b.append(float(cand_low[ci]) - float(np.sum(wf * pair_loss(
            a, np.broadcast_to(c, rb_.shape), rb_))))
        keep.append(ci)
    C = cand[keep]
    nC = len(C)
    row, vv, coef = np.concatenate(rows_), np.concatenate(vars_), np.concatenate(coefs)
    M = sparse.csr_array((coef, (row, vv)), shape=(nC, nv))
    M.sum_duplicates()
    A_ub = sparse.hstack([M, sparse.csr_array(-np.ones((nC, 1)))], format="csr")
    A_eq = sparse.csr_array((np.ones(len(pr)), (pr, var)), shape=(P, nv + 1))
    A_eq.sum_duplicates()
    cost = np.zeros(nv + 1)
    cost[-1] = 1.0
    cost[:nv] = REGULARISER * np.asarray(M.sum(axis=0)).reshape(-1) / nC
    res = linprog(cost, A_ub=A_ub, b_ub=-np.array(b), A_eq=A_eq, b_eq=np.ones(P), bounds=(0, None),
                  method=lp_method(A_ub.nnz, A_ub.shape[1]))
    if res.status != 0:
        raise InputError(f"the face table's LP failed: {res.message}")
    x = np.clip(res.x[:-1], 0.0, None)
    x[x < 1e-12] = 0.0
    # the table at every face row: its orbit's values, the representative's outputs moved to the row's order
    perm = np.argsort(pts, axis=1, kind="stable")
    S = np.take_along_axis(pts, perm, axis=1)
    ri = np.searchsorted(rep_keys, _sorted_key(S, base))
    outs = np.empty((len(pts), J, k), dtype=np.int64)
    np.put_along_axis(outs, np.broadcast_to(perm[:, None, :], outs.shape), S[:, None, :] + D[ri], axis=2)
    probs = np.where(valid[ri], x[np.maximum(vid[ri], 0)], 0.0)
    probs /= probs.sum(axis=1, keepdims=True)
    lam = np.clip(-res.ineqlin.marginals, 0.0, None)
    cert = {"lp": float(res.x[-1]), "W": W, "rows": len(pts), "orbits": P, "variables": nv, "constraints": nC,
            "entries": int(M.nnz)}
    return FaceRemap(a=a, n=n, epsilon=eps, points=pts, outputs=outs, probs=probs, rest=rest, certificate=cert,
                     duals=(C, lam))


def face_errors_any(remap: FaceRemap, low_errors: NDArray[np.float64], We: int) -> NDArray[np.float64]:
    """``E(c)``'s window sum for every c of R(n) (module docstring, "Errors"): ``low_errors`` (``E_B``'s window sum
    over ``d(w) <= We``) plus the face rows' differences (:func:`.corners_any._table_deltas`); the upper end adds
    ``tail_bound(k, eps, We)``."""
    from .corners_any import _table_deltas, offset_weights, table_loss

    a, n, k = remap.a, remap.n, remap.a.size
    R = candidates(n, k)
    loss = table_loss(a, n, R)
    offs, wts = offset_weights(k, remap.epsilon, int(We))
    low = np.array(low_errors, dtype=np.float64, copy=True)
    _table_deltas(low, remap.points, remap.outputs, remap.probs, remap.rest, offs, wts, loss)
    return low


# -- the plan and the route: the rest's errors, the face LP, the table's differences --------------------------------

#: Seconds per face row of the solve (its rows' local searches, the LP's sums, HiGHS): measured at Dir(1,1,1,1),
#: eps = 1 (CPU s, the 2 shared cores at load 2-4, 2026-11-30): n = 30, 6,764 rows, 7.0 s; n = 50, 7,556 rows, 7.9 s;
#: twice the slowest, for the load.
FACE_ROW_SECONDS = 2.1e-3
#: Seconds per (row, offset) term of the table's differences (:func:`.corners_any._table_deltas`; as
#: ``DELTA_SECONDS`` of the corner table's).
FACE_TERM_SECONDS = 2e-7
#: The share of a face row's offsets ``d(w) <= We`` with ``z - w`` in R(n) (an upper end: a face row has one count
#: near 0, so at most about half its ball reaches R(n)).
FACE_TERM_SHARE = 0.5
#: Bytes per LP entry at the solve's peak (with its losses and the sparse copies), and a fixed part.
FACE_ENTRY_BYTES = 400.0
#: The LP's entries per face row (measured 149 at n = 50, eps = 1, W = 7; 105 at n = 30): an upper end, scaled by
#: the kernel's ball.
FACE_ENTRIES_PER_ROW = 200.0


def face_rows_count(n: int) -> int:
    """The face rows at n (every permutation of every pattern, :func:`face_patterns`): public n only."""
    return int(sum(len(set(itertools.permutations(p.tolist()))) for p in face_patterns(int(n))))


#: CPU seconds per face row and per ``face_reach^2`` of the release's own build (:func:`face_remap_any` without
#: ``low_errors``: the constrained data sets, :func:`lp_rest_errors`' searches and sums, the rows' searches and the LP;
#: a row's work grows with the data sets its searches and sums reach, about ``(n + 1)^2`` until :func:`face_reach`
#: stops growing), and a constant per row (:data:`FACE_TABLE_ROW_FIXED`).  Fitted to this code's builds at
#: Dir(1,1,1,1), eps = 1 (CPU s, ``time.process_time``, load ~1, each in a process of its own): n = 30, 40, 50, 60, 70,
#: 80, 100: 9.8, 15.5, 20.3, 21.7, 23.6, 24.7, 24.8 s, and again (``benchmarks/face_build_k4.json``) 9.0, 14.9, 19.5,
#: 21.2, 22.2, 22.5, 20.8 s; the rows' terms times ~1.35 (the constant a row raised to 8.5e-4 so that the builds
#: recorded at load 4 to 5.5 before the clamp groups, 14.87 s at n = 30 in ``benchmarks/face_shared_build.json``, stay
#: under it) and the scan of R(n)'s sorted data sets as before plan them at 15.1, 24.6, 33.5, 34.3, 35.4, 36.6 and
#: 39.8 s (1.59x to 1.92x the second runs).
#: The fit before (1.3e-6 and 1.3e-3, a reach to ``2 Dc + 1``) was set on the runs before the clamp groups (15.8, 29.6,
#: 38.9, 36.0 s at n = 30, 50, 70, 100, ``benchmarks/plans_h70.json``) and planned this code's
#: (48.8 s at n = 60, 70.1 at n = 100; 1.8x to 3.4x): the release's own build was refused from n = 55.
FACE_TABLE_ROW_SECONDS = 1.35e-6
FACE_TABLE_ROW_FIXED = 8.5e-4


def face_reach(n: int, k: int, epsilon: float) -> float:
    """The side ``min(n + 1, FACE_ZERO + FACE_SECOND + 2 (FACE_THIRD + W) + 1)`` of the data sets a face row's build
    reaches (:data:`FACE_TABLE_ROW_SECONDS`), ``W = radius_for(k, eps, FACE_LP_TOL)`` the LP's kernel cut (50 at eps =
    1); public n, k, eps only.  Sorting moves each coordinate by at most the largest move, so a data set within ``W``
    of a face row has its three smallest counts at most ``FACE_ZERO + W``, ``FACE_SECOND + W``, ``FACE_THIRD + W``:
    the constrained data sets (:func:`face_data_sets`) are bounded in number whatever n.  The cap's form is set where
    they were measured to stop growing (eps = 1: 297, 629, 798, 826 at n = 30, 40, 45, 48, and 827 at every n from 49
    to 70), and the build's work stops growing with them (19.5 to 24.8 CPU s from n = 50 to 100)."""
    W = radius_for(int(k), float(epsilon), FACE_LP_TOL)
    return float(min(int(n) + 1, FACE_ZERO + FACE_SECOND + 2 * (FACE_THIRD + W) + 1))


#: Bytes of that build at its peak per face row (its largest arrays: the union of the constrained data sets' balls
#: and the LP's entries), and a fixed part.
FACE_TABLE_ROW_BYTES = 1.2e5


#: CPU seconds of the table's build from the rest's window outputs (:func:`face_remap_any` with ``window_outputs``: no
#: search; the constrained data sets, :func:`lp_rest_errors`' sums read off the window, the LP): per face row, and per
#: sorted data set of R(n) (:func:`face_data_sets` scans them).  Measured at Dir(1,1,1,1), eps = 1 (CPU s, 2026-11-30,
#: ``benchmarks/face_shared_build.json``, load 4-5.5): n = 30, 6,764 rows, 5.6 s; n = 40, 7,556 rows, 4.9 s; n = 50, 7.8 s;
#: n = 100 (load ~3) 10.1 s.  Planned 7.3, 8.6, 9.2 and 15.5 (1.2x to 1.8x); the own build's plan there: 13.0, 25.4,
#: 39.3 and 154.2.
FACE_SHARED_ROW_SECONDS = 1.0e-3
FACE_SHARED_SET_SECONDS = 4.5e-4


def plan_face_shared(n: int, k: int, epsilon: float) -> Plan:
    """The plan of the face table's build from the rest's window outputs (:func:`face_remap_any` with
    ``window_outputs``: the errors' route, after ``lattice~average``'s search over the window): seconds
    :data:`FACE_SHARED_ROW_SECONDS` per face row plus :data:`FACE_SHARED_SET_SECONDS` per sorted data set of R(n), bytes
    as :func:`plan_face_table`'s (an upper end: no search's tables); public n, k, eps only; refused in one line at
    k != 4."""
    what, refused = _face_what(n, k, epsilon)
    if refused is not None:
        return refused
    rows = face_rows_count(n)
    sets = math.comb(int(n) + 3, 3) / 24.0 + float(n + 1) ** 2  # sorted 4-vectors of R(n): at most |R(n)| / 4! + n^2
    secs = FACE_SHARED_ROW_SECONDS * rows + FACE_SHARED_SET_SECONDS * sets
    return Plan(task=Task.ERRORS, route="face table", what=what, seconds=secs,
                memory_bytes=FACE_TABLE_ROW_BYTES * rows + 8.0 * 4 * (n + 1) ** 2 + 64.0 * 2**20,
                costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", secs),), advice="use --objective average")


def _face_what(n: int, k: int, epsilon: float) -> tuple[str, Plan | None]:
    """What the face table's plans name, and their one-line refusal at k != 4 (None at k = 4)."""
    what = f"the face table of the lattice release for k={k}, n={n}, eps={float(epsilon):g}"
    if k != 4:
        return what, Plan(task=Task.ERRORS, route="face table", what=what,
                          refusal=f"{what}: the face table is built for k = 4 only")
    return what, None


def plan_face_table(n: int, k: int, epsilon: float) -> Plan:
    """The plan of the release's face table (:func:`face_remap_any` without ``low_errors``, a solve): its seconds per face
    row (:data:`FACE_TABLE_ROW_FIXED`) and per face row and ``min(n + 1, 2 Dc + 1)^2`` (:data:`FACE_TABLE_ROW_SECONDS`,
    :func:`face_reach`), the scan of R(n)'s sorted data sets (:data:`FACE_SHARED_SET_SECONDS`, as
    :func:`plan_face_shared`), bytes per face row (:data:`FACE_TABLE_ROW_BYTES`) and R(n)'s, from public n, k, eps only;
    refused in one line at k != 4."""
    what, refused = _face_what(n, k, epsilon)
    if refused is not None:
        return refused
    rows = face_rows_count(n)
    # the rows' searches and sums, and the scan of R(n)'s sorted data sets for the LP's (face_data_sets, as the shared
    # build's: R(n) itself held while it runs)
    sets = math.comb(int(n) + 3, 3) / 24.0 + float(n + 1) ** 2
    secs = (rows * (FACE_TABLE_ROW_FIXED + FACE_TABLE_ROW_SECONDS * face_reach(n, k, epsilon) ** 2)
            + FACE_SHARED_SET_SECONDS * sets)
    return Plan(task=Task.ERRORS, route="face table", what=what, seconds=secs,
                memory_bytes=(FACE_TABLE_ROW_BYTES * rows + 8.0 * 4 * (n + 1) ** 2 + 8.0 * 4 * math.comb(int(n) + 3, 3)
                              + 64.0 * 2**20),
                costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", secs),), advice="use --objective average")


def plan_face_any(n: int, k: int, epsilon: float, We: int) -> Plan:
    """The plan of the face table's solve and its differences at (n, k, eps) (:func:`face_release_errors` after the
    rest's errors, whose plan is ``lattice~average``'s): ``FACE_ROW_SECONDS x rows`` for the solve, the differences'
    terms (rows x ``|ball(We)|`` x :data:`FACE_TERM_SHARE`) at :data:`FACE_TERM_SECONDS`; memory the LP's entries.
    Public inputs only; refused in one line at k != 4."""
    from .noise import sphere_count

    what, refused = _face_what(n, k, epsilon)
    if refused is not None:
        return refused
    eps = float(epsilon)
    rows = face_rows_count(n)
    ball = sum(sphere_count(k, t) for t in range(int(We) + 1))
    lp_ball = sum(sphere_count(k, t) for t in range(radius_for(k, eps, FACE_LP_TOL) + 1))
    terms = FACE_TERM_SHARE * rows * ball
    secs = FACE_ROW_SECONDS * rows + FACE_TERM_SECONDS * terms
    entries = FACE_ENTRIES_PER_ROW * rows * lp_ball / 1000.0
    memory = FACE_ENTRY_BYTES * entries + 8.0 * 4 * (n + 1) ** 2 + 64.0 * 2**20
    return Plan(task=Task.ERRORS, route="face table", what=what, seconds=secs, memory_bytes=memory,
                costs=(("DPPOSTERIOR_MAX_SOLVE_SECONDS", secs),), advice="use lattice~average")


def face_release_errors(prior: ArrayLike, n: int, epsilon: float, We: int, max_fallback: int | None = None,
                        stats: dict | None = None):
    """The face release's errors (module docstring) for every c of R(n), k = 4, a symmetric prior, as a
    :class:`.scale.Bracket` ``low <= E <= low + tail_bound(k, eps, We)``, and its table: :func:`plan_face_any` admitted
    first (one line past the limits), then the rest's window errors (``lattice~average``'s route:
    :func:`.batched.local_search_batch` over ``window(n, 4, We)`` by orbits, :func:`.batched.window_errors_any`), the
    LP (:func:`face_remap_any`) and the table's differences (:func:`face_errors_any`).  ``stats``: filled with each
    part's CPU seconds."""
    import time

    from ..limits import admit
    from .batched import local_search_batch, window_errors_any
    from .noise import tail_bound, window
    from .scale import Bracket

    a = _validate.prior(prior)
    n = _validate.integer(n, "n", 1)
    eps = _validate.epsilon(epsilon)
    admit(plan_face_any(n, a.size, eps, We))
    if not symmetric_prior(a):
        raise InputError("the face table is built for k = 4 at a symmetric prior")
    stats = {} if stats is None else stats
    t = time.process_time()
    out = local_search_batch(a, n, eps, window(n, a.size, int(We)), max_fallback=max_fallback, orbits=True)
    low = window_errors_any(a, n, eps, out, int(We)).low
    stats["rest"] = time.process_time() - t
    t = time.process_time()
    remap = face_remap_any(a, n, eps, low)
    stats["solve"] = time.process_time() - t
    t = time.process_time()
    E = face_errors_any(remap, low, int(We))
    stats["differences"] = time.process_time() - t
    stats["rest_worst"] = float(low.max() + tail_bound(a.size, eps, int(We)))
    return remap, Bracket(candidates(n, a.size), E, float(tail_bound(a.size, eps, int(We))), len(_ball(a.size, int(We))))
