"""The base of every mechanism (docs/definitions.md §4, §9): validated settings, exact rows, the registry entry type.

* :class:`PrivacyParameters` (epsilon, delta), the names of the settings (:class:`Setting`), the
  objectives and families (:class:`Objective`, :class:`Family`, ``StrEnum`` s: they print as their strings);
* :class:`Guarantee`: a mechanism's claimed guarantee as data: its privacy map as code and how it is
  proven (:class:`Proof`); ``by_construction`` derives the paper's BY CONSTRUCTION verdicts from it;
* :class:`Rows`: exact log-pmf rows over R(n) for a batch of data sets of one size n;
* :class:`Mechanism`: the abstract registry entry (keyword-only metadata), carrying its identity, its claimed
  guarantee (as data), the variants it offers (``calibrated``, objectives) and its behaviour;
* the draw helpers shared by the families, and the budgets of a draw (from public inputs only).

Every log-pmf is a vector aligned with ``models.candidates(n, k)``.  The families live in
:mod:`.exponential`, :mod:`.clamped` and :mod:`.optimal`; the registry in :mod:`dpposterior.mechanisms`.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import validate
from ..distances import DistanceGrid, get_distance
from ..errors import InputError, SizeError
from ..limits import Plan, Task, limit_setting
from ..models import candidate_rank, candidates, check_size, n_candidates
from ..randomness import bit_source, choose, exp_weights

if TYPE_CHECKING:  # the spec module sits above this one; every method receives a spec, whole
    from .spec import ReleaseSpec

DEFAULT_DELTA = 1e-8
DEFAULT_GAMMA = 1.0
#: Log-pmf (or loss) evaluations per second of the dense walks over R(n) (the scans, the expected error's rows):
#: the rate behind every plan whose cost is counted against ``DPPOSTERIOR_MAX_PAIRS`` (~1e7 per second measured on
#: 2 shared cores, so the default 4e8 is ~40 s).
PAIRS_PER_SECOND = 1e7
#: Log-pmf evaluations per second of the expected error's dense walk over whole rows at k >= 3 (:meth:`Mechanism.
#: plan_errors` of an entry whose ``dense_rows_per_second`` is None): the exponential entries' rows are vectorised
#: over R(n) and run ~1.5e8 per CPU second on 2 shared cores at load 8 (ehd, n = 120, eps = 0.5: 1.09e8 pairs in
#: 1.38 CPU s for the whole process, ~0.7 s past its imports; n = 160: 3.3e8 in 3.1 s), so the plan stays 1.4 to 3x
#: above the whole process's CPU (benchmarks/compare_h74cmp.json).  The count held to ``DPPOSTERIOR_MAX_PAIRS`` is
#: the same; k = 2 keeps :data:`PAIRS_PER_SECOND`.
DENSE_ROWS_PER_SECOND = 4e7
#: ... and of the clamped entries' dense walk (``geometric``, ``lszhang``, ``lsdim`` below their translation route),
#: whose rows cost more per pair: geometric at k = 4, n = 30 (5.95e7 pairs) 1.54 CPU s for the whole process at load
#: 11, lszhang at n = 100 (4.1e7) 1.36 s; at this rate 2.4 s and 1.6 s planned.
CLAMPED_DENSE_ROWS_PER_SECOND = 2.5e7
#: The routes of the expected errors that walk whole rows over R(n) (:meth:`Mechanism.plan_errors`); every other
#: route is run by :meth:`Mechanism.direct_errors`.
ROWS_ROUTES = frozenset({"dense rows", "rows of the linear program", "rows of the dense remap"})
#: Full scans over the pairs of R(n) of the expected error (its rows and error tables) and of a calibration (its
#: bisection and its certificate, measured ~14), as the library's own scans count them.
ERROR_PASSES, CALIBRATION_PASSES = 2, 20
#: Loss evaluations per second, and bytes per evaluation at the peak, of the windowed risk of geometric noise and a
#: remap at k = 2 (:func:`dpposterior.remap.risk`; geometric, n = 1e5, eps = 1: 9.5e6 in 1.9 CPU s, 722 MB peak;
#: benchmarks/plans.json).
RISK_PER_SECOND, RISK_BYTES = 5e6, 80.0
#: The route of a plan with no route here (:meth:`Mechanism.plan_posterior`: the caller's own refusal stands).
NO_ROUTE = "none"
#: Bytes of one chunk of a walk over whole rows (its log-pmf and error rows, ``scan.WORK_BYTES`` at most), at most.
WALK_CHUNK_BYTES = 512 * 2**20
#: Bytes of one ``(B, |R(n)|)`` array of the expected error's walk over rows computed row by row from vectorised
#: operations (:attr:`Rows.walk_chunk_bytes` of the exponential and clamped entries): a chunk's score, log-pmf and
#: error rows stay in cache between their passes and come from the heap rather than fresh pages, and every operation
#: on them is row by row, so the same floats at any chunk (`frontier`'s `ehd`, n up to 1e4: 4.4 -> 3.0 CPU s, peak
#: 950 -> 176 MB, 2026-11-29, benchmarks/pipeline_jobs.py).
CACHE_CHUNK_BYTES = 4 * 2**20


class Objective(StrEnum):
    """``optimal``'s objectives: the worst case over data sets of size n, or the prior-predictive average
    (docs/definitions.md §9).  A ``StrEnum``: it prints, compares and serialises as its string."""

    WORST = "worst"
    AVERAGE = "average"


#: The objectives, in order (the values :func:`dpposterior.validate.choice` accepts).
OBJECTIVES = tuple(o.value for o in Objective)
#: The variant a calibratable mechanism offers (``ehds~calibrated``, docs/definitions.md §9, Calibration).
CALIBRATED = "calibrated"


class Family(StrEnum):
    """The families of the registry (docs/definitions.md §4, §9); prints as its string."""

    EXPONENTIAL = "exponential"
    LAPLACE = "laplace"
    GEOMETRIC = "geometric"
    OPTIMAL = "optimal"
    REMAPPED_GEOMETRIC = "remapped-geometric"
    LATTICE = "lattice"
    BASE = "base"


class Setting(StrEnum):
    """The names of the mechanism settings a release spec carries besides epsilon and the distance, declared
    once here (:class:`~.spec.ReleaseSpec` has one field per name): what an entry ``uses``."""

    DELTA = "delta"
    GAMMA = "gamma"
    GLOBAL_SENSITIVITY = "global_sensitivity_method"
    OBJECTIVE = "objective"


class Proof(StrEnum):
    """How a registry entry's claimed guarantee is established (:class:`Guarantee`)."""

    THEOREM = "theorem"  # a textbook theorem, its proof kept beside the entry
    POST_PROCESSING = "post-processing"  # a function of another entry's release
    EXACT = "exact computation"  # certified by computing the exact concrete eps (docs/definitions.md §9)
    DRAFT = "draft claim"  # a draft's theorem, not proven here (measured by dpposterior.privacy)
    NONE = "none"  # no claim


