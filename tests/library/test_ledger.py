"""A budget across releases of the same data (dp.Ledger; --ledger FILE --budget EPS[,DELTA])."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import shutil
import stat
import subprocess
import sys
import warnings

import pytest

import dpposterior as dp
from dpposterior.api import prepare
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
    with pytest.raises(dp.LedgerError, match="cannot write the ledger"):
        dp.release("lshist", [1, 1], [4, 6], epsilon=1.0, ledger=led)
    assert (tmp_path / "l.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.json", "l.json.lock"]


@pytest.mark.parametrize("argv, match", [(["--ledger", "x.json"], "a new ledger needs --budget"),
                                         (["--budget", "1"], "it needs --ledger FILE"),
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
    text = str(led.summary())
    assert "total (2, 4e-06)-DP by basic composition" in text and "dp-accounting composition" in text
    composed = dp.ledger.composed_epsilon(led.entries(), 1e-3)
    assert 0 < composed <= 2.0 + 1e-9
    monkeypatch.setitem(sys.modules, "dp_accounting", None)  # the extra is optional
    monkeypatch.setitem(sys.modules, "dp_accounting.pld", None)
    assert "dp-accounting" not in str(led.summary()) and "basic composition" in str(led.summary())


def test_pure_releases_report_basic_composition_only(tmp_path):
    led = dp.Ledger(tmp_path / "l.json", budget=3.0)
    for _ in range(3):
        dp.release("geometric", [1, 1], [4, 6], epsilon=1.0, ledger=led)
    assert led.total() == (3.0, 0.0) and "dp-accounting" not in str(led.summary())
    assert "3 release(s)" in repr(led) or "in 3 releases" in repr(led)


# -- the budget belongs to the ledger; the path is the ledger that is charged; parsing ends in one line --------


def test_a_symlinked_ledger_charges_its_target(tmp_path, capsys):
    """A link is followed: the release through it and the one to the target add up in the same file."""
    real, link = tmp_path / "real.ledger", tmp_path / "link.ledger"
    rel = [*REL[:-1], "0.5"]
    code, _, err = run(capsys, *rel, "--ledger", str(real), "--budget", "1")
    assert code == 0, err
    link.symlink_to(real)
    code, _, err = run(capsys, *rel, "--ledger", str(link), "--budget", "1")
    assert code == 0 and "2 release(s), total (1, 0)-DP" in err, err
    assert link.is_symlink() and os.readlink(link) == str(real)  # the link was not replaced by a file
    assert len(dp.Ledger(real).entries()) == 2 and dp.Ledger(link).entries() == dp.Ledger(real).entries()
    before = real.read_bytes()
    for path in (real, link):  # 1.5 on the same data is refused, whichever way it comes
        code, out, err = run(capsys, *rel, "--ledger", str(path), "--budget", "1")
        assert code == 2 and out == "" and "past its budget" in err and err.count("\n") == 1
    assert real.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.ledger", "real.ledger", "real.ledger.lock"]


def test_a_link_swapped_in_after_the_path_was_resolved_is_refused(tmp_path):
    real, other = tmp_path / "real.ledger", tmp_path / "other.ledger"
    led = dp.Ledger(real, budget=1.0)
    with led.charge("lshist", 0.1, 0.0):
        pass
    dp.Ledger(other, budget=1.0).create()
    real.rename(tmp_path / "moved.ledger")
    real.symlink_to(other)
    with pytest.raises(dp.LedgerError, match="symbolic link"):
        with led.charge("lshist", 0.1, 0.0):
            pytest.fail("drawn")
    assert real.is_symlink() and dp.Ledger(other).entries() == []


def test_a_fifo_ledger_is_refused_at_once(tmp_path):
    """A FIFO nobody writes to: one line, status 2, no hang (a fresh process, so a hang is a failure)."""
    fifo = tmp_path / "l.fifo"
    os.mkfifo(fifo)
    argv = [sys.executable, "-m", "dpposterior", *REL, "--ledger", str(fifo), "--budget", "1"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.count("\n") == 1 and "not a regular file (a FIFO)" in proc.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    link = tmp_path / "l.json"
    link.symlink_to(fifo)  # a link to a FIFO: the same refusal
    with pytest.raises(dp.LedgerError, match="a FIFO"):
        dp.Ledger(link, budget=1.0)


def test_a_socket_ledger_is_refused(tmp_path, monkeypatch):
    import socket

    monkeypatch.chdir(tmp_path)  # a short relative path: AF_UNIX paths are at most ~100 bytes
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind("l.sock")
        with pytest.raises(dp.LedgerError, match="not a regular file"):
            dp.Ledger("l.sock", budget=1.0)
        assert stat.S_ISSOCK(os.stat("l.sock").st_mode)


DEEP = b"[" * 200_000 + b"]" * 200_000
BIG = b'{"format": "dpposterior-ledger/1", "entries": [%s]}'
ENTRY = b'{"mechanism": "lshist", "epsilon": %s, "delta": 0}'


@pytest.mark.parametrize("content", [
    DEEP, b'{"format": "dpposterior-ledger/1", "entries": ' + DEEP + b"}",
    BIG % b", ".join([ENTRY % b"1e308", ENTRY % b"1e308"]),  # each finite, the sum overflows
    BIG % (ENTRY % b"1e400"), BIG % (ENTRY % (b"1" + b"0" * 400)), BIG % (ENTRY % b"NaN"),
    BIG % (ENTRY % b"Infinity"), BIG % (ENTRY % b"true"), BIG % (ENTRY % b'"0.5"'), BIG % b"[1, 2]",
    b'{"format": "dpposterior-ledger/2", "entries": []}',  # the new format without its budget
    b'{"format": "dpposterior-ledger/2", "budgets": [{"epsilon": -1, "delta": 0, "releases_before": 0}], '
    b'"entries": []}',
], ids=["nested", "nested-entries", "sum-overflows", "1e400", "int-400-digits", "nan", "infinity", "bool",
        "string", "not-an-object", "no-budget", "negative-budget"])
def test_a_hostile_ledger_ends_in_one_line_and_is_left_as_it_is(tmp_path, capsys, content, monkeypatch):
    led = tmp_path / "l.json"
    led.write_bytes(content)
    drawn = []
    monkeypatch.setattr(dp.get_mechanism("geometric"), "sample", lambda *a, **k: drawn.append(a))
    code, out, err = run(capsys, *REL, "--ledger", str(led), "--budget", "10")
    assert code == 2 and out == "" and err.count("\n") == 1 and "corrupt" in err, err[-500:]
    assert "Traceback" not in err and drawn == [] and led.read_bytes() == content
    with pytest.raises(dp.LedgerError, match="corrupt"):
        dp.Ledger(led).entries()


def test_a_ledger_past_its_size_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(dp.ledger, "MAX_LEDGER_BYTES", 100)
    led = tmp_path / "l.json"
    led.write_bytes(b" " * 101)
    with pytest.raises(dp.LedgerError, match="larger than 100 bytes"):
        dp.Ledger(led, budget=1.0)


def test_the_budget_is_fixed_when_the_ledger_is_created(tmp_path, capsys):
    led = tmp_path / "l.json"
    code, _, err = run(capsys, *REL, "--ledger", str(led), "--budget", "1")
    assert code == 0, err
    code, _, err = run(capsys, *REL, "--ledger", str(led), "--budget", "1")
    assert code == 0, err
    code, _, err = run(capsys, *REL, "--ledger", str(led), "--budget", "1")
    assert code == 2 and "past its budget" in err
    before = led.read_bytes()
    for budget in ("100", "1,1e-6", "1.0000001"):  # another budget is refused, naming both
        code, out, err = run(capsys, *REL, "--ledger", str(led), "--budget", budget)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert "has the budget (1, 0), not (" in err and "ledger raise" in err
    assert "not (1.0000001, 0)" in err  # exactly, not rounded to the stored value
    with pytest.raises(dp.LedgerError, match=r"has the budget \(1, 0\), not \(2, 1e-06\)"):
        dp.Ledger(led, budget=(2.0, 1e-6))
    assert led.read_bytes() == before
    assert dp.Ledger(led).budget == (1.0, 0.0) and dp.Ledger(led, budget=1).budget == (1.0, 0.0)  # equal: accepted
    doc = json.loads(before)
    assert doc["format"] == "dpposterior-ledger/2"
    assert [(b["epsilon"], b["delta"], b["act"], b["releases_before"]) for b in doc["budgets"]] == [(1, 0, "created", 0)]


def test_raising_the_budget_is_an_explicit_recorded_act(tmp_path):
    path = tmp_path / "l.json"
    led = dp.Ledger(path, budget=1.0)
    for _ in range(2):
        dp.release("geometric", [1, 1], [4, 6], epsilon=0.5, ledger=led)
    with pytest.raises(dp.BudgetExceeded):
        dp.release("geometric", [1, 1], [4, 6], epsilon=0.5, ledger=led)
    before = path.read_bytes()
    for bad in (0.5, 1.0, (1.0, 0.0), (2.0, -1.0)):  # lower, unchanged, negative: refused, file untouched
        with pytest.raises(dp.InputError):
            led.raise_budget(bad)
    assert path.read_bytes() == before
    led.raise_budget(2.0)
    dp.release("geometric", [1, 1], [4, 6], epsilon=0.5, ledger=led)
    assert dp.Ledger(path).budget == (2.0, 0.0) and led.total() == (1.5, 0.0)
    assert [(b.epsilon, b.act, b.releases_before) for b in led.budgets()] == [(1.0, "created", 0), (2.0, "raised", 2)]
    with pytest.raises(dp.LedgerError, match=r"has the budget \(2, 0\), not \(1, 0\)"):
        dp.Ledger(path, budget=1.0)  # the old budget is not the ledger's any more


@pytest.mark.parametrize("budget", ["1e-3", ("1", 0.0), (1.0, "1e-6"), True, (1.0, True), [1.0],
                                    float("nan"), float("inf"), 0, -1.0, (1.0, 1.0), b"1"])
def test_the_api_budget_is_a_real_number(tmp_path, budget):
    with pytest.raises(dp.InputError, match="budget"):
        dp.Ledger(tmp_path / "l.json", budget=budget)
    assert not (tmp_path / "l.json").exists()


def test_a_new_ledger_without_a_budget_is_refused(tmp_path):
    led = dp.Ledger(tmp_path / "l.json")
    with pytest.raises(dp.LedgerError, match="needs a budget"):
        dp.release("geometric", [1, 1], [4, 6], epsilon=0.5, ledger=led)
    assert not (tmp_path / "l.json").exists()


LEGACY = {"format": "dpposterior-ledger/1", "note": "settings of each release only, never data",
          "entries": [{"mechanism": "geometric", "epsilon": 0.5, "delta": 0.0, "time": "2026-01-01T00:00:00+00:00"}]}


def test_an_old_ledger_is_read_and_charged_only_once_its_budget_is_recorded(tmp_path, capsys):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(LEGACY))
    before = path.read_bytes()
    led = dp.Ledger(path, budget=1.0)
    assert led.total() == (0.5, 0.0) and led.budgets() == [] and led.summary().format == "dpposterior-ledger/1"
    with pytest.raises(dp.LedgerError, match="records no budget.*ledger create"):
        dp.release("geometric", [1, 1], [4, 6], epsilon=0.5, ledger=led)
    code, _, err = run(capsys, *REL, "--ledger", str(path), "--budget", "100")
    assert code == 2 and "records no budget" in err and err.count("\n") == 1
    assert path.read_bytes() == before
    led.create()
    assert led.budgets()[0].act == "recorded" and led.budgets()[0].releases_before == 1
    dp.release("geometric", [1, 1], [4, 6], epsilon=0.5, ledger=led)
    assert led.total() == (1.0, 0.0) and led.entries()[0] == dp.ledger.Entry("geometric", 0.5, 0.0,
                                                                              "2026-01-01T00:00:00+00:00")


def test_write_failures_name_the_ledger_and_leave_no_temporary(tmp_path, monkeypatch):
    import errno

    path = tmp_path / "l.json"
    led = dp.Ledger(path, budget=10.0)
    dp.release("lshist", [1, 1], [4, 6], epsilon=1.0, ledger=led)
    before = path.read_bytes()
    for code in (errno.ENOSPC, errno.EROFS, errno.EACCES):
        def fail(*a, code=code, **k):
            raise OSError(code, os.strerror(code))

        with monkeypatch.context() as m:
            m.setattr(dp.ledger.os, "fsync", fail)
            with pytest.raises(dp.LedgerError, match=f"cannot write the ledger '{path}': {os.strerror(code)}"):
                dp.release("lshist", [1, 1], [4, 6], epsilon=1.0, ledger=led)
        assert path.read_bytes() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["l.json", "l.json.lock"]


def _mount_tmpfs(where, size: str) -> bool:
    if sys.platform != "linux" or os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True).returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs mounted for the test (as root; skipped with the reason otherwise)."""
    where = tmp_path / "disk"
    where.mkdir()
    if not _mount_tmpfs(where, "64k"):
        pytest.skip("mounting a small tmpfs needs root on Linux with mount(8) and the right to mount")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)


