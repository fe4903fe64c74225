"""lattice.column.orbit_weights: with part_shares, the kept points of a release's whole region weigh exactly the
orbits of their pairs (max(z, 0), project(z)) under the permutations of the categories, the searches a symmetric
prior's column runs; counted here by the definition (each pair's columns sorted, the distinct ones)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.lattice.column import orbit_weights, part_shares, reach_region, search_filter
from dpposterior.lattice.remap import project


def _orbits_by_definition(Z: np.ndarray, n: int) -> int:
    """Distinct pairs (y, p) up to a permutation of the categories: each row's k (y_i, p_i) sorted."""
    Y, P = np.maximum(Z, 0), project(Z, n)
    return len({tuple(sorted(zip(y.tolist(), p.tolist()))) for y, p in zip(Y, P)})


def _weighed(released, epsilon, Dc, W):
    r = np.asarray(released, dtype=np.int64)
    n, k = int(r.sum()), r.size
    a = np.ones(k)
    Z = reach_region(n, k, r, Dc, W)
    Z = Z[search_filter(a, n, epsilon, r, Z, Dc)]
    shares = part_shares(n, Dc, W, r, Z)
    return Z, n, shares, shares * orbit_weights(a, n, epsilon, Dc, r, Z)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=4, max_size=4), st.sampled_from([1.0, 2.0]), st.integers(1, 4),
       st.integers(1, 3))
def test_the_whole_region_weighs_its_orbits(released, epsilon, Dc, W):
    if sum(released) == 0:
        released = [1, 0, 0, 0]
    Z, n, shares, weighed = _weighed(released, epsilon, Dc, W)
    parts = len(np.unique(np.maximum(Z, 0), axis=0))
    assert abs(shares.sum() - parts) < 1e-9 * max(1, parts)
    assert abs(weighed.sum() - _orbits_by_definition(Z, n)) < 1e-9 * max(1, parts)


def test_ties_broken_by_index_split_an_orbit():
    # at (3, 3, 3, 3) the parts' projections break ties by index, so fewer pairs share an orbit than parts do: the
    # weights must count the pairs' orbits, not the sorted parts'
    Z, n, _, weighed = _weighed([3, 3, 3, 3], 1.0, 4, 3)
    by_parts = len(np.unique(np.sort(np.maximum(Z, 0), axis=1), axis=0))
    assert round(weighed.sum()) == _orbits_by_definition(Z, n) > by_parts


def test_no_point_no_weight():
    assert orbit_weights(np.ones(4), 12, 1.0, 3, [3, 3, 3, 3], np.zeros((0, 4), dtype=np.int64)).size == 0
