"""Where the worst case's bound at k = 4 stalls, measured in one process per probe (CPU s by ``time.process_time``,
peak RSS, the 1-minute load before it), Dir(1,1,1,1):

- ``corner:N:EPS:DEPTH:REACH``: :func:`~dpposterior.lattice.yardstick.corner_bound` at that depth and reach, with its
  plan (:func:`~dpposterior.lattice.yardstick.corner_cost`);
- ``weighted:N:EPS``: the parts of :func:`~dpposterior.lattice.yardstick.weighted_bound` as ``compare`` plans it
  (the flows under pi, radius 8, 20 steps; the minimax LP's weights at m = 10 mixed half and half with pi; exact
  windows after 1, 4 and 8 evaluations, each run from the same start), against
  :func:`~dpposterior.lattice.yardstick.weighted_costs` (flows at hand);
- ``cornerweights:N:EPS:DEPTH:SHARE``: the same dual under weights that put ``SHARE`` on the corner block's own
  saddle-point weights (``block_bound``'s ``duals``, spread over the vertices by the prior's symmetries), the rest
  half the carried LP weights and half pi, 4 evaluations (any weights give a certified worst-case bound,
  ``weighted_worst``).

    python benchmarks/worst_k4_probe_h79yd.py --out benchmarks/worst_k4_probe_h79yd.json \\
        corner:100:1:8:2 corner:100:1:8:1 corner:100:1:9:2 weighted:20:0.5 cornerweights:20:0.5:7:0.3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402


def probe(spec: str) -> dict:
    import numpy as np

    from dpposterior.lattice import yardstick as Y
    from dpposterior.models import candidate_rank, candidates

    kind, *args = spec.split(":")
    a = np.ones(4)
    n, eps = int(args[0]), float(args[1])
    out: dict = {"probe": spec, "n": n, "epsilon": eps}
    t = time.process_time()
    if kind == "corner":
        depth, reach = int(args[2]), int(args[3])
        out["bound"] = Y.corner_bound(a, n, eps, depth, reach=reach).worst
        out["cpu_s"] = round(time.process_time() - t, 1)
        out["planned_s"] = round(Y.corner_cost(a, n, depth)[0], 1)
    elif kind == "weighted":
        flow = Y.flow_bound(a, n, eps, radius=8, steps=20)
        out["cpu_flows"] = round(time.process_time() - t, 1)
        t = time.process_time()
        start: dict = {}
        w = Y.objective_weights(a, n, Y.mixed_weights(a, n, eps, 10, 0.5, start))
        out["cpu_weights"] = round(time.process_time() - t, 1)
        mu = Y.WEIGHTED_START_SCALE * (start["rows"] + 0.5 * flow.mu)
        for steps in (1, 4, 8):
            t = time.process_time()
            v = Y.column_bound(a, n, eps, mu, radius=8, steps=steps, primal=True, flows=True, weights=w,
                               pooled=True).average
            out[f"bound_{steps}"] = Y.weighted_worst(v, w)
            out[f"cpu_windows_{steps}"] = round(time.process_time() - t, 1)
        _, _, fixed, per, _ = Y.weighted_costs(a, n, eps, flows_at_hand=True)
        out["planned_fixed_s"], out["planned_per_evaluation_s"] = round(fixed, 2), round(per, 2)
    elif kind == "cornerweights":
        depth, share = int(args[2]), float(args[3])
        R = candidates(n, 4)
        S = Y.corner_block(n, 4, 0, depth)
        duals: dict = {}
        out["corner_bound"], _ = Y.block_bound(a, n, eps, S, Y.CORNER_REACH, None, None, symmetric=True, duals=duals)
        lam, nu = np.zeros(len(R)), np.zeros(len(R))
        lam[candidate_rank(S)], nu[candidate_rank(S)] = duals["worst"], duals["rows"]
        images = np.array([candidate_rank(R[:, list(s)]) for s in Y.symmetries(a)])
        rep = images.min(axis=0)
        lam, nu = lam[images].mean(axis=0)[rep], nu[images].mean(axis=0)[rep]
        start: dict = {}
        rest = (1.0 - share) / 2
        carried = Y.mixed_weights(a, n, eps, 10, 1.0, start)
        w = Y.objective_weights(a, n, share * lam / lam.sum() + rest * carried + rest * Y._predictive(a, R))
        flow = Y.flow_bound(a, n, eps, radius=8, steps=20)
        mu = Y.WEIGHTED_START_SCALE * (share * nu / lam.sum() + rest * start["rows"] + rest * flow.mu)
        v = Y.column_bound(a, n, eps, mu, radius=8, steps=4, primal=True, flows=True, weights=w, pooled=True).average
        out["bound_4"] = Y.weighted_worst(v, w)
        out["cpu_s"] = round(time.process_time() - t, 1)
    out["peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        print(json.dumps(probe(sys.argv[2])))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("probes", nargs="+")
    args = ap.parse_args()
    rows = []
    for spec in args.probes:  # one process per probe, one after the other
        load = os.getloadavg()[0]
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", spec], capture_output=True,
                              text=True, timeout=1800)
        row = json.loads(proc.stdout) if proc.returncode == 0 else {"probe": spec, "error": proc.stderr[-500:]}
        row["load"] = round(load, 2)
        print(row, flush=True)
        rows.append(row)
    _side.write(args.out, _side.record("benchmarks/worst_k4_probe_h79yd.py", rows))


if __name__ == "__main__":
    main()
