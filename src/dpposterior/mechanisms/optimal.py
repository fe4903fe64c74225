"""The optimal eps-DP release (docs/definitions.md §9, optimal): a linear program over the table ``P(r | c)``.

Variables ``P(r | c)`` for every data set c and output r of R(n) (``|R(n)|^2`` of them).
Constraints: each row sums to 1, ``P >= 0`` and, for every ordered adjacent pair ``(c, c')`` and
every r, ``P(r | c) <= e^eps P(r | c')`` (pure eps-DP).  Objective, ``params.objective``:

* ``"worst"``: minimise ``t`` subject to ``sum_r P(r | c) H(BI(c), r) <= t`` for every c
  (the worst-case expected error);
* ``"average"``: minimise ``sum_c DirMult(c; n, a) sum_r P(r | c) H(BI(c), r)`` (the
  prior-predictive average).

Solved with ``scipy.optimize.linprog(method="highs")`` on sparse (``scipy.sparse``) constraints.

Repair and certificate.  A solver returns the table up to its feasibility tolerance, so after
the solve negatives are clipped to 0 and rows renormalised; then the table is mixed with the
uniform table, ``P' = (1 - lam) P + lam U``.  The DP constraints are linear, so a mixture of
eps-DP tables is eps-DP, and for a violation ``v = P(r|c) - e^eps P(r|c') > 0`` the mixture
satisfies the constraint as soon as ``lam >= v / (v + u (e^eps - 1))`` (``u = 1/|R(n)|``); the
largest such lam over all pairs (at least ``MIN_MIX``, which also makes every entry positive) is
used.  The repaired log table is then certified by the exact worst-case scan
(:func:`.scan.worst_case_scan` on its rows); if the scan (in floating point)
exceeds eps, lam is doubled and the scan repeated.  ``certificate(...)`` returns the certified
concrete epsilon and lam.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.optimize import linprog

from ..distances import HellingerGrid
from ..errors import InputError, SizeError
from ..models import candidate_rank, candidates, log_prior_predictive, n_candidates
from .base import OBJECTIVES, Mechanism, Params, Rows, _as_rng, _inverse_cdf
from .scan import worst_case_scan

#: Largest |R(n)| the LP is attempted for (|R(n)|^2 variables; k = 2, n = 200 is |R(n)| = 201).
MAX_OUTPUTS = 260
#: Largest eps the LP is solved for: its constraints carry e^eps, and HiGHS reports a model error
#: once that passes ~1e20 (eps ~ 46); at eps = 30 the optimal table already puts all but ~1e-13
#: of its mass on the truth, so larger eps is refused rather than silently solved at a smaller one.
MAX_EPSILON = 30.0
#: HiGHS methods tried in turn (a badly scaled table can stop one and not another)
SOLVERS = ("highs", "highs-ds", "highs-ipm")


class SolverError(InputError):
    """The LP solver failed on these (valid) settings: one line, exit status 2 at the command line."""


#: Smallest uniform mixing weight of the repair (keeps every entry > 0, costs < 1e-9 in error).
MIN_MIX = 1e-10


class OptimalRows(Rows):
    """Rows of the solved table: ``ln P(. | c)`` looked up by the rank of c."""

    def __init__(self, a, n, log_table: NDArray[np.float64]):
        super().__init__(a, n)
        self.log_table = log_table

    def __call__(self, counts):
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.k)
        return self.log_table[candidate_rank(counts)].copy()


def _adjacent_pairs(cands: NDArray[np.int64]) -> NDArray[np.int64]:
    """Every ordered adjacent pair ``(rank c, rank c')``, ``c' = c - e_i + e_j``, i != j."""
    k = cands.shape[1]
    out = []
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            ok = np.flatnonzero(cands[:, i] >= 1)
            moved = cands[ok].copy()
            moved[:, i] -= 1
            moved[:, j] += 1
            out.append(np.stack([ok, candidate_rank(moved)], axis=1))
    return np.concatenate(out) if out else np.empty((0, 2), dtype=np.int64)


def solve_table(a: NDArray[np.float64], n: int, epsilon: float, objective: str) -> tuple[NDArray, float, float]:
    """Solve the LP (module docstring): ``(table (N, N), lam, LP optimum)`` before the repair's mixing."""
    cands = candidates(n, a.size)
    N = len(cands)
    H = HellingerGrid(a, n).hellinger(cands, cands)
    scale = float(H.max()) or 1.0  # the LP sees H / max H (same minimiser; HiGHS needs it at tiny H, e.g. a = 1e9)
    H = H / scale
    nv = N * N + (objective == "worst")
    pairs = _adjacent_pairs(cands)
    P = len(pairs)
    r = np.arange(N)
    rows = (np.arange(P)[:, None] * N + r[None, :]).ravel()
    dp = sparse.coo_matrix(
        (np.concatenate([np.ones(P * N), np.full(P * N, -np.exp(epsilon))]),
         (np.concatenate([rows, rows]),
          np.concatenate([(pairs[:, 0:1] * N + r).ravel(), (pairs[:, 1:2] * N + r).ravel()]))),
        shape=(P * N, nv))
    eq = sparse.coo_matrix((np.ones(N * N), (np.repeat(np.arange(N), N), np.arange(N * N))), shape=(N, nv))
    if objective == "worst":
        err = sparse.coo_matrix(
            (np.concatenate([H.ravel(), -np.ones(N)]),
             (np.concatenate([np.repeat(np.arange(N), N), np.arange(N)]),
              np.concatenate([np.arange(N * N), np.full(N, N * N)]))),
            shape=(N, nv))
        A_ub = sparse.vstack([dp, err]).tocsr()
        cost = np.zeros(nv)
        cost[-1] = 1.0
    else:
        A_ub = dp.tocsr()
        pi = np.exp(log_prior_predictive(a, cands))
        cost = (pi[:, None] * H).ravel()
    for method in SOLVERS:  # HiGHS' automatic choice, then its dual simplex, then its interior point
        res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=eq.tocsr(), b_eq=np.ones(N),
                      bounds=(0, None), method=method)
        if res.status == 0:
            break
    else:
        raise SolverError(f"the optimal mechanism's linear program for k={a.size}, n={n}, epsilon={epsilon:g} "
                          f"was not solved by HiGHS ({', '.join(SOLVERS)}): {' '.join(str(res.message).split())[:120]}")
    T = np.clip(res.x[:N * N].reshape(N, N), 0.0, None)
    T /= T.sum(axis=1, keepdims=True)
    # repair: smallest uniform mixing weight that makes every DP constraint hold exactly
    u = 1.0 / N
    v = T[pairs[:, 0]] - np.exp(epsilon) * T[pairs[:, 1]]
    v = v[v > 0]
    lam = float(np.max(v / (v + u * np.expm1(epsilon)))) if v.size else 0.0
    return T, max(lam, MIN_MIX), float(res.fun) * scale


