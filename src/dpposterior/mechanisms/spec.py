"""One validated release spec (docs/definitions.md §4, §9): every setting of a release, checked once, passed whole.

A :class:`ReleaseSpec` is built where the user's input enters (the command line, the Python API, a pipeline
config entry) by :meth:`ReleaseSpec.of`, which declares the setting names once and validates them in the
order and with the one-line messages of the command line; every layer below (the mechanisms, the remaps, the
posterior, the ledger, the paper layer) receives it whole and re-checks nothing.  Its parts:

* ``variant``: the registry :class:`~.registry.Variant` (mechanism id, calibrated, objective);
* ``privacy``: the :class:`~.base.PrivacyParameters` (epsilon, delta);
* the mechanism's own settings ``gamma`` and ``global_sensitivity_method`` (read by ``ehds`` and ``ehd``);
* ``distance``: the score and accuracy measure (a name of :data:`dpposterior.distances.DISTANCES`).

A spec may be passed instead of a mechanism name to the module-level functions and the Python API
(``dp.log_pmf(spec, prior, counts)``); the settings then come from the spec only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .. import validate
from ..distances import DEFAULT_DISTANCE, get_distance
from ..errors import InputError
from ..sensitivity import GLOBAL_SENSITIVITY_METHODS, GlobalSensitivityMethod
from .base import DEFAULT_DELTA, DEFAULT_GAMMA, OBJECTIVES, Mechanism, Objective, PrivacyParameters, Setting
from .calibrated import calibrated
from .registry import SETTING_DEFAULTS, Variant, check_unused, get_mechanism

__all__ = ["PrivacyParameters", "ReleaseSpec"]


@dataclass(frozen=True)
class ReleaseSpec:
    """The validated settings of one release, frozen (module docstring); build it with :meth:`of`.

    Its fields are validated values; the properties give the views every layer reads: :attr:`epsilon`,
    :attr:`delta`, :attr:`objective`, :attr:`calibrate`, :attr:`entry` (the registry entry) and
    :attr:`mechanism` (what runs: the calibrated mechanism for a calibrated variant).
    """

    variant: Variant
    privacy: PrivacyParameters
    gamma: float = DEFAULT_GAMMA
    global_sensitivity_method: GlobalSensitivityMethod = GlobalSensitivityMethod.EXACT
    distance: str = DEFAULT_DISTANCE

    @classmethod
    def of(cls, mechanism: str | Mechanism | Variant, epsilon: Any, delta: Any = DEFAULT_DELTA, *,
           gamma: Any = DEFAULT_GAMMA, global_sensitivity_method: Any = "exact", objective: Any = "worst",
           calibrate: Any = False, distance: Any = DEFAULT_DISTANCE, names: dict[str, str] | None = None) -> ReleaseSpec:
        """The one constructor at the edge: a mechanism (id, entry or :class:`~.registry.Variant`) and its settings.

        Validated in this order, with the command line's messages: the mechanism, the global-sensitivity method,
        the objective, ``calibrate``, the distance, epsilon, delta, gamma, then the entry's own checks
        (:meth:`~.base.Mechanism.check`) and a non-default setting the mechanism does not read
        (:func:`~.registry.check_unused`; ``names`` spells the settings in its message).  A
        :class:`~.registry.Variant` brings its own ``calibrate`` and objective (it was validated when parsed).
        """
        variant = mechanism if isinstance(mechanism, Variant) else None
        entry = get_mechanism(variant.mechanism if variant is not None else mechanism)
        gsm = GlobalSensitivityMethod(
            validate.choice(global_sensitivity_method, GLOBAL_SENSITIVITY_METHODS, "global sensitivity"))
        if variant is None:  # a Variant's calibrate and objective were validated when it was parsed
            objective = validate.choice(objective, OBJECTIVES, "objective")
            if not isinstance(calibrate, (bool, np.bool_)):
                raise InputError(f"calibrate must be True or False, got {calibrate!r}")
        distance = get_distance(distance).name
        privacy = PrivacyParameters.of(epsilon, delta)
        gamma = validate.gamma(gamma)
        if variant is None:
            variant = Variant.trusted(entry.id, bool(calibrate), None if objective == Objective.WORST else objective)
        spec = cls(variant, privacy, gamma, gsm, distance)
        entry.check(spec)
        check_unused(entry, {name: getattr(spec, name) != default for name, default in SETTING_DEFAULTS.items()},
                     names)
        return spec

    @classmethod
    def given(cls, mechanism: str | Mechanism | Variant | ReleaseSpec, /, **settings: Any) -> ReleaseSpec:
        """A spec passed whole (``settings`` must then be empty), else :meth:`of` the mechanism and ``settings``:
        the entry of the module-level functions and the Python API."""
        if isinstance(mechanism, ReleaseSpec):
            if settings:
                raise TypeError(f"a ReleaseSpec carries its settings; got {', '.join(sorted(settings))} besides it")
            return mechanism
        return cls.of(mechanism, **settings)

    @classmethod
    def trusted(cls, variant: Variant, privacy: PrivacyParameters, distance: str = DEFAULT_DISTANCE) -> ReleaseSpec:
        """A spec from values validated where they entered (a parsed variant, :meth:`PrivacyParameters.of`, a
        distance's name), with only the entry's own checks (:meth:`~.base.Mechanism.check`): one validated set of
        numbers shared by many releases (``compare``'s rows), never validated again."""
        spec = cls(variant, privacy, distance=distance)
        spec.entry.check(spec)
        return spec

    def with_variant(self, variant: Variant, distance: Any = DEFAULT_DISTANCE) -> ReleaseSpec:
        """This spec's numbers under a parsed variant and a distance (the command line's second step: the
        variant flags and ``--distance`` are checked after the numbers): the distance and the entry's checks."""
        spec = replace(self, variant=variant, distance=get_distance(distance).name)
        spec.entry.check(spec)
        return spec

    def base(self) -> ReleaseSpec:
        """This spec without its variant's options (uncalibrated, the default objective): a calibration's key."""
        return replace(self, variant=Variant.trusted(self.variant.mechanism))

    def averaged(self) -> ReleaseSpec:
        """This spec with the ``average`` objective (``remapped-geometric`` at k = 2 is ``optimal~average``)."""
        return replace(self, variant=Variant.trusted(self.variant.mechanism, objective=Objective.AVERAGE.value))

    # -- the views every layer reads ---------------------------------------------------------

    @property
    def epsilon(self) -> float:
        """The privacy parameter epsilon."""
        return self.privacy.epsilon

    @property
    def delta(self) -> float:
        """The delta target (read by ``mh-delta``; reported by every mechanism)."""
        return self.privacy.delta

    @property
    def objective(self) -> str:
        """``optimal``'s objective (``"worst"`` unless the variant says ``average``)."""
        return self.variant.objective or Objective.WORST.value

    @property
    def calibrate(self) -> bool:
        """Whether the variant is calibrated (``ehds~calibrated``)."""
        return self.variant.calibrate

    @property
    def entry(self) -> Mechanism:
        """The registry entry."""
        return get_mechanism(self.variant.mechanism)

    @property
    def mechanism(self) -> Mechanism:
        """The mechanism that runs: the calibrated one built on the entry for a calibrated variant."""
        return calibrated(self.entry) if self.calibrate else self.entry

    def claimed(self) -> tuple[float | None, float | None]:
        """The claimed ``(epsilon, delta)`` (the mechanism's privacy map; ``(None, None)``: no claim)."""
        return self.mechanism.guarantee.claim(self)

    def setting(self, name: Setting | str) -> Any:
        """A setting by its :class:`~.base.Setting` name."""
        return getattr(self, Setting(name).value)
