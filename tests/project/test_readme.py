"""Every `dpposterior ...` command in the README's code blocks runs as pasted (exit 0)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from dpposterior.cli import main

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        out += [line.strip() for line in joined.splitlines() if line.strip().startswith("dpposterior ")]
    return out


def test_the_readme_has_commands():
    assert len(readme_commands()) >= 4  # the rest moved to docs/ (tests/test_docs_commands.py)


@pytest.mark.parametrize("command", readme_commands())
def test_readme_command_runs(command, capsys, monkeypatch, tmp_path):
    assert "[" not in command, "optional flags belong in prose, not in a command to paste"
    monkeypatch.chdir(ROOT)
    command = re.sub(r"--ledger \S+", f"--ledger {tmp_path / 'ledger'}", command)  # no ledger left in the clone
    code = main(shlex.split(command)[1:])
    _, err = capsys.readouterr()
    assert code == 0, err
