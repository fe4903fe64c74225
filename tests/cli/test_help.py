"""`--help`: the main help's example and workflow (which run as printed), and the advice of --mechanism, --seed
and `compare --help`."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

from .helpers import ROOT, run


def _help(capsys, *command) -> str:
    code, out, err = run(capsys, *command, "--help")
    assert code == 0, err
    return out


def test_the_main_help_has_an_example_that_runs_as_printed(capsys, tmp_path):
    """Every ``dpposterior ...`` line of the example runs, in order, in a fresh folder (the release's JSON goes to a
    file, the posterior reads it, the ledger shows the release)."""
    out = _help(capsys)
    example = re.sub(r"\\\n\s*", "", out.split("example", 1)[1].split("\n\n", 1)[0])  # continued lines joined
    lines = [ln.strip() for ln in example.splitlines() if ln.strip().startswith("dpposterior ")]
    assert [ln.split()[1] for ln in lines] == ["compare", "release", "posterior", "ledger"]
    python = f"{shlex.quote(sys.executable)} -m dpposterior"
    env = os.environ | {"PYTHONPATH": str(ROOT / "src")}
    outputs = []
    for line in lines:
        proc = subprocess.run(["bash", "-c", python + line[len("dpposterior"):]], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, (line, proc.stderr[-1000:])
        outputs.append(proc.stdout)
    assert outputs[2].startswith("released counts: ") and "noise-aware posterior" in outputs[2]
    assert "releases: 1" in outputs[3]


def test_the_main_help_suggests_a_workflow(capsys):
    text = " ".join(_help(capsys).split())
    workflow = text.split("suggested workflow:", 1)[1]
    steps = [workflow.index(f"{i}. {name}") for i, name in enumerate(["compare", "release", "posterior"], 1)]
    assert steps == sorted(steps)
    assert "--ledger" in workflow and "a new ledger needs --budget" in workflow and "--from-release" in workflow
    assert "not private" in workflow


def test_mechanism_help_says_which_to_use(capsys):
    from dpposterior.mechanisms import EXPONENTIAL_MECHANISMS

    for command in ("release", "pmf", "posterior"):
        text = " ".join(_help(capsys, command).split())
        assert "Which to use: optimal, at k = 2 and at k >= 3" in text, command
        assert "geometric is the simplest closed form" in text and "are for reproducing the paper" in text
        drafts = text.split("the drafts' exponential mechanisms (", 1)[1].split(")", 1)[0]
        assert drafts.startswith(", ".join(m.id for m in EXPONENTIAL_MECHANISMS))


def test_seed_help_says_a_seeded_release_is_not_private(capsys):
    text = " ".join(_help(capsys, "release").split())
    seed = text.split("--seed S", 1)[1].split(" --noise-aware", 1)[0]
    assert "experiments only" in seed and "a seeded release is NOT private" in seed


def test_release_help_says_an_existing_ledger_keeps_its_budget(capsys):
    text = " ".join(_help(capsys, "release").split())
    assert "a new FILE needs --budget" in text and "an existing one uses the budget it stores" in text


def test_compare_help_explains_not_computed_rows_and_the_yardstick(capsys):
    text = " ".join(_help(capsys, "compare").split())
    table = text.split("reading the table:", 1)[1]
    assert "not computed the row's exact errors would need more work or memory than this command's budget" in table
    assert "says nothing about how accurate that release is" in table
    assert "yardstick a certified lower bound on the best error any eps-DP release can achieve" in table
    assert "1.05 (written x1.05 in the figures) is 5 % above it" in table
