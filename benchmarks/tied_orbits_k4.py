"""The batched local search by orbits over ``window(n, 4, We)`` at Dir(1,1,1,1) (``lattice~average``'s errors and the
face table's rest, :func:`dpposterior.lattice.batched.local_search_batch` with ``orbits``), old and new tree in turn,
one process per (tree, n, eps): CPU seconds of the whole search and of its tied part (the points of the orbits the
certificate leaves open, searched with the one-point search's floats: ``_search`` with ``kept_columns``), the number
of those points, and the SHA-256 of the outputs (the same on both trees where nothing changed what the search returns).

    python benchmarks/tied_orbits_k4.py --old OLD/src --new src [--cells 100:1,50:1] [--out benchmarks/tied_orbits_k4.json]

CPU seconds by ``time.process_time``; the load (1-minute average) before each run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
import dpposterior.lattice.batched as B
from dpposterior.lattice.noise import window
from dpposterior.mechanisms.lattice import LOCAL_ERROR_TOL, _radius
n, eps = int(sys.argv[1]), float(sys.argv[2])
We = _radius(4, eps, LOCAL_ERROR_TOL)
inner = B._search
tied = {"cpu_seconds": 0.0, "points": 0}
def timed(*args, **kw):
    if not kw.get("kept_columns"):
        return inner(*args, **kw)
    t = time.process_time()
    got = inner(*args, **kw)
    tied["cpu_seconds"] += time.process_time() - t
    tied["points"] += len(args[3])
    return got
B._search = timed
Z = window(n, 4, We)
t = time.process_time()
out = B.local_search_batch(np.ones(4), n, eps, Z, orbits=True)
whole = time.process_time() - t
print(json.dumps({"n": n, "epsilon": eps, "We": We, "points": len(Z), "cpu_seconds": round(whole, 2),
                  "tied_cpu_seconds": round(tied["cpu_seconds"], 2), "tied_points": tied["points"],
                  "outputs_sha256": hashlib.sha256(np.ascontiguousarray(out).tobytes()).hexdigest()}))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--cells", default="100:1")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "tied_orbits_k4.json"))
    args = parser.parse_args(argv)
    rows = []
    for cell in args.cells.split(","):
        n, eps = cell.split(":")
        for tree, src in (("new", args.new), ("old", args.old)):
            env = dict(os.environ, PYTHONPATH=str(pathlib.Path(src).resolve()), OMP_NUM_THREADS="1")
            load = os.getloadavg()[0]
            got = subprocess.run([sys.executable, "-c", CHILD, n, eps], env=env, capture_output=True, text=True,
                                 check=True)
            row = dict(json.loads(got.stdout.strip().splitlines()[-1]), tree=tree, load_before=round(load, 2))
            print(json.dumps(row), flush=True)
            rows.append(row)
    for new, old in zip(rows[0::2], rows[1::2]):
        new["same_outputs_as_old"] = new["outputs_sha256"] == old["outputs_sha256"]
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": "python benchmarks/tied_orbits_k4.py " + " ".join(sys.argv[1:] if argv is None else argv),
           "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
