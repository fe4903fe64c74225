"""Accuracy of a release: error ``H(BI(c), release)`` (docs/definitions.md §6), or ``D(BI(c), release)``
for another distance of :data:`dpposterior.distances.DISTANCES` (``distance=``).

* Exact: from a mechanism's output distribution over R(n) (``mechanisms.log_pmf``), the
  error is a discrete random variable; its mean, quantiles, the probability of releasing
  the exact posterior and the mass per number of substitution steps follow exactly.
* Monte Carlo: summaries of sampled errors as the drafts plot them (mean over runs,
  quartiles and notched median of a box plot, 004 §7.2.2 / 001 §5).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import validate
from .distances import DEFAULT_DISTANCE, DistanceGrid, get_distance
from .distances import distance as distance_value
from .errors import InputError
from .lattice.scale import Bracket
from .limits import Plan, Task, admit
from .mechanisms import ReleaseSpec, log_pmf, scan
from .mechanisms.base import ROWS_ROUTES
from .models import candidate_rank, candidates, log_prior_predictive, steps

#: Quantiles reported by the exact and Monte Carlo summaries (box-plot quartiles).
QUANTILES = (0.25, 0.5, 0.75)


def release_error(prior: ArrayLike, counts: ArrayLike, released: ArrayLike,
                  distance: str = DEFAULT_DISTANCE) -> NDArray[np.float64]:
    """``H(BI(c), Dir(a + m))`` (or ``D`` for another ``distance``) for each released count vector m (rows of
    ``released``), docs/definitions.md §6."""
    c = validate.counts(counts)
    a = validate.prior(prior, c.size)
    m = np.asarray(released, dtype=np.int64)
    if m.ndim != 2 or m.shape[1] != c.size:
        raise InputError(f"released counts must be an (R, {c.size}) array, got shape {m.shape}")
    if np.any(m < 0) or np.any(m.sum(axis=1) != c.sum()):
        raise InputError(f"released counts must be >= 0 and sum to n = {int(c.sum())}")
    return distance_value(distance, a + c, a + m)


def weighted_quantile(values: ArrayLike, probs: ArrayLike, q: float) -> float:
    """Smallest ``x`` with ``P(X <= x) >= q`` for a discrete law (values need not be sorted)."""
    v = np.asarray(values, dtype=np.float64)
    p = np.asarray(probs, dtype=np.float64)
    if v.shape != p.shape or v.ndim != 1 or v.size == 0:
        raise InputError("values and probabilities must be non-empty 1-d arrays of the same length")
    if not 0.0 <= q <= 1.0:
        raise InputError(f"quantile must be in [0, 1], got {q!r}")
    order = np.argsort(v, kind="stable")
    cdf = np.cumsum(p[order])
    cdf /= cdf[-1]
    i = int(np.searchsorted(cdf, q - 1e-12, side="left"))
    return float(v[order][min(i, v.size - 1)])


@dataclass(frozen=True)
class ExactAccuracy:
    """Exact law of the error of one mechanism at one (prior, c): docs/definitions.md §6."""

    mean: float
    q25: float
    median: float
    q75: float
    p_exact: float  # probability of releasing BI(c) itself

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def error_law(logp: ArrayLike, prior: ArrayLike, counts: ArrayLike,
              distance: str = DEFAULT_DISTANCE) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Errors ``H(BI(c), r)`` (``D`` for another ``distance``) over ``candidates(n, k)`` and their
    probabilities ``exp(logp)`` (docs/definitions.md §6)."""
    c = validate.counts(counts)
    a = validate.prior(prior, c.size)
    logp = np.asarray(logp, dtype=np.float64)
    cands = candidates(int(c.sum()), c.size)
    if logp.shape != (len(cands),):
        raise InputError(f"log-pmf must have one entry per candidate ({len(cands)}), got shape {logp.shape}")
    return distance_value(distance, a + c, a + cands), np.exp(logp)


def exact_accuracy_from_pmf(logp: ArrayLike, prior: ArrayLike, counts: ArrayLike,
                            distance: str = DEFAULT_DISTANCE) -> ExactAccuracy:
    """Mean, quartiles and P(exact) of the error (docs/definitions.md §6), from a log-pmf aligned with
    ``candidates(n, k)``; the error is measured by ``distance``."""
    h, p = error_law(logp, prior, counts, distance)
    c = validate.counts(counts)
    exact = float(p[int(candidate_rank(c))])
    return ExactAccuracy(
        mean=float(np.dot(p, h) / p.sum()),
        q25=weighted_quantile(h, p, 0.25),
        median=weighted_quantile(h, p, 0.5),
        q75=weighted_quantile(h, p, 0.75),
        p_exact=exact,
    )


