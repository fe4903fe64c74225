"""Compute limits: how much work or memory one call may take before it refuses.

("Budget" in this package means a privacy budget, :mod:`dpposterior.ledger`; the settings here are limits.)
Each limit is an environment setting read **at call time** (so a test, a job or a user can
change it without re-importing), checked *before* the work starts from public inputs only
(n, k, eps, gamma, samples; never the counts), so a refusal reveals nothing about the data.
A value must be positive and at most the setting's finite upper bound (``DPPOSTERIOR_MEMORY_GB=1e300``
is a one-line error). Past a budget the call raises :class:`~dpposterior.errors.SizeError` (an ``InputError``: one
line, exit status 2 at the command line) giving the estimate and the setting that raises it.

Settings (default, what they bound), one registry entry each (:data:`LIMITS`, a :class:`Limit`
with its unit and bounds; docs/budgets.md lists the same, ``tests/test_packaging.py`` checks it):

- ``DPPOSTERIOR_MEMORY_GB`` (4): bytes of any exact table (``models.check_size``);
- ``DPPOSTERIOR_MAX_PAIRS`` (4e8): worst-case scans, passes x ``|R(n)|^2`` evaluations (``privacy``);
- ``DPPOSTERIOR_MAX_POSTERIOR_WORK`` (2.5e9): score evaluations of the noise-aware posterior;
- ``DPPOSTERIOR_MAX_SMOOTH_WORK`` (3e6): entries of one smooth-sensitivity search, k x distance;
- ``DPPOSTERIOR_MAX_SENSITIVITY_WORK`` (1e7): distance evaluations of the sensitivities (and of ``optimal``'s
  loss matrix) under a distance
  other than Hellinger (:mod:`dpposterior.sensitivity`, by enumeration of R(n));
- ``DPPOSTERIOR_MAX_RELEASE_WORK`` (1e7): sampler table entries ``k (n + 1)`` of one draw (a
  padded release, :func:`dpposterior.sample`, each batch of an audit);
- ``DPPOSTERIOR_MAX_DRAW_ENTRIES`` (2e7): entries ``size x k`` one :func:`dpposterior.sample` returns;
- ``DPPOSTERIOR_MAX_PMF_WORK`` (4e6): outputs ``pmf`` computes, ``|R(n)|``;
- ``DPPOSTERIOR_MAX_PMF_ROWS`` (1e6): rows ``pmf`` prints (all of R(n), or ``--top N``);
- ``DPPOSTERIOR_MAX_AUDIT_SAMPLES`` (2.5e7): draws per side of one audit, over all pairs tested;
- ``DPPOSTERIOR_MAX_AUDIT_SECONDS`` (45): estimated seconds of an audit of a library mechanism
  (:func:`dpposterior.mechanism_audit.check_audit_time`);
- ``DPPOSTERIOR_MAX_SOLVE_SECONDS`` (45): estimated seconds of the optimal mechanism's solve (the remap at
  k = 2, the linear program at k >= 3; :meth:`dpposterior.mechanisms.optimal.OptimalMechanism.solve_seconds`);
- ``DPPOSTERIOR_MAX_DATA_MB`` (1024): megabytes of a ``--data`` CSV file read by ``release``;
- ``DPPOSTERIOR_MAX_DATA_SECONDS`` (20): seconds ``release`` waits on a ``--data`` pipe or FIFO.

The pipeline's batch jobs run with larger values (:mod:`dpposterior.paper.limits`).

The defaults keep every command within about a minute and 4 GiB on a 2-core machine
(``benchmarks/budgets.py`` prints the largest accepted cases and their cost).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from .errors import InputError


@dataclass(frozen=True)
class Limit:
    """One environment setting: its ``name``, ``default``, ``unit``, accepted ``bounds`` and ``what`` it bounds.

    ``bounds = (lo, hi)``: a value must be above ``lo`` (exclusive; every budget is positive) and at
    most ``hi`` (finite, so an absurd value is a one-line error, not an overflow later).
    """

    name: str
    default: float
    unit: str
    bounds: tuple[float, float]
    what: str

    def value(self) -> float:
        """The setting's value now (read at call time), else :attr:`default`."""
        return limit_setting(self.name)


