"""Every release ranked by its exact expected Hellinger error, each row computed by its own plan.

:func:`plan_compare` plans one row per release (each mechanism of the registry, the calibrated exponential ones,
the optimal table for both objectives: :func:`dpposterior.mechanisms.releases` of each entry) on its own, from public
prior, n and eps only: the entry's plan of its exact errors (:meth:`~dpposterior.mechanisms.Mechanism.plan` for
``Task.ERRORS``: the route the row will run, its estimated seconds and memory), admitted by its own limits
(:func:`dpposterior.limits.admit`).  A total limit, ``DPPOSTERIOR_MAX_COMPARE_SECONDS``, then takes the admitted rows:
first the releases built for an objective (an entry with ``objectives``: ``optimal`` and the lattice release, the
ones to use; their average rows first, :func:`start_releases`, whose errors the yardstick's average starts from and
whose worst case is ranked too), then the others (``geometric`` first, its entry's ``compare_first``, then cheapest
first), so no release is left out because a dearer baseline came first and no baseline because another baseline is
dear.  At k >= 3 the releases built for an objective take at most :data:`ROWS_SHARE` of it; the yardstick is planned
next, within what they leave (at most :data:`YARDSTICK_SHARE` of the limit where that cap shows a baseline the whole
rest would leave out: :func:`yardstick_budget`), and the baselines take what its plan leaves
(:func:`yardstick_reserve`), so the bound every row is read against is not starved by the rows and moves with a
baseline's plan only where that plan moves which baselines the cap shows.  :func:`compare_rows` runs the rows'
plans and ranks them by worst-case expected error (docs/definitions.md §6); a row left out says what it would take,
and its error stays out of the ranking.  Used by ``dpposterior compare``, :func:`dpposterior.compare` and ``benchmarks/``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .accuracy import errors_of, errors_of_pass
from .distances import DEFAULT_DISTANCE, get_distance
from .errors import InputError, SizeError
from .limits import Plan, Task, duration_text, limit_setting
from .mechanisms import DEFAULT_DELTA, MECHANISMS, Objective, PrivacyParameters, ReleaseSpec, Variant, releases
from .mechanisms.scan import PAIRS_PER_SECOND
from .models import candidate_rank
from .validate import approx_count_text


def compare_variants(k: int | None = None) -> list[Variant]:
    """The releases ``compare`` ranks, in registry order: :func:`dpposterior.mechanisms.releases` of each entry; at
    ``k`` categories, less an entry that is another entry's release there (:meth:`~dpposterior.mechanisms.Mechanism.
    same_release`: the lattice release at k = 2 is ``optimal``'s), shown once under the name the docs recommend."""
    return [v for mech in MECHANISMS.values() if k is None or mech.same_release(k) is None for v in releases(mech)]


def shown_once(k: int) -> list[str]:
    """``"lattice is optimal's release at k = 2 ..."`` notes for the entries :func:`compare_variants` leaves out at k."""
    return [f"{mech.id} is {other}'s release at k = {k} (geometric noise and a remap; the same optimum within its "
            f"certificate), shown once as {other}" for mech in MECHANISMS.values()
            if (other := mech.same_release(k)) is not None]


@dataclass(frozen=True)
class RowPlan:
    """One row of ``compare`` before it runs: its release, the validated settings and the entry's plan of its exact
    errors; ``left_out``: the one-line reason it is not computed (its plan does not fit, or the total limit), else
    ``""``."""

    variant: Variant
    spec: ReleaseSpec | None
    plan: Plan | None
    left_out: str = ""
    #: the label of an earlier row that is the same release (:meth:`~dpposterior.mechanisms.Mechanism.release_key`):
    #: its numbers are copied, nothing is computed again
    same_as: str = ""
    #: the labels of the rows whose errors one pass computes together with this row's (:meth:`~dpposterior.mechanisms.
    #: Mechanism.errors_pass`: the same losses, each row its own weights), in row order, the first running it; () when
    #: this row runs alone
    pass_with: tuple[str, ...] = ()
    #: that pass's plan (:meth:`~dpposterior.mechanisms.Mechanism.plan_shared_errors`): the cost of what runs.  The
    #: total limit still reckons each row at its own ``plan`` (a shared pass changes no row's admission, only the
    #: seconds spent; the yardstick's budget reads no baseline's plan at all)
    pass_plan: Plan | None = None


