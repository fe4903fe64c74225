"""Every release ranked by its exact expected Hellinger error, and what the ranking costs.

:func:`compare_rows` computes one row per release (each mechanism of the registry, the calibrated
exponential ones, the optimal table for both objectives) and ranks them by worst-case expected
error (docs/definitions.md §6); the releases are the registry's (:func:`dpposterior.mechanisms.releases`
of each entry).  Its cost model is counted before any work, from the public ``k`` and ``n`` only:
:func:`compare_passes` full scans over the pairs of R(n), plus the optimal linear programs
(:func:`solve_work`); :func:`check_compare_size` holds the total to the pair budget ``DPPOSTERIOR_MAX_PAIRS``.
Used by ``dpposterior compare`` and by ``benchmarks/``.
"""

from __future__ import annotations

import math

from .accuracy import expected_errors
from .distances import DEFAULT_DISTANCE
from .errors import InputError, SizeError
from .limits import LIMITS, limit_setting
from .mechanisms import MECHANISMS, Variant, releases
from .mechanisms.scan import PAIRS_PER_SECOND
from .models import n_candidates
from .validate import approx_count_text, count_text

#: full scans over the pairs of R(n) of one ``compare`` row, as the library counts them in its own budget
#: checks (``mechanisms.scan.check_scan_size``): the expected error 2, a calibration 20 more, and the
#: certificate of a release solved by a linear program (one per objective of its entry) 1 more
COMPARE_PASSES = {"expected": 2, "calibrate": 20, "certificate": 1}
def compare_variants() -> list[Variant]:
    """The releases ``compare`` ranks, in registry order: :func:`dpposterior.mechanisms.releases` of each entry."""
    return [v for mech in MECHANISMS.values() for v in releases(mech)]


def solves(variant: Variant, k: int, n: int) -> bool:
    """Whether ``variant``'s table is solved (a linear program or a remap, the entry's ``solve_seconds``), which
    costs its row a certificate scan and the solve (:func:`solve_work`)."""
    return variant.entry.solve_seconds(n, k, variant.objective) > 0


def compare_passes(k: int, n: int, optimal: bool = True) -> int:
    """Full scans over the pairs of R(n) that :func:`compare_rows` makes for ``k`` categories and size ``n``.

    Rows the library refuses from their own size limits (the optimal mechanism past
    ``optimal.MAX_OUTPUTS`` outputs) cost nothing: they are listed as too large; so do the rows of a
    solve (:func:`solves`) when ``optimal`` is false.
    """
    passes = 0
    for v in compare_variants():
        lp = solves(v, k, n)
        if lp and not optimal:
            continue
        try:
            v.entry.check_size(n, k, v.label)
        except SizeError:
            continue
        passes += COMPARE_PASSES["expected"] + (COMPARE_PASSES["calibrate"] if v.calibrate else 0) + (
            COMPARE_PASSES["certificate"] if lp else 0)
    return passes


def solve_work(k: int, n: int) -> int:
    """The solves of ``compare``'s rows (:func:`solves`; each entry estimates its own, ``solve_seconds``) in
    log-pmf evaluations (their estimated seconds times ``mechanisms.scan.PAIRS_PER_SECOND``, the rate behind the
    pair budget); a row its entry refuses for size costs nothing (it is listed as too large)."""
    work = 0
    for v in compare_variants():
        if not solves(v, k, n):
            continue
        try:
            v.entry.check_size(n, k, v.label)
        except SizeError:
            continue
        work += math.ceil(v.entry.solve_seconds(n, k, v.objective) * PAIRS_PER_SECOND)
    return work


def check_compare_size(k: int, n: int) -> dict[str, str]:
    """The budget of ``compare``, from public k and n only, over the total of its rows.

    Each row alone is within ``DPPOSTERIOR_MAX_PAIRS`` far past the point where all of them together take
    minutes, so the budget applies to ``passes x |R(n)|^2`` summed over every row (:func:`compare_passes`)
    plus the solved rows (:func:`solve_work`).  Raises one-line :class:`SizeError`
    when the rows without the optimal ones are over it; returns ``{label: reason}`` of the optimal rows
    left out (listed as too large) when only they would take it over, else ``{}``.
    """
    limit = limit_setting("DPPOSTERIOR_MAX_PAIRS")
    size = n_candidates(n, k)
    passes = compare_passes(k, n)
    lp = solve_work(k, n)
    if passes * size * size + lp <= limit:  # exact ints at any size
        return {}
    passes = compare_passes(k, n, optimal=False)
    work = passes * size * size
    if work > limit:
        raise SizeError(f"compare for k={k}, n={n} needs {passes} x |R(n)|^2 = {count_text(work)} log-pmf evaluations "
                        f"over all its releases ({approx_count_text(work // int(PAIRS_PER_SECOND))} s here), "
                        f"over the budget of {limit:.0e} (use accuracy for one mechanism, or set DPPOSTERIOR_MAX_PAIRS "
                        "to raise it)")
    reason = (f"the solved releases for k={k}, n={n} (their solves, {approx_count_text(lp // int(PAIRS_PER_SECOND))} s "
              f"here, and certificate scans) would take compare over the budget of "
              f"{limit:.0e} log-pmf evaluations (set DPPOSTERIOR_MAX_PAIRS to raise it)")
    return {v.label: reason for v in compare_variants() if solves(v, k, n)}


