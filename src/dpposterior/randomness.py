"""Exact random variates from random integers: no floating point between the bits and a release.

Why: a float sampler is not the distribution its pmf describes.  ``Generator.laplace`` is
the inverse cdf of one 53-bit uniform, so every cell's probability is a multiple of 2^-53 and
the noise is bounded (|Y| <= 36.04 s); some outputs then have probability 2^-53 under one data
set and 0 under its neighbour, and pure eps-DP fails.  Every sampler here draws *exactly* from
its stated law, using only uniform integers and exact rational arithmetic.

Bit sources
-----------
A :class:`BitSource` yields exact uniform integers:

* :class:`GeneratorBits` wraps a ``numpy.random.Generator``: seeded, so experiments reproduce.
  A release whose seed is known is not private; seeds are for experiments only.
* :class:`SystemBits` reads the operating system's CSPRNG (``os.urandom``): the default for a
  release (``bit_source(None)``).

Samplers (Canonne, Kamath and Steinke 2020, "The discrete Gaussian for differential privacy",
Algorithms 1 and 2)
-----------------------------------------------------------------------------------------
* :func:`bernoulli_exp`: ``P(True) = exp(-x)`` for a rational ``x >= 0``.
* :func:`geometric`: ``P(G = g) = (1 - e^-x) e^(-x g)``, g = 0, 1, ...
* :func:`floor_laplace`: the law of ``floor(Y)``, ``Y ~ Laplace(0, 1/x)``: ``G`` or ``-1 - G``
  with probability 1/2 each, G as above (``P(floor Y = d) = (1 - e^-x)/2 e^(-x d)`` for d >= 0,
  ``(1 - e^-x)/2 e^(-x(-1-d))`` for d < 0, exactly the floor cells of the continuous law).
* :func:`discrete_laplace`: ``P(D = d) = (1 - e^-x)/(1 + e^-x) e^(-x|d|)``, d in Z.

Rates are :class:`fractions.Fraction`; :func:`as_rate` turns a float into the *exact* rational
it stores (``Fraction(0.3)`` is the double nearest 0.3, the same number the pmf code uses).
The vectorised path handles numerators and denominators below 2^62; larger ones (extreme eps)
take an exact scalar path on Python integers.  Every loop is a rejection loop whose rounds
each succeed with probability >= 1 - e^-1, so its length is geometric with a bounded mean.
"""

from __future__ import annotations

import math
import os
import secrets
from bisect import bisect_right
from fractions import Fraction
from itertools import accumulate
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import InputError

_VECTOR_LIMIT = 2**62


class BitSource:
    """Exact uniform integers.  Subclasses implement :meth:`integers` and :meth:`randbelow`."""

    def integers(self, high: int | NDArray[np.int64], size: int) -> NDArray[np.int64]:
        """``size`` independent uniform integers on ``{0, ..., high - 1}`` (``1 <= high < 2^62``;
        ``high`` a scalar or an array of length ``size``)."""
        raise NotImplementedError

    def randbelow(self, high: int) -> int:
        """One uniform integer on ``{0, ..., high - 1}`` for any Python int ``high >= 1``."""
        raise NotImplementedError


class GeneratorBits(BitSource):
    """Uniform integers from a ``numpy.random.Generator`` (reproducible experiments)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def integers(self, high, size):  # noqa: D102
        return self.rng.integers(0, high, size=size, dtype=np.int64)

    def randbelow(self, high):  # noqa: D102
        if high < _VECTOR_LIMIT:
            return int(self.rng.integers(0, high))
        nbits = int(high - 1).bit_length()
        while True:  # rejection from nbits uniform bits: accepted with probability > 1/2
            v = int.from_bytes(self.rng.bytes((nbits + 7) // 8), "little") >> ((-nbits) % 8)
            if v < high:
                return v


class SystemBits(BitSource):
    """Uniform integers from the operating system's CSPRNG (``os.urandom`` / ``secrets``)."""

    def integers(self, high, size):  # noqa: D102
        high = np.broadcast_to(np.asarray(high, dtype=np.uint64), (size,))
        # 2^64 mod high, computed in uint64 as (2^64 - high) mod high; accept below 2^64 - that
        with np.errstate(over="ignore"):
            rem = (np.uint64(0) - high) % high
        out = np.empty(size, dtype=np.uint64)
        todo = np.arange(size)
        while todo.size:
            raw = np.frombuffer(os.urandom(8 * todo.size), dtype=np.uint64)
            ok = raw <= np.uint64(2**64 - 1) - rem[todo]  # values below 2^64 - rem: an exact multiple
            out[todo[ok]] = raw[ok] % high[todo[ok]]
            todo = todo[~ok]
        return out.astype(np.int64)

    def randbelow(self, high):  # noqa: D102
        return secrets.randbelow(high)


