"""The batched local search's tables over the offsets ``|v_i| <= n`` of their ball (``lattice.batched._Sums``: where the
batch radius exceeds n, the others are off R(n) at every output) against the tree before, which read the whole ball:
each cell's noise-aware column under each tree, one process each, in turn.

    python benchmarks/batched_ball_k4.py --old OLD/src --new src --out benchmarks/batched_ball_k4.json \\
        0.4:5,5,5,5 0.4:2,2,2,14 0.3:3,3,3,3 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1) (k = the number of counts, n their sum), ``optimal``, average, the
solve limit raised (the plan is made first, as a command does).  Each row: the plan's solve seconds, the column's
CPU s (``local_posterior`` alone), the process's CPU s and peak MiB, and the SHA-256 of the column (its data sets and
log-weights): the same bytes on both sides (``same``), since every output of the search is the one-point search's.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = _side.CELL_PRELUDE + r"""
t0 = time.process_time()
C, logw, count, bound = spec.mechanism.local_posterior(plan, a, n, spec, m)
cpu = time.process_time() - t0
sha = hashlib.sha256(np.ascontiguousarray(C, dtype=np.int64).tobytes()
                     + np.ascontiguousarray(logw, dtype=np.float64).tobytes()).hexdigest()
print(json.dumps({"column_cpu_s": round(cpu, 2), "plan_solve_s": round(dict(plan.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"], 1),
                  "route": plan.route, "sha256": sha, "data_sets": int(len(C))}))
"""


if __name__ == "__main__":
    _side.column_cells(__doc__, CHILD, "benchmarks/batched_ball_k4.py",
                       lambda old, new: {"same": _side.same_output(old, new)})
