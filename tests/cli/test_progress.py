"""Slow commands show their elapsed time on a terminal's stderr, and nothing elsewhere."""

from __future__ import annotations

import io
import time

import pytest

from dpposterior.cli import main
from dpposterior.cli.progress import SLOW_COMMANDS, progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_slow_commands():
    assert SLOW_COMMANDS == {"pmf", "accuracy", "compare", "posterior", "privacy"}


def test_progress_on_a_terminal_after_two_seconds():
    err = Terminal()
    with progress("compare", err):
        time.sleep(2.8)
    text = err.getvalue()
    assert "dpposterior compare: 00:02" in text and text.endswith("\r")  # erased at the end


@pytest.mark.parametrize("command, stream", [("compare", io.StringIO()), ("release", Terminal())])
def test_no_progress_off_a_terminal_or_for_a_quick_command(command, stream):
    with progress(command, stream):
        time.sleep(2.3)
    assert stream.getvalue() == ""


def test_no_progress_for_a_quick_run_and_output_unchanged(capsys):
    assert main(["compare", "--prior", "1,1", "--n", "5", "--epsilon", "1"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.startswith("# expected Hellinger error")
