"""``--distance``: wall time of ``dpposterior pmf --distance NAME`` in a fresh process.

The target: ``pmf --distance tv`` at k = 2, n = 1e5 within 5 s (ehd: its GS is the maximum of the TV
between adjacent posteriors over R(n), 1e5 evaluations; then 1e5 scores, printed as the pmf's column).
Hellinger is timed alongside for reference.  Each case: the best of ``--reps`` runs, with the CPU time
of that run and the load average (the machine is shared).

    PYTHONPATH=src python benchmarks/distances.py [--reps 3] [--n 100000] [--mechanisms ehd,ehds]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time


def run_once(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of ``dpposterior argv``, output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dpposterior.cli", *argv], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--mechanisms", default="ehd,ehds")
    ap.add_argument("--distances", default="tv,hellinger")
    args = ap.parse_args()
    half = args.n // 2
    for mech in args.mechanisms.split(","):
        for name in args.distances.split(","):
            argv = ["pmf", "--prior", "1,1", "--mechanism", mech, "--epsilon", "1",
                    "--counts", f"{half},{args.n - half}", "--distance", name]
            best = min((run_once(argv) for _ in range(args.reps)), key=lambda t: t[0])
            print(json.dumps({"name": f"pmf {mech} --distance {name}", "size": f"k=2, n={args.n:g}",
                              "seconds": round(best[0], 3), "cpu_seconds": round(best[1], 3),
                              "target_seconds": 5 if name == "tv" else None,
                              "load": round(os.getloadavg()[0], 2)}), flush=True)


if __name__ == "__main__":
    main()
