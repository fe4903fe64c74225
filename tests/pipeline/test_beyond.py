"""Beyond-the-drafts experiments (dpposterior.paper.beyond): the expected-error grid."""

from __future__ import annotations

import json

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
    # k = 2 runs at any n (geometric + remap); at k = 4, n = 40 past the linear program's size, the lattice release's
    # errors keep their budget: at eps = 0.5 the batched local search by orbits is planned at ~60 s of solve, over
    # the 45 s limit (n = 30 now runs: the search shares one search a clamp group)
    df = beyond.expected_error_grid("optimal~worst", {"priors": [[1, 1, 1, 1]], "n": [40], "epsilon": [0.5],
                                                      "delta": 1e-8, "max_candidates": 13000})
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


def test_a_grid_takes_the_rows_of_the_same_release_from_the_other_grid_and_they_are_its_own(monkeypatch):
    # k = 3 past the linear program (its size limit lowered to 9 outputs here) optimal~X is the lattice release: its
    # grid takes those rows from lattice~X's grid, and the frame is the one it computes on its own; k = 2 (optimal's
    # own remap) and rows the other grid does not have are computed
    from dpposterior.mechanisms import optimal

    monkeypatch.setattr(optimal, "MAX_OUTPUTS", 9)
    spec = {"priors": [[1, 1], [1, 1, 1]], "n": [3, 4], "epsilon": [1.0, 2.0], "delta": 1e-8, "max_candidates": 100}
    assert beyond.same_release_source("optimal~average", ["ehd", "lattice~average"]) == "lattice~average"
    assert beyond.same_release_source("optimal~average", ["lattice~worst"]) is None
    assert beyond.same_release_source("lattice~average", ["optimal~average"]) is None
    real, calls = beyond.expected_errors, []

    def counted(*args, **kw):
        calls.append(args[2])
        return real(*args, **kw)

    for objective in ("average", "worst"):
        other = beyond.expected_error_grid(f"lattice~{objective}", spec)
        alone = beyond.expected_error_grid(f"optimal~{objective}", spec)
        assert (alone.k == 3).sum() == 4 and (alone[alone.k == 3].status == "ok").all()
        monkeypatch.setattr(beyond, "expected_errors", counted)
        calls.clear()
        both = beyond.expected_error_grid(f"optimal~{objective}", spec, other)
        assert calls == [3, 3, 4, 4]  # k = 2 only: the four k = 3 rows were taken
        assert both.to_json() == alone.to_json()
        # a row the other grid refused (or does not have) is computed: nothing is taken from a refusal
        calls.clear()
        again = beyond.expected_error_grid(f"optimal~{objective}", spec,
                                           other.assign(status=np.where(other.k == 3, "refused", other.status)))
        assert len(calls) == 8 and again.to_json() == alone.to_json()
        monkeypatch.setattr(beyond, "expected_errors", real)


def frame_bits(df):
    """Every cell of a grid, floats by their bits (NaN included), lists and strings by value."""
    out = {}
    for col in df.columns:
        v = df[col]
        out[col] = (v.to_numpy().tobytes() if v.dtype.kind in "fiub"
                    else [None if x is None else [int(y) for y in x] if col == "worst_counts" else
                          [float(y) for y in x] if col == "prior" else x for x in v])
    return out


