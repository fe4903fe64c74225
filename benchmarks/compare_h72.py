"""``dpposterior compare`` at k = 3, side by side (the tree before and this tree): CPU s, peak RSS, exit status and
load of ``compare --prior 1,1,1 --n N --epsilon EPS`` per cell ``EPS:N``, each tree's run in a process of its own
(default limits), with its output and each ranked row's values (the ranks left out), their SHA-256 but for the two
``(worst)`` releases (the rows that should not move) and whether they are the same in both trees.

    python benchmarks/compare_h72.py --old OLD/src --new src --out benchmarks/compare_h72.json 0.5:40
"""

from __future__ import annotations

import hashlib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402


def run(src: str, n: int, eps: float) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    argv = [sys.executable, "-c", "import sys; from dpposterior.cli.main import main; sys.exit(main(sys.argv[1:]))",
            "compare", "--prior", "1,1,1", "--n", str(n), "--epsilon", str(eps)]
    proc, row = _side.timed(argv, env, timeout=1800)
    lines = proc.stdout.splitlines()
    row["stdout"] = lines
    row["stderr_tail"] = proc.stderr.splitlines()[-5:]
    row.update(summarise(lines))
    return row


def summarise(lines: list[str]) -> dict:
    """Each ranked row's values (worst, average, worst data set; the ranks left out, as they move with the rows
    added) and their SHA-256 but for the two ``(worst)`` releases, and whether ``lattice (worst)`` has its values."""
    values = {}
    for x in lines:
        m = re.match(r"(.{27})(.*?-DP|none)\s+([\d.]+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(.*)$", x)
        if m:
            values[m.group(1).strip()] = [m.group(3), m.group(5), m.group(7)]
    others = {k: v for k, v in values.items() if "(worst)" not in k}
    return {"values": values, "has_lattice_worst": "lattice (worst)" in values,
            "others_sha256": hashlib.sha256(repr(sorted(others.items())).encode()).hexdigest()}


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("cells", nargs="+", help="EPS:N")
    args = ap.parse_args()
    rows = []
    for cell in args.cells:
        eps, n = float(cell.split(":")[0]), int(cell.split(":")[1])
        row = {"cell": cell, "old": run(args.old, n, eps), "new": run(os.path.abspath(args.new), n, eps)}
        row["others_same"] = row["old"]["others_sha256"] == row["new"]["others_sha256"]
        print(cell, {k: {x: v for x, v in row[k].items() if x not in ("stdout",)} for k in ("old", "new")}, flush=True)
        rows.append(row)
    rec = _side.record("benchmarks/compare_h72.py", rows, old=args.old)
    _side.write(args.out, rec)


if __name__ == "__main__":
    main()
