"""The registry (docs/definitions.md §4, §9): one keyword-built entry per mechanism, and the variant names.

* :data:`MECHANISMS`: id -> entry (:class:`~.base.Mechanism`), in registry order; :func:`get_mechanism`;
* :func:`check_unused`: a setting given to a mechanism that does not read it is refused, never ignored;
* :class:`Variant`: a mechanism name such as ``ehds~calibrated`` or ``optimal~average``, parsed once here.

Nothing outside this package branches on a mechanism id: what differs between entries is data on the entry
(its :class:`~.base.Guarantee`, ``uses``, ``distances``, ``tail_bound``) or one of its methods.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validate
from ..errors import InputError
from .base import CALIBRATED, DEFAULT_GAMMA, OBJECTIVES, Mechanism, Setting
from .calibrated import calibrated
from .clamped import CLAMPED_MECHANISMS
from .exponential import EXPONENTIAL_MECHANISMS
from .lattice import LATTICE
from .optimal import OPTIMAL, REMAPPED_GEOMETRIC

__all__ = ["MECHANISMS", "MECHANISM_IDS", "SETTING_DEFAULTS", "Variant", "check_unused", "get_mechanism",
           "parse_variant", "register", "releases", "variant_names"]

# ---------------------------------------------------------------------------------------------
# the registry

MECHANISMS: dict[str, Mechanism] = {}


def register(mechanism: Mechanism) -> Mechanism:
    """Add a mechanism to the registry (its id becomes a public name of the CLI and the pipeline)."""
    if mechanism.id in MECHANISMS:
        raise ValueError(f"mechanism {mechanism.id!r} registered twice")
    MECHANISMS[mechanism.id] = mechanism
    return mechanism


for _m in [*EXPONENTIAL_MECHANISMS, *CLAMPED_MECHANISMS, OPTIMAL, REMAPPED_GEOMETRIC, LATTICE]:
    register(_m)
del _m

MECHANISM_IDS = tuple(MECHANISMS)


def get_mechanism(mechanism: str | Mechanism) -> Mechanism:
    """Look a mechanism up by id; unknown ids get an error that lists the valid ones."""
    if isinstance(mechanism, Mechanism):
        return mechanism
    try:
        return MECHANISMS[mechanism]
    except (KeyError, TypeError):
        raise InputError(f"unknown mechanism {validate._show(mechanism)}; choose one of {', '.join(MECHANISMS)}") from None




#: The settings a mechanism may not read, with their defaults: a non-default value given to a mechanism that
#: does not read it is refused rather than ignored.  ``delta`` is not among them in the
#: library: it is an experiment-wide target (the pipeline and ``compare`` pass one delta to every mechanism,
#: and ``audit``/``privacy`` report it); the command line refuses an explicit ``--delta`` on a mechanism
#: other than mh-delta (:func:`dpposterior.cli.options.mechanism_spec`).
SETTING_DEFAULTS = {Setting.OBJECTIVE: "worst", Setting.GAMMA: DEFAULT_GAMMA, Setting.GLOBAL_SENSITIVITY: "exact"}


def readers(setting: str) -> list[str]:
    """The ids of the registry entries that read ``setting`` (a :class:`Setting`), in registry order."""
    return [m.id for m in MECHANISMS.values() if setting in m.settings_used]


def check_unused(mechanism, given: dict[str, bool], names: dict[str, str] | None = None) -> None:
    """Refuse a setting that was given (``given[name]`` true) to a mechanism that does not read it.

    ``names`` maps a setting to how the caller spells it (the command line's ``--gamma``); the message
    names the mechanisms that read the setting: ``--objective applies to optimal only, not 'ehds'``.
    """
    mech = get_mechanism(mechanism)
    for name, was_given in given.items():
        if was_given and name not in mech.settings_used:
            raise InputError(f"{(names or {}).get(name, name)} applies to {' and '.join(readers(name)) or 'no mechanism'} "
                             f"only, not {mech.id!r} (which would ignore it)")


# ---------------------------------------------------------------------------------------------
# variants: a mechanism name such as "ehds~calibrated" or "optimal~average", parsed once, here


@dataclass(frozen=True)
class Variant:
    """A validated mechanism variant: a registry id, whether calibrated, and the objective (if any).

    ``str(v)`` is the canonical name (``"ehds"``, ``"ehds~calibrated"``, ``"optimal~average"``),
    which :func:`parse_variant` reads back.  Built directly, it is validated against the registry
    entry: ``calibrate`` only where the entry offers ``calibrated``, an ``objective`` only where
    it offers objectives (``None``: the mechanism's default).  :meth:`of` is the command line's form:
    as strict (``--objective`` on a mechanism without objectives is refused, never dropped).
    """

    mechanism: str
    calibrate: bool = False
    objective: str | None = None

    def __post_init__(self) -> None:
        entry = get_mechanism(self.mechanism)
        object.__setattr__(self, "mechanism", entry.id)
        if not isinstance(self.calibrate, (bool, np.bool_)):
            raise InputError(f"calibrate must be True or False, got {self.calibrate!r}")
        object.__setattr__(self, "calibrate", bool(self.calibrate))
        if self.calibrate and CALIBRATED not in entry.variants:
            raise InputError(f"--calibrate applies to the exponential mechanisms only, not {entry.id!r}")
        if self.objective is not None:
            validate.choice(self.objective, OBJECTIVES, "objective")
            if self.objective not in entry.variants:
                raise InputError(f"mechanism {entry.id!r} has no objective {self.objective!r} "
                                 f"(variants: {', '.join(entry.variants) or 'none'})")

    @classmethod
    def of(cls, mechanism: str | Mechanism, calibrate: bool = False, objective: str | None = None) -> Variant:
        """The command line's form: ``--mechanism``, ``--calibrate`` and ``--objective`` (``None``: not given).
        An objective the mechanism does not offer is refused in one line naming the mechanisms that have one."""
        entry = get_mechanism(mechanism)
        if objective is not None:
            objective = validate.choice(objective, OBJECTIVES, "objective")
            check_unused(entry, {"objective": True}, {"objective": "--objective"})
        return cls(entry.id, calibrate, objective)

    def __str__(self) -> str:
        return (self.mechanism + (f"~{CALIBRATED}" if self.calibrate else "")
                + (f"~{self.objective}" if self.objective else ""))

    @property
    def entry(self) -> Mechanism:
        """The registry entry."""
        return MECHANISMS[self.mechanism]

    @property
    def label(self) -> str:
        """Display label (``"ehds (calibrated)"``, ``"optimal (average)"``), as ``compare`` prints it."""
        return (self.mechanism + (" (calibrated)" if self.calibrate else "")
                + (f" ({self.objective})" if self.objective else ""))

    @property
    def options(self) -> dict:
        """The keyword options this variant adds to a library call: ``{"calibrate": True}``,
        ``{"objective": "average"}`` or ``{}``."""
        return ({"calibrate": True} if self.calibrate else {}) | ({"objective": self.objective} if self.objective else {})

    def claimed(self, epsilon: float, delta: float) -> tuple[float | None, float | None]:
        """The ``(epsilon, delta)`` this variant claims (the privacy map of the mechanism it runs: the calibrated
        one's for a calibrated variant; docs/definitions.md §4)."""
        return (calibrated(self.entry) if self.calibrate else self.entry).claimed(epsilon, delta)

    @classmethod
    def trusted(cls, mechanism: str, calibrate: bool = False, objective: str | None = None) -> Variant:
        """A variant whose parts a :class:`~.spec.ReleaseSpec` has already validated (no second check)."""
        v = object.__new__(cls)
        object.__setattr__(v, "mechanism", mechanism)
        object.__setattr__(v, "calibrate", calibrate)
        object.__setattr__(v, "objective", objective)
        return v


def parse_variant(name: str | Variant) -> Variant:
    """A mechanism name -> :class:`Variant`: ``"ehds"``, ``"ehds~calibrated"``, ``"optimal~average"``.

    The one parser of variant names (the CLI, the pipeline's config and the API use it).  An
    unknown id or an option the mechanism does not offer raises one-line :class:`InputError`.
    """
    if isinstance(name, Variant):
        return name
    if not isinstance(name, str):
        raise InputError(f"a mechanism name must be a string, got {type(name).__name__}")
    base, sep, option = name.partition("~")
    entry = get_mechanism(base)
    if not sep:
        return Variant(entry.id)
    if option not in entry.variants:
        offered = ", ".join(f"{entry.id}~{v}" for v in entry.variants)
        raise InputError(f"unknown mechanism variant {name!r}; {entry.id!r} offers "
                         + (f"{entry.id} or {offered}" if offered else f"no variant (use {entry.id})"))
    if option == CALIBRATED:
        return Variant(entry.id, calibrate=True)
    return Variant(entry.id, objective=option)


def releases(mechanism: str | Mechanism) -> tuple[Variant, ...]:
    """The releases an entry offers, as ``compare`` ranks them: one per objective if it has
    objectives, else the plain mechanism and, if calibratable, its calibrated variant."""
    entry = get_mechanism(mechanism)
    if entry.objectives:
        return tuple(Variant(entry.id, objective=o) for o in entry.objectives)
    return (Variant(entry.id),) + ((Variant(entry.id, calibrate=True),) if entry.calibratable else ())


def variant_names() -> tuple[str, ...]:
    """Every name :func:`parse_variant` accepts, in registry order (plain ids first per entry)."""
    names: list[str] = []
    for entry in MECHANISMS.values():
        names.append(entry.id)
        names += [f"{entry.id}~{v}" for v in entry.variants]
    return tuple(names)


