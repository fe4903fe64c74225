"""The numbers the README and docs quote about the releases' errors, measured and written to
benchmarks/readme_numbers.json (tests/project/test_doc_numbers.py checks the prose against that file, so the two
cannot drift apart):

    PYTHONPATH=src python benchmarks/readme_numbers.py

- ``k2``: at Beta(1,1), eps = 1, over the `frontier` item's n grid (config.yaml), each release's exact worst-case and
  average expected Hellinger error over the optimum's (geometric + remap: ``optimal~worst``, ``optimal~average``),
  the smallest and largest ratio, and where the largest is.
- ``k3``: at Dir(1,1,1), eps = 1, the lattice release with its minimax (worst) and Bayes (average) remap over the
  linear program's optimum, at the n where the LP runs (docs/lattice.md, "Numbers").
- ``lp_reach``: the largest n at which ``optimal`` solves its linear program at k = 3, 4, 5 within the default
  budgets (|R(n)| <= ``MAX_OUTPUTS`` and the estimated solve within ``DPPOSTERIOR_MAX_SOLVE_SECONDS``); beyond it
  ``optimal`` is the lattice release.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "readme_numbers.json"
K2 = ["geometric", "lshist", "lsdim", "lszhang", "ehd", "ehds", "mh", "mh-delta"]
K3_N = [3, 5, 8, 10]


def ratio_table(df):
    from dpposterior.paper.beyond import ratios

    out = {}
    r = ratios(df)
    for (m, objective), s in r.groupby(["mechanism", "objective"]):
        top = s.loc[s.ratio.idxmax()]
        out.setdefault(m, {})[objective] = {"min": round(float(s.ratio.min()), 6), "max": round(float(s.ratio.max()), 6),
                                            "max_at_n": int(top.n), "points": int(len(s)),
                                            "by_n": {str(int(n)): round(float(v), 6) for n, v in zip(s.n, s.ratio)}}
    return out


def lp_reach() -> dict:
    from dpposterior.limits import limit_setting
    from dpposterior.mechanisms import MECHANISMS
    from dpposterior.mechanisms.optimal import MAX_OUTPUTS
    from dpposterior.models import n_candidates

    opt, budget, out = MECHANISMS["optimal"], limit_setting("DPPOSTERIOR_MAX_SOLVE_SECONDS"), {}
    for k in (3, 4, 5):
        n = 1
        while n_candidates(n + 1, k) <= MAX_OUTPUTS and all(
                opt.solve_seconds(n + 1, k, obj, 1.0) <= budget for obj in ("worst", "average")):
            n += 1
        out[str(k)] = {"n": n, "outputs": int(n_candidates(n, k))}
    return {"max_outputs": MAX_OUTPUTS, "solve_seconds": budget, "by_k": out}


def main() -> None:
    import pandas as pd

    from dpposterior.paper.beyond import expected_error_grid

    cfg = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    frontier = cfg["expected_error"]["frontier"]
    t0 = time.process_time()
    spec = dict(frontier, priors=[[1, 1]], epsilon=[1.0], lp_oracle=False)
    k2 = pd.concat([expected_error_grid(m, spec) for m in K2 + ["optimal~worst", "optimal~average"]],
                   ignore_index=True)
    spec3 = dict(frontier, priors=[[1, 1, 1]], n=K3_N, epsilon=[1.0], lp_oracle=False)
    k3 = pd.concat([expected_error_grid(m, spec3) for m in ["lattice~worst", "lattice~average", "optimal~worst",
                                                           "optimal~average"]], ignore_index=True)
    data = {"k2": {"prior": [1, 1], "epsilon": 1.0, "n": [int(n) for n in frontier["n"]], "ratios": ratio_table(k2)},
            "k3": {"prior": [1, 1, 1], "epsilon": 1.0, "n": K3_N, "ratios": ratio_table(k3)},
            "lp_reach": lp_reach(), "cpu_seconds": round(time.process_time() - t0, 1),
            "measured": time.strftime("%Y-%m-%d")}
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(data, indent=1))


if __name__ == "__main__":
    main()
