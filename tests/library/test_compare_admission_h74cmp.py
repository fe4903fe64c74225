"""``compare``'s admission and the yardstick's budget (:mod:`dpposterior.ranking`): the releases built for an objective
first, then the yardstick's plan, then the baselines (``geometric`` first, the others cheapest first) within what that
plan leaves; the yardstick's budget does not read a baseline's plan; the yardstick that runs is the one planned.

The admission rule is transcribed here from its statement (the ROWS_SHARE / BASELINES_SHARE / YARDSTICK_SHARE
comments), reading only the plans' public fields."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from dpposterior import ranking
from dpposterior.limits import Task, limit_setting
from dpposterior.mechanisms import MECHANISMS, ReleaseSpec
from dpposterior.mechanisms import base as mech_base

TOTAL = "DPPOSTERIOR_MAX_COMPARE_SECONDS"


def _cost(plan, taken: set) -> float:
    """A row's seconds less its shared parts already counted (the rule's statement: a cached part runs once)."""
    return plan.seconds - sum(sec for key, sec in plan.shared if key in taken)


def _check_admission(a, n: int, eps: float) -> list:
    """Plan ``compare`` and check every row against the rule, walked in its stated order; returns the plans."""
    k = a.size
    plans = ranking.plan_compare(a, n, eps)
    total = limit_setting(TOTAL)
    rows = [r for r in plans if r.plan is not None and not r.plan.refused() and not r.same_as]
    objective = [r for r in rows if r.variant.entry.objectives]
    baselines = [r for r in rows if not r.variant.entry.objectives]
    starts = ranking.start_releases(k)
    objective.sort(key=lambda r: (r.variant.label not in starts, r.plan.seconds, r.variant.label))
    baselines.sort(key=lambda r: (r.variant.label != "geometric", r.plan.seconds, r.variant.label))
    used, taken = 0.0, set()
    for r in objective:
        fits = used + _cost(r.plan, taken) <= total * ranking.ROWS_SHARE
        assert fits == (not r.left_out), (r.variant.label, used, r.left_out)
        if fits:
            used += _cost(r.plan, taken)
            taken.update(key for key, _ in r.plan.shared)
    reserve = ranking.yardstick_reserve(a, n, eps, plans)
    cap = min(total * ranking.BASELINES_SHARE, total - reserve)
    for r in baselines:
        fits = used + _cost(r.plan, taken) <= cap
        assert fits == (not r.left_out), (r.variant.label, used, cap, r.left_out)
        if fits:
            used += _cost(r.plan, taken)
            taken.update(key for key, _ in r.plan.shared)
        else:  # one line, naming the setting that raises it
            assert "\n" not in r.left_out and TOTAL in r.left_out
            assert f"--mechanism {r.variant.entry.id}" in r.left_out
    # as planned, the rows and the yardstick (its k = 2 solves and blocks) together stay within the limit
    assert used + reserve <= total + 1e-9
    assert math.isclose(used, ranking.rows_seconds(plans), abs_tol=1e-9)
    return plans


@pytest.mark.parametrize("n, eps", [(20, 1.0), (100, 1.0), (120, 0.5), (120, 1.0)])
def test_admission_follows_its_rule_at_k3(n, eps):
    plans = {r.variant.label: r for r in _check_admission(np.ones(3), n, eps)}
    # the releases built for an objective are computed, and geometric beside them
    assert not plans["optimal (worst)"].left_out and not plans["optimal (average)"].left_out
    assert not plans["geometric"].left_out


@pytest.mark.parametrize("total", ["40", "60", "100"])
def test_admission_follows_its_rule_under_a_lower_limit(monkeypatch, total):
    monkeypatch.setenv(TOTAL, total)
    _check_admission(np.ones(3), 100, 1.0)
    _check_admission(np.ones(3), 120, 0.5) if total == "100" else None


def test_geometric_is_the_first_baseline(monkeypatch):
    # Dir(1,1,1), n = 100, eps = 1: every baseline is a dense walk (the exponential ones 1.3 s, the clamped ones
    # 2.1 s planned; ehd, ehdl, ehds before geometric by label and by cost); with the limit lowered to 19 s one
    # baseline fits, and it is geometric; at 21 s the cheapest after it; at 18 s geometric does not fit and the
    # cheapest that does is still taken
    a = np.ones(3)
    for total, expect in ((19.0, ["geometric"]), (21.0, ["ehd", "geometric"]), (18.0, ["ehd"]), (16.0, [])):
        monkeypatch.setenv(TOTAL, str(total))
        plans = _check_admission(a, 100, 1.0)
        shown = [r.variant.label for r in plans if not r.left_out and not r.same_as and not r.variant.entry.objectives]
        assert shown == expect, (total, shown)


def _recorded_shares(monkeypatch) -> list:
    """Record each call of the yardstick's block planner (its share and start) and return the list."""
    from dpposterior import yardstick

    calls = []
    real = yardstick.plan_blocks

    def spy(a, n, eps, seconds=None, **kw):
        calls.append((seconds, kw.get("start"), kw.get("baseline")))
        return real(a, n, eps, seconds, **kw)

    monkeypatch.setattr(yardstick, "plan_blocks", spy)
    monkeypatch.setattr(yardstick, "block_bounds", lambda *args, **kw: {})
    return calls


