"""The local search of the lattice release (:func:`.remap.local_bayes_search`) at many points at once, k = 3.

Definition (docs/lattice.md, "The local remap at every point of a window").  A ``lattice~average`` draw at large n
outputs ``T(z) = local_bayes_search(a, n, eps, z)``: with ``p = project(z)``, ``C = {c in R(n) : d(c, p) <= Dc}``
(``Dc = radius_for(k, eps, 1e-12)``), weights ``w(c) = pi(c) e^(-eps d(z, c))`` (up to one constant per z), the
lightest c of total weight at most ``share sum_C w`` left out (the kept set ``Kz``), risks
``S(r) = sum_{c in Kz} w(c) L(c, r)`` and a descent over the outputs ``r`` within 1 of a centre, from ``p``.
:func:`local_search_many` returns the same output at every z, computed for all z together.

Method.  For every output ``r`` of R(n) and every offset ``v`` with ``d(v) <= rho`` the products
``G[r, v] = pi(r + v) L(r + v, r)`` (0 off R(n)) are computed once, a run of outputs with the same ``r_1`` at a
time (contiguous reads of padded tables, no index arrays); a pair ``(z, r)`` needs
``S^(z, r) = sum_v e^(-eps d(z - r - v)) G[r, v]``, the sum over the ball ``B_r = {c : d(c, r) <= rho}``.  Where
``z`` is in R(n) and ``d(r, z) <= 2``, ``z - r`` is one of 19 offsets: ``S^`` is read from the table ``G Kmat``
(one product per run, by ``einsum``: a threaded BLAS spins on a shared machine).  Elsewhere (the z outside R(n),
whose searches walk along a face) the rows ``G[r]`` of the outputs with a count at most :data:`EDGE` are kept and
``S^`` is a product per distinct offset ``z - r``.  The total ``T(z) = sum_C w`` is a correlation of ``pi`` with
the kernel truncated at ``Dc`` (z in R(n)) or a product per distinct ``z - p``.  ``N(z, r)``, the weight of
``B_r``: for z in R(n) the weight ``N'(z)`` of the ball ``d(c, z) <= rho - 2``, which lies in every ``B_r`` with
``d(r, z) <= 2`` (a second correlation), so ``T - N(z, r) <= T - N'(z)``; elsewhere the rows ``pi(r + v)`` of the
kept outputs, as ``S^``.

Certificate (proof).  While ``d(r, p) <= Dc - rho``, ``B_r`` lies in the ball of C, so

    ``S(r) - S^(r) = sum_{Kz \\ B_r} w L - sum_{B_r \\ Kz} w L``,   each loss in [0, 1],

hence ``S^(r) - share T <= S(r) <= S^(r) + (T - N(r))``.  Both computations round: the weights' logarithms
(magnitude at most ``Lambda``, the largest ``|ln pi|`` term plus ``eps Dc``), the products and sums of at most
``|C|`` terms each, so the computed values differ from the exact ones by at most ``mu T`` with
``mu = 1e-9 + 16 Lambda 2^-53`` (a wide margin over ``|C| 2^-53`` and ``4 Lambda 2^-53``; each loss is the same
float as the one-point search's: the same arguments of the same elementwise functions, summed in the same order).
So every ``S(r)`` lies in ``[lo(r), hi(r)] = [S^(r) - (share + mu) T, S^(r) + (T - N(r)) + mu T]``.  A step at a
centre is decided when one output ``r*`` of its ball (the outputs within 1) has ``hi(r*) < lo(r)`` for every other
output of the ball: then ``r*`` is the strict minimiser, so the search returns the centre (``r*`` the centre) or
moves to ``r*`` (the only output strictly inside a ball of radius 1 is its centre), exactly as the one-point search
does, ties included (a tie is never decided here).  Steps are decided while every output of the ball has known
bounds; any z whose search is not decided (a near tie, an output past the reach of the tables, weights out of
float range) is handed to :func:`.remap.local_bayes_search` itself.  So every output equals the one a draw
computes; the margin only decides how many z go the slow way (counted, and refused past a limit in one line).

Orbits (a symmetric prior, every ``a_i`` equal).  For a permutation ``s`` of the categories ``pi(s c) = pi(c)``,
``L(s c, s r) = L(c, r)`` (the Hellinger distance between Dirichlets with permuted parameters) and
``d(s x) = d(x)``; for z in R(n) ``project(s z) = s z``, and ``C``, the balls ``B_r`` and the outputs within 1 of a
centre move with ``s``.  So the exact ``S^(s z, s r)``, ``T(s z)`` and ``N(s z, s r)`` equal those at ``(z, r)``, and
the interval above holds for ``S(s z, s r)`` whatever set the one-point search keeps at ``s z`` (the certificate
allows any kept set of left-out weight at most ``share T``), its float error within the same ``mu T``.  Hence if the
steps at z are decided (each minimiser strict, with the margins), the one-point search at ``s z`` takes the image of
every step and returns ``s`` of z's output: a strict minimiser has no tie to break, and a z fixed by a swap (on a
mirror line) has an output fixed by it.  :func:`local_search_many` therefore searches one representative
``u = s^-1 z`` per orbit (:func:`canonical_order`) and returns ``s`` of u's output (the search at ``s z`` starts
from ``s project(z)`` and weighs ``C``'s images alike); a representative not decided
hands every z of its orbit to the one-point search at that z (ties there are broken by order, not by symmetry).
Orbits, one search (where the undecided points go to the one-point search one at a time, :func:`_rest_batched`
false).  A representative ``u`` the bounds leave undecided is searched once by :func:`.remap.local_bayes_search`
itself, which records its smallest step margin ``g = min over steps, r != r* of (S_u(r) - S_u(r*)) / T_u`` (its own
risks over its kept set, ``T_u`` its total).  Each computed ``S_u(r)`` lies in ``[S(r) - (share + mu) T, S(r) + mu
T]`` (``S`` the exact sum over the whole of ``C``: the search leaves out weight at most ``share T``, each loss in
[0, 1], and rounds within ``mu T``), and at ``s u`` the search's ``S_{su}(s r)`` lies in the same interval around
``S(s u, s r) = S(r)``, whatever set it keeps.  Hence ``S(r) - S(r*) >= S_u(r) - S_u(r*) - (share + 2 mu) T`` and
``S_{su}(s r) - S_{su}(s r*) >= S(r) - S(r*) - (share + 2 mu) T >= (g T_u / T - 2 share - 4 mu) T``, with
``T_u >= (1 - mu) T``.  So where ``g > 2 (share + 2 mu) / (1 - mu)`` (:func:`orbit_threshold`) every step
at ``s u`` has the image ``s r*`` as its strict minimiser over the image ball (the outputs of R(n) within 1 of the
image centre), and the search at ``s u`` takes the image of every step of the search at ``u``: it returns ``s`` of
u's output at every point of the orbit, with no tie to break.  Where ``g`` is smaller (the exact ties of a uniform
prior's flat strips next to a face) the other points of the orbit are each searched.  The output at ``u`` is the
search's own either way.

Off R(n) the same holds wherever ``project(s z) = s project(z)`` (checked at each z: ``project`` breaks ties among
equal counts by index), the others are searched each.  The table ``G Kmat`` and the correlations are
computed only at the outputs and points the representatives read (within 2 of them; the box of their grid plus
``Dc``), which is where the time goes: about a sixth of R(n).

The one-point searches handed on at large n read each coordinate's ``J`` from a band table built once
(:func:`fallback_band`, :func:`.remap._jensen_band`): ``lgamma_jensen_gap`` is elementwise, so each entry is the
float the search would evaluate, summed in the same order: the same output.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln

from .. import validate as _validate
from ..distances.hellinger import hellinger_from_log_bc, lgamma_jensen_gap
from ..errors import InputError
from ..models import candidates
from . import remap as _remap
from .noise import pair_distance, radius_for, tail_bound, window
from .remap import FLOAT_MARGIN, SEARCH_SHARE, SEARCH_STEPS, _ball, _Fallback, project

#: The balls ``B_r`` of the sums ``S^`` (module docstring) have radius ``radius_for(k, eps, NEAR_TAIL)``: the
#: kernel's mass beyond it, the usual size of the margin ``(T - N) / T``, is at most this.
NEAR_TAIL = 1e-6
#: Outputs with a count at most this keep their row of ``G`` (the searches of the z outside R(n) walk along a face).
EDGE = 3
#: Entries of one block of the direct sums (the totals of the z outside R(n)).
BLOCK_ENTRIES = 2**22
#: Entries (offsets x data sets) of one block of :func:`window_errors`' sum.
ERROR_BLOCK_ENTRIES = 2**15
#: Data sets of one tile of :func:`window_errors`' sum (its blocks' buffers, ~1.5 MiB in all, stay in cache: at
#: Dir(1,1,1), n = 1000, eps = 1 the sum took 6.0 CPU s against 9.8 over all data sets at once, the same floats).
ERROR_TILE_POINTS = 2**13
#: Most entries of the kernel's table over offsets (:class:`KernelGrid`, 32 MiB of floats).
GRID_ENTRIES = 2**22
#: The one-point searches handed on read their losses from a band table (:func:`fallback_band`) of at most this many
#: entries per category (32 MiB of floats), over ``|c_i - r_i| <= Dc + BAND_STEPS`` (pairs farther apart, a search
#: that walked farther, are evaluated as a draw does: the same floats).
BAND_ENTRIES = 2**22
BAND_STEPS = 32


def _grid_rank(c: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    """Flat index ``c_1 (n + 1) + c_2`` of a k = 3 point on the ``(n + 1)^2`` grid."""
    return c[..., 0] * (n + 1) + c[..., 1]


def fallback_band(n: int, eps: float) -> int:
    """The ``band`` of the one-point searches a batch hands on (:func:`.remap.local_bayes_search`: their losses read
    from one table per (a_i, n), the same floats): ``Dc +`` :data:`BAND_STEPS` where the table's ``(n + 1) (2 band +
    1)`` entries are at most :data:`BAND_ENTRIES`, else 0 (evaluated per search, as a draw does)."""
    band = radius_for(3, eps, 1e-12) + BAND_STEPS
    return band if (n + 1) * (2 * band + 1) <= BAND_ENTRIES else 0


class KernelGrid:
    """``e^(-eps d(x))`` for every lattice vector ``x`` (k = 3) with ``|x_1|, |x_2| <= L``, tabled once on the grid
    ``(x_1, x_2)`` (``x_3 = -x_1 - x_2``), so that the kernel rows ``e^(-eps d(s - v))`` of many offsets ``s``
    against one ball of ``v`` are gathers.  The same floats as ``np.exp(-eps * pair_distance(s, v))``: the table holds
    ``np.exp(-eps * d)`` of the same integer ``d`` (one elementwise function of one float argument); a row outside
    the table is computed that way directly."""

    def __init__(self, eps: float, L: int):
        self.eps, self.L = float(eps), int(L)
        x = np.arange(-self.L, self.L + 1, dtype=np.int64)
        x1, x2 = x[:, None], x[None, :]
        d = np.abs(x1) + np.abs(x2)
        d += np.abs(x1 + x2)
        d //= 2
        self.side = 2 * self.L + 1
        self.table = np.exp(-self.eps * d).ravel()
        # per ball (by identity, the ball kept alive with its entry): its reach and its points' flat offsets, which
        # a search asks for once per offset row (~17,600 single rows against a ball of 50,311 at n = 10, eps = 0.25)
        self._balls: dict[int, tuple[NDArray[np.int64], int, NDArray[np.int64]]] = {}

    def _ball_keys(self, ball: NDArray[np.int64]) -> tuple[int, NDArray[np.int64]]:
        """``(reach, flat offsets)`` of ``ball``, computed once per ball."""
        got = self._balls.get(id(ball))
        if got is None or got[0] is not ball:
            got = (ball, int(np.abs(ball[:, :2]).max(initial=0)), ball[:, 0] * self.side + ball[:, 1])
            self._balls[id(ball)] = got
        return got[1], got[2]

    def __call__(self, s: NDArray[np.int64], ball: NDArray[np.int64]) -> NDArray[np.float64]:
        """``e^(-eps d(s - v))``: rows the offsets ``s`` (m, 3), columns the points ``v`` of ``ball`` (B, 3)."""
        reach, flat = self._ball_keys(ball)
        if not len(s) or int(np.abs(s[:, :2]).max()) + reach > self.L:
            return np.exp(-self.eps * pair_distance(s[:, None, :], ball[None, :, :]))
        at = (s[:, 0] + self.L) * self.side + (s[:, 1] + self.L)
        return self.table[at[:, None] - flat[None, :]]


def _k3_inputs(prior: ArrayLike, n: int, epsilon: float, refusal: str):
    """The validated ``(prior, n, eps)`` of this module's entry points; ``refusal`` (one line) unless k = 3."""
    a = _validate.prior(prior)
    if a.size != 3:
        raise InputError(refusal)
    return a, _validate.integer(n, "n", 1), _validate.epsilon(epsilon)


