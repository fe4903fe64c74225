"""Speed and memory of ``optimal`` at k = 2 (geometric + remap, docs/definitions.md §9-§10): a markdown table.

    PYTHONPATH=src python benchmarks/optimal.py [--n 10000] [--big 1000000] [--eps 1]

Each row runs in its own process (so its peak RSS is its own), side by side in one run:
* ``accuracy`` of ``optimal~average`` at k = 2, n = ``--n`` through :func:`dpposterior.accuracy.expected_errors`
  (what ``dpposterior accuracy`` calls): target <= 10 s;
* the same for ``optimal~worst``, plus its certificate (gap <= 1e-4): target <= 60 s;
* ``python -m dpposterior.cli release ... --mechanism optimal`` at n = ``--big`` (the whole padded command):
  the default objective ``worst`` (the end-window minimax remap, ``dpposterior.mechanisms.optimal``, "the worst
  objective at large n"; target <= 2 s) and ``--objective average`` (target <= 2 s).
Peak memory: the child's maximum resident set size (GNU time's ``%M``, else ``RUSAGE_CHILDREN``), target <= 2 GB.
The ``ok`` column: exit status 0, wall within the target and peak within 2 GB.  The machine is shared: the
load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

#: The memory target of every row (2 GB).
PEAK_MB = 2048

CHILD = r"""
import json, resource, sys, time
from dpposterior.accuracy import expected_errors
from dpposterior.mechanisms import MECHANISMS, resolve
n, eps, objective = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
t = time.perf_counter()
e = expected_errors("optimal", [1, 1], n, epsilon=eps, objective=objective)
out = {"wall": time.perf_counter() - t, "worst": e.worst, "average": e.average}
if objective == "worst":
    _, p = resolve("optimal", eps, objective="worst")
    sol = MECHANISMS["optimal"]._solution((1.0, 1.0), n, p)
    out.update(lower=sol.lower, upper=sol.upper, gap=sol.gap)
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run(cmd: list[str]) -> tuple[float, float, float, str, int]:
    """``(wall s, cpu s, peak MB, last output line, exit status)`` of one child (peak: its own, via GNU time
    when available, else the running maximum over children)."""
    import resource
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    timed = os.path.exists("/usr/bin/time")
    full = (["/usr/bin/time", "-f", "PEAK_KB %M"] if timed else []) + cmd
    p = subprocess.run(full, capture_output=True, text=True, env=os.environ.copy())
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    err = [x for x in p.stderr.splitlines() if not x.startswith(("PEAK_KB", "Command exited"))]
    peaks = [int(x.split()[1]) for x in p.stderr.splitlines() if x.startswith("PEAK_KB")]
    peak = peaks[-1] / 1024 if peaks else r1.ru_maxrss / 1024
    lines = p.stdout.strip().splitlines() or err or [""]
    return wall, cpu, peak, lines[-1], p.returncode


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--big", type=int, default=1_000_000)
    ap.add_argument("--eps", type=float, default=1.0)
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    rows = []
    for objective, target in (("average", 10), ("worst", 60)):
        wall, cpu, peak, line, rc = run([sys.executable, "-c", CHILD, str(args.n), str(args.eps), objective])
        res = json.loads(line) if rc == 0 else {}
        note = (f"worst {res['worst']:.6f}, average {res['average']:.6f}" if res else line)
        if "gap" in res:
            note += f"; certificate lower {res['lower']:.8f} upper {res['upper']:.8f} gap {res['gap']:.1e}"
        if res and objective == "worst" and not res["gap"] <= 1e-4:
            rc = 1  # the certificate is part of the target
        rows.append((f"accuracy optimal~{objective}, k = 2, n = {args.n:g}", wall, cpu, peak, target, note, rc))
    half = args.big // 2
    for objective, target in (("worst", 2), ("average", 2)):
        cmd = [sys.executable, "-m", "dpposterior.cli", "release", "--prior", "1,1", "--counts",
               f"{half},{args.big - half}", "--mechanism", "optimal", "--epsilon", f"{args.eps:g}"]
        if objective == "average":
            cmd += ["--objective", "average"]
        wall, cpu, peak, line, rc = run(cmd)
        label = "default objective (worst)" if objective == "worst" else "--objective average"
        name = f"release optimal, {label}, k = 2, n = {args.big:g} (whole command, padded)"
        rows.append((name, wall, cpu, peak, target, f"exit {rc}: {line[:110]}", rc))
    print(f"k = 2, Beta(1, 1), eps = {args.eps:g}\n")
    print(f"load average: {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end, on {os.cpu_count()} cores\n")
    print("| step | wall s | cpu s | peak MB | target s | ok | result |")
    print("|---|---:|---:|---:|---:|---|---|")
    for name, wall, cpu, peak, target, note, rc in rows:
        ok = "yes" if rc == 0 and wall <= target and peak <= PEAK_MB else "NO"
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {peak:.0f} | {target} | {ok} | {note} |")


if __name__ == "__main__":
    main()
