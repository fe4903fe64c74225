"""The README's timing figures, measured: wall and CPU seconds of its test command, the quick pipeline and the main job.

Runs, in a clean copy of the committed tree (``git archive HEAD``, so no results or caches of the checkout
count), first the README's test command, then the quick pipeline, then the main job (the default config), each
once, and writes
``benchmarks/timings.json``: per command its text, wall seconds, CPU seconds (user + system of every child
process: pytest's workers, snakemake's jobs) and the load average before and after, with the date, the
machine's core count and the commit.  The README's "about N minutes" figures are checked against that file
(tests/project/test_readme.py), so they cannot drift from what was measured.

    python benchmarks/readme_timings.py [--out benchmarks/timings.json] [--only tests|quick|main]

The package under test is the copy's own ``src`` (``PYTHONPATH``), run with this interpreter, whose
environment must have the test and pipeline extras.  The machine may be shared: the load averages say how
busy it was, and wall time under load overstates an idle machine's.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: the README's two commands (README, "Research: the paper's figures and the tests"), as CI runs them (.ci/run)
COMMANDS = {
    "tests": ["python", "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider"],
    "quick": ["snakemake", "--cores", "2", "--configfile", "workflow/quick.yaml"],
    "main": ["snakemake", "--cores", "8"],
}


def children_cpu() -> float:
    """User + system CPU seconds of every waited-for child process so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(name: str, cwd: pathlib.Path, env: dict) -> dict:
    """Run one command in ``cwd``; its wall and CPU seconds and the load around it."""
    load_before = os.getloadavg()
    cpu0, t0 = children_cpu(), time.monotonic()
    proc = subprocess.run(COMMANDS[name], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace")
    wall, cpu = time.monotonic() - t0, children_cpu() - cpu0
    return {"command": " ".join(COMMANDS[name]), "returncode": proc.returncode,
            "last_lines": proc.stdout.splitlines()[-5:], "wall_seconds": round(wall, 1),
            "cpu_seconds": round(cpu, 1), "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()]}


def main(argv: list[str] | None = None) -> None:
    """Measure and write the timings file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "timings.json"))
    ap.add_argument("--only", choices=sorted(COMMANDS))
    args = ap.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    out = pathlib.Path(args.out)
    record = json.loads(out.read_text()) if out.exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "clone"
        copy.mkdir()
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-xf", "-"], cwd=copy, input=archive, check=True)
        env = dict(os.environ, PYTHONPATH=str(copy / "src"), PYTHONHASHSEED="0",
                   PATH=f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        record.update({"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
                       "commit": commit, "cores": os.cpu_count(),
                       "measured_by": "python benchmarks/readme_timings.py"})
        for name in [args.only] if args.only else list(COMMANDS):
            # each command keeps the commit and date it was measured at: --only leaves the others as they were
            record[name] = {"commit": commit, "date": record["date"], **measure(name, copy, env)}
            print(name, record[name], flush=True)
    out.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
