"""The practitioner's way in: :func:`release`, the one public call that draws a release.

``dp.release("geometric", [1, 1], [40, 60], epsilon=1.0)`` validates its settings as the command line
does (the registry's :class:`~dpposterior.mechanisms.Variant`, then one
:class:`~dpposterior.mechanisms.ReleaseSpec` passed whole),
validates prior and counts (:mod:`dpposterior.validate`), refuses a size too large for its budget, warns
honestly (:mod:`dpposterior.guarantee`), charges an optional :class:`~dpposterior.ledger.Ledger`, and
draws once, padded to its public deadline (:func:`dpposterior.padding.padded_draw`).  It returns a
:class:`Release`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import labels as _labels
from . import ranking as _ranking
from . import validate
from .distances import DEFAULT_DISTANCE, get_distance
from .errors import InputError
from .guarantee import PrivacyWarning, claim, guarantee_text, setting_warnings
from .ledger import Ledger
from .mechanisms import DEFAULT_DELTA, DEFAULT_GAMMA, Mechanism, ReleaseSpec, Variant
from .padding import check_release, padded_draw

__all__ = ["Release", "compare", "prepare", "prepared", "release"]


@dataclass(frozen=True)
class Release:
    """One private release ``Dir(alpha)``, ``alpha = prior + released_counts``, with its guarantee.

    ``guarantee``: the claimed guarantee in words (``"1-DP"``, ``"(1, 1e-08)-DP"``, ``"none"``);
    ``seeded``: whether a seed or Generator was given (then the release is not private);
    ``categories``: the category names, in the order of the counts (a pandas Series' index or ``categories=``),
    or None (docs/definitions.md §1); ``working_epsilon``: the eps the draw ran at, from public inputs (``epsilon``
    itself but for the lattice release at k >= 4, eps floored to a multiple of 2^-20: docs/lattice.md, "The working
    eps"; the guarantee is ``epsilon``'s), or None where not recorded.
    """

    mechanism: str
    epsilon: float
    delta: float
    prior: NDArray[np.float64]
    released_counts: NDArray[np.int64]
    guarantee: str
    seeded: bool
    categories: tuple | None = None
    working_epsilon: float | None = None

    @property
    def alpha(self) -> NDArray[np.float64]:
        """The released posterior's parameters ``prior + released_counts``."""
        return self.prior + self.released_counts

    def __repr__(self) -> str:
        label = "Beta" if self.prior.size == 2 else "Dir"
        alpha = ", ".join(f"{x:.15g}" for x in self.alpha)
        names = "" if self.categories is None else f", categories={list(self.categories)!r}"
        return (f"Release({label}({alpha}), released_counts={self.released_counts.tolist()}{names}, "
                f"mechanism={self.mechanism!r}, guarantee={self.guarantee!r}"
                + (", seeded=True" if self.seeded else "") + ")")


@dataclass(frozen=True)
class Prepared:
    """One release's validated settings (no data): its :class:`~dpposterior.mechanisms.ReleaseSpec`, whether
    seeded, and the warnings its settings deserve."""

    spec: ReleaseSpec
    seeded: bool
    warnings: tuple[str, ...]

    @property
    def variant(self) -> Variant:
        """The release's mechanism variant (its name is what a ledger records)."""
        return self.spec.variant

    @property
    def mech(self) -> Mechanism:
        """The mechanism that runs (the calibrated one for a calibrated variant)."""
        return self.spec.mechanism


def prepare(mechanism: str, *, epsilon: Any, delta: Any = None, objective: str | None = None, calibrate: bool = False,
            seeded: bool = False, **settings: Any) -> Prepared:
    """Validate the settings of a release (as the command line does) and list its warnings.

    ``delta=None``: not given (the default ``1e-8``, no warning); a delta given to a pure-eps mechanism warns.
    ``settings``: the other settings of :meth:`~dpposterior.mechanisms.ReleaseSpec.of` (``gamma``, ``distance``,
    the global-sensitivity method).
    """
    variant = Variant.of(mechanism, calibrate, objective)
    spec = ReleaseSpec.of(variant, epsilon, DEFAULT_DELTA if delta is None else delta, **settings)
    return prepared(spec, seeded=seeded, delta_given=delta is not None)


def prepared(spec: ReleaseSpec, *, seeded: bool, delta_given: bool) -> Prepared:
    """A validated spec (from :func:`prepare` or the command line) with the warnings its settings deserve
    (:mod:`dpposterior.guarantee`): the one path from settings to a draw."""
    return Prepared(spec, seeded, tuple(setting_warnings(spec, seeded=seeded, delta_given=delta_given)))


def _as_vector(value: Any, name: str) -> Any:
    """Accept lists, tuples, numpy arrays and pandas Series; refuse a DataFrame with what to pass."""
    kind = type(value).__name__
    module = type(value).__module__
    if module.startswith("pandas") and kind == "DataFrame":
        raise InputError(f"{name} must be one vector, not a DataFrame: pass one column's counts, e.g. "
                         f"df['answer'].value_counts().reindex(categories, fill_value=0)")
    if module.startswith("pandas") and kind == "Series":
        return value.to_numpy()
    return value


def draw(prep: Prepared, prior: ArrayLike, counts: ArrayLike, rng=None, ledger: Ledger | None = None, *,
         sample: Callable[..., tuple] | None = None,
         checks: Callable[[NDArray[np.float64], int], None] | None = None) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Validate prior and counts, run every check that can refuse (:func:`dpposterior.padding.check_release`: the
    distance, the size budget, ``checks``, the public set-up), charge the ledger, then draw once (padded).

    Returns ``(prior, released_counts)``.  Nothing is drawn, and no ledger charged, before every check has passed.
    ``sample``: the padded release :func:`dpposterior.padding.padded_draw` (the command line passes its own reference to it).
    ``checks(prior, n)``: the refusals, from public inputs only, of what the caller does with the release afterwards
    (``release --noise-aware``: :func:`dpposterior.noise_aware.setup`), run before the ledger is charged.
    """
    sample = padded_draw if sample is None else sample
    c = validate.counts(_as_vector(counts, "counts"))
    a = validate.prior(_as_vector(prior, "prior"), c.size)
    check_release(prep.spec, a, int(c.sum()), c.size, before_setup=checks)
    if ledger is None:
        return a, sample(prep.spec, a, c, rng)[0]
    eps, delta = claim(prep.spec)
    with ledger.charge(str(prep.variant), eps, delta):
        m = sample(prep.spec, a, c, rng)[0]
    return a, m


def release(mechanism: str, prior: ArrayLike, counts: ArrayLike, *, epsilon: float, delta: float | None = None,
            gamma: float = DEFAULT_GAMMA, objective: str | None = None, calibrate: bool = False, rng=None,
            ledger: Ledger | None = None, distance: str = DEFAULT_DISTANCE, categories=None) -> Release:
    """One private posterior ``Dir(prior + m)``, as ``dpposterior release`` draws it.

    ``mechanism``: a registry id (``"geometric"``, ``"lshist"``, ``"optimal"``, ...; see ``dpposterior compare``).
    ``prior``, ``counts``: lists, tuples, numpy arrays or pandas Series (one count per category).
    ``delta``: for ``mh-delta`` (default 1e-8); ``gamma``: for ``ehds``; ``objective``: ``optimal`` only;
    ``calibrate``: exponential mechanisms only.  ``rng``: None (operating-system entropy: every real release)
    or a seed / Generator (experiments only: a seeded release is not private).  ``ledger``: a
    :class:`~dpposterior.ledger.Ledger` charged with this release's guarantee (refused past its budget,
    before anything is drawn).  ``distance``: the score of an exponential mechanism (default ``"hellinger"``;
    ``"tv"`` at k = 2, ``"kl"``; docs/mechanisms.md, "Other distances").  ``categories``: the names of the
    categories, in the order of the counts; a pandas Series' index names them too (an explicit ``categories=``
    in another order of the same names reorders the Series by name; other names are refused).  The release
    keeps them (:attr:`Release.categories`); :func:`dpposterior.count` counts records into them.

    Warns :class:`~dpposterior.guarantee.PrivacyWarning` for a seeded release, a mechanism with no or a weaker
    guarantee, and a delta the mechanism ignores.  Raises :class:`~dpposterior.errors.InputError` on bad input.
    """
    prep = prepare(mechanism, epsilon=epsilon, delta=delta, gamma=gamma, objective=objective, calibrate=calibrate,
                   seeded=rng is not None, distance=distance)
    for note in prep.warnings:
        warnings.warn(note, PrivacyWarning, stacklevel=2)
    counts, prior, cats = _labels.aligned(counts, prior, categories)
    a, m = draw(prep, prior, counts, rng, ledger)
    return Release(str(prep.variant), prep.spec.epsilon, prep.spec.delta, a, np.asarray(m, dtype=np.int64),
                   guarantee_text(prep.spec, prep.seeded), prep.seeded, cats,
                   prep.mech.working_epsilon(a, int(np.sum(counts)), prep.spec))


def compare(prior: ArrayLike, n: int, *, epsilon: float, delta: float = DEFAULT_DELTA,
            distance: str = DEFAULT_DISTANCE) -> list[dict]:
    """Every release ranked by its exact expected Hellinger error at size ``n`` (as ``dpposterior compare``):
    one dict per release, best worst case first (``release``, ``claim``, ``worst_expected_error``,
    ``worst_counts``, ``average_expected_error``; or ``error`` for a release too large for exact work)."""
    a = validate.prior(_as_vector(prior, "prior"))
    n = validate.size(n)
    eps, dlt = validate.epsilon(epsilon), validate.delta(delta)
    name = get_distance(distance).name
    get_distance(name).check(a.size)
    return _ranking.compare_rows(a, n, eps, dlt, distance=name)
