"""The face table built from the rest's window search (``lattice.faces_any``: ``window_outputs_at``,
``lp_rest_errors`` and ``face_remap_any`` with ``window_outputs``; ``mechanisms.lattice._face`` with
``window_fallback``): the window's rows read at the right points, the same table bit for bit as the release's own
build (which a draw reads), a window too narrow refused in one line, and its plan (``plan_face_shared``) at or above
the recorded builds (``benchmarks/face_shared_build.json``)."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.errors import InputError
from dpposterior.lattice import faces_any
from dpposterior.lattice.batched import local_search_batch
from dpposterior.lattice.noise import window
from dpposterior.mechanisms import lattice as mlat
from dpposterior.mechanisms.spec import ReleaseSpec

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _window_rows(n, k, W):
    """``{z: row}`` over ``{z : sum z = n, z_i >= -W}`` in lexicographic order (the compositions of ``n + k W``
    shifted by ``-W``, :func:`reference.compositions`)."""
    return {tuple(v - W for v in c): i for i, c in enumerate(sorted(ref.compositions(n + k * W, k)))}


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 7), W=st.integers(0, 3), data=st.data())
def test_window_outputs_are_read_at_their_points(n, W, data):
    """``window_outputs_at`` returns the window's row of each point (outputs given as the row numbers)."""
    k = 4
    rows = _window_rows(n, k, W)
    pts = list(rows)
    outputs = np.stack([np.arange(len(pts))] * k, axis=1)
    pick = data.draw(st.lists(st.sampled_from(pts), min_size=1, max_size=12))
    got = faces_any.window_outputs_at(outputs, n, W, np.array(pick))
    assert got[:, 0].tolist() == [rows[p] for p in pick]


def test_a_point_off_the_window_is_refused():
    outputs = np.zeros((len(window(5, 4, 1)), 4), dtype=np.int64)
    with pytest.raises(InputError, match="outside the window"):
        faces_any.window_outputs_at(outputs, 5, 1, np.array([[-2, 3, 2, 2]]))


def _digest(remap):
    h = hashlib.sha256()
    for x in (remap.points, remap.outputs, remap.probs, remap.rest):
        h.update(np.ascontiguousarray(x).tobytes())
    return h.hexdigest()


@pytest.mark.parametrize("n, eps, We", [(8, 1.0, 13), (12, 1.0, 19), (10, 2.0, 7)])
def test_the_shared_build_is_the_releases_table(n, eps, We):
    """The table from the window's outputs is the release's own build bit for bit (rows, outputs, probabilities, the
    rest's outputs) and its LP the same (certificate)."""
    a = np.ones(4)
    own = faces_any.face_remap_any(a, n, eps)
    out = local_search_batch(a, n, eps, window(n, 4, We), orbits=True)
    shared = faces_any.face_remap_any(a, n, eps, window_outputs=(out, We))
    assert _digest(shared) == _digest(own)
    assert shared.certificate == own.certificate
    # the LP's constant part on its own, at the constrained data sets
    cand = faces_any.face_data_sets(n, eps)
    assert np.array_equal(faces_any.lp_rest_errors(a, n, eps, cand, window_outputs=(out, We)),
                          faces_any.lp_rest_errors(a, n, eps, cand))


def test_a_window_too_narrow_is_refused():
    """The LP's sums reach ``radius_for(4, eps, LP_REST_TOL)``: a narrower window is refused in one line."""
    a, n, eps = np.ones(4), 8, 1.0
    out = local_search_batch(a, n, eps, window(n, 4, 5), orbits=True)
    with pytest.raises(InputError, match="the LP's sums"):
        faces_any.face_remap_any(a, n, eps, window_outputs=(out, 5))
    out1 = local_search_batch(a, n, eps, window(n, 4, 1), orbits=True)
    with pytest.raises(InputError, match="the face rows"):
        faces_any.face_remap_any(a, n, eps, window_outputs=(out1, 1))


def test_the_errors_route_reads_the_same_table(monkeypatch):
    """``mechanisms.lattice._face`` with ``window_fallback`` (the errors' route) is the draws' table bit for bit."""
    monkeypatch.setattr(mlat, "FACE_N", (8, 50))
    mlat._face.cache_clear()
    mlat._batched_outputs.cache_clear()
    try:
        a = (1.0, 1.0, 1.0, 1.0)
        shared = mlat._face(a, 8, 1.0, 10**6)
        # one cache for both builds: the draws' call returns the table the errors built
        assert mlat._face(a, 8, 1.0) is shared
        mlat._face.cache_clear()
        own = mlat._face(a, 8, 1.0)
        assert _digest(shared) == _digest(own)
        assert mlat._face(a, 8, 1.0, 10**6) is own
    finally:
        mlat._face.cache_clear()
        mlat._batched_outputs.cache_clear()


