"""Does a release's running time depend on the data?  Times one release per data set, in process.

For each exponential mechanism (ehd, ehdl, ehds, mh, mh-delta) at k = 2, n = 1e6 and k = 3,
n = 2e4, eps = 1, prior all ones, it times the release (``dpposterior.padding.padded_draw``, padded
to its public deadline; on an older checkout without that module, ``mechanisms.sample``) at
four data sets of the same n: balanced, the boundary (0, ..., n), and its neighbours
(1, ..., n-1), (2, ..., n-2).  Runs are interleaved across the data sets (so a load change hits
all four alike), the first round is a discarded warm-up, and the table gives the median of each
data set and the spread ``(max median - min median) / min median`` (target <= 5 %).

    PYTHONPATH=src python benchmarks/timing.py [--reps 9] [--mechanisms ehds,mh] [--sizes 2:1000000,3:20000]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from dpposterior.mechanisms import resolve

try:
    from dpposterior.padding import padded_draw as _release
except ImportError:  # the checkout before constant-time releases
    _release = None


def data_sets(n: int, k: int) -> dict[str, np.ndarray]:
    """balanced, (0,..,n), (1,..,n-1), (2,..,n-2) with the middle categories empty."""
    bal = np.full(k, n // k, dtype=np.int64)
    bal[: n - int(bal.sum())] += 1
    out = {"balanced": bal}
    for j in range(3):
        c = np.zeros(k, dtype=np.int64)
        c[0], c[-1] = j, n - j
        out[f"({j},..,n-{j})" if j else "(0,..,n)"] = c
    return out


def one(mech, a, c, params, seed) -> tuple[float, int]:
    t0 = time.perf_counter()
    if _release is None:
        mech.sample(a, c, params, 1, np.random.default_rng(seed))
        slots = 0
    else:
        slots = _release(mech, a, c, params, seed)[1].overrun_slots
    return time.perf_counter() - t0, slots


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--mechanisms", default="ehd,ehdl,ehds,mh,mh-delta")
    ap.add_argument("--sizes", default="2:1000000,3:20000")
    ap.add_argument("--epsilon", type=float, default=1.0)
    args = ap.parse_args()
    sizes = [tuple(int(float(x)) for x in s.split(":")) for s in args.sizes.split(",")]
    mode = "release (padded)" if _release is not None else "mechanisms.sample (no padding)"
    print(f"# timing of one {mode}, median of {args.reps} runs after a warm-up, seconds")
    print(f"{'mechanism':>9} {'k':>2} {'n':>8} {'balanced':>9} {'(0,..,n)':>9} {'(1,..,n-1)':>10} "
          f"{'(2,..,n-2)':>10} {'spread':>7} {'overruns':>8}")
    worst = 0.0
    for k, n in sizes:
        a = np.ones(k)
        sets = data_sets(n, k)
        for mid in args.mechanisms.split(","):
            mech, params = resolve(mid, args.epsilon)
            times = {name: [] for name in sets}
            overruns = 0
            for rep in range(args.reps + 1):
                for name, c in sets.items():
                    t, slots = one(mech, a, c, params, 1000 * rep + len(times[name]))
                    if rep:
                        times[name].append(t)
                        overruns += slots > 0
            med = {name: statistics.median(v) for name, v in times.items()}
            spread = (max(med.values()) - min(med.values())) / min(med.values())
            worst = max(worst, spread)
            cells = [f"{med[name]:9.4f}" if i < 2 else f"{med[name]:10.4f}" for i, name in enumerate(sets)]
            print(f"{mid:>9} {k:>2} {n:>8} {' '.join(cells)} {100 * spread:6.1f}% {overruns:>8}", flush=True)
    print(f"# largest spread of the medians: {100 * worst:.1f}% (target <= 5%)")


if __name__ == "__main__":
    main()
