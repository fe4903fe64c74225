"""The box ``reach_region`` enumerates next to a face or a vertex (lattice/column.py: ``reach_box_bounds``, read by
``reach_region``; ``reach_box_points``, the count the run's check and the plan read):

* where the box is built (fewer points than the window), ``reach_region`` equals its definition, the window's points
  ``z`` with ``project(z) - r`` in ``U(Dc)``, written out here from scratch (an oracle importing nothing from the
  library), and every such ``z`` lies in the box: a box cut below ``r_i - (k - 1) Dc - W`` or above ``r_i + (k - 1)
  (Dc + W)`` too far would drop a point and fail here;
* ``reach_box_points`` (what the run's check and the plan count) is at least the points ``reach_region`` builds (the
  fewer of the window's and the box's) at every release with a count at most ``(k - 1) Dc`` (every release of small
  n, exhaustively), and the plan's ``offcentre_reach_points`` at least that: a count below the work fails here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpposterior.lattice.column import reach_box_bounds, reach_box_points, reach_region

# the region's definition written out from scratch (an oracle importing nothing from the library; one copy)
from .test_noise_aware_k4_offcentre_h77na4 import _reach_ref as _region_oracle

BOX_CASES = [(20, 3, (0, 10, 10), 1, 1), (20, 3, (2, 9, 9), 1, 2), (24, 3, (12, 12, 0), 1, 1),
             (16, 4, (0, 5, 5, 6), 1, 1), (16, 4, (3, 3, 3, 7), 1, 1), (18, 4, (6, 6, 6, 0), 1, 1),
             (18, 4, (1, 8, 0, 9), 1, 1), (10, 3, (2, 3, 5), 1, 2), (12, 3, (1, 5, 6), 1, 2),
             (14, 4, (3, 3, 4, 4), 1, 1), (15, 4, (0, 4, 5, 6), 1, 2), (20, 4, (2, 3, 3, 12), 1, 2)]


@pytest.mark.parametrize("n,k,r,Dc,W", BOX_CASES)
def test_the_box_holds_the_region(n, k, r, Dc, W):
    window = len([h for h in itertools.product(range(-W, n + (k - 1) * W + 1), repeat=k - 1)
                  if n - sum(h) >= -W])
    lo, hi = reach_box_bounds(k, np.asarray(r), Dc, W)
    assert int(np.prod(hi[:k - 1] - lo[:k - 1] + 1)) < window  # the box branch, not the window's
    want = _region_oracle(n, k, r, Dc, W)
    got = reach_region(n, k, np.asarray(r), Dc, W)
    assert sorted(map(tuple, got.tolist())) == want
    assert [tuple(z) for z in got.tolist()] == sorted(map(tuple, got.tolist()))  # lexicographic, as before
    Z = np.asarray(want)
    assert np.all(Z >= lo[None, :]) and np.all(Z <= hi[None, :])


@pytest.mark.parametrize("n,Dc,W", [(12, 1, 1), (20, 1, 2), (40, 2, 1), (60, 3, 2), (90, 2, 3)])
def test_the_counts_hold_the_points_built(n, Dc, W):
    from dpposterior.mechanisms import lattice as L

    k, most = 4, 0
    window = sum(1 for h in itertools.product(range(-W, n + (k - 1) * W + 1), repeat=k - 1) if n - sum(h) >= -W)
    for head in itertools.product(range(n + 1), repeat=k - 1):
        if sum(head) > n:
            continue
        c = np.asarray(list(head) + [n - sum(head)], dtype=np.int64)
        if int(c.min()) > (k - 1) * Dc:
            continue
        lo, hi = reach_box_bounds(k, c, Dc, W)
        built = min(window, int(np.prod(hi[:k - 1] - lo[:k - 1] + 1)))
        assert reach_box_points(n, k, c, Dc, W) >= built
        most = max(most, reach_box_points(n, k, c, Dc, W))
    assert most <= L.offcentre_reach_points(n, k, W, Dc)
