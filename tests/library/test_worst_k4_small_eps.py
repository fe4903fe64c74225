"""``worst`` at k = 4 below eps 0.5 where the corner remap does not fit its plan (every n past the window's LP): the
corner table has no rows, so the release is the local Bayes remap's (``lattice~average``'s), as at k = 3.

* the choice (``corners_fit``) is the corner remap's own plan at the default limits, from public n, eps only, and
  nothing changes from eps 0.5 (the corner route as before);
* the plan's choice is what runs: the routes of the draw, the errors and the column, the release key, the certificate,
  and the draws themselves bit for bit the average's;
* the release's pmf (written out from the definition: the kernel enumerated here, ``T`` what a draw computes) is a
  pmf, and the draws follow it (chi-square), and not the pmf at a neighbouring data set;
* ``release --noise-aware`` at n = 1e4, eps 0.25, ``--objective worst`` releases with its posterior (refused before).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from dpposterior import mechanisms as M
from dpposterior.errors import SizeError
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec

from .test_worst_past_the_corner_plan import _chisquare, _default_limits, _spec  # noqa: F401 (the autouse fixture: k = 3's)

ONES = np.ones(4)


@pytest.mark.parametrize("eps", [0.25, 0.3, 0.45, 0.5, 1.0])
@pytest.mark.parametrize("n", [3, 5, 10, 30, 100, 10**4])
def test_corners_fit_is_the_corner_plan_below_half(n, eps):
    """Below eps 0.5, where the window's LP does not run, ``worst`` reads the corner remap exactly where a padded
    release of it at a symmetric prior is admitted by the default limits (at no n here); from eps 0.5 always."""
    spec = _spec(eps)
    if L.LATTICE.uses_window(n, 4, spec):
        return
    if eps >= 0.5:  # from eps 0.5 the corner solve's own plan (test_worst_k4_past_the_corner_solve.py)
        fits = (L.corner_seconds(n, 4, eps, True) <= L.CORNER_WORST_SECONDS
                and L.corner_bytes(n, 4, eps, True) <= L.CORNER_WORST_BYTES)
        assert L.corners_fit(n, 4, eps) == L.LATTICE.uses_corners(n, 4, spec) == (fits or eps >= 1.0)
        return
    try:
        L.LATTICE.check_corners(n, 4, spec, L.PADDED_DRAWS, symmetric=True)
        admitted = True
    except SizeError:
        admitted = False
    assert L.corners_fit(n, 4, eps) == admitted
    assert L.LATTICE.uses_corners(n, 4, spec) == admitted
    assert not admitted


@pytest.mark.parametrize("n, eps", [(10, 0.25), (100, 0.25), (10**4, 0.25), (10, 0.45), (30, 0.4)])
def test_worst_below_half_runs_the_local_search(n, eps):
    """The plan's choice is what runs: every route is the average's, the release the average's."""
    spec, avg = _spec(eps), _spec(eps, "average")
    lat = L.LATTICE
    assert not lat.uses_window(n, 4, spec) and not lat.uses_corners(n, 4, spec)
    assert not lat.uses_window(n, 4, avg)
    assert lat.plan_draw(ONES, n, spec).route == lat.plan_draw(ONES, n, avg).route == "local search"
    assert lat.plan_errors(ONES, n, spec).route == lat.plan_errors(ONES, n, avg).route == "batched local search"
    assert lat.plan_posterior(ONES, n, spec).route == lat.plan_posterior(ONES, n, avg).route
    assert lat.release_key(ONES, n, spec) == lat.release_key(ONES, n, avg) == ("lattice", "average")
    # from eps 0.5 the worst release stays its own (the corner route) where its solve fits (n = 10 here; past it
    # test_worst_k4_past_the_corner_solve.py)
    assert lat.release_key(ONES, 10, _spec(0.5)) == ("lattice", "worst")
    assert lat.certificate(ONES, n, spec) == {"remap": "local search"}
    # optimal past its LP is this release (at n <= 12 its LP by orbits runs: tests/library/test_optimal_orbits.py)
    ospec = ReleaseSpec.of("optimal", eps, objective="worst")
    assert ospec.mechanism.release_key(ONES, n, ospec) == (("lattice", "average") if n > 12 else None)


@pytest.mark.parametrize("size", [1, 5, 64])
def test_worst_draws_are_the_average_draws(size):
    counts = np.array([3, 2, 4, 1])
    for eps in (0.25, 0.45):
        w = M.sample("lattice", ONES, counts, epsilon=eps, objective="worst", size=size, rng=11)
        a = M.sample("lattice", ONES, counts, epsilon=eps, objective="average", size=size, rng=11)
        assert np.array_equal(w, a)
        assert np.all(w >= 0) and np.all(w.sum(axis=1) == 10)


