"""Exact output distributions (004 Fig. 3, 000 Tables 1-2): one row per (mechanism, candidate).

Also writes, per mechanism and distinct error value t, the exact tail P(H >= t) beside the
004 §6.2 bound |R| exp(-eps t / (2 S(c))) for mh (bounds.mh_tail_bound). For the tables it adds
the two "printed formula" columns of SPEC §7 as pseudo-mechanisms: `formula-exp`
(weights exp(-eps H / LS(c)), 000 §5.4.1) and `formula-laplace` (P(|Y| in [t, t+1)), Y ~ Lap(2/eps), 000 §5.1).
"""

import argparse

import numpy as np
import pandas as pd
from common import load_spec, write_parquet
from scipy.special import logsumexp

from dpposterior.bounds import abs_discretised_laplace_pmf, mh_tail_bound
from dpposterior.distances import hellinger
from dpposterior.mechanisms import log_pmf
from dpposterior.models import candidate_rank, candidates, steps
from dpposterior.sensitivity import local_sensitivity


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--item", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--table", action="store_true", help="add the printed-formula columns of 000 Tables 1-2")
    ap.add_argument("--out", required=True)
    ap.add_argument("--out-tails", required=True)
    args = ap.parse_args()
    spec = load_spec(args.spec)
    a = np.asarray(spec["prior"], float)
    c = np.asarray(spec["counts"], np.int64)
    eps, delta = float(spec["epsilon"]), float(spec["delta"])
    n, k = int(c.sum()), c.size
    cands = candidates(n, k)
    h = hellinger(a + c, a + cands)
    st = steps(c, cands)
    truth = int(candidate_rank(c))
    laws = {m: log_pmf(m, a, c, epsilon=eps, delta=delta) for m in spec["mechanisms"]}
    if args.table:
        logits = -eps * h / local_sensitivity(a, c)
        laws["formula-exp"] = logits - logsumexp(logits)
        # per-step mass of floor(|Y|), split evenly over the candidates of that step; tails dropped
        per_step = abs_discretised_laplace_pmf(np.arange(n + 1), 2.0 / eps, form="toward-zero")
        count = np.bincount(st, minlength=n + 1)
        with np.errstate(divide="ignore"):
            laws["formula-laplace"] = np.log(per_step[st] / count[st])
    rows, tails = [], []
    order = np.argsort(h, kind="stable")
    for mech, lp in laws.items():
        p = np.exp(lp)
        rows.append(pd.DataFrame({"item": args.item, "mechanism": mech, "candidate": np.arange(len(cands)),
                                  "m": [r.tolist() for r in cands], "H": h, "steps": st, "prob": p,
                                  "is_truth": np.arange(len(cands)) == truth}))
        ts, first = np.unique(np.round(h[order], 12), return_index=True)
        tail = np.concatenate([np.cumsum(p[order][::-1])[::-1]])[first]
        bound = mh_tail_bound(a, c, eps, ts) if mech == "mh" else np.full(ts.size, np.nan)
        tails.append(pd.DataFrame({"item": args.item, "mechanism": mech, "t": ts, "tail_prob": tail, "bound": bound}))
    df = pd.concat(rows, ignore_index=True)
    for key in ("epsilon", "delta"):
        df[key] = spec[key]
    df["prior"] = [a.tolist()] * len(df)
    df["counts"] = [c.tolist()] * len(df)
    write_parquet(df, args.out)
    write_parquet(pd.concat(tails, ignore_index=True), args.out_tails)


if __name__ == "__main__":
    main()
