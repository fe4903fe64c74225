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
