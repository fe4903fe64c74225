"""The k = 4 worst release's errors at Dir(1,1,1,1), n, eps by their parts, in CPU seconds of this process: the table
(``corner_remap_any(..., edges=True, orbits=True)``: the corner and edge tables by orbits), the rest's search over R(n)
(``rest_window_outputs``), the offset sum (``batched.window_errors_any``) and the whole ``corner_errors_any`` (the
tables' rows: by their differences on this tree, recomputed on bdd7c18), with the worst case and where it sits.  Run it
with ``PYTHONPATH=<tree>/src`` for each tree, one after the other (docs/lattice.md, "The errors by the tables'
differences"; ``benchmarks/worst_k4_deltas.json``).

    python benchmarks/worst_k4_deltas.py N EPS [--save LOW.npy]
"""

import argparse
import json
import resource
import time

import numpy as np

from dpposterior.lattice import corners_any as ca
from dpposterior.lattice.batched import window_errors_any
from dpposterior.mechanisms.lattice import LOCAL_ERROR_TOL, _radius

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("n", type=int)
parser.add_argument("eps", type=float)
parser.add_argument("--save", default=None, help="write the errors' low ends (.npy) to compare two trees")
args = parser.parse_args()
n, eps = args.n, args.eps
a = np.ones(4)
out = {"n": n, "eps": eps}
We = _radius(4, eps, LOCAL_ERROR_TOL)
t = time.process_time()
R = ca.corner_remap_any(a, n, eps, edges=True, orbits=True)
out["solve"] = round(time.process_time() - t, 1)
out["lp_t"] = R.certificate["lp"]
t = time.process_time()
Zw, rest = ca.rest_window_outputs(a, n, eps, We)
out["rest_search"] = round(time.process_time() - t, 1)
t = time.process_time()
window_errors_any(a, n, eps, rest, We)
out["offset_sum"] = round(time.process_time() - t, 1)
t = time.process_time()
C = ca.corner_errors_any(R, We)
out["errors"] = round(time.process_time() - t, 1)
i = int(np.argmax(C.high))
out.update(worst=float(C.high[i]), at=C.counts[i].tolist(),
           peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
if args.save:
    np.save(args.save, C.low)
print(json.dumps(out))