def test_a_full_disk_is_a_ledger_error_naming_the_ledger(small_disk, capsys, monkeypatch):
    path = small_disk / "l.json"
    code, _, err = run(capsys, *REL, "--ledger", str(path), "--budget", "100")
    assert code == 0, err
    before = path.read_bytes()
    filler = small_disk / "filler"
    with contextlib.suppress(OSError), open(filler, "wb", buffering=0) as f:  # fill the disk to its last byte
        while True:
            f.write(b"\0" * 512)
    drawn = []
    monkeypatch.setattr(dp.get_mechanism("geometric"), "sample", lambda *a, **k: drawn.append(a))
    code, out, err = run(capsys, *REL, "--ledger", str(path), "--budget", "100")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"cannot write the ledger '{path}': No space left on device" in err and "the output" not in err
    with pytest.raises(dp.LedgerError, match="No space left on device"):
        dp.release("geometric", [1, 1], [4, 6], epsilon=0.4, ledger=dp.Ledger(path, budget=100))
    assert drawn == [] and path.read_bytes() == before
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "l.json", "l.json.lock"]


def test_the_summary_is_data(tmp_path):
    led = dp.Ledger(tmp_path / "l.json", budget=(2.0, 1e-5))
    with led.charge("geometric", 0.5, 0.0):
        pass
    with led.charge("mh-delta", 0.25, 1e-6):
        pass
    s = led.summary()
    assert [(e.mechanism, e.epsilon, e.delta) for e in s.releases] == [("geometric", 0.5, 0.0), ("mh-delta", 0.25, 1e-6)]
    assert s.total == (0.75, 1e-6) and s.budget == (2.0, 1e-5) and s.remaining == (1.25, 1e-5 - 1e-6)
    d = json.loads(json.dumps(s.as_dict(), allow_nan=False))
    assert d["total"]["basic_composition"] == {"epsilon": 0.75, "delta": 1e-6}
    assert d["remaining"] == {"epsilon": 1.25, "delta": 1e-5 - 1e-6} and len(d["releases"]) == 2
    assert set(d["releases"][0]) == {"mechanism", "epsilon", "delta", "time"} and d["budgets"][0]["act"] == "created"
    if s.composed is not None:  # dp-accounting installed: at the budget's delta, no more than basic composition
        assert s.composed[1] == 1e-5 and 0 < s.composed[0] <= 0.75 + 1e-9
        assert d["total"]["dp_accounting"] == {"epsilon": s.composed[0], "delta": 1e-5}


