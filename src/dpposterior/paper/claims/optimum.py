"""Claim kinds of the expected-error items (templates ``frontier`` and ``which_to_use``) at k >= 3: how close a release
comes to the optimum where the optimum is certified, and whether one release beats another at every point
(docs/definitions.md §9-§10, docs/lattice.md).  The context of these kinds is the item's expected-error grid
(:func:`dpposterior.paper.beyond.expected_error_grid` rows), or an :class:`Errors` holding it with the entry's
yardstick table (:func:`dpposterior.paper.beyond.yardstick_grid`); exact values, so the tolerances are stated in the
rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import verdicts as V
from ..beyond import brackets, ratios
from .registry import Mechanism, NonNegative, kind

TEMPLATES = ("frontier", "which_to_use")
_WORDS = (V.REPRODUCED, V.PARTLY, V.NOT_REPRODUCED, V.CANNOT_CHECK)
_OBJECTIVE = ("worst", "average")


@dataclass(frozen=True)
class Errors:
    """The context of these kinds: the item's expected-error grid and, where its source entry has ``yardstick:``
    settings, the yardstick table (else None)."""

    grid: pd.DataFrame
    yardstick: pd.DataFrame | None = None


def _grid(ctx) -> pd.DataFrame:
    return ctx.grid if isinstance(ctx, Errors) else ctx


def _cannot(cl: dict, rule: str, why: str) -> V.Verdict:
    return V.Verdict(cl["text"], "", why, rule, "", V.CANNOT_CHECK)


@kind("near-optimum", templates=TEMPLATES, verdicts=_WORDS,
      required={"mechanism": Mechanism, "objective": _OBJECTIVE, "tolerance": NonNegative}, optional={"k_min": int})
def near_optimum(cl: dict, ctx: pd.DataFrame) -> list[V.Verdict]:
    """``mechanism``'s ``objective`` error is at most ``1 + tolerance`` times the optimum's at every point (k >=
    ``k_min``, default 3) where the optimum is certified: the linear program's at k >= 3, where it runs within its
    budgets (:func:`dpposterior.paper.beyond.ratios`; points beyond it have no optimum and are not judged)."""
    k_min, tol, objective = int(cl.get("k_min", 3)), float(cl["tolerance"]), cl["objective"]
    rule = f"error / optimum <= 1 + tolerance at every point with k >= {k_min} where the optimum ran (exact values)"
    r = ratios(_grid(ctx))
    s = r[(r.mechanism == cl["mechanism"]) & (r.objective == objective) & (r.k >= k_min)]
    if not len(s):
        return [_cannot(cl, rule, f"no point with k >= {k_min} has both {cl['mechanism']} and the optimum")]
    worst = s.loc[s.ratio.idxmax()]
    return [V.Verdict(
        cl["text"], f"{cl['mechanism']} within {100 * tol:g} % of the {objective}-error optimum",
        f"{cl['mechanism']} / optimum from {s.ratio.min():.4f} to {s.ratio.max():.4f} over {len(s)} points (largest at "
        f"k = {int(worst.k)}, n = {int(worst.n)}, eps = {worst.epsilon:g})",
        rule, f"relative {tol:g}", V.tally(s.ratio <= 1 + tol))]


@kind("beats-everywhere", templates=TEMPLATES, verdicts=_WORDS,
      required={"better": Mechanism, "worse": Mechanism, "objective": _OBJECTIVE}, optional={"k_min": int})
def beats_everywhere(cl: dict, ctx: pd.DataFrame) -> list[V.Verdict]:
    """``better``'s ``objective`` error is below ``worse``'s at every point (k >= ``k_min``, default 3) where both
    were computed (exact values, no tolerance)."""
    k_min, objective = int(cl.get("k_min", 3)), cl["objective"]
    rule = f"{cl['better']} < {cl['worse']} at every point with k >= {k_min} where both ran (exact values)"
    ctx = _grid(ctx)
    ok = ctx[(ctx.status == "ok") & (ctx.k >= k_min) & ctx[objective].notna()]
    keys = ["k", "prior_strength", "n", "epsilon"]
    b = ok[ok.mechanism == cl["better"]].set_index(keys)[objective]
    w = ok[ok.mechanism == cl["worse"]].set_index(keys)[objective]
    idx = b.index.intersection(w.index)
    if not len(idx):
        return [_cannot(cl, rule, f"no point with k >= {k_min} has both {cl['better']} and {cl['worse']}")]
    ratio = (w[idx] / b[idx]).to_numpy(float)
    hold = (b[idx] < w[idx]).to_numpy(bool)
    ks = ", ".join(str(int(k)) for k in sorted({i[0] for i in idx}))
    return [V.Verdict(
        cl["text"], f"{cl['better']} < {cl['worse']} ({objective} error)",
        f"{cl['worse']} / {cl['better']} from {np.min(ratio):.3f} to {np.max(ratio):.3f}; {cl['better']} smaller at "
        f"{int(hold.sum())} of {len(idx)} points (k = {ks})",
        rule, "exact (no tolerance)", V.tally(hold))]


@kind("bracket", templates=TEMPLATES, verdicts=_WORDS, required={"tolerance": NonNegative},
      optional={"objective": _OBJECTIVE, "k": int, "k_min": int})
def bracket(cl: dict, ctx) -> list[V.Verdict]:
    """At every k >= ``k_min`` (default 3) point of the yardstick table (only ``k`` if given) and objective (only
    ``objective`` if given), one row: the optimum lies in ``[bound, best]`` (:func:`dpposterior.paper.beyond.brackets`:
    the certified lower bound, the best pure eps-DP release of the grid there), and the bracket holds when the bound
    is at or below every release's exact error (a bound above one is a bug of the bound, reported, never hidden) and
    ``best / bound <= 1 + tolerance``.  A point without a bound (its plan refused, past the config's cap) or
    without a release is CANNOT CHECK, with its reason."""
    k_min, tol = int(cl.get("k_min", 3)), float(cl["tolerance"])
    rule = "bound <= every pure eps-DP release's error and best / bound <= 1 + tolerance (exact errors, certified bound)"
    yard = ctx.yardstick if isinstance(ctx, Errors) else None
    if yard is None or not len(yard):
        return [_cannot(cl, rule, "no yardstick table: the source entry has no yardstick settings")]
    b = brackets(_grid(ctx), yard)
    b = b[(b.k >= k_min) & ((b.k == int(cl["k"])) if "k" in cl else True)
          & ((b.objective == cl["objective"]) if "objective" in cl else True)]
    if not len(b):
        return [_cannot(cl, rule, f"no point of the yardstick table with k >= {k_min}" + (
            f", k = {cl['k']}" if "k" in cl else "") + (f", {cl['objective']}" if "objective" in cl else ""))]
    out = []
    for r in b.itertuples(index=False):
        how = str(r.how).split(" (")[0]  # which bound, in a few words
        where = f"{cl['text']} (k = {r.k}, n = {r.n}, eps = {r.epsilon:g}, {r.objective})"
        expected = f"best release / certified bound <= {1 + tol:g} ({r.objective} error)"
        if not np.isfinite(r.bound):
            out.append(V.Verdict(where, expected, f"no bound: {r.status}", rule, f"relative {tol:g}", V.CANNOT_CHECK))
        elif not r.releases:
            out.append(V.Verdict(where, expected, f"bound {r.bound:.4f}; no pure eps-DP release computed here", rule,
                                 f"relative {tol:g}", V.CANNOT_CHECK))
        elif not r.below:
            out.append(V.Verdict(where, expected, f"bound {r.bound:.6g} is ABOVE the exact error of {r.best_mechanism} "
                                 f"({r.best:.6g}): a certified bound above a release is a bug ({how})", rule,
                                 f"relative {tol:g}", V.NOT_REPRODUCED))
        else:
            out.append(V.Verdict(where, expected, f"{r.best_mechanism} {r.best:.4f} / bound {r.bound:.4f} = "
                                 f"{r.ratio:.3f}; bound below all {r.releases} releases ({how})", rule,
                                 f"relative {tol:g}", V.tally([r.ratio <= 1 + tol])))
    return out
