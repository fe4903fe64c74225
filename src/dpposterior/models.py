"""Beta-Binomial and Dirichlet-Multinomial models (docs/definitions.md §1).

A data set of ``n`` records over ``k >= 2`` categories enters every mechanism only
through its count vector ``c`` (``sum(c) = n``).  With prior ``Dir(a)`` the
posterior is ``BI(c) = Dir(a + c)``; a release is an element ``Dir(a + m)`` of the
candidate set ``R(n) = {Dir(a + m): m in N^k, sum(m) = n}``.

Conventions used throughout the package
---------------------------------------
* A candidate is identified by its count vector ``m``; ``candidates(n, k)`` lists
  R(n) in **lexicographic order of m** (``m_1`` slowest, ascending).  For k = 2
  this is ``(0, n), (1, n-1), ..., (n, 0)``.  ``candidate_rank`` inverts it.
* The set of count vectors of size n *is* the same lattice, so arrays "over all
  data sets of size n" use the same order.
* Adjacency is substitution of one record (n fixed): ``c' = c - e_i + e_j``.
* The prior predictive ``DirMult(c; n, a)`` (docs/definitions.md §9) is :func:`log_prior_predictive`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln

from . import validate as _validate
from .errors import InputError, SizeError
from .limits import LIMITS, limit_setting

#: Gibibytes an exact computation may allocate at once unless ``DPPOSTERIOR_MEMORY_GB`` is set
#: (read at call time by :func:`check_size`, like every budget of :mod:`dpposterior.limits`).
DEFAULT_MEMORY_GB = LIMITS["DPPOSTERIOR_MEMORY_GB"].default


def memory_limit() -> int:
    """Bytes an exact computation may allocate at once (``DPPOSTERIOR_MEMORY_GB``, default 4 GiB)."""
    return int(limit_setting("DPPOSTERIOR_MEMORY_GB") * 2**30)




def posterior(prior: ArrayLike, counts: ArrayLike) -> NDArray[np.float64]:
    """Posterior parameters ``a + c`` of ``BI(c) = Dir(a + c)`` (docs/definitions.md §1). Broadcasts over leading axes."""
    c = _validate.count_array(counts)
    return _validate.prior(prior, c.shape[-1]) + c.astype(np.float64)


def n_candidates(n: int, k: int) -> int:
    """``|R(n)| = C(n + k - 1, k - 1)`` (docs/definitions.md §1), as an exact Python int."""
    return math.comb(n + k - 1, k - 1)


def check_size(n_items: int, bytes_per_item: float, what: str) -> None:
    """Raise :class:`SizeError` when ``n_items * bytes_per_item`` exceeds :func:`memory_limit`.

    ``n_items`` may be an exact Python int of any size (|R(n)| at k = 1000 is about 1e600).
    """
    need = n_items * bytes_per_item
    budget = memory_limit()
    if need > budget:
        gib = need / 2**30 if need < 2**1000 else need // 2**30  # an int past float range
        raise SizeError(
            f"{what} needs {f'{n_items:,}' if n_items < 10**30 else _validate.big_number(n_items)} entries "
            f"(~{_validate.big_number(gib)} GiB), over the "
            f"{budget / 2**30:.3g} GiB limit of an exact computation "
            "(set DPPOSTERIOR_MEMORY_GB to raise it)"
        )


def candidates(n: int, k: int) -> NDArray[np.int64]:
    """All count vectors ``m`` with ``sum(m) = n``, k parts: R(n) of docs/definitions.md §1.

    Returned as an ``(C(n+k-1, k-1), k)`` int64 array in lexicographic order of ``m``
    (see the module docstring); the same array lists every data set of size n.
    """
    n = _validate.integer(n, "n", 0, _validate.MAX_TOTAL)
    k = _validate.integer(k, "k", 2, _validate.MAX_CATEGORIES)
    size = n_candidates(n, k)
    check_size(size, 8 * k, f"R(n) for k={k}, n={n}")
    # T = compositions of n into p parts (lexicographic).  Its rows with first part >= f are its
    # last C(n-f+p-1, p-1) rows and, with f taken off the first part, the compositions of n - f.
    # So the p+1-part table is [f, tail_f(T) - f e_1] for f = 0..n: O(output) work, vectorised.
    T = np.array([[n]], dtype=np.int64)
    for p in range(1, k):
        first = np.arange(n + 1, dtype=np.int64)
        sizes = _comb_int(n - first, p - 1)
        lead = np.repeat(first, sizes)
        starts = np.cumsum(sizes) - sizes
        rows = len(T) - np.repeat(sizes, sizes) + (np.arange(len(lead)) - np.repeat(starts, sizes))
        tail = T[rows]
        tail[:, 0] -= lead
        T = np.column_stack([lead, tail])
    return T


def _comb_int(x: NDArray[np.int64], p: int) -> NDArray[np.int64]:
    """Exact ``C(x + p, p)`` elementwise for small p (int64; x >= 0)."""
    out = np.ones_like(x)
    for j in range(1, p + 1):
        out = out * (x + j) // j
    return out


def candidate_rank(m: ArrayLike) -> NDArray[np.int64]:
    """Index of each count vector ``m`` (last axis) in the order of :func:`candidates`."""
    m = np.asarray(m, dtype=np.int64)
    k = m.shape[-1]
    remaining = m.sum(axis=-1)
    rank = np.zeros(m.shape[:-1], dtype=np.int64)
    for i in range(k - 1):
        p = k - 1 - i  # parts after position i
        # compositions of `remaining` whose part i is smaller than m_i
        rank += _comb_int(remaining, p) - _comb_int(remaining - m[..., i], p)
        remaining = remaining - m[..., i]
    return rank


def neighbour_moves(counts: ArrayLike, ordered: bool = False) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """The neighbours ``c - e_i + e_j`` of the count vectors ``counts`` (rows), one direction at a time: for each
    ``i < j`` (every ``i != j`` if ``ordered``), in that order, ``(rows, ranks)``: the rows of ``counts`` with
    ``c_i >= 1`` and the :func:`candidate_rank` of their neighbour (neighbouring data sets, docs/definitions.md)."""
    counts = np.asarray(counts, dtype=np.int64)
    k = counts.shape[1]
    out = []
    for i in range(k):
        for j in range(k) if ordered else range(i + 1, k):
            if i == j:
                continue
            ok = np.flatnonzero(counts[:, i] >= 1)
            moved = counts[ok].copy()
            moved[:, i] -= 1
            moved[:, j] += 1
            out.append((ok, candidate_rank(moved)))
    return out


def directions(k: int) -> NDArray[np.int64]:
    """The k(k-1) substitutions ``(i, j)``, i != j, in a fixed order (i slowest)."""
    return np.array([(i, j) for i in range(k) for j in range(k) if i != j], dtype=np.int64)


def neighbours(counts: ArrayLike) -> NDArray[np.int64]:
    """Every ``c' = c - e_i + e_j`` with ``c_i >= 1`` (docs/definitions.md §1 adjacency), in :func:`directions` order."""
    c = np.asarray(counts, dtype=np.int64)
    k = c.shape[-1]
    src = np.flatnonzero(c >= 1)  # i, in increasing order (i slowest)
    i = np.repeat(src, k - 1)
    r = np.tile(np.arange(k - 1, dtype=np.int64), src.size)
    j = r + (r >= i)  # every j != i, increasing
    out = np.repeat(c[None, :], i.size, axis=0)
    rows = np.arange(i.size)
    out[rows, i] -= 1
    out[rows, j] += 1
    return out


