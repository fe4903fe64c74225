"""The batched search's loss rows past the square Jensen table (``(n + 1)^2 > JENSEN_TABLE_ENTRIES``, n >= 512): read
from band tables (``lattice.batched._band_table``) against the tree before, which evaluated ``lgamma_jensen_gap`` per
call: each cell's noise-aware column under each tree, one process each, in turn.

    python benchmarks/band_tables_k4.py --old OLD/src --new src --out benchmarks/band_tables_k4.json \\
        2:107,499,393,1 2:0,334,333,333 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1) (k = the number of counts, n their sum), ``optimal``, average, the
solve limit raised (the plan is made first, as a command does).  Each row: the column's CPU s (``local_posterior``
alone), the CPU s of its searches by orbits (``local_search_batch``), the price the run's check reads for them
(``column_orbit_seconds``, its outermost calls during the run) and what it read (``checked``: the parts, their orbits,
those with a count at most 1, and the clamp groups' counts or null, a row a call), the process's CPU s
and peak MiB, and the SHA-256 of the column (its data sets and log-weights): the same bytes on both sides (``same``),
since each loss is the same float.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = _side.CELL_PRELUDE + r"""
import dpposterior.lattice.batched as B
import dpposterior.mechanisms.lattice as L
searches, priced, depth, checked = [0.0], [0.0], [0], []
price, batch = L.column_orbit_seconds, B.local_search_batch


def spy_price(*args, **kw):  # the outermost calls only (the clamp groups' price calls itself)
    depth[0] += 1
    try:
        out = price(*args, **kw)
    finally:
        depth[0] -= 1
    if depth[0] == 0:
        priced[0] += out
        checked.append([float(x) for x in args[:2]] + [float(args[5]) if len(args) > 5 else float(kw.get("faces", 0.0))]
                       + [[float(x) for x in kw["clamp"]] if kw.get("clamp") is not None else None])
    return out


def spy_batch(*args, **kw):
    t = time.process_time()
    out = batch(*args, **kw)
    searches[0] += time.process_time() - t
    return out


L.column_orbit_seconds, B.local_search_batch = spy_price, spy_batch
t0 = time.process_time()
C, logw, count, bound = spec.mechanism.local_posterior(plan, a, n, spec, m)
cpu = time.process_time() - t0
sha = hashlib.sha256(np.ascontiguousarray(C, dtype=np.int64).tobytes()
                     + np.ascontiguousarray(logw, dtype=np.float64).tobytes()).hexdigest()
print(json.dumps({"column_cpu_s": round(cpu, 2), "searches_cpu_s": round(searches[0], 2),
                  "searches_priced_s": round(priced[0], 2), "checked": checked,
                  "plan_solve_s": round(dict(plan.costs)["DPPOSTERIOR_MAX_SOLVE_SECONDS"], 1), "route": plan.route,
                  "sha256": sha, "data_sets": int(len(C))}))
"""


if __name__ == "__main__":
    _side.column_cells(__doc__, CHILD, "benchmarks/band_tables_k4.py",
                       lambda old, new: {"same": _side.same_output(old, new)})
