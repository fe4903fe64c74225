"""Stage CLI of the pipeline: ``python -m dpposterior.paper <stage> --spec JSON ... --out PATH``.

Each stage parses the settings the rule passes (only the settings that job uses), calls one
function of :mod:`dpposterior.paper.experiments` and writes its output atomically.
"""

from __future__ import annotations

import argparse
import json
import sys

import pandas as pd


def main(argv: list[str] | None = None) -> int:
    from .budgets import apply

    apply()  # batch jobs: the pipeline's budgets (their runtime is declared in the rules' resources)
    ap = argparse.ArgumentParser(prog="python -m dpposterior.paper", description=__doc__)
    sub = ap.add_subparsers(dest="stage", required=True)

    p = sub.add_parser("data", help="the count vectors of one accuracy experiment")
    p.add_argument("--spec", required=True)
    p.add_argument("--experiment", required=True)
    p.add_argument("--out", required=True)

    p = sub.add_parser("runs", help="Monte Carlo releases of one mechanism at every point, and the exact error law")
    for a in ("--experiment", "--mechanism", "--spec", "--data", "--out-runs", "--out-exact"):
        p.add_argument(a, required=True)
    p.add_argument("--progress", action="store_true")

    p = sub.add_parser("pmf", help="exact output distribution of one mechanism at one (prior, counts)")
    for a in ("--name", "--mechanism", "--spec", "--out", "--out-tails"):
        p.add_argument(a, required=True)

    p = sub.add_parser("privacy", help="exact concrete epsilon of one mechanism over an n grid")
    for a in ("--experiment", "--mechanism", "--spec", "--out"):
        p.add_argument(a, required=True)
    p.add_argument("--progress", action="store_true")
    p.add_argument("--merge", nargs="+", metavar="SLICE",
                   help="merge these one-n slices (each a privacy output of one n of the grid) instead of computing")

    p = sub.add_parser("audit", help="black-box privacy-loss lower bounds of one mechanism over an n grid")
    for a in ("--experiment", "--mechanism", "--spec", "--out"):
        p.add_argument(a, required=True)
    p.add_argument("--progress", action="store_true")

    p = sub.add_parser("sensitivity", help="sensitivity curves (fig1) or score changes (fig2)")
    p.add_argument("--which", required=True, choices=["curves", "score-change"])
    p.add_argument("--spec", required=True)
    p.add_argument("--out", required=True)

    p = sub.add_parser("coverage", help="exact coverage of naive and noise-aware intervals of one mechanism")
    for a in ("--experiment", "--mechanism", "--spec", "--out"):
        p.add_argument(a, required=True)

    p = sub.add_parser("expected_error", help="exact worst-case and average expected error of one mechanism on a grid")
    for a in ("--experiment", "--mechanism", "--spec", "--out"):
        p.add_argument(a, required=True)

    p = sub.add_parser("render", help="run one item's notebook template")
    for a in ("--template", "--parameters", "--notebook", "--html"):
        p.add_argument(a, required=True)

    p = sub.add_parser("verdicts", help="collect every item's verdict rows into one table")
    p.add_argument("--inputs", nargs="+", required=True)
    p.add_argument("--captions", nargs="*", default=[])
    p.add_argument("--csv", required=True)
    p.add_argument("--md", required=True)
    p.add_argument("--html", required=True)

    args = ap.parse_args(argv)
    from . import experiments as E

    if args.stage == "render":
        from .render import render

        render(args.template, json.loads(args.parameters), args.notebook, args.html)
        return 0
    if args.stage == "verdicts":
        from .report import write_verdicts

        write_verdicts(args.inputs, args.captions, csv=args.csv, md=args.md, html=args.html)
        return 0
    spec = json.loads(args.spec)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    if args.stage == "data":
        df = E.data_points(spec)
        df.insert(0, "experiment", args.experiment)
        E.write_parquet(df, args.out)
    elif args.stage == "runs":
        runs, exact = E.accuracy_runs(args.experiment, args.mechanism, pd.read_parquet(args.data),
                                      epsilon=float(spec["epsilon"]), delta=float(spec["delta"]), seed=int(spec["seed"]),
                                      runs=int(spec["runs"]), exact_max=int(spec["exact_max"]), progress=args.progress,
                                      log=log)
        E.write_parquet(runs, args.out_runs)
        E.write_parquet(exact, args.out_exact)
    elif args.stage == "pmf":
        pmf, tails = E.exact_pmf(args.name, args.mechanism, spec)
        E.write_parquet(pmf, args.out)
        E.write_parquet(tails, args.out_tails)
    elif args.stage == "privacy":
        if args.merge:
            df = E.merge_privacy_slices(spec, [pd.read_parquet(p) for p in args.merge])
        else:
            df = E.privacy_loss(args.experiment, args.mechanism, spec, args.progress)
        E.write_parquet(df, args.out)
    elif args.stage == "audit":
        E.write_parquet(E.privacy_audit(args.experiment, args.mechanism, spec, int(spec["seed"]), args.progress, log),
                        args.out)
    elif args.stage == "coverage":
        from .coverage import coverage_table

        df = coverage_table(args.mechanism, spec)
        df.insert(0, "experiment", args.experiment)
        E.write_parquet(df, args.out)
    elif args.stage == "expected_error":
        from .beyond import expected_error_grid

        df = expected_error_grid(args.mechanism, spec)
        df.insert(0, "experiment", args.experiment)
        E.write_parquet(df, args.out)
    elif args.stage == "sensitivity":
        df = E.sensitivity_curves(spec) if args.which == "curves" else E.score_changes(spec)
        E.write_parquet(df, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
