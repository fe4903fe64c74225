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
# # Template `frontier`: expected error of every release, worst case and average, with the optimum
#
# Template `frontier` (beyond the drafts). For every data set c of size n the exact expected error E(c) = sum_r P(r
# | c) H(BI(c), r); the worst case is max_c E(c), the average is over the prior predictive. `optimal` is the best
# any eps-DP release can do for each objective: at k = 2 the geometric release followed by the Bayes (average) or
# minimax (worst case) remap, at any n; at k >= 3 the linear program over the mechanism's table where it runs
# within its budgets, and beyond it the lattice release with the objective's remap (the best release there is, not
# a certified optimum: those points have no ratio). Where the source entry has `yardstick:` settings, the band
# from a certified lower bound on the optimum (the yardstick, docs/lattice.md "A yardstick at any n") to the best
# release is shaded at k >= 3: the optimum lies in it. `lattice` is the K-norm noise on the sum-zero lattice with the
# Bayes (average) or minimax (worst) remap (docs/lattice.md). Where the k = 2 linear program runs (n <= 259) it is
# solved too, as the check (open black circles). `~calibrated` is an exponential mechanism with its weight scaled
# by kappa* (certified eps-DP).

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from dpposterior.mechanisms import MECHANISMS
from dpposterior.paper import beyond
from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables, variants

style.apply()

# %% tags=["parameters"]
item = "frontier"
title = None
k = None  # the numbers of categories this figure draws, from its item in config.yaml
mechanisms = None
claims = None
inputs = None
outputs = None

# %%
# Run as it is (in Jupyter, not by the pipeline, which passes every parameter): the parameters the pipeline
# would pass, from config.yaml's `items:` entry of `item` and its source experiment.
if inputs is None:
    globals().update(items.parameters(item))

# %%
df = items.load(inputs["expected_error"])
df = df[df.k.isin(k)]  # one figure per k = 2 and k >= 3: each fits a screen, its legend beside the data
yard = items.load(inputs["yardstick"]) if "yardstick" in inputs else None  # k >= 3 only
yard = yard[yard.k.isin(k)] if yard is not None else None
bracket = beyond.brackets(df, yard)  # bound <= optimum <= best release, per k >= 3 point and objective
ok = df[df.status == "ok"]
ks = sorted(ok.k.unique())
eps = ok.epsilon.iloc[0]
skipped = df[df.status != "ok"].groupby(["mechanism", "k"]).n.apply(lambda s: ", ".join(map(str, sorted(s))))
skip_txt = ("; not computed (size limit): " + "; ".join(f"{m} k={k} at n = {v}" for (m, k), v in skipped.items())
            if len(skipped) else "")
lp = ok[(ok.k >= 3) & ok.mechanism.isin(beyond.OPTIMUM.values())]
lp = lp[lp.is_optimum.astype(bool)] if "is_optimum" in lp else lp
lp_ns = lp.groupby("k").n.apply(lambda s: ", ".join(map(str, sorted(s.unique()))))
lp_txt = (" (" + "; ".join(f"k = {k}: n = {v}" for k, v in lp_ns.items()) + ")") if len(lp_ns) else ""
caption = (f"{title}. Priors " + ", ".join(("Beta" if len(p) == 2 else "Dir") + "(" + ",".join(f"{x:g}" for x in p) + ")"
                                            for p in sorted({tuple(p) for p in ok.prior}, key=len))
           + f"; eps = {eps:g}; n in {{{', '.join(map(str, sorted(ok.n.unique())))}}}. Top row: worst case over all "
           "data sets of size n of the exact expected Hellinger error; bottom row: its average under the prior "
           "predictive. " + ("Columns per k: the exponential mechanisms (dashed: calibrated), then the additive-noise "
                             "releases" if len(ks) > 1 else "Columns: the exponential mechanisms (dashed: calibrated), "
                             "the additive-noise releases")
           + ", each with the optimum (thick black and grey lines): the optimal eps-DP release for each objective "
           "(k = 2: geometric + remap; k >= 3: the linear program where it runs within its budgets" + lp_txt
           + ", the lattice release with the objective's remap beyond); open black circles: the k = 2 linear program "
           "where it runs, as a check. Last column: each release's error over the optimum's (1 = the best possible)"
           + ("; at k >= 3 only where the linear program ran (no certified optimum beyond it, so no ratio there)"
              + (f"; k = {ks[0]} solid lines, k = " + ", ".join(map(str, ks[1:])) + " dotted with open markers"
                 if len(ks) > 1 else "") if max(ks) >= 3 else "") + "."
           + (f" Shaded (k >= 3): the band from a certified lower bound on the optimum (the yardstick: corner blocks "
              "for the worst case, a dual solution of the whole LP for the average) to the best pure eps-DP release "
              f"computed; best / bound from {bracket.ratio.min():.3f} to {bracket.ratio.max():.3f} over "
              f"{int(bracket.ratio.notna().sum())} (point, objective) pairs" + (
                  f"; no bound at {int(bracket.bound.isna().sum())} (see the verdicts)" if bracket.bound.isna().any()
                  else "") + "." if bracket.ratio.notna().any() else "")
           + (" ehds (calibrated) and mh (calibrated) coincide (same weight shape at gamma = 1)"
              + (", as do lsdim and lszhang at k = 2" if 2 in ks else "") + skip_txt + "."))
