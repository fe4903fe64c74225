"""Local, global and smooth sensitivities of the score ``u(c, r) = H(BI(c), r)`` (docs/definitions.md §3).

The reduction everything here rests on
--------------------------------------
For a substitution ``c' = c - e_i + e_j`` the posteriors ``Dir(a + c)`` and ``Dir(a + c')``
differ in two coordinates and have the same total, so (distances module)

    ln BC(BI(c), BI(c')) = g(a_i + c_i) + g(a_j + c_j + 1),   g(x) = J(x, x - 1),

where ``J`` is the Jensen gap of lnGamma.  ``g`` is increasing on ``x > 1`` (``g' = -``
the Jensen gap of the concave digamma), so the distance between adjacent posteriors
is largest where the counts involved are smallest.  Hence:

* ``LS(c) = max_{i != j, c_i >= 1} H_ij(c)`` in O(k^2) per count vector (docs/definitions.md §3 reduced
  form; tests check it against the max over neighbours *and* candidates).
* ``GS`` for a prior and n: for k >= 3 the maximum sits at ``c_i = 1, c_j = 0``.  For k = 2
  (where ``c_2 = n - c_1``) ``g`` is also concave (``g'' = -`` the Jensen gap of the convex
  trigamma), so along either direction ``ln BC`` is concave in ``c_1`` and ``H`` peaks at an
  end of its range: GS is the largest LS over ``c_1 in {0, 1, n-1, n}``.
* Smooth sensitivities ``max_{c''} phi(LS(c''), d(c, c''))`` only need, per ordered pair
  (i, j), the two coordinates ``x_i = c''_i, x_j = c''_j``: for k >= 3 the others absorb
  the rest at distance ``max(|u|, |v|, |u + v|)`` (``u = c_i - x_i, v = c_j - x_j``), and
  ``x_i <= max(c_i, 1)``, ``x_j <= c_j`` loses nothing.  Because ``LS <= 1`` the search
  stops at the distance where ``phi(1, d)`` can no longer beat the best value found
  (a certified bound, not a guess).

Other distances (docs/definitions.md §3, "LS under another distance")
--------------------------------------------------------------------
Every function takes ``distance`` (a name of :data:`dpposterior.distances.DISTANCES`, default
``"hellinger"``, which runs exactly the code above).  For another distance D the score is
``u(c, r) = D(BI(c), r)`` and, by the definition,

    LS(c) = max over adjacent c' and r in R(n) of |D(BI(c), r) - D(BI(c'), r)|.

* A metric (``tv``): the triangle inequality bounds every term by ``D(BI(c), BI(c'))``, with
  equality at ``r = BI(c')``, so ``LS(c) = max_c' D(BI(c), BI(c'))`` (k(k-1) evaluations per c).
* Not a metric (``kl``): no such reduction (the KL counter-example is in the tests), so the
  maximum over r in R(n) is taken: k(k-1) |R(n)| evaluations per c.
* ``GS = max_c LS(c)`` over R(n); the gamma- and beta-smooth sensitivities maximise over every
  c'' of R(n) (a min-plus transform, :func:`distance_transform`, for all c at once).

None of the Hellinger closed forms (the g reduction, the k = 2 end points, the bounded search)
is assumed: R(n) is enumerated, within ``DPPOSTERIOR_MAX_SENSITIVITY_WORK`` distance evaluations
(:func:`check_sensitivity_work`, from public n, k only; past it a one-line SizeError).
"""

from __future__ import annotations

import math
from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import validate
from .distances import DEFAULT_DISTANCE, Distance, beta_matrix, get_distance, hellinger_from_log_bc, lgamma_jensen_gap
from .errors import InputError, SizeError
from .limits import limit_setting
from .models import candidate_rank, candidates, directions, n_candidates, steps

#: The drafts' constant global sensitivity ``sqrt(1 - pi/4)``: LS at n = 1 under Beta(1, 1).
PAPER_GLOBAL_SENSITIVITY = math.sqrt(1.0 - math.pi / 4.0)


