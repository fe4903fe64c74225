"""The average's flows then exact windows under pi (``lattice.yardstick.windows_bound``, ``plan_windows``,
``window_costs``; ``yardstick.plan_blocks``' substitution for a capped release start at k = 4, eps <= 1): the bound
below the LP oracle's average optimum (``tests/reference.py``, no library code), so below every release's average;
the plan at or above its recorded runs; the substitution only where the release's start is capped."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import yardstick as ys
from dpposterior.yardstick import block_bounds, plan_blocks

SMALL = st.sampled_from([((1.0, 1.0, 1.0), 3), ((1.0, 1.0, 1.0), 4), ((0.5, 2.0, 1.0), 3), ((1.0, 1.0, 1.0, 1.0), 2),
                         ((1.0, 1.0, 1.0, 1.0), 3)])


@settings(max_examples=10, deadline=None)
@given(SMALL, st.sampled_from([0.5, 1.0, 2.0]), st.integers(1, 3), st.integers(0, 3))
def test_windows_bound_is_below_the_average_lp(setting, eps, radius, steps):
    """The flows then exact windows (any radius, any evaluations) certify at most the LP oracle's average optimum,
    which is at most every release's average (the oracle's geometric release's, in the same table, too); and not
    vacuously: at least 0.3 of it once windows are evaluated."""
    a, n = setting
    a = np.asarray(a)
    b = ref.brute(tuple(a), n)
    opt = ref.optimal_lp_value(b, eps, "average")
    radius = min(radius, n)
    value = ys.windows_bound(a, n, eps, radius, 10, steps)
    assert value <= opt + 1e-7
    geometric = sum(ref.dirichlet_multinomial(a, c) * ref.expected_error(b, "geometric", c, eps) for c in b.cands)
    assert value <= geometric + 1e-7
    assert steps == 0 or value >= 0.3 * opt


def test_windows_bound_through_block_bounds_is_the_average_and_below_the_lp():
    """``block_bounds`` runs a plan under ``WINDOWS_KEY`` as the average's bound (Dir(1,1,1,1), n = 4, eps = 1): below
    the LP oracle's average optimum, never the worst case's."""
    a, n, eps = np.ones(4), 4, 1.0
    plan, size = ys.plan_windows(a, n, eps, 1000.0)
    assert plan.fits and size == (4, ys.WEIGHTED_FLOW_STEPS, ys.WINDOWS_MAX_STEPS)
    small = (plan, (2, 10, 2))
    out = block_bounds(a, n, eps, {ys.WINDOWS_KEY: small})
    assert set(out) == {"average"}
    opt = ref.optimal_lp_value(ref.brute((1.0, 1.0, 1.0, 1.0), n), eps, "average")
    assert 0.3 * opt <= out["average"][0] <= opt + 1e-7
    assert "flows first" in out["average"][1]


def test_plan_windows_is_refused_in_one_line_where_it_does_not_fit():
    """k = 3 (not measured), a share under its fewest evaluations: each one line; Dir(1,1,1,1), n = 20, eps = 0.5
    with what the corner blocks leave of compare's two shares (24.7 s): planned, within it."""
    assert "not measured" in ys.plan_windows(np.ones(3), 20, 0.5, 1000.0)[0].refusal
    plan, _ = ys.plan_windows(np.ones(4), 20, 0.5, 10.0)
    assert not plan.fits and "\n" not in plan.refusal
    plan, size = ys.plan_windows(np.ones(4), 20, 0.5, 24.7)
    assert plan.fits and plan.seconds <= 24.7 and size[2] >= ys.WINDOWS_MIN_STEPS


