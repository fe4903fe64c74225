"""All verdicts in one place: ``figures/verdicts.csv`` / ``.md`` (every claim of every item with the
draft's value, the computed value, the rule, the tolerance and the verdict) and an HTML page (the
report's first page) that also gives each item's caption."""

from __future__ import annotations

import html as H
import os
import re
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from . import verdicts as V
from .tables import to_markdown
from .words import KINDS, ORDER  # the kinds of row; the verdict words in the order of every count

#: The kinds of row by whose statement they check, in the order the counts show them, with their column heading.

HOW_TO_READ = (
    "Each row checks one statement, recomputed from this run's results; its *source* says whose: a draft's claim "
    "(the draft by version and section, or the authors' code or ICML 2019 version), a question a draft asks without "
    "claiming an answer, or the project's own finding or check (\"project\"); the three are counted apart. "
    "*draft*: what the draft states (for the project's rows: what is checked); *computed*: what we find; *rule*: how the "
    "two are compared; *tolerance*: the stated tolerance or test level. Verdicts: **REPRODUCED** (the rule "
    "holds), **PARTLY** (it holds at some points or only qualitatively, e.g. a crossover away from the "
    "draft's location), **NOT REPRODUCED**, **WITHIN NOISE** (a Monte Carlo difference the stated test "
    "cannot tell from zero), **NOT REFUTED** (a privacy claim tested from samples: samples can refute a "
    "guarantee, never prove it), **BY CONSTRUCTION** (the check cannot fail for a correct implementation: "
    "it restates a definition or an identity), **VACUOUS** (the bound holds but says nothing at the settings used), "
    "**CANNOT CHECK** (the row says why), **ANSWERED** (the row asks a question and claims no answer: the computed "
    "column gives it), **CONSISTENT/INCONSISTENT** (the auditor's own soundness check). "
    "Only REPRODUCED counts as reproduced. Where the findings are explained: docs/findings.md. "
    "Errors are judged on the exact expectation where the pmf exists and on the Monte Carlo mean elsewhere "
    "(two-sided Welch z-tests; the m points or comparisons of one claim are tested jointly at alpha = 0.05, "
    "each at alpha/m: Bonferroni; the row's rule gives m).")


def counts(df: pd.DataFrame) -> dict[str, int]:
    """Number of rows per verdict, in :data:`ORDER`."""
    c = df.verdict.value_counts()
    return {v: int(c.get(v, 0)) for v in ORDER if c.get(v, 0)} | {
        v: int(n) for v, n in c.items() if v not in ORDER}


def counts_table(cnt: dict[str, int]) -> str:
    """The count per verdict word as a two-column Markdown table."""
    return "\n".join(["| verdict | rows |", "|---|---|"] + [f"| {v} | {n} |" for v, n in cnt.items()])


