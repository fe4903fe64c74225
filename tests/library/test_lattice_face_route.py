"""The face table as ``lattice~worst``'s route at k = 4 (``mechanisms.lattice``: ``faces_fit``, ``uses_faces``; docs/lattice.md,
"A face table at k = 4"): where the plan chooses it, the draws follow the pmf ``sum_z K(z - c) T(z, .)`` of the face table
(its rows where z has one, the local Bayes remap elsewhere), the errors are that pmf's, the noise-aware column is that pmf's
column, and ``compare``'s row is never below the yardstick.  Small n by widening ``FACE_N`` (the route's law is the same
function of public inputs at every n)."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest

from dpposterior.lattice.batched import local_search_batch
from dpposterior.mechanisms import LATTICE, ReleaseSpec
from dpposterior.mechanisms import lattice as mlat

N_SMALL = 8


@functools.lru_cache(maxsize=4)
def _kernel(eps, k, D):
    """``{w: K(w)}`` over ``d(w) = |w|_1 / 2 <= D`` (sum-zero w), normalised over a box whose tail is below 1e-15."""
    B = int(40 / eps) + 8
    Z = 0.0
    out = {}
    for w in itertools.product(range(-B, B + 1), repeat=k - 1):
        w = w + (-sum(w),)
        d = sum(map(abs, w)) // 2
        if d > B:
            continue
        Z += math.exp(-eps * d)
        if d <= D:
            out[w] = math.exp(-eps * d)
    return {w: v / Z for w, v in out.items()}


@pytest.fixture
def small_faces(monkeypatch):
    """The face route admitted at n = 8 (eps 1, Dir(1,1,1,1)), its caches cleared before and after."""
    monkeypatch.setattr(mlat, "FACE_N", (6, 12))
    mlat._face.cache_clear()
    mlat._face_errors.cache_clear()
    _table.cache_clear()
    yield
    mlat._face.cache_clear()
    mlat._face_errors.cache_clear()


@functools.lru_cache(maxsize=2)
def _table(a, n, eps, D=14):
    """``T(z, .)`` at every z within ``D`` of R(n): the face table's row where z has one, else ``B(z)`` (the local
    Bayes remap a draw computes, :func:`local_search_batch`: the one-point search's outputs, tested elsewhere)."""
    from dpposterior.lattice.noise import window

    remap = mlat._face(tuple(a), n, eps)
    Z = window(n, 4, D)
    rows = remap.rows(Z)
    B = local_search_batch(np.asarray(a), n, eps, Z)
    T = {}
    for z, f, b in zip(map(tuple, Z.tolist()), rows, B):
        if f >= 0:
            T[z] = [(tuple(r), p) for r, p in zip(remap.outputs[f].tolist(), remap.probs[f]) if p > 0]
        else:
            T[z] = [(tuple(b.tolist()), 1.0)]
    return T


def _pmf(a, c, eps, D=14):
    """``sum_{d(w) <= D} K(w) T(c + w, .)`` as a dict (:func:`_table`)."""
    T = _table(tuple(a), int(sum(c)), eps, D)
    pmf = {}
    for w, kw in _kernel(eps, 4, D).items():
        for r, p in T[tuple(ci + wi for ci, wi in zip(c, w))]:
            pmf[r] = pmf.get(r, 0.0) + kw * p
    return pmf


