"""The k = 4 corner release's noise-aware posterior (``release --mechanism optimal --noise-aware``, ``worst``, Dir(1,1,1,1))
against its plan, where the corner solve's fixed rows are priced at ``exact_shift_factor``
(:func:`dpposterior.mechanisms.lattice.corner_search_factor`).  For each point ``n:eps`` and each placement of the
counts (next to a vertex, ``(n - 3, 1, 1, 1)``, and at the centre): the plan of this tree and of ``--old`` (route,
seconds, the solve-limited part, bytes, refusal; each tree in its own process), then the command itself run once in
a child process with the solve limit raised (so a cell the old plan refused runs too): its CPU seconds and peak
resident memory, and the SHA-256 of its output (the same in both trees: the plan moves, the release does not).

    python benchmarks/noise_aware_k4_corner_exact.py --old OLD/src [--points 24:0.5,26:0.5] [--out FILE]

The load is recorded per run; CPU seconds on a shared host are upper ends.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

PLAN = r"""
import json, sys
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
out = []
for point in sys.argv[1].split(","):
    n, eps = point.split(":")
    spec = ReleaseSpec.of("optimal", float(eps), objective="worst")
    plan = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), int(n))
    out.append(dict(n=int(n), eps=float(eps), route=plan.route, seconds=round(plan.seconds, 2),
                    held=round(dict(plan.costs).get("DPPOSTERIOR_MAX_SOLVE_SECONDS", 0.0), 2),
                    mb=round(plan.memory_bytes / 2**20), refused=plan.refused()))
print(json.dumps(out))
"""


def plans(src: str, points: str) -> list[dict]:
    """Every point's plan in a process of its own tree (``PYTHONPATH`` its src)."""
    env = dict(os.environ, PYTHONPATH=src)
    out = subprocess.run([sys.executable, "-c", PLAN, points], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


#: The child: the command itself, then its own CPU seconds and peak resident memory on the last line of stderr (the
#: parent's RUSAGE_CHILDREN keeps the largest peak of every child so far, not this one's).
WRAP = r"""
import resource, runpy, sys
sys.argv = ["dpposterior", *sys.argv[1:]]
try:
    runpy.run_module("dpposterior", run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
r = resource.getrusage(resource.RUSAGE_SELF)
print(f"RUSAGE {r.ru_utime + r.ru_stime:.2f} {r.ru_maxrss}", file=sys.stderr)
sys.exit(code)
"""


def run(n: int, eps: float, counts: list[int]) -> dict:
    """The command once, in a child process at this tree, with the solve limit raised: CPU s, peak MB, digest."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), DPPOSTERIOR_MAX_SOLVE_SECONDS="600")
    load = os.getloadavg()[0]
    proc = subprocess.run([sys.executable, "-c", WRAP, "release", "--prior", "1,1,1,1", "--counts",
                           ",".join(map(str, counts)), "--mechanism", "optimal", "--epsilon", str(eps),
                           "--noise-aware", "--seed", "1"], env=env, capture_output=True, text=True)
    lines = proc.stderr.strip().splitlines()
    _, cpu, peak = lines[-1].split()
    return dict(counts=counts, exit=proc.returncode, cpu=round(float(cpu), 2), peak_mb=round(int(peak) / 1024),
                load=round(load, 2), digest=hashlib.sha256(proc.stdout.encode()).hexdigest()[:16],
                error=lines[-2][:200] if proc.returncode and len(lines) > 1 else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the other tree's src directory")
    parser.add_argument("--points", default="22:0.5,24:0.5,26:0.5")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "noise_aware_k4_corner_exact.json"))
    args = parser.parse_args()
    old, new = plans(args.old, args.points), plans(str(ROOT / "src"), args.points)
    rows = []
    for o, p in zip(old, new, strict=True):
        n, eps = p["n"], p["eps"]
        centre = [n // 4 + (1 if i < n % 4 else 0) for i in range(4)]
        runs = [run(n, eps, [n - 3, 1, 1, 1]), run(n, eps, centre)]
        most = max(r["cpu"] for r in runs)
        row = dict(n=n, eps=eps, old=o, new=p, runs=runs, plan_over_run=round(p["seconds"] / most, 2))
        print(json.dumps(row), flush=True)
        rows.append(row)
    record = {"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
              "command": "python benchmarks/noise_aware_k4_corner_exact.py --old OLD/src --points " + args.points,
              "points": rows}
    pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
