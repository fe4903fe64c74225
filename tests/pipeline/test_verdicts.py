"""The verdict rules of dpposterior.paper.verdicts on constructed inputs, including their edges."""

import numpy as np
import pytest

from dpposterior.paper import verdicts as V


def exact(v):
    return np.asarray(v, float), np.zeros(len(v))


def test_compare_exact_and_welch():
    a, sa = exact([1.0, 2.0, 3.0])
    b, sb = exact([2.0, 2.0, 1.0])
    assert V.compare(a, sa, b, sb).tolist() == [-1, 0, 1]
    # Monte Carlo: a difference of 1.5 standard errors is within noise, 2.5 is not (alpha = 0.05: 1.96)
    assert V.compare([1.0], [1.0 / np.sqrt(2)], [3.5], [1.0 / np.sqrt(2)]).tolist() == [-1]
    assert V.compare([1.0], [1.0 / np.sqrt(2)], [2.5], [1.0 / np.sqrt(2)]).tolist() == [0]


def test_crossover_exactly_at_tolerance_is_reproduced_and_just_beyond_is_partly():
    x = np.array([100.0, 1000.0])
    # linear in ln x: better - worse = +1 at 100, -1 at 1000 -> x* = sqrt(100 * 1000) = 316.2
    b, sb = exact([2.0, 1.0])
    w, sw = exact([1.0, 2.0])
    xs = V.crossover_point(x, b, w)
    assert xs == pytest.approx(np.sqrt(1e5))
    at_tol = xs / 1.25  # the draft value that puts x* exactly at +25 %
    r = V.crossover("c", x, b, sb, w, sw, names=("b", "w"), draft=at_tol)
    assert r.verdict == V.REPRODUCED and "0.25" in r.tolerance
    r = V.crossover("c", x, b, sb, w, sw, names=("b", "w"), draft=at_tol * 0.999)
    assert r.verdict == V.PARTLY
    r = V.crossover("c", x, b, sb, w, sw, names=("b", "w"), draft=xs * 1.25)
    assert r.verdict == V.REPRODUCED


def test_crossover_none_and_everywhere():
    x = np.array([10.0, 100.0, 1000.0])
    b, s = exact([2.0, 2.0, 2.0])
    w, _ = exact([1.0, 1.0, 1.0])
    assert V.crossover("c", x, b, s, w, s, names=("b", "w")).verdict == V.NOT_REPRODUCED
    assert V.crossover("c", x, w, s, b, s, names=("w", "b")).verdict == V.NOT_REPRODUCED


def test_crossover_reports_sign_changes_of_a_non_monotone_difference():
    x = np.array([10.0, 20.0, 40.0, 80.0, 160.0])
    b, s = exact([2.0, 0.5, 2.0, 0.5, 0.5])
    w, _ = exact([1.0] * 5)
    r = V.crossover("c", x, b, s, w, s, names=("b", "w"))
    assert "3 sign change(s)" in r.computed and r.verdict == V.PARTLY  # extra sign changes
    assert V.crossover_point(x, b, w) == pytest.approx(np.exp(np.log(40) + (1 / 1.5) * np.log(2)))


def test_crossover_within_noise_at_the_end():
    x = np.array([10.0, 100.0, 1000.0])
    b = np.array([2.0, 1.0, 0.99])
    w = np.array([1.0, 1.5, 1.0])
    se = np.full(3, 0.05)
    r = V.crossover("c", x, b, se, w, se, names=("b", "w"))
    assert r.verdict == V.WITHIN_NOISE and "within noise" in r.computed and "Welch" in r.rule


def test_better_everywhere_with_a_difference_inside_the_noise():
    x = np.array([1.0, 2.0, 3.0])
    b = np.array([1.0, 1.0, 1.0])
    w = np.array([2.0, 2.0, 1.05])
    se = np.array([0.1, 0.1, 0.1])
    r = V.better_everywhere("c", x, b, se, w, se, names=("b", "w"))
    assert r.verdict == V.PARTLY and "within noise at n in {3}" in r.computed
    r = V.better_everywhere("c", x, b, se, b + 0.01, se, names=("b", "w"))
    assert r.verdict == V.WITHIN_NOISE
    r = V.better_everywhere("c", x, b, se, b + 1, se, names=("b", "w"))
    assert r.verdict == V.REPRODUCED
    r = V.better_everywhere("c", x, b + 1, se, b, se, names=("b", "w"))
    assert r.verdict == V.NOT_REPRODUCED


