"""Tests of dpposterior.bounds (docs/definitions.md §6; 004 §6, 003 Thm 4.5): bounds hold against exact pmfs."""

import math

import numpy as np
import pytest

from dpposterior import bounds as B
from dpposterior import mechanisms as M
from dpposterior.distances import hellinger
from dpposterior.errors import InputError
from dpposterior.models import candidates
from dpposterior.sensitivity import smooth_sensitivity


def _tail(mech, prior, c, t, **kw):
    n = int(sum(c))
    p = np.exp(M.log_pmf(mech, prior, c, **kw))
    h = hellinger(np.add(prior, c), np.add(prior, candidates(n, len(c))))
    return np.array([p[h >= x].sum() for x in np.atleast_1d(t)])


@pytest.mark.parametrize("c", [[20, 20], [3, 37], [5, 6, 9]])
def test_mh_tail_bound_holds_and_is_the_formula(c):
    prior = [1.0] * len(c)
    t = np.linspace(0.0, 0.9, 10)
    bound = B.mh_tail_bound(prior, c, 1.0, t)
    assert np.all(_tail("mh", prior, c, t, epsilon=1.0) <= bound + 1e-12)
    s = smooth_sensitivity(prior, c, 1.0)
    size = math.comb(sum(c) + len(c) - 1, len(c) - 1)
    np.testing.assert_allclose(bound, np.minimum(1, size * np.exp(-t / (2 * s))))


def test_draft_bound1_is_exact_tail_of_its_weight():
    c, prior = [20, 20], [1, 1]
    t = np.array([0.0, 0.1, 0.3])
    b1, b2 = B.mh_draft_tail_bounds(prior, c, 1.0, t, factor=2.0)  # as-defined mh weight
    np.testing.assert_allclose(b1, _tail("mh", prior, c, t, epsilon=1.0), rtol=1e-9)
    assert b1[0] == pytest.approx(1.0)
    assert np.all(b1 <= b2 + 1e-12)


def test_exponential_tail_bound_rejects_bad_input():
    with pytest.raises(InputError):
        B.exponential_tail_bound(0, 1.0, 0.1)
    with pytest.raises(InputError):
        B.exponential_tail_bound(5, -1.0, 0.1)


def test_discretised_laplace_forms():
    b = 2.5
    j = np.arange(-200, 200)
    corr = B.discretised_laplace_pmf(j, b)
    assert corr.sum() == pytest.approx(1.0, abs=1e-12)
    assert corr[200] == pytest.approx(0.5 * (1 - math.exp(-1 / b)))
    printed = B.discretised_laplace_pmf(np.array([1, 2]), b, form="printed")
    # printed form integrates [t-1, t): equals the corrected mass of cell t-1
    np.testing.assert_allclose(printed, corr[[200, 201]])
    s = np.arange(0, 400)
    ab = B.abs_discretised_laplace_pmf(s, b)
    assert ab.sum() == pytest.approx(1.0, abs=1e-12)
    assert ab[3] == pytest.approx(corr[203] + corr[197])
    tz = B.abs_discretised_laplace_pmf(s, b, form="toward-zero")
    # 000 Table 1 Laplace column (eps = 0.8, scale 2/eps)
    np.testing.assert_allclose(tz[:5], [0.329679953964, 0.220991081918, 0.148134752205, 0.0992976939175,
                                        0.066561234758], rtol=1e-9)
    assert B.laplace_tail(2.5, b) == pytest.approx(math.exp(-1))
    with pytest.raises(InputError):
        B.discretised_laplace_pmf(1, b, form="other")


def test_thm45_steps_and_lshist_interior_is_exact():
    prior, c, eps = [1, 1], [50, 50], 1.0
    h = hellinger([51, 51], [[52, 50], [53, 49], [54, 48]])
    t = (h[1] + h[2]) / 2  # two steps within t, the third not
    assert B.thm45_steps(prior, c, t) == 2
    res = B.thm45(prior, c, t, eps)
    assert res["k"] == {"steps": 2, "n_within": 5}
    lp = np.exp(M.log_pmf("lshist", prior, c, epsilon=eps))
    exact = lp[48:53].sum()
    assert res["printed"]["lshist"] == pytest.approx(exact, rel=1e-9)
    z = np.exp(M.log_pmf("lszhang", prior, c, epsilon=eps))[48:53].sum()
    assert res["corrected"]["lszhang"] == pytest.approx(z, rel=1e-9)
    assert res["printed"]["lszhang"] < z  # the printed square assumes two noises
    pe = np.exp(M.log_pmf("ehd", prior, c, epsilon=eps, global_sensitivity_method="paper"))[48:53].sum()
    assert res["corrected"]["ehd_low"] <= pe <= res["corrected"]["ehd_high"]
    with pytest.raises(InputError):
        B.thm45([1, 1, 1], [1, 2, 3], 0.1, 1.0)
