"""The side-by-side benchmarks' JSON records (``benchmarks/*.json``), as the tests read them.

Imports nothing from the library. A record that is not there reads as no runs, so the tests that read it are
collected with no cases instead of failing at import.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def runs(name: str) -> list[dict]:
    """Every run of ``benchmarks/<name>`` (both trees, every exit code); ``[]`` where the record is missing."""
    path = ROOT / "benchmarks" / name
    return json.loads(path.read_text(encoding="utf-8"))["runs"] if path.exists() else []


def new_runs(name: str) -> list[dict]:
    """The runs of this tree (``"new"``) that finished (exit 0)."""
    return [r for r in runs(name) if r["tree"] == "new" and r["rc"] == 0]
