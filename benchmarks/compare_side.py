"""``dpposterior compare --json`` of two trees side by side: CPU seconds, peak memory and the output's hash.

    python benchmarks/compare_side.py --old /path/to/old/src --new src --out benchmarks/compare_h60.json \\
        1,1,1:1000:0.5:old,new 1,1,1,1:100:1:new,old

Each cell is ``PRIOR:N:EPS:ORDER`` (ORDER: which tree runs first).  One call at a time, each in its own process under
``nice`` (``PYTHONPATH`` set to that tree's ``src``), timed with ``os.wait4``: CPU seconds = user + system of the child,
peak = its ``ru_maxrss``; ``sha256``: the first 16 hex digits of the JSON it printed (the same digits: byte-identical
output).  The load average before each call is recorded (the host may be shared).  Writes ``--out`` after every call.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time


def run(src: str, prior: str, n: int, eps: float, extra: tuple[str, ...] = ()) -> tuple[dict, bytes]:
    """One ``compare --json`` with ``PYTHONPATH=src`` (then ``extra``): its record and its output."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.abspath(src), *extra]))
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+b") as out_f, tempfile.TemporaryFile("w+b") as err_f:
        t0 = time.monotonic()
        proc = subprocess.Popen(["nice", sys.executable, "-m", "dpposterior", "compare", "--prior", prior, "--n", str(n),
                                 "--epsilon", f"{eps:g}", "--json"], env=env, stdout=out_f, stderr=err_f)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read().decode()
    return dict(prior=prior, n=n, epsilon=eps, cpu_seconds=round(usage.ru_utime + usage.ru_stime, 1),
                user=round(usage.ru_utime, 1), system=round(usage.ru_stime, 1), peak_mb=round(usage.ru_maxrss / 1024),
                wall=round(wall, 1), load_before=round(load, 1), rc=os.waitstatus_to_exitcode(status),
                sha256=hashlib.sha256(out).hexdigest()[:16], stderr_tail=err.strip()[-300:]), out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old", required=True, help="the old tree's src")
    p.add_argument("--new", required=True, help="the new tree's src")
    p.add_argument("--out", required=True)
    p.add_argument("--keep", help="a folder for each call's JSON output")
    p.add_argument("--path", action="append", default=[],
                   help="a folder put after each tree's src on PYTHONPATH (a dependency the environment lacks)")
    p.add_argument("cells", nargs="+", metavar="PRIOR:N:EPS:ORDER")
    args = p.parse_args(argv)
    trees = {"old": args.old, "new": args.new}
    calls = []
    for cell in args.cells:
        prior, n, eps, order = cell.split(":")
        for tree in order.split(","):
            rec, out = run(trees[tree], prior, int(n), float(eps), tuple(args.path))
            rec = {"tree": tree} | rec
            if args.keep:
                with open(os.path.join(args.keep, f"{tree}_{prior}_{n}_{eps}.json"), "wb") as f:
                    f.write(out)
            calls.append(rec)
            print(json.dumps(rec), flush=True)
            with open(args.out, "w") as f:
                json.dump({"what": "dpposterior compare --json, old against new side by side (module docstring)",
                           "command": " ".join(["python", "benchmarks/compare_side.py"] + sys.argv[1:]),
                           "date": datetime.date.today().isoformat(), "calls": calls}, f, indent=1)


if __name__ == "__main__":
    main()
