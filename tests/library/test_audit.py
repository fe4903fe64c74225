"""Empirical privacy-loss auditor (docs/definitions.md §5): soundness over many seeds, power on
planted bugs, search, planning, input validation and the ``dpposterior audit`` command.

Soundness: the lower bound may exceed the exact loss in at most a beta fraction of runs;
the allowance is the 0.999 quantile of Binomial(runs, beta).  The same harness is shown to
reject an unsound estimator (the in-sample plug-in), so it can fail.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import binom, binomtest

import dpposterior as dp
from dpposterior import audit, mechanism_audit
from dpposterior import audit as A
from dpposterior import mechanism_audit as M
from dpposterior.cli import main
from dpposterior.distances import hellinger
from dpposterior.errors import InputError, SizeError
from dpposterior.mechanisms import exponential_log_pmf_rows, laplace_log_pmf_rows
from dpposterior.models import candidates
from dpposterior.privacy import concrete_epsilon
from dpposterior.sensitivity import global_sensitivity

from .test_models import brute_neighbours  # the transcription of docs/definitions.md §1 adjacency

RUNS = 120
BETA = 0.1


def allowance(runs: int, beta: float) -> int:
    return int(binom.ppf(0.999, runs, beta))


# ------------------------------------------------------------------------------ Clopper-Pearson

@pytest.mark.parametrize("x,m", [(0, 50), (1, 50), (17, 50), (49, 50), (50, 50), (3, 1000), (500, 1000)])
def test_clopper_pearson_matches_scipy_exact_interval(x, m):
    # a two-sided exact interval at 1 - 2 alpha is the pair of one-sided bounds at alpha
    ci = binomtest(x, m).proportion_ci(confidence_level=0.9, method="exact")
    assert float(A.cp_lower(x, m, 0.05)) == pytest.approx(ci.low, abs=1e-12)
    assert float(A.cp_upper(x, m, 0.05)) == pytest.approx(ci.high, abs=1e-12)


def test_clopper_pearson_coverage_by_enumeration():
    # P(lower > p) <= alpha and P(upper < p) <= alpha, exactly, over the binomial law
    m, alpha = 40, 0.05
    x = np.arange(m + 1)
    lo, hi = A.cp_lower(x, m, alpha), A.cp_upper(x, m, alpha)
    for p in np.linspace(0.001, 0.999, 97):
        pmf = binom.pmf(x, m, p)
        assert pmf[lo > p].sum() <= alpha + 1e-12
        assert pmf[hi < p].sum() <= alpha + 1e-12


def test_encode_matches_numpy_unique():
    rng = np.random.default_rng(0)
    # dense keys (counted), sparse int64 keys (sorted), floats and keys past int64 (numpy's own unique)
    for x in (rng.integers(-3, 5, size=(500, 3)), rng.integers(0, 10**6, size=(50, 2)), rng.integers(0, 3, (1, 1)),
              rng.normal(size=(200, 2)).round(1), np.array([[2**40, 0], [0, 2**40], [2**40, 0]])):
        u, inv = A._encode(x)
        u2, inv2 = np.unique(x, axis=0, return_inverse=True)
        assert np.array_equal(u, u2) and np.array_equal(inv, inv2.reshape(-1))


# ------------------------------------------------------------------------------ soundness

def _pair_loss(mech, prior, pair, eps, delta_at=None):
    return M.exact_pair_epsilon(mech, prior, pair, epsilon=eps, delta_at=delta_at)


SOUND_SETTINGS = [
    # mechanism, prior, pair, eps: exact losses 1.0 (Laplace: ratio e^eps on many outputs, the hard case),
    # 0.62, 0.5, and ehdl (no claim; its exact loss is what is bounded)
    ("lshist", (1, 1), ((1, 1), (0, 2)), 1.0),
    ("ehd", (1, 1), ((1, 2), (0, 3)), 1.0),
    ("lsdim", (1, 1, 1), ((1, 1, 1), (0, 2, 1)), 1.0),
    ("ehdl", (0.5, 0.5), ((2, 2), (1, 3)), 2.0),
]


@pytest.mark.parametrize("mech,prior,pair,eps", SOUND_SETTINGS)
def test_soundness_lower_bound_rarely_exceeds_exact_loss(mech, prior, pair, eps):
    exact, _ = _pair_loss(mech, prior, pair, eps)
    sampler = M.mechanism_sampler(mech, prior, epsilon=eps)
    lbs = np.array([A.audit(sampler, pair[0], pair[1], samples=2000, confidence=1 - BETA, seed=s).epsilon_lower_bound
                    for s in range(RUNS)])
    assert np.sum(lbs > exact + 1e-12) <= allowance(RUNS, BETA)
    # not vacuous: with 1000 held-out draws a side the bound reaches a good part of the loss
    assert np.median(lbs) > 0.4 * exact


def test_soundness_harness_rejects_the_in_sample_plug_in():
    # max over outputs of |ln(x_c / x_c')| on all samples overshoots the exact loss most of the time
    mech, prior, pair, eps = SOUND_SETTINGS[0]
    exact, _ = _pair_loss(mech, prior, pair, eps)
    sampler = M.mechanism_sampler(mech, prior, epsilon=eps)
    over = 0
    for s in range(RUNS):
        rng = np.random.default_rng(s)
        x0, x1 = sampler(pair[0], 2000, rng), sampler(pair[1], 2000, rng)
        u, inv = A._encode(np.concatenate([x0, x1]))
        a, b = np.bincount(inv[:2000], minlength=len(u)), np.bincount(inv[2000:], minlength=len(u))
        ok = (a > 0) & (b > 0)
        over += np.abs(np.log(a[ok] / b[ok])).max() > exact
    assert over > allowance(RUNS, BETA)


def test_soundness_for_a_perfectly_private_sampler():
    # the output ignores the data: true loss 0, so any positive bound is a violation
    def sampler(dataset, size, rng):
        return rng.integers(0, 6, size=(size, 2))

    lbs = [A.audit(sampler, 0, 1, samples=2000, confidence=1 - BETA, seed=s).epsilon_lower_bound for s in range(RUNS)]
    assert sum(lb > 0 for lb in lbs) <= allowance(RUNS, BETA)


def test_delta_lower_bound_is_sound():
    mech, prior, pair, eps = SOUND_SETTINGS[0]
    eps_prime = 0.5
    _, exact_delta = _pair_loss(mech, prior, pair, eps, delta_at=eps_prime)
    assert exact_delta > 0.05
    sampler = M.mechanism_sampler(mech, prior, epsilon=eps)
    res = [A.audit(sampler, pair[0], pair[1], samples=2000, confidence=1 - BETA, seed=s, delta_at=eps_prime).delta
           for s in range(RUNS)]
    lbs = np.array([r["lower_bound"] for r in res])
    assert np.sum(lbs > exact_delta + 1e-12) <= allowance(RUNS, BETA)
    assert np.median(lbs) > 0.5 * exact_delta
    assert np.median([r["estimate"] for r in res]) == pytest.approx(exact_delta, rel=0.25)


def test_events_are_chosen_on_the_selection_half_only():
    sampler = M.mechanism_sampler("lshist", (1, 1), epsilon=1.0)
    rng = np.random.default_rng(5)
    x0, x1 = sampler((3, 3), 4000, rng), sampler((2, 4), 4000, rng)
    r1 = A.audit_samples(x0, x1)
    y0, y1 = x0.copy(), x1.copy()
    y0[2000:], y1[2000:] = sampler((3, 3), 2000, rng), sampler((2, 4), 2000, rng)  # new evaluation halves
    r2 = A.audit_samples(y0, y1)
    for key in ("direction", "kind"):
        assert r1.event[key] == r2.event[key]
    assert r1.event.get("outputs") == r2.event.get("outputs") and r1.event.get("rule") == r2.event.get("rule")


# ------------------------------------------------------------------------------ power: planted bugs

def _laplace_half_scale(dataset, size, rng):
    """lshist for k = 2 at eps = 1 with scale 1/2 instead of 1/eps: a planted bug (true loss 2 eps)."""
    c = np.asarray(dataset)
    n = int(c.sum())
    m1 = np.clip(np.floor(c[0] + rng.laplace(0.0, 0.5, size)), 0, n).astype(np.int64)
    return np.column_stack([m1, n - m1])


def test_power_laplace_at_half_the_scale():
    pair = ((2, 2), (1, 3))
    cands = candidates(4, 2)
    lp = laplace_log_pmf_rows(0.5, np.array(pair), cands)
    exact = float(np.abs(lp[0] - lp[1]).max())
    assert exact == pytest.approx(2.0)  # the exact computation confirms the bug
    lbs = [A.audit(_laplace_half_scale, *pair, samples=20000, seed=s).epsilon_lower_bound for s in range(5)]
    assert all(1.0 < lb <= exact for lb in lbs)
    # the correct mechanism (scale 1) is never flagged at the same budget
    good = M.mechanism_sampler("lshist", (1, 1), epsilon=1.0)
    assert all(A.audit(good, *pair, samples=20000, seed=s).epsilon_lower_bound <= 1.0 for s in range(5))


def _exp_missing_two_log_pmf(prior, c, eps):
    a, c = np.asarray(prior, float), np.asarray(c)
    n = int(c.sum())
    w = eps / global_sensitivity(a, n)  # the bug: eps / GS instead of eps / (2 GS)
    return exponential_log_pmf_rows([w], hellinger(a + c, a + candidates(n, a.size))[None, :])[0]


def test_power_exponential_mechanism_missing_the_factor_two():
    prior, pair, eps = (1.0, 1.0), ((1, 4), (0, 5)), 1.0
    cands = candidates(5, 2)

    def sampler(dataset, size, rng):
        p = np.exp(_exp_missing_two_log_pmf(prior, dataset, eps))
        return cands[rng.choice(len(cands), size=size, p=p / p.sum())]

    exact = float(np.abs(_exp_missing_two_log_pmf(prior, pair[0], eps) - _exp_missing_two_log_pmf(prior, pair[1], eps)).max())
    assert exact > 1.15  # exact confirms: above the claimed eps = 1
    lbs = [A.audit(sampler, *pair, samples=40000, seed=s).epsilon_lower_bound for s in range(5)]
    assert all(eps < lb <= exact for lb in lbs)
    # the correct ehd at the same budget stays below its claim
    good = M.mechanism_sampler("ehd", prior, epsilon=eps)
    assert all(A.audit(good, *pair, samples=40000, seed=s).epsilon_lower_bound <= eps for s in range(5))


def test_ehdl_exceeds_its_nominal_epsilon_found_from_samples():
    # boundary search, samples only; the exact computation then confirms the finding
    prior, n, eps = (0.01, 0.01), 1000, 3.0
    res = M.audit_mechanism("ehdl", prior, n, epsilon=eps, search="boundary", samples=400_000, seed=3)
    assert res.pairs_tested == 4 and res.confidence == 0.95
    assert res.epsilon_lower_bound > eps
    assert res.exact_concrete_epsilon >= res.epsilon_lower_bound
    worst = concrete_epsilon("ehdl", prior, n, epsilon=eps)
    assert worst.concrete_epsilon > eps
    assert sorted(map(tuple, res.pair)) == sorted(map(tuple, worst.worst_pair)) or res.exact_concrete_epsilon > eps


def test_continuous_float_outputs():
    # a floating-point Laplace mechanism (f(c) = c, sensitivity 1, eps = 1): tail events carry the bound
    def sampler(dataset, size, rng):
        return dataset + rng.laplace(0.0, 1.0, size)

    lbs = [A.audit(sampler, 0.0, 1.0, samples=40000, seed=s).epsilon_lower_bound for s in range(3)]
    assert all(0.6 < lb <= 1.0 for lb in lbs)


# ------------------------------------------------------------------------------ search

def test_candidate_pairs_are_adjacent_and_of_size_n():
    for prior, n in (((1, 1), 6), ((1, 1, 1), 4), ((1, 2, 3, 4), 3)):
        for strategy in ("boundary", "balanced", "random"):
            pairs = A.candidate_pairs(prior, n, strategy, rng=1, count=5)
            assert pairs
            for c, d in pairs:
                A.check_pair((c, d), np.asarray(prior, float), n)
    assert A.candidate_pairs((1, 1), 5, "boundary") == [([5, 0], [4, 1]), ([4, 1], [3, 2]), ([0, 5], [1, 4]),
                                                          ([1, 4], [2, 3])]
    worst = M.candidate_pairs((1, 1), 20, "worst", mechanism="ehds", epsilon=1.0)
    assert worst == [tuple(concrete_epsilon("ehds", (1, 1), 20, epsilon=1.0).worst_pair)]


def test_search_splits_beta_over_pairs():
    sampler = M.mechanism_sampler("lshist", (1, 1), epsilon=1.0)
    pairs = A.candidate_pairs((1, 1), 3, "boundary")
    best, results = A.audit_search(sampler, pairs, samples=1000, confidence=0.9, seed=0)
    assert all(r.confidence == pytest.approx(1 - 0.1 / len(pairs)) for r in results)
    assert best.epsilon_lower_bound == max(r.epsilon_lower_bound for r in results)
    assert best.confidence == 0.9 and best.pairs_tested == len(pairs)


# ------------------------------------------------------------------------------ planning

def test_samples_needed_is_what_the_audit_needs():
    p, q, target = 0.3, 0.1, 0.8
    m = A.samples_needed(p, q, target)
    assert A._expected_lb(p, q, m, 0.95, A.DEFAULT_EVENTS) >= target
    assert A._expected_lb(p, q, int(m * 0.9), 0.95, A.DEFAULT_EVENTS) < target
    assert A.samples_needed(p, q, math.log(3)) is None  # unreachable: above the event's own ratio
    # a known two-output sampler: at 4x the planned samples the audit certifies the target
    def sampler(dataset, size, rng):
        return (rng.random(size) < (p if dataset else q)).astype(np.int64)
    assert all(A.audit(sampler, 1, 0, samples=4 * m, seed=s).epsilon_lower_bound >= target for s in range(3))
    assert sum(A.audit(sampler, 1, 0, samples=m // 4, seed=s).epsilon_lower_bound >= target for s in range(3)) == 0


def test_plan_mechanism_finds_a_reachable_event():
    plan = M.plan_mechanism("lshist", (1, 1), ((2, 2), (1, 3)), epsilon=1.0, fraction=0.8)
    assert plan.exact_pair_epsilon == pytest.approx(1.0)
    assert plan.target == pytest.approx(0.8) and plan.samples is not None
    p, q = plan.event_probabilities
    assert math.log(p / q) > plan.target
    assert A.samples_needed(p, q, plan.target) == plan.samples


def test_plan_from_a_pilot_audit():
    sampler = M.mechanism_sampler("lshist", (1, 1), epsilon=1.0)
    pilot = A.audit(sampler, (2, 2), (1, 3), samples=4000, seed=0)
    ev = pilot.event
    assert 0.5 < pilot.epsilon_lower_bound < 0.95
    m = A.plan_from_audit(pilot, 0.95)
    assert m is not None and m > 4000  # a target above what the pilot certified needs more samples
    assert A.plan_from_audit(pilot, 0.3) <= 4000
    assert math.log((ev["count_numerator"] + 0.5) / ev["count_denominator"]) > 0.95


# ------------------------------------------------------------------------------ validation

@pytest.mark.parametrize("kwargs,match", [
    (dict(samples=50), "samples must be >= 100"),
    (dict(samples=1000.5), "samples must be an integer"),
    (dict(confidence=1.0), "confidence must be in"),
    (dict(confidence=0.0), "confidence must be in"),
    (dict(confidence="high"), "confidence must be a number"),
    (dict(n_events=0), "n_events must be a positive integer"),
    (dict(pair=((5, 5), (3, 7))), "not adjacent"),
    (dict(pair=((5, 4), (4, 5))), "summing to n=10"),
    (dict(pair=((5, 5, 0), (4, 6, 0))), "2 categories"),
    (dict(pair=((5, 5),)), "two count vectors"),
    (dict(search="everything"), "search must be one of"),
    (dict(delta_at=-1), "delta_at must be"),
])
def test_bad_input_is_one_line_input_error(kwargs, match):
    args = dict(epsilon=1.0, samples=1000, seed=0) | kwargs
    with pytest.raises(InputError, match=match) as err:
        M.audit_mechanism("ehds", (1, 1), 10, **args)
    assert "\n" not in str(err.value)


def test_bad_sampler_output():
    with pytest.raises(InputError, match="rows"):
        A.audit(lambda d, size, rng: np.zeros((size + 1, 2)), 0, 1, samples=200)
    with pytest.raises(InputError, match="finite"):
        A.audit(lambda d, size, rng: np.full((size, 2), np.nan), 0, 1, samples=200)
    with pytest.raises(InputError, match="same number"):
        A.audit_samples(np.zeros((200, 2)), np.zeros((300, 2)))


# ------------------------------------------------------------------------------ command line

def test_cli_json_contract(capsys):
    rc = main(["audit", "--prior", "1,1", "--n", "100", "--mechanism", "ehds", "--epsilon", "1",
               "--pair", "50,50:49,51", "--samples", "20000", "--seed", "4", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("epsilon_lower_bound", "estimate", "confidence", "samples", "pair", "event", "exact_concrete_epsilon"):
        assert key in out
    assert out["pair"] == [[50, 50], [49, 51]] and out["samples"] == 20000 and out["confidence"] == 0.95
    exact, _ = M.exact_pair_epsilon("ehds", (1, 1), ((50, 50), (49, 51)), epsilon=1.0)
    assert out["exact_concrete_epsilon"] == pytest.approx(exact, rel=1e-12)
    assert 0 <= out["epsilon_lower_bound"] <= exact
    # same seed, same answer
    main(["audit", "--prior", "1,1", "--n", "100", "--mechanism", "ehds", "--epsilon", "1",
          "--pair", "50,50:49,51", "--samples", "20000", "--seed", "4", "--json"])
    assert json.loads(capsys.readouterr().out) == out


def test_cli_search_default_and_text(capsys):
    assert main(["audit", "--prior", "1,1", "--n", "10", "--mechanism", "lshist", "--epsilon", "1",
                 "--samples", "5000", "--seed", "1", "--delta-at", "0.5"]) == 0
    text = capsys.readouterr().out
    assert "lower bound" in text and "exact concrete epsilon of this pair 1.0000" in text and "delta(0.5)" in text


@pytest.mark.parametrize("extra,match", [
    (["--pair", "50,50:48,52"], "not adjacent"),
    (["--pair", "50,50"], "separated by ':'"),
    (["--samples", "10"], "samples must be >= 100"),
    (["--confidence", "1.5"], "confidence must be in"),
    (["--confidence", "x"], "--confidence must be a number"),
    (["--seed", "-3"], "seed must be a non-negative integer"),
    (["--events", "0"], "--events must be a positive integer"),
    (["--delta-at", "-1"], "--delta-at must be a number >= 0"),
    (["--search", "all"], "search must be one of"),
])
def test_cli_errors_exit_2_one_line(capsys, extra, match):
    rc = main(["audit", "--prior", "1,1", "--n", "100", "--mechanism", "ehds", "--epsilon", "1", *extra])
    err = capsys.readouterr().err
    assert rc == 2 and match in err and err.count("\n") == 1 and err.startswith("dpposterior: error:")


def test_random_search_is_reproducible_and_valid():
    kw = dict(epsilon=1.0, search="random", samples=2000, seed=11)
    r1, r2 = (M.audit_mechanism("lshist", (1, 1, 1), 6, **kw) for _ in range(2))
    assert r1 == r2 and r1.pairs_tested == 4
    A.check_pair(r1.pair, np.ones(3), 6)
    assert r1.epsilon_lower_bound <= r1.exact_concrete_epsilon


def test_cli_flags_ehdl_above_its_nominal_epsilon(capsys):
    assert main(["audit", "--prior", "0.01,0.01", "--n", "1000", "--mechanism", "ehdl", "--epsilon", "3",
                 "--search", "boundary", "--samples", "400000", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "ABOVE THE NOMINAL EPS 3" in out and "pairs tested 4" in out


def old_candidate_pairs(n, k, strategy, count=4, rng=None):
    """The search as it was (every start listed first, every neighbour listed): the reference."""
    starts = []
    if strategy == "boundary":
        for i in range(k):
            v = [0] * k
            v[i] = n
            starts.append(v)
            if n >= 2:
                for j in range(k):
                    if j != i:
                        w = list(v)
                        w[i] -= 1
                        w[j] += 1
                        starts.append(w)
    elif strategy == "balanced":
        starts = [dp.models.balanced_counts(n, k).tolist()]
    out, seen = [], set()
    if strategy == "random":
        gen = np.random.default_rng(rng)
        for _ in range(count):
            cuts = np.sort(gen.choice(n + k - 1, size=k - 1, replace=False))
            c = np.diff(np.concatenate([[-1], cuts, [n + k - 1]])) - 1
            nb = brute_neighbours(c.tolist())
            out.append((c.tolist(), nb[gen.integers(len(nb))]))
        return out
    for c in starts:
        for d in brute_neighbours(c):
            key = tuple(sorted((tuple(c), tuple(d))))
            if key not in seen:
                seen.add(key)
                out.append((c, d))
    return out


@pytest.mark.parametrize("strategy", ["boundary", "balanced", "random"])
@pytest.mark.parametrize("n, k", [(1, 2), (2, 2), (7, 3), (5, 4), (30, 5)])
def test_search_lists_the_same_pairs_as_before(strategy, n, k):
    got = audit.candidate_pairs([1.0] * k, n, strategy, rng=7)
    assert got == old_candidate_pairs(n, k, strategy, rng=7)


def test_search_refuses_before_listing_past_its_cap():
    k, n = 6, 20
    total = len(audit.candidate_pairs([1.0] * k, n, "boundary"))
    assert len(audit.candidate_pairs([1.0] * k, n, "boundary", max_pairs=total + 2 * (k - 1))) == total
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_AUDIT_SAMPLES"):
        audit.candidate_pairs([1.0] * k, n, "boundary", max_pairs=total // 2)
    with pytest.raises(SizeError, match="lists more than 5000 pairs"):  # 1e7 / (2 k) at k = 1000
        audit.candidate_pairs([1.0] * 1000, 1000, "balanced")
    with pytest.raises(SizeError):
        audit.candidate_pairs([1.0] * 3, 10, "random", count=10, max_pairs=9)


@pytest.mark.parametrize("seed", [-1, 1.5, "1", True, 2**200])
def test_audit_seeds_are_validated(seed):
    with pytest.raises(InputError, match="seed must be a non-negative integer"):
        mechanism_audit.audit_mechanism("ehds", [1, 1], 10, epsilon=1, samples=1000, seed=seed)


@pytest.mark.parametrize("call, needle", [
    (lambda: audit.audit(None, [5, 5], [4, 6], samples=1000), "sampler must be a function"),
    (lambda: audit.audit_samples(np.array(["a"] * 200), np.array(["a"] * 200)), "samples must be numbers"),
    (lambda: audit.audit_samples(np.array([object()] * 200), np.array([object()] * 200)), "samples must be numbers"),
    (lambda: audit.audit_samples(np.full(200, np.nan), np.ones(200)), "finite"),
    (lambda: audit.audit_samples(np.ones((200, 300_000), np.int8), np.ones((200, 300_000), np.int8)), "entries"),
    (lambda: audit.samples_needed(True, 0.5, 1.0), "p must be"),
    (lambda: audit.candidate_pairs([1, 1], 10, "random", count=True), "count must be"),
    (lambda: dp.posterior({1: 2, 3: 4}, [1, 2]), "category order"),
    (lambda: dp.posterior({1.0, 2.0}, [1, 2]), "category order"),
])
def test_auditor_inputs_are_validated(call, needle):
    with pytest.raises(InputError, match=needle):
        call()
