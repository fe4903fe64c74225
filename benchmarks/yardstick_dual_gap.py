"""Where the average yardstick loses at eps = 0.5 (Dir(1,1,1)): the LP optimum against the dual bounds.

At one size n (the LP of docs/definitions.md §9 runs to n = 20 at k = 3, ~4 min at n = 20 on the shared host;
``--no-lp`` past it), prints and adds to ``benchmarks/yardstick_dual_gap.json`` (one entry per n and eps; the
entry at n = 20 written before the Polyak steps is kept at the top level):

- the LP optimum (HiGHS interior point, written here from the library's losses) and its row multipliers ``mu``;
- ``flow_bound`` (the flows' ``y``, ``mu`` by ascent) and ``column_bound`` (each window's LP solved) at the flows'
  ``mu`` (1 and ``--steps`` steps) and at the LP's own ``mu``;
- the flows' ``y`` at the LP's own ``mu`` (the flows' value when the multipliers are the best ones);
- ``column_bound`` from the flows' ``mu`` with ``--long-steps`` steps (its Polyak steps, one LP per orbit of
  outputs): how high the bound gets past ``compare``'s share, i.e. how loose the bound side is where no LP runs.

    python benchmarks/yardstick_dual_gap.py [--n 20] [--eps 0.5] [--radius 12] [--steps 10] [--long-steps 40]
                                            [--no-lp]

``--from-release``: instead, ``release_bound`` (the exact windows started from ``lattice (average)``'s own errors,
computed first) at each radius of ``--radius`` (comma-separated) with ``--steps`` evaluations, and one evaluation at
each scale of ``--scales``: its value per evaluation, CPU s (``time.process_time``) and peak RSS; entry
``n=.. eps=.. from the release``:

    python benchmarks/yardstick_dual_gap.py --from-release --n 300 --eps 0.5 --radius 8,12,14 --steps 8
                                            [--scales 0.9,0.94,0.96,0.98]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import time

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from dpposterior.distances.hellinger import HellingerGrid
from dpposterior.lattice import yardstick as ys
from dpposterior.models import candidate_rank, candidates, log_prior_predictive

ROOT = pathlib.Path(__file__).resolve().parents[1]


def lp(n: int, eps: float):
    a = np.ones(3)
    R = candidates(n, 3)
    N = len(R)
    log_pi = log_prior_predictive(a, R)
    pi = np.exp(log_pi - np.logaddexp.reduce(log_pi))
    L = HellingerGrid(a, n).hellinger(R, R)
    pairs = []
    for i, c in enumerate(R):
        for p in range(3):
            for q in range(3):
                if p != q and c[p] >= 1:
                    d = c.copy()
                    d[p] -= 1
                    d[q] += 1
                    pairs.append((i, int(candidate_rank(d[None])[0])))
    pairs = np.array(pairs)
    m = len(pairs) * N
    out = np.tile(np.arange(N), len(pairs))
    cols = np.column_stack([np.repeat(pairs[:, 0], N) * N + out, np.repeat(pairs[:, 1], N) * N + out]).ravel()
    A = sparse.csr_array((np.tile([1.0, -math.exp(eps)], m), (np.repeat(np.arange(m), 2), cols)), shape=(m, N * N))
    Aeq = sparse.kron(sparse.eye_array(N), np.ones((1, N))).tocsr()
    res = linprog((pi[:, None] * L).ravel(), A_ub=A, b_ub=np.zeros(m), A_eq=Aeq, b_eq=np.ones(N), bounds=(0, 1),
                  method="highs-ipm")
    assert res.status == 0, res.message
    return float(res.fun), res.eqlin.marginals, pi


def flows_at(n: int, eps: float, radius: int, mu) -> float:
    """``flow_bound``'s value at the given ``mu`` (one step: no ascent)."""
    return ys.flow_bound([1, 1, 1], n, eps, radius=radius, steps=1, start=mu).average


