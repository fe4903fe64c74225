"""The release mechanisms (docs/definitions.md §4, §9): the registry, one entry per mechanism, carrying its behaviour.

Every mechanism outputs a candidate ``Dir(a + m)`` of R(n), identified by ``m``; every
log-pmf here is a vector aligned with ``models.candidates(n, k)``.  A registry entry
(:class:`~.base.Mechanism`) carries

* its display name, family and the drafts' source (``seed_name``);
* its *claimed* guarantee, as data next to its code (``epsilon_factor``, ``claims_delta``,
  ``guarantee``): whether it holds is measured by :mod:`dpposterior.privacy`;
* the variants it offers (``variants``: ``calibrated`` for the exponential family, the
  objectives ``worst`` / ``average`` for ``optimal``);
* its weight ``w(c)`` or noise scale ``s``;
* :meth:`~.base.Mechanism.rows`: exact log-pmf rows over R(n) for any batch of data sets of one size n;
* :meth:`~.base.Mechanism.log_pmf` and :meth:`~.base.Mechanism.sample` for one data set.

Nothing outside this package branches on mechanism ids or classes: adding a mechanism is one
entry in its family module plus one config entry.  The package, lowest first:

* :mod:`.base`: :class:`Params` (validated when built), :class:`Rows`, :class:`Mechanism`, the defaults;
* :mod:`.scan`: the exact worst-case scans over adjacent data sets and their size checks;
* :mod:`.exponential` (``ehd``, ``ehdl``, ``ehds``, ``mh``, ``mh-delta``), :mod:`.clamped`
  (``lszhang``, ``lsdim``, ``lshist``, ``geometric``), :mod:`.optimal` (geometric + remap at k = 2, the
  LP at k >= 3; ``remapped-geometric``);
* :mod:`.calibrated`: the calibrated variant of an exponential entry, built as a wrapper;
* this module: the registry, :class:`Variant` (a mechanism name such as ``ehds~calibrated`` or
  ``optimal~average``, parsed once here) and the module-level functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate
from ..distances import DEFAULT_DISTANCE
from ..errors import InputError
from .base import (
    CALIBRATED,
    DEFAULT_DELTA,
    DEFAULT_GAMMA,
    OBJECTIVES,
    Mechanism,
    Params,
    Rows,
    _as_rng,
    _bits,
    _inverse_cdf,
    check_draw_entries,
)
from .calibrated import CalibratedMechanism, calibrated
from .clamped import (
    CLAMPED_MECHANISMS,
    ClampedNoiseMechanism,
    ClampedRows,
    GeometricMechanism,
    LaplaceMechanism,
    clamped_log_pmf_rows,
    geometric_log_pmf_rows,
    geometric_noise_tables,
    laplace_log_pmf_rows,
    laplace_noise_tables,
)
from .exponential import EXPONENTIAL_MECHANISMS, ExponentialMechanism, ExponentialRows, exponential_log_pmf_rows
from .optimal import OPTIMAL, REMAPPED_GEOMETRIC, OptimalMechanism, RemappedGeometricMechanism

__all__ = [
    "CALIBRATED", "DEFAULT_DELTA", "DEFAULT_GAMMA",
    "MECHANISMS", "MECHANISM_IDS", "OBJECTIVES", "CalibratedMechanism", "ClampedNoiseMechanism", "ClampedRows",
    "ExponentialMechanism", "ExponentialRows", "GeometricMechanism", "LaplaceMechanism", "Mechanism",
    "OptimalMechanism", "Params", "RemappedGeometricMechanism", "Rows", "Variant", "calibrated", "check_draw_entries",
    "check_params", "clamped_log_pmf_rows", "exponential_log_pmf_rows", "geometric_log_pmf_rows",
    "geometric_noise_tables", "get_mechanism", "laplace_log_pmf_rows", "laplace_noise_tables", "laplace_scale",
    "log_pmf", "parse_variant", "register", "releases", "resolve", "rows", "sample", "variant_names", "weight",
    "_as_rng", "_bits", "_inverse_cdf",
]

# ---------------------------------------------------------------------------------------------
# the registry

MECHANISMS: dict[str, Mechanism] = {}


def register(mechanism: Mechanism) -> Mechanism:
    """Add a mechanism to the registry (its id becomes a public name of the CLI and the pipeline)."""
    if mechanism.id in MECHANISMS:
        raise ValueError(f"mechanism {mechanism.id!r} registered twice")
    MECHANISMS[mechanism.id] = mechanism
    return mechanism


for _m in [*EXPONENTIAL_MECHANISMS, *CLAMPED_MECHANISMS, OPTIMAL, REMAPPED_GEOMETRIC]:
    register(_m)
del _m
# `optimal` at k = 2 takes any distance as its remap's loss (checked nondecreasing in |r - c|); its k >= 3 linear
# program is Hellinger's (OptimalMechanism.check_distance).  The remapped geometric release (k >= 3 dense Bayes
# remap) is Hellinger's only (docs/mechanisms.md, "Other distances").
REMAPPED_GEOMETRIC.distances = (DEFAULT_DISTANCE,)

MECHANISM_IDS = tuple(MECHANISMS)


def get_mechanism(mechanism: str | Mechanism) -> Mechanism:
    """Look a mechanism up by id; unknown ids get an error that lists the valid ones."""
    if isinstance(mechanism, Mechanism):
        return mechanism
    try:
        return MECHANISMS[mechanism]
    except (KeyError, TypeError):
        raise InputError(f"unknown mechanism {validate._show(mechanism)}; choose one of {', '.join(MECHANISMS)}") from None




def resolve(mechanism, epsilon, delta=DEFAULT_DELTA, gamma=DEFAULT_GAMMA, global_sensitivity_method="exact",
            objective="worst", calibrate=False, names: dict[str, str] | None = None,
            distance: str = DEFAULT_DISTANCE) -> tuple[Mechanism, Params]:
    """Validate a mechanism and its settings: the mechanism to run and a validated :class:`Params`.

    With ``calibrate=True`` the mechanism returned is the calibrated one built on the entry
    (:func:`~.calibrated.calibrated`), so no entry ever resolves calibration itself.  A non-default setting the
    mechanism does not read is refused (:data:`SETTING_DEFAULTS`); ``names`` spells the settings in its message.
    ``distance``: the score and accuracy measure (:class:`Params`); every mechanism reads it (the clamped ones
    for accuracy only), ``optimal`` refuses all but Hellinger.
    """
    mech = get_mechanism(mechanism)
    params = mech.check(Params(epsilon, delta, gamma, global_sensitivity_method, objective, calibrate, distance))
    check_unused(mech, {name: getattr(params, name) != default for name, default in SETTING_DEFAULTS.items()}, names)
    return (calibrated(mech) if params.calibrate else mech), params


#: The settings a mechanism may not read, with their defaults: a non-default value given to a mechanism that
#: does not read it is refused rather than ignored (issue 24, family 2c).  ``delta`` is not among them in the
#: library: it is an experiment-wide target (the pipeline and ``compare`` pass one delta to every mechanism,
#: and ``audit``/``privacy`` report it); the command line refuses an explicit ``--delta`` on a mechanism
#: other than mh-delta (:func:`dpposterior.cli.options.mechanism_params`).
SETTING_DEFAULTS = {"objective": "worst", "gamma": DEFAULT_GAMMA, "global_sensitivity_method": "exact"}


def check_unused(mechanism, given: dict[str, bool], names: dict[str, str] | None = None) -> None:
    """Refuse a setting that was given (``given[name]`` true) to a mechanism that does not read it.

    ``names`` maps a setting to how the caller spells it (the command line's ``--gamma``); the message
    names the mechanisms that read the setting: ``--objective applies to optimal only, not 'ehds'``.
    """
    mech = get_mechanism(mechanism)
    for name, was_given in given.items():
        if was_given and name not in mech.settings_used:
            readers = [m.id for m in MECHANISMS.values() if name in m.settings_used]
            raise InputError(f"{(names or {}).get(name, name)} applies to {' and '.join(readers) or 'no mechanism'} "
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

    def resolve(self, epsilon, delta=DEFAULT_DELTA, gamma=DEFAULT_GAMMA,
                global_sensitivity_method="exact", distance=DEFAULT_DISTANCE) -> tuple[Mechanism, Params]:
        """:func:`resolve` for this variant: the mechanism to run and its validated :class:`Params`."""
        return resolve(self.mechanism, epsilon, delta, gamma, global_sensitivity_method, self.objective or "worst",
                       self.calibrate, distance=distance)


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


# ---------------------------------------------------------------------------------------------
# the module-level functions


def check_params(mechanism, epsilon, delta, gamma, global_sensitivity_method,
                 names: dict[str, str] | None = None) -> tuple[Mechanism, float, float, float, str]:
    """Validate the shared mechanism parameters (the tuple form of :func:`resolve`)."""
    mech, p = resolve(mechanism, epsilon, delta, gamma, global_sensitivity_method, names=names)
    return mech, p.epsilon, p.delta, p.gamma, p.global_sensitivity_method


def _setup(mechanism, prior, counts, kw):
    mech, params = resolve(mechanism, **kw)
    c = validate.counts(counts)
    a = validate.prior(prior, c.size)
    mech.check_distance(params, c.size)
    return mech, params, a, c


def weight(mechanism, prior: ArrayLike, counts: ArrayLike, *, epsilon: float, delta: float = DEFAULT_DELTA,
           gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact", calibrate: bool = False,
           distance: str = DEFAULT_DISTANCE) -> float:
    """``w(c)`` of an exponential-family mechanism (docs/definitions.md §4 table; ``kappa* w(c)`` when calibrated)."""
    mech, params, a, c = _setup(mechanism, prior, counts, dict(
        epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=global_sensitivity_method,
        calibrate=calibrate, distance=distance))
    return mech.weight(a, c, params)


def laplace_scale(mechanism, k: int, epsilon: float) -> float:
    """Scale ``s`` of the additive noise (docs/definitions.md §4 Laplace table; ``geometric`` as ``lshist``)."""
    return get_mechanism(mechanism).scale(k, epsilon)


def rows(mechanism, prior: ArrayLike, n: int, *, epsilon: float, delta: float = DEFAULT_DELTA,
         gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact", objective: str = "worst",
         calibrate: bool = False, distance: str = DEFAULT_DISTANCE) -> Rows:
    """Exact log-pmf rows of a mechanism over R(n) for any batch of data sets of size n (see :class:`Rows`)."""
    mech, params = resolve(mechanism, epsilon, delta, gamma, global_sensitivity_method, objective, calibrate,
                           distance=distance)
    a = validate.prior(prior)
    n = validate.size(n)
    mech.check_distance(params, a.size)
    mech.check_size(n, a.size, "the exact log-pmf rows")
    return mech.rows(a, n, params)


def log_pmf(mechanism, prior: ArrayLike, counts: ArrayLike, *, epsilon: float, delta: float = DEFAULT_DELTA,
            gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact", objective: str = "worst",
            calibrate: bool = False, distance: str = DEFAULT_DISTANCE) -> NDArray[np.float64]:
    """Exact log output distribution of a mechanism over ``candidates(n, k)`` (docs/definitions.md §4, §9).

    Raises :class:`~dpposterior.errors.SizeError` when R(n) does not fit the memory budget.
    """
    mech, params, a, c = _setup(mechanism, prior, counts, dict(
        epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=global_sensitivity_method,
        objective=objective, calibrate=calibrate, distance=distance))
    mech.check_size(int(c.sum()), c.size, "the exact output distribution")
    return mech.log_pmf(a, c, params)


def sample(mechanism, prior: ArrayLike, counts: ArrayLike, *, epsilon: float, delta: float = DEFAULT_DELTA,
           gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact", objective: str = "worst",
           calibrate: bool = False, size: int = 1, rng: np.random.Generator | int | None = None,
           distance: str = DEFAULT_DISTANCE) -> NDArray[np.int64]:
    """Draw ``size`` releases ``m`` (rows of an ``(size, k)`` array; the release is ``Dir(a + m)``).

    Draws from the distribution :func:`log_pmf` computes, by each mechanism's own sampler, with
    no float noise: Laplace mechanisms and ``geometric`` with exact integer arithmetic,
    exponential mechanisms by an integer-weight inverse cdf over the exact pmf when
    ``|R(n)| <= ENUMERATE_UP_TO``, else by the rejection sampler of :mod:`dpposterior.sampling`,
    ``optimal`` from its table; each mechanism's :meth:`Mechanism.stated_guarantee` gives the
    sampler's distance to the pmf.  ``rng``: a ``numpy.random.Generator`` or a seed (experiments
    only), ``None``: the operating system's CSPRNG.  This is the bare draw; a release
    (:func:`dpposterior.release.release`) also pads its running time.
    """
    mech, params, a, c = _setup(mechanism, prior, counts, dict(
        epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=global_sensitivity_method,
        objective=objective, calibrate=calibrate, distance=distance))
    if not (rng is None or isinstance(rng, (int, np.integer, np.random.Generator))) or isinstance(rng, bool):
        raise InputError(f"rng must be a seed or a numpy Generator, got {type(rng).__name__}")
    size = validate.sample_count(size, "size")
    if size == 0:
        return np.empty((0, c.size), dtype=np.int64)
    mech.check_draws(int(c.sum()), c.size, size)
    return mech.sample(a, c, params, size, rng)
