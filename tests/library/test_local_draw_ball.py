"""The local-search draw's ball built in blocks, its plan, and the local column's plan counting its reach region.

* :func:`dpposterior.lattice.remap._ball` (built one value of the first coordinate at a time, int16 blocks) equals
  the definition ``{w : sum w = 0, sum |w_i| / 2 <= D}`` in lexicographic order, row for row, as int64;
* :func:`dpposterior.lattice.column.reach_inside_count` equals the count of ``c0 + U(Dc)`` in R(n) over an enumerated
  ``U(Dc) = {u : sum u = 0, every u_i <= Dc or every u_i >= -Dc}``, and ``_bounded_count`` the count of a box's
  points of a given sum;
* the padded release's draws at k = 4, eps = 0.25 (the local search) are planned, not refused, and their plan is the
  ball built once plus a search per draw (:func:`dpposterior.mechanisms.lattice.draw_seconds`).

The oracles enumerate the definitions with itertools; they import nothing from the library.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.lattice.column import _bounded_count, reach_inside_count
from dpposterior.lattice.remap import _ball


def _ball_definition(k: int, D: int) -> list[tuple[int, ...]]:
    out = []
    for head in itertools.product(range(-D, D + 1), repeat=k - 1):
        w = (*head, -sum(head))
        if sum(abs(x) for x in w) // 2 <= D:
            out.append(w)
    return out  # lexicographic: product's order over the first k - 1 coordinates, the last fixed by them


@settings(max_examples=40, deadline=None)
@given(k=st.integers(2, 5), D=st.integers(0, 9))
def test_ball_in_blocks_is_the_definition_row_for_row(k, D):
    if (2 * D + 1) ** (k - 1) > 200_000:
        D = 4
    got = _ball(k, D)
    assert got.dtype == np.int64 and not got.flags.writeable
    assert got.tolist() == [list(w) for w in _ball_definition(k, D)]


def _reach_definition(k: int, Dc: int) -> list[tuple[int, ...]]:
    L = (k - 1) * Dc
    out = []
    for head in itertools.product(range(-L, L + 1), repeat=k - 1):
        u = (*head, -sum(head))
        if all(x <= Dc for x in u) or all(x >= -Dc for x in u):
            out.append(u)
    return out


@settings(max_examples=60, deadline=None)
@given(k=st.integers(2, 4), Dc=st.integers(0, 6), data=st.data())
def test_reach_inside_count_is_the_enumerated_count(k, Dc, data):
    c0 = data.draw(st.lists(st.integers(0, 3 * Dc + 3), min_size=k, max_size=k))
    U = _reach_definition(k, Dc)
    want = sum(1 for u in U if all(c + x >= 0 for c, x in zip(c0, u)))
    assert reach_inside_count(np.array(c0), Dc) == want


@settings(max_examples=60, deadline=None)
@given(data=st.data(), k=st.integers(1, 4), total=st.integers(-6, 6))
def test_bounded_count_is_the_box_count(data, k, total):
    lo = data.draw(st.lists(st.integers(-5, 3), min_size=k, max_size=k))
    widths = data.draw(st.lists(st.one_of(st.integers(-1, 6), st.none()), min_size=k, max_size=k))
    hi = [math.inf if w is None else a + w for a, w in zip(lo, widths)]
    # an unbounded coordinate is at most total - (the others' lower ends) <= 6 + 15
    ranges = [range(a, 22) if h == math.inf else range(a, int(h) + 1) for a, h in zip(lo, hi)]
    want = sum(1 for u in itertools.product(*ranges) if sum(u) == total)
    assert _bounded_count(lo, hi, total) == want


def test_the_padded_local_search_draws_at_k4_eps_quarter_are_planned():
    """Refused before (8 draws planned at ~265 s, each at the one-point fit of 33 s): the ball is built once."""
    from dpposterior.mechanisms.lattice import LATTICE, LOCAL_DRAW_SECONDS, PADDED_DRAWS, draw_seconds
    from dpposterior.mechanisms.spec import ReleaseSpec

    spec = ReleaseSpec.of("lattice", 0.25, objective="average")
    for n in (10, 100, 10**4):
        plan = LATTICE.plan_draw([1.0] * 4, n, spec)
        assert not plan.refused(), plan.refusal
        assert plan.route == "local search" and plan.seconds == draw_seconds(n, 4, 0.25, PADDED_DRAWS)
    # the ball's 10,057,489 points (Dc = 144) and its box of 4 x 289^3 entries, term by term
    c_box, c_ball, c_in = LOCAL_DRAW_SECONDS
    ball = 10_057_489
    assert math.isclose(draw_seconds(10**4, 4, 0.25, 8), c_box * 4 * 289**3 + 8 * (c_ball + c_in) * ball)
    assert math.isclose(draw_seconds(10, 4, 0.25, 8), c_box * 4 * 289**3 + 8 * (c_ball * ball + c_in * 286))
