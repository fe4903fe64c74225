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

__version__ = "0.1.0"

__all__ = [
    "BudgetExceeded", "ExpectedErrors", "Ledger", "LedgerError", "LedgerSummary", "PrivacyWarning", "Release",
    "audit_mechanism", "compare", "count", "expected_errors", "release",
    "MECHANISMS", "MECHANISM_IDS", "InputError", "NoiseAwarePosterior", "noise_aware_posterior", "PrivacyLoss",
    "SizeError", "candidates", "concrete_epsilon",
    "distance", "get_mechanism", "global_sensitivity", "hellinger", "local_sensitivity", "log_pmf", "posterior",
    "privacy_profile", "sample", "smooth_sensitivity", "smooth_sensitivity_all", "steps", "weight",
]
