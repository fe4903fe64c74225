"""Sequentially clamped additive noise (docs/definitions.md §4, §9): ``lszhang``, ``lsdim``, ``lshist``, ``geometric``.

``m_i = clamp(floor(c_i + Y_i), 0, n - m_1 - ... - m_{i-1})`` for i < k, ``Y_i ~ Laplace(0, s)``,
``m_k = n - sum``.  The exact pmf integrates the Laplace law over each floor cell, the clamped
cells taking the tails.  ``geometric`` (docs/definitions.md §9) is the same sequential clamp with
two-sided geometric (discrete Laplace) noise ``P(D = d) = (1 - q)/(1 + q) q^|d|``, ``q = exp(-1/s)``,
``s`` as ``lshist``; every sampler here uses integer arithmetic only
(:mod:`dpposterior.randomness`).
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln, logsumexp

from .. import remap as rm
from ..distances import DEFAULT_DISTANCE
from ..lattice import scale as scale_route
from ..limits import Plan, Task, limit_setting
from ..models import candidates, n_candidates
from ..randomness import discrete_laplace, floor_laplace
from .base import (
    CACHE_CHUNK_BYTES,
    CLAMPED_DENSE_ROWS_PER_SECOND,
    NO_ROUTE,
    PAIRS_PER_SECOND,
    Family,
    Guarantee,
    Mechanism,
    Rows,
    _bits,
    pure,
    risk_plan,
)


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
    """Log-mass tables of ``P(D = d) = (1-q)/(1+q) q^|d|``, ``q = exp(-1/s)`` (docs/definitions.md §9),
    on ``d = -n-1 .. n+1``.

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
    if k == 2 and n > 0 and m.shape[0] == n + 1 and m[0, 0] == 0 and np.all(np.diff(m[:, 0]) == 1):
        # R(n) at k = 2 (m_1 = 0..n, R_1 = n): row c is point[m - c + n + 1], a window of the table, with its two
        # clamped ends; ``+ 0.0`` as the sum below (0.0 + cell) does, so the same bits
        out = np.lib.stride_tricks.sliding_window_view(point, n + 1)[n + 1 - c[:, 0]]
        out[:, 0] = lower[c[:, 0] + n + 1]
        out[:, n] = upper[2 * n + 1 - c[:, 0]]
        out += 0.0
        return out
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

    walk_chunk_bytes = CACHE_CHUNK_BYTES  # elementwise look-ups: the same floats in any chunk

    def __init__(self, a, n, tables):
        super().__init__(a, n)
        self.tables = tables

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        return clamped_log_pmf_rows(self.tables, counts, self.cands)


