"""Does tailoring to the distance matter? (item `tailoring`; arXiv draft §8 future work 3; docs/definitions.md §10).

The drafts calibrate the noise with the distance that measures accuracy (Hellinger) and call the choice ad
hoc.  The item's grid (an ``expected_error`` experiment with ``distances`` and ``measures``) holds, for every
release, the exact worst-case and average expected error under each accuracy ``measure``: the exponential
mechanisms scored by each ``distance``, the optimum under each distance's loss (``optimal``, geometric + remap
at k = 2) and the releases that read no distance (Laplace, geometric).

:func:`ratios` divides each error by the optimum *for the same measure and objective*: 1 is the best possible
under that measure, and the optimum under another distance's loss shows what using the wrong distance costs.
"""

from __future__ import annotations

import pandas as pd

from .beyond import OPTIMUM

KEYS = ["prior_strength", "n", "epsilon", "measure"]
COLUMNS = ["mechanism", "base", "family", "distance", "measure", "prior_strength", "n", "epsilon", "objective",
           "error", "optimum", "ratio"]


def optimum(df: pd.DataFrame, objective: str) -> pd.Series:
    """The optimum's error under each measure: the ``optimal~<objective>`` row tailored to that measure
    (``distance == measure``), indexed by :data:`KEYS`."""
    ok = df[(df.status == "ok") & (df.mechanism == OPTIMUM[objective]) & (df.distance == df.measure)]
    return ok.set_index(KEYS)[objective].rename("optimum")


def ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Long rows (:data:`COLUMNS`): every release's error over the optimum for the same (prior, n, eps, measure)
    and objective; the optimum itself has ratio 1, an optimum under another distance >= 1 by construction."""
    ok = df[df.status == "ok"]
    out = []
    for objective in OPTIMUM:
        best = optimum(df, objective)
        if not len(best):
            continue
        m = ok[ok[objective].notna()].join(best, on=KEYS, how="inner")
        m = m[m.optimum > 0]
        out.append(m.assign(objective=objective, error=m[objective], ratio=m[objective] / m.optimum))
    if not out:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(out, ignore_index=True)[COLUMNS]


def wrong_optimum(r: pd.DataFrame) -> pd.DataFrame:
    """Per (measure, other distance, objective, prior, n, eps): the error of the optimum under the *other*
    distance's loss over the measure's own optimum (the cost of tailoring the optimum to the wrong distance), from
    :func:`ratios`; >= 1 by construction."""
    w = r[r.mechanism.isin(OPTIMUM.values()) & (r.distance != r.measure)
          & (r.mechanism == r.objective.map(OPTIMUM))]
    return w.rename(columns={"distance": "other"})[["measure", "other", "objective", "prior_strength", "n", "epsilon",
                                                   "error", "optimum", "ratio"]].reset_index(drop=True)


def matched_vs_other(r: pd.DataFrame, family: str = "exponential") -> pd.DataFrame:
    """For each release of ``family`` scored by a distance: its error when scored by the measure's own distance
    over its error when scored by another (``matched / other``; < 1: tailoring to the measure helps), per
    (mechanism, measure, other distance, objective, prior, n, eps)."""
    e = r[(r.family == family) & r.distance.notna()]
    keys = ["mechanism", "measure", "objective", "prior_strength", "n", "epsilon"]
    own = e[e.distance == e.measure].set_index(keys).error.rename("matched")
    other = e[e.distance != e.measure]
    m = other.join(own, on=keys, how="inner")
    return pd.DataFrame({"mechanism": m.mechanism, "measure": m.measure, "other": m.distance,
                         "objective": m.objective, "prior_strength": m.prior_strength, "n": m.n,
                         "epsilon": m.epsilon, "matched": m.matched, "other_error": m.error,
                         "ratio": m.matched / m.error}).reset_index(drop=True)
