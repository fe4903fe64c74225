"""The noise-aware plans of two trees side by side, at the default solve limit and with it raised to 1e5: each
plan's route, seconds, bytes, costs (``repr``, so bit for bit), refusal, ``at_least`` and the CPU seconds it took,
each tree and limit in its own process (``PYTHONPATH`` that tree's ``src``).

    python benchmarks/plan_stops_side_by_side.py --old OLD/src --new src --out benchmarks/plan_stops_side_by_side.json

A plan that stops over the limit (``Plan.at_least``) states a lower end, so only its refusal is compared; every other
plan must be the same in both trees.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys

CELLS = [(3, "average", 0.1, 300), (3, "worst", 0.15, 250), (3, "average", 0.3, 600), (3, "average", 1.0, 300),
         (3, "worst", 0.5, 1000), (3, "average", 0.12, 90), (3, "average", 0.2, 1000), (3, "worst", 0.1, 500),
         (4, "average", 1.0, 51), (4, "average", 2.0, 100), (4, "worst", 1.0, 30), (3, "average", 0.25, 10000),
         (3, "average", 0.12, 1600)]

CHILD = r"""
import json, sys, time
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
for k, obj, eps, n in json.loads(sys.argv[1]):
    t = time.process_time()
    spec = ReleaseSpec.of("optimal", eps, objective=obj)
    p = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(k), n)
    print(json.dumps({"cell": [k, obj, eps, n], "route": p.route, "seconds": repr(float(p.seconds)),
                      "bytes": repr(float(p.memory_bytes)), "costs": [repr(float(a)) for _, a in p.costs],
                      "refused": p.refused(), "at_least": bool(getattr(p, "at_least", False)),
                      "cpu_seconds": round(time.process_time() - t, 2)}), flush=True)
"""


def plans(src: str, limit: str) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src), DPPOSTERIOR_MAX_SOLVE_SECONDS=limit)
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(CELLS)], env=env, capture_output=True, text=True,
                         check=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rows, differ = {}, []
    for limit in ("45", "1e5"):
        for name, src in (("old", args.old), ("new", args.new)):
            rows[f"{name}@{limit}"] = plans(src, limit)
        for o, w in zip(rows[f"old@{limit}"], rows[f"new@{limit}"], strict=True):
            keys = ("route", "refused") if (o["at_least"] or w["at_least"]) else ("route", "seconds", "bytes", "costs",
                                                                                    "refused")
            if any(o[x] != w[x] for x in keys if not (x == "refused" and w["at_least"])):
                differ.append({"limit": limit, "cell": o["cell"], "old": o, "new": w})
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"command": " ".join(["python"] + sys.argv), "date": datetime.date.today().isoformat(),
                   "differ": differ, "plans": rows}, f, indent=1)
        f.write("\n")
    print(f"{len(differ)} plans differ")
    for lim in ("45", "1e5"):
        for o, w in zip(rows[f"old@{lim}"], rows[f"new@{lim}"], strict=True):
            print(lim, o["cell"], o["cpu_seconds"], "->", w["cpu_seconds"], "s", "at least" if w["at_least"] else "")


if __name__ == "__main__":
    main()
