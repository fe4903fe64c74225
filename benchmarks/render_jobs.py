"""CPU of render jobs as a local run does them (the job server and the kernel server), two trees one after the other.

    python benchmarks/render_jobs.py --run /path/to/a/completed/run --trees <old>/src src \
        --items fig2=score_change frontier=frontier which-to-use=which_to_use --reps 3 [--out FILE.json]

For each tree (its ``src`` on PYTHONPATH) and repetition, in a scratch copy of the run's root (its Snakefile,
config.yaml, the tree's notebooks, the run's results linked read-only but for the render outputs): start both
servers as the Snakefile does, run each item's render command (``python -m dpposterior.paper render ...``), and read
the workers' CPU lines (``jobserver.CPU_LINE``: the kernel worker's, then the stage worker's).  Prints the mean per
job and tree, and whether each output file is byte-identical to the run's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

OUTPUTS = ("figures/{i}.png", "figures/{i}.pdf", "figures/{i}.csv", "figures/{i}.md", "figures/{i}.tex",
           "results/verdicts/{i}.csv", "results/captions/{i}.txt", "results/notebooks/{i}.ipynb",
           "results/notebooks/{i}.html")

DRIVER = r"""
import os, re, subprocess, sys, json
from dpposterior.paper import jobserver
from dpposterior.paper.limits import apply
apply()
for n in jobserver.THREADS:
    os.environ[n] = "1"  # as Snakemake's shell sets them (else the server declines the job)
s, k = jobserver.start(), jobserver.start_kernels()
os.environ[jobserver.ENV], os.environ[jobserver.KERNEL_ENV] = s.socket, k.socket
out = {}
try:
    for item, template in json.loads(sys.argv[1]).items():
        cmd = [sys.executable, "-m", "dpposterior.paper", "render", "--template", f"notebooks/{template}.py",
               "--parameters", f"results/parameters/{item}.json", "--notebook", f"results/notebooks/{item}.ipynb",
               "--html", f"results/notebooks/{item}.html"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        out[item] = [p.returncode] + [float(x) for x in re.findall(r"worker cpu_seconds=([0-9.]+)", p.stderr)]
finally:
    jobserver.stop(s)
    jobserver.stop(k)
print(json.dumps(out))
"""


def scratch(run: Path, tree: Path) -> Path:
    root = Path(tempfile.mkdtemp(prefix="render-jobs-"))
    for name in ("Snakefile", "config.yaml"):
        shutil.copy(run / name, root / name)
    (root / "notebooks").symlink_to((tree.parent / "notebooks").resolve())
    (root / "figures").mkdir()
    (root / "results").mkdir()
    for d in (run / "results").iterdir():
        if d.name in ("notebooks", "captions", "verdicts"):
            (root / "results" / d.name).mkdir()
        else:
            (root / "results" / d.name).symlink_to(d)
    return root


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", type=Path, required=True)
    ap.add_argument("--trees", nargs="+", type=Path, required=True)
    ap.add_argument("--items", nargs="+", required=True, help="item=template")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    items = dict(x.split("=", 1) for x in a.items)
    cpu: dict = {}
    same: dict = {}
    for _ in range(a.reps):
        for tree in a.trees:
            root = scratch(a.run, tree)
            env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
            p = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(items)], cwd=root, env=env,
                               capture_output=True, text=True, check=True)
            for item, (rc, *workers) in json.loads(p.stdout.strip().splitlines()[-1]).items():
                cpu.setdefault(str(tree), {}).setdefault(item, []).append(workers)
                same.setdefault(str(tree), {})[item] = rc == 0 and all(
                    (root / f.format(i=item)).read_bytes() == (a.run / f.format(i=item)).read_bytes() for f in OUTPUTS)
            shutil.rmtree(root)
    summary = {}
    for tree, per in cpu.items():
        for item, runs in per.items():
            kernel = statistics.mean(r[0] for r in runs)
            stage = statistics.mean(r[1] for r in runs)
            summary.setdefault(tree, {})[item] = {"kernel": round(kernel, 3), "stage": round(stage, 3),
                                                  "runs": runs, "identical": same[tree][item]}
            print(f"{tree:40s} {item:14s} kernel {kernel:6.2f}  stage {stage:5.2f}  identical {same[tree][item]}")
    if a.out:
        a.out.write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
