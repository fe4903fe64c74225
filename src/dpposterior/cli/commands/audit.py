"""``dpposterior audit``: a black-box lower confidence bound on the privacy loss, from samples."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ... import validate
from ...audit import DEFAULT_CONFIDENCE, DEFAULT_EVENTS, DEFAULT_SAMPLES
from ...errors import InputError
from ...mechanism_audit import audit_mechanism
from ...validate import parse_int, parse_list, parse_number
from ..options import add_mechanism_options, add_variant_options, claim_of, prior_arg, seed_arg, size_arg, variant_params
from ..output import dump


def add_audit(p: argparse.ArgumentParser) -> None:
    """Bound the privacy loss from below, black-box, from samples."""
    add_mechanism_options(p)
    p.add_argument("--n", required=True, help="data-set size n")
    p.add_argument("--pair", metavar="C:C'", help="adjacent pair c:c' to test, e.g. 50,50:49,51 (default: --search)")
    p.add_argument("--search", default="worst",
                   help="pairs to test without --pair: worst (exact worst pair, white-box hint; default), "
                        "boundary, balanced, random")
    p.add_argument("--samples", default=str(DEFAULT_SAMPLES), help=f"samples per side (default {DEFAULT_SAMPLES})")
    p.add_argument("--confidence", default=str(DEFAULT_CONFIDENCE), help="confidence level in (0, 1) (default 0.95)")
    p.add_argument("--events", default=str(DEFAULT_EVENTS),
                   help=f"events carried to the held-out half (Bonferroni, default {DEFAULT_EVENTS})")
    p.add_argument("--delta-at", metavar="EPS", help="also bound delta(eps') (hockey-stick divergence) at this eps'")
    p.add_argument("--seed", help="integer seed (default: operating-system entropy, reported)")
    add_variant_options(p)  # --calibrate and --objective: the variant audited (lattice~average, ehds~calibrated, ...)


def _parse_pair(text: str) -> tuple[list, list]:
    parts = text.split(":")
    if len(parts) != 2:
        raise InputError(f"--pair must be two count vectors separated by ':', e.g. 50,50:49,51; got {text!r}")
    return parse_list(parts[0], "--pair"), parse_list(parts[1], "--pair")


def cmd_audit(args) -> None:
    """``dpposterior audit``: JSON keys epsilon_lower_bound, estimate, confidence, samples, pair, event,
    exact_concrete_epsilon (a public contract), plus extras."""
    spec = variant_params(args)
    n = size_arg(args.n)
    a = prior_arg(args.prior)
    samples = validate.audit_samples(parse_int(args.samples, "--samples"), "samples")
    confidence = validate.level(parse_number(args.confidence, "--confidence"), "confidence")
    n_events = validate.events(parse_int(args.events, "--events"), "--events")
    delta_at = validate.delta_at(None if args.delta_at is None else parse_number(args.delta_at, "--delta-at"), "--delta-at")
    seed = seed_arg(args.seed)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    pair = None if args.pair is None else _parse_pair(args.pair)
    res = audit_mechanism(spec, a, n, pair=pair, search=args.search, samples=samples, confidence=confidence,
                          seed=seed, n_events=n_events, delta_at=delta_at, progress=sys.stderr.isatty())
    out = {
        "epsilon_lower_bound": res.epsilon_lower_bound, "estimate": res.estimate, "confidence": res.confidence,
        "samples": res.samples, "pair": res.pair, "event": res.event,
        "exact_concrete_epsilon": res.exact_concrete_epsilon,
        "claimed": dict(zip(("epsilon", "delta"), claim_of(spec), strict=True)),
        "event_upper_bound": res.event_upper_bound, "pairs_tested": res.pairs_tested, "n_events": res.n_events,
        "mechanism": spec.variant.mechanism, "seed": seed,
        "above_nominal_epsilon": res.epsilon_lower_bound > spec.epsilon,
    }
    if res.delta is not None:
        out["delta_at"] = res.delta
    if args.json:
        dump(out)
        return
    claim = out["claimed"]
    claim_text = "no claim" if claim["epsilon"] is None else f"claimed ({claim['epsilon']:g}, {claim['delta']:g})-DP"
    exceeds = claim["epsilon"] is not None and claim["delta"] == 0 and res.epsilon_lower_bound > claim["epsilon"]
    nominal = (f"  ABOVE THE NOMINAL EPS {spec.epsilon:g}" if claim["epsilon"] is None
               and out["above_nominal_epsilon"] else "")
    lines = [f"empirical privacy loss of {spec.variant.mechanism} (prior {a.tolist()}, n {n}) at pair "
             f"{res.pair[0]} vs {res.pair[1]}, {res.samples} samples per side, seed {seed}:",
             f"  lower bound {res.epsilon_lower_bound:.4f} at confidence {res.confidence:g}  [{claim_text}]"
             + ("  EXCEEDS THE CLAIM" if exceeds else "") + nominal,
             f"  estimate {res.estimate:.4f} on the held-out event ({res.event['kind']}, "
             f"{res.event.get('rule') or str(res.event['size']) + ' outputs'}); pairs tested {res.pairs_tested}"]
    if res.exact_concrete_epsilon is not None:
        lines.append(f"  exact concrete epsilon of this pair {res.exact_concrete_epsilon:.4f}")
    if res.delta is not None:
        lines.append(f"  delta({res.delta['epsilon']:g}): lower bound {res.delta['lower_bound']:.4g}, "
                     f"estimate {res.delta['estimate']:.4g}")
    print("\n".join(lines))
