"""The lattice release's working eps (mechanisms/lattice.py: ``working_epsilon``, ``working_spec``, the class
decorator ``_at_working_epsilon``).

* ``working_epsilon`` is its definition (an exact-rational oracle that imports nothing from the library): at k >= 4
  the largest ``num / 2^j <= eps`` with ``j <= 20`` and ``num < 2^20``, eps itself where it has that form or where
  that falls below 0.01; at k <= 3 eps itself.  It never exceeds eps (so the release stays eps-DP) and its shifts
  are exact (the searches' clamp groups apply at Dir(1, ..., 1));
* every entry point of the release reads the working eps: a spy on the noise's radius and the noise sampler sees no
  other eps, whichever method a caller enters by (without the decorator they see the claimed eps);
* the claim is the claimed eps, and ``optimal`` past its linear program is the lattice release at the working eps.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpposterior.guarantee import claim, guarantee_text
from dpposterior.lattice.batched import exact_shift_weights
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as lattice_module
from dpposterior.mechanisms.lattice import LATTICE, working_epsilon, working_spec


def _oracle(eps: float, k: int) -> float:
    """The definition, by exact rationals: the largest ``num / 2^j <= eps`` over ``j = 0..20``, ``num < 2^20``."""
    if k < 4:
        return eps
    x = Fraction(eps)
    if x.denominator <= 2**20 and x.numerator < 2**20:
        return eps
    best = Fraction(0)
    for j in range(21):
        num = math.floor(x * 2**j)
        if num < 2**20:
            best = max(best, Fraction(num, 2**j))
    return float(best) if best >= Fraction(1, 100) else eps


@settings(max_examples=300, deadline=None)
@given(eps=st.one_of(st.floats(min_value=0.01, max_value=1000.0, allow_nan=False),
                     st.sampled_from([0.01, 0.1, 0.25, 0.3, 0.4, 0.5, 0.6, 0.75, 1.0, 1.1, 30.0, 999.9, 0.0100001])),
       k=st.integers(min_value=2, max_value=7))
def test_working_epsilon_is_its_definition(eps, k):
    w = working_epsilon(eps, k)
    assert w == _oracle(eps, k)
    assert w <= eps
    if k >= 4 and w != eps:
        assert exact_shift_weights(np.ones(k), w)
        assert eps - w < 2.0**-20 or (eps - w) / eps < 2.0**-19
    assert working_epsilon(w, k) == w  # idempotent: a working eps is its own


def test_dyadic_eps_and_small_k_keep_the_spec():
    for eps in (0.25, 0.5, 0.75, 1.0, 1.25, 2.0, 30.0):
        spec = ReleaseSpec.of("optimal", eps)
        assert working_spec(spec, 4) is spec
    spec = ReleaseSpec.of("optimal", 0.4)
    assert working_spec(spec, 3) is spec and working_spec(spec, 2) is spec
    w = working_spec(spec, 4)
    assert w.epsilon == 0.39999961853027344 and w.objective == spec.objective and w.variant == spec.variant


@pytest.fixture
def spy(monkeypatch):
    """The eps every noise radius and noise draw of the lattice release is computed at."""
    seen: list[float] = []
    radius, noise = lattice_module.radius_for, lattice_module.sample_noise

    def radius_for(k, epsilon, tol):
        seen.append(float(epsilon))
        return radius(k, epsilon, tol)

    def sample_noise(k, epsilon, size, rng=None):
        seen.append(float(epsilon))
        return noise(k, epsilon, size, rng)

    monkeypatch.setattr(lattice_module, "radius_for", radius_for)
    monkeypatch.setattr(lattice_module, "sample_noise", sample_noise)
    return seen


@pytest.mark.parametrize("mechanism", ["lattice", "optimal"])
def test_every_entry_point_reads_the_working_eps(spy, mechanism):
    # optimal past its linear program at k = 4: n = 13 (to n = 12 its LP by orbits runs)
    eps, a, counts = 0.4, np.ones(4), np.array([2, 2, 1, 1] if mechanism == "lattice" else [4, 3, 3, 3])
    n = int(counts.sum())
    spec = ReleaseSpec.of(mechanism, eps, objective="average")
    spy.clear()  # the spec's own check reads the claimed eps at k = 2 (eps >= MIN_EPSILON), where nothing changes
    w = working_epsilon(eps, 4)
    m = spec.mechanism
    assert mechanism == "lattice" or m.uses_lattice(a, n, spec)
    draw_plan = m.plan_draw(a, n, spec)
    assert not draw_plan.refused()
    released = m.sample(a, counts, spec, 1, np.random.default_rng(7))[0]
    plan = m.plan(Task.POSTERIOR, spec, a, n)
    assert not plan.refused()
    C, logw, count, bound = m.local_posterior(plan, a, n, spec, released)
    m.remap_name(a, n, spec)
    assert spy and set(spy) == {w}, sorted(set(spy))
    # the same floats as the release entered at the working eps itself
    spy.clear()
    again = m.local_posterior(m.plan(Task.POSTERIOR, working_spec(spec, 4), a, n), a, n, working_spec(spec, 4),
                              released)
    assert np.array_equal(again[0], C) and np.array_equal(again[1], logw) and (again[2], again[3]) == (count, bound)
    assert set(spy) == {w}


def test_without_the_decorator_the_claimed_eps_is_read(spy):
    """The spy can fail: the undecorated method reads the claimed eps."""
    spec = ReleaseSpec.of("lattice", 0.4, objective="average")
    spy.clear()
    LATTICE.plan_draw.__wrapped__(LATTICE, np.ones(4), 6, spec)
    assert 0.4 in spy


def test_the_claim_stays_the_claimed_eps():
    """The claim is the claimed eps (the release is ``w``-DP with ``w <= eps``, so eps-DP); the working eps is
    not claimed."""
    for mechanism in ("optimal", "lattice"):
        spec = ReleaseSpec.of(mechanism, 0.4, objective="average")
        assert claim(spec) == (0.4, 0.0) and guarantee_text(spec) == "0.4-DP"
        assert claim(working_spec(spec, 4))[0] == working_epsilon(0.4, 4) < 0.4


def _split():
    import json
    import pathlib

    bench = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
    split = {(c["epsilon"], tuple(c["released"])): c for c in json.loads((bench / "clamp_price_k4.json").read_text())["checks"]}
    return bench, split


def _search_ratios(runs, split) -> dict:
    """Each run's searches' CPU s over its check's price by the rule now (the check's counts counted at the working
    eps in ``benchmarks/clamp_price_k4.json``)."""
    out = {}
    for r in runs:
        c = split[r["epsilon"], tuple(r["released"])]
        price = lattice_module.column_orbit_seconds(
            c["rest_parts"], c["rest_orbits"], sum(r["released"]), 4, c["working_epsilon"], c["rest_faces"],
            clamp=(c["clamped"], c["keys"], c["clamp_orbits"]))
        out[r["epsilon"], tuple(r["released"])] = sum(s["cpu_seconds"] for s in r["searches"]) / price
    return out


def test_the_searches_by_clamp_groups_below_eps_half_are_priced_over_their_runs(monkeypatch):
    """The runs at the working eps over the whole tables' ball (``benchmarks/orbit_check_k4_working_s93.json``, before
    the ball was cut to ``|v_i| <= n``): every search by orbits within 0.7 of its check's price by the whole ball's rule
    (the factor at every n: ``CLAMP_LOW_EPS_CUT`` past 1); without :data:`CLAMP_LOW_EPS`' factor the two at eps 0.4
    run over it (1.39x)."""
    import json

    bench, split = _split()
    runs = [r for r in json.loads((bench / "orbit_check_k4_working_s93.json").read_text())["runs"] if r["searches"]]
    assert len(runs) == 5
    monkeypatch.setattr(lattice_module, "CLAMP_LOW_EPS_CUT", 2.0)  # the whole ball's rule
    assert max(_search_ratios(runs, split).values()) < 0.7
    monkeypatch.setattr(lattice_module, "CLAMP_LOW_EPS", (0.5, 0.0))
    over = {key for key, ratio in _search_ratios(runs, split).items() if ratio > 1.0}
    assert over == {(0.4, (5, 5, 5, 5)), (0.4, (2, 2, 2, 12))}


def test_where_the_ball_is_cut_the_searches_need_no_factor():
    """The runs over the ball cut to ``|v_i| <= n`` (``benchmarks/orbit_check_k4_ball_s94.json``: eps 0.4, n = 17 to
    23, the centre, an edge, a vertex, the two releases above among them): each at most 0.7 of its check's price
    without the factor (0.47 to 0.59), which is what the rule reads there (:func:`clamp_low_factor` is 1); the rule
    still reads the factor where the ball is whole (n past the batch radius) and below ``CLAMP_LOW_EPS_CUT``.  The
    runs of the tree before the cut, priced by the rule now, are over it: the cut is what makes it hold."""
    import json

    bench, split = _split()
    runs = [r for r in json.loads((bench / "orbit_check_k4_ball_s94.json").read_text())["runs"] if r["searches"]]
    assert {r["epsilon"] for r in runs} == {0.4} and len(runs) == 6
    w = working_epsilon(0.4, 4)
    for r in runs:
        assert lattice_module.clamp_low_factor(sum(r["released"]), 4, w) == 1.0
    ratios = _search_ratios(runs, split)
    assert max(ratios.values()) <= 0.7 and min(ratios.values()) >= 0.3, ratios
    assert lattice_module.clamp_low_factor(40, 4, w) == pytest.approx((0.5 / w) ** 3.5)
    assert lattice_module.clamp_low_factor(20, 4, working_epsilon(0.3, 4)) > 5.0
    old = [r for r in json.loads((bench / "orbit_check_k4_working_s93.json").read_text())["runs"]
           if r["searches"] and r["epsilon"] == 0.4]
    assert min(_search_ratios(old, split).values()) > 1.0
