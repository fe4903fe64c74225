"""The base of every mechanism (docs/definitions.md §4, §9): validated settings, exact rows, the registry entry type.

* :class:`Params`: the settings every mechanism receives, validated when built (through
  :mod:`dpposterior.validate`, with the messages the command line shows);
* :class:`Rows`: exact log-pmf rows over R(n) for a batch of data sets of one size n;
* :class:`Mechanism`: a registry entry, carrying its identity, its claimed guarantee (as data), the
  variants it offers (``calibrated``, objectives) and its behaviour;
* the draw helpers shared by the families, and the budgets of a draw (from public inputs only).

Every log-pmf is a vector aligned with ``models.candidates(n, k)``.  The families live in
:mod:`.exponential`, :mod:`.clamped` and :mod:`.optimal`; the registry in :mod:`dpposterior.mechanisms`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate
from ..budget import budget_setting
from ..distances import DEFAULT_DISTANCE, get_distance
from ..errors import InputError, SizeError
from ..models import candidate_rank, candidates, check_size, n_candidates
from ..randomness import bit_source, choose, exp_weights
from ..sensitivity import GLOBAL_SENSITIVITY_METHODS

DEFAULT_DELTA = 1e-8
DEFAULT_GAMMA = 1.0
#: ``optimal``'s objectives: the worst case over data sets of size n, or the prior-predictive average.
OBJECTIVES = ("worst", "average")
#: The variant a calibratable mechanism offers (``ehds~calibrated``, docs/definitions.md §9, Calibration).
CALIBRATED = "calibrated"


@dataclass(frozen=True)
class Params:
    """The validated settings every mechanism receives (each uses the ones it needs).

    Validated when built (:meth:`__post_init__`), in the order and with the messages of the
    command line: the global-sensitivity method, the objective, ``calibrate``, then epsilon,
    delta and gamma (:mod:`dpposterior.validate`).  The numbers are stored as validated floats.

    ``calibrate``: exponential mechanisms only, weight ``kappa* w(c)`` (docs/definitions.md §9, Calibration);
    the registry builds the calibrated mechanism (:mod:`.calibrated`) for it.
    ``objective``: ``optimal`` only, ``"worst"`` or ``"average"`` (docs/definitions.md §9).
    ``distance``: a name of :data:`dpposterior.distances.DISTANCES` (validated here; one line listing the
    names): the score ``u(c, r) = -D(BI(c), r)`` of the exponential mechanisms and their sensitivities,
    and the accuracy measure of every mechanism (docs/mechanisms.md, "Other distances").  Where k is
    known, a distance without an exact method at k (``tv`` at k >= 3) is refused in one line.
    """

    epsilon: float
    delta: float = DEFAULT_DELTA
    gamma: float = DEFAULT_GAMMA
    global_sensitivity_method: str = "exact"
    objective: str = "worst"
    calibrate: bool = False
    distance: str = DEFAULT_DISTANCE

    def __post_init__(self) -> None:
        gsm, objective, calibrate = self.global_sensitivity_method, self.objective, self.calibrate
        gsm = validate.choice(gsm, GLOBAL_SENSITIVITY_METHODS, "global sensitivity")
        objective = validate.choice(objective, OBJECTIVES, "objective")
        object.__setattr__(self, "global_sensitivity_method", gsm)
        object.__setattr__(self, "objective", objective)
        if not isinstance(calibrate, (bool, np.bool_)):
            raise InputError(f"calibrate must be True or False, got {calibrate!r}")
        object.__setattr__(self, "calibrate", bool(calibrate))
        object.__setattr__(self, "distance", get_distance(self.distance).name)
        object.__setattr__(self, "epsilon", validate.epsilon(self.epsilon))
        object.__setattr__(self, "delta", validate.delta(self.delta))
        object.__setattr__(self, "gamma", validate.gamma(self.gamma))

    def as_kwargs(self) -> dict:
        """The keyword arguments of the module-level functions."""
        return dict(epsilon=self.epsilon, delta=self.delta, gamma=self.gamma,
                    global_sensitivity_method=self.global_sensitivity_method, objective=self.objective,
                    calibrate=self.calibrate, distance=self.distance)


class Rows:
    """Exact log-pmf rows ``ln P(. | c)`` over R(n) (``.cands``) for any batch of data sets c of size n.

    ``rows(counts)`` with counts ``(B, k)`` returns ``(B, |R(n)|)``.
    """

    def __init__(self, a: NDArray[np.float64], n: int):
        self.a, self.n, self.k = a, n, a.size
        self.cands = candidates(n, self.k)

    def __call__(self, counts: ArrayLike) -> NDArray[np.float64]:  # pragma: no cover - abstract
        raise NotImplementedError


class Mechanism:
    """A registry entry: identity, claimed guarantee (as data) and behaviour of one mechanism.

    ``epsilon_factor``: the claimed epsilon is ``epsilon_factor * epsilon`` (None: no claim).
    ``claims_delta``: the claim is (eps, delta)-DP rather than pure.
    """

    family = "base"
    calibratable = False  # accepts calibrate=True: offers the variant ``~calibrated``
    #: The objectives the mechanism offers as variants (``optimal~average``); () for none.
    objectives: tuple[str, ...] = ()
    #: The settings of :class:`Params` the mechanism reads besides epsilon (``"gamma"``, ``"delta"``,
    #: ``"global_sensitivity_method"``); ``"objective"`` is read by a mechanism with :attr:`objectives`
    #: (:attr:`settings_used`).  Any other setting given a non-default value is refused (issue 24, family 2c).
    uses: frozenset[str] = frozenset()
    #: How close the sampler's law is to :meth:`log_pmf` (total variation) and the delta it adds.
    sampling_guarantee = ""
    #: Whether the release itself depends on ``params.distance`` (the exponential mechanisms' score, ``optimal``'s
    #: loss): a *tailored* mechanism.  Every mechanism measures its error with the distance; only these change it.
    tailored = False
    #: The distances the mechanism is built for (None: every distance of the registry).  A mechanism
    #: whose construction is tied to one loss refuses the others in one line (:meth:`check`).
    distances: tuple[str, ...] | None = None

    def stated_guarantee(self) -> str:
        """The claimed guarantee followed by the sampler's distance to the exact pmf."""
        return f"{self.guarantee}; sampling: {self.sampling_guarantee}" if self.sampling_guarantee else self.guarantee

    def __init__(self, id: str, name: str, seed_name: str, weight_or_scale: str, epsilon_factor: float | None,
                 claims_delta: bool, guarantee: str):
        self.id, self.name, self.seed_name, self.weight_or_scale = id, name, seed_name, weight_or_scale
        self.epsilon_factor, self.claims_delta, self.guarantee = epsilon_factor, claims_delta, guarantee

    def __repr__(self) -> str:
        return f"<mechanism {self.id}: {self.name}>"

    def claimed(self, epsilon: float, delta: float, calibrate: bool = False) -> tuple[float | None, float | None]:
        """The claimed ``(epsilon, delta)``: ``(None, None)`` when the mechanism claims no privacy.

        A calibrated mechanism claims pure ``epsilon``-DP (certified by exact computation).
        """
        if calibrate:
            return epsilon, 0.0
        if self.epsilon_factor is None:
            return None, None
        return self.epsilon_factor * epsilon, (delta if self.claims_delta else 0.0)

    @property
    def settings_used(self) -> frozenset[str]:
        """:attr:`uses`, plus ``"objective"`` when the mechanism offers objectives."""
        return frozenset(self.uses) | (frozenset({"objective"}) if self.objectives else frozenset())

    @property
    def variants(self) -> tuple[str, ...]:
        """The variant names this entry offers after ``~`` (``"calibrated"``, the objectives)."""
        return ((CALIBRATED,) if self.calibratable else ()) + tuple(self.objectives)

    def weight(self, a, c, params: Params) -> float:
        """``w(c)`` for one data set: exponential mechanisms only (docs/definitions.md §4 table)."""
        raise InputError(f"mechanism {self.id!r} is not an exponential mechanism")

    def scale(self, k: int, epsilon: float) -> float:
        """The additive noise scale ``s``: clamped-noise mechanisms only (docs/definitions.md §4 Laplace table)."""
        raise InputError(f"mechanism {self.id!r} is not a Laplace mechanism")

    def calibration(self, a, n: int, params: Params):
        """The :class:`~dpposterior.mechanisms.calibrated.Calibration` behind this entry's weights, if any
        (a calibrated mechanism's; here None)."""
        return None

    def label(self, params: Params) -> str:
        """Display label of this mechanism under ``params`` (e.g. ``"ehds (calibrated)"``)."""
        return self.id + (" (calibrated)" if params.calibrate else "")

    def check(self, params: Params) -> Params:
        """Validate the settings this mechanism needs (raise :class:`InputError`)."""
        if params.calibrate and not self.calibratable:
            raise InputError(f"--calibrate applies to the exponential mechanisms only, not {self.id!r}")
        if self.distances is not None and params.distance not in self.distances:
            raise InputError(f"{self.id} under {params.distance} is not built yet; use --distance "
                             f"{' or '.join(self.distances)}")
        return params

    def check_distance(self, params: Params, k: int) -> None:
        """Refuse, in one line, a distance with no exact method at k categories (``tv`` at k >= 3)."""
        get_distance(params.distance).check(k)

    def check_size(self, n: int, k: int, what: str) -> None:
        """Raise :class:`~dpposterior.errors.SizeError` when the exact rows over R(n) do not fit."""
        check_size(n_candidates(n, k), 8 * (6 * k + 10), f"{what} over R(n) for k={k}, n={n}")

    def check_setup(self, n: int, k: int, *, setups: float = 1.0, what: str = "a draw") -> None:
        """Refuse (:class:`~dpposterior.errors.SizeError`), from public n and k only, a draw whose
        set-up (tables, an enumerated pmf) would not fit the memory or the time budget.

        ``setups``: how many times the set-up runs (a padded release: its reference draws, the draw
        and its padding), for the time estimate.  Here: nothing to refuse (an O(k) draw).
        """

    def prepare(self, prior: NDArray[np.float64], n: int, params: Params) -> None:
        """Build, from public inputs only (prior, n, settings; never the counts), what every draw of size n
        needs (a solved table), so that a padded release's timed reference draws measure draws only.  Here
        nothing."""

    def setup_seconds(self, n: int, k: int) -> float:
        """Estimated seconds of one draw's set-up (tables), from public n and k: here none."""
        return 0.0

    def solve_seconds(self, n: int, k: int, objective: str | None = None) -> float:
        """Estimated seconds of the solve behind the mechanism's table (a linear program or a remap), from
        public n and k; 0 for a closed-form mechanism, which solves nothing."""
        return 0.0

    def oracle_value(self, prior, n: int, params: Params) -> dict | None:
        """An independent solver's value of the mechanism's own objective at (prior, n, params), kept as a check
        on the mechanism (``{"objective", "value", "solver"}``), or None when it has no such oracle or the
        oracle does not run at this size.  Here: none (a closed-form mechanism optimises nothing)."""
        return None

    def audit_entry_seconds(self, n: int, k: int) -> float:
        """Estimated seconds per output entry (a draw is k entries) of drawing and counting inside an
        audit, from public n and k.  Measured here (``benchmarks/budgets.py``): 0.25-0.76 us up to
        k = 100 and 1.3 us at k = 1000 for the Laplace and geometric draws; this is an upper bound."""
        return 0.8e-6 + 0.6e-9 * k

    def check_draws(self, n: int, k: int, size: int) -> None:
        """Refuse, from public inputs only, ``size`` draws of ``k`` counts summing to ``n``
        (:func:`check_draw_entries`, then :meth:`check_setup`): the budget of :func:`sample`."""
        check_draw_entries(size, k)
        self.check_setup(n, k)

    def rows(self, prior: NDArray[np.float64], n: int, params: Params) -> Rows:  # pragma: no cover
        """Exact log-pmf rows over R(n) (see :class:`Rows`)."""
        raise NotImplementedError

    def exact_expected_errors(self, prior: NDArray[np.float64], n: int, params: Params,
                              measure: str | None = None) -> NDArray[np.float64] | None:
        """``E(c) = sum_r P(r | c) D(BI(c), r)`` for every c of ``candidates(n, k)``, D the ``measure``
        (default ``params.distance``; docs/definitions.md §9, expected error) by a route faster than whole
        rows, or None: the caller
        (:func:`dpposterior.accuracy.expected_errors`) then walks :meth:`rows`.  Here None; the k = 2
        geometric + remap entries override it (:func:`dpposterior.remap.risk`, O(n W))."""
        return None

    def log_pmf(self, prior: NDArray[np.float64], counts: NDArray[np.int64], params: Params) -> NDArray[np.float64]:
        """Exact ``ln P(r | c)`` over ``candidates(n, k)`` for one data set."""
        return self.rows(prior, int(counts.sum()), params)(counts[None, :])[0]

    def sample(self, prior: NDArray[np.float64], counts: NDArray[np.int64], params: Params, size: int,
               rng) -> NDArray[np.int64]:  # pragma: no cover - abstract
        """``size`` draws of ``m`` (rows of ``(size, k)``) from exactly :meth:`log_pmf`."""
        raise NotImplementedError

    def log_likelihood(self, rows: Rows, released: NDArray[np.int64], counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """``ln P(m | c)`` of one released ``m`` for each data set ``c`` (rows of ``counts``), exactly.

        The column of :meth:`rows` at ``m`` (the noise-aware posterior's likelihood, docs/definitions.md §9).  This
        default computes whole rows; families with a cheaper column override it.
        """
        r = int(candidate_rank(np.asarray(released, dtype=np.int64)[None, :])[0])
        return rows(counts)[:, r]

    def log_likelihood_cost(self, rows: Rows) -> int:
        """Work of :meth:`log_likelihood` per data set, in score evaluations (here a whole row)."""
        return len(rows.cands)

    def log_likelihood_bound(self, rows: Rows, released: NDArray[np.int64],
                             counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """A cheap upper bound on :meth:`log_likelihood` (the noise-aware posterior drops c below it).

        The default is the trivial bound ``ln P <= 0``.
        """
        return np.zeros(len(counts))


def _inverse_cdf(logp: NDArray[np.float64], cands: NDArray[np.int64], size: int, rng) -> NDArray[np.int64]:
    """Draws from the exact log-pmf over R(n) with integer weights and random bits on demand.

    Weights ``W = max(1, round(2^128 exp(logp - max)))`` (:func:`dpposterior.randomness.exp_weights`):
    every candidate is reachable, and the law is within
    :func:`~dpposterior.randomness.weights_tv_bound` (``2^-62 + N 2^-128`` on x86-64) of ``exp(logp)``
    in total variation.  The work (N weights, one search per draw) does not depend on the data.
    """
    return cands[choose(exp_weights(logp), size, bit_source(rng))]


def _as_rng(rng) -> np.random.Generator:
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(None if rng is None else validate.seed(rng, "rng seed"))
    if isinstance(rng, np.random.Generator):
        return rng
    raise InputError(f"rng must be a seed or a numpy Generator, got {type(rng).__name__}")


def _bits(rng):
    """A release's random bits: ``None`` -> the OS CSPRNG (:class:`~dpposterior.randomness.SystemBits`);
    a seed or a Generator -> reproducible bits (experiments only: a release whose seed is known is not private)."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        rng = validate.seed(rng, "rng seed")
    return bit_source(rng)


# ---------------------------------------------------------------------------------------------
# the budgets of a draw (from public inputs only: n, k, size; never the counts)

# Sampler table entries ``k (n + 1)`` one draw may cover: ``budget.BUDGETS["DPPOSTERIOR_MAX_RELEASE_WORK"]``.
# Entries ``size * k`` one call of :func:`sample` may return: ``budget.BUDGETS["DPPOSTERIOR_MAX_DRAW_ENTRIES"]``,
# about 1 us and 80 bytes each at their peak (measured: lshist k = 2, ehds k = 3), so ~20 s and ~1.6 GB.


def check_draw_entries(size: int, k: int) -> None:
    """Refuse (:class:`~dpposterior.errors.SizeError`) ``size`` draws of ``k`` counts past
    ``DPPOSTERIOR_MAX_DRAW_ENTRIES`` entries (default ``budget.BUDGETS[...].default``); draw in
    batches (as the auditor does) for more."""
    entries = size * k
    limit = budget_setting("DPPOSTERIOR_MAX_DRAW_ENTRIES")
    if entries > limit:
        raise SizeError(f"{validate.big_number(size)} draws of k={k} counts are {validate.big_number(entries)} "
                        f"entries (~{entries * 1e-6:.0f} s, ~{entries * 80 / 2**30:.1f} GiB here), over the budget "
                        f"of {limit:.3g} (draw in batches, or set DPPOSTERIOR_MAX_DRAW_ENTRIES to raise it)")


