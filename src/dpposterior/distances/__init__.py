"""Distances between Dirichlet (and Beta) distributions (docs/definitions.md §2).

Today's Hellinger code lives, unchanged, in :mod:`.hellinger`; every name it defines is
re-exported here so ``from dpposterior.distances import ...`` keeps working.
"""

from __future__ import annotations

from .hellinger import (  # noqa: F401  (re-exported: other modules import them from here)
    _EPS, _SERIES_COEF, HELLINGER_TOLERANCE, SERIES_TERMS, SERIES_THRESHOLD, HellingerGrid,
    _even_series, _gap_rounding, _lgamma_bound, _log_bc_rounding, _series, hellinger,
    hellinger_from_log_bc, lgamma_jensen_gap, log_beta, log_bhattacharyya,
)
