"""Every command in README.md and docs/*.md runs as pasted.

The mechanism of tests/test_readme_commands.py (every ``dpposterior ...`` line of a code block runs, exit 0;
pipeline-length commands, snakemake and pip, are not run), extended to docs/*.md; the Python blocks run
too; the documented one-item quick target passes ``snakemake -n``; the README stays short.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from dpposterior.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md"))
LINKED = ["cli.md", "budgets.md", "pipeline.md", "slurm.md", "leakage.md", "audit.md", "performance.md"]


def blocks(path: Path, lang: str | None = None) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [b for tag, b in re.findall(r"```([a-z]*)\n(.*?)```", text, flags=re.S) if lang is None or tag == lang]


def commands(path: Path) -> list[str]:
    out = []
    for block in blocks(path):
        joined = re.sub(r"\\\n\s*", " ", block)
        out += [line.strip() for line in joined.splitlines() if line.strip().startswith("dpposterior ")]
    return out


DOC_COMMANDS = [(p.name, c) for p in PAGES for c in commands(p)]


def run_command(command: str, capsys) -> tuple[int, str]:
    """Run one documented command from the clone's root: ``(status, stderr)``.  A pipeline of ``dpposterior``
    commands (``release ... --json | dpposterior posterior --from-release -``) runs in bash, each one as
    ``python -m dpposterior`` of this checkout, and fails when any of them does (``pipefail``); a single command
    runs in-process.  No command may write a file into the clone (``>``)."""
    assert " > " not in command, "a documented command must not write into the clone"
    if " | " not in command:
        code = main(shlex.split(command)[1:])
        return code, capsys.readouterr().err
    python = f"{shlex.quote(sys.executable)} -m dpposterior "
    parts = [part.strip() for part in command.split(" | ")]
    assert all(part.startswith("dpposterior ") for part in parts), command
    shell = " | ".join(python + part[len("dpposterior "):] for part in parts)
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", shell], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=os.environ | {"PYTHONPATH": str(ROOT / "src")})
    return proc.returncode, proc.stderr


def test_the_docs_have_commands():
    assert len(DOC_COMMANDS) >= 15
    assert {"cli.md", "mechanisms.md"} <= {name for name, _ in DOC_COMMANDS}


@pytest.mark.parametrize("page, command", DOC_COMMANDS, ids=[f"{p}:{c[12:60]}" for p, c in DOC_COMMANDS])
def test_docs_command_runs(page, command, capsys, monkeypatch, tmp_path):
    assert "[" not in command, "optional flags belong in prose, not in a command to paste"
    monkeypatch.chdir(ROOT)
    command = re.sub(r"--ledger \S+", f"--ledger {tmp_path / 'ledger'}", command)  # no ledger left in the clone
    code, err = run_command(command, capsys)
    assert code == 0, err


PY_BLOCKS = [(p, i) for p in [ROOT / "README.md", *PAGES] for i, _ in enumerate(blocks(p, "python"))]


@pytest.mark.parametrize("path, index", PY_BLOCKS, ids=[f"{p.name}#{i}" for p, i in PY_BLOCKS])
def test_python_block_runs(path, index, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # a ledger file it writes stays out of the clone
    code = blocks(path, "python")[index]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, f"{path.name}#{index}", "exec"), {"__name__": "__docs__"})


def test_the_readme_is_short_and_links_the_pages():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    # short by what a reader reads, not by line breaks: a table or a list takes lines, a wall of prose takes characters
    assert len(text) <= 15_000 and len(text.splitlines()) <= 180
    for page in LINKED:
        assert f"(docs/{page})" in text and (ROOT / "docs" / page).exists(), page
    # the researcher's two commands, exactly
    assert ('python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[pipeline]" && snakemake --cores 8'
            in text)
    assert 'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && pytest -n 2' in text


def test_relative_links_of_the_docs_exist():
    for path in [ROOT / "README.md", *PAGES]:
        for target in re.findall(r"\]\(([^)#:]+)\)", path.read_text(encoding="utf-8")):
            assert (path.parent / target).exists(), f"{path.name}: {target}"


def quick_one_item_commands() -> list[str]:
    out = []
    for path in [ROOT / "README.md", ROOT / "docs" / "pipeline.md"]:
        for block in blocks(path):
            cmds = [line.split("#")[0].strip() for line in block.splitlines() if line.startswith("snakemake")]
            out += [c for c in cmds if "quick.yaml" in c and "figures/quick/" in c]
    return out


def test_the_documented_one_item_quick_target_is_a_valid_dry_run():
    cmds = quick_one_item_commands()
    assert cmds and all("--configfile=" in c for c in cmds), cmds
    if shutil.which("snakemake") is None:
        pytest.skip("snakemake (the pipeline extra) is not installed")
    for cmd in sorted(set(cmds)):
        argv = shlex.split(cmd)
        proc = subprocess.run([argv[0], "-n", *argv[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env=os.environ | {"PYTHONPATH": str(ROOT / "src")})
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]


def test_papermill_parses_every_parameters_cell_without_warnings(caplog):
    jupytext = pytest.importorskip("jupytext")
    translators = pytest.importorskip("papermill.translators")
    for path in sorted((ROOT / "notebooks").glob("*.py")):
        nb = jupytext.read(path)
        cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
        caplog.clear()
        params = translators.PythonTranslator.inspect(cell)
        assert not [r for r in caplog.records if "Unable to parse" in r.getMessage()], path.name
        assert any(p.name == "item" for p in params), path.name


def test_the_command_that_makes_a_templates_inputs_is_in_the_docs_not_the_notebooks():
    """A rendered notebook is read, not run (tests/pipeline/test_notebook_header.py): the command that makes a
    template's inputs, for whoever opens it in Jupyter, is in docs/pipeline.md; each template's default item is an
    item of that template in config.yaml."""
    import yaml

    items = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))["items"]
    for path in sorted((ROOT / "notebooks").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        item = re.search(r'^item = "([^"]+)"', text, re.M).group(1)
        assert items[item]["template"] == path.stem and "snakemake" not in text, path.name
    assert "(build them first: `snakemake --cores 2 figures/ITEM.png`)" in (ROOT / "docs" / "pipeline.md").read_text()


def test_python_m_dpposterior_runs():
    proc = subprocess.run([sys.executable, "-m", "dpposterior", "--help"], capture_output=True, text=True,
                          env=os.environ | {"PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0 and "release" in proc.stdout
