"""`--data`: the data reader (CSV records, pipes, FIFOs, directories, warnings), ordinary and hostile inputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dpposterior.cli.main import MAX_MESSAGE_CHARS
from dpposterior.guarantee import SEEDED_WARNING

from .helpers import EHDS, LIMIT_S, LONG, REL, assert_clean_refusal, refused, run, run_case, run_json

SEEDED = "dpposterior: warning: " + SEEDED_WARNING


def test_release_from_csv_records(capsys, tmp_path):
    f = tmp_path / "records.csv"
    f.write_text("id,answer\n1,yes\n2,no\n3,yes\n4,maybe\n5,yes\n")
    out = run_json(capsys, "release", "--prior", "1,1,1", "--data", str(f), "--column", "answer",
                   "--mechanism", "lshist", "--epsilon", "1", "--seed", "0")
    assert out["categories"] == ["maybe", "no", "yes"] and out["n"] == 5
    # the records count to (maybe, no, yes) = (1, 1, 3): same release as from those counts at the same seed
    same = run_json(capsys, "release", "--prior", "1,1,1", "--counts", "1,1,3", "--mechanism", "lshist",
                    "--epsilon", "1", "--seed", "0")
    assert same["released_counts"] == out["released_counts"]
    explicit = run_json(capsys, "release", "--prior", "1,1,1,1", "--data", str(f), "--column", "answer",
                        "--categories", "yes,no,maybe,unsure", "--mechanism", "ehds", "--epsilon", "1", "--seed", "4")
    ref = run_json(capsys, "release", "--prior", "1,1,1,1", "--counts", "3,1,1,0", "--mechanism", "ehds",
                   "--epsilon", "1", "--seed", "4")
    assert explicit["released_counts"] == ref["released_counts"]
    assert explicit["categories"] == ["yes", "no", "maybe", "unsure"]


def test_csv_errors(capsys, tmp_path):
    f = tmp_path / "r.csv"
    f.write_text("answer\nyes\n\nno\n")
    g = tmp_path / "s.csv"
    g.write_text("answer\nyes\nno\n")
    cases = [
        (["--data", str(g)], "--column"),
        (["--data", str(g), "--column", "other"], "no column 'other'"),
        (["--data", str(g), "--column", "answer", "--categories", "yes"], "not in --categories"),
        (["--data", str(g), "--column", "answer", "--categories", "yes,yes"], "duplicates"),
    ]
    for extra, message in cases:
        code, _, err = run(capsys, "release", "--prior", "1,1", "--mechanism", "ehds", "--epsilon", "1", *extra)
        assert code == 2 and message in err and err.count("\n") == 1, (extra, err)


def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def test_data_io_error_while_reading_is_one_line():
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", "/proc/self/mem", "--column", "answer",
                                  *REL])
    assert_clean_refusal(code, out, err, "cannot read /proc/self/mem")


def test_data_fifo_without_writer_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "records"
    os.mkfifo(fifo)
    code, out, err, wall = run_case(["release", "--prior", "1,1", "--data", str(fifo), "--column", "answer", *REL],
                                    env={"DPPOSTERIOR_MAX_DATA_SECONDS": "1"}, timeout=LIMIT_S)
    assert_clean_refusal(code, out, err, "DPPOSTERIOR_MAX_DATA_SECONDS")
    assert wall < LIMIT_S


def test_data_from_a_pipe_on_stdin_is_read():
    csv = b"answer\nyes\nno\nyes\n"
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", "/dev/stdin", "--column", "answer",
                                  "--categories", "no,yes", "--mechanism", "ehds", "--epsilon", "1000", "--seed", "1"],
                                 stdin=csv)
    assert code == 0 and err.splitlines() == [SEEDED], err  # a seeded release says it is not private
    assert out.splitlines() == ["Beta(2, 3)", "guarantee: 1000-DP (seeded: not private)", "categories, in order: no, yes"]


def test_data_dev_zero_still_refused_for_nul_bytes():
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", "/dev/zero", "--column", "answer", *REL])
    assert_clean_refusal(code, out, err, "NUL bytes")


def test_data_directory_is_one_line(tmp_path):
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", str(tmp_path), "--column", "answer", *REL])
    assert_clean_refusal(code, out, err, "is a directory")


@pytest.mark.parametrize("name, text, needle", [
    ("many", "answer\n" + "\n".join(f"v{i}" for i in range(200_001)) + "\n", "more than the 100000"),
    ("dup", "answer,answer\nyes,no\nno,yes\n", "more than one column 'answer'"),
    ("one-value", "answer\n" + "x" * (2 * 2**20) + "\n", "at least 2 categories"),
])
def test_data_refusal_without_categories_is_one_line(tmp_path, name, text, needle):
    path = _write(tmp_path / f"{name}.csv", text)
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", path, "--column", "answer", *REL])
    assert_clean_refusal(code, out, err, needle)


def test_blank_line_warning_not_printed_before_a_refusal(tmp_path):
    path = _write(tmp_path / "r.csv", "answer\nyes\n\nno\n")
    code, out, err, _ = run_case(["release", "--prior", "1,1,1", "--data", path, "--column", "answer",
                                  "--categories", "no,yes", *REL])
    assert_clean_refusal(code, out, err, "prior has 3 entries")


def test_warnings_still_printed_after_a_successful_release(tmp_path):
    path = _write(tmp_path / "r.csv", "answer\nyes\n\nno\n")
    code, out, err, _ = run_case(["release", "--prior", "1,1", "--data", path, "--column", "answer", *REL])
    assert code == 0 and out.startswith("Beta("), err
    # blank lines are skipped silently (their count was derived from the data)
    assert err.splitlines() == [SEEDED,
                                "dpposterior: warning: categories taken from the data; pass --categories to keep "
                                "the category set itself private"]


def test_long_column_name_is_not_echoed_whole(capsys, tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("answer\nyes\nno\n")
    line = refused(["release", "--prior", "1,1", "--data", str(path), "--column", LONG, *EHDS], capsys, "no column")
    assert len(line) <= MAX_MESSAGE_CHARS + 30


def test_negative_column_name_reaches_the_reader(capsys, tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("answer\nyes\nno\n")
    refused(["release", "--prior", "1,1", "--data", str(path), "--column", "-answer", *EHDS], capsys, "no column")


@pytest.mark.parametrize("text", [
    'answer,comment\nyes,"a\n\n\nb"\nno,"x\n\ny"\nyes,z\n',  # blank lines inside quoted fields only
    'answer,comment\r\nyes,"a\r\n\r\nb"\r\nno,z\r\n',
    "answer\nyes\n\nno\n\n\nyes\n",  # real blank lines: skipped, and no count printed either
    "answer\nyes\n\n\n\n\n\n\n\nno\nyes\n",
])
def test_no_message_depends_on_blank_lines(capsys, tmp_path, text):
    path = tmp_path / "r.csv"
    path.write_text(text, newline="")
    code, out, err = run(capsys, "release", "--prior", "1,1", "--data", str(path), "--column", "answer", "--categories",
                         "no,yes", *EHDS, "--seed", "1")
    # the one warning is the seed's, a setting: nothing about the blank lines
    assert code == 0 and err.splitlines() == ["dpposterior: warning: " + SEEDED_WARNING], err
