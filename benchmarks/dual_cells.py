"""The shared loop of the k = 4 dual benchmarks (``windows_first_k4.py``, ``weighted_worst_k4.py``): cells
``N:EPS:EVALUATIONS`` at Dir(1,1,1,1), each measured in this one process with the load average before it, the rows
printed and ``--out`` written after every cell."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable

import numpy as np


def run_cells(doc: str, measure: Callable[[np.ndarray, int, float, int], dict], argv=None) -> None:
    """Parse ``--out`` and the cells (``doc``'s first line the description), then for each cell the row
    ``measure(prior, n, eps, evaluations)`` with ``load_before`` appended."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("cells", nargs="+", metavar="N:EPS:EVALUATIONS")
    args = p.parse_args(argv)
    a = np.ones(4)
    out = []
    for cell in args.cells:
        n, eps, steps = cell.split(":")
        load = os.getloadavg()[0]
        out.append(measure(a, int(n), float(eps), int(steps)) | {"load_before": round(load, 1)})
        print(json.dumps(out[-1]), flush=True)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
