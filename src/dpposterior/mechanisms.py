"""The release mechanisms (docs/definitions.md §4, §9): one registry entry per mechanism, carrying its behaviour.

Every mechanism outputs a candidate ``Dir(a + m)`` of R(n), identified by ``m``; every
log-pmf here is a vector aligned with ``models.candidates(n, k)``.  A registry entry
(:class:`Mechanism`) carries

* its display name, family and the drafts' source (``seed_name``);
* its *claimed* guarantee, as data next to its code (``epsilon_factor``, ``claims_delta``,
  ``guarantee``): whether it holds is measured by :mod:`dpposterior.privacy`;
* its weight ``w(c)`` or noise scale ``s``;
* :meth:`Mechanism.rows`: exact log-pmf rows over R(n) for any batch of data sets of one size n;
* :meth:`Mechanism.log_pmf` and :meth:`Mechanism.sample` for one data set.

Nothing outside this module (and the modules that register a mechanism, e.g.
:mod:`dpposterior.optimal`) branches on mechanism ids: adding a mechanism is one
:func:`register` call plus one config entry.

Exponential family (``ehd``, ``ehdl``, ``ehds``, ``mh``, ``mh-delta``)
    ``P(r) proportional to exp(-w(c) H(BI(c), r))``, normalised with log-sum-exp.  With
    ``calibrate=True`` the weight is ``kappa* w(c)`` (:mod:`dpposterior.calibration`), and the
    claim becomes pure eps-DP, certified by exact computation.
Laplace family (``lszhang``, ``lsdim``, ``lshist``)
    ``m_i = clamp(floor(c_i + Y_i), 0, n - m_1 - ... - m_{i-1})`` for i < k, ``Y_i ~ Laplace(0, s)``,
    ``m_k = n - sum``.  The exact pmf integrates the Laplace law over each floor cell,
    the clamped cells taking the tails.
``geometric`` (docs/definitions.md §9)
    the same sequential clamp with two-sided geometric (discrete Laplace) noise
    ``P(D = d) = (1 - q)/(1 + q) q^|d|``, ``q = exp(-1/s)``, ``s`` as ``lshist``; sampled with
    integer arithmetic only (:func:`dpposterior.randomness.discrete_laplace`).
``optimal`` (docs/definitions.md §9)
    the eps-DP table ``P(r | c)`` minimising the expected Hellinger error, registered by
    :mod:`dpposterior.optimal`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .distances import HellingerGrid, hellinger, hellinger_from_log_bc
from . import validate
from .budget import budget_setting
from .errors import InputError, SizeError
from .models import (
    as_counts,
    as_open_unit,
    as_positive,
    as_prior,
    as_size,
    candidate_rank,
    candidates,
    check_size,
    n_candidates,
)
from .sampling import ENUMERATE_UP_TO, EXPONENTIAL_SAMPLING_GUARANTEE, check_sampler_size, sample_exponential
from .sensitivity import (
    GLOBAL_SENSITIVITY_METHODS,
    beta_smooth_sensitivity,
    beta_smooth_sensitivity_all,
    check_gamma,
    global_sensitivity,
    local_sensitivity,
    smooth_sensitivity,
    smooth_sensitivity_all,
)

DEFAULT_DELTA = 1e-8
DEFAULT_GAMMA = 1.0
#: ``optimal``'s objectives: the worst case over data sets of size n, or the prior-predictive average.
OBJECTIVES = ("worst", "average")


@dataclass(frozen=True)
class Params:
    """The validated settings every mechanism receives (each uses the ones it needs).

    ``calibrate``: exponential mechanisms only, weight ``kappa* w(c)`` (docs/definitions.md §9, Calibration).
    ``objective``: ``optimal`` only, ``"worst"`` or ``"average"`` (docs/definitions.md §9).
    """

    epsilon: float
    delta: float = DEFAULT_DELTA
    gamma: float = DEFAULT_GAMMA
    global_sensitivity_method: str = "exact"
    objective: str = "worst"
    calibrate: bool = False

    def as_kwargs(self) -> dict:
        """The keyword arguments of the module-level functions."""
        return dict(epsilon=self.epsilon, delta=self.delta, gamma=self.gamma,
                    global_sensitivity_method=self.global_sensitivity_method, objective=self.objective,
                    calibrate=self.calibrate)


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
    calibratable = False  # accepts calibrate=True
    #: How close the sampler's law is to :meth:`log_pmf` (total variation) and the delta it adds.
    sampling_guarantee = ""

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

    def label(self, params: Params) -> str:
        """Display label of this mechanism under ``params`` (e.g. ``"ehds (calibrated)"``)."""
        return self.id + (" (calibrated)" if params.calibrate else "")

    def check(self, params: Params) -> Params:
        """Validate the settings this mechanism needs (raise :class:`InputError`)."""
        if params.calibrate and not self.calibratable:
            raise InputError(f"--calibrate applies to the exponential mechanisms only, not {self.id!r}")
        return params

    def check_size(self, n: int, k: int, what: str) -> None:
        """Raise :class:`~dpposterior.errors.SizeError` when the exact rows over R(n) do not fit."""
        check_size(n_candidates(n, k), 8 * (6 * k + 10), f"{what} over R(n) for k={k}, n={n}")

    def check_setup(self, n: int, k: int, *, setups: float = 1.0, what: str = "a draw") -> None:
        """Refuse (:class:`~dpposterior.errors.SizeError`), from public n and k only, a draw whose
        set-up (tables, an enumerated pmf) would not fit the memory or the time budget.

        ``setups``: how many times the set-up runs (a padded release: its reference draws, the draw
        and its padding), for the time estimate.  Here: nothing to refuse (an O(k) draw).
        """

    def setup_seconds(self, n: int, k: int) -> float:
        """Estimated seconds of one draw's set-up (tables), from public n and k: here none."""
        return 0.0

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
    from .randomness import bit_source, choose, exp_weights

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
    from .randomness import bit_source

    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        rng = validate.seed(rng, "rng seed")
    return bit_source(rng)


