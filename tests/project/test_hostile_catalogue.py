"""The hostile-input catalogue, run as a user would: each case in a fresh process, timed and
measured.  Every case must end within ``LIMIT_S`` seconds and ``LIMIT_RSS`` bytes of resident memory with
either a correct result (checked) or one clean line ``dpposterior: error: ...`` and exit status 2.

Tolerances: the time and memory limits are the issue's (60 s, 4 GiB) -- they are the contract, not
a benchmark (``benchmarks/budgets.py`` measures the speed); the correctness checks are exact or state
their own tolerance.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

LIMIT_S = 60.0
LIMIT_RSS = 4 * 2**30
ROOT = Path(__file__).resolve().parents[2]


def run_case(argv: list[str], *, api: str | None = None, env: dict | None = None) -> tuple[int, str, str, float, int]:
    """Run ``dpposterior argv`` (or the Python snippet ``api``) in a fresh process: (status, out, err, s, rss)."""
    cmd = [sys.executable, "-c", api] if api is not None else [sys.executable, "-m", "dpposterior.cli", *argv]
    full_env = os.environ | {"PYTHONWARNINGS": "error::RuntimeWarning"} | (env or {})
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env, cwd=ROOT,
                            stdin=subprocess.DEVNULL)
    try:
        out, err = proc.communicate(timeout=LIMIT_S + 30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{argv or api} did not end within {LIMIT_S + 30:.0f} s")
    wall = time.monotonic() - start
    # the child's own peak resident set (Linux: KiB), from the rusage of the reaped child
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return proc.returncode, out.decode(), err.decode(), wall, rss


def assert_clean_refusal(code: int, err: str, needle: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, err[-2000:]
    assert len(lines) == 1 and lines[0].startswith("dpposterior: error: "), err[-2000:]
    assert "Traceback" not in err and needle in lines[0], lines[0]


def prior(k: int, value: str = "1") -> str:
    return ",".join([value] * k)


REL = ["--mechanism", "ehds", "--epsilon", "1", "--seed", "1"]

#: (id, argv, expected): expected is ("ok", check(out)) or ("refused", text the one line must contain)
CATALOGUE = [
    ("tiny-prior-release", ["release", "--prior", "1e-12,1e-12,1e-12", "--counts", "0,0,5", *REL],
     ("ok", lambda out: out.startswith("Dir(") and "nan" not in out.lower())),
    ("tiny-prior-pmf", ["pmf", "--prior", "1e-12,1e-12", "--counts", "0,3", "--mechanism", "ehds", "--epsilon", "1",
                        "--json"],
     ("ok", lambda out: abs(sum(o["probability"] for o in json.loads(out)["outputs"]) - 1) < 1e-12)),
    ("tiny-prior-privacy", ["privacy", "--prior", "1e-12,1e-12,1e-12", "--n", "10", "--mechanism", "ehds",
                            "--epsilon", "1", "--json"],
     ("ok", lambda out: 0 <= json.loads(out)["concrete_epsilon"] <= 1 and json.loads(out)["worst_pair"][0])),
    ("prior-below-range", ["release", "--prior", "1e-300,1e-300", "--counts", "0,5", *REL], ("refused", "prior")),
    ("prior-zero", ["release", "--prior", "0,1", "--counts", "0,5", *REL], ("refused", "prior")),
    ("huge-prior-release", ["release", "--prior", "1e6,1e6,1e6", "--counts", "0,0,5", "--mechanism", "mh",
                            "--epsilon", "1", "--seed", "1"],
     ("ok", lambda out: out.startswith("Dir(") and "e+" not in out
             and sum(int(x) for x in out.splitlines()[0][4:-1].split(", ")) == 3_000_005)),
    ("huge-prior-privacy", ["privacy", "--prior", "1e6,1e6", "--n", "10", "--mechanism", "ehds", "--epsilon", "1",
                            "--json"],
     ("ok", lambda out: 0 <= json.loads(out)["concrete_epsilon"] <= 1)),
    ("prior-above-range", ["release", "--prior", "1e12,1", "--counts", "0,5", *REL], ("refused", "prior")),
    ("eps-1e-300", ["release", "--prior", "1,1", "--counts", "5,5", "--mechanism", "ehds", "--epsilon", "1e-300"],
     ("refused", "epsilon")),
    ("eps-1e12", ["release", "--prior", "1,1", "--counts", "5,5", "--mechanism", "ehds", "--epsilon", "1e12"],
     ("refused", "epsilon")),
    ("eps-min", ["release", "--prior", "1,1,1", "--counts", "5,5,5", "--mechanism", "mh", "--epsilon", "1e-6",
                 "--seed", "1"], ("ok", lambda out: out.startswith("Dir("))),
    ("eps-max", ["release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "ehds", "--epsilon", "1000",
                 "--seed", "1"], ("ok", lambda out: out.splitlines()[0] == "Beta(41, 61)")),
    ("eps-max-optimal", ["pmf", "--prior", "1,1", "--counts", "2,3", "--mechanism", "optimal", "--epsilon", "1000"],
     ("refused", "epsilon <= 30")),
    ("k-1000", ["release", "--prior", prior(1000), "--counts", prior(1000), *REL],
     ("ok", lambda out: out.startswith("Dir(") and len(out.splitlines()[0].split(",")) == 1000)),
    ("k-1000-pmf", ["pmf", "--prior", prior(1000), "--counts", prior(1000), "--mechanism", "ehds", "--epsilon", "1",
                    "--top", "3"], ("refused", "DPPOSTERIOR_MAX_PMF_WORK")),
    ("n-1e16", ["release", "--prior", "1,1", "--counts", "5000000000000000,5000000000000000", *REL],
     ("refused", "2^53")),
    ("n-8e15-memory", ["release", "--prior", "1,1", "--counts", "4000000000000000,4000000000000000", *REL],
     ("refused", "DPPOSTERIOR_MEMORY_GB")),
    ("counts-4e18", ["release", "--prior", "1,1,1", "--counts", "4000000000000000000,4000000000000000000,"
                     "4000000000000000000", *REL], ("refused", "2^53")),
    ("samples-1e15", ["audit", "--prior", "1,1", "--n", "10", "--mechanism", "ehds", "--epsilon", "1", "--samples",
                      "1e15", "--seed", "1"], ("refused", "samples")),
    ("data-dev-zero", ["release", "--prior", "1,1", "--data", "/dev/zero", "--column", "x", *REL],
     ("refused", "NUL bytes")),
    ("ledger-show-dev-zero", ["ledger", "show", "/dev/zero"], ("refused", "not a regular file (a character device)")),
    ("ledger-show-a-folder", ["ledger", "show", "src"], ("refused", "not a regular file (a folder)")),
    ("gamma-0.01-k3-n2e4", ["release", "--prior", "1,1,1", "--counts", "7000,7000,6000", "--mechanism", "ehds",
                            "--epsilon", "1", "--gamma", "0.01", "--seed", "1"],
     ("ok", lambda out: out.startswith("Dir("))),
    ("gamma-1e-6-large-n", ["release", "--prior", "1,1,1", "--counts", "1000000,1000000,1000000", "--mechanism",
                           "ehds", "--epsilon", "1", "--gamma", "1e-6", "--seed", "1"],
     ("refused", "DPPOSTERIOR_MAX_SMOOTH_WORK")),
    ("privacy-too-large", ["privacy", "--prior", "1,1,1", "--n", "3000", "--mechanism", "ehds", "--epsilon", "1"],
     ("refused", "DPPOSTERIOR_")),
    ("pmf-largest-allowed-json", ["pmf", "--prior", "1,1,1", "--counts", "470,471,471", "--mechanism", "ehds",
                                  "--epsilon", "1", "--json"],
     ("ok", lambda out: len(json.loads(out)["outputs"]) == 998_991)),
    ("pmf-one-over-the-rows", ["pmf", "--prior", "1,1,1", "--counts", "471,471,472", "--mechanism", "ehds",
                               "--epsilon", "1", "--json"], ("refused", "DPPOSTERIOR_MAX_PMF_ROWS")),
    ("audit-k-1000-search", ["audit", "--prior", prior(1000), "--n", "1000", "--mechanism", "lshist", "--epsilon",
                             "1", "--samples", "1000", "--seed", "1"], ("refused", "pairs")),
    ("audit-k-1000-random", ["audit", "--prior", prior(1000), "--n", "1000", "--mechanism", "lshist", "--epsilon",
                             "1", "--samples", "1000", "--search", "random", "--seed", "1", "--json"],
     ("ok", lambda out: json.loads(out)["pairs_tested"] == 4)),
    ("audit-rejection-sampler-time", ["audit", "--prior", "1,1", "--n", "100000", "--mechanism", "ehd", "--epsilon",
                                      "1", "--samples", "2.5e7", "--pair", "50000,50000:49999,50001", "--seed", "1"],
     ("refused", "DPPOSTERIOR_MAX_AUDIT_SECONDS")),
    ("bad-budget-setting", ["pmf", "--prior", "1,1", "--counts", "2,2", "--mechanism", "ehds", "--epsilon", "1"],
     ("refused", "DPPOSTERIOR_MAX_PMF_ROWS")),
]
ENV = {"bad-budget-setting": {"DPPOSTERIOR_MAX_PMF_ROWS": "lots"}}


@pytest.mark.parametrize("case", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_catalogue_case_at_the_cli(case):
    name, argv, (kind, expect) = case
    code, out, err, wall, rss = run_case(argv, env=ENV.get(name))
    assert wall <= LIMIT_S, f"{name}: {wall:.1f} s"
    assert rss <= LIMIT_RSS, f"{name}: {rss / 2**30:.2f} GiB"
    if kind == "ok":
        assert code == 0, err[-2000:]
        assert "Traceback" not in err and "Warning" not in err, err[-2000:]
        assert expect(out), out[-500:]
    else:
        assert_clean_refusal(code, err, expect)


#: the same edges through the Python API: a snippet prints OK, or the InputError's one line
API = [
    ("api-k-1000", "import dpposterior as d; m = d.sample('ehds', [1]*1000, [1]*1000, epsilon=1, size=2, rng=1); "
                   "assert m.shape == (2, 1000) and (m.sum(axis=1) == 1000).all()", None),
    ("api-tiny-prior", "import dpposterior as d, numpy as np; lp = d.log_pmf('mh', [1e-12]*3, [0, 0, 4], epsilon=1); "
                       "assert np.isfinite(lp).all() and abs(np.exp(lp).sum() - 1) < 1e-12", None),
    ("api-n-1e16", "import dpposterior as d; d.sample('ehds', [1, 1], [5*10**15, 5*10**15], epsilon=1, size=1)", "2^53"),
    ("api-counts-4e18", "import dpposterior as d; d.local_sensitivity([1, 1, 1], [4*10**18]*3)", "2^53"),
    ("api-negative-count", "import dpposterior as d; d.local_sensitivity([1, 1], [-1, 5])", "non-negative"),
    ("api-fractional-size", "import dpposterior as d; d.sample('ehds', [1, 1], [3, 3], epsilon=1, size=1.5)", "size"),
    ("api-bool-eps", "import dpposterior as d; d.log_pmf('ehds', [1, 1], [3, 3], epsilon=True)", "epsilon"),
    ("api-nan-eps", "import dpposterior as d; d.log_pmf('ehds', [1, 1], [3, 3], epsilon=float('nan'))", "epsilon"),
    ("api-negative-hellinger", "import dpposterior as d; d.hellinger([-1, 2], [1, 2])", ""),
    ("api-eps-1e12", "import dpposterior as d; d.sample('ehds', [1, 1], [3, 3], epsilon=1e12, size=1)", "epsilon"),
    ("api-fractional-n", "import dpposterior as d; d.candidates(1.5, 2)", "n must be an integer"),
    ("api-one-category", "import dpposterior as d; d.candidates(3, 1)", "k must be an integer"),
    ("api-steps-shapes", "import dpposterior as d; d.steps([1, 2], [1, 2, 3])", "same number of categories"),
    ("api-posterior-is-the-function", "import dpposterior as d; d.posterior([1, 1, 1], [1, 2])", "prior has 3"),
    ("api-prior-1e-300", "import dpposterior as d; d.sample('ehds', [1e-300, 1e-300], [0, 5], epsilon=1, size=1)",
     "prior entries must be in"),
    ("api-eps-1e-300", "import dpposterior as d; d.sample('ehds', [1, 1], [3, 3], epsilon=1e-300, size=1)", "epsilon"),
    ("api-huge-prior", "import dpposterior as d; m = d.sample('mh', [1e6]*3, [0, 0, 5], epsilon=1, size=3, rng=1); "
                       "assert (m.sum(axis=1) == 5).all()", None),
    ("api-k-1000-pmf", "import dpposterior as d; d.log_pmf('ehds', [1]*1000, [1]*1000, epsilon=1)",
     "DPPOSTERIOR_MEMORY_GB"),
    ("api-sample-size-1e12", "import dpposterior as d; d.sample('ehds', [1, 1], [2, 2], epsilon=1, size=10**12)",
     "DPPOSTERIOR_MAX_DRAW_ENTRIES"),
    ("api-sample-n-6.6e7", "import dpposterior as d; d.sample('ehd', [1, 1], [33*10**6]*2, epsilon=1, size=1)",
     "DPPOSTERIOR_MAX_RELEASE_WORK"),
    ("api-audit-samples-1e15", "from dpposterior.mechanism_audit import audit_mechanism as a; "
                               "a('ehds', [1, 1], 10, epsilon=1, samples=10**15)", "samples"),
    ("api-audit-k-1000", "from dpposterior.mechanism_audit import audit_mechanism as a; "
                         "a('lshist', [1]*1000, 1000, epsilon=1, samples=1000, search='boundary')", "pairs"),
    ("api-gamma-tiny-huge-n", "import dpposterior as d; d.smooth_sensitivity([1, 1, 1], [10**7]*3, gamma=1e-6)",
     "DPPOSTERIOR_MAX_SMOOTH_WORK"),
]


@pytest.mark.parametrize("case", API, ids=[c[0] for c in API])
def test_catalogue_case_through_the_api(case):
    name, snippet, refusal = case
    wrapped = ("import sys\nfrom dpposterior.errors import InputError\ntry:\n    " + snippet.replace("; ", "\n    ")
               + "\nexcept InputError as exc:\n    print('InputError:', exc); sys.exit(2)\nprint('OK')\n")
    code, out, err, wall, rss = run_case([], api=wrapped)
    assert wall <= LIMIT_S and rss <= LIMIT_RSS, (wall, rss)
    assert "Traceback" not in err, err[-2000:]
    if refusal is None:
        assert code == 0 and out.strip() == "OK", out + err
    else:
        assert code == 2 and out.startswith("InputError:") and refusal in out and len(out.strip().splitlines()) == 1, out


def test_no_json_output_has_nan_or_infinity():
    """Strict JSON everywhere: a parser that rejects NaN and Infinity reads every command's output."""
    def strict(text):
        return json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))

    for argv in (["audit", "--prior", "1,1", "--n", "5", "--mechanism", "ehdl", "--epsilon", "1", "--samples", "2000",
                  "--seed", "1", "--json"],
                 ["privacy", "--prior", "1,1", "--n", "5", "--mechanism", "ehdl", "--epsilon", "1", "--json"],
                 ["compare", "--prior", "1,1", "--n", "4", "--epsilon", "1", "--json"]):
        code, out, err, _, _ = run_case(argv)
        assert code == 0, err[-2000:]
        strict(out)


