"""``release --prior 1,1,1,1 --counts C --mechanism optimal --noise-aware --epsilon EPS`` at k = 4 for releases away
from the centre of R(n) (the box stay certificate's grids fitted to the counts, :func:`dpposterior.mechanisms.lattice.
_box_certified`), old tree against new, side by side in one run: each command in its own child process (CPU seconds
and peak memory from ``os.wait4``), one at a time, with the new tree's plan of the posterior (planned seconds and
bytes, made from public n, k, eps: a release at the centre) beside them.

    python benchmarks/noise_aware_k4_boxes.py OLD_SRC [--out benchmarks/noise_aware_k4_boxes.json]
        [--counts 1000,2000,3000,4000 500,3000,3000,3500 2500,2500,2500,2500] [--eps 0.25]

``OLD_SRC``: the old tree's ``src`` (e.g. a clone at 4abe9cf); the new tree is this file's.  The seed is fixed, so
the released output is the same in both trees; the posterior must be the same floats.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from noise_aware_k4_quarter import planned, run_release  # noqa: E402  (one runner for both scripts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old_src")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "noise_aware_k4_boxes.json"))
    ap.add_argument("--counts", nargs="+", default=["1000,2000,3000,4000", "500,3000,3000,3500",
                                                     "2500,2500,2500,2500"])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.25])
    ap.add_argument("--objectives", nargs="+", default=["average"])
    args = ap.parse_args()
    rows = []
    for eps in args.eps:
        for counts in args.counts:
            n = sum(int(x) for x in counts.split(","))
            for objective in args.objectives:
                old = run_release(args.old_src, counts, objective, eps)
                new = run_release(str(ROOT / "src"), counts, objective, eps)
                row = {"counts": counts, "n": n, "eps": eps, "objective": objective, "old": old, "new": new,
                       "same_posterior": old.get("mean") == new.get("mean")
                       and old.get("dropped_mass_bound") == new.get("dropped_mass_bound"),
                       "plan": planned(n, objective, eps)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    doc = {"what": "release --prior 1,1,1,1 --counts C --mechanism optimal --noise-aware --epsilon EPS --seed 7",
           "argv": sys.argv[1:],
           "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "load_after": [round(x, 1) for x in os.getloadavg()], "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
