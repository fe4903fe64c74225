"""docs/definitions.md §3 under another distance: LS, GS, gamma- and beta-smooth sensitivities of
``u(c, r) = D(BI(c), r)`` for D = tv, kl, against brute force over adjacent c' and r in R(n)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from conftest import deltas, epsilons, gammas, prior_value_low
from dpposterior import InputError, SizeError
from dpposterior.models import candidates
from dpposterior.sensitivity import (
    beta_smooth_sensitivity,
    beta_smooth_sensitivity_all,
    global_sensitivity,
    local_sensitivity,
    sensitivity_work,
    smooth_sensitivity,
    smooth_sensitivity_all,
)

RTOL = 1e-8


@st.composite
def small(draw, distance):
    """(prior, n): k = 2 for tv (its domain); k = 2 or 3 for kl; n small enough for the brute force."""
    k = 2 if distance == "tv" else draw(st.sampled_from([2, 3]))
    prior = tuple(draw(prior_value_low) for _ in range(k))
    n = draw(st.integers(1, 5 if k == 2 else 3))
    return prior, n


def _close(got, want):
    assert np.allclose(got, want, rtol=RTOL, atol=1e-12), (got, want)


@pytest.mark.parametrize("distance", ["tv", "kl"])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_ls_gs_and_smooth_sensitivities_equal_the_definitions(distance, data):
    prior, n = data.draw(small(distance))
    gamma, eps, delta = data.draw(gammas), data.draw(epsilons), data.draw(deltas)
    b = ref.brute(prior, n, distance)
    cands = candidates(n, len(prior))
    _close(local_sensitivity(prior, cands, distance=distance), [b.ls_definition(c) for c in b.cands])
    _close(global_sensitivity(prior, n, distance=distance), b.gs())
    _close(smooth_sensitivity_all(prior, n, gamma, distance=distance), [b.smooth(c, gamma) for c in b.cands])
    _close(beta_smooth_sensitivity_all(prior, n, eps, delta, distance=distance),
           [b.beta_smooth(c, eps, delta) for c in b.cands])
    c = b.cands[data.draw(st.integers(0, len(b.cands) - 1))]
    _close(smooth_sensitivity(prior, c, gamma, distance=distance), b.smooth(c, gamma))
    _close(beta_smooth_sensitivity(prior, c, eps, delta, distance=distance), b.beta_smooth(c, eps, delta))


def test_kl_local_sensitivity_is_not_the_metric_reduction():
    """Beta(1, 1), n = 2, c = (1, 1): the reduction max_c' KL(BI(c) || BI(c')) = ln 2 = 0.693, but the
    definition's max over r is 2.307 (c' = (0, 2), r = (2, 0)): the reduction is 3.3 times too small."""
    prior, c = (1.0, 1.0), (1, 1)
    b = ref.brute(prior, 2, "kl")
    reduction = max(ref.kl((1 + c[0], 1 + c[1]), (1 + d[0], 1 + d[1])) for d in ref.neighbours(c))
    assert reduction == pytest.approx(np.log(2.0), rel=1e-12)
    ls = local_sensitivity(prior, c, distance="kl")
    assert ls == pytest.approx(b.ls_definition(c), rel=RTOL)
    assert ls == pytest.approx(2.306852819440055, rel=1e-12)
    # the maximising pair: c' = (0, 2), r = (2, 0)
    want = abs(ref.kl((2, 2), (3, 1)) - ref.kl((1, 3), (3, 1)))
    assert ls == pytest.approx(want, rel=1e-12) and ls > 3 * reduction


def test_tv_metric_reduction_equals_max_over_r():
    """For a metric the maximum over r is attained at r = BI(c'): both readings agree (here exactly)."""
    b = ref.brute((0.5, 2.0), 4, "tv")
    for c in b.cands:
        reduction = max(ref.tv((0.5 + c[0], 2 + c[1]), (0.5 + d[0], 2 + d[1])) for d in ref.neighbours(c))
        assert b.ls_definition(c) == pytest.approx(reduction, rel=1e-12)


def test_hellinger_is_the_default_and_unchanged():
    prior, c = (0.7, 1.3, 2.0), (2, 0, 3)
    assert local_sensitivity(prior, c, distance="hellinger") == local_sensitivity(prior, c)
    assert global_sensitivity(prior, 5, distance="hellinger") == global_sensitivity(prior, 5)
    assert smooth_sensitivity(prior, c, 0.5, distance="hellinger") == smooth_sensitivity(prior, c, 0.5)
    assert sensitivity_work("hellinger", 10**6, 3) == 0


def test_refusals_are_one_line():
    with pytest.raises(InputError, match="unknown distance 'js'; choose one of: hellinger, tv, kl"):
        local_sensitivity((1, 1), (1, 1), distance="js")
    with pytest.raises(InputError, match="tv") as e:
        global_sensitivity((1, 1, 1), 3, distance="tv")
    assert "\n" not in str(e.value)
    with pytest.raises(InputError, match="Hellinger's, not kl's"):
        global_sensitivity((1, 1), 3, "paper", distance="kl")
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_SENSITIVITY_WORK") as e:
        global_sensitivity((1, 1), 10_000, distance="kl")
    assert "\n" not in str(e.value) and "maximum over r" in str(e.value)


def test_budget_counts_the_max_over_r_for_kl_only():
    assert sensitivity_work("tv", 100, 2) == 2 * 101
    assert sensitivity_work("kl", 100, 2) == 2 * 101 * 101
    assert sensitivity_work("kl", 3, 3, counts=1) == 6 * 10
