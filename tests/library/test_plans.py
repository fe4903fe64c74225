"""One plan per call: the route a command states is the route it runs (dpposterior.limits.Plan, Mechanism.plan)."""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest

import dpposterior as dp
from dpposterior import ranking, validate
from dpposterior.errors import SizeError
from dpposterior.limits import Plan, Task, admit
from dpposterior.mechanisms import MECHANISMS, ReleaseSpec
from dpposterior.mechanisms.base import ROWS_ROUTES, Mechanism

GRID = [(k, n, eps) for k, n in ((2, 6), (2, 40), (3, 4), (3, 12), (4, 3)) for eps in (0.5, 1.0, 2.0)]


@pytest.mark.parametrize("k, n, eps", GRID)
def test_the_route_run_is_the_route_planned(monkeypatch, k, n, eps):
    """Over a grid of entries, k, n and eps: an admitted plan of the expected errors walks whole rows exactly when its
    route is a rows route, and calls the entry's own route otherwise; a bracketed answer is within the plan's
    bracket."""
    ran = collections.Counter()
    classes = {type(v.entry) for v in ranking.compare_variants()}
    classes |= {type(_spec(v.entry.id, calibrate=True).mechanism) for v in ranking.compare_variants() if v.calibrate}
    for cls in classes:
        for name in ("rows", "direct_errors"):
            def counted(self, *args, _orig=getattr(cls, name), _name=name, **kw):
                ran[_name] += 1
                return _orig(self, *args, **kw)
            monkeypatch.setattr(cls, name, counted)
    checked = 0
    for rp in ranking.plan_compare(np.ones(k), n, eps):
        if rp.left_out or rp.same_as:
            continue
        ran.clear()
        e = dp.expected_errors(rp.spec, np.ones(k), n)
        walks = rp.plan.route in ROWS_ROUTES
        assert (ran["rows"] > 0) == walks and (ran["direct_errors"] > 0) == (not walks), (rp.variant.label,
                                                                                          rp.plan.route, dict(ran))
        assert e.tail <= rp.plan.bracket + 1e-300
        checked += 1
    assert checked >= 8


def test_admit_refuses_in_the_plans_own_line_naming_the_setting(monkeypatch):
    plan = Plan(task=Task.ERRORS, route="dense rows", what="the expected errors of x for k=3, n=9", seconds=50.0,
                costs=(("DPPOSTERIOR_MAX_PAIRS", 5e8),), advice="use a smaller n")
    assert not plan.fits
    with pytest.raises(SizeError) as info:
        admit(plan)
    text = str(info.value)
    assert "\n" not in text and text.startswith("the expected errors of x for k=3, n=9: would take about 50 s")
    assert text.endswith("(use a smaller n, or set DPPOSTERIOR_MAX_PAIRS to raise it)")
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "6e8")
    assert plan.fits and admit(plan) is plan
    big = Plan(task=Task.ERRORS, route="window remap", what="w", memory_bytes=5 * 2**30)
    with pytest.raises(SizeError, match=r"^w: needs ~5 GiB \(window remap\), over the limit of 4 GiB .*MEMORY_GB"):
        admit(big)
    with pytest.raises(SizeError, match="^no route here$"):
        admit(Plan(task=Task.DRAW, route="draw", what="d", refusal="no route here"))


def _spec(mechanism, eps=1.0, **kw):
    return ReleaseSpec.of(mechanism, eps, **kw)


def test_optimal_past_its_linear_program_is_the_lattice_release_in_every_number():
    """k = 3, n = 20 (the LP over its time limit): optimal's plan is the lattice release's, and its errors are the
    lattice release's, bit for bit."""
    a = np.ones(3)
    for objective in ("average",):
        opt, lat = _spec("optimal", objective=objective), _spec("lattice", objective=objective)
        po = MECHANISMS["optimal"].plan(Task.ERRORS, opt, a, 20)
        pl = MECHANISMS["lattice"].plan(Task.ERRORS, lat, a, 20)
        assert (po.route, po.seconds, po.costs, po.bracket) == (pl.route, pl.seconds, pl.costs, pl.bracket)
        eo, el = dp.expected_errors(opt, a, 20), dp.expected_errors(lat, a, 20)
        assert np.array_equal(eo.expected, el.expected) and eo.worst == el.worst and eo.average == el.average
    # a refusal names the release asked for (k = 4, n = 100, eps = 0.5: the corner remap, over its limits)
    po = MECHANISMS["optimal"].plan(Task.ERRORS, _spec("optimal", 0.5), np.ones(4), 100)
    assert po.refused().startswith("the expected errors of optimal (worst) for k=4, n=100, eps=0.5 (past its linear "
                                   "program: the lattice release)")
    # k = 3, n = 30: the worst case is the corner remap's (docs/lattice.md), planned and within the limits
    po = MECHANISMS["optimal"].plan(Task.ERRORS, _spec("optimal"), a, 30)
    assert po.route == "corner remap" and po.fits, po.refused()


