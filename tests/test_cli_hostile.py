"""Hostile input at the command line (issue 12, second round): each case runs ``dpposterior`` in a fresh
process and must end within ``LIMIT_S`` seconds with either a correct result or exactly one line
``dpposterior: error: ...`` on stderr, exit status 2 and nothing on stdout (never half an output).

Covered: a count |R(n)| past Python's 4300-digit str() limit in a message; an I/O error while reading
``--data``; a FIFO nobody writes to, ``/dev/stdin`` as a pipe, ``/dev/zero``; a ``--data`` refusal after the
"categories taken from the data" warning; a failure after the first printed line; the total budget of
``compare``; loose number syntax (``1_0``, non-ASCII digits, ``1e30`` as a seed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dpposterior.guarantee import SEEDED_WARNING

LIMIT_S = 60.0
ROOT = Path(__file__).resolve().parents[1]
REL = ["--mechanism", "ehds", "--epsilon", "1", "--seed", "1"]
SEEDED = "dpposterior: warning: " + SEEDED_WARNING


def run_case(argv: list[str], *, env: dict | None = None, stdin: bytes | None = None,
             timeout: float = LIMIT_S + 30) -> tuple[int, str, str, float]:
    """Run ``dpposterior argv`` in a fresh process: (status, stdout, stderr, wall seconds)."""
    full_env = os.environ | {"PYTHONWARNINGS": "error::RuntimeWarning"} | (env or {})
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "dpposterior.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            env=full_env, cwd=ROOT)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{argv[:3]}... did not end within {timeout:.0f} s")
    return proc.returncode, out.decode(), err.decode(), time.monotonic() - start


def assert_clean_refusal(code: int, out: str, err: str, needle: str) -> None:
    """Exit 2, one stderr line ``dpposterior: error: ...`` containing ``needle``, and an empty stdout."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, err[-2000:]
    assert len(lines) == 1 and lines[0].startswith("dpposterior: error: "), err[-2000:]
    assert "Traceback" not in err and needle in lines[0], lines[0]
    assert out == "", out[-500:]


def ones(k: int) -> str:
    return ",".join(["1"] * k)


# ---------------------------------------------------------------------------------------------
# 1. |R(n)| in a message past 4300 digits


def test_pmf_count_past_4300_digits_is_one_line():
    k = 60_000  # |R(n)| = C(2k - 1, k - 1) has ~36,000 digits
    code, out, err, wall = run_case(["pmf", "--prior", ones(k), "--counts", ones(k), "--mechanism", "ehds",
                                     "--epsilon", "1", "--top", "1"])
    assert_clean_refusal(code, out, err, "DPPOSTERIOR_MAX_PMF_WORK")
    assert "e+3612" in err and wall < LIMIT_S


def test_count_formats_ints_of_any_size():
    from dpposterior.validate import count_text as _count

    assert _count(12_507_501) == "12,507,501"
    assert _count(10**15) == "~1.0e+15"
    assert _count(999 * 10**4997) == "~1.0e+5000"  # rounds up to the next power of ten
    assert _count(123 * 10**40000) == "~1.2e+40002"


# ---------------------------------------------------------------------------------------------
# 2, 3. --data that cannot be read, never ends, or is a pipe


def test_data_io_error_while_reading_is_one_line():
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", "/proc/self/mem", "--column", "answer",
                                  *REL])
    assert_clean_refusal(code, out, err, "cannot read /proc/self/mem")


def test_data_fifo_without_writer_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "records"
    os.mkfifo(fifo)
    code, out, err, wall = run_case(["release", "--prior", "1,1", "--data", str(fifo), "--column", "answer", *REL],
                                    env={"DPPOSTERIOR_MAX_DATA_SECONDS": "1"}, timeout=LIMIT_S)
    assert_clean_refusal(code, out, err, "DPPOSTERIOR_MAX_DATA_SECONDS")
    assert wall < LIMIT_S


def test_data_from_a_pipe_on_stdin_is_read():
    csv = b"answer\nyes\nno\nyes\n"
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", "/dev/stdin", "--column", "answer",
                                  "--categories", "no,yes", "--mechanism", "ehds", "--epsilon", "1000", "--seed", "1"],
                                 stdin=csv)
    assert code == 0 and err.splitlines() == [SEEDED], err  # a seeded release says it is not private (issue 23)
    assert out.splitlines() == ["Beta(2, 3)", "guarantee: 1000-DP (seeded: not private)", "categories, in order: no, yes"]


def test_data_dev_zero_still_refused_for_nul_bytes():
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", "/dev/zero", "--column", "answer", *REL])
    assert_clean_refusal(code, out, err, "NUL bytes")


def test_data_directory_is_one_line(tmp_path):
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", str(tmp_path), "--column", "answer", *REL])
    assert_clean_refusal(code, out, err, "is a directory")


# ---------------------------------------------------------------------------------------------
# 4. no warning before a refusal


