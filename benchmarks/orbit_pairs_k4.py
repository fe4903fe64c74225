"""The k = 4 average errors' search by orbits (``local_search_batch(..., orbits=True)`` over the window) of two trees
side by side: CPU seconds, peak memory, the route's counts and the outputs' hash.

    python benchmarks/orbit_pairs_k4.py --old /path/to/old/src --new src --out benchmarks/orbit_pairs_k4.json \\
        50:1:new,old 100:1:new,old

Each cell is ``N:EPS:ORDER`` (Dir(1,1,1,1), the window of ``radius_for(4, eps, 1e-5)``, as ``lattice~average``'s
errors; ORDER: which tree runs first).  One call at a time, each in its own process under ``nice``, timed with
``os.wait4`` (CPU s = user + system of the child, peak = its ``ru_maxrss``); ``sha256``: the first 16 hex digits of
the outputs' bytes (the same digits: byte-identical outputs).  ``stats``: the route's counts (``orbits`` searched,
``mapped`` by symmetry, ``left`` searched point by point, ``fallback`` near ties).  Writes ``--out`` after every call.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
from dpposterior.lattice.batched import local_search_batch
from dpposterior.lattice.noise import radius_for, window
n, eps = int(sys.argv[1]), float(sys.argv[2])
Z = window(n, 4, radius_for(4, eps, 1e-5))
stats = {}
t = time.process_time()
out = local_search_batch(np.ones(4), n, eps, Z, orbits=True, stats=stats)
print(json.dumps({"search_cpu_seconds": time.process_time() - t, "points": len(Z), "stats": stats,
                  "sha256": hashlib.sha256(np.ascontiguousarray(out).tobytes()).hexdigest()[:16]}))
"""


def run(src: str, n: int, eps: float) -> dict:
    """One call with ``PYTHONPATH=src``: its record (CPU s and peak of the child, by ``os.wait4``)."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as out_f, tempfile.TemporaryFile("w+") as err_f:
        proc = subprocess.Popen(["nice", sys.executable, "-c", CHILD, str(n), str(eps)], env=env, stdout=out_f,
                                stderr=err_f)
        _, status, usage = os.wait4(proc.pid, 0)
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read()
    row = {"load_before": round(load, 2), "cpu_seconds": usage.ru_utime + usage.ru_stime,
           "peak_mb": usage.ru_maxrss / 1024}
    if status:
        row["failed"] = err.strip().splitlines()[-1]
    else:
        row.update(json.loads(out.strip().splitlines()[-1]))
    return row


def main(argv: list[str] | None = None) -> None:
    parser = _side.parser(__doc__)
    parser.add_argument("cells", nargs="+")
    args = parser.parse_args(argv)
    rows = []
    for cell in args.cells:
        n, eps, order = cell.split(":")
        for tree in order.split(","):
            row = {"n": int(n), "eps": float(eps), "tree": tree, **run(getattr(args, tree), int(n), float(eps))}
            print(json.dumps(row), flush=True)
            rows.append(row)
            with open(args.out, "w", encoding="utf-8") as f:
                json.dump({"date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "rows": rows}, f,
                          indent=1)
                f.write("\n")


if __name__ == "__main__":
    main()
