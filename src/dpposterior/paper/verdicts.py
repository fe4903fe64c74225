"""Claim checks: each draft claim recomputed and judged by a stated rule (the paper's verdicts).

Every check returns one :class:`Verdict` row: the claim (with its draft reference), the draft's
value, the computed value, the rule and the tolerance applied, and the verdict. Verdicts are
one of :data:`REPRODUCED`, :data:`PARTLY`, :data:`NOT_REPRODUCED` or :data:`WITHIN_NOISE`
(a Monte Carlo difference the stated test cannot tell from zero); audit rows use
:data:`CONSISTENT` / :data:`INCONSISTENT` where they judge the project's own auditor, and a
privacy claim tested from samples only is :data:`NOT_REFUTED` unless a violation is certified
(samples can refute a guarantee, never prove it). A check that cannot fail is :data:`BY_CONSTRUCTION`, a
bound that holds but says nothing at the settings used is :data:`VACUOUS`, and a claim that cannot be
checked is :data:`CANNOT_CHECK` (with the reason); none of the three counts as REPRODUCED. A row that asks a
question (a draft's future-work question, or the project's own) and claims no answer is :data:`ANSWERED`: its
computed column gives the answer.

Each row says whose statement it checks (its ``source`` column, :func:`source_of`, read from the claim's own
citation): a draft's claim (the draft by version and section), a question a draft asks, or the project's own
finding or check. :func:`problems` lists where a row's words disagree with its own columns.

Inputs are per-point summaries: a value and its standard error (0 for an exact value, e.g. an
expectation computed from the pmf). Two values are compared by a two-sided Welch z-test at
level :data:`ALPHA` (the normal approximation is sound at the drafts' 1000 runs per point);
two exact values are compared directly.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import special

# the verdict words and whose statement a row checks (source_of), in a module of their own (a render job reads them
# without pandas or scipy); all of them are this module's names too (V.BY_CONSTRUCTION, V.source_of, ...)
from .words import (  # noqa: F401
    ANSWERED,
    AUTHORS,
    BY_CONSTRUCTION,
    CANNOT_CHECK,
    CONSISTENT,
    DRAFT,
    DRAFTS,
    INCONSISTENT,
    NOT_REFUTED,
    NOT_REPRODUCED,
    PARTLY,
    PROJECT,
    QUESTION,
    QUESTIONS,
    REPRODUCED,
    VACUOUS,
    WITHIN_NOISE,
    source_of,
    whose,
)

#: Significance level of every Monte Carlo comparison (two-sided, per point).
ALPHA = 0.05
#: Relative tolerance of a crossover location against the draft's value: |ln(x*/x_draft)| <= ln(1 + tol).
CROSSOVER_TOL = 0.25
#: Relative tolerance for "exact" comparisons of computed numbers (floating point only).
EXACT_RTOL = 1e-9

COLUMNS = ["item", "source", "claim", "draft", "computed", "rule", "tolerance", "verdict"]

@dataclass
class Verdict:
    """One row of the verdict table (its ``source`` is read from the claim: :func:`source_of`)."""

    claim: str
    draft: str
    computed: str
    rule: str
    tolerance: str
    verdict: str
    item: str = field(default="")

    @property
    def source(self) -> str:
        return source_of(self.claim)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in COLUMNS}


#: The verdict words that judge a claim (a draft's or the project's), and the words a question's row may have.
CLAIM_WORDS = (REPRODUCED, PARTLY, NOT_REPRODUCED, WITHIN_NOISE, NOT_REFUTED, BY_CONSTRUCTION, VACUOUS, CANNOT_CHECK,
               CONSISTENT, INCONSISTENT)
QUESTION_WORDS = (ANSWERED, CANNOT_CHECK)
_THRESHOLD = re.compile(r"%|>=|<=|≥|≤|(?<![-=])>|<(?!-)")
_LABEL = re.compile(r"(?:^|; |: )([A-Za-z_][\w()]*\s*=\s*[-+\d.e]+):")


def problems(row) -> list[str]:
    """Where a verdict row's words disagree with its own columns (``row``: a :class:`Verdict` or a mapping with
    :data:`COLUMNS`); [] when they agree. The rules:

    1. a question (the source says the row asks one, or its draft column says "a question" or "no claim") has
       the verdict ANSWERED (or CANNOT CHECK), and ANSWERED is only a question's;
    2. a question's draft column states no threshold (no %, <, >, <=, >=): the draft asked, it set no bar;
    3. a row whose claim or draft column says "no claimed guarantee" states no bound in its draft column and is not
       judged as if a guarantee were claimed (not NOT REFUTED, REPRODUCED or NOT REPRODUCED);
    4. a row citing a draft is judged with a claim's verdict words;
    5. each label of the computed column ("t=0.11: ...") names one entry: a label printed twice (two values that
       round alike) reads as one point with two values.
    """
    get = (lambda k: str(getattr(row, k, "") or "")) if isinstance(row, Verdict) else (lambda k: str(row.get(k, "")))
    claim, draft, computed, verdict = get("claim"), get("draft"), get("computed"), get("verdict")
    source = source_of(claim)
    out = []
    asks = whose(source) == QUESTION or source == "project (a question)"
    says_question = bool(re.search(r"\bquestion\b|\bno claim\b", draft, re.IGNORECASE))
    if (asks or says_question) and verdict not in QUESTION_WORDS:
        out.append(f"a question (source {source!r}, draft {draft!r}) judged {verdict}: a question is ANSWERED")
    if verdict == ANSWERED and not (asks or says_question):
        out.append(f"ANSWERED on a row that asks no question (source {source!r}, draft {draft!r})")
    if (asks or says_question) and _THRESHOLD.search(draft):
        out.append(f"a question given a threshold in its draft column: {draft!r}")
    no_guarantee = "no claimed guarantee" in (claim + " " + draft).lower()
    if no_guarantee and (re.search(r"<=|≤|<", draft) or verdict in (NOT_REFUTED, REPRODUCED, NOT_REPRODUCED)):
        out.append(f"no claimed guarantee, yet the draft column reads {draft!r} and the verdict {verdict}")
    if whose(source) == DRAFT and verdict not in CLAIM_WORDS:
        out.append(f"a draft's claim ({source}) with the verdict {verdict}")
    labels = _LABEL.findall(computed)
    names = [lab.split("=")[0].strip() + "=" + lab.split("=")[1].strip() for lab in labels]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        out.append(f"the computed column prints {', '.join(dup)} more than once: two entries that read alike")
    return out


def tally(ok: ArrayLike) -> str:
    """The verdict of a claim judged point by point: REPRODUCED if it holds at every point, PARTLY if at
    some, else NOT REPRODUCED (``ok``: one truth value per point)."""
    ok = np.asarray(ok, dtype=bool)
    return REPRODUCED if ok.all() else PARTLY if ok.any() else NOT_REPRODUCED


# ------------------------------------------------------------------ per-point comparison
def compare(a: ArrayLike, se_a: ArrayLike, b: ArrayLike, se_b: ArrayLike, alpha: float = ALPHA) -> np.ndarray:
    """Per point: -1 if ``a < b`` significantly, +1 if ``a > b`` significantly, 0 if within noise.

    Welch z-test, two-sided at level ``alpha``: ``z = (a - b) / sqrt(se_a^2 + se_b^2)``. Where both
    standard errors are 0 (exact values) the sign of ``a - b`` decides, with ties (relative
    difference <= :data:`EXACT_RTOL`) counted as 0.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    se = np.hypot(np.asarray(se_a, float), np.asarray(se_b, float))
    d = a - b
    # the normal quantile from scipy.special (norm.ppf is ndtri, bit for bit): importing scipy.stats costs
    # ~1.8 CPU s, in every notebook kernel that judges a claim
    crit = float(special.ndtri(1 - alpha / 2))
    exact = se == 0
    out = np.zeros(d.shape, dtype=int)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(exact, 0.0, d / np.where(exact, 1.0, se))
    out[~exact & (z <= -crit)] = -1
    out[~exact & (z >= crit)] = 1
    tie = np.abs(d) <= EXACT_RTOL * np.maximum(np.abs(a), np.abs(b))
    out[exact & ~tie] = np.sign(d[exact & ~tie]).astype(int)
    return out


