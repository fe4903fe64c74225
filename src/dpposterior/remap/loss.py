"""Loss matrices ``L(c, r)`` of the remap, evaluated by blocks (docs/definitions.md §10, k = 2).

A loss is any object of the :class:`Loss` protocol (``size`` and ``block(cs, rs)``); one that also has
``pairs(c, r)`` and ``max_loss`` (:class:`PairLoss`) lets :func:`dpposterior.remap.risk` sum over a window
instead of whole rows.  :class:`HellingerLoss` (the default, any n) takes its ``ln BC`` from
:class:`dpposterior.distances.hellinger.BetaLogBC`, the Hellinger code of :mod:`dpposterior.distances`;
:class:`MatrixLoss` wraps a dense matrix, :class:`DistanceLoss` a registry distance's exact matrix.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..distances import DEFAULT_DISTANCE, beta_matrix, get_distance, hellinger_from_log_bc
from ..distances.hellinger import BetaLogBC
from ..errors import InputError, SizeError
from ..limits import limit_setting

__all__ = ["Loss", "PairLoss", "HellingerLoss", "MatrixLoss", "DistanceLoss", "loss_for", "as_loss",
           "monotonicity_violations"]

#: Entries of an (n+1) x block work array (bounds the memory of every blocked loop: ~8 bytes each,
#: a handful of arrays alive at once -> ~100 MB).
BLOCK_ENTRIES = 2_500_000


def _block_width(N: int) -> int:
    return max(1, min(N, BLOCK_ENTRIES // max(N, 1)))


@runtime_checkable
class Loss(Protocol):
    """A loss ``L(c, r) >= 0`` on counts c and outputs r in 0..n (docs/definitions.md §10), by blocks.

    An optional class attribute ``symmetric = True`` (``L(c, r) = L(r, c)``) lets a transposed block be
    computed directly."""

    @property
    def size(self) -> int:
        """``n + 1``."""
        ...

    def block(self, cs: ArrayLike, rs: ArrayLike) -> NDArray[np.float64]:
        """``L(c, r)`` for counts ``cs`` x outputs ``rs``: ``(len(cs), len(rs))``."""
        ...


@runtime_checkable
class PairLoss(Loss, Protocol):
    """A :class:`Loss` that also gives ``L(c[i], r[i])`` elementwise and an upper bound ``max_loss`` on L
    (docs/definitions.md §10): what the windowed risk and its rigorous tail bound need."""

    max_loss: float

    def pairs(self, c: ArrayLike, r: ArrayLike) -> NDArray[np.float64]:
        """``L(c[i], r[i])`` elementwise, equal to :meth:`block`'s entries."""
        ...


def _beta_prior(prior: ArrayLike) -> NDArray[np.float64]:
    a = np.asarray(prior, dtype=np.float64).reshape(-1)
    if a.size != 2 or not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise InputError(f"prior must be two finite positive numbers (a Beta prior), got {prior!r}")
    return a


