"""The lattice modules' faster forms of a definition give its very numbers (integers equal, floats bit for bit).

Each oracle is a transcription of the definition written here (plain Python or the form the module used before):
``d(w) = |w|_1 / 2`` (docs/definitions.md §1), ``project`` one unit at a time (docs/lattice.md), and the one-point
search's losses evaluated per call (:func:`dpposterior.distances.hellinger.lgamma_jensen_gap`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.distances.hellinger import hellinger_from_log_bc, lgamma_jensen_gap
from dpposterior.lattice import remap as rm
from dpposterior.lattice.noise import pair_distance
from dpposterior.lattice.remap import project


def project_by_units(z, n):
    """docs/lattice.md's ``project``: negatives to 0, then one unit at a time off the largest coordinate (the first
    of equals) until the sum is n."""
    out = []
    for row in z:
        y = [max(int(x), 0) for x in row]
        while sum(y) > n:
            j = y.index(max(y))
            y[j] -= 1
        out.append(y)
    return np.array(out, dtype=np.int64).reshape(len(z), -1)


def lattice_rows(draw, k, n, reach):
    """Rows summing to n with coordinates >= -reach (points of the window around R(n))."""
    rows = []
    for _ in range(draw(st.integers(1, 6))):
        head = [draw(st.integers(-reach, n + reach)) for _ in range(k - 1)]
        rows.append([*head, n - sum(head)])
    return np.array(rows, dtype=np.int64)


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(2, 5), st.integers(1, 30), st.integers(0, 40))
def test_project_is_the_one_unit_at_a_time_map(data, k, n, reach):
    z = lattice_rows(data.draw, k, n, reach)
    assert np.array_equal(project(z, n), project_by_units(z, n))


def project_by_bisection(z, n):
    """``project`` as the module computed it before its closed form: ``m`` the least level with ``f(m) <= e`` by
    bisection, then ``min(y, m)`` less one unit on the first ``e - f(m)`` coordinates with ``y_i >= m``."""
    y = np.maximum(np.asarray(z, dtype=np.int64), 0)
    out = y.copy()
    for i, row in enumerate(y):
        e = int(row.sum()) - n
        if e <= 0:
            continue
        lo, hi = 0, int(row.max())
        while lo < hi:
            mid = (lo + hi) // 2
            if int(np.maximum(row - mid, 0).sum()) <= e:
                hi = mid
            else:
                lo = mid + 1
        left = e - int(np.maximum(row - lo, 0).sum())
        for j in range(len(row)):
            out[i, j] = min(int(row[j]), lo)
            if row[j] >= lo and left > 0:
                out[i, j] -= 1
                left -= 1
    return out


@pytest.mark.parametrize("k", [2, 3, 4, 6])
@pytest.mark.parametrize("block", [7, rm.PROJECT_ROWS])
def test_project_is_the_bisections_map_on_many_rows(k, block, monkeypatch):
    """Thousands of rows far off R(n) (counts down to -3n, n = 0 included): the closed form's ``m`` from the sorted
    counts gives the bisection's map, in blocks of 7 rows as in one."""
    monkeypatch.setattr(rm, "PROJECT_ROWS", block)
    rng = np.random.default_rng(k)
    for n in (0, 1, 7, 160, 1000):
        z = rng.integers(-3 * n - 3, n + 3 * n + 4, (3000, k))
        z[:, -1] = n - z[:, :-1].sum(axis=1)
        assert np.array_equal(project(z, n), project_by_bisection(z, n))


def test_project_takes_ties_in_index_order():
    # (5, 5, 0) less 3 units: 4, 5 -> 4, 4 -> 3, 4 (the first of equals each time)
    assert project(np.array([[5, 5, -3]]), 7).tolist() == [[3, 4, 0]]
    # (9, 9, 9, 0) less 20 units: all three down to 3 (18 units), then the first two to 2
    assert project(np.array([[9, 9, 9, -20]]), 7).tolist() == [[2, 2, 3, 0]]


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 5), st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_pair_distance_is_half_the_l1_norm(k, m, q, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.integers(-50, 50, (m, k)), rng.integers(-50, 50, (q, k))
    want = np.array([[sum(abs(int(a) - int(b)) for a, b in zip(u, v)) // 2 for v in y] for u in x])
    got = pair_distance(x[:, None, :], y[None, :, :])
    assert got.dtype == np.int64 and np.array_equal(got, want)
    # the batched form: (B, m, k) against (B, 1, k)
    assert np.array_equal(pair_distance(x[None, :, :], y[:1][:, None, :])[0], want[:, 0])


def local_hellinger_per_call(a, cs, rs):
    """The one-point search's losses as it evaluated them per call: ``J`` once per pair of values of a coordinate."""
    log_bc = np.zeros((len(cs), len(rs)))
    for i in range(a.size):
        uc, ic = np.unique(cs[:, i], return_inverse=True)
        ur, ir = np.unique(rs[:, i], return_inverse=True)
        J = lgamma_jensen_gap(a[i] + uc[:, None].astype(np.float64), a[i] + ur[None, :].astype(np.float64))
        log_bc += J[ic.reshape(-1, 1), ir.reshape(1, -1)]
    return hellinger_from_log_bc(log_bc, out=log_bc)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 4), st.integers(1, 200), st.lists(st.sampled_from([0.3, 0.5, 1.0, 2.5, 7.0]), min_size=4,
                                                        max_size=4), st.integers(0, 2**32 - 1))
def test_tabled_losses_are_the_per_call_floats(k, n, prior, seed):
    a = np.array(prior[:k])
    rng = np.random.default_rng(seed)
    pts = rng.multinomial(n, np.full(k, 1.0 / k), size=30).astype(np.int64)
    cs, rs = pts[:20], pts[20:]
    want = local_hellinger_per_call(a, cs, rs)
    got = rm._local_hellinger(a, cs, rs, n)
    assert (n + 1) ** 2 <= rm.JENSEN_TABLE_ENTRIES
    assert got.tobytes() == want.tobytes()


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 4), st.integers(1, 2000), st.lists(st.sampled_from([0.3, 0.5, 1.0, 2.5, 7.0]), min_size=4,
                                                         max_size=4), st.integers(0, 2**32 - 1))