def bit_source(rng: BitSource | np.random.Generator | int | None) -> BitSource:
    """The bit source of a release: ``None`` -> the OS CSPRNG; a seed or a Generator -> reproducible."""
    if rng is None:
        return SystemBits()
    if isinstance(rng, BitSource):
        return rng
    if isinstance(rng, np.random.Generator):
        return GeneratorBits(rng)
    if isinstance(rng, (Integral, np.integer)) and not isinstance(rng, bool) and int(rng) >= 0:
        return GeneratorBits(np.random.default_rng(int(rng)))
    raise InputError(f"rng must be a non-negative integer seed, a numpy Generator or None, got {rng!r}")


def as_rate(x: Real | Fraction) -> Fraction:
    """The exact rational value of a finite rate ``x > 0`` (a float converts without rounding)."""
    if isinstance(x, bool) or not isinstance(x, (Real, Fraction)):
        raise InputError(f"a rate must be a positive number, got {x!r}")
    try:
        f = Fraction(x)
    except (OverflowError, ValueError):
        raise InputError(f"a rate must be a finite positive number, got {x!r}") from None
    if f <= 0:
        raise InputError(f"a rate must be a finite positive number, got {x!r}")
    return f


# --------------------------------------------------------------------------------------------
# Bernoulli(exp(-x))


def _bernoulli_exp_unit(u: NDArray[np.int64], t: int, bits: BitSource) -> NDArray[np.bool_]:
    """Vectorised Bernoulli(exp(-u/t)) for integers ``0 <= u <= t < 2^62`` (CKS Alg. 1, gamma <= 1).

    ``K = 1``; while ``Bernoulli(gamma / K)``: ``K += 1``; return ``K`` odd.  Here
    ``Bernoulli(u / (t K))`` is ``q K + r < u`` with ``q ~ U{0..t-1}``, ``r ~ U{0..K-1}``.
    Every entry still running shares the same ``K`` (each round moves all survivors from ``K``
    to ``K + 1``), so round ``K`` draws ``q`` for the survivors, then ``r`` with the one bound
    ``K``; an entry that stops in round ``K`` returns ``K`` odd.  ``U{0..0}`` is 0 without a
    draw (numpy's bounded integers use no bits for it), so ``r`` in round 1 and ``q`` when
    ``t = 1`` are not drawn.  The test ``q K + r < u`` is made in int64 while ``t K <= 2^63 - 1``,
    else as ``(q, r) < (u // K, u % K)`` lexicographically (no overflow).
    """
    u = np.asarray(u, dtype=np.int64)
    # round K = 1 (r = 0): go on iff q < u
    go = (u > 0) if t == 1 else (bits.integers(t, u.size) < u)
    out = ~go  # stopped with K = 1: odd
    # selections by np.flatnonzero and take: the same entries in the same order as boolean
    # indexing, several times faster on an audit's batches of 2^18 draws
    idx = np.flatnonzero(go)
    ua = u.take(idx)
    K = 2
    while idx.size:
        m = idx.size
        if t == 1:  # q = 0
            go = bits.integers(K, m) < ua
        else:
            q = bits.integers(t, m)
            r = bits.integers(K, m)
            if t * K < 2**63:
                q *= K
                q += r
                go = q < ua
            else:
                hi, lo = np.divmod(ua, K)
                go = (q < hi) | ((q == hi) & (r < lo))
        if K % 2:
            out[idx.take(np.flatnonzero(~go))] = True
        keep = np.flatnonzero(go)
        idx, ua = idx.take(keep), ua.take(keep)
        K += 1
    return out


