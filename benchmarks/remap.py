"""Speed and memory of dpposterior.remap (docs/definitions.md §10): prints a markdown table.

    PYTHONPATH=src python benchmarks/remap.py [--n 10000] [--eps 1] [--prior 1,1] [--big 1000000] [--tol 1e-4]

Rows (k = 2):
* geometric (identity remap): exact worst and average error, all (n+1)^2 terms;
* Bayes remap + its exact average error (``sum_z min_r S_pi(z, r)``), target <= 10 s at n = 1e4;
* minimax remap with a certified gap <= tol, target <= 60 s at n = 1e4;
* one release at n = ``--big``: T(z) for the drawn z only (:func:`bayes_remap_at`, O(n) weights),
  then the exact draw; no (n+1)^2 object.
Peak memory is the process's maximum resident set size (``resource.getrusage``), target <= 2 GB.
Also the reference table of docs/definitions.md §10 (geometric and optimum, worst / average).
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from dpposterior.remap import (
    HellingerLoss,
    Remap,
    bayes_remap_at,
    bayes_scores,
    geometric_kernel,
    minimax_remap,
    prior_predictive,
    risk,
    sample,
)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--prior", default="1,1")
    ap.add_argument("--big", type=int, default=1_000_000)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--no-reference", action="store_true")
    args = ap.parse_args()
    prior = tuple(float(x) for x in args.prior.split(","))
    n, eps = args.n, args.eps
    k, L, pi = geometric_kernel(n, eps), HellingerLoss(prior, n), prior_predictive(prior, n)
    rows = []

    t, c0 = time.perf_counter(), time.process_time()
    E = risk(k, Remap.identity(n), L)
    rows.append(("geometric (identity remap), exact E(c) for all c", time.perf_counter() - t, time.process_time() - c0,
                 f"worst {E.max():.6f} at c={int(E.argmax())}, average {pi @ E:.6f}"))

    t, c0 = time.perf_counter(), time.process_time()
    smin, r = bayes_scores(k, pi, L)
    rows.append(("Bayes remap + exact average error", time.perf_counter() - t, time.process_time() - c0,
                 f"average {smin.sum():.6f}; remap moves {int((r != np.arange(n + 1)).sum())} of {n + 1} cells"))

    t, c0 = time.perf_counter(), time.process_time()
    res = minimax_remap(k, L, tol=args.tol)
    T = res.remap.table
    rand = int((np.diff(T.indptr) > 1).sum())
    rows.append((f"minimax remap, certified gap <= {args.tol:g}", time.perf_counter() - t, time.process_time() - c0,
                 f"lower {res.lower:.8f} upper {res.upper:.8f} gap {res.gap:.2e}; "
                 f"{rand} randomised rows, {int((res.lam > 1e-12).sum())} c with lam > 1e-12"))

    N = args.big
    kb, Lb = geometric_kernel(N, eps), HellingerLoss(prior, N)
    t, c0 = time.perf_counter(), time.process_time()
    logpi = prior_predictive(prior, N, log=True)
    c = N // 3
    z0 = c
    rz, slack = bayes_remap_at(kb, logpi, Lb, z0)
    t1, p1 = time.perf_counter() - t, time.process_time() - c0
    t, c0 = time.perf_counter(), time.process_time()
    draw = sample(kb, lambda z: (np.array([bayes_remap_at(kb, logpi, Lb, z)[0]]), np.ones(1)), c, size=1, rng=1)
    rows.append((f"n = {N:.0e}: Bayes T(z) for one z (z = {z0})", t1, p1, f"r = {rz}, relative slack <= {slack:.1e}"))
    rows.append((f"n = {N:.0e}: one release (exact draw, T(z) on demand)", time.perf_counter() - t, time.process_time() - c0,
                 f"c = {c} -> r = {int(draw[0])}"))

    print(f"k = 2, n = {n}, Beta{prior}, eps = {eps}\n")
    print("| step | wall s | cpu s | result |")
    print("|---|---:|---:|---|")
    for name, sec, cpu, note in rows:
        print(f"| {name} | {sec:.2f} | {cpu:.2f} | {note} |")
    print(f"\npeak RSS {peak_mb():.0f} MB")

    if not args.no_reference:
        print("\n| prior, n, eps | geometric worst / average | optimum worst / average | minimax gap |")
        print("|---|---|---|---|")
        for pr, nn, ee in [((1, 1), 50, 1.0), ((5, 5), 10, 0.25), ((5, 5), 50, 1.0), ((0.5, 0.5), 50, 1.0),
                           ((1, 1), 100, 1.0), ((1, 1), 200, 1.0)]:
            kk, LL, pp = geometric_kernel(nn, ee), HellingerLoss(pr, nn), prior_predictive(pr, nn)
            EE = risk(kk, Remap.identity(nn), LL)
            avg = bayes_scores(kk, pp, LL)[0].sum()
            mm = minimax_remap(kk, LL, tol=1e-7)
            print(f"| Beta{pr}, {nn}, {ee} | {EE.max():.5f} / {pp @ EE:.5f} | {mm.upper:.5f} / {avg:.5f} | {mm.gap:.1e} |")


if __name__ == "__main__":
    main()
