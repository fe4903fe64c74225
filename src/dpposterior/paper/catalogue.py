"""The one list of the pipeline's notebook templates and of the catalogue's items.

:data:`TEMPLATES` names every notebook template (``notebooks/<name>.py``), the config section its items'
``source`` refers to, and the item keys it needs; :data:`CATALOGUE` lists the items the paper drafts need
(every one must be an entry of ``config.yaml``'s ``items:``; ``workflow/ci_check.py`` requires their files).
Everything else that lists templates or items reads them from here: the stages' item inputs
(:mod:`.stages`), the dry-run checks (:mod:`.config`), ``workflow/ci_check.py`` and the tests.

Decision on the schema: ``workflow/schemas/config.schema.yaml`` does not list the templates (a JSON schema
cannot import Python, and a copied enum drifts). :func:`dpposterior.paper.config.check_config` checks each
item's ``template`` against :data:`TEMPLATES` at dry run instead, one line naming the item; likewise the claim
kinds are checked against :data:`dpposterior.paper.claims.KINDS`, not a schema enum.

Adding a template: its notebook under ``notebooks/`` and one :class:`Template` here (plus, if its items list
claims, the claim kinds it may use: :mod:`.claims`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Template:
    """A notebook template (docs/definitions.md §7): the config ``section`` its items'
    ``source`` names, the item keys it ``needs`` besides template, source and title, and which of its item keys
    name mechanisms of the source (``mechanism_keys``; a list value names several); ``printed_formulas``: its items
    also need the printed-formula pseudo-mechanisms of the workshop draft's tables (:mod:`.stages.pmf`)."""

    name: str
    section: str
    needs: tuple[str, ...] = ()
    mechanism_keys: tuple[str, ...] = ()
    printed_formulas: bool = False


_ALL = (
    Template("error_curve", "accuracy"),
    Template("error_boxes", "accuracy"),
    Template("candidate_pmf", "pmf"),
    Template("step_table", "pmf", needs=("printed", "claim", "as_defined", "laplace"),
             mechanism_keys=("as_defined", "laplace"), printed_formulas=True),
    Template("privacy_loss", "privacy", needs=("claim", "claim_mechanism"), mechanism_keys=("claim_mechanism",)),
    Template("sensitivity", "sensitivity"),
    Template("score_change", "sensitivity"),
    Template("privacy_audit", "audit", needs=("claim", "claim_mechanism"), mechanism_keys=("claim_mechanism",)),
    Template("coverage", "coverage"),
    Template("frontier", "expected_error", needs=("k",)),
    Template("which_to_use", "expected_error", needs=("better", "worse"), mechanism_keys=("better", "worse")),
    Template("calibration", "expected_error"),
    Template("tailoring", "expected_error"),
    Template("draft_checks", "pmf"),
)

#: The keys every item may carry; the others are its template's ``needs`` (an item's keys are its notebook's
#: parameters, so a key no template reads, or another template's, is refused at dry run).
ITEM_KEYS = ("template", "source", "title", "claims", "note")

#: every notebook template by name
TEMPLATE_SPECS: dict[str, Template] = {t.name: t for t in _ALL}

#: notebook template -> the config section its items' ``source`` refers to
TEMPLATES: dict[str, str] = {t.name: t.section for t in _ALL}

#: The items the paper drafts need: each must be in ``config.yaml``'s ``items:`` (the config may add more).
CATALOGUE = ("fig1", "fig2", "fig3a", "fig3b", "fig3c", "fig4", "fig5a", "fig5b", "fig5-prior", "fig6",
             "table1", "table2", "workshop-fig3a", "workshop-fig3b", "workshop-fig4", "workshop-fig5",
             "workshop-fig6", "sketch-fig1a", "sketch-fig1b", "sketch-fig2", "sketch-fig3", "sketch-fig4")

__all__ = ["CATALOGUE", "ITEM_KEYS", "TEMPLATES", "TEMPLATE_SPECS", "Template"]
