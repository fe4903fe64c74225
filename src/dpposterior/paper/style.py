"""Figure style of the paper's items: colours, names and markers per mechanism, rcParams, and
deterministic figure files (no dates or software tags, so reruns are byte-identical)."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

#: Colours per mechanism; the arXiv draft's Fig. 3 uses M_H blue, baseline Laplace green, improved Laplace red.
COLOURS = {"mh": "#1f77b4", "lsdim": "#2ca02c", "lshist": "#d62728", "mh-delta": "#9467bd",
           "lszhang": "#e6a700", "ehds": "#8c564b", "ehd": "#7f7f7f", "ehdl": "#17becf",
           "formula-exp": "#444444", "formula-laplace": "#bbbbbb", "geometric": "#e377c2",
           "ehd~calibrated": "#3f3f3f", "ehds~calibrated": "#5c3a1e", "mh~calibrated": "#0b3d66",
           "mh-delta~calibrated": "#5a3d80", "optimal~worst": "#000000", "optimal~average": "#555555",
           "lattice~worst": "#ff7f0e", "lattice~average": "#1a9e8f"}  # teal: olive sat between orange and gold
#: What a legend says after a release's registry label (:func:`label`): the drafts' name for it, or what it is made
#: of.  Every legend, cell and caption names a release by its label first, so one release reads the same everywhere.
#: A release that differs by k has one entry per k: ``{2: ..., 3: ...}`` (3: every k >= 3).
ABOUT = {"mh": "M_H, arXiv Def. 6", "lsdim": "Laplace", "lshist": "improved Laplace",
         "mh-delta": "M_H, workshop Def. 4.1", "lszhang": "Laplace 2/eps", "geometric": "discrete Laplace",
         "optimal~worst": {2: "geometric + minimax remap", 3: "the LP; the lattice release beyond its limits"},
         "optimal~average": {2: "geometric + Bayes remap", 3: "the LP; the lattice release beyond its limits"},
         "lattice~worst": "K-norm noise + minimax remap", "lattice~average": "K-norm noise + Bayes remap",
         "formula-exp": "workshop draft's printed formula, exponential",
         "formula-laplace": "workshop draft's printed formula, Laplace"}
#: At k >= 3 ``lshist`` and ``lszhang`` are one release (both Laplace 2/eps): each legend says so, whichever is drawn.
SAME_FROM_K3 = {"lszhang": "lshist", "lshist": "lszhang"}
MARKERS = {"mh": "o", "lsdim": "s", "lshist": "^", "mh-delta": "D", "lszhang": "v", "ehds": "P", "ehd": "X",
           "ehdl": "*", "geometric": "h", "ehd~calibrated": "x", "ehds~calibrated": "p", "mh~calibrated": "8",
           "mh-delta~calibrated": "d", "optimal~worst": "H", "optimal~average": "H",
           "lattice~worst": "<", "lattice~average": ">"}

RC = {"font.size": 9, "axes.titlesize": 9.5, "axes.labelsize": 9, "legend.fontsize": 7.5,
      "xtick.labelsize": 8, "ytick.labelsize": 8, "figure.dpi": 110, "savefig.dpi": 200,
      "axes.grid": True, "grid.alpha": 0.3, "lines.linewidth": 1.3, "lines.markersize": 4,
      "pdf.fonttype": 42, "svg.hashsalt": "dpposterior", "savefig.bbox": "tight"}


#: Colours and markers an id without an entry above gets (a new mechanism needs no style entry).
DEFAULT_COLOURS = ("#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354",
                   "#756bb1", "#636363")
DEFAULT_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<", ">")


def _pick(m: str, choices: tuple[str, ...]) -> str:
    """A deterministic choice for ``m`` (crc32: Python's hash() is salted per process)."""
    return choices[zlib.crc32(m.encode("utf-8")) % len(choices)]


def colour(m: str) -> str:
    return COLOURS.get(m) or _pick(m, DEFAULT_COLOURS)


def label(m: str) -> str:
    """The registry's display label of a mechanism variant, as ``compare`` prints it (``lattice~average`` ->
    ``lattice (average)``, ``ehds~calibrated`` -> ``ehds (calibrated)``); a name the registry does not know (the
    drafts' printed formulas) stays as it is."""
    from ..errors import InputError
    from ..mechanisms import parse_variant

    try:
        return parse_variant(m).label
    except InputError:
        return str(m)


def name(m: str, k: int | None = None) -> str:
    """A release's legend entry: its registry label (:func:`label`), then what it is (:data:`ABOUT`), e.g.
    ``lattice (average): K-norm noise + Bayes remap``.  With ``k >= 3``, ``lszhang`` and ``lshist`` say that they
    are the same release there (:data:`SAME_FROM_K3`), so a figure that draws either names it the same way."""
    about = ABOUT.get(m)
    if isinstance(about, dict):
        about = (about[2 if k == 2 else 3] if k is not None
                 else "; ".join(f"k {'=' if j == 2 else '>='} {j}: {v}" for j, v in about.items()))
    if k is not None and k >= 3 and m in SAME_FROM_K3:
        about = f"{about} (= {SAME_FROM_K3[m]} at k >= 3)"
    return f"{label(m)}: {about}" if about else label(m)


def wrap_label(text: str, width: int = 46) -> str:
    """A legend entry broken into lines of at most ``width`` characters (a legend beside the panels stays narrow)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False))


def legend_names(mechanisms, k_values) -> dict[str, str]:
    """The legend entry (:func:`name`) of each release an item draws, at the smallest k of its points: two items at
    the same k name a release the same way, whichever other releases they draw (``lszhang`` at k = 3 says it is
    ``lshist`` too, with or without ``lshist`` beside it)."""
    import numpy as np

    k = int(np.min(np.asarray(k_values)))
    return {m: name(m, k) for m in mechanisms}


def marker(m: str) -> str:
    return MARKERS.get(m) or _pick(m, DEFAULT_MARKERS)


def apply() -> None:
    """Set the paper's rcParams (the inline backend of a notebook is left as it is)."""
    import matplotlib.pyplot as plt  # optional heavy dependency (the `pipeline` extra): imported when drawing

    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    plt.rcParams.update(RC)


def warm_up() -> None:
    """Draw and save one small figure (PNG and PDF, with the paper's rcParams, to memory) and so do once, in the
    kernel server (:mod:`.jobserver`), what each notebook kernel did on its first figure: the fonts loaded, the PDF
    backend's font embedding (fontTools) imported, the inline backend's PNG formatter.  A figure of its own, not
    pyplot's (no figure number taken), rcParams restored after: a forked kernel starts as it did."""
    import io

    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(3.0, 2.0))
        ax = fig.subplots()
        ax.plot([1.0, 2.0], [1.0, 0.5], marker="o", label="a line")
        ax.set(title="a title", xlabel="$n$", ylabel="error", xscale="log")
        ax.legend()
        fig.text(0.5, 1.0, "a bold title", fontweight="bold")
        for fmt in ("png", "pdf"):
            fig.savefig(io.BytesIO(), format=fmt)
        from IPython.core.pylabtools import print_figure

        print_figure(fig, "png")


