"""The one error of the paper layer: a config value the schema accepts but the pipeline cannot use."""

from __future__ import annotations


class ConfigError(ValueError):
    """A config value the schema accepts but the pipeline cannot use; the message names the key."""


def config_error(key: str, msg: str):
    raise ConfigError(f"config error at '{key}': {msg}")
