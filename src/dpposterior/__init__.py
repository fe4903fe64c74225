"""dpposterior: differentially private Bayesian inference tailored to the Hellinger distance.

The science lives in one module per concept of docs/definitions.md: :mod:`~dpposterior.models`,
:mod:`~dpposterior.distances`, :mod:`~dpposterior.sensitivity`,
:mod:`~dpposterior.mechanisms`, :mod:`~dpposterior.privacy` (exact loss).
"""

from .distances import distance, hellinger
from .errors import InputError, SizeError
from .mechanisms import MECHANISM_IDS, MECHANISMS, get_mechanism, log_pmf, sample, weight
from .posterior import NoiseAwarePosterior, noise_aware_posterior
from .models import candidates, posterior, steps  # after .posterior: the name is the function, not the module
from .privacy import PrivacyLoss, concrete_epsilon, privacy_profile
from .sensitivity import global_sensitivity, local_sensitivity, smooth_sensitivity, smooth_sensitivity_all

__version__ = "0.1.0"

__all__ = [
    "MECHANISMS", "MECHANISM_IDS", "InputError", "NoiseAwarePosterior", "noise_aware_posterior", "PrivacyLoss",
    "SizeError", "candidates", "concrete_epsilon",
    "distance", "get_mechanism", "global_sensitivity", "hellinger", "local_sensitivity", "log_pmf", "posterior",
    "privacy_profile", "sample", "smooth_sensitivity", "smooth_sensitivity_all", "steps", "weight",
]