# ---------------------------------------------------------------------------------------------
# exponential family


def exponential_log_pmf_rows(weights: ArrayLike, scores: ArrayLike) -> NDArray[np.float64]:
    """``ln P(r) = -w H(r) - logsumexp(-w H)`` row by row: weights ``(B,)``, scores ``(B, N)``."""
    x = np.multiply(-np.asarray(weights, dtype=np.float64)[:, None], np.asarray(scores, dtype=np.float64))
    top = x.max(axis=1, keepdims=True)  # log-sum-exp, in place: this is the hot loop of privacy.py
    x -= top + np.log(np.exp(x - top).sum(axis=1, keepdims=True))
    return x


class ExponentialRows(Rows):
    """Rows of an exponential mechanism: ``H(BI(c), r)`` from a :class:`HellingerGrid`, weights per c."""

    def __init__(self, a, n, weights, factor: float = 1.0):
        super().__init__(a, n)
        self.grid = HellingerGrid(a, n)
        self.weights_of = weights  # counts (B, k) -> w(c) (B,)
        self.factor = float(factor)

    def weights(self, counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """``kappa w(c)`` for each row of counts (kappa = 1 unless calibrated)."""
        return self.factor * np.asarray(self.weights_of(counts), dtype=np.float64)

    def hellinger(self, counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """``H(BI(c), r)`` over R(n), ``(B, N)``."""
        lbc = self.grid.log_bc(counts, self.cands)
        return hellinger_from_log_bc(lbc, out=lbc)

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        return exponential_log_pmf_rows(self.weights(counts), self.hellinger(counts))


class ExponentialMechanism(Mechanism):
    """``P(r | c) proportional to exp(-w(c) H(BI(c), r))`` (docs/definitions.md §4).

    ``weight(a, c, params)``: ``w(c)`` for one data set; ``weights_all(a, n, params)``: a function
    of a ``(B, k)`` batch of data sets of size n giving their weights (precomputed over R(n)).
    """

    family = "exponential"
    calibratable = True
    sampling_guarantee = EXPONENTIAL_SAMPLING_GUARANTEE

    def __init__(self, *args, weight, weights_all, check=None, **kw):
        super().__init__(*args, **kw)
        self._weight, self._weights_all, self._check = weight, weights_all, check

    def check(self, params):
        params = super().check(params)
        return self._check(params) if self._check is not None else params

    #: Seconds per sampler-table entry of one draw: the slowest measured (ehd, k = 2, n = 2e6:
    #: 0.58 us; ehds and mh-delta 0.07-0.2 us), for the time estimate of :meth:`check_setup`.
    table_seconds = 0.6e-6

    def setup_seconds(self, n, k):
        """The rejection sampler's tables: ``k (n + 1)`` entries at :attr:`table_seconds` each."""
        return 0.0 if n_candidates(n, k) <= ENUMERATE_UP_TO else k * (n + 1) * self.table_seconds

    def audit_entry_seconds(self, n, k):
        """Measured: 0.15-0.2 us per entry through the inverse cdf (|R(n)| <= ``ENUMERATE_UP_TO``),
        0.4-1.6 us through the rejection sampler (k = 2 to 1000); upper bounds."""
        return 0.3e-6 if n_candidates(n, k) <= ENUMERATE_UP_TO else 1.7e-6

    def check_setup(self, n, k, *, setups=1.0, what="a draw"):
        """The exact pmf over R(n) must fit in memory (|R(n)| <= ``ENUMERATE_UP_TO``: inverse cdf);
        above, the rejection sampler's tables must fit in memory and their ``k (n + 1)`` entries
        within ``DPPOSTERIOR_MAX_RELEASE_WORK`` (default :data:`DEFAULT_MAX_RELEASE_WORK`, about 6 s
        for one bare draw and 48 s for a padded release in the worst case, ehd)."""
        if n_candidates(n, k) <= ENUMERATE_UP_TO:
            self.check_size(n, k, "the exact output distribution")
            return
        check_sampler_size(n, k)
        entries = k * (n + 1)
        limit = budget_setting("DPPOSTERIOR_MAX_RELEASE_WORK", DEFAULT_MAX_RELEASE_WORK)
        if entries > limit:
            raise SizeError(f"{what} of {self.id} for k={k}, n={n} covers sampler tables of {entries:.3g} entries "
                            f"(up to ~{entries * setups * self.table_seconds:.0f} s here), over the budget of "
                            f"{limit:.3g} (set DPPOSTERIOR_MAX_RELEASE_WORK to raise it)")

    def factor(self, a, n: int, params: Params) -> float:
        """The weight factor: ``kappa*`` of :func:`dpposterior.calibration.calibrate` if calibrated, else 1."""
        if not params.calibrate:
            return 1.0
        from .calibration import calibrate  # calibration scans this module's rows

        return calibrate(self, a, n, params).factor

    def weight(self, a, c, params: Params) -> float:
        """``kappa w(c)`` for one data set (kappa = 1 unless calibrated)."""
        return self.factor(a, int(c.sum()), params) * self._weight(a, c, params)

    def rows(self, prior, n, params):
        return ExponentialRows(prior, n, self._weights_all(prior, n, params), self.factor(prior, n, params))

    def log_pmf(self, prior, counts, params):
        n, k = int(counts.sum()), counts.size
        self.check_size(n, k, "the exact output distribution")
        w = self.weight(prior, counts, params)
        return exponential_log_pmf_rows([w], hellinger(prior + counts, prior + candidates(n, k))[None, :])[0]

    def log_likelihood_bound(self, rows, released, counts):
        """``ln P(m | c) <= -w(c) H(BI(c), m)``: the normaliser is at least the term ``r = BI(c)``, which is 1."""
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, rows.k)
        lbc = rows.grid.log_bc(np.asarray(released, dtype=np.int64)[None, :], counts)[0]  # H is symmetric
        return -rows.weights(counts) * hellinger_from_log_bc(lbc, out=lbc)

    def sample(self, prior, counts, params, size, rng):
        """Draws with random bits on demand (guarantee: :data:`~dpposterior.sampling.EXPONENTIAL_SAMPLING_GUARANTEE`)."""
        rng = _bits(rng)
        n, k = int(counts.sum()), counts.size
        if n_candidates(n, k) > ENUMERATE_UP_TO:  # exact rejection sampler, R(n) never listed
            check_sampler_size(n, k)
            return sample_exponential(prior, counts, self.weight(prior, counts, params), size, rng)
        return _inverse_cdf(self.log_pmf(prior, counts, params), candidates(n, k), size, rng)


def _check_mh(params: Params) -> Params:
    if params.gamma != 1.0:
        raise InputError("mechanism 'mh' is defined with gamma = 1 (004 Def. 6); use 'ehds' for another gamma")
    return params


def _const(fn):
    """A batch weight function for a weight that does not depend on c."""
    def weights_all(a, n, p):
        w = fn(a, n, p)
        return lambda counts: np.full(len(counts), w)
    return weights_all


def _by_rank(all_fn):
    """A batch weight function from weights tabulated over R(n) (in ``candidates`` order)."""
    def weights_all(a, n, p):
        table = all_fn(a, n, p)
        return lambda counts: table[candidate_rank(counts)]
    return weights_all


# ---------------------------------------------------------------------------------------------
# sequentially clamped additive noise: Laplace (floor cells) and geometric (integer noise)


def _laplace_log_mass(lo: NDArray[np.float64], hi: NDArray[np.float64], scale: float) -> NDArray[np.float64]:
    """``ln P(lo <= Y < hi)`` for ``Y ~ Laplace(0, scale)``, exact in log space (lo may be -inf, hi +inf)."""
    lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64))
    with np.errstate(invalid="ignore", over="ignore"):
        gap = np.log1p(-np.exp((lo - hi) / scale))
        left = math.log(0.5) + hi / scale + gap  # cell inside (-inf, 0]
        right = math.log(0.5) - lo / scale + gap  # cell inside [0, inf)
        both = np.log1p(-0.5 * (np.exp(lo / scale) + np.exp(-hi / scale)))
        return np.where(hi <= 0, left, np.where(lo >= 0, right, both))