RECORD = json.loads((ROOT / "benchmarks" / "face_shared_build.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("run", RECORD["builds"], ids=lambda r: f"n{r['n']}")
def test_the_shared_build_plan_holds_its_runs(run):
    """``plan_face_shared`` at or above each recorded build (CPU s) and within 2.5x of it."""
    planned = faces_any.plan_face_shared(run["n"], 4, run["epsilon"]).seconds
    assert run["cpu_seconds"] <= planned <= 2.5 * run["cpu_seconds"]


def test_the_face_rows_plan_is_two_solves_with_the_shared_build():
    """The face release's errors plan two solves: the rest's search and the shared build (not the own build)."""
    spec = ReleaseSpec.of("lattice", 1.0, objective="worst")
    plan = mlat.LATTICE.plan_errors(np.ones(4), 50, spec)
    assert plan.route == "face table"
    solves = [sec for name, sec in plan.costs if name == "DPPOSTERIOR_MAX_SOLVE_SECONDS"]
    assert len(solves) == 2 and solves[1] == pytest.approx(faces_any.plan_face_shared(50, 4, 1.0).seconds)
    assert faces_any.plan_face_shared(50, 4, 1.0).seconds < faces_any.plan_face_table(50, 4, 1.0).seconds
    assert "k = 4 only" in faces_any.plan_face_shared(50, 3, 1.0).refusal


def _stub_output(z, cands):
    """A search's stand-in: a data set of R(n) that is a function of the point z alone (so a point looked up at the
    wrong row reads another's)."""
    return cands[sum((i + 3) * (v + 11) ** 2 for i, v in enumerate(z)) % len(cands)]


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 7), W2=st.integers(0, 3), eps=st.sampled_from([0.5, 1.0, 2.0]), data=st.data())
def test_the_lp_rest_sums_search_the_balls_points_once_and_read_each(n, W2, eps, data):
    """``lp_rest_errors`` (its own search) hands the search the distinct points ``c + w`` of the constrained data
    sets' balls (``d(w) <= W2``) in lexicographic order, numpy's row-wise unique of them, and reads each point's
    output at ``c + w``: with a stand-in search (an output a function of the point), each sum is ``sum_w K(w)
    H(Dir(a + c), Dir(a + B(c + w)))`` written out here (the ball enumerated, ``K`` normalised over a ball of radius 200,
    the loss from docs/definitions.md §2)."""
    from dpposterior.lattice import batched

    k, a = 4, np.ones(4)
    cands = sorted(ref.compositions(n, k))
    cand = np.array(data.draw(st.lists(st.sampled_from(cands), min_size=1, max_size=6, unique=True)), dtype=np.int64)
    seen = []

    def stub(prior, n_, eps_, Z, **kw):
        seen.append(np.array(Z))
        return np.array([_stub_output(tuple(z), cands) for z in Z.tolist()], dtype=np.int64)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batched, "local_search_batch", stub)
        got = faces_any.lp_rest_errors(a, n, eps, cand, W2=W2)
    ball = [w for w in itertools.product(range(-W2, W2 + 1), repeat=k) if sum(w) == 0 and sum(map(abs, w)) // 2 <= W2]
    want_Z = np.unique(np.array([np.add(c, w) for c in cand for w in ball]), axis=0)
    assert len(seen) == 1 and np.array_equal(seen[0], want_Z)
    log_z = math.log(_kernel_total(k, eps))
    want = [sum(math.exp(-eps * (sum(map(abs, w)) // 2) - log_z)
                * ref.hellinger_posteriors(a, c, _stub_output(tuple(np.add(c, w)), cands)) for w in ball)
            for c in cand.tolist()]
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def _kernel_total(k, eps, R=200):
    """``sum_w e^(-eps d(w))`` over the w of Z^k summing to 0 with ``d(w) <= R``: at distance d >= 1, each choice of
    the coordinates above 0 (P of them) and below 0 (N) gives ``C(d - 1, P - 1) C(d - 1, N - 1)`` such w (the positive
    part a composition of d into P parts, the negative part one into N)."""
    total = 1.0
    for d in range(1, R + 1):
        count = sum(math.comb(d - 1, s.count(1) - 1) * math.comb(d - 1, s.count(-1) - 1)
                    for s in itertools.product((-1, 0, 1), repeat=k) if 1 in s and -1 in s)
        total += count * math.exp(-eps * d)
    return total


def test_a_constrained_data_set_off_r_n_is_refused():
    with pytest.raises(InputError, match="outside R"):
        faces_any.lp_rest_errors(np.ones(4), 5, 1.0, np.array([[6, -1, 0, 0]]), W2=1)
