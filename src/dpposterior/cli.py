"""The ``dpposterior`` command line (a public contract: flags and JSON keys are stable).

    dpposterior pmf      --prior 1,1 --counts 4,4 --mechanism ehds --epsilon 1 [--json]
    dpposterior privacy  --prior 1,1 --n 100 --mechanism ehdl --epsilon 1 [--at 50,50] [--delta-at EPS] [--json]
    dpposterior release  --prior 1,1 --counts 40,60 --mechanism ehds --epsilon 1 [--seed S] [--json]
    dpposterior release  --prior 1,1 --data records.csv --column answer [--categories no,yes] ...

Bad input exits with status 2 and one line ``dpposterior: error: ...`` on stderr.

A release prints only the private output (never the error against the data, nor an
entropy-drawn seed: either would reveal the data).  ``--seed`` is for reproducing
experiments; a release whose seed is known is not private.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

import numpy as np

from . import __version__
from .errors import InputError
from .mechanisms import DEFAULT_DELTA, DEFAULT_GAMMA, MECHANISM_IDS, MECHANISMS, check_params, log_pmf, sample
from .models import as_counts, as_prior, candidates, steps
from .distances import hellinger

_LIST_FLAGS = {"--prior", "--counts", "--at", "--pair", "--categories"}


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str):  # noqa: D102
        raise InputError(message)


def _number_list(text: str, what: str, cast=float) -> list:
    try:
        return [cast(x) for x in text.split(",")]
    except ValueError:
        raise InputError(f"{what} must be comma-separated numbers, got {text!r}") from None


def _counts_arg(text: str, what: str = "counts") -> np.ndarray:
    return as_counts(_number_list(text, what), what)


def _common(p: argparse.ArgumentParser, *, counts: bool) -> None:
    p.add_argument("--prior", required=True, help="Dirichlet prior a, comma-separated (Beta when k = 2), e.g. 1,1")
    if counts:
        p.add_argument("--counts", help="count vector c, comma-separated, e.g. 4,4")
    p.add_argument("--mechanism", required=True, help=f"one of: {', '.join(MECHANISM_IDS)}")
    p.add_argument("--epsilon", required=True, help="privacy parameter eps > 0")
    p.add_argument("--delta", default=str(DEFAULT_DELTA), help="delta in (0, 1), for mh-delta (default 1e-8)")
    p.add_argument("--gamma", default=str(DEFAULT_GAMMA), help="smoothing gamma > 0 for ehds (default 1)")
    p.add_argument("--global-sensitivity", default="exact", help="ehd only: exact (default) or paper")
    p.add_argument("--json", action="store_true", help="print JSON")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = _Parser(prog="dpposterior", description="Differentially private posteriors tailored to the Hellinger distance.")
    parser.add_argument("--version", action="version", version=f"dpposterior {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("pmf", help="print a mechanism's exact output distribution over R(n)")
    _common(p, counts=True)

    p = sub.add_parser("privacy", help="print the exact concrete epsilon (worst case, or local with --at)")
    _common(p, counts=False)
    p.add_argument("--n", required=True, help="data-set size n")
    p.add_argument("--at", help="local concrete epsilon at this count vector")
    p.add_argument("--delta-at", help="also print the privacy profile delta(eps') at this eps'")

    p = sub.add_parser("release", help="release one private posterior")
    _common(p, counts=True)
    p.add_argument("--data", help="CSV file of records (instead of --counts)")
    p.add_argument("--column", help="column of --data holding each record's category")
    p.add_argument("--categories", help="the categories, comma-separated, in order (default: sorted values of the data)")
    p.add_argument("--seed", help="integer seed (default: operating-system entropy)")

    _register_extensions(sub)
    return parser


def _register_extensions(sub) -> None:
    """Sub-commands defined in other modules (the auditor)."""
    try:
        from . import audit
    except ImportError:
        return
    register = getattr(audit, "register_cli", None)
    if register is not None:
        register(sub, _common)


def _params(args) -> dict:
    mech, epsilon, delta, gamma, gsm = check_params(args.mechanism, _float(args.epsilon, "epsilon"),
                                                    _float(args.delta, "delta"), _float(args.gamma, "gamma"),
                                                    args.global_sensitivity)
    return dict(mechanism=mech.id, epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=gsm)


def _float(text: str, what: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number, got {text!r}") from None


def _int(text: str, what: str) -> int:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be an integer, got {text!r}") from None
    if not math.isfinite(value) or not value.is_integer():
        raise InputError(f"{what} must be an integer, got {text!r}")
    return int(value)


def _dump(obj) -> None:
    print(json.dumps(obj, indent=2))


def cmd_pmf(args) -> None:
    params = _params(args)
    if args.counts is None:
        raise InputError("--counts is required")
    c = _counts_arg(args.counts)
    a = as_prior(_number_list(args.prior, "prior"), c.size)
    logp = log_pmf(prior=a, counts=c, **params)
    cands = candidates(int(c.sum()), c.size)
    prob = np.exp(logp)
    dist = hellinger(a + c, a + cands)
    st = steps(c, cands)
    if args.json:
        _dump({
            "mechanism": params["mechanism"], "epsilon": params["epsilon"], "delta": params["delta"],
            "outputs": [
                {"counts": m.tolist(), "alpha": (a + m).tolist(), "probability": float(p), "hellinger": float(h),
                 "steps": int(s)}
                for m, p, h, s in zip(cands, prob, dist, st)
            ],
        })
        return
    print(f"# exact output distribution of {params['mechanism']} at counts {c.tolist()}, prior {a.tolist()}, "
          f"eps {params['epsilon']:g}")
    print(f"{'counts':>20} {'alpha':>24} {'probability':>14} {'hellinger':>12} {'steps':>5}")
    for m, p, h, s in zip(cands, prob, dist, st):
        print(f"{str(m.tolist()):>20} {str((a + m).tolist()):>24} {p:14.6e} {h:12.6f} {int(s):5d}")


def cmd_privacy(args) -> None:
    from .privacy import concrete_epsilon

    params = _params(args)
    n = _int(args.n, "n")
    a = as_prior(_number_list(args.prior, "prior"))
    at = None if args.at is None else _counts_arg(args.at, "--at counts")
    delta_at = None if args.delta_at is None else _float(args.delta_at, "--delta-at")
    res = concrete_epsilon(prior=a, n=n, at=at, delta_at=delta_at, progress=sys.stderr.isatty(), **params)
    out = {
        "concrete_epsilon": res.concrete_epsilon,
        "claimed": {"epsilon": res.claimed_epsilon, "delta": res.claimed_delta},
        "worst_pair": [res.worst_pair[0], res.worst_pair[1]],
        "worst_output": res.worst_output,
    }
    if res.delta_at is not None:
        out["delta_at"] = res.delta_at
    if args.json:
        _dump(out)
        return
    claim = ("no claim" if res.claimed_epsilon is None
             else f"claimed ({res.claimed_epsilon:g}, {res.claimed_delta:g})-DP")
    verdict = " EXCEEDS THE CLAIM" if res.exceeds_claim else ""
    print(f"{res.scope} concrete epsilon of {params['mechanism']} (prior {a.tolist()}, n {n}): "
          f"{res.concrete_epsilon:.10g}  [{claim}]{verdict}")
    print(f"worst pair: {res.worst_pair[0]} vs {res.worst_pair[1]}, at output {res.worst_output}")
    if res.delta_at is not None:
        print(f"delta({res.delta_at['epsilon']:g}) = {res.delta_at['delta']:.6g}")


def _counts_from_csv(path: str, column: str | None, categories: str | None) -> tuple[np.ndarray, list[str]]:
    import pandas as pd

    if not column:
        raise InputError("--data needs --column NAME")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path} as CSV: {str(exc).splitlines()[0]}") from None
    if column not in frame.columns:
        raise InputError(f"{path} has no column {column!r} (columns: {', '.join(map(str, frame.columns))})")
    values = frame[column].str.strip()
    if (values == "").any():
        raise InputError(f"column {column!r} of {path} has {(values == '').sum()} empty values")
    if categories is None:
        cats = sorted(values.unique())
        print("dpposterior: warning: categories taken from the data; pass --categories to keep the "
              "category set itself private", file=sys.stderr)
    else:
        cats = [x.strip() for x in categories.split(",")]
        if len(set(cats)) != len(cats):
            raise InputError(f"--categories has duplicates: {categories!r}")
        unknown = sorted(set(values) - set(cats))
        if unknown:
            raise InputError(f"column {column!r} has values not in --categories: {', '.join(unknown[:5])}")
    counts = values.value_counts().reindex(cats, fill_value=0).to_numpy()
    return as_counts(counts, f"counts of {column!r}"), cats


def cmd_release(args) -> None:
    params = _params(args)
    if (args.counts is None) == (args.data is None):
        raise InputError("give exactly one of --counts or --data")
    cats = None
    if args.data is not None:
        c, cats = _counts_from_csv(args.data, args.column, args.categories)
    else:
        c = _counts_arg(args.counts)
    a = as_prior(_number_list(args.prior, "prior"), c.size)
    seed = None if args.seed is None else _int(args.seed, "seed")
    if seed is not None and seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {args.seed!r}")
    m = sample(prior=a, counts=c, size=1, rng=np.random.default_rng(seed), **params)[0]
    claim = MECHANISMS[params["mechanism"]].claimed(params["epsilon"], params["delta"])
    if args.json:
        out = {"mechanism": params["mechanism"], "epsilon": params["epsilon"], "delta": params["delta"],
               "claimed": {"epsilon": claim[0], "delta": claim[1]}, "n": int(c.sum()), "prior": a.tolist(),
               "released_counts": m.tolist(), "alpha": (a + m).tolist(), "seed": seed}
        if cats is not None:
            out["categories"] = cats
        _dump(out)
        return
    label = "Beta" if c.size == 2 else "Dir"
    print(f"{label}({', '.join(f'{x:g}' for x in a + m)})")


COMMANDS = {"pmf": cmd_pmf, "privacy": cmd_privacy, "release": cmd_release}


_VALUE_FLAGS = _LIST_FLAGS | {"--epsilon", "--delta", "--gamma", "--n", "--seed", "--delta-at", "--samples",
                             "--confidence"}


def _join_negative_lists(argv: list[str]) -> list[str]:
    """Let ``--counts -1,2`` reach our validation (argparse would take ``-1,2`` for a flag)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else ""
        if tok in _VALUE_FLAGS and nxt[:1] == "-" and (nxt[1:2].isdigit() or nxt[1:2] == "."):
            out.append(f"{tok}={nxt}")
            i += 2
        else:
            out.append(tok)
            i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpposterior`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(_join_negative_lists(argv))
        if args.command is None:
            raise InputError("a command is required: " + ", ".join(COMMANDS) + (", audit" if _has_audit() else ""))
        handler = COMMANDS.get(args.command) or getattr(args, "handler", None)
        handler(args)
    except InputError as exc:
        print(f"dpposterior: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print("dpposterior: error: out of memory; the exact computation is too large for this machine", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return 0


def _has_audit() -> bool:
    try:
        from . import audit  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