def laplace_noise_tables(scale: float, n: int) -> tuple[NDArray, NDArray, NDArray]:
    """Log-mass tables of ``floor(Y)``, ``Y ~ Laplace(0, s)``, on ``d = -n-1 .. n+1`` (offset n+1).

    Returns ``(point, upper, lower)``: ``ln P(floor Y = d)``, ``ln P(floor Y >= d)``, ``ln P(floor Y <= -d)``.
    """
    d = np.arange(-n - 1, n + 2, dtype=np.float64)
    return (_laplace_log_mass(d, d + 1.0, scale), _laplace_log_mass(d, np.inf, scale),
            _laplace_log_mass(-np.inf, 1.0 - d, scale))


def geometric_noise_tables(scale: float, n: int) -> tuple[NDArray, NDArray, NDArray]:
    """Log-mass tables of ``P(D = d) = (1-q)/(1+q) q^|d|``, ``q = exp(-1/s)`` (docs/definitions.md §9), on ``d = -n-1 .. n+1``.

    ``P(D >= t) = q^t / (1 + q)`` for t >= 1 and ``1 - q^(1-t)/(1+q)`` for t <= 0 (symmetric for
    ``P(D <= -t)``).  Returns ``(point, upper, lower)`` as :func:`laplace_noise_tables`.
    """
    x = 1.0 / scale  # -ln q
    d = np.arange(-n - 1, n + 2, dtype=np.float64)
    log1pq = math.log1p(math.exp(-x))
    point = math.log(-math.expm1(-x)) - log1pq - x * np.abs(d)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # np.where evaluates both branches
        upper = np.where(d >= 1, -x * d - log1pq, np.log1p(-np.exp(-x * (1.0 - d) - log1pq)))
    return point, upper, upper.copy()  # P(D <= -t) = P(D >= t)


