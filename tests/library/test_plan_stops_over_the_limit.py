"""A k = 3 local column's plan that is over the solve limit stops costing its family of releases
(``lattice.family_stop``): its seconds are then a lower end (``Plan.at_least``), its refusal says so in one line, it
is never admitted (not even after the limit is raised), and a plan that fits still costs every release."""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior.errors import SizeError
from dpposterior.limits import Task, admit
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L
from dpposterior.noise_aware import plan_posterior

#: Dir(1,1,1), eps 1, n = 300, average: the family is costed (``family_costed``) and the plan fits (~5 s planned)
CELL = dict(n=300, epsilon=1.0)


def _plan():
    """The plan as made, not admitted (``plan_posterior`` admits it)."""
    spec = ReleaseSpec.of("lattice", CELL["epsilon"], objective="average")
    return spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(3), CELL["n"])


def _solve(plan) -> float:
    return max(amount for name, amount in plan.costs if name == "DPPOSTERIOR_MAX_SOLVE_SECONDS")


def test_the_cell_costs_its_family():
    assert L.family_costed(CELL["n"], 3, CELL["epsilon"])


def test_a_plan_that_fits_costs_every_release(monkeypatch):
    default = _plan()
    assert default.fits and not default.at_least
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1e5")
    raised = _plan()
    assert not raised.at_least
    assert (raised.seconds, raised.costs) == (default.seconds, default.costs)


@pytest.mark.parametrize("share", [0.05, 0.9])
def test_a_plan_over_the_limit_stops_and_says_at_least(monkeypatch, share):
    full = _plan()
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", f"{share * _solve(full):.6g}")
    cut = _plan()
    assert cut.at_least and not cut.fits
    assert _solve(cut) <= _solve(full) and cut.seconds <= full.seconds
    assert _solve(cut) > share * _solve(full) * (1 - 1e-6)  # it stopped over the limit, not before
    with pytest.raises(SizeError) as err:
        plan_posterior("lattice", np.ones(3), CELL["n"], epsilon=CELL["epsilon"], objective="average")
    line = str(err.value)
    assert "\n" not in line and "would take at least" in line and "(local column: at least" in line
    assert "DPPOSTERIOR_MAX_SOLVE_SECONDS" in line


def test_a_plan_cut_short_is_refused_after_the_limit_is_raised(monkeypatch):
    full = _plan()
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", f"{0.5 * _solve(full):.6g}")
    cut = _plan()
    assert cut.at_least
    monkeypatch.delenv("DPPOSTERIOR_MAX_SOLVE_SECONDS")
    line = cut.refused()
    assert line and "\n" not in line and "plan it again" in line
    with pytest.raises(SizeError, match="plan it again"):
        admit(cut)


def test_a_plan_over_the_limit_on_the_centre_alone_skips_the_releases_off_the_centre(monkeypatch):
    """k = 3, eps 0.1, n = 500 (worst): the centre's own kept points are over the limit, so neither the releases off
    the centre (``_sampled_release_off``) nor the family are sampled; with the limit raised they are."""

    def boom(*args, **kwargs):
        raise AssertionError("sampled")

    monkeypatch.setattr(L, "_sampled_release_off", boom)
    monkeypatch.setattr(L, "_sampled_release_family", boom)
    spec = ReleaseSpec.of("optimal", 0.1, objective="worst")
    plan = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(3), 500)
    assert plan.at_least and "would take at least" in plan.refused()
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "1e5")
    with pytest.raises(AssertionError, match="sampled"):
        spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(3), 500)
