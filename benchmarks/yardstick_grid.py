"""The yardstick of ``compare`` (certified lower bounds on the best achievable error) against the best release.

For each setting, two processes, each timed by its CPU seconds (user + system, ``os.wait4``) and peak memory:

- the yardstick alone (``dpposterior.yardstick``: the one-count bound, the corner blocks for the worst case and
  the dual flows for the average, each planned within its default share);
- ``dpposterior compare ... --json``: the best computed release (smallest worst case, smallest average) and the
  yardstick compare printed beside it (its share is what the rows leave of compare's limit).

Ratios: best release / bound (1.000 would be a release proven optimal).  Writes ``benchmarks/yardstick_grid.json``:
the entries run replace those of the same prior, n and eps, the others are kept.  ``--no-compare`` takes the best
releases from the entry it replaces (``releases_from`` says so).  ``--against SRC``: the yardstick alone also from
another checkout's ``src`` (e.g. ``main``'s), run just before this one's, as the entry's ``before``;
``--compare-only``: no yardstick alone (the ratios over the bound ``compare`` prints); ``--compare-against SRC``:
``compare`` also from that checkout, as ``before.compare`` (its cost, its best releases and
its ``lattice (average)`` row).  Each entry records the ``lattice (average)`` row of ``compare`` (``lattice_average``:
its average, worst and the average over the bound, or the line that says why it was not computed).

    python benchmarks/yardstick_grid.py [--eps 0.5,1,2] [--only-k 3] [--only-n 100,300] [--no-compare]
                                        [--against <old>/src] [--compare-only] [--compare-against <old>/src] [--out FILE]

Grid: Dir(1,1,1) at n = 10, 20, 50, 100, 300, 1000 and Dir(1,1,1,1) at n = 10, 20, 50, 100.  The machine may be
shared: load averages are recorded.
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

ROOT = pathlib.Path(__file__).resolve().parents[1]
GRID = [((1, 1, 1), n) for n in (10, 20, 50, 100, 300, 1000)] + [((1, 1, 1, 1), n) for n in (10, 20, 50, 100)]

ONE = """
import json, sys
from dpposterior.yardstick import block_bounds, plan_blocks, yardstick
prior, n, eps = [float(x) for x in sys.argv[1].split(",")], int(sys.argv[2]), float(sys.argv[3])
plans = plan_blocks(prior, n, eps)
y = yardstick(prior, n, eps, None, block_bounds(prior, n, eps, plans))
print(json.dumps({"yardstick": y.as_dict(), "plans": {o: {"route": p.route, "seconds": round(p.seconds, 1),
      "memory_mb": round(p.memory_bytes / 2**20), "refused": p.refused()} for o, (p, _) in plans.items()}}))
"""


def child(args: list[str], env: dict) -> tuple[int, str, str, dict]:
    """Run ``python args`` in its own process: exit code, stdout, stderr, and CPU seconds / peak MB / wall."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as out_f, tempfile.TemporaryFile("w+") as err_f:
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, *args], env=env, stdout=out_f, stderr=err_f)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read()
    cost = {"cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1), "wall_seconds": round(wall, 1),
            "peak_mb": round(usage.ru_maxrss / 1024), "load_before": round(load, 2)}
    return os.waitstatus_to_exitcode(status), out, err, cost


def ratio(value, bound):
    return round(value / bound, 4) if value is not None and bound else None


def alone(prior, n: int, eps: float, env: dict) -> dict:
    """The yardstick alone (its own process) with the ``src`` of ``env``: bound, plans and cost."""
    code, stdout, stderr, cost = child(["-c", ONE, ",".join(map(str, prior)), str(n), f"{eps:g}"], env)
    if code:
        return {"yardstick_cost": cost, "yardstick_error": stderr.strip().splitlines()[-1]}
    doc = json.loads(stdout)
    return {"yardstick_cost": cost, "bound": doc["yardstick"], "plans": doc["plans"]}


