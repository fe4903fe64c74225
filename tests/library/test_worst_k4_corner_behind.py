"""k = 4, eps 0.75: ``worst`` reads the local Bayes remap from n = 21 (:data:`~dpposterior.mechanisms.lattice.
CORNER_BEHIND_K4`), where the corner release was measured behind it (``benchmarks/worst_k4_routes_eps075.json``).

* the law picks, at every recorded n, the release with the lower worst case (a law without the rule picks the corner
  table where it is behind, and one from n = 20 where it is ahead);
* from n = 21 the worst release is ``lattice~average``'s (the same key, the same errors' route), and its noise-aware
  posterior is admitted at the default limits at n = 32 to 42, where the corner route's column was refused;
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
ONES = np.ones(4)
WORST = ReleaseSpec.of("lattice", 0.75, objective="worst")


@pytest.fixture(autouse=True)
def _default_limits(monkeypatch):
    for name in LIMITS:
        monkeypatch.delenv(name, raising=False)


def _law_misses() -> list[str]:
    """The recorded n where the law's release is not the one with the lower worst case."""
    out = []
    for row in RECORD["points"]:
        n, eps = row["n"], row["eps"]
        corner_ahead = row["worst"]["worst"] <= row["average"]["worst"]
        if L.corners_fit(n, 4, eps) != corner_ahead:
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


def test_the_law_reads_the_lower_worst_case_at_every_recorded_n():
    assert _law_misses() == []


@pytest.mark.parametrize("behind", [(), ((0.75, 20),), ((0.75, 22),)])
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


def test_another_eps_keeps_its_law():
    """The rule reads eps 0.75 exactly (where it was measured): at the working eps 0.6, at 0.8 and 0.9 the corner table
    is read at n = 30 as before, and at 0.75 only from n = 21."""
    for eps in (L.working_epsilon(0.6, 4), 0.8, 0.9):
        assert L.corners_fit(30, 4, eps)
    assert [L.corners_fit(n, 4, 0.75) for n in (20, 21, 42, 43)] == [True, False, False, False]
