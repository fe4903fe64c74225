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
# # Template `error_boxes`: error box plots over a series of settings (arXiv draft Fig. 5 (prior), workshop draft Fig. 5, sketch Figs. 1-3)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import experiments as E
from dpposterior.paper import items, style, tables

style.apply()

# %% tags=["parameters"]
item = "fig5-prior"
title = None
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
data = items.load(inputs["data"]).sort_values("point")
runs = items.load(inputs["runs"], columns=["mechanism", "point", "x", "label", "n", "k", "epsilon", "delta", "error"])
exact = items.load(inputs["exact"])
summary = E.error_summary(runs, exact)
kind = data.kind.iloc[0]
shown, alias, same_note = C.shown_mechanisms(mechanisms, data.k)
if not alias and {"lshist", "lszhang"} <= set(mechanisms) and (data.k >= 3).any():
    same_note = ("At k >= 3 lshist and lszhang are the same mechanism (Laplace noise of scale 2/eps); there their "
                 "boxes differ only by independent draws.")
eps, delta = runs.epsilon.iloc[0], runs.delta.iloc[0]
nruns = int(summary.runs.iloc[0])
labels = list(data.label)
if kind == "prior-series":
    xlabel, xname = "balanced prior parameter a  (prior Dir(a,...,a))", "a"
    setting = f"data c = ({','.join(map(str, data.counts.iloc[0]))}); priors a in {{{', '.join(labels)}}}"
elif kind == "n-series":
    p0 = data.prior.iloc[0]
    xlabel, xname = "data size n", "n"
    setting = (f"prior {'Beta' if len(p0) == 2 else 'Dir'}({','.join(f'{v:g}' for v in p0)}); uniform (balanced) "
               f"data; n in {{{', '.join(labels)}}}")
else:
    xlabel, xname = "observed counts c", "point"
    setting = f"prior all ones; data sets {', '.join(labels)}"
caption = (f"{title}. {setting}; eps = {eps:g}, delta = {delta:g}; {nruns} runs per box. Boxes: quartiles of the "
           "error H(BI(c), release) (the error is discrete, so a box can be a single line); black bar: median; "
           "whiskers: 2.5th to 97.5th percentile; white diamonds: mean. " + same_note).strip()
tables.show_text("**Caption.** " + caption)

# %%
P = len(labels)
fig, ax = plt.subplots(figsize=(min(14.0, max(6.5, 0.55 * P * len(shown) + 1.5)), 3.6))
wid = 0.8 / len(shown)
for j, m in enumerate(shown):
    g = runs[runs.mechanism == m]
    vals = [g[g.point == i].error.to_numpy() for i in range(P)]
    pos = np.arange(P) + (j - (len(shown) - 1) / 2) * wid
    bp = ax.boxplot(vals, positions=pos, widths=wid * 0.8, whis=(2.5, 97.5), patch_artist=True, showfliers=False,
                    showmeans=True, meanprops=dict(marker="D", mfc="white", mec="k", ms=3.5, mew=0.6),
                    medianprops=dict(color="k", lw=1.6), whiskerprops=dict(color=style.colour(m), lw=1),
                    capprops=dict(color=style.colour(m), lw=1))
    for b in bp["boxes"]:
        b.set(facecolor=style.colour(m), alpha=0.8, edgecolor=style.colour(m), lw=1.5)
    lab = style.legend_names(shown, data.k)[m]  # at k >= 3 lszhang's entry says it is lshist too (drawn once)
    ax.plot([], [], "s", color=style.colour(m), ms=7, label=lab)
ax.set_xticks(np.arange(P))
ax.set_xticklabels(labels, rotation=30 if kind == "counts-series" else 0)
ax.set_xlabel(xlabel)
ax.set_ylabel("Hellinger error")
ax.set_ylim(bottom=0)
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.36 if kind == "counts-series" else -0.15),
          ncol=min(len(shown), 5), frameon=False)
fig.tight_layout()
plt.show()

# %%
table = pd.DataFrame({"setting": labels})
for m in shown:
    s = summary[summary.mechanism == m].set_index("point").loc[data.point]
    table[f"{m} exact mean"] = s.exact_mean.to_numpy()
    table[f"{m} MC mean"] = s.mc_mean.to_numpy()
    table[f"{m} median"] = s["median"].to_numpy()
    table[f"{m} q25"] = s.q25.to_numpy()
    table[f"{m} q75"] = s.q75.to_numpy()
tables.show(table, heading="Errors per setting (exact mean where the pmf exists; -- where it does not)")
judged = summary.copy()
if kind == "counts-series":
    judged["x"] = judged.point.astype(float)
rows = C.accuracy(claims, judged, xname=xname, alias=alias, data=data)
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
