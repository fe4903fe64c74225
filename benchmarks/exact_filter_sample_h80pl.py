"""What the exact descent filter keeps of the k = 3 plan's sample at each release of its family (Dir(1,1,1)): per
cell ``eps:n`` and per release of :func:`sampled_release_probes`, the plan's current estimate at that release
(:func:`sampled_release_cost`: parts, points left, seconds), the sample's kept points, their distinct positive parts,
how many of those :func:`~dpposterior.lattice.batched.descent_filter_exact` keeps, and its CPU s on the sample.
Public inputs only (no data, no run): the groundwork for a plan that prices only what the filter keeps.

Example::

    python benchmarks/exact_filter_sample_h80pl.py --out benchmarks/exact_filter_sample_h80pl.json 1:1000000 0.5:1000
"""

from __future__ import annotations

import argparse
import json
import os
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="the JSON file written")
    ap.add_argument("cells", nargs="+", help="eps:n")
    args = ap.parse_args()
    import numpy as np

    from dpposterior.lattice.batched import descent_filter_exact
    from dpposterior.lattice.column import _filtered_sample_points
    from dpposterior.mechanisms import lattice as L

    rows = []
    for cell in args.cells:
        eps, n = float(cell.split(":")[0]), int(cell.split(":")[1])
        a = np.ones(3)
        Dc = L._radius(3, eps, 1e-12)
        W = L.LATTICE.column_radius(n, 3, eps)
        for r in L.sampled_release_probes(a, n, 3, eps):
            row = {"eps": eps, "n": n, "released": [int(x) for x in r], "Dc": int(Dc), "W": int(W),
                   "family_costed": bool(L.family_costed(n, 3, eps)), "load": os.getloadavg()[0]}
            t0 = time.process_time()
            try:
                parts, left, seconds = L.sampled_release_cost(a, n, eps, Dc, W, r)
                row.update(plan_parts=parts, plan_left=left, plan_seconds=seconds)
            except Exception as e:  # noqa: BLE001 - recorded, the cell goes on
                row["error"] = str(e)[:200]
            t1 = time.process_time()
            scale, z, keep, _ = _filtered_sample_points(a, n, eps, Dc, W, r)
            Y = np.unique(np.maximum(z[keep], 0), axis=0)
            t2 = time.process_time()
            ex = descent_filter_exact(a, n, eps, r, Y) if len(Y) else np.zeros(0, dtype=bool)
            t3 = time.process_time()
            low = np.any(Y < 2, axis=1)
            row.update(cost_cpu_s=round(t1 - t0, 3), scale=scale, sample_kept=int(keep.sum()), parts_distinct=len(Y),
                       parts_low=int(low.sum()), exact_kept=int(ex.sum()), exact_kept_low=int((ex & low).sum()),
                       exact_cpu_s=round(t3 - t2, 3))
            print(json.dumps(row), flush=True)
            rows.append(row)
    with open(args.out, "w") as f:
        json.dump({"command": "python benchmarks/exact_filter_sample_h80pl.py --out " + args.out + " "
                   + " ".join(args.cells), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
