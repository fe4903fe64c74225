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
    """SPEC §1 adjacency, transcribed: c - e_i + e_j for every (i, j) of directions() with c_i >= 1."""
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