def with_sources(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its ``source`` column read from each claim (:func:`~.verdicts.source_of`), in :data:`~.verdicts.COLUMNS`
    order: a per-item table written before the column existed reads the same."""
    df = df.copy()
    df["source"] = df.claim.map(V.source_of)
    return df[V.COLUMNS]


def by_kind(df: pd.DataFrame) -> dict[str, dict[str, int]]:
    """The verdict counts (:func:`counts`) of each kind of row (:data:`KINDS`: a draft's claim, a draft's question, the
    project's own check), kinds without rows left out."""
    kind = df.source.map(V.whose)
    return {k: counts(df[kind == k]) for k in KINDS if (kind == k).any()}


def summary_line(df: pd.DataFrame) -> str:
    """'134 rows: 70 check the drafts' claims (40 REPRODUCED, ...); 3 ...; 61 ...' (the counts apart by whose claim)."""
    parts = []
    for k, cnt in by_kind(df).items():
        parts.append(f"{sum(cnt.values())} {KINDS[k]} ({', '.join(f'{n} {v}' for v, n in cnt.items())})")
    return f"{len(df)} rows: " + "; ".join(parts)


def kinds_table(df: pd.DataFrame) -> list[list[str]]:
    """The counts as rows [verdict, one count per kind of row, all] with a header row first (the first thing a reader
    sees: the drafts' claims apart from the project's own checks)."""
    kinds = by_kind(df)
    head = ["verdict"] + [KINDS[k] for k in kinds] + ["all"]
    rows = [head]
    for v, n in counts(df).items():
        rows.append([v] + [str(c.get(v, 0) or "") for c in kinds.values()] + [str(n)])
    rows.append(["all"] + [str(sum(c.values())) for c in kinds.values()] + [str(len(df))])
    return rows


def kinds_markdown(df: pd.DataFrame) -> str:
    """:func:`kinds_table` as a Markdown table."""
    t = kinds_table(df)
    return "\n".join(["| " + " | ".join(t[0]) + " |", "|" + "---|" * len(t[0])]
                     + ["| " + " | ".join(r) + " |" for r in t[1:]])


def kinds_html(df: pd.DataFrame) -> str:
    """:func:`kinds_table` as an HTML table (verdict words in bold)."""
    t = kinds_table(df)
    head = "<tr>" + "".join(f"<th>{H.escape(c)}</th>" for c in t[0]) + "</tr>"
    body = "".join("<tr>" + f"<td class='v'>{H.escape(r[0])}</td>" + "".join(f"<td>{H.escape(c)}</td>" for c in r[1:])
                   + "</tr>" for r in t[1:])
    return f"<table>{head}{body}</table>"


def check_rows(df: pd.DataFrame) -> None:
    """Refuse a verdict table whose rows' words disagree with their own columns (:func:`~.verdicts.problems`): one
    ValueError line naming the item, the claim and the first disagreement."""
    for r in df.to_dict("records"):
        p = V.problems(r)
        if p:
            raise ValueError(f"verdict row of {r['item']} ({str(r['claim'])[:80]}): {p[0]}")


def _atomic(path, text):
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, p)


def write_verdicts(inputs: list[str], captions: list[str], *, csv: str, md: str, html: str) -> pd.DataFrame:
    """Concatenate the per-item verdict CSVs (in the given order) and write the three views."""
    df = with_sources(pd.concat([pd.read_csv(p, keep_default_na=False) for p in inputs], ignore_index=True))
    check_rows(df)
    Path(csv).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(csv, index=False)
    summary = summary_line(df)
    text = ["# Verdicts: every claim of every item", "", f"**{summary}.**", "",
            kinds_markdown(df), "", HOW_TO_READ, "", to_markdown(df), ""]
    _atomic(md, "\n".join(text))
    caps = {Path(p).stem: Path(p).read_text(encoding="utf-8") for p in captions}
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Verdicts</title><style>"
             "body{font-family:sans-serif;max-width:75em;margin:1em auto;font-size:14px}"
             "table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #bbb;padding:3px 6px;"
             "vertical-align:top}th{background:#eee}.v{font-weight:bold;white-space:nowrap}</style></head><body>",
             "<h1>Verdicts: every claim of every item</h1>", f"<p><b>{H.escape(summary)}.</b></p>", kinds_html(df),
             f"<p>{inline_html(HOW_TO_READ)}</p>"]
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


def inline_html(text: str) -> str:
    """Escaped HTML of a Markdown line with ``**bold**`` and ``*emphasis*`` rendered (no raw asterisks)."""
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", H.escape(text))
    return re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<i>\1</i>", out)


def _link(path: str | Path, start: Path) -> str:
    """``path`` relative to the folder ``start`` (POSIX separators), URL-quoted: a link that works wherever
    the two folders are copied together."""
    return quote(Path(os.path.relpath(Path(path), start)).as_posix())


INDEX_CSS = ("body{font-family:sans-serif;max-width:78em;margin:1em auto;padding:0 1em;font-size:15px;line-height:1.4}"
             "table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #bbb;padding:4px 8px;"
             "vertical-align:top;text-align:left}th{background:#eee}td.t img{width:240px;border:1px solid #ddd}"
             ".v{font-weight:bold;white-space:nowrap}.id{font-family:monospace;color:#555}nav a{margin-right:1em}")


