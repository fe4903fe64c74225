"""Helpers imported by the notebook templates: paper style, deterministic figure files,
captions, claim verdicts and table writers. Notebooks only load results/ and plot."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Markdown, display  # noqa: E402

from dpposterior.accuracy import mc_summary  # noqa: E402,F401

os.environ.setdefault("SOURCE_DATE_EPOCH", "0")

#: 004 Fig. 3 colours: M_H blue, baseline Laplace green, improved Laplace red.
COLOURS = {"mh": "#1f77b4", "lsdim": "#2ca02c", "lshist": "#d62728", "mh-delta": "#9467bd",
           "lszhang": "#e6a700", "ehds": "#8c564b", "ehd": "#7f7f7f", "ehdl": "#17becf",
           "formula-exp": "#444444", "formula-laplace": "#bbbbbb"}
NAMES = {"mh": "mh (M_H, 004 Def. 6)", "lsdim": "lsdim (Laplace)", "lshist": "lshist (improved Laplace)",
         "mh-delta": "mh-delta (M_H, 000 Def. 4.1)", "lszhang": "lszhang (Laplace 2/eps)",
         "ehds": "ehds", "ehd": "ehd", "ehdl": "ehdl"}
MARKERS = {"mh": "o", "lsdim": "s", "lshist": "^", "mh-delta": "D", "lszhang": "v", "ehds": "P"}


def style() -> None:
    plt.rcParams.update({
        "font.size": 8, "axes.titlesize": 8.5, "axes.labelsize": 8, "legend.fontsize": 7,
        "xtick.labelsize": 7.5, "ytick.labelsize": 7.5, "figure.dpi": 150, "savefig.dpi": 300,
        "axes.grid": True, "grid.alpha": 0.3, "lines.linewidth": 1.2, "lines.markersize": 3.5,
        "pdf.fonttype": 42, "svg.hashsalt": "dpposterior",
    })


def caption(fig, text: str, width: int | None = None, top: float = 1.0) -> None:
    """Put the settings caption in the figure, below the axes: the figure grows by the caption's height."""
    w_in, h_in = fig.get_size_inches()
    width = width or int(w_in * 72 / 4.4)  # ~4.4 pt per character at 7 pt, with margin
    wrapped = "\n".join(textwrap.wrap(text, width))
    lines = wrapped.count("\n") + 1
    cap_h = lines * 7 * 1.3 / 72 + 0.1
    total = h_in + cap_h
    fig.set_size_inches(w_in, total)
    fig.tight_layout(rect=(0, cap_h / total, 1, 1 - (1 - top) * h_in / total))
    fig.text(0.012, 0.04 / total, wrapped, ha="left", va="bottom", fontsize=7)


def save(fig, item: str, outdir: str = "figures") -> None:
    """figures/<item>.pdf and .png, without creation dates or software tags (deterministic bytes)."""
    Path(outdir).mkdir(parents=True, exist_ok=True)
    fig.savefig(f"{outdir}/{item}.pdf", metadata={"CreationDate": None, "ModDate": None, "Producer": None,
                                                  "Creator": None})
    fig.savefig(f"{outdir}/{item}.png", metadata={"Software": None})


def show_markdown(text: str) -> None:
    display(Markdown(text))


def verdict_table(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=["claim", "draft", "computed", "verdict"])
    show_markdown(df.to_markdown(index=False))
    return df


# ---------------------------------------------------------------- claims on error curves
def crossover(x: np.ndarray, better: np.ndarray, worse: np.ndarray) -> float | None:
    """Smallest x from which `better` has lower error at every later grid point (log-x interpolation)."""
    d = np.asarray(better) - np.asarray(worse)
    x = np.asarray(x, float)
    if d[-1] >= 0:
        return None
    i = len(d) - 1
    while i > 0 and d[i - 1] < 0:
        i -= 1
    if i == 0:
        return float(x[0])
    lx0, lx1 = np.log(x[i - 1]), np.log(x[i])
    f = d[i - 1] / (d[i - 1] - d[i])
    return float(np.exp(lx0 + f * (lx1 - lx0)))


def first_loss(x: np.ndarray, better: np.ndarray, worse: np.ndarray) -> float | None:
    """Smallest x from which `better` has error >= `worse` at every later grid point (001 Fig. 1 reading)."""
    d = np.asarray(better) - np.asarray(worse)
    if d[-1] < 0:
        return None
    i = len(d) - 1
    while i > 0 and d[i - 1] >= 0:
        i -= 1
    return float(np.asarray(x)[i])


