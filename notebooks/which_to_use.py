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
# show every release's error over the optimum's at eps = 1. Where the source entry has `yardstick:` settings, the
# k >= 3 cells past the LP give the winner's error over a certified lower bound on the optimum ("opt. <= x1.05", the
# yardstick, docs/lattice.md "A yardstick at any n"), and the k >= 3 bottom panels draw every release's error over
# the optimum where the LP runs and over that bound beyond it, with the bracket shaded as in `frontier-k3`: the
# optimum lies in it. The lattice release (K-norm noise + the objective's remap) is ranked: its noise has a closed
# form and only its remap is solved (docs/lattice.md). `mh` (claims 2 eps) and `mh-delta` (claims (eps, delta)) are
# not ranked.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

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
yard = items.load(inputs["yardstick"]) if "yardstick" in inputs else None  # k >= 3 only
bracket = beyond.brackets(df, yard)  # bound <= optimum <= best release (the LP's optimum itself where it runs)
settings = sorted({(int(k), float(a)) for k, a in zip(df.k, df.prior_strength, strict=True)})
epss = sorted(df.epsilon.unique())
ns_of = {(k, a): sorted(df[(df.k == k) & (df.prior_strength == a)].n.unique()) for k, a in settings}


def prior_name(k, a):
    return ("Beta" if k == 2 else "Dir") + "(" + ",".join([f"{a:g}"] * k) + ")"



wins = {o: beyond.winners(df, o) for o in ("average", "worst")}
keys = ["k", "prior_strength", "n", "epsilon"]
for o, w in wins.items():  # the winner's error over the certified bound, where the grid has one
    b = bracket[bracket.objective == o].set_index(keys).bound if len(bracket) else pd.Series(dtype=float)
    bound = np.array([b.get(tuple(r), np.nan) for r in w[keys].itertuples(index=False)], dtype=float)
    wins[o] = w.assign(to_bound=np.where(bound > 0, w.error / np.where(bound > 0, bound, 1.0), np.nan))
ratio = beyond.ratios(df)
# k >= 3: every pure eps-DP release's error over the bracket's lower end (the LP's optimum where it runs, the
# certified bound beyond it), so the bottom panels run to the largest n with a bound, not only where the LP ran
b3 = bracket[bracket.bound.gt(0)] if len(bracket) else bracket
over = pd.DataFrame(columns=list(ratio.columns))
if len(b3):
    rel = df[(df.status == "ok") & df.pure_dp.astype(bool) & (df.k >= 3)]
    parts = []
    for o in ("worst", "average"):
        m = rel[rel[o].notna()].join(b3[b3.objective == o].set_index(keys).bound, on=keys, how="inner")
        parts.append(pd.DataFrame({"mechanism": m.mechanism, "pure_dp": True, "k": m.k, "prior_strength": m.prior_strength,
                                   "n": m.n, "epsilon": m.epsilon, "objective": o, "error": m[o], "optimum": m.bound,
                                   "ratio": m[o] / m.bound}))
    over = pd.concat(parts, ignore_index=True)
bracket_txt = ""
if bracket.ratio.notna().any():
    past = bracket[bracket.ratio.notna() & ~bracket.how.str.startswith("the LP's optimum", na=False)]
    bracket_txt = (
        " At k >= 3 past the linear program a cell says \"opt. \u2264 x1.05\" instead: the winner's error over a "
        "certified lower bound on the optimum (the yardstick: corner blocks for the worst case, a dual solution of the "
        "whole LP for the average; docs/lattice.md), so the optimum is within that factor; the k >= 3 bottom panels draw every "
        "release's error over the optimum where the LP runs and over that bound beyond it, shaded (as in "
        "frontier-k3) from 1 to the best release's: the optimum lies in the band."
        + (f" Best release / bound past the LP from {past.ratio.min():.3f} to {past.ratio.max():.3f} over "
           f"{len(past)} (cell, objective) pairs" if len(past) else "")
        + (f"; no bound at {int(bracket.bound.isna().sum())} (see the verdicts)" if bracket.bound.isna().any() else "")
        + ".")
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
           "was computed at one n only (the k >= 3 linear program's budgets), at that n as bars. Exact values."
           + bracket_txt)
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
            ax.text(x, y, style.winner_cell(r.winner, r.runner_up, r.ratio, r.to_optimum, r.same, r.to_bound), ha="center",
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
        by_bound = k >= 3 and len(over) > 0  # over the bracket's lower end (the LP's optimum where it runs)
        src = over if by_bound else ratio
        sub = src[(src.objective == objective) & (src.k == k) & (src.prior_strength == a) & (src.epsilon == eps_line)]
        band = bracket[(bracket.k == k) & (bracket.prior_strength == a) & (bracket.epsilon == eps_line)
                       & (bracket.objective == objective)] if by_bound else bracket.iloc[:0]
        if sub.n.nunique() == 1:  # the optimum (the LP) at one n only: bars, not a panel of single points
            style.ratio_bars(ax, sub, ranked)
        else:
            # the bracket in these units: from 1 (the bound) to the best release's ratio, where the optimum lies
            style.bracket_band(ax, band.assign(bound=1.0, best=band.ratio).dropna(subset=["best"]))
            style.ratio_panel(ax, sub, ranked, ns_of[k, a], xlabel="n")
        if by_bound:
            ax.set_ylabel("error / optimum (LP) or its bound")
        ax.set_title(f"{objective} error over the optimum's" + (" (LP) or, past it, a certified lower bound on it"
                                                                if by_bound else "")
                     + f",\n{prior_name(k, a)}, eps = {eps_line:g}", fontsize=8)
shown = sorted(set(names) | set(ranked), key=lambda m: (m not in names, m))
handles = [plt.Rectangle((0, 0), 1, 1, facecolor=style.tint(style.colour(m)), edgecolor=style.colour(m), lw=2.0,
                         label=style.name(m)) for m in shown]  # the cells' tint, edged with the lines' colour
handles.append(plt.Line2D([], [], color="black", lw=2.2, label="the optimum (geometric + remap; k >= 3: the LP)"))
if bracket.ratio.notna().any():
    handles.append(Patch(color=style.BRACKET_COLOUR, alpha=0.45, label=style.BRACKET_LABEL.replace("\n", " ")))
fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=4, frameon=False)
fig.tight_layout()
plt.show()

# %%
table = wins["average"].merge(wins["worst"], on=["k", "prior_strength", "n", "epsilon"],
                              suffixes=(" (average)", " (worst)"))
tables.show(table, heading="Winner and runner-up per cell, and the winner's error over the optimum's")
if len(bracket):
    tables.show(bracket, heading="The bracket of the optimum at k >= 3: certified bound (the LP's optimum where it runs) "
                "<= optimum <= best release")
tables.show(ratio.pivot_table(index=["k", "prior_strength", "n", "epsilon", "objective"], columns="mechanism",
                              values="ratio").reset_index(),
            heading="Every release's error over the optimum's, per cell and objective (1 = the best possible)")
# the item's claims (kinds of claims.optimum), with the yardstick table for the bracket's rows
rows = C.which_to_use(df, better=better, worse=worse) + C.judge("which_to_use", claims, C.Errors(df, yard))
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