#: The share of ``DPPOSTERIOR_MAX_COMPARE_SECONDS`` the releases built for an objective (an entry with
#: ``objectives``) may take at k >= 3 (:func:`plan_compare`); the rest is the yardstick's (:func:`yardstick_budget`).
#: With the rows allowed the whole limit, Dir(1,1,1,1), n = 100, eps = 2 admitted both lattice remaps (141.8 of
#: 150 s planned) and left the average's bound 3.6 s: 0.0293, the best release 5.0 times it (1.21 with a 23 s share).
ROWS_SHARE = 0.8
#: The share of ``DPPOSTERIOR_MAX_COMPARE_SECONDS`` past which no baseline row (an entry without ``objectives``) is
#: taken at k >= 3 (:func:`plan_compare`), with the rows taken before it.  A baseline is also taken only within what
#: the yardstick's own plan leaves (:func:`yardstick_reserve`): the yardstick is planned before any baseline, from
#: what the releases built for an objective leave (:func:`yardstick_budget`), so a baseline's plan moves a bound only
#: through which baselines the yardstick's cap shows, and a baseline that fits that rest is shown (``geometric``
#: first: its entry's ``compare_first``).
BASELINES_SHARE = 0.7
#: The yardstick's budget at k >= 3 (both objectives' block relaxations together, :func:`yardstick_budget`) is at
#: most this share of ``DPPOSTERIOR_MAX_COMPARE_SECONDS`` where that cap shows a baseline (one the baselines' walk
#: takes within what the capped plan leaves and not within what the uncapped one leaves); elsewhere the cap would
#: show nothing and the yardstick takes the whole rest.  Its plans take what they are given (deeper corner blocks,
#: the weighted dual, more evaluations of the release's start), so without a cap no baseline is shown where the
#: releases built for an objective are cheap: at 0.5 and 0.6 Dir(1,1,1), n = 1,000, eps = 1 planned 74.5 s of blocks
#: and left geometric out; at 0.4 it shows geometric (at 0.3 the budgets at n = 50 to 300, eps = 1 and 2 fall below
#: 45 s, under what the rows used to leave there).  Capped everywhere, it left Dir(1,1,1,1), n = 100, eps = 0.5 (no
#: release built for an objective fits; lszhang is shown either way, geometric neither) the corner blocks at depth 7;
#: with the cap only where it shows a baseline they get depth 8 there (worst 1.543 -> 1.511 of the bound, 66 CPU s
#: against 112 s planned), Dir(1,1,1,1), n = 15, eps = 0.5 the weighted dual (1.238 -> 1.188), and Dir(1,1,1), n =
#: 1,000, eps = 1 keeps the cap and geometric (benchmarks/compare_h75cap.json, compare_h75cap_moved.json).  The
#: measurements below are of the cap applied everywhere.  Against the budget of what every row's plan left
#: (benchmarks/compare_h74cmp.json): the same printed bounds at Dir(1,1,1), n = 100, 120, 300, eps = 1 and n = 1,000,
#: eps = 0.5, and Dir(1,1,1,1), n = 100, eps = 1; tighter averages at n = 120, eps = 0.5 (0.3374 -> 0.3380) and n =
#: 1,000, eps = 1 (0.0674 -> 0.0683); looser where the rows had left far more than this cap: n = 100, eps = 2
#: (average 0.0817 -> 0.0816, 104 s before) and Dir(1,1,1,1), n = 20, eps = 1 (0.4450 -> 0.4447, 72 s).
YARDSTICK_SHARE = 0.4


