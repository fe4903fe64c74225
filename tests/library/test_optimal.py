"""The optimal mechanism (docs/definitions.md §9) against an independent dense LP (tests/reference.py), at large eps,
and at k = 2 under another distance's loss (docs/definitions.md §10: geometric + remap)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chisquare

import dpposterior as dp
import dpposterior.mechanisms.optimal as O
import reference as ref
from dpposterior import InputError, concrete_epsilon, log_pmf, sample
from dpposterior import remap as rm
from dpposterior.accuracy import expected_errors
from dpposterior.errors import SizeError
from dpposterior.mechanisms import MECHANISMS, ReleaseSpec
from dpposterior.models import candidates, log_prior_predictive
from reference import hellinger, kl, tv

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


@pytest.mark.parametrize("eps", [25.0, 30.0])
def test_the_lp_at_large_eps_is_right_or_refused(eps):
    from dpposterior.mechanisms.optimal import SolverError

    try:
        opt = dp.expected_errors("optimal", [1, 1, 1], 5, epsilon=eps)
    except SolverError as exc:
        assert "use geometric" in str(exc)
        return
    geo = dp.expected_errors("geometric", [1, 1, 1], 5, epsilon=eps)
    assert opt.worst <= geo.worst * (1 + 1e-9) + 1e-12


REF = {"hellinger": hellinger, "kl": kl, "tv": tv}


def exact_lp_values(prior, n, eps, objective, distance):
    """The LP's table after its repair (every DP constraint exact), evaluated exactly: a real eps-DP release."""
    a = np.asarray(prior, dtype=np.float64)
    T, lam, _ = O.solve_table(a, n, eps, objective, distance)
    c = candidates(n, 2)
    L = np.array([[REF[distance](a + x, a + y) for y in c] for x in c]) if n <= 12 else \
        rm.loss_for(distance, prior, n).dense()
    P = (1 - lam) * T + lam / len(c)
    E = (P * L).sum(axis=1)
    pi = np.exp(log_prior_predictive(a, c))
    return float(E.max()) if objective == "worst" else float(pi @ E / pi.sum())


@pytest.mark.parametrize("distance", ["tv", "kl"])
@pytest.mark.parametrize("objective", ["worst", "average"])
@pytest.mark.parametrize("prior,n,eps", [((1, 1), 8, 1.0), ((5, 5), 10, 0.25), ((0.5, 0.5), 12, 2.0), ((2, 7), 20, 1.0)])
def test_geometric_plus_remap_is_the_lp_optimum_under_the_loss(distance, objective, prior, n, eps):
    e = expected_errors("optimal", list(prior), n, epsilon=eps, objective=objective, distance=distance)
    got = e.worst if objective == "worst" else e.average
    lp = exact_lp_values(prior, n, eps, objective, distance)
    params = ReleaseSpec.of("optimal", eps, objective=objective, distance=distance)
    cert = params.mechanism.certificate(list(prior), n, params)
    if objective == "worst":
        # no eps-DP table the LP finds beats the certified lower bound of the minimax remap (the optimum lies in
        # [lower, upper], upper - lower <= MAX_GAP upper), so geometric + remap is within that gap of every table
        assert cert["lower"] <= lp * (1 + 1e-9) + 1e-15
        assert got <= lp * (1 + O.MAX_GAP) + 1e-15
    else:
        assert got <= lp * (1 + 1e-9) + 1e-15  # the Bayes remap is exact: no eps-DP table beats it
    assert got >= lp * (1 - 1e-3)          # ... and the LP (HiGHS tolerance, repair) comes within 1e-3 of it
    # the release is eps-DP: the exact worst-case scan of its rows
    assert cert["concrete_epsilon"] <= eps * (1 + 1e-9)


@pytest.mark.parametrize("distance", ["tv", "kl"])
@pytest.mark.parametrize("prior", [(1, 1), (0.5, 0.5), (5, 5), (2, 7), (30, 1)])
def test_tv_and_kl_losses_are_nondecreasing_in_the_distance_between_counts(distance, prior):
    assert rm.monotonicity_violations(rm.loss_for(distance, prior, 60), 60, O.MONOTONE_TOL) == []


def test_the_loss_matrix_is_the_distance():
    L = rm.loss_for("kl", (2, 3), 6).dense()
    a = np.array([2.0, 3.0])
    for c in range(7):
        for r in range(7):
            want = kl(a + [c, 6 - c], a + [r, 6 - r])
            assert L[c, r] == pytest.approx(max(want, 0.0), rel=1e-10, abs=1e-14)
    T = rm.loss_for("tv", (1, 1), 5).dense()
    assert T[1, 4] == pytest.approx(tv((2, 5), (5, 2)), rel=1e-9)


