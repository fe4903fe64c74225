"""Honest warnings (dp.PrivacyWarning; one line on the CLI's stderr), from settings only."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import dpposterior as dp
from dpposterior.cli import main

CASES = [  # (mechanism, options, rng, the warnings' distinctive words)
    ("geometric", {}, None, []),
    ("geometric", {}, 1, ["seeded release is not private"]),
    ("ehdl", {}, None, ["no privacy guarantee"]),
    ("mh", {}, None, ["guarantees only 2-DP"]),
    ("lshist", {"delta": 1e-6}, None, ["ignores the delta"]),
    ("mh-delta", {"delta": 1e-6}, None, []),
    ("mh", {"calibrate": True}, None, []),
    ("ehdl", {"delta": 1e-5}, 2, ["seeded release is not private", "no privacy guarantee"]),
]


def cli_refuses(mechanism, options) -> bool:
    """The command line refuses an explicit --delta on a mechanism that ignores it (a setting silently
    ignored looks applied); the API accepts it and warns."""
    return "delta" in options and "delta" not in dp.MECHANISMS[mechanism].settings_used


def release_warnings(mechanism, options, rng, counts=(40, 60)) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dp.release(mechanism, [1, 1], list(counts), epsilon=1.0, rng=rng, **options)
    assert all(w.category is dp.PrivacyWarning for w in caught), [str(w.message) for w in caught]
    return [str(w.message) for w in caught]


def test_privacy_warning_is_a_user_warning():
    assert issubclass(dp.PrivacyWarning, UserWarning)


@pytest.mark.parametrize("mechanism, options, rng, words", CASES)
def test_each_warning_in_the_api(mechanism, options, rng, words):
    got = release_warnings(mechanism, options, rng)
    assert len(got) == len(words) and all(w in g for w, g in zip(words, got)), got


@pytest.mark.parametrize("mechanism, options, rng, words", CASES)
def test_each_warning_on_the_command_line(mechanism, options, rng, words, capsys):
    argv = ["release", "--prior", "1,1", "--counts", "40,60", "--mechanism", mechanism, "--epsilon", "1"]
    argv += ["--calibrate"] if options.get("calibrate") else []
    argv += ["--delta", str(options["delta"])] if "delta" in options else []
    argv += ["--seed", str(rng)] if rng is not None else []
    if cli_refuses(mechanism, options):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1 and "--delta" in err, err
        return
    assert main(argv) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert len(lines) == len(words) and all(line.startswith("dpposterior: warning: ") for line in lines), err
    assert all(w in line for w, line in zip(words, lines)), err
    assert out.splitlines()[1].startswith("guarantee: ")


def test_the_default_delta_is_not_a_delta_given(capsys):
    assert main(["release", "--prior", "1,1", "--counts", "4,6", "--mechanism", "lshist", "--epsilon", "1"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["release", "--prior", "1,1", "--counts", "4,6", "--mechanism", "lshist", "--epsilon", "1",
                 "--delta", "1e-8"]) == 2  # given explicitly to a pure-eps mechanism: refused
    assert "--delta" in capsys.readouterr().err


@pytest.mark.parametrize("mechanism, options, rng, words", CASES)
def test_warnings_depend_on_settings_only(mechanism, options, rng, words, capsys):
    """The same settings give the same warnings on every data set (boundary, balanced, tiny, large, k = 3)."""
    datasets = [(0, 50), (50, 0), (25, 25), (1, 0), (0, 1), (999, 1)]
    seen = {tuple(release_warnings(mechanism, options, rng, counts=c)) for c in datasets}
    assert len(seen) == 1
    cli = set()
    for c in datasets + [(3, 4, 5)]:
        argv = ["release", "--prior", ",".join(["1"] * len(c)), "--counts", ",".join(map(str, c)),
                "--mechanism", mechanism, "--epsilon", "1"]
        argv += ["--calibrate"] if options.get("calibrate") else []
        argv += ["--delta", str(options["delta"])] if "delta" in options else []
        argv += ["--seed", str(rng)] if rng is not None else []
        assert main(argv) == (2 if cli_refuses(mechanism, options) else 0)
        cli.add(capsys.readouterr().err)
    assert len(cli) == 1


def test_the_guarantee_is_printed_next_to_the_posterior(capsys):
    assert main(["release", "--prior", "1,1,1", "--counts", "4,6,1", "--mechanism", "mh-delta", "--epsilon", "0.5",
                 "--delta", "1e-6"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Dir(") and lines[1] == "guarantee: (0.5, 1e-06)-DP"
    r = dp.release("mh-delta", [1, 1, 1], [4, 6, 1], epsilon=0.5, delta=1e-6)
    assert r.guarantee == "(0.5, 1e-06)-DP" and np.isclose(r.delta, 1e-6)


def test_warnings_are_the_same_in_api_and_cli():
    from dpposterior.guarantee import setting_warnings
    from dpposterior.mechanisms import ReleaseSpec

    for (mech_id, calibrate), seeded, given in itertools.product(
            [("ehdl", False), ("mh", False), ("lshist", False), ("ehds", True)], [False, True], [False, True]):
        notes = setting_warnings(ReleaseSpec.of(mech_id, 1.0, 1e-8, calibrate=calibrate), seeded=seeded,
                                 delta_given=given)
        assert (dp.guarantee.SEEDED_WARNING in notes) == seeded
