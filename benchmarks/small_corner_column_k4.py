"""The k = 4 corner release's local column where ``n <= Dc`` (``LatticeMechanism._small_corner_column_plan``): planned
against run, CPU seconds and peak bytes, Dir(1,1,1,1), ``worst``.

Each cell ``n:eps`` runs in its own process: the corner remap's solve (what a draw runs), then the column at each
release given (``_local_column``, the route ``release --noise-aware`` takes), each timed by ``time.process_time``,
and the process's peak resident bytes after each; the plan (this tree's, public n, k, eps) beside it.
``tests/library/test_small_corner_column_k4.py`` holds this tree's plans above the recorded runs.

    python benchmarks/small_corner_column_k4.py --src src --out benchmarks/small_corner_column_k4.json \\
        10:0.5:1,0,0,9/3,3,2,2/10,0,0,0 10:1:2,1,3,4/10,0,0,0
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec
n, eps, releases = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3].split('/')
a = np.ones(4)
s = ReleaseSpec.of('lattice', eps, objective='worst')
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
plan = L.LATTICE.plan_posterior(a, n, s)
t = time.process_time()
L._corner(tuple(a.tolist()), n, eps)
out = {'plan_seconds': plan.seconds, 'plan_bytes': plan.memory_bytes, 'route': plan.route,
       'corner_cpu_s': time.process_time() - t, 'base_bytes': base, 'columns': []}
W = L.LATTICE.column_radius(n, 4, eps)
for r in releases:
    m = np.array([int(x) for x in r.split(',')])
    t = time.process_time()
    col = L.LATTICE._local_column(a, n, s, m, W)
    out['columns'].append({'release': m.tolist(), 'cpu_s': time.process_time() - t, 'bound': col[3],
                           'peak_bytes': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024})
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("cells", nargs="+")
    args = ap.parse_args()
    rows = []
    for cell in args.cells:
        n, eps, releases = cell.split(":")
        env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
        env.update(PYTHONPATH=args.src, OMP_NUM_THREADS="1", DPPOSTERIOR_MAX_SOLVE_SECONDS="1e5")
        load = os.getloadavg()[0]
        proc = subprocess.run([sys.executable, "-c", CHILD, n, eps, releases], capture_output=True, text=True,
                              env=env, check=True)
        row = {"n": int(n), "eps": float(eps), "load": round(load, 2), **json.loads(proc.stdout)}
        print(json.dumps(row))
        rows.append(row)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"host": os.uname().nodename, "cpus": os.cpu_count(),
                   "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   "command": "python benchmarks/small_corner_column_k4.py " + " ".join(sys.argv[1:]), "rows": rows},
                  f, indent=1)


if __name__ == "__main__":
    main()