def clamped_log_pmf_rows(tables: tuple[NDArray, NDArray, NDArray], counts: ArrayLike,
                         cands: ArrayLike) -> NDArray[np.float64]:
    """Exact ``ln P(m | c)`` of the sequential clamp ``m_i = clamp(c_i + D_i, 0, R_i)`` (docs/definitions.md §4).

    ``tables``: ``(point, upper, lower)`` of the integer noise ``D`` on ``d = -n-1 .. n+1``
    (:func:`laplace_noise_tables`: ``D = floor(Y)``; :func:`geometric_noise_tables`).  A cell
    ``0 < m_i < R_i`` has ``P(D = m_i - c_i)``; ``m_i = 0 < R_i`` has ``P(D <= -c_i)``;
    ``m_i = R_i > 0`` has ``P(D >= R_i - c_i)``; ``R_i = 0`` forces ``m_i = 0``.
    Counts ``(B, k)`` x candidates ``(N, k)``.
    """
    point, upper, lower = tables
    c = np.asarray(counts, dtype=np.int64)
    m = np.asarray(cands, dtype=np.int64)
    n = int(m[0].sum())
    k = m.shape[1]
    out = np.zeros((c.shape[0], m.shape[0]))
    remaining = np.full(m.shape[0], n, dtype=np.int64)
    for i in range(k - 1):
        mi = m[None, :, i]
        ci = c[:, i, None]
        R = remaining[None, :]
        cell = np.where(
            R == 0, 0.0,
            np.where(mi == 0, lower[ci + n + 1], np.where(mi == R, upper[R - ci + n + 1], point[mi - ci + n + 1])),
        )
        out += cell
        remaining = remaining - m[:, i]
    return out


def laplace_log_pmf_rows(scale: float, counts: ArrayLike, cands: ArrayLike) -> NDArray[np.float64]:
    """Exact ``ln P(m | c)`` of the sequentially clamped Laplace release: counts ``(B, k)`` x candidates ``(N, k)``."""
    n = int(np.asarray(cands)[0].sum())
    return clamped_log_pmf_rows(laplace_noise_tables(scale, n), counts, cands)