#: A privacy map: the release settings (anything with ``epsilon`` and ``delta``, e.g. a
#: :class:`~.spec.ReleaseSpec`) -> the claimed ``(epsilon, delta)``.
PrivacyMap = Callable[[Any], tuple[float, float]]


@dataclass(frozen=True, kw_only=True)
class Guarantee:
    """A registry entry's claimed guarantee as data (docs/mechanisms.md, "A mechanism's guarantee").

    ``text``: the claim in words, as :meth:`Mechanism.stated_guarantee` prints it.
    ``privacy_map``: the settings -> the claimed ``(epsilon, delta)`` (None: no claim), as code.
    ``proof``: how the claim is established (:class:`Proof`); ``reference``: the theorem or draft it rests on;
    ``proof_text``: a short proof, kept beside the entry; ``source``: for post-processing, the guarantee of the
    entry whose release is post-processed.  Build with the named constructors.
    """

    text: str
    privacy_map: PrivacyMap | None
    proof: Proof
    reference: str = ""
    proof_text: str = ""
    source: Guarantee | None = None

    @classmethod
    def theorem(cls, text: str, privacy_map: PrivacyMap, *, reference: str, proof: str) -> Guarantee:
        """A textbook theorem (``reference``) with its short ``proof`` beside the entry."""
        return cls(text=text, privacy_map=privacy_map, proof=Proof.THEOREM, reference=reference, proof_text=proof)

    @classmethod
    def post_processing(cls, text: str, of: Guarantee, *, proof: str) -> Guarantee:
        """A function of another entry's release (``of``: that entry's guarantee): the same privacy map."""
        return cls(text=text, privacy_map=of.privacy_map, proof=Proof.POST_PROCESSING, reference=of.reference,
                   proof_text=proof, source=of)

    @classmethod
    def exact(cls, text: str, privacy_map: PrivacyMap, *, proof: str) -> Guarantee:
        """Certified by computing the exact concrete epsilon (docs/definitions.md §9, Calibration)."""
        return cls(text=text, privacy_map=privacy_map, proof=Proof.EXACT, proof_text=proof)

    @classmethod
    def draft(cls, text: str, privacy_map: PrivacyMap, *, reference: str) -> Guarantee:
        """A draft's theorem (``reference``), not proven here: :mod:`dpposterior.privacy` measures it."""
        return cls(text=text, privacy_map=privacy_map, proof=Proof.DRAFT, reference=reference)

    @classmethod
    def none(cls, text: str) -> Guarantee:
        """No privacy claim (a baseline)."""
        return cls(text=text, privacy_map=None, proof=Proof.NONE)

    @property
    def by_construction(self) -> bool:
        """True exactly for a textbook theorem and for post-processing of a by-construction entry: a check of
        the claim cannot fail for a correct implementation (the paper's BY CONSTRUCTION verdict)."""
        if self.proof is Proof.THEOREM:
            return True
        return self.proof is Proof.POST_PROCESSING and self.source is not None and self.source.by_construction

    def claim(self, settings) -> tuple[float | None, float | None]:
        """The claimed ``(epsilon, delta)`` under ``settings`` (``.epsilon``, ``.delta``); ``(None, None)``
        when there is no claim (docs/definitions.md §4)."""
        return (None, None) if self.privacy_map is None else self.privacy_map(settings)


