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
# # Template `sensitivity`: local, smooth and global sensitivity of H (arXiv draft §3, Fig. 1)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables

style.apply()

# %% tags=["parameters"]
item = "fig1"
title = None
claims = None
inputs = None
outputs = None

# %%
# Run as it is (in Jupyter, not by the pipeline, which passes every parameter): the parameters the pipeline
# would pass, from config.yaml's `items:` entry of `item` and its source experiment.
if inputs is None:
    globals().update(items.parameters(item))

# %%
df = items.load(inputs["sensitivity"])
priors = list(dict.fromkeys(df.prior))
n, eps, delta = int(df.n.iloc[0]), df.epsilon.iloc[0], df.delta.iloc[0]
caption = (f"{title}. n = {n}; priors {', '.join(priors)}. x: c_1, the posterior is Beta(a_1 + c_1, a_2 + n - c_1). "
           f"LS: local sensitivity; S: gamma-smooth (gamma = 1, arXiv draft Thm 5.1); S_b: beta-smooth (workshop draft "
           f"Def. 4.1, eps = {eps:g}, delta = {delta:g}); GS: max_c LS for this prior and n; dotted: the drafts' "
           "constant sqrt(1 - pi/4).")
tables.show_text("**Caption.** " + caption)

# %%
fig, axes = plt.subplots(1, len(priors), figsize=(2.1 * len(priors) + 0.6, 2.9), sharey=True)
for ax, p in zip(np.atleast_1d(axes), priors):
    s = df[df.prior == p]
    ax.plot(s.c1, s.S, color="#d62728", lw=3, alpha=0.45, label="S(c), gamma = 1")
    ax.plot(s.c1, s.LS, color="#1f77b4", lw=1, label="LS(c)")
    ax.plot(s.c1, s.S_beta, color="#9467bd", ls="--", label="S_b(c)")
    ax.axhline(s.GS.iloc[0], color="k", lw=1, label="GS (exact)")
    ax.axhline(s.GS_paper.iloc[0], color="k", lw=1, ls=":", label="sqrt(1 - pi/4)")
    ax.set_yscale("log")
    ax.set_title(p)
    ax.set_xlabel("c_1")
np.atleast_1d(axes)[0].set_ylabel("sensitivity of H")
fig.legend(*np.atleast_1d(axes)[0].get_legend_handles_labels(), loc="upper center", ncol=5, frameon=False,
           bbox_to_anchor=(0.5, 0.0))
fig.tight_layout()
plt.show()

# %%
table = (df.groupby("prior", sort=False)
         .apply(lambda s: pd.Series({"LS at c1 = n/2": float(s[s.c1 == n // 2].LS.iloc[0]), "max LS": s.LS.max(),
                                     "GS (exact)": s.GS.iloc[0], "min S/LS": (s.S / s.LS).min(),
                                     "max S_b": s.S_beta.max(), "sqrt(1 - pi/4)": s.GS_paper.iloc[0]}),
                include_groups=False).reset_index())
tables.show(table, heading="Summary per prior")
rows = C.sensitivity(df, claims)
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
