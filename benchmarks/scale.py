"""Errors at scale and ``compare`` beyond the pair table (docs/lattice.md, "Errors at scale"): a markdown table.

    PYTHONPATH=src python benchmarks/scale.py [--only compare]

Each case runs the whole command in its own process, side by side in one run (one after the other), and reports
its wall-clock and CPU seconds, its peak resident memory (the child's maximum RSS, ``resource.getrusage``) and the
load average while it ran (the machine is shared: wall time depends on the load).  Targets: compare at k = 3,
n = 1000 and at k = 4, n = 100 <= 120 s; accuracy of geometric at k = 3, n = 1000 <= 60 s; each <= 2 GB.
"""

from __future__ import annotations

import argparse
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
]


def run(argv: list[str]) -> tuple[float, float, float, int, str]:
    """``(wall s, cpu s, peak MB, exit code, last stdout or stderr line)`` of one command in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dpposterior.cli", *argv], capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    tail = (proc.stdout.strip().splitlines() or proc.stderr.strip().splitlines() or [""])[-1]
    return wall, cpu, after.ru_maxrss / 1024.0, proc.returncode, tail[:160]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="cases whose name contains this")
    args = ap.parse_args()
    print("| case | wall s | cpu s | peak MB | load | target s | exit |")
    print("|---|---|---|---|---|---|---|")
    for name, argv, target in CASES:
        if args.only not in name:
            continue
        load = os.getloadavg()[0]
        wall, cpu, peak, code, _ = run(argv)
        load = (load + os.getloadavg()[0]) / 2
        print(f"| {name} | {wall:.1f} | {cpu:.1f} | {peak:.0f} | {load:.1f} | {target} | {code} |", flush=True)


if __name__ == "__main__":
    main()
