"""The yardstick's sparse block at Dir(1,1,1,1) (``lattice.yardstick.sparse_bound``): each cell's certified worst-case
bound in a process of its own, with the plan it states (``sparse_cost``, or ``sparse_ball_cost`` at a radius), and
beside it the best recorded release's worst case there, so the bracket (release / bound) reads off one row.

    python benchmarks/yardstick_sparse_k4.py --corner --out benchmarks/yardstick_sparse_k4.json 16:0.5 14:1 ...

A cell is ``N:EPS`` (the whole block) or ``N:EPS:RADIUS`` (each member's outputs within ``RADIUS`` substitutions).
Recorded: CPU s (user + system of the child) and peak RSS (``os.wait4``), the load before, the
planned seconds and the bound.  ``--corner``: also the corner blocks of depth 8 (``corner_bound``) in a process of
their own, the bound the sparse block is planned against.  ``best_release``: the smallest worst case recorded at the
cell by ``benchmarks/optimal_coarse_k4.json`` (the route's table where it ran, and the lattice release) and
``benchmarks/optimal_orbits_k4.json`` (the LP by orbits: the optimum itself), or absent.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, sys
from dpposterior.lattice import yardstick as ys
what, n, eps = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
radius = int(sys.argv[4]) if len(sys.argv) > 4 else None
if what == "sparse":
    secs, memory = ys.sparse_cost([1, 1, 1, 1], n) if radius is None else ys.sparse_ball_cost([1, 1, 1, 1], n, radius)
    value = ys.sparse_bound([1, 1, 1, 1], n, eps, ys.SPARSE_STEP, radius).worst
    print(json.dumps(dict(planned_s=secs, planned_mb=round(memory / 2**20), step=ys.SPARSE_STEP, sparse=value)))
else:
    print(json.dumps(dict(corner8=ys.corner_bound([1, 1, 1, 1], n, eps, 8).worst)))
"""


def _child(args: list[str]) -> tuple[dict, str]:
    """Run ``python args`` in a process of its own: its CPU s, peak RSS and exit code, and its stdout."""
    with tempfile.TemporaryFile("w+b") as out_f:
        proc = subprocess.Popen([sys.executable, *args], stdout=out_f, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        out_f.seek(0)
        text = out_f.read().decode()
    return (dict(cpu_seconds=round(usage.ru_utime + usage.ru_stime, 2), peak_mb=round(usage.ru_maxrss / 1024),
                 rc=os.waitstatus_to_exitcode(status)), text)


def recorded_releases() -> dict[tuple[int, float], float]:
    """``{(n, eps): smallest recorded worst case}`` at Dir(1,1,1,1), objective worst (module docstring)."""
    best: dict[tuple[int, float], float] = {}

    def keep(key, value):
        if value is not None:
            best[key] = min(best.get(key, float("inf")), float(value))

    for name in ("optimal_coarse_k4.json", "optimal_orbits_k4.json"):
        for run in json.loads((HERE / name).read_text())["runs"]:
            prior, n, eps, obj, *forced = run["cell"].split(":")
            if prior != "1-1-1-1" or obj != "worst":
                continue
            key = (int(n), float(eps))
            if not forced and run.get("route"):
                keep(key, run.get("worst"))
            keep(key, (run.get("lattice") or {}).get("worst"))
    return best


def run(cell: str, corner: bool, releases: dict) -> dict:
    n, eps, *radius = cell.split(":")
    load = os.getloadavg()[0]
    usage, text = _child(["-c", CHILD, "sparse", n, eps, *radius])
    rec = dict(n=int(n), epsilon=float(eps), **({"radius": int(radius[0])} if radius else {}), **usage,
               load_before=round(load, 2))
    if rec["rc"] == 0:
        rec.update(json.loads(text.strip().splitlines()[-1]))
    if corner:
        usage, text = _child(["-c", CHILD, "corner", n, eps])
        rec["corner8_cpu_seconds"] = usage["cpu_seconds"]
        if usage["rc"] == 0:
            rec.update(json.loads(text.strip().splitlines()[-1]))
    best = releases.get((int(n), float(eps)))
    if best is not None:
        rec["best_release"] = best
        if "sparse" in rec:
            rec["bracket"] = round(best / rec["sparse"], 4)
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--corner", action="store_true", help="also the corner blocks of depth 8 at each cell")
    ap.add_argument("cells", nargs="+")
    args = ap.parse_args()
    doc = dict(host=os.uname().nodename, cpus=os.cpu_count(), date=datetime.date.today().isoformat(),
               command="python benchmarks/yardstick_sparse_k4.py " + ("--corner " if args.corner else "") + "--out "
               + args.out + " " + " ".join(args.cells), runs=[])
    releases = recorded_releases()
    for cell in args.cells:
        doc["runs"].append(run(cell, args.corner, releases))
        print(json.dumps(doc["runs"][-1]), flush=True)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
