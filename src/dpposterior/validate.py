"""The one validation layer: every argument a user gives is checked here (docs/definitions.md §1 ranges).

Each validator takes a Python value (the API) and returns it in canonical form, or raises
:class:`~dpposterior.errors.InputError` with **one line** naming the argument, the value
and the accepted range.  The command line parses its text with :func:`parse_number`,
:func:`parse_int` and :func:`parse_list` and then calls the same validators, so the CLI,
the config check and the API accept exactly the same inputs.

Types are strict: a ``bool`` is never a number, a float is an integer only when it is
integral (``4.0``, not ``4.5``), strings are never numbers (outside the ``parse_*`` helpers),
and every number must be finite.

Documented ranges (module constants)
------------------------------------
``MAX_TOTAL = 2**53 - 1``
    Largest data-set size n (sum of the counts).  Every count, every ``n + 1`` and every
    candidate count is then an exact float64 integer, so sensitivities and distances never
    see a rounded count (above 2^53, ``c + 1 == c`` and the local sensitivity rounds to 0).
    Sums are taken over Python ints, never int64, so oversized input is reported, not wrapped.
``MIN_PRIOR = 1e-12``, ``MAX_PRIOR = 1e9``
    Dirichlet parameters.  Down to 1e-12 every lnGamma difference the package takes is
    written without the cancellation ``(a + 1) - 1`` (see :mod:`dpposterior.sensitivity`),
    so every mechanism is finite and NaN-free with zero counts (tested at 1e-12 and 1e6).
    Below 1e-16, ``a + 1 == 1`` in float64 and the posterior of an empty category would
    no longer differ from the prior, hence the margin.  Up to 1e9 the Hellinger distance
    keeps its accuracy (the midpoint series of :mod:`dpposterior.distances`).
``MIN_EPSILON = 1e-6``, ``MAX_EPSILON = 1e3``
    Beyond e^1000 every output but the mode has probability below 1e-300 (no privacy
    left to speak of); below 1e-6 the output is uniform to within 1e-6 (no utility), and
    the samplers' bands and Laplace scales stay far from overflow at both ends.
``MIN_DELTA = 1e-300 < delta < 1``; ``MIN_GAMMA = 1e-6 <= gamma <= MAX_GAMMA = 1e6``;
``0 < level < 1``; seeds ``0 <= seed < 2**128``; ``MAX_EPS_PRIME = 700`` (``exp`` stays finite).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from decimal import Decimal
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import InputError

MAX_TOTAL = 2**53 - 1
MIN_PRIOR = 1e-12
MAX_PRIOR = 1e9
MIN_EPSILON = 1e-6
MAX_EPSILON = 1e3
MIN_DELTA = 1e-300
MIN_GAMMA = 1e-6
MAX_GAMMA = 1e6
MAX_EPS_PRIME = 700.0
MAX_SEED = 2**128 - 1
MIN_SAMPLES = 100
MAX_SAMPLES = 10**12
MAX_EVENTS = 10_000
MAX_CATEGORIES = 100_000


def _show(value: object) -> str:
    """A short one-line rendering of a bad value for an error message."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's 4300-digit str limit
        text = f"<a {type(value).__name__} too long to show>"
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _exact(v: float) -> str:
    """A float as short as possible but never rounded to a value in range (1000.0000001 stays itself)."""
    return f"{v:g}" if float(f"{v:g}") == v else repr(v)


#: ints up to this many digits are written out in full in a range message when the short form would round them
MAX_EXACT_DIGITS = 30


def _exact_int(v: int) -> str:
    """An int for a range message: :func:`_big`'s short form when it is exact (``1e+12``), else every digit up to
    :data:`MAX_EXACT_DIGITS` (``9007199254740992``, not ``9.01e+15``), else the short form (a 600-digit int)."""
    short = _big(v)
    if abs(v) >= 10**MAX_EXACT_DIGITS:
        return short
    try:
        if float(short) == v and int(float(short)) == v:
            return short
    except ValueError:
        pass
    return str(v)