def test_a_release_that_fails_after_its_charge_says_it_was_charged(tmp_path, capsys, monkeypatch):
    led = tmp_path / "l.json"

    def fails(*a, **k):
        raise dp.InputError("the draw failed")

    monkeypatch.setattr(dp.get_mechanism("geometric"), "sample", fails)
    code, out, err = run(capsys, *REL, "--ledger", str(led), "--budget", "1")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("dpposterior: error: the draw failed; the ledger") and "was charged for this release" in err
    assert "total now (0.4, 0)-DP" in err and len(dp.Ledger(led).entries()) == 1

    def breaks(*a, **k):
        raise RuntimeError("boom")

    monkeypatch.setattr(dp.get_mechanism("geometric"), "sample", breaks)
    with pytest.raises(RuntimeError) as info:
        dp.release("geometric", [1, 1], [4, 6], epsilon=0.4, ledger=dp.Ledger(led))
    assert any("was charged for this release" in n for n in info.value.__notes__)
    assert str(info.value) == "boom" and len(dp.Ledger(led).entries()) == 2


#: Refusals that came after the ledger's charge (the solve's budget, the per-z window's memory) or never came (a
#: distance with no exact method at k = 3, accepted and ignored by the clamped mechanisms): each is now refused
#: before the charge, from public inputs.
REFUSED_AFTER_CHARGE = [
    ("geometric", [1, 1, 1], [3, 4, 5], {"epsilon": 0.5, "distance": "tv"}, "tv"),
    ("lshist", [1, 1, 1], [3, 4, 5], {"epsilon": 0.5, "distance": "tv"}, "tv"),
    ("optimal", [1, 1], [100, 100], {"epsilon": 1e-3, "objective": "worst"}, "estimated"),
    ("optimal", [1, 1], [50_000, 50_000], {"epsilon": 1e-3, "objective": "average"}, "GiB"),
    ("remapped-geometric", [1, 1], [50_000, 50_000], {"epsilon": 1e-3}, "GiB"),
    ("ehds", [1, 1], [50_000, 50_000], {"epsilon": 1.0, "distance": "kl"}, "needs the exact pmf"),
    ("ehds", [1, 1], [50_000, 50_000], {"epsilon": 1.0, "calibrate": True}, "calibration for k=2, n=100000"),
]


