"""Where the k = 4 worst cases sit at Dir(1,1,1,1), n, eps: per release (``lattice (average)``, the corner table
alone, the corner and edge tables by orbits), the largest exact error (upper end) by distance to the nearest vertex
(n - max c), edge (the two smaller counts' sum) and face (the smallest count), and each one's error at the others'
worst data sets.  Prints JSON (docs/lattice.md, "The edge table by orbits"; benchmarks/worst_k4_where.json).

    python benchmarks/worst_k4_where.py 20 1
"""
import json
import sys
import time

import numpy as np

from dpposterior.lattice import corners_any
from dpposterior.mechanisms import LATTICE, ReleaseSpec
from dpposterior.mechanisms.lattice import LOCAL_ERROR_TOL, _radius

n, eps = int(sys.argv[1]), float(sys.argv[2])
a = np.ones(4)
out = {}
def groups(counts, E):
    s = np.sort(counts, axis=1)
    g = {}
    for name, d in (("vertex", n - s[:, 3]), ("edge", s[:, 0] + s[:, 1]), ("face", s[:, 0])):
        g[name] = {int(x): round(float(E[d == x].max()), 5) for x in np.unique(d)}
    i = int(np.argmax(E))
    return {"worst": round(float(E[i]), 5), "at": counts[i].tolist(), "by": g}
t = time.process_time()
spec = ReleaseSpec.of("lattice", eps, objective="average")
plan = LATTICE.plan_errors(a, n, spec)
B = LATTICE.direct_errors(plan, a, n, spec)
AVG = "lattice (average)"
out[AVG] = groups(B.counts, B.high)
out[AVG]["cpu"] = round(time.process_time() - t, 1)
avg = dict(zip(map(tuple, B.counts.tolist()), B.high))
for name, kw in (("corner table alone (d46c8aa's lattice (worst))", dict(edges=False)),
                 ("corner + edge tables by orbits (this branch's lattice (worst))", dict(edges=True, orbits=True))):
    t = time.process_time()
    R = corners_any.corner_remap_any(a, n, eps, **kw)
    C = corners_any.corner_errors_any(R, _radius(4, eps, LOCAL_ERROR_TOL))
    out[name] = groups(C.counts, C.high)
    out[name]["lp_t"] = round(R.certificate["lp"], 5)
    out[name]["cpu"] = round(time.process_time() - t, 1)
    out[name]["average_at_its_worst"] = round(float(avg[tuple(out[name]["at"])]), 5)
    e = dict(zip(map(tuple, C.counts.tolist()), C.high))
    out[AVG].setdefault("others_at_its_worst", {})[name] = round(float(e[tuple(out[AVG]["at"])]), 5)
print(json.dumps(out, indent=1))
