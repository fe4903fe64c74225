"""Shared pieces of the side-by-side benchmarks: an old tree's ``src`` (``--old OLD/src``, a clone of the tree before
a change) against this tree's (``--new src``), one process at a time, recorded in one JSON file (``--out``).

    import _side                      # the benchmarks/ folder is on sys.path when a script in it runs
    ap = _side.parser(__doc__)        # --old, --new, --out; add the script's own options and cells
    _side.write(args.out, _side.record("benchmarks/x.py", rows))

And of the benchmarks that run one release a process (:func:`released_cells`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

#: The start of a child (``python -c``) at one cell ``[eps, released]`` (``argv[1]``, as JSON): ``m`` the release,
#: ``a`` Dir(1,...,1), ``n``, ``spec`` (``optimal``, average) and its noise-aware ``plan``, made first as a command does;
#: :data:`WORST_CELL_PRELUDE` the same with ``spec`` at the worst case.
CELL_PRELUDE = r"""
import hashlib, json, sys, time
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
eps, released = json.loads(sys.argv[1])
m = np.array(released, dtype=np.int64)
a, n = np.ones(m.size), int(m.sum())
spec = ReleaseSpec.of("optimal", eps, objective="average")
plan = spec.mechanism.plan(Task.POSTERIOR, spec, a, n)
"""
WORST_CELL_PRELUDE = CELL_PRELUDE.replace('objective="average"', 'objective="worst"')
#: The rest of such a child that runs the noise-aware column at the release (``local_posterior`` alone, the solve limit
#: raised by :func:`released_cells`) and prints the plan's route, the seconds it holds to the solve limit, the column's
#: CPU s and their ratio.
COLUMN_RUN = r"""
held = max(s for name, s in plan.costs if name == "DPPOSTERIOR_MAX_SOLVE_SECONDS")
t0 = time.process_time()
spec.mechanism.local_posterior(plan, a, n, spec, m)
cpu = time.process_time() - t0
print(json.dumps({"route": plan.route, "planned_limited_seconds": round(held, 2), "cpu_seconds": round(cpu, 2),
                  "run_over_plan": round(cpu / held, 3)}))
"""

#: :data:`CELL_PRELUDE`, then the k = 4 class route's first stages at the cell, timed (CPU s ``t0`` to ``t1`` to
#: ``t2``): ``w`` the working eps, ``W`` and ``Dc`` the column's radii, ``Z`` the reach region's positive-part classes
#: (``reach_classes``) and their ``lead`` and ``group`` (``clamp_groups``); ``L`` the lattice mechanisms' module.
CLASSES_PRELUDE = CELL_PRELUDE + r"""
from dpposterior.mechanisms import lattice as L
from dpposterior.lattice.column import clamp_groups, reach_classes
k = m.size
w = L.working_epsilon(eps, k)
W, Dc = L.LATTICE.column_radius(n, k, w), L._radius(k, w, 1e-12)
t0 = time.process_time()
Z, counts = reach_classes(n, k, m, Dc, W)
t1 = time.process_time()
lead, group = clamp_groups(a, n, w, Z, Dc)
t2 = time.process_time()
"""


def parser(doc: str | None) -> argparse.ArgumentParser:
    """An argument parser described by the first line of ``doc``, with the three options every side-by-side run
    takes: the two trees' ``src`` folders and the JSON file it writes."""
    ap = argparse.ArgumentParser(description=(doc or "").splitlines()[0] if doc else None)
    ap.add_argument("--old", required=True, help="the old tree's src (OLD/src)")
    ap.add_argument("--new", required=True, help="this tree's src")
    ap.add_argument("--out", required=True, help="the JSON file written")
    return ap


def now() -> str:
    """The UTC time to the second, as every record states it."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def command(script: str) -> str:
    """The command line that reproduces this run (``python <script> <its arguments>``)."""
    return f"python {script} " + " ".join(sys.argv[1:])


def record(script: str, rows: list, old: str | None = None) -> dict:
    """A run's record: the host, its CPU count, the date, the command and the rows. ``old``, the old tree's path as
    given, is written ``OLD/src`` in the command (a machine path means nothing to a reader)."""
    cmd = command(script)
    if old:
        cmd = cmd.replace(os.path.abspath(old), "OLD/src").replace(old, "OLD/src")
    return {"host": os.uname().nodename, "cpus": os.cpu_count(), "date": now(), "command": cmd, "rows": rows}


def same_output(a: dict, b: dict) -> bool:
    """Whether two runs' outputs are the same bit for bit (both have a SHA-256 and it is equal)."""
    return a.get("sha256") is not None and a.get("sha256") == b.get("sha256")


