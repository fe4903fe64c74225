"""Where the pipeline's files are: every output pattern, named once, and the repository root.

Patterns are ``str.format`` templates over ``{results}`` / ``{figures}`` (the config's
``results_dir`` / ``figures_dir``) and the job's wildcards (``{experiment}``, ``{mechanism}``,
``{n}``, ``{item}``). :func:`fill` replaces the names it is given and keeps the others, so the
rules get Snakemake wildcards and the notebooks get concrete paths from the same pattern.

Notebook templates give their default input/output paths relative to the repository root;
:func:`here` turns such a path into one that works whether the kernel was started at the root
or in ``notebooks/`` (or any folder below the root).
"""

from __future__ import annotations

from pathlib import Path

MARKERS = ("Snakefile", "config.yaml")

#: the default folders (the config's ``results_dir`` and ``figures_dir``)
RESULTS = "results"
FIGURES = "figures"

# ---- stage results (one job writes one file per role)
DATA = "{results}/data/{experiment}.parquet"
RUNS = "{results}/runs/{experiment}/{mechanism}.parquet"
EXACT = "{results}/exact/{experiment}/{mechanism}.parquet"
PMF = "{results}/pmf/{experiment}/{mechanism}.parquet"
PMF_TAILS = "{results}/pmf/{experiment}/tails/{mechanism}.parquet"
PRIVACY = "{results}/privacy/{experiment}/{mechanism}.parquet"
PRIVACY_SLICE = "{results}/privacy/{experiment}/{mechanism}/n{n}.parquet"
AUDIT = "{results}/audit/{experiment}/{mechanism}.parquet"
SENSITIVITY = "{results}/sensitivity/{experiment}.parquet"
COVERAGE = "{results}/coverage/{experiment}/{mechanism}.parquet"
EXPECTED_ERROR = "{results}/expected_error/{experiment}/{mechanism}.parquet"
YARDSTICK = "{results}/yardstick/{experiment}.parquet"

# ---- every job's log and benchmark ({job}: the job's wildcards as a path, e.g. {experiment}/{mechanism})
LOG = "{results}/logs/{stage}/{job}.log"
BENCHMARK = "{results}/benchmarks/{stage}/{job}.tsv"

# ---- items: what each item's notebook writes, and the rendered notebook
ITEM_OUTPUTS = {"png": "{figures}/{item}.png", "pdf": "{figures}/{item}.pdf", "csv": "{figures}/{item}.csv",
                "md": "{figures}/{item}.md", "tex": "{figures}/{item}.tex",
                "verdicts": "{results}/verdicts/{item}.csv", "caption": "{results}/captions/{item}.txt"}
#: an item's notebook parameters (JSON), written by the `parameters` rule so that the render job (and its box in
#: the Snakemake report) names a file rather than carrying the parameters inline
PARAMETERS = "{results}/parameters/{item}.json"
NOTEBOOK = "{results}/notebooks/{item}.ipynb"
NOTEBOOK_HTML = "{results}/notebooks/{item}.html"
TEMPLATE = "notebooks/{template}.py"

# ---- every item's verdict rows in one table
VERDICTS_CSV = "{figures}/verdicts.csv"
VERDICTS_MD = "{figures}/verdicts.md"
VERDICTS_HTML = "{results}/report/verdicts.html"
VERDICTS_LOG = "{results}/logs/verdicts.log"
VERDICTS_BENCHMARK = "{results}/benchmarks/verdicts.tsv"

# ---- the first page a reader opens, next to the figures (every item: title, thumbnail, verdicts, links)
INDEX_HTML = "{figures}/index.html"
INDEX_LOG = "{results}/logs/index.log"
INDEX_BENCHMARK = "{results}/benchmarks/index.tsv"


class _Keep(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(pattern: str, **values) -> str:
    """``pattern`` with the names in ``values`` replaced; every other ``{name}`` is kept (a wildcard)."""
    return pattern.format_map(_Keep(values))


def result(pattern: str, experiment: str, mechanism: str | None = None, results: str = RESULTS) -> str:
    """One stage result of the default layout: ``result(PMF, "fig3a", "mh")`` -> ``results/pmf/fig3a/mh.parquet``."""
    values = {"results": results, "experiment": experiment}
    if mechanism is not None:
        values["mechanism"] = mechanism
    return fill(pattern, **values)


def item_outputs(item: str, figures: str = FIGURES, results: str = RESULTS) -> dict[str, str]:
    """The paths one item's notebook writes (the render rule passes these as its ``outputs``)."""
    return {k: fill(p, figures=figures, results=results, item=item) for k, p in ITEM_OUTPUTS.items()}


def repo_root(start: str | Path | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: the working directory) holding a
    ``Snakefile`` and a ``config.yaml``. Raises FileNotFoundError if there is none."""
    p = Path(start or Path.cwd()).resolve()
    for d in (p, *p.parents):
        if all((d / m).is_file() for m in MARKERS):
            return d
    raise FileNotFoundError(f"no dpposterior repository (a folder with {' and '.join(MARKERS)}) at or above {p}")


def here(path: str | Path, start: str | Path | None = None) -> Path:
    """``path`` if absolute, else ``path`` under :func:`repo_root` (the pipeline's paths are root-relative)."""
    p = Path(path)
    return p if p.is_absolute() else repo_root(start) / p
