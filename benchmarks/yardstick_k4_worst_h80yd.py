"""Where the k = 4 worst case's certified bound is loose at Dir(1,1,1,1): the whole LP by orbits (the optimum
itself, ``lattice.yardstick.corner_bound`` at depth n) planned against compare's budget at n = 12 to 20, and run
where it is asked for (each run in its own process, CPU s and peak bytes by ``os.wait4``).

    python benchmarks/yardstick_k4_worst_h80yd.py --out benchmarks/yardstick_k4_worst_h80yd.json [--run 4:15:0.5 ...]

The plan rows read only public (prior, n, eps); ``whole_seconds(k=4)`` is the measured fit ``WHOLE_FIT_SECONDS``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from yardstick_whole import CHILD, child  # noqa: E402

PLAN = r"""
import json, sys
import numpy as np
from dpposterior.lattice import yardstick as Y
k, n = int(sys.argv[1]), int(sys.argv[2])
R = Y.corner_block(n, k, 0, n)
rows, groups, pairs = Y.block_shape(n, R, Y.CORNER_REACH)
order = len(Y._symmetry_images(np.ones(k), R))
print(json.dumps({"rows": rows, "groups": groups, "pairs": pairs, "order": order,
                  "planned_seconds": Y.whole_seconds(rows, groups, pairs, order, k=k),
                  "planned_bytes": Y.whole_bytes(rows, groups, pairs, order)}))
"""


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--plans", nargs="+", default=["12", "13", "14", "15", "16", "18", "20"], metavar="N")
    p.add_argument("--run", nargs="*", default=[], metavar="K:N:EPS")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    out = {"what": "python benchmarks/yardstick_k4_worst_h80yd.py: the whole LP by orbits at Dir(1,1,1,1) planned "
                   "(whole_seconds(k=4), whole_bytes) and run (corner_bound at depth n, own process)",
           "date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "plans": [], "runs": []}

    def write() -> None:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)

    for n in args.plans:
        plan, _, _, _ = child(PLAN, ["4", n])
        out["plans"].append(dict(k=4, n=int(n), **plan))
        print(json.dumps(out["plans"][-1]), flush=True)
    write()
    for cell in args.run:
        k, n, eps = cell.split(":")
        got, cpu, peak, load = child(CHILD, [k, n, eps])
        out["runs"].append(dict(k=int(k), n=int(n), epsilon=float(eps), **got, cpu_seconds=cpu, peak_bytes=peak,
                                load_before=load, load_after=round(os.getloadavg()[0], 1)))
        print(json.dumps(out["runs"][-1]), flush=True)
        write()


if __name__ == "__main__":
    main()
