"""The worst case's bound from every data set's own ball of outputs (dpposterior.lattice.yardstick.ball_bound).

Oracles: the LP of docs/definitions.md §9 written in tests/reference.py without the library (dense, so at most
k = 4, n = 4 and k = 3, n = 6), and the exact worst-case error of a concrete eps-DP table (the exponential
mechanism over R(n), its losses from tests/reference.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import reference as ref
from dpposterior.lattice.yardstick import ball_bound, corner_bound


@pytest.mark.parametrize("a, n", [((1.0, 1.0, 1.0, 1.0), 4), ((1.0, 1.0, 1.0), 6), ((0.5, 2.0, 1.0), 6),
                                  ((1.0, 2.0, 1.0, 0.5), 3)])
@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_every_ball_all_of_r_n_is_the_lp_itself(a, n, eps):
    # radius and inner at n: every output in every ball, every constraint kept, so the relaxation is the LP; a
    # relaxation that dropped or weakened anything there (or mis-reduced the orbits) would sit below it
    lp = ref.optimal_lp_value(ref.brute(a, n), eps, "worst")
    assert ball_bound(a, n, eps, n, n) == pytest.approx(lp, abs=1e-7)


@pytest.mark.parametrize("a, n", [((1.0, 1.0, 1.0, 1.0), 4), ((1.0, 1.0, 1.0), 6), ((0.5, 2.0, 1.0), 6)])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_smaller_balls_stay_below_the_lp_and_grow_with_the_radius(a, n, eps):
    lp = ref.optimal_lp_value(ref.brute(a, n), eps, "worst")
    values = [ball_bound(a, n, eps, radius) for radius in range(1, n + 1)]
    assert all(v <= lp + 1e-9 for v in values)
    # radius r is a relaxation of radius r + 1 (the (r + 1)-solution mapped with the distance r + 1 outputs folded
    # into F): the certified values do not fall, up to the certificate's rounding
    assert all(b >= c - 1e-8 for c, b in zip(values, values[1:]))
    assert values[-1] == pytest.approx(lp, abs=1e-7)  # default inner = radius - 1 at radius n drops nothing that binds
    assert values[0] < lp - 1e-3  # the smallest ball is a real relaxation here (the tests above could not tell)


def _exponential_worst(a, n: int, eps: float) -> float:
    """max_c sum_r P(r | c) H(c, r) of P(r | c) proportional to exp(-eps d(c, r) / 2): eps-DP (the exponent moves
    by at most eps / 2 between neighbours, its normaliser by at most a factor e^(eps / 2))."""
    b = ref.brute(a, n)
    worst = 0.0
    for ci, c in enumerate(b.cands):
        w = [math.exp(-eps * ref.dist(c, r) / 2) for r in b.cands]
        z = sum(w)
        worst = max(worst, sum(wi / z * b.H[ci][ri] for ri, wi in enumerate(w)))
    return worst


@pytest.mark.parametrize("a", [(1.0, 1.0, 1.0, 1.0), (1.0, 2.0, 1.0, 0.5)])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_below_a_concrete_release_s_worst_error(a, eps):
    n = 7
    bound = ball_bound(a, n, eps, 3)
    assert 0.0 < bound <= _exponential_worst(a, n, eps)


@pytest.mark.parametrize("a", [(1.0, 1.0, 1.0, 1.0), (1.0, 1.0, 2.0, 2.0)])
def test_the_orbit_lp_has_the_whole_relaxation_s_optimum(a):
    # one variable per orbit is exact only because the relaxation is invariant (the balls, L'' and the pairs)
    for radius, inner in ((2, 1), (3, 3)):
        assert ball_bound(a, 5, 0.5, radius, inner) == pytest.approx(
            ball_bound(a, 5, 0.5, radius, inner, symmetric=False), abs=1e-7)


def test_the_whole_lp_by_orbits_agrees_at_k4_n6():
    a = np.ones(4)
    assert ball_bound(a, 6, 0.5, 6, 6) == pytest.approx(corner_bound(a, 6, 0.5, 6).worst, abs=1e-7)
    assert ball_bound(a, 6, 0.5, 4) < corner_bound(a, 6, 0.5, 6).worst
