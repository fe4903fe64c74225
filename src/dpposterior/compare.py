"""Every release ranked by its exact expected Hellinger error, and what the ranking costs.

:func:`compare_rows` computes one row per release (each mechanism of the registry, the calibrated
exponential ones, the optimal table for both objectives) and ranks them by worst-case expected
error (docs/definitions.md §6).  Its cost model is counted before any work, from the public ``k``
and ``n`` only: :func:`compare_passes` full scans over the pairs of R(n), plus the optimal linear
programs (:func:`optimal_lp_work`); :func:`check_compare_size` holds the total to the pair budget
``DPPOSTERIOR_MAX_PAIRS``.  Used by ``dpposterior compare`` and by ``benchmarks/``.
"""

from __future__ import annotations

import math

from . import validate
from .accuracy import expected_errors
from .budget import budget_setting
from .errors import SizeError
from .mechanisms import MECHANISMS
from .models import n_candidates
from .privacy import DEFAULT_MAX_PAIR_WORK, PAIRS_PER_SECOND

#: full scans over the pairs of R(n) of one ``compare`` row, as the library counts them in its own budget
#: checks (``privacy.check_scan_size``): the expected error 2, a calibration 20 more, and the optimal
#: table's certificate 1 more
COMPARE_PASSES = {"expected": 2, "calibrate": 20, "optimal": 1}
#: seconds of one optimal linear program (either objective) per ``(P N)^2``, ``P = k (k - 1) |R(n - 1)|``
#: ordered adjacent pairs and ``N = |R(n)|`` outputs (its constraints are ``P N``).  Measured here (HiGHS,
#: 2 busy cores): k = 2, n = 120: 2.5 s (worst), n = 200: 23 s, n = 259: 47 s; k = 3, n = 8: 1.2 s,
#: n = 12: 22 s + 15 s (average); k = 4, n = 5: 5.5 s.  k = 2 is ~5x cheaper than k >= 3 at equal size.
LP_SECONDS_PER_SIZE2 = {2: 3e-9}
LP_SECONDS_PER_SIZE2_DEFAULT = 1.5e-8


def count_text(x: int) -> str:
    """A non-negative int for a message: ``12,507,501``, or ``~1.2e+600`` past 15 digits.

    Works for ints of any size (:func:`dpposterior.validate.scientific`).
    """
    # integration: a message helper, not a comparison; it belongs next to validate.scientific / big_number
    # (validate's owner), and then both this module and dpposterior.cli import it from there
    return f"{x:,}" if x < 10**15 else "~" + validate.scientific(x, 1)


def compare_variants() -> list[tuple]:
    """The releases ``compare`` ranks: ``(mechanism, extra keyword arguments, label)``, in registry order."""
    # integration: once the mechanisms registry parses a Variant spec, ask the registry for each mechanism's
    # variants (objectives, calibration) instead of branching on family == "optimal" and mech.calibratable here;
    # the same branch recurs in compare_passes, optimal_lp_work and check_compare_size below
    variants = []
    for mech in MECHANISMS.values():
        if mech.family == "optimal":
            variants += [(mech, dict(objective="worst")), (mech, dict(objective="average"))]
            continue
        variants.append((mech, {}))
        if mech.calibratable:
            variants.append((mech, dict(calibrate=True)))
    return [(mech, extra, mech.id + (" (calibrated)" if extra.get("calibrate") else "")
             + (f" ({extra['objective']})" if "objective" in extra else "")) for mech, extra in variants]


def compare_passes(k: int, n: int, optimal: bool = True) -> int:
    """Full scans over the pairs of R(n) that :func:`compare_rows` makes for ``k`` categories and size ``n``.

    Rows the library refuses from their own size limits (the optimal mechanism past
    ``optimal.MAX_OUTPUTS`` outputs) cost nothing: they are listed as too large; so do the optimal
    rows when ``optimal`` is false.
    """
    passes = 0
    for mech, extra, label in compare_variants():
        if mech.family == "optimal" and not optimal:
            continue
        try:
            mech.check_size(n, k, label)
        except SizeError:
            continue
        passes += COMPARE_PASSES["expected"] + (COMPARE_PASSES["calibrate"] if extra.get("calibrate") else 0) + (
            COMPARE_PASSES["optimal"] if mech.family == "optimal" else 0)
    return passes


def optimal_lp_work(k: int, n: int) -> int:
    """The two optimal linear programs of ``compare`` in log-pmf evaluations (their estimated seconds times
    ``privacy.PAIRS_PER_SECOND``, the rate behind the pair budget), or 0 when the library refuses them."""
    lp = [mech for mech, _, _ in compare_variants() if mech.family == "optimal"]
    try:
        for mech in lp:
            mech.check_size(n, k, "the optimal table")
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
    # integration: DPPOSTERIOR_MAX_PAIRS and its default become one entry of the budget registry (budget.py)
    limit = budget_setting("DPPOSTERIOR_MAX_PAIRS", DEFAULT_MAX_PAIR_WORK)
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
    return {label: reason for mech, _, label in compare_variants() if mech.family == "optimal"}


def compare_rows(a, n: int, epsilon: float, delta: float, left_out: dict[str, str] | None = None) -> list[dict]:
    """One row per release (each mechanism; calibrated exponential ones; optimal worst and average), ranked by
    worst case.

    A release too large for exact work gets a row with ``"error"`` (its one-line size error) instead of numbers,
    as does each release of ``left_out`` (label -> reason; see :func:`check_compare_size`, which ``compare``
    calls before this to bound the total).
    """
    out = []
    for mech, extra, label in compare_variants():
        ce, cd = mech.claimed(epsilon, delta, extra.get("calibrate", False))
        claim = "none" if ce is None else (f"({ce:g}, {cd:g})-DP" if cd else f"{ce:g}-DP")
        row = {"release": label, "claim": claim}
        if label in (left_out or {}):
            row["error"] = left_out[label]
            out.append(row)
            continue
        try:
            e = expected_errors(mech.id, a, n, epsilon=epsilon, delta=delta, **extra)
        except SizeError as exc:
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