def exact_accuracy(mechanism, prior: ArrayLike, counts: ArrayLike, **settings: Any) -> ExactAccuracy:
    """:func:`exact_accuracy_from_pmf` of ``mechanisms.log_pmf`` (a mechanism and its settings, or a
    :class:`~dpposterior.mechanisms.ReleaseSpec`, as ``log_pmf`` takes them).

    docs/definitions.md §6: the exact expected error and quantiles; the spec's ``distance`` is both the score of
    an exponential mechanism and the error measure.
    """
    spec = ReleaseSpec.given(mechanism, **settings)
    logp = log_pmf(spec, prior, counts)
    return exact_accuracy_from_pmf(logp, prior, counts, spec.distance)


def step_probabilities(logp: ArrayLike, counts: ArrayLike) -> NDArray[np.float64]:
    """Total probability of the candidates ``s`` substitution steps from c, s = 0..n (000 Tables 1-2)."""
    c = validate.counts(counts)
    logp = np.asarray(logp, dtype=np.float64)
    cands = candidates(int(c.sum()), c.size)
    if logp.shape != (len(cands),):
        raise InputError(f"log-pmf must have one entry per candidate ({len(cands)}), got shape {logp.shape}")
    return np.bincount(steps(c, cands), weights=np.exp(logp), minlength=int(c.sum()) + 1)


def mc_summary(errors: ArrayLike, level: float = 0.95) -> dict[str, float]:
    """Monte Carlo summary of sampled errors: mean with a normal CI, quartiles and the box-plot notch.

    The notch is ``median +- 1.57 IQR / sqrt(runs)`` (McGill et al. 1978, matplotlib's default).
    """
    e = np.asarray(errors, dtype=np.float64).ravel()
    if e.size == 0:
        raise InputError("need at least one error value")
    if not 0.0 < level < 1.0:
        raise InputError(f"level must be in (0, 1), got {level!r}")
    from scipy.stats import norm  # heavy (~0.5 s): loaded only here, not at CLI start-up

    z = float(norm.ppf(0.5 + level / 2))
    mean = float(e.mean())
    sem = float(e.std(ddof=1) / math.sqrt(e.size)) if e.size > 1 else float("nan")
    q25, med, q75 = (float(x) for x in np.quantile(e, QUANTILES))
    notch = 1.57 * (q75 - q25) / math.sqrt(e.size)
    return {
        "runs": int(e.size), "mean": mean, "sem": sem, "ci_low": mean - z * sem, "ci_high": mean + z * sem,
        "q25": q25, "median": med, "q75": q75, "notch_low": med - notch, "notch_high": med + notch,
        "min": float(e.min()), "max": float(e.max()),
    }


# ---------------------------------------------------------------------------------------------
# expected error over every data set of size n (docs/definitions.md §9, expected error)


@dataclass(frozen=True)
class ExpectedErrors:
    """Exact expected Hellinger error ``E(c) = sum_r P(r | c) H(BI(c), r)`` for every c of size n (docs/definitions.md §9).

    ``counts``: R(n) in ``candidates`` order, ``(N, k)``; ``expected``: ``E(c)``, ``(N,)``;
    ``predictive``: the prior predictive ``DirMult(c; n, a)``, ``(N,)``; ``worst = max_c E(c)`` at
    ``worst_counts``; ``average = sum_c DirMult(c) E(c)``; ``calibration``: the
    :class:`~dpposterior.mechanisms.calibrated.Calibration` when calibrated, else None.
    """

    mechanism: str
    epsilon: float
    counts: NDArray[np.int64]
    expected: NDArray[np.float64]
    predictive: NDArray[np.float64]
    worst: float
    worst_counts: list[int]
    average: float
    calibration: object | None = None
    distance: str = DEFAULT_DISTANCE
    measure: str = DEFAULT_DISTANCE
    #: 0 when exact; else ``E(c)`` is bracketed, ``expected <= E <= expected + tail`` (a translation release's
    #: truncated sum, :mod:`dpposterior.lattice.scale`), and so are ``worst`` and ``average``
    tail: float = 0.0

    def as_dict(self) -> dict:
        """The JSON summary of the CLI's ``accuracy`` command (``"distance"`` when it is not Hellinger, and
        ``"measure"`` when the error is measured by another distance than the one the mechanism is tailored to)."""
        out = {"mechanism": self.mechanism, "epsilon": self.epsilon, "worst_expected_error": self.worst,
               "worst_counts": self.worst_counts, "average_expected_error": self.average}
        if self.distance != DEFAULT_DISTANCE:
            out["distance"] = self.distance
        if self.measure != self.distance:
            out["measure"] = self.measure
        if self.calibration is not None:
            out["calibration"] = self.calibration.as_dict()
        if self.tail > 0:
            out["truncation_bound"] = self.tail
        return out


