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
            rows.append({"mechanism": m, "base": m.split("~")[0], "pure_dp": m not in ("mh", "mh-delta"), "k": 2,
                         "private": True, "prior_strength": a, "n": n, "epsilon": e, "average": v, "worst": v})
    return pd.DataFrame(rows)


def frontier_frame(geo_avg, opt_avg, worst_counts=((0, 50),), ehds_worst=0.8, oracle=(np.nan, np.nan)):
    base = {"status": "ok", "k": 2, "epsilon": 1.0, "prior": [1.0, 1.0], "prior_strength": 1.0, "n": 50,
            "pure_dp": True, "oracle": np.nan, "oracle_objective": None}
    rows = [dict(base, mechanism="geometric", average=geo_avg, worst=0.2, worst_counts=[25, 25]),
            dict(base, mechanism="optimal~average", average=opt_avg, worst=0.2, worst_counts=[25, 25],
                 oracle=oracle[1], oracle_objective="average"),
            dict(base, mechanism="optimal~worst", average=0.16, worst=0.1612, worst_counts=[25, 25],
                 oracle=oracle[0], oracle_objective="worst")]
    rows += [dict(base, mechanism="mh", pure_dp=False, average=0.4, worst=0.8, worst_counts=list(c)) for c in worst_counts]
    rows += [dict(base, mechanism="ehds", average=0.4, worst=ehds_worst, worst_counts=[0, 50])]
    return pd.DataFrame(rows)


def test_winners_rank_pure_dp_closed_form_releases_only():
    df = grid({"geometric": {(1, 10, 1.0): 0.2, (1, 20, 1.0): 0.3}, "ehds": {(1, 10, 1.0): 0.25, (1, 20, 1.0): 0.1},
               "mh": {(1, 10, 1.0): 0.01, (1, 20, 1.0): 0.01}, "optimal~average": {(1, 10, 1.0): 0.001, (1, 20, 1.0): 0.001}})
    w = beyond.winners(df, "average").set_index("n")
    assert w.winner.to_dict() == {10: "geometric", 20: "ehds"}  # mh (claims 2 eps) and optimal are not ranked
    assert w.loc[10, "ratio"] == pytest.approx(1.25) and w.loc[20, "runner_up"] == "geometric"
    rows = C.which_to_use(df, better="mh", worse="lsdim")
    assert rows[0].verdict == V.ANSWERED and rows[0].computed.startswith("yes")  # an exponential mechanism wins somewhere


def test_frontier_rules_and_edges():
    rows = {r.claim.split(":")[0]: r for r in C.frontier(frontier_frame(0.108, 0.108 * (1 - 0.5e-4)))}
    assert rows["Reference value"].verdict == V.REPRODUCED
    geo = next(r for r in C.frontier(frontier_frame(0.108, 0.108 * (1 - 0.5e-4))) if "geometric release" in r.claim)
    assert geo.verdict == V.REPRODUCED  # within the relative tolerance 1e-4
    geo = next(r for r in C.frontier(frontier_frame(0.108, 0.108 * (1 - 2e-4))) if "geometric release" in r.claim)
    assert geo.verdict == V.NOT_REPRODUCED  # just past it
    at_k3 = frontier_frame(0.5, 0.35).assign(k=3, prior=[[1.0, 1.0, 1.0]] * 5)  # geometric far above it, as at k >= 3
    assert not any("geometric release" in r.claim for r in C.frontier(at_k3))  # the claim is made at k = 2 only
    boundary = next(r for r in C.frontier(frontier_frame(0.1, 0.1, ((3, 47),))) if r.claim.startswith("mh: its worst"))
    assert boundary.verdict == V.NOT_REPRODUCED
    beats = next(r for r in C.frontier(frontier_frame(0.1, 0.1)) if r.claim.endswith("worst-error optimum: ehds"))
    assert beats.verdict == V.REPRODUCED
    beats = next(r for r in C.frontier(frontier_frame(0.1, 0.1, ehds_worst=0.1612 * (1 - 2e-4)))
                 if r.claim.endswith("worst-error optimum: ehds"))
    assert beats.verdict == V.NOT_REPRODUCED  # a pure eps-DP release below the optimum would refute it
    # mh claims 2 eps: it is shown among the ratios but never judged against the eps optimum
    assert not any(r.claim.endswith(": mh") for r in C.frontier(frontier_frame(0.1, 0.1)))


def oracle_row(frame, objective):
    return next(r for r in C.frontier(frame) if r.claim.startswith(f"docs/definitions.md §10 ({objective}"))


