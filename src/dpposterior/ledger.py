"""A privacy budget across several releases of the same data: a ledger file (docs/definitions.md §9, "Ledger").

Without a ledger, nothing adds releases up: k releases of the same data at eps each cost k * eps
(basic composition), whatever each one says.  :class:`Ledger` keeps that account in a JSON file:

* an entry records **settings only** (mechanism, the claimed epsilon and delta, the time), never data;
* :meth:`Ledger.charge` adds one release's guarantee *atomically*: under an exclusive ``fcntl.flock``
  on ``FILE.lock``, it reads the file, checks the new total against the budget, writes a temporary
  file in the same folder and ``os.replace``-s it over the ledger;
* a release that would pass the budget is refused (:class:`BudgetExceeded`, one line) before
  anything is drawn, and the file is left byte-identical; so is a release with no guarantee;
* a ledger that cannot be read or parsed is an error (:class:`LedgerError`), never overwritten.

**The budget belongs to the ledger.**  It is stored in the file when the ledger is created (by its first
charge, or explicitly: :meth:`Ledger.create`, ``dpposterior ledger create FILE --budget ...``).  A later
``budget=`` / ``--budget`` must equal it: one that differs is refused in one line naming both, before
anything is drawn (a release's flags never change the budget).  Raising it is a separate, explicit act
that is recorded in the file (:meth:`Ledger.raise_budget`, ``dpposterior ledger raise FILE --budget ...``);
the file lists every budget it has had (``"budgets"``: the epsilon, delta, time and the number of
releases before it).  ``Ledger(path)`` without a budget uses the stored one.

**Old ledgers** (``dpposterior-ledger/1``, written before the budget was stored) are read as they are
(:meth:`Ledger.entries`, :meth:`Ledger.summary`, ``dpposterior ledger show``), but a release is refused on
them until their budget is recorded explicitly with :meth:`Ledger.create` / ``dpposterior ledger create``
(which upgrades the file to ``dpposterior-ledger/2``): a budget taken silently from the first release's flags
would reopen the bypass this closes (a refusal at one budget, then the same file at a larger one).  A budget
below what the old ledger's releases already spent is refused: no ledger starts past its own budget.

**Refusals the file decides** (no budget to check against, a release past the budget, a raise of a ledger that
does not exist or that lowers the budget, a create that differs from the stored budget) are made from the file
as it is *before* ``FILE.lock`` is created, and again under the lock (another process may have written in
between): a refusal creates nothing, not even the lock file.

**The path.**  It is resolved once, when the :class:`Ledger` is made (``os.path.realpath``): a symbolic link is
*followed*, consistently, so the file read, locked (``REAL.lock``) and replaced is always the link's target,
and a charge through a link counts against the same total as one to the target.  The resolved file is then
opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat``: anything but a regular file (a FIFO, a
folder, a device, a socket, or a link swapped in after the path was resolved) is refused in one line before
anything is drawn, and a FIFO never blocks.  A ledger is read whole, up to :data:`MAX_LEDGER_BYTES`.

**Parsing** never ends in a traceback: nesting too deep for the parser, numbers or totals that overflow or
are not finite, a wrong type anywhere, are all "corrupt ledger" (:class:`LedgerError`), and the file is left
as it is.  **Writing**: a failed write (a full disk, a read-only file system, no permission) is a
:class:`LedgerError` naming the ledger, the temporary file is removed and the ledger left as it was.

The total is basic composition (the sum of the epsilons and of the deltas), which decides the
budget.  When an entry has a delta, :meth:`Ledger.summary` also gives the composition of
dp-accounting's privacy-loss distributions (``from_privacy_parameters``), usually tighter; that
package is an optional extra (``pip install "dpposterior[accounting]"``) and is imported lazily.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import math
import os
import shlex
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from . import validate
from .errors import InputError, shown_name

__all__ = ["BudgetExceeded", "Ledger", "LedgerError", "LedgerSummary", "parse_budget"]

FORMAT = "dpposterior-ledger/2"
#: the format written before the budget was stored in the file (read; charged only once a budget is recorded)
LEGACY_FORMAT = "dpposterior-ledger/1"
#: the largest ledger file read (about 100 bytes an entry: over 100,000 releases)
MAX_LEDGER_BYTES = 16 * 2**20
#: a total within this relative margin of the budget still fits it (ten releases at 0.1 fit a budget of 1)
TOLERANCE = 1e-12

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class LedgerError(InputError):
    """The ledger file cannot be read, parsed or written, or its budget differs from the one given (a one-line
    refusal; docs/definitions.md §9, "Ledger"); the file is never overwritten then."""


class BudgetExceeded(InputError):
    """A release would take the ledger's total past its budget (refused before anything is drawn)."""