def geometric_log_pmf_rows(scale: float, counts: ArrayLike, cands: ArrayLike) -> NDArray[np.float64]:
    """Exact ``ln P(m | c)`` of the sequentially clamped geometric release (docs/definitions.md §9)."""
    n = int(np.asarray(cands)[0].sum())
    return clamped_log_pmf_rows(geometric_noise_tables(scale, n), counts, cands)


class ClampedRows(Rows):
    """Rows of a sequentially clamped additive-noise release (noise tables computed once per n)."""

    def __init__(self, a, n, tables):
        super().__init__(a, n)
        self.tables = tables

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        return clamped_log_pmf_rows(self.tables, counts, self.cands)


class ClampedNoiseMechanism(Mechanism):
    """``m_i = clamp(c_i + D_i, 0, n - m_1 - ... - m_{i-1})``, i < k, ``m_k = n - sum`` (docs/definitions.md §4, §9).

    ``scale(k, eps)``: the noise scale ``s``; subclasses give the noise law (tables and sampler).
    """

    def __init__(self, *args, scale, **kw):
        super().__init__(*args, **kw)
        self._scale = scale

    def scale(self, k: int, epsilon: float) -> float:
        """The noise scale ``s`` (docs/definitions.md §4 Laplace table; docs/definitions.md §9 for ``geometric``)."""
        return self._scale(k, check_epsilon(epsilon))

    def noise_tables(self, scale: float, n: int):  # pragma: no cover - abstract
        raise NotImplementedError

    def draw(self, scale: float, count: int, bits):  # pragma: no cover - abstract
        """``count`` exact integer draws of the noise ``D`` from a bit source (an int64 array, or a list of
        Python ints at extreme rates)."""
        raise NotImplementedError

    def noise(self, scale: float, size: tuple[int, int], rng) -> NDArray[np.int64]:
        """Integer noise ``D`` of shape ``size``, drawn by :meth:`draw` (no float noise)."""
        d = self.draw(scale, size[0] * size[1], _bits(rng))
        if isinstance(d, list):  # extreme rates: exact Python ints
            d = np.clip(np.array(d, dtype=object), -2**62, 2**62).astype(np.int64)
        return np.asarray(d, dtype=np.int64).reshape(size)

    def rows(self, prior, n, params):
        return ClampedRows(prior, n, self.noise_tables(self.scale(prior.size, params.epsilon), n))

    def log_likelihood(self, rows, released, counts):
        """``ln P(m | c)`` for every c from the noise tables alone (one cell product per c)."""
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, rows.k)
        return clamped_log_pmf_rows(rows.tables, counts, np.asarray(released, dtype=np.int64)[None, :])[:, 0]

    def log_likelihood_cost(self, rows):
        return rows.k

    def log_likelihood_bound(self, rows, released, counts):
        """Exact (the column is as cheap as any bound)."""
        return self.log_likelihood(rows, released, counts)

    def log_pmf(self, prior, counts, params):
        n, k = int(counts.sum()), counts.size
        self.check_size(n, k, "the exact output distribution")
        return clamped_log_pmf_rows(self.noise_tables(self.scale(k, params.epsilon), n), counts[None, :],
                                    candidates(n, k))[0]

    def sample(self, prior, counts, params, size, rng):
        """The sequential clamp with exact integer noise; counts up to ``validate.MAX_TOTAL`` (< 2^53)
        and noise clipped to ``+-2^62`` (probability below ``exp(-2^62 / s)``) keep int64 exact."""
        n, k = int(counts.sum()), counts.size
        d = self.noise(self.scale(k, params.epsilon), (size, k - 1), rng)
        out = np.empty((size, k), dtype=np.int64)
        remaining = np.full(size, n, dtype=np.int64)
        for i in range(k - 1):
            out[:, i] = np.clip(counts[i] + d[:, i], 0, remaining)
            remaining -= out[:, i]
        out[:, k - 1] = remaining
        return out


