"""The k = 4 worst release's noise-aware column where ``n <= Dc`` (``LatticeMechanism._corner_column_any``) split
into the terms of its plan (``_small_corner_column_plan``): each cell in its own process, the solve limit raised (the
plan made first, as a command does), the column (``local_posterior``) run once with three of its calls timed: the
corner remap's solve (``_corner``), the one-point searches (``_one_point_searches``: their count too) and the search
filter; the rest (the reach region enumerated, looked up and projected, its projections made distinct, the column's
sum) is what ``small_corner_point_seconds`` stands for, so ``rest_us_a_point`` is the rest over the region's points.

    python benchmarks/small_corner_parts_k4.py --out benchmarks/small_corner_parts_k4.json 0.5:17,1,1,1 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1), ``optimal``, worst.  Each row: CPU s of the column, of each timed call
and of the rest, the region's points and the rest a point, next to the plan's terms (the corner solve's
``corner_seconds``, the searches' ``small_corner_search_seconds`` at every data set of R(n), the region's
``small_corner_point_seconds`` a point) and the seconds the plan holds to the solve limit.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

PARTS_RUN = r"""
from dpposterior.lattice import column as C
from dpposterior.mechanisms import lattice as L
spent = {"corner": 0.0, "search": 0.0, "filter": 0.0, "points": 0}


def timed(module, name, key, count=False):
    inner = getattr(module, name)

    def call(*args, **kwargs):
        t = time.process_time()
        out = inner(*args, **kwargs)
        spent[key] += time.process_time() - t
        if count:
            spent["points"] += len(args[3])
        return out
    setattr(module, name, call)


timed(L, "_corner", "corner")
timed(L, "_one_point_searches", "search", count=True)
timed(C, "search_filter", "filter")
held = max(s for name, s in plan.costs if name == "DPPOSTERIOR_MAX_SOLVE_SECONDS")
t0 = time.process_time()
spec.mechanism.local_posterior(plan, a, n, spec, m)
cpu = time.process_time() - t0
k = m.size
w = L.working_epsilon(eps, k)
W, Dc = L.LATTICE.column_radius(n, k, w), L._radius(k, w, 1e-12)
region = min(float(C.reach_size(k, Dc)), float(L._window_size(n, k, W)))
rows = float(L.n_candidates(n, k))
rest = cpu - spent["corner"] - spent["search"] - spent["filter"]
print(json.dumps({"route": plan.route, "cpu_seconds": round(cpu, 2), "corner_s": round(spent["corner"], 2),
                  "search_s": round(spent["search"], 2), "searches": spent["points"],
                  "filter_s": round(spent["filter"], 2), "rest_s": round(rest, 2), "region_points": int(region),
                  "rest_us_a_point": round(1e6 * rest / region, 3),
                  "planned_corner_s": round(L.corner_seconds(n, k, w, L.symmetric_corners(a)), 2),
                  "planned_search_s": round(L.small_corner_search_seconds(rows, n, k, w), 2),
                  "planned_rest_s": round(region * L.small_corner_point_seconds(w), 2),
                  "planned_limited_seconds": round(held, 2)}))
"""

CHILD = _side.WORST_CELL_PRELUDE + PARTS_RUN

if __name__ == "__main__":
    _side.released_cells(__doc__, CHILD)
