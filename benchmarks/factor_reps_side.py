"""The factor route at the orbit route's representatives (k = 4), two trees side by side: CPU seconds and the floats.

    python benchmarks/factor_reps_side.py --old OLD/src --new src --out benchmarks/factor_reps_h65.json \\
        lszhang:100:0.5 geometric:100:0.5 lszhang:100:1

Each cell ``MECH:N:EPS`` runs, at Dir(1,1,1,1) with that mechanism's noise law and the offsets and bracket of its
orbit plan (the new tree's ``translation_plan``, from public k, n and eps), the base route of
``clamped_errors_by_orbits`` over the representatives (the data sets whose first three counts are sorted), as each
tree calls it (the old tree: in lexicographic order; the new: ordered by the second count, ``no_room=True``), once per
tree, each in its own process under ``nice`` (``PYTHONPATH`` that tree's ``src``).  CPU seconds: the call alone
(``time.process_time``); ``sha256``: of the values put back in lexicographic order (float64 bytes);
``max_abs_diff``: the new values against the old tree's of the same cell; the load before each.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = r"""
import hashlib, inspect, json, sys, time
import numpy as np
from dpposterior.lattice import scale as S
from dpposterior.models import candidates
from dpposterior.mechanisms import ReleaseSpec
name, n, eps, save = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
k = 4
mech = ReleaseSpec.of(name, eps).mechanism
route, tol, work, seconds = mech.translation_plan(n, k, eps, prior=np.ones(k))
inner = S.orbit_tol(k, tol, "factors")
lp = mech._log_point(k, eps, inner)
R = candidates(n, k)
U = R[np.all(np.diff(R[:, : k - 1], axis=1) <= 0, axis=1)]
new = "no_room" in inspect.signature(S.clamped_errors_by_factors).parameters
by = np.lexsort((U[:, 2], U[:, 0], U[:, 1])) if new else np.arange(len(U))
t0 = time.process_time()
b = S.clamped_errors_by_factors(np.ones(k), n, lp, inner, counts=U[by], **({"no_room": True} if new else {}))
cpu = time.process_time() - t0
low = np.empty_like(b.low)
low[by] = b.low
np.save(save, low)
print(json.dumps(dict(route=route, bracket=tol, planned_route_seconds=round(seconds, 1), cpu_seconds=round(cpu, 2),
                      representatives=len(U), offsets=b.offsets, products=b.offsets * len(U), tail=b.tail,
                      sha256=hashlib.sha256(low.tobytes()).hexdigest()[:16])))
"""


def main(argv=None) -> None:
    p = _side.parser(__doc__)
    p.add_argument("--trees", default="new,old", help="which trees run, in this order")
    p.add_argument("cells", nargs="+", metavar="MECH:N:EPS")
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for cell in args.cells:
            name, n, eps = cell.split(":")
            saved = {}
            for tree in args.trees.split(","):
                env = dict(os.environ, PYTHONPATH=os.path.abspath(getattr(args, tree)))
                load = os.getloadavg()[0]
                saved[tree] = os.path.join(tmp, f"{tree}.npy")
                out = subprocess.run(["nice", sys.executable, "-c", CHILD, name, n, eps, saved[tree]], env=env,
                                     check=True, capture_output=True, text=True).stdout
                rows.append(dict(tree=tree, mechanism=name, n=int(n), epsilon=float(eps), load_before=round(load, 1))
                            | json.loads(out))
            if {"old", "new"} <= saved.keys():
                import numpy as np
                diff = float(np.abs(np.load(saved["new"]) - np.load(saved["old"])).max())
                for r in rows[-2:]:
                    r["max_abs_diff"] = diff
            for r in rows[-len(saved):]:
                print(json.dumps(r), flush=True)
            with open(args.out, "w", encoding="utf-8") as f:
                json.dump(dict(when=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                               argv=sys.argv[1:], calls=rows), f, indent=1)


if __name__ == "__main__":
    main()
