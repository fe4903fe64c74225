"""Whether the one-point search's output depends on the host's BLAS threads: ``local_bayes_search`` at Dir(1,1,1,1)
over points of the window with two equal counts (where exact ties between permuted outputs sit), in processes started
with ``OPENBLAS_NUM_THREADS`` = 1 and 2 (as two hosts would run it), each also under ``threadpoolctl``'s runtime limit
of one thread (``--pinned``, where ``threadpoolctl`` is importable); and the bits of a bare ``w @ L`` (``(rows, 13)``,
C-ordered, as the search's risks) at several row counts.  Records the SHA-256 of each run's outputs and the points
whose outputs differ.

    python benchmarks/blas_ties.py --src OLD/src --n 100 --eps 1 --points 200 [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import contextlib, hashlib, json, sys
import numpy as np
from dpposterior.lattice.remap import local_bayes_search
n, eps, count, pinned = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
pin = contextlib.nullcontext()
if pinned:
    from threadpoolctl import threadpool_limits
    pin = threadpool_limits(limits=1, user_api="blas")
Z = sorted({tuple(sorted((m, m, p, n - 2 * m - p), reverse=True)) for m in range(-3, n // 2 + 4)
            for p in range(-3, n - 2 * m + 4) if min(m, p, n - 2 * m - p) >= -3})
Z = np.array(Z, dtype=np.int64)[np.linspace(0, len(Z) - 1, min(count, len(Z))).astype(int)]
with pin:
    out = np.array([local_bayes_search(np.ones(4), n, eps, z) for z in Z])
    rng = np.random.default_rng(0)
    gemv = {}
    for rows in (1000, 10000, 30000, 40000, 100000):
        w, L = rng.random(rows), rng.random((rows, 13))
        gemv[rows] = hashlib.sha256((w @ L).tobytes()).hexdigest()[:12]
print(json.dumps({"Z": Z.tolist(), "out": out.tolist(), "gemv": gemv,
                  "sha256": hashlib.sha256(out.tobytes()).hexdigest()[:16]}))
"""


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--src", required=True)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--eps", type=float, default=1.0)
    p.add_argument("--points", type=int, default=200)
    p.add_argument("--pinned", action="store_true")
    p.add_argument("--out")
    args = p.parse_args(argv)
    runs = {}
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads,
                   PYTHONPATH=os.pathsep.join([os.path.abspath(args.src), *os.environ.get("PYTHONPATH", "").split(
                       os.pathsep)]).rstrip(os.pathsep))
        proc = subprocess.run(["nice", sys.executable, "-c", CHILD, str(args.n), str(args.eps), str(args.points),
                               "1" if args.pinned else "0"], env=env, capture_output=True, text=True, check=True)
        runs[threads] = json.loads(proc.stdout.strip().splitlines()[-1])
    one, two = runs["1"], runs["2"]
    differ = [[z, a, b] for z, a, b in zip(one["Z"], one["out"], two["out"]) if a != b]
    got = {"src": args.src, "n": args.n, "eps": args.eps, "points": len(one["Z"]), "pinned": args.pinned,
           "sha256": {t: r["sha256"] for t, r in runs.items()}, "differ": len(differ), "examples": differ[:5],
           "gemv_sha256": {t: r["gemv"] for t, r in runs.items()}, "load": round(os.getloadavg()[0], 1)}
    print(json.dumps(got))
    if args.out:
        rows = json.load(open(args.out))["runs"] if os.path.exists(args.out) else []
        with open(args.out, "w") as f:
            json.dump({"what": __doc__.splitlines()[0], "runs": rows + [got]}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
