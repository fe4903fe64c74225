"""Where one ``expected_error`` job spends its CPU: per grid point, and the share inside HiGHS's linear programs.

    PYTHONPATH=src python benchmarks/job_points.py EXPERIMENT MECHANISM --results RUN/results [--top 12] [--json F]

Runs the job ``expected_error/EXPERIMENT/MECHANISM`` of this checkout's ``config.yaml`` in this process, under the
pipeline's budgets (:func:`dpposterior.paper.limits.apply`), as the stage runs it: the stage's spec, its
same-release grid and its earlier experiments' grids read from ``--results`` (a finished run's results folder, e.g.
a clone's after ``benchmarks/main_job.sh``: the files the pipeline would hand the job), then
:func:`dpposterior.paper.beyond.expected_error_grid`.  It prints

* the job's CPU seconds (``time.process_time``) and the share spent inside ``scipy.optimize.linprog`` (HiGHS: the
  k = 2 minimax remap's restricted LPs and its second stage, the k >= 3 linear program, the oracle), counted once
  per call however the call is nested;
* per point (prior, n, eps, distance, measure) its CPU seconds and linprog seconds, the costliest ``--top`` of them
  (a point's time is :func:`dpposterior.accuracy.expected_errors`'s; the job's rest is the rows taken from other
  grids, plans and the checks before them);
* whether the grid is the one in ``--results`` (every float by its bits; a run of another commit or config differs).

Every LP is solved exactly as the job solves it (the wrapper only times the call), with the job's thread counts
(``dpposterior.paper.jobserver.THREADS``, 1), so the numbers are the job's own.
CPU seconds, not wall: the host's 2 cores are shared.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]



def _cell(x) -> str:
    """A grid cell as text: a list (a computed row's) and an array (one read back from parquet) by their numbers, a
    float by its bits (so NaN equals NaN)."""
    if x is None or isinstance(x, str):
        return repr(x)
    if isinstance(x, float):
        return float(x).hex()
    try:
        return repr([float(y).hex() for y in x])
    except TypeError:
        return repr(x)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("experiment")
    ap.add_argument("mechanism")
    ap.add_argument("--results", required=True, help="a finished run's results folder (the job's input grids)")
    ap.add_argument("--config", default=str(ROOT / "config.yaml"))
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--json", help="also write the numbers to this file")
    args = ap.parse_args(argv)
    # the thread counts a pipeline job runs with (the rule's ``threads: 1``, set by Snakemake's shell and by the job
    # server before it imports numpy), set before numpy is imported here: a reduction that BLAS would split across
    # threads then sums as the job's does (with 2 threads one `frontier` `ehd` average moved by an ulp)
    from dpposterior.paper.jobserver import THREADS  # the standard library only

    for name in THREADS:
        os.environ[name] = "1"

    import numpy as np
    import pandas as pd
    import scipy.optimize
    import yaml

    from dpposterior.paper.limits import apply

    apply()
    import dpposterior.paper.beyond as beyond
    from dpposterior.paper.stages.expected_error import EXPECTED_ERROR

    config = yaml.safe_load(open(args.config, encoding="utf-8"))
    spec = EXPECTED_ERROR.spec(config, args.experiment)
    inputs = EXPECTED_ERROR.same_release_input(config, args.experiment, args.mechanism, args.results)

    lp = {"seconds": 0.0, "calls": 0, "depth": 0}
    solve = scipy.optimize.linprog

    def timed_linprog(*a, **k):
        lp["depth"] += 1
        t = time.process_time()
        try:
            return solve(*a, **k)
        finally:
            lp["depth"] -= 1
            if lp["depth"] == 0:
                lp["seconds"] += time.process_time() - t
                lp["calls"] += 1

    scipy.optimize.linprog = timed_linprog  # the library imports it where it solves (`from scipy.optimize import`)

    points = []
    errors = beyond.expected_errors

    def timed_errors(release, prior, n, *a, **k):
        t, lp0 = time.process_time(), lp["seconds"]
        try:
            return errors(release, prior, n, *a, **k)
        finally:
            points.append({"prior": [float(x) for x in prior], "n": int(n), "epsilon": float(release.epsilon),
                           "distance": release.distance, "measure": k.get("measure"),
                           "cpu_seconds": round(time.process_time() - t, 3),
                           "linprog_seconds": round(lp["seconds"] - lp0, 3)})

    beyond.expected_errors = timed_errors
    same = pd.read_parquet(inputs["same"]) if "same" in inputs else None
    earlier = [pd.read_parquet(p) for p in inputs.get("earlier", [])]
    t0 = time.process_time()
    df = beyond.expected_error_grid(args.mechanism, spec, same, earlier=earlier or None)
    total = time.process_time() - t0

    run_file = Path(args.results) / "expected_error" / args.experiment / f"{args.mechanism}.parquet"
    same_grid = None
    if run_file.exists():
        old = pd.read_parquet(run_file).drop(columns=["experiment"])
        same_grid = len(old) == len(df) and list(old.columns) == list(df.columns) and all(
            np.array_equal(old[c].to_numpy(), df[c].to_numpy(), equal_nan=df[c].dtype.kind == "f")
            if df[c].dtype.kind in "fiub" else [_cell(x) for x in old[c]] == [_cell(x) for x in df[c]]
            for c in df.columns)
    in_points = sum(p["cpu_seconds"] for p in points)
    print(f"expected_error/{args.experiment}/{args.mechanism}: {total:.1f} CPU s, {len(df)} rows, "
          f"{len(points)} computed; inside linprog (HiGHS) {lp['seconds']:.1f} s in {lp['calls']} calls "
          f"({100 * lp['seconds'] / total:.0f} %); in the points {in_points:.1f} s; the grid in {args.results}: "
          f"{'same' if same_grid else 'differs' if same_grid is False else 'absent'}")
    print("\n| prior | n | eps | distance | measure | CPU s | linprog s |\n|---|---|---|---|---|---|---|")
    for p in sorted(points, key=lambda p: -p["cpu_seconds"])[:args.top]:
        print(f"| {p['prior']} | {p['n']} | {p['epsilon']:g} | {p['distance']} | {p['measure']} | "
              f"{p['cpu_seconds']:.2f} | {p['linprog_seconds']:.2f} |")
    if args.json:
        out = {"job": f"expected_error/{args.experiment}/{args.mechanism}", "results": os.path.abspath(args.results),
               "cpu_seconds": round(total, 2), "linprog_seconds": round(lp["seconds"], 2),
               "linprog_calls": lp["calls"], "rows": len(df), "same_grid_as_results": same_grid,
               "load_average": os.getloadavg(), "points": sorted(points, key=lambda p: -p["cpu_seconds"])}
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
