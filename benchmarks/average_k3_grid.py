"""The k = 3 average's bracket as ``compare`` prints it (best average release / certified average yardstick), at
Dir(1,1,1) over a grid of n and eps, without ``compare``'s other rows: side by side for two source trees.

Each cell runs in its own process (CPU seconds and peak memory by ``os.wait4``): ``ranking.plan_compare`` plans every
row as ``compare`` does (so the yardstick's share is ``compare``'s), then only the rows that may start the average's
bound (``ranking.start_releases``: the average variants of the entries with ``objectives``, the LP or the lattice
release) are computed, and ``ranking.compare_yardstick`` runs with the full plans: the same average bound as
``compare`` prints (its worst-case bound lacks the ``optimal (worst)`` LP; it is not recorded).  The best average is
over those rows, the release ``compare`` ranks first on average wherever one of them is computed (its other rows are
baselines or the worst-case variants).  Writes ``benchmarks/average_k3_grid.json``.

    python benchmarks/average_k3_grid.py [--n 50,100,200,300] [--eps 1,2] [--against /path/to/old/src]
        [--out benchmarks/average_k3_grid.json]
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
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: the issue's target for the k = 3 average's bracket at n <= 300
TARGET = 1.10

CELL = r"""
import json, sys
from dataclasses import replace
import numpy as np
from dpposterior.ranking import compare_rows, compare_yardstick, plan_compare, start_releases
n, eps = int(sys.argv[1]), float(sys.argv[2])
a = np.array([1.0, 1.0, 1.0])
plans = plan_compare(a, n, eps)
starts = start_releases(3)
only = [p if p.variant.label in starts else replace(p, left_out="not computed here", same_as="") for p in plans]
errors = {}
rows = compare_rows(a, n, eps, plans=only, errors=errors)
y = compare_yardstick(a, n, eps, rows, plans=plans, errors=errors)
done = [r for r in rows if "error" not in r]
out = {"rows": {r["release"]: r["average_expected_error"] for r in done},
       "left_out": {r["release"]: r["error"] for r in rows if "error" in r and r["release"] in starts}}
if isinstance(y, str) or y is None:
    out["yardstick"] = y
else:
    out["yardstick"] = {"average": y.average, "average_bound": y.average_bound}
    if done:
        best = min(done, key=lambda r: r["average_expected_error"])
        out["best"] = best["release"]
        out["average_ratio"] = round(best["average_expected_error"] / y.average, 4)
print(json.dumps(out))
"""


def run(src: str, n: int, eps: float) -> dict:
    """One cell in its own process with ``src`` first on the path: its numbers, CPU seconds, peak MB."""
    env = dict(os.environ, PYTHONPATH=src)
    with tempfile.TemporaryFile("w+") as out_f, tempfile.TemporaryFile("w+") as err_f:
        proc = subprocess.Popen([sys.executable, "-c", CELL, str(n), f"{eps:g}"], env=env, stdout=out_f,
                                stderr=err_f)
        _, status, usage = os.wait4(proc.pid, 0)
        out_f.seek(0)
        err_f.seek(0)
        text, err = out_f.read(), err_f.read()
    got = {"n": n, "epsilon": eps, "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
           "peak_mb": round(usage.ru_maxrss / 1024), "load": round(os.getloadavg()[0], 1)}
    if os.waitstatus_to_exitcode(status):
        got["error"] = (err.strip().splitlines() or ["?"])[-1]
        return got
    return got | json.loads(text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="50,100,200,300")
    parser.add_argument("--eps", default="1,2")
    parser.add_argument("--against", default="", help="another tree's src, run beside this one (before)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "average_k3_grid.json"))
    args = parser.parse_args(argv)
    trees = {"after": str(ROOT / "src")} | ({"before": args.against} if args.against else {})
    cells = [(n, float(e)) for e in args.eps.split(",") for n in (int(x) for x in args.n.split(","))]
    todo = [(label, src, n, eps) for n, eps in cells for label, src in trees.items()]
    with ThreadPoolExecutor(len(trees)) as pool:  # the trees side by side, one cell at a time each
        done = list(pool.map(lambda t: (t[0], run(t[1], t[2], t[3])), todo))
    calls = []
    for n, eps in cells:
        row = {"n": n, "epsilon": eps} | {label: got for label, got in done if got["n"] == n and got["epsilon"] == eps}
        calls.append(row)
        print(f"n={n:>5} eps={eps:g}  " + "  ".join(
            f"{label}: {row[label].get('average_ratio', row[label].get('error'))} ({row[label]['cpu_seconds']} CPU s)"
            for label in trees), flush=True)
    pathlib.Path(args.out).write_text(json.dumps({
        "date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "prior": [1, 1, 1], "target": TARGET,
        "trees": trees, "calls": calls}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