@pytest.mark.parametrize("name", ["ehds~calibrated", "optimal~worst", "geometric"])
def test_a_grid_takes_the_points_an_earlier_grid_computed_and_they_are_its_own(monkeypatch, name):
    # the earlier experiment shares (Beta(1,1), n = 6, eps = 1) and (n = 6, eps = 2); its row at eps = 2 is made a
    # refusal here, so only eps = 1 is taken; the rest (n = 9, eps 0.5, k = 3) is computed
    early = {"priors": [[1, 1], [2, 2]], "n": [6, 40], "epsilon": [1.0, 2.0], "delta": 1e-8, "max_candidates": 100,
             "lp_oracle": True}
    spec = {"priors": [[1, 1], [1, 1, 1]], "n": [6, 9], "epsilon": [0.5, 1.0, 2.0], "delta": 1e-8,
            "max_candidates": 100}
    other = beyond.expected_error_grid(name, early)
    other.loc[(other.n == 6) & (other.epsilon == 2.0), "status"] = "refused"
    alone = beyond.expected_error_grid(name, spec)
    real, calls = beyond.expected_errors, []

    def counted(release, prior, n, **kw):
        calls.append((len(prior), n, release.epsilon))
        return real(release, prior, n, **kw)

    monkeypatch.setattr(beyond, "expected_errors", counted)
    both = beyond.expected_error_grid(name, spec, earlier=[other])
    assert (2, 6, 1.0) not in calls and (2, 6, 2.0) in calls and len(calls) == len(alone) - 1
    assert frame_bits(both) == frame_bits(alone)
    if name.endswith("~calibrated"):  # the calibration's factor is the point's own, taken with it
        assert np.isfinite(both.kappa).all()


def test_earlier_sources_are_the_experiments_before_that_share_a_point_at_the_same_delta():
    base = {"priors": [[1, 1]], "n": [5, 10], "epsilon": [1.0], "delta": 1e-8, "max_candidates": 100,
            "mechanisms": ["ehd", "geometric"]}
    specs = {"a": base, "b": {**base, "n": [20]}, "c": {**base, "delta": 1e-6}, "d": {**base, "n": [10, 50]},
             "e": {**base, "mechanisms": ["ehd"]}}
    assert beyond.earlier_sources("geometric", "a", specs) == []  # nothing before it
    assert beyond.earlier_sources("geometric", "b", specs) == []  # no point in common
    assert beyond.earlier_sources("geometric", "c", specs) == []  # another delta
    assert beyond.earlier_sources("geometric", "d", specs) == ["a"]
    assert beyond.earlier_sources("geometric", "e", specs) == ["a", "d"]  # geometric is not among e's own
    assert beyond.earlier_sources("ehd", "e", specs) == ["a", "d"]
    # a tailored mechanism's points carry its distance: other distances are other points
    tail = {**base, "distances": ["tv"]}
    assert beyond.earlier_sources("ehd", "t", {"a": base, "t": tail}) == []
    assert beyond.earlier_sources("geometric", "t", {"a": base, "t": tail}) == ["a"]  # not tailored: one pass


def test_points_past_max_candidates_are_kept_up_to_local_max_candidates_for_a_local_route_only():
    # k = 3, n = 60 (|R(n)| = 1891) past max_candidates = 100: lattice~average's planned route there is its local
    # search, which does not walk R(n), so its row is computed; geometric's (dense rows) and ehd's do, so their
    # point is skipped; past local_max_candidates every point is
    spec = {"priors": [[1, 1, 1]], "n": [5, 60], "epsilon": [1.0], "delta": 1e-8, "max_candidates": 100}
    assert list(beyond.expected_error_grid("lattice~average", spec).n) == [5]
    local = {**spec, "local_max_candidates": 1891}
    lat = beyond.expected_error_grid("lattice~average", local).set_index("n")
    assert list(lat.index) == [5, 60] and (lat.status == "ok").all()
    want = expected_errors("lattice", [1, 1, 1], 60, epsilon=1.0, objective="average")
    assert (lat.loc[60].worst, lat.loc[60].average) == (want.worst, want.average)
    assert list(beyond.expected_error_grid("geometric", local).n) == [5]
    assert list(beyond.expected_error_grid("ehd", local).n) == [5]
    assert list(beyond.expected_error_grid("lattice~average", {**local, "local_max_candidates": 1890}).n) == [5]