def write(path: str, rec: dict) -> None:
    """``rec`` as indented JSON with a final newline."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(rec, fh, indent=1)
        fh.write("\n")


def timed(argv: list[str], env: dict, timeout: float = 900) -> tuple[subprocess.CompletedProcess, dict]:
    """Run ``argv`` under ``/usr/bin/time``: the finished process (its text output captured) and a row of its CPU s
    (user + system), peak resident MiB, exit status and the 1-minute load before it started."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        load = os.getloadavg()[0]
        proc = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", tf.name, *argv], capture_output=True,
                              text=True, env=env, timeout=timeout)
        user, system, peak = tf.read().split()[-3:]
    return proc, {"cpu_s": round(float(user) + float(system), 2), "peak_mb": round(int(peak) / 1024, 1),
                  "rc": proc.returncode, "load": round(load, 2)}


def old_and_new(cell: str, child: str, old: str, new: str, timeout: float = 1800) -> dict:
    """One side-by-side row at a cell ``EPS:RELEASED``: ``child`` (``python -c``) under the old tree's ``src`` then the
    new one's, each in its own process with the solve limit raised to 1e5 and ``[eps, released]`` as JSON in
    ``argv[1]``; each side its :func:`timed` row and the child's last output line (a JSON object), or its error."""
    eps, counts = cell.split(":")
    arg = json.dumps([float(eps), [int(x) for x in counts.split(",")]])
    row: dict = {"cell": cell}
    for name, src in (("old", old), ("new", new)):
        env = dict(os.environ, PYTHONPATH=os.path.abspath(src), DPPOSTERIOR_MAX_SOLVE_SECONDS="1e5")
        proc, t = timed([sys.executable, "-c", child, arg], env, timeout=timeout)
        row[name] = {**t, **(json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0
                             else {"error": proc.stderr.strip().splitlines()[-1:]})}
    return row


def released_cells(doc: str | None, child: str) -> None:
    """The main of a benchmark that runs ``child`` (``python -c``) once per cell ``EPS:RELEASED`` (``--out`` and the
    cells from the command line), each in its own process with the solve limit raised to 1e5, passing
    ``[eps, released]`` as JSON in ``argv[1]``; each row is the cell, the load before and the child's last output line
    (a JSON object), printed and written with the rows before it after every cell (``{"command", "date", "runs"}``)."""
    ap = argparse.ArgumentParser(description=(doc or "").splitlines()[0] if doc else None)
    ap.add_argument("--out", required=True)
    ap.add_argument("cells", nargs="+")
    args = ap.parse_args()
    env = dict(os.environ, DPPOSTERIOR_MAX_SOLVE_SECONDS="1e5")
    runs = []
    for cell in args.cells:
        eps, counts = cell.split(":")
        released = [int(x) for x in counts.split(",")]
        load = os.getloadavg()[0]
        out = subprocess.run([sys.executable, "-c", child, json.dumps([float(eps), released])], env=env,
                             capture_output=True, text=True, check=True)
        row = {"epsilon": float(eps), "released": released, "load_before": round(load, 1),
               **json.loads(out.stdout.strip().splitlines()[-1])}
        runs.append(row)
        print(json.dumps(row), flush=True)
        write(args.out, {"command": " ".join(sys.argv), "date": datetime.date.today().isoformat(), "runs": runs})


def column_cells(doc: str | None, child: str, script: str, compare) -> None:
    """The main of a side-by-side benchmark of the noise-aware column: :func:`old_and_new` at every cell of the
    command line (``--old``, ``--new``, ``--out``, cells ``EPS:RELEASED``), each row with ``new_over_old`` (the
    columns' CPU s) and what ``compare(old, new)`` returns (a dict: how the two outputs differ), printed and written
    with the rows before it after every cell."""
    ap = parser(doc)
    ap.add_argument("cells", nargs="+", help="EPS:RELEASED, e.g. 0.4:5,5,5,5")
    args = ap.parse_args()
    rows = []
    for cell in args.cells:
        row = old_and_new(cell, child, args.old, args.new)
        shown = {"cell": cell}
        if "column_cpu_s" in row["old"] and "column_cpu_s" in row["new"]:
            row["new_over_old"] = round(row["new"]["column_cpu_s"] / max(row["old"]["column_cpu_s"], 1e-9), 3)
            row.update(compare(row["old"], row["new"]))
            shown |= {k: v for k, v in row.items() if k not in ("cell", "old", "new")}
        rows.append(row)
        print(json.dumps(shown), row["old"].get("column_cpu_s"), row["new"].get("column_cpu_s"), flush=True)
        write(args.out, record(script, rows, old=args.old))
