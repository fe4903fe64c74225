"""environment.yml (conda) and pyproject.toml (pip) must list the same packages and lower bounds."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _split(req: str) -> tuple[str, str]:
    m = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(.*)", req)
    return _norm(m.group(1)), m.group(2).strip()


def _pyproject() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(data["dependencies"])
    for extra in data["optional-dependencies"].values():
        reqs += extra
    return dict(_split(r) for r in reqs)


def _conda() -> dict[str, str]:
    out = {}
    text = (ROOT / "environment.yml").read_text()
    for line in text[text.index("dependencies:"):].splitlines():
        m = re.match(r"^  - ([A-Za-z0-9_.\-]+)(.*)$", line)  # top-level dependencies only
        if m and m.group(1) not in {"python", "pip"}:
            out[_norm(m.group(1))] = m.group(2).strip()
    return out


def test_conda_and_pip_agree():
    pip, conda = _pyproject(), _conda()
    assert set(pip) == set(conda), f"only pip: {set(pip) - set(conda)}; only conda: {set(conda) - set(pip)}"
    assert pip == conda


def test_environment_installs_this_package():
    assert "      - -e ." in (ROOT / "environment.yml").read_text().splitlines()


#: third-party modules the pipeline imports that come with another distribution of the pipeline install
#: (checked below against that distribution's own requirements), and modules whose distribution is named
#: differently from the module
INDIRECT = {"yaml": "snakemake", "jinja2": "nbconvert", "nbformat": "nbconvert", "IPython": "ipykernel",
            "jupyter_client": "ipykernel"}
DISTRIBUTION = {"dp_accounting": "dp-accounting"}


def _third_party_imports(paths) -> set[str]:
    import ast
    import sys

    out = set()
    for p in paths:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                out.add(node.module.split(".")[0])
    return {m for m in out if m not in sys.stdlib_module_names and m != "dpposterior"}


def test_the_pipeline_install_provides_every_module_the_pipeline_imports():
    """The README's main job installs ``.[pipeline]`` only (no test extras): every module imported by the
    pipeline's code (the package, its notebooks, the workflow's scripts) must come with that install, directly
    or through a listed distribution's own requirements.  (A notebook importing mpmath, then only a test
    extra, failed in a fresh main job while every test passed.)"""
    from importlib.metadata import PackageNotFoundError, requires

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    installed = {_split(r)[0] for r in data["dependencies"] + data["optional-dependencies"]["pipeline"]}
    files = [*(ROOT / "src" / "dpposterior").rglob("*.py"), *(ROOT / "notebooks").glob("*.py"),
             *(ROOT / "workflow").rglob("*.py")]
    optional = {"dp_accounting"}  # imported under try/except ImportError (the ledger's composition is optional)
    for module in sorted(_third_party_imports(files) - optional):
        if module in INDIRECT:
            parent = INDIRECT[module]
            assert _norm(parent) in installed, (module, parent)
            try:  # the parent's own requirements, where it is installed (the README's test install has no pipeline)
                reqs = requires(parent) or []
            except (PackageNotFoundError, StopIteration):
                continue
            needs = {_split(r)[0] for r in reqs if "extra ==" not in r}
            assert _norm({"yaml": "pyyaml"}.get(module, module)) in needs, (module, parent, sorted(needs))
        else:
            assert _norm(DISTRIBUTION.get(module, module)) in installed, f"{module} is not in the pipeline install"
