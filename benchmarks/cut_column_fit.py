"""The cut route of the k = 4 local column, planned against run: for each cell ``objective:n:eps:seed`` (Dir(1,1,1,1),
counts (n/4, ...)), the release of ``release --mechanism optimal --seed S`` (its released counts, this tree), then in
a fresh process the local column at that release with every box certificate pass recorded (its boxes, how many
certified, CPU s), the column's CPU s in all, and this tree's plan of the posterior (its seconds and the certificate
share of it).  One process at a time; the load before each.

    python benchmarks/cut_column_fit.py --src src --out benchmarks/cut_column_fit.json average:1000:0.5:1 ...
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time, resource
import numpy as np
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec
objective, n, eps, m = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), np.array(json.loads(sys.argv[4]))
a, k = np.ones(4), 4
spec = ReleaseSpec.of("lattice", eps, objective=objective)  # what optimal releases past its LP
mech = spec.mechanism
t = time.process_time()
plan = mech.plan_posterior(a, n, spec)
plan_s = time.process_time() - t
passes = []
orig = L._box_certified
from dpposterior.lattice import staybox
box = staybox.box_stays
def certified(a_, n_, e_, Z):
    left = len(Z)
    out = np.zeros(len(Z), dtype=bool)
    for q in L.BOX_GRIDS:
        if not left:
            break
        t0 = time.process_time()
        keys, back = L._cells(a_, Z[~out], n_, q)
        grid = L.box_grid(n_, q)
        ok = np.array([box(a_, n_, e_, grid[key], grid[key + 1] - 1) for key in keys], dtype=bool)
        idx = np.flatnonzero(~out)
        out[idx[ok[back]]] = True
        left = int((~out).sum())
        passes.append({"q": q, "boxes": int(len(keys)), "certified_boxes": int(ok.sum()),
                       "cpu_s": round(time.process_time() - t0, 3)})
    return out
L._box_certified = certified
W = mech.column_radius(n, k, eps)
Dc = L._radius(k, eps, 1e-12)
c0 = np.full(k, n // k); c0[: n - int(c0.sum())] += 1
from dpposterior.lattice.column import cut_region
planned_boxes = L.box_passes_planned(a, n, eps, Dc, cut_region(a, n, eps, c0, Dc))
t = time.process_time()
C, logw, size, bound = mech._local_column(a, n, spec, m, W)
run_s = time.process_time() - t
print(json.dumps({"plan_seconds": plan.seconds, "plan_route": plan.route, "plan_cpu_s": round(plan_s, 3),
                  "column_cpu_s": round(run_s, 3), "passes": passes, "planned_boxes": planned_boxes, "bound": bound,
                  "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("cells", nargs="+")
    args = ap.parse_args()
    src = os.path.abspath(args.src)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    rows = []
    for cell in args.cells:
        objective, n, eps, seed = cell.split(":")
        n = int(n)
        q = n // 4
        counts = f"{q},{q},{q},{n - 3 * q}"
        rel = subprocess.run([sys.executable, "-m", "dpposterior", "release", "--prior", "1,1,1,1", "--counts", counts,
                              "--mechanism", "optimal", "--objective", objective, "--epsilon", eps, "--seed", seed,
                              "--json"], capture_output=True, text=True, env=env, check=True)
        m = json.loads(rel.stdout)["released_counts"]
        load = os.getloadavg()[0]
        child = subprocess.run([sys.executable, "-c", CHILD, objective, str(n), eps, json.dumps(m)],
                               capture_output=True, text=True, env=env | {"DPPOSTERIOR_MAX_SOLVE_SECONDS": "3000"})
        row = {"cell": cell, "released": m, "load": round(load, 2)}
        if child.returncode == 0:
            row.update(json.loads(child.stdout.splitlines()[-1]))
        else:
            row["error"] = child.stderr[-400:]
        print(json.dumps(row), flush=True)
        rows.append(row)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump({"host": os.uname().nodename, "cpus": os.cpu_count(),
                   "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   "command": "python benchmarks/cut_column_fit.py " + " ".join(sys.argv[1:]), "rows": rows},
                  fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
