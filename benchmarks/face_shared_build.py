"""The face table's build at k = 4, Dir(1,1,1,1): the release's own build (``faces_any.face_remap_any``: its searches
at the LP's data sets and at the face rows) against the build from the rest's window search (``window_outputs``: the
local Bayes remap read off ``lattice~average``'s window search, no search of its own), side by side in one process
per n, with the SHA-256 of both tables (rows, outputs, probabilities, the rest's outputs) and of the window's outputs.

    python benchmarks/face_shared_build.py [--n 30,50,100] [--eps 1] [--out benchmarks/face_shared_build.json]

CPU seconds by ``time.process_time``; the load (1-minute average) before each n.  ``builds`` holds one row per n for
``tests/library/test_face_shared_build.py`` (the shared build's plan at or above each run).
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
from dpposterior.lattice.batched import local_search_batch
from dpposterior.lattice.faces_any import face_remap_any, plan_face_shared, plan_face_table
from dpposterior.lattice.noise import window
from dpposterior.mechanisms.lattice import LOCAL_ERROR_TOL, _radius
n, eps = int(sys.argv[1]), float(sys.argv[2])
a = np.ones(4)
We = _radius(4, eps, LOCAL_ERROR_TOL)
def digest(r):
    h = hashlib.sha256()
    for x in (r.points, r.outputs, r.probs, r.rest):
        h.update(np.ascontiguousarray(x).tobytes())
    return h.hexdigest()
t = time.process_time(); out = local_search_batch(a, n, eps, window(n, 4, We), orbits=True)
search = time.process_time() - t
t = time.process_time(); shared = face_remap_any(a, n, eps, window_outputs=(out, We)); t_shared = time.process_time() - t
t = time.process_time(); own = face_remap_any(a, n, eps); t_own = time.process_time() - t
print(json.dumps({"n": n, "epsilon": eps, "We": We, "window_search_cpu_s": round(search, 2),
                  "window_outputs_sha256": hashlib.sha256(out.tobytes()).hexdigest(),
                  "own_build_cpu_s": round(t_own, 2), "cpu_seconds": round(t_shared, 2),
                  "own_sha256": digest(own), "shared_sha256": digest(shared), "same": digest(own) == digest(shared),
                  "lp": own.certificate["lp"], "planned_own": round(plan_face_table(n, 4, eps).seconds, 1),
                  "planned_shared": round(plan_face_shared(n, 4, eps).seconds, 1)}))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="30,50,100")
    parser.add_argument("--eps", type=float, default=1.0)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "face_shared_build.json"))
    args = parser.parse_args(argv)
    rows = []
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OMP_NUM_THREADS="1")
    for n in [int(v) for v in args.n.split(",")]:
        load = os.getloadavg()[0]
        proc = subprocess.run([sys.executable, "-c", CHILD, str(n), str(args.eps)], env=env, check=True,
                              capture_output=True, text=True)
        row = json.loads(proc.stdout.strip().splitlines()[-1]) | {"load_before": round(load, 1)}
        print(row, flush=True)
        rows.append(row)
    pathlib.Path(args.out).write_text(json.dumps({
        "what": __doc__.splitlines()[0], "command": "python benchmarks/face_shared_build.py " + " ".join(
            argv if argv is not None else sys.argv[1:]), "date": datetime.date.today().isoformat(), "builds": rows},
        indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
