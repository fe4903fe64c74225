"""Audit stage (SPEC §5 "Empirical", issue 4): black-box privacy-loss lower bounds of one mechanism
at every n of a privacy experiment, beside the exact values.

At each n two adjacent pairs are audited from samples only (dpposterior.audit): the exact
worst pair over all data of size n and the local worst pair at the balanced data (the exact
computation only says *where* to look; each bound uses samples alone).  Each row keeps the
lower bound, the held-out estimate and the upper bound on the chosen event's loss (same
Bonferroni level), the exact loss of that pair, the exact worst-case and local concrete eps,
the claimed bound, and the delta(eps') bound at eps' = the claimed eps.
"""

import argparse
import time

import numpy as np
import pandas as pd
from common import job_rng, load_spec, write_parquet
from tqdm import tqdm

from dpposterior.audit import audit_mechanism, exact_pair_epsilon
from dpposterior.mechanisms import MECHANISMS
from dpposterior.models import balanced_counts
from dpposterior.privacy import concrete_epsilon


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--experiment", required=True)
    ap.add_argument("--mechanism", required=True)
    ap.add_argument("--spec", required=True, help="JSON: the audit entry merged with its privacy experiment")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    spec = load_spec(args.spec)
    a = np.asarray(spec["prior"], float)
    eps, delta = float(spec["epsilon"]), float(spec["delta"])
    samples, confidence = int(spec["samples"]), float(spec["confidence"])
    claimed_eps, claimed_delta = MECHANISMS[args.mechanism].claimed(eps, delta)
    eps_prime = claimed_eps if claimed_eps is not None else eps
    kw = dict(epsilon=eps, delta=delta)
    rows = []
    for n in tqdm(spec["n"], disable=not args.progress, desc=f"audit {args.experiment}/{args.mechanism}"):
        n = int(n)
        c = balanced_counts(n, a.size)
        worst = concrete_epsilon(args.mechanism, a, n, **kw)
        local = concrete_epsilon(args.mechanism, a, n, at=c, **kw)
        for scope, pair in (("worst-case", worst.worst_pair), ("local", local.worst_pair)):
            rng, label = job_rng(args.seed, "audit", args.experiment, args.mechanism, n, scope)
            t = time.perf_counter()
            r = audit_mechanism(args.mechanism, a, n, pair=pair, samples=samples, confidence=confidence, seed=rng,
                                delta_at=eps_prime, **kw)
            _, pair_delta = exact_pair_epsilon(args.mechanism, a, pair, delta_at=eps_prime, **kw)
            rows.append({
                "experiment": args.experiment, "mechanism": args.mechanism, "n": n, "scope": scope,
                "prior": a.tolist(), "epsilon": eps, "delta": delta,
                "claimed_epsilon": claimed_eps, "claimed_delta": claimed_delta,
                "exact_worst_epsilon": worst.concrete_epsilon, "exact_local_epsilon": local.concrete_epsilon,
                "pair_c": list(pair[0]), "pair_c_prime": list(pair[1]),
                "exact_pair_epsilon": r.exact_concrete_epsilon,
                "lower_bound": r.epsilon_lower_bound, "estimate": r.estimate, "event_upper_bound": r.event_upper_bound,
                "confidence": r.confidence, "samples": r.samples, "n_events": r.n_events,
                "event_kind": r.event["kind"], "event_size": r.event.get("size", 0),
                "delta_at": eps_prime, "delta_lower_bound": r.delta["lower_bound"],
                "delta_estimate": r.delta["estimate"], "exact_pair_delta": pair_delta,
                "seed": label,
            })
            # timings go to the log, not the results, so reruns are byte-identical
            print(f"n={n} {scope}: audited in {time.perf_counter() - t:.2f} s", flush=True)
    write_parquet(pd.DataFrame(rows), args.out)


if __name__ == "__main__":
    main()