def write_index(items: list[dict], *, verdicts_csv: str | Path, verdicts_html: str | Path, out: str | Path,
                title: str = "dpposterior: the paper drafts' figures and tables, recomputed") -> str:
    """The first page a reader opens (``figures/index.html``, next to the figures): the title, the verdict
    counts, and one row per entry of ``items`` ({"item", "title", "figure", "notebook"}, in order) with its title,
    a thumbnail linking to its figure, its verdict counts, and links to its notebook and to its rows of the full
    verdict table (``verdicts_html``, one click away). Links are relative, so the page works wherever the
    folders are copied together. Returns the page's text."""
    df = with_sources(pd.read_csv(verdicts_csv, keep_default_na=False))
    here_dir = Path(out).parent
    table = _link(verdicts_html, here_dir)
    parts = ["<!doctype html>", "<html lang='en'><head><meta charset='utf-8'>",
             "<meta name='viewport' content='width=device-width, initial-scale=1'>",
             f"<title>{H.escape(title)}</title><style>{INDEX_CSS}</style></head><body>",
             f"<h1 id='title'>{H.escape(title)}</h1>",
             "<p>Every figure and table of the paper drafts (and a few beyond them), recomputed from this run, and "
             "every claim the drafts make about them, judged by a stated rule. One row per item below: its "
             "figure (click the thumbnail), its notebook (the figure with its caption, tables and verdict rows; "
             "the code folded), and its verdict rows.</p>",
             f"<nav><a href='{table}'>The full verdict table</a>"
             f"<a href='{_link(verdicts_csv, here_dir)}'>verdicts.csv</a>"
             f"<a href='#items'>The items</a><a href='#rebuilding'>Rebuilding</a></nav>",
             f"<h2 id='counts'>Verdicts: {len(df)} rows</h2>",
             f"<p>{H.escape(summary_line(df))}.</p>", kinds_html(df),
             f"<details><summary>How to read the verdicts</summary><p>{inline_html(HOW_TO_READ)}</p></details>",
             f"<h2 id='items'>The items ({len(items)})</h2>",
             "<table><tr><th>item</th><th>figure</th><th>verdicts</th><th>links</th></tr>"]
    for spec in items:
        item = spec["item"]
        rows = df[df.item == item]
        c = ", ".join(f"{n} {v}" for v, n in counts(rows).items()) if len(rows) else "no verdict rows"
        fig, nb = _link(spec["figure"], here_dir), _link(spec["notebook"], here_dir)
        anchor = quote(item)
        parts.append(
            f"<tr id='item-{H.escape(item)}'><td><b>{H.escape(spec.get('title', item))}</b><br>"
            f"<span class='id'>{H.escape(item)}</span></td>"
            f"<td class='t'><a href='{fig}'><img src='{fig}' alt='{H.escape(item)}: figure' loading='lazy'></a></td>"
            f"<td>{len(rows)} rows: {H.escape(c)}</td>"
            f"<td><a href='{fig}'>figure</a><br><a href='{nb}'>notebook</a><br>"
            f"<a href='{table}#{anchor}'>verdict rows</a></td></tr>")
    parts += ["</table>", rebuilding_html(items), "</body></html>", ""]
    text = "\n".join(parts)
    _atomic(out, text)
    return text


def rebuilding_html(items: list[dict]) -> str:
    """The one place that says how to rebuild (the rendered notebooks point here): the whole set, one item (its
    figure as the target, e.g. the first item's, with the ``--configfile workflow/NAME.yaml`` of a run that writes to
    ``figures/NAME/``), the quick config, and the notebook templates in Jupyter."""
    figure = Path(str(items[0]["figure"])) if items else Path("figures/fig4.png")
    flag = f"--configfile workflow/{figure.parts[-2]}.yaml " if figure.parts[-3:-2] == ("figures",) else ""
    example = H.escape(f"{flag}{figure.as_posix()}")
    return ("<h2 id='rebuilding'>Rebuilding</h2>"
            "<p>Everything on this page is made by the pipeline, from the repository root (README.md, "
            "docs/pipeline.md). The whole set: <code>snakemake --cores 2</code>. One item, with what it needs: its "
            f"figure as the target, e.g. <code>snakemake --cores 2 {example}</code>. The quick config (small sizes, "
            "under <code>figures/quick/</code>) adds <code>--configfile workflow/quick.yaml</code>. Each item's "
            "notebook is its template (<code>notebooks/TEMPLATE.py</code>, named in the notebook's last line) run with "
            "the item's parameters; a template opens in Jupyter as it is and reads the default config's results once "
            "they exist (docs/pipeline.md, \"Changing or adding an item\").</p>")


def landing_rst(path: Path, titles: dict) -> str:
    """The Snakemake report's first page below its introduction: the verdict counts and one line per item
    (its title and verdict counts); the full table is the report's "0. Verdicts" entry."""
    p = Path(path)
    if not p.is_file():
        return "(The verdict table does not exist yet: run the pipeline first.)"
    df = with_sources(pd.read_csv(p, keep_default_na=False))
    table = kinds_table(df)
    lines = [f"**{rst_escape(summary_line(df))}.**", "", ".. list-table::", "   :header-rows: 1", ""]
    for row in table:
        lines += [f"   * - {rst_escape(row[0])}"] + [f"     - {rst_escape(c) or '-'}" for c in row[1:]]
    lines += ["", "**The items** (each one's figure is under \"Figures\" and its notebook under \"Notebooks\", "
              "labelled by its title):", ""]
    for item, title in titles.items():
        rows = df[df.item == item]
        c = ", ".join(f"{n} {v}" for v, n in counts(rows).items()) if len(rows) else "no verdict rows"
        lines.append(f"- ``{item}``: {rst_escape(title)} -- {len(rows)} rows: {rst_escape(c)}")
    return "\n".join(lines) + "\n"


def parameters_rst(parameters: dict) -> str:
    """An item's notebook parameters as a reStructuredText bullet list, one per name, strings as they read
    (the report's job box shows them as one JSON string)."""
    def show(v):
        if isinstance(v, dict):
            return "; ".join(f"{k}: {show(x)}" for k, x in v.items())
        if isinstance(v, (list, tuple)):
            return ", ".join(show(x) for x in v) if v else "(none)"
        return str(v)

    return "\n".join(f"- **{rst_escape(k)}**: {rst_escape(show(v))}" for k, v in parameters.items()) + "\n"


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