def _fmt_x(v: float) -> str:
    return f"{v:.4g}"


def _test_rule(se_a, se_b, alpha=ALPHA, m: int = 1) -> str:
    if np.all(np.asarray(se_a) == 0) and np.all(np.asarray(se_b) == 0):
        return "exact values compared directly"
    return (f"per point: two-sided Welch z-test at alpha/{m} = {alpha / m:.3g} (Bonferroni over the {m} comparisons, "
            f"jointly alpha = {alpha:g}) on the Monte Carlo means (exact values where the pmf exists)")


def joint(alpha: float, m: int) -> float:
    """Per-comparison level so that ``m`` comparisons hold jointly at ``alpha`` (Bonferroni)."""
    return alpha / max(int(m), 1)


# ------------------------------------------------------------------ crossover
def crossover_point(x: ArrayLike, better: ArrayLike, worse: ArrayLike) -> float | None:
    """Smallest x from which ``better`` stays below ``worse`` at every later grid point.

    Interpolated linearly in ln x between the last grid point where ``better >= worse`` and the
    next one. None if ``better`` is not below at the last point; ``x[0]`` if below everywhere.
    """
    x = np.asarray(x, float)
    d = np.asarray(better, float) - np.asarray(worse, float)
    if d[-1] >= 0:
        return None
    i = len(d) - 1
    while i > 0 and d[i - 1] < 0:
        i -= 1
    if i == 0:
        return float(x[0])
    lx0, lx1 = np.log(x[i - 1]), np.log(x[i])
    f = d[i - 1] / (d[i - 1] - d[i])
    return float(np.exp(lx0 + f * (lx1 - lx0)))


