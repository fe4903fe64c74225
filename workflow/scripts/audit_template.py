"""Write the papermill template notebooks/privacy_audit.ipynb (committed without outputs).

Same conventions as make_templates.py (whose header cell it reuses): a `parameters` cell whose
defaults render the `fig6-audit` item of the default config; the notebook loads results/ only
and writes figures/<item>.pdf/.png.  Run `python workflow/scripts/audit_template.py` after
editing the cells below.
"""

from pathlib import Path

import nbformat
from make_templates import HEAD
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

NAME = "privacy_audit"
HEADING = "Empirical (black-box) privacy loss against the exact values and the claimed bound (issue 4)"
PARAMS = """
item = "fig6-audit"
title = "Empirical privacy-loss lower bounds vs n, Beta(1,1), eps = 1, delta = 5e-4 (004 Fig. 6 settings)"
experiment = "fig6"
mechanisms = ["ehd", "ehdl", "ehds", "mh", "mh-delta", "lszhang", "lsdim", "lshist"]
claim_mechanism = "mh-delta"
claim = "004 L854: the concrete eps values are smaller than the upper bound eps = 1"
"""
CELLS = [
"""df = pd.concat([pd.read_parquet(f"results/audit/{experiment}/{m}.parquet") for m in mechanisms], ignore_index=True)
eps, delta = df.epsilon.iloc[0], df.delta.iloc[0]
prior = df.prior.iloc[0]
ns = sorted(df.n.unique())
samples, conf = int(df.samples.iloc[0]), float(df.confidence.iloc[0])
cap = (f"{title}. Prior Beta({','.join(f'{v:g}' for v in prior)}); eps = {eps:g}, delta = {delta:g}; "
       f"n in {{{', '.join(map(str, ns))}}}. Lines: exact concrete eps (SPEC §5), solid = worst case over all data "
       "of size n, dashed = local at the balanced data; dotted = the claimed bound (mh: 2 eps; mh-delta claims "
       f"(eps, delta), so its line is not a pure-eps bound; ehdl claims nothing). Triangles: black-box {conf:.0%} "
       f"lower confidence bound from {samples:,} samples per side (held-out Clopper-Pearson events, Bonferroni over "
       "events), at the exact worst pair (filled) and the local worst pair (open); bars run up to the upper "
       f"confidence bound of the chosen event's loss (bar as a whole: {1 - 2 * (1 - conf):.0%}). A lower bound above the claimed line would certify a violation.")
T.show_markdown("**Caption.** " + cap)""",
"""import textwrap
cols, width = 4, 140
rows_ = int(np.ceil(len(mechanisms) / cols))
cap_in = len(textwrap.wrap(cap, width)) * 7 * 1.3 / 72  # caption height, inches
height = 1.8 * rows_ + 0.9 + cap_in
fig, axes = plt.subplots(rows_, cols, figsize=(7.2, height), sharex=True, squeeze=False)
logx = ns[-1] / ns[0] >= 30  # a narrow grid (90..180) reads better on a linear axis
nudge = (lambda x: x * 1.07) if logx else (lambda x: x + 0.015 * (ns[-1] - ns[0]))  # local pair beside the worst
top = max(df.exact_worst_epsilon.max(), df.event_upper_bound.replace(np.inf, np.nan).max(),
          df.claimed_epsilon.dropna().max()) * 1.1
for ax, m in zip(axes.flat, mechanisms):
    s = df[df.mechanism == m]
    w, l = s[s.scope == "worst-case"].sort_values("n"), s[s.scope == "local"].sort_values("n")
    col = COLOURS.get(m, "k")
    ax.plot(w.n, w.exact_worst_epsilon, color=col, lw=1.2)
    ax.plot(l.n, l.exact_local_epsilon, color=col, lw=1.0, ls="--")
    for g, x, face in ((w, w.n, col), (l, nudge(l.n), "white")):
        up = np.minimum(g.event_upper_bound.to_numpy(), top)
        ax.errorbar(x, g.lower_bound, yerr=[np.zeros(len(g)), up - g.lower_bound], fmt="^", ms=3.5,
                    mfc=face, mec=col, ecolor=col, elinewidth=0.7, capsize=0, lw=0)
    ce = s.claimed_epsilon.iloc[0]
    if ce is not None and np.isfinite(ce):
        ax.axhline(ce, color="k", ls=":", lw=1)
        lab = f"claimed {ce:g}" + (f" (with delta {s.claimed_delta.iloc[0]:g})" if s.claimed_delta.iloc[0] else "")
        ax.annotate(lab, (0.02, ce / top), xycoords="axes fraction", xytext=(0, 2), textcoords="offset points", fontsize=6)
    else:
        ax.annotate("no claim", (0.02, 0.92), xycoords="axes fraction", fontsize=6)
    ax.set_title(NAMES.get(m, m), fontsize=7.5)
    if logx:
        ax.set_xscale("log")
    ax.set_ylim(0, top)
for ax in axes[-1]:
    ax.set_xlabel("data size n")
for ax in axes[:, 0]:
    ax.set_ylabel("privacy loss")
for ax in axes.flat[len(mechanisms):]:
    ax.set_visible(False)
handles = [plt.Line2D([], [], color="k", lw=1.2, label="exact, worst case"),
           plt.Line2D([], [], color="k", lw=1.0, ls="--", label="exact, local (balanced data)"),
           plt.Line2D([], [], color="k", lw=1, ls=":", label="claimed bound"),
           plt.Line2D([], [], color="k", marker="^", ls="none", label=f"{conf:.0%} lower bound, worst pair"),
           plt.Line2D([], [], color="k", marker="^", mfc="white", ls="none", label=f"{conf:.0%} lower bound, local pair")]
fig.legend(handles=handles, loc="upper center", ncol=3, fontsize=6.5, frameon=False)
T.caption(fig, cap, width=width)
fig.subplots_adjust(left=0.08, right=0.99, top=1 - 0.45 / height, bottom=(cap_in + 0.5) / height,
                    hspace=0.32, wspace=0.28)
T.save(fig, item)""",
"""summary = (df[df.scope == "worst-case"].groupby("mechanism", sort=False)
           .agg(claimed_epsilon=("claimed_epsilon", "first"), exact_worst_epsilon=("exact_worst_epsilon", "max"),
                lower_bound=("lower_bound", "max"), estimate=("estimate", "max"), samples=("samples", "first"))
           .reindex(mechanisms).reset_index())
T.show_markdown("Maxima over the n grid (worst pair):\\n\\n" + summary.to_markdown(index=False, floatfmt=".4f"))
for scope in ("worst-case", "local"):
    g = df[df.scope == scope].assign(cell=lambda d: [f"{lb:.3f} / {ex:.3f}" for lb, ex in zip(d.lower_bound, d.exact_pair_epsilon)])
    tab = g.pivot(index="n", columns="mechanism", values="cell")[mechanisms]
    T.show_markdown(f"Lower bound / exact loss of the audited pair ({scope} pair):\\n\\n" + tab.to_markdown())""",
"""rows = []
bad = df[df.lower_bound > df.exact_pair_epsilon * (1 + 1e-9)]
rows.append({"claim": f"auditor soundness: {conf:.0%} lower bound <= exact loss of the audited pair",
             "draft": f"holds at each point with prob. >= {conf:g}", "computed": f"{len(bad)} of {len(df)} points above",
             "verdict": "CONSISTENT" if len(bad) <= max(1, 3 * (1 - conf) * len(df)) else "INCONSISTENT"})
for m in mechanisms:
    g = df[df.mechanism == m]
    ce, cd = g.claimed_epsilon.iloc[0], g.claimed_delta.iloc[0]
    if ce is None or not np.isfinite(ce):
        over = g[g.lower_bound > eps]
        rows.append({"claim": f"{m}: no claim; empirical loss above the nominal eps = {eps:g}?", "draft": "-",
                     "computed": f"max lower bound {g.lower_bound.max():.4f}",
                     "verdict": "ABOVE NOMINAL EPS" if len(over) else "not above nominal eps"})
        continue
    if cd and cd > 0:
        v = g.delta_lower_bound.max()
        rows.append({"claim": f"{m}: claimed ({ce:g}, {cd:g})-DP", "draft": f"delta({ce:g}) <= {cd:g}",
                     "computed": f"max lower bound on delta({ce:g}) = {v:.3g}",
                     "verdict": "VIOLATION CERTIFIED" if v > cd else "no violation found"})
    else:
        v = g.lower_bound.max()
        rows.append({"claim": f"{m}: claimed {ce:g}-DP", "draft": f"loss <= {ce:g}", "computed": f"max lower bound {v:.4f}",
                     "verdict": "VIOLATION CERTIFIED" if v > ce else "no violation found"})
s = df[df.mechanism == claim_mechanism] if claim_mechanism in mechanisms else df.iloc[:0]
if len(s):
    rows.append({"claim": claim + f" ({claim_mechanism}, from samples)", "draft": f"concrete eps < {eps:g}",
                 "computed": f"lower bounds {s.lower_bound.min():.4f} .. {s.lower_bound.max():.4f}",
                 "verdict": "NOT REFUTED (samples can only refute)" if (s.lower_bound < eps).all() else "REFUTED"})
verdicts = T.verdict_table(rows)""",
]


def main() -> None:
    nb = new_notebook()
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                   "language_info": {"name": "python"}}
    nb.cells = [new_markdown_cell(f"# {HEADING}\n\nTemplate `{NAME}`: papermill fills the `parameters` cell from "
                                  "`config.yaml` (`items:`); it loads `results/audit/` only and writes `figures/<item>.*`."),
                new_code_cell(HEAD),
                new_code_cell(PARAMS.strip(), metadata={"tags": ["parameters"]})]
    nb.cells += [new_code_cell(src) for src in CELLS]
    for i, c in enumerate(nb.cells):
        c["id"] = f"{NAME}-{i}"
    out = Path(__file__).resolve().parents[2] / "notebooks"
    nbformat.write(nb, out / f"{NAME}.ipynb")


if __name__ == "__main__":
    main()
