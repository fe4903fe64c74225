"""The practitioner's way in (dpposterior.api): ``dp.release``, ``dp.compare`` and the top-level API."""

from __future__ import annotations

import dataclasses
import inspect
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dpposterior as dp
from dpposterior import InputError
from dpposterior.cli import main

ROOT = Path(__file__).resolve().parents[2]


def quiet_release(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        return dp.release(*args, **kw)


def test_release_is_a_top_level_function_returning_a_frozen_release():
    # top level: the practitioner's functions are dp.<name>, exported, and are the functions themselves
    from dpposterior import api

    for name in ("release", "compare", "expected_errors", "audit_mechanism"):
        assert name in dp.__all__ and inspect.isfunction(getattr(dp, name)), name
    assert dp.release is api.release and dp.compare is api.compare
    r = quiet_release("geometric", [1, 1], [40, 60], epsilon=1.0, rng=3)
    assert isinstance(r, dp.Release)
    assert r.released_counts.sum() == 100 and np.array_equal(r.alpha, 1 + r.released_counts)
    assert r.mechanism == "geometric" and r.guarantee == "1-DP (seeded: not private)" and r.seeded
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.mechanism = "ehd"
    text = repr(r)
    assert "\n" not in text and len(text) < 200 and text.startswith("Release(Beta(") and "seeded=True" in text


def test_an_unseeded_release_is_private_and_says_its_guarantee():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = dp.release("lshist", [1, 1, 1], [3, 4, 5], epsilon=0.5)
    assert not r.seeded and r.guarantee == "0.5-DP" and "seeded" not in repr(r)


@pytest.mark.parametrize("counts", [[40, 60], (40, 60), np.array([40, 60]), pd.Series([40, 60], index=["no", "yes"])])
def test_release_accepts_vectors(counts):
    r = quiet_release("geometric", [1, 1], counts, epsilon=1.0, rng=7)
    ref = quiet_release("geometric", [1, 1], [40, 60], epsilon=1.0, rng=7)
    assert r.released_counts.tolist() == ref.released_counts.tolist()


def test_a_dataframe_is_refused_with_what_to_pass():
    df = pd.DataFrame({"answer": ["yes", "no", "yes"]})
    with pytest.raises(dp.InputError, match="not a DataFrame: pass one column's counts"):
        dp.release("geometric", [1, 1], df, epsilon=1.0)


@pytest.mark.parametrize("kw, match", [
    (dict(mechanism="nope", epsilon=1.0), "unknown mechanism"),
    (dict(mechanism="geometric", epsilon=0.0), "epsilon"),
    (dict(mechanism="geometric", epsilon=1.0, delta=2.0), "delta"),
    (dict(mechanism="mh", epsilon=1.0, gamma=2.0), "gamma"),
    (dict(mechanism="geometric", epsilon=1.0, calibrate=True), "calibrate"),
    (dict(mechanism="geometric", epsilon=True), "epsilon"),
])
def test_release_validates_like_the_cli_and_draws_nothing_when_refused(kw, match, monkeypatch):
    drawn = []
    monkeypatch.setattr(dp.api, "padded_draw", lambda *a, **k: drawn.append(a))
    with pytest.raises(dp.InputError, match=match):
        dp.release(kw.pop("mechanism"), [1, 1], [4, 6], **kw)
    assert drawn == []


@pytest.mark.parametrize("prior, counts, match", [([1, 1], [4, -1], "counts"), ([0, 1], [4, 6], "prior"),
                                                  ([1, 1, 1], [4, 6], "prior"), ([1, 1], [4.5, 6], "counts")])
def test_bad_data_is_refused_before_the_draw(prior, counts, match, monkeypatch):
    drawn = []
    monkeypatch.setattr(dp.get_mechanism("geometric"), "sample", lambda *a, **k: drawn.append(a))
    with pytest.raises(dp.InputError, match=match):
        dp.release("geometric", prior, counts, epsilon=1.0)
    assert drawn == []


def test_release_is_padded_to_its_public_deadline():
    from dpposterior.padding import _DEADLINES

    _DEADLINES.clear()
    quiet_release("ehds", [1, 1], [30, 70], epsilon=1.0, rng=1)
    assert any(key[0] == "ehds" and key[1] == 100 for key in _DEADLINES)


def test_release_matches_the_cli_draw(capsys):
    r = quiet_release("lshist", [1, 1], [40, 60], epsilon=1.0, rng=5)
    assert main(["release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "lshist", "--epsilon", "1",
                 "--seed", "5"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"Beta({', '.join(f'{x:g}' for x in r.alpha)})"


def test_variants_and_objective():
    r = quiet_release("ehds", [1, 1], [4, 6], epsilon=1.0, calibrate=True, rng=1)
    assert r.mechanism == "ehds~calibrated" and r.guarantee.startswith("1-DP")
    r = quiet_release("optimal", [1, 1], [4, 6], epsilon=1.0, objective="average", rng=1)
    assert r.mechanism == "optimal~average" and r.released_counts.sum() == 10


def test_compare_expected_errors_and_audit_at_the_top_level():
    rows = dp.compare([1, 1], 10, epsilon=1.0)
    worst = [r["worst_expected_error"] for r in rows if "error" not in r]
    assert worst == sorted(worst) and {r["release"] for r in rows} >= {"geometric", "lshist"}
    e = dp.expected_errors("geometric", [1, 1], 10, epsilon=1.0)
    assert next(r for r in rows if r["release"] == "geometric")["worst_expected_error"] == e.worst
    res = dp.audit_mechanism("lshist", [1, 1], 10, epsilon=1.0, pair=([5, 5], [4, 6]), samples=2000, seed=1)
    assert res.epsilon_lower_bound <= 1.0 + 1e-9
    with pytest.raises(dp.InputError):
        dp.compare([1, 1], 10, epsilon=-1)


def test_noise_aware_posterior_has_a_short_repr():
    post = dp.noise_aware_posterior("lshist", [1, 1], [40, 60], epsilon=1.0)
    text = repr(post)
    assert "\n" not in text and len(text) < 300 and "lshist" in text


def test_the_package_is_typed():
    import tomllib

    assert (ROOT / "src" / "dpposterior" / "py.typed").exists()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in data["tool"]["setuptools"]["package-data"]["dpposterior"]
    for name in ("release", "compare", "expected_errors", "audit_mechanism", "noise_aware_posterior"):
        hints = getattr(dp, name).__annotations__
        assert "return" in hints, name


def test_python_m_and_a_bare_command():
    proc = subprocess.run([sys.executable, "-m", "dpposterior", "release", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "--ledger" in proc.stdout and "--budget" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "dpposterior"], capture_output=True, text=True)
    assert "usage: dpposterior" in proc.stdout + proc.stderr


def test_the_repr_shows_large_counts_exactly():
    r = quiet_release("lshist", [1, 1], [5_000_000, 5_000_001], epsilon=1.0, rng=0)
    assert "e+" not in repr(r) and str(int(r.alpha[0])) in repr(r)


def test_release_api_takes_the_distance():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = dp.release("ehds", [1, 1], [3, 2], epsilon=1.0, rng=1, distance="kl")
    assert r.released_counts.sum() == 5
    with pytest.raises(InputError, match="unknown distance"):
        dp.release("ehds", [1, 1], [3, 2], epsilon=1.0, rng=1, distance="hamming")
    rows = dp.compare([1, 1], 3, epsilon=1.0, distance="tv")
    # optimal takes the tv loss at k = 2 (geometric + remap); the remapped geometric release is Hellinger's only;
    # the lattice release is optimal's at k = 2, shown once (as optimal)
    assert {r["release"] for r in rows if "error" in r} == {"remapped-geometric"}
    assert not any(r["release"].startswith("lattice") for r in rows)
    assert {"optimal (worst)", "optimal (average)"} <= {r["release"] for r in rows if "error" not in r}


# ---------------------------------------------------------------------------------------------
# labels: a Series' index or categories= carried through the release and the noise-aware posterior

LIKERT = pd.Series({"neutral": 86, "agree": 263, "disagree": 150})


def test_a_series_keeps_its_labels_in_order():
    r = quiet_release("geometric", [1, 1, 1], LIKERT, epsilon=1.0, rng=3)
    same = quiet_release("geometric", [1, 1, 1], [86, 263, 150], epsilon=1.0, rng=3)
    assert r.categories == ("neutral", "agree", "disagree")
    assert r.released_counts.tolist() == same.released_counts.tolist()  # the Series' order, not a sorted one
    assert "categories=['neutral', 'agree', 'disagree']" in repr(r)
    assert same.categories is None and "categories" not in repr(same)
    # a Series with the default index 0..k-1 names nothing
    plain = quiet_release("geometric", [1, 1, 1], pd.Series([86, 263, 150]), epsilon=1.0, rng=3)
    assert plain.categories is None and repr(plain) == repr(same)


def test_explicit_categories_reorder_a_series_by_name_and_name_a_list():
    order = ["agree", "disagree", "neutral"]
    r = quiet_release("geometric", [1, 2, 3], LIKERT, epsilon=1.0, rng=5, categories=order)
    ref = quiet_release("geometric", [1, 2, 3], [263, 150, 86], epsilon=1.0, rng=5)
    assert r.categories == tuple(order)
    assert r.released_counts.tolist() == ref.released_counts.tolist()
    assert r.prior.tolist() == [1, 2, 3]  # an unlabelled prior is in the order of categories=, as given
    named = quiet_release("geometric", [1, 1], [40, 60], epsilon=1.0, rng=5, categories=["no", "yes"])
    assert named.categories == ("no", "yes")
    # a labelled prior is reordered by name too
    prior = pd.Series({"neutral": 3.0, "agree": 1.0, "disagree": 2.0})
    r2 = quiet_release("geometric", prior, LIKERT, epsilon=1.0, rng=5, categories=order)
    assert r2.prior.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("counts, kw, match", [
    (LIKERT, dict(categories=["agree", "disagree", "other"]), "names other categories than categories="),
    (LIKERT, dict(categories=["agree", "disagree"]), "names other categories than categories="),
    ([86, 263, 150], dict(categories=["agree", "disagree"]), "names 2 categories, but there are 3 counts"),
    ([86, 263, 150], dict(categories=["a", "a", "b"]), "duplicates"),
    (pd.Series([3, 4, 5], index=["a", None, "b"]), {}, "missing label"),
    (pd.Series([3, 4, 5], index=["a", "a", "b"]), {}, "duplicate labels"),
])
def test_labels_that_disagree_are_refused_in_one_line_before_the_draw(counts, kw, match, monkeypatch):
    drawn = []
    monkeypatch.setattr(dp.api, "padded_draw", lambda *a, **k: drawn.append(a))
    with pytest.raises(dp.InputError, match=match) as info:
        dp.release("geometric", [1, 1, 1], counts, epsilon=1.0, **kw)
    assert drawn == [] and "\n" not in str(info.value)


def test_the_noise_aware_posterior_keeps_the_labels():
    released = pd.Series({"neutral": 88, "agree": 263, "disagree": 148})
    post = dp.noise_aware_posterior("geometric", [1, 1, 1], released, epsilon=1.0)
    assert post.categories == ("neutral", "agree", "disagree")
    text = repr(post)
    assert "neutral: " in text and text.index("neutral") < text.index("agree") < text.index("disagree")
    table = post.to_frame()
    assert list(table.index) == ["neutral", "agree", "disagree"] and list(table.columns) == ["mean", "lower", "upper"]
    # the rows are those of the unlabelled posterior of the same counts, in the same order
    plain = dp.noise_aware_posterior("geometric", [1, 1, 1], [88, 263, 148], epsilon=1.0)
    assert plain.categories is None and list(plain.to_frame().index) == ["theta_1", "theta_2", "theta_3"]
    np.testing.assert_allclose(table["mean"].to_numpy(), plain.mean, rtol=0, atol=0)
    np.testing.assert_allclose(table[["lower", "upper"]].to_numpy(), plain.intervals, rtol=0, atol=0)
    wide = post.to_frame(level=0.99)
    assert (wide["lower"] < table["lower"]).all() and (wide["upper"] > table["upper"]).all()
    # categories= names a list; reorders a Series by name
    named = dp.noise_aware_posterior("geometric", [1, 1], [40, 60], epsilon=1.0, categories=["no", "yes"])
    assert named.categories == ("no", "yes") and "no: " in repr(named)
    by_name = dp.noise_aware_posterior("geometric", [1, 1, 1], released, epsilon=1.0,
                                       categories=["agree", "disagree", "neutral"])
    np.testing.assert_allclose(by_name.mean, plain.mean[[1, 2, 0]], rtol=0, atol=1e-15)
    with pytest.raises(dp.InputError, match="names other categories"):
        dp.noise_aware_posterior("geometric", [1, 1, 1], released, epsilon=1.0, categories=["a", "b", "c"])


# ---------------------------------------------------------------------------------------------
# dp.count: records into a fixed public category list

RECORDS = ["agree", "neutral", None, "agree", "", "strongly agree", float("nan"), "disagree", "agree", pd.NA]
CATS = ["disagree", "neutral", "agree"]


def _oracle(records, cats, unknown, missing):
    """Counts by hand: missing is None, NaN, NA or blank; the rest matches a category exactly or is unknown."""
    out = dict.fromkeys(cats, 0)
    for r in records:
        if r is None or r is pd.NA or (isinstance(r, float) and r != r) or (isinstance(r, str) and not r.strip()):
            policy = missing
        elif r in out:
            out[r] += 1
            continue
        else:
            policy = unknown
        if policy.startswith("map:"):
            out[policy[4:]] += 1
    return list(out.values())


@pytest.mark.parametrize("unknown", ["drop", "map:neutral"])
@pytest.mark.parametrize("missing", ["drop", "map:disagree"])
def test_count_follows_the_category_list_and_the_policies(unknown, missing):
    got = dp.count(RECORDS, CATS, unknown=unknown, missing=missing)
    assert isinstance(got, pd.Series) and list(got.index) == CATS and got.dtype == np.int64
    assert got.tolist() == _oracle(RECORDS, CATS, unknown, missing)
    # a Series or a DataFrame's column counts the same, and value_counts' frequency order does not leak in
    same = dp.count(pd.DataFrame({"answer": RECORDS})["answer"], CATS, unknown=unknown, missing=missing)
    assert same.tolist() == got.tolist()


def test_count_drop_changes_n_and_zero_categories_stay():
    got = dp.count(["a", "a", None, "z"], ["a", "b"], unknown="drop", missing="drop")
    assert got.tolist() == [2, 0] and int(got.sum()) == 2
    assert dp.count(pd.Series(["x", "y", "x"], dtype="category"), ["y", "x", "w"]).tolist() == [1, 2, 0]
    assert dp.count([1, 2, 2, 3], [3, 2, 1]).tolist() == [1, 2, 1]  # any hashable name; map: names it as text
    assert dp.count([1, None], [1, 2], missing="map:2").tolist() == [1, 1]


@pytest.mark.parametrize("kw, match", [
    (dict(), "missing values"),
    (dict(missing="drop"), "values not in categories"),
    (dict(missing="drop", unknown="map:other"), "'other' is not one of the categories"),
    (dict(missing="skip"), "must be 'error', 'drop' or 'map:NAME'"),
])
def test_count_refuses_in_one_line_without_showing_a_value(kw, match):
    with pytest.raises(dp.InputError, match=match) as info:
        dp.count(RECORDS, CATS, **kw)
    text = str(info.value)
    assert "\n" not in text and "strongly" not in text and not any(ch.isdigit() for ch in text)


@pytest.mark.parametrize("records, cats, match", [
    (pd.DataFrame({"answer": ["a"]}), ["a", "b"], "not a DataFrame"),
    ("ab", ["a", "b"], "not one string"),
    ([["a"], ["b"]], ["a", "b"], "hashable"),
    (["a"], ["a", "a"], "duplicates"),
    (["a"], ["a", None], "missing or empty category name"),
    (["a"], "ab", "list of category names"),
])
def test_count_refuses_what_is_not_records_or_a_category_list(records, cats, match):
    with pytest.raises(dp.InputError, match=match):
        dp.count(records, cats)


def test_counted_records_release_with_their_labels():
    counts = dp.count(["yes", "no", "yes", None], ["no", "yes"], missing="drop")
    r = quiet_release("geometric", [1, 1], counts, epsilon=1.0, rng=2)
    assert r.categories == ("no", "yes") and int(r.released_counts.sum()) == 3


@pytest.mark.parametrize("cats", [{"a", "b", "c"}, frozenset("abc")])
def test_an_unordered_category_collection_is_refused_everywhere(cats):
    """A set's order is its hash order, which changes with PYTHONHASHSEED: refused, never used to label counts."""
    with pytest.raises(dp.InputError, match="ordered list, not a (set|frozenset)"):
        dp.count(["a"], cats)
    with pytest.raises(dp.InputError, match="ordered list"):
        quiet_release("geometric", [1, 1, 1], [1, 2, 3], epsilon=1.0, rng=1, categories=cats)
    with pytest.raises(dp.InputError, match="ordered list"):
        dp.noise_aware_posterior("geometric", [1, 1, 1], [1, 2, 3], epsilon=1.0, categories=cats)


def test_a_dicts_keys_are_an_ordered_category_list():
    assert dp.count(["b", "a", "b"], {"b": 0, "a": 0}.keys()).tolist() == [2, 1]


def test_the_same_call_gives_the_same_answer_in_every_process():
    """One call with a set of categories, in six processes with different hash seeds: the same answer in each (a
    refusal; labelled in hash order, the counts would be labelled differently from one process to another)."""
    code = ("import dpposterior as d\ntry:\n    print(d.count(list('abbccc'), {'a', 'b', 'c'}).to_dict())\n"
            "except d.InputError as exc:\n    print(exc)")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=os.environ | {"PYTHONHASHSEED": str(seed)}).stdout for seed in range(6)}
    assert len(outs) == 1 and "ordered list" in outs.pop()


def test_booleans_are_not_the_numbers_0_and_1_as_records():
    # Python: True == 1 and hash(True) == hash(1); as records they are different values
    assert dp.count([True, False, True, 1], [0, 1], unknown="drop").tolist() == [0, 1]
    assert dp.count([True, False, True, 1], [True, False], unknown="drop").tolist() == [2, 1]
    assert dp.count(np.array([True, False, True]), [True, False]).tolist() == [2, 1]
    assert dp.count(np.array([1, 0, 1]), [0, 1]).tolist() == [1, 2]  # numpy integers are the numbers
    with pytest.raises(dp.InputError, match="values not in categories"):
        dp.count([True, False, True, 1], [0, 1])
    with pytest.raises(dp.InputError, match="duplicates .*True as equal to 1"):
        dp.count([True], [True, False, 1])


def test_a_map_target_is_the_category_exactly_as_given():
    assert dp.count(["x", "other"], ["other", " other"], unknown="map: other").tolist() == [1, 1]
    assert dp.count(["x", "other"], ["other", " other"], unknown="map:other").tolist() == [2, 0]
    with pytest.raises(dp.InputError, match="' other' is not one of the categories"):
        dp.count(["x"], ["other"], unknown="map: other")
    # a category that is not a string is named by how it prints; a string equal to the name comes first
    assert dp.count(["x", 3], [3, 4], unknown="map:3").tolist() == [2, 0]
    assert dp.count(["x", 3], [3, "3"], unknown="map:3").tolist() == [1, 1]


def test_a_series_labelled_by_booleans_is_not_labelled_by_0_and_1():
    counts = pd.Series([3, 0], index=[True, False])
    with pytest.raises(dp.InputError, match="names other categories than categories="):
        quiet_release("geometric", [1, 1], counts, epsilon=1.0, rng=1, categories=[1, 0])
    r = quiet_release("geometric", [1, 1], counts, epsilon=100.0, rng=1, categories=[False, True])
    assert r.categories == (False, True) and r.released_counts.tolist() == [0, 3]
