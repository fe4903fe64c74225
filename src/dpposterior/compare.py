"""Every release ranked by its exact expected Hellinger error, and what the ranking costs.

:func:`compare_rows` computes one row per release (each mechanism of the registry, the calibrated
exponential ones, the optimal table for both objectives) and ranks them by worst-case expected
error (docs/definitions.md §6); the releases are the registry's (:func:`dpposterior.mechanisms.releases`
of each entry).  Its cost model is counted before any work, from the public ``k`` and ``n`` only:
:func:`compare_passes` full scans over the pairs of R(n), plus the optimal linear programs
(:func:`optimal_lp_work`); :func:`check_compare_size` holds the total to the pair budget ``DPPOSTERIOR_MAX_PAIRS``.
Used by ``dpposterior compare`` and by ``benchmarks/``.
"""

from __future__ import annotations

import math

from .accuracy import expected_errors
from .budget import budget_setting
from .errors import InputError, SizeError
from .mechanisms import MECHANISMS, Variant, releases
from .mechanisms.scan import PAIRS_PER_SECOND
from .models import n_candidates
from .validate import count_text

#: full scans over the pairs of R(n) of one ``compare`` row, as the library counts them in its own budget
#: checks (``mechanisms.scan.check_scan_size``): the expected error 2, a calibration 20 more, and the
#: certificate of a release solved by a linear program (one per objective of its entry) 1 more
COMPARE_PASSES = {"expected": 2, "calibrate": 20, "certificate": 1}
#: seconds of one optimal linear program (either objective) per ``(P N)^2``, ``P = k (k - 1) |R(n - 1)|``
#: ordered adjacent pairs and ``N = |R(n)|`` outputs (its constraints are ``P N``).  Measured here (HiGHS,
#: 2 busy cores): k = 2, n = 120: 2.5 s (worst), n = 200: 23 s, n = 259: 47 s; k = 3, n = 8: 1.2 s,
#: n = 12: 22 s + 15 s (average); k = 4, n = 5: 5.5 s.  k = 2 is ~5x cheaper than k >= 3 at equal size.
#: The releases it applies to are those of an entry with objectives (:func:`solves_lp`).
LP_SECONDS_PER_SIZE2 = {2: 3e-9}
LP_SECONDS_PER_SIZE2_DEFAULT = 1.5e-8


def compare_variants() -> list[Variant]:
    """The releases ``compare`` ranks, in registry order: :func:`dpposterior.mechanisms.releases` of each entry."""
    return [v for mech in MECHANISMS.values() for v in releases(mech)]


def solves_lp(variant: Variant) -> bool:
    """Whether ``variant`` is one objective of an entry that solves a linear program per objective (its
    ``objectives``): its row costs a certificate scan and a linear program (:func:`optimal_lp_work`)."""
    return bool(variant.entry.objectives)


def compare_passes(k: int, n: int, optimal: bool = True) -> int:
    """Full scans over the pairs of R(n) that :func:`compare_rows` makes for ``k`` categories and size ``n``.

    Rows the library refuses from their own size limits (the optimal mechanism past
    ``optimal.MAX_OUTPUTS`` outputs) cost nothing: they are listed as too large; so do the rows of a
    linear program (:func:`solves_lp`) when ``optimal`` is false.
    """
    passes = 0
    for v in compare_variants():
        lp = solves_lp(v)
        if lp and not optimal:
            continue
        try:
            v.entry.check_size(n, k, v.label)
        except SizeError:
            continue
        passes += COMPARE_PASSES["expected"] + (COMPARE_PASSES["calibrate"] if v.calibrate else 0) + (
            COMPARE_PASSES["certificate"] if lp else 0)
    return passes


def optimal_lp_work(k: int, n: int) -> int:
    """The optimal linear programs of ``compare`` (one per objective, :func:`solves_lp`) in log-pmf evaluations
    (their estimated seconds times ``mechanisms.scan.PAIRS_PER_SECOND``, the rate behind the pair budget), or 0
    when the library refuses them."""
    lp = [v for v in compare_variants() if solves_lp(v)]
    try:
        for v in lp:
            v.entry.check_size(n, k, "the optimal table")
    except SizeError:
        return 0
    size = k * (k - 1) * n_candidates(n - 1, k) * n_candidates(n, k)
    seconds = LP_SECONDS_PER_SIZE2.get(k, LP_SECONDS_PER_SIZE2_DEFAULT) * size * size
    return len(lp) * math.ceil(seconds * PAIRS_PER_SECOND)


