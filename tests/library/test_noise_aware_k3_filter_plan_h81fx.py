"""The k = 3 noise-aware plan prices what the exact descent filter keeps (:func:`L.exact_filter_priced`: where the
plan is costed release by release): at each release of its family the filter's own cost at every point it reads
plus the searches of the share it keeps (an upper end from a fixed public subsample), and the run checks the same
rule in two stages (the filter's cost before it runs, then with what it kept before any search).

- the plan (the limit raised) at least 1.2 times every run measured with the filter (:data:`RUNS`, the whole
  ``posterior --released`` process; ``benchmarks/face_runs_filter_plan_h81fx.json``);
- the plan counts the filter's own cost (it drops by at least that cost when the cost is taken out);
- :func:`L.exact_filter_seconds` against a transcription of its definition (the ball counted by enumeration);
- the run's check refuses a filter over the limit before it runs, and at a family release its estimate is within
  the plan's;
- the cells the plan reopens or closes, each admitted cell with a measured run under the limit.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dpposterior.errors import SizeError
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L

from .test_noise_aware_k3_h73na3 import _plan  # the plan at Dir(1,1,1), its limit raised where asked

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "face_runs_filter_plan_h81fx.json"


def _runs(stopped: bool) -> list[tuple]:
    """(eps, n, released, objective, CPU s, load) of the JSON's runs (finished, or stopped at the cap)."""
    rows = json.loads(BENCH.read_text())["runs"]
    return [(r["eps"], r["n"], r["released"], r["objective"], r["cpu_s"], r["load"]) for r in rows
            if bool(r["stopped_at_cap"]) == stopped and (stopped or r["rc"] in (0, 2))]


RUNS = _runs(False)
STOPPED = _runs(True)


def test_the_json_holds_the_runs_the_fit_needs():
    cells = {(r[0], r[1]) for r in RUNS}
    for cell in [(1.0, 10**5), (1.0, 10**6), (0.5, 1000), (0.5, 10**4), (0.3, 1000), (0.3, 10**4)]:
        assert cell in cells
    assert (0.2, 1000) in {(r[0], r[1]) for r in STOPPED}


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}-{r[3]}")
def test_the_plan_is_at_least_12x_every_run_with_the_filter(run, monkeypatch):
    eps, n, _, objective, seconds, _ = run
    raised = _plan(n, eps, objective, limit=1e6, monkeypatch=monkeypatch)
    assert not raised.refused()
    assert raised.seconds >= 1.2 * seconds, (raised.seconds, seconds)


@pytest.mark.parametrize("run", STOPPED, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}-{r[3]}")
def test_a_run_stopped_at_its_cap_sits_in_a_refused_cell(run, monkeypatch):
    eps, n, _, objective, seconds, _ = run
    assert _plan(n, eps, objective, limit=1e6, monkeypatch=monkeypatch).seconds >= seconds
    monkeypatch.delenv("DPPOSTERIOR_MAX_SOLVE_SECONDS")
    line = _plan(n, eps, objective).refused()
    assert line and "\n" not in line


def _ball_oracle(Dc: int) -> int:
    """The z of Z^3 with sum 0 and ``sum |z| / 2 <= Dc`` (the search's ball), counted one by one."""
    return sum(1 for x in range(-2 * Dc, 2 * Dc + 1) for y in range(-2 * Dc, 2 * Dc + 1)
               if abs(x) + abs(y) + abs(x + y) <= 2 * Dc)


@pytest.mark.parametrize("eps", [1.0, 0.5, 0.3])
def test_the_filters_cost_is_its_definition(eps):
    c0, c_in, c_part = L.EXACT_FILTER_SECONDS
    ball = _ball_oracle(L._radius(3, eps, 1e-12))
    assert L.exact_filter_seconds(100, 2000, 3, eps) == pytest.approx(c0 + ball * (c_in * 100 + c_part * 2000))
    assert L.exact_filter_seconds(0, 0, 3, eps) == 0.0
    # a point of R(n) costs more than a part (its own projection), and every term counts
    assert c0 > 0 and c_in > c_part > 0