def test_oracle_rows_match_and_fail_at_their_tolerance():
    # worst: within the minimax certificate's gap (1e-4); average: the exact Bayes remap, 1e-6
    near, far = 0.1612 * (1 + 0.5e-4), 0.1612 * (1 + 2e-4)
    assert oracle_row(frontier_frame(0.1, 0.1, oracle=(near, 0.1)), "worst").verdict == V.REPRODUCED
    assert oracle_row(frontier_frame(0.1, 0.1, oracle=(far, 0.1)), "worst").verdict == V.NOT_REPRODUCED
    assert oracle_row(frontier_frame(0.1, 0.1, oracle=(near, 0.1 * (1 - 0.5e-6))), "average").verdict == V.REPRODUCED
    assert oracle_row(frontier_frame(0.1, 0.1, oracle=(near, 0.1 * (1 - 2e-6))), "average").verdict == V.NOT_REPRODUCED
    two = pd.concat([frontier_frame(0.1, 0.1, oracle=(near, 0.1)),
                     frontier_frame(0.1, 0.1, oracle=(far, 0.1)).assign(n=60)], ignore_index=True)
    row = oracle_row(two, "worst")
    assert row.verdict == V.PARTLY and "over 2 points (n = 50 to 60" in row.computed
    # no oracle values (the LP did not run anywhere): no row, rather than a vacuous one
    assert not any(r.claim.startswith("docs/definitions.md §10") for r in C.frontier(frontier_frame(0.1, 0.1)))


def test_ratios_put_every_release_over_the_optimum_of_its_objective():
    df = frontier_frame(0.2, 0.1)
    r = beyond.ratios(df).set_index(["mechanism", "objective"])
    assert r.loc[("geometric", "average"), "ratio"] == pytest.approx(2.0)
    assert r.loc[("ehds", "worst"), "ratio"] == pytest.approx(0.8 / 0.1612)
    assert r.loc[("mh", "worst"), "pure_dp"] == False  # noqa: E712 - shown, flagged
    assert not {"optimal~worst", "optimal~average"} & set(r.index.get_level_values(0))
    # a point without the optimum has no ratio
    assert beyond.ratios(df.assign(n=[50, 50, 50, 70, 70])).n.unique().tolist() == [50]


def test_winners_report_the_winners_distance_to_the_optimum():
    df = grid({"geometric": {(1, 10, 1.0): 0.2}, "ehds": {(1, 10, 1.0): 0.25}, "optimal~average": {(1, 10, 1.0): 0.1}})
    w = beyond.winners(df, "average").iloc[0]
    assert w.winner == "geometric" and w.optimum == pytest.approx(0.1) and w.to_optimum == pytest.approx(2.0)
    assert np.isnan(beyond.winners(grid({"geometric": {(1, 10, 1.0): 0.2}}), "average").iloc[0].to_optimum)


def test_calibration_rules():
    base = {"status": "ok", "k": 2, "epsilon": 1.0}
    df = pd.DataFrame([dict(base, mechanism="ehds", n=10, average=0.5, kappa=np.nan, certified_epsilon=np.nan),
                       dict(base, mechanism="ehds~calibrated", n=10, average=0.3, kappa=3.0, certified_epsilon=0.999),
                       dict(base, mechanism="ehds", n=20, average=0.5, kappa=np.nan, certified_epsilon=np.nan),
                       dict(base, mechanism="ehds~calibrated", n=20, average=0.6, kappa=0.9, certified_epsilon=1.01)])
    cert, slack, gain = C.calibration(df)  # the slack row (kappa* > 1) judges the claim
    assert cert.verdict == V.PARTLY and slack.verdict == V.PARTLY and gain.verdict == V.PARTLY


def test_which_to_use_judges_the_winner_against_the_optimum():
    ok = grid({"geometric": {(1, 10, 1.0): 0.2, (1, 20, 1.0): 0.3}, "optimal~average": {(1, 10, 1.0): 0.1, (1, 20, 1.0): 0.3},
               "optimal~worst": {(1, 10, 1.0): 0.1, (1, 20, 1.0): 0.3}})
    row = next(r for r in C.which_to_use(ok, better="mh", worse="lsdim") if r.claim.startswith("Beyond the drafts (average"))
    assert row.verdict == V.REPRODUCED and "within 1 % of it in 1" in row.computed
    bad = grid({"geometric": {(1, 10, 1.0): 0.2}, "optimal~average": {(1, 10, 1.0): 0.3}, "optimal~worst": {(1, 10, 1.0): 0.3}})
    row = next(r for r in C.which_to_use(bad, better="mh", worse="lsdim") if r.claim.startswith("Beyond the drafts (worst"))
    assert row.verdict == V.NOT_REPRODUCED


def k3_frame(lattice_worst, geometric_worst, *, lp=(True, True)):
    """A k = 3 expected-error grid at n = 5 and 20: optimal is the LP at the points where ``lp`` is True (else the
    lattice release, ``is_optimum`` False); the optimum's errors are 0.30 (worst) and 0.25 (average)."""
    base = {"status": "ok", "k": 3, "epsilon": 1.0, "prior": [1.0, 1.0, 1.0], "prior_strength": 1.0, "pure_dp": True,
            "is_optimum": False}
    rows = []
    for n, on_lp, lw, gw in zip((5, 20), lp, lattice_worst, geometric_worst, strict=True):
        rows += [dict(base, n=n, mechanism="optimal~worst", worst=0.30 if on_lp else lw, average=0.26, is_optimum=on_lp),
                 dict(base, n=n, mechanism="optimal~average", worst=0.35, average=0.25, is_optimum=on_lp),
                 dict(base, n=n, mechanism="lattice~worst", worst=lw, average=0.27),
                 dict(base, n=n, mechanism="geometric", worst=gw, average=0.35)]
    return pd.DataFrame(rows)


