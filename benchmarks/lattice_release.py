"""Wall clock and peak memory of whole ``dpposterior release`` commands of the lattice release (docs/lattice.md).

    python benchmarks/lattice_release.py [--reps 3]

Each case runs the command line in a fresh process (``python -m dpposterior.cli release ...``: the import, the
padded release with its reference draws, the draw and the padding), as a user runs it; the wall clock is the
median of ``--reps`` runs and the peak memory the child's maximum resident set size (``os.wait4``).  Targets
(docs/lattice.md): each case <= 2 s and <= 2 GB.  ``geometric`` at the same size is printed beside them as the
floor of a padded release of a closed-form mechanism (the command's own start-up).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CASES = [
    ("lattice~average, k = 3, n = 1e6", ["--mechanism", "lattice", "--objective", "average", "--prior", "1,1,1",
                                          "--counts", "333334,333333,333333", "--epsilon", "1"]),
    ("lattice~average, k = 4, n = 1e4", ["--mechanism", "lattice", "--objective", "average", "--prior", "1,1,1,1",
                                          "--counts", "2500,2500,2500,2500", "--epsilon", "1"]),
    ("geometric, k = 3, n = 1e6 (floor)", ["--mechanism", "geometric", "--prior", "1,1,1",
                                           "--counts", "333334,333333,333333", "--epsilon", "1"]),
]


def run(argv: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak resident MB, exit status) of one command in a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "dpposterior.cli", "release", *argv],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024.0, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    print("| case | wall clock (median, s) | runs (s) | peak RSS (MB) | status |")
    print("|---|---|---|---|---|")
    for name, argv in CASES:
        runs = [run(argv) for _ in range(args.reps)]
        walls = [w for w, _, _ in runs]
        print(f"| {name} | {statistics.median(walls):.2f} | {', '.join(f'{w:.2f}' for w in walls)} | "
              f"{max(m for _, m, _ in runs):.0f} | {max(s for _, _, s in runs)} |", flush=True)


if __name__ == "__main__":
    main()
