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
# # Template `candidate_pmf`: exact candidate probabilities against their Hellinger distance (arXiv draft §7.2.1, Fig. 3)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables

style.apply()

# %% tags=["parameters"]
item = "fig3a"
title = None
claims = None
note = ""
inputs = None
outputs = None
bin_width = 0.025

# %%
# Run as it is (in Jupyter, not by the pipeline, which passes every parameter): the parameters the pipeline
# would pass, from config.yaml's `items:` entry of `item` and its source experiment.
if inputs is None:
    globals().update(items.parameters(item))

# %%
pmf = items.load(inputs["pmf"])
tails = items.load(inputs["tails"])
mechs = list(dict.fromkeys(pmf.mechanism))
prior, counts = pmf.prior.iloc[0], pmf.counts.iloc[0]
eps, delta = pmf.epsilon.iloc[0], pmf.delta.iloc[0]
k, n = len(counts), int(sum(counts))
ncand = pmf.candidate.nunique()
FLOOR = 1e-9  # the y axis' floor: a bin below it is not drawn (a line stops there, it does not drop to the floor)
caption = (f"{title}. Prior {'Beta' if k == 2 else 'Dir'}({','.join(f'{v:g}' for v in prior)}); balanced data "
           f"c = ({','.join(map(str, counts))}), n = {n}, |R(n)| = {ncand:,}; eps = {eps:g}, delta = {delta:g} "
           f"(delta only affects mh-delta); exact pmf, no sampling. Left: probability that the release lies at "
           f"distance H(BI(c), r) in [t, t + {bin_width:g}), per bin of width {bin_width:g} (the same quantity for every k). "
           "A gap in a line is a bin with no mass (no candidate at those distances: they are few at small distance) "
           f"or less than the axis' floor {FLOOR:g}"
           + (f"; the lattice release's probabilities are lower ends that miss at most {pmf.prob_slack.max():.2g} in "
              "all (the noise's mass beyond the ball its pmf is computed on: a candidate reached only from beyond it "
              "gets 0), so its bins are drawn only where their mass is at least that, not as a comb down to the floor"
              if "prob_slack" in pmf and pmf.prob_slack.max() > 0 else "") + ". "
           "Right: tail P(H >= t); dashed: the arXiv draft's §6.2 bound |R| exp(-eps t / (2 S(c))) for mh.")
if note:  # the item's note (config.yaml): what the figure leaves out, and why
    caption += f" {note}"
tables.show_text("**Caption.** " + caption)

# %%
edges = np.arange(0, 1 + bin_width, bin_width)
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(8.0, 3.5))
hmax = 0.0
for m in mechs:
    s = pmf[pmf.mechanism == m]
    mass, _ = np.histogram(s.H, bins=edges, weights=s.prob)
    # a lattice probability is a lower end: the mass it misses, over all candidates, is at most prob_slack; a bin
    # is drawn where its lower end is at least that (so within a factor 2 of its mass), and above the axis' floor
    slack = float(s.prob_slack.max()) if "prob_slack" in s else 0.0
    shown_mass = np.where((mass > 0) & (mass >= max(slack, FLOOR)), mass, np.nan)
    hmax = max(hmax, edges[1:][mass > FLOOR].max())
    # baseline None: a bin with nothing drawn is a gap, not a drop to the axis' floor (a comb that looks like a bug)
    ax.stairs(shown_mass, edges, baseline=None, color=style.colour(m), lw=1.3, label=style.legend_names([m], [k])[m])
    t = tails[tails.mechanism == m]
    ax2.plot(t.t, t.tail_prob, color=style.colour(m), drawstyle="steps-post")
    if t.bound.notna().any():
        ax2.plot(t.t, t.bound, color=style.colour(m), ls="--")
for a_ in (ax, ax2):
    a_.set_yscale("log")
    a_.set_xlim(0, min(1.0, hmax * 1.05))
    a_.set_xlabel("Hellinger distance from the true posterior, H(BI(c), r)")
ax.set_ylim(FLOOR, 1.2)
ax2.set_ylim(FLOOR, 2)
ax.set_ylabel(f"P(H in [t, t + {bin_width:g}))")
ax2.set_ylabel("P(H >= t)")
ax.set_title("Exact output probability per distance bin")
ax2.set_title("Tail and accuracy bound")
handles, labels = ax.get_legend_handles_labels()
if tails.bound.notna().any():
    handles.append(plt.Line2D([], [], color=style.colour("mh"), ls="--"))
    labels.append("arXiv §6.2 bound (mh)")
fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(labels), 3), frameon=False)
fig.tight_layout()
plt.show()

# %%
levels = sorted(pmf.H.round(12).unique())[:4]
table = pd.DataFrame({"t": levels} | {f"P_{m}(H <= t)": [float(pmf[(pmf.mechanism == m) & (pmf.H <= t + 1e-12)].prob.sum())
                                                         for t in levels] for m in mechs})
table["note"] = ["truth" if i == 0 else "" for i in range(len(levels))]
tables.show(table, heading="Probability of a release within distance t, at the 4 smallest distances")
rows = C.pmf(pmf, tails, claims)
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
