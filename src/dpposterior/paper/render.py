"""Render one item: jupytext reads the percent-format template, papermill runs it with the item's
parameters, nbconvert writes the HTML. The executed notebook is stripped of run-dependent metadata
(timings, papermill's random cell ids, stderr) so a rerun gives byte-identical files."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .startup import skip_iri_format_checkers


def strip(nb) -> None:
    nb.metadata.pop("papermill", None)
    nb.metadata.pop("jupytext", None)
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"
        cell.metadata.pop("execution", None)
        cell.metadata.pop("papermill", None)
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if o.get("name") != "stderr"]


#: nbconvert template: the lab template with every code cell's source folded under a <details> (one click
#: away), so a reader sees the caption, the figure and the tables without scrolling past the code.
FOLDED_TEMPLATE = """{%- extends 'index.html.j2' -%}
{% block extra_css %}
<style>
details.dp-code { margin: 0.2em 0; }
details.dp-code > summary { cursor: pointer; color: #555; font-size: 0.85em; font-family: monospace;
  padding: 0.1em 0.5em; }
details.dp-code[open] > summary { color: #000; }
</style>
{% endblock extra_css %}
{% block input_group -%}
{%- set tags = cell.metadata.get('tags', []) -%}
<details class="dp-code"><summary>
{%- if 'injected-parameters' in tags -%}show the parameters of this run
{%- elif 'parameters' in tags -%}show the template's default parameters
{%- else -%}show the code ({{ cell.source.count('\n') + 1 }} lines){%- endif -%}
</summary>
{{ super() }}
</details>
{%- endblock input_group %}
"""


def readable_translator():
    """papermill's Python translator with strings written as they read (``"§6.2"``, not ``"\\xa76.2"``):
    JSON string literals without ASCII escaping are valid Python with the same value."""
    from papermill.translators import PythonTranslator  # optional heavy dependency, as in render()

    class Readable(PythonTranslator):
        @classmethod
        def translate_escaped_str(cls, str_val):
            return json.dumps(str_val, ensure_ascii=False) if isinstance(str_val, str) else f'"{str_val}"'

    return Readable


def html_exporter():
    """nbconvert's HTML exporter with :data:`FOLDED_TEMPLATE` (the lab template, code folded)."""
    from jinja2 import DictLoader  # optional heavy dependencies (the `pipeline` extra)
    from nbconvert import HTMLExporter

    return HTMLExporter(template_name="lab", extra_loaders=[DictLoader({"folded.html.j2": FOLDED_TEMPLATE})],
                        template_file="folded.html.j2")


def warm_up() -> None:
    """Do once, in the job server (:mod:`.jobserver`), the first-use work every render job's process repeated:
    nbformat's schema validator, jupytext's percent reader, and the HTML export's regular expressions (pygments'
    Python lexer, the markdown renderer, the sanitizer), which Python and pygments cache per process.  A forked
    render job inherits the caches; each still builds its own exporter (:func:`html_exporter`), so what it writes
    is what a fresh process writes.  Writes nothing."""
    skip_iri_format_checkers()  # before nbformat imports jsonschema (.startup)
    import base64

    import jupytext
    import nbformat

    nb = jupytext.reads('# %% [markdown]\n# # A title\n#\n# Some *text*, a [link](x.html) and `code`.\n\n'
                        '# %% tags=["parameters"]\nx = 1\n\n# %%\nimport math\nprint(math.pi)  # a comment\n',
                        fmt="py:percent")
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python", "codemirror_mode": {"name": "ipython", "version": 3},
                                    "file_extension": ".py", "mimetype": "text/x-python",
                                    "pygments_lexer": "ipython3", "nbconvert_exporter": "python"}
    png = base64.b64encode(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                                         "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"))
    nb.cells[-1].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="3.14\n"),
        nbformat.v4.new_output("display_data", data={"text/markdown": "**Bold** | a\n---|---\n1 | 2\n",
                                                     "text/plain": "<Markdown>"}),
        nbformat.v4.new_output("display_data", data={"image/png": png.decode(), "text/plain": "<Figure>"}),
        nbformat.v4.new_output("execute_result", data={"text/html": "<table><tr><td>1</td></tr></table>",
                                                       "text/plain": "1"}, execution_count=1)]
    nbformat.reads(nbformat.writes(nb), as_version=4)  # validated, as nbformat.read and write do
    html_exporter().from_notebook_node(nb)


