"""CLI: accuracy, compare, --calibrate and --objective (JSON keys, values, one-line errors)."""

from __future__ import annotations

import pytest

from dpposterior.accuracy import expected_errors
from dpposterior.calibration import calibration
from dpposterior.privacy import concrete_epsilon
from test_cli import run, run_json


def test_accuracy_json_matches_library(capsys):
    out = run_json(capsys, "accuracy", "--prior", "1,1", "--n", "20", "--mechanism", "lshist", "--epsilon", "1")
    assert set(out) == {"mechanism", "epsilon", "worst_expected_error", "worst_counts", "average_expected_error"}
    e = expected_errors("lshist", [1, 1], 20, epsilon=1)
    assert out["worst_expected_error"] == e.worst and out["average_expected_error"] == e.average
    assert out["worst_counts"] == e.worst_counts


def test_accuracy_calibrated_and_objective(capsys):
    out = run_json(capsys, "accuracy", "--prior", "1,1", "--n", "15", "--mechanism", "mh", "--epsilon", "1",
                   "--calibrate")
    cal = calibration("mh", [1, 1], 15, epsilon=1)
    assert out["calibration"] == {"factor": cal.factor, "concrete_epsilon": cal.concrete_epsilon}
    w = run_json(capsys, "accuracy", "--prior", "1,1", "--n", "10", "--mechanism", "optimal", "--epsilon", "1")
    a = run_json(capsys, "accuracy", "--prior", "1,1", "--n", "10", "--mechanism", "optimal", "--epsilon", "1",
                 "--objective", "average")
    assert w["worst_expected_error"] < a["worst_expected_error"]
    assert a["average_expected_error"] < w["average_expected_error"]


@pytest.mark.parametrize("cmd,extra", [("pmf", ["--counts", "6,4"]), ("release", ["--counts", "6,4", "--seed", "3"]),
                                       ("privacy", ["--n", "10"])])
def test_calibrate_adds_calibration_json(capsys, cmd, extra):
    out = run_json(capsys, cmd, "--prior", "1,1", "--mechanism", "ehds", "--epsilon", "1", "--calibrate", *extra)
    cal = calibration("ehds", [1, 1], 10, epsilon=1)
    assert out["calibration"] == {"factor": cal.factor, "concrete_epsilon": cal.concrete_epsilon}
    plain = run_json(capsys, cmd, "--prior", "1,1", "--mechanism", "ehds", "--epsilon", "1", *extra)
    assert "calibration" not in plain
    if cmd == "privacy":
        assert out["concrete_epsilon"] <= 1.0 and out["claimed"] == {"epsilon": 1.0, "delta": 0.0}
        assert out["concrete_epsilon"] == concrete_epsilon("ehds", [1, 1], 10, epsilon=1, calibrate=True).concrete_epsilon


@pytest.mark.parametrize("mech", ["lshist", "geometric", "optimal"])
def test_calibrate_non_exponential_is_one_line_error(capsys, mech):
    code, out, err = run(capsys, "accuracy", "--prior", "1,1", "--n", "10", "--mechanism", mech, "--epsilon", "1",
                         "--calibrate")
    assert code == 2 and out == "" and err.startswith("dpposterior: error: ") and err.count("\n") == 1


def test_compare_ranks_every_release(capsys):
    out = run_json(capsys, "compare", "--prior", "1,1", "--n", "12", "--epsilon", "1")
    names = [r["release"] for r in out["releases"]]
    assert "optimal (worst)" in names and "optimal (average)" in names and "ehds (calibrated)" in names
    assert "geometric" in names and "lshist" in names
    worst = [r["worst_expected_error"] for r in out["releases"]]
    assert worst == sorted(worst)
    assert out["releases"][0]["release"] == "optimal (worst)"
    best_avg = min(out["releases"], key=lambda r: r["average_expected_error"])["average_expected_error"]
    opt_avg = next(r for r in out["releases"] if r["release"] == "optimal (average)")["average_expected_error"]
    assert opt_avg <= best_avg + 1e-4  # the repair's tolerance (tests/test_optimal.py)


def test_compare_too_large_rows_not_crash(capsys):
    code, out, err = run(capsys, "compare", "--prior", "1,1", "--n", "400", "--epsilon", "1")
    assert code == 0, err
    assert "optimal (worst)" in out and "not computed" in out