class GlobalSensitivityMethod(StrEnum):
    """How ``ehd`` computes GS (docs/definitions.md §3): exactly, or the drafts' constant; prints as its string."""

    EXACT = "exact"
    PAPER = "paper"


#: The methods' names, in order (declared once, by :class:`GlobalSensitivityMethod`).
GLOBAL_SENSITIVITY_METHODS = tuple(m.value for m in GlobalSensitivityMethod)


def _g(x: ArrayLike) -> NDArray[np.float64]:
    """``g(x) = J(x, x - 1) = lnGamma(x - 1/2) - (lnGamma(x) + lnGamma(x - 1))/2`` for x > 1."""
    x = np.asarray(x, dtype=np.float64)
    return lgamma_jensen_gap(x, x - 1.0)


def adjacent_log_bc(prior: ArrayLike, counts: ArrayLike) -> NDArray[np.float64]:
    """``ln BC(BI(c), BI(c - e_i + e_j))`` for every ordered pair (i, j): shape ``(..., k, k)``.

    Entries with ``i == j`` or ``c_i == 0`` (no such neighbour) are ``+inf``.
    """
    a = np.asarray(prior, dtype=np.float64)
    c = np.asarray(counts, dtype=np.int64)
    p = a + c
    with np.errstate(invalid="ignore", divide="ignore"):
        out_i = np.where(c >= 1, _g(np.where(c >= 1, p, 2.0)), np.inf)  # leaving i
    in_j = _g(p + 1.0)  # entering j
    lbc = out_i[..., :, None] + in_j[..., None, :]
    k = c.shape[-1]
    lbc[..., np.arange(k), np.arange(k)] = np.inf
    return lbc


def local_sensitivity(prior: ArrayLike, counts: ArrayLike,
                      distance: str = DEFAULT_DISTANCE) -> NDArray[np.float64] | float:
    """Local sensitivity ``LS(c) = max over adjacent c' of H(BI(c), BI(c'))`` (docs/definitions.md §3, reduced form).

    Vectorised over leading axes of ``counts`` (last axis = categories); returns a float
    for a single count vector.  Equals the definition's maximum over neighbours and
    candidates r in R(n) by the triangle inequality (attained at r = BI(c')).

    ``distance``: another distance's LS (docs/definitions.md §3, LS under another distance; module
    docstring): the reduction for a metric, the maximum over r in R(n) otherwise.
    """
    a = validate.prior(prior, _categories(counts))  # the prior's length first: before a large array is copied
    c = validate.count_array(counts)
    validate.prior(a, c.shape[-1])
    return local_sensitivity_of(a, c, distance)


def local_sensitivity_of(a: NDArray[np.float64], c: NDArray[np.int64],
                         distance: str = DEFAULT_DISTANCE) -> NDArray[np.float64] | float:
    """:func:`local_sensitivity` of a validated prior and count array (the mechanisms' weights, whose inputs were
    validated where they entered: nothing is validated again)."""
    dist = _distance(distance, c.shape[-1])
    if dist is not None:
        flat = c.reshape(-1, c.shape[-1])
        n = int(flat[0].sum()) if len(flat) else 0
        if np.any(flat.sum(axis=1) != n):
            raise InputError("the count vectors of one local-sensitivity call must share their total n")
        check_sensitivity_work(dist, n, c.shape[-1], len(flat))
        ls = _generic_ls(a, flat, dist).reshape(c.shape[:-1])
        return float(ls) if np.ndim(ls) == 0 else ls
    p = a + c
    with np.errstate(invalid="ignore", divide="ignore"):
        out_i = np.where(c >= 1, _g(np.where(c >= 1, p, 2.0)), np.inf)  # leaving i
    best = _min_pair_sum(out_i, _g(p + 1.0))  # = min of adjacent_log_bc over (i, j), in O(k) memory
    ls = hellinger_from_log_bc(best)
    return float(ls) if np.ndim(ls) == 0 else ls


