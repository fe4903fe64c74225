"""Planned against run for the k = 4 average, loss and orbit routes, the k = 3 local errors and the k = 3 corner remap's
release: CPU seconds and peak bytes.

Each call (one exact-errors call of ``benchmarks/plans.py``'s child: the plan, then ``expected_errors``; a call ending
in ``"draw"``, :data:`DRAW_CHILD`: the plan of a padded release, then one release seeded 1 at counts near n/3) runs once in
its own process on ``--run`` (a tree's ``src``; the routes run are the same on both trees, only their plans differ),
under limits raised so that a call refused today runs too; the plans of ``--old`` and of this tree are computed from
public (k, n, eps) beside it.  Writes ``benchmarks/plans_fit.json`` (or ``--out``), one row per call:
``planned_old``/``planned_new`` (seconds, bytes), ``cpu_seconds``, ``peak_growth_bytes`` and the load before.
``tests/library/test_plans_fit.py`` holds this tree's plans above the recorded runs.

    python benchmarks/plans_fit.py --old OLD/src [--run OLD/src] [--only TEXT] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from plans import CHILD  # noqa: E402

#: (mechanism, objective or None, k, n, eps)
CALLS = [
    ("lattice", "average", 4, 10, 1.0), ("lattice", "average", 4, 20, 1.0), ("lattice", "average", 4, 20, 2.0),
    ("lattice", "average", 4, 50, 2.0), ("lattice", "average", 4, 10, 0.5), ("lattice", "average", 4, 50, 1.0),
    ("geometric", None, 4, 50, 2.0), ("lszhang", None, 4, 50, 2.0), ("geometric", None, 4, 50, 1.0),
    ("lszhang", None, 4, 50, 1.0),
    ("lattice", "worst", 3, 20, 0.25), ("lattice", "average", 3, 100, 1.0), ("lattice", "average", 3, 300, 1.0),
    ("lattice", "average", 3, 50, 0.25), ("lattice", "average", 3, 100, 0.25), ("lattice", "average", 4, 20, 0.5),
    ("geometric", None, 4, 50, 0.5), ("lattice", "average", 3, 300, 0.25),
    ("lattice", "average", 3, 1000, 0.5), ("lattice", "average", 3, 400, 0.5), ("lattice", "average", 3, 700, 0.6),
    ("lszhang", None, 4, 100, 2.0), ("geometric", None, 4, 100, 2.0), ("lszhang", None, 4, 100, 1.0),
    ("geometric", None, 4, 100, 1.0), ("lszhang", None, 4, 160, 1.0),
    ("lszhang", None, 4, 100, 0.5), ("geometric", None, 4, 100, 0.5),
    ("lszhang", None, 4, 200, 1.0), ("geometric", None, 4, 200, 1.0),
    # the k = 3 corner remap's release (``worst`` past the window's LP), eps 0.6 to 0.9: the corners apart (n >= 300)
    # and not (n = 100)
    ("optimal", "worst", 3, 300, 0.6, "draw"), ("optimal", "worst", 3, 1000, 0.6, "draw"),
    ("optimal", "worst", 3, 300, 0.75, "draw"), ("optimal", "worst", 3, 1000, 0.75, "draw"),
    ("optimal", "worst", 3, 300, 0.9, "draw"), ("optimal", "worst", 3, 1000, 0.9, "draw"),
    ("optimal", "worst", 3, 100, 0.75, "draw"),
]

#: one release call in its own process (``mech, objective, k, n, eps, "draw"``): the padded release's plan, then the
#: release, seeded 1, at counts near n/3 (its route and cost depend on public inputs only), CPU s and peak growth
DRAW_CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
import dpposterior as dp
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
mech, objective, k, n, eps, _ = json.loads(sys.argv[1])
spec = ReleaseSpec.of(mech, eps, objective=objective)
a = np.ones(k)
counts = [n // k] * (k - 1) + [n - (k - 1) * (n // k)]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t0 = time.process_time()
plan = spec.mechanism.plan(Task.DRAW, spec, a, n)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    r = dp.release(mech, a, counts, epsilon=eps, objective=objective, rng=1)
cpu = time.process_time() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"route": plan.route, "planned_seconds": plan.seconds, "planned_bytes": plan.memory_bytes,
                  "cpu_seconds": cpu, "peak_growth_bytes": peak - base, "released": [int(x) for x in r.released_counts]}))
"""