def test_local_k_and_local_mechanisms_keep_points_past_max_candidates_only_at_those_k_and_for_those_mechanisms():
    # k = 3, n = 20 and 60, k = 4, n = 20 (|R(n)| = 231, 1891, 1771) past max_candidates = 100: with local_k [3] only
    # the k = 3 points are kept, with local_mechanisms only for the mechanisms named; the yardstick's points follow local_k
    spec = {"priors": [[1, 1, 1], [1, 1, 1, 1]], "n": [5, 20, 60], "epsilon": [1.0], "delta": 1e-8,
            "max_candidates": 100, "local_max_candidates": 1891}
    assert beyond.kept_past_rows(spec, 4, "lattice~worst")  # absent: every k, every mechanism
    only3 = {**spec, "local_k": [3]}
    assert sorted({(len(p), n) for p, n, _ in beyond.yardstick_points(only3)}) == [(3, 5), (3, 20), (3, 60), (4, 5)]
    assert sorted({(len(p), n) for p, n, _ in beyond.yardstick_points(spec)}) == \
        [(3, 5), (3, 20), (3, 60), (4, 5), (4, 20)]
    assert sorted({(len(p), n) for p, n, *_ in beyond.grid_points("lattice~average", only3)}) == \
        [(3, 5), (3, 20), (3, 60), (4, 5)]
    named = {**only3, "local_mechanisms": ["lattice~worst"]}
    assert not beyond.kept_past_rows(named, 3, "lattice~average") and beyond.kept_past_rows(named, 3, "lattice~worst")
    assert {(len(p), n) for p, n, *_ in beyond.grid_points("lattice~average", named)} == {(3, 5), (4, 5)}
    assert not beyond.kept_past_rows(named, 4, "lattice~worst")
    grid = beyond.expected_error_grid("lattice~average", {**named, "n": [5, 20]})
    assert sorted(zip(grid.k, grid.n)) == [(3, 5), (4, 5)]
    grid = beyond.expected_error_grid("lattice~average", {**only3, "n": [5, 20]})
    assert sorted(zip(grid.k, grid.n)) == [(3, 5), (3, 20), (4, 5)]


def test_the_laplace_entries_take_the_rows_of_the_same_scale_from_lszhang_and_they_are_their_own(monkeypatch):
    # lshist's scale is lszhang's 2 / eps at k >= 3 (1 / eps at k = 2), lsdim's is at k = 2 (k / eps at k >= 3): each
    # grid takes those rows from lszhang's grid, and the frame is, cell for cell, the one it computes on its own; the
    # other rows are computed
    spec = {"priors": [[1, 1], [1, 1, 1]], "n": [3, 4], "epsilon": [1.0, 2.0], "delta": 1e-8, "max_candidates": 100}
    mechanisms = ["ehd", "lszhang", "lsdim", "lshist"]
    assert beyond.same_release_source("lshist", mechanisms) == "lszhang"
    assert beyond.same_release_source("lsdim", mechanisms) == "lszhang"
    assert beyond.same_release_source("lshist", ["lsdim", "lshist"]) is None
    other = beyond.expected_error_grid("lszhang", spec)
    real, calls = beyond.expected_errors, []

    def counted(*args, **kw):
        calls.append((len(args[1]), args[2]))
        return real(*args, **kw)

    for name, computed in (("lshist", [(2, 3), (2, 3), (2, 4), (2, 4)]), ("lsdim", [(3, 3), (3, 3), (3, 4), (3, 4)])):
        alone = beyond.expected_error_grid(name, spec)
        monkeypatch.setattr(beyond, "expected_errors", counted)
        calls.clear()
        both = beyond.expected_error_grid(name, spec, other)
        monkeypatch.setattr(beyond, "expected_errors", real)
        assert calls == computed
        for col in ("worst", "average", "kappa", "certified_epsilon", "status", "is_optimum", "mechanism"):
            assert both[col].astype(str).tolist() == alone[col].astype(str).tolist(), (name, col)
        assert both.worst_counts.map(list).tolist() == alone.worst_counts.map(list).tolist()
        assert (both.worst.to_numpy() == alone.worst.to_numpy()).all()
        assert (both.average.to_numpy() == alone.average.to_numpy()).all()


