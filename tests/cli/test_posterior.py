"""`dpposterior posterior`: the noise-aware posterior of released counts."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from dpposterior.noise_aware import naive_posterior, noise_aware_posterior

from .helpers import EHDS, assert_clean_refusal, refused, run, run_case, run_json


def test_json_contract_and_values(capsys):
    code, out, err = run(capsys, "posterior", "--prior", "1,1", "--released", "40,60", "--mechanism", "lshist",
                         "--epsilon", "1", "--level", "0.8", "--json")
    assert code == 0 and err == ""
    got = json.loads(out)
    assert {"mechanism", "epsilon", "level", "mean", "intervals", "naive"} <= set(got)
    assert set(got["naive"]) == {"mean", "intervals"}
    post = noise_aware_posterior("lshist", [1, 1], [40, 60], epsilon=1.0, level=0.8)
    assert np.allclose(got["mean"], post.mean) and np.allclose(got["intervals"], post.intervals)
    assert np.allclose(got["naive"]["intervals"], naive_posterior([1, 1], [40, 60], 0.8)["intervals"])
    assert got["level"] == 0.8 and got["mechanism"] == "lshist"


def test_text_output_names_both(capsys):
    code, out, _ = run(capsys, "posterior", "--prior", "1,1,1", "--released", "5,9,4", "--mechanism", "mh",
                       "--epsilon", "1")
    assert code == 0 and "noise-aware" in out and out.count("naive") == 3


@pytest.mark.parametrize("argv, needle", [
    (["--released", "40,-60"], "negative"),
    (["--released", "40,60", "--level", "1"], "level"),
    (["--released", "40,60,1"], "prior"),
    (["--released", "4000000,60,1", "--prior", "1,1,1"], "R(n)"),
])
def test_bad_input_one_line_exit_2(capsys, argv, needle):
    base = {"--prior": "1,1", "--mechanism": "mh", "--epsilon": "1"}
    extra = dict(zip(argv[::2], argv[1::2]))
    args = ["posterior"] + [x for kv in (base | extra).items() for x in kv]
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("dpposterior: error:") and needle in err


def test_categories_name_the_interval_lines(capsys):
    base = ["posterior", "--prior", "1,1,1", "--released", "5,9,4", "--mechanism", "mh", "--epsilon", "1"]
    code, plain, _ = run(capsys, *base)
    assert code == 0 and "theta_1" in plain
    code, named, _ = run(capsys, *base, "--categories", "no,yes,maybe")
    assert code == 0 and "theta_" not in named
    rows = named.splitlines()[2:]  # after the released counts and the heading
    assert [r.split()[0] for r in rows] == ["no", "yes", "maybe"]
    # the names are the only change: the numbers are those of the unnamed output
    assert [r.split(None, 1)[1] for r in rows] == [r.split(None, 1)[1] for r in plain.splitlines()[2:]]


@pytest.mark.parametrize("cats, needle", [("no,yes", "--categories"), ("no,,yes", "empty"), ("a,a,b", "duplicates")])
def test_bad_categories_one_line_exit_2(capsys, cats, needle):
    code, out, err = run(capsys, "posterior", "--prior", "1,1,1", "--released", "5,9,4", "--mechanism", "mh",
                         "--epsilon", "1", "--categories", cats)
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err


# -- the release whole: --from-release, and --released taking m only -------------------------------------------------

RELEASES = [  # release flags whose posterior depends on a setting besides the mechanism and eps
    ["--prior", "1,1", "--counts", "3,7", "--mechanism", "optimal", "--objective", "average", "--epsilon", "1"],
    ["--prior", "1,1", "--counts", "3,7", "--mechanism", "ehds", "--gamma", "0.5", "--calibrate", "--epsilon", "1"],
    ["--prior", "0.5,1,2", "--counts", "2,1,3", "--mechanism", "mh-delta", "--delta", "1e-5", "--epsilon", "2",
     "--categories", "no,maybe,yes"],
    ["--prior", "1,1", "--counts", "3,7", "--mechanism", "ehd", "--distance", "tv", "--epsilon", "1"],
]


def _flags_of(release: list[str], m: list[int]) -> list[str]:
    """The posterior flags of a release's flags: --counts replaced by the released counts (by hand, as a user would)."""
    flags = list(release)
    i = flags.index("--counts")
    flags[i:i + 2] = ["--released", ",".join(map(str, m))]
    return flags


