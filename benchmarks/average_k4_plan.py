"""The k = 4 average route's plan against its runs: ``lattice~average``'s exact errors at Dir(1,1,1,1) by the batched
local search by orbits (``local_search_batch(..., orbits=True)`` over ``window(n, 4, W)``, then
``window_errors_any``), each point in its own process.

For each (n, eps): the window's size, the search's counts (orbits, points searched again, near ties: the rows that
took an exact step), its CPU seconds and the offset sum's (``time.process_time`` of the child), and the plan of this
tree (:func:`dpposterior.mechanisms.lattice.orbit_seconds`: the search, its near ties, both by
:data:`~dpposterior.mechanisms.lattice.ORBIT_EXACT_SECONDS` where ``exact_fit``, else the terms times
:func:`~dpposterior.mechanisms.lattice.exact_shift_factor` at Dir(1,1,1,1) and a working eps; the sum; the near ties'
planned count :func:`~dpposterior.mechanisms.lattice.tie_orbit_share` x the plan's positive parts).  eps is taken as
given: pass a working eps (0.25, 0.5, 0.75, 1, 1.5, 2, ...).  Writes
``benchmarks/average_k4_plan.json`` (or ``--out``); the machine may be shared: the load is recorded per point.

    python benchmarks/average_k4_plan.py [--points 10:1,20:1,30:1,50:1,20:2,50:2,3:0.5,10:0.5] [--out FILE]
        [--search-only]

The search's two phases are timed apart (``certified_cpu``: the certified searches, one a clamp group's lead;
``left_cpu``: the points of the uncertified orbits, with their exact steps).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, sys, time
from dpposterior.mechanisms import lattice as L
from dpposterior.lattice.batched import local_search_batch, window_errors_any
from dpposterior.lattice.noise import window
n, eps = int(sys.argv[1]), float(sys.argv[2])
a = (1.0,) * 4
W = L._radius(4, eps, L.LOCAL_ERROR_TOL)
Z = window(n, 4, W)
from dpposterior.lattice import batched
load = os.getloadavg()[0]
# the search's two phases timed apart: the certified searches (one a clamp group's lead) and the points of the
# uncertified orbits (exact steps)
phases = {"certified_cpu": 0.0, "left_cpu": 0.0}
inner = batched._search


def timed(*args, **kw):
    t = time.process_time()
    got = inner(*args, **kw)
    phases["certified_cpu" if kw.get("certified") else "left_cpu"] += time.process_time() - t
    return got


batched._search = timed
st = {}
t0 = time.process_time()
out = local_search_batch(a, n, eps, Z, orbits=True, stats=st)
t1 = time.process_time()
batched._search = inner
sums = sys.argv[3] == "1"  # the offset sum too (its R(n)-wide form, not the route's sum by orbits past its cells)
br = window_errors_any(a, n, eps, out, W) if sums else None
t2 = time.process_time()
print(json.dumps(dict(n=n, epsilon=eps, W=W, window=len(Z), stats=st, search_cpu=round(t1 - t0, 2),
                      **{key: round(v, 2) for key, v in phases.items()},
                      sum_cpu=round(t2 - t1, 2) if sums else None,
                      average_low=float(br.low.mean()) if sums else None, load_before=round(load, 2))))
"""


def planned(n: int, eps: float) -> dict:
    """This tree's plan of the route at (n, eps): the search (its orbits, its near ties), the sum, the near ties."""
    from dpposterior.mechanisms import lattice as L

    W = L._radius(4, eps, L.LOCAL_ERROR_TOL)
    exact = L.exact_shifts((1.0,) * 4, eps)
    searched, ties = L.orbit_seconds(n, 4, eps, W, exact)
    parts = L.offwindow_parts(n, 4, W) + L.low_count_points(n, 4)
    total = L.LOCAL_SUM_SECONDS * L.n_candidates(n, 4) * L.ball_size(4, eps, L.LOCAL_ERROR_TOL)
    return {"plan_search": round(searched, 2), "plan_ties": round(ties, 2), "plan_sum": round(total, 2),
            "parts": int(parts), "plan_tie_count": round(L.tie_orbit_share(n, eps) * parts), "exact_shifts": exact,
            "plan_factor": L.exact_shift_factor(eps, exact), "exact_fit": L.orbit_exact_fit(4, eps, exact)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", default="10:1,20:1,30:1,50:1,20:2,50:2,3:0.5,10:0.5")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "average_k4_plan.json"))
    parser.add_argument("--search-only", action="store_true", help="time the search alone (no offset sum)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    rows = []
    for point in args.points.split(","):
        n, eps = int(point.split(":")[0]), float(point.split(":")[1])
        got = json.loads(subprocess.run([sys.executable, "-c", CHILD, str(n), str(eps),
                                         "0" if args.search_only else "1"], env=env, check=True,
                                        capture_output=True, text=True).stdout)
        got.update(planned(n, eps))
        got["fallback"] = got["stats"].get("fallback")
        got["plan_over_run"] = round((got["plan_search"] + got["plan_ties"]) / max(got["search_cpu"], 1e-9), 2)
        print(json.dumps(got))
        rows.append(got)
    pathlib.Path(args.out).write_text(json.dumps({"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
                                                  "points": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
