"""Where the k = 4 noise-aware posterior (``optimal``, ``average``, Dir(1,1,1,1)) is admitted at the default limits:
each eps's n scanned and the admitted n written as ranges (the README's table of where it runs).

    python benchmarks/k4_average_edges.py --out benchmarks/k4_average_edges.json

Public inputs only; no column is run.  ``SCANS``: eps, first n, last n, step.  ``--only EPS ...`` rescans the rows
of those eps and keeps the others as the file ``--out`` holds them, if it exists (each row carries the date it was
scanned).  ``--objective worst`` scans the worst case's posterior instead (each row names its objective):

    python benchmarks/k4_average_edges.py --objective worst --only 0.6 0.75 --out benchmarks/k4_worst_edges.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time

import numpy as np

from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec

SCANS = [(0.25, 10, 30, 1), (0.3, 10, 30, 1), (0.35, 10, 30, 1), (0.38, 10, 30, 1), (0.4, 10, 30, 1), (0.45, 10, 35, 1),
         (0.5, 10, 40, 1), (0.6, 10, 40, 1), (0.75, 10, 60, 1), (0.8, 10, 60, 1), (0.85, 10, 60, 1),
         (0.9, 10, 60, 1), (0.95, 10, 60, 1),
         (1.0, 10, 100, 1), (1.0, 101, 200, 1), (1.25, 10, 120, 1), (1.5, 10, 200, 1),
         (1.75, 150, 700, 1), (2.0, 150, 700, 1), (2.0, 702, 1200, 2), (2.25, 300, 900, 2), (2.5, 300, 900, 2),
         (2.75, 2500, 5000, 25), (2.25, 1000, 10000, 100), (2.5, 1000, 10000, 100), (2.75, 5100, 10000, 100)]


def ranges(ns: list[int], step: int = 1) -> str:
    """The n of a scan as runs of consecutive scanned n: ``"10 to 54, 60"`` (every ``step``-th n where ``step > 1``)."""
    out, start = [], None
    for i, n in enumerate(ns):
        if start is None:
            start = n
        if i + 1 == len(ns) or ns[i + 1] != n + step:
            out.append(f"{start}" if start == n else f"{start} to {n}" + (f" (every {step})" if step > 1 else ""))
            start = None
    return ", ".join(out) or "none"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", type=float, nargs="+", help="rescan these eps only")
    ap.add_argument("--objective", choices=("average", "worst"), default="average")
    args = ap.parse_args()
    os.environ.pop("DPPOSTERIOR_MAX_SOLVE_SECONDS", None)
    kept, note = {}, {}
    if args.only and os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            before = json.load(f)
        kept = {(r["epsilon"], *r["scanned"]): {"date": before["date"], **r} for r in before["rows"]}
        note = {"note": before["note"]} if "note" in before else {}
    rows = []
    for eps, lo, hi, step in SCANS:
        if args.only and eps not in args.only:
            if (eps, lo, hi, step) in kept:
                rows.append(kept[eps, lo, hi, step])
            continue
        spec = ReleaseSpec.of("optimal", eps, objective=args.objective)
        admitted, refused, t = [], [], time.process_time()
        for n in range(lo, hi + 1, step):
            plan = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(4), n)
            (refused if plan.refused() else admitted).append(n)
        row = {"epsilon": eps, **({"objective": args.objective} if args.objective != "average" else {}),
               "scanned": [lo, hi, step], "admitted": ranges(admitted, step),
               "refused": ranges(refused, step), "cpu_seconds": round(time.process_time() - t, 1),
               "date": datetime.date.today().isoformat()}
        rows.append(row)
        print(json.dumps(row), flush=True)
        write(args.out, rows, note)
    write(args.out, rows, note)


def write(path: str, rows: list[dict], note: dict) -> None:
    """The rows so far (after every scan, so a stopped run keeps what it scanned), with the command and date."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"command": "python " + " ".join(sys.argv), "date": datetime.date.today().isoformat(),
                   **note, "rows": rows}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
