"""Tables as people read them: Markdown that renders as a table (``|`` escaped, missing values
``--``), CSV, and LaTeX with its special characters escaped."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

MISSING = "--"
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
          "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def cell(v, floatfmt: str = ".4g") -> str:
    """One cell as text: floats with ``floatfmt``, missing values as ``--``."""
    if v is None or (isinstance(v, (float, np.floating)) and np.isnan(v)):
        return MISSING
    if isinstance(v, (float, np.floating)):
        return format(float(v), floatfmt)
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return str(v)


def md_escape(text: str) -> str:
    """Escape what would break a Markdown table cell (``|``, newlines)."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def to_markdown(df: pd.DataFrame, floatfmt: str = ".4g", index: bool = False) -> str:
    """A GitHub-style Markdown table; ``|`` in cells escaped and missing values ``--``."""
    d = df.reset_index() if index else df
    head = "| " + " | ".join(md_escape(c) for c in d.columns) + " |"
    sep = "|" + "|".join("---" for _ in d.columns) + "|"
    rows = ["| " + " | ".join(md_escape(cell(v, floatfmt)) for v in r) + " |" for r in d.itertuples(index=False)]
    return "\n".join([head, sep, *rows])


def latex_escape(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in str(text))


def to_latex(df: pd.DataFrame, caption: str, label: str, floatfmt: str = ".6g") -> str:
    """A LaTeX table (booktabs) with every cell and the caption escaped."""
    cols = "l" * len(df.columns)
    lines = ["\\begin{table}[t]", "\\centering", "\\small", f"\\begin{{tabular}}{{{cols}}}", "\\toprule",
             " & ".join(latex_escape(c) for c in df.columns) + " \\\\", "\\midrule"]
    for r in df.itertuples(index=False):
        lines.append(" & ".join(latex_escape(cell(v, floatfmt)) for v in r) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", f"\\caption{{{latex_escape(caption)}}}",
              f"\\label{{tab:{latex_escape(label)}}}", "\\end{table}", ""]
    return "\n".join(lines)


def _write(path: str | Path, text: str) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, p)


def write_table(df: pd.DataFrame, *, csv: str | Path, md: str | Path, tex: str | Path, caption: str, label: str,
                floatfmt: str = ".6g") -> None:
    """The same table as CSV (full precision), Markdown (with the caption below) and LaTeX."""
    p = Path(csv)
    p.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(p, index=False, float_format="%.12g", na_rep="")
    _write(md, to_markdown(df, floatfmt) + "\n\n" + caption + "\n")
    _write(tex, to_latex(df, caption, label, floatfmt))


def show(df: pd.DataFrame, floatfmt: str = ".4g", index: bool = False, heading: str | None = None) -> None:
    """Display ``df`` in a notebook as a rendered Markdown table."""
    from IPython.display import Markdown, display  # optional (a notebook's kernel): imported when shown

    text = to_markdown(df, floatfmt, index=index)
    display(Markdown((f"**{heading}**\n\n" if heading else "") + text))


def show_text(text: str) -> None:
    from IPython.display import Markdown, display  # optional (a notebook's kernel): imported when shown

    display(Markdown(text))
