"""The k = 3 noise-aware plans past the whole-ball fit (``optimal``, Dir(1,1,1), both objectives, the default limit) in
two trees side by side: admitted or refused, and the plan's seconds, over eps in ``EPS`` and n in ``N``; the record
keeps every cell and the cells whose admission moved.

    python benchmarks/noise_aware_k3_scan_h78na3.py --old OLD/src --new src --out benchmarks/noise_aware_k3_scan_h78na3.json

Each tree's plans run in a process of their own (``plan_scan_h73na3.scan``); a table is printed, one row an (eps,
objective), one column an n: ``A`` admitted in both, ``r`` refused in both, ``+`` admitted only by the new tree, ``-``
refused only by the new tree.  ``--reuse FILE`` takes the old tree's plans from an earlier record of this script
(``--reuse-new FILE`` the new tree's, from its new side); with ``--old`` and ``--new`` the same tree it scans that tree
once.  The record of this branch: each tree scanned on its own, then put side by side with both ``--reuse``
options."""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402
from plan_scan_h73na3 import scan  # noqa: E402

EPS = (0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.5, 0.75, 1.0)
N = (101, 204, 300, 437, 600, 700, 1000, 1600, 2000, 10_000, 100_000, 1_000_000)
MARK = {(False, False): "A", (True, True): "r", (True, False): "+", (False, True): "-"}


def main() -> None:
    """Scan both trees, print the table and write every cell."""
    ap = _side.parser(__doc__)
    ap.add_argument("--reuse", help="take the old tree's plans from this record (written by this script) instead")
    ap.add_argument("--reuse-new", help="take the new tree's plans from the new side of this record instead")
    args = ap.parse_args()
    cells = [[[1, 1, 1], e, n, o, "POSTERIOR"] for e in EPS for n in N for o in ("average", "worst")]
    if args.reuse:  # the old tree's plans as an earlier run of this script recorded them
        rows0 = json.load(open(args.reuse))["rows"]
        old = {((1, 1, 1), r["eps"], r["n"], r["objective"], "POSTERIOR"): ["", r["old_s"], 0, 0, r["old_line"]]
               for r in rows0}
        if args.reuse_new:
            rows1 = json.load(open(args.reuse_new))["rows"]
            new = {((1, 1, 1), r["eps"], r["n"], r["objective"], "POSTERIOR"): ["", r["new_s"], 0, 0, r["new_line"]]
                   for r in rows1}
        else:
            new = scan(args.new, cells)
    elif os.path.abspath(args.old) == os.path.abspath(args.new):  # one tree: its plans once
        old = new = scan(args.new, cells)
    else:
        with ThreadPoolExecutor(2) as pool:
            old, new = pool.map(lambda src: scan(src, cells), (args.old, args.new))
    rows = []
    for c in old:
        o, w = old[c], new[c]
        rows.append(dict(eps=c[1], n=c[2], objective=c[3], old_s=o[1], new_s=w[1], old_refused=bool(o[4]),
                         new_refused=bool(w[4]), old_line=o[4], new_line=w[4]))
    print("eps   objective " + " ".join(f"{n:>7}" for n in N))
    for e in EPS:
        for obj in ("average", "worst"):
            marks = [MARK[(r["old_refused"], r["new_refused"])] for n in N for r in rows
                     if r["eps"] == e and r["n"] == n and r["objective"] == obj]
            print(f"{e:<5} {obj:<9} " + " ".join(f"{m:>7}" for m in marks))
    moved = [r for r in rows if r["old_refused"] != r["new_refused"]]
    rec = _side.record("benchmarks/noise_aware_k3_scan_h78na3.py", rows, old=args.old)
    rec["moved"] = moved
    _side.write(args.out, rec)
    print(len(rows), "cells,", len(moved), "moved")


if __name__ == "__main__":
    main()
