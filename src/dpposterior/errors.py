"""Exceptions raised on bad input.

Every check in the library raises :class:`InputError` (a ``ValueError``) with a
one-line message that names the offending argument; the command line turns it
into ``dpposterior: error: <message>`` on stderr and exit status 2.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input from a user: counts, prior, epsilon, delta, mechanism name, ..."""


class SizeError(InputError):
    """An exact computation would not fit in the memory budget (see ``models.memory_limit``)."""


def shown_name(name: object) -> str:
    """A name the user supplied (a file path, a CSV header, a category, a ledger's name) as it may be printed:
    every character that is not printable -- a newline, a tab, an escape sequence's ESC, a control or format
    character such as a bidirectional override -- is written as Python escapes it (``\\n``, ``\\x1b``,
    ``\\u202e``), so a name can neither split a message's one line nor drive the terminal.  Printable text is
    unchanged.  The one helper of every message and output line that prints such a name."""
    text = name if isinstance(name, str) else str(name)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
