"""The main job's costliest kinds of work, one case each, under two source trees side by side: a markdown table.

    PYTHONPATH=src python benchmarks/pipeline_jobs.py [--against OTHER/src] [--only NAME]

Each case is one piece of a pipeline job (under the pipeline's budgets, :func:`dpposterior.paper.limits.apply`), run
in its own process with ``PYTHONPATH`` set to this checkout's ``src`` and, with ``--against``, to another checkout's
``src`` (e.g. a clone of an earlier commit), one after the other; the table gives each one's CPU seconds (user +
system of the child, ``resource.getrusage``), its peak resident memory, and a digest of what it computed, so that
"same" says the two trees gave bit-for-bit the same numbers.  CPU seconds, not wall: the 2 cores are shared.

The cases (the work of docs/pipeline.md's measurement, "Where it goes"):

* ``frontier ehd n=1e4``: the exact expected error of ``ehd`` at Beta(1,1), n = 1e4, eps = 1 (an exponential
  entry's score table and error table over R(n)^2);
* ``tailoring geometric``: the `tailoring` grid of ``geometric`` (its error under Hellinger, TV and KL at n <= 1000:
  the Beta KL and TV matrices);
* ``runs balanced-k4 mh``: the `runs` job of ``mh`` on the balanced k = 4 data (1000 draws per point up to n = 1e4
  and the exact pmf where |R(n)| <= 3e6: Hellinger's midpoint series over R(n));
* ``runs balanced-k4 lattice~average``, ``runs balanced-k3 lattice~average``: the `runs` jobs of the lattice release
  (Figs. 5b, 5a), this checkout's n grid and ``max_n`` (1000 draws a point, the batched local search);
* ``pmf fig3c lattice~average``, ``pmf fig3c geometric``: the `pmf` jobs of Fig. 3c (this checkout's entry and its
  ``tol``; the lattice release's pmf at one data set);
* ``calibrated ehds k=3 n=100``: the calibration of ``ehds~calibrated`` at Dir(1,1,1), n = 100 (the refining
  passes over the adjacent pairs);
* ``frontier ehds~calibrated`` ... ``frontier ehd~calibrated``: the calibrated variants' `frontier` jobs, each its
  whole grid (a calibration at every point up to ``calibrated_max_n``, then the expected errors at kappa*);
* ``audit lszhang n=100``: one audit pair of ``lszhang`` (2 x 1e6 exact floor-Laplace draws and their histogram);
* ``lattice search k=3 ...``: the batched local search of ``lattice~worst``'s exact errors over the window at k = 3,
  n = 20, eps = 0.5 (3,336 near ties handed to the one-point search), and at n = 10, eps = 0.25 up to its refusal;
* ``yardstick frontier``, ``yardstick which-to-use``: the `yardstick` jobs (a certified lower bound at every k >= 3
  point of the grid, on the config's share; where the entry says ``lp_optimum``, none where the LP is planned);
* ``frontier lattice~worst`` ... ``tailoring optimal~worst``: the costliest ``expected_error`` jobs, each its whole
  grid as the job computes it (the stage's spec from this checkout's ``config.yaml``), in the pipeline's order: a
  job's same-release grid and its earlier experiments' grids are the ones the same tree's earlier cases wrote; a
  tree that does not take earlier grids computes those points itself.  "same numbers": every cell of the grid.

Each grid is also written as the stage writes it (``write_parquet``, with its ``experiment`` column) to
``<scratch>/stage/<experiment>/<mechanism>.parquet`` (the scratch directory per tree:
``$TMPDIR/pipeline_jobs-<hash of its src path>``), so the two trees' files can be compared by md5.

``--json FILE`` also writes the table's numbers (cases, CPU seconds, peak MB, digests) to FILE.

Not yet run as a whole.  The same pieces, measured on 26 Nov 2026 one after the other in separate processes (CPU
seconds, ``time.process_time``; before: a clone of the commit before each change, after: the change; every "after"
gave bit for bit the numbers of its "before", checked by comparing the arrays):

| piece | before | after |
|---|---|---|
| ``ehd``, Beta(1,1), n = 1e4, eps = 1 (the score table is the error table) | 19.6 | 10.8 |
| the Beta KL and TV matrices at n = 1000, 300, 200 (polygammas per distinct argument) | 11.5 | 3.2 |
| the `tailoring` grid of ``geometric`` (KL and TV) | 13.3 | 7.9 |
| the `runs` job of ``mh`` on the balanced k = 4 data (Hellinger's series per distinct midpoint) | 31.2 | 12.8 |
| ``ehds~calibrated``, Dir(1,1,1), n = 100 (refining passes: one row per data set per kappa) | 40.6 | 36.5 |
| the frontier grid of ``ehds~calibrated`` under the pipeline's budgets (buffers reused) | 59.6 | 52.5 |
| 1e6 ``floor_laplace`` draws at rate 1/2 (``benchmarks/samplers.py``) | 0.45 | 0.11 |
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

#: The settings every tree's ``expected_error`` cases run: this checkout's config (both trees the same grid).
CONFIG = Path(__file__).resolve().parents[1] / "config.yaml"

PRELUDE = """
import hashlib, os, numpy as np, pandas as pd
from dpposterior.paper.limits import apply
apply()
def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a, dtype=np.float64)).tobytes())
    return h.hexdigest()[:12]