def test_the_face_route_is_chosen_where_its_plan_says():
    """k = 4, eps = 1, a symmetric prior, n in ``FACE_N``: ``worst`` reads the face table (draws, errors, column);
    not at an asymmetric prior, another eps, n past ``FACE_N``, nor for ``average`` (the corner table or the local
    search as before)."""
    a = np.ones(4)
    worst = ReleaseSpec.of("lattice", 1.0, objective="worst")
    for n in (30, 50, 68):
        assert LATTICE.uses_faces(n, 4, worst, a) and not LATTICE.uses_corners(n, 4, worst, a)
        assert LATTICE.plan_errors(a, n, worst).route == "face table"
        assert LATTICE.plan_posterior(a, n, worst).route == "local column"
    assert LATTICE.plan_errors(np.array([1.0, 1.0, 1.0, 2.0]), 50, worst).route == "corner remap"
    assert LATTICE.plan_errors(a, 29, worst).route == "corner remap"
    assert LATTICE.plan_errors(a, 69, worst).route == "corner remap"
    assert LATTICE.plan_errors(a, 50, ReleaseSpec.of("lattice", 0.5, objective="worst")).route != "face table"
    assert LATTICE.plan_errors(a, 50, worst.averaged()).route == "batched local search"
    # the face row's rest is lattice~average's own call: compare counts it once
    face, avg = LATTICE.plan_errors(a, 50, worst), LATTICE.plan_errors(a, 50, worst.averaged())
    assert face.shared and face.shared[0][0] == avg.shared[0][0]
    # the pmf at one data set (randomised rows) is refused in one line
    assert "face table" in LATTICE.plan_pmf_at(a, 50, 4, worst).refused()


def test_the_face_route_to_n_68_is_admitted_at_the_default_limits(monkeypatch):
    """n = 51 to 68 (eps 1, Dir(1,1,1,1)): the face route's draws, errors and noise-aware column are each admitted at
    the default limits, so reading the face table there refuses no cell the corner table's plans admitted; with the
    own build's fit before (the reach to 2 Dc + 1, 1.3e-6 and 1.3e-3 a row) the draws at n = 60 were refused, and with
    the column's rest priced by the filters' rule at eps 1 (the rate's range ending at eps 0.75, as before) the
    columns at n = 61 and 68 were refused (``average``'s, and the face route's, which reads it)."""
    from dpposterior.lattice import faces_any as F
    from dpposterior.lattice.noise import radius_for
    from dpposterior.limits import LIMITS

    for name in LIMITS:
        monkeypatch.delenv(name, raising=False)
    a = np.ones(4)
    worst = ReleaseSpec.of("lattice", 1.0, objective="worst")
    for n in (51, 55, 60, 61, 64, 68):
        assert LATTICE.uses_faces(n, 4, worst, a)
        for plan in (LATTICE.plan_draw(a, n, worst), LATTICE.plan_errors(a, n, worst),
                     LATTICE.plan_posterior(a, n, worst)):
            assert not plan.refused(), (n, plan.route, plan.refused())
    monkeypatch.setattr(F, "FACE_TABLE_ROW_SECONDS", 1.3e-6)
    monkeypatch.setattr(F, "FACE_TABLE_ROW_FIXED", 1.3e-3)
    monkeypatch.setattr(F, "face_reach", lambda n, k, eps: float(min(int(n) + 1, 2 * radius_for(k, eps, 1e-12) + 1)))
    assert LATTICE.plan_draw(a, 60, worst).refused()
    monkeypatch.undo()
    for name in LIMITS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(mlat, "ORBIT_REST_EPSILON", (mlat.ORBIT_REST_EPSILON[0], 0.75))
    mlat._cut_release_most.cache_clear()  # the family's costs are cached by public inputs, not by the rate
    try:
        for n in (61, 68):
            assert LATTICE.plan_posterior(a, n, worst).refused()
            assert LATTICE.plan_posterior(a, n, worst.averaged()).refused()
    finally:
        mlat._cut_release_most.cache_clear()


def test_face_draws_follow_the_tables_pmf(small_faces):
    """The sampler's outputs at a data set next to a face (n = 8) have the pmf ``sum_z K(z - c) T(z, .)``: the face
    table's rows summed where z has one, ``B(z)`` elsewhere (chi-square over the outputs of expected count >= 5, the
    rest pooled); the face rows carry mass there (so the test reads them)."""
    from scipy.stats import chisquare

    import dpposterior as dp

    a, eps, c = (1.0, 1.0, 1.0, 1.0), 1.0, (5, 2, 1, 0)
    pmf = _pmf(a, c, eps)
    remap = mlat._face(a, N_SMALL, eps)
    assert len(remap.points) and (remap.probs.max(axis=1) < 1).any()  # randomised rows exist
    size = 4000
    draws = dp.sample("lattice", a, c, epsilon=eps, objective="worst", size=size, rng=11)
    big = [r for r in sorted(pmf, key=lambda r: -pmf[r]) if pmf[r] * size >= 5]
    seen = {r: 0 for r in big}
    rest = 0
    for d in map(tuple, draws.tolist()):
        if d in seen:
            seen[d] += 1
        else:
            rest += 1
    expected = np.array([pmf[r] for r in big] + [1.0 - sum(pmf[r] for r in big)]) * size
    observed = np.array([seen[r] for r in big] + [rest])
    assert chisquare(observed, expected * observed.sum() / expected.sum()).pvalue > 1e-6