# ---------------------------------------------------------------------------------------------------------------
# Cases with files: each starts from ``files`` written under a fresh folder ({tmp} in the arguments), runs as a
# user would, and checks, besides the result, that a refusal left every file byte-identical and created none
# (a ledger's FILE.lock included).

#: an old-format ledger (written before budgets were stored) that has spent epsilon 3
LEGACY_SPENT_3 = (b'{"format": "dpposterior-ledger/1", "entries": [{"mechanism": "geometric", "epsilon": 3, '
                  b'"delta": 0, "time": ""}]}\n')
#: a ledger with budget 10 and no release yet
NEW_LEDGER = (b'{"format": "dpposterior-ledger/2", "note": "settings of each release only, never data", "budgets": '
              b'[{"epsilon": 10, "delta": 0, "time": "", "act": "created", "releases_before": 0}], "entries": []}\n')
#: a CSV whose header holds a terminal title sequence and a clear-screen sequence, then two records
ESCAPE_HEADER = b"answer\x1b]0;owned\x07\x1b[2J,b\nyes,1\nno,2\n"
#: records whose values are escape sequences (the categories are then taken from the data and printed)
ESCAPE_RECORDS = b"answer\nyes\x1b[2J\nno\n"
NA = ["--noise-aware", "--ledger", "{tmp}/L", "--budget", "10"]
POLICY_DATA = b"answer\nx\nother\n"


