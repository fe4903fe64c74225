"""The exponential family (docs/definitions.md §4): ``ehd``, ``ehdl``, ``ehds``, ``mh``, ``mh-delta``.

``P(r) proportional to exp(-w(c) D(BI(c), r))``, normalised with log-sum-exp; ``D`` is
``spec.distance`` (default Hellinger, computed by :class:`HellingerGrid` as before) and the weights
use that distance's sensitivities (:mod:`dpposterior.sensitivity`).  Each entry carries
its weight ``w(c)`` (one data set) and a batch weight function over R(n).  The calibrated variant
(weight ``kappa* w(c)``, pure eps-DP certified by exact computation) is built on top of these
entries by :mod:`.calibrated`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..distances import DEFAULT_DISTANCE, HellingerGrid, beta_matrix, get_distance, hellinger, hellinger_from_log_bc
from ..errors import InputError, SizeError
from ..limits import limit_setting
from ..models import candidate_rank, candidates, n_candidates
from ..sampling import ENUMERATE_UP_TO, EXPONENTIAL_SAMPLING_GUARANTEE, check_sampler_size, sample_exponential
from ..sensitivity import (
    beta_smooth_sensitivity,
    beta_smooth_sensitivity_all_of,
    global_sensitivity,
    global_sensitivity_of,
    local_sensitivity_of,
    smooth_sensitivity,
    smooth_sensitivity_all_of,
)
from ..validate import estimate_text
from .base import CACHE_CHUNK_BYTES, Family, Guarantee, Mechanism, Rows, Setting, _bits, _inverse_cdf, approximate, pure

if TYPE_CHECKING:
    from .spec import ReleaseSpec


def exponential_log_pmf_rows(weights: ArrayLike, scores: ArrayLike) -> NDArray[np.float64]:
    """``ln P(r) = -w H(r) - logsumexp(-w H)`` row by row: weights ``(B,)``, scores ``(B, N)``.

    A weight of ``+inf`` (a sensitivity of 0: at n = 0, where R(n) is one point and no data set has a
    neighbour) is the limit ``w -> inf`` of the same pmf: uniform on the scores' argmin, 0 elsewhere
    (docs/definitions.md, the exponential mechanism). Without it ``inf * 0`` would give NaN.
    """
    w = np.asarray(weights, dtype=np.float64)
    if np.isposinf(w).any():
        s = np.asarray(scores, dtype=np.float64)
        out = np.empty(s.shape, dtype=np.float64)
        inf = np.isposinf(w)
        if (~inf).any():
            out[~inf] = exponential_log_pmf_rows(w[~inf], s[~inf])
        best = s[inf] == s[inf].min(axis=1, keepdims=True)
        out[inf] = np.where(best, -np.log(best.sum(axis=1, keepdims=True)), -np.inf)
        return out
    x = np.multiply(-w[:, None], np.asarray(scores, dtype=np.float64))
    top = x.max(axis=1, keepdims=True)  # log-sum-exp, in place: this is the hot loop of privacy.py
    e = np.subtract(x, top)
    x -= top + np.log(np.exp(e, out=e).sum(axis=1, keepdims=True))
    return x


class ExponentialRows(Rows):
    """Rows of an exponential mechanism: ``D(BI(c), r)`` (Hellinger: from a :class:`HellingerGrid`), weights per c."""

    walk_chunk_bytes = CACHE_CHUNK_BYTES  # elementwise scores, a row-wise log-sum-exp: the same floats in any chunk

    def __init__(self, a, n, weights, factor: float = 1.0, distance: str = DEFAULT_DISTANCE):
        super().__init__(a, n)
        self.distance = get_distance(distance)
        self.distance.check(self.k)
        self.grid = HellingerGrid(a, n)
        self.weights_of = weights  # counts (B, k) -> w(c) (B,)
        self.factor = float(factor)

    def weights(self, counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """``kappa w(c)`` for each row of counts (kappa = 1 unless calibrated)."""
        with np.errstate(divide="ignore"):  # a sensitivity of 0 (n = 0) is the weight +inf: see above
            return self.factor * np.asarray(self.weights_of(counts), dtype=np.float64)

    def hellinger(self, counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """The score rows ``D(BI(c), r)`` over R(n), ``(B, N)`` (``H`` by default, hence the name)."""
        if self.distance.name != DEFAULT_DISTANCE:
            counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
            M = beta_matrix(self.distance.name, self.a, self.n)
            if M is not None:  # k = 2: the kept matrix (same values)
                return M[counts[:, 0]][:, self.cands[:, 0]]
            return self.distance.value((self.a + counts)[:, None, :], (self.a + self.cands)[None, :, :])
        lbc = self.grid.log_bc(counts, self.cands)
        return hellinger_from_log_bc(lbc, out=lbc)

    scores = hellinger

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        return exponential_log_pmf_rows(self.weights(counts), self.hellinger(counts))

    def with_losses(self, counts, grid):
        """Where the error is measured by the score's own distance, the score rows are the error rows (the same
        :class:`HellingerGrid` or distance, the same operations): computed once, not twice."""
        if grid.distance.name != self.distance.name:
            return super().with_losses(counts, grid)
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        h = self.hellinger(counts)
        return exponential_log_pmf_rows(self.weights(counts), h), h


class ExponentialMechanism(Mechanism):
    """``P(r | c) proportional to exp(-w(c) H(BI(c), r))`` (docs/definitions.md §4).

    ``weight(a, c, spec)``: ``w(c)`` for one data set; ``weights_all(a, n, spec)``: a function
    of a ``(B, k)`` batch of data sets of size n giving their weights (precomputed over R(n)).
    """

    family = Family.EXPONENTIAL
    tailored = True  # the score u(c, r) = -D(BI(c), r) and its sensitivities
    calibratable = True
    sampling_guarantee = EXPONENTIAL_SAMPLING_GUARANTEE

    def __init__(self, *, weight, weights_all, check=None, tail_bound: str | None = None, **kw):
        super().__init__(**kw)
        self._weight, self._weights_all, self._check = weight, weights_all, check
        self.tail_bound = tail_bound

    def check(self, spec):
        spec = super().check(spec)
        return self._check(spec) if self._check is not None else spec

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
        within ``DPPOSTERIOR_MAX_RELEASE_WORK`` (see :data:`dpposterior.limits.LIMITS`; about 6 s
        for one bare draw and 48 s for a padded release in the worst case, ehd)."""
        if n_candidates(n, k) <= ENUMERATE_UP_TO:
            self.check_size(n, k, "the exact output distribution")
            return
        check_sampler_size(n, k)
        entries = k * (n + 1)
        limit = limit_setting("DPPOSTERIOR_MAX_RELEASE_WORK")
        if entries > limit:
            raise SizeError(f"{what} of {self.id} for k={k}, n={n} covers sampler tables of {entries:.3g} entries "
                            f"(up to {estimate_text(entries * setups * self.table_seconds)} s here), over the limit of "
                            f"{limit:.3g} (set DPPOSTERIOR_MAX_RELEASE_WORK to raise it)")

    def factor(self, a, n: int, spec: ReleaseSpec) -> float:
        """The weight factor: 1 here; the calibrated mechanism (:mod:`.calibrated`) returns ``kappa*``
        (a calibrated spec runs ``spec.mechanism``, the calibrated one; it reaches this entry only by mistake)."""
        if spec.calibrate:
            raise InputError(f"{self.id} is the uncalibrated mechanism; a calibrated spec runs spec.mechanism, "
                             "the calibrated one")
        return 1.0

    def weight(self, a, c, spec: ReleaseSpec) -> float:
        """``kappa w(c)`` for one data set (kappa = 1 unless calibrated)."""
        return self.factor(a, int(c.sum()), spec) * self._weight(a, c, spec)

    def rows(self, prior, n, spec):
        return ExponentialRows(prior, n, self._weights_all(prior, n, spec), self.factor(prior, n, spec),
                               spec.distance)

    def log_pmf(self, prior, counts, spec):
        n, k = int(counts.sum()), counts.size
        self.check_size(n, k, "the exact output distribution")
        self.check_distance(spec, k)
        w = self.weight(prior, counts, spec)
        if spec.distance != DEFAULT_DISTANCE:
            scores = get_distance(spec.distance).value(prior + counts, prior + candidates(n, k))
        else:
            scores = hellinger(prior + counts, prior + candidates(n, k))
        return exponential_log_pmf_rows([w], scores[None, :])[0]

    def log_likelihood_bound(self, rows, released, counts):
        """``ln P(m | c) <= -w(c) D(BI(c), m)``: the normaliser is at least the term ``r = BI(c)``, which is 1."""
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, rows.k)
        if rows.distance.name != DEFAULT_DISTANCE:  # D(BI(c), m): not symmetric in general
            m = rows.a + np.asarray(released, dtype=np.int64)[None, :]
            return -rows.weights(counts) * rows.distance.value(rows.a + counts, m)
        lbc = rows.grid.log_bc(np.asarray(released, dtype=np.int64)[None, :], counts)[0]  # H is symmetric
        return -rows.weights(counts) * hellinger_from_log_bc(lbc, out=lbc)

    def _check_sampler(self, n: int, k: int, spec: ReleaseSpec) -> None:
        if n_candidates(n, k) > ENUMERATE_UP_TO and spec.distance != DEFAULT_DISTANCE:
            raise SizeError(f"drawing from {self.id} under {spec.distance} needs the exact pmf over R(n), "
                            f"which has more than {ENUMERATE_UP_TO:,} outputs at k={k}, n={n} (the rejection "
                            "sampler is built for Hellinger; use --distance hellinger or a smaller n)")

    def set_up(self, prior, n: int, spec: ReleaseSpec) -> None:
        """Refuse, from public (n, k, distance), a draw no sampler can make (another distance than Hellinger past
        ``ENUMERATE_UP_TO`` outputs), before a ledger is charged; build nothing."""
        self._check_sampler(int(n), len(prior), spec)

    def sample(self, prior, counts, spec, size, rng):
        """Draws with random bits on demand (guarantee: :data:`~dpposterior.sampling.EXPONENTIAL_SAMPLING_GUARANTEE`).

        Under a distance other than Hellinger only the inverse cdf over the exact pmf exists (|R(n)| up to
        ``ENUMERATE_UP_TO``); above, a one-line refusal (the rejection sampler's envelope is Hellinger's)."""
        rng = _bits(rng)
        n, k = int(counts.sum()), counts.size
        self._check_sampler(n, k, spec)
        if n_candidates(n, k) > ENUMERATE_UP_TO:  # exact rejection sampler, R(n) never listed
            check_sampler_size(n, k)
            return sample_exponential(prior, counts, self.weight(prior, counts, spec), size, rng)
        return _inverse_cdf(self.log_pmf(prior, counts, spec), candidates(n, k), size, rng)


