"""What a reader opens: the standalone figures' title and settings line, legible figure text, lines that
would hide one another, and the first page (figures/<config>/index.html)."""

import numpy as np
import pytest

from dpposterior.paper import items, style

matplotlib = pytest.importorskip("matplotlib")


def test_title_and_settings_are_the_captions_first_two_sentences():
    cap = ("Exact candidate probabilities, k = 3 (arXiv draft Fig. 3b). Prior Dir(1,1,1); eps = 1, n in {5, 10}. "
           "Left: the pmf. Verdicts: 2 REPRODUCED.")
    assert items.title_and_settings(cap) == ("Exact candidate probabilities, k = 3 (arXiv draft Fig. 3b)",
                                             "Prior Dir(1,1,1); eps = 1, n in {5, 10}")
    assert items.title_and_settings("Only a title.") == ("Only a title", "")
    assert items.title_and_settings("") == ("", "")


def test_text_colour_reads_on_light_and_dark_cells():
    assert style.text_colour("#e377c2") == "black"  # the geometric pink: white on it was unreadable
    assert style.text_colour("#ffffff") == "black"
    assert style.text_colour("#1f77b4") == "white"
    assert style.text_colour("#000000") == "white"


def test_coincident_names_the_curve_drawn_over_an_earlier_one():
    x = np.array([1.0, 2.0])
    curves = {"a": (x, [0.1, 0.2]), "b": (x, [0.5, 0.6]), "c": (x, [0.1, 0.2000001]), "d": (x, [0.1, 0.3])}
    assert style.coincident(curves, rtol=0.0, atol=1e-3) == {"c": "a"}
    assert style.coincident(curves) == {}


def test_saved_files_carry_the_title_and_settings_but_the_figure_is_unchanged(tmp_path):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context(style.RC):
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.plot([0, 1], [0, 1])
        style.save(fig, tmp_path / "plain.png")
        style.save(fig, tmp_path / "titled.png", tmp_path / "titled.pdf", title="item: A title", settings="n = 5")
        assert len(fig.texts) == 0
        style.save(fig, tmp_path / "again.png", title="item: A title", settings="n = 5")
        plt.close(fig)
    h = lambda p: plt.imread(p).shape[0]  # noqa: E731
    assert h(tmp_path / "titled.png") > h(tmp_path / "plain.png") + 40  # the tight box grew to hold the two lines
    assert (tmp_path / "again.png").read_bytes() == (tmp_path / "titled.png").read_bytes()


def test_injected_parameters_read_as_written_and_mean_the_same():
    pytest.importorskip("papermill")
    from dpposterior.paper import render

    params = {"title": 'Tail bound (arXiv draft §6.2) "quoted" \\ and\ttab\n', "xs": [1, "é"], "d": {"k§": None}}
    src = render.readable_translator().codify(params)
    assert "§6.2" in src and "\\xa7" not in src and "é" in src
    ns = {}
    exec(src, ns)  # noqa: S102 - the code papermill would inject
    assert {k: ns[k] for k in params} == params


def test_notebook_html_folds_the_code_but_keeps_it(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbconvert")
    from dpposterior.paper import render

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("x = 1\ny = 2"),
                nbformat.v4.new_code_cell("item = 'a'", metadata={"tags": ["injected-parameters"]})]
    body, _ = render.html_exporter().from_notebook_node(nb)
    assert body.count("<details class=\"dp-code\">") == 2
    assert "show the code (2 lines)" in body and "show the parameters of this run" in body
    assert body.index("<details") < body.index("x</span>")  # the source is inside the fold
    assert body == render.html_exporter().from_notebook_node(nb)[0]


def _verdict_files(tmp_path):
    from dpposterior.paper import report
    from dpposterior.paper import verdicts as V

    a = V.as_frame([V.Verdict("c1", "d", "x", "r", "t", V.REPRODUCED), V.Verdict("c2", "d", "x", "r", "t", V.PARTLY)],
                   "fig-a")
    a.to_csv(tmp_path / "a.csv", index=False)
    report.write_verdicts([tmp_path / "a.csv"], [], csv=tmp_path / "figures" / "verdicts.csv",
                          md=tmp_path / "figures" / "verdicts.md", html=tmp_path / "results" / "report" / "verdicts.html")
    return tmp_path / "figures" / "verdicts.csv", tmp_path / "results" / "report" / "verdicts.html"


