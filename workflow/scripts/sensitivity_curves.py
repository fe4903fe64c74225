"""Sensitivity stage: 004 Fig. 1 (LS, S, S_b, GS against the posterior) and 004 Fig. 2
(max over adjacent c' of |H(BI(c), r) - H(BI(c'), r)| per candidate r), SPEC §3.
"""

import argparse

import numpy as np
import pandas as pd
from common import load_spec, write_parquet

from dpposterior.distances import hellinger
from dpposterior.models import candidates, neighbours
from dpposterior.sensitivity import (
    PAPER_GLOBAL_SENSITIVITY,
    beta_smooth_sensitivity_all,
    global_sensitivity,
    local_sensitivity,
    smooth_sensitivity_all,
)


def fig1(spec: dict) -> pd.DataFrame:
    n = int(spec["n"])
    out = []
    for prior in spec["priors"]:
        a = np.asarray(prior, float)
        cands = candidates(n, 2)
        out.append(pd.DataFrame({
            "prior": f"Beta({a[0]:g},{a[1]:g})", "n": n, "c1": cands[:, 0],
            "LS": local_sensitivity(a, cands), "S": smooth_sensitivity_all(a, n, 1.0),
            "S_beta": beta_smooth_sensitivity_all(a, n, spec["epsilon"], spec["delta"]),
            "GS": global_sensitivity(a, n), "GS_paper": PAPER_GLOBAL_SENSITIVITY,
            "epsilon": spec["epsilon"], "delta": spec["delta"]}))
    return pd.concat(out, ignore_index=True)


def fig2(spec: dict) -> pd.DataFrame:
    a = np.asarray(spec["prior"], float)
    out = []
    for c in spec["counts"]:
        c = np.asarray(c, np.int64)
        cands = candidates(int(c.sum()), c.size)
        h = hellinger(a + c, a + cands)
        hn = np.stack([hellinger(a + d, a + cands) for d in neighbours(c)])
        out.append(pd.DataFrame({"data": "(" + ",".join(map(str, c)) + ")", "c1": int(c[0]), "n": int(c.sum()),
                                 "r1": cands[:, 0], "H_truth": h, "max_change": np.abs(hn - h).max(axis=0),
                                 "LS": local_sensitivity(a, c)}))
    return pd.concat(out, ignore_index=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--item", required=True, choices=["fig1", "fig2"])
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    spec = load_spec(args.spec)
    write_parquet(fig1(spec) if args.item == "fig1" else fig2(spec), args.out)


if __name__ == "__main__":
    main()
