"""One column of the remapped lattice release's pmf: the likelihood ``P(r | c)`` of one output at every data set.

Definition (docs/lattice.md, "The noise-aware posterior").  The release draws ``z = c + w`` with
``K(z | c) = e^(-eps d(z - c)) / Z(eps, k)`` (:mod:`.noise`) and outputs ``r`` with probability ``T(z, r)``, a remap
that is a function of ``z`` alone, so the likelihood of a released ``r`` is one column of the pmf,

    ``P(r | c) = sum_z K(z | c) T(z, r)``.

The column needs ``T`` only at the z that map to r.  Over the window ``window(n, k, W) = {z : sum z = n,
z_i >= -W}`` (:func:`.noise.window`), with ``S_r`` its points with ``T(z, r) > 0``,

    ``P_W(r | c) = sum over z in S_r of K(z | c) T(z, r)``.

Bracket (proof).  Every term is ``>= 0`` and ``T(z, r) <= 1``, so ``P_W(r | c) <= P(r | c)``; the terms left out are
those of the z outside the window, whose kernel mass is at most ``tail = tail_bound(k, eps, W)`` for every c of R(n)
(a z outside has some ``z_i < -W <= -W + c_i``, so ``d(z - c) > W``; :mod:`.noise`).  Hence
``P_W(r | c) <= P(r | c) <= P_W(r | c) + tail`` for every c, the same bracket as the window's rows, in one column.
The sums run in log space (``logsumexp``), so no term underflows at large eps.

The local column (:func:`local_column`): where the remap's outputs lie near ``project(z)`` (the local search's reach,
:func:`reach_region`), only the z near r and the data sets near those z enter, with the kernel's tails beyond as the
bound of what is left out.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import logsumexp

from .. import validate as _validate
from ..models import candidates
from .noise import log_normaliser, tail_bound_of

#: Floats one block of the column's sums may hold.
BLOCK_ENTRIES = 2**20


def column_from_points(counts: ArrayLike, epsilon: float, points: ArrayLike,
                       weights: ArrayLike) -> NDArray[np.float64]:
    """``ln sum_j weights_j K(points_j | c)`` for every row c of ``counts`` (``-inf`` where no point has weight): the
    column's sum over the points that map to r (module docstring), ``weights_j = T(z_j, r) > 0``."""
    c = np.asarray(counts, dtype=np.int64)
    z = np.asarray(points, dtype=np.int64).reshape(-1, c.shape[1])
    lw = np.log(np.asarray(weights, dtype=np.float64).reshape(-1))
    eps = float(epsilon)
    out = np.full(len(c), -np.inf)
    if not len(z):
        return out
    log_z = log_normaliser(c.shape[1], eps)
    step = max(1, BLOCK_ENTRIES // len(z))
    for lo in range(0, len(c), step):
        d = np.abs(c[lo:lo + step, None, :] - z[None, :, :]).sum(axis=2) // 2
        out[lo:lo + step] = logsumexp(lw[None, :] - eps * d, axis=1) - log_z
    return out


def window_column(n: int, k: int, epsilon: float, released: ArrayLike, W: int, window_points: ArrayLike,
                  outputs: ArrayLike | None = None, probabilities: ArrayLike | None = None
                  ) -> tuple[NDArray[np.int64], NDArray[np.float64], float]:
    """``(R(n), ln P_W(r | c) for every c of R(n), tail)`` with ``P_W <= P(r | c) <= P_W + tail`` (module docstring).

    ``window_points``: the points of ``window(n, k, W)``; the remap at each is given by ``outputs`` (a deterministic
    remap: the output at each point, rows of k counts) or ``probabilities`` (a randomised one: ``T(z, r)`` at each
    point).  ``tail = tail_bound(k, eps, W)``."""
    eps = _validate.epsilon(epsilon)
    r = np.asarray(released, dtype=np.int64).reshape(k)
    Z = np.asarray(window_points, dtype=np.int64).reshape(-1, k)
    if outputs is not None:
        hit = np.all(np.asarray(outputs, dtype=np.int64).reshape(-1, k) == r[None, :], axis=1)
        S, wts = Z[hit], np.ones(int(hit.sum()))
    else:
        p = np.asarray(probabilities, dtype=np.float64).reshape(-1)
        S, wts = Z[p > 0], p[p > 0]
    R = candidates(int(n), int(k))
    return R, column_from_points(R, eps, S, wts), tail_bound_of(int(k), eps, int(W))


# -- the local column: the z near the release and the data sets near those z -----------------------------------------

def reach_offsets(k: int, Dc: int) -> NDArray[np.int64]:
    """``U(Dc) = {u : sum u = 0, every u_i <= Dc, or every u_i >= -Dc}``: where the local search's output can lie
    relative to ``project(z)`` (:func:`local_column`, the reach lemma).  Lexicographic, unique."""
    L = (k - 1) * Dc
    axes = np.meshgrid(*([np.arange(-L, Dc + 1)] * (k - 1)), indexing="ij")
    head = np.stack([x.ravel() for x in axes], axis=1).astype(np.int64)
    u = np.concatenate([head, -head.sum(axis=1, keepdims=True)], axis=1)
    u = u[(u[:, -1] >= -L) & (u[:, -1] <= Dc)]
    return np.unique(np.concatenate([u, -u]), axis=0)


def reach_region(n: int, k: int, released: ArrayLike, Dc: int, W: int) -> NDArray[np.int64]:
    """Every ``z`` with ``sum z = n``, ``z_i >= -W`` and ``project(z) - r`` in :func:`reach_offsets` ``(k, Dc)``: the
    points of ``window(n, k, W)`` whose local-search output can be ``r`` (:func:`local_column`).

    Enumeration (proof).  ``project`` raises the negative counts to 0 and lowers others, so ``z_i - project(z)_i`` lies
    in ``[-W, (k - 1) W]``, and ``u = project(z) - r`` has ``|u_i| <= (k - 1) Dc``: each ``z_i`` lies in
    ``[r_i - (k - 1) Dc - (k - 1) W, r_i + (k - 1) (Dc + W)]`` (and ``>= -W``), the box enumerated (a slab of the first
    count at a time).  Where every ``r_i > (k - 1) Dc``, no ``z`` off R(n) qualifies (its ``project`` has a 0 count, so
    ``u_i = -r_i``), and ``r + U`` is the region (all in R(n), where ``project(z) = z``)."""
    from .remap import project

    r = np.asarray(released, dtype=np.int64).reshape(k)
    U = reach_offsets(k, Dc)
    L = (k - 1) * Dc
    if int(r.min()) > L:
        return r[None, :] + U
    # the box of the first k - 1 counts (module docstring above), slab by slab of the first
    span = L + (k - 1) * W
    lo = np.maximum(-W, r - span)
    hi = r + span
    keys_u = _row_keys(U, L)
    out = []
    rest = [np.arange(lo[i], hi[i] + 1) for i in range(1, k - 1)]
    for z0 in range(int(lo[0]), int(hi[0]) + 1):
        if rest:
            axes = np.meshgrid(*rest, indexing="ij")
            head = np.stack([np.full(axes[0].size, z0)] + [x.ravel() for x in axes], axis=1).astype(np.int64)
        else:
            head = np.array([[z0]], dtype=np.int64)
        z = np.concatenate([head, n - head.sum(axis=1, keepdims=True)], axis=1)
        z = z[z[:, -1] >= -W]
        if not len(z):
            continue
        u = project(z, n) - r[None, :]
        ok = np.all(np.abs(u) <= L, axis=1)
        z, u = z[ok], u[ok]
        hit = np.isin(_row_keys(u, L), keys_u)
        out.append(z[hit])
    return np.concatenate(out) if out else np.zeros((0, k), dtype=np.int64)


def _row_keys(u: NDArray[np.int64], L: int) -> NDArray[np.int64]:
    """An integer key per row of offsets with ``|u_i| <= L`` (its first k - 1 entries in base ``2 L + 1``)."""
    key = np.zeros(len(u), dtype=np.int64)
    for i in range(u.shape[1] - 1):
        key = key * (2 * L + 1) + (u[:, i] + L)
    return key


def local_column(n: int, k: int, epsilon: float, released: ArrayLike, region: ArrayLike, weights: ArrayLike,
                 Dk: int, W: int) -> tuple[NDArray[np.int64], NDArray[np.float64], float]:
    """``(C, ln P_S(r | c) for every c of C, leftover)``: the local column (docs/lattice.md, "The noise-aware
    posterior").

    ``region``: lattice points (sum n, every count ``>= -W``) holding every ``z`` of ``window(n, k, W)`` with
    ``T(z, r) > 0``; ``weights``: ``T(z, r)`` at each (0 where the remap does not output r).  With ``S`` the points of
    positive weight, ``M = max over S of d(z, r)`` and ``C = {c in R(n) : d(c, r) <= M + Dk}``,
    ``P_S(r | c) = sum over S of K(z | c) T(z, r)``.

    Bound (proof).  Every term is ``>= 0`` and ``T <= 1``.  A ``z`` with ``T(z, r) > 0`` is in ``S`` or off the
    window (some ``z_i < -W``, so ``d(z - c) > W`` for every c of R(n)), so ``P_S(r | c) <= P(r | c) <= P_S(r | c) +
    tail_bound(k, eps, W)`` for every c of R(n).  A c off C has ``d(z - c) >= d(c - r) - d(z - r) > Dk`` for every z
    of S (``d`` is a norm), so ``P_S(r | c) <= tail_bound(k, eps, Dk)``.  Hence for any prior ``pi`` the
    prior-weighted mass ``sum_c pi(c) P(r | c)`` left out of ``sum_{c in C} pi(c) P_S(r | c)`` is at most
    ``leftover = tail_bound(k, eps, W) + tail_bound(k, eps, Dk)`` (the pi summing to at most 1)."""
    eps = _validate.epsilon(epsilon)
    r = np.asarray(released, dtype=np.int64).reshape(k)
    Z = np.asarray(region, dtype=np.int64).reshape(-1, k)
    t = np.asarray(weights, dtype=np.float64).reshape(-1)
    S, wts = Z[t > 0], t[t > 0]
    leftover = tail_bound_of(int(k), eps, int(W)) + tail_bound_of(int(k), eps, int(Dk))
    if not len(S):
        return np.zeros((0, k), dtype=np.int64), np.zeros(0), leftover
    M = int((np.abs(S - r[None, :]).sum(axis=1) // 2).max())
    from .remap import _ball

    C = r[None, :] + _ball(int(k), M + int(Dk))
    C = C[np.all(C >= 0, axis=1)]
    return C, column_from_points(C, eps, S, wts), leftover


def reach_size(k: int, Dc: int) -> int:
    """``|U(Dc)|`` (:func:`reach_offsets`) by counting: ``A = {u : sum u = 0, u_i <= Dc}`` has ``C(k Dc + k - 1,
    k - 1)`` points (``Dc - u_i >= 0`` summing to ``k Dc``), ``-A`` as many, and ``A`` and ``-A`` share
    ``{|u_i| <= Dc}``, counted by inclusion-exclusion over the coordinates past ``Dc``."""
    import math

    a = math.comb(k * Dc + k - 1, k - 1)
    # points with every |u_i| <= Dc and sum 0: v = u + Dc in [0, 2 Dc], summing to k Dc
    both = sum((-1) ** j * math.comb(k, j) * math.comb(k * Dc - j * (2 * Dc + 1) + k - 1, k - 1)
               for j in range(k + 1) if k * Dc - j * (2 * Dc + 1) >= 0)
    return 2 * a - both
