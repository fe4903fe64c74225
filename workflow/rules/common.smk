"""Helpers the rules share: output folders, the settings each job uses, each item's inputs and
notebook parameters. Config checks beyond the schema are in dpposterior.paper.config."""

import json
from pathlib import Path

from dpposterior.paper.config import (AUDIT_KEYS, COVERAGE_KEYS, DATA_KEYS, EXPECTED_ERROR_KEYS, FORMULA_TEMPLATES, PMF_KEYS, PRIVACY_KEYS, RUN_KEYS,
                                      TEMPLATES, check_config, pick)
from dpposterior.paper.experiments import FORMULAS
from dpposterior.paper.report import caption_rst, verdicts_rst

#: output folders: the quick config writes to results/quick/ and figures/quick/
R = config.get("results_dir", "results")
F = config.get("figures_dir", "figures")
PROGRESS = "--progress" if config.get("progress", True) else ""
ITEMS = list(config["items"])


wildcard_constraints:
    mechanism="[A-Za-z0-9~-]+",
    experiment="[A-Za-z0-9_-]+",
    name="[A-Za-z0-9_-]+",
    item="|".join(ITEMS),


def as_json(d):
    return json.dumps(d, sort_keys=True)


def data_spec(experiment):
    return as_json(pick(config["accuracy"][experiment], DATA_KEYS))


def run_spec(experiment):
    spec = pick(config["accuracy"][experiment], RUN_KEYS)
    return as_json(spec | {"seed": config["seed"], "runs": config["runs"], "exact_max": config["exact_max_candidates"]})


def pmf_spec(name):
    return as_json(pick(config["pmf"][name], PMF_KEYS))


def privacy_spec(experiment, n=None):
    """The settings of a privacy job: the whole n grid, or (a slice of a split entry) the one ``n``."""
    spec = pick(config["privacy"][experiment], PRIVACY_KEYS)
    return as_json(spec if n is None else spec | {"n": [n]})


def privacy_slices(wildcards):
    """The one-n slices a split privacy entry (`split: true`) merges; none for an entry computed in one job."""
    spec = config["privacy"][wildcards.experiment]
    if not spec.get("split", False):
        return []
    return [f"{R}/privacy/{wildcards.experiment}/{wildcards.mechanism}/n{n}.parquet" for n in spec["n"]]


def audit_spec(experiment):
    spec = config["audit"][experiment]
    base = pick(config["privacy"][spec["privacy"]], PRIVACY_KEYS)
    return as_json(base | pick(spec, AUDIT_KEYS) | {"seed": config["seed"]})


def expected_error_spec(experiment):
    return as_json(pick(config["expected_error"][experiment], EXPECTED_ERROR_KEYS))


def coverage_spec(experiment):
    return as_json(pick(config["coverage"][experiment], COVERAGE_KEYS))


def pmf_mechanisms(name):
    """Mechanisms of a pmf entry, plus the printed-formula pseudo-mechanisms if a table item shows it."""
    extra = [f for f in FORMULAS if any(s["source"] == name and s["template"] in FORMULA_TEMPLATES
                                        for s in config["items"].values())]
    return list(config["pmf"][name]["mechanisms"]) + extra


def item_inputs_dict(item):
    """The inputs of one item, by role (passed to the notebook as its `inputs` parameter)."""
    spec = config["items"][item]
    src, section = spec["source"], TEMPLATES[spec["template"]]
    if section == "accuracy":
        mechs = config["accuracy"][src]["mechanisms"]
        return {"data": f"{R}/data/{src}.parquet", "runs": [f"{R}/runs/{src}/{m}.parquet" for m in mechs],
                "exact": [f"{R}/exact/{src}/{m}.parquet" for m in mechs]}
    if section == "privacy":
        return {"privacy": [f"{R}/privacy/{src}/{m}.parquet" for m in config["privacy"][src]["mechanisms"]]}
    if section == "pmf":
        mechs = pmf_mechanisms(src)
        return {"pmf": [f"{R}/pmf/{src}/{m}.parquet" for m in mechs],
                "tails": [f"{R}/pmf/{src}/tails/{m}.parquet" for m in mechs]}
    if section == "audit":
        return {"audit": [f"{R}/audit/{src}/{m}.parquet" for m in config["audit"][src]["mechanisms"]]}
    if section == "expected_error":
        return {"expected_error": [f"{R}/expected_error/{src}/{m}.parquet"
                                   for m in config["expected_error"][src]["mechanisms"]]}
    if section == "coverage":
        return {"coverage": [f"{R}/coverage/{src}/{m}.parquet" for m in config["coverage"][src]["mechanisms"]]}
    return {"sensitivity": f"{R}/sensitivity/{src}.parquet"}


def item_inputs(wildcards):
    out = []
    for v in item_inputs_dict(wildcards.item).values():
        out += v if isinstance(v, list) else [v]
    return out


def item_outputs(item):
    return {"png": f"{F}/{item}.png", "pdf": f"{F}/{item}.pdf", "csv": f"{F}/{item}.csv", "md": f"{F}/{item}.md",
            "tex": f"{F}/{item}.tex", "verdicts": f"{R}/verdicts/{item}.csv", "caption": f"{R}/captions/{item}.txt"}


def item_parameters(wildcards):
    """Notebook parameters: the item's `items:` entry (minus template/source), its mechanisms, its paths."""
    spec = dict(config["items"][wildcards.item])
    template, src = spec.pop("template"), spec.pop("source")
    section = TEMPLATES[template]
    params = {"item": wildcards.item, **spec, "inputs": item_inputs_dict(wildcards.item),
              "outputs": item_outputs(wildcards.item)}
    if section in ("accuracy", "privacy", "audit", "coverage", "expected_error"):
        params["mechanisms"] = config[section][src]["mechanisms"]
    return as_json(params)


def template_of(wildcards):
    return f"notebooks/{config['items'][wildcards.item]['template']}.py"


def all_outputs():
    out = [f"{F}/verdicts.md", f"{F}/verdicts.csv"]
    for item in ITEMS:
        out += list(item_outputs(item).values()) + [f"{R}/notebooks/{item}.html"]
    return out


# the report (snakemake --report) reads each item's caption and the verdict table when they exist
config["_report"] = {"captions": {i: caption_rst(Path(f"{R}/captions/{i}.txt")) for i in ITEMS},
                     "verdicts": verdicts_rst(Path(f"{F}/verdicts.csv"))}
