"""``dpposterior ledger show|create|raise FILE``: read a privacy ledger, create it, or raise its budget.

``show`` prints each release's settings (never data), the budgets the ledger has had, the totals by basic
composition and (when an entry has a delta and dp-accounting is installed) by dp-accounting's composition,
and what remains (``--json``: :meth:`dpposterior.ledger.LedgerSummary.as_dict`).  ``create FILE --budget
EPS[,DELTA]`` creates a ledger before its first release, or records the budget of a ledger written before
budgets were stored; ``raise FILE --budget EPS[,DELTA]`` raises the budget, an act recorded in the file
(:mod:`dpposterior.ledger`: a release's ``--budget`` never changes it).
"""

from __future__ import annotations

import argparse
import shlex

from ...errors import InputError, shown_name
from ...ledger import Ledger, LedgerError, parse_budget
from ..output import json_text

ACTIONS = ("show", "create", "raise")


def add_ledger(p: argparse.ArgumentParser) -> None:
    """Show a privacy ledger, create it, or raise its budget.

    ``show`` lists the releases, the totals and what remains.

    docs/definitions.md §9, "Ledger"; the text and JSON are :func:`show_lines` and ``LedgerSummary.as_dict``."""
    p.add_argument("action", choices=ACTIONS, help="show the ledger, create it with --budget, or raise its budget")
    p.add_argument("file", metavar="FILE", help="the ledger file (as given to release --ledger)")
    p.add_argument("--budget", metavar="EPS[,DELTA]",
                   help="create and raise only: the budget (basic composition; DELTA defaults to 0)")
    p.add_argument("--json", action="store_true", help="show only: print JSON")


def cmd_ledger(args) -> None:
    """``dpposterior ledger``: one action on one ledger file (docs/definitions.md §9, "Ledger"); every refusal is
    one line (status 2)."""
    if args.action == "show":
        if args.budget is not None:
            raise InputError("ledger show takes no --budget (the budget is the one stored in the ledger)")
        summary = Ledger(args.file).summary()
        if summary.format is None:
            raise LedgerError(f"there is no ledger at {args.file!r}")
        text = json_text(summary.as_dict()) if args.json else "\n".join(show_lines(summary))
    else:
        if args.json:
            raise InputError(f"--json is for ledger show, not ledger {args.action}")
        if args.budget is None:
            raise InputError(f"ledger {args.action} needs --budget EPS[,DELTA]")
        budget = parse_budget(args.budget)
        if args.action == "create":
            ledger = Ledger(args.file, budget)
            ledger.create()
        else:
            ledger = Ledger(args.file)
            ledger.raise_budget(budget)
        text = str(ledger.summary())
    print(text)  # whole, once: everything that can fail is done before


def _g(v: float) -> str:
    """A number as short as possible but never rounded."""
    return f"{v:g}" if float(f"{v:g}") == v else repr(float(v))


def show_lines(s) -> list[str]:
    """The text of ``dpposterior ledger show``: a :class:`~dpposterior.ledger.LedgerSummary`, one fact a line."""
    path = shown_name(s.path)  # a name from the user: printed escaped (a newline cannot split a line)
    lines = [f"ledger: {path} ({s.format})"]
    if s.budget is None:
        lines.append("budget: not recorded (a ledger written before budgets were stored: "
                     f"dpposterior ledger create {shown_name(shlex.quote(s.path))} --budget EPS[,DELTA] records it)")
    else:
        lines.append(f"budget: ({_g(s.budget[0])}, {_g(s.budget[1])})-DP")
        for b in s.budgets:  # the texts are the file's: printed escaped, as every name
            lines.append(f"  {shown_name(b.act)} ({_g(b.epsilon)}, {_g(b.delta)}) at {shown_name(b.time or '?')}, "
                         f"after {b.releases_before} release(s)")
    lines.append(f"releases: {len(s.releases)}")
    for i, e in enumerate(s.releases, 1):
        lines.append(f"  {i}. {shown_name(e.time or '?')}  {shown_name(e.mechanism)}  epsilon {_g(e.epsilon)}  "
                     f"delta {_g(e.delta)}")
    lines.append(f"total by basic composition: ({_g(s.total[0])}, {_g(s.total[1])})-DP")
    if s.composed is not None:
        lines.append(f"total by dp-accounting composition: ({s.composed[0]:.6g}, {_g(s.composed[1])})-DP")
    elif any(e.delta for e in s.releases):
        lines.append("total by dp-accounting composition: not computed (the accounting extra is not installed)")
    if s.remaining is not None:
        lines.append(f"remaining: ({_g(s.remaining[0])}, {_g(s.remaining[1])})")
    return lines
