"""``worst`` at k = 3 where the corner remap does not fit its plan (eps <= 0.25 at n >= 15): the corner table has no
rows, so the release is the local Bayes remap's (``lattice~average``'s), and it exists wherever that one does.

* the choice (``corners_fit``) is the corner remap's own plan at the default limits, from public n, eps only;
* the plan's choice is what runs: the routes of the draw, the errors and the column, the release key, and the draws
  themselves bit for bit the average's;
* the release's pmf is a pmf (written out from the definition: the kernel, enumerated here, over the window's
  outputs), and the draws follow it;
* its worst case is at or above the yardstick's certified bound.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpposterior import mechanisms as M
from dpposterior.errors import SizeError
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec

ONES = np.ones(3)


@pytest.fixture(autouse=True)
def _default_limits(monkeypatch):
    for name in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MEMORY_GB"):
        monkeypatch.delenv(name, raising=False)


def _spec(eps, objective="worst"):
    return ReleaseSpec.of("lattice", eps, objective=objective)


@pytest.mark.parametrize("eps", [0.1, 0.25, 0.4, 0.5, 0.75, 1.0])
@pytest.mark.parametrize("n", [8, 10, 15, 20, 35, 40, 50, 100, 1000, 10**6])
def test_corners_fit_is_the_corner_plan_at_the_default_limits(n, eps):
    """Where the window's LP does not run, ``worst`` reads the corner remap exactly where a padded release of it at a
    symmetric prior fits the default limits by the plan the rule was set by (``law=True``: the corner LP at one
    corner's fit); eps >= 0.5 always (the releases built before are unchanged), eps <= 0.25 at no n >= 15.  The plan
    a release is admitted by is at or above that one (the three-corner LP refitted to its runs), so every release it
    admits reads the corner remap; at eps 0.5 every n admits it (n = 32 to 46 the LP without the constraints the dual
    bound proves implied, from n = 47 the dual simplex's plan)."""
    spec = _spec(eps)
    if L.LATTICE.uses_window(n, 3, spec):
        return
    try:
        L.LATTICE.check_corners(n, 3, spec, L.PADDED_DRAWS, symmetric=True)
        admitted = True
    except SizeError:
        admitted = False
    law = (L.corner_seconds(n, 3, eps, True, law=True) + L.PADDED_DRAWS * L.local_seconds(3, eps) <= 45.0
           and L.corner_bytes(n, 3, eps, True, law=True) <= 4 * 2**30)
    assert L.corners_fit(n, 3, eps) == law
    assert L.LATTICE.uses_corners(n, 3, spec) == law
    assert L.corner_seconds(n, 3, eps, True) >= L.corner_seconds(n, 3, eps, True, law=True)
    if L.CORNER_PEAK_MIN_EPSILON <= eps < 1.0:  # the refusal's bytes follow the runs, the law reads the corner remap
        assert law and L.corner_bytes(n, 3, eps, True) == max(L.corner_peak_terms(n, 3, eps))
    else:
        assert L.corner_bytes(n, 3, eps, True) >= L.corner_bytes(n, 3, eps, True, law=True)
    if admitted:
        assert law
    if eps >= 0.5:
        assert law
    assert admitted == law
    if eps <= 0.25 and n >= 15:
        assert not law and not admitted


@pytest.mark.parametrize("n, eps", [(15, 0.25), (15, 0.1), (1000, 0.25), (1000, 0.1), (10**6, 0.25)])
def test_worst_past_the_corner_plan_runs_the_local_search(n, eps):
    """The plan's choice is what runs: every route is the local search's, the release the average's."""
    spec, avg = _spec(eps), _spec(eps, "average")
    lat = L.LATTICE
    assert not lat.uses_window(n, 3, spec) and not lat.uses_corners(n, 3, spec)
    assert lat.plan_draw(ONES, n, spec).route == "local search"
    assert lat.plan_errors(ONES, n, spec).route == "local search"
    assert lat.plan_posterior(ONES, n, spec).route == "local column"
    if lat.uses_window(n, 3, avg):  # average reads the window's Bayes remap there: another release
        assert lat.release_key(ONES, n, spec) == ("lattice", "worst")
    else:  # both run the local search: one release
        assert lat.release_key(ONES, n, spec) == lat.release_key(ONES, n, avg) == ("lattice", "average")
        assert lat.plan_errors(ONES, n, spec).route == lat.plan_errors(ONES, n, avg).route
    # where the corner remap runs, the worst release stays its own
    assert lat.release_key(ONES, n, _spec(1.0)) == ("lattice", "worst")
    lat.set_up(ONES, n, spec)  # admitted: no corner remap is solved
    assert lat.certificate(ONES, n, spec) == {"remap": "local search"}


@pytest.mark.parametrize("size", [1, 5, 64])
def test_worst_draws_are_the_average_draws(size):
    """Where both run the local search (n = 300: the average's window remap is over its draw budget)."""
    counts = [100, 120, 80]
    for eps in (0.25, 0.1):
        assert not L.LATTICE.uses_window(300, 3, _spec(eps, "average"))
        w = M.sample("lattice", ONES, counts, epsilon=eps, objective="worst", size=size, rng=11)
        a = M.sample("lattice", ONES, counts, epsilon=eps, objective="average", size=size, rng=11)
        assert np.array_equal(w, a)
        assert np.all(w >= 0) and np.all(w.sum(axis=1) == 300)


def _kernel_tail(eps: float, W: int, far: int) -> tuple[float, float]:
    """``(normaliser, mass beyond W)`` of ``exp(-eps d(w))`` on the sum-zero lattice of Z^3, ``d = |w|_1 / 2``,
    enumerated to ``d <= far`` (the rest, below ``sum_{t > far} 6 t e^(-eps t)``, negligible here)."""
    u = np.arange(-2 * far, 2 * far + 1)
    w1, w2 = np.meshgrid(u, u, indexing="ij")
    d = (np.abs(w1) + np.abs(w2) + np.abs(w1 + w2)) // 2
    keep = d <= far
    mass = np.exp(-eps * d[keep])
    return float(mass.sum()), float(mass[d[keep] > W].sum())


def _chisquare(seen: np.ndarray, p: np.ndarray) -> float:
    """p-value of the counts ``seen`` against the masses ``p`` (bins expecting >= 5, the rest pooled); 0 where a draw
    falls where ``p`` has no mass."""
    expect = seen.sum() * p / p.sum()
    if np.any((expect == 0) & (seen > 0)):
        return 0.0
    big = expect >= 5
    obs, exp = seen[big], expect[big]
    if expect[~big].sum() > 0:
        obs, exp = np.append(obs, seen[~big].sum()), np.append(exp, expect[~big].sum())
    return float(stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue)


def test_the_worst_release_pmf_is_a_pmf_and_its_draws_follow_it():
    """At k = 3, n = 15, eps = 0.25 (past the corner plan): P(r | c) = sum_z K(z - c) [T(z) = r] over the window
    points within W of c, T the local search (what a draw computes), the kernel written out here: a pmf over R(n)
    within the kernel's mass beyond W; 3,000 draws of ``worst`` follow it (chi-square)."""
    from dpposterior.lattice.search import local_search_many

    n, eps, c = 15, 0.25, np.array([5, 5, 5])
    W = 60
    u = np.arange(-2 * W, 2 * W + 1)
    w1, w2 = np.meshgrid(u, u, indexing="ij")
    w = np.stack([w1.ravel(), w2.ravel(), -(w1 + w2).ravel()], axis=1)
    d = np.abs(w).sum(axis=1) // 2
    w, d = w[d <= W], d[d <= W]
    Z = c[None, :] + w
    norm, beyond = _kernel_tail(eps, W, 400)
    K = np.exp(-eps * d) / norm
    out = local_search_many(ONES, n, eps, Z)
    assert np.all(out >= 0) and np.all(out.sum(axis=1) == n)
    keys, inv = np.unique(out, axis=0, return_inverse=True)
    p = np.bincount(inv.reshape(-1), weights=K, minlength=len(keys))
    assert np.all(p >= 0)
    assert 1.0 - beyond / norm - 1e-12 <= p.sum() <= 1.0 + 1e-12
    assert beyond / norm < 1e-5
    draws = M.sample("lattice", ONES, c, epsilon=eps, objective="worst", size=3000, rng=5)
    dkey = {tuple(r): i for i, r in enumerate(keys.tolist())}
    idx = np.array([dkey.get(tuple(r), -1) for r in draws.tolist()])
    assert np.all(idx >= 0)  # every draw is an output the pmf gives mass
    seen = np.bincount(idx, minlength=len(keys))
    assert _chisquare(seen, p) > 1e-4
    # and the test has power: the same draws against the pmf at the neighbouring data set (4, 5, 6)
    other = local_search_many(ONES, n, eps, np.array([4, 5, 6])[None, :] + w)
    okeys, oinv = np.unique(other, axis=0, return_inverse=True)
    q = dict(zip(map(tuple, okeys.tolist()), np.bincount(oinv.reshape(-1), weights=K).tolist()))
    qexp = np.array([q.get(tuple(r), 0.0) for r in keys.tolist()])
    assert _chisquare(seen, qexp) < 1e-6


def _hellinger(a: np.ndarray, c: np.ndarray, r: np.ndarray) -> np.ndarray:
    """H(Dir(a + c), Dir(a + r)) = sqrt(1 - BC), BC = B((x + y) / 2) / sqrt(B(x) B(y)), B the multivariate Beta."""
    from scipy.special import gammaln

    def log_beta(x):
        return gammaln(x).sum(axis=-1) - gammaln(x.sum(axis=-1))

    x, y = a + c, a + r
    log_bc = log_beta((x + y) / 2) - 0.5 * (log_beta(x) + log_beta(y))
    return np.sqrt(np.maximum(0.0, -np.expm1(log_bc)))


def test_the_worst_release_worst_case_is_above_the_yardstick():
    """Past the corner plan the release's error at the vertex data set (n, 0, 0), written out from its definition
    (``E(c) = sum_w K(w) H(c, T(c + w))``, the kernel enumerated here, the rest of its mass counted as 0), is at or
    above the certified yardstick: so is its worst case."""
    from dpposterior.lattice.search import local_search_many
    from dpposterior.yardstick import marginal_bound

    n, eps, W = 15, 0.25, 60
    c = np.array([n, 0, 0])
    u = np.arange(-2 * W, 2 * W + 1)
    w1, w2 = np.meshgrid(u, u, indexing="ij")
    w = np.stack([w1.ravel(), w2.ravel(), -(w1 + w2).ravel()], axis=1)
    d = np.abs(w).sum(axis=1) // 2
    w, d = w[d <= W], d[d <= W]
    norm, beyond = _kernel_tail(eps, W, 400)
    out = local_search_many(ONES, n, eps, c[None, :] + w)
    low = float(np.sum(np.exp(-eps * d) / norm * _hellinger(ONES, c[None, :], out)))
    bound = marginal_bound(ONES, n, eps).worst
    assert beyond / norm < 1e-5
    assert 0 < bound <= low
