"""The k = 4 corner release's exact errors (``lattice~worst`` where a draw reads the corner remap) against this tree's
plan, at Dir(1,1,1,1): each point in its own process, its parts timed apart (``time.process_time``): the batched local
search over R(n) by orbits (``local_search_batch(..., orbits=True)``), the corner remap's build (``_corner``: its LP
and fixed rows) and the rest of ``expected_errors`` (the rest's window errors and the tables' terms), beside the plan's
parts (:func:`dpposterior.mechanisms.lattice.face_orbit_seconds` and ``corner_seconds``, both at
:func:`~dpposterior.mechanisms.lattice.exact_shift_factor` where the plan reads it) and the whole plan.  Writes
``benchmarks/corner_k4_plan_exact.json`` (or ``--out``); the load is recorded per point.

    python benchmarks/corner_k4_plan_exact.py [--points 22:0.5,24:0.5,26:0.5] [--out FILE]
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
import json, os, resource, sys, time
import numpy as np
import dpposterior as dp
from dpposterior.lattice.batched import local_search_batch
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L
from dpposterior.models import candidates
n = int(sys.argv[1])
eps = L.working_epsilon(float(sys.argv[2]), 4)  # the release's own eps (0.6: 0.59999943), so its caches are hit
a = np.ones(4)
spec = ReleaseSpec.of("lattice", eps, objective="worst")
plan = spec.mechanism.plan(Task.ERRORS, spec, a, n)
load = os.getloadavg()[0]
t0 = time.process_time()
local_search_batch(a, n, eps, candidates(n, 4), orbits=True)
t1 = time.process_time()
L._corner(tuple(a.tolist()), n, eps)
t2 = time.process_time()
e = dp.expected_errors(spec, a, n)
t3 = time.process_time()
factor = L.exact_shift_factor(eps, L.exact_shifts(a, eps) and eps <= L.CORNER_EXACT_SHIFT_MAX_EPSILON)
face = sum(L.face_orbit_seconds(n, 4, eps))
print(json.dumps(dict(n=n, epsilon=eps, route=plan.route, load_before=round(load, 2), search_cpu=round(t1 - t0, 2),
                      corner_cpu=round(t2 - t1, 2), rest_cpu=round(t3 - t2, 2), cpu=round(t3 - t0, 2),
                      plan_search=round(factor * face, 2),
                      plan_corner=round(L.corner_seconds(n, 4, eps, True, search_factor=factor), 2),
                      planned=round(plan.seconds, 2), plan_factor=factor, worst=e.worst,
                      peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
                      planned_mb=round(plan.memory_bytes / 2**20))))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", default="22:0.5,24:0.5,26:0.5")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "corner_k4_plan_exact.json"))
    args = parser.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), DPPOSTERIOR_MAX_SOLVE_SECONDS="1000")
    rows = []
    for point in args.points.split(","):
        n, eps = point.split(":")
        got = json.loads(subprocess.run([sys.executable, "-c", CHILD, n, eps], env=env, check=True, capture_output=True,
                                        text=True).stdout)
        got["plan_over_run"] = round(got["planned"] / got["cpu"], 2)
        print(json.dumps(got), flush=True)
        rows.append(got)
    pathlib.Path(args.out).write_text(json.dumps({"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
                                                  "points": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
