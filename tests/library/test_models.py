"""docs/definitions.md §1: candidate set R(n), its order and ranks, adjacency, steps, input validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior import InputError, SizeError, validate
from dpposterior.models import (
    balanced_counts,
    candidate_rank,
    candidates,
    counts_from_proportions,
    directions,
    n_candidates,
    neighbour_at,
    neighbour_count,
    neighbours,
    posterior,
    steps,
)


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_candidates_size_distinct_sum_and_lexicographic_order(n, k):
    m = candidates(n, k)
    assert m.shape == (math.comb(n + k - 1, k - 1), k)
    assert n_candidates(n, k) == math.comb(n + k - 1, k - 1)
    assert m.dtype == np.int64
    assert np.all(m >= 0) and np.all(m.sum(axis=1) == n)
    assert len({tuple(r) for r in m}) == len(m)
    # strictly increasing in lexicographic order, and equal to the brute-force enumeration
    assert all(tuple(m[i]) < tuple(m[i + 1]) for i in range(len(m) - 1))
    assert [tuple(r) for r in m] == ref.compositions(n, k)


def test_candidates_beta_order_is_documented_one():
    assert candidates(3, 2).tolist() == [[0, 3], [1, 2], [2, 1], [3, 0]]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 30), k=st.integers(2, 5))
def test_candidate_rank_inverts_candidates(n, k):
    if math.comb(n + k - 1, k - 1) > 50_000:
        n = 10
    m = candidates(n, k)
    np.testing.assert_array_equal(candidate_rank(m), np.arange(len(m)))
    # a shuffled batch with an extra leading axis
    perm = np.random.default_rng(n * 10 + k).permutation(len(m))
    np.testing.assert_array_equal(candidate_rank(m[perm].reshape(1, -1, k))[0], perm)


def test_candidate_rank_large_n_k2():
    n = 10**9
    assert int(candidate_rank(np.array([3, n - 3]))) == 3
    assert int(candidate_rank(np.array([n, 0]))) == n


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=2, max_size=5).filter(lambda c: sum(c) > 0))
def test_neighbours_match_definition(c):
    got = sorted(map(tuple, neighbours(c).tolist()))
    assert got == sorted(ref.neighbours(c))
    nonzero = sum(1 for x in c if x >= 1)
    assert len(got) == nonzero * (len(c) - 1)
    assert all(ref.dist(c, d) == 1 for d in got)


def test_steps_is_half_l1():
    c = np.array([4, 4])
    m = candidates(8, 2)
    assert steps(c, m).tolist() == [4, 3, 2, 1, 0, 1, 2, 3, 4]
    assert int(steps([3, 0, 2], [0, 3, 2])) == 3
    assert int(steps([3, 0, 2], [2, 2, 1])) == 2


def test_posterior_adds_prior():
    np.testing.assert_allclose(posterior([0.5, 2.0], [3, 4]), [3.5, 6.0])


def test_balanced_and_proportional_counts():
    assert balanced_counts(10, 3).tolist() == [4, 3, 3]
    assert balanced_counts(8, 2).tolist() == [4, 4]
    c = counts_from_proportions(10, [0.2, 0.3, 0.5])
    assert c.tolist() == [2, 3, 5]
    c = counts_from_proportions(7, [1 / 3, 1 / 3, 1 / 3])
    assert c.sum() == 7 and sorted(c.tolist()) == [2, 2, 3]
    with pytest.raises(InputError, match="proportions"):
        counts_from_proportions(10, [0.5, 0.6])


# --- bad input (one-line InputError naming the problem) --------------------------------

@pytest.mark.parametrize("counts, pattern", [
    ([3, -1], "non-negative"),
    ([1.5, 2], "integers"),
    ([2.0, float("nan")], "integers"),
    ([5], "at least 2 categories"),
    ([], "at least 2 categories"),
    ([0, 0], "at least one record"),
    ("3,4", "string"),
    ([[1, 2], [3, 4]], "flat list"),
    ([True, False], "integers"),
])
def test_bad_counts(counts, pattern):
    with pytest.raises(InputError, match=pattern) as info:
        validate.counts(counts)
    assert "\n" not in str(info.value) and "counts" in str(info.value)


def test_integral_float_counts_accepted():
    assert validate.counts([4.0, 2.0]).tolist() == [4, 2]


@pytest.mark.parametrize("prior, k, pattern", [
    ([1.0, 0.0], None, r"> 0"),
    ([1.0, -2.0], None, r"> 0"),
    ([1.0, float("inf")], None, "finite"),
    ([1.0, float("nan")], None, "finite"),
    ([1.0], None, "at least 2"),
    ([1.0, 1.0, 1.0], 2, "3 entries but the counts have 2 categories"),
    ("1,1", None, "string"),
])
def test_bad_prior(prior, k, pattern):
    with pytest.raises(InputError, match=pattern) as info:
        validate.prior(prior, k)
    assert "prior" in str(info.value)


@pytest.mark.parametrize("n", [0, -3, 2.5, "7", True])
def test_bad_size(n):
    with pytest.raises(InputError, match="n must be a positive integer"):
        validate.size(n)


def test_size_error_mentions_size():
    with pytest.raises(SizeError, match=r"R\(n\) for k=6, n=100000") as info:
        candidates(100_000, 6)
    assert "GiB" in str(info.value)
    assert isinstance(info.value, InputError)


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


@pytest.mark.parametrize("ordered", [False, True])
@given(k=st.integers(2, 4), n=st.integers(0, 6))
@settings(max_examples=30, deadline=None)
def test_neighbour_moves_are_every_neighbour_once(ordered, k, n):
    import itertools

    from dpposterior.models import candidates, neighbour_moves

    cands = [tuple(c) for c in candidates(n, k)]
    got = [(cands[r], cands[d]) for rows, ranks in neighbour_moves(np.array(cands).reshape(-1, k), ordered)
           for r, d in zip(rows.tolist(), ranks.tolist())]
    want = [(c, tuple(x - (t == i) + (t == j) for t, x in enumerate(c)))
            for i, j in (itertools.permutations(range(k), 2) if ordered else itertools.combinations(range(k), 2))
            for c in cands if c[i] >= 1]
    assert got == want
