"""Experiments beyond the drafts: exact expected errors of every release over grids of n, eps and
prior strength (items `frontier`, `which-to-use` and `calibration`; docs/definitions.md, Expected
error, Calibration, `optimal`).

One job computes one mechanism (or variant, ``ehds~calibrated``, ``optimal~average``; see
:func:`dpposterior.paper.variants.variant`) at every point of one experiment with
:func:`dpposterior.accuracy.expected_errors`: the worst case over all data sets of size n and its
data set, and the average under the prior predictive.  Points beyond ``max_candidates`` are
skipped; a point the mechanism refuses for its size (e.g. the linear program of ``optimal``
beyond 260 outputs) is kept as a row with its ``status`` and no values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..accuracy import expected_errors
from ..errors import SizeError
from ..mechanisms import MECHANISMS
from ..models import n_candidates
from .variants import variant

#: ``which-to-use`` ranks only releases with a closed form: ``optimal`` wins its own objective by construction.
NOT_RANKED = ("optimal",)


def expected_error_grid(name: str, spec: dict) -> pd.DataFrame:
    """Rows per (prior, n, eps): worst, worst_counts, average, kappa, certified eps, status."""
    base, options = variant(name)
    mech = MECHANISMS[base]
    claimed = mech.claimed
    rows = []
    for prior in spec["priors"]:
        prior = [float(x) for x in prior]
        k = len(prior)
        for n in spec["n"]:
            if n_candidates(int(n), k) > int(spec["max_candidates"]):
                continue
            for eps in spec["epsilon"]:
                claim = claimed(float(eps), float(spec["delta"]), options.get("calibrate", False))
                row = {"mechanism": name, "base": base, "family": mech.family, "private": claim[0] is not None,
                       "pure_dp": claim == (float(eps), 0.0),
                       "prior": prior, "prior_strength": prior[0], "k": k, "n": int(n), "epsilon": float(eps),
                       "worst": np.nan, "worst_counts": None, "average": np.nan, "kappa": np.nan,
                       "certified_epsilon": np.nan, "status": "ok"}
                try:
                    e = expected_errors(base, prior, int(n), epsilon=float(eps), delta=float(spec["delta"]), **options)
                except SizeError as exc:
                    row["status"] = str(exc)
                else:
                    row.update(worst=e.worst, worst_counts=list(e.worst_counts), average=e.average)
                    if e.calibration is not None:
                        row.update(kappa=e.calibration.factor, certified_epsilon=e.calibration.concrete_epsilon)
                rows.append(row)
    return pd.DataFrame(rows)


def winners(df: pd.DataFrame, objective: str) -> pd.DataFrame:
    """Per (prior strength, n, eps): the pure eps-DP release (claimed or certified; ``mh`` claims only 2 eps and
    ``mh-delta`` (eps, delta), so neither is ranked) with the smallest ``objective`` error
    (``worst`` or ``average``), the runner-up, and their ratio."""
    d = df[df.pure_dp & ~df.base.isin(NOT_RANKED) & df[objective].notna()]
    out = []
    for (a, n, eps), g in d.groupby(["prior_strength", "n", "epsilon"], sort=True):
        g = g.sort_values(objective)
        out.append({"prior_strength": a, "n": n, "epsilon": eps, "winner": g.mechanism.iloc[0],
                    "error": g[objective].iloc[0], "runner_up": g.mechanism.iloc[1] if len(g) > 1 else None,
                    "ratio": g[objective].iloc[1] / g[objective].iloc[0] if len(g) > 1 else np.nan})
    return pd.DataFrame(out)
