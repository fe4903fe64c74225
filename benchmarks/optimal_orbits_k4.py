"""The optimal mechanism's LP by orbits (``optimal.solve_table(orbits=True)``, ``OptimalMechanism.lp_route``), over
all of R(n) or a coarser lattice of outputs (route ``coarse``, its ``step``): each cell's table solved, repaired,
scanned and checked against the geometric release (``certificate``: what a release, ``accuracy`` or ``compare`` runs
first), in a process of its own, with the plan it states.

    python benchmarks/optimal_orbits_k4.py --out benchmarks/optimal_orbits_k4.json 1-1-1-1:8:1:worst ...
    python benchmarks/optimal_orbits_k4.py --lattice --out benchmarks/optimal_coarse_k4.json 1-1-1-1:15:0.5:worst ...

A cell is ``PRIOR:N:EPS:OBJECTIVE[:STEP]`` (``PRIOR`` as ``1-1-1-1``; ``STEP``: that output step's table where the
route is another, route ``forced``).  Recorded: CPU s (user + system of the child) and
peak RSS (``os.wait4``), the load before, the route, the output step and the planned seconds
(``optimal.orbit_lp_seconds``), the LP's optimum, the repaired table's exact worst case and average over R(n), its
scanned eps and the mixing weight.  ``--lattice``: beside it, in a process of its own after it, the lattice
release's exact errors at the same objective (``dpposterior accuracy --mechanism lattice``; its CPU s and peak RSS,
or its one-line refusal), the release the route replaces.
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
prior, n, eps, obj, forced = sys.argv[1:6]
a = np.array([float(x) for x in prior.split("-")]); n = int(n)
spec = ReleaseSpec.of("optimal", float(eps), objective=obj)
m = spec.mechanism
if forced:  # a step the route does not take here: the table alone, as the route would solve it
    route, orbits, step = "forced", True, int(forced)
    planned = O.orbit_lp_seconds(n, a.size, O.symmetry_order(a), O.coarse_size(n, a.size, step))
    cert = dict(zip(("mix", "concrete_epsilon", "lp_value"),
                    O._solved(tuple(float(x) for x in a), n, spec.epsilon, spec.objective, orbits, step)[1:]))
else:
    route = m.lp_route(n, a.size, spec, a)
    planned = m.lp_seconds(n, a.size, spec, a) if route else None
    cert = m.certificate(a, n, spec)
    orbits, step = m._lp_args(n, a.size, spec, a)
out = dict(route=route, step=step, planned_s=planned, certificate=cert)
if route:
    table = O._solved(tuple(float(x) for x in a), n, spec.epsilon, spec.objective, orbits, step)[0]
    worst, average = O._exact_values(a, n, table)
    out.update(worst=worst, average=average)
print(json.dumps(out))
"""


def _child(args: list[str]) -> tuple[dict, str, str]:
    """Run ``python args`` in a process of its own: its CPU s, peak RSS and exit code, stdout and stderr."""
    with tempfile.TemporaryFile("w+b") as out_f, tempfile.TemporaryFile("w+b") as err_f:
        proc = subprocess.Popen([sys.executable, *args], stdout=out_f, stderr=err_f)
        _, status, usage = os.wait4(proc.pid, 0)
        out_f.seek(0)
        err_f.seek(0)
        text, err = out_f.read().decode(), err_f.read().decode()
    return (dict(cpu_seconds=round(usage.ru_utime + usage.ru_stime, 2), peak_mb=round(usage.ru_maxrss / 1024),
                 rc=os.waitstatus_to_exitcode(status)), text, err)


def lattice(prior: str, n: str, eps: str, obj: str) -> dict:
    """The lattice release's exact errors at the cell (``dpposterior accuracy``), or its refusal."""
    rec, text, err = _child(["-m", "dpposterior", "accuracy", "--prior", prior.replace("-", ","), "--n", n,
                             "--epsilon", eps, "--mechanism", "lattice", "--objective", obj])
    for line in text.splitlines():
        if line.startswith("worst case:"):
            rec["worst"] = float(line.split()[2])
        elif line.startswith("average under the prior predictive:"):
            rec["average"] = float(line.split()[-1])
    if rec["rc"] != 0:
        rec["refusal"] = err.strip().splitlines()[-1] if err.strip() else ""
    return rec


def run(cell: str, with_lattice: bool = False) -> dict:
    prior, n, eps, obj, *forced = cell.split(":")
    load = os.getloadavg()[0]
    usage, text, _ = _child(["-c", CHILD, prior, n, eps, obj, forced[0] if forced else ""])
    rec = dict(cell=cell, **usage, load_before=round(load, 2))
    if rec["rc"] == 0:
        rec.update(json.loads(text.strip().splitlines()[-1]))
    if with_lattice:
        rec["lattice"] = lattice(prior, n, eps, obj)
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--lattice", action="store_true", help="also the lattice release's exact errors at each cell")
    ap.add_argument("cells", nargs="+")
    args = ap.parse_args()
    doc = dict(host=os.uname().nodename, cpus=os.cpu_count(), date=datetime.date.today().isoformat(),
               command="python benchmarks/optimal_orbits_k4.py " + ("--lattice " if args.lattice else "") + "--out "
               + args.out + " " + " ".join(args.cells), runs=[])
    for cell in args.cells:
        doc["runs"].append(run(cell, args.lattice))
        print(json.dumps(doc["runs"][-1]), flush=True)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
