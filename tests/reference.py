"""Brute-force transcriptions of the definitions (docs/definitions.md), for testing the fast library code.

Written naively on purpose: plain Python loops, ``math.lgamma``, ``mpmath`` and
``scipy.stats.laplace.cdf``, each function a literal reading of one line of docs/definitions.md.  Nothing
here imports :mod:`dpposterior`, so an error in the library cannot hide in the reference.
Only usable for tiny n and k (everything is O(|R(n)|^2) or worse).
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import mpmath
import numpy as np
from scipy.stats import laplace

# --- docs/definitions.md §1: models -------------------------------------------------------------------------

def compositions(n: int, k: int) -> list[tuple[int, ...]]:
    """R(n) as count vectors: every m in N^k with sum n, in lexicographic order."""
    return sorted(m for m in itertools.product(range(n + 1), repeat=k) if sum(m) == n)


def neighbours(c) -> list[tuple[int, ...]]:
    """Every c' = c - e_i + e_j, i != j, c_i >= 1 (substitution of one record)."""
    out = []
    for i in range(len(c)):
        for j in range(len(c)):
            if i != j and c[i] >= 1:
                d = list(c)
                d[i] -= 1
                d[j] += 1
                out.append(tuple(d))
    return out


def dist(c, d) -> int:
    """d(c, c'') = |c - c''|_1 / 2."""
    return sum(abs(x - y) for x, y in zip(c, d)) // 2


# --- docs/definitions.md §2: Hellinger distance ------------------------------------------------------------

def log_beta(v) -> float:
    return sum(math.lgamma(x) for x in v) - math.lgamma(sum(v))


def hellinger(p, q) -> float:
    """H = sqrt(1 - BC), ln BC = lnB((p+q)/2) - (lnB(p) + lnB(q))/2, in plain double precision."""
    mid = [(x + y) / 2 for x, y in zip(p, q)]
    log_bc = log_beta(mid) - (log_beta(p) + log_beta(q)) / 2
    return math.sqrt(max(0.0, 1.0 - math.exp(log_bc)))


def hellinger_posteriors(a, c, r) -> float:
    """H(Dir(a + c), Dir(a + r)) with ``1 - BC`` as ``-expm1(ln BC)`` (BC clipped at 1): the library's form of the
    loss between two posteriors, written out from docs/definitions.md §2 for the offset-sum oracles."""
    p = [ai + ci for ai, ci in zip(a, c)]
    q = [ai + ri for ai, ri in zip(a, r)]
    mid = [(x + y) / 2 for x, y in zip(p, q)]
    log_bc = log_beta(mid) - (log_beta(p) + log_beta(q)) / 2
    return math.sqrt(max(0.0, -math.expm1(min(log_bc, 0.0))))


def sequential_clamp(c, d, n: int) -> tuple[int, ...]:
    """The sequential clamp's output for data set ``c`` and noise ``d = (D_1..D_(k-1))`` (docs/definitions.md §4):
    ``m_i = clamp(c_i + D_i, 0, n - m_1 - ... - m_(i-1))`` for i < k, ``m_k = n - sum``."""
    out, room = [], n
    for ci, di in zip(c[:-1], d):
        m = min(max(ci + di, 0), room)
        out.append(m)
        room -= m
    return (*out, room)


def clamp_cap_position(c, d, n: int):
    """The first coordinate (0-based) where the sequential clamp's clamp from above acts (``max(c_i + D_i, 0)`` over
    the room ``n - m_1 - ... - m_(i-1)``), or None where it never does."""
    room = n
    for i, (ci, di) in enumerate(zip(c[:-1], d)):
        if max(ci + di, 0) > room:
            return i
        room -= max(ci + di, 0)
    return None


def head_moved_pairs(n: int, k: int, offsets) -> int:
    """The pairs (data set with ``c_1 >= ... >= c_(k-1)``, distinct prefix ``(D_1..D_(k-2))`` of ``offsets``) where the
    sequential clamp of the first ``k - 2`` counts leaves a room ``n - m_1 - ... - m_(k-2)`` other than
    ``n - sum_i (c_i + D_i)``, one pair at a time."""
    prefixes = sorted({tuple(d[: k - 2]) for d in offsets})
    count = 0
    for c in compositions(n, k):
        if any(c[i] < c[i + 1] for i in range(k - 2)):
            continue
        for p in prefixes:
            room = n
            for ci, pi in zip(c[: k - 2], p):
                room -= min(max(ci + pi, 0), room)
            if room != n - sum(c[: k - 2]) - sum(p):
                count += 1
    return count


def clamp_cap_sum(a, n: int, c, offsets, weights) -> float:
    """``E_cap(c) = sum K(w) H(BI(c), Dir(a + B(c, w)))`` over the offsets ``w`` where the clamp from above acts,
    term by term (the part of the sequential clamp's offset sum a symmetry in the first counts does not carry)."""
    total = 0.0
    for d, wt in zip(offsets, weights):
        if clamp_cap_position(c, d, n) is not None:
            total += wt * hellinger_posteriors(a, c, sequential_clamp(c, d, n))
    return total


