"""``dpposterior posterior``: the exact noise-aware posterior of a released Dir(a + m).

The release is given either by its parts (``--prior``, ``--released`` m, ``--mechanism``, ``--epsilon`` and the
mechanism's settings) or whole, as the output of ``dpposterior release --json`` (``--from-release FILE``, ``-``
for standard input), so that the chain release -> posterior cannot be broken by copying numbers by hand.

``--released`` takes the released counts m (they sum to n), never the parameters a + m of the released
``Beta(...)``/``Dir(...)``: the two cannot be told apart from the numbers alone (a + m are counts too when a is
integral), so nothing is guessed; ``--n N`` checks the sum when n is known, and the text output starts with the
counts taken and their sum.
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from ... import validate
from ...distances import DEFAULT_DISTANCE
from ...errors import InputError
from ...mechanisms import ReleaseSpec, Setting, get_mechanism
from ...noise_aware import naive_posterior, noise_aware_posterior
from ..data import read_small_file
from ..options import (
    add_mechanism_options,
    add_variant_options,
    categories_arg,
    counts_arg,
    level_arg,
    mechanism_spec,
    prior_arg,
    size_arg,
    variant_params,
)
from ..output import dump, noise_aware_lines, noise_aware_summary

#: the largest ``--from-release`` file read (a release's JSON at 100,000 categories is a few MB)
MAX_RELEASE_BYTES = 64 * 2**20
#: what a ``--from-release`` file must be, in messages
RELEASE_JSON = "the JSON of dpposterior release --json"

#: the flags whose values ``--from-release`` takes from the release's JSON (refused beside it): dest -> flag
FROM_RELEASE = {"prior": "--prior", "mechanism": "--mechanism", "epsilon": "--epsilon", "delta": "--delta",
                "gamma": "--gamma", "global_sensitivity": "--global-sensitivity", "objective": "--objective",
                "calibrate": "--calibrate", "distance": "--distance", "categories": "--categories", "n": "--n"}


def add_posterior(p: argparse.ArgumentParser) -> None:
    """Print the exact noise-aware posterior of a released Dir(a + m)."""
    p.description = (
        "Print the exact noise-aware posterior of a released Dir(a + m): what the release says about the data once "
        "its noise is accounted for (post-processing, no privacy cost). Give the release whole, as the output of "
        "`dpposterior release --json` (--from-release FILE, or - for standard input), or by its parts: --prior, "
        "--released m, --mechanism, --epsilon and the mechanism's settings, as given to release.")
    add_mechanism_options(p)
    for action in p._actions:  # not required with --from-release (checked in cmd_posterior)
        if action.dest in ("prior", "mechanism", "epsilon"):
            action.required = False
            action.help += "; not with --from-release"
    p.set_defaults(distance=None)  # None: not given (refused beside --from-release); the default is hellinger
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--released", metavar="M1,M2,...",
                        help="the released counts m, comma-separated, e.g. 40,60: the 'released counts:' line of "
                             "release (they sum to n), NOT the parameters a + m of its Beta(...)/Dir(...) line "
                             "(Beta(41, 61) under the prior 1,1 is m = 40,60); the numbers alone cannot tell "
                             "the two apart, so nothing is guessed: give --n to check the sum, or use --from-release")
    source.add_argument("--from-release", metavar="FILE",
                        help="the output of `dpposterior release --json` (a file, or - for standard input): the "
                             "prior, released counts, mechanism, epsilon, objective, categories and every other "
                             "setting are read from it (refused beside the flags that would give them again)")
    p.add_argument("--n", metavar="N",
                   help="with --released: the data-set size n (public); the released counts must sum to it")
    p.add_argument("--level", default="0.9", metavar="L", help="credible level in (0, 1) (default 0.9)")
    p.add_argument("--categories", metavar="X,Y,...",
                   help="names of the categories, comma-separated, one per released count, for the interval lines "
                        "(default theta_1, theta_2, ...; with --from-release, the release's own)")
    add_variant_options(p)


def cmd_posterior(args) -> None:
    """``dpposterior posterior``: JSON keys mechanism, epsilon, level, mean, intervals, naive {mean, intervals},
    dropped_mass_bound, and the release it conditions on: prior, released_counts, n (categories when named)."""
    if args.from_release is not None:
        spec, a, m, cats = _from_release(args)
    else:
        missing = [flag for dest, flag in (("prior", "--prior"), ("mechanism", "--mechanism"),
                                           ("epsilon", "--epsilon")) if getattr(args, dest) is None]
        if missing:
            raise InputError(f"the following arguments are required with --released: {', '.join(missing)} "
                             "(or give the release whole: --from-release FILE)")
        if args.distance is None:
            args.distance = DEFAULT_DISTANCE
        spec = variant_params(args)
        m = counts_arg(args.released, "released counts")
        if args.n is not None:
            n = size_arg(args.n)
            if int(m.sum()) != n:
                raise InputError(f"the released counts sum to {int(m.sum())}, not n = {n}: --released takes the "
                                 "released counts m (the 'released counts:' line of release), not the parameters "
                                 "a + m of its Beta(...)/Dir(...) line")
        a = prior_arg(args.prior, m.size)
        cats = categories_arg(args.categories, m.size)
    level = level_arg(args.level)
    post = noise_aware_posterior(spec, a, m, level=level)
    naive = naive_posterior(a, m, level)
    if args.json:
        extra = {"distance": spec.distance} if spec.distance != DEFAULT_DISTANCE else {}
        given = {"prior": a.tolist(), "released_counts": m.tolist(), "n": int(m.sum())}
        named = {} if cats is None else {"categories": list(cats)}
        dump({"mechanism": post.mechanism, "epsilon": post.epsilon, "level": level} | extra
             | noise_aware_summary(post, naive) | given | named)
        return
    head = f"released counts: {','.join(str(int(x)) for x in m)} (n = {int(m.sum())}); prior: " \
           f"{','.join(_number(x) for x in a)}"
    print("\n".join([head, *noise_aware_lines(post, naive, categories=cats)]))


def _number(x: float) -> str:
    """A prior parameter as given: ``1`` for 1.0, else the shortest exact decimal."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 2**53 else repr(float(x))