def from_release(args) -> None:
    """``release_bound`` from ``lattice (average)``'s errors (module docstring)."""
    import resource

    from dpposterior.accuracy import expected_errors

    n, eps = args.n, args.eps
    out = {"n": n, "epsilon": eps, "prior": [1, 1, 1], "load": os.getloadavg()[0]}
    t = time.process_time()
    E = expected_errors("lattice", np.ones(3), n, epsilon=eps, objective="average")
    out["release"] = E.average
    out["release_cpu_seconds"] = round(time.process_time() - t, 1)
    print(f"lattice (average): {E.average:.5f} ({out['release_cpu_seconds']} CPU s)", flush=True)
    radii = [int(r) for r in str(args.radius).split(",")]
    for radius in radii:
        t = time.process_time()
        b = ys.release_bound([1, 1, 1], n, eps, E.expected, radius=radius, steps=args.steps)
        row = {"bound": b.average, "ratio": E.average / b.average if b.average > 0 else None,
               "values": list(b.values), "cpu_seconds": round(time.process_time() - t, 1),
               "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
        out[f"radius {radius}, {args.steps} evaluations"] = row
        print(f"radius {radius}, {args.steps} evaluations: {row}", flush=True)
    for f in (float(x) for x in args.scales.split(",")) if args.scales else ():
        t = time.process_time()
        b = ys.release_bound([1, 1, 1], n, eps, E.expected, radius=radii[-1], steps=1, scales=(f,))
        out[f"scale {f:g}, radius {radii[-1]}, one evaluation"] = {"bound": b.average,
                                                                  "cpu_seconds": round(time.process_time() - t, 1)}
        print(f"scale {f:g}, radius {radii[-1]}: {b.average:.5f}", flush=True)
    path = pathlib.Path(args.out)
    doc = json.loads(path.read_text()) if path.exists() else {}
    doc.setdefault("runs", {})[f"n={n} eps={eps:g} from the release"] = out
    path.write_text(json.dumps(doc, indent=1) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=20)
    p.add_argument("--eps", type=float, default=0.5)
    p.add_argument("--radius", default="12", help="comma-separated with --from-release")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--long-steps", type=int, default=40)
    p.add_argument("--no-lp", action="store_true", help="past the LP's reach (n > 20 at k = 3)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "yardstick_dual_gap.json"))
    p.add_argument("--from-release", action="store_true", help="release_bound from lattice (average)'s errors")
    p.add_argument("--scales", default="", help="with --from-release: one evaluation at each of these scales")
    args = p.parse_args()
    if args.from_release:
        from_release(args)
        return
    n, eps, radius = args.n, args.eps, int(args.radius)
    out = {"n": n, "epsilon": eps, "prior": [1, 1, 1], "radius": radius, "load": os.getloadavg()[0]}
    if not args.no_lp:
        t = time.process_time()
        out["lp"], mu_lp, _ = lp(n, eps)
        out["lp_cpu_seconds"] = round(time.process_time() - t, 1)
    t = time.process_time()
    f = ys.flow_bound([1, 1, 1], n, eps, radius=radius)
    out["flows"] = f.average
    out["flows_cpu_seconds"] = round(time.process_time() - t, 1)
    out["columns_at_flows_mu"] = ys.column_bound([1, 1, 1], n, eps, f.mu, radius=radius, steps=1).average
    t = time.process_time()
    out[f"columns_{args.steps}_steps"] = ys.column_bound([1, 1, 1], n, eps, f.mu, radius=radius,
                                                         steps=args.steps).average
    out["columns_cpu_seconds"] = round(time.process_time() - t, 1)
    t = time.process_time()
    out[f"columns_{args.long_steps}_steps"] = ys.column_bound([1, 1, 1], n, eps, f.mu, radius=radius,
                                                              steps=args.long_steps).average
    out[f"columns_{args.long_steps}_steps_cpu_seconds"] = round(time.process_time() - t, 1)
    if not args.no_lp:
        out["columns_at_lp_mu"] = ys.column_bound([1, 1, 1], n, eps, mu_lp, radius=n, steps=1).average
        out["flows_at_lp_mu"] = flows_at(n, eps, n, mu_lp)
    for key, value in out.items():
        print(f"{key}: {value}")
    path = pathlib.Path(args.out)
    doc = json.loads(path.read_text()) if path.exists() else {}
    doc.setdefault("runs", {})[f"n={n} eps={eps:g} radius={radius}"] = out
    path.write_text(json.dumps(doc, indent=1) + "\n")

if __name__ == "__main__":
    main()
