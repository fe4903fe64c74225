"""Hellinger distance between Dirichlet (and Beta) distributions, in log space (docs/definitions.md §2).

``H(Dir(p), Dir(q)) = sqrt(1 - BC)`` with
``ln BC = lnB((p+q)/2) - (lnB(p) + lnB(q))/2`` and ``lnB(v) = sum lnGamma(v_i) - lnGamma(sum v)``.

Numerics
--------
Written per coordinate, ``ln BC = sum_i J(p_i, q_i) - J(P, Q)`` with totals ``P = sum p``,
``Q = sum q`` and the *Jensen gap of lnGamma*

    J(x, y) = lnGamma((x+y)/2) - (lnGamma(x) + lnGamma(y)) / 2  <= 0.

Every ``J(p_i, q_i)`` has the same sign, so the sum has no cancellation; for two
posteriors of the same n (every candidate in R(n)), ``P = Q`` and ``J(P, Q) = 0``.
Evaluating ``J`` as a difference of ``gammaln`` values loses ``~1e-16 * x ln x`` in
absolute terms, which is everything when ``x ~ 1e9`` and ``J ~ 1e-10``.  When
``t = |x - y| / (x + y) <= 0.1`` we therefore use the even Taylor series around
the midpoint ``mu = (x+y)/2`` with half-gap ``h = (y-x)/2``:

    J = - sum_{j >= 1} h^(2j) / (2j)! * psi^(2j-1)(mu),

truncated after 8 terms (remainder below ``t^16`` of the first term).  Elsewhere the
direct difference is accurate to ``~4e-16 ln(mu) / t^2`` relative.  Finally
``H = sqrt(-expm1(ln BC))`` keeps the digits of tiny distances.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln, polygamma

from ..errors import InputError
from ..models import check_size
from ..validate import parameter_array, same_length

#: Relative half-gap below which J uses the midpoint series.
SERIES_THRESHOLD = 0.1
#: Terms of the midpoint series (remainder < SERIES_THRESHOLD ** 16).
SERIES_TERMS = 8
_SERIES_COEF = np.array([1.0 / math.factorial(2 * j) for j in range(1, SERIES_TERMS + 1)])


def log_beta(v: ArrayLike) -> NDArray[np.float64]:
    """Multivariate log-Beta ``lnB(v) = sum_i lnGamma(v_i) - lnGamma(sum_i v_i)`` over the last axis.

    docs/definitions.md §2."""
    v = np.asarray(v, dtype=np.float64)
    return gammaln(v).sum(axis=-1) - gammaln(v.sum(axis=-1))


def _even_series(h: NDArray[np.float64], coefs) -> NDArray[np.float64]:
    """``-sum_j h^(2j) coef_j`` for ``coef_j = psi^(2j-1)(mu) / (2j)!``, j = 1..SERIES_TERMS (module docstring)."""
    h2 = h * h
    power = np.ones_like(h)
    out = np.zeros_like(h)
    term = np.empty_like(out)
    for coef in coefs:  # the same operations as ``power = power * h2; out -= power * coef``, in place
        np.multiply(power, h2, out=power)
        np.multiply(power, coef, out=term)
        out -= term
    return out


def _series_coefs(mu: ArrayLike) -> list[NDArray[np.float64]]:
    """The series coefficients ``psi^(2j-1)(mu) / (2j)!``, j = 1..SERIES_TERMS, each shaped as ``mu``."""
    return [_SERIES_COEF[j - 1] * polygamma(2 * j - 1, mu) for j in range(1, SERIES_TERMS + 1)]


def _series(h: NDArray[np.float64], mu: NDArray[np.float64]) -> NDArray[np.float64]:
    """``J`` by the midpoint series, with the polygammas evaluated at ``mu``: once per distinct ``mu`` (between
    members of R(n), ``mu = a_i + (c_i + m_i)/2`` takes at most 2n + 1 values per coordinate)."""
    umu, inverse = np.unique(mu, return_inverse=True)
    if umu.size == mu.size:
        return _even_series(h, _series_coefs(mu))
    inverse = inverse.reshape(mu.shape)
    return _even_series(h, (coef[inverse] for coef in _series_coefs(umu)))


def lgamma_jensen_gap(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    """``J(x, y) = lnGamma((x+y)/2) - (lnGamma(x)+lnGamma(y))/2`` for x, y > 0, accurately (docs/definitions.md §2).

    Broadcasts.  ``J <= 0`` with equality iff ``x == y``.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    mu = 0.5 * (x + y)
    h = 0.5 * (y - x)
    out = np.empty(mu.shape)
    near = np.abs(h) <= SERIES_THRESHOLD * mu
    far = ~near
    out[far] = gammaln(mu[far]) - 0.5 * (gammaln(x[far]) + gammaln(y[far]))
    out[near] = _series(h[near], mu[near])
    return np.minimum(out, 0.0)