def plan_compare(a, n: int, epsilon: float, delta: float = DEFAULT_DELTA,
                 distance: str = DEFAULT_DISTANCE) -> list[RowPlan]:
    """Plan every row of ``compare`` on its own (module docstring), from public prior, n and eps only.

    Each release's plan (``Task.ERRORS``) is held to its own limits; then the admitted rows, those of an entry with
    ``objectives`` first (their average rows before their others) and each group cheapest first, are taken while
    their estimated seconds add up within ``DPPOSTERIOR_MAX_COMPARE_SECONDS`` (at k >= 3 within :data:`ROWS_SHARE` of
    it, and a baseline row within :data:`BASELINES_SHARE` and what the yardstick's plan leaves,
    :func:`yardstick_reserve`).  Raises one-line
    :class:`SizeError` only when no row at all can be computed (with the cheapest row's own refusal)."""
    k = a.size
    privacy = PrivacyParameters(epsilon, delta)  # validated where they entered (the command line, dp.compare)
    out, first = [], {}  # first: release key -> the label of the first row that is that release
    for v in compare_variants(k):
        try:
            spec = ReleaseSpec.trusted(v, privacy, distance)
            plan = spec.mechanism.plan(Task.ERRORS, spec, a, n, measure=distance)
        except InputError as exc:  # a setting past this mechanism's limit (optimal's eps <= 30): that row only
            out.append(RowPlan(v, None, None, " ".join(str(exc).split())))
            continue
        key = spec.mechanism.release_key(a, n, spec)
        # the same release as an earlier row: its numbers, computed once
        out.append(RowPlan(v, spec, plan, plan.refused(), first.get(key, "") if key is not None else ""))
        if key is not None:
            first.setdefault(key, v.label)
    total = limit_setting("DPPOSTERIOR_MAX_COMPARE_SECONDS")
    limit = total * (ROWS_SHARE if k >= 3 else 1.0)
    baselines = total * (BASELINES_SHARE if k >= 3 else 1.0)
    used, taken, reserve = 0.0, set(), None
    for i in _admission_order(out, k):
        row = out[i]
        cost = _row_seconds(row.plan, taken)
        if row.variant.entry.objectives:
            cap, whose = limit, "all its rows"
        else:
            if reserve is None:  # the releases built for an objective are all admitted: the yardstick's plan next
                reserve = yardstick_reserve(a, n, epsilon, _copies_left_out(out), distance) if k >= 3 else 0.0
            cap = min(baselines, total - reserve)
            whose = ("a baseline and the rows before it" if not reserve else
                     f"a baseline and the rows before it (the limit less the yardstick's {duration_text(reserve)})")
        if used + cost <= cap:
            used += cost
            taken.update(key for key, _ in row.plan.shared)
            continue
        out[i] = replace(row, left_out=(
            f"it would take {duration_text(cost)} ({row.plan.route}) after the rows taken before it, "
            f"{duration_text(used)}, over compare's limit of {cap:.3g} s for {whose} together (use accuracy "
            f"--mechanism {row.variant.entry.id} for this release alone, or set DPPOSTERIOR_MAX_COMPARE_SECONDS to "
            "raise it)"))
    out = _shared_passes(a, n, _copies_left_out(out))
    if all(r.left_out for r in out):
        planned = [r for r in out if r.plan is not None and not r.plan.refusal]
        if not planned:
            raise SizeError(f"compare for k={k}, n={n}: no release can be computed ({out[0].left_out})")
        cheapest = min(planned, key=lambda r: r.plan.seconds)
        raise SizeError(f"compare for k={k}, n={n}: no release fits its limits; the cheapest, "
                        f"{cheapest.variant.label}: {cheapest.left_out}")
    return out


def _admission_order(rows: list[RowPlan], k: int) -> list[int]:
    """The indices of the rows :func:`plan_compare` walks (admitted by their own limits, not copies), in its order:
    the releases built for an objective first (their average rows first), then the baselines (an entry's
    ``compare_first`` first), each group cheapest first, then by label."""
    starts = start_releases(k)
    return sorted((i for i, r in enumerate(rows) if not r.left_out and not r.same_as),
                  key=lambda i: (not rows[i].variant.entry.objectives, rows[i].variant.label not in starts,
                                 not rows[i].variant.entry.compare_first, rows[i].plan.seconds,
                                 rows[i].variant.label))


