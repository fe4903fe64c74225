"""The frontier numbers: worst-case and average expected Hellinger error of every release, and kappa.

    PYTHONPATH=src python benchmarks/frontier_numbers.py [N ...]

Beta(1,1), eps = 1: the ``compare`` table (every mechanism, the calibrated exponential ones,
geometric, optimal worst and average) at each n (default 50 and 300), then the calibrated factor
kappa* of ehds and mh at a few n.
"""

from __future__ import annotations

import sys


def main() -> None:
    import numpy as np

    from dpposterior.calibration import calibration
    from dpposterior.ranking import compare_rows

    ns = [int(x) for x in sys.argv[1:]] or [50, 300]
    for n in ns:
        print(f"# Beta(1,1), n = {n}, eps = 1")
        print(f"{'release':<24} {'worst':>8} {'average':>8}")
        for r in compare_rows(np.array([1.0, 1.0]), n, 1.0, 1e-8):
            if "error" in r:
                print(f"{r['release']:<24} {'too large: ' + r['error'][:60]}")
            else:
                print(f"{r['release']:<24} {r['worst_expected_error']:8.4f} {r['average_expected_error']:8.4f}")
        print()
    print("# kappa* (Beta(1,1), eps = 1)")
    print(f"{'n':>6} {'ehds':>8} {'mh':>8}")
    for n in (10, 50, 100, 300, 1000):
        k1 = calibration("ehds", [1, 1], n, epsilon=1.0).factor
        k2 = calibration("mh", [1, 1], n, epsilon=1.0).factor
        print(f"{n:>6} {k1:8.4f} {k2:8.4f}")


if __name__ == "__main__":
    main()
