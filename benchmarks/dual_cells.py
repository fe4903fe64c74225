"""The shared loop of the k = 4 dual benchmarks (``windows_first_k4.py``, ``weighted_worst_k4.py``, ``flow_k4.py``):
cells such as ``N:EPS:EVALUATIONS`` at Dir(1,1,1,1), each measured in this one process with the load average before
it, the rows printed and ``--out`` written after every cell."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable

import numpy as np


def run_cells(doc: str, measure: Callable[..., dict], argv=None, metavar: str = "N:EPS:EVALUATIONS",
              types: tuple = (int, float, int)) -> None:
    """Parse ``--out`` and the cells (``doc``'s first line the description; ``metavar`` their fields, read by
    ``types``), then for each cell the row ``measure(prior, *fields)`` with ``load_before`` appended."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("cells", nargs="+", metavar=metavar)
    args = p.parse_args(argv)
    a = np.ones(4)
    out = []
    for cell in args.cells:
        fields = [t(x) for t, x in zip(types, cell.split(":"), strict=True)]
        load = os.getloadavg()[0]
        out.append(measure(a, *fields) | {"load_before": round(load, 1)})
        print(json.dumps(out[-1]), flush=True)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
