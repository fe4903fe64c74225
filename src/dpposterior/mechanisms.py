"""The eight release mechanisms of SPEC §4: exact output distributions and samplers.

Every mechanism outputs a candidate ``Dir(a + m)`` of R(n), identified by ``m``; every
log-pmf here is a vector aligned with ``models.candidates(n, k)``.  Each mechanism's
*claimed* guarantee is stated next to it in :data:`MECHANISMS` (as the drafts claim it;
whether it holds is measured by :mod:`dpposterior.privacy`).

Exponential family (``ehd``, ``ehdl``, ``ehds``, ``mh``, ``mh-delta``)
    ``P(r) proportional to exp(-w(c) H(BI(c), r))``, normalised with log-sum-exp.
Laplace family (``lszhang``, ``lsdim``, ``lshist``)
    ``m_i = clamp(floor(c_i + Y_i), 0, n - m_1 - ... - m_{i-1})`` for i < k, ``Y_i ~ Laplace(0, s)``,
    ``m_k = n - sum``.  The exact pmf integrates the Laplace law over each floor cell,
    the clamped cells taking the tails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .distances import hellinger
from . import validate
from .errors import InputError
from .sampling import ENUMERATE_UP_TO, sample_exponential
from .models import as_counts, as_prior, candidates, check_size, n_candidates
from .sensitivity import (
    GLOBAL_SENSITIVITY_METHODS,
    beta_smooth_sensitivity,
    check_gamma,
    global_sensitivity,
    local_sensitivity,
    smooth_sensitivity,
)

DEFAULT_DELTA = 1e-8
DEFAULT_GAMMA = 1.0


@dataclass(frozen=True)
class Mechanism:
    """A mechanism's public id, where it comes from, and the guarantee the drafts claim for it.

    ``epsilon_factor``: the claimed epsilon is ``epsilon_factor * epsilon`` (None: no claim).
    ``claims_delta``: the claim is (eps, delta)-DP rather than pure.
    """

    id: str
    family: str  # "exponential" or "laplace"
    seed_name: str
    weight_or_scale: str
    epsilon_factor: float | None
    claims_delta: bool
    guarantee: str

    def claimed(self, epsilon: float, delta: float) -> tuple[float | None, float | None]:
        """The claimed ``(epsilon, delta)``: ``(None, None)`` when the mechanism claims no privacy."""
        if self.epsilon_factor is None:
            return None, None
        return self.epsilon_factor * epsilon, (delta if self.claims_delta else 0.0)


MECHANISMS: dict[str, Mechanism] = {
    m.id: m
    for m in [
        Mechanism("ehd", "exponential", "003 EHD, 004 4.1.1", "eps / (2 GS)", 1.0, False,
                  "eps-DP: exponential mechanism with the global sensitivity of H (003 Thm 3.1)"),
        Mechanism("ehdl", "exponential", "003 EHDL, 004 4.1.2", "eps / (2 LS(c))", None, False,
                  "none: local sensitivity is data dependent, not DP (baseline)"),
        Mechanism("ehds", "exponential", "003 EHDS", "eps / (2 (1+gamma) S(c))", 1.0, False,
                  "eps-DP: gamma-smooth sensitivity (003 Thm 3.1)"),
        Mechanism("mh", "exponential", "004 Def. 6 (M_H)", "eps / (2 S(c)), gamma = 1", 2.0, False,
                  "2 eps-DP (004 Lemma 5.6)"),
        Mechanism("mh-delta", "exponential", "000 Def. 4.1, 001/002", "eps / (2 S_b(c))", 1.0, True,
                  "(eps, delta)-DP with beta-smooth sensitivity (000 Lemma 4.3)"),
        Mechanism("lszhang", "laplace", "003 LSZhang (Zhang et al. 2016)", "2 / eps", 1.0, False,
                  "eps-DP: Laplace on counts, L1 sensitivity 2"),
        Mechanism("lsdim", "laplace", "003 LSDim, 004 Laplace mechanism", "2/eps (k=2), k/eps", 1.0, False,
                  "eps-DP (003 Thm 3.1)"),
        Mechanism("lshist", "laplace", "003 LSHist, 004 improved Laplace", "1/eps (k=2), 2/eps", 1.0, False,
                  "eps-DP: histogram sensitivity (003 Thm 3.1)"),
    ]
}
MECHANISM_IDS = tuple(MECHANISMS)


def get_mechanism(mechanism: str | Mechanism) -> Mechanism:
    """Look a mechanism up by id; unknown ids get an error that lists the valid ones."""
    if isinstance(mechanism, Mechanism):
        return mechanism
    try:
        return MECHANISMS[mechanism]
    except (KeyError, TypeError):
        raise InputError(f"unknown mechanism {mechanism!r}; choose one of {', '.join(MECHANISM_IDS)}") from None


# The validators live in :mod:`dpposterior.validate`; these names are kept for existing imports.
check_epsilon = validate.epsilon
check_delta = validate.delta


def check_params(mechanism, epsilon, delta, gamma, global_sensitivity_method) -> tuple[Mechanism, float, float, float, str]:
    """Validate the shared mechanism parameters; ``mh`` is defined with gamma = 1 only."""
    mech = get_mechanism(mechanism)
    epsilon, delta, gamma = check_epsilon(epsilon), check_delta(delta), check_gamma(gamma)
    if mech.id == "mh" and gamma != 1.0:
        raise InputError("mechanism 'mh' is defined with gamma = 1 (004 Def. 6); use 'ehds' for another gamma")
    if global_sensitivity_method not in GLOBAL_SENSITIVITY_METHODS:
        raise InputError(f"global sensitivity must be one of {', '.join(GLOBAL_SENSITIVITY_METHODS)}, "
                         f"got {global_sensitivity_method!r}")
    return mech, epsilon, delta, gamma, global_sensitivity_method


def weight(mechanism, prior: ArrayLike, counts: ArrayLike, *, epsilon: float, delta: float = DEFAULT_DELTA,
           gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact") -> float:
    """``w(c)`` of an exponential-family mechanism (SPEC §4 table): ``P(r) ~ exp(-w(c) H(BI(c), r))``."""
    mech, epsilon, delta, gamma, gsm = check_params(mechanism, epsilon, delta, gamma, global_sensitivity_method)
    c = as_counts(counts)
    a = as_prior(prior, c.size)
    if mech.family != "exponential":
        raise InputError(f"mechanism {mech.id!r} is not an exponential mechanism")
    if mech.id == "ehd":
        return epsilon / (2.0 * global_sensitivity(a, int(c.sum()), gsm))
    if mech.id == "ehdl":
        return epsilon / (2.0 * local_sensitivity(a, c))
    if mech.id == "ehds":
        return epsilon / (2.0 * (1.0 + gamma) * smooth_sensitivity(a, c, gamma))
    if mech.id == "mh":
        return epsilon / (2.0 * smooth_sensitivity(a, c, 1.0))
    return epsilon / (2.0 * beta_smooth_sensitivity(a, c, epsilon, delta))  # mh-delta


def laplace_scale(mechanism, k: int, epsilon: float) -> float:
    """Scale ``s`` of the Laplace noise (SPEC §4 Laplace table)."""
    mech = get_mechanism(mechanism)
    epsilon = check_epsilon(epsilon)
    if mech.id == "lszhang":
        return 2.0 / epsilon
    if mech.id == "lsdim":
        return (2.0 if k == 2 else float(k)) / epsilon
    if mech.id == "lshist":
        return (1.0 if k == 2 else 2.0) / epsilon
    raise InputError(f"mechanism {mech.id!r} is not a Laplace mechanism")


def exponential_log_pmf_rows(weights: ArrayLike, scores: ArrayLike) -> NDArray[np.float64]:
    """``ln P(r) = -w H(r) - logsumexp(-w H)`` row by row: weights ``(B,)``, scores ``(B, N)``."""
    x = np.multiply(-np.asarray(weights, dtype=np.float64)[:, None], np.asarray(scores, dtype=np.float64))
    top = x.max(axis=1, keepdims=True)  # log-sum-exp, in place: this is the hot loop of privacy.py
    x -= top + np.log(np.exp(x - top).sum(axis=1, keepdims=True))
    return x


def _laplace_log_mass(lo: NDArray[np.float64], hi: NDArray[np.float64], scale: float) -> NDArray[np.float64]:
    """``ln P(lo <= Y < hi)`` for ``Y ~ Laplace(0, scale)``, exact in log space (lo may be -inf, hi +inf)."""
    lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64))
    with np.errstate(invalid="ignore", over="ignore"):
        gap = np.log1p(-np.exp((lo - hi) / scale))
        left = math.log(0.5) + hi / scale + gap  # cell inside (-inf, 0]
        right = math.log(0.5) - lo / scale + gap  # cell inside [0, inf)
        both = np.log1p(-0.5 * (np.exp(lo / scale) + np.exp(-hi / scale)))
        return np.where(hi <= 0, left, np.where(lo >= 0, right, both))


def laplace_log_pmf_rows(scale: float, counts: ArrayLike, cands: ArrayLike) -> NDArray[np.float64]:
    """Exact ``ln P(m | c)`` of the sequentially clamped Laplace release: counts ``(B, k)`` x candidates ``(N, k)``."""
    c = np.asarray(counts, dtype=np.int64)
    m = np.asarray(cands, dtype=np.int64)
    n = int(m[0].sum())
    k = m.shape[1]
    d = np.arange(-n - 1, n + 2, dtype=np.float64)  # m_i - c_i, R - c_i (offset n + 1)
    interior = _laplace_log_mass(d, d + 1.0, scale)  # floor cell [d, d + 1)
    upper = _laplace_log_mass(d, np.inf, scale)  # clamped at the top: [R - c, inf)
    lower = _laplace_log_mass(-np.inf, 1.0 - d, scale)  # clamped at 0: (-inf, 1 - c), indexed by c
    out = np.zeros((c.shape[0], m.shape[0]))
    remaining = np.full(m.shape[0], n, dtype=np.int64)
    for i in range(k - 1):
        mi = m[None, :, i]
        ci = c[:, i, None]
        R = remaining[None, :]
        cell = np.where(
            R == 0, 0.0,
            np.where(mi == 0, lower[ci + n + 1], np.where(mi == R, upper[R - ci + n + 1], interior[mi - ci + n + 1])),
        )
        out += cell
        remaining = remaining - m[:, i]
    return out


def _setup(mechanism, prior, counts, epsilon, delta, gamma, global_sensitivity_method):
    mech, epsilon, delta, gamma, gsm = check_params(mechanism, epsilon, delta, gamma, global_sensitivity_method)
    c = as_counts(counts)
    a = as_prior(prior, c.size)
    return mech, a, c, epsilon, delta, gamma, gsm


def log_pmf(mechanism, prior: ArrayLike, counts: ArrayLike, *, epsilon: float, delta: float = DEFAULT_DELTA,
            gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact") -> NDArray[np.float64]:
    """Exact log output distribution of a mechanism over ``candidates(n, k)`` (SPEC §4).

    Raises :class:`~dpposterior.errors.SizeError` when R(n) does not fit the memory budget.
    """
    mech, a, c, epsilon, delta, gamma, gsm = _setup(mechanism, prior, counts, epsilon, delta, gamma,
                                                    global_sensitivity_method)
    n, k = int(c.sum()), c.size
    # candidates, their parameters and lnGamma temporaries: ~ (6k + 10) doubles per candidate
    check_size(n_candidates(n, k), 8 * (6 * k + 10), f"the exact output distribution over R(n) for k={k}, n={n}")
    cands = candidates(n, k)
    if mech.family == "laplace":
        return laplace_log_pmf_rows(laplace_scale(mech, k, epsilon), c[None, :], cands)[0]
    w = weight(mech, a, c, epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=gsm)
    return exponential_log_pmf_rows([w], hellinger(a + c, a + cands)[None, :])[0]


def _as_rng(rng) -> np.random.Generator:
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(None if rng is None else validate.seed(rng, "rng seed"))
    if isinstance(rng, np.random.Generator):
        return rng
    raise InputError(f"rng must be a seed or a numpy Generator, got {type(rng).__name__}")


def sample(mechanism, prior: ArrayLike, counts: ArrayLike, *, epsilon: float, delta: float = DEFAULT_DELTA,
           gamma: float = DEFAULT_GAMMA, global_sensitivity_method: str = "exact", size: int = 1,
           rng: np.random.Generator | int | None = None) -> NDArray[np.int64]:
    """Draw ``size`` releases ``m`` (rows of an ``(size, k)`` array; the release is ``Dir(a + m)``).

    Draws from exactly the distribution :func:`log_pmf` computes: Laplace mechanisms by
    their definition, exponential mechanisms by inverse-cdf sampling of the exact pmf when
    ``|R(n)| <= ENUMERATE_UP_TO``, else by the exact rejection sampler of :mod:`dpposterior.sampling`.
    ``rng``: a ``numpy.random.Generator`` or a seed (``None``: OS entropy).
    """
    mech, a, c, epsilon, delta, gamma, gsm = _setup(mechanism, prior, counts, epsilon, delta, gamma,
                                                    global_sensitivity_method)
    rng = _as_rng(rng)
    size = validate.sample_count(size, "size")
    n, k = int(c.sum()), c.size
    if mech.family == "laplace":
        s = laplace_scale(mech, k, epsilon)
        noise = rng.laplace(0.0, s, size=(size, k - 1))
        out = np.empty((size, k), dtype=np.int64)
        remaining = np.full(size, n, dtype=np.int64)
        for i in range(k - 1):
            out[:, i] = np.clip(np.floor(c[i] + noise[:, i]), 0, remaining).astype(np.int64)
            remaining -= out[:, i]
        out[:, k - 1] = remaining
        return out
    if n_candidates(n, k) > ENUMERATE_UP_TO:  # exact rejection sampler, R(n) never listed
        w = weight(mech, a, c, epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=gsm)
        return sample_exponential(a, c, w, size, rng)
    logp = log_pmf(mech, a, c, epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=gsm)
    cdf = np.cumsum(np.exp(logp - logp.max()))
    idx = np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right")
    return candidates(n, k)[np.minimum(idx, cdf.size - 1)]
