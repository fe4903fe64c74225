"""`dpposterior compare`: every release ranked, its pair budget."""

from __future__ import annotations

import json

import pytest

from .helpers import LIMIT_S, assert_clean_refusal, run, run_case, run_json

#: The hang guard of a ``compare`` run in a fresh process, as a multiple of what the call states it will take (its
#: plans' estimates): a timeout far above it, not a speed assert (how close the estimates come to the CPU time is
#: measured by benchmarks/plans.py and benchmarks/compare_grid.py; on the shared 2-core host, wall time has run 10-25x
#: the CPU time under load, docs/budgets.md).
HANG_FACTOR = 30.0


def _stated_seconds(k: int, n: int, eps: float = 1.0) -> float:
    """What ``compare --prior 1,...,1 --n n --epsilon eps`` states it takes, from public inputs (docs/budgets.md): its
    admitted rows' estimates (:func:`dpposterior.ranking.plan_compare`, within ``DPPOSTERIOR_MAX_COMPARE_SECONDS``
    together), its one-count bound's k = 2 solves and its yardstick's block plans (:func:`dpposterior.ranking.
    yardstick_reserve`: within what the releases built for an objective leave, at most YARDSTICK_SHARE of the limit);
    a call that no row fits states its plans' refusal only."""
    import importlib

    import numpy as np

    ranking = importlib.import_module("dpposterior.ranking")
    yard = importlib.import_module("dpposterior.yardstick")
    a = np.ones(k)
    try:
        plans = list(_plans(k, n, eps).values())
    except importlib.import_module("dpposterior.errors").SizeError:  # refused by its plans before any row runs
        return 0.0
    rows = sum(r.plan.seconds for r in plans if not r.left_out and not r.same_as)
    return rows + max(ranking.yardstick_reserve(a, n, eps, plans), yard.marginal_seconds(a, n, eps))


def _hang_guard(k: int, n: int, eps: float = 1.0) -> float:
    """The timeout of a ``compare`` run: :data:`HANG_FACTOR` times its stated seconds, and at least 300 s for the
    interpreter's start and imports under load (a refusal states no computation)."""
    return max(300.0, HANG_FACTOR * _stated_seconds(k, n, eps))


def test_compare_with_no_row_within_the_pair_budget_is_refused_by_its_plan():
    # |R(4000)| at k = 3 is 8e6: no row, not even by its translation structure with the widest bracket (~5.5e8),
    # fits 4e8: the refusal is the plan's, made before any row runs (the same line from planning alone), and the
    # process ends well within the hang guard
    import importlib

    with pytest.raises(importlib.import_module("dpposterior.errors").SizeError) as info:
        _plans(3, 4000)
    code, out, err, _ = run_case(["compare", "--prior", "1,1,1", "--n", "4000", "--epsilon", "1"],
                                 timeout=_hang_guard(3, 4000))
    assert_clean_refusal(code, out, err, "DPPOSTERIOR_MAX_PAIRS")
    assert str(info.value) in err


def _plans(k, n, eps=1.0, **kw):
    import importlib

    import numpy as np

    ranking = importlib.import_module("dpposterior.ranking")
    return {r.variant.label: r for r in ranking.plan_compare(np.ones(k), n, eps, **kw)}


def test_compare_plans_each_row_on_its_own():
    # k = 2, n = 4400: the calibrated rows' dense walks (22 x |R(n)|^2) are over the pair limit, each on its own; every
    # other row fits its own plan and is computed, whatever the others cost
    plans = _plans(2, 4400)
    left = {label for label, r in plans.items() if r.left_out}
    assert left == {f"{m} (calibrated)" for m in ("ehd", "ehdl", "ehds", "mh", "mh-delta")}
    assert all("DPPOSTERIOR_MAX_PAIRS" in plans[label].left_out for label in left)
    assert plans["optimal (worst)"].plan.route == "remap risk" and plans["lshist"].plan.route == "dense rows"
    # k = 3, n = 1000: geometric by its translation structure, the lattice release's average by its local remap;
    # optimal past its linear program is the lattice release, with the same plan
    plans = _plans(3, 1000)
    assert plans["geometric"].plan.route == "translation (loss)" and not plans["geometric"].left_out
    assert plans["lattice (average)"].plan.route == "local search" and not plans["lattice (average)"].left_out
    opt, lat = plans["optimal (average)"].plan, plans["lattice (average)"].plan
    assert (opt.route, opt.seconds, opt.memory_bytes, opt.costs) == (lat.route, lat.seconds, lat.memory_bytes, lat.costs)
    assert plans["ehds"].left_out