@pytest.mark.parametrize("mechanism,prior,counts,settings,match", REFUSED_AFTER_CHARGE)
def test_a_refused_release_leaves_the_ledger_byte_identical(tmp_path, monkeypatch, mechanism, prior, counts,
                                                            settings, match):
    led = dp.Ledger(tmp_path / "l.json", budget=100.0)
    dp.release("geometric", [1, 1], [4, 6], epsilon=0.5, ledger=led)
    before = (tmp_path / "l.json").read_bytes()
    drawn = []
    # the entry that runs (a calibrated variant is its own object: built here, before the patch)
    runs = prepare(mechanism, **settings).mech
    monkeypatch.setattr(runs, "sample", lambda *a, **k: drawn.append(a))
    with pytest.raises(dp.InputError, match=match) as err:
        dp.release(mechanism, prior, counts, ledger=led, rng=None, **settings)
    assert "\n" not in str(err.value)
    assert drawn == [] and (tmp_path / "l.json").read_bytes() == before


@pytest.mark.parametrize("mechanism,prior,counts,settings,match", REFUSED_AFTER_CHARGE)
def test_a_refused_cli_release_leaves_the_ledger_byte_identical(tmp_path, capsys, mechanism, prior, counts,
                                                                settings, match):
    led = tmp_path / "l.json"
    code, _, err = run(capsys, *REL, "--ledger", str(led), "--budget", "100")
    assert code == 0, err
    before = led.read_bytes()
    argv = ["release", "--mechanism", mechanism, "--prior", ",".join(map(str, prior)),
            "--counts", ",".join(map(str, counts)), "--ledger", str(led), "--budget", "100"]
    for key, value in settings.items():
        argv += [f"--{key}"] if value is True else [f"--{key}", str(value)]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and match in err, err
    assert led.read_bytes() == before


