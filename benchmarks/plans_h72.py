"""Plans against runs, side by side (the tree before and this tree): the k = 3 worst case's exact errors by orbits at
eps 0.5 to 1, n = 300 to 1,000, the corner release where its corners are apart at eps 0.9 to 1, and ``compare``.

The cells are ``benchmarks/plans_h71.py``'s (``EPS:N`` a release, ``acc:OBJ:EPS:N`` the exact errors, ``accuracy
--prior 1,1,1 --n N --epsilon EPS --mechanism lattice --objective OBJ``, with the limit raised to 200 s so that a cell
planned over it runs; ``optimal`` plans and runs the same route there), and ``cmp:EPS:N``: ``compare --prior 1,1,1
--n N --epsilon EPS --json``, at the default limits.  Each cell runs in a process of its own, in the tree before
(``--old``) and in this tree, one after the other; CPU s of the whole process and its peak RSS by ``/usr/bin/time``,
the load before each run beside it, the SHA-256 of its output, and each tree's plan.

    python benchmarks/plans_h72.py --old OLD/src --new src --out benchmarks/plans_h72.json acc:worst:0.5:1000 ...
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _side  # noqa: E402
import plans_h71 as H71  # noqa: E402


def parse(cell: str) -> dict:
    if cell.startswith("cmp:"):
        _, eps, n = cell.split(":")
        return {"kind": "cmp", "objective": "both", "eps": float(eps), "n": int(n)}
    return H71.parse(cell)


def plan(src: str, c: dict) -> dict:
    if c["kind"] == "cmp":
        return {}
    return H71.plan(src, c)


def run(src: str, c: dict) -> dict:
    if c["kind"] != "cmp":
        return H71.run(src, c)
    args = ["compare", "--prior", "1,1,1", "--n", str(c["n"]), "--epsilon", str(c["eps"]), "--json"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    proc, row = _side.timed([sys.executable, "-m", "dpposterior", *args], env)
    if proc.returncode == 0:
        row["sha256"] = hashlib.sha256(proc.stdout.encode()).hexdigest()
        row.update(summary(json.loads(proc.stdout)))
    else:
        row["error"] = proc.stderr.strip()[-400:]
    return row


def summary(out: dict) -> dict:
    """Of ``compare --json``'s output: each release's worst and average error (or why it is not computed), and the
    yardstick."""
    rows = [{key: r.get(key) for key in ("release", "worst_expected_error", "average_expected_error", "error")
             if key in r} for r in out.get("releases", [])]
    return {"releases": rows, "yardstick": out.get("yardstick")}


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("--new-only", action="store_true", help="run the cells in this tree only (both trees' plans)")
    ap.add_argument("--plans-only", action="store_true", help="recompute both trees' plans of the rows in --out only")
    ap.add_argument("--merge", nargs="*", default=[], help="records of this script whose rows are added to --out")
    ap.add_argument("cells", nargs="*")
    args = ap.parse_args()
    new = os.path.abspath(args.new)
    rows = []
    if os.path.exists(args.out):
        rows = [r for r in json.loads(pathlib.Path(args.out).read_text(encoding="utf-8"))["rows"]
                if r["cell"] not in args.cells]
    for path in args.merge:  # runs of the same cells made apart (at the same time: a loaded machine) kept side by side
        for r in json.loads(pathlib.Path(path).read_text(encoding="utf-8"))["rows"]:
            r.setdefault("batch", path.rsplit("/", 1)[-1])
            rows.append(r)
    if args.plans_only:
        for r in rows:
            r["plan_old"], r["plan_new"] = plan(args.old, r), plan(new, r)
        _write(args, rows)
    for cell in args.cells:
        c = parse(cell)
        row = {"cell": cell, **c, "plan_old": plan(args.old, c), "plan_new": plan(new, c)}
        for name, src in (("new", new),) if args.new_only else (("old", args.old), ("new", new)):
            row[name] = run(src, c)
            print(cell, name, row[name].get("cpu_s"), row[name].get("load"), "plan",
                  round(row["plan_" + name].get("seconds", -1), 2), flush=True)
        if "old" in row:
            row["same_output"] = _side.same_output(row["old"], row["new"])
        rows.append(row)
        _write(args, rows)


def _write(args, rows) -> None:
    record = _side.record("benchmarks/plans_h72.py", rows, old=args.old)
    pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
