"""The command's allocator settings (``cli.main.tune_allocator``): applied by ``main`` before any work, accepted by
glibc on Linux, and what a command computes is unchanged by them (the same floats: only where memory comes from
changes)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pytest

cli_main = importlib.import_module("dpposterior.cli.main")  # the module (``dpposterior.cli.main`` is also its function)


def test_main_tunes_the_allocator_first(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(cli_main, "tune_allocator", lambda: calls.append(True) or True)
    assert cli_main.main(["compare", "--prior", "1,1", "--n", "5", "--epsilon", "1", "--json"]) == 0
    assert calls == [True]
    capsys.readouterr()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_glibc_accepts_the_settings():
    assert cli_main.tune_allocator() is True


def test_a_command_prints_the_same_with_and_without_them():
    """``accuracy`` at k = 3 by a translation route (arrays of MBs allocated and freed per block) in two processes,
    one with the settings left out (``tune_allocator`` replaced by a no-op): byte-identical JSON."""
    args = ["accuracy", "--prior", "1,1,1", "--n", "300", "--mechanism", "geometric", "--epsilon", "1", "--json"]
    env = dict(os.environ)
    run = [sys.executable, "-c", "import importlib, sys; m = importlib.import_module('dpposterior.cli.main'); {patch}sys.exit(m.main(sys.argv[1:]))"]
    tuned = subprocess.run([run[0], run[1], run[2].format(patch="")] + args, env=env, capture_output=True, text=True,
                           check=True).stdout
    plain = subprocess.run([run[0], run[1], run[2].format(patch="m.tune_allocator = lambda: False; ")] + args, env=env,
                           capture_output=True, text=True, check=True).stdout
    assert json.loads(tuned) and tuned == plain