@pytest.mark.parametrize("n, eps", [(20, 1.0), (100, 1.0)])
def test_the_yardsticks_share_does_not_move_with_a_baselines_plan(monkeypatch, n, eps):
    # a baseline's plan 1 s dearer (or cheaper) moves no share of the yardstick where it is taken either way: what
    # it is given, and so its bound, reads only public inputs, the limit, the plans of the releases built for an
    # objective and which baselines the yardstick's cap would show (none moves here)
    a = np.ones(3)
    plans = ranking.plan_compare(a, n, eps)
    label = "geometric"
    assert not next(r for r in plans if r.variant.label == label).left_out
    calls = _recorded_shares(monkeypatch)
    shares = []
    for delta in (0.0, 1.0, -1.0):
        moved = [replace(r, plan=replace(r.plan, seconds=r.plan.seconds + delta)) if r.variant.label == label else r
                 for r in plans]
        calls.clear()
        ranking.compare_yardstick(a, n, eps, [], plans=moved, errors={})
        shares.append(calls[-1])
    assert shares[0] == shares[1] == shares[2], shares


def test_the_yardstick_that_runs_is_the_one_planned(monkeypatch):
    # plan_compare keeps from the baselines the seconds of the very blocks compare_yardstick then plans (the same
    # share, start and flags, after the same budget's decision), so the rows and the yardstick stay within the limit
    # as planned
    a, n, eps = np.ones(3), 20, 1.0
    plans = ranking.plan_compare(a, n, eps)
    errors: dict = {}
    rows = ranking.compare_rows(a, n, eps, plans=plans, errors=errors)
    calls = _recorded_shares(monkeypatch)
    reserve = ranking.yardstick_reserve(a, n, eps, plans)
    planned = list(calls)
    calls.clear()
    ranking.compare_yardstick(a, n, eps, rows, plans=plans, errors=errors)
    assert calls == planned
    assert planned[-1][1] is True  # a release built for an objective starts the average
    assert ranking.rows_seconds(plans) + reserve <= limit_setting(TOTAL)
    # the budget: what the limit leaves after the k = 2 solves and the objective rows, capped at YARDSTICK_SHARE of
    # it only where the cap shows a baseline (here none: every baseline fits either way)
    from dpposterior.yardstick import marginal_seconds

    objective = sum(r.plan.seconds for r in plans if r.variant.entry.objectives and not r.left_out and not r.same_as)
    total = limit_setting(TOTAL)
    assert ranking.YARDSTICK_SHARE * total < total - marginal_seconds(a, n, eps) - objective
    expect = total - marginal_seconds(a, n, eps) - objective
    assert math.isclose(planned[-1][0], expect / 2, rel_tol=1e-12)


@pytest.mark.parametrize("k, n", [(2, 300), (3, 60), (3, 120), (4, 30)])
def test_dense_rows_plan_counts_the_pairs_at_their_rate(k, n):
    # the count held to DPPOSTERIOR_MAX_PAIRS is every pair of R(n) twice, at any k; the seconds are that count at
    # DENSE_ROWS_PER_SECOND from k = 3 (CLAMPED_DENSE_ROWS_PER_SECOND for the clamped entries; measured ~1.5e8 and
    # ~8e7 per CPU s there) and at PAIRS_PER_SECOND at k = 2
    a = np.ones(k)
    size = math.comb(n + k - 1, k - 1)
    for mech in ("ehd", "mh"):
        spec = ReleaseSpec.of(mech, 1.0)
        plan = MECHANISMS[mech].plan(Task.ERRORS, spec, a, n)
        assert plan.route == "dense rows"
        assert dict(plan.costs)["DPPOSTERIOR_MAX_PAIRS"] == 2 * size * size
        rate = mech_base.DENSE_ROWS_PER_SECOND if k >= 3 else mech_base.PAIRS_PER_SECOND
        assert math.isclose(plan.seconds, 2 * size * size / rate, rel_tol=1e-12)
    if k >= 3:  # the clamped entries' dense walk (below their translation route) at their own rate
        spec = ReleaseSpec.of("geometric", 1.0)
        plan = MECHANISMS["geometric"].plan(Task.ERRORS, spec, a, n)
        assert plan.route == "dense rows" and dict(plan.costs)["DPPOSTERIOR_MAX_PAIRS"] == 2 * size * size
        assert math.isclose(plan.seconds, 2 * size * size / mech_base.CLAMPED_DENSE_ROWS_PER_SECOND, rel_tol=1e-12)