def test_a_dear_row_never_leaves_out_a_cheaper_one(monkeypatch):
    # the total limit takes the rows of the releases built for an objective (optimal, lattice) first (their average rows
    # before their others), then the others, each group cheapest first: every row it leaves out costs at least as much
    # as every row of its group it computes,
    # a release built for an objective is left out only where those taken before it leave it no room, the rows take at most
    # ROWS_SHARE of the total at k >= 3 (the rest is the yardstick's), and each left-out row says which setting raises it
    import importlib

    ranking = importlib.import_module("dpposterior.ranking")
    for k, n, total in ((3, 12, 1.0), (3, 100, 10.0)):
        monkeypatch.setenv("DPPOSTERIOR_MAX_COMPARE_SECONDS", str(total))
        plans = _plans(k, n)
        taken = [r for r in plans.values() if not r.left_out and not r.same_as]
        by_total = [r for r in plans.values() if "DPPOSTERIOR_MAX_COMPARE_SECONDS" in r.left_out and not r.same_as]
        assert taken and by_total
        starts = ranking.start_releases(k)
        key = {label: (bool(r.variant.entry.objectives), bool(r.variant.entry.objectives) and label in starts)
               for label, r in plans.items()}
        for first in ((True, True), (True, False), (False, False)):
            group = [r.plan.seconds for r in taken if key[r.variant.label] == first]
            out = [r.plan.seconds for r in by_total if key[r.variant.label] == first]
            assert not group or not out or max(group) <= min(out)
        ahead = sum(r.plan.seconds for r in taken if r.variant.entry.objectives)  # what the baselines came after
        assert all(ahead + r.plan.seconds > total * ranking.ROWS_SHARE for r in by_total if r.variant.entry.objectives)
        assert sum(r.plan.seconds for r in taken) <= total * ranking.ROWS_SHARE
        # a baseline is taken only within BASELINES_SHARE, with every row taken before it, and left out by the total
        # only past it
        before = 0.0
        for r in sorted(taken, key=lambda r: (not r.variant.entry.objectives, r.plan.seconds)):
            before += r.plan.seconds
            assert r.variant.entry.objectives or before <= total * ranking.BASELINES_SHARE
        assert all(sum(t.plan.seconds for t in taken if t.variant.entry.objectives or t.plan.seconds <= r.plan.seconds)
                   + r.plan.seconds > total * ranking.BASELINES_SHARE
                   for r in by_total if not r.variant.entry.objectives)
        assert all(r.plan.fits for r in by_total)  # each fits on its own: only the total leaves it out
    # Dir(1,1,1), n = 100, eps = 1 within 10 s: both optimal rows (0.9 and 5.4 s planned) before any baseline (~5.3 s
    # each; cheapest first, one baseline would have left optimal (worst) out)
    assert not plans["optimal (worst)"].left_out and not plans["optimal (average)"].left_out
    assert plans["geometric"].left_out


