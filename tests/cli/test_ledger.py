"""`dpposterior ledger show|create|raise FILE`: a ledger a reader can open, a budget raised only explicitly."""

from __future__ import annotations

import json
import os

import pytest

from .helpers import run

REL = ["release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "geometric", "--epsilon", "0.5"]


def test_show_lists_each_release_the_totals_and_what_remains(tmp_path, capsys):
    led = tmp_path / "my.ledger"
    for eps in ("0.5", "0.25"):
        code, _, err = run(capsys, *REL[:-1], eps, "--ledger", str(led), "--budget", "1")
        assert code == 0, err
    code, out, err = run(capsys, "ledger", "show", str(led))
    assert code == 0 and err == "", err
    lines = out.splitlines()
    assert lines[0] == f"ledger: {led} (dpposterior-ledger/2)"
    assert lines[1] == "budget: (1, 0)-DP" and lines[2].startswith("  created (1, 0) at ")
    assert lines[2].endswith(", after 0 release(s)")
    assert lines[3] == "releases: 2"
    assert lines[4].endswith("  geometric  epsilon 0.5  delta 0") and lines[4].startswith("  1. ")
    assert lines[5].endswith("  geometric  epsilon 0.25  delta 0")
    assert lines[6] == "total by basic composition: (0.75, 0)-DP" and lines[7] == "remaining: (0.25, 0)"
    assert len(lines) == 8  # no delta anywhere: no dp-accounting line


def test_show_json_is_the_summary_as_data(tmp_path, capsys):
    led = tmp_path / "l.json"
    code, _, err = run(capsys, "release", "--prior", "1,1", "--counts", "4,6", "--mechanism", "mh-delta",
                       "--epsilon", "0.5", "--delta", "1e-7", "--ledger", str(led), "--budget", "2,1e-5")
    assert code == 0, err
    code, out, err = run(capsys, "ledger", "show", str(led), "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["ledger"] == str(led) and doc["format"] == "dpposterior-ledger/2"
    assert doc["budget"] == {"epsilon": 2, "delta": 1e-5}
    assert [(r["mechanism"], r["epsilon"], r["delta"]) for r in doc["releases"]] == [("mh-delta", 0.5, 1e-7)]
    assert doc["total"]["basic_composition"] == {"epsilon": 0.5, "delta": 1e-7}
    assert doc["remaining"] == {"epsilon": 1.5, "delta": 1e-5 - 1e-7}
    composed = doc["total"]["dp_accounting"]
    assert composed is None or (composed["delta"] == 1e-5 and 0 < composed["epsilon"] <= 0.5 + 1e-9)


def test_create_then_raise_then_release(tmp_path, capsys):
    led = tmp_path / "l.json"
    code, out, err = run(capsys, "ledger", "create", str(led), "--budget", "0.5")
    assert code == 0 and "0 release(s)" in out and "budget (0.5, 0)" in out, err
    code, _, err = run(capsys, *REL, "--ledger", str(led), "--budget", "0.5")
    assert code == 0, err
    code, _, err = run(capsys, *REL, "--ledger", str(led), "--budget", "0.5")
    assert code == 2 and "past its budget" in err
    code, _, err = run(capsys, *REL, "--ledger", str(led), "--budget", "1")  # a release's flags never raise it
    assert code == 2 and "has the budget (0.5, 0), not (1, 0)" in err and err.count("\n") == 1
    before = led.read_bytes()
    code, _, err = run(capsys, "ledger", "raise", str(led), "--budget", "0.25")
    assert code == 2 and "must not lower" in err and led.read_bytes() == before
    code, out, err = run(capsys, "ledger", "raise", str(led), "--budget", "1")
    assert code == 0 and "budget (1, 0)" in out, err
    code, _, err = run(capsys, *REL, "--ledger", str(led), "--budget", "1")
    assert code == 0, err
    code, out, _ = run(capsys, "ledger", "show", str(led))
    assert "  raised (1, 0) at " in out and ", after 1 release(s)" in out and "remaining: (0, 0)" in out
    code, _, err = run(capsys, "ledger", "create", str(led), "--budget", "5")
    assert code == 2 and "has the budget (1, 0), not (5, 0)" in err


@pytest.mark.parametrize("argv, match", [
    (["show", "{f}", "--budget", "1"], "takes no --budget"), (["create", "{f}"], "needs --budget"),
    (["raise", "{f}"], "needs --budget"), (["create", "{f}", "--budget", "1", "--json"], "--json is for"),
    (["raise", "{f}", "--budget", "2"], "no recorded budget"), (["show", "{f}"], "there is no ledger"),
    (["create", "{f}", "--budget", "0"], "budget epsilon"), (["drop", "{f}"], "invalid choice"),
])
def test_ledger_command_refusals_are_one_line(tmp_path, capsys, argv, match):
    f = str(tmp_path / "missing.json")
    code, out, err = run(capsys, "ledger", *[a.replace("{f}", f) for a in argv])
    assert code == 2 and out == "" and err.count("\n") == 1 and match in err, err
    assert not os.path.exists(f)


def test_show_refuses_a_fifo_and_a_corrupt_ledger(tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, out, err = run(capsys, "ledger", "show", str(fifo))
    assert code == 2 and out == "" and "not a regular file (a FIFO)" in err
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"[" * 100_000)
    code, out, err = run(capsys, "ledger", "show", str(bad))
    assert code == 2 and out == "" and "corrupt" in err and err.count("\n") == 1


def test_show_reads_an_old_ledger(tmp_path, capsys):
    led = tmp_path / "old.json"
    led.write_text(json.dumps({"format": "dpposterior-ledger/1", "entries": [
        {"mechanism": "lshist", "epsilon": 1.5, "delta": 0.0, "time": "2026-01-01T00:00:00+00:00"}]}))
    code, out, err = run(capsys, "ledger", "show", str(led))
    assert code == 0, err
    assert "(dpposterior-ledger/1)" in out and "budget: not recorded" in out and "remaining" not in out
    assert "total by basic composition: (1.5, 0)-DP" in out
    code, out, err = run(capsys, "ledger", "create", str(led), "--budget", "2")
    assert code == 0, err
    code, out, _ = run(capsys, "ledger", "show", str(led))
    assert "  recorded (2, 0) at " in out and "after 1 release(s)" in out and "remaining: (0.5, 0)" in out


def test_a_release_to_a_ledger_that_stores_its_budget_needs_no_budget(tmp_path, capsys):
    """--ledger FILE alone uses the budget FILE stores (as Python's budget=None); a new FILE still needs --budget,
    and a --budget that differs from the stored one is still refused."""
    led = tmp_path / "l.json"
    code, out, err = run(capsys, *REL, "--ledger", str(led))  # a new ledger: refused, nothing made
    assert code == 2 and out == "" and err.count("\n") == 1 and "a new ledger needs --budget" in err, err
    assert list(tmp_path.iterdir()) == []
    code, _, err = run(capsys, *REL, "--ledger", str(led), "--budget", "1")
    assert code == 0, err
    code, out, err = run(capsys, *REL, "--ledger", str(led))  # the stored budget (1, 0)
    assert code == 0 and out.startswith("Beta(") and "2 release(s)" in err and "budget (1, 0)" in err, err
    before = led.read_bytes()
    code, out, err = run(capsys, *REL, "--ledger", str(led))  # past the stored budget: refused, FILE unchanged
    assert code == 2 and out == "" and "past its budget (1, 0)" in err and led.read_bytes() == before, err
    code, out, err = run(capsys, *REL, "--ledger", str(led), "--budget", "2")
    assert code == 2 and out == "" and "has the budget (1, 0), not (2, 0)" in err and led.read_bytes() == before
    code, out, err = run(capsys, *REL, "--budget", "1")  # a budget without a ledger
    assert code == 2 and out == "" and "needs --ledger" in err and err.count("\n") == 1


def test_show_prints_the_files_texts_escaped(tmp_path, capsys):
    """A ledger is the user's file: its mechanism and time strings are printed escaped, never raw."""
    led = tmp_path / "l.json"
    led.write_text(json.dumps({"format": "dpposterior-ledger/2", "budgets": [
        {"epsilon": 5, "delta": 0, "time": "t\x1b]0;owned\x07", "act": "created\n", "releases_before": 0}],
        "entries": [{"mechanism": "geo\x1b[2Jmetric", "epsilon": 1, "delta": 0, "time": "now\r"}]}))
    code, out, err = run(capsys, "ledger", "show", str(led))
    assert code == 0 and "\x1b" not in out and "\r" not in out, repr(out)
    assert "geo\\x1b[2Jmetric" in out and "created\\n (5, 0) at t\\x1b]0;owned\\x07" in out and "now\\r" in out
