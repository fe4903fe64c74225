"""The minimax remap ``argmin_T max_c E_T(c)`` with an exact certificate (docs/definitions.md §10, k = 2).

A restricted linear program (HiGHS) grown by constraint and column generation; the bounds
``lower = B(lam)`` and ``upper = max_c E_T(c)`` are recomputed exactly from the result, so soundness
never rests on the LP.  :func:`dpposterior.remap.minimax_ends` is the large-n variant.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse

from ..errors import InputError, SizeError
from .kernel import GeometricKernel
from .loss import Loss, PairLoss, as_loss
from .risk import Remap, _as_remap, _risk_terms, _scores, _weights, _window_sums, risk

__all__ = ["RemapGapError", "MinimaxResult", "minimax_remap", "pair_scores"]

#: Largest constraint matrix of the restricted minimax LP (each nonzero ~40 bytes inside HiGHS).
MAX_LP_NONZEROS = 20_000_000


class RemapGapError(InputError):
    """The minimax search stopped before its certified gap reached the requested tolerance."""


class MinimaxResult(NamedTuple):
    """``remap`` (randomised, sparse), certified ``lower <= min_T max_c E_T(c) <= upper``,
    ``gap = (upper - lower)/upper`` and the least favourable ``lam`` found."""

    remap: Remap
    lower: float
    upper: float
    gap: float
    lam: NDArray[np.float64]


def _solve_restricted(kernel, loss, C, pairs_z, pairs_r, zact_mask, base: Remap, W: int, drop: float,
                      methods=("highs", "highs-ds", "highs-ipm"), pair_cost=None, t_cap=None,
                      tight_first: bool = True):
    """min t s.t. E(c) <= t (c in C) over T(z, r), (z, r) in the listed pairs (z active), the
    other rows of T fixed at ``base``.  Returns (t, {z: (r, p)}, lam on C).

    Second stage (``pair_cost`` given): minimise ``sum pair_cost * T(z, r)`` instead, subject to
    ``E(c) <= t <= t_cap`` on the same constraints.

    ``methods`` are tried in order until one solves: a name is tried with tight tolerances, then HiGHS'
    defaults (only the defaults if not ``tight_first``); a ``(name, options)`` pair once, as given."""
    N = kernel.size
    C = np.asarray(C, dtype=np.int64)
    nv = pairs_z.size
    # constant part of E(c): rows z that are not active, within q^W <= 1e-18 of c (O(|C| W); a search LP
    # only: every certificate is recomputed from T)
    if isinstance(loss, PairLoss):
        const = _window_sums(kernel, base, loss, C, min(kernel.n, kernel.window(1e-18)), skip=zact_mask)
        Lc = None
    else:
        const = (_risk_terms(kernel, base, loss, C) * (~zact_mask)[None, :]).sum(axis=1)
        Lc = loss.block(C, np.arange(N))
    order = np.argsort(pairs_z, kind="stable")
    pz, pr = pairs_z[order], pairs_r[order]
    nnz = int((np.searchsorted(pz, C + W, side="right") - np.searchsorted(pz, C - W, side="left")).sum())
    if nnz > MAX_LP_NONZEROS:
        raise SizeError(f"the restricted minimax LP would have {nnz:,} nonzeros (over {MAX_LP_NONZEROS:,}); "
                        f"eps = {kernel.eps:g} spreads each count over ~{W} cells at n = {kernel.n}: "
                        "use a smaller band or a larger eps")
    # every (c, pair) with |z - c| <= W, gathered at once: c's pairs are pz[lo[c]:hi[c]]
    lo = np.searchsorted(pz, C - W, side="left")
    hi = np.searchsorted(pz, C + W, side="right")
    lens = hi - lo
    idx = np.repeat(lo - (np.cumsum(lens) - lens), lens) + np.arange(int(lens.sum()))
    ii = np.repeat(np.arange(C.size), lens)
    cc = C[ii]
    v = kernel.pmf(pz[idx], cc) * (Lc[ii, pr[idx]] if Lc is not None else loss.pairs(cc, pr[idx]))
    ok = v > drop
    rows, cols, vals = [ii[ok]], [order[idx][ok]], [v[ok]]
    rows.append(np.arange(C.size))
    cols.append(np.full(C.size, nv))
    vals.append(-np.ones(C.size))
    A_ub = sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(C.size, nv + 1))
    zs, zinv = np.unique(pairs_z, return_inverse=True)
    A_eq = sparse.csr_array((np.ones(nv), (zinv, np.arange(nv))), shape=(zs.size, nv + 1))
    obj = np.zeros(nv + 1)
    if pair_cost is None:
        obj[-1] = 1.0
    else:
        obj[:nv] = pair_cost
    from scipy.optimize import linprog  # imported where an LP is solved

    # tight tolerances first; HiGHS' defaults if it stops without a status (Beta(0.5,0.5), n = 500, eps = 0.25):
    # a search LP only, every certificate is recomputed exactly from T
    tight = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
    attempts = []  # a name: tight tolerances, then HiGHS' defaults; a (name, options) pair: as given
    for m in methods:
        attempts += [(m, o) for o in ((tight, {}) if tight_first else ({},))] if isinstance(m, str) else [m]
    res = None
    for method, opts in attempts:
        res = linprog(obj, A_ub=A_ub, b_ub=-const, A_eq=A_eq, b_eq=np.ones(zs.size),
                      bounds=[(0, None)] * nv + [(None, t_cap)], method=method, options=opts)
        if res.status == 0:
            break
    if res is None or res.status != 0:
        raise InputError(f"the restricted minimax LP failed: {getattr(res, 'message', '')}")
    x = np.maximum(res.x[:nv], 0.0)
    lam = np.maximum(-res.ineqlin.marginals, 0.0) if pair_cost is None else np.zeros(C.size)
    # group pairs by z efficiently
    grp = np.argsort(zinv, kind="stable")
    bounds_ = np.searchsorted(zinv[grp], np.arange(zs.size + 1))
    out = {}
    for k, z in enumerate(zs):
        idx = grp[bounds_[k]: bounds_[k + 1]]
        p = x[idx]
        mx = p.max()
        keep = p > 1e-12 * max(mx, 1e-300)
        if not keep.any():
            keep = p == mx
        out[int(z)] = (pairs_r[idx][keep], p[keep])
    return float(res.x[-1]), out, lam


def pair_scores(kernel: GeometricKernel, weights: ArrayLike, loss: Loss | ArrayLike, pairs_z: ArrayLike, pairs_r: ArrayLike,
                tail: float = 1e-18) -> NDArray[np.float64]:
    """``S_w(z, r) = sum_c w(c) G(z | c) L(c, r)`` at listed pairs (docs/definitions.md §10), O(W) per pair.

    The sum runs over ``|c - z| <= W`` with ``q^W <= tail`` (:meth:`GeometricKernel.window`), so it is
    below the exact value by at most ``tail * max L`` (relative to ``sum_c w(c) = 1``): an objective for
    the second stage of :func:`minimax_remap`, never a certificate.
    """
    loss = as_loss(loss, kernel.n)
    w = _weights(weights, kernel.size)
    pz = np.asarray(pairs_z, dtype=np.int64).reshape(-1)
    pr = np.asarray(pairs_r, dtype=np.int64).reshape(-1)
    W = kernel.window(tail)
    out = np.empty(pz.size)
    order = np.argsort(pz, kind="stable")
    zs, first = np.unique(pz[order], return_index=True)
    bounds_ = np.append(first, pz.size)
    for i, z in enumerate(zs):
        idx = order[bounds_[i]: bounds_[i + 1]]
        cs = np.arange(max(0, int(z) - W), min(kernel.n, int(z) + W) + 1)
        v = w[cs] * kernel.pmf(int(z), cs)
        out[idx] = v @ loss.block(cs, pr[idx])
    return out


def minimax_remap(kernel: GeometricKernel, loss: Loss | ArrayLike, *, tol: float = 1e-4, band: int | None = None,
                  start=None, max_rounds: int = 40, strict: bool = True, verbose: bool = False,
                  average_weights: ArrayLike | None = None) -> MinimaxResult:
    """The minimax remap ``argmin_T max_c E_T(c)`` with a certificate (docs/definitions.md §10).

    Algorithm (restricted LP with constraint and column generation; the bounds are exact):

    1. Start from ``T0`` (identity, or ``start``) and compute ``E_T0(c)`` for every c exactly.
    2. Active inputs ``Z``: the z within ``ln(1e10)/eps`` of a c with ``E_T0(c) >= 0.5 max E``
       (all z when n < 64); candidate outputs ``R_z`` (``|r - z| <= band``, default ``1/eps + 1``;
       all r when n < 64); constrained data sets ``C``: every c within ``W = ln(1e18)/eps`` of Z
       (so no c outside C moves by more than ~1e-18).  Solve with HiGHS ``min t`` s.t.
       ``E_T(c) <= t`` for c in C, over ``T(z, r)``, ``z in Z``, ``r in R_z``; rows outside Z are
       fixed (their contribution to ``E(c)`` is an exact constant; coefficients below 1e-13 are
       dropped from the search LP only, and restored if the search stalls).  ``lam`` = the LP's duals on C (they sum to 1).
    3. Certificate, exactly (no truncation): ``upper = max_c E_T(c)`` over ALL c and
       ``lower = B(lam) = sum_z min_{all r} S_lam(z, r)`` over ALL z and r.  By weak duality of the
       game, ``lower <= min_T max_c E_T(c) <= upper`` whatever the LP returned.
    4. If ``(upper - lower)/upper > tol``, grow: inputs near a c outside C with ``E(c)`` near or
       above the LP's t join Z (and C grows with Z);
       the Bayes responses ``argmin_r S_lam(z, r)`` (and neighbours) join ``R_z``; inputs z outside
       Z whose fixed row loses to the Bayes response join Z.  The restricted LP's value minus
       ``B(lam)`` is the sum of those losses (LP duality, up to the dropped 1e-13 coefficients) and
       ``upper - t`` comes from c outside C, so each round removes a cause of the gap; the sets only
       grow and are finite, and when no cause remains ``lower = t = upper`` up to the LP tolerance
       (1e-10).  Soundness never rests on the LP: both bounds are recomputed from T and lam.

    5. Second stage (``average_weights`` given, e.g. the prior predictive): on the same restricted
       LP, minimise the weighted average error of the active rows, ``sum T(z, r) S_w(z, r)``
       (:func:`pair_scores`), subject to ``E(c) <= upper`` for every constrained c, so that among
       minimax remaps the one released is also good on average (slack rows no longer arbitrary).
       The certificate is recomputed exactly afterwards (``upper`` over all c, ``lower`` unchanged);
       if its gap exceeds ``tol`` the first-stage remap is kept.

    Returns :class:`MinimaxResult`.  If the gap is not reached: :class:`RemapGapError` when
    ``strict`` (else the result with its larger gap).  Guarantee of the release: eps-DP by
    post-processing for any T; the risk bounds are exact up to float64 rounding (~1e-13 relative).
    """
    loss = as_loss(loss, kernel.n)
    n, N = kernel.n, kernel.size
    W = kernel.window(1e-18)    # a row z moves E(c) by < 1e-18 beyond this distance
    Wz = kernel.window(1e-10)   # rows activated around a data set of interest
    K = band if band is not None else max(2, math.ceil(1.0 / kernel.eps) + 1)
    small = N < 64
    T = _as_remap(start, N) if start is not None else Remap.identity(n)
    E = risk(kernel, T, loss)
    zact = np.zeros(N, dtype=bool)
    cmask = np.zeros(N, dtype=bool)  # constrained data sets: every c within W of an active row
    Rz: dict[int, set[int]] = {}

    def spread(mask, width):
        idx = np.flatnonzero(mask)
        mark = np.zeros(N + 1, dtype=np.int64)
        np.add.at(mark, np.clip(idx - width, 0, N), 1)
        np.add.at(mark, np.clip(idx + width + 1, 0, N), -1)
        return np.cumsum(mark)[:N] > 0

    def activate(zs):
        for z in np.asarray(zs, dtype=np.int64).reshape(-1):
            z = int(z)
            if not zact[z]:
                zact[z] = True
                Rz[z] = set(range(N)) if small else set(range(max(0, z - K), min(n, z + K) + 1))
                Rz[z].update(T.row(z)[0].tolist())
        cmask[:] |= spread(zact, W)

    core = np.ones(N, dtype=bool) if small else E >= 0.5 * E.max()
    activate(np.flatnonzero(spread(core, Wz)))
    lower, upper, gap = 0.0, float(E.max()), math.inf
    lam = np.zeros(N)
    drop = 1e-13
    Wc = min(W, kernel.window(drop))  # coefficients G(z|c) L(c,r) below `drop` leave the search LP
    for rnd in range(max_rounds):
        zs_sorted = np.flatnonzero(zact)
        pz = np.concatenate([np.full(len(Rz[z]), z, dtype=np.int64) for z in zs_sorted])
        pr = np.concatenate([np.fromiter(sorted(Rz[z]), dtype=np.int64) for z in zs_sorted])
        Cl = np.flatnonzero(cmask)
        t_lp, rows, lam_c = _solve_restricted(kernel, loss, Cl, pz, pr, zact, T, W if drop == 0 else Wc, drop)
        T = Remap.from_rows(rows, T)
        lam = np.zeros(N)
        lam[Cl] = lam_c
        if lam.sum() <= 0:
            lam[Cl[np.argmax(E[Cl])]] = 1.0
        lam /= lam.sum()
        # exact risks where the active rows reach (elsewhere E moves by < 1e-18; all c at the end)
        near = np.flatnonzero(cmask)
        E[near] = risk(kernel, T, loss, near)
        smin, resp, s_at = _scores(kernel, lam, loss, T)
        lower = float(smin.sum())
        upper = float(E.max())
        gap = (upper - lower) / upper if upper > 0 else 0.0
        if verbose:
            lost_ = s_at - smin
            outside = sum(int(resp[z]) not in Rz[int(z)] for z in np.flatnonzero(zact))
            print(f"round {rnd}: |C|={int(cmask.sum())} |Z|={int(zact.sum())} pairs={pz.size} t_lp={t_lp:.9f} "
                  f"lower={lower:.9f} upper={upper:.9f} gap={gap:.3g}; loss on active rows "
                  f"{lost_[zact].sum():.3g} (max at z={int(np.argmax(np.where(zact, lost_, -1)))}), inactive "
                  f"{lost_[~zact].sum():.3g}; responses outside R_z: {outside}")
        if gap <= tol:
            E = risk(kernel, T, loss)  # the final certificate: every c, exactly
            upper = float(E.max())
            gap = (upper - lower) / upper if upper > 0 else 0.0
            if gap <= tol:
                break
        # grow the restricted problem (the gap's causes: docstring, step 4)
        before = int(zact.sum()) + sum(len(v) for v in Rz.values())
        hot = (~cmask) & (E > t_lp * (1.0 - 1e-3))
        lost = s_at - smin
        far = (~zact) & (lost > tol * upper / (8.0 * N))
        activate(np.flatnonzero(spread(hot, Wz) | far))
        for z in np.flatnonzero(zact):
            rz = Rz[int(z)]
            for r in (resp[z] - 1, resp[z], resp[z] + 1):
                if 0 <= r <= n:
                    rz.add(int(r))
        if int(zact.sum()) + sum(len(v) for v in Rz.values()) == before:
            if drop > 0:
                drop = 0.0
                continue
            break
    if not gap <= tol and strict:
        raise RemapGapError(f"minimax remap: certified gap {gap:.3g} > tol {tol:g} after the search "
                            f"(lower {lower:.9g}, upper {upper:.9g})")
    if average_weights is not None and gap <= tol:
        zs_sorted = np.flatnonzero(zact)
        pz = np.concatenate([np.full(len(Rz[z]), z, dtype=np.int64) for z in zs_sorted])
        pr = np.concatenate([np.fromiter(sorted(Rz[z]), dtype=np.int64) for z in zs_sorted])
        cost = pair_scores(kernel, average_weights, loss, pz, pr)
        scale = float(cost.max()) or 1.0
        try:
            # interior point with HiGHS' default tolerances: this LP is degenerate at its optimum face
            # (tight tolerances stall both simplex and IPM).  Without presolve first: at Beta(5,5), n = 500,
            # eps = 0.25 (scipy 1.17, HiGHS 1.12) IPM after presolve spends 2,700 crossover iterations (21 s, as
            # long as dual simplex), without it 137 (1.9 s), at the same optimum to 4e-8.  The result is kept
            # only if its exact certificate holds.
            _, rows2, _ = _solve_restricted(kernel, loss, np.flatnonzero(cmask), pz, pr, zact, T, W, 0.0,
                                            methods=(("highs-ipm", {"presolve": False}), "highs-ipm", "highs"),
                                            pair_cost=cost / scale, t_cap=upper, tight_first=False)
        except InputError:
            rows2 = None
        if rows2 is not None:
            T2 = Remap.from_rows(rows2, T)
            upper2 = float(risk(kernel, T2, loss).max())
            gap2 = (upper2 - lower) / upper2 if upper2 > 0 else 0.0
            if gap2 <= tol:
                T, upper, gap = T2, upper2, gap2
    return MinimaxResult(T, lower, upper, gap, lam)

