"""``compare``'s plans alone (no row or bound computed): each row's route, planned seconds and left-out line
(``ranking.plan_compare``), the seconds the rows leave, and the yardstick's block plans in that share
(``yardstick.plan_blocks`` as ``ranking.compare_yardstick`` calls it, with a start release unless ``--no-start``), at
Dir(1,...,1).
Run it on two trees to see which rows a refitted plan moves.

    PYTHONPATH=SRC python benchmarks/compare_plans.py --out FILE 4:20:0.5 4:40:1 ...

Each cell is ``K:N:EPS``.  Writes ``--out`` (one object per cell).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from dpposterior.limits import limit_setting
from dpposterior.ranking import plan_compare, rows_seconds
from dpposterior.yardstick import marginal_bound, marginal_seconds, plan_blocks


def cell(k: int, n: int, eps: float, start: bool = True) -> dict:
    a = np.ones(k)
    plans = plan_compare(a, n, eps)
    rows = [{"row": r.variant.label, "route": r.plan.route if r.plan else None,
             "seconds": round(r.plan.seconds, 2) if r.plan else None, "left_out": r.left_out,
             "same_as": r.same_as} for r in plans]
    left = limit_setting("DPPOSTERIOR_MAX_COMPARE_SECONDS") - rows_seconds(plans) - marginal_seconds(a, n, eps)
    blocks = plan_blocks(a, n, eps, max(0.0, left) / 2, start=start, floor=marginal_bound(a, n, eps).average,
                         whole=True, weighted=True)
    return {"cell": f"{k}:{n}:{eps:g}", "start": start, "rows": rows, "rows_seconds": round(rows_seconds(plans), 2),
            "left": round(left, 2),
            "blocks": {key: {"route": p.route, "seconds": round(p.seconds, 2), "refusal": p.refusal}
                       for key, (p, _) in blocks.items()}}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--no-start", action="store_true", help="plan the blocks as where no start release was computed")
    p.add_argument("cells", nargs="+", metavar="K:N:EPS")
    args = p.parse_args(argv)
    out = []
    for c in args.cells:
        k, n, eps = c.split(":")
        out.append(cell(int(k), int(n), float(eps), not args.no_start))
        print(json.dumps({"cell": out[-1]["cell"], "rows_seconds": out[-1]["rows_seconds"]}), flush=True)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
