"""The k = 4 local column at public releases (``lattice``, Dir(1,1,1,1), ``local_posterior``'s route with the solve limit
raised): what the run's check counts and prices, what the searches and the whole column cost, and the plan.

    python benchmarks/column_parts_k4.py --out benchmarks/column_parts_k4.json [--family 60:1,100:1,...] [CELL ...]

A cell is ``N:EPS:RELEASE[:OBJECTIVE]`` (``average`` unless given); ``--family N:EPS,...`` adds the centre and every
release of the plan's family (``cut_release_family``) at each (n, eps).  Each cell runs in its own process
(``PYTHONPATH`` this tree's ``src``, ``DPPOSTERIOR_MAX_SOLVE_SECONDS=1000``) with spies on ``_check_searches`` (its
points: the parts with every count below n, their orbits and those with a count at most 1; the clamped parts, their
clamp groups and orbits), on ``_solve_limit`` (the check's price) and on ``local_search_batch`` (CPU s); the whole
``local_posterior`` call is timed, and the plan's solve part recorded.  The load average before each cell is recorded;
``--out`` is written after every cell."""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
import dpposterior.mechanisms.lattice as L
import dpposterior.lattice.batched as B
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec

n, eps, rel, obj = int(sys.argv[1]), float(sys.argv[2]), np.array([int(x) for x in sys.argv[3].split(",")]), sys.argv[4]
rec = {"checks": [], "check_counts": [], "search_cpu": 0.0}
orig_limit, orig_lsb, orig_check = L._solve_limit, B.local_search_batch, L._check_searches


def limit(seconds, what, *args, **kw):
    if "at this release" in what:
        rec["checks"].append(round(float(seconds), 2))
    return orig_limit(seconds, what, *args, **kw)


def check(Z, n_, k, e, *args, **kw):
    Zs = np.asarray(Z)
    row = {"points": int(len(Zs))}
    if len(Zs):
        clamped = np.any(Zs >= n_, axis=1)
        rest = Zs[~clamped]
        row.update(rest=int(len(rest)), rest_orbits=int(B.orbit_count(rest, n_)) if len(rest) else 0,
                   faces=int(np.count_nonzero(rest.min(axis=1) <= 1)) if len(rest) else 0,
                   clamped=int(clamped.sum()),
                   keys=int(len(np.unique(np.minimum(np.maximum(Zs[clamped], 0), n_), axis=0))) if clamped.any() else 0,
                   clamp_orbits=int(B.orbit_count(Zs[clamped], n_)) if clamped.any() else 0)
    rec["check_counts"].append(row)
    return orig_check(Z, n_, k, e, *args, **kw)


def lsb(*args, **kw):
    t = time.process_time()
    out = orig_lsb(*args, **kw)
    rec["search_cpu"] += time.process_time() - t
    return out


L._solve_limit, L._check_searches, B.local_search_batch = limit, check, lsb
spec = ReleaseSpec.of("lattice", eps, objective=obj)
prior = np.ones(rel.size)
plan = spec.mechanism.plan(Task.POSTERIOR, spec, prior, n)
rec["plan_seconds"] = round(float(plan.seconds), 2)
rec["plan_solve"] = [round(float(v), 2) for _, v in plan.costs]
t = time.process_time()
spec.mechanism.local_posterior(plan, prior, n, spec, rel)
rec["column_cpu"] = round(time.process_time() - t, 2)
rec["search_cpu"] = round(rec["search_cpu"], 2)
print("DONE " + json.dumps(rec), flush=True)
"""


def family_cells(points: str) -> list[str]:
    """The centre and ``cut_release_family``'s releases at each ``N:EPS`` of ``points``."""
    from dpposterior.mechanisms import lattice as L

    out = []
    for point in points.split(","):
        n, eps = int(point.split(":")[0]), float(point.split(":")[1])
        q = n // 4
        for r in [[q, q, q, n - 3 * q]] + [[int(x) for x in r] for r in L.cut_release_family(n, 4, eps)]:
            out.append(f"{n}:{eps}:" + ",".join(map(str, r)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--family", default="")
    ap.add_argument("cells", nargs="*")
    args = ap.parse_args()
    src = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    sys.path.insert(0, src)
    cells = (family_cells(args.family) if args.family else []) + args.cells
    env = dict(os.environ, PYTHONPATH=src, DPPOSTERIOR_MAX_SOLVE_SECONDS="1000")
    rows = []
    for cell in cells:
        n, eps, rel, *rest = cell.split(":")
        row = {"n": int(n), "epsilon": float(eps), "released": [int(x) for x in rel.split(",")],
               "objective": rest[0] if rest else "average", "load_before": round(os.getloadavg()[0], 2)}
        res = subprocess.run([sys.executable, "-c", CHILD, n, eps, rel, row["objective"]], env=env,
                             capture_output=True, text=True)
        for line in res.stdout.splitlines():
            if line.startswith("DONE "):
                row.update(json.loads(line[5:]))
        if res.returncode:
            row["error"] = (res.stderr.strip().splitlines() or [""])[-1]
        rows.append(row)
        print(json.dumps(row), flush=True)
        with open(args.out, "w") as f:
            json.dump({"command": " ".join(["python benchmarks/column_parts_k4.py"] + sys.argv[1:]),
                       "date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "rows": rows}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