def lattice_average(doc: dict, bound: float | None) -> dict:
    """The ``lattice (average)`` row of a ``compare --json`` document: its errors and the average over ``bound``, or
    why it was not computed."""
    row = next((r for r in doc["releases"] if r["release"] == "lattice (average)"), None)
    if row is None:
        return {"missing": True}
    if "error" in row:
        return {"not_computed": row["error"]}
    return {"average": row["average_expected_error"], "worst": row["worst_expected_error"],
            "average_ratio": ratio(row["average_expected_error"], bound)}


def compare_run(text: str, n: int, eps: float, env: dict, bound: float | None) -> dict:
    """``compare --json`` in its own process (the ``src`` of ``env``): cost, best releases, the lattice average row."""
    code, stdout, stderr, cost = child(["-m", "dpposterior", "compare", "--prior", text, "--n", str(n), "--epsilon",
                                        f"{eps:g}", "--json"], env)
    if code:
        return {"compare_cost": cost, "compare_error": stderr.strip().splitlines()[-1]}
    doc = json.loads(stdout)
    done = [r for r in doc["releases"] if "error" not in r]
    a = min(done, key=lambda r: r["average_expected_error"]) if done else None
    cy = doc.get("yardstick", {})
    return {"compare_cost": cost, "lattice_average": lattice_average(doc, bound),
            "best_average": {"release": a["release"], "error": a["average_expected_error"]} if a else None,
            "compare_yardstick": cy,
            "compare_average_ratio": ratio(a["average_expected_error"], cy.get("average")) if a else None}