def within_tolerance(value: float, target: float, tol: float = CROSSOVER_TOL) -> bool:
    """``|ln(value / target)| <= ln(1 + tol)``, inclusive (a value exactly at the tolerance passes)."""
    return abs(math.log(value / target)) <= math.log1p(tol) * (1 + 1e-12)


def crossover(claim: str, x: ArrayLike, better: ArrayLike, se_better: ArrayLike, worse: ArrayLike,
              se_worse: ArrayLike, *, names: tuple[str, str], draft: float | None = None, xname: str = "n",
              tol: float = CROSSOVER_TOL, alpha: float = ALPHA) -> Verdict:
    """Claim "``better`` overtakes ``worse`` (near x = draft)".

    Rule: x* = :func:`crossover_point` of the means; ``better`` must be significantly worse at some
    grid point before x* (or x* lies inside the grid) and significantly better at the last point.
    REPRODUCED: exactly one significant sign change and, if the draft gives a location, x* is within
    ``tol`` (relative, on the log scale) of it; without a location ``better`` must also be significantly
    worse at the first grid point ("worse at first, better after a while"). PARTLY: a crossover exists
    but away from the draft's location, or with more than one significant sign change (listed), or
    (no location) not worse at the first point. NOT REPRODUCED: no crossover on the grid. WITHIN
    NOISE: the sign at the largest x is not significant.
    """
    b_name, w_name = names
    x = np.asarray(x, float)
    sign = compare(better, se_better, worse, se_worse, joint(alpha, x.size))
    xs = crossover_point(x, better, worse)
    d = np.asarray(better, float) - np.asarray(worse, float)
    changes = int(np.sum(np.diff(np.sign(d)) != 0))
    noise = [_fmt_x(v) for v, s in zip(x, sign, strict=False) if s == 0]
    noise_txt = f"; within noise at {xname} in {{{', '.join(noise)}}}" if noise else ""
    draft_txt = (f"{xname}* ~ {draft:g}" if draft is not None
                 else "worse at first, better after a while (the draft gives no location)")
    tol_txt = (f"|ln({xname}*/{draft:g})| <= ln(1 + {tol:g}) "
               f"({xname}* in [{draft / (1 + tol):.4g}, {draft * (1 + tol):.4g}])"
               if draft is not None else "none on the location")
    tol_txt += f"; one significant sign change; alpha = {alpha:g} jointly"
    rule = ("x* = smallest grid x from which the better mechanism stays below (ln-x interpolation of the mean "
            "difference); " + _test_rule(se_better, se_worse, alpha, x.size))
    if xs is None:
        comp = f"{b_name} not below {w_name} at the largest {xname} ({xname} = {x[-1]:g}){noise_txt}"
        verdict = WITHIN_NOISE if sign[-1] == 0 else NOT_REPRODUCED
    elif xs == x[0]:
        comp = f"{b_name} below {w_name} at every {xname} of the grid ({xname} >= {x[0]:g}): no crossover{noise_txt}"
        verdict = NOT_REPRODUCED
    else:
        flips = sign_changes(x, sign)
        comp = f"{xname}* = {xs:.4g} ({changes} sign change(s) on the grid){noise_txt}"
        if len(flips) > 1:
            comp += (f"; significant sign changes near {xname} = {', '.join(_fmt_x(v) for v in flips)} "
                     f"({b_name} also better before {xname}*)")
        if sign[-1] != -1:
            verdict = WITHIN_NOISE
        elif not np.any(sign == 1):
            comp += f"; {b_name} never significantly worse before {xname}*"
            verdict = WITHIN_NOISE
        elif len(flips) > 1:
            verdict = PARTLY
        elif draft is None and sign[0] != 1:
            comp += f"; {b_name} not significantly worse at the first {xname} = {x[0]:g}"
            verdict = PARTLY
        elif draft is None or within_tolerance(xs, draft, tol):
            verdict = REPRODUCED
        else:
            verdict = PARTLY
    return Verdict(claim, draft_txt, comp, rule, tol_txt, verdict)


