"""`dpposterior posterior`: the noise-aware posterior of released counts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpposterior.noise_aware import naive_posterior, noise_aware_posterior

from .helpers import run


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
    rows = named.splitlines()[1:]
    assert [r.split()[0] for r in rows] == ["no", "yes", "maybe"]
    # the names are the only change: the numbers are those of the unnamed output
    assert [r.split(None, 1)[1] for r in rows] == [r.split(None, 1)[1] for r in plain.splitlines()[1:]]


@pytest.mark.parametrize("cats, needle", [("no,yes", "--categories"), ("no,,yes", "empty"), ("a,a,b", "duplicates")])
def test_bad_categories_one_line_exit_2(capsys, cats, needle):
    code, out, err = run(capsys, "posterior", "--prior", "1,1,1", "--released", "5,9,4", "--mechanism", "mh",
                         "--epsilon", "1", "--categories", cats)
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err
