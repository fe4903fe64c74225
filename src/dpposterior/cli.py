"""The ``dpposterior`` command line (a public contract: flags and JSON keys are stable).

    dpposterior pmf      --prior 1,1 --counts 4,4 --mechanism ehds --epsilon 1
    dpposterior privacy  --prior 1,1 --n 100 --mechanism ehdl --epsilon 1
    dpposterior release  --prior 1,1 --counts 40,60 --mechanism ehds --epsilon 1
    dpposterior release  --prior 1,1 --data records.csv --column answer --categories no,yes --mechanism ehds --epsilon 1
    dpposterior audit    --prior 1,1 --n 100 --mechanism ehds --epsilon 1 --pair 50,50:49,51

Every sub-command is one entry of :data:`COMMANDS`: a function that adds its arguments to
its parser, and a handler that receives the parsed arguments.  To add a sub-command, write
those two functions and add one entry.

Bad input exits with status 2 and one line ``dpposterior: error: ...`` on stderr; Ctrl-C
exits with status 130 and one line.  JSON output never contains NaN or Infinity (``null``).

A release prints only the private output (never the error against the data, nor an
entropy-drawn seed: either would reveal the data).  ``--seed`` is for reproducing
experiments; a release whose seed is known is not private.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import re
import select
import stat
import time
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal

import numpy as np

from . import __version__, validate
from .errors import InputError
from .mechanisms import DEFAULT_DELTA, DEFAULT_GAMMA, MECHANISM_IDS, MECHANISMS, check_params, log_pmf, resolve
from .release import release
from .models import candidates, steps
from .distances import hellinger


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str):  # noqa: D102
        raise InputError(message)


# ---------------------------------------------------------------------------------------------
# shared helpers


#: a number as the command line accepts it: ASCII digits, an optional sign, decimal point and exponent
#: (``12``, ``-0.5``, ``.5``, ``1e-3``, ``2.5E7``); no ``_`` separators, no other scripts' digits,
#: no ``inf`` / ``nan`` (Python's int() and float() accept all three)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_DIGITS = re.compile(r"[+-]?[0-9]+", re.ASCII)
#: longest number text read (int() refuses more than 4300 digits; no valid input is near this)
_MAX_NUMBER_CHARS = 4000
#: an exponent form (``1e6``) is an integer only when exact and at most this (every such int is a float64)
_MAX_EXPONENT_INT = 2**53


_show = validate._show  # a bad value for a message: its repr on one line, at most 60 characters


def _plain(text: str, what: str) -> str:
    """``text`` with surrounding spaces removed, if it is a plain ASCII decimal number; else one-line InputError."""
    t = text.strip(" \t") if isinstance(text, str) else ""
    if len(t) > _MAX_NUMBER_CHARS:
        raise InputError(f"{what} must be a number of at most {_MAX_NUMBER_CHARS} characters, got {len(t)}")
    if not t or not _DECIMAL.fullmatch(t):
        raise InputError(f"{what} must be a number written in ASCII decimal (e.g. 12, 0.5, 1e-3), got {_show(text)}")
    return t


def _number(text: str, what: str) -> int | float:
    """A plain decimal number: an int when written in digits only (``12``), else a float (``0.5``, ``1e3``)."""
    t = _plain(text, what)
    return int(t) if _DIGITS.fullmatch(t) else float(t)


def _number_list(text: str, what: str) -> list:
    """Comma-separated plain decimal numbers (``1,1``, ``0.5, 2``), each read by :func:`_number`."""
    if not isinstance(text, str):
        raise InputError(f"{what} must be comma-separated numbers, got {_show(text)}")
    parts = text.split(",")
    if any(p.strip(" \t") == "" for p in parts):
        raise InputError(f"{what} must be comma-separated numbers with no empty entry, got {_show(text)}")
    try:
        return [_number(p, what) for p in parts]
    except InputError:
        raise InputError(f"{what} must be comma-separated numbers written in ASCII decimal (e.g. 1,0.5,2e3), "
                         f"got {_show(text)}") from None


def _counts_arg(text: str, what: str = "counts") -> np.ndarray:
    return validate.counts(_number_list(text, what), what)


def _prior_arg(text: str, k: int | None = None) -> np.ndarray:
    return validate.prior(_number_list(text, "prior"), k)


def _float(text: str, what: str) -> object:
    """A real number flag (``--epsilon``, ``--delta``, ...), range-checked by the caller's validator."""
    return _number(text, what)


def _int_value(text: str, what: str) -> int:
    """An integer flag's value, range-checked by the caller's validator.

    Digits (``-12``, ``4000``) are read exactly; a decimal or exponent form (``4.0``, ``1e3``,
    ``2.5e7``) only when it is an exact integer of at most 2^53 (``1e30`` is refused rather than
    rounded to 1000000000000000019884624838656).
    """
    t = _plain(text, what)
    if _DIGITS.fullmatch(t):
        return int(t)
    d = Decimal(t)
    if abs(d) > _MAX_EXPONENT_INT or d != d.to_integral_value():
        raise InputError(f"{what} must be an integer (written in digits, or an exact integer of at most 2^53 such as "
                         f"1e6), got {_show(text)}")
    return int(d)


def _int(text: str, what: str) -> int:
    return validate.integer(_int_value(text, what), what)


def _size_arg(text: str, what: str = "n") -> int:
    """The data-set size ``--n``."""
    return validate.size(_int_value(text, what), what)


