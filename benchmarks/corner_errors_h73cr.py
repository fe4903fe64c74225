"""The k = 3 worst release's exact errors at eps 0.5 where its corner LP drops its implied constraints before the
dual simplex (``corners.implied_simplex``: n = 107 to 160), the tree before and this tree side by side.

A cell ``acc:N`` (or ``acc:EPS:N``) is ``accuracy --prior 1,1,1 --n N --epsilon EPS --mechanism lattice --objective
worst --json``: the tree before with ``DPPOSTERIOR_MAX_SOLVE_SECONDS=200`` (its plan refuses these cells), this tree
at its default limits (a refusal recorded as such); per run the CPU s and peak RSS of the process
(``/usr/bin/time``), the load before it, the corner solve's stages timed in the process (``plans_h71.CHILD``), the
output's SHA-256 and its worst and average errors; each tree's plan of the cell (``Mechanism.plan(Task.ERRORS)``).

A cell ``cmp:EPS:N`` is ``compare --prior 1,1,1 --n N --epsilon EPS`` at the default limits in both trees
(``compare_h72.run``: CPU s, peak, load, the printed lines), with whether the whole output is the same.

Each run in a process of its own, one after the other (never two at once).

    python benchmarks/corner_errors_h73cr.py --old OLD/src --new src --out benchmarks/corner_errors_h73cr.json \\
        acc:107 acc:120 acc:140 acc:160 cmp:0.5:40 cmp:0.5:120
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _side  # noqa: E402
import compare_h72 as CMP  # noqa: E402
import plans_h71 as H71  # noqa: E402


def run_acc(src: str, n: int, eps: float, raised: bool) -> dict:
    """One ``accuracy`` run of the cell in ``src`` (``raised``: the solve limit at 200 s)."""
    args = ["accuracy", "--prior", "1,1,1", "--n", str(n), "--epsilon", str(eps), "--mechanism", "lattice",
            "--objective", "worst", "--json"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    if raised:
        env["DPPOSTERIOR_MAX_SOLVE_SECONDS"] = "200"
    proc, row = _side.timed([sys.executable, "-c", H71.CHILD, *args], env)
    row["raised"] = raised
    stages = [x for x in proc.stderr.splitlines() if x.startswith("STAGES ")]
    if stages:
        row["stages"] = json.loads(stages[-1][7:])["stages"]
    if proc.returncode == 0:
        row["sha256"] = hashlib.sha256(proc.stdout.encode()).hexdigest()
        out = json.loads(proc.stdout)
        row.update(worst=out["worst_expected_error"], average=out["average_expected_error"],
                   worst_counts=out["worst_counts"])
    else:
        row["error"] = proc.stderr.strip()[-400:]
    return row


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("cells", nargs="+", help="acc:N, acc:EPS:N or cmp:EPS:N")
    args = ap.parse_args()
    new = os.path.abspath(args.new)
    rows = []
    if os.path.exists(args.out):
        rows = [r for r in json.loads(pathlib.Path(args.out).read_text(encoding="utf-8"))["rows"]
                if r["cell"] not in args.cells]
    for cell in args.cells:
        parts = cell.split(":")
        eps = float(parts[-2]) if len(parts) == 3 else 0.5
        n = int(parts[-1])
        if parts[0] == "acc":
            c = {"kind": "acc", "objective": "worst", "eps": eps, "n": n}
            row = {"cell": cell, **c, "plan_old": H71.plan(args.old, c), "plan_new": H71.plan(new, c)}
            row["old"] = run_acc(args.old, n, eps, True)
            row["new"] = run_acc(new, n, eps, False)
            row["same_output"] = _side.same_output(row["old"], row["new"])
            if "worst" in row["old"] and "worst" in row["new"]:
                row["worst_diff"] = row["new"]["worst"] - row["old"]["worst"]
                row["average_diff"] = row["new"]["average"] - row["old"]["average"]
        else:
            row = {"cell": cell, "kind": "cmp", "eps": eps, "n": n, "old": CMP.run(args.old, n, eps),
                   "new": CMP.run(new, n, eps)}
            row["same_output"] = row["old"]["stdout"] == row["new"]["stdout"]
            row["others_same"] = row["old"]["others_sha256"] == row["new"]["others_sha256"]
        print(cell, {k: v for k, v in row.items() if k not in ("old", "new")},
              {k: {x: v for x, v in row[k].items() if x not in ("stdout", "stages", "values")} for k in ("old", "new")},
              flush=True)
        rows.append(row)
        rec = _side.record("benchmarks/corner_errors_h73cr.py", rows, old=args.old)
        _side.write(args.out, rec)


if __name__ == "__main__":
    main()
