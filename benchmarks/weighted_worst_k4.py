"""The worst case's weighted dual at Dir(1,1,1,1) alone: its certified bound, CPU seconds by part, and its plan.

    python benchmarks/weighted_worst_k4.py --out benchmarks/weighted_worst_k4.json 20:0.5:8 20:1:8 20:2:8

Each cell is ``N:EPS:EVALUATIONS``: the minimax LP's weights at ``lattice.yardstick.WEIGHTED_FROM`` carried to n and mixed
with pi (``mixed_weights``), the flows of radius ``min(WEIGHTED_RADIUS, n)`` (``WEIGHTED_FLOW_STEPS`` steps), then that
many evaluations of exact windows (``column_bound``, flows first), as ``weighted_bound`` runs them; CPU seconds by
``time.process_time`` in this one process (run it alone: the host is shared), the load average beside each; the plan
``plan_weighted`` gives for the same evaluations.  Writes ``--out`` after every cell.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from dpposterior.lattice import yardstick as ys


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("cells", nargs="+", metavar="N:EPS:EVALUATIONS")
    args = p.parse_args(argv)
    a = np.ones(4)
    out = []
    for cell in args.cells:
        n, eps, steps = cell.split(":")
        n, eps, steps = int(n), float(eps), int(steps)
        radius = min(ys.WEIGHTED_RADIUS, n)
        load = os.getloadavg()[0]
        t = time.process_time()
        w = ys.objective_weights(a, n, ys.mixed_weights(a, n, eps, ys.WEIGHTED_FROM, ys.WEIGHTED_SHARE))
        tw = time.process_time() - t
        flow = ys.flow_bound(a, n, eps, radius=radius, steps=ys.WEIGHTED_FLOW_STEPS, weights=w)
        tf = time.process_time() - t - tw
        column = ys.column_bound(a, n, eps, flow.mu, radius=radius, steps=steps, primal=True, flows=True, weights=w)
        tc = time.process_time() - t - tw - tf
        _, _, fixed, per, _ = ys.weighted_costs(a, n, eps)
        out.append(dict(n=n, epsilon=eps, evaluations=steps, radius=radius,
                        bound=ys.weighted_worst(max(flow.average, column.average), w), flows=flow.average,
                        values=[round(v, 6) for v in column.values], lps=list(column.lps),
                        cpu_weights=round(tw, 1), cpu_flows=round(tf, 1), cpu_windows=round(tc, 1),
                        cpu=round(time.process_time() - t, 1), planned=round(fixed + per * steps, 1),
                        load_before=round(load, 1)))
        print(json.dumps(out[-1]), flush=True)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
