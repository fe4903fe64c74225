"""Helpers of the command-line tests: run ``dpposterior.cli.main`` in-process (:func:`run`, :func:`run_json`)
or ``dpposterior`` in a fresh process under a time limit (:func:`run_case`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dpposterior.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


#: wall-clock limit of one hostile case
LIMIT_S = 60.0
ROOT = Path(__file__).resolve().parents[2]
REL = ["--mechanism", "ehds", "--epsilon", "1", "--seed", "1"]


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
    """``1,1,...,1`` (k ones): a prior or counts of k categories."""
    return ",".join(["1"] * k)


#: an argument far longer than any message may echo
LONG = "9" * 120_000


#: the mechanism flags of most hostile cases
EHDS = ["--mechanism", "ehds", "--epsilon", "1"]


def refused(argv, capsys, needle: str = "") -> str:
    """Run ``argv`` in-process and assert a refusal: exit 2, no output, one line ``dpposterior: error: ...``
    containing ``needle``; return that line."""
    code, out, err = run(capsys, *argv)
    lines = err.splitlines()
    assert code == 2 and out == "", (code, out[:300], err[:300])
    assert len(lines) == 1 and lines[0].startswith("dpposterior: error: "), err[:600]
    assert needle in lines[0], lines[0]
    return lines[0]