def test_monte_carlo_test_has_its_stated_size():
    """Under equal means the per-point test rejects about alpha of the time (fixed seed)."""
    rng = np.random.default_rng(1)
    m = 4000
    a = rng.normal(0, 1, m)
    b = rng.normal(0, 1, m)
    rej = np.mean(V.compare(a, np.ones(m), b, np.ones(m)) != 0)  # each value has standard error 1
    assert abs(rej - V.ALPHA) < 0.015


def test_trend_judges_every_step_not_the_endpoints():
    x = np.arange(5.0)
    v, s = exact([5.0, 4.0, 3.0, 2.0, 1.0])
    assert V.trend("t", x, v, s, name="m", direction="down").verdict == V.REPRODUCED
    v2, _ = exact([5.0, 2.0, 4.0, 3.0, 1.0])  # same endpoints, not monotone
    r = V.trend("t", x, v2, s, name="m", direction="down")
    assert r.verdict == V.PARTLY and "against the trend: 1->2" in r.computed
    assert V.trend("t", x, v, s, name="m", direction="up").verdict == V.NOT_REPRODUCED
    noisy = V.trend("t", x, np.array([1.0, 1.01, 1.0, 1.02, 1.01]), np.full(5, 0.1), name="m", direction="up")
    assert noisy.verdict == V.WITHIN_NOISE
    with pytest.raises(ValueError):
        V.trend("t", x, v, s, name="m", direction="sideways")


def test_loses_from():
    x = np.array([2.0, 6.0, 10.0, 14.0, 20.0])
    b, s = exact([0.1, 0.2, 0.3, 0.5, 0.6])
    w, _ = exact([0.2, 0.3, 0.3, 0.4, 0.4])
    r = V.loses_from("c", x, b, s, w, s, names=("b", "w"), draft=12)
    assert r.verdict == V.REPRODUCED and "never again from n = 10" in r.computed
    assert V.loses_from("c", x, b, s, w, s, names=("b", "w"), draft=30).verdict == V.PARTLY
    assert V.loses_from("c", x, w, s, b, s, names=("w", "b"), draft=12).verdict == V.NOT_REPRODUCED


def test_bound_and_formula_and_ordering():
    assert V.bound_holds("b", [1, 2], [1, 3], what="x", draft="x <= b").verdict == V.REPRODUCED
    assert V.bound_holds("b", [1, 4], [1, 3], what="x", draft="x <= b").verdict == V.PARTLY
    r = V.formula_matches("f", [0.123, np.nan], [0.12304, 5.0], what="p", digits=3)
    assert r.verdict == V.REPRODUCED and "0.0005" in r.tolerance
    assert V.formula_matches("f", [0.123], [0.1236], what="p", digits=3).verdict == V.NOT_REPRODUCED
    r = V.ordering("o", ["s=0", "s=1"], [0.3, 0.1], [0.2, 0.2], [1, -1], draft="d", names=("e", "l"))
    assert r.verdict == V.REPRODUCED
    r = V.ordering("o", ["s=0", "s=1"], [0.3, 0.3], [0.2, 0.2], [1, -1], draft="d", names=("e", "l"))
    assert r.verdict == V.PARTLY


def test_family_of_bounds_needs_a_multiplicity_correction():
    lbs = np.linspace(0.5, 1.05, 26)
    # 26 bounds at 95 % each: their maximum is not a 95 % bound -> refused
    with pytest.raises(ValueError, match="Bonferroni"):
        V.violation("v", lbs, 1.0, family_confidence=0.95, per_bound_confidence=0.95)
    level = V.bonferroni_level(0.95, 26)
    assert level == pytest.approx(1 - 0.05 / 26)
    r = V.violation("v", lbs, 1.0, family_confidence=0.95, per_bound_confidence=level)
    assert r.verdict == V.NOT_REPRODUCED and "certified" in r.computed and "Bonferroni" in r.rule
    assert V.violation("v", lbs, 1.1, family_confidence=0.95, per_bound_confidence=level).verdict == V.NOT_REFUTED


