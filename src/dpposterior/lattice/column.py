"""One column of the remapped lattice release's pmf: the likelihood ``P(r | c)`` of one output at every data set.

Definition (docs/lattice.md, "The noise-aware posterior").  The release draws ``z = c + w`` with
``K(z | c) = e^(-eps d(z - c)) / Z(eps, k)`` (:mod:`.noise`) and outputs ``r`` with probability ``T(z, r)``, a remap
that is a function of ``z`` alone, so the likelihood of a released ``r`` is one column of the pmf,

    ``P(r | c) = sum_z K(z | c) T(z, r)``.

The column needs ``T`` only at the z that map to r.  Over the window ``window(n, k, W) = {z : sum z = n,
z_i >= -W}`` (:func:`.noise.window`), with ``S_r`` its points with ``T(z, r) > 0``,

    ``P_W(r | c) = sum over z in S_r of K(z | c) T(z, r)``.

Bracket (proof).  Every term is ``>= 0`` and ``T(z, r) <= 1``, so ``P_W(r | c) <= P(r | c)``; the terms left out are
those of the z outside the window, whose kernel mass is at most ``tail = tail_bound(k, eps, W)`` for every c of R(n)
(a z outside has some ``z_i < -W <= -W + c_i``, so ``d(z - c) > W``; :mod:`.noise`).  Hence
``P_W(r | c) <= P(r | c) <= P_W(r | c) + tail`` for every c, the same bracket as the window's rows, in one column.
The sums run in log space (``logsumexp``), so no term underflows at large eps.

The local column (:func:`local_column`): where the remap's outputs lie near ``project(z)`` (the local search's reach,
:func:`reach_region`), only the z near r and the data sets near those z enter, with the kernel's tails beyond as the
bound of what is left out.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln, logsumexp

from .. import validate as _validate
from ..distances.hellinger import hellinger_from_log_bc, lgamma_jensen_gap
from ..models import candidates, check_size
from .noise import log_normaliser, sphere_count, tail_bound_of, window

#: Floats one block of the column's sums may hold.
BLOCK_ENTRIES = 2**20


def column_from_points(counts: ArrayLike, epsilon: float, points: ArrayLike,
                       weights: ArrayLike) -> NDArray[np.float64]:
    """``ln sum_j weights_j K(points_j | c)`` for every row c of ``counts`` (``-inf`` where no point has weight): the
    column's sum over the points that map to r (module docstring), ``weights_j = T(z_j, r) > 0``.

    The points that share their positive part ``y = max(z, 0)`` and ``e = sum_i max(-z_i, 0)`` are summed once: for
    every ``c >= 0``, ``|z_i - c_i| = |y_i - c_i|`` where ``z_i >= 0`` and ``c_i - z_i = |y_i - c_i| + |z_i|`` where
    ``z_i < 0``, so ``sum_i |z_i - c_i| = sum_i |y_i - c_i| + e``: the same integer distance at every such point, and
    the sum is ``K(y, e | c)`` times their weights' sum (the same sum, grouped: equal up to rounding, tested).  Next
    to a vertex most points that map to r lie off R(n) and share few such pairs."""
    c = np.asarray(counts, dtype=np.int64)
    z = np.asarray(points, dtype=np.int64).reshape(-1, c.shape[1])
    lw = np.log(np.asarray(weights, dtype=np.float64).reshape(-1))
    eps = float(epsilon)
    out = np.full(len(c), -np.inf)
    if not len(z):
        return out
    e = np.zeros(len(z), dtype=np.int64)
    if np.any(z < 0):
        key = np.concatenate([np.maximum(z, 0), np.maximum(-z, 0).sum(axis=1, keepdims=True)], axis=1)
        uniq, inv = np.unique(key, axis=0, return_inverse=True)
        if len(uniq) < len(z):
            inv = inv.reshape(-1)
            top = np.full(len(uniq), -np.inf)
            np.maximum.at(top, inv, lw)
            total = np.zeros(len(uniq))
            np.add.at(total, inv, np.exp(lw - top[inv]))
            z, e, lw = uniq[:, :-1], uniq[:, -1], top + np.log(total)
    log_z = log_normaliser(c.shape[1], eps)
    step = max(1, BLOCK_ENTRIES // len(z))
    for lo in range(0, len(c), step):
        d = (np.abs(c[lo:lo + step, None, :] - z[None, :, :]).sum(axis=2) + e[None, :]) // 2
        out[lo:lo + step] = logsumexp(lw[None, :] - eps * d, axis=1) - log_z
    return out


def window_column(n: int, k: int, epsilon: float, released: ArrayLike, W: int, window_points: ArrayLike,
                  outputs: ArrayLike | None = None, probabilities: ArrayLike | None = None
                  ) -> tuple[NDArray[np.int64], NDArray[np.float64], float]:
    """``(R(n), ln P_W(r | c) for every c of R(n), tail)`` with ``P_W <= P(r | c) <= P_W + tail`` (module docstring).

    ``window_points``: the points of ``window(n, k, W)``; the remap at each is given by ``outputs`` (a deterministic
    remap: the output at each point, rows of k counts) or ``probabilities`` (a randomised one: ``T(z, r)`` at each
    point).  ``tail = tail_bound(k, eps, W)``."""
    eps = _validate.epsilon(epsilon)
    r = np.asarray(released, dtype=np.int64).reshape(k)
    Z = np.asarray(window_points, dtype=np.int64).reshape(-1, k)
    if outputs is not None:
        hit = np.all(np.asarray(outputs, dtype=np.int64).reshape(-1, k) == r[None, :], axis=1)
        S, wts = Z[hit], np.ones(int(hit.sum()))
    else:
        p = np.asarray(probabilities, dtype=np.float64).reshape(-1)
        S, wts = Z[p > 0], p[p > 0]
    R = candidates(int(n), int(k))
    return R, column_from_points(R, eps, S, wts), tail_bound_of(int(k), eps, int(W))


# -- the local column: the z near the release and the data sets near those z -----------------------------------------

def reach_offsets(k: int, Dc: int) -> NDArray[np.int64]:
    """``U(Dc) = {u : sum u = 0, every u_i <= Dc, or every u_i >= -Dc}``: where the local search's output can lie
    relative to ``project(z)`` (:func:`local_column`, the reach lemma).  Lexicographic, unique."""
    L = (k - 1) * Dc
    axes = np.meshgrid(*([np.arange(-L, Dc + 1)] * (k - 1)), indexing="ij")
    head = np.stack([x.ravel() for x in axes], axis=1).astype(np.int64)
    u = np.concatenate([head, -head.sum(axis=1, keepdims=True)], axis=1)
    u = u[(u[:, -1] >= -L) & (u[:, -1] <= Dc)]
    return np.unique(np.concatenate([u, -u]), axis=0)


def reach_box_bounds(k: int, released: ArrayLike, Dc: int, W: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(lo, hi)``: the box :func:`reach_region` enumerates at the release ``r`` (its first ``k - 1`` sides read).
    With ``L = (k - 1) Dc``, ``s`` the number of counts ``r_j <= L`` ("small") and ``u = project(z) - r``:

    * ``lo_i = r_i - L`` where ``r_i > L``, else ``-W``;
    * ``hi_i = r_i + L + s W`` where ``r_i >= max(r) - 2 L - 1``, else ``r_i + L``.

    Every ``z`` of the region lies in it (proof).  ``|u_i| <= L``.  A negative ``z_j`` has ``project(z)_j = 0``, so
    ``u_j = -r_j >= -L``: only small counts are negative, each by at most W, so ``project`` raises them by at most
    ``e <= s W`` and lowers the other counts by ``e`` in all.  A count ``z_i >= 0`` is ``>= project(z)_i >= r_i - L``
    (``project`` only lowers it); where ``r_i > L``, ``z_i < 0`` is impossible, so ``lo_i = r_i - L``; else ``z_i >=
    -W``.  ``z_i > project(z)_i`` only where ``project`` lowers the count, to the level ``m`` or ``m - 1`` with every
    count of ``project(z)`` at most ``m`` (:func:`~dpposterior.lattice.remap.project`), so ``project(z)_i >=
    max(project(z)) - 1 >= max(r) - L - 1`` against ``project(z)_i <= r_i + L``: impossible where ``r_i < max(r) - 2 L -
    1``, and there ``z_i <= project(z)_i <= r_i + L``; elsewhere ``z_i <= r_i + L + e``.  (``r_i`` is public: the
    release.)"""
    r = np.asarray(released, dtype=np.int64).reshape(k)
    L = (k - 1) * Dc
    small = r <= L
    lo = np.where(small, -W, r - L)
    lowered = r >= int(r.max()) - 2 * L - 1
    hi = r + L + np.where(lowered, int(small.sum()) * W, 0)
    return lo.astype(np.int64), hi.astype(np.int64)


#: What :func:`reach_region` builds a point of the window at, in points of its box (a slab of the first count at a
#: time): the window is made, projected, keyed and looked up all at once, about 1.1 to 1.7 us a point against 0.2 to
#: 0.8 us a point of the box (k = 4, eps 0.9 to 3, n = 45 to 1e4, besides the offsets of U(Dc) both look their points
#: up in; :data:`~dpposterior.mechanisms.lattice.REACH_BOX_SECONDS`' rates, 1.25 and 0.45 us).  So the window is built
#: only where it costs less: at n = 300, eps 1, next to a face, the box's 24 M points took about 7 CPU s where the
#: window's 13.6 M took 15.9 s.  Both give the same points in the same (lexicographic) order.
WINDOW_POINT_COST = 2.8


def reach_region(n: int, k: int, released: ArrayLike, Dc: int, W: int) -> NDArray[np.int64]:
    """Every ``z`` with ``sum z = n``, ``z_i >= -W`` and ``project(z) - r`` in :func:`reach_offsets` ``(k, Dc)``: the
    points of ``window(n, k, W)`` whose local-search output can be ``r`` (:func:`local_column`).

    Enumeration (proof).  ``project`` raises the negative counts to 0 and lowers others, so ``z_i - project(z)_i`` lies
    in ``[-W, (k - 1) W]`` (a negative count is raised to 0, so by at most W; a count is lowered by at most the excess
    ``sum max(-z, 0) <= (k - 1) W``), and ``u = project(z) - r`` has ``|u_i| <= (k - 1) Dc``: each ``z_i`` lies in
    ``[r_i - (k - 1) Dc - W, r_i + (k - 1) (Dc + W)]`` (and ``>= -W``); the box enumerated (a slab of the first count
    at a time) is the tighter :func:`reach_box_bounds`.  Where every ``r_i > (k - 1) Dc``, no ``z`` off R(n)
    qualifies (its ``project`` has a 0 count, so
    ``u_i = -r_i``), and ``r + U`` is the region (all in R(n), where ``project(z) = z``).  Where the window itself costs
    less than that box (small n: ``C(n + k W + k - 1, k - 1)`` points at :data:`WINDOW_POINT_COST` against the box's),
    the window is enumerated and kept where ``u`` is in ``U`` (the same set; its order lexicographic, as the box's);
    where moreover ``n <= Dc`` the window is the region: ``project(z)`` and ``r`` both lie in R(n), so every ``|u_i|
    <= n <= Dc`` and ``u`` is in ``U`` (``U`` is not built: 6.1 M offsets at k = 4, eps = 0.5)."""
    from .remap import project

    r = np.asarray(released, dtype=np.int64).reshape(k)
    L = (k - 1) * Dc
    route = reach_build(n, k, r, Dc, W)[1]  # the rule the run's check and the plan price
    if route == "offsets":
        return r[None, :] + reach_offsets(k, Dc)
    # the box of the first k - 1 counts (module docstring above), slab by slab of the first
    lo, hi = reach_box_bounds(k, r, Dc, W)
    if route in ("window", "whole"):
        z = window(n, k, W)
        if route == "whole":  # n <= Dc: project(z) and r both in R(n), every |u_i| <= n <= Dc, so u is in U(Dc)
            return z
        member = _key_member(_row_keys(reach_offsets(k, Dc), L), (2 * L + 1) ** (k - 1))
        u = project(z, n) - r[None, :]
        ok = np.all(np.abs(u) <= L, axis=1)
        z, u = z[ok], u[ok]
        return z[member(_row_keys(u, L))]
    member = _key_member(_row_keys(reach_offsets(k, Dc), L), (2 * L + 1) ** (k - 1))
    out = []
    rest = [np.arange(lo[i], hi[i] + 1) for i in range(1, k - 1)]
    for z0 in range(int(lo[0]), int(hi[0]) + 1):
        if rest:
            axes = np.meshgrid(*rest, indexing="ij")
            head = np.stack([np.full(axes[0].size, z0)] + [x.ravel() for x in axes], axis=1).astype(np.int64)
        else:
            head = np.array([[z0]], dtype=np.int64)
        z = np.concatenate([head, n - head.sum(axis=1, keepdims=True)], axis=1)
        z = z[z[:, -1] >= -W]
        if not len(z):
            continue
        u = project(z, n) - r[None, :]
        ok = np.all(np.abs(u) <= L, axis=1)
        z, u = z[ok], u[ok]
        hit = member(_row_keys(u, L))
        out.append(z[hit])
    return np.concatenate(out) if out else np.zeros((0, k), dtype=np.int64)


