"""The lattice (K-norm) noise: its law, an exact integer sampler, the kernel ``P(z | c)`` and its truncation.

Definitions (docs/lattice.md; docs/definitions.md §1 for the substitution distance)
-------------------------------------------------------------------------------------
The data live on the lattice ``L_k = {w in Z^k : sum(w) = 0}`` shifted by ``c``.  The noise is
``P(w) = x^d(w) / Z(eps, k)`` on the whole of ``L_k``, with ``x = exp(-eps)`` and
``d(w) = |w|_1 / 2`` (the number of substitutions that move ``c`` to ``c + w``, docs/definitions.md §1).
The release is ``z = c + w`` (``z`` may leave R(n): a coordinate may be negative).

Sphere counts.  ``N_k(t) = #{w in L_k : d(w) = t}``.  A point with ``d(w) = t >= 1`` is a pair
(positive part, negative part) on disjoint supports ``P``, ``Q`` (``|P| = p >= 1``, ``|Q| = q >= 1``,
``p + q <= k``), each part a composition of ``t`` into positive parts: ``C(t - 1, p - 1)`` and
``C(t - 1, q - 1)`` ways.  So ``N_k(0) = 1`` and, for ``t >= 1``,
``N_k(t) = sum_{p, q} C(k, p) C(k - p, q) C(t - 1, p - 1) C(t - 1, q - 1)``
(``6t`` at k = 3; ``2`` at k = 2).  ``Z = sum_t N_k(t) x^t``.

A polynomial envelope.  For ``t >= 0``: ``N_k(t) <= B_k C(t + k - 2, k - 2)`` with
``B_k = sum_{p, q} C(k, p) C(k - p, q) 2^(p + q - 2)``.
Proof: with ``m = p + q - 2 <= k - 2``, Vandermonde gives
``C(t-1, p-1) C(t-1, q-1) <= C(2t - 2, m)``; factor by factor
``C(2t - 2, m) = prod_{i=1..m} (2t - 2 - m + i)/i <= prod 2 (t - 1 + i)/i = 2^m C(t - 1 + m, m)``
(as ``2t - 2 - m + i <= 2(t - 1 + i)``); and ``C(t - 1 + m, m) <= C(t + k - 2, k - 2)`` because
``C(a + m, m)`` grows with ``a`` and with ``m``.  At ``t = 0``, ``N = 1 <= B_k``.  The bound is
used by the sampler (as a rejection envelope) and by the tail bound below.

Exact sampler (:func:`sample_noise`).  Radius first, then a uniform point of its sphere:

1. Proposal ``T = G_1 + ... + G_(k-1)``, ``G_i`` iid with ``P(G = g) = (1 - x) x^g``
   (:func:`dpposterior.randomness.geometric`, exact at the rational rate ``eps`` as stored):
   ``P(T = t) = C(t + k - 2, k - 2) (1 - x)^(k-1) x^t`` (negative binomial).
2. Accept ``T = t`` with probability ``N_k(t) / (B_k C(t + k - 2, k - 2))`` (<= 1 by the envelope),
   a ratio of integers decided by one uniform integer below the denominator.  The accepted ``t``
   has law ``N_k(t) x^t / Z`` exactly: the law of ``d(w)``.
3. A uniform point of the sphere ``d(w) = t``: the sizes ``(p, q)`` with probability proportional to
   ``C(k, p) C(k - p, q) C(t - 1, p - 1) C(t - 1, q - 1)`` (integers), then uniform disjoint supports,
   then two uniform compositions of ``t`` (``p - 1`` distinct cut points of ``{1..t-1}``, Floyd's
   algorithm).  Every step draws uniform integers from the project's bit sources
   (:mod:`dpposterior.randomness`); no floating point lies between the bits and ``w``.

The acceptance rate of step 2 is ``Z (1 - x)^(k-1) / B_k`` (at k = 3: 0.145 at eps = 1, -> 1/3 as
eps -> 0); rounds are vectorised.

Truncation (:func:`tail_bound`).  ``P(d(w) > W) <= B_k C(W + k - 1, k - 2) x^(W+1) / ((1 - rho) S_W)``
with ``rho = x (W + k) / (W + 2) < 1`` and ``S_W = sum_{t <= W} N_k(t) x^t <= Z``.
Proof: by the envelope ``sum_{t > W} N_k(t) x^t <= B_k sum_{t > W} C(t + k - 2, k - 2) x^t``; the
ratio of consecutive terms is ``x (t + k - 1)/(t + 1) <= rho`` for ``t >= W + 1``, so the sum is at most
its first term over ``1 - rho``; and ``P = (that sum) / Z <= (that sum) / S_W``.  The float evaluation
is multiplied by ``1 + 1e-9`` (far above the rounding of the few operations involved).

Window.  ``window(n, k, W) = {z in Z^k : sum(z) = n, z_i >= -W}``.  For every data set ``c`` in R(n),
a ``z`` outside it has some ``z_i < -W``, so ``w_i = z_i - c_i < -W`` and ``d(w) >= |w_i| > W``: the mass
of the kernel ``P(. | c)`` outside the window is at most :func:`tail_bound` ``(k, eps, W)``, for every c.

Privacy (proof; docs/lattice.md).  ``P(z | c) = x^d(z - c) / Z`` with ``Z`` independent of ``c``
(translation invariance of ``L_k``).  For neighbours ``c' = c - e_i + e_j``, ``d`` is a norm on ``L_k``
(half the l1 norm), so ``|d(z - c) - d(z - c')| <= d(c - c') = 1`` and
``P(z | c) / P(z | c') = exp(-eps (d(z - c) - d(z - c'))) <= e^eps`` for every ``z``: pure eps-DP.
The exact concrete eps of the kernel is ``eps`` itself (at ``z = c`` the ratio is ``e^eps``).  Any map
of ``z`` (a remap, deterministic or randomised, that does not look at ``c``) is post-processing and
keeps eps-DP.  At k = 2, ``d(w) = |w_1|``: ``z_1 = c_1 + D``, ``D`` two-sided geometric with
``q = e^-eps``; clamped to ``[0, n]`` this is the ``geometric`` release of docs/definitions.md §9 at k = 2
(scale ``1/eps``), tested.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate as _validate
from ..errors import InputError
from ..models import check_size
from ..randomness import BitSource, as_rate, bit_source, geometric

#: The relative margin on the float evaluation of :func:`tail_bound` (covers its rounding).
TAIL_MARGIN = 1e-9


def _check_k(k: object) -> int:
    return _validate.integer(k, "k", 2, 64)


@lru_cache(maxsize=64)
def _pairs(k: int) -> list[tuple[int, int, int]]:
    """``(p, q, C(k, p) C(k - p, q))`` for every support size pair ``p, q >= 1``, ``p + q <= k``."""
    return [(p, q, math.comb(k, p) * math.comb(k - p, q)) for p in range(1, k) for q in range(1, k - p + 1)]


def sphere_count(k: int, t: int) -> int:
    """``N_k(t)``: the number of ``w`` in the sum-zero lattice with ``d(w) = |w|_1 / 2 = t`` (exact; docs/lattice.md).

    Definition of ``d``: docs/definitions.md §1 (substitution distance).
    """
    return _count(_check_k(k), _validate.integer(t, "t", 0))


@lru_cache(maxsize=1 << 16)
def _count(k: int, t: int) -> int:
    """:func:`sphere_count` without the input checks (internal; exact Python ints)."""
    if t == 0:
        return 1
    return sum(m * math.comb(t - 1, p - 1) * math.comb(t - 1, q - 1) for p, q, m in _pairs(k))


def envelope_constant(k: int) -> int:
    """``B_k`` with ``N_k(t) <= B_k C(t + k - 2, k - 2)`` for every ``t >= 0`` (proof in the module docstring)."""
    k = _check_k(k)
    return sum(m * 2 ** (p + q - 2) for p, q, m in _pairs(k))


def _partial_sum(k: int, eps: float, W: int) -> float:
    """``S_W = sum_{t <= W} N_k(t) e^(-eps t)`` in floats."""
    t = np.arange(W + 1)
    logs = np.array([math.log(_count(k, int(s))) for s in t]) - eps * t
    return float(np.exp(logs).sum())


def tail_bound(k: int, epsilon: float, W: int) -> float:
    """A rigorous upper bound on ``P(d(w) > W)`` under the lattice noise (docs/lattice.md; proof in the module docstring).

    Returns 1.0 where the bound is not informative (``rho >= 1``).
    """
    return tail_bound_of(_check_k(k), _validate.epsilon(epsilon), _validate.integer(W, "W", 0))


def tail_bound_of(k: int, eps: float, W: int) -> float:
    """:func:`tail_bound` of validated k, eps and W."""
    x = math.exp(-eps)
    rho = x * (W + k) / (W + 2)
    if rho >= 1:
        return 1.0
    log_first = math.log(envelope_constant(k)) + math.log(math.comb(W + k - 1, k - 2)) - eps * (W + 1)
    bound = math.exp(log_first - math.log1p(-rho) - math.log(_partial_sum(k, eps, W))) * (1 + TAIL_MARGIN)
    return min(1.0, bound)


@lru_cache(maxsize=256)
def radius_for(k: int, epsilon: float, tol: float) -> int:
    """The smallest ``W`` whose :func:`tail_bound` is at most ``tol`` (docs/lattice.md, truncation)."""
    if not (0 < tol < 1):
        raise InputError(f"tol must lie in (0, 1), got {tol!r}")
    k, eps = _check_k(k), _validate.epsilon(epsilon)
    W = 0
    while tail_bound_of(k, eps, W) > tol:
        W = W + 1 if W < 8 else int(W * 1.25)
    lo = max(0, int(W / 1.25) - 1)
    while lo < W and tail_bound_of(k, eps, lo) > tol:  # the smallest W, by a short linear scan
        lo += 1
    return lo


@lru_cache(maxsize=256)
def log_normaliser(k: int, epsilon: float) -> float:
    """``ln Z(eps, k) = ln sum_t N_k(t) e^(-eps t)`` to float64 accuracy (the tail past the sum is below 1e-18 of it)."""
    k = _check_k(k)
    eps = _validate.epsilon(epsilon)
    W = radius_for(k, eps, 1e-18)
    return math.log(_partial_sum(k, eps, W))


def radius_pmf(k: int, epsilon: float, t_max: int) -> NDArray[np.float64]:
    """``P(d(w) = t) = N_k(t) e^(-eps t) / Z`` for ``t = 0..t_max`` (docs/lattice.md)."""
    k = _check_k(k)
    eps = _validate.epsilon(epsilon)
    t = np.arange(int(t_max) + 1)
    logs = np.array([math.log(_count(k, int(s))) for s in t]) - eps * t - log_normaliser(k, eps)
    return np.exp(logs)


def substitution_distance(w: ArrayLike) -> NDArray[np.int64]:
    """``d(w) = |w|_1 / 2`` over the last axis (docs/definitions.md §1), for lattice vectors ``w``."""
    w = np.asarray(w, dtype=np.int64)
    return np.abs(w).sum(axis=-1) // 2


def pair_distance(x: NDArray[np.int64], y: NDArray[np.int64]) -> NDArray[np.int64]:
    """``d(x - y) = |x - y|_1 / 2`` over the last axis, broadcasting over the leading ones (docs/definitions.md §1):
    the integers of ``substitution_distance(x - y)``, summed one coordinate at a time, without the ``(..., k)``
    difference that a reduction over its short last axis walks slowly (e.g. ``x[:, None, :]`` against a ball's
    ``y[None, :, :]``: ~8x fewer CPU seconds at k = 3; integers, so the same values whatever the order)."""
    d = np.abs(x[..., 0] - y[..., 0])
    for i in range(1, x.shape[-1]):
        d += np.abs(x[..., i] - y[..., i])
    d //= 2
    return d


def log_kernel(z: ArrayLike, c: ArrayLike, epsilon: float) -> NDArray[np.float64]:
    """``ln P(z | c) = -eps d(z - c) - ln Z`` (broadcasts over leading axes; docs/lattice.md).

    ``z`` and ``c`` must have equal sums (``z - c`` in the sum-zero lattice); checked.
    """
    z = np.asarray(z, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    eps = _validate.epsilon(epsilon)
    k = z.shape[-1]
    if c.shape[-1] != k:
        raise InputError(f"z and c must have the same number of categories, got {k} and {c.shape[-1]}")
    w = z - c
    if np.any(w.sum(axis=-1) != 0):
        raise InputError("z and c must have the same total")
    return -eps * substitution_distance(w).astype(np.float64) - log_normaliser(k, eps)


def window(n: int, k: int, W: int) -> NDArray[np.int64]:
    """``{z in Z^k : sum(z) = n, z_i >= -W}``, lexicographic (docs/lattice.md): R(n + k W) shifted by ``-W``."""
    from ..models import candidates

    n = _validate.integer(n, "n", 0)
    k = _check_k(k)
    W = _validate.integer(W, "W", 0)
    check_size(math.comb(n + k * W + k - 1, k - 1), 8 * k, f"the lattice window for k={k}, n={n}, W={W}")
    return candidates(n + k * W, k) - W


# --------------------------------------------------------------------------------------------
# The exact sampler


def _floyd(m: int, s: int, bits: BitSource) -> list[int]:
    """``s`` distinct uniform elements of ``{0..m-1}`` (Floyd's algorithm), sorted."""
    chosen: set[int] = set()
    for j in range(m - s, m):
        v = bits.randbelow(j + 1)
        chosen.add(j if v in chosen else v)
    return sorted(chosen)


def _composition(t: int, p: int, bits: BitSource) -> list[int]:
    """A uniform composition of ``t >= p`` into ``p`` positive parts (``C(t - 1, p - 1)`` of them)."""
    cuts = [c + 1 for c in _floyd(t - 1, p - 1, bits)]
    edges = [0, *cuts, t]
    return [b - a for a, b in zip(edges[:-1], edges[1:])]


def sphere_point(k: int, t: int, bits: BitSource) -> list[int]:
    """A uniform point of ``{w in L_k : d(w) = t}`` (exact, from uniform integers; docs/lattice.md)."""
    if t == 0:
        return [0] * k
    weights = [m * math.comb(t - 1, p - 1) * math.comb(t - 1, q - 1) for p, q, m in _pairs(k)]
    u = bits.randbelow(sum(weights))
    pick = 0
    while u >= weights[pick]:  # the pair (p, q) whose cell of [0, sum) holds u
        u -= weights[pick]
        pick += 1
    p, q, _ = _pairs(k)[pick]
    order = list(range(k))  # a uniform permutation (Fisher-Yates); its first p are P, next q are Q
    for i in range(k - 1, 0, -1):
        j = bits.randbelow(i + 1)
        order[i], order[j] = order[j], order[i]
    w = [0] * k
    for idx, v in zip(order[:p], _composition(t, p, bits)):
        w[idx] = v
    for idx, v in zip(order[p:p + q], _composition(t, q, bits)):
        w[idx] = -v
    return w


def sample_radius(k: int, epsilon: float | Fraction, size: int, bits: BitSource) -> list[int]:
    """``size`` exact draws of ``t = d(w)``, law ``N_k(t) x^t / Z`` (steps 1-2 of the module docstring)."""
    rate = as_rate(epsilon)
    B = envelope_constant(k)
    out: list[int] = []
    while len(out) < size:
        need = size - len(out)
        batch = max(8, 4 * need)  # about B / (Z (1-x)^(k-1)) proposals per draw; a few rounds
        g = geometric(rate, batch * (k - 1), bits)
        if isinstance(g, np.ndarray) and int(g.max()) < 2**40 // (k * B):
            # small radii: numerators and denominators below 2^62, one vectorised comparison
            T = g.reshape(batch, k - 1).sum(axis=1)
            den = np.array([B * math.comb(t + k - 2, k - 2) for t in T.tolist()], dtype=np.int64)
            if int(den.max()) < 2**62:
                num = np.array([_count(k, t) for t in T.tolist()], dtype=np.int64)
                ok = bits.integers(den, batch) < num
                out.extend(T[ok].tolist()[: size - len(out)])
                continue
        T = np.asarray(g, dtype=object).reshape(batch, k - 1).sum(axis=1)
        for t in T.tolist():
            t = int(t)
            if bits.randbelow(B * math.comb(t + k - 2, k - 2)) < _count(k, t):
                out.append(t)
                if len(out) == size:
                    break
    return out


def sample_noise(k: int, epsilon: float, size: int, rng=None) -> NDArray[np.int64]:
    """``size`` exact draws of the lattice noise ``w`` (rows of ``(size, k)``; docs/lattice.md).

    ``epsilon`` is used at the exact rational value of the float (:func:`dpposterior.randomness.as_rate`);
    ``rng``: a seed, a numpy Generator, a :class:`~dpposterior.randomness.BitSource` or None (the OS CSPRNG).
    """
    k = _check_k(k)
    eps = _validate.epsilon(epsilon)
    size = _validate.sample_count(size)
    bits = bit_source(rng)
    radii = sample_radius(k, eps, size, bits)
    return np.array([sphere_point(k, t, bits) for t in radii], dtype=np.int64).reshape(size, k)
