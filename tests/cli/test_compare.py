"""`dpposterior compare`: every release ranked, its pair budget."""

from __future__ import annotations

import json

import pytest

from .helpers import LIMIT_S, assert_clean_refusal, run, run_case, run_json


def test_compare_with_no_row_within_the_pair_budget_is_refused_fast():
    # |R(4000)| at k = 3 is 8e6: no row, not even by its translation structure with the widest bracket (~5.5e8),
    # fits 4e8
    code, out, err, wall = run_case(["compare", "--prior", "1,1,1", "--n", "4000", "--epsilon", "1"])
    assert_clean_refusal(code, out, err, "DPPOSTERIOR_MAX_PAIRS")
    assert wall < 10


def test_compare_over_the_pair_budget_computes_the_rows_that_fit():
    import importlib

    ranking = importlib.import_module("dpposterior.ranking")
    # k = 2, n = 4400: the whole comparison is over the budget; the rows that fit are kept, the rest listed
    with pytest.raises(Exception, match="DPPOSTERIOR_MAX_PAIRS"):
        ranking.check_compare_size(2, 4400)
    left = ranking.plan_compare(2, 4400, 1.0)
    assert "ehds (calibrated)" in left and "geometric" not in left and "optimal (worst)" not in left
    assert all("DPPOSTERIOR_MAX_PAIRS" in v for v in left.values())
    # k = 3, n = 1000: geometric by its translation structure (the dense walk needs 5e11 evaluations)
    left = ranking.plan_compare(3, 1000, 1.0)
    assert "geometric" not in left and "ehds" in left
    assert ranking.row_work(next(v for v in ranking.compare_variants() if v.label == "geometric"), 3, 1000, 1.0)[1] == \
        "translation"


def test_compare_at_k4_n100_plans_geometric_by_factors_and_lists_the_rest(monkeypatch):
    import importlib

    ranking = importlib.import_module("dpposterior.ranking")
    mechanisms = importlib.import_module("dpposterior.mechanisms")
    geometric = mechanisms.MECHANISMS["geometric"]
    # |R(100)| = 176,851 at k = 4: no dense walk fits; geometric's translation structure by Bhattacharyya factors
    # with a 1e-4 bracket (~31,000 offsets) is estimated at ~55 s, over the default 4e8 (40 s); with the widest
    # bracket, 1e-3, at ~27 s: computed there, every other row listed not computed or refused for its size
    assert geometric.translation_plan(100, 4, 1.0)[:2] == ("factors", 1e-3)
    left = ranking.plan_compare(4, 100, 1.0)
    assert "geometric" not in left and {"ehds", "lszhang", "lshist", "lsdim"} <= set(left)
    assert all("DPPOSTERIOR_MAX_PAIRS" in v for v in left.values())
    # with the budget raised to 6e8, the finer bracket
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "6e8")
    assert geometric.translation_plan(100, 4, 1.0)[:2] == ("factors", 1e-4)
    left = ranking.plan_compare(4, 100, 1.0)
    assert "geometric" not in left and {"ehds", "lszhang", "lshist", "lsdim"} <= set(left)
    # k = 3, n = 1000 keeps its loss route (its numbers, bit for bit)
    monkeypatch.delenv("DPPOSTERIOR_MAX_PAIRS")
    assert geometric.translation_plan(1000, 3, 1.0)[:2] == ("loss", 1e-5)


def test_a_compare_no_row_of_which_fits_names_the_setting_and_the_row_it_ranks(monkeypatch):
    import importlib
    import re

    ranking = importlib.import_module("dpposterior.ranking")
    for k, n in ((4, 130), (3, 4000)):
        with pytest.raises(Exception) as info:
            ranking.plan_compare(k, n, 1.0)
        text = str(info.value)
        assert "\n" not in text and "no release fits the budget of 4e+08" in text
        found = re.search(r"DPPOSTERIOR_MAX_PAIRS to (\S+) or more to rank (.+?) \(its (\w+) route needs ~([\d,]+),", text)
        assert found, text
        setting, label, route, work = found.group(1), found.group(2), found.group(3), int(found.group(4).replace(",", ""))
        # the costs at that setting (a translation route's bracket, and so its cost, depends on the budget)
        costs = {v.label: ranking.row_work(v, k, n, 1.0, limit=float(setting)) for v in ranking.compare_variants()}
        assert costs[label] == (work, route)
        cheapest = min(w for w, r in costs.values() if r != "refused for size")
        assert work <= float(setting) <= 1.1 * cheapest
        # the advice holds: with the setting the message names, that row is ranked (not listed as left out)
        monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", setting)
        assert label not in ranking.plan_compare(k, n, 1.0)
        monkeypatch.delenv("DPPOSTERIOR_MAX_PAIRS")


