"""`dpposterior release` names the remap a lattice release read (its JSON's ``"remap"``, a ``remap:`` line), chosen
from public prior, n, k, eps and objective only: at k = 4, eps 0.5 ``worst`` reads the corner remap up to n = 25
and, past the corner solve's plan (``mechanisms.lattice.corners_fit``), the local Bayes remap."""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms.lattice import LATTICE

from .helpers import run, run_json

#: the draw plan's route of each remap name
ROUTE = {"bayes": "window remap", "minimax": "window remap", "corner minimax": "corner remap",
         "face table": "face table", "local search": "local search"}


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("objective", ["worst", "average"])
def test_the_name_is_the_draws_route(k, objective):
    """The name is the route a padded draw plans (the same tests, from public inputs), at every cell of a grid that
    meets each route; at k = 4, eps 0.5 ``worst`` leaves the corner remap past n = 25."""
    a = np.ones(k)
    for n in (3, 10, 20, 25, 30, 50, 100, 1000):
        for eps in (0.5, 1.0, 2.0):
            spec = ReleaseSpec.of("lattice", eps, objective=objective)
            name = LATTICE.remap_name(a, n, spec)
            assert ROUTE[name] == LATTICE.plan_draw(a, n, spec).route, (k, n, eps, objective)
            if name in ("bayes", "minimax"):
                assert name == ("bayes" if objective == "average" else "minimax")
    worst = ReleaseSpec.of("lattice", 0.5, objective="worst")
    assert LATTICE.remap_name(np.ones(4), 25, worst) == "corner minimax"
    assert LATTICE.remap_name(np.ones(4), 30, worst) == "local search"


@pytest.mark.parametrize("k, n, eps, objective", [(3, 3, 1.0, "worst"), (3, 3, 1.0, "average"),
                                                  (3, 100, 1.0, "average"), (4, 100, 0.5, "worst")])
def test_the_name_is_the_certificates(k, n, eps, objective):
    spec = ReleaseSpec.of("lattice", eps, objective=objective)
    assert LATTICE.remap_name(np.ones(k), n, spec) == LATTICE.certificate(np.ones(k), n, spec)["remap"]


def test_release_json_and_text_name_the_remap(capsys):
    """Past the corner solve's plan (k = 4, n = 100, eps 0.5) ``worst`` reads the local Bayes remap, with ``lattice``
    and ``optimal`` alike; k = 3, n = 30, eps 2 the corner remap; a release with no lattice remap says null and prints
    no line."""
    base = ["release", "--epsilon", "0.5", "--seed", "1"]
    k4 = ["--prior", "1,1,1,1", "--counts", "30,20,25,25"]
    for mech in ("lattice", "optimal"):
        got = run_json(capsys, *base, *k4, "--mechanism", mech)
        assert got["remap"] == "local search" and got["objective"] == "worst", mech
    code, out, _ = run(capsys, *base, *k4, "--mechanism", "lattice")
    assert code == 0 and "remap: local search (the local Bayes remap at the drawn point)" in out.splitlines()
    k3 = ["release", "--prior", "1,1,1", "--counts", "10,10,10", "--mechanism", "lattice", "--epsilon", "2",
          "--seed", "1"]
    assert run_json(capsys, *k3)["remap"] == "corner minimax"
    code, out, _ = run(capsys, *k3)
    assert code == 0 and any(line.startswith("remap: corner minimax (") for line in out.splitlines())
    for flags in (["--prior", "1,1", "--counts", "4,6", "--mechanism", "optimal"],
                  ["--prior", "1,1,1,1", "--counts", "30,20,25,25", "--mechanism", "geometric"]):
        assert run_json(capsys, *base, *flags)["remap"] is None, flags
        code, out, _ = run(capsys, *base, *flags)
        assert code == 0 and not any(line.startswith("remap:") for line in out.splitlines()), flags


def test_the_name_is_the_same_for_any_counts(capsys):
    """The name reads no count: two data sets of one n give one name (it is a function of public inputs)."""
    base = ["release", "--prior", "1,1,1,1", "--mechanism", "lattice", "--epsilon", "0.5", "--seed", "2"]
    names = {run_json(capsys, *base, "--counts", c)["remap"] for c in ("97,1,1,1", "25,25,25,25")}
    assert names == {"local search"}