def one(prior, n: int, eps: float, env: dict, compare: bool, earlier: dict | None = None,
        against: dict | None = None, compare_against: dict | None = None, compare_only: bool = False) -> dict:
    text = ",".join(map(str, prior))
    out = {"prior": list(prior), "n": n, "epsilon": eps}
    if against is not None:
        out["before"] = alone(prior, n, eps, against)
    if compare_only:  # the bound compare prints (its share of compare's limit), no yardstick alone
        y = {}
    else:
        code, stdout, stderr, cost = child(["-c", ONE, text, str(n), f"{eps:g}"], env)
        out["yardstick_cost"] = cost
        if code:
            out["yardstick_error"] = stderr.strip().splitlines()[-1]
            return out
        doc = json.loads(stdout)
        y = doc["yardstick"]
        out["bound"] = y
        out["plans"] = doc["plans"]
    if not compare:
        if earlier and "best_average" in earlier:
            out["releases_from"] = "the earlier compare run of this entry (its best rows; not re-run)"
            for key in ("best_worst", "best_average"):
                out[key] = earlier[key]
            out["worst_ratio"] = ratio(earlier["best_worst"]["error"], y["worst"])
            out["average_ratio"] = ratio(earlier["best_average"]["error"], y["average"])
            if "bound" in out.get("before", {}):
                out["before"]["worst_ratio"] = ratio(earlier["best_worst"]["error"], out["before"]["bound"]["worst"])
                out["before"]["average_ratio"] = ratio(earlier["best_average"]["error"],
                                                       out["before"]["bound"]["average"])
        return out
    code, stdout, stderr, cost = child(["-m", "dpposterior", "compare", "--prior", text, "--n", str(n), "--epsilon",
                                        f"{eps:g}", "--json"], env)
    out["compare_cost"] = cost
    if code:
        out["compare_error"] = stderr.strip().splitlines()[-1]
        return out
    doc = json.loads(stdout)
    if compare_only:
        y = {key: doc.get("yardstick", {}).get(key) for key in ("worst", "average")}
    out["lattice_average"] = lattice_average(doc, y["average"])
    if compare_against is not None:
        out.setdefault("before", {})["compare"] = compare_run(text, n, eps, compare_against, y["average"])
    done = [r for r in doc["releases"] if "error" not in r]
    if done:
        w = min(done, key=lambda r: r["worst_expected_error"])
        a = min(done, key=lambda r: r["average_expected_error"])
        out["best_worst"] = {"release": w["release"], "error": w["worst_expected_error"]}
        out["best_average"] = {"release": a["release"], "error": a["average_expected_error"]}
        out["worst_ratio"] = ratio(w["worst_expected_error"], y["worst"])
        out["average_ratio"] = ratio(a["average_expected_error"], y["average"])
        if "bound" in out.get("before", {}):
            out["before"]["worst_ratio"] = ratio(w["worst_expected_error"], out["before"]["bound"]["worst"])
            out["before"]["average_ratio"] = ratio(a["average_expected_error"], out["before"]["bound"]["average"])
    cy = doc.get("yardstick", {})
    out["compare_yardstick"] = cy
    if done and "worst" in cy:
        out["compare_worst_ratio"] = ratio(w["worst_expected_error"], cy["worst"])
        out["compare_average_ratio"] = ratio(a["average_expected_error"], cy["average"])
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--eps", default="0.5,1,2")
    p.add_argument("--only-k", type=int, default=None)
    p.add_argument("--only-n", default=None, help="comma-separated sizes to run (default: the whole grid)")
    p.add_argument("--no-compare", action="store_true")
    p.add_argument("--against", default=None, help="another checkout's src: its yardstick alone as 'before'")
    p.add_argument("--compare-only", action="store_true",
                   help="no yardstick alone: the ratios over the bound compare prints")
    p.add_argument("--compare-against", default=None, help="another checkout's src: its compare as 'before.compare'")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "yardstick_grid.json"))
    args = p.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    against = dict(os.environ, PYTHONPATH=args.against) if args.against else None
    compare_against = dict(os.environ, PYTHONPATH=args.compare_against) if args.compare_against else None
    path = pathlib.Path(args.out)
    calls = json.loads(path.read_text())["calls"] if path.exists() else []

    def key(c):
        return (tuple(c["prior"]), c["n"], c["epsilon"])
    for prior, n in GRID:
        if args.only_k and len(prior) != args.only_k:
            continue
        if args.only_n and str(n) not in args.only_n.split(","):
            continue
        for eps in (float(e) for e in args.eps.split(",")):
            earlier = next((c for c in calls if key(c) == (tuple(prior), n, eps)), None)
            r = one(prior, n, eps, env, not args.no_compare, earlier, against, compare_against, args.compare_only)
            calls = [r if key(c) == key(r) else c for c in calls] if earlier else [*calls, r]
            b = r.get("bound", {})
            print(f"k={len(prior)} n={n:5d} eps={eps:g}: bound worst {b.get('worst', float('nan')):.5f} "
                  f"average {b.get('average', float('nan')):.5f} ({r.get('yardstick_cost', {}).get('cpu_seconds')} s CPU); "
                  f"best/bound worst {r.get('worst_ratio')} average {r.get('average_ratio')}; compare "
                  f"{r.get('compare_cost', {}).get('cpu_seconds')} s CPU {r.get('compare_cost', {}).get('peak_mb')} MB "
                  f"{r.get('compare_error', '')}", flush=True)
            if "lattice_average" in r:
                la = r["lattice_average"]
                print(f"    lattice (average): {la.get('average')} (worst {la.get('worst')}), over the bound "
                      f"{la.get('average_ratio')} {la.get('not_computed', '')}", flush=True)
            if "compare" in r.get("before", {}):
                bc = r["before"]["compare"]
                la = bc.get("lattice_average", {})
                print(f"    before: compare {bc['compare_cost']['cpu_seconds']} s CPU {bc['compare_cost']['peak_mb']} MB;"
                      f" lattice (average) {la.get('average')} over the bound {la.get('average_ratio')} "
                      f"{la.get('not_computed', '')}; its own average bound "
                      f"{bc.get('compare_yardstick', {}).get('average')}, best / that "
                      f"{bc.get('compare_average_ratio')}", flush=True)
            if "bound" in r.get("before", {}):
                bb = r["before"].get("bound", {})
                print(f"    before: bound worst {bb.get('worst', float('nan')):.5f} average "
                      f"{bb.get('average', float('nan')):.5f} ({r['before']['yardstick_cost']['cpu_seconds']} s CPU); "
                      f"best/bound worst {r['before'].get('worst_ratio')} average {r['before'].get('average_ratio')}",
                      flush=True)
            calls.sort(key=lambda c: (len(c["prior"]), c["n"], c["epsilon"]))
            path.write_text(json.dumps(
                {"date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "calls": calls}, indent=1) + "\n")


if __name__ == "__main__":
    main()
