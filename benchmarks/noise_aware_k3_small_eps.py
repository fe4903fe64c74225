"""``release --noise-aware --json`` (optimal, k = 3, small eps) in two trees side by side: CPU s, peak memory, exit
code, the plan's refusal line and the output's hash.

    python benchmarks/noise_aware_k3_small_eps.py --old OLD/src --new src \\
        --out benchmarks/noise_aware_k3_small_eps.json 17,17,16:0.1:average:new,old 100,100,100:0.1:average:new,old

Each cell is ``COUNTS:EPS:OBJECTIVE:ORDER`` at Dir(1,1,1), seed 1; ``rCOUNTS:...`` runs ``posterior --released
COUNTS --n sum(COUNTS) --json`` instead (the posterior of that fixed release: at the centre, next to a face or to a
vertex).  Each call in its own process under ``nice``
(``--nice``, 10 unless given; ``PYTHONPATH`` that tree's ``src``), timed with ``os.wait4`` (user + system CPU s,
``ru_maxrss``), first with the default limits (planned: run or refused), then, where refused, again with
``DPPOSTERIOR_MAX_SOLVE_SECONDS=1000`` (the same code, its limit raised) so that outputs can be compared, and with
``--lift-old-rule`` where the old tree still refuses, once more through :data:`LIFT` (``lifted``: its rule below eps
0.12 lifted); ``sha256``: the first 16 hex digits of the JSON printed.
The load average before each call is recorded, and each tree's plan of the call (``plan``: its route, CPU seconds, the
seconds held to the solve limit and bytes, from public prior, n, eps and objective, computed in a process of its own
with the limit raised).  Writes ``--out`` after every call.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

#: ``python -m dpposterior`` with the old tree's rule that refused the local column below eps 0.12 from n = 51
#: (``whole_column_unplanned``, gone in the new tree) lifted, so that the old tree's output there can be compared
#: (``--lift-old-rule``): the same code otherwise.
LIFT = r"""
import sys
import dpposterior.mechanisms.lattice as L
if hasattr(L, "whole_column_unplanned"):
    L.whole_column_unplanned = lambda *a, **k: ""
from dpposterior.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def run(src: str, counts: str, eps: str, objective: str, raised: bool, lifted: bool = False, nice: int = 10) -> dict:
    """One ``release --noise-aware --json`` with ``PYTHONPATH=src``: its record (``lifted``: through :data:`LIFT`)."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    if raised:
        env["DPPOSTERIOR_MAX_SOLVE_SECONDS"] = "1000"
    load = os.getloadavg()[0]
    head = ["-c", LIFT] if lifted else ["-m", "dpposterior"]
    if counts.startswith("r"):  # the posterior of a fixed release
        tail = ["posterior", "--prior", "1,1,1", "--released", counts[1:], "--n",
                str(sum(int(c) for c in counts[1:].split(","))), "--mechanism", "optimal", "--objective", objective,
                "--epsilon", eps, "--json"]
    else:
        tail = ["release", "--prior", "1,1,1", "--counts", counts, "--mechanism", "optimal", "--objective", objective,
                "--epsilon", eps, "--noise-aware", "--seed", "1", "--json"]
    with tempfile.TemporaryFile("w+b") as out_f, tempfile.TemporaryFile("w+b") as err_f:
        t0 = time.monotonic()
        proc = subprocess.Popen(["nice", "-n", str(nice), sys.executable, *head, *tail], env=env, stdout=out_f,
                                stderr=err_f)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read().decode()
    rec = record(counts, eps, objective, raised, usage, status, wall, load, out, err)
    rec["lifted"] = lifted
    return rec


def record(counts: str, eps: str, objective: str, raised: bool, usage, status: int, wall: float, load: float,
           out: bytes, err: str, timed_out: bool = False) -> dict:
    """One call's record: CPU s and peak of the child (``os.wait4``'s ``usage``), exit code, the output's hash, the
    last error line or the released counts; ``timed_out``: stopped before it ended (no hash)."""
    rec = dict(counts=counts, epsilon=float(eps), objective=objective, raised=raised,
               cpu_seconds=round(usage.ru_utime + usage.ru_stime, 1), peak_mb=round(usage.ru_maxrss / 1024),
               wall=round(wall, 1), load_before=round(load, 1), rc=os.waitstatus_to_exitcode(status),
               sha256=hashlib.sha256(out).hexdigest()[:16] if out and not timed_out else None)
    if timed_out:
        rec["timed_out"] = True
    elif rec["rc"] != 0:
        rec["error"] = err.strip().splitlines()[-1] if err.strip() else ""
    else:
        rec["released"] = json.loads(out).get("released_counts", counts[1:] if counts.startswith("r") else None)
    return rec


#: the plan of one call, as JSON (a tree's src first on the path; the limit raised so that a refused plan states its
#: seconds)
PLAN = r"""
import json, sys
import numpy as np
from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
n, eps, objective = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
spec = ReleaseSpec.of("optimal", eps, objective=objective)
p = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(int(sys.argv[4])), n)
print(json.dumps({"route": p.route, "seconds": round(float(p.seconds), 2),
                  "limited": round(float(dict(p.costs).get("DPPOSTERIOR_MAX_SOLVE_SECONDS", 0.0)), 2),
                  "bytes": float(p.memory_bytes)}))
"""


def plan(src: str, counts: str, eps: str, objective: str) -> dict:
    """The plan of one call in the tree ``src`` (:data:`PLAN`)."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src), DPPOSTERIOR_MAX_SOLVE_SECONDS="1e5")
    counts = counts.lstrip("r")
    n, k = sum(int(c) for c in counts.split(",")), len(counts.split(","))
    return json.loads(subprocess.run([sys.executable, "-c", PLAN, str(n), eps, objective, str(k)], env=env, check=True,
                                     capture_output=True, text=True).stdout)


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("--nice", type=int, default=10, help="the calls' niceness (CPU s are counted either way)")
    ap.add_argument("--lift-old-rule", action="store_true",
                    help="where the old tree refuses with its limit raised, run it again with LIFT")
    ap.add_argument("cells", nargs="+")
    args = ap.parse_args()
    doc = dict(command=" ".join([os.path.basename(sys.argv[0]), *sys.argv[1:]]),
               date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), runs=[])
    for cell in args.cells:
        counts, eps, objective, order = cell.split(":")
        for tree in order.split(","):
            src = args.new if tree == "new" else args.old
            rec = run(src, counts, eps, objective, False, nice=args.nice)
            rec["tree"] = tree
            rec["plan"] = plan(src, counts, eps, objective)
            doc["runs"].append(rec)
            print(json.dumps(rec), flush=True)
            if rec["rc"] != 0:
                again = run(src, counts, eps, objective, True, nice=args.nice)
                again["tree"] = tree
                again["plan"] = rec["plan"]
                doc["runs"].append(again)
                print(json.dumps(again), flush=True)
                if again["rc"] != 0 and tree == "old" and args.lift_old_rule:
                    lift = run(src, counts, eps, objective, True, lifted=True, nice=args.nice)
                    lift["tree"] = tree
                    lift["plan"] = rec["plan"]
                    doc["runs"].append(lift)
                    print(json.dumps(lift), flush=True)
            with open(args.out, "w") as f:
                json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
