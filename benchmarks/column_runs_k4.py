"""The k = 4 noise-aware column at each release against its plan: each cell in its own process, the solve limit raised
(the plan made first, as a command does), nothing else instrumented.

    python benchmarks/column_runs_k4.py --out benchmarks/column_runs_k4_s94.json 0.4:6,6,6,5 0.4:1,1,1,20 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1) (k = the number of counts, n their sum), ``optimal``, average.  Each row:
the plan's route and the seconds it holds to the solve limit, the column's CPU s (``local_posterior`` alone) and their
ratio, the load before.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = _side.CELL_PRELUDE + _side.COLUMN_RUN

if __name__ == "__main__":
    _side.released_cells(__doc__, CHILD)