def local_search_many(prior: ArrayLike, n: int, epsilon: float, Z: ArrayLike, rho: int | None = None,
                      max_fallback: int | None = None, stats: dict | None = None,
                      orbits: bool | None = None) -> NDArray[np.int64]:
    """``local_bayes_search(prior, n, epsilon, z)`` (its defaults) for every row ``z`` of ``Z`` (k = 3, each row
    summing to n), computed together (module docstring; docs/lattice.md).  Equal output at every z.

    ``rho``: the radius of the sums (default from :data:`NEAR_TAIL`; at most ``Dc - 2``); ``max_fallback``: most
    z handed to the one-point search before a one-line refusal (None: no limit); ``stats``: filled with
    ``{"points", "fallback", "decided", "searched"}``; ``orbits``: at a symmetric prior, search one point per orbit
    of the z in R(n) under the permutations of the categories (module docstring, "Orbits"; None: wherever the prior
    is symmetric, False: never; the same outputs either way)."""
    a, n, eps = _k3_inputs(prior, n, epsilon, "the batched local search is built for k = 3")
    k = a.size
    Z = np.asarray(Z, dtype=np.int64).reshape(-1, k)
    if np.any(Z.sum(axis=1) != n):
        raise InputError("every z must sum to n")
    if (orbits is None or orbits) and bool(np.all(a == a[0])) and len(Z):
        return _orbit_search(a, n, eps, Z, rho, max_fallback, stats)
    out, done = _search_decided(a, n, eps, Z, rho)
    return _search_undecided(a, n, eps, Z, out, done, max_fallback, stats, searched=len(Z))