def test_face_errors_are_the_pmfs_expected_loss(small_faces):
    """``accuracy``'s errors of the face route (the rest's window errors plus the table's differences) equal
    ``sum_r P(r | c) L(c, r)`` of the table's pmf at data sets near a face and inside, within the stated bracket."""
    from dpposterior.lattice.corners import pair_loss

    a, eps = np.ones(4), 1.0
    spec = ReleaseSpec.of("lattice", eps, objective="worst")
    plan = LATTICE.plan_errors(a, N_SMALL, spec)
    assert plan.route == "face table"
    E = LATTICE.direct_errors(plan, a, N_SMALL, spec)
    for c in ((5, 2, 1, 0), (8, 0, 0, 0), (2, 2, 2, 2)):
        pmf = _pmf(tuple(a), c, eps)
        R = np.array(list(pmf), dtype=np.int64)
        want = float(np.dot(list(pmf.values()), pair_loss(a, np.broadcast_to(np.array(c), R.shape), R)))
        i = int(np.flatnonzero(np.all(E.counts == np.array(c), axis=1))[0])
        # the oracle's ball (D = 14) leaves at most tail_bound(4, 1, 14) ~ 1e-4 out; the route's bracket its tail
        assert E.low[i] - 2e-4 <= want <= E.high[i] + 1e-9


def test_the_face_column_is_the_pmfs_column(small_faces):
    """The noise-aware column of the face route (``local column``: the table's rows whose outputs hold m, the local
    search elsewhere) equals ``P(m | c)`` of the table's pmf at every data set, to the oracle's ball."""
    a, eps = np.ones(4), 1.0
    spec = ReleaseSpec.of("lattice", eps, objective="worst")
    plan = LATTICE.plan_posterior(a, N_SMALL, spec)
    assert plan.route == "local column"
    remap = mlat._face(tuple(a), N_SMALL, eps)
    # a released output that some face row reaches with a probability strictly between 0 and 1
    mixed = np.argwhere((remap.probs > 0.05) & (remap.probs < 0.95))
    m = remap.outputs[mixed[0][0], mixed[0][1]]
    C, logw, _, bound = LATTICE.local_posterior(plan, a, N_SMALL, spec, m)
    from dpposterior.models import log_prior_predictive

    col = logw - log_prior_predictive(a, C)
    for c, lc in zip(C, col):
        want = _pmf(tuple(a), tuple(int(x) for x in c), eps).get(tuple(m.tolist()), 0.0)
        assert abs(math.exp(lc) - want) <= 2e-4 + 1e-9 * want
    assert math.isfinite(bound)


def test_compares_face_row_is_at_least_the_yardstick(small_faces):
    """``compare`` at n = 8 (the face route admitted there): the row ``lattice (worst)`` runs the face table's route,
    and its worst case (upper end) is at least the yardstick's certified bound, which bounds every eps-DP release."""
    from dpposterior.ranking import compare_rows, compare_yardstick, plan_compare

    a = np.ones(4)
    plans = plan_compare(a, N_SMALL, 1.0)
    assert {rp.variant.label: rp.plan.route for rp in plans if rp.plan is not None}["lattice (worst)"] == "face table"
    errors: dict = {}
    rows = compare_rows(a, N_SMALL, 1.0, plans=plans, errors=errors)
    row = next(r for r in rows if r["release"] == "lattice (worst)")
    y = compare_yardstick(a, N_SMALL, 1.0, rows, plans=plans, errors=errors)
    assert not isinstance(y, str) and y.worst > 0
    assert row["worst_expected_error"] + row.get("truncation_bound", 0.0) >= y.worst - 1e-12
