"""What a release guarantees, in words, and the honest warnings about its settings.

:class:`PrivacyWarning` is raised through :mod:`warnings` by :func:`dpposterior.padding`; the command
line prints the same text as one line ``dpposterior: warning: ...`` on stderr.  Every warning here is
a function of the *settings* only (mechanism, variant, epsilon, delta, whether a seed was given, whether
delta was given): never of the data, so that a warning cannot reveal anything about it.
"""

from __future__ import annotations

from .mechanisms import ReleaseSpec

__all__ = ["SEEDED_WARNING", "PrivacyWarning", "claim", "guarantee_text", "setting_warnings"]


#: The warning of every seeded release.
SEEDED_WARNING = ("a seeded release is not private: anyone who knows the seed can remove the noise "
                  "(seeds are for reproducing experiments)")


class PrivacyWarning(UserWarning):
    """A release's settings give less privacy than they seem to (seeded, no guarantee, weaker than eps asked,
    or a setting the mechanism ignores)."""


def claim(spec: ReleaseSpec) -> tuple[float | None, float | None]:
    """The ``(epsilon, delta)`` the release claims (its mechanism's privacy map, docs/definitions.md §4):
    ``(None, None)`` when it claims no privacy."""
    return spec.claimed()


def guarantee_text(spec: ReleaseSpec, seeded: bool = False) -> str:
    """The release's guarantee in a few words: ``"1-DP"``, ``"(1, 1e-08)-DP"``, ``"none"``; a seeded release
    adds ``"(seeded: not private)"`` (docs/definitions.md §4)."""
    eps, delta = claim(spec)
    text = "none" if eps is None else (f"({eps:g}, {delta:g})-DP" if delta else f"{eps:g}-DP")
    return text + (" (seeded: not private)" if seeded else "")


def setting_warnings(spec: ReleaseSpec, *, seeded: bool, delta_given: bool) -> list[str]:
    """The warnings a release with these settings deserves, one line each (settings only, never data)."""
    out = []
    if seeded:
        out.append(SEEDED_WARNING)
    mech, params = spec.mechanism, spec
    eps, delta = claim(spec)
    if eps is None:
        out.append(f"mechanism {mech.id!r} has no privacy guarantee (a baseline, not differentially private); "
                   "calibrate it (--calibrate, calibrate=True) or use another mechanism")
    elif eps > params.epsilon * (1 + 1e-12):
        out.append(f"mechanism {mech.id!r} guarantees only {eps:g}-DP at epsilon {params.epsilon:g}, "
                   "weaker than the epsilon asked; calibrate (--calibrate, calibrate=True) for a certified epsilon")
    if delta_given and eps is not None and not delta:
        out.append(f"mechanism {mech.id!r} is pure epsilon-DP and ignores the delta given")
    return out
