"""Exact sampling of the exponential mechanisms without enumerating R(n) (docs/definitions.md §4).

Target: ``P(m) proportional to exp(-w H(BI(c), Dir(a + m)))`` over the compositions m of n
into k parts (``|R(n)| = C(n+k-1, k-1)``, 1.7e11 at k = 4, n = 1e4).

Structure used
--------------
Every candidate has the same total ``A + n`` as the posterior, so in the per-coordinate
form of :mod:`dpposterior.distances` the total term vanishes and

    ln BC(m) = sum_i J(a_i + c_i, a_i + m_i) = -T(m),   T(m) = sum_i t_i(m_i),  t_i >= 0,

is *separable*; ``H = phi(T) = sqrt(1 - exp(-T))`` with phi increasing and concave
(``phi'' < 0``).  T(c) = 0 and every ``t_i`` is unimodal with minimum 0 at ``c_i``.

Dominating proposal (rejection sampling)
----------------------------------------
Cut ``[0, inf)`` into bands ``B_j = [T_j, T_{j+1})`` (the last one unbounded).  On B_j let
``l_j(T) = alpha_j + beta_j T`` be the chord of phi (the last band: the constant
``phi(T_J)``, or the chord up to ``T_max >= max_m T(m)``).  Concavity gives ``l_j <= phi`` on
B_j, so ``exp(-w phi(T(m))) <= mu_j(m) := exp(-w alpha_j) prod_i exp(-w beta_j t_i(m_i))``
for every m with ``T(m)`` in B_j.  Each ``mu_j`` is a product measure restricted to
``sum m = n``: its mass ``Z_j`` is one value of the convolution ``f_1 * ... * f_k`` with
``f_i = exp(-w beta_j t_i)``, and it is sampled exactly coordinate by coordinate,
``m_i ~ f_i(x) g_{i+1}(r - x)`` with the suffix convolutions ``g``.  One round:

1. pick band j with probability ``Z_j / sum Z``;
2. draw ``m ~ mu_j / Z_j``;
3. accept iff ``T(m)`` lies in B_j and ``U < exp(-w (phi(T(m)) - l_j(T(m))))``.

The accepted draw has law ``sum_j mu_j(m) 1[T(m) in B_j] exp(-w phi) / mu_j(m)``, i.e.
``proportional to exp(-w phi(T(m)))`` -- exactly the mechanism's pmf, because the bands
partition the T axis.  (Bands whose mass is provably negligible get an upper bound
``U_j >= Z_j`` instead of ``Z_j``: when one is picked, ``Z_j`` is computed and the round
continues with probability ``Z_j / U_j``; the law is unchanged.)  Bands are chosen so
that ``w (phi - l_j) <= TAU`` on B_j and the flat last band starts where
``w (1 - phi) <= TAU``, so a round is accepted with probability ``>= exp(-TAU)`` times the
fraction of proposal mass landing in its own band.  Nothing depends on where the
mass sits: with a small weight (``ehd``, small epsilon) it lies far from c and the flat
bands carry it; with a large weight the first bands do.

Floating point and random bits
------------------------------
``f_i`` below ``exp(-745)`` underflow to 0 and are trimmed from band j's factors; the
candidates of band j they would have proposed come from a *remainder band* instead (a uniform
proposal with mass ``|R(n)| exp(-w alpha_j - 745)``, see :meth:`ExponentialSampler._remainder`),
so every candidate stays reachable.  Convolutions of
short supports are direct sums (every entry to relative rounding); long ones use the FFT,
whose entries carry an absolute error ~1e-16 of the largest entry, so proposal
probabilities far below 1e-15 of the peak are only approximately right (total variation
~1e-15: a heuristic figure, not a proven bound).  No draw uses a 53-bit uniform: the band,
each coordinate and the thinning and acceptance tests use integer weights and random bits on
demand (:mod:`dpposterior.randomness`: :func:`~dpposterior.randomness.choose`,
:func:`~dpposterior.randomness.bernoulli_exp_float`), each within ``2^-61`` of the float
probability it implements, and every stored coordinate value keeps a positive weight.  The
acceptance test uses the accurate per-coordinate Jensen gaps of
:func:`~dpposterior.distances.lgamma_jensen_gap`, the same numbers as
:func:`~dpposterior.mechanisms.log_pmf`.

Below ``ENUMERATE_UP_TO`` candidates :mod:`dpposterior.mechanisms` enumerates R(n) and draws by
the inverse cdf over the exact log-pmf with integer weights instead: every candidate is
reachable and the law is within :data:`ENUMERATING_TV` of the pmf in total variation (proof in
:func:`dpposterior.randomness.exp_weights`).  :data:`EXPONENTIAL_SAMPLING_GUARANTEE` states both.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .distances import lgamma_jensen_gap
from .errors import InputError
from .models import check_size
from .randomness import (
    LONGDOUBLE_BITS,
    WEIGHT_BITS,
    BitSource,
    bernoulli_exp_float,
    bit_source,
    choose,
    exp_weights,
    float_weights,
    weights_tv_bound,
)

#: ``mechanisms.sample`` enumerates R(n) up to this many candidates and uses this module above.
ENUMERATE_UP_TO = 20_000
#: Largest ``w * (phi - chord)`` allowed inside a band (acceptance >= exp(-TAU) there).
TAU = 0.35
#: Bands whose mass bound is below ``exp(-NEGLIGIBLE)`` times the known mass get a bound only.
NEGLIGIBLE = 40.0
#: Direct convolution when ``len(a) * len(b)`` is at most this (exact to rounding), else FFT.
DIRECT_CONV = 2_000_000
_UNDERFLOW = 745.0
#: a suffix convolution above this is divided by a power of two (exact) and its log scale kept
_RESCALE_ABOVE = 2.0**900

#: Total variation bound of the enumerating path (inverse cdf over the exact log-pmf, integer weights).
ENUMERATING_TV = weights_tv_bound(ENUMERATE_UP_TO)

EXPONENTIAL_SAMPLING_GUARANTEE = (
    f"integer-weight inverse cdf over the exact log-pmf when |R(n)| <= {ENUMERATE_UP_TO}: every candidate "
    f"reachable, total variation <= 2^(2-L) + |R(n)| 2^-{WEIGHT_BITS} <= {ENUMERATING_TV:.2g} (L = "
    f"{LONGDOUBLE_BITS} long-double significand bits here), so a pure eps claim becomes (eps, (1 + e^eps) TV); "
    "above, the rejection sampler: band choice, thinning and acceptance with the same integer weights "
    "(each within the same bound), every candidate reachable (remainder bands cover the trimmed factors), "
    "proposal tables in float64: direct sums to relative rounding, FFT convolutions at k >= 3 to ~1e-16 of "
    "their peak, so there the distance is ~1e-15, a heuristic figure, not a proven bound")


def check_sampler_size(n: int, k: int) -> None:
    """Refuse (:class:`~dpposterior.errors.SizeError`) when the rejection sampler's tables do not fit.

    From public inputs only: a ``(k, n + 1)`` float64 table of ``t_i``, and about three more
    arrays of that size for the widest band's factors, suffix convolutions and FFT work arrays
    (the far bands are the wide ones; near bands are trimmed to a few hundred points).
    """
    check_size(k * (n + 1), 8 * 4, f"the rejection sampler for k={k}, n={n}")


def _phi(T):
    """``H = sqrt(1 - exp(-T))``."""
    return np.sqrt(-np.expm1(-np.asarray(T, dtype=np.float64)))


def _chord_gap(Ta: float, Tb: NDArray[np.float64]) -> NDArray[np.float64]:
    """Largest ``phi - chord`` on ``[Ta, Tb]`` (vectorised over Tb), from ``phi'(T*) = slope``."""
    pa, pb = float(_phi(Ta)), _phi(Tb)
    s = (pb - pa) / (Tb - Ta)
    # phi'(T) = e^-T / (2 phi(T)) = s  <=>  y = e^-T solves y^2 + 4 s^2 y - 4 s^2 = 0
    y = 2.0 * s / (np.sqrt(s * s + 1.0) + s)
    with np.errstate(divide="ignore"):
        Ts = np.clip(-np.log(y), Ta, Tb)
    return np.maximum(_phi(Ts) - (pa + s * (Ts - Ta)), 0.0)