def baselines_within(plans: list[RowPlan], k: int, reserve: float) -> set[str]:
    """The baselines :func:`plan_compare` takes when the yardstick keeps ``reserve`` seconds: walked in its order
    (:func:`_admission_order`) after the computed rows of an entry with ``objectives`` (:func:`objective_seconds`,
    their shared parts counted once), each taken while the rows so far fit :data:`BASELINES_SHARE` of
    ``DPPOSTERIOR_MAX_COMPARE_SECONDS`` (at k >= 3) and the limit less ``reserve``.  Reads the baselines' own plans
    (a baseline left out by its own limits, ``plan.refused()``, is not walked), never which baselines ``plans``
    already took, so :func:`plan_compare` (before it takes any) and :func:`compare_yardstick` (after) read the same
    set."""
    total = limit_setting("DPPOSTERIOR_MAX_COMPARE_SECONDS")
    cap = min(total * (BASELINES_SHARE if k >= 3 else 1.0), total - reserve)
    used, taken = 0.0, set()
    for r in plans:
        if r.variant.entry.objectives and not r.left_out and not r.same_as:
            used += _row_seconds(r.plan, taken)
            taken.update(key for key, _ in r.plan.shared)
    # each baseline as its own limits left it: the total limit's decision is the one being made here
    own = [replace(r, left_out=r.plan.refused() if r.plan is not None else (r.left_out or "no plan"))
           if not r.variant.entry.objectives else r for r in plans]
    shown = set()
    for i in _admission_order(own, k):
        r = own[i]
        if r.variant.entry.objectives:
            continue
        cost = _row_seconds(r.plan, taken)
        if used + cost <= cap:
            used += cost
            taken.update(key for key, _ in r.plan.shared)
            shown.add(r.variant.label)
    return shown


def _copies_left_out(rows: list[RowPlan]) -> list[RowPlan]:
    """``rows`` with each copy (``same_as``) left out where the row it copies is."""
    left = {r.variant.label: r.left_out for r in rows if not r.same_as}
    return [replace(r, left_out=r.left_out or left[r.same_as]) if r.same_as else r for r in rows]


def _row_seconds(plan: Plan, taken: set) -> float:
    """A row's planned seconds less its :attr:`~dpposterior.limits.Plan.shared` parts already counted (``taken``): a
    cached part runs once for every row naming it."""
    return plan.seconds - sum(sec for key, sec in plan.shared if key in taken)


def rows_seconds(plans: list[RowPlan]) -> float:
    """The computed rows' planned seconds together, each shared part once."""
    used, taken = 0.0, set()
    for r in plans:
        if r.left_out or r.same_as:
            continue
        used += _row_seconds(r.plan, taken)
        taken.update(key for key, _ in r.plan.shared)
    return used


def _shared_passes(a, n: int, rows: list[RowPlan]) -> list[RowPlan]:
    """The admitted rows (not copies) whose entries give one :meth:`~dpposterior.mechanisms.Mechanism.errors_pass`
    key, two or more, marked to run in one pass (``pass_with``, ``pass_plan``) where that pass's plan fits the
    limits; else each runs alone, as planned."""
    groups: dict = {}
    for r in rows:
        if r.left_out or r.same_as:
            continue
        key = r.spec.mechanism.errors_pass(r.plan, a, n, r.spec)
        if key is not None:
            groups.setdefault(key, []).append(r)
    marked = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        plan = members[0].spec.mechanism.plan_shared_errors([(r.plan, r.spec) for r in members], a, n)
        if plan.refused():
            continue
        labels = tuple(r.variant.label for r in members)
        for r in members:
            marked[r.variant.label] = (labels, plan)
    return [replace(r, pass_with=marked[r.variant.label][0], pass_plan=marked[r.variant.label][1])
            if r.variant.label in marked and not r.same_as else r for r in rows]