def verdict_summary(parameters: dict) -> str:
    """One line on the item's verdicts (the notebook's first cell), from the verdict CSV it wrote; '' if none.

    Read with the standard library's csv module (the CSV is pandas' ``to_csv``: RFC 4180 quoting), so the render
    process loads neither pandas nor scipy for one line."""
    import csv

    from .paths import here
    from .words import word_counts

    path = (parameters.get("outputs") or {}).get("verdicts")
    if not path or not here(path).is_file() or here(path).stat().st_size == 0:
        return ""
    with here(path).open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames:  # no header: nothing written
            return ""
        words = [row["verdict"] for row in reader]
    if not words:
        return f"**Item {parameters.get('item', '')}: no verdict rows.**"
    item, c = parameters.get("item", ""), ", ".join(f"{n} {v}" for v, n in word_counts(words).items())
    return f"**Item {item}: {len(words)} verdict rows: {c}.** (The rows are at the end of the notebook.)"


def _caption_body(caption: str, title: str) -> str:
    """The caption without its title sentence and its closing verdict counts: what the item shows, in its own
    settings."""
    from .words import title_and_settings

    text = " ".join(caption.split())
    first, _ = title_and_settings(text)
    if first and text.startswith(first):
        text = text[len(first):].lstrip(". ")
    return re.sub(r"\s*Verdicts: [^.]*\.?$", "", text).strip()


def item_header(parameters: dict, caption: str = "", verdicts: list[dict] | None = None) -> str:
    """The first cell of a rendered notebook, in the item's own words (from its parameters, its caption and its
    verdict rows, each a dict of the verdict CSV's columns): its title as the heading, what it shows (the caption's
    settings and reading), what the drafts claim and ask about it with each claim's verdict, how many of the
    project's own checks it carries, and the verdict counts. A rendered notebook is read, not run: nothing here
    tells the reader to build something first (how to rebuild is on the first page, ``figures/index.html``).
    Plain Python over the rows (:mod:`.words`), so the render process loads neither pandas nor scipy."""
    from .words import DRAFT, KINDS, PROJECT, QUESTION, source_of, whose, word_counts

    item = str(parameters.get("item", ""))
    title = str(parameters.get("title") or "") or item
    lines = [f"# {title}", ""]
    body = _caption_body(caption, title) if caption else ""
    if body:
        lines += [f"**What it shows.** {body}", ""]
    rows = verdicts or []
    if rows:
        kind = [whose(source_of(r["claim"])) for r in rows]
        heads = {DRAFT: "**What the drafts claim** (each with its verdict; the rows, rules and numbers are at the end):",
                 QUESTION: "**What the drafts ask** (a question, no claim; the answer is in the rows at the end):"}
        for k, head in heads.items():
            claims: dict[str, list[str]] = {}  # claim -> its rows' verdicts, claims in the order of their first row
            for r, kr in zip(rows, kind):
                if kr == k:
                    claims.setdefault(r["claim"], []).append(r["verdict"])
            if not claims:
                continue
            lines.append(head)
            for claim, words in claims.items():
                shown = ", ".join(f"{n} {v}" if n > 1 else v for v, n in word_counts(words).items())
                lines.append(f"- {claim}: **{shown}**")  # the claim cites its draft (its source column)
            lines.append("")
        own = [r["verdict"] for r, kr in zip(rows, kind) if kr == PROJECT]
        if own:
            words = ", ".join(f"{n} {v}" for v, n in word_counts(own).items())
            lines += [f"**{KINDS[PROJECT].capitalize()}**: {len(own)} rows ({words}), listed at the end.", ""]
    elif parameters.get("claim"):
        lines += [f"**What the draft claims:** {parameters['claim']}", ""]
    note = str(parameters.get("note") or "")
    if note and note not in body:
        lines += [f"*Note.* {note}", ""]
    summary = _summary_line(item, rows)
    if summary:
        lines.append(summary)
    return "\n".join(lines).rstrip() + "\n"


def _summary_line(item: str, rows: list[dict]) -> str:
    from .words import word_counts

    if not rows:
        return f"**Item {item}: no verdict rows.**"
    c = ", ".join(f"{n} {v}" for v, n in word_counts(r["verdict"] for r in rows).items())
    return f"**Item {item}: {len(rows)} verdict row{'' if len(rows) == 1 else 's'}: {c}.**"


#: The last cell of every rendered notebook: where it came from, and where the rebuilding is explained (once).
FOOTER = ("*Rendered by the pipeline from the template `notebooks/{template}.py` with the parameters shown above "
          "(folded). How to rebuild this item or the whole set: the first page, `figures/index.html`, "
          "\"Rebuilding\".*")