def reach_build(n: int, k: int, released: ArrayLike, Dc: int, W: int) -> tuple[int, str, int]:
    """``(points, route, offsets)``: what :func:`reach_region` builds at the release ``r`` (from the release, public,
    and n, k, Dc, W only): ``"offsets"`` where every count of ``r`` is past ``L = (k - 1) Dc`` (``|U(Dc)|`` offsets,
    :func:`reach_size`); else ``"window"`` where the window's ``C(n + k W + k - 1, k - 1)``
    points, :data:`WINDOW_POINT_COST` each, cost less than the box :func:`reach_box_bounds` gives (the product of its
    first ``k - 1`` sides), that many (``"whole"`` where moreover ``n <= Dc``: the window is the region, enumerated
    alone); else ``"box"``, the box's points; and the offsets ``U(Dc)`` it builds besides (to look the points up:
    every route but ``"whole"``).  ``reach_region`` takes the route named here, and the run's check and the plan
    price it by that route (:func:`~dpposterior.mechanisms.lattice.reach_box_seconds`), so the three cannot
    disagree."""
    r = np.asarray(released, dtype=np.int64).reshape(k)
    offsets = reach_size(k, Dc)
    if int(r.min()) > (k - 1) * Dc:
        return offsets, "offsets", offsets
    lo, hi = reach_box_bounds(k, r, Dc, W)
    box = math.prod(int(h - l) + 1 for h, l in zip(hi[:k - 1], lo[:k - 1]))
    window = math.comb(n + k * W + k - 1, k - 1)
    if WINDOW_POINT_COST * window < box:
        return (window, "whole", 0) if n <= Dc else (window, "window", offsets)
    return box, "box", offsets


def part_classes(n: int, k: int, W: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(reps, counts)``: the points of ``window(n, k, W)`` grouped by their positive part ``y = max(z, 0)``, one
    point of the window per class (``reps``) and the number of window points in it (``counts``), never enumerating
    the window (17.1 M points at k = 4, n = 10, W = 114; 1.41 M classes).

    Classes (proof).  A window point ``z`` has ``z_i = y_i`` where ``y_i > 0`` and ``z_i = -u_i``, ``0 <= u_i <= W``,
    where ``y_i = 0``; ``sum z = n`` is ``sum u = D0 = sum(y) - n``.  So the class of ``y`` (zero set ``J``, ``a =
    |J|``) holds ``M_a(D0) = #{u in [0, W]^a : sum u = D0}`` points (:func:`_bounded_count`), none where ``D0 > a
    W``.  ``D0 = 0`` is ``y = z`` in R(n) (one point, zeros allowed); ``D0 >= 1`` needs ``a >= 1`` zeros and the
    other ``k - a`` counts positive, summing to ``n + D0``.  These classes are disjoint and cover the window.  Every
    point of a class has the same ``d(z, c) = (sum_i |y_i - c_i| + D0) / 2`` to every c of R(n) (``|z_i - c_i| =
    c_i + u_i`` where ``y_i = 0``) and the same local-search output (the search reads only ``y``, the same integers:
    :func:`~dpposterior.mechanisms.lattice._outputs_m`), so a column's sum over the window's points is the sum over
    the classes of ``counts`` times one term at ``reps``.  A class's representative puts ``u`` greedily (``W`` on
    each zero in turn, the rest on the next).  Order: R(n), then by zero set (lexicographic masks) and ``D0``.
    Refused in one line (:func:`~dpposterior.models.check_size`) past the memory limit, counted before any is built."""
    from itertools import combinations

    n, k, W = int(n), int(k), int(W)
    blocks = [(J, D0) for a in range(1, k) for J in combinations(range(k), a) for D0 in range(1, a * W + 1)]
    total = part_class_count(n, k, W)
    check_size(total, 8.0 * (k + 1), f"the window's positive-part classes (k={k}, n={n}, W={W})")
    reps = np.empty((total, k), dtype=np.int64)
    counts = np.empty(total, dtype=np.int64)
    R = candidates(n, k)
    reps[:len(R)], counts[:len(R)] = R, 1
    at = len(R)
    for J, D0 in blocks:
        a = len(J)
        free = [i for i in range(k) if i not in J]
        if n + D0 < len(free):  # no positive counts sum to n + D0
            continue
        # positive counts summing to n + D0
        y = (candidates(n + D0 - len(free), len(free)) + 1 if len(free) > 1
             else np.array([[n + D0]], dtype=np.int64))
        block = np.zeros((len(y), k), dtype=np.int64)
        block[:, free] = y
        left = D0
        for i in J:  # u greedily: W on each zero in turn
            block[:, i] = -min(W, left)
            left -= min(W, left)
        reps[at:at + len(y)] = block
        counts[at:at + len(y)] = _bounded_count([0] * a, [W] * a, D0)
        at += len(y)
    return reps, counts


def part_class_count(n: int, k: int, W: int) -> int:
    """The number of :func:`part_classes` of ``window(n, k, W)``, by counting (its proof): ``|R(n)|`` plus, for each
    zero set of ``a`` counts (``1 <= a < k``) and ``1 <= D0 <= a W``, the ``C(n + D0 - 1, k - a - 1)`` positive
    compositions of ``n + D0`` into ``k - a`` parts."""
    n, k, W = int(n), int(k), int(W)
    return math.comb(n + k - 1, k - 1) + sum(math.comb(k, a) * math.comb(n + D0 - 1, k - a - 1)
                                             for a in range(1, k) for D0 in range(1, a * W + 1))


def reach_classes(n: int, k: int, released: ArrayLike, Dc: int, W: int) -> tuple[NDArray[np.int64],
                                                                                     NDArray[np.int64]]:
    """:func:`part_classes` kept where ``project(z) - r`` lies in :func:`reach_offsets` ``(k, Dc)`` (every ``u_i <=
    Dc`` or every ``u_i >= -Dc``; ``project`` reads only the positive part, so a class is kept whole): the classes of
    :func:`reach_region`'s points, with their counts, tested coordinate-wise (``U(Dc)`` never enumerated)."""
    from .remap import project

    r = np.asarray(released, dtype=np.int64).reshape(k)
    reps, counts = part_classes(n, k, W)
    keep = np.empty(len(reps), dtype=bool)
    step = 2**20
    for s in range(0, len(reps), step):
        u = project(reps[s:s + step], n) - r[None, :]
        keep[s:s + step] = np.all(u <= Dc, axis=1) | np.all(u >= -Dc, axis=1)
    return reps[keep], counts[keep]


