"""The ``dpposterior`` command line (a public contract: flags and JSON keys are stable).

    dpposterior pmf      --prior 1,1 --counts 4,4 --mechanism ehds --epsilon 1
    dpposterior privacy  --prior 1,1 --n 100 --mechanism ehdl --epsilon 1
    dpposterior release  --prior 1,1 --counts 40,60 --mechanism ehds --epsilon 1
    dpposterior release  --prior 1,1 --data records.csv --column answer --categories no,yes --mechanism ehds --epsilon 1
    dpposterior audit    --prior 1,1 --n 100 --mechanism ehds --epsilon 1 --pair 50,50:49,51

Every sub-command is one entry of :data:`COMMANDS`: a function that adds its arguments to
its parser, and a handler that receives the parsed arguments.  To add a sub-command, write
those two functions and add one entry.

Bad input exits with status 2 and one line ``dpposterior: error: ...`` on stderr; Ctrl-C
exits with status 130 and one line.  JSON output never contains NaN or Infinity (``null``).

A release prints only the private output (never the error against the data, nor an
entropy-drawn seed: either would reveal the data).  ``--seed`` is for reproducing
experiments; a release whose seed is known is not private.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import stat
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal

import numpy as np

from . import __version__, validate
from .errors import InputError
from .mechanisms import DEFAULT_DELTA, DEFAULT_GAMMA, MECHANISM_IDS, MECHANISMS, check_params, log_pmf, resolve
from .release import release
from .models import candidates, steps
from .distances import hellinger


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit status 2."""

    def error(self, message: str):  # noqa: D102
        raise InputError(message)


# ---------------------------------------------------------------------------------------------
# shared helpers


def _number_list(text: str, what: str) -> list:
    return validate.parse_list(text, what)


def _counts_arg(text: str, what: str = "counts") -> np.ndarray:
    return validate.counts(_number_list(text, what), what)


def _prior_arg(text: str, k: int | None = None) -> np.ndarray:
    return validate.prior(_number_list(text, "prior"), k)


def _float(text: str, what: str) -> object:
    return validate.parse_number(text, what)


def _int(text: str, what: str) -> int:
    value = validate.parse_number(text, what)
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise InputError(f"{what} must be an integer, got {text!r}")
    return validate.integer(value, what)


def _seed(text: str | None) -> int | None:
    if text is None:
        return None
    value = validate.parse_number(text, "seed")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or not 0 <= value <= validate.MAX_SEED:
        raise InputError(f"seed must be a non-negative integer below 2^128, got {text!r}")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    """The flags every mechanism command shares."""
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


def _params(args) -> dict:
    mech, epsilon, delta, gamma, gsm = check_params(args.mechanism, _float(args.epsilon, "epsilon"),
                                                    _float(args.delta, "delta"), _float(args.gamma, "gamma"),
                                                    args.global_sensitivity)
    return dict(mechanism=mech.id, epsilon=epsilon, delta=delta, gamma=gamma, global_sensitivity_method=gsm)


def _claim(params) -> tuple:
    return MECHANISMS[params["mechanism"]].claimed(params["epsilon"], params["delta"], params.get("calibrate", False))


def _beyond_flags(p: argparse.ArgumentParser) -> None:
    """--calibrate and --objective (pmf, release, privacy, accuracy)."""
    p.add_argument("--calibrate", action="store_true",
                   help="exponential mechanisms only: scale the weight by the largest factor kappa keeping the "
                        "exact worst-case concrete eps <= eps (pure eps-DP, certified)")
    p.add_argument("--objective", default="worst", choices=("worst", "average"),
                   help="optimal only: minimise the worst-case (default) or prior-average expected error")


def _params_beyond(args) -> dict:
    """:func:`_params` plus ``objective`` and ``calibrate``, validated by the mechanism's registry entry."""
    from .mechanisms import resolve

    params = _params(args)
    resolve(params["mechanism"], params["epsilon"], params["delta"], params["gamma"],
            params["global_sensitivity_method"], args.objective, args.calibrate)
    return dict(params, objective=args.objective, calibrate=bool(args.calibrate))


def _calibration_json(params, a, n) -> dict | None:
    """``{"factor", "concrete_epsilon"}`` of a calibrated mechanism, else None."""
    if not params.get("calibrate"):
        return None
    from .calibration import calibration

    return calibration(params["mechanism"], a, n, epsilon=params["epsilon"], delta=params["delta"],
                       gamma=params["gamma"], global_sensitivity_method=params["global_sensitivity_method"]).as_dict()


