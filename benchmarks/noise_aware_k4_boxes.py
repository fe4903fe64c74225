"""``release --prior 1,1,1,1 --counts C --mechanism optimal --noise-aware --epsilon EPS`` at k = 4 for releases away
from the centre of R(n) (the box stay certificate's grids fitted to the counts, :func:`dpposterior.mechanisms.lattice.
_box_certified`), old tree against new, side by side in one run: each command in its own child process (CPU seconds
and peak memory from ``os.wait4``), one at a time, with the new tree's plan of the posterior (planned seconds and
bytes, made from public n, k, eps: a release at the centre) beside them.

    python benchmarks/noise_aware_k4_boxes.py OLD_SRC [--out benchmarks/noise_aware_k4_boxes.json]
        [--counts 1000,2000,3000,4000 500,3000,3000,3500 2500,2500,2500,2500] [--eps 0.25]

``OLD_SRC``: the old tree's ``src`` (e.g. a clone at 4abe9cf); the new tree is this file's.  The seed is fixed, so
the released output is the same in both trees; the posterior must be the same floats.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def timed(src: str, counts: str, objective: str, eps: float) -> dict:
    """Run in a child with ``os.wait4``'s usage (the child's own CPU and peak)."""
    argv = [sys.executable, "-m", "dpposterior", "release", "--prior", "1,1,1,1", "--counts", counts, "--mechanism",
            "optimal", "--objective", objective, "--epsilon", f"{eps:g}", "--seed", "7", "--noise-aware", "--json"]
    env = os.environ | {"PYTHONPATH": src, "OMP_NUM_THREADS": "1"}
    start = time.monotonic()
    r, w = os.pipe()
    e_r, e_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the command, its output into the pipes
        os.dup2(w, 1)
        os.dup2(e_w, 2)
        os.chdir(ROOT)
        os.execve(sys.executable, argv, env)
    os.close(w)
    os.close(e_w)
    with os.fdopen(r, "rb") as fo, os.fdopen(e_r, "rb") as fe:
        out = fo.read()
        err = fe.read()
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    rec = {"status": code, "wall_s": round(time.monotonic() - start, 1),
           "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "peak_mb": round(usage.ru_maxrss / 1024, 1)}
    if code == 0:
        doc = json.loads(out.decode())
        post = doc["noise_aware"]
        rec |= {"released": doc.get("released_counts"), "route": post.get("route"),
                "dropped_mass_bound": post["dropped_mass_bound"], "mean": [round(x, 6) for x in post["mean"]]}
    else:
        lines = [x for x in err.decode().strip().splitlines() if "warning" not in x]
        rec["refusal"] = lines[-1] if lines else ""
    return rec


def planned(n: int, objective: str, eps: float) -> dict:
    """The new tree's plan of the posterior (route, seconds, GiB), from public inputs only."""
    sys.path.insert(0, str(ROOT / "src"))
    from dpposterior.mechanisms.spec import ReleaseSpec

    spec = ReleaseSpec.of("optimal", eps, objective=objective)
    plan = spec.mechanism.plan_posterior((1, 1, 1, 1), n, spec)
    return {"route": plan.route, "planned_s": round(plan.seconds, 1), "planned_gib": round(plan.memory_bytes / 2**30, 2),
            "refused": plan.refused()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old_src")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "noise_aware_k4_boxes.json"))
    ap.add_argument("--counts", nargs="+", default=["1000,2000,3000,4000", "500,3000,3000,3500",
                                                     "2500,2500,2500,2500"])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.25])
    ap.add_argument("--objectives", nargs="+", default=["average"])
    args = ap.parse_args()
    rows = []
    for eps in args.eps:
        for counts in args.counts:
            n = sum(int(x) for x in counts.split(","))
            for objective in args.objectives:
                old = timed(args.old_src, counts, objective, eps)
                new = timed(str(ROOT / "src"), counts, objective, eps)
                row = {"counts": counts, "n": n, "eps": eps, "objective": objective, "old": old, "new": new,
                       "same_posterior": old.get("mean") == new.get("mean")
                       and old.get("dropped_mass_bound") == new.get("dropped_mass_bound"),
                       "plan": planned(n, objective, eps)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    doc = {"what": "release --prior 1,1,1,1 --counts C --mechanism optimal --noise-aware --epsilon EPS --seed 7",
           "argv": sys.argv[1:],
           "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "load_after": [round(x, 1) for x in os.getloadavg()], "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