def _exact(v: float) -> str:
    """A float as short as possible but never rounded (``1.0000001`` stays itself; ``0.5`` is ``0.5``)."""
    return f"{v:g}" if float(f"{v:g}") == v else repr(float(v))


def _pair(b: tuple[float, float]) -> str:
    return f"({_exact(b[0])}, {_exact(b[1])})"


def parse_budget(text: str) -> tuple[float, float]:
    """``--budget EPS[,DELTA]``: the budget's epsilon and delta (default 0); docs/definitions.md §9, "Ledger"."""
    parts = validate.parse_list(text, "budget")
    if len(parts) not in (1, 2):
        raise InputError(f"budget must be EPS or EPS,DELTA, got {len(parts)} values")
    eps = validate.positive(validate.parse_number(parts[0], "budget epsilon"), "budget epsilon")
    delta = 0.0 if len(parts) == 1 else _unit(validate.parse_number(parts[1], "budget delta"), "budget delta")
    return eps, delta


def _unit(value, name: str) -> float:
    return validate.number(value, name, 0.0, 1.0, hi_open=True)


def budget_arg(budget: object) -> tuple[float, float]:
    """A budget from Python: ``epsilon`` or ``(epsilon, delta)``, real numbers only (a string is refused, as
    everywhere in the API); epsilon > 0 finite, 0 <= delta < 1 (docs/definitions.md §9, "Ledger")."""
    if isinstance(budget, (tuple, list)):
        if len(budget) != 2:
            raise InputError("budget must be epsilon or (epsilon, delta)")
        return validate.positive(budget[0], "budget epsilon"), _unit(budget[1], "budget delta")
    return validate.positive(budget, "budget epsilon"), 0.0


@dataclass(frozen=True)
class Entry:
    """One release's settings and claimed guarantee (never its data)."""

    mechanism: str
    epsilon: float
    delta: float
    time: str

    def as_dict(self) -> dict:
        return {"mechanism": self.mechanism, "epsilon": self.epsilon, "delta": self.delta, "time": self.time}


@dataclass(frozen=True)
class BudgetRecord:
    """One budget the ledger has had: ``act`` is ``"created"`` (with the ledger), ``"recorded"`` (on a ledger
    older than stored budgets) or ``"raised"``; ``releases_before``: the releases charged before it."""

    epsilon: float
    delta: float
    time: str
    act: str
    releases_before: int

    def as_dict(self) -> dict:
        return {"epsilon": self.epsilon, "delta": self.delta, "time": self.time, "act": self.act,
                "releases_before": self.releases_before}


@dataclass(frozen=True)
class _State:
    raw: bytes | None  # None: no file yet
    entries: list[Entry]
    budgets: list[BudgetRecord]  # empty: no file, or a legacy file

    @property
    def budget(self) -> tuple[float, float] | None:
        return (self.budgets[-1].epsilon, self.budgets[-1].delta) if self.budgets else None

    @property
    def legacy(self) -> bool:
        return self.raw is not None and not self.budgets


