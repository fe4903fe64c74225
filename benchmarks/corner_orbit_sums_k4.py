"""Planned against run for the k = 4 corner release's errors where the rest's sum runs by orbits (Dir(1,1,1,1)):
the search over R(n) by orbits (``corners_any.rest_window_outputs``; planned by ``mechanisms.lattice.face_orbit_seconds``),
the rest's sum by orbits after it (``corners_any.orbit_rest_errors``; planned by ``orbit_sum_seconds``) beside the sum
over R(n) it replaces (``batched.window_errors_any``, ``--old``), and the whole route (``dpposterior.expected_errors``
of ``lattice~worst``; planned by the mechanism's ``plan(Task.ERRORS, ...)``, its route recorded), each call in its own
process, one after the other: CPU seconds (``time.process_time``), the peak resident memory and its growth over the
interpreter with the package imported.  ``tests/library/test_corner_orbit_plans.py`` holds today's plans to the runs
recorded here.

    nice python benchmarks/corner_orbit_sums_k4.py [--n 70,100] [--eps 1] [--what search,sum,errors] [--old]
        [--out benchmarks/corner_orbit_sums_k4.json]
"""

import argparse
import datetime
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from corner_plans_k4 import run as run_child  # noqa: E402  (one child runner for both scripts)

CHILD = r"""
import json, resource, sys, time
import numpy as np
what, n, eps = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
a = np.ones(4)
import scipy.optimize, scipy.sparse  # noqa: the imports before the base line: the plans count the call's growth
import dpposterior, dpposterior.lattice.batched, dpposterior.lattice.corners_any, dpposterior.mechanisms.lattice
from dpposterior.mechanisms import lattice as L
from dpposterior.lattice import corners_any as C
W = L._radius(4, eps, L.LOCAL_ERROR_TOL)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
out = {}
if what == "search":
    out["planned_s"] = sum(L.face_orbit_seconds(n, 4, eps))
    t = time.process_time()
    Zw, rest = C.rest_window_outputs(a, n, eps, W)
elif what in ("sum", "old"):
    Zw, rest = C.rest_window_outputs(a, n, eps, W)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t = time.process_time()
    if what == "sum":
        out["planned_s"] = L.orbit_sum_seconds(n, 4, eps, W)
        stats = {}
        e = C.orbit_rest_errors(a, n, eps, Zw, rest, W, stats)
        out.update(stats)
    else:
        out["planned_s"] = L.LOCAL_SUM_SECONDS * float(L.n_candidates(n, 4)) * L.ball_size(4, eps, L.LOCAL_ERROR_TOL)
        e = dpposterior.lattice.batched.window_errors_any(a, n, eps, rest, W).low
    out["max_error"] = float(e.max())
else:
    import dpposterior as dp
    from dpposterior.limits import Task
    from dpposterior.mechanisms import ReleaseSpec
    spec = ReleaseSpec.of("lattice", eps, objective="worst")
    plan = spec.mechanism.plan(Task.ERRORS, spec, a, n)
    out.update(route=plan.route, planned_s=plan.seconds, planned_bytes=plan.memory_bytes)
    t = time.process_time()
    e = dp.expected_errors(spec, a, n)
    out["worst"] = float(e.worst)
cpu = time.process_time() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
out.update(cpu_s=round(cpu, 2), peak_bytes=peak, growth_bytes=peak - base)
print(json.dumps(out))
"""


def run(what: str, n: int, eps: float, src: Path) -> dict:
    return run_child(what, n, eps, src, CHILD)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="70,100")
    parser.add_argument("--eps", default="1")
    parser.add_argument("--what", default="search,sum,errors")
    parser.add_argument("--old", action="store_true", help="also the sum over R(n) the orbits replace")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "corner_orbit_sums_k4.json"))
    args = parser.parse_args()
    path = Path(args.out)
    rows = json.loads(path.read_text())["rows"] if path.exists() else []
    whats = args.what.split(",") + (["old"] if args.old else [])
    for eps in (float(e) for e in args.eps.split(",")):
        for n in (int(x) for x in args.n.split(",")):
            for what in whats:
                row = {"what": what, "n": n, "eps": eps, "load": round(os.getloadavg()[0], 1),
                       "date": datetime.date.today().isoformat(), **run(what, n, eps, ROOT / "src")}
                print(json.dumps(row), flush=True)
                rows = [r for r in rows if (r["what"], r["n"], r["eps"]) != (what, n, eps)] + [row]
                path.write_text(json.dumps({"cores": os.cpu_count(), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
