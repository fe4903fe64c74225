"""The average's flows then exact windows under pi at Dir(1,1,1,1) alone: its certified bound, CPU seconds by part, and
its plan (``lattice.yardstick.windows_bound``, ``plan_windows``, ``window_costs``).

    python benchmarks/windows_first_k4.py --out benchmarks/windows_first_k4.json 20:0.5:2 20:0.5:6 12:0.5:4

Each cell is ``N:EPS:EVALUATIONS``: the flows of radius ``min(WEIGHTED_RADIUS, n)`` (``WEIGHTED_FLOW_STEPS`` steps),
then that many evaluations of exact windows (``column_bound``, flows first), as ``windows_bound`` runs them; CPU seconds
by ``time.process_time`` in this one process (run it alone: the host is shared), the load average beside each; the plan
``window_costs`` gives for the same evaluations.  Writes ``--out`` after every cell.
"""

from __future__ import annotations

import time

from dual_cells import run_cells

from dpposterior.lattice import yardstick as ys


def measure(a, n: int, eps: float, steps: int) -> dict:
    """One cell: the flows, then ``steps`` evaluations of exact windows, and their plan."""
    radius, fixed, per, _ = ys.window_costs(a, n, ys.WINDOWS_COLUMN_FACTOR)
    t = time.process_time()
    flow = ys.flow_bound(a, n, eps, radius=radius, steps=ys.WEIGHTED_FLOW_STEPS)
    tf = time.process_time() - t
    column = ys.column_bound(a, n, eps, flow.mu, radius=radius, steps=steps, primal=True, flows=True)
    tc = time.process_time() - t - tf
    return dict(n=n, epsilon=eps, evaluations=steps, radius=radius, bound=max(flow.average, column.average),
                flows=flow.average, values=[round(v, 6) for v in column.values], lps=list(column.lps),
                cpu_flows=round(tf, 1), cpu_windows=round(tc, 1), cpu=round(time.process_time() - t, 1),
                planned_fixed=round(fixed, 1), planned=round(fixed + per * steps, 1))


if __name__ == "__main__":
    run_cells(__doc__, measure)
