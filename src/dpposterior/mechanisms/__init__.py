"""The release mechanisms (docs/definitions.md §4, §9): the registry, one entry per mechanism, carrying its behaviour.

Every mechanism outputs a candidate ``Dir(a + m)`` of R(n), identified by ``m``; every
log-pmf here is a vector aligned with ``models.candidates(n, k)``.  A registry entry
(:class:`~.base.Mechanism`) carries

* its display name, family and the drafts' source (``seed_name``);
* its *claimed* guarantee, as data next to its code (``guarantee``, a :class:`~.base.Guarantee`: the
  privacy map as code and how it is proven): whether it holds is measured by :mod:`dpposterior.privacy`;
* the variants it offers (``variants``: ``calibrated`` for the exponential family, the
  objectives ``worst`` / ``average`` for ``optimal``);
* its weight ``w(c)`` or noise scale ``s``;
* :meth:`~.base.Mechanism.rows`: exact log-pmf rows over R(n) for any batch of data sets of one size n;
* :meth:`~.base.Mechanism.log_pmf` and :meth:`~.base.Mechanism.sample` for one data set.

Nothing outside this package branches on mechanism ids or classes: adding a mechanism is one
entry in its family module plus one config entry.  Every function here takes one validated
:class:`~.spec.ReleaseSpec` (or a mechanism id and the settings :meth:`~.spec.ReleaseSpec.of` declares).
The package, lowest first:

* :mod:`.base`: :class:`Rows`, the abstract :class:`Mechanism`, :class:`Guarantee`, the settings' names
  and defaults, :class:`PrivacyParameters`;
* :mod:`.scan`: the exact worst-case scans over adjacent data sets and their size checks;
* :mod:`.exponential` (``ehd``, ``ehdl``, ``ehds``, ``mh``, ``mh-delta``), :mod:`.clamped`
  (``lszhang``, ``lsdim``, ``lshist``, ``geometric``), :mod:`.optimal` (geometric + remap at k = 2, the
  LP at k >= 3; ``remapped-geometric``), :mod:`.lattice` (``lattice``: K-norm noise on the sum-zero lattice
  and a remap, any k);
* :mod:`.calibrated`: the calibrated variant of an exponential entry, built as a wrapper;
* :mod:`.registry`: the registry and :class:`Variant` (a mechanism name such as ``ehds~calibrated`` or
  ``optimal~average``, parsed once there);
* :mod:`.spec`: :class:`ReleaseSpec`, the validated settings of one release;
* this module: the module-level functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate
from ..errors import InputError
from .base import (
    CALIBRATED,
    DEFAULT_DELTA,
    DEFAULT_GAMMA,
    OBJECTIVES,
    Family,
    Guarantee,
    Mechanism,
    Objective,
    PrivacyParameters,
    Proof,
    Rows,
    Setting,
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
from .lattice import LATTICE, LatticeMechanism
from .optimal import OPTIMAL, REMAPPED_GEOMETRIC, OptimalMechanism, RemappedGeometricMechanism
from .registry import (
    MECHANISM_IDS,
    MECHANISMS,
    SETTING_DEFAULTS,
    Variant,
    check_unused,
    get_mechanism,
    parse_variant,
    readers,
    register,
    releases,
    variant_names,
)
from .spec import ReleaseSpec

__all__ = [
    "CALIBRATED", "CLAMPED_MECHANISMS", "DEFAULT_DELTA", "DEFAULT_GAMMA", "EXPONENTIAL_MECHANISMS", "LATTICE", "OPTIMAL",
    "REMAPPED_GEOMETRIC", "SETTING_DEFAULTS",
    "MECHANISMS", "MECHANISM_IDS", "OBJECTIVES", "CalibratedMechanism", "ClampedNoiseMechanism", "ClampedRows",
    "ExponentialMechanism", "ExponentialRows", "Family", "GeometricMechanism", "Guarantee", "LaplaceMechanism",
    "LatticeMechanism", "Mechanism", "Objective", "OptimalMechanism", "PrivacyParameters", "Proof", "ReleaseSpec",
    "RemappedGeometricMechanism", "Rows", "Setting", "Variant", "calibrated", "check_draw_entries",
    "check_unused", "clamped_log_pmf_rows", "exponential_log_pmf_rows", "geometric_log_pmf_rows",
    "geometric_noise_tables", "get_mechanism", "laplace_log_pmf_rows", "laplace_noise_tables", "laplace_scale",
    "log_pmf", "parse_variant", "readers", "register", "releases", "rows", "sample", "variant_names", "weight",
    "_as_rng", "_bits", "_inverse_cdf",
]

# ---------------------------------------------------------------------------------------------
# the module-level functions


def _setup(mechanism, prior, counts, settings) -> tuple[ReleaseSpec, NDArray[np.float64], NDArray[np.int64]]:
    spec = ReleaseSpec.given(mechanism, **settings)
    c = validate.counts(counts)
    a = validate.prior(prior, c.size)
    spec.mechanism.check_distance(spec, c.size)
    return spec, a, c


def weight(mechanism, prior: ArrayLike, counts: ArrayLike, **settings: Any) -> float:
    """``w(c)`` of an exponential-family mechanism (docs/definitions.md §4 table; ``kappa* w(c)`` when calibrated).

    ``mechanism``: an id with its ``settings`` (:meth:`ReleaseSpec.of`: ``epsilon``, ``delta``, ``gamma``,
    the global-sensitivity method, ``calibrate``, ``distance``), or a :class:`ReleaseSpec` alone."""
    spec, a, c = _setup(mechanism, prior, counts, settings)
    return spec.mechanism.weight(a, c, spec)


def laplace_scale(mechanism, k: int, epsilon: float) -> float:
    """Scale ``s`` of the additive noise (docs/definitions.md §4 Laplace table; ``geometric`` as ``lshist``)."""
    return get_mechanism(mechanism).scale(k, PrivacyParameters.of(epsilon).epsilon)


def rows(mechanism, prior: ArrayLike, n: int, **settings: Any) -> Rows:
    """Exact log-pmf rows of a mechanism over R(n) for any batch of data sets of size n (see :class:`Rows`).

    ``mechanism`` and ``settings``: as :func:`weight`."""
    spec = ReleaseSpec.given(mechanism, **settings)
    mech = spec.mechanism
    a = validate.prior(prior)
    n = validate.size(n)
    mech.check_distance(spec, a.size)
    mech.check_size(n, a.size, "the exact log-pmf rows")
    return mech.rows(a, n, spec)


def log_pmf(mechanism, prior: ArrayLike, counts: ArrayLike, **settings: Any) -> NDArray[np.float64]:
    """Exact log output distribution of a mechanism over ``candidates(n, k)`` (docs/definitions.md §4, §9).

    ``mechanism`` and ``settings``: as :func:`weight`.
    Raises :class:`~dpposterior.errors.SizeError` when R(n) does not fit the memory budget.
    """
    spec, a, c = _setup(mechanism, prior, counts, settings)
    spec.mechanism.check_size(int(c.sum()), c.size, "the exact output distribution")
    return spec.mechanism.log_pmf(a, c, spec)


def sample(mechanism, prior: ArrayLike, counts: ArrayLike, *, size: int = 1,
           rng: np.random.Generator | int | None = None, **settings: Any) -> NDArray[np.int64]:
    """Draw ``size`` releases ``m`` (rows of an ``(size, k)`` array; the release is ``Dir(a + m)``).

    ``mechanism`` and ``settings``: as :func:`weight`.
    Draws from the distribution :func:`log_pmf` computes, by each mechanism's own sampler, with
    no float noise: Laplace mechanisms and ``geometric`` with exact integer arithmetic,
    exponential mechanisms by an integer-weight inverse cdf over the exact pmf when
    ``|R(n)| <= ENUMERATE_UP_TO``, else by the rejection sampler of :mod:`dpposterior.sampling`,
    ``optimal`` from its table; each mechanism's :meth:`Mechanism.stated_guarantee` gives the
    sampler's distance to the pmf.  ``rng``: a ``numpy.random.Generator`` or a seed (experiments
    only), ``None``: the operating system's CSPRNG.  This is the bare draw; a release
    (:func:`dpposterior.padding.padded_draw`) also pads its running time.
    """
    spec, a, c = _setup(mechanism, prior, counts, settings)
    if not (rng is None or isinstance(rng, (int, np.integer, np.random.Generator))) or isinstance(rng, bool):
        raise InputError(f"rng must be a seed or a numpy Generator, got {type(rng).__name__}")
    size = validate.sample_count(size, "size")
    if size == 0:
        return np.empty((0, c.size), dtype=np.int64)
    mech = spec.mechanism
    mech.check_draws(int(c.sum()), c.size, size)
    return mech.sample(a, c, spec, size, rng)
