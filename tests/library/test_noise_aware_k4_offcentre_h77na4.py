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
                                        (5, 4, (0, 0, 1, 4), 1, 1), (7, 4, (0, 2, 2, 3), 2, 1),
                                        (15, 4, (0, 0, 6, 9), 2, 5),  # the window route past Dc
                                        (4, 4, (0, 0, 1, 3), 5, 2)])  # n <= Dc: the whole window
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


# k = 4, Dir(1,1,1,1), n = 1,000: measured CPU s of the whole `release --noise-aware` process (load about 6 to 7 on 2
# cores, 2026-12-02, the tree then) and of reach_region alone (2026-12-06, load ~1 to 2, this tree: the tighter box
# built; benchmarks/corner_projections_k4.json).  (eps, objective, counts released, process CPU s, reach_region CPU s,
# its points built)
MEASURED = [
    (1.0, "worst", (10, 10, 10, 970), 17.3, 2.88, 3_723_875),
    (1.0, "worst", (2, 331, 334, 333), 46.5, None, None),
    (1.0, "worst", (1, 1, 1, 997), None, 2.20, 3_112_136),
    (2.0, "worst", (50, 50, 50, 850), None, 0.57, 1_860_867),
]


@pytest.mark.parametrize("row", MEASURED, ids=lambda r: f"{r[0]}:{r[2]}")
def test_the_plan_is_above_the_measured_runs(row):
    """The reach region's term (read by the run's check at its release) above reach_region's measured CPU s, and the
    cell's plan above the whole process's, or the cell refused up front."""
    from dpposterior.lattice.column import reach_build
    from dpposterior.limits import Task
    from dpposterior.mechanisms import ReleaseSpec
    from dpposterior.mechanisms import lattice as L

    eps, objective, counts, process, region, built = row
    n, k = sum(counts), 4
    spec = ReleaseSpec.of("optimal", eps, objective=objective)
    Dc, W = L._radius(k, eps, 1e-12), L.LATTICE.column_radius(n, k, eps)
    if built is not None:
        assert reach_build(n, k, np.asarray(counts), Dc, W)[0] == built
        assert L.reach_build_seconds(n, k, np.asarray(counts), Dc, W) >= 1.2 * region
    plan = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(k), n)
    if process is not None:
        assert plan.refused() or plan.seconds >= 1.2 * process


@settings(max_examples=60, deadline=None)
@given(eps=st.sampled_from([0.5, 0.75, 1.0, 2.0]), n=st.sampled_from([300, 1000, 10_000]),
       split=st.lists(st.floats(0, 1), min_size=3, max_size=3), low=st.integers(0, 3), at=st.integers(0, 3))
def test_offcentre_reach_points_is_the_most_over_releases(eps, n, split, low, at):
    """Every release with a count at most (k - 1) Dc builds at most offcentre_reach_points (the plan's term)."""
    from dpposterior.lattice.column import reach_build
    from dpposterior.mechanisms import lattice as L

    k = 4
    Dc, W = L._radius(k, eps, 1e-12), L.LATTICE.column_radius(n, k, eps)
    c = np.floor(np.asarray(split + [1.0]) / (sum(split) + 1.0) * n).astype(np.int64)
    c[-1] += n - int(c.sum())
    c[at] = min(int(c[at]), low * Dc)  # one count at most (k - 1) Dc, the rest moved to another
    c[(at + 1) % k] += n - int(c.sum())
    assert int(c.sum()) == n and int(c.min()) >= 0 and int(c.min()) <= (k - 1) * Dc
    assert reach_build(n, k, c, Dc, W)[0] <= L.offcentre_reach_points(n, k, W, Dc)


def test_the_run_checks_its_reach_region_before_building_it(monkeypatch):
    """A release next to a vertex past the limit is refused in one line before reach_region runs."""
    from dpposterior.errors import SizeError
    from dpposterior.lattice import column
    from dpposterior.mechanisms import ReleaseSpec

    def boom(*args, **kwargs):
        raise AssertionError("reach_region was called")

    monkeypatch.setattr(column, "reach_region", boom)
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1")
    spec = ReleaseSpec.of("lattice", 1.0, objective="average")
    with pytest.raises(SizeError, match="reach region at this release"):
        spec.mechanism._local_column(np.ones(4), 1000, spec, np.array([10, 10, 10, 970]), 36)


@pytest.mark.parametrize("eps,n,objective", [(0.5, 1000, "worst"), (0.5, 10_000, "average"), (0.75, 1000, "worst"),
                                             (1.0, 1000, "worst"), (0.25, 10_000, "worst")])
def test_cells_whose_releases_next_to_a_face_do_not_fit_are_refused_in_one_line(eps, n, objective):
    import os
    import subprocess
    import sys

    counts = ",".join(str(x) for x in (n // 4, n // 4, n // 4, n - 3 * (n // 4)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    got = subprocess.run([sys.executable, "-m", "dpposterior", "release", "--prior", "1,1,1,1", "--counts", counts,
                          "--mechanism", "optimal", "--objective", objective, "--epsilon", str(eps),
                          "--noise-aware"], capture_output=True, text=True, env=env)
    lines = [x for x in got.stderr.splitlines() if x.strip()]
    assert got.returncode == 2 and len(lines) == 1 and lines[0].startswith("dpposterior: error")
    assert "over the limit" in lines[0] and got.stdout.strip() == ""


@pytest.mark.parametrize("eps,n", [(1.0, 1000), (1.0, 10_000), (1.25, 10_000), (2.0, 1000)])
def test_the_cut_plan_is_the_most_over_its_family(eps, n):
    """The cut route's plan (average: no corner table) is at least each term the run checks at a release elsewhere:
    the reach region's box next to a face or vertex, and the cut's box at each release of cut_family, each of the
    latter at its own counts as the run's check (_cut_points) counts it."""
    from dpposterior.lattice.column import cut_region
    from dpposterior.mechanisms import ReleaseSpec
    from dpposterior.mechanisms import lattice as L

    k, a = 4, np.ones(4)
    spec = ReleaseSpec.of("lattice", eps, objective="average")
    Dc, W = L._radius(k, eps, 1e-12), spec.mechanism.column_radius(n, k, eps)
    plan = spec.mechanism.plan_posterior(a, n, spec)
    limited = dict(plan.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"]
    assert limited >= L.offcentre_reach_seconds(n, k, W, Dc)
    family = L.cut_family(n, k, Dc)
    assert family and all(int(c.sum()) == n and int(c.min()) == (k - 1) * Dc + 1 for c in family)
    for c in family:
        seen = []
        with pytest.raises(ZeroDivisionError):  # the run's check sees the count first (then 1/0 stops it)
            cut_region(a, n, eps, c, Dc, check=lambda p, seen=seen: (seen.append(p), 1 / 0))
        assert L.cut_box_count(a, n, eps, c, Dc) == seen[0]
        assert limited >= seen[0] * L.CUT_SECONDS * k
