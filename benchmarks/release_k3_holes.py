"""``release --mechanism optimal --noise-aware`` at k = 3, Dir(1,1,1), counts near (n/3, ...), side by side: the tree
before and this tree, one process per cell, one after the other (never two at once), CPU s (user + sys) and peak
RSS of each by ``/usr/bin/time``, its exit status and the last line of its error, the load before each, and each
tree's plans of the draw and the posterior (route, seconds, bytes or the refusal).

    python benchmarks/release_k3_holes.py --old OLD/src --new src --out benchmarks/release_k3_holes.json \\
        average:50:0.1 worst:200:0.15 ...
    python benchmarks/release_k3_holes.py --old OLD/src --new src --out F --plans-only --grid

A cell is ``objective:n:eps``; ``--grid`` adds eps 0.1, 0.15, 0.25, 0.5 x n = 15, 50, 100, 200, 300, 500, 700,
1000, 1e4 x both objectives.  ``--plans-only`` records the plans and runs nothing; otherwise a cell runs in a tree
where that tree's plans admit it (``--run-refused`` runs it anyway, to record its one-line refusal).  Each run's JSON
output is kept as its SHA-256 (``released_counts`` and the posterior's floats), so where a release's law should not
change the two trees' outputs are compared bit for bit.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _side  # noqa: E402
from release_k4_holes import timed_release  # noqa: E402

GRID_EPS = (0.1, 0.15, 0.25, 0.5)
GRID_N = (15, 50, 100, 200, 300, 500, 700, 1000, 10_000)


def _counts(n: int) -> str:
    q = n // 3
    return f"{q},{q},{n - 2 * q}"


def _plan(src: str, objective: str, n: int, eps: float) -> dict:
    """A tree's plans of the cell's draw and posterior (route, seconds, bytes, the refusal as admitted), in a
    subprocess, with its CPU seconds."""
    code = (
        "import json, resource, numpy as np\n"
        "from dpposterior import noise_aware\n"
        "from dpposterior.mechanisms.optimal import OPTIMAL\n"
        "from dpposterior.mechanisms.spec import ReleaseSpec\n"
        f"s = ReleaseSpec.of('optimal', {eps!r}, objective={objective!r})\n"
        "out = {}\n"
        "for name, f in (('draw', OPTIMAL.plan_draw), ('posterior', OPTIMAL.plan_posterior)):\n"
        "    try:\n"
        f"        p = f(np.ones(3), {n}, s)\n"
        "        out[name] = {'route': p.route, 'seconds': p.seconds, 'bytes': p.memory_bytes,\n"
        "                     'refusal': p.refused()}\n"
        "    except Exception as exc:\n"
        "        out[name] = {'refusal': str(exc)}\n"
        "try:\n"
        f"    p = noise_aware.plan_posterior('optimal', np.ones(3), {n}, epsilon={eps!r}, objective={objective!r})\n"
        "    out['admitted'] = {'route': p.route, 'seconds': p.seconds, 'bytes': p.memory_bytes}\n"
        "except Exception as exc:\n"
        "    out['admitted'] = {'refusal': str(exc)}\n"
        "ru = resource.getrusage(resource.RUSAGE_SELF)\n"
        "out['plan_cpu_s'] = round(ru.ru_utime + ru.ru_stime, 2)\n"
        "print(json.dumps(out))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900)
    return json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-300:]}


def _fits(plan: dict) -> bool:
    return (not plan.get("draw", {}).get("refusal") and "refusal" not in plan.get("admitted", {"refusal": 1}))


def run(src: str, objective: str, n: int, eps: float, seed: int = 1) -> dict:
    return timed_release(src, "1,1,1", _counts(n), objective, eps, seed)


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("--grid", action="store_true")
    ap.add_argument("--plans-only", action="store_true")
    ap.add_argument("--run-refused", action="store_true")
    ap.add_argument("--skip-old-runs", action="store_true", help="plan the old tree but run only the new")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trees", default="old,new", help="which trees to plan and run (the map of the holes: old)")
    ap.add_argument("cells", nargs="*")
    args = ap.parse_args()
    cells = list(args.cells)
    if args.grid:
        cells += [f"{o}:{n}:{e}" for e in GRID_EPS for n in GRID_N for o in ("average", "worst")]
    trees = tuple((name, os.path.abspath(src)) for name, src in (("old", args.old), ("new", args.new))
                  if name in args.trees.split(","))
    rows = []
    for cell in cells:
        objective, n, eps = cell.split(":")[0], int(cell.split(":")[1]), float(cell.split(":")[2])
        row = {"cell": cell, "objective": objective, "n": n, "eps": eps}
        for name, src in trees:
            row["plan_" + name] = _plan(src, objective, n, eps)
        for name, src in trees:
            if args.plans_only or (name == "old" and args.skip_old_runs):
                continue
            if _fits(row["plan_" + name]) or args.run_refused:
                row[name] = run(src, objective, n, eps, args.seed)
        if "old" in row and "new" in row:
            row["same_output"] = _side.same_output(row["old"], row["new"])
        print(json.dumps(row), flush=True)
        rows.append(row)
    _side.write(args.out, _side.record("benchmarks/release_k3_holes.py", rows))


if __name__ == "__main__":
    main()
