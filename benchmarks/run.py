"""Performance benchmarks: one JSON line per case on stdout.

    python benchmarks/run.py            # every case (a few minutes on 2 cores)
    python benchmarks/run.py --quick    # the small cases only
    python benchmarks/run.py --only release

Fields: ``name``, ``size`` (k, n, ...), ``seconds`` (the library), ``baseline_seconds`` (a direct,
vectorised transcription of the definitions (docs/definitions.md), measured in the same run where it
fits in memory and time; null otherwise), ``speedup``, ``target_seconds`` and
case-specific checks (agreement with the baseline, goodness-of-fit p-values).
Wall-clock times: on a shared machine they vary with the load (reported as ``load``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np
from scipy.stats import chisquare

from dpposterior import mechanisms as M
from dpposterior import privacy as P
from dpposterior.distances import hellinger
from dpposterior.models import balanced_counts, candidates, directions, n_candidates
from dpposterior.sensitivity import local_sensitivity, smooth_sensitivity

BASELINE_MAX_CANDIDATES = 5_000_000  # R(n) the baseline enumerates (~1 GiB of temporaries)


# --- baseline: the definitions (docs/definitions.md), vectorised over R(n) -------------------------------------

def baseline_local_sensitivity(a, cs):
    """docs/definitions.md §3 LS(c) for rows cs: max over the k(k-1) adjacent c' of H(BI(c), BI(c')).

    Uses the library's closed form of H between adjacent posteriors (tested against the
    definition in tests/library/test_sensitivity.py); the general ``hellinger`` costs ~100x more.
    """
    return local_sensitivity(a, cs)


def baseline_smooth(a, c, gamma, R=None):
    """docs/definitions.md §3: S(c) = max over all c'' of 1 / (1/LS(c'') + gamma d(c, c''))."""
    R = candidates(int(c.sum()), c.size) if R is None else R
    ls = baseline_local_sensitivity(a, R)
    d = np.abs(R - c).sum(axis=1) / 2
    return float(np.max(1.0 / (1.0 / ls + gamma * d)))


def baseline_release(a, c, epsilon, gamma, rng):
    """ehds release by its definition: pmf over all of R(n), inverse-cdf draw."""
    R = candidates(int(c.sum()), c.size)
    w = epsilon / (2.0 * (1.0 + gamma) * baseline_smooth(a, c, gamma, R))
    logits = -w * hellinger(a + c, a + R)
    p = np.exp(logits - logits.max())
    cdf = np.cumsum(p)
    return R[np.searchsorted(cdf, rng.random() * cdf[-1], side="right")], logits


def baseline_worst_case(a, n, epsilon, gamma):
    """ehds concrete epsilon (docs/definitions.md §5): every c, every neighbour, every output, pmf rows by definition."""
    R = candidates(n, a.size)
    idx = {tuple(r): t for t, r in enumerate(R)}
    ls = baseline_local_sensitivity(a, R)
    S = np.array([np.max(1.0 / (1.0 / ls + gamma * np.abs(R - c).sum(axis=1) / 2)) for c in R])
    w = epsilon / (2.0 * (1.0 + gamma) * S)

    def row(t):
        logits = -w[t] * hellinger(a + R[t], a + R)
        top = logits.max()
        return logits - top - math.log(np.exp(logits - top).sum())

    best = 0.0
    for t, c in enumerate(R):
        lp = row(t)
        for i, j in directions(a.size):
            if i < j and c[i] >= 1:
                d = c.copy()
                d[i] -= 1
                d[j] += 1
                best = max(best, float(np.abs(lp - row(idx[tuple(d)])).max()))
    return best


# --- helpers -----------------------------------------------------------------------------------

def timed(fn, repeat=1):
    """Best wall time of ``repeat`` runs, and the CPU time (this process and its children) of that run."""
    best, out = (math.inf, math.inf), None
    for _ in range(repeat):
        r0, c0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        out = fn()
        wall = time.perf_counter() - t
        r1, c1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = sum(b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime for a, b in ((r0, r1), (c0, c1)))
        best = min(best, (wall, cpu))
    _LAST_CPU[0] = best[1]
    return best[0], out


_LAST_CPU = [0.0]


def emit(name, size, seconds, baseline=None, target=None, **extra):
    """One JSON line; ``cpu_seconds`` is the CPU time of the timed library run (the machine may be shared)."""
    line = {"name": name, "size": size, "seconds": round(seconds, 4), "cpu_seconds": round(_LAST_CPU[0], 4),
            "baseline_seconds": None if baseline is None else round(baseline, 4),
            "speedup": None if baseline is None else round(baseline / seconds, 1),
            "target_seconds": target, "load": round(os.getloadavg()[0], 2), **extra}
    print(json.dumps(line), flush=True)


def pooled_chisquare(observed, prob, min_expected=10.0):
    obs = np.asarray(observed, dtype=np.float64)
    exp = np.asarray(prob, dtype=np.float64) * obs.sum() / np.sum(prob)
    order = np.argsort(exp)
    e, o = exp[order], obs[order]
    cut = int(np.searchsorted(np.cumsum(e), min_expected))
    e = np.concatenate([[e[: cut + 1].sum()], e[cut + 1:]])
    o = np.concatenate([[o[: cut + 1].sum()], o[cut + 1:]])
    return float(chisquare(o, e).pvalue)


# --- cases -------------------------------------------------------------------------------------

def case_smooth(k, n, gamma=1.0):
    a, c = np.ones(k), balanced_counts(n, k)
    base = ref = None
    if n_candidates(n, k) <= BASELINE_MAX_CANDIDATES:
        base, ref = timed(lambda: baseline_smooth(a, c, gamma))
    sec, s = timed(lambda: smooth_sensitivity(a, c, gamma), repeat=3)
    emit("smooth_sensitivity", {"k": k, "n": n}, sec, base, S=s,
         rel_diff_vs_baseline=None if ref is None else abs(s - ref) / ref)


def case_release(k, n, mech="ehds", target=None, check=False, epsilon=1.0):
    """One release (weight + one exact draw), as ``dpposterior release`` does it."""
    a, c = np.ones(k), balanced_counts(n, k)
    base = None
    extra = {"mechanism": mech, "epsilon": epsilon}
    if mech == "ehds" and n_candidates(n, k) <= BASELINE_MAX_CANDIDATES:
        base, (_, logits) = timed(lambda: baseline_release(a, c, epsilon, 1.0, np.random.default_rng(0)))
        if check:  # sampler draws vs the baseline's exact pmf, binned by H (20 equal-mass bins)
            p = np.exp(logits - logits.max())
            p /= p.sum()
            order = np.argsort(-logits)
            cum = np.cumsum(p[order])
            edges = np.unique(-logits[order][np.minimum(np.searchsorted(cum, np.linspace(0, 1, 21)[1:-1]),
                                                       p.size - 1)])
            draws = M.sample(mech, a, c, epsilon=epsilon, size=20_000, rng=np.random.default_rng(1))
            w = M.weight(mech, a, c, epsilon=epsilon)
            got = np.digitize(w * hellinger(a + c, a + draws), edges)
            prob = np.bincount(np.digitize(-logits, edges), weights=p, minlength=edges.size + 1)
            lib = M.log_pmf(mech, a, c, epsilon=epsilon)
            extra["max_abs_logpmf_diff_library_vs_baseline"] = float(np.abs(lib - (np.log(p))).max())
            extra["chi2_p_vs_exact_pmf_20000_draws"] = pooled_chisquare(np.bincount(got, minlength=edges.size + 1),
                                                                         prob)
    sec, m = timed(lambda: M.sample(mech, a, c, epsilon=epsilon, size=1, rng=np.random.default_rng(0)), repeat=3)
    extra["released"] = m[0].tolist()
    emit("release", {"k": k, "n": n, "candidates": float(n_candidates(n, k))}, sec, base, target, **extra)


def case_release_cli(k, n, target):
    """The command line itself (Python start-up and imports included)."""
    counts = ",".join(map(str, balanced_counts(n, k)))
    cmd = ["dpposterior", "release", "--prior", ",".join(["1"] * k), "--counts", counts,
           "--mechanism", "ehds", "--epsilon", "1", "--seed", "0", "--json"]
    exe = os.path.join(os.path.dirname(sys.executable), "dpposterior")
    cmd[0] = exe if os.path.exists(exe) else cmd[0]
    sec, out = timed(lambda: subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    emit("release_cli", {"k": k, "n": n}, sec, None, target, output=out.strip()[:200])


def case_privacy(k, n, target=None, baseline=True):
    a = np.ones(k)
    base = ref = None
    if baseline:
        base, ref = timed(lambda: baseline_worst_case(a, n, 1.0, 1.0))
    sec, r = timed(lambda: P.concrete_epsilon("ehds", a, n, epsilon=1.0))
    emit("privacy_worst_case", {"k": k, "n": n, "candidates": n_candidates(n, k)}, sec, base, target,
         concrete_epsilon=r.concrete_epsilon, worst_pair=r.worst_pair,
         abs_diff_vs_baseline=None if ref is None else abs(r.concrete_epsilon - ref))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small cases only")
    ap.add_argument("--only", default=None, help="run the cases whose name contains this")
    args = ap.parse_args(argv)
    cases = [
        ("smooth", lambda: case_smooth(3, 2000)),
        ("smooth", lambda: case_smooth(2, 10**6)),
        ("smooth", lambda: case_smooth(4, 100)),
        ("release", lambda: case_release(3, 2000, check=True)),
        ("release", lambda: case_release(2, 10**6, target=2.0)),
        ("release", lambda: case_release(3, 20_000, target=5.0)),
        ("release", lambda: case_release(4, 10_000, target=10.0)),
        ("release", lambda: case_release(6, 10_000)),
        ("release", lambda: case_release(6, 10**5)),
        ("release", lambda: case_release(6, 10**6)),
        ("release", lambda: case_release(6, 10**4, mech="ehd")),  # mass far from the truth
        ("release", lambda: case_release(4, 10**6, mech="ehd")),
        ("release_cli", lambda: case_release_cli(2, 10**6, 2.0)),
        ("release_cli", lambda: case_release_cli(3, 20_000, 5.0)),
        ("release_cli", lambda: case_release_cli(4, 10_000, 10.0)),
        ("release_cli", lambda: case_release_cli(6, 10_000, None)),
        ("privacy", lambda: case_privacy(2, 2000)),
        ("privacy", lambda: case_privacy(3, 60)),
        ("privacy", lambda: case_privacy(2, 20_000, target=60.0, baseline=False)),
        ("privacy", lambda: case_privacy(3, 200, target=60.0, baseline=False)),
    ]
    quick = {0, 2, 3, 4, 7, 16, 17}
    for t, (name, run) in enumerate(cases):
        if args.quick and t not in quick:
            continue
        if args.only and args.only not in name:
            continue
        run()


if __name__ == "__main__":
    main()
