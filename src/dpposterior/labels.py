"""Category labels: records counted into a fixed public category list, and the labels of a pandas Series kept.

The categories of a release are public (docs/definitions.md §1: the data are counts over k fixed categories);
what is private is which record falls in which.  :func:`count` counts records into a category list given by the
practitioner, in that order, and what happens to a value outside the list (``unknown``) or a missing value
(``missing``: None, NaN, pandas' NA or a blank string) is a policy chosen in advance from the public list alone:

- ``"error"`` (the default): refuse, naming neither the value nor how many (they are data);
- ``"drop"``: leave such records out.  The size n then counts only the records kept, and n is public: a release
  publishes it exactly (docs/definitions.md §1);
- ``"map:NAME"``: count such records in the category NAME of the list (e.g. ``"map:other"``); like OpenDP's
  ``null_category`` or a Tumult KeySet, the list never grows with the data.

The command line's ``--unknown`` and ``--missing`` (``dpposterior release --data``) are the same policies, read
by the same code (:func:`policy`, :func:`tally`).

:func:`aligned` carries labels through :func:`dpposterior.release`: a pandas Series' index (anything but the
default ``0..k-1``) names its categories; an explicit ``categories=`` either names them in the same order, or in
another order of the same names (the Series is then reordered by name, as asked), and is refused otherwise: a
vector is never reordered silently.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InputError, shown_name

__all__ = ["Policy", "aligned", "categories_of", "count", "labels_of", "policy", "tally"]

#: how a policy is spelled, for messages
POLICY_FORMS = "'error', 'drop' or 'map:NAME'"


@dataclass(frozen=True)
class Policy:
    """What to do with a record outside the category list or missing: ``action`` is ``"error"``, ``"drop"``
    or ``"map"`` (then ``target`` is the category it counts in)."""

    action: str
    target: Hashable | None = None


def _is_pandas(value: Any, kind: str) -> bool:
    return type(value).__module__.startswith("pandas") and type(value).__name__ == kind


def _is_missing(value: Any) -> bool:
    """None, a float NaN, pandas' NA or NaT, or a blank string: a record with no category."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return True
    try:
        return bool(value != value)  # NaN, NaT and pandas' NA (whose comparison is NA, bool() raises)
    except TypeError:
        return True
    except ValueError:  # an array compares elementwise: a value, if not a hashable one
        return False


def categories_of(categories: Iterable[Hashable], k: int | None = None, name: str = "categories") -> tuple:
    """A category list (docs/definitions.md §1): an ordered collection of distinct names, none missing, ``k`` of
    them when given.

    An unordered collection (a ``set``, a ``frozenset``, any :class:`collections.abc.Set` but a dict's keys) is
    refused: its order is the hash order, which changes from one process to the next (``PYTHONHASHSEED``), and the
    order of the categories is the order of the counts.  ``sorted(s)`` or a list gives the order explicitly.
    """
    if isinstance(categories, str) or _is_pandas(categories, "DataFrame"):
        raise InputError(f"{name} must be a list of category names, e.g. ['no', 'yes']")
    if isinstance(categories, AbstractSet) and not isinstance(categories, type({}.keys())):
        raise InputError(f"{name} must be an ordered list, not a {type(categories).__name__}: a set's order changes "
                         f"from one process to the next; give the order, e.g. {name}=sorted(...) or a list")
    try:
        cats = tuple(categories)
        if any(_is_missing(c) for c in cats):
            raise InputError(f"{name} has a missing or empty category name")
        distinct = len(set(cats)) == len(cats)
    except TypeError:
        raise InputError(f"{name} must be a list of hashable category names, e.g. ['no', 'yes']") from None
    if not distinct:
        mixed = any(isinstance(c, (bool, np.bool_)) for c in cats)
        raise InputError(f"{name} has duplicates" + (" (Python counts True as equal to 1 and False to 0: name the "
                                                     "categories apart, e.g. 'yes' and 'no')" if mixed else ""))
    if k is not None and len(cats) != k:
        raise InputError(f"{name} names {len(cats)} categories, but there are {k} counts")
    return cats