#: Bytes of :func:`.batched.local_search_batch`'s per-coordinate tables (``k (n + 1) (2 rho + 1)`` floats, a few
#: copies) up to which the points the bounds leave undecided are searched by it rather than one at a time.
SEARCH_TABLE_BYTES = 256 * 2**20


#: Largest n at which the undecided points go to :func:`.batched.local_search_batch` (its tables over R(n) grow with
#: n, a one-point search does not).  Dir(1,1,1), eps = 0.5, 20,000 window points near the faces, CPU s one point at a
#: time / batched: n = 300 (2,510 undecided) 6.1 / 4.7, n = 1000 (2,759) 23.0 / 40.0; eps = 0.25, n = 20 (14,808)
#: 12.6 / 2.5.
REST_BATCH_MAX_N = 300


def batch_tables_fit(k: int, n: int, eps: float) -> bool:
    """Whether :func:`.batched.local_search_batch`'s tables at (k, n, eps) stay within :data:`SEARCH_TABLE_BYTES`
    (public inputs only)."""
    from .batched import batch_radius

    return 8.0 * 4 * k * (n + 1) * (2 * batch_radius(k, eps) + 1) <= SEARCH_TABLE_BYTES


def _search_undecided(a, n, eps, Z, out, done, max_fallback, stats, searched: int) -> NDArray[np.int64]:
    """``out`` with every point the batched bounds left undecided searched (at most ``max_fallback`` of them, else
    refused), and ``stats`` filled in.  Up to :data:`REST_BATCH_MAX_N`, where its tables fit
    (:func:`batch_tables_fit`), those points go to :func:`.batched.local_search_batch`, else to the one-point search
    one at a time: both return ``local_bayes_search``'s output at every z (their docstrings; tested), so ``out`` is
    the same either way, chosen from public n, k, eps."""
    rest = np.flatnonzero(~done)
    fb = _Fallback(len(Z) if max_fallback is None else int(max_fallback), fallback_band(n, eps))
    fb.refuse_past(rest.size)
    if rest.size and _rest_batched(a, n, eps):
        from .batched import local_search_batch

        out[rest] = local_search_batch(a, n, eps, Z[rest])
    else:
        for j in rest:
            out[j] = fb(a, n, eps, Z[j])
    if stats is not None:
        stats.update(points=len(Z), fallback=int(rest.size), decided=int(done.sum()), searched=searched)
    return out


