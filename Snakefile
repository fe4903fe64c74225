"""dpposterior: regenerate every figure and table of the paper drafts from one target.

    snakemake --cores 2                                   # default config, every item, figures/verdicts.md
    snakemake --cores 2 --configfile workflow/quick.yaml  # the whole DAG at small sizes, into */quick/
    snakemake --cores 2 figures/fig4.png                  # one item
    snakemake --report report.zip                         # the report of the default run (after that run)
    snakemake --configfile workflow/quick.yaml --report report.zip   # the report of the quick run

Every run also writes its first page, figures/index.html (figures/quick/index.html): open it in a browser.
"""

import os

from snakemake.utils import min_version, validate

min_version("8.0")


# Every config error is named at dry run, in one line, before any job (dpposterior.paper.config):
# strict YAML (duplicate keys, line numbers), the schema, cross-references, values and exact sizes
# under the pipeline's compute limits (dpposterior.paper.limits, applied here as in every job).  The files
# are read strictly before `configfile:` so a YAML error in config.yaml gives its line; Snakemake
# itself reads a --configfile before this file runs, so a YAML syntax error there gets Snakemake's
# own message (no line number), while its duplicate keys are still caught here.
from dpposterior.paper.limits import apply as apply_pipeline_limits
from dpposterior.paper.config import ConfigError, check_all, check_files, exit_with
from dpposterior.paper.startup import skip_iri_format_checkers

apply_pipeline_limits()
try:
    check_files(["config.yaml", *workflow.overwrite_configfiles])
except ConfigError as exc:
    exit_with(exc)


configfile: "config.yaml"


# A job on a cluster node (Snakemake's remote mode: one process per job) skips the value checks: the run
# that submitted it made them on the same files (with the report's reads, common.smk: 2.2 s of CPU a job, not 3.7). The
# schema's defaults are still set below (`validate`), jsonschema's iri checkers skipped first as in check_all.
if workflow.remote_exec:
    skip_iri_format_checkers()
else:
    try:
        check_all(config, "workflow/schemas/config.schema.yaml")
    except ConfigError as exc:
        exit_with(exc)

validate(config, "workflow/schemas/config.schema.yaml")  # sets the schema's defaults

os.environ.setdefault("SOURCE_DATE_EPOCH", "0")


# A local run forks every `python -m dpposterior.paper` job from one server that has imported the stack once
# (dpposterior.paper.jobserver; docs/pipeline.md, "The job server"): started when the jobs start (not in a dry run,
# --report, --lint, on a cluster or with DPPOSTERIOR_JOBSERVER=off), a child of this process, stopped and waited
# for at the end, so its workers' CPU counts in this run's.
from dpposterior.paper import jobserver

JOBSERVERS = []


onstart:
    JOBSERVERS.extend(jobserver.for_workflow(workflow))


onsuccess:
    jobserver.stop_for_workflow(JOBSERVERS)


onerror:
    jobserver.stop_for_workflow(JOBSERVERS)


include: "workflow/rules/common.smk"


report: "workflow/report/workflow.rst"


# one rule file per stage of dpposterior.paper.stages.STAGES, named after it
for stage in STAGES:

    include: f"workflow/rules/{stage}.smk"


include: "workflow/rules/render.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
