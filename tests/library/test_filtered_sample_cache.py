"""The filters' sample of a reach region is drawn once per public input and handed out read-only
(lattice.column._filtered_sample_points): a k = 3 plan reads each release's sample for its parts and again for its
cost."""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior.lattice import column

PRIOR, N, EPS = (1.0, 1.0, 1.0), 300, 0.3  # a reach of Dc = 6, W = 3 (the sample reads them as given)


def _fresh(released):
    column._sample_points_cached.cache_clear()
    got = column._filtered_sample_points(np.asarray(PRIOR), N, EPS, 6, 3, released)
    column._sample_points_cached.cache_clear()
    return got


@pytest.mark.parametrize("released", [None, (5, 5, 290), (40, 130, 130)])
def test_a_cached_sample_is_the_sample_drawn_afresh(released):
    want = _fresh(released)
    column._filtered_sample_points(np.asarray(PRIOR), N, EPS, 6, 3, released)  # into the cache
    got = column._filtered_sample_points(list(PRIOR), N, EPS, 6, 3, None if released is None else np.array(released))
    assert got[0] == want[0]
    for g, w in zip(got[1:], want[1:]):
        assert np.array_equal(g, w)


def test_each_release_has_its_own_sample_and_the_second_read_is_the_first():
    column._sample_points_cached.cache_clear()
    a = column._filtered_sample_points(PRIOR, N, EPS, 6, 3, (5, 5, 290))
    b = column._filtered_sample_points(PRIOR, N, EPS, 6, 3, (40, 130, 130))
    again = column._filtered_sample_points(np.asarray(PRIOR), N, EPS, 6, 3, [5, 5, 290])
    assert again[1] is a[1]
    assert a[1].shape != b[1].shape or not np.array_equal(a[1], b[1])
    assert column._sample_points_cached.cache_info().hits == 1


def test_the_sample_cannot_be_changed_through_a_caller():
    z, keep, risk = column._filtered_sample_points(PRIOR, N, EPS, 6, 3, None)[1:]
    for array in (z, keep, risk):
        with pytest.raises(ValueError):
            array[0] = array[0]
