"""The k = 4 local column's searches by orbits at one public release (optimal, Dir(1,...,1), ``posterior
--released``'s route, the limit raised): what the run's check counts and what the searches cost.

    python benchmarks/average_face_searches_h81av.py --out benchmarks/average_face_searches_h81av.json \
        1000:2:107,499,393,1 300:2:30,120,149,1 ...

Each cell ``N:EPS:RELEASE[:OBJECTIVE]`` (average unless given) runs in its own process under ``nice -n 5``
(``PYTHONPATH`` this tree's ``src``, ``DPPOSTERIOR_MAX_SOLVE_SECONDS=1000``): ``local_posterior`` at the release, with
spies on ``_check_searches`` (the points it counts, those with a count at most 1, those of R(n), and its estimate by
``column_orbit_seconds``), on ``local_search_batch`` (CPU s; its stats: orbits formed, points left to the search
without orbits) and on ``_grouped_search`` (rows, groups = distinct projections, CPU s of each pass).  The load
average before each cell is recorded.  Writes ``--out`` after every cell; a cell past ``--timeout`` keeps what its
check printed."""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
import dpposterior.mechanisms.lattice as L
import dpposterior.lattice.batched as B
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec

n, eps, rel, obj = int(sys.argv[1]), float(sys.argv[2]), np.array([int(x) for x in sys.argv[3].split(",")]), sys.argv[4]
rec = {"checks": [], "searches": [], "grouped": []}
orig_check, orig_lsb, orig_gs = L._check_searches, B.local_search_batch, B._grouped_search


def check(Z, n_, k, e, orbits=False, projections=False, stays_left=False, released=None):
    Zs = np.asarray(Z)
    faces = int((Zs.min(axis=1) <= 1).sum()) if len(Zs) else 0
    est = (L.corner_projection_orbit_seconds(len(Zs), e) if orbits and projections else
           L.column_orbit_seconds(len(Zs), B.orbit_count(Zs, n_), n_, k, e, faces) if orbits else None)
    rec["checks"].append({"points": len(Zs), "orbits": orbits, "projections": projections, "estimate": est,
                          "in_R": int(np.all(Zs >= 0, axis=1).sum()) if len(Zs) else 0, "count_at_most_1": faces,
                          "cpu_before": time.process_time()})
    print("CHECK " + json.dumps(rec["checks"][-1]), flush=True)
    return orig_check(Z, n_, k, e, orbits, projections, stays_left, released)


def lsb(*args, **kw):
    st = {}
    t = time.process_time()
    kw.pop("stats", None)
    out = orig_lsb(*args, stats=st, **kw)
    rec["searches"].append({"cpu_seconds": time.process_time() - t, **{k: int(v) for k, v in st.items()}})
    return out


def gs(a, n_, e, Z, mu, exact=None, P=None, kept_columns=False, drop=0.0):
    t = time.process_time()
    out = orig_gs(a, n_, e, Z, mu, exact=exact, P=P, kept_columns=kept_columns, drop=drop)
    PP = B.project(Z, n_) if P is None else P
    rec["grouped"].append({"rows": len(Z), "groups": len(np.unique(B._keys(PP, n_))) if len(Z) else 0,
                           "exact": exact is not None, "drop": drop, "cpu_seconds": time.process_time() - t})
    return out


L._check_searches, B.local_search_batch, B._grouped_search = check, lsb, gs
spec = ReleaseSpec.of("optimal", eps, objective=obj)
prior = np.ones(rel.size)
plan = spec.mechanism.plan(Task.POSTERIOR, spec, prior, n)
rec["plan_seconds"] = float(plan.seconds)
t = time.process_time()
rec["bound"] = float(spec.mechanism.local_posterior(plan, prior, n, spec, rel)[3])
rec["cpu_seconds"] = time.process_time() - t
print("DONE " + json.dumps(rec), flush=True)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--timeout", type=float, default=150.0)
    ap.add_argument("cells", nargs="+")
    args = ap.parse_args()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src), DPPOSTERIOR_MAX_SOLVE_SECONDS="1000")
    rows = []
    for cell in args.cells:
        n, eps, rel, *rest = cell.split(":")
        obj = rest[0] if rest else "average"
        row = {"n": int(n), "epsilon": float(eps), "released": [int(x) for x in rel.split(",")], "objective": obj,
               "load_before": round(os.getloadavg()[0], 2)}
        try:
            res = subprocess.run(["nice", "-n", "5", sys.executable, "-c", CHILD, n, eps, rel, obj], env=env,
                                 capture_output=True, text=True, timeout=args.timeout)
            lines, row["rc"] = res.stdout.splitlines(), res.returncode
        except subprocess.TimeoutExpired as exc:  # this cell's process only (started here)
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            lines, row["rc"], row["timed_out"] = out.splitlines(), None, True
        for line in lines:
            if line.startswith("DONE "):
                row.update(json.loads(line[5:]))
            elif line.startswith("CHECK ") and "checks" not in row:
                row["checks"] = [json.loads(line[6:])]
        rows.append(row)
        with open(args.out, "w") as f:
            json.dump({"command": " ".join(["average_face_searches_h81av.py"] + sys.argv[1:]),
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                       "rows": rows}, f, indent=1)
        print(json.dumps({k: row.get(k) for k in ("n", "epsilon", "released", "load_before", "cpu_seconds")}),
              flush=True)


if __name__ == "__main__":
    main()
