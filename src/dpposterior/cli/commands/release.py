"""``dpposterior release``: one private posterior, from --counts or from --data records.

A release prints only the private output (never the error against the data, nor an entropy-drawn
seed: either would reveal the data).  ``--seed`` is for reproducing experiments; a release whose
seed is known is not private, and says so on stderr, as does a mechanism with no or a weaker guarantee
(:mod:`dpposterior.guarantee`: settings only, never data); a ``--delta`` given to a pure-eps mechanism is refused
by the parser.
``--ledger FILE --budget EPS[,DELTA]`` accounts for several releases of the same data
(:mod:`dpposterior.ledger`): a release past the budget is refused before anything is drawn.  The budget is
stored in FILE when it is created, so later releases may give ``--ledger FILE`` alone (as the Python API's
``Ledger(path)`` with ``budget=None``); a new ledger needs ``--budget``, and one that differs from the stored
budget is refused.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from ...api import draw, prepared
from ...distances import DEFAULT_DISTANCE
from ...errors import InputError, SizeError, shown_name
from ...guarantee import guarantee_text
from ...ledger import Ledger, parse_budget
from ...mechanisms import ReleaseSpec, Setting
from ...noise_aware import naive_posterior, posterior_of
from ...noise_aware import setup as noise_aware_setup
from ...padding import padded_draw
from ..data import counts_from_csv
from ..options import (
    add_mechanism_options,
    add_variant_options,
    calibration_json,
    categories_arg,
    claim_of,
    counts_arg,
    level_arg,
    prior_arg,
    seed_arg,
    variant_params,
)
from ..output import exact_sum, json_text, noise_aware_lines, noise_aware_summary

#: ``release --help``'s description: the privacy unit, where the practitioner starts (docs/definitions.md §1).
RELEASE_DESCRIPTION = (
    "Release one private posterior. The privacy unit is one record's category: neighbouring data sets differ "
    "by the substitution of one record's category, n fixed, so n is public and published exactly "
    "(the released counts sum to n).")


def add_release(p: argparse.ArgumentParser) -> None:
    """Release one private posterior."""
    p.description = RELEASE_DESCRIPTION
    add_mechanism_options(p)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--counts", metavar="C1,C2,...", help="count vector c, comma-separated, e.g. 40,60")
    source.add_argument("--data", metavar="CSV",
                        help="CSV file of records (instead of --counts), or - for standard input; needs --column.  "
                             "A pipe (e.g. /dev/stdin) "
                             "or FIFO is read too, but must deliver all its data within DPPOSTERIOR_MAX_DATA_SECONDS "
                             "(default 20) seconds")
    p.add_argument("--column", metavar="NAME", help="column of --data holding each record's category")
    p.add_argument("--categories", metavar="X,Y,...",
                   help="the categories, comma-separated, in order (default: sorted values of the data); with "
                        "--counts, one name per count")
    p.add_argument("--unknown", metavar="POLICY",
                   help="--data with --categories: a value outside --categories is an error (default), or drop "
                        "(n counts the records kept; n is public), or map:NAME (counted in category NAME); chosen from "
                        "the public category list alone")
    p.add_argument("--missing", metavar="POLICY",
                   help="--data: an empty value is an error (default), or drop, or map:NAME (NAME one of "
                        "--categories)")
    p.add_argument("--seed", metavar="S",
                   help="integer seed, for reproducing experiments only: a seeded release is NOT private (anyone "
                        "who knows the seed can remove the noise). Default: operating-system entropy, the only "
                        "private choice")
    p.add_argument("--noise-aware", action="store_true",
                   help="also print the noise-aware posterior of the release (intervals at --level; "
                        "post-processing, no privacy cost)")
    p.add_argument("--level", metavar="L",
                   help="credible level in (0, 1) of the --noise-aware intervals (default 0.9)")
    p.add_argument("--ledger", metavar="FILE",
                   help="account for this release in FILE, across releases of the same data; a new FILE needs "
                        "--budget (it is created with it), an existing one uses the budget it stores")
    p.add_argument("--budget", metavar="EPS[,DELTA]",
                   help="total privacy budget of --ledger (basic composition), stored in FILE when it is created; "
                        "optional afterwards, and refused when it differs from the stored one (raise it with "
                        "dpposterior ledger raise). A release past it is refused before anything is drawn")
    add_variant_options(p)


def cmd_release(args) -> None:
    """``dpposterior release``: everything that can fail (reading the data, the draw, the calibration, the
    noise-aware posterior's plan) is done before the first line is printed, so a refusal leaves stdout empty;
    warnings about the data go to stderr only once the release has succeeded.  One exception: a noise-aware
    posterior refused at the released output (its cost there over its limits, which its plan could not know) comes
    after the draw, so the release is printed and the refusal is the error line (exit 2)."""
    spec = variant_params(args)
    if args.budget is not None and args.ledger is None:
        raise InputError("--budget is the budget of a ledger: it needs --ledger FILE")
    # --budget not given: the budget stored in FILE; a new ledger needs one (refused here, before a lock file is made)
    ledger = None if args.ledger is None else Ledger(args.ledger, None if args.budget is None
                                                      else parse_budget(args.budget))
    if ledger is not None and args.budget is None and not os.path.lexists(ledger.real):
        raise InputError(f"there is no ledger at {args.ledger!r} yet: a new ledger needs --budget EPS[,DELTA] "
                         "(later releases to it may leave --budget out); nothing was drawn")
    cats, warnings = None, []
    if args.data is not None:
        path = "/dev/stdin" if args.data == "-" else args.data
        c, cats, warnings = counts_from_csv(path, args.column, args.categories, args.unknown, args.missing)
        a = prior_arg(args.prior, None if args.categories is None else c.size)
        if a.size != c.size:  # categories taken from the data: say what differs, and how to fix it
            raise InputError(_outside_prior(args.column, path, a.size, more=c.size > a.size))
    else:
        if args.unknown is not None or args.missing is not None:
            raise InputError("--unknown and --missing say how --data records are counted: they need --data")
        c = counts_arg(args.counts)
        cats = categories_arg(args.categories, c.size)
        a = prior_arg(args.prior, c.size)
    if args.level is not None and not args.noise_aware:
        raise InputError("--level is the level of the --noise-aware intervals: it needs --noise-aware")
    level = 0.9 if args.level is None else level_arg(args.level)
    seed = seed_arg(args.seed)
    # settings only: the warnings of dpposterior.guarantee, printed once the release has succeeded
    prep = prepared(spec, seeded=seed is not None, delta_given=args.delta is not None)
    # seed None: the operating system's CSPRNG; the draw is padded to a deadline from public inputs.  The
    # noise-aware posterior's refusals from public inputs come before the ledger is charged (its set-up), and the
    # posterior itself is computed within the charge: a refusal that depends on the release says it was charged.
    posterior: dict = {}

    def noise_aware_checks(prior, n: int) -> None:
        posterior["setup"] = noise_aware_setup(spec, prior, n, level=level)

    def release_then_posterior(*draw_args, **draw_kwargs):
        out = padded_draw(*draw_args, **draw_kwargs)
        if "setup" in posterior:
            try:
                post = posterior_of(posterior["setup"], np.asarray(out[0], dtype=np.int64))
            except SizeError as exc:  # over its limits at this output only: the release still stands (see below)
                posterior["refused"] = exc
            else:
                posterior["result"] = (post, naive_posterior(a, out[0], post.level))
        return out

    _, m = draw(prep, a, c, seed, ledger, sample=release_then_posterior,
                checks=noise_aware_checks if args.noise_aware else None)
    claimed = claim_of(spec)
    noise_aware = posterior.get("result")
    # which remap the draw read (the lattice release: its route, from public prior, n, k, eps and objective only)
    remap = spec.mechanism.remap_name(a, int(c.sum()), spec)
    # the eps the draw ran at (the lattice release at k >= 4: eps floored to a multiple of 2^-20), public as the remap
    working = spec.mechanism.working_epsilon(a, int(c.sum()), spec)
    if args.json:
        # the delta the release runs with: 0 for a mechanism that reads no delta (not the unused default)
        delta = spec.delta if Setting.DELTA in spec.mechanism.settings_used else 0.0
        out = {"mechanism": spec.variant.mechanism, "epsilon": spec.epsilon, "delta": delta,
               "claimed": {"epsilon": claimed[0], "delta": claimed[1]}, "n": int(c.sum()), "prior": a.tolist(),
               "released_counts": m.tolist(), "alpha": (a + m).tolist(), "seed": seed,
               "remap": remap, "working_epsilon": working} | _settings_json(spec)
        if cats is not None:
            out["categories"] = cats
        if spec.distance != DEFAULT_DISTANCE:
            out["distance"] = spec.distance
        cal = calibration_json(spec, a, int(c.sum()))
        if cal:
            out["calibration"] = cal
        if noise_aware is not None:
            post, naive = noise_aware
            out["noise_aware"] = {"level": post.level} | noise_aware_summary(post, naive)
        text = json_text(out)
    else:
        label = "Beta" if c.size == 2 else "Dir"
        lines = [f"{label}({', '.join(exact_sum(x, y) for x, y in zip(a, m, strict=True))})",
                 f"guarantee: {guarantee_text(spec, seed is not None)}",
                 f"released counts: {','.join(str(int(x)) for x in m)}"]
        if working != spec.epsilon:
            lines.append(f"working eps: {working:.8g} (eps floored to a multiple of 2^-20 so that the searches share "
                         f"work; still {spec.epsilon:g}-DP)")
        if remap is not None:
            lines.append(f"remap: {remap} ({REMAP_WORDS[remap]})")
        if cats is not None:
            lines.append(f"categories, in order: {', '.join(map(shown_name, cats))}")
        if noise_aware is not None:
            lines += noise_aware_lines(*noise_aware, categories=cats)
        text = "\n".join(lines)
    for warning in [*prep.warnings, *warnings]:
        print(f"dpposterior: warning: {warning}", file=sys.stderr)
    if ledger is not None:
        print(f"dpposterior: {ledger.summary()}", file=sys.stderr)
    print(text)
    if "refused" in posterior:
        # The posterior's cost at the released output can exceed its limits where the plan (public inputs, a
        # release at the centre of R(n)) admitted it, e.g. an output next to a face at small eps.  That depends on
        # the output alone, which is public once drawn, and the release has been drawn (and charged): it is
        # printed above, and the refusal of its posterior is the one error line (exit 2).
        raise SizeError(f"{posterior['refused'].args[0]}: the release above stands (drawn"
                        f"{' and charged to the ledger' if ledger is not None else ''}); its noise-aware posterior "
                        "was not computed")


#: the text output's words for each remap a lattice release reads (``Mechanism.remap_name``; docs/lattice.md)
REMAP_WORDS = {
    "bayes": "the window's Bayes remap",
    "minimax": "the window's minimax remap, an LP over the window",
    "corner minimax": "an LP's minimax remap near the vertices, the local Bayes remap elsewhere",
    "face table": "an LP's minimax remap near the faces, the local Bayes remap elsewhere",
    "local search": "the local Bayes remap at the drawn point",
    "coarse LP": "the LP's table over a coarser lattice of outputs, kernel and remap solved together",
}


def _settings_json(spec: ReleaseSpec) -> dict:
    """The settings ``posterior --from-release`` needs besides the mechanism, epsilon and delta, written for every
    mechanism (None where the mechanism reads none): ``objective`` (optimal, lattice), ``calibrate``, ``gamma``
    (ehds) and ``global_sensitivity`` (ehd); with ``distance`` (written when not the default) they make the
    release's noise-aware posterior a function of this JSON alone."""
    used = spec.mechanism.settings_used
    return {"objective": spec.objective if Setting.OBJECTIVE in used else None, "calibrate": spec.calibrate,
            "gamma": spec.gamma if Setting.GAMMA in used else None,
            "global_sensitivity": spec.global_sensitivity_method.value if Setting.GLOBAL_SENSITIVITY in used
            else None}


def _outside_prior(column: str, path: str, k: int, more: bool) -> str:
    """The refusal when the data's own values are not the prior's k categories (it names neither a value nor how
    many: they are data)."""
    where = shown_name(path)
    if more:
        return (f"column {column!r} of {where} has a value outside the prior's {k} categories (not shown: it is data); "
                "name the categories with --categories X,Y,... and drop or map the others with --unknown drop or "
                "--unknown map:NAME")
    return (f"column {column!r} of {where} has fewer distinct values than the prior's {k} categories; name all {k} "
            "with --categories X,Y,... (a category no record has counts 0)")
