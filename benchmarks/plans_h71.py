"""Plans against runs, side by side (the tree before and this tree): the plans that sat under their runs at k = 3.

A cell ``EPS:N`` is ``benchmarks/plans_h69.py``'s (``release --prior 1,1,1 --counts (n/3, ...) --mechanism optimal
--objective worst --epsilon EPS --seed 1 --json``: CPU s and peak RSS of the whole process by ``/usr/bin/time``, the
corner solve's stages and LPs timed in the process, the SHA-256 of its output), with each tree's plan (the padded
release's ``plan_draw``, ``corner_seconds`` without and with ``law``, ``corners_fit``).

A cell ``acc:EPS:N`` is ``accuracy --prior 1,1,1 --n N --epsilon EPS --mechanism lattice --objective OBJ``
(``acc:OBJ:EPS:N`` names the objective; average by default; the corner errors' stages timed in the process), and
``aware:EPS:COUNTS`` is ``release --prior 1,1,1 --counts COUNTS --mechanism optimal --objective average --epsilon EPS
--noise-aware --seed 1 --json`` (and again after the same command at counts 2,2,1 in the same process: the peak after
it is the base of the run's growth); each with its tree's plan (``Mechanism.plan`` of the task it runs).  Each cell
runs in a process of its own, one after the other, in the tree before (``--old``) and in this tree; the load before
each run beside it.

    python benchmarks/plans_h71.py --old OLD/src --new src --out benchmarks/plans_h71.json 0.75:300 acc:0.5:300 ...
    python benchmarks/plans_h71.py --old OLD/src --new src --out benchmarks/plans_h71.json --plans-only
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _side  # noqa: E402
import plans_h69 as H69  # noqa: E402

#: one tree's plans of a cell, as JSON: argv ``kind objective k n eps``
PLAN = r"""
import json, sys
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec
kind, objective, k, n, eps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
mech = "lattice" if kind == "acc" else "optimal"
spec = ReleaseSpec.of(mech, eps, objective=objective)
task = {"release": Task.DRAW, "acc": Task.ERRORS, "aware": Task.POSTERIOR}[kind]
p = spec.mechanism.plan(task, spec, np.ones(k), n)
out = {"route": p.route, "seconds": float(p.seconds), "bytes": float(p.memory_bytes), "refusal": p.refusal}
if kind == "release":
    out.update(corner_seconds=L.corner_seconds(n, k, eps, True), corner_seconds_law=L.corner_seconds(n, k, eps, True,
               law=True), corner_bytes=L.corner_bytes(n, k, eps, True), corners_fit=L.corners_fit(n, k, eps),
               remap=L.LATTICE.remap_name(np.ones(k), n, spec))
print(json.dumps(out))
"""


#: the command in-process (argv), its corner errors' stages timed (CPU s); ``PLANS_H71_WARM`` (a JSON argv): that command
#: first, its output dropped, so that the peak RSS after it (``warm_mb``) holds every module and cache the route
#: imports; both on stderr's last line
CHILD = r"""
import contextlib, io, json, os, resource, sys, time
from dpposterior.lattice import corners as C, search as S
from dpposterior.mechanisms import lattice as L
rec = []
for mod, name in ((C, "corner_local_outputs"), (L, "_window_outputs"), (L, "_corner"), (C, "corner_errors"),
                  (S, "window_errors")):
    f = getattr(mod, name)
    def w(*a, _f=f, _n=name, **kw):
        t = time.process_time(); r = _f(*a, **kw); rec.append([_n, round(time.process_time() - t, 3)]); return r
    setattr(mod, name, w)
from dpposterior.cli.main import main
warm = None
if os.environ.get("PLANS_H71_WARM"):
    with contextlib.redirect_stdout(io.StringIO()):
        main(json.loads(os.environ["PLANS_H71_WARM"]))
    warm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rec.clear()
rc = main(sys.argv[1:])
sys.stderr.write("\nSTAGES " + json.dumps({"stages": rec, "warm_mb": warm}) + "\n")
sys.exit(rc)
"""


def parse(cell: str) -> dict:
    """The cell's kind, objective, n, eps and counts."""
    parts = cell.split(":")
    if parts[0] == "acc":
        objective = parts[1] if len(parts) == 4 else "average"
        return {"kind": "acc", "objective": objective, "eps": float(parts[-2]), "n": int(parts[-1])}
    if parts[0] == "aware":
        counts = [int(x) for x in parts[2].split(",")]
        return {"kind": "aware", "objective": "average", "eps": float(parts[1]), "n": sum(counts), "counts": counts}
    return {"kind": "release", "objective": "worst", "eps": float(parts[0]), "n": int(parts[1])}


