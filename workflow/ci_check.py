"""CI check after the quick pipeline: every catalogue item exists, then copy the artifacts.

    python workflow/ci_check.py --config config.yaml --configfile workflow/quick.yaml --out ci-artifacts

Fails (exit 1) when an item of the catalogue (dpposterior.paper.catalogue.CATALOGUE) or of the config's
`items:` lacks a file:
<figures>/<id>.png, .pdf, .csv, .md, .tex, <results>/notebooks/<id>.html, <results>/captions/<id>.txt (a caption
or table showing a numpy repr such as np.int64(5) fails too), or has no verdict rows
in <figures>/verdicts.csv, or the first page <figures>/index.html is missing. Copies the figures and
tables, the rendered notebooks, the verdict table and report.zip (if present) to the output folder,
and the first page with every file it links to at their own paths below it (<out>/<figures>/index.html
opens with working links and images).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pandas as pd
import yaml

from dpposterior.paper.catalogue import CATALOGUE

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: numpy 2's scalar repr (np.int64(5000)) leaking into a caption or a table through str() of a list
NUMPY_REPR = re.compile(rb"np\.(?:u?int|float|complex|bool|str)\w*\(")


def problems_of(path: Path) -> str | None:
    if not path.is_file():
        return "missing"
    data = path.read_bytes()
    if not data:
        return "empty"
    if path.suffix == ".png" and not data.startswith(PNG_MAGIC):
        return "not a PNG"
    if path.suffix == ".pdf" and not data.startswith(b"%PDF"):
        return "not a PDF"
    if path.suffix == ".html" and b"data:image/png;base64" not in data:
        return "shows no figure"
    if path.suffix in (".md", ".csv", ".txt") and (m := NUMPY_REPR.search(data)):
        return f"shows a numpy repr ({m.group().decode()}...) where a number belongs"
    return None


def linked_files(page: Path) -> list[Path]:
    """``page`` and the existing local files its src/href attributes point to, as paths relative to the working
    folder (those outside it are left out)."""
    out = [page]
    for ref in re.findall(r"""(?:href|src)=['"]([^'"]+)['"]""", page.read_text(encoding="utf-8")):
        parts = urlsplit(ref)
        if parts.scheme or parts.netloc or not parts.path:
            continue
        rel = Path(os.path.relpath((page.parent / unquote(parts.path)).resolve()))
        if rel.is_file() and not rel.parts[0] == ".." and rel not in out:
            out.append(rel)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--configfile", default=None, help="the config merged over --config (e.g. workflow/quick.yaml)")
    ap.add_argument("--out", default="ci-artifacts")
    ap.add_argument("--report", default="report.zip")
    args = ap.parse_args()
    cfg = yaml.safe_load(Path(args.config).read_text())
    if args.configfile:
        cfg.update({k: v for k, v in yaml.safe_load(Path(args.configfile).read_text()).items() if k not in
                    ("accuracy", "privacy", "audit", "pmf")})
    figures, results = Path(cfg.get("figures_dir", "figures")), Path(cfg.get("results_dir", "results"))
    items = list(cfg["items"])
    bad = [f"catalogue item {i!r} is not in {args.config} items:" for i in sorted(set(CATALOGUE) - set(items))]
    for item in dict.fromkeys([*CATALOGUE, *items]):
        for f in ([figures / f"{item}.{e}" for e in ("png", "pdf", "csv", "md", "tex")]
                  + [results / "notebooks" / f"{item}.html", results / "captions" / f"{item}.txt"]):
            p = problems_of(f)
            if p:
                bad.append(f"{item}: {f} {p}")
    verdicts = figures / "verdicts.csv"
    if verdicts.is_file():
        df = pd.read_csv(verdicts, keep_default_na=False)
        for item in items:
            if not (df.item == item).any():
                bad.append(f"{item}: no verdict rows in {verdicts}")
        print(df.verdict.value_counts().to_string())
    else:
        bad.append(f"{verdicts} missing")
    index = figures / "index.html"
    if not index.is_file():
        bad.append(f"the first page {index} missing")
    out = Path(args.out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "notebooks").mkdir(parents=True, exist_ok=True)
    for f in sorted(figures.glob("*")):
        if f.is_file() and f.name not in (".gitkeep", "index.html"):  # the first page: below, with its links
            shutil.copy2(f, out / "figures" / f.name)
    for f in sorted((results / "notebooks").glob("*.html")):
        shutil.copy2(f, out / "notebooks" / f.name)
    for f in (figures / "verdicts.md", figures / "verdicts.csv", Path(args.report)):
        if f.is_file():
            shutil.copy2(f, out / f.name)
    if index.is_file():
        site = linked_files(index)
        for f in site:
            (out / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, out / f)
        print(f"ci_check: the first page and the {len(site) - 1} files it links to in {out / index}")
    if bad:
        print("ci_check: FAILED\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    print(f"ci_check: all {len(set(CATALOGUE) | set(items))} catalogue items present; artifacts in {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
