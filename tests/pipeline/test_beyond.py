"""Beyond-the-drafts experiments (dpposterior.paper.beyond): the expected-error grid."""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior.accuracy import expected_errors
from dpposterior.paper import beyond


def test_grid_matches_expected_errors_and_skips_large_points():
    spec = {"priors": [[1, 1], [1, 1, 1]], "n": [4, 30], "epsilon": [0.5, 1.0], "delta": 1e-8, "max_candidates": 100}
    df = beyond.expected_error_grid("ehds~calibrated", spec)
    assert set(zip(df.k, df.n)) == {(2, 4), (2, 30), (3, 4)}  # k = 3, n = 30 has 496 > 100 candidates
    row = df[(df.k == 2) & (df.n == 30) & (df.epsilon == 0.5)].iloc[0]
    e = expected_errors("ehds", [1, 1], 30, epsilon=0.5, calibrate=True)
    assert row.worst == pytest.approx(e.worst, rel=1e-12) and row.average == pytest.approx(e.average, rel=1e-12)
    assert row.kappa == pytest.approx(e.calibration.factor) and row.certified_epsilon <= 0.5
    assert row.pure_dp and row.private


def test_calibrated_max_n_keeps_a_row_for_a_calibrated_variant_above_it_only():
    spec = {"priors": [[1, 1]], "n": [4, 30], "epsilon": [1.0], "delta": 1e-8, "max_candidates": 100,
            "calibrated_max_n": 10}
    cal = beyond.expected_error_grid("ehds~calibrated", spec).set_index("n")
    assert cal.loc[4, "status"] == "ok" and np.isfinite(cal.loc[4, "kappa"])
    assert "calibrated_max_n = 10" in cal.loc[30, "status"] and np.isnan(cal.loc[30, "worst"])
    assert (beyond.expected_error_grid("ehds", spec).status == "ok").all()  # the plain mechanism is not capped
    assert (beyond.expected_error_grid("ehds~calibrated", {**spec, "calibrated_max_n": None}).status == "ok").all()


def test_grid_keeps_a_size_refusal_as_a_row():
    # k = 2 runs at any n (geometric + remap); at k = 4 past the linear program's size, the lattice release's minimax
    # remap keeps its time budget (at k = 3 the corner remap runs past it)
    df = beyond.expected_error_grid("optimal~worst", {"priors": [[1, 1, 1, 1]], "n": [10], "epsilon": [1.0],
                                                      "delta": 1e-8, "max_candidates": 1000})
    assert len(df) == 1 and np.isnan(df.worst.iloc[0]) and "over the limit" in df.status.iloc[0]


def test_lp_oracle_is_recorded_where_the_lp_runs_and_matches_geometric_plus_remap():
    spec = {"priors": [[1, 1], [1, 1, 1]], "n": [10, 300], "epsilon": [1.0], "delta": 1e-8, "max_candidates": 400,
            "lp_oracle": True}
    for name, objective in (("optimal~worst", "worst"), ("optimal~average", "average")):
        df = beyond.expected_error_grid(name, spec).set_index(["k", "n"])
        row = df.loc[(2, 10)]
        assert row.oracle_objective == objective
        assert row.oracle == pytest.approx(row[objective], rel=1e-6)
        assert np.isnan(df.loc[(2, 300)].oracle)  # past the LP's limit (n + 1 > 260): no oracle, still a value
        assert np.isfinite(df.loc[(2, 300)][objective])
        assert np.isnan(df.loc[(3, 10)].oracle)  # k = 3 is the LP itself
    # without the key (or for a mechanism without an oracle) nothing is solved
    plain = beyond.expected_error_grid("optimal~worst", {**spec, "lp_oracle": False})
    assert plain.oracle.isna().all()
    assert beyond.expected_error_grid("geometric", spec).oracle.isna().all()


def test_tailoring_grid_measures_each_release_by_each_distance():
    spec = {"priors": [[1, 1]], "n": [12], "epsilon": [1.5], "delta": 1e-8, "max_candidates": 100,
            "distances": ["hellinger", "kl"], "measures": ["hellinger", "kl"]}
    df = beyond.expected_error_grid("optimal~average", spec).set_index(["distance", "measure"])
    assert len(df) == 4
    for d in ("hellinger", "kl"):
        for m in ("hellinger", "kl"):
            want = expected_errors("optimal", [1, 1], 12, epsilon=1.5, objective="average", distance=d, measure=m)
            assert df.loc[(d, m)].average == pytest.approx(want.average, rel=1e-12)
    # the release tailored to the measure is the best under it (the Bayes remap is the average optimum)
    assert df.loc[("kl", "hellinger")].average >= df.loc[("hellinger", "hellinger")].average * (1 - 1e-12)
    assert df.loc[("hellinger", "kl")].average >= df.loc[("kl", "kl")].average * (1 - 1e-12)
    geo = beyond.expected_error_grid("geometric", spec)
    assert geo.distance.isna().all() and sorted(geo.measure) == ["hellinger", "kl"]
