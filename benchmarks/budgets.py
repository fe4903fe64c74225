"""The largest case each command (and ``dp.sample``) accepts under its default budget, timed side by side.

    python benchmarks/budgets.py            # every case (about 6 minutes)
    python benchmarks/budgets.py --quick    # the cheaper half

Each case runs the command line in a fresh process and reports its wall time and peak resident
memory (the issue's contract: within 60 s and 4 GiB), plus one case just past the budget to show
the refusal.  The budgets are in ``dpposterior/limits.py``; this prints the numbers behind them.
"""

from __future__ import annotations

import subprocess
import sys
import time

ONE = ["--epsilon", "1", "--seed", "1"]
CASES = [  # (what, argv, quick)
    ("release ehd k=2 n=4,999,998 (release work 1e7)",
     ["release", "--prior", "1,1", "--counts", "2499999,2499999", "--mechanism", "ehd", *ONE], False),
    ("release ehds k=3 n=999,990 gamma=1e-6 (smooth work 3e6)",
     ["release", "--prior", "1,1,1", "--counts", "333330,333330,333330", "--mechanism", "ehds", "--gamma", "1e-6",
      *ONE], False),
    ("release ehds k=1000 n=1000",
     ["release", "--prior", ",".join(["1"] * 1000), "--counts", ",".join(["1"] * 1000), "--mechanism", "ehds", *ONE],
     True),
    ("pmf --json k=3 n=1412 (998,991 rows printed)",
     ["pmf", "--prior", "1,1,1", "--counts", "470,471,471", "--mechanism", "ehds", "--epsilon", "1", "--json"], True),
    ("pmf --top 5 k=3 n=2826 (|R(n)| = 4.0e6 computed)",
     ["pmf", "--prior", "1,1,1", "--counts", "942,942,942", "--mechanism", "mh", "--epsilon", "1", "--top", "5"], False),
    ("privacy ehds k=2 n=19,999 (4e8 pairs)",
     ["privacy", "--prior", "1,1", "--n", "19999", "--mechanism", "ehds", "--epsilon", "1"], False),
    ("accuracy ehds k=2 n=14,141 (2 x 2e8 pairs)",
     ["accuracy", "--prior", "1,1", "--n", "14141", "--mechanism", "ehds", "--epsilon", "1"], False),
    ("privacy --calibrate ehds k=2 n=4,470 (20 x 2e7 pairs)",
     ["privacy", "--prior", "1,1", "--n", "4470", "--mechanism", "ehds", "--epsilon", "1", "--calibrate"], False),
    ("audit lshist 1.4e7 samples per side (45 s est.)",
     ["audit", "--prior", "1,1", "--n", "100", "--mechanism", "lshist", "--epsilon", "1", "--samples", "1.4e7",
      "--pair", "50,50:49,51", "--seed", "1"], True),
    ("audit ehd k=2 n=1e5 5.5e6 samples (rejection sampler; 42 s est.)",
     ["audit", "--prior", "1,1", "--n", "100000", "--mechanism", "ehd", "--epsilon", "1", "--samples", "5.5e6",
      "--pair", "50000,50000:49999,50001", "--seed", "1"], False),
    ("audit lshist k=1000 --search random, 1000 samples",
     ["audit", "--prior", ",".join(["1"] * 1000), "--n", "1000", "--mechanism", "lshist", "--epsilon", "1",
      "--samples", "1000", "--search", "random", "--seed", "1"], True),
    ("dp.sample lshist k=2, 1e7 draws (draw entries 2e7)",
     ["-c", "import dpposterior as d; d.sample('lshist', [1, 1], [3, 4], epsilon=1, size=10**7)"], True),
    ("dp.sample ehd k=2 n=4,999,998, one bare draw (tables 1e7)",
     ["-c", "import dpposterior as d; d.sample('ehd', [1, 1], [2499999, 2499999], epsilon=1, size=1)"], True),
    ("past the budget: privacy k=2 n=20,000",
     ["privacy", "--prior", "1,1", "--n", "20000", "--mechanism", "ehds", "--epsilon", "1"], True),
]


_WRAP = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
         "stderr=subprocess.PIPE); sys.stderr.write(p.stderr.decode()[-300:]); "
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(p.returncode)")


def run(argv):
    """(exit status, wall seconds, peak resident GiB of that one process, last stderr line)."""
    start = time.monotonic()
    cmd = argv if argv[0] == "-c" else ["-m", "dpposterior.cli", *argv]  # "-c": a Python API call
    proc = subprocess.run([sys.executable, "-c", _WRAP, sys.executable, *cmd],
                          capture_output=True, text=True)
    wall = time.monotonic() - start
    last = proc.stderr.strip().splitlines()[-1:] or [""]
    return proc.returncode, wall, int(proc.stdout.strip() or 0) / 2**20, last


def main() -> None:
    quick = "--quick" in sys.argv
    print(f"{'case':<58} {'exit':>4} {'wall s':>7} {'peak GiB':>9}  note", flush=True)
    for what, argv, cheap in CASES:
        if quick and not cheap:
            continue
        code, wall, rss, last = run(argv)
        note = last[0][:90] if code else ""
        print(f"{what:<58} {code:>4} {wall:7.1f} {rss:9.2f}  {note}", flush=True)


if __name__ == "__main__":
    main()
