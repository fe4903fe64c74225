"""Which claimed privacy guarantees hold by construction (the one place the claims read it).

Read from each registry entry's :class:`~dpposterior.mechanisms.Guarantee` (docs/mechanisms.md): a textbook
theorem, or post-processing of an entry whose guarantee is one, holds by construction, so a passing
"concrete eps <= claimed" row of such a release is an implementation check.  A draft's theorem not proven
here, an exact computation (the calibrated variants) or no claim does not.
"""

from __future__ import annotations

from ...mechanisms import calibrated, parse_variant


def by_construction(name: str) -> bool:
    """Whether the release ``name`` (a mechanism id or variant name) claims a guarantee that holds by construction."""
    variant = parse_variant(name)
    mechanism = calibrated(variant.entry) if variant.calibrate else variant.entry
    return mechanism.guarantee.by_construction