def pure(factor: float = 1.0) -> PrivacyMap:
    """The privacy map ``(eps, delta) -> (factor eps, 0)``: pure ``factor eps``-DP."""
    return lambda s: (factor * s.epsilon, 0.0)


def approximate(s) -> tuple[float, float]:
    """The privacy map ``(eps, delta) -> (eps, delta)``: (eps, delta)-DP."""
    return s.epsilon, s.delta


#: Set-ups of a padded release (:mod:`dpposterior.padding`): its 2 x 2 reference draws, the draw and up to 3 draws'
#: worth of padding (``padding.RELEASE_SETUPS``, which is this value).
DRAW_SETUPS = 2 * 2 + 1 + 3.0


class Rows:
    """Exact log-pmf rows ``ln P(. | c)`` over R(n) (``.cands``) for any batch of data sets c of size n.

    ``rows(counts)`` with counts ``(B, k)`` returns ``(B, |R(n)|)``.
    """

    #: At most this many bytes per ``(B, |R(n)|)`` array in the expected error's walk (``None``: its
    #: ``scan.WORK_BYTES`` share only); a row function with Python work per call (a loop over R(n)) keeps ``None``.
    walk_chunk_bytes: int | None = None

    def __init__(self, a: NDArray[np.float64], n: int):
        self.a, self.n, self.k = a, n, a.size
        self.cands = candidates(n, self.k)

    def __call__(self, counts: ArrayLike) -> NDArray[np.float64]:  # pragma: no cover - abstract
        raise NotImplementedError

    def with_losses(self, counts: NDArray[np.int64], grid: DistanceGrid) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(ln P(. | c), D(BI(c), .))`` for a batch, both ``(B, |R(n)|)``: the log-pmf rows and the error rows of
        ``grid`` (the expected error's two tables, docs/definitions.md §9).  An entry whose pmf is built from the
        same distance table overrides this to compute that table once."""
        return self(counts), grid.values(counts, self.cands)


@dataclass(frozen=True)
class PrivacyParameters:
    """The privacy parameters of a release: ``epsilon`` and the ``delta`` target (docs/definitions.md §5).

    Validated by :meth:`of` (:mod:`dpposterior.validate`, the command line's messages); a mechanism's own
    settings (gamma, the global-sensitivity method, the objective) are not privacy parameters and live in
    :class:`~.spec.ReleaseSpec`.
    """

    epsilon: float
    delta: float = DEFAULT_DELTA

    @classmethod
    def of(cls, epsilon: Any, delta: Any = DEFAULT_DELTA) -> PrivacyParameters:
        """Validated epsilon, then delta (one-line :class:`~dpposterior.errors.InputError`)."""
        return cls(validate.epsilon(epsilon), validate.delta(delta))


class Mechanism(abc.ABC):
    """A registry entry (abstract): identity, claimed guarantee (as data) and behaviour of one mechanism.

    Built with keyword arguments only: ``id``, ``name``, ``seed_name`` (the drafts' source),
    ``weight_or_scale``, ``guarantee`` (a :class:`Guarantee`: the privacy map as code and how it is proven),
    ``uses`` (the :class:`Setting` s it reads besides epsilon) and ``distances`` (None: every distance).
    A family subclass gives :meth:`rows` and :meth:`sample`.
    """

    family: Family = Family.BASE
    calibratable = False  # accepts calibrate=True: offers the variant ``~calibrated``
    #: The objectives the mechanism offers as variants (``optimal~average``); () for none.
    objectives: tuple[Objective, ...] = ()
    #: How close the sampler's law is to :meth:`log_pmf` (total variation) and the delta it adds.
    sampling_guarantee = ""
    #: Whether the release itself depends on ``spec.distance`` (the exponential mechanisms' score, ``optimal``'s
    #: loss): a *tailored* mechanism.  Every mechanism measures its error with the distance; only these change it.
    tailored = False
    #: The draft section stating the Dwork-Roth tail bound ``Pr[H >= t] <= |R| exp(-w(c) t)`` for this entry
    #: (``mh``: 004 §6.2), which the paper's pmf items print beside the exact tail; None: no stated bound.
    tail_bound: str | None = None
    #: The registry id of an entry whose release this entry's is wherever both give one :meth:`release_key`
    #: (``optimal`` past its linear program is the lattice release): an expected-error grid copies those rows from
    #: that entry's grid instead of computing them twice (:func:`dpposterior.paper.beyond.expected_error_grid`).
    #: None: none.
    releases_of: str | None = None
    #: the rate of :meth:`plan_errors`' dense walk at k >= 3 (None: :data:`DENSE_ROWS_PER_SECOND`)
    dense_rows_per_second: float | None = None
    #: Whether ``compare`` takes this baseline before the others (:func:`dpposterior.ranking.plan_compare`): the
    #: Laplace-style release a reader looks for beside the best one (``geometric``)
    compare_first = False

    def __init__(self, *, id: str, name: str, seed_name: str, weight_or_scale: str, guarantee: Guarantee,
                 uses: frozenset[Setting] | set[Setting] = frozenset(), distances: tuple[str, ...] | None = None):
        self.id, self.name, self.seed_name, self.weight_or_scale = id, name, seed_name, weight_or_scale
        self.guarantee = guarantee
        #: The :class:`Setting` s the mechanism reads besides epsilon; ``objective`` is read by a mechanism
        #: with :attr:`objectives` (:attr:`settings_used`).  Any other setting given a non-default value is
        #: refused (:func:`~dpposterior.mechanisms.registry.check_unused`).
        self.uses = frozenset(Setting(u) for u in uses)
        #: The distances the mechanism is built for (None: every distance of the registry).  A mechanism
        #: whose construction is tied to one loss refuses the others in one line (:meth:`check`).
        self.distances = distances

    def release_key(self, prior, n: int, spec: ReleaseSpec) -> tuple | None:
        """A key equal for two entries' releases exactly when they are the same release at ``k`` categories under
        ``spec``'s eps (``lshist`` and ``lszhang`` at k >= 3: the same Laplace scale), so ``compare`` computes it
        once; None: not shared (here)."""
        return None

    def working_epsilon(self, prior, n: int, spec: ReleaseSpec) -> float:
        """The eps a draw of this release runs at, from public prior, n, k and eps only (so naming it reveals nothing):
        the claimed eps here; at most it wherever an entry says otherwise (then the release is eps-DP all the same)."""
        return spec.epsilon

    def remap_name(self, prior, n: int, spec: ReleaseSpec) -> str | None:
        """Which remap a draw of this release reads, chosen from public prior, n, k, eps and objective only (so naming
        it reveals nothing); None: the release has no remap chosen by route (here)."""
        return None

    def errors_pass(self, plan: Plan, prior, n: int, spec: ReleaseSpec) -> tuple | None:
        """A key equal for rows whose exact errors (``plan``, :meth:`plan_errors`'s) one pass computes together
        (:meth:`plan_shared_errors`, :meth:`shared_errors`: the same losses, each row its own weights), or None:
        this row runs alone (here)."""
        return None

    def plan_shared_errors(self, members: list, prior, n: int) -> Plan:  # pragma: no cover - with errors_pass
        """The plan of one pass computing the errors of ``members`` (``[(plan, spec), ...]``, one :meth:`errors_pass`
        key, this entry's first) together."""
        raise NotImplementedError

    def shared_errors(self, members: list, prior, n: int) -> list:  # pragma: no cover - with errors_pass
        """Run :meth:`plan_shared_errors`'s pass: one result of :meth:`direct_errors` per member, the same values."""
        raise NotImplementedError

    def same_release(self, k: int) -> str | None:
        """The id of another entry whose release this entry's is at ``k`` categories (``compare`` shows it once,
        under that entry), or None: here none."""
        return None

    def stated_guarantee(self) -> str:
        """The claimed guarantee followed by the sampler's distance to the exact pmf."""
        text = self.guarantee.text
        return f"{text}; sampling: {self.sampling_guarantee}" if self.sampling_guarantee else text

    def __repr__(self) -> str:
        return f"<mechanism {self.id}: {self.name}>"

    def claimed(self, epsilon: float, delta: float) -> tuple[float | None, float | None]:
        """The claimed ``(epsilon, delta)`` at these privacy parameters (:attr:`guarantee`'s privacy map):
        ``(None, None)`` when the mechanism claims no privacy."""
        return self.guarantee.claim(PrivacyParameters(epsilon, delta))

    @property
    def settings_used(self) -> frozenset[str]:
        """:attr:`uses`, plus ``"objective"`` when the mechanism offers objectives."""
        return self.uses | (frozenset({Setting.OBJECTIVE}) if self.objectives else frozenset())

    @property
    def variants(self) -> tuple[str, ...]:
        """The variant names this entry offers after ``~`` (``"calibrated"``, the objectives)."""
        return ((CALIBRATED,) if self.calibratable else ()) + tuple(self.objectives)

    def weight(self, a, c, spec: ReleaseSpec) -> float:
        """``w(c)`` for one data set: exponential mechanisms only (docs/definitions.md §4 table)."""
        raise InputError(f"mechanism {self.id!r} is not an exponential mechanism")

    def scale(self, k: int, epsilon: float) -> float:
        """The additive noise scale ``s``: clamped-noise mechanisms only (docs/definitions.md §4 Laplace table)."""
        raise InputError(f"mechanism {self.id!r} is not a Laplace mechanism")

    def calibration(self, a, n: int, spec: ReleaseSpec):
        """The :class:`~dpposterior.mechanisms.calibrated.Calibration` behind this entry's weights, if any
        (a calibrated mechanism's; here None)."""
        return None

    def label(self, spec: ReleaseSpec) -> str:
        """Display label of this mechanism under ``spec`` (e.g. ``"ehds (calibrated)"``)."""
        return self.id + (" (calibrated)" if spec.calibrate else "")

    def check(self, spec: ReleaseSpec) -> ReleaseSpec:
        """Validate the settings this mechanism needs (raise :class:`InputError`)."""
        if spec.calibrate and not self.calibratable:
            raise InputError(f"--calibrate applies to the exponential mechanisms only, not {self.id!r}")
        if self.distances is not None and spec.distance not in self.distances:
            raise InputError(f"{self.id} under {spec.distance} is not built yet; use --distance "
                             f"{' or '.join(self.distances)}")
        return spec

    def check_distance(self, spec: ReleaseSpec, k: int) -> None:
        """Refuse, in one line, a distance with no exact method at k categories (``tv`` at k >= 3)."""
        get_distance(spec.distance).check(k)

    def check_size(self, n: int, k: int, what: str) -> None:
        """Raise :class:`~dpposterior.errors.SizeError` when the exact rows over R(n) do not fit."""
        check_size(n_candidates(n, k), 8 * (6 * k + 10), f"{what} over R(n) for k={k}, n={n}")

    def check_setup(self, n: int, k: int, *, setups: float = 1.0, what: str = "a draw") -> None:
        """Refuse (:class:`~dpposterior.errors.SizeError`), from public n and k only, a draw whose
        set-up (tables, an enumerated pmf) would not fit the memory or the time budget.

        ``setups``: how many times the set-up runs (a padded release: its reference draws, the draw
        and its padding), for the time estimate.  Here: nothing to refuse (an O(k) draw).
        """
        return None

    def set_up(self, prior: NDArray[np.float64], n: int, spec: ReleaseSpec) -> None:
        """Build, from public inputs only (prior, n, settings; never the counts), what every draw of size n
        needs (a solved table), so that a padded release's timed reference draws measure draws only.  Here
        nothing."""
        return None

    def setup_seconds(self, n: int, k: int) -> float:
        """Estimated seconds of one draw's set-up (tables), from public n and k: here none."""
        return 0.0

    def solve_seconds(self, n: int, k: int, objective: str | None = None) -> float:
        """Estimated seconds of the solve behind the mechanism's table (a linear program or a remap), from
        public n and k; 0 for a closed-form mechanism, which solves nothing."""
        return 0.0

    def oracle_value(self, prior, n: int, spec: ReleaseSpec) -> dict | None:
        """An independent solver's value of the mechanism's own objective at (prior, n, spec), kept as a check
        on the mechanism (``{"objective", "value", "solver"}``), or None when it has no such oracle or the
        oracle does not run at this size.  Here: none (a closed-form mechanism optimises nothing)."""
        return None

    def audit_entry_seconds(self, n: int, k: int) -> float:
        """Estimated seconds per output entry (a draw is k entries) of drawing and counting inside an
        audit, from public n and k.  Measured here (``benchmarks/budgets.py``): 0.25-0.76 us up to
        k = 100 and 1.3 us at k = 1000 for the Laplace and geometric draws; this is an upper bound."""
        return 0.8e-6 + 0.6e-9 * k

    def check_draws(self, n: int, k: int, size: int) -> None:
        """Refuse, from public inputs only, ``size`` draws of ``k`` counts summing to ``n``
        (:func:`check_draw_entries`, then :meth:`check_setup`): the budget of :func:`sample`."""
        check_draw_entries(size, k)
        self.check_setup(n, k)

    @abc.abstractmethod
    def rows(self, prior: NDArray[np.float64], n: int, spec: ReleaseSpec) -> Rows:  # pragma: no cover
        """Exact log-pmf rows over R(n) (see :class:`Rows`)."""
        raise NotImplementedError

    # -- plans (docs/definitions.md §9; public prior, n, k, eps and settings only, never the counts) -----------

    def plan(self, task: Task, spec: ReleaseSpec, prior, n: int, *, measure: str | None = None) -> Plan:
        """What ``task`` at (prior, n, spec) will do (:class:`~dpposterior.limits.Plan`): its route, estimated
        seconds and memory, the bracket of its answer and the limits it is held to.  The run reads the same plan
        (:func:`dpposterior.accuracy.expected_errors` walks or calls :meth:`direct_errors` by ``plan.route``), so
        the route run is the route planned.  ``measure``: the distance the errors are measured by (``Task.ERRORS``)."""
        if task is Task.ERRORS:
            return self.plan_errors(prior, int(n), spec, measure)
        if task is Task.DRAW:
            return self.plan_draw(prior, int(n), spec)
        if task is Task.POSTERIOR:
            return self.plan_posterior(prior, int(n), spec)
        raise ValueError(f"no plan for the task {task!r}")

    def errors_what(self, n: int, k: int, spec: ReleaseSpec) -> str:
        """The expected errors of this release in words, for a plan's refusal."""
        label = self.label(spec) + (f" ({spec.objective})" if self.objectives else "")
        return f"the expected errors of {label} for k={k}, n={n}, eps={spec.epsilon:g}"

    def rows_plan(self, prior, n: int, spec: ReleaseSpec, *, route: str = "dense rows", passes: int = ERROR_PASSES,
                  solve_seconds: float = 0.0, what: str | None = None, rate: float = PAIRS_PER_SECOND) -> Plan:
        """The plan of a walk over whole rows of R(n): ``passes x |R(n)|^2`` log-pmf evaluations (held to
        ``DPPOSTERIOR_MAX_PAIRS``) at ``rate`` per second after a solve of ``solve_seconds`` (held to
        ``DPPOSTERIOR_MAX_SOLVE_SECONDS``), the entry's own size refusal (:meth:`check_size`) as the plan's
        refusal."""
        k = len(prior)
        what = what or self.errors_what(n, k, spec)
        size = n_candidates(n, k)
        try:
            self.check_size(n, k, what)
        except SizeError as exc:
            return Plan(task=Task.ERRORS, route=route, what=what, refusal=str(exc))
        pairs = passes * size * size
        costs = (("DPPOSTERIOR_MAX_PAIRS", float(pairs)),) + (
            (("DPPOSTERIOR_MAX_SOLVE_SECONDS", solve_seconds),) if solve_seconds > 0 else ())
        return Plan(task=Task.ERRORS, route=route, what=what, seconds=pairs / rate + solve_seconds,
                    memory_bytes=8.0 * (k + 12) * size + min(WALK_CHUNK_BYTES, 32.0 * size * size), costs=costs,
                    advice="use a smaller n")

    def plan_errors(self, prior, n: int, spec: ReleaseSpec, measure: str | None = None) -> Plan:
        """The route of the exact expected errors over R(n) (docs/definitions.md §9, expected error).  Here the
        dense walk over whole rows (:meth:`rows_plan`), with a calibration's scans where the entry calibrates, at
        :data:`DENSE_ROWS_PER_SECOND` at k >= 3."""
        passes = ERROR_PASSES + (CALIBRATION_PASSES if spec.calibrate else 0)
        return self.rows_plan(prior, n, spec, passes=passes,
                              rate=(self.dense_rows_per_second or DENSE_ROWS_PER_SECOND) if len(prior) >= 3
                              else PAIRS_PER_SECOND)

    def direct_errors(self, plan: Plan, prior, n: int, spec: ReleaseSpec, measure: str | None = None):
        """Run a route of :meth:`plan_errors` that is not a walk over rows: ``E(c)`` for every c of R(n), an array
        or a :class:`~dpposterior.lattice.scale.Bracket`.  Here there is none."""
        raise ValueError(f"{self.id} has no route {plan.route!r}")

    def plan_draw(self, prior, n: int, spec: ReleaseSpec) -> Plan:
        """The plan of one padded release's draws (:mod:`dpposterior.padding`): here the entry's own set-up check
        (:meth:`check_setup`, the memory and time of its tables) as the plan's refusal."""
        k = len(prior)
        what = f"a padded release of {self.label(spec)} for k={k}, n={n}"
        try:
            self.check_setup(n, k, setups=DRAW_SETUPS, what="a padded release")
        except SizeError as exc:
            return Plan(task=Task.DRAW, route="draw", what=what, refusal=str(exc))
        return Plan(task=Task.DRAW, route="draw", what=what, seconds=DRAW_SETUPS * self.setup_seconds(n, k))

    def plan_posterior(self, prior, n: int, spec: ReleaseSpec) -> Plan:
        """The local route of the noise-aware posterior (:mod:`dpposterior.noise_aware`), taken where the exact sum
        over R(n) is refused: the data sets near the release only, with a certified bound on the mass of the rest.
        Here none (route ``"none"``: the exact route's refusal stands)."""
        return Plan(task=Task.POSTERIOR, route=NO_ROUTE, what=f"the noise-aware posterior of {self.label(spec)}",
                    refusal="no local route")

    def local_posterior(self, plan: Plan, prior, n: int, spec: ReleaseSpec, released: NDArray[np.int64]):
        """Run :meth:`plan_posterior`'s route for the release ``released``: ``(counts, log_weights, size, bound)``,
        the kept data sets, their log weights ``ln pi(c) + ln P(m | c)`` (any common constant), how many data sets
        the sum covers in all and the certified bound on the mass left out relative to the kept mass."""
        raise ValueError(f"{self.id} has no route {plan.route!r}")

    def pmf_at_one_data_set(self, prior, n: int, spec: ReleaseSpec) -> bool:
        """Whether ``pmf`` gives this entry's output distribution at one data set from its pmf at that data set
        (``pmf_at``: lower ends within a stated bracket, its own plan) instead of its exact rows over R(n)
        (:meth:`log_pmf`).  False here: every entry with rows uses them."""
        return False

    def log_pmf(self, prior: NDArray[np.float64], counts: NDArray[np.int64], spec: ReleaseSpec) -> NDArray[np.float64]:
        """Exact ``ln P(r | c)`` over ``candidates(n, k)`` for one data set."""
        return self.rows(prior, int(counts.sum()), spec)(counts[None, :])[0]

    @abc.abstractmethod
    def sample(self, prior: NDArray[np.float64], counts: NDArray[np.int64], spec: ReleaseSpec, size: int,
               rng) -> NDArray[np.int64]:  # pragma: no cover - abstract
        """``size`` draws of ``m`` (rows of ``(size, k)``) from exactly :meth:`log_pmf`."""
        raise NotImplementedError

    def log_likelihood(self, rows: Rows, released: NDArray[np.int64], counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """``ln P(m | c)`` of one released ``m`` for each data set ``c`` (rows of ``counts``), exactly.

        The column of :meth:`rows` at ``m`` (the noise-aware posterior's likelihood, docs/definitions.md §9).  This
        default computes whole rows; families with a cheaper column override it.
        """
        r = int(candidate_rank(np.asarray(released, dtype=np.int64)[None, :])[0])
        return rows(counts)[:, r]

    def log_likelihood_cost(self, rows: Rows) -> int:
        """Work of :meth:`log_likelihood` per data set, in score evaluations (here a whole row)."""
        return len(rows.cands)

    def log_likelihood_bound(self, rows: Rows, released: NDArray[np.int64],
                             counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """A cheap upper bound on :meth:`log_likelihood` (the noise-aware posterior drops c below it).

        The default is the trivial bound ``ln P <= 0``.
        """
        return np.zeros(len(counts))


def risk_plan(what: str, n: int, rate: float, solve_seconds: float = 0.0, solve_bytes: float = 0.0) -> Plan:
    """The plan of the expected errors of geometric noise plus a remap at k = 2 (:func:`dpposterior.remap.risk`,
    ``"remap risk"``; docs/definitions.md §10): ``(n + 1)(2 W + 1)`` loss evaluations over the window ``|z - c| <= W``
    (``W`` the kernel's at 1e-20: ``ln(1e20) / rate``, ``rate`` its eps), held to ``DPPOSTERIOR_MAX_PAIRS``, after a
    solve of ``solve_seconds`` (the remap's, held to ``DPPOSTERIOR_MAX_SOLVE_SECONDS``) taking ``solve_bytes``."""
    W = min(n, max(1, math.ceil(math.log(1e20) / rate)))
    evals = float(n + 1) * (2 * W + 1)
    costs = (("DPPOSTERIOR_MAX_PAIRS", evals),) + (
        (("DPPOSTERIOR_MAX_SOLVE_SECONDS", solve_seconds),) if solve_seconds > 0 else ())
    return Plan(task=Task.ERRORS, route="remap risk", what=what, seconds=evals / RISK_PER_SECOND + solve_seconds,
                memory_bytes=RISK_BYTES * evals + solve_bytes, costs=costs, advice="use a smaller n")


def _inverse_cdf(logp: NDArray[np.float64], cands: NDArray[np.int64], size: int, rng) -> NDArray[np.int64]:
    """Draws from the exact log-pmf over R(n) with integer weights and random bits on demand.

    Weights ``W = max(1, round(2^128 exp(logp - max)))`` (:func:`dpposterior.randomness.exp_weights`):
    every candidate is reachable, and the law is within
    :func:`~dpposterior.randomness.weights_tv_bound` (``2^-62 + N 2^-128`` on x86-64) of ``exp(logp)``
    in total variation.  The work (N weights, one search per draw) does not depend on the data; batches of
    :data:`~dpposterior.randomness.GUIDE_MIN_SIZE` draws or more (audits, experiments; a release draws one)
    search through a guide table whose time, not answer, depends on the weights.
    """
    # take: the same rows as ``cands[idx]``, several times faster for an audit's large batches
    return np.take(cands, choose(exp_weights(logp), size, bit_source(rng)), axis=0)


def _as_rng(rng) -> np.random.Generator:
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(None if rng is None else validate.seed(rng, "rng seed"))
    if isinstance(rng, np.random.Generator):
        return rng
    raise InputError(f"rng must be a seed or a numpy Generator, got {type(rng).__name__}")


def _bits(rng):
    """A release's random bits: ``None`` -> the OS CSPRNG (:class:`~dpposterior.randomness.SystemBits`);
    a seed or a Generator -> reproducible bits (experiments only: a release whose seed is known is not private)."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        rng = validate.seed(rng, "rng seed")
    return bit_source(rng)


# ---------------------------------------------------------------------------------------------
# the budgets of a draw (from public inputs only: n, k, size; never the counts)

# Sampler table entries ``k (n + 1)`` one draw may cover: ``limits.LIMITS["DPPOSTERIOR_MAX_RELEASE_WORK"]``.
# Entries ``size * k`` one call of :func:`sample` may return: ``limits.LIMITS["DPPOSTERIOR_MAX_DRAW_ENTRIES"]``,
# about 1 us and 80 bytes each at their peak (measured: lshist k = 2, ehds k = 3), so ~20 s and ~1.6 GB.


def check_draw_entries(size: int, k: int) -> None:
    """Refuse (:class:`~dpposterior.errors.SizeError`) ``size`` draws of ``k`` counts past
    ``DPPOSTERIOR_MAX_DRAW_ENTRIES`` entries (default ``limits.LIMITS[...].default``); draw in
    batches (as the auditor does) for more."""
    entries = size * k
    limit = limit_setting("DPPOSTERIOR_MAX_DRAW_ENTRIES")
    if entries > limit:
        raise SizeError(f"{validate.big_number(size)} draws of k={k} counts are {validate.big_number(entries)} "
                        f"entries ({validate.estimate_text(entries * 1e-6)} s, ~{entries * 80 / 2**30:.1f} GiB here), "
                        "over the limit "
                        f"of {limit:.3g} (draw in batches, or set DPPOSTERIOR_MAX_DRAW_ENTRIES to raise it)")


