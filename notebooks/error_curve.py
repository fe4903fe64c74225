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
# # Template `error_curve`: mean error against a series of settings (arXiv draft Figs. 4-5, workshop draft Figs. 3-4)

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import claims as C
from dpposterior.paper import experiments as E
from dpposterior.paper import items, style, tables

style.apply()

# %% tags=["parameters"]
item = "fig4"
title = None
mechanisms = None
claims = None
note = ""
inputs = None
outputs = None

# %%
# Run as it is (in Jupyter, not by the pipeline, which passes every parameter): the parameters the pipeline
# would pass, from config.yaml's `items:` entry of `item` and its source experiment.
if inputs is None:
    globals().update(items.parameters(item))

# %%
data = items.load(inputs["data"])
runs = items.load(inputs["runs"], columns=["mechanism", "point", "x", "label", "n", "k", "prior", "counts",
                                           "epsilon", "delta", "error"])
exact = items.load(inputs["exact"])
summary = E.error_summary(runs, exact)
kind = data.kind.iloc[0]
xname = {"n-series": "n", "prior-series": "a"}[kind]
shown, alias, same_note = C.shown_mechanisms(mechanisms, data.k)
prior, eps, delta = data.prior.iloc[-1], runs.epsilon.iloc[0], runs.delta.iloc[0]
nruns = int(summary.runs.iloc[0])
xs = sorted(summary.x.unique())
if kind == "n-series":
    props = np.asarray(data.counts.iloc[-1]) / data.n.iloc[-1]
    data_txt = ("balanced counts (n/k each, remainder to the first categories)" if np.ptp(props) < 0.02
                else "unbalanced counts, proportions (" + ", ".join(f"{p:.2g}" for p in props) + ")")
    setting = (f"Prior {'Beta' if len(prior) == 2 else 'Dir'}({','.join(f'{v:g}' for v in prior)}); {data_txt}; "
               f"n in {{{', '.join(f'{v:g}' for v in xs)}}}")
else:
    setting = (f"Data c = ({','.join(map(str, data.counts.iloc[0]))}); prior Dir(a,...,a), "
               f"a in {{{', '.join(f'{v:g}' for v in xs)}}}")
exact_x = sorted(summary[summary.is_exact].x.unique())
switch = (f" Exact expectations (from the pmf) at {xname} <= {max(exact_x):g}; Monte Carlo means with 95% "
          f"intervals beyond." if exact_x and len(exact_x) < len(xs) else
          " Every point has its exact expectation." if exact_x else " No point has an exact expectation (|R| too large).")
mc_only = [style.label(m) for m in shown if not summary[summary.mechanism == m].is_exact.any()]
if exact_x and mc_only:  # a release with no exact error law at these sizes (the lattice release's local search)
    switch = switch.rstrip(".") + f", except for {' and '.join(mc_only)}: Monte Carlo means only."
caption = (f"{title}. {setting}; eps = {eps:g}, delta = {delta:g}; {nruns} runs per point. Left: Monte Carlo mean "
           f"error H(BI(c), release) with its 95% interval (band), open circles: exact expected error. Right: error "
           f"relative to {shown[0]}, on the exact expectation where it exists (solid markers) and on the Monte Carlo "
           f"mean (open markers with 95% intervals) elsewhere.{switch} {same_note}").strip()
last = summary.groupby("mechanism").x.max()
capped = [m for m in shown if m in last.index and last[m] < max(xs)]  # drawn to a smaller n (config max_n)
if capped:
    caption += " " + "; ".join(f"{style.label(m)} is drawn up to {xname} = {last[m]:g}" for m in capped) + " (config max_n)."
if note:  # the item's note (config.yaml): what the figure leaves out, and why
    caption += f" {note}"
tables.show_text("**Caption.** " + caption)

