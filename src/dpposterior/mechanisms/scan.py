"""The exact worst-case scans over adjacent data sets and their size checks (docs/definitions.md §5).

The worst case walks the count vectors in ``candidates`` order in chunks, computing each
chunk's log-pmf rows once; a neighbour ``c - e_i + e_j`` (i < j) precedes c in that order,
so nearly every neighbour row is already in the chunk and the few others are recomputed.
Memory stays under ``WORK_BYTES`` whatever n (read from this module at each call, so a test
may lower it).  The scans take any row function over R(n) (a :class:`~.base.Rows`), so the
optimal table's certificate (:mod:`.optimal`), the calibration (:mod:`.calibrated`) and the
privacy loss (:mod:`dpposterior.privacy`) share them.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..errors import SizeError
from ..limits import limit_setting
from ..models import check_size, n_candidates, neighbour_moves
from ..validate import estimate_text
from .base import PAIRS_PER_SECOND

#: Working memory of one chunk of the worst-case scan.
WORK_BYTES = 512 * 2**20
# The largest number of (data set, output) log-pmf entries an interactive scan may evaluate, summed
# over its passes: ``passes x |R(n)|^2`` (~1e7 per second here, so ~40 s), is ``DPPOSTERIOR_MAX_PAIRS``
# (``limits.LIMITS``), read at each call; the pipeline's jobs raise it (:mod:`dpposterior.paper.limits`).
# The rate behind the time estimate of a refusal, ``PAIRS_PER_SECOND``, is kept in :mod:`.base` with the plans.


def _hockey_stick(logp: NDArray, logq: NDArray, eps_prime: float) -> NDArray:
    """``sum_r max(0, p(r) - e^eps' q(r))`` per row."""
    return np.maximum(0.0, np.exp(logp) - np.exp(eps_prime + logq)).sum(axis=-1)


def check_scan_size(k: int, n: int, what: str = "the worst-case privacy loss", passes: float = 1.0,
                    advice: str = "") -> None:
    """Raise :class:`SizeError` when ``passes`` scans over all pairs of R(n) would exceed the pair budget.

    The budget is ``DPPOSTERIOR_MAX_PAIRS`` (``limits.LIMITS``), read at each
    call; ``passes`` is how many full scans the caller makes (the expected error ~2, a calibration ~20:
    its bisection and its certificate; measured ~14).  ``advice``: what the caller can do instead
    (``"use --at for the local loss"``), put before the setting in the message; the default names only the
    setting, so no command is told of a flag it lacks.
    """
    size = n_candidates(n, k)
    check_size(size, 8 * (k + 12), f"{what} over R(n) for k={k}, n={n}")
    limit = limit_setting("DPPOSTERIOR_MAX_PAIRS")
    work = passes * size * size
    if work > limit:
        raise SizeError(
            f"{what} for k={k}, n={n} needs {passes:g} x |R(n)|^2 = {work:.2e} log-pmf evaluations "
            f"({estimate_text(work / PAIRS_PER_SECOND)} s here), over the limit of {limit:.0e} "
            f"({advice + ', or ' if advice else ''}set DPPOSTERIOR_MAX_PAIRS to raise it)"
        )


def adjacent_blocks(rows, progress: bool = False, desc: str = "pairs"):
    """Walk every adjacent pair of data sets of size n in chunks, each row computed about once.

    ``rows(counts (B, k)) -> (B, N)`` is any row function over R(n) with ``rows.cands`` and
    ``rows.k`` (a :class:`~dpposterior.mechanisms.Rows`, or a derived score function).  A neighbour
    ``c - e_i + e_j`` (i < j) precedes c in ``candidates`` order, so nearly every neighbour row is
    already in the chunk and the few others are recomputed.  Yields, per chunk and direction
    ``i < j``, ``(c, c', values_c, values_c')``: the count vectors of the pairs (``(P, k)`` each) and
    their rows (``(P, N)`` each; ``values_c`` is a fresh copy).  Memory stays under ``WORK_BYTES``.
    """
    cands = rows.cands
    N = len(cands)
    chunk = max(1, min(N, WORK_BYTES // (8 * N * 4)))
    # imported here: tqdm.auto in a notebook kernel imports ipywidgets (~0.1 s), and only a progress bar needs it
    from tqdm.auto import tqdm

    bar = tqdm(total=N, desc=desc, unit="c", disable=not progress, mininterval=2.0)
    for lo in range(0, N, chunk):
        hi = min(N, lo + chunk)
        block = cands[lo:hi]
        moves = neighbour_moves(block)
        srcs, dsts = [m[0] for m in moves], [m[1] for m in moves]
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
    for c, cp, logp, logq in adjacent_blocks(rows, progress, desc):
        diff = logp.copy() if delta_at is not None else logp
        diff -= logq
        np.abs(diff, out=diff)
        flat = int(np.argmax(diff))
        row, r = divmod(flat, N)
        if diff[row, r] > best[0]:
            best = (float(diff[row, r]), (c[row].tolist(), cp[row].tolist()), cands[r].tolist())
        if delta_at is not None:
            best_delta = max(best_delta, float(_hockey_stick(logp, logq, delta_at).max()),
                             float(_hockey_stick(logq, logp, delta_at).max()))
    return best[0], best[1], best[2], (best_delta if delta_at is not None else None)
