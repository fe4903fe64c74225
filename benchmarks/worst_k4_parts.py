"""The k = 4 worst row of ``compare`` (``lattice~worst``'s exact errors, route ``"corner remap, by orbits"``) part by
part, planned against run, at Dir(1,1,1,1): the corner solve (planned by ``mechanisms.lattice.corner_seconds``), the
search over R(n) by orbits (``face_orbit_seconds``: its table and the points it hands on), the rest's sum by orbits
(``orbit_sum_seconds``) and the terms at the tables' rows (``DELTA_SECONDS x delta_terms``), each call in its own
process (CPU seconds by ``time.process_time`` around each part of ``corners_any.corner_errors_any``, the route the
mechanism's ``direct_errors`` runs, under the default limits), with the whole plan (``LATTICE.plan``) beside.

    nice python benchmarks/worst_k4_parts.py [--calls 100:0.5,100:1,100:2] [--out benchmarks/worst_k4_parts.json]
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

CHILD = r"""
import json, resource, sys, time
import numpy as np
from dpposterior.lattice import corners_any as C
from dpposterior.limits import Task
from dpposterior.mechanisms import LATTICE, ReleaseSpec
from dpposterior.mechanisms import lattice as L
n, eps = int(sys.argv[1]), float(sys.argv[2])
k = 4
a = np.ones(k)
spec = ReleaseSpec.of("lattice", eps, objective="worst")
plan = LATTICE.plan(Task.ERRORS, spec, a, n)
W = L._radius(k, eps, L.LOCAL_ERROR_TOL)
table, handed = L.face_orbit_seconds(n, k, eps)
top = L.corner_plan_sizes(n, k, eps, True)["edge_top"]
planned = {"solve": L.corner_seconds(n, k, eps, True), "search_table": table, "search_handed": handed,
           "sum": L.orbit_sum_seconds(n, k, eps, W), "delta": L.DELTA_SECONDS * C.delta_terms(n, k, eps, W, top)}
cpu = {}
def timed(name, f):
    def g(*args, **kw):
        t = time.process_time()
        try:
            return f(*args, **kw)
        finally:
            cpu[name] = cpu.get(name, 0.0) + time.process_time() - t
    return g
for name, attr in (("search", "rest_window_outputs"), ("sum", "orbit_rest_errors"), ("delta", "_table_deltas")):
    setattr(C, attr, timed(name, getattr(C, attr)))
t0 = time.process_time()
L._corner(tuple(a.tolist()), n, eps)
cpu["solve"] = time.process_time() - t0
t1 = time.process_time()
e = LATTICE.direct_errors(plan, a, n, spec)
cpu["errors"] = time.process_time() - t1
cpu["total"] = time.process_time() - t0
print(json.dumps({"n": n, "eps": eps, "route": plan.route, "planned_s": plan.seconds, "fits": plan.fits,
                  "planned": planned, "cpu": cpu, "worst": float(np.max(e.high)),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", default="100:0.5,100:1,100:2", help="n:eps pairs, comma separated")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "worst_k4_parts.json"))
    parser.add_argument("--src", default=str(ROOT / "src"), help="the tree's src")
    args = parser.parse_args(argv)
    path = pathlib.Path(args.out)
    rows = json.loads(path.read_text(encoding="utf-8"))["calls"] if path.exists() else []
    env = dict(os.environ, PYTHONPATH=os.path.abspath(args.src))
    for call in args.calls.split(","):
        n, eps = call.split(":")
        load = os.getloadavg()[0]
        proc = subprocess.run(["nice", sys.executable, "-c", CHILD, n, eps], env=env, capture_output=True, text=True)
        got = (json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else
               {"n": int(n), "eps": float(eps), "failed": (proc.stderr.strip().splitlines() or ["?"])[-1]})
        got["load_before"] = round(load, 2)
        got["src"] = args.src
        rows.append(got)
        print(json.dumps(got), flush=True)
        path.write_text(json.dumps({"what": __doc__.splitlines()[0], "date": datetime.date.today().isoformat(),
                                    "command": " ".join(["python", "benchmarks/worst_k4_parts.py"] + (argv or sys.argv[1:])),
                                    "calls": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
