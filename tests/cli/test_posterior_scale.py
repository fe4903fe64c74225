"""`release --noise-aware` and `posterior --from-release` at k = 3, n = 1e6, end to end (noise_aware, "Routes")."""

from __future__ import annotations

import json

import numpy as np

from .helpers import assert_clean_refusal, run_case

BIG = ["--prior", "1,1,1", "--counts", "400000,300000,300000", "--epsilon", "1", "--seed", "3"]


def test_geometric_release_and_posterior_at_a_million():
    code, out, err, _ = run_case(["release", *BIG, "--mechanism", "geometric", "--noise-aware", "--json"])
    assert code == 0, err[-2000:]
    rel = json.loads(out)
    post = rel["noise_aware"]
    assert post["route"] == "local sum" and 0 < post["dropped_mass_bound"] < 1e-12
    m = np.array(rel["released_counts"])
    assert np.allclose(post["mean"], (1 + m) / (3 + 10**6), atol=2e-5)
    code, again, err, _ = run_case(["posterior", "--from-release", "-", "--json"], stdin=out.encode())
    assert code == 0, err[-2000:]
    got = json.loads(again)
    assert got["mean"] == post["mean"] and got["intervals"] == post["intervals"]
    assert got["dropped_mass_bound"] == post["dropped_mass_bound"]


def test_optimal_average_at_a_million_releases_and_its_posterior_refuses_in_one_line():
    """The release runs (the lattice release's local search); its noise-aware posterior needs the remap at every
    point of a window of R(n)'s size and is refused before anything is drawn or charged, in one line."""
    code, out, err, _ = run_case(["release", *BIG, "--mechanism", "optimal", "--objective", "average", "--json"])
    assert code == 0, err[-2000:]
    code, out2, err2, _ = run_case(["release", *BIG, "--mechanism", "optimal", "--objective", "average",
                                    "--noise-aware"])
    assert_clean_refusal(code, out2, err2, "window column")
    code, out3, err3, _ = run_case(["posterior", "--from-release", "-"], stdin=out.encode())
    assert_clean_refusal(code, out3, err3, "window column")


def test_optimal_at_n120_average_releases_with_its_posterior_and_worst_refuses_in_one_line():
    """k = 3, n = 120, eps = 2: the average release and its posterior from the window column (the batched local
    search); the worst objective's release (the corner remap past its window's) has no column yet: with --noise-aware
    it is refused in one line, before anything is drawn, and never given the local search's likelihood."""
    argv = ["release", "--prior", "1,1,1", "--counts", "40,40,40", "--mechanism", "optimal", "--epsilon", "2",
            "--seed", "5", "--noise-aware", "--json"]
    code, out, err, _ = run_case([*argv, "--objective", "average"])
    assert code == 0, err[-2000:]
    post = json.loads(out)["noise_aware"]
    assert post["route"] == "window column" and 0 < post["dropped_mass_bound"] < 1e-3
    code, out, err, _ = run_case([*argv, "--objective", "worst"])
    assert_clean_refusal(code, out, err, "the column of the corner remap")
    code, out, err, _ = run_case([a for a in argv if a != "--noise-aware"] + ["--objective", "worst"])
    assert code == 0, err[-2000:]  # the release itself runs