def row_work(v: Variant, k: int, n: int, epsilon: float, distance: str = DEFAULT_DISTANCE,
             limit: float | None = None) -> tuple[int, str]:
    """The estimated work of one ``compare`` row, in log-pmf evaluations (the unit of ``DPPOSTERIOR_MAX_PAIRS``),
    from public k, n and eps only, and the route it takes (docs/definitions.md §9, expected error).

    Its own route: where the pair budget refuses the dense walk and the entry has a translation route
    (:meth:`~dpposterior.mechanisms.Mechanism.translation_work`: a noise kernel plus a boundary rule,
    :mod:`dpposterior.lattice.scale`), its loss evaluations at their measured rate; else the passes over the
    pairs of R(n) of :data:`COMPARE_PASSES`, plus the row's solve (:func:`solve_work`).  A row its entry refuses
    for size costs nothing (it is listed with its reason).  ``limit``: the pair budget the route is planned for (None:
    ``DPPOSTERIOR_MAX_PAIRS`` now).
    """
    from .lattice.scale import EVALUATIONS_PER_SECOND

    size = n_candidates(n, k)
    limit = limit_setting("DPPOSTERIOR_MAX_PAIRS") if limit is None else limit
    lp = solves(v, k, n)
    try:
        v.entry.check_size(n, k, v.label)
    except SizeError:
        return 0, "refused for size"
    if 2 * size * size > limit and not v.calibrate and not lp:
        try:
            work = v.entry.translation_work(n, k, epsilon, distance, limit)
        except InputError:  # no table of the noise holds the mass: no translation route
            work = None
        if work is not None:
            return math.ceil(work * PAIRS_PER_SECOND / EVALUATIONS_PER_SECOND), "translation"
    passes = COMPARE_PASSES["expected"] + (COMPARE_PASSES["calibrate"] if v.calibrate else 0) + (
        COMPARE_PASSES["certificate"] if lp else 0)
    solve = math.ceil(v.entry.solve_seconds(n, k, v.objective) * PAIRS_PER_SECOND) if lp else 0
    return passes * size * size + solve, "pairs"