def check_compare_size(k: int, n: int) -> dict[str, str]:
    """The budget of ``compare``, from public k and n only, over the total of its rows.

    Each row alone is within ``DPPOSTERIOR_MAX_PAIRS`` far past the point where all of them together take
    minutes, so the budget applies to ``passes x |R(n)|^2`` summed over every row (:func:`compare_passes`)
    plus the optimal rows' linear programs (:func:`optimal_lp_work`).  Raises one-line :class:`SizeError`
    when the rows without the optimal ones are over it; returns ``{label: reason}`` of the optimal rows
    left out (listed as too large) when only they would take it over, else ``{}``.
    """
    limit = budget_setting("DPPOSTERIOR_MAX_PAIRS")
    size = n_candidates(n, k)
    passes = compare_passes(k, n)
    lp = optimal_lp_work(k, n)
    if passes * size * size + lp <= limit:  # exact ints at any size
        return {}
    passes = compare_passes(k, n, optimal=False)
    work = passes * size * size
    if work > limit:
        raise SizeError(f"compare for k={k}, n={n} needs {passes} x |R(n)|^2 = {count_text(work)} log-pmf evaluations "
                        f"over all its releases (~{count_text(work // int(PAIRS_PER_SECOND))} s here), over the budget "
                        f"of {limit:.0e} (use accuracy for one mechanism, or set DPPOSTERIOR_MAX_PAIRS to raise it)")
    reason = (f"the optimal mechanism's two linear programs for k={k}, n={n} "
              f"(~{count_text(lp // int(PAIRS_PER_SECOND))} s here) would take compare over the budget of "
              f"{limit:.0e} log-pmf evaluations (set DPPOSTERIOR_MAX_PAIRS to raise it)")
    return {v.label: reason for v in compare_variants() if solves_lp(v)}


def compare_rows(a, n: int, epsilon: float, delta: float, left_out: dict[str, str] | None = None) -> list[dict]:
    """One row per release (each mechanism; calibrated exponential ones; optimal worst and average), ranked by
    worst case.

    A release that cannot be computed (too large for exact work, or a setting past that mechanism's limit, e.g.
    optimal's eps <= 30) gets a row with ``"error"`` (its one-line reason) instead of numbers; the others are computed.
    ``delta`` goes to the mechanisms that read it only.
    as does each release of ``left_out`` (label -> reason; see :func:`check_compare_size`, which ``compare``
    calls before this to bound the total).
    """
    out = []
    for v in compare_variants():
        label = v.label
        ce, cd = v.entry.claimed(epsilon, delta, v.calibrate)
        claim = "none" if ce is None else (f"({ce:g}, {cd:g})-DP" if cd else f"{ce:g}-DP")
        row = {"release": label, "claim": claim}
        if label in (left_out or {}):
            row["error"] = left_out[label]
            out.append(row)
            continue
        settings = {"delta": delta} if "delta" in v.entry.settings_used else {}
        try:
            e = expected_errors(v.mechanism, a, n, epsilon=epsilon, **settings, **v.options)
        except InputError as exc:  # a size budget, or a limit of this mechanism (optimal's eps <= 30): that row only
            row["error"] = " ".join(str(exc).split())
        else:
            row.update(worst_expected_error=e.worst, worst_counts=e.worst_counts, average_expected_error=e.average)
            if e.calibration is not None:
                row["calibration"] = e.calibration.as_dict()
        out.append(row)
    return sorted(out, key=lambda r: (r.get("worst_expected_error", math.inf), r["release"]))


def average_ranks(rows: list[dict]) -> dict[str, int]:
    """``{release: rank}`` by average expected error (1 = best) of the rows of :func:`compare_rows` that have
    numbers (rows with an ``"error"`` have no rank)."""
    return {r["release"]: i + 1 for i, r in enumerate(
        sorted((r for r in rows if "error" not in r), key=lambda r: r["average_expected_error"]))}
