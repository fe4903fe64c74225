"""Auditing the library's own mechanisms with the black-box auditor (docs/definitions.md §5, "Empirical").

:mod:`dpposterior.audit` sees only a sampler; this module wraps each mechanism of
:mod:`dpposterior.mechanisms` as such a sampler (:func:`mechanism_sampler`), picks pairs with
the white-box hint ``worst`` (the exact worst pair of :func:`dpposterior.privacy.concrete_epsilon`),
adds the exact loss of the reported pair for comparison (:func:`dpposterior.privacy.pair_epsilon`),
and plans sample sizes from the exact pmf (:func:`plan_mechanism`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import audit as _audit
from . import validate
from .audit import (
    DEFAULT_CONFIDENCE,
    DEFAULT_EVENTS,
    DEFAULT_SAMPLES,
    AuditResult,
    Sampler,
    audit,
    audit_search,
    check_confidence,
    check_pair,
    samples_needed,
)
from .errors import InputError, SizeError
from .limits import limit_setting
from .mechanisms import ReleaseSpec, get_mechanism, log_pmf, sample
from .models import candidates
from .privacy import concrete_epsilon, pair_epsilon

#: The exact loss of one pair now lives in :mod:`dpposterior.privacy` (kept under its old name).
exact_pair_epsilon = pair_epsilon


# Estimated seconds one audit of a library mechanism may take: ``DPPOSTERIOR_MAX_AUDIT_SECONDS`` (``limits.LIMITS``).


def check_audit_time(mechanism, n: int, k: int, samples: int, pairs: int = 1) -> float:
    """Refuse (:class:`SizeError`), from public inputs only, an audit of ``pairs`` pairs at ``samples``
    draws per side whose estimated time exceeds ``DPPOSTERIOR_MAX_AUDIT_SECONDS`` (default 45 s).

    The estimate, per side and pair: ``samples k`` entries at the mechanism's
    :meth:`~dpposterior.mechanisms.Mechanism.audit_entry_seconds`, plus one set-up
    (:meth:`~dpposterior.mechanisms.Mechanism.setup_seconds`) per batch of draws.  The black-box
    auditor's own budget (``DPPOSTERIOR_MAX_AUDIT_SAMPLES``) counts draws and applies as well.
    Returns the estimate.
    """
    mech = get_mechanism(mechanism)
    mech.check_setup(n, k, what="a draw in the audit")
    batches = -(-samples // _audit.batch_rows(k))
    seconds = 2 * pairs * (samples * k * mech.audit_entry_seconds(n, k) + batches * mech.setup_seconds(n, k))
    limit = limit_setting("DPPOSTERIOR_MAX_AUDIT_SECONDS")
    if seconds > limit:
        raise SizeError(f"the audit of {mech.id} for k={k}, n={n} at {samples:.3g} samples per side"
                        f"{f' over {pairs} pairs' if pairs > 1 else ''} would take "
                        f"{validate.estimate_text(seconds)} s here, over the "
                        f"limit of {limit:.3g} s (set DPPOSTERIOR_MAX_AUDIT_SECONDS to raise it)")
    return seconds


def mechanism_sampler(mechanism, prior: ArrayLike, **settings: Any) -> Sampler:
    """A black-box sampler for one of the library's mechanisms (via :func:`mechanisms.sample`): a mechanism id
    and the settings of :meth:`~dpposterior.mechanisms.ReleaseSpec.of`, or one
    :class:`~dpposterior.mechanisms.ReleaseSpec`."""
    spec = ReleaseSpec.given(mechanism, **settings)
    a = validate.prior(prior)

    def draw(dataset, size, rng):
        return sample(spec, a, dataset, size=size, rng=rng)

    def sampler(dataset, size, rng):
        # in batches within sample()'s draw budget (the auditor's own budget counts the draws)
        step = max(1, int(limit_setting("DPPOSTERIOR_MAX_DRAW_ENTRIES")) // a.size)
        if size <= step:
            return draw(dataset, size, rng)
        return np.concatenate([draw(dataset, min(step, size - lo), rng) for lo in range(0, size, step)])

    return sampler


def candidate_pairs(prior: ArrayLike, n: int, strategy: str = "boundary", *, mechanism=None, count: int = 4,
                    rng: np.random.Generator | int | None = None, max_pairs: int | None = None,
                    **settings: Any) -> list[tuple[list[int], list[int]]]:
    """Adjacent pairs to audit: the black-box strategies of :func:`dpposterior.audit.candidate_pairs`,
    plus ``worst``, the exact worst pair of :func:`~dpposterior.privacy.concrete_epsilon` (a white-box
    hint; needs ``mechanism`` and ``epsilon``, or a :class:`~dpposterior.mechanisms.ReleaseSpec`)."""
    if strategy != "worst":
        return _audit.candidate_pairs(prior, n, strategy, count=count, rng=rng, max_pairs=max_pairs)
    a = validate.prior(prior)
    n = validate.size(n)
    if mechanism is None or (not isinstance(mechanism, ReleaseSpec) and settings.get("epsilon") is None):
        raise InputError("search 'worst' needs the mechanism and epsilon (it uses the exact pmf)")
    res = concrete_epsilon(mechanism, a, n, **settings)
    return [tuple(res.worst_pair)]


def audit_mechanism(mechanism, prior: ArrayLike, n: int, *, pair=None, search: str = "worst",
                    samples: int = DEFAULT_SAMPLES, confidence: float = DEFAULT_CONFIDENCE, seed: int | None = None,
                    n_events: int = DEFAULT_EVENTS, delta_at: float | None = None, exact: bool = True,
                    progress: bool = False, distance: str | None = None, **settings: Any) -> AuditResult:
    """Audit one of the library's mechanisms at one pair (``pair``) or at the pairs ``search`` picks.

    ``mechanism`` and ``settings``: a mechanism id and the settings of
    :meth:`~dpposterior.mechanisms.ReleaseSpec.of`, or one :class:`~dpposterior.mechanisms.ReleaseSpec`;
    ``distance`` (default the spec's, Hellinger) is checked after the audit's own options.

    The auditor only samples; with ``exact=True`` the exact loss of the reported pair is added
    for comparison (``None`` when R(n) is too large for the pmf).  ``search='worst'`` falls back
    to ``'boundary'`` when the exact worst case does not fit the memory budget.
    """
    spec = ReleaseSpec.given(mechanism, **settings)
    mech = spec.entry
    a = validate.prior(prior)
    n = validate.size(n)
    samples, confidence = validate.audit_samples(samples), check_confidence(confidence)
    validate.events(n_events)
    delta_at = validate.delta_at(delta_at)
    if distance is not None:
        spec = spec.with_variant(spec.variant, distance)
    spec.mechanism.check_distance(spec, a.size)
    sampler = mechanism_sampler(spec, a)
    if pair is not None:
        c, d = check_pair(pair, a, n)
        check_audit_time(mech, n, a.size, samples)
        res = audit(sampler, c, d, samples=samples, confidence=confidence, seed=seed, n_events=n_events,
                    delta_at=delta_at, progress=progress)
    else:
        base = _audit.as_rng(seed)
        pair_rng, sample_rng = base.spawn(2)  # random pairs drawn independently of the samples
        cap = _audit.max_pairs_for(samples)  # refused before the pairs are listed, from public inputs
        try:
            pairs = candidate_pairs(a, n, search, mechanism=spec, rng=pair_rng, max_pairs=cap)
        except SizeError:
            if search != "worst":
                raise
            pairs = candidate_pairs(a, n, "boundary", max_pairs=cap)
        check_audit_time(mech, n, a.size, samples, len(pairs))
        res, _ = audit_search(sampler, pairs, samples=samples, confidence=confidence, seed=sample_rng,
                              n_events=n_events, delta_at=delta_at, progress=progress)
    exact_eps = None
    if exact:
        try:
            exact_eps, _ = exact_pair_epsilon(spec, a, res.pair)
        except SizeError:
            exact_eps = None
    fields = res.to_dict() | {"exact_concrete_epsilon": exact_eps, "claimed_epsilon": spec.claimed()[0]}
    return AuditResult(**fields)




@dataclass(frozen=True)
class Plan:
    """Result of :func:`plan_mechanism`."""

    samples: int | None
    target: float
    exact_pair_epsilon: float
    event_probabilities: tuple[float, float] | None
    event_outputs: list | None


def plan_mechanism(mechanism, prior: ArrayLike, pair, *, target: float | None = None, fraction: float = 0.9,
                   confidence: float = DEFAULT_CONFIDENCE, n_events: int = DEFAULT_EVENTS, **settings: Any) -> Plan:
    """Samples per side to certify ``target`` (default ``fraction`` x the pair's exact loss).

    Uses the exact pmf to find the easiest event (prefixes of the outputs sorted by the exact
    log ratio, both directions): a white-box planner for a black-box audit.  ``mechanism`` and ``settings``: as
    :func:`audit_mechanism`.
    """
    a = validate.prior(prior)
    c, d = check_pair(pair, a, int(np.sum(pair[0])))
    spec = ReleaseSpec.given(mechanism, **settings)
    logp, logq = log_pmf(spec, a, c), log_pmf(spec, a, d)
    loss = float(np.max(np.abs(logp - logq)))
    if target is None:
        if not (0 < fraction <= 1):
            raise InputError(f"fraction must be in (0, 1], got {fraction!r}")
        target = fraction * loss
    cands = candidates(int(c.sum()), c.size)
    best = (None, None, None)
    for x, y in ((logp, logq), (logq, logp)):
        order = np.argsort(-(x - y), kind="stable")
        P, Q = np.cumsum(np.exp(x[order])), np.cumsum(np.exp(y[order]))
        ok = np.flatnonzero(np.log(P) - np.log(np.maximum(Q, 1e-300)) > target)
        for j in ok[:200]:  # the best events sit at the top of the ranking
            s = samples_needed(min(1.0, P[j]), min(1.0, Q[j]), target, confidence=confidence, n_events=n_events)
            if s is not None and (best[0] is None or s < best[0]):
                best = (s, (float(P[j]), float(Q[j])), cands[order[: j + 1]].tolist())
    return Plan(best[0], float(target), loss, best[1], best[2])
