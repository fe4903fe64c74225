"""Privacy-loss stage (SPEC §5): exact concrete epsilon of one mechanism at every n of one experiment.

Both scopes: local at the balanced data set and worst case over all data of size n, with the
maximising pair and output, the claimed bound (mechanisms.MECHANISMS[...].claimed) and the
privacy profile delta(eps') at eps' = the claimed epsilon.
"""

import argparse

import numpy as np
import pandas as pd
from common import load_spec, write_parquet
from tqdm import tqdm

from dpposterior.mechanisms import MECHANISMS
from dpposterior.models import balanced_counts
from dpposterior.privacy import concrete_epsilon


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--experiment", required=True)
    ap.add_argument("--mechanism", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    spec = load_spec(args.spec)
    a = np.asarray(spec["prior"], float)
    eps, delta = float(spec["epsilon"]), float(spec["delta"])
    claimed_eps, claimed_delta = MECHANISMS[args.mechanism].claimed(eps, delta)
    rows = []
    for n in tqdm(spec["n"], disable=not args.progress, desc=f"{args.experiment}/{args.mechanism}"):
        c = balanced_counts(int(n), a.size)
        for scope, at in (("local", c), ("worst-case", None)):
            r = concrete_epsilon(args.mechanism, a, int(n), epsilon=eps, delta=delta, at=at,
                                 delta_at=claimed_eps if claimed_eps is not None else eps)
            rows.append({"experiment": args.experiment, "mechanism": args.mechanism, "n": int(n), "scope": scope,
                         "counts": c.tolist(), "epsilon": eps, "delta": delta,
                         "concrete_epsilon": r.concrete_epsilon, "claimed_epsilon": claimed_eps,
                         "claimed_delta": claimed_delta, "profile_delta": r.delta_at["delta"],
                         "worst_c": r.worst_pair[0], "worst_c_prime": r.worst_pair[1], "worst_output": r.worst_output})
    write_parquet(pd.DataFrame(rows), args.out)


if __name__ == "__main__":
    main()
