"""The registry of pipeline stages: one object per job kind, grouped by the config section it reads.

Adding a stage: its module here (a :class:`~.base.Stage` subclass and instance, added to
:data:`STAGES`), its rule file ``workflow/rules/<name>.smk`` and its schema section. The stage CLI
(``python -m dpposterior.paper``), the dry-run checks and the items' inputs loop over :data:`STAGES`.
"""

from __future__ import annotations

from .accuracy import DATA, RUNS
from .audit import AUDIT
from .base import Stage, as_json
from .coverage import COVERAGE
from .expected_error import EXPECTED_ERROR
from .pmf import PMF
from .privacy import PRIVACY
from .sensitivity import SENSITIVITY

#: every stage by name, in the order of the dry-run checks
STAGES: dict[str, Stage] = {s.name: s for s in (DATA, RUNS, PRIVACY, PMF, COVERAGE, EXPECTED_ERROR, AUDIT, SENSITIVITY)}

#: config section -> its stages (an item of the section reads all their outputs)
SECTIONS: dict[str, list[Stage]] = {}
for _s in STAGES.values():
    SECTIONS.setdefault(_s.section, []).append(_s)

#: notebook template -> the config section its items' ``source`` refers to
TEMPLATES = {"error_curve": "accuracy", "error_boxes": "accuracy", "candidate_pmf": "pmf", "step_table": "pmf",
             "privacy_loss": "privacy", "sensitivity": "sensitivity", "score_change": "sensitivity",
             "privacy_audit": "audit", "coverage": "coverage", "frontier": "expected_error",
             "which_to_use": "expected_error", "calibration": "expected_error", "tailoring": "expected_error",
             "draft_checks": "pmf"}


def item_inputs(config: dict, template: str, source: str, results: str) -> dict:
    """The inputs of one item, by role (passed to its notebook as the `inputs` parameter)."""
    out = {}
    for stage in SECTIONS[TEMPLATES[template]]:
        out |= stage.item_inputs(config, source, results)
    return out


def item_mechanisms(config: dict, template: str, source: str) -> list[str] | None:
    """The source entry's mechanisms if the item's notebook takes them as a parameter, else None."""
    section = TEMPLATES[template]
    if any(s.notebook_mechanisms for s in SECTIONS[section]):
        return config[section][source]["mechanisms"]
    return None


__all__ = ["STAGES", "SECTIONS", "TEMPLATES", "Stage", "as_json", "item_inputs", "item_mechanisms"]
