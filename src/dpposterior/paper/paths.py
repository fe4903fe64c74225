"""Where the pipeline's files are: the repository root, found from the working directory.

Notebook templates give their default input/output paths relative to the repository root;
:func:`here` turns such a path into one that works whether the kernel was started at the root
or in ``notebooks/`` (or any folder below the root).
"""

from __future__ import annotations

from pathlib import Path

MARKERS = ("Snakefile", "config.yaml")


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
