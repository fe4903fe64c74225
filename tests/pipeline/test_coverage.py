"""The `coverage` experiment and its verdict rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta, binom

import reference as ref
from dpposterior.paper import claims as C
from dpposterior.paper import verdicts as V
from dpposterior.paper.coverage import coverage_point


@pytest.mark.parametrize("mech, n, eps", [("lshist", 6, 1.0), ("mh", 5, 0.5), ("geometric", 7, 2.0)])
def test_naive_coverage_against_a_term_by_term_sum(mech, n, eps):
    """sum_c pi(c) sum_m P(m|c) P(theta in I(m) | c), with P(m|c) from the reference transcription."""
    prior, level = (1.0, 1.0), 0.9
    b = ref.brute(prior, n)
    got = coverage_point(mech, prior, n, eps, level=level, delta=1e-8)
    want = 0.0
    for c in b.cands:
        pi = 1.0 / (n + 1)  # Beta(1,1)-binomial prior predictive is uniform
        pmf = b.pmf(mech, c, eps)
        for m, p in zip(b.cands, pmf):
            lo, hi = beta.ppf([(1 - level) / 2, (1 + level) / 2], 1 + m[0], 1 + m[1])
            want += pi * p * (beta.cdf(hi, 1 + c[0], 1 + c[1]) - beta.cdf(lo, 1 + c[0], 1 + c[1]))
    assert got["naive_coverage"] == pytest.approx(want, abs=1e-10)
    assert got["noise_aware_coverage"] == pytest.approx(level, abs=1e-9)


def test_matches_a_simulation_within_its_binomial_interval():
    """theta ~ Beta(1,1), c ~ Bin(n, theta), m ~ lshist(c): the simulated naive coverage agrees (alpha = 0.001)."""
    from dpposterior import sample

    rng = np.random.default_rng(7)
    n, eps, level, trials = 30, 0.5, 0.9, 2000
    exact = coverage_point("lshist", (1.0, 1.0), n, eps, level=level, delta=1e-8)["naive_coverage"]
    hits = 0
    for _ in range(trials):
        t = rng.beta(1, 1)
        c = rng.binomial(n, t)
        m = sample("lshist", (1, 1), (c, n - c), epsilon=eps, size=1, rng=rng)[0]
        lo, hi = beta.ppf([(1 - level) / 2, (1 + level) / 2], 1 + m[0], 1 + m[1])
        hits += lo <= t <= hi
    assert binom.ppf(0.0005, trials, exact) <= hits <= binom.isf(0.0005, trials, exact)


def frame(aware, naive, skipped=0.0):
    k = len(aware)
    return pd.DataFrame({"mechanism": ["x"] * k, "n": range(k), "epsilon": [1.0] * k, "level": [0.9] * k,
                         "skipped_mass": [skipped] * k, "noise_aware_coverage": aware, "naive_coverage": naive})


def test_verdict_rules_and_their_edges():
    ok, under = C.coverage(frame([0.9, 0.9 + 1e-7], [0.5, 0.88]))
    assert ok.verdict == V.REPRODUCED and under.verdict == V.REPRODUCED
    ok, under = C.coverage(frame([0.9, 0.9 + 2e-6], [0.5, 0.895]))  # past the tolerance; inside the margin
    assert ok.verdict == V.PARTLY and under.verdict == V.PARTLY
    ok, _ = C.coverage(frame([0.9 + 2e-6], [0.5], skipped=1e-5))  # skipped mass widens the tolerance
    assert ok.verdict == V.REPRODUCED
    ok, under = C.coverage(frame([0.8, 0.95], [0.9, 0.91]))
    assert ok.verdict == V.NOT_REPRODUCED and under.verdict == V.NOT_REPRODUCED
