"""Each list once: the templates, the catalogue's items and the claim kinds are declared in one place
(dpposterior.paper.catalogue, dpposterior.paper.claims) and everything else reads them; these tests fail when a
copy appears or a list drifts."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from dpposterior.paper import catalogue, claims, stages

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
