"""The k = 4 corner remap's solve (``corners_any.cached_corner_remap_any``, Dir(1,1,1,1)) per (n, eps), each tree in
its own process, one after the other in one run: CPU seconds and peak resident memory of the process, a SHA-256 of the
table (its points, keys, outputs, probabilities, vertices, the LP's duals and t), and this tree's plan of the solve
(``mechanisms.lattice.corner_seconds`` / ``corner_bytes``, what the route's plan counts for it).  The tables must be
byte-identical (the regions by candidates are the same sets in the same order, so the same LP goes to HiGHS).

    python benchmarks/corner_solve_k4.py --old OLD/src [--n 5,10] [--eps 0.5] [--out benchmarks/corner_solve_k4.json]

Without ``--old`` it runs this tree alone (a fit of the plan against the solve, not a comparison).
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import hashlib, json, resource, sys, time
import numpy as np
from dpposterior.lattice.corners_any import cached_corner_remap_any
n, eps = int(sys.argv[1]), float(sys.argv[2])
t = time.process_time()
r = cached_corner_remap_any((1.0, 1.0, 1.0, 1.0), n, eps)
cpu = time.process_time() - t
h = hashlib.sha256()
for x in (r.points, r.keys, r.outputs, r.probs, r.corner, *r.duals, np.float64(r.certificate["lp"])):
    h.update(np.ascontiguousarray(x).tobytes())
print(json.dumps({"cpu_s": round(cpu, 2), "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                  "digest": h.hexdigest()[:16], "lp_t": r.certificate["lp"]}))
"""


def run(src: str, n: int, eps: float) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(eps)], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default=None, help="the other tree's src directory (none: this tree alone)")
    parser.add_argument("--n", default="5,10")
    parser.add_argument("--eps", default="0.5")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    new_src = str(Path(__file__).resolve().parent.parent / "src")
    sys.path.insert(0, new_src)
    from dpposterior.mechanisms.lattice import corner_bytes, corner_seconds

    rows = []
    for eps in (float(e) for e in args.eps.split(",")):
        for n in (int(x) for x in args.n.split(",")):
            new = run(new_src, n, eps)
            row = {"n": n, "eps": eps, "new": new}
            if args.old:
                old = run(args.old, n, eps)
                row.update(old=old, identical=old["digest"] == new["digest"])
            row.update(planned_s=round(corner_seconds(n, 4, eps, True), 1),
                       planned_mb=round(corner_bytes(n, 4, eps, True) / 2**20), load=round(os.getloadavg()[0], 1))
            print(json.dumps(row), flush=True)
            rows.append(row)
    if args.out:
        # one tree alone: a fit, recorded with the command that made it
        record = rows if args.old else {"command": "python " + " ".join(sys.argv), "rows": rows}
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
