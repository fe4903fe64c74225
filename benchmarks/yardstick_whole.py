"""The whole LP by orbits as the yardstick's worst case (``lattice.yardstick.corner_bound`` at depth n): planned
against run, and its value against the worst-case bound ``compare`` printed before (the average's dual).

Each call runs in its own process (``PYTHONPATH`` = this tree's ``src``), timed with ``os.wait4`` (CPU seconds = user
+ system of the child, peak = its ``ru_maxrss``); the plan (:func:`~dpposterior.lattice.yardstick.whole_seconds`,
:func:`~dpposterior.lattice.yardstick.whole_bytes`) is computed from public (prior, n, eps) beside it.  Writes
``--out`` after every call; ``tests/library/test_yardstick_whole.py`` holds the plan above the recorded runs.

    python benchmarks/yardstick_whole.py [--cells 4:10:0.5 4:11:2 ...] [--out benchmarks/yardstick_whole.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys
import numpy as np
from dpposterior.lattice import yardstick as Y
k, n, eps = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
b = Y.corner_bound(np.ones(k), n, eps, n)
print(json.dumps({"worst": b.worst, "blocks": b.blocks}))
"""

PLAN = r"""
import json, sys
import numpy as np
from dpposterior.lattice import yardstick as Y
k, n, eps = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
R = Y.corner_block(n, k, 0, n)
rows, groups, pairs = Y.block_shape(n, R, Y.CORNER_REACH)
order = len(Y._symmetry_images(np.ones(k), R))
print(json.dumps({"rows": rows, "groups": groups, "pairs": pairs, "order": order,
                  "planned_seconds": Y.whole_seconds(rows, groups, pairs, order, k),
                  "planned_bytes": Y.whole_bytes(rows, groups, pairs, order)}))
"""

DEFAULT = ["4:6:0.5", "4:8:0.5", "4:9:0.5", "4:10:0.5", "4:10:1", "4:10:2", "4:11:0.5", "4:11:2", "3:20:0.5"]


def child(code: str, args: list[str]) -> tuple[dict, float, int, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+b") as out:
        proc = subprocess.Popen(["nice", sys.executable, "-c", code, *args], env=env, stdout=out)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        text = out.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"child failed on {args}")
    return json.loads(text), round(usage.ru_utime + usage.ru_stime, 2), usage.ru_maxrss * 1024, round(load, 1)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cells", nargs="+", default=DEFAULT, metavar="K:N:EPS")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "yardstick_whole.json"))
    args = p.parse_args(argv)
    calls = []
    for cell in args.cells:
        k, n, eps = cell.split(":")
        plan, _, _, _ = child(PLAN, [k, n, eps])
        got, cpu, peak, load = child(CHILD, [k, n, eps])
        calls.append(dict(k=int(k), n=int(n), epsilon=float(eps), **plan, **got, cpu_seconds=cpu, peak_bytes=peak,
                          load_before=load))
        print(json.dumps(calls[-1]), flush=True)
        with open(args.out, "w") as f:
            json.dump({"what": "python benchmarks/yardstick_whole.py: corner_bound(ones(k), n, eps, depth=n) (the whole "
                               "LP by orbits), each call in its own process; plan from public k, n, eps",
                       "date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "calls": calls}, f, indent=1)


if __name__ == "__main__":
    main()
