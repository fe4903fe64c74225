"""Config checks beyond the schema, and the helpers the rules share."""

import json
import sys

from dpposterior.mechanisms import MECHANISM_IDS

PY = sys.executable
TEMPLATES = ["error_curve", "error_boxes", "candidate_pmf", "privacy_loss", "step_table", "sensitivity",
             "score_change", "privacy_audit"]
SOURCES = {"error_curve": "accuracy", "error_boxes": "accuracy", "candidate_pmf": "pmf", "step_table": "pmf",
           "privacy_loss": "privacy", "sensitivity": "sensitivity", "score_change": "sensitivity",
           "privacy_audit": "audit"}
TABLE_TEMPLATES = {"step_table"}


def config_error(key, msg):
    raise ValueError(f"config error at '{key}': {msg}")


def check_config(cfg):
    """Cross-references the schema cannot express; every message names the key."""
    for section in ("accuracy", "privacy", "pmf", "audit"):
        for exp, spec in cfg.get(section, {}).items():
            for m in spec["mechanisms"]:
                if m not in MECHANISM_IDS:
                    config_error(f"{section}.{exp}.mechanisms", f"unknown mechanism {m!r}; choose from {', '.join(MECHANISM_IDS)}")
    for exp, spec in cfg.get("audit", {}).items():
        if spec["privacy"] not in cfg["privacy"]:
            config_error(f"audit.{exp}.privacy", f"{spec['privacy']!r} is not an entry of 'privacy:'")
    for exp, spec in cfg["accuracy"].items():
        kind = spec["kind"]
        need = {"n-series": ["prior", "n"], "prior-series": ["counts", "a"], "counts-series": ["prior_value", "counts"]}[kind]
        for key in need:
            if key not in spec:
                config_error(f"accuracy.{exp}.{key}", f"required for kind {kind!r}")
        if kind == "n-series" and "proportions" in spec and len(spec["proportions"]) != len(spec["prior"]):
            config_error(f"accuracy.{exp}.proportions", "needs one entry per prior category")
        if kind == "n-series" and "proportions" in spec and abs(sum(spec["proportions"]) - 1) > 1e-9:
            config_error(f"accuracy.{exp}.proportions", "must sum to 1")
        if kind == "n-series" and min(spec["n"]) < len(spec["prior"]) and "proportions" not in spec:
            pass
    for name, spec in cfg["pmf"].items():
        if len(spec["prior"]) != len(spec["counts"]):
            config_error(f"pmf.{name}.counts", "needs one entry per prior category")
    for sid in cfg["sensitivity"]:
        if sid not in ("fig1", "fig2"):
            config_error(f"sensitivity.{sid}", "only 'fig1' (curves) and 'fig2' (score change) exist")
    for item, spec in cfg["items"].items():
        section = SOURCES[spec["template"]]
        if spec["source"] not in cfg[section]:
            config_error(f"items.{item}.source", f"{spec['source']!r} is not an entry of '{section}:'")
        if spec["template"] == "step_table" and "printed" not in spec:
            config_error(f"items.{item}.printed", "table items need the printed values")


check_config(config)


def spec_json(section, name):
    return json.dumps(config[section][name], sort_keys=True)


def item_outputs(item):
    if config["items"][item]["template"] in TABLE_TEMPLATES:
        return [f"figures/{item}.{ext}" for ext in ("csv", "md", "tex")]
    return [f"figures/{item}.{ext}" for ext in ("pdf", "png")]


def all_items():
    out = []
    for item in config["items"]:
        out += item_outputs(item) + [f"results/notebooks/{item}.html"]
    return out


def item_inputs(wildcards):
    spec = config["items"][wildcards.item]
    src, section = spec["source"], SOURCES[spec["template"]]
    if section == "accuracy":
        mechs = config["accuracy"][src]["mechanisms"]
        return ([f"results/runs/{src}/{m}.parquet" for m in mechs] + [f"results/exact/{src}/{m}.parquet" for m in mechs]
                + [f"results/data/{src}.parquet"])
    if section == "privacy":
        return [f"results/privacy/{src}/{m}.parquet" for m in config["privacy"][src]["mechanisms"]]
    if section == "pmf":
        return [f"results/pmf/{src}.parquet", f"results/pmf/{src}-tails.parquet"]
    if section == "audit":
        return [f"results/audit/{src}/{m}.parquet" for m in config["audit"][src]["mechanisms"]]
    return [f"results/sensitivity/{src}.parquet"]


def item_parameters(wildcards):
    """The notebook parameters of one item (everything in its `items:` entry plus its source's mechanisms)."""
    spec = dict(config["items"][wildcards.item])
    template = spec.pop("template")
    section = SOURCES[template]
    params = {"item": wildcards.item, "title": spec.pop("title")}
    src = spec.pop("source")
    if section in ("accuracy", "privacy", "audit"):
        params["experiment"] = src
        params["mechanisms"] = config[section][src]["mechanisms"]
    else:
        params["source"] = src
    if template in ("error_curve", "error_boxes"):
        params["claims"] = spec.pop("claims", [])
    params.update(spec)
    return json.dumps(params, sort_keys=True)


def template_of(wildcards):
    return f"notebooks/{config['items'][wildcards.item]['template']}.ipynb"


FIGURE_ITEMS = [i for i, s in config["items"].items() if s["template"] not in TABLE_TEMPLATES]
TABLE_ITEMS = [i for i, s in config["items"].items() if s["template"] in TABLE_TEMPLATES]
PROGRESS = "--progress" if config.get("progress", True) else ""


def audit_spec_json(experiment):
    """Settings of one `audit:` entry merged over the privacy experiment it names."""
    spec = dict(config["audit"][experiment])
    base = {k: v for k, v in config["privacy"][spec.pop("privacy")].items() if k != "mechanisms"}
    spec.pop("mechanisms")
    return json.dumps(base | spec, sort_keys=True)
