"""docs/definitions.md §9 ``geometric``: sequentially clamped discrete Laplace noise on the counts.

Checked against OpenDP's discrete Laplace (its sampler and its privacy map), against a
term-by-term transcription of the definition (``reference.geometric_pmf``, via the shared
naive-transcription test of test_mechanisms.py), and against the closed form of docs/definitions.md §9
``P(release = BI(c)) = tanh(eps/2)`` for k = 2 away from the boundary.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import reference as ref
from dpposterior import concrete_epsilon, log_pmf, sample
from dpposterior.mechanisms import geometric_noise_tables, laplace_scale
from dpposterior.models import candidate_rank, candidates

from .test_mechanisms import pooled_chisquare

dp = pytest.importorskip("opendp.prelude")
dp.enable_features("contrib")


def opendp_clamped_release(c, n, eps, size):
    """The docs/definitions.md §9 release with OpenDP's discrete Laplace as the noise (one vector call)."""
    k = len(c)
    scale = laplace_scale("geometric", k, eps)
    meas = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=scale)
    noise = np.array(meas([0] * (size * (k - 1))), dtype=np.int64).reshape(size, k - 1)
    out = np.empty((size, k), dtype=np.int64)
    remaining = np.full(size, n)
    for i in range(k - 1):
        out[:, i] = np.clip(c[i] + noise[:, i], 0, remaining)
        remaining -= out[:, i]
    out[:, -1] = remaining
    return out


def histogram(m, n, k):
    return np.bincount(candidate_rank(m), minlength=len(candidates(n, k)))


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 5.0])
def test_exact_release_probability_is_tanh(eps):
    """k = 2, c away from both ends: P(m = c) = P(D = 0) = (1 - q)/(1 + q) = tanh(eps/2)."""
    n, c = 400, (200, 200)
    assert math.exp(log_pmf("geometric", (1.0, 1.0), c, epsilon=eps)[200]) == pytest.approx(
        math.tanh(eps / 2), rel=1e-12)


def test_noise_tables_match_the_definition():
    """Point masses and tails of the tables against direct sums of P(D = d) (mpmath)."""
    import mpmath

    for scale in (0.7, 1.0, 4.0):
        point, upper, lower = geometric_noise_tables(scale, 10)
        d = np.arange(-11, 12)
        for j, dd in enumerate(d):
            assert math.exp(point[j]) == pytest.approx(float(ref.discrete_laplace_prob(int(dd), scale)), rel=1e-12)
            tail = mpmath.fsum(ref.discrete_laplace_prob(x, scale) for x in range(int(dd), int(dd) + 2000))
            assert math.exp(upper[j]) == pytest.approx(float(tail), rel=1e-12)
            assert math.exp(lower[j]) == pytest.approx(float(tail), rel=1e-12)  # symmetric


@pytest.mark.parametrize("prior, c, eps", [((1.0, 1.0), (3, 5), 1.0), ((1.0, 1.0), (0, 6), 0.5),
                                           ((0.7, 1.0, 2.0), (2, 3, 1), 1.0)])
def test_opendp_samples_match_our_pmf_and_our_samples(prior, c, eps):
    """OpenDP's discrete Laplace, clamped the same way, fits our exact pmf; so do our integer samples."""
    n, k = sum(c), len(c)
    p = np.exp(log_pmf("geometric", prior, c, epsilon=eps))
    theirs = histogram(opendp_clamped_release(c, n, eps, 20_000), n, k)
    ours = histogram(sample("geometric", prior, c, epsilon=eps, size=20_000, rng=123), n, k)
    # OpenDP draws from its own unseeded CSPRNG: its fit is tested at 1e-6 so that a sound sampler fails one run in
    # a million (at 1e-3 it failed about one full-suite run in a few hundred); ours is seeded
    assert pooled_chisquare(theirs, p) > 1e-6
    assert pooled_chisquare(ours, p) > 1e-3
    # power: the same check rejects the continuous-Laplace release of the same scale (lshist), far below 1e-6
    # (p ~ 1e-105 or below at these sizes)
    assert pooled_chisquare(theirs, np.exp(log_pmf("lshist", prior, c, epsilon=eps))) < 1e-30
    assert pooled_chisquare(ours, np.exp(log_pmf("lshist", prior, c, epsilon=eps))) < 1e-30


@pytest.mark.parametrize("k, eps", [(2, 1.0), (2, 0.3), (3, 1.0), (4, 2.0)])
def test_claim_is_opendps_privacy_map_and_the_exact_loss(k, eps):
    """OpenDP's map of the noise at the histogram's L1 sensitivity gives eps; the exact loss is eps."""
    scale = laplace_scale("geometric", k, eps)
    meas = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=scale)
    sensitivity = 1 if k == 2 else 2  # k = 2: only c_1 is noised; k >= 3: a substitution moves 2 counts
    assert meas.map(sensitivity) == pytest.approx(eps, rel=1e-12)
    n = {2: 30, 3: 8, 4: 4}[k]
    res = concrete_epsilon("geometric", (1.0,) * k, n, epsilon=eps)
    assert res.concrete_epsilon == pytest.approx(eps, rel=1e-9)
    assert not res.exceeds_claim


def test_sampler_uses_integers_only():
    """The sampler only asks its bit source for uniform integers: no float variate is ever drawn."""
    from dpposterior.mechanisms import MECHANISMS, ReleaseSpec
    from dpposterior.randomness import GeneratorBits

    class IntegersOnly:  # a generator that can do nothing but uniform integers
        def __init__(self, seed):
            self._rng, self.calls = np.random.default_rng(seed), 0

        def integers(self, *args, **kwargs):
            self.calls += 1
            return self._rng.integers(*args, **kwargs)

    gen = IntegersOnly(1)
    m = MECHANISMS["geometric"].sample(np.ones(3), np.array([5, 5, 5]), ReleaseSpec.of("geometric", 1.0), 200, GeneratorBits(gen))
    assert m.shape == (200, 3) and np.all(m.sum(axis=1) == 15) and gen.calls > 0


def test_huge_n_release_is_exact_counts():
    n = 10**9
    m = sample("geometric", (1.0, 1.0), (n // 2, n // 2), epsilon=1.0, size=5, rng=7)
    assert np.all(m.sum(axis=1) == n) and np.all(np.abs(m[:, 0] - n // 2) < 200)
    # reproducible with a seed, and OS entropy works
    np.testing.assert_array_equal(m, sample("geometric", (1.0, 1.0), (n // 2, n // 2), epsilon=1.0, size=5, rng=7))
    assert sample("geometric", (1.0, 1.0), (n // 2, n // 2), epsilon=1.0, size=1, rng=None).shape == (1, 2)
