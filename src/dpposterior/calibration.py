"""Calibrated exponential mechanisms (docs/definitions.md §9, Calibration): the validated entry point.

The calibration itself (the factor ``kappa*``, its search and certificate) lives with the
mechanisms, :mod:`dpposterior.mechanisms.calibrated`; this module validates a request.
"""

from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from .errors import InputError
from .mechanisms import ReleaseSpec
from .mechanisms.calibrated import Calibration, calibrate
from .validate import prior as _prior
from .validate import size as _size


def calibration(mechanism, prior: ArrayLike, n: int, **settings: Any) -> Calibration:
    """Validated :func:`calibrate`: the calibrated factor ``kappa*`` and certified concrete eps (docs/definitions.md §9).

    ``mechanism`` and ``settings``: a mechanism id and the settings of :meth:`~dpposterior.mechanisms.ReleaseSpec.of`,
    or one :class:`~dpposterior.mechanisms.ReleaseSpec`."""
    params = ReleaseSpec.given(mechanism, **settings)
    mech = params.entry
    if not mech.calibratable:
        raise InputError(f"--calibrate applies to the exponential mechanisms only, not {mech.id!r}")
    a = _prior(prior)
    n = _size(n)
    return calibrate(mech, a, n, params)
