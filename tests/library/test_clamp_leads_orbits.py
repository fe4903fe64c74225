"""The searches by orbits with clamp groups (lattice/batched.py: ``_orbit_search``, ``clamp_leads``,
``exact_shift_weights``).

* at a symmetric prior every output is the one-point search's (the definition a draw runs), at points of the reach
  region whose sorted pairs share a clamp (``(min(y, n), p)``), exact shifts or not, and the groups are used (fewer
  certified searches than orbits; fewer exact-step searches than points left where the shifts are exact);
* ``clamp_leads`` is its definition (brute force), and the exact-shift rule is needed: forced on at eps 0.6 the
  outputs differ from the one-point search's;
* the mechanism's ``exact_shifts`` is the same rule.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.lattice import batched
from dpposterior.lattice.column import reach_region
from dpposterior.lattice.remap import local_bayes_search
from dpposterior.mechanisms import lattice as lattice_module
from dpposterior.mechanisms.optimal import LATTICE


def _parts(m, eps, size, seed):
    """``size`` distinct positive parts of the reach region of the release ``m`` (k = 4), one point each."""
    m = np.asarray(m, dtype=np.int64)
    n, k = int(m.sum()), m.size
    Dc = lattice_module._radius(k, eps, 1e-12)
    Z = reach_region(n, k, m, Dc, LATTICE.column_radius(n, k, eps))
    _, first = np.unique(np.maximum(Z, 0), axis=0, return_index=True)
    reps = Z[np.sort(first)]
    pick = np.random.default_rng(seed).choice(len(reps), size=min(size, len(reps)), replace=False)
    return reps[np.sort(pick)]


@settings(max_examples=10, deadline=None)
@given(m=st.sampled_from([(1, 2, 0, 3), (2, 2, 2, 2), (0, 0, 1, 5), (1, 1, 1, 2), (3, 0, 0, 0)]),
       eps=st.sampled_from([0.75, 1.0, 1.5, 2.0, 0.6, 0.9, 1.1]), ai=st.sampled_from([1.0, 0.5]),
       seed=st.integers(0, 100))
def test_every_output_is_the_one_point_searchs(m, eps, ai, seed):
    a = np.full(4, ai)
    n = int(sum(m))
    Z = _parts(m, eps, 300, seed)
    stats: dict = {}
    got = batched.local_search_batch(a, n, eps, Z, orbits=True, stats=stats)
    want = np.array([local_bayes_search(a, n, eps, z) for z in Z])
    assert np.array_equal(got, want)
    assert stats["leads"] <= stats["orbits"]


@pytest.mark.parametrize("m, eps", [((1, 2, 0, 3), 1.5), ((2, 2, 2, 2), 1.0), ((0, 0, 1, 5), 2.0)])
def test_the_groups_are_used(m, eps):
    """Fewer certified searches than orbits, and at exact shifts fewer exact-step searches than points left."""
    n = int(sum(m))
    Z = _parts(m, eps, 1500, 0)
    stats: dict = {}
    got = batched.local_search_batch(np.ones(4), n, eps, Z, orbits=True, stats=stats)
    assert stats["leads"] < stats["orbits"] / 5
    assert batched.exact_shift_weights(np.ones(4), eps)
    assert 0 < stats["left_searched"] < stats["left"] / 2
    assert np.array_equal(got, [local_bayes_search(np.ones(4), n, eps, z) for z in Z])


def test_the_exact_shift_rule_is_needed(monkeypatch):
    """At eps 0.6 (not a short binary fraction) the points of a clamp group do not share their floats: with the
    rule forced on, some outputs are not the one-point search's."""
    m, eps = (1, 1, 1, 2), 0.6
    n = int(sum(m))
    Z = _parts(m, eps, 1500, 1)
    assert not batched.exact_shift_weights(np.ones(4), eps)
    monkeypatch.setattr(batched, "exact_shift_weights", lambda *args: True)
    got = batched.local_search_batch(np.ones(4), n, eps, Z, orbits=True)
    want = np.array([local_bayes_search(np.ones(4), n, eps, z) for z in Z])
    assert np.any(got != want)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 6), data=st.data())
def test_clamp_leads_is_its_definition(n, data):
    rows = data.draw(st.lists(st.tuples(*[st.integers(-9, n + 9)] * 3), min_size=1, max_size=25))
    Z = np.array([(x, y, w, n - x - y - w) for x, y, w in rows], dtype=np.int64)
    _, pairs = batched.orbit_pairs(Z, n)
    V = np.unique(pairs, axis=0)
    lead, group, shift = batched.clamp_leads(V, n)
    k = 4
    s = (V[:, :k] - np.minimum(V[:, :k], n)).sum(axis=1)
    key = [tuple(np.minimum(r[:k], n)) + tuple(r[k:]) for r in V.tolist()]
    want = {}
    for j, kk in enumerate(key):
        if kk not in want or s[j] < s[want[kk]]:
            want[kk] = j
    assert sorted(lead.tolist()) == sorted(want.values())
    for j, kk in enumerate(key):
        assert lead[group[j]] == want[kk]
    assert shift == max(int(s[j] - s[want[kk]]) for j, kk in enumerate(key))


@pytest.mark.parametrize("prior, eps, exact", [
    ((1, 1, 1, 1), 0.25, True), ((1, 1, 1, 1), 0.75, True), ((1, 1, 1, 1), 2.5, True), ((1, 1, 1, 1), 0.6, False),
    ((1, 1, 1, 1), 0.3, False), ((0.5, 0.5, 0.5, 0.5), 1.0, False), ((1, 1, 1, 1), 2.0**-21, False)])
def test_the_mechanism_reads_the_same_rule(prior, eps, exact):
    assert batched.exact_shift_weights(np.array(prior, dtype=float), eps) is exact
    assert lattice_module.exact_shifts(np.array(prior, dtype=float), eps) is exact

