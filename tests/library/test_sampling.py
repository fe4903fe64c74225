"""The exact large-n sampler of ``dpposterior.sampling`` against the exact pmf (docs/definitions.md §4).

Goodness of fit by pooled chi-square on every candidate where R(n) is small, and on
bins of the distance H (and the steps d(c, m)) where R(n) has up to ~2e6 candidates,
in both regimes: mass concentrated at the truth (large weight) and mass far from it
(``ehd``, small epsilon).  A power test shows the same statistic rejects a slightly
wrong weight.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from dpposterior import mechanisms as M
from dpposterior.distances import hellinger
from dpposterior.models import balanced_counts, candidate_rank, candidates, n_candidates, steps
from dpposterior.sampling import ENUMERATE_UP_TO, TAU, ExponentialSampler, _phi, make_bands, sample_exponential


def pooled_chisquare(observed, prob, min_expected=10.0):
    """Chi-square p-value after pooling cells so that every pool expects >= min_expected.

    Cells expecting less are taken least likely first and grouped, consecutively in that order,
    into pools that each reach ``min_expected`` (the last group joins the previous pool): no cell
    of the test expects fewer than ``min_expected`` draws, where the chi-square approximation
    would be anti-conservative (a single cell expecting 2 draws and seeing 11 gave p ~ 1e-6).
    """
    obs = np.asarray(observed, dtype=np.float64)
    exp = np.asarray(prob, dtype=np.float64) * obs.sum() / np.sum(prob)
    order = np.argsort(exp, kind="stable")
    e, o = exp[order], obs[order]
    small = int(np.searchsorted(e, min_expected))  # cells [0, small) expect < min_expected
    pools_e, pools_o, acc_e, acc_o = [], [], 0.0, 0.0
    for i in range(small):
        acc_e += e[i]
        acc_o += o[i]
        if acc_e >= min_expected:
            pools_e.append(acc_e)
            pools_o.append(acc_o)
            acc_e = acc_o = 0.0
    if acc_e > 0 or acc_o > 0:
        if pools_e:
            pools_e[-1] += acc_e
            pools_o[-1] += acc_o
        elif small < e.size:  # join the smallest big cell
            e[small] += acc_e
            o[small] += acc_o
        else:
            pools_e.append(acc_e)
            pools_o.append(acc_o)
    e = np.concatenate([pools_e, e[small:]])
    o = np.concatenate([pools_o, o[small:]])
    return chisquare(o, e).pvalue


CASES = [  # mechanism, prior, counts, epsilon
    ("ehds", (1, 1, 1), (10, 5, 3), 1.0),
    ("ehd", (1, 1, 1), (10, 5, 3), 0.5),  # weight ~0.5: almost uniform over R(n)
    ("ehds", (0.5, 1, 2, 1), (4, 0, 3, 5), 1.0),  # a zero count, priors below 1
    ("mh", (1, 1), (30, 10), 3.0),
    ("ehdl", (1, 1, 1), (10, 10, 10), 5.0),  # concentrated: many bands
    ("mh-delta", (0.3, 2, 1), (0, 0, 25), 1.0),  # at a vertex of the simplex
    ("ehds", (1, 1, 1, 1), (6, 6, 6, 6), 8.0),
    ("ehd", (1, 1, 1, 1), (3, 2, 0, 1), 0.3),  # weight < TAU: one flat band, uniform proposals
    ("ehd", (1,) * 6, (1, 0, 0, 0, 0, 1), 0.3),  # stars and bars with many collisions (n = 2, k = 6)
]


@pytest.mark.parametrize("mech, prior, c, eps", CASES)
def test_sampler_matches_exact_pmf_on_every_candidate(mech, prior, c, eps):
    w = M.weight(mech, prior, c, epsilon=eps)
    if eps == 0.3:
        assert ExponentialSampler(prior, c, w).J == 1
    lp = M.log_pmf(mech, prior, c, epsilon=eps)
    draws = ExponentialSampler(prior, c, w).sample(60_000, np.random.default_rng(11))
    hist = np.bincount(candidate_rank(draws), minlength=lp.size)
    assert draws.shape == (60_000, len(c)) and np.all(draws.sum(axis=1) == sum(c)) and np.all(draws >= 0)
    assert pooled_chisquare(hist, np.exp(lp)) > 1e-3


@pytest.mark.parametrize("factor", [0.9, 1.1])
def test_goodness_of_fit_detects_a_wrong_weight(factor):
    prior, c = (1, 1, 1), (10, 10, 10)
    w = M.weight("ehdl", prior, c, epsilon=5.0)  # ~16
    H = hellinger(np.add(prior, c), np.add(prior, candidates(30, 3)))
    draws = ExponentialSampler(prior, c, w * factor).sample(60_000, np.random.default_rng(3))
    hist = np.bincount(candidate_rank(draws), minlength=H.size)
    assert pooled_chisquare(hist, np.exp(-w * H)) < 1e-6
    assert pooled_chisquare(hist, np.exp(-w * factor * H)) > 1e-3


def test_log_target_is_the_mechanism_score():
    prior, c = (0.7, 1.3, 2.0), (7, 0, 12)
    w = M.weight("ehds", prior, c, epsilon=1.0)
    cands = candidates(19, 3)
    lt = ExponentialSampler(prior, c, w).log_target(cands)
    lp = M.log_pmf("ehds", prior, c, epsilon=1.0)
    np.testing.assert_allclose(lt - np.logaddexp.reduce(lt), lp, rtol=0, atol=1e-12)


@pytest.mark.parametrize("w", [0.2, 1.0, 13.0, 400.0, 1e5])
def test_bands_dominate_and_partition(w):
    """Each chord lies below phi on its band (the proposal dominates), with gap <= TAU / w."""
    t_max = 30.0
    edges, alpha, beta = make_bands(w, t_max)
    assert edges[0] == 0.0 and np.all(np.diff(edges) > 0)
    ends = np.append(edges[1:], t_max)
    for j in range(alpha.size):
        T = np.concatenate([np.linspace(edges[j], ends[j], 4001), np.geomspace(max(edges[j], 1e-300), ends[j], 4001)])
        gap = _phi(T) - (alpha[j] + beta[j] * T)
        assert gap.min() >= -1e-12
        assert w * gap.max() <= TAU * (1 + 1e-6) + 1e-9 or j == alpha.size - 1 and w * gap.max() <= TAU + 1e-9


def _binned_check(mech, prior, c, eps, size, seed):
    """Chi-square of sampled log-pmf deciles (i.e. H deciles) and steps against the exact pmf over R(n)."""
    n, k = sum(c), len(c)
    lp = M.log_pmf(mech, prior, c, epsilon=eps)
    p = np.exp(lp)
    order = np.argsort(-lp)  # lp is decreasing in H: bins of lp are bins of H
    cum = np.cumsum(p[order])
    edges = np.unique(-lp[order][np.minimum(np.searchsorted(cum, np.linspace(0, 1, 21)[1:-1]), lp.size - 1)])
    bins = np.digitize(-lp, edges)
    prob_bins = np.bincount(bins, weights=p, minlength=edges.size + 1)
    draws = M.sample(mech, prior, c, epsilon=eps, size=size, rng=seed)
    got = bins[candidate_rank(draws)]
    p_h = pooled_chisquare(np.bincount(got, minlength=edges.size + 1), prob_bins)
    d = steps(c, candidates(n, k))
    p_d = pooled_chisquare(np.bincount(steps(c, draws), minlength=d.max() + 1),
                           np.bincount(d, weights=p, minlength=d.max() + 1))
    return p_h, p_d, draws


@pytest.mark.slow
@pytest.mark.parametrize("mech, prior, c, eps", [
    ("ehds", (1, 1, 1), tuple(balanced_counts(1200, 3)), 1.0),  # |R| = 7e5, mass at the truth
    ("ehd", (1, 1, 1), (100, 300, 800), 0.5),  # most mass far from the truth
    ("mh", (1, 1), (300_000, 700_000), 1.0),  # k = 2, n = 1e6: many bands, bounded far bands
    ("mh-delta", (0.5, 2.0, 0.2), (0, 40, 900), 1.0),  # small priors, counts at the boundary
])
def test_sampler_matches_exact_pmf_at_large_n(mech, prior, c, eps):
    assert n_candidates(sum(c), len(c)) > ENUMERATE_UP_TO  # mechanisms.sample dispatches to the sampler
    p_h, p_d, draws = _binned_check(mech, prior, c, eps, 20_000, 5)
    assert p_h > 1e-3 and p_d > 1e-3


def test_far_mass_regime_is_far():
    """ehd at small epsilon puts most mass far from the truth; the sampler must follow it there."""
    c = (200, 600, 1200)
    draws = M.sample("ehd", (1, 1, 1), c, epsilon=0.5, size=2000, rng=1)
    assert np.median(steps(c, draws)) > 300


def test_dispatch_reproducible_and_size_zero():
    c = balanced_counts(300, 3)  # |R| = 45451 > ENUMERATE_UP_TO
    a = M.sample("ehds", (1, 1, 1), c, epsilon=1.0, size=50, rng=7)
    b = M.sample("ehds", (1, 1, 1), c, epsilon=1.0, size=50, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    assert M.sample("ehds", (1, 1, 1), c, epsilon=1.0, size=0, rng=7).shape == (0, 3)
    assert sample_exponential((1, 1, 1), c, 3.0, 0, np.random.default_rng(0)).shape == (0, 3)


def test_runs_where_r_n_cannot_be_listed():
    """k = 6, n = 1e4: |R(n)| ~ 8e17.  Draws are valid compositions; the sampler's target is the mechanism's."""
    c = balanced_counts(10_000, 6)
    draws = M.sample("ehds", np.ones(6), c, epsilon=1.0, size=200, rng=2)
    assert draws.shape == (200, 6) and np.all(draws.sum(axis=1) == 10_000) and np.all(draws >= 0)


@pytest.mark.parametrize("direct", [0, 10**12])
def test_fft_and_direct_convolutions_agree(monkeypatch, direct):
    """Both convolution paths give the same band masses and an exact sampler."""
    import dpposterior.sampling as S

    prior, c, eps = (1, 1, 1, 1), (9, 3, 0, 6), 2.0
    w = M.weight("ehds", prior, c, epsilon=eps)
    monkeypatch.setattr(S, "DIRECT_CONV", direct)
    smp = S.ExponentialSampler(prior, c, w)
    monkeypatch.setattr(S, "DIRECT_CONV", 10**12)
    ref = S.ExponentialSampler(prior, c, w)
    np.testing.assert_allclose(smp.log_mass, ref.log_mass, rtol=0, atol=1e-12)
    lp = M.log_pmf("ehds", prior, c, epsilon=eps)
    draws = smp.sample(40_000, np.random.default_rng(4))
    assert pooled_chisquare(np.bincount(candidate_rank(draws), minlength=lp.size), np.exp(lp)) > 1e-3