def test_first_page_has_the_title_counts_and_one_row_per_item_with_working_links(tmp_path):
    import re
    from pathlib import Path

    from dpposterior.paper import report

    csv, table = _verdict_files(tmp_path)
    for p in ("figures/fig-a.png", "figures/fig b.png", "results/notebooks/fig-a.html", "results/notebooks/fig b.html"):
        (tmp_path / p).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / p).write_bytes(b"x")
    items = [{"item": "fig b", "title": "Second <b>", "figure": str(tmp_path / "figures/fig b.png"),
              "notebook": str(tmp_path / "results/notebooks/fig b.html")},
             {"item": "fig-a", "title": "First", "figure": str(tmp_path / "figures/fig-a.png"),
              "notebook": str(tmp_path / "results/notebooks/fig-a.html")}]
    out = tmp_path / "figures" / "index.html"
    text = report.write_index(items, verdicts_csv=csv, verdicts_html=table, out=out, title="The title")
    assert out.read_text() == text
    assert text.index("<h1 id='title'>The title</h1>") < text.index("2 rows") < text.index("Second &lt;b&gt;")
    assert text.index("Second &lt;b&gt;") < text.index("First")  # the given order, not sorted
    assert "1 REPRODUCED, 1 PARTLY" in text and "no verdict rows" in text
    assert "*" not in text  # the how-to-read text is rendered, not raw Markdown
    links = re.findall(r"(?:href|src)='([^'#]+)", text)
    assert "../results/notebooks/fig%20b.html" in links and "../results/report/verdicts.html" in links
    from urllib.parse import unquote
    for link in links:
        assert (out.parent / unquote(link)).resolve().is_file(), link
    assert "#fig-a'" in text and "id='fig-a'" in Path(table).read_text()


def test_report_landing_page_is_short_and_names_every_item(tmp_path):
    from dpposterior.paper import report

    csv, _ = _verdict_files(tmp_path)
    rst = report.landing_rst(csv, {"fig-a": "First * title", "other": "Other"})
    assert "**2 rows: 2 the project's own checks (1 REPRODUCED, 1 PARTLY).**" in rst and "- ``fig-a``: First \\* title -- 2 rows: 1 REPRODUCED, 1 PARTLY" in rst
    assert "- ``other``: Other -- 0 rows: no verdict rows" in rst
    assert "c1" not in rst  # the rows themselves are the report's "0. Verdicts" entry
    assert report.landing_rst(tmp_path / "none.csv", {}).startswith("(The verdict table does not exist yet")


def test_verdict_html_has_no_raw_markdown_and_states_the_joint_level(tmp_path):
    _, table = _verdict_files(tmp_path)
    html = table.read_text()
    assert "*draft*" not in html and "**" not in html and "<i>draft</i>" in html
    assert "Bonferroni" in html and "per point)" not in html


def test_render_jobs_name_a_parameters_file_not_inline_json(tmp_path):
    """The report's job box shows a rule's params as name=value: the render job carries none, its parameters
    are the `parameters` rule's file (and that rule's JSON params stay out of the report)."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-p", "--forceall", "--configfile",
                           "workflow/quick.yaml"], cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout + proc.stderr
    renders = [ln for ln in out.splitlines() if "dpposterior.paper render" in ln]
    assert renders, out[-2000:]
    for ln in renders:
        assert re.search(r"--parameters results/quick/parameters/[\w-]+\.json ", ln), ln
        assert "{" not in ln, ln
    # the parameters rule's own command writes the item's parameters, which the render reads back as they are
    from dpposterior.paper import render

    target = "> results/quick/parameters/fig3b.json 2> results/quick/logs/parameters/fig3b.log"
    [printf] = [ln.split("Shell command:")[-1].strip() for ln in out.splitlines()
                if "printf '%s\\n' " in ln and ln.endswith(target)]
    subprocess.run(["bash", "-c", printf.replace(target, f"> {tmp_path / 'p.json'}")], check=True)
    import yaml
    from snakemake.utils import update_config

    from dpposterior.paper.stages import item_parameters

    cfg = yaml.safe_load((root / "config.yaml").read_text())
    update_config(cfg, yaml.safe_load((root / "workflow" / "quick.yaml").read_text()))  # as --configfile merges
    expected = item_parameters(cfg, "fig3b", cfg["results_dir"], cfg["figures_dir"])
    assert expected["outputs"]["png"] == "figures/quick/fig3b.png"
    assert render.read_parameters(tmp_path / "p.json") == expected


def _config_mechanisms():
    """Every mechanism name the config's experiments list (the releases the figures draw)."""
    import yaml

    from dpposterior.paper.paths import here

    cfg = yaml.safe_load(here("config.yaml").read_text(encoding="utf-8"))
    names = set()
    for section in ("accuracy", "pmf", "expected_error", "coverage", "privacy", "audit"):
        for spec in cfg.get(section, {}).values():
            names |= set(spec.get("mechanisms", []))
    return sorted(names)