def test_holm():
    p = np.array([0.001, 0.04, 0.03, 0.2])
    assert V.holm_reject(p, 0.05).tolist() == [True, False, False, False]
    assert V.holm_reject(np.array([0.01, 0.02, 0.03]), 0.06).tolist() == [True, True, True]
    # Holm rejects at least what Bonferroni rejects
    rng = np.random.default_rng(0)
    for _ in range(50):
        q = rng.uniform(0, 0.1, 8)
        assert np.all(V.holm_reject(q, 0.05) >= (q <= 0.05 / 8))


def test_audit_soundness_check_fails_a_broken_auditor():
    rng = np.random.default_rng(3)
    exact_loss = rng.uniform(0.2, 2.0, 52)
    conf = np.full(52, V.bonferroni_level(0.95, 26))
    sound = exact_loss - rng.uniform(0.01, 0.3, 52)
    assert V.audit_soundness("s", sound, exact_loss, conf).verdict == V.CONSISTENT
    # a broken auditor: reports its point estimate (about half above the truth) as the lower bound
    broken = exact_loss + rng.normal(0, 0.05, 52)
    r = V.audit_soundness("s", broken, exact_loss, conf)
    assert r.verdict == V.INCONSISTENT and "binomial" in r.rule
    # a single exceedance among 52 bounds at 99.8 % is not evidence of a broken auditor
    one = sound.copy()
    one[0] = exact_loss[0] + 0.1
    assert V.audit_soundness("s", one, exact_loss, conf).verdict == V.CONSISTENT


def test_compare_threshold_is_the_normal_quantile_at_its_edge():
    from scipy import stats  # the oracle: the verdict code evaluates the quantile without scipy.stats

    crit = stats.norm.ppf(1 - V.ALPHA / 2)
    # a difference of exactly crit standard errors is significant, the next float below it is not
    # (standard errors 1 and 0 combine to exactly 1, so z is the difference itself)
    assert V.compare([crit], [1.0], [0.0], [0.0]).tolist() == [1]
    assert V.compare([np.nextafter(crit, 0)], [1.0], [0.0], [0.0]).tolist() == [0]
    assert V.compare([0.0], [1.0], [crit], [0.0]).tolist() == [-1]


@pytest.mark.parametrize("n", [1, 7, 52, 300])
def test_audit_soundness_p_value_is_the_binomial_tail(n):
    from scipy import stats  # the oracle

    exact_loss = np.ones(n)
    conf = np.full(n, 0.99)
    for above in sorted({0, 1, n // 3, n}):
        lb = np.where(np.arange(n) < above, 2.0, 0.5)
        p = float(stats.binom.sf(above - 1, n, 0.01)) if above else 1.0
        r = V.audit_soundness("s", lb, exact_loss, conf)
        assert f"p = {p:.3g}" in r.computed
        assert r.verdict == (V.CONSISTENT if p >= 0.01 else V.INCONSISTENT)


def test_every_row_states_rule_and_tolerance():
    x = np.array([1.0, 2.0])
    rows = [V.crossover("c", x, [1, 0], [0, 0], [0, 1], [0, 0], names=("a", "b")),
            V.better_everywhere("c", x, [0, 0], [0, 0], [1, 1], [0, 0], names=("a", "b")),
            V.trend("c", x, [1, 2], [0, 0], name="a", direction="up"),
            V.approaches("c", x, [2, 1.05], [1, 1], names=("a", "b"))]
    df = V.as_frame(rows, item="it")
    assert list(df.columns) == V.COLUMNS
    assert (df.rule.str.len() > 0).all() and (df.tolerance.str.len() > 0).all() and (df.item == "it").all()
