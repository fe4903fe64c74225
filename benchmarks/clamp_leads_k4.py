"""The k = 4 local column's searches by orbits with clamp groups (``lattice.batched._orbit_search``: one certified
search a group of sorted pairs sharing ``(min(y, n), p)``; at exact shifts, one exact-step search a clamp group of
the points left) against the tree before, side by side: each cell's noise-aware column under each tree, one process
each, in turn.

    python benchmarks/clamp_leads_k4.py --old OLD/src --new src --out benchmarks/clamp_leads_k4.json \\
        0.75:3,3,3,21 0.5:3,3,3,11 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1) (k = the number of counts, n their sum), ``optimal``, average, the
solve limit raised (the plan is made first, as a command does).  Each row: the column's CPU s (``local_posterior``
alone), the process's CPU s and peak MiB, the searches' counts (orbits, clamp leads, points left and searched, the
rows' distinct clamp keys), and the SHA-256 of the column's posterior (its data sets, log-weights, count and bound):
the same bytes under both trees.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
import dpposterior.lattice.batched as B
eps, released = json.loads(sys.argv[1])
m = np.array(released, dtype=np.int64)
a, n = np.ones(m.size), int(m.sum())
searches, search0 = [], B.local_search_batch

def search(prior, n_, epsilon, Z, *args, **kw):
    from dpposterior.lattice.remap import project
    Z = np.asarray(Z, dtype=np.int64)
    # the distinct clamp keys (min(max(z, 0), n), project(z)) of the rows searched
    keys = len(np.unique(np.concatenate([np.minimum(np.maximum(Z, 0), n_), project(Z, n_)], axis=1), axis=0))
    st = {"keys": int(keys)}
    t0 = time.process_time()
    out = search0(prior, n_, epsilon, Z, *args, stats=st, **kw)
    searches.append({"cpu_seconds": round(time.process_time() - t0, 3), **st})
    return out

B.local_search_batch = search
spec = ReleaseSpec.of("optimal", eps, objective="average")
plan = spec.mechanism.plan(Task.POSTERIOR, spec, a, n)
t0 = time.process_time()
C, logw, count, bound = spec.mechanism.local_posterior(plan, a, n, spec, m)
cpu = time.process_time() - t0
h = hashlib.sha256(np.ascontiguousarray(C).tobytes() + np.ascontiguousarray(logw).tobytes()
                   + repr((count, bound)).encode()).hexdigest()
print(json.dumps({"column_cpu_s": round(cpu, 2), "searches": searches, "sha256": h}))
"""


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("cells", nargs="+", help="EPS:RELEASED, e.g. 0.75:3,3,3,21")
    args = ap.parse_args()
    rows = []
    for cell in args.cells:
        row = _side.old_and_new(cell, CHILD, args.old, args.new)
        row["same_output"] = _side.same_output(row["old"], row["new"])
        if "column_cpu_s" in row["old"] and "column_cpu_s" in row["new"]:
            row["new_over_old"] = round(row["new"]["column_cpu_s"] / max(row["old"]["column_cpu_s"], 1e-9), 3)
        rows.append(row)
        print(json.dumps({k: row[k] for k in ("cell", "same_output", "new_over_old") if k in row},),
              row["old"].get("column_cpu_s"), row["new"].get("column_cpu_s"), flush=True)
        _side.write(args.out, _side.record("benchmarks/clamp_leads_k4.py", rows, old=args.old))


if __name__ == "__main__":
    main()
