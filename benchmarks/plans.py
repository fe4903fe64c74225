"""Planned against measured: the seconds and memory a plan states, and what its route then takes.

For a grid of calls of the exact expected errors (every route of :meth:`dpposterior.mechanisms.Mechanism.plan_errors`:
dense rows, the remap risk at k = 2, the linear program, the window and local remaps of the lattice release, the
translation routes), each call runs in its own process (so its peak memory is its own) and reports its plan and its
CPU seconds and peak resident memory; this prints the table and writes ``benchmarks/plans.json`` with the rates the
plans used (``PAIRS_PER_SECOND`` and the routes' constants).  ``tests/library/test_plans.py`` holds the rates to that
file, as the README's timings are held to ``benchmarks/timings.json``: a rate changed without measuring again fails.

    python benchmarks/plans.py [--out benchmarks/plans.json] [--quick]

The aim (the plans' docstrings): each estimate within 2x of the measured CPU seconds either way where the call takes
a second or more (below that a process's own start-up dominates), and the memory estimate above the measured peak's
growth.  The machine may be shared: the load averages are recorded beside the numbers.
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

#: (mechanism, objective or None, k, n, eps): one call per route and size class
GRID = [
    ("lshist", None, 2, 2000, 1.0),
    ("ehds", None, 2, 1000, 1.0),
    ("geometric", None, 2, 100000, 1.0),
    ("optimal", "average", 2, 20000, 0.1),
    ("optimal", "worst", 2, 5000, 1.0),
    ("optimal", "worst", 2, 15000, 1.0),
    ("optimal", "worst", 3, 6, 1.0),
    ("lattice", "worst", 3, 8, 1.0),
    ("lattice", "worst", 3, 20, 1.0),
    ("lattice", "worst", 3, 20, 2.0),
    ("lattice", "worst", 4, 3, 1.0),
    ("lattice", "average", 3, 20, 1.0),
    ("lattice", "average", 3, 300, 1.0),
    ("lattice", "average", 3, 1000, 1.0),
    ("geometric", None, 3, 1000, 1.0),
    ("lsdim", None, 3, 1000, 1.0),
    ("geometric", None, 4, 100, 1.0),
    ("lattice", "average", 4, 20, 3.0),
    ("lattice", "average", 4, 10, 1.0),
    ("lattice", "average", 4, 20, 1.0),
    ("lattice", "worst", 4, 100, 2.0),
]
QUICK = [row for row in GRID if row[3] <= 300 and row[2] <= 3]

#: runs one call in a child process and prints its plan and what it took, as JSON
CHILD = r"""
import json, resource, sys, time
import numpy as np
import dpposterior as dp
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
mech, objective, k, n, eps = json.loads(sys.argv[1])
spec = ReleaseSpec.of(mech, eps, **({"objective": objective} if objective else {}))
a = np.ones(k)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t0 = time.process_time()  # the plan is part of the call (optimal's may solve its LP to see whether it runs)
plan = spec.mechanism.plan(Task.ERRORS, spec, a, n)
e = dp.expected_errors(spec, a, n)
cpu = time.process_time() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"route": plan.route, "planned_seconds": plan.seconds, "planned_bytes": plan.memory_bytes,
                  "cpu_seconds": cpu, "peak_growth_bytes": peak - base, "worst": e.worst}))
"""


def rates() -> dict:
    """The measured constants the plans use (their values now)."""
    from dpposterior.lattice import scale
    from dpposterior.mechanisms import base, lattice, optimal

    return {"PAIRS_PER_SECOND": base.PAIRS_PER_SECOND, "EVALUATIONS_PER_SECOND": scale.EVALUATIONS_PER_SECOND,
            "FACTOR_EVALUATIONS_PER_SECOND": scale.FACTOR_EVALUATIONS_PER_SECOND,
            "FACTOR_K3_EVALUATIONS_PER_SECOND": scale.FACTOR_K3_EVALUATIONS_PER_SECOND,
            "LOCAL_SEARCH_SECONDS": list(lattice.LOCAL_SEARCH_SECONDS), "LOCAL_SUM_SECONDS": lattice.LOCAL_SUM_SECONDS,
            "BATCH_SECONDS": list(lattice.BATCH_SECONDS), "GROUP_SECONDS": list(lattice.GROUP_SECONDS),
            "TIE_SHARE": lattice.TIE_SHARE, "ONE_POINT_SECONDS": list(lattice.ONE_POINT_SECONDS),
            "FACE_TAIL": lattice.FACE_TAIL, "FACE_FACTOR": lattice.FACE_FACTOR,
            "DENSE_SECONDS": list(lattice.DENSE_SECONDS), "MINIMAX_SECONDS": list(lattice.MINIMAX_SECONDS),
            "REMAP_SECONDS_PER_N2": dict(optimal.REMAP_SECONDS_PER_N2), "MINIMAX_BYTES": lattice.MINIMAX_BYTES,
            "RISK_PER_SECOND": base.RISK_PER_SECOND, "RISK_BYTES": base.RISK_BYTES,
            "LP_SECONDS_PER_SIZE2": optimal.LP_SECONDS_PER_SIZE2}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "plans.json"))
    parser.add_argument("--quick", action="store_true", help="only the calls of a few seconds")
    parser.add_argument("--only", default="", help="only the calls whose label holds this, merged into --out (the "
                        "other calls kept as they were measured; the rates written are today's)")
    args = parser.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    rows = []
    print(f"{'call':<34} {'route':<22} {'planned s':>9} {'CPU s':>7} {'ratio':>6} {'planned MB':>10} {'peak MB':>8}")
    for mech, objective, k, n, eps in QUICK if args.quick else GRID:
        call = f"{mech}{'~' + objective if objective else ''} k={k} n={n} eps={eps:g}"
        if args.only not in call:
            continue
        load = os.getloadavg()[0]
        proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps([mech, objective, k, n, eps])], env=env,
                              capture_output=True, text=True)
        if proc.returncode:
            print(f"{call:<34} refused: {proc.stderr.strip().splitlines()[-1][:120]}")
            rows.append({"call": call, "refused": proc.stderr.strip().splitlines()[-1]})
            continue
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        ratio = got["planned_seconds"] / max(got["cpu_seconds"], 1e-9)
        print(f"{call:<34} {got['route']:<22} {got['planned_seconds']:9.2f} {got['cpu_seconds']:7.2f} {ratio:6.2f} "
              f"{got['planned_bytes'] / 1e6:10.0f} {got['peak_growth_bytes'] / 1e6:8.0f}", flush=True)
        rows.append({"call": call, "load_before": round(load, 2), **got})
    if args.only:  # the other calls as they were measured
        kept = json.loads(pathlib.Path(args.out).read_text(encoding="utf-8"))["calls"]
        new = {row["call"] for row in rows}
        rows = [c for c in kept if c["call"] not in new] + rows
    out = {"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
           "max_rss_unit": "bytes (ru_maxrss x 1024)", "rates": rates(), "calls": rows}
    pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
