"""The k = 4 `worst` release past n = 50 against `average`'s (Dir(1,1,1,1)): the exact errors of `lattice~worst` (the
corner remap there) and of `lattice~average` (the local Bayes remap at every z), each in its own process with the solve
limit raised (so a call `compare` refuses runs too), and, at eps 1, the face table's build (`faces_any.face_remap_any`,
the route `worst` reads at n = 30 to 50) with its LP's value `t` and its plan.  CPU s, peak MB, the route and the plan.

    python benchmarks/worst_k4_routes_large_n.py [--points 60:1,100:1,100:2] [--out FILE]

A finding, not a change: it records where the corner release's worst case is above the local Bayes remap's.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

ERRORS = r"""
import json, resource, sys, time
import numpy as np
import dpposterior as dp
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
objective, n, eps = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
spec = ReleaseSpec.of("lattice", eps, objective=objective)
plan = spec.mechanism.plan(Task.ERRORS, spec, np.ones(4), n)
t = time.process_time()
e = dp.expected_errors(spec, np.ones(4), n)
print(json.dumps(dict(objective=objective, route=plan.route, planned=round(plan.seconds, 1),
                      cpu=round(time.process_time() - t, 1),
                      worst=round(e.worst, 5), worst_at=[int(x) for x in e.worst_counts],
                      average=round(e.average, 5),
                      peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)))
"""

FACE = r"""
import json, resource, sys, time
import numpy as np
from dpposterior.lattice.faces_any import face_remap_any, plan_face_table
n, eps = int(sys.argv[1]), float(sys.argv[2])
t = time.process_time()
table = face_remap_any(np.ones(4), n, eps)
print(json.dumps(dict(cpu=round(time.process_time() - t, 1), planned=round(plan_face_table(n, 4, eps).seconds, 1),
                      lp_t=round(float(table.certificate["lp"]), 5),
                      peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)))
"""


def child(code: str, *args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), DPPOSTERIOR_MAX_SOLVE_SECONDS="2000",
               DPPOSTERIOR_MEMORY_GB="8")
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", default="60:1,100:1,100:2")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "worst_k4_routes_large_n.json"))
    args = parser.parse_args()
    rows = []
    for point in args.points.split(","):
        n, eps = point.split(":")
        row = {"n": int(n), "eps": float(eps), "load": round(os.getloadavg()[0], 2),
               "worst": child(ERRORS, "worst", n, eps), "average": child(ERRORS, "average", n, eps)}
        if float(eps) == 1.0:
            row["face_table"] = child(FACE, n, eps)
        print(json.dumps(row), flush=True)
        rows.append(row)
    record = {"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
              "command": "python benchmarks/worst_k4_routes_large_n.py --points " + args.points, "points": rows}
    pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
