"""The face table of the lattice release at k = 4 (``lattice.faces_any``; docs/lattice.md, "A face table at k = 4"):
its rows are pmfs over R(n) and a draw reads them, its rows are the face rows of their definition, its errors by the
table's differences equal the definition's sum written out term by term, and its worst case is never below the LP's
optimum nor the yardstick's bound."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import faces_any
from dpposterior.lattice.batched import local_search_batch, window_errors_any
from dpposterior.lattice.noise import tail_bound, window
from dpposterior.models import candidates
from dpposterior.randomness import GeneratorBits


def _oracle_loss(a, c, r):
    """``H(Dir(a + c), Dir(a + r)) = sqrt(1 - BC)``, ``ln BC = ln B((x + y) / 2) - (ln B(x) + ln B(y)) / 2``."""
    def lnB(x):
        return sum(math.lgamma(v) for v in x) - math.lgamma(sum(x))

    x = [ai + ci for ai, ci in zip(a, c)]
    y = [ai + ri for ai, ri in zip(a, r)]
    m = [(u + v) / 2 for u, v in zip(x, y)]
    return math.sqrt(max(0.0, -math.expm1(min(0.0, lnB(m) - (lnB(x) + lnB(y)) / 2))))


def _oracle_kernel(eps, k, W):
    """``{w: K(w)}`` over ``d(w) = |w|_1 / 2 <= W``, normalised over a box whose tail is below 1e-15."""
    D = int(40 / eps) + 8
    Z = 0.0
    out = {}
    for w in itertools.product(range(-D, D + 1), repeat=k - 1):
        w = w + (-sum(w),)
        d = sum(map(abs, w)) // 2
        if d > D:
            continue
        Z += math.exp(-eps * d)
        if d <= W:
            out[w] = math.exp(-eps * d)
    return {w: v / Z for w, v in out.items()}


def _remap(n, eps, W=3):
    a = np.ones(4)
    out = local_search_batch(a, n, eps, window(n, 4, W))
    low = window_errors_any(a, n, eps, out, W).low
    return faces_any.face_remap_any(a, n, eps, low, W=W, share=0.0), low


@pytest.mark.parametrize("n, eps", [(8, 1.0), (11, 2.0)])
def test_face_errors_are_the_definitions_sum(n, eps):
    """``E(c) = sum_{d(w) <= We} K(w) sum_r T(c + w, r) L(c, r)`` with ``T`` the face table on its rows and ``B(z)``
    elsewhere, written out (loss and kernel transcribed), against :func:`face_errors_any` (``E_B``'s window sum plus
    the table's differences)."""
    We = 3
    remap, low = _remap(n, eps, We)
    a = (1.0,) * 4
    K = _oracle_kernel(eps, 4, We)
    R = [tuple(c) for c in candidates(n, 4).tolist()]
    table = {tuple(z): (remap.outputs[m], remap.probs[m]) for m, z in enumerate(remap.points.tolist())}
    Z = sorted({tuple(c[i] + w[i] for i in range(4)) for c in R for w in K})
    B = dict(zip(Z, map(tuple, local_search_batch(np.ones(4), n, eps, np.array(Z)).tolist())))
    want_b, want = [], []
    for c in R:
        eb = et = 0.0
        for w, kw in K.items():
            z = tuple(c[i] + w[i] for i in range(4))
            lb = _oracle_loss(a, c, B[z])
            eb += kw * lb
            if z in table:
                outs, p = table[z]
                et += kw * sum(pj * _oracle_loss(a, c, o) for o, pj in zip(outs.tolist(), p) if pj > 0)
            else:
                et += kw * lb
        want_b.append(eb)
        want.append(et)
    assert np.max(np.abs(low - np.array(want_b))) < 1e-9  # the rest's sum the library reads is the definition's
    got = faces_any.face_errors_any(remap, low, We)
    assert np.max(np.abs(got - np.array(want))) < 1e-9
    assert np.max(np.abs(np.array(want) - np.array(want_b))) > 1e-4  # the table moved some error: the test can tell


@pytest.mark.parametrize("n", [5, 12, 20])
def test_face_rows_are_their_definition(n):
    """The table's rows are every z summing to n with sorted counts ``s_0 in [-2, 2]``, ``s_1 in [1, 9]``,
    ``s_2 <= 12``, ``s_2 < s_3`` (enumerated over a box), each once."""
    want = set()
    for z in itertools.product(range(-2, n + 7), repeat=3):
        z = z + (n - sum(z),)
        s = sorted(z)
        if -2 <= s[0] <= 2 and 1 <= s[1] <= 9 and s[2] <= 12 and s[2] < s[3]:
            want.add(z)
    pats = faces_any.face_patterns(n)
    got = [tuple(p) for q in pats for p in set(itertools.permutations(q.tolist()))]
    assert len(got) == len(set(got)) and set(got) == want


@pytest.mark.parametrize("n, eps", [(9, 1.0), (14, 1.5)])
def test_face_rows_are_pmfs_and_a_draw_reads_them(n, eps):
    """Each row: probabilities >= 0 summing to 1 over outputs in R(n); ``rows`` finds each row (and -1 off the
    table); a draw at a row returns one of its outputs of positive probability, off the table ``B(z)``."""
    remap, _ = _remap(n, eps)
    P, O = remap.probs, remap.outputs
    assert np.all(P >= 0) and np.allclose(P.sum(axis=1), 1.0, atol=1e-12)
    live = P > 0
    assert np.all(O[live] >= 0) and np.all(O[live].sum(axis=1) == n)
    assert np.array_equal(remap.rows(remap.points), np.arange(len(remap.points)))
    off = np.array([[n, 0, 0, 0], [3, 3, 3, n - 9]])  # a vertex; every count >= 3 (or two counts tied on top)
    assert np.all(remap.rows(off) == -1)
    bits = GeneratorBits(np.random.default_rng(7))
    for m in range(0, len(remap.points), max(1, len(remap.points) // 15)):
        r = remap.draw(remap.points[m], bits)
        assert any(np.array_equal(r, O[m, j]) for j in np.flatnonzero(live[m]))
    np.testing.assert_array_equal(remap.draw(off[0], bits), local_search_batch(np.ones(4), n, eps, off[:1])[0])


@pytest.mark.parametrize("eps", [1.0, 2.0])
def test_face_worst_case_is_at_least_the_lp_optimum_and_the_yardstick(eps):
    """Where the LP runs (k = 4, n = 3): the face release's worst case (upper end) is at least the LP's optimum
    (:func:`reference.optimal_lp_value`, an independent transcription) and at least the yardstick's bound."""
    from dpposterior.yardstick import yardstick

    n, We = 3, 12
    a = np.ones(4)
    out = local_search_batch(a, n, eps, window(n, 4, We))
    low = window_errors_any(a, n, eps, out, We).low
    remap = faces_any.face_remap_any(a, n, eps, low, W=3, share=0.0)
    assert len(remap.points)
    E = faces_any.face_errors_any(remap, low, We) + tail_bound(4, eps, We)
    lp = ref.optimal_lp_value(ref.brute((1.0,) * 4, n), eps, "worst")
    assert E.max() >= lp - 1e-9
    y = yardstick(a, n, eps)
    assert E.max() >= y.worst - 1e-12


def test_the_face_route_is_admitted_by_its_plan_before_it_runs(monkeypatch):
    """:func:`face_release_errors` holds :func:`plan_face_any` to the limits first: past them one line, nothing run;
    k != 4 is refused by the plan itself; within them it runs and returns a bracket over R(n)."""
    from dpposterior.errors import SizeError

    assert faces_any.plan_face_any(10, 3, 1.0, 5).refused()
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "0.01")
    with pytest.raises(SizeError) as e:
        faces_any.face_release_errors(np.ones(4), 10, 1.0, 5)
    assert "face table" in str(e.value) and "\n" not in str(e.value)
    monkeypatch.delenv("DPPOSTERIOR_MAX_SOLVE_SECONDS")
    stats = {}
    remap, B = faces_any.face_release_errors(np.ones(4), 6, 1.0, 4, stats=stats)
    assert len(B.low) == len(candidates(6, 4)) and {"rest", "solve", "differences"} <= set(stats)
    assert np.all(B.high >= B.low) and B.high.max() <= 1.0


@settings(max_examples=6, deadline=None)
@given(st.integers(5, 9), st.sampled_from([(1.0, 1.0, 1.0, 1.0), (0.5, 2.0, 1.0, 3.0)]),
       st.sampled_from([0.7, 1.0, 2.0]), st.integers(0, 2**31 - 1))
def test_face_errors_of_any_table_are_the_definitions_sum(n, a, eps, seed):
    """Any table on the face rows (random outputs near each row, random probabilities, some 0), any prior: the
    errors by the table's differences equal ``sum_{d(w) <= We} K(w) sum_r T(c + w, r) L(c, r)`` written out."""
    rng = np.random.default_rng(seed)
    We = 2
    pts = np.array([p for q in faces_any.face_patterns(n) for p in set(itertools.permutations(q.tolist()))])
    an = np.asarray(a)
    rest = local_search_batch(an, n, eps, pts)
    J = 3
    outs = np.clip(pts[:, None, :] + rng.integers(-1, 2, size=(len(pts), J, 4)), 0, None)
    outs[..., 0] = n - outs[..., 1:].sum(axis=-1)
    outs = np.where(outs[..., :1] >= 0, outs, rest[:, None, :])  # an output must lie in R(n)
    probs = rng.random((len(pts), J)) * (rng.random((len(pts), J)) < 0.7)
    probs[:, 0] += 1e-3
    probs /= probs.sum(axis=1, keepdims=True)
    remap = faces_any.FaceRemap(a=an, n=n, epsilon=eps, points=pts, outputs=outs, probs=probs, rest=rest)
    out = local_search_batch(an, n, eps, window(n, 4, We))
    low = window_errors_any(an, n, eps, out, We).low
    K = _oracle_kernel(eps, 4, We)
    R = [tuple(c) for c in candidates(n, 4).tolist()]
    table = {tuple(z): (outs[m], probs[m]) for m, z in enumerate(pts.tolist())}
    Z = sorted({tuple(c[i] + w[i] for i in range(4)) for c in R for w in K})
    B = dict(zip(Z, map(tuple, local_search_batch(an, n, eps, np.array(Z)).tolist())))
    want = []
    for c in R:
        e = 0.0
        for w, kw in K.items():
            z = tuple(c[i] + w[i] for i in range(4))
            if z in table:
                o, p = table[z]
                e += kw * sum(pj * _oracle_loss(a, c, oj) for oj, pj in zip(o.tolist(), p) if pj > 0)
            else:
                e += kw * _oracle_loss(a, c, B[z])
        want.append(e)
    got = faces_any.face_errors_any(remap, low, We)
    assert np.max(np.abs(got - np.array(want))) < 1e-9


@pytest.mark.parametrize("k", [2, 3, 5])
def test_the_face_plans_refuse_in_one_line_off_k4(k):
    """Both face plans (the release's table and the errors' solve) refuse any k but 4, in one line naming k."""
    from dpposterior.lattice.faces_any import plan_face_any, plan_face_table

    for plan in (plan_face_table(20, k, 1.0), plan_face_any(20, k, 1.0, 3)):
        assert plan.refused() and "\n" not in plan.refused()
        assert f"k={k}," in plan.refused() and "k = 4 only" in plan.refused()
    assert not plan_face_table(20, 4, 1.0).refusal and not plan_face_any(20, 4, 1.0, 3).refusal
