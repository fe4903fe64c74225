"""The k = 4 corner release's errors by the tables' differences (``lattice.corners_any._table_deltas``, the route
``corner_errors_any(..., delta=True)``): the sum against a term-by-term transcription of its definition, the whole
errors against the full recomputation, the plan's count of terms an upper end of the terms counted, and the worst
row fitting ``compare``'s rows at Dir(1,1,1,1), eps = 1, n = 50 and its plan at eps = 0.5 (docs/lattice.md, "The
errors by the tables' differences")."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpposterior.lattice import corners_any
from dpposterior.mechanisms import LATTICE, ReleaseSpec


def _compositions(n, k):
    """Every k-vector of integers >= 0 summing to n (the oracle's R(n), any order)."""
    return [c for c in itertools.product(range(n + 1), repeat=k) if sum(c) == n]


def _offsets(k, W):
    """Every integer k-vector summing to 0 with half its 1-norm at most W (the oracle's ball)."""
    return [w for w in itertools.product(range(-W, W + 1), repeat=k) if sum(w) == 0 and sum(map(abs, w)) <= 2 * W]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_table_deltas_are_the_definitions_sum(n, W, seed):
    """``low[c] += sum_{z, w : z - w = c} K(w) (sum_j p_j(z) L(c, o_j(z)) - L(c, rest(z)))`` over random rows ``z``
    (summing to n, some coordinates negative), random outputs, probabilities (some 0) and losses, against the sum
    written out over every (row, offset) pair."""
    rng = np.random.default_rng(seed)
    k = 4
    R = _compositions(n, k)
    index = {c: i for i, c in enumerate(R)}
    offs = np.array(_offsets(k, W), dtype=np.int64)
    wts = rng.random(len(offs))
    Z = [z for z in itertools.product(range(-1, n + 2), repeat=k - 1)]
    Z = np.array([z + (n - sum(z),) for z in Z], dtype=np.int64)
    Z = Z[rng.choice(len(Z), size=min(len(Z), 12), replace=False)]
    J = 3
    outs = rng.integers(0, n + 1, size=(len(Z), J, k))
    probs = rng.random((len(Z), J)) * (rng.random((len(Z), J)) < 0.7)
    probs[:, 0] += 1e-3
    probs /= probs.sum(axis=1, keepdims=True)
    rest = rng.integers(0, n + 1, size=(len(Z), k))
    table = rng.random((n + 1,) * k + (n + 1,) * k)

    def loss(c, r):  # any function of (c, r) read off a table: the sum must not depend on what L is
        c, r = np.asarray(c), np.asarray(r)
        return table[tuple(c[..., i] for i in range(k)) + tuple(np.clip(r[..., i], 0, n) for i in range(k))]

    # the candidates' order of the library (the only thing read from it: where each c's entry sits)
    from dpposterior.models import candidates

    C = [tuple(c) for c in candidates(n, k).tolist()]
    want = {c: 0.0 for c in R}
    for m, z in enumerate(Z.tolist()):
        for w, kw in zip(offs.tolist(), wts):
            c = tuple(zi - wi for zi, wi in zip(z, w))
            if c not in index:
                continue
            mix = sum(p * float(loss(c, o)) for p, o in zip(probs[m], outs[m].tolist()) if p > 0)
            want[c] += kw * (mix - float(loss(c, rest[m])))
    low = np.zeros(len(C))
    corners_any._table_deltas(low, Z, outs, probs, rest, offs, wts, loss)
    got = dict(zip(C, low))
    assert max(abs(got[c] - want[c]) for c in R) < 1e-12
    # only a draw whose rows reach R(n) can tell a wrong sum (n = 3, W = 1, seed 483 reaches none): count the rest out
    assume(any(abs(want[c]) > 1e-6 for c in R))


@pytest.mark.parametrize("n0, n, eps, top", [(6, 6, 1.0, 1), (7, 9, 2.0, 0)])
def test_errors_by_differences_equal_the_full_recomputation(n0, n, eps, top):
    """The whole errors by the tables' differences equal every data set near the tables recomputed term by term
    (itself tested against the definition), with the edge table and with the corner table translated past n0."""
    a = np.array([1.0, 1.0, 2.0, 0.5])
    remap = corners_any._at(corners_any.solve_any(a, n0, eps, 1, 2, top=top), n)
    got = corners_any.corner_errors_any(remap, 4)
    want = corners_any.corner_errors_any(remap, 4, delta=False)
    assert np.array_equal(got.counts, want.counts)
    assert np.abs(got.low - want.low).max() < 1e-13
    assert got.tail == want.tail


@pytest.mark.parametrize("n", [20, 30])
def test_the_plans_terms_are_an_upper_end_of_the_terms_counted(n):
    """``table_rows`` and ``delta_terms`` (closed forms, public inputs) against the rows of the window the tables hold
    (the corner table's free rows, the edge rows by the edge table's lookup) and their offsets inside R(n), counted."""
    from dpposterior.lattice.noise import window
    from dpposterior.lattice.remap import _ball
    from dpposterior.mechanisms.lattice import LOCAL_ERROR_TOL, _radius

    k, eps = 4, 1.0
    We = _radius(k, eps, LOCAL_ERROR_TOL)
    top = corners_any.edge_top_any(eps)
    Zw = window(n, k, We)
    side = top + corners_any.EDGE_LOW + 1
    pairs = np.array(list(itertools.combinations(range(k), 2)))
    edges = corners_any.EdgeTableAny(k=k, top=top, low=corners_any.EDGE_LOW, pairs=pairs,
                                     offsets=np.zeros((len(pairs), side ** 2, 1, k), dtype=np.int64),
                                     probs=np.ones((len(pairs), side ** 2, 1)), lp=0.0)
    depth, inner = corners_any.default_depth(eps), corners_any.inner_radius(eps)
    corner = ((n - Zw.max(axis=1)) <= depth) & (Zw.min(axis=1) >= -inner)
    on = corner | (edges.lookup(Zw)[0] >= 0)
    assert on.sum() <= corners_any.table_rows(n, k, eps, top)
    offs = _ball(k, We)
    terms = sum(int(np.all(z[None, :] - offs >= 0, axis=1).sum()) for z in Zw[on])
    assert terms <= corners_any.delta_terms(n, k, eps, We, top)


def test_the_worst_rows_plan_fits_compares_rows_at_n50_and_eps_half():
    """Dir(1,1,1,1): the worst release's errors are planned by their differences, so at eps = 1, n = 40 and 50
    ``compare`` admits its worst-case row (the face table's, on the average's errors) and at eps = 0.5, n = 10 the
    row is no longer refused for the memory of a (table point x offset) table (~12 GiB before); what the plan chose
    is what runs (its route)."""
    from dpposterior.ranking import plan_compare

    rows = {r.variant.label: r for r in plan_compare(np.ones(4), 40, 1.0)}
    worst = rows["optimal (worst)"]
    # at a symmetric prior, eps = 1, n = 30..50 the release reads the face table (mechanisms.lattice.faces_fit);
    # compare admits its row at n = 40 with the average's errors counted once (Plan.shared)
    assert not worst.left_out and worst.plan.route == "face table"
    assert not rows["optimal (average)"].left_out
    # at n = 50 the average's search those errors rest on is planned within the solve limit (43 s of 45, the grouped
    # route's sums kept across steps): both rows admitted at the default limits
    rows = {r.variant.label: r for r in plan_compare(np.ones(4), 50, 1.0)}
    for label in ("optimal (worst)", "optimal (average)"):
        assert not rows[label].left_out, label
    assert rows["optimal (worst)"].plan.route == "face table"
    spec = ReleaseSpec.of("lattice", 1.0, objective="worst")
    plan = LATTICE._corner_plan_any(50, 4, spec, "the corner route", True)
    assert plan.fits and plan.route == "corner remap" and plan.memory_bytes < 2**31
    plan = LATTICE.plan_errors(np.ones(4), 10, ReleaseSpec.of("lattice", 0.5, objective="worst"))
    assert plan.fits and plan.route == "corner remap" and plan.memory_bytes < 2**31
