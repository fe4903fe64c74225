"""``posterior --released R --n N`` (optimal, k = 3, Dir(1,1,1)) with the solve limit raised: CPU s, peak MiB, exit
and load of each run, and the plan the tree states for its cell (the limit raised, the same objective), one row a
release.  The measured runs behind the k = 3 noise-aware plan's family (faces, vertices, the centre).

Cells are ``eps:n:c1,c2,c3[:objective]``.  Example::

    python benchmarks/face_runs_h78na3.py --new src --out benchmarks/face_runs_h78na3.json 0.5:10000:1,4999,5000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _side import now, timed  # noqa: E402

PLAN = ("import sys, numpy as np; from dpposterior.limits import Task; from dpposterior.mechanisms import ReleaseSpec;"
        "eps, n, obj = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3];"
        "s = ReleaseSpec.of('optimal', eps, objective=obj); p = s.mechanism.plan(Task.POSTERIOR, s, np.ones(3), n);"
        "print(p.seconds)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--new", required=True, help="the tree's src")
    ap.add_argument("--out", required=True, help="the JSON file written (rows appended)")
    ap.add_argument("--cap", type=int, default=200, help="CPU seconds a run (ulimit -t; stopped past it)")
    ap.add_argument("--limit", default="100000", help="DPPOSTERIOR_MAX_SOLVE_SECONDS of the runs and plans")
    ap.add_argument("cells", nargs="+")
    a = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=os.path.abspath(a.new), DPPOSTERIOR_MAX_SOLVE_SECONDS=a.limit)
    rows = json.load(open(a.out))["rows"] if os.path.exists(a.out) else []
    for cell in a.cells:
        parts = cell.split(":")
        eps, n, r = parts[0], parts[1], parts[2]
        obj = parts[3] if len(parts) > 3 else "average"
        plan = subprocess.run([sys.executable, "-c", PLAN, eps, n, obj], capture_output=True, text=True, env=env)
        argv = ["bash", "-c", f"ulimit -t {a.cap}; exec \"$@\"", "_", sys.executable, "-m", "dpposterior", "posterior",
                "--prior", "1,1,1", "--released", r, "--n", n,
                "--mechanism", "optimal", "--objective", obj, "--epsilon", eps]
        proc, row = timed(argv, env, timeout=20 * a.cap)
        err = proc.stderr.strip().splitlines()[-1:] if proc.returncode else []
        row["stopped_at_cap"] = row["cpu_s"] >= a.cap - 1
        row.update(eps=float(eps), n=int(n), released=r, objective=obj, plan_s=plan.stdout.strip() or plan.stderr[-200:],
                   error=err, when=now())
        print(json.dumps(row), flush=True)
        rows.append(row)
        with open(a.out, "w") as f:
            json.dump({"command": " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
