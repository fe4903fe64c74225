"""How often a forked notebook kernel ends without its CPU line: renders through the kernel server, counted.

    PYTHONPATH=src python benchmarks/kernel_teardown.py [--against OTHER/src] [--renders 150] [--out FILE]

Starts a kernel server (:func:`dpposterior.paper.jobserver.start` with the kernel entry and preload, as the
Snakefile does) over this checkout's ``src``, and, with ``--against``, a second one over the other checkout's;
then runs ``--renders`` render jobs of a small notebook (a figure, a print: the job server test's template) through
each, alternating, every render in-process with its kernel forked.  A render is *bad* if it fails, if its log holds
no kernel worker's CPU line (:func:`dpposterior.paper.jobserver.worker_usage`), or if libzmq's abort message
("Assertion failed") is in it.  Before :func:`dpposterior.paper.jobserver.kernel_main` joined ipykernel's control
thread, a control thread still publishing on IOPub raced the exit's socket close, about once in a hundred renders.
Prints, per tree, renders, bad, and the CPU seconds of the whole run; ``--out`` writes the same as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests" / "pipeline"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="another checkout's src, run in turn with this one's")
    parser.add_argument("--renders", type=int, default=150)
    parser.add_argument("--out")
    args = parser.parse_args()
    sys.path.insert(0, str(TESTS))
    import test_jobserver as t  # the job server test's job environment and template

    from dpposterior.paper import jobserver
    from dpposterior.paper.render import KERNEL_ENVIRONMENT

    trees = {"this": str(HERE.parent / "src")} | ({"against": args.against} if args.against else {})

    def env(src: str, **extra) -> dict:
        return t.job_env(**extra) | {"PYTHONPATH": os.pathsep.join([src, str(TESTS)])}

    servers = {name: jobserver.start(entry=jobserver.KERNEL_ENTRY, modules=jobserver.KERNEL_PRELOAD,
                                     env=env(src) | KERNEL_ENVIRONMENT) for name, src in trees.items()}
    folder = Path(tempfile.mkdtemp(prefix="kernel-teardown-"))
    (folder / "t.py").write_text(t.TEMPLATE)
    (folder / "p.json").write_text(json.dumps({"item": "probe", "inputs": {}, "outputs": {}}))
    got = {name: {"src": src, "renders": 0, "bad": 0, "cpu_seconds": 0.0} for name, src in trees.items()}
    try:
        for i in range(args.renders):
            for name, src in trees.items():
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                proc = subprocess.run([sys.executable, "-m", "dpposterior.paper", "render", "--template",
                                       str(folder / "t.py"), "--parameters", str(folder / "p.json"), "--notebook",
                                       str(folder / f"{name}.ipynb"), "--html", str(folder / f"{name}.html")],
                                      env=env(src, **{jobserver.KERNEL_ENV: servers[name].socket}),
                                      capture_output=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                log = proc.stderr.decode(errors="replace")
                usage = jobserver.worker_usage(log)
                bad = proc.returncode != 0 or not usage or "Assertion failed" in log
                row = got[name]
                row["renders"] += 1
                row["bad"] += bad
                row["cpu_seconds"] += (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                                       + (usage or {}).get("cpu_seconds", 0.0))
                if bad:
                    print(f"{name} render {i}: bad (status {proc.returncode}): {log[-300:]!r}", flush=True)
    finally:
        for server in servers.values():
            jobserver.stop(server)
    for name, row in got.items():
        print(f"{name:8s} {row['src']}: {row['renders']} renders, {row['bad']} bad, {row['cpu_seconds']:.1f} CPU s")
    if args.out:
        Path(args.out).write_text(json.dumps({"renders": args.renders, "trees": got}, indent=1) + "\n")


if __name__ == "__main__":
    main()
