"""The exact errors of ``lattice~average`` where its draws run the local search (docs/lattice.md, "The local remap at
every point of a window"): whole commands, side by side in one run.

    PYTHONPATH=src python benchmarks/lattice_errors.py [--only 1000]

Each case runs the command in its own process (``benchmarks/scale.py``'s ``main`` and ``run``: wall-clock and CPU seconds,
the child's peak resident memory, the load average while it ran, what it answered).  Targets (issue's speed table):
``accuracy`` of the lattice release at k = 3, n = 1000 <= 60 s, ``compare`` there <= 120 s, each <= 2 GB.

Measured 26 Nov 2026 on the 2 shared cores (before: both refused the row, "is not computed"; one point at a
time the window's ~560,000 local searches take ~3.5 ms each, about 33 min):

| case | wall s | cpu s | peak MB | load | exit | result |
|---|---|---|---|---|---|---|
| accuracy lattice~average k=3 n=1000 | 110.1 | 57.9 | 1047 | 8.8 | 0 | 0.35817 at [2, 996, 2], 0.07547, 8.6e-06 |
| compare k=3 n=1000 | 150.8 | 92.4 | 1071 | 4.6 | 0 | lattice (average) 0.3582/0.0755, geometric 0.5095/0.1336 |

Again on the nearly idle machine (26 Nov 2026, load 1.2-2.0; the same command, merged main):

| case | wall s | cpu s | peak MB | load | exit | result |
|---|---|---|---|---|---|---|
| accuracy lattice~average k=3 n=300 | 6.6 | 6.6 | 246 | 1.2 | 0 | 0.35880 at [296, 2, 2], 0.12924, 8.6e-06 |
| accuracy lattice~average k=3 n=1000 | 49.4 | 48.9 | 1048 | 1.5 | 0 | 0.35817 at [2, 996, 2], 0.07547, 8.6e-06 |
| compare k=3 n=1000 | 81.7 | 81.3 | 1068 | 2.0 | 0 | lattice avg 0.3582/0.0755, geometric 0.5095/0.1336; 17 not computed |

In-process (``time.process_time``, load 10-12): the batched remap 5.3 s at n = 300 (60,031 window points, 54 handed
to the one-point search) and 39.3 s at n = 1000 (547,581 points, 516 handed on); the offset sum 1.2 s and 16.1 s.
"""

from __future__ import annotations

from scale import main

CASES = [
    ("accuracy lattice~average k=3 n=300 eps=1",
     ["accuracy", "--mechanism", "lattice", "--objective", "average", "--prior", "1,1,1", "--n", "300", "--epsilon",
      "1", "--json"], 60),
    ("accuracy lattice~average k=3 n=1000 eps=1",
     ["accuracy", "--mechanism", "lattice", "--objective", "average", "--prior", "1,1,1", "--n", "1000", "--epsilon",
      "1", "--json"], 60),
    ("compare k=3 n=1000 eps=1", ["compare", "--prior", "1,1,1", "--n", "1000", "--epsilon", "1", "--json"], 120),
]


if __name__ == "__main__":
    main(CASES)
