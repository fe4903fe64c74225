"""The options several commands share, each defined once, and the readers of flag text.

Every number on the command line is read by :func:`dpposterior.validate.parse_number`,
:func:`~dpposterior.validate.parse_int` or :func:`~dpposterior.validate.parse_list` (strict ASCII
decimal) and then checked by the same validators as the API (docs/definitions.md §1 ranges).
"""

from __future__ import annotations

import argparse

import numpy as np

from .. import validate
from ..calibration import calibration
from ..errors import InputError
from ..mechanisms import DEFAULT_DELTA, DEFAULT_GAMMA, MECHANISM_IDS, MECHANISMS, check_params, resolve
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


# ---------------------------------------------------------------------------------------------
# the mechanism options


def add_mechanism_options(p: argparse.ArgumentParser) -> None:
    """The flags every mechanism command shares: --prior, --mechanism, --epsilon, --delta, --gamma,
    --global-sensitivity and --json."""
    p.add_argument("--prior", required=True, metavar="A1,A2,...",
                   help=f"Dirichlet prior a, comma-separated (Beta when k = 2), each in "
                        f"[{validate.MIN_PRIOR:g}, {validate.MAX_PRIOR:g}], e.g. 1,1")
    p.add_argument("--mechanism", required=True, metavar="ID", help=f"one of: {', '.join(MECHANISM_IDS)}")
    p.add_argument("--epsilon", required=True, metavar="EPS",
                   help=f"privacy parameter eps in [{validate.MIN_EPSILON:g}, {validate.MAX_EPSILON:g}]")
    p.add_argument("--delta", default=str(DEFAULT_DELTA), metavar="D",
                   help="delta in (0, 1), for mh-delta (default 1e-8)")
    p.add_argument("--gamma", default=str(DEFAULT_GAMMA), metavar="G",
                   help=f"smoothing gamma in [{validate.MIN_GAMMA:g}, {validate.MAX_GAMMA:g}] for ehds (default 1)")
    p.add_argument("--global-sensitivity", default="exact", metavar="METHOD",
                   help="ehd only: exact (default) or paper")
    p.add_argument("--json", action="store_true", help="print JSON")


def add_variant_options(p: argparse.ArgumentParser) -> None:
    """--calibrate and --objective (pmf, release, privacy, accuracy, posterior)."""
    p.add_argument("--calibrate", action="store_true",
                   help="exponential mechanisms only: scale the weight by the largest factor kappa keeping the "
                        "exact worst-case concrete eps <= eps (pure eps-DP, certified)")
    p.add_argument("--objective", default="worst", choices=("worst", "average"),
                   help="optimal only: minimise the worst-case (default) or prior-average expected error")


def mechanism_params(args: argparse.Namespace) -> dict:
    """The options of :func:`add_mechanism_options`, validated: mechanism, epsilon, delta, gamma,
    global_sensitivity_method."""
    mech, epsilon, delta, gamma, gsm = check_params(args.mechanism, validate.parse_number(args.epsilon, "epsilon"),
                                                    validate.parse_number(args.delta, "delta"),
                                                    validate.parse_number(args.gamma, "gamma"),
                                                    args.global_sensitivity)
    return dict(mechanism=mech.id, epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=gsm)


def variant_params(args: argparse.Namespace) -> dict:
    """:func:`mechanism_params` plus ``objective`` and ``calibrate``, validated by the mechanism's registry entry."""
    # integration: the registry's Variant spec, parsed once, replaces this dict and the resolve() check
    params = mechanism_params(args)
    resolve(params["mechanism"], params["epsilon"], params["delta"], params["gamma"],
            params["global_sensitivity_method"], args.objective, args.calibrate)
    return dict(params, objective=args.objective, calibrate=bool(args.calibrate))


def claim_of(params: dict) -> tuple:
    """The ``(epsilon, delta)`` the mechanism of ``params`` claims (``(None, None)`` for no claim)."""
    # integration: with the registry's Variant spec, the claim (and the calibration below) are asked of the spec
    return MECHANISMS[params["mechanism"]].claimed(params["epsilon"], params["delta"], params.get("calibrate", False))


def calibration_json(params: dict, a, n: int) -> dict | None:
    """``{"factor", "concrete_epsilon"}`` of a calibrated mechanism, else None."""
    if not params.get("calibrate"):
        return None
    return calibration(params["mechanism"], a, n, epsilon=params["epsilon"], delta=params["delta"],
                       gamma=params["gamma"], global_sensitivity_method=params["global_sensitivity_method"]).as_dict()
