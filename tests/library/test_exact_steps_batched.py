"""The grouped search's exact steps taken a class of rows at a time (``lattice.batched._exact_steps``): the same step at
every row as the one-point search's product taken one row at a time, bit for bit.

Oracle: the one-point search's step (:func:`.remap.local_bayes_search`: ``risk = w @ L`` on a C-ordered ``(kept,
|rs|)`` matrix, the first argmin, the centre kept where it attains the minimum), transcribed here row by row with
numpy only; the candidates' shortcut (non-candidate columns 0, their risks set to inf) as the docstring states it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.lattice import batched
from dpposterior.lattice.remap import local_bayes_search
from dpposterior.lattice.search import _Fallback


def _one_row(w, keep, L, use):
    """The step of one row: the 1-D product on a C-ordered matrix (non-candidates' columns 0 and risks inf)."""
    M = np.ascontiguousarray(L[:, keep].T)  # (kept, |rs|)
    if use is None:
        return w[keep].copy() @ M
    M = M * 1.0
    M[:, ~use] = 0.0
    return np.where(use, w[keep].copy() @ M, np.inf)


def _oracle(best, active, real, keys, have, HT, w, keeps, centre, cand):
    """Every open row's step, one at a time (the definition)."""
    out = best.copy()
    offsets = np.concatenate([[0], np.cumsum(real.sum(axis=1))])
    for t in np.flatnonzero(best < 0):
        ball_j = np.flatnonzero(real[t])
        cols = [have[kk] for kk in keys[offsets[t]:offsets[t + 1]]]
        risk = _one_row(w[active[t]], keeps[int(active[t])], HT[cols], None if cand is None else cand[t, ball_j])
        j = int(np.argmin(risk))
        here = int(np.flatnonzero(ball_j == centre)[0])
        out[t] = centre if risk[j] >= risk[here] else ball_j[j]
    return out


@st.composite
def _steps(draw):
    """Random open steps: rows of weights with exact ties, kept sets of a few sizes, balls with some outputs off
    R(n) (the centre always real), loss rows with exact ties between outputs, candidates or none."""
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    rows, data, width, outs = draw(st.integers(1, 12)), draw(st.integers(1, 40)), 7, draw(st.integers(1, 15))
    centre = draw(st.integers(0, width - 1))
    levels = rng.random(draw(st.integers(1, 4)))  # few values: exact ties in the weights and in the sums
    w = levels[rng.integers(0, len(levels), (rows, data))]
    HT = rng.random((outs, data))
    if draw(st.booleans()):
        HT[1::2] = HT[0]  # outputs with equal losses: exact ties between their risks
    active = rng.permutation(rows)[: draw(st.integers(1, rows))]
    m = len(active)
    real = rng.random((m, width)) < 0.8
    real[:, centre] = True
    keys = [int(x) for x in rng.integers(0, outs, int(real.sum()))]
    have = {kk: kk for kk in range(outs)}
    sizes = [int(x) for x in rng.integers(1, data + 1, 2)]
    if draw(st.booleans()):
        sizes = [data, data]  # every row keeps every data set (the shared matrices)
    keeps = {int(r): np.sort(rng.choice(data, sizes[int(r) % 2], replace=False)) for r in active}
    best = np.where(rng.random(m) < 0.7, -1, centre).astype(np.int64)
    cand = None
    if draw(st.booleans()):
        cand = real & (rng.random((m, width)) < 0.7)
        cand[:, centre] = True
    return best, active, real, keys, have, HT, w, keeps, centre, cand


@settings(max_examples=300, deadline=None)
@given(_steps())
def test_the_batched_exact_steps_are_each_rows_own(case):
    """The classes' stacked products give every open row the step of its own 1-D product (exact equality), with and
    without candidates, at exact ties in the weights and between outputs."""
    best, active, real, keys, have, HT, w, keeps, centre, cand = case
    want = _oracle(best, active, real, keys, have, HT, w, keeps, centre, cand)
    got = best.copy()
    batched._exact_steps(got, active, real, keys, have, HT, w, keeps, centre, _Fallback(len(w)), keeps, cand)
    assert np.array_equal(got, want)


def test_the_classes_split_into_batches_give_the_same_steps(monkeypatch):
    """A class cut into batches of one row each gives the same steps as one batch (the batch size is free), kept sets
    of one size and whole (rows sharing their matrix)."""
    for seed in range(20):
        rng = np.random.default_rng(seed)
        data, outs, width, centre, m = 30, 9, 7, 3, 25
        w = rng.random((m, data)).round(1)
        HT = rng.random((outs, data))
        real = np.ones((m, width), dtype=bool)
        keys = [int(x) for x in rng.integers(0, outs, m * width)]
        keeps = {r: np.sort(rng.choice(data, 20, replace=False)) for r in range(m)}
        if seed % 2:  # every row keeps every data set, and rows share their outputs (one matrix for them)
            keys = [int(x) for x in np.tile(rng.integers(0, outs, (3, width)), (m // 3 + 1, 1))[:m].ravel()]
            keeps = {r: np.arange(data) for r in range(m)}
        best = np.full(m, -1, dtype=np.int64)
        args = (np.arange(m), real, keys, {i: i for i in range(outs)}, HT, w, keeps, centre, _Fallback(m), keeps)
        one = best.copy()
        batched._exact_steps(one, *args)
        monkeypatch.setattr(batched, "EXACT_BATCH_ENTRIES", 1)
        many = best.copy()
        batched._exact_steps(many, *args)
        monkeypatch.undo()
        assert np.array_equal(one, many)
        assert np.array_equal(one, _oracle(best, np.arange(m), real, keys, args[3], HT, w, keeps, centre, None))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5000), st.integers(1, 7), st.integers(1, 6), st.integers(0, 2**31))
def test_a_stacked_product_is_the_one_dimensional_product_row_by_row(K, J, m, seed):
    """The premise of :func:`_exact_class`'s proof: ``np.matmul`` of ``(m, 1, K)`` with a C-ordered ``(m, K, J)`` gives
    each row the floats of the 1-D product on fresh copies (bit for bit), whatever the offsets of the slices."""
    rng = np.random.default_rng(seed)
    X = rng.random((m, K)) ** 6
    A = rng.random((m, K, J)) * 10.0 ** rng.integers(-6, 6, (m, K, J))
    got = np.matmul(X[:, None, :], A)[:, 0, :]
    shared = np.matmul(X[:, None, :], A[0])[:, 0, :]  # one matrix, broadcast
    for i in range(m):
        want = X[i].copy() @ np.ascontiguousarray(A[i].copy())
        assert np.array_equal(got[i].view(np.int64), want.view(np.int64))
        want = X[i].copy() @ np.ascontiguousarray(A[0].copy())
        assert np.array_equal(shared[i].view(np.int64), want.view(np.int64))


def test_the_grouped_route_at_k3_small_eps_is_the_one_point_search():
    """Dir(1,1,1), eps = 0.1, n = 12 (``Dc >= n``: the whole-ball route, most steps exact at a symmetric prior): every
    point's output, off R(n) and in it, is the one-point search's, and exact steps ran."""
    a, n, eps = np.ones(3), 12, 0.1
    rng = np.random.default_rng(3)
    Z = np.array([(x, y, n - x - y) for x in range(-6, n + 7) for y in range(-6, n + 7) if -6 <= n - x - y])
    Z = Z[rng.choice(len(Z), 60, replace=False)]
    stats: dict = {}
    got = batched.local_search_batch(a, n, eps, Z, stats=stats)
    assert np.array_equal(got, np.stack([local_bayes_search(a, n, eps, z) for z in Z]))
    assert stats["fallback"] > 0