def test_each_release_answers_by_its_own_route_where_the_dense_walk_would_not_fit():
    """k = 2, n = 20,000: geometric and optimal are geometric + a remap, whose errors take O(n W) (the dense walk would
    need 8e8 evaluations): planned by that route, and within the limits (optimal's worst-case remap at eps = 0.1 is
    over its own solve limit: refused by that, with its setting)."""
    a = np.ones(2)
    for mechanism, objective, eps in (("optimal", "average", 0.1), ("optimal", "worst", 1.0), ("geometric", "worst", 0.1)):
        spec = _spec(mechanism, eps, objective=objective)
        plan = spec.mechanism.plan(Task.ERRORS, spec, a, 20000)
        assert plan.route == "remap risk" and plan.fits, plan.refused()
    spec = _spec("optimal", 0.1)
    assert "DPPOSTERIOR_MAX_SOLVE_SECONDS" in spec.mechanism.plan(Task.ERRORS, spec, a, 20000).refused()
    e = dp.expected_errors("geometric", a, 20000, epsilon=0.1)
    assert 0 < e.average < e.worst < 1


def test_optimal_releases_at_k3_and_k4_as_the_lattice_release_it_is():
    """A draw's plan: past its linear program optimal is the lattice release (its local search), not a padded release
    over R(n), at k = 3, n = 1e4 and k = 4, n = 1e4."""
    for k in (3, 4):
        counts = np.full(k, 10_000 // k)
        counts[0] += 10_000 - counts.sum()
        spec = _spec("optimal", objective="average")
        plan = MECHANISMS["optimal"].plan(Task.DRAW, spec, np.ones(k), 10_000)
        assert plan.route == "local search" and plan.fits, plan.refused()
        with pytest.warns(dp.PrivacyWarning, match="seeded"):
            r = dp.release("optimal", np.ones(k), counts, epsilon=1.0, objective="average", rng=3)
        assert r.released_counts.sum() == 10_000


def test_compare_and_release_validate_each_input_once(monkeypatch):
    """The inputs are validated where they enter; nothing on the way down validates them again."""
    calls = collections.Counter()
    for name in ("prior", "counts", "epsilon", "delta", "size", "gamma"):
        real = getattr(validate, name)

        def counted(*args, _real=real, _name=name, **kw):
            calls[_name] += 1
            return _real(*args, **kw)
        monkeypatch.setattr(validate, name, counted)
    with pytest.warns(dp.PrivacyWarning):
        dp.release("geometric", [1, 1], [40, 60], epsilon=1.0, rng=1)
    assert max(calls.values()) == 1, calls
    for k, n in ((2, 20), (3, 5)):
        calls.clear()
        dp.compare(np.ones(k), n, epsilon=1.0)
        # the lattice layer's own cached set-up functions (its radius and normaliser, once per k and eps) aside
        assert calls["prior"] == calls["size"] == calls["delta"] == 1, calls
        assert calls["epsilon"] <= 1 + 3 * (k >= 3), calls


@pytest.mark.parametrize("k, n", [(3, 5), (3, 20), (4, 3)])
def test_compare_ranks_the_lp_optimum_or_the_lattice_release_first(k, n):
    """Wherever either runs within the default limits, the first row of each ranking (worst and average) is the LP
    optimum or the lattice release, never geometric or an exponential mechanism."""
    rows = [r for r in dp.compare(np.ones(k), n, epsilon=1.0) if "error" not in r]
    best = {"optimal (worst)", "optimal (average)", "lattice (worst)", "lattice (average)"}
    assert rows[0]["release"] in best
    assert min(rows, key=lambda r: r["average_expected_error"])["release"] in best


def test_draw_setups_are_the_padded_releases():
    from dpposterior import padding
    from dpposterior.mechanisms.base import DRAW_SETUPS

    assert DRAW_SETUPS == padding.RELEASE_SETUPS


def test_plans_from_public_inputs_only():
    """A plan's signature takes no counts, and a plan is a value: the same public inputs give the same plan."""
    import inspect

    for name in ("plan", "plan_errors", "plan_draw"):
        params = inspect.signature(getattr(Mechanism, name)).parameters
        assert "counts" not in params
    for entry, (k, n) in itertools.product(("geometric", "optimal", "lattice"), ((3, 30), (2, 50))):
        spec = _spec(entry, objective="average") if MECHANISMS[entry].objectives else _spec(entry)
        assert MECHANISMS[entry].plan(Task.ERRORS, spec, np.ones(k), n) == \
            MECHANISMS[entry].plan(Task.ERRORS, spec, np.ones(k), n)


def test_the_plans_rates_are_the_ones_measured_in_benchmarks_plans_json():
    """The rates the plans use are those benchmarks/plans.py ran with (a rate changed without measuring again fails),
    and there each plan's seconds were within 2x of the measured CPU seconds either way, where the call took a
    second or more, and its memory estimate at least half the measured peak's growth, where that was 100 MB or more
    (an estimate above the peak refuses early; one far below would let a call past DPPOSTERIOR_MEMORY_GB)."""
    import json
    import pathlib
    import sys

    root = pathlib.Path(__file__).resolve().parents[2]
    data = json.loads((root / "benchmarks" / "plans.json").read_text(encoding="utf-8"))
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        import plans as bench
    finally:
        sys.path.remove(str(root / "benchmarks"))
    assert bench.rates() == data["rates"]
    timed = [c for c in data["calls"] if "refused" not in c and c["cpu_seconds"] >= 1.0]
    assert len(timed) >= 8
    for c in timed:
        assert 0.5 <= c["planned_seconds"] / c["cpu_seconds"] <= 2.0, c
    for c in (c for c in data["calls"] if "refused" not in c and c["peak_growth_bytes"] >= 100e6):
        assert c["planned_bytes"] >= 0.5 * c["peak_growth_bytes"], c
