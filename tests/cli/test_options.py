"""The shared options (dpposterior.cli.options): number syntax, negative values, --calibrate, the mechanism variant
and the settings a mechanism reads or would ignore."""

from __future__ import annotations

import json
import re

import pytest

from dpposterior.calibration import calibration
from dpposterior.cli.main import build_parser
from dpposterior.privacy import concrete_epsilon

from .helpers import EHDS, REL, assert_clean_refusal, refused, run, run_case, run_json


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


@pytest.mark.parametrize("command", [["release", "--counts", "3,4", "--seed", "1"], ["pmf", "--counts", "3,4"],
                                     ["privacy", "--n", "5"], ["accuracy", "--n", "5"],
                                     ["posterior", "--released", "3,4"]])
@pytest.mark.parametrize("mechanism, flag, value, readers", [
    ("ehds", "--objective", "average", "optimal and lattice"), ("ehds", "--objective", "worst", "optimal and lattice"),
    ("geometric", "--gamma", "7", "ehds"), ("ehds", "--delta", "0.3", "mh-delta"),
    ("ehds", "--global-sensitivity", "paper", "ehd"), ("lshist", "--global-sensitivity", "exact", "ehd"),
])
def test_a_setting_the_mechanism_ignores_is_refused_on_the_command_line(capsys, command, mechanism, flag, value,
                                                                        readers):
    argv = [command[0], "--prior", "1,1", *command[1:], "--mechanism", mechanism, "--epsilon", "1", flag, value]
    refused(argv, capsys, f"{flag} applies to {readers} only, not '{mechanism}'")


@pytest.mark.parametrize("mechanism, flag, value", [("ehds", "--gamma", "2"), ("mh-delta", "--delta", "0.001"),
                                                    ("ehd", "--global-sensitivity", "paper")])
def test_a_setting_the_mechanism_reads_is_still_accepted(capsys, mechanism, flag, value):
    base = run(capsys, "pmf", "--prior", "1,1", "--counts", "3,4", "--mechanism", mechanism, "--epsilon", "1", "--json")
    code, out, err = run(capsys, "pmf", "--prior", "1,1", "--counts", "3,4", "--mechanism", mechanism, "--epsilon", "1", flag,
                         value, "--json")
    assert base[0] == code == 0 and err == "" and out != base[1]  # given and read: it changes the answer


def test_optimal_objective_flag_still_works(capsys):
    argv = ["pmf", "--prior", "1,1", "--counts", "2,1", "--mechanism", "optimal", "--epsilon", "1", "--objective"]
    code, out, err = run(capsys, *argv, "average")
    assert code == 0 and err == "", err
    worst = run(capsys, *argv, "worst")
    assert worst[0] == 0 and worst[1] != out  # read: the average table is not the worst-case one


@pytest.mark.parametrize("argv, needle", [
    (["posterior", "--prior", "1,1", "--released", "-1,5", *EHDS], "released counts must be non-negative"),
    (["pmf", "--prior", "-inf,1", "--counts", "3,4", *EHDS], "got '-inf,1'"),
    (["pmf", "--prior", "1,1", "--counts", "3,4", "--mechanism", "ehds", "--epsilon", "-e"], "epsilon"),
    (["pmf", "--prior", "1,1", "--counts", "-1,5", *EHDS], "counts must be non-negative"),
    (["privacy", "--prior", "1,1", "--n", "5", *EHDS, "--at", "-1,6"], "non-negative"),
    (["pmf", "--prior", "1,1", "--counts", "3,4", *EHDS, "--top", "-3"], "--top"),
])
def test_negative_values_parse_the_same_way_on_every_flag(capsys, argv, needle):
    line = refused(argv, capsys, needle)
    assert "expected one argument" not in line


def test_a_flag_after_a_flag_is_still_missing_its_value(capsys):
    refused(["pmf", "--prior", "--counts", "3,4", *EHDS], capsys, "expected one argument")


