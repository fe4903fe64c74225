"""The minimax remap at large n: non-identity rows in two end windows, a local certificate (docs/definitions.md §10).

Every step costs O(n) at most, none O(n^2); the certificate is rigorous at every n (nothing is truncated
without a bound: :func:`identity_risk_bound` covers the interior).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InputError
from ..models import check_size
from .kernel import GeometricKernel
from .loss import HellingerLoss, Loss, as_loss
from .minimax import MinimaxResult, RemapGapError, _solve_restricted, pair_scores
from .risk import Remap, risk

__all__ = ["identity_risk_bound", "minimax_ends"]


def identity_risk_bound(kernel: GeometricKernel, prior: ArrayLike) -> NDArray[np.float64]:
    """A rigorous upper bound ``U(c) >= E_id(c) = sum_z G(z | c) H(c, z)`` for every c, O(n) (docs/definitions.md §10).

    Proof.  (i) Unit steps: both posteriors have the same total, so ``ln BC`` of ``c = x`` and ``x + 1`` is
    ``J(a1 + x) + J(a2 + n - x - 1)`` with ``-J(y) = (lnG(y) + lnG(y + 1))/2 - lnG(y + 1/2)
    = (1/2) ln(y G(y)^2 / G(y + 1/2)^2)``; Wendel's inequality ``G(y + 1/2) >= G(y) y / sqrt(y + 1/2)``
    gives ``-J(y) <= (1/2) ln(1 + 1/(2y)) <= 1/(4y)``, and ``H^2 = 1 - BC <= -ln BC``, so
    ``H(x, x + 1) <= phi(x) = sqrt(1/(4 (a1 + x)) + 1/(4 (a2 + n - x - 1)))``.  (ii) H is a metric, so
    ``H(c, z) <= sum of phi over the |z - c| steps between them``.  (iii) ``z = clamp(c + D)`` is between c
    and ``c + D``, so ``E_id(c) <= sum_{j >= 0} phi(c + j) P(D > j) + sum_{j >= 0} phi(c - 1 - j) P(D < -j)``
    with ``P(D > j) = P(D < -j) = q^(j+1)/(1+q)``: two sums ``sum_j q^j phi(.)``, computed as convolutions with
    ``q^j``, ``j <= J`` (``q^J <= 1e-20``), plus the rest's bound ``q^(J+1)/(1-q) max phi``; a factor
    ``1 + 1e-12`` covers float64 rounding.  O(n J); past ``n J = 5e7`` the exact recurrences (lfilter).
    """
    a = np.asarray(prior, dtype=np.float64).reshape(-1)
    n, q = kernel.n, kernel.q
    if n == 0:
        return np.zeros(1)
    x = np.arange(n, dtype=np.float64)
    phi = np.sqrt(0.25 / (a[0] + x) + 0.25 / (a[1] + n - x - 1.0))
    right = np.zeros(n + 1)
    left = np.zeros(n + 1)
    J = kernel.window(1e-20)
    if n * J <= 50_000_000:
        kern = np.exp(-kernel.eps * np.arange(J + 1))
        rest = math.exp(-kernel.eps * (J + 1)) / -math.expm1(-kernel.eps) * float(phi.max())
        right[:n] = np.correlate(np.concatenate([phi, np.zeros(J)]), kern, mode="valid") + rest  # sum_j q^j phi(c + j)
        left[1:] = np.convolve(phi, kern)[:n] + rest                                            # sum_j q^j phi(c - 1 - j)
    else:
        from scipy.signal import lfilter

        right[:n] = lfilter([1.0], [1.0, -q], phi[::-1])[::-1]
        left[1:] = lfilter([1.0], [1.0, -q], phi)
    return (q / (1.0 + q)) * (right + left) * (1.0 + 1e-12)


def _side_lower(kernel: GeometricKernel, loss: Loss, C: NDArray[np.int64], lam: NDArray[np.float64], left: bool):
    """``B(lam)`` for lam on one end (normalised), with the Bayes response and ``S(z, z)`` on that end's z.

    Exact as a lower bound: the z outside ``[0, max supp + W]`` (left end) are dropped (terms >= 0), and
    ``min_r`` over every r is attained at ``r <= max supp lam`` (``L(c, r)`` nondecreasing in ``r >= c``:
    :func:`minimax_ends`), which the range of r covers; mirror image at the right end."""
    n, W = kernel.n, kernel.window(1e-18)
    keep = lam > 0
    supp, w = C[keep], lam[keep] / lam[keep].sum()
    if left:
        grid = np.arange(0, min(n, int(supp.max()) + W) + 1)
    else:
        grid = np.arange(max(0, int(supp.min()) - W), n + 1)
    G = kernel.pmf(grid[:, None], supp[None, :]) * w[None, :]
    S = G @ loss.block(supp, grid)  # S[z, r], z and r both over the grid
    j = np.argmin(S, axis=1)
    smin = S[np.arange(grid.size), j]
    return float(smin.sum()), grid, grid[j], smin, np.diagonal(S).copy()


def minimax_ends(kernel: GeometricKernel, loss: Loss | ArrayLike, *, tol: float = 1e-4, A: int | None = None,
                 band: int | None = None, average_weights: ArrayLike | None = None,
                 max_rounds: int = 30, strict: bool = True, atol: float = 0.0) -> MinimaxResult:
    """A minimax remap whose non-identity rows lie in two end windows, with a certificate computed locally
    (docs/definitions.md §10).  For large n: every step costs O(n) at most, none O(n^2).

    The remap: ``T(z) = z`` except for the free rows ``z < A`` and ``z > n - A``; those rows solve the
    restricted LP ``min t`` s.t. ``E_T(c) <= t`` for the constrained c (every c within ``W = ln(1e18)/eps``
    of a free row), outputs ``|r - z| <= band`` grown by Bayes responses, as :func:`minimax_remap`.
    Certificate, rigorous for every remap and every n (nothing is truncated without a bound):

    * lower: ``max`` over the two ends of ``B(lam_end)`` (lam = the LP's duals restricted to one end and
      normalised; each is a distribution, so each Bayes risk is a lower bound).  Along the outputs
      ``r -> Beta(a1 + r, a2 + n - r)`` (a line in the Beta family's natural parameters, log-partition
      ``K`` convex) ``ln BC(s, t) = K((s+t)/2) - (K(s) + K(t))/2`` has ``d/dt = (K'((s+t)/2) - K'(t))/2 <= 0``
      for ``t >= s``: ``L(c, r)`` is nondecreasing in ``r >= c`` (and in ``r <= c`` downwards), so for lam
      on c <= m the minimum over all r is attained at ``r <= m`` (:func:`_side_lower`);
    * upper: ``E_T(c)`` by :func:`risk` on the constrained c; for every other c the free rows are farther
      than W (mass ``<= 2 q^(W+1)/(1+q)``, loss <= 1) and the identity rows give at most
      :func:`identity_risk_bound` ``U(c)``, so ``upper = max(max_C E_T, max_(c not in C) U(c) + 2 q^(W+1)/(1+q))``.

    If the gap exceeds ``tol``: Bayes responses join the free rows' outputs; a non-free z whose identity
    row loses to its Bayes response, or an interior bound above the LP's t, doubles A.  Second stage
    (``average_weights``): among the free rows only (interior rows stay the identity, so this remap and its
    local solution are one object), minimise the weighted average subject to ``E(c) <= upper`` on C; kept
    if its certificate (recomputed) still meets ``tol``.  Raises :class:`InputError` when the windows
    would cover the range (use :func:`minimax_remap`), :class:`RemapGapError` (``strict``) when the gap is
    not reached.  ``atol``: the search also stops once ``upper - lower <= atol`` (an absolute certificate: at large
    eps every error is below float64's resolution of them, ~1e-16 at eps = 30, and a relative gap never closes; the
    windows would otherwise double until their dense ``(A + 2W)^2`` blocks exhaust the memory).  The windows'
    blocks are refused past the memory budget (``models.check_size``), as the caller's other refusals.
    """
    loss = as_loss(loss, kernel.n)
    if not isinstance(loss, HellingerLoss):
        raise InputError("minimax_ends needs the Hellinger loss (its interior bound is for Hellinger)")
    n, N = kernel.n, kernel.size
    W = kernel.window(1e-18)
    K = band if band is not None else max(2, math.ceil(1.0 / kernel.eps) + 1)
    A = int(A) if A is not None else 4 * W
    tail = 2.0 * math.exp(-(W + 1) * kernel.eps) / (1.0 + kernel.q)
    U = identity_risk_bound(kernel, loss.prior)
    identity = Remap.identity(n)
    Rz: dict[int, set[int]] = {}

    def windows(A):
        if 2 * (A + 2 * W) + 2 > n:
            raise InputError(f"the end windows (A = {A}, W = {W}) cover 0..{n}: use minimax_remap")
        # _side_lower's dense blocks over one end's grid (G, the loss block, S): refused before they are built
        check_size((A + 2 * W + 1) ** 2, 3 * 8, f"the minimax remap's end windows (A = {A}, W = {W}) at n = {n}")
        free = np.zeros(N, dtype=bool)
        free[:A] = True
        free[n - A + 1:] = True
        cm = np.zeros(N, dtype=bool)
        cm[: A + W] = True
        cm[n - A - W + 1:] = True
        for z in np.flatnonzero(free).tolist():
            Rz.setdefault(z, set(range(max(0, z - K), min(n, z + K) + 1)))
        return free, np.flatnonzero(cm), float(U[~cm].max()) + tail if (~cm).any() else 0.0

    free, C, inner = windows(A)
    lower, upper, gap, T, lam_c = 0.0, math.inf, math.inf, identity, np.zeros(0)
    pz = pr = np.zeros(0, dtype=np.int64)
    for _ in range(max_rounds):
        zs = np.flatnonzero(free)
        pz = np.concatenate([np.full(len(Rz[z]), z, dtype=np.int64) for z in zs.tolist()])
        pr = np.concatenate([np.fromiter(sorted(Rz[z]), dtype=np.int64) for z in zs.tolist()])
        t_lp, rows, lam_c = _solve_restricted(kernel, loss, C, pz, pr, free, identity, W, 0.0)
        T = Remap.identity_with_rows(n, rows)
        E_C = risk(kernel, T, loss, C)
        upper = max(float(E_C.max()), inner)
        if lam_c.sum() <= 0:
            lam_c = (E_C == E_C.max()).astype(np.float64)
        lower, grow_A = 0.0, inner > t_lp * (1.0 - 1e-3)
        for left in (True, False):
            lam = lam_c * ((C <= n // 2) if left else (C > n // 2))
            if lam.sum() <= 0:
                continue
            b, grid, resp, smin, s_diag = _side_lower(kernel, loss, C, lam, left)
            lower = max(lower, b)
            for z, r in zip(grid.tolist(), resp.tolist()):
                if free[z]:
                    Rz[z].update(x for x in (r - 1, r, r + 1) if 0 <= x <= n)
            lost = s_diag - smin
            grow_A |= bool(np.any((~free[grid]) & (lost > tol * upper / (8.0 * grid.size))))
        gap = (upper - lower) / upper if upper > 0 else 0.0
        if gap <= tol or upper - lower <= atol:
            break
        if grow_A:
            A *= 2
            free, C, inner = windows(A)
        elif sum(len(v) for v in Rz.values()) == pz.size:
            break  # nothing left to grow: the gap stands (refused by the caller, or RemapGapError)
    if not (gap <= tol or upper - lower <= atol) and strict:
        raise RemapGapError(f"minimax remap (end windows): certified gap {gap:.3g} > tol {tol:g} after the search "
                            f"(lower {lower:.9g}, upper {upper:.9g})")
    if average_weights is not None and gap <= tol:
        cost = pair_scores(kernel, average_weights, loss, pz, pr)
        scale = float(cost.max()) or 1.0
        try:
            _, rows2, _ = _solve_restricted(kernel, loss, C, pz, pr, free, identity, W, 0.0,
                                            pair_cost=cost / scale, t_cap=upper)
        except InputError:
            rows2 = None
        if rows2 is not None:
            T2 = Remap.identity_with_rows(n, rows2)
            upper2 = max(float(risk(kernel, T2, loss, C).max()), inner)
            gap2 = (upper2 - lower) / upper2 if upper2 > 0 else 0.0
            if gap2 <= tol:
                T, upper, gap = T2, upper2, gap2
    lam = np.zeros(N)
    if lam_c.size:
        lam[C] = lam_c / lam_c.sum()
    return MinimaxResult(T, lower, upper, gap, lam)

