"""Calibrated exponential mechanisms (docs/definitions.md §9, Calibration; the drafts' future work 2).

Calibration is a wrapper: :func:`calibrated` builds, from an exponential registry entry, the
mechanism whose weight is ``kappa* w(c)`` (:class:`CalibratedMechanism`); the entry itself never
calibrates.  A calibrated :class:`~dpposterior.mechanisms.spec.ReleaseSpec` (``calibrate=True``, the variant
``~calibrated``) runs it (``spec.mechanism``); it claims pure eps-DP certified by exact computation.

An exponential mechanism ``P(r | c) proportional to exp(-w(c) H(BI(c), r))`` whose weight is
scaled by a factor ``kappa`` has the worst-case exact concrete epsilon (docs/definitions.md §5)

    L(kappa) = max over adjacent (c, c') and r of
               | -kappa w(c) H(c, r) + kappa w(c') H(c', r) - lse(-kappa w(c) H(c, .)) + lse(-kappa w(c') H(c', .)) |

a function of kappa computable from the *unscaled* Hellinger rows ``H(c, .)`` and weights
``w(c)``.  The calibrated factor is ``kappa* = sup {kappa : L(kappa) <= eps}``; the mechanism
with weight ``kappa* w(c)`` is then pure eps-DP by exact computation, whatever its own claim.

How kappa* is found (:func:`calibrate`):

1. ``L(0) = 0`` (uniform output).  Starting from the grid ``1/2 .. 4`` the bracket is moved up
   (or down) by factors ``2^4`` until ``L(lo) <= eps < L(hi)``.
2. Each pass evaluates ``L`` at a few kappas in one walk over the adjacent pairs (the Hellinger
   rows, the expensive part, are computed once per pass for all its kappas): the bracketing pass
   on the doubling grid ``hi 2^-3 .. hi``, each refining pass at the linear-interpolation guess
   ``g`` of the crossing, at ``g (1 +- RTOL/2)`` and at the bracket's thirds; every pass keeps the
   *largest* evaluated kappa with ``L <= eps`` and the next evaluated kappa above it as the new
   bracket.  The bracketing pass records each pair's loss; the refining passes follow only the
   pairs whose loss at either end of that bracket is at least ``KEEP * eps`` (the others are far
   from binding; if one of them binds after all, the certificate below catches it).  ``L`` need not be
   monotone in kappa, so this finds the last crossing of the
   sampled curve, not every sub-level interval; passes repeat until the bracket is narrower
   than ``RTOL`` relative (``hi / lo - 1 <= RTOL``).
3. Certificate: the returned factor ``lo`` is re-checked with the exact worst-case scan of
   :func:`.scan.worst_case_scan` on the mechanism's own rows at that factor; if
   that exceeds eps (floating rounding) the factor is stepped down by ``RTOL`` relative until
   certified.  The returned ``concrete_epsilon`` is that certified scan's value, ``<= eps``.

So the factor is maximal within ``RTOL`` (relative) among the kappas of the last bracket, and
the release is certified eps-DP by the same exact computation the privacy module reports.

Where the unscaled rows of all of R(n), one log-pmf table (``2 x 8 |R(n)|^2`` bytes) and their chunk
buffers fit in ``scan.WORK_BYTES`` (k = 2 up to n = 5,417, k = 3 up to n = 102, k = 4 up to n = 29; the
walk's own chunks are as large), the rows ``H(c, .)`` are computed once for the whole calibration
(:class:`_Table`), not once per pass, each kappa's log-pmf row of a data set once however many pairs
hold it, and the pairs are differences of row slices (no gathered copies); the certificate is then
read from the same table at the factor.  Each pass evaluates its kappas from the largest down and
stops at the first with ``L <= eps``: the kappas below it cannot change the new bracket (the largest
evaluated kappa with ``L <= eps`` and the next above it).  Every row, difference and maximum is the
same floating-point operation on the same numbers as the walk's (the operations are row by row and
elementwise, and a maximum does not depend on order), so the factor and the certified loss
are bit for bit those of the walk (tested).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial
from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..models import neighbour_moves
from . import scan
from .base import Guarantee, Mechanism, pure
from .exponential import ExponentialMechanism, ExponentialRows
from .scan import adjacent_blocks, check_scan_size, worst_case_scan

if TYPE_CHECKING:
    from .spec import ReleaseSpec

#: Relative width of the final kappa bracket (the factor is maximal within this tolerance).
RTOL = 1e-3
#: kappas evaluated per pass over the adjacent pairs.
GRID = 4
#: The refining passes follow only the pairs whose loss at either end of the first bracket is at
#: least this fraction of eps (the certificate then scans every pair).
KEEP = 0.5
#: Largest number of bracket moves before giving up (a factor 2^GRID each: kappa within 2^-60 .. 2^60).
MAX_DOUBLINGS = 15
#: :class:`_Table` (two ``(N, N)`` float64 tables and two chunk buffers) may take up to this share of
#: ``scan.WORK_BYTES`` (read at each call); larger R(n) are walked in chunks per pass.
TABLE_SHARE = 1.0


@dataclass(frozen=True)
class Calibration:
    """Result of :func:`calibrate`: the factor ``kappa*`` and the certified worst-case concrete eps."""

    factor: float
    concrete_epsilon: float

    def as_dict(self) -> dict[str, float]:
        return {"factor": self.factor, "concrete_epsilon": self.concrete_epsilon}


class _HellingerRows:
    """Unscaled ``H(BI(c), r)`` rows over R(n) with the mechanism's weights (for :func:`adjacent_blocks`)."""

    def __init__(self, rows: ExponentialRows):
        self.base, self.cands, self.k = rows, rows.cands, rows.k

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        return self.base.hellinger(counts)


