"""Exact privacy loss of a mechanism from its output distributions (docs/definitions.md §5; 004 §7.3, 000 §6.3).

* Concrete epsilon: ``max over adjacent (c, c') and r of |ln p_c(r) - ln p_c'(r)|``.
  *Worst case* ranges over every count vector of size n; *local* fixes c and ranges over
  its neighbours.  The maximising pair and output are reported.
* Privacy profile: ``delta(eps') = max over ordered adjacent pairs of
  sum_r max(0, p_c(r) - e^eps' p_c'(r))`` (the hockey-stick divergence).

The worst case is the exact scan of :mod:`dpposterior.mechanisms.scan` (its chunked walk over
the adjacent pairs, its size checks and budget).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import validate
from .distances import DEFAULT_DISTANCE
from .errors import InputError
from .mechanisms import ReleaseSpec, Rows, log_pmf
from .mechanisms.scan import _hockey_stick, check_scan_size, worst_case_scan
from .models import check_size, n_candidates, neighbours

#: The alternative a worst-case scan over its limit suggests (``privacy`` is the command with ``--at``).
AT_ADVICE = "use --at (at=) for the local loss"


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
    #: The largest ``|ln p|`` of the two log-probabilities whose difference is the loss (for :attr:`tolerance`).
    log_p_magnitude: float = 0.0
    #: The distance of the exponential mechanisms' score (the exact loss is of the mechanism under it).
    distance: str = DEFAULT_DISTANCE

    @property
    def tolerance(self) -> float:
        """How far above the claim the computed loss may be by rounding alone (:func:`claim_tolerance`)."""
        return claim_tolerance(self.claimed_epsilon or 0.0, self.log_p_magnitude)

    @property
    def exceeds_claim(self) -> bool:
        """True when the exact loss is above the claimed pure epsilon by more than :attr:`tolerance` (a finding;
        None-claims never 'exceed')."""
        if self.claimed_epsilon is None or (self.claimed_delta or 0.0) > 0.0:
            return False
        return self.concrete_epsilon > self.claimed_epsilon + self.tolerance


#: Relative part of :func:`claim_tolerance` (of eps) and its absolute part, in units of 2^-52 per unit of |ln p|.
CLAIM_RTOL = 1e-9
CLAIM_ULPS = 64


def claim_tolerance(epsilon: float, log_p_magnitude: float = 0.0) -> float:
    """The margin by which a computed loss may exceed a claimed ``epsilon`` before it is a finding.

    A loss is a difference ``|ln p_c(r) - ln p_c'(r)|`` of log-probabilities, so its rounding error scales
    with their size, not with eps: ``CLAIM_RTOL * eps + CLAIM_ULPS * 2^-52 * max(1, |ln p|)``.  At eps 1e-6 a
    loss of 1.000000005e-6 is within it (rounding), at eps 1 the margin is about 1e-9.  Every comparison of
    a computed loss with a claim calls this function (the ``privacy`` output and JSON print it as
    ``tolerance``); a certificate (calibration's) stays on the safe side and needs no margin.
    """
    return CLAIM_RTOL * abs(float(epsilon)) + CLAIM_ULPS * 2.0**-52 * max(1.0, float(log_p_magnitude))


def _validate(mechanism, prior, n, settings, worst_case):
    params = ReleaseSpec.given(mechanism, **settings)
    mech = params.mechanism
    a = validate.prior(prior)
    n = validate.size(n)
    mech.check_distance(params, a.size)
    size = n_candidates(n, a.size)
    check_size(size, 8 * (a.size + 12), f"the exact privacy loss over R(n) for k={a.size}, n={n}")
    if worst_case:
        check_scan_size(a.size, n, advice=AT_ADVICE)
    return mech, params, a, n


def concrete_epsilon(mechanism, prior: ArrayLike, n: int, *, at: ArrayLike | None = None,
                     delta_at: float | None = None, progress: bool = False, **settings: Any) -> PrivacyLoss:
    """Exact concrete epsilon of a mechanism (docs/definitions.md §5), worst case or local (``at=c``).

    With ``delta_at=eps'`` also returns the privacy profile ``delta(eps')`` over the same pairs.
    The mechanism's log-pmf rows come from its registry entry (:meth:`Mechanism.rows`), under ``distance``
    (the score of the exponential mechanisms): what holds for another distance is this number.
    ``mechanism`` and ``settings``: a mechanism id and the settings of
    :meth:`~dpposterior.mechanisms.ReleaseSpec.of`, or one :class:`~dpposterior.mechanisms.ReleaseSpec`.
    """
    mech, params, a, n = _validate(mechanism, prior, n, settings, worst_case=at is None)
    if delta_at is not None:
        delta_at = validate.eps_prime(delta_at)
    rows = mech.rows(a, n, params)
    claimed_eps, claimed_delta = params.claimed()
    if at is not None:
        c = validate.counts(at, "--at counts")
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
        log_p_magnitude=_magnitude(rows, pair, out), distance=params.distance,
    )


def _magnitude(rows: Rows, pair, out) -> float:
    """``max |ln p|`` of the two log-probabilities at the maximising pair and output (two rows recomputed)."""
    if pair is None or pair[0] is None or out is None:
        return 0.0
    both = rows(np.array([pair[0], pair[1]], dtype=np.int64))
    r = int(np.flatnonzero((rows.cands == np.asarray(out)).all(axis=1))[0])
    v = np.abs(both[:, r])
    v = v[np.isfinite(v)]
    return float(v.max()) if v.size else 0.0


def _local(rows: Rows, c, delta_at):
    nb = neighbours(c)
    logp = rows(c[None, :])[0]
    logq = rows(nb)
    diff = np.abs(logp[None, :] - logq)
    flat = int(np.argmax(diff))
    j, r = divmod(flat, diff.shape[1])
    dlt = None
    if delta_at is not None:
        dlt = float(max(_hockey_stick(logp[None, :], logq, delta_at).max(),
                        _hockey_stick(logq, logp[None, :], delta_at).max()))
    return float(diff[j, r]), (c.tolist(), nb[j].tolist()), rows.cands[r].tolist(), dlt


def privacy_profile(mechanism, prior: ArrayLike, n: int, eps_grid: ArrayLike, *, at: ArrayLike | None = None,
                    **settings: Any) -> NDArray[np.float64]:
    """``delta(eps')`` for each eps' of ``eps_grid`` (docs/definitions.md §5), worst case or local (``at=c``).

    ``eps_grid``: a number or a flat list of at most :data:`MAX_PROFILE_POINTS` numbers in
    ``[0, 700]``.  The worst case makes one scan per point, so the pair budget counts them all
    (``DPPOSTERIOR_MAX_PAIRS``, checked before the first).  ``mechanism`` and ``settings``: as
    :func:`concrete_epsilon`.
    """
    grid = profile_grid(eps_grid)
    a, n = validate.prior(prior), validate.size(n)
    if at is None:
        check_scan_size(a.size, n, "the privacy profile", passes=len(grid), advice=AT_ADVICE)
    spec = ReleaseSpec.given(mechanism, **settings)
    return np.array([concrete_epsilon(spec, a, n, at=at, delta_at=e).delta_at["delta"] for e in grid])


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


def pair_epsilon(mechanism, prior: ArrayLike, pair, *, delta_at: float | None = None,
                 **settings: Any) -> tuple[float, float | None]:
    """Exact loss of one pair ``max_r |ln p_c(r) - ln p_c'(r)|`` (docs/definitions.md §5), and ``delta(eps')`` both ways.

    ``pair = (c, c')``: two count vectors of the same size (the auditor compares its bound with this).
    ``mechanism`` and ``settings``: as :func:`concrete_epsilon`.
    """
    try:
        c, d = pair
    except (TypeError, ValueError):
        raise InputError("pair must be two count vectors") from None
    c = validate.counts(c, "pair counts")
    d = validate.counts(d, "pair counts", k=c.size, n=int(c.sum()))
    if delta_at is not None:
        delta_at = validate.eps_prime(delta_at)
    spec = ReleaseSpec.given(mechanism, **settings)
    logp, logq = log_pmf(spec, prior, c), log_pmf(spec, prior, d)
    loss = float(np.max(np.abs(logp - logq)))
    if delta_at is None:
        return loss, None
    p, q, f = np.exp(logp), np.exp(logq), math.exp(delta_at)
    return loss, float(max(np.maximum(0, p - f * q).sum(), np.maximum(0, q - f * p).sum()))
