"""The pmf of a remapped lattice release at one data set, from the remap at the z near it (docs/lattice.md).

Definition (docs/lattice.md, "The pmf at one data set").  The release draws ``z = c + w`` with
``K(z | c) = e^(-eps d(z - c)) / Z(eps, k)`` (:mod:`.noise`) and outputs ``T(z)``, a remap that is a function of
``z`` alone (deterministic, or a row-stochastic ``T(z, .)``), so ``P(r | c) = sum_z K(z | c) T(z, r)`` over the
whole lattice.  At ONE data set the sum only needs ``T`` on the ball ``B_D(c) = {c + w : d(w) <= D}``:

    ``P_D(r | c) = sum over z in B_D(c) of K(z | c) T(z, r)``.

Bracket (proof).  Every term is ``>= 0`` and ``T(z, r) <= 1``, so ``P_D(r | c) <= P(r | c)`` and
``P(r | c) - P_D(r | c) <= sum over z outside B_D(c) of K(z | c) = P(d(w) > D) <= tail_bound(k, eps, D)``
(:func:`.noise.tail_bound`, proven there).  Hence ``P_D <= P <= P_D + tail`` for every output, and
``1 - tail <= sum_r P_D(r | c) <= 1``: the same bracket as :meth:`.remap.LatticeSetup.pmf_rows`, with the ball
around ``c`` in place of the window (so the remap is evaluated at ``|B_D|`` points, whatever n).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate as _validate
from ..models import n_candidates
from .noise import log_normaliser, tail_bound
from .remap import _ball

#: Lattice points handed to the remap at once.
BATCH = 4096


def ball_pmf(counts: ArrayLike, epsilon: float, rule: Callable[[NDArray[np.int64]], NDArray],
             radius: int) -> tuple[NDArray[np.float64], float]:
    """``P_D(r | c)`` over ``candidates(n, k)`` at the data set ``counts`` and the bound ``tail``, with
    ``P_D <= P(r | c) <= P_D + tail`` (module docstring; docs/lattice.md, "The pmf at one data set").

    ``rule(z)`` maps lattice points (rows of a ``(B, k)`` array, each summing to n) to the remap's output: a
    ``(B,)`` array of output ranks (:func:`~dpposterior.models.candidate_rank`) for a deterministic remap, or a
    ``(B, |R(n)|)`` array of rows ``T(z, .)`` for a randomised one.  ``radius`` is ``D``; ``tail`` is
    :func:`~dpposterior.lattice.noise.tail_bound` ``(k, eps, D)``.
    """
    c = _validate.counts(counts)
    eps = _validate.epsilon(epsilon)
    D = _validate.integer(radius, "radius", 0)
    n, k = int(c.sum()), c.size
    size = n_candidates(n, k)
    w = _ball(k, D)
    log_K = -eps * (np.abs(w).sum(axis=1) // 2) - log_normaliser(k, eps)
    out = np.zeros(size)
    for lo in range(0, len(w), BATCH):
        z = c[None, :] + w[lo:lo + BATCH]
        K = np.exp(log_K[lo:lo + BATCH])
        t = np.asarray(rule(z))
        if t.ndim == 1:
            out += np.bincount(t, weights=K, minlength=size)
        else:
            out += K @ t
    return out, tail_bound(k, eps, D)
