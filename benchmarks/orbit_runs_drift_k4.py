"""The k = 4 local column's searches by orbits: the runs ``COLUMN_ORBIT_SECONDS`` was fitted on against the same
releases run again by today's tree, and each run over the check's price at its counts without clamp groups.

    python benchmarks/orbit_runs_drift_k4.py --out benchmarks/orbit_runs_drift_k4.json

Reads the fitted runs (``orbit_price_k4.RUNS``) and ``benchmarks/orbit_check_k4_remeasured.json`` (the same cells by
``orbit_check_k4.py``, one release at a time, each in its own process), pairs them by eps and counts, and writes per
release: the searches' CPU s then and now, their ratio, the price ``column_orbit_seconds(parts, orbits, n, k, eps,
faces)`` at the counts the check recorded (no clamp groups: the features the fit used) and each run over it, and the
plan the run was made under.  Nothing is refitted: the price's features leave out the clamp groups that the check
prices below eps 1, so a fit on these runs is not a price of what runs there.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib

import numpy as np
from orbit_price_k4 import RUNS

from dpposterior.mechanisms import lattice as L

HERE = pathlib.Path(__file__).resolve().parent
NOW = HERE / "orbit_check_k4_remeasured.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    then = {(r["epsilon"], tuple(r["released"])): r for path in RUNS for r in json.loads(path.read_text())["runs"]}
    rows = []
    for r in json.loads(NOW.read_text())["runs"]:
        old = then.get((r["epsilon"], tuple(r["released"])))
        if old is None or not r["searches"] or not old["searches"] or not r["checks"]:
            continue
        c = r["checks"][0]
        eps, n = float(r["epsilon"]), int(sum(r["released"]))
        price = L.column_orbit_seconds(c["points"], c["orbits"], n, len(r["released"]), eps, c["faces"])
        now_s, then_s = r["searches"][0]["cpu_seconds"], old["searches"][0]["cpu_seconds"]
        rows.append({"epsilon": eps, "released": r["released"], "parts": c["points"], "orbits": c["orbits"],
                     "then_cpu_seconds": then_s, "now_cpu_seconds": now_s, "now_over_then": round(now_s / then_s, 3),
                     "price_unclamped": round(price, 2), "now_over_price": round(now_s / price, 3),
                     "planned_seconds": r["planned_seconds"], "column_cpu_seconds": r["cpu_seconds"],
                     "load_before": r["load_before"]})
    for row in sorted(rows, key=lambda x: (x["epsilon"], x["released"])):
        print(f"eps {row['epsilon']:<5g} {str(tuple(row['released'])):<22} then {row['then_cpu_seconds']:6.2f} s  now "
              f"{row['now_cpu_seconds']:6.2f} s ({row['now_over_then']:.2f})  price {row['price_unclamped']:6.2f} "
              f"({row['now_over_price']:.2f})  plan {row['planned_seconds']:6.2f}  column {row['column_cpu_seconds']:6.2f}")
    ratio = np.array([row["now_over_then"] for row in rows])
    over = np.array([row["now_over_price"] for row in rows])
    low = np.array([row["epsilon"] < 1 for row in rows])
    summary = {"releases": len(rows), "now_over_then_median": round(float(np.median(ratio)), 3),
               "now_over_then_range_from_eps_1": [round(float(ratio[~low].min()), 3), round(float(ratio[~low].max()), 3)],
               "now_over_then_range_below_eps_1": [round(float(ratio[low].min()), 3), round(float(ratio[low].max()), 3)],
               "now_over_price_range_from_eps_1": [round(float(over[~low].min()), 3), round(float(over[~low].max()), 3)],
               "now_over_price_range_below_eps_1": [round(float(over[low].min()), 3), round(float(over[low].max()), 3)]}
    print(json.dumps(summary))
    out = {"what": __doc__.splitlines()[0], "date": datetime.date.today().isoformat(),
           "command": "python benchmarks/orbit_runs_drift_k4.py --out " + args.out, **summary, "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
