"""The descent filter's exact pre-filter (:func:`dpposterior.lattice.column.descent_cut`).

* with the cut, :func:`~dpposterior.lattice.column.descent_filter` keeps exactly the points the per-point test keeps
  (the unfiltered computation, every point's own ``A_t``, ``h_t``), bit for bit, at points in R(n), on its faces and
  outside it, priors 1e-12 to 1e9, k = 3 and 4, n = 3 to 1e6, eps 0.1 to 4;
* every point past the cut fails the per-point test, and the cut drops most of a region where it matters (k = 3,
  n = 1e6, eps = 0.1, the release near the centre);
* the one-coordinate tables hold the same floats whatever the range they are built over.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import dpposterior.lattice.column as column
from dpposterior.distances.hellinger import hellinger_from_log_bc, lgamma_jensen_gap
from dpposterior.lattice.noise import radius_for
from dpposterior.lattice.remap import project


def _distances(a, n, r, Z):
    p = project(Z, n)
    return hellinger_from_log_bc(sum(lgamma_jensen_gap(a[i] + p[:, i], a[i] + float(r[i])) for i in range(len(a))))


def _unfiltered(a, n, eps, r, Z, Dc):
    """The descent test at every point, each with its own terms (no pre-filter)."""
    H = _distances(a, n, r, Z)
    return H <= column.descent_reach(a, n, eps, Z, H, Dc) * (1 + 1e-9) + column.DESCENT_MARGIN


def _points_near(rng, n, k, centre, spread, size):
    """``size`` lattice points of sum n around ``centre`` (offsets up to ``spread`` in each of the first k - 1
    counts), some off R(n) where the centre is near a face."""
    head = centre[None, :k - 1] + rng.integers(-spread, spread + 1, size=(size, k - 1))
    z = np.concatenate([head, n - head.sum(axis=1, keepdims=True)], axis=1)
    return np.unique(z[z.min(axis=1) >= -spread], axis=0)


@settings(max_examples=30, deadline=None)
@given(k=st.sampled_from([3, 4]), n=st.sampled_from([3, 20, 200, 10**4, 10**6]),
       eps=st.sampled_from([0.1, 0.25, 0.5, 1.0, 4.0]), prior=st.sampled_from([0.5, 1.0, 3.0, 1e-12, 1e9]),
       where=st.sampled_from(["centre", "face", "vertex"]), seed=st.integers(0, 2**32 - 1))
def test_the_cut_keeps_what_the_per_point_test_keeps(k, n, eps, prior, where, seed):
    if k == 4 and eps < 0.25:
        return
    rng = np.random.default_rng(seed)
    a = np.full(k, prior)
    a[0] = 1.0
    Dc = radius_for(k, eps, 1e-12)
    centre = np.full(k, n // k)
    centre[0] += n - int(centre.sum())
    if where != "centre":
        centre = np.zeros(k, dtype=np.int64)
        centre[0] = n - (k - 1) * min(2, n // k) if where == "vertex" else n // 2
        centre[1:] = min(2, n // k) if where == "vertex" else 0
        centre[-1] = n - int(centre[:-1].sum())
    Z = _points_near(rng, n, k, centre, min(2 * Dc + 4, 3 * n + 6), 3000)
    r = project(Z[rng.integers(len(Z))][None, :], n)[0]  # a release near the points
    got = column.descent_filter(a, n, eps, r, Z, Dc)
    want = _unfiltered(a, n, eps, r, Z, Dc)
    assert np.array_equal(got, want)
    # the cut is at or above every point's own threshold (the largest h its test admits: what the proof states)
    sub = Z[rng.choice(len(Z), min(len(Z), 100), replace=False)]
    cut = column.descent_cut(a, n, eps, sub, Dc)
    assert _thresholds(a, n, eps, sub, Dc).max() <= cut


def _thresholds(a, n, eps, Z, Dc):
    """Each point's own ``h*``: the test ``h <= reach_z(h) (1 + 1e-9) + margin`` holds on ``[0, h*]`` (bisection over
    all points at once, from each point's own terms; the lower end returned, where the test holds)."""
    lo, hi = np.zeros(len(Z)), np.ones(len(Z))
    holds = np.ones(len(Z)) <= column.descent_reach(a, n, eps, Z, hi, Dc) * (1 + 1e-9) + column.DESCENT_MARGIN
    lo[holds] = 1.0
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        ok = mid <= column.descent_reach(a, n, eps, Z, mid, Dc) * (1 + 1e-9) + column.DESCENT_MARGIN
        lo, hi = np.where(ok & ~holds, mid, lo), np.where(ok | holds, hi, mid)
    return lo


def test_the_cut_drops_most_of_the_region_at_a_million():
    """k = 3, n = 1e6, eps = 0.1 (a release next to the centre, a sample of its reach region's 624,037 points): the
    cut leaves about one point in a hundred to the per-point test (measured over the whole region: 5,138 of 624,037
    at or below the cut, 5,041 kept), and the same points are kept with and without it."""
    from dpposterior.mechanisms.lattice import LATTICE

    k, n, eps = 3, 10**6, 0.1
    a = np.ones(k)
    Dc = radius_for(k, eps, 1e-12)
    r = np.array([333362, 333308, 333330])
    Z = column.reach_region(n, k, r, Dc, LATTICE.column_radius(n, k, eps))
    H = _distances(a, n, r, Z)
    cut = column.descent_cut(a, n, eps, Z, Dc)
    assert (H <= cut).mean() < 0.02
    rng = np.random.default_rng(3)
    sample = np.sort(np.concatenate([np.flatnonzero(H <= cut * 1.5), rng.choice(len(Z), 20_000, replace=False)]))
    sample = np.unique(sample)
    got = column.descent_filter(a, n, eps, r, Z[sample], Dc)
    want = _unfiltered(a, n, eps, r, Z[sample], Dc)
    assert np.array_equal(got, want) and want.sum() > 1000


@settings(max_examples=20, deadline=None)
@given(prior=st.sampled_from([0.5, 1.0, 1e-12, 1e9]), n=st.sampled_from([5, 300, 10**6]),
       Dc=st.integers(0, 40), lo=st.integers(0, 10**6), width=st.integers(0, 60), seed=st.integers(0, 2**16))
def test_a_coordinate_table_is_the_same_floats_over_any_range(prior, n, Dc, lo, width, seed):
    lo = min(lo, n)
    hi = min(n, lo + width)
    t = np.arange(Dc + 1)
    whole = column._coordinate_terms(np.float64(prior), n, np.arange(lo, hi + 1), t)
    rng = np.random.default_rng(seed)
    a, b = sorted(rng.integers(lo, hi + 1, size=2))
    part = column._coordinate_terms(np.float64(prior), n, np.arange(a, b + 1), t)
    for x, y in zip(whole, part):
        assert np.array_equal(x[a - lo:b - lo + 1], y)
