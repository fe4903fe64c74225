"""``release --noise-aware`` plans at k = 4 where ``optimal``'s LP over a coarser lattice of outputs may run
(Dir(1,1,1,1), ``worst``, eps 0.25 to 0.75, n = 12 to 22), in two trees side by side: the posterior's and the draw's
route, seconds and whether refused (public inputs only; nothing drawn).

    python benchmarks/noise_aware_k4_plans_coarse.py --old OLD/src --new src \\
        --out benchmarks/noise_aware_k4_plans_coarse.json

Each tree's plans are computed in a process of its own (``PYTHONPATH`` that tree's ``src``) at the default limits.
``optimal`` decides whether it is the lattice release by solving its LP (a solver failure sends it there); here that
is taken from the planned route alone (``lp_route``), so no LP is solved: a cell is admitted when the draw's plan is
and either its posterior's local route is or the release is an LP table (route ``"none"``: the exact sum over its
rows)."""
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
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import optimal as O
O.OptimalMechanism.uses_lattice = (lambda self, prior, n, spec: len(prior) >= 3
                                   and self.lp_route(n, len(prior), spec, prior) is None)
out = []
for eps in (0.25, 0.3, 0.37, 0.45, 0.5, 0.6, 0.75):
    for n in range(12, 23):
        spec = ReleaseSpec.of("optimal", eps, objective="worst")
        m = spec.mechanism
        post, draw = m.plan(Task.POSTERIOR, spec, np.ones(4), n), m.plan(Task.DRAW, spec, np.ones(4), n)
        table = not m.uses_lattice(np.ones(4), n, spec)
        out.append({"epsilon": eps, "n": n, "release": m.lp_route(n, 4, spec, np.ones(4)) if table else "lattice",
                    "posterior_route": post.route, "posterior_s": round(float(post.seconds), 2),
                    "draw_s": round(float(draw.seconds), 2),
                    "admitted": not draw.refused() and (table or not post.refused())})
print(json.dumps(out))
"""


def plans(src: str) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    res = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def main() -> None:
    args = _side.parser(__doc__).parse_args()
    rows = [{"epsilon": o["epsilon"], "n": o["n"], "old": o, "new": w, "changed": o["admitted"] != w["admitted"]}
            for o, w in zip(plans(args.old), plans(args.new))]
    rec = _side.record("benchmarks/noise_aware_k4_plans_coarse.py", rows, args.old)
    rec["command"] = rec["command"].replace(args.new, "src").replace(args.out, "OUT")
    _side.write(args.out, rec)
    for r in rows:
        o, w = r["old"], r["new"]
        print(f"eps {r['epsilon']:g} n {r['n']:>3}  old {o['release']:8} {'ok' if o['admitted'] else 'REFUSED':7}  "
              f"new {w['release']:8} {'ok' if w['admitted'] else 'REFUSED':7}{'  changed' if r['changed'] else ''}")


if __name__ == "__main__":
    main()