def compare_rows(a, n: int, epsilon: float, delta: float = DEFAULT_DELTA, plans: list[RowPlan] | None = None,
                 distance: str = DEFAULT_DISTANCE, errors: dict | None = None) -> list[dict]:
    """One row per release (:func:`plan_compare`'s, or ``plans`` already made), ranked by worst case.

    A row left out by its plan gets ``"error"`` (its one-line reason) instead of numbers, as does a row whose run
    refuses (a limit of its own met only while it runs, e.g. the k = 2 remap's certificate gap); the others run their
    plans (:func:`dpposterior.accuracy.errors_of`) and carry their ``"route"``.  ``distance``: the score and error
    measure of every row (a release not built for it, e.g. optimal under kl at k >= 3, gets its one-line refusal).
    ``errors``: a dict filled with each computed row's :class:`~dpposterior.accuracy.ExpectedErrors` by release
    label (for :func:`compare_yardstick`)."""
    plans = plan_compare(a, n, epsilon, delta, distance) if plans is None else plans
    measure = get_distance(distance).name
    out, done, passed = [], {}, {}
    by_label = {rp.variant.label: rp for rp in plans}
    for rp in plans:
        v = rp.variant
        ce, cd = v.claimed(epsilon, delta)
        claim = "none" if ce is None else (f"({ce:g}, {cd:g})-DP" if cd else f"{ce:g}-DP")
        row = {"release": v.label, "claim": claim}
        if rp.left_out:
            row["error"] = rp.left_out
            out.append(row)
            continue
        try:
            if rp.same_as:
                e = done[rp.same_as]
            elif rp.pass_with:
                if v.label not in passed:  # the first row of the pass runs it for every row of it
                    members = [by_label[label] for label in rp.pass_with]
                    try:
                        got = errors_of_pass([(m.plan, m.spec) for m in members], a, n, measure)
                    except InputError as exc:
                        got = [exc] * len(members)
                    passed.update(zip(rp.pass_with, got))
                e = passed[v.label]
                if isinstance(e, InputError):
                    raise e
            else:
                e = errors_of(rp.spec, a, n, measure, rp.plan)
        except InputError as exc:
            row["error"] = " ".join(str(exc).split())
        except KeyError:  # the earlier row it shares refused while it ran
            row["error"] = next(r["error"] for r in out if r["release"] == rp.same_as)
        else:
            done[v.label] = e
            if errors is not None:
                errors[v.label] = e
            if rp.same_as:
                row["same_release_as"] = rp.same_as
            row.update(worst_expected_error=e.worst, worst_counts=e.worst_counts, average_expected_error=e.average,
                       route=rp.plan.route)
            if e.calibration is not None:
                row["calibration"] = e.calibration.as_dict()
            if e.tail > 0:  # a bracketed route: expected <= E <= expected + tail
                row["truncation_bound"] = e.tail
        out.append(row)
    return sorted(out, key=lambda r: (r.get("worst_expected_error", math.inf), r["release"]))


def start_releases(k: int) -> set[str]:
    """The rows whose errors may start the yardstick's average (:func:`compare_yardstick`): the releases built for
    the average objective (an entry with ``objectives``: the LP, or the lattice release with its local Bayes remap),
    near the average's optimum by design."""
    return {v.label for v in compare_variants(k) if v.entry.objectives and v.objective == Objective.AVERAGE}


def fallback_releases(k: int) -> set[str]:
    """The rows whose errors start the yardstick's average where no row of :func:`start_releases` was computed: the
    releases built for the other objective (an entry with ``objectives``: the LP, or the lattice release with its
    corner remap), near the optimum by design.  Dir(1,1,1,1), n = 100, eps = 1, where ``lattice (average)`` is left
    out: from ``lattice (worst)``'s errors (average 0.31527) one evaluation at radius 6 certified 0.26379 at scale
    0.94 (every deficit's LP), where the flows had certified 0.14205.  Any errors give a certified bound; these only
    choose where the dual starts."""
    return {v.label for v in compare_variants(k) if v.entry.objectives and v.objective != Objective.AVERAGE}


#: The k where a baseline's errors start the yardstick's average when no row of :func:`start_releases` or
#: :func:`fallback_releases` was computed (:func:`baseline_releases`): measured at Dir(1,1,1,1), n = 100, eps = 0.5.
BASELINE_START_K = (4,)


