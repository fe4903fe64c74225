"""The experiments behind the paper's items: one function per pipeline stage, each returning a
DataFrame (the stage objects of :mod:`dpposterior.paper.stages` only pass settings and write it).

Seeds: every job/point draws from ``SeedSequence([seed, crc32 of each key part])`` (:func:`job_rng`),
never from execution order, so results do not depend on ``--cores`` or on where the clone lives.
"""

from __future__ import annotations

import os
import time
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from tqdm import tqdm

from ..accuracy import exact_accuracy_from_pmf, release_error
from ..bounds import abs_discretised_laplace_pmf, exponential_tail_bound
from ..distances import hellinger
from ..errors import InputError, SizeError
from ..lattice.remap import DEFAULT_TOL
from ..mechanism_audit import audit_mechanism, exact_pair_epsilon
from ..mechanisms import MECHANISMS, Family, ReleaseSpec, log_pmf, sample
from ..models import (
    balanced_counts,
    candidate_rank,
    candidates,
    check_size,
    counts_from_proportions,
    n_candidates,
    neighbours,
    steps,
)
from ..privacy import concrete_epsilon
from ..sensitivity import (
    PAPER_GLOBAL_SENSITIVITY,
    beta_smooth_sensitivity_all,
    global_sensitivity,
    local_sensitivity,
    smooth_sensitivity_all,
)
from .variants import parsed
from .verdicts import bonferroni_level

#: Pseudo-mechanisms of the workshop draft's Tables 1-2: the formulas printed beside the tables.
FORMULAS = ("formula-exp", "formula-laplace")


def stable_int(text: str) -> int:
    """A stable 32-bit integer for a string (crc32; Python's hash() is salted per process)."""
    return zlib.crc32(text.encode("utf-8"))


def job_rng(base_seed: int, *key: object) -> tuple[np.random.Generator, str]:
    """Generator for one job/point: ``SeedSequence([base, stable ints of the key])``, and its label."""
    ints = [int(base_seed)] + [k if isinstance(k, int) else stable_int(str(k)) for k in key]
    label = "/".join([str(base_seed)] + [str(k) for k in key])
    return np.random.default_rng(np.random.SeedSequence(ints)), label


