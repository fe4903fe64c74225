"""The k = 3 noise-aware plan's cells before and after (Dir(1,1,1), ``optimal``, the posterior at a public release:
what ``release --noise-aware`` and ``posterior --released`` plan), one tree's ``src`` against another's: per cell
``eps:n:objective`` the plan's seconds and whether it is admitted at the default limits, and the cells whose admission
moves.  Plans only (public inputs, no data, no run); each tree's plans in its own process, nice.

Example::

    python benchmarks/noise_aware_k3_cells_h81fx.py --old /work/base81/src --new src \\
        --out benchmarks/noise_aware_k3_cells_h81fx.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

EPS = (0.1, 0.2, 0.3, 0.5, 1.0, 2.0)
NS = (15, 100, 1000, 10_000, 100_000, 1_000_000)
PLANS = (
    "import json, sys, time, numpy as np; from dpposterior.limits import Task; from dpposterior.mechanisms import "
    "ReleaseSpec\nout = {}\nfor cell in sys.argv[1:]:\n    eps, n, obj = cell.split(':')\n    t = time.process_time()\n"
    "    s = ReleaseSpec.of('optimal', float(eps), objective=obj)\n    try:\n"
    "        p = s.mechanism.plan(Task.POSTERIOR, s, np.ones(3), int(n))\n"
    "        out[cell] = dict(seconds=p.seconds, refused=p.refused()[:160], plan_cpu_s=round(time.process_time() - t, 2))\n"
    "    except Exception as e:\n        out[cell] = dict(seconds=None, refused='error: ' + str(e)[:160])\n"
    "    print(cell, out[cell], file=sys.stderr, flush=True)\nprint(json.dumps(out))\n")


def plans(src: str, cells: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    proc = subprocess.run(["nice", "-n", "5", sys.executable, "-c", PLANS, *cells], capture_output=True, text=True,
                          env=env, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="the base tree's src")
    ap.add_argument("--new", required=True, help="this tree's src")
    ap.add_argument("--out", required=True, help="the JSON file written")
    ap.add_argument("--eps", default=",".join(map(str, EPS)))
    ap.add_argument("--n", default=",".join(map(str, NS)))
    a = ap.parse_args()
    cells = [f"{e}:{n}:{o}" for e in a.eps.split(",") for n in a.n.split(",") for o in ("average", "worst")]
    load = os.getloadavg()[0]
    old, new = plans(a.old, cells), plans(a.new, cells)
    rows = []
    for c in cells:
        o, w = old[c], new[c]
        row = dict(cell=c, old_s=o["seconds"], new_s=w["seconds"], old_admitted=not o["refused"],
                   new_admitted=not w["refused"], new_refused=w["refused"], new_plan_cpu_s=w.get("plan_cpu_s"))
        rows.append(row)
    print(f"{'cell':<22}{'old s':>10}{'new s':>10}  old -> new")
    for r in rows:
        fmt = (lambda x: f"{x:10.1f}" if isinstance(x, float) else f"{'-':>10}")
        move = "" if r["old_admitted"] == r["new_admitted"] else ("  REOPENED" if r["new_admitted"] else "  CLOSED")
        print(f"{r['cell']:<22}{fmt(r['old_s'])}{fmt(r['new_s'])}  {'A' if r['old_admitted'] else 'R'} -> "
              f"{'A' if r['new_admitted'] else 'R'}{move}")
    with open(a.out, "w") as f:
        json.dump({"command": "python " + " ".join(sys.argv), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "load_before": load, "load_after": os.getloadavg()[0], "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
