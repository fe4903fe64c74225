"""Exact errors at scale (dpposterior.lattice.scale) and the yardstick (dpposterior.yardstick).

The brute-force oracles are tests/reference.py's (the sequential clamp's pmf and the LP of docs/definitions.md
§9, written there without the library); the dense walk of dpposterior.accuracy is the second reference.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.accuracy import expected_errors
from dpposterior.lattice import noise as N
from dpposterior.lattice import scale
from dpposterior.lattice.remap import LatticeSetup, Remap, bayes_remap, project
from dpposterior.lattice.scale import (
    COARSE_TOL,
    WIDE_TOL,
    WindowRemap,
    clamp_radius,
    clamped_errors,
    clamped_errors_by_factors,
    factor_margin,
    factor_tol,
    lattice_errors,
)
from dpposterior.mechanisms import MECHANISMS
from dpposterior.models import candidate_rank
from dpposterior.yardstick import marginal_bound


def _point(mech: str, k: int, eps: float, tol: float):
    m = MECHANISMS[mech]
    s = m.scale(k, eps)
    D = clamp_radius(lambda D: m.noise_tables(s, D - 1)[0], k, tol)
    return m.noise_tables(s, D - 1)[0]


def test_clamped_errors_match_the_brute_force_pmf():
    a, n, eps = (1.0, 2.0, 0.5), 4, 1.0
    b = clamped_errors(a, n, _point("geometric", 3, eps, 1e-8), 1e-8)
    scale = ref.GEOMETRIC_SCALE["geometric"](3, eps)
    for i, c in enumerate(b.counts.tolist()):
        pmf = ref.geometric_pmf(tuple(c), n, scale)
        e = sum(p * ref.hellinger([x + y for x, y in zip(a, c)], [x + y for x, y in zip(a, r)]) for r, p in pmf.items())
        assert b.low[i] - 1e-12 <= e <= b.high[i] + 1e-12


@settings(max_examples=6, deadline=None)
@given(k=st.sampled_from([3, 4]), eps=st.sampled_from([1.0, 2.0, 4.0]),
       mech=st.sampled_from(["geometric", "lshist"]), a0=st.sampled_from([0.5, 1.0, 3.0]))
def test_clamped_errors_bracket_the_dense_walk(k, eps, mech, a0):
    n = 6 if k == 3 else 3
    a = [a0] + [1.0] * (k - 1)
    tol = 1e-6 if k == 3 else 1e-4
    b = clamped_errors(a, n, _point(mech, k, eps, tol), tol)
    dense = expected_errors(mech, a, n, epsilon=eps).expected
    assert b.tail <= tol
    assert np.all(b.low <= dense + 1e-13) and np.all(dense <= b.high + 1e-13)


def test_clamped_errors_interior_rows_bracket_the_dense_walk():
    # eps = 3, tol 1e-6: the offsets reach 11, so the data sets with every count >= 11 (91 of R(45)) take the
    # interior (band-table) path
    a, n, eps, tol = [1.0, 0.5, 2.0], 45, 3.0, 1e-6
    b = clamped_errors(a, n, _point("geometric", 3, eps, tol), tol)
    dense = expected_errors("geometric", a, n, epsilon=eps).expected
    assert np.all(b.low <= dense + 1e-13) and np.all(dense <= b.high + 1e-13)


def test_accuracy_takes_the_translation_route_past_the_pair_budget(monkeypatch):
    a, n, eps = [1.0, 1.0, 1.0], 30, 2.0
    dense = expected_errors("geometric", a, n, epsilon=eps)
    assert dense.tail == 0 and "truncation_bound" not in dense.as_dict()
    # 2 |R(30)|^2 = 492,032 > 4e5: the dense walk is refused, the translation route (~1e5 here) is not
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "4e5")
    fast = expected_errors("geometric", a, n, epsilon=eps)
    assert 0 < fast.tail <= 1e-5 and fast.as_dict()["truncation_bound"] == fast.tail
    assert np.all(fast.expected <= dense.expected + 1e-13) and np.all(dense.expected <= fast.expected + fast.tail + 1e-13)
    assert fast.worst <= dense.worst <= fast.worst + fast.tail + 1e-13


def test_factor_route_matches_the_brute_force_pmf():
    # k = 3, n = 4, eps = 0.5: the offsets reach far past every count, so every clamp (heads and last two) acts
    a, n, eps, tol = (1.0, 2.0, 0.5), 4, 0.5, 1e-6
    b = clamped_errors_by_factors(a, n, _point("geometric", 3, eps, tol), tol)
    assert b.tail <= tol + 2 * factor_margin(3) + 1e-15
    scale = ref.GEOMETRIC_SCALE["geometric"](3, eps)
    for i, c in enumerate(b.counts.tolist()):
        pmf = ref.geometric_pmf(tuple(c), n, scale)
        e = sum(p * ref.hellinger([x + y for x, y in zip(a, c)], [x + y for x, y in zip(a, r)]) for r, p in pmf.items())
        assert b.low[i] <= e <= b.high[i]
        # the bracket is not wider than it says: the value sits within the margin of its lower end's sum
        assert e - b.low[i] <= b.tail


@settings(max_examples=10, deadline=None)
@given(k=st.sampled_from([3, 4]), eps=st.sampled_from([0.5, 1.0, 3.0]),
       mech=st.sampled_from(["geometric", "lshist", "lszhang"]), a0=st.sampled_from([0.2, 1.0, 5.0]),
       n=st.integers(1, 6))
def test_factor_route_brackets_the_dense_walk(k, eps, mech, a0, n):
    a = [a0] + [1.0] * (k - 2) + [0.5]
    tol = 1e-5 if k == 3 else 1e-4
    b = clamped_errors_by_factors(a, n, _point(mech, k, eps, tol), tol)
    dense = expected_errors(mech, a, n, epsilon=eps).expected
    assert b.tail <= tol + 2 * factor_margin(k) + 1e-15
    assert np.all(b.low <= dense) and np.all(dense <= b.high)


@pytest.mark.parametrize("a,n,eps", [((1.0, 1.0, 1.0, 1.0), 14, 1.0), ((0.5, 2.0, 1.0), 40, 2.0),
                                     ((3.0, 1.0, 0.5, 1.0), 9, 1.5), ((1.0, 1.0, 1.0, 1.0, 1.0), 4, 3.0)])
def test_factor_route_agrees_with_the_loss_route(a, n, eps, monkeypatch):
    # both routes bracket the same E(c); over the same offsets (the loss route's level steps) their sums agree far
    # below the factor route's margin, which is a proven bound on the rounding, not the rounding itself
    k = len(a)
    tol = 1e-5 if k == 3 else 1e-4
    point = _point("geometric", k, eps, tol)
    o = clamped_errors(a, n, point, tol)
    f = clamped_errors_by_factors(a, n, point, tol)
    assert np.all(f.low <= o.high) and np.all(o.low <= f.high)
    monkeypatch.setattr(scale, "FACTOR_STEP", 1.0)
    f = clamped_errors_by_factors(a, n, point, tol)
    m = factor_margin(k)
    assert f.offsets == o.offsets and 0 < m < 2e-7 and f.tail == o.tail + 2 * m
    keep = f.low > 0
    assert np.abs(f.low[keep] + m - o.low[keep]).max() <= 1e-11  # both routes' sums' rounding (far below the margin)
    assert np.all(o.low[~keep] <= m)


@pytest.mark.parametrize("a,n,eps", [((2.0, 0.5, 1.0, 1.0), 10, 1.0), ((0.5, 2.0, 1.0), 30, 1.0)])
def test_factor_route_batches_and_runs_do_not_change_the_sums(a, n, eps, monkeypatch):
    # the same sums however the rows are cut into blocks, the groups into batches, and the moved rows into slices
    # (runs of any length) or gathers (no run long enough)
    k = len(a)
    tol = 1e-5 if k == 3 else 1e-4
    point = _point("geometric", k, eps, tol)
    ways = []
    for run, batch, block in [(64, 2**18, 2**17), (1, 2**12, 3000), (10**9, 2**10, 2000)]:
        monkeypatch.setattr(scale, "FACTOR_RUN", run)
        monkeypatch.setattr(scale, "FACTOR_GROUP_ENTRIES", batch)
        ways.append(clamped_errors_by_factors(a, n, point, tol, block_entries=block).low)
    assert ways[0].max() > 0.1
    for low in ways[1:]:
        assert np.abs(low - ways[0]).max() <= 1e-12


def test_factor_tol_keeps_the_whole_bracket_within_its_width():
    assert factor_tol(4, 1e-4) + 2 * factor_margin(4) <= 1e-4
    with pytest.raises(Exception, match="rounding margin"):
        factor_tol(4, 1e-7)


def test_accuracy_takes_the_factor_route_past_the_loss_routes_budget(monkeypatch):
    a, n, eps = [1.0, 2.0, 1.0, 0.5], 10, 3.0
    dense = expected_errors("geometric", a, n, epsilon=eps)
    geo = MECHANISMS["geometric"]
    # 2 |R(10)|^2 = 163,592 pair units: the dense walk is refused at 1e5; the loss route (~1.95e5 units) too; the
    # factor route with a 1e-5 bracket (~5.9e4 units at the rate pinned here) is not
    monkeypatch.setattr(scale, "FACTOR_EVALUATIONS_PER_SECOND", 1e8)
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "1e5")
    assert geo.translation_plan(n, 4, eps)[:2] == ("factors", 1e-5)
    fast = expected_errors("geometric", a, n, epsilon=eps)
    assert 0 < fast.tail <= 1e-5
    assert np.all(fast.expected <= dense.expected) and np.all(dense.expected <= fast.expected + fast.tail)
    assert fast.worst <= dense.worst <= fast.worst + fast.tail
    # a budget only the wider bracket fits (~3.3e4 units)
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "5e4")
    assert geo.translation_plan(n, 4, eps)[:2] == ("factors", WIDE_TOL)
    wide = expected_errors("geometric", a, n, epsilon=eps)
    assert 1e-5 < wide.tail <= 1e-4 and wide.as_dict()["truncation_bound"] == wide.tail
    assert np.all(wide.expected <= dense.expected) and np.all(dense.expected <= wide.expected + wide.tail)
    # a budget only the widest bracket fits (~1.6e4 units)
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "2e4")
    assert geo.translation_plan(n, 4, eps)[:2] == ("factors", COARSE_TOL)
    coarse = expected_errors("geometric", a, n, epsilon=eps)
    assert 1e-4 < coarse.tail <= 1e-3 and coarse.as_dict()["truncation_bound"] == coarse.tail
    assert np.all(coarse.expected <= dense.expected) and np.all(dense.expected <= coarse.expected + coarse.tail)
    assert coarse.worst <= dense.worst <= coarse.worst + coarse.tail
    # and none: the one-line refusal
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "1e4")
    with pytest.raises(Exception, match="DPPOSTERIOR_MAX_PAIRS"):
        expected_errors("geometric", a, n, epsilon=eps)


def test_lattice_errors_with_project_and_with_a_window_remap_match_the_window_errors():
    a, n, eps = [1.0, 2.0, 1.0], 5, 1.0
    s = LatticeSetup(a, n, eps, tol=1e-10)
    proj = Remap(index=candidate_rank(project(s.Z, n)))
    ew = s.errors(proj)
    b = lattice_errors(a, n, eps, tol=1e-10)
    assert np.abs(b.low - ew.low).max() <= b.tail + ew.tail
    bayes, _ = bayes_remap(s)
    eb = s.errors(bayes)
    bw = lattice_errors(a, n, eps, rule=WindowRemap(n, s.W, bayes.index), tol=1e-10)
    assert np.abs(bw.low - eb.low).max() <= bw.tail + eb.tail
    assert bw.tail == N.tail_bound(3, eps, N.radius_for(3, eps, 1e-10))


@pytest.mark.parametrize("a,n,eps", [((1.0, 1.0, 1.0), 3, 1.0), ((1.0, 2.0, 0.5), 3, 0.5), ((1.0, 1.0, 1.0), 4, 2.0),
                                     ((1.0, 1.0, 1.0, 1.0), 2, 1.0), ((0.5, 1.0, 2.0, 1.0), 2, 1.0)])
def test_yardstick_is_at_or_below_the_lp(a, n, eps):
    y = marginal_bound(list(a), n, eps)
    b = ref.brute(a, n)
    assert 0 < y.worst <= ref.optimal_lp_value(b, eps, "worst") + 1e-9
    assert 0 < y.average <= ref.optimal_lp_value(b, eps, "average") + 1e-9