def _from_release(args) -> tuple[ReleaseSpec, np.ndarray, np.ndarray, list[str] | None]:
    """The release of ``--from-release FILE``: its spec, prior, released counts and categories, read from the JSON
    of ``dpposterior release --json`` and checked for consistency (``n`` the sum of the counts, ``alpha`` the prior
    plus the counts).  A setting the release's mechanism reads but the file does not state (a file written before
    the settings were added to that JSON) is refused, never assumed."""
    given = [flag for dest, flag in FROM_RELEASE.items() if getattr(args, dest) not in (None, False)]
    if given:
        raise InputError(f"--from-release reads the release's settings from its JSON; drop {', '.join(given)} "
                         "(only --level and --json go with it)")
    path = args.from_release
    shown = "standard input" if path == "-" else path
    raw = read_small_file(path, MAX_RELEASE_BYTES, RELEASE_JSON)
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InputError(f"{shown} is not {RELEASE_JSON} (not JSON)") from None
    if not isinstance(doc, dict) or not {"mechanism", "epsilon", "prior", "released_counts"} <= set(doc):
        raise InputError(f"{shown} is not {RELEASE_JSON} (it needs the keys mechanism, epsilon, prior and "
                         "released_counts)")
    try:
        entry = get_mechanism(doc["mechanism"])
        used = entry.settings_used
        for key, setting in (("objective", Setting.OBJECTIVE), ("gamma", Setting.GAMMA),
                             ("global_sensitivity", Setting.GLOBAL_SENSITIVITY)):
            if setting in used and doc.get(key) is None:
                raise InputError(f"it does not state the {key.replace('_', ' ')} of {entry.id} (written by an "
                                 "older dpposterior?); give the release by its parts: --prior, --released, "
                                 "--mechanism, --epsilon and its settings")
        # "calibration" is written exactly when the release is calibrated (also by releases older than "calibrate")
        calibrate = doc["calibrate"] if "calibrate" in doc else "calibration" in doc
        # the release's settings as the flags would give them, resolved by the one route of the flags
        args.mechanism, args.epsilon = entry.id, doc["epsilon"]
        args.delta = doc.get("delta") if Setting.DELTA in used else None
        args.gamma = doc["gamma"] if Setting.GAMMA in used else None
        args.global_sensitivity = doc["global_sensitivity"] if Setting.GLOBAL_SENSITIVITY in used else None
        args.distance = doc.get("distance", DEFAULT_DISTANCE)
        spec = mechanism_spec(args, calibrate, doc["objective"] if Setting.OBJECTIVE in used else None)
        m = validate.counts(doc["released_counts"], "released counts")
        a = validate.prior(doc["prior"], m.size)
        if "n" in doc and doc["n"] != int(m.sum()):
            raise InputError("its released counts do not sum to its n")
        if "alpha" in doc and not _is_sum(doc["alpha"], a, m):
            raise InputError("its alpha is not its prior plus its released counts")
        cats = None if doc.get("categories") is None else _names(doc["categories"], m.size)
    except InputError as exc:
        raise InputError(f"{shown}: {exc}") from None
    return spec, a, m, cats


def _names(cats: object, k: int) -> list[str]:
    """The release's category names, checked as ``--categories`` checks its own (a name may hold a comma: a
    CSV's values may): one distinct, non-empty name per released count."""
    if not isinstance(cats, list) or not all(isinstance(c, str) and c.strip() for c in cats) \
            or len(set(cats)) != len(cats) or len(cats) != k:
        raise InputError("its categories are not one distinct, non-empty name per released count")
    return cats


def _is_sum(alpha: object, a: np.ndarray, m: np.ndarray) -> bool:
    """Whether the JSON's ``alpha`` is ``a + m`` (to rounding: both were written from the same floats)."""
    if not isinstance(alpha, list) or len(alpha) != a.size:
        return False
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in alpha):
        return False
    return all(math.isclose(x, y, rel_tol=1e-12, abs_tol=0.0) for x, y in zip(alpha, (a + m).tolist(), strict=True))


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number")
