"""The numbers the README and docs/ quote about the releases are the measured ones (benchmarks/readme_numbers.json,
written by benchmarks/readme_numbers.py) or the code's own (budgets, JSON keys, exit status): the prose cannot drift
from what was measured, and a spot check keeps the measured file in step with the library."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dpposterior.cli import main

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = json.loads((ROOT / "benchmarks" / "readme_numbers.json").read_text(encoding="utf-8"))


def prose(name: str) -> str:
    return " ".join((ROOT / name).read_text(encoding="utf-8").split())


def ratio(table: str, mechanism: str, objective: str) -> dict:
    return NUMBERS[table]["ratios"][mechanism][objective]


def test_the_readme_k2_ratios_are_the_measured_ones():
    text = prose("README.md")
    found = re.search(r"at Beta\(1,1\), k = 2, eps = 1, n = (\d+) to ([\d,]+) its worst case is ([\d.]+) to ([\d.]+) "
                      r"times the optimum's and its average equals it", text)
    assert found, "the README's geometric sentence changed: keep it in step with this test"
    geo = ratio("k2", "geometric", "worst")
    ns = NUMBERS["k2"]["n"]
    assert [int(found[1]), int(found[2].replace(",", ""))] == [min(ns), max(ns)]
    assert [found[3], found[4]] == [f"{geo['min']:.2f}", f"{geo['max']:.2f}"]
    assert ratio("k2", "geometric", "average")["max"] <= 1 + 1e-6
    found = re.search(r"`lshist` is ([\d.]+) to ([\d.]+) times the optimum in the worst case and ([\d.]+) times on "
                      r"average, Laplace \(`lsdim`\) ([\d.]+) to ([\d.]+) and ([\d.]+) to ([\d.]+) times, and the "
                      r"exponential mechanisms \(`ehd`, `ehds`, `mh`, `mh-delta`\) ([\d.]+) to ([\d.]+) times in the "
                      r"worst case and up to (\d+) times on average \(`ehd` at n = ([\d,]+)[;)]", text)
    assert found, "the README's ratio sentence changed: keep it in step with this test"
    lw, la = ratio("k2", "lshist", "worst"), ratio("k2", "lshist", "average")
    assert la["max"] - la["min"] < 0.005  # one number for lshist's average
    dw, da = ratio("k2", "lsdim", "worst"), ratio("k2", "lsdim", "average")
    expo = ["ehd", "ehds", "mh", "mh-delta"]
    ew = [ratio("k2", m, "worst") for m in expo]
    top = max(expo, key=lambda m: ratio("k2", m, "average")["max"])
    ea = ratio("k2", top, "average")
    assert list(found.groups()) == [
        f"{lw['min']:.2f}", f"{lw['max']:.2f}", f"{la['min']:.2f}", f"{dw['min']:.2f}", f"{dw['max']:.2f}",
        f"{da['min']:.2f}", f"{da['max']:.2f}", f"{min(r['min'] for r in ew):.2f}", f"{max(r['max'] for r in ew):.2f}",
        f"{ea['max']:.0f}", f"{ea['max_at_n']:,}"]
    assert top == "ehd"


def test_the_readme_lattice_numbers_are_the_measured_ones():
    text = prose("README.md")
    found = re.search(r"at Dir\(1,1,1\), eps = 1, n = (\d+) to (\d+) within (\d+) % of the worst-case optimum and "
                      r"([\d.]+) to ([\d.]+) % of the average one", text)
    assert found, "the README's lattice sentence changed: keep it in step with this test"
    worst, average = ratio("k3", "lattice~worst", "worst"), ratio("k3", "lattice~average", "average")
    assert [int(found[1]), int(found[2])] == [min(NUMBERS["k3"]["n"]), max(NUMBERS["k3"]["n"])]
    assert 100 * (worst["max"] - 1) <= int(found[3])
    assert [found[4], found[5]] == [f"{100 * (average['min'] - 1):.1f}", f"{100 * (average['max'] - 1):.1f}"]
    # the example: the README said "within 1-2 %", and the average is 3.65 % at n = 5
    assert average["by_n"]["5"] == pytest.approx(1.0365, abs=5e-5)


def test_the_measured_file_is_the_librarys():
    """Spot check: the k = 2 ratios at n = 50 recomputed now equal the file's (a change of the library that moves
    them means: rerun benchmarks/readme_numbers.py)."""
    import pandas as pd

    from dpposterior.paper.beyond import expected_error_grid, ratios

    spec = {"priors": [[1, 1]], "n": [50], "epsilon": [1.0], "delta": 1e-8, "max_candidates": 10001}
    df = pd.concat([expected_error_grid(m, spec) for m in ("geometric", "lshist", "optimal~worst", "optimal~average")],
                   ignore_index=True)
    for r in ratios(df).itertuples():
        assert r.ratio == pytest.approx(ratio("k2", r.mechanism, r.objective)["by_n"]["50"], rel=1e-5), r


def lp_reach(k: int) -> int:
    """The largest n at which `optimal` solves its k >= 3 linear program within the default budgets (as
    OptimalMechanism.uses_lattice decides from public inputs)."""
    from dpposterior.limits import limit_setting
    from dpposterior.mechanisms import MECHANISMS
    from dpposterior.mechanisms.optimal import MAX_OUTPUTS
    from dpposterior.models import n_candidates

    opt, budget, n = MECHANISMS["optimal"], limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS"), 1
    while n_candidates(n + 1, k) <= MAX_OUTPUTS and opt.solve_seconds(n + 1, k, "worst", 1.0) <= budget:
        n += 1
    return n


def test_the_lp_reach_in_docs_is_the_codes(monkeypatch):
    from dpposterior.limits import LIMITS
    from dpposterior.mechanisms.optimal import MAX_OUTPUTS
    from dpposterior.models import n_candidates

    monkeypatch.delenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", raising=False)
    text = prose("docs/mechanisms.md")
    assert "stops at |R(n)|" not in text  # past the budgets `optimal` is the lattice release, not a refusal
    found = re.search(r"\|R\(n\)\| <= (\d+) \(`MAX_OUTPUTS`.*?within `DPPOSTERIOR_MAX_SOLVE_SECONDS` \((\d+) s by "
                      r"default\)\. With the default budgets the time binds first: the LP runs up to n = (\d+) at k = 3 "
                      r"\(\|R\(n\)\| = (\d+)\), n = (\d+) at k = 4 and n = (\d+) at k = 5", text)
    assert found, "docs/mechanisms.md's LP budget sentence changed: keep it in step with this test"
    default = LIMITS["DPPOSTERIOR_MAX_SOLVE_SECONDS"].default
    reach = {k: lp_reach(k) for k in (3, 4, 5)}
    assert [int(x) for x in found.groups()] == [MAX_OUTPUTS, default, reach[3], n_candidates(reach[3], 3), reach[4],
                                                reach[5]]
    assert all(n_candidates(reach[k] + 1, k) <= MAX_OUTPUTS for k in (3, 4, 5))  # "the time binds first"
    assert {k: v["n"] for k, v in NUMBERS["lp_reach"]["by_k"].items()} == {str(k): v for k, v in reach.items()}
    # the LP by orbits' reach at Dir(1,1,1,1) (any eps: its plan reads n and the prior's symmetries)
    import numpy as np

    from dpposterior.mechanisms import ReleaseSpec

    spec = ReleaseSpec.of("optimal", 1.0)
    orbit = max(n for n in range(1, 40) if spec.mechanism.lp_route(n, 4, spec, np.ones(4)) == "orbits")
    assert f"With the default budgets it runs to n = {orbit} at k = 4" in text
    # the same reach where docs/definitions.md and config.yaml's comment say it
    assert (f"(by default up to n = {reach[3]} at k = 3; at k = 4 and a symmetric prior, over the LP's orbits, to "
            f"n = {orbit}: docs/mechanisms.md;") in prose("docs/definitions.md")
    # the coarser lattice's reach at Dir(1,1,1,1), worst, eps 0.5 (its plan reads n, the step's outputs and the prior)
    worst = ReleaseSpec.of("optimal", 0.5)
    coarse = [n for n in range(1, 40) if worst.mechanism.lp_route(n, 4, worst, np.ones(4)) == "coarse"]
    assert coarse == [*range(13, 19)]
    assert f"With the default budgets it runs at n = {coarse[0]} to {coarse[-1]} at k = 4" in text
    assert f"to n = {reach[3]} at k = 3 by default" in (ROOT / "config.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("args", [["--mechanism", "geometric"], ["--mechanism", "ehdl"],
                                  ["--mechanism", "ehds", "--calibrate"],
                                  ["--mechanism", "mh-delta", "--delta-at", "1"]])
def test_every_privacy_json_key_is_documented(args, capsys):
    assert main(["privacy", "--prior", "1,1", "--n", "6", "--epsilon", "1", "--json", *args]) == 0
    keys = set(json.loads(capsys.readouterr().out))
    doc = next(line for line in prose("docs/cli.md").split("- `") if line.startswith("privacy`:"))
    documented = set(re.findall(r'"(\w+)"', doc))
    assert keys <= documented, keys - documented
    assert "tolerance" in keys


def test_the_bare_commands_exit_status_is_the_documented_one():
    text = prose("docs/cli.md")
    found = re.search(r"A bare `dpposterior` \(no command\) prints the help on stdout, then `dpposterior: error: a "
                      r"command is required: \.\.\.` on stderr, and exits with status (\d)", text)
    assert found, "docs/cli.md's sentence on a bare dpposterior changed: keep it in step with this test"
    proc = subprocess.run([sys.executable, "-m", "dpposterior"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == int(found[1]) and proc.stdout.startswith("usage: dpposterior")
    proc = subprocess.run([sys.executable, "-m", "dpposterior", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and "`dpposterior --help` prints the same help and exits 0" in text
