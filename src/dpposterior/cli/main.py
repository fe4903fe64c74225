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

Exit status: 0 on success (and when the reader closes the pipe early, e.g. ``| head``); 2 on bad input, with
one line ``dpposterior: error: ...`` on stderr (a bare ``dpposterior`` from a shell prints the help on
stdout first, then that line, status 2); 2 as well when stdout cannot be written (a full disk: ``cannot write
the output``; stdout closed from the start: refused before any work); 130 on Ctrl-C, with one line.  Every
message is one line of at most :data:`MAX_MESSAGE_CHARS` characters (:func:`one_line`).  JSON output never
contains NaN or Infinity (``null``).

Settings a mechanism does not read (``--objective`` but for optimal, ``--gamma`` but for ehds,
``--global-sensitivity`` but for ehd, ``--delta`` but for mh-delta) are refused when given, never ignored;
not given, the library's default applies (``compare`` passes ``--delta`` to mh-delta only).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Sequence

from .. import __version__
from ..errors import InputError, shown_name
from .commands.accuracy import add_accuracy, cmd_accuracy
from .commands.audit import add_audit, cmd_audit
from .commands.compare import add_compare, cmd_compare
from .commands.ledger import add_ledger, cmd_ledger
from .commands.pmf import add_pmf, cmd_pmf
from .commands.posterior import add_posterior, cmd_posterior
from .commands.privacy import add_privacy, cmd_privacy
from .commands.release import add_release, cmd_release
from .options import COMPARE_EPILOG
from .progress import progress


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str):  # noqa: D102
        raise InputError(message)

    def _print_message(self, message, file=None):  # argparse drops write errors (--help > /dev/full)
        if message:
            file = sys.stdout if file is None else file
            if file is None:
                raise InputError("standard output is closed")
            file.write(message)
            file.flush()


# ---------------------------------------------------------------------------------------------
# the dispatch table

#: Every sub-command: name -> (function adding its arguments; the first paragraph of its docstring is the
#: help text, handler receiving the parsed arguments).
COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], None]]] = {
    "pmf": (add_pmf, cmd_pmf),
    "privacy": (add_privacy, cmd_privacy),
    "release": (add_release, cmd_release),
    "audit": (add_audit, cmd_audit),
    "posterior": (add_posterior, cmd_posterior),
    "accuracy": (add_accuracy, cmd_accuracy),
    "compare": (add_compare, cmd_compare),
    "ledger": (add_ledger, cmd_ledger),
}


def command_summary(add_arguments: Callable) -> str | None:
    """A command's one-line summary in ``dpposterior --help``: the first paragraph of its ``add_*`` function's
    docstring, one complete short sentence (never cut at the end of a docstring line)."""
    doc = (add_arguments.__doc__ or "").strip()
    return " ".join(doc.split("\n\n", 1)[0].split()) or None


#: ``dpposterior --help``'s epilog: an example to paste and the suggested workflow (docs/cli.md).  Every line
#: starting with ``dpposterior`` runs as shown (a test runs them in a fresh folder).
MAIN_EPILOG = """\
example (which release to use; one release kept in a ledger; what it says about the data):
  dpposterior compare --prior 1,1 --n 100 --epsilon 1
  dpposterior release --prior 1,1 --counts 40,60 --mechanism optimal --epsilon 0.5 \\
      --ledger my-data.ledger --budget 1 --json > release.json
  dpposterior posterior --from-release release.json
  dpposterior ledger show my-data.ledger

suggested workflow:
  1. compare    rank every release for your prior, n (public) and epsilon; at k = 2 and k >= 3 use optimal.
  2. release    one private posterior, from --counts or --data records. Keep a --ledger for every release of
                the same data: a new ledger needs --budget; later releases to it use the budget it stores
                (--ledger FILE alone) and are refused past it. Never --seed a real release: seeded is not private.
  3. posterior  the noise-aware posterior of that release (post-processing, no privacy cost), read from the
                release's own --json output (--from-release FILE, or - from a pipe), not copied by hand.

dpposterior COMMAND --help lists a command's options; docs/cli.md has more.
"""

