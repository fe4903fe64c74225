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
    assert out.splitlines() == ["Beta(2, 3)", "guarantee: 1000-DP (seeded: not private)", "released counts: 1,2",
                              "categories, in order: no, yes"]


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


# ---------------------------------------------------------------------------------------------
# --unknown and --missing: values outside --categories and empty values, dropped or mapped

POLICY_CSV = "id,answer\n1,yes\n2,no\n3,\n4,maybe\n5,yes\n6,unsure\n7,  \n8,yes\n"
POLICY_REL = ["--mechanism", "geometric", "--epsilon", "1", "--seed", "3"]


@pytest.mark.parametrize("unknown, missing, counts", [
    ("drop", "drop", "1,1,3"),          # no, maybe, yes: the unsure and the two empty records left out
    ("map:maybe", "drop", "1,2,3"),
    ("drop", "map:no", "3,1,3"),
    ("map:yes", "map:maybe", "1,3,4"),
])
def test_unknown_and_missing_policies_count_as_given(capsys, tmp_path, unknown, missing, counts):
    f = _write(tmp_path / "r.csv", POLICY_CSV)
    out = run_json(capsys, "release", "--prior", "1,1,1", "--data", f, "--column", "answer",
                   "--categories", "no,maybe,yes", "--unknown", unknown, "--missing", missing, *POLICY_REL)
    ref = run_json(capsys, "release", "--prior", "1,1,1", "--counts", counts, *POLICY_REL)
    assert out["n"] == ref["n"] == sum(int(x) for x in counts.split(","))
    assert out["released_counts"] == ref["released_counts"] and out["categories"] == ["no", "maybe", "yes"]


def test_the_cli_counts_as_dp_count_does(capsys, tmp_path):
    import pandas as pd

    import dpposterior as dp

    f = _write(tmp_path / "r.csv", POLICY_CSV)
    records = pd.read_csv(f, dtype=str, keep_default_na=False)["answer"].str.strip()
    counts = dp.count(records, ["no", "maybe", "yes"], unknown="map:maybe", missing="map:no")
    out = run_json(capsys, "release", "--prior", "1,1,1", "--data", f, "--column", "answer",
                   "--categories", "no,maybe,yes", "--unknown", "map:maybe", "--missing", "map:no", *POLICY_REL)
    ref = run_json(capsys, "release", "--prior", "1,1,1", "--counts", ",".join(map(str, counts)), *POLICY_REL)
    assert out["released_counts"] == ref["released_counts"] and out["n"] == int(counts.sum()) == 8


def test_missing_drop_without_categories_takes_the_remaining_values(capsys, tmp_path):
    f = _write(tmp_path / "r.csv", POLICY_CSV)
    out = run_json(capsys, "release", "--prior", "1,1,1,1", "--data", f, "--column", "answer", "--missing", "drop",
                   *POLICY_REL)
    assert out["categories"] == ["maybe", "no", "unsure", "yes"] and out["n"] == 6


@pytest.mark.parametrize("extra, message", [
    (["--categories", "no,maybe,yes", "--missing", "drop"],
     "has values not in --categories (not shown: they are data); --unknown drop or --unknown map:NAME"),
    (["--categories", "no,maybe,yes", "--unknown", "drop"], "has empty values; give every record a category "
                                                            "(or --missing drop, --missing map:NAME)"),
    (["--unknown", "drop"], "--unknown needs --categories"),
    (["--missing", "map:no"], "--missing map:no needs the category list (--categories)"),
    (["--categories", "no,maybe,yes", "--unknown", "map:other"], "'other' is not one of the categories"),
    (["--categories", "no,maybe,yes", "--unknown", "skip"], "--unknown must be 'error', 'drop' or 'map:NAME'"),
])
def test_policy_refusals_are_one_line(capsys, tmp_path, extra, message):
    f = _write(tmp_path / "r.csv", POLICY_CSV)
    code, out, err = run(capsys, "release", "--prior", "1,1,1", "--data", f, "--column", "answer", *extra, *POLICY_REL)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1, err
    assert "unsure" not in err


def test_policies_need_data(capsys):
    code, _, err = run(capsys, "release", "--prior", "1,1", "--counts", "4,6", "--missing", "drop", *POLICY_REL)
    assert code == 2 and "they need --data" in err


