"""Exact privacy loss of a mechanism from its output distributions (docs/definitions.md §5; 004 §7.3, 000 §6.3).

* Concrete epsilon: ``max over adjacent (c, c') and r of |ln p_c(r) - ln p_c'(r)|``.
  *Worst case* ranges over every count vector of size n; *local* fixes c and ranges over
  its neighbours.  The maximising pair and output are reported.
* Privacy profile: ``delta(eps') = max over ordered adjacent pairs of
  sum_r max(0, p_c(r) - e^eps' p_c'(r))`` (the hockey-stick divergence).

The worst case walks the count vectors in ``candidates`` order in chunks, computing each
chunk's log-pmf rows once; a neighbour ``c - e_i + e_j`` (i < j) precedes c in that order,
so nearly every neighbour row is already in the chunk and the few others are recomputed.
Memory stays under ``WORK_BYTES`` whatever n.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from tqdm.auto import tqdm

from . import validate
from .errors import InputError, SizeError
from .mechanisms import DEFAULT_DELTA, DEFAULT_GAMMA, Mechanism, Params, Rows, resolve
from .models import as_counts, as_prior, as_size, candidate_rank, check_size, n_candidates, neighbours

#: Working memory of one chunk of the worst-case scan.
WORK_BYTES = 512 * 2**20
#: Largest number of (data set, output) log-pmf entries an interactive scan may evaluate, summed
#: over its passes: ``passes x |R(n)|^2`` (~1e7 per second here, so ~40 s).  Read at each call
#: from ``DPPOSTERIOR_MAX_PAIRS``; the pipeline's jobs raise it (:mod:`dpposterior.paper.budgets`).
DEFAULT_MAX_PAIR_WORK = 4e8
#: the rate behind the time estimate of a refusal
PAIRS_PER_SECOND = 1e7


@dataclass(frozen=True)
class PrivacyLoss:
    """Result of :func:`concrete_epsilon`."""

    mechanism: str
    concrete_epsilon: float
    worst_pair: tuple[list[int], list[int]]
    worst_output: list[int]
    claimed_epsilon: float | None
    claimed_delta: float | None
    scope: str  # "worst-case" or "local"
    delta_at: dict[str, float] | None = field(default=None)

    @property
    def exceeds_claim(self) -> bool:
        """True when the exact loss is above the claimed pure epsilon (a finding; None-claims never 'exceed')."""
        if self.claimed_epsilon is None or (self.claimed_delta or 0.0) > 0.0:
            return False
        return self.concrete_epsilon > self.claimed_epsilon * (1 + 1e-9)


def _hockey_stick(lp: NDArray, lq: NDArray, eps_prime: float) -> NDArray:
    """``sum_r max(0, p(r) - e^eps' q(r))`` per row."""
    return np.maximum(0.0, np.exp(lp) - np.exp(eps_prime + lq)).sum(axis=-1)


def check_scan_size(k: int, n: int, what: str = "the worst-case privacy loss", passes: float = 1.0) -> None:
    """Raise :class:`SizeError` when ``passes`` scans over all pairs of R(n) would exceed the pair budget.

    The budget is ``DPPOSTERIOR_MAX_PAIRS`` (default :data:`DEFAULT_MAX_PAIR_WORK`), read at each
    call; ``passes`` is how many full scans the caller makes (the expected error ~2, a calibration ~20:
    its bisection and its certificate; measured ~14).
    """
    from .budget import budget_setting

    size = n_candidates(n, k)
    check_size(size, 8 * (k + 12), f"{what} over R(n) for k={k}, n={n}")
    limit = budget_setting("DPPOSTERIOR_MAX_PAIRS", DEFAULT_MAX_PAIR_WORK)
    work = passes * size * size
    if work > limit:
        raise SizeError(
            f"{what} for k={k}, n={n} needs {passes:g} x |R(n)|^2 = {work:.2e} log-pmf evaluations "
            f"(~{work / PAIRS_PER_SECOND:.0f} s here), over the budget of {limit:.0e} (use --at for the local "
            "loss, or set DPPOSTERIOR_MAX_PAIRS to raise it)"
        )


def _validate(mechanism, prior, n, kw, worst_case):
    mech, params = resolve(mechanism, **kw)
    a = as_prior(prior)
    n = as_size(n)
    size = n_candidates(n, a.size)
    check_size(size, 8 * (a.size + 12), f"the exact privacy loss over R(n) for k={a.size}, n={n}")
    if worst_case:
        check_scan_size(a.size, n)
    return mech, params, a, n


def concrete_epsilon(mechanism: str, prior: ArrayLike, n: int, *, epsilon: float, delta: float = DEFAULT_DELTA,
                     gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact",
                     objective: str = "worst", calibrate: bool = False,
                     at: ArrayLike | None = None, delta_at: float | None = None,
                     progress: bool = False) -> PrivacyLoss:
    """Exact concrete epsilon of a mechanism (docs/definitions.md §5), worst case or local (``at=c``).

    With ``delta_at=eps'`` also returns the privacy profile ``delta(eps')`` over the same pairs.
    The mechanism's log-pmf rows come from its registry entry (:meth:`Mechanism.rows`).
    """
    kw = dict(epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=global_sensitivity_method,
              objective=objective, calibrate=calibrate)
    mech, params, a, n = _validate(mechanism, prior, n, kw, worst_case=at is None)
    if delta_at is not None:
        delta_at = validate.eps_prime(delta_at)
    rows = mech.rows(a, n, params)
    claimed_eps, claimed_delta = mech.claimed(params.epsilon, params.delta, params.calibrate)
    if at is not None:
        c = as_counts(at, "--at counts")
        if c.size != a.size or c.sum() != n:
            raise InputError(f"--at counts must have {a.size} categories summing to n={n}, got {c.tolist()}")
        loss, pair, out, dlt = _local(rows, c, delta_at)
        scope = "local"
    else:
        loss, pair, out, dlt = worst_case_scan(rows, delta_at, progress, desc=f"concrete eps {mech.id}")
        scope = "worst-case"
    return PrivacyLoss(
        mechanism=mech.id, concrete_epsilon=loss, worst_pair=pair, worst_output=out,
        claimed_epsilon=claimed_eps, claimed_delta=claimed_delta, scope=scope,
        delta_at=None if delta_at is None else {"epsilon": delta_at, "delta": dlt},
    )


def _local(rows: Rows, c, delta_at):
    nb = neighbours(c)
    lp = rows(c[None, :])[0]
    lq = rows(nb)
    diff = np.abs(lp[None, :] - lq)
    flat = int(np.argmax(diff))
    j, r = divmod(flat, diff.shape[1])
    dlt = None
    if delta_at is not None:
        dlt = float(max(_hockey_stick(lp[None, :], lq, delta_at).max(), _hockey_stick(lq, lp[None, :], delta_at).max()))
    return float(diff[j, r]), (c.tolist(), nb[j].tolist()), rows.cands[r].tolist(), dlt


def adjacent_blocks(rows, progress: bool = False, desc: str = "pairs"):
    """Walk every adjacent pair of data sets of size n in chunks, each row computed about once.

    ``rows(counts (B, k)) -> (B, N)`` is any row function over R(n) with ``rows.cands`` and
    ``rows.k`` (a :class:`~dpposterior.mechanisms.Rows`, or a derived score function).  A neighbour
    ``c - e_i + e_j`` (i < j) precedes c in ``candidates`` order, so nearly every neighbour row is
    already in the chunk and the few others are recomputed.  Yields, per chunk and direction
    ``i < j``, ``(c, c', values_c, values_c')``: the count vectors of the pairs (``(P, k)`` each) and
    their rows (``(P, N)`` each; ``values_c`` is a fresh copy).  Memory stays under ``WORK_BYTES``.
    """
    cands, k = rows.cands, rows.k
    N = len(cands)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    chunk = max(1, min(N, WORK_BYTES // (8 * N * 4)))
    bar = tqdm(total=N, desc=desc, unit="c", disable=not progress, mininterval=2.0)
    for lo in range(0, N, chunk):
        hi = min(N, lo + chunk)
        block = cands[lo:hi]
        srcs, dsts = [], []
        for i, j in pairs:
            ok = np.flatnonzero(block[:, i] >= 1)
            moved = block[ok].copy()
            moved[:, i] -= 1
            moved[:, j] += 1
            srcs.append(ok)
            dsts.append(candidate_rank(moved))
        dst_all = np.concatenate(dsts)
        outside = np.unique(dst_all[(dst_all < lo) | (dst_all >= hi)])
        lp_in = rows(block)
        lp_out = rows(cands[outside]) if outside.size else np.empty((0, N))
        for src, dst in zip(srcs, dsts):
            if src.size == 0:
                continue
            inside = (dst >= lo) & (dst < hi)
            other = np.empty((src.size, N))
            other[inside] = lp_in[dst[inside] - lo]
            other[~inside] = lp_out[np.searchsorted(outside, dst[~inside])]
            yield block[src], cands[dst], lp_in[src], other
        bar.update(hi - lo)
    bar.close()


def worst_case_scan(rows, delta_at: float | None = None, progress: bool = False, desc: str = "concrete eps"):
    """``max over adjacent (c, c') and r of |rows(c)[r] - rows(c')[r]|`` with the maximising pair and output.

    Returns ``(loss, (c, c'), r, delta(delta_at) or None)``.
    """
    cands, N = rows.cands, len(rows.cands)
    best = (-1.0, None, None)
    best_delta = 0.0
    for c, cp, lp, lq in adjacent_blocks(rows, progress, desc):
        diff = lp.copy() if delta_at is not None else lp
        diff -= lq
        np.abs(diff, out=diff)
        flat = int(np.argmax(diff))
        row, r = divmod(flat, N)
        if diff[row, r] > best[0]:
            best = (float(diff[row, r]), (c[row].tolist(), cp[row].tolist()), cands[r].tolist())
        if delta_at is not None:
            best_delta = max(best_delta, float(_hockey_stick(lp, lq, delta_at).max()),
                             float(_hockey_stick(lq, lp, delta_at).max()))
    return best[0], best[1], best[2], (best_delta if delta_at is not None else None)


def privacy_profile(mechanism: str, prior: ArrayLike, n: int, eps_grid: ArrayLike, *, epsilon: float,
                    delta: float = DEFAULT_DELTA, gamma: float = DEFAULT_GAMMA,
                    global_sensitivity_method: str = "exact", objective: str = "worst", calibrate: bool = False,
                    at: ArrayLike | None = None) -> NDArray[np.float64]:
    """``delta(eps')`` for each eps' of ``eps_grid`` (docs/definitions.md §5), worst case or local (``at=c``).

    ``eps_grid``: a number or a flat list of at most :data:`MAX_PROFILE_POINTS` numbers in
    ``[0, 700]``.  The worst case makes one scan per point, so the pair budget counts them all
    (``DPPOSTERIOR_MAX_PAIRS``, checked before the first).
    """
    grid = profile_grid(eps_grid)
    a, n = validate.prior(prior), validate.size(n)
    if at is None:
        check_scan_size(a.size, n, "the privacy profile", passes=len(grid))
    return np.array([
        concrete_epsilon(mechanism, a, n, epsilon=epsilon, delta=delta, gamma=gamma,
                         global_sensitivity_method=global_sensitivity_method, objective=objective,
                         calibrate=calibrate, at=at, delta_at=e).delta_at["delta"]
        for e in grid
    ])


#: Points of one privacy profile (each is a full scan of the pairs, or of one data set's neighbours).
MAX_PROFILE_POINTS = 10_000


def profile_grid(eps_grid: ArrayLike, name: str = "eps_grid") -> list[float]:
    """The eps' of a privacy profile: one number or a flat list, each by :func:`validate.eps_prime`."""
    if isinstance(eps_grid, (str, bytes, dict, set)):
        raise InputError(f"{name} must be a number or a list of numbers in [0, 700], got {type(eps_grid).__name__}")
    try:
        arr = np.asarray(eps_grid, dtype=object)
    except (ValueError, TypeError):
        raise InputError(f"{name} must be a flat list of numbers in [0, 700]") from None
    if arr.ndim > 1:
        raise InputError(f"{name} must be a flat list of numbers in [0, 700], got shape {arr.shape}")
    items = arr.reshape(-1).tolist()
    if not 1 <= len(items) <= MAX_PROFILE_POINTS:
        raise InputError(f"{name} must have 1 to {MAX_PROFILE_POINTS} points, got {len(items)}")
    return [validate.eps_prime(e, name) for e in items]


def pair_epsilon(mechanism: str, prior: ArrayLike, pair, *, epsilon: float, delta: float = DEFAULT_DELTA,
                 gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact",
                 delta_at: float | None = None) -> tuple[float, float | None]:
    """Exact loss of one pair ``max_r |ln p_c(r) - ln p_c'(r)|`` (docs/definitions.md §5), and ``delta(eps')`` both ways.

    ``pair = (c, c')``: two count vectors of the same size (the auditor compares its bound with this).
    """
    from .mechanisms import log_pmf

    try:
        c, d = pair
    except (TypeError, ValueError):
        raise InputError("pair must be two count vectors") from None
    c = validate.counts(c, "pair counts")
    d = validate.counts(d, "pair counts", k=c.size, n=int(c.sum()))
    if delta_at is not None:
        delta_at = validate.eps_prime(delta_at)
    kw = dict(epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=global_sensitivity_method)
    lp, lq = log_pmf(mechanism, prior, c, **kw), log_pmf(mechanism, prior, d, **kw)
    loss = float(np.max(np.abs(lp - lq)))
    if delta_at is None:
        return loss, None
    p, q, f = np.exp(lp), np.exp(lq), math.exp(delta_at)
    return loss, float(max(np.maximum(0, p - f * q).sum(), np.maximum(0, q - f * p).sum()))