def log_bhattacharyya(p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """``ln BC(Dir(p), Dir(q))`` over the last axis, broadcasting leading axes (docs/definitions.md §2). Always <= 0."""
    p, q = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64))
    out = lgamma_jensen_gap(p, q).sum(axis=-1) - lgamma_jensen_gap(p.sum(axis=-1), q.sum(axis=-1))
    return np.minimum(out, 0.0)


def hellinger_from_log_bc(log_bc: ArrayLike, out: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """``H = sqrt(1 - BC) = sqrt(-expm1(ln BC))``, in [0, 1].

    ``out``: write into this float64 array (may be ``log_bc`` itself) instead of allocating.
    """
    if out is None:
        return np.sqrt(-np.expm1(np.minimum(np.asarray(log_bc, dtype=np.float64), 0.0))) + 0.0  # + 0.0: no -0.0
    np.minimum(log_bc, 0.0, out=out)
    np.expm1(out, out=out)
    # 0 - x: -x exactly, and +0.0 where x is a zero of either sign (so no -0.0 out of the sqrt)
    np.subtract(0.0, out, out=out)
    np.sqrt(out, out=out)
    return out


def hellinger(p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """Hellinger distance ``H(Dir(p), Dir(q))`` over the last axis (docs/definitions.md §2; Beta when k = 2).

    When ``sum(p) == sum(q)`` (any two members of R(n), or a posterior and a candidate) it is
    accurate to ~1e-12 relative for distances down to 1e-6 and finite for parameters up to
    1e9 and beyond (see the module docstring).  For different totals the term ``J(P, Q)``
    cancels against the others and the absolute error of ``ln BC`` is ~1e-16 |J(P, Q)|; where
    that bound (:func:`_log_bc_rounding`) leaves H uncertain by more than
    :data:`HELLINGER_TOLERANCE` (1e-6), it raises :class:`~dpposterior.errors.InputError`
    instead of returning a wrong distance (``hellinger([1e15, 1e15], [1, 1])`` is 0.99988; plain
    float64 gives 0).  Tested against 60-digit mpmath.

    >>> float(hellinger([2.0, 1.0], [1.0, 2.0])) ** 2  # 1 - pi/4
    0.21460183660255...
    """
    p, q = parameter_array(p, "p"), parameter_array(q, "q")
    same_length(p, q, "p", "q")
    shape = np.broadcast_shapes(p.shape, q.shape)
    check_size(math.prod(shape), 8 * 8, f"hellinger over broadcast shape {shape}")
    log_bc = log_bhattacharyya(p, q)
    # The direct differences of lnGamma (far coordinates, and J(P, Q) when the totals differ) carry
    # an absolute rounding error; where it moves H by more than HELLINGER_TOLERANCE, refuse rather
    # than return a wrong distance (hellinger([1e15, 1e15], [1, 1]) is 0.99988, not 0).
    err = _log_bc_rounding(p, q)
    lo = hellinger_from_log_bc(log_bc + err)
    hi = hellinger_from_log_bc(log_bc - err)
    bad = (hi - lo) > HELLINGER_TOLERANCE
    if bad.any():
        i = int(np.flatnonzero(bad.reshape(-1))[0])
        raise InputError(f"hellinger is not accurate in float64 here: H is only known to lie in "
                         f"[{lo.reshape(-1)[i]:.9g}, {hi.reshape(-1)[i]:.9g}] (parameters near "
                         f"{float(np.max(np.maximum(p, q))):.3g} with different totals cancel); the accepted "
                         f"error is {HELLINGER_TOLERANCE:g}")
    return hellinger_from_log_bc(log_bc)


#: Largest uncertainty of H that :func:`hellinger` returns (else it refuses: module docstring).
HELLINGER_TOLERANCE = 1e-6
_EPS = np.finfo(np.float64).eps


def _lgamma_bound(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """``|lnGamma(v)| <= (v + 1) |ln v| + 1`` for v > 0 (cheap: no lnGamma evaluated)."""
    return (v + 1.0) * np.abs(np.log(v)) + 1.0


def _gap_rounding(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    """A bound on the absolute rounding error of :func:`lgamma_jensen_gap` (x, y broadcast).

    Far pairs are a difference of three lnGamma values, each rounded to a few ulps of its size.
    Near pairs use the midpoint series, accurate to a few ulps of ``|J|`` (polygammas, powers and the sum;
    the truncation is below ``t^16`` of the first term), and ``|J| <= h^2 psi'(mu) <= h^2 (1/mu + 1/mu^2)``;
    this is negligible when the totals are equal, but not when ``J(P, Q)`` of two large, different totals
    cancels against the coordinates' (``hellinger([5e12, 1], [6e12, 1])``: ``|J| ~ 2e10`` against
    ``ln BC ~ -4e-3``), so it is counted at ``64 eps |J|``.
    """
    mu = 0.5 * (x + y)
    h = 0.5 * (y - x)
    far = np.abs(h) > SERIES_THRESHOLD * mu
    near_err = 64 * _EPS * h * h * (1.0 / mu + 1.0 / (mu * mu))
    return np.where(far, 4 * _EPS * (_lgamma_bound(mu) + 0.5 * (_lgamma_bound(x) + _lgamma_bound(y))), near_err)


def _log_bc_rounding(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """A bound on the absolute rounding error of :func:`log_bhattacharyya` (sum of its terms' bounds)."""
    p, q = np.broadcast_arrays(p, q)
    return _gap_rounding(p, q).sum(axis=-1) + _gap_rounding(p.sum(axis=-1), q.sum(axis=-1))


#: Entries of the midpoint series evaluated per pass in :meth:`HellingerGrid.rows` (its ~6 arrays of them fit
#: a core's cache; the same operations per entry in any block).
SERIES_BLOCK = 16_384


def _windows(table: NDArray[np.float64], width: int, starts: NDArray[np.int64]) -> NDArray[np.float64]:
    """``table[starts[b] + w]`` for w = 0..width-1, ``(B, width)``: a view when the starts step by one, else a copy."""
    view = np.lib.stride_tricks.sliding_window_view(table, width)
    if starts.size > 1 and starts[-1] - starts[0] == starts.size - 1 and np.all(np.diff(starts) == 1):
        return view[int(starts[0]):int(starts[-1]) + 1]
    if starts.size > 1 and starts[0] - starts[-1] == starts.size - 1 and np.all(np.diff(starts) == -1):
        s0 = int(starts[-1])
        return view[s0:s0 + starts.size][::-1]
    return view[starts]


class HellingerGrid:
    """Fast ``ln BC(BI(c), Dir(a + m))`` for many data sets ``c`` and candidates ``m`` of one size n.

    For a fixed prior and n, ``J(a_i + c_i, a_i + m_i)`` depends on the integers
    ``c_i + m_i`` and ``c_i - m_i`` only, so lnGamma and the polygammas of the series
    are tabulated once on the half-integer grid ``a_i + s/2, s = 0..2n`` and every
    evaluation becomes table look-ups.  Agrees with :func:`log_bhattacharyya` to
    rounding (tested).  Memory: ``(2n+1) * k * (1 + SERIES_TERMS) * 8`` bytes, and once :meth:`rows` has run
    ``(3n+3) * k * (1 + SERIES_TERMS) * 8`` more (its padded copies).
    """

    def __init__(self, prior: ArrayLike, n: int):
        self.prior = np.asarray(prior, dtype=np.float64)
        self.n = int(n)
        grid = self.prior[:, None] + 0.5 * np.arange(2 * self.n + 1)[None, :]  # (k, 2n+1)
        self.lgamma = gammaln(grid)
        self.mid = grid
        # psi^(2j-1)(a_i + s/2) * coefficient, shape (terms, k, 2n+1)
        self.psi = np.stack(_series_coefs(grid))
        self._pad: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None  # rows' window tables, when first asked

    def rows(self, i: int, ci: ArrayLike) -> NDArray[np.float64]:
        """``J(a_i + c_i, a_i + x)`` for every x = 0..n: ``(B,)`` counts of coordinate i -> ``(B, n+1)``.

        ``lnGamma(a_i + (c_i + x)/2)`` over x is a contiguous window of the table, and so are the few entries
        that need the midpoint series (an interval of x per row), so both are read as windows of the tables.
        Every entry is the same float operations as gathering the entries one by one, bit for bit (tested).
        """
        ci = np.asarray(ci, dtype=np.int64).reshape(-1)
        lg = self.lgamma[i]
        n, a = self.n, float(self.prior[i])
        B = ci.size
        # j = lg[c + x] - 0.5 (lg[2c] + lg[2x]), into one array
        j = np.add(lg[2 * ci][:, None], lg[0::2][None, :])
        j *= 0.5
        np.subtract(_windows(lg, n + 1, ci), j, out=j)
        # |h| <= THRESHOLD * mid is an interval of x per row (linear inequalities): evaluate the
        # series on a window one wider than it, with the exact test deciding inside.
        t = SERIES_THRESHOLD
        lo = np.clip(np.floor(((1 - t) * ci - 2 * t * a) / (1 + t)).astype(np.int64) - 1, 0, n)
        hi = np.clip(np.ceil(((1 + t) * ci + 2 * t * a) / (1 - t)).astype(np.int64) + 1, 0, n)
        width = int((hi - lo).max()) + 1
        xw = lo[:, None] + np.arange(width)[None, :]  # x = lo..lo + width - 1; past hi: outside (read, discarded)
        start = ci + lo                                # s = c + x at the window's first x
        h = 0.5 * (xw - ci[:, None])
        mid, psi = self._padded(i)
        near = (xw <= hi[:, None]) & (np.abs(h) <= t * _windows(mid, width, start))
        if near.any():
            acc = np.empty_like(h)
            step = max(1, SERIES_BLOCK // width)  # rows per pass: the series' arrays stay in the core's cache
            tables = [np.lib.stride_tricks.sliding_window_view(psi[term], width) for term in range(SERIES_TERMS)]
            for r0 in range(0, B, step):
                sl = slice(r0, r0 + step)
                acc[sl] = _even_series(h[sl], (w[start[sl]] for w in tables))
            first = np.argmax(near, axis=1)
            count = near.sum(axis=1)
            if np.array_equal(near, (np.arange(width)[None, :] >= first[:, None])
                              & (np.arange(width)[None, :] < (first + count)[:, None])):
                for b in np.flatnonzero(count):  # each row's near entries: one interval of x
                    f, m = int(first[b]), int(count[b])
                    x0 = int(lo[b]) + f
                    j[b, x0:x0 + m] = acc[b, f:f + m]
            else:  # pragma: no cover - the test is monotone in x; kept for rounding at the interval's ends
                rows = np.broadcast_to(np.arange(B)[:, None], near.shape)[near]
                j[rows, xw[near]] = acc[near]
        return np.minimum(j, 0.0, out=j)

    def _padded(self, i: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Coordinate i's ``mid`` and series tables, extended past ``s = 2n`` by n + 2 finite entries, so that a
        row's window of :meth:`rows` may run past the grid (entries there are outside the window's interval)."""
        if self._pad is None:
            extra = self.n + 2
            mid = np.concatenate([self.mid, self.prior[:, None] + 0.5 * np.arange(2 * self.n + 1, 2 * self.n + 1 + extra)],
                                 axis=1)
            psi = np.concatenate([self.psi, np.repeat(self.psi[:, :, -1:], extra, axis=2)], axis=2)
            self._pad = (mid, psi)
        mid, psi = self._pad
        return mid[i], psi[:, i]

    def log_bc(self, counts: ArrayLike, cands: ArrayLike) -> NDArray[np.float64]:
        """``ln BC`` for every pair: counts ``(B, k)`` x candidates ``(N, k)`` -> ``(B, N)``.

        Per coordinate, the ``(B, n+1)`` table of :meth:`rows` is computed once and read at
        the candidates' counts, so the work is ``B (n+1) k`` Jensen gaps plus ``B N k`` reads.
        """
        c = np.asarray(counts, dtype=np.int64).reshape(-1, self.prior.size)
        m = np.asarray(cands, dtype=np.int64)
        out = np.zeros((c.shape[0], m.shape[0]))
        for i in range(self.prior.size):
            r = self.rows(i, c[:, i])
            mi = m[:, i]
            if mi.size == self.n + 1 and mi[0] == 0 and np.all(np.diff(mi) == 1):
                out += r
            elif mi.size == self.n + 1 and mi[0] == self.n and np.all(np.diff(mi) == -1):
                out += r[:, ::-1]
            else:
                out += np.take(r, mi, axis=1)
        return np.minimum(out, 0.0, out=out)

    def hellinger(self, counts: ArrayLike, cands: ArrayLike) -> NDArray[np.float64]:
        """``H(BI(c), Dir(a + m))`` for every pair, ``(B, N)``."""
        return hellinger_from_log_bc(self.log_bc(counts, cands))


#: Largest n whose polygamma tables :class:`BetaLogBC` tabulates whole (16 x (2n+1) doubles); larger n
#: compute the polygammas only at the half-integers a block touches.
FULL_TABLE_N = 200_000


def _contiguous(a: NDArray[np.int64]) -> bool:
    return a.size > 0 and int(a[-1]) - int(a[0]) == a.size - 1 and bool(np.all(np.diff(a) == 1))


class BetaLogBC:
    """``ln BC(Beta(a1 + c, a2 + n - c), Beta(a1 + r, a2 + n - r))`` for counts c, r of one n, by blocks or
    pairs, at any n without an (n+1)^2 table (docs/definitions.md §2; the loss of docs/definitions.md §10).

    Both posteriors have the same total, so ``ln BC = J1 + J2`` with the Jensen gaps (module docstring)
    ``J1 = lnG(a1 + (c+r)/2) - (lnG(a1 + c) + lnG(a1 + r))/2`` and the same for coordinate 2 with
    ``n - c, n - r``: three look-ups in a table of lnGamma on the half-integer grid (a Hankel
    structure, so a block costs O(block)).  A direct difference of lnGamma values has absolute error
    ~4e-16 mu ln mu (mu = a + (c+r)/2), i.e. relative error ~4e-16 ln(mu) / t^2 with
    ``t = |c - r| / (2 mu)``.  Within the band ``|c - r| <= D``, ``D = 4e-3 M sqrt(ln M)``
    (``M = max(a) + n``), every coordinate with ``t <= SERIES_THRESHOLD`` uses instead the midpoint
    series (:func:`lgamma_jensen_gap`'s, with the polygammas tabulated on the same grid); outside the
    band ``t > D/(2M)`` and the direct difference is within ~1e-10 relative.  So ``ln BC`` is within
    ~1e-10 relative of :func:`log_bhattacharyya` (tested against :func:`hellinger`).  The prior and n
    are taken as given (the caller validates them); counts outside 0..n are refused.
    """

    def __init__(self, prior: ArrayLike, n: int):
        a = np.asarray(prior, dtype=np.float64).reshape(-1)
        self.prior, self.n = a, int(n)
        s = 0.5 * np.arange(2 * self.n + 1)
        self._lg = [gammaln(a[0] + s), gammaln(a[1] + s)]
        # ln BC(c, r) = F[c + r] - g[c] - g[r] (direct differences; Hankel in c + r)
        self._F = self._lg[0] + self._lg[1][::-1]
        self._g = 0.5 * (self._lg[0][0::2] + self._lg[1][0::2][::-1])
        M = float(a.max()) + self.n
        self.band = int(min(self.n, math.ceil(4e-3 * M * math.sqrt(math.log(M + 2.0))) + 2))
        self._psi: list | None = None
        self._psi_at: list[dict[int, NDArray[np.float64]]] = [{}, {}]

    def tabulate(self) -> None:
        """Build the polygamma tables of the midpoint series now (n <= :data:`FULL_TABLE_N`; larger n compute them
        per half-integer touched), not in the first block that needs them: a one-off set-up from (prior, n)."""
        if self.n <= FULL_TABLE_N and self._psi is None:
            self._psi = [_series_coefs(self.prior[k] + 0.5 * np.arange(2 * self.n + 1)) for k in range(2)]

    def _coefs(self, i: int, s: NDArray[np.int64]) -> list[NDArray[np.float64]]:
        """The series coefficients (:func:`_series_coefs`) at ``a_i + s/2`` for half-integer indices s."""
        if self.n <= FULL_TABLE_N:
            self.tabulate()
            return [tab[s] for tab in self._psi[i]]
        u, inv = np.unique(s, return_inverse=True)
        cache = self._psi_at[i]  # s -> the 8 coefficients, computed once per half-integer touched
        missing = [v for v in u.tolist() if v not in cache]
        if missing:
            x = self.prior[i] + 0.5 * np.asarray(missing, dtype=np.float64)
            cache.update(zip(missing, np.stack(_series_coefs(x), axis=1)))
        M = np.stack([cache[v] for v in u.tolist()], axis=1)
        return [M[j][inv] for j in range(SERIES_TERMS)]

    def block(self, cs: ArrayLike, rs: ArrayLike) -> NDArray[np.float64]:
        """``ln BC`` for every pair of counts ``cs`` x outputs ``rs``: shape ``(len(cs), len(rs))``."""
        cs = np.asarray(cs, dtype=np.int64).reshape(-1)
        rs = np.asarray(rs, dtype=np.int64).reshape(-1)
        n = self.n
        if cs.size and (cs.min() < 0 or cs.max() > n) or rs.size and (rs.min() < 0 or rs.max() > n):
            raise InputError(f"counts and outputs must lie in 0..{n}")
        if rs.size and _contiguous(rs):
            out = np.lib.stride_tricks.sliding_window_view(self._F, rs.size)[cs + rs[0]]
        else:
            out = self._F[cs[:, None] + rs[None, :]]
        out -= self._g[cs][:, None]
        out -= self._g[rs][None, :]
        # near the diagonal: the midpoint series where it applies (class docstring)
        D = self.band
        if cs.size and rs.size:
            if _contiguous(cs):
                # the band |r - c| <= D, built directly: rows c = r + d, d = -D..D
                lo_d = max(-D, int(cs[0]) - int(rs.max()))
                hi_d = min(D, int(cs[-1]) - int(rs.min()))
                offs = np.arange(lo_d, hi_d + 1) if hi_d >= lo_d else np.zeros(0, dtype=np.int64)
                jj = np.repeat(np.arange(rs.size), offs.size)
                ii = (rs[:, None] + offs[None, :]).reshape(-1) - cs[0]
                ok = (ii >= 0) & (ii < cs.size)
                ri, ci = ii[ok], jj[ok]
            else:
                ri, ci = np.nonzero(np.abs(rs[None, :] - cs[:, None]) <= D)
            if ri.size:
                out[ri, ci] = self._band(cs[ri], rs[ci])
        np.minimum(out, 0.0, out=out)
        return out

    def pairs(self, c: ArrayLike, r: ArrayLike) -> NDArray[np.float64]:
        """``ln BC`` at the pairs ``(c[i], r[i])`` (elementwise): the same formulas, in the same order of
        operations, as :meth:`block` (direct differences, the midpoint series within the band), so each
        value equals the corresponding entry of a block bit for bit; O(1) per pair."""
        c = np.asarray(c, dtype=np.int64).reshape(-1)
        r = np.asarray(r, dtype=np.int64).reshape(-1)
        n = self.n
        if c.shape != r.shape:
            raise InputError("log_bc_pairs needs as many counts as outputs")
        if c.size and (min(c.min(), r.min()) < 0 or max(c.max(), r.max()) > n):
            raise InputError(f"counts and outputs must lie in 0..{n}")
        out = self._F[c + r]
        out -= self._g[c]
        out -= self._g[r]
        band = np.flatnonzero(np.abs(r - c) <= self.band)
        if band.size:
            out[band] = self._band(c[band], r[band])
        np.minimum(out, 0.0, out=out)
        return out

    def _band(self, c: NDArray[np.int64], r: NDArray[np.int64]) -> NDArray[np.float64]:
        """``ln BC = J1 + J2`` at the pairs ``(c[i], r[i])`` within the band: each coordinate's Jensen gap from
        the lnGamma table, or its midpoint series where ``|r - c| / 2 <= SERIES_THRESHOLD mu`` (class
        docstring); shared by :meth:`block` and :meth:`pairs`, so both give the same bits."""
        n = self.n
        h = 0.5 * (r - c).astype(np.float64)
        total = 0.0
        # coordinate i's counts: (c, r) for i = 0, (n - c, n - r) for i = 1
        for i, (ci_, ri_) in enumerate(((c, r), (n - c, n - r))):
            s = ci_ + ri_
            mu = self.prior[i] + 0.5 * s
            near = np.abs(h) <= SERIES_THRESHOLD * mu
            j = self._lg[i][s] - 0.5 * (self._lg[i][2 * ci_] + self._lg[i][2 * ri_])
            if near.any():
                j[near] = _even_series(h[near], self._coefs(i, s[near]))
            total = total + np.minimum(j, 0.0)
        return total
