"""The average's dual started from a baseline's errors at k = 4: certified bound, CPU seconds and peak per setting.

    python benchmarks/baseline_start_k4.py --n 100 --eps 0.5 --out benchmarks/baseline_start_k4.json \\
        8:0.55:4304 10:0.55:4000 12:0.35,0.42,0.47,0.55:0

Each cell is ``RADIUS:SCALES:MOST`` (``lattice.yardstick.release_bound`` at that radius, one evaluation per scale,
the LPs of the ``MOST`` largest deficits).  The baseline's errors (``lszhang``, Dir(1,1,1,1), over R(n) in candidate
order) are computed once in a first child and kept in ``--cache``; every cell then runs in its own child process,
timed with ``os.wait4`` (CPU = user + system, peak = ``ru_maxrss``, which includes the errors read back).  The load
average before each call is recorded.  Writes ``--out`` after every call.
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

ERRORS = r"""
import sys, numpy as np
from dpposterior import ranking
from dpposterior.models import candidate_rank
a, n, eps, out = np.ones(4), int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
plans = [p for p in ranking.plan_compare(a, n, eps) if p.variant.label == "lszhang"]
errors = {}
ranking.compare_rows(a, n, eps, plans=plans, errors=errors)
e = errors["lszhang"]
E = np.zeros(len(e.counts))
E[candidate_rank(e.counts)] = e.expected
np.save(out, E)
print(e.average)
"""

CELL = r"""
import json, sys, numpy as np
from dpposterior.lattice import yardstick as ys
n, eps, path, radius, scales, most = sys.argv[1:]
scales = tuple(float(f) for f in scales.split(","))
fb = ys.release_bound(np.ones(4), int(n), float(eps), np.load(path), radius=int(radius), steps=len(scales),
                      scales=scales, most=int(most))
print(json.dumps({"bound": fb.average, "values": list(fb.values), "lps": list(fb.lps)}))
"""


def child(code: str, args: list[str], env: dict) -> tuple[str, dict]:
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([sys.executable, "-c", code, *args], env=env, stdout=out)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        text = out.read()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"child failed: {args}")
    return text, dict(cpu_seconds=round(usage.ru_utime + usage.ru_stime, 1), peak_mb=round(usage.ru_maxrss / 1024),
                      load_before=round(load, 1))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--src", default=str(pathlib.Path(__file__).resolve().parents[1] / "src"))
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--eps", type=float, default=0.5)
    p.add_argument("--cache", default=None, help="the baseline's errors (.npy); computed when absent")
    p.add_argument("--out", required=True)
    p.add_argument("cells", nargs="+", metavar="RADIUS:SCALES:MOST")
    args = p.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(args.src))
    cache = args.cache or os.path.join(tempfile.gettempdir(), f"lszhang_k4_{args.n}_{args.eps:g}.npy")
    record = {"what": __doc__.splitlines()[0], "command": " ".join(sys.argv), "n": args.n, "epsilon": args.eps,
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "calls": []}
    if not os.path.exists(cache):
        text, rec = child(ERRORS, [str(args.n), str(args.eps), cache], env)
        record["baseline"] = {"release": "lszhang", "average": float(text.strip().splitlines()[-1])} | rec
    for cell in args.cells:
        radius, scales, most = cell.split(":")
        text, rec = child(CELL, [str(args.n), str(args.eps), cache, radius, scales, most], env)
        record["calls"].append({"radius": int(radius), "scales": scales, "most": int(most)}
                               | json.loads(text.strip().splitlines()[-1]) | rec)
        pathlib.Path(args.out).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(record["calls"][-1]), flush=True)


if __name__ == "__main__":
    main()
