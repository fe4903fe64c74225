"""Experiments beyond the drafts: exact expected errors of every release over grids of n, eps and
prior strength (items `frontier`, `which-to-use` and `calibration`; docs/definitions.md, Expected
error, Calibration, `optimal`).

One job computes one mechanism (or variant, ``ehds~calibrated``, ``optimal~average``; see
:func:`dpposterior.paper.variants.variant`) at every point of one experiment with
:func:`dpposterior.accuracy.expected_errors`: the worst case over all data sets of size n and its
data set, and the average under the prior predictive.  Points beyond ``max_candidates`` are
skipped, except, up to ``local_max_candidates``, for a mechanism whose planned route there does not walk R(n)
(the lattice release's local search and corner remap, the translation releases: its plan, not the size of R(n),
says whether it runs; ``local_k`` and ``local_mechanisms``, when given, keep such points only at those k and for those
mechanisms: :func:`kept_past_rows`); a point the mechanism refuses for its size (e.g. the linear program of ``optimal``
beyond 260 outputs) is kept as a row with its ``status`` and no values.  With ``lp_oracle: true`` a
mechanism that has an independent oracle (:meth:`~dpposterior.mechanisms.Mechanism.oracle_value`: ``optimal``
at k = 2, the full linear program, wherever it runs) also records the oracle's value of its objective
(columns ``oracle``, ``oracle_objective``), so the item can check the geometric + remap release against it.
With ``calibrated_max_n``, a calibrated variant (``~calibrated``) above that n keeps a row whose status says so:
its calibration scans every adjacent pair some 20 times (about a minute at k = 2, n = 1e4), which the default
run leaves to ``workflow/large.yaml``.
With ``batched_search_max_n``, a point at k >= 4 whose planned route is the lattice release's batched local search
(``lattice~average``, ``optimal~average`` past its LP) is computed up to that n only and keeps a row whose status
says so above it (a budget of the job's time: the route admits k = 4 to n = 20 at eps = 1, seconds to a minute each).
A point that an experiment listed earlier in the config also computes for the same mechanism (the same public
inputs: prior, n, eps, delta, distance, measure) is taken from that experiment's grid (:func:`earlier_sources`,
:class:`SamePoints`), not computed twice.

:func:`ratios` puts every release's error over the optimum's (``optimal~worst`` for the worst case,
``optimal~average`` for the average): how far each release is from the best possible.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..accuracy import expected_errors
from ..distances import DEFAULT_DISTANCE
from ..errors import InputError, SizeError
from ..mechanisms import MECHANISMS, ReleaseSpec
from ..mechanisms.base import Family
from ..models import n_candidates
from .variants import parsed

#: ``which-to-use`` does not rank the optimum (family ``optimal``): it wins its own objective by construction
#: wherever it is the optimum.  The lattice release (family ``lattice``) has objectives too, but it is ranked: its
#: noise has a closed form (K-norm noise on the sum-zero lattice) and only its remap is solved for the objective,
#: as ``remapped-geometric``'s is, so whether it wins, and by how much, is informative (docs/lattice.md).
NOT_RANKED = tuple(m.id for m in MECHANISMS.values() if m.family == Family.OPTIMAL)
#: ...except at k = 2, where the lattice release *is* the optimum's release (``lattice~average`` equals
#: ``optimal~average``, and the minimax remap of the same kernel is ``optimal~worst``; docs/lattice.md): ranked at
#: k >= 3 only.
RANKED_FROM_K3 = tuple(m.id for m in MECHANISMS.values() if m.family == Family.LATTICE)
#: The optimum of each objective, as the config names it (``optimal~worst``, ``optimal~average``): the entry of
#: family ``optimal`` (the lattice entry also reads objectives, but it is not the optimum).
OPTIMUM = {str(o): f"{m.id}~{o}" for m in MECHANISMS.values() if m.family == Family.OPTIMAL for o in m.objectives}


def tailorings(mech, spec: dict) -> list[tuple[str | None, str]]:
    """The ``(distance, measure)`` pairs one job computes: every accuracy ``measures`` entry (default Hellinger)
    for each ``distances`` entry the mechanism is tailored to (its score, or ``optimal``'s loss; only for a
    registry entry that is :attr:`~dpposterior.mechanisms.Mechanism.tailored`, else one pass with ``distance``
    None)."""
    measures = list(spec.get("measures", [DEFAULT_DISTANCE]))
    distances = list(spec.get("distances", [DEFAULT_DISTANCE])) if mech.tailored else [None]
    return [(d, m) for d in distances for m in measures]


def same_release_source(name: str, mechanisms: list[str]) -> str | None:
    """The mechanism of ``mechanisms`` (one grid's list) whose grid may hold some of ``name``'s rows as the same
    release: the entry that ``name``'s entry names as :attr:`~dpposterior.mechanisms.Mechanism.releases_of`, with
    the same variant options (``optimal~worst`` -> ``lattice~worst``); None if there is none in the list."""
    v = parsed(name)
    other = v.entry.releases_of
    if other is None or v.calibrate:
        return None
    source = other + name[len(v.mechanism):]
    return source if source in mechanisms and source != name else None


class SameRelease:
    """Another grid's rows (one mechanism, :func:`same_release_source`), looked up by (prior, n, eps, measure):
    a row of the grid being built takes that grid's values where both releases have one
    :meth:`~dpposterior.mechanisms.Mechanism.release_key` (e.g. ``optimal~worst`` past its linear program, the
    lattice release): the same computation, so the same numbers, once.  Only computed rows ("ok"), under the
    default distance, are taken; refusals are worded per entry, so they are made again."""

    def __init__(self, df: pd.DataFrame, delta: float):
        self.name = str(df.mechanism.iloc[0]) if len(df) else ""
        self.delta = delta
        self.rows = {}
        for r in df.itertuples(index=False):
            if r.status == "ok" and r.distance in (None, DEFAULT_DISTANCE):
                self.rows[(tuple(float(x) for x in r.prior), int(r.n), float(r.epsilon), r.measure)] = r

    def values(self, release, prior: list[float], n: int, measure: str) -> dict | None:
        """The worst, worst_counts and average of ``release`` at (prior, n) under ``measure``, from the other grid,
        or None where they are not the same release (or the other grid has no computed row there)."""
        if release.distance != DEFAULT_DISTANCE:
            return None
        r = self.rows.get((tuple(prior), n, float(release.epsilon), measure))
        if r is None:
            return None
        key = release.mechanism.release_key(prior, n, release)
        source = ReleaseSpec.of(parsed(self.name), release.epsilon, self.delta)
        if key is None or key != source.mechanism.release_key(prior, n, source):
            return None
        return {"worst": float(r.worst), "worst_counts": [int(x) for x in r.worst_counts], "average": float(r.average)}


def kept_past_rows(spec: dict, k: int, name: str | None = None) -> bool:
    """Whether a point at ``k`` categories past ``max_candidates`` (and within ``local_max_candidates``) may be kept
    for the mechanism ``name`` (None: for some mechanism, as the yardstick asks): ``k`` in ``spec["local_k"]`` and
    ``name`` in ``spec["local_mechanisms"]``, each only where given (absent or None: every k, every mechanism).  The
    point is then computed if the mechanism's planned route there does not walk R(n) (:func:`_local`)."""
    ks, names = spec.get("local_k"), spec.get("local_mechanisms")
    return (ks is None or k in {int(x) for x in ks}) and (name is None or names is None or name in names)


def grid_points(name: str, spec: dict) -> set[tuple]:
    """The ``(prior, n, eps, distance, measure)`` points at which :func:`expected_error_grid` may give ``name`` a row
    (``|R(n)|`` within ``local_max_candidates`` or ``max_candidates``), priors as tuples of floats."""
    mech = parsed(name).entry
    rows_limit = int(spec["max_candidates"])
    limit = max(rows_limit, int(spec.get("local_max_candidates") or 0))
    return {(tuple(float(x) for x in prior), int(n), float(eps), dist, measure)
            for prior in spec["priors"] for n in spec["n"] if n_candidates(int(n), len(prior)) <= limit
            and (n_candidates(int(n), len(prior)) <= rows_limit or kept_past_rows(spec, len(prior), name))
            for eps in spec["epsilon"] for dist, measure in tailorings(mech, spec)}


def earlier_sources(name: str, experiment: str, specs: dict[str, dict]) -> list[str]:
    """The experiments before ``experiment`` in ``specs`` (experiment -> its spec with its ``mechanisms``, in config
    order) whose grid of the mechanism ``name`` shares a point (:func:`grid_points`) with this experiment's, at the
    same ``delta``: their rows at those points are this grid's (the same mechanism at the same public inputs, the
    same computation), taken by :class:`SamePoints`.  Only earlier experiments, so no two jobs wait on each other."""
    mine = specs[experiment]
    out = []
    for other, spec in specs.items():
        if other == experiment:
            break
        if name in spec.get("mechanisms", []) and float(spec["delta"]) == float(mine["delta"]) and \
                grid_points(name, spec) & grid_points(name, mine):
            out.append(other)
    return out


class SamePoints:
    """Grids of the same mechanism from other experiments (:func:`earlier_sources`), looked up by (prior, n, eps,
    distance, measure): a row computed there ("ok") is this grid's row, the same computation at the same public
    inputs, so the same numbers (its calibration's ``kappa`` and certified eps too).  Refusals are not taken: they
    are made again under this grid's settings."""

    def __init__(self, frames: list[pd.DataFrame]):
        self.rows = {}
        for df in frames:
            for r in df.itertuples(index=False):
                if r.status == "ok":
                    key = (tuple(float(x) for x in r.prior), int(r.n), float(r.epsilon), r.distance, r.measure)
                    self.rows.setdefault(key, r)

    def values(self, prior: list[float], n: int, eps: float, dist: str | None, measure: str) -> dict | None:
        """The worst, worst_counts, average, kappa and certified eps at the point (and ``is_optimum``, where the grid
        has the column: whether the same release is the optimum's, e.g. ``optimal`` at k >= 3 by its LP, decided
        there by solving it), or None if no grid computed it."""
        r = self.rows.get((tuple(prior), n, float(eps), dist, measure))
        if r is None:
            return None
        out = {"worst": float(r.worst), "worst_counts": [int(x) for x in r.worst_counts], "average": float(r.average),
               "kappa": float(r.kappa), "certified_epsilon": float(r.certified_epsilon)}
        if hasattr(r, "is_optimum"):
            out["is_optimum"] = bool(r.is_optimum)
        return out


def expected_error_grid(name: str, spec: dict, same: pd.DataFrame | None = None,
                        earlier: list[pd.DataFrame] | None = None) -> pd.DataFrame:
    """Rows per (prior, n, eps, distance, measure): worst, worst_counts, average, kappa, certified eps, status;
    with ``spec["lp_oracle"]``, the oracle's value of the mechanism's objective where it has one (module
    docstring).  ``distance``: the distance the mechanism is tailored to (None for one that reads none);
    ``measure``: the distance the error is measured by (:func:`tailorings`).  ``same``: the grid of
    :func:`same_release_source` (same spec), whose rows of the same release are taken, not computed again
    (:class:`SameRelease`); ``earlier``: the grids of ``name`` in the experiments of :func:`earlier_sources`, whose
    rows at this grid's points are taken (:class:`SamePoints`)."""
    v = parsed(name)
    mech = v.entry
    borrow = SameRelease(same, float(spec["delta"])) if same is not None else None
    points = SamePoints(earlier) if earlier else None
    rows_limit = int(spec["max_candidates"])  # past it, only a point whose planned route is local is kept ...
    local_limit = max(rows_limit, int(spec.get("local_max_candidates") or 0))  # ... and only up to this
    rows = []
    for prior in spec["priors"]:
        prior = [float(x) for x in prior]
        k = len(prior)
        for n in spec["n"]:
            size = n_candidates(int(n), k)
            if size > local_limit:
                continue
            for eps in spec["epsilon"]:
                claim = v.claimed(float(eps), float(spec["delta"]))
                for dist, measure in tailorings(mech, spec):
                    if size > rows_limit and not (kept_past_rows(spec, k, name)
                                                  and _local(v, spec, prior, int(n), float(eps), dist, measure)):
                        continue
                    rows.append(_grid_row(name, v, claim, spec, prior, int(n), float(eps), dist, measure, borrow,
                                          points))
    return pd.DataFrame(rows)


def _local(v, spec: dict, prior: list[float], n: int, eps: float, dist, measure: str) -> bool:
    """Whether the variant's planned route for its errors at this point does not walk R(n) (a point past
    ``max_candidates`` is then computed or refused by its own plan); a variant that refuses the point's settings
    outright is not local."""
    from ..limits import Task
    from ..mechanisms.base import ROWS_ROUTES

    try:
        release = ReleaseSpec.of(v, eps, float(spec["delta"]), distance=dist or DEFAULT_DISTANCE)
        plan = release.mechanism.plan(Task.ERRORS, release, np.asarray(prior, dtype=np.float64), n, measure=measure)
    except InputError:  # a size or setting the entry refuses before planning
        return False
    return plan.route not in ROWS_ROUTES


def _grid_row(name, v, claim, spec, prior, n, eps, dist, measure, borrow=None, points=None) -> dict:
    """One row of :func:`expected_error_grid`: the variant ``v`` at (prior, n, eps) under ``dist`` (None: the
    default), its error measured by ``measure`` (taken from ``points``, a :class:`SamePoints`, or from ``borrow``, a
    :class:`SameRelease`, where it has it)."""
    row = {"mechanism": name, "base": v.mechanism, "family": str(v.entry.family), "private": claim[0] is not None,
           "pure_dp": claim == (eps, 0.0), "prior": prior, "prior_strength": prior[0], "k": len(prior), "n": n,
           "epsilon": eps, "distance": dist, "measure": measure,
           "worst": np.nan, "worst_counts": None, "average": np.nan, "kappa": np.nan,
           "certified_epsilon": np.nan, "oracle": np.nan, "oracle_objective": None, "is_optimum": False,
           "status": "ok"}
    cap = spec.get("calibrated_max_n")
    if v.calibrate and cap is not None and n > int(cap):
        row["status"] = f"not computed: a calibrated variant above calibrated_max_n = {int(cap)} (config)"
        return row
    release = ReleaseSpec.of(v, eps, float(spec["delta"]), distance=dist or DEFAULT_DISTANCE)
    cap = spec.get("batched_search_max_n")
    if cap is not None and n > int(cap) and len(prior) >= 4:
        from ..limits import Task

        try:
            plan = release.mechanism.plan(Task.ERRORS, release, np.asarray(prior, dtype=np.float64), n, measure=measure)
        except (InputError, SizeError):  # refused before planning: as the row would say
            plan = None
        if plan is not None and plan.route == "batched local search":
            row["status"] = (f"not computed: its route, the batched local search (planned {plan.seconds:.3g} s), runs "
                             f"up to n = {int(cap)} in this grid (batched_search_max_n, config)")
            return row
    taken = points.values(prior, n, eps, dist, measure) if points is not None else None
    if taken is None and borrow is not None:
        taken = borrow.values(release, prior, n, measure)
    if taken is not None:
        row.update(taken)
        e = None
    else:
        try:
            e = expected_errors(release, prior, n, measure=measure)
        except SizeError as exc:
            row["status"] = str(exc)
            return row
        row.update(worst=e.worst, worst_counts=list(e.worst_counts), average=e.average)
    if "is_optimum" not in (taken or {}):  # a row taken from an earlier grid of this mechanism brings its own
        row["is_optimum"] = _is_optimum(name, release, prior, n)
    if e is not None and e.calibration is not None:
        row.update(kappa=e.calibration.factor, certified_epsilon=e.calibration.concrete_epsilon)
    if spec.get("lp_oracle", False) and dist in (None, DEFAULT_DISTANCE) and measure == DEFAULT_DISTANCE:
        got = release.mechanism.oracle_value(prior, n, release)
        if got is not None:
            row.update(oracle=got["value"], oracle_objective=got["objective"])
    return row


def _is_optimum(name: str, release, prior, n: int) -> bool:
    """Whether the row's values are the optimum of the objective: the optimum's entry (:data:`OPTIMUM`), except at
    k >= 3 where it runs the lattice release or the LP over a coarser lattice instead of its linear program (past the
    LP's budgets; the entry says which, ``is_optimum``): those values are the best release there is, not a certified
    optimum."""
    if name not in OPTIMUM.values():
        return False
    is_optimum = getattr(release.mechanism, "is_optimum", None)
    return is_optimum is None or bool(is_optimum(prior, n, release))


def _optimum_rows(df: pd.DataFrame, objective: str) -> pd.DataFrame:
    """The rows of ``df`` that hold the optimum of ``objective`` (a grid written before the ``is_optimum`` column:
    every row of the optimum's entry)."""
    s = df[(df.mechanism == OPTIMUM[objective]) & df[objective].notna()]
    return s[s.is_optimum.astype(bool)] if "is_optimum" in s else s


#: Two releases whose errors agree to this relative tolerance are one release in a which-to-use cell (``lszhang`` and
#: ``lshist`` at k >= 3, ``lszhang`` and ``lsdim`` at k = 2, the calibrated ``ehds`` and ``mh``): the winner's twin,
#: not its runner-up.
SAME_RTOL = 1e-9


def winners(df: pd.DataFrame, objective: str) -> pd.DataFrame:
    """Per (k, prior strength, n, eps): the pure eps-DP release (the lattice release at k >= 3 only:
    :data:`RANKED_FROM_K3`) (claimed or certified; ``mh`` claims only 2 eps and
    ``mh-delta`` (eps, delta), so neither is ranked) with the smallest ``objective`` error
    (``worst`` or ``average``), the releases with the same error (``same``, comma-separated, or None: within
    :data:`SAME_RTOL`, the same release under another name), the runner-up (the best release with a larger
    error), and their ratio; ``optimum`` (the optimum's error when the grid has
    it, else NaN: at k >= 3 past the linear program's budgets) and ``to_optimum``, the winner's error over it."""
    d = df[df.pure_dp & ~df.base.isin(NOT_RANKED) & df[objective].notna()
           & ~(df.base.isin(RANKED_FROM_K3) & (df.k < 3))]
    best = _optimum_rows(df, objective).groupby(["k", "prior_strength", "n", "epsilon"])[objective].first()
    out = []
    for (k, a, n, eps), g in d.groupby(["k", "prior_strength", "n", "epsilon"], sort=True):
        g = g.sort_values(objective, kind="stable")
        top = g[objective].iloc[0]
        same = g.iloc[1:][np.isclose(g[objective].iloc[1:], top, rtol=SAME_RTOL, atol=0.0)]
        rest = g.iloc[1 + len(same):]
        optimum = float(best.get((k, a, n, eps), np.nan))
        out.append({"k": k, "prior_strength": a, "n": n, "epsilon": eps, "winner": g.mechanism.iloc[0],
                    "same": ", ".join(same.mechanism) or None, "error": top,
                    "runner_up": rest.mechanism.iloc[0] if len(rest) else None,
                    "ratio": rest[objective].iloc[0] / top if len(rest) else np.nan,
                    "optimum": optimum, "to_optimum": top / optimum if optimum > 0 else np.nan})
    return pd.DataFrame(out)



def ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Every release's exact expected error over the optimum's, per (k, prior strength, n, eps) and objective:
    long rows ``mechanism, pure_dp, objective, error, optimum, ratio`` (for a pure eps-DP release, ratio >= 1 up
    to the optimum's certificate; ``mh`` (2 eps), ``mh-delta`` and the non-private ``ehdl`` may go below;
    docs/definitions.md §9-§10).  Points where the optimum was not computed (the k >= 3 linear program past its
    budgets, where ``optimal`` runs the lattice release: ``is_optimum`` False) have no row; the optima themselves
    are left out."""
    ok = df[df.status == "ok"]
    keys = ["k", "prior_strength", "n", "epsilon"]
    out = []
    for objective in OPTIMUM:
        opt = _optimum_rows(ok, objective).set_index(keys)[objective]
        others = ok[~ok.mechanism.isin(OPTIMUM.values()) & ok[objective].notna()]
        if not len(opt) or not len(others):
            continue
        m = others.join(opt.rename("optimum"), on=keys, how="inner")
        m = m[m.optimum > 0]
        out.append(pd.DataFrame({"mechanism": m.mechanism, "pure_dp": m.pure_dp, "k": m.k,
                                 "prior_strength": m.prior_strength, "n": m.n,
                                 "epsilon": m.epsilon, "objective": objective, "error": m[objective],
                                 "optimum": m.optimum, "ratio": m[objective] / m.optimum}))
    cols = ["mechanism", "pure_dp", "k", "prior_strength", "n", "epsilon", "objective", "error", "optimum", "ratio"]
    return (pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=cols))[cols]


# --- the yardstick: a certified lower bound on the optimum at every k >= 3 point of a grid -------------------

def yardstick_points(spec: dict) -> list[tuple[list[float], int, float]]:
    """The ``(prior, n, eps)`` points of :func:`expected_error_grid`'s ``spec`` with k >= 3 that can have a row
    (``|R(n)|`` at most ``local_max_candidates`` or ``max_candidates``), in grid order."""
    rows_limit = int(spec["max_candidates"])
    limit = max(rows_limit, int(spec.get("local_max_candidates") or 0))
    return [([float(x) for x in prior], int(n), float(eps)) for prior in spec["priors"] if len(prior) >= 3
            for n in spec["n"] if n_candidates(int(n), len(prior)) <= limit
            and (n_candidates(int(n), len(prior)) <= rows_limit or kept_past_rows(spec, len(prior)))
            for eps in spec["epsilon"]]


#: The yardstick table's ``route`` where the optimum's linear program is the planned route (``lp_optimum: true``): no
#: block relaxation runs there, and :func:`brackets` takes the LP's optimum from the grid as the point's bound.
LP_ROUTE = "the LP's optimum (from the grid)"


def lp_planned(prior: list[float], n: int, eps: float, objective: str) -> bool:
    """Whether the optimum's entry (:data:`OPTIMUM`) plans its linear program at this k >= 3 point for ``objective``,
    from public inputs alone (:meth:`~dpposterior.mechanisms.optimal.OptimalMechanism.lp_planned`: no solve; by
    orbits at k = 4 and a symmetric prior)."""
    v = parsed(OPTIMUM[objective])
    try:
        release = ReleaseSpec.of(v, eps)
    except InputError:  # a setting the entry refuses (eps past its limit): no LP, the block relaxation's turn
        return False
    return len(prior) >= 3 and v.entry.lp_planned(n, len(prior), release, prior)


def yardstick_grid(spec: dict) -> pd.DataFrame:
    """Rows per k >= 3 point of the grid (:func:`yardstick_points`) and objective (``worst``, ``average``): ``bound``,
    a certified lower bound on the best achievable error there (docs/definitions.md §9;
    :func:`dpposterior.yardstick.yardstick`: the largest of the one-count bound and the block relaxation of the
    objective, each proven at or below the optimum, docs/lattice.md "A yardstick at any n"), ``how`` (which bound,
    in words), the block relaxation's plan (``route``, ``plan_seconds``) and ``status``.

    ``spec["yardstick"]`` holds the settings: ``seconds``, each objective's share for its block relaxation
    (:func:`dpposterior.yardstick.plan_blocks`: corner blocks for the worst case, dual flows for the average, the
    deepest / widest that fits), ``average_seconds``, the average's share where it differs (the dual flows cost
    most: the corner blocks' share then stays what the worst case needs), ``max_candidates``, the largest ``|R(n)|``
    computed, and ``lp_optimum``: when true,
    an objective whose optimum is the linear program by its plan (:func:`lp_planned`) runs no block relaxation: its
    row has route :data:`LP_ROUTE` and no bound here, and :func:`brackets` takes the LP's optimum from the grid (the
    optimum itself, at no cost).  A point past ``max_candidates``, or whose block plan is refused (its share,
    ``DPPOSTERIOR_MAX_SOLVE_SECONDS``, memory), or whose one-count bound is refused for its size, keeps a row with
    that ``status`` and no bound: the looser one-count bound alone is not recorded as the point's yardstick."""
    from ..yardstick import block_bounds, plan_blocks, yardstick

    settings = spec.get("yardstick") or {}
    share = float(settings.get("seconds", 20.0))
    average_share = float(settings.get("average_seconds", share))
    cap = settings.get("max_candidates")
    by_lp = bool(settings.get("lp_optimum", False))
    rows = []
    for prior, n, eps in yardstick_points(spec):
        k = len(prior)
        base = {"prior": prior, "prior_strength": prior[0], "k": k, "n": n, "epsilon": eps}
        out = {o: {"bound": np.nan, "how": None, "route": None, "plan_seconds": np.nan, "status": "ok"}
               for o in OPTIMUM}
        if cap is not None and n_candidates(n, k) > int(cap):
            for r in out.values():
                r["status"] = (f"not computed: |R(n)| = {n_candidates(n, k)} over yardstick.max_candidates = "
                               f"{int(cap)} (config)")
        else:
            lp = {o for o in OPTIMUM if by_lp and lp_planned(prior, n, eps, o)}
            for o in lp:
                out[o].update(route=LP_ROUTE, plan_seconds=0.0, how=f"the LP's optimum ({OPTIMUM[o]}, computed)")
            rest = {o: r for o, r in out.items() if o not in lp}
            plans = plan_blocks(prior, n, eps, share) if rest else {}
            if "average" in rest and average_share != share:
                plans["average"] = plan_blocks(prior, n, eps, average_share)["average"]
            plans = {o: p for o, p in plans.items() if o in rest}
            for o, (plan, _) in plans.items():
                out[o].update(route=plan.route, plan_seconds=float(plan.seconds), status=plan.refused() or "ok")
            blocks = block_bounds(prior, n, eps, plans)
            try:
                y = yardstick(prior, n, eps, None, blocks) if rest else None
            except InputError as exc:  # the one-count bound's k = 2 solves refused for their size
                y = None
                for r in rest.values():
                    r["status"] = " ".join(str(exc).split())
            for o, r in rest.items():
                if y is None or r["status"] != "ok":
                    continue
                if o not in blocks:  # the block LP failed (HiGHS's status): only the loose one-count bound is at hand
                    r["status"] = f"no block bound: its solve failed at k={k}, n={n}, eps={eps:g}"
                else:
                    r.update(bound=float(getattr(y, o)), how=getattr(y, f"{o}_bound"))
        rows += [dict(base, objective=o, **r) for o, r in out.items()]
    return pd.DataFrame(rows, columns=["prior", "prior_strength", "k", "n", "epsilon", "objective", "bound", "how",
                                       "route", "plan_seconds", "status"])


