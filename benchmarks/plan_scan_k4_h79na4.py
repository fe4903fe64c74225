"""The k = 4 noise-aware posterior's plans (``optimal``, Dir(1,1,1,1), both objectives) in two trees over the grid
eps in ``EPS``, n in ``N``: every cell's route, seconds, solve-limited seconds, bytes and refusal, old and new.

    python benchmarks/plan_scan_k4_h79na4.py --old /work/base79/src --new src --out benchmarks/plan_scan_k4_h79na4.json

Each tree's plans in a process of its own (``PYTHONPATH`` that tree's ``src``, :func:`plan_scan_h73na3.scan`) at
the default limits; plans read public n, k, eps and the prior only, and build nothing (a fraction of a CPU s each)."""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402
from plan_scan_h73na3 import scan  # noqa: E402

EPS = (0.25, 0.5, 1.0)
N = (10, 12, 15, 17, 20, 22, 30, 50, 100, 300, 436, 500, 550, 600, 650, 700, 750, 800, 900, 1000, 3000, 10_000)


def main() -> None:
    """Scan both trees and write every cell, old beside new."""
    args = _side.parser(__doc__).parse_args()
    cells = [[[1, 1, 1, 1], e, n, o, "POSTERIOR"] for e in EPS for o in ("average", "worst") for n in N]
    with ThreadPoolExecutor(2) as pool:
        old, new = pool.map(lambda src: scan(src, cells), (args.old, args.new))
    rows = []
    for c in old:
        row = dict(eps=c[1], n=c[2], objective=c[3], old=old[c], new=new[c])
        rows.append(row)
        print(f"eps {c[1]:g} {c[3]:7s} n {c[2]:>6}: old {old[c][2]:>12.2f} s {'refused' if old[c][4] else 'runs':7s}"
              f" new {new[c][2]:>12.2f} s {'refused' if new[c][4] else 'runs'}")
    rec = _side.record("benchmarks/plan_scan_k4_h79na4.py", rows)
    rec["differ"] = sum(r["old"] != r["new"] for r in rows)
    _side.write(args.out, rec)


if __name__ == "__main__":
    main()
