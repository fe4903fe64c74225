"""One one-point local search where ``n <= Dc`` (``mechanisms.lattice._one_point_searches``: every data set of R(n) in
its ball, read through ``remap.rn_sums``), the search the k = 4 corner release's noise-aware column runs at each kept
projection, against its plan (``small_corner_search_seconds``, one search): each cell ``N:EPS`` in its own process,
Dir(1,1,1,1), the same 300 points of R(n) (or all of them) drawn by ``numpy.random.default_rng(n)``, one search first
to fill the cache (timed apart), then the CPU ms a search over the rest.

    python benchmarks/small_corner_search_k4.py --out benchmarks/small_corner_search_k4.json 12:0.5 30:0.6 ...
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = r"""
import json, sys, time
import numpy as np
from dpposterior.lattice.remap import candidates
from dpposterior.mechanisms import lattice as L
n, eps = int(sys.argv[1]), float(sys.argv[2])
a = np.ones(4)
R = candidates(n, 4)
Z = R[np.random.default_rng(n).choice(len(R), size=min(300, len(R)), replace=False)]
t = time.process_time()
L._one_point_searches(a, n, eps, Z[:1])
first = time.process_time() - t
t = time.process_time()
L._one_point_searches(a, n, eps, Z)
ms = 1e3 * (time.process_time() - t) / len(Z)
planned = 1e3 * L.small_corner_search_seconds(1, n, 4, eps)
print(json.dumps({"rows": len(R), "points": len(Z), "first_ms": round(1e3 * first, 2), "ms": round(ms, 3),
                  "planned_ms": round(planned, 3), "plan_over_run": round(planned / ms, 2)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))
    ap.add_argument("--out", required=True)
    ap.add_argument("cells", nargs="+", help="N:EPS")
    args = ap.parse_args()
    rows = []
    for cell in args.cells:
        n, eps = cell.split(":")
        load = round(os.getloadavg()[0], 1)
        out = subprocess.run([sys.executable, "-c", CHILD, n, eps], env=dict(os.environ, PYTHONPATH=args.src),
                             capture_output=True, text=True)
        row = {"n": int(n), "eps": float(eps), "load_before": load}
        row.update(json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0
                   else {"error": (out.stderr.strip().splitlines() or ["?"])[-1]})
        print(json.dumps(row), flush=True)
        rows.append(row)
        _side.write(args.out, {"command": "python benchmarks/small_corner_search_k4.py --out "
                               + os.path.basename(args.out) + " " + " ".join(args.cells),
                               "date": datetime.date.today().isoformat(), "runs": rows})


if __name__ == "__main__":
    main()