def no_raw_control(out: str) -> bool:
    """No control character but the line ends reaches the terminal."""
    return not any(ord(ch) < 32 and ch != "\n" or ch == "\x7f" for ch in out)


#: (id, files, argv, expected, env): expected as in CATALOGUE; on a refusal every file is left as it was
FILE_CASES = [
    # the noise-aware posterior's size refusals depend on public n, k only: before the ledger's charge
    ("noise-aware-k3-n1e6-ledger", {"L": NEW_LEDGER},
     ["release", "--prior", "1,1,1", "--counts", "300000,300000,400000", "--mechanism", "mh", "--epsilon",
      "1", *NA], ("refused", "|R(n)|"), None),
    ("noise-aware-k2-n2e6-ledger", {"L": NEW_LEDGER},
     ["release", "--prior", "1,1", "--counts", "1000000,1000000", "--mechanism", "ehds", "--epsilon", "1", *NA],
     ("refused", "over the limit of 1,000,001"), None),
    # a local route's plan refuses from public inputs too (geometric's local sum at eps = 0.01: its memory)
    ("noise-aware-local-sum-plan-ledger", {"L": NEW_LEDGER},
     ["release", "--prior", "1,1,1", "--counts", "300000,300000,400000", "--mechanism", "geometric", "--epsilon",
      "0.01", *NA], ("refused", "(local sum)"), None),
    ("noise-aware-one-row-over-the-work-ledger", {"L": NEW_LEDGER},
     ["release", "--prior", "1,1", "--counts", "40,60", "--mechanism", "ehds", "--epsilon", "1", *NA],
     ("refused", "per data set it keeps"), {"DPPOSTERIOR_MAX_POSTERIOR_WORK": "10"}),
    # ledger edges
    ("ledger-create-below-spent", {"L": LEGACY_SPENT_3}, ["ledger", "create", "{tmp}/L", "--budget", "1"],
     ("refused", "already spent (3, 0)-DP"), None),
    ("ledger-create-at-spent", {"L": LEGACY_SPENT_3}, ["ledger", "create", "{tmp}/L", "--budget", "3"],
     ("ok", lambda out: "budget (3, 0)" in out), None),
    ("ledger-raise-missing", {}, ["ledger", "raise", "{tmp}/missing", "--budget", "2"],
     ("refused", "no recorded budget to raise"), None),
    ("ledger-release-past-a-new-budget", {}, ["release", "--prior", "1,1", "--counts", "3,4", "--mechanism",
                                              "geometric", "--epsilon", "1", "--ledger", "{tmp}/new", "--budget",
                                              "0.5"], ("refused", "past its budget"), None),
    ("ledger-path-with-newline", {"a\nb": NEW_LEDGER},
     ["release", "--prior", "1,1", "--counts", "3,4", "--mechanism", "geometric", "--epsilon", "1", "--seed", "1",
      "--ledger", "{tmp}/a\nb", "--budget", "10"], ("ok", lambda out: out.startswith("Beta(")), None),
    # bytes of the user's file are printed escaped
    ("csv-header-escape-sequences", {"r.csv": ESCAPE_HEADER},
     ["release", "--prior", "1,1", "--data", "{tmp}/r.csv", "--column", "x", *REL], ("refused", "\\x1b]0;owned"),
     None),
    ("csv-path-escape-sequence", {}, ["release", "--prior", "1,1", "--data", "{tmp}/r\x1b[2J.csv", "--column", "x",
                                      *REL], ("refused", "r\\x1b[2J.csv"), None),
    ("csv-records-escape-sequences", {"r.csv": ESCAPE_RECORDS},
     ["release", "--prior", "1,1", "--data", "{tmp}/r.csv", "--column", "answer", *REL],
     ("ok", lambda out: "categories, in order: no, yes\\x1b[2J" in out and no_raw_control(out)), None),
    # a map:NAME target is the category exactly as given (no space stripped)
    ("map-target-exactly-as-given", {"r.csv": POLICY_DATA},
     ["release", "--prior", "1,1", "--data", "{tmp}/r.csv", "--column", "answer", "--categories", "yes,other",
      "--unknown", "map: other", *REL], ("refused", "' other' is not one of the categories"), None),
    # audit takes --objective, as dp.audit_mechanism(..., objective='average') does
    ("audit-lattice-average", {}, ["audit", "--prior", "1,1,1", "--n", "6", "--mechanism", "lattice", "--objective",
                                   "average", "--epsilon", "1", "--samples", "2000", "--seed", "1", "--json"],
     ("ok", lambda out: abs(json.loads(out)["exact_concrete_epsilon"] - 1) < 1e-9
      and 0 < json.loads(out)["epsilon_lower_bound"] <= 1), None),
]


