"""Where a pipeline run's CPU goes: per rule and per job, the start-up every job pays, and Snakemake's own process.

    PYTHONPATH=src python benchmarks/pipeline_cpu.py run [--out FILE] -- SNAKEMAKE_ARGS...
    PYTHONPATH=src python benchmarks/pipeline_cpu.py jobs RESULTS_DIR [--top 15]
    PYTHONPATH=src python benchmarks/pipeline_cpu.py startup [--against OTHER/src] [--reps 10]
    PYTHONPATH=src python benchmarks/pipeline_cpu.py pieces --tree RUN_COPY [--against OTHER/src] [--reps 3] [--out F]

``run`` runs ``snakemake SNAKEMAKE_ARGS`` (e.g. ``--cores 2 --configfile workflow/quick.yaml``) in this checkout,
with this interpreter's directory first on ``PATH``, and prints its CPU seconds (user + system of Snakemake and
every process under it, ``resource.getrusage``), Snakemake's own process (its ``/proc/PID/stat`` user + system,
sampled every 0.2 s until it exits: the DAG, the scheduler, the Snakefile's config checks; its jobs are its
children and not counted there), the rest (the jobs, the ``parameters`` rule's shells), and then ``jobs`` of its
results directory (``--results``, default ``results/quick`` if ``workflow/quick.yaml`` is among the arguments,
else ``results``).  With ``--out`` it also writes these numbers as JSON.

``jobs`` reads Snakemake's benchmark files (``RESULTS_DIR/benchmarks/**.tsv``, one per job; column ``cpu_time``,
the user + system seconds that Snakemake's sampler saw in the job's process tree, and ``s``, its wall time), adds
the CPU a job server's workers reported in the job's log (``dpposterior.paper.jobserver``: a worker, and a render
job's forked kernel, are not in the job's process tree), and prints CPU seconds per rule (the first folder under
``benchmarks/``; ``privacy_slice`` for a split entry's slices) and the costliest jobs.  The sampler misses a job's
last moments, so short in-process jobs are undercounted: the sum is below ``run``'s total less Snakemake's own.

``startup`` measures what a job pays before it starts, per kind of job: the imports of its entry
(``python -m dpposterior.paper <stage>`` builds the stage CLI, then imports the computations of its stage and
pyarrow's parquet writer) in a process that then exits, and a whole render job (papermill, a kernel, nbconvert)
of a notebook whose only code is the imports of a notebook template's first cell.  Each is run ``--reps`` times,
with ``--against`` alternating with another checkout's ``src`` (e.g. a worktree of an earlier commit), and the
table gives the mean CPU seconds (user + system of the child and its children).  Times the jobs per rule of a
``jobs`` table, these give the start-up share of a run.

``pieces`` measures whole jobs as Snakemake runs them, children included (a render job's kernel, which the
benchmark files undercount): in ``--tree``, a copy of a checkout whose quick run has finished (its jobs rewrite
their outputs there), it takes each job's shell command from ``snakemake -n -p --forceall`` of the quick config and
runs the cheapest job of each stage (by its benchmark file) and the render job of ``--item``, then Snakemake's own
process: ``snakemake -n`` and ``snakemake --cores 2`` with nothing to do, each of the quick config (measured
first: the jobs then rewrite their outputs, which leaves the items after them out of date).  Each is run
``--reps`` times under this checkout's ``src`` (and ``--against``'s, alternately); the table gives the mean CPU
seconds (user + system of the command and all its children).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

from dpposterior.paper.jobserver import worker_usage

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")

#: a stage job's entry: the stage CLI, then what its runner imports (the same text runs under either tree)
ENTRY = "import dpposterior.paper.__main__ as m; m.build_parser(); "
STARTUP = {
    "a stage job (data, runs, privacy, pmf, audit, sensitivity)":
        ENTRY + "import pandas, pyarrow.parquet, dpposterior.paper.experiments",
    "expected_error job": ENTRY + "import pandas, pyarrow.parquet, dpposterior.paper.experiments, dpposterior.paper.beyond",
    "coverage job": ENTRY + "import pandas, pyarrow.parquet, dpposterior.paper.experiments, dpposterior.paper.coverage",
    "verdicts / index job": ENTRY + "import dpposterior.paper.report",
    "a notebook kernel's imports (in the kernel, part of render)":
        "import matplotlib.pyplot, numpy, pandas; from dpposterior.paper import claims, items, style, tables, variants",
}

#: the render job's notebook: the template's parameters cell and the first cell's imports, no work
TEMPLATE = """# %% tags=["parameters"]
item = "startup"
inputs = {}
outputs = {}

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables, variants
"""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def own_cpu(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` itself (all its threads, not its children); None if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS


def env_for(src: str) -> dict:
    return os.environ | {"PYTHONPATH": src, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


# ---- jobs


def job_table(results: Path) -> list[dict]:
    rows = []
    for f in sorted((results / "benchmarks").rglob("*.tsv")):
        rel = f.relative_to(results / "benchmarks")
        rule = rel.parts[0].removesuffix(".tsv")
        if rule == "privacy" and rel.stem.startswith("n") and rel.stem[1:].isdigit():
            rule = "privacy_slice"
        with f.open() as fh:
            rec = next(csv.DictReader(fh, delimiter="\t"))
        row = {"rule": rule, "job": str(rel.with_suffix("")), "cpu": float(rec["cpu_time"]), "s": float(rec["s"]),
               "max_rss": float(rec["max_rss"]), "worker": False}
        # a job the job server ran: its benchmark file sampled the client only; the worker's own CPU is the log's last
        # line, and a render's forked kernel has one more (dpposterior.paper.jobserver.CPU_LINE; their max_rss counts
        # the server's pages they share)
        log = results / "logs" / rel.with_suffix(".log")
        usage = worker_usage(log.read_text(errors="replace")) if log.is_file() else None
        if usage is not None:
            row |= {"cpu": row["cpu"] + usage["cpu_seconds"], "max_rss": max(row["max_rss"], usage["max_rss_kb"] / 1024),
                    "worker": True}
        rows.append(row)
    return rows


def print_jobs(results: Path, top: int) -> dict:
    rows = job_table(results)
    if not rows:
        sys.exit(f"no benchmark files under {results / 'benchmarks'}")
    by_rule: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_rule[r["rule"]].append(r)
    total = sum(r["cpu"] for r in rows)
    served = sum(r["worker"] for r in rows)
    print(f"\nCPU s per rule, from {len(rows)} benchmark files under {results}/benchmarks (Snakemake's sampler; "
          f"{served} jobs ran in a job server's worker, their CPU from the log's last line):\n")
    print("| rule | jobs | cpu s | share | cpu s per job (mean) | slowest job (cpu s) |")
    print("|---|---|---|---|---|---|")
    summary = {}
    for rule, rs in sorted(by_rule.items(), key=lambda kv: -sum(r["cpu"] for r in kv[1])):
        cpu = sum(r["cpu"] for r in rs)
        worst = max(rs, key=lambda r: r["cpu"])
        summary[rule] = {"jobs": len(rs), "cpu": round(cpu, 1)}
        print(f"| {rule} | {len(rs)} | {cpu:.1f} | {cpu / total:.0%} | {cpu / len(rs):.2f} | "
              f"{worst['job']} ({worst['cpu']:.1f}) |")
    print(f"| all | {len(rows)} | {total:.1f} | | | |")
    print(f"\nThe {top} costliest jobs:\n")
    print("| job | cpu s | wall s | peak MB |")
    print("|---|---|---|---|")
    for r in sorted(rows, key=lambda r: -r["cpu"])[:top]:
        print(f"| {r['job']} | {r['cpu']:.1f} | {r['s']:.1f} | {r['max_rss']:.0f} |")
    return {"rules": summary, "jobs_cpu": round(total, 1), "jobs": len(rows), "jobs_in_a_worker": served}


# ---- run


def run(args) -> None:
    smk = args.snakemake[1:] if args.snakemake[:1] == ["--"] else args.snakemake
    results = Path(args.results or ("results/quick" if "workflow/quick.yaml" in smk else "results"))
    cpu0, t0 = children_cpu(), time.monotonic()
    proc = subprocess.Popen(["snakemake", *smk], cwd=ROOT, env=env_for(str(ROOT / "src")))
    own = [0.0]

    def sample():
        while proc.poll() is None:
            c = own_cpu(proc.pid)
            if c is not None:
                own[0] = c
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    rc = proc.wait()
    sampler.join()
    wall, cpu = time.monotonic() - t0, children_cpu() - cpu0
    print(f"snakemake {' '.join(smk)}: exit {rc}, {wall:.0f} s wall, {cpu:.1f} CPU s in all; Snakemake's own "
          f"process {own[0]:.1f} CPU s; its jobs and shells {cpu - own[0]:.1f} CPU s")
    record = {"command": "snakemake " + " ".join(smk), "returncode": rc, "wall_seconds": round(wall, 1),
              "cpu_seconds": round(cpu, 1), "snakemake_own_cpu_seconds": round(own[0], 1),
              "load_after": [round(x, 2) for x in os.getloadavg()]}
    record |= print_jobs(ROOT / results, args.top)
    if args.out:
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n")


# ---- startup


def timed(cmd: list[str], src: str, cwd: str | None = None) -> float:
    before = children_cpu()
    proc = subprocess.run(cmd, env=env_for(src), cwd=cwd, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"failed under {src}: {' '.join(cmd)}\n{proc.stderr.strip()[-2000:]}")
    return children_cpu() - before


def startup(args) -> None:
    here = str(ROOT / "src")
    trees = [args.against, here] if args.against else [here]
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / "startup.py"
        template.write_text(TEMPLATE)
        params = Path(tmp) / "parameters.json"
        params.write_text(json.dumps({"item": "startup", "inputs": {}, "outputs": {}}))
        cases = {name: [sys.executable, "-c", code] for name, code in STARTUP.items()}
        cases["a render job of a notebook that only imports (papermill, kernel, nbconvert)"] = [
            sys.executable, "-m", "dpposterior.paper", "render", "--template", str(template), "--parameters",
            str(params), "--notebook", str(Path(tmp) / "nb.ipynb"), "--html", str(Path(tmp) / "nb.html")]
        cases["python itself (-c pass)"] = [sys.executable, "-c", "pass"]
        if args.against:
            print(f"| start-up of | cpu s ({args.against}) | cpu s (this) | change |")
            print("|---|---|---|---|")
        else:
            print("| start-up of | cpu s |")
            print("|---|---|")
        for name, cmd in cases.items():
            if args.only not in name:
                continue
            for src in trees:  # one warm-up each (compiled bytecode, page cache)
                timed(cmd, src, cwd=str(ROOT))
            got = {src: [] for src in trees}
            for _ in range(args.reps):
                for src in trees:  # alternating, so load on the shared machine falls on both alike
                    got[src].append(timed(cmd, src, cwd=str(ROOT)))
            mean = {src: sum(v) / len(v) for src, v in got.items()}
            if args.against:
                a, b = mean[args.against], mean[here]
                print(f"| {name} | {a:.3f} | {b:.3f} | {b - a:+.3f} ({(b - a) / a:+.0%}) |", flush=True)
            else:
                print(f"| {name} | {mean[here]:.3f} |", flush=True)


# ---- pieces

QUICK = ["--configfile", "workflow/quick.yaml"]


def job_commands(tree: Path, src: str) -> dict[str, str]:
    """Each python job's shell command, by its benchmark file's name under results/quick/benchmarks (no suffix)."""
    out = subprocess.run(["snakemake", "-n", "-p", "--forceall", *QUICK], cwd=tree, env=env_for(src),
                         capture_output=True, text=True, check=True).stdout
    cmds = {}
    for line in out.splitlines():
        line = line.strip().removeprefix("Shell command: ")
        if line.startswith("python -m dpposterior.paper "):
            stage = line.split()[3]
            args = line.split()
            key = [args[i + 1] for i, a in enumerate(args) if a in ("--experiment", "--mechanism")]
            if stage == "render":
                key = [Path(args[args.index("--notebook") + 1]).stem]
            cmds["/".join([stage, *key])] = line
    return cmds


def pieces(args) -> None:
    tree = Path(args.tree).resolve()
    here = str(ROOT / "src")
    trees = [args.against, here] if args.against else [here]
    cmds = job_commands(tree, here)
    bench = {r["job"]: r for r in job_table(tree / "results/quick")}
    # Snakemake first: the jobs below rewrite their outputs, which leaves the items after them out of date
    cases = {"snakemake -n (quick config, nothing to do)": ["snakemake", "-n", *QUICK],
             "snakemake --cores 2 (quick config, nothing to do)": ["snakemake", "--cores", "2", *QUICK]}
    for stage in args.stages.split(","):
        known = [j for j in bench if j.startswith(stage + "/") and j in cmds]
        if known:
            cheapest = min(known, key=lambda j: bench[j]["cpu"])
            cases[f"{cheapest} (benchmark file {bench[cheapest]['cpu']:.2f})"] = ["bash", "-c", cmds[cheapest]]
    item = f"render/{args.item}"
    cases[f"{item} (benchmark file {bench[item]['cpu']:.2f})"] = ["bash", "-c", cmds[item]]
    head = f"| piece | cpu s ({args.against}) | cpu s (this) | change |" if args.against else "| piece | cpu s |"
    print(head)
    print("|---|---|---|---|" if args.against else "|---|---|")
    record = {"tree": str(tree), "against": args.against, "reps": args.reps, "pieces": {}}
    for name, cmd in cases.items():
        got = {src: [] for src in trees}
        for _ in range(args.reps):
            for src in trees:  # alternating, so load on the shared machine falls on both alike
                got[src].append(timed(cmd, src, cwd=str(tree)))
        mean = {src: sum(v) / len(v) for src, v in got.items()}
        record["pieces"][name] = {("against" if src == args.against else "this"): round(m, 3) for src, m in mean.items()}
        if args.against:
            a, b = mean[args.against], mean[here]
            print(f"| {name} | {a:.2f} | {b:.2f} | {b - a:+.2f} ({(b - a) / a:+.0%}) |", flush=True)
        else:
            print(f"| {name} | {mean[here]:.2f} |", flush=True)
    record["load_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.out:
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run", help="run snakemake and say where its CPU went")
    p.add_argument("--out", help="also write the numbers here (JSON)")
    p.add_argument("--results", help="the run's results directory (default: from the config)")
    p.add_argument("--top", type=int, default=15)
    p.add_argument("snakemake", nargs=argparse.REMAINDER)
    p = sub.add_parser("jobs", help="CPU s per rule and per job from a results directory's benchmark files")
    p.add_argument("results")
    p.add_argument("--top", type=int, default=15)
    p = sub.add_parser("startup", help="what each kind of job pays before it starts")
    p.add_argument("--against", help="another checkout's src directory, measured alternately")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--only", default="", help="cases whose name contains this")
    p = sub.add_parser("pieces", help="whole jobs (children included) and Snakemake's own process, in a finished run")
    p.add_argument("--tree", required=True, help="a copy of a checkout whose quick run has finished (rewritten)")
    p.add_argument("--against", help="another checkout's src directory, measured alternately")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--stages", default="data,pmf,runs,privacy,sensitivity,coverage,audit,expected_error")
    p.add_argument("--item", default="fig4", help="the item whose render job is measured")
    p.add_argument("--out", help="also write the numbers here (JSON)")
    args = ap.parse_args()
    if args.cmd == "pieces":
        pieces(args)
    elif args.cmd == "run":
        run(args)
    elif args.cmd == "jobs":
        print_jobs(Path(args.results), args.top)
    else:
        startup(args)


if __name__ == "__main__":
    main()
