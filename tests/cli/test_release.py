"""`dpposterior release`: seeded draws, the posterior of the released counts, --noise-aware, --calibrate."""

from __future__ import annotations

import json
import math

import numpy as np

from dpposterior.noise_aware import noise_aware_posterior

from .helpers import REL, ROOT, assert_clean_refusal, ones, run, run_case, run_json


def test_release_is_seeded_and_in_the_support(capsys):
    a = run_json(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "ehds", "--epsilon", "1",
                 "--seed", "7")
    b = run_json(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "ehds", "--epsilon", "1",
                 "--seed", "7")
    assert a == b
    assert sum(a["released_counts"]) == 100 and a["alpha"] == [1 + x for x in a["released_counts"]]
    assert a["seed"] == 7 and a["claimed"] == {"epsilon": 1.0, "delta": 0.0}
    assert "hellinger" not in a and "counts" not in a  # nothing about the private data besides the release
    seen = {tuple(run_json(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "lshist",
                           "--epsilon", "0.5", "--seed", str(s))["released_counts"]) for s in range(12)}
    assert len(seen) > 1


def test_release_text_is_the_posterior(capsys):
    code, out, _ = run(capsys, "release", "--prior", "0.5,0.5,2", "--counts", "1,0,0", "--mechanism", "lsdim",
                       "--epsilon", "1", "--seed", "1")
    assert code == 0 and out.startswith("Dir(")
    alpha = [float(x) for x in out.splitlines()[0][4:-1].split(",")]
    assert math.isclose(sum(alpha), 4.0)


def test_release_noise_aware_failure_prints_nothing():
    """The draw succeeds at k = 1000, the noise-aware posterior cannot (|R(n)| ~ 1e600): no Dir(...) first."""
    code, out, err, _ = run_case(["release", "--prior", ones(1000), "--counts", ones(1000), *REL, "--noise-aware"])
    assert code != 0 and out == "", out[-300:]
    assert_clean_refusal(code, out, err, "noise-aware posterior")


def test_release_noise_aware_summarises_the_released_counts(capsys):
    code, out, err = run(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "geometric",
                         "--epsilon", "1", "--seed", "5", "--noise-aware", "--json")
    assert code == 0, err
    got = json.loads(out)
    post = noise_aware_posterior("geometric", [1, 1], got["released_counts"], epsilon=1.0)
    assert np.allclose(got["noise_aware"]["intervals"], post.intervals)
    assert got["noise_aware"]["level"] == 0.9 and "naive" in got["noise_aware"]
    code, out, _ = run(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "geometric",
                       "--epsilon", "1", "--seed", "5", "--noise-aware")
    assert code == 0 and out.splitlines()[0].startswith("Beta(") and "noise-aware" in out


def test_release_calibrate_draws_from_the_calibrated_mechanism(monkeypatch, capsys):
    """--calibrate reaches the sampler (the registry settings carry calibrate=True)."""
    import dpposterior.cli.commands.release as cli

    seen = {}
    real = cli.padded_draw

    def spy(spec, a, c, seed):
        seen["calibrate"] = spec.calibrate
        return real(spec, a, c, seed)

    monkeypatch.setattr(cli, "padded_draw", spy)
    code, _, err = run(capsys, "release", "--prior", "1,1", "--counts", "4,6", "--mechanism", "ehds", "--epsilon", "1",
                       "--calibrate", "--seed", "1")
    assert code == 0, err and seen["calibrate"] is True
    assert seen["calibrate"] is True


def test_release_noise_aware_level_is_the_posterior_level(capsys):
    got = run_json(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "geometric",
                   "--epsilon", "1", "--seed", "5", "--noise-aware", "--level", "0.5")
    post = noise_aware_posterior("geometric", [1, 1], got["released_counts"], epsilon=1.0, level=0.5)
    assert got["noise_aware"]["level"] == 0.5 and np.allclose(got["noise_aware"]["intervals"], post.intervals)
    code, out, _ = run(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "geometric",
                       "--epsilon", "1", "--seed", "5", "--noise-aware", "--level", "0.5")
    assert code == 0 and "0.5 equal-tailed intervals" in out


