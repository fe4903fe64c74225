"""Every verdict rule driven to each of its verdicts, including the inputs where it must fail; rules
that hold by construction or bounds that say nothing get their own words, never REPRODUCED."""

import math

import numpy as np
import pandas as pd
import pytest

from dpposterior.paper import claims as C
from dpposterior.paper import render, report
from dpposterior.paper import verdicts as V


def exact(v):
    v = np.asarray(v, float)
    return v, np.zeros_like(v)


# ------------------------------------------------------------------ approaches: the ratio, not the gap
def test_approaches_judges_the_ratio():
    x = np.array([10.0, 100.0, 1000.0, 10000.0])
    b = 1 / x
    assert V.approaches("c", x, b * [1.5, 1.3, 1.1, 1.05], b, names=("a", "b")).verdict == V.REPRODUCED
    assert V.approaches("c", x, b * [1.9, 1.7, 1.5, 1.3], b, names=("a", "b")).verdict == V.PARTLY
    # fig4 today: both errors fall to 0 (the gap shrinks) but the ratio grows 1.5 -> 1.77 and stalls
    r = V.approaches("c", x, b * [1.5, 2.2, 1.78, 1.774], b, names=("a", "b"))
    assert r.verdict == V.NOT_REPRODUCED and "1.77" in r.computed
    # stalled away from 1 over the last decade: not PARTLY
    assert V.approaches("c", x, b * [2.0, 1.8, 1.78, 1.775], b, names=("a", "b")).verdict == V.NOT_REPRODUCED


# ------------------------------------------------------------------ crossovers
def test_crossover_with_a_second_sign_change_is_partly_and_listed():
    x = np.array([2.0, 10.0, 20.0, 100.0, 300.0, 1000.0])
    b, s = exact([0.5, 0.5, 2.0, 2.0, 0.5, 0.5])  # better at small x too (fig4: mh beats lsdim at n = 10-13)
    w, _ = exact([1.0] * 6)
    r = V.crossover("c", x, b, s, w, s, names=("b", "w"), draft=300)
    assert r.verdict == V.PARTLY and "significant sign changes" in r.computed
    x2 = np.array([2.0, 10.0, 100.0, 250.0, 350.0, 1000.0])
    b2, _ = exact([2.0, 2.0, 2.0, 1.1, 0.9, 0.5])  # one sign change, at n* = sqrt(250 * 350) = 296
    assert V.crossover("c", x2, b2, s, w, s, names=("b", "w"), draft=300).verdict == V.REPRODUCED


def test_crossover_without_location_needs_worse_first_and_one_change():
    x = np.array([1.0, 5.0, 20.0, 100.0])
    w, s = exact([1.0] * 4)
    assert V.crossover("c", x, *exact([2.0, 2.0, 0.5, 0.5]), w, s, names=("b", "w")).verdict == V.REPRODUCED
    # a tie at the first point: "worse at first" is not shown
    r = V.crossover("c", x, *exact([1.0, 2.0, 0.5, 0.5]), w, s, names=("b", "w"))
    assert r.verdict == V.PARTLY and "not significantly worse at the first" in r.computed
    assert V.crossover("c", x, *exact([0.5, 2.0, 0.5, 0.5]), w, s, names=("b", "w")).verdict == V.PARTLY
    assert V.crossover("c", x, *exact([0.5, 0.5, 0.5, 2.0]), w, s, names=("b", "w")).verdict == V.NOT_REPRODUCED
    assert "no location" in V.crossover("c", x, *exact([2.0, 2.0, 0.5, 0.5]), w, s, names=("b", "w")).draft


def test_sign_changes_skip_ties():
    assert V.sign_changes([1, 4, 16, 64], [1, 0, -1, -1]) == [4.0]
    assert V.sign_changes([1, 4], [0, 0]) == []


# ------------------------------------------------------------------ the fig3 tail bound: by construction or vacuous
def _tails(bound):
    t = np.linspace(0.1, 1.0, 10)
    return pd.DataFrame({"mechanism": "mh", "t": t, "tail_prob": np.full(10, 0.01), "bound": bound})


def test_tail_bound_is_by_construction_vacuous_or_failing():
    assert C.tail_bound("c", _tails(np.linspace(5, 0.05, 10))).verdict == V.BY_CONSTRUCTION
    r = C.tail_bound("c", _tails(np.full(10, 15.6)))  # fig3b: bound >= 1 at every t <= 1
    assert r.verdict == V.VACUOUS and "says nothing" in r.computed
    assert C.tail_bound("c", _tails(np.full(10, 0.001))).verdict == V.NOT_REPRODUCED  # an unnormalised pmf


