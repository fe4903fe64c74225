"""A certified lower bound on the best achievable expected error at any k and n: the yardstick of ``compare``.

The optimum (docs/definitions.md §9) is the LP over eps-DP tables ``P(r | c)`` on R(n) x R(n); it runs only at
small n for k >= 3.  Where it runs its own optimum is the yardstick; elsewhere this module gives a bound that
provably stays at or below it, from the k = 2 optimum (docs/definitions.md §10) through one aggregated count.

Theorem (reduction to one count).  Let ``S`` be a non-empty proper subset of the categories, ``a_S`` the sum of
the prior over ``S`` and ``A`` the sum over all; ``OPT2_worst`` and ``OPT2_avg`` the k = 2 optima at prior
``(a_S, A - a_S)``, size n and eps.  Then for every eps-DP release ``P`` at k categories,
``max_c E_P(c) >= OPT2_worst`` and ``sum_c pi(c) E_P(c) >= OPT2_avg``.

Proof.  (1) The loss can only shrink under the marginal: ``c -> c_S = sum_{i in S} c_i`` and ``r -> r_S``.
The image of ``Dir(a + c)`` under ``theta -> sum_{i in S} theta_i`` is ``Beta(a_S + c_S, A - a_S + n - c_S)``
(aggregation property of the Dirichlet), and Hellinger is an f-divergence, so by the data-processing
inequality ``H(Dir(a + c), Dir(a + r)) >= H(Beta(a_S + c_S, ...), Beta(a_S + r_S, ...)) = L2(c_S, r_S)``, the
k = 2 loss at prior ``(a_S, A - a_S)``.
(2) Worst case: the data sets ``c(s) = s e_i + (n - s) e_j`` (``i`` in ``S``, ``j`` not) for ``s = 0..n`` form a
chain of neighbours (one substitution apart), so ``Q(t | s) = P(r_S = t | c(s))`` is an eps-DP release of one
count at k = 2 (post-processing of ``P`` by ``r -> r_S``), and
``max_c E_P(c) >= max_s sum_r P(r | c(s)) L2(s, r_S) = max_s E_Q(s) >= OPT2_worst``.
(3) Average: under ``pi = DirMult(n, a)`` the count ``c_S`` is ``BetaBinomial(n, a_S, A - a_S)``, the k = 2 prior
predictive; given ``c_S = s`` the counts inside ``S`` are ``DirMult(s, a|S)`` and outside ``DirMult(n - s, a|S^c)``.
A Polya urn couples ``DirMult(s, .)`` with ``DirMult(s + 1, .)`` by adding one ball and ``DirMult(n - s, .)`` with
``DirMult(n - s - 1, .)`` by removing the last ball (exchangeability), so there is a coupling of
``pi(. | c_S = s)`` and ``pi(. | c_S = s + 1)`` supported on neighbouring pairs.  Hence
``Q(t | s) = sum_c pi(c | c_S = s) P(r_S = t | c)`` satisfies ``Q(t | s) <= e^eps Q(t | s + 1)`` and back: an
eps-DP release of one count.  By (1), ``sum_c pi(c) E_P(c) >= sum_s BB(s) sum_t Q(t | s) L2(s, t) >= OPT2_avg``.
QED.

At k >= 3 :func:`yardstick` also takes the block relaxations of :mod:`dpposterior.lattice.yardstick` where their
plans fit (:func:`plan_blocks`, :func:`block_bounds`: corner blocks for the worst case, dual flows for the
average), each certified there; the largest of the bounds at hand is the yardstick.

The k = 2 optima are those of geometric + remap (docs/definitions.md §10; Ghosh, Roughgarden and Sundararajan
2012 and Gupte and Sundararajan 2010 for a loss nondecreasing in ``|r - c|``, which the Hellinger loss between
Beta posteriors of one n is): the ``optimal`` entry's certified ``lower`` (worst) and its exact Bayes risk
(average), lowered by :data:`RELATIVE_MARGIN` of their value for float rounding.  The bound is the largest over
the subsets ``S`` (a subset and its complement give the same k = 2 problem, mirrored).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from . import validate
from .errors import InputError
from .limits import limit_setting
from .mechanisms import DEFAULT_DELTA, MECHANISMS, PrivacyParameters, ReleaseSpec, releases

#: Lowered from each k = 2 value: covers the float rounding of its sums (relative ~1e-15 per product, times the
#: kernel's 1 / (1 - q) at the smallest eps the optimum solves).
RELATIVE_MARGIN = 1e-9


@dataclass(frozen=True)
class Yardstick:
    """Lower bounds on the best achievable worst-case and average errors (docs/definitions.md §9), and how each
    was obtained (``worst_bound``, ``average_bound``: words for the output)."""

    worst: float
    average: float
    worst_bound: str
    average_bound: str

    def as_dict(self) -> dict:
        """The JSON form (``compare --json``'s ``"yardstick"``)."""
        return {"worst": self.worst, "average": self.average, "worst_bound": self.worst_bound,
                "average_bound": self.average_bound}


def marginal_priors(prior: ArrayLike) -> list[tuple[float, float]]:
    """The k = 2 priors ``(a_S, A - a_S)`` of the reduction (module docstring), one per subset ``S`` holding the first
    category (its complement gives the same problem), distinct, in order."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    out: list[tuple[float, float]] = []
    for size in range(1, k):
        for rest in itertools.combinations(range(1, k), size - 1):
            inside = float(a[[0, *rest]].sum())
            pair = (inside, float(a.sum()) - inside)
            if pair not in out:
                out.append(pair)
    return out


def marginal_seconds(prior: ArrayLike, n: int, epsilon: float) -> float:
    """Estimated seconds of :func:`marginal_bound`: the k = 2 solves of both objectives, per distinct prior."""
    entry = MECHANISMS["optimal"]
    per = entry.solve_seconds(n, 2, "worst", epsilon) + entry.solve_seconds(n, 2, "average", epsilon)
    return len(marginal_priors(prior)) * per


def marginal_bound(prior: ArrayLike, n: int, epsilon: float) -> Yardstick:
    """The reduction to one count (module docstring): ``max over S`` of the certified k = 2 optima, a lower bound on
    the k-category optimum's worst-case and average errors (docs/definitions.md §9, §10)."""
    return _marginal_bound(validate.prior(prior), validate.size(n),
                           lambda objective: ReleaseSpec.of("optimal", epsilon, objective=objective))


def marginal_bound_trusted(a: np.ndarray, n: int, epsilon: float) -> Yardstick:
    """:func:`marginal_bound` of values validated where they entered (``compare``'s plan): not validated again."""
    variants = {str(v.objective): v for v in releases(MECHANISMS["optimal"])}
    privacy = PrivacyParameters(epsilon, DEFAULT_DELTA)
    return _marginal_bound(a, int(n), lambda objective: ReleaseSpec.trusted(variants[objective], privacy))


def _marginal_bound(a: np.ndarray, n: int, spec_of) -> Yardstick:
    """:func:`marginal_bound` with ``spec_of(objective)`` giving ``optimal``'s spec at that objective."""
    entry = MECHANISMS["optimal"]
    worst = average = 0.0
    for pair in marginal_priors(a):
        for objective in ("worst", "average"):
            spec = spec_of(objective)
            cert = entry.certificate(np.array(pair), n, spec)
            value = cert["lower"] if objective == "worst" else cert["lp_optimum"]
            value = max(0.0, float(value) * (1.0 - RELATIVE_MARGIN))
            if objective == "worst":
                worst = max(worst, value)
            else:
                average = max(average, value)
    what = "the k = 2 optimum of one aggregated count (data-processing bound)"
    return Yardstick(worst, average, what, what)


def lp_optima(prior: ArrayLike, n: int, epsilon: float, computed: set[str]) -> dict[str, float]:
    """``{objective: lp_optimum}`` of the ``optimal`` releases at k >= 3 whose rows were computed (``computed``: the
    labels of the computed rows of ``compare``; their LP solves are cached, so this is a look-up), the certified
    optimum of docs/definitions.md §9; ``{}`` where none ran or ``optimal`` is the lattice release there."""
    entry = MECHANISMS["optimal"]
    out = {}
    for objective in ("worst", "average"):
        spec = ReleaseSpec.of("optimal", epsilon, objective=objective)
        if f"optimal ({objective})" in computed:
            # past its linear program ``optimal`` is the lattice release, whose certificate bounds only the remaps of
            # that release: no LP optimum, no yardstick from it
            value = entry.certificate(np.asarray(prior, dtype=np.float64), n, spec).get("lp_optimum")
            if value is not None:
                out[objective] = float(value)
    return out


#: :func:`plan_blocks`' key of a second average plan (the release's start, beside the flows); :func:`block_bounds`
#: keeps the larger of the two bounds under ``"average"``.
START_KEY = "average (started)"


def plan_blocks(prior: ArrayLike, n: int, epsilon: float, seconds: float | None = None,
                start: bool = False, floor: float | None = None, whole: bool = False,
                weighted: bool = False, baseline: bool = False, deeper: bool = False) -> dict[str, tuple]:
    """``{objective: (plan, size)}`` of the block relaxations (:mod:`dpposterior.lattice.yardstick`, certified
    lower bounds on the optimum of docs/definitions.md §9): the worst case from the corner blocks
    (:func:`~dpposterior.lattice.yardstick.plan_corner`, ``size`` its depth), the average from a dual solution of
    the whole LP (:func:`~dpposterior.lattice.yardstick.plan_flow`, ``size`` its window radius and ascent steps, then
    the radius and steps of :func:`~dpposterior.lattice.yardstick.column_bound`, 0 steps where its share is small).
    ``{}`` at k = 2, where the one-count bound is the optimum itself.  ``seconds``: each objective's share, at most
    :data:`~dpposterior.lattice.yardstick.BLOCK_SECONDS` (the average's where the exact windows run,
    :func:`~dpposterior.lattice.yardstick.exact_windows`: eps below
    :data:`~dpposterior.lattice.yardstick.COLUMN_MAX_EPSILON`, any eps at k >= 4:
    :data:`~dpposterior.lattice.yardstick.COLUMN_SECONDS`) and ``DPPOSTERIOR_MAX_SOLVE_SECONDS``.
    ``start``: a release's errors will be at hand (``compare`` computed a row); then, where the exact windows run
    (:func:`~dpposterior.lattice.yardstick.exact_windows`), the average is
    :func:`~dpposterior.lattice.yardstick.plan_release`'s (exact windows started from those errors, ``size`` its
    radius, evaluations and cap on the LPs (None: none), within the same share as the exact windows) where it fits,
    else as above; at the other eps (k = 3) the release's plan where it fits, within the same share, and the flows'
    within what it leaves of ``seconds`` (at most ``BLOCK_SECONDS``) as well, under :data:`START_KEY`, where they fit
    too (:func:`block_bounds` keeps the larger of the two certified bounds), else the release's alone; else as above.
    ``baseline`` (with ``start``): those errors are a baseline's (``compare`` computed no lattice or optimal row,
    :func:`dpposterior.ranking.start_row`); then the average is
    :func:`~dpposterior.lattice.yardstick.plan_release`'s with ``baseline`` (one evaluation from those errors) within
    what the corner blocks leave of ``2 seconds`` (with ``floor``; else within ``seconds``) where it fits, else as
    without ``start``; at k in :data:`~dpposterior.lattice.yardstick.WEIGHTED_K` and eps at most
    :data:`~dpposterior.lattice.yardstick.WINDOWS_OVER_BASELINE_MAX_EPSILON`, the flows then exact windows
    (:func:`~dpposterior.lattice.yardstick.plan_windows`, under :data:`~dpposterior.lattice.yardstick.WINDOWS_KEY`)
    in that share instead, where they fit it.
    ``floor``: a certified average bound already at hand (``compare``'s: :func:`marginal_bound`'s); then the two
    objectives share ``2 seconds``: the worst case's corner blocks are planned first, within both shares (at most
    ``BLOCK_SECONDS`` and the solve limit: their depths are coarse, one more doubles the seconds, and they converge
    by depth 14 at k = 3), the average's plans as above within what they leave (at most ``seconds``; at k in
    :data:`~dpposterior.lattice.yardstick.CORNER_FIT_K` the corner blocks' first plan is within
    :data:`~dpposterior.lattice.yardstick.CORNER_FIRST_SECONDS` instead, a deeper one only by ``deeper``); then each
    average plan whose windows cannot certify more than ``floor`` (:func:`~dpposterior.lattice.yardstick.
    window_ceiling` at its radius, an upper end of any bound of that dual) is left out.  ``whole``: the worst case
    may be the LP itself over all of R(n) by orbits (:func:`~dpposterior.lattice.yardstick.plan_corner`'s
    ``whole``; ``compare`` asks for it), where it fits the corner blocks' share.  ``weighted`` (with ``floor``;
    ``compare`` asks for it): the worst case also from a dual under weights other than pi
    (:func:`~dpposterior.lattice.yardstick.plan_weighted`, under
    :data:`~dpposterior.lattice.yardstick.WEIGHTED_KEY`; :func:`block_bounds` keeps the larger worst-case bound),
    within what the corner blocks and the average's plans leave of ``2 seconds``: the other plans are as without it;
    in its place, where it fits the same rest, the LP with every data set's ball of outputs
    (:func:`~dpposterior.lattice.yardstick.plan_ball`, under :data:`~dpposterior.lattice.yardstick.BALL_KEY`; k = 4,
    eps <= 0.5).  With ``weighted``, before all of these, the sparse block (:func:`_plan_sparse_first`, under
    :data:`~dpposterior.lattice.yardstick.SPARSE_KEY`) where it fits: then the corner blocks take their cheapest
    plan, no deeper one follows, the average is the flows then each window's LP (as without ``start``) and every
    other plan shares what the sparse block leaves of ``2 seconds``.
    At k in :data:`~dpposterior.lattice.yardstick.WEIGHTED_K` and eps at most
    :data:`~dpposterior.lattice.yardstick.WEIGHTED_MAX_EPSILON`, where the release's start is planned with a cap on
    its LPs (``most`` not None: one evaluation, the LPs of the largest deficits only), the average is instead the flows
    then exact windows under pi (:func:`~dpposterior.lattice.yardstick.plan_windows`, under
    :data:`~dpposterior.lattice.yardstick.WINDOWS_KEY`) within what the corner blocks leave of ``2 seconds`` (with
    ``floor``; else within ``seconds``), where that fits.
    ``deeper`` (with ``floor``; ``compare`` asks for it): last, the corner blocks again
    (:func:`~dpposterior.lattice.yardstick.plan_corner`, ``whole`` as above) within what every other plan that fits
    leaves of ``2 seconds`` (and the solve limit), taken where that block is deeper, not where the sparse block is
    planned: the other plans are as without it.  Any depth's bound is certified on its own
    (:func:`~dpposterior.lattice.yardstick.corner_bound`), so which depth runs changes only how close it is
    (Dir(1,1,1,1), n = 40, eps = 1: depth 7 0.41615, depth 8 0.42116 in 11.0 CPU s, planned 18.9 s).
    What is planned is what :func:`block_bounds` runs."""
    from .lattice import yardstick as blocks

    a = np.asarray(prior, dtype=np.float64)
    if a.size < 3:
        return {}
    given = math.inf if seconds is None else seconds
    both = 2 * given
    solve = limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS")
    # compare's mode (a floor at hand): the corner blocks first within both shares, the average in what they leave
    first = blocks.CORNER_FIRST_SECONDS if a.size in blocks.CORNER_FIT_K else blocks.BLOCK_SECONDS
    sparse = _plan_sparse_first(a, n, epsilon, both, solve, whole and deeper) if floor is not None and weighted else None
    if sparse is not None:
        # the sparse block first, beside the corner blocks' cheapest plan; the other plans share what they leave
        worst = blocks.plan_corner(a, n, epsilon, min(blocks.SPARSE_CORNER_SECONDS, solve))
        both -= sparse[0].seconds
        given = min(given, both - worst[0].seconds)
        # the average's share is small then, and there the flows then each window's LP certify more than a
        # release's start (Dir(1,1,1,1), eps = 0.5, n = 17, about 10 s: 0.5755 against 0.4697)
        start = False
    else:
        worst = blocks.plan_corner(a, n, epsilon, min(first, given if floor is None else 2 * given, solve),
                                   whole=whole)
        if floor is not None and worst[0].fits:
            given = min(given, 2 * given - worst[0].seconds)
    # the exact windows of the average need more steps: a larger share, when given
    wide = blocks.COLUMN_SECONDS if blocks.exact_windows(a.size, epsilon) else blocks.BLOCK_SECONDS
    out = {"worst": worst, "average": blocks.plan_flow(a, n, epsilon, min(wide, given, solve))}
    if start and baseline:
        # one evaluation from a baseline's errors in what the corner blocks leave of both shares (Dir(1,1,1,1),
        # n = 100, eps = 0.5, from lszhang's errors: the k = 2 bound 0.1811, this route 0.34 and more)
        share = both - worst[0].seconds if floor is not None and worst[0].fits else given
        release = blocks.plan_release(a, n, epsilon, min(share, solve), baseline=True)
        if release[0].fits:
            out["average"] = release
        if a.size in blocks.WEIGHTED_K and epsilon <= blocks.WINDOWS_OVER_BASELINE_MAX_EPSILON:
            # the flows then exact windows where they fit that share (Dir(1,1,1,1), eps = 0.5, n = 30: 0.5392
            # against the start from geometric's errors' 0.4269)
            windows = blocks.plan_windows(a, n, epsilon, min(blocks.COLUMN_SECONDS, share, solve))
            if windows[0].fits:
                out.pop("average", None)
                out[blocks.WINDOWS_KEY] = windows
    elif start:
        release = blocks.plan_release(a, n, epsilon, min(blocks.COLUMN_SECONDS, given, solve))
        if release[0].fits and blocks.exact_windows(a.size, epsilon):
            out["average"] = release
        elif release[0].fits:
            # at eps >= COLUMN_MAX_EPSILON both where both fit the share, the larger bound kept (Dir(1,1,1), n = 1000:
            # eps = 2, the release's start at radius 6, 2 evaluations, 0.02736 against the flows' 0.02741; eps = 1, the
            # release's radius 6 certified 1.146 of the best release where the flows certified 1.298); else the
            # release's alone
            flows = blocks.plan_flow(a, n, epsilon, min(blocks.BLOCK_SECONDS, given - release[0].seconds, solve))
            if flows[0].fits:
                out["average"], out[START_KEY] = flows, release
            else:
                out["average"] = release
        # at k = 4, eps <= 1, where the share leaves the release's start one evaluation with a cap on its LPs, the
        # flows then exact windows under pi instead, in what the corner blocks leave of both shares where it fits
        # (Dir(1,1,1,1), n = 20, eps = 0.5: the capped start 0.4583, the flows then 2 evaluations 0.5485)
        plan, size = out["average"]
        capped = len(size) == 3 and size[2] is not None
        if capped and a.size in blocks.WEIGHTED_K and epsilon <= blocks.WEIGHTED_MAX_EPSILON:
            share = both - worst[0].seconds if floor is not None and worst[0].fits else given
            windows = blocks.plan_windows(a, n, epsilon, min(blocks.COLUMN_SECONDS, share, solve))
            if windows[0].fits:
                del out["average"]
                out[blocks.WINDOWS_KEY] = windows
    if floor is not None:
        # an average dual whose windows cannot beat the bound at hand is not run (Dir(1,1,1), n = 1000, eps = 0.5:
        # flows of radius 2, ceiling 0.0494 against the k = 2 bound 0.0632)
        for key in ("average", START_KEY, blocks.WINDOWS_KEY):
            plan, size = out.get(key, (None, ()))
            if plan is not None and plan.fits and blocks.window_ceiling(a, n, size[0]) <= floor:
                del out[key]
        if START_KEY in out and "average" not in out:
            out["average"] = out.pop(START_KEY)
        if weighted and a.size in blocks.WEIGHTED_K:
            # the weighted worst case in what the other plans leave of both shares (they are planned as without it)
            taken = sum(plan.seconds for plan, _ in out.values() if plan.fits)
            rest = min(both - taken, solve)
            if rest > 0:
                # the flows under pi are the average's too where its flows then exact windows run (the same radius
                # and steps): computed once (block_bounds hands them over), planned once
                windows = out.get(blocks.WINDOWS_KEY, (None, ()))
                at_hand = windows[0] is not None and windows[0].fits and windows[1][:2] == (
                    min(blocks.WEIGHTED_RADIUS, n), blocks.WEIGHTED_FLOW_STEPS)
                # every data set's ball of outputs where it fits there, else the weighted dual (Dir(1,1,1,1),
                # eps = 0.5, n = 14: the balls of radius 6 0.6328 in 21 CPU s, the weighted dual 0.6141)
                balls = blocks.plan_ball(a, n, epsilon, rest)
                if balls[0].fits:
                    out[blocks.BALL_KEY] = balls
                else:
                    out[blocks.WEIGHTED_KEY] = blocks.plan_weighted(a, n, epsilon, rest, flows_at_hand=at_hand)
        if deeper and worst[0].fits and sparse is None:
            # (not beside the sparse block, which certifies more where it is planned: Dir(1,1,1,1), n = 14,
            # eps = 0.75, 0.5306 against depth 8's 0.5009)
            # deeper corner blocks in what every other plan leaves of both shares (they are planned as without it)
            taken = sum(plan.seconds for key, (plan, _) in out.items() if plan.fits and key != "worst")
            rest = min(both - taken, solve)
            if rest > worst[0].seconds:
                more = blocks.plan_corner(a, n, epsilon, rest, whole=whole)
                if more[0].fits and more[1] > worst[1]:
                    out["worst"] = more
        if sparse is not None:
            out[blocks.SPARSE_KEY] = sparse
        for key in (blocks.WEIGHTED_KEY, blocks.BALL_KEY):
            if key in out and out["worst"][0].fits and out["worst"][1] >= n:
                # the whole LP itself runs: no weighted average of its errors, no relaxation of it, certifies more
                del out[key]
    return out


def _plan_sparse_first(a, n: int, epsilon: float, both: float, solve: float, whole: bool) -> tuple | None:
    """The sparse block's plan (:func:`~dpposterior.lattice.yardstick.plan_sparse`) where ``compare`` runs it first:
    k in :data:`~dpposterior.lattice.yardstick.SPARSE_K`, eps at most
    :data:`~dpposterior.lattice.yardstick.SPARSE_MAX_EPSILON`, the whole LP not fitting ``both`` (and the solve limit;
    ``whole``: ``compare`` asks for it), and the block fitting the worst case's share (half of ``both``) less the
    corner blocks' cheapest plan (:data:`~dpposterior.lattice.yardstick.SPARSE_CORNER_SECONDS`), where the average's
    share (the other half) is at least :data:`~dpposterior.lattice.yardstick.SPARSE_AVERAGE_SECONDS`; else None.
    Where the whole block does not fit that share, its widest ball that does
    (:func:`~dpposterior.lattice.yardstick.plan_sparse`): Dir(1,1,1,1), eps = 0.5, n = 20, radius 8 within 24.3 s
    of the 49.6 s ``compare`` gives the yardstick.  Public inputs only."""
    from .lattice import yardstick as blocks

    if a.size not in blocks.SPARSE_K or epsilon > blocks.SPARSE_MAX_EPSILON:
        return None
    if both / 2 < blocks.SPARSE_AVERAGE_SECONDS:
        return None
    room = min(both, solve)
    if whole and blocks.plan_corner(a, n, epsilon, room, whole=True)[1] >= n:
        return None
    corner = blocks.plan_corner(a, n, epsilon, min(blocks.SPARSE_CORNER_SECONDS, solve))[0].seconds
    # the worst case's own share (half of both; the other half, the average's, is at least its floor)
    plan = blocks.plan_sparse(a, n, epsilon, min(both / 2 - corner, solve))
    return plan if plan[0].fits else None


def block_bounds(prior: ArrayLike, n: int, epsilon: float, plans: dict[str, tuple],
                 errors: tuple[str, ArrayLike] | None = None, worst: bool = False,
                 baseline: bool = False) -> dict[str, tuple[float, str]]:
    """``{objective: (bound, how)}`` of the admitted ``plans`` (:func:`plan_blocks`); a plan refused, or a block LP
    that fails (HiGHS's status), leaves its objective out (the other bounds stand).  ``errors``: ``(release,
    E)``, a release's expected errors over R(n) in candidate order, the start of the average's exact windows where
    its plan is :func:`~dpposterior.lattice.yardstick.plan_release`'s (any errors give a certified bound); ``worst``:
    that release is built for the worst case (its one evaluation at a lower scale,
    :func:`~dpposterior.lattice.yardstick.release_scales`); ``baseline``: that release is a baseline (its one
    evaluation at :data:`~dpposterior.lattice.yardstick.BASELINE_SCALES`; weak duality holds whatever the start).  Where
    both the flows and the release's start were planned (:data:`START_KEY`), the larger certified bound is the
    average's (each is at most the optimum, so the larger is too)."""
    from .lattice import yardstick as blocks

    out = {}
    kept: dict = {}  # the flows under pi of the average's flows then exact windows, for the weighted worst case
    for key, (plan, size) in plans.items():
        objective = {START_KEY: "average", blocks.WEIGHTED_KEY: "worst", blocks.WINDOWS_KEY: "average",
                     blocks.BALL_KEY: "worst", blocks.SPARSE_KEY: "worst"}.get(key, key)
        if not plan.fits:
            continue
        try:
            if key == blocks.SPARSE_KEY:
                step, radius = size
                value = blocks.sparse_bound(prior, n, epsilon, step, radius).worst
                balls = "" if radius is None else f", each one's outputs within {radius} substitutions, the rest one group"
                how = (f"the sparse block (the LP relaxed to the data sets whose counts are multiples of {step} but "
                       f"the largest, pairs up to {step} substitutions apart{balls}; certified from its duals)")
            elif key == blocks.BALL_KEY:
                value = blocks.ball_bound(prior, n, epsilon, size)
                how = (f"the LP with every data set's outputs within {size} substitutions kept, the rest one group "
                       "(certified from its duals)")
            elif key == blocks.WEIGHTED_KEY:
                m, radius, flow_steps, steps = size
                value = blocks.weighted_bound(prior, n, epsilon, m, radius, flow_steps, steps, flow=kept.get("flow"))
                how = (f"a dual solution of the whole LP weighted by the minimax LP's multipliers at n = {m} carried to "
                       f"n and mixed with pi (started from its row multipliers carried the same way and {flow_steps} flow "
                       f"steps under pi, then {steps} evaluations of each window's LP "
                       f"within {radius} substitutions; weak duality: a worst case is at least any weighted average)")
            elif key == blocks.WINDOWS_KEY:
                radius, flow_steps, steps = size
                value = blocks.windows_bound(prior, n, epsilon, radius, flow_steps, steps, keep=kept)
                how = (f"a dual solution of the whole LP ({flow_steps} flow steps, then {steps} evaluations of each "
                       f"window's LP within {radius} substitutions of its output, the flows first; weak duality)")
            elif objective == "average" and len(size) == 3:  # plan_release's (radius, evaluations, most LPs)
                if errors is None:
                    continue
                radius, steps, most = size
                inner = None if baseline else blocks.release_inner(prior, n, radius, most)
                scales = blocks.release_scales(steps, blocks.release_capped(prior, n, most), worst,
                                               blocks.release_many(prior, n, most), baseline, inner is not None)
                value = blocks.release_bound(prior, n, epsilon, errors[1], radius=radius, steps=steps, scales=scales,
                                             most=most, inner=inner).average
                solved = "each window's LP" if most is None else f"the flows in each window, {most:,} windows' LPs"
                if inner is not None:
                    solved += f" over the offsets within {inner} (the ring past them folded inwards)"
                how = (f"a dual solution of the whole LP ({solved} solved within {radius} substitutions of "
                       f"its output, {steps} evaluation{'s' if steps != 1 else ''} started from the errors of {errors[0]}; "
                       "weak duality)")
            elif objective == "worst":
                value = blocks.corner_bound(prior, n, epsilon, size).worst
                how = (f"corner blocks of depth {size} (the LP relaxed to the data sets next to a vertex, "
                       "certified from its duals)")
                if size >= n and plan.route.startswith("the whole LP"):
                    how = ("the LP itself over all of R(n), one variable per orbit of the categories' permutations "
                           "that fix the prior (certified from its duals)")
            else:
                radius, steps, column_radius, column_steps = size
                flow = blocks.flow_bound(prior, n, epsilon, radius=radius, steps=steps)
                value = flow.average
                how = (f"a dual solution of the whole LP (flows within {radius} substitutions of each output, "
                       f"{steps} ascent steps; weak duality)")
                if column_steps:
                    try:
                        exact = blocks.column_bound(prior, n, epsilon, flow.mu, radius=column_radius,
                                                    steps=column_steps).average
                    except InputError:  # a column LP that fails leaves the flows' bound
                        exact = -math.inf
                    if exact > value:
                        value = exact
                        how = (f"a dual solution of the whole LP (flows within {radius} substitutions of each output, "
                               f"{steps} ascent steps, then {column_steps} steps with each window's LP solved "
                               f"within {column_radius}; weak duality)")
        except InputError:
            continue
        if np.isfinite(value) and (objective not in out or value > out[objective][0]):
            out[objective] = (float(value), how)
    return out


def yardstick(prior: ArrayLike, n: int, epsilon: float, lp_optima: dict[str, float] | None = None,
              blocks: dict[str, tuple[float, str]] | None = None) -> Yardstick:
    """The yardstick of ``compare`` (docs/definitions.md §9): per objective the largest of the certified lower
    bounds at hand: :func:`marginal_bound`, the LP's own optima (``lp_optima``: ``{"worst": ..., "average": ...}``,
    the certified ``lp_optimum`` of the ``optimal`` rows at k >= 3) and the block relaxations (``blocks``:
    :func:`block_bounds`).  Each is at or below the optimum, so the largest is too; and the worst case's bound is at
    least the average's (``max_c E(c) >= sum_c pi(c) E(c)`` for every release, so ``OPT_worst >= OPT_average``)."""
    base = marginal_bound(prior, n, epsilon)
    best = {"worst": (base.worst, base.worst_bound), "average": (base.average, base.average_bound)}
    for objective, (value, how) in (blocks or {}).items():
        if value > best[objective][0]:
            best[objective] = (value, how)
    for objective, value in (lp_optima or {}).items():
        if value is not None and float(value) >= best[objective][0]:
            best[objective] = (float(value), f"the LP optimum (optimal, {objective})")
    (worst, wb), (average, ab) = best["worst"], best["average"]
    if average > worst:  # every release's worst case is at least its average, so OPT_worst >= OPT_average
        worst, wb = average, f"the average's bound ({ab}), as no worst case is below its average"
    if not (np.isfinite(worst) and np.isfinite(average)):
        raise InputError("the yardstick is not finite")
    return Yardstick(worst, average, wb, ab)
