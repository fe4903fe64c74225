"""The worst case's yardstick from a weighted average (``lattice.yardstick``: ``objective_weights``, ``whole_weights``,
``carry_weights``, ``mixed_weights``, ``weighted_worst``, ``weighted_bound``, ``plan_weighted``; the ``weights`` of
``flow_bound``, ``column_bound`` and ``release_bound``): each weighted dual below the weighted LP and the worst-case LP
of ``tests/reference.py`` (no library code), and so below every release; without weights the same floats as before
(docs/lattice.md, "The worst case from a weighted average")."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import yardstick as ys
from dpposterior.models import candidate_rank, candidates
from dpposterior.yardstick import plan_blocks

SMALL = st.sampled_from([((1.0, 1.0, 1.0), 3), ((1.0, 1.0, 1.0), 4), ((0.5, 2.0, 1.0), 3), ((1.0, 1.0, 1.0, 1.0), 2),
                         ((1.0, 1.0, 1.0, 1.0), 3)])


def _weights(seed: int, N: int, spike: bool) -> np.ndarray:
    """Positive weights, or nearly all the mass on one data set (where the weighted optimum is far from pi's)."""
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.01, 1.0, N)
    if spike:
        w = np.full(N, 1e-3)
        w[rng.integers(N)] = 1.0
    return w


@settings(max_examples=12, deadline=None)
@given(SMALL, st.sampled_from([0.5, 1.0, 2.0]), st.integers(0, 2**31), st.booleans())
def test_weighted_duals_are_below_the_weighted_lp_and_the_worst_case_lp(setting, eps, seed, spike):
    """Any weights: the flows' and the exact windows' (flows first) and the release start's certified bounds are at
    most the LP oracle's ``min_P sum w E_P`` at the weights they used (invariant, summing to 1), and over the weights'
    sum at most the LP oracle's worst-case optimum (hence below every release's worst case)."""
    a, n = setting
    a = np.asarray(a)
    N = math.comb(n + a.size - 1, a.size - 1)
    w = ys.objective_weights(a, n, _weights(seed, N, spike))
    b = ref.brute(tuple(a), n)
    weighted = ref.weighted_lp_value(b, eps, w)
    worst = ref.optimal_lp_value(b, eps, "worst")
    tol = 1e-7
    radius = min(2, n)
    flow = ys.flow_bound(a, n, eps, radius=radius, steps=15, weights=w)
    column = ys.column_bound(a, n, eps, flow.mu, radius=radius, steps=4, primal=True, flows=True, weights=w)
    release = ys.release_bound(a, n, eps, np.full(N, worst), radius=radius, steps=3, weights=w)
    for bound in (flow.average, column.average, release.average):
        assert bound <= weighted + tol
        assert ys.weighted_worst(bound, w) <= worst + tol
    # not vacuous: with weights spread over R(n) the windows certify a good part of the weighted optimum
    assert spike or column.average >= 0.3 * weighted


@pytest.mark.parametrize("a,n,eps,at", [((1.0, 1.0, 1.0), 3, 1.0, (3, 0, 0)), ((1.0, 1.0, 1.0), 3, 0.5, (1, 1, 1)),
                                        ((0.5, 2.0, 1.0), 3, 2.0, (1, 1, 1)), ((1.0, 1.0, 1.0), 4, 1.0, (4, 0, 0)),
                                        ((1.0, 1.0, 1.0), 6, 1.0, (2, 2, 2)), ((1.0, 1.0, 1.0), 6, 0.5, (6, 0, 0))])
