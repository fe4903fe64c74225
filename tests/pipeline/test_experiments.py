"""The experiment functions behind the pipeline stages, on small inputs."""

import numpy as np
import pandas as pd
import pytest

from dpposterior.paper import experiments as E


def test_data_points_kinds():
    d = E.data_points({"kind": "n-series", "prior": [1, 1], "n": [10, 20], "proportions": [0.1, 0.9]})
    assert d.counts.tolist() == [[1, 9], [2, 18]] and d.n.tolist() == [10, 20] and (d.kind == "n-series").all()
    d = E.data_points({"kind": "prior-series", "counts": [5, 5, 5], "a": [1, 2.5]})
    assert d.prior.tolist() == [[1.0] * 3, [2.5] * 3] and d.label.tolist() == ["1", "2.5"]
    d = E.data_points({"kind": "counts-series", "prior_value": 1.0, "counts": [[2, 2], [2, 2, 2]]})
    assert d.k.tolist() == [2, 3] and d.x.tolist() == [0.0, 1.0]
    with pytest.raises(ValueError):
        E.data_points({"kind": "other"})


def test_job_rng_is_stable_and_distinct():
    a, la = E.job_rng(1, "accuracy", "e", "mh", 0)
    b, _ = E.job_rng(1, "accuracy", "e", "mh", 0)
    c, _ = E.job_rng(1, "accuracy", "e", "mh", 1)
    assert la == "1/accuracy/e/mh/0"
    x, y, z = a.random(3), b.random(3), c.random(3)
    assert np.array_equal(x, y) and not np.array_equal(x, z)


def test_error_summary_uses_exact_where_known():
    runs = pd.DataFrame({"mechanism": "m", "point": [0] * 4 + [1] * 4, "x": [1.0] * 4 + [2.0] * 4,
                         "label": ["1"] * 4 + ["2"] * 4, "n": [1] * 4 + [2] * 4,
                         "error": [0.1, 0.2, 0.3, 0.4, 1.0, 1.0, 2.0, 2.0]})
    exact = pd.DataFrame({"mechanism": "m", "point": [0, 1], "mean": [0.25, np.nan]})
    s = E.error_summary(runs, exact).set_index("point")
    assert s.loc[0, "value"] == 0.25 and s.loc[0, "se"] == 0 and s.loc[0, "is_exact"]
    assert s.loc[1, "value"] == pytest.approx(1.5) and s.loc[1, "se"] == pytest.approx(np.std([1, 1, 2, 2], ddof=1) / 2)
    assert s.loc[1, "mc_low"] < 1.5 < s.loc[1, "mc_high"]


def test_exact_pmf_sums_to_one_and_formula_laplace_drops_the_tails():
    spec = {"prior": [1, 1], "counts": [4, 4], "epsilon": 0.8, "delta": 1e-8}
    pmf, tails = E.exact_pmf("t", "mh", spec)
    assert pmf.prob.sum() == pytest.approx(1.0) and pmf.is_truth.sum() == 1
    assert tails.tail_prob.iloc[0] == pytest.approx(1.0) and tails.bound.notna().all()
    lap, _ = E.exact_pmf("t", "formula-laplace", spec)
    assert lap.prob.sum() == pytest.approx(1 - np.exp(-2), abs=1e-9)  # the workshop draft's Table 1 column sum


def test_exact_pmf_of_the_lattice_release_is_its_pmf_at_one_data_set():
    """lattice~average: the lower ends at this c (the remap near c), within the tail bounds of the rows over R(n)."""
    import dpposterior as dp

    spec = {"prior": [1, 1, 1], "counts": [2, 1, 1], "epsilon": 1.0, "delta": 1e-8}
    pmf, tails = E.exact_pmf("t", "lattice~average", spec)
    rows = np.exp(dp.log_pmf("lattice", (1, 1, 1), (2, 1, 1), epsilon=1.0, objective="average"))
    assert np.abs(pmf.prob.to_numpy() - rows).max() <= 2e-9 and 1 - 1e-9 <= pmf.prob.sum() <= 1 + 1e-12
    assert (pmf.mechanism == "lattice~average").all() and pmf.is_truth.sum() == 1 and tails.bound.isna().all()
    assert tails.tail_prob.iloc[0] == pytest.approx(pmf.prob.sum())


def test_privacy_split_into_one_n_slices_merges_to_the_same_table(tmp_path):
    """A split privacy entry (one job per n, then a merge) writes the bytes one job over the grid writes."""
    from dpposterior.errors import InputError

    spec = {"prior": [1, 1, 1], "n": [6, 3, 9], "epsilon": 1.0, "delta": 5e-4}
    whole = E.privacy_loss("x", "mh-delta", spec)
    slices = [E.privacy_loss("x", "mh-delta", spec | {"n": [n]}) for n in (9, 6, 3)]  # any order
    merged = E.merge_privacy_slices(spec, slices)
    pd.testing.assert_frame_equal(merged, whole)
    E.write_parquet(whole, tmp_path / "whole.parquet")
    E.write_parquet(merged, tmp_path / "merged.parquet")
    assert (tmp_path / "whole.parquet").read_bytes() == (tmp_path / "merged.parquet").read_bytes()
    with pytest.raises(InputError, match="cover"):
        E.merge_privacy_slices(spec, slices[:2])
    with pytest.raises(InputError, match="each n once"):
        E.merge_privacy_slices(spec, slices + slices[:1])
    with pytest.raises(InputError, match="one n"):
        E.merge_privacy_slices(spec, [whole])


def test_accuracy_runs_skip_points_past_max_n_and_keep_mc_where_the_pmf_is_refused():
    d = E.data_points({"kind": "n-series", "prior": [1, 1, 1], "n": [6, 60]})
    runs, exact = E.accuracy_runs("e", "lattice~average", d, epsilon=1.0, delta=1e-8, seed=1, runs=5,
                                  exact_max=10**6, log=lambda _: None, max_n=6)
    assert runs.n.unique().tolist() == [6] and exact.n.tolist() == [6] and np.isfinite(exact["mean"]).all()
    # n = 60: its draws run the local search and its exact pmf is refused: Monte Carlo rows, NaN exact law
    runs, exact = E.accuracy_runs("e", "lattice~average", d.iloc[1:], epsilon=1.0, delta=1e-8, seed=1, runs=5,
                                  exact_max=10**6, log=lambda _: None)
    assert len(runs) == 5 and np.isnan(exact["mean"]).all() and exact.n.tolist() == [60]
