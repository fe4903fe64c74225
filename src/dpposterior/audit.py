"""Empirical (black-box) privacy-loss estimation from samples alone (docs/definitions.md §5, "Empirical").

The auditor sees only a sampler ``sampler(dataset, size, rng) -> (size, k) array`` and two
adjacent data sets ``c``, ``c'``.  It draws ``m`` outputs on each side and returns

* a lower confidence bound on the privacy loss of the pair, valid at level ``1 - beta``
  by construction (event-based, in the style of DP-Sniper and DP-Auditorium, with exact
  finite-sample intervals):

  1. split each side's samples into a *selection* half and an *evaluation* half;
  2. on the selection half only, rank candidate output events ``E`` (prefixes of the
     outputs sorted by their estimated log ratio, and coordinate tails ``{x_i >= t}``,
     ``{x_i <= t}``, in both directions) by the bound they would give (cross-fitted: one
     quarter orders, the other scores), and keep the best ``K`` distinct ones;
  3. on the evaluation half, for each kept event take the Clopper-Pearson lower bound of
     ``P_c(E)`` and upper bound of ``P_c'(E)``, each at one-sided level ``beta / (2K)``;
     ``eps_lb = max_E ln(lower P_c(E) / upper P_c'(E))`` (floored at 0).

  Since the kept events depend on the selection half only, they are fixed given it, and
  the union bound over the ``2K`` intervals makes every kept event's bound hold at once
  with probability ``>= 1 - beta``; and ``ln P_c(E)/P_c'(E) <= max_r |ln p_c(r)/p_c'(r)|``,
  the pair's concrete epsilon (docs/definitions.md §5), for every event E.  Nothing about the mechanism is assumed
  except that
  the sampler's rows are independent draws.
* a point estimate: the held-out plug-in ``ln((x_c + 1/2) / (x_c' + 1/2))`` of that event, and
  an upper bound on that event's loss (the reverse Clopper-Pearson bounds at the same level;
  lower and upper bound together hold at ``1 - 2 beta``, as all ``4K`` one-sided intervals hold);
* with ``delta_at = eps'``, an estimate and lower bound of the hockey-stick divergence
  ``delta(eps') >= max_E P_c(E) - e^eps' P_c'(E)`` (events chosen the same way, own
  ``beta``: each of the two bounds holds at ``1 - beta`` on its own).

Search mode (:func:`candidate_pairs`, :func:`audit_search`) audits several adjacent pairs with
a Bonferroni split of ``beta`` over the pairs, so the maximum over pairs is a valid lower bound
on the worst-case concrete epsilon.  :func:`samples_needed` and :func:`plan_mechanism` give the
number of samples a target lower bound needs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import betaincinv  # = scipy.stats.beta.ppf, without importing scipy.stats (CLI start-up)

from . import limits, validate
from .errors import InputError, SizeError
from .models import balanced_counts, neighbour_at, neighbour_count, neighbours

#: A black-box mechanism: ``sampler(dataset, size, rng)`` returns ``size`` independent outputs as rows.
Sampler = Callable[[object, int, np.random.Generator], ArrayLike]

DEFAULT_SAMPLES = 200_000
MIN_SAMPLES = validate.MIN_SAMPLES
DEFAULT_EVENTS = 4
DEFAULT_CONFIDENCE = 0.95
SEARCH_STRATEGIES = ("worst", "boundary", "balanced", "random")
BLACK_BOX_STRATEGIES = ("boundary", "balanced", "random")
_CHUNK = 1 << 18
#: A batch holds at most this many output entries (rows x width): _CHUNK rows up to width 32.
_CHUNK_ENTRIES = _CHUNK * 32
#: Entries per side :func:`audit_samples` accepts (its rows are counted at once, not in batches).
MAX_GIVEN_ENTRIES = 5 * 10**7
_SHOWN_OUTPUTS = 20


# ---------------------------------------------------------------------------------------------
# Clopper-Pearson


def cp_lower(x: ArrayLike, m: int, alpha: float) -> NDArray[np.float64]:
    """One-sided Clopper-Pearson lower bound at level ``alpha``: ``P(p < bound) <= alpha``."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = betaincinv(np.maximum(x, 1e-300), m - x + 1.0, alpha)
    return np.where(x <= 0, 0.0, out)


