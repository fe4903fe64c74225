"""A privacy budget across several releases of the same data: a ledger file (issue 23).

Without a ledger, nothing adds releases up: k releases of the same data at eps each cost k * eps
(basic composition), whatever each one says.  :class:`Ledger` keeps that account in a JSON file:

* an entry records **settings only** (mechanism, the claimed epsilon and delta, the time), never data;
* :meth:`Ledger.charge` adds one release's guarantee *atomically*: under an exclusive ``fcntl.flock``
  on ``FILE.lock``, it reads the file, checks the new total against the budget, writes a temporary
  file in the same folder and ``os.replace``-s it over the ledger;
* a release that would pass the budget is refused (:class:`BudgetExceeded`, one line) before
  anything is drawn, and the file is left byte-identical; so is a release with no guarantee;
* a ledger that cannot be read or parsed is an error (:class:`LedgerError`), never overwritten.

The total is basic composition (the sum of the epsilons and of the deltas), which decides the
budget.  When an entry has a delta, :meth:`Ledger.summary` also gives the composition of
dp-accounting's privacy-loss distributions (``from_privacy_parameters``), usually tighter; that
package is an optional extra (``pip install "dpposterior[accounting]"``) and is imported lazily.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import math
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from . import validate
from .errors import InputError

__all__ = ["BudgetExceeded", "Ledger", "LedgerError", "parse_budget"]

FORMAT = "dpposterior-ledger/1"


class LedgerError(InputError):
    """The ledger file cannot be read, parsed or written (it is never overwritten then)."""


class BudgetExceeded(InputError):
    """A release would take the ledger's total past its budget (refused before anything is drawn)."""


def parse_budget(text: str) -> tuple[float, float]:
    """``--budget EPS[,DELTA]``: the budget's epsilon and delta (default 0)."""
    parts = validate.parse_list(text, "budget")
    if len(parts) not in (1, 2):
        raise InputError(f"budget must be EPS or EPS,DELTA, got {len(parts)} values")
    eps = _positive(parts[0], "budget epsilon")
    delta = 0.0 if len(parts) == 1 else _unit(parts[1], "budget delta")
    return eps, delta


def _positive(value, name: str) -> float:
    v = validate.parse_number(value, name) if isinstance(value, str) else value
    return validate.positive(v, name)


def _unit(value, name: str) -> float:
    v = validate.parse_number(value, name) if isinstance(value, str) else value
    return validate.number(v, name, 0.0, 1.0, hi_open=True)


@dataclass(frozen=True)
class Entry:
    """One release's settings and claimed guarantee (never its data)."""

    mechanism: str
    epsilon: float
    delta: float
    time: str

    def as_dict(self) -> dict:
        return {"mechanism": self.mechanism, "epsilon": self.epsilon, "delta": self.delta, "time": self.time}


