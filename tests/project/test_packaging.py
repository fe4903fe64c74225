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
