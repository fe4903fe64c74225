"""The command line contract of issue 2: flags, JSON keys, values, and one-line errors (exit 2)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from dpposterior.cli import main
from dpposterior.mechanisms import log_pmf
from dpposterior.models import candidates
from dpposterior.privacy import concrete_epsilon
from dpposterior.sensitivity import PAPER_GLOBAL_SENSITIVITY, global_sensitivity

TABLE1_EXP = [0.0431193490585, 0.0785621424847, 0.158265808563, 0.340809715054, 0.37924298484]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_pmf_json_has_every_candidate_and_exact_values(capsys):
    out = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "ehds", "--epsilon", "1")
    assert set(out) == {"mechanism", "epsilon", "delta", "outputs"}
    assert (out["mechanism"], out["epsilon"], out["delta"]) == ("ehds", 1.0, 1e-8)
    rows = out["outputs"]
    assert [r["counts"] for r in rows] == candidates(8, 2).tolist()
    assert set(rows[0]) == {"counts", "alpha", "probability", "hellinger", "steps"}
    expected = np.exp(log_pmf("ehds", [1, 1], [4, 4], epsilon=1.0))
    assert np.allclose([r["probability"] for r in rows], expected, rtol=1e-12)
    assert [r["steps"] for r in rows] == [4, 3, 2, 1, 0, 1, 2, 3, 4]
    assert rows[4]["hellinger"] == 0.0 and rows[4]["alpha"] == [5.0, 5.0]
    # 000 Table 1 prints these distances for steps 4..1
    assert [round(r["hellinger"], 11) for r in rows[:4]] == [0.83737258593, 0.6621743917, 0.45763586503, 0.23362948071]


def test_pmf_options_change_the_distribution(capsys):
    base = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "ehd", "--epsilon", "1")
    paper = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "ehd", "--epsilon", "1",
                     "--global-sensitivity", "paper")
    g2 = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "ehds", "--epsilon", "1",
                  "--gamma", "2")
    g1 = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "ehds", "--epsilon", "1")
    p = lambda o: np.array([r["probability"] for r in o["outputs"]])  # noqa: E731
    # exact GS for Beta(1,1), n = 8 is below the paper constant sqrt(1 - pi/4) (attained only at n = 1),
    # so the paper constant spreads the output more
    assert global_sensitivity([1, 1], 8) < PAPER_GLOBAL_SENSITIVITY
    assert p(paper)[4] < p(base)[4]
    assert not np.allclose(p(g1), p(g2))
    md = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "mh-delta", "--epsilon", "1",
                  "--delta", "1e-3")
    assert md["delta"] == 1e-3
    assert np.allclose(p(md), np.exp(log_pmf("mh-delta", [1, 1], [4, 4], epsilon=1.0, delta=1e-3)))


def test_pmf_text_output_lists_candidates(capsys):
    code, out, _ = run(capsys, "pmf", "--prior", "1,1,1", "--counts", "1,1,0", "--mechanism", "lshist", "--epsilon", "1")
    assert code == 0
    lines = [x for x in out.splitlines() if x.strip() and not x.startswith("#")]
    assert len(lines) == 1 + 6  # header + |R(2)| for k = 3


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


def test_release_is_seeded_and_in_the_support(capsys):
    a = run_json(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "ehds", "--epsilon", "1",
                 "--seed", "7")
    b = run_json(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "ehds", "--epsilon", "1",
                 "--seed", "7")
    assert a == b
    assert sum(a["released_counts"]) == 100 and a["alpha"] == [1 + x for x in a["released_counts"]]
    assert a["seed"] == 7 and a["claimed"] == {"epsilon": 1.0, "delta": 0.0}
    assert "hellinger" not in a and "counts" not in a  # nothing about the private data besides the release
    seen = {tuple(run_json(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "lshist",
                           "--epsilon", "0.5", "--seed", str(s))["released_counts"]) for s in range(12)}
    assert len(seen) > 1


def test_release_text_is_the_posterior(capsys):
    code, out, _ = run(capsys, "release", "--prior", "0.5,0.5,2", "--counts", "1,0,0", "--mechanism", "lsdim",
                       "--epsilon", "1", "--seed", "1")
    assert code == 0 and out.startswith("Dir(")
    alpha = [float(x) for x in out.strip()[4:-1].split(",")]
    assert math.isclose(sum(alpha), 4.0)


def test_release_from_csv_records(capsys, tmp_path):
    f = tmp_path / "records.csv"
    f.write_text("id,answer\n1,yes\n2,no\n3,yes\n4,maybe\n5,yes\n")
    out = run_json(capsys, "release", "--prior", "1,1,1", "--data", str(f), "--column", "answer",
                   "--mechanism", "lshist", "--epsilon", "1", "--seed", "0")
    assert out["categories"] == ["maybe", "no", "yes"] and out["n"] == 5
    # the records count to (maybe, no, yes) = (1, 1, 3): same release as from those counts at the same seed
    same = run_json(capsys, "release", "--prior", "1,1,1", "--counts", "1,1,3", "--mechanism", "lshist",
                    "--epsilon", "1", "--seed", "0")
    assert same["released_counts"] == out["released_counts"]
    explicit = run_json(capsys, "release", "--prior", "1,1,1,1", "--data", str(f), "--column", "answer",
                        "--categories", "yes,no,maybe,unsure", "--mechanism", "ehds", "--epsilon", "1", "--seed", "4")
    ref = run_json(capsys, "release", "--prior", "1,1,1,1", "--counts", "3,1,1,0", "--mechanism", "ehds",
                   "--epsilon", "1", "--seed", "4")
    assert explicit["released_counts"] == ref["released_counts"]
    assert explicit["categories"] == ["yes", "no", "maybe", "unsure"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["pmf", "--prior", "1,1", "--counts", "-1,2", "--mechanism", "ehds", "--epsilon", "1"], "non-negative"),
        (["pmf", "--prior", "1,1", "--counts", "1.5,2", "--mechanism", "ehds", "--epsilon", "1"], "integers"),
        (["pmf", "--prior", "1,1", "--counts", "a,2", "--mechanism", "ehds", "--epsilon", "1"], "counts"),
        (["pmf", "--prior", "1,1", "--counts", "0,0", "--mechanism", "ehds", "--epsilon", "1"], "at least one record"),
        (["pmf", "--prior", "1", "--counts", "3", "--mechanism", "ehds", "--epsilon", "1"], "at least 2"),
        (["pmf", "--prior", "0,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "1"], "prior must be > 0"),
        (["pmf", "--prior", "-1,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "1"], "prior must be > 0"),
        (["pmf", "--prior", "1,1,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "1"], "prior has 3"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "foo", "--epsilon", "1"], "unknown mechanism 'foo'"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "0"], "epsilon"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "-1"], "epsilon"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "nan"], "epsilon"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "1", "--delta", "1"], "delta"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "1", "--delta", "0"], "delta"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "1", "--gamma", "0"], "gamma"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "mh", "--epsilon", "1", "--gamma", "2"], "gamma = 1"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "ehd", "--epsilon", "1",
          "--global-sensitivity", "guess"], "global sensitivity"),
        (["pmf", "--prior", "1,1,1", "--counts", "3000,3000,3000", "--mechanism", "ehds", "--epsilon", "1"],
         "|R(n)| = 40,513,501 outputs"),
        (["privacy", "--prior", "1,1,1", "--n", "2000", "--mechanism", "ehds", "--epsilon", "1"], "|R(n)|^2"),
        (["privacy", "--prior", "1,1", "--n", "0", "--mechanism", "ehds", "--epsilon", "1"], "n must be"),
        (["privacy", "--prior", "1,1", "--n", "2.5", "--mechanism", "ehds", "--epsilon", "1"], "n must be"),
        (["privacy", "--prior", "1,1", "--n", "10", "--mechanism", "ehds", "--epsilon", "1", "--at", "3,3"], "summing"),
        (["release", "--prior", "1,1", "--mechanism", "ehds", "--epsilon", "1"], "one of the arguments --counts --data is required"),
        (["release", "--prior", "1,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "1", "--seed", "x"], "seed"),
        (["release", "--prior", "1,1", "--data", "/no/such.csv", "--column", "x", "--mechanism", "ehds",
          "--epsilon", "1"], "no such file"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "ehds"], "--epsilon"),
        (["pmf", "--prior", "1,1", "--counts", "1,2", "--mechanism", "ehds", "--epsilon", "1", "--bogus"], "--bogus"),
        ([], "a command is required"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("dpposterior: error: ")
    assert message in err


def test_csv_errors(capsys, tmp_path):
    f = tmp_path / "r.csv"
    f.write_text("answer\nyes\n\nno\n")
    g = tmp_path / "s.csv"
    g.write_text("answer\nyes\nno\n")
    cases = [
        (["--data", str(g)], "--column"),
        (["--data", str(g), "--column", "other"], "no column 'other'"),
        (["--data", str(g), "--column", "answer", "--categories", "yes"], "not in --categories"),
        (["--data", str(g), "--column", "answer", "--categories", "yes,yes"], "duplicates"),
    ]
    for extra, message in cases:
        code, _, err = run(capsys, "release", "--prior", "1,1", "--mechanism", "ehds", "--epsilon", "1", *extra)
        assert code == 2 and message in err and err.count("\n") == 1, (extra, err)


def test_console_script_entry_point():
    proc = subprocess.run([sys.executable, "-m", "dpposterior.cli", "pmf", "--prior", "1,1", "--counts", "1,1",
                           "--mechanism", "nope", "--epsilon", "1"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("dpposterior: error: unknown mechanism")
    assert "Traceback" not in proc.stderr
