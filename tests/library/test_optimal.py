"""The optimal mechanism (docs/definitions.md §9) against an independent dense LP (tests/reference.py)."""

import numpy as np
import pytest
from scipy.stats import chisquare

import reference as ref
from dpposterior import concrete_epsilon, log_pmf, sample
from dpposterior.accuracy import expected_errors
from dpposterior.errors import SizeError
from dpposterior.mechanisms import MECHANISMS, ReleaseSpec

#: the repair mixes with the uniform table; its cost in expected error is below this (measured ~1e-6)
REPAIR_TOL = 1e-4


@pytest.mark.parametrize("prior,n,eps,objective", [((1.0, 1.0), 6, 1.0, "worst"), ((1.0, 1.0), 6, 1.0, "average"),
                                                   ((0.5, 2.0), 5, 0.5, "worst"), ((1.0, 1.0, 1.0), 3, 1.0, "worst"),
                                                   ((1.0, 1.0, 1.0), 3, 1.0, "average")])
def test_optimal_matches_independent_lp(prior, n, eps, objective):
    want = ref.optimal_lp_value(ref.brute(prior, n), eps, objective)
    e = expected_errors("optimal", prior, n, epsilon=eps, objective=objective)
    got = e.worst if objective == "worst" else e.average
    assert want - 1e-7 <= got <= want + REPAIR_TOL
    p = ReleaseSpec.of("optimal", eps, objective=objective)
    assert MECHANISMS["optimal"].certificate(prior, n, p)["lp_optimum"] == pytest.approx(want, abs=1e-7)


@pytest.mark.parametrize("objective", ["worst", "average"])
def test_optimal_is_certified_eps_dp(objective):
    loss = concrete_epsilon("optimal", [1, 1], 12, epsilon=1.0, objective=objective)
    assert loss.concrete_epsilon <= 1.0 * (1 + 1e-12) and not loss.exceeds_claim  # float rounding of the log rows


def test_reference_values_beta11_n50():
    assert round(expected_errors("optimal", [1, 1], 50, epsilon=1).worst, 4) == 0.1612
    geo = expected_errors("geometric", [1, 1], 50, epsilon=1).average
    assert expected_errors("optimal", [1, 1], 50, epsilon=1, objective="average").average == pytest.approx(geo, abs=1e-4)


def test_sampler_matches_table_and_power():
    c = np.array([5, 1])
    p = np.exp(log_pmf("optimal", [1, 1], c, epsilon=1.0))
    draws = sample("optimal", [1, 1], c, epsilon=1.0, size=20000, rng=7)
    from dpposterior.models import candidate_rank
    obs = np.bincount(candidate_rank(draws), minlength=p.size)
    assert chisquare(obs, p * obs.sum()).pvalue > 1e-3
    wrong = np.exp(log_pmf("geometric", [1, 1], c, epsilon=1.0))
    assert chisquare(obs, wrong * obs.sum()).pvalue < 1e-3


def test_too_large_is_a_size_error():
    with pytest.raises(SizeError):
        log_pmf("optimal", [1, 1, 1], [10, 10, 10], epsilon=1.0)  # k >= 3: the LP's |R(n)| limit
    log_pmf("optimal", [1, 1], [400, 400], epsilon=1.0)  # k = 2: geometric + remap at any n
