"""Both trees' plans over a grid, side by side (the tree before and this tree): which plans moved with the dual
bound's drop of the three-corner LP's implied constraints, and that nothing else did.

Per k = 3, 4, 5: ``corner_seconds`` and ``corner_bytes`` (a symmetric prior and not, with and without ``law``) at eps
0.25, 0.4, 0.5, 0.55, 0.6, 0.75, 0.9, 1, 2 and n = 10 to 60, 70, 100, 150, 160, 200, 300, 1,000; at k = 3 also the
``worst`` release's and errors' plans (``plan_draw``, ``plan(Task.ERRORS)``: route, refused, ``corners_fit``,
seconds, bytes) at Dir(1,1,1) and Dir(1,2,3).  Recorded: the SHA-256 of each tree's table per k, the cells whose
plan moved (with the rule :func:`~dpposterior.lattice.corners.drops_implied` at each, in this tree), and the cells
whose route, refusal or ``corners_fit`` moved.

    python benchmarks/plan_grid_h72.py --old OLD/src --new src --out benchmarks/plan_grid_h72.json
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

GRID = r"""
import json, sys
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec
k = int(sys.argv[1])
NS = list(range(10, 61)) + [70, 100, 150, 160, 200, 300, 1000]
out = []
for eps in (0.25, 0.4, 0.5, 0.55, 0.6, 0.75, 0.9, 1.0, 2.0):
    for n in NS:
        if k >= 4 and n > 100 and eps < 1.0:
            continue
        for sym in (True, False):
            for law in (False, True):
                out.append(["corner", eps, n, sym, law, L.corner_seconds(n, k, eps, sym, law=law),
                            L.corner_bytes(n, k, eps, sym, law=law)])
        if k == 3:
            s = ReleaseSpec.of("lattice", eps, objective="worst")
            for prior in ((1.0, 1.0, 1.0), (1.0, 2.0, 3.0)):
                for task in ("draw", "errors"):
                    p = (L.LATTICE.plan_draw(np.array(prior), n, s) if task == "draw"
                         else L.LATTICE.plan(Task.ERRORS, s, np.array(prior), n))
                    out.append(["admit", task, eps, n, list(prior), p.route, bool(p.refused()),
                                L.corners_fit(n, 3, eps), p.seconds, p.memory_bytes])
print(json.dumps(out))
"""

#: this tree's rule at a cell (public n, k, eps): the dual bound's drop runs
RULE = r"""
import json, sys
from dpposterior.mechanisms import lattice as L
print(json.dumps([[e, n, L._corners_implied(n, 3, e)] for e, n in json.loads(sys.argv[1])]))
"""


def _child(src: str, code: str, *argv: str):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src)
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env, check=True)
    return json.loads(proc.stdout)


def main() -> None:
    ap = _side.parser(__doc__)
    args = ap.parse_args()
    new = os.path.abspath(args.new)
    out = {}
    for k in (3, 4, 5):
        a, b = _child(args.old, GRID, str(k)), _child(new, GRID, str(k))
        sha = [hashlib.sha256(json.dumps(x).encode()).hexdigest() for x in (a, b)]
        moved = [x[1:5] + [x[5], y[5], x[6], y[6]] for x, y in zip(a, b) if x != y and x[0] == "corner"]
        entry = {"sha256_old": sha[0], "sha256_new": sha[1], "cells": len(a), "moved": moved}
        if k == 3:
            adm = [(x, y) for x, y in zip(a, b) if x[0] == "admit"]
            entry["admit_changed"] = [x[1:8] + y[5:8] for x, y in adm if x[5:8] != y[5:8]]
            entry["admit_moved"] = [x[1:5] + [x[6], y[6], round(x[8], 2), round(y[8], 2)] for x, y in adm
                                    if x[8:] != y[8:]]
            cells = sorted({(m[0], m[1]) for m in moved} | {(m[1], m[2]) for m in entry["admit_moved"]})
            entry["rule_at_moved"] = _child(new, RULE, json.dumps(cells))
        out[str(k)] = entry
        print(k, sha, len(moved), "moved", flush=True)
    record = {"host": os.uname().nodename, "cpus": os.cpu_count(),
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "command": "python benchmarks/plan_grid_h72.py --old OLD/src --new src --out " + args.out, "grid": out}
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
