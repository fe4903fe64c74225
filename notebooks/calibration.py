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
# # Template `calibration`: calibrated exponential mechanisms: kappa* and the error it buys
#
# Template `calibration` (the arXiv draft's future work: can the slack between the concrete eps and the proven
# bound buy less noise?). kappa* is the largest factor on the weight w(c) for which the exact worst-case concrete
# eps over all data of size n stays <= eps; the calibrated mechanism is eps-DP, certified by that exact
# computation.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables, variants

style.apply()

# %% tags=["parameters"]
item = "calibration"
title = None
mechanisms = None
inputs = None
outputs = None

# %%
# Run as it is (in Jupyter, not by the pipeline, which passes every parameter): the parameters the pipeline
# would pass, from config.yaml's `items:` entry of `item` and its source experiment.
if inputs is None:
    globals().update(items.parameters(item))

# %%
df = items.load(inputs["expected_error"])
ok = df[df.status == "ok"]
cal = ok[ok.mechanism.map(variants.is_calibrated)]
bases = [variants.base_id(m) for m in sorted(cal.mechanism.unique())]
eps = ok.epsilon.iloc[0]
caption = (f"{title}. eps = {eps:g}; priors as in the frontier item. Left: kappa* against n (the calibrated weight is "
           "kappa* w(c)). Right: average expected error of the calibrated mechanism relative to the uncalibrated one "
           "(below 1: calibration helps). Solid: k = 2, dashed: k = 3. Calibrated ehd and calibrated mh-delta have the same "
           "weight up to a constant at k = 2 for these priors, so their kappa* curves can lie on top of each other.")
tables.show_text("**Caption.** " + caption)

# %%
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(8.6, 3.4))
for base in bases:
    for k, ls in ((2, "-"), (3, "--")):
        s = cal[(cal.mechanism == f"{base}~calibrated") & (cal.k == k)].sort_values("n")
        p = ok[(ok.mechanism == base) & (ok.k == k)].set_index("n").average
        if not len(s):
            continue
        ax.plot(s.n, s.kappa, ls=ls, color=style.colour(base), marker=style.marker(base), ms=4)
        ax2.plot(s.n, s.average.to_numpy() / p.loc[s.n].to_numpy(), ls=ls, color=style.colour(base),
                 marker=style.marker(base), ms=4)
ax.axhline(1.0, color="k", lw=0.8, ls=":")
ax2.axhline(1.0, color="k", lw=0.8, ls=":")
ns_all = sorted(cal.n.unique())
for a_ in (ax, ax2):
    a_.set_xscale("log")
    a_.set_xticks(ns_all, [str(v) for v in ns_all])
    a_.minorticks_off()
    a_.set_xlabel("data size n")
ax.set_ylabel("kappa* (weight factor)")
ax2.set_ylabel("average error, calibrated / uncalibrated")
ax.set_title("How much slack the claimed bound leaves")
ax2.set_title("What the slack buys")
handles = [plt.Line2D([], [], color=style.colour(b), marker=style.marker(b), label=style.name(b)) for b in bases]
handles += [plt.Line2D([], [], color="k", ls="-", label="k = 2"), plt.Line2D([], [], color="k", ls="--", label="k = 3")]
fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
fig.tight_layout()
plt.show()

# %%
table = cal[["mechanism", "k", "n", "kappa", "certified_epsilon", "worst", "average"]].sort_values(["mechanism", "k", "n"])
table = table.reset_index(drop=True)
tables.show(table, heading="kappa*, the certified eps, and the calibrated errors")
rows = C.calibration(df)
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