#: the plan of one call, as JSON (a tree's src first on the path)
PLAN = r"""
import json, sys
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
out = []
for mech, objective, k, n, eps, *draw in json.loads(sys.argv[1]):
    spec = ReleaseSpec.of(mech, eps, **({"objective": objective} if objective else {}))
    p = spec.mechanism.plan(Task.DRAW if draw else Task.ERRORS, spec, np.ones(k), n)
    out.append({"route": p.route, "seconds": p.seconds, "bytes": p.memory_bytes, "refused": bool(p.refused())})
print(json.dumps(out))
"""

#: limits raised so that a call refused today runs (not the pair budget: it chooses the translation routes)
RAISED = {"DPPOSTERIOR_MAX_SOLVE_SECONDS": "1e5", "DPPOSTERIOR_MAX_MEMORY_GB": "8"}


def label(call) -> str:
    mech, objective, k, n, eps, *draw = call
    return f"{mech}{'~' + objective if objective else ''} k={k} n={n} eps={eps:g}{' draw' if draw else ''}"


def plans(src: str, calls, env_extra=None) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=src, **(env_extra or {}))
    return json.loads(subprocess.run([sys.executable, "-c", PLAN, json.dumps(calls)], env=env, check=True,
                                     capture_output=True, text=True).stdout)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the old tree's src")
    parser.add_argument("--run", default=None, help="the src the calls run on (default: --old)")
    parser.add_argument("--only", default="", help="only the calls whose label holds this (comma: any of these)")
    parser.add_argument("--plans-only", action="store_true", help="recompute the plans of the calls in --out only")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "plans_fit.json"))
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    kept = json.loads(out.read_text(encoding="utf-8"))["calls"] if out.exists() else []
    new_src = str(ROOT / "src")
    if args.plans_only:
        calls = [tuple(c["args"]) for c in kept]
        old, new = plans(args.old, calls), plans(new_src, calls)
        old_limits, new_limits = plans(args.old, calls, RAISED), plans(new_src, calls, RAISED)
        for c, o, w, ol, nl in zip(kept, old, new, old_limits, new_limits):
            c.update(planned_old=ol, planned_new=nl, refused_old=o["refused"], refused_new=w["refused"])
        rows = kept
    else:
        wanted = [c for c in CALLS if not args.only or any(s in label(c) for s in args.only.split(","))]
        env = dict(os.environ, PYTHONPATH=args.run or args.old, **RAISED)
        rows = [c for c in kept if c["call"] not in {label(w) for w in wanted}]
        for call in wanted:
            load = os.getloadavg()[0]
            child = DRAW_CHILD if len(call) > 5 else CHILD
            proc = subprocess.run([sys.executable, "-c", child, json.dumps(list(call))], env=env, capture_output=True,
                                  text=True)
            row = {"call": label(call), "args": list(call), "load_before": round(load, 2)}
            if proc.returncode:
                row["failed"] = proc.stderr.strip().splitlines()[-1]
            else:
                row.update(json.loads(proc.stdout.strip().splitlines()[-1]))
            (o,), (w,) = plans(args.old, [call], RAISED), plans(new_src, [call], RAISED)
            (ro,), (rw,) = plans(args.old, [call]), plans(new_src, [call])
            row.update(planned_old=o, planned_new=w, refused_old=ro["refused"], refused_new=rw["refused"])
            print(json.dumps(row), flush=True)
            rows.append(row)
            out.write_text(json.dumps({"date": datetime.date.today().isoformat(), "cores": os.cpu_count(),
                                       "calls": rows}, indent=1) + "\n", encoding="utf-8")
    out.write_text(json.dumps({"date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "calls": rows},
                              indent=1) + "\n", encoding="utf-8")
    print(f"{'call':<36} {'route':<22} {'old s':>7} {'new s':>7} {'CPU s':>7} {'old MB':>7} {'new MB':>7} {'peak MB':>7}")
    for r in rows:
        if "cpu_seconds" not in r:
            print(f"{r['call']:<36} {r.get('failed', '')[:80]}")
            continue
        o, w = r["planned_old"], r["planned_new"]
        print(f"{r['call']:<36} {r['route']:<22} {o['seconds']:7.2f} {w['seconds']:7.2f} {r['cpu_seconds']:7.2f} "
              f"{o['bytes'] / 1e6:7.0f} {w['bytes'] / 1e6:7.0f} {r['peak_growth_bytes'] / 1e6:7.0f}"
              f"{'  refused old' if r['refused_old'] else ''}{'  refused new' if r['refused_new'] else ''}")


if __name__ == "__main__":
    main()
