"""The local search of the lattice release (:func:`.remap.local_bayes_search`) at many points at once, any k.

Definition (docs/lattice.md, "The local remap at many points, any k").  A ``lattice~average`` draw at large n outputs
``T(z) = local_bayes_search(a, n, eps, z)``: with ``p = project(z)``, ``C = {c in R(n) : d(c, p) <= Dc}``
(``Dc = radius_for(k, eps, 1e-12)``), weights ``w(c) = pi(c) e^(-eps d(z, c))`` (up to one constant per z), the
lightest c of total weight at most ``share T`` left out (``T = sum_C w``; the kept set ``Kz``), risks
``S(r) = sum_{c in Kz} w(c) L(c, r)`` and a descent over the outputs ``r`` within 1 of a centre, from ``p``.
:func:`local_search_batch` returns the same output at every z (any k; :mod:`.search` is the k = 3 route, whose
tables also cover the z outside R(n)).

Method.  For a z in R(n) (so ``p = z``) and an output ``r`` near it, ``S^(z, r) = sum_{c in B_r} w(c) L(c, r)`` over
the ball ``B_r = {c in R(n) : d(c, r) <= rho}`` (``rho`` from :data:`BATCH_TAIL`).  Its first step reads a table:
for every output ``r`` within 1 of some z, ``G[r, v] = pi(r + v) L(r + v, r)`` over ``d(v) <= rho`` (computed once per
output, a block of outputs at a time), contracted with the kernel columns ``e^(-eps d(-u - v))`` of the 13 (k = 4)
offsets ``u = r - z`` within 1: ``M[r, u] = S^(r - u, r)``.  A later step (the centre moved) sums ``B_r`` for its
pairs directly.

Grouped route.  The z outside R(n) and the z the table leaves undecided are searched together.  First one search per
positive part ``y = max(z, 0)``: for every c of R(n), ``|z_i - c_i| = c_i + |z_i|`` where ``z_i < 0``, so
``2 d(z, c) = sum_i |y_i - c_i| + e`` with ``e = sum(y) - n`` (the same integers for every z of that y), and
``project(z)`` reads ``y`` only; the one-point search's floats are a function of those integers, so every z of one y
gets the same output (tested).  Then the searches sharing ``p = project(z)`` run together over the one-point
search's whole data-set ball ``C`` (no truncation): weights ``w = e^(lw - max lw)`` by its expression (the same
floats), losses ``L(c, r)`` of each output reached by :func:`.remap._local_hellinger` (the same floats), and the full
sums ``S(z, r) = sum_C w L`` of the outputs around each centre, a block of z at a time.

Certificate (proof).  Weights are taken as ``w(c) = pi(c) / top e^(-eps d(z, c))`` (``top`` an upper bound of
``pi``, so ``w <= 1``).  While ``d(r, z) + rho <= Dc``, ``B_r`` lies in C (``p = z``), so, each loss in [0, 1],

    ``S(r) - S^(r) = sum_{Kz \\ B_r} w L - sum_{B_r \\ Kz} w L``   lies in   ``[-share T, T - N_r]``,

``N_r = sum_{B_r} w``.  Bounds from public tables: ``pi(c) <= pimax(z)``, the product over coordinates of the
largest of ``lnGamma(a_i + x) - lnGamma(x + 1)`` over ``x`` in ``[z_i - Dc, z_i + Dc]`` (monotone in ``x``: an end
point), so ``T <= pimax(z) Z(eps, k) =: T+``; and ``B_r`` holds the ball ``d(c, z) <= rho - d(r, z)``, so
``T - N_r <= pimax(z) sum_{d(w) > rho - d(r, z)} e^(-eps d(w)) <= T+ tail_bound(k, eps, rho - d(r, z))``.  The
floats (ours and the one-point search's) differ from the exact sums by at most ``mu T+`` each, with
``mu = 1e-9 + 16 Lambda 2^-53`` as in :mod:`.search` (``Lambda`` the largest magnitude of a weight's logarithm).  So
the one-point search's computed risk of every output lies in
``[lo, hi] = [S^ - (share + 2 mu) T+, S^ + T+ tail_bound(k, eps, rho - d(r, z)) + 2 mu T+]``.  A step at a centre is
decided when one output ``r*`` of its ball has ``hi(r*) < lo(r)`` for every other output of the ball: then ``r*`` is
the one-point search's strict float argmin, so it returns the centre (``r*`` the centre) or moves to ``r*``, as
here.  In the grouped route the one-point search's risk of ``r`` is ``sum_Kz w L``, the kept set leaving out at most
``share T`` (``T = sum_C w``, losses in [0, 1]), and the two float sums differ by at most ``mu T`` each, so it lies in
``[S - (share + 2 mu) T, S + 2 mu T]``: a step is decided by the same rule (tail 0).

Exact steps.  A step the certificate leaves open (a near tie: at a symmetric prior, exact ties between permuted
outputs are common, and only the one-point search's own floats decide them) is taken in the grouped route as the
one-point search takes it, by the same floats: the weights are its floats (above); the kept set is computed as it
computes it (the stable order by ``-w``, the sequential cumulative sums along it, the first ``m + 1`` with ``m`` the
``searchsorted`` of ``(1 - share)`` times the total, sorted; :func:`_kept`, the same set); the losses are
:func:`.remap._local_hellinger`'s (elementwise: an entry's float does not depend on the other pairs computed); and
the risks are the same product
``w[keep] @ L[keep, rs]`` on arrays of the same shape, order and layout (a C-ordered ``(kept, |rs|)`` matrix, the
outputs in the ball's order), so the argmin (ties: the first) and the step are its own.  Every row is then decided
and the walk goes on by the certificate; the rows that need an exact step are counted, refused past a limit in one
line (:func:`.remap._Fallback`), so every output equals the one a draw computes (tested bit for bit against it,
symmetric priors included).  An exact step fills only its candidates' columns of that matrix (the outputs whose
interval reaches the least high end; the others 0) and takes the argmin over them: a column's product reads that
column only, and every other output's float risk is certified strictly above a candidate's (:func:`_exact_steps`).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln

from .. import validate as _validate
from ..distances.hellinger import hellinger_from_log_bc, lgamma_jensen_gap
from ..errors import InputError
from ..models import candidates
from .noise import log_normaliser, pair_distance, radius_for, tail_bound, window
from .remap import (
    FLOAT_MARGIN,
    SEARCH_SHARE,
    SEARCH_STEPS,
    _ball,
    _Fallback,
    _jensen_band,
    _jensen_table,
    _local_hellinger,
    project,
    square_table,
)

#: The balls ``B_r`` have radius ``rho = radius_for(k, eps, BATCH_TAIL) + 2``, so that the bound on ``T - N_r`` is at
#: most ``BATCH_TAIL T+`` for outputs within 2 of z (module docstring).
BATCH_TAIL = 1e-3
#: Entries (outputs x ball points) of one block of the table ``G``.
BLOCK_ENTRIES = 2**20
#: Entries (offsets x data sets) of one block of :func:`window_errors_any`'s sum, and data sets of one tile of it (its
#: buffers, ~1.3 MiB in all, stay in cache; as :func:`.search.window_errors`).
ERROR_BLOCK_ENTRIES = 2**15
ERROR_TILE_POINTS = 2**13


def batch_radius(k: int, epsilon: float) -> int:
    """``rho``, the radius of the sums ``S^`` (:data:`BATCH_TAIL`), at most ``Dc`` (public k, eps)."""
    return min(radius_for(k, epsilon, BATCH_TAIL) + 2, radius_for(k, epsilon, 1e-12))


#: Offsets of a ball from which :meth:`_Sums.G` gathers row by row (no block-sized index array): measured against the
#: one gather over the block (the same floats; one block each), 2.0x to 2.5x faster from 2,869 offsets (k = 4, up to
#: 85,609), about even at 469 to 923, 1.2x to 13x slower at 7 to 309 (the block's rows are then many and short:
#: 149,796 rows at k = 3, eps 30).
G_ROW_BALL = 512


class _Sums:
    """The per-coordinate tables of the sums ``S^(z, r)`` (module docstring): ``ln pi`` up to ``top``, the Jensen-gap
    bands ``J_i(r_i + v_i, r_i)`` for ``|v_i| <= rho``, the ball ``d(v) <= rho`` and its kernel."""

    def __init__(self, a: NDArray[np.float64], n: int, eps: float, rho: int, bands: bool = True):
        k = a.size
        self.a, self.n, self.eps, self.rho, self.k = a, n, eps, rho, k
        x = np.arange(n + 1, dtype=np.float64)
        self.f = [gammaln(a[i] + x) - gammaln(x + 1.0) for i in range(k)]
        self.top = float(sum(fi.max() for fi in self.f))  # ln pi(c) - top <= 0 on R(n)
        if not bands:  # ln pi only (the float margin's magnitude): the grouped route reads no table
            return
        cols = np.arange(-rho, rho + 1)
        vals = np.arange(n + 1)[:, None] + cols[None, :]
        self.bands = [np.where((vals >= 0) & (vals <= n),
                               lgamma_jensen_gap(a[i] + np.clip(vals, 0, n).astype(np.float64), a[i] + x[:, None]),
                               0.0).ravel() for i in range(k)]  # [r_i (2 rho + 1) + v_i + rho]
        # the ball's offsets with every |v_i| <= n: at the others r + v is off R(n) for every r of R(n), so their G is
        # 0 (e^(-inf) times a finite root) and each sum over the ball is the same exact sum without them (rho > n
        # below eps ~0.6 at k = 4: at eps 0.4, n = 20, 45,631 of 149,171 offsets)
        ball = _ball(k, rho)
        self.ball = ball if rho <= n else ball[np.all(np.abs(ball) <= n, axis=1)]
        self.width = 2 * rho + 1
        # f_i padded by rho on both sides with -inf (a count off 0..n): ln pi(r + v) is -inf off R(n), so its weight
        # e^(ln pi - top) is 0 there as with the mask it replaces; the ball's columns shifted to index the pads/bands
        self.f_pad = [np.concatenate([np.full(rho, -np.inf), fi, np.full(rho, -np.inf)]) for fi in self.f]
        self.cols = [np.ascontiguousarray(self.ball[:, i] + rho)[None, :] for i in range(k)]
        # e^(-eps t) for the integer distances t = 0, 1, ... seen so far (grown on demand)
        self.exp_d = np.exp(-self.eps * np.arange(4 * rho + 4, dtype=np.int64))

    def G(self, r: NDArray[np.int64]) -> NDArray[np.float64]:
        """``G[r, v] = pi(r + v) / top L(r + v, r)`` for the rows ``r`` (outputs) and the ball's offsets (0 off R(n)).

        Each entry the same floats as the sums over the masked, clipped counts it was first written with (the same
        terms added in coordinate order; off R(n) a weight ``e^(-inf) = 0``; tested).  From a ball of
        :data:`G_ROW_BALL` offsets, row by row each coordinate's terms are gathered from the table's view that starts at
        the row's count (``f[r_i + c] = f[r_i:][c]``), so no index array the size of the block is built: the same
        entries (below it the rows are many and short, and one gather over the block is faster)."""
        k, ball = self.k, self.ball
        lnpi = np.zeros((len(r), len(ball)))
        log_bc = np.zeros((len(r), len(ball)))
        for i in range(k):
            if len(ball) >= G_ROW_BALL:
                f, band, cols = self.f_pad[i], self.bands[i], self.cols[i][0]
                for j, rj in enumerate(r[:, i].tolist()):
                    lnpi[j] += np.take(f[rj:], cols)
                    log_bc[j] += np.take(band[rj * self.width:], cols)
            else:
                ri = r[:, i:i + 1]
                lnpi += self.f_pad[i][ri + self.cols[i]]
                log_bc += self.bands[i][ri * self.width + self.cols[i]]
        np.minimum(log_bc, 0.0, out=log_bc)
        g = np.expm1(log_bc, out=log_bc)
        np.negative(g, out=g)
        np.sqrt(g, out=g)
        lnpi -= self.top
        g *= np.exp(lnpi, out=lnpi)
        return g

    def kernel(self, s: NDArray[np.int64]) -> NDArray[np.float64]:
        """``e^(-eps d(s - v))`` for the rows ``s`` (columns: the ball's offsets v): ``np.exp(-eps * d)`` read off a table
        of the integer distances (one elementwise function of the same float argument: the same floats, tested)."""
        d = pair_distance(s[:, None, :], self.ball[None, :, :])
        top = int(d.max(initial=0))
        if top >= len(self.exp_d):
            self.exp_d = np.exp(-self.eps * np.arange(top + 1, dtype=np.int64))
        return self.exp_d[d]


def _keys(r: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    """An integer key per point of R(n) (its first k - 1 counts in base n + 1)."""
    key = np.zeros(len(r), dtype=np.int64)
    for i in range(r.shape[1] - 2, -1, -1):
        key = key * (n + 1) + r[:, i]
    return key


def local_search_batch(prior: ArrayLike, n: int, epsilon: float, Z: ArrayLike, max_fallback: int | None = None,
                       stats: dict | None = None, orbits: bool = False, tables: bool = True) -> NDArray[np.int64]:
    """``local_bayes_search(prior, n, epsilon, z)`` (its defaults) for every row ``z`` of ``Z`` (any k >= 3, each row
    summing to n), the z in R(n) computed together (module docstring; docs/lattice.md).  Equal output at every z.

    ``max_fallback``: most z whose search needs an exact step (a near tie, module docstring) before a one-line
    refusal (None: no limit); ``stats``: filled with ``{"points", "fallback", "decided"}`` (``fallback``: those z);
    ``orbits``: at a symmetric prior, one search per orbit of the points' pairs ``(max(z, 0), project(z))`` under
    permutations of the categories (:func:`_orbit_search`; the same outputs); ``tables`` False: every z to the grouped
    route, the table of the sums ``S^`` (``k (n + 1) (2 rho + 1)`` floats) not built (the same outputs: each route
    returns the one-point search's; for large n, where the table does not fit and the one-point search would run
    point by point)."""
    a = _validate.prior(prior)
    k = a.size
    if k < 3:
        raise InputError("the batched local search is built for k >= 3")
    n, eps = _validate.integer(n, "n", 1), _validate.epsilon(epsilon)
    Z = np.asarray(Z, dtype=np.int64).reshape(-1, k)
    if np.any(Z.sum(axis=1) != n):
        raise InputError("every z must sum to n")
    if orbits and np.all(a == a[0]):
        return _orbit_search(a, n, eps, Z, max_fallback, stats)
    return _search(a, n, eps, Z, max_fallback, stats, tables=tables)


def orbit_pairs(Z: ArrayLike, n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(perm, pairs)``: for each row z of ``Z`` (summing to n) its pair ``(max(z, 0), project(z))`` with the
    columns sorted (decreasing ``y``, then decreasing ``p``; ``p <= n``), and the permutation: z's counts at
    ``perm[j]`` are the sorted pair's ``j``-th.  Two rows are in one orbit of the pairs under the permutations of the
    categories iff their sorted pairs are equal (:func:`_orbit_search` runs one search a distinct sorted pair)."""
    Z = np.asarray(Z, dtype=np.int64)
    Y = np.maximum(Z, 0)
    P = project(Z, n)
    perm = np.argsort(-(Y * (n + 1) + P), axis=1, kind="stable")
    pairs = np.concatenate([np.take_along_axis(Y, perm, axis=1), np.take_along_axis(P, perm, axis=1)], axis=1)
    return perm, pairs


def orbit_count(Z: ArrayLike, n: int) -> int:
    """The number of searches :func:`_orbit_search` runs over the rows of ``Z`` (before the rows of uncertified
    orbits are searched one by one): the distinct sorted pairs of :func:`orbit_pairs`, by one int64 key a pair where
    it fits (entries in ``[0, b - 1]``, ``b`` one past the largest: base ``b`` while ``b^(2k) < 2^63``), else the
    pairs' own unique."""
    Z = np.asarray(Z, dtype=np.int64)
    if not len(Z):
        return 0
    _, pairs = orbit_pairs(Z, n)
    b = int(pairs.max()) + 1
    if b ** pairs.shape[1] < 2**63:
        return int(np.unique(np.ravel_multi_index(tuple(pairs.T), (b,) * pairs.shape[1])).size)
    return int(len(np.unique(pairs, axis=0)))


def _orbit_search(a: NDArray[np.float64], n: int, eps: float, Z: NDArray[np.int64], max_fallback: int | None,
                  stats: dict | None) -> NDArray[np.int64]:
    """:func:`local_search_batch` at a symmetric prior (every ``a_i`` equal), one search per orbit of the pairs
    ``(y, p) = (max(z, 0), project(z))`` under the permutations of the categories.

    The one-point search at z reads z through ``y`` and ``p`` only (module docstring, "Grouped route": ``2 d(z, c) =
    sum_i |y_i - c_i| + e`` with ``e = sum(y) - n`` for every c of R(n); its data sets are the ball around ``p``, its
    walk starts at ``p``).  The columns of each pair are sorted (decreasing ``y``, then decreasing ``p``; ``(y, p) =
    s(v, q)`` for the sorted pair and a permutation ``s``) and each distinct sorted pair is searched once, as the
    pair ``(z', q)``: ``z' = v`` less ``e`` on its last count (``v``'s smallest, 0 where ``e > 0``: some count of a z
    off R(n) is negative), so ``max(z', 0) = v``, with its data sets and walk around the given ``q``
    (:func:`_search` with ``P``; ``q`` need not be ``project(v)``: the projection breaks ties among equal counts by
    index, which a permutation does not keep), certified outputs only (no one-point search).

    Proof that a z whose sorted pair is certified with output ``r`` has the one-point search's output ``s(r)``: at
    a symmetric prior ``pi(s(c)) = pi(c)``, ``L(s(c), s(r)) = L(c, r)`` and ``d(s(y), s(c)) = d(y, c)``; R(n), the
    data-set ball around ``p = s(q)`` and the output balls are the images of the pair's, and ``e`` is the same, so
    every exact sum of the search at z (its weights' total ``T``, the full risks ``S``) equals the one at the pair of
    the permuted output.  The certificate (module docstring) bounds the one-point search's computed risks by
    intervals around those exact sums (the float error ``mu`` holds for any order of the terms, the kept set is any
    set leaving out at most ``share T``), so at z each step's certified strict minimiser is the image of the pair's,
    and the step rule (stay, return inside the ball, or move) reads distances only: the search at z walks the images
    of the pair's centres and returns ``s(r)``.  The other z (an uncertified pair: near ties, exact ones common at a
    symmetric prior) are searched as :func:`_search` does, the one-point search included.

    Clamp groups (:func:`clamp_leads`): the sorted pairs that share ``(min(y, n), p)`` are searched once, at the one of
    least excess ``s = sum(y - min(y, n))``; where that search is certified, every pair of the group takes its output,
    and the points of an uncertified group are searched as those of an uncertified pair (above; their exact sums are the
    lead's, so their own certificates would leave the same step open: measured, none of 24,333 such pairs certified at
    eps 0.4, (5, 5, 5, 5)). Proof: for every c of R(n) (``c_i <= n``), ``|y_i - c_i| = |v_i - c_i| + (y_i - v_i)`` with
    ``v = min(y, n)``, so ``d(z', c) = d(z, c) + (s' - s)`` for two pairs of one group: the same data sets (the ball
    around the same ``p``), ``ln pi``, losses and start, and weights ``e^(-eps (s' - s))`` times the other's, so every
    exact sum the certificate reads (module docstring: each step's risks and ``T``, after the search's scaling by its
    largest weight, or as bounded by ``T+`` on the first step's table, both sides scaled alike) is the same at both. The
    certificate bounds the one-point search's computed risks at any z by intervals around those exact sums, the float
    error ``mu`` covering its weights' logarithms up to ``Lambda``; searched with ``Lambda`` raised by ``eps`` times the
    group's largest ``s' - s`` (``shift``), it covers every pair of the group, so each step's certified strict minimiser
    is the one-point search's at each of them, and the walk and output are the same."""
    perm, pairs = orbit_pairs(Z, n)
    V, back = np.unique(pairs, axis=0, return_inverse=True)
    back = back.reshape(-1)
    k = Z.shape[1]
    Zq, Pq = V[:, :k].copy(), V[:, k:]
    Zq[:, -1] -= Zq.sum(axis=1) - n  # e below 0 on the last count (0 there where e > 0)
    ustats: dict = {}
    lead, group, shift = clamp_leads(V, n)
    got_l, ok_l = _search(a, n, eps, Zq[lead], None, ustats, certified=True, P=Pq[lead], drop=ORBIT_DROP_WEIGHTS,
                          shift=shift)
    got, ok = got_l[group], ok_l[group]
    out = np.empty_like(Z)
    rows = np.arange(len(Z))[:, None]
    out[rows, perm] = got[back]  # out[perm[j]] = r[j]
    mapped = ok[back]
    left = np.flatnonzero(~mapped)
    lstats: dict = {}
    searched = left
    if left.size:
        # the points of uncertified orbits: near ties, most taking an exact step (their kept sets' columns); where
        # every shift is exact, one a clamp group (the same floats at each of its points: exact_shift_weights)
        if exact_shift_weights(a, eps):
            y = np.maximum(Z[left], 0)
            v = np.minimum(y, n)
            _, first, inv = np.unique(np.concatenate([v, project(Z[left], n)], axis=1), axis=0, return_index=True,
                                      return_inverse=True)
            searched = left[first]
            out[left] = _search(a, n, eps, Z[searched], max_fallback, lstats, kept_columns=True)[inv.reshape(-1)]
        else:
            out[left] = _search(a, n, eps, Z[left], max_fallback, lstats, kept_columns=True)
    if stats is not None:
        stats.update(points=len(Z), fallback=lstats.get("fallback", 0), decided=len(Z) - lstats.get("fallback", 0),
                     orbits=len(V), leads=len(lead), mapped=int(mapped.sum()),
                     left=int(left.size), left_searched=int(searched.size))
    return out


#: The exact-shift rule's eps (:func:`exact_shift_weights`): a numerator below ``2^EXACT_SHIFT_BITS`` over a power of
#: two at most ``2^EXACT_SHIFT_BITS``; the lattice release's working eps is on this grid.
EXACT_SHIFT_BITS = 20


def exact_shift_weights(prior: ArrayLike, epsilon: float) -> bool:
    """Whether the one-point search's weights are the same floats at every point of a clamp group (the points that
    share ``v = min(max(z, 0), n)`` and ``p = project(z)``; :func:`.column.clamp_groups`), known from public inputs:
    every ``a_i = 1`` (each ``lnGamma(a_i + c_i) - lnGamma(c_i + 1)`` is the difference of one float with itself, so
    ``ln pi = 0`` exactly) and eps a float with a power-of-two denominator of at most ``2^20`` and a numerator below
    ``2^20`` (so ``eps D`` and the differences of such products are exact for every integer ``D < 2^30``).  Proof
    that the search is then the same at two points ``z, z'`` of a group: ``d(z', c) = d(z, c) + (s' - s)`` at every c
    of R(n) (:func:`_orbit_search`), so the log-weights ``-eps d(z', c)`` less their largest are ``-eps (d(z, c) -
    min d)``, exact at both: the same weights, the same data sets around the same ``p``, so every float of the
    search (kept set, risks, steps, exact steps included) and its output are the same."""
    a = np.asarray(prior, dtype=np.float64)
    num, den = float(epsilon).as_integer_ratio()
    return bool(np.all(a == 1.0)) and den <= 2**EXACT_SHIFT_BITS and num < 2**EXACT_SHIFT_BITS


def clamp_leads(V: NDArray[np.int64], n: int) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """``(lead, group, shift)`` of the sorted pairs ``V`` (rows ``(y, p)``, :func:`orbit_pairs`): the pairs grouped
    by ``(min(y, n), p)``, ``lead`` the row of least excess ``s = sum(y - min(y, n))`` in each group (the first among
    equals), ``group[j]`` the group of row j, and ``shift`` the largest ``s - s(lead)`` (:func:`_orbit_search`)."""
    V = np.asarray(V, dtype=np.int64)
    if not len(V):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 0
    k = V.shape[1] // 2
    y = V[:, :k]
    v = np.minimum(y, n)
    s = (y - v).sum(axis=1)
    _, group = np.unique(np.concatenate([v, V[:, k:]], axis=1), axis=0, return_inverse=True)
    group = group.reshape(-1)
    order = np.lexsort((s, group))
    first = np.r_[True, group[order][1:] != group[order][:-1]]
    lead = order[first]
    return lead, group, int((s - s[lead][group]).max())


def _search(a: NDArray[np.float64], n: int, eps: float, Z: NDArray[np.int64], max_fallback: int | None,
            stats: dict | None, certified: bool = False, P: NDArray[np.int64] | None = None,
            kept_columns: bool = False, drop: float = 0.0, tables: bool = True, shift: int = 0):
    """:func:`local_search_batch` after its checks; ``certified``: no one-point search, returning ``(outputs, whether
    each is certified)`` (an uncertified row's output is undefined).  ``P`` (``certified`` only): the projections the
    searches start from and centre their data sets on, one per row (default ``project(Z)``; a row of R(n) has its
    own); the searches are then those of the pairs ``(z, P)`` (:func:`_orbit_search`).  ``kept_columns``: the grouped
    route's sums over its rows' kept sets (:func:`_grouped_search`; the same outputs); ``drop`` (``certified``): its
    sums over the columns where some row weighs at least ``drop``, the rest a tail (:func:`_grouped_search`); a tuple:
    the drops tried in turn, each on the rows the ones before left uncertified (every certified output is the one-point
    search's, whichever drop certified it, so the outputs do not depend on the drops; only the rows left over do).
    ``tables`` False: no row takes the table's first steps (every row to the grouped route, the same outputs) and the
    table is not built (``mu`` reads ``ln pi`` only, the same floats).  ``shift`` (``certified`` only): ``mu``'s
    ``Lambda`` raised by ``eps shift``, so that each certified output is also the one-point search's at the pairs of
    its clamp group (:func:`_orbit_search`)."""
    k = a.size
    Dc = radius_for(k, eps, 1e-12)
    rho = batch_radius(k, eps)
    sums = _Sums(a, n, eps, rho, bands=tables)
    Zk = math.exp(log_normaliser(k, eps))
    magnitude = max(float(np.abs(fi).max()) for fi in sums.f) * k + abs(sums.top) + eps * Dc + eps * shift
    mu = FLOAT_MARGIN + 16.0 * magnitude * 2.0**-53
    out = np.empty_like(Z)
    decided = np.zeros(len(Z), dtype=bool)
    inside = np.flatnonzero(np.all(Z >= 0, axis=1))
    ball1 = _ball(k, 1)
    centre_j = int(np.flatnonzero(np.all(ball1 == 0, axis=1))[0])
    # the table's certificate bounds T by pimax over the box z +- Dc, which holds all of R(n) where Dc >= n: there it
    # decides almost no step at k = 3 (measured: none of 1,889 points at n = 300, eps = 0.1), so every point goes to
    # the grouped route (the same outputs: both give the one-point search's).  At k >= 4 it still decides most inside
    # points (the corner route's plan counts only face points left, at eps >= FACE_MIN_EPSILON), so it stays there.
    if tables and inside.size and rho + 1 <= Dc and not (k == 3 and Dc >= n):
        zin = Z[inside]
        # T+ = pimax(z) Z(eps, k): the largest ln pi over the box [z - Dc, z + Dc] at its corners (monotone per count)
        lnmax = np.zeros(len(zin))
        for i in range(k):
            lo, hi = np.clip(zin[:, i] - Dc, 0, n), np.clip(zin[:, i] + Dc, 0, n)
            lnmax += np.maximum(sums.f[i][lo], sums.f[i][hi])
        Tplus = np.exp(lnmax - sums.top) * Zk
        # step 1: the outputs r = z + u (u within 1) from the table M[r, u] = sum_v K(-u - v) G[r, v]
        rs = zin[:, None, :] + ball1[None, :, :]
        real = np.all(rs >= 0, axis=2)
        keys = _keys(rs.reshape(-1, k), n).reshape(rs.shape[:2])
        uniq, first = np.unique(keys[real], return_index=True)
        outputs = rs[real][first]
        Kmat = np.ascontiguousarray(sums.kernel(-ball1).T)  # (|ball|, 13)
        M = np.empty((len(outputs), len(ball1)))
        step = max(1, BLOCK_ENTRIES // len(sums.ball))
        for lo in range(0, len(outputs), step):
            # einsum, not BLAS: a threaded BLAS spins on a shared machine
            M[lo:lo + step] = np.einsum("rv,vu->ru", sums.G(outputs[lo:lo + step]), Kmat, optimize=False)
        S = np.full(real.shape, np.nan)
        S[real] = M[np.searchsorted(uniq, keys[real]), np.nonzero(real)[1]]
        first_step = _decide(S, real, Tplus, tail_bound(k, eps, rho - 1), mu, centre_j)
        stay = first_step == centre_j
        out[inside[stay]] = zin[stay]
        decided[inside[stay]] = True
        move = np.flatnonzero((first_step >= 0) & ~stay)
        # later steps: the pairs' sums directly, while the outputs stay within reach (d(r, z) + rho <= Dc)
        active, cen, tp = inside[move], rs[move, first_step[move]], Tplus[move]
        for s in range(2, SEARCH_STEPS + 1):
            if not active.size or s + rho > Dc:
                break
            rs = cen[:, None, :] + ball1[None, :, :]
            real = np.all(rs >= 0, axis=2)
            S = np.full(real.shape, np.nan)
            zz = np.repeat(Z[active], len(ball1), axis=0)[real.ravel()]
            rr = rs[real]
            S[real] = _pair_sums(sums, zz, rr)
            dist = np.abs(rs - Z[active][:, None, :]).sum(axis=2).max() // 2
            best = _decide(S, real, tp, tail_bound(k, eps, rho - int(dist)), mu, centre_j)
            stay = best == centre_j
            out[active[stay]] = cen[stay]
            decided[active[stay]] = True
            go = (best >= 0) & ~stay
            active, cen, tp = active[go], rs[go, best[go]], tp[go]
    # the rest (off R(n), past the table's reach, near ties): grouped by their projection, over the one-point search's
    # whole ball, the steps its certificate leaves open taken by the one-point search's floats (exact steps)
    rest = np.flatnonzero(~decided)
    # a z off R(n) has the search of y = max(z, 0): d(z, c) = d(y, c) + e/2 for every c of R(n), with e = sum(y) - n
    # (the counts below 0 add |z_i| to |z_i - c_i|), the same integers, and project(z) reads y only: the same floats
    # (with given projections: of the pair (y, p))
    ykey = np.maximum(Z[rest], 0) if P is None else np.concatenate([np.maximum(Z[rest], 0), P[rest]], axis=1)
    _, first, back = np.unique(ykey, axis=0, return_index=True, return_inverse=True)
    reps = rest[first]
    fb = _Fallback(len(Z) if max_fallback is None else int(max_fallback))
    drops = (drop if isinstance(drop, tuple) else (drop,)) if certified else (0.0,)
    got, ok = _grouped_search(a, n, eps, Z[reps], mu, exact=None if certified else fb,
                              P=None if P is None else P[reps], kept_columns=kept_columns and not certified,
                              drop=drops[0])
    for d in drops[1:]:
        # the rows a stronger drop left open, again over more columns (any certified output is the one-point
        # search's, whichever drop certified it)
        again = np.flatnonzero(~ok)
        if not again.size:
            break
        got2, ok2 = _grouped_search(a, n, eps, Z[reps[again]], mu, P=None if P is None else P[reps[again]], drop=d)
        got[again[ok2]] = got2[ok2]
        ok[again[ok2]] = True
    out[reps[ok]] = got[ok]
    handed = reps[~ok]
    if certified:
        decided[reps[ok]] = True
        decided[rest] = decided[reps[back.reshape(-1)]]
        out[rest] = out[reps[back.reshape(-1)]]
        if stats is not None:
            stats.update(points=len(Z), decided=int(decided.sum()))
        return out, decided
    for j in handed:  # none: every row of the exact grouped route is decided
        out[j] = fb(a, n, eps, Z[j])
    out[rest] = out[reps[back.reshape(-1)]]
    if stats is not None:
        stats.update(points=len(Z), fallback=fb.count, decided=len(Z) - fb.count, grouped=int(ok.sum()),
                     distinct=int(reps.size))
    return out


#: Entries (points x data sets) of one block of the grouped search's weights (:func:`_grouped_search`).
GROUP_ENTRIES = 2**21
#: The orbit route's certified searches (:func:`_orbit_search`) sum over the columns where some row of a block weighs
#: at least this (each row's largest weight 1), the rest a tail of their decisions (:func:`_grouped_search`, ``drop``):
#: at eps = 1, k = 4, the data sets past ~25 of the nearest (of ``Dc`` = 36), a tail ~1e-8 of the total, well inside
#: the certificate's share of 1e-6.
ORBIT_DROP_WEIGHT = 1e-11
#: The drops the orbit route tries in turn (:func:`_search`): most rows are certified over the few columns of the first
#: (at eps = 1, k = 4, the data sets within ~16 of the nearest); the rows it leaves open (their tail too wide for a near
#: tie) are tried again at :data:`ORBIT_DROP_WEIGHT`.
ORBIT_DROP_WEIGHTS = (1e-7, ORBIT_DROP_WEIGHT)
#: Rows of loss room a group of the grouped search starts with (a row per output reached; 13 at k = 4 per centre).
GROUP_ROWS = 64
#: Bytes of loss rows the grouped search keeps from one group to the next where every group's data sets are all of
#: R(n) (:func:`_grouped_search`, "Whole balls"); past them it starts a new table at the next group.
LOSS_CACHE_BYTES = 2**27


def _grouped_search(a: NDArray[np.float64], n: int, eps: float, Z: NDArray[np.int64], mu: float,
                    exact: _Fallback | None = None, P: NDArray[np.int64] | None = None, kept_columns: bool = False,
                    drop: float = 0.0) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """The one-point search's output at each row ``z`` of ``Z`` where it is certified (the second array), the points
    that share ``p = project(z)`` together (module docstring, "Grouped route").

    Per group: the data sets ``C`` of the one-point search (the ball ``d(c, p) <= Dc`` in R(n), in its order), the
    weights ``w = e^(lw - max lw)`` of every z of the group from the same per-coordinate tables (:func:`.remap.
    _search_weights`' expression), the losses ``L(c, r)`` of the outputs the searches reach, from
    :func:`.remap._local_hellinger` (the one-point search's floats), and the full sums ``S(z, r) = sum_C w L``: the
    one-point search's risks leave out at most ``share`` of ``sum_C w``, so each lies within
    ``[S - (share + 2 mu) T, S + 2 mu T]``, ``T`` the computed ``sum_C w``; a step is decided by :func:`_decide`.
    After a move by ``u`` (within 1) the outputs of the new ball that lie within 1 of the last centre (``u + v`` within
    1, :func:`_ball_shift`) keep the sums of the last step: the same row of ``w``, the same loss row, so the same
    exact sum (the float read again instead of recomputed; any order of terms is within the margin); only the other
    outputs are summed (the rows that share a centre and a move at once).

    ``exact``: a step :func:`_decide` leaves open is taken by the one-point search's own floats (module docstring,
    "Exact steps"), so every row is decided; each row that needs one is counted by ``exact`` (refused past its
    limit in one line).  ``P``: the projections of the rows (default ``project(Z)``; given only with ``exact`` None:
    the searches of the pairs ``(z, P)``, :func:`_orbit_search`).

    ``kept_columns`` (with ``exact``; for rows expected to need exact steps, the points of the uncertified orbits):
    each block's kept sets ``Kz`` are computed first (:func:`_kept`, once per row) and the losses and sums run over
    their union ``C' = U_z Kz`` instead of ``C`` (the same outputs).  Proof: the one-point search's exact risk is
    ``R(r) = sum_{Kz} w L``; since ``Kz`` lies in ``C'`` and each loss is in [0, 1], ``S'(r) = sum_{C'} w L = R(r) +
    sum_{C' - Kz} w L`` lies in ``[R(r), R(r) + (T - sum_{Kz} w)]``, and ``T - sum_{Kz} w <= share T`` (the kept set
    leaves out at most ``share T``), so ``R(r)`` lies in ``[S' - share T, S']``: inside the interval the certificate
    already uses for ``S`` (``T`` stays the sum over all of ``C``), so :func:`_decide` and its float margins are
    unchanged.  An exact step reads the same weights (``w[z, Kz]``) and the same losses (``L(Kz, r)``, elementwise
    floats) in the same order and layout, so the same product and argmin.

    ``drop`` > 0 (with ``exact`` None: certified outputs only): each block's losses and sums run over the columns
    ``C'`` where some row's weight is at least ``drop`` (each row's largest weight is 1), and each row's step is
    decided with the tail ``delta / T + 2 mu`` (``delta`` its computed weight off ``C'``).  Proof: ``S'(r) =
    sum_{C'} w L = S(r) - sum_{C - C'} w L`` lies in ``[S(r) - delta, S(r)]`` (losses in [0, 1]), so the one-point
    search's risk, within ``[S - (share + 2 mu) T, S + 2 mu T]`` (above), lies within ``[S' - (share + 2 mu) T, S' +
    delta + 2 mu T]``; the computed ``delta`` (a float sum of nonnegative terms, relative error below ``|C| 2^-53 <=
    mu``) is below the exact one by at most ``mu T``, so the tail ``delta / T + 2 mu`` covers it: :func:`_decide`'s
    rule with that tail is sound.  A row the wider interval leaves open is only uncertified (searched point by point,
    the same output).

    Whole balls (``Dc >= n``).  Every projection ``p`` lies in R(n), and for ``c`` in R(n) ``d(c, p) <= n <= Dc``, so
    the group's data sets ``C = R(n) ∩ (p + ball)`` are all of R(n); the ball is lexicographic and a translation keeps
    that order, so ``C`` is R(n) in lexicographic order, the same array for every group, and so is ``base`` (each entry
    ``sum_i lnGamma(a_i + c_i) - lnGamma(c_i + 1)`` at the same ``c``, the same floats added in the same order).  They
    are computed at the first group and read by the others.  A loss row ``L(c, r)`` over ``C`` is then a function of
    the output ``r`` alone (each entry elementwise, :func:`_loss_rows`), so the rows written by one group are the rows
    another would write: they are kept from group to group, keyed by the output, and a new table is started at a
    group where the kept one has passed :data:`LOSS_CACHE_BYTES` (not with ``kept_columns`` or ``drop``, whose blocks
    narrow ``C``).  Every float read is the one computed before, so every sum, step and output is the same (tested,
    with the table started anew at every group and kept throughout).  The rows are kept at k = 3 only, where their bytes
    are planned (the noise-aware column's region plan); at k >= 4 each group starts its own table, as before."""
    k = a.size
    if P is not None and exact is not None:
        raise ValueError("given projections are for the certified route only")
    out = np.zeros_like(Z)
    decided = np.zeros(len(Z), dtype=bool)
    if not len(Z):
        return out, decided
    Dc = radius_for(k, eps, 1e-12)
    ball, ball1 = _ball(k, Dc), _ball(k, 1)
    ball_rows = _BallRows(ball, Dc)  # the ball as rows per coordinate (each group's data sets read rows)
    centre_j = int(np.flatnonzero(np.all(ball1 == 0, axis=1))[0])
    shift = _ball_shift(ball1)
    P = project(Z, n) if P is None else np.asarray(P, dtype=np.int64)
    gkey = _keys(P, n)
    order = np.argsort(gkey, kind="stable")
    cuts = np.flatnonzero(np.diff(gkey[order])) + 1
    # every group's data sets are all of R(n), in one order, where Dc >= n (docstring, "Whole balls"): computed
    # once, and the loss rows of the outputs reached kept from group to group (up to LOSS_CACHE_BYTES)
    whole = Dc >= n
    share_losses = whole and k == 3 and not ((kept_columns and exact is not None) or (drop > 0 and exact is None))
    shared: tuple | None = None
    HT_shared: NDArray[np.float64] | None = None
    have_shared: dict[int, int] = {}
    for idx in np.split(order, cuts):
        p = P[idx[0]]
        if shared is None:
            # the ball's points in R(n) (one coordinate at a time, as the one-point search), as columns of the
            # per-coordinate tables over p_i - Dc..p_i + Dc
            cs, base, csT = _ball_data_sets(a, p, ball_rows)
            if whole:
                shared = (cs, base, csT)
        else:
            cs, base, csT = shared
        # the losses of the outputs reached, a row per output (in the order first reached; room doubled as needed:
        # np.empty maps pages only where written)
        if share_losses:
            if HT_shared is None or HT_shared.nbytes > LOSS_CACHE_BYTES:
                HT_shared, have_shared = np.empty((GROUP_ROWS, len(cs))), {}
            HT, have = HT_shared, have_shared
        else:
            HT = np.empty((GROUP_ROWS, len(cs)))
            have = {}
        step = max(1, GROUP_ENTRIES // len(cs))
        cs_group = cs
        for lo in range(0, len(idx), step):
            zb = idx[lo:lo + step]
            w, T = _block_weights(csT, Z[zb], base, eps)
            keeps: dict[int, NDArray[np.int64]] = {}
            kept: dict[int, NDArray[np.int64]] | None = None
            if kept_columns and exact is not None:
                # the block's columns: the union of its rows' kept sets (docstring), the kept sets as indices into it;
                # its own loss rows (the columns are the block's)
                full = [_kept(w[r]) for r in range(len(zb))]
                # the union as a mask (its indices sorted, as np.unique's), each kept set's places in it by the mask's
                # running count
                mask = np.zeros(w.shape[1], dtype=bool)
                for kr in full:
                    mask[kr] = True
                union = np.flatnonzero(mask)
                place = np.cumsum(mask) - 1
                kept = {r: place[kr] for r, kr in enumerate(full)}
                w = np.ascontiguousarray(w[:, union])
                cs = cs_group[union]
                HT = np.empty((GROUP_ROWS, len(cs)))
                have = {}
            tail = np.zeros((len(zb), 1))
            if drop > 0 and exact is None:
                # the block's columns: where some row's weight is at least drop; each row's weight off them its tail
                # (every block narrows, with its own loss rows, so no block reads another's columns)
                light = ~(w >= drop).any(axis=0)
                tail = (np.einsum("zc,c->z", w, light.astype(np.float64), optimize=False) / T + 2 * mu)[:, None]
                w = np.ascontiguousarray(w[:, ~light])
                cs = cs_group[~light]
                HT = np.empty((GROUP_ROWS, len(cs)))
                have = {}
            active = np.arange(len(zb))
            cen = np.repeat(p[None, :], len(zb), axis=0)
            # the last step's sums of each active row and the ball's index of its move (the centre's at the start):
            # an output within 1 of the last centre keeps its sum S(z, r) (the same row of w, the same loss row)
            last_S: NDArray[np.float64] | None = None
            moved = np.full(len(zb), centre_j)
            # the walks' cycles (docstring, "Cycles"; with exact steps): each active row's moves made and moves left,
            # its checkpoint centre and the moves made when it was taken, and whether its cycle is found
            walk = _Walks(cen) if exact is not None else None
            for _ in range(SEARCH_STEPS):
                if not active.size:
                    break
                rs = cen[:, None, :] + ball1[None, :, :]
                real = np.all(rs >= 0, axis=2)
                # the losses of the outputs not reached before
                pts = rs[real]
                keys = _keys(pts, n).tolist()
                fresh = {}
                for j, kk in enumerate(keys):
                    if kk not in have and kk not in fresh:
                        fresh[kk] = j
                if fresh:
                    used, need = len(have), len(have) + len(fresh)
                    if need > len(HT):
                        grown = np.empty((max(2 * len(HT), need), len(cs)))
                        grown[:used] = HT[:used]
                        HT = grown
                    _loss_rows(a, cs, pts[list(fresh.values())], n, HT[used:need])
                    for kk in fresh:
                        have[kk] = len(have)
                # the sums S(z, r) of each row's own outputs, the rows that share a centre at once (einsum, not BLAS:
                # a threaded BLAS spins on a shared machine)
                S = np.full(real.shape, np.nan)
                # (m, |ball1|): the last ball's column of the same output, or -1 (none at the first step)
                src = shift[moved] if last_S is not None else np.full(real.shape, -1)
                if last_S is not None:
                    kept_r, kept_j = np.nonzero(src >= 0)
                    S[kept_r, kept_j] = last_S[kept_r, src[kept_r, kept_j]]
                # the rows that share a centre and a move (so the same outputs to sum) at once
                ckeys = _keys(cen, n) * len(ball1) + moved
                corder = np.argsort(ckeys, kind="stable")
                offsets = np.concatenate([[0], np.cumsum(real.sum(axis=1))])
                for rows in np.split(corder, np.flatnonzero(np.diff(ckeys[corder])) + 1):
                    t = rows[0]
                    fresh_j = real[t] & (src[t] < 0)
                    if not fresh_j.any():
                        continue
                    row_keys = keys[offsets[t]:offsets[t + 1]]
                    cols = [have[row_keys[q]] for q in np.flatnonzero(fresh_j[real[t]])]
                    # the rows of HT in place where they follow each other (the sums' order is free: the
                    # certificate's float margin holds for any order of the terms)
                    L = (HT[cols[0]:cols[-1] + 1] if cols[-1] - cols[0] == len(cols) - 1
                         and cols == list(range(cols[0], cols[-1] + 1)) else HT[cols])
                    S[np.ix_(rows, np.flatnonzero(fresh_j))] = np.einsum("zc,rc->zr", w[active[rows]], L,
                                                                         optimize=False)
                if exact is not None:
                    best, cand = _decide(S, real, T[active], tail[active], mu, centre_j, candidates=True)
                    _exact_steps(best, active, real, keys, have, HT, w, keeps, centre_j, exact, kept, cand)
                else:
                    best = _decide(S, real, T[active], tail[active], mu, centre_j)
                stay = best == centre_j
                out[zb[active[stay]]] = cen[stay]
                decided[zb[active[stay]]] = True
                go = (best >= 0) & ~stay
                m = np.flatnonzero(go)
                active, cen = active[go], rs[m, best[go]]
                last_S, moved = S[m], best[go]
                if walk is not None:
                    # the rows whose walk has reached its SEARCH_STEPS-th centre (directly, or by its cycle) end there
                    done = walk.moved(go, cen)
                    if done.any():
                        out[zb[active[done]]] = cen[done]
                        decided[zb[active[done]]] = True
                        on = ~done
                        active, cen, last_S, moved = active[on], cen[on], last_S[on], moved[on]
                        walk.keep(on)
            if exact is not None:  # the one-point search returns its centre after SEARCH_STEPS moves
                out[zb[active]] = cen
                decided[zb[active]] = True
        if share_losses:  # the table as grown by this group (its rows and keys) for the next
            HT_shared = HT
    return out, decided


class _Walks:
    """The moves of the grouped search's active rows with exact steps (:func:`_grouped_search`), to end a walk that
    has entered a cycle at the centre the one-point search returns after :data:`~.remap.SEARCH_STEPS` moves.

    Definition.  The one-point search (:func:`.remap.local_bayes_search`) at ``z`` fixes its weights and kept set
    once; each step then reads the centre ``c`` only (the risks of the outputs of ``c``'s ball, their argmin and the
    centre's): a function ``f`` with ``c_(t+1) = f(c_t)`` from ``c_0 = p``, stopping where ``f(c) = c`` and
    otherwise returning ``c_N`` (``N = SEARCH_STEPS``).  Every step of the grouped search with exact steps is that
    step (the certified ones by the certificate, the open ones by the same floats: module docstring), so its rows
    walk the same ``c_t``.

    Cycles (proof).  In exact arithmetic the risk at the centre decreases strictly, but the float risks of two tied
    outputs (permuted counts at a symmetric prior) are computed in different balls, so a walk can return to a centre:
    ``c_t = c_s`` with ``s < t``, every step from ``c_s`` a move.  Then ``c_(u + L) = c_u`` for every ``u >= s``
    (``L = t - s``; by induction, ``c_(u + 1) = f(c_u)``), no later step stays, and the search returns ``c_N``.
    Since ``N - (t + ((N - t) mod L))`` is a multiple of ``L`` that is ``>= 0`` and ``t >= s``, ``c_N = c_(t + ((N -
    t) mod L))``: the row walks ``(N - t) mod L`` more moves and ends there, the same centre.  The checkpoint ``c_s``
    is the centre at ``s = 0`` and then at every power of two (Brent's cycle detection: a cycle of length ``L``
    entered by move ``mu`` is found by move ``2 max(mu, L) + L`` or so), so a row holds one centre, not its walk.
    A row whose walk stays is ended by the stay, as before; one that makes ``N`` moves without a cycle found ends at
    ``c_N``, as before."""

    def __init__(self, cen: NDArray[np.int64]):
        m = len(cen)
        self.made = np.zeros(m, dtype=np.int64)
        self.left = np.full(m, SEARCH_STEPS, dtype=np.int64)
        self.mark = cen.copy()
        self.mark_at = np.zeros(m, dtype=np.int64)
        self.found = np.zeros(m, dtype=bool)

    def moved(self, go: NDArray[np.bool_], cen: NDArray[np.int64]) -> NDArray[np.bool_]:
        """The rows ``go`` have moved to ``cen`` (the others stayed and are dropped): whether each ends now."""
        self.made, self.left = self.made[go] + 1, self.left[go] - 1
        self.mark, self.mark_at, self.found = self.mark[go], self.mark_at[go], self.found[go]
        back = ~self.found & np.all(cen == self.mark, axis=1)
        if back.any():  # a cycle of L = made - mark_at moves: (N - made) mod L more
            self.left[back] = (SEARCH_STEPS - self.made[back]) % (self.made[back] - self.mark_at[back])
            self.found[back] = True
        power = ~self.found & ((self.made & (self.made - 1)) == 0)
        self.mark[power], self.mark_at[power] = cen[power], self.made[power]
        return self.left == 0

    def keep(self, on: NDArray[np.bool_]) -> None:
        """Only the rows ``on`` go on."""
        self.made, self.left = self.made[on], self.left[on]
        self.mark, self.mark_at, self.found = self.mark[on], self.mark_at[on], self.found[on]


class _BallRows:
    """A search ball's offsets (radius ``Dc``) laid out once for :func:`_ball_data_sets`: the rows ``ball``, its
    coordinates as contiguous int32 rows and as columns of the per-coordinate tables over ``p_i - Dc .. p_i + Dc``
    (``v_i + Dc``, int32 rows): as many bytes as the ball's int64 rows."""

    def __init__(self, ball: NDArray[np.int64], Dc: int):
        self.ball, self.Dc = ball, int(Dc)
        self.T = np.ascontiguousarray(ball.T, dtype=np.int32)
        self.cols = self.T + np.int32(self.Dc)


def _ball_data_sets(a: NDArray[np.float64], p: NDArray[np.int64], rows: _BallRows
                    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int32]]:
    """The search's data sets around ``p``: the points ``p + v`` of the ball ``rows.ball`` (radius ``Dc``) in R(n)
    (one coordinate at a time, as the one-point search), ``ln pi`` at each but its constant (from per-coordinate tables
    over ``p_i - Dc .. p_i + Dc``), and their coordinates as int32 rows (the distances' passes read rows).

    The data sets come as a column-major view of their coordinate rows (the same integers as ``p + ball[kept]``; every
    reader takes them a coordinate at a time).  Where every ``p_i >= Dc`` the whole ball lies in R(n) (each ``|v_i| <=
    d(v) <= Dc``, and the counts of ``p + v`` sum to n, so none is past n), so no mask is built; ``ln pi`` sums the same
    table entries in the same coordinate order, so every value is the one the masked form gives (tested)."""
    k = a.size
    Dc = rows.Dc
    sel = None
    if int(p.min()) < Dc:
        ok = rows.T[0] >= np.int32(-p[0])
        for i in range(1, k):
            ok &= rows.T[i] >= np.int32(-p[i])
        sel = np.flatnonzero(ok)
    m = len(rows.ball) if sel is None else len(sel)
    base = np.zeros(m)
    csT = np.empty((k, m), dtype=np.int32)
    for i in range(k):
        v = np.arange(p[i] - Dc, p[i] + Dc + 1)
        table = gammaln(a[i] + np.maximum(v, 0)) - gammaln(np.maximum(v, 0) + 1.0)
        if sel is None:
            base += np.take(table, rows.cols[i])
            np.add(rows.T[i], np.int32(p[i]), out=csT[i])
        else:
            base += np.take(table, np.take(rows.cols[i], sel))
            np.add(np.take(rows.T[i], sel), np.int32(p[i]), out=csT[i])
    return csT.astype(np.int64).T, base, csT


def _block_weights(csT: NDArray[np.int32], zb: NDArray[np.int64], base: NDArray[np.float64], eps: float
                   ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The search's weights of a block of points ``zb`` (rows) over the data sets ``cs`` (columns, ``csT`` their
    coordinates as int32 rows): ``e^(base(c) - eps d(z, c))`` scaled by each row's largest, and each row's sum ``T``."""
    dist = np.zeros((len(zb), len(csT[0])), dtype=np.int32)
    part = np.empty_like(dist)
    for i in range(len(csT)):
        np.subtract(csT[i][None, :], zb[:, i:i + 1].astype(np.int32), out=part)
        dist += np.abs(part, out=part)
    del part
    # half the L1 distance by a shift (the same integers as ``// 2`` for these nonnegative ones, in a third of the
    # time), then ``base - eps h`` as ``(-eps) h + base`` in place (the same floats: negation is exact)
    lw = np.multiply(np.right_shift(dist, 1, out=dist), -eps, dtype=np.float64)
    del dist
    lw += base[None, :]
    lw -= lw.max(axis=1, keepdims=True)
    w = np.exp(lw, out=lw)
    return w, w.sum(axis=1)


def _ball_shift(ball1: NDArray[np.int64]) -> NDArray[np.int64]:
    """``shift[b, j]``: the index in ``ball1`` of ``ball1[b] + ball1[j]`` (the output ``centre + ball1[j]`` after a move
    by ``ball1[b]``, seen from the centre before the move), or -1 where that is not within 1."""
    index = {tuple(u): j for j, u in enumerate(ball1.tolist())}
    return np.array([[index.get(tuple(x), -1) for x in (ball1 + u[None, :]).tolist()] for u in ball1],
                    dtype=np.int64)


#: Largest ``(n + 1)(2 band + 1)`` at which :func:`_loss_rows` past the square table (:func:`~.remap.square_table`)
#: reads each coordinate's ``J`` from a band table (:func:`_band_table`, 16 MiB at most) instead of evaluating it per
#: call: at k = 4, n = 1,000, eps = 2 the searches' ~28,000 calls each took ~1.1 ms in ``lgamma_jensen_gap`` and its
#: ``np.unique`` (every pair at most 21 apart there; ``Dc = 18``).  ``2^21`` holds ``Dc +`` :data:`BAND_STEPS` at
#: n = 1e4 from eps 0.5 (:func:`loss_tables`).
JENSEN_BAND_ENTRIES = 2**21
#: The band :func:`loss_tables` counts on past the search's ball radius ``Dc``: the outputs a search reads lie within
#: its steps of the point's projection (as :data:`~.search.BAND_STEPS`; a pair farther apart widens the table, or past
#: :data:`JENSEN_BAND_ENTRIES` is evaluated, the same floats).
BAND_STEPS = 32
#: :func:`_band_table`'s tables, one per ``(a_i, n)``, at most this many kept (128 MiB at most).
_BAND_TABLES: dict[tuple[float, int], NDArray[np.float64]] = {}
BAND_TABLES_KEPT = 8


def loss_tables(n: int, k: int, epsilon: float) -> bool:
    """Whether the grouped search's loss rows (:func:`_loss_rows`) at public n, k, eps read tables: the square table
    over every pair of values (:func:`~.remap.square_table`) or a band table over ``|c_i - r_i| <= Dc +``
    :data:`BAND_STEPS` within :data:`JENSEN_BAND_ENTRIES` (``Dc`` the ball radius at tail 1e-12).  Elsewhere each row's
    gaps are evaluated (``lgamma_jensen_gap``), ~3x the time a row at k = 4 (the plan's
    :func:`~dpposterior.mechanisms.lattice.face_part_orbit_seconds` reads this)."""
    n1 = int(n) + 1
    band = radius_for(int(k), float(epsilon), 1e-12) + BAND_STEPS
    return square_table(n) or n1 * (2 * band + 1) <= JENSEN_BAND_ENTRIES


def _band_table(ai: float, n: int, band: int) -> tuple[NDArray[np.float64], int]:
    """``(table, B)``: ``J(a_i + c, a_i + c + d)`` for ``c`` in ``0..n``, ``d`` in ``-B..B`` with ``B >= band`` (the
    flat table of :func:`~.remap._jensen_band`, each entry the float ``lgamma_jensen_gap`` returns at that one pair,
    whatever ``B``), kept per ``(a_i, n)`` and widened (to at least twice its half-width, within
    :data:`JENSEN_BAND_ENTRIES`) when a call needs more."""
    key = (float(ai), int(n))
    table = _BAND_TABLES.get(key)
    held = -1 if table is None else (table.shape[1] - 1) // 2
    if held < band:
        if len(_BAND_TABLES) >= BAND_TABLES_KEPT:
            _BAND_TABLES.clear()
        widest = (JENSEN_BAND_ENTRIES // (int(n) + 1) - 1) // 2
        B = max(int(band), min(max(16, 2 * held), widest))
        table = _jensen_band.__wrapped__(float(ai), int(n), B)
        _BAND_TABLES[key] = table
        held = B
    return table.reshape(-1), held


@lru_cache(maxsize=8)
def _jensen_rows(ai: float, n: int) -> NDArray[np.float64]:
    """:func:`.remap._jensen_table` transposed, C-ordered: row ``r`` holds ``J(a_i + c, a_i + r)`` over ``c`` (the
    same floats), so an output's row is one contiguous read."""
    rows = np.ascontiguousarray(_jensen_table(ai, n).T)
    rows.setflags(write=False)
    return rows


def _loss_rows(a: NDArray[np.float64], cs: NDArray[np.int64], rs: NDArray[np.int64], n: int,
               out: NDArray[np.float64]) -> None:
    """``out[j, c] = H(Dir(a + cs[c]), Dir(a + rs[j]))``: :func:`.remap._local_hellinger` ``(a, cs, rs, n).T``
    written in place, each entry the same float (the same ``J`` entries of :func:`.remap._jensen_table` added in
    coordinate order to 0, then the same elementwise :func:`~dpposterior.distances.hellinger.hellinger_from_log_bc`;
    tested), without the transposed copy.  Where the data sets outnumber the pairs of values of two counts, the
    partial sums ``(0 + J_0) + J_1`` are tabled per output over those pairs (the same additions in the same order) and
    gathered once.  Past the table's size, :func:`.remap._local_hellinger` itself.

    Shared gathers: the term of coordinate ``i`` over the data sets depends on the output through ``r_i`` only (and
    the first two coordinates' partial sum through ``(r_0, r_1)`` only), so it is gathered once per distinct value
    among the rows and added to each row that has it (the 13 outputs of a ball of radius 1 at k = 4 have 7 distinct
    ``(r_0, r_1)`` and 3 distinct ``r_i``).  Each entry is the same float: the same table entries, the same
    additions in the same order (a gathered row is copied or added, never recombined)."""
    if not square_table(n):
        # the largest |c_i - r_i| over every pair
        band = max(max(int(cs[:, i].max()) - int(rs[:, i].min()), int(rs[:, i].max()) - int(cs[:, i].min()))
                   for i in range(a.size)) if len(cs) and len(rs) else 0
        if (int(n) + 1) * (2 * band + 1) > JENSEN_BAND_ENTRIES:
            out[...] = _local_hellinger(a, cs, rs, n).T
            return
        # entry (c, r) of a band table of half-width B sits at c (2 B + 1) + r - c + B = c 2B + r + B
        out.fill(0.0)
        for i in range(a.size):
            table, B = _band_table(float(a[i]), int(n), band)
            out += np.take(table, (rs[:, i] + B)[:, None] + cs[:, i][None, :] * (2 * B))
        hellinger_from_log_bc(out, out=out)
        return
    n1 = int(n) + 1
    if n1 * n1 <= len(cs):
        tables = [_jensen_table(float(a[i]), int(n)) for i in range(2)]
        # the first two coordinates' partial sums (0 + J_0) + J_1 at every pair of their values, once per distinct
        # (r_0, r_1), then one gather each, copied to the rows that have it
        u, inv = np.unique(rs[:, 0] * n1 + rs[:, 1], return_inverse=True)
        pair = (0.0 + tables[0][:, u // n1].T)[:, :, None] + tables[1][:, u % n1].T[:, None, :]
        gathered = np.take(pair.reshape(len(u), n1 * n1), cs[:, 0] * n1 + cs[:, 1], axis=1)
        np.take(gathered, inv.reshape(-1), axis=0, out=out)
        del gathered, pair
        start = 2
    else:
        out.fill(0.0)
        start = 0
    for i in range(start, a.size):
        # the distinct values of r_i in first-seen order (a dict: a few values, where np.unique's overhead dominates)
        first: dict[int, int] = {}
        inv = [first.setdefault(v, len(first)) for v in rs[:, i].tolist()]
        gathered = np.take(_jensen_rows(float(a[i]), int(n))[list(first)], cs[:, i], axis=1)
        for j, g in enumerate(inv):
            out[j] += gathered[g]
    hellinger_from_log_bc(out, out=out)


def _exact_steps(best: NDArray[np.int64], active: NDArray[np.int64], real: NDArray[np.bool_], keys: list[int],
                 have: dict[int, int], HT: NDArray[np.float64], w: NDArray[np.float64],
                 keeps: dict[int, NDArray[np.int64]], centre: int, count: _Fallback,
                 kept: dict[int, NDArray[np.int64]] | None = None,
                 cand: NDArray[np.bool_] | None = None) -> None:
    """The steps of :func:`_grouped_search` that :func:`_decide` left open (``best`` -1), taken as the one-point
    search takes them, by its floats (module docstring, "Exact steps"): ``best`` filled in place.

    For a row of the block (weights ``w[row]``, the one-point search's floats): its kept set as the one-point search
    computes it (the stable order by ``-w``, the cumulative sums along it, the first ``m + 1`` with ``m`` the
    ``searchsorted`` of ``(1 - share)`` times the last, sorted; once per row), then the risks of the outputs of its
    ball (``real``, in the ball's order, as the one-point search filters them) by the same product on the same
    arrays: ``w[keep] @ L[keep, rs]`` with a C-ordered ``(kept, |rs|)`` matrix of the same losses (rows of ``HT``).
    The centre stays if it attains the minimum, else the first argmin is the move (within 1 of the centre).

    ``cand`` (:func:`_decide`'s candidates, the shape of ``real``): only the candidates' columns of the matrix are
    gathered, the others left 0, and the argmin is taken over the candidates.  The same step (proof): (i) a column of
    a matrix-vector product is computed from that column and the vector only (whatever the summation order the
    product uses for a column's place, it reads no other column's values), so a candidate's float risk is the one-point
    search's, on a matrix of the same shape, order and layout; (ii) an output that is not a candidate has ``lo(r) >
    hi(r*)`` for the output ``r*`` of least ``hi``, and the one-point search's float risks lie in ``[lo, hi]``
    (module docstring), so its float risk is strictly above ``r*``'s: it is neither the first argmin nor equal to it,
    so the first argmin over the candidates (in the ball's order) is the one-point search's, and where the centre is
    not a candidate its risk is strictly above that argmin's, so the step moves, as the one-point search does.

    The open rows are taken by class (the same kept-set size and the same number of real outputs, so the same shapes),
    one stacked product a class (:func:`_exact_class`, the same floats as a row at a time: proof there)."""
    open_t = np.flatnonzero(best < 0)
    if not open_t.size:
        return
    offsets = np.concatenate([[0], np.cumsum(real.sum(axis=1))])
    # the kept sets of the rows met for the first time, all at once (:func:`_kept_rows`, the same arrays)
    fresh = [int(active[t]) for t in open_t if int(active[t]) not in keeps]
    if fresh:
        count.count += len(fresh)
        count.refuse_past(count.count)
        if kept is None:
            for row, keep in zip(fresh, _kept_rows(w[fresh]), strict=True):
                keeps[row] = keep
        else:
            for row in fresh:
                keeps[row] = kept[row]
    # the open rows by class: the same kept-set size and the same number of real outputs (so the same shapes)
    real_n = real[open_t].sum(axis=1)
    sizes = np.array([keeps[int(active[t])].size for t in open_t.tolist()], dtype=np.int64)
    cls = sizes * (real.shape[1] + 1) + real_n
    order = np.argsort(cls, kind="stable")
    for group in np.split(order, np.flatnonzero(np.diff(cls[order])) + 1):
        size, width = int(sizes[group[0]]), int(real_n[group[0]])
        step = max(1, EXACT_BATCH_ENTRIES // max(1, size * width))
        for lo in range(0, len(group), step):
            _exact_class(best, active, real, keys, offsets, have, HT, w, keeps, centre, cand,
                         open_t[group[lo:lo + step]], width)


#: Entries (rows x kept data sets x outputs) of one batch of :func:`_exact_class`'s stacked loss matrices.
EXACT_BATCH_ENTRIES = 2**21


def _exact_class(best: NDArray[np.int64], active: NDArray[np.int64], real: NDArray[np.bool_], keys: list[int],
                 offsets: NDArray[np.int64], have: dict[int, int], HT: NDArray[np.float64], w: NDArray[np.float64],
                 keeps: dict[int, NDArray[np.int64]], centre: int, cand: NDArray[np.bool_] | None,
                 ts: NDArray[np.int64], width: int) -> None:
    """:func:`_exact_steps` at the open rows ``ts`` of one class (every row with the same kept-set size ``K`` and
    ``width`` real outputs), all at once: ``best`` filled in place, each row's step the one :func:`_exact_steps`
    describes for that row alone.

    The same floats (proof): a row's weights ``w[row, keep]`` are gathered into a C-ordered ``(m, K)`` array and its
    matrix (the loss rows of its outputs at its kept set, the non-candidates' columns +0.0) into a C-ordered ``(m, K,
    width)`` array, every entry a copy of the same float; ``np.matmul`` of the ``(m, 1, K)`` view with it runs its
    inner loop once per row on that row's ``(1, K)`` vector and C-ordered ``(K, width)`` matrix, the vector-matrix
    case of the 1-D product (one ``gemv`` on the same shape, strides and values), so each row's risks are the floats
    of ``w[row, keep] @ L`` (tested bit for bit against the row at a time, random shapes and values).  Where every
    row keeps every data set, the rows with the same outputs and candidates share their matrix: ``np.matmul`` of
    their ``(m', 1, K)`` vectors with the one C-ordered ``(K, width)`` matrix (broadcast) runs the same ``gemv`` on
    it for each row (tested likewise).  The argmin along a row (ties: the first) and the centre's comparison are the
    row's own."""
    rows = active[ts]
    full = keeps[int(rows[0])].size == HT.shape[1]  # the class's size: every row keeps every data set, or none does
    ball_j = np.nonzero(real[ts])[1].reshape(len(ts), width)  # each row's real outputs, in the ball's order
    cols = np.array([[have[keys[j]] for j in range(int(offsets[t]), int(offsets[t]) + width)] for t in ts.tolist()],
                    dtype=np.int64).reshape(len(ts), width)
    use = np.ones((len(ts), width), dtype=bool) if cand is None else np.take_along_axis(cand[ts], ball_j, axis=1)
    if full:
        # every row keeps every data set (keep = 0..|C| - 1): the rows with the same outputs and candidates share
        # one matrix, multiplied with each of their vectors (broadcast: the same (K, width) matrix each time)
        X = w[rows]
        risk = np.empty((len(ts), width))
        key = np.concatenate([cols, use], axis=1)
        uniq, inv = np.unique(key, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        order = np.argsort(inv, kind="stable")
        for same in np.split(order, np.flatnonzero(np.diff(inv[order])) + 1):
            q = np.flatnonzero(use[same[0]])
            M = np.zeros((HT.shape[1], width))  # (K, width), C-ordered: the candidates' columns, the others 0
            M[:, q] = HT[cols[same[0], q]].T
            risk[same] = np.matmul(X[same][:, None, :], M)[:, 0, :]
    else:
        Keep = np.stack([keeps[int(r)] for r in rows.tolist()])  # (m, K)
        X = w[rows[:, None], Keep]  # (m, K), C-ordered
        # (m, K, width), C-ordered: each row's candidates' columns gathered (the others 0)
        A = np.zeros((len(ts), Keep.shape[1], width))
        at, aj = np.nonzero(use)
        A[at, :, aj] = HT[cols[at, aj][:, None], Keep[at]]
        risk = np.matmul(X[:, None, :], A)[:, 0, :]
    if cand is not None:
        risk = np.where(use, risk, np.inf)
    j = np.argmin(risk, axis=1)
    here = real[ts, :centre].sum(axis=1)  # the centre's place among the real outputs (it is real)
    m = np.arange(len(ts))
    best[ts] = np.where(risk[m, j] >= risk[m, here], centre, ball_j[m, j])


def _kept_rows(W: NDArray[np.float64]) -> list[NDArray[np.int64]]:
    """:func:`_kept` of each row of ``W``, computed together: the same arrays.  Proof: ``np.sort`` along the rows
    gives each row's sorted values; ``np.cumsum`` along a row is the sequential sum of its entries in order (an
    accumulation, as on the row alone), so the same ``cum``; for weights ``>= +0.0`` the running sums do not decrease
    (rounding to nearest is monotone), so ``searchsorted(cum, x)`` (left) is the count of ``cum < x``; the first
    ``m + 1`` in the stable order are the indices above ``v`` and then the first ``m + 1 - #above`` equal to ``v``
    (index order), taken here by the running count of the equal ones."""
    if not len(W):
        return []
    vals = np.sort(W, axis=1)[:, ::-1]
    cum = np.cumsum(vals, axis=1)
    m = np.count_nonzero(cum < (cum[:, -1] * (1.0 - SEARCH_SHARE))[:, None], axis=1)
    v = vals[np.arange(len(W)), m]
    above = W > v[:, None]
    eq = W == v[:, None]
    need = m + 1 - np.count_nonzero(above, axis=1)
    above |= eq & (np.cumsum(eq, axis=1) <= need[:, None])
    return [np.flatnonzero(r) for r in above]


def _kept(wr: NDArray[np.float64]) -> NDArray[np.int64]:
    """The one-point search's kept set of the weights ``wr`` (:func:`.remap.local_bayes_search`): with ``heavy =
    argsort(-wr, kind="stable")`` and ``cum = cumsum(wr[heavy])``, ``sort(heavy[:m + 1])`` for ``m = searchsorted(cum,
    cum[-1] (1 - share))``, computed without the stable argsort: any sort gives the same sequence of values
    ``wr[heavy]`` (the weights are finite and >= +0.0), so the same ``cum`` and ``m``; and the first ``m + 1`` in the
    stable order are every index of a weight above ``v = wr[heavy[m]]`` and then those equal to ``v`` in index order.
    The same array (tested against the definition)."""
    vals = np.sort(wr)[::-1]
    cum = np.cumsum(vals)
    m = int(np.searchsorted(cum, cum[-1] * (1.0 - SEARCH_SHARE)))
    v = vals[m]
    above = wr > v
    ties = np.flatnonzero(wr == v)[: m + 1 - int(above.sum())]
    above[ties] = True
    return np.flatnonzero(above)


def _pair_sums(sums: _Sums, z: NDArray[np.int64], r: NDArray[np.int64]) -> NDArray[np.float64]:
    """``S^(z, r) = sum_v e^(-eps d(z - r - v)) G[r, v]`` for each pair (rows of ``z`` and ``r``)."""
    out = np.empty(len(z))
    step = max(1, BLOCK_ENTRIES // len(sums.ball))
    for lo in range(0, len(z), step):
        sl = slice(lo, lo + step)
        out[sl] = np.einsum("pv,pv->p", sums.G(r[sl]), sums.kernel(z[sl] - r[sl]), optimize=False)
    return out


def _decide(S: NDArray[np.float64], real: NDArray[np.bool_], Tplus: NDArray[np.float64],
            tail: float | NDArray[np.float64], mu: float, centre: int, candidates: bool = False):
    """The column of the certified strict minimiser of each row of ``S`` (module docstring), else -1 (``tail``: one
    for all rows, or a column of one per row).

    ``candidates``: also the outputs that may still be the one-point search's step, ``(best, cand)``: ``cand`` the
    real outputs with ``lo(r) <= hi(r*)``, ``r*`` the output of least ``hi``, every real output of a row with a NaN
    sum (an output outside ``cand`` has a float risk strictly above ``r*``'s: :func:`_exact_steps`)."""
    T = Tplus[:, None]
    lo = np.where(real, S - (SEARCH_SHARE + 2 * mu) * T, np.inf)
    hi = np.where(real, S + tail * T + 2 * mu * T, np.inf)
    best = np.argmin(hi, axis=1)
    m = np.arange(len(S))
    others = lo.copy()
    others[m, best] = np.inf
    nan = np.any(real & np.isnan(S), axis=1)
    ok = (hi[m, best] < others.min(axis=1)) & np.isfinite(hi[m, best]) & ~nan
    if not candidates:
        return np.where(ok, best, -1)
    cand = real & ((lo <= hi[m, best][:, None]) | nan[:, None] | ~np.isfinite(hi[m, best])[:, None])
    return np.where(ok, best, -1), cand


#: The tails of the stay certificate's balls (:func:`stays`), tried in turn: a point is certified at the first.
STAY_TAILS = (5e-3, 1e-4)
#: Entries (points x ball points x outputs) of one block of :func:`stays`' sums.
STAY_BLOCK_ENTRIES = 2**21


def stays(prior: ArrayLike, n: int, epsilon: float, Z: ArrayLike, orbits: bool = True,
          stats: dict | None = None) -> NDArray[np.bool_]:
    """True at the points ``z`` of ``Z`` (rows of R(n)) where :func:`.remap.local_bayes_search` (its defaults)
    certifiably returns ``z`` itself (its first step stays); False where not certified (the search may still stay).

    Certificate (proof, the notation of the module docstring).  At ``z`` in R(n), ``p = z``; ``C = {c in R(n) : d(c, z)
    <= Dc}``, weights ``w(c) = pi(c) / pimax(z) e^(-eps d(z, c))`` (``pimax(z)`` the largest ``pi`` over the box
    ``|c_i - z_i| <= Dc``, so ``T = sum_C w <= Z(eps, k) =: T+``), the kept set ``K`` leaving out at most ``share T``,
    and ``S_X(r) = sum_{c in X} w(c) H(c, r)``.  The search stays at ``z`` iff its computed risk of ``z`` is at most
    that of every output ``r`` within 1 of ``z`` in R(n).  ``H`` is a metric, so ``|H(c, r) - H(c, z)| <= H(r, z)``
    for every ``c``; hence, with ``B = {c in R(n) : d(c, z) <= rho}`` (``rho <= Dc``, so ``B`` lies in ``C``) and
    ``T - sum_B w <= T+ tail_bound(k, eps, rho)``,

        ``S_K(r) - S_K(z) >= S_B(r) - S_B(z) - H(r, z) (share T + T+ tail_bound(k, eps, rho))``:

    the terms of ``C`` off ``B`` and of ``C`` off ``K`` each move the difference by at most ``H(r, z)`` times their
    weight.  The one-point search's computed risks and our float sums ``S_B`` each lie within ``mu T+`` of the exact
    sums (``mu`` as :func:`local_search_batch`'s, with ``Lambda`` the largest magnitude of ``ln pi`` over R(n) plus
    ``eps Dc``, any order of the terms), so where for every such ``r != z``

        ``S^_B(r) - S^_B(z) > 4 mu T+ + (H^(r, z) (1 + 1e-6) + 1e-9) T+ (share + tail_bound(k, eps, rho))``

    (``H^`` the float Hellinger distance, within that allowance of the exact), the search's risk of ``z`` is strictly
    the least of its ball and it returns ``z``.  A point is tried at the balls of :data:`STAY_TAILS` in turn.

    ``orbits``: at a symmetric prior (every ``a_i`` equal) one point per orbit under the permutations of the
    categories is certified (its sorted form): every exact quantity above (``pi``, ``pimax``, ``d``, ``H``, R(n), the
    balls) is invariant under a permutation applied to ``z``, ``c`` and ``r`` together, and ``mu`` reads the prior's
    values only, so the certificate at the sorted form is the certificate at each point of its orbit.
    ``stats``: filled with ``{"points", "certified", "certified_points"}``."""
    a = _validate.prior(prior)
    k = a.size
    n, eps = _validate.integer(n, "n", 1), _validate.epsilon(epsilon)
    Z = np.asarray(Z, dtype=np.int64).reshape(-1, k)
    if np.any(Z.sum(axis=1) != n) or np.any(Z < 0):
        raise InputError("every point must be a data set of R(n)")
    out = np.zeros(len(Z), dtype=bool)
    if not len(Z):
        return out
    if orbits and np.all(a == a[0]):
        U, back = np.unique(-np.sort(-Z, axis=1), axis=0, return_inverse=True)
        back = back.reshape(-1)
    else:
        U, back = Z, np.arange(len(Z))
    ok = np.zeros(len(U), dtype=bool)
    Dc = radius_for(k, eps, 1e-12)
    for tail in STAY_TAILS:
        rho = min(radius_for(k, eps, tail), Dc)
        left = np.flatnonzero(~ok)
        if not left.size:
            break
        ok[left] = _stays_at(a, n, eps, U[left], rho, Dc)
    out = ok[back]
    if stats is not None:
        stats.update(points=len(Z), certified=int(ok.sum()), orbits=len(U), certified_points=int(out.sum()))
    return out


def _stays_at(a: NDArray[np.float64], n: int, eps: float, Z: NDArray[np.int64], rho: int, Dc: int
              ) -> NDArray[np.bool_]:
    """:func:`stays`' certificate at the ball of radius ``rho`` for every row of ``Z`` (points of R(n))."""
    k = a.size
    ball1 = _ball(k, 1)
    centre = int(np.flatnonzero(np.all(ball1 == 0, axis=1))[0])
    Zk = math.exp(log_normaliser(k, eps))
    tail = tail_bound(k, eps, rho)
    # mu: the largest magnitude of ln pi over R(n) (each f_i monotone: its end points) plus eps Dc
    ends = np.array([0.0, float(n)])
    fmax = max(float(np.abs(gammaln(a[i] + ends) - gammaln(ends + 1.0)).max()) for i in range(k))
    mu = FLOAT_MARGIN + 16.0 * (2 * k * fmax + eps * Dc) * 2.0**-53
    # per coordinate: f_i over the values the balls reach (within rho + 2 of z), and J_i(x, x + s) for |s| <= rho + 1
    lo = np.maximum(Z.min(axis=0) - rho - 2, 0)
    hi = np.minimum(Z.max(axis=0) + rho + 2, n)
    width = 2 * rho + 3
    f, band = [], []
    for i in range(k):
        x = np.arange(lo[i], hi[i] + 1, dtype=np.float64)
        f.append(gammaln(a[i] + x) - gammaln(x + 1.0))
        y = x[:, None] + np.arange(-rho - 1, rho + 2)[None, :]
        band.append(np.where((y >= 0) & (y <= n), lgamma_jensen_gap(a[i] + x[:, None], a[i] + np.clip(y, 0, n)),
                             0.0).ravel())
    # ln pimax(z) over the box |c_i - z_i| <= Dc: each f_i at an end point
    lnmax = np.zeros(len(Z))
    for i in range(k):
        e0, e1 = np.clip(Z[:, i] - Dc, 0, n).astype(np.float64), np.clip(Z[:, i] + Dc, 0, n).astype(np.float64)
        lnmax += np.maximum(gammaln(a[i] + e0) - gammaln(e0 + 1.0), gammaln(a[i] + e1) - gammaln(e1 + 1.0))
    ref = float(lnmax.max())
    # the outputs r = z + u (u within 1) in R(n), each once; S_B(z + u) = sum over v' of G[r, v'] Kc[v', u] with
    # G[r, v'] = e^(ln pi(r + v') - ref) H(r + v', r) over d(v') <= rho + 1 and Kc[v', u] = e^(-eps d(v' + u)) where
    # d(v' + u) <= rho (c = r + v' = z + (u + v') in B), else 0
    outer = _ball(k, rho + 1)
    rs = (Z[:, None, :] + ball1[None, :, :]).reshape(-1, k)
    real = np.all(rs >= 0, axis=1)
    keys = _keys(rs, n)
    uniq, first, where = np.unique(keys[real], return_index=True, return_inverse=True)
    outputs = rs[real][first]
    du = pair_distance(outer[:, None, :] + ball1[None, :, :], np.zeros((1, 1, k), dtype=np.int64))
    Kc = np.where(du <= rho, np.exp(-eps * du.astype(np.float64)), 0.0)  # (|outer|, |ball1|)
    M = np.empty((len(outputs), len(ball1)))
    step = max(1, STAY_BLOCK_ENTRIES // len(outer))
    for s in range(0, len(outputs), step):
        r = outputs[s:s + step]
        lw = np.full((len(r), len(outer)), -ref)
        log_bc = np.zeros((len(r), len(outer)))
        inside = np.ones((len(r), len(outer)), dtype=bool)
        for i in range(k):
            c = r[:, i:i + 1] + outer[None, :, i]
            inside &= c >= 0
            ci = np.clip(c, lo[i], hi[i]) - lo[i]
            lw += f[i][ci]
            # J_i(c_i, r_i): the band's row c_i, column r_i - c_i + rho + 1 = rho + 1 - v'_i
            log_bc += band[i][ci * width + (rho + 1 - outer[None, :, i])]
        np.minimum(log_bc, 0.0, out=log_bc)
        g = np.sqrt(-np.expm1(log_bc))
        g *= np.where(inside, np.exp(lw), 0.0)
        M[s:s + step] = np.einsum("rv,vu->ru", g, Kc, optimize=False)
    S = np.full(len(rs), np.nan)
    S[np.flatnonzero(real)] = M[where.reshape(-1), np.flatnonzero(real) % len(ball1)]
    S = S.reshape(len(Z), len(ball1))
    real = real.reshape(len(Z), len(ball1))
    # H(z + u, z) from the bands: the row z_i + u_i, column z_i - (z_i + u_i) + rho + 1
    log_h = np.zeros((len(Z), len(ball1)))
    for i in range(k):
        ci = np.clip(Z[:, i:i + 1] + ball1[None, :, i], lo[i], hi[i]) - lo[i]
        log_h += band[i][ci * width + (rho + 1 - ball1[None, :, i])]
    Hrz = np.sqrt(-np.expm1(np.minimum(log_h, 0.0)))
    Tplus = np.exp(lnmax - ref)[:, None] * Zk  # pimax(z) Z(eps, k) in the units of G
    need = 4 * mu * Tplus + (Hrz * (1 + 1e-6) + 1e-9) * Tplus * (SEARCH_SHARE + tail)
    gap = S - S[:, centre:centre + 1]
    good = (gap > need) | ~real
    good[:, centre] = True
    return np.all(good, axis=1)


def window_errors_any(prior: ArrayLike, n: int, epsilon: float, outputs: NDArray[np.int64], W: int):
    """``E(c) = sum_w K(w) L(c, T(c + w))`` for every c of R(n) (any k >= 3), as a :class:`.scale.Bracket`, given
    the deterministic remap ``T`` as ``outputs`` at every point of ``window(n, k, W)`` (lexicographic); the sum runs
    over ``d(w) <= W`` (every ``c + w`` is in the window: ``|w_i| <= d(w)``) and ``tail = tail_bound(k, eps, W)``.

    The sum of :func:`.search.window_errors` (k = 3; the same losses from the same per-coordinate tables, the same
    offsets in the same order: the same floats, tested) with the window's outputs held on the grid of its first
    ``k - 1`` coordinates."""
    from .scale import Bracket, _LossTables

    a = _validate.prior(prior)
    k = a.size
    if k < 3:
        raise InputError("the window errors are built for k >= 3")
    n, eps = _validate.integer(n, "n", 1), _validate.epsilon(epsilon)
    W = _validate.integer(W, "W", 0)
    offs = _ball(k, W)  # lexicographic, as lattice_offsets
    wts = np.exp(-eps * (np.abs(offs).sum(axis=1) // 2) - log_normaliser(k, eps))
    tail = tail_bound(k, eps, W)
    outputs = np.asarray(outputs, dtype=np.int64)
    R = candidates(n, k)
    tables = _LossTables(a, n, R).tables  # J_i(c_i, r_i) at c_i (n + 1) + r_i, the dense walk's floats
    n1 = n + 1
    side = n + k * W + 1  # the window's grid: z_i + W in 0..n + (k - 1) W

    def flat(p: NDArray[np.int64]) -> NDArray[np.int64]:
        out = np.zeros(len(p), dtype=np.int64)
        for i in range(k - 1):
            out = out * side + (p[:, i] + W)
        return out

    Zw = window(n, k, W)
    g = flat(Zw)
    o = []
    for i in range(k):
        oi = np.zeros(side ** (k - 1), dtype=np.int32)
        oi[g] = outputs[:, i]
        o.append(oi)
    del Zw, g
    base_z = flat(R)
    bases = [R[:, i] * n1 for i in range(k)]
    strides = [side ** (k - 2 - i) for i in range(k - 1)]
    # each offset's shift on the grid; a block of offsets at a time (each entry the same floats as one offset at a
    # time: the same gathers summed in coordinate order, then kw x H), added to acc one offset after the other
    shifts = np.zeros(len(offs), dtype=np.int64)
    for i in range(k - 1):
        shifts += offs[:, i] * strides[i]
    acc = np.zeros(len(R))
    # a tile of data sets at a time (ERROR_TILE_POINTS), in reused buffers (written through out=) that stay in cache:
    # each E(c) is still the same sum in the same order (offset after offset)
    tile = max(1, min(len(R), ERROR_TILE_POINTS))
    step = max(1, ERROR_BLOCK_ENTRIES // tile)
    zi, ix = (np.empty((step, tile), dtype=np.int64) for _ in range(2))
    q = np.empty((step, tile), dtype=np.int32)  # an output's coordinate (the window's tables hold int32)
    lb, term = np.empty((step, tile)), np.empty((step, tile))
    for c0 in range(0, len(R), tile):
        m = min(tile, len(R) - c0)
        bz = base_z[None, c0:c0 + m]
        bs = [b[None, c0:c0 + m] for b in bases]
        acc_c = acc[c0:c0 + m]
        for lo in range(0, len(offs), step):
            s = min(step, len(offs) - lo)
            z_, q_, i_, l_, t_ = zi[:s, :m], q[:s, :m], ix[:s, :m], lb[:s, :m], term[:s, :m]
            np.add(bz, shifts[lo:lo + s, None], out=z_)
            np.take(o[0], z_, out=q_)
            np.add(bs[0], q_, out=i_)
            np.take(tables[0], i_, out=l_)
            for i in range(1, k):
                np.take(o[i], z_, out=q_)
                np.add(bs[i], q_, out=i_)
                np.take(tables[i], i_, out=t_)
                l_ += t_
            hellinger_from_log_bc(l_, out=l_)
            l_ *= wts[lo:lo + s, None]
            for row in l_:
                acc_c += row
    return Bracket(R, acc, float(tail), len(offs))


__all__ = ["BATCH_TAIL", "batch_radius", "local_search_batch", "stays", "window_errors_any"]


#: Entries of :func:`descent_filter_exact`'s tables of ``J`` (per coordinate, counts x values), past which each loss
#: row is evaluated per search (:func:`_loss_rows`; the same floats).
EXACT_DESCENT_TABLE_ENTRIES = 2**23


def descent_filter_exact(prior: ArrayLike, n: int, epsilon: float, released: ArrayLike, points: ArrayLike
                         ) -> NDArray[np.bool_]:
    """False at the points ``z`` whose local search (:func:`.remap.local_bayes_search`, its defaults) cannot output
    ``r = released``, by their own risks; True at the rest (nothing claimed).  The descent lemma of
    :func:`.column.descent_filter` with the two risks it bounds computed instead: a test per point that also drops
    the points off R(n) and next to its faces, where the bound keeps nearly all.

    Lemma (proof).  Let ``p = project(z)``, ``C = {c in R(n) : d(c, p) <= Dc}`` the search's data sets, ``w`` its float
    weights (the grouped route's, the same floats: module docstring), ``T = sum_C w``, ``Kz`` its kept set (leaving
    out at most ``share T``), ``L~(c, q)`` the float losses (:func:`_loss_rows`, the same floats as the search's,
    each in [0, 1]) and ``R(q) = sum_{Kz} w L~(c, q)`` (exact sums of those floats).  Each risk the search computes
    lies within ``mu T`` of ``R`` (``mu`` as :func:`_search`'s, any order of the terms).  The search moves from a
    centre to an output of strictly smaller computed risk, so each move lowers ``R`` by more than ``-2 mu T``, and it
    makes at most ``SEARCH_STEPS`` moves (returning its centre at the cap, or a centre of least computed risk in its
    ball).  Its first step, at ``p``, returns ``p`` or moves to ``c1``, an output of the ball ``B1 = {q in R(n) : d(q,
    p) <= 1}`` of least computed risk there, so ``R(c1) <= R(q) + 2 mu T`` for every q of ``B1``; then at most
    ``SEARCH_STEPS - 1`` moves: its output ``o`` is ``p`` or has ``R(o) < min_{B1} R + 2 SEARCH_STEPS mu T``.  With
    ``S(q) = sum_C w L~(c, q)``, ``R(q)`` lies in ``[S(q) - share T, S(q)]``, so ``o = r != p`` needs ``S(r) <
    min_{B1} S + (share + 2 SEARCH_STEPS mu) T``.  The computed ``S^`` and ``T^`` (float sums of nonnegative terms
    over ``|C|`` entries) are within ``mu T`` of their exact values, ``T^ >= T (1 - mu)``; so a point with ``p != r``
    and ``S^(r) - min_{B1} S^ > (share + (2 SEARCH_STEPS + 2) mu) T^ (1 + 1e-6)`` cannot output r (``p`` is in
    ``B1``: the test with ``S^(p)`` alone is weaker).  Unlike the reach lemma, neither the step cap nor the float
    order of the comparisons is assumed (as :func:`.column.descent_filter`)."""
    a = _validate.prior(prior)
    k = a.size
    n, eps = _validate.integer(n, "n", 1), _validate.epsilon(epsilon)
    r = np.asarray(released, dtype=np.int64).reshape(k)
    Z = np.asarray(points, dtype=np.int64).reshape(-1, k)
    keep = np.ones(len(Z), dtype=bool)
    if not len(Z):
        return keep
    Dc = radius_for(k, eps, 1e-12)
    sums = _Sums(a, n, eps, batch_radius(k, eps), bands=False)
    magnitude = max(float(np.abs(fi).max()) for fi in sums.f) * k + abs(sums.top) + eps * Dc
    mu = FLOAT_MARGIN + 16.0 * magnitude * 2.0**-53
    margin = (SEARCH_SHARE + (2 * SEARCH_STEPS + 2) * mu) * (1 + 1e-6)
    ball, ball1 = _ball(k, Dc), _ball(k, 1)
    ball_rows = _BallRows(ball, Dc)
    P = project(Z, n)
    # per coordinate, J(a_i + x, a_i + v) over the counts x of every search's data sets and the values v of r and of
    # the projections (elementwise: each entry the float lgamma_jensen_gap returns at that one pair, as
    # _loss_rows' tables), so that each loss row is gathered, not evaluated per search
    lo_x = np.maximum(P.min(axis=0) - Dc, 0)
    hi_x = np.minimum(P.max(axis=0) + Dc, n)
    vals = [np.unique(np.clip(np.concatenate([P[:, i] - 1, P[:, i], P[:, i] + 1, r[i:i + 1]]), 0, n))
            for i in range(k)]
    jtab = None
    if sum((int(hi_x[i] - lo_x[i]) + 1) * len(vals[i]) for i in range(k)) <= EXACT_DESCENT_TABLE_ENTRIES:
        jtab = [lgamma_jensen_gap(a[i] + np.arange(lo_x[i], hi_x[i] + 1, dtype=np.float64)[:, None],
                                  a[i] + vals[i][None, :].astype(np.float64)) for i in range(k)]
    gkey = _keys(P, n)
    order = np.argsort(gkey, kind="stable")
    cuts = np.flatnonzero(np.diff(gkey[order])) + 1
    for idx in np.split(order, cuts):
        p = P[idx[0]]
        if np.array_equal(p, r):
            continue  # the search may stay at p = r
        # the search's data sets (the ball's points in R(n), its order) and ln pi at each (the grouped route's floats)
        cs, base, csT = _ball_data_sets(a, p, ball_rows)
        # r, then the outputs of the search's first ball (p within 1, in R(n))
        qs = np.concatenate([r[None, :], p[None, :] + ball1])
        qs = qs[np.all(qs >= 0, axis=1)]
        L = np.empty((len(qs), len(cs)))
        if jtab is None:
            _loss_rows(a, cs, qs, n, L)
        else:  # the same J entries added in coordinate order to 0, then hellinger_from_log_bc: the same floats
            for j, q in enumerate(qs):
                L[j] = 0.0
                for i in range(k):
                    L[j] += jtab[i][cs[:, i] - lo_x[i], int(np.searchsorted(vals[i], q[i]))]
            hellinger_from_log_bc(L, out=L)
        step = max(1, GROUP_ENTRIES // len(cs))
        for lo in range(0, len(idx), step):
            zb = idx[lo:lo + step]
            w, T = _block_weights(csT, Z[zb], base, eps)
            S = np.einsum("zc,qc->zq", w, L, optimize=False)
            keep[zb] = ~(S[:, 0] - S[:, 1:].min(axis=1) > margin * T)
    return keep
