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
# # Template `step_table`: probability of each number of steps from the truth (workshop draft §5.4.1, Tables 1-2)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables

style.apply()

# %% tags=["parameters"]
item = "table1"
title = None
printed = None
claim = None
inputs = None
outputs = None
as_defined = None
laplace = None
note = ""
max_steps = 4

# %%
# Run as it is (in Jupyter, not by the pipeline, which passes every parameter): the parameters the pipeline
# would pass, from config.yaml's `items:` entry of `item` and its source experiment.
if inputs is None:
    globals().update(items.parameters(item))

# %%
pmf = items.load(inputs["pmf"])
prior, counts, eps = pmf.prior.iloc[0], pmf.counts.iloc[0], pmf.epsilon.iloc[0]
n = int(sum(counts))
steps_ = np.arange(max_steps + 1)
per = pmf.groupby(["mechanism", "steps"]).prob.sum().unstack(0)
Hs = pmf[pmf.mechanism == pmf.mechanism.iloc[0]].groupby("steps").H.max()
pad = lambda v: list(v) + [np.nan] * (max_steps + 1 - len(v))  # noqa: E731
table = pd.DataFrame({"steps": steps_, "H": Hs.loc[steps_].to_numpy(), "H printed": pad(printed["H"]),
                      "exp printed": pad(printed["exp"]), "exp formula": per.loc[steps_, "formula-exp"].to_numpy(),
                      "Laplace printed": pad(printed["laplace"]),
                      "Laplace formula": per.loc[steps_, "formula-laplace"].to_numpy()}
                     | {f"{m} as defined": per.loc[steps_, m].to_numpy() for m in per.columns if not m.startswith("formula")})
caption = (f"{title}. Prior Beta({prior[0]:g},{prior[1]:g}), data c = ({counts[0]},{counts[1]}), n = {n}, eps = {eps:g}, "
           f"delta = {pmf.delta.iloc[0]:g} (mh-delta only). Total probability of the candidates s steps "
           "(s = |c - m|_1 / 2 substitutions) from the true posterior, s = 0..4. Printed: the draft's values (-- where "
           "the draft prints none). Formula: exp weights exp(-eps H / LS(c)) (workshop draft §5.4.1, no factor 2) and "
           "Laplace P(|Y| in [s, s+1)), Y ~ Lap(2/eps), clamped tails left out (workshop draft §5.1). As defined: the "
           "project's mechanisms, exact pmf.")
if note:
    caption += f" {note} (The farthest candidate has H = {pmf.H.max():.6f}.)"
tables.show_text("**Caption.** " + caption)
tables.show(table, floatfmt=".6g", heading="Step probabilities")

# %%
cols = [c for c in table.columns if c not in ("steps", "H", "H printed")]
fig, ax = plt.subplots(figsize=(7.5, 3.4))
w = 0.8 / len(cols)
shade = {"exp printed": "#1f3b73", "exp formula": "#6f8fcf", "Laplace printed": "#8a5a00", "Laplace formula": "#e6b84d"}
for j, c in enumerate(cols):
    m = c.replace(" as defined", "")
    ax.bar(steps_ + (j - (len(cols) - 1) / 2) * w, table[c].fillna(0), width=w * 0.95,
           color=shade.get(c, style.colour(m)), label=c, hatch="//" if "printed" in c else None, edgecolor="white", lw=0.3)
ax.set_xticks(steps_)
ax.set_xlabel("steps s from the true posterior")
ax.set_ylabel("probability of the step")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=7)
fig.tight_layout()
plt.show()

# %%
rows = C.step_table(table, claim=claim, item=item, as_defined=as_defined, laplace=laplace)
if item != "table1" and len(printed["exp"]) >= 2:
    pe = np.asarray(printed["exp"])
    tables.show_text(f"Printed step 0 probability {pe[0]:.4f} vs per-candidate step 1 probability {pe[1] / 2:.4f}: "
                     + ("an exponential mechanism puts the most mass per candidate on BI(c), so the printed column "
                        "follows no exponential mechanism." if pe[0] < pe[1] / 2 else "consistent with an exponential mechanism."))
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
