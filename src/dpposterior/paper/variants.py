"""Mechanism names in the config: a registry id, optionally with one option after ``~``
(``ehds~calibrated``, ``optimal~average``). Every use in the paper layer goes through :func:`variant`,
which is the registry's parser (:func:`dpposterior.mechanisms.parse_variant`) with the paper's error."""

from __future__ import annotations

from ..errors import InputError
from ..mechanisms import Variant, parse_variant
from .errors import ConfigError


def parsed(name: str) -> Variant:
    """A config mechanism name -> the registry's :class:`~dpposterior.mechanisms.Variant`. The registry refuses
    an unknown id or an option the mechanism does not offer (``ehds~average``) with a one-line
    :class:`ConfigError`."""
    try:
        return parse_variant(name)
    except InputError as exc:
        raise ConfigError(str(exc)) from None


def variant(name: str) -> tuple[str, dict]:
    """A config mechanism name -> (registry id, keyword options): ``"ehds~calibrated"`` ->
    ``("ehds", {"calibrate": True})``; a plain id has no options (refusals: :func:`parsed`)."""
    v = parsed(name)
    return v.mechanism, v.options


def base_id(name: str) -> str:
    """The registry id of a config mechanism name (``ehds~calibrated`` -> ``ehds``)."""
    return variant(name)[0]


def is_calibrated(name: str) -> bool:
    """Whether a config mechanism name is a calibrated variant (``ehds~calibrated``)."""
    return variant(name)[1].get("calibrate", False)
