"""The one error of the paper layer: a config value the schema accepts but the pipeline cannot use."""

from __future__ import annotations

from ..errors import shown_name


class ConfigError(ValueError):
    """A config value the schema accepts but the pipeline cannot use; the message names the key."""


def config_error(key: str, msg: str):
    """Raise the one-line :class:`ConfigError` naming ``key``; the key (a name from the config file) and the
    message are printed escaped (:func:`dpposterior.errors.shown_name`): a control character in a config key
    can neither split the line nor drive the terminal."""
    raise ConfigError(f"config error at '{shown_name(key)}': {shown_name(msg)}")
