"""`release --noise-aware` at k = 4 (the face route at eps 1), the old tree against this one, whole process, in turn.

    python benchmarks/release_face_k4_side.py --old OLD/src --new src --out benchmarks/release_face_k4_side.json \
        --rounds 2 1:1,11,22,34 1:1,10,21,32

Each cell ``EPS:COUNTS`` runs ``dpposterior release --prior 1,...,1 --counts COUNTS --mechanism optimal --epsilon EPS
--noise-aware --seed 1`` (the default objective, ``worst``) under the old tree's ``src`` and then this tree's, ``--rounds``
times (old, new, old, new, ...), each in its own process under ``/usr/bin/time``: its CPU s (user + system), peak
resident MiB, exit status, the load before it and the SHA-256 of what it printed (the same release and posterior when
equal).  Per cell: ``new_over_old`` pair by pair and their median.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys

import _side

CLI = "import sys; from dpposterior.cli.main import main; sys.exit(main(sys.argv[1:]))"


def run(src: str, eps: str, counts: str) -> dict:
    k = len(counts.split(","))
    argv = [sys.executable, "-c", CLI, "release", "--prior", ",".join(["1"] * k), "--counts", counts,
            "--mechanism", "optimal", "--epsilon", eps, "--noise-aware", "--seed", "1"]
    proc, row = _side.timed(argv, dict(os.environ, PYTHONPATH=os.path.abspath(src)), timeout=1800)
    return {**row, "sha256": hashlib.sha256(proc.stdout.encode()).hexdigest()}


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("cells", nargs="+", help="EPS:COUNTS, e.g. 1:1,11,22,34")
    args = ap.parse_args()
    rows = []
    for cell in args.cells:
        eps, counts = cell.split(":")
        pairs = []
        for _ in range(args.rounds):
            old, new = run(args.old, eps, counts), run(args.new, eps, counts)
            pairs.append({"old": old, "new": new, "new_over_old": round(new["cpu_s"] / old["cpu_s"], 3),
                          "same_output": _side.same_output(old, new)})
            print(cell, json.dumps(pairs[-1]), flush=True)
        rows.append({"cell": cell, "n": sum(int(x) for x in counts.split(",")), "pairs": pairs,
                     "old_cpu_s_median": round(statistics.median(p["old"]["cpu_s"] for p in pairs), 2),
                     "new_cpu_s_median": round(statistics.median(p["new"]["cpu_s"] for p in pairs), 2),
                     "new_over_old_median": round(statistics.median(p["new_over_old"] for p in pairs), 3)})
        _side.write(args.out, _side.record("benchmarks/release_face_k4_side.py", rows, old=args.old))


if __name__ == "__main__":
    main()