def test_a_release_start_under_weights_far_from_pi_stays_below_their_lp(a, n, eps, at):
    """Weights with almost all their mass on one data set (a vertex or the centre), where ``min_P sum w E_P`` is far
    from pi's: the release start (``mu = f w E``, E the worst-case optimum everywhere) is at most the weighted LP
    oracle; costs or caps read under pi instead would certify more than it (the far side of the windows and the
    column LPs both read the weights)."""
    a = np.asarray(a)
    R = candidates(n, a.size)
    w = np.full(len(R), 1e-3)
    w[candidate_rank(np.array([at]))] = 1.0
    w = ys.objective_weights(a, n, w)
    b = ref.brute(tuple(a), n)
    weighted = ref.weighted_lp_value(b, eps, w)
    # errors at the optimum's worst case, and errors of 1 (every multiplier then clipped to the far cap)
    for E in (np.full(len(R), ref.optimal_lp_value(b, eps, "worst")), np.ones(len(R))):
        for radius in (1, 2):
            got = ys.release_bound(a, n, eps, E, radius=radius, steps=3, weights=w)
            assert got.average <= weighted + 1e-7
            # the multipliers certified with are within the weights' far cap (the windows' proof needs mu <= w cap)
            if radius < n:
                cap = ys._beta_far(a, n, R, -(-2 * (radius + 1) // a.size))
                assert np.all(got.mu <= w * cap * (1 + 1e-12))


def test_without_weights_the_bounds_are_the_floats_of_pi():
    """``weights=None`` is pi (the average's bound as before); pi passed as weights gives the same bound to
    rounding."""
    a, n, eps = np.ones(4), 4, 1.0
    pi = ys.objective_weights(a, n)
    assert np.array_equal(pi, ys._predictive(a, candidates(n, 4)))
    f0 = ys.flow_bound(a, n, eps, radius=2, steps=5)
    f1 = ys.flow_bound(a, n, eps, radius=2, steps=5, weights=pi)
    assert f1.average == pytest.approx(f0.average, rel=1e-9, abs=1e-12)
    c0 = ys.column_bound(a, n, eps, f0.mu, radius=2, steps=2)
    c1 = ys.column_bound(a, n, eps, f0.mu, radius=2, steps=2, weights=pi)
    assert c1.average == pytest.approx(c0.average, rel=1e-9, abs=1e-12)


def test_weights_are_invariant_under_the_priors_symmetries_exactly():
    """One float per orbit (the symmetry shortcut of ``column_bound`` reads an output's window for its images), summing
    to 1; at a prior with fewer symmetries only those."""
    for a, n in ((np.ones(4), 5), (np.array([1.0, 1.0, 2.0]), 6)):
        R = candidates(n, a.size)
        w = ys.objective_weights(a, n, np.random.default_rng(1).uniform(0, 1, len(R)))
        assert math.fsum(w) == pytest.approx(1.0, abs=1e-14)
        for s in ys.symmetries(a):
            assert np.array_equal(w[candidate_rank(R[:, list(s)])], w)
    with pytest.raises(Exception):
        ys.objective_weights(np.ones(3), 2, -np.ones(6))


@pytest.mark.parametrize("a,n,eps", [((1.0, 1.0, 1.0), 4, 0.5), ((1.0, 1.0, 1.0, 1.0), 3, 1.0),
                                     ((0.5, 2.0, 1.0), 3, 2.0)])
def test_the_minimax_lps_weights_are_its_saddle_point(a, n, eps):
    """``whole_weights``: the certified optimum is the LP oracle's worst case, and its weights ``lambda`` (a
    distribution, invariant) make the weighted LP's optimum that same value: the minimax LP's dual."""
    a = np.asarray(a)
    b = ref.brute(tuple(a), n)
    worst = ref.optimal_lp_value(b, eps, "worst")
    value, lam = ys.whole_weights(a, n, eps)
    assert value == pytest.approx(worst, abs=1e-7) and value <= worst + 1e-9
    assert lam.sum() == pytest.approx(1.0, abs=1e-6) and lam.min() >= 0
    assert ref.weighted_lp_value(b, eps, lam) == pytest.approx(worst, abs=1e-6)


def test_carried_weights_take_the_nearest_point_and_mix_with_pi():
    """``carry_weights``: a data set of R(n) takes the weight of the point of R(m) nearest ``c m / n`` (a vertex's
    weight stays at the vertex, a point weight lands on the data sets next to its image); ``mixed_weights``: the
    given share of them, the rest pi."""
    a = np.ones(3)
    R4, R8 = candidates(4, 3), candidates(8, 3)
    lam = np.zeros(len(R4))
    lam[candidate_rank(np.array([[4, 0, 0]]))] = 1.0
    w = ys.carry_weights(a, lam, 4, 8)
    heavy = {tuple(c) for c in R8[w > 0].tolist()}
    # made invariant: every vertex's neighbourhood, nothing further in
    assert {(8, 0, 0), (7, 1, 0), (0, 8, 0), (1, 7, 0)} <= heavy and (6, 2, 0) not in heavy and (4, 2, 2) not in heavy
    lam = np.zeros(len(R4))
    lam[candidate_rank(np.array([[2, 1, 1]]))] = 1.0
    w = ys.carry_weights(a, lam, 4, 8)
    assert w[candidate_rank(np.array([[4, 2, 2]]))][0] > 0 and w[candidate_rank(np.array([[8, 0, 0]]))][0] == 0
    _, lam = ys.whole_weights(a, 4, 1.0)
    mixed = ys.mixed_weights(a, 8, 1.0, 4, 0.5)
    expect = ys.objective_weights(a, 8, 0.5 * ys.carry_weights(a, lam, 4, 8) + 0.5 * ys.objective_weights(a, 8))
    assert np.allclose(mixed, expect, rtol=1e-12, atol=0)


def test_weighted_worst_divides_by_the_weights_sum():
    """``OPT_worst >= value / sum w``: never above ``value / sum w``."""
    w = np.full(4, 0.5)
    assert ys.weighted_worst(0.3, w) <= 0.15 and ys.weighted_worst(0.3, w) == pytest.approx(0.15, rel=1e-14)
    assert ys.weighted_worst(-1.0, w) == 0.0


def test_weighted_bound_at_a_small_size_is_below_the_lp():
    """``weighted_bound`` end to end (the minimax LP at m, carried, mixed, flows then windows), Dir(1,1,1), n = 5 from
    m = 3: below the LP oracle's worst case, and above the k = 2 bound's fraction."""
    a, n, eps = np.ones(3), 5, 1.0
    worst = ref.optimal_lp_value(ref.brute((1.0, 1.0, 1.0), n), eps, "worst")
    value = ys.weighted_bound(a, n, eps, 3, 2, 10, 3)
    assert 0.5 * worst <= value <= worst + 1e-9


def test_plan_weighted_is_refused_where_it_is_not_measured_or_the_whole_lp_runs():
    """k = 3 (not measured), n <= WEIGHTED_FROM + 1 at k = 4 (the whole LP runs there), a share under its estimate: each
    one line; Dir(1,1,1,1), n = 20, eps = 1 with 45 s: planned, with its evaluations; at eps = 2 refused (the corner
    blocks certify more there)."""
    assert not ys.plan_weighted(np.ones(3), 40, 1.0, 1000.0)[0].fits
    assert "whole LP" in ys.plan_weighted(np.ones(4), 11, 1.0, 1000.0)[0].refusal
    plan, size = ys.plan_weighted(np.ones(4), 20, 0.5, 10.0)
    assert not plan.fits and "\n" not in plan.refusal
    plan, size = ys.plan_weighted(np.ones(4), 20, 1.0, 45.0)
    assert plan.fits and size[0] == ys.WEIGHTED_FROM and ys.WEIGHTED_MIN_STEPS <= size[3] <= ys.WEIGHTED_MAX_STEPS
    assert plan.seconds <= 45.0
    assert "corner blocks" in ys.plan_weighted(np.ones(4), 20, 2.0, 45.0)[0].refusal


def test_plan_blocks_adds_the_weighted_worst_case_only_in_what_the_others_leave():
    """``weighted=True`` leaves the other plans as they were and plans the weighted worst case within what they leave
    of both shares; without it nothing changes."""
    a = np.ones(4)
    floor = 0.1
    before = plan_blocks(a, 20, 1.0, 47.0, start=True, floor=floor, whole=True)
    after = plan_blocks(a, 20, 1.0, 47.0, start=True, floor=floor, whole=True, weighted=True)
    assert ys.WEIGHTED_KEY not in before
    for key, (plan, size) in before.items():
        assert after[key][0] == plan and after[key][1] == size
    taken = sum(p.seconds for p, _ in before.values() if p.fits)
    plan, _ = after[ys.WEIGHTED_KEY]
    assert plan.fits and plan.seconds <= 2 * 47.0 - taken
    # a smaller share: what the others leave is under the weighted plan's fewest evaluations (the solve limit is not)
    tight = plan_blocks(a, 20, 1.0, 42.0, start=True, floor=floor, whole=True, weighted=True)
    taken = sum(p.seconds for key, (p, _) in tight.items() if p.fits and key != ys.WEIGHTED_KEY)
    assert not tight[ys.WEIGHTED_KEY][0].fits and tight[ys.WEIGHTED_KEY][0].seconds > 2 * 42.0 - taken
    assert ys.WEIGHTED_KEY not in plan_blocks(np.ones(3), 20, 1.0, 47.0, start=True, floor=floor, whole=True,
                                              weighted=True)


def test_the_plan_is_above_the_recorded_runs():
    """``weighted_costs`` (what ``plan_weighted`` plans) at or above every run recorded by
    ``benchmarks/weighted_worst_k4.py`` (CPU seconds in one process, the shared host's load beside each)."""
    import json
    import pathlib

    runs = json.loads((pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "weighted_worst_k4.json").read_text())
    assert runs
    for run in runs:
        _, radius, fixed, per, _ = ys.weighted_costs(np.ones(4), run["n"], run["epsilon"])
        assert radius == run["radius"]
        assert fixed + per * run["evaluations"] >= run["cpu"]
        assert fixed >= run["cpu_weights"] + run["cpu_flows"]