def _seed(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        value = _int_value(text, "seed")
    except InputError:
        value = None
    if value is None or not 0 <= value <= validate.MAX_SEED:
        raise InputError(f"seed must be a non-negative integer below 2^128 (written in digits), got {_show(text)}")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    """The flags every mechanism command shares."""
    p.add_argument("--prior", required=True, metavar="A1,A2,...",
                   help=f"Dirichlet prior a, comma-separated (Beta when k = 2), each in "
                        f"[{validate.MIN_PRIOR:g}, {validate.MAX_PRIOR:g}], e.g. 1,1")
    p.add_argument("--mechanism", required=True, metavar="ID", help=f"one of: {', '.join(MECHANISM_IDS)}")
    p.add_argument("--epsilon", required=True, metavar="EPS",
                   help=f"privacy parameter eps in [{validate.MIN_EPSILON:g}, {validate.MAX_EPSILON:g}]")
    p.add_argument("--delta", default=str(DEFAULT_DELTA), metavar="D",
                   help="delta in (0, 1), for mh-delta (default 1e-8)")
    p.add_argument("--gamma", default=str(DEFAULT_GAMMA), metavar="G",
                   help=f"smoothing gamma in [{validate.MIN_GAMMA:g}, {validate.MAX_GAMMA:g}] for ehds (default 1)")
    p.add_argument("--global-sensitivity", default="exact", metavar="METHOD",
                   help="ehd only: exact (default) or paper")
    p.add_argument("--json", action="store_true", help="print JSON")


def _params(args) -> dict:
    mech, epsilon, delta, gamma, gsm = check_params(args.mechanism, _float(args.epsilon, "epsilon"),
                                                    _float(args.delta, "delta"), _float(args.gamma, "gamma"),
                                                    args.global_sensitivity)
    return dict(mechanism=mech.id, epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=gsm)


def _claim(params) -> tuple:
    return MECHANISMS[params["mechanism"]].claimed(params["epsilon"], params["delta"], params.get("calibrate", False))


def _beyond_flags(p: argparse.ArgumentParser) -> None:
    """--calibrate and --objective (pmf, release, privacy, accuracy)."""
    p.add_argument("--calibrate", action="store_true",
                   help="exponential mechanisms only: scale the weight by the largest factor kappa keeping the "
                        "exact worst-case concrete eps <= eps (pure eps-DP, certified)")
    p.add_argument("--objective", default="worst", choices=("worst", "average"),
                   help="optimal only: minimise the worst-case (default) or prior-average expected error")


def _params_beyond(args) -> dict:
    """:func:`_params` plus ``objective`` and ``calibrate``, validated by the mechanism's registry entry."""
    from .mechanisms import resolve

    params = _params(args)
    resolve(params["mechanism"], params["epsilon"], params["delta"], params["gamma"],
            params["global_sensitivity_method"], args.objective, args.calibrate)
    return dict(params, objective=args.objective, calibrate=bool(args.calibrate))


def _calibration_json(params, a, n) -> dict | None:
    """``{"factor", "concrete_epsilon"}`` of a calibrated mechanism, else None."""
    if not params.get("calibrate"):
        return None
    from .calibration import calibration

    return calibration(params["mechanism"], a, n, epsilon=params["epsilon"], delta=params["delta"],
                       gamma=params["gamma"], global_sensitivity_method=params["global_sensitivity_method"]).as_dict()


def json_safe(obj):
    """``obj`` with numpy scalars made plain and every NaN or infinity replaced by ``None``."""
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else None
    return obj


def _json_text(obj) -> str:
    """Strict JSON text (``allow_nan=False`` guards against any NaN left behind)."""
    return json.dumps(json_safe(obj), indent=2, allow_nan=False)


def _dump(obj) -> None:
    """Print strict JSON, all of it or (on an error while encoding) nothing."""
    print(_json_text(obj))


def exact_sum(a: float, m: int) -> str:
    """``a + m`` written exactly in decimal (the prior as given plus an integer count), e.g. ``5000001``."""
    s = Decimal(repr(float(a))) + int(m)
    if s == s.to_integral_value():
        return str(int(s))
    return format(s.normalize(), "f")


# ---------------------------------------------------------------------------------------------
# pmf


#: rows ``pmf`` may print (all of R(n), or ``--top N``): ``DPPOSTERIOR_MAX_PMF_ROWS``
DEFAULT_MAX_PMF_ROWS = 1e6
#: outputs ``pmf`` may compute, |R(n)| (about 3 us each here): ``DPPOSTERIOR_MAX_PMF_WORK``
DEFAULT_MAX_PMF_WORK = 4e6


def add_pmf(p: argparse.ArgumentParser) -> None:
    """print a mechanism's exact output distribution over R(n)"""
    _common(p)
    p.add_argument("--counts", required=True, metavar="C1,C2,...", help="count vector c, comma-separated, e.g. 4,4")
    p.add_argument("--top", metavar="N", help="print only the N most probable outputs (sorted by probability)")
    p.add_argument("--sort", choices=("counts", "probability"), default=None,
                   help="row order: counts (lexicographic, the default) or probability (most probable first; "
                        "the default with --top)")
    _beyond_flags(p)


def _count(x: int) -> str:
    """A non-negative int for a message: ``12,507,501``, or ``~1.2e+600`` past 15 digits.

    Works for ints of any size (:func:`dpposterior.validate.scientific`).
    """
    return f"{x:,}" if x < 10**15 else "~" + validate.scientific(x, 1)


def _pmf_rows(args, size: int) -> int:
    """The number of rows ``pmf`` prints, checked against ``DPPOSTERIOR_MAX_PMF_ROWS`` before any work."""
    from .budget import budget_setting
    from .errors import SizeError

    limit = int(budget_setting("DPPOSTERIOR_MAX_PMF_ROWS", DEFAULT_MAX_PMF_ROWS))
    work = int(budget_setting("DPPOSTERIOR_MAX_PMF_WORK", DEFAULT_MAX_PMF_WORK))
    top = None if args.top is None else validate.integer(_int_value(args.top, "--top"), "--top", 1, None)
    if size > work:
        raise SizeError(f"the exact pmf over |R(n)| = {_count(size)} outputs would take {_count(size * 4 // 10**6)} s "
                        f"here, over the budget of {work:,} outputs (set DPPOSTERIOR_MAX_PMF_WORK to raise it)")
    rows = size if top is None else min(top, size)
    if rows > limit:
        raise SizeError(f"pmf would print {rows:,} rows (|R(n)| = {size:,}), over the budget of {limit:,} "
                        f"(~{rows * (60 if args.json else 45) / 2**20:.0f} MB of output); use --top N, or set "
                        "DPPOSTERIOR_MAX_PMF_ROWS to raise it")
    return rows


def cmd_pmf(args) -> None:
    """``dpposterior pmf``: JSON keys mechanism, epsilon, delta, outputs [{counts, alpha, probability, hellinger,
    steps}] (a public contract), written row by row."""
    from .models import n_candidates

    params = _params_beyond(args)
    c = _counts_arg(args.counts)
    a = _prior_arg(args.prior, c.size)
    rows = _pmf_rows(args, n_candidates(int(c.sum()), c.size))
    logp = log_pmf(prior=a, counts=c, **params)
    cands = candidates(int(c.sum()), c.size)
    sort = args.sort or ("probability" if args.top is not None else "counts")
    if sort == "probability" or rows < cands.shape[0]:
        order = np.argsort(-logp, kind="stable")[:rows]  # ties keep the lexicographic order
        if sort == "counts":
            order = np.sort(order)
        cands, logp = cands[order], logp[order]
    prob = np.exp(logp)
    dist = hellinger(a + c, a + cands)
    st = steps(c, cands)
    if args.json:
        cal = _calibration_json(params, a, int(c.sum()))
        head = {"mechanism": params["mechanism"], "epsilon": params["epsilon"], "delta": params["delta"],
                **({"calibration": cal} if cal else {})}
        if not (np.isfinite(prob).all() and np.isfinite(dist).all()):  # never NaN or Infinity in JSON
            raise InputError("the exact pmf is not finite here; please report this input")
        write = sys.stdout.write
        text = json.dumps(json_safe(head), indent=2, allow_nan=False)
        write(text[:-2] + ',\n  "outputs": [')
        av = a.tolist()
        sep = "\n    "
        lines = []
        for m, p_, h, s_ in zip(cands.tolist(), prob.tolist(), dist.tolist(), st.tolist()):
            lines.append(f'{{"counts": [{", ".join(map(str, m))}], "alpha": [{", ".join(repr(x + y) for x, y in zip(av, m))}], '
                         f'"probability": {p_!r}, "hellinger": {h!r}, "steps": {s_}}}')
            if len(lines) >= 4096:
                write(sep + (",\n    ").join(lines))
                sep = ",\n    "
                lines.clear()
        if lines:
            write(sep + (",\n    ").join(lines))
        write("\n  ]\n}\n")
        return
    print(f"# exact output distribution of {params['mechanism']} at counts {c.tolist()}, prior {a.tolist()}, "
          f"eps {params['epsilon']:g}" + (f"; the {rows:,} most probable of {n_candidates(int(c.sum()), c.size):,}"
                                           if args.top is not None else ""))
    print(f"{'counts':>20} {'alpha':>24} {'probability':>14} {'hellinger':>12} {'steps':>5}")
    out = []
    for m, p_, h, s_ in zip(cands.tolist(), prob.tolist(), dist.tolist(), st.tolist()):
        alpha = [float(x) + y for x, y in zip(a.tolist(), m)]
        out.append(f"{str(m):>20} {str(alpha):>24} {p_:14.6e} {h:12.6f} {int(s_):5d}")
        if len(out) >= 4096:
            print("\n".join(out))
            out.clear()
    if out:
        print("\n".join(out))


# ---------------------------------------------------------------------------------------------
# privacy


def add_privacy(p: argparse.ArgumentParser) -> None:
    """print the exact concrete epsilon (worst case, or local with --at)"""
    _common(p)
    p.add_argument("--n", required=True, help="data-set size n")
    p.add_argument("--at", metavar="C1,C2,...", help="local concrete epsilon at this count vector")
    p.add_argument("--delta-at", metavar="EPS", help="also print the privacy profile delta(eps') at this eps'")
    _beyond_flags(p)


def cmd_privacy(args) -> None:
    from .privacy import concrete_epsilon

    params = _params_beyond(args)
    n = _size_arg(args.n)
    a = _prior_arg(args.prior)
    at = None if args.at is None else _counts_arg(args.at, "--at counts")
    delta_at = None if args.delta_at is None else validate.eps_prime(_float(args.delta_at, "--delta-at"),
                                                                     "--delta-at")
    res = concrete_epsilon(prior=a, n=n, at=at, delta_at=delta_at, progress=sys.stderr.isatty(), **params)
    out = {
        "concrete_epsilon": res.concrete_epsilon,
        "claimed": {"epsilon": res.claimed_epsilon, "delta": res.claimed_delta},
        "worst_pair": [res.worst_pair[0], res.worst_pair[1]],
        "worst_output": res.worst_output,
    }
    if res.delta_at is not None:
        out["delta_at"] = res.delta_at
    cal = _calibration_json(params, a, n)
    if cal:
        out["calibration"] = cal
    if args.json:
        _dump(out)
        return
    claim = ("no claim" if res.claimed_epsilon is None
             else f"claimed ({res.claimed_epsilon:g}, {res.claimed_delta:g})-DP")
    verdict = " EXCEEDS THE CLAIM" if res.exceeds_claim else ""
    lines = [f"{res.scope} concrete epsilon of {params['mechanism']} (prior {a.tolist()}, n {n}): "
             f"{res.concrete_epsilon:.10g}  [{claim}]{verdict}",
             f"worst pair: {res.worst_pair[0]} vs {res.worst_pair[1]}, at output {res.worst_output}"]
    if res.delta_at is not None:
        lines.append(f"delta({res.delta_at['epsilon']:g}) = {res.delta_at['delta']:.6g}")
    print("\n".join(lines))


# ---------------------------------------------------------------------------------------------
# release


def add_release(p: argparse.ArgumentParser) -> None:
    """release one private posterior"""
    _common(p)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--counts", metavar="C1,C2,...", help="count vector c, comma-separated, e.g. 40,60")
    source.add_argument("--data", metavar="CSV",
                        help="CSV file of records (instead of --counts); needs --column.  A pipe (e.g. /dev/stdin) "
                             "or FIFO is read too, but must deliver all its data within DPPOSTERIOR_MAX_DATA_SECONDS "
                             "(default 20) seconds")
    p.add_argument("--column", metavar="NAME", help="column of --data holding each record's category")
    p.add_argument("--categories", metavar="X,Y,...",
                   help="the categories, comma-separated, in order (default: sorted values of the data)")
    p.add_argument("--seed", help="integer seed (default: operating-system entropy)")
    p.add_argument("--noise-aware", action="store_true",
                   help="also print the noise-aware posterior of the release (90%% intervals; post-processing, no privacy cost)")
    _beyond_flags(p)


#: ``--data`` files larger than this many MB are refused before parsing (``DPPOSTERIOR_MAX_DATA_MB``)
DEFAULT_MAX_DATA_MB = 1024
#: the header line must end within this many bytes (a file without newlines is not a CSV of records)
MAX_HEADER_BYTES = 1 << 20


class _DataTooLarge(Exception):
    pass


class _CappedFile:
    """A binary file that refuses to deliver more than ``cap`` bytes (devices and pipes have no size).

    It also counts the blank lines that pass (``\\n`` followed by an optional ``\\r`` and ``\\n``),
    which the CSV parser skips.
    """

    def __init__(self, raw, cap: int):
        self.raw, self.cap, self.seen = raw, cap, 0
        self.blank_lines, self._tail = 0, b""

    def read(self, size: int = -1) -> bytes:
        want = self.cap + 1 - self.seen if size is None or size < 0 else min(size, self.cap + 1 - self.seen)
        data = self.raw.read(max(want, 0))
        self.seen += len(data)
        if self.seen > self.cap:
            raise _DataTooLarge
        if data:
            both = self._tail + data
            self.blank_lines += (both.count(b"\n\n") + both.count(b"\n\r\n")
                                 - self._tail.count(b"\n\n") - self._tail.count(b"\n\r\n"))
            self._tail = both[-2:]
        return data

    def readable(self) -> bool:  # noqa: D102
        return True

    def __iter__(self):
        return iter(lambda: self.read(1 << 16), b"")


#: seconds a ``--data`` that is not a regular file (a pipe, ``/dev/stdin``, a FIFO, a terminal) may take to
#: deliver its bytes (``DPPOSTERIOR_MAX_DATA_SECONDS``): a FIFO nobody writes to is refused, not waited on forever
DEFAULT_MAX_DATA_SECONDS = 20


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


def _open_data(path: str, cap: int, too_large: str):
    """``path`` opened for reading without ever blocking in ``open`` (a FIFO with no writer), as a binary file.

    A regular file is read as usual (refused when larger than ``cap`` bytes); a directory is refused; any other
    file (a pipe or FIFO, ``/dev/stdin``, a terminal, a device) is read through :class:`_PolledFile`, whose
    reads wait at most until ``DPPOSTERIOR_MAX_DATA_SECONDS`` after the open.
    """
    from .budget import budget_setting

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a CSV file") from None
    except OSError as exc:
        raise InputError(f"cannot open {path}: {exc.strerror or 'unreadable'}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{path} is a directory, not a CSV file")
        if stat.S_ISREG(info.st_mode):
            if info.st_size > cap:
                raise InputError(too_large)
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb")
        seconds = budget_setting("DPPOSTERIOR_MAX_DATA_SECONDS", DEFAULT_MAX_DATA_SECONDS)
        return io.BufferedReader(_PolledFile(fd, time.monotonic() + seconds))
    except BaseException:
        os.close(fd)
        raise


def _header_names(head: bytes) -> list[str]:
    """The column names of the header line(s) in ``head`` as written (pandas would rename duplicates)."""
    import pandas as pd

    whole = head[:head.rindex(b"\n") + 1] if b"\n" in head else head  # whole lines: no cut UTF-8 character
    first = pd.read_csv(io.BytesIO(whole), dtype=str, header=None, nrows=1, keep_default_na=False,
                        encoding="utf-8")
    return [str(x) for x in first.iloc[0].tolist()] if len(first) else []


def _counts_from_csv(path: str, column: str | None, categories: str | None) -> tuple[np.ndarray, list[str], list[str]]:
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
    record's value, a count or a line number.  Blank lines are skipped with a warning giving
    their number (a blank line is not a record); a record whose value in ``column`` is empty is
    an error, as is a value outside ``--categories``.  A category of ``--categories`` that no
    record has is an ordinary zero count.  The warning about categories taken from the data
    depends on the flags only.
    """
    import pandas as pd

    from .budget import budget_setting

    if not column:
        raise InputError("--data needs --column NAME")
    cats = None
    if categories is not None:
        cats = [x.strip() for x in categories.split(",")]
        if any(not x for x in cats):
            raise InputError("--categories has an empty category name")
        if len(set(cats)) != len(cats):
            raise InputError("--categories has duplicates")
    limit_mb = budget_setting("DPPOSTERIOR_MAX_DATA_MB", DEFAULT_MAX_DATA_MB)
    cap = int(limit_mb * 2**20)
    too_large = (f"{path} is larger than the {limit_mb:g} MB read by --data "
                 "(set DPPOSTERIOR_MAX_DATA_MB to raise it)")
    unreadable = f"cannot read {path} as a UTF-8 CSV file with a header row"
    raw = _open_data(path, cap, too_large)
    totals: dict[str, int] = {}
    empty = 0
    try:
        with raw:
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
                raise InputError(f"{path} has no column {column!r}")
            if names.count(column) > 1:
                raise InputError(f"{path} has more than one column {column!r}")
            if raw.seekable():
                raw.seek(0)
                source = _CappedFile(raw, cap)
            else:  # a pipe: put the bytes already read back in front
                source = _CappedFile(io.BufferedReader(_Chain(head, raw)), cap)  # type: ignore[arg-type]
            try:  # blank lines are skipped by the parser and counted by the reader as the bytes pass
                reader = pd.read_csv(source, dtype=str, keep_default_na=False, skip_blank_lines=True,
                                     usecols=[names.index(column)], chunksize=1 << 20, encoding="utf-8")
                for chunk in reader:
                    values = chunk.iloc[:, 0].str.strip()
                    empty += int((values == "").sum())
                    for value, count in values.value_counts().items():
                        totals[value] = totals.get(value, 0) + int(count)
            except (_DataTooLarge, _DataTimeout, OSError):
                raise
            except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
                raise InputError(unreadable) from None
            blank = source.blank_lines
    except _DataTooLarge:
        raise InputError(too_large) from None
    except _DataTimeout:
        seconds = budget_setting("DPPOSTERIOR_MAX_DATA_SECONDS", DEFAULT_MAX_DATA_SECONDS)
        raise InputError(f"{path} is not a regular file and did not deliver all its data within {seconds:g} s "
                         "(set DPPOSTERIOR_MAX_DATA_SECONDS to wait longer)") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or 'read error'}") from None
    if empty:
        raise InputError(f"column {column!r} of {path} has empty values; give every record a category")
    warnings = []
    if blank:
        warnings.append(f"{blank} blank line{'s' if blank != 1 else ''} of {path} skipped")
    if not totals and cats is None:
        raise InputError(f"{path} has no records")
    if cats is None:
        warnings.append("categories taken from the data; pass --categories to keep the category set itself private")
        cats = sorted(totals)
    elif any(v not in cats for v in totals):
        raise InputError(f"column {column!r} of {path} has values not in --categories (not shown: they are data)")
    counts = [totals.get(x, 0) for x in cats]
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


def cmd_release(args) -> None:
    """``dpposterior release``: everything that can fail (reading the data, the draw, the calibration, the
    noise-aware posterior) is done before the first line is printed, so a refusal leaves stdout empty;
    warnings about the data go to stderr only once the release has succeeded."""
    params = _params_beyond(args)
    cats, warnings = None, []
    if args.data is not None:
        c, cats, warnings = _counts_from_csv(args.data, args.column, args.categories)
    else:
        c = _counts_arg(args.counts)
    a = _prior_arg(args.prior, c.size)
    seed = _seed(args.seed)
    mech, p = resolve(params["mechanism"], params["epsilon"], params["delta"], params["gamma"],
                      params["global_sensitivity_method"], params["objective"], params["calibrate"])
    # seed None: the operating system's CSPRNG; the draw is padded to a deadline from public inputs
    m, _ = release(mech, a, c, p, seed)
    claim = _claim(params)
    noise_aware = _noise_aware(params, a, m) if args.noise_aware else None
    if args.json:
        out = {"mechanism": params["mechanism"], "epsilon": params["epsilon"], "delta": params["delta"],
               "claimed": {"epsilon": claim[0], "delta": claim[1]}, "n": int(c.sum()), "prior": a.tolist(),
               "released_counts": m.tolist(), "alpha": (a + m).tolist(), "seed": seed}
        if cats is not None:
            out["categories"] = cats
        cal = _calibration_json(params, a, int(c.sum()))
        if cal:
            out["calibration"] = cal
        if noise_aware is not None:
            post, naive = noise_aware
            out["noise_aware"] = {"level": post.level} | noise_aware_summary(post, naive)
        text = _json_text(out)
    else:
        label = "Beta" if c.size == 2 else "Dir"
        lines = [f"{label}({', '.join(exact_sum(x, y) for x, y in zip(a, m))})"]
        if cats is not None:
            lines.append(f"categories, in order: {', '.join(cats)}")
        if noise_aware is not None:
            lines += _noise_aware_lines(*noise_aware, categories=cats)
        text = "\n".join(lines)
    for warning in warnings:
        print(f"dpposterior: warning: {warning}", file=sys.stderr)
    print(text)


def _noise_aware(params: dict, a, m):
    """The noise-aware posterior of the release ``m`` (post-processing: a function of m and public settings)."""
    from .posterior import naive_posterior, noise_aware_posterior

    post = noise_aware_posterior(prior=a, released=m, **params)
    return post, naive_posterior(a, m, post.level)


# ---------------------------------------------------------------------------------------------
# posterior


def add_posterior(p: argparse.ArgumentParser) -> None:
    """the exact noise-aware posterior of a released Dir(a + m)"""
    _common(p)
    p.add_argument("--released", required=True, metavar="M1,M2,...",
                   help="the released counts m (the release is Dir(a + m)), comma-separated, e.g. 40,60")
    p.add_argument("--level", default="0.9", metavar="L", help="credible level in (0, 1) (default 0.9)")
    _beyond_flags(p)


def noise_aware_summary(post, naive: dict) -> dict:
    """The JSON body shared by ``posterior`` and ``release --noise-aware``."""
    return {"mean": post.mean.tolist(), "intervals": post.intervals.tolist(),
            "dropped_mass_bound": post.dropped_mass_bound, "naive": naive}


def _noise_aware_lines(post, naive: dict, categories=None) -> list[str]:
    """The text lines shared by ``posterior`` and ``release --noise-aware``."""
    names = categories or [f"theta_{i + 1}" for i in range(len(naive["mean"]))]
    width = max(len(str(x)) for x in names)
    lines = [f"noise-aware posterior ({post.mechanism}, eps = {post.epsilon:g}), {post.level:g} equal-tailed "
             "intervals:"]
    for name, mean, (lo, hi), nmean, (nlo, nhi) in zip(names, post.mean, post.intervals, naive["mean"],
                                                         naive["intervals"]):
        lines.append(f"  {str(name):<{width}}  mean {mean:.4f}  [{lo:.4f}, {hi:.4f}]   "
                     f"(naive Dir(a + m): {nmean:.4f} [{nlo:.4f}, {nhi:.4f}])")
    return lines


def cmd_posterior(args) -> None:
    """``dpposterior posterior``: JSON keys mechanism, epsilon, level, mean, intervals, naive {mean, intervals}."""
    from .posterior import naive_posterior, noise_aware_posterior

    params = _params_beyond(args)
    m = _counts_arg(args.released, "released counts")
    a = _prior_arg(args.prior, m.size)
    level = validate.open_unit(_float(args.level, "level"), "level")
    post = noise_aware_posterior(prior=a, released=m, level=level, **params)
    naive = naive_posterior(a, m, level)
    if args.json:
        _dump({"mechanism": post.mechanism, "epsilon": post.epsilon, "level": level} | noise_aware_summary(post, naive))
        return
    print("\n".join(_noise_aware_lines(post, naive)))


# ---------------------------------------------------------------------------------------------
# audit


def add_audit(p: argparse.ArgumentParser) -> None:
    """black-box lower confidence bound on the privacy loss, from samples"""
    from .audit import DEFAULT_CONFIDENCE, DEFAULT_EVENTS, DEFAULT_SAMPLES

    _common(p)
    p.add_argument("--n", required=True, help="data-set size n")
    p.add_argument("--pair", metavar="C:C'", help="adjacent pair c:c' to test, e.g. 50,50:49,51 (default: --search)")
    p.add_argument("--search", default="worst",
                   help="pairs to test without --pair: worst (exact worst pair, white-box hint; default), "
                        "boundary, balanced, random")
    p.add_argument("--samples", default=str(DEFAULT_SAMPLES), help=f"samples per side (default {DEFAULT_SAMPLES})")
    p.add_argument("--confidence", default=str(DEFAULT_CONFIDENCE), help="confidence level in (0, 1) (default 0.95)")
    p.add_argument("--events", default=str(DEFAULT_EVENTS),
                   help=f"events carried to the held-out half (Bonferroni, default {DEFAULT_EVENTS})")
    p.add_argument("--delta-at", metavar="EPS", help="also bound delta(eps') (hockey-stick divergence) at this eps'")
    p.add_argument("--seed", help="integer seed (default: operating-system entropy, reported)")


def _parse_pair(text: str) -> tuple[list, list]:
    parts = text.split(":")
    if len(parts) != 2:
        raise InputError(f"--pair must be two count vectors separated by ':', e.g. 50,50:49,51; got {text!r}")
    return _number_list(parts[0], "--pair"), _number_list(parts[1], "--pair")


def cmd_audit(args) -> None:
    """``dpposterior audit``: JSON keys epsilon_lower_bound, estimate, confidence, samples, pair, event,
    exact_concrete_epsilon (a public contract), plus extras."""
    from .audit import _check_delta_at, check_confidence, check_events, check_samples
    from .mechanism_audit import audit_mechanism

    params = _params(args)
    n = _size_arg(args.n)
    a = _prior_arg(args.prior)
    samples = check_samples(_int(args.samples, "--samples"), "samples")
    confidence = check_confidence(_float(args.confidence, "--confidence"))
    n_events = check_events(_int(args.events, "--events"), "--events")
    delta_at = _check_delta_at(None if args.delta_at is None else _float(args.delta_at, "--delta-at"), "--delta-at")
    seed = _seed(args.seed)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    pair = None if args.pair is None else _parse_pair(args.pair)
    res = audit_mechanism(prior=a, n=n, pair=pair, search=args.search, samples=samples, confidence=confidence,
                          seed=seed, n_events=n_events, delta_at=delta_at, progress=sys.stderr.isatty(), **params)
    out = {
        "epsilon_lower_bound": res.epsilon_lower_bound, "estimate": res.estimate, "confidence": res.confidence,
        "samples": res.samples, "pair": res.pair, "event": res.event,
        "exact_concrete_epsilon": res.exact_concrete_epsilon,
        "claimed": dict(zip(("epsilon", "delta"), _claim(params))),
        "event_upper_bound": res.event_upper_bound, "pairs_tested": res.pairs_tested, "n_events": res.n_events,
        "mechanism": params["mechanism"], "seed": seed,
        "above_nominal_epsilon": res.epsilon_lower_bound > params["epsilon"],
    }
    if res.delta is not None:
        out["delta_at"] = res.delta
    if args.json:
        _dump(out)
        return
    claim = out["claimed"]
    claim_text = "no claim" if claim["epsilon"] is None else f"claimed ({claim['epsilon']:g}, {claim['delta']:g})-DP"
    exceeds = claim["epsilon"] is not None and claim["delta"] == 0 and res.epsilon_lower_bound > claim["epsilon"]
    nominal = (f"  ABOVE THE NOMINAL EPS {params['epsilon']:g}" if claim["epsilon"] is None
               and out["above_nominal_epsilon"] else "")
    lines = [f"empirical privacy loss of {params['mechanism']} (prior {a.tolist()}, n {n}) at pair "
             f"{res.pair[0]} vs {res.pair[1]}, {res.samples} samples per side, seed {seed}:",
             f"  lower bound {res.epsilon_lower_bound:.4f} at confidence {res.confidence:g}  [{claim_text}]"
             + ("  EXCEEDS THE CLAIM" if exceeds else "") + nominal,
             f"  estimate {res.estimate:.4f} on the held-out event ({res.event['kind']}, "
             f"{res.event.get('rule') or str(res.event['size']) + ' outputs'}); pairs tested {res.pairs_tested}"]
    if res.exact_concrete_epsilon is not None:
        lines.append(f"  exact concrete epsilon of this pair {res.exact_concrete_epsilon:.4f}")
    if res.delta is not None:
        lines.append(f"  delta({res.delta['epsilon']:g}): lower bound {res.delta['lower_bound']:.4g}, "
                     f"estimate {res.delta['estimate']:.4g}")
    print("\n".join(lines))


# ---------------------------------------------------------------------------------------------
# accuracy and compare (expected error over every data set of size n)


def add_accuracy(p: argparse.ArgumentParser) -> None:
    """print the exact expected Hellinger error: worst case over data sets of size n and prior-predictive average"""
    _common(p)
    p.add_argument("--n", required=True, help="data-set size n")
    _beyond_flags(p)


def cmd_accuracy(args) -> None:
    from .accuracy import expected_errors

    params = _params_beyond(args)
    n = _size_arg(args.n)
    a = _prior_arg(args.prior)
    e = expected_errors(prior=a, n=n, **params)
    out = e.as_dict()
    if args.json:
        _dump(out)
        return
    lines = [f"# exact expected Hellinger error of {out['mechanism']} (prior {a.tolist()}, n {n}, "
             f"eps {params['epsilon']:g})",
             f"worst case: {e.worst:.6f} at counts {e.worst_counts}",
             f"average under the prior predictive: {e.average:.6f}"]
    if e.calibration is not None:
        lines.append(f"calibration: factor {e.calibration.factor:.6g}, certified concrete eps "
                     f"{e.calibration.concrete_epsilon:.10g}")
    print("\n".join(lines))


def add_compare(p: argparse.ArgumentParser) -> None:
    """rank every mechanism (calibrated and optimal included) by worst-case and average expected error"""
    p.add_argument("--prior", required=True, metavar="A1,A2,...", help="Dirichlet prior a, e.g. 1,1")
    p.add_argument("--n", required=True, help="data-set size n")
    p.add_argument("--epsilon", required=True, metavar="EPS", help="privacy parameter eps")
    p.add_argument("--delta", default=str(DEFAULT_DELTA), metavar="D", help="delta for mh-delta (default 1e-8)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _compare_variants() -> list[tuple]:
    """The releases ``compare`` ranks: ``(mechanism, extra keyword arguments, label)``, in registry order."""
    variants = []
    for mech in MECHANISMS.values():
        if mech.family == "optimal":
            variants += [(mech, dict(objective="worst")), (mech, dict(objective="average"))]
            continue
        variants.append((mech, {}))
        if mech.calibratable:
            variants.append((mech, dict(calibrate=True)))
    return [(mech, extra, mech.id + (" (calibrated)" if extra.get("calibrate") else "")
             + (f" ({extra['objective']})" if "objective" in extra else "")) for mech, extra in variants]


#: full scans over the pairs of R(n) of one ``compare`` row, as the library counts them in its own budget
#: checks (``privacy.check_scan_size``): the expected error 2, a calibration 20 more, and the optimal
#: table's certificate 1 more
COMPARE_PASSES = {"expected": 2, "calibrate": 20, "optimal": 1}
#: seconds of one optimal linear program (either objective) per ``(P N)^2``, ``P = k (k - 1) |R(n - 1)|``
#: ordered adjacent pairs and ``N = |R(n)|`` outputs (its constraints are ``P N``).  Measured here (HiGHS,
#: 2 busy cores): k = 2, n = 120: 2.5 s (worst), n = 200: 23 s, n = 259: 47 s; k = 3, n = 8: 1.2 s,
#: n = 12: 22 s + 15 s (average); k = 4, n = 5: 5.5 s.  k = 2 is ~5x cheaper than k >= 3 at equal size.
LP_SECONDS_PER_SIZE2 = {2: 3e-9}
LP_SECONDS_PER_SIZE2_DEFAULT = 1.5e-8


def compare_passes(k: int, n: int, optimal: bool = True) -> int:
    """Full scans over the pairs of R(n) that :func:`compare_rows` makes for ``k`` categories and size ``n``.

    Rows the library refuses from their own size limits (the optimal mechanism past
    ``optimal.MAX_OUTPUTS`` outputs) cost nothing: they are listed as too large; so do the optimal
    rows when ``optimal`` is false.
    """
    from .errors import SizeError

    passes = 0
    for mech, extra, label in _compare_variants():
        if mech.family == "optimal" and not optimal:
            continue
        try:
            mech.check_size(n, k, label)
        except SizeError:
            continue
        passes += COMPARE_PASSES["expected"] + (COMPARE_PASSES["calibrate"] if extra.get("calibrate") else 0) + (
            COMPARE_PASSES["optimal"] if mech.family == "optimal" else 0)
    return passes


def _optimal_lp_work(k: int, n: int) -> int:
    """The two optimal linear programs of ``compare`` in log-pmf evaluations (their estimated seconds times
    ``privacy.PAIRS_PER_SECOND``, the rate behind the pair budget), or 0 when the library refuses them."""
    from .errors import SizeError
    from .models import n_candidates
    from .privacy import PAIRS_PER_SECOND

    lp = [mech for mech, _, _ in _compare_variants() if mech.family == "optimal"]
    try:
        for mech in lp:
            mech.check_size(n, k, "the optimal table")
    except SizeError:
        return 0
    size = k * (k - 1) * n_candidates(n - 1, k) * n_candidates(n, k)
    seconds = LP_SECONDS_PER_SIZE2.get(k, LP_SECONDS_PER_SIZE2_DEFAULT) * size * size
    return len(lp) * math.ceil(seconds * PAIRS_PER_SECOND)


def check_compare_size(k: int, n: int) -> dict[str, str]:
    """The budget of ``compare``, from public k and n only, over the total of its rows.

    Each row alone is within ``DPPOSTERIOR_MAX_PAIRS`` far past the point where all of them together take
    minutes, so the budget applies to ``passes x |R(n)|^2`` summed over every row (:func:`compare_passes`)
    plus the optimal rows' linear programs (:func:`_optimal_lp_work`).  Raises one-line :class:`SizeError`
    when the rows without the optimal ones are over it; returns ``{label: reason}`` of the optimal rows
    left out (listed as too large) when only they would take it over, else ``{}``.
    """
    from .budget import budget_setting
    from .errors import SizeError
    from .models import n_candidates
    from .privacy import DEFAULT_MAX_PAIR_WORK, PAIRS_PER_SECOND

    limit = budget_setting("DPPOSTERIOR_MAX_PAIRS", DEFAULT_MAX_PAIR_WORK)
    size = n_candidates(n, k)
    passes = compare_passes(k, n)
    lp = _optimal_lp_work(k, n)
    if passes * size * size + lp <= limit:  # exact ints at any size
        return {}
    passes = compare_passes(k, n, optimal=False)
    work = passes * size * size
    if work > limit:
        raise SizeError(f"compare for k={k}, n={n} needs {passes} x |R(n)|^2 = {_count(work)} log-pmf evaluations "
                        f"over all its releases (~{_count(work // int(PAIRS_PER_SECOND))} s here), over the budget "
                        f"of {limit:.0e} (use accuracy for one mechanism, or set DPPOSTERIOR_MAX_PAIRS to raise it)")
    reason = (f"the optimal mechanism's two linear programs for k={k}, n={n} (~{_count(lp // int(PAIRS_PER_SECOND))} s "
              f"here) would take compare over the budget of {limit:.0e} log-pmf evaluations (set "
              "DPPOSTERIOR_MAX_PAIRS to raise it)")
    return {label: reason for mech, _, label in _compare_variants() if mech.family == "optimal"}


def compare_rows(a, n: int, epsilon: float, delta: float, left_out: dict[str, str] | None = None) -> list[dict]:
    """One row per release (each mechanism; calibrated exponential ones; optimal worst and average), ranked by worst case.

    A release too large for exact work gets a row with ``"error"`` (its one-line size error) instead of numbers,
    as does each release of ``left_out`` (label -> reason; see :func:`check_compare_size`, which ``compare``
    calls before this to bound the total).
    """
    from .accuracy import expected_errors
    from .errors import SizeError

    out = []
    for mech, extra, label in _compare_variants():
        ce, cd = mech.claimed(epsilon, delta, extra.get("calibrate", False))
        claim = "none" if ce is None else (f"({ce:g}, {cd:g})-DP" if cd else f"{ce:g}-DP")
        row = {"release": label, "claim": claim}
        if label in (left_out or {}):
            row["error"] = left_out[label]
            out.append(row)
            continue
        try:
            e = expected_errors(mech.id, a, n, epsilon=epsilon, delta=delta, **extra)
        except SizeError as exc:
            row["error"] = " ".join(str(exc).split())
        else:
            row.update(worst_expected_error=e.worst, worst_counts=e.worst_counts, average_expected_error=e.average)
            if e.calibration is not None:
                row["calibration"] = e.calibration.as_dict()
        out.append(row)
    return sorted(out, key=lambda r: (r.get("worst_expected_error", math.inf), r["release"]))


def cmd_compare(args) -> None:
    n = _size_arg(args.n)
    a = _prior_arg(args.prior)
    epsilon = validate.epsilon(_float(args.epsilon, "epsilon"))
    delta = validate.delta(_float(args.delta, "delta"))
    left_out = check_compare_size(a.size, n)
    rows = compare_rows(a, n, epsilon, delta, left_out)
    if args.json:
        _dump({"prior": a.tolist(), "n": n, "epsilon": epsilon, "releases": rows})
        return
    avg_rank = {r["release"]: i + 1 for i, r in enumerate(
        sorted((r for r in rows if "error" not in r), key=lambda r: r["average_expected_error"]))}
    lines = [f"# expected Hellinger error of every release (prior {a.tolist()}, n {n}, eps {epsilon:g}), "
             "ranked by worst case",
             f"{'release':<26} {'claim':<16} {'worst':>9} {'rank':>4} {'average':>9} {'rank':>4}  worst data set"]
    for i, r in enumerate(rows):
        if "error" in r:
            lines.append(f"{r['release']:<26} {r['claim']:<16} too large for exact work: {r['error']}")
            continue
        lines.append(f"{r['release']:<26} {r['claim']:<16} {r['worst_expected_error']:9.4f} {i + 1:4d} "
                     f"{r['average_expected_error']:9.4f} {avg_rank[r['release']]:4d}  {r['worst_counts']}")
    lines.append("(ehdl claims no privacy; calibrated releases are pure eps-DP by exact computation)")
    print("\n".join(lines))


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
    """Entry point of the ``dpposterior`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(_join_negative_lists(argv))
        if args.command is None:
            raise InputError("a command is required: " + ", ".join(COMMANDS))
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


if __name__ == "__main__":
    sys.exit(main())
