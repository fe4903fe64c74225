"""dpposterior: regenerate every figure and table of the paper drafts from one target.

    snakemake --cores 2                                   # default config, every item, figures/verdicts.md
    snakemake --cores 2 --configfile workflow/quick.yaml  # the whole DAG at small sizes, into */quick/
    snakemake --cores 2 figures/fig4.png                  # one item
    snakemake --report report.zip                         # verdicts, captions, figures, notebooks
"""

import os

from snakemake.utils import min_version, validate

min_version("8.0")


configfile: "config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")

os.environ.setdefault("SOURCE_DATE_EPOCH", "0")


include: "workflow/rules/common.smk"


report: "workflow/report/workflow.rst"


include: "workflow/rules/data.smk"
include: "workflow/rules/runs.smk"
include: "workflow/rules/pmf.smk"
include: "workflow/rules/privacy.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/sensitivity.smk"
include: "workflow/rules/coverage.smk"
include: "workflow/rules/expected_error.smk"
include: "workflow/rules/render.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
