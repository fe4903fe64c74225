"""The noise-aware posterior's plans (``optimal``, both objectives) in two trees over a grid of public n, k, eps:
every cell whose seconds, solve-limited seconds, bytes or refusal differ.

    python benchmarks/plan_scan_h73na3.py --old OLD/src --new src --out benchmarks/plan_scan_h73na3.json
    python benchmarks/plan_scan_h73na3.py --old OLD/src --new src --out benchmarks/plan_scan_h74k4.json --wide
    python benchmarks/plan_scan_h73na3.py --old OLD/src --new src --out benchmarks/plan_scan_h76na4.json --fine4 \
        --k3-every 4

Grid: Dir(1,1,1), eps in ``EPS3``, n in ``N3``; Dir(1,1,1,1), eps in ``EPS4``, n in ``N4``.  ``--wide``: also
``Task.ERRORS``' plans, Dir(1,1,1,2) beside Dir(1,1,1,1), k = 4 at eps in ``EPS4_WIDE`` and n in ``N4_WIDE``.
``--fine4``: also Dir(1,1,1,1) and Dir(1,1,1,2) at every n in ``N4_FINE`` and eps in ``EPS4_FINE`` (the k = 4
class route's cells).  ``--k3-every J``: every J-th k = 3 cell only (the k = 3 grid thinned).  The two trees' plans
run side by side, each in a process of its own (``PYTHONPATH`` that tree's ``src``) at the default limits;
``refused`` is the plan's one-line refusal or "".  The record keeps the counts and every differing cell."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

EPS3 = (0.08, 0.1, 0.105, 0.11, 0.115, 0.117, 0.119, 0.12, 0.13, 0.15, 0.16, 0.2, 0.5, 1.0)
N3 = (1, 2, 5, 10, 20, 30, 36, 40, 41, 45, 49, 50, 51, 55, 60, 61, 65, 70, 80, 100, 101, 110, 120, 132, 133, 150, 180,
      192, 193, 200, 203, 250, 300, 500, 1000)
EPS4 = (0.25, 0.5, 1.0)
N4 = (5, 10, 20, 30, 40, 50, 60, 80, 100)
EPS4_WIDE = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0)
N4_WIDE = (5, 6, 9, 10, 12, 13, 14, 16, 18, 20, 22, 24, 26, 28, 29, 30, 31, 36, 40, 50, 51, 55, 60, 67, 68, 70, 79, 80,
           100, 150, 200, 300, 1000)
EPS4_FINE = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6)
N4_FINE = tuple(range(5, 32))

#: the plans of one tree, as JSON lines (its src first on the path)
SCAN = r"""
import json, sys
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
cells = json.loads(sys.stdin.read())
for prior, eps, n, objective, task in cells:
    k = len(prior)
    spec = ReleaseSpec.of("optimal", eps, objective=objective)
    try:
        p = spec.mechanism.plan(Task[task], spec, np.array(prior, dtype=float), n)
        row = [p.route, round(float(p.seconds), 4), round(float(dict(p.costs).get("DPPOSTERIOR_MAX_SOLVE_SECONDS", 0)), 4),
               float(p.memory_bytes), p.refused() or ""]
    except Exception as exc:  # a plan that raises is recorded as such
        row = ["raised", 0, 0, 0, f"{type(exc).__name__}: {exc}"]
    print(json.dumps([prior, eps, n, objective, task, row]))
"""


def scan(src: str, cells: list) -> dict:
    """Each cell's plan in the tree ``src``: ``{(prior, eps, n, objective, task): [route, seconds, limited, bytes,
    refused]}``."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    env.pop("DPPOSTERIOR_MAX_SOLVE_SECONDS", None)
    out = subprocess.run([sys.executable, "-c", SCAN], input=json.dumps(cells), env=env, check=True,
                         capture_output=True, text=True).stdout
    return {(tuple(r[0]), *r[1:5]): r[5] for r in map(json.loads, out.splitlines())}


def main() -> None:
    """Scan both trees and write the differing cells."""
    ap = _side.parser(__doc__)
    ap.add_argument("--wide", action="store_true", help="also Task.ERRORS, Dir(1,1,1,2) and the wider k = 4 grid")
    ap.add_argument("--fine4", action="store_true", help="also every n in N4_FINE at eps in EPS4_FINE, k = 4")
    ap.add_argument("--k3-every", type=int, default=1, help="keep every J-th k = 3 cell")
    args = ap.parse_args()
    tasks = ("POSTERIOR", "ERRORS") if args.wide else ("POSTERIOR",)
    priors4 = ((1, 1, 1, 1), (1, 1, 1, 2)) if args.wide else ((1, 1, 1, 1),)
    eps4, n4 = (EPS4_WIDE, N4_WIDE) if args.wide else (EPS4, N4)
    cells = [[[1, 1, 1], e, n, o, t] for e in EPS3 for n in N3 for o in ("average", "worst") for t in tasks]
    cells = cells[::args.k3_every]
    cells += [[list(a), e, n, o, t] for a in priors4 for e in eps4 for n in n4 for o in ("average", "worst")
              for t in tasks]
    if args.fine4:
        cells += [[list(a), e, n, o, t] for a in priors4 for e in EPS4_FINE for n in N4_FINE for o in ("average", "worst")
                  for t in tasks if [list(a), e, n, o, t] not in cells]
    with ThreadPoolExecutor(2) as pool:  # each tree in a process of its own, side by side
        old, new = pool.map(lambda src: scan(src, cells), (args.old, args.new))
    diff = [dict(prior=list(c[0]), eps=c[1], n=c[2], objective=c[3], task=c[4], old=old[c], new=new[c])
            for c in old if old[c] != new[c]]
    rec = _side.record("benchmarks/plan_scan_h73na3.py", diff)
    rec["cells"] = len(cells)
    rec["differ"] = len(diff)
    _side.write(args.out, rec)
    print(len(cells), "cells,", len(diff), "differ")


if __name__ == "__main__":
    main()
