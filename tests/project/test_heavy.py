"""tests/heavy.txt: every node id it lists names a test that exists, so a renamed test cannot drop out of CI's
heavy run unnoticed (the README's tests command leaves the heavy ones out)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _listed() -> list[str]:
    text = (ROOT / "tests" / "heavy.txt").read_text()
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def test_every_heavy_id_names_a_test_function_of_its_file():
    listed = _listed()
    assert listed and len(set(listed)) == len(listed)
    for node_id in listed:
        path, _, rest = node_id.partition("::")
        name = re.sub(r"\[.*\]$", "", rest)
        tree = ast.parse((ROOT / path).read_text())
        names = {f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
        assert name in names, node_id


def test_the_default_run_leaves_the_heavy_ones_out_and_ci_runs_them():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert "-m 'not heavy'" in pyproject
    ci = (ROOT / ".ci" / "run").read_text()
    assert "-m heavy" in ci and (ROOT / ".github" / "workflows" / "ci.yml").read_text().count("-m heavy") == 1
