"""The one budget registry (dpposterior.limits): every DPPOSTERIOR_* setting, its default and bounds, read at call time."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from dpposterior import InputError, SizeError
from dpposterior.limits import LIMITS, Limit, limit_setting
from dpposterior.models import check_size

ROOT = Path(__file__).resolve().parents[2]


def _readme_settings() -> dict[str, tuple[float, float]]:
    """The table of settings in docs/budgets.md (moved from the README): name -> (default, upper bound)."""
    rows = re.findall(r"^\| `(DPPOSTERIOR_[A-Z_]+)` \| ([^|]+) \| \(0, ([^|\]]+)\] \|", (ROOT / "docs" / "budgets.md").read_text(),
                      re.MULTILINE)
    return {name: (float(default.strip()), float(hi)) for name, default, hi in rows}


def test_readme_lists_every_budget_with_its_default_and_bounds():
    readme = _readme_settings()
    assert list(readme) == list(LIMITS)
    assert readme == {name: (b.default, b.bounds[1]) for name, b in LIMITS.items()}


def test_the_library_reads_only_registered_settings():
    src = ROOT / "src" / "dpposterior"
    used = set()
    for path in src.rglob("*.py"):
        used |= set(re.findall(r"\bDPPOSTERIOR_[A-Z_]+\b", path.read_text()))
    # besides the budgets: the pipeline's job servers' sockets (dpposterior.paper.jobserver, docs/pipeline.md)
    switches = {"DPPOSTERIOR_JOBSERVER", "DPPOSTERIOR_KERNELSERVER"}
    assert used <= set(LIMITS) | switches, used - set(LIMITS) - switches
    assert set(LIMITS) <= used


@pytest.mark.parametrize("name", list(LIMITS))
def test_every_budget_has_finite_bounds_around_its_default(name):
    b = LIMITS[name]
    assert isinstance(b, Limit) and b.name == name and b.unit and b.what
    lo, hi = b.bounds
    assert lo == 0.0 and math.isfinite(hi) and lo < b.default <= hi


def test_defaults_come_from_the_registry(monkeypatch):
    for name, b in LIMITS.items():
        monkeypatch.delenv(name, raising=False)
        assert limit_setting(name) == b.default == b.value()
    assert limit_setting("DPPOSTERIOR_MAX_PAIRS", 7.0) == 7.0  # an explicit default still wins when unset


@pytest.mark.parametrize("name, value", [("DPPOSTERIOR_MEMORY_GB", "1e300"), ("DPPOSTERIOR_MAX_DATA_SECONDS", "1e7"),
                                         ("DPPOSTERIOR_MAX_PAIRS", "1e300")])
def test_absurd_values_are_one_line_errors(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(InputError, match=f"{name} must be a positive number of .* up to") as err:
        limit_setting(name)
    assert "\n" not in str(err.value)


def test_memory_budget_past_its_bound_is_refused_by_the_api(monkeypatch):
    from dpposterior import log_pmf

    monkeypatch.setenv("DPPOSTERIOR_MEMORY_GB", "1e300")
    with pytest.raises(InputError, match="DPPOSTERIOR_MEMORY_GB"):
        log_pmf("lshist", [1, 1], [3, 4], epsilon=1.0)


def test_posterior_work_budget_is_read_at_call_time(monkeypatch):
    from dpposterior.noise_aware import noise_aware_posterior

    noise_aware_posterior("lshist", [1, 1], [5, 5], epsilon=1.0)
    monkeypatch.setenv("DPPOSTERIOR_MAX_POSTERIOR_WORK", "1")
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_POSTERIOR_WORK"):
        noise_aware_posterior("lshist", [1, 1], [5, 5], epsilon=1.0)
    monkeypatch.setenv("DPPOSTERIOR_MAX_POSTERIOR_WORK", "lots")
    with pytest.raises(InputError, match="DPPOSTERIOR_MAX_POSTERIOR_WORK must be a positive number"):
        noise_aware_posterior("lshist", [1, 1], [5, 5], epsilon=1.0)


def test_memory_budget_is_read_at_call_time(monkeypatch):
    check_size(10**6, 8, "a table")  # 8 MB under the default 4 GiB
    monkeypatch.setenv("DPPOSTERIOR_MEMORY_GB", "0.001")
    with pytest.raises(SizeError, match="0.001 GiB limit"):
        check_size(10**6, 8, "a table")
    monkeypatch.setenv("DPPOSTERIOR_MEMORY_GB", "lots")
    with pytest.raises(InputError, match="DPPOSTERIOR_MEMORY_GB must be a positive number"):
        check_size(10, 8, "a table")
