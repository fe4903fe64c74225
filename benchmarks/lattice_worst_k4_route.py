"""The k = 4 worst-case route of ``lattice~worst`` as ``compare`` runs it (the corner solve, then its exact errors,
``corners_any.corner_errors_any`` at the route's radius), at Dir(1,1,1,1): its plan (``LATTICE.plan``: route, seconds,
the solve part, fits under the default limits), CPU seconds of the solve, of the search over R(n) (by orbits at this
symmetric prior, with its counts) and of the whole errors, the worst case and the peak RSS.  Each call in its own
process, run past the limits (``DPPOSTERIOR_MAX_SOLVE_SECONDS``, ``DPPOSTERIOR_MAX_PAIRS`` raised) so that a refused
setting is measured too.  Prints a table and writes ``benchmarks/lattice_worst_k4_route.json`` (``--only`` merges).

    python benchmarks/lattice_worst_k4_route.py [--calls 50:1,100:2] [--out FILE]
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
from dpposterior.lattice import corners_any
from dpposterior.limits import Task
from dpposterior.mechanisms import LATTICE, ReleaseSpec
from dpposterior.mechanisms.lattice import LOCAL_ERROR_TOL, _radius
n, eps = int(sys.argv[1]), float(sys.argv[2])
a = np.ones(4)
import os
limits = {k: os.environ.pop(k) for k in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MAX_PAIRS")}
plan = LATTICE.plan(Task.ERRORS, ReleaseSpec.of("lattice", eps, objective="worst"), a, n)
os.environ.update(limits)
t0 = time.process_time()
remap = corners_any.cached_corner_remap_any(tuple(a.tolist()), n, eps)
solve = time.process_time() - t0
We = _radius(4, eps, LOCAL_ERROR_TOL)
stats = {}
t0 = time.process_time()
corners_any.rest_window_outputs(a, n, eps, We, stats=stats)
search = time.process_time() - t0
t0 = time.process_time()
e = corners_any.corner_errors_any(remap, We)
errors = time.process_time() - t0
i = int(np.argmax(e.high))
print(json.dumps({"n": n, "eps": eps, "route": plan.route, "planned_s": plan.seconds,
                  "planned_solve_s": dict(plan.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"], "fits": plan.fits,
                  "solve_cpu": solve, "search_cpu": search, "errors_cpu": errors, "total_cpu": solve + errors,
                  "worst": float(e.high[i]), "worst_counts": [int(x) for x in e.counts[i]], "search_stats": stats,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3}))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", default="50:1,100:1,50:2,100:2", help="n:eps pairs, comma separated")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "lattice_worst_k4_route.json"))
    args = parser.parse_args(argv)
    path = pathlib.Path(args.out)
    rows = json.loads(path.read_text(encoding="utf-8"))["calls"] if path.exists() else []
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), DPPOSTERIOR_MAX_SOLVE_SECONDS="1e5",
               DPPOSTERIOR_MAX_PAIRS="1e13")
    for call in args.calls.split(","):
        n, eps = call.split(":")
        load = os.getloadavg()[0]
        proc = subprocess.run([sys.executable, "-c", CHILD, n, eps], env=env, capture_output=True, text=True)
        got = (json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else
               {"n": int(n), "eps": float(eps), "failed": (proc.stderr.strip().splitlines() or ["?"])[-1]})
        got["load_before"] = round(load, 2)
        rows = [r for r in rows if (r["n"], r["eps"]) != (got["n"], got["eps"])] + [got]
        if "failed" in got:
            print(f"n={n} eps={eps}: {got['failed']}", flush=True)
        else:
            print(f"n={n:>4} eps={eps:<4} {got['route']:<24} planned {got['planned_s']:7.1f} s (solve "
                  f"{got['planned_solve_s']:6.1f}, {'fits' if got['fits'] else 'refused'})  CPU solve "
                  f"{got['solve_cpu']:6.1f} search {got['search_cpu']:6.1f} errors {got['errors_cpu']:6.1f} total "
                  f"{got['total_cpu']:6.1f}  worst {got['worst']:.5f} at {got['worst_counts']}  peak "
                  f"{got['peak_mb']:.0f} MB  (load {load:.1f})", flush=True)
        path.write_text(json.dumps({"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
                                    "prior": "Dir(1,1,1,1)", "calls": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
