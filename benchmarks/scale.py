"""Errors at scale and ``compare`` beyond the pair table (docs/lattice.md, "Errors at scale"): a markdown table.

    PYTHONPATH=src python benchmarks/scale.py [--only compare]

Each case runs the whole command in its own process, side by side in one run (one after the other), and reports
its wall-clock and CPU seconds, its peak resident memory (the child's maximum RSS, ``resource.getrusage``) and the
load average while it ran (the machine is shared: wall time depends on the load), and what it answered.  Targets:
compare at k = 3, n = 1000 and at k = 4, n = 100 <= 120 s; accuracy of geometric at k = 3, n = 1000 <= 60 s; each
<= 2 GB.  The last two cases raise ``DPPOSTERIOR_MAX_PAIRS`` to 6e8, the budget geometric's factor route needs at
k = 4, n = 100 with a 1e-4 bracket (~55 s); at the default 4e8 it takes the 1e-3 bracket (~27 s).  "peak MB" is the
largest child so far (``RUSAGE_CHILDREN``).

Measured 26 Nov 2026 on the 2 shared cores (docs/lattice.md, "Errors at scale"):

before / after this route (wall s, CPU s, exit; peak 190 MB, 212 MB with the k = 4 factor route):

| case | wall | cpu | exit | load | result (after) |
|---|---|---|---|---|---|
| compare k=3 n=1000 | 53.9 / 56.4 | 36.9 / 37.6 | 0 / 0 | 4.5 | geometric 0.5095/0.1336, the rest not computed |
| compare k=4 n=100 | 1.5 / 2.6 | 1.1 / 1.7 | 2 / 2 | 4.5 | refused: no row fits 4e8 |
| accuracy geometric k=3 n=1000 | 48.8 / 52.1 | 35.1 / 35.3 | 0 / 0 | 4.5 | 0.50946 at (2, 996, 2), 0.13363, 9.4e-6 |
| accuracy geometric k=4 n=100 | 1.5 / 1.2 | 1.0 / 1.2 | 2 / 2 | 4.5 | refused: ~55 s (was ~323 s) over 4e8 |
| compare k=4 n=100, 6e8 | 1.6 / 90.6 | 1.1 / 66.1 | 2 / 0 | 6.8 | geometric 0.6341/0.4583 (1e-4), 18 not computed |
| accuracy geometric k=4 n=100, 6e8 | 1.4 / 112.8 | 1.0 / 64.0 | 2 / 0 | 11.1 | 0.63414 at (2, 2, 93, 3), 0.45826, 7.1e-5 |

The factor route's bookkeeping in batches of groups (``--only "compare k=4 n=100 eps=1, MAX"``, before: main's code,
after: this one, one after the other on the same shared cores):

| case | wall | cpu | peak MB | load | result |
|---|---|---|---|---|---|
| compare k=4 n=100, 6e8, before | 120.2 | 66.5 | 211 | 5.6 | geometric 0.6341/0.4583, 18 not computed |
| compare k=4 n=100, 6e8, after | 83.5 | 58.1 | 284 | 7.4 | geometric 0.6341/0.4583, 18 not computed |

At the default 4e8 that route's estimate (~55 s) was over the budget: ``compare k=4 n=100`` exited 2 (no longer:
the table below).

With the widest bracket, 1e-3, where neither finer one fits (``--only "compare k=4"``, 26 Nov 2026, beside other
work on the 2 cores; the 1e-3 answer is at most 1e-3 below the exact value, the 1e-4 one at most 1e-4):

| case | wall s | cpu s | peak MB | load | target s | exit | result |
|---|---|---|---|---|---|---|---|
| compare k=4 n=100 eps=1 | 43.5 | 27.5 | 240 | 3.1 | 120 | 0 | computed: geometric 0.6334/0.4575; 18 not computed |
| compare k=4 n=100 eps=1, 6e8 | 56.2 | 54.3 | 281 | 2.9 | 120 | 0 | computed: geometric 0.6341/0.4583; 18 not computed |
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

CASES = [
    ("compare k=3 n=1000 eps=1", ["compare", "--prior", "1,1,1", "--n", "1000", "--epsilon", "1", "--json"], 120),
    ("compare k=4 n=100 eps=1", ["compare", "--prior", "1,1,1,1", "--n", "100", "--epsilon", "1", "--json"], 120),
    ("accuracy geometric k=3 n=1000 eps=1",
     ["accuracy", "--mechanism", "geometric", "--prior", "1,1,1", "--n", "1000", "--epsilon", "1", "--json"], 60),
    ("accuracy geometric k=4 n=100 eps=1",
     ["accuracy", "--mechanism", "geometric", "--prior", "1,1,1,1", "--n", "100", "--epsilon", "1", "--json"], 60),
    ("compare k=4 n=100 eps=1, MAX_PAIRS=6e8",
     ["compare", "--prior", "1,1,1,1", "--n", "100", "--epsilon", "1", "--json"], 120, {"DPPOSTERIOR_MAX_PAIRS": "6e8"}),
    ("accuracy geometric k=4 n=100 eps=1, MAX_PAIRS=6e8",
     ["accuracy", "--mechanism", "geometric", "--prior", "1,1,1,1", "--n", "100", "--epsilon", "1", "--json"], 60,
     {"DPPOSTERIOR_MAX_PAIRS": "6e8"}),
]


def summary(stdout: str, stderr: str) -> str:
    """What the command answered, in one cell: an accuracy's worst, average and bracket; a comparison's computed
    rows; else its last line (a refusal)."""
    try:
        out = json.loads(stdout)
    except ValueError:
        return ((stdout.strip().splitlines() or stderr.strip().splitlines() or [""])[-1])[:160]
    if "releases" in out:
        done = [f"{r['release']} {r['worst_expected_error']:.4f}/{r['average_expected_error']:.4f}"
                for r in out["releases"] if "error" not in r]
        return f"computed: {', '.join(done) or 'none'}; {len(out['releases']) - len(done)} not computed"
    bound = out.get("truncation_bound", 0.0)
    return (f"worst {out['worst_expected_error']:.5f} at {out['worst_counts']}, average "
            f"{out['average_expected_error']:.5f}, bracket {bound:.2g}")


def run(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float, int, str]:
    """``(wall s, cpu s, peak MB, exit code, what it answered)`` of one command in a child process (``env``: settings
    added to this process's environment)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dpposterior.cli", *argv], capture_output=True, text=True,
                          env=os.environ | (env or {}))
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024.0, proc.returncode, summary(proc.stdout, proc.stderr)


def main(cases=None) -> None:
    """Run ``cases`` (default :data:`CASES`: ``(name, argv, target seconds[, env])``) one after the other, those
    whose name contains ``--only``, and print the markdown table."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="cases whose name contains this")
    args = ap.parse_args()
    print("| case | wall s | cpu s | peak MB | load | target s | exit | result |")
    print("|---|---|---|---|---|---|---|---|")
    for name, argv, target, *env in CASES if cases is None else cases:
        if args.only not in name:
            continue
        load = os.getloadavg()[0]
        wall, cpu, peak, code, what = run(argv, env[0] if env else None)
        load = (load + os.getloadavg()[0]) / 2
        print(f"| {name} | {wall:.1f} | {cpu:.1f} | {peak:.0f} | {load:.1f} | {target} | {code} | {what} |", flush=True)


if __name__ == "__main__":
    main()
