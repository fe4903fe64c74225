"""Planned against run for the yardstick's corner blocks (``lattice.yardstick.corner_bound``, planned by
``lattice.yardstick.corner_cost``): CPU seconds and peak memory growth per (k, n, eps, depth), each call in its own
process, one after the other.  CPU = user + system of the child (``os.wait4``), growth = its ``ru_maxrss`` over the
same interpreter with the package imported (what a plan counts).  The load average before each call is recorded.
``tests/library/test_corner_plan_fit.py`` holds today's plan at or above every recorded run.

    python benchmarks/corner_plan_fit.py --src src --out benchmarks/corner_plan_fit.json 4:100:0.5:8 4:50:1:7 ...
    python benchmarks/corner_plan_fit.py --plans-only   (this tree's plans of the recorded rows)

Each cell is ``K:N:EPS:DEPTH`` at Dir(1,...,1).  Writes ``--out`` after every call (rows of other cells kept).
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
import json, resource, sys
import numpy as np
import scipy.optimize, scipy.sparse  # noqa: imported before the base line: a plan counts the call's growth
from dpposterior.lattice import yardstick as ys
k, n, eps, depth = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
if depth >= 0:
    worst = ys.corner_bound(np.ones(k), n, eps, depth).worst
else:
    worst = None
print(json.dumps({"worst": worst, "base_bytes": base,
                  "growth_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base}))
"""

PLAN = r"""
import json, sys
import numpy as np
from dpposterior.lattice import yardstick as ys
k, n, eps, depth = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
secs, memory = ys.corner_cost(np.ones(k), n, depth)
print(json.dumps({"planned_seconds": secs, "planned_bytes": memory}))
"""


def child(code: str, args: list[str], env: dict) -> tuple[dict, dict]:
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([sys.executable, "-c", code, *args], env=env, stdout=out)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        text = out.read()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"child failed: {args}")
    return json.loads(text.strip().splitlines()[-1]), {"cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=str(ROOT / "src"))
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "corner_plan_fit.json"))
    parser.add_argument("--plans-only", action="store_true", help="recompute the plans of the rows in --out only")
    parser.add_argument("cells", nargs="*")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"] if out.exists() else []
    env = dict(os.environ, PYTHONPATH=os.path.abspath(args.src))
    if args.plans_only:
        for row in rows:
            row.update(child(PLAN, [str(row[key]) for key in ("k", "n", "eps", "depth")], env)[0])
        out.write_text(json.dumps({"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
                                   "what": "corner_bound at Dir(1,...,1): CPU s (less the import's) and peak growth",
                                   "rows": rows}, indent=1) + "\n", encoding="utf-8")
        return
    # the interpreter with the package imported and nothing run: its CPU seconds are not the call's
    idle, idle_cpu = child(CHILD, ["4", "1", "1", "-1"], env)
    for cell in args.cells:
        k, n, eps, depth = cell.split(":")
        call = [k, n, eps, depth]
        load = os.getloadavg()[0]
        got, usage = child(CHILD, call, env)
        plan, _ = child(PLAN, call, env)
        row = {"k": int(k), "n": int(n), "eps": float(eps), "depth": int(depth), "load_before": round(load, 2),
               "cpu_seconds": round(usage["cpu_seconds"] - idle_cpu["cpu_seconds"], 2),
               "growth_bytes": got["growth_bytes"], "worst": got["worst"], **plan}
        rows = [r for r in rows if (r["k"], r["n"], r["eps"], r["depth"]) != (row["k"], row["n"], row["eps"],
                                                                              row["depth"])] + [row]
        print(json.dumps(row), flush=True)
        out.write_text(json.dumps({"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
                                   "what": "corner_bound at Dir(1,...,1): CPU s (less the import's) and peak growth",
                                   "rows": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
