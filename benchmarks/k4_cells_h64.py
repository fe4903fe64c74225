"""The k = 4 cells of ``compare`` at Dir(1,1,1,1): CPU seconds, peak memory and both ratios (best release over the
yardstick, worst case and average), one call at a time.

Each cell ``N:EPS`` runs ``dpposterior compare --prior 1,1,1,1 --n N --epsilon EPS --json`` in its own process with
``PYTHONPATH`` = ``--src`` (:func:`compare_side.run`: CPU = user + system of the child, peak = its ``ru_maxrss``,
the load before).  ``--record FILE.json`` adds calls already made (a ``compare --json`` output kept beside its
``cpu_seconds``, ``peak_mb`` and ``load_before``: ``--record-meta``), so a long call is not run twice.  Appends to
``--out`` (one row per call: tree, n, eps, CPU s, MB, the best worst case and average with their releases, the
yardstick and how it was bounded, the ratios, and the worst case's data set).

    python benchmarks/k4_cells_h64.py --src src --tree new --cells 10:0.5 20:0.5 [--out benchmarks/k4_cells_h64.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from compare_side import run  # noqa: E402


def summary(out: dict) -> dict:
    """The best rows of one ``compare --json`` output over its yardstick."""
    rows = [r for r in out["releases"] if "error" not in r]
    worst = min(rows, key=lambda r: r["worst_expected_error"])
    average = min(rows, key=lambda r: r["average_expected_error"])
    y = out.get("yardstick") or {}
    res = dict(best_worst=worst["worst_expected_error"], best_worst_release=worst["release"],
               worst_counts=worst.get("worst_counts"), worst_route=worst.get("route"),
               best_average=average["average_expected_error"], best_average_release=average["release"],
               left_out=sorted(r["release"] for r in out["releases"] if "error" in r))
    if isinstance(y, dict) and "worst" in y:
        res.update(yardstick_worst=y["worst"], yardstick_average=y["average"], worst_bound=y["worst_bound"],
                   average_bound=y["average_bound"], worst_ratio=round(worst["worst_expected_error"] / y["worst"], 4),
                   average_ratio=round(average["average_expected_error"] / y["average"], 4))
    return res


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--src", default=str(ROOT / "src"))
    p.add_argument("--tree", default="new", help="a name for --src in the rows (old, new, a commit)")
    p.add_argument("--cells", nargs="*", default=[], metavar="N:EPS")
    p.add_argument("--record", help="a compare --json output already made")
    p.add_argument("--record-meta", help="its JSON: tree, n, epsilon, cpu_seconds, peak_mb, load_before, how")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "k4_cells_h64.json"))
    args = p.parse_args(argv)
    doc = json.loads(pathlib.Path(args.out).read_text()) if os.path.exists(args.out) else {
        "what": __doc__.splitlines()[0], "calls": []}
    todo = []
    if args.record:
        todo.append((json.loads(args.record_meta), json.loads(pathlib.Path(args.record).read_text())))
    for cell in args.cells:
        n, eps = cell.split(":")
        rec, out = run(args.src, "1,1,1,1", int(n), float(eps))
        meta = {"tree": args.tree, **{k: rec[k] for k in ("n", "epsilon", "cpu_seconds", "peak_mb", "load_before",
                                                           "rc", "sha256", "stderr_tail")}}
        todo.append((meta, json.loads(out) if rec["rc"] == 0 else None))
    for meta, out in todo:
        row = dict(meta, date=datetime.date.today().isoformat())
        if out is not None:
            row.update(summary(out))
        doc["calls"].append(row)
        print(json.dumps(row), flush=True)
        pathlib.Path(args.out).write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
