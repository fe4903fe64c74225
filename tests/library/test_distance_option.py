"""``distance`` as a mechanism setting (issue 22): the score of the exponential mechanisms, the accuracy
measure, the exact privacy loss; validated once in the ReleaseSpec; Hellinger (the default) unchanged."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpposterior as dp
import reference as ref
from conftest import epsilons, prior_value_low
from dpposterior import InputError, SizeError
from dpposterior.accuracy import exact_accuracy, expected_errors, release_error
from dpposterior.mechanisms import ReleaseSpec, log_pmf, sample
from dpposterior.privacy import concrete_epsilon

SCORED = ["ehd", "ehdl", "ehds", "mh", "mh-delta"]


@st.composite
def small(draw):
    distance = draw(st.sampled_from(["tv", "kl"]))
    k = 2 if distance == "tv" else draw(st.sampled_from([2, 3]))
    prior = tuple(draw(prior_value_low) for _ in range(k))
    n = draw(st.integers(1, 4 if k == 2 else 2))
    return distance, prior, n


def test_params_validate_the_distance_in_one_line():
    assert ReleaseSpec.of("ehds", 1.0).distance == "hellinger"
    assert ReleaseSpec.of("ehds", 1.0, distance="kl").distance == "kl"
    with pytest.raises(InputError) as e:
        ReleaseSpec.of("ehds", 1.0, distance="js")
    assert str(e.value) == "unknown distance 'js'; choose one of: hellinger, tv, kl"
    with pytest.raises(InputError, match="unknown distance 3"):
        ReleaseSpec.of("ehds", 1.0, distance=3)
    assert ReleaseSpec.of("ehds", 1.0, distance="tv").distance == "tv"


@settings(max_examples=20, deadline=None)
@given(small(), st.sampled_from(SCORED), epsilons, st.data())
def test_exponential_pmf_scores_with_the_distance(s, mech, eps, data):
    """P(r | c) = exp(-w(c) D(BI(c), r)) / Z with w from D's sensitivities, against brute force."""
    distance, prior, n = s
    b = ref.brute(prior, n, distance)
    c = b.cands[data.draw(st.integers(0, len(b.cands) - 1))]
    got = np.exp(log_pmf(mech, prior, c, epsilon=eps, distance=distance))
    assert np.allclose(got, b.pmf(mech, c, eps), rtol=1e-8, atol=1e-14)


@settings(max_examples=10, deadline=None)
@given(small(), st.sampled_from(["ehd", "ehds", "mh-delta", "geometric", "lshist"]), epsilons)
def test_expected_errors_measure_the_distance(s, mech, eps):
    distance, prior, n = s
    b = ref.brute(prior, n, distance)
    e = expected_errors(mech, prior, n, epsilon=eps, distance=distance)
    want = [ref.expected_error(b, mech, c, eps) for c in b.cands]
    assert np.allclose(e.expected, want, rtol=1e-8, atol=1e-14)
    assert e.as_dict()["distance"] == distance


@settings(max_examples=10, deadline=None)
@given(small(), st.sampled_from(["ehd", "ehds", "mh"]), epsilons)
def test_privacy_is_the_exact_loss_under_the_distance(s, mech, eps):
    """The exact concrete eps uses the chosen score; the exponential mechanism's eps-DP proof needs only
    the score's GS, so ehd (and ehds: smooth sensitivity from a valid LS) keep their claims under tv and kl."""
    distance, prior, n = s
    b = ref.brute(prior, n, distance)
    res = concrete_epsilon(mech, prior, n, epsilon=eps, distance=distance)
    assert res.distance == distance
    assert res.concrete_epsilon == pytest.approx(b.concrete_epsilon(mech, eps), rel=1e-7, abs=1e-10)
    claim = res.claimed_epsilon
    assert res.concrete_epsilon <= claim + 1e-9


def test_kl_with_the_metric_reduction_would_break_ehd():
    """Beta(1, 1), n = 2: with the reduced (too small) LS the exponential mechanism would not be eps-DP;
    with the definition's GS it is."""
    prior, n, eps = (1.0, 1.0), 2, 1.0
    b = ref.brute(prior, n, "kl")
    gs_reduced = max(ref.kl(tuple(np.add(prior, c)), tuple(np.add(prior, d)))
                     for c in b.cands for d in ref.neighbours(c))
    assert gs_reduced < b.gs()
    # P(r | c) ~ exp(-eps / (2 GS) KL): with GS too small, the loss of some pair passes eps
    def loss(gs):
        w = eps / (2 * gs)
        rows = {c: [math.exp(-w * x) for x in b.H[b.index[c]]] for c in b.cands}
        rows = {c: [x / sum(r) for x in r] for c, r in rows.items()}
        return max(abs(math.log(p) - math.log(q)) for c in b.cands for d in ref.neighbours(c)
                   for p, q in zip(rows[c], rows[d]))
    assert loss(gs_reduced) > eps
    assert loss(b.gs()) <= eps
    assert concrete_epsilon("ehd", prior, n, epsilon=eps, distance="kl").concrete_epsilon == pytest.approx(
        loss(b.gs()), rel=1e-9)


