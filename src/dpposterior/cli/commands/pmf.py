"""``dpposterior pmf``: a mechanism's exact output distribution over R(n), row by row."""

from __future__ import annotations

import argparse

import numpy as np

from ... import validate
from ...distances import DEFAULT_DISTANCE
from ...distances import distance as distance_value
from ...errors import InputError, SizeError
from ...limits import limit_setting
from ...mechanisms import log_pmf
from ...models import candidates, n_candidates, steps
from ..options import add_mechanism_options, add_variant_options, calibration_json, counts_arg, prior_arg, variant_params
from ..output import print_chunked, stream_json


def add_pmf(p: argparse.ArgumentParser) -> None:
    """Print a mechanism's exact output distribution over R(n)."""
    add_mechanism_options(p)
    p.add_argument("--counts", required=True, metavar="C1,C2,...", help="count vector c, comma-separated, e.g. 4,4")
    p.add_argument("--top", metavar="N", help="print only the N most probable outputs (sorted by probability)")
    p.add_argument("--sort", choices=("counts", "probability"), default=None,
                   help="row order: counts (lexicographic, the default) or probability (most probable first; "
                        "the default with --top)")
    add_variant_options(p)


def _pmf_rows(args, size: int) -> int:
    """The number of rows ``pmf`` prints, checked before any work against the budget registry's
    ``DPPOSTERIOR_MAX_PMF_WORK`` (outputs computed, |R(n)|, about 3 us each here) and
    ``DPPOSTERIOR_MAX_PMF_ROWS`` (rows printed: all of R(n), or ``--top N``)."""
    limit = int(limit_setting("DPPOSTERIOR_MAX_PMF_ROWS"))
    work = int(limit_setting("DPPOSTERIOR_MAX_PMF_WORK"))
    top = None if args.top is None else validate.parse_int(args.top, "--top", 1, None)
    if size > work:
        raise SizeError(f"the exact pmf over |R(n)| = {validate.count_text(size)} outputs would take "
                        f"{validate.count_text(size * 4 // 10**6)} s here, over the limit of {work:,} outputs "
                        "(set DPPOSTERIOR_MAX_PMF_WORK to raise it)")
    rows = size if top is None else min(top, size)
    if rows > limit:
        raise SizeError(f"pmf would print {rows:,} rows (|R(n)| = {size:,}), over the limit of {limit:,} "
                        f"({validate.estimate_text(rows * (60 if args.json else 45) / 2**20)} MB of output); "
                        "use --top N, or set "
                        "DPPOSTERIOR_MAX_PMF_ROWS to raise it")
    return rows


def cmd_pmf(args) -> None:
    """``dpposterior pmf``: JSON keys mechanism, epsilon, delta, outputs [{counts, alpha, probability, hellinger,
    steps}] (a public contract), written row by row.  Under ``--distance NAME`` (not hellinger) the head also
    has ``"distance": NAME`` and each output's distance column is keyed NAME instead of ``hellinger``.  Where the
    lattice release's rows over R(n) are not computed, its pmf at this one data set (``LatticeMechanism.pmf_at``):
    each probability a lower end, ``probability <= P <= probability + prob_slack``, the head then also has
    ``"route"`` and ``"prob_slack"`` (the kernel's mass beyond the ball it sums, docs/lattice.md)."""
    spec = variant_params(args)
    c = counts_arg(args.counts)
    a = prior_arg(args.prior, c.size)
    rows = _pmf_rows(args, n_candidates(int(c.sum()), c.size))
    bracket = None
    if spec.mechanism.pmf_at_one_data_set(a, int(c.sum()), spec):
        plan = spec.mechanism.check_pmf_at(int(c.sum()), c.size, spec, counts=c, prior=a)
        low, slack = spec.mechanism.pmf_at(a, c, spec)
        bracket = {"route": f"pmf at one data set, {plan.route}", "prob_slack": float(slack)}
        with np.errstate(divide="ignore"):
            logp = np.log(low)
    else:
        logp = log_pmf(spec, a, c)
    cands = candidates(int(c.sum()), c.size)
    sort = args.sort or ("probability" if args.top is not None else "counts")
    if sort == "probability" or rows < cands.shape[0]:
        order = np.argsort(-logp, kind="stable")[:rows]  # ties keep the lexicographic order
        if sort == "counts":
            order = np.sort(order)
        cands, logp = cands[order], logp[order]
    prob = np.exp(logp)
    name = spec.distance
    dist = distance_value(name, a + c, a + cands)
    st = steps(c, cands)
    table = zip(cands.tolist(), prob.tolist(), dist.tolist(), st.tolist(), strict=True)
    if args.json:
        cal = calibration_json(spec, a, int(c.sum()))
        head = {"mechanism": spec.variant.mechanism, "epsilon": spec.epsilon, "delta": spec.delta,
                **({"distance": name} if name != DEFAULT_DISTANCE else {}), **({"calibration": cal} if cal else {}),
                **(bracket or {})}
        if not (np.isfinite(prob).all() and np.isfinite(dist).all()):  # never NaN or Infinity in JSON
            raise InputError("the exact pmf is not finite here; please report this input")
        av = a.tolist()
        stream_json(head, "outputs", (_json_row(av, *row, key=name) for row in table))
        return
    what = "lower ends of the output distribution" if bracket else "exact output distribution"
    print(f"# {what} of {spec.variant.mechanism} at counts {c.tolist()}, prior {a.tolist()}, "
          f"eps {spec.epsilon:g}" + (f"; the {rows:,} most probable of {n_candidates(int(c.sum()), c.size):,}"
                                           if args.top is not None else ""))
    if bracket is not None:
        print(f"# {bracket['route']}: each probability a lower end, within {bracket['prob_slack']:.2g} of the exact "
              "one (the kernel's mass beyond the points summed)")
    print(f"{'counts':>20} {'alpha':>24} {'probability':>14} {name:>12} {'steps':>5}")
    av = a.tolist()
    print_chunked(_text_row(av, *row) for row in table)


def _json_row(av: list, m: list, p_: float, h: float, s_: int, key: str = DEFAULT_DISTANCE) -> str:
    """One output of ``pmf --json``, encoded by hand (a million rows): counts, alpha, probability, the
    distance (keyed by its name, ``hellinger`` by default), steps."""
    alpha = ", ".join(repr(x + y) for x, y in zip(av, m, strict=True))
    return (f'{{"counts": [{", ".join(map(str, m))}], "alpha": [{alpha}], '
            f'"probability": {p_!r}, "{key}": {h!r}, "steps": {s_}}}')


def _text_row(av: list, m: list, p_: float, h: float, s_: int) -> str:
    """One output of ``pmf`` as text, under the header line of :func:`cmd_pmf`."""
    alpha = [float(x) + y for x, y in zip(av, m, strict=True)]
    return f"{str(m):>20} {str(alpha):>24} {p_:14.6e} {h:12.6f} {int(s_):5d}"