def search_weights(a, eps: float, z, p, ball, Dc: int):
    """The one-point search's weights at the data sets ``c = p + v`` for the offsets ``v`` of ``ball`` (each
    ``|v_i| <= Dc``), written out coordinate by coordinate (docs/definitions.md §9's prior predictive up to a
    constant, and the mechanism's ``-eps d(z, c)``): ``(c, sum_i [lnGamma(a_i + c_i) - lnGamma(c_i + 1)] - eps
    floor(|z - c|_1 / 2))``, each coordinate's term read from a table over ``p_i - Dc .. p_i + Dc`` (negative counts
    read at 0), summed left to right."""
    from scipy.special import gammaln

    cs = p[None, :] + ball
    lw = np.zeros(len(cs))
    dist = np.zeros(len(cs), dtype=np.int64)
    for i in range(len(a)):
        v = np.arange(p[i] - Dc, p[i] + Dc + 1)
        table = gammaln(a[i] + np.maximum(v, 0)) - gammaln(np.maximum(v, 0) + 1.0)
        lw += table[ball[:, i] + Dc]
        dist += np.abs(v - z[i])[ball[:, i] + Dc]
    return cs, lw - eps * (dist // 2)


def kl(p, q) -> float:
    """KL(Dir(p) || Dir(q)) = lnB(q) - lnB(p) + sum_i (p_i - q_i) (psi(p_i) - psi(sum p)) (docs/definitions.md §2)."""
    P = sum(p)
    return (log_beta(q) - log_beta(p)
            + sum((x - y) * float(mpmath.digamma(x) - mpmath.digamma(P)) for x, y in zip(p, q)))


def tv(p, q) -> float:
    """TV(Beta(p), Beta(q)) = 1/2 int |f_p - f_q| = sum over {f_p > f_q} of (P - Q), k = 2 only.

    The set {f_p > f_q} is bounded by the sign changes of ln f_p - ln f_q on a grid of 1000 points
    (refined by bisection in mpmath); each interval's mass is mpmath's regularised incomplete beta.
    """
    if tuple(p) == tuple(q):
        return 0.0
    with mpmath.workdps(30):
        (p1, p2), (q1, q2) = ([mpmath.mpf(x) for x in v] for v in (p, q))
        lbp = mpmath.loggamma(p1) + mpmath.loggamma(p2) - mpmath.loggamma(p1 + p2)
        lbq = mpmath.loggamma(q1) + mpmath.loggamma(q2) - mpmath.loggamma(q1 + q2)

        def g(x):
            return (p1 - q1) * mpmath.log(x) + (p2 - q2) * mpmath.log1p(-x) - lbp + lbq

        grid = [mpmath.mpf(i) / 1000 for i in range(1, 1000)]
        cuts = [mpmath.mpf(0)]
        for x0, x1 in zip(grid, grid[1:]):
            if (g(x0) > 0) != (g(x1) > 0):
                lo, hi = x0, x1
                for _ in range(80):
                    mid = (lo + hi) / 2
                    if (g(mid) > 0) == (g(lo) > 0):
                        lo = mid
                    else:
                        hi = mid
                cuts.append((lo + hi) / 2)
        cuts.append(mpmath.mpf(1))
        total = mpmath.mpf(0)
        for x0, x1 in zip(cuts, cuts[1:]):
            mass = (mpmath.betainc(p1, p2, x0, x1, regularized=True)
                    - mpmath.betainc(q1, q2, x0, x1, regularized=True))
            total += max(mass, 0)
        return float(total)


DISTANCES = {"hellinger": hellinger, "kl": kl, "tv": tv}


def hellinger_mp(p, q, dps: int = 50):
    """The same formula in mpmath at ``dps`` digits (an mpf); parameters are taken as exact."""
    with mpmath.workdps(dps):
        p = [mpmath.mpf(x) for x in p]
        q = [mpmath.mpf(x) for x in q]

        def lb(v):
            return mpmath.fsum(mpmath.loggamma(x) for x in v) - mpmath.loggamma(mpmath.fsum(v))

        mid = [(x + y) / 2 for x, y in zip(p, q)]
        log_bc = lb(mid) - (lb(p) + lb(q)) / 2
        return +mpmath.sqrt(-mpmath.expm1(log_bc))


def hellinger_defective(p, q) -> float:
    """The authors' original code (docs/definitions.md §2 'known defect'): every log-Beta divided by log(sum of its argument)."""
    def lb(v):
        return log_beta(v) / math.log(sum(v))

    mid = [(x + y) / 2 for x, y in zip(p, q)]
    log_bc = lb(mid) - (lb(p) + lb(q)) / 2
    return math.sqrt(max(0.0, -math.expm1(log_bc)))


# --- docs/definitions.md §3-§5 for one prior and n: everything by enumeration ------------------------------

def smoothing_b(eps: float, delta: float, n: int) -> float:
    """b = ln(1 - eps / (2 ln(delta / (2 (n+1)))))  (docs/definitions.md §3)."""
    return math.log(1.0 - eps / (2.0 * math.log(delta / (2.0 * (n + 1)))))


LAPLACE_SCALE = {  # docs/definitions.md §4 Laplace table: scale s as a function of (k, eps)
    "lszhang": lambda k, eps: 2.0 / eps,
    "lsdim": lambda k, eps: (2.0 if k == 2 else k) / eps,
    "lshist": lambda k, eps: (1.0 if k == 2 else 2.0) / eps,
}
EXPONENTIAL = ("ehd", "ehdl", "ehds", "mh", "mh-delta")
LAPLACE = tuple(LAPLACE_SCALE)
GEOMETRIC_SCALE = {"geometric": LAPLACE_SCALE["lshist"]}  # docs/definitions.md §9: same scale as lshist


def discrete_laplace_prob(d: int, scale: float):
    """P(D = d) = (1 - q)/(1 + q) q^|d|, q = exp(-1/s) (docs/definitions.md §9), in mpmath."""
    q = mpmath.exp(-1 / mpmath.mpf(scale))
    return (1 - q) / (1 + q) * q ** abs(d)


def geometric_pmf(c, n: int, scale: float) -> dict[tuple[int, ...], float]:
    """P(m | c) of the sequential clamp with discrete Laplace noise D: the tails summed term by term.

    m_i = clamp(c_i + D, 0, R_i): m_i = 0 < R_i  <=>  D <= -c_i;  0 < m_i < R_i  <=>  D = m_i - c_i;
    m_i = R_i > 0  <=>  D >= R_i - c_i.  Tail sums are cut where the terms are below 1e-40.
    """
    k = len(c)
    with mpmath.workdps(40):
        reach = int(mpmath.ceil(40 * mpmath.log(10) * scale)) + 2 * n + 2

        def tail_ge(t):  # P(D >= t) by summing the definition
            return mpmath.fsum(discrete_laplace_prob(d, scale) for d in range(t, t + reach))

        out = {}
        for m in compositions(n, k):
            prob = mpmath.mpf(1)
            remaining = n
            for i in range(k - 1):
                if remaining == 0:
                    cell = mpmath.mpf(1)
                elif m[i] == 0:
                    cell = tail_ge(c[i])  # P(D <= -c_i) = P(D >= c_i) by symmetry
                elif m[i] == remaining:
                    cell = tail_ge(remaining - c[i])
                else:
                    cell = discrete_laplace_prob(m[i] - c[i], scale)
                prob *= cell
                remaining -= m[i]
            out[m] = float(prob)
    return out


@lru_cache(maxsize=None)
def _cdf(y: float, scale: float) -> float:
    return float(laplace.cdf(y, scale=scale))


@lru_cache(maxsize=None)
def _sf(y: float, scale: float) -> float:
    return float(laplace.sf(y, scale=scale))


def laplace_pmf(c, n: int, scale: float) -> dict[tuple[int, ...], float]:
    """P(m | c) of the sequential clamp (docs/definitions.md §4), integrating scipy's Laplace cdf cell by cell.

    m_i = clamp(floor(c_i + Y_i), 0, R_i) with R_i = n - m_1 - ... - m_{i-1}:
    m_i = 0 < R_i  <=>  c_i + Y < 1;   0 < m_i < R_i  <=>  m_i <= c_i + Y < m_i + 1;
    m_i = R_i > 0  <=>  c_i + Y >= R_i; R_i = 0 forces m_i = 0 with probability 1.
    """
    k = len(c)
    out = {}
    for m in compositions(n, k):
        prob = 1.0
        remaining = n
        for i in range(k - 1):
            y_lo, y_hi = m[i] - c[i], m[i] + 1 - c[i]  # Y in [y_lo, y_hi) for an interior cell
            if remaining == 0:
                cell = 1.0
            elif m[i] == 0:
                cell = _cdf(y_hi, scale)
            elif m[i] == remaining:
                cell = _sf(y_lo, scale)
            else:
                cell = _cdf(y_hi, scale) - _cdf(y_lo, scale)
            prob *= cell
            remaining -= m[i]
        out[m] = prob
    return out


class Brute:
    """All the defined quantities for one prior and n, by enumeration over R(n) (tiny n only)."""

    def __init__(self, prior, n: int, distance: str = "hellinger"):
        self.distance = distance
        self.a = tuple(float(x) for x in prior)
        self.n = n
        self.k = len(self.a)
        self.cands = compositions(n, self.k)
        self.index = {m: i for i, m in enumerate(self.cands)}
        post = [tuple(ai + ci for ai, ci in zip(self.a, c)) for c in self.cands]
        # H[c][r] = D(BI(c), Dir(a + r)), D = H unless another distance is named
        d = DISTANCES[distance]
        self.H = [[d(p, q) for q in post] for p in post]
        self.LS = [self.ls_definition(c) for c in self.cands]

    def h(self, c, r) -> float:
        return self.H[self.index[tuple(c)]][self.index[tuple(r)]]

    def ls_definition(self, c) -> float:
        """LS(c) = max over adjacent c' and r in R(n) of |H(BI(c), r) - H(BI(c'), r)| (docs/definitions.md §3, unreduced)."""
        row = self.H[self.index[tuple(c)]]
        return max(abs(row[r] - self.H[self.index[cp]][r])
                   for cp in neighbours(c) for r in range(len(self.cands)))

    def ls(self, c) -> float:
        return self.LS[self.index[tuple(c)]]

    def gs(self) -> float:
        """GS = max over all c of LS(c)."""
        return max(self.LS)

    def smooth(self, c, gamma: float) -> float:
        """S(c) = max over c'' of 1 / (1/LS(c'') + gamma d(c, c''))."""
        return max(1.0 / (1.0 / ls + gamma * dist(c, cpp)) for cpp, ls in zip(self.cands, self.LS))

    def beta_smooth(self, c, eps: float, delta: float) -> float:
        """S_b(c) = max over c'' of LS(c'') exp(-b d(c, c''))."""
        b = smoothing_b(eps, delta, self.n)
        return max(ls * math.exp(-b * dist(c, cpp)) for cpp, ls in zip(self.cands, self.LS))

    def weight(self, mech: str, c, eps: float, delta: float = 1e-8, gamma: float = 1.0, gs: str = "exact") -> float:
        """w(c) of docs/definitions.md §4's table."""
        if mech == "ehd":
            return eps / (2.0 * (self.gs() if gs == "exact" else math.sqrt(1.0 - math.pi / 4.0)))
        if mech == "ehdl":
            return eps / (2.0 * self.ls(c))
        if mech == "ehds":
            return eps / (2.0 * (1.0 + gamma) * self.smooth(c, gamma))
        if mech == "mh":
            return eps / (2.0 * self.smooth(c, 1.0))
        if mech == "mh-delta":
            return eps / (2.0 * self.beta_smooth(c, eps, delta))
        raise KeyError(mech)

    def pmf(self, mech: str, c, eps: float, delta: float = 1e-8, gamma: float = 1.0, gs: str = "exact") -> list[float]:
        """P(r | c) over R(n) in lexicographic order: exp(-w H)/Z with mpmath, or the Laplace cells."""
        c = tuple(c)
        if mech in LAPLACE_SCALE:
            table = laplace_pmf(c, self.n, LAPLACE_SCALE[mech](self.k, eps))
            return [table[m] for m in self.cands]
        if mech in GEOMETRIC_SCALE:
            table = _geometric_pmf_cached(c, self.n, GEOMETRIC_SCALE[mech](self.k, eps))
            return [table[m] for m in self.cands]
        w = self.weight(mech, c, eps, delta, gamma, gs)
        with mpmath.workdps(30):
            terms = [mpmath.exp(-w * mpmath.mpf(h)) for h in self.H[self.index[c]]]
            z = mpmath.fsum(terms)
            return [float(t / z) for t in terms]

    def log_pmf(self, mech, c, eps, delta=1e-8, gamma=1.0, gs="exact") -> list[float]:
        return [math.log(p) for p in self.pmf(mech, c, eps, delta, gamma, gs)]

    def concrete_epsilon(self, mech, eps, delta=1e-8, gamma=1.0, gs="exact", at=None) -> float:
        """max over adjacent (c, c') and r of |ln p_c(r) - ln p_c'(r)| (docs/definitions.md §5); at=c: local."""
        rows = {c: self.log_pmf(mech, c, eps, delta, gamma, gs) for c in self.cands}
        sources = self.cands if at is None else [tuple(at)]
        return max(abs(x - y) for c in sources for cp in neighbours(c) for x, y in zip(rows[c], rows[cp]))

    def delta_at(self, mech, eps_prime, eps, delta=1e-8, gamma=1.0, gs="exact", at=None) -> float:
        """max over ordered adjacent pairs of sum_r max(0, p_c(r) - e^eps' p_c'(r)) (docs/definitions.md §5)."""
        rows = {c: self.pmf(mech, c, eps, delta, gamma, gs) for c in self.cands}
        best = 0.0
        sources = self.cands if at is None else [tuple(at)]
        for c in sources:
            for cp in neighbours(c):
                for p, q in ((rows[c], rows[cp]), (rows[cp], rows[c])):
                    best = max(best, sum(max(0.0, x - math.exp(eps_prime) * y) for x, y in zip(p, q)))
        return best


@lru_cache(maxsize=4096)
def _geometric_pmf_cached(c, n, scale):
    return geometric_pmf(c, n, scale)


@lru_cache(maxsize=256)
def brute(prior: tuple[float, ...], n: int, distance: str = "hellinger") -> Brute:
    """Cached :class:`Brute` (hypothesis revisits the same settings)."""
    return Brute(prior, n, distance)


def noise_aware_posterior(prior, released, mech: str, eps: float, delta: float = 1e-8, gamma: float = 1.0):
    """Bayes' rule term by term (docs/definitions.md, noise-aware posterior): ``{c: w_c}`` over all c of size n.

    ``w_c = P(m | c) DirMult(c; n, a) / sum``, with P(m | c) from :meth:`Brute.pmf` and the
    Dirichlet-multinomial written out with mpmath.
    """
    prior = tuple(float(x) for x in prior)
    n = sum(released)
    b = brute(prior, n)
    r = b.index[tuple(released)]
    with mpmath.workdps(30):
        big_a = mpmath.fsum(prior)
        out = {}
        for c in b.cands:
            pi = mpmath.factorial(n) * mpmath.gamma(big_a) / mpmath.gamma(n + big_a)
            for ci, ai in zip(c, prior):
                pi *= mpmath.gamma(ci + ai) / (mpmath.factorial(ci) * mpmath.gamma(ai))
            out[c] = mpmath.mpf(b.pmf(mech, c, eps, delta, gamma)[r]) * pi
        total = mpmath.fsum(out.values())
        return {c: float(v / total) for c, v in out.items()}


def beta_mixture_cdf(x: float, components) -> float:
    """``sum_j w_j I_x(alpha_j, beta_j)`` with mpmath's regularised incomplete beta."""
    return float(mpmath.fsum(w * mpmath.betainc(al, be, 0, x, regularized=True) for w, al, be in components))
def scaled_concrete_epsilon(b: Brute, mech: str, eps: float, factor: float, gamma: float = 1.0) -> float:
    """Worst-case concrete eps of an exponential mechanism with weight factor * w(c) (docs/definitions.md §9 calibration), mpmath."""
    rows = {}
    for c in b.cands:
        w = factor * b.weight(mech, c, eps, gamma=gamma)
        with mpmath.workdps(30):
            terms = [mpmath.exp(-w * mpmath.mpf(h)) for h in b.H[b.index[c]]]
            z = mpmath.fsum(terms)
            rows[c] = [float(mpmath.log(t / z)) for t in terms]
    return max(abs(x - y) for c in b.cands for cp in neighbours(c) for x, y in zip(rows[c], rows[cp]))


def expected_error(b: Brute, mech: str, c, eps: float) -> float:
    """E(c) = sum_r P(r | c) H(BI(c), r) (docs/definitions.md §9), by the definition."""
    p = b.pmf(mech, c, eps)
    return sum(pr * b.h(c, r) for pr, r in zip(p, b.cands))


def dirichlet_multinomial(a, c) -> float:
    """DirMult(c; n, a) = n!/prod c_i! * Gamma(A)/Gamma(n+A) * prod Gamma(c_i+a_i)/Gamma(a_i), with mpmath."""
    n, A = sum(c), sum(a)
    v = mpmath.factorial(n) * mpmath.gamma(A) / mpmath.gamma(n + A)
    for ai, ci in zip(a, c):
        v *= mpmath.gamma(ci + ai) / (mpmath.gamma(ai) * mpmath.factorial(ci))
    return float(v)


def optimal_lp_value(b: Brute, eps: float, objective: str, outputs=None) -> float:
    """Optimum of the LP of docs/definitions.md §9 (optimal mechanism), built densely by loops over R(n) (an independent transcription).

    Variables x[c][r] (row-major) and, for the worst case, t last.  ``outputs``: the ranks of the only outputs
    allowed (every other ``x[c][r]`` is 0: the LP restricted to them); default all of R(n).
    """
    import numpy as np
    from scipy.optimize import linprog

    N = len(b.cands)
    R = list(range(N)) if outputs is None else list(outputs)
    M = len(R)
    nv = N * M + (1 if objective == "worst" else 0)
    A_ub, b_ub, A_eq, b_eq = [], [], [], []
    for ci, c in enumerate(b.cands):
        row = [0.0] * nv
        for g in range(M):
            row[ci * M + g] = 1.0
        A_eq.append(row)
        b_eq.append(1.0)
        for cp in neighbours(c):
            di = b.index[cp]
            for g in range(M):
                row = [0.0] * nv
                row[ci * M + g] = 1.0
                row[di * M + g] = -math.exp(eps)
                A_ub.append(row)
                b_ub.append(0.0)
    cost = [0.0] * nv
    if objective == "worst":
        for ci in range(N):
            row = [0.0] * nv
            for g, r in enumerate(R):
                row[ci * M + g] = b.H[ci][r]
            row[-1] = -1.0
            A_ub.append(row)
            b_ub.append(0.0)
        cost[-1] = 1.0
    else:
        for ci, c in enumerate(b.cands):
            pi = dirichlet_multinomial(b.a, c)
            for g, r in enumerate(R):
                cost[ci * M + g] = pi * b.H[ci][r]
    res = linprog(np.array(cost), A_ub=np.array(A_ub), b_ub=np.array(b_ub), A_eq=np.array(A_eq),
                  b_eq=np.array(b_eq), bounds=[(0, None)] * nv, method="highs")
    assert res.status == 0, res.message
    return float(res.fun)


def sparse_lp_value(b: Brute, eps: float, rows, step: int) -> float:
    """The worst-case LP of docs/definitions.md §9 relaxed to the data sets ``rows`` (members of ``b.cands``), every
    output of R(n) kept, and for every ordered pair of them at distance ``1 <= d <= step`` (:func:`dist`) the
    constraint ``x[c][r] <= e^(d eps) x[c'][r]``; built densely by loops, as :func:`optimal_lp_value` is."""
    import numpy as np
    from scipy.optimize import linprog

    rows = [tuple(c) for c in rows]
    S, N = len(rows), len(b.cands)
    nv = S * N + 1
    A_ub, b_ub, A_eq = [], [], []
    for si, c in enumerate(rows):
        row = [0.0] * nv
        for r in range(N):
            row[si * N + r] = 1.0
        A_eq.append(row)
        for sj, cp in enumerate(rows):
            d = dist(c, cp)
            if 1 <= d <= step:
                for r in range(N):
                    row = [0.0] * nv
                    row[si * N + r] = 1.0
                    row[sj * N + r] = -math.exp(d * eps)
                    A_ub.append(row)
                    b_ub.append(0.0)
        row = [0.0] * nv
        for r in range(N):
            row[si * N + r] = b.H[b.index[c]][r]
        row[-1] = -1.0
        A_ub.append(row)
        b_ub.append(0.0)
    cost = [0.0] * nv
    cost[-1] = 1.0
    res = linprog(np.array(cost), A_ub=np.array(A_ub), b_ub=np.array(b_ub), A_eq=np.array(A_eq),
                  b_eq=np.ones(S), bounds=[(0, None)] * nv, method="highs")
    assert res.status == 0, res.message
    return float(res.fun)


def sparse_ball_lp_value(b: Brute, eps: float, rows, step: int, radius: int, inner: int) -> float:
    """:func:`sparse_lp_value`'s LP with each member's outputs beyond ``radius`` (:func:`dist`) lumped into one variable
    ``F(c)`` (where any output is beyond), written out densely by loops: ``sum_r x[c][r] + F(c) = 1``; for every
    ordered pair at distance ``1 <= d <= step``, ``x[c][r] <= e^(d eps) x[c'][r]`` for ``r`` within ``radius`` of both
    and within ``inner`` of one, and ``sum of x[c][r]`` over ``r`` within ``radius`` of ``c`` but not of ``c'`` at most
    ``e^(d eps) F(c')``; the loss ``sum_r x[c][r] H(c, r) + F(c) min_{r beyond} H(c, r) <= t``."""
    import numpy as np
    from scipy.optimize import linprog

    rows = [tuple(c) for c in rows]
    N = len(b.cands)
    ball = [[r for r in range(N) if dist(c, b.cands[r]) <= radius] for c in rows]
    var, nv = {}, 0
    for si, _ in enumerate(rows):
        for r in ball[si]:
            var[si, r] = nv
            nv += 1
        if len(ball[si]) < N:
            var[si, "F"] = nv
            nv += 1
    t = nv
    nv += 1
    A_ub, A_eq = [], []
    for si, c in enumerate(rows):
        row = [0.0] * nv
        for r in ball[si]:
            row[var[si, r]] = 1.0
        if (si, "F") in var:
            row[var[si, "F"]] = 1.0
        A_eq.append(row)
        for sj, cp in enumerate(rows):
            d = dist(c, cp)
            if not 1 <= d <= step:
                continue
            for r in ball[si]:
                if r in ball[sj] and min(dist(c, b.cands[r]), dist(cp, b.cands[r])) <= inner:
                    row = [0.0] * nv
                    row[var[si, r]] = 1.0
                    row[var[sj, r]] = -math.exp(d * eps)
                    A_ub.append(row)
            out = [r for r in ball[si] if r not in ball[sj]]
            if out:
                row = [0.0] * nv
                for r in out:
                    row[var[si, r]] = 1.0
                row[var[sj, "F"]] = -math.exp(d * eps)
                A_ub.append(row)
        row = [0.0] * nv
        for r in ball[si]:
            row[var[si, r]] = b.H[b.index[c]][r]
        if (si, "F") in var:
            row[var[si, "F"]] = min(b.H[b.index[c]][r] for r in range(N) if r not in ball[si])
        row[t] = -1.0
        A_ub.append(row)
    cost = [0.0] * nv
    cost[t] = 1.0
    res = linprog(np.array(cost), A_ub=np.array(A_ub), b_ub=np.zeros(len(A_ub)), A_eq=np.array(A_eq),
                  b_eq=np.ones(len(rows)), bounds=[(0, None)] * nv, method="highs")
    assert res.status == 0, res.message
    return float(res.fun)


def table_epsilon(cands, P) -> float:
    """The concrete epsilon of a table ``P[i][r] = P(r | cands[i])`` (docs/definitions.md §5): the largest
    ``ln P(r | c) - ln P(r | c')`` over adjacent ``(c, c')`` (both orders, as :func:`neighbours` lists them) and r."""
    index = {tuple(c): i for i, c in enumerate(cands)}
    return max(math.log(P[index[tuple(c)]][r]) - math.log(P[index[cp]][r])
               for c in cands for cp in neighbours(tuple(c)) for r in range(len(cands)))


def permutation_images(cands) -> list[list[int]]:
    """For every permutation s of the categories, the rank of ``s c`` (``c[s]``) for each member c of ``cands``."""
    index = {tuple(c): i for i, c in enumerate(cands)}
    k = len(cands[0])
    return [[index[tuple(c[p] for p in perm)] for c in cands] for perm in itertools.permutations(range(k))]


def weighted_lp_value(b: Brute, eps: float, weights) -> float:
    """``min_P sum_c w(c) E_P(c)`` over the eps-DP tables of docs/definitions.md §9 (``weights`` one per data set in
    ``b.cands`` order), built densely by loops over R(n) as :func:`optimal_lp_value` is (an independent transcription)."""
    import numpy as np
    from scipy.optimize import linprog

    N = len(b.cands)
    A_ub, A_eq = [], []
    for ci, c in enumerate(b.cands):
        row = [0.0] * (N * N)
        for r in range(N):
            row[ci * N + r] = 1.0
        A_eq.append(row)
        for cp in neighbours(c):
            di = b.index[cp]
            for r in range(N):
                row = [0.0] * (N * N)
                row[ci * N + r] = 1.0
                row[di * N + r] = -math.exp(eps)
                A_ub.append(row)
    cost = [float(weights[ci]) * b.H[ci][r] for ci in range(N) for r in range(N)]
    res = linprog(np.array(cost), A_ub=np.array(A_ub), b_ub=np.zeros(len(A_ub)), A_eq=np.array(A_eq),
                  b_eq=np.ones(N), bounds=[(0, None)] * (N * N), method="highs")
    assert res.status == 0, res.message
    return float(res.fun)


# --- exact integer samplers (Canonne, Kamath and Steinke 2020, Algorithms 1 and 2), vectorised -----------------
# A plain transcription of the first vectorised samplers of dpposterior.randomness (GeneratorBits path,
# numerators and denominators below 2^62): the faster library code must draw the same numbers from the same
# bits, in the same order, for every seed.

def _ints(rng, high, size):
    return rng.integers(0, high, size=size, dtype=np.int64)


def bernoulli_exp_unit_draws(u, t: int, rng):
    """Bernoulli(exp(-u/t)), 0 <= u <= t: K = 1; while (q, r) < (u // K, u % K): K += 1; return K odd."""
    u = np.asarray(u, dtype=np.int64)
    K = np.ones(u.size, dtype=np.int64)
    active = np.arange(u.size)
    while active.size:
        k = K[active]
        q = _ints(rng, t, active.size)
        r = _ints(rng, k, active.size)
        hi, lo = u[active] // k, u[active] % k
        success = (q < hi) | ((q == hi) & (r < lo))
        K[active[success]] += 1
        active = active[success]
    return (K % 2) == 1


def count_bernoulli_exp1_draws(m: int, rng):
    """Successes of Bernoulli(exp(-1)) before the first failure, m times."""
    V = np.zeros(m, dtype=np.int64)
    active = np.arange(m)
    ones = np.ones(m, dtype=np.int64)
    while active.size:
        a = bernoulli_exp_unit_draws(ones[: active.size], 1, rng)
        V[active[a]] += 1
        active = active[a]
    return V


def geometric_draws(s: int, t: int, size: int, rng):
    """P(G = g) proportional to exp(-g s/t): U kept with prob. exp(-U/t), V ~ Geometric(e^-1), (U + t V) // s."""
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        U = _ints(rng, t, todo.size)
        keep = bernoulli_exp_unit_draws(U, t, rng)
        U, slots = U[keep], todo[keep]
        V = count_bernoulli_exp1_draws(U.size, rng)
        if V.size and int(V.max()) >= (2**62 - t) // t:
            out[slots] = [(int(u) + t * int(v)) // s for u, v in zip(U, V)]
        else:
            out[slots] = (U + t * V) // s
        todo = todo[~keep]
    return out


def floor_laplace_draws(s: int, t: int, size: int, rng):
    """floor(Y), Y ~ Laplace(0, t/s): G or -1 - G by a fair sign bit drawn after all of G."""
    G = geometric_draws(s, t, size, rng)
    sign = _ints(rng, 2, size)
    return np.where(sign == 1, G, -1 - G)


def discrete_laplace_draws(s: int, t: int, size: int, rng):
    """P(D = d) proportional to exp(-|d| s/t): (1 - 2B) G, (B = 1, G = 0) rejected, batch by batch."""
    arr = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        need = size - filled
        G = geometric_draws(s, t, need, rng)
        B = _ints(rng, 2, need)
        ok = ~((B == 1) & (G == 0))
        got = ((1 - 2 * B) * G)[ok]
        arr[filled: filled + got.size] = got
        filled += got.size
    return arr


def choose_draws(weights, size: int, bits):
    """Index i with probability weights[i] / sum: U uniform on [0, sum W) drawn as its top 62 bits then
    (on a tie with a bucket boundary) the rest, placed by binary search over the cumulative sums.

    ``bits`` gives ``integers(high, size)`` and ``randbelow(high)``; the same bits in the same order as
    dpposterior.randomness.choose, written with nothing but a plain ``np.searchsorted``.
    """
    cum = list(itertools.accumulate(weights))
    total = cum[-1]
    s = max(0, total.bit_length() - 62)
    hi = np.array([c >> s for c in cum], dtype=np.int64)
    if s == 0:
        return np.searchsorted(hi, bits.integers(total, size), side="right").astype(np.int64)
    u = bits.integers(int(hi[-1]) + 1, size)
    out = np.searchsorted(hi, u, side="left").astype(np.int64)
    for r in range(size):
        if out[r] < hi.size and hi[out[r]] == u[r]:
            U = (int(u[r]) << s) + bits.randbelow(1 << s)
            while U >= total:
                U = bits.randbelow(total)
            out[r] = sum(1 for c in cum if c <= U)
    return out


def kept_set(w, share: float):
    """The one-point search's kept set of the weights ``w`` (docs/lattice.md, the local remap): the stable order by
    ``-w``, the sequential running totals along it, the first ``m + 1`` with ``m`` the left ``searchsorted`` of
    ``(1 - share)`` times the last total, as sorted indices."""
    w = np.asarray(w, dtype=np.float64)
    heavy = np.argsort(-w, kind="stable")
    cum = np.cumsum(w[heavy])
    return np.sort(heavy[: int(np.searchsorted(cum, cum[-1] * (1.0 - share))) + 1])


def implied_rows(b, coefs, valid, margin: float = 1e-9):
    """The constraints ``b(c) + sum_z sum_r coefs[c, z, r] T(z, r) <= t`` (``T(z, .)`` any distribution over the r with
    ``valid[z, r]``) that the others imply by their ranges: ``hi(c) < max_c' lo(c') - margin``, ``lo`` and ``hi`` the
    least and largest value over every ``T`` (each row at its least or largest entry).  Plain loops."""
    lo, hi = [], []
    for c in range(len(b)):
        low, high = float(b[c]), float(b[c])
        for z in range(len(valid)):
            vals = [float(coefs[c][z][r]) for r in range(len(valid[z])) if valid[z][r]]
            low += min(vals)
            high += max(vals)
        lo.append(low)
        hi.append(high)
    top = max(lo)
    return [h < top - margin for h in hi]


def dual_value(b, coefs, valid, lam) -> float:
    """``f(lam) = sum_c lam[c] b[c] + sum_z min_{r valid} sum_c lam[c] coefs[c][z][r]``: by weak duality a lower bound
    on ``t`` wherever ``b(c) + sum_z sum_r coefs[c][z][r] T(z, r) <= t`` holds for every ``c`` that ``lam`` (weights
    >= 0 summing to 1) weighs.  Plain loops."""
    total = sum(float(lam[c]) * float(b[c]) for c in range(len(b)))
    for z in range(len(valid)):
        total += min(sum(float(lam[c]) * float(coefs[c][z][r]) for c in range(len(b)))
                     for r in range(len(valid[z])) if valid[z][r])
    return total


def implied_rows_dual(b, coefs, valid, near, rounds: int, step: float):
    """The constraints dropped by the lower bound ``tau`` on ``t``: ``hi(c) < tau - margin``, ``tau`` the larger of
    ``max_c lo(c)`` and ``min(tau0, tau1)``: ``rounds`` of multiplicative weights from uniform weights (each row's
    best response its first valid output at the least weighted sum, the weights ``exp(step x the running sum of the
    constraints' values at the best responses)``), ``tau0`` the largest ``f`` over the iterates (the first on ties),
    ``tau1`` ``f`` of that iterate's weights kept only where ``hi(c) >= tau0 - margin``, renormalised.  The margin
    ``1e-9 + (#c + #z + most z near one c + 4) 2^-52 max(|hi|, |lo|, 1)``.  Plain loops."""
    nc, nz = len(b), len(valid)
    lo, hi = [], []
    for c in range(nc):
        low, high = float(b[c]), float(b[c])
        for z in range(nz):
            vals = [float(coefs[c][z][r]) for r in range(len(valid[z])) if valid[z][r]]
            low += min(vals)
            high += max(vals)
        lo.append(low)
        hi.append(high)
    scale = max(max(abs(x) for x in hi), max(abs(x) for x in lo), 1.0)
    most = max(sum(1 for z in range(nz) if near[c][z]) for c in range(nc))
    margin = 1e-9 + (nc + nz + most + 4) * 2.0**-52 * scale
    lam = [1.0 / nc] * nc
    w = [0.0] * nc
    tau0, lam0 = -math.inf, lam
    for _ in range(rounds):
        val = dual_value(b, coefs, valid, lam)
        if val > tau0:
            tau0, lam0 = val, lam
        choice = []
        for z in range(nz):
            sums = [(sum(lam[c] * float(coefs[c][z][r]) for c in range(nc)), r)
                    for r in range(len(valid[z])) if valid[z][r]]
            least = min(s for s, _ in sums)
            choice.append(next(r for s, r in sums if s == least))
        for c in range(nc):
            w[c] += step * (float(b[c]) + sum(float(coefs[c][z][choice[z]]) for z in range(nz)))
        top = max(w)
        e = [math.exp(x - top) for x in w]
        lam = [x / sum(e) for x in e]
    tau = max(lo)
    if rounds > 0:
        kept = [lam0[c] if hi[c] >= tau0 - margin else 0.0 for c in range(nc)]
        if sum(kept) > 0:
            tau1 = dual_value(b, coefs, valid, [x / sum(kept) for x in kept])
            tau = max(tau, min(tau0, tau1))
    return [h < tau - margin for h in hi]
