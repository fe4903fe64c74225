"""The k = 4 class route's lead searches (the noise-aware column at small eps, ``_group_outputs_m``): one one-point
search a lead against the batched search by orbits over the same leads, side by side in one process a cell.

    python benchmarks/class_orbits_k4.py --out benchmarks/class_orbits_k4.json 0.3:5,4,4,4 0.25:1,1,1,14 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1) (k = the number of counts, n their sum), run at its working eps.  Each
row: the classes, groups (leads) and lone parts, the grouping's CPU s, each search's CPU s, whether their outputs are
equal at every lead, and the price of the leads' searches (``class_search_seconds`` one a lead, and by orbits), each
run over its price, and whether the column runs them by orbits there (``class_orbits``).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = _side.CLASSES_PRELUDE + r"""
from dpposterior.lattice.remap import local_bayes_search
from dpposterior.lattice.batched import local_search_batch
pts = np.concatenate([Z[lead], Z[group < 0]])
t3 = time.process_time()
one = np.array([local_bayes_search(a, n, w, z) for z in pts])
t4 = time.process_time()
stats = {}
orb = local_search_batch(a, n, w, pts, orbits=True, stats=stats)
t5 = time.process_time()
row = {"working_epsilon": w, "classes": len(Z), "leads": int(len(lead)), "alone": int((group < 0).sum()),
       "orbits": stats.get("orbits"), "left": stats.get("left"), "enumerate_cpu_s": round(t1 - t0, 2),
       "grouping_cpu_s": round(t2 - t1, 2), "one_point_cpu_s": round(t4 - t3, 2), "orbits_cpu_s": round(t5 - t4, 2),
       "equal": bool(np.array_equal(one, orb)), "orbits_over_one_point": round((t5 - t4) / max(t4 - t3, 1e-9), 3)}
price = L.class_search_seconds(len(pts), n, k)
row["price_one_point"] = round(price, 2)
row["one_point_over_price"] = round((t4 - t3) / price, 3)
p2 = L.class_search_seconds(len(pts), n, k, orbits=True)
row["price_orbits"] = round(p2, 2)
row["orbits_over_price"] = round((t5 - t4) / p2, 3)
row["runs_by_orbits"] = L.class_orbits(a, len(pts), n, k)
print(json.dumps(row))
"""

if __name__ == "__main__":
    _side.released_cells(__doc__, CHILD)
