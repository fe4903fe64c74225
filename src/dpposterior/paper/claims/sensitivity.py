"""The claim kinds of the sensitivity curves (template ``sensitivity``; arXiv draft Fig. 1, §3, and workshop
draft §5.4.2) and of the score changes (template ``score_change``; arXiv draft §7.1, Fig. 2), judged on the
sensitivity stage's table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import verdicts as V
from .registry import judge, kind


@kind("smooth-between", templates=("sensitivity",), verdicts=(V.BY_CONSTRUCTION, V.NOT_REPRODUCED))
def _smooth_between(cl: dict, df: pd.DataFrame) -> list[V.Verdict]:
    """LS <= S <= GS at every point (holds for every input, so a pass is by construction)."""
    r = V.bound_holds(cl["text"], np.concatenate([df.LS, df.S]), np.concatenate([df.S, df.GS]),
                      what="LS/S and S/GS", draft="LS <= S <= GS", rtol=1e-12)
    if r.verdict == V.REPRODUCED:
        r.verdict = V.BY_CONSTRUCTION
        r.rule += ("; S >= LS since c'' = c is in the max, S <= GS since each term is <= LS(c'') <= GS: "
                   "holds for every input, so a pass is by construction")
    else:
        r.verdict = V.NOT_REPRODUCED
    return [r]


@kind("gs-constant", templates=("sensitivity",), verdicts=(V.REPRODUCED, V.PARTLY, V.NOT_REPRODUCED))
def _gs_constant(cl: dict, df: pd.DataFrame) -> list[V.Verdict]:
    """GS = sqrt(1 - pi/4) for every prior (within 1e-3)."""
    gs = df.groupby("prior", sort=False).GS.first()
    paper = float(df.GS_paper.iloc[0])
    r = V.formula_matches(cl["text"], np.full(len(gs), paper), gs.to_numpy(), what="GS", atol=1e-3)
    r.computed += " (" + ", ".join(f"{p}: {v:.4f}" for p, v in gs.items()) + ")"
    return [r]


@kind("ls-falls", templates=("sensitivity",), verdicts=(V.REPRODUCED, V.PARTLY, V.WITHIN_NOISE, V.NOT_REPRODUCED))
def _ls_falls(cl: dict, df: pd.DataFrame) -> list[V.Verdict]:
    """LS at the balanced data falls over the symmetric priors, in their order."""
    n = int(df.n.iloc[0])
    sym = [p for p in dict.fromkeys(df.prior) if p.split("(")[1].split(",")[0] == p.split(",")[1].rstrip(")")]
    mid = [float(df[(df.prior == p) & (df.c1 == n // 2)].LS.iloc[0]) for p in sym]
    return [V.trend(cl["text"], np.arange(len(sym), dtype=float), mid, np.zeros(len(sym)),
                    name="LS at c = (n/2, n/2) over " + ", ".join(sym), direction="down", xname="prior")]


@kind("max-at-truth", templates=("score_change",), verdicts=(V.REPRODUCED, V.PARTLY, V.NOT_REPRODUCED))
def _max_at_truth(cl: dict, df: pd.DataFrame) -> list[V.Verdict]:
    """Per data set c, the maximal score change over the candidates is taken at r = BI(c) and equals LS(c)."""
    rows = []
    for d in dict.fromkeys(df.data):
        s = df[df.data == d].reset_index(drop=True)
        top = float(s.max_change.max())
        at_truth = float(s.max_change[s.r1 == s.c1.iloc[0]].iloc[0])
        ties = [int(v) for v in s.r1[s.max_change >= top * (1 - 1e-9)]]
        rows.append(V.bound_holds(f"{cl['text']}, c = {d}", [top, top], [at_truth, float(s.LS.iloc[0])],
                                  what=f"max {top:.6f} (at m in {ties}; ties are r = BI(c') of a neighbour) vs value "
                                       f"at m = {int(s.c1.iloc[0])} and LS",
                                  draft=f"max at m = {int(s.c1.iloc[0])}, max = LS(c)"))
    return rows


def sensitivity(df: pd.DataFrame, claims: list[dict]) -> list[V.Verdict]:
    """Claims on the sensitivity curves (docs/definitions.md §8): ``smooth-between``, ``gs-constant``
    and ``ls-falls``, each by its kind's rule."""
    return judge("sensitivity", claims, df)


def score_change(df: pd.DataFrame, claims: list[dict]) -> list[V.Verdict]:
    """Claims on the score changes (docs/definitions.md §8): ``max-at-truth``."""
    return judge("score_change", claims, df)
