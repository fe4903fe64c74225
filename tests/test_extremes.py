"""Numbers at the edges (issue 12): every mechanism at the smallest and largest accepted priors with
empty categories, and at both ends of the accepted epsilon range, gives a finite normalised pmf,
valid draws and a finite worst-case concrete epsilon with its pair (no NaN, no warning)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpposterior import validate
from dpposterior.mechanisms import MECHANISM_IDS, MECHANISMS, log_pmf, sample
from dpposterior.privacy import concrete_epsilon

PRIORS = [(validate.MIN_PRIOR,) * 2, (1e6,) * 2, (validate.MIN_PRIOR,) * 3, (1e6,) * 3,
          (validate.MIN_PRIOR, 1e6, 1.0)]


def _eps_range(mech: str) -> list[float]:
    top = validate.MAX_EPSILON if MECHANISMS[mech].family != "optimal" else 30.0
    return [validate.MIN_EPSILON, 1.0, top]


@pytest.mark.parametrize("mech", MECHANISM_IDS)
@pytest.mark.parametrize("prior", PRIORS, ids=lambda p: ",".join(f"{x:g}" for x in p))
def test_edges_give_a_finite_pmf_and_valid_draws(mech, prior):
    k = len(prior)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow or an invalid value is a failure here
        for counts in ([0] * (k - 1) + [5], [0] * (k - 1) + [1], [1] + [0] * (k - 1)):
            for eps in _eps_range(mech):
                lp = log_pmf(mech, prior, counts, epsilon=eps)
                assert not np.isnan(lp).any() and not np.isposinf(lp).any()
                assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-9)
                draws = sample(mech, prior, counts, epsilon=eps, size=20, rng=1)
                assert draws.shape == (20, k) and (draws >= 0).all() and (draws.sum(axis=1) == sum(counts)).all()


@pytest.mark.parametrize("mech", MECHANISM_IDS)
@pytest.mark.parametrize("prior", PRIORS[:4], ids=lambda p: ",".join(f"{x:g}" for x in p))
def test_edges_give_a_finite_concrete_epsilon_with_its_pair(mech, prior):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for eps in _eps_range(mech):
            res = concrete_epsilon(mech, prior, 4, epsilon=eps)
            assert np.isfinite(res.concrete_epsilon) and res.concrete_epsilon >= 0
            assert res.worst_pair is not None and len(res.worst_pair) == 2
            if res.claimed_epsilon is not None and res.claimed_delta == 0:  # pure claims hold at the edges too
                assert res.concrete_epsilon <= res.claimed_epsilon + 1e-12  # log-pmf differences: ~1e-15 absolute


def test_optimal_refuses_epsilon_beyond_its_solver_range():
    with pytest.raises(validate.InputError, match="epsilon <= 30"):
        log_pmf("optimal", (1, 1), (2, 3), epsilon=31.0)