def baseline_releases(k: int) -> set[str]:
    """The rows whose errors start the yardstick's average where no row of :func:`start_releases` or
    :func:`fallback_releases` was computed, at k in :data:`BASELINE_START_K`: the baselines (an entry without
    ``objectives``), far from the optimum but the only errors at hand.  Dir(1,1,1,1), n = 100, eps = 0.5, where no
    lattice or optimal row fits: from ``lszhang``'s errors one evaluation certified 0.34 and more, where the k = 2
    bound was 0.1811 (docs/lattice.md).  Any errors give a certified bound (weak duality); these only choose where
    the dual starts."""
    if k not in BASELINE_START_K:
        return set()
    return {v.label for v in compare_variants(k) if not v.entry.objectives}


def start_row(k: int, n: int, errors: dict | None) -> tuple[str, object] | None:
    """``(label, ExpectedErrors)`` of the computed row that starts the yardstick's average: of least average error
    (then label) among :func:`start_releases`, else among :func:`fallback_releases`, else among
    :func:`baseline_releases`; only a row with an error at every data set of R(n).  None where no such row was
    computed.  Which rows were computed follows from their plans, public prior, n and eps only."""
    full = {label: e for label, e in (errors or {}).items() if len(e.counts) == math.comb(n + k - 1, k - 1)}
    for labels in (start_releases(k), fallback_releases(k), baseline_releases(k)):
        best = min(((label, e) for label, e in full.items() if label in labels),
                   key=lambda item: (item[1].average, item[0]), default=None)
        if best is not None:
            return best
    return None


def compare_yardstick(a, n: int, epsilon: float, rows: list[dict], distance: str = DEFAULT_DISTANCE,
                      plans: list[RowPlan] | None = None, errors: dict | None = None):
    """The yardstick of ``compare`` (:func:`dpposterior.yardstick.yardstick`: a certified lower bound on the best
    achievable worst-case and average Hellinger errors, docs/definitions.md §9), or a one-line reason it is not
    computed (over the budget, a setting past the k = 2 optimum's limits); None under another distance than
    Hellinger (the bound is Hellinger's).  At k >= 3 the LP's own optima are used where ``rows`` computed them, and
    the block relaxations (:func:`dpposterior.yardstick.plan_blocks`) run where their plans fit: each objective's
    share is ``BLOCK_SECONDS`` or half of :func:`yardstick_budget` (what ``DPPOSTERIOR_MAX_COMPARE_SECONDS`` leaves
    after the k = 2 solves and the rows of an entry with ``objectives``, ``plans``: :func:`plan_compare`'s, at most
    :data:`YARDSTICK_SHARE` of it where that cap shows a baseline), whichever is smaller: :func:`yardstick_plan`, the
    blocks :func:`plan_compare` reserved (where a row that should start the average refused while it ran, the blocks
    are planned within what every row's plan leaves instead, as that reserve assumed another start); a block plan
    that does not fit leaves that objective to the other bounds.  An average dual that cannot beat the k = 2 bound
    (its windows' ceiling, ``plan_blocks``' ``floor``) is not run, and the worst case's corner blocks take what the
    average's plans leave of both shares (where the deepest block that fits stops short of n, the whole LP over its
    orbits when it fits instead: :func:`~dpposterior.lattice.yardstick.plan_corner`'s ``whole``).
    ``errors``: :func:`compare_rows`'s per-row expected errors; the computed row of
    :func:`start_releases` of least average error, else of :func:`fallback_releases`, else (k = 4) of
    :func:`baseline_releases` (:func:`start_row`), starts the average's exact windows
    (:func:`dpposterior.yardstick.block_bounds`; any errors give a certified bound, these only choose where the dual
    starts); where none was computed, the average's bound is planned as without ``errors``.
    """
    from .yardstick import block_bounds, lp_optima, marginal_bound, marginal_seconds, yardstick

    if distance != DEFAULT_DISTANCE:
        return None
    k = a.size
    limit = limit_setting("DPPOSTERIOR_MAX_PAIRS")
    try:
        work = marginal_seconds(a, n, epsilon) * PAIRS_PER_SECOND
        if work > limit:
            return (f"its k = 2 solves need {approx_count_text(int(work // PAIRS_PER_SECOND))} s here, over the limit of "
                    f"{limit:.0e} (set DPPOSTERIOR_MAX_PAIRS to raise it)")
        lp = lp_optima(a, n, epsilon, {r["release"] for r in rows if "error" not in r}) if k >= 3 else {}
        # what every row's plan and the k = 2 bound's solves leave: the yardstick's budget is within it when its
        # start is the one plan_compare reserved for (the usual case); else it is planned within this rest
        left = (limit_setting("DPPOSTERIOR_MAX_COMPARE_SECONDS") - rows_seconds(plans or [])
                - marginal_seconds(a, n, epsilon))
        # the start of the average's exact windows: the computed lattice or optimal release of least average error,
        # built for the average if one was computed, else for the worst case (start_row)
        best = start_row(k, n, errors)
        start = None
        if best is not None:  # E over R(n), candidate order
            start = (best[0], np.zeros(len(best[1].counts)))
            start[1][candidate_rank(best[1].counts)] = best[1].expected
        # the k = 2 bound (its solves are cached for yardstick() below): an average dual that cannot beat it is left
        # out and its share goes to the worst case's corner blocks (plan_blocks' floor)
        marginal_bound(a, n, epsilon)
        baseline = start is not None and start[0] in baseline_releases(k)
        blocks = {}
        if k >= 3:
            planned = yardstick_plan(a, n, epsilon, yardstick_budget(a, n, epsilon, plans or []), start is not None,
                                     baseline)
            if planned_seconds(planned) > left:
                planned = yardstick_plan(a, n, epsilon, left, start is not None, baseline)
            blocks = block_bounds(a, n, epsilon, planned, start,
                                  worst=start is not None and start[0] not in start_releases(k), baseline=baseline)
        return yardstick(a, n, epsilon, lp, blocks)
    except InputError as exc:
        return " ".join(str(exc).split())


