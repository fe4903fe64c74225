"""What the rules share: the output folders, each stage's paths, settings and command (from its
stage object, dpposterior.paper.stages), each item's inputs and notebook parameters. Every output
pattern is in dpposterior.paper.paths; config checks beyond the schema are in dpposterior.paper.config."""

import sys
from pathlib import Path

from dpposterior.paper import paths
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


def same_release_input(wildcards):
    """An expected_error job's input: the grid of the same experiment that holds its rows of the same release."""
    return STAGES["expected_error"].same_release_input(config, wildcards.experiment, wildcards.mechanism, R)


def earlier_grids_param(wildcards):
    """An expected_error job's --earlier-grids: its "earlier" inputs (same_release_input) as a JSON list."""
    return as_json(STAGES["expected_error"].earlier_grids(config, wildcards.experiment, wildcards.mechanism, R))


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


def item_parameter_dict(item):
    """Notebook parameters: the item's `items:` entry (minus template/source), its mechanisms, its paths."""
    return stage_item_parameters(config, item, R, F)


def item_parameters(wildcards):
    return as_json(item_parameter_dict(wildcards.item))


def template_of(wildcards):
    return paths.fill(paths.TEMPLATE, template=config["items"][wildcards.item]["template"])


def item_labels(file):
    """The report's labels of an item's file: its id, its title (the navigation shows what each item is), the file."""
    return lambda wildcards: {"item": wildcards.item, "title": config["items"][wildcards.item].get("title", ""),
                              "file": file}


def index_items(wildcards):
    """The first page's items, in config order: each one's title, figure and rendered notebook (JSON)."""
    return as_json([{"item": i, "title": config["items"][i].get("title", i), "figure": item_outputs(i)["png"],
                     "notebook": paths.fill(paths.NOTEBOOK_HTML, results=R, item=i)} for i in ITEMS])


def all_outputs():
    out = [paths.fill(paths.VERDICTS_MD, figures=F), paths.fill(paths.VERDICTS_CSV, figures=F),
           paths.fill(paths.INDEX_HTML, figures=F)]
    for item in ITEMS:
        out += list(item_outputs(item).values()) + [paths.fill(paths.NOTEBOOK_HTML, results=R, item=item)]
    return out


# the report (snakemake --report) reads each item's caption and the verdict counts when they exist; its first
# page is short (counts, one line per item): the full table is its own entry ("0. Verdicts"). A job on a cluster
# node (remote mode) writes no report: it skips these reads and their imports (pandas).
if workflow.remote_exec:
    config["_report"] = {"captions": {}, "parameters": {}, "landing": ""}
else:
    from dpposterior.paper.report import caption_rst, landing_rst, parameters_rst

    config["_report"] = {"captions": {i: caption_rst(Path(item_outputs(i)["caption"])) for i in ITEMS},
                         "parameters": {i: parameters_rst(item_parameter_dict(i)) for i in ITEMS},
                         "landing": landing_rst(Path(paths.fill(paths.VERDICTS_CSV, figures=F)),
                                                {i: config["items"][i].get("title", i) for i in ITEMS})}


# `snakemake --report` reports one config's finished run: with that run missing, say so in one line and name the
# quick run's report (instead of Snakemake's "marked for report but does not exist" on the first file it misses)
if any(a == "--report" or a.startswith("--report=") for a in sys.argv[1:]):
    if not Path(paths.fill(paths.VERDICTS_CSV, figures=F)).is_file():
        exit_with(ConfigError(
            f"snakemake --report reports a finished run of its config, and {paths.fill(paths.VERDICTS_CSV, figures=F)} "
            "does not exist: run that config first (snakemake --cores 2, with the same --configfile); the quick run's "
            "report is: snakemake --configfile workflow/quick.yaml --report report.zip"))