LEGACY_SPENT_3 = {"format": "dpposterior-ledger/1",
                  "entries": [{"mechanism": "geometric", "epsilon": 3, "delta": 0, "time": ""}]}


def test_create_refuses_a_budget_below_what_an_old_ledger_spent(tmp_path, capsys):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(LEGACY_SPENT_3))
    before = path.read_bytes()
    with pytest.raises(dp.LedgerError, match=r"already spent \(3, 0\)-DP in 1 release\(s\), more than the budget"):
        dp.Ledger(path, 1).create()
    code, out, err = run(capsys, "ledger", "create", str(path), "--budget", "2.5")
    assert code == 2 and out == "" and "already spent (3, 0)-DP" in err and err.count("\n") == 1
    assert path.read_bytes() == before
    spent_delta = {**LEGACY_SPENT_3, "entries": [{**LEGACY_SPENT_3["entries"][0], "delta": 1e-6}]}
    path.write_text(json.dumps(spent_delta))
    with pytest.raises(dp.LedgerError, match="already spent"):  # the delta counts too
        dp.Ledger(path, 5).create()
    path.write_text(json.dumps(LEGACY_SPENT_3))
    assert path.read_bytes() == before
    dp.Ledger(path, 3).create()  # exactly what was spent: recorded
    assert dp.Ledger(path).budget == (3.0, 0.0)


