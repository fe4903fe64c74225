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
# # Template `score_change`: maximal score change per candidate (arXiv draft §7.1, Fig. 2)

# %%
import matplotlib.pyplot as plt
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables

style.apply()

# %% tags=["parameters"]
item = "fig2"
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
sets = list(dict.fromkeys(df.data))
caption = (f"{title}. Prior Beta(1,1); data c in {{{', '.join(sets)}}}, n = {int(df.n.iloc[0])}. For each candidate "
           "r = Beta(1 + m, 1 + n - m): max over the adjacent data c' of |H(BI(c), r) - H(BI(c'), r)|. Dashed vertical: "
           "r = BI(c); dotted horizontal: LS(c) = max_c' H(BI(c), BI(c')).")
tables.show_text("**Caption.** " + caption)

# %%
fig, ax = plt.subplots(figsize=(6.0, 3.4))
cols = ["#1f77b4", "#d62728", "#2ca02c"]
for col, d in zip(cols, sets):
    s = df[df.data == d]
    ax.plot(s.r1, s.max_change, color=col, label=f"c = {d}")
    ax.axvline(s.c1.iloc[0], color=col, ls="--", lw=0.8)
    ax.axhline(s.LS.iloc[0], color=col, ls=":", lw=0.8)
ax.set_xlabel("candidate r = Beta(1 + m, 1 + n - m), by m")
ax.set_ylabel("max_c' |H(BI(c), r) - H(BI(c'), r)|")
ax.set_ylim(bottom=0)
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=len(sets), frameon=False)
fig.tight_layout()
plt.show()

# %%
table = pd.DataFrame([{"data": d, "m at truth": int(s.c1.iloc[0]),
                       "value at truth": float(s.max_change[s.r1 == s.c1.iloc[0]].iloc[0]),
                       "max": float(s.max_change.max()), "LS(c)": float(s.LS.iloc[0])}
                      for d, s in ((d, df[df.data == d]) for d in sets)])
tables.show(table, floatfmt=".6g", heading="Maximal score change")
rows = C.score_change(df, claims)
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
