"""The yardstick's cap in ``compare`` (:func:`dpposterior.ranking.yardstick_budget`): what the releases built for an
objective leave, capped at ``YARDSTICK_SHARE`` of the limit only where the cap shows a baseline that the whole rest
would leave out.

The rule is transcribed here from its statement (the baselines walked in their stated order, ``geometric`` first,
then cheapest, within BASELINES_SHARE of the limit and the limit less the yardstick's reserve), reading only the
plans' public fields; the reserve of a budget is the library's own yardstick plan (what is planned, not the rule)."""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior import ranking
from dpposterior.limits import limit_setting
from dpposterior.yardstick import marginal_seconds

TOTAL = "DPPOSTERIOR_MAX_COMPARE_SECONDS"


def _cost(plan, taken: set) -> float:
    return plan.seconds - sum(sec for key, sec in plan.shared if key in taken)


def _shown(plans, reserve: float) -> set:
    """The baselines taken when the yardstick keeps ``reserve``: the statement's walk, from each row's own plan."""
    total = limit_setting(TOTAL)
    cap = min(total * ranking.BASELINES_SHARE, total - reserve)
    used, taken = 0.0, set()
    for r in plans:
        if r.variant.entry.objectives and not r.left_out and not r.same_as:
            used += _cost(r.plan, taken)
            taken.update(key for key, _ in r.plan.shared)
    walk = [r for r in plans if not r.variant.entry.objectives and not r.same_as and r.plan is not None
            and not r.plan.refused()]
    walk.sort(key=lambda r: (r.variant.label != "geometric", r.plan.seconds, r.variant.label))
    shown = set()
    for r in walk:
        if used + _cost(r.plan, taken) <= cap:
            used += _cost(r.plan, taken)
            taken.update(key for key, _ in r.plan.shared)
            shown.add(r.variant.label)
    return shown


def _reserve(a, n, eps, plans, budget) -> float:
    k = a.size
    computed = {r.variant.label for r in plans if not r.left_out}
    start = bool(computed & (ranking.start_releases(k) | ranking.fallback_releases(k)))
    baseline = not start and k in ranking.BASELINE_START_K
    blocks = ranking.yardstick_plan(a, n, eps, budget, start or baseline, baseline)
    return marginal_seconds(a, n, eps) + ranking.planned_seconds(blocks)


def _expected_budget(a, n, eps, plans) -> tuple[float, float, float]:
    """(the rule's budget, the capped one, the whole rest)."""
    total = limit_setting(TOTAL)
    objective, taken = 0.0, set()
    for r in plans:  # the computed rows built for an objective, each shared part once
        if r.variant.entry.objectives and not r.left_out and not r.same_as:
            objective += _cost(r.plan, taken)
            taken.update(key for key, _ in r.plan.shared)
    whole = max(0.0, total - marginal_seconds(a, n, eps) - objective)
    capped = min(ranking.YARDSTICK_SHARE * total, whole)
    gained = _shown(plans, _reserve(a, n, eps, plans, capped)) - _shown(plans, _reserve(a, n, eps, plans, whole))
    return (capped if gained else whole), capped, whole


def _shown_by(plans) -> set:
    return {r.variant.label for r in plans if not r.left_out and not r.same_as and not r.variant.entry.objectives}


def test_k4_n100_eps05_gets_the_whole_rest_and_depth_8():
    # Dir(1,1,1,1), n = 100, eps = 0.5: no release built for an objective fits, lszhang (40 s) is taken whether the
    # yardstick keeps its capped plan or its whole one and geometric (42 s) neither way, so the cap shows nothing and
    # the yardstick takes the whole rest: the corner blocks at depth 8 (at depth 7 under the 40 % cap)
    a, n, eps = np.ones(4), 100, 0.5
    plans = ranking.plan_compare(a, n, eps)
    budget = ranking.yardstick_budget(a, n, eps, plans)
    expect, capped, whole = _expected_budget(a, n, eps, plans)
    assert budget == expect == whole > capped
    assert _shown_by(plans) == {"lszhang"}
    blocks = ranking.yardstick_plan(a, n, eps, budget, True, True)
    assert blocks["worst"][0].fits and blocks["worst"][1] == 8
    # within the limit as planned
    assert ranking.rows_seconds(plans) + ranking.yardstick_reserve(a, n, eps, plans) <= limit_setting(TOTAL)


