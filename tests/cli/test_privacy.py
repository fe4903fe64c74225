"""`dpposterior privacy`: the exact concrete epsilon, worst case and local."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpposterior.privacy import concrete_epsilon

from .helpers import EHDS, refused, run, run_json


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


@pytest.mark.parametrize("prior, n, mechanism", [("1,1,1", 5, "geometric"), ("1,1", 5, "geometric"),
                                                 ("1,1,1,1", 4, "geometric"), ("1,1", 3, "lshist"),
                                                 ("1,1,1", 5, "lshist"), ("1,1,1", 5, "lszhang")])
def test_no_false_alarm_at_tiny_epsilon_and_the_tolerance_is_shown(capsys, prior, n, mechanism):
    code, out, err = run(capsys, "privacy", "--prior", prior, "--n", str(n), "--mechanism", mechanism, "--epsilon", "1e-6")
    assert code == 0 and "EXCEEDS" not in out and "tolerance" in out, out + err


def test_privacy_json_states_the_tolerance(capsys):
    code, out, _ = run(capsys, "privacy", "--prior", "1,1", "--n", "5", "--mechanism", "geometric", "--epsilon", "1e-6",
                       "--json")
    body = json.loads(out)
    assert code == 0 and 0 < body["tolerance"] < 1e-10


def test_privacy_still_advises_at(capsys):
    refused(["privacy", "--prior", "1,1,1", "--n", "300", *EHDS], capsys, "use --at")