def _categories(counts: ArrayLike) -> int | None:
    """The length of the last axis of ``counts`` when it is an array (None: let the validator say)."""
    shape = getattr(counts, "shape", None)
    return int(shape[-1]) if shape else None


def _min_pair_sum(out: NDArray[np.float64], into: NDArray[np.float64]) -> NDArray[np.float64]:
    """``min over i != j of out_i + into_j`` over the last axis, without the k x k table.

    For each i the best j is the smallest ``into`` unless that is i itself, then the second
    smallest; the same additions as the full table, so the same float result.
    """
    order = np.argsort(into, axis=-1, kind="stable")[..., :2]
    first = np.take_along_axis(into, order[..., :1], axis=-1)
    second = np.take_along_axis(into, order[..., 1:2], axis=-1)
    cols = np.arange(out.shape[-1])
    best_into = np.where(cols == order[..., :1], second, first)
    return (out + best_into).min(axis=-1)


def global_sensitivity(prior: ArrayLike, n: int, method: str = "exact", distance: str = DEFAULT_DISTANCE) -> float:
    """Global sensitivity ``GS = max_c LS(c)`` over all count vectors of size n (docs/definitions.md §3).

    ``method="exact"`` computes it for the given prior and n (module docstring);
    ``method="paper"`` returns the drafts' constant ``sqrt(1 - pi/4)``, which is exact
    only for Beta(1, 1) at n = 1 and *under*-states GS for priors below 1 (Hellinger only).
    ``distance``: another distance's GS, the maximum of its LS over R(n).
    """
    if method not in GLOBAL_SENSITIVITY_METHODS:
        raise InputError(f"global sensitivity must be one of {', '.join(GLOBAL_SENSITIVITY_METHODS)}, got {method!r}")
    dist = get_distance(distance)
    if method == "paper":
        if dist.name != DEFAULT_DISTANCE:
            raise InputError(f"the paper's global sensitivity sqrt(1 - pi/4) is Hellinger's, not {dist.name}'s; "
                             "use --global-sensitivity exact")
        return PAPER_GLOBAL_SENSITIVITY
    return global_sensitivity_of(validate.prior(prior), validate.size(n), dist.name)


def global_sensitivity_of(a: NDArray[np.float64], n: int, distance: str = DEFAULT_DISTANCE) -> float:
    """:func:`global_sensitivity` (``method="exact"``) of a validated prior and size."""
    dist = get_distance(distance)
    k = a.size
    if _distance(distance, k) is not None:
        return float(np.max(_all_ls(a, n, dist)))
    if k == 2:
        t = np.unique(np.clip([0, 1, n - 1, n], 0, n))
        return float(np.max(local_sensitivity_of(a, np.column_stack([t, n - t]))))
    # c_i = 1, c_j = 0 for the pair (i, j); the remaining n - 1 records sit elsewhere.
    g = _g(a + 1.0)
    return float(hellinger_from_log_bc(_min_pair_sum(g, g)))


def smoothing_beta(epsilon: float, delta: float, n: int) -> float:
    """``b = ln(1 - eps / (2 ln(delta / (2 (n + 1)))))`` of the beta-smooth sensitivity.

    docs/definitions.md §3; 000 Def. 4.1.
    """
    return math.log1p(-epsilon / (2.0 * math.log(delta / (2.0 * (n + 1)))))


# Most entries (categories x distances, about one g evaluation each, ~1.2e6 per second here; a release
# searches 5 times: 4 reference draws and its own) one
# smooth-sensitivity search may cover: ``DPPOSTERIOR_MAX_SMOOTH_WORK`` (``limits.LIMITS``), read at each call.


