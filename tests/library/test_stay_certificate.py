"""The stay certificate of the local search (lattice.batched.stays) and the noise-aware column built on it.

Oracle: the one-point search a draw runs (``local_bayes_search``, the release's definition): a point the certificate
certifies must be its own output there."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.errors import InputError
from dpposterior.lattice import batched
from dpposterior.lattice.batched import stays
from dpposterior.lattice.noise import radius_for
from dpposterior.lattice.remap import local_bayes_search
from dpposterior.mechanisms import lattice as lattice_module


def _random_points(rng, n, k, size):
    """``size`` points of R(n) drawn by a uniform split of n into k parts (rows summing to n)."""
    cuts = np.sort(rng.integers(0, n + 1, size=(size, k - 1)), axis=1)
    edges = np.concatenate([np.zeros((size, 1), dtype=np.int64), cuts, np.full((size, 1), n)], axis=1)
    return np.diff(edges, axis=1).astype(np.int64)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([(1.0, 1.0, 1.0), (0.5, 0.5, 0.5), (0.3, 1.0, 4.0), (2.0, 2.0, 1.0), (1.0, 1.0, 1.0, 1.0),
                        (0.5, 1.0, 2.0, 3.0)]),
       st.integers(3, 150), st.sampled_from([0.2, 0.5, 1.0, 2.0]), st.integers(0, 2**31 - 1),
       st.booleans())
def test_a_certified_point_is_its_own_output_in_the_one_point_search(a, n, eps, seed, orbits):
    rng = np.random.default_rng(seed)
    k = len(a)
    Z = _random_points(rng, n, k, 3)
    # and the neighbours of one point (where the search moves, the certificate must not claim a stay)
    Z = np.concatenate([Z, Z[:1] + np.array([1, -1] + [0] * (k - 2))])
    Z = Z[np.all(Z >= 0, axis=1)]
    ok = stays(np.array(a), n, eps, Z, orbits=orbits)
    for z, certified in zip(Z, ok):
        if certified:
            assert np.array_equal(local_bayes_search(np.array(a), n, eps, z), z), z


def test_it_certifies_the_points_near_the_centre_at_small_eps():
    """Dir(1, 1, 1), n = 1000, eps = 0.1: the points the column searches there are certified (not a vacuous test),
    and each is the one-point search's output at itself."""
    rng = np.random.default_rng(3)
    Z = np.array([333, 333, 334]) + np.array([[0, 0, 0], [5, -3, -2], [-20, 11, 9], [40, -40, 0], [-7, 0, 7]])
    Z = np.concatenate([Z, _random_points(rng, 1000, 3, 2)])
    stats: dict = {}
    ok = stays(np.ones(3), 1000, 0.1, Z, stats=stats)
    assert ok[:5].all() and stats["certified_points"] == ok.sum()
    for z in Z[ok][:2]:
        assert np.array_equal(local_bayes_search(np.ones(3), 1000, 0.1, z), z)


def test_a_point_whose_search_moves_is_not_certified():
    """Next to a face at a small prior the search moves off the start: no certificate there."""
    a, n, eps = np.array([0.3, 1.0, 4.0]), 40, 1.0
    Z = np.array([[x, y, n - x - y] for x in range(0, 6) for y in range(0, 6)])
    moved = np.array([not np.array_equal(local_bayes_search(a, n, eps, z), z) for z in Z])
    assert moved.any()
    assert not np.any(stays(a, n, eps, Z)[moved])


def test_orbits_certify_the_same_points_at_a_symmetric_prior():
    rng = np.random.default_rng(5)
    Z = _random_points(rng, 300, 3, 40)
    Z = np.concatenate([Z, Z[:, [2, 0, 1]], Z[:, [1, 0, 2]]])
    with_orbits, without = stays(np.ones(3), 300, 0.2, Z), stays(np.ones(3), 300, 0.2, Z, orbits=False)
    assert np.array_equal(with_orbits[:40], with_orbits[40:80]) and np.array_equal(with_orbits[:40], with_orbits[80:])
    assert with_orbits.sum() >= 0.9 * without.sum()


def test_points_off_r_n_are_refused():
    with pytest.raises(InputError):
        stays(np.ones(3), 10, 0.5, np.array([[-1, 5, 6]]))
    assert stays(np.ones(3), 10, 0.5, np.zeros((0, 3), dtype=np.int64)).size == 0


def test_the_columns_outputs_are_the_same_with_and_without_the_certificate(monkeypatch):
    """``_outputs_m`` (whether each point's search outputs m) below eps 0.25: the certificate first, then the
    search at the rest; the same 0/1 column as the search at every point."""
    a, n, eps = np.ones(3), 120, 0.2
    m = np.array([45, 37, 38])
    Dc = radius_for(3, eps, 1e-12)
    rng = np.random.default_rng(11)
    near = m[None, :] + np.array([[0, 0, 0], [1, -1, 0], [0, 1, -1], [-1, 0, 1], [2, -1, -1], [-1, 2, -1]])
    Z = np.concatenate([near, _random_points(rng, n, 3, 10)])
    calls = []
    real_stays = batched.stays
    monkeypatch.setattr(batched, "stays", lambda *args, **kw: calls.append(1) or real_stays(*args, **kw))
    new = lattice_module._outputs_m(a, n, eps, m, Z, Dc)
    assert calls
    monkeypatch.setattr(lattice_module, "COLUMN_BATCH_MIN_EPSILON", 0.0)
    old = lattice_module._outputs_m(a, n, eps, m, Z, Dc)
    assert np.array_equal(new, old)
    truth = np.array([np.array_equal(local_bayes_search(a, n, eps, z), m) for z in Z], dtype=float)
    assert np.array_equal(new, truth)
