"""Every `dpposterior ...` command in the README's code blocks runs as pasted (exit 0)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .test_docs_commands import run_command

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
    code, err = run_command(command, capsys)  # in-process, or a pipeline of dpposterior commands in bash
    assert code == 0, err


def test_readme_geometric_average_optimum_claim():
    """The quick start says where geometric is the average optimum under Beta(1,1): at eps = 1 (also 0.75 and 3) it
    is, at eps = 0.5, n = 5 it is not, with the two average errors it prints."""
    import dpposterior as dp

    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    found = re.search(r"at eps = 0\.5, n = 5 its average error is (0\.\d{4}) against the optimum's (0\.\d{4})", text)
    assert found and "With a Beta(1,1) prior at eps = 1" in text

    def averages(n, eps):
        rows = {r["release"]: r["average_expected_error"] for r in dp.compare([1, 1], n, epsilon=eps)}
        return rows["geometric"], rows["optimal (average)"]

    geometric, optimum = averages(5, 0.5)
    assert (f"{geometric:.4f}", f"{optimum:.4f}") == found.groups() and geometric > optimum + 1e-3
    for n, eps in [(5, 1.0), (50, 1.0), (5, 0.75), (200, 3.0)]:
        geometric, optimum = averages(n, eps)
        assert abs(geometric - optimum) <= 1e-9 * optimum, (n, eps)


def test_the_timing_figures_are_the_measured_ones():
    """The README's (and docs/pipeline.md's) minutes for the main job, the tests and the quick run are those of
    benchmarks/timings.json (written by benchmarks/readme_timings.py), rounded: the prose cannot drift from
    what was measured, and what was measured is the README's and CI's commands (both runs successful)."""
    import json

    data = json.loads((ROOT / "benchmarks" / "timings.json").read_text(encoding="utf-8"))
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    pipeline = " ".join((ROOT / "docs" / "pipeline.md").read_text(encoding="utf-8").split())
    minutes = {(name, key): round(data[name][f"{key}_seconds"] / 60) for name in ("main", "tests", "quick")
               for key in ("wall", "cpu")}
    found = re.search(r"the main job takes about (\d+) minutes \((\d+) minutes of CPU time, \d+ jobs\), the tests "
                      r"about (\d+) minutes \(`-n 2`; (\d+) minutes of CPU time\) and the quick config about (\d+) "
                      r"minutes \((\d+) of CPU time\), as measured in \[benchmarks/timings\.json\]", readme)
    assert found, "the README's timing sentence changed: keep it in step with this test"
    assert [int(x) for x in found.groups()] == [minutes["main", "wall"], minutes["main", "cpu"],
                                                minutes["tests", "wall"], minutes["tests", "cpu"],
                                                minutes["quick", "wall"], minutes["quick", "cpu"]]
    main = re.search(r"the main job \(`snakemake --cores 8`, the default config\) takes about \*\*(\d+) minutes\*\*",
                     pipeline)
    assert main and int(main.group(1)) == minutes["main", "wall"]
    quick = re.search(r"The quick config takes about (\d+) minutes \((\d+) minutes of CPU time", pipeline)
    assert quick and [int(x) for x in quick.groups()] == [minutes["quick", "wall"], minutes["quick", "cpu"]]
    # the commands measured are the README's test command (as CI runs it) and its quick run, both successful
    assert data["tests"]["command"].startswith("python -m pytest -n 2") and "pytest -n 2" in readme
    assert data["quick"]["command"] == "snakemake --cores 2 --configfile workflow/quick.yaml"
    assert data["quick"]["command"] in readme
    assert data["main"]["command"] == "snakemake --cores 8" and "&& snakemake --cores 8" in readme
    assert data["quick"]["returncode"] == 0 and data["main"]["returncode"] == 0
    assert isinstance(data["tests"]["returncode"], int)  # a failure is noted
    assert data["cores"] == 2 and "On a 2-core machine" in readme
    assert data["measured_by"].startswith("python benchmarks/readme_timings.py") and data["date"]
