"""Issue 23: a budget across releases of the same data (dp.Ledger; --ledger FILE --budget EPS[,DELTA])."""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import warnings

import pytest

import dpposterior as dp
from dpposterior.cli import main

REL = ["release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "geometric", "--epsilon", "0.4"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_cli_charges_each_release_and_refuses_past_the_budget(tmp_path, capsys, monkeypatch):
    led = tmp_path / "ledger.json"
    for i in range(2):
        code, out, err = run(capsys, *REL, "--ledger", str(led), "--budget", "1")
        assert code == 0 and out.startswith("Beta("), err
        assert f"{i + 1} release(s), total ({0.4 * (i + 1):g}, 0)-DP by basic composition" in err
    before = led.read_bytes()
    drawn = []
    monkeypatch.setattr(dp.get_mechanism("geometric"), "sample", lambda *a, **k: drawn.append(a))
    code, out, err = run(capsys, *REL, "--ledger", str(led), "--budget", "1")
    assert code == 2 and out == "" and drawn == []
    assert err.count("\n") == 1 and err.startswith("dpposterior: error:") and "past its budget" in err
    assert led.read_bytes() == before


def test_entries_hold_settings_only(tmp_path):
    led = dp.Ledger(tmp_path / "l.json", budget=(5.0, 1e-6))
    dp.release("mh-delta", [1, 1], [12345, 67890], epsilon=0.5, delta=1e-7, ledger=led)
    doc = json.loads((tmp_path / "l.json").read_text())
    assert [set(e) for e in doc["entries"]] == [{"mechanism", "epsilon", "delta", "time"}]
    assert doc["entries"][0]["mechanism"] == "mh-delta" and doc["entries"][0]["epsilon"] == 0.5
    text = (tmp_path / "l.json").read_text()
    assert "12345" not in text and "67890" not in text and "80235" not in text
    assert led.total() == (0.5, 1e-7)


def test_the_api_ledger_refuses_before_drawing(tmp_path, monkeypatch):
    led = dp.Ledger(tmp_path / "l.json", budget=1.0)
    dp.release("lshist", [1, 1], [4, 6], epsilon=0.75, ledger=led)
    before = (tmp_path / "l.json").read_bytes()
    drawn = []
    monkeypatch.setattr(dp.get_mechanism("lshist"), "sample", lambda *a, **k: drawn.append(a))
    with pytest.raises(dp.BudgetExceeded, match="past its budget"):
        dp.release("lshist", [1, 1], [4, 6], epsilon=0.5, ledger=led)
    assert drawn == [] and (tmp_path / "l.json").read_bytes() == before
    # a delta over a pure budget is refused too; the guarantee counted is the claimed one (mh: 2 eps)
    with pytest.raises(dp.BudgetExceeded):
        dp.release("mh-delta", [1, 1], [4, 6], epsilon=0.1, ledger=led)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        with pytest.raises(dp.BudgetExceeded, match=r"\(1.35, 0\)"):
            dp.release("mh", [1, 1], [4, 6], epsilon=0.3, ledger=led)
    assert drawn == [] and (tmp_path / "l.json").read_bytes() == before


def test_a_release_without_a_guarantee_cannot_be_accounted(tmp_path, capsys):
    led = tmp_path / "l.json"
    code, out, err = run(capsys, "release", "--prior", "1,1", "--counts", "4,6", "--mechanism", "ehdl",
                         "--epsilon", "0.1", "--ledger", str(led), "--budget", "100")
    assert code == 2 and out == "" and "no privacy guarantee" in err.splitlines()[-1] and not led.exists()


@pytest.mark.parametrize("content", [b"{not json", b'{"format": "other", "entries": []}', b"\xff\xfe",
                                     b'{"format": "dpposterior-ledger/1", "entries": [{"epsilon": -1}]}', b""])
def test_a_corrupt_ledger_is_an_error_and_never_overwritten(tmp_path, capsys, content):
    led = tmp_path / "l.json"
    led.write_bytes(content)
    code, out, err = run(capsys, *REL, "--ledger", str(led), "--budget", "10")
    assert code == 2 and out == "" and "corrupt" in err and err.count("\n") == 1
    assert led.read_bytes() == content


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_ledger_is_an_error(tmp_path, capsys):
    led = tmp_path / "l.json"
    led.write_text("{}")
    led.chmod(0)
    code, _, err = run(capsys, *REL, "--ledger", str(led), "--budget", "10")
    assert code == 2 and "cannot read the ledger" in err


def test_a_ledger_that_is_a_folder_is_an_error(tmp_path, capsys):
    code, out, err = run(capsys, *REL, "--ledger", str(tmp_path), "--budget", "10")
    assert code == 2 and out == "" and "ledger" in err and tmp_path.is_dir()


def test_a_failed_write_leaves_the_file_and_no_temporary(tmp_path, monkeypatch):
    led = dp.Ledger(tmp_path / "l.json", budget=10.0)
    dp.release("lshist", [1, 1], [4, 6], epsilon=1.0, ledger=led)
    before = (tmp_path / "l.json").read_bytes()

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(dp.ledger.os, "replace", boom)
    with pytest.raises(OSError):
        dp.release("lshist", [1, 1], [4, 6], epsilon=1.0, ledger=led)
    assert (tmp_path / "l.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.json", "l.json.lock"]


@pytest.mark.parametrize("argv, match", [(["--ledger", "x.json"], "go together"), (["--budget", "1"], "go together"),
                                         (["--ledger", "x.json", "--budget", "0"], "budget epsilon"),
                                         (["--ledger", "x.json", "--budget", "1,2"], "budget delta"),
                                         (["--ledger", "x.json", "--budget", "1,2,3"], "budget must be")])
def test_ledger_options_are_checked(argv, match, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *REL, *argv)
    assert code == 2 and out == "" and match in err and not (tmp_path / "x.json").exists()


def _charge(path, results):
    led = dp.Ledger(path, budget=1.0)
    try:
        with led.charge("lshist", 0.1, 0.0):
            pass
        results.put(1)
    except dp.BudgetExceeded:
        results.put(0)


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_concurrent_releases_never_pass_the_budget(tmp_path):
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    procs = [ctx.Process(target=_charge, args=(tmp_path / "l.json", results)) for _ in range(16)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    got = [results.get(timeout=5) for _ in procs]
    assert sum(got) == 10 and len(dp.Ledger(tmp_path / "l.json", 1.0).entries()) == 10


def test_composition_through_dp_accounting(tmp_path, monkeypatch):
    led = dp.Ledger(tmp_path / "l.json", budget=(10.0, 1e-3))
    for _ in range(4):
        with led.charge("mh-delta", 0.5, 1e-6):
            pass
    text = led.summary()
    assert "total (2, 4e-06)-DP by basic composition" in text and "dp-accounting composition" in text
    composed = dp.ledger.composed_epsilon(led.entries(), 1e-3)
    assert 0 < composed <= 2.0 + 1e-9
    monkeypatch.setitem(sys.modules, "dp_accounting", None)  # the extra is optional
    monkeypatch.setitem(sys.modules, "dp_accounting.pld", None)
    assert "dp-accounting" not in led.summary() and "basic composition" in led.summary()


def test_pure_releases_report_basic_composition_only(tmp_path):
    led = dp.Ledger(tmp_path / "l.json", budget=3.0)
    for _ in range(3):
        dp.release("geometric", [1, 1], [4, 6], epsilon=1.0, ledger=led)
    assert led.total() == (3.0, 0.0) and "dp-accounting" not in led.summary()
    assert "3 release(s)" in repr(led) or "in 3 releases" in repr(led)