def write_parquet(df: pd.DataFrame, path: str | Path) -> None:
    """Write via a temporary file and rename, so a failed job leaves no partial output."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    df.to_parquet(tmp, index=False, compression="zstd")
    os.replace(tmp, out)


# ------------------------------------------------------------------ accuracy experiments
def data_points(spec: dict) -> pd.DataFrame:
    """The points of one accuracy experiment: prior and counts per point.

    kinds: ``n-series`` (data of size n, balanced or with ``proportions``, fixed ``prior``),
    ``prior-series`` (fixed ``counts``, prior ``a * (1, ..., 1)`` per a), ``counts-series``
    (prior all ``prior_value``, one count vector per point).
    """
    kind = spec["kind"]
    rows = []
    if kind == "n-series":
        prior = [float(x) for x in spec["prior"]]
        for n in spec["n"]:
            c = (counts_from_proportions(n, spec["proportions"]) if spec.get("proportions")
                 else balanced_counts(n, len(prior)))
            rows.append({"x": float(n), "label": str(n), "prior": prior, "counts": c.tolist()})
    elif kind == "prior-series":
        c = [int(x) for x in spec["counts"]]
        for a in spec["a"]:
            rows.append({"x": float(a), "label": f"{a:g}", "prior": [float(a)] * len(c), "counts": c})
    elif kind == "counts-series":
        for c in spec["counts"]:
            rows.append({"x": float(len(rows)), "label": "(" + ",".join(map(str, c)) + ")",
                         "prior": [float(spec["prior_value"])] * len(c), "counts": [int(v) for v in c]})
    else:
        raise ValueError(f"unknown experiment kind {kind!r}")
    for i, r in enumerate(rows):
        r.update(point=i, n=int(np.sum(r["counts"])), k=len(r["counts"]))
    df = pd.DataFrame(rows)
    df["kind"] = kind
    return df


def accuracy_runs(experiment: str, mechanism: str, data: pd.DataFrame, *, epsilon: float, delta: float, seed: int,
                  runs: int, exact_max: int, progress: bool = False, log=print,
                  max_n: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``runs`` releases of ``mechanism`` at every point of ``data`` (one row per run: released counts and
    error ``H(BI(c), release)``), and the exact error law from the pmf where ``|R(n)| <= exact_max`` and the
    mechanism computes it (a release that refuses its exact pmf for its size, e.g. the lattice release whose draws
    run the local search, gets NaN there).  Points with ``n > max_n`` (the experiment's ``max_n`` for this
    mechanism: its draws' cost) are not drawn and have no rows.

    Point i draws from ``job_rng(seed, "accuracy", experiment, mechanism, i)``.
    """
    spec = ReleaseSpec.of(parsed(mechanism), epsilon, delta)  # the config entry's settings, validated once
    out_runs, out_exact = [], []
    for row in tqdm(data.itertuples(index=False), total=len(data), disable=not progress,
                    desc=f"{experiment}/{mechanism}", mininterval=1.0):
        if max_n is not None and int(row.n) > int(max_n):
            log(f"point {row.point} ({row.label}): not drawn (n > max_n = {int(max_n)}, config)")
            continue
        prior, counts = np.asarray(row.prior, float), np.asarray(row.counts, np.int64)
        rng, label = job_rng(seed, "accuracy", experiment, mechanism, int(row.point))
        m = sample(spec, prior, counts, size=runs, rng=rng)
        err = release_error(prior, counts, m)
        out_runs.append(pd.DataFrame({
            "experiment": experiment, "mechanism": mechanism, "point": int(row.point), "x": row.x,
            "label": row.label, "n": int(row.n), "k": int(row.k), "prior": [prior.tolist()] * runs,
            "counts": [counts.tolist()] * runs, "epsilon": epsilon, "delta": delta, "seed": label,
            "run": np.arange(runs), "released": list(m), "error": err}))
        size = n_candidates(int(row.n), int(row.k))
        ex = dict.fromkeys(["mean", "q25", "median", "q75", "p_exact"], np.nan)
        if size <= exact_max:
            try:
                ex = exact_accuracy_from_pmf(log_pmf(spec, prior, counts), prior, counts).as_dict()
            except SizeError as exc:  # the release computes no exact pmf at this size: Monte Carlo only
                log(f"point {row.point} ({row.label}): no exact error law ({exc})")
        out_exact.append({"experiment": experiment, "mechanism": mechanism, "point": int(row.point), "x": row.x,
                          "label": row.label, "n": int(row.n), "k": int(row.k), "candidates": float(size),
                          "epsilon": epsilon, "delta": delta, **ex})
        log(f"point {row.point} ({row.label}): mean error {err.mean():.5g} over {runs} runs, exact {ex['mean']:.5g}")
    return pd.concat(out_runs, ignore_index=True), pd.DataFrame(out_exact)


