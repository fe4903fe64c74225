"""The CLI's structure: one dispatch table, no import circle, the auditor's core imports no mechanism,
required flags shown as required, Ctrl-C, strict JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import dpposterior
from dpposterior import InputError, cli
from dpposterior.cli.main import COMMANDS, command_summary

from .helpers import run

SRC = Path(dpposterior.__file__).parent


def test_every_subcommand_is_one_table_entry():
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    assert list(sub.choices) == list(cli.COMMANDS) and {"pmf", "privacy", "release", "audit"} <= set(cli.COMMANDS)


def test_a_new_subcommand_is_one_parser_one_handler_one_entry(monkeypatch, capsys):
    def add_hello(p):
        """say hello"""
        p.add_argument("--name", required=True)

    def cmd_hello(args):
        print(f"hello {args.name}")

    monkeypatch.setitem(cli.COMMANDS, "hello", (add_hello, cmd_hello))
    assert cli.main(["hello", "--name", "x"]) == 0
    assert capsys.readouterr().out == "hello x\n"
    assert cli.main(["hello"]) == 2
    assert "--name" in capsys.readouterr().err


@pytest.mark.parametrize("command, required", [
    ("pmf", ["--prior A1,A2,...", "--mechanism ID", "--epsilon EPS", "--counts C1,C2,..."]),
    ("privacy", ["--prior A1,A2,...", "--mechanism ID", "--epsilon EPS", "--n N"]),
    ("release", ["--prior A1,A2,...", "--mechanism ID", "--epsilon EPS", "(--counts C1,C2,... | --data CSV)"]),
    ("audit", ["--prior A1,A2,...", "--mechanism ID", "--epsilon EPS", "--n N"]),
    ("ledger", ["{show,create,raise}", "FILE"]),
])
def test_usage_shows_required_flags_as_required(command, required):
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    usage = " ".join(sub.format_usage().split())
    for flag in required:
        assert f" {flag}" in usage and f"[{flag}" not in usage, (flag, usage)
    assert "[--json]" in usage  # optional flags stay in brackets


def test_ctrl_c_exits_130_with_one_line(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli.COMMANDS, "pmf", (cli.add_pmf, interrupted))
    rc = cli.main(["pmf", "--prior", "1,1", "--counts", "1,1", "--mechanism", "ehds", "--epsilon", "1"])
    err = capsys.readouterr().err
    assert rc == 130 and err == "dpposterior: interrupted\n"


def strict_loads(text: str):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def test_python_m_dpposterior_and_a_bare_command_print_the_help():
    """``python -m dpposterior`` runs the CLI; with no arguments it prints the help on stdout, then the one-line
    error on stderr, status 2 (``main([])`` called from Python keeps the one-line contract: see test_cli)."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "dpposterior"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout.startswith("usage: dpposterior")
    assert all(name in proc.stdout for name in cli.COMMANDS)
    assert proc.stderr == "dpposterior: error: a command is required: " + ", ".join(cli.COMMANDS) + "\n"
    proc = subprocess.run([sys.executable, "-m", "dpposterior", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == f"dpposterior {dpposterior.__version__}\n"


def test_the_cli_and_compare_ask_the_registries():
    """cli/ and ranking.py branch on no mechanism id, family or class, resolve no mechanism themselves, and take
    every budget's default from the budget registry."""
    import re

    from dpposterior.mechanisms import MECHANISM_IDS

    resolved = 0
    for path in [*(SRC / "cli").rglob("*.py"), SRC / "ranking.py"]:
        text = path.read_text()
        assert "family" not in text and "calibratable" not in text, path
        assert "DEFAULT_MAX_" not in text and not re.search(r'limit_setting\("\w+",', text), path
        assert not re.search(r"(?<![.\w])resolve\(", text), path
        resolved += text.count("ReleaseSpec.of(")
        assert not any(f'"{mid}"' in text or f"'{mid}'" in text for mid in MECHANISM_IDS), path
    assert resolved == 1  # the ReleaseSpec of cli.options.mechanism_spec


def test_the_mechanism_flags_are_one_variant_resolved_once():
    from dpposterior.cli.options import calibration_json, claim_of, variant_params
    from dpposterior.mechanisms import ReleaseSpec

    def spec(*flags):
        args = cli.build_parser().parse_args(["pmf", "--prior", "1,1", "--counts", "4,4", "--epsilon", "1", *flags])
        return variant_params(args)

    with pytest.raises(InputError, match="--objective applies to optimal and lattice only"):  # refused, no longer ignored
        spec("--mechanism", "ehds", "--calibrate", "--objective", "average")
    s = spec("--mechanism", "ehds", "--calibrate")
    assert str(s.variant) == "ehds~calibrated" and s.mechanism is ReleaseSpec.of("ehds", 1.0, calibrate=True).mechanism
    assert claim_of(s) == (1.0, 0.0) and set(calibration_json(s, [1.0, 1.0], 8)) == {"factor", "concrete_epsilon"}
    s = spec("--mechanism", "optimal", "--objective", "average")
    assert str(s.variant) == "optimal~average" and s.objective == "average"
    assert calibration_json(s, [1.0, 1.0], 8) is None
    with pytest.raises(InputError, match="--delta applies to mh-delta only"):
        spec("--mechanism", "mh", "--delta", "1e-5")
    s = spec("--mechanism", "mh")
    assert str(s.variant) == "mh" and claim_of(s) == (2.0, 0.0) and s.calibrate is False


def test_every_command_summary_is_a_whole_short_sentence(capsys):
    """``dpposterior --help`` shows each command's summary whole: one sentence, capitalised, ending with a period."""
    code, out, _ = run(capsys, "--help")
    listing = " ".join(out.split())
    for name, (add_arguments, _) in COMMANDS.items():
        summary = command_summary(add_arguments)
        assert summary and summary[0].isupper() and summary.endswith(".") and summary.count(". ") == 0, name
        assert len(summary) <= 64 and f"{name} {summary}" in listing, name
