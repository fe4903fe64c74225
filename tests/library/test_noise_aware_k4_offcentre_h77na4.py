"""The k = 4 local column next to a face or a vertex (lattice/column.py: ``reach_region`` and its key lookup
``_key_member``):

* ``_key_member`` is ``np.isin`` on integer keys, by its table and by its sorted array (hypothesis);
* ``reach_region`` equals its definition, the window's points ``z`` with ``project(z) - r`` in ``U(Dc)`` (every
  count ``<= Dc`` or every count ``>= -Dc``), written out here from scratch (an oracle importing nothing from the
  library) at small k = 3 and 4 releases next to a vertex, a face and in the middle.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.lattice import column as column_module
from dpposterior.lattice.column import reach_region


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(0, 999), max_size=50), queries=st.lists(st.integers(0, 999), max_size=80),
       table=st.booleans())
def test_key_member_is_isin(keys, queries, table):
    keys = np.asarray(keys, dtype=np.int64)
    q = np.asarray(queries, dtype=np.int64)
    size = 1000
    old = column_module.KEY_TABLE_MAX
    try:
        column_module.KEY_TABLE_MAX = size if table else size - 1  # the table, or the sorted array
        member = column_module._key_member(keys, size)
        assert np.array_equal(member(q), np.isin(q, keys))
        assert member(q).dtype == bool
    finally:
        column_module.KEY_TABLE_MAX = old


def _project_ref(z, n):
    """The nearest point of R(n) to z in the L1 sense as the library's docs define project: negative counts raised
    to 0, then the excess taken off the largest counts one unit at a time, ties to the lowest index."""
    y = [max(x, 0) for x in z]
    extra = sum(y) - n
    while extra > 0:
        i = max(range(len(y)), key=lambda j: (y[j], -j))
        y[i] -= 1
        extra -= 1
    return y


def _reach_ref(n, k, r, Dc, W):
    out = []
    for head in itertools.product(range(-W, n + (k - 1) * W + 1), repeat=k - 1):
        z = list(head) + [n - sum(head)]
        if z[-1] < -W:
            continue
        u = [p - q for p, q in zip(_project_ref(z, n), r)]
        if all(x <= Dc for x in u) or all(x >= -Dc for x in u):
            out.append(tuple(z))
    return sorted(out)


@pytest.mark.parametrize("n,k,r,Dc,W", [(6, 3, (0, 0, 6), 2, 1), (6, 3, (1, 2, 3), 2, 2), (9, 3, (0, 4, 5), 3, 1),
                                        (5, 4, (0, 0, 1, 4), 1, 1), (7, 4, (0, 2, 2, 3), 2, 1)])
@pytest.mark.parametrize("table", [True, False])
def test_reach_region_is_its_definition(n, k, r, Dc, W, table):
    from dpposterior.lattice.remap import project

    old = column_module.KEY_TABLE_MAX
    try:
        column_module.KEY_TABLE_MAX = 10**9 if table else 0
        Z = reach_region(n, k, np.asarray(r), Dc, W)
    finally:
        column_module.KEY_TABLE_MAX = old
    # the library's project agrees with the oracle's at every window point (else the oracle below is not the same)
    got = sorted(map(tuple, Z.tolist()))
    want = _reach_ref(n, k, r, Dc, W)
    # the oracle's project is the library's at the points it keeps (else the oracle would define another set)
    assert [tuple(project(np.asarray([z]), n)[0]) for z in want[:50]] == [tuple(_project_ref(list(z), n)) for z in want[:50]]
    assert got == want
    assert len(set(got)) == len(got)