tables.show_text("**Caption.** " + caption)

# %%
ratio = beyond.ratios(df)
# Fifteen releases do not read in one panel: the error panels are split into the exponential mechanisms (claimed and
# calibrated) and the additive-noise releases, each with the optimum; a line on another one gets open markers. Rows:
# worst case, average; the legend beside them (one name per release, as at this figure's k).
def family(m):
    return "exponential" if MECHANISMS[variants.base_id(m)].family == "exponential" else "noise"


groups = {"exponential": "exponential mechanisms", "noise": "additive-noise releases"}
optimum = [m for m in mechanisms if m.startswith("optimal")]
columns = [(kk, g) for kk in ks for g in groups] + [(None, "ratio")]
fig, axes = plt.subplots(2, len(columns), figsize=(3.1 * len(columns), 6.4), squeeze=False)
ratio_ks = sorted(ratio.k.unique())
for i, objective in enumerate(("worst", "average")):
    where = "worst case over data sets" if objective == "worst" else "average over the prior predictive"
    for j, (kk, group) in enumerate(columns):
        ax = axes[i, j]
        if group == "ratio":
            ns_r = sorted(ratio[ratio.objective == objective].n.unique())
            for kr in ratio_ks:  # the smallest k solid; the others dotted, open markers (a k = 4 LP may run at one n)
                style.ratio_panel(ax, ratio[(ratio.k == kr) & (ratio.objective == objective)], mechanisms, ns_r,
                                  **({} if kr == ratio_ks[0] else {"ls": ":", "mfc": "none"}))
            ax.set_title(f"k = {', '.join(map(str, ratio_ks))}: {objective} error over the optimum's"
                         + ("" if max(ks) == 2 else "\n(where the LP runs)") + (
                             f"; k = {ratio_ks[0]} solid, {', '.join(map(str, ratio_ks[1:]))} open"
                             if len(ratio_ks) > 1 else ""), fontsize=8.5)
            continue
        shown = optimum + [m for m in mechanisms if not m.startswith("optimal") and family(m) == group]  # optimum
        # first: a release on it (geometric at k = 2) then shows its open markers over the optimum's line
        data = {}
        for m in shown:
            s = ok[(ok.mechanism == m) & (ok.k == kk)].sort_values("n")
            if len(s):
                data[m] = (s.n.to_numpy(), s[objective].to_numpy())
        style.bracket_band(ax, bracket[(bracket.k == kk) & (bracket.objective == objective)])
        style.curves(ax, data, ms=4, ls=lambda m: "--" if variants.is_calibrated(m) else "-",
                     lw=lambda m: 2.2 if m.startswith("optimal") else 1.1)
        lp = ok[(ok.k == kk) & ok.oracle.notna() & (ok.oracle_objective == objective)].sort_values("n")
        if len(lp):
            ax.plot(lp.n, lp.oracle, ls="none", marker="o", ms=8, mfc="none", mec="black", mew=1.0)
        ns_k = sorted(ok[ok.k == kk].n.unique())
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(ns_k, [str(v) for v in ns_k])
        ax.xaxis.set_minor_locator(plt.NullLocator())  # n ticks only
        style.log_ticks(ax.yaxis)  # labels at 1, 2, 3, 5 x 10^j: a range under a decade still reads
        ax.set_xlabel("data size n")
        ax.set_title(f"k = {kk}: {where}\n{groups[group]}", fontsize=8.5)
    axes[i, 0].set_ylabel(f"expected Hellinger error ({objective})")
handles = [plt.Line2D([], [], color=style.colour(m), marker=style.marker(m), ls="--" if variants.is_calibrated(m) else "-",
                      lw=2.2 if m.startswith("optimal") else 1.1, label=style.wrap_label(style.name(m, min(ks))))
           for m in mechanisms if m in set(ok.mechanism)]
handles.append(plt.Line2D([], [], color="black", lw=2.2, label="1: the optimum (ratio column)"))
if ok.oracle.notna().any():
    handles.append(plt.Line2D([], [], ls="none", marker="o", ms=8, mfc="none", mec="black",
                              label="linear program (check)"))
if bracket.ratio.notna().any():
    handles.append(Patch(color=style.BRACKET_COLOUR, alpha=0.45, label=style.BRACKET_LABEL))
handles.append(plt.Line2D([], [], ls="none", marker="o", ms=9, mfc="none", mec="grey", mew=1.2,
                          label="larger open marker: on the line\nof a release drawn before it"))
fig.tight_layout()
fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), ncol=1, frameon=False)
plt.show()

# %%
table = ok.pivot_table(index=["k", "n"], columns="mechanism", values=["worst", "average"])
table.columns = [f"{m} {o}" for o, m in table.columns]
table = table.reset_index()
tables.show(table, heading="Exact expected errors (worst case and average)")
if len(bracket):
    tables.show(bracket, heading="The bracket of the optimum at k >= 3: certified bound <= optimum <= best release")
tables.show(ratio.pivot_table(index=["k", "n", "objective"], columns="mechanism", values="ratio").reset_index(),
            heading="Each release's error over the optimum's, per objective (1 = the best possible)")
rows = C.frontier(df) + C.judge("frontier", claims, C.Errors(df, yard))  # the item's claims: kinds of claims.optimum
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