class LaplaceMechanism(ClampedNoiseMechanism):
    """Laplace noise ``Y ~ Laplace(0, s)``, released as ``floor(c_i + Y_i)`` (docs/definitions.md §4, 003 Alg. 1-3)."""

    family = "laplace"
    sampling_guarantee = ("exact integer sampling of floor(c + Y) (CKS 2020) at the exact rational 1/s of the "
                          "double s: total variation 0 from the pmf, no delta added")

    def noise_tables(self, scale, n):
        return laplace_noise_tables(scale, n)

    def draw(self, scale, count, bits):
        """``floor(Y)``, ``Y ~ Laplace(0, s)``, sampled exactly with integers (no float noise).

        ``floor(Y) = G`` with probability 1/2 and ``-1 - G`` otherwise, ``G ~ Geometric(1 - e^(-1/s))``
        (:func:`dpposterior.randomness.floor_laplace`, Canonne, Kamath and Steinke 2020).  The rate
        ``1/s`` is the exact rational ``1 / Fraction(s)`` of the double ``s`` the pmf divides by, so
        the sampler draws exactly the law whose floor cells :func:`laplace_noise_tables` evaluates
        (total variation 0; the tables themselves carry only float rounding).
        """
        from fractions import Fraction

        from .randomness import floor_laplace

        return floor_laplace(1 / Fraction(scale), count, bits)


class GeometricMechanism(ClampedNoiseMechanism):
    """Two-sided geometric (discrete Laplace) noise, ``P(D = d) ∝ exp(-|d|/s)`` (docs/definitions.md §9).

    The sampler uses integer arithmetic only (Canonne, Kamath and Steinke 2020): ``1/s`` is taken
    as the exact rational value of the double ``1/s`` the pmf uses.
    """

    family = "geometric"
    sampling_guarantee = ("exact integer sampling (CKS 2020) at the exact rational value of the double 1/s "
                          "the pmf uses: total variation 0, no delta added")

    def noise_tables(self, scale, n):
        return geometric_noise_tables(scale, n)

    def draw(self, scale, count, bits):
        from .randomness import discrete_laplace

        return discrete_laplace(1.0 / scale, count, bits)


# ---------------------------------------------------------------------------------------------
# the budgets of a draw (from public inputs only: n, k, size; never the counts)

#: Sampler table entries ``k (n + 1)`` one draw may cover (``DPPOSTERIOR_MAX_RELEASE_WORK``).
DEFAULT_MAX_RELEASE_WORK = 1e7
#: Entries ``size * k`` one call of :func:`sample` may return (``DPPOSTERIOR_MAX_DRAW_ENTRIES``):
#: about 1 us and 80 bytes each at their peak (measured: lshist k = 2, ehds k = 3), so ~20 s and ~1.6 GB.
DEFAULT_MAX_DRAW_ENTRIES = 2e7


def check_draw_entries(size: int, k: int) -> None:
    """Refuse (:class:`~dpposterior.errors.SizeError`) ``size`` draws of ``k`` counts past
    ``DPPOSTERIOR_MAX_DRAW_ENTRIES`` entries (default :data:`DEFAULT_MAX_DRAW_ENTRIES`); draw in
    batches (as the auditor does) for more."""
    entries = size * k
    limit = budget_setting("DPPOSTERIOR_MAX_DRAW_ENTRIES", DEFAULT_MAX_DRAW_ENTRIES)
    if entries > limit:
        raise SizeError(f"{validate.big_number(size)} draws of k={k} counts are {validate.big_number(entries)} "
                        f"entries (~{entries * 1e-6:.0f} s, ~{entries * 80 / 2**30:.1f} GiB here), over the budget "
                        f"of {limit:.3g} (draw in batches, or set DPPOSTERIOR_MAX_DRAW_ENTRIES to raise it)")


# ---------------------------------------------------------------------------------------------
# the registry

MECHANISMS: dict[str, Mechanism] = {}


def register(mechanism: Mechanism) -> Mechanism:
    """Add a mechanism to the registry (its id becomes a public name of the CLI and the pipeline)."""
    if mechanism.id in MECHANISMS:
        raise ValueError(f"mechanism {mechanism.id!r} registered twice")
    MECHANISMS[mechanism.id] = mechanism
    return mechanism


