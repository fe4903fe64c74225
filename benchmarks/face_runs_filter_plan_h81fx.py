"""The k = 3 runs next to a face, a vertex and at the centre with the exact descent filter (the whole ``posterior
--released`` process, made by ``benchmarks/face_runs_h78na3.py``, its JSON files given) beside the plan of each cell
before (``--old``: the plan that priced every point before the filter) and after (``--new``: what the filter keeps
plus its own cost), both with the limit raised; plans only, each tree's in its own process (nice).  Writes one JSON:
``runs`` (each run with ``plan_before_s``, ``plan_after_s``, ``after_over_run``), and the commands.

Example::

    python benchmarks/face_runs_filter_plan_h81fx.py --old /work/base81/src --new src \\
        --out benchmarks/face_runs_filter_plan_h81fx.json runs1.json runs2.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from noise_aware_k3_cells_h81fx import plans  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("runs", nargs="+", help="JSON files of face_runs_h78na3.py")
    a = ap.parse_args()
    runs, commands = [], []
    for path in a.runs:
        d = json.load(open(path))
        commands.append(d["command"])
        runs += d["rows"]
    cells = sorted({f"{r['eps']}:{r['n']}:{r['objective']}" for r in runs})
    os.environ["DPPOSTERIOR_MAX_SOLVE_SECONDS"] = "1e6"
    load = os.getloadavg()[0]
    old, new = plans(a.old, cells), plans(a.new, cells)
    for r in runs:
        c = f"{r['eps']}:{r['n']}:{r['objective']}"
        r.pop("plan_s", None)  # the plan of the tree at run time (superseded by the two below)
        r.update(plan_before_s=old[c]["seconds"], plan_after_s=new[c]["seconds"],
                 after_over_run=round(new[c]["seconds"] / r["cpu_s"], 2))
        print(f"{c:<22}{r['released']:<24}{r['cpu_s']:8.2f} s (load {r['load']:.1f})  plan before "
              f"{old[c]['seconds']:8.1f}  after {new[c]['seconds']:8.1f}  ({r['after_over_run']}x)"
              + ("  stopped at the cap" if r["stopped_at_cap"] else ""))
    with open(a.out, "w") as f:
        json.dump({"command": "python " + " ".join(sys.argv), "run_commands": commands,
                   "plans_load": load, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "runs": runs},
                  f, indent=1)


if __name__ == "__main__":
    main()
