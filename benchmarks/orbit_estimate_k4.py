"""Can a k >= 4 plan count the orbits its release's searches run, from its own sample?  The estimate below against
the orbits each recorded run counted (``benchmarks/orbit_check_k4_clean.json``, the check's ``orbits``).

    python benchmarks/orbit_estimate_k4.py --out benchmarks/orbit_estimate_k4.json

The searches by orbits run one search per distinct sorted pair ``(y, p) = (max(z, 0), project(z))`` of the region's
kept points (``lattice.batched.orbit_pairs``). The plan's sample (``lattice.column._filtered_sample_points`` at the
release) already estimates the kept distinct parts ``y`` by weighing each kept sample point with ``part_shares`` (one
over the box's points with its ``y``: a Horvitz-Thompson estimate, each part counted once in expectation). Weighed
also by ``lattice.column.orbit_weights`` (one over how many of its pair's images under the permutations of the
categories are kept pairs; proof in its docstring), each orbit counts once in expectation: the sum times the box's
size a point estimates the orbits. Public inputs only (n, k, eps, the release). The plan reads it
(``mechanisms.lattice.release_orbit_counts``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import time

import numpy as np

from dpposterior.lattice.column import _filtered_sample_points, orbit_weights, part_shares
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms.lattice import _radius

RUNS = pathlib.Path(__file__).resolve().parent / "orbit_check_k4_clean.json"


def estimate(eps: float, released: list[int]) -> dict:
    """``parts`` (the plan's estimate today: ``part_shares``) and ``orbits`` (weighed also by ``orbit_weights``) at one
    release, Dir(1,...,1)."""
    r = np.asarray(released, dtype=np.int64)
    k, n = r.size, int(r.sum())
    a = np.ones(k)
    W = ReleaseSpec.of("lattice", eps, objective="average").mechanism.column_radius(n, k, eps)
    Dc = _radius(k, eps, 1e-12)
    scale, z, keep, _ = _filtered_sample_points(a, n, eps, Dc, W, r)
    zk = z[keep]
    share = part_shares(n, Dc, W, r, zk)
    weight = orbit_weights(a, n, eps, Dc, r, zk)
    return {"parts": float(scale * (share.sum() + 1)), "orbits": float(scale * ((share * weight).sum() + 1)),
            "sample_kept": int(len(zk))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rows = []
    for run in json.loads(RUNS.read_text())["runs"]:
        if not run.get("checks"):
            continue
        t = time.process_time()
        est = estimate(float(run["epsilon"]), run["released"])
        check = run["checks"][0]
        rows.append({"epsilon": run["epsilon"], "released": run["released"], "parts_run": check["points"],
                     "parts_estimate": round(est["parts"]), "orbits_run": check["orbits"],
                     "orbits_estimate": round(est["orbits"]), "parts_ratio": round(est["parts"] / check["points"], 4),
                     "orbits_ratio": round(est["orbits"] / check["orbits"], 4), "sample_kept": est["sample_kept"],
                     "estimate_cpu_seconds": round(time.process_time() - t, 2)})
        print(json.dumps(rows[-1]), flush=True)
    ratios = [row["orbits_ratio"] for row in rows]
    out = {"what": __doc__.splitlines()[0], "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
           "command": "python benchmarks/orbit_estimate_k4.py --out " + args.out, "load_before": os.getloadavg()[0],
           "orbits_ratio_range": [min(ratios), max(ratios)], "runs": rows}
    pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