def clamp_groups(a: ArrayLike, n: int, epsilon: float, Z: ArrayLike, Dc: int
                 ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(lead, group)``: the points ``Z`` (one a positive part, sum n) grouped so that the one-point local search
    (:func:`~dpposterior.lattice.remap.local_bayes_search`, data-set radius ``Dc``: what a draw computes) runs the
    same computation at every point of a group; ``lead`` the index of each group's searched point, ``group[j]`` the
    group of ``Z[j]`` (``-1``: not shown to share one, to be searched itself).

    Lemma (proof).  With ``y = max(z, 0)``, ``v = min(y, n)`` and ``s = sum(y - v)``: for every c of R(n) (``c_i <=
    n``), ``|y_i - c_i| = |v_i - c_i| + (y_i - v_i)``, so ``2 d(z, c) = sum_i |y_i - c_i| + sum(y) - n = sum_i |v_i -
    c_i| + sum(v) - n + 2 s`` (:func:`~dpposterior.mechanisms.lattice._outputs_m`): two points of one ``v`` have
    ``d(z', c) = d(z, c) + (s' - s)`` at every c.  ``project`` reads ``min(y, n)`` only where some ``y_i >= n`` (its
    level is at most n there), so two points of one ``v`` have the same ``p = project(z)`` (checked here, not
    assumed), hence the same data sets ``cs`` and sums ``L(c)`` (:func:`~dpposterior.lattice.remap.search_terms`,
    functions of ``p``), and log-weights ``L - eps (D + s' - s)`` with ``D`` the integers at ``z``.  The search reads
    ``z`` only through ``p``, ``cs`` and ``w = exp(lw - max lw)``; so where ``lw' - max lw'`` equals ``lw - max lw``
    float for float (computed here with the search's own operations, each entry ``L(c) - eps (D(c) + delta)``), the
    search at ``z'`` is the search at ``z``, step for step, and returns the same output.  Each group's searched point
    is one of least ``s``; the points whose floats differ (a sum ``L`` whose rounding moves with the shift) are
    returned with ``-1``.  At Dir(1, ..., 1) ``L = 0`` exactly and at eps = 0.25 every ``eps D`` is exact, so every
    point of k = 4, n = 10 (1.41 M positive parts) joins one of 4,136 groups.  Where that is known from public inputs
    (:func:`~dpposterior.lattice.batched.exact_shift_weights`, every ``d(z, c) < 2^30``: checked) the float check
    passes at every shift by that function's proof and is not run: the same groups (tested), without one search's
    terms a group (the grouping 9.6 CPU s with the check, 2.9 without, at eps 0.3, n = 18:
    ``benchmarks/clamp_groups_k4.json``)."""
    from .batched import exact_shift_weights
    from .remap import project, search_terms

    a = np.asarray(a, dtype=np.float64)
    Z = np.asarray(Z, dtype=np.int64).reshape(-1, a.size)
    eps, n, Dc = float(epsilon), int(n), int(Dc)
    y = np.maximum(Z, 0)
    v = np.minimum(y, n)
    s = (y - v).sum(axis=1)
    _, g = np.unique(v, axis=0, return_inverse=True)
    g = g.reshape(-1)
    order = np.lexsort((s, g))
    first = np.r_[True, g[order][1:] != g[order][:-1]]
    lead = order[first]  # a point of least s in each group; group j is v's j-th distinct row (sorted by g first)
    P = project(Z, n)
    group = np.full(len(Z), -1, dtype=np.int64)
    if exact_shift_weights(a, eps) and int(np.abs(Z).sum(axis=1).max(initial=0)) + n < 2**30:
        # every d(z, c) < 2^30: the float check passes at every shift (exact_shift_weights' proof), so every point
        # whose p is its lead's joins its group unchecked
        member = np.flatnonzero(np.all(P == P[lead[g]], axis=1))
        group[member] = g[member]
        return lead, group
    starts = np.flatnonzero(first)
    ends = np.r_[starts[1:], len(order)]
    for j, (lo, hi) in enumerate(zip(starts, ends)):
        members = order[lo:hi]
        z0 = Z[lead[j]]
        p0 = P[lead[j]]
        members = members[np.all(P[members] == p0[None, :], axis=1)]
        _, L, D = search_terms(a, z0, Dc, p0)
        key0 = L - eps * D
        key0 = key0 - key0.max()
        delta = s[members] - s[lead[j]]
        shifts, back = np.unique(delta, return_inverse=True)
        same = np.zeros(len(shifts), dtype=bool)
        step = max(1, BLOCK_ENTRIES // max(1, len(L)))
        for b in range(0, len(shifts), step):  # each row the search's elementwise operations at that shift
            key = L[None, :] - eps * (D[None, :] + shifts[b:b + step, None])
            same[b:b + step] = np.all(key - key.max(axis=1, keepdims=True) == key0[None, :], axis=1)
        group[members[same[back.reshape(-1)]]] = j
    return lead, group


def clamp_group_count(n: int, k: int, W: int) -> int:
    """An upper end of the groups :func:`clamp_groups` forms over :func:`part_classes` of ``window(n, k, W)``: the
    vectors ``v = min(max(z, 0), n)`` of its points, counted (each ``v_i`` in ``[0, n]``; ``a`` zeros and ``k - a``
    counts in ``[1, n]`` summing to ``n`` (``a >= 0``) or to ``n + D0``, ``1 <= D0 <= a W``: a point's excess ``sum(y) - n``
    over its clamp is taken back by the counts past n, so ``sum(v) - n <= a W``)."""
    n, k, W = int(n), int(k), int(W)
    out = 0
    for a in range(0, k):
        j = k - a
        totals = range(n, n + a * W + 1)
        out += math.comb(k, a) * sum(_bounded_count([1] * j, [n] * j, t) for t in totals)
    return out


#: The most keys :func:`_key_member` looks up in a boolean table (one byte a key: 128 MiB); past it, by a sorted array.
KEY_TABLE_MAX = 2**27


def _key_member(keys: NDArray[np.int64], size: int):
    """``f(q) = np.isin(q, keys)`` for keys and queries in ``[0, size)``, with ``keys`` read once (not sorted again at
    each call, as ``np.isin`` does: :func:`reach_region` asks once a slab, 263 slabs against 777,961 offset keys at
    k = 4, eps = 1, 158 CPU s of its 160).  Where ``size <= KEY_TABLE_MAX``: a boolean table ``T[key] = True``, so
    ``T[q]`` is membership; else the distinct keys sorted, ``i = searchsorted(S, q)`` the first index with ``S[i] >= q``,
    and ``q`` is a key iff ``i < |S|`` and ``S[i] = q``.  Either way the same booleans as ``np.isin`` (exact integer
    equality; tested)."""
    keys = np.asarray(keys, dtype=np.int64)
    if size <= KEY_TABLE_MAX:
        table = np.zeros(size, dtype=bool)
        table[keys] = True
        return lambda q: table[np.asarray(q, dtype=np.int64)]
    S = np.unique(keys)

    def member(q):
        q = np.asarray(q, dtype=np.int64)
        i = np.searchsorted(S, q)
        hit = i < len(S)
        hit[hit] = S[i[hit]] == q[hit]
        return hit

    return member


def _row_keys(u: NDArray[np.int64], L: int) -> NDArray[np.int64]:
    """An integer key per row of offsets with ``|u_i| <= L`` (its first k - 1 entries in base ``2 L + 1``)."""
    key = np.zeros(len(u), dtype=np.int64)
    for i in range(u.shape[1] - 1):
        key = key * (2 * L + 1) + (u[:, i] + L)
    return key


def local_column(n: int, k: int, epsilon: float, released: ArrayLike, region: ArrayLike, weights: ArrayLike,
                 Dk: int, W: int) -> tuple[NDArray[np.int64], NDArray[np.float64], float]:
    """``(C, ln P_S(r | c) for every c of C, leftover)``: the local column (docs/lattice.md, "The noise-aware
    posterior").

    ``region``: lattice points (sum n, every count ``>= -W``) holding every ``z`` of ``window(n, k, W)`` with
    ``T(z, r) > 0``; ``weights``: ``T(z, r)`` at each (0 where the remap does not output r).  With ``S`` the points of
    positive weight, ``M = max over S of d(z, r)`` and ``C = {c in R(n) : d(c, r) <= M + Dk}``,
    ``P_S(r | c) = sum over S of K(z | c) T(z, r)``.

    Bound (proof).  Every term is ``>= 0`` and ``T <= 1``.  A ``z`` with ``T(z, r) > 0`` is in ``S`` or off the
    window (some ``z_i < -W``, so ``d(z - c) > W`` for every c of R(n)), so ``P_S(r | c) <= P(r | c) <= P_S(r | c) +
    tail_bound(k, eps, W)`` for every c of R(n).  A c off C has ``d(z - c) >= d(c - r) - d(z - r) > Dk`` for every z
    of S (``d`` is a norm), so ``P_S(r | c) <= tail_bound(k, eps, Dk)``.  Hence for any prior ``pi`` the
    prior-weighted mass ``sum_c pi(c) P(r | c)`` left out of ``sum_{c in C} pi(c) P_S(r | c)`` is at most
    ``leftover = tail_bound(k, eps, W) + tail_bound(k, eps, Dk)`` (the pi summing to at most 1)."""
    eps = _validate.epsilon(epsilon)
    r = np.asarray(released, dtype=np.int64).reshape(k)
    Z = np.asarray(region, dtype=np.int64).reshape(-1, k)
    t = np.asarray(weights, dtype=np.float64).reshape(-1)
    S, wts = Z[t > 0], t[t > 0]
    leftover = tail_bound_of(int(k), eps, int(W)) + tail_bound_of(int(k), eps, int(Dk))
    if not len(S):
        return np.zeros((0, k), dtype=np.int64), np.zeros(0), leftover
    M = int((np.abs(S - r[None, :]).sum(axis=1) // 2).max())
    C = near_data_sets(int(n), r, M + int(Dk))
    return C, column_from_points(C, eps, S, wts), leftover


def near_data_sets(n: int, released: ArrayLike, R: int) -> NDArray[np.int64]:
    """``{c in R(n) : d(c, r) <= R}``, lexicographic (the order of ``r + ball(R)`` kept where ``c >= 0``), enumerated a
    slab of the first count at a time over the box ``max(0, r_i - R) <= c_i <= r_i + R`` (so the ball's points off
    R(n) are never held); refused in one line (:func:`~dpposterior.models.check_size`) past the memory limit, counted
    as the ball's ``sum_t N_k(t)`` points (at most ``|R(n)|``) of ``k + 4`` floats (the data sets, their column and
    weights) before any is built."""
    r = np.asarray(released, dtype=np.int64).reshape(-1)
    k, R = r.size, int(R)
    most = min(sum(sphere_count(k, t) for t in range(R + 1)), math.comb(int(n) + k - 1, k - 1))
    check_size(most, 8.0 * (k + 4), f"the local column's data sets within {R} of the release (k={k}, n={n})")
    lo, hi = np.maximum(r - R, 0), r + R
    rest = [np.arange(lo[i], hi[i] + 1) for i in range(1, k - 1)]
    if rest:
        axes = np.meshgrid(*rest, indexing="ij")
        mid = np.stack([x.ravel() for x in axes], axis=1).astype(np.int64)
    else:
        mid = np.zeros((1, 0), dtype=np.int64)
    mid = mid[np.abs(mid - r[None, 1:k - 1]).sum(axis=1) <= 2 * R]
    # each slab written into one array of the counted size at most (its pages touched only where written), so the
    # data sets are held once, not as slabs and their concatenation
    whole = np.empty((most, k), dtype=np.int64)
    at = 0
    for c0 in range(int(lo[0]), int(hi[0]) + 1):
        head = np.concatenate([np.full((len(mid), 1), c0, dtype=np.int64), mid], axis=1)
        c = np.concatenate([head, n - head.sum(axis=1, keepdims=True)], axis=1)
        c = c[(c[:, -1] >= 0) & (np.abs(c - r[None, :]).sum(axis=1) <= 2 * R)]
        whole[at:at + len(c)] = c
        at += len(c)
    return whole[:at]


def reach_size(k: int, Dc: int) -> int:
    """``|U(Dc)|`` (:func:`reach_offsets`) by counting: ``A = {u : sum u = 0, u_i <= Dc}`` has ``C(k Dc + k - 1,
    k - 1)`` points (``Dc - u_i >= 0`` summing to ``k Dc``), ``-A`` as many, and ``A`` and ``-A`` share
    ``{|u_i| <= Dc}``, counted by inclusion-exclusion over the coordinates past ``Dc``."""
    a = math.comb(k * Dc + k - 1, k - 1)
    # points with every |u_i| <= Dc and sum 0: v = u + Dc in [0, 2 Dc], summing to k Dc
    both = sum((-1) ** j * math.comb(k, j) * math.comb(k * Dc - j * (2 * Dc + 1) + k - 1, k - 1)
               for j in range(k + 1) if k * Dc - j * (2 * Dc + 1) >= 0)
    return 2 * a - both


def _bounded_count(lo: list[int], hi: list[float], total: int = 0) -> int:
    """``#{u in Z^k : lo_i <= u_i <= hi_i, sum u = total}`` (``hi_i`` may be ``math.inf``): with ``v = u - lo >= 0``
    summing to ``T = total - sum lo``, inclusion-exclusion over the coordinates past their width ``b_i = hi_i - lo_i``
    (``v_i >= b_i + 1`` for the i of a subset S: ``C(T - sum_S (b_i + 1) + k - 1, k - 1)`` points, 0 where negative)."""
    from itertools import combinations

    k = len(lo)
    T = int(total) - sum(int(x) for x in lo)
    if T < 0:
        return 0
    widths = [int(h) - int(x) for h, x in zip(hi, lo) if h != math.inf]
    if any(b < 0 for b in widths):
        return 0
    out = 0
    for j in range(len(widths) + 1):
        for S in combinations(widths, j):
            rest = T - sum(b + 1 for b in S)
            if rest >= 0:
                out += (-1) ** j * math.comb(rest + k - 1, k - 1)
    return out


def reach_inside_count(c0: ArrayLike, Dc: int) -> int:
    """``#{u in U(Dc) : c0 + u >= 0}`` (:func:`reach_offsets`; the offsets of ``c0 + U(Dc)`` in R(n)) by counting,
    never enumerating ``U(Dc)`` (at k = 4, Dc = 144: 1.3e8 points).  ``U = A | -A`` with ``A = {sum u = 0, u_i <=
    Dc}``, ``-A = {sum u = 0, u_i >= -Dc}``, ``A & -A = {sum u = 0, |u_i| <= Dc}``, so by inclusion-exclusion the count
    is that of ``A`` (``-c0_i <= u_i <= Dc``) plus ``-A`` (``u_i >= max(-Dc, -c0_i)``) less both (``max(-Dc, -c0_i) <=
    u_i <= Dc``), each :func:`_bounded_count`."""
    c0 = [int(x) for x in np.asarray(c0, dtype=np.int64).reshape(-1)]
    Dc = int(Dc)
    low = [max(-Dc, -x) for x in c0]
    return (_bounded_count([-x for x in c0], [Dc] * len(c0)) + _bounded_count(low, [math.inf] * len(c0))
            - _bounded_count(low, [Dc] * len(c0)))


# -- the descent filter: the points of the reach region whose search can end at r ------------------------------------

#: Entries (points x radii) of one block of :func:`descent_filter`'s sums.
FILTER_BLOCK_ENTRIES = 2**19
#: The float allowance of :func:`descent_filter`, in Hellinger units: the search's computed risks each lie within
#: ``mu W`` of the exact ones (``mu <= 1e-7``, a hundred times :data:`~.remap.FLOAT_MARGIN` and the rounding of a
#: weighted sum), and a descent of at most :data:`~.remap.SEARCH_STEPS` moves compares them that many times.
DESCENT_MARGIN = 2 * 256 * 1e-7


def _coordinate_terms(ai: float, n: int, values: NDArray[np.int64], t: NDArray[np.int64]):
    """One coordinate's tables of :func:`_descent_terms` at the counts ``values`` (rows) and radii ``t`` (columns):
    ``(g, s_up, s_dn, q_hi, q_lo)``: the largest ``|J|`` at ``|c_i - v| = t``, the largest ``|J| / delta`` over a rise
    (and over a fall) ``1 <= delta <= t``, and ``ln pi_i(c_i) - ln pi_i(v)`` at most and at least over ``|c_i - v| =
    t`` (an end point: monotone in ``c_i``).  Each entry a function of its ``(v, t)`` alone (element by element), so
    a table over more values holds the same floats at the values they share."""
    v = np.asarray(values, dtype=np.int64)[:, None]
    up, dn = np.minimum(v + t[None, :], n), np.maximum(v - t[None, :], 0)
    j_up, j_dn = -lgamma_jensen_gap(ai + up, ai + v + 0.0), -lgamma_jensen_gap(ai + dn, ai + v + 0.0)
    gi = np.maximum(j_up, j_dn)
    with np.errstate(divide="ignore", invalid="ignore"):
        r_up = np.maximum.accumulate(np.where(up > v, j_up / (up - v), 0.0), axis=1)
        r_dn = np.maximum.accumulate(np.where(dn < v, j_dn / (v - dn), 0.0), axis=1)
    f_up = gammaln(ai + up) - gammaln(up + 1.0)
    f_dn = gammaln(ai + dn) - gammaln(dn + 1.0)
    f_at = gammaln(ai + v) - gammaln(v + 1.0)
    return gi, r_up, r_dn, np.maximum(f_up, f_dn) - f_at, np.minimum(f_up, f_dn) - f_at


def _descent_terms(prior: ArrayLike, n: int, epsilon: float, Z: NDArray[np.int64], Dc: int, share: float):
    """Per block of the points ``Z``: ``(lo, hi, log_A, log_h)``, rows ``lo:hi``, columns the radii ``t = 0..Dc``:
    ``A_t`` bounds the weight of the data sets at ``d(c, p) = t`` over the search's kept weight and ``h_t`` bounds
    their ``H(c, p)`` (:func:`descent_filter`, the proof), in log space."""
    from .remap import project

    a = np.asarray(prior, dtype=np.float64)
    k, n, eps, Dc = a.size, int(n), float(epsilon), int(Dc)
    t = np.arange(Dc + 1)
    log_N = np.log(np.array([float(sphere_count(k, int(s))) for s in t]))
    log_cone_t = np.log(np.array([float(math.comb(int(s) + k - 2, k - 2)) for s in t]))
    step = max(1, FILTER_BLOCK_ENTRIES // (Dc + 1))
    for lo in range(0, len(Z), step):
        z = Z[lo:lo + step]
        p = project(z, n)
        D0 = np.maximum(-z, 0).sum(axis=1)  # d(z, p): p is a nearest point of R(n)
        G = np.zeros((len(z), Dc + 1))  # sum_i max |J| over |c_i - p_i| <= t
        s_up = np.zeros((len(z), Dc + 1))  # max_i of the largest |J| / delta over a rise 1 <= delta <= t of count i
        s_dn = np.zeros((len(z), Dc + 1))  # and over a fall
        qmax = np.zeros((len(z), Dc + 1))  # ln pi(c) - ln pi(p) at most, over |c_i - p_i| <= t
        qmin = np.zeros((len(z), Dc + 1))  # and at least
        for i in range(k):
            x = p[:, i]
            vlo, vhi = int(x.min()), int(x.max())
            gi, r_up, r_dn, q_hi, q_lo = _coordinate_terms(a[i], n, np.arange(vlo, vhi + 1), t)
            row = x - vlo
            G += gi[row]
            np.maximum(s_up, r_up[row], out=s_up)
            np.maximum(s_dn, r_dn[row], out=s_dn)
            qmax += q_hi[row]
            qmin += q_lo[row]
        G = np.minimum(G, t[None, :] * (s_up + s_dn))
        # in log space (a prior far from 1 moves ln pi by hundreds across the ball)
        with np.errstate(divide="ignore"):
            log_h = 0.5 * np.log(-np.expm1(-G))  # -inf at t = 0
        over = np.maximum(t[None, :] - D0[:, None], 0)
        m = np.minimum(p.min(axis=1), Dc)  # the ball d(c, p) <= m lies in R(n)
        m2 = np.minimum(p.max(axis=1), Dc)  # the cone: one coordinate down by t, the others up
        base = qmin - eps * t[None, :]
        log_ball = _row_lse(np.where(t[None, :] <= m[:, None], base + log_N[None, :], -np.inf))
        log_cone = _row_lse(np.where(t[None, :] <= m2[:, None], base + log_cone_t[None, :], -np.inf))
        log_A = (qmax + log_N[None, :] - eps * over
                 - (np.maximum(log_ball, log_cone) + math.log1p(-2.0 * share))[:, None])
        yield lo, lo + len(z), log_A, log_h


def descent_bound(prior: ArrayLike, n: int, epsilon: float, points: ArrayLike, Dc: int,
                  share: float | None = None) -> NDArray[np.float64]:
    """``B(z) = sum_t A_t h_t >= S_z(p) / W_z`` at each point ``z`` (rows summing to n, any integers): an upper bound on
    the weighted mean loss ``sum_K w(c) H(c, p) / sum_K w(c)`` of the local search at z (:func:`.remap.
    local_bayes_search`, ``p = project(z)``, ``K`` its kept data sets), from public tables only (:func:`descent_filter`,
    the proof)."""
    from .remap import SEARCH_SHARE

    a = np.asarray(prior, dtype=np.float64)
    share = SEARCH_SHARE if share is None else float(share)
    Z = np.asarray(points, dtype=np.int64).reshape(-1, a.size)
    out = np.empty(len(Z))
    for lo, hi, log_A, log_h in _descent_terms(a, n, epsilon, Z, Dc, share):
        out[lo:hi] = np.exp(np.minimum(_row_lse(log_A + log_h), 700.0))
    return out


def descent_reach(prior: ArrayLike, n: int, epsilon: float, points: ArrayLike, distances: ArrayLike, Dc: int,
                  share: float | None = None) -> NDArray[np.float64]:
    """``2 sum_t A_t min(h, h_t)`` at each point ``z`` with ``h`` its entry of ``distances``: what the descent lemma
    allows ``H(project(z), r)`` to be for an output ``r`` at ``H(project(z), r) = h`` (:func:`descent_filter`, the
    proof); at most ``2 B(z)`` (:func:`descent_bound`)."""
    from .remap import SEARCH_SHARE

    a = np.asarray(prior, dtype=np.float64)
    share = SEARCH_SHARE if share is None else float(share)
    Z = np.asarray(points, dtype=np.int64).reshape(-1, a.size)
    h = np.asarray(distances, dtype=np.float64).reshape(-1)
    out = np.empty(len(Z))
    for lo, hi, log_A, log_h in _descent_terms(a, n, epsilon, Z, Dc, share):
        with np.errstate(divide="ignore"):
            log_min = np.minimum(log_h, np.log(h[lo:hi])[:, None])
        out[lo:hi] = 2.0 * np.exp(np.minimum(_row_lse(log_A + log_min), 700.0))
    return out


def _row_lse(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``ln sum_j e^(x_ij)`` of each row (``-inf`` for a row of ``-inf``), by its largest entry."""
    top = x.max(axis=1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(x - safe[:, None]).sum(axis=1))


def descent_filter(prior: ArrayLike, n: int, epsilon: float, released: ArrayLike, points: ArrayLike, Dc: int,
                   share: float | None = None) -> NDArray[np.bool_]:
    """False at the points ``z`` whose local search (:func:`.remap.local_bayes_search`, data-set radius ``Dc``, kept
    share ``share``) cannot output ``r = released``; True at the rest (docs/lattice.md, "The noise-aware posterior").

    Descent lemma (proof, exact arithmetic).  The search weighs its kept data sets ``K`` (``w(c) = pi(c) e^(-eps d(z,
    c)) > 0``, ``W = sum_K w``) and moves from ``p = project(z)`` to a neighbour of strictly smaller risk ``S(r) =
    sum_K w(c) H(c, r)`` until none is smaller, so its output has ``S(r) <= S(p)``.  ``H`` (the Hellinger distance)
    is a metric, so ``H(p, r) <= H(c, p) + H(c, r)`` for every c, and summed with the weights ``W H(p, r) <= S(p) +
    S(r) <= 2 S(p)``: the output satisfies ``H(p, r) <= 2 S(p) / W``.  Bound on ``S(p) / W``: ``K`` lies in ``C = {c in
    R(n) : d(c, p) <= Dc}`` and holds at least ``1 - share`` of its weight, so ``S(p) / W <= sum_C w H(c, p) / ((1 -
    share) sum_C w)``.  Numerator: ``p`` is a nearest point of R(n) to z (``D0 = d(z, p)``, the negative part of z),
    and ``d(c, p) <= d(z, c) - d(z, p) + D0`` (coordinate by coordinate: ``p_i = 0`` where ``z_i < 0``, ``p_i <= z_i``
    elsewhere), so ``w(c) <= pi(c) e^(-eps (d(c, p) - D0)^+)`` up to the factor ``e^(-eps D0)`` shared by every term;
    at ``d(c, p) = t`` there are at most ``N_k(t)`` data sets (:func:`.noise.sphere_count`), each with ``|c_i - p_i| <=
    t``, so ``ln pi(c) <= ln pi(p) + qmax(p, t)`` (per coordinate ``lnGamma(a_i + x) - lnGamma(x + 1)`` is monotone in
    x: an end point) and ``-ln BC(c, p) = sum_i |J(a_i + c_i, a_i + p_i)| <= G(p, t)``, the smaller of two bounds: the
    sum of each coordinate's largest ``|J|`` at ``|c_i - p_i| = t`` (``|J(x, y)|`` grows as x moves away from y); and
    ``t (max_i s+_i(t) + max_i s-_i(t))``, ``s+_i(t)`` the largest ``|J(a_i + p_i + delta, a_i + p_i)| / delta`` over
    ``1 <= delta <= t`` (and ``p_i + delta <= n``), ``s-_i`` the same over falls: the counts that rise do so by
    ``delta_i`` summing to exactly ``t`` (``sum (c - p) = 0``, ``sum |c - p| = 2 t``), each ``|J| <= delta_i s+_i(t)``
    (the largest ratio over the same range, no convexity needed), and likewise the falls.  So ``H(c, p) <= h_t =
    sqrt(1 - e^(-G(p, t)))``.  Denominator: ``w(c) >= pi(c) e^(-eps d(c, p))`` times the same factor (``d(z, c) <= D0 +
    d(p, c)``), summed over the ball ``d(c, p) <= m``, ``m = min(Dc, min_i p_i)`` (in R(n)), or over the cone of the c
    with one coordinate ``j`` (the largest of p) down by ``t <= min(Dc, p_j)`` and the others up (``C(t + k - 2, k - 2)``
    data sets at ``t``), each with ``ln pi(c) >= ln pi(p) + qmin(p, t)``.  With ``A_t`` the sphere's weight bound over
    the denominator's (and ``1 - 2 share``), ``S(p) / W <= B(z) = sum_t A_t h_t`` (:func:`descent_bound`) and an output
    r has ``H(p, r) <= 2 B(z)``.

    Sharper (proof).  With ``h = H(p, r)``, for every c: ``H(c, r) - H(c, p) >= h - 2 min(h, H(c, p))`` (if ``H(c, p) >=
    h``, the triangle ``H(c, p) <= H(c, r) + h``; else ``H(c, r) >= h - H(c, p)``).  Weighted over K, ``0 >= S(r) - S(p)
    >= W h - 2 sum_K w min(h, H(c, p))``; the sum over K is at most that over C, each ``min(h, H(c, p)) <= min(h, h_t)``
    at ``d(c, p) = t``, and W is bounded below as above, so ``h <= 2 sum_t A_t min(h, h_t)`` (:func:`descent_reach`, at
    most ``2 B(z)``): the test made at each z, at its own ``h = H(project(z), r)``.  Floats: the search compares
    computed risks, each within ``mu W`` of its exact value, at most ``SEARCH_STEPS`` times, so ``S(r) <= S(p) + 2
    SEARCH_STEPS mu W`` and the test allows :data:`DESCENT_MARGIN` beyond it.  Unlike the reach lemma
    (:func:`local_column`) this uses neither the search's step cap nor exact float order; what it assumes is ``mu <=
    1e-7`` (a risk's rounding, far below it in every measured case)."""
    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    r = np.asarray(released, dtype=np.int64).reshape(k)
    Z = np.asarray(points, dtype=np.int64).reshape(-1, k)
    from .remap import project

    H = np.empty(len(Z))
    step = max(1, FILTER_BLOCK_ENTRIES // k)
    for lo in range(0, len(Z), step):
        p = project(Z[lo:lo + step], int(n))
        log_bc = sum(lgamma_jensen_gap(a[i] + p[:, i], a[i] + float(r[i])) for i in range(k))
        H[lo:lo + step] = hellinger_from_log_bc(log_bc)
    # the exact pre-filter (descent_cut): every point past the cut fails the test below; the test at the rest
    cand = np.flatnonzero(H <= descent_cut(a, n, epsilon, Z, Dc, share))
    keep = np.zeros(len(Z), dtype=bool)
    if len(cand):
        keep[cand] = H[cand] <= descent_reach(a, n, epsilon, Z[cand], H[cand], Dc, share) * (1 + 1e-9) + DESCENT_MARGIN
    return keep


#: The pre-filter's allowance (:func:`descent_cut`) on ``ln A_t``: an absolute part and a share of the magnitudes
#: entering it, far above the rounding of either computation of the same sums (a few ulps of those magnitudes).
CUT_SLACK = (1e-6, 1e-9)


def descent_cut(prior: ArrayLike, n: int, epsilon: float, points: ArrayLike, Dc: int,
                share: float | None = None) -> float:
    """``h*``: every point ``z`` of ``points`` with ``H(project(z), r) > h*`` fails :func:`descent_filter`'s test
    ``h <= 2 sum_t A_t(z) min(h, h_t(z)) (1 + 1e-9) + DESCENT_MARGIN`` (any r), so only the points at or below it
    need their own ``A_t(z)``, ``h_t(z)`` (``1.0`` where the test may hold at every h: nothing dropped).

    Proof (exact arithmetic).  Over the points, ``A_t(z) <= Abar_t`` and ``h_t(z) <= hbar_t`` for every t: each of
    :func:`_descent_terms`' per-point quantities is a sum or maximum over the coordinates of one table entry at
    ``p_i = project(z)_i`` (:func:`_coordinate_terms`), so the entry's largest (smallest) value over the coordinate's
    range ``[min p_i, max p_i]`` bounds it: ``G(z, t) <= min(sum_i max_v g_i, t (max_{i,v} s+_i + max_{i,v} s-_i))``
    (``h_t`` increases in G), ``qmax(z, t) <= sum_i max_v q_hi``, ``qmin(z, t) >= sum_i min_v q_lo``, the kernel's
    ``eps (t - D0)^+ >= eps (t - max D0)^+``, and the denominator's ball and cone over ``t <= m(z)`` (``t <= m2(z)``)
    hold those over ``t <= min m`` (``min m2``), each term at least its bound (terms ``>= 0``), so ``ln A_t(z) <=
    ln Abar_t``.  Hence ``f_z(h) = 2 sum_t A_t(z) min(h, h_t(z)) c + mu <= f(h) = 2 sum_t Abar_t min(h, hbar_t) c +
    mu`` (``c = 1 + 1e-9``, ``mu = DESCENT_MARGIN``).  ``f(h) - mu`` over h does not increase (each ``min(h, x) / h``
    does not) and ``mu / h`` falls, so where ``f(h0) < h0``, every ``h > h0`` has ``f(h) = h ((f(h) - mu) / h) + mu
    <= h (f(h0) - mu) / h0 + mu < h (h0 - mu) / h0 + mu <= h``: the set where the test can hold is an interval
    ``[0, h*]``, found by bisection (``f(0) >= mu > 0``), and every point with ``H > h*`` fails it.  Floats:
    ``ln Abar_t`` is raised by :data:`CUT_SLACK` (``1e-6`` plus ``1e-9`` of the magnitudes entering it), far above
    the rounding of the same sums in either computation, so the points the pre-filter drops are dropped by the
    per-point test as computed (tested: the same kept points with and without it)."""
    from .remap import project

    a = np.asarray(prior, dtype=np.float64)
    k, n, Dc = a.size, int(n), int(Dc)
    Z = np.asarray(points, dtype=np.int64).reshape(-1, k)
    if not len(Z):
        return 1.0
    D0, m, m2 = 0, Dc, Dc
    vlo, vhi = np.full(k, np.iinfo(np.int64).max), np.full(k, np.iinfo(np.int64).min)
    step = max(1, FILTER_BLOCK_ENTRIES // k)
    for lo in range(0, len(Z), step):
        z = Z[lo:lo + step]
        p = project(z, n)
        vlo, vhi = np.minimum(vlo, p.min(axis=0)), np.maximum(vhi, p.max(axis=0))
        D0 = max(D0, int(np.maximum(-z, 0).sum(axis=1).max()))
        m, m2 = min(m, int(p.min(axis=1).min())), min(m2, int(p.max(axis=1).min()))
    return _cut_of(a, n, epsilon, Dc, share, vlo, vhi, D0, m, m2)


def _cut_of(a: NDArray[np.float64], n: int, epsilon: float, Dc: int, share: float | None, vlo: NDArray[np.int64],
            vhi: NDArray[np.int64], D0: int, m: int, m2: int) -> float:
    """:func:`descent_cut` from the points' summary: each coordinate of their projections within ``[vlo_i, vhi_i]``,
    ``d(z, project(z)) <= D0``, ``min(Dc, min_i p_i) >= m`` and ``min(Dc, max_i p_i) >= m2`` (wider ranges and smaller
    ``m``, ``m2`` give a cut at least as high: the bounds only grow)."""
    from .remap import SEARCH_SHARE

    share = SEARCH_SHARE if share is None else float(share)
    k, eps, Dc = a.size, float(epsilon), int(Dc)
    t = np.arange(Dc + 1)
    log_N = np.log(np.array([float(sphere_count(k, int(s))) for s in t]))
    log_cone_t = np.log(np.array([float(math.comb(int(s) + k - 2, k - 2)) for s in t]))
    g_sum, s_up, s_dn = np.zeros(Dc + 1), np.zeros(Dc + 1), np.zeros(Dc + 1)
    q_hi, q_lo = np.zeros(Dc + 1), np.zeros(Dc + 1)
    rows = max(1, FILTER_BLOCK_ENTRIES // (Dc + 1))
    for i in range(k):
        g_i, q_hi_i, q_lo_i = np.zeros(Dc + 1), np.full(Dc + 1, -np.inf), np.full(Dc + 1, np.inf)
        for v0 in range(int(vlo[i]), int(vhi[i]) + 1, rows):
            gi, r_up, r_dn, qh, ql = _coordinate_terms(a[i], n, np.arange(v0, min(v0 + rows, int(vhi[i]) + 1)), t)
            np.maximum(g_i, gi.max(axis=0), out=g_i)
            np.maximum(s_up, r_up.max(axis=0), out=s_up)
            np.maximum(s_dn, r_dn.max(axis=0), out=s_dn)
            np.maximum(q_hi_i, qh.max(axis=0), out=q_hi_i)
            np.minimum(q_lo_i, ql.min(axis=0), out=q_lo_i)
        g_sum += g_i
        q_hi += q_hi_i
        q_lo += q_lo_i
    G = np.minimum(g_sum, t * (s_up + s_dn))
    with np.errstate(divide="ignore"):
        log_h = 0.5 * np.log(-np.expm1(-G))  # -inf at t = 0
    base = q_lo - eps * t
    log_ball = _row_lse(np.where(t <= m, base + log_N, -np.inf)[None, :])[0]
    log_cone = _row_lse(np.where(t <= m2, base + log_cone_t, -np.inf)[None, :])[0]
    den = max(log_ball, log_cone) + math.log1p(-2.0 * share)
    log_A = q_hi + log_N - eps * np.maximum(t - D0, 0) - den
    log_A += CUT_SLACK[0] + CUT_SLACK[1] * (np.abs(q_hi) + log_N + eps * t + float(np.abs(base).max()) + abs(den))

    def holds(h: float) -> bool:
        with np.errstate(divide="ignore"):
            log_min = np.minimum(log_h, math.log(h) if h > 0 else -np.inf)
        reach = 2.0 * math.exp(min(float(_row_lse((log_A + log_min)[None, :])[0]), 700.0))
        return h <= reach * (1 + 1e-9) + DESCENT_MARGIN

    if holds(1.0):
        return 1.0
    lo_h, hi_h = 0.0, 1.0
    for _ in range(60):
        mid = 0.5 * (lo_h + hi_h)
        if holds(mid):
            lo_h = mid
        else:
            hi_h = mid
    return hi_h


#: Most points of the ball :func:`filtered_estimate` scans (its largest radius).
ESTIMATE_BALL_POINTS = 2**19


def filtered_estimate(prior: ArrayLike, n: int, epsilon: float, Dc: int) -> tuple[int, int] | None:
    """``(points, radius)``: an estimate, from public inputs, of how many points :func:`descent_filter` keeps for a
    release at the centre of R(n) and how far they lie from it (for a plan; not a bound).  The points ``c0 + v`` of
    the balls ``d(v) <= R`` (R doubling from 4) in R(n) with ``H(c0 + v, c0) <= h*``, the largest ``h`` the filter
    keeps at the centre ``c0`` (:func:`descent_reach`), until the outer shell ``R/2 < d(v) <= R`` holds none; None
    where the ball reaches :data:`ESTIMATE_BALL_POINTS` points first."""
    got = filtered_points(prior, n, epsilon, Dc)
    if got is None:
        return None
    d = np.abs(got - _centre(got.shape[1], int(n))[None, :]).sum(axis=1) // 2
    return len(got), int(d.max())


def _centre(k: int, n: int) -> NDArray[np.int64]:
    """The centre ``c0`` of R(n): ``n // k`` in every count, the remainder one each on the first counts."""
    c0 = np.full(k, n // k, dtype=np.int64)
    c0[: n - int(c0.sum())] += 1
    return c0


def filtered_points(prior: ArrayLike, n: int, epsilon: float, Dc: int) -> NDArray[np.int64] | None:
    """The points :func:`filtered_estimate` counts (the ``c0 + v`` in R(n) with ``H(c0 + v, c0) <= h*``, the
    descent filter's largest kept ``h`` at the centre ``c0``), for a plan (not a bound); None where not estimated."""
    from .remap import SEARCH_SHARE

    a = np.asarray(prior, dtype=np.float64)
    k, n = a.size, int(n)
    c0 = np.full(k, n // k, dtype=np.int64)
    c0[: n - int(c0.sum())] += 1
    # the filter keeps h = H(c0 + v, c0) where h <= 2 sum_t A_t min(h, h_t) (1 + 1e-9) + margin: as that over h does
    # not increase in h, an interval [0, h*], h* by bisection
    _, _, log_A, log_h = next(_descent_terms(a, n, epsilon, c0[None, :], Dc, SEARCH_SHARE))
    with np.errstate(over="ignore"):  # an A_t past the float range keeps every h (hi_h = 1), as its inf compares
        A, h_t = np.exp(log_A[0]), np.exp(log_h[0])
    lo_h, hi_h = 0.0, 1.0
    for _ in range(60):
        mid = 0.5 * (lo_h + hi_h)
        if mid <= 2.0 * float(np.sum(A * np.minimum(mid, h_t))) * (1 + 1e-9) + DESCENT_MARGIN:
            lo_h = mid
        else:
            hi_h = mid
    return _centre_ball(a, n, c0, hi_h, points=True)


def cut_estimate(prior: ArrayLike, n: int, epsilon: float, Dc: int) -> int | None:
    """An estimate, from public inputs, of how many points of the reach region of a release at the centre ``c0`` of
    R(n) lie at or below :func:`descent_cut` (the points :func:`descent_filter` tests one by one; for a plan, not a
    bound): the cut from the region's summary (coordinates within ``(k - 1) Dc`` of ``c0``, all in R(n) where
    ``min c0 > (k - 1) Dc``; else None), then the points ``c0 + v`` with ``H(c0 + v, c0)`` at or below it
    (:func:`filtered_estimate`'s scan; None where its ball grows past :data:`ESTIMATE_BALL_POINTS`)."""
    a = np.asarray(prior, dtype=np.float64)
    k, n, Dc = a.size, int(n), int(Dc)
    c0 = np.full(k, n // k, dtype=np.int64)
    c0[: n - int(c0.sum())] += 1
    L = (k - 1) * Dc
    if int(c0.min()) <= L:
        return None
    cut = _cut_of(a, n, epsilon, Dc, None, c0 - L, np.minimum(c0 + L, n), 0, min(Dc, int(c0.min()) - L),
                  min(Dc, -(-n // k)))
    got = _centre_ball(a, n, c0, cut)
    return None if got is None else got[0]


def _centre_ball(a: NDArray[np.float64], n: int, c0: NDArray[np.int64], threshold: float, points: bool = False):
    """``(points, radius)`` of ``{c0 + v in R(n) : H(c0 + v, c0) <= threshold}`` (the points themselves where
    ``points``), scanned over the balls ``d(v) <= R`` (R doubling from 4) until the outer shell ``R/2 < d(v) <= R``
    holds none; None where the ball reaches :data:`ESTIMATE_BALL_POINTS` points first."""
    from .remap import _ball

    k = a.size
    R = 4
    while sum(sphere_count(k, t) for t in range(R + 1)) <= ESTIMATE_BALL_POINTS:
        v = _ball(k, R)
        c = c0[None, :] + v
        inside = np.all(c >= 0, axis=1)
        c, d = c[inside], np.abs(v[inside]).sum(axis=1) // 2
        log_bc = sum(lgamma_jensen_gap(a[i] + c[:, i], a[i] + float(c0[i])) for i in range(k))
        hit = hellinger_from_log_bc(log_bc) <= threshold
        if not np.any(hit & (d > R // 2)):
            return c[hit] if points else (int(hit.sum()), int(d[hit].max()))
        R *= 2
    return None


# -- the risk filter: the search's risk at r against its risk at its start, summed coordinate by coordinate ----------

#: Radius of the ball around ``project(z)`` whose terms :func:`risk_filter` sums exactly (its lower bound ``Lp``).
RISK_BALL = 2
#: The splits ``lam`` of :func:`risk_filter`'s sums: ``d(z, c) = (1 - lam) D0 + sum_i [(1 - lam) (c_i - y_i)^+ + lam
#: (y_i - c_i)^+]`` for c in R(n), each a product bound; the least is kept (0 suits points far off R(n), 1/2 the rest).
RISK_SPLITS = (0.0, 0.5)
#: Points of one block of :func:`risk_filter`'s sums.
RISK_BLOCK_POINTS = 2**14


class _RangeSums:
    """``ln sum_{lo <= x <= hi} e^(f(x))`` for any range of a sequence ``f`` (values ``x0 .. x0 + len - 1``): a sparse
    table of log-sums over the blocks ``[x, x + 2^L)``; a range is the disjoint union of one block per binary digit of
    its length, each starting where the last ends (exact up to rounding)."""

    def __init__(self, f: NDArray[np.float64], x0: int):
        self.x0 = int(x0)
        self.levels = [np.asarray(f, dtype=np.float64)]
        while 2 ** len(self.levels) <= len(f):
            prev, h = self.levels[-1], 2 ** (len(self.levels) - 1)
            self.levels.append(np.logaddexp(prev[:-h], prev[h:]))

    def sum(self, lo: NDArray[np.int64], hi: NDArray[np.int64]) -> NDArray[np.float64]:
        """``ln sum_{lo <= x <= hi} e^(f(x))`` per pair (``-inf`` where ``lo > hi``)."""
        size = np.maximum(hi - lo + 1, 0)
        at = lo - self.x0
        out = np.full(len(lo), -np.inf)
        for level in range(len(self.levels) - 1, -1, -1):
            take = (size >> level) & 1 == 1
            if take.any():
                out[take] = np.logaddexp(out[take], self.levels[level][at[take]])
                at[take] += 2 ** level
        return out


def risk_bounds(prior: ArrayLike, n: int, epsilon: float, released: ArrayLike, points: ArrayLike, Dc: int
                ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """``(ln Lp, ln Ur, ln U, slack)`` at each point ``z`` (rows summing to n, any integers), in one unit of weight per
    point: ``Lp <= sum_C w(c) BC(c, p)``, ``Ur >= sum_C w(c) BC(c, r)``, ``U >= sum_C w(c)`` over the local search's
    data sets ``C = {c in R(n) : d(c, p) <= Dc}``, ``p = project(z)``, ``w(c) = pi(c) e^(-eps d(z, c))``, ``BC`` the
    Bhattacharyya coefficient of the posteriors (:func:`risk_filter`, the proof); ``slack`` bounds the float error of
    each logarithm."""
    from .remap import _ball, project

    a = np.asarray(prior, dtype=np.float64)
    k, n, eps, Dc = a.size, int(n), float(epsilon), int(Dc)
    r = np.asarray(released, dtype=np.int64).reshape(k)
    Z = np.asarray(points, dtype=np.int64).reshape(-1, k)
    V = _ball(k, min(RISK_BALL, Dc))
    out = [np.empty(len(Z)) for _ in range(3)]
    slack = np.empty(len(Z))
    for lo in range(0, len(Z), RISK_BLOCK_POINTS):
        z = Z[lo:lo + RISK_BLOCK_POINTS]
        y = np.maximum(z, 0)
        p = project(z, n)
        D0 = (y.sum(axis=1) - n).astype(np.float64)
        # per split lam (RISK_SPLITS): ln sum g_i over the box, and min_j (ln max g_j - ln sum g_j), for U and Ur
        sums = np.zeros((2, len(RISK_SPLITS), len(z)))
        gaps = np.full((2, len(RISK_SPLITS), len(z)), np.inf)
        log_Lp = np.zeros((len(z), len(V)))
        inside = np.ones((len(z), len(V)), dtype=bool)
        err = np.full(len(z), 1e-9)
        for i in range(k):
            blo, bhi = np.maximum(p[:, i] - Dc, 0), np.minimum(p[:, i] + Dc, n)  # the box of C's i-th counts
            x0, x1 = int(blo.min()), int(bhi.max())
            x = np.arange(x0, x1 + 1, dtype=np.float64)
            lpi = gammaln(a[i] + x) - gammaln(x + 1.0)
            shift = float(lpi[0])
            lpi -= shift
            J = lgamma_jensen_gap(a[i] + x, a[i] + float(r[i]))
            # the rounding of the logarithms: a few ulps of the largest magnitude entering them
            err += 32 * 2.0**-53 * (abs(float(gammaln(a[i] + x1))) + abs(float(gammaln(x1 + 1.0))) + abs(shift)
                                    + eps * (x1 - x0 + D0.max()) + 1.0)
            yi = y[:, i]
            cut, past = np.minimum(bhi, yi), np.maximum(blo, yi + 1)
            from_x0 = eps * (x - x0)
            at_y = eps * (yi - x0).astype(np.float64)
            # the largest term: lnGamma(a + x) - lnGamma(x + 1) is monotone in x (an end point of the box), J at the
            # box's point nearest r_i (J(., r_i) increases toward r_i), the kernel's factor at most 1
            top = np.maximum(lpi[blo - x0], lpi[bhi - x0])
            for which, (f, t) in enumerate(((lpi, top), (lpi + J, top + J[np.clip(r[i], blo, bhi) - x0]))):
                for s_, lam in enumerate(RISK_SPLITS):
                    # g(x) = e^(f(x) - eps lam (y - x)) below y, e^(f(x) - eps (1 - lam) (x - y)) above it
                    below = _RangeSums(f + lam * from_x0, x0).sum(blo, cut) - lam * at_y
                    above = _RangeSums(f - (1 - lam) * from_x0, x0).sum(past, bhi) + (1 - lam) * at_y
                    total = np.logaddexp(below, above)
                    sums[which, s_] += total
                    np.minimum(gaps[which, s_], t - total, out=gaps[which, s_])
            # Lp: the ball's terms w(c) BC(c, p) at c = p + v in R(n)
            rho = int(np.abs(V[:, i]).max())
            jp = lgamma_jensen_gap(a[i] + np.maximum(x[:, None] + np.arange(-rho, rho + 1)[None, :], 0),
                                   a[i] + x[:, None])
            c = p[:, i][:, None] + V[None, :, i]
            inside &= c >= 0
            cc = np.clip(c, x0, x1)
            log_Lp += (lpi[cc - x0] - 0.5 * eps * np.abs(cc - yi[:, None])
                       + jp[(p[:, i] - x0)[:, None], V[None, :, i] + rho])
        log_Lp = np.where(inside, log_Lp, -np.inf)
        # each split's bound in the one normalisation e^(sum_i lnpi_i(c_i) - eps d(z, c)): its factor e^(-eps (1 -
        # lam) D0); Lp's terms carry e^(-eps D0 / 2) (2 d(z, c) = sum_i |y_i - c_i| + D0)
        lift = np.array([-eps * (1 - lam) for lam in RISK_SPLITS])[:, None] * D0[None, :]
        out[0][lo:lo + len(z)] = _row_lse(log_Lp) - 0.5 * eps * D0
        out[1][lo:lo + len(z)] = (sums[1] + gaps[1] + lift).min(axis=0)
        out[2][lo:lo + len(z)] = (sums[0] + gaps[0] + lift).min(axis=0)
        slack[lo:lo + len(z)] = err
    return out[0], out[1], out[2], slack


def risk_filter(prior: ArrayLike, n: int, epsilon: float, released: ArrayLike, points: ArrayLike, Dc: int,
                share: float | None = None) -> NDArray[np.bool_]:
    """False at the points ``z`` whose local search (:func:`.remap.local_bayes_search`, data-set radius ``Dc``, kept
    share ``share``) cannot output ``r = released``; True at the rest (docs/lattice.md, "The noise-aware posterior").
    A second test beside :func:`descent_filter` (each is a necessary condition; a point is searched where both keep
    it): it compares risks where the descent lemma compares distances, so it drops the points whose data sets are
    spread (off R(n), next to its faces), where the descent lemma's factor 2 keeps everything.

    Lemma (proof, exact arithmetic).  With ``K`` the search's kept data sets, ``W = sum_K w``, risks ``S(q) = sum_K w(c)
    H(c, q)`` and ``p = project(z)`` its start, its output r has ``S(r) <= S(p)`` (the descent, :func:`descent_filter`).
    ``H = sqrt(1 - BC)`` in [0, 1], so ``H(c, r) >= 1 - BC(c, r)`` and ``H(c, p) <= 1 - BC(c, p) / 2`` (``sqrt(1 - x)
    <= 1 - x / 2``); so ``W - sum_K w BC(c, r) <= S(r) <= S(p) <= W - sum_K w BC(c, p) / 2``, that is ``sum_K w BC(c,
    p) <= 2 sum_K w BC(c, r)``.  ``K`` lies in ``C`` and leaves out at most ``share T`` of ``T = sum_C w`` (each BC in
    [0, 1]), so ``sum_K w BC(c, p) >= Lp - share T`` and ``sum_K w BC(c, r) <= Ur``: an output r has ``Lp <= 2 Ur +
    share U``.  Floats: as :func:`descent_filter`, ``S(r) <= S(p) + DESCENT_MARGIN W`` adds ``2 DESCENT_MARGIN U``; the
    kept set's float sums are allowed a second ``share``.  So the points with ``Lp > 2 Ur + (2 share + 2
    DESCENT_MARGIN) U`` (each logarithm moved by its ``slack`` against the test) are dropped.

    The sums (:func:`risk_bounds`).  For c in R(n), with ``y = max(z, 0)`` and ``D0 = sum(y) - n``: ``sum_i (y_i -
    c_i)^+ = D0 + sum_i (c_i - y_i)^+`` and ``d(z, c) = D0 + sum_i (c_i - y_i)^+`` (``|z_i - c_i| = c_i + |z_i|`` where
    ``z_i < 0``), so for any ``lam`` in [0, 1], ``d(z, c) = (1 - lam) D0 + sum_i [(1 - lam) (c_i - y_i)^+ + lam (y_i -
    c_i)^+]``; the prior predictive ``pi(c)`` and ``BC(c, q) = exp sum_i J(a_i + c_i, a_i + q_i)`` (equal totals) are
    products over the coordinates; so ``w(c) = e^(-eps (1 - lam) D0) prod_i g_i(c_i)`` up to one constant shared by
    the three sums, ``g_i(x) = e^(lnGamma(a_i + x) - lnGamma(x + 1) - eps [(1 - lam) (x - y_i)^+ + lam (y_i -
    x)^+])``.  ``U``: C lies in the box ``|c_i - p_i| <= Dc`` (``d(c, p) >= |c_i - p_i|``), and over the box's points
    of sum n one coordinate ``j`` is fixed by the others, so ``sum <= max g_j prod_{i != j} sum_box g_i``, the least
    over j and over ``lam`` in :data:`RISK_SPLITS`; each box sum from the disjoint blocks of a sparse table of
    log-sums, the largest term at the box's end points (``lnGamma(a + x) - lnGamma(x + 1)`` is monotone in x; the
    kernel's factor at most 1).  ``Ur``: the same with ``g_i(x) e^(J(a_i + x, a_i + r_i))`` (``J <= 0``, largest at
    the box's point nearest ``r_i``: it increases toward ``r_i``).  ``Lp``: the terms of the ball ``d(c, p) <=
    min(RISK_BALL, Dc)`` in R(n) (in C), summed exactly."""
    from .remap import SEARCH_SHARE

    share = SEARCH_SHARE if share is None else float(share)
    log_Lp, log_Ur, log_U, slack = risk_bounds(prior, n, epsilon, released, points, Dc)
    rhs = np.logaddexp(math.log(2.0) + log_Ur + slack, math.log(2 * share + 2 * DESCENT_MARGIN) + log_U + slack)
    return ~(log_Lp - slack > rhs)


def search_filter(prior: ArrayLike, n: int, epsilon: float, released: ArrayLike, points: ArrayLike, Dc: int
                  ) -> NDArray[np.bool_]:
    """True at the points whose local search may output ``released``: those both :func:`risk_filter` and
    :func:`descent_filter` keep (each drops only points whose search cannot output it).  Where the centre's reach
    region reaches off R(n) (``n // k <= (k - 1) Dc``, public) the risk filter runs first (it drops the points off
    R(n), which the descent filter keeps, and its work does not grow with ``Dc``), else the descent filter (which
    drops most points inside R(n)); the other at the points the first keeps.  The same set either way."""
    a = np.asarray(prior, dtype=np.float64)
    Z = np.asarray(points, dtype=np.int64).reshape(-1, a.size)
    first, second = ((risk_filter, descent_filter) if int(n) // a.size <= (a.size - 1) * int(Dc)
                     else (descent_filter, risk_filter))
    keep = first(a, n, epsilon, released, Z, Dc)
    if keep.any():
        keep[keep] = second(a, n, epsilon, released, Z[keep], Dc)
    return keep


#: Points of the box around the centre :func:`filtered_sample` draws (a fixed seed: public, the same every call).
SAMPLE_POINTS = 2**17


def filtered_sample(prior: ArrayLike, n: int, epsilon: float, Dc: int, W: int, released: ArrayLike | None = None
                    ) -> tuple[float, float, float, float]:
    """``(region, inside, off, risk)``: estimates, from public inputs, for a release at the centre ``c0`` of R(n) (or at
    ``released``, a public point of R(n) a plan names) (for a plan; not a bound) of the reach region's points
    (:func:`reach_region`), of those :func:`search_filter` keeps with every count at least 2 and the rest it keeps (off
    R(n) or next to its faces), and of those :func:`risk_filter` keeps.  :data:`SAMPLE_POINTS` points drawn uniformly
    (a fixed seed) from the box :func:`reach_region` enumerates; each count is the box's size times the share of the
    sample in it, one point added to each kept count (a share never estimated as 0)."""
    scale, z, keep, risk = _filtered_sample_points(prior, n, epsilon, Dc, W, released)
    inside = np.all(z >= 2, axis=1)
    return (scale * len(z), scale * (np.count_nonzero(keep & inside) + 1),
            scale * (np.count_nonzero(keep & ~inside) + 1), scale * (np.count_nonzero(risk) + 1))


def _filtered_sample_points(prior: ArrayLike, n: int, epsilon: float, Dc: int, W: int,
                            released: ArrayLike | None = None):
    """``(scale, z, keep, risk)``: :func:`filtered_sample`'s sample of the reach region at the centre ``c0`` (or at
    ``released``) (its points, those :func:`search_filter` keeps and those :func:`risk_filter` keeps) and the box's
    size a point.  Cached by its public inputs (:data:`SAMPLE_CACHE` samples, read-only arrays): a k = 3 plan reads
    each release's sample twice, its parts (:func:`~dpposterior.mechanisms.lattice.sampled_release_parts`) and its
    cost (:func:`~dpposterior.mechanisms.lattice.sampled_release_cost`); the same fixed seed gives the same sample,
    so the second read only saves the draw and both filters (Dir(1,1,1), average, eps 0.12, n = 1,600: 0.5 CPU s
    a release)."""
    a = tuple(float(x) for x in np.asarray(prior, dtype=np.float64).ravel())
    r = None if released is None else tuple(int(x) for x in np.asarray(released, dtype=np.int64).ravel())
    return _sample_points_cached(a, int(n), float(epsilon), int(Dc), int(W), r)


#: Samples :func:`_filtered_sample_points` keeps (a k = 3 plan's family: the centre and five releases off it; at
#: 2**17 points each at most ~5 MB).
SAMPLE_CACHE = 16


@lru_cache(maxsize=SAMPLE_CACHE)
def _sample_points_cached(prior: tuple, n: int, epsilon: float, Dc: int, W: int, released: tuple | None):
    """:func:`_filtered_sample_points` itself, on hashable public inputs; its arrays read-only."""
    from .remap import project

    a = np.asarray(prior, dtype=np.float64)
    k = a.size
    c0 = np.full(k, n // k, dtype=np.int64)
    c0[: n - int(c0.sum())] += 1
    if released is not None:
        c0 = np.asarray(released, dtype=np.int64).reshape(k)
    L = (k - 1) * Dc
    span = L + (k - 1) * W
    lo, hi = np.maximum(-W, c0 - span), c0 + span
    box = float(np.prod([float(h - l + 1) for h, l in zip(hi[:k - 1], lo[:k - 1])]))
    rng = np.random.default_rng(0)
    head = np.stack([rng.integers(lo[i], hi[i] + 1, size=SAMPLE_POINTS) for i in range(k - 1)], axis=1)
    z = np.concatenate([head, n - head.sum(axis=1, keepdims=True)], axis=1)
    z = z[z[:, -1] >= -W]
    u = project(z, n) - c0[None, :]
    z = z[np.all(u <= Dc, axis=1) | np.all(u >= -Dc, axis=1)]  # project(z) - c0 in U(Dc)
    scale = box / SAMPLE_POINTS
    risk = risk_filter(a, n, epsilon, c0, z, Dc)
    keep = risk.copy()
    if keep.any():
        keep[keep] = descent_filter(a, n, epsilon, c0, z[keep], Dc)
    for array in (z, keep, risk):
        array.setflags(write=False)
    return scale, z, keep, risk


def part_shares(n: int, Dc: int, W: int, released: ArrayLike, z: ArrayLike) -> NDArray[np.float64]:
    """For each point ``z`` of :func:`_filtered_sample_points`'s box at ``released`` (a row: k counts summing to n),
    one over the number of the box's points with its positive part ``y = max(z, 0)``: so that ``scale * sum(shares)``
    over the sample's kept points estimates the kept distinct positive parts (a Horvitz-Thompson estimate: each part
    counted once in expectation; the filters read ``y`` only, so a part's points are kept together).

    The points with part ``y`` are ``z_i = y_i`` where ``y_i > 0`` and ``z_i = -x_i`` at the ``j`` counts where
    ``y_i = 0``, with ``sum(x) = e = sum(y) - n`` and ``x_i`` in ``[0, u_i]``: ``u_i = -lo_i`` on the box's first
    ``k - 1`` axes (``lo = max(-W, released - span)``), ``W`` on the last (the sample keeps ``z_k >= -W``); the
    projection's condition reads ``y`` only.  Their number is the coefficient of ``t^e`` in ``prod_i (1 + t + ... +
    t^u_i)``, computed once per distinct ``(u, e)``.  Tested against counting the box's points by enumeration."""
    z = np.asarray(z, dtype=np.int64)
    r = np.asarray(released, dtype=np.int64).reshape(-1)
    k = r.size
    span = (k - 1) * Dc + (k - 1) * W
    lo = np.maximum(-W, r - span)
    cap = np.concatenate([np.maximum(-lo[: k - 1], 0), [W]]).astype(np.int64)
    zero = z <= 0
    e = np.maximum(z, 0).sum(axis=1) - int(n)
    key = np.concatenate([np.where(zero, cap[None, :], -1), e[:, None]], axis=1)
    uniq, back = np.unique(key, axis=0, return_inverse=True)
    count = np.empty(len(uniq))
    for g, row in enumerate(uniq):
        poly = np.ones(1)
        for u in row[:k]:
            if u >= 0:
                poly = np.convolve(poly, np.ones(int(u) + 1))
        count[g] = poly[int(row[k])] if 0 <= int(row[k]) < poly.size else 1.0
    return 1.0 / np.maximum(count[back.reshape(-1)], 1.0)


def orbit_weights(prior: ArrayLike, n: int, epsilon: float, Dc: int, released: ArrayLike, z: ArrayLike
                  ) -> NDArray[np.float64]:
    """For each point ``z`` of :func:`_filtered_sample_points`' box at ``released`` that :func:`search_filter` keeps
    (rows), one over ``m``: how many distinct images ``(s y, s p)`` of its pair ``(y, p) = (max(z, 0), project(z))``
    under the permutations ``s`` of the categories are kept pairs.  With :func:`part_shares`, ``scale * sum(shares *
    weights)`` over the sample's kept points estimates the orbits of kept pairs, one search each in
    :func:`~dpposterior.lattice.batched.local_search_batch` by orbits (a symmetric prior;
    :func:`~dpposterior.lattice.batched.orbit_pairs`); public inputs only (for a plan; not a bound).

    Count (proof).  ``p = project(y)`` (``project`` reads ``y``).  An image ``(s y, s p)`` is a kept pair iff
    ``project(s y) = s p`` (ties among equal counts are broken by index, so it need not be), ``project(s y) -
    released`` is in ``U(Dc)`` and :func:`search_filter` keeps ``s y`` (a function of it), and ``s y`` is the part of
    a point of the region (:func:`reach_region`).  The last holds for every image of a kept point's ``y``: a point
    ``z'`` with part ``s y`` and the same ``e = sum(y) - n`` is ``s z`` (its counts ``>= -W``, summing to n), and
    with the reach condition it is in the region, hence in the box (:func:`reach_region`'s proof).  The kept pairs
    of one orbit are its images that are kept, so each has the same ``m``, their number, and the orbit's kept pairs
    weigh 1 in all: summed over every kept point with :func:`part_shares` (each part's points weigh 1 in all) the
    weights give the orbits exactly, and over a uniform sample that sum in expectation.  Measured: 0.953x to 1.031x
    the orbits the runs counted at 22 releases (``benchmarks/orbit_estimate_k4.json``)."""
    from itertools import permutations

    from .remap import project

    a = np.asarray(prior, dtype=np.float64)
    r = np.asarray(released, dtype=np.int64).reshape(-1)
    k, n = r.size, int(n)
    Y = np.maximum(np.asarray(z, dtype=np.int64).reshape(-1, k), 0)
    if not len(Y):
        return np.zeros(0)
    perms = np.array(list(permutations(range(k))))
    # the distinct pairs over every point's images, each filtered once (points of one orbit share their images),
    # then each point's distinct images as the distinct (point, pair) keys
    pairs, pid = np.unique(np.concatenate([Y[:, perms].reshape(-1, k), project(Y, n)[:, perms].reshape(-1, k)],
                                          axis=1), axis=0, return_inverse=True)
    keys = np.unique(np.repeat(np.arange(len(Y), dtype=np.int64), len(perms)) * len(pairs) + pid.reshape(-1))
    rows, pid = keys // len(pairs), keys % len(pairs)
    y, p = pairs[:, :k], pairs[:, k:]
    own = project(y, n)
    ok = np.all(own == p, axis=1)
    u = own - r[None, :]
    ok &= np.all(u <= Dc, axis=1) | np.all(u >= -Dc, axis=1)
    kept = np.zeros(len(pairs), dtype=bool)
    if ok.any():
        kept[ok] = search_filter(a, n, epsilon, r, y[ok], Dc)
    return 1.0 / np.maximum(np.bincount(rows[kept[pid]], minlength=len(Y)), 1)


#: Most vectors :func:`clamp_key_bound` enumerates (its clamps' other counts); past them it returns None and a plan
#: prices the clamped parts as the others.
CLAMP_KEY_VECTORS = 2_000_000


def clamp_key_bound(n: int, Dc: int, W: int, released: ArrayLike) -> int | None:
    """An upper end of the distinct clamps ``v = min(y, n)`` of the reach region's parts with a count at least n
    (``y = max(z, 0)``) at ``released`` (k >= 4): the clamp groups that one search each runs where every shift is exact
    (:func:`~dpposterior.lattice.batched.exact_shift_weights`; :func:`~dpposterior.lattice.batched._orbit_search`).
    Public inputs only; None past :data:`CLAMP_KEY_VECTORS` vectors.

    Count (proof).  Such a ``y`` is ``v + x``, ``x >= 0`` on the counts where ``v_i = n``, and ``project(y) =
    project(v)``: with ``f(m) = sum_i max(y_i - m, 0)`` and excess ``e``, every level ``m <= n`` has ``f_y(m) =
    f_v(m) + sum(x)`` and ``e_y = e_v + sum(x)``, and both levels are at most n (``f(n) <= e``), so :func:`project`'s
    level, its remainder and the counts it lowers are ``v``'s.  So ``v`` is counted here: it has a count n; it is the
    part of a point of :func:`_filtered_sample_points`' box (its excess, the sum of its other counts, at most ``y``'s,
    taken by the same zero counts within their caps, :func:`part_shares`: at most ``(k - 2) W``, as some other count
    is not 0 where the excess is positive; each count at most ``y``'s, within the box); and ``project(v) - released``
    is in ``U(Dc)`` (the reach condition, read at ``project(y)``).  The filters are not applied (they only drop), so
    this is at least the count the run's check reads (:func:`~dpposterior.mechanisms.lattice._check_searches`)."""
    from itertools import product

    from .remap import project

    r = np.asarray(released, dtype=np.int64).reshape(-1)
    k, n = r.size, int(n)
    span = (k - 1) * Dc + (k - 1) * W
    lo, hi = np.maximum(-W, r - span), r + span
    cap = np.concatenate([np.maximum(-lo[: k - 1], 0), [W]]).astype(np.int64)
    S = min(n * (k - 1), (k - 2) * int(W))  # the other counts' sum (the excess) at most
    top = min(n, S)
    if float(top + 1) ** (k - 2) * k > CLAMP_KEY_VECTORS:
        return None
    # the other counts: all but the last enumerated (their sum at most S), the last from 0 to what is left
    head = np.array(list(product(range(top + 1), repeat=k - 2)), dtype=np.int64).reshape(-1, k - 2)
    head = head[head.sum(axis=1) <= S]
    reps = np.minimum(top, S - head.sum(axis=1)) + 1
    rest = np.concatenate([np.repeat(head, reps, axis=0),
                           np.concatenate([np.arange(c) for c in reps])[:, None]], axis=1)
    seen = 0
    for i in range(k):  # the first count at n (a vector with several counts at n is found at its first)
        v = np.insert(rest, i, n, axis=1)
        v = v[np.all(v[:, :i] < n, axis=1)] if i else v
        room = ((v == 0) * cap[None, :]).sum(axis=1)
        v = v[(v.sum(axis=1) - n <= room) & np.all(v[:, : k - 1] <= hi[None, : k - 1], axis=1)]
        u = project(v, n) - r[None, :]
        seen += int(np.count_nonzero(np.all(u <= Dc, axis=1) | np.all(u >= -Dc, axis=1)))
    return seen


#: Rounds of :func:`cut_region`'s cut taken again from the summary of the points at or below the cut before (each
#: one at most the last; it stops where one does not fall).
CUT_ROUNDS = 4


def _cut_ranges(a: NDArray[np.float64], n: int, r: NDArray[np.int64], L: int, h_cut: float) -> list[NDArray[np.int64]]:
    """Per coordinate, the values ``x`` in ``[r_i - L, min(r_i + L, n)]`` whose term ``-J(a_i + x, a_i + r_i)`` is
    within ``G* (1 + 1e-6) + 1e-12`` of the cut's ``G* = -ln(1 - h*^2)`` (:func:`cut_region`; an interval about
    ``r_i``: the term grows as x moves away from ``r_i``)."""
    G = -math.log1p(-min(h_cut, 1.0) ** 2) if h_cut < 1.0 else math.inf
    ranges = []
    for i in range(a.size):
        x = np.arange(int(r[i]) - L, min(int(r[i]) + L, n) + 1)
        term = -lgamma_jensen_gap(a[i] + x, a[i] + float(r[i]))
        ranges.append(x[term <= G * (1 + 1e-6) + 1e-12])
    return ranges


def cut_region(prior: ArrayLike, n: int, epsilon: float, released: ArrayLike, Dc: int,
               stats: dict | None = None, check=None) -> NDArray[np.int64] | None:
    """The points of :func:`reach_region` at or below the descent filter's cut, for a release ``r`` with every count
    above ``L = (k - 1) Dc`` (where the region is ``r + U(Dc)``, all in R(n), ``project(z) = z``): ``{z in r + U(Dc) :
    H(z, r) <= h*}`` in the region's (lexicographic) order, never enumerating the region (48M points at k = 4,
    eps = 0.25).  Every point of the region the descent filter keeps is among them, so :func:`search_filter` on them
    keeps the same points as on the whole region (None where ``min r <= L``).

    Proof.  ``h* = _cut_of`` at the region's summary bounded from outside: every projection ``p = z`` has ``p_i`` in
    ``[r_i - L, min(r_i + L, n)]``, ``D0 = 0``, ``min_i p_i >= min r - L`` and ``max_i p_i >= ceil(n / k)`` (the counts
    sum to n); wider ranges and smaller ``m, m2`` give a cut at least as high (:func:`_cut_of`), so a point past this
    cut is past :func:`descent_cut` of any subset of the region and fails the filter's test.  The enumeration: ``-ln
    BC(z, r) = sum_i -J(a_i + z_i, a_i + r_i)``, each term ``>= 0``, so ``H(z, r) <= h*`` needs every term at most
    ``G* = -ln(1 - h*^2)``; each coordinate's values are kept where its term is within ``G* (1 + 1e-6) + 1e-12`` (a
    float allowance), the box of the first ``k - 1`` enumerated a slab at a time, and the points kept where ``z - r``
    is in ``U(Dc)`` and ``H(z, r) <= h*`` as :func:`descent_filter` computes it (the same floats).

    Rounds (proof).  The cut again, from the summary of ``S = {z in r + U(Dc) : H(z, r) <= h*}`` bounded from outside
    (each coordinate within the values kept above, so ``min_i p_i`` at least the least of them, ``D0 = 0``, ``max_i
    p_i >= ceil(n / k)``): by :func:`descent_cut`'s proof (each point's ``A_t``, ``h_t`` bounded by the summary of any
    set that holds it) a point of S past the new cut ``h'`` fails the test, and a point off S is past ``h*``; so
    ``min(h*, h')`` is a cut of the region, and the ranges narrow with it.  The bounds ``h_t`` then read the counts
    near r only, not the region's edge ``r_i - L``: at Dir(1,1,1,1), eps = 0.5, n = 1000, the release (250, 250, 250,
    250) keeps 10,377 points (368,441 after one round).  Where the first cut is 1 (every h may pass: the release
    (251, 252, 241, 256) there) nothing narrows.  ``stats``: filled with ``{"box"}``, the points of the box
    enumerated; ``check``: called with that count before any is enumerated (a limit's one-line refusal).
    """
    a = np.asarray(prior, dtype=np.float64)
    k, n, Dc = a.size, int(n), int(Dc)
    r = np.asarray(released, dtype=np.int64).reshape(k)
    L = (k - 1) * Dc
    if int(r.min()) <= L:
        return None
    h_cut = _cut_of(a, n, epsilon, Dc, None, r - L, np.minimum(r + L, n), 0, min(Dc, int(r.min()) - L),
                    min(Dc, -(-n // k)))
    ranges = _cut_ranges(a, n, r, L, h_cut)
    for _ in range(CUT_ROUNDS):  # the cut again from the summary of the points at or below it (proof above)
        lo_r = np.array([int(x.min()) for x in ranges], dtype=np.int64)
        hi_r = np.array([int(x.max()) for x in ranges], dtype=np.int64)
        h_next = _cut_of(a, n, epsilon, Dc, None, lo_r, hi_r, 0, min(Dc, int(lo_r.min())), min(Dc, -(-n // k)))
        if not h_next < h_cut:
            break
        h_cut = h_next
        ranges = _cut_ranges(a, n, r, L, h_cut)
    out = []
    last_lo, last_hi = int(ranges[-1].min()), int(ranges[-1].max())
    rest = ranges[1:k - 1]
    axes = np.meshgrid(*rest, indexing="ij")
    mid = np.stack([x.ravel() for x in axes], axis=1).astype(np.int64)
    if stats is not None:
        stats["box"] = len(ranges[0]) * len(mid)  # the points enumerated (for a plan)
    if check is not None:
        check(len(ranges[0]) * len(mid))
    for z0 in ranges[0]:
        z = np.concatenate([np.full((len(mid), 1), z0, dtype=np.int64), mid], axis=1)
        z = np.concatenate([z, n - z.sum(axis=1, keepdims=True)], axis=1)
        z = z[(z[:, -1] >= last_lo) & (z[:, -1] <= last_hi)]
        u = z - r[None, :]
        z = z[np.all(u <= Dc, axis=1) | np.all(u >= -Dc, axis=1)]
        if not len(z):
            continue
        log_bc = sum(lgamma_jensen_gap(a[i] + z[:, i], a[i] + float(r[i])) for i in range(k))
        out.append(z[hellinger_from_log_bc(log_bc) <= h_cut])
    return np.concatenate(out) if out else np.zeros((0, k), dtype=np.int64)


#: Rows of one block of :func:`log_prior_rows`.
PRIOR_BLOCK_ROWS = 2**18


def log_prior_rows(prior: ArrayLike, counts: ArrayLike) -> NDArray[np.float64]:
    """:func:`~dpposterior.models.log_prior_predictive` at every row of ``counts`` (one total), the same floats: each
    ``lnGamma(c_i + 1)`` and ``lnGamma(c_i + a_i) - lnGamma(a_i)`` read from a table over the values the coordinate
    takes (each entry the float the elementwise call returns), summed along each row in the same order, a block of
    rows at a time (the data sets near a release: 1.8e7 at k = 4, eps = 0.25)."""
    a = np.asarray(prior, dtype=np.float64)
    c = np.asarray(counts, dtype=np.int64).reshape(-1, a.size)
    out = np.empty(len(c))
    if not len(c):
        return out
    lo, hi = c.min(axis=0), c.max(axis=0)
    t1 = [gammaln(np.arange(lo[i], hi[i] + 1, dtype=np.float64) + 1) for i in range(a.size)]
    t2 = [gammaln(np.arange(lo[i], hi[i] + 1, dtype=np.float64) + a[i]) - gammaln(a[i]) for i in range(a.size)]
    A = a.sum()
    for s in range(0, len(c), PRIOR_BLOCK_ROWS):
        b = c[s:s + PRIOR_BLOCK_ROWS]
        tot = b.sum(axis=1)
        # one total: its terms as scalars (the same floats the elementwise calls return at each row)
        n = float(tot[0]) if np.all(tot == tot[0]) else tot.astype(np.float64)
        # a row's sum of k entries, left to right (as numpy's sum along a short contiguous row; tested equal)
        g1, g2 = t1[0][b[:, 0] - lo[0]], t2[0][b[:, 0] - lo[0]]
        for i in range(1, a.size):
            g1 += t1[i][b[:, i] - lo[i]]
            g2 += t2[i][b[:, i] - lo[i]]
        out[s:s + len(b)] = gammaln(n + 1) - g1 + gammaln(A) - gammaln(n + A) + g2
    return out