@dataclass(frozen=True)
class LedgerSummary:
    """What a ledger holds, as data (:meth:`Ledger.summary`; ``dpposterior ledger show``): each release's
    settings, the budgets, the totals by basic composition and by dp-accounting's composition, what remains.

    ``str()`` of it is the one line ``dpposterior release --ledger`` prints on stderr; :meth:`as_dict` the JSON
    of ``dpposterior ledger show --json``."""

    path: str
    name: str
    format: str | None
    budget: tuple[float, float] | None
    releases: tuple[Entry, ...]
    budgets: tuple[BudgetRecord, ...]
    total: tuple[float, float]
    #: dp-accounting's composition ``(epsilon, at_delta)``, or None (no delta in any entry, or not installed)
    composed: tuple[float, float] | None
    remaining: tuple[float, float] | None = field(default=None)

    def __str__(self) -> str:
        eps, delta = self.total
        budget = "no recorded budget" if self.budget is None else f"budget ({self.budget[0]:g}, {self.budget[1]:g})"
        text = (f"ledger {shown_name(self.name)}: {len(self.releases)} release(s), total ({eps:g}, {delta:g})-DP by basic "
                f"composition, {budget}")
        if self.composed is not None:
            text += f"; dp-accounting composition: ({self.composed[0]:.4g}, {self.composed[1]:g})-DP"
        return text

    def as_dict(self) -> dict:
        """The summary as JSON-able data (every number finite; ``None`` where there is none)."""
        def pair(p):
            return None if p is None else {"epsilon": p[0], "delta": p[1]}
        return {"ledger": self.path, "format": self.format, "budget": pair(self.budget),
                "budgets": [b.as_dict() for b in self.budgets], "releases": [e.as_dict() for e in self.releases],
                "total": {"basic_composition": pair(self.total), "dp_accounting": pair(self.composed)},
                "remaining": pair(self.remaining)}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class Ledger:
    """A budget across releases of the same data, kept in ``path`` (docs/definitions.md §9, "Ledger"; module
    docstring).

    ``budget``: ``(epsilon, delta)`` or ``epsilon`` alone (delta 0), real numbers; None uses the budget stored in
    the file.  The file is created by the first charge (or :meth:`create`) with this budget; a file that already
    stores a different one is refused (:class:`LedgerError`), here and at every charge.
    """

    def __init__(self, path: str | os.PathLike, budget: float | tuple[float, float] | None = None):
        if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
            raise InputError(f"a ledger path must be a str or a path, got {type(path).__name__}")
        self.path = Path(path)
        if not str(path):
            raise InputError("a ledger path must not be empty")
        try:
            # resolved once: every read, lock and replace acts on the same file (a link is followed)
            self.real = Path(os.path.realpath(self.path))
        except (OSError, ValueError) as exc:
            raise LedgerError(f"cannot resolve the ledger path {str(self.path)!r}: {exc}") from None
        self._given = None if budget is None else budget_arg(budget)
        self._check_budget(self._read())

    def __repr__(self) -> str:
        state = self._read()
        eps, delta = _totals(state.entries, self.path)
        b = self._budget_of(state)
        shown = "None" if b is None else f"({b[0]:g}, {b[1]:g})"
        return (f"Ledger({str(self.path)!r}, budget={shown}, "
                f"spent=({eps:g}, {delta:g}) in {len(state.entries)} releases)")

    # -- reading ------------------------------------------------------------------------------

    @property
    def budget(self) -> tuple[float, float] | None:
        """The ledger's budget: the one stored in the file, else the one given (None: neither)."""
        return self._budget_of(self._read())

    def _budget_of(self, state: _State) -> tuple[float, float] | None:
        return state.budget if state.budget is not None else self._given

    def entries(self) -> list[Entry]:
        """The entries recorded so far (none if the file does not exist yet)."""
        return self._read().entries

    def budgets(self) -> list[BudgetRecord]:
        """Every budget the ledger has had, oldest first (none for a new or an old-format ledger)."""
        return self._read().budgets

    def _name(self) -> str:
        shown = repr(str(self.path))  # and where a link leads, when it is one
        return shown if str(self.real) == os.path.abspath(self.path) else f"{shown} (-> {str(self.real)!r})"

    def _corrupt(self, why: str) -> LedgerError:
        return LedgerError(f"the ledger {str(self.path)!r} is not a dpposterior ledger or is corrupt ({why}); "
                           "it was left as it is")

    def _read_bytes(self) -> bytes | None:
        """The file's bytes (None if it does not exist): a regular file only, never blocking, never followed
        past the resolved path, at most :data:`MAX_LEDGER_BYTES`."""
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.real, flags)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise LedgerError(f"the ledger {self._name()} became a symbolic link after its path was resolved; "
                                  "refused, nothing was drawn") from None
            if exc.errno == errno.ENXIO:
                raise LedgerError(f"the ledger {self._name()} is not a regular file (a socket or a device); "
                                  "refused, nothing was drawn") from None
            raise LedgerError(f"cannot read the ledger {self._name()}: {exc.strerror or exc}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                kind = next((k for test, k in _KINDS if test(st.st_mode)), "not a file")
                raise LedgerError(f"the ledger {self._name()} is not a regular file ({kind}); refused, "
                                  "nothing was drawn")
            if st.st_size > MAX_LEDGER_BYTES:
                raise LedgerError(f"the ledger {self._name()} is larger than {MAX_LEDGER_BYTES} bytes; "
                                  "refused, it was left as it is")
            chunks, size = [], 0
            while size <= MAX_LEDGER_BYTES:
                chunk = os.read(fd, min(1 << 20, MAX_LEDGER_BYTES + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size > MAX_LEDGER_BYTES:  # it grew while read
                raise LedgerError(f"the ledger {self._name()} is larger than {MAX_LEDGER_BYTES} bytes; "
                                  "refused, it was left as it is")
            return b"".join(chunks)
        except OSError as exc:
            raise LedgerError(f"cannot read the ledger {self._name()}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)

    def _read(self) -> _State:
        raw = self._read_bytes()
        if raw is None:
            return _State(None, [], [])
        try:
            doc = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except RecursionError:
            raise self._corrupt("nested too deeply") from None
        except (ValueError, UnicodeDecodeError, OverflowError):
            raise self._corrupt("not JSON") from None
        if not isinstance(doc, dict) or doc.get("format") not in (FORMAT, LEGACY_FORMAT) \
                or not isinstance(doc.get("entries"), list):
            raise self._corrupt("no dpposterior-ledger format and entries")
        try:
            entries = [Entry(_text(e, "mechanism"), _num(e, "epsilon"), _num(e, "delta"), _text(e, "time", ""))
                       for e in map(_record, doc["entries"])]
            budgets = []
            if doc["format"] == FORMAT:
                history = doc.get("budgets")
                if not isinstance(history, list) or not history:
                    raise ValueError("no budget")
                for b in map(_record, history):
                    eps, delta = _num(b, "epsilon"), _num(b, "delta")
                    before = b.get("releases_before")
                    if eps <= 0 or not isinstance(before, int) or isinstance(before, bool) or before < 0:
                        raise ValueError("a bad budget")
                    budgets.append(BudgetRecord(eps, delta, _text(b, "time", ""), _text(b, "act", ""), before))
        except KeyError as exc:
            raise self._corrupt(f"an entry without {exc.args[0]!r}") from None
        except (ValueError, TypeError, AttributeError, OverflowError) as exc:
            raise self._corrupt(str(exc) or "a bad entry") from None
        _totals(entries, self.path)  # a total that overflows is corruption too
        return _State(raw, entries, budgets)

    def _check_budget(self, state: _State) -> None:
        """Refuse a given budget that differs from the stored one (one line naming both)."""
        stored = state.budget
        if stored is not None and self._given is not None and stored != self._given:
            raise LedgerError(f"the ledger {self._name()} has the budget {_pair(stored)}, not {_pair(self._given)}: "
                              "a ledger's budget is fixed when it is created; give the same budget, or raise it "
                              f"explicitly with: dpposterior ledger raise {shown_name(shlex.quote(str(self.path)))} "
                              "--budget EPS[,DELTA]")

    def total(self) -> tuple[float, float]:
        """Basic composition of the entries: ``(sum of epsilons, sum of deltas)``."""
        return _totals(self.entries(), self.path)

    def summary(self) -> LedgerSummary:
        """Each release's settings, the budgets, the totals by basic composition and (when an entry has a delta
        and dp-accounting is installed) by dp-accounting's composition at the larger of the total delta and the
        budget's delta, and what remains of the budget (:class:`LedgerSummary`; ``str()`` of it is one line);
        docs/definitions.md §9, "Ledger"."""
        state = self._read()
        eps, delta = _totals(state.entries, self.path)
        budget = self._budget_of(state)
        at = max(delta, budget[1] if budget is not None else 0.0)  # the composition's epsilon at the larger delta
        pld = composed_epsilon(state.entries, at)
        remaining = None if budget is None else (max(budget[0] - eps, 0.0), max(budget[1] - delta, 0.0))
        fmt = None if state.raw is None else (LEGACY_FORMAT if state.legacy else FORMAT)
        return LedgerSummary(str(self.path), self.path.name, fmt, budget, tuple(state.entries),
                             tuple(state.budgets), (eps, delta), None if pld is None else (pld, at), remaining)

    # -- charging -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        import fcntl  # POSIX; the ledger is for the machines the releases run on

        lock_path = self.real.with_name(self.real.name + ".lock")
        flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(lock_path, flags, 0o600)
        except OSError as exc:
            raise LedgerError(f"cannot lock the ledger {self._name()}: {exc.strerror or exc}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise LedgerError(f"cannot lock the ledger {self._name()}: {str(lock_path)!r} is not a regular file")
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _fixed_budget(self, state: _State) -> tuple[float, float]:
        """The budget a charge is checked against: the stored one (equal to the given one, if given)."""
        self._check_budget(state)
        if state.legacy:
            raise LedgerError(f"the ledger {self._name()} was written by an older dpposterior and records no budget: "
                              f"record it once with: dpposterior ledger create {shown_name(shlex.quote(str(self.path)))} "
                              "--budget EPS[,DELTA] "
                              "(Ledger.create()); nothing was drawn")
        if state.budget is not None:
            return state.budget
        if self._given is None:
            raise LedgerError(f"there is no ledger at {self._name()} yet: a new ledger needs a budget "
                              "(--budget EPS[,DELTA], budget=); nothing was drawn")
        return self._given

    def _charge_total(self, state: _State, mechanism: str, epsilon: float | None,
                      delta: float | None) -> tuple[float, float, float, float]:
        """The totals after charging one release to ``state`` and the budget they are checked against, or the
        refusal (no budget to check against, no guarantee, past the budget).  Called once before the lock is
        taken (a refusal decided by the file as it is creates no ``FILE.lock``) and again under it."""
        b_eps, b_delta = self._fixed_budget(state)
        if epsilon is None:
            raise BudgetExceeded(f"mechanism {mechanism!r} has no privacy guarantee: the ledger cannot "
                                 "account for it")
        try:
            eps = math.fsum([*(e.epsilon for e in state.entries), epsilon])
            dlt = math.fsum([*(e.delta for e in state.entries), delta or 0.0])
        except OverflowError:
            eps = dlt = math.inf
        if eps > b_eps * (1 + TOLERANCE) or dlt > b_delta * (1 + TOLERANCE):
            raise BudgetExceeded(f"this release would take the ledger {shown_name(self.path.name)} to "
                                 f"({_exact(eps)}, {_exact(dlt)})-DP, past its budget "
                                 f"({_exact(b_eps)}, {_exact(b_delta)}); nothing was drawn")
        return eps, dlt, b_eps, b_delta

    @contextlib.contextmanager
    def charge(self, mechanism: str, epsilon: float | None, delta: float | None) -> Iterator[None]:
        """Hold the lock, refuse a release past the budget (docs/definitions.md §9, "Ledger"), record it, then run
        the body (the draw).

        The entry is written *before* the body runs: a release whose draw then fails has still been
        charged (the conservative side), and its error says so (an :class:`InputError`'s one line ends with
        "the ledger ... was charged for this release"; any other exception carries it as a note).  A refusal
        raises before the body, the file untouched.
        """
        self._charge_total(self._read(), mechanism, epsilon, delta)  # a refusal before the lock: no FILE.lock
        with self._locked():
            state = self._read()
            eps, dlt, b_eps, b_delta = self._charge_total(state, mechanism, epsilon, delta)
            entries = [*state.entries, Entry(mechanism, float(epsilon), float(delta or 0.0), _now())]
            budgets = state.budgets or [BudgetRecord(b_eps, b_delta, _now(), "created", 0)]
            self._write(entries, budgets, "; nothing was drawn")
            try:
                yield
            except Exception as exc:  # charged, and the release failed: the message says so (never silently)
                note = (f"the ledger {self._name()} was charged for this release (epsilon {_exact(float(epsilon))}, "
                        f"delta {_exact(float(delta or 0.0))}; total now ({_exact(eps)}, {_exact(dlt)})-DP)")
                if isinstance(exc, InputError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
                    exc.args = (f"{exc.args[0]}; {note}",)
                else:
                    exc.add_note(note)
                raise

    def create(self) -> None:
        """Create the ledger with the given budget, before any release (``dpposterior ledger create``); on a
        ledger older than stored budgets, record that budget (the file becomes ``dpposterior-ledger/2``).

        A ledger that already stores this budget is left as it is; one with another budget is refused."""
        if self._given is None:
            raise InputError("creating a ledger needs a budget: Ledger(path, budget=...)")
        if self._create_act(self._read()) is None:  # refusals and the no-op decided before the lock is taken
            return
        with self._locked():
            state = self._read()
            act = self._create_act(state)
            if act is None:
                return
            self._write(state.entries, [BudgetRecord(*self._given, _now(), act, len(state.entries))])

    def _create_act(self, state: _State) -> str | None:
        """What :meth:`create` does to ``state``: ``"created"`` (no file yet), ``"recorded"`` (an old ledger whose
        releases fit the budget) or None (it already stores this budget); refused otherwise: another stored
        budget, or an old ledger whose releases already spent more than the budget (a ledger past its own
        budget on its creation)."""
        self._check_budget(state)
        if state.budget is not None:
            return None
        if not state.legacy:
            return "created"
        eps, delta = _totals(state.entries, self.path)
        b_eps, b_delta = self._given
        if eps > b_eps * (1 + TOLERANCE) or delta > b_delta * (1 + TOLERANCE):
            raise LedgerError(f"the ledger {self._name()} has already spent ({_exact(eps)}, {_exact(delta)})-DP in "
                              f"{len(state.entries)} release(s), more than the budget {_pair(self._given)}: record "
                              "a budget at least as large as what was spent; it was left as it is")
        return "recorded"

    def raise_budget(self, budget: float | tuple[float, float]) -> None:
        """Raise the stored budget to ``budget`` (``dpposterior ledger raise``): an explicit act, recorded in the
        file with its time and the number of releases before it.  Neither component may go down, and one must
        go up; afterwards this object's budget is the new one (docs/definitions.md §9, "Ledger")."""
        new = budget_arg(budget)
        self._check_raise(self._read(), new)  # a refusal before the lock: a missing ledger gains no FILE.lock
        with self._locked():
            state = self._read()
            self._check_raise(state, new)
            self._write(state.entries, [*state.budgets, BudgetRecord(*new, _now(), "raised", len(state.entries))])
            self._given = new

    def _check_raise(self, state: _State, new: tuple[float, float]) -> None:
        """Refuse raising ``state``'s budget to ``new``: no recorded budget, or a raise that lowers a part of it or
        changes nothing."""
        if state.raw is None or state.legacy:
            raise LedgerError(f"the ledger {self._name()} has no recorded budget to raise: create it first "
                              f"with: dpposterior ledger create {shown_name(shlex.quote(str(self.path)))} "
                              "--budget EPS[,DELTA]")
        old = state.budget
        if new[0] < old[0] or new[1] < old[1] or new == old:
            raise LedgerError(f"a raise must not lower either part of the budget and must change one: the "
                              f"ledger {self._name()} has {_pair(old)}, got {_pair(new)}")

    def _write(self, entries: list[Entry], budgets: list[BudgetRecord], after: str = "") -> None:
        doc = {"format": FORMAT, "note": "settings of each release only, never data",
               "budgets": [b.as_dict() for b in budgets], "entries": [e.as_dict() for e in entries]}
        folder = self.real.parent

        def failed(exc: OSError) -> LedgerError:
            return LedgerError(f"cannot write the ledger {self._name()}: {exc.strerror or exc}; "
                               f"it was left as it is{after}")

        try:
            fd, tmp = tempfile.mkstemp(prefix="." + self.real.name + ".", suffix=".tmp", dir=folder)
        except OSError as exc:
            raise failed(exc) from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1, allow_nan=False)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.real)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise failed(exc) from None
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        with contextlib.suppress(OSError):  # the rename itself durable: best effort (not every file system)
            dfd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number")


def _record(obj: object) -> dict:
    if not isinstance(obj, dict):
        raise TypeError("an entry that is not an object")
    return obj


def _num(obj: dict, key: str) -> float:
    """A finite number >= 0 (epsilon) or in [0, 1) (delta) from a parsed entry; a bool or a text is corrupt."""
    v = obj[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{key} is not a number")
    f = float(v)  # an int past a float's range: OverflowError, caught as corruption
    if not math.isfinite(f) or f < 0 or (key == "delta" and f >= 1):
        raise ValueError(f"{key} out of range")
    return f


def _text(obj: dict, key: str, default: str | None = None) -> str:
    v = obj.get(key, default) if default is not None else obj[key]
    if not isinstance(v, str):
        raise TypeError(f"{key} is not a string")
    return v


def _totals(entries: list[Entry], path: Path) -> tuple[float, float]:
    """Basic composition of ``entries``; a sum that overflows or is not finite is a corrupt ledger."""
    try:
        eps, delta = math.fsum(e.epsilon for e in entries), math.fsum(e.delta for e in entries)
    except OverflowError:
        eps = delta = math.inf
    if not (math.isfinite(eps) and math.isfinite(delta)):
        raise LedgerError(f"the ledger {str(path)!r} is not a dpposterior ledger or is corrupt (its total "
                          "overflows); it was left as it is")
    return eps, delta


def composed_epsilon(entries: list[Entry], delta: float) -> float | None:
    """The epsilon at total ``delta`` of the composition of the entries' (eps, delta)-DP privacy-loss
    distributions (dp-accounting; docs/definitions.md §9, "Ledger"), or None when no entry has a delta or
    dp-accounting is not installed."""
    if not entries or not any(e.delta for e in entries):
        return None
    try:
        # optional: the "accounting" extra (pip install "dpposterior[accounting]"); basic composition otherwise
        from dp_accounting.pld import common
        from dp_accounting.pld import privacy_loss_distribution as pld_module
    except ImportError:
        return None
    pld = None
    for e in entries:
        one = pld_module.from_privacy_parameters(common.DifferentialPrivacyParameters(e.epsilon, e.delta))
        pld = one if pld is None else pld.compose(one)
    return float(pld.get_epsilon_for_delta(delta))