def frame_digest(df):
    # every column of an expected_error grid, floats by their bits, the rest (lists, strings) by repr
    h = hashlib.sha256()
    for col in df.columns:
        v = df[col]
        h.update(col.encode())
        if v.dtype.kind in "fiub":
            h.update(np.ascontiguousarray(v.to_numpy()).tobytes())
        else:
            # a list cell by its numbers (a computed row holds numpy integers, a row read from a grid Python ones)
            # (a row copied from another grid may hold a float NaN where a computed row holds None)
            h.update(repr([x if x is None or isinstance(x, (str, float)) else [float(y) for y in x] for x in v]
                          ).encode())
    return h.hexdigest()[:12]
def grid_spec(item):
    # the job's --spec: the stage's settings of this item in this checkout's config.yaml
    import yaml
    from dpposterior.paper.stages.expected_error import EXPECTED_ERROR
    return EXPECTED_ERROR.spec(yaml.safe_load(open(CONFIG)), item)
def grid_job(item, name, same=None, earlier=()):
    # one expected_error job: its grid, written to SCRATCH (a later case of the same tree reads it as its
    # same-release input, or as an earlier experiment's grid, as the pipeline does), its digest and rows; a tree
    # whose grid takes no earlier grids computes those rows itself
    import inspect
    from dpposterior.paper.beyond import expected_error_grid
    kw = {}
    if earlier and "earlier" in inspect.signature(expected_error_grid).parameters:
        kw["earlier"] = [pd.read_parquet(os.path.join(SCRATCH, f"{e}-{name}.parquet")) for e in earlier]
    df = expected_error_grid(name, grid_spec(item), None if same is None else pd.read_parquet(
        os.path.join(SCRATCH, f"{item}-{same}.parquet")), **kw)
    df.to_parquet(os.path.join(SCRATCH, f"{item}-{name}.parquet"))
    # and the file the stage writes (its experiment column, its writer), for an md5 against another tree's
    from dpposterior.paper.experiments import write_parquet
    staged = df.copy()
    staged.insert(0, "experiment", item)
    write_parquet(staged, os.path.join(SCRATCH, "stage", item, f"{name}.parquet"))
    print(frame_digest(df), f"{len(df)} rows, {int((df.status == 'ok').sum())} ok")
def yardstick_job(item):
    # one yardstick job: the certified bounds of the item's k >= 3 points (the stage's spec from this checkout's
    # config.yaml), its digest, and how many points got a block bound or the LP's optimum
    import yaml
    from dpposterior.paper.beyond import yardstick_grid
    from dpposterior.paper.stages.yardstick import YARDSTICK
    df = yardstick_grid(YARDSTICK.spec(yaml.safe_load(open(CONFIG)), item))
    lp = int(df.route.astype(str).str.startswith("the LP's optimum").sum())
    print(frame_digest(df), f"{len(df)} rows, {int(df.bound.notna().sum())} block bounds, {lp} by the LP's optimum")
"""

#: The lattice release's Monte Carlo runs of one n-series item (ITEM), with this checkout's n grid and max_n.
LATTICE_RUNS = """
import yaml
from dpposterior.paper.experiments import accuracy_runs, data_points
entry = yaml.safe_load(open(CONFIG))["accuracy"]["ITEM"]  # this checkout's n grid and max_n
data = data_points({"kind": "n-series", "prior": entry["prior"], "n": entry["n"]})
runs, exact = accuracy_runs("ITEM", "lattice~average", data, epsilon=1.0, delta=1e-8, seed=20240917,
                            runs=1000, exact_max=3000000, log=lambda *a: None,
                            max_n=entry.get("max_n", {}).get("lattice~average"))
