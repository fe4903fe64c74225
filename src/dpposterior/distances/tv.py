"""Total variation distance between two Beta distributions (docs/definitions.md §2).

``TV(Beta(p1, p2), Beta(q1, q2)) = 1/2 int_0^1 |f_p - f_q| = sup_A (P(A) - Q(A))``.

Algorithm
---------
In the logit ``t = ln(x / (1 - x))`` the log density ratio is

    g(t) = ln f_p - ln f_q = a t - s softplus(t) + C,   a = p1 - q1, b = p2 - q2, s = a + b,

with ``C = lnB(q) - lnB(p)`` (from :func:`~dpposterior.distances.kl.log_beta_diff`, free of the
cancellation of two large log-Betas).  ``softplus`` is convex, so ``g`` is concave (s > 0), convex
(s < 0) or linear (s = 0, e.g. any two posteriors of the same n): the densities cross at most
twice, and ``{f_p > f_q}`` is an interval or the complement of one.  With ``D(x) = F_p(x) - F_q(x)``
(regularised incomplete Betas), ``D(0) = D(1) = 0`` and ``D`` is monotone between crossings, so

    TV = |D(x_1)| + |D(x_2)|   (one term when there is one crossing),

a sum of two terms of the same sign in which nothing cancels.

Crossings: closed form when ``s = 0`` (``t = -C/a``), ``a = 0`` or ``b = 0``
(``softplus(+-t) = C/b`` or ``C/a``); otherwise vectorised Newton on all pairs at once, started on
the outer side of each root where ``|g|`` is bounded by a line, which for a concave (convex) ``g``
converges monotonically without bracketing.  ``TV`` is stationary in the crossing (``f_p = f_q``
there), so a crossing error ``dt`` changes ``TV`` by ``O(dt^2)`` only.

Evaluation of ``D`` at a crossing.  Two posteriors of the same n whose first parameters differ by
an integer ``d <= STEP_SUM_MAX`` (1024; every near candidate in R(n); 8 when ``p1 + p2 < 4096``,
where the incomplete Betas below are as accurate) use
``I_x(a, b) - I_x(a + 1, b - 1) = Gamma(a + b) / (Gamma(a + 1) Gamma(b)) x^a (1 - x)^(b - 1)``: ``D`` is
a sum of ``d`` positive binomial-type densities, each evaluated in Loader's saddle-point form
(Stirling errors and the deviance ``bd0``), so nothing cancels even at n = 1e9.  Otherwise scipy's
``betainc(a, b, x)`` forms ``1 - x`` internally, and for ``x < 1/2`` that rounding is raised to the
power ``b`` (``betainc(2, 1e6, 2e-6)`` is off by 4e-11).
We therefore always pass the argument ``>= 1/2`` -- ``expit(|t|)``, swapping the parameters when
``t < 0`` -- whose complement is exact, and take the lower (``betainc``) or upper (``betaincc``)
tail, whichever is the smaller, so that ``D`` is never a difference of two numbers near 1.
Beyond ``|t| > 30`` (tiny parameters) the far tail comes from the leading term of its series,
``z^beta (1 - z)^alpha / (beta B) (1 + (alpha + beta) z / (beta + 1))``, ``z = expit(-|t|)``.

Accuracy (tested against 50-digit mpmath): neighbours and near candidates of the same n (the step
sum) ~1e-14 relative up to n = 1e9 (worst seen 7e-15).  Through ``betainc`` the absolute error of
``D`` is that of scipy's incomplete Beta, ~1e-16 at small parameters growing to ~1e-13 at 1e6 and
~1e-12 at 1e9; it is relative to a ``TV`` of more than 1024 steps there, so ~1e-11 relative or better.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import betainc, betaincc, expit, gammaln

from ..errors import InputError
from ..models import check_size
from ..validate import parameter_array, same_length
from .kl import lgamma_diff, log_beta_diff

#: ``|t|`` beyond which the far tail is taken from its series (``z = expit(-|t|) < 1e-13``).
TAIL_T = 30.0
#: Newton iterations at most (monotone convergence; typically < 10).
NEWTON_MAX = 100

#: Same-n pairs whose first parameters differ by an integer up to this many steps use the exact
#: binomial sum for D instead of two incomplete Betas (no cancellation; see the module docstring).
STEP_SUM_MAX = 1024
#: Below this total ``p1 + p2`` the step sum is used for at most :data:`STEP_SUM_SMALL` steps only: there scipy's
#: incomplete Beta is accurate to ~1e-16 absolute and a TV of more than 8 steps is large, so two incomplete
#: Betas are as accurate (tested against mpmath) and the k = 2 matrix (n <= 2,047) costs O(n^2), not O(n^3).
STEP_SUM_TOTAL = 4096.0
STEP_SUM_SMALL = 8
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_STIRLERR_COEF = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360)


def _stirlerr(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """``lnGamma(v + 1) - (v + 1/2) ln v + v - ln(2 pi)/2`` for v > 0 (Stirling's error; series above 15)."""
    out = np.empty(v.shape)
    big = v > 15.0
    vb = v[big]
    inv2 = 1.0 / (vb * vb)
    acc = np.zeros(vb.shape)
    for coef in reversed(_STIRLERR_COEF):
        acc = acc * inv2 + coef
    out[big] = acc / vb
    vs = v[~big]
    out[~big] = gammaln(vs + 1.0) - (vs + 0.5) * np.log(vs) + vs - _HALF_LOG_2PI
    return out


def _bd0(x: NDArray[np.float64], m: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x ln(x / m) + m - x >= 0`` without cancellation when x ~ m (Loader's deviance term)."""
    out = np.empty(x.shape)
    near = np.abs(x - m) < 0.1 * (x + m)
    xf, mf = x[~near], m[~near]
    out[~near] = xf * np.log(xf / mf) + mf - xf
    xn, mn = x[near], m[near]
    v = (xn - mn) / (xn + mn)
    v2 = v * v
    acc = np.zeros(v.shape)
    for j in range(30, 0, -1):  # |v| < 0.1: v^61 is far below rounding
        acc = acc * v2 + 1.0 / (2 * j + 1)
    out[near] = (xn - mn) * v + 2.0 * xn * v * v2 * acc
    return out


def _log_binom_density(k, n, log_x, log_1mx, nx, n1mx):
    """``ln[Gamma(n+1) / (Gamma(k+1) Gamma(n-k+1)) x^k (1-x)^(n-k)]`` for real 0 < k < n (Loader's form).

    ``nx = n x`` and ``n1mx = n (1 - x)`` are passed so that they are formed from an accurate x and 1 - x.
    """
    m = n - k
    return (_stirlerr(n) - _stirlerr(k) - _stirlerr(m) - _bd0(k, nx) - _bd0(m, n1mx)
            - 0.5 * (np.log(2 * np.pi) + np.log(k) + np.log(m) - np.log(n)))


def _step_sum(t, lo1, total, steps):
    """``|F_p - F_q|`` at logit t for Beta(lo1, total - lo1) vs Beta(lo1 + steps, total - lo1 - steps).

    ``I_x(a, b) - I_x(a + 1, b - 1) = Gamma(a + b) / (Gamma(a + 1) Gamma(b)) x^a (1 - x)^(b - 1)``, so the gap
    is a sum of ``steps`` positive binomial-type densities (size ``total - 1``), each computed in log space.
    """
    n = total - 1.0
    x, y = expit(t), expit(-t)
    log_x, log_1mx = -_softplus(-t), -_softplus(t)
    nx, n1mx = n * x, n * y
    out = np.zeros(t.shape)
    for j in range(int(steps.max()) if steps.size else 0):
        on = steps > j
        k = lo1[on] + j
        out[on] += np.exp(_log_binom_density(k, n[on], log_x[on], log_1mx[on], nx[on], n1mx[on]))
    return out


def check(k: int) -> None:
    """Refuse k != 2 in one line: total variation is exact for Beta only."""
    if k != 2:
        raise InputError(f"tv is exact for Beta (k = 2) only, got k = {k}")


def _softplus(t: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.logaddexp(0.0, t)


def _g(t, a, b, s, c):
    """``g(t) = a t - s softplus(t) + C``, written so that no large terms cancel for either sign of t."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(t >= 0, -b * t - s * _softplus(-t), a * t - s * _softplus(t)) + c


def _log_expm1(r: NDArray[np.float64]) -> NDArray[np.float64]:
    """``ln(e^r - 1)`` for r > 0 (the inverse of softplus)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(r > 1.0, r + np.log(-np.expm1(-r)), np.log(np.expm1(r)))


def _newton(t, a, b, s, c):
    """Roots of g from starting points ``t`` on the outer side of each (monotone convergence)."""
    t = t.copy()
    active = np.arange(t.size)
    for _ in range(NEWTON_MAX):
        if active.size == 0:
            break
        ta, aa, ba, sa, ca = t[active], a[active], b[active], s[active], c[active]
        g = _g(ta, aa, ba, sa, ca)
        dg = aa - sa * expit(ta)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = g / dg
        new = ta - step
        ok = np.isfinite(new)
        t[active[ok]] = new[ok]
        done = ~ok | (np.abs(step) <= 4e-16 * np.maximum(1.0, np.abs(ta))) | (g == 0)
        # crossing over the root (rounding) also ends it: g changes sign
        g_new = _g(new, aa, ba, sa, ca)
        done |= np.sign(g_new) == -np.sign(g)
        active = active[~done]
    return t


def crossings(p1, p2, q1, q2, c=None):
    """The logits ``(t1, t2)`` between which ``g = ln f_p - ln f_q`` has the sign opposite to outside.

    1-D arrays; ``t1 = -inf`` or ``t2 = +inf`` when there is one crossing, both nan when none.
    """
    a, b = p1 - q1, p2 - q2
    s = a + b
    if c is None:
        c = log_beta_diff(np.stack([p1, p2], -1), np.stack([q1, q2], -1))
    t1 = np.full(a.shape, -np.inf)
    t2 = np.full(a.shape, np.inf)
    sig = np.where(s < 0, -1.0, 1.0)
    al, be, ga = sig * a, sig * s, sig * c  # G = sig g = al t - be softplus(t) + ga, concave (be >= 0)
    bb = be - al  # = sig * b
    same = (a == 0) & (b == 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # linear: g = a t + C
        lin = (s == 0) & ~same
        root = -c / a
        t1 = np.where(lin & (a > 0), root, t1)  # g > 0 above the root
        t2 = np.where(lin & (a < 0), root, t2)
        # a = 0: G = -be softplus(t) + ga, decreasing; b = 0: G = -al softplus(-t) + ga, increasing
        za = (a == 0) & ~same & ~lin
        zb = (b == 0) & ~same & ~lin
        t2 = np.where(za, _log_expm1(ga / be), t2)
        t1 = np.where(zb, -_log_expm1(ga / al), t1)
        gen = ~(same | lin | za | zb)
        two = gen & (al > 0) & (bb > 0)
        dec = gen & (al <= 0)
        inc = gen & (bb <= 0)
        tstar = np.log(a / b)
        left = np.where(two, np.minimum(-ga / al, tstar) - 1.0, -ga / al - 1.0)
        right = np.where(two, np.maximum(ga / bb, tstar) + 1.0, ga / bb + 1.0)
    need_left = np.flatnonzero(two | inc)
    need_right = np.flatnonzero(two | dec)
    if need_left.size:
        t1[need_left] = _newton(left[need_left], a[need_left], b[need_left], s[need_left], c[need_left])
    if need_right.size:
        t2[need_right] = _newton(right[need_right], a[need_right], b[need_right], s[need_right], c[need_right])
    # no crossing (p, q equal up to rounding, or G's maximum <= 0): TV = 0
    none = same | ((two | za | zb) & ~(np.isfinite(t1) | np.isfinite(t2)))
    if two.any():
        gmax = _g(np.where(two, tstar, 0.0), a, b, s, c) * sig
        none |= two & ~(gmax > 0)
    t1 = np.where(none, np.nan, t1)
    t2 = np.where(none, np.nan, t2)
    return t1, t2


def _log_beta2(x, y):
    """``lnB(x, y)`` for two parameters, the large lnGamma values differenced with :func:`lgamma_diff`."""
    big, small = np.maximum(x, y), np.minimum(x, y)
    return gammaln(small) - lgamma_diff(big, big + small)


def _gap(t, p1, p2, q1, q2, c):
    """``|D(x)| = |F_p(x) - F_q(x)|`` at logits t (finite), see the module docstring."""
    u = np.abs(t)
    pos = t >= 0
    ap, bp = np.where(pos, p1, p2), np.where(pos, p2, p1)  # parameters in the orientation of arg
    aq, bq = np.where(pos, q1, q2), np.where(pos, q2, q1)
    out = np.empty(t.shape)
    mid = u <= TAIL_T
    if mid.any():
        arg = expit(u[mid])  # >= 1/2: 1 - arg is exact inside betainc
        A, B, C_, D_ = ap[mid], bp[mid], aq[mid], bq[mid]
        lower = u[mid] <= np.log(A / B)  # arg below p's mean (in logit): the lower tail is the smaller
        res = np.empty(arg.shape)
        lo, hi = lower, ~lower
        res[lo] = betainc(A[lo], B[lo], arg[lo]) - betainc(C_[lo], D_[lo], arg[lo])
        res[hi] = betaincc(A[hi], B[hi], arg[hi]) - betaincc(C_[hi], D_[hi], arg[hi])
        out[mid] = np.abs(res)
    far = ~mid
    if far.any():
        uf = u[far]
        A, B, C_, D_ = ap[far], bp[far], aq[far], bq[far]
        log_z = -_softplus(uf)  # ln expit(-u)
        z = np.exp(log_z)
        log1m_z = -_softplus(-uf)  # ln(1 - z)

        def log_tail(al, be):
            return be * log_z + al * log1m_z - np.log(be) + np.log1p((al + be) * z / (be + 1.0))

        # |T_p - T_q| = T_q |expm1(d)|, d = ln T_p - ln T_q; lnB(p) - lnB(q) = -C.  Taken in logs, ln|expm1(d)| =
        # d + ln(-expm1(-d)) for d > 0 and ln(-expm1(d)) for d < 0, so a T_q that underflows against a large d (0 * inf,
        # a NaN: Beta(1, 1) against Beta(2609, 1e4)) gives T_p's own value instead
        d = (log_tail(A, B) - log_tail(C_, D_)) + c[far]
        logq = log_tail(C_, D_) - _log_beta2(C_, D_)
        with np.errstate(divide="ignore"):  # d = 0: ln 0 = -inf, the difference 0
            log_abs = np.where(d > 0, d + np.log(-np.expm1(-np.abs(d))), np.log(-np.expm1(-np.abs(d))))
        out[far] = np.exp(logq + log_abs)
    return out


def tv_unchecked(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """:func:`tv` without the validation (float64 arrays with last axis 2, broadcastable)."""
    p, q = np.broadcast_arrays(p, q)
    shape = p.shape[:-1]
    p1, p2 = p[..., 0].reshape(-1), p[..., 1].reshape(-1)
    q1, q2 = q[..., 0].reshape(-1), q[..., 1].reshape(-1)
    c = log_beta_diff(np.stack([p1, p2], -1), np.stack([q1, q2], -1))
    t1, t2 = crossings(p1, p2, q1, q2, c)
    out = np.zeros(p1.shape)
    # same total, integer shift of at most STEP_SUM_MAX (up to rounding of the parameters): binomial sum
    shift = np.rint(q1 - p1)
    lo1 = np.minimum(p1, q1)
    tol = 8 * np.finfo(np.float64).eps
    most = np.where(p1 + p2 < STEP_SUM_TOTAL, STEP_SUM_SMALL, STEP_SUM_MAX)
    stepped = (shift != 0) & (np.abs(shift) <= most) & ~(np.isfinite(t1) & np.isfinite(t2))  # one crossing
    stepped &= (np.abs(q1 - (p1 + shift)) <= tol * np.maximum(p1, q1))
    stepped &= (np.abs(q2 - (p2 - shift)) <= tol * np.maximum(p2, q2))
    stepped &= lo1 + np.abs(shift) < p1 + p2  # the last density needs a positive second parameter
    for t in (t1, t2):
        fin = np.isfinite(t)
        st = fin & stepped
        gen = fin & ~stepped
        if st.any():
            out[st] += _step_sum(t[st], lo1[st], (p1 + p2)[st], np.abs(shift[st]))
        if gen.any():
            out[gen] += _gap(t[gen], p1[gen], p2[gen], q1[gen], q2[gen], c[gen])
    return np.minimum(out, 1.0).reshape(shape) + 0.0


def tv(p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """Total variation ``TV(Beta(p), Beta(q)) = 1/2 int |f_p - f_q|`` over the last axis (k = 2 only).

    Broadcasts like :func:`~dpposterior.distances.hellinger`; a metric, in [0, 1].  Exact up to
    rounding (module docstring): ~1e-12 relative for any two posteriors of the same n up to 1e9,
    tested against 50-digit mpmath.  ``k >= 3`` raises :class:`~dpposterior.errors.InputError`.

    >>> round(float(tv([2.0, 1.0], [1.0, 2.0])), 15)  # crossing at 1/2: 3/4 - 1/4
    0.5
    """
    p, q = parameter_array(p, "p"), parameter_array(q, "q")
    same_length(p, q, "p", "q")
    check(int(p.shape[-1]))
    shape = np.broadcast_shapes(p.shape, q.shape)
    check_size(math.prod(shape), 8 * 24, f"tv over broadcast shape {shape}")
    return tv_unchecked(p, q)
