"""A release as a program: a budget from public inputs, then a draw whose time the data cannot change.

A release is not only its pmf.  The exponential samplers' work depends on the data (band
tables and the smooth-sensitivity search are sized by where the counts sit), so an observer
who can time a release could learn more than eps allows.  :func:`release` closes that channel
by *padding to a deadline computed from public inputs only*:

1. **Budget.**  From (n, k, mechanism) alone, the memory and the time the draw needs are checked
   (:meth:`Mechanism.check_setup`: the exact pmf when R(n) is listed, the rejection sampler's
   tables otherwise); too large -> one-line :class:`~dpposterior.errors.SizeError`.
2. **Deadline.**  The same mechanism draws once on each *public reference data set* of the
   same n and k (:func:`reference_counts`: every record in the last category, and the
   balanced split: the slowest and the fastest cases measured), with randomness independent of
   the release; the deadline is ``PAD_FACTOR`` times the slowest of these runs plus
   ``PAD_SLACK`` seconds.  These runs see no data, so the deadline is a function of public
   inputs (and of the machine's speed and load, which the data does not change).  Before them,
   :meth:`Mechanism.set_up` builds what every draw needs from public inputs (``optimal``'s solved
   remap at k = 2), so the deadline measures draws, not that one-off set-up.  A process
   draws ``REFERENCE_REPS`` times on each.  A process
   measures it once per set of public inputs and reuses it (:data:`_DEADLINES`), so repeated
   releases in one process take the same time; a command-line release measures it every time.
3. **Draw and pad.**  The release draws from the real counts, then sleeps until the deadline.
   Its total time is ``reference runs (first release only) + deadline``, whatever the data.
4. **Overrun.**  If the draw has not finished by the deadline (a data set slower than three times
   the slowest reference, or a rare long run of rejections), the release waits until the next
   multiple of the deadline (``2D, 3D, ...``).  The only thing an overrun shows is its slot.
   We can bound neither its probability under the data nor the delta it adds by a proof (the
   deadline is measured, not derived); ``benchmarks/timing.py`` counts overruns, and
   :func:`release` reports them in its ``info`` so experiments can count them too.

A release is therefore slower than a bare draw (about ``2 + PAD_FACTOR`` draws' worth of
time); that is the price of a running time that carries no information about the data.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .limits import Task, admit
from .mechanisms import ReleaseSpec

#: The deadline is this many times the slowest reference draw ...
PAD_FACTOR = 3.0
#: ... plus this many seconds (absorbs scheduler jitter on fast draws).
PAD_SLACK = 0.02
#: Draws per reference data set (the samplers' own time varies from draw to draw).
REFERENCE_REPS = 2
#: Public seed of the reference draws in seeded (experimental) releases; their output is discarded.
REFERENCE_SEED = 20201027
#: Deadlines measured in this process, by public inputs (mechanism, n, k, settings, prior, entropy kind).
_DEADLINES: dict[tuple, tuple[tuple[float, ...], float]] = {}


@dataclass(frozen=True)
class ReleaseInfo:
    """What a release knows about its own timing (never printed by the CLI: it is for experiments)."""

    reference_seconds: tuple[float, ...]
    deadline_seconds: float
    draw_seconds: float
    overrun_slots: int


def reference_counts(n: int, k: int) -> list[NDArray[np.int64]]:
    """The public reference data sets of size n: all records in the last category, and balanced."""
    boundary = np.zeros(k, dtype=np.int64)
    boundary[-1] = n
    balanced = np.full(k, n // k, dtype=np.int64)
    balanced[: n - int(balanced.sum())] += 1
    return [boundary, balanced]


#: Set-ups of a padded release, for its time estimate: 2 x REFERENCE_REPS reference draws, the draw
#: itself and up to PAD_FACTOR draws' worth of padding.
RELEASE_SETUPS = 2 * REFERENCE_REPS + 1 + PAD_FACTOR


def check_release(spec: ReleaseSpec, prior: NDArray[np.float64], n: int, k: int,
                  before_setup: Callable[[NDArray[np.float64], int], None] | None = None) -> None:
    """Every refusal a release can meet, from public inputs only (settings, prior, n, k; never the counts), run
    before a ledger is charged and before anything is drawn (docs/definitions.md §9): a distance with no exact
    method at k categories (as ``pmf``, ``accuracy`` and ``posterior`` refuse it), the plan of the draw
    (:meth:`~dpposterior.mechanisms.Mechanism.plan` for ``Task.DRAW``, held to the limits by
    :func:`~dpposterior.limits.admit`: the memory and time of the :data:`RELEASE_SETUPS` set-ups of a padded
    release), then the mechanism's public set-up (:meth:`~dpposterior.mechanisms.Mechanism.set_up`:
    ``optimal``'s remap solved at k = 2, with its own budget and certificate refusals), which the draw then
    reuses.  ``before_setup(prior, n)``: the caller's own refusals from public inputs (``release --noise-aware``: the
    posterior's plan), run before the set-up, so a refusal there costs no solve."""
    mech = spec.mechanism
    mech.check_distance(spec, k)
    admit(mech.plan(Task.DRAW, spec, prior, n))
    if before_setup is not None:
        before_setup(prior, n)
    mech.set_up(prior, n, spec)


def padded_draw(spec: ReleaseSpec, prior: NDArray[np.float64], counts: NDArray[np.int64], rng=None, *,
                pad: bool = True, clock: Callable[[], float] = time.perf_counter,
                sleep: Callable[[float], None] = time.sleep) -> tuple[NDArray[np.int64], ReleaseInfo]:
    """One private draw ``m`` (the release is ``Dir(a + m)``), padded to a public deadline (module docstring).

    ``rng``: None (the operating system's CSPRNG: every real release) or a seed / Generator
    (experiments only).  ``pad=False`` skips the reference draws and the padding (experiments
    that time the bare sampler).  ``spec``: the validated settings, passed whole (:class:`ReleaseSpec`).
    """
    mech, params = spec.mechanism, spec
    n, k = int(counts.sum()), counts.size
    check_release(spec, prior, n, k)  # ends with the public set-up (a solved remap), outside the timed draws
    refs: tuple[float, ...] = ()
    deadline = 0.0
    if pad:
        key = (mech.id, n, k, params, tuple(np.asarray(prior, dtype=np.float64).tolist()), rng is None)
        if key not in _DEADLINES:
            ref_rng = None if rng is None else np.random.default_rng(REFERENCE_SEED)
            times = []
            for ref in reference_counts(n, k) * REFERENCE_REPS:
                t0 = clock()
                mech.sample(prior, ref, params, 1, ref_rng)
                times.append(clock() - t0)
            _DEADLINES[key] = (tuple(times), PAD_FACTOR * max(times) + PAD_SLACK)
        refs, deadline = _DEADLINES[key]
    t0 = clock()
    m = mech.sample(prior, counts, params, 1, rng)[0]
    took = clock() - t0
    slots = 0
    if pad:
        slots = int(took // deadline)  # 0 unless the draw overran the deadline
        end = t0 + (slots + 1) * deadline
        while (left := end - clock()) > 0:
            sleep(left)
    return m, ReleaseInfo(tuple(refs), deadline, took, slots)
