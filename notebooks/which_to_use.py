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
# each cell says how far the winner is from it ("opt. x1.05"; "opt. n/a" where the k >= 3 LP is past its budgets
# and `optimal` runs the lattice release), and the bottom rows show every release's error over the optimum's at eps
# = 1. The lattice release (K-norm noise + the objective's remap) is ranked: its noise has a closed form and only
# its remap is solved (docs/lattice.md). `mh` (claims 2 eps) and `mh-delta` (claims (eps, delta)) are not ranked.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap

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
           + f"; eps in {{{', '.join(f'{e:g}' for e in epss)}}}. Top two rows, each cell: the "
           "winner (colour), its error over the optimum's (opt. x; 1 = the best possible: geometric + remap at k = 2, "
           "the linear program at k >= 3, n/a where it is past its budgets), and the "
           "runner-up (cal.: calibrated) with how much larger its error is. First row: average error under the prior "
           "predictive; second row: worst case over data sets. Bottom two rows: every release's error over the "
           f"optimum's against n at eps = {eps_line:g} (average, then worst case; log scale). Exact values.")
tables.show_text("**Caption.** " + caption)

# %%
cmap = ListedColormap([style.colour(m) for m in names])
fig, axes = plt.subplots(4, len(settings), figsize=(4.6 * len(settings) + 0.6, 15.0), squeeze=False)
cell_font = 8.0 if len(epss) <= 3 else 7.0  # each cell holds two lines; black or white, whichever reads on its colour
for i, objective in enumerate(("average", "worst")):
    w = wins[objective]
    for j, (k, a) in enumerate(settings):
        ax = axes[i, j]
        s = w[(w.k == k) & (w.prior_strength == a)]
        ns = ns_of[k, a]
        grid = np.full((len(ns), len(epss)), np.nan)
        for r in s.itertuples():
            grid[ns.index(r.n), epss.index(r.epsilon)] = names.index(r.winner)
            ax.text(epss.index(r.epsilon), ns.index(r.n),
                    (f"opt. x{r.to_optimum:.2f}" if np.isfinite(r.to_optimum) else "opt. n/a") + "\n" + f"{style.short_name(r.runner_up)} x{r.ratio:.2f}",
                    ha="center", va="center", fontsize=cell_font, linespacing=1.15,
                    color=style.text_colour(style.colour(r.winner)))
        ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=len(names) - 0.5, origin="lower", aspect="auto")
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
        style.ratio_panel(ax, ratio[(ratio.objective == objective) & (ratio.k == k) & (ratio.prior_strength == a)
                                    & (ratio.epsilon == eps_line)], ranked, ns_of[k, a], xlabel="n")
        ax.set_title(f"{objective} error over the optimum's, {prior_name(k, a)}, eps = {eps_line:g}", fontsize=8)
shown = sorted(set(names) | set(ranked), key=lambda m: (m not in names, m))
handles = [plt.Rectangle((0, 0), 1, 1, color=style.colour(m), label=style.name(m)) for m in shown]
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