def test_per_call_losses_gathered_by_rows_are_the_per_call_floats(k, n, prior, seed):
    """Past the tables (or without n): each coordinate's ``J`` gathered as the outputs' columns, then the data sets'
    rows: the same floats as indexing both at once."""
    a = np.array(prior[:k])
    rng = np.random.default_rng(seed)
    pts = rng.multinomial(n, np.full(k, 1.0 / k), size=300).astype(np.int64)
    cs, rs = pts[:287], pts[287:]
    assert rm._local_hellinger(a, cs, rs).tobytes() == local_hellinger_per_call(a, cs, rs).tobytes()


def test_one_point_search_is_unchanged_by_its_tables(monkeypatch):
    a, n, eps = np.array([1.0, 2.0, 0.5]), 12, 0.5
    Z = rm.window(n, 3, 6)[::7]
    tabled = np.stack([rm.local_bayes_search(a, n, eps, z) for z in Z])
    monkeypatch.setattr(rm, "JENSEN_TABLE_ENTRIES", 0)
    assert np.array_equal(tabled, np.stack([rm.local_bayes_search(a, n, eps, z) for z in Z]))


@settings(max_examples=60, deadline=None)
@given(st.floats(0.01, 40.0), st.integers(0, 12), st.integers(0, 2**31 - 1), st.integers(1, 40))
def test_the_kernels_table_gives_the_kernels_floats(eps, D, seed, L):
    """:class:`~dpposterior.lattice.search.KernelGrid` reads ``e^(-eps d(s - v))`` off its table: the floats of
    ``np.exp(-eps * d)`` at every offset, inside the table and past it (computed directly there)."""
    from dpposterior.lattice.remap import _ball
    from dpposterior.lattice.search import KernelGrid

    rng = np.random.default_rng(seed)
    ball = _ball(3, D)
    head = rng.integers(-L - D, L + D + 1, size=(7, 2))
    s = np.concatenate([head, -head.sum(axis=1, keepdims=True)], axis=1)
    grid = KernelGrid(eps, L + D)
    want = np.array([[np.exp(-eps * ((abs(int(x[0]) - int(v[0])) + abs(int(x[1]) - int(v[1]))
                                      + abs(int(x[2]) - int(v[2]))) // 2)) for v in ball] for x in s])
    got = grid(s, ball)
    assert got.shape == want.shape and np.array_equal(got.view(np.int64), want.view(np.int64))
    inside = s[np.abs(s[:, :2]).max(axis=1) <= L]
    if len(inside):
        assert np.array_equal(grid(inside, ball), np.exp(-eps * pair_distance(inside[:, None, :], ball[None, :, :])))


def _window_errors_one_offset_at_a_time(a, n, eps, outputs, W):
    """The offset sum of ``window_errors`` / ``window_errors_any`` as they were written: one offset at a time, the
    per-coordinate losses gathered and summed in coordinate order, ``acc += kw H``."""
    from dpposterior.lattice.noise import log_normaliser, window
    from dpposterior.lattice.remap import _ball
    from dpposterior.lattice.scale import _LossTables
    from dpposterior.models import candidates

    k = len(a)
    offs = _ball(k, W)
    wts = np.exp(-eps * (np.abs(offs).sum(axis=1) // 2) - log_normaliser(k, eps))
    R = candidates(n, k)
    tables = _LossTables(np.asarray(a, dtype=np.float64), n, R).tables
    index = {tuple(z): i for i, z in enumerate(window(n, k, W).tolist())}
    acc = np.zeros(len(R))
    for w, kw in zip(offs, wts):
        out = outputs[[index[tuple(z)] for z in (R + w).tolist()]]
        lb = np.take(tables[0], R[:, 0] * (n + 1) + out[:, 0])
        for i in range(1, k):
            lb += np.take(tables[i], R[:, i] * (n + 1) + out[:, i])
        acc += kw * hellinger_from_log_bc(lb, out=lb)
    return acc


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([3, 4]), st.integers(1, 7), st.sampled_from([0.7, 1.0, 2.5]), st.integers(1, 4),
       st.integers(0, 2**31 - 1), st.integers(1, 64), st.integers(1, 40))
def test_window_errors_in_blocks_are_the_one_offset_sums(k, n, eps, W, seed, block, tile):
    """The window errors' offset sum in blocks of offsets (any block size) and in tiles of data sets (any
    tile size, a last tile shorter) gives the floats of the sum one offset at a time, whatever the outputs (random
    points of R(n))."""
    from dpposterior.lattice import batched, search
    from dpposterior.lattice.noise import window

    rng = np.random.default_rng(seed)
    a = tuple(float(x) for x in rng.choice([0.5, 1.0, 2.0], size=k))
    Zw = window(n, k, W)
    moved = Zw.copy()  # the outputs: points of R(n) near each z (a unit moved between its first two counts)
    u = rng.integers(-1, 2, size=len(Zw))
    moved[:, 0] += u
    moved[:, 1] -= u
    outputs = project(moved, n)
    want = _window_errors_one_offset_at_a_time(a, n, eps, outputs, W)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(search, "ERROR_BLOCK_ENTRIES", block)
        mp.setattr(search, "ERROR_TILE_POINTS", tile)
        mp.setattr(batched, "BLOCK_ENTRIES", block)
        mp.setattr(batched, "ERROR_BLOCK_ENTRIES", block)
        mp.setattr(batched, "ERROR_TILE_POINTS", tile)
        got = (search.window_errors if k == 3 else batched.window_errors_any)(a, n, eps, outputs, W).low
    assert np.array_equal(got.view(np.int64), want.view(np.int64))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(3, 0.25), (3, 0.6), (3, 1.0), (4, 1.5), (4, 3.0)]), st.integers(1, 40),
       st.integers(0, 2**31 - 1))
def test_the_searchs_weights_off_the_ball_kept_in_r_n_are_the_whole_balls(k_eps, n, seed):
    """The one-point search weighs only the ball's points in R(n) (:func:`remap._search_weights`): the same points, in
    the same order, with the floats of the whole ball's sums (as it was written) kept where ``c >= 0``."""
    from dpposterior.lattice.noise import radius_for

    k, eps = k_eps
    rng = np.random.default_rng(seed)
    a = rng.choice([0.5, 1.0, 2.0], size=k)
    head = rng.integers(-6, n + 7, size=k - 1)
    z = np.append(head, n - head.sum()).astype(np.int64)
    p = project(z, n)[0]
    Dc = radius_for(k, eps, 1e-12)
    ball = rm._ball(k, Dc)
    cs, lw = ref.search_weights(a, eps, z, p, ball, Dc)
    ok = np.all(cs >= 0, axis=1)
    got_c, got_w = rm._search_weights(a, eps, z, Dc, p)
    assert np.array_equal(got_c, cs[ok])
    assert got_w.tobytes() == lw[ok].tobytes()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(3, 0.5), (3, 1.0), (4, 1.0), (4, 2.0), (5, 3.0)]), st.integers(1, 30),
       st.integers(0, 2**31 - 1))
