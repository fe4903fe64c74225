"""The average's dual (:func:`dpposterior.lattice.yardstick.release_bound`) started from each computed row's errors.

Computes ``compare``'s rows once (:func:`dpposterior.ranking.plan_compare`, :func:`~dpposterior.ranking.compare_rows`,
cached in ``--cache`` as ``.npz``), then for each ``RADIUS:SCALES:STEPS[:MOST]`` variant and each computed row (or
``--rows``) runs ``release_bound`` from that row's errors in candidate order and records its certified value, its
LPs per evaluation and its CPU seconds (``resource.getrusage``), with the load average.

    python benchmarks/average_start_any.py --prior 1,1,1,1 --n 100 --epsilon 1 --out FILE.json 6:0.94,0.9:2 6:0.85:1
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import resource
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402

from dpposterior import ranking  # noqa: E402
from dpposterior.lattice import yardstick as blocks  # noqa: E402
from dpposterior.models import candidate_rank  # noqa: E402


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def rows_errors(a, n, eps, cache: str | None) -> dict[str, tuple[float, np.ndarray]]:
    """``{label: (average, E in candidate order)}`` of compare's computed rows over R(n)."""
    path = pathlib.Path(cache) / f"rows_{','.join(f'{x:g}' for x in a)}_{n}_{eps:g}.npz" if cache else None
    if path is not None and path.exists():
        z = np.load(path)
        return {k: (float(z[k][0]), z[k][1:]) for k in z.files}
    errors: dict = {}
    ranking.compare_rows(a, n, eps, errors=errors)
    N = math.comb(n + a.size - 1, a.size - 1)
    out = {}
    for label, e in errors.items():
        if len(e.counts) != N:
            continue
        E = np.zeros(N)
        E[candidate_rank(e.counts)] = e.expected
        out[label] = (float(e.average), E)
    if path is not None:
        np.savez(path, **{k: np.concatenate([[v[0]], v[1]]) for k, v in out.items()})
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--prior", required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--epsilon", type=float, required=True)
    p.add_argument("--cache", default=None)
    p.add_argument("--rows", default=None, help="comma-separated labels (default: every computed row)")
    p.add_argument("--out", required=True)
    p.add_argument("variants", nargs="+", metavar="RADIUS:SCALES:STEPS[:MOST]")
    args = p.parse_args(argv)
    a = np.array([float(x) for x in args.prior.split(",")])
    t0 = _cpu()
    rows = rows_errors(a, args.n, args.epsilon, args.cache)
    record = {"command": " ".join(["python", *sys.argv]), "rows_cpu_seconds": round(_cpu() - t0, 1),
              "rows": {k: v[0] for k, v in rows.items()}, "runs": []}
    labels = args.rows.split(",") if args.rows else sorted(rows)
    for variant in args.variants:
        parts = variant.split(":")
        radius, scales, steps = int(parts[0]), tuple(float(s) for s in parts[1].split(",")), int(parts[2])
        most = int(parts[3]) if len(parts) > 3 else None
        for label in labels:
            load = os.getloadavg()[0]
            t0 = _cpu()
            fb = blocks.release_bound(a, args.n, args.epsilon, rows[label][1], radius=radius, steps=steps,
                                      scales=scales, most=most)
            run = dict(start=label, start_average=rows[label][0], radius=radius, scales=scales, steps=steps, most=most,
                       bound=fb.average, values=fb.values, lps=fb.lps, cpu_seconds=round(_cpu() - t0, 2),
                       load=round(load, 1), best_over_bound=min(v[0] for v in rows.values()) / fb.average
                       if fb.average > 0 else None)
            record["runs"].append(run)
            print(json.dumps(run), flush=True)
            pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