def test_compare_at_k4_n100_plans_geometric_by_factors_and_lists_the_rest(monkeypatch):
    import importlib

    mechanisms = importlib.import_module("dpposterior.mechanisms")
    geometric = mechanisms.MECHANISMS["geometric"]
    # |R(100)| = 176,851 at k = 4: no dense walk fits; geometric's translation structure by Bhattacharyya factors
    # with a 1e-5 bracket is estimated at ~59 s, over the default 4e8 (40 s); with a 1e-4 bracket at ~36 s: computed
    # there
    assert geometric.translation_plan(100, 4, 1.0)[:2] == ("factors", 1e-4)
    # at Dir(1,1,1,1) (a_1 = a_2 = a_3) the same chain by orbits of the first three counts, ~34 s at 1e-5 (the cap
    # sums' visits at their measured rate)
    assert geometric.translation_plan(100, 4, 1.0, prior=[1.0] * 4)[:2] == ("orbits (factors)", 1e-5)
    plans = _plans(4, 100)
    assert plans["geometric"].plan.route == "translation (orbits (factors))" and plans["geometric"].plan.bracket == 1e-5
    # the worst release's errors by orbits (the rest's sum one data set per orbit, its two solves each within the
    # solve limit) fit, and are taken first (an entry with objectives); geometric (16.7 s planned) and the Laplace
    # release at scale 2/eps (lszhang, and lshist, the same release at k >= 3) fit their own limits, but a baseline
    # stops at BASELINES_SHARE of the total (105 of 150 s), and 94.4 + 16.7 s is past it
    assert plans["lattice (worst)"].plan.route == "corner remap, by orbits" and not plans["lattice (worst)"].left_out
    assert plans["lattice (worst)"].same_as == "optimal (worst)" and not plans["optimal (worst)"].left_out
    assert not plans["geometric"].plan.refused() and not plans["lszhang"].plan.refused()
    assert "DPPOSTERIOR_MAX_COMPARE_SECONDS" in plans["geometric"].left_out
    assert "a baseline and the rows before it" in plans["geometric"].left_out
    assert "DPPOSTERIOR_MAX_COMPARE_SECONDS" in plans["lszhang"].left_out
    assert plans["lshist"].same_as == "lszhang"
    # the exponential mechanisms are over their own limits; lsdim (4/eps at k = 4: lszhang's law at eps 0.5, ~40 s
    # planned) fits its own but not compare's total
    assert "DPPOSTERIOR_MAX_PAIRS" in plans["ehds"].left_out
    assert "DPPOSTERIOR_MAX_COMPARE_SECONDS" in plans["lsdim"].left_out
    # with compare's limit raised past both, geometric comes in
    monkeypatch.setenv("DPPOSTERIOR_MAX_COMPARE_SECONDS", "300")
    assert not _plans(4, 100)["geometric"].left_out
    monkeypatch.delenv("DPPOSTERIOR_MAX_COMPARE_SECONDS")
    # with the pair limit raised to 6e8, the finer bracket off the orbits; by orbits the finest (~17 s planned) down
    # to a limit of 1.7e8, lowered to 1.2e8 the next, to 6e7 the widest
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "6e8")
    assert geometric.translation_plan(100, 4, 1.0)[:2] == ("factors", 1e-5)
    assert _plans(4, 100)["geometric"].plan.bracket == 1e-5
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "1.2e8")
    assert _plans(4, 100)["geometric"].plan.bracket == 1e-4
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "6e7")
    assert _plans(4, 100)["geometric"].plan.bracket == 1e-3
    # k = 3, n = 1000 keeps its loss route (its numbers, bit for bit)
    monkeypatch.delenv("DPPOSTERIOR_MAX_PAIRS")
    assert geometric.translation_plan(1000, 3, 1.0)[:2] == ("loss", 1e-5)


def test_a_compare_no_row_of_which_fits_is_one_line_naming_the_cheapest_row(monkeypatch):
    import importlib

    import numpy as np

    ranking = importlib.import_module("dpposterior.ranking")
    for k, n in ((4, 250), (3, 4000)):
        with pytest.raises(Exception) as info:
            ranking.plan_compare(np.ones(k), n, 1.0)
        text = str(info.value)
        assert "\n" not in text and "no release fits its limits; the cheapest" in text
        assert "DPPOSTERIOR_MAX_PAIRS to raise it" in text


