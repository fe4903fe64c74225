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
- ``DPPOSTERIOR_MAX_DATA_SECONDS`` (20): seconds ``release`` waits on a ``--data`` pipe or FIFO;
- ``DPPOSTERIOR_MAX_COMPARE_SECONDS`` (150): estimated seconds of all the rows ``compare`` computes together
  (each row is admitted by its own plan first; :mod:`dpposterior.ranking`).

Plans
-----
A :class:`Plan` is what one call will do, from public inputs only (n, k, eps, settings; never the counts): the
``route`` it takes, its estimated ``seconds`` and ``memory_bytes``, the ``bracket`` of its answer (0 = exact), and the
``costs`` it is held to, each ``(setting, amount)`` in that setting's unit.  The function that picks the route at run
time makes the plan (:meth:`dpposterior.mechanisms.Mechanism.plan`), so the route run is the route planned, and
:func:`admit` is the one place that holds a plan to the limits: a refusal is the plan's own line (what, about how long
or how much, which setting raises it).

A plan may stop counting once it is over a limit (``at_least``: its seconds and costs are then lower ends, and its
refusal says "at least"): what is left could only add to an amount already refused.  Such a plan is made against the
limits in force; if they are raised before it is admitted it is refused still (plan again), so a plan that was cut
short is never admitted.

The pipeline's batch jobs run with larger values (:mod:`dpposterior.paper.limits`).

The defaults keep every command within about a minute and 4 GiB on a 2-core machine
(``benchmarks/budgets.py`` prints the largest accepted cases and their cost).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from enum import StrEnum

from .errors import InputError, SizeError


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
    Limit("DPPOSTERIOR_MAX_COMPARE_SECONDS", 150.0, "seconds", (0.0, 1e7),
           "estimated seconds of all the rows compare computes together"),
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
        raise KeyError(f"unknown limit setting {name!r}; known: {', '.join(LIMITS)}") from None


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


class Task(StrEnum):
    """What a plan is for (:class:`Plan`): the exact errors over R(n) (``accuracy``, ``compare``), a draw
    (``release``), the noise-aware posterior of one release (``posterior``, ``release --noise-aware``), a release's pmf
    at one data set (``pmf``, the pipeline's `pmf:` stage); prints as its string."""

    ERRORS = "errors"
    DRAW = "draw"
    POSTERIOR = "posterior"
    PMF = "pmf"


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What one call will do, from public inputs only (module docstring, "Plans").

    ``task``: the :class:`Task`; ``route``: the route it takes (``"dense rows"``, ``"window remap"``, ...);
    ``what``: the call in words, for a refusal (``"the expected errors of lattice (worst) for k=3, n=100, eps=1"``);
    ``seconds``, ``memory_bytes``: estimates; ``bracket``: the width of the answer's bracket (0: exact);
    ``costs``: ``((setting, amount), ...)``, each amount in the unit of that :data:`LIMITS` setting, held to it by
    :func:`admit`; ``refusal``: a one-line reason when no route runs at these inputs (then nothing else counts);
    ``advice``: what else to do, put before the setting in a refusal; ``shared``: ``((key, seconds), ...)``, parts of
    ``seconds`` computed once per process (a cache) for every plan naming the same key, so that a caller running
    several plans (``compare``'s rows) counts each key's seconds once; ``at_least``: the plan stopped counting over a
    limit, so ``seconds`` and ``costs`` are lower ends (module docstring, "Plans"), and it is never admitted.
    """

    task: Task
    route: str
    what: str
    seconds: float = 0.0
    memory_bytes: float = 0.0
    bracket: float = 0.0
    costs: tuple[tuple[str, float], ...] = ()
    refusal: str = ""
    advice: str = ""
    shared: tuple = ()
    at_least: bool = False

    def refused(self) -> str:
        """The one-line reason :func:`admit` would refuse this plan with, or ``""`` when it fits the limits now."""
        if self.refusal:
            return self.refusal
        memory = limit_setting("DPPOSTERIOR_MEMORY_GB") * 2**30
        if self.memory_bytes > memory:
            return (f"{self.what}: needs ~{self.memory_bytes / 2**30:.3g} GiB ({self.route}), over the limit of "
                    f"{memory / 2**30:g} GiB ({self._remedy('DPPOSTERIOR_MEMORY_GB')})")
        for name, amount in self.costs:
            value = limit_setting(name)
            if amount > value:
                entry = limit(name)
                amount_text = f"{amount:.3g} {entry.unit}"
                took = duration_text(self.seconds)
                if self.at_least:
                    took, amount_text = took.replace("about ", "at least ", 1), f"at least {amount_text}"
                return (f"{self.what}: would take {took} here ({self.route}: {amount_text}), "
                        f"over the limit of {value:g} {entry.unit} ({self._remedy(name)})")
        if self.at_least:  # cut short over a limit since raised: its amounts are lower ends, not an estimate
            return (f"{self.what}: was planned against a lower limit and stopped counting over it ({self.route}); "
                    "plan it again")
        return ""

    def _remedy(self, name: str) -> str:
        return f"{self.advice}, or set {name} to raise it" if self.advice else f"set {name} to raise it"

    @property
    def fits(self) -> bool:
        """Whether :func:`admit` accepts this plan now."""
        return not self.refused()


def admit(plan: Plan) -> Plan:
    """The one place a plan is held to the limits: return it when it fits, else raise one-line
    :class:`~dpposterior.errors.SizeError` with :meth:`Plan.refused`'s line."""
    reason = plan.refused()
    if reason:
        raise SizeError(reason)
    return plan


def duration_text(seconds: float) -> str:
    """An estimated duration for a message: ``about 3 s``, ``about 4 minutes``, ``about 2.5 hours``,
    ``about 3e+04 days``."""
    if not math.isfinite(seconds):
        return "forever"
    if seconds < 90:
        return f"about {max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60)} minutes"
    if seconds < 36 * 3600:
        return f"about {seconds / 3600:.2g} hours"
    return f"about {seconds / 86400:.2g} days"
