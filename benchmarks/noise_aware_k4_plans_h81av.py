"""The k = 4 noise-aware plan (``release --noise-aware``, optimal, Dir(1,1,1,1)) at a grid of cells in two trees side
by side: route, seconds, the seconds held to the solve limit, and the refusal line (public inputs only; nothing run).

    python benchmarks/noise_aware_k4_plans_h81av.py --old OLD/src --new src --out benchmarks/noise_aware_k4_plans_h81av.json

Each tree's plans are computed in a process of its own (``PYTHONPATH`` that tree's ``src``), with the default limits
(``refusal``: the plan's one-line refusal under them, empty where admitted), and the CPU seconds the plan itself took
(the family's samples are part of it)."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CELLS = ([(eps, n, obj) for obj in ("average", "worst") for eps in (2.0, 3.0) for n in (100, 200, 217, 300, 400, 511, 512,
                                                                                   600, 1000, 3000, 10_000)]
         + [(eps, n, obj) for obj in ("average", "worst") for eps in (1.25, 1.5) for n in (300, 500, 1000, 3000)]
         + [(1.0, n, obj) for obj in ("average", "worst") for n in (51, 60, 100, 300, 436, 1000)])

CHILD = r"""
import json, sys, time
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
out = []
for eps, n, obj in json.loads(sys.argv[1]):
    spec = ReleaseSpec.of("optimal", eps, objective=obj)
    t = time.process_time()
    p = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), n)
    out.append({"epsilon": eps, "n": n, "objective": obj, "route": p.route, "seconds": round(float(p.seconds), 2),
                "limited": round(max([float(v) for name, v in p.costs
                                      if name == "DPPOSTERIOR_MAX_SOLVE_SECONDS"] or [0.0]), 2),
                "refusal": p.refused(), "plan_cpu": round(time.process_time() - t, 2)})
print(json.dumps(out))
"""


def plans(src: str) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    res = subprocess.run(["nice", "-n", "5", sys.executable, "-c", CHILD, json.dumps(CELLS)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    old, new = plans(args.old), plans(args.new)
    rows = []
    for o, w in zip(old, new):
        rows.append({"epsilon": o["epsilon"], "n": o["n"], "objective": o["objective"], "old": o, "new": w,
                     "changed": bool(o["refusal"]) != bool(w["refusal"])})
    with open(args.out, "w") as f:
        json.dump({"command": " ".join(["noise_aware_k4_plans_h81av.py"] + sys.argv[1:]), "rows": rows}, f, indent=1)
    for r in rows:
        o, w = r["old"], r["new"]
        print(f"eps {r['epsilon']:g} n {r['n']:>6} {r['objective']:7}  old {o['limited']:8.2f} "
              f"{'REFUSED' if o['refusal'] else 'ok':7}  new {w['limited']:8.2f} {'REFUSED' if w['refusal'] else 'ok':7}"
              f"  plan {w['plan_cpu']:.2f}s")


if __name__ == "__main__":
    main()
