"""The capped part of the sequential clamp's offset sum (``lattice.scale.clamp_cap_sums``) against a brute-force
oracle (``tests/reference.py``: ``clamp_cap_sum``, its own clamp and Hellinger distance, nothing from the library);
the tail filter of ``_orbit_layout`` (every acting term passes it, and it cannot be one tighter); ``orbit_cap_work``'s
count of the visits against a count of the pairs; the caches of the plan's counts; and the offsets' floor under the
count wherever the orbit plan reads it."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import scale
from dpposterior.mechanisms.clamped import CLAMPED_MECHANISMS, offset_floor
from dpposterior.models import candidates


def _law(raw):
    total = sum(raw)
    return [r / total for r in raw]


laws = st.lists(st.floats(0.05, 1.0), min_size=3, max_size=7).filter(lambda v: len(v) % 2 == 1).map(_law)


def _offsets(masses, k):
    """Every noise vector of the law on ``-D..D`` with its weight (each prefix's next coordinate an interval)."""
    D = len(masses) // 2
    offs = np.array(list(itertools.product(range(-D, D + 1), repeat=k - 1)), dtype=np.int64).reshape(-1, k - 1)
    w = np.array([math.prod(masses[d + D] for d in row) for row in offs.tolist()])
    return offs, w


def _layout_bound(layout, m, p):
    return next(b for mm, pp, _, _, b in layout if mm == m and tuple(pp.tolist()) == tuple(p))


@settings(max_examples=25, deadline=None)
@given(k=st.sampled_from([3, 4, 5]), n=st.integers(0, 7), a0=st.floats(0.3, 3.0), ak=st.floats(0.3, 3.0),
       masses=laws)
def test_the_cap_sums_match_the_oracle(k, n, a0, ak, masses):
    if k == 5:
        n = min(n, 3)
        masses = masses[:5] if len(masses) > 5 else masses
    a = [a0] * (k - 1) + [ak]
    offs, w = _offsets(masses, k)
    R = candidates(n, k)
    got = scale.clamp_cap_sums(a, n, offs, w, R)
    for c, g in zip(map(tuple, R.tolist()), got.tolist()):
        want = ref.clamp_cap_sum(a, n, c, offs.tolist(), w.tolist())
        assert abs(g - want) <= 1e-12, (c, g, want)


def test_every_acting_term_passes_the_tail_filter_and_it_is_tight():
    """Brute force over R(n) and every noise vector: where the clamp from above acts first at m, the tail
    ``c_(m+2) + ... + c_k`` is below the prefix's bound; and at each m some acting term sits at tail = bound - 1
    (a filter one tighter would leave it out)."""
    for k, n, D in [(3, 8, 2), (4, 7, 2), (5, 5, 1)]:
        masses = _law([1.0] * (2 * D + 1))
        offs, w = _offsets(masses, k)
        layout = scale._orbit_layout(n, k, offs, w)
        R = candidates(n, k)
        tight = set()
        for c in map(tuple, R.tolist()):
            for d in map(tuple, offs.tolist()):
                m = ref.clamp_cap_position(c, d, n)
                if m is None:
                    continue
                bound = _layout_bound(layout, m, d[:m])
                tail = int(scale.cap_tail(np.array([c]), m)[0])
                assert tail == sum(c[m + 1:])
                assert tail < bound, (c, d, m, bound)
                if tail == bound - 1:
                    tight.add(m)
        assert tight == set(range(k - 1)), (k, tight)


@pytest.mark.parametrize("k,n,D", [(3, 9, 2), (4, 8, 2), (4, 12, 3)])
def test_the_visits_counted_are_the_pairs_the_filter_passes(k, n, D):
    masses = _law([0.5 + 0.1 * i for i in range(2 * D + 1)])
    offs, w = _offsets(masses, k)
    layout = scale._orbit_layout(n, k, offs, w)
    R = candidates(n, k)
    pairs = sum(int((scale.cap_tail(R, m) < b).sum()) for m, *_, b in layout)
    logp = np.log(masses)
    # clamp_offsets at a bracket below the smallest weight: every vector, as above
    tol = min(w) / 4
    assert len(scale.clamp_offsets(logp, k, tol)[0]) == len(offs)
    assert scale.orbit_cap_work(n, k, logp, tol, 1.0) == (pairs, len(layout))
    assert scale.offsets_count(logp, k, tol, 1.0) == len(offs)


def test_the_floor_of_the_offsets_is_below_their_count():
    """The orbit plan skips a bracket without enumerating where :func:`offset_floor` alone is over the budget: the
    same choice as counting, because the floor is below the count (every clamped law, k = 3 and 4, its brackets)."""
    checked = 0
    for mech in (m for m in CLAMPED_MECHANISMS if m.id in ("lszhang", "geometric")):
        for k in (3, 4):
            for eps in (0.5, 1.0, 2.0, 5.0):
                for base, tol in [("loss", scale.DEFAULT_TOL)] + [("factors", t) for t in scale.FACTOR_TOLS]:
                    inner = scale.orbit_tol(k, tol, base)
                    lp = mech._log_point(k, eps, inner)
                    if offset_floor(lp, k) > 2e5:
                        continue
                    step = scale.FACTOR_STEP if base == "factors" else 1.0
                    assert offset_floor(lp, k) <= scale.offsets_count(lp, k, inner, step), (mech.id, k, eps, base)
                    checked += 1
    assert checked >= 20


@settings(max_examples=15, deadline=None)
@given(k=st.sampled_from([4, 5]), n=st.integers(4, 11), a0=st.floats(0.3, 3.0), ak=st.floats(0.3, 3.0),
       D=st.integers(2, 3), skew=st.floats(0.0, 0.5))
def test_the_cap_sums_with_runs_of_shared_heads_match_the_oracle(k, n, a0, ak, D, skew):
    """Many prefixes share their first ``m - 1`` coordinates (a law on ``-3..3``, k = 5: runs of up to 49 prefixes at
    ``m = 3``), each with its own slice of the rows: the terms of the shared coordinates, computed once per run, are
    read by every prefix of the run as its own."""
    if k == 5:
        n, D = min(n, 6), 2
    masses = _law([1.0 + skew * i for i in range(2 * D + 1)])
    a = [a0] * (k - 1) + [ak]
    offs, w = _offsets(masses, k)
    R = candidates(n, k)
    got = scale.clamp_cap_sums(a, n, offs, w, R)
    for c, g in zip(map(tuple, R.tolist()), got.tolist()):
        want = ref.clamp_cap_sum(a, n, c, offs.tolist(), w.tolist())
        assert abs(g - want) <= 1e-12, (c, g, want)


@settings(max_examples=20, deadline=None)
@given(k=st.sampled_from([4, 5]), n=st.integers(0, 12), masses=laws)
def test_the_moved_pairs_counted_are_the_oracles(k, n, masses):
    """``orbit_moved_pairs`` (the orbit plan's count of the factor route's pairs where a head clamp acts) against a
    pair-by-pair count over the representatives and the offsets' prefixes."""
    if k == 5:
        n = min(n, 8)
    offs, w = _offsets(masses, k)
    logp = np.log(masses)
    tol = min(w) / 4  # every vector, as clamp_offsets enumerates them at this bracket
    assert len(scale.clamp_offsets(logp, k, tol)[0]) == len(offs)
    assert scale.orbit_moved_pairs(n, k, logp, tol, 1.0) == ref.head_moved_pairs(n, k, offs.tolist())