#: Bytes of the translation routes' blocks and coefficients (``FACTOR_SHIFT_ENTRIES`` and the offset blocks), besides
#: the errors and counts of R(n) (measured peaks: k = 3, n = 1000: 134 MB (loss), 266 MB (factors); k = 4, n = 100:
#: 226 MB; benchmarks/plans.json).
TRANSLATION_BYTES = 128 * 2**20
#: Words per data set of R(n) besides the k of its counts: its errors, prior predictive, sort and orbit indices.
#: Dir(1,1,1,1), n = 200 (|R(n)| = 1,373,701, by orbits) peaked 247 MB, 82 bytes a data set past TRANSLATION_BYTES
#: (planned 222 MB at 4 words; 266 MB at 8).
TRANSLATION_POINT_WORDS = 8
#: The orbit route's plan (:meth:`ClampedNoiseMechanism.orbit_plan`), part by part, fitted to the calls of
#: benchmarks/plans_fit.json (Dir(1,1,1,1), n = 50 to 160, eps 0.5 to 2, load 4-6 on the shared 2-core machine) and to
#: the cap sums alone (benchmarks/cap_sums_h66.json): the cap sums (:func:`~dpposterior.lattice.scale.clamp_cap_sums`,
#: rows sorted by their tail, contiguous slices, one gather per table: 6.0-7.0e7 visits per CPU s alone at load 5,
#: 4.5e7 inside the whole call) at ORBIT_CAP_PER_SECOND visits per second plus ORBIT_PREFIX_SECONDS per prefix (one
#: vectorised pass each); the loss route at the representatives at 1 / ORBIT_LOSS_SLOWDOWN of
#: EVALUATIONS_PER_SECOND_ANY (they lie nearer the faces: more of them take the per-offset clamped pass; n = 50, eps 1:
#: 9.6 CPU s against 6.4 at the whole route's rate) plus ORBIT_SETUP_SECONDS; the factor route at the representatives
#: at its rate times ORBIT_FACTOR_SLOWDOWN (read by their second count and with the pairs left no room taken as one
#: loss, ``clamped_errors_by_factors(no_room=True)``) plus ORBIT_MOVED_SECONDS per pair where a head clamp acts
#: (:func:`~dpposterior.lattice.scale.orbit_moved_pairs`: each takes the per-row paths; n = 50, eps 0.5 has 80 % of its
#: pairs moved and ran 12.2 CPU s against 6.8 at the rate alone; n = 160, eps 1 has 5 %: 14.2 against 13.1).
ORBIT_CAP_PER_SECOND = 4.5e7
ORBIT_PREFIX_SECONDS = 1e-4
ORBIT_SETUP_SECONDS = 0.25
ORBIT_LOSS_SLOWDOWN = 1.7
ORBIT_FACTOR_SLOWDOWN = 0.93
ORBIT_MOVED_SECONDS = 1.6e-7
#: Seconds per data set of R(n) on the routes by orbits, besides their representatives' work: R(n) itself, its prior
#: predictive, and the orbits' errors carried to every data set and averaged.  Profiled at Dir(1,1,1,1), n = 200, eps 1
#: (|R(n)| = 1,373,701; the factor route and the cap sums 94 % of the call, the rest ~1.8 s at the call's 30.7 CPU s,
#: ~1.3e-6 s each), fitted with a margin: the call was planned at 30.85 s without it (0.4 % over its run, load 5.4).
ORBIT_POINT_SECONDS = 2e-6
#: The share of a shared translation pass's seconds (its union's losses) each member past the first adds: its own
#: weights' products and corrections (:meth:`ClampedNoiseMechanism.plan_shared_errors`).
SHARED_LAW_SHARE = 0.1
#: The local sum of the noise-aware posterior keeps the c whose likelihood is within ``e^-(LOCAL_DROP_LOG + ln |R(n)|)``
#: of its largest value (:meth:`ClampedNoiseMechanism.local_posterior`).
LOCAL_DROP_LOG = 40.0
#: Seconds and bytes of the local sum per data set of its box (measured: k = 3, n = 1e6, eps = 0.1: 7.3e6 box points,
#: 3.4e6 kept, in 2.6 CPU s on 2 shared cores; with margin) and per kept data set (its counts, weights, marginals).
LOCAL_BOX_SECONDS, LOCAL_KEPT_BYTES = 6e-7, 120.0
#: Box points of the local sum handled at once.
LOCAL_CHUNK = 2**21
#: The local sum widens once (within the plan's limits) where its bound is over this.
LOCAL_TARGET = 1e-12