@pytest.mark.parametrize("case", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_file_case_at_the_cli(case, tmp_path):
    name, files, argv, (kind, expect), env = case
    for rel, data in files.items():
        (tmp_path / rel).write_bytes(data)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code, out, err, wall, rss = run_case([a.replace("{tmp}", str(tmp_path)) for a in argv], env=env)
    assert wall <= LIMIT_S and rss <= LIMIT_RSS, (wall, rss)
    assert no_raw_control(err), repr(err)
    if kind == "ok":
        assert code == 0, err[-2000:]
        assert "Traceback" not in err, err[-2000:]
        assert expect(out), out[-500:]
        assert all(ln.startswith("dpposterior: ") for ln in err.splitlines()), repr(err)  # no line split in two
    else:
        assert_clean_refusal(code, err, expect)
        after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
        assert after == before, sorted(set(after) ^ set(before)) or "a file changed"


def test_audit_objective_at_the_cli_is_the_api_audit():
    """The same audit of lattice~average from the command line and from Python: the same pair and bound."""
    argv = ["audit", "--prior", "1,1,1", "--n", "6", "--mechanism", "lattice", "--objective", "average", "--epsilon",
            "1", "--samples", "2000", "--seed", "1", "--json"]
    code, out, err, _, _ = run_case(argv)
    assert code == 0, err[-2000:]
    cli = json.loads(out)
    snippet = ("import json, dpposterior as d; r = d.audit_mechanism('lattice', [1, 1, 1], 6, epsilon=1, "
               "objective='average', samples=2000, seed=1); "
               "print(json.dumps([r.epsilon_lower_bound, r.pair, r.exact_concrete_epsilon]))")
    code, out, err, _, _ = run_case([], api=snippet.replace("; ", "\n"))
    assert code == 0, err[-2000:]
    assert json.loads(out) == [cli["epsilon_lower_bound"], cli["pair"], cli["exact_concrete_epsilon"]]


#: the same families through the Python API: a snippet run in a fresh folder ({tmp}), printing OK or the refusal
API_FILE_CASES = [
    ("api-set-categories-release", "import dpposterior as d; d.release('geometric', [1, 1, 1], [1, 2, 3], epsilon=1, "
                                   "rng=1, categories={'a', 'b', 'c'})", "ordered list, not a set"),
    ("api-set-categories-count", "import dpposterior as d; d.count(['a'], frozenset('abc'))",
     "ordered list, not a frozenset"),
    ("api-set-categories-posterior", "import dpposterior as d; d.noise_aware_posterior('geometric', [1, 1, 1], "
                                     "[1, 2, 3], epsilon=1, categories={'a', 'b', 'c'})", "ordered list, not a set"),
    ("api-bool-records-are-not-numbers", "import dpposterior as d; "
                                         "assert d.count([True, False, True, 1], [0, 1], unknown='drop').tolist() "
                                         "== [0, 1]; assert d.count([True, False, True], [True, False]).tolist() == "
                                         "[2, 1]; d.count([True, False, True, 1], [0, 1])", "not in categories"),
    ("api-map-target-exactly-as-given", "import dpposterior as d; "
                                        "assert d.count(['x', 'other'], ['other', ' other'], unknown='map: other')"
                                        ".tolist() == [1, 1]; d.count(['x'], ['other'], unknown='map: other')",
     "' other' is not one of the categories"),
    ("api-ledger-create-below-spent", "from dpposterior.ledger import Ledger; "
                                      "Ledger('{tmp}/L', 1).create()", "already spent (3, 0)-DP"),
    ("api-ledger-raise-missing", "from dpposterior.ledger import Ledger; Ledger('{tmp}/missing').raise_budget(2)",
     "no recorded budget"),
    ("api-release-past-a-new-budget", "import dpposterior as d; from dpposterior.ledger import Ledger; "
                                      "d.release('geometric', [1, 1], [3, 4], epsilon=1, "
                                      "ledger=Ledger('{tmp}/new', 0.5))", "past its budget"),
    ("api-noise-aware-public-refusal", "import numpy as np; from dpposterior import noise_aware as na; "
                                       "na.setup('mh', np.ones(3), 10**6, epsilon=1)", "|R(n)|"),
    ("api-summary-of-a-path-with-a-newline", "from dpposterior.ledger import Ledger; "
                                             "s = str(Ledger('{tmp}/a\\nb', 10).summary()); "
                                             "assert '\\n' not in s and 'a\\\\nb' in s, s", None),
]


@pytest.mark.parametrize("case", API_FILE_CASES, ids=[c[0] for c in API_FILE_CASES])
def test_file_case_through_the_api(case, tmp_path):
    name, snippet, refusal = case
    (tmp_path / "L").write_bytes(LEGACY_SPENT_3)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    body = snippet.replace("{tmp}", str(tmp_path)).replace("; ", "\n    ")
    wrapped = ("import sys, warnings\nwarnings.simplefilter('ignore')\nfrom dpposterior.errors import InputError\n"
               "try:\n    " + body + "\nexcept InputError as exc:\n    print('InputError:', exc); sys.exit(2)\n"
               "print('OK')\n")
    code, out, err, wall, rss = run_case([], api=wrapped)
    assert wall <= LIMIT_S and rss <= LIMIT_RSS, (wall, rss)
    assert "Traceback" not in err, err[-2000:]
    if refusal is None:
        assert code == 0 and out.strip() == "OK", out + err
    else:
        assert code == 2 and out.startswith("InputError:") and refusal in out and len(out.strip().splitlines()) == 1, out
        after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
        assert after == before, sorted(set(after) ^ set(before)) or "a file changed"
