"""``release --noise-aware --json`` (optimal, k = 4, Dir(1,1,1,1), mid n) in two trees side by side: CPU s, peak
memory, exit code, the plan's refusal line and the output's hash.

    python benchmarks/noise_aware_k4_h73k4.py --old OLD/src --new src --out benchmarks/noise_aware_k4_h73k4.json \
        --raised 10,10,10,10:1:average 10,10,10,10:1:average:new,old ...
    python benchmarks/noise_aware_k4_h73k4.py --old OLD/src --new src --out benchmarks/noise_aware_k4_h76na4.json \
        --raised 4,4,4,4:0.25:average 4,4,4,4:0.25:average:new,old:1,2,3 ...

Each cell is ``COUNTS:EPS:OBJECTIVE:ORDER[:SEEDS]`` at Dir(1,...,1) (k = the number of counts), seed 1 unless
``SEEDS`` (e.g. ``1,2,3``: the call once a seed, each tree in ``ORDER``).  Each call in its own
process under ``nice -n NICE`` (``--nice``, 10 unless given; ``PYTHONPATH`` that tree's ``src``), timed with
``os.wait4`` (user + system CPU s,
``ru_maxrss``), with the default limits (planned: run or refused); a refused call is run again with
``DPPOSTERIOR_MAX_SOLVE_SECONDS=1000`` (the same code, its limit raised) only where the cell is named in ``--raised``
(``COUNTS:EPS:OBJECTIVE``), so that outputs can be compared, and stopped after ``--timeout`` seconds (recorded as
``timed_out``: the old tree could not finish there); ``sha256``: the first 16 hex digits of the JSON printed.  The
load average before each call is recorded, and each tree's plan of the call (``plan``: its route, CPU seconds, the
seconds held to the solve limit and bytes, from public prior, n, eps and objective, computed in a process of its own
with the limit raised).  Writes ``--out`` after every call.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402
from noise_aware_k3_small_eps import plan, record  # noqa: E402


def run(src: str, counts: str, eps: str, objective: str, raised: bool, timeout: float, nice: int = 10,
        seed: int = 1) -> dict:
    """One ``release --noise-aware --json`` with ``PYTHONPATH=src``: its record."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    if raised:
        env["DPPOSTERIOR_MAX_SOLVE_SECONDS"] = "1000"
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+b") as out_f, tempfile.TemporaryFile("w+b") as err_f:
        t0 = time.monotonic()
        prior = ",".join("1" for _ in counts.split(","))
        proc = subprocess.Popen(["nice", "-n", str(nice), sys.executable, "-m", "dpposterior", "release", "--prior",
                                 prior, "--counts",
                                 counts, "--mechanism", "optimal", "--objective", objective, "--epsilon", eps,
                                 "--noise-aware", "--seed", str(seed), "--json"], env=env, stdout=out_f, stderr=err_f)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > timeout:  # this process only (started here), then reaped
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                timed_out = True
                break
            time.sleep(0.2)
        wall = time.monotonic() - t0
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read().decode()
    rec = record(counts, eps, objective, raised, usage, status, wall, load, out, err, timed_out)
    rec["seed"] = seed
    return rec


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("cells", nargs="+")
    ap.add_argument("--raised", nargs="*", default=[], help="cells COUNTS:EPS:OBJECTIVE run again with the limit raised")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds a call may run (wall)")
    ap.add_argument("--nice", type=int, default=10, help="the calls' niceness (0 on a machine loaded by others)")
    args = ap.parse_args()
    doc = dict(command=" ".join([os.path.basename(sys.argv[0]), *sys.argv[1:]]),
               date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), runs=[])
    for cell in args.cells:
        counts, eps, objective, order, *seeds = cell.split(":")
        for seed, tree in [(int(s), t) for s in (seeds[0].split(",") if seeds else ["1"]) for t in order.split(",")]:
            src = args.new if tree == "new" else args.old
            rec = run(src, counts, eps, objective, False, args.timeout, args.nice, seed)
            rec["tree"] = tree
            rec["plan"] = plan(src, counts, eps, objective)
            doc["runs"].append(rec)
            print(json.dumps(rec), flush=True)
            if rec["rc"] != 0 and f"{counts}:{eps}:{objective}" in args.raised:
                again = run(src, counts, eps, objective, True, args.timeout, args.nice, seed)
                again["tree"] = tree
                again["plan"] = rec["plan"]
                doc["runs"].append(again)
                print(json.dumps(again), flush=True)
            with open(args.out, "w") as f:
                json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