def json_safe(obj):
    """``obj`` with numpy scalars made plain and every NaN or infinity replaced by ``None``."""
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else None
    return obj


def _dump(obj) -> None:
    """Print strict JSON (``allow_nan=False`` guards against any NaN left behind)."""
    print(json.dumps(json_safe(obj), indent=2, allow_nan=False))


def exact_sum(a: float, m: int) -> str:
    """``a + m`` written exactly in decimal (the prior as given plus an integer count), e.g. ``5000001``."""
    s = Decimal(repr(float(a))) + int(m)
    if s == s.to_integral_value():
        return str(int(s))
    return format(s.normalize(), "f")


# ---------------------------------------------------------------------------------------------
# pmf


#: rows ``pmf`` may print (all of R(n), or ``--top N``): ``DPPOSTERIOR_MAX_PMF_ROWS``
DEFAULT_MAX_PMF_ROWS = 1e6
#: outputs ``pmf`` may compute, |R(n)| (about 3 us each here): ``DPPOSTERIOR_MAX_PMF_WORK``
DEFAULT_MAX_PMF_WORK = 4e6


def add_pmf(p: argparse.ArgumentParser) -> None:
    """print a mechanism's exact output distribution over R(n)"""
    _common(p)
    p.add_argument("--counts", required=True, metavar="C1,C2,...", help="count vector c, comma-separated, e.g. 4,4")
    p.add_argument("--top", metavar="N", help="print only the N most probable outputs (sorted by probability)")
    p.add_argument("--sort", choices=("counts", "probability"), default=None,
                   help="row order: counts (lexicographic, the default) or probability (most probable first; "
                        "the default with --top)")
    _beyond_flags(p)


def _count(x: int) -> str:
    """An int for a message: ``12,507,501``, or ``~1.2e+600`` past 15 digits (no float overflow)."""
    if x < 10**15:
        return f"{x:,}"
    digits = str(x)
    return f"~{digits[0]}.{digits[1]}e+{len(digits) - 1}"


def _pmf_rows(args, size: int) -> int:
    """The number of rows ``pmf`` prints, checked against ``DPPOSTERIOR_MAX_PMF_ROWS`` before any work."""
    from .budget import budget_setting
    from .errors import SizeError

    limit = int(budget_setting("DPPOSTERIOR_MAX_PMF_ROWS", DEFAULT_MAX_PMF_ROWS))
    work = int(budget_setting("DPPOSTERIOR_MAX_PMF_WORK", DEFAULT_MAX_PMF_WORK))
    top = None if args.top is None else validate.integer(validate.parse_number(args.top, "--top"), "--top", 1, None)
    if size > work:
        raise SizeError(f"the exact pmf over |R(n)| = {_count(size)} outputs would take {_count(size * 4 // 10**6)} s "
                        f"here, over the budget of {work:,} outputs (set DPPOSTERIOR_MAX_PMF_WORK to raise it)")
    rows = size if top is None else min(top, size)
    if rows > limit:
        raise SizeError(f"pmf would print {rows:,} rows (|R(n)| = {size:,}), over the budget of {limit:,} "
                        f"(~{rows * (60 if args.json else 45) / 2**20:.0f} MB of output); use --top N, or set "
                        "DPPOSTERIOR_MAX_PMF_ROWS to raise it")
    return rows