def test_plan_blocks_takes_the_windows_only_where_the_release_start_is_capped(monkeypatch):
    """Dir(1,1,1,1), compare's shares (benchmarks: n = 20, eps = 0.5 leaves 15.4 s an objective): the capped release
    start (one evaluation, a cap on its LPs) gives way to the flows then windows, within what the corner blocks leave;
    at eps = 1 (the release's full evaluations) and at n = 100, eps = 1 (capped, but the windows do not fit) the
    release's start stays; at eps = 2 (over WEIGHTED_MAX_EPSILON) too; at k = 3 never."""
    # the plans beside which the sparse block is not planned (where it is: tests/library/test_yardstick_sparse.py;
    # at Dir(1,1,1,1), n = 20, eps = 0.5 it is now)
    monkeypatch.setattr(ys, "SPARSE_K", ())
    a, floor = np.ones(4), 0.1
    out = plan_blocks(a, 20, 0.5, 15.4, start=True, floor=floor, whole=True, weighted=True)
    assert "average" not in out and out[ys.WINDOWS_KEY][0].fits
    assert out["worst"][0].seconds + out[ys.WINDOWS_KEY][0].seconds <= 2 * 15.4
    assert out[ys.WINDOWS_KEY][0].seconds > 15.4  # it took the corner blocks' leftover, not the average's share alone
    without = plan_blocks(a, 20, 0.5, 15.4, start=True, floor=floor, whole=True)
    assert without.keys() == {"worst", ys.WINDOWS_KEY}
    for n, eps in ((20, 1.0), (100, 1.0), (100, 2.0)):
        out = plan_blocks(a, n, eps, 26.0, start=True, floor=floor, whole=True, weighted=True)
        assert ys.WINDOWS_KEY not in out and len(out["average"][1]) == 3
    assert out["average"][1][2] is not None  # n = 100, eps = 2: capped, kept (eps over the windows' range)
    out = plan_blocks(np.ones(3), 20, 0.5, 15.4, start=True, floor=floor, whole=True, weighted=True)
    assert ys.WINDOWS_KEY not in out


def test_the_plan_is_above_the_recorded_runs():
    """``window_costs`` (what ``plan_windows`` plans) at or above every run recorded by
    ``benchmarks/windows_first_k4.py`` (CPU seconds in one process, the shared host's load beside each)."""
    runs = json.loads((pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "windows_first_k4.json").read_text())
    assert runs
    for run in runs:
        radius, fixed, per, _ = ys.window_costs(np.ones(4), run["n"], ys.WINDOWS_COLUMN_FACTOR)
        assert radius == run["radius"]
        assert fixed + per * run["evaluations"] >= run["cpu"]
        assert fixed >= run["cpu_flows"]


@pytest.mark.parametrize("n", [12, 15, 20, 25])
def test_window_costs_are_the_weighted_costs_less_the_minimax_lp(n):
    """The weighted worst case runs the same flows and windows after its minimax LP: its plan is that LP's plus these
    (so the two plans cannot drift apart)."""
    a = np.ones(4)
    m, radius, fixed, per, _ = ys.weighted_costs(a, n, 0.5)
    r, f, p, _ = ys.window_costs(a, n)
    R0 = ys.corner_block(m, 4, 0, m)
    rows, groups, pairs = ys.block_shape(m, R0, ys.CORNER_REACH)
    lp = ys.whole_seconds(rows, groups, pairs, len(ys._symmetry_images(a, R0)), 4)
    assert (radius, per) == (r, p) and fixed == pytest.approx(lp + f, rel=1e-12)


def test_the_windows_replace_a_baseline_s_start_where_they_fit():
    """``compare`` with no release built for an objective computed (the average's start a baseline's errors), in its
    shares at Dir(1,1,1,1) (about 74.6 s an objective): at eps 0.5, n = 30 and 34 the flows then exact windows in the
    start's share; at n = 40 and 100 (they do not fit) the baseline's start; at eps 1 (over
    ``WINDOWS_OVER_BASELINE_MAX_EPSILON``) the start; at k = 3 never."""
    kw = dict(start=True, floor=0.1, whole=True, weighted=True, baseline=True)
    a = np.ones(4)
    for n in (30, 34):
        out = plan_blocks(a, n, 0.5, 74.6, **kw)
        assert out[ys.WINDOWS_KEY][0].fits and "average" not in out
        assert sum(p.seconds for p, _ in out.values() if p.fits) <= 2 * 74.6
    for n, eps in ((40, 0.5), (100, 0.5), (30, 1.0)):
        out = plan_blocks(a, n, eps, 74.6, **kw)
        assert ys.WINDOWS_KEY not in out and len(out["average"][1]) == 3, (n, eps)
    assert ys.WINDOWS_KEY not in plan_blocks(np.ones(3), 300, 0.5, 74.6, **kw)
