"""The `coverage` experiment: how often credible intervals built from a private release cover the
truth, for the naive ``Dir(a + m)`` and for the noise-aware posterior (docs/definitions.md,
"Coverage"), computed exactly.

For k = 2 (``theta = theta_1``), a level L and an interval rule ``I(m)``:

    coverage = sum_c pi(c) sum_m P(m | c) P(theta in I(m) | c),   theta | c ~ Beta(a_1 + c_1, a_2 + c_2),

with ``pi`` the prior predictive.  This is exactly ``P(theta in I(m))`` for ``theta ~ prior``,
``c ~ Mult(n, theta)``, ``m ~ M(c)``: no Monte Carlo.  The noise-aware interval of each ``m`` is
the equal-tailed interval of ``sum_c w_c Beta(a + c)``, ``w_c ~ pi(c) P(m | c)``, so its coverage is
L by construction (Bayesian calibration); computing it is a check of the machinery.  Numerical
tolerance: releases with ``P(m) < MIN_MASS`` are skipped (their total mass is reported as
``skipped_mass``), mixture components below ``1e-16`` of the largest are dropped, and interval end
points are solved to ``1e-12``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import betainc

from ..mechanisms import rows as mechanism_rows
from ..mechanisms.scan import check_scan_size
from ..models import candidates, check_size, log_prior_predictive
from ..noise_aware import Marginal

#: releases whose marginal probability is below this are skipped (their mass is reported)
MIN_MASS = 1e-14
#: mixture components below this fraction of the largest are dropped from an interval's cdf
COMPONENT_FLOOR = 1e-16


def check_coverage_size(n: int) -> None:
    """Refuse, before any work, a coverage point whose ``(n + 1)^2`` tables (``P(m | c)``, the joint,
    two interval tables and their difference: ~6 float64 arrays) exceed the memory budget, or whose
    ``|R(n)|^2`` evaluations exceed the pair budget (the dry run calls this too)."""
    check_size((n + 1) ** 2, 8 * 6, f"the coverage tables for n={n}")
    check_scan_size(2, n, "the coverage table")


def coverage_point(mechanism: str, prior, n: int, epsilon: float, *, level: float, delta: float) -> dict:
    """Exact coverage and mean width of the naive and the noise-aware intervals for ``theta_1`` (k = 2)."""
    a = np.asarray(prior, dtype=np.float64)
    if a.size != 2:
        raise ValueError("the coverage experiment is exact for k = 2 (Beta) only")
    check_coverage_size(n)
    cands = candidates(n, 2)
    log_p = mechanism_rows(mechanism, a, n, epsilon=epsilon, delta=delta)(cands)  # (c, m)
    pi = np.exp(log_prior_predictive(a, cands))
    joint = pi[:, None] * np.exp(log_p)  # P(c, m)
    p_m = joint.sum(axis=0)
    alpha_c, beta_c = a[0] + cands[:, 0], a[1] + cands[:, 1]  # theta | c
    lo_q, hi_q = (1 - level) / 2, (1 + level) / 2
    # naive: Beta(a + m) read as the posterior
    from scipy.stats import beta as beta_dist  # heavy (~0.4 s): loaded here, not at every job's start

    naive_lo = beta_dist.ppf(lo_q, a[0] + cands[:, 0], a[1] + cands[:, 1])
    naive_hi = beta_dist.ppf(hi_q, a[0] + cands[:, 0], a[1] + cands[:, 1])
    aware_lo, aware_hi = np.full(n + 1, np.nan), np.full(n + 1, np.nan)
    used = p_m >= MIN_MASS
    for j in np.flatnonzero(used):
        w = joint[:, j] / p_m[j]
        keep = w >= COMPONENT_FLOOR * w.max()
        mix = Marginal(alpha_c[keep], beta_c[keep], w[keep] / w[keep].sum())
        aware_lo[j], aware_hi[j] = mix.interval(level)
    out = {"mechanism": mechanism, "n": n, "epsilon": epsilon, "level": level,
           "skipped_mass": float(p_m[~used].sum())}
    for name, lo, hi in (("naive", naive_lo, naive_hi), ("noise_aware", aware_lo, aware_hi)):
        lo_u, hi_u = lo[used], hi[used]
        # P(theta in [lo_m, hi_m] | c) for every (c, used m)
        inside = (betainc(alpha_c[:, None], beta_c[:, None], hi_u[None, :])
                  - betainc(alpha_c[:, None], beta_c[:, None], lo_u[None, :]))
        out[f"{name}_coverage"] = float((joint[:, used] * inside).sum())
        out[f"{name}_width"] = float(p_m[used] @ (hi_u - lo_u))
    return out


def coverage_table(mechanism: str, spec: dict) -> pd.DataFrame:
    """Every (n, eps) point of one coverage experiment for one mechanism (one pipeline job)."""
    rows = [coverage_point(mechanism, spec["prior"], int(n), float(e), level=float(spec["level"]),
                           delta=float(spec["delta"]))
            for n in spec["n"] for e in spec["epsilon"]]
    return pd.DataFrame(rows)
