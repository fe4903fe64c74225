"""Exact expected error over R(n) (docs/definitions.md §9) against a brute-force transcription."""

import numpy as np
import pytest

import reference as ref
from dpposterior.accuracy import expected_errors


@pytest.mark.parametrize("mech,prior,n", [("mh", (1.0, 1.0), 6), ("lshist", (1.0, 1.0), 6),
                                          ("geometric", (0.5, 2.0), 5), ("ehds", (1.0, 1.0, 1.0), 3),
                                          ("geometric", (1.0, 1.0, 1.0), 3)])
def test_expected_errors_match_brute(mech, prior, n):
    b = ref.brute(prior, n)
    e = expected_errors(mech, prior, n, epsilon=1.0)
    want = np.array([ref.expected_error(b, mech, c, 1.0) for c in b.cands])
    pred = np.array([ref.dirichlet_multinomial(prior, c) for c in b.cands])
    assert [tuple(c) for c in e.counts] == b.cands
    np.testing.assert_allclose(e.expected, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(e.predictive, pred, rtol=1e-9)
    assert pred.sum() == pytest.approx(1.0)
    assert e.worst == pytest.approx(want.max(), rel=1e-9)
    assert want[b.index[tuple(e.worst_counts)]] == pytest.approx(want.max(), rel=1e-9)  # ties: any maximiser
    assert e.average == pytest.approx(float(pred @ want), rel=1e-9)


def test_issue_table_beta11_n50():
    # the numbers of the expected-error table for Beta(1,1), n = 50, eps = 1 (3 decimals)
    assert round(expected_errors("mh", [1, 1], 50, epsilon=1).worst, 3) == 0.858
    assert round(expected_errors("lshist", [1, 1], 50, epsilon=1).worst, 3) == 0.236
    assert round(expected_errors("geometric", [1, 1], 50, epsilon=1).worst, 3) == 0.185


def test_calibrated_expected_errors_carry_calibration():
    e = expected_errors("mh", [1, 1], 10, epsilon=1, calibrate=True)
    assert e.calibration is not None and e.calibration.concrete_epsilon <= 1.0
    d = e.as_dict()
    assert set(d) == {"mechanism", "epsilon", "worst_expected_error", "worst_counts", "average_expected_error",
                      "calibration"}