def policy(value: str | None, categories: Sequence[Hashable] | None, name: str) -> Policy:
    """One policy for values outside the category list or missing (docs/definitions.md §1: the list is public):
    ``"error"`` (or None), ``"drop"`` or ``"map:NAME"``.

    NAME is everything after ``map:``, exactly as given (no space is stripped), in Python as on the command line:
    it names the category equal to it; failing that, the one category that is not a string and prints as NAME
    (``"map:3"`` names the category 3).  A NAME that names no category, or several, is refused."""
    if value is None or value == "error":
        return Policy("error")
    if value == "drop":
        return Policy("drop")
    if isinstance(value, str) and value.startswith("map:"):
        target = value[4:]
        given = f"{name} map:{shown_name(target)}"
        if categories is None:
            raise InputError(f"{given} needs the category list (--categories) that names {target!r}")
        named = [c for c in categories if isinstance(c, str) and c == target]
        if not named:
            named = [c for c in categories if not isinstance(c, str) and str(c) == target]
        if not named:
            raise InputError(f"{given}: {target!r} is not one of the categories (matched exactly as given)")
        if len(named) > 1:
            raise InputError(f"{given}: {target!r} prints as several categories; name the categories apart")
        return Policy("map", named[0])
    raise InputError(f"{name} must be {POLICY_FORMS}, got {value!r}")


class _Bool:
    """A boolean record or category as a key of its own: ``True`` matches the category ``True`` only, never the
    number 1 (Python's ``True == 1`` and ``hash(True) == hash(1)`` would count one as the other)."""

    __slots__ = ("value",)

    def __init__(self, value: bool):
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Bool) and other.value == self.value

    def __hash__(self) -> int:
        return hash((_Bool, self.value))


def _key(value: Any) -> Any:
    """The key a record or a category is matched by: itself, but a boolean (Python's or numpy's) apart from the
    numbers."""
    return _Bool(bool(value)) if isinstance(value, (bool, np.bool_)) else value


def tally(totals: Mapping[Hashable, int], missing: int, categories: Sequence[Hashable], unknown_policy: Policy,
          missing_policy: Policy, *, unknown_error: str, missing_error: str) -> list[int]:
    """Counts per category, in the order of ``categories``, of the records summarised by ``totals`` (count per
    value, missing values excluded) and ``missing`` (how many were missing), under the two policies: the count
    vector of docs/definitions.md §1.

    Missing values are dealt with first, then values outside the list; a refusal raises
    :class:`~dpposterior.errors.InputError` with the caller's message (which names no value and no count).
    """
    out = dict.fromkeys(categories, 0)
    if missing:
        if missing_policy.action == "error":
            raise InputError(missing_error)
        if missing_policy.action == "map":
            out[missing_policy.target] += missing
    for value, n in totals.items():
        if not n:
            continue
        if value in out:
            out[value] += n
        elif unknown_policy.action == "error":
            raise InputError(unknown_error)
        elif unknown_policy.action == "map":
            out[unknown_policy.target] += n
    return list(out.values())


