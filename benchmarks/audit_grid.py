"""Grid table of the audit: claimed bound, exact worst-case concrete eps, empirical lower bound.

    python benchmarks/audit_grid.py [--samples 1000000] [--n 10,100,1000] [--seed 1]
    python benchmarks/audit_grid.py --settings-search [--samples 1000000]

Each row audits one mechanism from samples only (dpposterior.audit), at the exact worst pair
(search 'worst': a white-box hint for *where* to look; the bound itself uses samples only),
at the fig6 settings (Beta(1,1), eps = 1, delta = 5e-4).  The last rows are the ehdl finding:
a boundary search (no white-box hint) certifies a loss above ehdl's nominal eps.
"""

from __future__ import annotations

import argparse
import time

from dpposterior import MECHANISM_IDS, concrete_epsilon
from dpposterior.mechanism_audit import audit_mechanism


def row(mech, prior, n, eps, delta, samples, seed, search):
    t = time.perf_counter()
    worst = concrete_epsilon(mech, prior, n, epsilon=eps, delta=delta)
    res = audit_mechanism(mech, prior, n, epsilon=eps, delta=delta, samples=samples, seed=seed, search=search)
    claim = "none" if res.claimed_epsilon is None else f"{res.claimed_epsilon:g}" + (
        f" (d={delta:g})" if mech == "mh-delta" else "")
    flag = " **above nominal eps**" if res.epsilon_lower_bound > eps else ""
    print(f"| {mech} | {list(prior)} | {n} | {eps:g} | {claim} | {worst.concrete_epsilon:.4f} | "
          f"{res.exact_concrete_epsilon:.4f} | {res.epsilon_lower_bound:.4f}{flag} | {res.estimate:.4f} | "
          f"{search} ({res.pairs_tested}) {res.pair[0]}:{res.pair[1]} | {res.samples:,} | {time.perf_counter() - t:.1f} |",
          flush=True)


def settings_search(samples, seed):
    """ehdl from samples alone over a grid of settings: boundary pairs of every (prior, eps, n), with
    beta split over all pairs of all settings (Bonferroni), then the exact loss of the flagged pairs."""
    from dpposterior.audit import audit, candidate_pairs
    from dpposterior.mechanism_audit import exact_pair_epsilon, mechanism_sampler

    grid = [(prior, eps, n) for prior in ((1.0, 1.0), (0.01, 0.01)) for eps in (1.0, 3.0) for n in (100, 1000)]
    jobs = [(prior, eps, n, pair) for prior, eps, n in grid for pair in candidate_pairs(prior, n, "boundary")]
    conf = 1 - 0.05 / len(jobs)
    print(f"\nehdl settings search: {len(grid)} settings, {len(jobs)} pairs, each at confidence {conf:.5f} "
          f"(95% overall), {samples:,} samples per side")
    print("| prior | eps | n | pair | lower bound | exact eps of pair | above nominal eps |")
    print("|---|---|---|---|---|---|---|")
    for i, (prior, eps, n, pair) in enumerate(jobs):
        r = audit(mechanism_sampler("ehdl", prior, epsilon=eps), *pair, samples=samples, confidence=conf, seed=seed + i)
        if r.epsilon_lower_bound > eps:
            exact, _ = exact_pair_epsilon("ehdl", prior, pair, epsilon=eps)
            print(f"| {list(prior)} | {eps:g} | {n} | {pair[0]}:{pair[1]} | {r.epsilon_lower_bound:.4f} | {exact:.4f} | "
                  f"yes (exact confirms: {exact > eps}) |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--n", default="10,100,1000")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--settings-search", action="store_true", help="only the ehdl settings search")
    args = ap.parse_args()
    if args.settings_search:
        settings_search(args.samples, args.seed)
        return
    print("| mechanism | prior | n | eps | claimed eps | exact worst-case eps | exact eps of audited pair | "
          "empirical lower bound (95%) | estimate | search (pairs) pair | samples/side | s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in map(int, args.n.split(",")):
        for mech in MECHANISM_IDS:
            row(mech, (1.0, 1.0), n, 1.0, 5e-4, args.samples, args.seed, "worst")
    for search in ("boundary",):
        row("ehdl", (0.01, 0.01), 1000, 3.0, 5e-4, args.samples, args.seed, search)


if __name__ == "__main__":
    main()