def brackets(df: pd.DataFrame, yard: pd.DataFrame) -> pd.DataFrame:
    """Per k >= 3 point and objective of ``yard`` (:func:`yardstick_grid`): the bracket of the optimum, ``bound <=
    optimum <= best``, where ``best`` is the smallest error of ``objective`` among the pure eps-DP releases of ``df``
    (:func:`expected_error_grid` rows, ``status`` "ok"; ``best_mechanism`` names it), ``ratio = best / bound``, and
    ``below``: whether the bound is at or below *every* such release's error there (it must be: a certified bound
    above a release's exact error is a bug, and :func:`~dpposterior.paper.claims.bracket` says so).  ``releases``:
    how many releases were compared; ``lowest``: the release with the smallest error (the one a bound above it
    would contradict).  Rows of ``yard`` without a bound keep ``bound`` NaN and their ``status``.  A row whose
    ``route`` is :data:`LP_ROUTE` takes as its bound the optimum of ``df`` there (the optimum's row computed by its
    linear program, ``is_optimum``: the bracket closes, ``ratio`` 1, and every release is checked against it); where
    the grid has none (the LP's solver failed and ``optimal`` ran the lattice release, or its row was refused), no
    bound, and the status says why."""
    cols = ["k", "prior_strength", "n", "epsilon", "objective", "bound", "how", "status", "best", "best_mechanism",
            "ratio", "below", "releases"]
    if yard is None or not len(yard):
        return pd.DataFrame(columns=cols)
    ok = df[(df.status == "ok") & df.pure_dp.astype(bool)]
    out = []
    for r in yard.itertuples(index=False):
        s = ok[(ok.k == r.k) & (ok.prior_strength == r.prior_strength) & (ok.n == r.n) & (ok.epsilon == r.epsilon)
               & ok[r.objective].notna()]
        bound, status = r.bound, r.status
        if getattr(r, "route", None) == LP_ROUTE:
            bound, status = _lp_bound(df, r)
        row = {"k": int(r.k), "prior_strength": r.prior_strength, "n": int(r.n), "epsilon": r.epsilon,
               "objective": r.objective, "bound": bound, "how": r.how, "status": status, "best": np.nan,
               "best_mechanism": None, "ratio": np.nan, "below": None, "releases": len(s)}
        if len(s):
            i = s[r.objective].to_numpy(float).argmin()
            row.update(best=float(s[r.objective].iloc[i]), best_mechanism=s.mechanism.iloc[i])
            if np.isfinite(bound):
                row.update(ratio=row["best"] / bound if bound > 0 else np.inf,
                           below=bool((bound <= s[r.objective].to_numpy(float)).all()))
        out.append(row)
    return pd.DataFrame(out, columns=cols)


def _lp_bound(df: pd.DataFrame, r) -> tuple[float, str]:
    """``(bound, status)`` of a yardstick row ``r`` whose route is :data:`LP_ROUTE`: the optimum's error of ``df`` at
    its point (:func:`_optimum_rows`), or NaN and why there is none."""
    name = OPTIMUM[r.objective]
    at = df[(df.mechanism == name) & (df.k == r.k) & (df.prior_strength == r.prior_strength) & (df.n == r.n)
            & (df.epsilon == r.epsilon)]
    opt = _optimum_rows(at[at.status == "ok"], r.objective)
    if len(opt):
        return float(opt[r.objective].iloc[0]), r.status
    if not len(at):
        return np.nan, f"no {name} row in the grid: its LP optimum is the bound here"
    if (at.status == "ok").any():
        return np.nan, (f"{name}'s linear program was planned but its solver did not reach the optimum (the lattice "
                         "release ran)")
    return np.nan, f"{name} not computed: {at.status.iloc[0]}"
