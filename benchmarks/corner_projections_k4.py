"""The k = 4 corner release's local column (``worst``) at public releases: its reach region built, its kept projections
searched by orbits, and what the plan and the run's checks price them at.

    python benchmarks/corner_projections_k4.py --out benchmarks/corner_projections_k4.json 1:300:family 1:1000:1,1,1,997

Each cell is ``EPS:N:RELEASE`` at Dir(1,1,1,1); ``RELEASE`` is counts (``1,50,99,150``), ``centre`` (the centre of
R(n)) or ``family`` (the centre and each release of ``cut_release_family``, the plan's family).  One process a
release.  Each row: the reach region (``reach_region``: its route and points by ``reach_build``, its CPU s, the price
``reach_build_seconds``), the kept projections (the region's projections off the corner and edge tables that
``search_filter`` keeps, as ``_corner_column_any`` keeps them) and their orbits (``orbit_count``), the CPU s of
``local_search_batch(..., orbits=True)`` over them, the price ``corner_projection_orbit_seconds`` at those counts,
and the plan's estimates of both counts at the release (``corner_release_counts``).  ``--column``: also the whole
noise-aware column at the release (``local_posterior``, the solve limit raised) against the plan's seconds held to
the limit, in its own process.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = r"""
import json, sys, time
import numpy as np
from dpposterior.lattice.batched import local_search_batch, orbit_count
from dpposterior.lattice.column import reach_build, reach_region, search_filter
from dpposterior.lattice.remap import project
from dpposterior.mechanisms import lattice as L
eps0, released = json.loads(sys.argv[1])
m = np.array(released, dtype=np.int64)
k, n, a = m.size, int(m.sum()), np.ones(m.size)
eps = L.working_epsilon(eps0, k)
W, Dc = L.LATTICE.column_radius(n, k, eps), L._radius(k, eps, 1e-12)
points, route, offsets = reach_build(n, k, m, Dc, W)
t0 = time.process_time()
Z = reach_region(n, k, m, Dc, W)
region_s = time.process_time() - t0
remap = L._corner(tuple(a.tolist()), n, eps)
Zoff = Z[(remap.rows(Z) < 0) & (remap.edge_rows(Z)[0] < 0)]
uniq = L._unique_rows(project(Zoff, n))[0]
U = uniq[search_filter(a, n, eps, m, uniq, Dc)]
orbits = orbit_count(U, n)
t1 = time.process_time()
local_search_batch(a, n, eps, U, orbits=True)
search_s = time.process_time() - t1
est_points, est_orbits = L.corner_release_counts(tuple(a.tolist()), n, eps, Dc, W, m)
print(json.dumps({"route": route, "points_built": int(points), "offsets": int(offsets),
                  "region_cpu_s": round(region_s, 2), "region_priced_s": round(L.reach_build_seconds(n, k, m, Dc, W), 2),
                  "projections": int(len(U)), "orbits": int(orbits), "search_cpu_s": round(search_s, 2),
                  "search_priced_s": round(L.corner_projection_orbit_seconds(len(U), orbits, eps), 2),
                  "estimated_projections": round(est_points), "estimated_orbits": round(est_orbits)}))
"""


def _releases(eps: float, n: int, what: str) -> list[list[int]]:
    from dpposterior.mechanisms import lattice as L

    k = 4
    c0 = [n // k + (1 if i < n - k * (n // k) else 0) for i in range(k)]
    if what == "centre":
        return [c0]
    if what == "family":
        return [c0] + [[int(x) for x in r] for r in L.cut_release_family(n, k, L.working_epsilon(eps, k))]
    return [[int(x) for x in what.split(",")]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the JSON file written")
    ap.add_argument("--column", action="store_true", help="also the whole noise-aware column at each release")
    ap.add_argument("cells", nargs="+", help="EPS:N:RELEASE (counts, centre or family)")
    args = ap.parse_args()
    rows = []
    env = dict(os.environ, DPPOSTERIOR_MAX_SOLVE_SECONDS="100000")
    for cell in args.cells:
        eps, n, what = cell.split(":")
        for released in _releases(float(eps), int(n), what):
            row: dict = {"epsilon": float(eps), "n": int(n), "released": released,
                         "load": round(os.getloadavg()[0], 2)}
            out = subprocess.run([sys.executable, "-c", CHILD, json.dumps([float(eps), released])],
                                 capture_output=True, text=True, check=True, env=env)
            row.update(json.loads(out.stdout.strip().splitlines()[-1]))
            if args.column:
                out = subprocess.run([sys.executable, "-c", _side.WORST_CELL_PRELUDE + _side.COLUMN_RUN,
                                      json.dumps([float(eps), released])],
                                     capture_output=True, text=True, check=True, env=env)
                row["column"] = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(json.dumps(row), flush=True)
            _side.write(args.out, _side.record("benchmarks/corner_projections_k4.py", rows))


if __name__ == "__main__":
    main()
