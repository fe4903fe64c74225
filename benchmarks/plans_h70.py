"""Plans against runs, side by side (the tree before and this tree), second pass: the k = 3 three-corner LP's
constants held to k = 3, and the k = 3 corner remap's peak bytes as a refusal term of its own.

``--grid``: each tree's corner plans (``corner_seconds`` and ``corner_bytes``, a symmetric prior and not, ``law``
True and False) at k = 3, 4, 5, eps 0.25, 0.5, 0.75 and n from 10 to 1,000, with the SHA-256 of each tree's table per
k (equal where no plan moved).

A cell ``EPS:N`` is ``benchmarks/plans_h69.py``'s (``release --prior 1,1,1 --counts (n/3, ...) --mechanism optimal
--objective worst --epsilon EPS --seed 1 --json``, CPU s and peak RSS by ``/usr/bin/time``, the SHA-256 of its
output, each tree's plan), run by its functions; besides, in the same process, the peak RSS (``ru_maxrss``) at the
entry and exit of the corner solve's stages (its edge tables, its fixed rows' search, the whole solve), so that the
fixed rows' search's own peak shows.

    python benchmarks/plans_h70.py --old /work/base70/src --new src --out benchmarks/plans_h70.json --grid
    python benchmarks/plans_h70.py --old /work/base70/src --new src --out benchmarks/plans_h70.json 0.5:300 ...
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import plans_h69 as H69  # noqa: E402

#: the peak RSS (KiB) at the entry and exit of the corner solve's stages, to the file named by PLANS_H70_RSS
RSS = r"""
import atexit, json, os, resource
from dpposterior.lattice import corners as _C
_rss = []
def _peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for _name in ("_edge_tables", "_fixed_rows", "_solve"):
    _f = getattr(_C, _name)
    def _w(*a, _f=_f, _n=_name, **kw):
        _rss.append([_n, "in", _peak()]); r = _f(*a, **kw); _rss.append([_n, "out", _peak()]); return r
    setattr(_C, _name, _w)
def _dump():
    with open(os.environ["PLANS_H70_RSS"], "w") as fh:
        json.dump(_rss, fh)
atexit.register(_dump)
"""

#: one tree's corner plans over the grid, as JSON
GRID = r"""
import json, sys
from dpposterior.mechanisms import lattice as L
k = int(sys.argv[1])
out = []
for eps in (0.25, 0.5, 0.75):
    for n in (10, 15, 20, 30, 40, 50, 70, 100, 150, 160, 170, 200, 300, 500, 700, 1000):
        for sym in (True, False):
            for law in (False, True):
                out.append([eps, n, sym, law, L.corner_seconds(n, k, eps, sym, law=law),
                            L.corner_bytes(n, k, eps, sym, law=law)])
print(json.dumps(out))
"""


def grid(src: str, k: int) -> list:
    env = dict(os.environ, PYTHONPATH=src)
    proc = subprocess.run([sys.executable, "-c", GRID, str(k)], capture_output=True, text=True, env=env, check=True)
    return json.loads(proc.stdout)


def run(src: str, k: int, n: int, eps: float, raised: bool = False) -> dict:
    """``plans_h69.run`` with the corner solve's stages' peak RSS (MiB) beside it."""
    path = os.path.join(tempfile.gettempdir(), f"plans_h70_rss_{os.getpid()}.json")
    os.environ["PLANS_H70_RSS"] = path
    child = H69.CHILD
    try:
        H69.CHILD = RSS + child
        row = H69.run(src, k, n, eps, raised)
    finally:
        H69.CHILD = child
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            row["stage_peak_mb"] = [[s, w, round(v / 1024, 1)] for s, w, v in json.load(fh)]
        os.remove(path)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--grid", action="store_true", help="both trees' corner plans over the grid, and their SHA-256")
    ap.add_argument("cells", nargs="*", help="EPS:N (k = 3, worst)")
    args = ap.parse_args()
    new = os.path.abspath(args.new)
    record = {"rows": []}
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as fh:
            record = json.load(fh)
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    if args.grid:
        out = {}
        for k in (3, 4, 5):
            a, b = grid(args.old, k), grid(new, k)
            sha = [hashlib.sha256(json.dumps(x).encode()).hexdigest() for x in (a, b)]
            moved = [x[:4] + [x[4], y[4], x[5], y[5]] for x, y in zip(a, b) if x != y]
            out[str(k)] = {"sha256_old": sha[0], "sha256_new": sha[1], "cells": len(a), "moved": moved}
            print(k, sha, len(moved), "moved", flush=True)
        record["grid"] = dict(out, date=stamp, command="python benchmarks/plans_h70.py " + " ".join(sys.argv[1:]))
    rows = [r for r in record["rows"] if r["cell"] not in args.cells]
    for cell in args.cells:
        eps, n = (float(x) for x in cell.split(":"))
        n = int(n)
        row = {"cell": cell, "k": 3, "n": n, "eps": eps, "plan_old": H69.plan(args.old, 3, n, eps),
               "plan_new": H69.plan(new, 3, n, eps)}
        for name, src in (("old", args.old), ("new", new)):
            row[name] = run(src, 3, n, eps)
            print(cell, name, {x: row[name].get(x) for x in ("cpu_s", "peak_mb", "rc", "load", "sha256")}, flush=True)
        for name, other, src in (("old", "new", args.old), ("new", "old", new)):
            if row[name]["rc"] != 0 and row[other]["rc"] == 0:
                row[name + "_raised"] = run(src, 3, n, eps, raised=True)
        a, b = row.get("old_raised", row["old"]), row.get("new_raised", row["new"])
        row["same_output"] = a.get("sha256") is not None and a.get("sha256") == b.get("sha256")
        row["command"] = "python benchmarks/plans_h70.py " + " ".join(sys.argv[1:])
        rows.append(row)
        record["rows"] = rows
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=1)
            fh.write("\n")
    record["rows"] = rows
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
