"""Data generation stage: the count vectors (and priors) of one accuracy experiment, with metadata.

kinds (config.yaml `accuracy:`): n-series (balanced or given proportions), prior-series, counts-series.
"""

import argparse

import numpy as np
import pandas as pd
from common import load_spec, write_parquet

from dpposterior.models import balanced_counts, counts_from_proportions


def points(spec: dict) -> list[dict]:
    kind = spec["kind"]
    rows = []
    if kind == "n-series":
        prior = [float(x) for x in spec["prior"]]
        k = len(prior)
        for n in spec["n"]:
            c = counts_from_proportions(n, spec["proportions"]) if spec.get("proportions") else balanced_counts(n, k)
            rows.append({"x": float(n), "label": str(n), "prior": prior, "counts": c.tolist()})
    elif kind == "prior-series":
        c = [int(x) for x in spec["counts"]]
        for a in spec["a"]:
            rows.append({"x": float(a), "label": f"{a:g}", "prior": [float(a)] * len(c), "counts": c})
    elif kind == "counts-series":
        for c in spec["counts"]:
            rows.append({"x": float(len(rows)), "label": "(" + ",".join(map(str, c)) + ")",
                         "prior": [float(spec["prior_value"])] * len(c), "counts": [int(v) for v in c]})
    else:
        raise ValueError(f"unknown experiment kind {kind!r}")
    for i, r in enumerate(rows):
        r.update(point=i, n=int(np.sum(r["counts"])), k=len(r["counts"]))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--experiment", required=True)
    ap.add_argument("--spec", required=True, help="the experiment's config entry as JSON")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    spec = load_spec(args.spec)
    df = pd.DataFrame(points(spec))
    df.insert(0, "experiment", args.experiment)
    df["kind"] = spec["kind"]
    write_parquet(df, args.out)


if __name__ == "__main__":
    main()
