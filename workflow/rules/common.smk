"""What the rules share: the output folders, each stage's paths, settings and command (from its
stage object, dpposterior.paper.stages), each item's inputs and notebook parameters. Every output
pattern is in dpposterior.paper.paths; config checks beyond the schema are in dpposterior.paper.config."""

from pathlib import Path

from dpposterior.paper import paths
from dpposterior.paper.report import caption_rst, verdicts_rst
from dpposterior.paper.stages import STAGES, as_json, item_inputs
from dpposterior.paper.stages import item_parameters as stage_item_parameters

#: output folders: the quick config writes to results/quick/ and figures/quick/
R = config.get("results_dir", paths.RESULTS)
F = config.get("figures_dir", paths.FIGURES)
PROGRESS = "--progress" if config.get("progress", True) else ""
ITEMS = list(config["items"])


wildcard_constraints:
    mechanism="[A-Za-z0-9~-]+",
    experiment="[A-Za-z0-9_-]+",
    item="|".join(ITEMS),


def stage_outputs(stage):
    """A stage's output patterns, by role (Snakemake wildcards kept)."""
    return STAGES[stage].output_patterns(R)


def stage_log(stage, job=None):
    return paths.fill(paths.LOG, results=R, stage=stage, job=job or STAGES[stage].job)


def stage_benchmark(stage, job=None):
    return paths.fill(paths.BENCHMARK, results=R, stage=stage, job=job or STAGES[stage].job)


def stage_spec(stage):
    """The `spec` param of a stage's jobs: the settings of one entry that the job uses."""
    return lambda wc: as_json(STAGES[stage].spec(config, wc.experiment))


def stage_command(stage):
    return STAGES[stage].command()


def item_inputs_dict(item):
    """The inputs of one item, by role (passed to the notebook as its `inputs` parameter)."""
    spec = config["items"][item]
    return item_inputs(config, spec["template"], spec["source"], R)


def item_inputs_list(wildcards):
    out = []
    for v in item_inputs_dict(wildcards.item).values():
        out += v if isinstance(v, list) else [v]
    return out


def item_outputs(item):
    return paths.item_outputs(item, F, R)


def item_parameters(wildcards):
    """Notebook parameters: the item's `items:` entry (minus template/source), its mechanisms, its paths."""
    return as_json(stage_item_parameters(config, wildcards.item, R, F))


def template_of(wildcards):
    return paths.fill(paths.TEMPLATE, template=config["items"][wildcards.item]["template"])


def all_outputs():
    out = [paths.fill(paths.VERDICTS_MD, figures=F), paths.fill(paths.VERDICTS_CSV, figures=F)]
    for item in ITEMS:
        out += list(item_outputs(item).values()) + [paths.fill(paths.NOTEBOOK_HTML, results=R, item=item)]
    return out


# the report (snakemake --report) reads each item's caption and the verdict table when they exist
config["_report"] = {"captions": {i: caption_rst(Path(item_outputs(i)["caption"])) for i in ITEMS},
                     "verdicts": verdicts_rst(Path(paths.fill(paths.VERDICTS_CSV, figures=F)))}
