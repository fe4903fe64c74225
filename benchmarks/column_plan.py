"""The average yardstick's plan (:func:`dpposterior.lattice.yardstick.plan_flow`) against its run: for each
(prior, n, eps, share) the planned route and seconds, then :func:`~dpposterior.lattice.yardstick.flow_bound` and
:func:`~dpposterior.lattice.yardstick.column_bound` at the planned sizes, each timed by ``time.process_time`` in this
process; the bound, and the load.  Writes ``benchmarks/column_plan.json`` (or ``--out``).

    python benchmarks/column_plan.py [--points 4:20:1:30,4:10:1:30,3:100:0.5:30] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main() -> None:
    from dpposterior.lattice import yardstick as Y

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", default="4:20:1:30,4:10:1:30,3:100:0.5:30")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "column_plan.json"))
    args = ap.parse_args()
    rows = []
    for point in args.points.split(","):
        k, n, eps, share = point.split(":")
        prior, n, eps, share = (1.0,) * int(k), int(n), float(eps), float(share)
        plan, (radius, steps, cradius, csteps) = Y.plan_flow(prior, n, eps, share)
        t = time.process_time()
        flows = Y.flow_bound(prior, n, eps, radius=radius, steps=steps)
        t_flows = time.process_time() - t
        t = time.process_time()
        bound = Y.column_bound(prior, n, eps, flows.mu, radius=cradius, steps=csteps) if csteps else flows
        t_columns = time.process_time() - t
        row = {"k": int(k), "n": n, "epsilon": eps, "share_s": share, "route": plan.route,
               "planned_s": round(plan.seconds, 2), "flows_cpu_s": round(t_flows, 2),
               "columns_cpu_s": round(t_columns, 2), "run_cpu_s": round(t_flows + t_columns, 2),
               "run_over_planned": round((t_flows + t_columns) / plan.seconds, 2),
               "bound": round(float(bound.average), 6), "load": os.getloadavg()[0]}
        print(json.dumps(row), flush=True)
        rows.append(row)
    out = {"when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "cpus": os.cpu_count(), "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