def sign_changes(x: ArrayLike, sign: ArrayLike) -> list[float]:
    """Where the significant sign (+1/-1, zeros skipped) changes: the geometric midpoint of the two grid x."""
    x, sign = np.asarray(x, float), np.asarray(sign, int)
    keep = np.nonzero(sign != 0)[0]
    return [float(np.sqrt(x[i] * x[j])) for i, j in zip(keep[:-1], keep[1:], strict=False) if sign[i] != sign[j]]


def loses_from(claim: str, x: ArrayLike, better: ArrayLike, se_better: ArrayLike, worse: ArrayLike,
               se_worse: ArrayLike, *, names: tuple[str, str], draft: float, xname: str = "n",
               tol: float = CROSSOVER_TOL, alpha: float = ALPHA) -> Verdict:
    """Claim "``better`` wins below x = draft and loses from there on" (001 Fig. 1 reading).

    Rule: x_loss = smallest grid x from which ``better`` is never significantly better again.
    REPRODUCED: ``better`` wins significantly somewhere below x_loss and x_loss is within ``tol`` of
    the draft; PARTLY: it wins below some x_loss away from the draft; NOT REPRODUCED: it never wins
    significantly, or still wins at the largest x.
    """
    b_name, w_name = names
    x = np.asarray(x, float)
    sign = compare(better, se_better, worse, se_worse, joint(alpha, x.size))
    wins = [v for v, s in zip(x, sign, strict=False) if s == -1]
    noise = [_fmt_x(v) for v, s in zip(x, sign, strict=False) if s == 0]
    rule = ("x_loss = smallest grid x from which the first mechanism is never significantly better; "
            + _test_rule(se_better, se_worse, alpha, x.size))
    tol_txt = f"|ln(x_loss/{draft:g})| <= ln(1 + {tol:g}); alpha = {alpha:g} jointly"
    if not wins:
        comp = f"{b_name} never significantly better than {w_name} on the grid"
        if noise:
            comp += f" (within noise at {xname} in {{{', '.join(noise)}}})"
        return Verdict(claim, f"{xname}* = {draft:g}", comp, rule, tol_txt, NOT_REPRODUCED)
    last_win = int(np.max(np.nonzero(sign == -1)[0]))
    if last_win == len(x) - 1:
        comp = f"{b_name} still significantly better at the largest {xname} = {x[-1]:g}"
        return Verdict(claim, f"{xname}* = {draft:g}", comp, rule, tol_txt, NOT_REPRODUCED)
    xl = float(x[last_win + 1])
    comp = (f"{b_name} significantly better at {xname} in {{{', '.join(_fmt_x(v) for v in wins)}}}; "
            f"never again from {xname} = {xl:g}")
    if noise:
        comp += f"; within noise at {xname} in {{{', '.join(noise)}}}"
    verdict = REPRODUCED if within_tolerance(xl, draft, tol) else PARTLY
    return Verdict(claim, f"{xname}* = {draft:g}", comp, rule, tol_txt, verdict)


