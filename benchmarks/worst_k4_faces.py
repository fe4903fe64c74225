"""The face table of the lattice release at k = 4 (``lattice.faces_any``): its exact worst case at Dir(1,1,1,1), eps,
n against ``lattice (average)``'s (the rest it starts from) and against what ``compare`` prints on another tree (the
best worst-case row and the yardstick's worst bound, from ``benchmarks/worst_k4_grid.py --src OLD/src``'s JSON).

Each n runs in its own process (CPU seconds and peak memory of the child, ``os.wait4``); recorded: the plans
(``lattice~average``'s errors, :func:`~dpposterior.lattice.faces_any.plan_face_any`) against each part's CPU s, the
LP's ``t``, the release's worst case (upper end) and where, and with ``--old`` the bracket old (the best row over the
bound) and new (the better of that row and the face release, over the same bound).

    python benchmarks/worst_k4_faces.py --n 30,50,100 --eps 1 [--old OLD_GRID.json] [--out F]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def one(n: int, eps: float) -> dict:
    import numpy as np

    from dpposterior.lattice import faces_any
    from dpposterior.mechanisms import LATTICE, ReleaseSpec
    from dpposterior.mechanisms.lattice import LOCAL_ERROR_TOL, _radius

    a = np.ones(4)
    We = _radius(4, eps, LOCAL_ERROR_TOL)
    spec = ReleaseSpec.of("lattice", eps, objective="average")
    rest_plan = LATTICE.plan_errors(a, n, spec)
    face_plan = faces_any.plan_face_any(n, 4, eps, We)
    stats: dict = {}
    t = time.process_time()
    remap, B = faces_any.face_release_errors(a, n, eps, We, max_fallback=LATTICE._batched_fallback(
        n, 4, spec, True, True), stats=stats)
    cpu = time.process_time() - t
    E = B.high
    i = int(np.argmax(E))
    return {"n": n, "epsilon": eps, "We": We, "worst": float(E[i]), "at": B.counts[i].tolist(),
            "rest_worst": stats["rest_worst"], "lp_t": remap.certificate["lp"],
            "lp": {k: v for k, v in remap.certificate.items() if k != "lp"},
            "planned": {"rest (lattice~average's errors)": round(rest_plan.seconds, 1),
                        "face table (solve + differences)": round(face_plan.seconds, 1),
                        "face_memory_mb": round(face_plan.memory_bytes / 2**20)},
            "run_cpu": {k: round(stats[k], 1) for k in ("rest", "solve", "differences")} | {"total": round(cpu, 1)}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", default="30,50,100")
    p.add_argument("--eps", default="1")
    p.add_argument("--old", default="")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "worst_k4_faces.json"))
    p.add_argument("--one", nargs=2, default=None)
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(int(args.one[0]), float(args.one[1]))))
        return
    old = {}
    if args.old:
        for row in json.loads(pathlib.Path(args.old).read_text())["calls"]:
            old[(row["n"], row["epsilon"])] = row
    calls = []
    for eps in map(float, args.eps.split(",")):
        for n in map(int, args.n.split(",")):
            load = os.getloadavg()[0]
            proc = subprocess.Popen([sys.executable, __file__, "--one", str(n), str(eps)], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env=os.environ | {"PYTHONPATH": str(ROOT / "src")})
            _, status, usage = os.wait4(proc.pid, 0)
            out, err = proc.stdout.read(), proc.stderr.read()
            if status:
                calls.append({"n": n, "epsilon": eps, "error": err.strip().splitlines()[-1:]})
                continue
            row = json.loads(out)
            row["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 1)
            row["peak_mb"] = round(usage.ru_maxrss / 1024)
            row["load_before"] = round(load, 2)
            o = old.get((n, eps))
            if o and o.get("bound"):
                row["old"] = {"best": o["worst"], "row": o["first_worst"], "bound": o["bound"],
                              "ratio": round(o["worst"] / o["bound"], 4), "compare_cpu_seconds": o["cpu_seconds"]}
                best = min(o["worst"], row["worst"])
                row["new"] = {"best": best, "row": "face table" if row["worst"] < o["worst"] else o["first_worst"],
                              "bound": o["bound"], "ratio": round(best / o["bound"], 4)}
            calls.append(row)
            print(json.dumps(row), flush=True)
    doc = {"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
           "command": "python " + " ".join(sys.argv[0:1] + [a for a in sys.argv[1:]]), "results": calls}
    pathlib.Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
