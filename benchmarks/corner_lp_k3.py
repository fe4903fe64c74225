"""The k = 3 three-corner LP (corners not apart, eps < 1), the tree before and this tree side by side: CPU s, peak RSS
and the certified worst case of ``release --prior 1,1,1 --counts (n/3, ...) --mechanism optimal --objective worst
--epsilon EPS --seed 1 --json``, per cell ``EPS:N``.

Each tree's release runs in a process of its own, one after the other (never two at once), with
``DPPOSTERIOR_MAX_SOLVE_SECONDS=200`` for the tree before (its plan refuses these cells by default) and the default
limits for this tree (a refusal is recorded as such).  Recorded per run: the release's CPU s (user + sys of the
process up to the release's end, ``resource.getrusage``) and peak RSS, the load before it, the CPU s of each ``linprog``
and of the corner solve (``corners._solve``), the LP's ``t`` (``certificate["lp"]``), the release's exact worst case
(``expected_errors(...).worst``, computed after the release in the same process, not counted in its CPU s), with
``--certify`` the certified lower bound (``certify_remap``), and the SHA-256 of the release's JSON.  Each tree's plan
(the padded release's ``plan_draw``, ``corner_seconds``, ``corners_fit``) beside it.

    python benchmarks/corner_lp_k3.py --old OLD/src --new src --out benchmarks/corner_lp_h71.json 0.5:40 0.5:45 ...
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

#: the release in-process, its LPs and corner solve timed, then its worst case (and lower bound) on stderr's last line
CHILD = r"""
import io, json, os, resource, sys, time, contextlib
import numpy as np
import scipy.optimize as so
from dpposterior.lattice import corners as C
rec = []
_lp = so.linprog
def lp(*a, **kw):
    t = time.process_time(); r = _lp(*a, **kw); A = kw.get("A_ub")
    rec.append(["linprog", time.process_time() - t, int(A.nnz), list(A.shape), kw.get("method")]); return r
so.linprog = lp
_solve = C._solve
def solve(*a, **kw):
    t = time.process_time(); r = _solve(*a, **kw); rec.append(["solve", time.process_time() - t]); return r
C._solve = solve
from dpposterior.cli.main import main
certify, argv = sys.argv[1] == "1", sys.argv[2:]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    rc = main(argv)
ru = resource.getrusage(resource.RUSAGE_SELF)
stats = {"rc": rc, "release_cpu_s": ru.ru_utime + ru.ru_stime, "peak_mb": ru.ru_maxrss / 1024, "stages": rec,
         "stdout": out.getvalue()}
if rc == 0:
    import dpposterior as dp
    from dpposterior.mechanisms import ReleaseSpec
    from dpposterior.mechanisms import lattice as L
    os.environ.update(DPPOSTERIOR_MAX_SOLVE_SECONDS="1e5", DPPOSTERIOR_MAX_MEMORY_GB="8")
    eps = float(argv[argv.index("--epsilon") + 1])
    n = sum(int(x) for x in argv[argv.index("--counts") + 1].split(","))
    remap = L._corner((1.0, 1.0, 1.0), n, eps)
    stats["lp_t"] = remap.certificate["lp"]
    stats["width"] = int(remap.probs.shape[1])
    stats["implied"] = remap.certificate.get("implied")
    stats["worst"] = float(dp.expected_errors(ReleaseSpec.of("lattice", eps, objective="worst"), np.ones(3), n).worst)
    if certify:
        stats["lower"] = float(C.certify_remap(remap))
sys.stderr.write("\nSTATS " + json.dumps(stats) + "\n")
"""

#: one tree's plans of the cell (public prior, n, eps)
PLAN = r"""
import json, sys
import numpy as np
from dpposterior.mechanisms import lattice as L
from dpposterior.mechanisms.spec import ReleaseSpec
n, eps = int(sys.argv[1]), float(sys.argv[2])
p = L.LATTICE.plan_draw(np.ones(3), n, ReleaseSpec.of("lattice", eps, objective="worst"))
print(json.dumps({"route": p.route, "seconds": float(p.seconds), "bytes": float(p.memory_bytes),
                  "refusal": p.refusal, "corner_seconds": L.corner_seconds(n, 3, eps, True),
                  "corners_fit": L.corners_fit(n, 3, eps)}))
