"""The dry-run checks of the pipeline's config (the Snakefile calls :func:`check_files` and
:func:`check_all`): strict YAML, the schema, the cross-references and the values, each error one
line naming the key. Each stage's own checks are on its stage object (:mod:`.stages`); this module
runs them in order and adds the checks of the items.
"""

from __future__ import annotations

import math
import os
import re
import sys
from pathlib import Path

import yaml

from ..errors import shown_name
from .catalogue import ITEM_KEYS, TEMPLATE_SPECS, TEMPLATES
from .errors import ConfigError, config_error
from .stages import SECTIONS, STAGES
from .startup import skip_iri_format_checkers

__all__ = ["ConfigError", "TEMPLATES", "check_all", "check_claims", "check_config", "check_files", "check_items",
           "check_schema", "check_values", "exit_with"]


#: A name that becomes part of a file path (an experiment, an item): the wildcard constraint of
#: ``workflow/rules/common.smk`` (``experiment="[A-Za-z0-9_-]+"``), checked here so a space is one line at dry run.
PATH_NAME = re.compile(r"[A-Za-z0-9_-]+")

def _check_names(cfg: dict) -> None:
    for section in [*SECTIONS, "items"]:
        for name in cfg.get(section) or {}:
            if not isinstance(name, str) or not PATH_NAME.fullmatch(name):
                config_error(f"{section}.{str(name)[:60]}", "names become file names and may use only letters, digits, "
                             "'_' and '-' (the pipeline's wildcard [A-Za-z0-9_-]+)")


def _check_claim_mechanisms(cfg: dict, item: str, spec: dict, section: str) -> None:
    """Every mechanism a claim names (its kind's mechanism keys, :mod:`.claims`) or the item names (its template's
    mechanism keys, :mod:`.catalogue`) is run by the item's source."""
    source = cfg.get(section, {}).get(spec["source"], {})
    runs = source.get("mechanisms") if isinstance(source, dict) else None
    if runs is None:
        return
    where = f"{section}.{spec['source']}"
    named = []
    for key in TEMPLATE_SPECS[spec["template"]].mechanism_keys:
        value = spec.get(key)
        for i, m in enumerate(value if isinstance(value, list) else [value] if key in spec else []):
            named.append((f"items.{item}.{key}" + (f"[{i}]" if isinstance(value, list) else ""), m))
    from . import claims  # here, not at the top: it imports the library's stack, which a cluster job's Snakemake skips

    for i, claim in enumerate(spec.get("claims") or []):
        kind = claims.KINDS.get(claim.get("kind")) if isinstance(claim, dict) else None
        if kind is not None:
            named += [(f"items.{item}.claims[{i}].{key}", claim[key]) for key in kind.mechanism_keys if key in claim]
    for key, m in named:
        if m not in runs:
            config_error(key, f"{str(m)[:60]!r} is not run by {where} ({', '.join(map(str, runs))})")


def check_claims(cfg: dict) -> None:
    """Every mechanism an item's claims name is run by its source experiment (else render would crash on an
    empty series); run last by :func:`check_all`, after the values, so a size error of the experiment comes first."""
    for item, spec in cfg["items"].items():
        _check_claim_mechanisms(cfg, item, spec, TEMPLATES[spec["template"]])


#: The message of a missing item key, where it says more than the key's name.
NEED_MESSAGES = {"printed": "table items need the printed values"}


def check_items(cfg: dict) -> None:
    """The items' checks (docs/definitions.md §7): each item's template is one of :data:`.catalogue.TEMPLATES`, its
    source an entry of the template's section, its template's keys present and no other key (every key is a
    parameter of the item's notebook: :data:`.catalogue.ITEM_KEYS` and its template's ``needs`` only), and its claims
    fit their kinds (:func:`.claims.check`). One line naming the item and the key."""
    from . import claims  # the library's stack, imported where it is needed (see _check_claim_mechanisms)

    for item, spec in cfg["items"].items():
        template = spec["template"]
        if template not in TEMPLATES:
            config_error(f"items.{item}.template", f"unknown template {str(template)[:60]!r}; the templates (notebooks/"
                         f"<template>.py): {', '.join(TEMPLATES)}")
        section = TEMPLATES[template]
        if spec["source"] not in cfg.get(section, {}):
            config_error(f"items.{item}.source", f"{spec['source']!r} is not an entry of '{section}:'")
        allowed = (*ITEM_KEYS, *TEMPLATE_SPECS[template].needs)
        for key in spec:
            if key not in allowed:
                config_error(f"items.{item}.{str(key)[:60]}", f"items of template {template!r} have no key "
                             f"{str(key)[:60]!r}; their keys: {', '.join(allowed)}")
        for key in TEMPLATE_SPECS[template].needs:
            if key not in spec:
                config_error(f"items.{item}.{key}", NEED_MESSAGES.get(key, f"items of template {template!r} need the "
                                                                            f"key {key!r}"))
        claims.check(item, template, spec.get("claims"))


