"""``--distance NAME`` on every command where a distance enters."""

from __future__ import annotations

import json

import pytest

from dpposterior.distances import DISTANCES

from .helpers import assert_clean_refusal, run, run_json

COMMANDS = {
    "pmf": ["--prior", "1,1", "--mechanism", "ehds", "--epsilon", "1", "--counts", "3,2"],
    "accuracy": ["--prior", "1,1", "--mechanism", "ehd", "--epsilon", "1", "--n", "4"],
    "privacy": ["--prior", "1,1", "--mechanism", "ehd", "--epsilon", "1", "--n", "4"],
    "posterior": ["--prior", "1,1", "--mechanism", "ehds", "--epsilon", "1", "--released", "3,2"],
    "release": ["--prior", "1,1", "--mechanism", "ehds", "--epsilon", "1", "--counts", "3,2", "--seed", "1"],
    "compare": ["--prior", "1,1", "--epsilon", "1", "--n", "3"],
    "audit": ["--prior", "1,1", "--mechanism", "ehd", "--epsilon", "1", "--n", "3", "--samples", "1000",
              "--seed", "1"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_lists_the_distances(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    out = " ".join(out.split())
    assert code == 0
    assert "--distance NAME" in out and ", ".join(DISTANCES) in out


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "audit"])
def test_default_is_byte_identical_and_other_distances_say_so(capsys, command):
    argv = [command, *COMMANDS[command]]
    code, plain, _ = run(capsys, *argv, "--json")
    code2, explicit, _ = run(capsys, *argv, "--json", "--distance", "hellinger")
    assert code == code2 == 0 and plain == explicit and '"distance"' not in plain
    code, out, err = run(capsys, *argv, "--json", "--distance", "kl")
    assert code == 0, err
    assert json.loads(out)["distance"] == "kl" and out != plain


def test_pmf_column_is_the_chosen_distance(capsys):
    out = run_json(capsys, "pmf", *COMMANDS["pmf"], "--distance", "tv")
    row = {tuple(r["counts"]): r for r in out["outputs"]}
    assert "hellinger" not in row[(3, 2)] and row[(3, 2)]["tv"] == 0.0 and row[(2, 3)]["tv"] == pytest.approx(0.3125)
    code, text, _ = run(capsys, "pmf", *COMMANDS["pmf"], "--distance", "kl")
    assert code == 0 and text.splitlines()[1].split()[3] == "kl"


@pytest.mark.parametrize("command", list(COMMANDS))
def test_unknown_distance_is_one_line(capsys, command):
    code, out, err = run(capsys, command, *COMMANDS[command], "--distance", "js")
    assert_clean_refusal(code, out, err, "unknown distance 'js'; choose one of: hellinger, tv, kl")


@pytest.mark.parametrize("command", ["pmf", "accuracy", "privacy", "posterior", "release", "compare", "audit"])
def test_tv_at_three_categories_is_one_line(capsys, command):
    argv = [a.replace("1,1", "1,1,1").replace("3,2", "3,1,1") for a in COMMANDS[command]]
    code, out, err = run(capsys, command, *argv, "--distance", "tv")
    assert_clean_refusal(code, out, err, "tv is exact for Beta (k = 2) only, got k = 3")


def test_optimal_under_kl_runs_at_k2_and_is_refused_in_one_line_at_k3(capsys):
    code, out, err = run(capsys, "accuracy", "--prior", "1,1", "--mechanism", "optimal", "--epsilon", "1", "--n", "4",
                         "--distance", "kl")
    assert code == 0 and out.startswith("# exact expected kl error of optimal")
    code, out, err = run(capsys, "accuracy", "--prior", "1,1,1", "--mechanism", "optimal", "--epsilon", "1", "--n",
                         "4", "--distance", "kl")
    assert_clean_refusal(code, out, err, "optimal under kl at k=3 is not built")


def test_kl_sensitivity_budget_is_one_line(capsys, monkeypatch):
    monkeypatch.setenv("DPPOSTERIOR_MAX_SENSITIVITY_WORK", "50")  # needs 2 x 6 x 6
    code, out, err = run(capsys, "pmf", *COMMANDS["pmf"], "--distance", "kl")
    assert_clean_refusal(code, out, err, "DPPOSTERIOR_MAX_SENSITIVITY_WORK")
