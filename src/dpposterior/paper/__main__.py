"""Stage CLI of the pipeline: ``python -m dpposterior.paper <stage> --spec JSON ... --out PATH``.

One subcommand per stage of :data:`dpposterior.paper.stages.STAGES` (each parses the settings the
rule passes, only the settings that job uses, runs one computation and writes its output
atomically), plus ``render`` (one item's notebook), ``verdicts`` (every item's verdict rows) and ``index``
(the first page a reader opens, next to the figures).

In a local pipeline run the job is handed to a worker of the job server (:mod:`.jobserver`), which runs the same
:func:`main`; this module imports the stages only in :func:`build_parser` and :func:`main`, so the hand-over
loads neither numpy nor the library.
"""

from __future__ import annotations

import argparse
import json
import sys

from .limits import apply


def build_parser() -> argparse.ArgumentParser:
    from .stages import STAGES

    ap = argparse.ArgumentParser(prog="python -m dpposterior.paper", description=__doc__)
    sub = ap.add_subparsers(dest="stage", required=True)
    for stage in STAGES.values():
        stage.add_arguments(sub.add_parser(stage.name, help=stage.help))

    p = sub.add_parser("render", help="run one item's notebook template")
    p.add_argument("--parameters", required=True, help="its parameters file (JSON), as the `parameters` rule writes it")
    for a in ("--template", "--notebook", "--html"):
        p.add_argument(a, required=True)

    p = sub.add_parser("verdicts", help="collect every item's verdict rows into one table")
    p.add_argument("--inputs", nargs="+", required=True)
    p.add_argument("--captions", nargs="*", default=[])
    p.add_argument("--csv", required=True)
    p.add_argument("--md", required=True)
    p.add_argument("--html", required=True)

    p = sub.add_parser("index", help="write the first page: every item's title, figure, verdict counts and links")
    p.add_argument("--items", required=True,
                   help='JSON: [{"item": ID, "title": ..., "figure": PATH, "notebook": PATH}, ...]')
    p.add_argument("--verdicts", required=True, help="the verdict table (CSV)")
    p.add_argument("--table", required=True, help="the verdict table's HTML page (each item's rows under #item)")
    p.add_argument("--out", required=True)
    return ap


def main(argv: list[str] | None = None) -> int:
    # Batch jobs run under the pipeline's budgets (their runtime is declared in the rules' resources);
    # the library reads every budget at call time (dpposterior.limits), so setting them here is enough.
    apply()
    args = build_parser().parse_args(argv)
    # each job imports what its subcommand uses (a render job never loads the library's computations)
    if args.stage == "render":
        from .render import read_parameters, render

        render(args.template, read_parameters(args.parameters), args.notebook, args.html)
    elif args.stage == "verdicts":
        from .report import write_verdicts

        try:
            write_verdicts(args.inputs, args.captions, csv=args.csv, md=args.md, html=args.html)
        except ValueError as exc:  # a row whose words disagree with its columns (report.check_rows): one line
            print(f"python -m dpposterior.paper verdicts: error: {exc}", file=sys.stderr)
            return 1
    elif args.stage == "index":
        from .report import write_index

        write_index(json.loads(args.items), verdicts_csv=args.verdicts, verdicts_html=args.table, out=args.out)
    else:
        from .stages import STAGES

        STAGES[args.stage].run(args, json.loads(args.spec))
    return 0


if __name__ == "__main__":
    # in a local pipeline run, a worker forked from the job server runs main() (.jobserver); else this process
    from .jobserver import hand_over

    status = hand_over(sys.argv[1:])
    sys.exit(main() if status is None else status)
