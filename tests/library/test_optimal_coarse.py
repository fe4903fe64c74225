"""The optimal mechanism's LP over a coarser lattice of outputs (k = 4, a symmetric prior, ``worst``, small eps): its
output set against a brute-force transcription, its optimum that of the restricted LP written out here (by an oracle
that imports nothing from the library) and never below the whole LP's, a table zero off the set, invariant and
private by the oracle, the route each setting takes, no yardstick from its value, and its plan above its recorded
runs."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.special import gammaln

from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import optimal as O

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _data_sets(n: int, k: int) -> list[tuple[int, ...]]:
    """Every count vector of k categories summing to n, in lexicographic order (the oracle's own enumeration)."""
    return sorted(c for c in itertools.product(range(n + 1), repeat=k) if sum(c) == n)


def _coarse(R: list[tuple[int, ...]], step: int) -> list[tuple[int, ...]]:
    """The definition: the members with at least k - 1 counts a multiple of ``step``."""
    return [c for c in R if sum(x % step == 0 for x in c) >= len(c) - 1]


def _hellinger(a: np.ndarray, c, r) -> float:
    """Hellinger distance between Dir(a + c) and Dir(a + r), from the Dirichlet's normaliser."""
    def log_b(x):
        return float(np.sum(gammaln(x)) - gammaln(np.sum(x)))
    x, y = a + np.array(c, dtype=float), a + np.array(r, dtype=float)
    return math.sqrt(max(0.0, 1.0 - math.exp(log_b((x + y) / 2) - (log_b(x) + log_b(y)) / 2)))


def _restricted_lp(a: np.ndarray, n: int, eps: float, step: int) -> float:
    """min_T max_c sum_r T(c, r) H(c, r) over eps-DP tables with T(c, r) = 0 for r off the coarse set, written out
    over every (c, r) (no orbits)."""
    k = a.size
    R = _data_sets(n, k)
    G = _coarse(R, step)
    N, M = len(R), len(G)
    idx = {c: i for i, c in enumerate(R)}
    nv = N * M + 1
    rows, b = [], []
    for c in R:  # DP: T(c, r) <= e^eps T(c', r) for every adjacent ordered pair and output
        for i, j in itertools.permutations(range(k), 2):
            if c[i] == 0:
                continue
            d = list(c)
            d[i] -= 1
            d[j] += 1
            for g in range(M):
                row = np.zeros(nv)
                row[idx[c] * M + g] = 1.0
                row[idx[tuple(d)] * M + g] = -math.exp(eps)
                rows.append(row)
                b.append(0.0)
    for c in R:  # the error of row c at most t
        row = np.zeros(nv)
        row[idx[c] * M:(idx[c] + 1) * M] = [_hellinger(a, c, r) for r in G]
        row[-1] = -1.0
        rows.append(row)
        b.append(0.0)
    A_eq = np.zeros((N, nv))
    for i in range(N):
        A_eq[i, i * M:(i + 1) * M] = 1.0
    cost = np.zeros(nv)
    cost[-1] = 1.0
    res = linprog(cost, A_ub=np.array(rows), b_ub=np.array(b), A_eq=A_eq, b_eq=np.ones(N), bounds=(0, None),
                  method="highs")
    assert res.status == 0
    return float(res.fun)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 9), k=st.integers(2, 5), step=st.integers(1, 5))
def test_the_coarse_outputs_are_their_definition(n, k, step):
    """:func:`coarse_outputs` against the definition over R(n), and ``step R(n / step)`` where the step divides n."""
    R = _data_sets(n, k)
    got = O.coarse_outputs(O.candidates(n, k), step)
    assert [tuple(c) for c in O.candidates(n, k)[got].tolist()] == _coarse(R, step)
    if n % step == 0:
        assert sorted(_coarse(R, step)) == sorted(tuple(step * x for x in c) for c in _data_sets(n // step, k))


@pytest.mark.parametrize("n, step", [(4, 2), (5, 2), (6, 3)])
@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_the_coarse_lp_reaches_the_restricted_optimum_and_never_the_whole_one(n, step, eps):
    """By orbits over the coarse outputs the LP's optimum is the restricted LP's written out here (the orbit proof
    holds on the restricted set), and at least the whole LP's (a restriction cannot do better)."""
    a = np.ones(4)
    got = O.solve_table(a, n, eps, "worst", orbits=True, step=step)[2]
    assert got == pytest.approx(_restricted_lp(a, n, eps, step), rel=1e-7, abs=1e-10)
    assert got >= O.solve_table(a, n, eps, "worst")[2] - 1e-9


def test_the_coarse_table_is_zero_off_its_outputs_invariant_and_private():
    """Dir(1,1,1,1), n = 7, step 2, eps 0.5: the solved table puts no mass off the coarse outputs; after its repair each
    row is a pmf, ``T(s c, s r) = T(c, r)`` for every permutation ``s``, and every adjacent pair's ratio is at most
    e^eps (the oracle's own adjacency)."""
    k, n, eps = 4, 7, 0.5
    a = np.ones(k)
    T, lam, _ = O.solve_table(a, n, eps, "worst", orbits=True, step=2)
    R = _data_sets(n, k)
    index = {c: i for i, c in enumerate(R)}
    off = [index[c] for c in R if c not in set(_coarse(R, 2))]
    assert off and np.all(T[:, off] == 0.0)
    P = (1.0 - lam) * T + lam / T.shape[0]
    assert np.allclose(P.sum(axis=1), 1.0, atol=1e-12)
    for perm in itertools.permutations(range(k)):
        img = np.array([index[tuple(c[p] for p in perm)] for c in R])
        assert np.allclose(P[np.ix_(img, img)], P, rtol=1e-9, atol=1e-12)
    worst = 0.0
    for c in R:
        for i, j in itertools.permutations(range(k), 2):
            if c[i] == 0:
                continue
            d = list(c)
            d[i] -= 1
            d[j] += 1
            worst = max(worst, float(np.max(np.log(P[index[c]]) - np.log(P[index[tuple(d)]]))))
    assert worst <= eps * (1.0 + 1e-12)


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