def _refine_grid(lo: float, llo: float, hi: float, lhi: float, eps: float) -> np.ndarray:
    """The factors tried inside the bracket ``[lo, hi]`` (losses ``llo <= eps < lhi``): the interpolation guess
    +- RTOL/2 and the bracket's thirds, those strictly inside it, ascending."""
    g = lo + (eps - llo) * (hi - lo) / (lhi - llo) if lhi > llo else 0.5 * (lo + hi)
    return np.array(sorted({x for x in (g * (1 - RTOL / 2), g * (1 + RTOL / 2), lo + (hi - lo) / 3,
                                        lo + 2 * (hi - lo) / 3) if lo < x < hi}))


def _lse_rows(x: np.ndarray, scratch: np.ndarray | None = None) -> np.ndarray:
    """Row-wise ``x - logsumexp(x)`` in place (``scratch``: a buffer shaped as ``x`` for the exponentials)."""
    top = x.max(axis=1, keepdims=True)
    e = np.subtract(x, top, out=scratch)
    np.exp(e, out=e)
    x -= top + np.log(e.sum(axis=1, keepdims=True))
    return x


def losses(rows: ExponentialRows, kappas: ArrayLike, per_pair: bool = False):
    """``L(kappa)`` (module docstring) for each kappa, in one walk over the adjacent pairs.

    ``per_pair=True`` also returns every pair ``(c, c')`` (two ``(P, k)`` arrays) with its own loss
    at each kappa, ``(P, len(kappas))``.
    """
    kappas = np.asarray(kappas, dtype=np.float64)
    out = np.zeros(kappas.size)
    h = _HellingerRows(rows)
    cs, cps, per = [], [], []
    for c, cp, hc, hcp in adjacent_blocks(h):
        loss = _pair_losses(rows, c, cp, hc, hcp, kappas)
        out = np.maximum(out, loss.max(axis=0))
        if per_pair:
            cs.append(c)
            cps.append(cp)
            per.append(loss)
    if per_pair:
        return out, np.concatenate(cs), np.concatenate(cps), np.concatenate(per)
    return out


