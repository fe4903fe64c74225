"""The kernel's table of the batched local search (dpposterior.lattice.search.KernelGrid) asked for many balls in
turn: its per-ball keys (kept per ball object) give the floats of ``np.exp(-eps * d)`` for every ball, each time.

Oracle: the kernel written here from the substitution distance, ``d(x) = (|x_1| + |x_2| + |x_3|) / 2``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st


def _want(eps, s, ball):
    return np.array([[np.exp(-eps * ((abs(int(x[0]) - int(v[0])) + abs(int(x[1]) - int(v[1]))
                                      + abs(int(x[2]) - int(v[2]))) // 2)) for v in ball] for x in s])


@settings(max_examples=30, deadline=None)
@given(st.floats(0.01, 40.0), st.lists(st.integers(0, 6), min_size=2, max_size=6), st.integers(0, 2**31 - 1))
def test_one_grid_many_balls(eps, radii, seed):
    """One grid, balls of several radii (each a fresh array, some negated, as the search's ``-ball2``), each asked
    twice: every answer bit for bit the kernel's.  A grid that kept one ball's keys for another (e.g. by shape, or by
    an id reused after the first ball was freed) fails."""
    from dpposterior.lattice.remap import _ball
    from dpposterior.lattice.search import KernelGrid

    rng = np.random.default_rng(seed)
    grid = KernelGrid(eps, 12)
    for D in radii:
        for sign in (1, -1):
            ball = sign * _ball(3, D)  # a new array each time
            head = rng.integers(-8, 9, size=(5, 2))
            s = np.concatenate([head, -head.sum(axis=1, keepdims=True)], axis=1)
            for _ in range(2):
                got = grid(s, ball)
                assert np.array_equal(got.view(np.int64), _want(eps, s, ball).view(np.int64))
            del ball