for _m in [
    ExponentialMechanism(
        "ehd", "EHD (global sensitivity)", "003 EHD, 004 4.1.1", "eps / (2 GS)", 1.0, False,
        "eps-DP: exponential mechanism with the global sensitivity of H (003 Thm 3.1)",
        weight=lambda a, c, p: p.epsilon / (2.0 * global_sensitivity(a, int(c.sum()), p.global_sensitivity_method)),
        weights_all=_const(lambda a, n, p: p.epsilon / (2.0 * global_sensitivity(a, n, p.global_sensitivity_method)))),
    ExponentialMechanism(
        "ehdl", "EHDL (local sensitivity)", "003 EHDL, 004 4.1.2", "eps / (2 LS(c))", None, False,
        "none: local sensitivity is data dependent, not DP (baseline)",
        weight=lambda a, c, p: p.epsilon / (2.0 * local_sensitivity(a, c)),
        weights_all=lambda a, n, p: (lambda counts: p.epsilon / (2.0 * local_sensitivity(a, counts)))),
    ExponentialMechanism(
        "ehds", "EHDS (gamma-smooth sensitivity)", "003 EHDS", "eps / (2 (1+gamma) S(c))", 1.0, False,
        "eps-DP: gamma-smooth sensitivity (003 Thm 3.1)",
        weight=lambda a, c, p: p.epsilon / (2.0 * (1.0 + p.gamma) * smooth_sensitivity(a, c, p.gamma)),
        weights_all=_by_rank(lambda a, n, p: p.epsilon / (2.0 * (1.0 + p.gamma) * smooth_sensitivity_all(a, n, p.gamma)))),
    ExponentialMechanism(
        "mh", "M_H (smooth sensitivity)", "004 Def. 6 (M_H)", "eps / (2 S(c)), gamma = 1", 2.0, False,
        "2 eps-DP (004 Lemma 5.6)",
        weight=lambda a, c, p: p.epsilon / (2.0 * smooth_sensitivity(a, c, 1.0)),
        weights_all=_by_rank(lambda a, n, p: p.epsilon / (2.0 * smooth_sensitivity_all(a, n, 1.0))),
        check=_check_mh),
    ExponentialMechanism(
        "mh-delta", "M_H (beta-smooth, delta)", "000 Def. 4.1, 001/002", "eps / (2 S_b(c))", 1.0, True,
        "(eps, delta)-DP with beta-smooth sensitivity (000 Lemma 4.3)",
        weight=lambda a, c, p: p.epsilon / (2.0 * beta_smooth_sensitivity(a, c, p.epsilon, p.delta)),
        weights_all=_by_rank(lambda a, n, p: p.epsilon / (2.0 * beta_smooth_sensitivity_all(a, n, p.epsilon, p.delta)))),
    LaplaceMechanism(
        "lszhang", "Laplace (Zhang et al.)", "003 LSZhang (Zhang et al. 2016)", "2 / eps", 1.0, False,
        "eps-DP: Laplace on counts, L1 sensitivity 2", scale=lambda k, eps: 2.0 / eps),
    LaplaceMechanism(
        "lsdim", "Laplace", "003 LSDim, 004 Laplace mechanism", "2/eps (k=2), k/eps", 1.0, False,
        "eps-DP (003 Thm 3.1)", scale=lambda k, eps: (2.0 if k == 2 else float(k)) / eps),
    LaplaceMechanism(
        "lshist", "improved Laplace", "003 LSHist, 004 improved Laplace", "1/eps (k=2), 2/eps", 1.0, False,
        "eps-DP: histogram sensitivity (003 Thm 3.1)", scale=lambda k, eps: (1.0 if k == 2 else 2.0) / eps),
    GeometricMechanism(
        "geometric", "geometric (discrete Laplace)", "beyond the drafts: lshist with discrete Laplace noise",
        "1/eps (k=2), 2/eps", 1.0, False,
        "eps-DP: discrete Laplace on counts, histogram sensitivity (Ghosh, Roughgarden and Sundararajan 2012)",
        scale=lambda k, eps: (1.0 if k == 2 else 2.0) / eps),
]:
    register(_m)
del _m


from . import optimal as _optimal  # noqa: E402,F401  registers 'optimal' (a Mechanism subclass)

MECHANISM_IDS = tuple(MECHANISMS)


def get_mechanism(mechanism: str | Mechanism) -> Mechanism:
    """Look a mechanism up by id; unknown ids get an error that lists the valid ones."""
    if isinstance(mechanism, Mechanism):
        return mechanism
    try:
        return MECHANISMS[mechanism]
    except (KeyError, TypeError):
        raise InputError(f"unknown mechanism {mechanism!r}; choose one of {', '.join(MECHANISMS)}") from None


# The validators live in :mod:`dpposterior.validate`; these names are kept for existing imports.
check_epsilon = validate.epsilon


check_delta = validate.delta


