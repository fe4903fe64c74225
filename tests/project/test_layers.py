"""The package's layers: what imports what, where each concept lives."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dpposterior
from dpposterior import audit as A
from dpposterior import cli

SRC = Path(dpposterior.__file__).parent


def imports_of(module: str) -> set[str]:
    """Relative modules of the package that ``module`` imports anywhere (top level or in functions)."""
    tree = ast.parse((SRC / f"{module}.py").read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpposterior"):
            parts = node.module.split(".")
            out.update([parts[1]] if len(parts) > 1 else [a.name for a in node.names])
    return out


def test_black_box_audit_imports_no_mechanism():
    assert imports_of("audit") <= {"errors", "validate", "models", "limits"}  # no lazy door to mechanism_audit
    tree = ast.parse((SRC / "audit.py").read_text())
    top = {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.level == 1}
    assert top <= {"errors", "validate", "models", None}


def test_no_library_module_imports_the_cli():
    for path in SRC.glob("*.py"):
        if path.stem not in ("cli", "__main__"):
            assert "cli" not in imports_of(path.stem), path.name


def test_pair_loss_lives_in_privacy():
    from dpposterior.mechanism_audit import exact_pair_epsilon
    from dpposterior.privacy import pair_epsilon

    assert exact_pair_epsilon is pair_epsilon
    loss, dlt = pair_epsilon("lshist", [1, 1], ([5, 5], [4, 6]), epsilon=1.0, delta_at=0.5)
    assert loss == pytest.approx(1.0, rel=1e-9) and 0 < dlt < 1


def test_the_cli_is_a_package_and_the_ranking_a_library_module():
    """One module per command; the ranking and its cost model live in dpposterior.ranking, which imports no CLI."""
    import importlib

    ranking = importlib.import_module("dpposterior.ranking")

    commands = sorted(p.stem for p in (SRC / "cli" / "commands").glob("*.py") if p.stem != "__init__")
    assert commands == sorted(cli.COMMANDS)
    assert not (SRC / "cli.py").exists()
    assert "cli" not in imports_of("ranking") and ranking.compare_rows and ranking.plan_compare


def _source(root, name: str):
    """The source of a top-level module of the package: ``name.py``, or ``name/__init__.py`` for a package."""
    return root / f"{name}.py" if (root / f"{name}.py").exists() else root / name / "__init__.py"


def _package_imports(module: str) -> set[str]:
    """The dpposterior modules ``module`` imports, transitively, read from the source (any depth, any place)."""
    import ast
    from pathlib import Path

    root = Path(A.__file__).parent
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in ast.walk(ast.parse(_source(root, name).read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = [node.module] if node.module else [a.name for a in node.names]
                todo += [t.split(".")[0] for t in targets if _source(root, t.split(".")[0]).exists()]
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dpposterior."):
                todo.append(node.module.split(".")[1])
    return seen - {module}


def test_the_black_box_auditor_imports_no_mechanism():
    reach = _package_imports("audit")
    assert reach <= {"validate", "errors", "models", "limits"}, reach
    assert {"audit", "mechanisms", "privacy"} <= _package_imports("mechanism_audit")  # the check can fail
    assert not hasattr(A, "audit_mechanism")
