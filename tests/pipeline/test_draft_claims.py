"""The drafts' theorems and side claims (paper.drafts), each rule on the real computation and on an input
where it must fail."""

import math

import pandas as pd
import pytest

from dpposterior.paper import drafts as D
from dpposterior.paper import verdicts as V


def test_thm41_holds_for_lshist_and_fails_for_ehd():
    assert D.thm41(D.thm41_table("lshist", ns=(2, 10, 100, 1000))).verdict == V.REPRODUCED
    r = D.thm41(D.thm41_table("ehd", ns=(2, 10, 100, 1000)))  # grows like sqrt(n)
    assert r.verdict == V.NOT_REPRODUCED
    flat = pd.DataFrame({"mechanism": "x", "eps": 1.0, "n": [10, 100, 1000], "ratio": [2.0, 2.0, 2.0]})
    assert D.thm41(flat).verdict == V.PARTLY  # bounded, above the proof's 1/eps


def test_cor441_le_holds_with_equality_and_the_strict_form_fails():
    t = D.cor441_table(eps_values=(1.0,), ns=(10, 1000))
    le, lt = D.cor441(t, strict=False), D.cor441(t, strict=True)
    assert le.verdict == V.REPRODUCED and "equality at" in le.computed
    bal = t[(t.n == 1000) & (t.c1 == 500)].iloc[0]
    assert bal.P_le == pytest.approx(bal.B, abs=1e-12) and bal.P_lt == pytest.approx((1 - math.exp(-1)) / 2, abs=1e-9)
    assert lt.verdict == V.NOT_REPRODUCED
    lsdim = t.assign(P_le=0.513)  # the lsdim pmf: 1 - e^-1/2 / 2 - e^-1 / 2 = 0.513 < 0.748
    assert D.cor441(lsdim, strict=False).verdict == V.NOT_REPRODUCED


def test_thm45_printed_upper_bound_fails_beyond_n_1000():
    t = D.thm45_table()
    row = t[(t.n == 3000) & (t.k == 1)].iloc[0]
    assert row.exact == pytest.approx(0.0027764, abs=1e-6) and row.printed_high == pytest.approx(0.0027183, abs=1e-6)
    r = D.thm45(t, which="printed_high")
    assert r.verdict == V.NOT_REPRODUCED and "n = 3000, k = 1" in r.computed
    assert D.thm45(t, which="printed_low").verdict == V.REPRODUCED
    assert D.thm45(t, which="corrected").verdict == V.REPRODUCED
    # the trap: a grid that stops at n = 1000 cannot fail
    assert D.thm45(D.thm45_table(points=((1000, 1),)), which="printed_high").verdict == V.REPRODUCED


def test_cor45_thresholds_and_each_verdict():
    th = D.cor45_thresholds(1.0)
    assert th["4.5.1"] == pytest.approx(12.901, abs=1e-3) and th["4.5.3"] == pytest.approx(13.966, abs=1e-3)
    t1 = D.cor45_table(1.0, n_max=30)
    assert D.cor45(t1, name="4.5.1", threshold=th["4.5.1"], side=">").verdict == V.REPRODUCED
    assert D.cor45(t1, name="4.5.2", threshold=th["4.5.2"], side="<").verdict == V.VACUOUS
    t01 = D.cor45_table(0.1, n_max=40)
    th01 = D.cor45_thresholds(0.1)
    assert D.cor45(t01, name="4.5.2", threshold=th01["4.5.2"], side="<").verdict == V.REPRODUCED
    assert D.cor45(t01, name="4.5.1", threshold=th01["4.5.1"], side=">").verdict == V.REPRODUCED
    r = D.cor45(t01, name="4.5.1", threshold=20, side=">")  # below the true crossover (22 -> 24)
    assert r.verdict == V.NOT_REPRODUCED and "n = 22" in r.computed


def test_good_answers_rate():
    t = D.good_table(mechs=("mh-delta", "ehd", "lszhang"), grids=((2, (2000, 5000, 10000)),))
    assert D.good_rate(t, mechanism="ehd").verdict == V.REPRODUCED
    assert D.good_rate(t, mechanism="mh-delta").verdict == V.NOT_REPRODUCED  # the draft's own mechanism
    assert D.good_rate(t, mechanism="lszhang", laplace=True).verdict == V.REPRODUCED
    assert D.good_rate(t, mechanism="ehd", laplace=True).verdict == V.NOT_REPRODUCED


def test_runtime_limit():
    fast = pd.DataFrame({"k": [4], "n": [10000], "candidates": [1.7e11], "seconds": [0.07]})
    assert D.runtime_limit(fast).verdict == V.NOT_REPRODUCED
    assert D.runtime_limit(fast.assign(seconds=12.0)).verdict == V.REPRODUCED


def test_r_count():
    t = D.r_count_table()
    assert D.r_count(t).verdict == V.NOT_REPRODUCED
    assert D.r_count(t[t.m == 2]).verdict == V.REPRODUCED  # the trap: k = 2 only


def test_close_for_large_priors():
    t = D.prior_table(a_values=(1, 200))
    assert D.close_for_large_priors(t, b="lshist").verdict == V.NOT_REPRODUCED
    assert D.close_for_large_priors(t, b="lsdim").verdict == V.REPRODUCED
    part = pd.DataFrame({"a": [1, 1, 200, 200], "mechanism": ["mh", "lshist"] * 2, "error": [2, 1, 1.15, 1.0]})
    assert D.close_for_large_priors(part).verdict == V.PARTLY


def test_cr_split_fails_on_unbalanced_data_and_lemma51_is_by_construction():
    assert D.cr_split(D.cr_table((((1, 1), (5, 5)),))).verdict == V.REPRODUCED
    assert D.cr_split(D.cr_table((((1, 1), (3, 7)),))).verdict == V.NOT_REPRODUCED
    t = D.lemma51_table()
    assert D.lemma51(t).verdict == V.BY_CONSTRUCTION
    t.loc[0, "logp"] += 0.1
    assert D.lemma51(t).verdict == V.NOT_REPRODUCED


def test_thm51_smooth_holds_and_ls_fails():
    s = (((1.0, 1.0), 100, 1.0),)
    assert D.thm51(D.thm51_table(s)).verdict == V.REPRODUCED
    bad = D.thm51_table(s, smooth=False)  # S := LS, no smoothing: gap 1.09 > gamma
    assert bad.gap.iloc[0] > 1.05 and D.thm51(bad).verdict == V.NOT_REPRODUCED


def test_all_checks_run_fast_and_every_row_states_its_tolerance():
    rows, tabs = D.checks()
    assert len(rows) >= 20 and all(r.tolerance and r.rule for r in rows)
    assert {r.verdict for r in rows} >= {V.REPRODUCED, V.NOT_REPRODUCED, V.VACUOUS, V.BY_CONSTRUCTION}


def test_smooth_gain_fails_at_a_strong_prior():
    t = D.smooth_gain_table(priors=((1, 1), (20, 20)))
    assert D.smooth_gain(t).verdict == V.PARTLY  # Beta(20,20): the (1 + gamma) factor outweighs the gap
    assert D.smooth_gain(t.iloc[:1]).verdict == V.REPRODUCED
    assert D.smooth_gain(t.iloc[1:]).verdict == V.NOT_REPRODUCED