def for_the_reader(nb, parameters: dict, template: str) -> None:
    """Make an executed notebook read as its item, in place: its first markdown cell (the template's heading and
    description, written for whoever edits the template) becomes the item's header (:func:`item_header`), the
    template's description kept below under "How it is computed", and a footer names the template (:data:`FOOTER`).
    The caption and verdict rows are read from the files the notebook wrote (``parameters["outputs"]``)."""
    import csv

    import nbformat

    from .paths import here

    outs = parameters.get("outputs") or {}
    cap = here(outs["caption"]) if outs.get("caption") else None
    caption = cap.read_text(encoding="utf-8") if cap is not None and cap.is_file() else ""
    ver = here(outs["verdicts"]) if outs.get("verdicts") else None
    verdicts = None
    if ver is not None and ver.is_file() and ver.stat().st_size:
        with ver.open(newline="", encoding="utf-8") as fh:  # pandas' to_csv: RFC 4180 quoting
            verdicts = list(csv.DictReader(fh))
    header = item_header(parameters, caption, verdicts)
    first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"), None)
    about = ""
    if first is not None:
        paragraphs = re.split(r"\n\s*\n", nb.cells[first].source.strip())
        if paragraphs and paragraphs[0].lstrip().startswith("#"):
            paragraphs = paragraphs[1:]
        about = "\n\n".join(p for p in paragraphs if p.strip())
        del nb.cells[first]
    cells = [nbformat.v4.new_markdown_cell(header)]
    if about:
        cells.append(nbformat.v4.new_markdown_cell(f"### How it is computed\n\n{about}"))
    nb.cells[0:0] = cells
    nb.cells.append(nbformat.v4.new_markdown_cell(FOOTER.format(template=template)))


#: the environment of a render job's kernel (this process's, with these)
KERNEL_ENVIRONMENT = {"PYTHONHASHSEED": "0", "MPLBACKEND": "module://matplotlib_inline.backend_inline"}


def kernel_manager_class():
    """nbclient's kernel manager, its kernel launched as ``python -m dpposterior.paper.jobserver kernel -f FILE``:
    forked from the pipeline's kernel server if there is one (:mod:`.jobserver`), else ``python -m
    ipykernel_launcher -f FILE`` as before.  Interrupt, shutdown and kill reach the kernel through that client.
    A kernel is given 30 s, not jupyter_client's 5, to end after its shutdown request before it is sent SIGTERM
    (then SIGKILL): a forked kernel reports its CPU as it ends (:func:`.jobserver.worker_usage`), and one ended by
    a signal on a loaded host would not."""
    from jupyter_client.manager import AsyncKernelManager

    class Forked(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**{"shutdown_wait_time": 30.0, **kwargs})

        def format_kernel_cmd(self, extra_arguments=None):
            cmd = super().format_kernel_cmd(extra_arguments)
            if cmd[1:3] == ["-m", "ipykernel_launcher"]:
                return [cmd[0], "-m", "dpposterior.paper.jobserver", "kernel", *cmd[3:]]
            return cmd

    return Forked


def render(template: str | Path, parameters: dict, notebook: str | Path, html: str | Path) -> None:
    """Execute ``template`` with ``parameters`` (from the repository root) into ``notebook`` and ``html``."""
    skip_iri_format_checkers()  # before nbformat imports jsonschema (.startup)
    # optional heavy dependencies (the `pipeline` extra), imported only when a notebook is rendered
    import jupytext
    import nbformat
    import papermill as pm
    from papermill.translators import papermill_translators

    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    os.environ.update(KERNEL_ENVIRONMENT)  # figures inline in the notebook
    out = Path(notebook)
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.with_name(out.stem + ".template.ipynb")
    tmp = out.with_name(out.stem + ".tmp.ipynb")
    nb = jupytext.read(template)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, src)
    papermill_translators.register("python", readable_translator())
    # in a local pipeline run the kernel is forked from the kernel server (.jobserver)
    forked = {"kernel_manager_class": kernel_manager_class()} if os.environ.get("DPPOSTERIOR_KERNELSERVER") else {}
    try:
        pm.execute_notebook(str(src), str(tmp), parameters=parameters, kernel_name="python3", cwd=os.getcwd(),
                            progress_bar=False, log_output=False, **forked)
    finally:
        src.unlink(missing_ok=True)
    nb = nbformat.read(tmp, as_version=4)
    for_the_reader(nb, parameters, Path(template).stem)
    strip(nb)
    nbformat.write(nb, tmp)
    body, _ = html_exporter().from_notebook_node(nb)
    Path(html).parent.mkdir(parents=True, exist_ok=True)
    Path(str(html) + ".tmp").write_text(body, encoding="utf-8")
    os.replace(str(html) + ".tmp", html)
    os.replace(tmp, out)


def read_parameters(path: str | Path) -> dict:
    """An item's notebook parameters from the JSON file the `parameters` rule wrote (workflow/rules/render.smk)."""
    return json.loads(Path(path).read_text(encoding="utf-8"))