def test_every_value_flag_of_every_command_is_covered():
    from dpposterior.cli.main import _flags

    value, every = _flags(build_parser())
    assert {"--released", "--level", "--column", "--data", "--objective", "--sort", "--search", "--mechanism",
            "--global-sensitivity", "--prior", "--counts"} <= value
    assert "--json" not in value and "--json" in every


def _delta_sentences(name: str) -> list[str]:
    """The sentences of README.md or docs/NAME that say what a delta given to a pure-eps mechanism does."""
    from .helpers import ROOT

    text = " ".join((ROOT / name).read_text(encoding="utf-8").split())
    return [s for s in re.split(r"(?<=\.) (?=[A-Z`])", text) if "pure-eps mechanism" in s and "delta" in s]


@pytest.mark.parametrize("name", ["README.md", "docs/cli.md"])
def test_docs_say_what_a_delta_on_a_pure_eps_mechanism_does(capsys, name):
    """The docs' sentences against the behaviour: the command line refuses ``--delta`` on a pure-eps mechanism,
    the Python API ignores ``delta=`` there with a warning."""
    import dpposterior as dp

    said = _delta_sentences(name)
    cli = [s for s in said if "`--delta`" in s]
    api = [s for s in said if "`delta=`" in s]
    assert cli and api
    code, out, err = run(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "geometric",
                         "--epsilon", "1", "--delta", "1e-6", "--seed", "1")
    refuses = code == 2 and out == "" and "--delta" in err
    assert refuses and all("refused" in s and "ignored" not in s for s in cli)
    with pytest.warns(dp.PrivacyWarning, match="delta"):
        r = dp.release("geometric", [1, 1], [40, 60], epsilon=1.0, delta=1e-6)
    assert r.guarantee.startswith("1-DP")
    assert all(re.search(r"ignore[sd]", s) and "warning" in s for s in api)


def test_objective_help_names_the_mechanisms_that_read_it(capsys):
    # the same readers as the refusal above: the help is computed from the registry, not written by hand
    with pytest.raises(SystemExit):
        build_parser().parse_args(["release", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--objective {worst,average} optimal and lattice only: minimise the worst-case" in text


def test_audit_takes_the_variant_options_as_the_api_does(capsys):
    """``audit --objective average`` audits lattice~average, as dp.audit_mechanism(..., objective='average') does
    (docs/cli.md: every mechanism command takes --objective and --calibrate)."""
    import dpposterior as dp

    args = ["audit", "--prior", "1,1,1", "--n", "6", "--mechanism", "lattice", "--epsilon", "1", "--samples", "2000",
            "--seed", "1"]
    cli = run_json(capsys, *args, "--objective", "average")
    api = dp.audit_mechanism("lattice", [1, 1, 1], 6, epsilon=1, objective="average", samples=2000, seed=1)
    assert (cli["epsilon_lower_bound"], cli["pair"]) == (api.epsilon_lower_bound, api.pair)
    worst = run_json(capsys, *args)  # the default objective is another release: another bound at this seed
    assert worst["epsilon_lower_bound"] != cli["epsilon_lower_bound"]
    calibrated = run_json(capsys, "audit", "--prior", "1,1", "--n", "6", "--mechanism", "ehds", "--calibrate",
                          "--epsilon", "1", "--samples", "2000", "--seed", "1")
    assert calibrated["exact_concrete_epsilon"] <= 1 + 1e-9
    code, _, err = run(capsys, *args[:6], "geometric", *args[7:], "--objective", "average")
    assert code == 2 and "--objective applies to optimal and lattice only" in err


def test_every_mechanism_command_takes_the_variant_options():
    """docs/cli.md: every mechanism command takes --calibrate and --objective (a variant one command cannot
    name is a variant it cannot check)."""
    import argparse

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        flags = {s for a in p._actions for s in a.option_strings}
        if "--mechanism" in flags:
            assert {"--calibrate", "--objective"} <= flags, name
