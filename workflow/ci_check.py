"""CI check after the quick pipeline: every catalogue item exists, then copy the artifacts.

    python workflow/ci_check.py [--config config.yaml] [--out ci-artifacts]

Fails (exit 1) when an item of the catalogue (SPEC §7, issue 3) or of config.yaml `items:` lacks
a file: figures/<id>.pdf + .png (figures) or .csv + .md + .tex (tables), and
results/notebooks/<id>.html. Copies figures/ and the rendered notebooks to the output folder and
collects every notebook's claim verdicts into <out>/verdicts.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import yaml

CATALOGUE = ["fig1", "fig2", "fig3a", "fig3b", "fig3c", "fig4", "fig5a", "fig5b", "fig5-prior", "fig6",
             "table1", "table2", "workshop-fig3a", "workshop-fig3b", "workshop-fig4", "workshop-fig5",
             "workshop-fig6", "sketch-fig1a", "sketch-fig1b", "sketch-fig2", "sketch-fig3", "sketch-fig4"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def expected_files(item: str) -> list[Path]:
    if item.startswith("table"):
        files = [Path(f"figures/{item}.{e}") for e in ("csv", "md", "tex")]
    else:
        files = [Path(f"figures/{item}.{e}") for e in ("pdf", "png")]
    return files + [Path(f"results/notebooks/{item}.html")]


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
    return None


def verdicts(item: str) -> list[str]:
    nb = Path(f"results/notebooks/{item}.ipynb")
    if not nb.is_file():
        return []
    out = []
    for cell in json.loads(nb.read_text()).get("cells", []):
        for o in cell.get("outputs", []):
            md = o.get("data", {}).get("text/markdown")
            text = "".join(md) if isinstance(md, list) else (md or "")
            if "| verdict" in text.replace("|   verdict", "| verdict") or "verdict |" in text:
                out.append(text)
            elif text.startswith(("Claims judged", "Same claims")):  # which error (exact or MC) a table judges
                out.append(text)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--out", default="ci-artifacts")
    args = ap.parse_args()
    items = list(yaml.safe_load(Path(args.config).read_text())["items"])
    missing_ids = sorted(set(CATALOGUE) - set(items))
    bad = [f"catalogue item {i!r} is not in {args.config} items:" for i in missing_ids]
    for item in dict.fromkeys(CATALOGUE + items):
        for f in expected_files(item):
            p = problems_of(f)
            if p:
                bad.append(f"{item}: {f} {p}")
    out = Path(args.out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "notebooks").mkdir(parents=True, exist_ok=True)
    for f in sorted(Path("figures").glob("*")):
        if f.is_file() and f.name != ".gitkeep":
            shutil.copy2(f, out / "figures" / f.name)
    for f in sorted(Path("results/notebooks").glob("*.html")):
        shutil.copy2(f, out / "notebooks" / f.name)
    report = ["# Claim verdicts per catalogue item", ""]
    for item in items:
        report += [f"## {item}", ""] + verdicts(item) + [""]
    (out / "verdicts.md").write_text("\n".join(report))
    if bad:
        print("ci_check: FAILED\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    print(f"ci_check: all {len(set(CATALOGUE + items))} catalogue items present; artifacts in {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