# ------------------------------------------------------------------ recorded values against the pmf
def _pmf(p0, mech="mh"):
    return pd.DataFrame({"mechanism": mech, "H": [0.0, 0.01, 0.01], "prob": [p0, (1 - p0) / 2, (1 - p0) / 2],
                         "epsilon": 1.0, "counts": [[5000, 5000]] * 3})


def test_recorded_value_is_compared_with_the_pmf():
    cl = {"kind": "recorded", "mechanism": "mh", "value": 0.245, "limit": "tanh(eps/4)", "atol": 0.005,
          "source": "authors' code", "text": "t"}
    ok = C.pmf(_pmf(0.24485), pd.DataFrame(columns=["mechanism"]), [cl])[0]
    assert ok.verdict == V.REPRODUCED and "not in the drafts" in ok.draft and "0.24485" in ok.computed
    bad = C.pmf(_pmf(0.124), pd.DataFrame(columns=["mechanism"]), [cl])[0]  # ehds's value at n = 1e4
    assert bad.verdict == V.NOT_REPRODUCED
    assert "draft" not in ok.draft.replace("not in the drafts", "")


# ------------------------------------------------------------------ LS <= S <= GS
def test_smooth_between_is_by_construction_or_a_bug():
    df = pd.DataFrame({"LS": [0.1, 0.2], "S": [0.15, 0.25], "GS": [0.3, 0.3]})
    cl = [{"kind": "smooth-between", "text": "t"}]
    assert C.sensitivity(df, cl)[0].verdict == V.BY_CONSTRUCTION
    df.loc[0, "S"] = 0.05  # S < LS: a bug
    assert C.sensitivity(df, cl)[0].verdict == V.NOT_REPRODUCED


# ------------------------------------------------------------------ calibration
def test_calibration_judges_the_slack_and_labels_the_gain():
    slack, gain = C.calibration_rows("ehds", [1.4, 3.3], [0.8, 0.6], [True, True])
    assert slack.verdict == V.REPRODUCED and gain.verdict == V.BY_CONSTRUCTION
    slack, gain = C.calibration_rows("ehds", [1.0, 1.0], [1.0, 1.0], [False, False])  # no slack
    assert slack.verdict == V.NOT_REPRODUCED and gain.verdict == V.NOT_REPRODUCED
    _, gain = C.calibration_rows("ehds", [2.0, 2.0], [0.9, 1.1], [True, False])  # kappa > 1 yet worse: a bug
    assert gain.verdict == V.NOT_REPRODUCED


# ------------------------------------------------------------------ which-to-use: a margin
def _cells(ehds, geo):
    rows = []
    for m, v in (("ehds", ehds), ("geometric", geo), ("ehd", 0.9)):
        rows.append({"mechanism": m, "base": m, "pure_dp": True, "private": True, "k": 2, "prior_strength": 1, "n": 10,
                     "epsilon": 1.0, "average": v, "worst": v})
    return pd.DataFrame(rows)


def test_exponential_best_needs_a_margin():
    # a question the draft asks (future work 1), answered: never REPRODUCED
    r = C.exponential_best(_cells(0.27, 0.31), "average")
    assert r.verdict == V.ANSWERED and r.computed.startswith("yes, in 1 of 1 cells")
    r = C.exponential_best(_cells(0.3099, 0.31), "average")  # wins by 0.03 %
    assert r.verdict == V.ANSWERED and "no claim" in r.draft and r.computed.startswith("no:")
    assert C.exponential_best(_cells(0.4, 0.31), "average").computed.startswith("no:")


# ------------------------------------------------------------------ proven guarantees
def test_proven_privacy_rows_are_implementation_checks():
    df = pd.DataFrame([{"mechanism": m, "scope": sc, "n": 10, "epsilon": 1.0, "concrete_epsilon": 0.9,
                        "claimed_epsilon": 1.0, "claimed_delta": 0.0, "profile_delta": 0.0}
                       for m in ("mh-delta", "lshist") for sc in ("local", "worst-case")])
    rows = C.privacy(df, claim="c", claim_mechanism="mh-delta")
    by = {r.claim.split(":")[0]: r.verdict for r in rows}
    assert by["lshist"] == V.BY_CONSTRUCTION and by["mh-delta"] == V.REPRODUCED
    df.loc[df.mechanism == "lshist", "concrete_epsilon"] = 1.2
    assert [r for r in C.privacy(df, claim="c", claim_mechanism="mh-delta")
            if r.claim.startswith("lshist")][0].verdict == V.NOT_REPRODUCED



def test_by_construction_reads_each_entrys_guarantee():
    """The BY CONSTRUCTION set is the registry's: theorems and post-processing of them, never a draft's claim,
    an exact computation (calibrated) or no claim."""
    assert {m for m in ("ehd", "lsdim", "lszhang", "lshist", "geometric", "optimal", "remapped-geometric", "ehds", "mh",
                        "mh-delta", "ehdl", "ehd~calibrated", "optimal~average") if C.by_construction(m)} == {
        "ehd", "lsdim", "lszhang", "lshist", "geometric", "optimal", "remapped-geometric", "optimal~average"}

