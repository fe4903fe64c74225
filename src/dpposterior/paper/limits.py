"""The budgets of the pipeline's jobs (not the interactive ones of :mod:`dpposterior.limits`), and their allocator.

A command typed at a terminal refuses past about a minute of work; a pipeline job is a batch job
whose runtime is declared in its rule's ``resources`` (``runtime``, ``mem_mb``), so the paper's
sizes (and ``workflow/large.yaml``'s) run.  :func:`apply` sets these as defaults of the process
environment, so a value the user exports still wins.  The Snakefile applies them before the config
check and every ``python -m dpposterior.paper`` job applies them at start, so the dry run refuses
exactly what a job would.

:data:`JOB_ALLOCATOR` tunes glibc's ``malloc`` in the jobs.  The Snakefile's call sets it before any job
starts, and the jobs inherit it: glibc reads it when a process starts, so a job's own call comes too late for
that job and only reaches its children (a render's kernel).  Other C libraries ignore the settings, and no
result depends on them, only speed.  A job allocates and frees arrays of up to a few hundred MB, over and over.  By
default glibc maps large arrays afresh or hands freed memory back to the kernel, and the next array is faulted
in again, page by page, which is expensive in a virtual machine.  With these settings freed memory stays in the
process for the next array: the default run's page faults fall by almost two thirds, no result file changes,
and peak RSS grows by at most 5 %, under every rule's ``mem_mb`` (measured in docs/pipeline.md).
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

#: glibc malloc setting -> value for pipeline jobs (read by each process when it starts; see the module docstring)
JOB_ALLOCATOR = {
    "MALLOC_TOP_PAD_": str(256 * 2**20),  # grow the heap 256 MiB at a time: blocks come from its top, not mmap
    "MALLOC_TRIM_THRESHOLD_": str(4 * 2**30),  # keep freed heap memory for the next block (jobs are short)
    "MALLOC_MMAP_THRESHOLD_": str(32 * 2**20),  # past the top: blocks up to 32 MiB (glibc's own dynamic cap) too
}


def apply() -> None:
    """Make :data:`PIPELINE_BUDGETS` and :data:`JOB_ALLOCATOR` the defaults of this process and the processes it
    starts (an exported value wins)."""
    for name, value in {**PIPELINE_BUDGETS, **JOB_ALLOCATOR}.items():
        os.environ.setdefault(name, value)