def _registry_label(m):
    """The oracle: the registry's display label, spelled out (`lattice~average` -> `lattice (average)`)."""
    base, _, option = m.partition("~")
    return f"{base} ({option})" if option else base


@pytest.mark.parametrize("m", _config_mechanisms())
@pytest.mark.parametrize("k", [None, 2, 3])
def test_every_legend_entry_starts_with_the_registry_label(m, k):
    """A figure's legend names each release by the registry's label first (as `compare` prints it), so a cell,
    a caption and a legend name it alike."""
    assert style.label(m) == _registry_label(m)
    got = style.name(m, k)
    assert got == _registry_label(m) or got.startswith(_registry_label(m) + ": "), got


def test_the_laplace_release_is_named_alike_with_or_without_lshist_beside_it():
    """workshop-fig4 draws lszhang for lshist too (both Lap(2/eps) at k = 3), workshop-fig4-small lszhang alone: the
    two legends name it the same way, and say that it is lshist too."""
    import yaml

    from dpposterior.paper import claims as C
    from dpposterior.paper.paths import here

    cfg = yaml.safe_load(here("config.yaml").read_text(encoding="utf-8"))
    got = {}
    for item in ("workshop-fig4", "workshop-fig4-small"):
        mechanisms = cfg["accuracy"][cfg["items"][item]["source"]]["mechanisms"]
        shown, _, _ = C.shown_mechanisms(mechanisms, [3])
        got[item] = style.legend_names(shown, [3])
    assert got["workshop-fig4"]["lszhang"] == got["workshop-fig4-small"]["lszhang"]
    assert "lshist" in got["workshop-fig4"]["lszhang"]
    assert "lshist" not in style.legend_names(["lszhang"], [2, 2])["lszhang"]  # at k = 2 they differ


@pytest.mark.parametrize("winner, runner_up, ratio, to_opt, margin, opt", [
    ("geometric", "lshist", 1.0213, 1.05, "runner-up +2.1%", "opt. x1.05"),
    ("lattice~average", "geometric", 1.35, float("nan"), "runner-up +35%", "no LP optimum"),
    ("ehds~calibrated", "ehd~calibrated", 1.0001, 2.5, "tie (< 0.05%)", "opt. x2.50"),
    ("lshist", None, float("nan"), 1.2, "the only release", "opt. x1.20")])
def test_a_which_to_use_cell_names_its_winner_and_margin(winner, runner_up, ratio, to_opt, margin, opt):
    """A cell reads without its colour: the winner's label (the start of its legend entry), its margin over the
    runner-up and its distance to the optimum; where the LP did not run it does not say "n/a" (an optimum exists)."""
    lines = style.winner_cell(winner, runner_up, ratio, to_opt, float("nan")).split("\n")  # a frame's missing twin
    assert lines == [_registry_label(winner), margin, opt]
    assert style.name(winner).startswith(lines[0])


def test_past_the_lp_a_cell_gives_the_winner_over_its_certified_bound():
    """Where the k >= 3 LP is past its budgets, the yardstick's bound says how far the optimum can be: "opt. <= x1.04"
    (the winner over the bound); the optimum's own ratio wins where both are given, and without either the cell
    says so."""
    cell = style.winner_cell("lattice~average", "geometric", 1.35, float("nan"), None, 1.0437).split("\n")
    assert cell[-1] == "opt. \u2264 x1.04"
    assert style.winner_cell("geometric", "lshist", 1.02, 1.05, None, 1.2).split("\n")[-1] == "opt. x1.05"
    assert style.winner_cell("geometric", "lshist", 1.02, float("nan"), None).split("\n")[-1] == "no LP optimum"


def test_a_cell_names_the_winners_twin_apart_from_its_runner_up():
    """At k >= 3 lszhang and lshist are one release: the cell names both as the winner and measures the margin to the
    next different release (not a "tie" with itself)."""
    import pandas as pd

    from dpposterior.paper import beyond

    rows = [{"mechanism": m, "base": m, "pure_dp": True, "k": 3, "prior_strength": 1.0, "n": 5, "epsilon": 1.0,
             "average": v, "status": "ok", "is_optimum": False} for m, v in
            (("lszhang", 0.40), ("lshist", 0.40 * (1 + 1e-12)), ("geometric", 0.46))]
    (w,) = beyond.winners(pd.DataFrame(rows), "average").itertuples()
    assert (w.winner, w.same, w.runner_up) == ("lszhang", "lshist", "geometric")
    assert style.winner_cell(w.winner, w.runner_up, w.ratio, w.to_optimum, w.same).split("\n")[:3] == [
        "lszhang", "= lshist", "runner-up +15%"]


