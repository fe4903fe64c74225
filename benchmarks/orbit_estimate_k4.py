"""Can a k >= 4 plan count the orbits its release's searches run, from its own sample?  The estimate below against
the orbits each recorded run counted (``benchmarks/orbit_check_k4_clean.json``, the check's ``orbits``).

    python benchmarks/orbit_estimate_k4.py --out benchmarks/orbit_estimate_k4.json

The searches by orbits run one search per distinct sorted pair ``(y, p) = (max(z, 0), project(z))`` of the region's
kept points (``lattice.batched.orbit_pairs``); every ``z`` of one ``y`` has the same pair (``project`` reads ``y``).
The plan's sample (``lattice.column._filtered_sample_points`` at the release) already estimates the kept distinct
parts ``y`` by weighing each kept sample point with ``part_shares`` (one over the box's points with its ``y``: a
Horvitz-Thompson estimate, each part counted once in expectation).  Weigh it also by one over ``m(y)``, the number of
distinct images ``(s y, s p)`` under the permutations ``s`` of the categories that are themselves kept pairs: ``s y``
is the part of some point of the release's box (``box_points`` below, ``part_shares``' count with the box's bounds
checked), its projection is ``s p`` (ties among equal counts are broken by index, so it need not be), it lies in the
reach (``project(s y) - r`` in ``U(Dc)``) and both filters keep it (``search_filter`` reads ``y``).  The kept pairs of
one orbit all have the same ``m``, equal to how many they are, so each orbit adds 1 in expectation: the sum times the
box's size a point estimates the orbits.  Public inputs only (n, k, eps, the release).  Not yet read by any plan.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import pathlib
import time

import numpy as np

from dpposterior.lattice.column import _filtered_sample_points, part_shares, search_filter
from dpposterior.lattice.remap import project
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms.lattice import _radius

RUNS = pathlib.Path(__file__).resolve().parent / "orbit_check_k4_clean.json"


def box_points(n: int, Dc: int, W: int, released: np.ndarray, y: np.ndarray) -> float:
    """How many points of the release's box (``_filtered_sample_points``' box, ``z_k >= -W``) have the part ``y``: 0
    where a positive count is off its side of the box, else ``part_shares``' count (its zero counts ``z_j`` in
    ``[lo_j, 0]``, ``[-W, 0]`` for the last, summing to ``n - sum(y)``)."""
    k = released.size
    span = (k - 1) * (Dc + W)
    lo, hi = np.maximum(-W, released - span), released + span
    poly = np.ones(1)
    for j in range(k):
        if y[j] > 0:
            if j < k - 1 and not lo[j] <= y[j] <= hi[j]:
                return 0.0
        else:
            if j < k - 1 and lo[j] > 0:
                return 0.0
            poly = np.convolve(poly, np.ones(int(-lo[j] if j < k - 1 else W) + 1))
    e = int(y.sum()) - n
    return float(poly[e]) if 0 <= e < poly.size else 0.0


def estimate(eps: float, released: list[int]) -> dict:
    """``parts`` (the plan's estimate today) and ``orbits`` (the weighing above) at one release, Dir(1,...,1)."""
    r = np.asarray(released, dtype=np.int64)
    k, n = r.size, int(r.sum())
    a = np.ones(k)
    W = ReleaseSpec.of("lattice", eps, objective="average").mechanism.column_radius(n, k, eps)
    Dc = _radius(k, eps, 1e-12)
    scale, z, keep, _ = _filtered_sample_points(a, n, eps, Dc, W, r)
    zk = z[keep]
    share = part_shares(n, Dc, W, r, zk)
    Y = np.maximum(zk, 0)
    P = project(Y, n)
    perms = np.array(list(itertools.permutations(range(k))))
    m = np.ones(len(Y))
    for i in range(len(Y)):
        pairs = np.unique(np.concatenate([Y[i][perms], P[i][perms]], axis=1), axis=0)
        images = pairs[:, :k]
        ok = np.all(project(images, n) == pairs[:, k:], axis=1)
        ok &= np.array([box_points(n, Dc, W, r, y) > 0 for y in images])
        u = project(images, n) - r[None, :]
        ok &= np.all(u <= Dc, axis=1) | np.all(u >= -Dc, axis=1)
        if ok.any():
            kept = np.zeros(len(images), dtype=bool)
            kept[ok] = search_filter(a, n, eps, r, images[ok], Dc)
            m[i] = max(1, int(kept.sum()))
    return {"parts": float(scale * (share.sum() + 1)), "orbits": float(scale * ((share / m).sum() + 1)),
            "sample_kept": int(len(Y))}


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
