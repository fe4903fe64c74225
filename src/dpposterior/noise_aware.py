"""The noise-aware posterior of a private release (docs/definitions.md, "Noise-aware posterior").

A release ``Dir(a + m)`` is not the posterior of the data that made it: ``m`` is noisy.  Bayes'
rule over the mechanism's exact output distribution gives the posterior given what was
released,

    P(theta | m) = sum_c w_c Dir(theta; a + c),   w_c proportional to P(m | c) DirMult(c; n, a),

a mixture over the count vectors c of size n.  It uses only ``m``, the public prior and the
public mechanism, so it is post-processing and costs no privacy.  Bernstein and Sheldon (2018)
approximate it by Gibbs sampling; here it is exact, because every mechanism's ``P(m | c)`` is
(:meth:`dpposterior.mechanisms.Mechanism.log_likelihood`).

Each marginal ``theta_i`` is a Beta mixture, ``sum_v W_i(v) Beta(a_i + v, A + n - a_i - v)``
with ``W_i(v)`` the total weight of the c with ``c_i = v`` (``A = sum a``); its equal-tailed
credible interval at level L solves ``F_i(x) = (1 - L)/2`` and ``(1 + L)/2`` by Brent's method
on the exact mixture cdf (``scipy.special.betainc``).

**Scale and the one approximation.**  Weights are computed exactly for every c that can
matter.  A mechanism gives a cheap upper bound ``U(c) >= ln P(m | c)``
(:meth:`~dpposterior.mechanisms.Mechanism.log_likelihood_bound`; for the exponential mechanisms
``-w(c) H(BI(c), m)``, since their normaliser is at least 1).  A c is dropped when
``U(c) + ln pi(c)`` is below ``ln w_ref - 40``, where ``w_ref`` is the exact weight of the
c with the largest bound.  Every dropped weight is then certifiably below ``e^-40`` times the
largest weight, so the dropped mass, relative to the kept mass, is at most
``n_dropped * e^-40`` (:attr:`NoiseAwarePosterior.dropped_mass_bound`, at most ``4e-13`` at
``|R(n)| = 1e5``).  The budget: |R(n)| up to ``MAX_CANDIDATES`` (k = 2 up to n = 1e6, k = 3
up to n = 1400), and at most ``MAX_WORK`` score evaluations in the exact pass (the exponential
mechanisms need a whole row of their pmf per kept c); beyond either a
:class:`~dpposterior.errors.SizeError` gives the size.

**Routes.**  Every call arrives as a :class:`~dpposterior.limits.Plan` (:attr:`Setup.plan`, ``Task.POSTERIOR``):
``"exact"``, the sum above over all of R(n), wherever it runs (its numbers unchanged); else the mechanism's local
route (:meth:`~dpposterior.mechanisms.Mechanism.plan_posterior`), admitted against the limits from public inputs
(k, n, eps, prior), then run: ``"local sum"`` for the sequential clamps (``geometric`` and the Laplace entries: the
data sets near the release, with a certified bound on the prior-weighted likelihood mass of the rest),
``"window column"`` for the lattice release (the column ``P(m | c)`` of every c from the release's own remap on
the window, its truncation bracketed) and past it, or where planned faster, ``"local column"`` (the points whose
remap can output the release, the data sets near them; :func:`dpposterior.lattice.column.local_column`).  Each
route's bound is :attr:`NoiseAwarePosterior.dropped_mass_bound`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import betainc, betaln, xlog1py, xlogy

from . import labels, validate
from .errors import SizeError, shown_name
from .limits import LIMITS, Plan, Task, admit, limit_setting
from .mechanisms import ReleaseSpec
from .mechanisms.base import NO_ROUTE
from .models import log_prior_predictive, n_candidates

#: c whose weight is certifiably below e^-DROP_LOG of the largest are dropped.
DROP_LOG = 40.0
#: Largest |R(n)| handled (the bound pass touches every c once).
MAX_CANDIDATES = 1_000_001
#: Most score evaluations of the exact pass by default (about a minute on one core); the limit is
#: ``DPPOSTERIOR_MAX_POSTERIOR_WORK``, read at each call (:mod:`dpposterior.limits`).
MAX_WORK = LIMITS["DPPOSTERIOR_MAX_POSTERIOR_WORK"].default
#: Memory of one chunk of exact likelihood rows.
WORK_BYTES = 256 * 2**20
#: Absolute tolerance of the interval end points (Brent's method on the mixture cdf).
XTOL = 1e-12
#: The exact route's plan: its seconds per score evaluation of the bound pass (measured ~1e7 per second).
EXACT_PER_SECOND = 1e7
#: A local route's certified bound on the mass it leaves out (relative to the kept mass) past which the posterior is
#: refused for that release (one line): the sum near the release does not hold the posterior there.
MAX_LOCAL_BOUND = 1e-3


@dataclass(frozen=True)
class Marginal:
    """The marginal law of ``theta_i``: ``sum_v W(v) Beta(alpha(v), beta(v))``."""

    alpha: NDArray[np.float64]
    beta: NDArray[np.float64]
    weights: NDArray[np.float64]

    def cdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """``P(theta_i <= x)``."""
        x = np.atleast_1d(np.asarray(x, dtype=np.float64))
        return np.clip(betainc(self.alpha[None, :], self.beta[None, :], x[:, None]) @ self.weights, 0.0, 1.0)

    def pdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Density of ``theta_i`` (log-space per component)."""
        x = np.atleast_1d(np.asarray(x, dtype=np.float64))
        xx = x[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            logpdf = xlogy(self.alpha - 1, xx) + xlog1py(self.beta - 1, -xx) - betaln(self.alpha, self.beta)
        inside = ((x >= 0) & (x <= 1))[:, None]
        return np.where(inside, np.exp(logpdf), 0.0) @ self.weights

    def mean(self) -> float:
        """``E theta_i``."""
        return float(self.weights @ (self.alpha / (self.alpha + self.beta)))

    def quantile(self, q: float) -> float:
        """Smallest ``x`` with ``cdf(x) = q`` (Brent's method, absolute tolerance :data:`XTOL`)."""
        if q <= 0.0:
            return 0.0
        if q >= 1.0:
            return 1.0
        from scipy.optimize import brentq  # heavy: loaded where a quantile is solved

        return float(brentq(lambda x: float(self.cdf(x)[0]) - q, 0.0, 1.0, xtol=XTOL, rtol=4 * np.finfo(float).eps))

    def interval(self, level: float) -> tuple[float, float]:
        """Equal-tailed credible interval at ``level``."""
        return self.quantile((1.0 - level) / 2.0), self.quantile((1.0 + level) / 2.0)


def marginals_of(prior: NDArray[np.float64], counts: NDArray[np.int64], weights: NDArray[np.float64]) -> list[Marginal]:
    """The k marginal Beta mixtures of ``sum_c w_c Dir(a + c)`` (weights of equal ``c_i`` pooled)."""
    n = int(counts[0].sum())
    big_a = float(prior.sum())
    out = []
    for i in range(prior.size):
        # the values present and their pooled weights: a bincount over value - min, each bin summed in the rows'
        # order (the same floats as over np.unique's inverse, without its sort)
        col = counts[:, i]
        lo = int(col.min()) if len(col) else 0
        col = col - lo
        present = np.flatnonzero(np.bincount(col))
        v = present + lo
        w = np.bincount(col, weights=weights)[present]
        alpha = prior[i] + v
        out.append(Marginal(alpha, big_a + n - alpha, w))
    return out


@dataclass(frozen=True)
class NoiseAwarePosterior:
    """``P(theta | m) = sum_c w_c Dir(theta; a + c)`` with its summaries (docs/definitions.md).

    ``counts`` and ``weights``: the kept count vectors and their normalised weights.
    ``dropped``: how many c were dropped; ``dropped_mass_bound``: their total weight relative to
    the kept weight is at most this (``dropped * e^-40`` on the exact route; a local route's certified bound).
    ``mean``: ``E theta``; ``intervals``: equal-tailed credible intervals at ``level``, one row per category;
    ``categories``: their names (docs/definitions.md §1), or None.
    """

    mechanism: str
    epsilon: float
    level: float
    prior: NDArray[np.float64]
    released: NDArray[np.int64]
    counts: NDArray[np.int64]
    weights: NDArray[np.float64]
    dropped: int
    dropped_mass_bound: float
    marginals: list[Marginal] = field(repr=False)
    categories: tuple | None = None
    #: The route that computed it (module docstring, "Routes"): ``"exact"``, ``"local sum"``, ``"window column"``,
    #: ``"local column"``.
    route: str = "exact"

    def __repr__(self) -> str:
        """A few lines: mechanism, the release, the posterior mean and intervals (not the weight table)."""
        names = ([""] * len(self.marginals) if self.categories is None
                 else [f"{shown_name(c)}: " for c in self.categories])
        rows = ", ".join(f"{name}{m:.4g} [{lo:.4g}, {hi:.4g}]"
                         for name, m, (lo, hi) in zip(names, self.mean, self.intervals))
        return (f"NoiseAwarePosterior(mechanism={self.mechanism!r}, epsilon={self.epsilon:g}, "
                f"released={np.asarray(self.released).tolist()}, mean [{self.level:g} interval]: {rows}; "
                f"{len(self.weights)} data sets kept, {self.dropped} dropped)")

    @property
    def mean(self) -> NDArray[np.float64]:
        return np.array([mg.mean() for mg in self.marginals])

    @property
    def intervals(self) -> NDArray[np.float64]:
        return self.credible_intervals(self.level)

    def credible_intervals(self, level: float) -> NDArray[np.float64]:
        """Equal-tailed intervals at ``level`` for every category, ``(k, 2)``."""
        level = validate.open_unit(level, "level")
        return np.array([mg.interval(level) for mg in self.marginals])

    def to_frame(self, level: float | None = None):
        """The interval table: a pandas DataFrame with one row per category (indexed by :attr:`categories`, or
        ``theta_1, theta_2, ...``) and the columns ``mean``, ``lower`` and ``upper`` (equal-tailed credible
        interval at ``level``, default :attr:`level`; docs/definitions.md, "Noise-aware posterior")."""
        import pandas as pd  # local: pandas takes ~0.5 s to import

        bounds = self.intervals if level is None else self.credible_intervals(level)
        index = (list(self.categories) if self.categories is not None
                 else [f"theta_{i + 1}" for i in range(len(self.marginals))])
        return pd.DataFrame({"mean": self.mean, "lower": bounds[:, 0], "upper": bounds[:, 1]}, index=index)

    def marginal_cdf(self, i: int, x: ArrayLike) -> NDArray[np.float64]:
        """``P(theta_i <= x | m)``."""
        return self.marginals[i].cdf(x)

    def marginal_pdf(self, i: int, x: ArrayLike) -> NDArray[np.float64]:
        """Density of ``theta_i`` given m."""
        return self.marginals[i].pdf(x)


def naive_posterior(prior: ArrayLike, released: ArrayLike, level: float = 0.9) -> dict:
    """``Dir(a + m)`` read as if it were the posterior: its mean and equal-tailed intervals per category."""
    m = validate.counts(released, "released counts")
    a = validate.prior(prior, m.size)
    level = validate.open_unit(level, "level")
    alpha = a + m
    total = float(alpha.sum())
    margs = [Marginal(np.array([alpha[i]]), np.array([total - alpha[i]]), np.array([1.0])) for i in range(m.size)]
    return {"mean": (alpha / total).tolist(), "intervals": [list(mg.interval(level)) for mg in margs]}


def _chunks(total: int, per_row_bytes: int):
    step = max(1, min(total, WORK_BYTES // max(per_row_bytes, 1)))
    for lo in range(0, total, step):
        yield lo, min(total, lo + step)


@dataclass(frozen=True)
class Setup:
    """What the noise-aware posterior of a release of size ``n`` needs from public inputs alone (the prior, n, k,
    the mechanism's settings and the level; never the release): built by :func:`setup`."""

    params: ReleaseSpec
    prior: NDArray[np.float64]
    n: int
    level: float
    size: int
    rows: Any = field(repr=False)
    log_pi: NDArray[np.float64] = field(repr=False)
    #: The route this set-up runs (``"exact"``, or the mechanism's local route), admitted.
    plan: Plan | None = None


def setup(mechanism, prior: NDArray[np.float64], n: int, *, level: float = 0.9, route: str | None = None,
          **settings: Any) -> Setup:
    """Every refusal of the noise-aware posterior that public inputs decide, and the work they allow (the
    mechanism's rows over R(n), the prior predictive): the distance, the level, ``|R(n)|`` beyond
    :data:`MAX_CANDIDATES` and the mechanism's memory budget (:class:`SizeError`).

    ``prior`` is a validated prior of k entries and ``n`` a validated size.  A release that will be followed by its
    noise-aware posterior (``dpposterior release --noise-aware``) calls this before anything is drawn or charged
    to a ledger, so that these refusals cost nothing; only the work limit of the exact pass
    (``DPPOSTERIOR_MAX_POSTERIOR_WORK``), which depends on the release itself, is left to :func:`posterior_of`.
    """
    params = ReleaseSpec.given(mechanism, **settings)
    mech = params.mechanism
    k = prior.size
    mech.check_distance(params, k)
    level = validate.open_unit(level, "level")
    if route != "local":
        try:
            return _exact_setup(params, prior, n, level)
        except SizeError as exc:
            refusal = exc
    else:
        refusal = SizeError(f"the noise-aware posterior of {mech.id} has no local route")
    plan = mech.plan(Task.POSTERIOR, params, prior, n)
    if plan.route == NO_ROUTE:
        raise refusal
    admit(plan)
    return Setup(params, prior, n, level, n_candidates(n, k), None, np.zeros(0), plan)


def _exact_setup(params: ReleaseSpec, prior: NDArray[np.float64], n: int, level: float) -> Setup:
    """The exact route's set-up (the sum over all of R(n)), or its refusal (:class:`SizeError`)."""
    mech = params.mechanism
    k = prior.size
    size = n_candidates(n, k)
    if size > MAX_CANDIDATES:
        raise SizeError(f"the noise-aware posterior for k={k}, n={n} "
                        f"sums over |R(n)| = {validate.big_number(size)} data sets, "
                        f"over the limit of {MAX_CANDIDATES:,}")
    mech.check_size(n, k, "the noise-aware posterior")
    rows = mech.rows(prior, n, params)
    cost, limit = mech.log_likelihood_cost(rows), limit_setting("DPPOSTERIOR_MAX_POSTERIOR_WORK")
    if cost > limit:  # the exact pass keeps at least one data set, whatever the release
        raise SizeError(f"the noise-aware posterior for k={k}, n={n} needs {cost:.2e} score evaluations per data set "
                        f"it keeps, over the limit of {limit:.1e} (set DPPOSTERIOR_MAX_POSTERIOR_WORK to raise it)")
    plan = Plan(task=Task.POSTERIOR, route="exact", what=f"the noise-aware posterior for k={k}, n={n}",
                seconds=size * (1 + mech.log_likelihood_cost(rows)) / EXACT_PER_SECOND,
                memory_bytes=8.0 * (2 * k + 4) * size)
    return Setup(params, prior, n, level, size, rows, log_prior_predictive(prior, rows.cands), plan)


def posterior_of(s: Setup, released: NDArray[np.int64], categories: tuple | None = None) -> NoiseAwarePosterior:
    """The noise-aware posterior of the release ``released`` (validated, summing to ``s.n``) from its
    :class:`Setup` (module docstring).  Refuses (:class:`SizeError`) an exact pass over the limit
    ``DPPOSTERIOR_MAX_POSTERIOR_WORK``: how many data sets it keeps depends on the release."""
    if s.plan is not None and s.plan.route != "exact":
        return _local_posterior(s, released, categories)
    mech, rows, log_pi, m, a, n, k, size = (s.params.mechanism, s.rows, s.log_pi, released, s.prior, s.n,
                                           s.prior.size, s.size)
    cands = rows.cands
    # pass 1: an upper bound on every log weight (one score per c: O(|R(n)| k) memory, like log_pi)
    upper = mech.log_likelihood_bound(rows, m, cands) + log_pi
    ref = int(np.argmax(upper))
    ref_logw = float(mech.log_likelihood(rows, m, cands[ref:ref + 1])[0] + log_pi[ref])
    keep = np.flatnonzero(upper >= ref_logw - DROP_LOG)
    work = keep.size * mech.log_likelihood_cost(rows)
    limit = limit_setting("DPPOSTERIOR_MAX_POSTERIOR_WORK")
    if work > limit:
        raise SizeError(f"the noise-aware posterior for k={k}, n={n} needs the exact likelihood of {keep.size:,} data "
                        f"sets ({work:.2e} score evaluations), over the limit of {limit:.1e} "
                        "(set DPPOSTERIOR_MAX_POSTERIOR_WORK to raise it)")
    # pass 2: the exact log weights of the kept c, chunked (a whole row each in the worst case)
    logw = np.empty(keep.size)
    for lo, hi in _chunks(keep.size, 8 * size * 2):
        idx = keep[lo:hi]
        logw[lo:hi] = mech.log_likelihood(rows, m, cands[idx]) + log_pi[idx]
    finite = np.isfinite(logw)
    keep, logw = keep[finite], logw[finite]
    w = np.exp(logw - logw.max())
    w /= w.sum()
    dropped = size - keep.size
    kept = cands[keep]
    return NoiseAwarePosterior(
        mechanism=mech.id, epsilon=s.params.epsilon, level=s.level, prior=a, released=m, counts=kept, weights=w,
        dropped=int(dropped), dropped_mass_bound=float(dropped * math.exp(-DROP_LOG)),
        marginals=marginals_of(a, kept, w), categories=categories)


def _local_posterior(s: Setup, released: NDArray[np.int64], categories: tuple | None) -> NoiseAwarePosterior:
    """Run the set-up's local route (:attr:`Setup.plan`) for ``released``: the mechanism's kept data sets and log
    weights, normalised, with its certified bound; refused (one line) where that bound is over
    :data:`MAX_LOCAL_BOUND` (the release lies where the sum near it does not hold the posterior), and where the
    release's likelihood is 0 at every kept data set (a release these settings do not output near any of them)."""
    mech, a = s.params.mechanism, s.prior
    counts, logw, size, bound = mech.local_posterior(s.plan, a, s.n, s.params, released)
    finite = np.isfinite(logw)
    if not finite.all():  # (no copy where every weight is kept: 1.8e7 data sets at k = 4, eps = 0.25)
        counts, logw = counts[finite], logw[finite]
    if not logw.size:  # every kept data set gives the release likelihood 0: no mass to normalise, whatever the prior
        raise SizeError(f"the noise-aware posterior of this release ({s.plan.route}) is not computed here: its "
                        "likelihood is 0 at every data set near it (no data set the local sum keeps outputs it at "
                        "these settings)")
    if not bound <= MAX_LOCAL_BOUND:
        shown = f"{bound:.2g}" if bound < 1e300 else "more than 1e+300 times"
        raise SizeError(f"the noise-aware posterior of this release ({s.plan.route}) leaves out a mass of up to "
                        f"{shown} of the one it keeps, over {MAX_LOCAL_BOUND:g}: not computed here (the prior "
                        "puts its weight far from the release)")
    w = logw - logw.max()  # in place from here (the same floats; 1.8e7 data sets at k = 4, eps = 0.25)
    del logw
    np.exp(w, out=w)
    w /= w.sum()
    return NoiseAwarePosterior(
        mechanism=mech.id, epsilon=s.params.epsilon, level=s.level, prior=a, released=released, counts=counts,
        weights=w, dropped=int(size - counts.shape[0]), dropped_mass_bound=float(bound),
        marginals=marginals_of(a, counts, w), categories=categories, route=s.plan.route)


def plan_posterior(mechanism, prior: ArrayLike, n: int, *, level: float = 0.9, **settings: Any) -> Plan:
    """The :class:`~dpposterior.limits.Plan` of the noise-aware posterior of a release of size ``n`` under the prior
    (public inputs only; module docstring, "Routes"): the route :func:`posterior_of` will run, admitted.  Raises the
    route's one-line refusal (:class:`SizeError`) where none fits."""
    params = ReleaseSpec.given(mechanism, **settings)
    a = validate.prior(_values(prior))
    return setup(params, a, validate.integer(n, "n", 0), level=level).plan


def noise_aware_posterior(mechanism, prior: ArrayLike, released: ArrayLike, *, level: float = 0.9,
                          categories=None, **settings: Any) -> NoiseAwarePosterior:
    """The exact noise-aware posterior of a release ``Dir(a + m)`` (module docstring).

    Takes the mechanism and its settings as :func:`dpposterior.mechanisms.log_pmf` does (a mechanism id and the
    settings of :meth:`~dpposterior.mechanisms.ReleaseSpec.of`, or one :class:`~dpposterior.mechanisms.ReleaseSpec`,
    validated where it was built and not here again).  Raises
    :class:`~dpposterior.errors.InputError` on bad input and :class:`SizeError` beyond
    :data:`MAX_CANDIDATES`.  ``categories``: the names of the categories (e.g. a release's
    :attr:`~dpposterior.api.Release.categories`), kept for the printed forms; a pandas Series ``released`` names
    them by its index (as :func:`dpposterior.release` reads ``counts``: :func:`dpposterior.labels.aligned`).
    The work is :func:`setup` (public inputs only) then :func:`posterior_of` (the release).
    """
    params = ReleaseSpec.given(mechanism, **settings)
    released, prior, cats = labels.aligned(released, prior, categories)
    m = validate.counts(_values(released), "released counts")
    a = validate.prior(_values(prior), m.size)
    return posterior_of(setup(params, a, int(m.sum()), level=level), m, cats)


def _values(vector: Any) -> Any:
    """A pandas Series' values (its labels were read by :func:`dpposterior.labels.aligned`); anything else, a
    DataFrame included (the validator refuses it with what to pass), as is."""
    return vector.to_numpy() if type(vector).__name__ == "Series" and hasattr(vector, "to_numpy") else vector
