"""``dpposterior compare`` at k = 3 and 4, side by side (the tree before and this tree): CPU s, peak RSS, exit status
and load of ``compare --prior P --n N --epsilon EPS`` per cell ``PRIOR:EPS:N`` (``PRIOR`` as ``1-1-1``), both trees'
runs of a cell in parallel, each in a process of its own (default limits), with the rows shown, the rows left out,
the printed yardstick bounds, each ranked row's values and whether the rows both trees show have the same values.

    python benchmarks/compare_h74cmp.py --old OLD/src --new src --out benchmarks/compare_h74cmp.json \\
        1-1-1:0.5:120 1-1-1:1:120 1-1-1:0.5:1000 1-1-1:1:1000 1-1-1-1:1:100

Each compare cell also records the seconds its tree plans for the whole call (``planned_s``: the admitted rows'
plans, each shared part once, and the yardstick's reserve, its k = 2 solves included; ``ranking.rows_seconds`` +
``ranking.yardstick_reserve``) and that tree's yardstick budget (``yardstick_budget_s``), so ``plan_over_run`` (at least
1 where the plan is above the run) reads each tree against its own plan.

    python benchmarks/compare_h74cmp.py --old OLD/src --new src --out benchmarks/compare_h75cap.json \
        1-1-1-1:0.5:100 1-1-1-1:0.5:20 1-1-1-1:1:100 1-1-1:1:1000 1-1-1:0.5:120

A cell ``acc:MECH:PRIOR:EPS:N`` times ``accuracy --mechanism MECH`` instead (one baseline row alone), with the plan
each tree states for it (its route and seconds): a plan above its run reads at least 1 in ``plan_over_run``.
"""

from __future__ import annotations

import os
import re
import subprocess
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
    plan = subprocess.run([sys.executable, "-c", COMPARE_PLAN, prior, str(n), str(eps)], capture_output=True,
                          text=True, env=env, timeout=600).stdout.split()
    if len(plan) == 2:
        row["planned_s"], row["yardstick_budget_s"] = round(float(plan[0]), 1), round(float(plan[1]), 1)
        if row["rc"] == 0 and row["cpu_s"]:
            row["plan_over_run"] = round(row["planned_s"] / row["cpu_s"], 2)
    return row


COMPARE_PLAN = ("import sys, numpy as np; from dpposterior import ranking as r; a, n, e = np.array([float(x) for x in "
                "sys.argv[1].split(',')]), int(sys.argv[2]), float(sys.argv[3]); p = r.plan_compare(a, n, e); "
                "print(r.rows_seconds(p) + r.yardstick_reserve(a, n, e, p), r.yardstick_budget(a, n, e, p))")


PLAN = ("import sys, numpy as np; from dpposterior.limits import Task; from dpposterior.mechanisms import MECHANISMS, "
        "ReleaseSpec; m, a, n, e = sys.argv[1], np.array([float(x) for x in sys.argv[2].split(',')]), int(sys.argv[3]), "
        "float(sys.argv[4]); p = MECHANISMS[m].plan(Task.ERRORS, ReleaseSpec.of(m, e), a, n); "
        "print(p.route, p.seconds, p.refused() or '')")


def run_accuracy(src: str, mech: str, prior: str, n: int, eps: float) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    plan = subprocess.run([sys.executable, "-c", PLAN, mech, prior, str(n), str(eps)], capture_output=True, text=True,
                          env=env, timeout=600).stdout.split()
    argv = [sys.executable, "-c", "import sys; from dpposterior.cli.main import main; sys.exit(main(sys.argv[1:]))",
            "accuracy", "--mechanism", mech, "--prior", prior, "--n", str(n), "--epsilon", str(eps)]
    proc, row = _side.timed(argv, env, timeout=1800)
    row["stdout"] = proc.stdout.splitlines()
    row["stderr_tail"] = proc.stderr.splitlines()[-2:]
    row["plan_route"] = " ".join(plan[:-1]) if len(plan) > 1 else None
    row["plan_seconds"] = float(plan[-1]) if plan else None
    if row["plan_seconds"] and row["rc"] == 0:
        row["plan_over_run"] = round(row["plan_seconds"] / row["cpu_s"], 2)
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
        if cell.startswith("acc:"):
            _, mech, prior, eps, n = cell.split(":")
            prior, eps, n = prior.replace("-", ","), float(eps), int(n)
            row = {"cell": cell, "old": run_accuracy(args.old, mech, prior, n, eps),
                   "new": run_accuracy(os.path.abspath(args.new), mech, prior, n, eps)}
            row["same_output"] = row["old"]["stdout"] == row["new"]["stdout"]
            print(cell, {k: {x: v for x, v in row[k].items() if x != "stdout"} for k in ("old", "new")},
                  row["same_output"], flush=True)
            rows.append(row)
            continue
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
    rec = _side.record("benchmarks/compare_h74cmp.py", rows, old=args.old)
    _side.write(args.out, rec)


if __name__ == "__main__":
    main()
