"""The optimal mechanism's LP by orbits (k >= 4, a symmetric prior): the whole LP's optimum at the sizes where both
run, an invariant table, a table private by an oracle that imports nothing from the library, the route each
(prior, n) takes, and its plan above its recorded runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import reference as ref
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import optimal as O

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.parametrize("k, n, prior", [(4, 3, (1.0, 1.0, 1.0, 1.0)), (4, 4, (1.0, 1.0, 1.0, 1.0)),
                                         (4, 3, (0.5, 0.5, 0.5, 0.5)), (5, 2, (1.0,) * 5)])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("objective", ["worst", "average"])
def test_the_lp_by_orbits_has_the_whole_lp_s_optimum(k, n, prior, eps, objective):
    """Where the whole LP runs, the LP over invariant tables reaches its optimum (to HiGHS's tolerance): the
    symmetrised optimum is feasible and as good (the module docstring's proof)."""
    a = np.array(prior)
    whole = O.solve_table(a, n, eps, objective)[2]
    orbit = O.solve_table(a, n, eps, objective, orbits=True)[2]
    assert orbit == pytest.approx(whole, rel=1e-7, abs=1e-10)


def test_the_table_by_orbits_is_invariant_and_private():
    """The table by orbits at Dir(1,1,1,1), n = 6, eps = 1 after its repair: each row a pmf, ``T(s c, s r) = T(c,
    r)`` for every permutation ``s``, and every adjacent pair's ratio at most e^eps (tests/reference.py, which
    imports nothing from the library)."""
    k, n, eps = 4, 6, 1.0
    a = np.ones(k)
    T, lam, _ = O.solve_table(a, n, eps, "worst", orbits=True)
    P = (1.0 - lam) * T + lam / T.shape[0]
    R = ref.compositions(n, k)  # lexicographic: the library's candidate order (checked next)
    assert [tuple(c) for c in O.candidates(n, k).tolist()] == R
    assert np.allclose(P.sum(axis=1), 1.0, atol=1e-12)
    for img in ref.permutation_images(R):
        assert np.allclose(P[np.ix_(img, img)], P, rtol=1e-9, atol=1e-12)
    assert ref.table_epsilon(R, P.tolist()) <= eps * (1.0 + 1e-12)


def test_each_prior_and_n_takes_its_route():
    """Dir(1,1,1,1): the whole LP to n = 5 (as before), by orbits from n = 6 to 12 (n = 12 planned at 28.1 s, n = 13
    at 58.7 s over the default 45 s), none from n = 13; a prior with fewer symmetries or k = 3 never by orbits (the
    lattice release past the whole LP), nor k = 5; without the prior, the whole LP only."""
    spec = ReleaseSpec.of("optimal", 1.0)
    m = spec.mechanism
    sym = np.ones(4)
    assert [m.lp_route(n, 4, spec, sym) for n in (5, 6, 12, 13)] == ["whole", "orbits", "orbits", None]
    assert m.lp_seconds(12, 4, spec, sym) == pytest.approx(28.1, abs=0.05)
    assert O.orbit_lp_seconds(13, 4, 24) == pytest.approx(58.7, abs=0.05)
    assert m.lp_route(8, 4, spec, np.array([1.0, 1.0, 2.0, 2.0])) is None
    assert m.lp_route(8, 4, spec) is None
    assert m.lp_route(20, 3, spec, np.ones(3)) is None
    assert m.lp_route(6, 5, spec, np.ones(5)) is None  # k = 5: its plan not measured (optimal.ORBIT_K)
    assert m.uses_lattice(sym, 13, spec) and not m.uses_lattice(sym, 8, spec)


def test_the_release_by_orbits_is_the_lp_s_optimum_end_to_end():
    """``optimal`` at Dir(1,1,1,1), n = 8, eps = 1 (past the whole LP): the certificate's scanned eps at most eps,
    the exact worst case over R(n) the LP's optimum (within the repair's mixing), and a noise-aware posterior
    summing over its rows."""
    a = np.ones(4)
    spec = ReleaseSpec.of("optimal", 1.0)
    m = spec.mechanism
    cert = m.certificate(a, 8, spec)
    assert cert["concrete_epsilon"] <= 1.0
    table = O._solved(tuple(a), 8, 1.0, "worst", True)[0]
    worst, _ = O._exact_values(a, 8, table)
    assert worst == pytest.approx(cert["lp_optimum"], abs=cert["mix"] + 1e-9)
    assert m.release_key(a, 8, spec) is None and m.remap_name(a, 8, spec) is None  # the table, not the lattice


def test_the_plan_holds_every_recorded_run():
    """Each run of ``benchmarks/optimal_orbits_k4.json`` (the solve, repair, scan and check in a process of its own):
    route ``orbits``, its CPU s below the plan (:func:`~dpposterior.mechanisms.optimal.orbit_lp_seconds`), its
    scanned eps at most eps and its table's error its objective's optimum (within 1e-6)."""
    runs = json.loads((BENCH / "optimal_orbits_k4.json").read_text())["runs"]
    assert len(runs) >= 20
    for r in runs:
        _, _, eps, objective = r["cell"].split(":")
        assert r["rc"] == 0 and r["route"] == "orbits", r["cell"]
        assert r["cpu_seconds"] <= r["planned_s"], r["cell"]
        assert r["certificate"]["concrete_epsilon"] <= float(eps)
        assert r[objective] == pytest.approx(r["certificate"]["lp_optimum"], abs=1e-6), r["cell"]
