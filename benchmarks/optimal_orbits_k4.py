"""The optimal mechanism's LP by orbits (``optimal.solve_table(orbits=True)``, ``OptimalMechanism.lp_route``): each
cell's table solved, repaired, scanned and checked against the geometric release (``certificate``: what a release,
``accuracy`` or ``compare`` runs first), in a process of its own, with the plan it states.

    python benchmarks/optimal_orbits_k4.py --out benchmarks/optimal_orbits_k4.json 1-1-1-1:8:1:worst ...

A cell is ``PRIOR:N:EPS:OBJECTIVE`` (``PRIOR`` as ``1-1-1-1``).  Recorded: CPU s (user + system of the child) and
peak RSS (``os.wait4``), the load before, the route and the planned seconds (``optimal.orbit_lp_seconds``), the LP's
optimum, the repaired table's exact worst case and average over R(n), its scanned eps and the mixing weight.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys
import numpy as np
from dpposterior.mechanisms import ReleaseSpec
import dpposterior.mechanisms.optimal as O
prior, n, eps, obj = sys.argv[1:5]
a = np.array([float(x) for x in prior.split("-")]); n = int(n)
spec = ReleaseSpec.of("optimal", float(eps), objective=obj)
m = spec.mechanism
route = m.lp_route(n, a.size, spec, a)
planned = m.lp_seconds(n, a.size, spec, a) if route else None
cert = m.certificate(a, n, spec)
out = dict(route=route, planned_s=planned, certificate=cert)
if route:
    table = O._solved(tuple(float(x) for x in a), n, spec.epsilon, spec.objective, route == "orbits")[0]
    worst, average = O._exact_values(a, n, table)
    out.update(worst=worst, average=average)
print(json.dumps(out))
"""


def run(cell: str) -> dict:
    prior, n, eps, obj = cell.split(":")
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+b") as out_f:
        proc = subprocess.Popen([sys.executable, "-c", CHILD, prior, n, eps, obj], stdout=out_f)
        _, status, usage = os.wait4(proc.pid, 0)
        out_f.seek(0)
        text = out_f.read().decode()
    rec = dict(cell=cell, cpu_seconds=round(usage.ru_utime + usage.ru_stime, 2), peak_mb=round(usage.ru_maxrss / 1024),
               load_before=round(load, 2), rc=os.waitstatus_to_exitcode(status))
    if rec["rc"] == 0:
        rec.update(json.loads(text.strip().splitlines()[-1]))
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("cells", nargs="+")
    args = ap.parse_args()
    doc = dict(host=os.uname().nodename, cpus=os.cpu_count(), date=datetime.date.today().isoformat(),
               command="python benchmarks/optimal_orbits_k4.py --out " + args.out + " " + " ".join(args.cells), runs=[])
    for cell in args.cells:
        doc["runs"].append(run(cell))
        print(json.dumps(doc["runs"][-1]), flush=True)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