# ------------------------------------------------------------------ better than
def better_everywhere(claim: str, x: ArrayLike, better: ArrayLike, se_better: ArrayLike, worse: ArrayLike,
                      se_worse: ArrayLike, *, names: tuple[str, str], xname: str = "n",
                      alpha: float = ALPHA) -> Verdict:
    """Claim "``better`` has lower error than ``worse`` at every point of the grid".

    Rule: per point the stated test. REPRODUCED: significantly better at every point. PARTLY: better
    at some points, never significantly worse elsewhere, or worse at some points only.
    NOT REPRODUCED: significantly better nowhere. WITHIN NOISE: no point is significant either way.
    """
    b_name, w_name = names
    x = np.asarray(x, float)
    sign = compare(better, se_better, worse, se_worse, joint(alpha, x.size))
    good = [_fmt_x(v) for v, s in zip(x, sign, strict=False) if s == -1]
    bad = [_fmt_x(v) for v, s in zip(x, sign, strict=False) if s == 1]
    noise = [_fmt_x(v) for v, s in zip(x, sign, strict=False) if s == 0]
    parts = [f"{b_name} < {w_name} at {len(good)} of {len(x)} points"]
    if bad:
        parts.append(f"worse at {xname} in {{{', '.join(bad)}}}")
    if noise:
        parts.append(f"within noise at {xname} in {{{', '.join(noise)}}}")
    if len(good) == len(x):
        verdict = REPRODUCED
    elif not good and not bad:
        verdict = WITHIN_NOISE
    elif not good:
        verdict = NOT_REPRODUCED
    else:
        verdict = PARTLY
    return Verdict(claim, f"{b_name} better at every {xname}", "; ".join(parts),
                   "per point, " + _test_rule(se_better, se_worse, alpha, x.size),
                   f"alpha = {alpha:g} jointly over the {x.size} points", verdict)


def approaches(claim: str, x: ArrayLike, a: ArrayLike, b: ArrayLike, *, names: tuple[str, str], xname: str = "n",
               ratio_tol: float = 0.1) -> Verdict:
    """Claim "``a`` approaches ``b`` as x grows" (errors of two mechanisms), judged on the ratio a/b only
    (both errors go to 0, so the absolute gap always shrinks and says nothing).

    Rule: REPRODUCED if |a/b - 1| <= ``ratio_tol`` at the largest x. PARTLY if the ratio is nearer 1 at the
    largest x than at the smallest and still moving towards 1 over the last decade of x
    (|r(x_last) - 1| < 0.9 |r(x_ref) - 1|, x_ref the largest grid x <= x_last / 10, else the first x).
    NOT REPRODUCED otherwise (the ratio moves away from 1 or stalls away from it).
    """
    a, b, x = np.asarray(a, float), np.asarray(b, float), np.asarray(x, float)
    ratio = a / b
    dev = np.abs(ratio - 1)
    ref = int(np.max(np.nonzero(x <= x[-1] / 10)[0])) if np.any(x <= x[-1] / 10) else 0
    to_one = dev[-1] <= ratio_tol
    moving = dev[-1] < dev[0] and dev[-1] < 0.9 * dev[ref]
    comp = (f"ratio {names[0]}/{names[1]}: {ratio[0]:.3g} ({xname} = {x[0]:g}) -> {ratio[ref]:.3g} ({xname} = {x[ref]:g})"
            f" -> {ratio[-1]:.3g} ({xname} = {x[-1]:g}); max {ratio.max():.3g}")
    verdict = REPRODUCED if to_one else PARTLY if moving else NOT_REPRODUCED
    return Verdict(claim, "error ratio -> 1", comp,
                   "ratio a/b within tolerance of 1 at the largest x; else PARTLY if nearer 1 than at the first x and "
                   "still moving towards 1 over the last decade of x (exact values where the pmf exists)",
                   f"|a/b - 1| <= {ratio_tol:g} at the largest {xname}", verdict)