def _bernoulli_exp_unit_scalar(u: int, t: int, bits: BitSource) -> bool:
    """Scalar Bernoulli(exp(-u/t)) on Python integers, ``0 <= u <= t`` (any size)."""
    K = 1
    while bits.randbelow(t * K) < u:
        K += 1
    return K % 2 == 1


def bernoulli_exp(x: Real | Fraction, bits: BitSource) -> bool:
    """One exact draw of ``Bernoulli(exp(-x))`` for rational ``x >= 0`` (CKS 2020, Alg. 1)."""
    x = Fraction(x)
    if x < 0:
        raise InputError(f"bernoulli_exp needs x >= 0, got {x}")
    whole = x.numerator // x.denominator
    for _ in range(whole):
        if not _bernoulli_exp_unit_scalar(1, 1, bits):
            return False
    frac = x - whole
    return _bernoulli_exp_unit_scalar(frac.numerator, frac.denominator, bits)


# --------------------------------------------------------------------------------------------
# Geometric, floor-Laplace, discrete Laplace


def _bernoulli_exp1(m: int, bits: BitSource) -> NDArray[np.bool_]:
    """``m`` draws of Bernoulli(exp(-1)): :func:`_bernoulli_exp_unit` with ``u = t = 1``.

    There ``q = 0`` always; round ``K = 1`` goes on for every entry (``q < u``, no bits drawn)
    and round ``K >= 2`` goes on iff ``r = 0``, ``r ~ U{0..K-1}``.
    """
    out = np.zeros(m, dtype=bool)  # stopped with K = 2: even
    idx = np.flatnonzero(bits.integers(2, m) == 0)
    K = 3
    while idx.size:
        go = bits.integers(K, idx.size) == 0
        if K % 2:
            out[idx.take(np.flatnonzero(~go))] = True
        idx = idx.take(np.flatnonzero(go))
        K += 1
    return out


def _count_bernoulli_exp1(m: int, bits: BitSource) -> NDArray[np.int64]:
    """``V`` = number of successes of Bernoulli(exp(-1)) before the first failure, ``m`` times."""
    V = np.zeros(m, dtype=np.int64)
    active = np.arange(m)
    while active.size:
        active = active.take(np.flatnonzero(_bernoulli_exp1(active.size, bits)))
        V[active] += 1
    return V


def _geometric_scalar(s: int, t: int, bits: BitSource) -> int:
    """One draw of ``P(G = g) ∝ exp(-g s/t)`` on Python integers (CKS Alg. 2, steps 1-4)."""
    while True:
        U = bits.randbelow(t)
        if _bernoulli_exp_unit_scalar(U, t, bits):
            break
    V = 0
    while _bernoulli_exp_unit_scalar(1, 1, bits):
        V += 1
    return (U + t * V) // s