# ------------------------------------------------------------------ the summary a reader sees first
def test_verdict_table_opens_with_the_counts(tmp_path):
    rows = [V.Verdict("a", "", "", "", "", V.REPRODUCED, "i"), V.Verdict("b", "", "", "", "", V.VACUOUS, "i"),
            V.Verdict("c", "", "", "", "", V.BY_CONSTRUCTION, "j")]
    p = tmp_path / "i.csv"
    V.as_frame(rows).to_csv(p, index=False)
    report.write_verdicts([str(p)], [], csv=str(tmp_path / "v.csv"), md=str(tmp_path / "v.md"),
                          html=str(tmp_path / "v.html"))
    md = (tmp_path / "v.md").read_text().splitlines()
    assert md[2].startswith("**3 rows: 3 the project's own checks (1 REPRODUCED, 1 BY CONSTRUCTION, 1 VACUOUS)")
    assert "| VACUOUS | 1 | 1 |" in md
    assert md.index("| VACUOUS | 1 | 1 |") < next(i for i, line in enumerate(md) if "How" in line or "Each row" in line)
    html = (tmp_path / "v.html").read_text()
    assert html.index("3 rows") < html.index("Each row")


def test_notebook_summary_line(tmp_path):
    p = tmp_path / "v.csv"
    V.as_frame([V.Verdict("a", "", "", "", "", V.NOT_REPRODUCED, "x")]).to_csv(p, index=False)
    line = render.verdict_summary({"item": "x", "outputs": {"verdicts": str(p)}})
    assert line.startswith("**Item x: 1 verdict rows: 1 NOT REPRODUCED")
    assert render.verdict_summary({"item": "x", "outputs": {"verdicts": str(tmp_path / "none.csv")}}) == ""


def test_notebook_summary_line_counts_as_pandas_reads_the_csv(tmp_path):
    """The render job reads the CSV with the csv module; pandas' reading (the verdict table's) gives the same line."""
    import pandas as pd

    rows = [V.Verdict("a", 'claim, with "quotes",\nand a new line', "1,2", "", "", V.WITHIN_NOISE, "x"),
            V.Verdict("a", "", "", "", "", V.NOT_REPRODUCED, "x"), V.Verdict("a", "", "", "", "", V.REPRODUCED, "x"),
            V.Verdict("a", "", "", "", "", V.WITHIN_NOISE, "x"), V.Verdict("a", "", "", "", "", V.VACUOUS, "x")]
    p = tmp_path / "v.csv"
    V.as_frame(rows).to_csv(p, index=False)
    df = pd.read_csv(p, keep_default_na=False)
    want = ", ".join(f"{n} {v}" for v, n in report.counts(df).items())
    assert want == "1 REPRODUCED, 1 NOT REPRODUCED, 2 WITHIN NOISE, 1 VACUOUS"
    line = render.verdict_summary({"item": "x", "outputs": {"verdicts": str(p)}})
    assert line.startswith(f"**Item x: {len(df)} verdict rows: {want}.**"), line
    V.as_frame([]).to_csv(p, index=False)  # a header and no rows
    assert render.verdict_summary({"item": "x", "outputs": {"verdicts": str(p)}}) == "**Item x: no verdict rows.**"


def test_no_new_word_counts_as_reproduced():
    for w in (V.BY_CONSTRUCTION, V.VACUOUS, V.CANNOT_CHECK, V.ANSWERED):
        assert w != V.REPRODUCED and w in report.ORDER
    assert math.isclose(C.LIMITS["tanh(eps/4)"](1.0), 0.244918662, rel_tol=1e-8)


@pytest.mark.parametrize("ok,want", [([True, True], V.REPRODUCED), ([True, False], V.PARTLY),
                                     ([False, False], V.NOT_REPRODUCED)])
def test_tally(ok, want):
    assert V.tally(ok) == want


def test_monte_carlo_rules_hold_jointly_over_their_points():
    x = np.arange(1.0, 11.0)
    z = 2.2  # significant at 0.05 per point (1.96), not at 0.05 / 10 (2.81)
    b, w = np.zeros(10), np.full(10, z)
    se = np.full(10, 1 / np.sqrt(2))
    r = V.better_everywhere("c", x, b, se, w, se, names=("b", "w"))
    assert r.verdict == V.WITHIN_NOISE and "Bonferroni" in r.rule and "jointly" in r.tolerance
    assert V.better_everywhere("c", x, b, se, w + 1.0, se, names=("b", "w")).verdict == V.REPRODUCED
