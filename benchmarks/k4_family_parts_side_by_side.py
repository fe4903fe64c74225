"""The k = 4 noise-aware plans (optimal, Dir(1,1,1,1)) of two trees side by side over a grid of eps and n: each plan's
route, seconds held to the solve limit, refusal and the CPU seconds it took; each tree in its own process
(``PYTHONPATH`` that tree's ``src``), both at the default limits.

    python benchmarks/k4_family_parts_side_by_side.py --old OLD/src --new src \
        --out benchmarks/k4_family_parts_side_by_side.json

Public inputs only; no column is run.  Prints the cells whose admission differs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CELLS = ([("average", 0.75, n) for n in (20, 30, 36, 50, 80)]
         + [("average", 1.0, n) for n in (20, 30, 38, 42, 46, 50, 54, 58, 62, 66, 70, 80, 100)]
         + [("average", 1.25, n) for n in (30, 42, 50, 54, 58, 62, 66, 80)]
         + [("average", 1.5, n) for n in (30, 50, 58, 63, 70, 80, 100, 150, 200, 291)]
         + [("average", 2.0, n) for n in (50, 100, 219, 300, 511)]
         + [("average", 3.0, n) for n in (100, 300, 1000)]
         + [("worst", 1.0, n) for n in (30, 50, 66, 100)] + [("worst", 2.0, n) for n in (100, 300)])

CHILD = r"""
import json, sys, time
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
for obj, eps, n in json.loads(sys.argv[1]):
    t = time.process_time()
    spec = ReleaseSpec.of("optimal", eps, objective=obj)
    p = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), n)
    print(json.dumps({"cell": [obj, eps, n], "route": p.route,
                      "limited_s": round(max([float(a) for _, a in p.costs] or [0.0]), 2),
                      "refused": p.refused(), "cpu_seconds": round(time.process_time() - t, 2)}), flush=True)
"""


def plans(src: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    env.pop("DPPOSTERIOR_MAX_SOLVE_SECONDS", None)
    return subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(CELLS)], env=env, stdout=subprocess.PIPE,
                            text=True)


def main() -> None:
    args = _side.parser(__doc__).parse_args()
    procs = {name: plans(src) for name, src in (("old", args.old), ("new", args.new))}
    got = {}
    for name, p in procs.items():
        out, _ = p.communicate()
        if p.returncode:
            sys.exit(f"the {name} tree's plans failed (exit {p.returncode})")
        got[name] = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    rows, differ = [], []
    for o, w in zip(got["old"], got["new"], strict=True):
        row = {"cell": o["cell"], "old": {x: o[x] for x in ("route", "limited_s", "refused", "cpu_seconds")},
               "new": {x: w[x] for x in ("route", "limited_s", "refused", "cpu_seconds")}}
        rows.append(row)
        if bool(o["refused"]) != bool(w["refused"]):
            differ.append(row)
            print(f"{o['cell']}: old {'refused' if o['refused'] else 'admitted'} ({o['limited_s']} s), "
                  f"new {'refused' if w['refused'] else 'admitted'} ({w['limited_s']} s)")
    print(f"{len(differ)} of {len(rows)} cells change admission")
    _side.write(args.out, _side.record("benchmarks/k4_family_parts_side_by_side.py", rows, old=args.old))


if __name__ == "__main__":
    main()
