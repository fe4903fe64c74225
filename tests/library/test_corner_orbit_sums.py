"""The k = 4 corner release's rest sum by orbits (``lattice.corners_any.orbit_rest_errors``) against a brute-force
transcription of its definition ``E(c) = sum_{d(w) <= We} K(w) L(c, rest(c + w))`` (an oracle that imports nothing
from the library: its own window, projection, kernel and Hellinger distance), for maps ``rest`` that are
equivariant on some orbits and not on others; the orbit check (``equivariant_points``) against its definition; and
the route's choice, from public inputs, leaving every cell the default limits admitted before on the old sum."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import corners_any
from dpposterior.lattice.noise import window


def _oracle_window(n: int, k: int, W: int) -> list[tuple[int, ...]]:
    """``{z : sum z = n, z_i >= -W}``."""
    out = []
    for head in itertools.product(range(-W, n + (k - 1) * W + 1), repeat=k - 1):
        last = n - sum(head)
        if last >= -W:
            out.append((*head, last))
    return out


def _oracle_project(z: tuple[int, ...], n: int) -> tuple[int, ...]:
    """Negative counts to 0, then one unit at a time off the largest count (ties: the first)."""
    y = [max(v, 0) for v in z]
    while sum(y) > n:
        i = y.index(max(y))
        y[i] -= 1
    return tuple(y)


def _oracle_kernel(k: int, eps: float, W: int, reach: int = 400) -> dict[tuple[int, ...], float]:
    """``K(w) = exp(-eps |w|_1 / 2) / Z`` on the sum-zero offsets with ``|w|_1 / 2 <= W``; ``Z`` over every offset
    with ``|w|_1 / 2 <= reach`` (the rest below float resolution), counted by distance ``d``: ``p`` positive and ``q``
    negative coordinates, each part a composition of ``d``."""
    Z = 1.0
    for d in range(1, reach + 1):
        count = sum(math.factorial(k) // (math.factorial(p) * math.factorial(q) * math.factorial(k - p - q))
                    * math.comb(d - 1, p - 1) * math.comb(d - 1, q - 1)
                    for p in range(1, k) for q in range(1, k - p + 1))
        Z += count * math.exp(-eps * d)
    ball = {}
    for head in itertools.product(range(-2 * W, 2 * W + 1), repeat=k - 1):
        w = (*head, -sum(head))
        d = sum(abs(v) for v in w) // 2
        if d <= W:
            ball[w] = math.exp(-eps * d) / Z
    return ball


def _oracle_errors(a, n, eps, W, rest: dict) -> dict:
    k = len(a)
    K = _oracle_kernel(k, eps, W)
    out = {}
    for c in _oracle_window(n, k, 0):
        out[c] = sum(kw * ref.hellinger_posteriors(a, c, rest[tuple(ci + wi for ci, wi in zip(c, w))])
                     for w, kw in K.items())
    return out


@settings(max_examples=12, deadline=None)
@given(n=st.integers(4, 8), W=st.integers(1, 2), eps=st.sampled_from([0.7, 1.0, 2.0]),
       breaks=st.integers(0, 12), seed=st.integers(0, 2**16))
def test_orbit_sums_equal_the_direct_sum(n, W, eps, breaks, seed):
    """Against the definition, for the projection (ties broken by index: some orbits not equivariant) with
    ``breaks`` points moved to a permuted output (more broken orbits)."""
    k, a = 4, (1.0, 1.0, 1.0, 1.0)
    pts = _oracle_window(n, k, W)
    rest = {z: _oracle_project(z, n) for z in pts}
    rng = np.random.default_rng(seed)
    for i in rng.choice(len(pts), size=min(breaks, len(pts)), replace=False):
        z = pts[int(i)]
        rest[z] = tuple(np.array(rest[z])[rng.permutation(k)].tolist())
    want = _oracle_errors(a, n, eps, W, rest)
    Zw = window(n, k, W)
    outs = np.array([rest[tuple(z)] for z in Zw.tolist()], dtype=np.int64)
    stats: dict = {}
    got = corners_any.orbit_rest_errors(np.asarray(a), n, eps, Zw, outs, W, stats)
    cs = [tuple(c) for c in Zw[np.all(Zw >= 0, axis=1)].tolist()]  # R(n), lexicographic as candidates
    assert len(cs) == len(got)
    for c, g in zip(cs, got):
        assert abs(g - want[c]) <= 1e-11, (c, g, want[c])
    assert stats["sorted"] == sum(1 for c in cs if list(c) == sorted(c, reverse=True))


def test_the_orbit_check_is_its_definition():
    """``equivariant_points`` against every permutation applied to every point of its orbit (n = 8, W = 1), for the
    projection (not equivariant at its ties), an equivariant rule (the identity on R(n), the centre off it), and
    that rule with one point changed (its whole orbit out)."""
    k, n, W = 4, 8, 1
    Zw = window(n, k, W)
    pts = [tuple(z) for z in Zw.tolist()]
    index = {z: i for i, z in enumerate(pts)}
    perms = list(itertools.permutations(range(k)))
    centre = np.array([[z if min(z) >= 0 else (2, 2, 2, 2) for z in pts]], dtype=np.int64)[0]
    moved = centre.copy()
    moved[index[(5, 1, 1, 1)]] = (4, 2, 1, 1)
    rules = [np.array([_oracle_project(z, n) for z in pts], dtype=np.int64), centre, moved]
    for outs in rules:
        point_ok = [all(tuple(outs[index[tuple(z[j] for j in s)]]) == tuple(outs[i][j] for j in s) for s in perms)
                    for i, z in enumerate(pts)]
        orbit_ok: dict = {}
        for z, ok in zip(pts, point_ok):
            orbit_ok[tuple(sorted(z))] = orbit_ok.get(tuple(sorted(z)), True) and ok
        want = np.array([orbit_ok[tuple(sorted(z))] for z in pts])
        assert np.array_equal(corners_any.equivariant_points(Zw, outs), want)
    assert not corners_any.equivariant_points(Zw, rules[0]).all()
    assert corners_any.equivariant_points(Zw, rules[1]).all()
    got = corners_any.equivariant_points(Zw, rules[2])
    assert not got[index[(1, 5, 1, 1)]] and got.sum() == len(pts) - 4


def test_sorted_data_sets_count_the_orbits():
    for n in range(0, 30):
        want = sum(1 for c in itertools.product(range(n + 1), repeat=3) if sum(c) <= n
                   and c[0] >= c[1] >= c[2] >= n - sum(c))
        assert corners_any.sorted_data_sets(n, 4) == want