@pytest.mark.parametrize("release", RELEASES, ids=["optimal-average", "ehds-calibrated", "mh-delta-k3",
                                                                 "ehd-tv"])
def test_from_release_is_the_posterior_of_that_release(release, tmp_path, capsys):
    code, out, err = run(capsys, "release", *release, "--seed", "3", "--json")
    assert code == 0, err
    doc = json.loads(out)
    path = tmp_path / "release.json"
    path.write_text(out)
    got = json.loads(run(capsys, "posterior", "--from-release", str(path), "--json")[1])
    by_hand = json.loads(run(capsys, "posterior", *_flags_of(release, doc["released_counts"]), "--json")[1])
    assert got == by_hand  # every setting read from the JSON, none left at a default
    assert got["released_counts"] == doc["released_counts"] and got["prior"] == doc["prior"]
    assert got["n"] == doc["n"] == sum(doc["released_counts"])
    code, text, err = run(capsys, "posterior", "--from-release", str(path))
    assert code == 0 and text.splitlines()[0].startswith("released counts: "), err
    if "--categories" in release:
        assert [r.split()[0] for r in text.splitlines()[2:]] == ["no", "maybe", "yes"]


def test_from_release_the_objective_matters(tmp_path, capsys):
    """The objective read from the JSON changes the posterior (so a JSON read without it would be caught above)."""
    flags = _flags_of(RELEASES[0], [3, 7])
    average = json.loads(run(capsys, "posterior", *flags, "--json")[1])
    worst = json.loads(run(capsys, "posterior", *[f for f in flags if f not in ("--objective", "average")],
                           "--json")[1])
    assert not np.allclose(average["intervals"], worst["intervals"])


def test_from_release_reads_a_pipe():
    """`release --json | posterior --from-release -`: the chain in one line."""
    code, out, err, _ = run_case(["release", *RELEASES[0], "--seed", "3", "--json"])
    assert code == 0, err
    code, got, err, _ = run_case(["posterior", "--from-release", "-", "--json"], stdin=out.encode())
    assert code == 0, err
    assert json.loads(got)["released_counts"] == json.loads(out)["released_counts"]


@pytest.mark.parametrize("flag", [["--prior", "1,1"], ["--mechanism", "geometric"], ["--epsilon", "1"],
                                  ["--objective", "worst"], ["--calibrate"], ["--distance", "hellinger"],
                                  ["--categories", "a,b"], ["--n", "10"], ["--gamma", "1"], ["--delta", "1e-6"]])
def test_from_release_refuses_a_setting_given_again(flag, tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"mechanism": "geometric", "epsilon": 1.0, "delta": 0.0, "prior": [1.0, 1.0],
                                "released_counts": [4, 6], "n": 10, "alpha": [5.0, 7.0], "calibrate": False}))
    line = refused(["posterior", "--from-release", str(path), *flag], capsys, "--from-release reads")
    assert flag[0] in line


GEOMETRIC = {"mechanism": "geometric", "epsilon": 1.0, "delta": 0.0, "prior": [1.0, 1.0], "released_counts": [4, 6],
             "n": 10, "alpha": [5.0, 7.0], "objective": None, "calibrate": False, "gamma": None,
             "global_sensitivity": None}