def test_release_level_is_validated_like_posterior(capsys):
    base = ["--prior", "1,1", "--mechanism", "geometric", "--epsilon", "1"]
    for level in ("1", "0", "abc", "nan"):
        r_code, r_out, r_err = run(capsys, "release", *base, "--counts", "40,60", "--seed", "5", "--noise-aware",
                                   "--level", level)
        p_code, p_out, p_err = run(capsys, "posterior", *base, "--released", "40,60", "--level", level)
        assert r_code == p_code == 2 and r_out == p_out == "" and r_err == p_err
    code, out, err = run(capsys, "release", *base, "--counts", "40,60", "--seed", "5", "--level", "0.5")
    assert code == 2 and out == "" and "--noise-aware" in err and err.count("\n") == 1


def test_release_categories_name_the_noise_aware_lines(capsys):
    base = ["release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "geometric", "--epsilon", "1",
            "--seed", "5", "--noise-aware"]
    code, out, _ = run(capsys, *base, "--categories", "no,yes")
    assert code == 0 and "theta_" not in out and "categories, in order: no, yes" in out
    assert [r.split()[0] for r in out.splitlines()[-2:]] == ["no", "yes"]
    code, out, err = run(capsys, *base, "--categories", "no,yes,maybe")
    assert code == 2 and out == "" and "--categories" in err


def test_release_help_states_the_privacy_unit(capsys):
    code, out, _ = run(capsys, "release", "--help")
    text = " ".join(out.split())
    assert code == 0 and "substitution of one record's category" in text and "n is public" in text
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = " ".join(readme.split("## Quick start", 1)[1].split("\n## ", 1)[0].split())
    assert "one record's category is substituted" in quick_start and "n itself is public" in quick_start


def test_release_json_delta_is_the_delta_the_mechanism_runs_with(capsys):
    """A pure-eps release shows delta 0 (its claim), not the unused default 1e-8; mh-delta shows its delta."""
    base = ["release", "--prior", "1,1", "--counts", "4,6", "--epsilon", "1", "--seed", "1"]
    pure = run_json(capsys, *base, "--mechanism", "geometric")
    assert pure["delta"] == 0 and pure["claimed"] == {"epsilon": 1.0, "delta": 0.0}
    assert run_json(capsys, *base, "--mechanism", "mh-delta")["delta"] == 1e-8
    assert run_json(capsys, *base, "--mechanism", "mh-delta", "--delta", "1e-5")["delta"] == 1e-5


def test_release_text_prints_the_released_counts_with_the_posterior(capsys):
    """The text output names m itself (what `posterior --released` takes), next to Beta(a + m): the same draw as the
    JSON's released_counts, and the posterior line is the prior plus them."""
    argv = ["release", "--prior", "0.5,2", "--counts", "40,60", "--mechanism", "geometric", "--epsilon", "1",
            "--seed", "11"]
    m = run_json(capsys, *argv)["released_counts"]
    code, out, _ = run(capsys, *argv)
    lines = out.splitlines()
    assert code == 0 and lines[1].startswith("guarantee: ")  # the posterior, then the guarantee, as before
    assert f"released counts: {m[0]},{m[1]}" in lines and sum(m) == 100
    assert lines[0] == f"Beta({0.5 + m[0]:g}, {2 + m[1]:g})"


def test_release_json_states_every_setting_its_posterior_needs(capsys):
    """The JSON keeps its keys and adds objective, calibrate, gamma and global_sensitivity (None where the mechanism
    reads none), so that `posterior --from-release` needs nothing else."""
    base = ["release", "--prior", "1,1", "--counts", "4,6", "--epsilon", "1", "--seed", "1"]
    old_keys = {"mechanism", "epsilon", "delta", "claimed", "n", "prior", "released_counts", "alpha", "seed"}
    cases = [
        (["--mechanism", "optimal", "--objective", "average"],
         {"objective": "average", "calibrate": False, "gamma": None, "global_sensitivity": None}),
        (["--mechanism", "optimal"], {"objective": "worst", "calibrate": False, "gamma": None,
                                      "global_sensitivity": None}),
        (["--mechanism", "ehds", "--gamma", "0.5", "--calibrate"],
         {"objective": None, "calibrate": True, "gamma": 0.5, "global_sensitivity": None}),
        (["--mechanism", "ehd", "--global-sensitivity", "paper"],
         {"objective": None, "calibrate": False, "gamma": None, "global_sensitivity": "paper"}),
        (["--mechanism", "geometric"], {"objective": None, "calibrate": False, "gamma": None,
                                        "global_sensitivity": None}),
    ]
    for flags, settings in cases:
        got = run_json(capsys, *base, *flags)
        assert old_keys <= set(got), flags
        assert {key: got[key] for key in settings} == settings, flags
