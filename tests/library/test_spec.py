"""One validated release spec passed whole, and a mechanism's guarantee as data (dpposterior.mechanisms.spec, .base)."""

from __future__ import annotations

import numpy as np
import pytest

import dpposterior as dp
from dpposterior import InputError
from dpposterior.mechanisms import (
    MECHANISMS,
    GeometricMechanism,
    Guarantee,
    Mechanism,
    Proof,
    ReleaseSpec,
    calibrated,
    get_mechanism,
    log_pmf,
    parse_variant,
)

#: The textbook guarantees (the paper layer's BY CONSTRUCTION set before it was derived from the entries).
TEXTBOOK = {"ehd", "lsdim", "lszhang", "lshist", "geometric", "lattice"}  # lattice: the K-norm theorem
#: Post-processing of the geometric release.
REMAPS = {"optimal", "remapped-geometric"}


def test_by_construction_is_derived_from_each_entrys_guarantee():
    derived = {i for i, m in MECHANISMS.items() if m.guarantee.by_construction}
    assert derived == TEXTBOOK | REMAPS
    assert {i for i in derived if MECHANISMS[i].guarantee.proof == Proof.THEOREM} == TEXTBOOK
    for i in REMAPS:
        g = MECHANISMS[i].guarantee
        assert g.proof == Proof.POST_PROCESSING and g.source is MECHANISMS["geometric"].guarantee
    assert MECHANISMS["ehdl"].guarantee.proof == Proof.NONE and not MECHANISMS["ehdl"].guarantee.by_construction
    for i in ("ehds", "mh", "mh-delta"):
        assert MECHANISMS[i].guarantee.proof == Proof.DRAFT and not MECHANISMS[i].guarantee.by_construction
    for i in ("ehd", "ehdl", "ehds", "mh", "mh-delta"):  # a calibrated variant: certified by exact computation
        g = calibrated(get_mechanism(i)).guarantee
        assert g.proof == Proof.EXACT and g.by_construction is False and g.claim(ReleaseSpec.of(i, 0.5)) == (0.5, 0.0)
    for i in TEXTBOOK:
        g = MECHANISMS[i].guarantee
        assert g.reference and g.proof_text  # the theorem and its proof, beside the entry


def test_the_privacy_maps_give_the_claims_printed_before():
    claims = {"ehd": (0.5, 0.0), "ehdl": (None, None), "ehds": (0.5, 0.0), "mh": (1.0, 0.0), "mh-delta": (0.5, 1e-6),
              "lszhang": (0.5, 0.0), "lsdim": (0.5, 0.0), "lshist": (0.5, 0.0), "geometric": (0.5, 0.0),
              "optimal": (0.5, 0.0), "remapped-geometric": (0.5, 0.0)}
    for i, claim in claims.items():
        assert MECHANISMS[i].claimed(0.5, 1e-6) == claim
        assert ReleaseSpec.of(i, 0.5, 1e-6).claimed() == claim
    assert MECHANISMS["mh"].stated_guarantee().startswith("2 eps-DP (004 Lemma 5.6); sampling: ")
    assert MECHANISMS["ehdl"].guarantee.text == "none: local sensitivity is data dependent, not DP (baseline)"


def test_a_spec_is_frozen_validated_once_and_passed_whole():
    spec = ReleaseSpec.of("ehds", 1.0, gamma=0.5, distance="kl")
    assert (spec.epsilon, spec.delta, spec.gamma, spec.distance, spec.objective, spec.calibrate) == (
        1.0, 1e-8, 0.5, "kl", "worst", False)
    with pytest.raises(AttributeError):
        spec.gamma = 2.0  # type: ignore[misc]
    a, c = [1, 1], [3, 4]
    assert np.array_equal(log_pmf(spec, a, c), log_pmf("ehds", a, c, epsilon=1.0, gamma=0.5, distance="kl"))
    post = dp.noise_aware_posterior(spec, a, c)
    assert post.mechanism == "ehds" and post.epsilon == 1.0
    with pytest.raises(TypeError, match="a ReleaseSpec carries its settings; got epsilon"):
        log_pmf(spec, a, c, epsilon=2.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        log_pmf("ehds", a, c, epsilon=1.0, foo=1)


def test_a_variant_spec_runs_the_calibrated_mechanism():
    spec = ReleaseSpec.of(parse_variant("ehds~calibrated"), 1.0)
    assert spec.calibrate and spec.mechanism is calibrated(MECHANISMS["ehds"]) and spec.entry is MECHANISMS["ehds"]
    assert str(spec.variant) == "ehds~calibrated"
    assert ReleaseSpec.of("optimal", 1.0).objective == "worst"
    assert ReleaseSpec.of("optimal", 1.0, objective="average").objective == "average"


@pytest.mark.parametrize("kw, message", [
    (dict(mechanism="geometric", epsilon=1.0, gamma=2.0),
     "gamma applies to ehds only, not 'geometric' (which would ignore it)"),
    (dict(mechanism="ehds", epsilon=1.0, objective="average"),
     "objective applies to optimal and lattice only, not 'ehds' (which would ignore it)"),
    (dict(mechanism="lshist", epsilon=1.0, calibrate=True),
     "--calibrate applies to the exponential mechanisms only, not 'lshist'"),
    (dict(mechanism="mh", epsilon=1.0, gamma=2.0),
     "mechanism 'mh' is defined with gamma = 1 (004 Def. 6); use 'ehds' for another gamma"),
    (dict(mechanism="remapped-geometric", epsilon=1.0, distance="kl"),
     "remapped-geometric under kl is not built yet; use --distance hellinger"),
])
def test_a_setting_the_mechanism_does_not_read_is_refused_in_one_line(kw, message):
    with pytest.raises(InputError) as e:
        ReleaseSpec.of(**kw)
    assert str(e.value) == message


def test_an_entry_is_abstract_and_built_with_keywords_only():
    with pytest.raises(TypeError):
        Mechanism(id="x", name="x", seed_name="x", weight_or_scale="x", guarantee=Guarantee.none("none"))
    with pytest.raises(TypeError):
        GeometricMechanism("x", "x", "x", "x", Guarantee.none("none"), scale=lambda k, eps: 1.0 / eps)


def test_a_toy_mechanism_is_one_keyword_entry(monkeypatch):
    """A new textbook mechanism: one entry (here registered for the test only) and nothing else; it gets its
    BY CONSTRUCTION verdict from its guarantee, and every module-level function takes it."""
    toy = GeometricMechanism(
        id="toy", name="toy geometric", seed_name="a test", weight_or_scale="1/eps (k=2), 2/eps",
        guarantee=Guarantee.theorem("eps-DP (a test)", lambda s: (s.epsilon, 0.0), reference="a test",
                                    proof="as geometric"),
        scale=lambda k, eps: (1.0 if k == 2 else 2.0) / eps)
    monkeypatch.setitem(MECHANISMS, "toy", toy)
    spec = ReleaseSpec.of("toy", 1.0)
    assert spec.mechanism is toy and toy.guarantee.by_construction and spec.claimed() == (1.0, 0.0)
    assert np.array_equal(log_pmf(spec, [1, 1], [3, 4]), log_pmf("geometric", [1, 1], [3, 4], epsilon=1.0))
    with pytest.raises(InputError, match="gamma applies to ehds only, not 'toy'"):
        ReleaseSpec.of("toy", 1.0, gamma=2.0)
