"""The kept k = 2 distance matrix (dpposterior.distances.beta_matrix): the same values as the distance itself,
read-only, and only where it is meant to be kept."""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior.distances import DENSE_ENTRIES, DistanceGrid, beta_matrix, distance
from dpposterior.models import candidates


@pytest.mark.parametrize("name", ["tv", "kl"])
def test_the_matrix_is_the_distance_elementwise(name):
    prior, n = (0.7, 2.5), 9
    M = beta_matrix(name, prior, n)
    a = np.asarray(prior)
    for c in range(n + 1):
        for r in range(n + 1):
            assert M[c, r] == distance(name, a + [c, n - c], a + [r, n - r])
    assert not M.flags.writeable
    cands = candidates(n, 2)
    assert np.array_equal(DistanceGrid(prior, n, name).values(cands[3:5], cands), M[3:5])


def test_no_matrix_for_hellinger_k3_or_large_n():
    assert beta_matrix("hellinger", (1, 1), 10) is None
    assert beta_matrix("kl", (1, 1, 1), 10) is None
    n = int(DENSE_ENTRIES ** 0.5)  # (n + 1)^2 > DENSE_ENTRIES
    assert beta_matrix("kl", (1, 1), n) is None
