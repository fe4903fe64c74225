# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Template `privacy_audit`: empirical (black-box) privacy loss against the exact values and the claimed bound

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables

style.apply()

# %% tags=["parameters"]
item = "fig6-audit"
title = None
mechanisms = None
claim_mechanism = None
claim = None
inputs = None
outputs = None

# %%
# Run as it is (in Jupyter, not by the pipeline, which passes every parameter): the parameters the pipeline
# would pass, from config.yaml's `items:` entry of `item` and its source experiment.
if inputs is None:
    globals().update(items.parameters(item))

# %%
df = items.load(inputs["audit"])
eps, delta = df.epsilon.iloc[0], df.delta.iloc[0]
prior = df.prior.iloc[0]
ns = sorted(df.n.unique())
samples, family, per = int(df.samples.iloc[0]), float(df.family_confidence.iloc[0]), float(df.confidence.iloc[0])
caption = (f"{title}. Prior Beta({','.join(f'{v:g}' for v in prior)}); eps = {eps:g}, delta = {delta:g}; "
           f"n in {{{', '.join(map(str, ns))}}}. Lines: exact concrete eps, solid = worst case over all data of size n, "
           "dashed = local at the balanced data; dotted = the claimed eps (mh: 2 eps; mh-delta claims (eps, delta), so "
           "its line is not a pure-eps bound; ehdl claims nothing). Triangles: black-box lower confidence bounds from "
           f"{samples:,} samples per side (held-out Clopper-Pearson events) at the exact worst pair (filled) and the "
           f"local worst pair (open); each at {per:.5f} so that the {2 * len(ns)} bounds of a mechanism hold jointly at "
           f"{family:.0%} (Bonferroni). Bars run up to the upper confidence bound of the chosen event's loss.")
tables.show_text("**Caption.** " + caption)

# %%
cols = 4
nrow = int(np.ceil(len(mechanisms) / cols))
fig, axes = plt.subplots(nrow, cols, figsize=(8.0, 2.0 * nrow + 0.4), sharex=True, squeeze=False)
logx = ns[-1] / ns[0] >= 30
nudge = (lambda x: x * 1.07) if logx else (lambda x: x + 0.015 * (ns[-1] - ns[0]))  # noqa: E731
top = max(df.exact_worst_epsilon.max(), df.event_upper_bound.replace(np.inf, np.nan).max(),
          df.claimed_epsilon.dropna().max()) * 1.1
for ax, m in zip(axes.flat, mechanisms):
    s = df[df.mechanism == m]
    w, l = s[s.scope == "worst-case"].sort_values("n"), s[s.scope == "local"].sort_values("n")
    col = style.colour(m)
    ax.plot(w.n, w.exact_worst_epsilon, color=col, lw=1.2)
    ax.plot(l.n, l.exact_local_epsilon, color=col, lw=1.0, ls="--")
    for g, x, face in ((w, w.n, col), (l, nudge(l.n), "white")):
        up = np.minimum(g.event_upper_bound.to_numpy(), top)
        ax.errorbar(x, g.lower_bound, yerr=[np.zeros(len(g)), up - g.lower_bound], fmt="^", ms=3.5,
                    mfc=face, mec=col, ecolor=col, elinewidth=0.7, capsize=0, lw=0)
    ce = s.claimed_epsilon.iloc[0]
    if ce is not None and np.isfinite(ce):
        ax.axhline(ce, color="k", ls=":", lw=1)
    ax.set_title(style.name(m) + ("" if ce is not None and np.isfinite(ce) else " (no claim)"), fontsize=8)
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
           plt.Line2D([], [], color="k", lw=1, ls=":", label="claimed eps"),
           plt.Line2D([], [], color="k", marker="^", ls="none", label="lower bound, worst pair"),
           plt.Line2D([], [], color="k", marker="^", mfc="white", ls="none", label="lower bound, local pair")]
fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
fig.tight_layout()
plt.show()

# %%
table = (df[df.scope == "worst-case"].groupby("mechanism", sort=False)
         .agg(claimed_epsilon=("claimed_epsilon", "first"), exact_worst_epsilon=("exact_worst_epsilon", "max"),
              lower_bound=("lower_bound", "max"), estimate=("estimate", "max"), samples=("samples", "first"))
         .reindex(mechanisms).reset_index())
tables.show(table, heading="Maxima over the n grid (worst pair)")
for scope in ("worst-case", "local"):
    g = df[df.scope == scope].assign(cell=lambda d: [f"{lb:.3f} / {ex:.3f}" for lb, ex in zip(d.lower_bound, d.exact_pair_epsilon)])
    tables.show(g.pivot(index="n", columns="mechanism", values="cell")[mechanisms], index=True,
                heading=f"Lower bound / exact loss of the audited pair ({scope} pair)")
rows = C.audit(df, claim=claim, claim_mechanism=claim_mechanism)
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
