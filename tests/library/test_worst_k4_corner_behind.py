"""k = 4, eps 0.75 to 0.95: ``worst`` reads the local Bayes remap from n = 21 at eps 0.75, and from n = 20, 13, 12 and
13 at the working eps of 0.8, 0.85, 0.9 and 0.95 (:data:`~dpposterior.mechanisms.lattice.CORNER_BEHIND_K4`), where the
corner release was measured behind it (``benchmarks/worst_k4_routes_eps075.json``,
``benchmarks/worst_k4_routes_eps08_095.json``).

* the law picks, at every recorded n, the release with the lower worst case (a law without an eps's entry picks the
  corner table where it is behind, and one with its edge a step earlier or later picks the wrong release there);
* from the edge the worst release is ``lattice~average``'s (the same key, the same errors' route), and its noise-aware
  posterior is admitted at the default limits where the corner route's column was refused (eps 0.75, n = 32 to 42;
  0.8 to 0.95, n = 34 to 46);
* the rule reads its eps exactly: another eps keeps its law.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from dpposterior.limits import LIMITS, Task
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORD = json.loads((ROOT / "benchmarks" / "worst_k4_routes_eps075.json").read_text(encoding="utf-8"))
LATER = json.loads((ROOT / "benchmarks" / "worst_k4_routes_eps08_095.json").read_text(encoding="utf-8"))
POINTS = RECORD["points"] + LATER["points"]
#: The measured edges: at each claimed eps, the first n with the corner release behind (at the n before it, ahead).
EDGES = {0.75: 21, 0.8: 20, 0.85: 13, 0.9: 12, 0.95: 13}
ONES = np.ones(4)
WORST = ReleaseSpec.of("lattice", 0.75, objective="worst")


@pytest.fixture(autouse=True)
def _default_limits(monkeypatch):
    for name in LIMITS:
        monkeypatch.delenv(name, raising=False)


def _law_misses() -> list[str]:
    """The recorded n where the law's release is not the one with the lower worst case."""
    out = []
    for row in POINTS:
        n, eps = row["n"], row["eps"]
        corner_ahead = row["worst"]["worst"] <= row["average"]["worst"]
        if L.corners_fit(n, 4, L.working_epsilon(eps, 4)) != corner_ahead:
            out.append(f"n = {n}: corner {row['worst']['worst']} against {row['average']['worst']}")
    return out


def test_the_record_spans_both_sides_of_the_crossing():
    ns = {r["n"] for r in RECORD["points"] if r["eps"] == 0.75}
    assert {16, 18, 20, 21, 22, 30, 42} <= ns
    assert any(r["worst"]["worst"] <= r["average"]["worst"] for r in RECORD["points"])
    assert any(r["worst"]["worst"] > r["average"]["worst"] for r in RECORD["points"])
    # and at another symmetric prior the corner table is behind too
    other = RECORD["other_prior"]
    assert other["worst"]["worst"] > other["average"]["worst"]


@pytest.mark.parametrize("eps", [0.8, 0.85, 0.9, 0.95])
def test_the_later_record_spans_each_edge_and_the_corner_solves_reach(eps):
    """At each eps the record holds the n before the edge (the corner release ahead) and the edge (behind), and n = 44
    or more (the corner solve fits to n = 46 to 51 there); behind on the average at every n measured."""
    rows = {r["n"]: r for r in LATER["points"] if r["eps"] == eps}
    n0 = EDGES[eps]
    assert rows[n0 - 1]["worst"]["worst"] <= rows[n0 - 1]["average"]["worst"]
    assert rows[n0]["worst"]["worst"] > rows[n0]["average"]["worst"]
    assert max(rows) >= 44
    assert all(r["worst"]["average"] > r["average"]["average"] for r in rows.values())


def test_the_law_reads_the_lower_worst_case_at_every_recorded_n():
    assert _law_misses() == []


def _variants():
    """The rule without each entry, and with each edge a step earlier and a step later."""
    rule = L.CORNER_BEHIND_K4
    out = [()]
    for j, (e, n0) in enumerate(rule):
        out.append(rule[:j] + rule[j + 1:])
        out += [rule[:j] + ((e, n0 + d),) + rule[j + 1:] for d in (-1, 1)]
    return out


def test_the_rule_holds_the_measured_edges():
    assert {round(e, 5): n0 for e, n0 in L.CORNER_BEHIND_K4} == {round(L.working_epsilon(e, 4), 5): n0
                                                                 for e, n0 in EDGES.items()}


@pytest.mark.parametrize("behind", _variants())
def test_the_law_without_the_rule_or_with_another_edge_misses(monkeypatch, behind):
    monkeypatch.setattr(L, "CORNER_BEHIND_K4", behind)
    assert _law_misses()


def test_from_n_21_the_worst_release_is_the_average_ones():
    average = WORST.averaged()
    assert L.LATTICE.uses_corners(20, 4, WORST, ONES)
    for n in (21, 30, 42, 45):
        assert not L.LATTICE.uses_corners(n, 4, WORST, ONES)
        assert L.LATTICE.release_key(ONES, n, WORST) == L.LATTICE.release_key(ONES, n, average)
        assert L.LATTICE.plan(Task.ERRORS, WORST, ONES, n).route == L.LATTICE.plan(Task.ERRORS, average, ONES, n).route


@pytest.mark.parametrize("n", [32, 36, 42])
def test_the_worst_posterior_is_admitted_where_the_corner_column_was_refused(monkeypatch, n):
    plan = L.LATTICE.plan(Task.POSTERIOR, WORST, ONES, n)
    assert not plan.refused(), plan.refused()
    monkeypatch.setattr(L, "CORNER_BEHIND_K4", ())
    assert L.LATTICE.plan(Task.POSTERIOR, WORST, ONES, n).refused()


@pytest.mark.parametrize("eps, n", [(0.8, 34), (0.8, 46), (0.85, 40), (0.9, 38), (0.9, 46), (0.95, 36), (0.95, 46)])
def test_later_the_worst_posterior_is_admitted_where_the_corner_column_was_refused(monkeypatch, eps, n):
    spec = ReleaseSpec.of("lattice", eps, objective="worst")
    assert not L.LATTICE.uses_corners(n, 4, spec, ONES)
    assert L.LATTICE.release_key(ONES, n, spec) == L.LATTICE.release_key(ONES, n, spec.averaged())
    plan = L.LATTICE.plan(Task.POSTERIOR, spec, ONES, n)
    assert not plan.refused(), plan.refused()
    monkeypatch.setattr(L, "CORNER_BEHIND_K4", ())
    assert L.LATTICE.plan(Task.POSTERIOR, spec, ONES, n).refused()


def test_another_eps_keeps_its_law():
    """The rule reads each eps exactly (where it was measured): at the working eps 0.6 and 0.7, and at eps 0.9 itself
    (not a working eps at k = 4), the corner table is read at n = 30 as before; at 0.75 only from n = 21, at the working
    eps 0.9 only to n = 11."""
    for eps in (L.working_epsilon(0.6, 4), L.working_epsilon(0.7, 4), 0.9):
        assert L.corners_fit(30, 4, eps)
    assert [L.corners_fit(n, 4, 0.75) for n in (20, 21, 42, 43)] == [True, False, False, False]
    assert [L.corners_fit(n, 4, L.working_epsilon(0.9, 4)) for n in (11, 12, 49, 50)] == [True, False, False, False]
