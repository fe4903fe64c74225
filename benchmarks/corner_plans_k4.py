"""Planned against run for the k = 4 corner remap (Dir(1,1,1,1)): its solve
(``corners_any.cached_corner_remap_any``; planned by ``mechanisms.lattice.corner_seconds`` / ``corner_bytes``) and the
worst route's errors (``dpposterior.expected_errors`` of ``lattice~worst``; planned by the mechanism's
``plan(Task.ERRORS, ...)``, its route recorded), each call in its own process, one after the other: CPU seconds
(``time.process_time``), the peak resident memory of the process and its growth over the interpreter with the
package imported (what a plan counts).  ``tests/library/test_corner_plans_k4.py`` holds
today's plans to the runs recorded here (a plan below a recorded run fails).

    python benchmarks/corner_plans_k4.py [--n 5,10,20] [--eps 0.5,1,2] [--out benchmarks/corner_plans_k4.json]
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
import numpy as np
what, n, eps = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
a = (1.0, 1.0, 1.0, 1.0)
import scipy.optimize, scipy.sparse  # noqa: the imports before the base line: the plans count the call's growth
import dpposterior, dpposterior.lattice.batched, dpposterior.lattice.corners_any, dpposterior.mechanisms.lattice
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
if what == "solve":
    from dpposterior.lattice.corners_any import cached_corner_remap_any
    from dpposterior.mechanisms.lattice import corner_bytes, corner_seconds
    planned = {"route": "corner solve", "planned_s": corner_seconds(n, 4, eps, True),
               "planned_bytes": corner_bytes(n, 4, eps, True)}
    t = time.process_time()
    r = cached_corner_remap_any(a, n, eps)
    planned["lp_t"] = r.certificate["lp"]
else:
    import dpposterior as dp
    from dpposterior.limits import Task
    from dpposterior.mechanisms import ReleaseSpec
    spec = ReleaseSpec.of("lattice", eps, objective="worst")
    t = time.process_time()
    plan = spec.mechanism.plan(Task.ERRORS, spec, np.asarray(a), n)
    planned = {"route": plan.route, "planned_s": plan.seconds, "planned_bytes": plan.memory_bytes}
    e = dp.expected_errors(spec, np.asarray(a), n)
    planned["worst"] = float(e.worst)
cpu = time.process_time() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
planned.update(cpu_s=round(cpu, 2), peak_bytes=peak, growth_bytes=peak - base)
print(json.dumps(planned))
"""


def run(what: str, n: int, eps: float, src: Path = ROOT / "src", child: str = CHILD) -> dict:
    """``child`` (this file's :data:`CHILD` unless given) in its own process with the tree at ``src``: its last line's
    JSON, or the last line of its error."""
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run([sys.executable, "-c", child, what, str(n), str(eps)], env=env, capture_output=True,
                         text=True)
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="5,10,20")
    parser.add_argument("--eps", default="0.5,1,2")
    parser.add_argument("--what", default="solve,errors")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "corner_plans_k4.json"))
    args = parser.parse_args()
    rows = []
    for eps in (float(e) for e in args.eps.split(",")):
        for n in (int(x) for x in args.n.split(",")):
            for what in args.what.split(","):
                row = {"what": what, "n": n, "eps": eps, "load": round(os.getloadavg()[0], 1), **run(what, n, eps)}
                print(json.dumps(row), flush=True)
                rows.append(row)
                Path(args.out).write_text(json.dumps({"date": datetime.date.today().isoformat(),
                                                      "cores": os.cpu_count(), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
