"""The k >= 4 local column's searches by orbits at one release: what the run's check counts against what the search
runs, each release in its own process (``local_posterior`` with the solve limit raised, the plan made first).

    python benchmarks/orbit_check_k4.py --out benchmarks/orbit_check_k4.json 1:3,3,3,41 1:12,12,13,13 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1) (k = the number of counts, n their sum), ``optimal``, average.  Records
at each call of the check (:func:`~dpposterior.mechanisms.lattice._check_searches` with ``orbits``): the points it
counts, their orbits (distinct sorted pairs ``(max(z, 0), project(z))``, what the search runs once each), those with
a count at most 1 and their orbits, and its seconds; at each search by orbits (``local_search_batch(...,
orbits=True)``): its points, orbits, points left (uncertified orbits, searched one by one) and CPU seconds; the whole
column's CPU seconds; the load before.
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
import dpposterior.lattice.batched as B
eps, released = json.loads(sys.argv[1])
m = np.array(released, dtype=np.int64)
a, n = np.ones(m.size), int(m.sum())
checks, searches = [], []
check0, search0 = L._check_searches, B.local_search_batch

def check(Z, n_, k, epsilon, orbits=False, projections=False, **kw):
    if orbits and not projections:
        faces = int(np.count_nonzero(Z.min(axis=1) <= 1)) if len(Z) else 0
        face = Z.min(axis=1) <= 1 if len(Z) else np.zeros(0, dtype=bool)
        orbits_, face_orbits = B.orbit_count(Z, n_), B.orbit_count(Z[face], n_)
        checks.append({"points": int(len(Z)), "orbits": int(orbits_), "faces": faces, "face_orbits": int(face_orbits),
                       "seconds": L.column_orbit_seconds(len(Z), orbits_, n_, k, epsilon, faces)})
    return check0(Z, n_, k, epsilon, orbits=orbits, projections=projections, **kw)

def search(prior, n_, epsilon, Z, *args, **kw):
    st = {}
    t0 = time.process_time()
    out = search0(prior, n_, epsilon, Z, *args, stats=st, **kw)
    searches.append({"cpu_seconds": round(time.process_time() - t0, 3), **st})
    return out

L._check_searches, B.local_search_batch = check, search
spec = ReleaseSpec.of("optimal", eps, objective="average")
plan = spec.mechanism.plan(Task.POSTERIOR, spec, a, n)
t0 = time.process_time()
spec.mechanism.local_posterior(plan, a, n, spec, m)
cpu = time.process_time() - t0
print(json.dumps({"route": plan.route, "planned_seconds": round(plan.seconds, 2),
                  "planned_limited_seconds": round(max(s for name, s in plan.costs
                                                       if name == "DPPOSTERIOR_MAX_SOLVE_SECONDS"), 2),
                  "checks": checks, "searches": searches, "cpu_seconds": round(cpu, 2)}))
"""


def main() -> None:
    _side.released_cells(__doc__, CHILD)


if __name__ == "__main__":
    main()
