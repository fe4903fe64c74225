"""The noise-aware posterior at scale: ``release --noise-aware`` and ``posterior`` over the issue's settings.

Each setting runs the command line in its own process (so its CPU seconds and peak memory are its own: ``os.wait4``'s
resource usage of the child, user + system seconds and the peak resident set), with a wall-clock cap; a refusal is
recorded with its one line.  This prints a table and writes ``benchmarks/noise_aware_scale.json`` (with the host's
load averages beside the numbers: the machine may be shared).

    python benchmarks/noise_aware_scale.py [--out benchmarks/noise_aware_scale.json] [--quick]
    python benchmarks/noise_aware_scale.py --column   # the local column's settings: benchmarks/noise_aware_column.json
    python benchmarks/noise_aware_scale.py --target   # the issue's whole target grid: benchmarks/noise_aware_target.json
    python benchmarks/noise_aware_scale.py --target --only 4:10000:1   # those rows rerun, merged into the JSON
    python benchmarks/noise_aware_scale.py --small-eps  # k = 3, worst, eps 0.1 to 0.5: noise_aware_small_eps.json

Settings: k = 3 at n = 15, 60, 120, 300, 1000, 1e6, eps 0.1 to 30; k = 4 at n = 10 and 1e4, eps
0.25, 1, 30; ``optimal`` with both objectives, ``lattice~average``, ``geometric``; Dir(1, ..., 1), the data set near
the centre of R(n).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: wall-clock cap of one setting (the target is 60 s on 2 cores; NOISE_AWARE_CAP_S to change it)
CAP_S = float(os.environ.get("NOISE_AWARE_CAP_S", "150"))

#: (mechanism, objective or None, k, n, eps)
GRID = [
    ("geometric", None, 3, 10**6, 0.1),
    ("geometric", None, 3, 10**6, 1.0),
    ("geometric", None, 3, 10**6, 30.0),
    ("geometric", None, 4, 10**4, 1.0),
    ("optimal", "average", 3, 15, 0.1),
    ("optimal", "average", 3, 15, 1.0),
    ("optimal", "average", 3, 15, 30.0),
    ("optimal", "worst", 3, 15, 1.0),
    ("optimal", "average", 3, 60, 1.0),
    ("optimal", "average", 3, 120, 1.0),
    ("optimal", "average", 3, 120, 2.0),
    ("optimal", "average", 3, 300, 2.0),
    ("optimal", "average", 3, 1000, 5.0),
    ("optimal", "worst", 3, 24, 1.0),
    ("optimal", "worst", 3, 120, 1.0),
    ("optimal", "average", 3, 10**6, 1.0),
    ("optimal", "average", 4, 10, 1.0),
    ("optimal", "average", 4, 10, 0.25),
    ("optimal", "worst", 4, 10, 1.0),
    ("optimal", "average", 4, 10**4, 1.0),
    ("lattice", "average", 3, 120, 1.0),
    ("lattice", "average", 3, 10**6, 30.0),
]
QUICK = [row for row in GRID if row[3] <= 60 or row[0] == "geometric"][:6]
#: The local column's settings (``--column``): ``optimal`` both objectives at k = 3, n = 15, 1e3, 1e6 (eps 0.1, 1, 30)
#: and k = 4, n = 10, 1e4 (eps 0.25, 1, 30), the data set near the centre; and next to a vertex (``"vertex"``: the
#: region's points off R(n) all handed to the one-point search, the slowest case) at k = 3, n = 1e6, eps = 1.
COLUMN_GRID = [("optimal", objective, k, n, eps)
               for k, ns, e0 in ((3, (15, 1000, 10**6), 0.1), (4, (10, 10**4), 0.25))
               for n in ns for eps in (e0, 1.0, 30.0) for objective in ("average", "worst")]
COLUMN_GRID += [("optimal", objective, 3, 10**6, 1.0, "vertex") for objective in ("average", "worst")]
#: The issue's whole target grid (``--target``): ``optimal`` with both objectives, k = 3 at n = 15, 1e3, 1e6 and
#: eps 0.1, 0.25, 1, 30; k = 4 at n = 10, 1e2, 1e4 and eps 0.25, 1, 30; the data set near the centre.
TARGET_GRID = [("optimal", objective, k, n, eps)
               for k, ns, epss in ((3, (15, 1000, 10**6), (0.1, 0.25, 1.0, 30.0)), (4, (10, 100, 10**4), (0.25, 1.0, 30.0)))
               for n in ns for eps in epss for objective in ("average", "worst")]

#: ``--small-eps``: the worst objective at k = 3 and the small eps of the target (0.1, 0.25) with eps = 0.5 beside
#: them, where the corner remap's solve is the release's cost (docs/lattice.md, "One corner for three").
SMALL_EPS_GRID = [("optimal", "worst", 3, n, eps) for eps in (0.1, 0.25, 0.5) for n in (15, 1000, 10**6)]


def counts(k: int, n: int, where: str = "centre") -> str:
    if where == "vertex":
        return ",".join(map(str, [n - 2 * (k - 1)] + [2] * (k - 1)))
    base = [n // k] * k
    base[-1] += n - sum(base)
    return ",".join(map(str, base))


def argv_of(mech: str, objective: str | None, k: int, n: int, eps: float, where: str = "centre") -> list[str]:
    out = ["release", "--prior", ",".join(["1"] * k), "--counts", counts(k, n, where), "--mechanism", mech,
           "--epsilon", f"{eps:g}", "--seed", "7", "--noise-aware", "--json"]
    return out + (["--objective", objective] if objective else [])


def run(argv: list[str]) -> dict:
    """Run ``dpposterior argv`` in a child process: exit status, CPU seconds, peak MB, wall seconds, its output."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "dpposterior.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=os.environ | {"OMP_NUM_THREADS": "1"})
    try:
        out, err = proc.communicate(timeout=CAP_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return {"status": "timeout", "wall_s": CAP_S}
    # the child has been waited for by communicate; its usage is the children's total since the last call
    return {"status": proc.returncode, "out": out.decode(), "err": err.decode().strip(),
            "wall_s": round(time.monotonic() - start, 2)}


def measure(row) -> dict:
    mech, objective, k, n, eps = row[:5]
    before = os.times()
    got = run(argv_of(*row))
    after = os.times()
    import resource

    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    record = {"mechanism": mech, "objective": objective, "k": k, "n": n, "eps": eps, "counts": counts(k, n, *row[5:]),
              "cpu_s": round(cpu, 2),
              "peak_mb_max_so_far": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
              "wall_s": got["wall_s"], "status": got["status"]}
    if got["status"] == 0:
        post = json.loads(got["out"])["noise_aware"]
        record |= {"route": post.get("route"), "dropped_mass_bound": post["dropped_mass_bound"],
                   "mean": [round(x, 6) for x in post["mean"]]}
    elif got["status"] != "timeout":
        record["refusal"] = got["err"].splitlines()[-1] if got["err"] else ""
    return record


def _matches(row, spec: str) -> bool:
    """Whether a grid row ``(mechanism, objective, k, n, eps, ...)`` matches ``K:N:EPS[:OBJECTIVE]``."""
    parts = spec.split(":")
    k, n, eps = int(parts[0]), int(float(parts[1])), float(parts[2])
    return row[2] == k and row[3] == n and row[4] == eps and (len(parts) < 4 or row[1] == parts[3])


def _key(rec: dict) -> tuple:
    return (rec.get("mechanism"), rec.get("objective"), rec.get("k"), rec.get("n"), rec.get("eps"), rec.get("counts"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "noise_aware_scale.json"))
    parser.add_argument("--quick", action="store_true", help="a few settings only")
    parser.add_argument("--column", action="store_true", help="the local column's settings (COLUMN_GRID)")
    parser.add_argument("--target", action="store_true", help="the issue's whole target grid (TARGET_GRID)")
    parser.add_argument("--only", action="append", default=[], metavar="K:N:EPS[:OBJECTIVE]",
                        help="rerun only the grid's rows matching (repeatable); the other rows of --out are kept")
    parser.add_argument("--small-eps", action="store_true", help="k = 3, worst, eps 0.1 to 0.5 (SMALL_EPS_GRID)")
    args = parser.parse_args()
    if args.small_eps and args.out == parser.get_default("out"):
        args.out = str(ROOT / "benchmarks" / "noise_aware_small_eps.json")
    if args.column and args.out == parser.get_default("out"):
        args.out = str(ROOT / "benchmarks" / "noise_aware_column.json")
    if args.target and args.out == parser.get_default("out"):
        args.out = str(ROOT / "benchmarks" / "noise_aware_target.json")
    rows, load = [], os.getloadavg()
    grid = (SMALL_EPS_GRID if args.small_eps else TARGET_GRID if args.target else COLUMN_GRID if args.column
            else QUICK if args.quick else GRID)
    if args.only:
        grid = [row for row in grid if any(_matches(row, spec) for spec in args.only)]
    for row in grid:
        # one process per setting, run from a fresh interpreter so the peak memory is that setting's alone
        code = (f"import json, sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); import noise_aware_scale as b; "
                f"print(json.dumps(b.measure({list(row)!r})))")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
        rec = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else {"row": row,
                                                                                            "error": proc.stderr[-500:]}
        rows.append(rec)
        what = rec.get("route") or (rec.get("refusal", "")[:100] if rec.get("status") != "timeout" else "timeout")
        print(f"{rec.get('mechanism')}~{rec.get('objective')} k={rec.get('k')} n={rec.get('n')} eps={rec.get('eps')}: "
              f"{rec.get('cpu_s')} CPU s, {rec.get('wall_s')} s wall, {rec.get('peak_mb_max_so_far')} MB; "
              f"{what}; bound {rec.get('dropped_mass_bound')}", flush=True)
    if args.only and pathlib.Path(args.out).exists():  # the other rows as they were, each in its place
        fresh = {_key(rec): rec for rec in rows}
        old = json.loads(pathlib.Path(args.out).read_text())["rows"]
        rows = [fresh.pop(_key(rec), rec) for rec in old] + list(fresh.values())
    out = {"host": os.uname().nodename, "cpus": os.cpu_count(), "load": load,
           "load_after": os.getloadavg(), "command": " ".join(["python", "benchmarks/noise_aware_scale.py",
                                                                *sys.argv[1:]]),
           "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), "cap_s": CAP_S, "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