class HellingerLoss:
    """``L(c, r) = H(Beta(a1 + c, a2 + n - c), Beta(a1 + r, a2 + n - r))`` by blocks (docs/definitions.md §2, §10).

    ``ln BC`` comes from :class:`dpposterior.distances.hellinger.BetaLogBC` (lnGamma tables on the
    half-integer grid, the midpoint series of :func:`dpposterior.distances.lgamma_jensen_gap` near the
    diagonal: within ~1e-10 relative of :func:`dpposterior.distances.hellinger`, any n, no (n+1)^2 table),
    and ``H = sqrt(-expm1(ln BC))`` (:func:`dpposterior.distances.hellinger_from_log_bc`).
    """

    #: ``L(c, r) = L(r, c)`` (a distance between the two posteriors)
    symmetric = True
    max_loss = 1.0

    def __init__(self, prior: ArrayLike, n: int):
        self.prior = _beta_prior(prior)
        self.n = int(n)
        self._log_bc = BetaLogBC(self.prior, self.n)

    @property
    def size(self) -> int:
        """``n + 1``."""
        return self.n + 1

    @property
    def band(self) -> int:
        """Largest ``|c - r|`` at which the midpoint series may be used (:class:`BetaLogBC`)."""
        return self._log_bc.band

    def tabulate(self) -> None:
        """Build the tables every block reads (:meth:`BetaLogBC.tabulate`) now: a set-up from public (prior, n)."""
        self._log_bc.tabulate()

    def log_bc(self, cs: ArrayLike, rs: ArrayLike) -> NDArray[np.float64]:
        """``ln BC`` for every pair of counts ``cs`` x outputs ``rs``: shape ``(len(cs), len(rs))``."""
        return self._log_bc.block(cs, rs)

    def log_bc_pairs(self, c: ArrayLike, r: ArrayLike) -> NDArray[np.float64]:
        """``ln BC`` at the pairs ``(c[i], r[i])``, equal to :meth:`log_bc`'s entries bit for bit."""
        return self._log_bc.pairs(c, r)

    def pairs(self, c: ArrayLike, r: ArrayLike) -> NDArray[np.float64]:
        """``L(c[i], r[i])`` elementwise (Hellinger distance), equal to :meth:`block`'s entries bit for bit."""
        out = self.log_bc_pairs(c, r)
        return hellinger_from_log_bc(out, out=out)

    def block(self, cs: ArrayLike, rs: ArrayLike) -> NDArray[np.float64]:
        """``L(c, r)`` for counts ``cs`` x outputs ``rs`` (Hellinger distance)."""
        out = self.log_bc(cs, rs)
        return hellinger_from_log_bc(out, out=out)

    def dense(self) -> NDArray[np.float64]:
        """The whole ``(n+1) x (n+1)`` loss matrix (small n and tests)."""
        idx = np.arange(self.size)
        return self.block(idx, idx)


def _block_t(loss: Loss, rs: NDArray[np.int64], cs: NDArray[np.int64]) -> NDArray[np.float64]:
    """``L(cs, rs)`` transposed, ``(len(rs), len(cs))``, C-contiguous (symmetric losses: one block)."""
    if getattr(loss, "symmetric", False):
        return loss.block(rs, cs)
    return np.ascontiguousarray(loss.block(cs, rs).T)


class MatrixLoss:
    """Any loss given as a dense ``(n+1) x (n+1)`` matrix ``L[c, r] >= 0``."""

    def __init__(self, matrix: ArrayLike):
        L = np.asarray(matrix, dtype=np.float64)
        if L.ndim != 2 or L.shape[0] != L.shape[1] or L.shape[0] < 1:
            raise InputError(f"a loss matrix must be square (n+1) x (n+1), got shape {L.shape}")
        if not np.all(np.isfinite(L)) or np.any(L < 0):
            raise InputError("a loss matrix must be finite and non-negative")
        self.matrix = L
        self.n = L.shape[0] - 1
        self.max_loss = float(L.max())

    @property
    def size(self) -> int:
        return self.n + 1

    def block(self, cs: ArrayLike, rs: ArrayLike) -> NDArray[np.float64]:
        cs = np.asarray(cs, dtype=np.int64).reshape(-1)
        rs = np.asarray(rs, dtype=np.int64).reshape(-1)
        return self.matrix[np.ix_(cs, rs)]

    def pairs(self, c: ArrayLike, r: ArrayLike) -> NDArray[np.float64]:
        """``L(c[i], r[i])`` elementwise."""
        return self.matrix[np.asarray(c, dtype=np.int64), np.asarray(r, dtype=np.int64)]

    def dense(self) -> NDArray[np.float64]:
        return self.matrix.copy()


