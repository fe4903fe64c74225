"""Grid table for issue 4: claimed bound, exact worst-case concrete eps, empirical lower bound.

    python benchmarks/audit_grid.py [--samples 1000000] [--n 10,100,1000] [--seed 1]

Each row audits one mechanism from samples only (dpposterior.audit), at the exact worst pair
(search 'worst': a white-box hint for *where* to look; the bound itself uses samples only),
at the fig6 settings (Beta(1,1), eps = 1, delta = 5e-4).  The last rows are the ehdl finding:
a boundary search (no white-box hint) certifies a loss above ehdl's nominal eps.
"""

from __future__ import annotations

import argparse
import time

from dpposterior import MECHANISM_IDS, concrete_epsilon
from dpposterior.audit import audit_mechanism


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--n", default="10,100,1000")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
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
