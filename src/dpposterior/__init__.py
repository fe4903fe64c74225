"""dpposterior: differentially private Bayesian inference tailored to the Hellinger distance.

The way in: :func:`release` draws one private posterior (padded, validated, with honest
:class:`PrivacyWarning` s and an optional :class:`Ledger` across releases); :func:`compare` ranks the
releases; :func:`count` counts records into a fixed public category list (labels carried through
:func:`release` and :func:`noise_aware_posterior`); :func:`expected_errors` gives one release's exact
expected errors; :func:`noise_aware_posterior` reads a release honestly; :func:`audit_mechanism` estimates a
privacy loss from samples.

The science lives in one module per concept of docs/definitions.md: :mod:`~dpposterior.models`,
:mod:`~dpposterior.distances`, :mod:`~dpposterior.sensitivity`,
:mod:`~dpposterior.mechanisms`, :mod:`~dpposterior.privacy` (exact loss).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names below, for type checkers; at run time each loads on first use (__getattr__)
    from .accuracy import ExpectedErrors, expected_errors
    from .api import Release, compare, release
    from .distances import distance, hellinger
    from .errors import InputError, SizeError
    from .guarantee import PrivacyWarning
    from .labels import count
    from .ledger import BudgetExceeded, Ledger, LedgerError, LedgerSummary
    from .mechanism_audit import audit_mechanism
    from .mechanisms import MECHANISM_IDS, MECHANISMS, get_mechanism, log_pmf, sample, weight
    from .models import candidates, posterior, steps
    from .noise_aware import NoiseAwarePosterior, noise_aware_posterior
    from .privacy import PrivacyLoss, concrete_epsilon, privacy_profile
    from .sensitivity import global_sensitivity, local_sensitivity, smooth_sensitivity, smooth_sensitivity_all

#: each public name -> the module that defines it (imported when the name is first used, PEP 562)
_EXPORTS = {
    "ExpectedErrors": "accuracy", "expected_errors": "accuracy",
    "Release": "api", "compare": "api", "release": "api",
    "distance": "distances", "hellinger": "distances",
    "InputError": "errors", "SizeError": "errors",
    "PrivacyWarning": "guarantee",
    "count": "labels",
    "BudgetExceeded": "ledger", "Ledger": "ledger", "LedgerError": "ledger", "LedgerSummary": "ledger",
    "audit_mechanism": "mechanism_audit",
    "MECHANISM_IDS": "mechanisms", "MECHANISMS": "mechanisms", "get_mechanism": "mechanisms", "log_pmf": "mechanisms",
    "sample": "mechanisms", "weight": "mechanisms",
    "candidates": "models", "posterior": "models", "steps": "models",
    "NoiseAwarePosterior": "noise_aware", "noise_aware_posterior": "noise_aware",
    "PrivacyLoss": "privacy", "concrete_epsilon": "privacy", "privacy_profile": "privacy",
    "global_sensitivity": "sensitivity", "local_sensitivity": "sensitivity", "smooth_sensitivity": "sensitivity",
    "smooth_sensitivity_all": "sensitivity",
}

__version__ = "0.1.0"

__all__ = [
    "BudgetExceeded", "ExpectedErrors", "Ledger", "LedgerError", "LedgerSummary", "PrivacyWarning", "Release",
    "audit_mechanism", "compare", "count", "expected_errors", "release",
    "MECHANISMS", "MECHANISM_IDS", "InputError", "NoiseAwarePosterior", "noise_aware_posterior", "PrivacyLoss",
    "SizeError", "candidates", "concrete_epsilon",
    "distance", "get_mechanism", "global_sensitivity", "hellinger", "local_sensitivity", "log_pmf", "posterior",
    "privacy_profile", "sample", "smooth_sensitivity", "smooth_sensitivity_all", "steps", "weight",
]


def __getattr__(name: str):
    """A public name (or a submodule, ``dp.models``) loaded on first use: ``import dpposterior.paper.stages``
    or ``import dpposterior.cli`` then imports only what it uses, not the whole library (each pipeline job and
    each CLI call starts in its own process)."""
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value
        return value
    if not name.startswith("__"):
        try:
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
