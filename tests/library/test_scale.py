"""Exact errors at scale (dpposterior.lattice.scale) and the yardstick (dpposterior.yardstick).

The brute-force oracles are tests/reference.py's (the sequential clamp's pmf and the LP of docs/definitions.md
§9, written there without the library); the dense walk of dpposterior.accuracy is the second reference.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.accuracy import expected_errors
from dpposterior.lattice import noise as N
from dpposterior.lattice.remap import LatticeSetup, Remap, bayes_remap, project
from dpposterior.lattice.scale import (
    WindowRemap,
    clamp_radius,
    clamped_errors,
    lattice_errors,
)
from dpposterior.mechanisms import MECHANISMS
from dpposterior.models import candidate_rank
from dpposterior.yardstick import marginal_bound


def _point(mech: str, k: int, eps: float, tol: float):
    m = MECHANISMS[mech]
    s = m.scale(k, eps)
    D = clamp_radius(lambda D: m.noise_tables(s, D - 1)[0], k, tol)
    return m.noise_tables(s, D - 1)[0]


def test_clamped_errors_match_the_brute_force_pmf():
    a, n, eps = (1.0, 2.0, 0.5), 4, 1.0
    b = clamped_errors(a, n, _point("geometric", 3, eps, 1e-8), 1e-8)
    scale = ref.GEOMETRIC_SCALE["geometric"](3, eps)
    for i, c in enumerate(b.counts.tolist()):
        pmf = ref.geometric_pmf(tuple(c), n, scale)
        e = sum(p * ref.hellinger([x + y for x, y in zip(a, c)], [x + y for x, y in zip(a, r)]) for r, p in pmf.items())
        assert b.low[i] - 1e-12 <= e <= b.high[i] + 1e-12


@settings(max_examples=6, deadline=None)
@given(k=st.sampled_from([3, 4]), eps=st.sampled_from([1.0, 2.0, 4.0]),
       mech=st.sampled_from(["geometric", "lshist"]), a0=st.sampled_from([0.5, 1.0, 3.0]))
def test_clamped_errors_bracket_the_dense_walk(k, eps, mech, a0):
    n = 6 if k == 3 else 3
    a = [a0] + [1.0] * (k - 1)
    tol = 1e-6 if k == 3 else 1e-4
    b = clamped_errors(a, n, _point(mech, k, eps, tol), tol)
    dense = expected_errors(mech, a, n, epsilon=eps).expected
    assert b.tail <= tol
    assert np.all(b.low <= dense + 1e-13) and np.all(dense <= b.high + 1e-13)


def test_clamped_errors_interior_rows_bracket_the_dense_walk():
    # eps = 3, tol 1e-6: the offsets reach 11, so the data sets with every count >= 11 (91 of R(45)) take the
    # interior (band-table) path
    a, n, eps, tol = [1.0, 0.5, 2.0], 45, 3.0, 1e-6
    b = clamped_errors(a, n, _point("geometric", 3, eps, tol), tol)
    dense = expected_errors("geometric", a, n, epsilon=eps).expected
    assert np.all(b.low <= dense + 1e-13) and np.all(dense <= b.high + 1e-13)


def test_accuracy_takes_the_translation_route_past_the_pair_budget(monkeypatch):
    a, n, eps = [1.0, 1.0, 1.0], 30, 2.0
    dense = expected_errors("geometric", a, n, epsilon=eps)
    assert dense.tail == 0 and "truncation_bound" not in dense.as_dict()
    # 2 |R(30)|^2 = 492,032 > 4e5: the dense walk is refused, the translation route (~1e5 here) is not
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "4e5")
    fast = expected_errors("geometric", a, n, epsilon=eps)
    assert 0 < fast.tail <= 1e-5 and fast.as_dict()["truncation_bound"] == fast.tail
    assert np.all(fast.expected <= dense.expected + 1e-13) and np.all(dense.expected <= fast.expected + fast.tail + 1e-13)
    assert fast.worst <= dense.worst <= fast.worst + fast.tail + 1e-13


def test_lattice_errors_with_project_and_with_a_window_remap_match_the_window_errors():
    a, n, eps = [1.0, 2.0, 1.0], 5, 1.0
    s = LatticeSetup(a, n, eps, tol=1e-10)
    proj = Remap(index=candidate_rank(project(s.Z, n)))
    ew = s.errors(proj)
    b = lattice_errors(a, n, eps, tol=1e-10)
    assert np.abs(b.low - ew.low).max() <= b.tail + ew.tail
    bayes, _ = bayes_remap(s)
    eb = s.errors(bayes)
    bw = lattice_errors(a, n, eps, rule=WindowRemap(n, s.W, bayes.index), tol=1e-10)
    assert np.abs(bw.low - eb.low).max() <= bw.tail + eb.tail
    assert bw.tail == N.tail_bound(3, eps, N.radius_for(3, eps, 1e-10))


@pytest.mark.parametrize("a,n,eps", [((1.0, 1.0, 1.0), 3, 1.0), ((1.0, 2.0, 0.5), 3, 0.5), ((1.0, 1.0, 1.0), 4, 2.0),
                                     ((1.0, 1.0, 1.0, 1.0), 2, 1.0), ((0.5, 1.0, 2.0, 1.0), 2, 1.0)])
def test_yardstick_is_at_or_below_the_lp(a, n, eps):
    y = marginal_bound(list(a), n, eps)
    b = ref.brute(a, n)
    assert 0 < y.worst <= ref.optimal_lp_value(b, eps, "worst") + 1e-9
    assert 0 < y.average <= ref.optimal_lp_value(b, eps, "average") + 1e-9