def error_summary(runs: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
    """Per (mechanism, point): Monte Carlo mean, its standard error and 95% interval, median and
    quartiles, the exact expectation where known, and ``value``/``se``: the exact expectation (se 0)
    where the pmf gave it, else the Monte Carlo mean and its standard error (what verdicts judge)."""
    g = runs.groupby(["mechanism", "point"], sort=True)
    s = g.agg(x=("x", "first"), label=("label", "first"), n=("n", "first"), runs=("error", "size"),
              mc_mean=("error", "mean"), sd=("error", "std"), median=("error", "median"),
              q25=("error", lambda e: e.quantile(0.25)), q75=("error", lambda e: e.quantile(0.75))).reset_index()
    s["mc_se"] = s.sd / np.sqrt(s.runs)
    s["mc_low"], s["mc_high"] = s.mc_mean - 1.96 * s.mc_se, s.mc_mean + 1.96 * s.mc_se
    ex = exact[["mechanism", "point", "mean"]].rename(columns={"mean": "exact_mean"})
    s = s.merge(ex, on=["mechanism", "point"], how="left")
    s["is_exact"] = s.exact_mean.notna()
    s["value"] = s.exact_mean.where(s.is_exact, s.mc_mean)
    s["se"] = np.where(s.is_exact, 0.0, s.mc_se)
    return s


# ------------------------------------------------------------------ exact output distributions
def exact_pmf(name: str, mechanism: str, spec: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Exact output distribution of one mechanism at one (prior, counts), one row per candidate, and its
    tail ``P(H >= t)`` per distinct error t, beside the arXiv draft's §6.2 bound for ``mh``.

    ``formula-exp`` and ``formula-laplace`` are the workshop draft's printed formulas (§5.4.1 weights
    ``exp(-eps H / LS(c))``; §5.1 ``P(|Y| in [s, s+1))``, Y ~ Lap(2/eps), split evenly over the
    candidates s steps away, clamped tails left out).  The lattice release's probabilities are the lower ends
    ``P_D`` of :meth:`~dpposterior.mechanisms.lattice.LatticeMechanism.pmf_at` (each within its tail bound, at most
    the entry's ``tol``, default 1e-9, of the pmf; docs/lattice.md); column ``prob_slack`` holds that bound
    (``P_D <= P <= P_D + prob_slack``; 0 for every other, exact, row), so a figure can leave out what the bracket does
    not resolve.
    """
    a = np.asarray(spec["prior"], float)
    c = np.asarray(spec["counts"], np.int64)
    eps, delta = float(spec["epsilon"]), float(spec["delta"])
    n, k = int(c.sum()), c.size
    cands = candidates(n, k)
    h = hellinger(a + c, a + cands)
    st = steps(c, cands)
    truth = int(candidate_rank(c))
    slack = 0.0  # each probability is exact, except the lattice release's lower ends (below)
    if mechanism == "formula-exp":
        logits = -eps * h / local_sensitivity(a, c)
        logp = logits - logsumexp(logits)
    elif mechanism == "formula-laplace":
        per_step = abs_discretised_laplace_pmf(np.arange(n + 1), 2.0 / eps, form="toward-zero")
        count = np.bincount(st, minlength=n + 1)
        with np.errstate(divide="ignore"):
            logp = np.log(per_step[st] / count[st])
    elif MECHANISMS[parsed(mechanism).mechanism].family == Family.LATTICE:
        # at one data set, from the remap at the z near c: the lower ends P_D, within the tail bound of the pmf
        # (its rows over R(n) are not computed at these sizes; docs/lattice.md, "The pmf at one data set")
        rs = ReleaseSpec.of(parsed(mechanism), eps, delta)
        low, slack = rs.mechanism.pmf_at(a, c, rs, tol=float(spec.get("tol", DEFAULT_TOL)))
        with np.errstate(divide="ignore"):
            logp = np.log(low)
    else:
        logp = log_pmf(mechanism, a, c, epsilon=eps, delta=delta)
    p = np.exp(logp)
    pmf = pd.DataFrame({"item": name, "mechanism": mechanism, "candidate": np.arange(len(cands)),
                        "m": [r.tolist() for r in cands], "H": h, "steps": st, "prob": p,
                        "is_truth": np.arange(len(cands)) == truth, "prob_slack": float(slack)})
    pmf["epsilon"], pmf["delta"] = eps, delta
    pmf["prior"] = [a.tolist()] * len(pmf)
    pmf["counts"] = [c.tolist()] * len(pmf)
    order = np.argsort(h, kind="stable")
    ts, first = np.unique(np.round(h[order], 12), return_index=True)
    tail = np.cumsum(p[order][::-1])[::-1][first]
    entry = MECHANISMS.get(mechanism)  # None for the drafts' printed formulas
    if entry is not None and entry.tail_bound is not None:  # the draft's Dwork-Roth bound (mh: 004 §6.2)
        bound = exponential_tail_bound(len(cands), entry.weight(a, c, ReleaseSpec.of(entry, eps, delta)), ts)
    else:
        bound = np.full(ts.size, np.nan)
    tails = pd.DataFrame({"item": name, "mechanism": mechanism, "t": ts, "tail_prob": tail, "bound": bound})
    return pmf, tails


# ------------------------------------------------------------------ privacy loss
def privacy_loss(experiment: str, mechanism: str, spec: dict, progress: bool = False) -> pd.DataFrame:
    """Exact concrete epsilon of ``mechanism`` at each n of ``spec``: local at the balanced data and worst
    case over all data of size n, with the maximising pair and output, the claimed guarantee and the
    privacy profile delta(eps') at eps' = the claimed epsilon."""
    a = np.asarray(spec["prior"], float)
    eps, delta = float(spec["epsilon"]), float(spec["delta"])
    claimed_eps, claimed_delta = MECHANISMS[mechanism].claimed(eps, delta)
    rows = []
    for n in tqdm(spec["n"], disable=not progress, desc=f"{experiment}/{mechanism}"):
        c = balanced_counts(int(n), a.size)
        for scope, at in (("local", c), ("worst-case", None)):
            r = concrete_epsilon(mechanism, a, int(n), epsilon=eps, delta=delta, at=at,
                                 delta_at=claimed_eps if claimed_eps is not None else eps)
            rows.append({"experiment": experiment, "mechanism": mechanism, "n": int(n), "scope": scope,
                         "counts": c.tolist(), "epsilon": eps, "delta": delta,
                         "concrete_epsilon": r.concrete_epsilon, "claimed_epsilon": claimed_eps,
                         "claimed_delta": claimed_delta, "profile_delta": r.delta_at["delta"],
                         "worst_c": r.worst_pair[0], "worst_c_prime": r.worst_pair[1], "worst_output": r.worst_output})
    return pd.DataFrame(rows)


def merge_privacy_slices(spec: dict, slices: list[pd.DataFrame]) -> pd.DataFrame:
    """The :func:`privacy_loss` table of ``spec`` from its slices, one per n (each the table of ``spec`` with
    ``n = [that n]``): concatenated in the order of ``spec["n"]``, the table one job over the whole grid
    writes. Every n of the grid must come from exactly one slice."""
    by_n = {}
    for df in slices:
        ns = sorted(set(int(v) for v in df["n"]))
        if len(ns) != 1 or ns[0] in by_n:
            raise InputError(f"privacy slices: each slice holds one n, each n once (got n = {ns})")
        by_n[ns[0]] = df
    want = [int(n) for n in spec["n"]]
    if sorted(by_n) != sorted(want):
        raise InputError(f"privacy slices cover n = {sorted(by_n)}, the grid is n = {want}")
    return pd.concat([by_n[n] for n in want], ignore_index=True)


def privacy_audit(experiment: str, mechanism: str, spec: dict, seed: int, progress: bool = False,
                  log=print) -> pd.DataFrame:
    """Black-box lower bounds on the privacy loss of ``mechanism`` at each n, at the exact worst pair and
    at the local worst pair of the balanced data (the exact computation only says where to look).

    The ``2 len(n)`` bounds of one mechanism form a family: each is computed at the Bonferroni level
    ``1 - (1 - confidence) / (2 len(n))``, so all hold jointly with probability >= ``confidence`` and
    the largest of them is itself a valid lower bound (a violation it shows is certified).
    """
    a = np.asarray(spec["prior"], float)
    eps, delta = float(spec["epsilon"]), float(spec["delta"])
    samples, family = int(spec["samples"]), float(spec["confidence"])
    per_pair = bonferroni_level(family, 2 * len(spec["n"]))
    claimed_eps, claimed_delta = MECHANISMS[mechanism].claimed(eps, delta)
    eps_prime = claimed_eps if claimed_eps is not None else eps
    kw = dict(epsilon=eps, delta=delta)
    rows = []
    for n in tqdm(spec["n"], disable=not progress, desc=f"audit {experiment}/{mechanism}"):
        n = int(n)
        c = balanced_counts(n, a.size)
        worst = concrete_epsilon(mechanism, a, n, **kw)
        local = concrete_epsilon(mechanism, a, n, at=c, **kw)
        for scope, pair in (("worst-case", worst.worst_pair), ("local", local.worst_pair)):
            rng, label = job_rng(seed, "audit", experiment, mechanism, n, scope)
            t = time.perf_counter()
            r = audit_mechanism(mechanism, a, n, pair=pair, samples=samples, confidence=per_pair, seed=rng,
                                delta_at=eps_prime, **kw)
            _, pair_delta = exact_pair_epsilon(mechanism, a, pair, delta_at=eps_prime, **kw)
            rows.append({
                "experiment": experiment, "mechanism": mechanism, "n": n, "scope": scope, "prior": a.tolist(),
                "epsilon": eps, "delta": delta, "claimed_epsilon": claimed_eps, "claimed_delta": claimed_delta,
                "exact_worst_epsilon": worst.concrete_epsilon, "exact_local_epsilon": local.concrete_epsilon,
                "pair_c": list(pair[0]), "pair_c_prime": list(pair[1]), "exact_pair_epsilon": r.exact_concrete_epsilon,
                "lower_bound": r.epsilon_lower_bound, "estimate": r.estimate, "event_upper_bound": r.event_upper_bound,
                "confidence": r.confidence, "family_confidence": family, "samples": r.samples,
                "n_events": r.n_events, "event_kind": r.event["kind"], "event_size": r.event.get("size", 0),
                "delta_at": eps_prime, "delta_lower_bound": r.delta["lower_bound"],
                "delta_estimate": r.delta["estimate"], "exact_pair_delta": pair_delta, "seed": label})
            log(f"n={n} {scope}: audited in {time.perf_counter() - t:.2f} s")  # timings to the log only
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ sensitivity
def check_sensitivity_size(n: int) -> None:
    """Refuse, before any work, sensitivity curves over R(n) (k = 2) past the memory budget: about 16
    float64 columns of n + 1 rows, and the smooth searches' tables (the dry run calls this too)."""
    check_size(n + 1, 8 * 16, f"the sensitivity curves over R(n) for n={n}")


def sensitivity_curves(spec: dict) -> pd.DataFrame:
    """LS, gamma-smooth S (gamma = 1), beta-smooth S_b and GS of H for every c at one n, per Beta prior
    (arXiv draft Fig. 1)."""
    n = int(spec["n"])
    check_sensitivity_size(n)
    out = []
    for prior in spec["priors"]:
        a = np.asarray(prior, float)
        cands = candidates(n, 2)
        out.append(pd.DataFrame({
            "prior": f"Beta({a[0]:g},{a[1]:g})", "n": n, "c1": cands[:, 0],
            "LS": local_sensitivity(a, cands), "S": smooth_sensitivity_all(a, n, 1.0),
            "S_beta": beta_smooth_sensitivity_all(a, n, spec["epsilon"], spec["delta"]),
            "GS": global_sensitivity(a, n), "GS_paper": PAPER_GLOBAL_SENSITIVITY,
            "epsilon": spec["epsilon"], "delta": spec["delta"]}))
    return pd.concat(out, ignore_index=True)


def score_changes(spec: dict) -> pd.DataFrame:
    """Per candidate r: max over adjacent c' of ``|H(BI(c), r) - H(BI(c'), r)|`` (arXiv draft Fig. 2)."""
    a = np.asarray(spec["prior"], float)
    out = []
    for c in spec["counts"]:
        c = np.asarray(c, np.int64)
        cands = candidates(int(c.sum()), c.size)
        h = hellinger(a + c, a + cands)
        hn = np.stack([hellinger(a + d, a + cands) for d in neighbours(c)])
        out.append(pd.DataFrame({"data": "(" + ",".join(map(str, c)) + ")", "c1": int(c[0]), "n": int(c.sum()),
                                 "r1": cands[:, 0], "H_truth": h, "max_change": np.abs(hn - h).max(axis=0),
                                 "LS": local_sensitivity(a, c)}))
    return pd.concat(out, ignore_index=True)