@pytest.mark.parametrize("same,earlier", [("", "[]"), ("results/expected_error/a b/lattice~worst.parquet",
                                                      '["results/expected_error/x y/ehd.parquet", "r/e/f/ehd.parquet"]')])
def test_the_expected_error_command_parses_with_and_without_the_same_release_grid(same, earlier):
    # Snakemake formats an empty param quoted as nothing: the flag is written --same-release=VALUE, so a job without
    # a same-release grid still parses (an empty value), and a path with a space stays one argument
    import shlex

    from snakemake.iocontainers import Namedlist
    from snakemake.utils import format as smk_format

    from dpposterior.paper.__main__ import build_parser
    from dpposterior.paper.stages import STAGES

    def named(**kw):
        out = Namedlist()
        for key, value in kw.items():
            out.append(value)
            out._add_name(key)
        return out

    line = smk_format(STAGES["expected_error"].command(), wildcards=named(experiment="frontier", mechanism="optimal~worst"),
                      params=named(spec="{}", same=same, earlier=earlier), output=named(expected_error="out.parquet"),
                      log="job.log")
    args = build_parser().parse_args(shlex.split(line.split(" > ")[0])[3:])
    assert args.same_release == same and args.out_expected_error == "out.parquet"
    assert json.loads(args.earlier_grids) == json.loads(earlier)


def test_a_row_taken_at_k3_brings_its_is_optimum_and_no_lp_is_solved_again(monkeypatch):
    """``optimal~worst`` at k = 3 decides ``is_optimum`` by solving its LP (:meth:`uses_lattice`): a row taken from an
    earlier grid brings that grid's answer, so only the points computed here solve one, with the same grid."""
    from dpposterior.mechanisms import optimal

    early = {"priors": [[1, 1, 1]], "n": [4], "epsilon": [1.0], "delta": 1e-8, "max_candidates": 100}
    spec = {"priors": [[1, 1, 1]], "n": [4], "epsilon": [1.0, 2.0], "delta": 1e-8, "max_candidates": 100}
    other = beyond.expected_error_grid("optimal~worst", early)
    alone = beyond.expected_error_grid("optimal~worst", spec)
    assert alone.is_optimum.all()
    optimal._solved.cache_clear()
    real, solved = optimal.solve_table, []

    def counted(a, n, epsilon, objective, *rest, **kw):
        solved.append((n, epsilon))
        return real(a, n, epsilon, objective, *rest, **kw)

    monkeypatch.setattr(optimal, "solve_table", counted)
    both = beyond.expected_error_grid("optimal~worst", spec, earlier=[other])
    assert solved == [(4, 2.0)]
    assert frame_bits(both) == frame_bits(alone)


def test_batched_search_max_n_keeps_a_row_for_the_batched_route_above_it_only():
    """k = 4, eps = 1: n = 10 is planned on the batched local search (capped: a row saying so, with its plan's
    seconds), n = 5 on the window's remap (computed whatever the cap); without the cap the plan decides."""
    spec = {"priors": [[1, 1, 1, 1]], "n": [5, 10], "epsilon": [1.0], "delta": 1e-8, "max_candidates": 1000,
            "batched_search_max_n": 4}
    df = beyond.expected_error_grid("lattice~average", spec).set_index("n")
    assert df.loc[5, "status"] == "ok" and np.isfinite(df.loc[5, "average"])
    assert "batched_search_max_n" in df.loc[10, "status"] and np.isnan(df.loc[10, "average"])
    assert "batched local search (planned" in df.loc[10, "status"]
    geo = beyond.expected_error_grid("geometric", {**spec, "n": [10]})
    assert (geo.status == "ok").all()  # another route is not capped
