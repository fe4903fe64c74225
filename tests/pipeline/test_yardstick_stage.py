"""The yardstick stage (dpposterior.paper.beyond.yardstick_grid, stage `yardstick`) and the bracket it gives the
frontier: a certified lower bound at every k >= 3 point of a grid, below every release of the same grid."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpposterior.paper import beyond
from dpposterior.paper import claims as C
from dpposterior.paper import verdicts as V
from dpposterior.paper.stages import STAGES, item_inputs

SPEC = {"priors": [[1, 1], [1, 1, 1], [1, 1, 1, 1]], "n": [2, 3, 40], "epsilon": [1.0], "delta": 1e-8,
        "max_candidates": 100, "yardstick": {"seconds": 20}}
#: the pure eps-DP releases compared with the bound (every family: exponential, additive noise, lattice, optimum)
RELEASES = ["ehd", "ehds", "ehds~calibrated", "lszhang", "lshist", "geometric", "optimal~worst", "optimal~average",
            "lattice~worst", "lattice~average"]


@pytest.fixture(scope="module")
def yard():
    return beyond.yardstick_grid(SPEC)


@pytest.fixture(scope="module")
def grid():
    return pd.concat([beyond.expected_error_grid(m, SPEC) for m in RELEASES], ignore_index=True)


def test_a_row_per_k3_point_and_objective_with_a_bound(yard):
    # k = 2 has none (its optimum is exact), n = 40 is past max_candidates at k >= 3 (as in the grid)
    assert sorted(set(zip(yard.k, yard.n))) == [(3, 2), (3, 3), (4, 2), (4, 3)]
    assert len(yard) == 8 and set(yard.objective) == {"worst", "average"}
    assert (yard.status == "ok").all() and yard.bound.gt(0).all() and yard.how.notna().all()
    w = yard[yard.objective == "worst"].set_index(["k", "n"]).bound
    a = yard[yard.objective == "average"].set_index(["k", "n"]).bound
    assert (w >= a).all()  # no worst case is below its average


def test_the_bound_is_below_every_pure_dp_release_of_the_same_grid(yard, grid):
    ok = grid[(grid.status == "ok") & grid.pure_dp]
    assert set(ok.mechanism) == set(RELEASES)
    for r in yard.itertuples():
        s = ok[(ok.k == r.k) & (ok.n == r.n) & (ok.epsilon == r.epsilon)][r.objective]
        assert len(s) >= 8 and r.bound <= s.min(), (r.k, r.n, r.objective, r.bound, s.min())
    b = beyond.brackets(grid, yard)
    assert b.below.all() and (b.ratio >= 1).all() and (b.releases >= 8).all()
    # where the k = 3 LP runs, optimal is the optimum: the bracket is tight (the block relaxations hold R(n))
    assert b[b.k == 3].ratio.max() < 1.01


def test_a_refused_plan_or_the_config_cap_leaves_no_bound_and_says_why():
    tight = beyond.yardstick_grid({**SPEC, "priors": [[1, 1, 1]], "n": [3], "yardstick": {"seconds": 1e-6}})
    assert tight.bound.isna().all() and tight.status.str.contains("over its share").all()
    capped = beyond.yardstick_grid({**SPEC, "priors": [[1, 1, 1]], "yardstick": {"max_candidates": 6}})
    assert capped.set_index("n").bound.loc[2].notna().all()  # |R(2)| = 6
    assert capped.set_index("n").status.loc[3].str.contains("over yardstick.max_candidates = 6").all()


def test_the_stage_runs_for_entries_that_ask_for_it_only():
    stage = STAGES["yardstick"]
    cfg = {"expected_error": {"frontier": dict(SPEC, mechanisms=["geometric"]),
                              "other": {k: v for k, v in SPEC.items() if k != "yardstick"} | {"mechanisms": ["ehd"]}}}
    assert stage.experiments(cfg) == ["frontier"]
    assert item_inputs(cfg, "frontier", "frontier", "results")["yardstick"] == "results/yardstick/frontier.parquet"
    assert "yardstick" not in item_inputs(cfg, "frontier", "other", "results")
    assert set(stage.spec(cfg, "frontier")) == {"priors", "n", "epsilon", "max_candidates", "yardstick"}  # no mechanisms


BRACKET = {"kind": "bracket", "tolerance": 0.05, "text": "Beyond the drafts: the bracket"}


def frame(best=(0.31, 0.26), bound=(0.30, 0.25), status="ok"):
    """One k = 3 point (n = 20): releases lattice~worst (worst ``best[0]``), geometric, and a bound per objective."""
    base = {"status": "ok", "k": 3, "epsilon": 1.0, "prior": [1.0] * 3, "prior_strength": 1.0, "n": 20,
            "pure_dp": True}
    grid = pd.DataFrame([dict(base, mechanism="lattice~worst", worst=best[0], average=best[1] * 1.01),
                         dict(base, mechanism="lattice~average", worst=best[0] * 1.02, average=best[1]),
                         dict(base, mechanism="geometric", worst=0.5, average=0.4),
                         dict(base, mechanism="mh", pure_dp=False, worst=0.01, average=0.01)])  # 2 eps: not compared
    yard = pd.DataFrame([{"prior": [1.0] * 3, "prior_strength": 1.0, "k": 3, "n": 20, "epsilon": 1.0,
                          "objective": o, "bound": b if status == "ok" else np.nan, "how": "corner blocks",
                          "status": status} for o, b in zip(("worst", "average"), bound, strict=True)])
    return C.Errors(grid, yard)


def test_the_bracket_claim_holds_within_its_tolerance_one_row_per_point_and_objective():
    rows = C.judge("frontier", [BRACKET], frame())
    assert [r.verdict for r in rows] == [V.REPRODUCED, V.REPRODUCED]
    assert "k = 3, n = 20, eps = 1, worst" in rows[0].claim and "lattice~worst 0.3100 / bound 0.3000 = 1.033" in rows[0].computed
    assert all(not V.problems(r) for r in rows)
    (row,) = C.judge("frontier", [dict(BRACKET, objective="average")], frame())
    assert row.verdict == V.REPRODUCED and "lattice~average" in row.computed


def test_the_bracket_claim_fails_past_its_tolerance_or_with_a_bound_above_a_release():
    rows = C.judge("frontier", [BRACKET], frame(best=(0.32, 0.26)))  # 0.32 / 0.30 = 1.067 > 1.05
    assert [r.verdict for r in rows] == [V.NOT_REPRODUCED, V.REPRODUCED]
    rows = C.judge("frontier", [BRACKET], frame(bound=(0.30, 0.27)))  # a bound above the best release: a bug, said so
    assert rows[1].verdict == V.NOT_REPRODUCED and "ABOVE the exact error of lattice~average" in rows[1].computed


def test_the_bracket_claim_cannot_check_without_a_bound_or_a_table():
    rows = C.judge("frontier", [BRACKET], frame(status="dual flows: would take about 40 s, over its share of 3 s"))
    assert [r.verdict for r in rows] == [V.CANNOT_CHECK] * 2 and "over its share" in rows[0].computed
    (row,) = C.judge("frontier", [BRACKET], frame().grid)  # the grid alone (no yardstick settings)
    assert row.verdict == V.CANNOT_CHECK
    (row,) = C.judge("frontier", [dict(BRACKET, k=4)], frame())
    assert row.verdict == V.CANNOT_CHECK