def test_compare_budget_counts_every_row():
    import importlib

    cli = importlib.import_module("dpposterior.ranking")

    # 5 exponential rows, each also calibrated (2 + 20 passes), 4 closed-form rows (2), and 3 solved rows (the two
    # optimal objectives and remapped-geometric: 2 + a certificate scan), at any n at k = 2; the two lattice rows
    # (solved) up to |R(n)| = 60
    assert cli.compare_passes(2, 1000) == 5 * 2 + 5 * 22 + 4 * 2 + 3 * 3
    assert cli.compare_passes(2, 12) == 5 * 2 + 5 * 22 + 4 * 2 + 5 * 3
    with pytest.raises(Exception, match="DPPOSTERIOR_MAX_PAIRS"):
        cli.check_compare_size(2, 1767)  # 128 x 1768^2 > 4e8 without the solved rows
    assert cli.check_compare_size(2, 1688) == {}  # 137 x 1689^2 plus the solves is within 4e8
    # the solves count too: past the budget the solved rows are listed as too large, the rest computed
    assert cli.check_compare_size(2, 200) == {} and cli.check_compare_size(3, 11) == {}
    for k, n in ((2, 1689), (2, 1766), (3, 12), (3, 21)):
        left = cli.check_compare_size(k, n)
        assert set(left) == {"optimal (worst)", "optimal (average)", "remapped-geometric", "lattice (worst)",
                             "lattice (average)"}
        assert all("DPPOSTERIOR_MAX_PAIRS" in v for v in left.values())


def test_compare_lists_optimal_rows_over_the_budget_as_too_large():
    """k = 3, n = 21: within optimal.MAX_OUTPUTS, but its linear programs took over 12 min here."""
    code, out, err, wall = run_case(["compare", "--prior", "1,1,1", "--n", "21", "--epsilon", "1", "--json"])
    assert code == 0, err[-2000:]
    rows = {r["release"]: r for r in json.loads(out)["releases"]}
    assert "DPPOSTERIOR_MAX_PAIRS" in rows["optimal (worst)"]["error"] and "error" not in rows["ehds"]
    assert wall < LIMIT_S


def test_compare_refuses_from_the_budget_setting():
    code, out, err, _ = run_case(["compare", "--prior", "1,1", "--n", "40", "--epsilon", "1"],
                                 env={"DPPOSTERIOR_MAX_PAIRS": "1e3"})  # below every row's own cost
    assert_clean_refusal(code, out, err, "DPPOSTERIOR_MAX_PAIRS")


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
    # k = 2 is exact at any n since the optimum became geometric + remap; the k = 3 LP has a size limit
    code, out, err = run(capsys, "compare", "--prior", "1,1,1", "--n", "30", "--epsilon", "1")
    assert code == 0, err
    assert "optimal (worst)" in out and "not computed" in out


@pytest.mark.parametrize("eps", ["31", "1000"])
def test_compare_marks_the_rows_it_cannot_compute(capsys, eps):
    code, out, err = run(capsys, "compare", "--prior", "1,1", "--n", "4", "--epsilon", eps)
    assert code == 0 and err == "", err
    lines = out.splitlines()
    assert sum("not computed" in ln and ln.startswith("optimal") for ln in lines) == 2
    assert any(ln.startswith("geometric ") and "not computed" not in ln for ln in lines)
    code, out, _ = run(capsys, "compare", "--prior", "1,1", "--n", "4", "--epsilon", eps, "--json")
    rows = json.loads(out)["releases"]
    assert code == 0 and sum("error" in r for r in rows) == 2 and len(rows) > 10


def test_compare_with_delta_reaches_mh_delta_only(capsys):
    code, out, err = run(capsys, "compare", "--prior", "1,1", "--n", "4", "--epsilon", "1", "--delta", "0.01", "--json")
    rows = json.loads(out)["releases"]
    assert code == 0 and not any("error" in r for r in rows if not r["release"].startswith("optimal")), err


def test_compare_prints_every_release_over_the_yardstick(capsys):
    code, out, err = run(capsys, "compare", "--prior", "1,1,1", "--n", "4", "--epsilon", "1", "--json")
    assert code == 0, err
    doc = json.loads(out)
    y = doc["yardstick"]
    assert "LP optimum" in y["worst_bound"] and "LP optimum" in y["average_bound"]  # the LP runs at n = 4
    for r in doc["releases"]:
        if "error" not in r:
            assert r["worst_expected_error"] >= y["worst"] - 1e-7 and r["average_expected_error"] >= y["average"] - 1e-7
            assert r["worst_over_yardstick"] == pytest.approx(r["worst_expected_error"] / y["worst"])
    code, out, err = run(capsys, "compare", "--prior", "1,1,1", "--n", "4", "--epsilon", "1")
    assert code == 0 and "yardstick (certified lower bounds" in out and "worst / yardstick" in out