def test_a_missing_column_names_the_header(capsys, tmp_path):
    f = _write(tmp_path / "r.csv", "id,answer,when\n1,yes,x\n")
    code, _, err = run(capsys, "release", "--prior", "1,1", "--data", f, "--column", "Q1", *POLICY_REL)
    assert code == 2 and f"{f} has no column 'Q1' (columns: id, answer, when)" in err
    wide = _write(tmp_path / "w.csv", ",".join(f"c{i}" for i in range(30)) + "\n" + ",".join("x" * 30) + "\n")
    code, _, err = run(capsys, "release", "--prior", "1,1", "--data", wide, "--column", "Q1", *POLICY_REL)
    assert code == 2 and "(columns: c0, c1," in err and "c19, ..." in err and "c20" not in err


@pytest.mark.parametrize("prior, message", [
    ("1,1,1", "has a value outside the prior's 3 categories (not shown: it is data); name the categories with "
              "--categories X,Y,... and drop or map the others with --unknown drop"),
    ("1,1,1,1,1", "has fewer distinct values than the prior's 5 categories; name all 5 with --categories"),
])
def test_data_and_prior_of_other_lengths_say_how_to_fix_it(capsys, tmp_path, prior, message):
    f = _write(tmp_path / "r.csv", "answer\nyes\nno\nmaybe\nunsure\n")
    code, out, err = run(capsys, "release", "--prior", prior, "--data", f, "--column", "answer", *POLICY_REL)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1, err
    # with --categories the lengths are public: the plain message stays
    code, _, err = run(capsys, "release", "--prior", prior, "--data", f, "--column", "answer",
                       "--categories", "yes,no,maybe,unsure", *POLICY_REL)
    assert code == 2 and "entries but the counts have 4 categories" in err


def _no_control(text: str) -> bool:
    return not any((ord(ch) < 32 and ch != "\n") or ch == "\x7f" for ch in text)


def test_header_names_and_paths_are_printed_escaped(capsys, tmp_path):
    """A CSV header holding terminal escape sequences, a binary header, a path with an escape: each printed as
    Python escapes it, never raw (the one helper dpposterior.errors.shown_name)."""
    f = tmp_path / "r.csv"
    f.write_bytes(b"answer\x1b]0;owned\x07\x1b[2J,b\x01\x7f\xe2\x80\xae\nyes,1\n")
    code, _, err = run(capsys, "release", "--prior", "1,1", "--data", str(f), "--column", "Q1", *POLICY_REL)
    assert code == 2 and err.count("\n") == 1 and _no_control(err) and "\u202e" not in err, repr(err)
    assert "(columns: answer\\x1b]0;owned\\x07\\x1b[2J, b\\x01\\x7f\\u202e)" in err
    bad = str(tmp_path / "r\x1b[2J\n.csv")
    code, _, err = run(capsys, "release", "--prior", "1,1", "--data", bad, "--column", "Q1", *POLICY_REL)
    assert code == 2 and err.count("\n") == 1 and "r\\x1b[2J\\n.csv" in err and _no_control(err), repr(err)


def test_category_names_from_the_data_are_printed_escaped(capsys, tmp_path):
    f = _write(tmp_path / "r.csv", "answer\nyes\x1b[2J\nno\n")
    code, out, err = run(capsys, "release", "--prior", "1,1", "--data", f, "--column", "answer", *POLICY_REL)
    assert code == 0 and "categories, in order: no, yes\\x1b[2J" in out and _no_control(out), repr(out)
    code, out, err = run(capsys, "posterior", "--prior", "1,1", "--released", "3,4", "--mechanism", "geometric",
                         "--epsilon", "1", "--categories", "a\x1b[2J,b")
    assert code == 0 and "a\\x1b[2J" in out and _no_control(out), repr(out)


def test_a_map_target_on_the_command_line_is_the_category_exactly_as_given(capsys, tmp_path):
    f = _write(tmp_path / "r.csv", "answer\nx\nother\n")
    code, _, err = run(capsys, "release", "--prior", "1,1", "--data", f, "--column", "answer", "--categories",
                       "yes,other", "--unknown", "map: other", *POLICY_REL)
    assert code == 2 and "--unknown map: other: ' other' is not one of the categories" in err, err
    code, out, _ = run(capsys, "release", "--prior", "1,1", "--data", f, "--column", "answer", "--categories",
                       "yes,other", "--unknown", "map:other", *POLICY_REL, "--json")
    assert code == 0