def make_bands(w: float, t_max: float, tau: float = TAU):
    """Band edges ``T_0 = 0 < T_1 < ... < T_J`` and chords ``(alpha_j, beta_j)`` (module docstring).

    Band j is ``[edges[j], edges[j+1])``; the last band is ``[edges[J], inf)``.
    """
    q = 1e-3 * tau / w
    lo = max(min(q * q if q < 1e150 else math.inf, 1e-3 * t_max), 1e-300)  # no OverflowError at tiny w
    grid = np.geomspace(lo, max(t_max, 2 * lo), 2000)
    edges, alphas, betas = [0.0], [], []
    a = 0.0
    while True:
        pa = float(_phi(a))
        if w * (1.0 - pa) <= tau:  # flat band to infinity
            alphas.append(pa)
            betas.append(0.0)
            break
        cand = grid[grid > a * (1 + 1e-12)]
        if cand.size == 0:
            cand = np.array([t_max])
        ok = np.flatnonzero(w * _chord_gap(a, cand) <= tau)
        if ok.size:
            b = float(cand[ok[-1]])
        else:  # the band ends before the next grid point: bisect (gap grows with b)
            lo_b, hi_b = a, float(cand[0])
            for _ in range(60):
                mid = 0.5 * (lo_b + hi_b)
                if w * float(_chord_gap(a, np.array([mid]))[0]) <= tau:
                    lo_b = mid
                else:
                    hi_b = mid
            b = lo_b if lo_b > a else hi_b
        s = (float(_phi(b)) - pa) / (b - a)
        if b >= t_max * (1 - 1e-12):  # last band: chord to t_max, no m beyond it
            alphas.append(pa - s * a)
            betas.append(s)
            break
        alphas.append(pa - s * a)
        betas.append(s)
        edges.append(b)
        a = b
    return np.array(edges), np.array(alphas), np.array(betas)