print(digest(runs.error, exact["mean"]), f"{len(runs)} draws")
"""

CASES = {
    "frontier ehd n=1e4": """
from dpposterior.accuracy import expected_errors
e = expected_errors("ehd", [1.0, 1.0], 10000, epsilon=1.0)
print(digest(e.expected), f"worst {e.worst:.6g} average {e.average:.6g}")
""",
    "tailoring geometric": """
from dpposterior.paper.beyond import expected_error_grid
spec = {"priors": [[1, 1]], "n": [5, 10, 20, 50, 100, 200, 500, 1000], "epsilon": [0.5, 1.0, 2.0, 4.0],
        "delta": 1e-8, "max_candidates": 1001, "distances": ["hellinger", "tv", "kl"],
        "measures": ["hellinger", "tv", "kl"], "calibrated_max_n": None, "lp_oracle": False}
df = expected_error_grid("geometric", spec)
print(digest(df.worst, df.average), f"{len(df)} rows")
""",
    "runs balanced-k4 mh": """
from dpposterior.paper.experiments import accuracy_runs, data_points
data = data_points({"kind": "n-series", "prior": [1, 1, 1, 1], "n": [8, 12, 20, 40, 60, 100, 150, 200, 300, 400, 500,
                    600, 700, 800, 1000, 3000, 10000]})
runs, exact = accuracy_runs("balanced-k4", "mh", data, epsilon=1.0, delta=1e-8, seed=20240917, runs=1000,
                            exact_max=3000000, log=lambda *a: None)
print(digest(runs.error, exact["mean"]), f"{len(runs)} draws")
""",
    "runs balanced-k4 lattice~average": LATTICE_RUNS.replace("ITEM", "balanced-k4"),
    "runs balanced-k3 lattice~average": LATTICE_RUNS.replace("ITEM", "balanced-k3"),
    "pmf fig3c lattice~average": """
import yaml
from dpposterior.paper.experiments import exact_pmf
spec = yaml.safe_load(open(CONFIG))["pmf"]["fig3c"]  # this checkout's entry (its tol)
pmf, tails = exact_pmf("fig3c", "lattice~average", spec)
print(digest(pmf.prob, tails.tail_prob), f"slack {pmf.prob_slack.iloc[0]:.2g}, mass {pmf.prob.sum():.12f}")
""",
    "pmf fig3c geometric": """
import yaml
from dpposterior.paper.experiments import exact_pmf
pmf, tails = exact_pmf("fig3c", "geometric", yaml.safe_load(open(CONFIG))["pmf"]["fig3c"])
print(digest(pmf.prob, tails.tail_prob), f"{len(pmf)} outputs")
""",
    "frontier lattice~average": """
grid_job("frontier", "lattice~average")
""",
    "which-to-use lattice~average": """
grid_job("which-to-use", "lattice~average", earlier=["frontier"])
""",
    "calibrated ehds k=3 n=100": """
from dpposterior.accuracy import expected_errors
e = expected_errors("ehds", [1.0, 1.0, 1.0], 100, epsilon=1.0, calibrate=True)
print(digest(e.expected, [e.calibration.factor]), f"kappa {e.calibration.factor:.6g}")
""",
    "lattice search k=3 n=20 eps=0.5": """
from dpposterior.lattice.noise import window
from dpposterior.lattice.search import local_search_many
out = local_search_many([1.0, 1.0, 1.0], 20, 0.5, window(20, 3, 31))  # W of the exact errors there
print(digest(out), f"{len(out)} points")
""",
    "lattice search k=3 n=10 eps=0.25 refused": """
from dpposterior.lattice.noise import window
from dpposterior.lattice.search import local_search_many
from dpposterior.errors import SizeError
try:
    local_search_many([1.0, 1.0, 1.0], 10, 0.25, window(10, 3, 62), max_fallback=1475)
except SizeError as exc:
    print(digest([len(str(exc))]), str(exc)[:60])
""",
    # the costliest expected_error jobs, in the pipeline's order (a job after the grids it reads)
    "frontier lattice~worst": """