def test_a_loss_that_is_not_monotone_is_refused_in_one_line(monkeypatch):
    bad = np.abs(np.subtract.outer(np.arange(6), np.arange(6))).astype(float)
    bad[0, 5] = 0.5  # dips far from c = 0
    monkeypatch.setattr(O.rm, "loss_for", lambda name, a, n: rm.MatrixLoss(bad))
    O._loss.cache_clear()
    try:
        with pytest.raises(InputError) as err:
            O._loss((1.0, 1.0), 5, "tv")
    finally:
        O._loss.cache_clear()
    msg = str(err.value)
    assert "\n" not in msg and "not nondecreasing" in msg and "c=0" in msg


@pytest.mark.parametrize("measure", ["hellinger", "tv", "kl"])
def test_the_measure_is_applied_to_the_release_of_another_distance(measure):
    prior, n, eps = [1.0, 2.0], 9, 0.7
    e = expected_errors("optimal", prior, n, epsilon=eps, objective="worst", distance="kl", measure=measure)
    a = np.asarray(prior)
    c = candidates(n, 2)
    want = []
    for x in c:
        p = np.exp(log_pmf("optimal", prior, x, epsilon=eps, objective="worst", distance="kl"))
        want.append(sum(pi * REF[measure](a + x, a + y) for pi, y in zip(p, c)))
    assert np.allclose(e.expected, want, rtol=1e-9, atol=1e-13)
    assert e.distance == "kl" and e.measure == measure
    g = expected_errors("geometric", prior, n, epsilon=eps, measure=measure)
    assert g.measure == measure and math.isfinite(g.worst)


def test_other_distances_at_k3_and_past_the_loss_budget_are_refused(monkeypatch):
    with pytest.raises(InputError) as err:
        expected_errors("optimal", [1, 1, 1], 4, epsilon=1.0, distance="kl")
    assert "k=3" in str(err.value) and "\n" not in str(err.value)
    monkeypatch.setenv("DPPOSTERIOR_MAX_SENSITIVITY_WORK", "100")
    with pytest.raises(InputError) as err:
        rm.loss_for("kl", (1, 1), 20)
    assert "DPPOSTERIOR_MAX_SENSITIVITY_WORK" in str(err.value)


def test_the_lp_oracle_reports_the_objective_under_the_distance():
    params = ReleaseSpec.of("optimal", 1.0, objective="average", distance="tv")
    mech = params.mechanism
    got = MECHANISMS["optimal"].oracle_value([1, 1], 10, params)
    assert got["objective"] == "average"
    e = expected_errors("optimal", [1, 1], 10, epsilon=1.0, objective="average", distance="tv")
    assert got["value"] == pytest.approx(e.average, rel=1e-3)


@pytest.mark.parametrize("eps,shown", [(30.000001, "got 30.000001"), (30.0000000000001, "got 30.0000000000001"),
                                       (31.0, "got 31 ")])
def test_the_epsilon_range_message_prints_the_value_exactly(eps, shown):
    # at the edge of the range ":g" would print "got 30" for a value that is refused for being above 30
    with pytest.raises(InputError, match="epsilon <= 30, ") as err:
        dp.release("optimal", [1, 1], [3, 4], epsilon=eps, rng=1)
    assert shown in str(err.value)
    assert "\n" not in str(err.value)


def test_the_solve_budget_message_prints_the_budget_exactly(monkeypatch):
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1e-7")
    with pytest.raises(SizeError, match=r"over the limit of 1e-07 s"):
        O.OPTIMAL.check_solve(2000, 2, ReleaseSpec.of("optimal", 1.0, objective="worst"))
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "0.10000000000000002")
    with pytest.raises(SizeError, match=r"over the limit of 0\.10000000000000002 s"):
        O.OPTIMAL.check_solve(2000, 2, ReleaseSpec.of("optimal", 1.0, objective="worst"))


@pytest.mark.filterwarnings("ignore::dpposterior.guarantee.PrivacyWarning")
def test_the_per_z_average_remap_is_not_used_under_another_distance(monkeypatch):
    # the per-z remap (n >= PER_Z_FROM) is Hellinger's: under tv the release is the whole remap under tv's loss (its
    # solve is budgeted: at n = 1e5 it is refused), never a Hellinger remap presented as tv's
    n = O.PER_Z_FROM
    p = ReleaseSpec.of("optimal", 1.0, objective="average", distance="tv")
    calls = []
    monkeypatch.setattr(O, "_bayes_at", lambda *a: calls.append(a))
    with pytest.raises(SizeError, match="average remap for k=2, n=100000"):
        dp.release("optimal", [1, 1], [50_000, 50_000], epsilon=1.0, objective="average", distance="tv", rng=1)
    assert O.OPTIMAL.remap_for_draws((1.0, 1.0), 30, p) is not None and calls == []
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1e-3")
    with pytest.raises(SizeError, match=f"n={n}"):
        O.OPTIMAL.remap_for_draws((1.0, 1.0), n, p)
    assert calls == []
