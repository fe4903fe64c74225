"""``dpposterior posterior``: the exact noise-aware posterior of a released Dir(a + m)."""

from __future__ import annotations

import argparse

from ...distances import DEFAULT_DISTANCE
from ...noise_aware import naive_posterior, noise_aware_posterior
from ..options import (
    add_mechanism_options,
    add_variant_options,
    categories_arg,
    counts_arg,
    level_arg,
    prior_arg,
    variant_params,
)
from ..output import dump, noise_aware_lines, noise_aware_summary


def add_posterior(p: argparse.ArgumentParser) -> None:
    """Print the exact noise-aware posterior of a released Dir(a + m)."""
    add_mechanism_options(p)
    p.add_argument("--released", required=True, metavar="M1,M2,...",
                   help="the released counts m (the release is Dir(a + m)), comma-separated, e.g. 40,60")
    p.add_argument("--level", default="0.9", metavar="L", help="credible level in (0, 1) (default 0.9)")
    p.add_argument("--categories", metavar="X,Y,...",
                   help="names of the categories, comma-separated, one per released count, for the interval lines "
                        "(default theta_1, theta_2, ...)")
    add_variant_options(p)


def cmd_posterior(args) -> None:
    """``dpposterior posterior``: JSON keys mechanism, epsilon, level, mean, intervals, naive {mean, intervals}."""
    spec = variant_params(args)
    m = counts_arg(args.released, "released counts")
    a = prior_arg(args.prior, m.size)
    level = level_arg(args.level)
    cats = categories_arg(args.categories, m.size)
    post = noise_aware_posterior(spec, a, m, level=level)
    naive = naive_posterior(a, m, level)
    if args.json:
        extra = {"distance": spec.distance} if spec.distance != DEFAULT_DISTANCE else {}
        dump({"mechanism": post.mechanism, "epsilon": post.epsilon, "level": level} | extra
             | noise_aware_summary(post, naive))
        return
    print("\n".join(noise_aware_lines(post, naive, categories=cats)))
