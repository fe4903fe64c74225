"""Budgets: how much work or memory one call may take before it refuses (issue "every command has a budget").

Each budget is an environment setting read **at call time** (so a test, a job or a user can
change it without re-importing), checked *before* the work starts from public inputs only
(n, k, eps, gamma, samples; never the counts), so a refusal reveals nothing about the data.
Past a budget the call raises :class:`~dpposterior.errors.SizeError` (an ``InputError``: one
line, exit status 2 at the command line) giving the estimate and the setting that raises it.

Settings (default, what they bound):

- ``DPPOSTERIOR_MEMORY_GB`` (4): bytes of any exact table (``models.check_size``);
- ``DPPOSTERIOR_MAX_PAIRS`` (4e8): worst-case scans, passes x ``|R(n)|^2`` evaluations (``privacy``);
- ``DPPOSTERIOR_MAX_POSTERIOR_WORK`` (2.5e9): score evaluations of the noise-aware posterior;
- ``DPPOSTERIOR_MAX_SMOOTH_WORK`` (3e6): entries of one smooth-sensitivity search, k x distance;
- ``DPPOSTERIOR_MAX_RELEASE_WORK`` (1e7): sampler table entries ``k (n + 1)`` of one draw (a
  padded release, :func:`dpposterior.sample`, each batch of an audit);
- ``DPPOSTERIOR_MAX_DRAW_ENTRIES`` (2e7): entries ``size x k`` one :func:`dpposterior.sample` returns;
- ``DPPOSTERIOR_MAX_PMF_WORK`` (4e6): outputs ``pmf`` computes, ``|R(n)|``;
- ``DPPOSTERIOR_MAX_PMF_ROWS`` (1e6): rows ``pmf`` prints (all of R(n), or ``--top N``);
- ``DPPOSTERIOR_MAX_AUDIT_SAMPLES`` (2.5e7): draws per side of one audit, over all pairs tested;
- ``DPPOSTERIOR_MAX_AUDIT_SECONDS`` (45): estimated seconds of an audit of a library mechanism
  (:func:`dpposterior.mechanism_audit.check_audit_time`);
- ``DPPOSTERIOR_MAX_DATA_MB`` (1024): megabytes of a ``--data`` CSV file read by ``release``;
- ``DPPOSTERIOR_MAX_DATA_SECONDS`` (20): seconds ``release`` waits on a ``--data`` pipe or FIFO.

The pipeline's batch jobs run with larger values (:mod:`dpposterior.paper.budgets`).

The defaults keep every command within about a minute and 4 GiB on a 2-core machine
(``benchmarks/budgets.py`` prints the largest accepted cases and their cost).
"""

from __future__ import annotations

import math
import os

from .errors import InputError


def budget_setting(name: str, default: float) -> float:
    """The value of the environment setting ``name`` (a positive number), else ``default``.

    A malformed value (not a number, not finite, not positive) raises one-line
    :class:`~dpposterior.errors.InputError` naming the setting.
    """
    text = os.environ.get(name)
    if text is None or text.strip() == "":
        return float(default)
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"the environment setting {name} must be a positive number, got {text[:40]!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"the environment setting {name} must be a positive finite number, got {text[:40]!r}")
    return value
