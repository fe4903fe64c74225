"""Config errors are named at dry run: `snakemake -n` with a bad config ends with one line
that names the key (or the file and line) and exit status 2, before any job; the shipped configs pass."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dpposterior.paper.config import ConfigError, check_all, check_files

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
SNAKEMAKE = [sys.executable, "-m", "snakemake"]


@pytest.fixture(autouse=True)
def pipeline_limits(monkeypatch):
    """The Snakefile checks under the pipeline's budgets (dpposterior.paper.limits), as every job runs."""
    from dpposterior.paper.limits import PIPELINE_BUDGETS

    for name, value in PIPELINE_BUDGETS.items():
        monkeypatch.setenv(name, value)


def dry_run(configfile: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([*SNAKEMAKE, "-n", "--configfile", str(configfile), *extra], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def our_line(proc: subprocess.CompletedProcess) -> str:
    """The one config-error line, after asserting there is exactly one and nothing like a traceback or schema."""
    ours = [ln for ln in proc.stderr.splitlines() if ln.startswith("dpposterior: config error")]
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert len(ours) == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "$schema" not in proc.stderr and "additionalProperties" not in proc.stderr
    assert len(proc.stderr.splitlines()) <= 4, proc.stderr  # Snakemake's two notes about the profile and config
    return ours[0]


def quick_with(tmp_path: Path, text: str) -> Path:
    """workflow/quick.yaml with ``text`` appended (a YAML overlay over config.yaml)."""
    p = tmp_path / "bad.yaml"
    p.write_text((ROOT / "workflow" / "quick.yaml").read_text() + "\n" + text)
    return p


def merged(**changes) -> dict:
    """config.yaml merged with ``changes`` (section -> entry -> {key: value}), as Snakemake merges."""
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    for section, entries in changes.items():
        if not isinstance(entries, dict):
            cfg[section] = entries
            continue
        for entry, values in entries.items():
            cfg[section][entry] = cfg[section][entry] | values if isinstance(values, dict) else values
    return cfg


@pytest.mark.parametrize("text, needle", [
    ("seed: 1\nseed: 2\n", "duplicate key 'seed'"),
    ("bogus_key: 3\n", "config error at '(top level)': Additional properties are not allowed ('bogus_key'"),
    ("privacy:\n  fig6: {n: [10, 50], epsilon: .nan}\n", None),  # a duplicate 'privacy:' (quick.yaml has one)
    # a key that would change what an item is (its parameters file would say fig2): refused, not written
    ("items:\n  fig1: {item: fig2}\n", "config error at 'items.fig1': Additional properties are not allowed ('item'"),
    ("items:\n  fig1: {outputs: {}}\n", "('outputs' was unexpected)"),
    # a negative tolerance would decide the verdict before anything runs
    ("items:\n  frontier:\n    claims: [{kind: near-optimum, mechanism: lattice~worst, objective: worst, "
     "tolerance: -0.01, text: t}]\n", "'items.frontier.claims[0].tolerance': must be a number >= 0, got '-0.01'"),
])
def test_dry_run_names_the_error_in_one_line(tmp_path, text, needle):
    line = our_line(dry_run(quick_with(tmp_path, text)))
    assert needle is None or needle in line, line


@pytest.mark.parametrize("overlay, key, needle", [
    ({"privacy": {"fig6": {"epsilon": float("nan")}}}, "privacy.fig6.epsilon", "finite"),
    ({"pmf": {"fig3a": {"epsilon": float("inf")}}}, "pmf.fig3a.epsilon", "finite"),
    ({"privacy": {"fig6": {"n": [10, 100000000000]}}}, "privacy.fig6.n[1]", "DPPOSTERIOR_MEMORY_GB"),
    ({"privacy": {"fig6": {"n": [10, 600000]}}}, "privacy.fig6.n[1]", "DPPOSTERIOR_MAX_PAIRS"),
    ({"privacy": {"fig6": {"n": ["1e11"]}}}, "privacy.fig6.n[0]", "is not of type 'integer'"),
    ({"pmf": {"fig3b": {"prior": [1, 1]}}}, "pmf.fig3b.counts", "one entry per prior category"),
    ({"pmf": {"fig3c": {"counts": [3000, 3000, 3000, 3000]}}}, "pmf.fig3c.counts", "GiB"),
    # the lattice release's pmf at one data set: one local search per point of the ball around c (85,609 at k = 4 and
    # tol 1e-9), by orbits at a symmetric prior only
    ({"pmf": {"fig3c": {"prior": [1, 1, 1, 2], "tol": 1e-9}}}, "pmf.fig3c.counts", "85,609 points within distance 29"),
    ({"privacy": {"fig6": {"delta": 1.5}}}, "privacy.fig6.delta", "maximum"),
    ({"privacy": {"fig6": {"prior": [1e-300, 1]}}}, "privacy.fig6.prior", "prior entries must be in"),
    ({"privacy": {"fig6": {"epsilon": 5000}}}, "privacy.fig6.epsilon", "[1e-06, 1000]"),
    ({"audit": {"fig6": {"samples": 10**12}}}, "audit.fig6.samples", "DPPOSTERIOR_MAX_AUDIT_SAMPLES"),
    ({"expected_error": {"tailoring": {"distances": ["hellinger", "js"]}}}, "expected_error.tailoring.distances[1]",
     "unknown distance 'js'"),
    ({"expected_error": {"tailoring": {"distances": ["kl"], "measures": ["tv"], "priors": [[1, 1, 1]]}}},
     "expected_error.tailoring.measures[0] at priors[0]", "tv is exact for Beta"),
    # the job refuses optimal's k >= 3 linear program under any loss but Hellinger's: so does the check
    ({"expected_error": {"tailoring": {"distances": ["kl"], "measures": ["hellinger"], "priors": [[1, 1, 1]]}}},
     "expected_error.tailoring.mechanisms (optimal~worst at priors[0])", "optimal under kl at k=3 is not built"),
    # the yardstick's settings: a share of 0 s would refuse every point before anything runs
    ({"expected_error": {"frontier": {"yardstick": {"seconds": 0}}}}, "expected_error.frontier.yardstick.seconds",
     "less than or equal to the minimum"),
    ({"expected_error": {"frontier": {"yardstick": {"depth": 4}}}}, "expected_error.frontier.yardstick",
     "'depth' was unexpected"),
])
def test_values_a_job_would_refuse_are_refused_by_the_check(overlay, key, needle):
    with pytest.raises(ConfigError) as err:
        check_all(merged(**overlay), SCHEMA)
    msg = str(err.value)
    assert "\n" not in msg and f"'{key}'" in msg and needle in msg, msg


def test_an_audit_past_its_time_budget_is_named(monkeypatch):
    monkeypatch.setenv("DPPOSTERIOR_MAX_AUDIT_SECONDS", "10")
    with pytest.raises(ConfigError) as err:
        check_all(merged(audit={"fig6": {"samples": 10**7}}), SCHEMA)
    msg = str(err.value)
    assert "'audit.fig6.samples'" in msg and "DPPOSTERIOR_MAX_AUDIT_SECONDS" in msg and "\n" not in msg, msg


def test_runs_past_the_draw_budget_are_named():
    with pytest.raises(ConfigError, match=r"config error at 'accuracy\.[^']+\.(n|counts)\[\d+\]'.*"
                                          r"DPPOSTERIOR_MAX_DRAW_ENTRIES"):
        check_all(merged(runs=10**8), SCHEMA)


def test_optimal_beyond_its_epsilon_is_named(tmp_path):
    cfg = merged()
    name = next(iter(cfg["expected_error"]))
    cfg["expected_error"][name]["epsilon"] = [1.0, 40.0]
    with pytest.raises(ConfigError, match=rf"'expected_error\.{name}\.mechanisms'.*epsilon <= 30"):
        check_all(cfg, SCHEMA)


def test_yaml_syntax_error_gives_file_and_line(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("seed: 1\nruns: [1, 2\nitems: {}\n")
    with pytest.raises(ConfigError, match=r"c\.yaml, line \d+, column \d+"):
        check_files([p])
    q = tmp_path / "d.yaml"
    q.write_text("a:\n  b: 1\n  c: 2\n  b: 3\n")
    with pytest.raises(ConfigError, match=r"d\.yaml, line 4: duplicate key 'b' \(first at line 2\)"):
        check_files([q])


@pytest.mark.parametrize("configfile", ["config.yaml", "workflow/quick.yaml", "workflow/large.yaml"])
def test_the_shipped_configs_pass(configfile):
    check_files([ROOT / "config.yaml", ROOT / configfile])
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    if configfile != "config.yaml":  # Snakemake's deep merge of the overlay
        def update(a, b):
            for k, v in b.items():
                a[k] = update(a.get(k, {}), v) if isinstance(v, dict) and isinstance(a.get(k), dict) else v
            return a
        cfg = update(cfg, yaml.safe_load((ROOT / configfile).read_text()))
    check_all(cfg, SCHEMA)


def test_a_good_dry_run_still_plans_every_job():
    # --forceall: every job planned, also in a checkout that holds a finished run ("Nothing to be done" otherwise)
    proc = dry_run(ROOT / "workflow" / "quick.yaml", "--forceall")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "dry-run" in proc.stdout + proc.stderr


@pytest.mark.parametrize("overlay, key, needle", [
    ({"coverage": {"coverage": {"n": [20, 1_000_000_000]}}}, "coverage.coverage.n[1]", "GiB"),
    ({"sensitivity": {"fig1": {"n": 10**15}}}, "sensitivity.fig1.n", "GiB"),
    ({"privacy": {"fig6": {"prior": [1, 1, 1], "mechanisms": ["optimal"]}}}, "privacy.fig6.n[", "DPPOSTERIOR_MAX_PAIRS"),
    ({"seed": 2**200}, "seed", "below 2^128"),
])
def test_sizes_only_a_job_saw_are_refused_by_the_check(overlay, key, needle):
    with pytest.raises(ConfigError) as err:
        check_all(merged(**overlay), SCHEMA)
    msg = str(err.value)
    assert f"'{key}" in msg and needle in msg and "\n" not in msg, msg


# ---- claim kinds (dpposterior.paper.claims.KINDS): a wrong kind or key is one line at dry run

def test_dry_run_names_a_misspelled_claim_key_in_one_line(tmp_path):
    text = ("items:\n  fig4:\n    claims:\n"
            "      - {kind: crossover, beter: mh, worse: lsdim, text: \"a claim\"}\n")
    line = our_line(dry_run(quick_with(tmp_path, text)))
    assert "'items.fig4.claims[0].beter'" in line and "no key 'beter' (did you mean 'better'?)" in line, line


@pytest.mark.parametrize("item, claim, key, needle", [
    ("fig4", {"kind": "crossing", "better": "mh", "worse": "lsdim", "text": "t"}, "items.fig4.claims[0].kind",
     "unknown claim kind 'crossing'; the kinds of template 'error_curve': crossover,"),
    ("fig4", {"kind": "crossover", "worse": "lsdim", "text": "t"}, "items.fig4.claims[0].better",
     "needs the key 'better'"),
    ("fig4", {"kind": "crossover", "better": "mh", "worse": "lsdim"}, "items.fig4.claims[0]",
     "'text' is a required property"),  # the schema's check, first
    ("fig4", {"kind": "crossover", "better": "mh", "worse": "lsdim", "draft": "300", "text": "t"},
     "items.fig4.claims[0].draft", "must be a number"),
    ("fig4", {"kind": "crossover", "better": "mh", "worse": "lsdim", "draft": True, "text": "t"},
     "items.fig4.claims[0].draft", "must be a number"),
    ("sketch-fig3", {"kind": "trend", "mechanism": "lshist", "direction": "sideways", "text": "t"},
     "items.sketch-fig3.claims[0].direction", "must be one of up, down"),
    ("fig1", {"kind": "crossover", "better": "mh", "worse": "lsdim", "text": "t"}, "items.fig1.claims[0].kind",
     "is for items of template error_curve, error_boxes, not 'sensitivity'"),
    ("coverage", {"kind": "max-at-truth", "text": "t"}, "items.coverage.claims[0].kind", "not 'coverage'"),
    ("draft-claims", {"kind": "recorded", "mechanism": "mh", "value": 0.2, "atol": 0.01, "limit": "tanh", "text": "t"},
     "items.draft-claims.claims[0].limit", "must be one of tanh(eps/4), (1 - e^-eps)/2"),
    ("fig4", {"kind": "crossover", "better": "ehds", "worse": "lsdim", "text": "t"}, "items.fig4.claims[0].better",
     "is not run by accuracy.balanced-k2"),
    ("frontier", {"kind": "near-optimum", "mechanism": "lattice~worst", "objective": "worst", "tolerance": -0.01,
                  "text": "t"}, "items.frontier.claims[0].tolerance", "must be a number >= 0"),
    ("frontier-k3", {"kind": "bracket", "tolerance": 0.1, "objective": "both", "text": "t"},
     "items.frontier-k3.claims[0].objective", "must be one of worst, average"),
    ("draft-claims", {"kind": "recorded", "mechanism": "mh", "value": 0.2, "atol": -1e-3, "limit": "tanh(eps/4)",
                      "text": "t"}, "items.draft-claims.claims[0].atol", "must be a number >= 0"),
    ("draft-claims", {"kind": "recorded", "mechanism": "mh", "value": 1.5, "atol": 1e-3, "text": "t"},
     "items.draft-claims.claims[0].value", "must be a probability in [0, 1]"),
])
def test_a_claim_that_does_not_fit_its_kind_is_one_line(item, claim, key, needle):
    with pytest.raises(ConfigError) as err:
        check_all(merged(items={item: {"claims": [claim]}}), SCHEMA)
    msg = str(err.value)
    assert "\n" not in msg and f"'{key}'" in msg and needle in msg, msg


@pytest.mark.parametrize("item, change, key, needle", [
    ("fig4", {"template": "error_curves"}, "items.fig4.template", "unknown template 'error_curves'"),
    ("which-to-use", {"worse": "ehdl"}, "items.which-to-use.worse", "is not run by expected_error.which-to-use"),
    ("table1", {"as_defined": ["mh", "ehd"]}, "items.table1.as_defined[1]", "is not run by pmf.table1"),
    ("fig1", {"item": "fig2"}, "items.fig1", "Additional properties are not allowed ('item' was unexpected)"),
    ("which-to-use", {"printed": {"H": [0.0], "exp": [0.1], "laplace": [0.1]}}, "items.which-to-use.printed",
     "items of template 'which_to_use' have no key 'printed'"),
    ("frontier", {"claim": "a draft's claim"}, "items.frontier.claim", "have no key 'claim'"),
    ("table1", {"printed": {"H": [0.0], "exp": [0.3]}}, "items.table1.printed", "'laplace' is a required property"),
    ("table1", {"printed": {"H": [0.0], "exp": ["0.3"], "laplace": [0.3]}}, "items.table1.printed.exp[0]",
     "is not of type 'number'"),
])
def test_an_item_key_that_does_not_fit_its_template_is_one_line(item, change, key, needle):
    with pytest.raises(ConfigError) as err:
        check_all(merged(items={item: change}), SCHEMA)
    msg = str(err.value)
    assert "\n" not in msg and f"'{key}'" in msg and needle in msg, msg


@pytest.mark.parametrize("item, key", [("which-to-use", "better"), ("table1", "laplace"), ("fig6", "claim_mechanism")])
def test_an_item_missing_a_key_of_its_template_is_one_line(item, key):
    cfg = merged()
    del cfg["items"][item][key]
    with pytest.raises(ConfigError, match=rf"config error at 'items\.{re.escape(item)}\.{key}'"):
        check_all(cfg, SCHEMA)


def test_a_new_claim_kind_is_checked_by_its_declaration():
    """A toy kind declared in the registry: its keys are checked like the shipped kinds' (a misspelled key is named)."""
    from dpposterior.paper.claims import registry

    registry.kind("toy", templates=("error_curve",), verdicts=("REPRODUCED",),
                  required={"mechanism": registry.Mechanism}, optional={"factor": registry.NUMBER})(lambda cl, ctx: [])
    try:
        ok = {"kind": "toy", "mechanism": "mh", "factor": 2, "text": "t"}
        check_all(merged(items={"fig4": {"claims": [ok]}}), SCHEMA)
        with pytest.raises(ConfigError, match=r"'items\.fig4\.claims\[0\]\.facter'.*did you mean 'factor'"):
            check_all(merged(items={"fig4": {"claims": [ok | {"facter": 2}]}}), SCHEMA)
        with pytest.raises(ConfigError, match=r"'items\.fig4\.claims\[0\]\.mechanism'.*is not run by"):
            check_all(merged(items={"fig4": {"claims": [ok | {"mechanism": "ehd"}]}}), SCHEMA)
    finally:
        registry.KINDS.pop("toy")
    with pytest.raises(ValueError, match="unknown verdict words"):
        registry.kind("toy2", templates=("error_curve",), verdicts=("FINE",))(lambda cl, ctx: [])
    assert "toy2" not in registry.KINDS


def _config():
    import yaml

    return yaml.safe_load((ROOT / "config.yaml").read_text())


def _check(cfg):
    from dpposterior.paper.config import check_claims, check_config

    check_config(cfg)
    check_claims(cfg)


@pytest.mark.parametrize("edit, key", [
    (lambda c: c["items"]["fig4"]["claims"][1].update(better="geometric"), "items.fig4.claims[1].better"),
    (lambda c: c["items"]["fig4"]["claims"][2].update(b="ehds"), "items.fig4.claims[2].b"),
    (lambda c: c["items"]["fig4"]["claims"][0].update(worse="optimal"), "items.fig4.claims[0].worse"),
    (lambda c: c["items"]["fig3a"]["claims"][2].update(mechanism="ehd"), "items.fig3a.claims[2].mechanism"),
    (lambda c: c["items"]["fig6"].update(claim_mechanism="geometric"), "items.fig6.claim_mechanism"),
])
def test_a_claim_naming_a_mechanism_the_item_does_not_run_is_a_config_error(edit, key):
    from dpposterior.paper.config import ConfigError

    cfg = _config()
    edit(cfg)
    with pytest.raises(ConfigError, match=f"config error at '{re.escape(key)}'") as err:
        _check(cfg)
    assert "is not run by" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("section, name", [("accuracy", "balanced k2"), ("accuracy", "a/b"), ("privacy", "fig 6"),
                                           ("items", "my fig"), ("pmf", "x.y")])
def test_names_that_become_paths_are_checked(section, name):
    from dpposterior.paper.config import ConfigError

    cfg = _config()
    cfg[section][name] = next(iter(cfg[section].values()))
    with pytest.raises(ConfigError, match=f"config error at '{section}.{name}': names become file names"):
        _check(cfg)


@pytest.mark.parametrize("name, value", [("DPPOSTERIOR_MEMORY_GB", "1e300"), ("DPPOSTERIOR_MAX_PAIRS", "1e300"),
                                         ("DPPOSTERIOR_MAX_RELEASE_WORK", "1e300")])
def test_dry_run_absurd_setting_is_one_config_line(monkeypatch, name, value):
    """What ``snakemake -n`` runs (the Snakefile prints a ConfigError as one line, status 2)."""
    from dpposterior.paper.config import ConfigError, check_all

    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=f"{name} must be a positive number of") as err:
        check_all(_config(), ROOT / "workflow" / "schemas" / "config.schema.yaml")
    assert "\n" not in str(err.value)


def test_a_dry_run_refuses_a_grid_point_its_job_would_refuse(tmp_path):
    # optimal under kl at k = 3: accepted by the dry run, then refused by the expected_error job
    quick = (ROOT / "workflow" / "quick.yaml").read_text()
    old = "  tailoring: {n: [5, 20, 100], epsilon: [0.5, 1.0, 2.0]}"
    assert old in quick
    bad = tmp_path / "bad.yaml"
    bad.write_text(quick.replace(old, "  tailoring: {n: [5], epsilon: [1.0], priors: [[1, 1, 1]], distances: [kl], "
                                      "measures: [hellinger], mechanisms: [geometric, optimal~worst]}"))
    line = our_line(dry_run(bad))
    assert "'expected_error.tailoring.mechanisms (optimal~worst at priors[0])'" in line
    assert "optimal under kl at k=3 is not built" in line


def test_the_workflow_passes_snakemake_lint():
    """CI runs `snakemake --lint` before the quick pipeline; a rule without a log or a conda env fails it there."""
    proc = subprocess.run([*SNAKEMAKE, "--lint"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]


def test_an_items_own_keys_never_stand_in_for_its_computed_parameters():
    """The parameters file of an item says its own name, inputs and outputs, whatever its config entry carries
    (the dry run refuses such keys; the parameters are built computed-last as well)."""
    from dpposterior.paper.stages import item_parameters

    cfg = merged()
    cfg["items"]["fig1"]["item"] = "fig2"
    params = item_parameters(cfg, "fig1", "results", "figures")
    assert params["item"] == "fig1" and "fig1" in str(params["outputs"])


def test_a_config_name_with_control_characters_is_printed_escaped(tmp_path):
    """A name from the config file holding a terminal escape or a newline: the one config-error line shows it
    escaped (the dry run prints it as is otherwise)."""
    cfg = merged()
    cfg["items"]["fig\x1b[2J\nx"] = cfg["items"]["fig1"]
    with pytest.raises(ConfigError) as err:
        check_all(cfg, SCHEMA)
    assert "config error at 'items.fig\\x1b[2J\\nx': names become file names" in str(err.value)
    proc = dry_run(quick_with(tmp_path, 'items:\n  "fig\\e]0;owned\\a": {template: sensitivity, source: fig1, '
                                        'title: t}\n'))
    line = our_line(proc)
    assert "fig\\x1b]0;owned\\x07" in line and "\x1b" not in proc.stderr, proc.stderr