def count(records: Iterable[Any], categories: Iterable[Hashable], *, unknown: str = "error",
          missing: str = "error"):
    """Count ``records`` into the public ``categories``, in that order: a pandas Series of counts indexed by the
    categories (docs/definitions.md §1; the policies are in this module's docstring).

    ``records``: an iterable of values, a pandas Series or one column of a DataFrame (a DataFrame is refused).
    Values match the categories exactly (``" yes"`` is not ``"yes"``; a boolean ``True`` is not the number 1, nor
    ``False`` 0, though Python compares them equal); a category no record has counts 0.  ``categories``: an ordered
    collection (a set is refused, :func:`categories_of`).
    ``unknown``, ``missing``: ``"error"`` (default), ``"drop"`` (n counts the records kept; n is public) or
    ``"map:NAME"``.  Messages never show a record's value or a count.
    """
    import pandas as pd  # local: pandas takes ~0.5 s to import

    cats = categories_of(categories)
    unknown_policy = policy(unknown, cats, "unknown")
    missing_policy = policy(missing, cats, "missing")
    if _is_pandas(records, "DataFrame"):
        raise InputError("records must be one column, not a DataFrame: pass e.g. df['answer']")
    if isinstance(records, (str, bytes)):
        raise InputError("records must be an iterable of values (e.g. a list or a pandas Series), not one string")
    try:
        values = records.astype(object) if _is_pandas(records, "Series") else pd.Series(list(records), dtype=object)
        absent = values.map(_is_missing).astype(bool)
        # matched by key: a boolean record is not the number 0 or 1 (nor a boolean category a number)
        totals = values[~absent].map(_key).value_counts(dropna=False, sort=False).to_dict()
    except TypeError:
        raise InputError("records must be an iterable of hashable values (e.g. a list or a pandas Series)") from None
    keys = [_key(c) for c in cats]
    counts = tally(totals, int(absent.sum()), keys, _keyed(unknown_policy), _keyed(missing_policy),
                   unknown_error="records have values not in categories (not shown: they are data); "
                                 "unknown='drop' or unknown='map:NAME' counts them otherwise",
                   missing_error="records have missing values (None, NaN or blank); "
                                 "missing='drop' or missing='map:NAME' counts them otherwise")
    return pd.Series(counts, index=pd.Index(list(cats)), dtype="int64", name="count")


def _keyed(p: Policy) -> Policy:
    return p if p.action != "map" else Policy("map", _key(p.target))


def labels_of(value: Any, name: str = "counts") -> tuple | None:
    """The category names (docs/definitions.md §1) of a pandas Series (its index), or None for any other vector
    and for a Series with the default index ``0..k-1``."""
    if not _is_pandas(value, "Series"):
        return None
    index = value.index
    if type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1:
        return None
    labels = tuple(index)
    if any(_is_missing(x) for x in labels):
        raise InputError(f"{name} has a missing label (NaN, None or blank) in its index: count records with "
                         "dp.count(records, categories=[...], missing=...)")
    if len(set(labels)) != len(labels):
        raise InputError(f"{name} has duplicate labels in its index")
    return labels


def _by_name(value: Any, labels: tuple | None, cats: tuple, name: str) -> Any:
    """``value`` in the order of ``cats``: as it is when unlabelled or labelled in that order, reordered by name
    when its labels are the same names in another order, refused otherwise."""
    if labels is None:
        return value
    names, wanted = [_key(x) for x in labels], [_key(c) for c in cats]  # a boolean label is not the number 0 or 1
    if names == wanted:
        return value
    if set(names) == set(wanted) and len(names) == len(wanted):
        return value.reindex(list(cats))
    raise InputError(f"the index of {name} names other categories than categories= (not shown: an index may come from "
                     "the data); count records into the public list with dp.count(records, categories=[...])")


def aligned(counts: Any, prior: Any, categories: Iterable[Hashable] | None = None) -> tuple[Any, Any, tuple | None]:
    """``(counts, prior, categories)`` with both vectors in the order of the categories (docs/definitions.md §1).

    The categories are ``categories`` if given, else the labels of ``counts`` (a pandas Series with a non-default
    index), else those of ``prior``, else None (an unlabelled release).  A labelled vector whose labels are the
    same names in another order is reordered by name; other names are refused; the number of categories must be
    the number of counts.
    """
    count_labels, prior_labels = labels_of(counts, "counts"), labels_of(prior, "prior")
    if categories is not None:
        cats = categories_of(categories)
    else:
        cats = count_labels if count_labels is not None else prior_labels
    if cats is None:
        return counts, prior, None
    counts = _by_name(counts, count_labels, cats, "counts")
    prior = _by_name(prior, prior_labels, cats, "prior")
    try:
        k = len(counts)
    except TypeError:
        return counts, prior, cats  # not a vector: refused by the validator of counts
    return counts, prior, categories_of(cats, k)
