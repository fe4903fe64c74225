"""`dpposterior privacy`: the exact concrete epsilon, worst case and local."""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior.privacy import concrete_epsilon

from .helpers import run, run_json


def test_privacy_worst_case_and_local_match_library(capsys):
    out = run_json(capsys, "privacy", "--prior", "1,1", "--n", "20", "--mechanism", "ehdl", "--epsilon", "1")
    assert set(out) == {"concrete_epsilon", "claimed", "worst_pair", "worst_output", "tolerance"}
    ref = concrete_epsilon("ehdl", [1, 1], 20, epsilon=1.0)
    assert out["concrete_epsilon"] == pytest.approx(ref.concrete_epsilon, rel=1e-12)
    assert out["claimed"] == {"epsilon": None, "delta": None}
    c, c2 = map(np.array, out["worst_pair"])
    assert np.abs(c - c2).sum() == 2 and c.sum() == c2.sum() == 20
    local = run_json(capsys, "privacy", "--prior", "1,1", "--n", "20", "--mechanism", "mh", "--epsilon", "1",
                     "--at", "10,10", "--delta-at", "0.1")
    assert local["worst_pair"][0] == [10, 10]
    assert local["claimed"] == {"epsilon": 2.0, "delta": 0.0}
    assert set(local["delta_at"]) == {"epsilon", "delta"} and local["delta_at"]["epsilon"] == 0.1
    assert 0 < local["delta_at"]["delta"] < 1
    ref = concrete_epsilon("mh", [1, 1], 20, epsilon=1.0, at=[10, 10])
    assert local["concrete_epsilon"] == pytest.approx(ref.concrete_epsilon, rel=1e-12)


def test_privacy_mh_delta_claim_and_text(capsys):
    code, out, _ = run(capsys, "privacy", "--prior", "1,1", "--n", "10", "--mechanism", "mh-delta", "--epsilon", "1",
                       "--delta", "5e-4")
    assert code == 0 and "claimed (1, 0.0005)-DP" in out and "worst pair" in out