def cp_upper(x: ArrayLike, m: int, alpha: float) -> NDArray[np.float64]:
    """One-sided Clopper-Pearson upper bound at level ``alpha``: ``P(p > bound) <= alpha``."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = betaincinv(x + 1.0, np.maximum(m - x, 1e-300), 1.0 - alpha)
    return np.where(x >= m, 1.0, out)


def _log(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


# ---------------------------------------------------------------------------------------------
# validation




def check_confidence(confidence: float) -> float:
    """Validate a confidence level in (0, 1)."""
    return validate.level(confidence, "confidence")


# Draws per side, summed over the pairs tested, an audit may make: ``DPPOSTERIOR_MAX_AUDIT_SAMPLES``
# (``limits.LIMITS``, read at each call): about 1e6 draws per second here (counted as they come, never
# kept), so the default 2.5e7 is ~50 s.  The pipeline's jobs raise it (:mod:`dpposterior.paper.limits`).
DRAWS_PER_SECOND = 1e6


def check_draw_limit(samples: int, pairs: int = 1) -> None:
    """Refuse, before drawing, an audit of ``pairs x samples`` draws per side past the budget (one line)."""
    limit = limits.limit_setting("DPPOSTERIOR_MAX_AUDIT_SAMPLES")
    total = samples * pairs
    if total > limit:
        raise SizeError(f"the audit would draw {total:.3g} samples per side ({pairs} pair{'s' if pairs > 1 else ''} x "
                        f"{samples:.3g}; {validate.estimate_text(2 * total / DRAWS_PER_SECOND)} s here), "
                        f"over the limit of {limit:.3g} "
                        "(set DPPOSTERIOR_MAX_AUDIT_SAMPLES to raise it)")


def max_pairs_for(samples: int) -> int:
    """Pairs an audit of ``samples`` draws per side and pair may test within the draw budget."""
    return int(limits.limit_setting("DPPOSTERIOR_MAX_AUDIT_SAMPLES") // samples)


def check_pair(pair, prior, n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Validate an adjacent pair of count vectors of size n with the prior's k categories (docs/definitions.md §1)."""
    try:
        c, d = pair
    except (TypeError, ValueError):
        raise InputError("pair must be two count vectors, e.g. 50,50:49,51") from None
    c, d = validate.counts(c, "pair counts"), validate.counts(d, "pair counts")
    k = np.asarray(prior).size
    for x in (c, d):
        if x.size != k or int(x.sum()) != n:
            raise InputError(f"pair counts must have {k} categories summing to n={n}, got {x.tolist()}")
    if int(np.abs(c - d).sum()) != 2:
        raise InputError(f"pair {c.tolist()}:{d.tolist()} is not adjacent (one record substituted: |c - c'|_1 = 2)")
    return c, d


