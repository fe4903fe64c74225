"""The config's mechanism names (dpposterior.paper.variants): the registry's parser with the paper's error."""

from __future__ import annotations

import pytest

from dpposterior.paper.errors import ConfigError
from dpposterior.paper.variants import variant


def test_variant_names():
    assert variant("ehds") == ("ehds", {})
    assert variant("ehds~calibrated") == ("ehds", {"calibrate": True})
    assert variant("optimal~average") == ("optimal", {"objective": "average"})
    for bad in ("nope", "ehds~fast", "~calibrated"):
        with pytest.raises(ConfigError, match="unknown mechanism"):
            variant(bad)
