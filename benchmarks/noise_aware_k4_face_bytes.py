"""The k = 4 ``average`` local column next to a face, an edge or a vertex: its plan's bytes against the column's peak
growth, each release in its own process (``resource.getrusage``'s ``ru_maxrss`` before and after
``local_posterior`` at a given release; the plan made first, with the limit raised so that a refused cell still states
its bytes).

    python benchmarks/noise_aware_k4_face_bytes.py --out benchmarks/noise_aware_k4_face_bytes.json \
        2:29,119,151,1 2:148,0,1,151 3:30,120,150,0 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1) (k = the number of counts, n their sum), ``optimal``, average.
Records the plan's route, seconds and bytes, the column's CPU seconds and peak growth, and the load before.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = _side.CELL_PRELUDE + r"""
import resource
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t0 = time.process_time()
spec.mechanism.local_posterior(plan, a, n, spec, m)
cpu = time.process_time() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"route": plan.route, "planned_seconds": plan.seconds, "planned_bytes": plan.memory_bytes,
                  "cpu_seconds": cpu, "peak_growth_bytes": peak - base}))
"""


def main() -> None:
    _side.released_cells(__doc__, CHILD)


if __name__ == "__main__":
    main()