class DistanceLoss(MatrixLoss):
    """``L(c, r) = D(Beta(a1 + c, a2 + n - c), Beta(a1 + r, a2 + n - r))`` for a registry distance ``D``
    (docs/definitions.md §2, §10), as the dense matrix of its exact values (``(n + 1)^2`` evaluations,
    refused in one line past ``DPPOSTERIOR_MAX_SENSITIVITY_WORK``).  KL's rounding below 0 at ``r = c`` is
    set to 0.  For Hellinger use :class:`HellingerLoss` (blocked, any n): :func:`loss_for` chooses."""

    def __init__(self, name: str, prior: ArrayLike, n: int):
        dist = get_distance(name)
        a = np.asarray(prior, dtype=np.float64).reshape(-1)
        if a.size != 2:
            raise InputError(f"the remap's loss is for k = 2 (a Beta prior), got {a.size} prior entries")
        dist.check(2)
        n = int(n)
        work = float(n + 1) ** 2
        limit = limit_setting("DPPOSTERIOR_MAX_SENSITIVITY_WORK")
        if work > limit:
            raise SizeError(f"the {dist.name} loss matrix for n={n} takes {work:.3g} distance evaluations, over the "
                            f"limit of {limit:.3g} (use a smaller n, or set DPPOSTERIOR_MAX_SENSITIVITY_WORK)")
        L = beta_matrix(dist.name, a, n)
        if L is None:
            c = np.arange(n + 1, dtype=np.float64)
            post = np.stack([a[0] + c, a[1] + n - c], axis=1)
            L = np.asarray(dist.value(post[:, None, :], post[None, :, :]), dtype=np.float64)
        super().__init__(np.where(L > 0, L, 0.0))
        self.name = dist.name


def loss_for(distance: str, prior: ArrayLike, n: int) -> HellingerLoss | DistanceLoss:
    """The k = 2 loss of docs/definitions.md §10 under a registry distance: :class:`HellingerLoss` for
    Hellinger (blocked, any n), else :class:`DistanceLoss` (dense, exact)."""
    if get_distance(distance).name == DEFAULT_DISTANCE:
        return HellingerLoss(prior, n)
    return DistanceLoss(distance, prior, n)


def as_loss(loss: Loss | ArrayLike, n: int) -> Loss:
    """The loss ``L(c, r)`` of docs/definitions.md §10 as a :class:`Loss`: from a dense matrix
    (:class:`MatrixLoss`), an object that already is one, or a Beta prior ``(a1, a2)`` (:class:`HellingerLoss`)."""
    if isinstance(loss, Loss):
        obj = loss
    else:
        arr = np.asarray(loss, dtype=np.float64)
        obj = MatrixLoss(arr) if arr.ndim == 2 else HellingerLoss(arr, n)
    if obj.size != n + 1:
        raise InputError(f"the loss is for n = {obj.size - 1}, the kernel for n = {n}")
    return obj


def monotonicity_violations(loss: Loss | ArrayLike, n: int, tol: float = 0.0) -> list[tuple[int, int, int]]:
    """Triples ``(c, r, r')`` with ``|r' - c| = |r - c| + 1`` on the same side and ``L(c, r') < L(c, r) - tol``.

    Empty iff L is nondecreasing in ``|r - c|`` for every fixed c (the premise of
    Ghosh-Roughgarden-Sundararajan, docs/definitions.md §10).  O(n^2) time, blocked.
    """
    loss = as_loss(loss, n)
    N = n + 1
    out = []
    width = _block_width(N)
    r = np.arange(N)
    for s in range(0, N, width):
        cs = np.arange(s, min(N, s + width))
        L = loss.block(cs, r)
        d = L[:, 1:] - L[:, :-1]  # L(c, r+1) - L(c, r)
        right = (r[None, :-1] >= cs[:, None]) & (d < -tol)   # moving right, away from c
        left = (r[None, 1:] <= cs[:, None]) & (d > tol)      # moving left, away from c
        for i, j in zip(*np.nonzero(right)):
            out.append((int(cs[i]), int(j), int(j + 1)))
        for i, j in zip(*np.nonzero(left)):
            out.append((int(cs[i]), int(j + 1), int(j)))
    return out
