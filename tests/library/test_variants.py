"""Mechanism variants (``ehds~calibrated``, ``optimal~average``) parsed once, by the registry; a ReleaseSpec validated when built."""

from __future__ import annotations

import pytest

from dpposterior import InputError
from dpposterior.mechanisms import (
    MECHANISMS,
    PrivacyParameters,
    ReleaseSpec,
    Variant,
    get_mechanism,
    parse_variant,
    releases,
    variant_names,
)


def test_every_name_round_trips():
    for name in variant_names():
        v = parse_variant(name)
        assert str(v) == name and parse_variant(v) is v
    assert {"ehds~calibrated", "optimal~worst", "optimal~average", "geometric"} <= set(variant_names())


def test_parsed_fields_and_options():
    assert parse_variant("ehds~calibrated") == Variant("ehds", calibrate=True)
    assert parse_variant("ehds~calibrated").options == {"calibrate": True}
    assert parse_variant("optimal~average").options == {"objective": "average"}
    assert parse_variant("optimal").options == {} and parse_variant("optimal").objective is None
    assert parse_variant("ehds~calibrated").label == "ehds (calibrated)"
    assert parse_variant("optimal~worst").label == "optimal (worst)"


@pytest.mark.parametrize("bad", ["nope", "ehds~fast", "~calibrated", "ehds~", "lshist~calibrated", "ehds~average",
                                 "optimal~calibrated"])
def test_bad_names_are_one_line_errors(bad):
    with pytest.raises(InputError) as err:
        parse_variant(bad)
    assert "\n" not in str(err.value)


def test_variants_are_data_of_the_entries():
    for m in MECHANISMS.values():
        assert ("calibrated" in m.variants) == m.calibratable
        assert set(m.objectives) <= set(m.variants)
    assert MECHANISMS["optimal"].variants == ("worst", "average")


def test_releases_are_what_compare_ranks():
    from dpposterior.ranking import compare_variants

    ours = [v for m in MECHANISMS for v in releases(m)]
    assert ours == compare_variants()
    assert [v.label for v in ours][-5:] == ["optimal (worst)", "optimal (average)", "remapped-geometric",
                                            "lattice (worst)", "lattice (average)"]
    assert [v.options for v in ours if v.mechanism == "ehds"] == [{}, {"calibrate": True}]


def test_the_command_line_form_is_strict_about_objectives():
    with pytest.raises(InputError, match="--objective applies to optimal and lattice only, not 'ehds'"):
        Variant.of("ehds", objective="worst")  # given to a mechanism without objectives: refused, never dropped
    assert str(Variant.of("optimal", objective="average")) == "optimal~average"
    with pytest.raises(InputError, match="objective must be one of worst, average"):
        Variant.of("ehds", objective="best")
    with pytest.raises(InputError, match="--calibrate applies to the exponential mechanisms only, not 'lshist'"):
        Variant.of("lshist", calibrate=True)


def test_a_calibrated_variant_resolves_to_the_calibrated_mechanism():
    params = ReleaseSpec.of(parse_variant("ehds~calibrated"), 1.0)
    mech = params.mechanism
    assert params.calibrate and mech.label(params) == "ehds (calibrated)" and mech.claimed(1.0, 1e-8) == (1.0, 0.0)
    assert mech is ReleaseSpec.of("ehds", 1.0, calibrate=True).mechanism and mech is not get_mechanism("ehds")
    p = ReleaseSpec.of("ehds", 1.0)
    plain = p.mechanism
    assert plain is MECHANISMS["ehds"] and plain.calibration([1.0, 1.0], 5, p) is None
    assert mech.calibration([1.0, 1.0], 5, params).factor > 0


@pytest.mark.parametrize("kw, message", [
    (dict(epsilon=0.0), "epsilon"),
    (dict(epsilon=1.0, delta=2.0), "delta"),
    (dict(epsilon=1.0, gamma=-1.0), "gamma"),
    (dict(epsilon=1.0, global_sensitivity_method="guess"), "global sensitivity must be one of exact, paper"),
    (dict(epsilon=1.0, objective="best"), "objective must be one of worst, average"),
    (dict(epsilon=1.0, calibrate="yes"), "calibrate must be True or False"),
])
def test_params_are_validated_when_built_with_the_resolve_messages(kw, message):
    privacy = {name: kw[name] for name in ("epsilon", "delta") if name in kw}
    if set(kw) <= {"epsilon", "delta"}:  # the privacy parameters alone: the same messages
        with pytest.raises(InputError, match=message) as built:
            PrivacyParameters.of(**privacy)
    with pytest.raises(InputError, match=message) as resolved:
        ReleaseSpec.of("ehds", **kw)
    if set(kw) <= {"epsilon", "delta"}:
        assert str(built.value) == str(resolved.value)


def test_variant_of_is_strict():
    from dpposterior.mechanisms import Variant

    with pytest.raises(InputError, match="--objective applies to optimal and lattice only"):
        Variant.of("ehds", objective="average")
    assert str(Variant.of("optimal", objective="average")) == "optimal~average"
