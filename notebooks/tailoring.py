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
# # Template `tailoring`: does tailoring to the distance matter?
#
# Template `tailoring` (the arXiv draft's future work 3: distances other than Hellinger). The drafts score their
# exponential mechanisms with the distance that measures accuracy. Here each release's exact expected error is
# measured in turn by the Hellinger distance, total variation and KL(BI(c) || release), for the exponential
# mechanisms scored by each distance, the optimum under each distance's loss (geometric + remap, k = 2), and the
# Laplace and geometric releases, which read no distance. Every error is divided by the optimum *for the measure in
# use*, so 1 is the best possible, and an optimum built for another distance shows what the wrong choice costs.

# %%
import matplotlib.pyplot as plt

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables
from dpposterior.paper import tailoring as T

style.apply()

# %% tags=["parameters"]
item = "tailoring"
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
r = T.ratios(df)
measures = [m for m in ("hellinger", "tv", "kl") if m in set(r.measure)]
ns, epss = sorted(r.n.unique()), sorted(r.epsilon.unique())
eps_line = min(epss, key=lambda e: abs(e - 1.0))
shown = r[(r.epsilon == eps_line) & (r.prior_strength == r.prior_strength.min())]
DIST_COLOUR = {"hellinger": "#1f77b4", "tv": "#ff7f0e", "kl": "#2ca02c"}
expo = [m for m in mechanisms if m in set(r[r.family == "exponential"].mechanism)]
scored = expo[-1] if expo else None  # one exponential mechanism per distance keeps the panels readable
caption = (f"{title}. Beta({r.prior_strength.min():g},{r.prior_strength.min():g}) prior; n in "
           f"{{{', '.join(map(str, ns))}}}; eps in {{{', '.join(f'{e:g}' for e in epss)}}} (panels: eps = {eps_line:g}). "
           "Columns: the distance that measures accuracy; rows: worst case over data sets, average under the prior "
           "predictive. Each line is a release's exact expected error over the optimum for that measure (log scale; 1 "
           "= the best possible). Colour: the distance the release is tailored to. Solid: the optimum under that "
           f"distance's loss (geometric + remap); dashed: {scored} scored by that distance; grey: geometric, red: "
           "lshist (they read no distance). The tables give every release, eps and objective.")
tables.show_text("**Caption.** " + caption)

# %%
fig, axes = plt.subplots(2, len(measures), figsize=(3.7 * len(measures) + 0.4, 6.8), squeeze=False, sharex=True)
for j, measure in enumerate(measures):
    for i, objective in enumerate(("worst", "average")):
        ax = axes[i, j]
        s = shown[(shown.measure == measure) & (shown.objective == objective)]
        for dist, colour in DIST_COLOUR.items():
            for mech, ls, lw in ((f"optimal~{objective}", "-", 2.0), (scored, "--", 1.2)):
                line = s[(s.mechanism == mech) & (s.distance == dist)].sort_values("n")
                if len(line):
                    ax.plot(line.n, line.ratio, color=colour, ls=ls, lw=lw, marker="o" if ls == "-" else "s", ms=3)
        for mech, colour in (("geometric", "0.45"), ("lshist", style.colour("lshist"))):
            line = s[s.mechanism == mech].sort_values("n")
            if len(line):
                ax.plot(line.n, line.ratio, color=colour, ls=":", lw=1.4, marker="^", ms=3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        style.log_ticks(ax.yaxis)  # plain labels at 1, 2, 3, 5 x 10^j, not "4x10^0"
        ax.set_xticks(ns, [str(v) for v in ns])
        ax.xaxis.set_minor_locator(plt.NullLocator())
        ax.set_title(f"{objective} error measured by {measure}", fontsize=9)
        if j == 0:
            ax.set_ylabel("error / optimum for this measure")
        if i == 1:
            ax.set_xlabel("data size n")
handles = [plt.Line2D([], [], color=c, lw=2.0, label=f"optimum under {d}") for d, c in DIST_COLOUR.items()]
handles += [plt.Line2D([], [], color=c, lw=1.2, ls="--", label=f"{scored} scored by {d}") for d, c in DIST_COLOUR.items()]
handles += [plt.Line2D([], [], color="0.45", ls=":", lw=1.4, label="geometric"),
            plt.Line2D([], [], color=style.colour("lshist"), ls=":", lw=1.4, label="lshist")]
fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
fig.tight_layout()
plt.show()

# %%
wrong = T.wrong_optimum(r)
tables.show(wrong, heading="The cost of the wrong distance's optimum: other optima's error over the optimum's, "
                           "least and most over the other distances")
matched = T.matched_vs_other(r)
tables.show(matched.groupby(["mechanism", "measure", "other", "objective"]).ratio.agg(["min", "max"]).reset_index(),
            heading="Exponential mechanisms: error when scored by the measure's own distance over error when scored "
                    "by another (< 1: tailoring helps)")
table = r.assign(distance=r.distance.fillna("-")).pivot_table(
    index=["measure", "objective", "n", "epsilon"], columns=["mechanism", "distance"], values="ratio")
table.columns = [m if d == "-" else f"{m} ({d})" for m, d in table.columns]
table = table.reset_index()
rows = C.tailoring(df)
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