def _is_number(value: object) -> bool:
    return isinstance(value, (Real, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _real(value: object) -> float:
    """``float(value)`` of a number (:func:`_is_number`); a value too large for a float becomes ``inf`` (so the
    caller's range check refuses it in one line) instead of an ``OverflowError`` (a 400-digit int, a Fraction)."""
    try:
        return float(value)
    except OverflowError:
        try:
            return -math.inf if value < 0 else math.inf
        except Exception:  # noqa: BLE001 - a number that cannot be compared: no sign, still refused
            return math.inf
    except (TypeError, ValueError, ArithmeticError):
        return math.nan


def choice(value: object, options, name: str) -> str:
    """One of ``options`` (strings): a str (numpy ``str_`` is one) equal to an option, else one-line InputError.

    Membership is tested only on a str, so a numpy array (whose ``==`` broadcasts) never reaches it.
    """
    if not isinstance(value, str) or value not in options:
        raise InputError(f"{name} must be one of {', '.join(options)}, got {_show(value)}")
    return str(value)


# ---------------------------------------------------------------------------------------------
# scalars


def number(value: object, name: str, lo: float | None = None, hi: float | None = None, *,
           lo_open: bool = False, hi_open: bool = False, desc: str = "a number", span: str | None = None) -> float:
    """A finite real number (not a bool, not a string) in ``[lo, hi]`` (``(lo`` / ``hi)`` when open).

    Messages read ``<name> must be <desc> in <span>, got <value>``.
    """
    if span is None:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        span = f"{left}{'-inf' if lo is None else _exact(lo)}, {'inf' if hi is None else _exact(hi)}{right}"
    where = f"{name} must be {desc + ' ' if desc else ''}in {span}"
    if not _is_number(value):
        raise InputError(f"{name} must be {desc or 'a number'} in {span}, got {_show(value)}")
    try:
        v = float(value)
    except OverflowError:
        raise InputError(f"{where}, got {_show(value)}") from None
    if not math.isfinite(v):
        raise InputError(f"{where} (finite), got {_show(value)}")
    if lo is not None and (v < lo or (lo_open and v == lo)):
        raise InputError(f"{where}, got {_exact(v)}")
    if hi is not None and (v > hi or (hi_open and v == hi)):
        raise InputError(f"{where}, got {_exact(v)}")
    return v


def integer(value: object, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer in ``[lo, hi]``: an int, a numpy integer, or an integral finite float (never a bool)."""
    span = f"[{'-inf' if lo is None else lo}, {'inf' if hi is None else _exact_int(hi)}]"
    if not _is_number(value):
        raise InputError(f"{name} must be an integer in {span}, got {_show(value)}")
    if isinstance(value, (Integral, np.integer)):
        v = int(value)
    else:
        f = _real(value)
        if not math.isfinite(f) or not f.is_integer():
            raise InputError(f"{name} must be an integer in {span}, got {_show(value)}")
        v = int(f)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise InputError(f"{name} must be an integer in {span}, got {_exact_int(v)}")
    return v


def _big(v: int | float) -> str:
    """``v`` for a message: exact below 10^7, else 3 significant digits, at any size (10^600 too)."""
    if isinstance(v, float):
        return f"{v:.3g}"
    if abs(v) < 10**7:
        return str(v)
    if abs(v) < 10**300:
        return f"{v:.3g}"
    return ("-" if v < 0 else "") + scientific(abs(v), 2)


def scientific(v: int, decimals: int) -> str:
    """A positive int of any size as ``m.mme+X`` with ``decimals`` digits after the point.

    The exponent comes from :func:`math.log10` of the exact int (never ``str()``, which refuses
    more than 4300 digits, nor ``float()``, which overflows); a mantissa that rounds to 10 moves
    to the next power (``999e4997`` -> ``1.0e+5000``).
    """
    exponent = math.log10(v)
    whole = math.floor(exponent)
    mantissa = round(10 ** (exponent - whole), decimals)
    if mantissa >= 10:
        mantissa, whole = mantissa / 10, whole + 1
    return f"{mantissa:.{decimals}f}e+{whole}"


def count_text(x: int) -> str:
    """A non-negative int for a message: ``12,507,501``, or ``~1.2e+600`` past 15 digits.

    Works for ints of any size (:func:`scientific`).
    """
    return f"{x:,}" if x < 10**15 else "~" + scientific(x, 1)


def approx_count_text(x: int) -> str:
    """An estimated count for a message, with one ``~``: ``~12,507,501`` or ``~1.2e+600`` (:func:`count_text`)."""
    text = count_text(x)
    return text if text.startswith("~") else "~" + text


def estimate_text(x: float) -> str:
    """An estimated amount for a message (seconds, megabytes), rounded to a whole number, with one ``~``: ``~55``,
    ``~400,336`` or ``~1.8e+37`` (:func:`approx_count_text`); ``~inf`` past float range."""
    return approx_count_text(int(round(x))) if math.isfinite(x) else "~inf"


big_number = _big


def positive(value: object, name: str) -> float:
    """A finite number > 0 (a weight, a scale, a bound's parameter, ...)."""
    return number(value, name, 0.0, None, lo_open=True, desc="a positive number", span="(0, inf)")


def open_unit(value: object, name: str) -> float:
    """A number strictly between 0 and 1."""
    return number(value, name, 0.0, 1.0, lo_open=True, hi_open=True, desc="", span="(0, 1)")


def epsilon(value: object, name: str = "epsilon") -> float:
    """The privacy parameter, in ``[MIN_EPSILON, MAX_EPSILON]`` (module docstring)."""
    return number(value, name, MIN_EPSILON, MAX_EPSILON, desc="a positive number")


def delta(value: object, name: str = "delta") -> float:
    """delta of (eps, delta)-DP, in ``[MIN_DELTA, 1)``."""
    return number(value, name, MIN_DELTA, 1.0, hi_open=True, desc="",
                  span=f"(0, 1) (at least {MIN_DELTA:g})")


def gamma(value: object, name: str = "gamma") -> float:
    """The smoothing parameter gamma, in ``[MIN_GAMMA, MAX_GAMMA]``."""
    return number(value, name, MIN_GAMMA, MAX_GAMMA, desc="a positive number")


def eps_prime(value: object, name: str = "delta_at") -> float:
    """The eps' of a privacy profile ``delta(eps')``, in ``[0, MAX_EPS_PRIME]``."""
    return number(value, name, 0.0, MAX_EPS_PRIME)


def delta_at(value: object, name: str = "delta_at") -> float | None:
    """An optional eps' at which an audit also bounds ``delta(eps')``: None, or a number in ``[0, MAX_EPS_PRIME]``."""
    if value is None:
        return None
    return number(value, name, 0.0, MAX_EPS_PRIME, desc="a number >= 0")


def audit_samples(value: object, name: str = "samples") -> int:
    """Samples per side of an audit, from :data:`MIN_SAMPLES` to :data:`MAX_SAMPLES` (half select events,
    half evaluate them)."""
    s = integer(value, name)  # type and integrality first ("must be an integer ...")
    if s < MIN_SAMPLES:
        raise InputError(f"{name} must be >= {MIN_SAMPLES} per side (half select events, half evaluate them), "
                         f"got {s}")
    return sample_count(s, name, MIN_SAMPLES, MAX_SAMPLES)


def events(value: object, name: str = "n_events") -> int:
    """The number K of events an audit carries to its evaluation half (1 to :data:`MAX_EVENTS`)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not 1 <= value <= MAX_EVENTS:
        raise InputError(f"{name} must be a positive integer at most {MAX_EVENTS}, got {value!r}")
    return int(value)


def level(value: object, name: str = "confidence") -> float:
    """A confidence level in (0, 1)."""
    return open_unit(value, name)


def size(value: object, name: str = "n") -> int:
    """A data-set size ``1 <= n <= MAX_TOTAL``."""
    try:
        return integer(value, name, 1, MAX_TOTAL)
    except InputError:
        raise InputError(f"{name} must be a positive integer at most 2^53 - 1 = {MAX_TOTAL}, "
                         f"got {_show(value)}") from None


def sample_count(value: object, name: str = "size", lo: int = 0, hi: int = MAX_SAMPLES) -> int:
    """A number of draws ``lo <= size <= hi`` (an integer: ``1.5`` draws is an error, not one draw)."""
    try:
        return integer(value, name, lo, hi)
    except InputError:
        raise InputError(f"{name} must be >= {lo}, an integer at most {_exact_int(hi)}; got {_show(value)}") from None


def seed(value: object, name: str = "seed") -> int:
    """A seed ``0 <= seed <= MAX_SEED``."""
    try:
        return integer(value, name, 0, MAX_SEED)
    except InputError:
        raise InputError(f"{name} must be a non-negative integer below 2^128, got {_show(value)}") from None


# ---------------------------------------------------------------------------------------------
# vectors


def _flat(value: object, name: str, what: str) -> list:
    if isinstance(value, (str, bytes)):
        raise InputError(f"{name} must be a list of {what}, got the string {_show(value)}")
    if isinstance(value, (Mapping, AbstractSet)):  # a dict's keys, a set's order: not a list of values
        raise InputError(f"{name} must be a list of {what} in category order, got a {type(value).__name__}")
    if type(value).__name__ == "DataFrame" or (hasattr(value, "columns") and hasattr(value, "iloc")):
        # iterating a DataFrame gives its column labels, not its values
        raise InputError(f"{name} must be a flat list of {what} (a list, tuple, numpy array or pandas Series), "
                         f"got a DataFrame; pass one row or column, e.g. df.iloc[0] or df['column']")
    if np.ma.isMaskedArray(value):
        raise InputError(f"{name} must be a flat list of {what}, got a masked array (fill or drop the masked entries)")
    if not isinstance(value, (list, tuple, np.ndarray)) and hasattr(value, "__array__"):
        try:  # a pandas Series or Index, an xarray: its values, by the ndarray rule below
            value = np.asarray(value)
        except (TypeError, ValueError):
            raise InputError(f"{name} must be a flat list of {what}, got {_show(type(value).__name__)}") from None
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise InputError(f"{name} must be a flat list of {what}, got shape {value.shape}")
        return value.tolist()
    if not isinstance(value, (Sequence, np.ndarray)) and not hasattr(value, "__array__") \
            and not hasattr(value, "__iter__"):
        raise InputError(f"{name} must be a list of {what}, got {_show(value)}")
    try:
        items = list(value)
    except TypeError:
        raise InputError(f"{name} must be a list of {what}, got {_show(value)}") from None
    for x in items:
        if isinstance(x, (list, tuple, np.ndarray)):
            raise InputError(f"{name} must be a flat list of {what}")
    return items


def counts(value: ArrayLike, name: str = "counts", k: int | None = None, n: int | None = None) -> NDArray[np.int64]:
    """A count vector (docs/definitions.md §1): ``k >= 2`` non-negative integers with ``1 <= sum <= MAX_TOTAL``.

    Integral floats are accepted (a count read as ``4.0``), ``4.5``, NaN and bools are not.  The
    sum is a Python int (no int64 wrap-around).  Messages name the position, never a count
    (counts are data).  ``k``/``n``: required number of categories / total.
    """
    items = _flat(value, name, "integers")
    if len(items) < 2:
        raise InputError(f"{name} needs at least 2 categories, got {len(items)}")
    if len(items) > MAX_CATEGORIES:
        raise InputError(f"{name} has {len(items)} categories, more than the {MAX_CATEGORIES} accepted")
    out = []
    for i, x in enumerate(items):
        if not _is_number(x):
            raise InputError(f"{name} must be integers (entry {i + 1} is not a number)")
        if isinstance(x, (Integral, np.integer)):
            v = int(x)
        else:
            f = _real(x)
            if not math.isfinite(f) or not f.is_integer():
                raise InputError(f"{name} must be integers (entry {i + 1} is not an integer)")
            v = int(f)
        if v < 0:
            raise InputError(f"{name} must be non-negative integers (entry {i + 1} is negative)")
        if v > MAX_TOTAL:
            raise InputError(f"{name} must sum to at most 2^53 - 1 = {MAX_TOTAL} (entry {i + 1} is larger)")
        out.append(v)
    total = sum(out)
    if total < 1:
        raise InputError(f"{name} must contain at least one record (sum >= 1)")
    if total > MAX_TOTAL:
        raise InputError(f"{name} must sum to at most 2^53 - 1 = {MAX_TOTAL} (exact float64 integers)")
    if k is not None and len(out) != k:
        raise InputError(f"{name} must have {k} categories, got {len(out)}")
    if n is not None and total != n:
        raise InputError(f"{name} must sum to n = {n}")
    return np.array(out, dtype=np.int64)


def prior(value: ArrayLike, k: int | None = None, name: str = "prior") -> NDArray[np.float64]:
    """A Dirichlet prior ``a`` (docs/definitions.md §1).

    At least 2 finite numbers in ``[MIN_PRIOR, MAX_PRIOR]``; length k if given.
    """
    items = _flat(value, name, "positive numbers")
    if len(items) < 2:
        raise InputError(f"{name} must be a list of at least 2 positive numbers, got {len(items)}")
    if len(items) > MAX_CATEGORIES:
        raise InputError(f"{name} has {len(items)} entries, more than the {MAX_CATEGORIES} accepted")
    out = []
    for i, x in enumerate(items):
        if not _is_number(x):
            raise InputError(f"{name} must be positive numbers (entry {i + 1} is {_show(x)})")
        v = _real(x)
        if not math.isfinite(v):
            raise InputError(f"{name} must be finite numbers in [{MIN_PRIOR:g}, {MAX_PRIOR:g}] "
                             f"(entry {i + 1} is {_show(x)})")
        if v <= 0:
            raise InputError(f"{name} must be > 0 in every category (entry {i + 1} is {v!r}); "
                             f"accepted: [{MIN_PRIOR:g}, {MAX_PRIOR:g}]")
        if not (MIN_PRIOR <= v <= MAX_PRIOR):
            raise InputError(f"{name} entries must be in [{MIN_PRIOR:g}, {MAX_PRIOR:g}] (entry {i + 1} is {_exact(v)})")
        out.append(v)
    if k is not None and len(out) != k:
        raise InputError(f"{name} has {len(out)} entries but the counts have {k} categories")
    return np.array(out, dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# text from the command line and the config


#: a number as the command line accepts it: ASCII digits, an optional sign, decimal point and exponent
#: (``12``, ``-0.5``, ``.5``, ``1e-3``, ``2.5E7``); no ``_`` separators, no other scripts' digits,
#: no ``inf`` / ``nan`` (Python's int() and float() accept all three)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_DIGITS = re.compile(r"[+-]?[0-9]+", re.ASCII)
#: longest number text read (int() refuses more than 4300 digits; no valid input is near this)
MAX_NUMBER_CHARS = 4000
#: an exponent form (``1e6``) is an integer only when exact and at most this (every such int is a float64)
MAX_EXPONENT_INT = 2**53


def _plain(text: str, name: str) -> str:
    """``text`` without surrounding spaces and tabs, if it is a plain ASCII decimal number; else InputError."""
    t = text.strip(" \t")
    if len(t) > MAX_NUMBER_CHARS:
        raise InputError(f"{name} must be a number of at most {MAX_NUMBER_CHARS} characters, got {len(t)}")
    if not t or not _DECIMAL.fullmatch(t):
        raise InputError(f"{name} must be a number written in ASCII decimal (e.g. 12, 0.5, 1e-3), got {_show(text)}")
    return t


def parse_number(text: object, name: str) -> object:
    """A number written as text in plain ASCII decimal: an int when written in digits only (``'12'``,
    exact at any length), else a float (``'0.5'``, ``'1e-3'``).

    Surrounding spaces and tabs are ignored; ``_`` separators, other scripts' digits, ``inf`` and
    ``nan`` and texts over ``MAX_NUMBER_CHARS`` characters raise :class:`InputError` (one line).
    A value that is not a string is returned unchanged, for the validators to report.
    """
    if not isinstance(text, str):
        return text
    t = _plain(text, name)
    return int(t) if _DIGITS.fullmatch(t) else float(t)


def parse_int(text: object, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer written as text, checked by :func:`integer` against ``[lo, hi]``.

    Digits (``'-12'``, ``'4000'``) are read exactly; a decimal or exponent form (``'4.0'``, ``'1e3'``,
    ``'2.5e7'``) only when it is an exact integer of at most 2^53 (``'1e30'`` is refused rather than
    rounded to 1000000000000000019884624838656).  A value that is not a string goes to
    :func:`integer` as it is.
    """
    if not isinstance(text, str):
        return integer(text, name, lo, hi)
    t = _plain(text, name)
    if _DIGITS.fullmatch(t):
        return integer(int(t), name, lo, hi)
    d = Decimal(t)
    if abs(d) > MAX_EXPONENT_INT or d != d.to_integral_value():
        raise InputError(f"{name} must be an integer (written in digits, or an exact integer of at most 2^53 such as "
                         f"1e6), got {_show(text)}")
    return integer(int(d), name, lo, hi)


def parse_list(text: object, name: str) -> list:
    """Comma-separated numbers (``'1,1'``, ``'0.5, 2'``), each read by :func:`parse_number`."""
    if not isinstance(text, str):
        raise InputError(f"{name} must be comma-separated numbers, got {_show(text)}")
    parts = text.split(",")
    if any(p.strip(" \t") == "" for p in parts):
        raise InputError(f"{name} must be comma-separated numbers with no empty entry, got {_show(text)}")
    try:
        return [parse_number(p, name) for p in parts]
    except InputError:
        raise InputError(f"{name} must be comma-separated numbers written in ASCII decimal (e.g. 1,0.5,2e3), "
                         f"got {_show(text)}") from None


# ---------------------------------------------------------------------------------------------
# arrays (the vectorised functions: one count vector or many, over the last axis)


def count_array(value: ArrayLike, name: str = "counts") -> NDArray[np.int64]:
    """Count vectors over the last axis (one, or many stacked): non-negative integers, ``k >= 2``,
    every total at most ``MAX_TOTAL`` (checked without int64 wrap-around).  Integral floats pass.

    A single vector goes through :func:`counts` (exact Python-int checks); stacked arrays are
    checked elementwise and their totals in float64 against ``MAX_TOTAL`` (each entry is at most
    ``MAX_TOTAL`` first, so no sum wraps).
    """
    if not isinstance(value, np.ndarray) or value.ndim <= 1:
        if isinstance(value, np.ndarray) or not (isinstance(value, (list, tuple))
                                                 and value and isinstance(value[0], (list, tuple, np.ndarray))):
            return counts(value, name)
    if _has_bool(value):
        raise InputError(f"{name} must be count vectors of integers, not bools")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        raise InputError(f"{name} must be an array of count vectors of one length") from None
    if arr.dtype == object or arr.dtype.kind not in "iuf" or arr.ndim < 1 or arr.shape[-1] < 2:
        raise InputError(f"{name} must be count vectors of at least 2 integers (last axis), got shape {arr.shape} "
                         f"of {arr.dtype}")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all() or (arr != np.floor(arr)).any():
            raise InputError(f"{name} must be integers")
    if (arr < 0).any():
        raise InputError(f"{name} must be non-negative integers")
    if (arr > MAX_TOTAL).any() or (arr.sum(axis=-1, dtype=np.float64) > MAX_TOTAL).any():
        raise InputError(f"{name} must sum to at most 2^53 - 1 = {MAX_TOTAL} (exact float64 integers)")
    return arr.astype(np.int64, copy=False)


def _has_bool(value: object) -> bool:
    """A bool anywhere in nested lists / tuples (numpy turns ``[True, 2]`` into integers silently)."""
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_bool(v) for v in value)
    return False


def parameter_array(value: ArrayLike, name: str) -> NDArray[np.float64]:
    """Dirichlet parameters over the last axis (one vector or many): finite and > 0, at least 2 per vector."""
    if isinstance(value, (str, bytes, dict, set)) or _has_bool(value):
        raise InputError(f"{name} must be Dirichlet parameters (positive numbers, not bools), got {_show(value)}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        raise InputError(f"{name} must be an array of Dirichlet parameters of one length") from None
    if arr.dtype == object or arr.dtype.kind not in "iuf" or arr.ndim < 1 or arr.shape[-1] < 2:
        raise InputError(f"{name} must be Dirichlet parameters: at least 2 positive numbers (last axis), "
                         f"got {_show(value)}")
    arr = arr.astype(np.float64, copy=False)
    if not np.isfinite(arr).all() or (arr <= 0).any():
        raise InputError(f"{name} must be finite positive numbers (Dirichlet parameters)")
    return arr


def same_length(x: NDArray, y: NDArray, xname: str, yname: str) -> None:
    """Two stacks of vectors must have the same last axis and broadcastable leading axes."""
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise InputError(f"{xname} and {yname} must have the same number of categories (shapes {x.shape} and "
                         f"{y.shape})") from None