def test_the_batched_searchs_tables_are_the_masked_sums(k_eps, n, seed):
    """``batched._Sums.G`` (ln pi read off tables padded with -inf) and ``_Sums.kernel`` (a table of e^(-eps t)) give
    the floats of the forms first written: the clipped counts' sums masked off R(n), and ``np.exp(-eps * d)``."""
    from dpposterior.lattice.batched import _Sums, batch_radius
    from dpposterior.models import candidates

    k, eps = k_eps
    rng = np.random.default_rng(seed)
    a = rng.choice([0.5, 1.0, 2.0], size=k)
    sums = _Sums(a, n, eps, batch_radius(k, eps))
    R = candidates(n, k)
    r = R[rng.choice(len(R), size=min(len(R), 9), replace=False)]
    ball, rho = sums.ball, sums.rho
    lnpi = np.zeros((len(r), len(ball)))
    log_bc = np.zeros((len(r), len(ball)))
    ok = np.ones((len(r), len(ball)), dtype=bool)
    for i in range(k):
        x = r[:, i:i + 1] + ball[None, :, i]
        ok &= (x >= 0) & (x <= n)
        lnpi += sums.f[i][np.clip(x, 0, n)]
        log_bc += sums.bands[i][r[:, i:i + 1] * sums.width + (ball[None, :, i] + rho)]
    want = np.sqrt(-np.expm1(np.minimum(log_bc, 0.0))) * np.exp(np.where(ok, lnpi - sums.top, -np.inf))
    assert sums.G(r).tobytes() == want.tobytes()
    s = rng.integers(-3 * rho, 3 * rho + 1, size=(6, k))
    s[:, -1] = -s[:, :-1].sum(axis=1)
    want_k = np.exp(-eps * pair_distance(s[:, None, :], ball[None, :, :]))
    assert sums.kernel(s).tobytes() == want_k.tobytes()