def test_cell_backgrounds_keep_black_text_readable():
    """Every colour of the style, lightened for a cell, takes black text (greyscale too: the text, not the
    colour, names the winner)."""
    for m in style.COLOURS:
        assert style.text_colour(style.tint(style.colour(m))) == "black", m


def test_the_frontier_items_draw_every_k_once():
    """frontier (k = 2) and frontier-k3 (k >= 3) split one grid: every k of its priors is drawn by exactly one
    frontier item, in the default and the quick config."""
    import yaml

    from dpposterior.paper.paths import here

    cfg = yaml.safe_load(here("config.yaml").read_text(encoding="utf-8"))
    quick = yaml.safe_load(here("workflow/quick.yaml").read_text(encoding="utf-8"))
    for grid in (cfg["expected_error"]["frontier"], {**cfg["expected_error"]["frontier"],
                                                     **quick["expected_error"].get("frontier", {})}):
        ks = sorted({len(p) for p in grid["priors"]})
        drawn = [k for spec in cfg["items"].values() if spec["template"] == "frontier" for k in spec["k"]]
        assert sorted(drawn) == ks


def test_a_render_process_skips_the_slow_iri_checkers_and_still_validates_notebooks():
    """The render process blocks rfc3987_syntax before anything imports jsonschema (its import costs ~3 s of
    CPU per render): the CLI entry point has not imported jsonschema yet, the module is never loaded, and
    nbformat still validates (an invalid notebook is still refused)."""
    import subprocess
    import sys

    pytest.importorskip("nbformat")
    code = (
        "import sys\n"
        "import dpposterior.paper.__main__\n"
        "assert 'jsonschema' not in sys.modules, 'the CLI imported jsonschema before render() could skip'\n"
        "from dpposterior.paper.startup import skip_iri_format_checkers\n"
        "skip_iri_format_checkers()\n"
        "import nbformat, papermill, jupytext\n"
        "nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('1')])\n"
        "nbformat.validate(nb)\n"
        "nb.cells[0]['cell_type'] = 'nonsense'\n"
        "try:\n"
        "    nbformat.validate(nb)\n"
        "    raise SystemExit('an invalid notebook validated')\n"
        "except nbformat.ValidationError:\n"
        "    pass\n"
        "print(sys.modules.get('rfc3987_syntax', 'absent'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() in ("None", "absent")


def test_the_snakefiles_config_checks_skip_the_slow_iri_checkers_and_still_validate():
    """Every Snakemake process runs the Snakefile's checks (:func:`dpposterior.paper.config.check_all`, then
    Snakemake's own ``validate``), and they block rfc3987_syntax before jsonschema loads (~1.3 s of CPU per process:
    the main run, ``-n``, and on a cluster every job's own Snakemake): the module is never loaded, and the schema
    still refuses a bad value in one line."""
    import importlib.metadata
    import subprocess
    import sys

    try:  # installed? (not importorskip: this process may already hold the skip's None in sys.modules)
        importlib.metadata.distribution("rfc3987-syntax")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("rfc3987-syntax is not installed: nothing to skip, and nothing to test")
    code = (
        "import sys, yaml\n"
        "from dpposterior.paper.config import ConfigError, check_all\n"
        "from dpposterior.paper.paths import here\n"
        "schema = str(here('workflow/schemas/config.schema.yaml'))\n"
        "cfg = yaml.safe_load(here('config.yaml').read_text())\n"
        "check_all(cfg, schema)\n"
        "from snakemake.utils import validate\n"
        "validate(cfg, schema)\n"
        "assert sys.modules.get('rfc3987_syntax', 'absent') in (None, 'absent'), 'rfc3987_syntax was loaded'\n"
        "cfg['seed'] = 'x'\n"
        "try:\n"
        "    check_all(cfg, schema)\n"
        "    raise SystemExit('a bad seed passed the checks')\n"
        "except ConfigError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "seed" in out.stdout


def test_the_browser_check_opens_every_split_figure_page():
    """CI's browser check (.ci/browser-check) opens the rendered notebook of every frontier item (one figure split
    across items) and of which-to-use by name, besides the first page and its first notebooks."""
    import shlex

    import yaml

    from dpposterior.paper.paths import here

    cfg = yaml.safe_load(here("config.yaml").read_text(encoding="utf-8"))
    script = here(".ci/browser-check").read_text(encoding="utf-8").replace("\\\n", " ")
    (call,) = [ln for ln in script.splitlines() if "browser_check.py" in ln and not ln.lstrip().startswith("#")]
    words = shlex.split(call)
    after = words[words.index("--items") + 1:]
    named = set(after[:next((i for i, w in enumerate(after) if w.startswith("-")), len(after))])
    wanted = {i for i, spec in cfg["items"].items() if spec["template"] == "frontier"} | {"which-to-use"}
    assert wanted <= named, wanted - named


def test_ratios_at_one_n_are_bars_named_like_the_legend():
    """Where the optimum ran at one n only (which-to-use at k >= 3), each release is one labelled bar from 1 to its
    ratio, not a panel of single points."""
    import matplotlib.pyplot as plt
    import pandas as pd

    rows = pd.DataFrame({"mechanism": ["geometric", "lattice~average", "ehd"], "n": 5, "ratio": [1.4, 1.03, 1.7]})
    fig, ax = plt.subplots()
    style.ratio_bars(ax, rows, ["geometric", "lattice~average"])
    bars = ax.patches
    assert [round(b.get_x() + b.get_width(), 6) for b in bars] == [1.4, 1.03]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["geometric", "lattice (average)"]
    assert "n = 5" in ax.get_xlabel()
    plt.close(fig)


def test_a_warmed_up_process_exports_the_same_html_and_preload_calls_the_warm_up(tmp_path, monkeypatch):
    """render.warm_up (run once in the job server) only fills caches: a notebook exported after it is byte for
    byte what a fresh process exports; a preload entry ``module:function`` calls the function."""
    import subprocess
    import sys
    from pathlib import Path

    import nbformat

    from dpposterior.paper import jobserver

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title\n\n**What it shows.** a *b* `c` | d\n---|---\n1 | 2"),
                nbformat.v4.new_code_cell("import math\nx = math.pi  # pi", outputs=[
                    nbformat.v4.new_output("stream", name="stdout", text="3.14\n"),
                    nbformat.v4.new_output("display_data", data={"text/markdown": "**Caption.** x", "text/plain": ""})])]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    script = ("import sys, nbformat\nfrom dpposterior.paper import render\n"
              "if sys.argv[2] == 'warm':\n    render.warm_up()\n"
              "sys.stdout.write(render.html_exporter().from_notebook_node(nbformat.read(sys.argv[1], 4))[0])\n")
    src = str(Path(__file__).resolve().parents[2] / "src")
    bodies = [subprocess.run([sys.executable, "-c", script, str(path), how], capture_output=True, text=True, check=True,
                             env={**__import__("os").environ, "PYTHONPATH": src}).stdout for how in ("cold", "warm")]
    assert bodies[0] and bodies[0] == bodies[1]
    assert "dpposterior.paper.render:warm_up" in jobserver.PRELOAD
    import gc
    import types

    calls = []
    for name in jobserver.THREADS:  # preload sets them; keep this process's
        monkeypatch.setenv(name, "1")
    monkeypatch.setattr(gc, "freeze", lambda: None)
    monkeypatch.setitem(sys.modules, "_warm_probe", types.SimpleNamespace(go=lambda: calls.append(1)))
    jobserver.preload(("_warm_probe:go", "_warm_probe"))
    assert calls == [1]


def test_the_kernel_warm_up_leaves_a_kernel_as_it_was():
    """style.warm_up (run once in the kernel server) takes no pyplot figure, keeps rcParams, and does not import
    the inline backend (imported before the kernel's shell exists, it would not register its PNG display, and the
    notebooks would lose their figures); it is in the kernel server's preload."""
    import subprocess
    import sys
    from pathlib import Path

    from dpposterior.paper import jobserver

    assert "dpposterior.paper.style:warm_up" in jobserver.KERNEL_PRELOAD
    script = ("import sys, matplotlib, matplotlib.pyplot as plt\nfrom dpposterior.paper import style\n"
              "rc = dict(matplotlib.rcParams)\nstyle.warm_up()\n"
              "assert dict(matplotlib.rcParams) == rc\nassert plt.get_fignums() == []\n"
              "assert 'matplotlib_inline.backend_inline' not in sys.modules\nprint('ok')\n")
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**__import__("os").environ, "PYTHONPATH": src, "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "ok", out.stderr[-2000:]
