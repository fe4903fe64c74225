"""The k = 4 worst release's noise-aware column where ``n <= Dc`` (the corner table's column,
``LatticeMechanism._small_corner_column_plan``) at each release against its plan: each cell in its own process, the
solve limit raised (the plan made first, as a command does), nothing else instrumented.

    python benchmarks/small_corner_k4.py --out benchmarks/small_corner_k4.json 0.5:19,1,1,1 0.5:0,0,0,22 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1) (k = the number of counts, n their sum), ``optimal``, worst.  Each row:
the plan's route and the seconds it holds to the solve limit, the column's CPU s (``local_posterior`` alone: the
corner remap's solve included) and their ratio, the load before.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = _side.WORST_CELL_PRELUDE + _side.COLUMN_RUN

if __name__ == "__main__":
    _side.released_cells(__doc__, CHILD)
