"""The exponential mechanism at a sensitivity of 0 (n = 0): the weight is +inf, and the pmf is its limit,
uniform on the scores' argmin (docs/definitions.md), never NaN."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.mechanisms import exponential_log_pmf_rows
from dpposterior.ranking import compare_rows


def _limit(scores):
    """The w -> inf limit by hand: 1/m on the m minimal scores, 0 elsewhere."""
    best = [s == min(scores) for s in scores]
    return [1.0 / sum(best) if b else 0.0 for b in best]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=3, max_size=3), min_size=1, max_size=4),
       st.lists(st.sampled_from([0.5, 2.0, np.inf]), min_size=4, max_size=4))
def test_an_infinite_weight_is_the_limit_and_finite_rows_are_unchanged(rows, ws):
    s = np.array(rows)
    w = np.array(ws[:len(rows)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = np.exp(exponential_log_pmf_rows(w, s))
    for i, row in enumerate(rows):
        if np.isinf(w[i]):
            want = _limit(row)
        else:
            e = [np.exp(-w[i] * x) for x in row]
            want = [x / sum(e) for x in e]
        assert np.allclose(p[i], want, rtol=1e-12, atol=1e-15), (row, w[i], p[i])


def test_compare_at_n_0_has_no_nan_and_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = compare_rows(np.array([1.0, 1.0, 1.0]), 0, 1.0)
    for r in rows:
        assert r["worst_expected_error"] == 0.0 or r["release"].startswith("lattice"), r
        assert np.isfinite(r["worst_expected_error"]) and np.isfinite(r["average_expected_error"]), r
