"""The average yardstick started from a baseline's errors where ``compare`` computed no lattice or optimal row
(``ranking.start_row``, ``baseline_releases``; ``lattice.yardstick.plan_release``'s ``baseline``,
``BASELINE_SCALES``), and the corner blocks deepened in what the other plans leave of ``compare``'s share
(``yardstick.plan_blocks``' ``deeper``): each bound below every release of its own table and below the LP of
``tests/reference.py`` (no library code), whatever release started it (docs/lattice.md, "A yardstick at any n")."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior import yardstick as yard
from dpposterior.lattice import yardstick as ys
from dpposterior.models import candidate_rank
from dpposterior.ranking import (
    baseline_releases,
    compare_rows,
    compare_yardstick,
    fallback_releases,
    plan_compare,
    start_releases,
    start_row,
)
from dpposterior.yardstick import block_bounds, marginal_bound, plan_blocks


def _errors(average: float, rows: int, k: int = 4):
    return SimpleNamespace(average=average, counts=np.zeros((rows, k), dtype=np.int64))


def _baselines_only(errors: dict, k: int) -> dict:
    return {label: e for label, e in errors.items() if label not in start_releases(k) | fallback_releases(k)}


def test_a_baseline_starts_the_dual_only_at_k_4_and_only_where_no_lattice_or_optimal_row_was_computed():
    """k = 4, n = 2 (10 data sets): a release built for an objective first, at any average; else the baseline of
    least average error (ties by label); at k = 3 never a baseline (measured at k = 4 only); only rows over all of
    R(n)."""
    assert "lszhang" in baseline_releases(4) and "geometric" in baseline_releases(4)
    assert not baseline_releases(4) & (start_releases(4) | fallback_releases(4))
    assert baseline_releases(3) == set()
    errors = {"geometric": _errors(0.2, 10), "lszhang": _errors(0.1, 10), "lshist": _errors(0.1, 10)}
    assert start_row(4, 2, errors)[0] == "lshist"
    errors["lattice (worst)"] = _errors(0.5, 10)
    assert start_row(4, 2, errors)[0] == "lattice (worst)"
    assert start_row(4, 2, {"geometric": _errors(0.1, 9)}) is None
    assert start_row(3, 2, {"geometric": _errors(0.1, 6, 3)}) is None


@settings(max_examples=3, deadline=None)
@given(st.integers(2, 3), st.sampled_from([0.5, 1.0, 2.0]))
def test_compares_yardstick_from_a_baseline_is_below_every_release_and_the_lp(n, eps):
    """Dir(1,1,1,1): ``compare``'s table with only its baseline rows' errors at hand: the dual starts from a baseline
    (named in the bound's words) and both bounds stay below every release of the table (the lattice and optimal rows
    too) and below the LP's optima (the LP's own optimum held back so that the started bound is the one read)."""
    a = np.ones(4)
    plans = plan_compare(a, n, eps)
    errors: dict = {}
    rows = compare_rows(a, n, eps, plans=plans, errors=errors)
    only = _baselines_only(errors, 4)
    label, e = start_row(4, n, only)
    assert label in baseline_releases(4)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(yard, "lp_optima", lambda *args, **kw: {})
        y = compare_yardstick(a, n, eps, rows, plans=plans, errors=only)
    assert not isinstance(y, str), y
    b = ref.brute(tuple(a), n)
    lp_avg, lp_worst = ref.optimal_lp_value(b, eps, "average"), ref.optimal_lp_value(b, eps, "worst")
    assert y.average <= lp_avg + 1e-9 and y.worst <= lp_worst + 1e-9, (y, lp_avg, lp_worst)
    for r in rows:
        if "error" not in r:
            assert y.average <= r["average_expected_error"] * (1 + 1e-9) + 1e-12, (r["release"], y)
            assert y.worst <= r["worst_expected_error"] * (1 + 1e-9) + 1e-12, (r["release"], y)
    # the started bound itself, as compare plans it where the flows then exact windows do not replace it (at eps
    # <= WINDOWS_OVER_BASELINE_MAX_EPSILON they do where they fit: tests/library/test_yardstick_windows_first.py)
    start = (label, np.zeros(len(e.counts)))
    start[1][candidate_rank(e.counts)] = e.expected
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ys, "WINDOWS_OVER_BASELINE_MAX_EPSILON", 0.0)
        got = block_bounds(a, n, eps, plan_blocks(a, n, eps, 40.0, start=True, baseline=True), start,
                           worst=True, baseline=True)["average"]
    assert f"started from the errors of {label}" in got[1]
    assert got[0] <= lp_avg + 1e-9 and got[0] <= e.average * (1 + 1e-9)


@settings(max_examples=5, deadline=None)
@given(st.integers(2, 4), st.sampled_from([0.5, 1.0, 2.0]), st.floats(0.3, 3.0), st.integers(1, 4))
def test_any_scale_of_a_baseline_start_is_below_the_lp(n, eps, f, narrow):
    """Weak duality whatever the start: the one evaluation from a baseline's errors at any scale (far above 1 too,
    where ``mu`` must be clipped to the far cap) and at any radius (narrower than n too, where the far cap binds)
    stays below the LP's average optimum (Dir(1,1,1,1), n = 2 to 4)."""
    a = np.ones(4)
    plans = [p for p in plan_compare(a, n, eps) if p.variant.label == "lszhang"]
    errors: dict = {}
    compare_rows(a, n, eps, plans=plans, errors=errors)
    label, e = start_row(4, n, errors)
    E = np.zeros(len(e.counts))
    E[candidate_rank(e.counts)] = e.expected
    _, (radius, steps, most) = ys.plan_release(a, n, eps, 40.0, baseline=True)
    got = ys.release_bound(a, n, eps, E, radius=radius, steps=steps, scales=(f,), most=most).average
    assert got <= ref.optimal_lp_value(ref.brute(tuple(a), n), eps, "average") + 1e-9
    got = ys.release_bound(a, n, eps, E, radius=min(narrow, radius), steps=1, scales=(f,), most=most).average
    assert got <= ref.optimal_lp_value(ref.brute(tuple(a), n), eps, "average") + 1e-9


