"""The k = 4 rest's offset sum (``lattice~average``'s errors and the face row's rest, Dir(1,1,1,1)) over R(n) against
by orbits, side by side in one process: the same outputs (the local Bayes remap by orbits at every point of
``window(n, 4, We)``, searched once or read from ``--keep``), then in turn the sum over R(n)
(``batched.window_errors_any``, the route before) and the sum by orbits (``corners_any.orbit_rest_errors``, the route
``mechanisms.lattice._batched_errors`` takes where ``corners_any.orbit_sum``), CPU s by ``time.process_time`` and the
load beside each; the largest absolute difference of the errors, each array's SHA-256, the worst case's upper end
``max E + tail`` on both, and the plan's seconds for the sum before (``LOCAL_SUM_SECONDS`` x |R(n)| x |ball|) and now
(``orbit_sum_seconds``).

    python benchmarks/rest_sum_orbits_k4.py [--eps 1] [--keep DIR] [--out benchmarks/rest_sum_orbits_k4.json] N ...
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _sha(x) -> str:
    return hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--eps", type=float, default=1.0)
    p.add_argument("--keep", default=None)
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "rest_sum_orbits_k4.json"))
    p.add_argument("n", nargs="+", type=int)
    args = p.parse_args(argv)
    from dpposterior.lattice.batched import local_search_batch, window_errors_any
    from dpposterior.lattice.corners_any import orbit_rest_errors, orbit_sum
    from dpposterior.lattice.noise import tail_bound, window
    from dpposterior.mechanisms import lattice as L

    a, eps, rows = np.ones(4), args.eps, []
    for n in args.n:
        We = L._radius(4, eps, L.LOCAL_ERROR_TOL)
        Zw = window(n, 4, We)
        keep = pathlib.Path(args.keep) / f"out_{n}.npy" if args.keep else None
        row: dict = {"n": n, "epsilon": eps, "We": We}
        if keep is not None and keep.exists():
            out = np.load(keep)
            row["outputs_from"] = str(keep)
        else:
            t, load = time.process_time(), os.getloadavg()[0]
            out = local_search_batch(a, n, eps, Zw, orbits=True)
            row.update(search_cpu_s=round(time.process_time() - t, 1), search_load=round(load, 2))
            if keep is not None:
                keep.parent.mkdir(parents=True, exist_ok=True)
                np.save(keep, out)
        row["outputs_sha256"] = _sha(out)
        t, load = time.process_time(), os.getloadavg()[0]
        old = window_errors_any(a, n, eps, out, We).low
        row.update(old_cpu_s=round(time.process_time() - t, 2), old_load=round(load, 2))
        t, load = time.process_time(), os.getloadavg()[0]
        stats: dict = {}
        new = orbit_rest_errors(a, n, eps, Zw, out, We, stats)
        row.update(new_cpu_s=round(time.process_time() - t, 2), new_load=round(load, 2), orbit_stats=stats)
        tail = float(tail_bound(4, eps, We))
        row.update(old_sha256=_sha(old), new_sha256=_sha(new), max_abs_diff=float(np.abs(old - new).max()),
                   old_worst_high=float(old.max() + tail), new_worst_high=float(new.max() + tail),
                   same_argmax=int(np.argmax(old)) == int(np.argmax(new)), tail=tail,
                   orbit_route_in_production=bool(orbit_sum(n, 4, eps, We, True)),
                   planned_old_s=round(L.LOCAL_SUM_SECONDS * L.n_candidates(n, 4) * L.ball_size(4, eps,
                                                                                                L.LOCAL_ERROR_TOL), 1),
                   planned_new_s=round(L.orbit_sum_seconds(n, 4, eps, We), 1))
        print(json.dumps(row), flush=True)
        rows.append(row)
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": "python benchmarks/rest_sum_orbits_k4.py " + " ".join(sys.argv[1:] if argv is None else argv),
           "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