def test_k3_n1000_eps1_keeps_the_cap_and_geometric():
    # Dir(1,1,1), n = 1,000, eps = 1: the capped plan leaves room for geometric, the whole rest would not: capped
    a, n, eps = np.ones(3), 1000, 1.0
    plans = ranking.plan_compare(a, n, eps)
    budget = ranking.yardstick_budget(a, n, eps, plans)
    expect, capped, whole = _expected_budget(a, n, eps, plans)
    assert budget == expect == capped < whole
    assert "geometric" in _shown_by(plans)
    assert "geometric" not in _shown(plans, _reserve(a, n, eps, plans, whole))


@pytest.mark.parametrize("k, n, eps", [(3, 100, 1.0), (3, 120, 0.5), (4, 20, 1.0), (4, 50, 1.0), (4, 100, 2.0)])
def test_the_budget_follows_its_rule(k, n, eps):
    a = np.ones(k)
    plans = ranking.plan_compare(a, n, eps)
    assert ranking.yardstick_budget(a, n, eps, plans) == _expected_budget(a, n, eps, plans)[0]
    # the baselines plan_compare took are the ones the rule's walk takes within the chosen reserve
    assert _shown_by(plans) == _shown(plans, ranking.yardstick_reserve(a, n, eps, plans))


@pytest.mark.parametrize("total", ["60", "90", "120"])
def test_the_budget_follows_its_rule_under_a_lower_limit(monkeypatch, total):
    from dpposterior.errors import SizeError

    monkeypatch.setenv(TOTAL, total)
    for a, n, eps in ((np.ones(3), 100, 1.0), (np.ones(4), 100, 0.5)):
        try:
            plans = ranking.plan_compare(a, n, eps)
        except SizeError:  # no row fits what the yardstick leaves (k = 4 under 60 s): refused by its plan
            continue
        assert ranking.yardstick_budget(a, n, eps, plans) == _expected_budget(a, n, eps, plans)[0]
        assert _shown_by(plans) == _shown(plans, ranking.yardstick_reserve(a, n, eps, plans))
        assert ranking.rows_seconds(plans) + ranking.yardstick_reserve(a, n, eps, plans) <= float(total) + 1e-9


def test_the_budget_is_the_same_before_and_after_the_baselines_are_taken():
    # plan_compare decides the budget before it takes any baseline, compare_yardstick after: the rule reads each
    # baseline's own plan, not whether it was taken, so both read the same budget
    a, n, eps = np.ones(3), 1000, 1.0
    plans = ranking.plan_compare(a, n, eps)
    before = [r if r.variant.entry.objectives or r.same_as or r.plan is None
              else type(r)(r.variant, r.spec, r.plan, r.plan.refused()) for r in plans]
    assert ranking.yardstick_budget(a, n, eps, before) == ranking.yardstick_budget(a, n, eps, plans)


def test_the_baselines_walk_holds_both_limits():
    # synthetic seconds on Dir(1,1,1), n = 20, eps = 1's rows (the objective rows free, geometric 100 s, every other
    # baseline 10 s, nothing shared): within the limit less a reserve of 0 the walk stops at BASELINES_SHARE of it
    # (105 s: geometric alone), within the limit less 100 s at 50 s (geometric out, the five cheapest by label in)
    from dataclasses import replace

    a, n, eps = np.ones(3), 20, 1.0
    plans = []
    for r in ranking.plan_compare(a, n, eps):
        if r.plan is not None and not r.plan.refused() and not r.same_as:
            seconds = 0.0 if r.variant.entry.objectives else (100.0 if r.variant.label == "geometric" else 10.0)
            r = replace(r, plan=replace(r.plan, seconds=seconds, shared=()))
        plans.append(r)
    assert limit_setting(TOTAL) * ranking.BASELINES_SHARE == 105.0
    for reserve in (0.0, 100.0):
        got = ranking.baselines_within(plans, 3, reserve)
        assert got == _shown(plans, reserve), reserve
    assert ranking.baselines_within(plans, 3, 0.0) == {"geometric"}
    others = sorted(r.variant.label for r in plans if not r.variant.entry.objectives and not r.same_as
                    and r.plan is not None and not r.plan.refused() and r.variant.label != "geometric")
    assert ranking.baselines_within(plans, 3, 100.0) == set(others[:5])
