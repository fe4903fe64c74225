"""Rendering stage: papermill runs a template with an item's parameters, nbconvert renders HTML.

The executed notebook is stripped of run-dependent metadata (timings, papermill timestamps) so a
second run gives byte-identical files. The notebook itself writes the figure/table files.
"""

import argparse
import json
import os
from pathlib import Path

import nbformat
import papermill as pm
from nbconvert import HTMLExporter


def strip(nb: nbformat.NotebookNode) -> None:
    nb.metadata.pop("papermill", None)
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"  # papermill gives the injected cell a random id
        cell.metadata.pop("execution", None)
        cell.metadata.pop("papermill", None)
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if not (o.get("name") == "stderr")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--template", required=True)
    ap.add_argument("--parameters", required=True, help="JSON")
    ap.add_argument("--notebook", required=True)
    ap.add_argument("--html", required=True)
    args = ap.parse_args()
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    os.environ["PYTHONHASHSEED"] = "0"
    params = json.loads(args.parameters)
    out = Path(args.notebook)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.stem + ".tmp.ipynb")
    pm.execute_notebook(args.template, str(tmp), parameters=params, kernel_name="python3",
                        cwd=os.getcwd(), progress_bar=False, log_output=False)
    nb = nbformat.read(tmp, as_version=4)
    strip(nb)
    nbformat.write(nb, tmp)
    html, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    Path(args.html).parent.mkdir(parents=True, exist_ok=True)
    Path(args.html + ".tmp").write_text(html, encoding="utf-8")
    os.replace(args.html + ".tmp", args.html)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
