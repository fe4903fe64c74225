"""``dpposterior accuracy``: the exact expected Hellinger error of one mechanism, worst case and average."""

from __future__ import annotations

import argparse

from ...accuracy import expected_errors
from ...distances import DEFAULT_DISTANCE
from ..options import add_mechanism_options, add_variant_options, prior_arg, size_arg, variant_params
from ..output import dump


def add_accuracy(p: argparse.ArgumentParser) -> None:
    """Print the exact expected error, worst case and prior average.

    The error is Hellinger's, or that of ``--distance``; the worst case is over the data sets of size n, the
    average under the prior predictive."""
    add_mechanism_options(p)
    p.add_argument("--n", required=True, help="data-set size n")
    add_variant_options(p)


def cmd_accuracy(args) -> None:
    spec = variant_params(args)
    n = size_arg(args.n)
    a = prior_arg(args.prior)
    e = expected_errors(spec, a, n)
    out = e.as_dict()
    if args.json:
        dump(out)
        return
    what = "Hellinger" if e.distance == DEFAULT_DISTANCE else e.distance
    lines = [f"# exact expected {what} error of {out['mechanism']} (prior {a.tolist()}, n {n}, "
             f"eps {spec.epsilon:g})",
             f"worst case: {e.worst:.6f} at counts {e.worst_counts}",
             f"average under the prior predictive: {e.average:.6f}"]
    if e.calibration is not None:
        lines.append(f"calibration: factor {e.calibration.factor:.6g}, certified concrete eps "
                     f"{e.calibration.concrete_epsilon:.10g}")
    print("\n".join(lines))
