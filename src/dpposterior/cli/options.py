"""The options several commands share, each defined once, and the readers of flag text.

Every number on the command line is read by :func:`dpposterior.validate.parse_number`,
:func:`~dpposterior.validate.parse_int` or :func:`~dpposterior.validate.parse_list` (strict ASCII
decimal) and then checked by the same validators as the API (docs/definitions.md §1 ranges).
"""

from __future__ import annotations

import argparse

import numpy as np

from .. import validate
from ..distances import DEFAULT_DISTANCE, DISTANCES
from ..errors import InputError
from ..mechanisms import (
    DEFAULT_DELTA,
    DEFAULT_GAMMA,
    EXPONENTIAL_MECHANISMS,
    MECHANISM_IDS,
    ReleaseSpec,
    Setting,
    Variant,
    check_unused,
    get_mechanism,
    readers,
)
from ..validate import _show

# ---------------------------------------------------------------------------------------------
# flag text -> validated values


def counts_arg(text: str, what: str = "counts") -> np.ndarray:
    """A count vector flag (``--counts 4,4``)."""
    return validate.counts(validate.parse_list(text, what), what)


def prior_arg(text: str, k: int | None = None) -> np.ndarray:
    """The ``--prior`` flag (``1,1``), of length ``k`` when given."""
    return validate.prior(validate.parse_list(text, "prior"), k)


def size_arg(text: str, what: str = "n") -> int:
    """The data-set size ``--n``."""
    return validate.size(validate.parse_int(text, what), what)


def seed_arg(text: str | None) -> int | None:
    """``--seed``: None (operating-system entropy) or an integer in ``[0, 2^128)``."""
    if text is None:
        return None
    try:
        value = validate.parse_int(text, "seed")
    except InputError:
        value = None
    if value is None or not 0 <= value <= validate.MAX_SEED:
        raise InputError(f"seed must be a non-negative integer below 2^128 (written in digits), got {_show(text)}")
    return value


def level_arg(text: str) -> float:
    """``--level``: a credible level in ``(0, 1)`` (``posterior`` and ``release --noise-aware``)."""
    return validate.open_unit(validate.parse_number(text, "level"), "level")


def categories_arg(text: str | None, k: int | None = None) -> list[str] | None:
    """``--categories X,Y,...``: None when not given, else the names, non-empty and distinct, ``k`` of them when
    ``k`` is given (one per count)."""
    if text is None:
        return None
    cats = [x.strip() for x in text.split(",")]
    if any(not x for x in cats):
        raise InputError("--categories has an empty category name")
    if len(set(cats)) != len(cats):
        raise InputError("--categories has duplicates")
    if k is not None and len(cats) != k:
        raise InputError(f"--categories names {len(cats)} categories, but there are {k} counts")
    return cats


# ---------------------------------------------------------------------------------------------
# the mechanism options


#: ``--mechanism``'s help: the names, and which to use (docs/mechanisms.md, "Which release to use").
MECHANISM_HELP = (
    f"one of: {', '.join(MECHANISM_IDS)}. Which to use: optimal, at k = 2 and at k >= 3 (the most accurate "
    "pure eps-DP release for --objective; at k >= 3 beyond its linear program it is the lattice release, and a "
    "refusal says what to use); geometric is the simplest closed form (discrete Laplace noise on the counts); "
    "the drafts' exponential mechanisms "
    f"({', '.join(m.id for m in EXPONENTIAL_MECHANISMS)}, with --calibrate) are for reproducing the paper. "
    "`dpposterior compare` ranks every release for your prior, n and eps")

#: ``compare --help``'s epilog: how to read its table (the rows not computed, and the yardstick).
COMPARE_EPILOG = """reading the table:
  worst, average  each release's exact expected error (Hellinger, or --distance), in the worst case over
                  every data set of size n and on average under the prior; rank: 1 is the smallest.
  not computed    the row's exact errors would need more work or memory than this command's budget at this
                  k and n (DPPOSTERIOR_MAX_PAIRS, DPPOSTERIOR_MEMORY_GB, ...); the row says what it needs
                  and which setting to raise. Such a row is not ranked and says nothing about how accurate
                  that release is.
  yardstick       a certified lower bound on the best error any eps-DP release can achieve at this prior,
                  n and eps (worst case and average): the optimum's own value where it was solved, else a
                  proven bound below it (the LP relaxed to the data sets next to a vertex for the worst
                  case, a dual solution of the LP for the average, the k = 2 optimum of one aggregated
                  count: the largest, each certified). No eps-DP release does
                  better. "worst / yardstick" and "average / yardstick" divide each release's error by it:
                  1.000 is the best possible, 1.05 (written x1.05 in the figures) is 5 % above it.
"""