class Ledger:
    """A budget across releases of the same data, kept in ``path`` (module docstring).

    ``budget``: ``(epsilon, delta)`` or ``epsilon`` alone (delta 0).  The file is created by the first charge.
    """

    def __init__(self, path: str | os.PathLike, budget: float | tuple[float, float]):
        self.path = Path(path)
        if isinstance(budget, (tuple, list)):
            if len(budget) != 2:
                raise InputError("budget must be epsilon or (epsilon, delta)")
            self.budget = (_positive(budget[0], "budget epsilon"), _unit(budget[1], "budget delta"))
        else:
            self.budget = (_positive(budget, "budget epsilon"), 0.0)

    def __repr__(self) -> str:
        eps, delta = self.total()
        return (f"Ledger({str(self.path)!r}, budget=({self.budget[0]:g}, {self.budget[1]:g}), "
                f"spent=({eps:g}, {delta:g}) in {len(self.entries())} releases)")

    # -- reading ------------------------------------------------------------------------------

    def entries(self) -> list[Entry]:
        """The entries recorded so far (none if the file does not exist yet)."""
        return self._read()[1]

    def _read(self) -> tuple[bytes | None, list[Entry]]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None, []
        except OSError as exc:
            raise LedgerError(f"cannot read the ledger {str(self.path)!r}: {exc.strerror or exc}") from None
        try:
            doc = json.loads(raw.decode("utf-8"))
            if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("entries"), list):
                raise ValueError
            out = []
            for e in doc["entries"]:
                eps, delta = float(e["epsilon"]), float(e["delta"])
                if not (math.isfinite(eps) and eps >= 0 and 0 <= delta < 1):
                    raise ValueError
                out.append(Entry(str(e["mechanism"]), eps, delta, str(e.get("time", ""))))
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise LedgerError(f"the ledger {str(self.path)!r} is not a dpposterior ledger or is corrupt; "
                              "it was left as it is") from None
        return raw, out

    def total(self) -> tuple[float, float]:
        """Basic composition of the entries: ``(sum of epsilons, sum of deltas)``."""
        entries = self.entries()
        return math.fsum(e.epsilon for e in entries), math.fsum(e.delta for e in entries)

    def summary(self) -> str:
        """One line: releases, total by basic composition, and (when an entry has a delta and dp-accounting is
        installed) by dp-accounting's composition at the same total delta."""
        entries = self.entries()
        eps, delta = math.fsum(e.epsilon for e in entries), math.fsum(e.delta for e in entries)
        text = (f"ledger {self.path.name}: {len(entries)} release(s), total ({eps:g}, {delta:g})-DP by basic "
                f"composition, budget ({self.budget[0]:g}, {self.budget[1]:g})")
        at = max(delta, self.budget[1])  # the composition's epsilon at the budget's delta, where that is larger
        pld = composed_epsilon(entries, at)
        if pld is not None:
            text += f"; dp-accounting composition: ({pld:.4g}, {at:g})-DP"
        return text

    # -- charging -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        import fcntl  # POSIX; the ledger is for the machines the releases run on

        lock_path = self.path.with_name(self.path.name + ".lock")
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise LedgerError(f"cannot lock the ledger {str(self.path)!r}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    @contextlib.contextmanager
    def charge(self, mechanism: str, epsilon: float | None, delta: float | None) -> Iterator[None]:
        """Hold the lock, refuse a release past the budget, record it, then run the body (the draw).

        The entry is written *before* the body runs: a release whose draw then fails has still been
        charged (the conservative side).  A refusal raises before the body, the file untouched.
        """
        with self._locked():
            raw, entries = self._read()
            if epsilon is None:
                raise BudgetExceeded(f"mechanism {mechanism!r} has no privacy guarantee: the ledger cannot "
                                     "account for it")
            eps = math.fsum([*(e.epsilon for e in entries), epsilon])
            dlt = math.fsum([*(e.delta for e in entries), delta or 0.0])
            b_eps, b_delta = self.budget
            if eps > b_eps * (1 + 1e-12) or dlt > b_delta * (1 + 1e-12):
                raise BudgetExceeded(f"this release would take the ledger {self.path.name} to ({eps:g}, {dlt:g})-DP, "
                                     f"past its budget ({b_eps:g}, {b_delta:g}); nothing was drawn")
            now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
            entries.append(Entry(mechanism, float(epsilon), float(delta or 0.0), now))
            self._write(entries)
            yield

    def _write(self, entries: list[Entry]) -> None:
        doc = {"format": FORMAT, "note": "settings of each release only, never data",
               "entries": [e.as_dict() for e in entries]}
        folder = self.path.parent if str(self.path.parent) else Path(".")
        try:
            fd, tmp = tempfile.mkstemp(prefix="." + self.path.name + ".", suffix=".tmp", dir=folder)
        except OSError as exc:
            raise LedgerError(f"cannot write the ledger {str(self.path)!r}: {exc.strerror or exc}") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def composed_epsilon(entries: list[Entry], delta: float) -> float | None:
    """The epsilon at total ``delta`` of the composition of the entries' (eps, delta)-DP privacy-loss
    distributions (dp-accounting), or None when no entry has a delta or dp-accounting is not installed."""
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