LIMITS: dict[str, Limit] = {b.name: b for b in [
    Limit("DPPOSTERIOR_MEMORY_GB", 4.0, "GiB", (0.0, 1e5), "bytes of any exact table (models.check_size)"),
    Limit("DPPOSTERIOR_MAX_PAIRS", 4e8, "log-pmf evaluations", (0.0, 1e16),
           "worst-case scans, passes x |R(n)|^2 evaluations (privacy, accuracy, calibration)"),
    Limit("DPPOSTERIOR_MAX_POSTERIOR_WORK", 2.5e9, "score evaluations", (0.0, 1e16),
           "score evaluations of the noise-aware posterior"),
    Limit("DPPOSTERIOR_MAX_SMOOTH_WORK", 3e6, "entries", (0.0, 1e13),
           "entries of one smooth-sensitivity search, k x distance"),
    Limit("DPPOSTERIOR_MAX_SENSITIVITY_WORK", 1e7, "distance evaluations", (0.0, 1e16),
           "distance evaluations of the sensitivities under a distance other than Hellinger"),
    Limit("DPPOSTERIOR_MAX_RELEASE_WORK", 1e7, "table entries", (0.0, 1e13),
           "sampler table entries k (n + 1) of one draw (a padded release, sample, each batch of an audit)"),
    Limit("DPPOSTERIOR_MAX_DRAW_ENTRIES", 2e7, "entries", (0.0, 1e13),
           "entries size x k one call of sample returns"),
    Limit("DPPOSTERIOR_MAX_PMF_WORK", 4e6, "outputs", (0.0, 1e13), "outputs pmf computes, |R(n)|"),
    Limit("DPPOSTERIOR_MAX_PMF_ROWS", 1e6, "rows", (0.0, 1e13), "rows pmf prints (all of R(n), or --top N)"),
    Limit("DPPOSTERIOR_MAX_AUDIT_SAMPLES", 2.5e7, "draws", (0.0, 1e15),
           "draws per side of one audit, over all pairs tested"),
    Limit("DPPOSTERIOR_MAX_AUDIT_SECONDS", 45.0, "seconds", (0.0, 1e7),
           "estimated seconds of an audit of a library mechanism"),
    Limit("DPPOSTERIOR_MAX_SOLVE_SECONDS", 45.0, "seconds", (0.0, 1e7),
           "estimated seconds of the optimal mechanism's solve (remap at k = 2, linear program at k >= 3)"),
    Limit("DPPOSTERIOR_MAX_DATA_MB", 1024.0, "MB", (0.0, 1e7), "megabytes of a --data CSV file read by release"),
    Limit("DPPOSTERIOR_MAX_DATA_SECONDS", 20.0, "seconds", (0.0, 86400.0),
           "seconds release waits on a --data pipe or FIFO"),
]}


def short(value: float) -> str:
    """A bound as docs/budgets.md writes it: ``1e16``, ``86400``."""
    text = f"{value:g}"
    return text.replace("e+0", "e").replace("e+", "e")


def limit(name: str) -> Limit:
    """The registry entry of a setting (a ``KeyError`` names an unknown one: a programming error)."""
    try:
        return LIMITS[name]
    except KeyError:
        raise KeyError(f"unknown budget setting {name!r}; known: {', '.join(LIMITS)}") from None


def limit_setting(name: str, default: float | None = None) -> float:
    """The value of the environment setting ``name`` (a positive number within its bounds), read now.

    ``default``: the value when the setting is unset; ``None`` (the normal case) takes the registry's
    :attr:`Limit.default`.  A malformed value (not a number, not finite, not positive, above the
    setting's upper bound) raises one-line :class:`~dpposterior.errors.InputError` naming the setting.
    """
    entry = limit(name)
    text = os.environ.get(name)
    if text is None or text.strip() == "":
        return float(entry.default if default is None else default)
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"the environment setting {name} must be a positive number, got {text[:40]!r}") from None
    if not math.isfinite(value) or value <= entry.bounds[0]:
        raise InputError(f"the environment setting {name} must be a positive finite number, got {text[:40]!r}")
    if value > entry.bounds[1]:
        raise InputError(f"the environment setting {name} must be a positive number of {entry.unit} up to "
                         f"{short(entry.bounds[1])}, got {text[:40]!r}")
    return value
