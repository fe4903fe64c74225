"""The k = 3 three-corner LP by the dual simplex (:func:`dpposterior.lattice.corners.corner_lp_method`,
:func:`~dpposterior.lattice.corners.joint_simplex`) and its plan (:data:`~dpposterior.mechanisms.lattice.
CORNER_SIMPLEX_SECONDS`), the implied constraints dropped before the interior point
(:func:`~dpposterior.lattice.corners.implied_constraints`, :func:`~dpposterior.lattice.corners.drops_implied`,
:data:`~dpposterior.mechanisms.lattice.CORNER_IMPLIED_SECONDS`), held to the runs of ``benchmarks/corner_lp_k3.json``
and ``benchmarks/corner_lp_h71.json`` (``benchmarks/corner_lp_k3.py``: the tree before and this tree side by side).

* The rule is the definition: the three-corner LP (k = 3, eps < 1, corners not apart) with more constraints than free
  rows, counted on the sets the solve builds.
* Recorded runs (the tree before by the interior point, this tree by the dual simplex where the rule holds): the
  LP's ``t`` and the release's exact worst case equal to the tree before's within the LP's tolerance at every cell,
  every recorded lower bound below them, and this tree's plan above each run (CPU s and peak bytes) and at most
  :data:`MOST_OVER` x it.
* The implied constraints: the mask against its definition (``reference.implied_rows``) and the proof's claim at
  random remaps; a small LP with and without them (the same ``t``, worst case and valid bounds)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.lattice import corners
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L

ROOT = pathlib.Path(__file__).resolve().parents[2]
_RECORDS = [ROOT / "benchmarks" / "corner_lp_k3.json", ROOT / "benchmarks" / "corner_lp_h71.json",
            ROOT / "benchmarks" / "corner_lp_h72.json"]


def _rows() -> list[dict]:
    """The recorded cells, a later record's row replacing an earlier one's (``corner_lp_h71.json``: the implied
    constraints dropped where the interior point runs)."""
    rows: dict[str, dict] = {}
    for path in _RECORDS:
        if path.exists():
            rows |= {r["cell"]: r for r in json.loads(path.read_text(encoding="utf-8"))["rows"]}
    return list(rows.values())


ROWS = _rows()
#: a plan at most this many times its run's CPU s (2.5: the dual bound's cells, eps 0.5, n = 32 to 46, are planned at
#: the floor ``corners_fit``'s own term sets, 41 s, and ``corner_lp_h72.json``'s session ran 1.6x to 1.8x faster than
#: the one before on the same code: n = 40 with the ranges' drop 23.8 s against 37.5 and 42.2 s)
MOST_OVER = 2.5
#: the interpreter with numpy, scipy and the library imported
BASE_MB = 120.0
#: the LP's tolerance on a worst case (its feasibility tolerances 1e-10, the tie-break's weight 1e-4 on the average)
WORST_TOL = 1e-6


@pytest.mark.parametrize("n,eps,depth", [(30, 0.5, 14), (40, 0.5, 14), (50, 0.5, 14), (100, 0.5, 14),
                                         (50, 0.6, 14), (50, 0.75, 14), (50, 0.9, 14), (28, 0.75, 1),
                                         (20, 0.5, 14), (200, 0.5, 14), (50, 1.0, 10)])
def test_the_rule_is_more_constraints_than_free_rows_of_the_three_corner_lp(n, eps, depth):
    n0 = min(n, corners.reference_n(eps, depth))
    _, _, _, Fz, A, _, _, _ = corners._regions(3, n0, eps, depth)
    joint = eps < 1.0 and not corners.corners_apart(n0, 3, eps, depth)
    assert corners.joint_simplex(3, n0, eps, depth) == (joint and len(A) > len(Fz))
    assert corners.corner_lp_method(3, n0, eps, depth, 10**7, 10**4)[0] == (
        "highs-ds" if joint and len(A) > len(Fz) else "highs-ipm")


def test_the_recorded_cells_are_the_ones_measured():
    cells = {r["cell"] for r in ROWS}
    assert {"0.5:30", "0.5:40", "0.5:50", "0.5:70", "0.5:100", "0.5:150", "0.6:50", "0.75:50", "0.5:45", "0.6:45",
            "0.75:45", "0.5:35"} <= cells


def test_the_worst_case_is_the_tree_befores_and_above_its_lower_bound():
    """At every recorded cell (the tree before with its limit raised): the release's exact worst case within the LP's
    tolerance of the tree before's, the LP's t likewise, and every recorded lower bound below both worst cases."""
    for row in ROWS:
        old, new = row["old"], row.get("new_raised", row["new"])
        assert old["rc"] == 0 and new["rc"] == 0, row["cell"]
        assert abs(new["worst"] - old["worst"]) <= WORST_TOL, row["cell"]
        assert abs(new["lp_t"] - old["lp_t"]) <= WORST_TOL, row["cell"]
        for run in (old, new):
            if "lower" in run:
                assert run["lower"] <= min(old["worst"], new["worst"]), row["cell"]


def _misses(monkeypatch) -> list[str]:
    """The recorded runs of this tree whose plan (now) is below the run, or far above it."""
    for name in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MAX_MEMORY_GB"):
        monkeypatch.setenv(name, "1e5" if "SECONDS" in name else "8")
    out = []
    for row in ROWS:
        run, n, eps = row.get("new_raised", row["new"]), row["n"], row["eps"]
        plan = L.LATTICE.plan_draw(np.ones(3), n, ReleaseSpec.of("lattice", eps, objective="worst"))
        if plan.seconds < run["cpu_s"] or plan.seconds > MOST_OVER * run["cpu_s"]:
            out.append(f"{row['cell']}: {plan.seconds:.1f} s planned against {run['cpu_s']} run")
        if plan.memory_bytes < (run["peak_mb"] - BASE_MB) * 2**20:
            out.append(f"{row['cell']}: {plan.memory_bytes / 2**20:.0f} MiB planned < {run['peak_mb']} MB peak")
        solve = L.corner_seconds(n, 3, eps, True)
        if solve < run["solve_s"]:
            out.append(f"{row['cell']}: solve {solve:.1f} s planned against {run['solve_s']} run")
    return out


def test_every_recorded_run_is_within_its_plan_and_not_far_below_it(monkeypatch):
    assert _misses(monkeypatch) == []


@pytest.mark.parametrize("factor", [
    ("CORNER_SIMPLEX_SECONDS", (0.0, 2.0e-6, 1.0)),  # the dual simplex's constant left out
    ("CORNER_SIMPLEX_SECONDS", (11.0, 1.0e-6, 1.0)),  # at half the price
    ("CORNER_JOINT_SECONDS", (4e-9, 1326)),          # the interior point's rate lower: n = 30 under its run
    ("CORNER_IMPLIED_SECONDS", (0.0, 3.2e-6)),       # the dropped LP's constant left out: eps 0.6 under its runs
    ("CORNER_IMPLIED_SECONDS", (5.0, 1.6e-6)),       # at half the price
])
def test_each_term_set_lower_makes_a_recorded_run_miss(monkeypatch, factor):
    name, value = factor
    monkeypatch.setattr(L, name, value)
    assert _misses(monkeypatch), name


def test_the_dual_simplex_plan_is_read_where_the_solve_reads_it(monkeypatch):
    """The plan's rule is the solve's (:func:`~dpposterior.lattice.corners.joint_simplex`): planned as the interior
    point, the recorded dual-simplex cells are far over their runs."""
    monkeypatch.setattr(L, "_corners_simplex", lambda n, k, eps: False)
    assert any("planned against" in m for m in _misses(monkeypatch))


def test_the_releases_law_is_unchanged():
    """Which remap a ``worst`` release reads (:func:`corners_fit`) and the plan it is decided by are the tree
    before's at every recorded cell."""
    for row in ROWS:
        n, eps = row["n"], row["eps"]
        assert L.corners_fit(n, 3, eps) == row["plan_old"]["corners_fit"], row["cell"]


