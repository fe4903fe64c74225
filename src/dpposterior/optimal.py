"""The optimal eps-DP release (docs/definitions.md §9, optimal): kept for existing imports.

Its home is :mod:`dpposterior.mechanisms.optimal` (the linear program, its repair and its
certificate); the registry entry is ``MECHANISMS["optimal"]``.
"""

from __future__ import annotations

from .mechanisms.optimal import (  # noqa: F401  (re-exported: their home is mechanisms.optimal)
    MAX_EPSILON,
    MAX_OUTPUTS,
    MIN_MIX,
    OPTIMAL,
    SOLVERS,
    OptimalMechanism,
    OptimalRows,
    SolverError,
    _adjacent_pairs,
    _solved,
    solve_table,
)