def plan_compare(k: int, n: int, epsilon: float, distance: str = DEFAULT_DISTANCE) -> dict[str, str]:
    """``{label: reason}`` of the rows ``compare`` leaves out, from public k, n and eps only.

    Where every row fits the budget of :func:`check_compare_size`, its answer (today's rows).  Past it, each
    row's own cost (:func:`row_work`) is counted and rows are taken from the end of the registry (the optimum,
    then geometric, the closed-form releases, the drafts' exponential mechanisms last) while the total stays
    within ``DPPOSTERIOR_MAX_PAIRS``; the others are listed "not computed" with their cost.  Raises the one-line
    :class:`SizeError` of :func:`check_compare_size` only when no row fits.
    """
    try:
        return check_compare_size(k, n)
    except SizeError as exc:
        refusal = exc
    limit = limit_setting("DPPOSTERIOR_MAX_PAIRS")
    costs = [(row_work(v, k, n, epsilon, distance), v.label) for v in compare_variants()]
    total, left, fitted = 0, {}, 0
    for (work, route), label in reversed(costs):
        if route == "refused for size":
            continue  # its own one-line reason, from compare_rows
        if total + work <= limit:
            total += work
            fitted += 1
            continue
        where = "over the budget" if work > limit else "past what the rows before it leave of the budget"
        secs = approx_count_text(work // int(PAIRS_PER_SECOND))
        left[label] = (f"needs {approx_count_text(work)} log-pmf evaluations ({secs} s "
                       f"here) for k={k}, n={n}, {where} of {limit:.0e} (set DPPOSTERIOR_MAX_PAIRS to raise it)")
    if not fitted:
        raise _cheapest_refusal(refusal, k, n, epsilon, distance, costs, limit)
    return left


def _cheapest_refusal(refusal: SizeError, k: int, n: int, epsilon: float, distance: str, costs,
                      limit: float) -> SizeError:
    """The refusal of a ``compare`` no row of which fits: ``refusal`` (the whole comparison's cost), and the
    smallest ``DPPOSTERIOR_MAX_PAIRS`` (two significant digits, rounded up) at which a row fits, with the row
    :func:`plan_compare` then takes first (the end of the registry first, so not always the cheapest), where the
    setting's bound allows it.  ``costs``: ``[((work, route), label)]`` at ``limit``, in registry order
    (:func:`row_work`).  A translation route's cost depends on the budget (its bracket; past it only a floor is
    counted, :meth:`~dpposterior.mechanisms.clamped.ClampedNoiseMechanism.translation_plan`), so the costs are planned
    again at the setting found until the cheapest row fits it (the setting only grows: at most a few rounds)."""
    bound = LIMITS["DPPOSTERIOR_MAX_PAIRS"].bounds[1]
    setting = limit
    for _ in range(4):
        rows = [(work, route, label) for (work, route), label in reversed(costs) if route != "refused for size"]
        if not rows:
            return refusal
        cheapest = min(work for work, _, _ in rows)
        if cheapest <= setting:  # never at the first round: no row fitted ``limit``
            break
        step = 10 ** max(0, len(str(cheapest)) - 2)  # two significant digits, rounded up
        setting = -(-cheapest // step) * step
        if setting > bound:
            return SizeError(f"compare for k={k}, n={n}: no release fits the budget of {limit:.0e} log-pmf "
                             f"evaluations; the cheapest needs {approx_count_text(cheapest)}, over the largest "
                             f"DPPOSTERIOR_MAX_PAIRS ({bound:.0e}); use accuracy for one mechanism")
        costs = [(row_work(v, k, n, epsilon, distance, setting), v.label) for v in compare_variants()]
    else:
        return refusal
    work, route, label = next(r for r in rows if r[0] <= setting)
    return SizeError(f"compare for k={k}, n={n}: no release fits the budget of {limit:.0e} log-pmf evaluations; "
                     f"set DPPOSTERIOR_MAX_PAIRS to {setting:.1e} or more to rank {label} (its {route} route needs "
                     f"{approx_count_text(work)}, {approx_count_text(work // int(PAIRS_PER_SECOND))} s here), "
                     "or use accuracy for one mechanism")


def compare_rows(a, n: int, epsilon: float, delta: float, left_out: dict[str, str] | None = None,
                 distance: str = DEFAULT_DISTANCE) -> list[dict]:
    """One row per release (each mechanism; calibrated exponential ones; optimal worst and average), ranked by
    worst case.

    A release that cannot be computed (too large for exact work, or a setting past that mechanism's limit, e.g.
    optimal's eps <= 30) gets a row with ``"error"`` (its one-line reason) instead of numbers; the others are computed.
    ``delta`` goes to the mechanisms that read it only.
    as does each release of ``left_out`` (label -> reason; see :func:`check_compare_size`, which ``compare``
    calls before this to bound the total).  ``distance``: the score and error measure of every row (a release
    not built for it, e.g. optimal under kl, gets its one-line refusal as ``"error"``).
    """
    out = []
    for v in compare_variants():
        label = v.label
        ce, cd = v.claimed(epsilon, delta)
        claim = "none" if ce is None else (f"({ce:g}, {cd:g})-DP" if cd else f"{ce:g}-DP")
        row = {"release": label, "claim": claim}
        if label in (left_out or {}):
            row["error"] = left_out[label]
            out.append(row)
            continue
        settings = {"delta": delta} if "delta" in v.entry.settings_used else {}
        try:
            e = expected_errors(v, a, n, epsilon=epsilon, **settings, distance=distance)
        except InputError as exc:  # a size budget, or a limit of this mechanism (optimal's eps <= 30): that row only
            row["error"] = " ".join(str(exc).split())
        else:
            row.update(worst_expected_error=e.worst, worst_counts=e.worst_counts, average_expected_error=e.average)
            if e.calibration is not None:
                row["calibration"] = e.calibration.as_dict()
            if e.tail > 0:  # the translation route: expected <= E <= expected + tail
                row["truncation_bound"] = e.tail
        out.append(row)
    return sorted(out, key=lambda r: (r.get("worst_expected_error", math.inf), r["release"]))


def compare_yardstick(a, n: int, epsilon: float, rows: list[dict], distance: str = DEFAULT_DISTANCE):
    """The yardstick of ``compare`` (:func:`dpposterior.yardstick.yardstick`: a certified lower bound on the best
    achievable worst-case and average Hellinger errors, docs/definitions.md §9), or a one-line reason it is not
    computed (over the budget, a setting past the k = 2 optimum's limits); None under another distance than
    Hellinger (the bound is Hellinger's).  At k >= 3 the LP's own optima are used where ``rows`` computed them.
    """
    from .yardstick import lp_optima, marginal_seconds, yardstick

    if distance != DEFAULT_DISTANCE:
        return None
    k = a.size
    limit = limit_setting("DPPOSTERIOR_MAX_PAIRS")
    try:
        work = marginal_seconds(a, n, epsilon) * PAIRS_PER_SECOND
        if work > limit:
            return (f"its k = 2 solves need {approx_count_text(int(work // PAIRS_PER_SECOND))} s here, over the budget of "
                    f"{limit:.0e} (set DPPOSTERIOR_MAX_PAIRS to raise it)")
        lp = lp_optima(a, n, epsilon, {r["release"] for r in rows if "error" not in r}) if k >= 3 else {}
        return yardstick(a, n, epsilon, lp)
    except InputError as exc:
        return " ".join(str(exc).split())


def average_ranks(rows: list[dict]) -> dict[str, int]:
    """``{release: rank}`` by average expected error (1 = best) of the rows of :func:`compare_rows` that have
    numbers (rows with an ``"error"`` have no rank)."""
    return {r["release"]: i + 1 for i, r in enumerate(
        sorted((r for r in rows if "error" not in r), key=lambda r: r["average_expected_error"]))}