@pytest.mark.parametrize("n", [50, 100, 160])
def test_the_cells_the_dual_simplex_opens_fit_the_default_limits(monkeypatch, n):
    """k = 3, worst, eps 0.5, n = 50 to 160: the padded release's plan within the default solve limit (refused before,
    ~98 s planned, 50 to 86 s run)."""
    for name in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MAX_MEMORY_GB"):
        monkeypatch.delenv(name, raising=False)
    plan = L.LATTICE.plan_draw(np.ones(3), n, ReleaseSpec.of("lattice", 0.5, objective="worst"))
    assert not plan.refused() and plan.seconds <= 45.0


# --- the implied constraints (corners.implied_constraints, corners.joint_interior) ---------------------------------


@st.composite
def _small_lps(draw):
    """A corner LP's constraint data in small: ``b``, dense ``coefs[c, z, r]`` (0 where ``z`` is not near ``c``) and
    ``valid[z, r]`` (at least one output per row)."""
    nc, nz, nr = draw(st.integers(1, 6)), draw(st.integers(1, 5)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    valid = rng.random((nz, nr)) < 0.7
    valid[np.arange(nz), rng.integers(0, nr, nz)] = True
    near = rng.random((nc, nz)) < draw(st.sampled_from([0.3, 0.7, 1.0]))
    coefs = rng.random((nc, nz, nr)) * draw(st.sampled_from([0.1, 1.0])) * near[:, :, None] * valid[None]
    b = rng.random(nc) * draw(st.sampled_from([0.0, 0.5, 2.0]))
    return b, coefs, valid, near


def _pairs(coefs, valid, near):
    """The library's layout: pairs ``(c, z)`` near each other, each with its valid outputs' entries in order."""
    ci, zi = np.nonzero(near)
    coef = np.concatenate([coefs[c, z, valid[z]] for c, z in zip(ci, zi)]) if len(ci) else np.zeros(0)
    return coef, ci, valid.sum(axis=1)[zi]


@settings(max_examples=200, deadline=None)
@given(_small_lps())
def test_implied_constraints_are_the_definitions(lp):
    b, coefs, valid, near = lp
    coef, ci, reps = _pairs(coefs, valid, near)
    if not len(reps):
        return
    got = corners.implied_constraints(b, coef, ci, reps)
    assert got.tolist() == ref.implied_rows(b, coefs.tolist(), valid.tolist())


@settings(max_examples=200, deadline=None)
@given(_small_lps(), st.integers(0, 2**32 - 1))
def test_an_implied_constraint_holds_wherever_the_kept_ones_do(lp, seed):
    """The proof's claim at random remaps: an implied constraint's value is below some kept constraint's, so any ``t``
    the kept ones allow holds it too."""
    b, coefs, valid, near = lp
    coef, ci, reps = _pairs(coefs, valid, near)
    if not len(reps):
        return
    implied = corners.implied_constraints(b, coef, ci, reps)
    assert not implied.all()
    rng = np.random.default_rng(seed)
    for _ in range(20):
        T = rng.random(valid.shape) ** 4 * valid
        T[np.arange(len(T)), np.argmax(valid, axis=1)] += 1e-3 * (rng.random() < 0.5)
        T /= T.sum(axis=1, keepdims=True)
        E = b + np.einsum("czr,zr->c", coefs, T)
        if implied.any():
            assert E[implied].max() < E[~implied].max()


@pytest.mark.parametrize("n,eps,depth", [(30, 0.5, 14), (35, 0.5, 14), (40, 0.5, 14), (45, 0.5, 14), (50, 0.5, 14),
                                         (40, 0.6, 14), (45, 0.6, 14), (45, 0.75, 14), (100, 0.9, 14), (28, 0.75, 1),
                                         (100, 0.5, 14), (40, 0.4, 14), (45, 0.55, 14), (107, 0.5, 14),
                                         (160, 0.5, 14), (120, 0.51, 14), (120, 0.52, 14), (106, 0.5, 14)])
def test_the_drop_rule_is_the_interior_point_on_the_three_corner_lp_in_its_measured_range(n, eps, depth):
    """The rule against its definition on the sets the solve builds: the three-corner LP by the interior point, eps
    0.5 to 0.6, at least 0.49 constraints per free row."""
    n0 = min(n, corners.reference_n(eps, depth))
    _, _, _, Fz, A, _, _, _ = corners._regions(3, n0, eps, depth)
    interior = corners.joint_lp(3, n0, eps, depth) and corners.corner_lp_method(
        3, n0, eps, depth, 10**7, 10**4)[0] == "highs-ipm"
    assert corners.joint_interior(3, n0, eps, depth) == interior
    simplex = corners.joint_lp(3, n0, eps, depth) and len(A) > len(Fz)
    assert corners.drops_implied(3, n0, eps, depth) == ((interior and 0.5 <= eps <= 0.6 and len(A) >= 0.49 * len(Fz))
                                                        or (simplex and 0.5 <= eps <= 0.51 and n0 >= 107))
    assert L._corners_implied(n, 3, eps) == corners.drops_implied(3, n0, eps, depth)


def test_the_drop_rule_holds_at_eps_half_n_32_to_46_and_107_to_160_only():
    assert [n for n in range(10, 200) if L._corners_implied(n, 3, 0.5)] == list(range(32, 47)) + list(range(107, 161))


@pytest.mark.parametrize("eps,n,depth", [(0.75, 14, 1)])
def test_dropping_the_implied_constraints_keeps_the_lps_optimum(monkeypatch, eps, n, depth):
    """A small three-corner LP by the interior point, with and without the implied constraints: the same ``t`` and
    exact worst case within the LP's tolerance, the duals 0 on the dropped ones and every certified bound below the
    worst case."""
    a = np.ones(3)
    assert corners.joint_interior(3, n, eps, depth)
    monkeypatch.setattr(corners, "drops_implied", lambda *args: True)
    dropped = corners._solve(a, n, eps, depth)
    assert dropped.certificate["implied"] > 0
    monkeypatch.setattr(corners, "drops_implied", lambda *args: False)
    full = corners._solve(a, n, eps, depth)
    assert full.certificate["implied"] == 0
    assert abs(dropped.certificate["lp"] - full.certificate["lp"]) <= 1e-8
    A, lam = dropped.duals
    assert len(lam) == len(A) == dropped.certificate["constraints"]
    assert (lam == 0).sum() >= dropped.certificate["implied"]
    brackets = [_errors(r) for r in (dropped, full)]
    assert abs(brackets[0].low.max() - brackets[1].low.max()) <= WORST_TOL
    for r in (dropped, full):
        assert corners.certify_remap(r) <= min(b.high.max() for b in brackets)


@pytest.mark.parametrize("n", list(range(32, 47)))
def test_the_cells_the_drop_opens_fit_the_default_limits(monkeypatch, n):
    """k = 3, worst, eps 0.5, n = 32 to 46: the padded release's plan within the default solve limit (n = 32 to 39
    refused before, 45 to 63 s planned), and its exact errors' plan (``accuracy``, ``compare``; refused before at 46
    to 47 s)."""
    for name in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MAX_MEMORY_GB"):
        monkeypatch.delenv(name, raising=False)
    spec = ReleaseSpec.of("lattice", 0.5, objective="worst")
    plan = L.LATTICE.plan_draw(np.ones(3), n, spec)
    assert not plan.refused() and plan.seconds <= 45.0
    errors = L.LATTICE.plan_errors(np.ones(3), n, spec)
    assert not errors.refused() and errors.seconds <= 45.0


def test_the_errors_stay_refused_without_the_rule(monkeypatch):
    """n = 160 (the corners not apart, the dual simplex) keeps its errors' refusal without the drop before the dual
    simplex (:func:`corners.implied_simplex`): the drop's plan is read only where it runs."""
    for name in ("DPPOSTERIOR_MAX_SOLVE_SECONDS", "DPPOSTERIOR_MAX_MEMORY_GB"):
        monkeypatch.delenv(name, raising=False)
    spec = ReleaseSpec.of("lattice", 0.5, objective="worst")
    assert not L.LATTICE.plan_errors(np.ones(3), 160, spec).refused()
    monkeypatch.setattr(corners, "implied_simplex", lambda *args: False)
    assert L.LATTICE.plan_errors(np.ones(3), 160, spec).refused()


def test_the_drop_plan_is_read_where_the_solve_drops(monkeypatch):
    """Planned without the drop (:data:`~dpposterior.mechanisms.lattice.CORNER_JOINT_SECONDS`' term), the recorded
    cells that drop are far over their runs."""
    monkeypatch.setattr(L, "_corners_implied", lambda n, k, eps: False)
    assert any("planned against" in m for m in _misses(monkeypatch))


def _errors(remap):
    """The remap's errors over R(n_ref), bracketed (:func:`corners.corner_errors`)."""
    return corners.corner_errors(remap, corners.corner_local_outputs(remap, remap.W), remap.W)


# --- the lower bound on t by weak duality (implied_constraints with the LP's rows) ---------------------------------


def _matrix(coefs, valid, near):
    """The LP's inequality rows in the library's layout (:func:`corners._solve`): a column per valid ``(z, r)`` row by
    row, the entries of the pairs near each other, ``t``'s column last (-1); and each row's first column."""
    from scipy import sparse

    nc = len(coefs)
    cols = np.flatnonzero(valid.reshape(-1))
    dense = (coefs * near[:, :, None]).reshape(nc, -1)[:, cols]
    mat = sparse.csr_array(np.hstack([dense, -np.ones((nc, 1))]))
    counts = valid.sum(axis=1)
    return mat, np.cumsum(counts) - counts


@settings(max_examples=150, deadline=None)
@given(_small_lps(), st.sampled_from([0, 1, 5, 30]), st.sampled_from([1.0, 2.0, 10.0]))
def test_the_dual_bounds_mask_is_the_definitions(lp, rounds, step):
    b, coefs, valid, near = lp
    coef, ci, reps = _pairs(coefs, valid, near)
    if not len(reps):
        return
    mat, first = _matrix(coefs, valid, near)
    got = corners.implied_constraints(b, coef, ci, reps, mat, first, rounds=rounds, step=step)
    assert got.tolist() == ref.implied_rows_dual(b, coefs.tolist(), valid.tolist(), near.tolist(), rounds, step)


@settings(max_examples=150, deadline=None)
@given(_small_lps(), st.sampled_from([0, 1, 5, 30]))
def test_the_bounds_certificate_weighs_only_kept_constraints_and_proves_it(lp, rounds):
    """The proof's premises: the weights are a distribution on the kept constraints only, and their dual value (the
    oracle's ``f``) is at least ``tau``, which every dropped constraint's ``hi`` is below by the margin."""
    b, coefs, valid, near = lp
    coef, ci, reps = _pairs(coefs, valid, near)
    if not len(reps):
        return
    mat, first = _matrix(coefs, valid, near)
    hi, tau, margin, weights = corners.implied_bound(b, coef, ci, reps, mat, first, rounds=rounds)
    dropped = hi < tau - margin
    assert (weights >= 0).all() and abs(weights.sum() - 1.0) <= 1e-12
    assert not (weights[dropped] > 0).any()
    assert ref.dual_value(b, (coefs * near[:, :, None]).tolist(), valid.tolist(), weights.tolist()) >= tau - 1e-12
    assert margin >= 1e-9


def _lp_optimum(b, coefs, valid, keep):
    """``min t`` subject to the kept constraints, each row a distribution over its valid outputs (scipy's HiGHS on the
    dense LP, nothing from the library): ``t`` and the kept constraints' duals."""
    from scipy.optimize import linprog

    nc, nz, nr = coefs.shape
    cols = np.flatnonzero(valid.reshape(-1))
    A = np.hstack([coefs.reshape(nc, -1)[:, cols], -np.ones((nc, 1))])[keep]
    zrow = np.repeat(np.arange(nz), nr)[cols]
    A_eq = np.zeros((nz, len(cols) + 1))
    A_eq[zrow, np.arange(len(cols))] = 1.0
    cost = np.zeros(len(cols) + 1)
    cost[-1] = 1.0
    res = linprog(cost, A_ub=A, b_ub=-b[keep], A_eq=A_eq, b_eq=np.ones(nz), bounds=[(0, None)] * len(cols) + [(None, None)],
                  method="highs")
    assert res.status == 0
    return res.x[-1], -res.ineqlin.marginals


@settings(max_examples=150, deadline=None)
@given(_small_lps(), st.sampled_from([1, 5, 30, 200]))
def test_the_dual_bound_drops_only_constraints_that_leave_the_lps_optimum(lp, rounds):
    """A small LP ``min t`` with and without the dropped constraints (scipy, not the library's solve): the same ``t``,
    each dropped constraint strictly below it at the reduced LP's solution, and the full LP's duals 0 there."""
    b, coefs, valid, near = lp
    coefs = coefs * near[:, :, None]
    coef, ci, reps = _pairs(coefs, valid, near)
    if not len(reps):
        return
    mat, first = _matrix(coefs, valid, near)
    dropped = corners.implied_constraints(b, coef, ci, reps, mat, first, rounds=rounds)
    assert not dropped.all()
    t_full, lam_full = _lp_optimum(b, coefs, valid, np.ones(len(b), dtype=bool))
    t_kept, _ = _lp_optimum(b, coefs, valid, ~dropped)
    assert abs(t_full - t_kept) <= 1e-8
    if dropped.any():
        assert np.abs(lam_full[dropped]).max() <= 1e-8


@pytest.mark.parametrize("n,eps", [(35, 0.5), (40, 0.5)])
def test_the_dual_bound_drops_more_than_the_ranges_alone(monkeypatch, n, eps):
    """On the LP the solve builds (Dir(1,1,1)), the dual bound drops every constraint the ranges' bound does and more
    (n = 35: 144 against 21 of 666; n = 40: 358 against 249 of 861)."""
    captured = {}

    def spy(b, coef, ci, reps, matrix=None, first=None, rounds=corners.IMPLIED_ROUNDS, step=None):
        captured.update(ranges=_implied(b, coef, ci, reps), dual=_implied(b, coef, ci, reps, matrix, first, rounds))
        raise _Stop

    monkeypatch.setattr(corners, "implied_constraints", spy)
    monkeypatch.setattr(corners, "drops_implied", lambda *args: True)
    with pytest.raises(_Stop):
        corners._solve(np.ones(3), n, eps, corners.default_depth(eps))
    ranges, dual = captured["ranges"], captured["dual"]
    assert not (ranges & ~dual).any()
    assert dual.sum() >= ranges.sum() + 100


class _Stop(Exception):
    pass


_implied = corners.implied_constraints


def test_the_bound_keeps_every_constraint_its_weights_weigh():
    """One row with two outputs and five constraints (found by a search over small LPs): after one round (uniform
    weights) ``tau0 = 0.56``, ``tau1 = 0.625``, ``max lo = 0.6``; the bound is 0.6, so only the constraint with ``hi =
    0.3`` goes.  Dropping by ``tau1`` would drop the one with ``hi = 0.6`` too, which the certificate weighs."""
    b = np.array([0.3, 0.5, 0.4, 0.1, 0.1])
    coefs = np.array([[[0.0, 0.0]], [[0.1, 0.0]], [[0.6, 0.2]], [[1.0, 0.2]], [[0.3, 1.0]]])
    valid = np.ones((1, 2), dtype=bool)
    near = np.array([[False], [True], [True], [True], [True]])
    coef, ci, reps = _pairs(coefs, valid, near)
    mat, first = _matrix(coefs, valid, near)
    hi, tau, margin, weights = corners.implied_bound(b, coef, ci, reps, mat, first, rounds=1)
    expected = [True, False, False, False, False]
    assert (hi < tau - margin).tolist() == expected
    assert abs(tau - 0.6) <= 1e-12 and not (weights[hi < tau - margin] > 0).any()
    assert ref.implied_rows_dual(b, coefs.tolist(), valid.tolist(), near.tolist(), 1, 2.0) == expected
