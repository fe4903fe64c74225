"""The practitioner's way in (dpposterior.api): ``dp.release``, ``dp.compare`` and the top-level API."""

from __future__ import annotations

import dataclasses
import inspect
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
    monkeypatch.setattr(dp.api, "padded_release", lambda *a, **k: drawn.append(a))
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
    # optimal takes the tv loss at k = 2 (geometric + remap); the remapped geometric and lattice releases are
    # Hellinger's only
    assert {r["release"] for r in rows if "error" in r} == {"remapped-geometric", "lattice (worst)", "lattice (average)"}
    assert {"optimal (worst)", "optimal (average)"} <= {r["release"] for r in rows if "error" not in r}