def _conv(x: tuple[int, NDArray], y: tuple[int, NDArray], n: int) -> tuple[int, NDArray]:
    """Convolution of two offset arrays ``(offset, values)``, truncated to indices ``<= n``."""
    ox, vx = x
    oy, vy = y
    if vx.size * vy.size <= DIRECT_CONV:
        v = np.convolve(vx, vy)
    else:
        size = vx.size + vy.size - 1
        nfft = 1 << (size - 1).bit_length()
        v = np.maximum(np.fft.irfft(np.fft.rfft(vx, nfft) * np.fft.rfft(vy, nfft), nfft)[:size], 0.0)
    off = ox + oy
    return off, v[: max(0, n - off + 1)]


class ExponentialSampler:
    """Exact sampler for ``P(m) ~ exp(-w H(BI(c), Dir(a + m)))`` over compositions of n (module docstring).

    ``t_i(x)`` is tabulated lazily, only on the interval around ``c_i`` where some band's
    factor ``exp(-w beta_j t_i)`` does not underflow; with a large weight that is a few
    hundred points even at n = 1e6.
    """

    def __init__(self, prior: ArrayLike, counts: ArrayLike, w: float, tau: float = TAU):
        self.a = np.asarray(prior, dtype=np.float64)
        self.c = np.asarray(counts, dtype=np.int64)
        self.k = self.c.size
        self.n = int(self.c.sum())
        self.w = float(w)
        if not (math.isfinite(self.w) and self.w > 0):
            raise InputError(f"the weight w must be a positive number, got {w!r}")
        self.p = self.a + self.c
        # t_i at c_i -/+ 0, 1, 2, 4, ..., 2^S >= n (clipped to [0, n]): brackets the supports
        offs = np.concatenate([[0], 2 ** np.arange(int(math.ceil(math.log2(max(self.n, 2)))) + 1)])
        self._lo_pts = np.clip(self.c[:, None] - offs[None, :], 0, self.n)
        self._hi_pts = np.clip(self.c[:, None] + offs[None, :], 0, self.n)
        self._lo_t = self._t_at(self._lo_pts)
        self._hi_t = self._t_at(self._hi_pts)
        self.t = np.empty((self.k, self.n + 1))
        self._done = np.stack([self.c, self.c - 1], axis=1)  # tabulated [lo, hi] per coordinate (empty)
        t_max = float(np.maximum(self._lo_t[:, -1], self._hi_t[:, -1]).sum()) * (1 + 1e-12)
        self.edges, self.alpha, self.beta = make_bands(self.w, t_max, tau)
        self.J = self.alpha.size
        self._log_R = math.lgamma(self.n + self.k) - math.lgamma(self.n + 1) - math.lgamma(self.k)
        self.log_mass = np.empty(self.J)  # ln Z_j or an upper bound
        self.exact = np.zeros(self.J, dtype=bool)
        self._cache: dict[int, tuple] = {}
        known = -np.inf
        for j in range(self.J):
            bound = -self.w * self.alpha[j] + self._log_R
            if bound >= known - NEGLIGIBLE:
                bound = -self.w * self.alpha[j] + self._log_bound(j)
            if bound < known - NEGLIGIBLE:
                self.log_mass[j] = bound
                continue
            self.log_mass[j] = self._exact_log_mass(j)
            self.exact[j] = True
            known = np.logaddexp(known, self.log_mass[j])

    def _t_at(self, pts: NDArray[np.int64]) -> NDArray[np.float64]:
        """``t_i(x)`` for a ``(k, P)`` array of points x (row i: coordinate i)."""
        return -lgamma_jensen_gap(self.p[:, None], self.a[:, None] + pts)

    def _support(self, j: int) -> NDArray[np.int64]:
        """Per coordinate ``[lo, hi]`` containing every x with ``w beta_j t_i(x) < 745`` (t_i is unimodal)."""
        if self.beta[j] == 0.0:
            return np.tile([0, self.n], (self.k, 1))
        L = _UNDERFLOW / (self.w * self.beta[j])
        out = np.empty((self.k, 2), dtype=np.int64)
        for i in range(self.k):
            s_lo = min(int(np.searchsorted(self._lo_t[i], L)), self._lo_t.shape[1] - 1)
            s_hi = min(int(np.searchsorted(self._hi_t[i], L)), self._hi_t.shape[1] - 1)
            out[i] = self._lo_pts[i, s_lo], self._hi_pts[i, s_hi]
        return out

    def _tab(self, i: int, lo: int, hi: int) -> NDArray[np.float64]:
        """``t_i`` on ``[lo, hi]``, tabulating what is missing (t_i(c_i) = 0 exactly)."""
        dlo, dhi = self._done[i]
        for a, b in ((lo, min(hi, dlo - 1)), (max(lo, dhi + 1), hi)) if dlo <= dhi else ((lo, hi),):
            if a <= b:
                x = np.arange(a, b + 1)
                self.t[i, a:b + 1] = -lgamma_jensen_gap(self.p[i], self.a[i] + x)
        self._done[i] = (min(lo, dlo), max(hi, dhi)) if dlo <= dhi else (lo, hi)
        if lo <= self.c[i] <= hi:
            self.t[i, self.c[i]] = 0.0
        return self.t[i, lo:hi + 1]

    def _log_bound(self, j: int) -> float:
        """``ln`` of an upper bound on ``sum_m prod_i f_i(m_i)`` (each f_i <= 1)."""
        if self.beta[j] == 0.0:
            return self._log_R
        # drop the widest factor: for each m_1..m_{k-1} at most one m_k
        sup = self._support(j)
        logs = np.empty(self.k)
        for i in range(self.k):
            with np.errstate(under="ignore"):
                logs[i] = math.log(np.exp(-self.w * self.beta[j] * self._tab(i, *sup[i])).sum())
        return float(min(self._log_R, logs.sum() - logs.max()))

    def _factors(self, j: int) -> list[tuple[int, NDArray]]:
        """``f_i = exp(-w beta_j t_i)`` trimmed to where it is above exp(-745), as (offset, values)."""
        if self.beta[j] == 0.0:
            return [(0, np.ones(self.n + 1)) for _ in range(self.k)]
        out = []
        sup = self._support(j)
        for i in range(self.k):
            lw = self.w * self.beta[j] * self._tab(i, *sup[i])
            keep = np.flatnonzero(lw < _UNDERFLOW)
            lo, hi = int(keep[0]), int(keep[-1])
            out.append((int(sup[i, 0]) + lo, np.exp(-lw[lo:hi + 1])))
        return out

    def _band(self, j: int):
        """Factors and suffix convolutions ``g_i = f_i * ... * f_k`` of band j (cached)."""
        if j not in self._cache:
            f = self._factors(j)
            g = [None] * self.k
            g[self.k - 1] = f[self.k - 1]
            log_scale = 0.0  # g_1 is stored divided by e^log_scale
            for i in range(self.k - 2, 0, -1):
                off, v = _conv(f[i], g[i + 1], self.n)
                top = float(v.max()) if v.size else 0.0
                if top > _RESCALE_ABOVE:  # many categories: |R(n)| past float64; divide by a power of 2
                    e = math.frexp(top)[1]
                    v = np.ldexp(v, -e)
                    log_scale += e * math.log(2.0)
                g[i] = (off, v)
            if len(self._cache) > 4:
                self._cache.pop(next(iter(self._cache)))
            self._cache[j] = (f, g, log_scale)
        return self._cache[j]

    @staticmethod
    def _pair(f: tuple[int, NDArray], g: tuple[int, NDArray], r: int):
        """``x`` and ``f(x) g(r - x)`` over the x where both are stored."""
        of, vf = f
        og, vg = g
        lo = max(of, r - (og + vg.size - 1))
        hi = min(of + vf.size - 1, r - og)
        if hi < lo:
            return np.empty(0, dtype=np.int64), np.empty(0)
        x = np.arange(lo, hi + 1)
        return x, vf[x - of] * vg[r - x - og]

    def _exact_log_mass(self, j: int) -> float:
        if self.beta[j] == 0.0:  # flat band: |R(n)| compositions
            return -self.w * self.alpha[j] + self._log_R
        f, g, log_scale = self._band(j)
        _, v = self._pair(f[0], g[1], self.n)
        return -self.w * self.alpha[j] + float(np.log(v.sum())) + log_scale

    def _draw_band(self, j: int, size: int, bits: BitSource) -> NDArray[np.int64]:
        """``size`` draws from the product measure ``mu_j`` restricted to ``sum m = n``.

        Each coordinate is drawn from the integer weights of its stored ``f_i(x) g_{i+1}(r - x)``
        (:func:`~dpposterior.randomness.float_weights`: every stored x reachable).
        """
        if self.beta[j] == 0.0:
            return self._uniform(size, bits)
        f, g, _ = self._band(j)  # a common scale of g cancels in each conditional
        m = np.empty((size, self.k), dtype=np.int64)
        r = np.full(size, self.n, dtype=np.int64)
        for i in range(self.k - 1):
            for R in np.unique(r):
                rows = np.flatnonzero(r == R)
                x, v = self._pair(f[i], g[i + 1], int(R))
                m[rows, i] = x[choose(float_weights(v), rows.size, bits)]
            r = r - m[:, i]
        m[:, self.k - 1] = r
        return m

    def _uniform(self, size: int, bits: BitSource) -> NDArray[np.int64]:
        """Uniform compositions of n into k parts (stars and bars: k-1 distinct bars among n+k-1 places).

        The bars are a uniform (k-1)-subset drawn by Floyd's algorithm: exactly k-1 uniform
        integers per row and no rejection, so the cost is O(size k^2) whatever n and k (the
        earlier draw-and-reject-ties loop needed ~exp(k^2 / 2n) rounds: it never ended at
        k = 50, n = 50).
        """
        K, N = self.k - 1, self.n + self.k - 1
        bars = np.empty((size, K), dtype=np.int64)
        for i in range(K):
            j = N - K + i  # Floyd: t uniform on {0..j}; if t is taken, take j (never taken before)
            t = bits.integers(j + 1, size)
            taken = (bars[:, :i] == t[:, None]).any(axis=1) if i else np.zeros(size, dtype=bool)
            bars[:, i] = np.where(taken, j, t)
        bars.sort(axis=1)
        edges = np.concatenate([np.full((size, 1), -1), bars, np.full((size, 1), N)], axis=1)
        return np.diff(edges, axis=1) - 1

    def _inside(self, j: int, T: NDArray[np.float64]) -> NDArray[np.bool_]:
        return (T >= self.edges[j]) & ((T < self.edges[j + 1]) if j + 1 < self.edges.size else True)

    def _remainder(self, j: int, size: int, bits: BitSource) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """Proposals for the m of band j that its trimmed factors miss, and which of them are accepted.

        Such an m has some coordinate with ``w beta_j t_i(m_i) >= 745``, so
        ``exp(-w phi(T(m))) <= mu_j(m) <= exp(-w alpha_j - 745)``: a uniform proposal over R(n)
        with mass ``|R(n)| exp(-w alpha_j - 745)``, kept iff m is such a point of band j and with
        probability ``exp(-w phi(T) + w alpha_j + 745)``, dominates them.  With these remainder
        bands every candidate is reachable; they are picked with probability ~e^-745 or (through
        the integer weights' floor of 1) ~2^-128.
        """
        m = self._uniform(size, bits)
        f = self._band(j)[0]
        trimmed = np.zeros(size, dtype=bool)
        for i, (off, vals) in enumerate(f):
            trimmed |= (m[:, i] < off) | (m[:, i] > off + vals.size - 1)
        T = self.T(m)
        ok = self._inside(j, T) & trimmed
        log_ratio = np.where(ok, -self.w * _phi(T) + self.w * self.alpha[j] + _UNDERFLOW, -np.inf)
        return m, ok & bernoulli_exp_float(log_ratio, bits)

    def T(self, m: NDArray[np.int64]) -> NDArray[np.float64]:
        """``T(m) = -ln BC(BI(c), Dir(a + m))`` for rows m (the Jensen gaps of ``distances``)."""
        m = np.asarray(m, dtype=np.int64)
        lo, hi = self._done[:, 0], self._done[:, 1]
        tab = np.all((m >= lo) & (m <= hi), axis=1)  # tabulated: same function, same numbers
        out = np.empty(m.shape[0])
        out[tab] = self.t[np.arange(self.k)[None, :], m[tab]].sum(axis=1)
        out[~tab] = -lgamma_jensen_gap(self.p, self.a + m[~tab].astype(np.float64)).sum(axis=1)
        return out

    def log_target(self, m: NDArray[np.int64]) -> NDArray[np.float64]:
        """Unnormalised log-pmf ``-w H(BI(c), Dir(a + m))``."""
        return -self.w * _phi(self.T(m))

    def log_proposal_mass(self) -> float:
        """``ln sum_j Z_j`` (bounds included): a round is accepted with probability ``Z / sum_j Z_j``."""
        return float(np.logaddexp.reduce(self.log_mass))

    def sample(self, size: int, rng) -> NDArray[np.int64]:
        """``size`` independent draws (rows m; the release is ``Dir(a + m)``).

        ``rng``: a :class:`~dpposterior.randomness.BitSource`, a Generator or seed, or None (OS
        CSPRNG).  Band choice, thinning and acceptance use integer weights and random bits on
        demand (:mod:`dpposterior.randomness`), never one 53-bit uniform.
        """
        bits = bit_source(rng)
        out = np.empty((0, self.k), dtype=np.int64)
        batch = max(16, int(size))
        # remainder bands J..2J-1: the m of band j that its trimmed factors cannot propose
        trim_log = np.where(self.beta > 0, self._log_R - self.w * self.alpha - _UNDERFLOW, -np.inf)
        band_weights = exp_weights(np.concatenate([self.log_mass, trim_log]))
        while out.shape[0] < size:
            bands = choose(band_weights, batch, bits)
            keep_rows = []
            for j in np.unique(bands):
                rows = np.flatnonzero(bands == j)
                if j >= self.J:
                    m, ok = self._remainder(int(j) - self.J, rows.size, bits)
                    keep_rows.append(np.column_stack([rows[ok], m[ok]]))
                    continue
                if not self.exact[j]:  # picked by its bound: thin to the exact mass
                    exact = self._exact_log_mass(j)
                    thin = bernoulli_exp_float(np.full(rows.size, exact - self.log_mass[j]), bits)
                    rows = rows[thin]
                    if rows.size == 0:
                        continue
                m = self._draw_band(j, rows.size, bits)
                T = self.T(m)
                inside = (T >= self.edges[j]) & ((T < self.edges[j + 1]) if j + 1 < self.edges.size else True)
                log_ratio = -self.w * (_phi(T) - (self.alpha[j] + self.beta[j] * T))
                ok = inside & bernoulli_exp_float(np.where(inside, log_ratio, -np.inf), bits)
                keep_rows.append(np.column_stack([rows[ok], m[ok]]))
            if keep_rows:
                got = np.concatenate(keep_rows)
                got = got[np.argsort(got[:, 0], kind="stable"), 1:]  # proposal order
                out = np.concatenate([out, got])
            batch = max(16, 2 * (size - out.shape[0]))
        return out[:size]


def sample_exponential(prior: ArrayLike, counts: ArrayLike, w: float, size: int, rng) -> NDArray[np.int64]:
    """``size`` exact draws of ``m`` with ``P(m) ~ exp(-w H(BI(c), Dir(a + m)))``, no enumeration.

    docs/definitions.md §4.
    """
    if size == 0:
        return np.empty((0, np.asarray(counts).size), dtype=np.int64)
    return ExponentialSampler(prior, counts, w).sample(size, rng)
