"""The worst-case lattice release at k = 4 past its window LP (the corner remap, dpposterior.lattice.corners_any):
its exact worst case, the certified lower bound on the best worst case over every remap of the release, their ratio,
CPU seconds, and the time of a draw at n = 10,000.  Dir(1,1,1,1).

Each call runs in its own process; prints a table and writes ``benchmarks/lattice_worst_k4.json`` (``--only`` merges
its calls into it).

    python benchmarks/lattice_worst_k4.py [--out ...] [--only SUBSTRING[,...]] [--exact] [--timeout SECONDS]
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

#: (eps, n, block depth of the certificate or None for the deepest its plan fits in ``CERT_SECONDS``), cheapest first;
#: the explicit depths are the earlier default at eps = 2 (the remap's depth), side by side
CALLS = [(2.0, n, None) for n in (10, 20, 50, 100)] + [(1.0, n, None) for n in (10, 20, 50, 100)]
CALLS += [(0.5, n, None) for n in (10, 20, 50, 100)]
CALLS += [(2.0, 20, 3), (2.0, 100, 3)]
#: the edge table solved where the release does not use it (its LP past ``EDGE_WORST_SECONDS``): (eps, n)
EDGES = [(1.0, 20)]
#: the certificate and the LP's t only, where the errors are out of reach here or the release is unchanged (its
#: worst case then read from the row ``worst eps=.. n=..`` of the JSON): (eps, n)
BOUNDS = [(1.0, 100), (0.5, 10)]
#: draws at n = 10,000 (counts (9000, 500, 300, 200) and (2500,) * 4): (eps, draws)
DRAWS = [(2.0, 200), (1.0, 20), (0.5, 5)]

CHILD = r"""
import json, resource, sys, time
import numpy as np
row = json.loads(sys.argv[1])
from dpposterior.lattice import corners_any
from dpposterior.lattice.noise import radius_for
a = np.ones(4)
out = {}
if row["what"] in ("worst", "bound"):
    t0 = time.process_time()
    remap = corners_any.corner_remap_any(a, row["n"], row["eps"], edges=row.get("edges"))
    out["solve_cpu"] = time.process_time() - t0
    out.update({k: remap.certificate[k] for k in ("lp", "depth", "inner", "W", "n_ref", "variables", "constraints",
                                                  "free_rows", "fixed_rows")})
    plan, out["block"] = corners_any.plan_certify_any(row["n"], 4, row["eps"], row["block"])
    out["certify_planned_s"] = plan.seconds
    t0 = time.process_time()
    out["bound"] = corners_any.certify_any(remap, row["block"])
    out["certify_cpu"] = time.process_time() - t0
    simplex, steps = corners_any.plan_certify_simplex_any(row["n"], 4, row["eps"])
    out["simplex_steps"] = steps if simplex.seconds <= corners_any.SIMPLEX_CERT_SECONDS else None
    out["simplex_planned_s"] = simplex.seconds
if row["what"] == "worst":
    t0 = time.process_time()
    e = corners_any.corner_errors_any(remap, radius_for(4, row["eps"], 1e-5))
    out["errors_cpu"] = time.process_time() - t0
    hi = e.high
    i = int(np.argmax(hi))
    out.update(worst=float(hi[i]), worst_counts=[int(x) for x in e.counts[i]], tail=e.tail,
               ratio=float(hi[i]) / out["bound"] if out["bound"] > 0 else None)
    # where the largest errors sit: by distance to the nearest vertex, edge and face
    s = np.sort(e.counts, axis=1)
    n = row["n"]
    for name, d in (("vertex", n - s[:, 3]), ("edge", s[:, 0] + s[:, 1]), ("face", s[:, 0])):
        out[name] = {int(m): round(float(hi[d == m].max()), 5) for m in range(0, min(n, 12) + 1) if (d == m).any()}
