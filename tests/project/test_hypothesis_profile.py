"""The hypothesis profiles of tests/conftest.py: CI draws the same examples on every run, other runs draw afresh."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def _derandomize(env_update: dict[str, str]) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    env.update(env_update)
    code = "import conftest; from hypothesis import settings; print(settings.default.derandomize)"
    out = subprocess.run([sys.executable, "-c", code], cwd=TESTS, env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.mark.parametrize(
    ("env_update", "expected"),
    [({}, "False"), ({"CI": "true"}, "True"), ({"HYPOTHESIS_PROFILE": "ci"}, "True"),
     ({"CI": "true", "HYPOTHESIS_PROFILE": "dev"}, "False")],
)
def test_profile_follows_the_environment(env_update, expected):
    assert _derandomize(env_update) == expected


def test_ci_script_selects_the_ci_profile_before_the_tests():
    script = (ROOT / ".ci" / "run").read_text()
    assert "export HYPOTHESIS_PROFILE=ci" in script
    assert script.index("export HYPOTHESIS_PROFILE=ci") < script.index("python -m pytest -n 2")
