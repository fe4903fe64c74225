"""Where the CPU seconds and the peak memory of one ``dpposterior compare`` call go, stage by stage.

Runs the same steps as ``compare`` (:func:`dpposterior.ranking.plan_compare`, each row of
:func:`~dpposterior.ranking.compare_rows`, then the yardstick as :func:`dpposterior.ranking.compare_yardstick`: the LP
optima, the k = 2 bound as the average's floor, the worst case's corner blocks and the average's bound,
:func:`dpposterior.yardstick.block_bounds`; ``--tune-allocator``: the command's allocator settings first) in one
process, and records per stage its CPU seconds (``resource.getrusage``) and its peak resident memory (``VmHWM`` of
``/proc/self/status``, reset before each stage by writing 5 to ``/proc/self/clear_refs``; Linux only), with each
stage's planned seconds beside it.  Rows whose errors one pass computes (``RowPlan.pass_with``) are one stage,
planned at that pass's plan.

    python benchmarks/compare_stages.py --prior 1,1,1 --n 1000 --epsilon 0.5 [--out FILE.json]

benchmarks/compare_stages_k3.json: that call at a979838 (before the correlation ran one tap at a time).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import resource
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402

from dpposterior import ranking, yardstick  # noqa: E402
from dpposterior.limits import limit_setting  # noqa: E402
from dpposterior.mechanisms import DEFAULT_DELTA  # noqa: E402
from dpposterior.models import candidate_rank  # noqa: E402


def _peak_mb() -> float:
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak() -> None:
    try:
        pathlib.Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


class Stages:
    """Records ``{stage, cpu_seconds, peak_mb, planned_seconds}`` for each ``with stages(name):`` block."""

    def __init__(self):
        self.rows = []

    def __call__(self, name: str, planned: float | None = None):
        stages = self

        class _Stage:
            def __enter__(self):
                _reset_peak()
                self.t0 = _cpu()

            def __exit__(self, *exc):
                row = {"stage": name, "cpu_seconds": round(_cpu() - self.t0, 2), "peak_mb": round(_peak_mb())}
                if planned is not None:
                    row["planned_seconds"] = round(planned, 2)
                stages.rows.append(row)
                print(f"{name:<48} {row['cpu_seconds']:8.2f} s {row['peak_mb']:7d} MB"
                      + (f"  (planned {planned:.1f} s)" if planned is not None else ""), flush=True)

        return _Stage()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prior", default="1,1,1")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--epsilon", type=float, default=0.5)
    parser.add_argument("--out")
    parser.add_argument("--tune-allocator", action="store_true",
                        help="the allocator settings of the dpposterior command (cli.main.tune_allocator) first")
    args = parser.parse_args(argv)
    if args.tune_allocator:
        from dpposterior.cli.main import tune_allocator

        tune_allocator()
    a = np.array([float(x) for x in args.prior.split(",")])
    n, eps = args.n, args.epsilon
    st = Stages()
    with st("plan_compare"):
        plans = ranking.plan_compare(a, n, eps)
    errors: dict = {}
    rows = []
    done = set()
    for rp in plans:
        if rp.left_out or rp.same_as or rp.variant.label in done:  # a copy of an earlier row, or run in its pass
            continue
        if getattr(rp, "pass_with", ()):  # rows whose errors one pass computes: one stage, the pass's plan
            members = [p for p in plans if p.variant.label in rp.pass_with]
            with st(f"pass {'+'.join(rp.pass_with)} ({rp.plan.route})", rp.pass_plan.seconds):
                got = ranking.compare_rows(a, n, eps, DEFAULT_DELTA, members, errors=errors)
            done.update(rp.pass_with)
        else:
            with st(f"row {rp.variant.label} ({rp.plan.route})", rp.plan.seconds):
                got = ranking.compare_rows(a, n, eps, DEFAULT_DELTA, [rp], errors=errors)
        rows += got
    lp = yardstick.lp_optima(a, n, eps, {r["release"] for r in rows if "error" not in r}) if a.size >= 3 else {}
    used = sum(r.plan.seconds for r in plans if not r.left_out and not r.same_as)
    left = limit_setting("DPPOSTERIOR_MAX_COMPARE_SECONDS") - used - yardstick.marginal_seconds(a, n, eps)
    best = ranking.start_row(a.size, n, errors)
    start = None
    if best is not None:
        start = (best[0], np.zeros(len(best[1].counts)))
        start[1][candidate_rank(best[1].counts)] = best[1].expected
    # as compare_yardstick: the k = 2 bound (its solves cached for yardstick() below) is the average's floor
    with st("marginal_bound (the k = 2 bound, the floor)", yardstick.marginal_seconds(a, n, eps)):
        floor = yardstick.marginal_bound(a, n, eps).average
    with st("plan_blocks"):
        blocks = yardstick.plan_blocks(a, n, eps, max(0.0, left) / 2, start=start is not None, floor=floor)
    values = {}
    for objective, (plan, size) in blocks.items():
        with st(f"yardstick {objective} ({plan.route}; fits {plan.fits})", plan.seconds):
            values |= yardstick.block_bounds(a, n, eps, {objective: (plan, size)}, start, worst=start is not None
                                             and start[0] not in ranking.start_releases(a.size))
    yard = yardstick.yardstick(a, n, eps, lp, values)
    worst = min(r["worst_expected_error"] for r in rows if "error" not in r)
    average = min(r["average_expected_error"] for r in rows if "error" not in r)
    out = {"prior": a.tolist(), "n": n, "epsilon": eps, "rows_planned_seconds": round(used, 2),
           "yardstick_share_seconds": round(max(0.0, left) / 2, 2), "stages": st.rows,
           "best_worst": worst, "yardstick_worst": yard.worst, "worst_ratio": worst / yard.worst,
           "best_average": average, "yardstick_average": yard.average, "average_ratio": average / yard.average,
           "total_cpu_seconds": round(_cpu(), 1)}
    out["peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(f"worst {worst:.5f} / {yard.worst:.5f} = {worst / yard.worst:.4f}; share {out['yardstick_share_seconds']} s; "
          f"total CPU {out['total_cpu_seconds']} s")
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
