"""``lattice.remap.project`` over a lattice window in two trees side by side: CPU s of the map alone and its output's
hash.

    python benchmarks/project_window.py --old OLD/src --new src --out benchmarks/project_window.json \
        4:160:36 4:300:24 3:1000:32

Each cell is ``K:N:W``: the window ``{z : sum z = N, z_i >= -W}`` (``lattice.noise.window``; W = 36 and 24 are
the k = 4 search ball's radius ``Dc`` at eps 1 and 1.5, and 32 at k = 3, eps 1), every point of it projected at once.
Each tree runs in its own process (``PYTHONPATH`` its ``src``), the old first; the map is timed by
``time.process_time`` (the best of ``--repeat``, 3 unless given, after building the window), and ``sha256`` is the
first 16 hex digits of the output's bytes, so equal hashes mean the same map.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
from dpposterior.lattice.noise import window
from dpposterior.lattice.remap import project
k, n, W, repeat = json.loads(sys.argv[1])
Z = window(n, k, W)
best = None
for _ in range(repeat):
    t0 = time.process_time()
    out = project(Z, n)
    t = time.process_time() - t0
    best = t if best is None else min(best, t)
print(json.dumps({"points": int(len(Z)), "project_cpu_s": round(best, 3),
                  "sha256": hashlib.sha256(np.ascontiguousarray(out).tobytes()).hexdigest()[:16]}))
"""


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("cells", nargs="+", help="K:N:W, e.g. 4:160:36")
    args = ap.parse_args()
    rows = []
    for cell in args.cells:
        k, n, W = (int(x) for x in cell.split(":"))
        row: dict = {"cell": cell}
        for name, src in (("old", args.old), ("new", args.new)):
            env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
            proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps([k, n, W, args.repeat])],
                                  capture_output=True, text=True, env=env, timeout=900)
            row[name] = (json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0
                         else {"error": proc.stderr.strip().splitlines()[-1:]})
        row["same_output"] = _side.same_output(row["old"], row["new"])
        if "project_cpu_s" in row["old"] and "project_cpu_s" in row["new"]:
            row["new_over_old"] = round(row["new"]["project_cpu_s"] / row["old"]["project_cpu_s"], 3)
        print(json.dumps(row), flush=True)
        rows.append(row)
        _side.write(args.out, _side.record("benchmarks/project_window.py", rows, old=args.old))


if __name__ == "__main__":
    main()
