"""Benchmarks of the releases beyond the drafts, side by side with their targets (prints a table).

    PYTHONPATH=src python benchmarks/beyond.py [--quick]

Each row: the target size and time, the measured time there, and where it stops (the largest size
it accepts: the size limit it raises a one-line SizeError beyond, or the size it was timed at).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    from dpposterior import sample
    from dpposterior.accuracy import expected_errors
    from dpposterior.calibration import calibration
    from dpposterior.limits import LIMITS
    from dpposterior.mechanisms import optimal

    max_pairs = LIMITS["DPPOSTERIOR_MAX_PAIRS"].default

    # the benchmark times sizes past the interactive budget: lift it for this process only
    os.environ["DPPOSTERIOR_MAX_PAIRS"] = "1e13"

    quick = "--quick" in sys.argv
    print(f"{'what':<26} {'size':<9} {'target':>7} {'measured':>10}  where it stops", flush=True)

    class _Rows(list):
        def append(self, row):
            what, size, target, sec, stops = row
            print(f"{what:<26} {size:<9} {target:>7} {sec:9.2f}s  {stops}", flush=True)

    rows = _Rows()
    n = 50 if quick else 200
    t = timed(lambda: expected_errors("optimal", [1, 1], n, epsilon=1.0))
    rows.append(("optimal (worst), k=2", f"n={n}", "60 s", t,
                 f"|R(n)| <= {optimal.MAX_OUTPUTS} (k=2: n <= {optimal.MAX_OUTPUTS - 1}), then SizeError"))
    n = 1000 if quick else 10_000
    t = timed(lambda: calibration("ehds", [1, 1], n, epsilon=1.0))
    rows.append(("--calibrate ehds, k=2", f"n={n}", "120 s", t,
                 f"20 |R(n)|^2 <= {max_pairs:.0e} (k=2: n <= {int((max_pairs / 20) ** 0.5) - 1}), "
                 "then SizeError (DPPOSTERIOR_MAX_PAIRS)"))
    n = 2000 if quick else 20_000
    t = timed(lambda: expected_errors("geometric", [1, 1], n, epsilon=1.0))
    rows.append(("accuracy geometric, k=2", f"n={n}", "60 s", t,
                 f"2 |R(n)|^2 <= {max_pairs:.0e} (k=2: n <= {int((max_pairs / 2) ** 0.5) - 1}), "
                 "then SizeError (DPPOSTERIOR_MAX_PAIRS)"))
    c = np.array([400_000_000, 600_000_000])
    sample("geometric", [1, 1], c, epsilon=1.0, size=1, rng=1)  # warm-up (imports)
    t = min(timed(lambda s=s: sample("geometric", [1, 1], c, epsilon=1.0, size=1, rng=s)) for s in range(5))
    rows.append(("geometric release", "n=1e9", "0.1 s", t, "no size limit (integer sampler, R(n) never listed)"))


if __name__ == "__main__":
    main()