def offset_floor(log_point, k: int) -> int:
    """A floor of :func:`~dpposterior.lattice.scale.clamp_offsets`' count for a point table ``log_point`` of half-width
    ``D`` (:meth:`ClampedNoiseMechanism._log_point`, about 3x the level set's reach): ``(D / 4)^(k - 1)``, as
    ``(len // 8)^(k - 1)`` (checked against the count at k = 3 and 4 over eps and brackets in
    tests/library/test_clamp_orbits.py)."""
    return (len(log_point) // 8) ** (k - 1)


class ClampedNoiseMechanism(Mechanism):
    """``m_i = clamp(c_i + D_i, 0, n - m_1 - ... - m_{i-1})``, i < k, ``m_k = n - sum`` (docs/definitions.md §4, §9).

    ``scale(k, eps)``: the noise scale ``s``; subclasses give the noise law (tables and sampler).
    """

    #: their dense walk's rows cost more per pair than the exponential entries' (base.CLAMPED_DENSE_ROWS_PER_SECOND)
    dense_rows_per_second = CLAMPED_DENSE_ROWS_PER_SECOND

    def __init__(self, *, scale, releases_of: str | None = None, **kw):
        super().__init__(**kw)
        self._scale = scale
        if releases_of is not None:  # another entry of this law whose scale equals this one's at some k
            self.releases_of = releases_of

    def scale(self, k: int, epsilon: float) -> float:
        """The noise scale ``s`` (docs/definitions.md §4 Laplace table; docs/definitions.md §9 for ``geometric``)
        at a validated epsilon (a spec's; :func:`dpposterior.mechanisms.laplace_scale` validates a user's)."""
        return self._scale(k, epsilon)

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

    def release_key(self, prior, n: int, spec) -> tuple:
        """The noise's family and scale: the sequential clamp of one noise law at one scale is one release."""
        return ("sequential clamp", str(self.family), float(self.scale(len(prior), spec.epsilon)))

    def rows(self, prior, n, spec):
        return ClampedRows(prior, n, self.noise_tables(self.scale(prior.size, spec.epsilon), n))

    def _log_point(self, k: int, epsilon: float, tol: float) -> NDArray[np.float64]:
        """``ln P(D = d)`` of the pmf's own noise table on ``d = -D..D``, ``D`` wide enough for ``tol``."""
        s = self.scale(k, epsilon)
        D = scale_route.clamp_radius(lambda D: self.noise_tables(s, D - 1)[0], k, tol)
        return self.noise_tables(s, D - 1)[0]

    def translation_plan(self, n: int, k: int, epsilon: float, limit: float | None = None, prior=None
                         ) -> tuple[str, float, int, float]:
        """The translation route :meth:`direct_errors` takes past the pair budget (k >= 3, Hellinger), from
        public n, k and eps only: ``(route, tol, loss evaluations, estimated seconds)``.

        In order, the first within ``DPPOSTERIOR_MAX_PAIRS`` (its seconds times ``PAIRS_PER_SECOND``): the loss
        route (:func:`~dpposterior.lattice.scale.clamped_errors`, bracket ``<= DEFAULT_TOL`` = 1e-5; the numbers
        of every case it ran before), then the factor route
        (:func:`~dpposterior.lattice.scale.clamped_errors_by_factors`) with a bracket of at most 1e-5, then with
        :data:`~dpposterior.lattice.scale.WIDE_TOL` (1e-4), then :data:`~dpposterior.lattice.scale.COARSE_TOL` (1e-3)
        (:data:`~dpposterior.lattice.scale.FACTOR_TOLS`); else that last one, which the caller refuses.  Past the
        pair budget on ``|R(n)|`` alone, or on a floor of the offsets' count (small eps: a huge level set), nothing is
        enumerated (``("none", ...)``): its cost is then a floor, not the route's.  ``limit``: the pair budget (None:
        ``DPPOSTERIOR_MAX_PAIRS`` now).  ``prior``: from k = 4 where it has ``a_1 = ... = a_(k-1)``
        (:func:`~dpposterior.lattice.scale.orbit_symmetric`, a public input) the same chain runs by orbits
        (:meth:`orbit_plan`: ``"orbits (loss)"``, ``"orbits (factors)"``; at k = 3 the representatives are half of
        R(n) and the cap sums take back much of the saving: 39.0 s planned against the factor route's 30.2 at n = 1000,
        eps 0.5, so k = 3 keeps the chain before)."""
        size = n_candidates(n, k)
        limit = limit_setting("DPPOSTERIOR_MAX_PAIRS") if limit is None else limit
        if size > limit:  # past any budget whatever the offsets: not enumerated
            return "none", scale_route.DEFAULT_TOL, size * size, size * size / scale_route.EVALUATIONS_PER_SECOND
        log_point = self._log_point(k, epsilon, scale_route.DEFAULT_TOL)
        # the level set holds at least (D/4)^(k-1) offsets (D: the table's half-width, ~3x the level set's reach):
        # past the budget on that count alone even by factors, it is not enumerated either
        floor = offset_floor(log_point, k) * size
        if floor * PAIRS_PER_SECOND / scale_route.factor_rate(k) > limit:
            return "none", scale_route.DEFAULT_TOL, floor, floor / scale_route.factor_rate(k)
        if prior is not None and k >= 4 and scale_route.orbit_symmetric(prior):
            return self.orbit_plan(n, k, epsilon, limit)
        work = scale_route.clamped_work(n, k, log_point, scale_route.DEFAULT_TOL)
        seconds = scale_route.loss_seconds(k, work)
        if seconds * PAIRS_PER_SECOND <= limit:
            return "loss", scale_route.DEFAULT_TOL, work, seconds
        for tol in scale_route.FACTOR_TOLS:
            inner = scale_route.factor_tol(k, tol)
            work = scale_route.clamped_work(n, k, self._log_point(k, epsilon, inner), inner, scale_route.FACTOR_STEP)
            seconds = work / scale_route.factor_rate(k)
            if seconds * PAIRS_PER_SECOND <= limit:
                break
        return "factors", tol, work, seconds

    def orbit_plan(self, n: int, k: int, epsilon: float, limit: float | None = None) -> tuple[str, float, int, float]:
        """:meth:`translation_plan`'s chain by orbits of the first ``k - 1`` counts
        (:func:`~dpposterior.lattice.scale.clamped_errors_by_orbits`, a prior with ``a_1 = ... = a_(k-1)``): the loss
        route at the representatives with a bracket of 1e-5 (:data:`ORBIT_LOSS_SLOWDOWN`), then the factor route at the
        representatives with :data:`~dpposterior.lattice.scale.FACTOR_TOLS` (:data:`ORBIT_FACTOR_SLOWDOWN`, plus
        :data:`ORBIT_MOVED_SECONDS` per pair where a head clamp acts,
        :func:`~dpposterior.lattice.scale.orbit_moved_pairs`), each plus the cap sums (their visits at
        :data:`ORBIT_CAP_PER_SECOND`, their prefixes at :data:`ORBIT_PREFIX_SECONDS`) and :data:`ORBIT_POINT_SECONDS` per
        data set of R(n); the first within the pair budget,
        else the last (a bracket whose base route alone is over the budget skips its cap sums' count).  ``work``: the
        base route's losses plus the cap sums' visits.  Called by :meth:`translation_plan` past its checks of
        ``|R(n)|`` and of the offsets' floor, which are the same for both chains."""
        limit = limit_setting("DPPOSTERIOR_MAX_PAIRS") if limit is None else limit
        reps, points = scale_route.orbit_rows(n, k), float(n_candidates(n, k))
        tries = [("loss", scale_route.DEFAULT_TOL)] + [("factors", t) for t in scale_route.FACTOR_TOLS]

        def base_seconds(base: str, losses: float) -> float:
            return ORBIT_LOSS_SLOWDOWN * losses / scale_route.EVALUATIONS_PER_SECOND_ANY + ORBIT_SETUP_SECONDS \
                if base == "loss" else ORBIT_FACTOR_SLOWDOWN * losses / scale_route.factor_rate(k)

        for base, tol in tries:
            inner = scale_route.orbit_tol(k, tol, base)
            lp = self._log_point(k, epsilon, inner)
            step = scale_route.FACTOR_STEP if base == "factors" else 1.0
            last = (base, tol) == tries[-1]
            # the offsets' floor (translation_plan's, at this table): over the budget on it, the count would be too
            if not last and base_seconds(base, offset_floor(lp, k) * reps) * PAIRS_PER_SECOND > limit:
                continue
            losses = scale_route.offsets_count(lp, k, inner, step) * reps
            seconds = base_seconds(base, losses)
            if seconds * PAIRS_PER_SECOND > limit and not last:
                continue  # over the budget before its moved pairs and cap sums: the next bracket
            if base == "factors":
                seconds += ORBIT_MOVED_SECONDS * scale_route.orbit_moved_pairs(n, k, lp, inner, step)
            cap, prefixes = scale_route.orbit_cap_work(n, k, lp, inner, step)
            seconds += cap / ORBIT_CAP_PER_SECOND + prefixes * ORBIT_PREFIX_SECONDS + ORBIT_POINT_SECONDS * points
            if seconds * PAIRS_PER_SECOND <= limit:
                break
        return f"orbits ({base})", tol, losses + cap, seconds

    def plan_errors(self, prior, n: int, spec, measure: str | None = None) -> Plan:
        """k >= 3, Hellinger, past the pair budget of the dense walk: the translation route of :meth:`translation_plan`
        (``"translation (loss)"`` or ``"translation (factors)"``, its bracket the route's tolerance), its estimated
        seconds counted at ``PAIRS_PER_SECOND`` against ``DPPOSTERIOR_MAX_PAIRS``; else the dense walk (today's
        numbers, bit for bit, wherever it runs)."""
        k = len(prior)
        if k < 3 or (measure or spec.distance) != DEFAULT_DISTANCE or \
                2 * n_candidates(n, k) ** 2 <= limit_setting("DPPOSTERIOR_MAX_PAIRS"):
            return super().plan_errors(prior, n, spec, measure)
        route, tol, work, seconds = self.translation_plan(n, k, spec.epsilon, prior=prior)
        return Plan(task=Task.ERRORS, route=f"translation ({'not enumerated' if route == 'none' else route})",
                    what=self.errors_what(n, k, spec), seconds=seconds, bracket=tol,
                    memory_bytes=TRANSLATION_BYTES + 8.0 * (k + TRANSLATION_POINT_WORDS) * n_candidates(n, k),
                    costs=(("DPPOSTERIOR_MAX_PAIRS", float(math.ceil(seconds * PAIRS_PER_SECOND))),),
                    advice="use a smaller n")

    def direct_errors(self, plan: Plan, prior, n: int, spec, measure: str | None = None):
        """Run the translation route of :meth:`plan_errors` (a :class:`~dpposterior.lattice.scale.Bracket`)."""
        k = int(np.asarray(prior).size)
        if plan.route in ("translation (orbits (loss))", "translation (orbits (factors))"):
            base = plan.route[len("translation (orbits ("):-2]
            inner = scale_route.orbit_tol(k, plan.bracket, base)
            return scale_route.clamped_errors_by_orbits(prior, int(n), self._log_point(k, spec.epsilon, inner), inner,
                                                        base)
        if plan.route == "translation (loss)":
            return scale_route.clamped_errors(prior, int(n), self._log_point(k, spec.epsilon, plan.bracket))
        inner = scale_route.factor_tol(k, plan.bracket)
        return scale_route.clamped_errors_by_factors(prior, int(n), self._log_point(k, spec.epsilon, inner), inner)

    def errors_pass(self, plan: Plan, prior, n: int, spec) -> tuple | None:
        """The factor route (k >= 3, Hellinger): every sequential clamp on it with the same bracket shares its losses
        (the boundary rule is one; only the noise law's weights differ), so one pass computes them all
        (:func:`~dpposterior.lattice.scale.clamped_errors_by_factors_shared`, the same floats as each law's own
        run).  The loss route runs alone: a pass over it gave other floats at n = 500 (its blocks' rows differ) and
        no saving (61.8 CPU s for two runs, 66.3 for one pass; its data sets near the boundary take one loss per
        offset either way)."""
        if plan.route != "translation (factors)":
            return None
        return ("sequential clamp", plan.route, float(plan.bracket), len(prior), int(n))

    def _pass_points(self, members: list, k: int) -> tuple[list, float]:
        """The point tables of ``members`` (``[(plan, spec), ...]``, one :meth:`errors_pass` key) as their own runs
        read them, and the inner tolerance."""
        inner = scale_route.factor_tol(k, members[0][0].bracket)
        return [spec.mechanism._log_point(k, spec.epsilon, inner) for _, spec in members], inner

    def plan_shared_errors(self, members: list, prior, n: int) -> Plan:
        """One pass over the union of the members' offsets: ``|union| |R(n)|`` losses at the factor route's rate,
        plus :data:`SHARED_LAW_SHARE` of that for each member past the first (its own weights' products and
        corrections), counted against ``DPPOSTERIOR_MAX_PAIRS`` as each member's own plan is."""
        k = len(prior)
        points, inner = self._pass_points(members, k)
        work = scale_route.shared_work(n, k, points, inner, scale_route.FACTOR_STEP)
        seconds = work / scale_route.factor_rate(k) * (1.0 + SHARED_LAW_SHARE * (len(members) - 1))
        return replace(members[0][0], what=f"the expected errors of {len(members)} sequential clamps in one pass for "
                       f"k={k}, n={n}", seconds=seconds,
                       memory_bytes=TRANSLATION_BYTES + 8.0 * (k + TRANSLATION_POINT_WORDS + 2 * len(members))
                       * n_candidates(n, k),
                       costs=(("DPPOSTERIOR_MAX_PAIRS", float(math.ceil(seconds * PAIRS_PER_SECOND))),))

    def shared_errors(self, members: list, prior, n: int) -> list:
        """Run :meth:`plan_shared_errors`'s pass: one :class:`~dpposterior.lattice.scale.Bracket` per member, the
        same floats as its own :meth:`direct_errors` (tested against it)."""
        points, inner = self._pass_points(members, int(np.asarray(prior).size))
        return scale_route.clamped_errors_by_factors_shared(prior, int(n), points, inner)

    def log_likelihood(self, rows, released, counts):
        """``ln P(m | c)`` for every c from the noise tables alone (one cell product per c)."""
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, rows.k)
        return clamped_log_pmf_rows(rows.tables, counts, np.asarray(released, dtype=np.int64)[None, :])[:, 0]

    def log_likelihood_cost(self, rows):
        return rows.k

    def log_likelihood_bound(self, rows, released, counts):
        """Exact (the column is as cheap as any bound)."""
        return self.log_likelihood(rows, released, counts)

    # -- the noise-aware posterior, locally (docs/definitions.md, "Noise-aware posterior") ------------------------

    def _local_reach(self, k: int, n: int, epsilon: float) -> tuple[float, int]:
        """``(Lambda, h)``: the kept log-likelihood gap ``LOCAL_DROP_LOG + ln |R(n)|`` and the half-width ``h`` of a
        coordinate's kept values (``Lambda`` over the noise's decay ``1/s`` per unit), from public k, n, eps."""
        lam = LOCAL_DROP_LOG + math.log(float(n_candidates(n, k)))
        return lam, min(n, math.ceil(lam * self.scale(k, epsilon)) + 1)

    def plan_posterior(self, prior, n: int, spec) -> Plan:
        """The local sum (:meth:`local_posterior`, ``"local sum"``): a box of ``(2 h + 1)^(k - 1)`` data sets at most
        around the release, held to ``DPPOSTERIOR_MAX_POSTERIOR_WORK`` (k score evaluations per box point) and the
        memory of the kept data sets (about ``1 / (k - 1)!`` of the box: the cross-polytope ``sum |c_i - m_i| <= h``
        inside it), from public k, n, eps."""
        k = len(prior)
        what = f"the noise-aware posterior of {self.label(spec)} for k={k}, n={n}, eps={spec.epsilon:g} (the data sets " \
               "near the release)"
        if n < 1:  # R(0) is one data set: the exact sum always runs
            return Plan(task=Task.POSTERIOR, route=NO_ROUTE, what=what, refusal="no local route")
        _, h = self._local_reach(k, n, spec.epsilon)
        box = float(min(n_candidates(n, k), (2 * h + 1) ** (k - 1)))
        return Plan(task=Task.POSTERIOR, route="local sum", what=what, seconds=LOCAL_BOX_SECONDS * box,
                    memory_bytes=LOCAL_KEPT_BYTES * box / math.factorial(k - 1) + 8.0 * 4 * (n + 1) * k
                    + 16.0 * k * LOCAL_CHUNK,
                    bracket=math.exp(-LOCAL_DROP_LOG), costs=(("DPPOSTERIOR_MAX_POSTERIOR_WORK", k * box),),
                    advice="use a larger eps")

    def local_posterior(self, plan: Plan, prior, n: int, spec, released):
        """``(counts, log weights, |R(n)|, bound)`` of the noise-aware posterior of ``released`` (docs/definitions.md,
        "Noise-aware posterior") over the data sets near it.

        The likelihood is a product of one cell per coordinate, ``P(m | c) = prod_{i < k} f_i(c_i)`` (the cells of
        :func:`clamped_log_pmf_rows`, whose floats these are: ``f_i`` depends on ``m`` and ``c_i`` alone).  With
        ``g_i = ln f_i - max ln f_i`` (``<= 0``) and ``Lambda = LOCAL_DROP_LOG + ln |R(n)|``, the kept data sets are
        every c of R(n) with ``sum_i g_i(c_i) >= -Lambda`` (all in the box of the values with ``g_i >= -Lambda``).

        Bound (proof).  A c left out has ``P(m | c) < e^-Lambda prod_i max f_i =: e^-Lambda F``, so the mass left
        out is ``sum_{c out} pi(c) P(m | c) <= e^-Lambda F (1 - pi(kept))`` (the noise's tail times the prior
        predictive mass of the rest), and relative to the kept mass ``sum_{c kept} pi(c) P(m | c)`` at most
        ``e^-Lambda F (1 - pi(kept)) / kept`` (times ``1 + 1e-6`` for rounding)."""
        a = np.asarray(prior, dtype=np.float64)
        k = a.size
        m = np.asarray(released, dtype=np.int64).reshape(k)
        lam, _ = self._local_reach(k, n, spec.epsilon)
        cells = self._local_cells(k, n, spec.epsilon, m)
        out = _local_sum(a, n, cells, lam)
        if math.isfinite(out[3]) and out[3] > math.log(LOCAL_TARGET):
            # the prior's weight leans away from the release: widen the sum once, as far as the bound asks, where the
            # wider box fits the plan's own limits (its size is known before it is enumerated)
            wider = lam + out[3] - math.log(LOCAL_TARGET) + 1.0
            box = _box_size(cells, wider, n)
            if box * k <= limit_setting("DPPOSTERIOR_MAX_POSTERIOR_WORK") and \
                    LOCAL_KEPT_BYTES * box <= limit_setting("DPPOSTERIOR_MEMORY_GB") * 2**30:
                out = _local_sum(a, n, cells, wider)
        counts, logw, size, log_bound = out
        return counts, logw, size, math.exp(min(log_bound, 700.0)) if math.isfinite(log_bound) else math.inf

    def _local_cells(self, k: int, n: int, epsilon: float, m) -> list:
        """``ln f_i(c_i)`` for ``c_i = 0..n``, ``i < k``: the cells of :func:`clamped_log_pmf_rows` at the release."""
        point, upper, lower = self.noise_tables(self.scale(k, epsilon), n)
        c = np.arange(n + 1)
        cells, remaining = [], n
        for i in range(k - 1):  # f_i(c_i), c_i = 0..n, as clamped_log_pmf_rows reads them
            if remaining == 0:
                cell = np.zeros(n + 1)
            elif m[i] == 0:
                cell = lower[c + n + 1]
            elif m[i] == remaining:
                cell = upper[remaining - c + n + 1]
            else:
                cell = point[m[i] - c + n + 1]
            cells.append(cell)
            remaining -= int(m[i])
        return cells

    def log_pmf(self, prior, counts, spec):
        n, k = int(counts.sum()), counts.size
        self.check_size(n, k, "the exact output distribution")
        return clamped_log_pmf_rows(self.noise_tables(self.scale(k, spec.epsilon), n), counts[None, :],
                                    candidates(n, k))[0]

    def sample(self, prior, counts, spec, size, rng):
        """The sequential clamp with exact integer noise; counts up to ``validate.MAX_TOTAL`` (< 2^53)
        and noise clipped to ``+-2^62`` (probability below ``exp(-2^62 / s)``) keep int64 exact."""
        n, k = int(counts.sum()), counts.size
        d = self.noise(self.scale(k, spec.epsilon), (size, k - 1), rng)
        out = np.empty((size, k), dtype=np.int64)
        remaining = np.full(size, n, dtype=np.int64)
        for i in range(k - 1):
            out[:, i] = np.clip(counts[i] + d[:, i], 0, remaining)
            remaining -= out[:, i]
        out[:, k - 1] = remaining
        return out


