"""docs/definitions.md §4, §9: the exact log-pmf rows of the sequentially clamped release at k = 2, read as windows of
the noise table (``clamped_log_pmf_rows``' path for R(n) at k = 2), give the same bits as the definition cell by cell:
``m = 0`` has ``P(D <= -c)``, ``m = n`` has ``P(D >= n - c)``, any other m has ``P(D = m - c)``.

The oracle is a transcription of that definition (plain Python over the noise tables, which are the input here);
it adds each cell to 0.0, as the rows of any k are summed, so that a -0.0 comes out as the sum gives it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.mechanisms import geometric_noise_tables, laplace_noise_tables
from dpposterior.mechanisms.clamped import clamped_log_pmf_rows


def oracle_rows(tables, n, counts):
    point, upper, lower = tables
    out = np.empty((len(counts), n + 1))
    for b, c in enumerate(counts):
        for m in range(n + 1):
            if m == 0:
                v = lower[c + n + 1]          # P(D <= -c)
            elif m == n:
                v = upper[n - c + n + 1]      # P(D >= n - c)
            else:
                v = point[m - c + n + 1]      # P(D = m - c)
            out[b, m] = 0.0 + v
    return out


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 80), st.sampled_from([1e-3, 0.3, 1.0, 2.0, 8.0, 1e4]), st.booleans(),
       st.lists(st.integers(0, 10**6), min_size=1, max_size=9))
def test_k2_rows_equal_the_definition_bit_for_bit(n, scale, geometric, picks):
    tables = (geometric_noise_tables if geometric else laplace_noise_tables)(scale, n)
    counts = np.array([p % (n + 1) for p in picks], dtype=np.int64)
    cands = np.column_stack([np.arange(n + 1), n - np.arange(n + 1)]).astype(np.int64)
    got = clamped_log_pmf_rows(tables, np.column_stack([counts, n - counts]), cands)
    want = oracle_rows(tables, n, counts)
    assert got.shape == want.shape
    assert got.tobytes() == want.tobytes(), np.argwhere(got.view(np.int64) != want.view(np.int64))[:5]
