"""One pass for several sequential clamps (dpposterior.lattice.scale.clamped_errors_by_factors_shared) and compare's use of it (dpposterior.ranking: rows marked ``pass_with``).

Each law's result must be the same floats as its own run (clamped_errors_by_factors: tested in test_scale.py
against tests/reference.py's brute-force pmf); the brute-force oracle here (tests/reference.py, no library code)
checks the bracket once more.
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior import ranking
from dpposterior.lattice import scale
from dpposterior.lattice.scale import (
    FACTOR_TOLS,
    clamp_radius,
    clamped_errors_by_factors,
    clamped_errors_by_factors_shared,
    factor_tol,
)
from dpposterior.mechanisms import MECHANISMS

LAWS = ("lszhang", "lsdim", "geometric")


def _point(mech: str, k: int, eps: float, tol: float):
    m = MECHANISMS[mech]
    s = m.scale(k, eps)
    D = clamp_radius(lambda D: m.noise_tables(s, D - 1)[0], k, tol)
    return m.noise_tables(s, D - 1)[0]


def _same(shared, alone):
    assert len(shared) == len(alone)
    for s, a in zip(shared, alone):
        assert np.array_equal(s.counts, a.counts)
        assert np.array_equal(s.low, a.low)  # the same floats, bit for bit
        assert s.tail == a.tail and s.offsets == a.offsets


@settings(max_examples=12, deadline=None)
@given(k=st.sampled_from([3, 4]), n=st.integers(0, 30), eps=st.sampled_from([0.5, 1.0, 2.0, 5.0]),
       a=st.lists(st.sampled_from([0.05, 0.5, 1.0, 3.0, 40.0]), min_size=4, max_size=4),
       laws=st.lists(st.sampled_from(LAWS), min_size=2, max_size=3, unique=True),
       tol=st.sampled_from(FACTOR_TOLS))
# a pass that really shares its blocks (the next test's laws), whose laws' intervals differ: a wrong slice of the
# shared block fails here, where the drawn examples may all fall back to each law's own run
@example(k=3, n=30, eps=0.5, a=[1.0, 1.0, 1.0, 1.0], laws=["lszhang", "geometric"], tol=1e-4)
def test_one_pass_by_factors_is_each_laws_own_run(k, n, eps, a, laws, tol):
    prior = a[:k]
    if k == 4:  # k = 4 at small eps: ~1e5 offsets or more
        n, eps, tol = min(n, 6), max(eps, 2.0), max(tol, 1e-4)
    inner = factor_tol(k, tol)
    points = [_point(m, k, eps, inner) for m in laws]
    _same(clamped_errors_by_factors_shared(prior, n, points, inner),
          [clamped_errors_by_factors(prior, n, p, inner) for p in points])


def test_one_pass_by_factors_shares_its_blocks_where_the_laws_allow():
    """lszhang's and geometric's laws at k = 3 (the same scale): one pass, not two runs (the fallback is also
    each law's own run, so the test above cannot tell them apart)."""
    inner = factor_tol(3, 1e-4)
    points = [_point(m, 3, 0.5, inner) for m in ("lszhang", "geometric")]
    assert scale.shared_factor_pass(3, points, inner)
    calls = []
    real = scale.clamped_errors_by_factors
    scale.clamped_errors_by_factors = lambda *args, **kw: calls.append(1) or real(*args, **kw)
    try:
        clamped_errors_by_factors_shared([1.0, 1.0, 1.0], 30, points, inner)
    finally:
        scale.clamped_errors_by_factors = real
    assert not calls


def test_one_pass_brackets_the_brute_force_pmf():
    a, n, eps, tol = (1.0, 2.0, 0.5), 4, 1.0, 1e-6
    points = [_point(m, 3, eps, tol) for m in ("lszhang", "geometric")]
    got = clamped_errors_by_factors_shared(a, n, points, tol)
    for b, pmf_of in zip(got, (lambda c: ref.laplace_pmf(c, n, ref.LAPLACE_SCALE["lszhang"](3, eps)),
                              lambda c: ref.geometric_pmf(c, n, ref.GEOMETRIC_SCALE["geometric"](3, eps)))):
        for i, c in enumerate(b.counts.tolist()):
            e = sum(float(p) * ref.hellinger([x + y for x, y in zip(a, c)], [x + y for x, y in zip(a, r)])
                    for r, p in pmf_of(tuple(c)).items())
            assert b.low[i] - 1e-12 <= e <= b.high[i] + 1e-12


def test_compare_rows_in_one_pass_are_the_rows_run_alone(monkeypatch):
    """compare marks the rows of one errors_pass key (the registry's, not ids) and runs them in one pass; the rows
    are those of each row run alone, key for key."""
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "2e4")
    a, n, eps = np.array([1.0, 2.0, 0.5]), 30, 2.0
    plans = ranking.plan_compare(a, n, eps)
    shared = [p for p in plans if p.pass_with]
    assert len(shared) >= 2 and all(p.plan.route == "translation (factors)" for p in shared)
    assert all(p.pass_plan is shared[0].pass_plan and p.pass_with == shared[0].pass_with for p in shared)
    # the pass is planned at its union's losses: below the rows' own plans together
    assert shared[0].pass_plan.seconds < sum(p.plan.seconds for p in shared)
    alone = [ranking.RowPlan(p.variant, p.spec, p.plan, p.left_out, p.same_as) for p in plans]
    errors_shared, errors_alone = {}, {}
    got = ranking.compare_rows(a, n, eps, plans=plans, errors=errors_shared)
    want = ranking.compare_rows(a, n, eps, plans=alone, errors=errors_alone)
    assert got == want
    for label in shared[0].pass_with:
        assert np.array_equal(errors_shared[label].expected, errors_alone[label].expected)


def test_a_pass_over_its_limits_leaves_each_row_alone(monkeypatch):
    """Where the pass's own plan does not fit (here: its memory), the rows run alone as each was planned."""
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "2e4")
    a, n, eps = np.array([1.0, 1.0, 1.0]), 30, 2.0
    assert any(p.pass_with for p in ranking.plan_compare(a, n, eps))
    geo = type(MECHANISMS["geometric"])
    real = geo.plan_shared_errors

    def huge(self, members, prior, n):
        from dataclasses import replace
        return replace(real(self, members, prior, n), memory_bytes=1e15)

    monkeypatch.setattr(geo, "plan_shared_errors", huge)
    monkeypatch.setattr(type(MECHANISMS["lszhang"]), "plan_shared_errors", huge)
    assert not any(p.pass_with for p in ranking.plan_compare(a, n, eps))