def expected_errors(mechanism, prior: ArrayLike, n: int, *, measure: str | None = None,
                    **settings: Any) -> ExpectedErrors:
    """Exact expected error ``E(c)`` of a mechanism for every data set of size n, worst and average (docs/definitions.md §9).

    One plan (:meth:`~dpposterior.mechanisms.Mechanism.plan` for ``Task.ERRORS``, from public prior, n, eps and
    settings), held to the limits by :func:`~dpposterior.limits.admit`, then its route: a walk over whole rows
    (:data:`~dpposterior.mechanisms.base.ROWS_ROUTES`: R(n) in chunks, each chunk's log-pmf rows (the registry entry's
    :meth:`Mechanism.rows`) and error rows (:class:`~dpposterior.distances.DistanceGrid` of the ``measure``),
    ``(B, |R(n)|)`` with ``B`` chosen so the chunk stays under ``mechanisms.scan.WORK_BYTES`` and each array under the
    rows' ``walk_chunk_bytes``), or the entry's own
    route (:meth:`Mechanism.direct_errors`: k = 2 geometric + remap in O(n W), the lattice release's window or local
    remap, the sequential clamp's translation structure at k >= 3, whose ``E`` is a bracket, ``tail`` its width).

    ``mechanism`` and ``settings``: a mechanism id and the settings of
    :meth:`~dpposterior.mechanisms.ReleaseSpec.of`, or one :class:`~dpposterior.mechanisms.ReleaseSpec`.
    ``distance``: the distance the mechanism is tailored to (the exponential mechanisms' score, ``optimal``'s
    loss); ``measure``: the distance the error is measured by, ``distance`` by default (docs/definitions.md §10).
    """
    params = ReleaseSpec.given(mechanism, **settings)
    a = validate.prior(prior)
    n = validate.size(n)
    measure = get_distance(params.distance if measure is None else measure).name
    get_distance(measure).check(a.size)
    return errors_of(params, a, n, measure, admit(params.mechanism.plan(Task.ERRORS, params, a, n, measure=measure)))


def _direct(params: ReleaseSpec, a: NDArray[np.float64], n: int, measure: str, out) -> ExpectedErrors:
    """:class:`ExpectedErrors` of a direct route's result (errors over R(n), or a :class:`Bracket`)."""
    mech = params.mechanism
    cal = mech.calibration(a, n, params)
    if isinstance(out, Bracket):
        counts, expected, tail = out.counts, out.low, out.tail
    else:
        counts, expected, tail = candidates(n, a.size), out, 0.0
    pred = np.exp(log_prior_predictive(a, counts))
    w = int(np.argmax(expected))
    return ExpectedErrors(
        mechanism=mech.label(params), epsilon=params.epsilon, counts=counts, expected=expected,
        predictive=pred, worst=float(expected[w]), worst_counts=counts[w].tolist(),
        average=float(np.dot(pred, expected) / pred.sum()), calibration=cal, distance=params.distance,
        measure=measure, tail=tail)


def errors_of_pass(members: list, a: NDArray[np.float64], n: int, measure: str) -> list[ExpectedErrors]:
    """Run one shared pass (:meth:`~dpposterior.mechanisms.Mechanism.shared_errors` of the first member's entry)
    for ``members`` (``[(plan, spec), ...]``, one :meth:`~dpposterior.mechanisms.Mechanism.errors_pass` key):
    each member's :func:`errors_of`, the same values."""
    outs = members[0][1].mechanism.shared_errors(members, a, n)
    return [_direct(spec, a, n, measure, out) for (_, spec), out in zip(members, outs)]


def errors_of(params: ReleaseSpec, a: NDArray[np.float64], n: int, measure: str, plan: Plan) -> ExpectedErrors:
    """Run an admitted plan of the expected errors (:func:`expected_errors`, whose inputs are validated): nothing is
    checked or planned again here."""
    mech = params.mechanism
    if plan.route not in ROWS_ROUTES:
        return _direct(params, a, n, measure, mech.direct_errors(plan, a, n, params, measure))
    cal = mech.calibration(a, n, params)
    rows = mech.rows(a, n, params)
    grid = DistanceGrid(a, n, measure)
    cands = rows.cands
    N = len(cands)
    cap = N if rows.walk_chunk_bytes is None else rows.walk_chunk_bytes // (8 * N)  # rows kept in cache
    chunk = max(1, min(N, scan.WORK_BYTES // (8 * N * 4), cap))
    expected = np.empty(N)
    for lo in range(0, N, chunk):
        block = cands[lo:lo + chunk]
        logp, h = rows.with_losses(block, grid)
        np.exp(logp, out=logp)
        expected[lo:lo + chunk] = np.einsum("ij,ij->i", logp, h) / logp.sum(axis=1)
        del logp, h
    pred = np.exp(log_prior_predictive(a, cands))
    w = int(np.argmax(expected))
    return ExpectedErrors(
        mechanism=mech.label(params), epsilon=params.epsilon, counts=cands, expected=expected, predictive=pred,
        worst=float(expected[w]), worst_counts=cands[w].tolist(), average=float(np.dot(pred, expected) / pred.sum()),
        calibration=cal, distance=params.distance, measure=measure)
