"""The box ``reach_region`` enumerates next to a face or a vertex (lattice/column.py: ``reach_box_bounds``, read by
``reach_region``; ``reach_build``, the route and count the run's check and the plan read):

* where the box is built (fewer points than the window), ``reach_region`` equals its definition, the window's points
  ``z`` with ``project(z) - r`` in ``U(Dc)``, written out here from scratch (an oracle importing nothing from the
  library), and every such ``z`` lies in the box: a box cut below ``r_i - (k - 1) Dc - W`` or above ``r_i + (k - 1)
  (Dc + W)`` too far would drop a point and fail here;
* ``reach_build`` (what the run's check and the plan count and price) names the route ``reach_region`` takes and
  counts what it builds at every release with a count at most ``(k - 1) Dc`` (every release of small n,
  exhaustively), and the plan's ``offcentre_reach_points`` and ``offcentre_reach_seconds`` are at least every
  release's: a count or a price below the work fails here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpposterior.lattice.column import reach_box_bounds, reach_build, reach_region

# the region's definition written out from scratch (an oracle importing nothing from the library; one copy)
from .test_noise_aware_k4_offcentre_h77na4 import _reach_ref as _region_oracle

BOX_CASES = [(20, 3, (0, 10, 10), 1, 1), (20, 3, (2, 9, 9), 1, 2), (24, 3, (12, 12, 0), 1, 1),
             (16, 4, (0, 5, 5, 6), 1, 1), (16, 4, (3, 3, 3, 7), 1, 1), (18, 4, (6, 6, 6, 0), 1, 1),
             (18, 4, (1, 8, 0, 9), 1, 1), (10, 3, (2, 3, 5), 1, 2), (12, 3, (1, 5, 6), 1, 2),
             (14, 4, (3, 3, 4, 4), 1, 1), (15, 4, (0, 4, 5, 6), 1, 2), (20, 4, (2, 3, 3, 12), 1, 2)]


@pytest.mark.parametrize("n,k,r,Dc,W", BOX_CASES)
def test_the_box_holds_the_region(n, k, r, Dc, W):
    lo, hi = reach_box_bounds(k, np.asarray(r), Dc, W)
    assert reach_build(n, k, np.asarray(r), Dc, W)[1] == "box"  # the box branch, not the window's
    want = _region_oracle(n, k, r, Dc, W)
    got = reach_region(n, k, np.asarray(r), Dc, W)
    assert sorted(map(tuple, got.tolist())) == want
    assert [tuple(z) for z in got.tolist()] == sorted(map(tuple, got.tolist()))  # lexicographic, as before
    Z = np.asarray(want)
    assert np.all(Z >= lo[None, :]) and np.all(Z <= hi[None, :])


def _route_taken(n, k, c, Dc, W):
    """The route ``reach_region`` takes at the release, seen from the calls it makes: the offsets alone, the window
    (enumerated whole) or the box."""
    from dpposterior.lattice import column as column_module

    calls = []
    real = column_module.window
    column_module.window = lambda *args: (calls.append("window"), real(*args))[1]
    try:
        reach_region(n, k, np.asarray(c), Dc, W)
    finally:
        column_module.window = real
    if int(np.min(c)) > (k - 1) * Dc:
        return "offsets"
    return ("whole" if n <= Dc else "window") if calls else "box"


@pytest.mark.parametrize("n,Dc,W", [(12, 1, 1), (20, 1, 2), (40, 2, 1), (60, 3, 2), (90, 2, 3), (9, 10, 2),
                                    (15, 2, 5)])
def test_the_counts_are_the_points_built(n, Dc, W):
    """At every release of small n: ``reach_build`` names the route ``reach_region`` takes and counts what that route
    builds (the window's points, or the box's: the product of ``reach_box_bounds``' first ``k - 1`` sides, counted
    here from the bounds), and the plan's ``offcentre_reach_points`` and ``offcentre_reach_seconds`` are at least
    every release's count and price."""
    from dpposterior.lattice.column import reach_build
    from dpposterior.mechanisms import lattice as L

    k, most, routes = 4, 0.0, set()
    window = sum(1 for h in itertools.product(range(-W, n + (k - 1) * W + 1), repeat=k - 1) if n - sum(h) >= -W)
    for i, head in enumerate(itertools.product(range(n + 1), repeat=k - 1)):
        if sum(head) > n:
            continue
        c = np.asarray(list(head) + [n - sum(head)], dtype=np.int64)
        if int(c.min()) > (k - 1) * Dc:
            continue
        points, route, offsets = reach_build(n, k, c, Dc, W)
        if n <= 20 or i % 97 == 0:  # the route reach_region takes (every release of the smaller n)
            assert route == _route_taken(n, k, c, Dc, W)
        lo, hi = reach_box_bounds(k, c, Dc, W)
        assert points == (window if route in ("window", "whole") else int(np.prod(hi[:k - 1] - lo[:k - 1] + 1)))
        assert points <= L.offcentre_reach_points(n, k, W, Dc)
        routes.add(route)
        most = max(most, L.reach_build_seconds(n, k, c, Dc, W))
    assert most <= L.offcentre_reach_seconds(n, k, W, Dc)
    assert routes  # some release next to a face or a vertex


def test_both_routes_are_taken_and_counted():
    """Over the cases above both the window and the box are built somewhere (else the route test is empty)."""
    from dpposterior.lattice.column import reach_build

    seen = {reach_build(n, 4, np.asarray(c), Dc, W)[1] for n, Dc, W, c in
            [(90, 2, 3, (1, 30, 30, 29)), (15, 2, 5, (0, 0, 6, 9)), (9, 10, 2, (0, 3, 3, 3))]}
    assert {"box", "window", "whole"} <= seen