def cmd_pmf(args) -> None:
    """``dpposterior pmf``: JSON keys mechanism, epsilon, delta, outputs [{counts, alpha, probability, hellinger,
    steps}] (a public contract), written row by row."""
    from .models import n_candidates

    params = _params_beyond(args)
    c = _counts_arg(args.counts)
    a = _prior_arg(args.prior, c.size)
    rows = _pmf_rows(args, n_candidates(int(c.sum()), c.size))
    logp = log_pmf(prior=a, counts=c, **params)
    cands = candidates(int(c.sum()), c.size)
    sort = args.sort or ("probability" if args.top is not None else "counts")
    if sort == "probability" or rows < cands.shape[0]:
        order = np.argsort(-logp, kind="stable")[:rows]  # ties keep the lexicographic order
        if sort == "counts":
            order = np.sort(order)
        cands, logp = cands[order], logp[order]
    prob = np.exp(logp)
    dist = hellinger(a + c, a + cands)
    st = steps(c, cands)
    if args.json:
        cal = _calibration_json(params, a, int(c.sum()))
        head = {"mechanism": params["mechanism"], "epsilon": params["epsilon"], "delta": params["delta"],
                **({"calibration": cal} if cal else {})}
        write = sys.stdout.write
        text = json.dumps(json_safe(head), indent=2, allow_nan=False)
        write(text[:-2] + ',\n  "outputs": [')
        if not (np.isfinite(prob).all() and np.isfinite(dist).all()):  # never NaN or Infinity in JSON
            raise InputError("the exact pmf is not finite here; please report this input")
        av = a.tolist()
        sep = "\n    "
        lines = []
        for m, p_, h, s_ in zip(cands.tolist(), prob.tolist(), dist.tolist(), st.tolist()):
            lines.append(f'{{"counts": [{", ".join(map(str, m))}], "alpha": [{", ".join(repr(x + y) for x, y in zip(av, m))}], '
                         f'"probability": {p_!r}, "hellinger": {h!r}, "steps": {s_}}}')
            if len(lines) >= 4096:
                write(sep + (",\n    ").join(lines))
                sep = ",\n    "
                lines.clear()
        if lines:
            write(sep + (",\n    ").join(lines))
        write("\n  ]\n}\n")
        return
    print(f"# exact output distribution of {params['mechanism']} at counts {c.tolist()}, prior {a.tolist()}, "
          f"eps {params['epsilon']:g}" + (f"; the {rows:,} most probable of {n_candidates(int(c.sum()), c.size):,}"
                                           if args.top is not None else ""))
    print(f"{'counts':>20} {'alpha':>24} {'probability':>14} {'hellinger':>12} {'steps':>5}")
    out = []
    for m, p_, h, s_ in zip(cands.tolist(), prob.tolist(), dist.tolist(), st.tolist()):
        alpha = [float(x) + y for x, y in zip(a.tolist(), m)]
        out.append(f"{str(m):>20} {str(alpha):>24} {p_:14.6e} {h:12.6f} {int(s_):5d}")
        if len(out) >= 4096:
            print("\n".join(out))
            out.clear()
    if out:
        print("\n".join(out))


# ---------------------------------------------------------------------------------------------
# privacy


def add_privacy(p: argparse.ArgumentParser) -> None:
    """print the exact concrete epsilon (worst case, or local with --at)"""
    _common(p)
    p.add_argument("--n", required=True, help="data-set size n")
    p.add_argument("--at", metavar="C1,C2,...", help="local concrete epsilon at this count vector")
    p.add_argument("--delta-at", metavar="EPS", help="also print the privacy profile delta(eps') at this eps'")
    _beyond_flags(p)


def cmd_privacy(args) -> None:
    from .privacy import concrete_epsilon

    params = _params_beyond(args)
    n = validate.size(validate.parse_number(args.n, "n"))
    a = _prior_arg(args.prior)
    at = None if args.at is None else _counts_arg(args.at, "--at counts")
    delta_at = None if args.delta_at is None else validate.eps_prime(_float(args.delta_at, "--delta-at"),
                                                                     "--delta-at")
    res = concrete_epsilon(prior=a, n=n, at=at, delta_at=delta_at, progress=sys.stderr.isatty(), **params)
    out = {
        "concrete_epsilon": res.concrete_epsilon,
        "claimed": {"epsilon": res.claimed_epsilon, "delta": res.claimed_delta},
        "worst_pair": [res.worst_pair[0], res.worst_pair[1]],
        "worst_output": res.worst_output,
    }
    if res.delta_at is not None:
        out["delta_at"] = res.delta_at
    cal = _calibration_json(params, a, n)
    if cal:
        out["calibration"] = cal
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


# ---------------------------------------------------------------------------------------------
# release


def add_release(p: argparse.ArgumentParser) -> None:
    """release one private posterior"""
    _common(p)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--counts", metavar="C1,C2,...", help="count vector c, comma-separated, e.g. 40,60")
    source.add_argument("--data", metavar="CSV", help="CSV file of records (instead of --counts); needs --column")
    p.add_argument("--column", metavar="NAME", help="column of --data holding each record's category")
    p.add_argument("--categories", metavar="X,Y,...",
                   help="the categories, comma-separated, in order (default: sorted values of the data)")
    p.add_argument("--seed", help="integer seed (default: operating-system entropy)")
    p.add_argument("--noise-aware", action="store_true",
                   help="also print the noise-aware posterior of the release (90%% intervals; post-processing, no privacy cost)")
    _beyond_flags(p)


