"""The face row at k = 4 (Dir(1,1,1,1), eps 1) with its errors' window cut at a smaller radius ``We``: the local Bayes
remap's search by orbits over ``window(n, 4, We)`` (``--search``: CPU s, and the points and CPU s of its tied orbits;
its outputs checked equal to those of the widest window read at the same points, from ``--keep``), the rest's offset
sum by orbits (``corners_any.orbit_rest_errors``), the face table's build from those outputs
(``faces_any.face_remap_any`` with ``window_outputs``) and its differences (``face_errors_any``), each timed; the
worst case's upper end ``max E + tail_bound(4, eps, We)`` at each ``We``.  One process, this tree; the load beside
each.

    python benchmarks/face_row_radius_k4.py --keep DIR [--n 100] [--wide 19] [--search] [--out FILE] We ...
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--keep", required=True)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--wide", type=int, default=19)
    p.add_argument("--search", action="store_true", help="search each window (else read it off the widest's)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "face_row_radius_k4.json"))
    p.add_argument("radii", nargs="+", type=int)
    args = p.parse_args(argv)
    import dpposterior.lattice.batched as B
    from dpposterior.lattice.batched import local_search_batch
    from dpposterior.lattice.corners_any import orbit_rest_errors
    from dpposterior.lattice.faces_any import face_errors_any, face_remap_any, window_outputs_at
    from dpposterior.lattice.noise import tail_bound, window

    a, n, eps, rows = np.ones(4), args.n, 1.0, []
    wide = np.load(pathlib.Path(args.keep) / f"out_{n}.npy")
    for We in args.radii:
        row: dict = {"n": n, "epsilon": eps, "We": We, "tail": float(tail_bound(4, eps, We))}
        Zw = window(n, 4, We)
        read = window_outputs_at(wide, n, args.wide, Zw)
        if args.search:
            # the tied orbits' points (the search's second call, with kept_columns): their count and CPU s
            inner, tied = B._search, {"points": 0, "cpu_s": 0.0}

            def timed(*a_, inner=inner, tied=tied, **kw):
                if not kw.get("kept_columns"):
                    return inner(*a_, **kw)
                t0 = time.process_time()
                got = inner(*a_, **kw)
                tied["points"] += len(a_[3])
                tied["cpu_s"] += time.process_time() - t0
                return got
            B._search = timed
            t, load = time.process_time(), os.getloadavg()[0]
            out = local_search_batch(a, n, eps, Zw, orbits=True)
            B._search = inner
            row.update(search_cpu_s=round(time.process_time() - t, 1), search_load=round(load, 2),
                       same_as_wide=bool(np.array_equal(out, read)), tied_points=tied["points"],
                       tied_cpu_s=round(tied["cpu_s"], 1))
        else:
            out = read
        row["window_points"] = len(Zw)
        t, load = time.process_time(), os.getloadavg()[0]
        low = orbit_rest_errors(a, n, eps, Zw, out, We)
        row.update(sum_cpu_s=round(time.process_time() - t, 1), sum_load=round(load, 2),
                   rest_worst_high=float(low.max() + row["tail"]))
        t = time.process_time()
        remap = face_remap_any(a, n, eps, window_outputs=(out, We))
        row["table_cpu_s"] = round(time.process_time() - t, 1)
        t = time.process_time()
        E = face_errors_any(remap, low, We)
        row.update(differences_cpu_s=round(time.process_time() - t, 1), face_lp=remap.certificate["lp"],
                   face_worst_high=float(E.max() + row["tail"]))
        print(json.dumps(row), flush=True)
        rows.append(row)
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": "python benchmarks/face_row_radius_k4.py " + " ".join(sys.argv[1:] if argv is None else argv),
           "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