def test_refusals_decided_by_the_file_leave_no_lock_behind(tmp_path, capsys):
    """A raise on a missing ledger, a first charge past its budget, a charge with no budget to check against:
    refused before the lock is taken, so nothing is created."""
    with pytest.raises(dp.LedgerError, match="no recorded budget to raise"):
        dp.Ledger(tmp_path / "missing").raise_budget(2)
    code, out, err = run(capsys, "ledger", "raise", str(tmp_path / "missing2"), "--budget", "2")
    assert code == 2 and "no recorded budget to raise" in err
    with pytest.raises(dp.BudgetExceeded), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dp.release("geometric", [1, 1], [3, 4], epsilon=1.0, rng=1, ledger=dp.Ledger(tmp_path / "new", 0.5))
    with pytest.raises(dp.LedgerError, match="needs a budget"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dp.release("geometric", [1, 1], [3, 4], epsilon=1.0, rng=1, ledger=dp.Ledger(tmp_path / "nobudget"))
    assert list(tmp_path.iterdir()) == []


def test_a_ledger_name_with_a_newline_stays_on_one_line(tmp_path, capsys):
    path = tmp_path / "a\nb\x1b[2J"
    led = dp.Ledger(path, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dp.release("geometric", [1, 1], [3, 4], epsilon=1.0, rng=1, ledger=led)
    line = str(led.summary())
    assert "\n" not in line and "\x1b" not in line and line.startswith("ledger a\\nb\\x1b[2J: 1 release(s)")
    code, out, err = run(capsys, *REL, "--ledger", str(path), "--budget", "10", "--seed", "1")
    assert code == 0 and err.count("\n") == 2 and "ledger a\\nb\\x1b[2J: 2 release(s)" in err, err
    code, out, err = run(capsys, "ledger", "show", str(path))
    assert code == 0 and out.splitlines()[0].startswith("ledger: ") and "\x1b" not in out
    assert out.splitlines()[0].endswith("a\\nb\\x1b[2J (dpposterior-ledger/2)")


@pytest.mark.parametrize("counts, mechanism, env, match", [
    # mh has no local route (geometric's local sum runs at these sizes)
    ("300000,300000,400000", "mh", {}, "|R(n)| = 5e+11 data sets"),  # k = 3, n = 1e6
    ("1000000,1000000", "mh", {}, "|R(n)| = 2000001 data sets"),  # k = 2, n = 2e6
    ("40,60", "ehds", {"DPPOSTERIOR_MAX_POSTERIOR_WORK": "10"}, "per data set it keeps"),  # one row over the work
])
def test_the_noise_aware_posteriors_public_refusals_come_before_the_charge(tmp_path, capsys, monkeypatch, counts,
                                                                           mechanism, env, match):
    led = tmp_path / "l.json"
    assert run(capsys, *REL, "--ledger", str(led), "--budget", "100")[0] == 0
    before = led.read_bytes()
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    drawn = []
    monkeypatch.setattr(dp.get_mechanism(mechanism), "sample", lambda *a, **k: drawn.append(a))
    prior = ",".join("1" * len(counts.split(",")))
    code, out, err = run(capsys, "release", "--prior", prior, "--counts", counts, "--mechanism", mechanism,
                         "--epsilon", "1", "--noise-aware", "--ledger", str(led), "--budget", "100")
    assert code == 2 and out == "" and err.count("\n") == 1 and match in err, err
    assert drawn == [] and led.read_bytes() == before


def test_a_noise_aware_refusal_that_depends_on_the_release_says_the_ledger_was_charged(tmp_path, capsys,
                                                                                       monkeypatch):
    """How many data sets the exact pass keeps depends on the release: that refusal comes after the draw, says the
    ledger was charged, and the release it was charged for is printed all the same."""
    led = tmp_path / "l.json"
    monkeypatch.setenv("DPPOSTERIOR_MAX_POSTERIOR_WORK", "200")  # one row (101) fits, the 101 rows kept do not
    code, out, err = run(capsys, "release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "ehds",
                         "--epsilon", "1", "--noise-aware", "--ledger", str(led), "--budget", "100")
    errors = [line for line in err.splitlines() if line.startswith("dpposterior: error:")]
    assert code == 2 and "released counts:" in out and len(errors) == 1, err
    assert "needs the exact likelihood of" in errors[0] and "charged to the ledger" in errors[0]
    assert len(dp.Ledger(led).entries()) == 1
