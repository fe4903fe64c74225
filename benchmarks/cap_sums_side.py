"""``lattice.scale.clamp_cap_sums`` of two trees side by side: CPU seconds and the SHA-256 of its floats.

    python benchmarks/cap_sums_side.py --old OLD/src --new src --out benchmarks/cap_sums_h64.json \\
        30:0.5 50:0.5 100:2 100:0.5

Each cell ``N:EPS`` runs, at Dir(1,1,1,1) with ``lszhang``'s noise law and the offsets and bracket of its orbit plan
(the new tree's ``translation_plan``, from public k, n and eps), the cap sums over every data set of R(n) with
``c_k`` below the layout's largest bound (what ``clamped_errors_by_orbits`` passes), once per tree, each in its own
process under ``nice`` (``PYTHONPATH`` that tree's ``src``).  CPU seconds: the call alone (``time.process_time``),
the layout built before; ``sha256``: of the float64 bytes (the same digest: the same floats); the load before each.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
from dpposterior.lattice import scale as S
from dpposterior.models import candidates
from dpposterior.mechanisms import ReleaseSpec
n, eps, route, tol = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], float(sys.argv[4])
k = 4
mech = ReleaseSpec.of("lszhang", eps).mechanism
inner = S.orbit_tol(k, tol, route)
lp = mech._log_point(k, eps, inner)
offs, w, _ = S.clamp_offsets(lp, k, inner, S.FACTOR_STEP if route == "factors" else 1.0)
layout = S._orbit_layout(n, k, offs, w)
R = candidates(n, k)
near = R[R[:, k - 1] < max(b for *_, b in layout)]
t0 = time.process_time()
cap = S.clamp_cap_sums(np.ones(k), n, offs, w, near, layout)
cpu = time.process_time() - t0
print(json.dumps(dict(cpu_seconds=round(cpu, 2), rows=len(near), prefixes=len(layout), offsets=len(offs),
                      sha256=hashlib.sha256(np.ascontiguousarray(cap, dtype=np.float64).tobytes()).hexdigest()[:16])))
"""

PLAN = r"""
import json, sys
import numpy as np
from dpposterior.mechanisms import ReleaseSpec
n, eps = int(sys.argv[1]), float(sys.argv[2])
route, tol, work, seconds = ReleaseSpec.of("lszhang", eps).mechanism.translation_plan(n, 4, eps, prior=np.ones(4))
print(json.dumps([route, tol, seconds]))
"""


def main(argv=None) -> None:
    p = _side.parser(__doc__)
    p.add_argument("--trees", default="new,old", help="which trees run, in this order")
    p.add_argument("cells", nargs="+", metavar="N:EPS")
    args = p.parse_args(argv)
    rows = []
    for cell in args.cells:
        n, eps = cell.split(":")
        env_new = dict(os.environ, PYTHONPATH=os.path.abspath(args.new))
        route, tol, planned = json.loads(subprocess.run([sys.executable, "-c", PLAN, n, eps], env=env_new, check=True,
                                                        capture_output=True, text=True).stdout)
        base = route[len("orbits ("):-1] if route.startswith("orbits (") else "factors"
        for tree in args.trees.split(","):
            env = dict(os.environ, PYTHONPATH=os.path.abspath(getattr(args, tree)))
            load = os.getloadavg()[0]
            out = subprocess.run(["nice", sys.executable, "-c", CHILD, n, eps, base, str(tol)], env=env, check=True,
                                 capture_output=True, text=True).stdout
            rec = dict(tree=tree, n=int(n), epsilon=float(eps), route=route, bracket=tol,
                       planned_route_seconds_new=round(planned, 1), load_before=round(load, 1)) | json.loads(out)
            rows.append(rec)
            print(json.dumps(rec), flush=True)
            with open(args.out, "w", encoding="utf-8") as f:
                json.dump(dict(when=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                               argv=sys.argv[1:], calls=rows), f, indent=1)


if __name__ == "__main__":
    main()