def _lattice(W: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ``w`` of the sum-zero lattice of Z^4 with ``d(w) = |w|_1 / 2 <= W``, and its ``d``."""
    u = np.arange(-2 * W, 2 * W + 1)
    g = np.stack(np.meshgrid(u, u, u, indexing="ij"), axis=-1).reshape(-1, 3)
    w = np.concatenate([g, -g.sum(axis=1, keepdims=True)], axis=1)
    d = np.abs(w).sum(axis=1) // 2
    keep = d <= W
    return w[keep], d[keep]


def _sphere_counts(T: int) -> np.ndarray:
    """``N(t)`` for t <= T: the ``w`` of Z^4 with ``sum w = 0`` and ``|w|_1 = 2 t``, by a dynamic programme over the
    coordinates on (l1 norm, sum)."""
    L1, S = 2 * T, 2 * T
    dp = np.zeros((L1 + 1, 2 * S + 1))
    dp[0, S] = 1.0
    for _ in range(4):
        nxt = np.zeros_like(dp)
        for v in range(-L1, L1 + 1):
            a = abs(v)
            if v >= 0:
                nxt[a:, v:] += dp[: L1 + 1 - a, : 2 * S + 1 - v]
            else:
                nxt[a:, :v] += dp[: L1 + 1 - a, -v:]
        dp = nxt
    return dp[0::2, S]


def _pmf(c: np.ndarray, n: int, eps: float, w: np.ndarray, K: np.ndarray) -> dict:
    """``{r: sum_z K(z - c) [T(z) = r]}`` over the z = c + w given, T what a draw computes
    (:func:`~dpposterior.lattice.batched.local_search_batch`, equal to the one-point search at every z)."""
    from dpposterior.lattice.batched import local_search_batch

    out = local_search_batch(ONES, n, eps, c[None, :] + w)
    assert np.all(out >= 0) and np.all(out.sum(axis=1) == n)
    keys, inv = np.unique(out, axis=0, return_inverse=True)
    mass = np.bincount(inv.reshape(-1), weights=K, minlength=len(keys))
    return dict(zip(map(tuple, keys.tolist()), mass.tolist(), strict=True))


def test_the_fallback_pmf_is_a_pmf_and_its_draws_follow_it():
    """At k = 4, n = 3, eps = 0.45 (past the corner plan): ``P(r | c) = sum_z K(z - c) [T(z) = r]`` over the z within
    ``W`` of c, the kernel ``e^(-eps d(w)) / Z`` written out here (``Z`` summed to ``d <= 4 W`` by the sphere counts;
    the mass beyond ``W`` below 2e-4): a pmf over R(n); 3,000 ``worst`` draws follow it (chi-square), and not the pmf
    at the neighbouring data set (2, 1, 0, 0).  The release at eps runs at its working eps (``working_epsilon``: eps
    0.45 floored to a multiple of ``2^-20``), so the kernel and ``T`` are written at that eps."""
    n, claimed, W = 3, 0.45, 30
    eps = L.working_epsilon(claimed, 4)
    assert claimed - 2.0**-20 < eps < claimed
    c = np.array([1, 1, 1, 0])
    w, d = _lattice(W)
    sph = _sphere_counts(4 * W)
    assert np.array_equal(np.bincount(d, minlength=W + 1), sph[: W + 1])  # the programme against the enumeration
    norm = float(np.sum(sph * np.exp(-eps * np.arange(4 * W + 1))))
    K = np.exp(-eps * d) / norm
    assert 0 < 1.0 - K.sum() < 2e-4
    p = _pmf(c, n, eps, w, K)
    assert 1.0 - 2e-4 <= sum(p.values()) <= 1.0 + 1e-12
    keys = list(p)
    draws = M.sample("lattice", ONES, c, epsilon=claimed, objective="worst", size=3000, rng=5)
    dkey = {r: i for i, r in enumerate(keys)}
    idx = np.array([dkey.get(tuple(r), -1) for r in draws.tolist()])
    assert np.all(idx >= 0)  # every draw is an output the pmf gives mass
    seen = np.bincount(idx, minlength=len(keys))
    assert _chisquare(seen, np.array([p[r] for r in keys])) > 1e-4
    q = _pmf(np.array([2, 1, 0, 0]), n, eps, w, K)
    assert _chisquare(seen, np.array([q.get(r, 0.0) for r in keys])) < 1e-6


def test_release_noise_aware_worst_at_1e4_quarter():
    """``release --noise-aware --objective worst`` at k = 4, n = 1e4, eps = 0.25: a release and its posterior (the
    average's route), where before the corner plan refused it (23.4 GiB).  The plan now takes the most over releases
    next to a face, an edge and a vertex (cut_release_family: about 1.3e7 s), past the largest limit one can set
    (1e7 s): refused up front in one line, nothing drawn.  (The centre release ran 30 to 50 CPU s with its posterior
    when the plan was the face's reach box, ~3,500 s; the family's price there is not refitted.)"""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_MAX") and k != "DPPOSTERIOR_MEMORY_GB"}
    proc = subprocess.run([sys.executable, "-m", "dpposterior", "release", "--prior", "1,1,1,1", "--counts",
                           "2500,2500,2500,2500", "--mechanism", "optimal", "--objective", "worst", "--epsilon",
                           "0.25", "--seed", "7", "--noise-aware", "--json"], capture_output=True, text=True,
                          cwd=root, env=env | {"OMP_NUM_THREADS": "1", "DPPOSTERIOR_MAX_SOLVE_SECONDS": "1e7"})
    assert proc.returncode == 2 and not proc.stdout, proc.stderr[-500:]
    assert proc.stderr.count("\n") == 1 and "local column" in proc.stderr and "over the limit" in proc.stderr
