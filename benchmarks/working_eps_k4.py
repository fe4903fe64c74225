"""The k = 4 lattice release at its working eps (``mechanisms.lattice.working_epsilon``: eps floored to ``num / 2^j``,
``num < 2^20``, so that every shift of a clamp group is exact) against the tree before, which ran at eps itself: each
cell's noise-aware column under each tree, one process each, in turn, at the same claimed eps.

    python benchmarks/working_eps_k4.py --old OLD/src --new src --out benchmarks/working_eps_k4.json \\
        0.4:5,5,5,5 0.4:2,2,2,14 0.6:5,5,5,5 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1) (k = the number of counts, n their sum), ``optimal``, average, the
solve limit raised (the plan is made first, as a command does).  Each row: the plan's solve seconds, the column's
CPU s (``local_posterior`` alone), the process's CPU s and peak MiB, the eps the column ran at, and the posterior's
means (sum over the column's data sets of its weights times the counts).  The outputs are not the same bytes (the old
tree's release is the one at eps, the new tree's at the working eps, smaller by under 1e-6): ``mean_gap`` is the
largest difference of the two posteriors' means, in counts.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = r"""
import json, sys, time
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
import dpposterior.mechanisms.lattice as L
eps, released = json.loads(sys.argv[1])
m = np.array(released, dtype=np.int64)
a, n = np.ones(m.size), int(m.sum())
seen = set()
radius = L.radius_for

def radius_for(k, epsilon, tol):
    seen.add(float(epsilon))
    return radius(k, epsilon, tol)

L.radius_for = radius_for
spec = ReleaseSpec.of("optimal", eps, objective="average")
seen.clear()
plan = spec.mechanism.plan(Task.POSTERIOR, spec, a, n)
t0 = time.process_time()
C, logw, count, bound = spec.mechanism.local_posterior(plan, a, n, spec, m)
cpu = time.process_time() - t0
w = np.exp(logw - logw.max())
mean = (w[:, None] * C).sum(axis=0) / w.sum()
print(json.dumps({"column_cpu_s": round(cpu, 2), "plan_solve_s": round(dict(plan.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"], 1),
                  "ran_at_eps": sorted(seen), "posterior_mean": [float(x) for x in mean], "data_sets": int(len(C))}))
"""


def _mean_gap(old: dict, new: dict) -> dict:
    """The largest difference of the two posteriors' means, in counts."""
    return {"mean_gap": max(abs(x - y) for x, y in zip(old["posterior_mean"], new["posterior_mean"], strict=True))}


if __name__ == "__main__":
    _side.column_cells(__doc__, CHILD, "benchmarks/working_eps_k4.py", _mean_gap)
