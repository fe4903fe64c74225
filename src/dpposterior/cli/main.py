"""The ``dpposterior`` command line (a public contract: flags and JSON keys are stable).

    dpposterior pmf      --prior 1,1 --counts 4,4 --mechanism ehds --epsilon 1
    dpposterior privacy  --prior 1,1 --n 100 --mechanism ehdl --epsilon 1
    dpposterior release  --prior 1,1 --counts 40,60 --mechanism ehds --epsilon 1
    dpposterior release  --prior 1,1 --data records.csv --column answer --categories no,yes --mechanism ehds --epsilon 1
    dpposterior audit    --prior 1,1 --n 100 --mechanism ehds --epsilon 1 --pair 50,50:49,51

This module is the parser, the exit codes and :func:`main`.  Every sub-command is one entry of
:data:`COMMANDS`: a function that adds its arguments to its parser, and a handler that receives
the parsed arguments, both in ``dpposterior/cli/commands/<name>.py``.  To add a sub-command, write
that module and add one entry.

Exit status: 0 on success (and when stdout is closed early, e.g. by ``| head``); 2 on bad input, with
one line ``dpposterior: error: ...`` on stderr (a bare ``dpposterior`` from a shell prints the help on
stdout first, then that line, status 2); 130 on Ctrl-C, with one line.  JSON output never contains NaN
or Infinity (``null``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .. import __version__
from ..errors import InputError
from .commands.accuracy import add_accuracy, cmd_accuracy
from .commands.audit import add_audit, cmd_audit
from .commands.compare import add_compare, cmd_compare
from .commands.pmf import add_pmf, cmd_pmf
from .commands.posterior import add_posterior, cmd_posterior
from .commands.privacy import add_privacy, cmd_privacy
from .commands.release import add_release, cmd_release
from .progress import progress


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str):  # noqa: D102
        raise InputError(message)


# ---------------------------------------------------------------------------------------------
# the dispatch table

#: Every sub-command: name -> (function adding its arguments; its first docstring line is the
#: help text, handler receiving the parsed arguments).
COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], None]]] = {
    "pmf": (add_pmf, cmd_pmf),
    "privacy": (add_privacy, cmd_privacy),
    "release": (add_release, cmd_release),
    "audit": (add_audit, cmd_audit),
    "posterior": (add_posterior, cmd_posterior),
    "accuracy": (add_accuracy, cmd_accuracy),
    "compare": (add_compare, cmd_compare),
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = _Parser(prog="dpposterior", description="Differentially private posteriors tailored to the Hellinger distance.")
    parser.add_argument("--version", action="version", version=f"dpposterior {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    for name, (add_arguments, handler) in COMMANDS.items():
        about = (add_arguments.__doc__ or "").strip().splitlines()[0] if add_arguments.__doc__ else None
        p = sub.add_parser(name, help=about, description=about)
        add_arguments(p)
        p.set_defaults(handler=handler)
    return parser


_VALUE_FLAGS = {"--prior", "--counts", "--at", "--pair", "--categories", "--epsilon", "--delta", "--gamma", "--n",
                "--seed", "--delta-at", "--samples", "--confidence", "--events", "--top"}


def _join_negative_lists(argv: list[str]) -> list[str]:
    """Let ``--counts -1,2`` reach our validation (argparse would take ``-1,2`` for a flag)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else ""
        if tok in _VALUE_FLAGS and nxt[:1] == "-" and (nxt[1:2].isdigit() or nxt[1:2] == "."):
            out.append(f"{tok}={nxt}")
            i += 2
        else:
            out.append(tok)
            i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpposterior`` console script; returns the exit status.

    ``argv`` None reads the process's arguments; when there are none (a bare ``dpposterior`` typed in a
    shell) the help is printed on stdout before the usual one-line error and status 2.  An explicit
    ``main([])`` keeps the one-line contract of every refusal (nothing on stdout).
    """
    bare = argv is None and not sys.argv[1:]
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        args = parser.parse_args(_join_negative_lists(argv))
        if args.command is None:
            if bare:
                parser.print_help()
            raise InputError("a command is required: " + ", ".join(COMMANDS))
        with progress(args.command):  # elapsed time on a terminal's stderr (slow commands only)
            args.handler(args)
    except InputError as exc:
        print(f"dpposterior: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except MemoryError:
        print("dpposterior: error: out of memory; the exact computation is too large for this machine", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dpposterior: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return 0

