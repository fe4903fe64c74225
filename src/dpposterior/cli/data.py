"""``--data``: the counts of one column of a CSV file of records, in bounded time and memory.

The file may be a regular file, a pipe (``/dev/stdin``) or a FIFO; the work is bounded by three
settings, each read when a file is opened: ``DPPOSTERIOR_MAX_DATA_MB`` (bytes read),
``DPPOSTERIOR_MAX_DATA_SECONDS`` (how long a pipe may take to deliver) and the 1 MB header line.
Nothing in a message depends on the records (see :func:`counts_from_csv`).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import select
import stat
import time

import numpy as np

from .. import labels, validate
from ..errors import InputError, shown_name
from ..limits import limit_setting
from .options import categories_arg

# ``--data`` files larger than ``DPPOSTERIOR_MAX_DATA_MB`` are refused before parsing, and a ``--data`` that is
# not a regular file (a pipe, ``/dev/stdin``, a FIFO, a terminal) must deliver its bytes within
# ``DPPOSTERIOR_MAX_DATA_SECONDS`` (a FIFO nobody writes to is refused, not waited on forever): both are
# entries of the budget registry (:data:`dpposterior.limits.LIMITS`), read at each call.

#: the header line must end within this many bytes (a file without newlines is not a CSV of records)
MAX_HEADER_BYTES = 1 << 20
#: a missing column's message lists at most this many of the header's names
MAX_LISTED_COLUMNS = 20


class _DataTooLarge(Exception):
    pass


class _CappedFile:
    """A binary file that refuses to deliver more than ``cap`` bytes (devices and pipes have no size).

    It counts nothing in the bytes: a count taken from the raw bytes would know nothing of CSV
    quoting, and any number a release prints must depend on its settings only.
    """

    def __init__(self, raw, cap: int):
        self.raw, self.cap, self.seen = raw, cap, 0

    def read(self, size: int = -1) -> bytes:
        want = self.cap + 1 - self.seen if size is None or size < 0 else min(size, self.cap + 1 - self.seen)
        data = self.raw.read(max(want, 0))
        self.seen += len(data)
        if self.seen > self.cap:
            raise _DataTooLarge
        return data

    def readable(self) -> bool:  # noqa: D102
        return True

    def __iter__(self):
        return iter(lambda: self.read(1 << 16), b"")


class _DataTimeout(Exception):
    pass


class _PolledFile(io.RawIOBase):
    """A non-blocking descriptor (pipe, FIFO, terminal, device) read under a deadline: each read waits in
    ``poll`` for the time left, and past the deadline raises :class:`_DataTimeout` instead of blocking."""

    def __init__(self, fd: int, deadline: float):
        super().__init__()
        self.fd, self.deadline = fd, deadline
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN | select.POLLPRI)

    def readable(self) -> bool:  # noqa: D102
        return True

    def fileno(self) -> int:  # noqa: D102
        return self.fd

    def readinto(self, buf) -> int:  # noqa: D102
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0 or not self._poll.poll(max(1, math.ceil(left * 1000))):
                raise _DataTimeout
            try:
                data = os.read(self.fd, len(buf))
            except BlockingIOError:  # woken without data (another reader took it): wait again
                continue
            buf[:len(data)] = data
            return len(data)

    def close(self) -> None:  # noqa: D102
        if not self.closed:
            os.close(self.fd)
        super().close()


def _open_data(path: str, cap: int, too_large: str, kind: str = "a CSV file"):
    """``path`` opened for reading without ever blocking in ``open`` (a FIFO with no writer), as a binary file.

    A regular file is read as usual (refused when larger than ``cap`` bytes); a directory is refused; any other
    file (a pipe or FIFO, ``/dev/stdin``, a terminal, a device) is read through :class:`_PolledFile`, whose
    reads wait at most until ``DPPOSTERIOR_MAX_DATA_SECONDS`` after the open.
    """
    where = shown_name(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputError(f"no such file: {where}") from None
    except IsADirectoryError:
        raise InputError(f"{where} is a directory, not {kind}") from None
    except OSError as exc:
        raise InputError(f"cannot open {where}: {exc.strerror or 'unreadable'}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{where} is a directory, not {kind}")
        if stat.S_ISREG(info.st_mode):
            if info.st_size > cap:
                raise InputError(too_large)
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb")
        seconds = limit_setting("DPPOSTERIOR_MAX_DATA_SECONDS")
        return io.BufferedReader(_PolledFile(fd, time.monotonic() + seconds))
    except BaseException:
        os.close(fd)
        raise


def read_small_file(path: str, cap: int, kind: str) -> bytes:
    """The whole of ``path`` (``-``: standard input), at most ``cap`` bytes, read as ``--data`` is (a pipe or FIFO
    must deliver everything within ``DPPOSTERIOR_MAX_DATA_SECONDS``, never waited on forever); ``kind`` names
    what the file should be in the messages (``"the JSON of dpposterior release --json"``)."""
    shown = "standard input" if path == "-" else shown_name(path)
    path = "/dev/stdin" if path == "-" else path
    too_large = f"{shown} is larger than {cap >> 20} MB: it is not {kind}"
    raw = _open_data(path, cap, too_large, kind)
    with _read_errors(shown, too_large), raw:
        return _CappedFile(raw, cap).read()


@contextlib.contextmanager
def _read_errors(shown: str, too_large: str):
    """A read of the user's file or pipe: past its size cap, past ``DPPOSTERIOR_MAX_DATA_SECONDS``, or an OS error,
    each one line naming ``shown`` (the name as printed, escaped)."""
    try:
        yield
    except _DataTooLarge:
        raise InputError(too_large) from None
    except _DataTimeout:
        seconds = limit_setting("DPPOSTERIOR_MAX_DATA_SECONDS")
        raise InputError(f"{shown} is not a regular file and did not deliver all its data within {seconds:g} s "
                         "(set DPPOSTERIOR_MAX_DATA_SECONDS to wait longer)") from None
    except OSError as exc:
        raise InputError(f"cannot read {shown}: {exc.strerror or 'read error'}") from None


def _header_names(head: bytes) -> list[str]:
    """The column names of the header line(s) in ``head`` as written (pandas would rename duplicates)."""
    import pandas as pd  # local: pandas takes ~0.5 s to import and only --data needs it

    whole = head[:head.rindex(b"\n") + 1] if b"\n" in head else head  # whole lines: no cut UTF-8 character
    first = pd.read_csv(io.BytesIO(whole), dtype=str, header=None, nrows=1, keep_default_na=False,
                        encoding="utf-8")
    return [str(x) for x in first.iloc[0].tolist()] if len(first) else []


def counts_from_csv(path: str, column: str | None, categories: str | None, unknown: str | None = None,
                    missing: str | None = None) -> tuple[np.ndarray, list[str], list[str]]:
    """Counts of ``column`` over the categories, from a CSV of records, in bounded time and memory.

    Returns ``(counts, categories, warnings)``: the warnings are for the caller to print once the
    whole command has succeeded (a refusal is then the only line on stderr).

    The file is read in chunks (pandas' C parser, one column kept) and only the counts per value
    are kept, so memory does not grow with the number of records.  At most
    ``DPPOSTERIOR_MAX_DATA_MB`` MB are read (default 1024, about 20 s here); a larger file, a
    device such as ``/dev/zero``, a header line longer than 1 MB or a NUL byte in the header is
    refused with one line (the refusal depends on the file's size and format, not on a record).
    A file that is not a regular file (a pipe, ``/dev/stdin``, a FIFO) is read as it comes, but must
    be complete within ``DPPOSTERIOR_MAX_DATA_SECONDS`` seconds (default 20) of the open: a FIFO
    that nobody writes to is refused then, never waited on forever.  An unreadable file (an
    I/O error while reading) is one line too.

    Nothing in a message depends on the records: errors name the problem (unreadable file,
    missing or duplicated column, empty value, value outside ``--categories``) but never echo a
    record's value, a count or a line number.  Blank lines are skipped silently (a blank line
    is not a record; no message counts them, as their number is data); a record whose value in ``column`` is empty is
    an error, as is a value outside ``--categories``.  A category of ``--categories`` that no
    record has is an ordinary zero count.  The warning about categories taken from the data
    depends on the flags only.

    ``unknown`` and ``missing`` (``--unknown``, ``--missing``): what to do with a value outside ``--categories``
    and with an empty value, ``error`` (the default, as above), ``drop`` or ``map:NAME``, chosen from the public
    category list alone (:mod:`dpposterior.labels`, the code of ``dp.count``).  ``--unknown`` and a ``map:``
    need ``--categories`` (without it the categories are the data's own values).
    """
    import pandas as pd  # local: pandas takes ~0.5 s to import and only --data needs it

    if not column:
        raise InputError("--data needs --column NAME")
    where = shown_name(path)  # the path as printed: a name from the user, escaped
    cats = categories_arg(categories)
    if cats is None and unknown not in (None, "error"):
        raise InputError("--unknown needs --categories: without it the categories are the data's own values")
    unknown_policy = labels.policy(unknown, cats, "--unknown")
    missing_policy = labels.policy(missing, cats, "--missing")
    limit_mb = limit_setting("DPPOSTERIOR_MAX_DATA_MB")
    cap = int(limit_mb * 2**20)
    too_large = (f"{where} is larger than the {limit_mb:g} MB read by --data "
                 "(set DPPOSTERIOR_MAX_DATA_MB to raise it)")
    unreadable = f"cannot read {where} as a UTF-8 CSV file with a header row"
    raw = _open_data(path, cap, too_large)
    totals: dict[str, int] = {}
    empty = 0
    with _read_errors(where, too_large), raw:
        head = raw.read(MAX_HEADER_BYTES)
        if b"\0" in head:
            raise InputError(f"{unreadable} (it has NUL bytes: a binary file or a device)")
        if b"\n" not in head and len(head) == MAX_HEADER_BYTES:
            raise InputError(f"{unreadable} (no line ends within the first {MAX_HEADER_BYTES >> 20} MB)")
        try:
            names = _header_names(head)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
            raise InputError(unreadable) from None
        if column not in names:
            # header names are bytes of the user's file: printed escaped (no terminal escape reaches stderr)
            shown = ", ".join(map(shown_name, names[:MAX_LISTED_COLUMNS]))
            shown += ", ..." if len(names) > MAX_LISTED_COLUMNS else ""
            raise InputError(f"{where} has no column {column!r} (columns: {shown})")
        if names.count(column) > 1:
            raise InputError(f"{where} has more than one column {column!r}")
        if raw.seekable():
            raw.seek(0)
            source = _CappedFile(raw, cap)
        else:  # a pipe: put the bytes already read back in front
            source = _CappedFile(io.BufferedReader(_Chain(head, raw)), cap)  # type: ignore[arg-type]
        try:  # blank lines are skipped by the parser, and counted nowhere
            reader = pd.read_csv(source, dtype=str, keep_default_na=False, skip_blank_lines=True,
                                 usecols=[names.index(column)], chunksize=1 << 20, encoding="utf-8")
            for chunk in reader:
                values = chunk.iloc[:, 0].str.strip()
                blank = values == ""
                empty += int(blank.sum())
                for value, count in values[~blank].value_counts().items():
                    totals[value] = totals.get(value, 0) + int(count)
        except (_DataTooLarge, _DataTimeout, OSError):
            raise
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
            raise InputError(unreadable) from None
    missing_error = (f"column {column!r} of {where} has empty values; give every record a category "
                     "(or --missing drop, --missing map:NAME)")
    if empty and missing_policy.action == "error":
        raise InputError(missing_error)
    warnings = []
    if not totals and cats is None:
        raise InputError(f"{where} has no records")
    if cats is None:
        warnings.append("categories taken from the data; pass --categories to keep the category set itself private")
        cats = sorted(totals)
    counts = labels.tally(totals, empty, cats, unknown_policy, missing_policy, missing_error=missing_error,
                          unknown_error=f"column {column!r} of {where} has values not in --categories (not shown: they "
                                        "are data); --unknown drop or --unknown map:NAME counts them otherwise")
    return validate.counts(counts, f"counts of {column!r}"), cats, warnings


class _Chain:
    """Raw bytes ``head`` followed by the rest of a stream (for pipes, which cannot seek back)."""

    def __init__(self, head: bytes, rest):
        self.head, self.rest = head, rest

    def readable(self) -> bool:  # noqa: D102
        return True

    def readinto(self, buf) -> int:  # noqa: D102
        if self.head:
            n = min(len(buf), len(self.head))
            buf[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        data = self.rest.read(len(buf))
        buf[:len(data)] = data
        return len(data)

    @property
    def closed(self) -> bool:  # noqa: D102
        return False

    def close(self) -> None:  # noqa: D102
        pass

    def flush(self) -> None:  # noqa: D102
        pass