# %%
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(8.0, 3.6))
ref = summary[summary.mechanism == shown[0]].sort_values("x").set_index("point")
for m in shown:
    s = summary[summary.mechanism == m].sort_values("x")
    lab = style.legend_names(shown, data.k)[m]  # at k >= 3 lszhang's entry says it is lshist too (drawn once)
    ax.plot(s.x, s.mc_mean, marker=style.marker(m), color=style.colour(m), label=lab)
    ax.fill_between(s.x, s.mc_low, s.mc_high, color=style.colour(m), alpha=0.2, lw=0)
    e = s[s.is_exact]
    ax.plot(e.x, e.exact_mean, ls="none", marker="o", mfc="none", mec=style.colour(m), ms=7, mew=0.8)
    if m == shown[0]:
        continue
    s = s.set_index("point").reindex(ref.index)  # a mechanism capped by the experiment's max_n has no later points
    r = s.value / ref.value
    rse = r * np.hypot(s.se / s.value, ref.se / ref.value)
    ex = s.is_exact.fillna(False).astype(bool) & ref.is_exact
    ax2.plot(s.x, r, color=style.colour(m), lw=1.0)
    ax2.plot(s.x[ex], r[ex], ls="none", marker=style.marker(m), color=style.colour(m))
    if (~ex).any():
        ax2.errorbar(s.x[~ex], r[~ex], yerr=1.96 * rse[~ex], fmt=style.marker(m), mfc="white",
                     mec=style.colour(m), ecolor=style.colour(m), elinewidth=0.8, capsize=2)
ax2.axhline(1.0, color=style.colour(shown[0]), lw=1, ls="--")
if exact_x and len(exact_x) < len(xs):
    nxt = min(v for v in xs if v > max(exact_x))
    cut = float(np.sqrt(max(exact_x) * nxt)) if max(xs) / min(xs) > 10 else (max(exact_x) + nxt) / 2
    for a_ in (ax, ax2):
        a_.axvline(cut, color="0.4", lw=0.8, ls=":")
    ax2.annotate("exact | Monte Carlo", (cut, 1.0), xycoords=("data", "axes fraction"), xytext=(0, -10),
                 textcoords="offset points", ha="center", fontsize=7, color="0.3")
for a_ in (ax, ax2):
    if max(xs) / min(xs) > 10:
        a_.set_xscale("log")
    a_.set_xlabel("data size n" if xname == "n" else "balanced prior parameter a")
ax.set_yscale("log")
style.log_ticks(ax.yaxis)  # plain labels (0.2, 0.3, 0.5), not "2x10^-1"
ax.set_ylabel("mean Hellinger error")
ax2.set_ylabel(f"error relative to {shown[0]}")
ax.set_title("Mean error")
ax2.set_title(f"Error ratio to {shown[0]} (crossover at 1)")
handles, labels = ax.get_legend_handles_labels()
if exact_x:
    handles.append(plt.Line2D([], [], ls="none", marker="o", mfc="none", mec="k", ms=7, mew=0.8))
    labels.append("exact expectation")
handles.append(plt.Line2D([], [], color=style.colour(shown[0]), ls="--"))
labels.append(f"{shown[0]} (ratio 1)")
fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(labels), 4), frameon=False)
fig.tight_layout()
plt.show()

# %%
tab = summary.pivot(index="x", columns="mechanism", values="value")[shown]
table = pd.DataFrame({xname: tab.index})
for m in shown:
    s = summary[summary.mechanism == m].set_index("x").reindex(tab.index)
    table[f"{m} exact"] = s.exact_mean.to_numpy()
    table[f"{m} MC mean"] = s.mc_mean.to_numpy()
    table[f"{m} MC se"] = s.mc_se.to_numpy()
tables.show(table, heading="Mean errors (exact expectation where the pmf exists; -- where it does not)")
rows = C.accuracy(claims, summary, xname=xname, alias=alias, data=data)
verdicts = items.finish(item, outputs, fig=fig, table=table, caption=caption, rows=rows)
