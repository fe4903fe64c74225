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
# # Template `privacy_loss`: exact concrete epsilon against the claimed bound (arXiv draft §7.3, Fig. 6; workshop draft §6.3, Fig. 6)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables

style.apply()

# %% tags=["parameters"]
item = "fig6"
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
df = items.load(inputs["privacy"])
eps, delta = df.epsilon.iloc[0], df.delta.iloc[0]
ns = sorted(df.n.unique())
claims_eps = df.groupby("mechanism").claimed_epsilon.first().dropna()
k = len(df.counts.iloc[0])
caption = (f"{title}. k = {k} categories; eps = {eps:g}, delta = {delta:g} (used by mh-delta's smoothing rate); "
           f"n in {{{', '.join(map(str, ns))}}}. Exact concrete eps = max |ln p_c(r) - ln p_c'(r)| over adjacent "
           "(c, c') and outputs r: solid = worst case over all data of size n, dashed = local at the balanced data "
           f"(c = ({', '.join(['n/' + str(k)] * k)}), rounded) and its neighbours. Dotted: each mechanism's claimed eps (mh: 2 eps, arXiv draft Lemma 5.6; "
           "mh-delta claims (eps, delta), judged on its privacy profile).")
tables.show_text("**Caption.** " + caption)

# %%
fig, ax = plt.subplots(figsize=(7.5, 3.6))
for m in mechanisms:
    for scope, ls in (("worst-case", "-"), ("local", "--")):
        s = df[(df.mechanism == m) & (df.scope == scope)].sort_values("n")
        ax.plot(s.n, s.concrete_epsilon, ls=ls, marker=style.marker(m), color=style.colour(m))
for v in sorted(set(claims_eps)):
    who = ", ".join(m for m in mechanisms if claims_eps.get(m) == v)
    ax.axhline(v, color="k", ls=":", lw=1)
    ax.annotate(f"claimed {v:g} ({who})", (0.01, v), xycoords=("axes fraction", "data"), xytext=(0, 2),
                textcoords="offset points", fontsize=7)
if ns[-1] / ns[0] >= 10:
    ax.set_xscale("log")
ax.set_xlabel("data size n")
ax.set_ylabel("concrete epsilon (exact)")
ax.set_ylim(0, max(claims_eps.max(), df.concrete_epsilon.max()) * 1.15)
handles = [plt.Line2D([], [], color=style.colour(m), marker=style.marker(m), label=style.name(m)) for m in mechanisms]
handles += [plt.Line2D([], [], color="k", ls="-", label="worst case"), plt.Line2D([], [], color="k", ls="--", label="local")]
fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
fig.tight_layout()
plt.show()

# %%
table = df.pivot_table(index="n", columns=["mechanism", "scope"], values="concrete_epsilon")
table.columns = [f"{m} {s}" for m, s in table.columns]
table = table.reset_index()
tables.show(table, heading="Exact concrete epsilon")
worst = df[df.scope == "worst-case"].sort_values("concrete_epsilon").groupby("mechanism").tail(1)
tables.show(worst[["mechanism", "n", "concrete_epsilon", "worst_c", "worst_c_prime", "worst_output"]],
            heading="Where each mechanism's worst case is attained")
rows = C.privacy(df, claim=claim, claim_mechanism=claim_mechanism)
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
