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

    python benchmarks/plans_h70.py --old OLD/src --new src --out benchmarks/plans_h70.json --grid
    python benchmarks/plans_h70.py --old OLD/src --new src --out benchmarks/plans_h70.json 0.5:300 ...
    python benchmarks/plans_h70.py --old OLD/src --new src --out benchmarks/plans_h70.json face:1:100:old ...

A cell ``face:EPS:N`` is the k = 4 release's own face table build (``faces_any.face_remap_any``, Dir(1,1,1,1)) in a
process of its own: its CPU s, peak RSS, the SHA-256 of its table and the tree's ``plan_face_table``; ``:old`` runs
it in the tree before too.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _side  # noqa: E402
import plans_h69 as H69  # noqa: E402

#: the peak RSS (KiB) at the entry and exit of the corner solve's stages, to the file named by PLANS_H70_RSS
RSS = r"""
import atexit, json, os, resource
import scipy.optimize as _so
from dpposterior.lattice import corners as _C
_rss = []
_trace = os.environ.get("PLANS_H70_TRACE", "0") != "0"
_whole = os.environ.get("PLANS_H70_TRACE") == "solve"  # the whole solve's traced peak alone
if _trace:
    import tracemalloc
    tracemalloc.start()
def _peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
def _wrap(mod, name, leaf):
    _f = getattr(mod, name)
    def _w(*a, _f=_f, _n=name, **kw):
        if _trace and leaf:  # the stage's own traced peak above what was allocated at its entry (KiB)
            c0 = tracemalloc.get_traced_memory()[0]; tracemalloc.reset_peak()
            r = _f(*a, **kw); _rss.append([_n, "traced", (tracemalloc.get_traced_memory()[1] - c0) // 1024]); return r
        _rss.append([_n, "in", _peak()]); r = _f(*a, **kw); _rss.append([_n, "out", _peak()]); return r
    setattr(mod, name, _w)
for _name, _leaf in (("_regions", True), ("_edge_tables", True), ("_fixed_rows", True), ("_solve", False)):
    _wrap(_C, _name, _leaf != _whole)
if not _whole:
    _wrap(_so, "linprog", True)
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
if k == 3:  # and the k = 3 worst-case release's and errors' plans, a symmetric prior and not, at the default limits
    import numpy as np
    from dpposterior.limits import Task
    from dpposterior.mechanisms.spec import ReleaseSpec
    for eps in (0.5, 0.6, 0.75, 0.9):
        s = ReleaseSpec.of("lattice", eps, objective="worst")
        for n in (20, 30, 50, 100, 150, 160, 170, 200, 300, 500, 1000):
            for prior in ((1.0, 1.0, 1.0), (1.0, 2.0, 3.0)):
                for task in ("draw", "errors"):
                    p = (L.LATTICE.plan_draw(np.array(prior), n, s) if task == "draw"
                         else L.LATTICE.plan(Task.ERRORS, s, np.array(prior), n))
                    out.append(["admit", task, eps, n, list(prior), p.route, bool(p.refused()), L.corners_fit(n, 3, eps),
                                p.seconds, p.memory_bytes])
print(json.dumps(out))
"""


#: the release's own face table build (k = 4, Dir(1,1,1,1)): CPU s, peak RSS, its SHA-256 and this tree's plan
FACE = r"""
import hashlib, json, resource, sys, time
import numpy as np
from dpposterior.lattice.faces_any import face_remap_any, plan_face_table
from dpposterior.limits import Task
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec
n, eps = int(sys.argv[1]), float(sys.argv[2])
plan = plan_face_table(n, 4, eps)
s = ReleaseSpec.of("lattice", eps, objective="worst")
routes = {}  # the k = 4 worst release's and errors' routes at this eps (the face route's n and around)
for m in (20, 30, 50, 51, 70, 100, 150):
    d, e = L.LATTICE.plan_draw(np.ones(4), m, s), L.LATTICE.plan(Task.ERRORS, s, np.ones(4), m)
    routes[m] = [d.route, bool(d.refused()), d.seconds, e.route, bool(e.refused()), e.seconds]
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.process_time(); r = face_remap_any(np.ones(4), n, eps); cpu = time.process_time() - t
h = hashlib.sha256()
for x in (r.points, r.outputs, r.probs, r.rest):
    h.update(np.ascontiguousarray(x).tobytes())
print(json.dumps({"build_cpu_s": round(cpu, 2), "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                  / 1024, 1), "entry_mb": round(rss0 / 1024, 1), "sha256": h.hexdigest(), "lp": r.certificate["lp"],
                  "planned_s": plan.seconds, "planned_bytes": plan.memory_bytes, "routes": routes}))
"""