def test_the_baseline_start_lifts_the_average_bound_where_the_lp_runs():
    """Dir(1,1,1,1), n = 3, eps = 1: from a baseline's errors alone the dual certifies well above the k = 2 bound
    (fails where no baseline starts it: the k = 2 bound or the flows stand)."""
    a, n, eps = np.ones(4), 3, 1.0
    plans = plan_compare(a, n, eps)
    errors: dict = {}
    rows = compare_rows(a, n, eps, plans=plans, errors=errors)
    only = _baselines_only(errors, 4)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(yard, "lp_optima", lambda *args, **kw: {})
        y = compare_yardstick(a, n, eps, rows, plans=plans, errors=only)
    lp = ref.optimal_lp_value(ref.brute(tuple(a), n), eps, "average")
    assert "started from the errors of" in y.average_bound, y.average_bound
    assert y.average >= 1.2 * marginal_bound(a, n, eps).average and y.average <= lp + 1e-9, (y.average, lp)


# --- the plans ---------------------------------------------------------------------------------------------------


def test_the_baseline_plan_at_n_100_eps_05_in_compares_share():
    """Dir(1,1,1,1), n = 100, eps = 0.5 in ``compare``'s share (101.8 s for both objectives): one evaluation from the
    baseline's errors at radius 8 (the eps rule would ask 12) with at least RELEASE_ONE_LP_SHARE of the orbits' LPs,
    held to the solve limit; planned above its run (``benchmarks/baseline_start_k4.json``: radius 8, 3,857 LPs at
    0.55, 33.5 and 36.4 CPU s at load 3.5 and 5.7, 0.3458).  Without ``baseline`` the release's plan does not fit its
    share (radius 12)."""
    a = [1.0] * 4
    out = plan_blocks(a, 100, 0.5, 50.9, start=True, floor=0.1811, whole=True, weighted=True, baseline=True)
    plan, (radius, steps, most) = out["average"]
    assert plan.fits and (radius, steps) == (8, 1) and plan.seconds >= 36.4
    assert most >= ys.RELEASE_ONE_LP_SHARE * ys.orbit_count(a, 100)
    assert "from a baseline's errors" in plan.route
    assert "average" not in plan_blocks(a, 100, 0.5, 50.9, start=True, floor=0.1811, whole=True, weighted=True)
    # in a smaller share the corner blocks leave it both objectives' share (here the solve limit does not bind)
    out = plan_blocks(a, 100, 0.5, 30.0, start=True, floor=0.1811, whole=True, weighted=True, baseline=True)
    assert out["average"][1][0] == 8 and out["average"][0].seconds > 30.0
    assert not ys.plan_release(a, 100, 0.5, ys.COLUMN_SECONDS)[0].fits
    assert ys.release_scales(1, False, True, False, baseline=True) == ys.BASELINE_SCALES
    assert ys.release_scales(1, True, baseline=True) == ys.BASELINE_SCALES


