"""The average yardstick started from a worst-case release's errors where ``compare`` computed no release built for
the average (``ranking.start_row``, ``fallback_releases``), and the k = 4 plan of one evaluation with most windows'
LPs (``lattice.yardstick.plan_release``, ``release_capped``, ``release_lp_seconds``): the bound below every release of
its own table and below the LP of ``tests/reference.py`` (no library code), whatever release started it
(docs/lattice.md, "A yardstick at any n")."""

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
from dpposterior.ranking import compare_rows, compare_yardstick, fallback_releases, plan_compare, start_releases, start_row
from dpposterior.yardstick import block_bounds, plan_blocks


def _errors(average: float, rows: int, k: int = 4):
    return SimpleNamespace(average=average, counts=np.zeros((rows, k), dtype=np.int64))


def test_the_start_is_an_average_release_else_a_worst_case_one_before_a_baseline():
    """k = 4, n = 2 (10 data sets): a release built for the average starts the dual even at a larger average error;
    where none was computed, the release built for the worst case of least average error (ties by label), not a
    baseline (``geometric`` is lower here but not near the optimum by design: a baseline starts only where no such
    release was computed, ``tests/library/test_yardstick_baseline_start.py``); only rows over all of R(n)."""
    assert "lattice (worst)" in fallback_releases(4) and not fallback_releases(4) & start_releases(4)
    errors = {"geometric": _errors(0.1, 10), "optimal (worst)": _errors(0.3, 10), "lattice (worst)": _errors(0.3, 10)}
    assert start_row(4, 2, errors)[0] == "lattice (worst)"
    errors["lattice (average)"] = _errors(0.4, 10)
    assert start_row(4, 2, errors)[0] == "lattice (average)"
    assert start_row(4, 2, {"lattice (worst)": _errors(0.3, 9)}) is None
    assert start_row(4, 2, {"geometric": _errors(0.1, 10)})[0] == "geometric"
    assert start_row(3, 2, {"geometric": _errors(0.1, 6, 3)}) is None
    assert start_row(4, 2, None) is None


@settings(max_examples=5, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0), (0.5, 2.0, 1.0), (1.0, 1.0, 1.0, 1.0)]), st.integers(2, 4),
       st.sampled_from([0.5, 1.0, 2.0]))
def test_compares_yardstick_from_a_worst_case_release_is_below_every_release_and_the_lp(a, n, eps):
    """``compare``'s table with its average rows taken out of the errors: the dual starts from the worst case's
    release (named in the bound's words) and its bound stays below every release of the table (the average rows
    too) and below the LP's optimum; the LP's own optimum is held back so that the started bound is the one read."""
    a = np.asarray(a, dtype=np.float64)
    k = a.size
    if k == 4:
        n = 2
    plans = plan_compare(a, n, eps)
    errors: dict = {}
    rows = compare_rows(a, n, eps, plans=plans, errors=errors)
    worst_only = {label: e for label, e in errors.items() if label not in start_releases(k)}
    label, _ = start_row(k, n, worst_only)
    assert label in fallback_releases(k)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(yard, "lp_optima", lambda *args, **kw: {})
        y = compare_yardstick(a, n, eps, rows, plans=plans, errors=worst_only)
    assert not isinstance(y, str), y
    lp = ref.optimal_lp_value(ref.brute(tuple(a), n), eps, "average")
    assert y.average <= lp + 1e-9
    for r in rows:
        if "error" not in r:
            assert y.average <= r["average_expected_error"] * (1 + 1e-9) + 1e-12, (r["release"], y)
            assert y.worst <= r["worst_expected_error"] * (1 + 1e-9) + 1e-12, (r["release"], y)
    # the started bound itself, run as compare plans it, named and below the LP
    e = worst_only[label]
    start = (label, np.zeros(len(e.counts)))
    start[1][candidate_rank(e.counts)] = e.expected
    got = block_bounds(a, n, eps, plan_blocks(a, n, eps, 40.0, start=True), start)["average"]
    assert got[0] <= lp + 1e-9 and got[0] <= e.average * (1 + 1e-9)
    if "started from" in got[1]:
        assert f"started from the errors of {label}" in got[1]


