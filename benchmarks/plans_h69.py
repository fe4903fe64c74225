"""Plans against runs, side by side (the tree before and this tree): the k = 3 worst-case release's corner solve and
the k = 4 noise-aware posterior's class route.

A cell ``EPS:N`` is ``release --prior 1,1,1 --counts (n/3, ...) --mechanism optimal --objective worst --epsilon EPS
--seed 1 --json``; a cell ``k4:EPS:N`` is ``release --prior 1,1,1,1 --counts (n/4, ...) --mechanism optimal --objective
average --epsilon EPS --noise-aware --seed 1 --json``.  Each runs in a process of its own, one after the other (never
two at once): CPU s (user + sys) and peak RSS by ``/usr/bin/time``, the load before it, its exit status and the
SHA-256 of its JSON output (or its one-line refusal), and, in the same process, the CPU s of each ``linprog`` (the
corner LP and the edge LPs) and of the corner solve's other stages, or of the class route's classes, grouping
(``clamp_groups``), one-point searches and column.  Each tree's plan beside it (k = 3: the padded release's
``plan_draw`` and ``corner_seconds``; k = 4: ``plan_posterior``, ``group_seconds``).  Where one tree refuses a cell
by its default limits that the other runs, it runs again with ``DPPOSTERIOR_MAX_SOLVE_SECONDS=200`` (``*_raised``), so
that the two outputs are compared.

    python benchmarks/plans_h69.py --old OLD/src --new src --out benchmarks/plans_h69.json 0.5:20 k4:0.5:15 ...
    python benchmarks/plans_h69.py --old OLD/src --new src --out benchmarks/plans_h69.json --plans-only
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

#: the release in-process with its LPs and the corner solve's stages timed (CPU s), the stages on stderr's last line
CHILD = r"""
import json, sys, time
import scipy.optimize as so
from dpposterior.lattice import corners as C
rec = []
_lp = so.linprog
def lp(*a, **kw):
    t = time.process_time(); r = _lp(*a, **kw); A = kw.get("A_ub")
    rec.append(["linprog", time.process_time() - t, int(A.nnz), list(A.shape)]); return r
so.linprog = lp
from dpposterior.lattice import column as COL
from dpposterior.mechanisms import lattice as L
for mod, name in ((C, "_edge_tables"), (C, "_fixed_rows"), (C, "_regions"), (C, "_solve"), (COL, "reach_classes"),
                  (COL, "clamp_groups"), (L, "local_bayes_search"), (COL, "local_column")):
    f = getattr(mod, name)
    def w(*a, _f=f, _n=name, **kw):
        t = time.process_time(); r = _f(*a, **kw); rec.append([_n, time.process_time() - t]); return r
    setattr(mod, name, w)
from dpposterior.cli.main import main
rc = main(sys.argv[1:])
sys.stderr.write("\nSTAGES " + json.dumps(rec) + "\n")
sys.exit(rc)
"""

#: one tree's plans of the cell (public prior, n, eps)
PLAN = r"""
import json, sys
import numpy as np
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec
k, n, eps = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
s = ReleaseSpec.of("lattice", eps, objective="worst" if k == 3 else "average")
p = (L.LATTICE.plan_draw if k == 3 else L.LATTICE.plan_posterior)(np.ones(k), n, s)
out = {"route": p.route, "seconds": float(p.seconds), "bytes": float(p.memory_bytes), "refusal": p.refusal}
if k == 3:
    out.update(corner_seconds=L.corner_seconds(n, 3, eps, True), corners_fit=L.corners_fit(n, 3, eps))
else:
    W = L.LATTICE.column_radius(n, k, eps)
    out.update(class_route=L.LATTICE._class_route(np.ones(k), n, k, s, W, L._radius(k, eps, 1e-12)),
               group_seconds=list(L.group_seconds(n, k, W, L.exact_shifts(np.ones(k), eps))))