#: ``--data`` files larger than this many MB are refused before parsing (``DPPOSTERIOR_MAX_DATA_MB``)
DEFAULT_MAX_DATA_MB = 1024
#: the header line must end within this many bytes (a file without newlines is not a CSV of records)
MAX_HEADER_BYTES = 1 << 20


class _DataTooLarge(Exception):
    pass


class _CappedFile:
    """A binary file that refuses to deliver more than ``cap`` bytes (devices and pipes have no size).

    It also counts the blank lines that pass (``\\n`` followed by an optional ``\\r`` and ``\\n``),
    which the CSV parser skips.
    """

    def __init__(self, raw, cap: int):
        self.raw, self.cap, self.seen = raw, cap, 0
        self.blank_lines, self._tail = 0, b""

    def read(self, size: int = -1) -> bytes:
        want = self.cap + 1 - self.seen if size is None or size < 0 else min(size, self.cap + 1 - self.seen)
        data = self.raw.read(max(want, 0))
        self.seen += len(data)
        if self.seen > self.cap:
            raise _DataTooLarge
        if data:
            both = self._tail + data
            self.blank_lines += (both.count(b"\n\n") + both.count(b"\n\r\n")
                                 - self._tail.count(b"\n\n") - self._tail.count(b"\n\r\n"))
            self._tail = both[-2:]
        return data

    def readable(self) -> bool:  # noqa: D102
        return True

    def __iter__(self):
        return iter(lambda: self.read(1 << 16), b"")


def _counts_from_csv(path: str, column: str | None, categories: str | None) -> tuple[np.ndarray, list[str]]:
    """Counts of ``column`` over the categories, from a CSV of records, in bounded time and memory.

    The file is read in chunks (pandas' C parser, one column kept) and only the counts per value
    are kept, so memory does not grow with the number of records.  At most
    ``DPPOSTERIOR_MAX_DATA_MB`` MB are read (default 1024, about 20 s here); a larger file, a
    device such as ``/dev/zero``, a header line longer than 1 MB or a NUL byte in the header is
    refused with one line (the refusal depends on the file's size and format, not on a record).

    Nothing in a message depends on the records: errors name the problem (unreadable file,
    missing column, empty value, value outside ``--categories``) but never echo a record's
    value, a count or a line number.  Blank lines are skipped with a warning giving their number
    (a blank line is not a record); a record whose value in ``column`` is empty is an error, as
    is a value outside ``--categories``.  A category of ``--categories`` that no record has is an
    ordinary zero count.  The warning about categories taken from the data depends on the flags only.
    """
    import pandas as pd

    from .budget import budget_setting

    if not column:
        raise InputError("--data needs --column NAME")
    cats = None
    if categories is not None:
        cats = [x.strip() for x in categories.split(",")]
        if any(not x for x in cats):
            raise InputError("--categories has an empty category name")
        if len(set(cats)) != len(cats):
            raise InputError("--categories has duplicates")
    limit_mb = budget_setting("DPPOSTERIOR_MAX_DATA_MB", DEFAULT_MAX_DATA_MB)
    cap = int(limit_mb * 2**20)
    too_large = (f"{path} is larger than the {limit_mb:g} MB read by --data "
                 "(set DPPOSTERIOR_MAX_DATA_MB to raise it)")
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a CSV file") from None
    except OSError as exc:
        raise InputError(f"cannot open {path}: {exc.strerror or 'unreadable'}") from None
    unreadable = f"cannot read {path} as a UTF-8 CSV file with a header row"
    with raw:

        info = os.fstat(raw.fileno())
        if stat.S_ISREG(info.st_mode) and info.st_size > cap:
            raise InputError(too_large)
        head = raw.read(MAX_HEADER_BYTES)
        if b"\0" in head:
            raise InputError(f"{unreadable} (it has NUL bytes: a binary file or a device)")
        if b"\n" not in head and len(head) == MAX_HEADER_BYTES:
            raise InputError(f"{unreadable} (no line ends within the first {MAX_HEADER_BYTES >> 20} MB)")
        if raw.seekable():
            raw.seek(0)
            source = _CappedFile(raw, cap)
        else:  # a pipe: put the bytes already read back in front
            source = _CappedFile(io.BufferedReader(_Chain(head, raw)), cap)  # type: ignore[arg-type]
        try:
            header = pd.read_csv(io.BytesIO(head), dtype=str, nrows=0, encoding="utf-8").columns
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
            raise InputError(unreadable) from None
        if column not in header:
            raise InputError(f"{path} has no column {column!r}")
        totals: dict[str, int] = {}
        empty = 0
        try:  # blank lines are skipped by the parser and counted by the reader as the bytes pass
            reader = pd.read_csv(source, dtype=str, keep_default_na=False, skip_blank_lines=True,
                                 usecols=[column], chunksize=1 << 20, encoding="utf-8")
            for chunk in reader:
                values = chunk[column].str.strip()
                empty += int((values == "").sum())
                for value, count in values.value_counts().items():
                    totals[value] = totals.get(value, 0) + int(count)
        except _DataTooLarge:
            raise InputError(too_large) from None
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, OSError):
            raise InputError(unreadable) from None
        blank = source.blank_lines
    if empty:
        raise InputError(f"column {column!r} of {path} has empty values; give every record a category")
    if blank:
        print(f"dpposterior: warning: {blank} blank line{'s' if blank != 1 else ''} of {path} skipped",
              file=sys.stderr)
    if not totals and cats is None:
        raise InputError(f"{path} has no records")
    if cats is None:
        print("dpposterior: warning: categories taken from the data; pass --categories to keep the "
              "category set itself private", file=sys.stderr)
        cats = sorted(totals)
    elif any(v not in cats for v in totals):
        raise InputError(f"column {column!r} of {path} has values not in --categories (not shown: they are data)")
    counts = [totals.get(x, 0) for x in cats]
    return validate.counts(counts, f"counts of {column!r}"), cats


