"""The exact errors of lattice~average at scale (k = 4 by the batched local search, k = 3 by lattice.search), and the
lattice release's pmf at one data set at k = 4: route, plan, answer, CPU seconds and peak memory per call.

Each call runs in its own process (its peak memory is its own), under the default limits unless the row says
otherwise; a refusal is recorded with its one line.  Prints a table and writes ``benchmarks/lattice_k4.json``.

    python benchmarks/lattice_k4.py [--out benchmarks/lattice_k4.json] [--only SUBSTRING] [--quick]

``--only`` merges its calls into ``--out`` (the other calls kept as they were measured).
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

#: (what, k, n, eps, extra environment): the errors of lattice~average under Dir(1, ..., 1)
ERRORS = [("errors", 4, n, eps, {}) for n in (10, 20, 50, 100) for eps in (0.5, 1.0, 2.0)]
ERRORS += [("errors", 3, n, eps, {}) for n in (300, 1000) for eps in (0.5, 1.0, 2.0)]
#: where the route runs within the default limits at k = 4 (larger eps), and past them (the plan's estimate against
#: the run)
ERRORS += [("errors", 4, n, 3.0, {}) for n in (20, 40)]
ERRORS += [("errors", 4, 20, 2.0, {"DPPOSTERIOR_MAX_SOLVE_SECONDS": "1e5"})]
#: one search per orbit (a symmetric prior): k = 4, n = 50 and 100 past the default solve limit
ERRORS += [("errors", 4, 50, 1.0, {"DPPOSTERIOR_MAX_SOLVE_SECONDS": "1e5"}),
           ("errors", 4, 100, 2.0, {"DPPOSTERIOR_MAX_SOLVE_SECONDS": "1e5"})]
#: (what, counts, eps, tol, extra environment): the pmf at one data set (arXiv draft Fig. 3c's c)
PMF = [("pmf", (25, 25, 25, 25), 1.0, 1e-5, {}), ("pmf", (25, 25, 25, 25), 1.0, 1e-9,
                                                   {"DPPOSTERIOR_MAX_SOLVE_SECONDS": "1e5"})]

CHILD = r"""
import json, resource, sys, time
import numpy as np
import dpposterior as dp
from dpposterior.errors import SizeError
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
row = json.loads(sys.argv[1])
spec = ReleaseSpec.of("lattice", row["eps"], objective="average")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t0 = time.process_time()
out = {}
try:
    if row["what"] == "errors":
        a = np.ones(row["k"])
        plan = spec.mechanism.plan(Task.ERRORS, spec, a, row["n"])
        out.update(route=plan.route, planned_seconds=plan.seconds, planned_bytes=plan.memory_bytes)
        e = dp.expected_errors(spec, a, row["n"])
        out.update(worst=e.worst, average=e.average, bracket=e.tail)
    else:
        c = np.asarray(row["counts"])
        out["planned_seconds"] = spec.mechanism.pmf_at_seconds(int(c.sum()), c.size, spec, row["tol"], counts=c)
        p, tail = spec.mechanism.pmf_at(np.ones(c.size), c, spec, tol=row["tol"])
        out.update(total=float(p.sum()), largest=float(p.max()), bracket=tail)
except SizeError as exc:
    out["refused"] = str(exc)
out.update(cpu_seconds=time.process_time() - t0,
           peak_growth_mb=(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base) / 1e6)
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "lattice_k4.json"))
    parser.add_argument("--only", default="", help="only the rows whose label holds this")
    parser.add_argument("--quick", action="store_true", help="k = 4 at n = 10 and the pmf at tol 1e-5 only")
    args = parser.parse_args(argv)
    rows = [{"what": w, "k": k, "n": n, "eps": e, "env": env} for w, k, n, e, env in ERRORS]
    rows += [{"what": w, "counts": list(c), "eps": e, "tol": t, "env": env} for w, c, e, t, env in PMF]
    if args.quick:
        rows = [r for r in rows if r.get("n") == 10 and r.get("k") == 4 or r.get("tol") == 1e-5]
    results = []
    for row in rows:
        label = (f"errors k={row['k']} n={row['n']} eps={row['eps']:g}" if row["what"] == "errors" else
                 f"pmf c={tuple(row['counts'])} eps={row['eps']:g} tol={row['tol']:g}")
        label += "".join(f", {key}={val}" for key, val in row["env"].items())
        if args.only not in label:
            continue
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), **row["env"])
        load = os.getloadavg()[0]
        proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(row)], env=env, capture_output=True, text=True)
        if proc.returncode:
            got = {"failed": (proc.stderr.strip().splitlines() or ["?"])[-1]}
        else:
            got = json.loads(proc.stdout.strip().splitlines()[-1])
        got = {"call": label, "load_before": round(load, 2), **got}
        results.append(got)
        if "refused" in got or "failed" in got:
            print(f"{label:<58} {got.get('refused', got.get('failed'))[:150]}", flush=True)
        elif row["what"] == "errors":
            print(f"{label:<58} {got['route']:<22} worst {got['worst']:.5f} average {got['average']:.5f} bracket "
                  f"{got['bracket']:.1e}  planned {got['planned_seconds']:.1f} s  CPU {got['cpu_seconds']:.1f} s  "
                  f"peak {got['peak_growth_mb']:.0f} MB", flush=True)
        else:
            print(f"{label:<58} sum {got['total']:.9f} largest {got['largest']:.5f} bracket {got['bracket']:.1e}  "
                  f"planned {got['planned_seconds']:.1f} s  CPU {got['cpu_seconds']:.1f} s  peak "
                  f"{got['peak_growth_mb']:.0f} MB", flush=True)
    if args.only and pathlib.Path(args.out).exists():  # the other calls as they were measured
        new = {r["call"] for r in results}
        results = [c for c in json.loads(pathlib.Path(args.out).read_text(encoding="utf-8"))["calls"]
                   if c["call"] not in new] + results
    out = {"date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "prior": "Dir(1, ..., 1)",
           "calls": results}
    pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
