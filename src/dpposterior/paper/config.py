"""Config checks beyond the schema, and what each item needs from the config.

``TEMPLATES`` maps every notebook template to the config section its ``source`` names; the
Snakefile uses it to find an item's inputs. Adding a template: one entry here, one notebook under
``notebooks/``, one claims function in :mod:`.claims`.
"""

from __future__ import annotations

from ..mechanisms import MECHANISM_IDS

#: template -> the config section its items' ``source`` refers to
TEMPLATES = {"error_curve": "accuracy", "error_boxes": "accuracy", "candidate_pmf": "pmf", "step_table": "pmf",
             "privacy_loss": "privacy", "sensitivity": "sensitivity", "score_change": "sensitivity",
             "privacy_audit": "audit", "coverage": "coverage", "frontier": "expected_error",
             "which_to_use": "expected_error", "calibration": "expected_error"}
#: templates whose items also need the printed-formula pseudo-mechanisms of the workshop draft's tables
FORMULA_TEMPLATES = {"step_table"}

#: the settings each stage's jobs use (nothing else goes into their params, so nothing else reruns them)
DATA_KEYS = ("kind", "prior", "proportions", "n", "counts", "a", "prior_value")
RUN_KEYS = ("epsilon", "delta")
PMF_KEYS = ("prior", "counts", "epsilon", "delta")
PRIVACY_KEYS = ("prior", "n", "epsilon", "delta")
AUDIT_KEYS = ("samples", "confidence")
COVERAGE_KEYS = ("prior", "n", "epsilon", "delta", "level")
EXPECTED_ERROR_KEYS = ("priors", "n", "epsilon", "delta", "max_candidates")


class ConfigError(ValueError):
    """A config value the schema accepts but the pipeline cannot use; the message names the key."""


def config_error(key: str, msg: str):
    raise ConfigError(f"config error at '{key}': {msg}")


def check_config(cfg: dict) -> None:
    """Cross-references the schema cannot express; every message names the key."""
    for section in ("accuracy", "privacy", "pmf", "audit", "coverage", "expected_error"):
        for exp, spec in cfg.get(section, {}).items():
            for m in spec["mechanisms"]:
                try:
                    variant(m)
                except ConfigError as exc:
                    config_error(f"{section}.{exp}.mechanisms", str(exc))
    for exp, spec in cfg.get("audit", {}).items():
        if spec["privacy"] not in cfg["privacy"]:
            config_error(f"audit.{exp}.privacy", f"{spec['privacy']!r} is not an entry of 'privacy:'")
    for exp, spec in cfg["accuracy"].items():
        kind = spec["kind"]
        need = {"n-series": ["prior", "n"], "prior-series": ["counts", "a"], "counts-series": ["prior_value", "counts"]}[kind]
        for key in need:
            if key not in spec:
                config_error(f"accuracy.{exp}.{key}", f"required for kind {kind!r}")
        if kind == "n-series" and "proportions" in spec:
            if len(spec["proportions"]) != len(spec["prior"]):
                config_error(f"accuracy.{exp}.proportions", "needs one entry per prior category")
            if abs(sum(spec["proportions"]) - 1) > 1e-9:
                config_error(f"accuracy.{exp}.proportions", "must sum to 1")
    for name, spec in cfg.get("coverage", {}).items():
        if len(spec["prior"]) != 2:
            config_error(f"coverage.{name}.prior", "the coverage experiment is exact for k = 2: give two prior values")
    for name, spec in cfg["pmf"].items():
        if len(spec["prior"]) != len(spec["counts"]):
            config_error(f"pmf.{name}.counts", "needs one entry per prior category")
    for sid in cfg["sensitivity"]:
        if sid not in ("fig1", "fig2"):
            config_error(f"sensitivity.{sid}", "only 'fig1' (curves) and 'fig2' (score change) exist")
    for item, spec in cfg["items"].items():
        section = TEMPLATES[spec["template"]]
        if spec["source"] not in cfg.get(section, {}):
            config_error(f"items.{item}.source", f"{spec['source']!r} is not an entry of '{section}:'")
        if spec["template"] == "step_table" and "printed" not in spec:
            config_error(f"items.{item}.printed", "table items need the printed values")


#: options a config mechanism name may carry after "~": ``ehds~calibrated``, ``optimal~average``
VARIANT_OPTIONS = {"calibrated": {"calibrate": True}, "worst": {"objective": "worst"},
                   "average": {"objective": "average"}}


def variant(name: str) -> tuple[str, dict]:
    """A config mechanism name -> (registry id, keyword options): ``"ehds~calibrated"`` ->
    ``("ehds", {"calibrate": True})``; a plain id has no options. The registry entry validates them."""
    base, _, opt = name.partition("~")
    if base not in MECHANISM_IDS or (opt and opt not in VARIANT_OPTIONS):
        raise ConfigError(f"unknown mechanism {name!r}; use a registry id ({', '.join(MECHANISM_IDS)}), "
                          f"optionally with ~{' / ~'.join(VARIANT_OPTIONS)}")
    return base, dict(VARIANT_OPTIONS.get(opt, {}))


def pick(spec: dict, keys) -> dict:
    """The entries of ``spec`` named in ``keys`` (those present)."""
    return {k: spec[k] for k in keys if k in spec}