print(json.dumps(out))
"""


def plan(src: str, k: int, n: int, eps: float) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    proc = subprocess.run([sys.executable, "-c", PLAN, str(k), str(n), str(eps)], capture_output=True, text=True,
                          env=env)
    return json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-300:]}


def run(src: str, k: int, n: int, eps: float, raised: bool = False) -> dict:
    q = n // k
    counts = ",".join(str(x) for x in [q] * (k - 1) + [n - (k - 1) * q])
    args = ["release", "--prior", ",".join(["1"] * k), "--counts", counts, "--mechanism", "optimal",
            "--objective", "worst" if k == 3 else "average", "--epsilon", str(eps), "--seed", "1", "--json"]
    if k == 4:
        args.append("--noise-aware")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    if raised:
        env["DPPOSTERIOR_MAX_SOLVE_SECONDS"] = "200"
    proc, row = _side.timed([sys.executable, "-c", CHILD, *args], env)
    stages = [x for x in proc.stderr.splitlines() if x.startswith("STAGES ")]
    if stages:
        rec = json.loads(stages[-1][7:])
        row["lp_s"] = [round(r[1], 2) for r in rec if r[0] == "linprog"]
        row["lp_shape"] = [r[3] for r in rec if r[0] == "linprog"]
        for name in ("_solve", "_edge_tables", "_fixed_rows", "_regions", "reach_classes", "clamp_groups",
                     "local_bayes_search", "local_column"):
            row[name.lstrip("_") + "_s"] = round(sum(r[1] for r in rec if r[0] == name), 2)
        row["one_point_searches"] = sum(1 for r in rec if r[0] == "local_bayes_search")
    if proc.returncode == 0:
        out = json.loads(proc.stdout)
        row["released_counts"] = out["released_counts"]
        if out.get("noise_aware"):
            aware = out["noise_aware"]
            row["posterior_route"] = aware.get("route")
            row["posterior"] = {key: aware.get(key) for key in ("mean", "intervals", "dropped_mass_bound")}
        row["sha256"] = hashlib.sha256(proc.stdout.encode()).hexdigest()
    else:
        lines = [x for x in proc.stderr.splitlines() if x.startswith("dpposterior: error")]
        row["error"] = (lines[-1] if lines else proc.stderr[-300:])[:400]
    return row


def _max_diff(x, y) -> float:
    """The largest absolute difference between the numbers of two JSON values of one shape (inf where they differ in
    shape or in anything but their numbers)."""
    if isinstance(x, dict) and isinstance(y, dict) and x.keys() == y.keys():
        return max((_max_diff(x[key], y[key]) for key in x), default=0.0)
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        return max((_max_diff(u, v) for u, v in zip(x, y)), default=0.0)
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return abs(float(x) - float(y))
    return 0.0 if x == y else float("inf")


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("--plans-only", action="store_true", help="recompute both trees' plans of the rows in --out only")
    ap.add_argument("cells", nargs="*", help="EPS:N (k = 3, worst) or k4:EPS:N (k = 4, average, noise-aware)")
    args = ap.parse_args()
    new = os.path.abspath(args.new)
    rows = []
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as fh:
            record = json.load(fh)
        rows = [r for r in record["rows"] if r["cell"] not in args.cells]
        if args.plans_only:
            for r in rows:
                r["plan_old"], r["plan_new"] = plan(args.old, r["k"], r["n"], r["eps"]), plan(new, r["k"], r["n"], r["eps"])
            record["plans_recomputed"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
            with open(args.out, "w", encoding="utf-8") as fh:
                json.dump(record, fh, indent=1)
                fh.write("\n")
            return
    for cell in args.cells:
        parts = cell.split(":")
        k = 4 if parts[0] == "k4" else 3
        eps, n = float(parts[-2]), int(parts[-1])
        row = {"cell": cell, "k": k, "n": n, "eps": eps, "plan_old": plan(args.old, k, n, eps),
               "plan_new": plan(new, k, n, eps)}
        for name, src in (("old", args.old), ("new", new)):
            row[name] = run(src, k, n, eps)
            print(cell, name, row[name], flush=True)
        for name, other, src in (("old", "new", args.old), ("new", "old", new)):
            if row[name]["rc"] != 0 and row[other]["rc"] == 0:
                row[name + "_raised"] = run(src, k, n, eps, raised=True)
                print(cell, name, "raised", row[name + "_raised"], flush=True)
        a, b = row.get("old_raised", row["old"]), row.get("new_raised", row["new"])
        row["same_output"] = _side.same_output(a, b)
        if a.get("posterior") and b.get("posterior"):  # the largest difference of the two posteriors' floats
            row["same_released_counts"] = a["released_counts"] == b["released_counts"]
            row["posterior_max_abs_diff"] = _max_diff(a["posterior"], b["posterior"])
        rows.append(row)
        _side.write(args.out, _side.record("benchmarks/plans_h69.py", rows))


if __name__ == "__main__":
    main()