# ------------------------------------------------------------------ trend
def trend(claim: str, x: ArrayLike, values: ArrayLike, se: ArrayLike, *, name: str, direction: str,
          xname: str = "x", alpha: float = ALPHA) -> Verdict:
    """Claim "``values`` go ``direction`` ('up' or 'down') along x", judged on every step, not the endpoints.

    Rule: each consecutive step and the overall change (last vs first) are tested with the stated
    test. REPRODUCED: the overall change is significant in the claimed direction and no step is
    significant against it. PARTLY: the overall change goes the claimed way but some step goes
    significantly against it (a non-monotone trend). WITHIN NOISE: the overall change is not
    significant. NOT REPRODUCED: the overall change goes significantly the other way.
    """
    if direction not in ("up", "down"):
        raise ValueError("direction must be 'up' or 'down'")
    want = 1 if direction == "up" else -1
    v, s, x = np.asarray(values, float), np.asarray(se, float), np.asarray(x, float)
    a_pt = joint(alpha, v.size)  # the v.size - 1 steps and the overall change
    steps = compare(v[1:], s[1:], v[:-1], s[:-1], a_pt)
    overall = int(compare(v[-1:], s[-1:], v[:1], s[:1], a_pt)[0])
    against = [f"{x[i]:g}->{x[i + 1]:g}" for i, st in enumerate(steps) if st == -want]
    comp = f"{name}: " + " , ".join(f"{t:.4g}" for t in v)
    if against:
        comp += f"; steps against the trend: {', '.join(against)}"
    if overall == want:
        verdict = PARTLY if against else REPRODUCED
    elif overall == 0:
        verdict = WITHIN_NOISE
    else:
        verdict = NOT_REPRODUCED
    return Verdict(claim, f"error goes {direction}", comp,
                   "every consecutive step and last-vs-first tested; " + _test_rule(s, s, alpha, v.size),
                   f"alpha = {alpha:g} jointly over the {v.size} comparisons", verdict)


# ------------------------------------------------------------------ bounds and formulas
def bound_holds(claim: str, values: ArrayLike, bound: ArrayLike, *, what: str, draft: str,
                rtol: float = EXACT_RTOL) -> Verdict:
    """Claim "``values`` <= ``bound``" at every point (exact values). Rule: ``v <= b (1 + rtol)`` everywhere."""
    v, b = np.asarray(values, float), np.asarray(bound, float)
    ok = v <= b * (1 + rtol)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.nanmax(v / b) if b.size else np.nan
    comp = f"{what}: max value/bound = {r:.4g}; fails at {int((~ok).sum())} of {v.size} points"
    verdict = tally(ok)
    return Verdict(claim, draft, comp, "value <= bound at every point (exact values)", f"relative {rtol:g}", verdict)


def formula_matches(claim: str, printed: ArrayLike, computed: ArrayLike, *, what: str, digits: int | None = None,
                    atol: float | None = None) -> Verdict:
    """Claim "the printed numbers equal the formula's". Rule: ``max |printed - computed| <= atol``.

    ``atol`` defaults to half a unit in the last printed digit when ``digits`` (significant
    digits printed) is given, else 1e-9. Missing printed entries (NaN) are skipped.
    """
    p, c = np.asarray(printed, float), np.asarray(computed, float)
    keep = ~np.isnan(p)
    err = np.abs(p[keep] - c[keep])
    if atol is None:
        atol = 1e-9 if digits is None else float(np.max(
            0.5 * 10.0 ** (np.floor(np.log10(np.abs(p[keep]) + 1e-300)) - digits + 1)))
    worst = float(err.max()) if err.size else 0.0
    n_ok = int((err <= atol).sum())
    verdict = tally(err <= atol)
    return Verdict(claim, f"printed {what}", f"max |printed - computed| = {worst:.3g} ({n_ok} of {err.size} entries match)",
                   "each printed entry against the formula", f"absolute {atol:.3g}", verdict)


