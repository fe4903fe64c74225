"""``dpposterior compare`` side by side (the tree before and this tree), one run after the other (never two at
once on the shared cores): CPU s, peak RSS, exit status, load, the rows shown and left out and the printed
yardstick bounds of ``compare --prior P --n N --epsilon EPS`` per cell ``PRIOR:EPS:N`` (``PRIOR`` as ``1-1-1-1``),
with each tree's planned seconds (``compare_h74cmp.run``'s record).

    python benchmarks/compare_worst_first_h79yd.py --old OLD/src --new src \\
        --out benchmarks/compare_worst_first_h79yd.json 1-1-1-1:0.5:20 1-1-1-1:0.5:15 1-1-1-1:1:100
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402
from compare_h74cmp import run  # noqa: E402


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("cells", nargs="+", help="PRIOR:EPS:N, PRIOR as 1-1-1-1")
    args = ap.parse_args()
    rows = []
    for cell in args.cells:
        prior, eps, n = cell.split(":")
        prior, eps, n = prior.replace("-", ","), float(eps), int(n)
        row = {"cell": cell, "old": run(args.old, prior, n, eps), "new": run(os.path.abspath(args.new), prior, n, eps)}
        both = set(row["old"]["values"]) & set(row["new"]["values"])
        row["shown_by_both_same"] = all(row["old"]["values"][k] == row["new"]["values"][k] for k in both)
        print(cell, {k: {x: v for x, v in row[k].items() if x not in ("stdout", "values")} for k in ("old", "new")},
              row["shown_by_both_same"], flush=True)
        rows.append(row)
    _side.write(args.out, _side.record("benchmarks/compare_worst_first_h79yd.py", rows, old=args.old))


if __name__ == "__main__":
    main()
