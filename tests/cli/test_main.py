"""The command line as a whole: one-line errors with exit 2, the console script."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .helpers import run


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


def test_console_script_entry_point():
    proc = subprocess.run([sys.executable, "-m", "dpposterior.cli", "pmf", "--prior", "1,1", "--counts", "1,1",
                           "--mechanism", "nope", "--epsilon", "1"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("dpposterior: error: unknown mechanism")
    assert "Traceback" not in proc.stderr
