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
# # Template `coverage`: coverage of credible intervals from a private release: naive against noise-aware
#
# Template `coverage` (beyond the drafts). A release `Dir(a + m)` is often read as the posterior, but it ignores
# the noise that made `m`. Its 90 % credible interval then covers the true `theta` less often than 90 %. The
# noise-aware posterior (Bayes' rule over the mechanism's exact output distribution; post-processing, so it costs
# no privacy) covers at exactly the nominal level. Every number here is an exact sum over data sets and releases,
# with `theta` drawn from the prior; nothing is sampled.

# %%
import matplotlib.pyplot as plt
import numpy as np

from dpposterior.paper import claims as C
from dpposterior.paper import items, style, tables

style.apply()

# %% tags=["parameters"]
item = "coverage"
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
df = items.load(inputs["coverage"])
level = float(df.level.iloc[0])
ns = sorted(df.n.unique())
epss = sorted(df.epsilon.unique())
caption = (f"{title}. Prior Beta(1,1); theta ~ prior, c ~ Binomial(n, theta), m ~ M(c); nominal level {level:g}; "
           f"n in {{{', '.join(map(str, ns))}}}, eps in {{{', '.join(f'{e:g}' for e in epss)}}}. Top: probability that "
           f"the equal-tailed {level:g} interval for theta_1 covers the truth, for the naive Dir(a + m) (solid) and the "
           f"noise-aware posterior (dashed, small markers; exactly {level:g} for every mechanism, so its lines lie on one "
           f"another); grey dotted: the nominal {level:g}; bottom: the expected interval width. "
           "At k = 2 lszhang and lsdim are the same mechanism (Laplace 2/eps) and their lines coincide. Exact sums over "
           "all c and m.")
tables.show_text("**Caption.** " + caption)

# %%
# Lines that would hide one another: a mechanism whose every point (both rows, every n) lies on an earlier one's
# is drawn with large open markers over it and named so in the legend (at k = 2 lszhang is lsdim; ehdl is close to
# mh). The noise-aware coverage is drawn too (dashed, small markers): exactly the nominal level for every mechanism,
# so those lines lie on one another, over the grey dotted nominal line.
cols = ["naive_coverage", "naive_width", "noise_aware_width"]
curves = {m: (np.tile(df[df.mechanism == m].sort_values(["n", "epsilon"]).epsilon.to_numpy(), len(cols)),
              df[df.mechanism == m].sort_values(["n", "epsilon"])[cols].to_numpy().T.ravel()) for m in mechanisms}
over = style.coincident(curves, rtol=0.0, atol=0.004)
fig, axes = plt.subplots(2, len(ns), figsize=(3.4 * len(ns) + 1.0, 6.2), sharex=True, sharey="row", squeeze=False)
for j, n in enumerate(ns):
    top, bottom = axes[0, j], axes[1, j]
    for m in mechanisms:
        s = df[(df.mechanism == m) & (df.n == n)].sort_values("epsilon")
        kw = dict(color=style.colour(m), marker=style.marker(m), ms=5, zorder=3)
        if m in over:  # on an earlier line: open markers, larger, so both show
            kw.update(ms=9, mfc="none", mew=1.3, zorder=4)
        aware = kw | dict(ms=3, mfc="white", zorder=4.5)  # the noise-aware: dashed, small open markers
        top.plot(s.epsilon, s.naive_coverage, ls="-", **kw)
        top.plot(s.epsilon, s.noise_aware_coverage, ls="--", lw=1.0, **aware)
        bottom.plot(s.epsilon, s.naive_width, ls="-", **kw)
        bottom.plot(s.epsilon, s.noise_aware_width, ls="--", lw=1.0, **aware)
    top.axhline(level, color="0.55", lw=1.2, ls=":", zorder=2)
    top.set_title(f"n = {n}")
    bottom.set_xlabel("epsilon")
    for ax in (top, bottom):
        ax.set_xscale("log")
        ax.set_xticks(epss, [f"{e:g}" for e in epss])
        ax.minorticks_off()
axes[0, 0].set_ylabel(f"coverage of the {level:g} interval")
axes[1, 0].set_ylabel("expected interval width")
axes[0, 0].set_ylim(0, 1.02)
handles = []
for m in mechanisms:
    if m in over:
        handles.append(plt.Line2D([], [], color=style.colour(m), marker=style.marker(m), ms=8, mfc="none", mew=1.3,
                                  label=f"{style.name(m)} (open: on {over[m]}'s line)"))
    else:
        handles.append(plt.Line2D([], [], color=style.colour(m), marker=style.marker(m), label=style.name(m)))
handles += [plt.Line2D([], [], color="k", ls="-", marker="o", ms=5, label="naive Dir(a + m)"),
            plt.Line2D([], [], color="k", ls="--", lw=1.0, marker="o", ms=3, mfc="white", label="noise-aware posterior"),
            plt.Line2D([], [], color="0.55", ls=":", lw=1.2, label=f"nominal {level:g} (top row)")]
fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
fig.tight_layout()
plt.show()

# %%
table = df[["mechanism", "n", "epsilon", "naive_coverage", "noise_aware_coverage", "naive_width",
            "noise_aware_width"]].sort_values(["n", "epsilon", "mechanism"]).reset_index(drop=True)
tables.show(table, heading="Exact coverage and expected width")
rows = C.coverage(df)
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
