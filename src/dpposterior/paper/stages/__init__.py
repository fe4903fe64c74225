"""The registry of pipeline stages: one object per job kind, grouped by the config section it reads.

Adding a stage: its module here (a :class:`~.base.Stage` subclass and instance, added to
:data:`STAGES`), its rule file ``workflow/rules/<name>.smk`` and its schema section. The stage CLI
(``python -m dpposterior.paper``), the dry-run checks and the items' inputs loop over :data:`STAGES`.
"""

from __future__ import annotations

from .. import paths
from ..catalogue import TEMPLATES
from .accuracy import DATA, RUNS
from .audit import AUDIT
from .base import Stage, as_json
from .coverage import COVERAGE
from .expected_error import EXPECTED_ERROR
from .pmf import PMF
from .privacy import PRIVACY
from .sensitivity import SENSITIVITY
from .yardstick import YARDSTICK

#: every stage by name, in the order of the dry-run checks
STAGES: dict[str, Stage] = {s.name: s for s in (DATA, RUNS, PRIVACY, PMF, COVERAGE, EXPECTED_ERROR, YARDSTICK, AUDIT,
                                                   SENSITIVITY)}

#: config section -> its stages (an item of the section reads all their outputs)
SECTIONS: dict[str, list[Stage]] = {}
for _s in STAGES.values():
    SECTIONS.setdefault(_s.section, []).append(_s)


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


def item_parameters(config: dict, item: str, results: str, figures: str) -> dict:
    """The parameters of one item's notebook (docs/definitions.md §7): its ``items:`` entry (minus template and
    source), its inputs by role, its output paths and, if its notebook takes them, its source's mechanisms (the
    pipeline passes these, and a notebook run as it is in Jupyter loads the same from the config:
    :func:`dpposterior.paper.items.parameters`)."""
    spec = dict(config["items"][item])
    template, src = spec.pop("template"), spec.pop("source")
    # the computed keys last: an item's own keys (checked at dry run) never stand in for them
    params = {**spec, "item": item, "inputs": item_inputs(config, template, src, results),
              "outputs": paths.item_outputs(item, figures, results)}
    mechanisms = item_mechanisms(config, template, src)
    if mechanisms is not None:
        params["mechanisms"] = mechanisms
    return params


__all__ = ["STAGES", "SECTIONS", "TEMPLATES", "Stage", "as_json", "item_inputs", "item_mechanisms", "item_parameters"]