def batch_rows(width: int) -> int:
    """Rows of one batch of draws for data sets of ``width`` counts (at most ``_CHUNK_ENTRIES`` entries)."""
    return max(1, min(_CHUNK, _CHUNK_ENTRIES // max(1, width)))


def _batches(sampler: Sampler, dataset, size: int, rng: np.random.Generator, bar):
    """``size`` draws of ``sampler`` on ``dataset`` as checked batches of at most ``_CHUNK`` rows (never all kept)."""
    done = 0
    rows = batch_rows(np.asarray(dataset).size)
    while done < size:
        step = min(rows, size - done)
        x = np.asarray(sampler(dataset, step, rng))
        if x.ndim == 1:
            x = x[:, None]
        if x.ndim != 2 or x.shape[0] != step:
            raise InputError(f"the sampler must return an array of {step} rows, got shape {x.shape}")
        if not (np.issubdtype(x.dtype, np.integer) or np.issubdtype(x.dtype, np.floating)) \
                or (np.issubdtype(x.dtype, np.floating) and not np.all(np.isfinite(x))):
            raise InputError("the sampler must return finite numbers")
        yield done, x
        done += step
        bar.update(step)


class _Histogram:
    """Counts of the distinct output rows, per side (0: c, 1: c') and part of the sample.

    Part 0 ranks outputs (the first quarter of a side's draws), part 1 scores candidate events
    (the second quarter), part 2 evaluates the chosen events (the second half): the split of the
    module docstring, made by the position of each draw, so draws can be counted as they come and
    dropped.  Memory is O(distinct outputs + one batch), whatever the number of samples.  The
    distinct rows stay in the lexicographic order of :func:`_encode`.
    """

    def __init__(self, samples: int):
        m_sel = samples // 2
        self.bounds = ((0, m_sel // 2), (m_sel // 2, m_sel), (m_sel, samples))
        self.uniq: NDArray | None = None
        self.counts = np.zeros((0, 2, 3), dtype=np.int64)

    def add(self, side: int, start: int, x: NDArray) -> None:
        """Count the rows ``x`` of ``side``, draws ``start .. start + len(x) - 1``."""
        for part, (lo, hi) in enumerate(self.bounds):
            a, b = max(lo, start), min(hi, start + x.shape[0])
            if a < b:
                self._merge(side, part, x[a - start:b - start])

    def _merge(self, side: int, part: int, rows: NDArray) -> None:
        u, inv = _encode(rows)
        c = np.bincount(inv, minlength=u.shape[0])
        if self.uniq is None:
            self.uniq = u
            self.counts = np.zeros((u.shape[0], 2, 3), dtype=np.int64)
            self.counts[:, side, part] = c
            return
        both, where = _encode(np.concatenate([self.uniq, u]))
        old = self.uniq.shape[0]
        counts = np.zeros((both.shape[0], 2, 3), dtype=np.int64)
        counts[where[:old]] = self.counts  # the old rows are distinct: plain assignment
        np.add.at(counts[:, side, part], where[old:], c)
        self.uniq, self.counts = both, counts


def _encode(x: NDArray) -> tuple[NDArray, NDArray[np.int64]]:
    """Distinct rows (sorted lexicographically) and each row's index among them."""
    if np.issubdtype(x.dtype, np.integer) and x.size:
        # column by column: numpy reduces a narrow C-ordered array along axis 0 many times slower
        lo = np.array([x[:, j].min() for j in range(x.shape[1])], dtype=np.int64)
        span = np.array([x[:, j].max() for j in range(x.shape[1])], dtype=np.int64) - lo + 1
        with np.errstate(over="ignore"):  # inf at large k: then the general path below
            fits = float(np.prod(span.astype(np.float64))) < 2.0**62
        if fits:  # one int64 key per row, same order
            radix = np.concatenate([np.cumprod(span[::-1])[::-1][1:], [1]])
            codes = sum((x[:, j] - lo[j]) * radix[j] for j in range(x.shape[1]))  # (x - lo) @ radix, faster
            total = int(np.prod(span))
            if total <= 4 * x.shape[0] + 2**16:  # few possible keys: count them (no sort), same result
                seen = np.bincount(codes, minlength=total) > 0
                keys = np.flatnonzero(seen)
                inv = (np.cumsum(seen) - 1)[codes]
            else:
                keys, inv = np.unique(codes, return_inverse=True)
            uniq = lo + (keys[:, None] // radix) % span
            return uniq, inv.reshape(-1)
    uniq, inv = np.unique(x, axis=0, return_inverse=True)
    return uniq, inv.reshape(-1)


# ---------------------------------------------------------------------------------------------
# events


@dataclass(frozen=True)
class _Event:
    """An output event chosen on the selection half: ``mask`` over the unique outputs."""

    direction: int  # 0: ln P_c(E) / P_c'(E); 1: ln P_c'(E) / P_c(E)
    kind: str  # "set", "at-least", "at-most"
    mask: NDArray[np.bool_] = field(compare=False)
    coordinate: int | None = None
    threshold: float | None = None


#: Candidate events per direction: every prefix up to this length, then a geometric grid;
#: tail thresholds per coordinate are thinned to this many selection quantiles.
_MAX_PREFIX, _MAX_THRESHOLDS = 256, 512


def _prefix_lengths(size: int) -> NDArray[np.int64]:
    head = np.arange(1, min(size, _MAX_PREFIX) + 1)
    if size <= _MAX_PREFIX:
        return head
    tail = np.unique(np.geomspace(_MAX_PREFIX, size, 256).astype(np.int64))
    return np.unique(np.concatenate([head, tail]))


def _candidate_events(uniq, rank_a, rank_b, score_a, score_b):
    """Candidate events of one direction (``a / b``) and their scoring counts ``(A, B)``.

    Cross-fitted inside the selection half: the first quarter of each side (``rank_*``)
    orders the outputs by estimated log ratio and supplies the tail thresholds; the second
    quarter (``score_*``) counts each event, so an event that only fits noise (e.g. a set of
    continuous outputs seen once) scores as it will on the evaluation half.  Every event is
    a function of the selection half only.
    """
    kinds, payloads, A_parts, B_parts = [], [], [], []
    seen = np.flatnonzero((rank_a + rank_b) > 0)
    ratio = np.log(rank_a[seen] + 0.5) - np.log(rank_b[seen] + 0.5)
    order = seen[np.argsort(-ratio, kind="stable")]
    lengths = _prefix_lengths(order.size)
    A_parts.append(np.cumsum(score_a[order])[lengths - 1])
    B_parts.append(np.cumsum(score_b[order])[lengths - 1])
    kinds += ["set"] * lengths.size
    payloads += [(order, int(j)) for j in lengths]
    for i in range(uniq.shape[1]):
        ts = np.unique(uniq[seen, i])
        if ts.size > _MAX_THRESHOLDS:
            ts = ts[np.unique(np.linspace(0, ts.size - 1, _MAX_THRESHOLDS).astype(np.int64))]
        v = uniq[:, i]
        srt = np.argsort(v, kind="stable")
        ca = np.concatenate([[0], np.cumsum(score_a[srt])])
        cb = np.concatenate([[0], np.cumsum(score_b[srt])])
        lo = np.searchsorted(v[srt], ts, side="left")  # {x_i >= t} = sorted positions lo..
        hi = np.searchsorted(v[srt], ts, side="right")  # {x_i <= t} = sorted positions ..hi-1
        A_parts += [ca[-1] - ca[lo], ca[hi]]
        B_parts += [cb[-1] - cb[lo], cb[hi]]
        kinds += ["at-least"] * ts.size + ["at-most"] * ts.size
        payloads += [(i, t) for t in ts] * 2
    return kinds, payloads, np.concatenate(A_parts), np.concatenate(B_parts)


def _materialise(kind, payload, uniq, direction) -> _Event:
    if kind == "set":
        order, j = payload
        mask = np.zeros(uniq.shape[0], dtype=bool)
        mask[order[:j]] = True
        return _Event(direction, "set", mask)
    i, t = payload
    mask = uniq[:, i] >= t if kind == "at-least" else uniq[:, i] <= t
    return _Event(direction, kind, mask, int(i), float(t))


def _select(uniq, r0, r1, s0, s1, m_score, alpha, n_events, score_fn):
    """The ``n_events`` distinct events with the best cross-fitted selection score (both directions).

    ``r0, r1``: counts per distinct output of each side's ranking quarter; ``s0, s1``: of its
    scoring quarter (``m_score`` draws each).  Events are told apart by their outputs among those
    seen in the selection half, so the choice never depends on the evaluation half.
    """
    seen = (r0 + r1 + s0 + s1) > 0
    cands, scores = [], []
    for direction, (ra, rb, sa, sb) in enumerate(((r0, r1, s0, s1), (r1, r0, s1, s0))):
        kinds, payloads, A, B = _candidate_events(uniq, ra, rb, sa, sb)
        cands += [(direction, kd, pl) for kd, pl in zip(kinds, payloads)]
        scores.append(score_fn(A, B, m_score, alpha))
    scores = np.concatenate(scores)
    chosen, keys = [], set()
    for idx in np.argsort(-scores, kind="stable"):
        direction, kind, payload = cands[idx]
        e = _materialise(kind, payload, uniq, direction)
        key = (direction, e.mask[seen].tobytes())
        if key in keys or not e.mask[seen].any():
            continue
        keys.add(key)
        chosen.append(e)
        if len(chosen) == n_events:
            break
    return chosen


def _eps_score(A, B, m, alpha):
    return _log(cp_lower(A, m, alpha)) - _log(cp_upper(B, m, alpha))


def _delta_score_fn(eps_prime):
    def score(A, B, m, alpha):
        return cp_lower(A, m, alpha) - math.exp(eps_prime) * cp_upper(B, m, alpha)
    return score


def _describe(e: _Event, uniq, xa, xb, m_eval, alpha) -> dict:
    sides = ("c", "c'") if e.direction == 0 else ("c'", "c")
    d = {"direction": f"P_{sides[0]}(E) / P_{sides[1]}(E)", "kind": e.kind,
         "count_numerator": int(xa), "count_denominator": int(xb), "evaluation_samples": int(m_eval),
         "numerator_lower": float(cp_lower(xa, m_eval, alpha)),
         "denominator_upper": float(cp_upper(xb, m_eval, alpha))}
    if e.kind == "set":
        outs = uniq[e.mask]
        d["size"] = int(outs.shape[0])
        d["outputs"] = _plain(outs[:_SHOWN_OUTPUTS])
        d["outputs_truncated"] = bool(outs.shape[0] > _SHOWN_OUTPUTS)
    else:
        d["coordinate"] = e.coordinate
        d["threshold"] = _plain(e.threshold)
        d["rule"] = f"x[{e.coordinate}] {'>=' if e.kind == 'at-least' else '<='} {_plain(e.threshold)}"
    return d


def _plain(x):
    a = np.asarray(x)
    if a.ndim == 0:
        v = a.item()
        return int(v) if float(v).is_integer() else float(v)
    if np.issubdtype(a.dtype, np.floating) and np.all(a == np.round(a)):
        a = a.astype(np.int64)
    return a.tolist()


# ---------------------------------------------------------------------------------------------
# the audit


@dataclass(frozen=True)
class AuditResult:
    """Result of :func:`audit` (JSON-ready through :meth:`to_dict`)."""

    epsilon_lower_bound: float
    estimate: float
    event_upper_bound: float  # with the lower bound: an interval for ln P_c(E*)/P_c'(E*) at 1 - 2 beta
    confidence: float
    samples: int  # per side
    pair: list | None
    event: dict
    n_events: int
    delta: dict | None = None
    exact_concrete_epsilon: float | None = None
    claimed_epsilon: float | None = None
    pairs_tested: int = 1

    def to_dict(self) -> dict:
        return asdict(self)


def audit_samples(x0: ArrayLike, x1: ArrayLike, *, confidence: float = DEFAULT_CONFIDENCE,
                  n_events: int = DEFAULT_EVENTS, delta_at: float | None = None,
                  pair: Sequence | None = None) -> AuditResult:
    """Audit from given samples ``x0`` of M(c) and ``x1`` of M(c') (equal numbers of iid rows).

    See the module docstring for the construction; ``1 - confidence`` is split over the
    ``2 n_events`` Clopper-Pearson intervals.
    """
    confidence, n_events = check_confidence(confidence), validate.events(n_events)
    delta_at = validate.delta_at(delta_at)
    try:
        x0, x1 = np.asarray(x0), np.asarray(x1)
    except (ValueError, TypeError):
        raise InputError("samples must be arrays of numbers, one row per draw") from None
    x0 = x0[:, None] if x0.ndim == 1 else x0
    x1 = x1[:, None] if x1.ndim == 1 else x1
    if x0.ndim != 2 or x0.shape != x1.shape:
        raise InputError(f"both sides need the same number of samples of the same shape, got {x0.shape} and {x1.shape}")
    for x in (x0, x1):
        if x.dtype.kind not in "iuf":
            raise InputError(f"samples must be numbers (integers or floats), got {x.dtype}")
    m = validate.audit_samples(x0.shape[0])
    check_draw_limit(m)
    if x0.size > MAX_GIVEN_ENTRIES:
        raise SizeError(f"the samples hold {x0.size:.3g} entries per side, over the {MAX_GIVEN_ENTRIES:.0e} an audit "
                        "counts at once; pass fewer or narrower rows")
    for x in (x0, x1):
        if x.dtype.kind == "f" and not np.isfinite(x).all():
            raise InputError("samples must be finite numbers (no NaN or infinity)")
    hist = _Histogram(m)
    hist.add(0, 0, x0)
    hist.add(1, 0, x1)
    return _audit_histogram(hist, m, confidence, n_events, delta_at, pair)


def _audit_histogram(hist: _Histogram, m: int, confidence: float, n_events: int, delta_at, pair) -> AuditResult:
    """The audit of the module docstring from the counts of :class:`_Histogram` (``m`` draws per side)."""
    m_sel = m // 2
    m_eval = m - m_sel
    uniq, cnt = hist.uniq, hist.counts
    n0e, n1e = cnt[:, 0, 2], cnt[:, 1, 2]
    alpha = (1.0 - confidence) / (2 * n_events)
    ranks_scores = (cnt[:, 0, 0], cnt[:, 1, 0], cnt[:, 0, 1], cnt[:, 1, 1], m_sel - m_sel // 2)

    def evaluate(events):
        xa = np.array([(n0e if e.direction == 0 else n1e)[e.mask].sum() for e in events])
        xb = np.array([(n1e if e.direction == 0 else n0e)[e.mask].sum() for e in events])
        return xa, xb

    events = _select(uniq, *ranks_scores, alpha, n_events, _eps_score)
    xa, xb = evaluate(events)
    lbs = _log(cp_lower(xa, m_eval, alpha)) - _log(cp_upper(xb, m_eval, alpha))
    best = int(np.argmax(lbs))
    ub = float(_log(cp_upper(xa[best], m_eval, alpha)) - _log(cp_lower(xb[best], m_eval, alpha)))
    estimate = float(math.log((xa[best] + 0.5) / (xb[best] + 0.5)))
    delta = None
    if delta_at is not None:
        dev = _select(uniq, *ranks_scores, alpha, n_events, _delta_score_fn(delta_at))
        da, db = evaluate(dev)
        dl = cp_lower(da, m_eval, alpha) - math.exp(delta_at) * cp_upper(db, m_eval, alpha)
        j = int(np.argmax(dl))
        delta = {"epsilon": delta_at, "lower_bound": max(0.0, float(dl[j])),
                 "estimate": max(0.0, float((da[j] - math.exp(delta_at) * db[j]) / m_eval)),
                 "event": _describe(dev[j], uniq, da[j], db[j], m_eval, alpha)}
    return AuditResult(
        epsilon_lower_bound=max(0.0, float(lbs[best])), estimate=estimate, event_upper_bound=ub,
        confidence=confidence, samples=m, pair=None if pair is None else [_plain(p) for p in pair],
        event=_describe(events[best], uniq, xa[best], xb[best], m_eval, alpha), n_events=n_events, delta=delta,
    )


def as_rng(seed: object) -> np.random.Generator:
    """A Generator from ``seed``: None (fresh entropy), a Generator, or a seed in ``[0, 2^128)`` (not a bool,
    not a fractional or negative number)."""
    if seed is None or isinstance(seed, np.random.Generator):
        return seed if seed is not None else np.random.default_rng()
    return np.random.default_rng(validate.seed(seed))


def audit(sampler: Sampler, dataset, neighbour, *, samples: int = DEFAULT_SAMPLES,
          confidence: float = DEFAULT_CONFIDENCE, seed: int | np.random.Generator | None = None,
          n_events: int = DEFAULT_EVENTS, delta_at: float | None = None, progress: bool = False) -> AuditResult:
    """Black-box audit of one pair: draw ``samples`` outputs of ``sampler`` on each side (docs/definitions.md §5).

    ``sampler(dataset, size, rng)`` must return ``size`` independent outputs as rows of an
    array (``(size, k)``, or ``(size,)`` for scalar outputs); ``rng`` is a numpy Generator
    made from ``seed``.  Returns an :class:`AuditResult`; its ``epsilon_lower_bound`` is below
    the pair's true privacy loss with probability at least ``confidence``.
    """
    samples, confidence = validate.audit_samples(samples), check_confidence(confidence)
    n_events, delta_at = validate.events(n_events), validate.delta_at(delta_at)
    if not callable(sampler):
        raise InputError(f"sampler must be a function sampler(dataset, size, rng), got {type(sampler).__name__}")
    check_draw_limit(samples)
    rng = as_rng(seed)
    hist = _Histogram(samples)
    from tqdm.auto import tqdm  # here: in a notebook kernel tqdm.auto imports ipywidgets, for a bar only a job shows

    with tqdm(total=2 * samples, desc="audit samples", unit="draw", disable=not progress, mininterval=1.0) as bar:
        for side, data in enumerate((dataset, neighbour)):
            for start, x in _batches(sampler, data, samples, rng, bar):
                hist.add(side, start, x)
    return _audit_histogram(hist, samples, confidence, n_events, delta_at, (dataset, neighbour))


def audit_search(sampler: Sampler, pairs: Sequence, *, samples: int = DEFAULT_SAMPLES,
                 confidence: float = DEFAULT_CONFIDENCE, seed: int | None = None, n_events: int = DEFAULT_EVENTS,
                 delta_at: float | None = None, progress: bool = False) -> tuple[AuditResult, list[AuditResult]]:
    """Audit every pair at level ``1 - beta / len(pairs)``; the best bound is valid at ``1 - beta``
    as a lower bound on the worst-case loss (union bound).  Returns ``(best, all results)``."""
    confidence = check_confidence(confidence)
    pairs = list(pairs)
    if not pairs:
        raise InputError("search found no adjacent pairs to test")
    check_draw_limit(validate.audit_samples(samples), len(pairs))
    per_pair = 1.0 - (1.0 - confidence) / len(pairs)
    rngs = as_rng(seed).spawn(len(pairs))
    results = [audit(sampler, c, d, samples=samples, confidence=per_pair, seed=r, n_events=n_events,
                     delta_at=delta_at, progress=progress) for (c, d), r in zip(pairs, rngs)]
    best = max(results, key=lambda r: r.epsilon_lower_bound)
    fields = best.to_dict() | {"confidence": confidence, "pairs_tested": len(pairs)}
    return AuditResult(**fields), results


# ---------------------------------------------------------------------------------------------
# search mode: which pairs (black box: only n and k are used)


#: Count entries (2 k per pair) a search may list (``MAX_PAIR_ENTRIES``): ~0.5 GB of Python lists,
#: so the boundary search (about 2 k^3 pairs) lists every pair up to k = 100 (k = 1000: 5000 pairs).
MAX_PAIR_ENTRIES = 10_000_000


def candidate_pairs(prior: ArrayLike, n: int, strategy: str = "boundary", *, count: int = 4,
                    rng: np.random.Generator | int | None = None,
                    max_pairs: int | None = None) -> list[tuple[list[int], list[int]]]:
    """Adjacent pairs to audit (search mode).

    ``boundary``: every pair touching a vertex ``n e_i`` or a count vector one substitution
    from a vertex (where the exact worst pairs of the exponential mechanisms sit); ``balanced``: the balanced count
    vector and its neighbours;
    ``random``: ``count`` uniform count vectors, each with a uniform neighbour;
    (``worst``, the exact worst pair, needs the mechanism: :func:`dpposterior.mechanism_audit.candidate_pairs`.)

    Budget, from public inputs only: a search that would list more than ``max_pairs`` pairs (the
    draw budget divided by the samples per pair, :func:`max_pairs_for`) or more than
    :data:`MAX_PAIR_ENTRIES` / (2 k) raises one-line :class:`~dpposterior.errors.SizeError` before
    listing them (each start's neighbours are counted before they are listed).
    """
    a = validate.prior(prior)
    n, k = validate.size(n), a.size
    strategy = validate.choice(strategy, SEARCH_STRATEGIES, "search")
    if strategy not in BLACK_BOX_STRATEGIES:
        raise InputError(f"search {strategy!r} needs the mechanism (dpposterior.mechanism_audit.candidate_pairs)")
    listed = MAX_PAIR_ENTRIES // (2 * k)
    cap = listed if max_pairs is None else min(listed, validate.integer(max_pairs, "max_pairs", 0))

    def over(more: int) -> None:
        if more > cap:
            why = (f"the audit's draw limit allows {cap} pair{'s' if cap != 1 else ''} at these samples "
                   "(set DPPOSTERIOR_MAX_AUDIT_SAMPLES to raise it)" if cap < listed
                   else f"a search lists at most {listed} pairs of k={k} counts")
            raise SizeError(f"the {strategy} search for k={k}, n={n} lists more than {cap} pairs; {why}; "
                            "audit one pair instead (--pair), or fewer categories")
    def boundary():  # the k vertices and their k (k - 1) neighbours, one at a time (never k^2 x k kept)
        for i in range(k):
            v = np.zeros(k, dtype=np.int64)
            v[i] = n
            yield v
            if n >= 2:
                for j in range(k):
                    if j != i:
                        w = v.copy()
                        w[i] -= 1
                        w[j] += 1
                        yield w

    starts = boundary() if strategy == "boundary" else [balanced_counts(n, k)] if strategy == "balanced" else []
    out, seen = [], set()
    if strategy == "random":
        count = validate.integer(count, "count", 1)
        over(count)
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        for _ in range(count):
            cuts = np.sort(gen.choice(n + k - 1, size=k - 1, replace=False))  # stars and bars
            c = np.diff(np.concatenate([[-1], cuts, [n + k - 1]])) - 1
            # = neighbours(c)[gen.integers(len(neighbours(c)))], without listing them
            out.append((c.tolist(), neighbour_at(c, int(gen.integers(neighbour_count(c)))).tolist()))
        return out
    for c in starts:
        over(len(out) + neighbour_count(c))  # before listing this start's neighbours
        for d in neighbours(c):
            key = tuple(sorted((tuple(c.tolist()), tuple(d.tolist()))))
            if key not in seen:
                seen.add(key)
                out.append((c.tolist(), d.tolist()))
    return out


# ---------------------------------------------------------------------------------------------
# planning


def _expected_lb(p, q, m, confidence, n_events):
    """Lower bound the audit gives when the evaluation counts hit their expectations."""
    m_eval = m - m // 2
    alpha = (1.0 - confidence) / (2 * n_events)
    return _log(cp_lower(np.round(p * m_eval), m_eval, alpha)) - _log(cp_upper(np.round(q * m_eval), m_eval, alpha))


def samples_needed(p: float, q: float, target: float, *, confidence: float = DEFAULT_CONFIDENCE,
                   n_events: int = DEFAULT_EVENTS, max_samples: int = 10**10) -> int | None:
    """Samples per side for the audit to certify ``eps_lb >= target`` on an event with
    ``P_c(E) = p``, ``P_c'(E) = q`` (counts at their expectations; half the samples select).

    ``None`` when no sample size up to ``max_samples`` reaches it (e.g. ``target >= ln(p/q)``).
    """
    confidence, n_events = check_confidence(confidence), validate.events(n_events)
    p = validate.number(p, "p", 0.0, 1.0, lo_open=True, desc="an event probability")
    q = validate.number(q, "q", 0.0, 1.0, desc="an event probability")
    target = validate.number(target, "target", desc="a privacy loss")
    max_samples = validate.integer(max_samples, "max_samples", MIN_SAMPLES)
    if q > 0 and target >= math.log(p / q):
        return None
    lo, hi = MIN_SAMPLES, MIN_SAMPLES
    while _expected_lb(p, q, hi, confidence, n_events) < target:
        lo, hi = hi, hi * 2
        if hi > max_samples:
            return None
    while hi - lo > max(1, lo // 200):  # to 0.5 %: the count rounding makes it only near-monotone
        mid = (lo + hi) // 2
        if _expected_lb(p, q, mid, confidence, n_events) >= target:
            hi = mid
        else:
            lo = mid
    return int(hi)


def plan_from_audit(result: AuditResult, target: float, *, confidence: float | None = None) -> int | None:
    """Samples per side to certify ``target`` on the event a (pilot) audit chose, from its held-out rates."""
    ev = result.event
    p = (ev["count_numerator"] + 0.5) / (ev["evaluation_samples"] + 1)
    q = ev["count_denominator"] / ev["evaluation_samples"]
    return samples_needed(p, q, target, confidence=confidence or result.confidence, n_events=result.n_events)
