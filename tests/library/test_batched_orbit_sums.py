"""The k >= 4 batched errors by orbits (``mechanisms.lattice._batched_errors`` with ``orbits``) summing by orbits
where ``corners_any.orbit_sum`` (the rest's sum of ``corners_any.orbit_rest_errors``), against the sum over R(n)
(``lattice.batched.window_errors_any``, itself tested against the errors' definition) and against a brute-force
transcription of the definition (``reference.hellinger_posteriors``): the same errors within float rounding; the
route chosen from public inputs only (a symmetric prior, the terms past ``ORBIT_SUM_TERMS``); its plan counting the
orbit sum's seconds and bytes where it runs and the old sum elsewhere."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import corners_any
from dpposterior.lattice.batched import window_errors_any
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L

MOST = 10**9


def _spy(monkeypatch) -> list:
    calls = []
    real = corners_any.orbit_rest_errors

    def spied(*args, **kw):
        calls.append(args[1:3])
        return real(*args, **kw)
    monkeypatch.setattr(corners_any, "orbit_rest_errors", spied)
    return calls


def _definition(a, n, eps, W, outputs) -> np.ndarray:
    """``E(c) = sum_{d(w) <= W} K(w) L(c, T(c + w))`` for every c of R(n) (lexicographic), ``K(w) = e^(-eps d(w)) /
    Z`` with ``Z`` summed by distance far past W, ``T`` read off the window's outputs (lexicographic in the points
    ``z + W``), ``L`` the oracle's Hellinger distance: nothing from the library but the outputs."""
    k = len(a)
    Z = 1.0
    for d in range(1, 400):
        Z += sum(math.factorial(k) // (math.factorial(p) * math.factorial(q) * math.factorial(k - p - q))
                 * math.comb(d - 1, p - 1) * math.comb(d - 1, q - 1)
                 for p in range(1, k) for q in range(1, k - p + 1)) * math.exp(-eps * d)
    pts = [(*h, n - sum(h)) for h in itertools.product(range(-W, n + (k - 1) * W + 1), repeat=k - 1)
           if n - sum(h) >= -W]
    T = {z: tuple(r) for z, r in zip(sorted(pts), outputs.tolist())}
    ball = [w for w in itertools.product(range(-W, W + 1), repeat=k) if sum(w) == 0
            and sum(abs(v) for v in w) // 2 <= W]
    out = []
    for c in sorted(z for z in pts if min(z) >= 0):
        out.append(sum(math.exp(-eps * (sum(abs(v) for v in w) // 2)) / Z
                       * ref.hellinger_posteriors(a, c, T[tuple(ci + wi for ci, wi in zip(c, w))]) for w in ball))
    return np.array(out)


@settings(max_examples=8, deadline=None)
@given(n=st.integers(3, 7), eps=st.sampled_from([1.0, 2.0, 3.0]), tol=st.sampled_from([1e-2, 1e-3]))
@example(n=4, eps=2.0, tol=1e-2)
@example(n=6, eps=3.0, tol=1e-3)
def test_the_orbit_sum_is_the_sum_over_R_and_its_definition(n, eps, tol):
    """At Dir(1,1,1,1), the route forced on (``ORBIT_SUM_TERMS`` 0): the errors by orbits equal the sum over R(n)
    within 1e-12 and the definition within 1e-11; the same bracket."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(L, "LOCAL_ERROR_TOL", tol)
        mp.setattr(corners_any, "ORBIT_SUM_TERMS", 0.0)
        L._batched_errors.cache_clear()
        L._batched_outputs.cache_clear()
        calls = _spy(mp)
        a = (1.0, 1.0, 1.0, 1.0)
        got = L._batched_errors(a, n, eps, MOST, True)
        assert calls, "the orbit sum did not run"
        W = L._radius(4, eps, tol)
        outputs = L._batched_outputs(a, n, eps, MOST, True)
        want = window_errors_any(a, n, eps, outputs, W)
        assert np.array_equal(got.counts, want.counts) and got.tail == want.tail and got.offsets == want.offsets
        assert np.abs(got.low - want.low).max() <= 1e-12
        if W <= 5:
            assert np.abs(got.low - _definition(a, n, eps, W, outputs)).max() <= 1e-11
    L._batched_errors.cache_clear()
    L._batched_outputs.cache_clear()


@pytest.mark.parametrize("prior", [(1.0, 2.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0)])
def test_the_route_reads_public_inputs_only(monkeypatch, prior):
    """The orbit sum runs at a symmetric prior past ``ORBIT_SUM_TERMS`` only (n = 100, eps = 1: yes; n = 50: no); an
    asymmetric prior forced past it still sums over R(n), the same floats as ``window_errors_any``."""
    assert L._orbit_rest_sum(100, 4, 1.0, (1.0,) * 4) and not L._orbit_rest_sum(50, 4, 1.0, (1.0,) * 4)
    assert not L._orbit_rest_sum(100, 4, 1.0, (1.0, 2.0, 1.0, 1.0))
    monkeypatch.setattr(L, "LOCAL_ERROR_TOL", 1e-3)
    monkeypatch.setattr(corners_any, "ORBIT_SUM_TERMS", 0.0)
    L._batched_errors.cache_clear()
    L._batched_outputs.cache_clear()
    calls = _spy(monkeypatch)
    got = L._batched_errors(prior, 5, 1.0, MOST, True)
    symmetric = len(set(prior)) == 1
    assert bool(calls) == symmetric
    if not symmetric:
        W = L._radius(4, 1.0, 1e-3)
        want = window_errors_any(prior, 5, 1.0, L._batched_outputs(prior, 5, 1.0, MOST, True), W)
        assert np.array_equal(got.low, want.low)
    L._batched_errors.cache_clear()
    L._batched_outputs.cache_clear()


def test_the_plan_counts_the_sum_it_runs():
    """``lattice~average`` at Dir(1,1,1,1), k = 4: where the orbit sum runs (n = 100, eps = 1) the plan's sum is
    :func:`~dpposterior.mechanisms.lattice.orbit_sum_seconds` and its bytes the orbit check's besides; at n = 50 (no
    orbit sum) the sum over R(n) as before; an asymmetric prior at n = 100 the sum over R(n)."""
    spec = ReleaseSpec.of("lattice", 1.0, objective="average")
    W = L._radius(4, 1.0, L.LOCAL_ERROR_TOL)
    for n, orbit in ((100, True), (50, False)):
        plan = spec.mechanism._batched_plan(n, 4, spec, "x", True)
        table, handed = L.orbit_seconds(n, 4, 1.0, W)
        total = (L.orbit_sum_seconds(n, 4, 1.0, W) if orbit
                 else L.LOCAL_SUM_SECONDS * L.n_candidates(n, 4) * L.ball_size(4, 1.0, L.LOCAL_ERROR_TOL))
        assert plan.seconds == pytest.approx(table + handed + total, rel=1e-12)
        sym = plan.memory_bytes
        plain = spec.mechanism._batched_plan(n, 4, spec, "x", False).memory_bytes
        assert (sym > plain) == orbit
    a = np.array([1.0, 2.0, 1.0, 1.0])
    assert spec.mechanism.plan(Task.ERRORS, spec, a, 100).seconds > spec.mechanism.plan(
        Task.ERRORS, spec, np.ones(4), 100).seconds
