"""Distances between Dirichlet (and Beta) distributions (docs/definitions.md §2).

A distance is a :class:`Distance` entry of :data:`DISTANCES` (``hellinger``, ``tv``, ``kl``);
:func:`distance` evaluates one by name.  Today's Hellinger code lives, unchanged, in
:mod:`.hellinger`; every name it defines is re-exported here, so ``from dpposterior.distances
import hellinger, HellingerGrid, ...`` keeps working with identical results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InputError
from ..models import check_size
from ..validate import parameter_array, same_length
from .hellinger import (  # noqa: F401  (re-exported: other modules import them from here)
    _EPS,
    _SERIES_COEF,
    HELLINGER_TOLERANCE,
    SERIES_TERMS,
    SERIES_THRESHOLD,
    HellingerGrid,
    _even_series,
    _gap_rounding,
    _lgamma_bound,
    _log_bc_rounding,
    _series,
    hellinger,
    hellinger_from_log_bc,
    lgamma_jensen_gap,
    log_beta,
    log_bhattacharyya,
)
from .kl import kl, kl_unchecked, lgamma_bregman, lgamma_diff, log_beta_diff  # noqa: F401
from .tv import check as _tv_check
from .tv import tv, tv_unchecked  # noqa: F401

DEFAULT_DISTANCE = "hellinger"


def _any_k(k: int) -> None:
    """Exact for every k >= 2 (parameter validation already asks for at least 2 categories)."""


#: Parameters (entries of p and q) from which :meth:`Distance.value` remembers its last result.
_MEMO_FROM = 1 << 14
#: name -> (key of the arguments, result) of the last large evaluation (never Hellinger's).
_LAST: dict[str, tuple] = {}


@dataclass(frozen=True)
class Distance:
    """One distance between Dirichlet distributions: what it is, where it is exact, how to evaluate it.

    ``value(p, q)`` evaluates over the last axis with broadcasting (like :func:`hellinger`) and
    validates its arguments; ``check(k)`` raises a one-line :class:`~dpposterior.errors.InputError`
    for a number of categories where the distance has no exact method.
    """

    name: str
    #: the definition, as in docs/definitions.md §2
    formula: str
    #: where it is exact, e.g. "Dirichlet, any k" or "Beta only (k = 2)"
    domain: str
    is_metric: bool
    is_symmetric: bool
    #: the accuracy tested against mpmath, in words
    accuracy: str
    _value: Callable[[ArrayLike, ArrayLike], NDArray[np.float64]]
    _check: Callable[[int], None]

    def value(self, p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
        """``D(Dir(p), Dir(q))`` over the last axis, broadcasting leading axes (validated).

        The last large evaluation of each distance other than Hellinger is remembered (:data:`_LAST`): a
        command that scores R(n) and then prints the same column (``pmf``) evaluates it once."""
        if not (isinstance(p, np.ndarray) and isinstance(q, np.ndarray)) or p.size + q.size < _MEMO_FROM:
            return self._value(p, q)
        key = (self.name, p.dtype.str, q.dtype.str, p.shape, q.shape, p.tobytes(), q.tobytes())
        last = _LAST.get(self.name)
        if last is not None and last[0] == key:
            return last[1].copy()
        out = self._value(p, q)
        if self.name != DEFAULT_DISTANCE:
            _LAST[self.name] = (key, out.copy())
        return out

    def check(self, k: int) -> None:
        """Raise :class:`~dpposterior.errors.InputError` (one line) if there is no exact method for k categories."""
        self._check(int(k))


DISTANCES: dict[str, Distance] = {
    "hellinger": Distance(
        name="hellinger",
        formula="H(Dir(p), Dir(q)) = sqrt(1 - BC), ln BC = lnB((p + q)/2) - (lnB(p) + lnB(q))/2",
        domain="Dirichlet, any k",
        is_metric=True,
        is_symmetric=True,
        accuracy="1e-12 relative for equal totals up to parameters 1e9; refuses where H is uncertain by > 1e-6",
        _value=hellinger,
        _check=_any_k,
    ),
    "tv": Distance(
        name="tv",
        formula="TV(p, q) = 1/2 int |f_p - f_q|",
        domain="Beta only (k = 2)",
        is_metric=True,
        is_symmetric=True,
        accuracy="1e-14 relative for near candidates of the same n up to 1e9; ~1e-11 relative or better otherwise",
        _value=tv,
        _check=_tv_check,
    ),
    "kl": Distance(
        name="kl",
        formula="KL(Dir(p) || Dir(q)) = lnB(q) - lnB(p) + sum_i (p_i - q_i) (psi(p_i) - psi(sum p))",
        domain="Dirichlet, any k",
        is_metric=False,
        is_symmetric=False,
        accuracy="1e-14 relative for equal totals up to n = 1e9; 3e-11 or better for any parameters in [1e-3, 1e9]",
        _value=kl,
        _check=_any_k,
    ),
}


def get_distance(name: object) -> Distance:
    """The registry entry called ``name``; an unknown name raises a one-line InputError listing the names."""
    if isinstance(name, str) and name in DISTANCES:
        return DISTANCES[name]
    raise InputError(f"unknown distance {name!r}; choose one of: {', '.join(DISTANCES)}")


def distance(name: str, p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """``D(Dir(p), Dir(q))`` for the distance called ``name`` (see :data:`DISTANCES`), over the last axis.

    ``p``, ``q``: Dirichlet (Beta when k = 2) parameter vectors, or stacks of them that broadcast;
    validated as :func:`hellinger` validates them, and refused in one line where the distance has
    no exact method (``tv`` at k >= 3).

    >>> round(float(distance("tv", [2.0, 1.0], [1.0, 2.0])), 12)  # crossing at 1/2: 3/4 - 1/4
    0.5
    """
    d = get_distance(name)
    p, q = parameter_array(p, "p"), parameter_array(q, "q")
    same_length(p, q, "p", "q")
    d.check(p.shape[-1])
    shape = np.broadcast_shapes(p.shape, q.shape)
    check_size(math.prod(shape), 8 * 8, f"{name} over broadcast shape {shape}")
    return d.value(p, q)


#: Largest ``(n + 1)^2`` whose k = 2 matrix :func:`beta_matrix` keeps (n up to 2,047: 32 MB of float64).
DENSE_ENTRIES = 1 << 22


@lru_cache(maxsize=6)
def _beta_matrix(name: str, a: tuple[float, float], n: int) -> NDArray[np.float64]:
    c = np.arange(n + 1, dtype=np.float64)
    post = np.stack([a[0] + c, a[1] + n - c], axis=1)
    dist = DISTANCES[name]
    if not dist.is_symmetric:
        out = np.asarray(dist.value(post[:, None, :], post[None, :, :]), dtype=np.float64)
    else:  # D(p, q) = D(q, p): the upper triangle once, mirrored (the diagonal is D(p, p) = 0)
        i, j = np.triu_indices(n + 1, k=1)
        out = np.zeros((n + 1, n + 1))
        out[i, j] = np.asarray(dist.value(post[i], post[j]), dtype=np.float64)
        out[j, i] = out[i, j]
    out.setflags(write=False)
    return out


def beta_matrix(name: str, prior: ArrayLike, n: int) -> NDArray[np.float64] | None:
    """``M[c, r] = D(Beta(a1 + c, a2 + n - c), Beta(a1 + r, a2 + n - r))`` for a distance other than Hellinger at
    k = 2, computed once per (distance, prior, n) and kept (read-only; the same elementwise values as ``value``,
    docs/definitions.md §2), or None where it would be large (``(n + 1)^2 > DENSE_ENTRIES``), for k >= 3 or for
    Hellinger (its blocked closed form is cheaper).  Scores, losses, errors and sensitivities under tv and kl
    read it: one matrix serves every eps, objective and measure of a grid."""
    dist = get_distance(name)
    a = np.asarray(prior, dtype=np.float64).reshape(-1)
    if dist.name == DEFAULT_DISTANCE or a.size != 2 or float(int(n) + 1) ** 2 > DENSE_ENTRIES:
        return None
    return _beta_matrix(dist.name, (float(a[0]), float(a[1])), int(n))


class DistanceGrid:
    """Rows ``D(Dir(a + c), Dir(a + r))`` for batches of count vectors of one size n (docs/definitions.md §2, §6).

    Hellinger goes through :class:`HellingerGrid` (today's numbers, bit for bit); another distance through
    its registry entry's ``value``, refused in one line where it has no exact method at k (``tv``, k >= 3).
    """

    def __init__(self, prior: ArrayLike, n: int, name: str = DEFAULT_DISTANCE):
        self.distance = get_distance(name)
        self.a = np.asarray(prior, dtype=np.float64)
        self.distance.check(self.a.size)
        self.grid = HellingerGrid(self.a, n) if self.distance.name == DEFAULT_DISTANCE else None

    def values(self, counts: ArrayLike, cands: ArrayLike) -> NDArray[np.float64]:
        """``D(BI(c), Dir(a + r))``, shape ``(len(counts), len(cands))``."""
        if self.grid is not None:
            return self.grid.hellinger(counts, cands)
        M = beta_matrix(self.distance.name, self.a, int(np.asarray(counts)[0].sum())) if len(counts) else None
        if M is not None:
            return M[np.ix_(np.asarray(counts, dtype=np.int64)[:, 0], np.asarray(cands, dtype=np.int64)[:, 0])]
        c, r = np.asarray(counts, dtype=np.float64), np.asarray(cands, dtype=np.float64)
        return self.distance.value((self.a + c)[:, None, :], (self.a + r)[None, :, :])


__all__ = [
    "DEFAULT_DISTANCE", "DISTANCES", "Distance", "DistanceGrid", "HELLINGER_TOLERANCE", "HellingerGrid", "beta_matrix",
    "distance",
    "get_distance", "hellinger", "hellinger_from_log_bc", "kl", "lgamma_bregman", "lgamma_diff",
    "lgamma_jensen_gap", "log_beta", "log_beta_diff", "log_bhattacharyya", "tv",
]
