"""A second solve of the average's dual at Dir(1,1,1,1), n = 100, eps = 0.5 from the first solve's multipliers: is
there a larger radius or another evaluation that certifies more in what ``compare`` leaves (~40 s)?

    python benchmarks/second_solve_k4.py --out benchmarks/second_solve_k4.json 10:0 12:0 10:2000 12:1000 step:0.01 step:0.1

The first child computes ``lszhang``'s errors over R(n) (what ``compare`` starts from) and runs ``compare``'s first
solve (``release_bound`` at radius 8, one evaluation at ``BASELINE_SCALES``, the 4,304 largest deficits' LPs), keeping
the errors and its multipliers in ``--cache``.  Each cell then runs in its own child: ``RADIUS:MOST`` is one
evaluation of ``column_bound`` (flows first) from those multipliers at that radius with the ``MOST`` largest deficits'
LPs; ``step:RATE`` is the first solve again with a second evaluation (one Polyak step at that rate), its CPU the
whole call's.  CPU = user + system of the child (``os.wait4``), peak = its ``ru_maxrss``; the load before each call.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import tempfile

FIRST = r"""
import json, sys, numpy as np
from dpposterior import ranking
from dpposterior.models import candidate_rank
from dpposterior.lattice import yardstick as ys
a, n, eps, cache = np.ones(4), 100, 0.5, sys.argv[1]
plans = [p for p in ranking.plan_compare(a, n, eps) if p.variant.label == "lszhang"]
errors = {}
ranking.compare_rows(a, n, eps, plans=plans, errors=errors)
e = errors["lszhang"]
E = np.zeros(len(e.counts))
E[candidate_rank(e.counts)] = e.expected
np.save(cache + "/E.npy", E)
fb = ys.release_bound(a, n, eps, E, radius=8, steps=1, scales=ys.BASELINE_SCALES, most=4304)
np.save(cache + "/mu.npy", fb.mu)
print(json.dumps({"release_average": e.average, "bound": fb.average, "lps": list(fb.lps)}))
"""

CELL = r"""
import json, sys, numpy as np
from dpposterior.lattice import yardstick as ys
a, n, eps, cache, what, value = np.ones(4), 100, 0.5, sys.argv[1], sys.argv[2], sys.argv[3]
if what == "step":
    fb = ys.release_bound(a, n, eps, np.load(cache + "/E.npy"), radius=8, steps=2, scales=ys.BASELINE_SCALES,
                          most=4304, rate=float(value))
else:
    fb = ys.column_bound(a, n, eps, np.load(cache + "/mu.npy"), radius=int(what), steps=1, primal=True, flows=True,
                         most=int(value))
print(json.dumps({"bound": fb.average, "values": list(fb.values), "lps": list(fb.lps)}))
"""


def child(code: str, args: list[str]) -> dict:
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=out)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        text = out.read()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"child failed: {args}")
    return {**json.loads(text.strip().splitlines()[-1]), "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_mb": round(usage.ru_maxrss / 1024), "load_before": round(load, 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--cache", default=tempfile.gettempdir())
    parser.add_argument("cells", nargs="+")
    args = parser.parse_args(argv)
    rows = [{"cell": "first", **child(FIRST, [args.cache])}]
    for cell in args.cells:
        what, value = cell.split(":")
        rows.append({"cell": cell, **child(CELL, [args.cache, what, value])})
        print(json.dumps(rows[-1]), flush=True)
        pathlib.Path(args.out).write_text(json.dumps({"date": datetime.date.today().isoformat(),
                                                      "cores": os.cpu_count(), "rows": rows}, indent=1) + "\n",
                                          encoding="utf-8")


if __name__ == "__main__":
    main()
