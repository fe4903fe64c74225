"""Where the k = 4 worst route's CPU seconds go, stage by stage, against its plan's parts (Dir(1,1,1,1)).

The route ``lattice~worst`` past the window's LP (:func:`~dpposterior.lattice.corners_any.corner_errors_any` after
:func:`~dpposterior.lattice.corners_any.cached_corner_remap_any`): the corner solve, the batched local search over
R(n) by orbits (``search``), the offset sum over R(n) (``offset_sum``, :func:`.batched.window_errors_any`) and
the terms at the tables' rows added as differences (``recompute``: the rest of ``corner_errors_any``), each in CPU
seconds of this process (``getrusage``), beside the parts :meth:`LatticeMechanism._corner_plan_any` plans for them
(``corner``, ``table + handed``, ``total``, ``recompute``).  ``--plan-only`` prints the plan's parts without running
the route.

    python benchmarks/worst_k4_stages.py N EPS [--plan-only] [--out benchmarks/worst_k4_stages.json]

The JSON file keeps one entry per (n, eps), replaced when measured again.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import resource

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def plan_parts(n: int, eps: float, k: int = 4) -> dict:
    """The parts of the corner route's plan at a symmetric prior, as ``_corner_plan_any`` adds them."""
    from dpposterior.lattice.corners_any import delta_terms
    from dpposterior.mechanisms import lattice as L

    W = L._radius(k, eps, L.LOCAL_ERROR_TOL)
    rows = float(L.n_candidates(n, k))
    table, handed = L.face_orbit_seconds(n, k, eps)
    offsets = L.ball_size(k, eps, L.LOCAL_ERROR_TOL)
    total = L.LOCAL_SUM_SECONDS * rows * offsets
    top = L.corner_plan_sizes(n, k, eps, True)["edge_top"]
    recompute = L.DELTA_SECONDS * delta_terms(n, k, eps, W, top)  # the tables' rows' terms, as differences
    corner = L.corner_seconds(n, k, eps, True)
    parts = {"corner": corner, "search (table + handed)": table + handed, "offset_sum": total,
             "recompute": recompute}
    parts["sum"] = sum(parts.values())
    return {key: round(v, 1) for key, v in parts.items()} | {"W": W, "rows": int(rows), "offsets": int(offsets)}


def measure(n: int, eps: float) -> dict:
    """Each stage's CPU seconds (the library's functions wrapped with timers; the same calls the route makes)."""
    import dpposterior.lattice.batched as B
    import dpposterior.lattice.corners_any as C
    from dpposterior.mechanisms import lattice as L

    spent: dict[str, float] = {}

    def timed(name, f):
        def g(*x, **kw):
            t = cpu()
            out = f(*x, **kw)
            spent[name] = spent.get(name, 0.0) + cpu() - t
            return out
        return g

    C.rest_window_outputs = timed("search", C.rest_window_outputs)
    B.window_errors_any = timed("offset_sum", B.window_errors_any)
    t = cpu()
    remap = C.cached_corner_remap_any((1.0,) * 4, n, eps)
    spent["solve"] = cpu() - t
    t = cpu()
    e = C.corner_errors_any(remap, L._radius(4, eps, L.LOCAL_ERROR_TOL))
    spent["errors_total"] = cpu() - t
    spent["recompute"] = spent["errors_total"] - spent["search"] - spent["offset_sum"]
    out = {key: round(v, 1) for key, v in spent.items()}
    out.update(worst=float(np.max(e.low)), peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
               load_before=None)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("eps", type=float)
    parser.add_argument("--plan-only", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "worst_k4_stages.json"))
    args = parser.parse_args(argv)
    entry = {"n": args.n, "epsilon": args.eps, "planned": plan_parts(args.n, args.eps)}
    print(json.dumps(entry))
    if args.plan_only:
        return
    load = os.getloadavg()[0]
    entry["measured"] = measure(args.n, args.eps) | {"load_before": round(load, 2)}
    print(json.dumps(entry))
    path = pathlib.Path(args.out)
    old = json.loads(path.read_text(encoding="utf-8"))["calls"] if path.exists() else []
    calls = [c for c in old if (c["n"], c["epsilon"]) != (args.n, args.eps)] + [entry]
    path.write_text(json.dumps({"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
                                "calls": sorted(calls, key=lambda c: (c["epsilon"], c["n"]))}, indent=1) + "\n",
                    encoding="utf-8")


if __name__ == "__main__":
    main()
