"""Mechanism-run stage: `runs` releases of one mechanism at every point of one experiment.

Writes one row per run (experiment, mechanism, prior, counts, eps, delta, seed, run, released
counts, Hellinger error) and, where |R(n)| is small enough, the exact error law from the pmf
(SPEC §6). Releases come from `dpposterior.mechanisms.sample`; each point has its own stream
SeedSequence([seed, "accuracy", experiment, mechanism, point]).
"""

import argparse

import numpy as np
import pandas as pd
from common import job_rng, load_spec, setup_logging, write_parquet
from tqdm import tqdm

from dpposterior.accuracy import exact_accuracy, release_error
from dpposterior.mechanisms import sample
from dpposterior.models import n_candidates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--experiment", required=True)
    ap.add_argument("--mechanism", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--exact-max", type=int, required=True)
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--out-runs", required=True)
    ap.add_argument("--out-exact", required=True)
    args = ap.parse_args()
    log = setup_logging(None)
    spec = load_spec(args.spec)
    eps, delta = float(spec["epsilon"]), float(spec["delta"])
    data = pd.read_parquet(args.data)
    runs, exact = [], []
    for row in tqdm(data.itertuples(index=False), total=len(data), disable=not args.progress,
                    desc=f"{args.experiment}/{args.mechanism}", mininterval=1.0):
        prior, counts = np.asarray(row.prior, float), np.asarray(row.counts, np.int64)
        rng, label = job_rng(args.seed, "accuracy", args.experiment, args.mechanism, int(row.point))
        m = sample(args.mechanism, prior, counts, epsilon=eps, delta=delta, size=args.runs, rng=rng)
        err = release_error(prior, counts, m)
        runs.append(pd.DataFrame({
            "experiment": args.experiment, "mechanism": args.mechanism, "point": int(row.point),
            "x": row.x, "label": row.label, "n": int(row.n), "k": int(row.k),
            "prior": [prior.tolist()] * args.runs, "counts": [counts.tolist()] * args.runs,
            "epsilon": eps, "delta": delta, "seed": label, "run": np.arange(args.runs),
            "released": list(m), "error": err,
        }))
        size = n_candidates(int(row.n), int(row.k))
        if size <= args.exact_max:
            ex = exact_accuracy(args.mechanism, prior, counts, epsilon=eps, delta=delta).as_dict()
        else:
            ex = dict.fromkeys(["mean", "q25", "median", "q75", "p_exact"], np.nan)
        exact.append({"experiment": args.experiment, "mechanism": args.mechanism, "point": int(row.point),
                      "x": row.x, "label": row.label, "n": int(row.n), "k": int(row.k), "candidates": float(size),
                      "epsilon": eps, "delta": delta, **ex})
        log.info("point %s (%s): mean error %.5g over %d runs, exact %.5g", row.point, row.label, err.mean(),
                 args.runs, ex["mean"])
    write_parquet(pd.concat(runs, ignore_index=True), args.out_runs)
    write_parquet(pd.DataFrame(exact), args.out_exact)


if __name__ == "__main__":
    main()