if row["what"] == "draw":
    import dpposterior as dp
    t0 = time.process_time()
    dp.sample("lattice", a, (9000, 500, 300, 200), epsilon=row["eps"], objective="worst", size=1, rng=0)
    out["setup_cpu"] = time.process_time() - t0
    for counts in ((9000, 500, 300, 200), (2500, 2500, 2500, 2500), (9990, 4, 3, 3)):
        t0 = time.process_time()
        for s in range(row["draws"]):
            dp.sample("lattice", a, counts, epsilon=row["eps"], objective="worst", size=1, rng=s)
        out[f"ms_per_draw {counts}"] = 1e3 * (time.process_time() - t0) / row["draws"]
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
print(json.dumps(out))
"""


def _label(row: dict) -> str:
    if row["what"] == "bound":
        return f"bound eps={row['eps']:g} n={row['n']}"
    if row["what"] != "worst":
        return f"draw eps={row['eps']:g} n=10000"
    return (f"worst eps={row['eps']:g} n={row['n']}" + (f" block={row['block']}" if row["block"] else "")
            + (" edges" if row.get("edges") else ""))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "lattice_worst_k4.json"))
    parser.add_argument("--only", default="", help="run the calls whose label holds this (comma: any of these)")
    parser.add_argument("--exact", action="store_true", help="--only names whole labels")
    parser.add_argument("--timeout", type=float, default=3600.0)
    args = parser.parse_args(argv)
    rows = [{"what": "worst", "eps": e, "n": n, "block": b} for e, n, b in CALLS]
    rows += [{"what": "worst", "eps": e, "n": n, "block": None, "edges": True} for e, n in EDGES]
    rows += [{"what": "bound", "eps": e, "n": n, "block": None} for e, n in BOUNDS]
    rows += [{"what": "draw", "eps": e, "draws": d} for e, d in DRAWS]
    path = pathlib.Path(args.out)
    results = json.loads(path.read_text(encoding="utf-8"))["calls"] if path.exists() and args.only else []
    labels = [_label(row) for row in rows]
    for row in rows:
        label = _label(row)
        wanted = args.only.split(",")
        if not any((w == label) if args.exact else (w in label) for w in wanted):
            continue
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        load = os.getloadavg()[0]
        try:
            proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(row)], env=env, capture_output=True,
                                  text=True, timeout=args.timeout)
            got = ({"failed": (proc.stderr.strip().splitlines() or ["?"])[-1]} if proc.returncode else
                   json.loads(proc.stdout.strip().splitlines()[-1]))
        except subprocess.TimeoutExpired:
            got = {"failed": f"over {args.timeout:g} s"}
        got = {"call": label, "load_before": round(load, 2), **got}
        prev = {r["call"]: r for r in results}
        if label in prev and "bound" in prev[label] and "bound" in got:  # side by side with the row it replaces
            got["before"] = {k: prev[label][k] for k in ("bound", "ratio", "certify_cpu") if k in prev[label]}
        if row["what"] == "bound" and "bound" in got:  # the release's worst case from its own row, where measured
            same = prev.get(f"worst eps={row['eps']:g} n={row['n']}", {})
            if "worst" in same:
                got.update(worst_from_row=same["worst"], ratio=same["worst"] / got["bound"])
        results = [r for r in results if r["call"] != label and r["call"] in labels] + [got]
        if "failed" in got:
            print(f"{label:<32} {got['failed'][:150]}", flush=True)
        elif row["what"] == "worst":
            print(f"{label:<32} worst {got['worst']:.5f} at {got['worst_counts']} bound {got['bound']:.5f} ratio "
                  f"{got['ratio']:.4f} (block {got['block']}, simplex steps {got['simplex_steps']}) lp {got['lp']:.5f}  "
                  f"CPU solve {got['solve_cpu']:.1f} certify "
                  f"{got['certify_cpu']:.1f} errors {got['errors_cpu']:.1f} s  peak {got['peak_mb']:.0f} MB",
                  flush=True)
        elif row["what"] == "bound":
            print(f"{label:<32} bound {got['bound']:.5f} (block {got['block']}, simplex steps {got['simplex_steps']})"
                  + (f" worst (its row) {got['worst_from_row']:.5f} ratio {got['ratio']:.4f}" if "ratio" in got else "")
                  + f" lp {got['lp']:.5f} lp / bound "
                  f"{got['lp'] / got['bound']:.4f}  CPU solve {got['solve_cpu']:.1f} certify {got['certify_cpu']:.1f} s"
                  f"  peak {got['peak_mb']:.0f} MB", flush=True)
        else:
            print(f"{label:<32} " + "  ".join(f"{k} {v:.1f}" for k, v in got.items() if k.endswith("cpu") or
                                              k.startswith("ms")), flush=True)
        out = {"date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "prior": "Dir(1,1,1,1)",
               "calls": results}
        path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
