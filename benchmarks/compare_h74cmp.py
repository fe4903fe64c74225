"""``dpposterior compare`` at k = 3 and 4, side by side (the tree before and this tree): CPU s, peak RSS, exit status
and load of ``compare --prior P --n N --epsilon EPS`` per cell ``PRIOR:EPS:N`` (``PRIOR`` as ``1-1-1``), both trees'
runs of a cell in parallel, each in a process of its own (default limits), with the rows shown, the rows left out,
the printed yardstick bounds, each ranked row's values and whether the rows both trees show have the same values.

    python benchmarks/compare_h74cmp.py --old OLD/src --new src --out benchmarks/compare_h74cmp.json \\
        1-1-1:0.5:120 1-1-1:1:120 1-1-1:0.5:1000 1-1-1:1:1000 1-1-1-1:1:100
"""

from __future__ import annotations

import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402


def run(src: str, prior: str, n: int, eps: float) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    argv = [sys.executable, "-c", "import sys; from dpposterior.cli.main import main; sys.exit(main(sys.argv[1:]))",
            "compare", "--prior", prior, "--n", str(n), "--epsilon", str(eps)]
    proc, row = _side.timed(argv, env, timeout=1800)
    lines = proc.stdout.splitlines()
    row["stdout"] = lines
    row["stderr_tail"] = proc.stderr.splitlines()[-5:]
    row.update(summarise(lines))
    return row


def summarise(lines: list[str]) -> dict:
    """Each ranked row's values (worst, average, worst data set), the rows left out and the yardstick's bounds."""
    values, left = {}, []
    yard = None
    for x in lines:
        m = re.match(r"(.{27})(.*?-DP|none)\s+([\d.]+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(.*)$", x)
        if m:
            values[m.group(1).strip()] = [m.group(3), m.group(5), m.group(7)]
        elif "not computed:" in x:
            left.append(x[:27].strip())
        m = re.match(r"yardstick \(certified.*?worst ([\d.]+) by .*; average ([\d.]+) by", x)
        if m:
            yard = [float(m.group(1)), float(m.group(2))]
    return {"values": values, "shown": sorted(values), "left_out": sorted(left), "yardstick": yard}


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("cells", nargs="+", help="PRIOR:EPS:N, PRIOR as 1-1-1")
    args = ap.parse_args()
    rows = []
    for cell in args.cells:
        prior, eps, n = cell.split(":")
        prior, eps, n = prior.replace("-", ","), float(eps), int(n)
        with ThreadPoolExecutor(2) as pool:
            old = pool.submit(run, args.old, prior, n, eps)
            new = pool.submit(run, os.path.abspath(args.new), prior, n, eps)
            row = {"cell": cell, "old": old.result(), "new": new.result()}
        both = set(row["old"]["values"]) & set(row["new"]["values"])
        row["shown_by_both_same"] = all(row["old"]["values"][k] == row["new"]["values"][k] for k in both)
        print(cell, {k: {x: v for x, v in row[k].items() if x not in ("stdout", "values")} for k in ("old", "new")},
              row["shown_by_both_same"], flush=True)
        rows.append(row)
    rec = _side.record("benchmarks/compare_h74cmp.py", rows)
    rec["command"] = rec["command"].replace(args.old, "OLD/src")
    _side.write(args.out, rec)


if __name__ == "__main__":
    main()
