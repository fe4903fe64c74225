"""The noise-aware posterior (docs/definitions.md): against Bayes' rule term by term, its
intervals against the mixture cdf, nesting, and its calibration on simulated releases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

import reference as ref
from conftest import MECHANISM_IDS
from dpposterior import InputError, SizeError, sample
from dpposterior.models import log_prior_predictive
from dpposterior.noise_aware import naive_posterior, noise_aware_posterior


@settings(max_examples=25, deadline=None)
@given(mech=st.sampled_from(MECHANISM_IDS), k=st.sampled_from([2, 3]), n=st.integers(1, 6),
       eps=st.sampled_from([0.3, 1.0, 2.0]), prior_value=st.sampled_from([0.5, 1.0, 3.0]), data=st.data())
def test_weights_match_bayes_rule_term_by_term(mech, k, n, eps, prior_value, data):
    prior = (prior_value,) * k
    cuts = sorted(data.draw(st.lists(st.integers(0, n), min_size=k - 1, max_size=k - 1)))
    m = tuple(np.diff([0, *cuts, n]).tolist())
    post = noise_aware_posterior(mech, prior, m, epsilon=eps)
    want = ref.noise_aware_posterior(prior, m, mech, eps)
    got = {tuple(c): w for c, w in zip(post.counts.tolist(), post.weights)}
    for c, w in want.items():
        assert got.get(c, 0.0) == pytest.approx(w, rel=1e-9, abs=1e-15)
    assert post.weights.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("mech", ["lshist", "mh", "geometric", "ehds"])
def test_intervals_solve_the_mixture_cdf(mech):
    prior, m, level = (1.0, 1.0), (7, 13), 0.8
    post = noise_aware_posterior(mech, prior, m, epsilon=1.0, level=level)
    want = ref.noise_aware_posterior(prior, m, mech, 1.0)
    comps = [(w, prior[0] + c[0], prior[1] + c[1]) for c, w in want.items()]
    lo, hi = post.intervals[0]
    assert ref.beta_mixture_cdf(lo, comps) == pytest.approx((1 - level) / 2, abs=1e-9)
    assert ref.beta_mixture_cdf(hi, comps) == pytest.approx((1 + level) / 2, abs=1e-9)
    mean = sum(w * (prior[0] + c[0]) / (sum(prior) + 20) for c, w in want.items())
    assert post.mean[0] == pytest.approx(mean, rel=1e-10)
    x = np.linspace(0.01, 0.99, 99)  # the density integrates to the cdf
    grid = np.linspace(0, 0.5, 20001)
    assert np.trapezoid(post.marginal_pdf(0, grid), grid) == pytest.approx(post.marginal_cdf(0, 0.5)[0], abs=1e-6)
    assert np.all(np.diff(post.marginal_cdf(0, x)) >= 0)


def test_intervals_are_nested_as_the_level_grows():
    post = noise_aware_posterior("mh", (1.0, 2.0, 1.0), (5, 9, 4), epsilon=1.0)
    prev = None
    for level in (0.1, 0.5, 0.8, 0.9, 0.95, 0.99):
        iv = post.credible_intervals(level)
        assert np.all(iv[:, 0] <= iv[:, 1])
        if prev is not None:
            assert np.all(iv[:, 0] <= prev[:, 0]) and np.all(iv[:, 1] >= prev[:, 1])
        prev = iv


def test_prior_predictive_is_the_dirichlet_multinomial():
    from scipy.stats import dirichlet_multinomial

    a, c = np.array([0.7, 2.0, 1.5]), np.array([[3, 4, 5], [0, 0, 12], [12, 0, 0]])
    assert np.allclose(log_prior_predictive(a, c), dirichlet_multinomial.logpmf(c, a, 12), rtol=1e-12)


def test_dropping_is_certified_at_large_n():
    """k = 2, n = 1e5: the dropped c are certified negligible and the kept ones match an undropped run."""
    post = noise_aware_posterior("lshist", (1.0, 1.0), (40_000, 60_000), epsilon=1.0)
    assert post.dropped > 99_000 and post.dropped_mass_bound < 1e-12
    assert post.intervals[0, 0] < 0.4 < post.intervals[0, 1]
    # at small n nothing can be dropped wrongly: the kept set includes every c of relative weight > e^-40
    small = noise_aware_posterior("geometric", (1.0, 1.0), (60, 140), epsilon=1.0)
    full = ref.noise_aware_posterior((1.0, 1.0), (60, 140), "geometric", 1.0)
    kept = {tuple(c) for c in small.counts.tolist()}
    top = max(full.values())
    assert all(c in kept for c, w in full.items() if w > top * math.exp(-39))


def test_calibration_on_simulated_releases():
    """theta ~ prior, c ~ Mult(n, theta), m ~ M(c): the noise-aware 90 % interval covers theta_1 at the
    nominal rate (two-sided binomial test, alpha = 0.001); the naive Dir(a + m) fails the same test for
    mh at eps = 0.3 (power)."""
    rng = np.random.default_rng(20261122)
    prior, n, level, trials = (1.0, 1.0), 30, 0.9, 600
    hits_aware = {"lshist": 0, "mh": 0}
    hits_naive = {"lshist": 0, "mh": 0}
    cache = {}
    for _ in range(trials):
        theta = rng.dirichlet(prior)
        c = rng.multinomial(n, theta)
        for mech in hits_aware:
            m = tuple(sample(mech, prior, c, epsilon=0.3, size=1, rng=rng)[0].tolist())
            if (mech, m) not in cache:
                cache[mech, m] = (noise_aware_posterior(mech, prior, m, epsilon=0.3, level=level).intervals[0],
                                  naive_posterior(prior, m, level)["intervals"][0])
            aware, naive = cache[mech, m]
            hits_aware[mech] += aware[0] <= theta[0] <= aware[1]
            hits_naive[mech] += naive[0] <= theta[0] <= naive[1]
    lo, hi = binom.ppf(0.0005, trials, level), binom.isf(0.0005, trials, level)
    for mech in hits_aware:
        assert lo <= hits_aware[mech] <= hi, (mech, hits_aware[mech], lo, hi)
    assert hits_naive["mh"] < lo


def test_bad_input_and_size_limits():
    with pytest.raises(InputError):
        noise_aware_posterior("lshist", (1.0, 1.0), (3, -1), epsilon=1.0)
    with pytest.raises(InputError):
        noise_aware_posterior("lshist", (1.0, 1.0), (3, 1), epsilon=1.0, level=1.0)
    with pytest.raises(InputError):
        noise_aware_posterior("nope", (1.0, 1.0), (3, 1), epsilon=1.0)
    with pytest.raises(SizeError, match="R\\(n\\)"):  # an exponential mechanism: no local route
        noise_aware_posterior("mh", (1.0, 1.0, 1.0), (5000, 5000, 5000), epsilon=1.0)


def test_the_setup_refuses_from_public_inputs_and_the_posterior_is_the_same():
    """:func:`setup` holds every refusal public inputs decide (|R(n)|, the memory, one row's work); the posterior
    from a setup is the one :func:`noise_aware_posterior` gives."""
    from dpposterior.noise_aware import posterior_of, setup

    with pytest.raises(SizeError, match=r"\|R\(n\)\| = 5e\+11"):  # no local route: the exact route's refusal
        setup("mh", np.ones(3), 10**6, epsilon=1.0)
    with pytest.raises(SizeError, match="2000001 data sets"):
        setup("ehds", np.ones(2), 2 * 10**6, epsilon=1.0)
    with pytest.raises(InputError, match="level"):
        setup("geometric", np.ones(2), 10, epsilon=1.0, level=1.5)
    s = setup("ehds", np.array([1.0, 2.0]), 30, epsilon=1.0, level=0.8)
    a = posterior_of(s, np.array([10, 20]))
    b = noise_aware_posterior("ehds", [1.0, 2.0], [10, 20], epsilon=1.0, level=0.8)
    assert np.array_equal(a.counts, b.counts) and np.array_equal(a.weights, b.weights)
    assert np.array_equal(a.intervals, b.intervals)


def test_the_repr_prints_category_names_escaped():
    post = noise_aware_posterior("geometric", [1, 1], [3, 4], epsilon=1.0, categories=["a\x1b[2J", "b\n"])
    text = repr(post)
    assert "a\\x1b[2J: " in text and "b\\n: " in text and "\x1b" not in text and "\n" not in text
