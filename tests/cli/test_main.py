"""The command line as a whole: one-line errors with exit 2, the console script, and the process: budget settings,
message length, a full disk, a closed stdout, Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from dpposterior.cli.main import MAX_MESSAGE_CHARS, main, one_line

from .helpers import EHDS, LONG, ROOT, refused, run


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


def process(argv, *, env=None, shell_tail: str = "", timeout: float = 120):
    """``python -m dpposterior.cli argv`` in a fresh process (``shell_tail``: a redirection such as ``> /dev/full``)."""
    cmd = " ".join([sys.executable, "-m", "dpposterior.cli", *argv]) + " " + shell_tail
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, env=os.environ | (env or {}), cwd=ROOT,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _interrupted(argv, delay: float, tmp_path):
    ready = tmp_path / f"ready-{delay}"
    proc = subprocess.Popen([sys.executable, "-m", "dpposterior.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=os.environ | {"_DPPOSTERIOR_READY_FILE": str(ready)})
    deadline = time.monotonic() + 120
    while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert ready.exists()
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.parametrize("argv", [
    ["release", "--prior", "1,1,1,1", "--counts", "8,8,8,7", "--mechanism", "optimal", "--epsilon", "0.5",
     "--noise-aware"],
    ["accuracy", "--prior", "1,1,1,1", "--n", "40", "--mechanism", "optimal", "--epsilon", "0.5"],
    ["posterior", "--prior", "1,1,1", "--released", "117,117,116", "--mechanism", "optimal", "--epsilon",
     "0.1", "--objective", "average"],
    ["privacy", "--prior", "1,1,1,1", "--n", "9", "--mechanism", "lattice", "--epsilon", "1"],
    ["pmf", "--prior", "1,1,1,1", "--counts", "3,2,2,2", "--mechanism", "lattice", "--epsilon", "1"],
])
def test_a_long_solve_is_refused_before_it_starts(argv):
    """k = 4 past the LP (n = 9: ``optimal`` there is the LP by orbits, so these two ask ``lattice``): the lattice
    release, whose noise-aware release at eps = 0.5, n = 31 (past the corner remap: the local Bayes remap's column; the
    release itself runs; to n = 26 the corner release's column runs since its solve is priced by its clamp groups)
    and errors at n = 40 (the batched local search by orbits, 60 s of it a solve) are over the solve limit, and whose
    corner remap's pmf at one
    data set is not built (its corner rows are randomised; the refusal names the average remap, which has it); and the likelihood column of the k = 3 release at n = 350, eps = 0.1 (its points off R(n) each a search):
    refused in one line from public n, k, eps, before any work.  (At eps = 1, n = 9 the release and its errors run:
    tests/library/test_lattice_corners_any.py.)"""
    code, out, err = process(argv, timeout=60)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err[-2000:]
    assert any(why in err for why in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MEMORY_GB", "is not computed",
                                      "is not built")), err


@pytest.mark.parametrize("env, argv", [
    ({"DPPOSTERIOR_MEMORY_GB": "1e300"}, ["pmf", "--prior", "1,1", "--counts", "3,4", *EHDS]),
    ({"DPPOSTERIOR_MEMORY_GB": "1e300"}, ["privacy", "--prior", "1,1", "--n", "5", *EHDS]),
    ({"DPPOSTERIOR_MAX_DATA_SECONDS": "1e7"}, ["release", "--prior", "1,1", "--data", "/dev/stdin", "--column", "a",
                                               *EHDS]),
    ({"DPPOSTERIOR_MAX_DATA_SECONDS": "1e300"}, ["release", "--prior", "1,1", "--data", "/dev/stdin", "--column",
                                                 "a", *EHDS]),
    ({"DPPOSTERIOR_MAX_PAIRS": "1e300"}, ["privacy", "--prior", "1,1", "--n", "5", *EHDS]),
    ({"DPPOSTERIOR_MAX_PMF_ROWS": "1e300"}, ["pmf", "--prior", "1,1", "--counts", "3,4", *EHDS]),
])
def test_absurd_settings_are_one_line(capsys, monkeypatch, env, argv):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    refused(argv, capsys, f"{next(iter(env))} must be a positive number of")


@pytest.mark.parametrize("argv", [
    ["pmf", "--prior", "1,1", "--counts", "3,4", *EHDS],
    ["pmf", "--prior", "1,1", "--counts", "300,400", *EHDS, "--json"],
    ["privacy", "--prior", "1,1", "--n", "5", *EHDS, "--json"],
    ["release", "--prior", "1,1", "--counts", "3,4", *EHDS, "--seed", "1"],
    ["compare", "--prior", "1,1", "--n", "4", "--epsilon", "1"],
    ["--help"], ["--version"], ["pmf", "--help"],
])
def test_a_full_disk_is_one_line_and_status_2(argv):
    code, out, err = process(argv, shell_tail="> /dev/full")
    lines = err.splitlines()  # a seeded release's warning (a setting) may come first
    assert code == 2 and lines[-1] == "dpposterior: error: cannot write the output: No space left on device", err[-2000:]
    assert all(line.startswith("dpposterior: warning: ") for line in lines[:-1]), err[-2000:]


def test_a_closed_stdout_is_refused_before_any_work():
    code, out, err = process(["release", "--prior", "1,1", "--counts", "3,4", *EHDS, "--seed", "1"], shell_tail=">&-")
    assert code == 2 and err == "dpposterior: error: standard output is closed; nothing was computed\n", err


def test_an_unwritable_stderr_keeps_status_2():
    code, out, err = process(["pmf", "--prior", "x", "--counts", "3,4", *EHDS], shell_tail="2> /dev/full")
    assert code == 2 and out == ""


@pytest.mark.parametrize("argv", [
    ["pmf", "--prior", "1,1", "--counts", "3,4", "--mechanism", LONG, "--epsilon", "1"],
    ["pmf", "--prior", "1,1", "--counts", "3,4", *EHDS, "--" + LONG],
    [LONG],
    ["release", "--prior", "1,1", "--counts", "3,4", "--mechanism", "optimal", "--epsilon", "1", "--objective", LONG],
    ["release", "--prior", "1,1", "--counts", "3,4", "--mechanism", "ehd", "--epsilon", "1", "--global-sensitivity",
     LONG],
    ["audit", "--prior", "1,1", "--n", "3", *EHDS, "--search", LONG],
    ["release", "--prior", "1,1", "--data", "/tmp/x" + LONG, "--column", "a", *EHDS],
    ["pmf", "--prior", LONG, "--counts", "3,4", *EHDS],
    ["pmf", "--prior", "1,1", "--counts", "3,4", *EHDS, "--sort", LONG],
])
def test_long_arguments_are_not_echoed_whole(capsys, argv):
    line = refused(argv, capsys)
    assert len(line) <= MAX_MESSAGE_CHARS + 30 and "9" * 300 not in line


def test_one_line_caps_words_and_length():
    text = one_line("a  " + "x" * 500 + "\n b " + "y " * 800)
    assert "\n" not in text and len(text) <= MAX_MESSAGE_CHARS and "x" * 241 not in text


@pytest.mark.parametrize("argv", [
    ["accuracy", "--prior", "1,1,1", "--n", "300", *EHDS],
    ["release", "--prior", "1,1", "--counts", "3000,3000", *EHDS, "--calibrate", "--seed", "1"],
    ["pmf", "--prior", "1,1", "--counts", "3000,3000", *EHDS, "--calibrate", "--top", "3"],
    ["posterior", "--prior", "1,1", "--released", "3000,3000", *EHDS, "--calibrate"],
])
def test_budget_refusals_do_not_advise_a_flag_the_command_lacks(capsys, argv):
    line = refused(argv, capsys, "DPPOSTERIOR_MAX_PAIRS")
    assert "--at" not in line


@pytest.mark.parametrize("delay", [0.0, 0.2, 1.0])
def test_ctrl_c_after_the_handler_is_always_130_and_one_line(tmp_path, delay):
    code, out, err = _interrupted(["privacy", "--prior", "1,1", "--n", "15000", *EHDS], delay, tmp_path)
    assert code == 130 and err == "dpposterior: interrupted\n" and out == "", err[-2000:]


def test_ctrl_c_inside_a_finaliser_is_not_swallowed(tmp_path):
    """A KeyboardInterrupt raised inside a weakref callback is printed as 'Exception ignored' and dropped (the
    command then ended with status 0); the handler never raises, so it cannot be dropped."""
    script = tmp_path / "swallow.py"
    script.write_text(
        "import os, signal, sys, weakref\n"
        "from dpposterior.cli.main import _install_sigint\n"
        "_install_sigint()\n"
        "class A: pass\n"
        "a = A()\n"
        "r = weakref.ref(a, lambda r: os.kill(os.getpid(), signal.SIGINT) or sum(range(10**6)))\n"
        "del a\n"
        "print('carried on')\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 130 and proc.stderr.decode() == "dpposterior: interrupted\n"
    assert b"carried on" not in proc.stdout


def test_main_restores_the_previous_sigint_handler(capsys):
    before = signal.getsignal(signal.SIGINT)
    main(["pmf", "--prior", "1,1", "--counts", "3,4", *EHDS])
    capsys.readouterr()
    assert signal.getsignal(signal.SIGINT) is before