def plan(src: str, c: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    proc = subprocess.run([sys.executable, "-c", PLAN, c["kind"], c["objective"], "3", str(c["n"]), str(c["eps"])],
                          capture_output=True, text=True, env=env)
    return json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-300:]}


def run(src: str, c: dict, warm: bool = False) -> dict:
    """CPU s (user + sys), peak RSS, exit status and the SHA-256 of the output of the cell's command in ``src``, and the
    corner errors' stages; ``warm`` (a noise-aware cell): run again after the same command at counts 2,2,1 in the same
    process, whose peak (``warm_mb``) is the base the plan's bytes are over."""
    if c["kind"] == "release":
        return H69.run(src, 3, c["n"], c["eps"])
    if c["kind"] == "acc":
        args = ["accuracy", "--prior", "1,1,1", "--n", str(c["n"]), "--epsilon", str(c["eps"]), "--mechanism",
                "lattice", "--objective", c["objective"], "--json"]
    else:
        args = ["release", "--prior", "1,1,1", "--counts", ",".join(map(str, c["counts"])), "--mechanism", "optimal",
                "--objective", "average", "--epsilon", str(c["eps"]), "--noise-aware", "--seed", "1", "--json"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1", DPPOSTERIOR_MAX_SOLVE_SECONDS="200")
    if warm and c["kind"] == "aware":  # the same command at counts 2,2,1 first (its peak: the base of the growth)
        env["PLANS_H71_WARM"] = json.dumps(args[:4] + ["2,2,1"] + args[5:])
    proc, row = _side.timed([sys.executable, "-c", CHILD, *args], env)
    stages = [x for x in proc.stderr.splitlines() if x.startswith("STAGES ")]
    if stages:
        got = json.loads(stages[-1][7:])
        row["stages"] = got["stages"]
        if got["warm_mb"] is not None:
            row["warm_mb"] = round(got["warm_mb"], 1)
    if proc.returncode == 0:
        row["sha256"] = hashlib.sha256(proc.stdout.encode()).hexdigest()
    else:
        row["error"] = proc.stderr.strip()[-400:]
    return row


#: the peak RSS (MiB) of the interpreter with the package imported, the base a plan's bytes are over
BASE = "import resource, dpposterior.cli.main; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("--new-only", action="store_true", help="run the cells in this tree only (both trees' plans)")
    ap.add_argument("--plans-only", action="store_true", help="recompute both trees' plans of the rows in --out only")
    ap.add_argument("cells", nargs="*")
    args = ap.parse_args()
    new = os.path.abspath(args.new)
    record = {"rows": []}
    if os.path.exists(args.out):
        record = json.loads(pathlib.Path(args.out).read_text(encoding="utf-8"))
    rows = [r for r in record["rows"] if r["cell"] not in args.cells]
    if args.plans_only:
        for r in rows:
            r["plan_old"], r["plan_new"] = plan(args.old, r), plan(new, r)
    for cell in args.cells:
        c = parse(cell)
        row = {"cell": cell, **c, "plan_old": plan(args.old, c), "plan_new": plan(new, c)}
        for name, src in (("new", new),) if args.new_only else (("old", args.old), ("new", new)):
            base = subprocess.run([sys.executable, "-c", BASE], capture_output=True, text=True,
                                  env=dict(os.environ, PYTHONPATH=src)).stdout
            row[name] = {**run(src, c), "base_mb": round(float(base), 1)}
            if c["kind"] == "aware":
                row[name + "_warm"] = run(src, c, warm=True)
            print(cell, name, row[name], "plan", round(row["plan_" + name].get("seconds", -1), 2), flush=True)
        if "old" in row:
            row["same_output"] = row["old"].get("sha256") is not None and row["old"].get("sha256") == row["new"].get(
                "sha256")
        rows.append(row)
        _write(args, rows)
    _write(args, rows)


def _write(args, rows) -> None:
    record = {"host": os.uname().nodename, "cpus": os.cpu_count(),
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "command": "python benchmarks/plans_h71.py " + " ".join(sys.argv[1:]).replace("/work/base71/", "OLD/"),
              "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