def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name, text, needle", [
    ("many", "answer\n" + "\n".join(f"v{i}" for i in range(200_001)) + "\n", "more than the 100000"),
    ("dup", "answer,answer\nyes,no\nno,yes\n", "more than one column 'answer'"),
    ("one-value", "answer\n" + "x" * (2 * 2**20) + "\n", "at least 2 categories"),
])
def test_data_refusal_without_categories_is_one_line(tmp_path, name, text, needle):
    path = _write(tmp_path / f"{name}.csv", text)
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", path, "--column", "answer", *REL])
    assert_clean_refusal(code, out, err, needle)


def test_blank_line_warning_not_printed_before_a_refusal(tmp_path):
    path = _write(tmp_path / "r.csv", "answer\nyes\n\nno\n")
    code, out, err, _ = run_case(["release", "--prior", "1,1,1", "--data", path, "--column", "answer",
                                  "--categories", "no,yes", *REL])
    assert_clean_refusal(code, out, err, "prior has 3 entries")


def test_warnings_still_printed_after_a_successful_release(tmp_path):
    path = _write(tmp_path / "r.csv", "answer\nyes\n\nno\n")
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", path, "--column", "answer", *REL])
    assert code == 0 and out.startswith("Beta("), err
    assert err.splitlines() == [SEEDED, f"dpposterior: warning: 1 blank line of {path} skipped",
                                "dpposterior: warning: categories taken from the data; pass --categories to keep "
                                "the category set itself private"]


# ---------------------------------------------------------------------------------------------
# 5. nothing on stdout when a later step fails


def test_release_noise_aware_failure_prints_nothing():
    """The draw succeeds at k = 1000, the noise-aware posterior cannot (|R(n)| ~ 1e600): no Dir(...) first."""
    code, out, err, _ = run_case(["release", "--prior", ones(1000), "--counts", ones(1000), *REL, "--noise-aware"])
    assert code != 0 and out == "", out[-300:]
    assert_clean_refusal(code, out, err, "noise-aware posterior")


def test_every_command_prints_whole_outputs_only():
    """Commands that print several lines build them first: one print per output, none before the work."""
    import ast

    from dpposterior import cli

    tree = ast.parse(Path(cli.__file__).read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("cmd_") and node.name != "cmd_pmf":
            prints = [c for c in ast.walk(node) if isinstance(c, ast.Call) and getattr(c.func, "id", "") == "print"
                      and not any(k.arg == "file" for k in c.keywords)]
            assert len(prints) <= 1, (node.name, [p.lineno for p in prints])


def test_every_command_module_prints_whole_outputs_only():
    """The check above, over every module of ``dpposterior/cli/commands`` (one per command since issue 19)."""
    import ast

    from dpposterior.cli import commands

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
    assert handlers == 7


# ---------------------------------------------------------------------------------------------
# 6. compare's total budget


def test_compare_total_over_the_pair_budget_is_refused_fast():
    code, out, err, wall = run_case(["compare", "--prior", "1,1", "--n", "4400", "--epsilon", "1"])
    assert_clean_refusal(code, out, err, "DPPOSTERIOR_MAX_PAIRS")
    assert wall < 10


def test_compare_budget_counts_every_row():
    import importlib

    cli = importlib.import_module("dpposterior.compare")  # dpposterior.compare is the function (issue 23)

    # 5 exponential rows, each also calibrated (2 + 20 passes), 4 other rows; both optimal rows up to 260 outputs
    assert cli.compare_passes(2, 1000) == 5 * 2 + 5 * 22 + 4 * 2
    assert cli.compare_passes(2, 12) == 5 * 2 + 5 * 22 + 4 * 2 + 2 * 3
    with pytest.raises(Exception, match="DPPOSTERIOR_MAX_PAIRS"):
        cli.check_compare_size(2, 1767)  # 128 x 1768^2 > 4e8
    assert cli.check_compare_size(2, 1766) == {}
    # the optimal rows' linear programs count too: past ~20 s each they are listed as too large
    assert cli.check_compare_size(2, 200) == {} and cli.check_compare_size(3, 11) == {}
    for k, n in ((2, 201), (3, 12), (3, 21)):
        left = cli.check_compare_size(k, n)
        assert set(left) == {"optimal (worst)", "optimal (average)"}
        assert all("DPPOSTERIOR_MAX_PAIRS" in v for v in left.values())


def test_compare_lists_optimal_rows_over_the_budget_as_too_large():
    """k = 3, n = 21: within optimal.MAX_OUTPUTS, but its linear programs took over 12 min here."""
    code, out, err, wall = run_case(["compare", "--prior", "1,1,1", "--n", "21", "--epsilon", "1", "--json"])
    assert code == 0, err[-2000:]
    rows = {r["release"]: r for r in json.loads(out)["releases"]}
    assert "DPPOSTERIOR_MAX_PAIRS" in rows["optimal (worst)"]["error"] and "error" not in rows["ehds"]
    assert wall < LIMIT_S


def test_compare_refuses_from_the_budget_setting():
    code, out, err, _ = run_case(["compare", "--prior", "1,1", "--n", "40", "--epsilon", "1"],
                                 env={"DPPOSTERIOR_MAX_PAIRS": "1e5"})
    assert_clean_refusal(code, out, err, "DPPOSTERIOR_MAX_PAIRS")


# ---------------------------------------------------------------------------------------------
# 7. numbers are plain ASCII decimals


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
