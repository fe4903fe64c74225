"""Samples needed vs lower bound achieved (planning an audit).

    python benchmarks/audit_samples.py [--seeds 5]

For a few (mechanism, pair) settings: the pair's exact concrete eps, the samples per side
``plan_mechanism`` says certify a fraction f of it (at 95 %), and what audits at that many
samples achieve over several seeds (median lower bound, share of seeds reaching the target).
The planner uses expected counts, so about half the seeds should reach the target at the
planned size; doubling the samples should make nearly all of them reach it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpposterior.audit import audit
from dpposterior.mechanism_audit import mechanism_sampler, plan_mechanism

SETTINGS = [
    ("lshist", (1.0, 1.0), ((50, 50), (49, 51)), 1.0),
    ("lszhang", (1.0, 1.0), ((50, 50), (49, 51)), 1.0),
    ("ehds", (1.0, 1.0), ((2, 98), (1, 99)), 1.0),
    ("mh", (1.0, 1.0), ((2, 98), (1, 99)), 1.0),
    ("mh-delta", (1.0, 1.0), ((1, 99), (0, 100)), 1.0),
    ("lshist", (1.0, 1.0, 1.0), ((3, 3, 3), (2, 4, 3)), 1.0),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--fractions", default="0.5,0.75,0.9")
    args = ap.parse_args()
    print("| mechanism | pair | exact pair eps | fraction | target | planned samples/side | samples used | "
          "median lower bound | seeds reaching target | s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mech, prior, pair, eps in SETTINGS:
        sampler = mechanism_sampler(mech, prior, epsilon=eps, delta=5e-4)
        for f in map(float, args.fractions.split(",")):
            plan = plan_mechanism(mech, prior, pair, epsilon=eps, delta=5e-4, fraction=f)
            if plan.samples is None or plan.samples > 20_000_000:
                print(f"| {mech} | {pair[0]}:{pair[1]} | {plan.exact_pair_epsilon:.4f} | {f:g} | {plan.target:.4f} | "
                      f"{plan.samples} | - | - | - | - |")
                continue
            for mult in (1, 2):
                m = mult * plan.samples
                t = time.perf_counter()
                lbs = np.array([audit(sampler, *pair, samples=m, seed=s).epsilon_lower_bound
                                for s in range(args.seeds)])
                print(f"| {mech} | {pair[0]}:{pair[1]} | {plan.exact_pair_epsilon:.4f} | {f:g} | {plan.target:.4f} | "
                      f"{plan.samples:,} | {m:,} | {np.median(lbs):.4f} | {np.sum(lbs >= plan.target)}/{args.seeds} | "
                      f"{time.perf_counter() - t:.1f} |", flush=True)


if __name__ == "__main__":
    main()
