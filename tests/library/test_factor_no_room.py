"""The factor route's shortcut for pairs left with no room by a head clamp (``clamped_errors_by_factors(no_room=True)``,
taken by ``clamped_errors_by_orbits``) and the orbit route's order of its representatives, against a brute-force
transcription of ``E(c) = sum_w K(w) H(BI(c), Dir(a + B(c, w)))`` (tests/reference.py's sequential clamp and
Hellinger distance, no library code), with noise laws wide against n so that the head clamps act and leave no room."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import scale


def _oracle_errors(a, n, masses):
    """``{c: E(c)}`` over R(n), the noise ``D_i`` iid on ``-D..D`` with ``P(D = d) = masses[d + D]``."""
    k = len(a)
    D = len(masses) // 2
    out = {}
    for h in itertools.product(range(n + 1), repeat=k - 1):
        if sum(h) > n:
            continue
        c = (*h, n - sum(h))
        e = 0.0
        for d in itertools.product(range(-D, D + 1), repeat=k - 1):
            e += math.prod(masses[di + D] for di in d) * ref.hellinger_posteriors(a, c, ref.sequential_clamp(c, d, n))
        out[c] = e
    return out


def _no_room_pairs(n, masses, k=4):
    """How many (data set, offset) pairs have the first two counts' clamps leave no room (the shortcut's case)."""
    D = len(masses) // 2
    hits = 0
    for h in itertools.product(range(n + 1), repeat=k - 1):
        if sum(h) > n:
            continue
        for d in itertools.product(range(-D, D + 1), repeat=k - 1):
            m1 = min(max(h[0] + d[0], 0), n)
            m2 = min(max(h[1] + d[1], 0), n - m1)
            moved = (m1, m2) != (h[0] + d[0], h[1] + d[1])
            hits += moved and m1 + m2 == n
    return hits


laws = st.lists(st.floats(0.05, 1.0), min_size=7, max_size=11).filter(lambda v: len(v) % 2 == 1).map(
    lambda v: [x / sum(v) for x in v])


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 6), a=st.lists(st.sampled_from([0.3, 1.0, 2.5]), min_size=4, max_size=4), masses=laws)
def test_no_room_shortcut_brackets_the_definition(n, a, masses):
    lp = np.log(masses)
    tol = 1e-9
    got = scale.clamped_errors_by_factors(a, n, lp, tol, no_room=True)
    plain = scale.clamped_errors_by_factors(a, n, lp, tol)
    want = _oracle_errors(a, n, masses)
    assert got.tail == plain.tail
    for c, low in zip(map(tuple, got.counts.tolist()), got.low.tolist()):
        assert low - 1e-12 <= want[c] <= low + got.tail + 1e-12, (c, low, want[c])
    # the same real sum regrouped: far below the margin that covers it
    assert np.abs(got.low - plain.low).max() <= 1e-13


def test_the_shortcut_case_occurs_and_counts():
    # n = 3 with a law on -4..4: pairs left with no room are many; the shortcut must give their full mass's loss
    masses = [0.05, 0.08, 0.12, 0.15, 0.2, 0.15, 0.12, 0.08, 0.05]
    n, a = 3, [1.0, 1.0, 1.0, 2.0]
    assert _no_room_pairs(n, masses) > 100
    got = scale.clamped_errors_by_factors(a, n, np.log(masses), 1e-9, no_room=True)
    want = _oracle_errors(a, n, masses)
    for c, low in zip(map(tuple, got.counts.tolist()), got.low.tolist()):
        assert abs(low + scale.factor_margin(4) - want[c]) <= 1e-12, (c, low, want[c])


@settings(max_examples=8, deadline=None)
@given(n=st.integers(0, 6), a0=st.sampled_from([0.4, 1.0, 3.0]), ak=st.sampled_from([0.4, 1.0, 3.0]), masses=laws)
def test_orbit_route_puts_each_representatives_value_back(n, a0, ak, masses):
    # the representatives run in another order; each data set must get its own representative's value
    a = [a0] * 3 + [ak]
    got = scale.clamped_errors_by_orbits(a, n, np.log(masses), 1e-9, "factors")
    want = _oracle_errors(a, n, masses)
    for c, low in zip(map(tuple, got.counts.tolist()), got.low.tolist()):
        assert low - 1e-12 <= want[c] <= low + got.tail + 1e-12, (c, low, want[c])