def face(src: str, n: int, eps: float) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    load = os.getloadavg()[0]
    proc = subprocess.run([sys.executable, "-c", FACE, str(n), str(eps)], capture_output=True, text=True, env=env)
    row = json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-300:]}
    return dict(row, load=round(load, 2))


def grid(src: str, k: int) -> list:
    env = dict(os.environ, PYTHONPATH=src)
    proc = subprocess.run([sys.executable, "-c", GRID, str(k)], capture_output=True, text=True, env=env, check=True)
    return json.loads(proc.stdout)


def run(src: str, k: int, n: int, eps: float, raised: bool = False, trace: bool | str = False) -> dict:
    """``plans_h69.run`` with the corner solve's stages' peak RSS (MiB) beside it; ``trace``: instead each stage's
    own peak (``tracemalloc``, MiB above its entry's), in a run of its own (its CPU s are tracemalloc's too);
    ``trace="solve"``: the whole corner solve's own peak alone."""
    path = os.path.join(tempfile.gettempdir(), f"plans_h70_rss_{os.getpid()}.json")
    os.environ["PLANS_H70_RSS"] = path
    os.environ["PLANS_H70_TRACE"] = trace if isinstance(trace, str) else ("1" if trace else "0")
    child = H69.CHILD
    try:
        H69.CHILD = RSS + child
        row = H69.run(src, k, n, eps, raised)
    finally:
        H69.CHILD = child
    if os.path.exists(path):
        key = f"stage_traced_{trace}_mb" if isinstance(trace, str) else "stage_traced_mb" if trace else "stage_peak_mb"
        with open(path, encoding="utf-8") as fh:
            row[key] = [[s, w, round(v / 1024, 1)] for s, w, v in json.load(fh)]
        os.remove(path)
    return row


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("--grid", action="store_true", help="both trees' corner plans over the grid, and their SHA-256")
    ap.add_argument("--trace", action="store_true", help="and each stage's own peak, in a traced run of this tree")
    ap.add_argument("cells", nargs="*", help="EPS:N (k = 3, worst), face:EPS:N[:old] (k = 4, the face table's build)")
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
            moved = [x[:4] + [x[4], y[4], x[5], y[5]] for x, y in zip(a, b) if x != y and x[0] != "admit"]
            out[str(k)] = {"sha256_old": sha[0], "sha256_new": sha[1], "cells": len(a), "moved": moved}
            if k == 3:  # the release's route, refusal and law at every cell; the plans beside them
                adm = [(x, y) for x, y in zip(a, b) if x[0] == "admit"]
                out["admit3"] = {"cells": len(adm), "changed": [x[1:8] + y[5:8] for x, y in adm if x[5:8] != y[5:8]],
                                 "plans": [x[1:5] + [x[8], y[8], x[9], y[9]] for x, y in adm]}
                out[str(k)]["moved"] = len(moved)  # k = 3's plans move by design here: counted, listed in admit3
            print(k, sha, len(moved), "moved", flush=True)
        record["grid"] = dict(out, date=stamp, command="python benchmarks/plans_h70.py " + " ".join(sys.argv[1:]))
    faces = [c for c in args.cells if c.startswith("face:")]
    args.cells = [c for c in args.cells if not c.startswith("face:")]
    for cell in faces:  # face:EPS:N[:old]: the build in this tree, and in the tree before where ":old" follows
        parts = cell.split(":")
        eps, n = float(parts[1]), int(parts[2])
        row = {"cell": ":".join(parts[:3]), "k": 4, "n": n, "eps": eps, "new": face(new, n, eps)}
        if parts[3:] == ["old"]:
            row["old"] = face(args.old, n, eps)
            row["same_table"] = row["old"].get("sha256") == row["new"].get("sha256")
        print(row, flush=True)
        record["faces"] = [f for f in record.get("faces", []) if f["cell"] != row["cell"]] + [
            dict(row, command="python benchmarks/plans_h70.py " + " ".join(sys.argv[1:]))]
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
        if args.trace:
            row["new_traced"] = run(new, 3, n, eps, trace=True)
            row["new_traced"].update(run(new, 3, n, eps, trace="solve"))
        a, b = row.get("old_raised", row["old"]), row.get("new_raised", row["new"])
        row["same_output"] = _side.same_output(a, b)
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