def geometric(x: Real | Fraction, size: int, bits: BitSource) -> NDArray[np.int64] | list[int]:
    """``size`` exact draws of ``P(G = g) = (1 - e^-x) e^(-x g)``, g >= 0 (CKS 2020, Alg. 2).

    With ``x = s/t``: ``U ~ U{0..t-1}`` kept with probability ``exp(-U/t)`` (so ``U ∝ e^(-U/t)``),
    ``V`` = successes of Bernoulli(e^-1) before a failure; ``X = U + t V`` is geometric with
    ratio ``e^(-1/t)`` and ``floor(X / s)`` is geometric with ratio ``e^(-s/t) = e^-x``.

    Returns an int64 array; when ``x``'s numerator or denominator reaches 2^62 (eps far outside
    the documented range) a list of Python ints from the exact scalar path.
    """
    x = as_rate(x)
    s, t = x.numerator, x.denominator
    if s >= _VECTOR_LIMIT or t >= _VECTOR_LIMIT:
        return [_geometric_scalar(s, t, bits) for _ in range(size)]
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    shift = s.bit_length() - 1 if s & (s - 1) == 0 else -1  # s = 2^shift: X // s is X >> shift (X >= 0)
    while todo.size:
        U = bits.integers(t, todo.size)
        keep = _bernoulli_exp_unit(U, t, bits)
        kept = np.flatnonzero(keep)  # flatnonzero and take: as U[keep], todo[keep], faster
        U, slots = U.take(kept), todo.take(kept)
        V = _count_bernoulli_exp1(U.size, bits)
        if V.size and int(V.max()) >= (_VECTOR_LIMIT - t) // t:  # X would pass 2^62: exact Python ints
            out[slots] = [(int(u) + t * int(v)) // s for u, v in zip(U, V)]
        else:
            V *= t
            V += U
            if shift > 0:
                V >>= shift
            elif shift < 0:
                V //= s
            out[slots] = V
        todo = todo.take(np.flatnonzero(~keep))
    return out


def floor_laplace(x: Real | Fraction, size: int, bits: BitSource) -> NDArray[np.int64] | list[int]:
    """``size`` exact draws of ``floor(Y)``, ``Y ~ Laplace(0, 1/x)``: ``G`` or ``-1 - G`` with prob. 1/2."""
    G = geometric(x, size, bits)
    sign = bits.integers(2, size)
    if isinstance(G, list):
        return [g if b else -1 - g for g, b in zip(G, sign)]
    # sign 1: G ^ 0 = G; sign 0: G ^ -1 = ~G = -1 - G (two's complement): np.where's answer, faster
    return G ^ (sign - 1)


def discrete_laplace(x: Real | Fraction, size: int, bits: BitSource) -> NDArray[np.int64] | list[int]:
    """``size`` exact draws of ``P(D = d) ∝ exp(-x |d|)``, d in Z (CKS 2020, Alg. 2).

    ``G`` geometric, a fair sign bit ``B``; ``(B = 1, G = 0)`` is rejected (so 0 is not counted
    twice), else ``D = (1 - 2B) G``.
    """
    out: list[int] = []
    arr = np.empty(size, dtype=np.int64)
    filled = 0
    scalar = False
    while filled < size:
        need = size - filled
        G = geometric(x, need, bits)
        B = bits.integers(2, need)
        if isinstance(G, list):
            scalar = True
            out += [(1 - 2 * int(b)) * g for g, b in zip(G, B) if not (b == 1 and g == 0)]
            filled = len(out)
            continue
        ok = ~((B == 1) & (G == 0))
        got = ((1 - 2 * B) * G)[ok]
        arr[filled: filled + got.size] = got
        filled += got.size
    return out if scalar else arr


# --------------------------------------------------------------------------------------------
# Discrete laws given by (log-)weights: integer weights, random bits on demand


#: Fraction bits of the integer weights of :func:`exp_weights` and :func:`float_weights`.
WEIGHT_BITS = 128
#: Significand bits of ``numpy.longdouble`` (64 on x86-64 Linux, 53 where it is a double).
LONGDOUBLE_BITS = np.finfo(np.longdouble).nmant + 1


def weights_tv_bound(n_outcomes: int) -> float:
    """Upper bound on the total variation between :func:`choose` on :func:`exp_weights` and the
    law ``p_i proportional to exp(x_i)`` the log-weights describe (proof in :func:`exp_weights`)."""
    return 2.0 ** (2 - LONGDOUBLE_BITS) + n_outcomes * 2.0 ** -WEIGHT_BITS


def _scaled_ints(mant: NDArray[np.uint64], shift: NDArray[np.int64], positive: NDArray[np.bool_]) -> list[int]:
    """``max(1, round(mant * 2^shift))`` where positive, else 0, on Python ints (no overflow)."""
    out = []
    for v, s, pos in zip(mant.tolist(), shift.tolist(), positive.tolist()):
        if not pos:
            out.append(0)
        elif s >= 0:
            out.append(max(1, v << s))
        else:
            out.append(max(1, (v + (1 << (-s - 1))) >> -s))
    return out


def exp_weights(x: ArrayLike) -> list[int]:
    """Integer weights ``W_i = max(1, round(2^B exp(x_i - max x)))`` (``W_i = 0`` where ``x_i = -inf``).

    ``B =`` :data:`WEIGHT_BITS`; ``exp`` is evaluated in ``numpy.longdouble`` (relative error
    below ``2^(1 - L)``, ``L =`` :data:`LONGDOUBLE_BITS`) and its significand converted to an
    integer exactly.  Every outcome with a finite log-weight gets ``W_i >= 1``: it is reachable.

    Bound: with ``P_i = exp(x_i - max x)`` (``max P = 1``, ``S = sum P >= 1``),
    ``|W_i 2^-B - P_i| <= 2^(1-L) P_i + 2^-B`` (rounding the exp, rounding to an integer, the
    floor at 1), so ``sum |W 2^-B - P| <= 2^(1-L) S + N 2^-B`` and, because
    ``TV(a/|a|, b/|b|) <= |a - b|_1 / |b|_1``, ``TV(W/sum W, P/S) <= 2^(1-L) + N 2^-B``
    (:func:`weights_tv_bound` adds a factor 2 of margin on the first term).
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    finite = x > -np.inf
    if not finite.any():
        raise InputError("every log-weight is -inf: no outcome has positive probability")
    top = x[finite].max()
    e = np.exp(np.where(finite, x - top, 0.0).astype(np.longdouble))
    mant, ex = np.frexp(e)
    mant = np.ldexp(mant, LONGDOUBLE_BITS).astype(np.uint64)  # exact: L significand bits
    return _scaled_ints(mant, ex.astype(np.int64) + WEIGHT_BITS - LONGDOUBLE_BITS, finite)


def float_weights(v: ArrayLike) -> list[int]:
    """Integer weights ``W_i = max(1, round(v_i 2^(B - e)))`` of non-negative floats ``v`` (``2^(e-1) <= max v < 2^e``).

    Scaling by a power of two is exact, so ``W_i 2^(e-B)`` differs from ``v_i`` by at most
    ``2^(e-B)`` (rounding and the floor at 1): ``TV(W/sum W, v/sum v) <= N 2^-(B-1)``.
    Every entry gets ``W_i >= 1`` (the callers pass only entries whose true value is positive).
    """
    v = np.asarray(v, dtype=np.float64).ravel()
    top = float(v.max()) if v.size else 0.0
    if not (top > 0 and math.isfinite(top)):
        return [1] * v.size
    e = math.frexp(top)[1]
    mant, ex = np.frexp(v)
    mant = np.ldexp(mant, 53).astype(np.uint64)
    return _scaled_ints(mant, ex.astype(np.int64) + WEIGHT_BITS - e - 53, np.ones(v.size, dtype=bool))


#: Draws per call from which :func:`_search` looks buckets up through a guide table.  A release draws
#: one output (size 1), so it always takes the plain search, whose time does not depend on the weights.
GUIDE_MIN_SIZE = 1 << 14
#: The guide table has about this many blocks per bucket (so at most 1/32 of the draws are searched).
_GUIDE_PER_BUCKET = 32


def _search(hi: NDArray[np.int64], u: NDArray[np.int64], bound: int, side: str) -> NDArray[np.int64]:
    """``np.searchsorted(hi, u, side)`` exactly, for sorted ``hi`` and ``0 <= u < bound``.

    Below :data:`GUIDE_MIN_SIZE` draws it is the plain binary search.  From there a guide table:
    ``[0, bound)`` is cut into blocks of ``2^g`` values, about :data:`_GUIDE_PER_BUCKET` per bucket,
    and each block's answer at its first and last value is searched once.  ``searchsorted`` is
    monotone in ``u``, so where the two agree every ``u`` of the block has that answer; the other
    draws (those in a block holding a boundary: at most ``N`` of the blocks, each as likely as any
    other, so at most a fraction ``N / blocks`` of the draws) are searched as before.  The answer
    is the same array; only the time depends on the weights, and only for batches of at least
    :data:`GUIDE_MIN_SIZE` draws (experiments and audits, never a release's single draw).
    """
    if u.size < GUIDE_MIN_SIZE or hi.size < 2:
        return np.searchsorted(hi, u, side=side)
    want = min(1 << 22, _GUIDE_PER_BUCKET * hi.size, u.size)
    g = max(0, (bound - 1).bit_length() - max(1, want.bit_length()))
    first = np.arange(((bound - 1) >> g) + 1, dtype=np.int64) << g
    last = np.minimum(first + ((1 << g) - 1), bound - 1)
    at_first = np.searchsorted(hi, first, side=side)
    sure = at_first == np.searchsorted(hi, last, side=side)
    block = u >> g
    out = at_first.take(block)  # take: the same gather as indexing, several times faster
    rest = np.flatnonzero(~sure.take(block))
    out[rest] = np.searchsorted(hi, u[rest], side=side)
    return out


def choose(weights: list[int], size: int, bits: BitSource) -> NDArray[np.int64]:
    """``size`` exact draws of an index ``i`` with probability ``weights[i] / sum(weights)``.

    Draw ``U`` uniform on ``[0, sum W)`` and return the bucket of the cumulative sums holding it,
    with no float in between.  Vectorised exactly: with ``2^s`` the block size that brings the
    total below 2^62, ``U = u 2^s + v``; the block ``u`` is drawn first, and unless a bucket
    boundary falls inside it (probability about ``N 2^-61``) it alone decides the bucket; else
    ``v`` is drawn too and the comparison is made on Python integers (``U >= sum W`` is redrawn).
    """
    cum = list(accumulate(weights))
    total = cum[-1]
    if total <= 0:
        raise InputError("choose needs a positive total weight")
    s = max(0, total.bit_length() - 62)
    hi = np.array([c >> s for c in cum], dtype=np.int64)  # block of each bucket's upper boundary
    out = np.empty(size, dtype=np.int64)
    if s == 0:
        out[:] = _search(hi, bits.integers(total, size), total, "right")
        return out
    u = bits.integers(int(hi[-1]) + 1, size)
    # no boundary in the block: hi[pos] > u, so bucket pos; the others are overwritten below
    out[:] = _search(hi, u, int(hi[-1]) + 1, "left")
    boundary = np.flatnonzero(hi.take(np.minimum(out, hi.size - 1)) == u)
    for r in boundary:
        U = (int(u[r]) << s) + bits.randbelow(1 << s)
        while U >= total:  # outside [0, total): redraw the whole U
            U = bits.randbelow(total)
        out[r] = bisect_right(cum, U)
    return out


def bernoulli_exp_float(x: ArrayLike, bits: BitSource) -> NDArray[np.bool_]:
    """Draws of ``Bernoulli(exp(x_i))`` for ``x_i <= 0`` (values above 0 count as 0), one per entry.

    ``P(True) = W_i / 2^B`` with ``W_i = max(1, round(2^B exp(x_i)))`` (long double exp, as
    :func:`exp_weights`): within ``2^(1-L) exp(x_i) + 2^-B`` of ``exp(x_i)``; positive whenever
    ``x_i > -inf``.  ``U`` uniform on ``[0, 2^B)`` is drawn 62 bits first, the rest on a tie only.
    """
    x = np.minimum(np.asarray(x, dtype=np.float64).ravel(), 0.0)
    finite = x > -np.inf
    e = np.exp(np.where(finite, x, 0.0).astype(np.longdouble))
    mant, ex = np.frexp(e)
    mant = np.ldexp(mant, LONGDOUBLE_BITS).astype(np.uint64)
    W = _scaled_ints(mant, ex.astype(np.int64) + WEIGHT_BITS - LONGDOUBLE_BITS, finite)
    # U < W with U uniform on [0, 2^B): compare the top 62 bits first, the rest only on a tie
    s = WEIGHT_BITS - 62
    w_hi = np.array([min(w >> s, 2**62) for w in W], dtype=np.int64)
    u = bits.integers(2**62, len(W))
    out = u < w_hi
    for r in np.flatnonzero(u == w_hi):
        out[r] = (int(u[r]) << s) + bits.randbelow(1 << s) < W[r]
    return out