"""


def plan(src: str, n: int, eps: float) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src)
    proc = subprocess.run([sys.executable, "-c", PLAN, str(n), str(eps)], capture_output=True, text=True, env=env)
    return json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-300:]}


def run(src: str, n: int, eps: float, raised: bool, certify: bool) -> dict:
    q = n // 3
    counts = f"{q},{q},{n - 2 * q}"
    args = ["release", "--prior", "1,1,1", "--counts", counts, "--mechanism", "optimal", "--objective", "worst",
            "--epsilon", str(eps), "--seed", "1", "--json"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPPOSTERIOR_")}
    env.update(PYTHONPATH=src, OMP_NUM_THREADS="1")
    if raised:
        env["DPPOSTERIOR_MAX_SOLVE_SECONDS"] = "200"
    load = os.getloadavg()[0]
    proc = subprocess.run([sys.executable, "-c", CHILD, "1" if certify else "0", *args], capture_output=True,
                          text=True, env=env, timeout=1200)
    row = {"raised": raised, "load": round(load, 2), "exit": proc.returncode}
    lines = [x for x in proc.stderr.splitlines() if x.startswith("STATS ")]
    if not lines:
        row["error"] = proc.stderr[-400:]
        return row
    st = json.loads(lines[-1][6:])
    row.update(rc=st["rc"], cpu_s=round(st["release_cpu_s"], 2), peak_mb=round(st["peak_mb"], 1))
    row["lp"] = [{"cpu_s": round(r[1], 2), "nnz": r[2], "shape": r[3], "method": r[4]} for r in st["stages"]
                 if r[0] == "linprog" and r[2] > 1_000_000]
    row["edge_lp_s"] = round(sum(r[1] for r in st["stages"] if r[0] == "linprog" and r[2] <= 1_000_000), 2)
    row["solve_s"] = round(sum(r[1] for r in st["stages"] if r[0] == "solve"), 2)
    for key in ("lp_t", "worst", "lower", "width", "implied"):
        if key in st:
            row[key] = st[key]
    if st["rc"] == 0:
        row["released_counts"] = json.loads(st["stdout"])["released_counts"]
        row["sha256"] = hashlib.sha256(st["stdout"].encode()).hexdigest()
    else:
        errs = [x for x in proc.stderr.splitlines() if x.startswith("dpposterior: error")]
        row["refusal"] = (errs[-1] if errs else proc.stderr[-300:])[:400]
    return row


def main() -> None:
    ap = _side.parser(__doc__)
    ap.add_argument("--certify", action="store_true", help="also the certified lower bound (certify_remap)")
    ap.add_argument("--new-only", action="store_true", help="run this tree only (the tree before's row kept)")
    ap.add_argument("cells", nargs="+", help="EPS:N")
    args = ap.parse_args()
    new = os.path.abspath(args.new)
    rows = []
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as fh:
            rows = json.load(fh)["rows"]
    for cell in args.cells:
        eps, n = float(cell.split(":")[0]), int(cell.split(":")[1])
        prev = next((r for r in rows if r["cell"] == cell), {})
        row = {"cell": cell, "n": n, "eps": eps, "plan_old": plan(args.old, n, eps), "plan_new": plan(new, n, eps)}
        row["old"] = prev["old"] if args.new_only and "old" in prev else run(args.old, n, eps, True, args.certify)
        print(cell, "old", {k: v for k, v in row["old"].items() if k != "lp"}, flush=True)
        row["new"] = run(new, n, eps, False, args.certify)
        print(cell, "new", {k: v for k, v in row["new"].items() if k != "lp"}, flush=True)
        if row["new"].get("rc") != 0:  # refused by its plan: run with the limit raised, for the worst case
            row["new_raised"] = run(new, n, eps, True, args.certify)
            print(cell, "new raised", row["new_raised"], flush=True)
        a, b = row["old"], row.get("new_raised", row["new"])
        if "worst" in a and "worst" in b:
            row["worst_diff"] = b["worst"] - a["worst"]
            row["lp_t_diff"] = b["lp_t"] - a["lp_t"]
        rows = [r for r in rows if r["cell"] != cell] + [row]
        record = {"host": os.uname().nodename, "cpus": os.cpu_count(),
                  "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  "command": "python benchmarks/corner_lp_k3.py " + " ".join(sys.argv[1:]), "rows": rows}
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    main()
