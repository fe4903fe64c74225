"""The shared options (dpposterior.cli.options): number syntax, --calibrate, the mechanism variant."""

from __future__ import annotations

import json

import pytest

from dpposterior.calibration import calibration
from dpposterior.privacy import concrete_epsilon

from .helpers import REL, assert_clean_refusal, run, run_case, run_json


@pytest.mark.parametrize("flag, value, needle", [
    ("--epsilon", "1_0", "epsilon"),
    ("--seed", "1_0", "seed"),
    ("--seed", "1e30", "seed"),
    ("--seed", "2.5", "seed"),
    ("--epsilon", "\u0661", "epsilon"),  # ARABIC-INDIC DIGIT ONE
    ("--epsilon", "\uff11", "epsilon"),  # FULLWIDTH DIGIT ONE
    ("--epsilon", "inf", "epsilon"),
    ("--counts", "\u0665,5", "counts"),
    ("--counts", "5_0,5", "counts"),
    ("--prior", "1,\u0661", "prior"),
    ("--seed", "9" * 5000, "seed"),
])
def test_loose_number_syntax_is_refused(flag, value, needle):
    argv = {"--prior": "1,1", "--counts": "5,5", "--mechanism": "ehds", "--epsilon": "1", "--seed": "1"} | {flag: value}
    code, out, err, _ = run_case(["release", *[x for kv in argv.items() for x in kv]])
    assert_clean_refusal(code, out, err, needle)


@pytest.mark.parametrize("argv, needle", [
    (["audit", "--prior", "1,1", "--n", "10", "--mechanism", "ehds", "--epsilon", "1", "--samples", "1_000",
      "--seed", "1"], "--samples"),
    (["privacy", "--prior", "1,1", "--n", "1_0", "--mechanism", "ehds", "--epsilon", "1"], "n must be"),
    (["privacy", "--prior", "1,1", "--n", "1e16", "--mechanism", "ehds", "--epsilon", "1"], "n must be"),
    (["pmf", "--prior", "1,1", "--counts", "2,2", "--mechanism", "ehds", "--epsilon", "1", "--top", "\u0661"],
     "--top"),
])
def test_loose_integers_refused_in_every_command(argv, needle):
    code, out, err, _ = run_case(argv)
    assert_clean_refusal(code, out, err, needle)


def test_plain_forms_still_accepted(capsys):
    from dpposterior.cli import main

    assert main(["privacy", "--prior", "1,1", "--n", "1e2", "--mechanism", "ehds", "--epsilon", "1e0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["worst_pair"][0][0] + 0 >= 0
    assert main(["release", "--prior", " 1, 1", "--counts", "4.0,6", "--mechanism", "ehds", "--epsilon", ".5e1",
                 "--seed", "+7", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 10
    seed = str(2**128 - 1)
    assert main(["release", "--prior", "1,1", "--counts", "4,6", *REL[:-1], seed]) == 0
    capsys.readouterr()
    from dpposterior.validate import parse_int as _int_value

    assert _int_value("2.5e7", "--samples") == 25_000_000 and _int_value("1e3", "n") == 1000
    assert _int_value(str(2**53), "n") == 2**53 and _int_value("9007199254740992e0", "n") == 2**53


@pytest.mark.parametrize("cmd,extra", [("pmf", ["--counts", "6,4"]), ("release", ["--counts", "6,4", "--seed", "3"]),
                                       ("privacy", ["--n", "10"])])
def test_calibrate_adds_calibration_json(capsys, cmd, extra):
    out = run_json(capsys, cmd, "--prior", "1,1", "--mechanism", "ehds", "--epsilon", "1", "--calibrate", *extra)
    cal = calibration("ehds", [1, 1], 10, epsilon=1)
    assert out["calibration"] == {"factor": cal.factor, "concrete_epsilon": cal.concrete_epsilon}
    plain = run_json(capsys, cmd, "--prior", "1,1", "--mechanism", "ehds", "--epsilon", "1", *extra)
    assert "calibration" not in plain
    if cmd == "privacy":
        assert out["concrete_epsilon"] <= 1.0 and out["claimed"] == {"epsilon": 1.0, "delta": 0.0}
        assert out["concrete_epsilon"] == concrete_epsilon("ehds", [1, 1], 10, epsilon=1, calibrate=True).concrete_epsilon


@pytest.mark.parametrize("mech", ["lshist", "geometric", "optimal"])
def test_calibrate_non_exponential_is_one_line_error(capsys, mech):
    code, out, err = run(capsys, "accuracy", "--prior", "1,1", "--n", "10", "--mechanism", mech, "--epsilon", "1",
                         "--calibrate")
    assert code == 2 and out == "" and err.startswith("dpposterior: error: ") and err.count("\n") == 1
