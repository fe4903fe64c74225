"""A rendered notebook is read, not run: its first lines are its item's (title, what it shows, what the drafts claim
and ask), never a template's heading or an instruction to build something first; how to rebuild is said once, on
the first page."""

import re
from pathlib import Path

import pytest
import yaml

from dpposterior.paper import render
from dpposterior.paper import verdicts as V

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted((ROOT / "notebooks").glob("*.py"))
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
#: What a reader of a rendered notebook must not be told: to build another item first, or which item the template's
#: defaults render.
BUILD_FIRST = re.compile(r"make its inputs first|the defaults (below )?render|snakemake", re.IGNORECASE)


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.stem)
def test_no_template_tells_the_reader_to_build_first(path):
    assert not BUILD_FIRST.search(path.read_text(encoding="utf-8"))


def _template_heading(path: Path) -> str:
    return next(line[2:].strip() for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("# # "))


def _rendered_first_cells(item: str, tmp_path: Path):
    """The template of ``item`` as jupytext reads it, made to read as the item (no execution): the caption and
    verdict rows are stand-ins written where the notebook would write them."""
    import jupytext

    spec = CONFIG["items"][item]
    params = {"item": item, "title": spec.get("title"), "note": spec.get("note", ""), "claim": spec.get("claim"),
              "outputs": {"caption": str(tmp_path / f"{item}.txt"), "verdicts": str(tmp_path / f"{item}.csv")}}
    texts = [c["text"] for c in spec.get("claims") or []] or [spec.get("claim") or "No pure eps-DP release beats it"]
    (tmp_path / f"{item}.txt").write_text(f"{spec['title']}. Prior Beta(1,1); n in {{5, 10}}. Verdicts: 1 PARTLY.")
    V.as_frame([V.Verdict(t, "d", "x", "r", "t", V.PARTLY) for t in texts], item).to_csv(tmp_path / f"{item}.csv",
                                                                                         index=False)
    template = ROOT / "notebooks" / f"{spec['template']}.py"
    nb = jupytext.read(template)
    render.for_the_reader(nb, params, spec["template"])
    return nb, template, texts


@pytest.mark.parametrize("item", list(CONFIG["items"]))
def test_each_rendered_notebook_opens_with_its_own_item(item, tmp_path):
    nb, template, texts = _rendered_first_cells(item, tmp_path)
    first = nb.cells[0]
    assert first.cell_type == "markdown"
    assert first.source.startswith(f"# {CONFIG['items'][item]['title']}\n")
    assert "**What it shows.** Prior Beta(1,1); n in {5, 10}." in first.source
    assert "Verdicts: 1 PARTLY" not in first.source.split("**Item")[0]  # the counts once, from the rows
    for t in texts:
        if V.whose(V.source_of(t)) != V.PROJECT:
            assert t in first.source
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert _template_heading(template) not in markdown  # the template's heading is not the item's
    assert not BUILD_FIRST.search(markdown)
    assert nb.cells[-1].source.startswith(f"*Rendered by the pipeline from the template `notebooks/{template.stem}.py`")


def test_the_headings_are_the_items_not_the_templates(tmp_path):
    """Items of one template (error_curve: fig4, fig5a, ...) open with different headings, their own titles."""
    heads = {item: _rendered_first_cells(item, tmp_path)[0].cells[0].source.splitlines()[0] for item in CONFIG["items"]}
    assert len(set(heads.values())) == len(heads)
    assert not any("a series of settings" in h for h in heads.values())


def test_the_header_says_whose_claims_and_the_verdicts(tmp_path):
    rows = V.as_frame([V.Verdict("arXiv draft §7.2.2: Laplace beats M_H below n ~ 300", "n* ~ 300", "x", "r", "t",
                                 V.PARTLY),
                       V.Verdict("arXiv draft §8 future work 1 asks when: is one best?", "a question, no claim", "yes",
                                 "r", "t", V.ANSWERED),
                       V.Verdict("No pure eps-DP release beats the optimum: ehd", "d", "x", "r", "t", V.REPRODUCED),
                       V.Verdict("No pure eps-DP release beats the optimum: mh", "d", "x", "r", "t", V.REPRODUCED)], "it")
    text = render.item_header({"item": "it", "title": "A title (arXiv draft Fig. 4)"},
                              "A title (arXiv draft Fig. 4). Prior Beta(1,1). Left: the mean. Verdicts: 1 PARTLY.",
                              rows.to_dict("records"))  # the rows as the render job reads them from the CSV
    lines = text.splitlines()
    assert lines[0] == "# A title (arXiv draft Fig. 4)"
    assert "**What it shows.** Prior Beta(1,1). Left: the mean." in text
    assert "- arXiv draft §7.2.2: Laplace beats M_H below n ~ 300: **PARTLY**" in text
    assert "**What the drafts ask**" in text and "- arXiv draft §8 future work 1 asks when: is one best?: **ANSWERED**" in text
    assert "**The project's own checks**: 2 rows (2 REPRODUCED), listed at the end." in text
    assert lines[-1] == "**Item it: 4 verdict rows: 2 REPRODUCED, 1 PARTLY, 1 ANSWERED.**"


def test_the_first_page_says_how_to_rebuild(tmp_path):
    from dpposterior.paper import report

    V.as_frame([V.Verdict("c", "d", "x", "r", "t", V.REPRODUCED)], "i").to_csv(tmp_path / "v.csv", index=False)
    page = report.write_index([{"item": "i", "title": "I", "figure": "figures/quick/i.png", "notebook": "n.html"}],
                              verdicts_csv=tmp_path / "v.csv", verdicts_html=tmp_path / "v.html",
                              out=tmp_path / "index.html")
    assert "<h2 id='rebuilding'>Rebuilding</h2>" in page
    assert "snakemake --cores 2 --configfile workflow/quick.yaml figures/quick/i.png" in page
    assert "href='#rebuilding'" in page
    assert render.FOOTER.count("figures/index.html") == 1 and "Rebuilding" in render.FOOTER


def test_a_notebook_without_verdict_files_still_opens_with_its_title(tmp_path):
    text = render.item_header({"item": "x", "title": "T", "claim": "workshop draft §6.3: the eps are smaller"}, "", None)
    assert text.startswith("# T\n") and "**What the draft claims:** workshop draft §6.3: the eps are smaller" in text