def neighbour_count(counts: ArrayLike) -> int:
    """``len(neighbours(counts))``, without listing them: ``(number of c_i >= 1) (k - 1)``."""
    c = np.asarray(counts, dtype=np.int64)
    return int(np.count_nonzero(c >= 1)) * (c.shape[-1] - 1)


def neighbour_at(counts: ArrayLike, index: int) -> NDArray[np.int64]:
    """``neighbours(counts)[index]``, without listing them (O(k))."""
    c = np.array(counts, dtype=np.int64)
    k = c.shape[-1]
    src = np.flatnonzero(c >= 1)
    i = int(src[index // (k - 1)])
    r = index % (k - 1)
    j = r if r < i else r + 1
    c[i] -= 1
    c[j] += 1
    return c


def steps(counts: ArrayLike, m: ArrayLike) -> NDArray[np.int64]:
    """Substitution distance ``d(c, m) = |c - m|_1 / 2`` (docs/definitions.md §1, the "steps" of 000 Tables 1-2)."""
    c, m = _validate.count_array(counts), _validate.count_array(m, "m")
    _validate.same_length(c, m, "counts", "m")
    diff = np.abs(c - m)
    return diff.sum(axis=-1) // 2


def balanced_counts(n: int, k: int) -> NDArray[np.int64]:
    """The most balanced count vector of size n: ``n // k`` each, remainder to the first categories."""
    c = np.full(k, n // k, dtype=np.int64)
    c[: n % k] += 1
    return c


def counts_from_proportions(n: int, proportions: Sequence[float]) -> NDArray[np.int64]:
    """Count vector of size n closest to the given proportions (largest-remainder rounding)."""
    p = np.asarray(proportions, dtype=np.float64)
    if p.ndim != 1 or p.size < 2 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise InputError(f"proportions must be >= 0 and sum to 1, got {list(p)}")
    raw = n * p
    c = np.floor(raw).astype(np.int64)
    short = n - c.sum()
    c[np.argsort(-(raw - c), kind="stable")[:short]] += 1
    return c


def log_prior_predictive(prior: ArrayLike, counts: ArrayLike) -> NDArray[np.float64]:
    """``ln DirMult(c; n, a)`` for each row c of ``counts`` (the prior predictive of docs/definitions.md §9)."""
    a = np.asarray(prior, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64).reshape(-1, a.size)
    n = c.sum(axis=1)
    return (gammaln(n + 1) - gammaln(c + 1).sum(axis=1) + gammaln(a.sum()) - gammaln(n + a.sum())
            + (gammaln(c + a) - gammaln(a)).sum(axis=1))