def value_matches(claim: str, draft_value: float, computed: float, *, what: str, atol: float) -> Verdict:
    """A single number against the draft's: ``|computed - draft| <= atol``."""
    ok = abs(computed - draft_value) <= atol
    return Verdict(claim, f"{what} = {draft_value:g}", f"{what} = {computed:.4g}", "|computed - draft| <= tolerance",
                   f"absolute {atol:g}", REPRODUCED if ok else NOT_REPRODUCED)


def ordering(claim: str, labels: list[str], first: ArrayLike, second: ArrayLike, want: list[int], *, draft: str,
             names: tuple[str, str]) -> Verdict:
    """Claim about the sign of ``first - second`` at each label (``want`` entries -1/+1; exact values).

    REPRODUCED: every sign as claimed; PARTLY: some; NOT REPRODUCED: none.
    """
    f, s = np.asarray(first, float), np.asarray(second, float)
    got = np.sign(f - s).astype(int)
    hits = got == np.asarray(want)
    comp = "; ".join(f"{lab}: {a:.4g} {'<' if g < 0 else '>' if g > 0 else '='} {b:.4g}"
                     for lab, a, b, g in zip(labels, f, s, got, strict=False))
    verdict = tally(hits)
    return Verdict(claim, draft, f"{names[0]} vs {names[1]}: {comp}", "sign of the difference at each entry (exact values)",
                   "exact (no tolerance)", verdict)


# ------------------------------------------------------------------ audits: multiplicity and soundness
def bonferroni_level(confidence: float, m: int) -> float:
    """Per-test confidence so that ``m`` one-sided bounds hold simultaneously with prob. >= ``confidence``."""
    if m < 1:
        raise ValueError("m must be >= 1")
    return 1.0 - (1.0 - confidence) / m


def holm_reject(p_values: ArrayLike, alpha: float) -> np.ndarray:
    """Holm's step-down procedure: which hypotheses are rejected at family-wise level ``alpha``."""
    p = np.asarray(p_values, float)
    order = np.argsort(p, kind="stable")
    m = p.size
    reject = np.zeros(m, dtype=bool)
    for rank, i in enumerate(order):
        if p[i] <= alpha / (m - rank):
            reject[i] = True
        else:
            break
    return reject


def _family_top(lower_bounds: ArrayLike, family_confidence: float, per_bound_confidence: float):
    """The bounds and their largest, refusing (ValueError) a family whose bounds do not hold jointly at
    ``family_confidence`` (each must be at Bonferroni's ``1 - (1 - family_confidence) / m`` or above)."""
    lb = np.asarray(lower_bounds, float)
    need = bonferroni_level(family_confidence, lb.size)
    if per_bound_confidence < need - 1e-12:
        raise ValueError(f"{lb.size} bounds at {per_bound_confidence:g} each do not hold jointly at "
                         f"{family_confidence:g}; compute each at >= {need:.6g} (Bonferroni)")
    return lb, float(np.max(lb))


def exceeds(question: str, lower_bounds: ArrayLike, nominal: float, *, family_confidence: float,
            per_bound_confidence: float, what: str = "privacy loss") -> Verdict:
    """A release that claims no guarantee: does the family of lower confidence bounds certify a loss above the
    ``nominal`` eps it is run at? A question, not a claim (:data:`ANSWERED`): "yes" when the largest bound exceeds
    ``nominal`` (the family holding jointly at ``family_confidence``, Bonferroni, as in :func:`violation`), else "no
    loss above it was found" (samples cannot show that a release is private)."""
    lb, top = _family_top(lower_bounds, family_confidence, per_bound_confidence)
    answer = (f"yes: the largest of {lb.size} lower bounds on the {what} is {top:.4g} > {nominal:g} (certified)"
              if top > nominal else
              f"none found: the largest of {lb.size} lower bounds on the {what} is {top:.4g} (samples cannot show that "
              "the release is private)")
    return Verdict(question, "no claimed guarantee (not private by design)", answer,
                   f"Bonferroni over the family: each bound at {per_bound_confidence:.6g}, jointly {family_confidence:g}",
                   "none (a question: the answer is the computed column)", ANSWERED)