def test_block_bounds_starts_a_baseline_at_its_scale(monkeypatch):
    calls = []
    monkeypatch.setattr(ys, "release_bound", lambda *args, **kw: calls.append(kw) or ys.FlowBound(0.1, None, 1, 1))
    a = [1.0] * 4
    plan = ys.plan_release(a, 100, 0.5, 45.0, baseline=True)
    block_bounds(a, 100, 0.5, {"average": plan}, ("lszhang", np.ones(176851)), worst=True, baseline=True)
    assert calls[-1]["scales"] == ys.BASELINE_SCALES and calls[-1]["most"] == plan[1][2]
    block_bounds(a, 100, 0.5, {"average": plan}, ("lszhang", np.ones(176851)), worst=True)
    assert calls[-1]["scales"] != ys.BASELINE_SCALES


def test_compare_tells_the_plan_and_the_bounds_that_a_baseline_starts_and_asks_for_deeper_corners():
    a, n, eps = np.ones(4), 2, 1.0
    plans = plan_compare(a, n, eps)
    errors: dict = {}
    rows = compare_rows(a, n, eps, plans=plans, errors=errors)
    seen_plan, seen_bounds = [], []
    real = yard.plan_blocks

    def spy_plan(*args, **kw):
        seen_plan.append(kw)
        return real(*args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(yard, "plan_blocks", spy_plan)
        mp.setattr(yard, "block_bounds", lambda *args, **kw: seen_bounds.append(kw) or {})
        compare_yardstick(a, n, eps, rows, plans=plans, errors=_baselines_only(errors, 4))
        first = seen_plan[-1]  # the blocks that run (the budget's rule may plan its two candidates before them)
        compare_yardstick(a, n, eps, rows, plans=plans, errors=errors)
        second = seen_plan[-1]
    assert first["baseline"] is True and seen_bounds[0]["baseline"] is True
    assert second["baseline"] is False and seen_bounds[1]["baseline"] is False
    assert first["deeper"] is True and second["deeper"] is True


def test_deeper_corner_blocks_in_what_the_other_plans_leave(monkeypatch):
    """Dir(1,1,1,1), n = 40, eps = 1 in ``compare``'s share (63.7 s for both): the average's start and the weighted
    plan as without ``deeper``; the corner blocks at depth 8 (planned 18.4 s; run 11.0 to 11.3 CPU s, 0.42116 against depth
    7's 0.41615) where the others leave room, depth 7 without it.  n = 20, eps = 0.5 (the flows then windows take the
    room): depth 7 either way."""
    # the plans beside which the sparse block is not planned (where it is: tests/library/test_yardstick_sparse.py;
    # at Dir(1,1,1,1), n = 20, eps = 0.5 it is now)
    monkeypatch.setattr(ys, "SPARSE_K", ())
    a = [1.0] * 4
    kw = dict(start=True, floor=0.1212, whole=True, weighted=True)
    before = plan_blocks(a, 40, 1.0, 31.85, **kw)
    after = plan_blocks(a, 40, 1.0, 31.85, deeper=True, **kw)
    assert before["worst"][1] == 7 and after["worst"][1] == 8 and after["worst"][0].fits
    assert {key: v[1] for key, v in before.items() if key != "worst"} == {
        key: v[1] for key, v in after.items() if key != "worst"}
    taken = sum(p.seconds for p, _ in after.values() if p.fits)
    assert taken <= 2 * 31.85
    kw20 = dict(start=True, floor=0.2759, whole=True, weighted=True)
    assert plan_blocks(a, 20, 0.5, 22.6, deeper=True, **kw20)["worst"][1] == 7
    # without a floor (not compare's mode) nothing changes
    assert plan_blocks(a, 40, 1.0, 31.85, deeper=True) == plan_blocks(a, 40, 1.0, 31.85)