def canonical_order(Z: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For rows z (k = 3): ``(u, perm)`` with ``u[:, j] = z[perm[:, j]]``, u the orbit's representative under the
    permutations of the categories: the middle count first, the smallest second, the largest last (on the grid
    ``(c_1, c_2)`` its orbit's representatives fill ``c_2 <= c_1 <= c_3``, a box of a sixth of the grid)."""
    order = np.argsort(Z, axis=1, kind="stable")  # (smallest, middle, largest)
    perm = order[:, [1, 0, 2]]
    return np.take_along_axis(Z, perm, axis=1), perm


def _orbit_search(a, n, eps, Z, rho, max_fallback, stats) -> NDArray[np.int64]:
    """:func:`local_search_many` at a symmetric prior (module docstring, "Orbits"): the z with
    ``project(s z) = s project(z)`` (every z of R(n)) by one representative per orbit, the others each; a
    representative not decided hands every z of its orbit to the one-point search (at that z)."""
    # the points whose projection moves with the permutation (all of R(n); off it, unless project's order among equal
    # counts breaks it): one representative per orbit; the rest each
    canon, perm = canonical_order(Z)
    eq = np.all(project(canon, n) == np.take_along_axis(project(Z, n), perm, axis=1), axis=1)
    inside = np.flatnonzero(eq)
    outside = np.flatnonzero(~eq)
    canon, perm = canon[inside], perm[inside]
    U, inv = np.unique(canon, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    Zq = np.concatenate([U, Z[outside]])
    outq, doneq = _search_decided(a, n, eps, Zq, rho, restrict=True)
    out = np.empty_like(Z)
    done = np.empty(len(Z), dtype=bool)
    mapped = np.empty((len(inside), Z.shape[1]), dtype=np.int64)
    np.put_along_axis(mapped, perm, outq[:len(U)][inv], axis=1)  # out(z)[perm_j] = out(u)_j
    out[inside] = mapped
    done[inside] = doneq[:len(U)][inv]
    out[outside] = outq[len(U):]
    done[outside] = doneq[len(U):]
    certified = 0
    if not _rest_batched(a, n, eps):  # an undecided representative: one search, certified for its orbit
        reps = np.flatnonzero(~doneq[:len(U)])
        limit = len(Z) if max_fallback is None else int(max_fallback)
        _Fallback(limit).refuse_past(reps.size)
        ok = np.zeros(len(U), dtype=bool)
        outu = np.empty_like(U)
        threshold = orbit_threshold(a, n, eps, U[reps])
        band = fallback_band(n, eps)
        for j, t in zip(reps.tolist(), threshold.tolist()):
            gap: list = []
            outu[j] = _remap.local_bayes_search(a, n, eps, U[j], band=band, gap=gap)
            ok[j] = bool(gap) and gap[0] > t
        certified = int(reps.size)
        # a certified representative's whole orbit (moved by each point's permutation)
        sel = ok[inv]
        mapped = np.empty((int(sel.sum()), Z.shape[1]), dtype=np.int64)
        np.put_along_axis(mapped, perm[sel], outu[inv[sel]], axis=1)
        out[inside[sel]] = mapped
        done[inside[sel]] = True
        # and every representative not certified at the point itself (its search there is the one-point search's
        # output, as it is: on a mirror line its permutation may be a swap that fixes the point, not its output)
        searched = np.zeros(len(U), dtype=bool)
        searched[reps] = True
        own = ~ok[inv] & searched[inv] & np.all(Z[inside] == U[inv], axis=1)
        out[inside[own]] = outu[inv[own]]
        done[inside[own]] = True
        if max_fallback is not None:
            max_fallback = max(0, int(max_fallback) - certified)
    out = _search_undecided(a, n, eps, Z, out, done, max_fallback, stats, searched=len(Zq))
    if stats is not None:
        stats.update(fallback=stats["fallback"] + certified, orbit_searched=certified)
    return out


def orbit_threshold(a: NDArray[np.float64], n: int, eps: float, U: NDArray[np.int64]) -> NDArray[np.float64]:
    """The smallest relative step margin (:func:`.remap.local_bayes_search`'s ``gap``) at each representative ``u``
    of ``U`` that certifies its output for its whole orbit (module docstring, "Orbits, one search"):
    ``2 (SEARCH_SHARE + 2 mu) / (1 - mu)``, ``mu = FLOAT_MARGIN + 16 Lambda 2^-53`` with ``Lambda = 2 k max_i max_v
    |ln Gamma(a_i + v) - ln Gamma(v + 1)| + eps (Dc + d(u, project(u)))`` (``v`` in ``0..n``), an upper end of the
    magnitudes of the terms of the search's log-weights."""
    k = a.size
    Dc = radius_for(k, eps, 1e-12)
    x = np.arange(n + 1, dtype=np.float64)
    f = max(float(np.abs(gammaln(a[i] + x) - gammaln(x + 1.0)).max()) for i in range(k))
    depth = pair_distance(U, project(U, n)).astype(np.float64)
    magnitude = 2.0 * k * f + eps * (Dc + depth)
    mu = FLOAT_MARGIN + 16.0 * magnitude * 2.0**-53
    return 2.0 * (SEARCH_SHARE + 2.0 * mu) / (1.0 - mu)


def _rest_batched(a: NDArray[np.float64], n: int, eps: float) -> bool:
    """Whether :func:`_search_undecided` hands the undecided points to :func:`.batched.local_search_batch` (public
    n, k, eps: n at most :data:`REST_BATCH_MAX_N` and its tables fit), else to the one-point search one at a time."""
    return n <= REST_BATCH_MAX_N and batch_tables_fit(a.size, n, eps)


def _search_decided(a: NDArray[np.float64], n: int, eps: float, Z: NDArray[np.int64], rho: int | None,
                    restrict: bool = False) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """The batched part of :func:`local_search_many`: ``(out, decided)``, ``out[j]`` the one-point search's output
    wherever ``decided[j]``.  ``restrict``: the table's rows and the correlations computed only where the points of
    ``Z`` read them (not over the whole of R(n))."""
    k = a.size
    Dc = radius_for(k, eps, 1e-12)
    rho = int(min(radius_for(k, eps, NEAR_TAIL) if rho is None else rho, Dc - 2))
    n1 = n + 1
    # ln pi(c) up to a constant on the grid (c_1, c_2), c_3 = n - c_1 - c_2; 0 weight off R(n)
    x = np.arange(n1, dtype=np.float64)
    f = [gammaln(a[i] + x) - gammaln(x + 1.0) for i in range(k)]
    c1, c2 = np.meshgrid(np.arange(n1), np.arange(n1), indexing="ij")
    c3 = n - c1 - c2
    ok = c3 >= 0
    logp = np.where(ok, f[0][c1] + f[1][c2] + f[2][np.clip(c3, 0, n)], -np.inf)
    top = float(logp[ok].max())
    pi = np.exp(logp - top)  # (n + 1, n + 1), 0 off R(n)
    magnitude = max(float(np.abs(fi).max()) for fi in f) * k + abs(top) + eps * Dc
    mu = FLOAT_MARGIN + 16.0 * magnitude * 2.0**-53
    # pi on the grid padded by Dc on every side (0 there): a point c + v is read at flat index  base(c) + off(v)
    pad = Dc
    side = n1 + 2 * pad
    pi_pad = np.zeros((side, side))
    pi_pad[pad:pad + n1, pad:pad + n1] = pi
    pi_pad = pi_pad.ravel()

    def base(c: NDArray[np.int64]) -> NDArray[np.int64]:
        return (c[:, 0] + pad) * side + (c[:, 1] + pad)

    def off(v: NDArray[np.int64]) -> NDArray[np.int64]:
        return v[:, 0] * side + v[:, 1]

    ball2 = _ball(k, 2)  # the outputs within 2 of a point (19), lexicographic
    ball1 = _ball(k, 1)
    near = _ball(k, rho)

    # e^(-eps d(s - v)) read off one table over the differences s - v (:class:`KernelGrid`): the offsets s are the
    # z - p (the totals) and z - r for outputs r within Dc + 1 of p (the steps), v within Dc; a call with a wider
    # row computes directly (the table is capped at GRID_ENTRIES)
    P = project(Z, n)
    reach_s = int(np.abs(Z - P).max(initial=0)) + 2 * Dc + 2
    grid = KernelGrid(eps, min(reach_s, (math.isqrt(GRID_ENTRIES) - 1) // 2))

    def kern(s: NDArray[np.int64], ball: NDArray[np.int64] = near) -> NDArray[np.float64]:
        """``e^(-eps d(s - v))`` for the rows s (columns: the offsets v of ``ball``)."""
        return grid(s, ball)

    # where z is in R(n): S^(z, z + u) for u in ball(2) reads  sum_v K(-u - v) G[z + u, v] = (G @ Kmat)[z + u, j]
    Kmat = kern(-ball2).T  # (|near|, 19)
    R = np.stack([c1[ok], c2[ok], c3[ok]], axis=1)  # R(n) in grid order (c_1, then c_2)
    del c1, c2, c3, logp
    Rg = _grid_rank(R, n)
    gpos = np.full(n1 * n1, -1, dtype=np.int64)  # grid index -> row of R
    gpos[Rg] = np.arange(len(R))
    M = np.zeros((len(R), len(ball2)))
    # band tables J_i(r_i + v_i, r_i) (the same floats as the one-point search's: same arguments, elementwise)
    cols = np.arange(-rho, rho + 1)
    vals = np.arange(n1)[:, None] + cols[None, :]
    bands = [np.where(vals >= 0, lgamma_jensen_gap(a[i] + np.maximum(vals, 0).astype(np.float64),
                                                     a[i] + np.arange(n1, dtype=np.float64)[:, None]), 0.0)
             for i in range(k)]  # (n + 1, 2 rho + 1): [r_i, v_i + rho]
    J1T = np.ascontiguousarray(bands[1].T)  # [v_2 + rho, r_2]
    J2R = np.ascontiguousarray(bands[2][::-1].T)  # [v_3 + rho, n - r_3]
    # the G rows of outputs near the boundary (a count at most EDGE), for the z outside R(n)
    edge_r = np.flatnonzero(R.min(axis=1) <= EDGE)
    if restrict:  # only those within reach of a point off R(n): every output its search reads lies within Dc - rho + 1
        # of its projection (farther ones are undecided, read or not), and a row not kept is NaN there (undecided)
        edge_r = edge_r[_near_projections(R[edge_r], P[np.any(Z < 0, axis=1)], n, Dc - rho + 1)]
    edge_pos = np.full(n1 * n1, -1, dtype=np.int64)
    edge_pos[Rg[edge_r]] = np.arange(edge_r.size)
    G_edge = np.zeros((edge_r.size, len(near)))
    P_edge = np.zeros((edge_r.size, len(near)))
    pi2 = pi_pad.reshape(side, side)
    KT = np.ascontiguousarray(Kmat.T)
    v1, v2, v3 = near[:, 0], near[:, 1] + rho, near[:, 2] + rho
    need = None
    if restrict:  # the rows of M the points of R(n) read (within 2 of them), and the edge rows: nothing else
        mark = np.zeros(n1 * n1, dtype=bool)
        on = Z[np.all(Z >= 0, axis=1)]
        for u in ball2:
            y = on + u[None, :]
            y = y[np.all(y >= 0, axis=1)]
            mark[_grid_rank(y, n)] = True
        need = mark[Rg]
        need[edge_r] = True
        del mark
    start = 0
    for x in range(n1):  # the run of outputs with r_1 = x: r_2 = 0..n - x (rows start..start + m of R)
        m = n1 - x
        if need is not None:  # the columns r_2 of the run that are read, gathered
            sub = np.flatnonzero(need[start:start + m])
            if not sub.size:
                start += m
                continue
            pc = pi2[(x + v1 + pad)[:, None], (near[:, 1] + pad)[:, None] + sub[None, :]]
            log_bc = bands[0][x, near[:, 0] + rho][:, None] + J1T[v2[:, None], sub[None, :]]
            log_bc += J2R[v3[:, None], x + sub[None, :]]
        else:
            sub = slice(0, m)
            # pc[v, j] = pi(x + v_1, j + v_2), read from a strided view of the padded grid (rows of m contiguous
            # values)
            view = np.lib.stride_tricks.as_strided(pi2, shape=(side, side - m + 1, m),
                                                   strides=(pi2.strides[0], pi2.strides[1], pi2.strides[1]))
            pc = view[x + v1 + pad, near[:, 1] + pad]  # (|near|, m)
            log_bc = bands[0][x, near[:, 0] + rho][:, None] + J1T[v2, :m]
            log_bc += J2R[v3, x:x + m]
        # H = sqrt(-expm1(ln BC)) as hellinger_from_log_bc (ln BC <= 0 here: each J is; its + 0.0 only turns -0.0
        # into 0.0), times pi
        G = np.expm1(log_bc, out=log_bc)
        np.negative(G, out=G)
        np.sqrt(G, out=G)
        G *= pc
        # einsum, not BLAS: a threaded BLAS spins on a shared machine (measured 10x the CPU of one thread)
        M[start:start + m][sub] = np.einsum("uv,vm->mu", KT, G, optimize=False)
        e = edge_pos[Rg[start:start + m][sub]]
        sel = np.flatnonzero(e >= 0)
        if sel.size:
            G_edge[e[sel]] = G[:, sel].T
            P_edge[e[sel]] = pc[:, sel].T
        start += m

    out = np.empty_like(Z)
    inside = np.all(Z >= 0, axis=1)
    # totals T(z) = sum over d(c, p) <= Dc of pi(c) e^(-eps d(z, c))
    T = np.empty(len(Z))
    Nin = np.zeros(len(Z))
    full = _ball(k, Dc)
    zi = np.flatnonzero(inside)
    if zi.size:  # p = z: a correlation of pi with the kernel truncated at Dc
        kernel = np.zeros((2 * Dc + 1, 2 * Dc + 1))
        kernel[full[:, 0] + Dc, full[:, 1] + Dc] = np.exp(-eps * (np.abs(full).sum(axis=1) // 2))
        T[zi] = _correlate_at(pi, kernel, Z[zi], Dc)
        # N'(z): the same sum over d(c, z) <= rho - 2, a ball inside every B_r with d(r, z) <= 2, so that
        # T - N(z, r) <= T - N'(z) there
        inner = full[np.abs(full).sum(axis=1) // 2 <= rho - 2]
        kernel[:] = 0.0
        kernel[inner[:, 0] + Dc, inner[:, 1] + Dc] = np.exp(-eps * (np.abs(inner).sum(axis=1) // 2))
        Nin[zi] = _correlate_at(pi, kernel, Z[zi], Dc)
    zo = np.flatnonzero(~inside)
    if zo.size:  # grouped by s0 = z - p: sum_v pi(p + v) K(s0 - v)
        keys, inv = np.unique(Z[zo] - P[zo], axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        order = np.argsort(inv, kind="stable")
        bounds = np.r_[0, np.cumsum(np.bincount(inv, minlength=len(keys)))]
        full_off = off(full)
        zstep = max(1, BLOCK_ENTRIES // len(full))
        for q in range(len(keys)):
            idx = zo[order[bounds[q]:bounds[q + 1]]]
            Kq = kern(keys[q:q + 1], full)[0]
            for lo in range(0, idx.size, zstep):
                j = idx[lo:lo + zstep]
                T[j] = np.einsum("zv,v->z", pi_pad[base(P[j])[:, None] + full_off[None, :]], Kq, optimize=False)

    # the search, a step at a time for every z not yet decided: the 7 outputs around its centre
    centre_j1 = int(np.flatnonzero(np.all(ball1 == 0, axis=1))[0])
    usable = (T > 1e-250) & np.isfinite(T)
    active = np.flatnonzero(usable)
    cen = P[active].copy()
    result = np.full(len(Z), -1)  # 1: decided (out holds it), -1: handed on
    reach = Dc - rho  # outputs farther from p than this: their bounds do not hold
    for _ in range(SEARCH_STEPS):
        if not active.size:
            break
        rs = cen[:, None, :] + ball1[None, :, :]  # (m, 7, k)
        real = np.all(rs >= 0, axis=2)
        zz = np.repeat(active, len(ball1))
        S_v = np.full(zz.size, np.nan)
        N_v = np.zeros(zz.size)
        flat_r = rs.reshape(-1, k)
        flat_real = real.reshape(-1)
        # z in R(n), r - z in ball(2): the table M
        u = flat_r - Z[zz]
        d_u = np.abs(u).sum(axis=1) // 2
        t = np.flatnonzero(flat_real & inside[zz] & (d_u <= 2))
        if t.size:
            j = _lookup(u[t], ball2)
            g = gpos[_grid_rank(flat_r[t], n)]
            S_v[t], N_v[t] = M[g, j], Nin[zz[t]]
        # else an output near the boundary: its row of G, grouped by the offset s = z - r
        rest = np.flatnonzero(flat_real & np.isnan(S_v))
        if rest.size:
            rows = edge_pos[_grid_rank(np.clip(flat_r[rest], 0, n), n)]
            has = rows >= 0
            rest, rows = rest[has], rows[has]
        if rest.size:
            keys, inv = np.unique(Z[zz[rest]] - flat_r[rest], axis=0, return_inverse=True)
            inv = inv.reshape(-1)
            order = np.argsort(inv, kind="stable")
            bounds = np.r_[0, np.cumsum(np.bincount(inv, minlength=len(keys)))]
            # the kernel rows of the offsets, a block of them at a time: len(keys) x |near| reaches GiBs where most
            # of the window is off R(n) (small n, small eps: 18,141 x 15,337 at n = 10, eps = 0.25); same floats
            per_block = max(1, BLOCK_ENTRIES // len(near))
            for q in range(len(keys)):
                if q % per_block == 0:
                    Ks = kern(keys[q:q + per_block])
                idx = order[bounds[q]:bounds[q + 1]]
                if 4 * idx.size > len(G_edge):  # a large group: every kept row once, then read
                    S_v[rest[idx]] = np.einsum("rv,v->r", G_edge, Ks[q % per_block], optimize=False)[rows[idx]]
                    N_v[rest[idx]] = np.einsum("rv,v->r", P_edge, Ks[q % per_block], optimize=False)[rows[idx]]
                else:
                    S_v[rest[idx]] = np.einsum("rv,v->r", G_edge[rows[idx]], Ks[q % per_block], optimize=False)
                    N_v[rest[idx]] = np.einsum("rv,v->r", P_edge[rows[idx]], Ks[q % per_block], optimize=False)
        S_v, N_v = S_v.reshape(-1, len(ball1)), N_v.reshape(-1, len(ball1))
        Tm = T[active][:, None]
        far = pair_distance(rs, P[active][:, None, :]) > reach
        bad = np.any(real & (np.isnan(S_v) | far), axis=1)  # an output whose bounds are not known
        lo_v = np.where(real, S_v - (SEARCH_SHARE + mu) * Tm, np.inf)
        hi_v = np.where(real, S_v + (Tm - N_v) + mu * Tm, np.inf)
        best = np.argmin(hi_v, axis=1)
        m = np.arange(len(active))
        lo_other = lo_v.copy()
        lo_other[m, best] = np.inf
        decided = ~bad & (hi_v[m, best] < lo_other.min(axis=1))
        stay = decided & (best == centre_j1)
        out[active[stay]] = cen[stay]
        result[active[stay]] = 1
        move = decided & ~stay
        cen = rs[m[move], best[move]]
        active = active[move]
    return out, result > 0


def _near_projections(rows: NDArray[np.int64], P: NDArray[np.int64], n: int, reach: int) -> NDArray[np.bool_]:
    """Whether each of ``rows`` (points of R(n), k = 3) lies within ``reach`` of one of the points ``P`` of R(n)."""
    if not len(P) or not len(rows):
        return np.zeros(len(rows), dtype=bool)
    P = np.unique(P, axis=0)
    mark = np.zeros((n + 1) * (n + 1), dtype=bool)
    for u in _ball(3, reach):
        y = P + u[None, :]
        y = y[np.all(y >= 0, axis=1)]
        mark[_grid_rank(y, n)] = True
    return mark[_grid_rank(rows, n)]


def _correlate_at(pi: NDArray[np.float64], kernel: NDArray[np.float64], pts: NDArray[np.int64], Dc: int
                  ) -> NDArray[np.float64]:
    """``sum_v pi(p + v) kernel(v)`` at the points ``p`` (k = 3, on the grid ``(c_1, c_2)``; ``kernel`` over
    ``|v_1|, |v_2| <= Dc``, ``pi`` 0 off the grid), the same floats as ``ndimage.correlate(pi, kernel,
    mode="constant", cval=0.0)`` read at the points.  ndimage's sum at a point starts at 0 and adds
    ``pi(p + v) * kernel(v)`` one tap at a time, the taps in row-major order, a tap kept where ``|kernel(v)| >
    DBL_EPSILON`` (a term off the grid adds 0); here the same sum, one tap at a time over all the points at once
    (a gather from ``pi`` padded by ``Dc`` with zeros).  ``ndimage.correlate`` itself builds a border table of
    (taps)^2 indices: 1.7 GB at Dc = 64 (Dir(1,1,1), eps = 0.5), most of ``compare``'s peak at k = 3, n = 1000;
    this route holds two arrays of the points (and is ~1.6x sooner there: 83,834 points, 12,481 taps)."""
    width = pi.shape[1] + 2 * Dc
    padded = np.zeros((pi.shape[0] + 2 * Dc, width))
    padded[Dc:Dc + pi.shape[0], Dc:Dc + pi.shape[1]] = pi
    flat = padded.ravel()
    ii, jj = np.nonzero(np.abs(kernel) > np.finfo(np.float64).eps)  # the taps ndimage keeps, in row-major order
    offs = (ii - Dc) * width + (jj - Dc)
    low = int(offs.min(initial=0))
    start = (pts[:, 0] + Dc) * width + (pts[:, 1] + Dc) + low
    acc = np.zeros(len(pts))
    term = np.empty(len(pts))
    for shift, w in zip((offs - low).tolist(), kernel[ii, jj].tolist()):
        np.take(flat[shift:], start, out=term)  # pi(p + v) at every point
        term *= w
        acc += term
    return acc


def _lookup(u: NDArray[np.int64], table: NDArray[np.int64]) -> NDArray[np.int64]:
    """The row of ``table`` equal to each row of ``u`` (every row of ``u`` is in ``table``)."""
    lo = table.min()
    span = int(table.max() - lo + 1)
    key_t = ((table[:, 0] - lo) * span + (table[:, 1] - lo))
    look = np.full(span * span, -1, dtype=np.int64)
    look[key_t] = np.arange(len(table))
    return look[(u[:, 0] - lo) * span + (u[:, 1] - lo)]


def window_errors(prior: ArrayLike, n: int, epsilon: float, outputs: NDArray[np.int64], W: int,
                  counts: NDArray[np.int64] | None = None):
    """``E(c) = sum_w K(w) L(c, T(c + w))`` for every c of R(n) (k = 3), as a :class:`.scale.Bracket`, given the
    deterministic remap ``T`` as ``outputs`` at every point of ``window(n, 3, W)`` (lexicographic); the sum runs over
    ``d(w) <= W`` (every ``c + w`` is in the window) and ``tail = tail_bound(3, eps, W)`` (docs/lattice.md).
    ``counts``: only these data sets (rows of R(n)), each the same float as over the whole of R(n).

    The same sum as :func:`.scale.lattice_errors` with the rule read from the table (the same losses from the same
    per-coordinate tables, the same offsets in the same order: the same floats), without its per-offset checks:
    the window's outputs are held on the grid ``(z_1, z_2)``, the losses' tables flat, so each offset is a few
    gathers and one square root per data set."""
    from .noise import log_normaliser
    from .scale import Bracket, _LossTables

    a, n, eps = _k3_inputs(prior, n, epsilon, "the window errors are built for k = 3")
    k = a.size
    W = _validate.integer(W, "W", 0)
    offs = _ball(k, W)  # lexicographic, as lattice_offsets
    wts = np.exp(-eps * (np.abs(offs).sum(axis=1) // 2) - log_normaliser(k, eps))
    tail = tail_bound(k, eps, W)
    outputs = np.asarray(outputs, dtype=np.int64)
    tables = _LossTables(a, n, candidates(n, k)).tables  # J_i(c_i, r_i) at c_i (n + 1) + r_i, the dense walk's floats
    R = candidates(n, k) if counts is None else np.asarray(counts, dtype=np.int64).reshape(-1, k)
    n1 = n + 1
    side = n + k * W + 1  # the window's grid: z_1 + W, z_2 + W in 0..n + 3W
    Zw = window(n, k, W)
    o1 = np.zeros(side * side, dtype=np.int64)
    o2 = np.zeros(side * side, dtype=np.int64)
    g = (Zw[:, 0] + W) * side + (Zw[:, 1] + W)
    o1[g], o2[g] = outputs[:, 0], outputs[:, 1]
    base_z = (R[:, 0] + W) * side + (R[:, 1] + W)
    b0, b1 = R[:, 0] * n1, R[:, 1] * n1
    b2 = R[:, 2] * n1 + n
    # a tile of data sets at a time (ERROR_TILE_POINTS), and in it a block of offsets at a time (each entry the same
    # floats as one offset at a time: the same gathers summed in coordinate order, then kw x H), added to acc one
    # offset after the other: each E(c) is the same sum in the same order as over all of R(n) at once.  The tile's
    # buffers are allocated once and reused (written through out=), small enough to stay in cache
    shifts = offs[:, 0] * side + offs[:, 1]
    acc = np.zeros(len(R))
    tile = max(1, min(len(R), ERROR_TILE_POINTS))
    step = max(1, ERROR_BLOCK_ENTRIES // tile)
    zi, r1, r2, ix = (np.empty((step, tile), dtype=np.int64) for _ in range(4))
    lb, term = np.empty((step, tile)), np.empty((step, tile))
    for c0 in range(0, len(R), tile):
        m = min(tile, len(R) - c0)
        bz, c0_, c1_, c2_ = base_z[None, c0:c0 + m], b0[None, c0:c0 + m], b1[None, c0:c0 + m], b2[None, c0:c0 + m]
        acc_c = acc[c0:c0 + m]
        for lo in range(0, len(offs), step):
            s = min(step, len(offs) - lo)
            z_, q1, q2, i_, l_, t_ = zi[:s, :m], r1[:s, :m], r2[:s, :m], ix[:s, :m], lb[:s, :m], term[:s, :m]
            np.add(bz, shifts[lo:lo + s, None], out=z_)
            np.take(o1, z_, out=q1)
            np.take(o2, z_, out=q2)
            np.add(c0_, q1, out=i_)
            np.take(tables[0], i_, out=l_)
            np.add(c1_, q2, out=i_)
            np.take(tables[1], i_, out=t_)
            l_ += t_
            np.subtract(c2_, q1, out=i_)
            i_ -= q2
            np.take(tables[2], i_, out=t_)
            l_ += t_
            hellinger_from_log_bc(l_, out=l_)
            l_ *= wts[lo:lo + s, None]
            for row in l_:
                acc_c += row
    return Bracket(R, acc, float(tail), len(offs))
