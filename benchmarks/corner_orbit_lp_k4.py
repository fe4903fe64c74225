"""The k = 4 corner LP below its orbit gate (``corners_any.CORNER_ORBIT_ENTRIES``): solved whole, as the release
solves it there, and by orbits (``corner_remap_any(..., orbits=True)``), side by side in one process a cell.

    python benchmarks/corner_orbit_lp_k4.py --out benchmarks/corner_orbit_lp_k4.json 0.75:13 0.5:12 0.75:10 ...

Each cell is ``EPS:N`` at Dir(1,1,1,1).  Each row: the LP's entries (``corner_entries``, what the gate reads), and for
each way its CPU s (the solve, in its own process, orbits first) and ``t``, the LP's worst case at ``n_ref``
(``certificate["lp"]``).  The release reads the whole LP below the gate; this records what reading the orbit LP
there would cost and give.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = r"""
import json, sys, time
import numpy as np
from dpposterior.lattice.corners_any import corner_entries, corner_remap_any
eps, n, orbits = json.loads(sys.argv[1])
t0 = time.process_time()
remap = corner_remap_any(np.ones(4), n, eps, orbits=orbits)
print(json.dumps({"cpu_s": round(time.process_time() - t0, 2), "t": remap.certificate["lp"],
                  "entries": corner_entries(n, 4, eps)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the JSON file written")
    ap.add_argument("cells", nargs="+", help="EPS:N")
    args = ap.parse_args()
    rows = []
    for cell in args.cells:
        eps, n = cell.split(":")
        row: dict = {"epsilon": float(eps), "n": int(n)}
        for way, orbits in (("orbits", True), ("whole", False)):
            out = subprocess.run([sys.executable, "-c", CHILD, json.dumps([float(eps), int(n), orbits])],
                                 capture_output=True, text=True, check=True)
            got = json.loads(out.stdout.strip().splitlines()[-1])
            row["entries"] = got.pop("entries")
            row[way] = got
        row["t_orbits_over_whole"] = round(row["orbits"]["t"] / row["whole"]["t"], 5)
        row["cpu_whole_over_orbits"] = round(row["whole"]["cpu_s"] / max(row["orbits"]["cpu_s"], 0.01), 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
        _side.write(args.out, _side.record("benchmarks/corner_orbit_lp_k4.py", rows))


if __name__ == "__main__":
    main()
