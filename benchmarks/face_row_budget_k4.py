"""Where the face row's time goes at k = 4 (Dir(1,1,1,1), eps 1), and how far a crude bound on the tied points' losses
is from the face rows' worst case: one process, this tree only.

The rest's errors (``lattice~average``'s, which the face row's plan counts): the batched local search by orbits over
``window(n, 4, We)`` (its CPU seconds; the points of its tied orbits, those ``_search`` gets with ``kept_columns``),
then :func:`dpposterior.lattice.batched.window_errors_any` (its CPU seconds).  Then the bound a route without the tied
points' search could state: ``E_B(c) <= E_B'(c) + M(c)`` with ``M(c) = sum_{w: c + w tied} K(w)`` (every loss in
[0, 1], so replacing a tied point's loss by 1 can only raise ``E``): the largest ``E_B`` against the largest ``E_B +
M`` and ``M`` at the worst data set.

    python benchmarks/face_row_budget_k4.py [--n 100] [--out benchmarks/face_row_budget_k4.json]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "face_row_budget_k4.json"))
    args = parser.parse_args(argv)
    import dpposterior.lattice.batched as B
    from dpposterior.lattice.noise import log_normaliser, tail_bound, window
    from dpposterior.lattice.remap import _ball
    from dpposterior.mechanisms.lattice import LOCAL_ERROR_TOL, _radius
    from dpposterior.models import candidate_rank, candidates

    n, eps = args.n, 1.0
    We = _radius(4, eps, LOCAL_ERROR_TOL)
    inner, tied = B._search, {}

    def record(*a, **kw):
        if kw.get("kept_columns"):
            tied["points"] = np.array(a[3], copy=True)
        return inner(*a, **kw)

    B._search = record
    load = os.getloadavg()[0]
    t = time.process_time()
    out = B.local_search_batch(np.ones(4), n, eps, window(n, 4, We), orbits=True)
    search = time.process_time() - t
    t = time.process_time()
    low = B.window_errors_any(np.ones(4), n, eps, out, We).low
    errors = time.process_time() - t
    R = candidates(n, 4)
    ball = _ball(4, We)
    kw = np.exp(-eps * (np.abs(ball).sum(axis=1) // 2) - log_normaliser(4, eps))
    M = np.zeros(len(R))
    for z in tied.get("points", np.zeros((0, 4), dtype=np.int64)):
        c = z[None, :] - ball
        ok = np.all(c >= 0, axis=1)
        np.add.at(M, candidate_rank(c[ok]), kw[ok])
    i, j = int(np.argmax(low)), int(np.argmax(low + M))
    row = {"n": n, "epsilon": eps, "We": We, "load_before": round(load, 2), "search_cpu_s": round(search, 1),
           "window_errors_cpu_s": round(errors, 1), "tied_points": int(len(tied.get("points", ()))),
           "worst_E_B": float(low.max()), "worst_at": R[i].tolist(), "tied_mass_at_worst": float(M[i]),
           "worst_with_tied_losses_1": float((low + M).max()), "that_at": R[j].tolist(), "tied_mass_max": float(M.max()),
           "tail": float(tail_bound(4, eps, We)),
           "outputs_sha256": hashlib.sha256(np.ascontiguousarray(out).tobytes()).hexdigest()}
    print(json.dumps(row))
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": "python benchmarks/face_row_budget_k4.py " + " ".join(sys.argv[1:] if argv is None else argv),
           "rows": [row]}
    pathlib.Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