NEAR = {"kind": "near-optimum", "mechanism": "lattice~worst", "objective": "worst", "tolerance": 0.03, "text": "near"}
BEATS = {"kind": "beats-everywhere", "better": "lattice~worst", "worse": "geometric", "objective": "worst",
         "text": "beats"}


def test_the_optimum_is_the_optimal_entry_and_the_lattice_release_is_ranked():
    assert beyond.OPTIMUM == {"worst": "optimal~worst", "average": "optimal~average"}
    assert "lattice" not in beyond.NOT_RANKED and "optimal" in beyond.NOT_RANKED


def test_near_optimum_holds_within_its_tolerance_where_the_lp_ran_only():
    (row,) = C.judge("frontier", [NEAR], k3_frame((0.30 * 1.029, 0.305), (0.45, 0.45)))
    assert row.verdict == V.REPRODUCED and "over 2 points" in row.computed
    (row,) = C.judge("frontier", [NEAR], k3_frame((0.30 * 1.031, 0.30), (0.45, 0.45)))
    assert row.verdict == V.PARTLY  # just past the tolerance at n = 5
    (row,) = C.judge("which_to_use", [NEAR], k3_frame((0.30 * 1.031, 0.30 * 1.04), (0.45, 0.45)))
    assert row.verdict == V.NOT_REPRODUCED
    # beyond the LP, optimal is the lattice release itself: no certified optimum, so the point is not judged
    (row,) = C.judge("frontier", [NEAR], k3_frame((0.30 * 1.02, 0.5), (0.45, 0.45), lp=(True, False)))
    assert row.verdict == V.REPRODUCED and "over 1 points" in row.computed
    (row,) = C.judge("frontier", [NEAR], k3_frame((0.31, 0.31), (0.45, 0.45), lp=(False, False)))
    assert row.verdict == V.CANNOT_CHECK
    # k = 2 points are not judged by default
    (row,) = C.judge("frontier", [NEAR], k3_frame((0.31, 0.31), (0.45, 0.45)).assign(k=2))
    assert row.verdict == V.CANNOT_CHECK


def test_beats_everywhere_fails_where_the_other_release_is_smaller():
    (row,) = C.judge("frontier", [BEATS], k3_frame((0.31, 0.32), (0.45, 0.40)))
    assert row.verdict == V.REPRODUCED and "at 2 of 2 points" in row.computed
    (row,) = C.judge("frontier", [BEATS], k3_frame((0.31, 0.32), (0.45, 0.32)))
    assert row.verdict == V.PARTLY  # a tie is not a win
    (row,) = C.judge("frontier", [BEATS], k3_frame((0.31, 0.32), (0.30, 0.31)))
    assert row.verdict == V.NOT_REPRODUCED
    (row,) = C.judge("frontier", [dict(BEATS, k_min=4)], k3_frame((0.31, 0.32), (0.45, 0.40)))
    assert row.verdict == V.CANNOT_CHECK


def test_winners_and_ratios_keep_k_apart():
    k2 = grid({"geometric": {(1, 10, 1.0): 0.2}, "optimal~average": {(1, 10, 1.0): 0.1}})
    k3 = grid({"geometric": {(1, 10, 1.0): 0.5}, "lattice~average": {(1, 10, 1.0): 0.4},
               "optimal~average": {(1, 10, 1.0): 0.38}}).assign(k=3)
    w = beyond.winners(pd.concat([k2, k3], ignore_index=True), "average").set_index("k")
    assert w.loc[2, "winner"] == "geometric" and w.loc[3, "winner"] == "lattice~average"
    assert w.loc[3, "to_optimum"] == pytest.approx(0.4 / 0.38) and w.loc[3, "runner_up"] == "geometric"
    # optimal beyond its LP (is_optimum False) is no optimum: the cell keeps its winner, without a distance to it
    w = beyond.winners(pd.concat([k2.assign(is_optimum=True), k3.assign(is_optimum=False)], ignore_index=True),
                       "average").set_index("k")
    assert np.isnan(w.loc[3, "to_optimum"]) and w.loc[2, "to_optimum"] == pytest.approx(2.0)


def test_the_lattice_release_is_ranked_at_k3_only():
    # at k = 2 the lattice release is the optimum's own release, so it would win its objective by construction
    vals = {"geometric": {(1, 10, 1.0): 0.2}, "lattice~average": {(1, 10, 1.0): 0.1}}
    both = pd.concat([grid(vals), grid(vals).assign(k=3)], ignore_index=True)
    w = beyond.winners(both, "average").set_index("k")
    assert w.loc[2, "winner"] == "geometric" and w.loc[3, "winner"] == "lattice~average"
