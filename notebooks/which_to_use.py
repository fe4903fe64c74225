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
# # Template `which_to_use`: which release to use
#
# Template `which_to_use` (the arXiv draft's future work 1: when do the mechanisms beat the baselines?). Over a
# grid of n, eps and prior (Beta(a, a) at k = 2, Dir(a, ..., a) at k = 3 and 4, at the small n where |R(n)| fits),
# each cell names the pure eps-DP release (claimed, or certified by calibration) with the smallest exact expected
# error: on average under the prior predictive, and in the worst case over data sets. `optimal` (geometric + remap
# at k = 2; the linear program at k >= 3 where it runs) is not ranked: it is the best possible by construction, so
# each cell names the winner, its margin over the runner-up and how far it is from the optimum ("opt. x1.05"; "no
# LP optimum" where the k >= 3 LP is past its budgets and `optimal` runs the lattice release), and the bottom rows
# show every release's error over the optimum's at eps = 1. The lattice release (K-norm noise + the objective's
# remap) is ranked: its noise has a closed form and only its remap is solved (docs/lattice.md). `mh` (claims 2 eps)
# and `mh-delta` (claims (eps, delta)) are not ranked.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import beyond
from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables

style.apply()

# %% tags=["parameters"]
item = "which-to-use"
title = None
mechanisms = None
claims = None
inputs = None
outputs = None
better = None
worse = None

# %%
# Run as it is (in Jupyter, not by the pipeline, which passes every parameter): the parameters the pipeline
# would pass, from config.yaml's `items:` entry of `item` and its source experiment.
if inputs is None:
    globals().update(items.parameters(item))

# %%
df = items.load(inputs["expected_error"])
settings = sorted({(int(k), float(a)) for k, a in zip(df.k, df.prior_strength, strict=True)})
epss = sorted(df.epsilon.unique())
ns_of = {(k, a): sorted(df[(df.k == k) & (df.prior_strength == a)].n.unique()) for k, a in settings}


def prior_name(k, a):
    return ("Beta" if k == 2 else "Dir") + "(" + ",".join([f"{a:g}"] * k) + ")"



wins = {o: beyond.winners(df, o) for o in ("average", "worst")}
ratio = beyond.ratios(df)
names = sorted(set(wins["average"].winner) | set(wins["worst"].winner))
eps_line = min(epss, key=lambda e: abs(e - 1.0))
caption = (f"{title}. Priors " + "; ".join(f"{prior_name(k, a)} at n in {{{', '.join(map(str, ns_of[k, a]))}}}"
                                          for k, a in settings)
           + f"; eps in {{{', '.join(f'{e:g}' for e in epss)}}}. Top two rows, each cell: the winner "
           "(its name, as in the legend; the cell's colour is its colour, lightened; \"= lshist\": a release with the "
           "same error, the same release under another name), its margin (\"runner-up +2.1%\": "
           "the next release's error is 2.1 % larger; \"tie\" under 0.05 %), and its error over the optimum's (\"opt. "
           "x1.05\"; 1 = the best possible: geometric + remap at k = 2, the linear program at k >= 3; \"no LP optimum\": "
           "the linear program is past its budgets there, so no certified optimum was computed, though one exists). "
           "First row: average error under the prior "
           "predictive; second row: worst case over data sets. Bottom two rows: every release's error over the "
           f"optimum's against n at eps = {eps_line:g} (average, then worst case; log scale), or, where the optimum "
           "was computed at one n only (the k >= 3 linear program's budgets), at that n as bars. Exact values.")
tables.show_text("**Caption.** " + caption)

# %%
fig, axes = plt.subplots(4, len(settings), figsize=(5.0 * len(settings) + 0.6, 15.0), squeeze=False)
cell_font = 7.5 if len(epss) <= 3 else 6.5  # three lines: the winner, its margin, its distance to the optimum
for i, objective in enumerate(("average", "worst")):
    w = wins[objective]
    for j, (k, a) in enumerate(settings):
        ax = axes[i, j]
        s = w[(w.k == k) & (w.prior_strength == a)]
        ns = ns_of[k, a]
        for r in s.itertuples():
            x, y = epss.index(r.epsilon), ns.index(r.n)
            ax.add_patch(plt.Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=style.tint(style.colour(r.winner)),
                                       edgecolor="white", lw=1.0))
            ax.text(x, y, style.winner_cell(r.winner, r.runner_up, r.ratio, r.to_optimum, r.same), ha="center",
                    va="center", fontsize=cell_font, linespacing=1.15, color="black")
        ax.set_xlim(-0.5, len(epss) - 0.5)
        ax.set_ylim(-0.5, len(ns) - 0.5)
        ax.set_xticks(range(len(epss)), [f"{e:g}" for e in epss])
        ax.set_yticks(range(len(ns)), [str(n) for n in ns])
        ax.set_xlabel("epsilon")
        ax.set_ylabel("n")
        ax.grid(False)
        ax.set_title(f"{objective} error, {prior_name(k, a)}")
ranked = [m for m in mechanisms if m in set(ratio[ratio.pure_dp].mechanism)]  # pure eps-DP releases only
for i, objective in enumerate(("average", "worst")):
    for j, (k, a) in enumerate(settings):
        ax = axes[2 + i, j]
        sub = ratio[(ratio.objective == objective) & (ratio.k == k) & (ratio.prior_strength == a)
                    & (ratio.epsilon == eps_line)]
        if sub.n.nunique() == 1:  # the optimum (the LP) at one n only: bars, not a panel of single points
            style.ratio_bars(ax, sub, ranked)
        else:
            style.ratio_panel(ax, sub, ranked, ns_of[k, a], xlabel="n")
        ax.set_title(f"{objective} error over the optimum's, {prior_name(k, a)}, eps = {eps_line:g}", fontsize=8)
shown = sorted(set(names) | set(ranked), key=lambda m: (m not in names, m))
handles = [plt.Rectangle((0, 0), 1, 1, facecolor=style.tint(style.colour(m)), edgecolor=style.colour(m), lw=2.0,
                         label=style.name(m)) for m in shown]  # the cells' tint, edged with the lines' colour
handles.append(plt.Line2D([], [], color="black", lw=2.2, label="the optimum (geometric + remap; k >= 3: the LP)"))
fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=4, frameon=False)
fig.tight_layout()
plt.show()

# %%
table = wins["average"].merge(wins["worst"], on=["k", "prior_strength", "n", "epsilon"],
                              suffixes=(" (average)", " (worst)"))
tables.show(table, heading="Winner and runner-up per cell, and the winner's error over the optimum's")
tables.show(ratio.pivot_table(index=["k", "prior_strength", "n", "epsilon", "objective"], columns="mechanism",
                              values="ratio").reset_index(),
            heading="Every release's error over the optimum's, per cell and objective (1 = the best possible)")
rows = C.which_to_use(df, better=better, worse=worse) + C.judge("which_to_use", claims, df)  # the item's claims: kinds of claims.optimum
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