def _pair_losses(rows, c, cp, hc, hcp, kappas) -> np.ndarray:
    wc = np.asarray(rows.weights_of(c), dtype=np.float64)[:, None]
    wcp = np.asarray(rows.weights_of(cp), dtype=np.float64)[:, None]
    loss = np.empty((len(c), kappas.size))
    logp, logq, scratch = np.empty_like(hc), np.empty_like(hcp), np.empty_like(hc)  # reused for every kappa
    for t, kap in enumerate(kappas):
        _lse_rows(np.multiply(-kap * wc, hc, out=logp), scratch)
        _lse_rows(np.multiply(-kap * wcp, hcp, out=logq), scratch)
        logp -= logq
        loss[:, t] = np.abs(logp, out=logp).max(axis=1)
    return loss


def subset_losses(rows: ExponentialRows, c, cp, kappas: ArrayLike) -> np.ndarray:
    """``max over the given pairs (c, c')`` of their loss at each kappa (Hellinger rows in chunks, each data set's
    row computed once per chunk: a data set is in up to ``k (k - 1)`` pairs)."""
    kappas = np.asarray(kappas, dtype=np.float64)
    out = np.zeros(kappas.size)
    N = len(rows.cands)
    chunk = max(1, scan.WORK_BYTES // (8 * N * 8))  # rows: h, logp, scratch of up to 2 chunk data sets, 2 of the pairs'
    for lo in range(0, len(c), chunk):
        a, b = c[lo:lo + chunk], cp[lo:lo + chunk]
        both, inv = np.unique(np.concatenate([a, b]), axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        out = np.maximum(out, _shared_pair_losses(rows, both, inv[:len(a)], inv[len(a):], kappas))
    return out


def _shared_pair_losses(rows, both, ia, ib, kappas) -> np.ndarray:
    """``max over the pairs (both[ia], both[ib])`` of their loss at each kappa: each data set's log-pmf row
    ``-kappa w(c) H(c, .) - lse`` is computed once per kappa however many pairs hold it (the same numbers as
    :func:`_pair_losses`, row by row), and the pairs only take differences of rows."""
    h = rows.hellinger(both)
    w = np.asarray(rows.weights_of(both), dtype=np.float64)[:, None]
    out = np.empty(kappas.size)
    logp, scratch = np.empty_like(h), np.empty_like(h)
    diff = np.empty((len(ia), h.shape[1]))
    for t, kap in enumerate(kappas):
        _lse_rows(np.multiply(-kap * w, h, out=logp), scratch)
        np.take(logp, ia, axis=0, out=diff)
        diff -= logp[ib]
        out[t] = np.abs(diff, out=diff).max()
    return out


class _Table:
    """The unscaled rows ``H(c, .)`` and weights ``w(c)`` of every data set of R(n), computed once, and the adjacent
    pairs ``(c, c - e_i + e_j)``, i < j, as row indices (the pairs of :func:`~.scan.adjacent_blocks`).

    :meth:`pair_losses` gives each pair's loss at one kappa from the log-pmf table of all of R(n): the same
    operations row by row as :func:`_pair_losses` and :func:`_shared_pair_losses` (whose rows are computed
    per batch; every operation of a row is row-wise or elementwise), so the same numbers.
    """

    def __init__(self, rows: ExponentialRows):
        cands = rows.cands
        N = len(cands)
        step = _table_step(N)  # the rows in chunks: log_bc's temporaries stay bounded
        self.h = np.empty((N, N))
        for lo in range(0, N, step):
            self.h[lo:lo + step] = rows.hellinger(cands[lo:lo + step])
        self.w = np.asarray(rows.weights_of(cands), dtype=np.float64)[:, None]
        moves = neighbour_moves(cands)
        ia, ib = np.concatenate([m[0] for m in moves]), np.concatenate([m[1] for m in moves])
        # the pairs as runs (p, a, b, m): pairs p .. p + m - 1 are rows a .. a + m - 1 against b .. b + m - 1 (slices,
        # not gathers: ~n runs per direction), each at most `step` long
        cut = np.flatnonzero((np.diff(ia) != 1) | (np.diff(ib) != 1)) + 1
        starts = np.concatenate([[0], cut]).tolist()
        ends = np.concatenate([cut, [len(ia)]]).tolist()
        self.runs = [(p, int(ia[p]), int(ib[p]), min(step, e - p)) for s_, e in zip(starts, ends)
                     for p in range(s_, e, step)]
        self.pairs = len(ia)
        self.step = step
        self.logp = np.empty((N, N))
        self._kappa: float | None = None

    def _log_pmf(self, kappa: float) -> np.ndarray:
        """Every data set's log-pmf row at weight ``kappa w(c)`` (:func:`_lse_rows`, row chunks)."""
        if self._kappa != kappa:
            scratch = np.empty((min(self.step, len(self.h)), self.h.shape[1]))
            for lo in range(0, len(self.h), self.step):
                hi = min(len(self.h), lo + self.step)
                _lse_rows(np.multiply(-kappa * self.w[lo:hi], self.h[lo:hi], out=self.logp[lo:hi]),
                          scratch[:hi - lo])
            self._kappa = kappa
        return self.logp

    def pair_losses(self, kappa: float, keep: np.ndarray | None = None) -> np.ndarray:
        """``max_r |ln P(r | c) - ln P(r | c')|`` at ``kappa`` for each adjacent pair (those where ``keep``)."""
        logp = self._log_pmf(kappa)
        out = np.empty(self.pairs)
        diff = np.empty((min(self.step, self.pairs), logp.shape[1]))
        for p, a, b, m in self.runs:
            d = np.subtract(logp[a:a + m], logp[b:b + m], out=diff[:m])
            np.abs(d, out=d).max(axis=1, out=out[p:p + m])
        return out if keep is None else out[keep]


def _table_step(N: int) -> int:
    """Rows per chunk of :class:`_Table`'s buffers (the scratch of the log-sum-exp, the pairs' differences)."""
    return max(1, scan.WORK_BYTES // (8 * N * 16))


def _table_fits(N: int) -> bool:
    """Whether :class:`_Table` at ``|R(n)| = N`` fits in ``TABLE_SHARE`` of ``scan.WORK_BYTES``."""
    return 8 * (2 * N * N + 2 * _table_step(N) * N) <= TABLE_SHARE * scan.WORK_BYTES


def _last_crossing(kappas, loss_at, eps: float) -> dict[int, float]:
    """``L`` at ``kappas`` (ascending) from the largest down, up to the first with ``L <= eps``: ``{index: L}``.

    The kappas below that one are not evaluated: the last crossing (the largest ``L <= eps`` and the next above)
    does not depend on them."""
    vals: dict[int, float] = {}
    for t in range(len(kappas) - 1, -1, -1):
        vals[t] = loss_at(t)
        if vals[t] <= eps:
            break
    return vals


def _whole_loss(table: _Table, kappas, per: dict, t: int) -> float:
    """``L`` at ``kappas[t]`` over every pair (each pair's loss kept in ``per[t]``)."""
    per[t] = table.pair_losses(float(kappas[t]))
    return float(per[t].max()) if per[t].size else 0.0


def _kept_loss(table: _Table, kappas, keep, known: float, t: int) -> float:
    """``L`` at ``kappas[t]`` over the kept pairs; ``kappas[0]`` is the bracket's lower end, whose ``L`` is ``known``."""
    if t == 0:
        return known
    d = table.pair_losses(float(kappas[t]), keep)
    return float(d.max()) if d.size else 0.0


def _calibrate_table(mech: ExponentialMechanism, a, n: int, spec: ReleaseSpec,
                     base: ExponentialRows) -> Calibration:
    """:func:`_calibrate` on a :class:`_Table`: the same kappas where they decide the bracket, the same numbers."""
    eps = spec.epsilon
    table = _Table(base)
    hi = 4.0
    for _ in range(MAX_DOUBLINGS):  # bracket: L(lo) <= eps < L(hi), on a doubling grid
        grid = hi * 2.0 ** np.arange(-GRID + 1, 1)
        per: dict[int, np.ndarray] = {}  # each evaluated kappa's per-pair losses (for the kept pairs)
        at = partial(_whole_loss, table, grid, per)
        vals = _last_crossing(grid, at, eps)
        if vals[GRID - 1] <= eps:  # the walk moves up only if every kappa of the grid has L <= eps
            for t in range(GRID - 2, -1, -1):
                vals[t] = at(t)
            if all(v <= eps for v in vals.values()):
                hi *= 2.0 ** GRID
                continue
        ok = [t for t in sorted(vals) if vals[t] <= eps]
        if not ok:
            hi = grid[0]
            continue
        i = ok[-1]
        lo, llo, hi, lhi = grid[i], vals[i], grid[i + 1], vals[i + 1]
        keep = (per[i] >= KEEP * eps) | (per[i + 1] >= KEEP * eps)
        break
    else:
        raise InputError(f"calibration found no factor in [2^-60, 2^60] for mechanism {mech.id!r}")
    while hi / lo - 1.0 > RTOL:  # refine: interpolation guess +- RTOL/2, plus the bracket's thirds
        grid = _refine_grid(lo, llo, hi, lhi, eps)
        ks = np.concatenate([[lo], grid, [hi]])
        vals = _last_crossing(ks[:-1], partial(_kept_loss, table, ks, keep, llo), eps)
        i = min(vals)
        lo, llo, hi, lhi = ks[i], vals[i], ks[i + 1], (vals[i + 1] if i + 1 in vals else lhi)
    factor = float(lo)
    loss = float(table.pair_losses(factor).max())
    while loss > eps:
        factor *= 1.0 - RTOL
        loss = float(table.pair_losses(factor).max())
    return Calibration(factor, loss)


def _certify(mech: ExponentialMechanism, a, n: int, spec: ReleaseSpec, factor: float) -> float:
    rows = ExponentialRows(a, n, mech._weights_all(a, n, spec), factor, spec.distance)
    return worst_case_scan(rows)[0]


def _calibrate(mech: ExponentialMechanism, a: tuple, n: int, spec: ReleaseSpec) -> Calibration:
    a = np.asarray(a, dtype=np.float64)
    eps = spec.epsilon
    base = ExponentialRows(a, n, mech._weights_all(a, n, spec), 1.0, spec.distance)
    if n == 0:  # one data set: no adjacent pairs, every factor is eps-DP
        return Calibration(1.0, 0.0)
    if _table_fits(len(base.cands)):
        return _calibrate_table(mech, a, n, spec, base)
    hi = 4.0
    for _ in range(MAX_DOUBLINGS):  # bracket: L(lo) <= eps < L(hi), on a doubling grid
        grid = hi * 2.0 ** np.arange(-GRID + 1, 1)
        vals, pc, pcp, per = losses(base, grid, per_pair=True)
        ok = np.flatnonzero(vals <= eps)
        if ok.size == GRID:
            hi *= 2.0 ** GRID
            continue
        if ok.size == 0:
            hi = grid[0]
            continue
        i = ok[-1]
        lo, llo, hi, lhi = grid[i], vals[i], grid[i + 1], vals[i + 1]
        keep = (per[:, i] >= KEEP * eps) | (per[:, i + 1] >= KEEP * eps)
        pc, pcp = pc[keep], pcp[keep]
        del per
        break
    else:
        raise InputError(f"calibration found no factor in [2^-60, 2^60] for mechanism {mech.id!r}")
    while hi / lo - 1.0 > RTOL:  # refine: interpolation guess +- RTOL/2, plus the bracket's thirds
        grid = _refine_grid(lo, llo, hi, lhi, eps)
        vals = subset_losses(base, pc, pcp, grid)
        ks, ls = np.concatenate([[lo], grid, [hi]]), np.concatenate([[llo], vals, [lhi]])
        i = np.flatnonzero(ls[:-1] <= eps)[-1]
        lo, llo, hi, lhi = ks[i], ls[i], ks[i + 1], ls[i + 1]
    factor = float(lo)
    loss = _certify(mech, a, n, spec, factor)
    while loss > eps:
        factor *= 1.0 - RTOL
        loss = _certify(mech, a, n, spec, factor)
    return Calibration(factor, float(loss))


@lru_cache(maxsize=64)
def _cached(mech: ExponentialMechanism, a: tuple, n: int, spec: ReleaseSpec) -> Calibration:
    return _calibrate(mech, a, n, spec)


def calibrate(mechanism: Mechanism, a, n: int, spec: ReleaseSpec) -> Calibration:
    """``kappa*`` of an exponential mechanism at (prior ``a``, n, spec) (docs/definitions.md §9; module docstring).

    Cached per (mechanism, prior, n, spec) so that pmf, rows and sampling at one n don't recompute.
    ``spec.calibrate`` is ignored (the unscaled weights are calibrated); ``mechanism`` may be the
    registry entry or its :class:`CalibratedMechanism`.
    """
    base = cast(ExponentialMechanism, getattr(mechanism, "base", mechanism))
    check_scan_size(len(a), int(n), "calibration", passes=20)
    key = spec.base()
    return _cached(base, tuple(float(x) for x in np.asarray(a, dtype=np.float64)), int(n), key)


class CalibratedMechanism(ExponentialMechanism):
    """The calibrated variant of an exponential registry entry: weight ``kappa* w(c)`` (``ehds~calibrated``).

    Built by :func:`calibrated`; it has the entry's identity and behaviour, with the weight
    factor :func:`calibrate` finds at each (prior, n, spec), and claims pure eps-DP (certified by
    exact computation, docs/definitions.md §9).
    """

    def __init__(self, base: ExponentialMechanism):
        self.__dict__.update(base.__dict__)
        self.base = base
        self.guarantee = Guarantee.exact(
            "eps-DP: weight kappa* w(c), kappa* the largest factor keeping the exact worst-case concrete eps <= eps "
            "(certified by exact computation)", pure(),
            proof="kappa* is found on a grid and certified by computing the exact concrete epsilon over every "
                  "adjacent pair of R(n) at this prior and n (docs/definitions.md §9, Calibration).")

    def __repr__(self) -> str:
        return f"<mechanism {self.id} (calibrated): {self.name}>"

    def label(self, spec: ReleaseSpec) -> str:
        return self.id + " (calibrated)"

    def calibration(self, a, n: int, spec: ReleaseSpec) -> Calibration:
        """:func:`calibrate` of the underlying entry at (prior ``a``, n, spec)."""
        return calibrate(self.base, a, n, spec)

    def factor(self, a, n: int, spec: ReleaseSpec) -> float:
        """``kappa*`` of :func:`calibrate`."""
        return self.calibration(a, n, spec).factor

    def set_up(self, prior, n: int, spec: ReleaseSpec) -> None:
        """The entry's checks, then ``kappa*`` (:func:`calibrate`, cached): a set-up from public (prior, n, spec), so its
        refusals (the scan budget, no factor found) come before a ledger is charged and its time is outside a padded
        release's timed reference draws."""
        super().set_up(prior, n, spec)
        self.calibration(prior, n, spec)


_CALIBRATED: dict[str, CalibratedMechanism] = {}


def calibrated(mechanism: Mechanism) -> CalibratedMechanism:
    """The calibrated mechanism built on a calibratable registry entry (one object per entry)."""
    if isinstance(mechanism, CalibratedMechanism):
        return mechanism
    if not mechanism.calibratable:
        raise InputError(f"--calibrate applies to the exponential mechanisms only, not {mechanism.id!r}")
    if mechanism.id not in _CALIBRATED or _CALIBRATED[mechanism.id].base is not mechanism:
        _CALIBRATED[mechanism.id] = CalibratedMechanism(cast(ExponentialMechanism, mechanism))
    return _CALIBRATED[mechanism.id]