def test_compare_lists_optimal_rows_over_their_limits_as_not_computed():
    """k = 3, n = 30: within optimal.MAX_OUTPUTS, but its linear programs would take hours: optimal is then the
    lattice release, whose worst-case window remap is over the solve limit (~220 s): its worst case is the corner
    remap's, and its average runs.  What the call states it takes (its plans, public inputs only: rows and
    yardstick) is within an interactive call's minute (``LIMIT_S``), the rows it computes are the rows its plans
    admit, and it ends within a hang guard far above what it states (a timeout, not a speed assert)."""
    plans = _plans(3, 30)
    admitted = {label for label, r in plans.items() if not r.left_out}
    assert _stated_seconds(3, 30) <= LIMIT_S
    code, out, err, _ = run_case(["compare", "--prior", "1,1,1", "--n", "30", "--epsilon", "1", "--json"],
                                 timeout=_hang_guard(3, 30))
    assert code == 0, err[-2000:]
    rows = {r["release"]: r for r in json.loads(out)["releases"]}
    assert {label for label, r in rows.items() if "error" not in r} == admitted
    assert "error" not in rows["optimal (worst)"] and "error" not in rows["ehds"]
    assert "error" not in rows["optimal (average)"]
    assert rows["optimal (average)"]["worst_expected_error"] == rows["lattice (average)"]["worst_expected_error"]
    assert rows["optimal (worst)"]["worst_expected_error"] == rows["lattice (worst)"]["worst_expected_error"]
    assert rows["lattice (worst)"]["worst_expected_error"] < rows["lattice (average)"]["worst_expected_error"]
    assert json.loads(out)["releases"][0]["release"] in {"lattice (worst)", "optimal (worst)"}


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
    # k = 2 is exact at any n since the optimum became geometric + remap; the k = 3 LP has a size limit (past it
    # optimal is the lattice release), and at n = 100 the calibrated releases' rows are over theirs
    code, out, err = run(capsys, "compare", "--prior", "1,1,1", "--n", "100", "--epsilon", "1")
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


def test_an_entrys_average_row_is_taken_before_its_worst_row(monkeypatch):
    # Dir(1,1,1,1), n = 50, eps = 1 with compare's limit lowered to 50 s: the average row (27.9 s planned; its worst
    # case is the best ranked there, 0.4835 against the worst row's 0.5304) fits; the worst row (the face table's,
    # 27.9 s past the average's errors it shares: its build read off that search) is left out by the total.  Cheapest
    # first took the baselines and left the average row out.  geometric (12 s by orbits) does not fit what the
    # yardstick's plan leaves, and says so.
    monkeypatch.setenv("DPPOSTERIOR_MAX_COMPARE_SECONDS", "50")
    plans = _plans(4, 50)
    taken = {label for label, r in plans.items() if not r.left_out and not r.same_as}
    assert taken == {"optimal (average)"}, taken
    assert "DPPOSTERIOR_MAX_COMPARE_SECONDS" in plans["optimal (worst)"].left_out
    assert "the limit less the yardstick's" in plans["geometric"].left_out
    # at the default limits the average route's search is planned within the solve limit (15 s of 45): the average
    # row, the worst row (the face table past the average's errors it shares) and the baselines geometric, lszhang and
    # lsdim are taken (lsdim was left out while the average's search was planned at 25 s)
    monkeypatch.delenv("DPPOSTERIOR_MAX_COMPARE_SECONDS")
    plans = _plans(4, 50)
    taken = {label for label, r in plans.items() if not r.left_out and not r.same_as}
    assert taken == {"optimal (average)", "optimal (worst)", "geometric", "lszhang", "lsdim"}, taken


def test_compare_at_k4_n100_eps1_shows_the_worst_release_over_the_yardstick(capsys):
    """Dir(1,1,1,1), n = 100, eps = 1 at the default limits: the worst release's row (its errors by orbits; before,
    refused by its plan: its solve 93 s over 45) is computed, at or above the yardstick, with its ratio."""
    code, out, err = run(capsys, "compare", "--prior", "1,1,1,1", "--n", "100", "--epsilon", "1", "--json")
    assert code == 0, err
    doc = json.loads(out)
    y = doc["yardstick"]
    rows = {r["release"]: r for r in doc["releases"]}
    worst = rows["lattice (worst)"]
    assert "error" not in worst, worst
    assert worst["worst_expected_error"] >= y["worst"] - 1e-7
    assert worst["worst_over_yardstick"] == pytest.approx(worst["worst_expected_error"] / y["worst"])
    assert worst["average_expected_error"] >= y["average"] - 1e-7