@lru_cache(maxsize=16)
def _solved(a: tuple, n: int, epsilon: float, objective: str) -> tuple[NDArray, float, float, float]:
    arr = np.asarray(a, dtype=np.float64)
    T, lam, opt = solve_table(arr, n, epsilon, objective)
    N = T.shape[0]
    while True:
        log_table = np.log((1.0 - lam) * T + lam / N)
        loss = worst_case_scan(OptimalRows(arr, n, log_table))[0] if n > 0 else 0.0
        if loss <= epsilon or lam >= 1.0:
            break
        lam = min(1.0, 2.0 * lam)
    log_table.setflags(write=False)
    return log_table, lam, float(loss), opt


class OptimalMechanism(Mechanism):
    """The eps-DP table minimising the expected Hellinger error (docs/definitions.md §9; module docstring)."""

    family = "optimal"
    objectives = OBJECTIVES

    def check(self, params: Params) -> Params:
        """Refuse eps above :data:`MAX_EPSILON` (one line; see its comment)."""
        params = super().check(params)
        if params.epsilon > MAX_EPSILON:
            raise InputError(f"the optimal mechanism's linear program is solved for epsilon <= {MAX_EPSILON:g}, "
                             f"got {params.epsilon:g} (e^eps coefficients past ~1e13 defeat the solver)")
        return params

    def check_size(self, n: int, k: int, what: str) -> None:
        size = n_candidates(n, k)
        if size > MAX_OUTPUTS:
            raise SizeError(f"the optimal mechanism's linear program for k={k}, n={n} has |R(n)| = {size} "
                            f"outputs, over the limit of {MAX_OUTPUTS} (|R(n)|^2 variables)")

    def audit_entry_seconds(self, n, k):
        """Draws through the inverse cdf of the solved table (as the enumerated exponential ones)."""
        return 0.3e-6

    def check_setup(self, n, k, *, setups=1.0, what="a draw"):
        """The linear program over R(n) must be within :data:`MAX_OUTPUTS` outputs."""
        self.check_size(n, k, what)

    def certificate(self, prior, n: int, params: Params) -> dict[str, float]:
        """``{"concrete_epsilon", "mix", "lp_optimum"}`` of the repaired, certified table."""
        self.check_size(n, len(prior), "the optimal table")
        _, lam, loss, opt = _solved(tuple(float(x) for x in prior), int(n), params.epsilon, params.objective)
        return {"concrete_epsilon": loss, "mix": lam, "lp_optimum": opt}

    def rows(self, prior, n, params):
        self.check_size(n, len(prior), "the optimal table")
        table = _solved(tuple(float(x) for x in prior), int(n), params.epsilon, params.objective)[0]
        return OptimalRows(np.asarray(prior, dtype=np.float64), n, table)

    def sample(self, prior, counts, params, size, rng):
        rng = _as_rng(rng)
        n, k = int(counts.sum()), counts.size
        return _inverse_cdf(self.log_pmf(prior, counts, params), candidates(n, k), size, rng)


#: The registry entry (registered by :mod:`dpposterior.mechanisms`).
OPTIMAL = OptimalMechanism(
    "optimal", "optimal (linear program)", "beyond the drafts: the LP over P(r | c)",
    "table P(r | c) from an LP", 1.0, False,
    "eps-DP: LP constraints over adjacent pairs, repaired and certified by the exact concrete eps")
