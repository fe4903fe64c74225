"""What a process pays before it starts: the package top and the stage CLI import only what they use.

Each check runs in a fresh interpreter (this test process has long since imported everything)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def loaded_after(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; what it prints last (JSON) about ``sys.modules``."""
    env = os.environ | {"PYTHONPATH": str(SRC)}
    proc = subprocess.run([sys.executable, "-c", "import json, sys\n" + code], capture_output=True, text=True, env=env,
                          check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_package_top_imports_nothing_until_a_name_is_used():
    got = loaded_after(
        "import dpposterior as dp\n"
        "before = sorted(m for m in sys.modules if m.startswith('dpposterior.') or m in ('numpy', 'scipy'))\n"
        "release = dp.release\n"
        "names = [n for n in dp.__all__ if not hasattr(dp, n)]\n"
        "print(json.dumps({'before': before, 'api': 'dpposterior.api' in sys.modules, 'missing': names,\n"
        "                  'in_dir': sorted(set(dp.__all__) - set(dir(dp))), 'models': dp.models.__name__}))")
    assert got["before"] == []  # a bare `import dpposterior` loads no module of the library, nor numpy
    assert got["api"] and got["missing"] == [] and got["in_dir"] == []  # every documented name, on first use
    assert got["models"] == "dpposterior.models"  # a submodule as an attribute, as when the top imported them all


def test_the_stage_cli_loads_no_computation_before_its_subcommand_runs():
    got = loaded_after(
        "import dpposterior.paper.__main__ as m\n"
        "m.build_parser()\n"
        "heavy = ['scipy', 'pandas', 'dpposterior.mechanisms', 'dpposterior.accuracy', 'dpposterior.paper.experiments',\n"
        "         'dpposterior.paper.report', 'dpposterior.paper.render']\n"
        "print(json.dumps(sorted(h for h in heavy if h in sys.modules)))")
    assert got == []  # a render, verdicts or index job never loads the library's computations


def test_scipy_no_longer_drags_in_numpys_f2py_and_testing():
    got = loaded_after(
        "import dpposterior.paper.experiments\n"
        "lazy = {m: type(sys.modules[m]).__name__ for m in ('numpy.f2py', 'numpy.testing')}\n"
        "charset = 'charset_normalizer' in sys.modules\n"
        "import numpy\n"
        "numpy.testing.assert_allclose(1.0, 1.0)  # still there: loaded on first use\n"
        "from numpy.f2py import crackfortran\n"
        "print(json.dumps({'lazy': lazy, 'charset': charset, 'loaded': type(numpy.testing).__name__}))")
    assert got["lazy"] == {"numpy.f2py": "_LazyModule", "numpy.testing": "_LazyModule"}
    assert not got["charset"] and got["loaded"] == "module"


def test_a_render_jobs_notebook_header_loads_neither_pandas_nor_scipy(tmp_path):
    # the header reads the item's verdict CSV and caption with the standard library (dpposterior.paper.words): the
    # papermill process of a render job pays for neither (its kernel imports what the notebook uses; numpy is looked
    # up by every pipeline process, dpposterior.paper.startup)
    # and its caption's title and settings (dpposterior.paper.words.title_and_settings)
    (tmp_path / "v.csv").write_text('item,source,claim,draft,computed,rule,tolerance,verdict\n'
                                    'i,,"arXiv draft §7.2.2: a, ""quoted"" claim",d,c,r,t,PARTLY\n', encoding="utf-8")
    (tmp_path / "c.txt").write_text("A title (Fig. 3). Prior Beta(1,1); eps = 1. It shows this. Verdicts: 1 PARTLY.\n",
                                    encoding="utf-8")
    outputs = {"verdicts": str(tmp_path / "v.csv"), "caption": str(tmp_path / "c.txt")}
    got = loaded_after(
        "import nbformat\n"
        "from dpposterior.paper import render\n"
        "nb = nbformat.v4.new_notebook(); nb.cells = [nbformat.v4.new_markdown_cell('# t')]\n"
        f"render.for_the_reader(nb, {{'item': 'i', 'outputs': {outputs!r}}}, 't')\n"
        "assert '**PARTLY**' in nb.cells[0].source, nb.cells[0].source\n"
        "assert '**What it shows.** Prior Beta(1,1); eps = 1. It shows this.' in nb.cells[0].source, nb.cells[0].source\n"
        "print(json.dumps(sorted(h for h in ('pandas', 'scipy') if h in sys.modules)))")
    assert got == []


def test_the_library_imports_tqdm_only_for_a_progress_bar():
    # tqdm.auto, in a notebook kernel, imports ipywidgets for its notebook bar: the kernels that plot the items load
    # the mechanisms and the audit, and never show a bar
    got = loaded_after(
        "import dpposterior.mechanisms, dpposterior.audit, dpposterior.mechanisms.scan\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('tqdm', 'ipywidgets'))))")
    assert got == []


def test_the_job_servers_client_path_loads_neither_numpy_nor_the_library():
    # `python -m dpposterior.paper` in a local pipeline run hands its job to a forked worker (.jobserver): before it
    # does, it must not pay for numpy (dpposterior.paper defers numpy's unused submodules by an import hook) or the
    # stages
    got = loaded_after(
        "import dpposterior.paper.__main__, dpposterior.paper.jobserver\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy', 'pandas')\n"
        "                        or m.startswith('dpposterior.paper.stages'))))")
    assert got == []
