"""The k = 4 searches by orbits priced with their clamp groups where every shift is exact, against the runs of
``benchmarks/clamp_leads_k4.json`` (the new tree's): each cell's check counts (``_check_searches`` at its own kept
parts: those with every count below n, their orbits and faces; the others and their distinct clamps), its price
(``column_orbit_seconds``) with and without the groups, and the run's searches' CPU s over each.

    python benchmarks/clamp_price_k4.py --runs benchmarks/clamp_leads_k4.json --out benchmarks/clamp_price_k4.json

And the same counts (``checks``) at every release of the orbit price's fit (``--fit-runs``, by default the three
files ``tests/library/test_orbit_price_k4.py`` reads) where every shift is exact and the region has clamped parts:
what the check reads there now (the fit's own runs were timed before the groups).  Public inputs only (the releases,
the region and its filters); nothing is timed here.  Each check is counted at the eps the release runs at
(``working_epsilon``: at k >= 4 every eps of Dir(1,...,1) has exact shifts there); ``--append`` keeps the rows and
checks the file ``--out`` holds and counts only the releases it lacks:

    python benchmarks/clamp_price_k4.py --runs benchmarks/clamp_leads_k4.json --out benchmarks/clamp_price_k4.json \
        --append
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys

import numpy as np

import dpposterior.mechanisms.lattice as L
from dpposterior.lattice.batched import orbit_count
from dpposterior.lattice.column import clamp_key_bound, reach_region, search_filter


def counts(eps: float, released: list[int]) -> dict:
    """The check's counts at this release (Dir(1,...,1), its region's kept positive parts)."""
    m = np.array(released, dtype=np.int64)
    k, n = m.size, int(m.sum())
    a = np.ones(k)
    Dc, W = L._radius(k, eps, 1e-12), L.LATTICE.column_radius(n, k, eps)
    Z = reach_region(n, k, m, Dc, W)
    _, first, _ = L._unique_rows(np.maximum(Z, 0))
    reps = Z[first]
    R = reps[search_filter(a, n, eps, m, reps, Dc)]
    clamped = np.any(R >= n, axis=1)
    rest = R[~clamped]
    return {"parts": int(len(R)), "orbits": int(orbit_count(R, n)), "faces": int(np.count_nonzero(R.min(axis=1) <= 1)),
            "rest_parts": int(len(rest)), "rest_orbits": int(orbit_count(rest, n)),
            "rest_faces": int(np.count_nonzero(rest.min(axis=1) <= 1)) if len(rest) else 0,
            "clamped": int(clamped.sum()), "clamp_orbits": int(orbit_count(R[clamped], n)),
            "keys": int(len(np.unique(np.minimum(np.maximum(R[clamped], 0), n), axis=0))) if clamped.any() else 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fit-runs", nargs="*", default=["benchmarks/orbit_check_k4_s89.json",
                                                      "benchmarks/orbit_check_k4_loweps_s90.json",
                                                      "benchmarks/orbit_check_k4_loweps_s91.json"])
    ap.add_argument("--append", action="store_true", help="keep --out's rows and checks, count the releases it lacks")
    args = ap.parse_args()
    with open(args.runs, encoding="utf-8") as f:
        runs = json.load(f)
    before = {"rows": [], "checks": []}
    if args.append and os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            before = json.load(f)
    rows = list(before["rows"])
    for r in [] if args.append else runs["rows"]:
        if "searches" not in r["new"]:
            continue
        eps, cs = r["cell"].split(":")
        eps, released = float(eps), [int(x) for x in cs.split(",")]
        n, k = sum(released), len(released)
        c = counts(eps, released)
        old = L.column_orbit_seconds(c["parts"], c["orbits"], n, k, eps, c["faces"])
        exact = L.exact_shifts(np.ones(k), eps)
        new = (L.column_orbit_seconds(c["rest_parts"], c["rest_orbits"], n, k, eps, c["rest_faces"],
                                      clamp=(c["clamped"], c["keys"], c["clamp_orbits"])) if exact else old)
        ran = sum(s["cpu_seconds"] for s in r["new"]["searches"])
        row = {"cell": r["cell"], "exact_shifts": exact, **c, "price_before": round(old, 2), "price": round(new, 2),
               "searches_cpu_s": round(ran, 2), "run_over_price": round(ran / new, 3),
               "run_over_price_before": round(ran / old, 3)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    checks = list(before["checks"])
    have = {(c["epsilon"], tuple(c["released"])) for c in checks}
    for name in args.fit_runs:
        with open(name, encoding="utf-8") as f:
            for r in json.load(f)["runs"]:
                eps, released = float(r["epsilon"]), [int(x) for x in r["released"]]
                n, k = sum(released), len(released)
                w = L.working_epsilon(eps, k)  # the eps the release runs at, and its check
                Dc, W = L._radius(k, w, 1e-12), L.LATTICE.column_radius(n, k, w)
                if ((eps, tuple(released)) in have or not L.exact_shifts(np.ones(k), w)
                        or not clamp_key_bound(n, Dc, W, released)):
                    continue
                checks.append({"epsilon": eps, **({"working_epsilon": w} if w != eps else {}), "released": released,
                               **counts(w, released)})
                have.add((eps, tuple(released)))
                print(json.dumps(checks[-1]), flush=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"command": "python " + " ".join(sys.argv), "date": datetime.date.today().isoformat(),
                   "runs": args.runs, "rows": rows, "checks": checks}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