def resolve(mechanism, epsilon, delta=DEFAULT_DELTA, gamma=DEFAULT_GAMMA, global_sensitivity_method="exact",
            objective="worst", calibrate=False) -> tuple[Mechanism, Params]:
    """Validate a mechanism and its settings: the registry entry and a :class:`Params`."""
    mech = get_mechanism(mechanism)
    if global_sensitivity_method not in GLOBAL_SENSITIVITY_METHODS:
        raise InputError(f"global sensitivity must be one of {', '.join(GLOBAL_SENSITIVITY_METHODS)}, "
                         f"got {global_sensitivity_method!r}")
    if objective not in OBJECTIVES:
        raise InputError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if not isinstance(calibrate, (bool, np.bool_)):
        raise InputError(f"calibrate must be True or False, got {calibrate!r}")
    params = Params(check_epsilon(epsilon), check_delta(delta), check_gamma(gamma), global_sensitivity_method,
                    objective, bool(calibrate))
    return mech, mech.check(params)


def check_params(mechanism, epsilon, delta, gamma, global_sensitivity_method) -> tuple[Mechanism, float, float, float, str]:
    """Validate the shared mechanism parameters (the tuple form of :func:`resolve`)."""
    mech, p = resolve(mechanism, epsilon, delta, gamma, global_sensitivity_method)
    return mech, p.epsilon, p.delta, p.gamma, p.global_sensitivity_method


def _setup(mechanism, prior, counts, kw):
    mech, params = resolve(mechanism, **kw)
    c = as_counts(counts)
    a = as_prior(prior, c.size)
    return mech, params, a, c


def weight(mechanism, prior: ArrayLike, counts: ArrayLike, *, epsilon: float, delta: float = DEFAULT_DELTA,
           gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact", calibrate: bool = False) -> float:
    """``w(c)`` of an exponential-family mechanism (docs/definitions.md §4 table; ``kappa* w(c)`` when calibrated)."""
    mech, params, a, c = _setup(mechanism, prior, counts, dict(
        epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=global_sensitivity_method,
        calibrate=calibrate))
    if not isinstance(mech, ExponentialMechanism):
        raise InputError(f"mechanism {mech.id!r} is not an exponential mechanism")
    return mech.weight(a, c, params)


def laplace_scale(mechanism, k: int, epsilon: float) -> float:
    """Scale ``s`` of the additive noise (docs/definitions.md §4 Laplace table; ``geometric`` as ``lshist``)."""
    mech = get_mechanism(mechanism)
    if not isinstance(mech, ClampedNoiseMechanism):
        raise InputError(f"mechanism {mech.id!r} is not a Laplace mechanism")
    return mech.scale(k, epsilon)


def rows(mechanism, prior: ArrayLike, n: int, *, epsilon: float, delta: float = DEFAULT_DELTA,
         gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact", objective: str = "worst",
         calibrate: bool = False) -> Rows:
    """Exact log-pmf rows of a mechanism over R(n) for any batch of data sets of size n (see :class:`Rows`)."""
    mech, params = resolve(mechanism, epsilon, delta, gamma, global_sensitivity_method, objective, calibrate)
    a = as_prior(prior)
    n = as_size(n)
    mech.check_size(n, a.size, "the exact log-pmf rows")
    return mech.rows(a, n, params)


def log_pmf(mechanism, prior: ArrayLike, counts: ArrayLike, *, epsilon: float, delta: float = DEFAULT_DELTA,
            gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact", objective: str = "worst",
            calibrate: bool = False) -> NDArray[np.float64]:
    """Exact log output distribution of a mechanism over ``candidates(n, k)`` (docs/definitions.md §4, §9).

    Raises :class:`~dpposterior.errors.SizeError` when R(n) does not fit the memory budget.
    """
    mech, params, a, c = _setup(mechanism, prior, counts, dict(
        epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=global_sensitivity_method,
        objective=objective, calibrate=calibrate))
    mech.check_size(int(c.sum()), c.size, "the exact output distribution")
    return mech.log_pmf(a, c, params)


def sample(mechanism, prior: ArrayLike, counts: ArrayLike, *, epsilon: float, delta: float = DEFAULT_DELTA,
           gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact", objective: str = "worst",
           calibrate: bool = False, size: int = 1, rng: np.random.Generator | int | None = None) -> NDArray[np.int64]:
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
        objective=objective, calibrate=calibrate))
    if not (rng is None or isinstance(rng, (int, np.integer, np.random.Generator))) or isinstance(rng, bool):
        raise InputError(f"rng must be a seed or a numpy Generator, got {type(rng).__name__}")
    size = validate.sample_count(size, "size")
    if size == 0:
        return np.empty((0, c.size), dtype=np.int64)
    mech.check_draws(int(c.sum()), c.size, size)
    return mech.sample(a, c, params, size, rng)
