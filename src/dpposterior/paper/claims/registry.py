"""The claim kinds, each declared once: its keys (required and optional, with their types), the templates
whose items may use it, its rule and the verdict words the rule can give.

An item's ``claims:`` in ``config.yaml`` are checked against this registry at dry run (:func:`check`, called
by :func:`dpposterior.paper.config.check_all`), so an unknown kind, a missing or misspelled key, a value of the
wrong type or a kind used by an item of another template is one config-error line before any job runs. The
notebooks judge the claims with :func:`judge`, which dispatches on the same registry.

Adding a claim kind: one :func:`kind` call next to its rule (in :mod:`.accuracy`, :mod:`.pmf` or
:mod:`.sensitivity`, or a new module imported by the package's ``__init__``); the config may then use it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import verdicts as V
from ..errors import config_error


class Mechanism(str):
    """Key type: a mechanism id that the item's source experiment runs (checked by
    :func:`dpposterior.paper.config.check_claims`)."""


#: Key type of a number (YAML gives int or float; a bool is not a number here).
NUMBER = (int, float)


class NonNegative(float):
    """Key type: a number >= 0 (a tolerance: a negative one would decide the verdict before anything runs)."""


class Probability(float):
    """Key type: a number in [0, 1] (a recorded probability: one outside would decide the verdict before anything
    runs)."""

#: Every verdict word a rule may give (docs/pipeline.md, "Reading the verdicts").
WORDS = (V.REPRODUCED, V.PARTLY, V.NOT_REPRODUCED, V.WITHIN_NOISE, V.CONSISTENT, V.INCONSISTENT, V.NOT_REFUTED,
         V.BY_CONSTRUCTION, V.VACUOUS, V.CANNOT_CHECK, V.ANSWERED)

#: The keys every claim has.
COMMON = {"kind": str, "text": str}


@dataclass(frozen=True)
class Kind:
    """One claim kind of the catalogue's items (docs/definitions.md §7): ``required`` and ``optional`` map each key
    to its type (a type, a tuple of types, :class:`Mechanism`, or a tuple of allowed string values); ``rule(claim,
    ctx)`` returns the claim's verdict rows from the template's context ``ctx``; ``verdicts`` are the words the
    rule can give."""

    name: str
    templates: tuple[str, ...]
    rule: Callable
    verdicts: tuple[str, ...]
    required: dict = field(default_factory=dict)
    optional: dict = field(default_factory=dict)

    @property
    def keys(self) -> dict:
        return COMMON | self.required | self.optional

    @property
    def mechanism_keys(self) -> tuple[str, ...]:
        """The keys naming a mechanism of the item's source."""
        return tuple(k for k, t in self.keys.items() if t is Mechanism)


#: every claim kind by name, in the order they are declared
KINDS: dict[str, Kind] = {}


def kind(name: str, *, templates, verdicts, required=None, optional=None) -> Callable:
    """Declare the claim kind ``name`` with the decorated function as its rule (see :class:`Kind`; docs/definitions.md
    §7)."""

    def add(rule: Callable) -> Callable:
        if name in KINDS:
            raise ValueError(f"claim kind {name!r} is declared twice")
        unknown = set(verdicts) - set(WORDS)
        if unknown:
            raise ValueError(f"claim kind {name!r}: unknown verdict words {sorted(unknown)}")
        KINDS[name] = Kind(name, tuple(templates), rule, tuple(verdicts), dict(required or {}), dict(optional or {}))
        return rule

    return add


def kinds_of(template: str) -> list[str]:
    """The claim kinds an item of ``template`` may use (docs/definitions.md §7)."""
    return [k.name for k in KINDS.values() if template in k.templates]


def _type_name(t) -> str:
    if t is Mechanism:
        return "a mechanism id"
    if t is NUMBER:
        return "a number"
    if t is NonNegative:
        return "a number >= 0"
    if t is Probability:
        return "a probability in [0, 1]"
    if isinstance(t, tuple) and all(isinstance(v, str) for v in t):
        return "one of " + ", ".join(t)
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}
    return names.get(t, getattr(t, "__name__", str(t)))


def _fits(value, t) -> bool:
    if t is Mechanism:
        return isinstance(value, str)
    if t is NonNegative:
        return _fits(value, NUMBER) and value >= 0
    if t is Probability:
        return _fits(value, NUMBER) and 0 <= value <= 1
    if isinstance(t, tuple) and all(isinstance(v, str) for v in t):
        return value in t
    if isinstance(value, bool) and t is not bool:
        return False
    return isinstance(value, t)


def check(item: str, template: str, claims) -> None:
    """Check an item's ``claims`` against the registry (docs/definitions.md §7); the first error is one line naming
    the item and the key (:class:`~dpposterior.paper.errors.ConfigError`)."""
    allowed = kinds_of(template)
    for i, cl in enumerate(claims or []):
        where = f"items.{item}.claims[{i}]"
        if not isinstance(cl, dict):
            config_error(where, "a claim is a mapping with at least 'kind' and 'text'")
        name = cl.get("kind")
        if name not in KINDS:
            config_error(f"{where}.kind", f"unknown claim kind {str(name)[:60]!r}; the kinds of template {template!r}: "
                         + (", ".join(allowed) or "none (its claims are fixed in code)"))
        k = KINDS[name]
        if template not in k.templates:
            config_error(f"{where}.kind", f"claim kind {name!r} is for items of template "
                         f"{', '.join(k.templates)}, not {template!r}")
        keys = k.keys
        for key in cl:
            if key not in keys:
                close = difflib.get_close_matches(str(key), list(keys), n=1)
                config_error(f"{where}.{str(key)[:60]}", f"claim kind {name!r} has no key {str(key)[:60]!r}"
                             + (f" (did you mean {close[0]!r}?)" if close else "") + "; its keys: " + ", ".join(keys))
        for key, t in (COMMON | k.required).items():
            if key not in cl:
                config_error(f"{where}.{key}", f"claim kind {name!r} needs the key {key!r} ({_type_name(t)})")
        for key, value in cl.items():
            if not _fits(value, keys[key]):
                config_error(f"{where}.{key}", f"must be {_type_name(keys[key])}, got {str(value)[:60]!r}")


def judge(template: str, claims, ctx) -> list[V.Verdict]:
    """The verdict rows of an item's ``claims`` (docs/definitions.md §7), each by its kind's rule on the template's
    context ``ctx`` (``ValueError`` on a kind the registry does not give to ``template``: the dry run names it first)."""
    rows = []
    for cl in claims or []:
        k = KINDS.get(cl["kind"])
        if k is None or template not in k.templates:
            raise ValueError(f"unknown claim kind {cl['kind']!r}")
        rows.extend(k.rule(cl, ctx))
    return rows
