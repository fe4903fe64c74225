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
# # Template `draft_checks`: the drafts' theorems and side claims, recomputed
#
# Template `draft_checks`. The algorithm note's Thm 4.1, Cor. 4.4.1, Thm 4.5 and Cor. 4.5.1-4.5.3, the workshop
# draft's §5.4.1 rate and §6.2 run-time remark, the drafts' |R_post|, the arXiv draft's §7.2.2 / §8 comparison for
# large priors, Lemmas 5.1-5.2, the C_r case split and Thm 5.1: each recomputed exactly by
# `dpposterior.paper.drafts` and judged by its rule. It also compares the authors' recorded P(release = BI(c))
# (from their code, not in the drafts) with the exact pmf of the item's `source` (n = 1e4). The findings in plain
# words: docs/findings.md.

# %%
import matplotlib.pyplot as plt
import numpy as np

from dpposterior.paper import claims as C
from dpposterior.paper import drafts, items, style, tables

style.apply()

# %% tags=["parameters"]
item = "draft-claims"
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
pmf = items.load(inputs["pmf"])
tails = items.load(inputs["tails"])
rows = C.pmf(pmf, tails, claims)
checks, tabs = drafts.checks()
rows += checks
for name, t in tabs.items():
    tables.show(t, floatfmt=".6g", heading=name)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
c1 = int(pmf.counts.iloc[0][0])
for m in dict.fromkeys(pmf.mechanism):
    s = pmf[pmf.mechanism == m]
    steps = np.asarray([m_[0] for m_ in s.m]) - c1
    keep = np.abs(steps) <= 8
    ax1.plot(steps[keep], s.prob.to_numpy()[keep], "o-", ms=3, color=style.colour(m), label=style.name(m))
ax1.axhline(0.245, color="grey", ls=":", lw=0.8)
ax1.axhline(0.316, color="grey", ls="--", lw=0.8)
ax1.set_xlabel("candidate, steps from BI(c)")
ax1.set_ylabel("exact probability")
ax1.set_title(f"n = {sum(pmf.counts.iloc[0])}: recorded 0.245 (dotted), 0.316 (dashed)", fontsize=8)
ax1.legend(frameon=False, fontsize=7)
t45 = tabs["thm45"]
lab = [f"n = {int(r.n)}\n{int(r.k)} step{'s' if int(r.k) > 1 else ''}" for r in t45.itertuples()]  # the note's k: steps
x = np.arange(len(t45))
ax2.bar(x - 0.2, t45.exact / t45.printed_high, width=0.4, label="exact / printed upper bound", color="#b2182b")
ax2.bar(x + 0.2, t45.exact / t45.corrected_high, width=0.4, label="exact / corrected upper bound", color="#2166ac")
ax2.axhline(1, color="k", lw=0.8)
ax2.set_xticks(x, lab, fontsize=7)
ax2.set_ylabel("ratio (above 1: the bound fails)")
ax2.set_title("algorithm note Thm 4.5, EHD, eps = 1", fontsize=8)
ax2.set_ylim(0, 1.25)  # bars from 0: a bar's height is the ratio itself
ax2.legend(frameon=False, fontsize=7, loc="upper left")
fig.tight_layout()
plt.show()

# %%
caption = (f"{title}. Left: exact P(release) of mh and lshist at Beta(1,1), c = ({','.join(str(int(v)) for v in pmf.counts.iloc[0])}), "
           f"eps = {pmf.epsilon.iloc[0]:g}, against the authors' recorded values (their code, not the drafts). "
           "Right: the exact EHD probability of landing within s steps of BI(c) (the note's k; bars from 0) over the "
           "algorithm note's printed upper bound "
           "(Thm 4.5) and over the corrected bound (|R| = n + 1, weight eps/(2 GS)). Every other check is a table above "
           "and a verdict row below; rules and tolerances are in the rows.")
verdicts = items.finish(item, outputs, fig=fig, table=t45.rename(columns={"k": "steps (the note's k)"}), caption=caption,
                        rows=rows)