def log_ticks(axis) -> None:
    """Plain labelled ticks on a log axis: 1, 1.1, 1.2, 1.3, 1.5, ... x 10^j over a range under half a decade,
    1, 2, 3, 5 x 10^j up to about a decade (either would otherwise get one label or none), 1, 2, 5 x 10^j up to
    ~2.5 decades, 10^j beyond (call after plotting: the range is the axis' view interval)."""
    import math

    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator  # optional heavy dependency

    lo, hi = sorted(axis.get_view_interval())
    decades = math.log10(hi / lo) if lo > 0 and hi > 0 else 0.0
    subs = ((1.0, 1.1, 1.2, 1.3, 1.5, 1.7, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0) if decades <= 0.5  # e.g. ratios 1 to 1.8
            else (1.0, 2.0, 3.0, 5.0) if decades <= 1.3 else (1.0, 2.0, 5.0) if decades <= 2.5 else (1.0,))
    axis.set_major_locator(LogLocator(base=10.0, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())


def curves(ax, data: dict, rtol: float = 0.005, **kw) -> None:
    """Draw one line per entry of ``data`` (mechanism -> (x, y), in drawing order) in its colour and marker, with
    ``kw`` (``ls`` may be a function of the mechanism). A line that lies on an earlier one (within ``rtol`` at every
    point: one line to the eye) gets larger open markers, one size up per line below it, so none is hidden."""
    below: dict = {}
    for m, (x, y) in data.items():
        opts = {k: (v(m) if callable(v) else v) for k, v in kw.items()}
        under = [e for e in below if coincident({e: below[e], m: (x, y)}, rtol=rtol, atol=0.0)]
        if under:
            size = opts.get("ms", 4) + 3.0 * len(under)
            opts.update(ms=size, mfc="none", mew=1.2, zorder=2.5 + len(under))
        ax.plot(x, y, color=colour(m), marker=marker(m), **opts)
        below[m] = (x, y)


#: The band between the certified lower bound on the optimum and the best release (frontier, k >= 3): its colour,
#: and its legend entry.
BRACKET_COLOUR = "#f2c14e"
BRACKET_LABEL = "shaded: the optimum lies here, between\na certified lower bound (yardstick) and\nthe best release computed"


def bracket_band(ax, brackets) -> bool:
    """Shade, against n, the band from the certified bound to the best release (rows of
    :func:`dpposterior.paper.beyond.brackets`, narrowed to one k, setting and objective; points without a bound or a
    release are left out, so the band breaks there); a bound above the best release is drawn in red, not hidden.
    Returns whether anything was drawn."""
    s = brackets[brackets.bound.notna() & brackets.best.notna()].sort_values("n")
    if not len(s):
        return False
    n, lo, hi = s.n.to_numpy(float), s.bound.to_numpy(float), s.best.to_numpy(float)
    ax.fill_between(n, lo, hi, where=lo <= hi, color=BRACKET_COLOUR, alpha=0.45, lw=0, zorder=0.5)
    ax.fill_between(n, lo, hi, where=lo > hi, color="red", alpha=0.6, lw=0, zorder=0.5)
    if len(s) == 1:  # one point: a bar, as fill_between draws nothing there
        ax.vlines(n, lo, hi, color=BRACKET_COLOUR if lo[0] <= hi[0] else "red", lw=6, alpha=0.6, zorder=0.5)
    return True


def ratio_panel(ax, ratios, mechanisms, ns, xlabel: str = "data size n", ls: str | None = None,
                mfc: str | None = None) -> None:
    """One panel of errors over the optimum's against n (rows of :func:`dpposterior.paper.beyond.ratios`, already
    narrowed to one objective and setting): a line per mechanism in ``mechanisms`` (dashed when calibrated, or all
    ``ls``; markers filled, or ``mfc``), the optimum as the black line at 1, log axes with the n of ``ns`` as ticks
    (called again on the same axes, it adds a second setting's lines)."""
    from matplotlib.ticker import NullLocator  # optional heavy dependency, as in apply()

    data = {}
    for m in mechanisms:
        s = ratios[ratios.mechanism == m].sort_values("n")
        if len(s):
            data[m] = (s.n.to_numpy(), s.ratio.to_numpy())
    extra = {"mfc": mfc} if mfc else {}
    curves(ax, data, ms=4, lw=1.1, ls=lambda m: ls or ("--" if "~calibrated" in m else "-"), **extra)
    ax.axhline(1.0, color="black", lw=2.2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_ticks(ax.yaxis)
    ax.set_xticks(ns, [str(v) for v in ns])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(xlabel)
    ax.set_ylabel("error / optimum")


def ratio_bars(ax, ratios, mechanisms) -> None:
    """Errors over the optimum's at one n (rows of :func:`dpposterior.paper.beyond.ratios`, narrowed to one
    objective, setting and n): one bar per mechanism of ``mechanisms``, from the optimum (1) to its ratio, named by
    its registry label, best first; what :func:`ratio_panel` would draw as a panel of single points."""
    s = ratios[ratios.mechanism.isin(list(mechanisms))].sort_values("ratio", ascending=False)
    y = range(len(s))
    ax.barh(y, s.ratio.to_numpy() - 1.0, left=1.0, color=[colour(m) for m in s.mechanism], height=0.7)
    ax.set_yticks(list(y), [label(m) for m in s.mechanism], fontsize=7)
    ax.axvline(1.0, color="black", lw=2.2)
    ax.set_xlabel(f"error / optimum at n = {int(s.n.iloc[0])}" if len(s) else "error / optimum")
    ax.grid(axis="y", visible=False)


def text_colour(background: str) -> str:
    """Black or white, whichever reads better on ``background`` (WCAG relative luminance; the contrast
    ratio against black is higher exactly when the luminance exceeds ~0.179)."""
    from matplotlib.colors import to_rgb  # optional heavy dependency, as in apply()

    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(background)]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "black" if lum > 0.179 else "white"


def coincident(curves: dict, rtol: float = 1e-9, atol: float = 1e-12) -> dict:
    """Which curves would be drawn exactly over an earlier one: ``{name: earlier name}`` for every entry of
    ``curves`` (name -> (x, y) arrays, in drawing order) whose points equal those of an earlier entry."""
    import numpy as np

    out, seen = {}, []
    for m, (x, y) in curves.items():
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        for e, (ex, ey) in seen:
            if x.shape == ex.shape and len(x) and np.allclose(x, ex, rtol, atol) and np.allclose(
                    y, ey, rtol, atol, equal_nan=True):
                out[m] = e
                break
        else:
            seen.append((m, (x, y)))
    return out


def _wrap(text: str, width_in: float, size: float) -> str:
    """``text`` wrapped to about ``width_in`` inches at font ``size`` (an average glyph is ~0.5 em wide)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, max(40, int(width_in * 72 / (0.5 * size))), break_on_hyphens=False))


def save(fig, *paths: str | Path, title: str | None = None, settings: str | None = None) -> None:
    """Write ``fig`` to each path (format from the suffix), deterministically, creating folders.

    With ``title`` (and ``settings``), the files carry them above the axes (bold title, then the settings
    line, both wrapped to the figure's width) so a PNG or PDF opened on its own says what it shows; the
    figure itself is left as it was (the notebook's inline copy has its own heading and caption)."""
    from matplotlib.transforms import ScaledTranslation  # optional heavy dependency, as in apply()

    added = []
    if title:
        width = fig.get_figwidth()
        lines = [(_wrap(settings, width, 8.0), 8.0, "normal")] if settings else []
        lines.append((_wrap(title, width, 10.0), 10.0, "bold"))
        up = 6.0  # points above the figure's top edge (savefig's tight box grows to hold them)
        for text, size, weight in lines:
            shift = ScaledTranslation(0, up / 72, fig.dpi_scale_trans)
            added.append(fig.text(0.5, 1.0, text, ha="center", va="bottom", fontsize=size, fontweight=weight,
                                  transform=fig.transFigure + shift))
            up += (text.count("\n") + 1) * size * 1.25 + 3.0
    try:
        for p in paths:
            p = Path(p)
            p.parent.mkdir(parents=True, exist_ok=True)
            if p.suffix == ".pdf":
                meta = {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}
            elif p.suffix == ".png":
                meta = {"Software": None}
            else:
                meta = {}
            fig.savefig(p, metadata=meta)
    finally:
        for t in added:
            t.remove()


def winner_cell(winner: str, runner_up: str | None, ratio: float, to_optimum: float, same: str | None = None,
                to_bound: float = float("nan")) -> str:
    """The text of one which-to-use cell (a row of :func:`dpposterior.paper.beyond.winners`), read without its colour
    (in greyscale too): the winner's registry label (:func:`label`, as the legend starts), its margin ("runner-up
    +2.1%": how much larger the next release's error is; "tie" under 0.05 %) and its error over the optimum's
    ("opt. x1.05"); where the k >= 3 linear program is past its budgets (an optimum exists; it was not computed),
    its error over a certified lower bound on the optimum, ``to_bound`` ("opt. <= x1.05": the optimum is within that
    factor of the winner; :func:`dpposterior.paper.beyond.brackets`), or "no LP optimum" without one.  ``same``: the
    releases with the winner's error (comma-separated ids), one line "= lshist"."""
    import math

    lines = [label(winner)]
    if isinstance(same, str) and same:  # None or NaN (a frame's missing value): no twin
        lines.append("= " + ", ".join(label(m) for m in same.split(", ")))
    if runner_up is None or not math.isfinite(ratio):
        lines.append("the only release")
    elif ratio - 1.0 < 5e-4:
        lines.append("tie (< 0.05%)")
    else:
        lines.append(f"runner-up +{100.0 * (ratio - 1.0):.{1 if ratio < 1.1 else 0}f}%")
    if math.isfinite(to_optimum):
        lines.append(f"opt. x{to_optimum:.2f}")
    else:
        lines.append(f"opt. \u2264 x{to_bound:.2f}" if math.isfinite(to_bound) else "no LP optimum")
    return "\n".join(lines)


def tint(colour_: str, amount: float = 0.45) -> str:
    """``colour_`` mixed with white (``amount`` of the colour): a cell background on which black text reads, whatever
    the colour (WCAG contrast against black about 6 for pure black's tint at 0.45, more for any other)."""
    from matplotlib.colors import to_hex, to_rgb  # optional heavy dependency, as in apply()

    return to_hex([1.0 - amount * (1.0 - c) for c in to_rgb(colour_)])
