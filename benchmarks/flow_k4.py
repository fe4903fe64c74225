"""The dual flows (``lattice.yardstick.flow_bound``) at Dir(1,1,1,1) alone: CPU seconds against the seconds
``plan_flow``'s constants give the same radius and steps (set-up plus steps): ``planned`` the k = 3 fit, ``planned_now``
with its k >= 4 factors; the load before each.

    python benchmarks/flow_k4.py --out benchmarks/flow_k4.json 50:1:6:19 20:0.5:8:29

Each cell is ``N:EPS:RADIUS:STEPS``; CPU seconds by ``time.process_time`` in this one process (run it alone: the host
is shared).  Writes ``--out`` after every cell.
"""

from __future__ import annotations

import time

from dual_cells import run_cells

from dpposterior.lattice import yardstick as ys


def planned(a, n: int, radius: int, steps: int) -> tuple[float, float]:
    """The k = 3 fit's set-up and per-step seconds of ``plan_flow`` at this radius."""
    N, offsets = ys.flow_shape(n, a.size, radius)
    large = ys.flow_scale(N)
    setup = ys.FLOW_SETUP_PER_ENTRY * N * offsets * a.size * large
    per = (ys.FLOW_SECONDS_PER_ENTRY * N * offsets + ys.FLOW_SECONDS_PER_OFFSET * offsets) * large
    return setup, per


def planned_k(a, n: int, radius: int, steps: int) -> float:
    """``plan_flow``'s seconds of the flows now (with its factors at k >= 4, ``FLOW_K4``)."""
    setup, per = planned(a, n, radius, steps)
    setup_k, step_k = getattr(ys, "FLOW_K4", (1.0, 1.0)) if a.size >= 4 else (1.0, 1.0)
    return setup * setup_k + per * step_k * steps


def measure(a, n: int, eps: float, radius: int, steps: int) -> dict:
    """One cell: the flows alone, against their plan."""
    setup, per = planned(a, n, radius, steps)
    t = time.process_time()
    flow = ys.flow_bound(a, n, eps, radius=radius, steps=steps)
    cpu = time.process_time() - t
    return dict(n=n, epsilon=eps, radius=radius, steps=steps, bound=flow.average, cpu=round(cpu, 2),
                planned=round(setup + per * steps, 2), planned_now=round(planned_k(a, n, radius, steps), 2),
                planned_setup=round(setup, 2), planned_per_step=round(per, 4))


if __name__ == "__main__":
    run_cells(__doc__, measure, metavar="N:EPS:RADIUS:STEPS", types=(int, float, int, int))
