"""The noise-aware posterior's local routes (docs/lattice.md, "The noise-aware posterior"; noise_aware, "Routes").

* the lattice release's column ``P_W(r | c)`` (lattice/column.py) against a brute-force transcription of
  ``P(r | c) = sum_z K(z | c) T(z, r)`` over a box of z, for any remap T: inside its bracket ``[P_W, P_W + tail]``;
* the lattice route's column is the release's: the same outputs as a draw computes at every window point;
* the sequential clamps' local sum equals the exact sum over R(n) within its certified bound, and the bound is at
  least the mass it leaves out (computed whole where R(n) is small);
* every call arrives as a plan and runs the route planned; refusals are one line.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior import SizeError
from dpposterior.lattice.column import window_column
from dpposterior.lattice.noise import radius_for, tail_bound, window
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.noise_aware import noise_aware_posterior, plan_posterior, posterior_of, setup


def _compositions(n, k):
    for cuts in itertools.combinations(range(n + k - 1), k - 1):
        edges = (-1, *cuts, n + k - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(k))


def _rule(z, n):
    """An arbitrary deterministic remap of a lattice point (sum n) into R(n), k = 3."""
    a = (3 * z[0] + z[1]) % (n + 1)
    b = (z[1] * 5 + 2 * z[2]) % (n - a + 1)
    return (a, b, n - a - b)


def _brute_column(n, eps, r, box):
    """``P(r | c)`` for every c of R(n), k = 3, summing over every z of sum n with coordinates in [-box, n + box]
    (the definition, transcribed; the normaliser over the same box, whose mass beyond is below e^-(eps box))."""
    zs = [(x, y, n - x - y) for x in range(-box, n + box + 1) for y in range(-box, n + box + 1)
          if -box <= n - x - y <= n + box]
    out = {}
    for c in _compositions(n, 3):
        total = hit = 0.0
        for z in zs:
            kz = math.exp(-eps * ((abs(z[0] - c[0]) + abs(z[1] - c[1]) + abs(z[2] - c[2])) // 2))
            total += kz
            if _rule(z, n) == r:
                hit += kz
        out[c] = hit / total
    return out


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 4), eps=st.sampled_from([1.0, 2.5]), data=st.data())
def test_the_column_brackets_the_brute_force_likelihood(n, eps, data):
    r = data.draw(st.sampled_from(list(_compositions(n, 3))))
    W = radius_for(3, eps, 1e-6)
    Z = window(n, 3, W)
    outputs = np.array([_rule(tuple(z), n) for z in Z.tolist()])
    R, log_col, tail = window_column(n, 3, eps, r, W, Z, outputs=outputs)
    assert tail == tail_bound(3, eps, W) <= 1e-6
    want = _brute_column(n, eps, r, box=W + int(40 / eps))
    for c, lc in zip(map(tuple, R.tolist()), log_col):
        got = math.exp(lc)
        assert got <= want[c] * (1 + 1e-9) + 1e-300
        assert want[c] <= got + tail + 1e-12


def test_a_randomised_remap_column_is_the_weighted_sum():
    n, eps, W = 3, 1.5, 8
    Z = window(n, 3, W)
    rng = np.random.default_rng(5)
    p = rng.random(len(Z)) * (rng.random(len(Z)) < 0.3)
    R, log_col, _ = window_column(n, 3, eps, (1, 1, 1), W, Z, probabilities=p)
    from dpposterior.lattice.noise import log_normaliser

    for c, lc in zip(R, log_col):
        d = np.abs(Z - c[None, :]).sum(axis=1) // 2
        want = (p * np.exp(-eps * d - log_normaliser(3, eps))).sum()
        assert math.exp(lc) == pytest.approx(want, rel=1e-12)


@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 7), eps=st.sampled_from([0.7, 1.0, 2.0]), prior=st.sampled_from([0.5, 1.0, 3.0]),
       data=st.data())
def test_the_lattice_column_posterior_is_the_exact_one_where_both_run(n, eps, prior, data):
    """k = 3, small n (the window's remap read by the draws, the exact rows over R(n) computed): the window column's
    posterior equals the exact route's within its bound (both from the same remap)."""
    a = np.full(3, prior)
    m = np.array(data.draw(st.sampled_from(list(_compositions(n, 3)))))
    exact = posterior_of(setup("lattice", a, n, epsilon=eps), m)
    s = setup("lattice", a, n, epsilon=eps, route="local")
    assert s.plan.route == "window column" and s.plan.task is Task.POSTERIOR
    local = posterior_of(s, m)
    tol = 2 * local.dropped_mass_bound + 1e-9
    assert local.dropped_mass_bound < 1e-3
    assert np.abs(local.mean - exact.mean).max() <= tol
    assert np.abs(local.intervals - exact.intervals).max() <= 10 * tol + 1e-8


def test_the_lattice_column_at_k4_and_worst():
    """k = 4 (the window's remap) and the worst objective's randomised rows: the column's posterior is the exact one."""
    for prior, n, objective in (((1.0, 1.0, 1.0, 1.0), 3, "average"), ((1.0, 2.0, 1.0), 4, "worst")):
        a = np.array(prior)
        m = np.zeros(a.size, dtype=np.int64)
        m[0], m[1] = n - 1, 1
        exact = posterior_of(setup("lattice", a, n, epsilon=1.0, objective=objective), m)
        local = posterior_of(setup("lattice", a, n, epsilon=1.0, objective=objective, route="local"), m)
        assert np.abs(local.mean - exact.mean).max() <= 2 * local.dropped_mass_bound + 1e-9


def test_the_lattice_column_reads_the_local_search_as_a_draw(monkeypatch):
    """Where a draw runs the local search (forced here at n = 5), the column's outputs at every window point are the
    one-point search's (:func:`local_bayes_search`, what a draw computes)."""
    import dpposterior.mechanisms.lattice as lat
    from dpposterior.lattice.remap import local_bayes_search
    from dpposterior.models import log_prior_predictive

    monkeypatch.setattr(lat, "DENSE_DRAW_SECONDS", 0.0)
    a, n, eps, m = np.array([1.0, 2.0, 1.0]), 5, 2.0, np.array([1, 3, 1])
    spec = ReleaseSpec.given("lattice", epsilon=eps, objective="average")
    assert not lat.LATTICE.uses_window(n, 3, spec)
    # the window column's route itself (the plan may pick the local column, planned faster, at this point)
    plan = lat.LATTICE._window_column_plan(n, 3, spec, "the window column")
    assert plan.route == "window column" and plan.fits
    assert plan_posterior("lattice", a, n, epsilon=eps, objective="average").route in ("window column", "local column")
    R, logw, size, bound = lat.LATTICE.local_posterior(plan, a, n, spec, m)
    W = lat.LATTICE.column_radius(n, 3, eps)
    Z = window(n, 3, W)
    out = np.stack([local_bayes_search(a, n, eps, z) for z in Z])
    R2, log_col, tail = window_column(n, 3, eps, m, W, Z, outputs=out)
    assert np.array_equal(R, R2)
    assert np.array_equal(logw, log_prior_predictive(a, R2) + log_col)
    assert size == len(R) and 0 < bound < 1e-3


@settings(max_examples=20, deadline=None)
@given(k=st.sampled_from([3, 4]), eps=st.sampled_from([0.3, 1.0, 3.0]), prior=st.sampled_from([0.5, 1.0, 3.0]),
       mech=st.sampled_from(["geometric", "lshist"]), data=st.data())
def test_the_local_sum_is_the_exact_posterior_where_both_run(k, eps, prior, mech, data):
    n = data.draw(st.integers(1, 40 if k == 3 else 12))
    cuts = sorted(data.draw(st.lists(st.integers(0, n), min_size=k - 1, max_size=k - 1)))
    m = np.diff([0, *cuts, n])
    a = np.full(k, prior)
    exact = posterior_of(setup(mech, a, n, epsilon=eps), m)
    s = setup(mech, a, n, epsilon=eps, route="local")
    assert exact.mechanism == mech and s.plan.route == "local sum"
    local = posterior_of(s, m)
    tol = 2 * local.dropped_mass_bound + 2 * exact.dropped_mass_bound + 1e-12
    assert np.abs(local.mean - exact.mean).max() <= tol + 1e-13
    assert np.abs(local.intervals - exact.intervals).max() <= 10 * tol + 1e-10


@pytest.mark.parametrize("prior, m, eps", [
    ((1.0, 1.0, 1.0), (100, 60, 40), 3.0),
    ((0.5, 2.0, 1.0), (0, 190, 10), 2.0),
    ((30.0, 1.0, 1.0), (5, 150, 45), 4.0),  # the prior leans away from the release: the sum widens
])
def test_the_local_bound_is_above_the_mass_left_out(prior, m, eps):
    """n = 200: the local sum keeps a fraction of R(n); the exact weights of every data set (the global route's
    likelihood) give the mass it leaves out, below the certified bound."""
    from dpposterior.mechanisms.clamped import clamped_log_pmf_rows, geometric_noise_tables
    from dpposterior.models import candidates, log_prior_predictive

    a, m = np.array(prior), np.array(m)
    n = int(m.sum())
    s = setup("geometric", a, n, epsilon=eps, route="local")
    post = posterior_of(s, m)
    R = candidates(n, 3)
    assert 0 < len(post.counts) < len(R)
    tables = geometric_noise_tables(2.0 / eps, n)
    logw = log_prior_predictive(a, R) + clamped_log_pmf_rows(tables, R, m[None, :])[:, 0]
    kept = {tuple(c) for c in post.counts.tolist()}
    inside = np.array([tuple(c) in kept for c in R.tolist()])
    top = logw.max()
    left_out = np.exp(logw[~inside] - top).sum() / np.exp(logw[inside] - top).sum()
    assert left_out <= post.dropped_mass_bound
    assert post.dropped_mass_bound < 1e-11


def test_geometric_at_a_million_runs_locally_and_the_plan_says_so():
    a = np.ones(3)
    plan = plan_posterior("geometric", a, 10**6, epsilon=1.0)
    assert plan.task is Task.POSTERIOR and plan.route == "local sum" and plan.fits
    post = noise_aware_posterior("geometric", a, [400_000, 300_000, 300_000], epsilon=1.0)
    assert post.dropped_mass_bound < 1e-12 and post.dropped > 5 * 10**11
    assert np.allclose(post.mean, [0.4, 0.3, 0.3], atol=1e-5)
    # the exact route where it runs: its plan names it and nothing local is built
    s = setup("geometric", a, 100, epsilon=1.0)
    assert s.plan.route == "exact" and s.rows is not None


def test_the_route_run_is_the_route_planned(monkeypatch):
    from dpposterior.mechanisms.clamped import ClampedNoiseMechanism

    calls = []
    original = ClampedNoiseMechanism.local_posterior

    def spy(self, plan, *args):
        calls.append(plan.route)
        return original(self, plan, *args)

    monkeypatch.setattr(ClampedNoiseMechanism, "local_posterior", spy)
    noise_aware_posterior("geometric", np.ones(3), [10, 20, 30], epsilon=1.0)
    assert calls == []  # the exact route
    noise_aware_posterior("geometric", np.ones(3), [1000, 1000, 1000], epsilon=1.0)
    assert calls == ["local sum"]


@pytest.mark.parametrize("mech, settings, n, needle", [
    ("geometric", {"epsilon": 0.01}, 10**6, "GiB (local sum)"),
    ("lattice", {"epsilon": 0.1, "objective": "average"}, 350, "(local column"),
    ("lattice", {"epsilon": 0.1, "objective": "average"}, 120, "(local column"),
    ("optimal", {"epsilon": 0.1, "objective": "worst"}, 350, "(local column"),
    ("mh", {"epsilon": 1.0}, 10**6, "|R(n)| = 5e+11"),
])
def test_refusals_are_one_line(mech, settings, n, needle):
    k = 3
    with pytest.raises(SizeError) as exc:
        plan_posterior(mech, np.ones(k), n, **settings)
    text = str(exc.value)
    assert needle in text and "\n" not in text and "noise-aware posterior" in text


def test_a_release_the_prior_puts_far_away_is_refused_in_one_line():
    with pytest.raises(SizeError, match="leaves out a mass of up to") as exc:
        noise_aware_posterior("geometric", np.full(3, 1e9), [400_000, 300_000, 300_000], epsilon=1.0)
    assert "\n" not in str(exc.value)


def test_a_release_of_likelihood_zero_at_every_kept_data_set_names_that_cause(monkeypatch):
    """Where the local sum keeps no data set of positive likelihood (the lattice release at eps 0.5, n = 1e4, r = (2,
    4999, 4999) is one, after about 10 CPU s of searches), the line says so, not that the prior lies far away."""
    from dpposterior.mechanisms.registry import get_mechanism

    mech = type(get_mechanism("geometric"))
    real = mech.local_posterior

    def zero(self, plan, a, n, params, released):
        counts, logw, size, bound = real(self, plan, a, n, params, released)
        return counts, np.full(logw.shape, -np.inf), size, bound

    monkeypatch.setattr(mech, "local_posterior", zero)
    with pytest.raises(SizeError, match="likelihood is 0 at every data set near it") as exc:
        noise_aware_posterior("geometric", np.ones(3), [400_000, 300_000, 300_000], epsilon=1.0)
    assert "\n" not in str(exc.value) and "far from" not in str(exc.value)
