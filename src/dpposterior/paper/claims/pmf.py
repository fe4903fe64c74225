"""The claim kinds of the exact output distributions (templates ``candidate_pmf`` and ``draft_checks``), judged
on the exact candidate probabilities and tails of the item's mechanisms; a claim naming a mechanism the item
does not have gives no row."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import verdicts as V
from .registry import Mechanism, NonNegative, Probability, judge, kind

#: The templates whose items judge these kinds.
TEMPLATES = ("candidate_pmf", "draft_checks")


#: Large-n limits of P(release = BI(c)) at k = 2, shown beside a recorded value (claim kind `recorded`).
LIMITS = {"tanh(eps/4)": lambda eps: float(np.tanh(eps / 4)), "(1 - e^-eps)/2": lambda eps: float((1 - np.exp(-eps)) / 2)}


def tail_bound(text: str, t: pd.DataFrame, h_max: float = 1.0) -> V.Verdict:
    """arXiv draft §6.2's tail bound P(H >= t) <= |R| exp(-eps t / (2 S)) on the exact tail (rows t, tail_prob,
    bound). It holds for every exponential-mechanism pmf (the normaliser is >= 1: BI(c) has weight 1), so a pass
    is BY CONSTRUCTION; where the bound is >= 1 at every t <= max H it is VACUOUS; a failure (an unnormalised
    pmf) is NOT REPRODUCED."""
    r = V.bound_holds(text, t.tail_prob, t.bound, what="exact tail / bound", draft="bound holds at every t")
    useful = t.t[(t.bound < 1) & (t.t <= h_max)]
    if r.verdict != V.REPRODUCED:
        r.verdict = V.NOT_REPRODUCED
        return r
    if len(useful):
        r.computed += f"; the bound is below 1 only for t > {useful.min():.3g}"
        r.verdict = V.BY_CONSTRUCTION
        r.rule += "; holds for every exponential mechanism (normaliser >= 1), so a pass is by construction"
    else:
        r.computed += f"; the bound is >= 1 at every t <= {h_max:g} (H <= 1): it says nothing here"
        r.verdict = V.VACUOUS
        r.rule += "; VACUOUS when the bound is >= 1 at every t up to max H"
    return r


def recorded(text: str, pmf_df: pd.DataFrame, cl: dict) -> V.Verdict:
    """A recorded value of P(release = BI(c)) (from the authors' code, not in the drafts) against the pipeline's
    exact pmf at the item's data (H = 0 is BI(c)); the large-n limit is shown as information."""
    s = pmf_df[pmf_df.mechanism == cl["mechanism"]]
    eps = float(s.epsilon.iloc[0])
    n = int(sum(s.counts.iloc[0]))
    p0 = float(s.prob[s.H <= 1e-12].sum())
    atol = float(cl["atol"])
    ok = abs(p0 - float(cl["value"])) <= atol
    lim = f"; large-n limit {cl['limit']} = {LIMITS[cl['limit']](eps):.5f}" if cl.get("limit") in LIMITS else ""
    src = cl.get("source", "authors' code")
    c = ",".join(str(int(v)) for v in s.counts.iloc[0])
    return V.Verdict(text, f"{cl['mechanism']}: {float(cl['value']):g} ({src}, not in the drafts)",
                     f"exact P(release = BI(c)) = {p0:.5f} at n = {n}, c = ({c}), eps = {eps:g}{lim}",
                     "the recorded value against the pipeline's exact pmf", f"absolute {atol:g}",
                     V.REPRODUCED if ok else V.NOT_REPRODUCED)


def distinct_labels(name: str, values, digits: int = 3) -> list[str]:
    """``name=value`` labels with at least ``digits`` significant digits and as many more as it takes for distinct
    values to read differently (two distances 0.08557 and 0.08563 are ``t=0.08557`` and ``t=0.08563``, not twice
    ``t=0.0856``)."""
    vals = [float(v) for v in values]
    for d in range(digits, 17):
        labels = [f"{name}={v:.{d}g}" for v in vals]
        if len(set(labels)) == len(set(vals)):
            return labels
    return [f"{name}={v!r}" for v in vals]


@dataclass
class Context:
    """What the pmf kinds' rules read: the exact pmf and tails, and the ``levels`` smallest distances H."""

    pmf: pd.DataFrame
    tails: pd.DataFrame
    levels: int = 4

    def __post_init__(self):
        self.mechanisms = list(dict.fromkeys(self.pmf.mechanism))
        self.hs = sorted(self.pmf.H.round(12).unique())[: self.levels]

    def within(self, m: str, t: float) -> float:
        s = self.pmf[self.pmf.mechanism == m]
        return float(s.prob[s.H <= t + 1e-12].sum())


@kind("more-mass-near-truth", templates=TEMPLATES, verdicts=(V.REPRODUCED, V.PARTLY, V.NOT_REPRODUCED),
      required={"better": Mechanism, "worse": Mechanism})
def _more_mass(cl: dict, ctx: Context) -> list[V.Verdict]:
    """``better`` puts more mass than ``worse`` within H <= t at each of the ``levels`` smallest t."""
    b, w, hs = cl["better"], cl["worse"], ctx.hs
    if b not in ctx.mechanisms or w not in ctx.mechanisms:
        return []
    return [V.ordering(cl["text"], distinct_labels("t", hs), [ctx.within(b, t) for t in hs],
                       [ctx.within(w, t) for t in hs], [1] * len(hs),
                       draft=f"P_{b}(H<=t) > P_{w}(H<=t) at the {len(hs)} smallest t", names=(b, w))]


@kind("tail-bound", templates=TEMPLATES, verdicts=(V.BY_CONSTRUCTION, V.VACUOUS, V.NOT_REPRODUCED),
      required={"mechanism": Mechanism})
def _tail_bound(cl: dict, ctx: Context) -> list[V.Verdict]:
    """The exact tail of ``mechanism`` against the arXiv draft's §6.2 bound (:func:`tail_bound`)."""
    t = ctx.tails[ctx.tails.mechanism == cl["mechanism"]]
    return [tail_bound(cl["text"], t, float(ctx.pmf.H.max()))] if len(t) else []


@kind("recorded", templates=TEMPLATES, verdicts=(V.REPRODUCED, V.NOT_REPRODUCED),
      required={"mechanism": Mechanism, "value": Probability, "atol": NonNegative},
      optional={"limit": tuple(LIMITS), "source": str})
def _recorded(cl: dict, ctx: Context) -> list[V.Verdict]:
    """A recorded ``value`` of P(release = BI(c)) from ``source`` against the exact pmf, within ``atol``
    (:func:`recorded`)."""
    return [recorded(cl["text"], ctx.pmf, cl)] if cl["mechanism"] in ctx.mechanisms else []


def pmf(pmf_df: pd.DataFrame, tails: pd.DataFrame, claims: list[dict], *, levels: int = 4) -> list[V.Verdict]:
    """Claims on the exact candidate probabilities (docs/definitions.md §8; the items' ``claims`` in
    ``config.yaml``), each by its kind's rule: ``more-mass-near-truth``, ``tail-bound`` and ``recorded``."""
    return judge(TEMPLATES[0], claims, Context(pmf_df, tails, levels))
