"""dpposterior.paper.limits: the pipeline jobs' budgets and allocator settings reach the jobs, and the
allocator settings do what they are there for (freed arrays are reused instead of faulted in again)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from dpposterior.paper import limits

# A job's pattern in miniature: ten 10 MB arrays live at once (every page written), all freed, ten times.
# Prints the process's minor page faults during the loop.
LOOP = """
import resource
import numpy as np
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    arrays = [np.ones(10 * 2**20 // 8) for _ in range(10)]
    del arrays
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults(env: dict) -> int:
    out = subprocess.run([sys.executable, "-c", LOOP], env=env, capture_output=True, text=True, check=True,
                         timeout=120)
    return int(out.stdout)


def test_apply_sets_the_budgets_and_the_allocator_as_defaults(monkeypatch):
    for name in {**limits.PIPELINE_BUDGETS, **limits.JOB_ALLOCATOR}:
        monkeypatch.setenv(name, "")  # so that monkeypatch restores the variable's state after the test:
        monkeypatch.delenv(name)  # apply() must not leak the pipeline's budgets into the other tests
    monkeypatch.setenv("MALLOC_TOP_PAD_", "1048576")  # exported by the user: it wins
    limits.apply()
    for name, value in limits.PIPELINE_BUDGETS.items():
        assert os.environ[name] == value
    assert os.environ["MALLOC_TOP_PAD_"] == "1048576"
    assert os.environ["MALLOC_MMAP_THRESHOLD_"] == limits.JOB_ALLOCATOR["MALLOC_MMAP_THRESHOLD_"]
    assert os.environ["MALLOC_TRIM_THRESHOLD_"] == limits.JOB_ALLOCATOR["MALLOC_TRIM_THRESHOLD_"]


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's malloc")
def test_the_allocator_settings_reuse_freed_arrays():
    """By default glibc maps each 10 MB array afresh or hands the freed 100 MB back to the kernel, and every round
    faults them in again; with the settings the arrays come from the heap's padded top and stay in the process,
    so only the first round faults.  Setting the trim threshold alone is as slow as no setting: any setting
    turns off glibc's adaptive mmap threshold, which stays at 128 KiB.  (numpy's transparent huge pages are
    off here so that a fault is a 4 KiB page.)"""
    base = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    base["NUMPY_MADVISE_HUGEPAGE"] = "0"
    default = faults(base)
    tuned = faults({**base, **limits.JOB_ALLOCATOR})
    trim_only = faults({**base, "MALLOC_TRIM_THRESHOLD_": limits.JOB_ALLOCATOR["MALLOC_TRIM_THRESHOLD_"]})
    assert tuned * 5 < default, (tuned, default)
    assert tuned * 5 < trim_only, (tuned, trim_only)
