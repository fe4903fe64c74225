"""The window's minimax remap keeps the errors its solve computed (dpposterior.lattice.remap.Remap.errors), and the
lattice release's exact errors read them: the same floats as computing them again on the same setup."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize("prior, n, eps", [((1.0, 1.0, 1.0), 4, 1.0), ((0.5, 2.0, 1.0), 3, 2.0)])
def test_the_kept_errors_are_the_errors_of_the_remap(prior, n, eps):
    from dpposterior.lattice.remap import LatticeSetup, minimax_remap

    setup = LatticeSetup.trusted(np.asarray(prior), n, eps, 1e-9)
    remap = minimax_remap(setup)
    again = setup.errors(remap)
    assert remap.errors is not None
    assert np.array_equal(remap.errors.high, again.high) and np.array_equal(remap.errors.low, again.low)
    assert remap.certificate["upper"] == again.worst[1]


def test_the_release_reports_the_kept_errors():
    """``lattice~worst`` on its window: the errors of its plan's route are the minimax remap's kept errors, bit for
    bit those of its table computed afresh."""
    from dpposterior.accuracy import expected_errors
    from dpposterior.lattice.remap import LatticeSetup
    from dpposterior.mechanisms import lattice as lat
    from dpposterior.mechanisms.spec import ReleaseSpec
    from dpposterior.paper.variants import parsed

    prior, n, eps = (1.0, 1.0, 1.0), 5, 1.0
    e = expected_errors(ReleaseSpec.of(parsed("lattice~worst"), eps, 1e-8), list(prior), n)
    remap = lat._remap(prior, n, eps, "worst")
    fresh = LatticeSetup.trusted(np.asarray(prior), n, eps, lat.DEFAULT_TOL).errors(remap)
    assert np.array_equal(np.asarray(e.expected), fresh.high)
