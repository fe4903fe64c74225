"""The budgets of the pipeline's jobs (not the interactive ones of :mod:`dpposterior.limits`).

A command typed at a terminal refuses past about a minute of work; a pipeline job is a batch job
whose runtime is declared in its rule's ``resources`` (``runtime``, ``mem_mb``), so the paper's
sizes (and ``workflow/large.yaml``'s) run.  :func:`apply` sets these as defaults of the process
environment, so a value the user exports still wins.  The Snakefile applies them before the config
check and every ``python -m dpposterior.paper`` job applies them at start, so the dry run refuses
exactly what a job would.
"""

from __future__ import annotations

import os

#: setting -> value for pipeline jobs (the memory budget stays the library's 4 GiB: jobs declare mem_mb)
PIPELINE_BUDGETS = {
    "DPPOSTERIOR_MAX_PAIRS": "2e11",
    "DPPOSTERIOR_MAX_SMOOTH_WORK": "1e8",
    "DPPOSTERIOR_MAX_RELEASE_WORK": "1e9",
    "DPPOSTERIOR_MAX_POSTERIOR_WORK": "1e11",
    "DPPOSTERIOR_MAX_AUDIT_SAMPLES": "1e10",
    "DPPOSTERIOR_MAX_AUDIT_SECONDS": "1e6",
}


def apply() -> None:
    """Make :data:`PIPELINE_BUDGETS` the defaults of this process (an exported value wins)."""
    for name, value in PIPELINE_BUDGETS.items():
        os.environ.setdefault(name, value)
