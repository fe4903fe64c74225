"""``dpposterior compare`` over a grid of priors, sizes and epsilons: what ranks first, how long it takes, how much memory.

Each call runs as its own process (``dpposterior compare ... --json``), timed with its CPU seconds (user + system)
and peak resident memory (``ru_maxrss`` of the child); the first row of each ranking (worst case and average) is
recorded, with every row left out and why.  Writes ``benchmarks/compare_grid.json``.

    python benchmarks/compare_grid.py [--eps 0.5,1,2] [--grid all|target] [--jobs 1] [--out benchmarks/compare_grid.json]

The grid is Dir(1,1,1) at n = 5, 10, 20, 30, 50, 100, 300, 1000 and Dir(1,1,1,1) at n = 3, 5, 10, 20, 50, 100.  The
aim: the first row of each ranking is the LP optimum or the lattice release wherever either runs within the default
limits, and each call within 120 s and 2 GB on 2 cores.  The machine may be shared: the load averages are recorded.

``--grid worst3`` runs Dir(1,1,1) at n = 10, 20, 30, 50, 100, 200, 300, 500, 1000 (``--ns`` a part of them) and
records ``worst_ratio``: the best release's worst case over the yardstick's, as ``compare`` prints it.

``--grid target`` runs the issue's target calls only (Dir(1,1,1) at n = 1000, Dir(1,1,1,1) at n = 100; eps 0.5, 1, 2;
the yardstick included), each recorded with every row it showed and every row it left out with its one-line reason,
and whether it kept to 120 CPU s and 2 GB.  ``--grid average3``: Dir(1,1,1) at n = 10, 20, 30, 50, 100, 200, 300,
1000, recording the bracket of each objective as ``compare`` prints it (best release / yardstick; the average's target
is 1.10 at n <= 300).  ``--jobs`` runs that many calls side by side (CPU seconds and peak memory
are each process's own, ``os.wait4``, as ``/usr/bin/time -v`` reports them).
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
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parents[1]
GRID = [((1, 1, 1), n) for n in (5, 10, 20, 30, 50, 100, 300, 1000)] + \
       [((1, 1, 1, 1), n) for n in (3, 5, 10, 20, 50, 100)]
TARGET = [((1, 1, 1), 1000), ((1, 1, 1, 1), 100)]
#: ``--grid average3``: the k = 3 average's bracket (best average / certified yardstick) at every size of the target
AVERAGE3 = [((1, 1, 1), n) for n in (10, 20, 30, 50, 100, 200, 300, 1000)]
#: the target of the k = 3 average's bracket at n <= 300
AVERAGE_TARGET = 1.10
#: ``--grid worst3``: the k = 3 worst case's bracket (best release's worst case over the certified yardstick) at
#: Dir(1,1,1) over n (``--ns`` picks a part of it)
WORST3 = [((1, 1, 1), n) for n in (10, 20, 30, 50, 100, 200, 300, 500, 1000)]
BEST = ("optimal (", "lattice (")
#: the issue's target for one call of ``compare`` on 2 cores
TARGET_CPU_SECONDS, TARGET_PEAK_MB = 120.0, 2048


def run(prior, n: int, eps: float, env: dict) -> dict:
    """One ``compare --json`` in its own process: its output, CPU seconds and peak memory (``os.wait4``)."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as out_f, tempfile.TemporaryFile("w+") as err_f:
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "dpposterior", "compare", "--prior", ",".join(map(str, prior)),
                                 "--n", str(n), "--epsilon", f"{eps:g}", "--json"], env=env, stdout=out_f, stderr=err_f)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out_f.seek(0)
        err_f.seek(0)
        proc.stdout, proc.stderr = out_f.read(), err_f.read()
    cpu = usage.ru_utime + usage.ru_stime
    after = usage
    out = {"prior": list(prior), "n": n, "epsilon": eps, "returncode": proc.returncode, "wall_seconds": round(wall, 1),
           "cpu_seconds": round(cpu, 1), "peak_mb": round(after.ru_maxrss / 1024), "load_before": round(load, 2)}
    if proc.returncode:
        out["error"] = proc.stderr.strip().splitlines()[-1]
        return out
    got = json.loads(proc.stdout)
    rows = got["releases"]
    done = [r for r in rows if "error" not in r]
    out["shown"] = {r["release"]: {"worst": r["worst_expected_error"], "average": r["average_expected_error"],
                                   "route": r.get("route")} for r in done}
    yard = got.get("yardstick")
    if yard is not None:
        out["yardstick"] = yard
        if isinstance(yard, dict) and done:  # the bracket as compare prints it: best release over the bound
            out["worst_ratio"] = round(min(r["worst_expected_error"] for r in done) / yard["worst"], 4)
            out["average_ratio"] = round(min(r["average_expected_error"] for r in done) / yard["average"], 4)
    out["first_worst"] = done[0]["release"] if done else None
    out["first_average"] = min(done, key=lambda r: r["average_expected_error"])["release"] if done else None
    out["left_out"] = {r["release"]: r["error"] for r in rows if "error" in r}
    out["best_computed"] = any(r["release"].startswith(BEST) for r in done)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", default="0.5,1,2")
    parser.add_argument("--grid", choices=("all", "target", "average3", "worst3"), default="all")
    parser.add_argument("--ns", default="", help="with --grid average3 or worst3: only these n (comma-separated)")
    parser.add_argument("--jobs", type=int, default=1, help="calls side by side")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "compare_grid.json"))
    args = parser.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    grid = {"all": GRID, "target": TARGET, "average3": AVERAGE3, "worst3": WORST3}[args.grid]
    if args.ns:
        grid = [(prior, n) for prior, n in grid if n in {int(x) for x in args.ns.split(",")}]
    todo = [(prior, n, eps) for eps in (float(x) for x in args.eps.split(",")) for prior, n in grid]
    print(f"{'prior':<10} {'n':>5} {'eps':>4} {'CPU s':>6} {'MB':>5}  first (worst) / first (average)")
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:  # each call its own process; the threads only wait
        calls = list(pool.map(lambda c: run(*c, env), todo))
    for got in calls:
        got["within_target"] = got["cpu_seconds"] <= TARGET_CPU_SECONDS and got["peak_mb"] <= TARGET_PEAK_MB
        what = got.get("error") or f"{got['first_worst']} / {got['first_average']}"
        if "average_ratio" in got:
            what += f"  ratios {got['worst_ratio']:.4f} / {got['average_ratio']:.4f}"
        print(f"{'Dir' + str(len(got['prior'])):<10} {got['n']:>5} {got['epsilon']:>4g} {got['cpu_seconds']:>6.1f} "
              f"{got['peak_mb']:>5}  {what}")
        for label, why in got.get("left_out", {}).items():
            print(f"{'':<30}left out: {label}: {why}")
    pathlib.Path(args.out).write_text(json.dumps({"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
                                                  "grid": args.grid, "jobs": args.jobs,
                                                  "load_after": round(os.getloadavg()[0], 2), "calls": calls},
                                                 indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
