"""The worst case's weighted dual at Dir(1,1,1,1) alone: its certified bound, CPU seconds by part, and its plan.

    python benchmarks/weighted_worst_k4.py --out benchmarks/weighted_worst_k4.json 20:0.5:8 20:1:8 20:2:8

Each cell is ``N:EPS:EVALUATIONS``: the minimax LP's weights at ``lattice.yardstick.WEIGHTED_FROM`` carried to n and mixed
with pi (``mixed_weights``), the flows of radius ``min(WEIGHTED_RADIUS, n)`` (``WEIGHTED_FLOW_STEPS`` steps), then that
many evaluations of exact windows (``column_bound``, flows first), as ``weighted_bound`` runs them; CPU seconds by
``time.process_time`` in this one process (run it alone: the host is shared), the load average beside each; the plan
``plan_weighted`` gives for the same evaluations.  Writes ``--out`` after every cell.
"""

from __future__ import annotations

import time

from dual_cells import run_cells

from dpposterior.lattice import yardstick as ys


def measure(a, n: int, eps: float, steps: int) -> dict:
    """One cell: the mixed weights, the flows under them, then ``steps`` evaluations of exact windows, and the plan."""
    radius = min(ys.WEIGHTED_RADIUS, n)
    t = time.process_time()
    w = ys.objective_weights(a, n, ys.mixed_weights(a, n, eps, ys.WEIGHTED_FROM, ys.WEIGHTED_SHARE))
    tw = time.process_time() - t
    flow = ys.flow_bound(a, n, eps, radius=radius, steps=ys.WEIGHTED_FLOW_STEPS, weights=w)
    tf = time.process_time() - t - tw
    column = ys.column_bound(a, n, eps, flow.mu, radius=radius, steps=steps, primal=True, flows=True, weights=w)
    tc = time.process_time() - t - tw - tf
    _, _, fixed, per, _ = ys.weighted_costs(a, n, eps)
    return dict(n=n, epsilon=eps, evaluations=steps, radius=radius,
                bound=ys.weighted_worst(max(flow.average, column.average), w), flows=flow.average,
                values=[round(v, 6) for v in column.values], lps=list(column.lps),
                cpu_weights=round(tw, 1), cpu_flows=round(tf, 1), cpu_windows=round(tc, 1),
                cpu=round(time.process_time() - t, 1), planned=round(fixed + per * steps, 1))


if __name__ == "__main__":
    run_cells(__doc__, measure)
