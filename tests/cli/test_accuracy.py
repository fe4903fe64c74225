"""`dpposterior accuracy`: expected errors, calibrated and per objective."""

from __future__ import annotations

from dpposterior.accuracy import expected_errors
from dpposterior.calibration import calibration

from .helpers import run_json


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