def violation(claim: str, lower_bounds: ArrayLike, claimed: float, *, family_confidence: float,
              per_bound_confidence: float, what: str = "privacy loss") -> Verdict:
    """Does any of a family of lower confidence bounds exceed the claimed value?

    Rule: the violation is certified only if the bounds hold simultaneously at ``family_confidence``,
    i.e. each bound was computed at level >= Bonferroni's ``1 - (1 - family_confidence) / m`` for the
    ``m`` bounds of the family. Raises ValueError when ``per_bound_confidence`` is too low for that,
    since the maximum of m individually valid bounds is not a valid bound.
    Verdicts: NOT REPRODUCED (violation certified) or NOT REFUTED (no bound above the claim).
    """
    lb, top = _family_top(lower_bounds, family_confidence, per_bound_confidence)
    return Verdict(claim, f"{what} <= {claimed:g}",
                   f"max of {lb.size} lower bounds = {top:.4g}" + (" (violation certified)" if top > claimed else ""),
                   f"Bonferroni over the family: each bound at {per_bound_confidence:.6g}, jointly {family_confidence:g}",
                   "none (a certified lower bound above the claim)", NOT_REPRODUCED if top > claimed else NOT_REFUTED)


def audit_soundness(claim: str, lower_bounds: ArrayLike, exact: ArrayLike, per_bound_confidence: ArrayLike, *,
                    alpha: float = 0.01) -> Verdict:
    """Is the auditor sound: do its lower bounds exceed the exact loss no more often than their level allows?

    Each bound i exceeds the exact loss with probability <= beta_i = 1 - confidence_i. Under
    soundness the number X of exceedances is stochastically below a Poisson-binomial with these
    beta_i; we use its upper bound Binomial(N, max beta_i). Rule: exact one-sided binomial test,
    p = P(Binomial(N, max beta) >= X); INCONSISTENT (the auditor is broken) when p < ``alpha``.
    A broken auditor that reports estimates instead of lower bounds (about half above the truth)
    fails this test.
    """
    lb, ex = np.asarray(lower_bounds, float), np.asarray(exact, float)
    beta = float(np.max(1 - np.asarray(per_bound_confidence, float)))
    above = int(np.sum(lb > ex * (1 + EXACT_RTOL) + 1e-12))
    n = lb.size
    # P(Binomial(n, beta) >= above) = I_beta(above, n - above + 1), the regularised incomplete beta: equal to
    # scipy.stats' binom.sf(above - 1, n, beta) at every n < 200 checked (the tests pin it), without importing
    # scipy.stats
    p = float(special.betainc(above, n - above + 1, beta)) if above else 1.0
    return Verdict(claim, f"exceedances ~ at most Binomial({n}, {beta:.3g})",
                   f"{above} of {n} lower bounds above the exact loss; p = {p:.3g}",
                   "exact one-sided binomial test of the exceedance count",
                   f"alpha = {alpha:g}", CONSISTENT if p >= alpha else INCONSISTENT)


def as_frame(rows: list[Verdict], item: str = ""):
    """The rows as a DataFrame with :data:`COLUMNS` (the item filled in where empty, the source read from the
    claim)."""
    out = []
    for r in rows:
        d = asdict(r)
        d["item"] = d["item"] or item
        d["source"] = r.source
        out.append({k: d[k] for k in COLUMNS})
    return pd.DataFrame(out, columns=COLUMNS)


def counts_line(df) -> str:
    """'2 REPRODUCED, 1 PARTLY' for a verdict DataFrame (order of first appearance)."""
    c = df.verdict.value_counts(sort=False)
    return ", ".join(f"{int(n)} {v}" for v, n in c.items())
