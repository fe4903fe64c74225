"""The k = 4 worst case's certified bound from every data set's own ball of outputs
(``lattice.yardstick.ball_bound``) at Dir(1,1,1,1), beside the whole LP's optimum where it is known.

Each cell ``N:EPS:RADIUS[:INNER]`` runs in its own process (``PYTHONPATH`` = this tree's ``src``, nice), timed with
``os.wait4`` (CPU s = user + system of the child, peak = its ``ru_maxrss``); the 1-minute load is recorded before
and after.  The LP's optima are those recorded by ``benchmarks/yardstick_whole_h79yd.json`` (n = 12) and
``benchmarks/yardstick_k4_worst_h80yd{,_n14}.json`` (n = 14, 15); the best worst-case releases those ``compare``
printed (benchmarks/compare_h78yd.json at n = 14, compare_whole_fit_h79yd_n15.json at n = 15).

    python benchmarks/yardstick_k4_restricted_h81yd.py --out benchmarks/yardstick_k4_restricted_h81yd.json \\
        14:0.5:6 14:0.5:7 15:0.5:6 15:0.5:7 20:0.5:5
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from yardstick_whole import child  # noqa: E402

CHILD = r"""
import json, sys
import numpy as np
from dpposterior.lattice import yardstick as Y
n, eps, radius = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
inner = None if sys.argv[4] == "-" else int(sys.argv[4])
print(json.dumps({"bound": Y.ball_bound(np.ones(4), n, eps, radius, inner)}))
"""

#: (n, eps): the whole LP's optimum (its recorded run) and the best worst-case release compare printed.
OPTIMUM = {(12, 0.5): 0.6503967854549513, (14, 0.5): 0.65511, (15, 0.5): 0.65633}
RELEASE = {(14, 0.5): 0.7183, (15, 0.5): 0.7257}
#: The bound compare printed there (the weighted dual).
PRINTED = {(14, 0.5): 0.6141, (15, 0.5): 0.6179}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cells", nargs="+", metavar="N:EPS:RADIUS[:INNER]")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    out = {"what": "python benchmarks/yardstick_k4_restricted_h81yd.py: ball_bound(ones(4), n, eps, radius, inner) "
                   "in its own process; the whole LP's optimum where recorded",
           "date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "runs": [],
           "not_run": [{"n": 100, "epsilon": e, "why": f"R(100) has {math.comb(103, 3):,} data sets: the loss "
                        f"matrix alone is {8 * math.comb(103, 3) ** 2 / 1e9:.0f} GB"} for e in (0.5, 1.0)]}
    for cell in args.cells:
        n, eps, radius, *rest = cell.split(":")
        inner = rest[0] if rest else "-"
        got, cpu, peak, load = child(CHILD, [n, eps, radius, inner])
        key = (int(n), float(eps))
        row = dict(n=int(n), epsilon=float(eps), radius=int(radius), inner=int(radius) - 1 if inner == "-" else int(inner),
                   **got, cpu_seconds=cpu, peak_bytes=peak, load_before=load, load_after=round(os.getloadavg()[0], 1))
        if key in OPTIMUM:
            row["lp_optimum"] = OPTIMUM[key]
            row["below_optimum"] = round(1 - got["bound"] / OPTIMUM[key], 4)
        if key in RELEASE:
            row["release_over_bound"] = round(RELEASE[key] / got["bound"], 4)
            row["printed_before"] = PRINTED[key]
            row["release_over_printed"] = round(RELEASE[key] / PRINTED[key], 4)
        out["runs"].append(row)
        print(json.dumps(row), flush=True)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