def public_ls_floor(a: NDArray[np.float64], n: int) -> float:
    """A lower bound on ``LS(c)`` over every count vector of size n, from public inputs only.

    Moving a record out of the largest category i into any j: ``ln BC = g(a_i + c_i) + g(a_j + c_j + 1)
    <= 2 g(a_max + n)`` (g is increasing and ``c_i, c_j + 1 <= n``), so
    ``LS(c) >= sqrt(1 - exp(2 g(a_max + n)))``.
    """
    return float(hellinger_from_log_bc(2.0 * _g(np.float64(a.max() + n))))


def search_distance(a: NDArray[np.float64], n: int, reach) -> int:
    """The distance the smooth search covers: ``min(n, reach(public_ls_floor) + 1)`` (public inputs only).

    It bounds the data's own ``reach(LS(c))`` (``reach`` decreases and ``LS(c) >=`` the floor),
    so searching this far is exact, and the work, hence the time, does not depend on the counts.
    Beyond ``DPPOSTERIOR_MAX_SMOOTH_WORK`` entries, :class:`~dpposterior.errors.SizeError` with the estimate.
    """
    k = a.size
    r = reach(public_ls_floor(a, n))
    D = int(min(n, math.floor(r) + 1)) if math.isfinite(r) else n
    work = (2 * D + 1) * 2 if k == 2 else k * (D + 2)
    limit = limit_setting("DPPOSTERIOR_MAX_SMOOTH_WORK")
    if work > limit:
        raise SizeError(f"the smooth-sensitivity search for k={k}, n={n} covers distances up to {D:,} "
                        f"({work:.3g} entries, {validate.estimate_text(work / 1.2e6)} s here), "
                        f"over the limit of {limit:.3g} "
                        "(a larger gamma or epsilon shortens it; set DPPOSTERIOR_MAX_SMOOTH_WORK to raise it)")
    return D


def _smooth_search(a: NDArray[np.float64], c: NDArray[np.int64], objective, reach) -> float:
    """Maximise ``objective(LS-value, d)`` over count vectors c'' of size n (module docstring).

    ``objective(h, d)`` must be increasing in h and decreasing in d; ``reach(best)`` returns
    the largest d at which ``objective(1, d)`` could still exceed ``best``.
    """
    n = int(c.sum())
    k = c.size
    best = float(objective(local_sensitivity_of(a, c), 0))
    D = search_distance(a, n, reach)
    if D <= 0:
        return best
    if k == 2:
        x = np.arange(max(0, c[0] - D), min(n, c[0] + D) + 1)
        ls = local_sensitivity_of(a, np.column_stack([x, n - x]))
        return max(best, float(np.max(objective(ls, np.abs(x - c[0])))))
    lbc = _best_log_bc_within(a, c, D)
    h = hellinger_from_log_bc(lbc)
    return max(best, float(np.max(objective(h, np.arange(D + 1)))))


#: entries of a (categories x distances) block of :func:`_best_log_bc_within` (bounded memory at any k)
_BLOCK = 1 << 20


