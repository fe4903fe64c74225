"""``compare``'s yardstick plans at Dir(1,1,1,1) on two trees, plan only (no bound run): each block plan's route, depth
or size, seconds and bytes, as ``ranking.compare_yardstick`` plans them (a start release; ``baseline`` where the cell
is marked ``b``: no lattice or optimal row fits, ``lszhang`` starts the average).  Shows which cells a refitted plan
moves.

    python benchmarks/corner_refit_plans.py --old OLD/src --new src --out benchmarks/corner_refit_plans.json \\
        4:100:0.5:b 4:20:0.5 ...
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = r"""
import json, sys
import numpy as np
from dpposterior.limits import limit_setting
from dpposterior.ranking import plan_compare, rows_seconds
from dpposterior.yardstick import marginal_bound, marginal_seconds, plan_blocks
out = []
for cell in sys.argv[1:]:
    k, n, eps, *mark = cell.split(":")
    k, n, eps = int(k), int(n), float(eps)
    a = np.ones(k)
    plans = plan_compare(a, n, eps)
    left = limit_setting("DPPOSTERIOR_MAX_COMPARE_SECONDS") - rows_seconds(plans) - marginal_seconds(a, n, eps)
    blocks = plan_blocks(a, n, eps, max(0.0, left) / 2, start=True, floor=marginal_bound(a, n, eps).average,
                         whole=True, weighted=True, baseline=mark == ["b"], deeper=True)
    out.append({"cell": cell, "left": round(left, 2), "blocks": {
        key: {"fits": p.fits, "route": p.route, "size": list(size) if isinstance(size, tuple) else size,
              "seconds": round(p.seconds, 2), "bytes": round(p.memory_bytes)} for key, (p, size) in blocks.items()}})
print(json.dumps(out))
"""


def main(argv=None) -> None:
    p = _side.parser(__doc__)
    p.add_argument("cells", nargs="+")
    args = p.parse_args(argv)
    trees = {}
    for name in ("old", "new"):
        env = dict(os.environ, PYTHONPATH=os.path.abspath(getattr(args, name)))
        trees[name] = json.loads(subprocess.run([sys.executable, "-c", CHILD, *args.cells], env=env, check=True,
                                                capture_output=True, text=True).stdout)
    rows = []
    for old, new in zip(trees["old"], trees["new"]):
        moved = sorted(key for key in set(old["blocks"]) | set(new["blocks"])
                       if {**old["blocks"].get(key, {}), "seconds": 0, "bytes": 0, "route": ""}
                       != {**new["blocks"].get(key, {}), "seconds": 0, "bytes": 0, "route": ""})
        rows.append({"cell": old["cell"], "old": old, "new": new, "moved": moved})
        print(old["cell"], "moved:", moved or "none")
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"what": __doc__.splitlines()[0], "rows": rows}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
