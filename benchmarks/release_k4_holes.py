"""``release --mechanism optimal`` at k = 4, Dir(1,1,1,1), counts (n/4, ...), side by side: the tree before and this
tree, one process per cell, one after the other (never two at once), CPU s (user + sys) and peak RSS of each by
``/usr/bin/time``, its exit status and the last line of its error, the load before each, and this tree's plans.

    python benchmarks/release_k4_holes.py --old OLD/src --new src --out benchmarks/release_k4_holes.json \\
        worst:10:0.5:aware average:10:0.5:aware worst:100:0.5:release ...

A cell is ``objective:n:eps:what``, ``what`` one of ``aware`` (``--noise-aware``) or ``release`` (the release alone);
a trailing ``:raised`` runs it with ``DPPOSTERIOR_MAX_SOLVE_SECONDS=200`` (the old tree's law where its default
refused).  Each run's JSON output is kept as its SHA-256 (``released_counts`` and the posterior's floats), so where
a release's law should not change the two trees' outputs are compared bit for bit.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402


def _plan(src: str, objective: str, n: int, eps: float) -> dict:
    """This tree's plans of the cell's draw and posterior (route, seconds, bytes or the refusal), in a subprocess."""
    code = (
        "import json, numpy as np\n"
        "from dpposterior.mechanisms import lattice as L\n"
        "from dpposterior.mechanisms.spec import ReleaseSpec\n"
        f"s = ReleaseSpec.of('lattice', {eps!r}, objective={objective!r})\n"
        "out = {}\n"
        "for name, f in (('draw', L.LATTICE.plan_draw), ('posterior', L.LATTICE.plan_posterior)):\n"
        "    try:\n"
        f"        p = f(np.ones(4), {n}, s)\n"
        "        out[name] = {'route': p.route, 'seconds': p.seconds, 'bytes': p.memory_bytes,\n"
        "                     'refusal': p.refusal}\n"
        "    except Exception as exc:\n"
        "        out[name] = {'refusal': str(exc)}\n"
        "print(json.dumps(out))\n")
    env = dict(os.environ, PYTHONPATH=src)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    return json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-300:]}


def timed_release(src: str, prior: str, counts: str, objective: str, eps: float, seed: int = 1, aware: bool = True,
                  raised: bool = False) -> dict:
    """One ``release --mechanism optimal --json`` in a process of its own with ``src`` on PYTHONPATH (no
    ``DPPOSTERIOR_*`` limit inherited; ``raised``: ``DPPOSTERIOR_MAX_SOLVE_SECONDS=200``): its CPU s and peak RSS by
    ``/usr/bin/time``, exit status, the load before it, and the SHA-256 of its released counts and posterior (or the
    last line of its error).  ``benchmarks/release_k3_holes.py`` runs its cells with it too."""
    cmd = [sys.executable, "-m", "dpposterior", "release", "--prior", prior, "--counts", counts, "--mechanism",
           "optimal", "--objective", objective, "--epsilon", str(eps), "--seed", str(seed), "--json"]
    if aware:
        cmd.append("--noise-aware")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    if raised:
        env["DPPOSTERIOR_MAX_SOLVE_SECONDS"] = "200"
    proc, row = _side.timed([*cmd], env)
    if proc.returncode == 0:
        out = json.loads(proc.stdout)
        row["released_counts"] = out["released_counts"]
        keep = {"released_counts": out["released_counts"], "noise_aware": out.get("noise_aware")}
        row["sha256"] = hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()
        if out.get("noise_aware"):
            row["route"] = out["noise_aware"].get("route")
            row["dropped_mass_bound"] = out["noise_aware"].get("dropped_mass_bound")
    else:
        lines = [x for x in proc.stderr.splitlines() if x.startswith("dpposterior: error")]
        row["error"] = (lines[-1] if lines else proc.stderr[-300:])[:400]
    return row


def run(src: str, objective: str, n: int, eps: float, what: str, raised: bool) -> dict:
    q = n // 4
    return timed_release(src, "1,1,1,1", f"{q},{q},{q},{n - 3 * q}", objective, eps, aware=what == "aware",
                         raised=raised)


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("cells", nargs="+")
    args = ap.parse_args()
    new = os.path.abspath(args.new)
    rows = []
    for cell in args.cells:
        parts = cell.split(":")
        objective, n, eps, what = parts[0], int(parts[1]), float(parts[2]), parts[3]
        raised = parts[-1] == "raised"
        row = {"cell": cell, "objective": objective, "n": n, "eps": eps, "what": what, "raised": raised,
               "plan_new": _plan(new, objective, n, eps)}
        for name, src in (("old", args.old), ("new", new)):
            row[name] = run(src, objective, n, eps, what, raised)
            print(cell, name, row[name], flush=True)
        row["same_output"] = _side.same_output(row["old"], row["new"])
        rows.append(row)
    _side.write(args.out, _side.record("benchmarks/release_k4_holes.py", rows))


if __name__ == "__main__":
    main()
