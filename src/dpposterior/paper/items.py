"""What every item's notebook does at its end: show and write the caption, the figure, the table
and the verdict rows to the output paths the rule gave it (all paths are repository-root relative
unless absolute, see :func:`.paths.here`; the default paths are :func:`.paths.item_outputs`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import paths, style, tables
from .paths import here
from .verdicts import Verdict, as_frame, counts_line
from .words import title_and_settings


def load(paths, **kw) -> pd.DataFrame:
    """Read one parquet file or a list of them (concatenated)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    return pd.concat([pd.read_parquet(here(p), **kw) for p in paths], ignore_index=True)


def parameters(item: str, config: str = "config.yaml") -> dict:
    """The parameters the pipeline passes to ``item``'s notebook (docs/definitions.md §7), computed from ``config``
    (repository-root relative, :func:`.paths.here`) as the pipeline does: a notebook template run as it is in Jupyter
    takes its defaults from here, never from copies of the config's values."""
    import yaml

    from .stages import item_parameters

    cfg = yaml.safe_load(here(config).read_text(encoding="utf-8"))
    return item_parameters(cfg, item, cfg.get("results_dir", paths.RESULTS), cfg.get("figures_dir", paths.FIGURES))


def finish(item: str, outputs: dict, *, fig, table: pd.DataFrame, caption: str, rows: list[Verdict],
           table_floatfmt: str = ".6g") -> pd.DataFrame:
    """Save ``fig`` (PNG, PDF), ``table`` (CSV, Markdown, LaTeX), the verdict rows (CSV) and the caption
    (text: title, settings, verdict counts); display the caption and the verdict table. Returns the
    verdict rows as a DataFrame."""
    out = {k: here(v) for k, v in outputs.items()}
    verdicts = as_frame(rows, item)
    full = caption + (" Verdicts: " + counts_line(verdicts) + "." if len(verdicts) else "")
    title, settings = title_and_settings(caption)
    style.save(fig, out["png"], out["pdf"], title=f"{item}: {title}" if title else item, settings=settings)
    tables.write_table(table, csv=out["csv"], md=out["md"], tex=out["tex"], caption=full, label=item,
                       floatfmt=table_floatfmt)
    out["verdicts"].parent.mkdir(parents=True, exist_ok=True)
    verdicts.to_csv(out["verdicts"], index=False)
    out["caption"].parent.mkdir(parents=True, exist_ok=True)
    out["caption"].write_text(full + "\n", encoding="utf-8")
    tables.show_text("**Caption.** " + full)
    if len(verdicts):
        tables.show(verdicts.drop(columns="item"), heading="Verdicts")
    return verdicts