#: The epilogs of the sub-commands that have one (printed as written, after the options).
EPILOGS = {"compare": COMPARE_EPILOG}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = _Parser(prog="dpposterior", description="Differentially private posteriors tailored to the Hellinger distance.",
                     epilog=MAIN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"dpposterior {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    for name, (add_arguments, handler) in COMMANDS.items():
        about = command_summary(add_arguments)
        raw = {"epilog": EPILOGS[name], "formatter_class": argparse.RawDescriptionHelpFormatter} \
            if name in EPILOGS else {}
        p = sub.add_parser(name, help=about, description=about, **raw)
        add_arguments(p)
        p.set_defaults(handler=handler)
    return parser


#: The longest run of non-blank characters a message echoes whole (a long file path still fits), and the
#: longest message (a 120,000-character argument is not echoed back).
MAX_TOKEN_CHARS = 240
MAX_MESSAGE_CHARS = 500


def one_line(message: str) -> str:
    """``message`` as one line of at most :data:`MAX_MESSAGE_CHARS` characters, each word (an echoed value,
    quoted or not) cut to :data:`MAX_TOKEN_CHARS`, and any character that is not printable escaped
    (:func:`~dpposterior.errors.shown_name`): the one place every refusal passes through."""
    words = [shown_name(w) for w in str(message).split()]  # a control byte left in a name: escaped, as a net
    words = [w if len(w) <= MAX_TOKEN_CHARS else w[:MAX_TOKEN_CHARS - 3] + "..." for w in words]
    text = " ".join(words)
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS - 3] + "..."


def _flags(parser: argparse.ArgumentParser) -> tuple[set[str], set[str]]:
    """``(value_flags, all_flags)`` of the parser and its sub-parsers: the flags that take one value, and
    every option string (built from the parser, so a new flag is covered without a hand-kept list)."""
    value, every = set(), set()
    parsers = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            parsers += list(action.choices.values())
    for p in parsers:
        for action in p._actions:
            every.update(action.option_strings)
            if action.option_strings and action.nargs is None:
                value.update(action.option_strings)
    return value, every


