"""Which claimed privacy guarantees hold by construction (the one place the claims read it).

Read from each registry entry's :class:`~dpposterior.mechanisms.Guarantee` (docs/mechanisms.md): a textbook
theorem, or post-processing of an entry whose guarantee is one, holds by construction, so a passing
"concrete eps <= claimed" row of such a release is an implementation check.  A draft's theorem not proven
here, an exact computation (the calibrated variants) or no claim does not.
"""

from __future__ import annotations

from ...errors import InputError
from ...mechanisms import calibrated, parse_variant


def by_construction(name: str) -> bool:
    """Whether the release ``name`` (a mechanism id or variant name) claims a guarantee that holds by construction."""
    variant = parse_variant(name)
    mechanism = calibrated(variant.entry) if variant.calibrate else variant.entry
    return mechanism.guarantee.by_construction


#: The drafts by the seed number a registry entry's guarantee reference cites them with (docs/catalogue.md).
_DRAFT_NAMES = {"004": "arXiv draft", "000": "workshop draft", "001": "sketch", "003": "algorithm note"}


def citation(name: str) -> str:
    """The draft theorem the release ``name`` claims its guarantee from, as the claims cite a draft (``"arXiv draft
    Lemma 5.6"``), or '' when the guarantee is not a draft's claim (a textbook theorem, an exact computation, none):
    a row checking a draft's guarantee then names whose claim it checks."""
    try:
        variant = parse_variant(name)
    except InputError:  # not a registry release (a constructed table's name): no draft to cite
        return ""
    g = (calibrated(variant.entry) if variant.calibrate else variant.entry).guarantee
    if str(g.proof) != "draft claim":
        return ""
    code, _, ref = g.reference.partition(" ")
    return f"{_DRAFT_NAMES[code]} {ref}" if code in _DRAFT_NAMES and ref else ""
