"""All verdicts in one place: ``figures/verdicts.csv`` / ``.md`` (every claim of every item with the
draft's value, the computed value, the rule, the tolerance and the verdict) and an HTML page (the
report's first page) that also gives each item's caption."""

from __future__ import annotations

import html as H
import os
from pathlib import Path

import pandas as pd

from . import verdicts as V
from .tables import to_markdown

ORDER = [V.REPRODUCED, V.PARTLY, V.NOT_REPRODUCED, V.WITHIN_NOISE, V.NOT_REFUTED, V.BY_CONSTRUCTION, V.VACUOUS,
         V.CANNOT_CHECK, V.CONSISTENT, V.INCONSISTENT]

HOW_TO_READ = (
    "Each row is one claim of a paper draft (or a check of the project's own machinery), recomputed "
    "from this run's results. *draft*: what the draft states; *computed*: what we find; *rule*: how the "
    "two are compared; *tolerance*: the stated tolerance or test level. Verdicts: **REPRODUCED** (the rule "
    "holds), **PARTLY** (it holds at some points or only qualitatively, e.g. a crossover away from the "
    "draft's location), **NOT REPRODUCED**, **WITHIN NOISE** (a Monte Carlo difference the stated test "
    "cannot tell from zero), **NOT REFUTED** (a privacy claim tested from samples: samples can refute a "
    "guarantee, never prove it), **BY CONSTRUCTION** (the check cannot fail for a correct implementation: "
    "it restates a definition or an identity), **VACUOUS** (the bound holds but says nothing at the settings used), "
    "**CANNOT CHECK** (the row says why), **CONSISTENT/INCONSISTENT** (the auditor's own soundness check). "
    "Only REPRODUCED counts as reproduced. Where the findings are explained: docs/findings.md. "
    "Errors are judged on the exact expectation where the pmf exists and on the Monte Carlo mean (Welch "
    "z-test, two-sided, alpha = 0.05 per point) elsewhere.")


def counts(df: pd.DataFrame) -> dict[str, int]:
    """Number of rows per verdict, in :data:`ORDER`."""
    c = df.verdict.value_counts()
    return {v: int(c.get(v, 0)) for v in ORDER if c.get(v, 0)} | {
        v: int(n) for v, n in c.items() if v not in ORDER}


def counts_table(cnt: dict[str, int]) -> str:
    """The count per verdict word as a two-column Markdown table (the first thing a reader sees)."""
    return "\n".join(["| verdict | rows |", "|---|---|"] + [f"| {v} | {n} |" for v, n in cnt.items()])


def _atomic(path, text):
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, p)


def write_verdicts(inputs: list[str], captions: list[str], *, csv: str, md: str, html: str) -> pd.DataFrame:
    """Concatenate the per-item verdict CSVs (in the given order) and write the three views."""
    df = pd.concat([pd.read_csv(p, keep_default_na=False) for p in inputs], ignore_index=True)
    df = df[V.COLUMNS]
    Path(csv).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(csv, index=False)
    cnt = counts(df)
    summary = ", ".join(f"{n} {v}" for v, n in cnt.items())
    text = ["# Verdicts: every claim of every item", "", f"**{len(df)} rows:** {summary}.", "",
            counts_table(cnt), "", HOW_TO_READ, "", to_markdown(df), ""]
    _atomic(md, "\n".join(text))
    caps = {Path(p).stem: Path(p).read_text(encoding="utf-8") for p in captions}
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Verdicts</title><style>"
             "body{font-family:sans-serif;max-width:75em;margin:1em auto;font-size:14px}"
             "table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #bbb;padding:3px 6px;"
             "vertical-align:top}th{background:#eee}.v{font-weight:bold;white-space:nowrap}</style></head><body>",
             "<h1>Verdicts: every claim of every item</h1>", f"<p><b>{len(df)} rows:</b> {H.escape(summary)}.</p>",
             f"<p>{H.escape(HOW_TO_READ).replace('**', '')}</p>"]
    for item, g in df.groupby("item", sort=False):
        parts.append(f"<h2 id='{H.escape(item)}'>{H.escape(item)}</h2>")
        if item in caps:
            parts.append(f"<p>{H.escape(caps[item])}</p>")
        parts.append("<table><tr>" + "".join(f"<th>{c}</th>" for c in V.COLUMNS[1:]) + "</tr>")
        for r in g.itertuples(index=False):
            cells = [H.escape(str(getattr(r, c))) for c in V.COLUMNS[1:]]
            cells[-1] = f"<span class='v'>{cells[-1]}</span>"
            parts.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    _atomic(html, "\n".join(parts))
    return df


def rst_escape(text: str) -> str:
    """Backslash-escape reStructuredText inline markup (for captions rendered by Snakemake's report)."""
    out = str(text).replace("\\", "\\\\")
    for ch in "*`|_[]<>":
        out = out.replace(ch, "\\" + ch)
    return out.replace("\n", " ")


def caption_rst(path: Path) -> str:
    """An item's caption file as escaped reStructuredText ('' if it does not exist yet)."""
    p = Path(path)
    return rst_escape(p.read_text(encoding="utf-8").strip()) if p.is_file() else ""


def verdicts_rst(path: Path) -> str:
    """The verdict table (CSV) as a reStructuredText list-table, with the counts and how to read it."""
    p = Path(path)
    if not p.is_file():
        return "(The verdict table does not exist yet: run the pipeline first.)"
    df = pd.read_csv(p, keep_default_na=False)
    summary = ", ".join(f"{n} {v}" for v, n in counts(df).items())
    lines = [f"{len(df)} rows: {rst_escape(summary)}.", "", rst_escape(HOW_TO_READ.replace("**", "").replace("*", "")),
             "", ".. list-table::", "   :header-rows: 1",
             "   :widths: 8 30 12 25 25 12 10", ""]
    lines.append("   * - " + "\n     - ".join(V.COLUMNS))
    for r in df.itertuples(index=False):
        lines.append("   * - " + "\n     - ".join(rst_escape(getattr(r, c)) or "--" for c in V.COLUMNS))
    return "\n".join(lines) + "\n"
