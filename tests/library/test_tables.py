"""Seed 000 Table 1 (docs/definitions.md §7) reproduced to every printed digit from the library's primitives."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest

from dpposterior import hellinger, local_sensitivity, log_pmf
from dpposterior.mechanisms import exponential_log_pmf_rows
from dpposterior.models import candidates, steps
from dpposterior.sensitivity import smooth_sensitivity

# Seed 000 (/work/shared/seeds/000_9679e15ca62ce439.txt), lines 298-305, Table 1 "Probability with
# Prior beta(1, 1) and data size 8": steps -> (printed H, exponential mechanism, Laplace mechanism).
TABLE1_PRINTED = {
    4: ("0.83737258593", "0.0431193490585", "0.066561234758"),
    3: ("0.662174391701", "0.0785621424847", "0.0992976939175"),
    2: ("0.457635865026", "0.158265808563", "0.148134752205"),
    1: ("0.233629480709", "0.340809715054", "0.220991081918"),
    0: ("0.0", "0.37924298484", "0.329679953964"),
}
PRIOR, COUNTS, EPS = (1.0, 1.0), (4, 4), 0.8


def decimals(printed: str) -> int:
    return -Decimal(printed).as_tuple().exponent


def assert_printed(value: float, printed: str):
    """Equal after rounding both to the printed number of decimals."""
    d = decimals(printed)
    assert round(value, d) == round(float(printed), d), (value, printed)


@pytest.fixture(scope="module")
def table1():
    a, c = np.array(PRIOR), np.array(COUNTS)
    m = candidates(8, 2)
    h = hellinger(a + c, a + m)
    ls = local_sensitivity(a, c)
    # docs/definitions.md §7: weights exp(-eps H / LS(c)) (000 §5.4.1, without Def. 4.1's factor 2); S(c) = LS(c) here
    p = np.exp(exponential_log_pmf_rows([EPS / ls], h[None, :])[0])
    st = steps(c, m)
    return m, h, ls, p, st


def test_local_sensitivity_is_printed_step1_distance(table1):
    _, _, ls, _, _ = table1
    assert_printed(ls, "0.233629480709")


@pytest.mark.parametrize("t", [0, 1, 2, 3, 4])
def test_printed_hellinger_per_step(table1, t):
    _, h, _, _, st = table1
    at = h[st == t]
    assert len(at) == (1 if t == 0 else 2)
    assert np.ptp(at) <= 1e-15  # both candidates at t steps are equally far (symmetric prior and data)
    assert_printed(float(at[0]), TABLE1_PRINTED[t][0])


@pytest.mark.parametrize("t", [0, 1, 2, 3, 4])
def test_printed_exponential_column_per_step_total(table1, t):
    _, _, _, p, st = table1
    assert_printed(float(p[st == t].sum()), TABLE1_PRINTED[t][1])


@pytest.mark.parametrize("t", [0, 1, 2, 3, 4])
def test_printed_laplace_column(t):
    """P(|Y| in [t, t+1)), Y ~ Laplace(2/eps) (docs/definitions.md §7), the clamped tail left out."""
    s = 2.0 / EPS
    prob = math.exp(-t / s) - math.exp(-(t + 1) / s)  # P(|Y| >= t) - P(|Y| >= t+1), |Y| ~ Exp(1/s)
    assert_printed(prob, TABLE1_PRINTED[t][2])


def test_printed_columns_sums():
    assert math.fsum(float(v[1]) for v in TABLE1_PRINTED.values()) == pytest.approx(1.0, abs=1e-11)
    # the Laplace column misses the clamped tail: it sums to 1 - e^{-5/s} = 1 - e^{-2}
    assert math.fsum(float(v[2]) for v in TABLE1_PRINTED.values()) == pytest.approx(1 - math.exp(-2), abs=1e-11)


def test_as_defined_mechanisms_differ_from_printed_columns(table1):
    """The as-defined mh (weight eps / (2 S)) is not the printed column: the printed formula drops the 2."""
    m, _, _, _, st = table1
    p_mh = np.exp(log_pmf("mh", PRIOR, COUNTS, epsilon=EPS))
    p_step0_printed = float(TABLE1_PRINTED[0][1])
    assert abs(p_mh[st == 0].sum() - p_step0_printed) > 0.05
    # S(c) = LS(c) at (4, 4), so mh is the printed formula at eps / 2
    p_half = np.exp(exponential_log_pmf_rows([EPS / 2 / local_sensitivity(PRIOR, COUNTS)],
                                             hellinger(np.add(PRIOR, COUNTS), np.add(PRIOR, m))[None, :])[0])
    assert smooth_sensitivity(PRIOR, COUNTS) == pytest.approx(local_sensitivity(PRIOR, COUNTS), rel=1e-12)
    np.testing.assert_allclose(p_mh, p_half, rtol=1e-12)