def test_the_worst_case_start_lifts_the_average_bound_where_the_lp_runs():
    """Dir(1,1,1,1), n = 3, eps = 1: from the worst case's release's errors (the LP's, ``optimal (worst)``) the dual certifies within 10 % of the LP, far
    above the k = 2 bound (fails where the fallback is not taken: the flows' or the k = 2 bound stand)."""
    a, n, eps = np.ones(4), 3, 1.0
    plans = plan_compare(a, n, eps)
    errors: dict = {}
    rows = compare_rows(a, n, eps, plans=plans, errors=errors)
    worst_only = {label: e for label, e in errors.items() if label not in start_releases(4)}
    lp = ref.optimal_lp_value(ref.brute(tuple(a), n), eps, "average")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(yard, "lp_optima", lambda *args, **kw: {})
        y = compare_yardstick(a, n, eps, rows, plans=plans, errors=worst_only)
    label = start_row(4, n, worst_only)[0]
    assert label in fallback_releases(4) and f"started from the errors of {label}" in y.average_bound, y.average_bound
    assert 0.9 * lp <= y.average <= lp + 1e-9, (y.average, lp)


# --- the k = 4 plan ----------------------------------------------------------------------------------------------


def test_at_k_4_one_evaluation_with_most_lps_where_every_lp_does_not_fit():
    """Dir(1,1,1,1), n = 100, eps = 1 in ``compare``'s share (18.35 s): every window's LP is planned at ~30 s, so one
    evaluation at one scale with the LPs of the largest deficits, at least RELEASE_ONE_LP_SHARE of the orbits
    (measured from ``lattice (worst)``: 3,800 LPs 0.25888 at 0.9; every LP at the capped scale 0.75 0.2300), each
    planned at or above the 4.2 ms measured at radius 6 (load ~5.5)."""
    a = [1.0] * 4
    plan, (radius, steps, most) = ys.plan_release(a, 100, 1.0, 18.35)
    orbits = ys.orbit_count(a, 100)
    assert plan.fits and plan.seconds <= 18.35 and steps == 1 and radius == 6
    assert ys.RELEASE_ONE_LP_SHARE * orbits <= most < orbits and not ys.release_capped(a, 100, most)
    assert f"the LPs of the {most:,} largest deficits, at one scale" in plan.route
    assert ys.release_lp_seconds(4, ys.offset_count(4, 6)) >= 4.2e-3
    # k = 3 keeps its constants and its last resort (Dir(1,1,1), n = 1000, eps = 0.5: the capped scales)
    assert ys.release_lp_seconds(3, 100) == pytest.approx(ys.RELEASE_SECONDS_BASE + ys.RELEASE_SECONDS_PER_NODE * 100)
    plan, (radius, steps, most) = ys.plan_release([1.0] * 3, 1000, 0.5, 12.9)
    assert plan.fits and ys.release_capped([1.0] * 3, 1000, most)
    assert ys.release_capped([1.0] * 3, 1000, ys.orbit_count([1.0] * 3, 1000) - 1)  # any cap at k = 3


