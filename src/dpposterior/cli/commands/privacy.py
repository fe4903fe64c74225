"""``dpposterior privacy``: the exact concrete epsilon (worst case, or local with --at)."""

from __future__ import annotations

import argparse
import sys

from ... import validate
from ...distances import DEFAULT_DISTANCE
from ...privacy import concrete_epsilon
from ..options import (
    add_mechanism_options,
    add_variant_options,
    calibration_json,
    counts_arg,
    prior_arg,
    size_arg,
    variant_params,
)
from ..output import dump


def add_privacy(p: argparse.ArgumentParser) -> None:
    """Print the exact concrete epsilon, worst case or local (--at)."""
    add_mechanism_options(p)
    p.add_argument("--n", required=True, help="data-set size n")
    p.add_argument("--at", metavar="C1,C2,...", help="local concrete epsilon at this count vector")
    p.add_argument("--delta-at", metavar="EPS", help="also print the privacy profile delta(eps') at this eps'")
    add_variant_options(p)


def cmd_privacy(args) -> None:
    spec = variant_params(args)
    n = size_arg(args.n)
    a = prior_arg(args.prior)
    at = None if args.at is None else counts_arg(args.at, "--at counts")
    delta_at = None if args.delta_at is None else validate.eps_prime(validate.parse_number(args.delta_at, "--delta-at"),
                                                                     "--delta-at")
    res = concrete_epsilon(spec, a, n, at=at, delta_at=delta_at, progress=sys.stderr.isatty())
    out = {
        "concrete_epsilon": res.concrete_epsilon,
        "claimed": {"epsilon": res.claimed_epsilon, "delta": res.claimed_delta},
        "worst_pair": [res.worst_pair[0], res.worst_pair[1]],
        "worst_output": res.worst_output,
        "tolerance": res.tolerance if res.claimed_epsilon is not None else None,
    }
    if res.delta_at is not None:
        out["delta_at"] = res.delta_at
    if res.distance != DEFAULT_DISTANCE:
        out["distance"] = res.distance
    cal = calibration_json(spec, a, n)
    if cal:
        out["calibration"] = cal
    if args.json:
        dump(out)
        return
    claim = ("no claim" if res.claimed_epsilon is None
             else f"claimed ({res.claimed_epsilon:g}, {res.claimed_delta:g})-DP; tolerance {res.tolerance:.1e}")
    verdict = " EXCEEDS THE CLAIM" if res.exceeds_claim else ""
    under = "" if res.distance == DEFAULT_DISTANCE else f" under {res.distance}"
    lines = [f"{res.scope} concrete epsilon of {spec.variant.mechanism}{under} (prior {a.tolist()}, n {n}): "
             f"{res.concrete_epsilon:.10g}  [{claim}]{verdict}",
             f"worst pair: {res.worst_pair[0]} vs {res.worst_pair[1]}, at output {res.worst_output}"]
    if res.delta_at is not None:
        lines.append(f"delta({res.delta_at['epsilon']:g}) = {res.delta_at['delta']:.6g}")
    print("\n".join(lines))