def _top2(values: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
    """Per column of ``values`` (categories x distances): smallest value, its row, second smallest."""
    if values.shape[0] == 1:
        return values[0], np.zeros(values.shape[1], dtype=np.int64), np.full(values.shape[1], np.inf)
    arg = np.argmin(values, axis=0)
    cols = np.arange(values.shape[1])
    first = values[arg, cols]
    rest = values.copy()
    rest[arg, cols] = np.inf
    return first, arg, rest.min(axis=0)


def _excluding(top, rows: NDArray[np.int64], cols) -> NDArray[np.float64]:
    """``min over r != row`` of a category table, from its :func:`_top2` (broadcast over rows x cols)."""
    first, arg, second = (t[cols] for t in top)
    return np.where(arg == rows[:, None], second, first)


def _best_log_bc_within(a: NDArray[np.float64], c: NDArray[np.int64], D: int) -> NDArray[np.float64]:
    """``L(d) = min ln BC(BI(c''), BI(c'' - e_i + e_j))`` over c'' within substitution distance d of c, d = 0..D (k >= 3).

    The module docstring's reduction: a leaving category i with ``c_i >= 1`` goes down by
    ``u in [0, c_i - 1]`` (``A_i(u) = g(a_i + c_i - u)``), an entering j down by ``v in [0, c_j]``
    (``B_j(v) = g(a_j + c_j - v + 1)``), at distance ``u + v``; a leaving i with ``c_i = 0`` is
    raised to 1 at distance ``max(1, v)``.  ``g`` is increasing and concave on ``x > 1``, so
    ``A_i(u) + B_j(v)`` is decreasing in both and concave: over ``{u + v <= d}`` its minimum
    sits at a vertex, where one of the two categories takes the whole budget it can.  Hence
    ``L(d) = min`` of (i first) ``A_i(min(d, U_i)) + min_{j != i} B_j(min(d - min(d, U_i), V_j))``,
    (j first) the same with the roles swapped, and (``c_i = 0``) ``g(a_i + 1) + B_j(min(d, V_j))``;
    each ``min_{j != i}`` comes from the two smallest entries of a table over r = 0..D.
    O(k D) evaluations of g in blocks of :data:`_BLOCK` entries, instead of O(k^2 D^2) grids.
    The minimum over "within d" gives the exact smooth sensitivity because the objective
    decreases in d (a c'' at distance d' <= d is also scored at its own d').
    """
    k = c.size
    d = np.arange(D + 1)
    U = np.maximum(c - 1, 0)
    step = max(1, _BLOCK // (D + 2))
    blocks = [np.arange(s, min(k, s + step)) for s in range(0, k, step)]
    keep = k * (D + 2) <= 8 * _BLOCK  # small enough to evaluate g once for both passes
    cache: dict[int, NDArray[np.float64]] = {}

    def G(b: int) -> NDArray[np.float64]:
        """``G_r(t) = g(a_r + c_r + 1 - min(t, c_r))`` for the rows of block b, t = 0..D+1:
        ``A_r(u) = G_r(u + 1)`` and ``B_r(v) = G_r(v)`` (each g evaluated once per pass)."""
        if b in cache:
            return cache[b]
        r = blocks[b]
        t = np.minimum(np.arange(D + 2)[None, :], c[r][:, None])
        vals = _g(a[r][:, None] + (c[r][:, None] - t) + 1.0)
        if keep:
            cache[b] = vals
        return vals

    def merge(best, vals, r):
        top = _top2(vals)
        top = (top[0], r[top[1]], top[2])
        if best is None:
            return top
        f1, a1, s1 = best
        f2, a2, s2 = top
        return (np.minimum(f1, f2), np.where(f1 <= f2, a1, a2),
                np.minimum(np.maximum(f1, f2), np.minimum(s1, s2)))

    # pass 1: TA(r) = top-2 over leaving i of A_i(min(r, U_i)); TB(r) over every j of B_j(min(r, c_j))
    TA = TB = None
    for b, r in enumerate(blocks):
        g = G(b)
        rows = np.arange(r.size)[:, None]
        TB = merge(TB, g[rows, np.minimum(d[None, :], c[r][:, None])], r)
        lv = c[r] >= 1
        if lv.any():
            TA = merge(TA, g[rows[lv], np.minimum(d[None, :], U[r][lv][:, None]) + 1], r[lv])
    zero = np.flatnonzero(c == 0)
    TZ = None
    if zero.size:
        TZ = _top2(_g(a[zero] + 1.0)[:, None])
        TZ = (TZ[0][0], zero[TZ[1][0]], TZ[2][0])
    # pass 2: the three vertex families of the docstring
    out = np.full(D + 1, np.inf)
    for b, r in enumerate(blocks):
        g = G(b)
        rows = np.arange(r.size)[:, None]
        vj = np.minimum(d[None, :], c[r][:, None])
        Bv = g[rows, vj]
        if TA is not None:  # j first: j takes min(d, c_j), a leaving i the rest
            out = np.minimum(out, (Bv + _excluding(TA, r, d[None, :] - vj)).min(axis=0))
        if TZ is not None and D >= 1:  # c_i = 0 raised to 1: distance max(1, v)
            other = np.where(TZ[1] == r, TZ[2], TZ[0])[:, None]
            out[1:] = np.minimum(out[1:], (Bv[:, 1:] + other).min(axis=0))
        lv = c[r] >= 1
        if lv.any():  # i first: i takes min(d, U_i), j the rest
            ui = np.minimum(d[None, :], U[r][lv][:, None])
            out = np.minimum(out, (g[rows[lv], ui + 1] + _excluding(TB, r[lv], d[None, :] - ui)).min(axis=0))
    return np.minimum.accumulate(out)


def smooth_sensitivity(prior: ArrayLike, counts: ArrayLike, gamma: float = 1.0,
                       distance: str = DEFAULT_DISTANCE) -> float:
    """gamma-smooth sensitivity ``S(c) = max_{c''} 1 / (1/LS(c'') + gamma d(c, c''))``.

    docs/definitions.md §3; 004 Thm 5.1, 003.

    Exact, by the bounded search of the module docstring (``distance`` other than Hellinger: by
    enumeration of R(n) with that distance's LS).  ``S >= LS`` and
    ``1/S(c) - 1/S(c') <= gamma`` for adjacent c, c'.
    """
    c = validate.counts(counts)
    a = validate.prior(prior, c.size)
    gamma = validate.gamma(gamma)
    dist = _distance(distance, c.size)
    if dist is not None:
        ls, d = _all_ls(a, int(c.sum()), dist), _all_steps(c)
        return float(np.max(1.0 / (1.0 / ls + gamma * d)))
    return _smooth_search(
        a, c,
        objective=lambda h, d: 1.0 / (1.0 / h + gamma * d),
        reach=lambda best: (1.0 / best - 1.0) / gamma,
    )


def beta_smooth_sensitivity(prior: ArrayLike, counts: ArrayLike, epsilon: float, delta: float,
                            distance: str = DEFAULT_DISTANCE) -> float:
    """beta-smooth sensitivity ``S_b(c) = max_{c''} LS(c'') exp(-b d(c, c''))`` (docs/definitions.md §3; 000 Def. 4.1).

    ``b = smoothing_beta(epsilon, delta, n)``.  Exact, by the bounded search of the module docstring
    (``distance`` other than Hellinger: by enumeration of R(n) with that distance's LS).
    """
    c = validate.counts(counts)
    a = validate.prior(prior, c.size)
    b = smoothing_beta(epsilon, delta, int(c.sum()))
    dist = _distance(distance, c.size)
    if dist is not None:
        ls, d = _all_ls(a, int(c.sum()), dist), _all_steps(c)
        return float(np.max(ls * np.exp(-b * d)))
    return _smooth_search(
        a, c,
        objective=lambda h, d: h * np.exp(-b * d),
        reach=lambda best: -math.log(best) / b,
    )


def distance_transform(values: ArrayLike, n: int, k: int, step: float) -> NDArray[np.float64]:
    """Min-plus transform ``out(c) = min_{c''} values(c'') + step * d(c, c'')`` on the lattice of size n.

    ``values`` is aligned with :func:`~dpposterior.models.candidates` ``(n, k)``.  ``d`` is the
    substitution (graph) distance, so relaxing ``out(c) <- out(c') + step`` over neighbours
    until nothing changes (Bellman-Ford with unit edges) is exact.
    """
    out = np.array(values, dtype=np.float64)
    cands = candidates(n, k)
    nbr = []
    for i, j in directions(k):
        ok = cands[:, i] >= 1
        moved = cands[ok].copy()
        moved[:, i] -= 1
        moved[:, j] += 1
        nbr.append((np.flatnonzero(ok), candidate_rank(moved)))
    while True:
        new = out.copy()
        for src, dst in nbr:
            np.minimum.at(new, dst, out[src] + step)
        if np.array_equal(new, out):
            return out
        out = new


def smooth_sensitivity_all(prior: ArrayLike, n: int, gamma: float = 1.0,
                           distance: str = DEFAULT_DISTANCE) -> NDArray[np.float64]:
    """gamma-smooth S(c) for every count vector of size n at once (docs/definitions.md §3).

    Aligned with ``candidates(n, k)``.

    ``1/S = distance_transform(1/LS, step=gamma)`` (LS of the chosen ``distance``).
    """
    return smooth_sensitivity_all_of(validate.prior(prior), validate.size(n), validate.gamma(gamma), distance)


def smooth_sensitivity_all_of(a: NDArray[np.float64], n: int, gamma: float,
                              distance: str = DEFAULT_DISTANCE) -> NDArray[np.float64]:
    """:func:`smooth_sensitivity_all` of a validated prior, size and gamma."""
    dist = _distance(distance, a.size)
    if dist is not None:
        return 1.0 / _transform(1.0 / _all_ls(a, n, dist), n, a.size, gamma)
    ls = local_sensitivity_of(a, candidates(n, a.size))
    return 1.0 / distance_transform(1.0 / ls, n, a.size, gamma)


def beta_smooth_sensitivity_all(prior: ArrayLike, n: int, epsilon: float, delta: float,
                                distance: str = DEFAULT_DISTANCE) -> NDArray[np.float64]:
    """beta-smooth S_b(c) for every count vector of size n (docs/definitions.md §3).

    ``-ln S_b = transform(-ln LS, step=b)`` (LS of the chosen ``distance``).
    """
    return beta_smooth_sensitivity_all_of(validate.prior(prior), validate.size(n), epsilon, delta, distance)


def beta_smooth_sensitivity_all_of(a: NDArray[np.float64], n: int, epsilon: float, delta: float,
                                   distance: str = DEFAULT_DISTANCE) -> NDArray[np.float64]:
    """:func:`beta_smooth_sensitivity_all` of a validated prior and size."""
    dist = _distance(distance, a.size)
    if dist is not None:
        return np.exp(-_transform(-np.log(_all_ls(a, n, dist)), n, a.size, smoothing_beta(epsilon, delta, n)))
    ls = local_sensitivity_of(a, candidates(n, a.size))
    with np.errstate(divide="ignore"):  # LS = 0 only at n = 0 (no neighbour): -ln 0 = inf, S_b = 0
        return np.exp(-distance_transform(-np.log(ls), n, a.size, smoothing_beta(epsilon, delta, n)))


# ---------------------------------------------------------------------------------------------
# other distances (module docstring: the definition, by enumeration of R(n))


def _distance(name: str, k: int) -> Distance | None:
    """The registry entry of ``name`` checked at k categories; None for Hellinger (its own fast code above)."""
    dist = get_distance(name)
    dist.check(k)
    return None if dist.name == DEFAULT_DISTANCE else dist


def sensitivity_work(distance: str, n: int, k: int, counts: int | None = None) -> int:
    """Distance evaluations of the LS of ``counts`` count vectors of size n (default: all of R(n)) under ``distance``.

    k(k-1) per count vector for a metric (the reduction), k(k-1) |R(n)| otherwise (the max over r);
    0 for Hellinger (its closed form).  From public n, k only.
    """
    dist = get_distance(distance)
    if dist.name == DEFAULT_DISTANCE:
        return 0
    N = n_candidates(n, k)
    per = k * (k - 1) * (1 if dist.is_metric else N)
    return per * (N if counts is None else counts)


def check_sensitivity_work(dist: Distance, n: int, k: int, counts: int | None = None) -> None:
    """Refuse (one-line :class:`~dpposterior.errors.SizeError`) sensitivities over ``DPPOSTERIOR_MAX_SENSITIVITY_WORK``."""
    work = sensitivity_work(dist.name, n, k, counts)
    limit = limit_setting("DPPOSTERIOR_MAX_SENSITIVITY_WORK")
    if work > limit:
        how = "the maximum over r in R(n)" if not dist.is_metric else "the adjacent posteriors"
        raise SizeError(f"the {dist.name} sensitivities for k={k}, n={n} take {validate.big_number(work)} distance "
                        f"evaluations ({how}), over the limit of {limit:.3g} (use a smaller n, or set "
                        "DPPOSTERIOR_MAX_SENSITIVITY_WORK to raise it)")


def _generic_ls(a: NDArray[np.float64], c: NDArray[np.int64], dist: Distance) -> NDArray[np.float64]:
    """LS of each row of ``c`` (all of one size n) under ``dist`` (module docstring); 0 with no neighbour."""
    B, k = c.shape
    out = np.zeros(B)
    if B == 0:
        return out
    n = int(c[0].sum())
    cands = None if dist.is_metric else a + candidates(n, k)
    chunk = 1 if cands is None else max(1, (1 << 20) // len(cands))
    M = beta_matrix(dist.name, a, n) if cands is not None else None
    for i, j in directions(k):
        ok = np.flatnonzero(c[:, i] >= 1)
        if ok.size == 0:
            continue
        moved = c[ok].copy()
        moved[:, i] -= 1
        moved[:, j] += 1
        if cands is None:  # a metric: max_r |D(p, r) - D(p', r)| = D(p, p'), at r = p'
            vals = dist.value(a + c[ok], a + moved)
        elif M is not None:  # k = 2: rows of the kept matrix (same values)
            vals = np.abs(M[c[ok, 0]] - M[moved[:, 0]]).max(axis=1)
        else:
            vals = np.empty(ok.size)
            for lo in range(0, ok.size, chunk):
                p = (a + c[ok[lo:lo + chunk]])[:, None, :]
                q = (a + moved[lo:lo + chunk])[:, None, :]
                vals[lo:lo + chunk] = np.abs(dist.value(p, cands[None]) - dist.value(q, cands[None])).max(axis=1)
        out[ok] = np.maximum(out[ok], vals)
    return out


def _all_ls(a: NDArray[np.float64], n: int, dist: Distance) -> NDArray[np.float64]:
    """LS of every count vector of R(n) (``candidates`` order) under ``dist``, within the budget.

    A symmetric metric evaluates each adjacent pair once (``D(c, c') = D(c', c)``): half the work of
    :func:`_generic_ls`, the same values."""
    check_sensitivity_work(dist, n, a.size)
    cands = candidates(n, a.size)
    if not (dist.is_metric and dist.is_symmetric):
        return _generic_ls(a, cands, dist)
    out = np.zeros(len(cands))
    for i, j in directions(a.size):
        if i > j:
            continue
        ok = np.flatnonzero(cands[:, i] >= 1)
        if ok.size == 0:
            continue
        moved = cands[ok].copy()
        moved[:, i] -= 1
        moved[:, j] += 1
        vals = dist.value(a + cands[ok], a + moved)
        out[ok] = np.maximum(out[ok], vals)
        np.maximum.at(out, candidate_rank(moved), vals)
    return out


def _all_steps(c: NDArray[np.int64]) -> NDArray[np.int64]:
    """``d(c, c'')`` for every c'' of R(n), in ``candidates`` order."""
    return steps(c, candidates(int(c.sum()), c.size))


def _transform(values: NDArray[np.float64], n: int, k: int, step: float) -> NDArray[np.float64]:
    """:func:`distance_transform`; at k = 2 (R(n) is a path, in order) two sweeps, the same sums in O(n)."""
    if k != 2:
        return distance_transform(values, n, k, step)
    out = np.array(values, dtype=np.float64)
    for idx in (range(1, out.size), range(out.size - 2, -1, -1)):
        prev = 1 if idx.step == 1 else -1
        for t in idx:
            out[t] = min(out[t], out[t - prev] + step)
    return out


