"""Budgets of a draw and of an audit, from public inputs only (issue 12, second pass): ``dp.sample``'s
entries and tables, the audit's estimated time and the pairs its search lists, exact neighbour
listing, and messages for numbers past float range.  Each check is exact unless it says otherwise."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpposterior as dp
from dpposterior import audit, mechanism_audit
from dpposterior.errors import InputError, SizeError
from dpposterior.mechanisms import MECHANISMS
from dpposterior.models import check_size, directions, neighbour_at, neighbour_count, neighbours
from dpposterior.validate import big_number


def brute_neighbours(c):
    """docs/definitions.md §1 adjacency, transcribed: c - e_i + e_j for every (i, j) of directions() with c_i >= 1."""
    out = []
    for i, j in directions(len(c)):
        if c[i] >= 1:
            d = list(c)
            d[i] -= 1
            d[j] += 1
            out.append(d)
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=6))
def test_neighbours_match_the_definition_in_order(c):
    want = brute_neighbours(c)
    got = neighbours(c)
    assert got.tolist() == want
    assert neighbour_count(c) == len(want)
    assert [neighbour_at(c, i).tolist() for i in range(len(want))] == want


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


def test_audit_time_estimate_and_its_budget(monkeypatch):
    est = mechanism_audit.check_audit_time("lshist", 100, 2, 10**6)
    assert est == pytest.approx(2 * 10**6 * 2 * MECHANISMS["lshist"].audit_entry_seconds(100, 2))
    # the rejection sampler (|R(n)| > 20000) adds its tables once per batch of draws
    slow = mechanism_audit.check_audit_time("ehd", 10**5, 2, 10**6)
    batches = -(-10**6 // audit.batch_rows(2))
    assert slow == pytest.approx(2 * (10**6 * 2 * 1.7e-6 + batches * 2 * (10**5 + 1) * 0.6e-6))
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_AUDIT_SECONDS"):
        mechanism_audit.check_audit_time("ehd", 10**5, 2, 2 * 10**7)
    monkeypatch.setenv("DPPOSTERIOR_MAX_AUDIT_SECONDS", str(est * 0.99))
    with pytest.raises(SizeError, match="over the budget"):
        mechanism_audit.check_audit_time("lshist", 100, 2, 10**6)
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_AUDIT_SECONDS"):
        mechanism_audit.audit_mechanism("lshist", [1, 1], 100, pair=([50, 50], [49, 51]), epsilon=1, samples=10**6)


def test_sample_has_a_draw_budget(monkeypatch):
    monkeypatch.setenv("DPPOSTERIOR_MAX_DRAW_ENTRIES", "10")
    assert dp.sample("lshist", [1, 1], [3, 4], epsilon=1, size=5, rng=1).shape == (5, 2)
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_DRAW_ENTRIES"):
        dp.sample("lshist", [1, 1], [3, 4], epsilon=1, size=6, rng=1)
    # the auditor's sampler draws in batches within it, so audits are not limited by it
    draw = mechanism_audit.mechanism_sampler("ehds", [1, 1], epsilon=1)
    x = draw(np.array([3, 4]), 23, np.random.default_rng(1))
    assert x.shape == (23, 2) and (x.sum(axis=1) == 7).all()


def test_sample_refuses_large_tables_from_public_inputs(monkeypatch):
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_RELEASE_WORK"):
        dp.sample("ehd", [1, 1], [33_000_000, 33_000_000], epsilon=1, size=1)
    monkeypatch.setenv("DPPOSTERIOR_MAX_RELEASE_WORK", "1e3")
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_RELEASE_WORK"):  # k (n + 1) = 2 * 20001 > 1e3
        dp.sample("ehds", [1, 1], [10_000, 10_000], epsilon=1, size=1)
    assert dp.sample("lshist", [1, 1], [10_000, 10_000], epsilon=1, size=1, rng=1).shape == (1, 2)  # O(k): no tables


def test_numbers_past_float_range_are_printed():
    assert big_number(10**600) == "1.00e+600"
    assert big_number(-(3 * 10**400)) == "-3.00e+400"
    assert big_number(12345678) == "1.23e+07" and big_number(42) == "42" and big_number(0.5) == "0.5"
    with pytest.raises(SizeError, match=r"1\.02e\+600 entries"):
        dp.log_pmf("ehds", [1] * 1000, [1] * 1000, epsilon=1)


def test_memory_budget_is_read_at_call_time(monkeypatch):
    check_size(10**6, 8, "a table")  # 8 MB under the default 4 GiB
    monkeypatch.setenv("DPPOSTERIOR_MEMORY_GB", "0.001")
    with pytest.raises(SizeError, match="0.001 GiB budget"):
        check_size(10**6, 8, "a table")
    monkeypatch.setenv("DPPOSTERIOR_MEMORY_GB", "lots")
    with pytest.raises(InputError, match="DPPOSTERIOR_MEMORY_GB must be a positive number"):
        check_size(10, 8, "a table")


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


@pytest.mark.parametrize("grid, needle", [
    ("abc", "eps_grid must be a number or a list"), ([[0.5, 1]], "flat list"), ([1e300], "[0, 700]"),
    ([True], "got True"), ([], "1 to 10000 points"), (np.zeros(10_001), "1 to 10000 points"),
])
def test_privacy_profile_checks_its_grid(grid, needle):
    with pytest.raises(InputError) as err:
        dp.privacy_profile("ehds", [1, 1], 5, grid, epsilon=1)
    assert needle in str(err.value)


def test_privacy_profile_counts_every_scan_in_the_pair_budget(monkeypatch):
    one = dp.privacy_profile("ehds", [1, 1], 5, [0.5, 1.0], epsilon=1)  # 2 x 6^2 = 72 evaluations
    assert one.shape == (2,) and (one >= 0).all()
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "71")
    with pytest.raises(SizeError, match="2 x"):
        dp.privacy_profile("ehds", [1, 1], 5, [0.5, 1.0], epsilon=1)


def test_local_and_global_sensitivity_need_no_k_by_k_table():
    # k = 100,000 took a 74.5 GiB k x k table; now O(k)
    assert 0 < dp.local_sensitivity([1] * 100_000, [1] * 100_000) <= dp.global_sensitivity([1] * 100_000, 100_000)
    with pytest.raises(InputError, match="prior has 2 entries but the counts have 10000"):
        dp.local_sensitivity([1, 1], np.ones((10, 10_000), np.int8))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([1e-12, 0.3, 1.0, 5.0, 1e6]), min_size=2, max_size=6), st.data())
def test_local_sensitivity_is_the_minimum_over_the_k_by_k_table(prior, data):
    from dpposterior.distances import hellinger_from_log_bc
    from dpposterior.sensitivity import adjacent_log_bc

    k = len(prior)
    c = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=1, max_size=3)))
    c = c[c.sum(axis=1) > 0]
    if not len(c):
        return
    want = hellinger_from_log_bc(adjacent_log_bc(prior, c).reshape(len(c), -1).min(axis=-1))
    assert (dp.local_sensitivity(prior, c) == want).all()  # the same additions: exactly equal


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


def test_the_lgamma_bound_behind_hellingers_refusal_holds():
    from scipy.special import gammaln

    from dpposterior.distances import _lgamma_bound

    v = np.concatenate([np.logspace(-12, 16, 100_000), np.linspace(0.01, 10, 100_000)])
    assert (np.abs(gammaln(v)) <= _lgamma_bound(v)).all()
