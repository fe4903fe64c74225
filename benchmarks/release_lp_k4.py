"""Seconds per column LP of ``lattice.yardstick.release_bound`` at Dir(1,...,1) (k = 4 unless ``--k``) by window:
the fit behind ``RELEASE_SECONDS_PER_NODE_K4`` / ``release_lp_seconds``.

    python benchmarks/release_lp_k4.py --out benchmarks/release_lp_k4.json 10:0.5:6,8,10 20:1:6,8

Each cell ``N:EPS:RADII`` runs, per radius, one evaluation pair (the two scales of ``RELEASE_SCALES``) of
``release_bound`` from a flat start (errors ``level`` at every data set: any errors give a valid bound, the start
only decides which windows need an LP) twice, once with every deficit's LP and once with none (``most = 0``), each
in its own process; seconds per LP = (CPU with LPs - CPU without) / LPs solved.  The load is recorded beside it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

CHILD = """
import math, resource, sys, numpy as np
from dpposterior.lattice.yardstick import release_bound
n, eps, r, level, most, k = (int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5],
                             int(sys.argv[6]))
E = np.full(math.comb(n + k - 1, k - 1), level)
b = release_bound([1.0] * k, n, eps, E, radius=r, steps=1, most=None if most == "all" else int(most))
u = resource.getrusage(resource.RUSAGE_SELF)
print(u.ru_utime + u.ru_stime, sum(b.lps), max(b.values))
"""

#: The flat start per eps: near the best release's average at Dir(1,1,1,1), n = 10 to 30.
LEVEL = {0.5: 0.62, 1.0: 0.5, 2.0: 0.28}


def one(n: int, eps: float, r: int, most: str, k: int) -> tuple[float, int, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(eps), str(r), str(LEVEL.get(eps, 0.5)), most, str(k)],
                         capture_output=True, text=True, check=True, env=os.environ)
    cpu, lps, value = out.stdout.split()
    return float(cpu), int(lps), float(value)


def main() -> None:
    from dpposterior.lattice.yardstick import offset_count, release_lp_seconds

    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--k", type=int, default=4, help="Dir(1,...,1) with k categories (default 4)")
    p.add_argument("cells", nargs="+")
    args = p.parse_args()
    rows = []
    for cell in args.cells:
        n, eps, radii = cell.split(":")
        for r in map(int, radii.split(",")):
            load = os.getloadavg()[0]
            with_lp, lps, value = one(int(n), float(eps), r, "all", args.k)
            without, _, _ = one(int(n), float(eps), r, "0", args.k)
            per = (with_lp - without) / max(lps, 1)
            rows.append(dict(k=args.k, n=int(n), epsilon=float(eps), radius=r, points=offset_count(args.k, r),
                             data_sets=math.comb(int(n) + args.k - 1, args.k - 1), lps=lps, cpu_with=round(with_lp, 2),
                             cpu_without=round(without, 2), seconds_per_lp=round(per, 5),
                             planned_per_lp=round(release_lp_seconds(args.k, offset_count(args.k, r)), 5),
                             load_before=round(load, 1), value=value))
            print(rows[-1], flush=True)
            with open(args.out, "w") as f:
                json.dump(dict(what=__doc__.splitlines()[0], rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
