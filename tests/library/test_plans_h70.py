"""Plans under (or far over) their runs, second pass (``benchmarks/plans_h70.json``, ``benchmarks/plans_h70.py``):

* the three-corner LP's constants (:data:`CORNER_JOINT_SECONDS`, :data:`CORNER_JOINT_BYTES`), fitted at k = 3 only,
  read at k = 3 only: :func:`_corners_joint` is False at every other k, and no k = 4 or 5 corner plan moved (both
  trees' plans over a grid of n and eps, by SHA-256)."""

from __future__ import annotations

import json
import pathlib

import pytest

from dpposterior.mechanisms import lattice as L

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORD = json.loads((ROOT / "benchmarks" / "plans_h70.json").read_text(encoding="utf-8"))
EPSILONS = (0.25, 0.5, 0.75)
NS = (10, 15, 20, 30, 40, 50, 70, 100, 150, 160, 170, 200, 300, 500, 700, 1000)


@pytest.mark.parametrize("k", [2, 4, 5])
def test_the_joint_corner_lp_is_planned_at_k_3_only(k):
    """At k = 2, 4, 5 the corners at small n are not apart (:func:`~dpposterior.lattice.corners.corners_apart` false:
    k = 4 and 5 at n = 10 to 100 for every eps here), yet :func:`_corners_joint` says False: its constants were fitted
    at k = 3 only."""
    assert not any(L._corners_joint(n, k, eps) for eps in EPSILONS for n in NS)


def test_the_joint_corner_lp_is_still_planned_at_k_3():
    """k = 3, eps 0.5: the corners not apart to n = 160 (the three-corner LP's fit), apart from n = 170."""
    assert all(L._corners_joint(n, 3, 0.5) for n in (10, 30, 50, 100, 160))
    assert not any(L._corners_joint(n, 3, 0.5) for n in (170, 300, 1000))


@pytest.mark.parametrize("k", [4, 5])
def test_no_k4_or_k5_corner_plan_reads_the_joint_term(k):
    """k >= 4 plans its corner solve by its own terms before the joint term is reached, so ``law`` (with or without
    the three-corner LP's constants) gives the same plan at every cell of the grid (a reachable case where the guard
    changes a plan does not exist; the guard is tested directly above)."""
    for eps in EPSILONS:
        for n in (10, 30, 100, 300, 1000):
            for sym in (True, False):
                assert L.corner_seconds(n, k, eps, sym) == L.corner_seconds(n, k, eps, sym, law=True)
                assert L.corner_bytes(n, k, eps, sym) == L.corner_bytes(n, k, eps, sym, law=True)


def test_the_recorded_grid_moved_no_k4_or_k5_plan():
    """Both trees' corner plans (seconds and bytes, a symmetric prior and not, ``law`` either) at k = 4 and 5, eps
    0.25/0.5/0.75, n 10 to 1,000: the same SHA-256, nothing moved."""
    for k in ("4", "5"):
        g = RECORD["grid"][k]
        assert g["cells"] == len(EPSILONS) * len(NS) * 4
        assert g["sha256_old"] == g["sha256_new"] and g["moved"] == [], k
