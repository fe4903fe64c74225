"""docs/definitions.md §2: ``HellingerGrid.rows`` (the Jensen gaps ``J(a_i + c_i, a_i + x)`` for x = 0..n, read as
windows of its tables) gives the same bits as evaluating each entry by itself: ``lnGamma(mu) - (lnGamma(x) +
lnGamma(y))/2`` from the half-integer table, or the midpoint series where ``|h| <= 0.1 mu``.

The oracle below is a transcription of that definition entry by entry (numpy and scipy only; nothing from the
library), with the same float operations in the same order, so the comparison is bit for bit: every expected-error
grid of the pipeline is computed from these rows."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammaln, polygamma

from dpposterior.distances import HellingerGrid

THRESHOLD = 0.1
TERMS = 8


def oracle_rows(prior, n, i, ci):
    """``J(a_i + c, a_i + x)`` for every c in ci and x = 0..n, one entry at a time."""
    a = float(prior[i])
    s = a + 0.5 * np.arange(2 * n + 1)  # the half-integer grid a + s/2
    lg = gammaln(s)
    coef = [(1.0 / math.factorial(2 * j)) * polygamma(2 * j - 1, s) for j in range(1, TERMS + 1)]
    out = np.empty((len(ci), n + 1))
    for b, c in enumerate(ci):
        for x in range(n + 1):
            h = 0.5 * float(x - c)
            if abs(h) <= THRESHOLD * s[c + x]:
                h2 = h * h
                power, acc = 1.0, 0.0
                for term in range(TERMS):
                    power = power * h2
                    acc = acc - power * coef[term][c + x]
                v = acc
            else:
                v = lg[c + x] - 0.5 * (lg[2 * c] + lg[2 * x])
            out[b, x] = min(v, 0.0)
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4).flatmap(lambda k: st.tuples(
    st.lists(st.sampled_from([1e-9, 1e-3, 0.5, 1.0, 2.5, 5.0, 40.0, 1e6]), min_size=k, max_size=k),
    st.integers(1, 60), st.integers(0, k - 1), st.integers(0, 2), st.integers(1, 12), st.integers(0, 2**32 - 1))))
def test_rows_equal_the_entry_by_entry_jensen_gaps_bit_for_bit(case):
    """Blocks of counts ascending (the walk's first coordinate), descending (its last) and in any order."""
    prior, n, i, kind, size, seed = case
    rng = np.random.default_rng(seed)
    start = int(rng.integers(0, n + 1))
    if kind == 0:
        ci = np.arange(start, min(n, start + size - 1) + 1)
    elif kind == 1:
        ci = np.arange(start, max(0, start - size + 1) - 1, -1)
    else:
        ci = rng.integers(0, n + 1, size)
    got = HellingerGrid(prior, n).rows(i, ci)
    want = oracle_rows(prior, n, i, ci)
    assert got.shape == want.shape
    assert got.tobytes() == want.tobytes(), np.argwhere(got != want)[:5]


def test_rows_at_a_large_n_block_equal_the_oracle_bit_for_bit():
    """n = 2000: rows whose series window is wider than one pass of the series (several passes per block)."""
    n = 2000
    ci = np.arange(1500, 1540)
    got = HellingerGrid([1.0, 1.0], n).rows(0, ci)
    assert got.tobytes() == oracle_rows([1.0, 1.0], n, 0, ci).tobytes()
