"""The exact descent filter's own CPU s (:func:`~dpposterior.lattice.batched.descent_filter_exact`, Dir(1,1,1)) at a
release's sample (the plan's :func:`~dpposterior.lattice.column._filtered_sample_points`, its kept points' distinct
positive parts): per cell ``eps:n:c1,c2,c3`` the points of R(n) with every count at least 2 (``ins``), the parts with
a count below 2 (``low``) and a 256-part subsample of them (what the plan runs), each timed alone, with the ball's
size (the fit :data:`~dpposterior.mechanisms.lattice.EXACT_FILTER_SECONDS` is per data set of it).  Public inputs only.

Example::

    python benchmarks/exact_filter_cost_h81fx.py --out benchmarks/exact_filter_cost_h81fx.json 1:1000:0,500,500
"""

from __future__ import annotations

import argparse
import json
import os
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("cells", nargs="+", help="eps:n:c1,c2,c3")
    args = ap.parse_args()
    import numpy as np

    from dpposterior.lattice.batched import descent_filter_exact
    from dpposterior.lattice.column import _filtered_sample_points
    from dpposterior.lattice.noise import sphere_count
    from dpposterior.mechanisms import lattice as L

    a, rows = np.ones(3), []
    for cell in args.cells:
        eps, n, r = cell.split(":")
        eps, n, r = float(eps), int(n), np.array([int(x) for x in r.split(",")])
        Dc, W = L._radius(3, eps, 1e-12), L.LATTICE.column_radius(n, 3, eps)
        ball = sum(sphere_count(3, t) for t in range(Dc + 1))
        _, z, keep, _ = _filtered_sample_points(a, n, eps, Dc, W, r)
        Y = np.unique(np.maximum(z[keep], 0), axis=0)
        ins, low = Y[np.all(Y >= 2, axis=1)], Y[~np.all(Y >= 2, axis=1)]
        sub = low[np.random.default_rng(0).choice(len(low), min(256, len(low)), replace=False)] if len(low) else low
        row = dict(eps=eps, n=n, r=r.tolist(), Dc=Dc, ball=ball, ins=len(ins), low=len(low), load=os.getloadavg()[0])
        for name, P in (("ins", ins), ("low", low), ("low256", sub)):
            t = time.process_time()
            kept = descent_filter_exact(a, n, eps, r, P) if len(P) else np.zeros(0, bool)
            d = time.process_time() - t
            row.update({name + "_s": round(d, 3), name + "_kept": int(kept.sum()),
                        name + "_ms_each": round(1e3 * d / max(1, len(P)), 3)})
        print(row, flush=True)
        rows.append(row)
    with open(args.out, "w") as f:
        json.dump({"command": "python benchmarks/exact_filter_cost_h81fx.py --out " + args.out + " "
                   + " ".join(args.cells), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows},
                  f, indent=1)


if __name__ == "__main__":
    main()