grid_job("frontier", "lattice~worst")
""",
    "frontier optimal~worst": """
grid_job("frontier", "optimal~worst", same="lattice~worst")
""",
    "which-to-use lattice~worst": """
grid_job("which-to-use", "lattice~worst", earlier=["frontier"])
""",
    "which-to-use optimal~worst": """
grid_job("which-to-use", "optimal~worst", same="lattice~worst", earlier=["frontier"])
""",
    "tailoring optimal~worst": """
grid_job("tailoring", "optimal~worst", earlier=["frontier", "which-to-use"])
""",
    # the yardstick jobs (stage yardstick: corner blocks and dual flows at each k >= 3 point, on the config's share)
    "yardstick frontier": """
yardstick_job("frontier")
""",
    "yardstick which-to-use": """
yardstick_job("which-to-use")
""",
    # the calibrated variants' frontier jobs (each calibration at every point up to calibrated_max_n, then its errors)
    "frontier ehds~calibrated": """
grid_job("frontier", "ehds~calibrated")
""",
    "frontier mh~calibrated": """
grid_job("frontier", "mh~calibrated")
""",
    "frontier mh-delta~calibrated": """
grid_job("frontier", "mh-delta~calibrated")
""",
    "frontier ehd~calibrated": """
grid_job("frontier", "ehd~calibrated")
""",
    "audit lszhang n=100": """
from dpposterior.mechanism_audit import audit_mechanism
from dpposterior.privacy import concrete_epsilon
a = np.array([1.0, 1.0])
pair = concrete_epsilon("lszhang", a, 100, epsilon=1.0, delta=5e-4).worst_pair
r = audit_mechanism("lszhang", a, 100, pair=pair, samples=10**6, confidence=0.99, seed=np.random.default_rng(1),
                    delta_at=1.0, epsilon=1.0, delta=5e-4)
print(digest([r.epsilon_lower_bound, r.estimate]), f"lower bound {r.epsilon_lower_bound:.4g}")
""",
}


def run(src: str, code: str) -> tuple[float, float, str]:
    """``(cpu s, peak MB, what it printed)`` of ``code`` in a child process with ``PYTHONPATH=src`` (its scratch
    directory, where an ``expected_error`` case leaves its grid for the next, one per tree)."""
    scratch = Path(tempfile.gettempdir()) / f"pipeline_jobs-{hashlib.sha256(src.encode()).hexdigest()[:8]}"
    scratch.mkdir(exist_ok=True)
    head = f"CONFIG = {str(CONFIG)!r}\nSCRATCH = {str(scratch)!r}\n"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-c", head + PRELUDE + code], capture_output=True, text=True,
                          env=os.environ | {"PYTHONPATH": src})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    out = proc.stdout.strip() if proc.returncode == 0 else "failed: " + proc.stderr.strip().splitlines()[-1]
    return cpu, after.ru_maxrss / 1024.0, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", help="another checkout's src directory, run first (e.g. an earlier commit's)")
    ap.add_argument("--only", default="", help="cases whose name contains this")
    ap.add_argument("--json", help="also write the numbers to this file")
    args = ap.parse_args()
    record = {"against": args.against, "cases": []}
    here = str(Path(__file__).resolve().parents[1] / "src")
    if args.against:
        print("| case | cpu s (against) | cpu s (this) | peak MB (this) | same numbers | result |")
        print("|---|---|---|---|---|---|")
    else:
        print("| case | cpu s | peak MB | result |")
        print("|---|---|---|---|")
    for name, code in CASES.items():
        if args.only not in name:
            continue
        if args.against:
            cpu0, _, out0 = run(args.against, code)
        cpu, peak, out = run(here, code)
        digest, _, what = out.partition(" ")
        entry = {"case": name, "cpu_s": round(cpu, 2), "peak_mb": round(peak), "digest": digest, "result": what}
        if args.against:
            same = "yes" if out0.split(" ")[0] == digest else "NO"
            entry |= {"cpu_s_against": round(cpu0, 2), "same_numbers": same == "yes"}
            print(f"| {name} | {cpu0:.1f} | {cpu:.1f} | {peak:.0f} | {same} | {what} |", flush=True)
        else:
            print(f"| {name} | {cpu:.1f} | {peak:.0f} | {what} |", flush=True)
        record["cases"].append(entry)
    if args.json:
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