def check_config(cfg: dict) -> None:
    """Cross-references the schema cannot express; every message names the key."""
    from .variants import variant  # here, not at the top: it imports the mechanisms, which a cluster job skips

    _check_names(cfg)
    for section in SECTIONS:
        for exp, spec in cfg.get(section, {}).items():
            for m in spec.get("mechanisms", []):
                try:
                    variant(m)
                except ConfigError as exc:
                    config_error(f"{section}.{exp}.mechanisms", str(exc))
    for stage in STAGES.values():
        stage.check_refs(cfg)
    check_items(cfg)


# ---------------------------------------------------------------------------------------------
# the dry-run checks: files, schema, values (each error one line naming the key)


# libyaml's parser where PyYAML was built with it: the same safe constructors, a tenth of the time (every
# Snakemake process, each job on a cluster included, loads config.yaml through here)
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _strict_loader(path):
    class Strict(_SAFE_LOADER):
        """A YAML loader that refuses duplicate keys (PyYAML keeps the last one silently)."""

    def mapping(loader, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if key in seen:
                raise ConfigError(f"config error in {path}, line {key_node.start_mark.line + 1}: duplicate key "
                                  f"{key!r} (first at line {seen[key] + 1}); YAML would silently keep the last one")
            seen[key] = key_node.start_mark.line
        return loader.construct_mapping(node, deep=deep)

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return Strict


def check_files(paths) -> None:
    """Load every config file strictly: a YAML error gives its file and line, a duplicate key is an error."""
    for path in paths:
        path = Path(path)
        loader = _strict_loader(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"config error: cannot read {path}: {exc}") from None
        try:
            yaml.load(text, Loader=loader)  # noqa: S506 (a (C)SafeLoader subclass)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise ConfigError(f"config error in {path}{where}: {exc.problem or exc.context}") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"config error in {path}: {' '.join(str(exc).split())}") from None


def _dotted(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def check_schema(cfg: dict, schema_path) -> None:
    """The JSON-schema check as one line (the most relevant error; no schema dump)."""
    skip_iri_format_checkers()  # before jsonschema's import: ~1.3 s of CPU per Snakemake process (.startup)
    import jsonschema

    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(cfg))
    if error is not None:
        message = " ".join(error.message.split())
        if len(message) > 200:
            message = message[:197] + "..."
        config_error(_dotted(error.absolute_path), message)


def _finite(obj, path=()) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            _finite(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _finite(v, (*path, i))
    elif isinstance(obj, float) and not math.isfinite(obj):
        config_error(_dotted(path), f"must be a finite number, got {obj}")


def check_values(cfg: dict) -> None:
    """What each job would refuse, refused at dry run: ranges (the library's validators), lengths, mechanism
    settings and exact sizes beyond the budgets (the pipeline's, :mod:`dpposterior.paper.limits`)."""
    _finite(cfg)
    for stage in STAGES.values():
        stage.check_values(cfg)


def check_all(cfg: dict, schema_path) -> None:
    """The dry-run checks of the merged config, in order: the schema, the cross-references, the values, the
    claims' mechanisms (the files themselves go through :func:`check_files` first)."""
    check_schema(cfg, schema_path)
    check_config(cfg)
    check_values(cfg)
    check_claims(cfg)


def exit_with(exc: ConfigError) -> None:
    """End Snakemake's run on a config error: one line on stderr, exit status 2 (a raised error would
    add Snakemake's traceback of the Snakefile; nothing has been written yet)."""
    print(f"dpposterior: {shown_name(str(exc))}", file=sys.stderr)  # one line, whatever a file name holds
    sys.stderr.flush()
    os._exit(2)
