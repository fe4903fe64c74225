"""What the commands print: strict JSON (whole, or streamed row by row), exact numbers, shared text.

JSON output never contains NaN or Infinity (``null``): :func:`json_safe` replaces them and every
writer passes ``allow_nan=False`` as a guard.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from decimal import Decimal

import numpy as np

from ..errors import shown_name

#: rows of a streamed JSON list written at once
STREAM_CHUNK = 4096


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


def json_text(obj) -> str:
    """Strict JSON text (``allow_nan=False`` guards against any NaN left behind)."""
    return json.dumps(json_safe(obj), indent=2, allow_nan=False)


def dump(obj) -> None:
    """Print strict JSON, all of it or (on an error while encoding) nothing."""
    print(json_text(obj))


def stream_json(head: dict, key: str, rows: Iterable[str]) -> None:
    """Write ``head`` as a JSON object whose last key ``key`` is a list of the pre-encoded JSON ``rows``,
    :data:`STREAM_CHUNK` rows at a time (memory stays flat however many rows there are).

    The layout is that of ``json.dumps(..., indent=2)`` with one row per line.  ``head`` must not be
    empty; the rows must already be strict JSON (no NaN or Infinity).
    """
    write = sys.stdout.write
    text = json.dumps(json_safe(head), indent=2, allow_nan=False)
    write(text[:-2] + f',\n  "{key}": [')
    sep = "\n    "
    lines = []
    for line in rows:
        lines.append(line)
        if len(lines) >= STREAM_CHUNK:
            write(sep + (",\n    ").join(lines))
            sep = ",\n    "
            lines.clear()
    if lines:
        write(sep + (",\n    ").join(lines))
    write("\n  ]\n}\n")


def print_chunked(lines: Iterable[str]) -> None:
    """Print text lines :data:`STREAM_CHUNK` at a time."""
    out = []
    for line in lines:
        out.append(line)
        if len(out) >= STREAM_CHUNK:
            print("\n".join(out))
            out.clear()
    if out:
        print("\n".join(out))


def exact_sum(a: float, m: int) -> str:
    """``a + m`` written exactly in decimal (the prior as given plus an integer count), e.g. ``5000001``."""
    s = Decimal(repr(float(a))) + int(m)
    if s == s.to_integral_value():
        return str(int(s))
    return format(s.normalize(), "f")


# ---------------------------------------------------------------------------------------------
# the noise-aware posterior (``posterior`` and ``release --noise-aware``)


def noise_aware_summary(post, naive: dict) -> dict:
    """The JSON body shared by ``posterior`` and ``release --noise-aware``."""
    return {"mean": post.mean.tolist(), "intervals": post.intervals.tolist(),
            "dropped_mass_bound": post.dropped_mass_bound, "route": post.route, "naive": naive}


def noise_aware_lines(post, naive: dict, categories=None) -> list[str]:
    """The text lines shared by ``posterior`` and ``release --noise-aware``."""
    names = [shown_name(x) for x in categories] if categories else [f"theta_{i + 1}" for i in range(len(naive["mean"]))]
    width = max(len(x) for x in names)
    lines = [f"noise-aware posterior ({post.mechanism}, eps = {post.epsilon:g}), {post.level:g} equal-tailed "
             "intervals:"]
    for name, mean, (lo, hi), nmean, (nlo, nhi) in zip(names, post.mean, post.intervals, naive["mean"],
                                                         naive["intervals"], strict=False):
        lines.append(f"  {name:<{width}}  mean {mean:.4f}  [{lo:.4f}, {hi:.4f}]   "
                     f"(naive Dir(a + m): {nmean:.4f} [{nlo:.4f}, {nhi:.4f}])")
    return lines
