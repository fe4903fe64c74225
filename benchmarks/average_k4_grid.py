"""``dpposterior compare`` at Dir(1,1,1,1): the average column as it prints it, best release / certified bound.

Each call runs as its own process (:func:`compare_grid.run`: ``compare ... --json``, CPU seconds and peak memory of
the child by ``os.wait4``).  For each call: the release of least average expected error among the rows computed, its
error, the yardstick's average bound and what it is (``average_bound``), their ratio (the issue's target: <= 1.20 at
n <= 100, eps 0.5, 1, 2), and the rows left out with their one-line reasons.  Writes
``benchmarks/average_k4_grid.json`` (or ``--out``).

    python benchmarks/average_k4_grid.py [--n 3,5,10,20,30,50,100] [--eps 0.5,1,2] [--jobs 1] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from compare_grid import ROOT, run  # noqa: E402

#: the issue's target for the average column at k = 4, n <= 100
TARGET_RATIO = 1.20


def average_ratio(got: dict) -> dict:
    """The average column of one call: best release, its error, the bound, the ratio (None where not computed)."""
    shown, yard = got.get("shown") or {}, got.get("yardstick")
    if not shown:
        return {"best_average": None, "ratio": None}
    best = min(shown, key=lambda label: (shown[label]["average"], label))
    row = {"best_average": best, "best_average_error": shown[best]["average"], "best_route": shown[best]["route"]}
    if isinstance(yard, dict) and yard.get("average"):
        row.update(bound=yard["average"], bound_by=yard.get("average_bound"),
                   ratio=round(shown[best]["average"] / yard["average"], 4))
    else:
        row.update(bound=None, bound_by=yard if isinstance(yard, str) else None, ratio=None)
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="3,5,10,20,30,50,100")
    parser.add_argument("--eps", default="0.5,1,2")
    parser.add_argument("--jobs", type=int, default=1, help="calls side by side")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "average_k4_grid.json"))
    args = parser.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    todo = [((1, 1, 1, 1), int(n), float(e)) for e in args.eps.split(",") for n in args.n.split(",")]
    calls: list[dict] = []

    def one(call: tuple) -> dict:
        try:
            got = run(*call, env)
        except IndexError:  # the child ended without a line on stderr (killed)
            got = {"prior": list(call[0]), "n": call[1], "epsilon": call[2], "error": "killed"}
        got.update(average_ratio(got))
        got["within_target"] = got["ratio"] is not None and got["ratio"] <= TARGET_RATIO
        calls.append(got)
        # written after every call, so a grid stopped part way keeps the calls it finished
        pathlib.Path(args.out).write_text(json.dumps({"date": datetime.date.today().isoformat(),
                                                      "cores": os.cpu_count(), "jobs": args.jobs,
                                                      "load_after": round(os.getloadavg()[0], 2), "calls": calls},
                                                     indent=1) + "\n", encoding="utf-8")
        return got

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:  # each call its own process; the threads only wait
        done = list(pool.map(one, todo))
    print(f"{'n':>4} {'eps':>4} {'CPU s':>6} {'MB':>5} {'ratio':>6}  best average / bound")
    for got in done:
        what = got.get("error") or f"{got['best_average']} / {got.get('bound_by')}"
        ratio = f"{got['ratio']:.3f}" if got["ratio"] is not None else "-"
        print(f"{got['n']:>4} {got['epsilon']:>4g} {got.get('cpu_seconds', 0):>6.1f} {got.get('peak_mb', 0):>5} "
              f"{ratio:>6}  {what}")
        for label, why in got.get("left_out", {}).items():
            if label.startswith(("lattice", "optimal")):
                print(f"{'':<30}left out: {label}: {why}")

if __name__ == "__main__":
    main()