class _Chain:
    """Raw bytes ``head`` followed by the rest of a stream (for pipes, which cannot seek back)."""

    def __init__(self, head: bytes, rest):
        self.head, self.rest = head, rest

    def readable(self) -> bool:  # noqa: D102
        return True

    def readinto(self, buf) -> int:  # noqa: D102
        if self.head:
            n = min(len(buf), len(self.head))
            buf[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        data = self.rest.read(len(buf))
        buf[:len(data)] = data
        return len(data)

    @property
    def closed(self) -> bool:  # noqa: D102
        return False

    def close(self) -> None:  # noqa: D102
        pass

    def flush(self) -> None:  # noqa: D102
        pass


def cmd_release(args) -> None:
    params = _params_beyond(args)
    cats = None
    if args.data is not None:
        c, cats = _counts_from_csv(args.data, args.column, args.categories)
    else:
        c = _counts_arg(args.counts)
    a = _prior_arg(args.prior, c.size)
    seed = _seed(args.seed)
    mech, p = resolve(params["mechanism"], params["epsilon"], params["delta"], params["gamma"],
                      params["global_sensitivity_method"], params["objective"], params["calibrate"])
    # seed None: the operating system's CSPRNG; the draw is padded to a deadline from public inputs
    m, _ = release(mech, a, c, p, seed)
    claim = _claim(params)
    if args.json:
        out = {"mechanism": params["mechanism"], "epsilon": params["epsilon"], "delta": params["delta"],
               "claimed": {"epsilon": claim[0], "delta": claim[1]}, "n": int(c.sum()), "prior": a.tolist(),
               "released_counts": m.tolist(), "alpha": (a + m).tolist(), "seed": seed}
        if cats is not None:
            out["categories"] = cats
        cal = _calibration_json(params, a, int(c.sum()))
        if cal:
            out["calibration"] = cal
        if args.noise_aware:
            post, naive = _noise_aware(params, a, m)
            out["noise_aware"] = {"level": post.level} | noise_aware_summary(post, naive)
        _dump(out)
        return
    label = "Beta" if c.size == 2 else "Dir"
    print(f"{label}({', '.join(exact_sum(x, y) for x, y in zip(a, m))})")
    if cats is not None:
        print(f"categories, in order: {', '.join(cats)}")
    if args.noise_aware:
        _print_noise_aware(*_noise_aware(params, a, m), categories=cats)


def _noise_aware(params: dict, a, m):
    """The noise-aware posterior of the release ``m`` (post-processing: a function of m and public settings)."""
    from .posterior import naive_posterior, noise_aware_posterior

    post = noise_aware_posterior(prior=a, released=m, **params)
    return post, naive_posterior(a, m, post.level)


# ---------------------------------------------------------------------------------------------
# posterior


def add_posterior(p: argparse.ArgumentParser) -> None:
    """the exact noise-aware posterior of a released Dir(a + m)"""
    _common(p)
    p.add_argument("--released", required=True, metavar="M1,M2,...",
                   help="the released counts m (the release is Dir(a + m)), comma-separated, e.g. 40,60")
    p.add_argument("--level", default="0.9", metavar="L", help="credible level in (0, 1) (default 0.9)")
    _beyond_flags(p)


def noise_aware_summary(post, naive: dict) -> dict:
    """The JSON body shared by ``posterior`` and ``release --noise-aware``."""
    return {"mean": post.mean.tolist(), "intervals": post.intervals.tolist(),
            "dropped_mass_bound": post.dropped_mass_bound, "naive": naive}


def _print_noise_aware(post, naive: dict, categories=None) -> None:
    names = categories or [f"theta_{i + 1}" for i in range(len(naive["mean"]))]
    width = max(len(str(x)) for x in names)
    print(f"noise-aware posterior ({post.mechanism}, eps = {post.epsilon:g}), {post.level:g} equal-tailed intervals:")
    for name, mean, (lo, hi), nmean, (nlo, nhi) in zip(names, post.mean, post.intervals, naive["mean"],
                                                         naive["intervals"]):
        print(f"  {str(name):<{width}}  mean {mean:.4f}  [{lo:.4f}, {hi:.4f}]   "
              f"(naive Dir(a + m): {nmean:.4f} [{nlo:.4f}, {nhi:.4f}])")


def cmd_posterior(args) -> None:
    """``dpposterior posterior``: JSON keys mechanism, epsilon, level, mean, intervals, naive {mean, intervals}."""
    from .posterior import naive_posterior, noise_aware_posterior

    params = _params_beyond(args)
    m = _counts_arg(args.released, "released counts")
    a = _prior_arg(args.prior, m.size)
    level = validate.open_unit(_float(args.level, "level"), "level")
    post = noise_aware_posterior(prior=a, released=m, level=level, **params)
    naive = naive_posterior(a, m, level)
    if args.json:
        _dump({"mechanism": post.mechanism, "epsilon": post.epsilon, "level": level} | noise_aware_summary(post, naive))
        return
    _print_noise_aware(post, naive)


# ---------------------------------------------------------------------------------------------
# audit


def add_audit(p: argparse.ArgumentParser) -> None:
    """black-box lower confidence bound on the privacy loss, from samples"""
    from .audit import DEFAULT_CONFIDENCE, DEFAULT_EVENTS, DEFAULT_SAMPLES

    _common(p)
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


def _parse_pair(text: str) -> tuple[list, list]:
    parts = text.split(":")
    if len(parts) != 2:
        raise InputError(f"--pair must be two count vectors separated by ':', e.g. 50,50:49,51; got {text!r}")
    return _number_list(parts[0], "--pair"), _number_list(parts[1], "--pair")


def cmd_audit(args) -> None:
    """``dpposterior audit``: JSON keys epsilon_lower_bound, estimate, confidence, samples, pair, event,
    exact_concrete_epsilon (a public contract), plus extras."""
    from .audit import _check_delta_at, check_confidence, check_events, check_samples
    from .mechanism_audit import audit_mechanism

    params = _params(args)
    n = validate.size(validate.parse_number(args.n, "n"))
    a = _prior_arg(args.prior)
    samples = check_samples(_int(args.samples, "--samples"), "samples")
    confidence = check_confidence(_float(args.confidence, "--confidence"))
    n_events = check_events(_int(args.events, "--events"), "--events")
    delta_at = _check_delta_at(None if args.delta_at is None else _float(args.delta_at, "--delta-at"), "--delta-at")
    seed = _seed(args.seed)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    pair = None if args.pair is None else _parse_pair(args.pair)
    res = audit_mechanism(prior=a, n=n, pair=pair, search=args.search, samples=samples, confidence=confidence,
                          seed=seed, n_events=n_events, delta_at=delta_at, progress=sys.stderr.isatty(), **params)
    out = {
        "epsilon_lower_bound": res.epsilon_lower_bound, "estimate": res.estimate, "confidence": res.confidence,
        "samples": res.samples, "pair": res.pair, "event": res.event,
        "exact_concrete_epsilon": res.exact_concrete_epsilon,
        "claimed": dict(zip(("epsilon", "delta"), _claim(params))),
        "event_upper_bound": res.event_upper_bound, "pairs_tested": res.pairs_tested, "n_events": res.n_events,
        "mechanism": params["mechanism"], "seed": seed,
        "above_nominal_epsilon": res.epsilon_lower_bound > params["epsilon"],
    }
    if res.delta is not None:
        out["delta_at"] = res.delta
    if args.json:
        _dump(out)
        return
    claim = out["claimed"]
    claim_text = "no claim" if claim["epsilon"] is None else f"claimed ({claim['epsilon']:g}, {claim['delta']:g})-DP"
    exceeds = claim["epsilon"] is not None and claim["delta"] == 0 and res.epsilon_lower_bound > claim["epsilon"]
    print(f"empirical privacy loss of {params['mechanism']} (prior {a.tolist()}, n {n}) at pair "
          f"{res.pair[0]} vs {res.pair[1]}, {res.samples} samples per side, seed {seed}:")
    nominal = (f"  ABOVE THE NOMINAL EPS {params['epsilon']:g}" if claim["epsilon"] is None
               and out["above_nominal_epsilon"] else "")
    print(f"  lower bound {res.epsilon_lower_bound:.4f} at confidence {res.confidence:g}  [{claim_text}]"
          + ("  EXCEEDS THE CLAIM" if exceeds else "") + nominal)
    print(f"  estimate {res.estimate:.4f} on the held-out event ({res.event['kind']}, "
          f"{res.event.get('rule') or str(res.event['size']) + ' outputs'}); pairs tested {res.pairs_tested}")
    if res.exact_concrete_epsilon is not None:
        print(f"  exact concrete epsilon of this pair {res.exact_concrete_epsilon:.4f}")
    if res.delta is not None:
        print(f"  delta({res.delta['epsilon']:g}): lower bound {res.delta['lower_bound']:.4g}, "
              f"estimate {res.delta['estimate']:.4g}")


# ---------------------------------------------------------------------------------------------
# accuracy and compare (expected error over every data set of size n)


def add_accuracy(p: argparse.ArgumentParser) -> None:
    """print the exact expected Hellinger error: worst case over data sets of size n and prior-predictive average"""
    _common(p)
    p.add_argument("--n", required=True, help="data-set size n")
    _beyond_flags(p)


def cmd_accuracy(args) -> None:
    from .accuracy import expected_errors

    params = _params_beyond(args)
    n = validate.size(validate.parse_number(args.n, "n"))
    a = _prior_arg(args.prior)
    e = expected_errors(prior=a, n=n, **params)
    out = e.as_dict()
    if args.json:
        _dump(out)
        return
    print(f"# exact expected Hellinger error of {out['mechanism']} (prior {a.tolist()}, n {n}, eps {params['epsilon']:g})")
    print(f"worst case: {e.worst:.6f} at counts {e.worst_counts}")
    print(f"average under the prior predictive: {e.average:.6f}")
    if e.calibration is not None:
        print(f"calibration: factor {e.calibration.factor:.6g}, certified concrete eps {e.calibration.concrete_epsilon:.10g}")


def add_compare(p: argparse.ArgumentParser) -> None:
    """rank every mechanism (calibrated and optimal included) by worst-case and average expected error"""
    p.add_argument("--prior", required=True, metavar="A1,A2,...", help="Dirichlet prior a, e.g. 1,1")
    p.add_argument("--n", required=True, help="data-set size n")
    p.add_argument("--epsilon", required=True, metavar="EPS", help="privacy parameter eps")
    p.add_argument("--delta", default=str(DEFAULT_DELTA), metavar="D", help="delta for mh-delta (default 1e-8)")
    p.add_argument("--json", action="store_true", help="print JSON")


def compare_rows(a, n: int, epsilon: float, delta: float) -> list[dict]:
    """One row per release (each mechanism; calibrated exponential ones; optimal worst and average), ranked by worst case.

    A release too large for exact work gets a row with ``"error"`` (its one-line size error) instead of numbers.
    """
    from .accuracy import expected_errors
    from .errors import SizeError

    variants = []
    for mech in MECHANISMS.values():
        if mech.family == "optimal":
            variants += [(mech, dict(objective="worst")), (mech, dict(objective="average"))]
            continue
        variants.append((mech, {}))
        if mech.calibratable:
            variants.append((mech, dict(calibrate=True)))
    out = []
    for mech, extra in variants:
        label = mech.id + (" (calibrated)" if extra.get("calibrate") else "") + (
            f" ({extra['objective']})" if "objective" in extra else "")
        ce, cd = mech.claimed(epsilon, delta, extra.get("calibrate", False))
        claim = "none" if ce is None else (f"({ce:g}, {cd:g})-DP" if cd else f"{ce:g}-DP")
        row = {"release": label, "claim": claim}
        try:
            e = expected_errors(mech.id, a, n, epsilon=epsilon, delta=delta, **extra)
        except SizeError as exc:
            row["error"] = " ".join(str(exc).split())
        else:
            row.update(worst_expected_error=e.worst, worst_counts=e.worst_counts, average_expected_error=e.average)
            if e.calibration is not None:
                row["calibration"] = e.calibration.as_dict()
        out.append(row)
    return sorted(out, key=lambda r: (r.get("worst_expected_error", math.inf), r["release"]))


def cmd_compare(args) -> None:
    n = validate.size(validate.parse_number(args.n, "n"))
    a = _prior_arg(args.prior)
    epsilon = validate.epsilon(_float(args.epsilon, "epsilon"))
    delta = validate.delta(_float(args.delta, "delta"))
    rows = compare_rows(a, n, epsilon, delta)
    if args.json:
        _dump({"prior": a.tolist(), "n": n, "epsilon": epsilon, "releases": rows})
        return
    avg_rank = {r["release"]: i + 1 for i, r in enumerate(
        sorted((r for r in rows if "error" not in r), key=lambda r: r["average_expected_error"]))}
    print(f"# expected Hellinger error of every release (prior {a.tolist()}, n {n}, eps {epsilon:g}), "
          "ranked by worst case")
    print(f"{'release':<26} {'claim':<16} {'worst':>9} {'rank':>4} {'average':>9} {'rank':>4}  worst data set")
    for i, r in enumerate(rows):
        if "error" in r:
            print(f"{r['release']:<26} {r['claim']:<16} too large for exact work: {r['error']}")
            continue
        print(f"{r['release']:<26} {r['claim']:<16} {r['worst_expected_error']:9.4f} {i + 1:4d} "
              f"{r['average_expected_error']:9.4f} {avg_rank[r['release']]:4d}  {r['worst_counts']}")
    print("(ehdl claims no privacy; calibrated releases are pure eps-DP by exact computation)")


# ---------------------------------------------------------------------------------------------
# the dispatch table

#: Every sub-command: name -> (function adding its arguments; its first docstring line is the
#: help text, handler receiving the parsed arguments).
COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], None]]] = {
    "pmf": (add_pmf, cmd_pmf),
    "privacy": (add_privacy, cmd_privacy),
    "release": (add_release, cmd_release),
    "audit": (add_audit, cmd_audit),
    "posterior": (add_posterior, cmd_posterior),
    "accuracy": (add_accuracy, cmd_accuracy),
    "compare": (add_compare, cmd_compare),
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = _Parser(prog="dpposterior", description="Differentially private posteriors tailored to the Hellinger distance.")
    parser.add_argument("--version", action="version", version=f"dpposterior {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    for name, (add_arguments, handler) in COMMANDS.items():
        about = (add_arguments.__doc__ or "").strip().splitlines()[0] if add_arguments.__doc__ else None
        p = sub.add_parser(name, help=about, description=about)
        add_arguments(p)
        p.set_defaults(handler=handler)
    return parser


_VALUE_FLAGS = {"--prior", "--counts", "--at", "--pair", "--categories", "--epsilon", "--delta", "--gamma", "--n",
                "--seed", "--delta-at", "--samples", "--confidence", "--events", "--top"}


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
            raise InputError("a command is required: " + ", ".join(COMMANDS))
        args.handler(args)
    except InputError as exc:
        print(f"dpposterior: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except MemoryError:
        print("dpposterior: error: out of memory; the exact computation is too large for this machine", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dpposterior: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