def _hulls(cells: list, lam: float, n: int) -> list[tuple[int, int]]:
    """Per coordinate, the smallest and largest ``c_i`` with ``ln f_i(c_i) >= max ln f_i - lam`` and
    ``c_i <= n - (the smallest c_j of the coordinates before)`` (no kept data set lies beyond)."""
    out, floor = [], 0
    for cell in cells:
        ok = np.flatnonzero(cell[:n - floor + 1] - cell.max() >= -lam)
        if not ok.size:
            return []
        out.append((int(ok[0]), int(ok[-1])))
        floor += int(ok[0])
    return out


def _box_size(cells: list, lam: float, n: int) -> float:
    """Points of the box :func:`_local_sum` enumerates at the gap ``lam``."""
    return float(math.prod(hi - lo + 1 for lo, hi in _hulls(cells, lam, n)))


def _local_sum(a: NDArray[np.float64], n: int, cells: list, lam: float):
    """:meth:`ClampedNoiseMechanism.local_posterior` at the kept gap ``lam``: ``(counts, log weights, |R(n)|,
    ln bound)``."""
    k = a.size
    c = np.arange(n + 1)
    tops = [float(cell.max()) for cell in cells]
    gaps = [cell - top for cell, top in zip(cells, tops)]
    hulls = _hulls(cells, lam, n)
    if not hulls:
        return np.zeros((0, k), dtype=np.int64), np.zeros(0), n_candidates(n, k), math.inf
    # ln pi(c) = const + sum_i [lnGamma(a_i + c_i) - lnGamma(c_i + 1)] (DirMult, models.log_prior_predictive)
    x = c.astype(np.float64)
    big_a = float(a.sum())
    const = float(gammaln(n + 1.0) + gammaln(big_a) - gammaln(n + big_a) - gammaln(a).sum())
    lg = [gammaln(a[i] + x) - gammaln(x + 1.0) for i in range(k)]
    heads = [np.arange(lo, hi + 1) for lo, hi in hulls]
    grid = np.stack([g.ravel() for g in np.meshgrid(*heads[1:], indexing="ij")], axis=1) if k > 2 else \
        np.zeros((1, 0), dtype=np.int64)
    kept_c, kept_lw = [], []
    pi_kept = 0.0
    step = max(1, LOCAL_CHUNK // max(1, len(grid)))
    for lo in range(0, len(heads[0]), step):
        c1 = heads[0][lo:lo + step]
        head = np.concatenate([np.repeat(c1, len(grid))[:, None], np.tile(grid, (len(c1), 1))], axis=1)
        last = n - head.sum(axis=1)
        gap = np.zeros(len(head))
        for i in range(k - 1):
            gap += gaps[i][head[:, i]]
        ok = (last >= 0) & np.all(head >= 0, axis=1) & (gap >= -lam)
        for i in range(1, k - 1):  # each prefix feasible (c_i <= n - c_1 - ... - c_(i-1))
            ok &= head[:, :i + 1].sum(axis=1) <= n
        head, last = head[ok], last[ok]
        cs = np.concatenate([head, last[:, None]], axis=1)
        lp = const + sum(lg[i][cs[:, i]] for i in range(k))
        ll = sum(cells[i][cs[:, i]] for i in range(k - 1))
        kept_c.append(cs)
        kept_lw.append(lp + ll)
        pi_kept += float(np.exp(lp).sum())
    counts = np.concatenate(kept_c) if kept_c else np.zeros((0, k), dtype=np.int64)
    logw = np.concatenate(kept_lw) if kept_lw else np.zeros(0)
    log_kept = float(logsumexp(logw)) if logw.size else -math.inf
    rest = min(1.0, max(0.0, 1.0 - pi_kept) + 1e-9)
    log_bound = -lam + sum(tops) + math.log(rest) - log_kept + 1e-6  # 1e-6: the sums' rounding
    return counts, logw, n_candidates(n, k), log_bound


class LaplaceMechanism(ClampedNoiseMechanism):
    """Laplace noise ``Y ~ Laplace(0, s)``, released as ``floor(c_i + Y_i)`` (docs/definitions.md §4, 003 Alg. 1-3)."""

    family = Family.LAPLACE
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
        return floor_laplace(1 / Fraction(scale), count, bits)


class GeometricMechanism(ClampedNoiseMechanism):
    """Two-sided geometric (discrete Laplace) noise, ``P(D = d) ∝ exp(-|d|/s)`` (docs/definitions.md §9).

    The sampler uses integer arithmetic only (Canonne, Kamath and Steinke 2020): ``1/s`` is taken
    as the exact rational value of the double ``1/s`` the pmf uses.
    """

    family = Family.GEOMETRIC
    compare_first = True  # compare shows it first among the baselines
    sampling_guarantee = ("exact integer sampling (CKS 2020) at the exact rational value of the double 1/s "
                          "the pmf uses: total variation 0, no delta added")

    def noise_tables(self, scale, n):
        return geometric_noise_tables(scale, n)

    def plan_errors(self, prior, n: int, spec, measure: str | None = None) -> Plan:
        """k = 2: the identity remap's risk (:meth:`direct_errors`, ``"remap risk"``, O(n W): the window of z
        around each c); k >= 3: :meth:`ClampedNoiseMechanism.plan_errors`."""
        if len(prior) != 2:
            return super().plan_errors(prior, n, spec, measure)
        return risk_plan(self.errors_what(n, 2, spec), n, 1.0 / self.scale(2, spec.epsilon))

    def direct_errors(self, plan: Plan, prior, n: int, spec, measure: str | None = None):
        """k = 2: the release is the clamped geometric kernel ``G(z | c)`` of docs/definitions.md §10 with the
        identity remap (``z = clamp(c + D, 0, n)``, ``P(D <= -c) = q^c/(1+q)`` at z = 0, ``P(D >= n-c)`` at
        z = n, ``(1-q)/(1+q) q^|z-c|`` between, ``q = e^(-1/s)``: cell for cell the tables of
        :func:`geometric_noise_tables`), so ``E(c)`` is :func:`dpposterior.remap.risk` of the identity with
        the loss of ``measure`` (default ``spec.distance``), O(n W) (docs/definitions.md §9, expected error).
        k >= 3: the translation route of :meth:`ClampedNoiseMechanism.direct_errors`."""
        a = np.asarray(prior, dtype=np.float64)
        if a.size != 2:
            return super().direct_errors(plan, prior, n, spec, measure)
        kernel = rm.geometric_kernel(int(n), 1.0 / self.scale(2, spec.epsilon))  # the rate the tables use
        return rm.risk(kernel, rm.Remap.identity(int(n)), rm.loss_for(measure or spec.distance, a, int(n)))

    def draw(self, scale, count, bits):
        return discrete_laplace(1.0 / scale, count, bits)


#: The proof of the Laplace and geometric entries' claims, kept beside them.
_NOISE_PROOF = ("Adjacent data sets (one record changed) differ by 1 in two counts, L1 distance 2 (k = 2: the "
                "first count alone determines the release, distance 1); noise of scale s = sensitivity / eps on "
                "each count changes each output's probability by at most e^(sensitivity / s) = e^eps, and the "
                "clamping is post-processing.")

#: The clamped-noise family's registry entries, in registry order.
CLAMPED_MECHANISMS = [
    LaplaceMechanism(
        id="lszhang", name="Laplace (Zhang et al.)", seed_name="003 LSZhang (Zhang et al. 2016)",
        weight_or_scale="2 / eps",
        guarantee=Guarantee.theorem("eps-DP: Laplace on counts, L1 sensitivity 2", pure(),
                                    reference="Dwork et al. 2006 (Laplace mechanism); Zhang et al. 2016",
                                    proof=_NOISE_PROOF),
        scale=lambda k, eps: 2.0 / eps),
    LaplaceMechanism(
        id="lsdim", name="Laplace", seed_name="003 LSDim, 004 Laplace mechanism", weight_or_scale="2/eps (k=2), k/eps",
        releases_of="lszhang",  # k = 2: lszhang's scale 2 / eps, so its release (release_key)
        guarantee=Guarantee.theorem("eps-DP (003 Thm 3.1)", pure(),
                                    reference="Dwork et al. 2006 (Laplace mechanism); 003 Thm 3.1",
                                    proof=_NOISE_PROOF + " Scale k / eps >= 2 / eps for k >= 2."),
        scale=lambda k, eps: (2.0 if k == 2 else float(k)) / eps),
    LaplaceMechanism(
        id="lshist", name="improved Laplace", seed_name="003 LSHist, 004 improved Laplace",
        weight_or_scale="1/eps (k=2), 2/eps",
        releases_of="lszhang",  # k >= 3: lszhang's scale 2 / eps, so its release (release_key)
        guarantee=Guarantee.theorem("eps-DP: histogram sensitivity (003 Thm 3.1)", pure(),
                                    reference="Dwork et al. 2006 (Laplace mechanism); 003 Thm 3.1",
                                    proof=_NOISE_PROOF),
        scale=lambda k, eps: (1.0 if k == 2 else 2.0) / eps),
    GeometricMechanism(
        id="geometric", name="geometric (discrete Laplace)",
        seed_name="beyond the drafts: lshist with discrete Laplace noise",
        weight_or_scale="1/eps (k=2), 2/eps",
        guarantee=Guarantee.theorem(
            "eps-DP: discrete Laplace on counts, histogram sensitivity (Ghosh, Roughgarden and Sundararajan 2012)",
            pure(), reference="Ghosh, Roughgarden and Sundararajan 2012", proof=_NOISE_PROOF),
        scale=lambda k, eps: (1.0 if k == 2 else 2.0) / eps),
]