def objective_seconds(plans: list[RowPlan]) -> float:
    """The planned seconds of the computed rows of an entry with ``objectives`` (:func:`rows_seconds` of those rows:
    each shared part once); the baselines' plans are not read."""
    return rows_seconds([r for r in plans if r.variant.entry.objectives])


def yardstick_budget(a, n: int, epsilon: float, plans: list[RowPlan]) -> float:
    """The seconds of the yardstick's block relaxations at k >= 3, both objectives together (:func:`yardstick_plan`):
    what ``DPPOSTERIOR_MAX_COMPARE_SECONDS`` leaves after the k = 2 bound's solves and the rows of an entry with
    ``objectives`` (:func:`objective_seconds`), capped at :data:`YARDSTICK_SHARE` of it only where the cap shows a
    baseline: where the baselines taken within what the capped plan leaves (:func:`baselines_within`) include one
    that those taken within what the uncapped plan leaves do not.  Else no baseline is gained by the cap and the
    blocks take the whole rest: at Dir(1,1,1,1), n = 100, eps = 0.5 (no release built for an objective fits;
    ``lszhang`` fits either way, ``geometric`` neither way) the corner blocks get depth 8 (worst bound 0.5362 against
    depth 7's 0.5249); at Dir(1,1,1), n = 1,000, eps = 1 the cap shows ``geometric`` and is kept.

    From public prior, n, eps, the limit, the plans of the rows built for an objective and the baselines' own plans
    (their seconds and their own limits' refusals), never from the data; the rule reads which baselines could be
    taken, not which ``plans`` took, so :func:`plan_compare` (before taking any) and :func:`compare_yardstick`
    (after) decide the same budget.  A baseline's plan can move the budget only by moving that set; a dearer or
    cheaper baseline that is taken (or left out) either way moves no bound.  Both budgets keep the rows and the
    yardstick within the limit as planned: the baselines are taken within the limit less the reserve of the budget
    chosen (:func:`yardstick_reserve`)."""
    from .yardstick import marginal_seconds

    total = limit_setting("DPPOSTERIOR_MAX_COMPARE_SECONDS")
    whole = max(0.0, total - marginal_seconds(a, n, epsilon) - objective_seconds(plans))
    capped = min(YARDSTICK_SHARE * total, whole)
    if capped >= whole:
        return whole
    k = a.size
    shown = baselines_within(plans, k, _reserve_within(a, n, epsilon, plans, capped))
    return capped if shown - baselines_within(plans, k, _reserve_within(a, n, epsilon, plans, whole)) else whole


