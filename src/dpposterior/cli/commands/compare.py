"""``dpposterior compare``: every release ranked by expected error (the ranking lives in
:mod:`dpposterior.ranking`; this module parses and prints)."""

from __future__ import annotations

import argparse

from ... import validate
from ...distances import DEFAULT_DISTANCE, get_distance
from ...lattice.scale import FACTOR_TOLS
from ...mechanisms import DEFAULT_DELTA
from ...ranking import average_ranks, compare_rows, compare_yardstick, plan_compare, shown_once
from ..options import add_distance_option, prior_arg, size_arg
from ..output import dump


def add_compare(p: argparse.ArgumentParser) -> None:
    """Rank every release by its worst-case and average expected error.

    Every mechanism, calibrated and optimal included."""
    p.add_argument("--prior", required=True, metavar="A1,A2,...", help="Dirichlet prior a, e.g. 1,1")
    p.add_argument("--n", required=True, help="data-set size n")
    p.add_argument("--epsilon", required=True, metavar="EPS", help="privacy parameter eps")
    p.add_argument("--delta", default=str(DEFAULT_DELTA), metavar="D", help="delta for mh-delta (default 1e-8)")
    add_distance_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")


def cmd_compare(args) -> None:
    n = size_arg(args.n)
    a = prior_arg(args.prior)
    epsilon = validate.epsilon(validate.parse_number(args.epsilon, "epsilon"))
    delta = validate.delta(validate.parse_number(args.delta, "delta"))
    name = get_distance(args.distance).name
    get_distance(name).check(a.size)
    plans = plan_compare(a, n, epsilon, delta, name)
    errors: dict = {}
    rows = compare_rows(a, n, epsilon, delta, plans, distance=name, errors=errors)
    extra = {"distance": name} if name != DEFAULT_DISTANCE else {}
    yard = compare_yardstick(a, n, epsilon, rows, name, plans, errors)
    if args.json:
        out = {"prior": a.tolist(), "n": n, "epsilon": epsilon} | extra | {"releases": rows}
        if isinstance(yard, str):
            out["yardstick"] = {"error": yard}
        elif yard is not None:
            out["yardstick"] = yard.as_dict()
            for r in rows:
                if "error" not in r:
                    r["worst_over_yardstick"] = _ratio(r["worst_expected_error"], yard.worst)
                    r["average_over_yardstick"] = _ratio(r["average_expected_error"], yard.average)
        dump(out)
        return
    avg_rank = average_ranks(rows)
    what = "Hellinger" if name == DEFAULT_DISTANCE else name
    lines = [f"# expected {what} error of every release (prior {a.tolist()}, n {n}, eps {epsilon:g}), "
             "ranked by worst case",
             f"{'release':<26} {'claim':<16} {'worst':>9} {'rank':>4} {'average':>9} {'rank':>4}  worst data set"]
    for i, r in enumerate(rows):
        if "error" in r:
            lines.append(f"{r['release']:<26} {r['claim']:<16} not computed: {r['error']}")
            continue
        lines.append(f"{r['release']:<26} {r['claim']:<16} {r['worst_expected_error']:9.4f} {i + 1:4d} "
                     f"{r['average_expected_error']:9.4f} {avg_rank[r['release']]:4d}  {r['worst_counts']}")
    lines.append("(ehdl claims no privacy; calibrated releases are pure eps-DP by exact computation)")
    lines += [f"({note})" for note in shown_once(a.size)]
    bounds = [r["truncation_bound"] for r in rows if "truncation_bound" in r]
    if bounds:
        # the routes' brackets: the widest this table needed
        most = next((f"{t:.0e}".replace("e-0", "e-") for t in FACTOR_TOLS if max(bounds) <= t), f"{max(bounds):.1e}")
        lines.append(f"(a release computed by its translation structure lies within its truncation_bound (at most {most}) "
                     "above the value shown)")
    if isinstance(yard, str):
        lines.append(f"yardstick: not computed: {yard}")
    elif yard is not None:
        lines.append(f"yardstick (certified lower bounds on the best achievable error): worst {yard.worst:.4f} "
                     f"by {yard.worst_bound}; average {yard.average:.4f} by {yard.average_bound}")
        lines.append(f"{'release':<26} {'worst / yardstick':>17} {'average / yardstick':>19}")
        for r in rows:
            if "error" not in r:
                lines.append(f"{r['release']:<26} {_ratio(r['worst_expected_error'], yard.worst):17.3f} "
                             f"{_ratio(r['average_expected_error'], yard.average):19.3f}")
    print("\n".join(lines))


def _ratio(value: float, bound: float) -> float:
    """``value / bound`` (inf when the bound is 0 and the value is not)."""
    if bound > 0:
        return value / bound
    return 1.0 if value <= 0 else float("inf")
