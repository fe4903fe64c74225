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
