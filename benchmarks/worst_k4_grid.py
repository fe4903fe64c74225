"""The k = 4 worst case as ``dpposterior compare`` prints it: the best release's worst case over the certified
yardstick, at Dir(1,1,1,1), n = 3, 5, 10, 20, 30, 50, 100, eps = 0.5, 1, 2 (the issue's target: at most 1.15).

Each call is one ``compare --json`` in its own process (:func:`compare_grid.run`: CPU seconds and peak memory of the
child, ``os.wait4``); recorded per call: the first row of the worst-case ranking, its worst case, the yardstick's
worst bound and what it is, their ratio, the LP optimum's worst case where ``optimal (worst)`` runs (the loose side:
the release above the LP optimum, or the bound below it), and the worst routes left out with their one-line reasons.
``--src`` runs another tree's code (e.g. a clone of main) for a side-by-side run.  Writes
``benchmarks/worst_k4_grid.json`` (or ``--out``).

    python benchmarks/worst_k4_grid.py [--n 3,5,10,20,30,50,100] [--eps 0.5,1,2] [--src DIR/src] [--jobs 1] [--out F]
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
from compare_grid import run  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
TARGET = 1.15


def summary(got: dict) -> dict:
    """The worst-case ratio of one call as ``compare`` prints it (its first row over the yardstick's worst bound)."""
    out = {k: got[k] for k in ("n", "epsilon", "returncode", "cpu_seconds", "peak_mb", "wall_seconds", "load_before")}
    if got["returncode"]:
        out["error"] = got["error"]
        return out
    shown = got["shown"]
    first = got["first_worst"]
    yard = got.get("yardstick") or {}
    out.update(first_worst=first, worst=shown[first]["worst"], route=shown[first]["route"],
               bound=yard.get("worst"), bound_by=yard.get("worst_bound"))
    out["ratio"] = round(out["worst"] / out["bound"], 4) if out["bound"] else None
    out["met"] = out["ratio"] is not None and out["ratio"] <= TARGET
    lp = shown.get("optimal (worst)")
    if lp is not None and lp.get("route") not in (None, "corner remap"):
        # the LP optimum (where the window's LP runs): the release over it, the bound under it
        out["lp_worst"] = lp["worst"]
        out["release_over_lp"] = round(out["worst"] / lp["worst"], 4)
        out["lp_over_bound"] = round(lp["worst"] / out["bound"], 4) if out["bound"] else None
    out["left_out"] = {k: v for k, v in got["left_out"].items() if "worst" in k}
    return out


def write(args, calls: list[dict]) -> None:
    pathlib.Path(args.out).write_text(json.dumps({"date": datetime.date.today().isoformat(), "src": args.src,
                                                  "cores": os.cpu_count(), "load_after": round(os.getloadavg()[0], 2),
                                                  "calls": calls}, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="3,5,10,20,30,50,100")
    parser.add_argument("--eps", default="0.5,1,2")
    parser.add_argument("--src", default=str(ROOT / "src"))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "worst_k4_grid.json"))
    args = parser.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=args.src)
    todo = [(n, float(e)) for e in args.eps.split(",") for n in (int(x) for x in args.n.split(","))]
    done: list[dict] = []

    def one(call: tuple[int, float]) -> dict:
        got = summary(run((1, 1, 1, 1), call[0], call[1], env))
        done.append(got)
        write(args, sorted(done, key=lambda c: (c["epsilon"], c["n"])))  # each call recorded as it ends
        return got

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        calls = list(pool.map(one, todo))
    write(args, calls)
    for c in calls:
        what = c.get("error") or (f"{c['first_worst']:<18} {c['worst']:.5f} / {c['bound']:.5f} = {c['ratio']:.3f}"
                                  + (f"  (LP {c['lp_worst']:.5f})" if "lp_worst" in c else ""))
        print(f"n={c['n']:<4} eps={c['epsilon']:<4g} {c['cpu_seconds']:>6.1f} CPU s {c['peak_mb']:>5} MB  {what}")


if __name__ == "__main__":
    main()
