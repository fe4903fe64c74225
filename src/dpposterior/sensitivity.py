"""Local, global and smooth sensitivities of the score ``u(c, r) = H(BI(c), r)`` (SPEC §3).

The reduction everything here rests on
--------------------------------------
For a substitution ``c' = c - e_i + e_j`` the posteriors ``Dir(a + c)`` and ``Dir(a + c')``
differ in two coordinates and have the same total, so (distances module)

    ln BC(BI(c), BI(c')) = g(a_i + c_i) + g(a_j + c_j + 1),   g(x) = J(x, x - 1),

where ``J`` is the Jensen gap of lnGamma.  ``g`` is increasing on ``x > 1`` (``g' = -``
the Jensen gap of the concave digamma), so the distance between adjacent posteriors
is largest where the counts involved are smallest.  Hence:

* ``LS(c) = max_{i != j, c_i >= 1} H_ij(c)`` in O(k^2) per count vector (SPEC §3 reduced
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
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .distances import hellinger_from_log_bc, lgamma_jensen_gap
from . import validate
from .errors import InputError
from .models import as_counts, as_prior, as_size, candidate_rank, candidates, directions

#: The drafts' constant global sensitivity ``sqrt(1 - pi/4)``: LS at n = 1 under Beta(1, 1).
PAPER_GLOBAL_SENSITIVITY = math.sqrt(1.0 - math.pi / 4.0)

GLOBAL_SENSITIVITY_METHODS = ("exact", "paper")


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


def local_sensitivity(prior: ArrayLike, counts: ArrayLike) -> NDArray[np.float64] | float:
    """Local sensitivity ``LS(c) = max over adjacent c' of H(BI(c), BI(c'))`` (SPEC §3, reduced form).

    Vectorised over leading axes of ``counts`` (last axis = categories); returns a float
    for a single count vector.  Equals the definition's maximum over neighbours and
    candidates r in R(n) by the triangle inequality (attained at r = BI(c')).
    """
    lbc = adjacent_log_bc(prior, counts)
    best = lbc.reshape(*lbc.shape[:-2], -1).min(axis=-1)
    ls = hellinger_from_log_bc(best)
    return float(ls) if np.ndim(ls) == 0 else ls


def global_sensitivity(prior: ArrayLike, n: int, method: str = "exact") -> float:
    """Global sensitivity ``GS = max_c LS(c)`` over all count vectors of size n (SPEC §3).

    ``method="exact"`` computes it for the given prior and n (module docstring);
    ``method="paper"`` returns the drafts' constant ``sqrt(1 - pi/4)``, which is exact
    only for Beta(1, 1) at n = 1 and *under*-states GS for priors below 1.
    """
    if method == "paper":
        return PAPER_GLOBAL_SENSITIVITY
    if method != "exact":
        raise InputError(f"global sensitivity must be one of {', '.join(GLOBAL_SENSITIVITY_METHODS)}, got {method!r}")
    a = as_prior(prior)
    n = as_size(n)
    k = a.size
    if k == 2:
        t = np.unique(np.clip([0, 1, n - 1, n], 0, n))
        return float(local_sensitivity(a, np.column_stack([t, n - t])).max())
    # c_i = 1, c_j = 0 for the pair (i, j); the remaining n - 1 records sit elsewhere.
    lbc = _g(a + 1.0)[:, None] + _g(a + 1.0)[None, :]
    lbc[np.arange(k), np.arange(k)] = np.inf
    return float(hellinger_from_log_bc(lbc.min()))


def smoothing_beta(epsilon: float, delta: float, n: int) -> float:
    """``b = ln(1 - eps / (2 ln(delta / (2 (n + 1)))))`` of the beta-smooth sensitivity (SPEC §3; 000 Def. 4.1)."""
    return math.log1p(-epsilon / (2.0 * math.log(delta / (2.0 * (n + 1)))))


def _smooth_search(a: NDArray[np.float64], c: NDArray[np.int64], objective, reach) -> float:
    """Maximise ``objective(LS-value, d)`` over count vectors c'' of size n (module docstring).

    ``objective(h, d)`` must be increasing in h and decreasing in d; ``reach(best)`` returns
    the largest d at which ``objective(1, d)`` could still exceed ``best``.
    """
    n = int(c.sum())
    k = c.size
    best = float(objective(local_sensitivity(a, c), 0))
    D = int(min(n, math.floor(reach(best))))
    if D <= 0:
        return best
    if k == 2:
        x = np.arange(max(0, c[0] - D), min(n, c[0] + D) + 1)
        ls = local_sensitivity(a, np.column_stack([x, n - x]))
        return max(best, float(np.max(objective(ls, np.abs(x - c[0])))))
    for i, j in directions(k):
        xi = np.arange(max(1, c[i] - D), max(c[i], 1) + 1)[:, None]
        xj = np.arange(max(0, c[j] - D), c[j] + 1)[None, :]
        u, v = c[i] - xi, c[j] - xj
        d = np.maximum(np.maximum(np.abs(u), np.abs(v)), np.abs(u + v))
        ok = (d <= D) & (xi + xj <= n)
        if not ok.any():
            continue
        lbc = _g(a[i] + xi) + _g(a[j] + xj + 1.0)
        h = hellinger_from_log_bc(np.broadcast_to(lbc, ok.shape)[ok])
        best = max(best, float(np.max(objective(h, d[ok]))))
    return best


def smooth_sensitivity(prior: ArrayLike, counts: ArrayLike, gamma: float = 1.0) -> float:
    """gamma-smooth sensitivity ``S(c) = max_{c''} 1 / (1/LS(c'') + gamma d(c, c''))`` (SPEC §3; 004 Thm 5.1, 003).

    Exact, by the bounded search of the module docstring.  ``S >= LS`` and
    ``1/S(c) - 1/S(c') <= gamma`` for adjacent c, c'.
    """
    c = as_counts(counts)
    a = as_prior(prior, c.size)
    gamma = check_gamma(gamma)
    return _smooth_search(
        a, c,
        objective=lambda h, d: 1.0 / (1.0 / h + gamma * d),
        reach=lambda best: (1.0 / best - 1.0) / gamma,
    )


def beta_smooth_sensitivity(prior: ArrayLike, counts: ArrayLike, epsilon: float, delta: float) -> float:
    """beta-smooth sensitivity ``S_b(c) = max_{c''} LS(c'') exp(-b d(c, c''))`` (SPEC §3; 000 Def. 4.1).

    ``b = smoothing_beta(epsilon, delta, n)``.  Exact, by the bounded search of the module docstring.
    """
    c = as_counts(counts)
    a = as_prior(prior, c.size)
    b = smoothing_beta(epsilon, delta, int(c.sum()))
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


def smooth_sensitivity_all(prior: ArrayLike, n: int, gamma: float = 1.0) -> NDArray[np.float64]:
    """gamma-smooth S(c) for every count vector of size n at once (SPEC §3), aligned with ``candidates(n, k)``.

    ``1/S = distance_transform(1/LS, step=gamma)``.
    """
    a = as_prior(prior)
    n = as_size(n)
    gamma = check_gamma(gamma)
    ls = local_sensitivity(a, candidates(n, a.size))
    return 1.0 / distance_transform(1.0 / ls, n, a.size, gamma)


def beta_smooth_sensitivity_all(prior: ArrayLike, n: int, epsilon: float, delta: float) -> NDArray[np.float64]:
    """beta-smooth S_b(c) for every count vector of size n (SPEC §3): ``-ln S_b = transform(-ln LS, step=b)``."""
    a = as_prior(prior)
    n = as_size(n)
    ls = local_sensitivity(a, candidates(n, a.size))
    return np.exp(-distance_transform(-np.log(ls), n, a.size, smoothing_beta(epsilon, delta, n)))


# The validator lives in :mod:`dpposterior.validate`; the name is kept for existing imports.
check_gamma = validate.gamma