def test_at_k_4_most_windows_lps_at_a_narrower_radius_before_fewer_at_a_wider_one(monkeypatch):
    """Dir(1,1,1,1), n = 100, eps = 1 in the share ``compare`` leaves after the refitted worst row (~26.0 s): radius 6
    with the LPs of at least RELEASE_MANY_LP_SHARE of the orbits (measured: 5,700 LPs at 0.92 certify 0.26681, 1.182
    of the best average), not radius 7 with 0.44 of them (3,559 LPs at 0.9: 0.26066, 1.210); from a release built
    for the worst case that evaluation starts at RELEASE_MANY_WORST.  In the old share (18.35 s) the tier below, as
    before."""
    a = [1.0] * 4
    orbits = ys.orbit_count(a, 100)
    plan, (radius, steps, most) = ys.plan_release(a, 100, 1.0, 26.0)
    assert plan.fits and plan.seconds <= 26.0 and (radius, steps) == (6, 1)
    assert ys.RELEASE_MANY_LP_SHARE * orbits <= most < orbits and ys.release_many(a, 100, most)
    # without the tier, the widest radius with RELEASE_ONE_LP_SHARE of them (radius 7)
    monkeypatch.setattr(ys, "RELEASE_MANY_LP_SHARE", 2.0)
    assert ys.plan_release(a, 100, 1.0, 26.0)[1][0] == 7
    monkeypatch.undo()
    _, (radius, _, few) = ys.plan_release(a, 100, 1.0, 18.35)
    assert radius == 6 and not ys.release_many(a, 100, few) and not ys.release_many([1.0] * 3, 1000, None)
    calls = []
    monkeypatch.setattr(ys, "release_bound", lambda *args, **kw: calls.append(kw) or ys.FlowBound(0.1, None, 1, 1))
    block_bounds(a, 100, 1.0, {"average": (plan, (radius, 1, most))}, ("x", np.ones(176851)), worst=True)
    assert calls[-1]["scales"] == ys.RELEASE_MANY_WORST == (0.92,) and calls[-1]["most"] == most
    block_bounds(a, 100, 1.0, {"average": (plan, (radius, 1, few))}, ("x", np.ones(176851)), worst=True)
    assert calls[-1]["scales"] == ys.RELEASE_ONE_WORST
    block_bounds(a, 100, 1.0, {"average": (plan, (radius, 1, most))}, ("x", np.ones(176851)))
    assert calls[-1]["scales"] == ys.RELEASE_ONE  # an average release's start as before


def test_the_k_4_cap_starts_at_one_scale_and_the_last_resort_at_the_capped_scales(monkeypatch):
    calls = []
    monkeypatch.setattr(ys, "release_bound", lambda *args, **kw: calls.append(kw) or ys.FlowBound(0.1, None, 1, 1))
    a = [1.0] * 4
    plan = ys.plan_release(a, 100, 1.0, 18.35)
    block_bounds(a, 100, 1.0, {"average": plan}, ("x", np.ones(176851)))
    assert calls[-1]["scales"] == ys.RELEASE_ONE and calls[-1]["most"] == plan[1][2]
    block_bounds(a, 100, 1.0, {"average": plan}, ("x", np.ones(176851)), worst=True)
    assert calls[-1]["scales"] == ys.RELEASE_ONE_WORST == (0.9,)
    few = int(ys.RELEASE_MIN_LP_SHARE * ys.orbit_count(a, 100)) + 1
    block_bounds(a, 100, 1.0, {"average": (plan[0], (6, 1, few))}, ("x", np.ones(176851)))
    assert calls[-1]["scales"] == ys.RELEASE_CAPPED_SCALES


def test_compare_starts_a_worst_case_release_at_its_own_scale():
    """``compare_yardstick`` tells :func:`block_bounds` whether its start is a release built for the worst case (its
    one evaluation at :data:`~dpposterior.lattice.yardstick.RELEASE_ONE_WORST`), and not when an average release
    starts it."""
    a, n, eps = np.ones(4), 2, 1.0
    plans = plan_compare(a, n, eps)
    errors: dict = {}
    rows = compare_rows(a, n, eps, plans=plans, errors=errors)
    worst_only = {label: e for label, e in errors.items() if label not in start_releases(4)}
    seen = []

    def spy(*args, **kw):
        seen.append((args[4][0] if len(args) > 4 and args[4] else None, kw.get("worst")))
        return {}

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(yard, "block_bounds", spy)
        compare_yardstick(a, n, eps, rows, plans=plans, errors=worst_only)
        compare_yardstick(a, n, eps, rows, plans=plans, errors=errors)
    assert seen[0][0] in fallback_releases(4) and seen[0][1] is True
    assert seen[1][0] in start_releases(4) and seen[1][1] is False
