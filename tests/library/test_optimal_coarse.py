"""The optimal mechanism's LP over a coarser lattice of outputs (k = 4, a symmetric prior, ``worst``, small eps): its
output set against a brute-force transcription, its optimum that of the restricted LP written out by
tests/reference.py (which imports nothing from the library) and never below the whole LP's, a table zero off the set,
invariant and private by the reference, the route each setting takes, no yardstick from its value, and its plan above its recorded
runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import optimal as O

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _coarse(R: list[tuple[int, ...]], step: int) -> list[tuple[int, ...]]:
    """The definition: the members with at least k - 1 counts a multiple of ``step``."""
    return [c for c in R if sum(x % step == 0 for x in c) >= len(c) - 1]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 9), k=st.integers(2, 5), step=st.integers(1, 5))
def test_the_coarse_outputs_are_their_definition(n, k, step):
    """:func:`coarse_outputs` against the definition over R(n), and ``step R(n / step)`` where the step divides n."""
    R = ref.compositions(n, k)
    got = O.coarse_outputs(O.candidates(n, k), step)
    assert [tuple(c) for c in O.candidates(n, k)[got].tolist()] == _coarse(R, step)
    if n % step == 0:
        assert sorted(_coarse(R, step)) == sorted(tuple(step * x for x in c) for c in ref.compositions(n // step, k))


@pytest.mark.parametrize("n, step", [(3, 2), (4, 2), (5, 3), (6, 3)])
@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_the_coarse_lp_reaches_the_restricted_optimum_and_never_the_whole_one(n, step, eps):
    """By orbits over the coarse outputs the LP's optimum is the restricted LP's (the reference's transcription over
    every ``(c, r)``, no orbits: the orbit proof holds on the restricted set), and at least the whole LP's (a
    restriction cannot do better)."""
    a = np.ones(4)
    b = ref.brute(tuple(a), n)
    outputs = [b.index[c] for c in _coarse(b.cands, step)]
    got = O.solve_table(a, n, eps, "worst", orbits=True, step=step)[2]
    assert got == pytest.approx(ref.optimal_lp_value(b, eps, "worst", outputs=outputs), rel=1e-7, abs=1e-10)
    assert got >= O.solve_table(a, n, eps, "worst")[2] - 1e-9


def test_the_coarse_table_is_zero_off_its_outputs_invariant_and_private():
    """Dir(1,1,1,1), n = 7, step 2, eps 0.5: the solved table puts no mass off the coarse outputs; after its repair each
    row is a pmf, ``T(s c, s r) = T(c, r)`` for every permutation ``s``, and every adjacent pair's ratio is at most
    e^eps (the reference's concrete epsilon of a table)."""
    k, n, eps = 4, 7, 0.5
    a = np.ones(k)
    T, lam, _ = O.solve_table(a, n, eps, "worst", orbits=True, step=2)
    R = ref.compositions(n, k)
    assert [tuple(c) for c in O.candidates(n, k).tolist()] == R  # the library's order is the reference's
    off = [i for i, c in enumerate(R) if c not in set(_coarse(R, 2))]
    assert off and np.all(T[:, off] == 0.0)
    P = (1.0 - lam) * T + lam / T.shape[0]
    assert np.allclose(P.sum(axis=1), 1.0, atol=1e-12)
    for img in ref.permutation_images(R):
        assert np.allclose(P[np.ix_(img, img)], P, rtol=1e-9, atol=1e-12)
    assert ref.table_epsilon(R, P.tolist()) <= eps * (1.0 + 1e-12)


def test_each_setting_takes_its_route():
    """Dir(1,1,1,1), ``worst``, eps 0.5: by orbits to n = 12, then the coarser lattice (n = 13: step 2, planned 24.6
    s; n = 15: step 3, 3.9 s; n = 17: step 3, 44.5 s), none at n = 19 and 20 (step 2 and 3 past the limit) nor past
    ``MAX_COARSE_SIZE`` (n = 21, within its plan but without a margin); at eps
    0.75 step 2 only (n = 13, 14, 16); never at eps 1, for ``average``, at Dir(0.5,...) or a prior with fewer
    symmetries, or at k = 3."""
    spec = ReleaseSpec.of("optimal", 0.5)
    m = spec.mechanism
    sym = np.ones(4)
    assert [m.lp_route(n, 4, spec, sym) for n in (12, 13, 15, 17, 18, 19, 20, 21)] == \
        ["orbits", "coarse", "coarse", "coarse", "coarse", None, None, None]
    assert [m.coarse_step(n, 4, spec, sym) for n in (13, 14, 15, 16, 17, 18)] == [2, 2, 3, 2, 3, 3]
    assert m.lp_seconds(13, 4, spec, sym) == pytest.approx(24.6, abs=0.05)
    assert m.lp_seconds(15, 4, spec, sym) == pytest.approx(3.9, abs=0.05)
    assert m.lp_seconds(17, 4, spec, sym) == pytest.approx(44.5, abs=0.05)
    at = ReleaseSpec.of("optimal", 0.75)
    assert [n for n in range(13, 22) if m.lp_route(n, 4, at, sym) == "coarse"] == [13, 14, 16]
    assert {m.coarse_step(n, 4, at, sym) for n in (13, 14, 16)} == {2}
    assert [m.lp_route(n, 4, ReleaseSpec.of("optimal", 0.76), sym) for n in (13, 14, 16)] == [None] * 3
    assert m.lp_route(14, 4, ReleaseSpec.of("optimal", 1.0), sym) is None
    assert m.lp_route(15, 4, ReleaseSpec.of("optimal", 0.5, objective="average"), sym) is None
    assert m.lp_route(15, 4, spec, np.full(4, 0.5)) is None
    assert m.lp_route(15, 4, spec, np.full(4, 5.0)) == "coarse"
    assert m.lp_route(15, 4, spec, np.array([1.0, 1.0, 2.0, 2.0])) is None
    assert m.lp_route(30, 3, spec, np.ones(3)) is None
    assert not m.lp_planned(15, 4, spec, sym) and m.lp_planned(12, 4, spec, sym)


def test_the_coarse_release_is_no_optimum_and_gives_no_yardstick():
    """``optimal`` at Dir(1,1,1,1), n = 15, eps 0.5 (step 3): scanned eps at most eps, its exact worst case its LP's
    value, named ``coarse LP``; no ``lp_optimum`` in its certificate, so ``compare``'s yardstick takes nothing from
    it, and ``is_optimum`` is False, in the pipeline's grids too (the LP's optimum at n = 12 is)."""
    from dpposterior.yardstick import lp_optima

    a = np.ones(4)
    spec = ReleaseSpec.of("optimal", 0.5)
    m = spec.mechanism
    cert = m.certificate(a, 15, spec)
    assert cert["concrete_epsilon"] <= 0.5 and cert["output_step"] == 3 and "lp_optimum" not in cert
    table = O._solved(tuple(a), 15, 0.5, "worst", True, 3)[0]
    assert O._exact_values(a, 15, table)[0] == pytest.approx(cert["coarse_lp_value"], abs=cert["mix"] + 1e-9)
    assert m.remap_name(a, 15, spec) == "coarse LP" and m.release_key(a, 15, spec) is None
    assert lp_optima(a, 15, 0.5, {"optimal (worst)"}) == {}
    assert not m.is_optimum(a, 15, spec) and m.is_optimum(a, 12, spec)
    from dpposterior.paper.beyond import _is_optimum  # the pipeline's grids: no optimum's row at n = 15

    assert not _is_optimum("optimal~worst", spec, a, 15) and _is_optimum("optimal~worst", spec, a, 12)


def test_the_plan_holds_every_recorded_run_and_the_route_beats_the_lattice_release():
    """Each run of ``benchmarks/optimal_coarse_k4.json`` on the route (``coarse``; n = 21 when it was): its CPU s and
    peak memory below the plan, its scanned eps at most eps, its table's worst case its LP's value (within the
    repair's mixing); and below the lattice release's exact worst case wherever that was computed.  The runs off the route (``forced``, a step the route does not take there) record
    why the constants stop where they do: at least one above the lattice release."""
    runs = json.loads((BENCH / "optimal_coarse_k4.json").read_text())["runs"]
    on = [r for r in runs if r.get("route") == "coarse"]
    assert len(on) >= 8
    for r in on:
        eps = float(r["cell"].split(":")[2])
        assert r["rc"] == 0 and r["cpu_seconds"] <= r["planned_s"], r["cell"]
        n = int(r["cell"].split(":")[1])
        assert r["peak_mb"] * 2**20 <= O.orbit_lp_bytes(n, 4, O.coarse_size(n, 4, r["step"])), r["cell"]
        assert r["certificate"]["concrete_epsilon"] <= eps
        # within the repair's mixing (at eps 0.01, n = 13 the solver's table needed 8.8e-4 of it)
        assert r["worst"] == pytest.approx(r["certificate"]["coarse_lp_value"], abs=r["certificate"]["mix"] + 1e-9)
        if "worst" in r["lattice"]:
            assert r["worst"] < r["lattice"]["worst"], r["cell"]
    forced = [r for r in runs if r.get("route") == "forced" and "worst" in r["lattice"]]
    assert any(r["worst"] > r["lattice"]["worst"] for r in forced)