def check_claims(claims: list[dict], table: pd.DataFrame, col: str, xname: str = "n", rel_tol: float = 0.25) -> pd.DataFrame:
    """Recompute each draft claim from `table` (index x, columns mechanisms, values `col`) and judge it."""
    rows = []
    x = table.index.to_numpy(float)
    for cl in claims or []:
        kind = cl["kind"]
        if kind == "crossover":
            b, w = table[cl["better"]].to_numpy(), table[cl["worse"]].to_numpy()
            xs = crossover(x, b, w)
            changes = int(np.sum(np.diff(np.sign(b - w)) != 0))
            if xs is None:
                comp, ok = f"{cl['better']} never ends below {cl['worse']} on the grid", False
            elif xs == x[0]:
                comp, ok = f"{cl['better']} below {cl['worse']} at every {xname} of the grid", False
            else:
                comp = f"{xname}* = {xs:.4g} ({changes} sign change(s) on the grid)"
                ok = True if "draft" not in cl else abs(np.log(xs / cl["draft"])) <= np.log(1 + rel_tol)
            draft = f"{xname}* ~ {cl['draft']}" if "draft" in cl else "a crossover exists"
            rows.append({"claim": cl["text"], "draft": draft, "computed": comp,
                         "verdict": "REPRODUCED" if ok else "NOT REPRODUCED"})
        elif kind == "crossover-below":
            b, w = table[cl["better"]].to_numpy(), table[cl["worse"]].to_numpy()
            xs = first_loss(x, b, w)
            wins = [f"{v:g}" for v, d in zip(x, b - w) if d < 0]
            comp = (f"{cl['better']} loses to {cl['worse']} from {xname} = {xs:g} on; wins at {xname} in "
                    f"{{{', '.join(wins) or 'none'}}}") if xs is not None else f"{cl['better']} still better at the largest {xname}"
            ok = xs is not None and abs(np.log(xs / cl["draft"])) <= np.log(1 + rel_tol)
            rows.append({"claim": cl["text"], "draft": f"{xname}* = {cl['draft']}", "computed": comp,
                         "verdict": "REPRODUCED" if ok else "NOT REPRODUCED"})
        elif kind == "always-better":
            b, w = table[cl["better"]].to_numpy(), table[cl["worse"]].to_numpy()
            bad = x[b >= w]
            comp = (f"{cl['better']} < {cl['worse']} at all {len(x)} grid points" if bad.size == 0 else
                    f"fails at {xname} in {{{', '.join(f'{v:g}' for v in bad)}}}")
            rows.append({"claim": cl["text"], "draft": f"{cl['better']} better everywhere", "computed": comp,
                         "verdict": "REPRODUCED" if bad.size == 0 else ("PARTLY" if bad.size < len(x) else "NOT REPRODUCED")})
        elif kind == "approaches":
            a_, b_ = table[cl["a"]].to_numpy(), table[cl["b"]].to_numpy()
            ratio, diff = a_ / b_, a_ - b_
            comp = (f"difference {diff[0]:.3g} -> {diff[-1]:.3g}; ratio {ratio[0]:.3g} -> {ratio[-1]:.3g} "
                    f"(at {xname} = {x[0]:g} -> {x[-1]:g})")
            shrinks, ratio_to_1 = abs(diff[-1]) < abs(diff[0]), abs(ratio[-1] - 1) < 0.1
            verdict = "REPRODUCED" if shrinks and ratio_to_1 else ("PARTLY (absolute gap shrinks, ratio does not tend to 1)"
                                                                  if shrinks else "NOT REPRODUCED")
            rows.append({"claim": cl["text"], "draft": "error ratio -> 1", "computed": comp, "verdict": verdict})
        elif kind == "trend":
            v = table[cl["mechanism"]].to_numpy()
            dirn = np.sign(v[-1] - v[0])
            want = -1 if cl["direction"] == "down" else 1
            monotone = np.all(np.diff(v) * want > 0)
            comp = f"{cl['mechanism']}: {v[0]:.4g} -> {v[-1]:.4g} ({'monotone' if monotone else 'not monotone'})"
            rows.append({"claim": cl["text"], "draft": f"error goes {cl['direction']}", "computed": comp,
                         "verdict": "REPRODUCED" if dirn == want else "NOT REPRODUCED"})
        else:
            raise ValueError(f"unknown claim kind {kind!r}")
    return verdict_table(rows)


def write_table(df: pd.DataFrame, item: str, caption_text: str, outdir: str = "figures", floatfmt: str = ".6g") -> None:
    """figures/<item>.csv, .md and .tex (LaTeX table with the caption)."""
    Path(outdir).mkdir(parents=True, exist_ok=True)
    df.to_csv(f"{outdir}/{item}.csv", index=False, float_format="%.12g")
    md = df.to_markdown(index=False, floatfmt=floatfmt).replace(" nan ", " --  ")
    Path(f"{outdir}/{item}.md").write_text(md + "\n\n" + caption_text + "\n")
    tex = df.to_latex(index=False, float_format=lambda v: f"{v:{floatfmt}}", escape=True, na_rep="--")
    cap = caption_text.replace("_", r"\_").replace("%", r"\%")
    Path(f"{outdir}/{item}.tex").write_text("\\begin{table}[t]\n\\centering\n\\small\n" + tex +
                                            f"\\caption{{{cap}}}\n\\label{{tab:{item}}}\n\\end{{table}}\n")