def add_mechanism_options(p: argparse.ArgumentParser) -> None:
    """The flags every mechanism command shares: --prior, --mechanism, --epsilon, --delta, --gamma,
    --global-sensitivity and --json."""
    p.add_argument("--prior", required=True, metavar="A1,A2,...",
                   help=f"Dirichlet prior a, comma-separated (Beta when k = 2), each in "
                        f"[{validate.MIN_PRIOR:g}, {validate.MAX_PRIOR:g}], e.g. 1,1")
    p.add_argument("--mechanism", required=True, metavar="ID", help=MECHANISM_HELP)
    p.add_argument("--epsilon", required=True, metavar="EPS",
                   help=f"privacy parameter eps in [{validate.MIN_EPSILON:g}, {validate.MAX_EPSILON:g}]")
    p.add_argument("--delta", default=None, metavar="D",
                   help="mh-delta only: delta in (0, 1) (default 1e-8; refused with another mechanism, which would "
                        "ignore it)")
    p.add_argument("--gamma", default=None, metavar="G",
                   help=f"ehds only: smoothing gamma in [{validate.MIN_GAMMA:g}, {validate.MAX_GAMMA:g}] (default 1; "
                        "refused with another mechanism, which would ignore it)")
    p.add_argument("--global-sensitivity", default=None, metavar="METHOD",
                   help="ehd only: exact (default) or paper (refused with another mechanism)")
    add_distance_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")


def add_distance_option(p: argparse.ArgumentParser) -> None:
    """``--distance NAME``: the score of the exponential mechanisms and the accuracy measure."""
    p.add_argument("--distance", default=DEFAULT_DISTANCE, metavar="NAME",
                   help=f"one of: {', '.join(DISTANCES)} (default {DEFAULT_DISTANCE}): the score of the exponential "
                        "mechanisms (and their sensitivities) and the error measure; tv at k = 2 only")


def add_variant_options(p: argparse.ArgumentParser) -> None:
    """--calibrate and --objective (pmf, release, privacy, accuracy, posterior)."""
    p.add_argument("--calibrate", action="store_true",
                   help="exponential mechanisms only: scale the weight by the largest factor kappa keeping the "
                        "exact worst-case concrete eps <= eps (pure eps-DP, certified)")
    p.add_argument("--objective", default=None, metavar="{worst,average}",
                   help=f"{' and '.join(readers(Setting.OBJECTIVE))} only: minimise the worst-case (default) or "
                        "prior-average expected error (refused with another mechanism, which would ignore it)")


#: How the command line spells the settings of :class:`~dpposterior.mechanisms.ReleaseSpec`.
FLAG_NAMES = {Setting.DELTA: "--delta", Setting.GAMMA: "--gamma", Setting.GLOBAL_SENSITIVITY: "--global-sensitivity",
              Setting.OBJECTIVE: "--objective"}


def mechanism_spec(args: argparse.Namespace, calibrate: bool = False, objective: str | None = None) -> ReleaseSpec:
    """The options of :func:`add_mechanism_options`, with ``calibrate`` and ``objective``, as one validated
    :class:`~dpposterior.mechanisms.ReleaseSpec`: the command line's edge (docs/cli.md).

    In the command line's order: the numbers (``--epsilon``, ``--delta``, ``--gamma``, ``--global-sensitivity``;
    mh's own gamma = 1 rule), then a flag given to a mechanism that does not read it (``--delta``, ``--gamma``
    and ``--global-sensitivity`` default to None, not given, so that one given is refused instead of silently
    ignored: :func:`~dpposterior.mechanisms.check_unused`), then the variant (strict, :meth:`Variant.of`:
    ``--objective`` on a mechanism without objectives is refused) and ``--distance``.
    """
    entry = get_mechanism(args.mechanism)
    numbers = ReleaseSpec.of(
        entry, validate.parse_number(args.epsilon, "epsilon"),
        DEFAULT_DELTA if args.delta is None else validate.parse_number(args.delta, "delta"),
        gamma=DEFAULT_GAMMA if args.gamma is None else validate.parse_number(args.gamma, "gamma"),
        names=FLAG_NAMES, **{Setting.GLOBAL_SENSITIVITY: "exact" if args.global_sensitivity is None
                                                       else args.global_sensitivity})
    check_unused(entry, {Setting.DELTA: args.delta is not None, Setting.GAMMA: args.gamma is not None,
                         Setting.GLOBAL_SENSITIVITY: args.global_sensitivity is not None}, FLAG_NAMES)
    variant = Variant.of(entry, calibrate, objective)
    return numbers.with_variant(variant, getattr(args, "distance", DEFAULT_DISTANCE))


def variant_params(args: argparse.Namespace) -> ReleaseSpec:
    """:func:`mechanism_spec` of the options of :func:`add_mechanism_options` and :func:`add_variant_options`."""
    return mechanism_spec(args, bool(args.calibrate), args.objective)


def claim_of(spec: ReleaseSpec) -> tuple:
    """The ``(epsilon, delta)`` the mechanism of ``spec`` claims (``(None, None)`` for no claim)."""
    return spec.claimed()


def calibration_json(spec: ReleaseSpec, a, n: int) -> dict | None:
    """``{"factor", "concrete_epsilon"}`` of a calibrated mechanism, else None."""
    cal = spec.mechanism.calibration(a, n, spec)
    return None if cal is None else cal.as_dict()