def _reserve_within(a, n: int, epsilon: float, plans: list[RowPlan], budget: float) -> float:
    """The k = 2 bound's solves and the seconds of :func:`yardstick_plan` within ``budget``, its start as ``plans``
    give it (a computed row built for an objective, else at k in :data:`BASELINE_START_K` a baseline's)."""
    from .yardstick import marginal_seconds

    k = a.size
    computed = {r.variant.label for r in plans if not r.left_out}
    start = bool(computed & (start_releases(k) | fallback_releases(k)))
    baseline = not start and k in BASELINE_START_K
    return marginal_seconds(a, n, epsilon) + planned_seconds(
        yardstick_plan(a, n, epsilon, budget, start or baseline, baseline))


def yardstick_plan(a, n: int, epsilon: float, budget: float, start: bool, baseline: bool) -> dict:
    """The block relaxations ``compare``'s yardstick runs within ``budget`` seconds (:func:`dpposterior.yardstick.
    plan_blocks` with each objective's share half of it, the k = 2 bound as the average's floor, and the whole LP,
    weighted dual and deeper corner blocks where they fit); ``start``, ``baseline``: as there.  Read by
    :func:`yardstick_reserve` (the plan) and :func:`compare_yardstick` (the run)."""
    from .yardstick import marginal_bound_trusted, plan_blocks

    return plan_blocks(a, n, epsilon, max(0.0, budget) / 2, start=start,
                       floor=marginal_bound_trusted(a, n, epsilon).average,
                       whole=True, weighted=True, baseline=baseline, deeper=True)


def planned_seconds(blocks: dict) -> float:
    """The seconds of the plans of :func:`yardstick_plan` that fit (those :func:`dpposterior.yardstick.block_bounds`
    runs)."""
    return sum(plan.seconds for plan, _ in blocks.values() if plan.fits)


def yardstick_reserve(a, n: int, epsilon: float, plans: list[RowPlan], distance: str = DEFAULT_DISTANCE) -> float:
    """The seconds :func:`plan_compare` keeps from the baselines at k >= 3: the k = 2 bound's solves and the
    yardstick's plan (:func:`yardstick_plan` within :func:`yardstick_budget`), its start as ``plans`` give it (a
    computed row built for an objective, else at k in :data:`BASELINE_START_K` a baseline's); 0 where the yardstick
    is not computed (another distance, the k = 2 solves past ``DPPOSTERIOR_MAX_PAIRS``, a setting past their
    limits).  :func:`compare_yardstick` plans the same blocks when that start is the one it has, so the rows and the
    yardstick together stay within ``DPPOSTERIOR_MAX_COMPARE_SECONDS`` as planned."""
    from .yardstick import marginal_seconds

    if distance != DEFAULT_DISTANCE:
        return 0.0
    try:
        if marginal_seconds(a, n, epsilon) * PAIRS_PER_SECOND > limit_setting("DPPOSTERIOR_MAX_PAIRS"):
            return 0.0
        return _reserve_within(a, n, epsilon, plans, yardstick_budget(a, n, epsilon, plans))
    except InputError:
        return 0.0


def average_ranks(rows: list[dict]) -> dict[str, int]:
    """``{release: rank}`` by average expected error (1 = best) of the rows of :func:`compare_rows` that have
    numbers (rows with an ``"error"`` have no rank)."""
    return {r["release"]: i + 1 for i, r in enumerate(
        sorted((r for r in rows if "error" not in r), key=lambda r: r["average_expected_error"]))}
