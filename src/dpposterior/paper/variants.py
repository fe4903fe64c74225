"""Mechanism names in the config: a registry id, optionally with one option after ``~``
(``ehds~calibrated``, ``optimal~average``). Every use in the paper layer goes through :func:`variant`."""

from __future__ import annotations

from ..mechanisms import MECHANISM_IDS
from .errors import ConfigError

#: options a config mechanism name may carry after "~": ``ehds~calibrated``, ``optimal~average``
VARIANT_OPTIONS = {"calibrated": {"calibrate": True}, "worst": {"objective": "worst"},
                   "average": {"objective": "average"}}


# integration: use the registry's Variant parser
def variant(name: str) -> tuple[str, dict]:
    """A config mechanism name -> (registry id, keyword options): ``"ehds~calibrated"`` ->
    ``("ehds", {"calibrate": True})``; a plain id has no options. The registry entry validates them."""
    base, _, opt = name.partition("~")
    if base not in MECHANISM_IDS or (opt and opt not in VARIANT_OPTIONS):
        raise ConfigError(f"unknown mechanism {name!r}; use a registry id ({', '.join(MECHANISM_IDS)}), "
                          f"optionally with ~{' / ~'.join(VARIANT_OPTIONS)}")
    return base, dict(VARIANT_OPTIONS.get(opt, {}))


def base_id(name: str) -> str:
    """The registry id of a config mechanism name (``ehds~calibrated`` -> ``ehds``)."""
    return variant(name)[0]


def is_calibrated(name: str) -> bool:
    """Whether a config mechanism name is a calibrated variant (``ehds~calibrated``)."""
    return variant(name)[1].get("calibrate", False)
