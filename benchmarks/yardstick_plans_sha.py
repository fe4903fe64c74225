"""SHA-256 of the yardstick's relaxation plans (``plan_windows``, ``plan_weighted``, ``plan_release``,
``plan_flow``): every field of
each Plan and its sizes over a grid of public (k, n, eps, share), so that a change that must not move them is shown
not to.  Prints the digest and the number of plans; ``--dump FILE`` writes them as JSON.

    PYTHONPATH=SRC python benchmarks/yardstick_plans_sha.py [--dump FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json

import numpy as np

from dpposterior.lattice import yardstick as Y

GRID = [(k, n, eps, share) for k in (2, 3, 4, 5) for n in (1, 2, 3, 5, 10, 12, 15, 20, 40, 50, 100, 300, 1000)
        for eps in (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 5.0) for share in (1.0, 10.0, 45.0, 1e4)]


def rows() -> list:
    out = []
    for k, n, eps, share in GRID:
        for name in ("plan_windows", "plan_weighted", "plan_release", "plan_flow"):
            plan, size = getattr(Y, name)(np.ones(k), n, eps, share)
            out.append([name, k, n, eps, share, repr(dataclasses.astuple(plan)), list(size)])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", default=None)
    args = parser.parse_args()
    got = rows()
    text = json.dumps(got)
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as f:
            f.write(text)
    print(hashlib.sha256(text.encode()).hexdigest(), len(got))


if __name__ == "__main__":
    main()
