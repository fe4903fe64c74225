"""The claims of each kind of item, judged on the item's results; the notebooks only plot and display.

Claims listed under an item's ``claims:`` in ``config.yaml`` have a *claim kind*, declared once in the
registry (:mod:`.registry`: its keys with their types, the templates it applies to, its rule and its verdict
words) next to its rule (:mod:`.accuracy`, :mod:`.pmf`, :mod:`.sensitivity`, :mod:`.optimum`); the dry run checks every
item's claims against it (:func:`.registry.check`). The templates whose claims are fixed in code are in
:mod:`.fixed`. Claim texts come from ``config.yaml`` and cite the drafts by version and section, figure or
table.
"""

from __future__ import annotations

from .accuracy import SAME_AT_K3, accuracy, shown_mechanisms
from .fixed import (
    COVERAGE_ATOL,
    EXPONENTIAL_BASES,
    KAPPA_TOL,
    LP_RTOL,
    OPTIMAL_WORST_REFERENCE,
    ORACLE_RTOL,
    TAILOR_MARGIN,
    UNDERCOVER_MARGIN,
    WIN_MARGIN,
    audit,
    calibration,
    calibration_rows,
    coverage,
    exponential_best,
    frontier,
    oracle_rows,
    privacy,
    step_table,
    tailoring,
    which_to_use,
)
from .guarantees import by_construction
from .optimum import Errors, beats_everywhere, bracket, near_optimum
from .pmf import LIMITS, pmf, recorded, tail_bound
from .registry import KINDS, Kind, Mechanism, check, judge, kinds_of
from .sensitivity import score_change, sensitivity

__all__ = ["COVERAGE_ATOL", "EXPONENTIAL_BASES", "KAPPA_TOL", "KINDS", "LIMITS", "LP_RTOL",
           "OPTIMAL_WORST_REFERENCE", "ORACLE_RTOL", "SAME_AT_K3", "TAILOR_MARGIN", "UNDERCOVER_MARGIN",
           "WIN_MARGIN", "Errors", "Kind", "by_construction", "Mechanism", "accuracy", "audit", "beats_everywhere",
           "bracket", "calibration", "calibration_rows", "check", "coverage", "exponential_best", "frontier", "judge",
           "kinds_of", "near_optimum", "oracle_rows", "pmf", "privacy", "recorded", "score_change", "sensitivity",
           "shown_mechanisms", "step_table", "tail_bound", "tailoring", "which_to_use"]