@pytest.mark.parametrize("content, needle", [
    ("Beta(5, 7)\nguarantee: 1-DP\n", "not JSON"),
    (json.dumps([4, 6]), "needs the keys"),
    (json.dumps({k: v for k, v in GEOMETRIC.items() if k != "released_counts"}), "needs the keys"),
    (json.dumps(GEOMETRIC | {"n": 11}), "do not sum to its n"),
    (json.dumps(GEOMETRIC | {"alpha": [4.0, 6.0]}), "alpha is not its prior plus"),
    (json.dumps(GEOMETRIC | {"released_counts": [5, -1], "n": 4, "alpha": [6.0, 0.0]}), "non-negative"),
    (json.dumps(GEOMETRIC | {"mechanism": "optimal"}), "does not state the objective"),  # an older release's JSON
    (json.dumps(GEOMETRIC | {"mechanism": "nope"}), "unknown mechanism"),
    (json.dumps(GEOMETRIC | {"epsilon": -1}), "epsilon"),
    (json.dumps(GEOMETRIC | {"calibrate": True}), "--calibrate applies to the exponential mechanisms only"),
    (json.dumps(GEOMETRIC | {"categories": ["a", "a"]}), "categories"),
    ('{"epsilon": NaN}', "not JSON"),
    ("[" * 100_000, "not JSON"),
])
def test_from_release_refuses_a_file_that_is_not_a_release(content, needle, tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(content)
    line = refused(["posterior", "--from-release", str(path)], capsys, needle)
    assert str(path) in line


def test_from_release_refuses_a_missing_file_a_folder_and_a_silent_fifo(tmp_path, capsys):
    refused(["posterior", "--from-release", str(tmp_path / "none.json")], capsys, "no such file")
    refused(["posterior", "--from-release", str(tmp_path)], capsys, "is a directory, not the JSON of")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # nobody writes to it: refused after DPPOSTERIOR_MAX_DATA_SECONDS, never waited on forever
    code, out, err, seconds = run_case(["posterior", "--from-release", str(fifo)],
                                       env={"DPPOSTERIOR_MAX_DATA_SECONDS": "1"})
    assert_clean_refusal(code, out, err, "did not deliver all its data within 1 s")
    assert seconds < 30


def test_released_takes_m_and_n_checks_its_sum(capsys):
    """Beta(41, 61) under the prior 1,1 is m = 40,60: alpha passed by mistake is refused once n is given, and the
    text output shows the n the counts imply otherwise (nothing is guessed)."""
    base = ["posterior", "--prior", "1,1", "--mechanism", "geometric", "--epsilon", "1"]
    line = refused([*base, "--released", "41,61", "--n", "100"], capsys, "sum to 102, not n = 100")
    assert "not the parameters a + m" in line
    code, out, err = run(capsys, *base, "--released", "40,60", "--n", "100")
    assert code == 0 and out.splitlines()[0] == "released counts: 40,60 (n = 100); prior: 1,1", err
    code, out, _ = run(capsys, *base, "--released", "41,61")  # accepted as counts: n = 102, said so
    assert code == 0 and out.splitlines()[0] == "released counts: 41,61 (n = 102); prior: 1,1"
    code, out, _ = run(capsys, "posterior", "--help")
    text = " ".join(out.split())
    assert "the released counts m" in text and "NOT the parameters a + m" in text and "--from-release FILE" in text


def test_posterior_needs_the_release_one_way_or_the_other(capsys):
    refused(["posterior", "--released", "4,6", "--prior", "1,1"], capsys, "required with --released: --mechanism, "
                                                                           "--epsilon")
    refused(["posterior", "--prior", "1,1", *EHDS], capsys, "--released --from-release is required")
    refused(["posterior", "--from-release", "x.json", "--released", "4,6"], capsys, "not allowed with")


def test_docs_list_the_json_keys_of_release_and_posterior(capsys):
    """docs/cli.md's key lists of `release` and `posterior` are the keys they print (without the optional ones)."""
    import re

    from .helpers import ROOT

    docs = " ".join((ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split())

    def listed(command: str) -> set[str]:
        return set(re.findall(r'"(\w+)"', re.search(rf"- `{command}`: `([^`]*)`", docs).group(1)))

    release = run_json(capsys, "release", "--prior", "1,1", "--counts", "4,6", "--mechanism", "geometric",
                       "--epsilon", "1", "--seed", "1")
    assert listed("release") == set(release)
    post = run_json(capsys, "posterior", "--prior", "1,1", "--released", "4,6", "--mechanism", "geometric",
                    "--epsilon", "1")
    assert listed("posterior") == set(post) | set(post["naive"])
