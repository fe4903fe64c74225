"""What a job pays with and without the job server (dpposterior.paper.jobserver), per kind of job.

    PYTHONPATH=src python benchmarks/jobserver.py [--reps 10] [--out benchmarks/jobserver.json]

Starts a job server (and a kernel server) as the Snakefile does, then runs, alternating, each case with the server
and in-process: ``python -m dpposterior.paper --help`` (the client's own cost: its process tree holds the client
only), a ``data`` job of three points, and a render job of a notebook that only imports what the templates import
and draws one figure (the kernel forked, or started by ``ipykernel_launcher``).  CPU seconds are user + system of
the client's process tree (``getrusage`` of children) plus, with the server, what the workers report
(``jobserver.CPU_LINE``); the servers' own start-up (their imports, paid once per run) is printed apart.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dpposterior.paper import jobserver
from dpposterior.paper.limits import apply

TEMPLATE = """# %% tags=["parameters"]
item = "bench"
inputs = {}
outputs = {}

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables, variants

# %%
fig, ax = plt.subplots()
ax.plot(np.arange(10) ** 2)
"""


def children_cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """(CPU s of the command's process tree, CPU s its workers reported)."""
    before = children_cpu()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return children_cpu() - before, jobserver.worker_cpu(proc.stderr) or 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--out")
    args = ap.parse_args()
    apply()
    for name in jobserver.THREADS:  # as Snakemake's shell sets them for a `threads: 1` job
        os.environ[name] = "1"
    c0, t0 = children_cpu(), time.monotonic()
    servers = {jobserver.ENV: jobserver.start(), jobserver.KERNEL_ENV: jobserver.start_kernels()}
    print(f"the two servers started in {time.monotonic() - t0:.1f} s wall")
    tmp = Path(tempfile.mkdtemp())
    (tmp / "t.py").write_text(TEMPLATE)
    (tmp / "p.json").write_text(json.dumps({"item": "bench", "inputs": {}, "outputs": {}}))
    py = [sys.executable, "-m", "dpposterior.paper"]
    spec = json.dumps({"kind": "n-series", "n": [10, 30, 100], "prior": [1, 1], "proportions": [0.5, 0.5]})
    cases = {"python -m dpposterior.paper --help": py + ["--help"],
             "a data job (3 points)": py + ["data", "--experiment", "x", "--spec", spec, "--out", str(tmp / "d.pq")],
             "a render job (imports, one figure)": py + ["render", "--template", str(tmp / "t.py"), "--parameters",
                                                         str(tmp / "p.json"), "--notebook", str(tmp / "n.ipynb"),
                                                         "--html", str(tmp / "n.html")],
             "python -c pass": [sys.executable, "-c", "pass"]}
    served = dict(os.environ, **{k: s.socket for k, s in servers.items()})
    record = {"reps": args.reps, "cases": {}}
    print("| job | in-process cpu s | with the server: client cpu s | + workers' cpu s | = cpu s | ratio |")
    print("|---|---|---|---|---|---|")
    for name, cmd in cases.items():
        got = {"in": [], "client": [], "workers": []}
        for _ in range(args.reps):
            got["in"].append(timed(cmd, dict(os.environ))[0])
            client, workers = timed(cmd, served)
            got["client"].append(client)
            got["workers"].append(workers)
        m = {k: sum(v) / len(v) for k, v in got.items()}
        total = m["client"] + m["workers"]
        record["cases"][name] = {k: round(v, 4) for k, v in m.items()}
        print(f"| {name} | {m['in']:.3f} | {m['client']:.3f} | {m['workers']:.3f} | {total:.3f} | "
              f"{total / m['in']:.2f} |", flush=True)
    before = children_cpu()
    for server in servers.values():
        jobserver.stop(server)
    stopped = children_cpu() - before  # the servers' imports and every worker they reaped
    workers = sum(sum(v for v in (c["workers"],)) for c in record["cases"].values()) * args.reps
    record["servers_own_cpu_seconds"] = round(stopped - workers, 2)
    record["load_after"] = [round(x, 2) for x in os.getloadavg()]
    print(f"the servers' own CPU (imports, forks; reaped at stop): {stopped - workers:.2f} s; "
          f"load {record['load_after']}; all children {children_cpu() - c0:.1f} s")
    if args.out:
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
