"""Markdown table of the JSON lines of ``benchmarks/run.py``.

    python benchmarks/run.py | python benchmarks/table.py
"""

from __future__ import annotations

import json
import sys


def fmt(x, spec=".3g"):
    return "" if x is None else format(x, spec)


def main() -> None:
    print("| case | size | R(n) | seconds | cpu s | baseline s | speedup | target s | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for line in sys.stdin:
        if not line.strip():
            continue
        d = json.loads(line)
        size = dict(d["size"])
        cands = size.pop("candidates", None)
        name = d["name"] + (f" {d['mechanism']}" if "mechanism" in d else "")
        print(f"| {name} | {', '.join(f'{k}={v:g}' for k, v in size.items())} | {fmt(cands, '.2g')} "
              f"| {fmt(d['seconds'])} | {fmt(d.get('cpu_seconds'))} | {fmt(d['baseline_seconds'])} "
              f"| {fmt(d['speedup'], 'g')} | {fmt(d['target_seconds'], 'g')} | {d.get('load', '')} |")


if __name__ == "__main__":
    main()