def _check_mh(spec: ReleaseSpec) -> ReleaseSpec:
    if spec.gamma != 1.0:
        raise InputError("mechanism 'mh' is defined with gamma = 1 (004 Def. 6); use 'ehds' for another gamma")
    return spec


def _global(a, n: int, p) -> float:
    """GS of the spec's method: the drafts' constant, or the exact GS of a validated prior (docs/definitions.md §3)."""
    if p.global_sensitivity_method == "exact":
        return global_sensitivity_of(a, n, p.distance)
    return global_sensitivity(a, n, p.global_sensitivity_method, p.distance)


def _const(fn):
    """A batch weight function for a weight that does not depend on c."""
    def weights_all(a, n, p):
        w = fn(a, n, p)
        return lambda counts: np.full(len(counts), w)
    return weights_all


def _by_rank(all_fn):
    """A batch weight function from weights tabulated over R(n) (in ``candidates`` order)."""
    def weights_all(a, n, p):
        with np.errstate(divide="ignore"):  # a sensitivity of 0 (n = 0) is the weight +inf
            table = all_fn(a, n, p)
        return lambda counts: table[candidate_rank(counts)]
    return weights_all


#: The exponential family's registry entries, in registry order.
EXPONENTIAL_MECHANISMS = [
    ExponentialMechanism(
        id="ehd", name="EHD (global sensitivity)", seed_name="003 EHD, 004 4.1.1", weight_or_scale="eps / (2 GS)",
        guarantee=Guarantee.theorem(
            "eps-DP: exponential mechanism with the global sensitivity of H (003 Thm 3.1)", pure(),
            reference="McSherry and Talwar 2007, Thm 6 (003 Thm 3.1)",
            proof="|u(c, r) - u(c', r)| <= GS for adjacent c, c', so each weight exp(-eps H / (2 GS)) changes by at "
                  "most e^(eps/2) and the normaliser by at most e^(eps/2): the ratio of probabilities is <= e^eps."),
        uses={Setting.GLOBAL_SENSITIVITY},
        weight=lambda a, c, p: p.epsilon / (2.0 * _global(a, int(c.sum()), p)),
        weights_all=_const(lambda a, n, p: p.epsilon / (2.0 * _global(a, n, p)))),
    ExponentialMechanism(
        id="ehdl", name="EHDL (local sensitivity)", seed_name="003 EHDL, 004 4.1.2",
        weight_or_scale="eps / (2 LS(c))",
        guarantee=Guarantee.none("none: local sensitivity is data dependent, not DP (baseline)"),
        weight=lambda a, c, p: p.epsilon / (2.0 * local_sensitivity_of(a, c, p.distance)),
        weights_all=lambda a, n, p: (lambda counts: p.epsilon / (2.0 * local_sensitivity_of(a, counts, p.distance)))),
    ExponentialMechanism(
        id="ehds", name="EHDS (gamma-smooth sensitivity)", seed_name="003 EHDS",
        weight_or_scale="eps / (2 (1+gamma) S(c))",
        guarantee=Guarantee.draft("eps-DP: gamma-smooth sensitivity (003 Thm 3.1)", pure(),
                                  reference="003 Thm 3.1"),
        uses={Setting.GAMMA},
        weight=lambda a, c, p: p.epsilon / (2.0 * (1.0 + p.gamma) * smooth_sensitivity(a, c, p.gamma, p.distance)),
        weights_all=_by_rank(lambda a, n, p: p.epsilon / (2.0 * (1.0 + p.gamma)
                                                          * smooth_sensitivity_all_of(a, n, p.gamma, p.distance)))),
    ExponentialMechanism(
        id="mh", name="M_H (smooth sensitivity)", seed_name="004 Def. 6 (M_H)",
        weight_or_scale="eps / (2 S(c)), gamma = 1",
        guarantee=Guarantee.draft("2 eps-DP (004 Lemma 5.6)", pure(2.0), reference="004 Lemma 5.6"),
        tail_bound="004 §6.2",
        weight=lambda a, c, p: p.epsilon / (2.0 * smooth_sensitivity(a, c, 1.0, p.distance)),
        weights_all=_by_rank(lambda a, n, p: p.epsilon / (2.0 * smooth_sensitivity_all_of(a, n, 1.0, p.distance))),
        check=_check_mh),
    ExponentialMechanism(
        id="mh-delta", name="M_H (beta-smooth, delta)", seed_name="000 Def. 4.1, 001/002",
        weight_or_scale="eps / (2 S_b(c))",
        guarantee=Guarantee.draft("(eps, delta)-DP with beta-smooth sensitivity (000 Lemma 4.3)", approximate,
                                  reference="000 Lemma 4.3"),
        uses={Setting.DELTA},
        weight=lambda a, c, p: p.epsilon / (2.0 * beta_smooth_sensitivity(a, c, p.epsilon, p.delta, p.distance)),
        weights_all=_by_rank(lambda a, n, p: p.epsilon / (2.0 * beta_smooth_sensitivity_all_of(
            a, n, p.epsilon, p.delta, p.distance)))),
]
