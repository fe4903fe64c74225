"""``release --mechanism optimal --noise-aware --epsilon 0.25`` at k = 4 (Dir(1,1,1,1), the data set at the centre of
R(n)), old tree against new, side by side in one run: each command in its own child process (CPU seconds and peak
memory from ``os.wait4``), one at a time; and the new tree's plan of the posterior (planned seconds and bytes) beside
what its column took (:meth:`LatticeMechanism._local_column`, in-process, CPU seconds).

    python benchmarks/noise_aware_k4_quarter.py OLD_SRC [--out benchmarks/noise_aware_k4_quarter.json] [--n 10 100 10000]

``--eps`` and ``--objectives`` choose other settings (the cells the cut route also takes: eps 1, 30).
``OLD_SRC``: the old tree's ``src`` (e.g. a clone at 8b1866a); the new tree is this file's.
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


def counts(n: int) -> str:
    base = [n // 4] * 4
    base[-1] += n - sum(base)
    return ",".join(map(str, base))


def run_release(src: str, counts_csv: str, objective: str, eps: float) -> dict:
    """``release --prior 1,1,1,1 --counts COUNTS_CSV --mechanism optimal --noise-aware`` with the tree at ``src``, in a
    child process with ``os.wait4``'s usage (the child's own CPU and peak): its status, wall and CPU seconds, peak MB,
    and the released counts, route, dropped-mass bound and mean of the posterior (or the refusal's line)."""
    argv = [sys.executable, "-m", "dpposterior", "release", "--prior", "1,1,1,1", "--counts", counts_csv,
            "--mechanism", "optimal", "--objective", objective, "--epsilon", f"{eps:g}", "--seed", "7", "--noise-aware",
            "--json"]
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


def timed(src: str, n: int, objective: str, eps: float = 0.25) -> dict:
    """:func:`run_release` at the centre of R(n), its record led by the setting."""
    return {"n": n, "eps": eps, "objective": objective} | run_release(src, counts(n), objective, eps)


def planned(n: int, objective: str, eps: float = 0.25) -> dict:
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
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "noise_aware_k4_quarter.json"))
    ap.add_argument("--n", type=int, nargs="+", default=[10, 100, 10_000])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.25])
    ap.add_argument("--objectives", nargs="+", default=["average", "worst"])
    args = ap.parse_args()
    rows = []
    for eps in args.eps:
        for n in args.n:
            for objective in args.objectives:
                old = timed(args.old_src, n, objective, eps)
                new = timed(str(ROOT / "src"), n, objective, eps)
                row = {"n": n, "eps": eps, "objective": objective, "old": old, "new": new,
                       "same_posterior": old.get("mean") == new.get("mean")
                       and old.get("dropped_mass_bound") == new.get("dropped_mass_bound")}
                if new["status"] == 0:
                    row["plan"] = planned(n, objective, eps)
                rows.append(row)
                print(json.dumps(row), flush=True)
    loads = os.getloadavg()
    doc = {"what": "release --prior 1,1,1,1 --counts (centre) --mechanism optimal --noise-aware --epsilon EPS --seed 7",
           "argv": sys.argv[1:],
           "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "load_after": [round(x, 1) for x in loads], "rows": rows}
    pathlib.Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
