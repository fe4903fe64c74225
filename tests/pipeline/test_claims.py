"""Claims of the beyond-the-drafts items (dpposterior.paper.claims): the winner map, the frontier and the calibration rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpposterior.paper import beyond
from dpposterior.paper import claims as C
from dpposterior.paper import verdicts as V


def grid(values: dict, objective="average"):
    rows = []
    for m, vals in values.items():
        for (a, n, e), v in vals.items():
            rows.append({"mechanism": m, "base": m.split("~")[0], "pure_dp": m not in ("mh", "mh-delta"),
                         "private": True, "prior_strength": a, "n": n, "epsilon": e, "average": v, "worst": v})
    return pd.DataFrame(rows)


def frontier_frame(geo_avg, opt_avg, worst_counts=((0, 50),)):
    base = {"status": "ok", "k": 2, "epsilon": 1.0, "prior": [1.0, 1.0], "n": 50}
    rows = [dict(base, mechanism="geometric", average=geo_avg, worst=0.2, worst_counts=[25, 25]),
            dict(base, mechanism="optimal~average", average=opt_avg, worst=0.2, worst_counts=[25, 25]),
            dict(base, mechanism="optimal~worst", average=0.16, worst=0.1612, worst_counts=[25, 25])]
    rows += [dict(base, mechanism="mh", average=0.4, worst=0.8, worst_counts=list(c)) for c in worst_counts]
    return pd.DataFrame(rows)


def test_winners_rank_pure_dp_closed_form_releases_only():
    df = grid({"geometric": {(1, 10, 1.0): 0.2, (1, 20, 1.0): 0.3}, "ehds": {(1, 10, 1.0): 0.25, (1, 20, 1.0): 0.1},
               "mh": {(1, 10, 1.0): 0.01, (1, 20, 1.0): 0.01}, "optimal~average": {(1, 10, 1.0): 0.001, (1, 20, 1.0): 0.001}})
    w = beyond.winners(df, "average").set_index("n")
    assert w.winner.to_dict() == {10: "geometric", 20: "ehds"}  # mh (claims 2 eps) and optimal are not ranked
    assert w.loc[10, "ratio"] == pytest.approx(1.25) and w.loc[20, "runner_up"] == "geometric"
    rows = C.which_to_use(df)
    assert rows[0].verdict == V.REPRODUCED  # an exponential mechanism wins somewhere


def test_frontier_rules_and_edges():
    rows = {r.claim.split(":")[0]: r for r in C.frontier(frontier_frame(0.108, 0.108 * (1 - 0.5e-4)))}
    assert rows["Reference value"].verdict == V.REPRODUCED
    geo = next(r for r in C.frontier(frontier_frame(0.108, 0.108 * (1 - 0.5e-4))) if "geometric release" in r.claim)
    assert geo.verdict == V.REPRODUCED  # within the relative tolerance 1e-4
    geo = next(r for r in C.frontier(frontier_frame(0.108, 0.108 * (1 - 2e-4))) if "geometric release" in r.claim)
    assert geo.verdict == V.NOT_REPRODUCED  # just past it
    boundary = next(r for r in C.frontier(frontier_frame(0.1, 0.1, ((3, 47),))) if "boundary" in r.claim)
    assert boundary.verdict == V.NOT_REPRODUCED
    beats = next(r for r in C.frontier(frontier_frame(0.1, 0.1)) if r.claim.endswith(": mh"))
    assert beats.verdict == V.REPRODUCED


def test_calibration_rules():
    base = {"status": "ok", "k": 2, "epsilon": 1.0}
    df = pd.DataFrame([dict(base, mechanism="ehds", n=10, average=0.5, kappa=np.nan, certified_epsilon=np.nan),
                       dict(base, mechanism="ehds~calibrated", n=10, average=0.3, kappa=3.0, certified_epsilon=0.999),
                       dict(base, mechanism="ehds", n=20, average=0.5, kappa=np.nan, certified_epsilon=np.nan),
                       dict(base, mechanism="ehds~calibrated", n=20, average=0.6, kappa=0.9, certified_epsilon=1.01)])
    cert, slack, gain = C.calibration(df)  # issue 21: the slack row (kappa* > 1) judges the claim
    assert cert.verdict == V.PARTLY and slack.verdict == V.PARTLY and gain.verdict == V.PARTLY