def _join_negative_lists(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """Let ``--counts -1,2``, ``--released -1,5`` or ``--column -answer`` reach our validation (argparse would
    take the value for a flag): the value of any flag taking one value is joined to it (``--counts=-1,2``)
    unless it is itself one of the parser's flags; the same on every such flag."""
    value_flags, every = _flags(parser)
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            out += argv[i:]
            break
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if tok in value_flags and nxt is not None and nxt[:1] == "-" and nxt not in every \
                and nxt.split("=", 1)[0] not in every:
            out.append(f"{tok}={nxt}")
            i += 2
        else:
            out.append(tok)
            i += 1
    return out


def _say(line: str) -> None:
    """Write one line to stderr, best effort: a stderr that cannot be written (``2> /dev/full``, closed) must not
    change the exit status, nor make the interpreter's final flush fail later."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, AttributeError, ValueError):
        _silence("stderr")


def _silence(name: str) -> None:
    """Point ``sys.<name>`` at /dev/null, so the interpreter's final flush has nothing left to fail on."""
    try:
        setattr(sys, name, open(os.devnull, "w"))  # noqa: SIM115 - lives until the process exits
    except OSError:
        pass


def _on_sigint(signum, frame) -> None:  # noqa: ARG001
    """Ctrl-C at the command line: one line, status 130, at once.

    It never raises, so no ``__del__`` or weakref callback (where a ``KeyboardInterrupt`` would be printed as
    "Exception ignored" and dropped) can swallow it; ``os._exit`` leaves whatever stdout still buffers unwritten
    (nothing half-written is flushed)."""
    try:
        os.write(2, b"dpposterior: interrupted\n")
    finally:
        os._exit(130)


#: Test hook (not a budget, hence the leading underscore): when set, :func:`main` creates this file once its
#: Ctrl-C handler is installed (a test waits for it
#: instead of guessing from CPU time when a signal will be handled).
READY_FILE_SETTING = "_DPPOSTERIOR_READY_FILE"


def _install_sigint():
    """Install :func:`_on_sigint`; returns the previous handler (None when not in the main thread)."""
    try:
        previous = signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:  # not the main thread (main() called from a library's worker): keep the default
        return None
    ready = os.environ.get(READY_FILE_SETTING)
    if ready:
        try:
            with open(ready, "w"):
                pass
        except OSError:
            pass
    return previous


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpposterior`` console script; returns the exit status.

    ``argv`` None reads the process's arguments; when there are none (a bare ``dpposterior`` typed in a
    shell) the help is printed on stdout before the usual one-line error and status 2.  An explicit
    ``main([])`` keeps the one-line contract of every refusal (nothing on stdout).

    Ctrl-C: a handler installed first prints one line and exits 130 at once (restored on return, for
    in-process callers).  Output: stdout is flushed before returning, and any write error (a full disk,
    a closed stdout) is one line ``cannot write the output`` with status 2; ``--help`` and ``--version``
    too.  A closed stdout is refused before any work (a release must not draw what it cannot print).
    """
    previous = _install_sigint()
    tune_allocator()
    try:
        return _main(argv)
    finally:
        if previous is not None:
            try:
                signal.signal(signal.SIGINT, previous)
            except ValueError:
                pass


#: ``mallopt`` settings of the C allocator for a command's process (:func:`tune_allocator`): ``(M_MMAP_THRESHOLD,
#: M_TRIM_THRESHOLD, M_TOP_PAD)``, each ``(param, bytes)``.
ALLOCATOR_SETTINGS = ((-3, 1 << 30), (-1, 4 << 30), (-2, 256 << 20))


def tune_allocator() -> bool:
    """Keep the memory numpy frees for the next array instead of handing it back to the kernel (glibc only; a no-op,
    False, elsewhere or where ``mallopt`` refuses).

    By default glibc serves an allocation above a (dynamic, at most 32 MiB) threshold by its own ``mmap`` and returns
    it with ``munmap`` on ``free``, and trims the heap's top past 128 KiB: the exact-error routes allocate and free
    arrays of tens of MB in every block of their loops, so each block pays the kernel's page faults (zeroing) again.
    Measured (CPU s, ``geometric``'s row of ``compare --prior 1,1,1 --n 1000 --epsilon 0.5``, its factor route): user
    26.1 + system 14.4 by default, 25.9 + 0.4 with these settings, the same floats (only where memory comes from
    changes, not what is computed).  Arrays above 1 GiB are still mapped on their own; peak resident memory can grow
    by the freed blocks kept (313 -> 377 MB there)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        return all(libc.mallopt(param, value) == 1 for param, value in ALLOCATOR_SETTINGS)
    except (OSError, AttributeError):
        return False


def _main(argv: Sequence[str] | None) -> int:
    bare = argv is None and not sys.argv[1:]
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if sys.stdout is None or getattr(sys.stdout, "closed", False):
            raise InputError("standard output is closed; nothing was computed")
        parser = build_parser()
        try:
            args = parser.parse_args(_join_negative_lists(argv, parser))
        except SystemExit as exc:  # --help, --version: argparse drops write errors, so flush here
            sys.stdout.flush()
            return exc.code if isinstance(exc.code, int) else 0
        if args.command is None:
            if bare:
                parser.print_help()
                sys.stdout.flush()
            raise InputError("a command is required: " + ", ".join(COMMANDS))
        with progress(args.command):  # elapsed time on a terminal's stderr (slow commands only)
            args.handler(args)
        sys.stdout.flush()
    except InputError as exc:
        _say(f"dpposterior: error: {one_line(str(exc))}")
        return 2
    except MemoryError:
        _say("dpposterior: error: out of memory; the exact computation is too large for this machine")
        return 2
    except KeyboardInterrupt:
        _say("dpposterior: interrupted")
        return 130
    except BrokenPipeError:
        _silence("stdout")
        return 0
    except OSError as exc:  # a write error on stdout (a full disk): the reading errors are InputErrors
        _silence("stdout")
        _say(f"dpposterior: error: cannot write the output: {exc.strerror or 'write error'}")
        return 2
    return 0
