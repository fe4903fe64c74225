"""Can a k >= 4 plan count the orbits its release's searches run, from its own sample?  The estimate below against
the orbits each recorded run counted (``benchmarks/orbit_check_k4_clean.json``, the check's ``orbits``).

    python benchmarks/orbit_estimate_k4.py --out benchmarks/orbit_estimate_k4.json

The searches by orbits run one search per distinct sorted pair ``(y, p) = (max(z, 0), project(z))`` of the region's
kept points (``lattice.batched.orbit_pairs``); every ``z`` of one ``y`` has the same pair (``project`` reads ``y``).
The plan's sample (``lattice.column._filtered_sample_points`` at the release) already estimates the kept distinct
parts ``y`` by weighing each kept sample point with ``part_shares`` (one over the box's points with its ``y``: a
Horvitz-Thompson estimate, each part counted once in expectation). Weigh it also by one over ``m(y)``, the number of
distinct images ``(s y, s p)`` under the permutations ``s`` of the categories that are themselves kept pairs: ``s y``
is the part of some point of the release's box (``in_box`` below), its projection is ``s p`` (ties among equal
counts are broken by index, so it need not be), it lies in the reach (``project(s y) - r`` in ``U(Dc)``) and both
filters keep it (``search_filter`` reads ``y``). The kept pairs of one orbit all have the same ``m``, equal to how
many they are, so each orbit adds 1 in expectation: the sum times the box's size a point estimates the orbits.
Public inputs only (n, k, eps, the release). Not yet read by any plan.
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


def in_box(n: int, Dc: int, W: int, released: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Whether some point of the release's box (``_filtered_sample_points``' box, ``z_k >= -W``) has the part ``y``
    (each row of ``Y``): every positive count within its side of the box (the first ``k - 1``), every zero count's
    side reaching 0, and the excess ``e = sum(y) - n`` at most what the zero counts can take below 0 (``-lo_j``, ``W``
    for the last): ``part_shares``' count is then positive (a product of ``1 + t + ... + t^u`` has every coefficient
    up to its degree)."""
    k = released.size
    span = (k - 1) * (Dc + W)
    lo, hi = np.maximum(-W, released - span), released + span
    zero = Y <= 0
    head = Y[:, : k - 1]
    ok = np.all(zero[:, : k - 1] | ((head >= lo[: k - 1]) & (head <= hi[: k - 1])), axis=1)
    ok &= ~np.any(zero[:, : k - 1] & (lo[: k - 1] > 0), axis=1)
    room = np.where(zero, np.concatenate([np.maximum(-lo[: k - 1], 0), [W]])[None, :], 0).sum(axis=1)
    e = Y.sum(axis=1) - n
    return ok & (e >= 0) & (e <= room)


def estimate(eps: float, released: list[int]) -> dict:
    """``parts`` (the plan's estimate today) and ``orbits`` (the weighing above) at one release, Dir(1,...,1); all
    the kept sample points' images at once."""
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
    rows = np.repeat(np.arange(len(Y)), len(perms))
    pairs = np.concatenate([Y[:, perms].reshape(-1, k), P[:, perms].reshape(-1, k)], axis=1)
    pairs = np.unique(np.column_stack([rows, pairs]), axis=0)  # each row's distinct images
    rows, images, projected = pairs[:, 0], pairs[:, 1: k + 1], pairs[:, k + 1:]
    own = project(images, n)
    ok = np.all(own == projected, axis=1) & in_box(n, Dc, W, r, images)
    u = own - r[None, :]
    ok &= np.all(u <= Dc, axis=1) | np.all(u >= -Dc, axis=1)
    kept = np.zeros(len(images), dtype=bool)
    if ok.any():
        kept[ok] = search_filter(a, n, eps, r, images[ok], Dc)
    m = np.maximum(np.bincount(rows[kept], minlength=len(Y)), 1)
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
