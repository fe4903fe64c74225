"""The output layer (dpposterior.cli.output): whole outputs only, numbers of any size, JSON without NaN."""

from __future__ import annotations

import ast
import json
import math
import sys
from pathlib import Path

import pytest

from dpposterior import cli
from dpposterior.cli.main import main

from .helpers import EHDS, run


def test_count_formats_ints_of_any_size():
    from dpposterior.validate import count_text as _count

    assert _count(12_507_501) == "12,507,501"
    assert _count(10**15) == "~1.0e+15"
    assert _count(999 * 10**4997) == "~1.0e+5000"  # rounds up to the next power of ten
    assert _count(123 * 10**40000) == "~1.2e+40002"


def test_an_estimated_count_carries_one_tilde():
    """An estimate reads ``~3.4e+23`` or ``~12,507``, never ``~~3.4e+23`` (count_text already marks a rounded
    count), and no message puts its own ``~`` before count_text."""
    import pathlib

    from dpposterior.validate import approx_count_text

    assert approx_count_text(12_507) == "~12,507"
    assert approx_count_text(34 * 10**22) == "~3.4e+23"
    src = pathlib.Path(__file__).resolve().parents[2] / "src" / "dpposterior"
    doubled = [str(p.relative_to(src)) for p in src.rglob("*.py") if "~{count_text(" in p.read_text()]
    assert doubled == []


def test_estimates_print_as_counts_and_no_message_formats_them_by_hand(capsys):
    """An estimate (seconds, megabytes) far past any run (a refused size) prints as ``~1.8e+37``, not 38 digits: every
    message formats its estimates with estimate_text, none with a ``~{...:.0f}`` of its own."""
    import pathlib
    import re

    from dpposterior.validate import estimate_text

    assert estimate_text(55.4) == "~55"
    assert estimate_text(400_336.2) == "~400,336"
    assert estimate_text(1.77e37) == "~1.8e+37"
    assert estimate_text(float("inf")) == "~inf"
    src = pathlib.Path(__file__).resolve().parents[2] / "src" / "dpposterior"
    by_hand = [str(p.relative_to(src)) for p in src.rglob("*.py") if re.search(r"~\{[^{}]+:\.0f\}", p.read_text())]
    assert by_hand == []
    code, out, err = run(capsys, "compare", "--prior", "1,1,1,1,1,1", "--n", "3000", "--epsilon", "1")
    assert code == 2 and "~1.4e+30" not in err and not re.search(r"\d{16}", out + err)  # no row fits: one line


def test_every_command_prints_whole_outputs_only():
    """Commands that print several lines build them first: one print per output, none before the work."""

    from dpposterior import cli

    tree = ast.parse(Path(cli.__file__).read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("cmd_") and node.name != "cmd_pmf":
            prints = [c for c in ast.walk(node) if isinstance(c, ast.Call) and getattr(c.func, "id", "") == "print"
                      and not any(k.arg == "file" for k in c.keywords)]
            assert len(prints) <= 1, (node.name, [p.lineno for p in prints])


def test_every_command_module_prints_whole_outputs_only():
    """The check above, over every module of ``dpposterior/cli/commands`` (one per command)."""

    from dpposterior.cli import COMMANDS, commands

    handlers = 0
    for path in sorted(Path(commands.__file__).parent.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("cmd_"):
                handlers += 1
                if node.name == "cmd_pmf":
                    continue
                prints = [c for c in ast.walk(node) if isinstance(c, ast.Call) and getattr(c.func, "id", "") == "print"
                          and not any(k.arg == "file" for k in c.keywords)]
                assert len(prints) <= 1, (path.name, node.name, [p.lineno for p in prints])
    assert handlers == len(COMMANDS) == 8


def strict_loads(text: str):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def test_json_safe_replaces_non_finite_numbers():
    import numpy as np

    out = cli.json_safe({"a": math.inf, "b": [np.float64("nan"), np.int64(3), 1.5], "c": np.bool_(True)})
    assert out == {"a": None, "b": [None, 3, 1.5], "c": True}
    assert strict_loads(json.dumps(out, allow_nan=False)) == out


def test_audit_json_has_no_infinity(capsys):
    """The event's upper bound is +inf when the denominator count is 0: printed as null."""
    rc = cli.main(["audit", "--prior", "1,1", "--n", "10", "--mechanism", "lshist", "--epsilon", "10",
                   "--pair", "10,0:9,1", "--samples", "1000", "--seed", "1", "--json"])
    out = capsys.readouterr().out
    assert rc == 0
    data = strict_loads(out)
    assert data["event_upper_bound"] is None and data["epsilon_lower_bound"] > 0


def test_release_prints_exact_integers(capsys):
    rc = cli.main(["release", "--prior", "1,1", "--counts", "5000000,5000000", "--mechanism", "lshist",
                   "--epsilon", "1", "--seed", "0"])
    out = capsys.readouterr().out.strip()
    assert rc == 0 and out.startswith("Beta(") and "e+" not in out
    a, b = (int(x) for x in out.splitlines()[0][5:-1].split(", "))
    assert a + b == 10_000_002


@pytest.mark.parametrize("a, m, text", [(1.0, 5_000_000, "5000001"), (0.5, 3, "3.5"), (1e-12, 0, "0.000000000001"),
                                        (0.1, 2**52, "4503599627370496.1"), (1e9, 0, "1000000000")])
def test_exact_sum(a, m, text):
    assert cli.exact_sum(a, m) == text


def test_a_write_error_in_process_is_one_line(capsys, monkeypatch):
    class Full:
        closed = False

        def write(self, text):
            raise OSError(28, "No space left on device")

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", Full())
    assert main(["pmf", "--prior", "1,1", "--counts", "3,4", *EHDS]) == 2
    assert capsys.readouterr().err == "dpposterior: error: cannot write the output: No space left on device\n"