def test_hellinger_default_is_unchanged():
    prior, c = (0.5, 2.0), np.array([3, 1])
    for mech in ["ehd", "ehds", "mh-delta", "lshist", "geometric", "optimal"]:
        a = log_pmf(mech, prior, c, epsilon=1.0)
        assert np.array_equal(a, log_pmf(mech, prior, c, epsilon=1.0, distance="hellinger"))
    e0, e1 = expected_errors("ehds", prior, 6, epsilon=1.0), expected_errors("ehds", prior, 6, epsilon=1.0,
                                                                             distance="hellinger")
    assert np.array_equal(e0.expected, e1.expected) and "distance" not in e0.as_dict()


def test_clamped_noise_ignores_the_distance_but_measures_with_it():
    prior, c = (1.0, 1.0), np.array([3, 2])
    for mech in ["lshist", "geometric"]:
        assert np.array_equal(log_pmf(mech, prior, c, epsilon=1.0), log_pmf(mech, prior, c, epsilon=1.0, distance="kl"))
    lp = log_pmf("geometric", prior, c, epsilon=1.0)
    cands = [(m, 5 - m) for m in range(6)]
    want = sum(math.exp(x) * ref.kl((4.0, 3.0), (1 + m[0], 1 + m[1])) for x, m in zip(lp, cands))
    assert exact_accuracy("geometric", prior, c, epsilon=1.0, distance="kl").mean == pytest.approx(want, rel=1e-10)
    assert release_error(prior, c, [[5, 0]], distance="tv")[0] == pytest.approx(ref.tv((4, 3), (6, 1)), rel=1e-9)


def test_refusals_are_one_line():
    with pytest.raises(InputError) as e:
        ReleaseSpec.of("remapped-geometric", 1.0, distance="kl")
    assert str(e.value) == "remapped-geometric under kl is not built yet; use --distance hellinger"
    with pytest.raises(InputError) as e:  # optimal: any distance at k = 2, Hellinger's LP at k >= 3
        expected_errors("optimal", (1, 1, 1), 3, epsilon=1.0, distance="kl")
    assert str(e.value).startswith("optimal under kl at k=3 is not built")
    with pytest.raises(InputError, match="tv is exact for Beta"):
        log_pmf("ehd", (1, 1, 1), (1, 1, 1), epsilon=1.0, distance="tv")
    with pytest.raises(InputError, match="tv is exact for Beta"):
        expected_errors("geometric", (1, 1, 1), 3, epsilon=1.0, distance="tv")
    with pytest.raises(SizeError, match="rejection sampler is built for Hellinger"):
        sample("ehd", (1, 1), (20_000, 20_000), epsilon=1.0, distance="tv", rng=1)


def test_release_api_takes_the_distance():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = dp.release("ehds", [1, 1], [3, 2], epsilon=1.0, rng=1, distance="kl")
    assert r.released_counts.sum() == 5
    with pytest.raises(InputError, match="unknown distance"):
        dp.release("ehds", [1, 1], [3, 2], epsilon=1.0, rng=1, distance="hamming")
    rows = dp.compare([1, 1], 3, epsilon=1.0, distance="tv")
    # optimal takes the tv loss at k = 2 (geometric + remap); the remapped geometric release is Hellinger's only
    assert {r["release"] for r in rows if "error" in r} == {"remapped-geometric"}
    assert {"optimal (worst)", "optimal (average)"} <= {r["release"] for r in rows if "error" not in r}


def test_remembered_distance_values_are_copies_and_exact():
    from dpposterior.distances import DISTANCES, tv_unchecked
    from dpposterior.models import candidates

    p, q = np.array([3.0, 4.0]), 1.0 + candidates(20_000, 2).astype(np.float64)
    first = DISTANCES["tv"].value(p, q)
    first[:] = -1.0
    again = DISTANCES["tv"].value(p, q)
    assert np.array_equal(again, tv_unchecked(np.broadcast_to(p, q.shape), q)) and again.min() >= 0.0
