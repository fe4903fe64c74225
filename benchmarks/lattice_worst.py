"""The worst case of ``lattice~worst`` at k = 3 and its certified lower bound (docs/lattice.md, "A worst-case remap at
any n"): the release's own remap (the window's minimax LP where it runs, the corner remap past it), its exact worst
case (the upper end of the bracket), the certified lower bound on the best worst case over all remaps of the release,
their ratio, and the CPU seconds; beside it the local Bayes remap's worst case (``lattice~average``'s).

    PYTHONPATH=src python benchmarks/lattice_worst.py [--n 10,20,50,100,300,1000] [--eps 0.5,1,2] [--prior 1,1,1]
        [--out benchmarks/lattice_worst.json] [--check-n 12,16] [--check-eps 0.5] [--errors-only]

In process, one case after the other (``time.process_time``); the errors of the corner remap are the local Bayes
remap's errors over the window (:func:`dpposterior.lattice.search.local_search_many` and ``window_errors``, the
``lattice~average`` route, run here without its budget) with the data sets near the table recomputed.  Writes the
rows as JSON (``--out``) and prints a table; then, at ``--check-n`` (where the window's minimax LP runs), the LP's
optimum beside the corner certificate at the same n (is the bound the loose side?).

``--errors-only`` times what ``accuracy`` runs for the corner remap's exact errors and nothing else: the solve, the
local search at the window points the release maps by it (:func:`dpposterior.lattice.corners.corner_local_outputs`)
and the recomputation near the tables, each with its CPU seconds (no certificate, no ``lattice~average`` beside it):

    PYTHONPATH=src python benchmarks/lattice_worst.py --eps 0.5 --n 300,600,1000 --errors-only --check-n "" \
        --out benchmarks/lattice_worst_errors.json

``--orbits both`` runs the errors' local search by orbits (at a symmetric prior; the plan's route "corner remap, by
orbits" from n = 400 with one corner for three) beside the search without them, in one process (the offset sums and
the recomputation, timed as "recomputation", the same either way):

    PYTHONPATH=src python benchmarks/lattice_worst.py --eps 0.5 --n 1000 --errors-only --orbits both --check-n "" \
        --out benchmarks/lattice_worst_orbits.json

On the route by orbits the offset sums run one data set per rotation class (what the route runs);
``--sums-both`` also sums at every data set, side by side (CPU and the largest difference):

    PYTHONPATH=src python benchmarks/lattice_worst.py --eps 0.5 --n 1000 --errors-only --sums-both --check-n "" \
        --out benchmarks/lattice_worst_rotations.json

``--corners three`` solves the three-corner LP where the release solves one corner for three (a symmetric prior, the
corners apart, eps < 1: :func:`dpposterior.lattice.corners.symmetric_solve`), ``--corners both`` runs each case both
ways, side by side in one process (the row's ``corners`` says which; ``auto`` is the release's own):

    PYTHONPATH=src python benchmarks/lattice_worst.py --eps 0.5 --n 300,1000 --corners both --check-n "" \
        --out benchmarks/lattice_worst_symmetric.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from dpposterior.lattice import corners
from dpposterior.lattice.noise import radius_for, window
from dpposterior.lattice.remap import LatticeSetup, bayes_remap, minimax_remap
from dpposterior.lattice.search import local_search_many, window_errors
from dpposterior.mechanisms import LATTICE, ReleaseSpec
from dpposterior.mechanisms.lattice import LOCAL_ERROR_TOL, MINIMAX_R_RADIUS, orbit_route, symmetric_corners

_SOLVED: dict = {}


def _solved(prior: tuple, n: int, eps: float, symmetric: bool | None = None) -> corners.CornerRemap:
    """The corner remap at n (its table solved once per ``n_ref``: the same LP at every n past it); ``symmetric``
    as :func:`dpposterior.lattice.corners.corner_remap`'s (None: the release's own)."""
    depth = corners.default_depth(eps)
    n0 = min(n, corners.reference_n(eps, depth))
    key = (prior, n0, eps, symmetric)
    if key not in _SOLVED:
        _SOLVED[key] = corners.corner_remap(prior, n0, eps, symmetric=symmetric)
    return corners._translated(_SOLVED[key], n)


def case(prior: tuple, n: int, eps: float, errors_only: bool = False, symmetric: bool | None = None,
         orbits: bool | None = None, sums_both: bool = False) -> dict:
    spec = ReleaseSpec.of("lattice", eps, objective="worst")
    a = np.asarray(prior, dtype=np.float64)
    row = {"prior": list(prior), "n": n, "epsilon": eps, "corners": "auto" if symmetric is None else "three"}
    # the errors' route by orbits where the plan takes it (auto), or never (off: the route before it)
    by_orbits = orbit_route(n, 3, eps, symmetric_corners(prior)) and symmetric is None and orbits is None
    row["orbits"] = "auto" if orbits is None else "off"
    t0 = time.process_time()
    if LATTICE.uses_window(n, 3, spec):
        setup = LatticeSetup(a, n, eps)
        remap = minimax_remap(setup, r_radius=MINIMAX_R_RADIUS)
        row |= {"route": "window remap", "worst": remap.certificate["upper"], "bound": remap.certificate["lower"]}
        row["cpu_s"] = time.process_time() - t0
        row["local_bayes_worst"] = setup.errors(bayes_remap(setup)[0]).worst[1]
    else:
        remap = _solved(prior, n, eps, symmetric)
        t1 = time.process_time()
        if not errors_only:
            remap.certificate = dict(remap.certificate, lower=corners.certify_remap(remap))
        t2 = time.process_time()
        We = radius_for(3, eps, LOCAL_ERROR_TOL)
        stats = {}
        # the route's local search: where it is read
        out = corners.corner_local_outputs(remap, We, stats=stats, orbits=None if orbits is None else False)
        t3 = time.process_time()
        if by_orbits:  # the route's sums: one data set per rotation class
            E = corners.corner_errors(remap, out, We, rotations=True)
        else:
            E = corners.corner_errors(remap, out, We, window_errors(a, n, eps, out, We))
        t4 = time.process_time()
        if by_orbits and sums_both:  # the sums at every data set, side by side
            full = corners.corner_errors(remap, out, We, window_errors(a, n, eps, out, We))
            row |= {"cpu_sums_every_data_set_s": time.process_time() - t4,
                    "sums_max_difference": float(np.abs(full.low - E.low).max())}
        worst = float(E.high.max())
        row |= {"route": "corner remap, by orbits" if by_orbits else "corner remap", "worst": worst,
                "bound": None if errors_only else remap.certificate["lower"],
                "worst_at": E.counts[int(np.argmax(E.low))].tolist(), "lp": remap.certificate["lp"],
                "n_ref": remap.certificate["n_ref"], "depth": remap.certificate["depth"],
                "edge_lp": remap.certificate.get("edge_lp"),
                "corners_solved": remap.certificate.get("corners_solved"),
                "cpu_s": (t1 - t0) + (t2 - t1) + (t4 - t3), "cpu_solve_s": t1 - t0, "cpu_certificate_s": t2 - t1,
                "cpu_local_errors_s": t3 - t2, "cpu_corner_errors_s": t4 - t3, "local_points": stats["points"],
                "local_fallbacks": stats["fallback"], "local_searched": stats.get("searched"),
                "errors_cpu_s": (t1 - t0) + (t4 - t2)}
        if not errors_only:  # lattice~average's worst case: the local Bayes remap at every point of the window
            full = local_search_many(a, n, eps, window(n, 3, We))
            row["local_bayes_worst"] = float(window_errors(a, n, eps, full, We).high.max())
        # the interior: the largest error among the data sets at least depth + W from every vertex
        far = (n - E.counts.max(axis=1)) > remap.certificate["depth"] + remap.certificate["W"]
        row["interior_worst"] = float(E.high[far].max()) if far.any() else None
    row["ratio"] = row["worst"] / row["bound"] if row["bound"] else None  # None without the certificate
    return row


def check(prior: tuple, n: int, eps: float) -> dict:
    """Is the certificate the loose side?  At an n where the window's minimax LP runs, its optimum (over every remap
    of the window with its outputs, the bracket of its own certificate) against the corner certificate at that n."""
    a = np.asarray(prior, dtype=np.float64)
    t0 = time.process_time()
    remap = minimax_remap(LatticeSetup(a, n, eps), r_radius=MINIMAX_R_RADIUS)
    t1 = time.process_time()
    corner = corners.corner_remap(a, n, eps, certify=True)
    return {"prior": list(prior), "n": n, "epsilon": eps, "window_lp_lower": remap.certificate["lower"],
            "window_lp_upper": remap.certificate["upper"], "corner_bound": corner.certificate["lower"],
            "window_cpu_s": t1 - t0, "corner_cpu_s": time.process_time() - t1}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", default="10,20,50,100,300,1000")
    p.add_argument("--eps", default="0.5,1,2")
    p.add_argument("--prior", default="1,1,1")
    p.add_argument("--out", default="benchmarks/lattice_worst.json")
    p.add_argument("--check-n", default="12,16", help="n where the window LP's optimum is set beside the bound")
    p.add_argument("--check-eps", default="0.5")
    p.add_argument("--errors-only", action="store_true",
                   help="the exact errors' route only (its solve, local search and recomputation; no certificate, no "
                        "lattice~average beside it): what `accuracy` runs")
    p.add_argument("--orbits", default="auto", choices=["auto", "off", "both"],
                   help="the local search by orbits at a symmetric prior (auto), never (off) or both")
    p.add_argument("--sums-both", action="store_true",
                   help="on the route by orbits, also the offset sums at every data set (beside the rotation classes)")
    p.add_argument("--corners", default="auto", choices=["auto", "three", "both"],
                   help="the release's corner solve (auto), the three-corner LP (three) or both side by side")
    args = p.parse_args()
    modes = {"auto": [None], "three": [False], "both": [False, None]}[args.corners]
    orbit_modes = {"auto": [None], "off": [False], "both": [False, None]}[args.orbits]
    prior = tuple(float(x) for x in args.prior.split(","))
    rows = []
    print("| eps | n | route | corners | worst | bound | ratio | local Bayes worst | interior worst | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for eps, n, sym, orb in ((float(e), int(m), s, o) for e in args.eps.split(",") for m in args.n.split(",")
                             for s in modes for o in orbit_modes):
        r = case(prior, n, eps, args.errors_only, sym, orb, args.sums_both)
        rows.append(r)
        inner = f"{r['interior_worst']:.4f}" if r.get("interior_worst") is not None else "-"
        avg = f"{r['local_bayes_worst']:.5f}" if "local_bayes_worst" in r else "-"
        solved = r.get("corners_solved") or "-"
        print(f"| {eps:g} | {n} | {r['route']} | {solved} | {r['worst']:.5f} | {r['bound'] or float('nan'):.5f} | "
              f"{r['ratio'] or float('nan'):.4f} | {avg} | {inner} | {r['cpu_s']:.1f} |", flush=True)
        if "errors_cpu_s" in r:
            print(f"  errors' route ({r['route']}, orbits {r['orbits']}): {r['errors_cpu_s']:.1f} CPU s (solve "
                  f"{r['cpu_solve_s']:.1f}, local search "
                  f"{r['cpu_local_errors_s']:.1f} at {r['local_points']:,} points, {r['local_fallbacks']:,} handed "
                  f"on; offset sums and recomputation {r['cpu_corner_errors_s']:.1f})", flush=True)
        if "cpu_sums_every_data_set_s" in r:
            print(f"  the sums at every data set: {r['cpu_sums_every_data_set_s']:.1f} CPU s, largest difference "
                  f"{r['sums_max_difference']:.1e}", flush=True)
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)
    checks = [x for x in args.check_n.split(",") if x]
    if checks:
        print("\n| eps | n | window LP optimum (bracket) | corner bound | bound / LP |")
        print("|---|---|---|---|---|")
    for eps in (float(x) for x in args.check_eps.split(",")):
        for n in (int(x) for x in checks):
            r = check(prior, n, eps)
            rows.append(r)
            print(f"| {eps:g} | {n} | {r['window_lp_lower']:.5f} - {r['window_lp_upper']:.5f} | "
                  f"{r['corner_bound']:.5f} | {r['corner_bound'] / r['window_lp_upper']:.4f} |", flush=True)
            with open(args.out, "w") as fh:
                json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
