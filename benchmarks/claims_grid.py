"""Worst-case concrete epsilon of every mechanism against its claimed guarantee on a small grid.

    python benchmarks/claims_grid.py            # markdown table, eps = 1, delta = 1e-8

Exact values (docs/definitions.md §5, `dpposterior.privacy.concrete_epsilon`), not estimates.
"""

from __future__ import annotations

from dpposterior import MECHANISM_IDS, concrete_epsilon

GRID = [((1, 1), (5, 20, 100)), ((0.5, 0.5), (5, 20, 100)), ((1, 1, 1), (5, 20)), ((0.5, 0.5, 0.5), (5, 20)),
        ((0.1, 0.1), (300, 1000))]


def main() -> None:
    print("| mechanism | prior | n | claimed (eps, delta) | exact worst-case eps | worst pair | within claim |")
    print("|---|---|---|---|---|---|---|")
    for prior, ns in GRID:
        for n in ns:
            for m in MECHANISM_IDS:
                r = concrete_epsilon(m, prior, n, epsilon=1.0, delta=1e-8)
                ce, cd = r.claimed_epsilon, r.claimed_delta
                claim = "none" if ce is None else f"({ce:g}, {cd:g})"
                ok = ("n/a (exceeds eps)" if r.concrete_epsilon > 1 + 1e-9 else "n/a") if ce is None else (
                    "yes" if r.concrete_epsilon <= ce * (1 + 1e-9) else "**NO**")
                print(f"| {m} | {prior} | {n} | {claim} | {r.concrete_epsilon:.4f} | "
                      f"{r.worst_pair[0]}~{r.worst_pair[1]} | {ok} |", flush=True)


if __name__ == "__main__":
    main()