@pytest.mark.parametrize("eps, n, released", [(1.0, 10**5, (0, 50000, 50000)), (0.5, 10**4, (1, 5000, 4999))])
def test_the_plan_counts_the_filters_own_cost(eps, n, released, monkeypatch):
    """At a family release, taking the filter's cost out of the rule lowers the release's estimate by at least the
    cost at the parts and points the plan counts: a plan that drops it fails."""
    a = np.ones(3)
    Dc, W = L._radius(3, eps, 1e-12), L.LATTICE.column_radius(n, 3, eps)
    assert L.exact_filter_priced(n, 3, eps)
    parts, left, seconds = L.sampled_release_cost(a, n, eps, Dc, W, np.array(released))
    cost = L.exact_filter_seconds(left, parts, 3, eps)
    assert cost > 0.3  # thousands of parts: the cost weighs
    monkeypatch.setattr(L, "exact_filter_seconds", lambda *args: 0.0)
    without = L.sampled_release_cost(a, n, eps, Dc, W, np.array(released))[2]
    assert seconds - without >= cost * (1 - 1e-9)


def test_the_kept_share_is_an_upper_end_and_the_same_at_every_call():
    """The subsample's share at its 99 % upper end: above the share kept on the whole sample; the same floats twice."""
    from dpposterior.lattice.batched import descent_filter_exact
    from dpposterior.lattice.column import _filtered_sample_points

    a, n, eps, r = np.ones(3), 10**5, 1.0, np.array([0, 50000, 50000])
    Dc, W = L._radius(3, eps, 1e-12), L.LATTICE.column_radius(n, 3, eps)
    _, z, keep, _ = _filtered_sample_points(a, n, eps, Dc, W, r)
    low = np.unique(np.maximum(z[keep & ~np.all(z >= 2, axis=1)], 0), axis=0)
    assert len(low) > L.FAMILY_FILTER_POINTS[1]  # subsampled
    share = L._kept_share(a, n, eps, r, low, L.FAMILY_FILTER_POINTS[1])
    whole = float(np.count_nonzero(descent_filter_exact(a, n, eps, r, low))) / len(low)
    assert 0.05 < whole < share < 1.0
    assert share == L._kept_share(a, n, eps, r, low, L.FAMILY_FILTER_POINTS[1])


def test_the_check_refuses_the_filter_before_it_runs(monkeypatch):
    """Stage one: the filter's own cost over the limit is refused in one line, before the filter is called."""
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1")
    n, eps = 1000, 0.3
    Z = np.array([[x, y, n - x - y] for x in range(-3, 2) for y in range(0, 1000)])  # 5,000 parts (a count below 2)
    assert L.exact_filter_seconds(0, len(Z), 3, eps) > 1.0
    with pytest.raises(SizeError) as e:
        L._check_filtered(Z, None, n, 3, eps, released=np.array([3, 499, 498]))
    assert "exact descent filter" in str(e.value) and "\n" not in str(e.value)
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1e5")
    L._check_filtered(Z, None, n, 3, eps, released=np.array([3, 499, 498]))
    # stage two: the filter's cost and the searches' fixed terms where nothing is kept; everything kept costs more
    none = np.zeros(len(Z), dtype=bool)
    alone = L.filtered_release_seconds(0, len(Z), 0, 0, 1000, 3, eps, released=np.array([3, 499, 498]))
    assert alone >= L.exact_filter_seconds(0, len(Z), 3, eps)
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", str(alone * 1.001))
    L._check_filtered(Z, none, n, 3, eps, released=np.array([3, 499, 498]))
    with pytest.raises(SizeError):
        L._check_filtered(Z, ~none, n, 3, eps, released=np.array([3, 499, 498]))


def test_the_runs_check_at_a_family_release_is_within_the_plan(monkeypatch):
    """eps 1, n = 1e5 at the face's plateau release (0, 50000, 50000): the run's check (both stages) states at most
    the plan's estimate at that release and the plan's seconds."""
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1e5")
    a, n, eps, r = np.ones(3), 10**5, 1.0, np.array([0, 50000, 50000])
    seen = []
    real = L.filtered_release_seconds

    def recorded(*args, **kw):
        seen.append(real(*args, **kw))
        return seen[-1]

    spec = ReleaseSpec.given("optimal", epsilon=eps, objective="average")
    plan = L.LATTICE.plan_posterior(a, n, spec)
    Dc, W = L._radius(3, eps, 1e-12), L.LATTICE.column_radius(n, 3, eps)
    at_release = L.sampled_release_cost(a, n, eps, Dc, W, r)[2]
    monkeypatch.setattr(L, "filtered_release_seconds", recorded)
    L.LATTICE.local_posterior(plan, a, n, spec, r)
    assert seen and max(seen) > 0
    assert max(seen) <= at_release <= plan.seconds
