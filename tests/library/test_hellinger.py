"""The Hellinger distance (dpposterior.distances.hellinger): right or refused, and the bound behind its refusal.
Kept apart from tests/test_distances.py while distances.py becomes a package; they merge after that."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpposterior as dp
from dpposterior.errors import InputError, SizeError


def _mp_hellinger(p, q):
    import mpmath as mp

    mp.mp.dps = 60
    lb = lambda v: sum(mp.loggamma(mp.mpf(x)) for x in v) - mp.loggamma(sum(mp.mpf(x) for x in v))  # noqa: E731
    m = [(mp.mpf(a) + mp.mpf(b)) / 2 for a, b in zip(p, q)]
    return float(mp.sqrt(1 - mp.exp(lb(m) - (lb(p) + lb(q)) / 2)))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 16), st.integers(1, 9)), min_size=2, max_size=3),
       st.lists(st.tuples(st.integers(0, 16), st.integers(1, 9)), min_size=2, max_size=3))
def test_hellinger_is_right_or_refuses(pe, qe):
    """Against 60-digit mpmath: within HELLINGER_TOLERANCE (1e-6) absolute, or an InputError, never wrong."""
    k = min(len(pe), len(qe))
    p = [m * 10.0**e for e, m in pe[:k]]
    q = [m * 10.0**e for e, m in qe[:k]]
    try:
        h = float(dp.hellinger(p, q))
    except InputError as exc:
        assert "not accurate in float64" in str(exc)
        return
    assert abs(h - _mp_hellinger(p, q)) <= 1e-6, (p, q, h)


def test_hellinger_refuses_the_cancelling_case_it_got_wrong():
    with pytest.raises(InputError, match="not accurate"):
        dp.hellinger([1e15, 1e15], [1, 1])  # true value 0.99988; float64 gave 0.0
    assert float(dp.hellinger([1e8, 1e8], [1, 1])) == pytest.approx(_mp_hellinger([1e8, 1e8], [1, 1]), abs=1e-9)
    with pytest.raises(InputError, match="Dirichlet parameters"):
        dp.hellinger([True, 2], [1, 2])
    with pytest.raises(SizeError):
        dp.hellinger(np.ones((10**5, 1, 2)), np.ones((1, 10**5, 2)))


def test_the_lgamma_bound_behind_hellingers_refusal_holds():
    from scipy.special import gammaln

    from dpposterior.distances import _lgamma_bound

    v = np.concatenate([np.logspace(-12, 16, 100_000), np.linspace(0.01, 10, 100_000)])
    assert (np.abs(gammaln(v)) <= _lgamma_bound(v)).all()
