"""Each list once: the templates, the catalogue's items and the claim kinds are declared in one place
(dpposterior.paper.catalogue, dpposterior.paper.claims) and everything else reads them; these tests fail when a
copy appears or a list drifts, and when a notebook template copies config values into its parameter defaults."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from dpposterior.paper import catalogue, claims, items, stages

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())
SCHEMA = (ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text()


def test_every_template_has_one_notebook_and_every_notebook_one_template():
    assert set(catalogue.TEMPLATES) == {p.stem for p in NOTEBOOKS}
    assert stages.TEMPLATES is catalogue.TEMPLATES


def test_the_schema_copies_no_template_or_claim_kind_list():
    for name in [*catalogue.TEMPLATES, *claims.KINDS]:
        assert not re.search(rf"enum: \[[^\]]*\b{re.escape(name)}\b", SCHEMA), name


def test_ci_check_reads_the_catalogue():
    text = (ROOT / "workflow" / "ci_check.py").read_text()
    assert "from dpposterior.paper.catalogue import CATALOGUE" in text and "CATALOGUE = " not in text


def test_the_catalogue_items_are_in_the_config_with_known_templates():
    assert set(catalogue.CATALOGUE) <= set(CONFIG["items"])
    assert {s["template"] for s in CONFIG["items"].values()} <= set(catalogue.TEMPLATES)


def test_every_claim_kind_is_for_known_templates_and_used_by_the_config():
    used = {c["kind"] for s in CONFIG["items"].values() for c in s.get("claims") or []}
    for k in claims.KINDS.values():
        assert k.templates and set(k.templates) <= set(catalogue.TEMPLATES), k.name
        assert k.verdicts and k.rule.__doc__, k.name
    assert used == set(claims.KINDS)


def _parameters_cell(path: Path) -> list[ast.stmt]:
    text = path.read_text()
    cell = text.split('# %% tags=["parameters"]\n', 1)[1].split("\n# %%", 1)[0]
    return ast.parse(cell).body


#: parameters a template may give a real default: they are not in the config
OWN_DEFAULTS = {"item", "bin_width", "max_steps", "note"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_template_copies_no_config_value_into_its_parameters(path):
    """The parameters cell declares the names the pipeline passes with neutral defaults (None); a run in Jupyter
    fills them from config.yaml (items.parameters), so no copy of a config value can drift."""
    body = _parameters_cell(path)
    names = {}
    for stmt in body:
        assert isinstance(stmt, ast.Assign) and len(stmt.targets) == 1, ast.dump(stmt)
        names[stmt.targets[0].id] = ast.literal_eval(stmt.value)
    item = names["item"]
    assert CONFIG["items"][item]["template"] == path.stem
    passed = items.parameters(item)
    for name, value in names.items():
        if name not in OWN_DEFAULTS:
            assert value is None, name
            assert name in passed or name == "claims", (name, sorted(passed))
    assert set(passed) - {"item", "note"} <= set(names), sorted(set(passed) - set(names))
    assert "globals().update(items.parameters(item))" in path.read_text()


def test_items_parameters_are_the_pipelines():
    p = items.parameters("fig4")
    assert p == stages.item_parameters(CONFIG, "fig4", "results", "figures")
    assert p["claims"] == CONFIG["items"]["fig4"]["claims"] and p["mechanisms"] == ["mh", "lsdim", "lshist"]
    assert p["inputs"]["runs"][0] == "results/runs/balanced-k2/mh.parquet"


def test_ci_check_refuses_a_numpy_repr_in_a_caption(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("ci_check", ROOT / "workflow" / "ci_check.py")
    ci_check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ci_check)
    bad, good = tmp_path / "a.txt", tmp_path / "b.txt"
    bad.write_text("Left: P(release) at Beta(1,1), c = [np.int64(5000), np.int64(5000)], eps = 1.")
    good.write_text("Left: P(release) at Beta(1,1), c = (5000,5000), eps = 1; see np.random (not a repr).")
    assert "numpy repr (np.int64(" in ci_check.problems_of(bad)
    assert ci_check.problems_of(good) is None
