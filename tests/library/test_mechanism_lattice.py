"""The ``lattice`` registry entry and ``optimal`` at k >= 3 beyond its LP (docs/lattice.md).

Oracles import nothing from the library (tests/reference.py: the LP of docs/definitions.md §9 built by loops,
the prior predictive by mpmath).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

import dpposterior as dp
import reference as ref
from dpposterior import InputError, SizeError
from dpposterior.limits import Task
from dpposterior.mechanisms import LATTICE, OPTIMAL, ReleaseSpec
from dpposterior.models import candidates

#: Measured ratios (lattice / LP optimum; ``pytest -s -k never_below``), the tolerance each case asserts:
#: k = 3, Dir(1,1,1), n = 4, eps = 1: worst 1.0165, average 1.0400; Dir(2,.5,1), n = 3, eps = 0.5: 1.0104, 1.0234;
#: k = 4, Dir(1,1,1,1), n = 2, eps = 2: worst 1.1217, average 1.2479 (at tiny n and large eps the noise shape,
#: not the remap, is far from the optimum: the minimax remap's certificate is closed).
CASES = [((1, 1, 1), 4, 1.0, {"worst": 1.02, "average": 1.045}),
         ((2, 0.5, 1), 3, 0.5, {"worst": 1.015, "average": 1.03}),
         ((1, 1, 1, 1), 2, 2.0, {"worst": 1.13, "average": 1.26})]


def _spec(eps, objective, mech="lattice"):
    return ReleaseSpec.of(mech, eps, objective=objective)


def _direct(mech, prior, n, spec):
    """The entry's own route of its exact errors, as its plan states it (the window's upper ends here)."""
    plan = mech.plan(Task.ERRORS, spec, prior, n)
    assert plan.route == "window remap", plan
    return mech.direct_errors(plan, prior, n, spec)


def _values(mech, prior, n, eps, objective):
    """(worst, average) of the release's exact errors (the upper ends for lattice)."""
    E = _direct(mech, np.asarray(prior, float), n, _spec(eps, objective, mech.id))
    pi = np.array([ref.dirichlet_multinomial(prior, tuple(int(x) for x in c)) for c in candidates(n, len(prior))])
    return float(E.max()), float(pi @ E / pi.sum())


@pytest.mark.parametrize("prior, n, eps, ratio", CASES)
@pytest.mark.parametrize("objective", ["worst", "average"])
def test_lattice_is_never_below_the_lp_and_close_to_it(prior, n, eps, ratio, objective, capsys):
    lp = ref.optimal_lp_value(ref.brute(prior, n), eps, objective)
    got = _values(LATTICE, prior, n, eps, objective)[objective == "average"]
    with capsys.disabled():
        print(f"\nlattice~{objective} {prior} n={n} eps={eps}: {got:.6f} / LP {lp:.6f} = {got / lp:.4f}")
    assert got >= lp - 1e-9
    assert got <= lp * ratio[objective]


@pytest.mark.parametrize("objective, counts", [("average", (2, 1, 1)), ("worst", (0, 0, 4))])
def test_sampler_matches_the_exact_pmf(objective, counts):
    p = np.exp(dp.log_pmf("lattice", (1, 1, 1), counts, epsilon=1.0, objective=objective))
    assert 1 - LATTICE.rows(np.ones(3), 4, _spec(1.0, objective)).tail <= p.sum() <= 1.0 + 1e-12
    draws = dp.sample("lattice", (1, 1, 1), counts, epsilon=1.0, objective=objective, size=4000, rng=7)
    from dpposterior.models import candidate_rank

    seen = np.bincount(candidate_rank(draws), minlength=p.size)
    assert seen[p == 0].sum() == 0  # an output the remap never produces is never drawn
    big = p * 4000 >= 5
    f_exp = np.append(p[big], p[~big].sum()) * 4000
    f_obs = np.append(seen[big], seen[~big].sum())
    if f_exp[-1] == 0:
        f_exp, f_obs = f_exp[:-1], f_obs[:-1]
    f_exp *= f_obs.sum() / f_exp.sum()
    assert chisquare(f_obs, f_exp).pvalue > 1e-6


@pytest.mark.parametrize("objective", ["worst", "average"])
def test_exact_concrete_epsilon_is_at_most_eps(objective):
    res = dp.concrete_epsilon("lattice", (1, 2, 1), 4, epsilon=0.7, objective=objective)
    assert res.concrete_epsilon <= 0.7 + 1e-9


@pytest.mark.parametrize("n, eps", [(10, 1.0), (7, 0.5)])
def test_at_k2_the_average_release_is_optimal_average(n, eps):
    """K = 2: lattice + Bayes remap (outside the window: T(project(z))) is geometric + Bayes remap."""
    tail = LATTICE.rows(np.ones(2), n, _spec(eps, "average")).tail
    for c in (0, 3, n):
        a = np.exp(dp.log_pmf("lattice", (1, 1), (c, n - c), epsilon=eps, objective="average"))
        b = np.exp(dp.log_pmf("optimal", (1, 1), (c, n - c), epsilon=eps, objective="average"))
        assert np.abs(a - b).max() <= tail + 1e-12


def test_optimal_at_k3_eps30_is_a_release():
    draws = dp.sample("optimal", (1, 1, 1), (2, 1, 1), epsilon=30.0, objective="worst", size=5, rng=1)
    assert draws.shape == (5, 3) and (draws.sum(axis=1) == 4).all()
    cert = OPTIMAL.certificate((1.0, 1.0, 1.0), 4, _spec(30.0, "worst", "optimal"))
    # the LP's table where HiGHS solves it (no worse than geometric, certified), else the lattice release
    if "release" in cert:
        assert cert["release"] == "lattice" and cert["remap"] == "minimax"
    else:
        assert cert["concrete_epsilon"] <= 30.0 * (1 + 1e-9) and cert["lp_optimum"] >= 0.0


def test_optimal_is_the_lp_where_it_runs_and_lattice_beyond():
    cert = OPTIMAL.certificate((1.0, 1.0, 1.0), 3, _spec(1.0, "average", "optimal"))
    assert "release" not in cert and "lp_optimum" in cert  # the LP's table, as before
    spec = _spec(1.0, "average", "optimal")
    assert OPTIMAL.uses_lattice((1.0, 1.0, 1.0), 25, spec)  # |R(25)| = 351 > MAX_OUTPUTS
    E = _direct(OPTIMAL, np.ones(3), 25, spec)
    assert np.array_equal(E, _direct(LATTICE, np.ones(3), 25, _spec(1.0, "average")))
    assert dp.sample("optimal", (1, 1, 1), (20, 3, 2), epsilon=1.0, objective="average", size=2, rng=1).shape == (2, 3)


def test_local_search_agrees_with_the_window_remap():
    from dpposterior.lattice.remap import LatticeSetup, bayes_remap, local_bayes_search

    s = LatticeSetup(np.ones(3), 12, 1.0)
    remap, _ = bayes_remap(s)
    picks = np.random.default_rng(3).choice(len(s.Z), 40, replace=False)
    agree = sum(tuple(local_bayes_search(np.ones(3), 12, 1.0, s.Z[i])) == tuple(s.R[remap.index[i]]) for i in picks)
    assert agree >= 36


def test_large_n_average_draw_uses_the_local_search():
    spec = _spec(1.0, "average")
    assert not LATTICE.uses_window(10**6, 3, spec)
    m = dp.sample("lattice", (1, 1, 1), (333334, 333333, 333333), epsilon=1.0, objective="average", size=1, rng=2)
    assert m.sum() == 10**6 and np.abs(m - [333334, 333333, 333333]).sum() <= 60
    with pytest.raises(SizeError, match="is not computed"):
        LATTICE.rows(np.ones(3), 1000, spec)
    with pytest.raises(SizeError, match="exact rows for k=3, n=1000 cover"):
        dp.log_pmf("lattice", (1, 1, 1), (334, 333, 333), epsilon=1.0, objective="average")


@pytest.mark.parametrize("size", [300, 12])
def test_a_local_search_draw_searches_each_distinct_z_once_and_gives_each_draw_its_own(monkeypatch, size):
    # T(z) is a function of z alone: many draws from one data set repeat z, and each distinct z is searched once (all
    # together by the batched search past BATCH_DRAWS of them, else one at a time); every draw still gets T of its own
    # z (the per-draw search, recomputed here for each draw)
    from dpposterior.lattice import batched
    from dpposterior.lattice import remap as lattice_remap
    from dpposterior.mechanisms import lattice as lattice_entry

    spec, counts = _spec(2.0, "average"), np.array([400, 300, 300])
    assert not LATTICE.uses_window(1000, 3, spec)
    seen = []

    def one(prior, n, eps, z, *args, **kw):
        seen.append(tuple(int(x) for x in z))
        return lattice_remap.local_bayes_search(prior, n, eps, z, *args, **kw)

    def many(prior, n, eps, Z, *args, **kw):
        seen.extend(tuple(int(x) for x in z) for z in Z)
        return batched_search(prior, n, eps, Z, *args, **kw)

    batched_search = batched.local_search_batch
    monkeypatch.setattr(lattice_entry, "local_bayes_search", one)
    monkeypatch.setattr(batched, "local_search_batch", many)
    m = LATTICE.sample(np.ones(3), counts, spec, size, np.random.default_rng(5))
    z = counts[None, :] + lattice_entry.sample_noise(3, 2.0, size, lattice_entry._bits(np.random.default_rng(5)))
    assert len(seen) == len(set(seen)) == len(set(map(tuple, z.tolist())))  # each distinct z once
    if size == 300:
        assert len(seen) < size  # z repeats
    want = np.stack([lattice_remap.local_bayes_search(np.ones(3), 1000, 2.0, zi) for zi in z])
    assert np.array_equal(m, want)


def test_each_budget_refuses_in_one_line(monkeypatch):
    with pytest.raises(SizeError, match="epsilon >= 0.01"):
        dp.sample("lattice", (1, 1, 1), (2, 1, 1), epsilon=1e-3, objective="average")
    with pytest.raises(InputError, match="lattice under tv is not built"):
        dp.log_pmf("lattice", (1, 1, 1), (2, 1, 1), epsilon=1.0, distance="tv")
    monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", "0.001")
    hint = r"; lattice~average \(--objective average\) releases here$"  # the hint ends the line
    # the average release is refused here too (its window's remap is over the same solve limit): no hint
    with pytest.raises(SizeError, match=r"window remap \(worst\) .* is estimated at .* to raise it\)$"):
        dp.sample("lattice", (1, 1, 1), (10, 3, 2), epsilon=1.0, objective="worst")
    # past the window's LP (k = 3, n = 25), the corner remap's solve, by the same limit
    with pytest.raises(SizeError, match=r"corner remap for k=3, n=25, eps=1 .* is estimated at .* to raise it\)$"):
        dp.sample("lattice", (1, 1, 1), (20, 3, 2), epsilon=1.0, objective="worst")
    with pytest.raises(SizeError, match="is estimated at"):
        dp.sample("lattice", (1, 1, 1), (20, 3, 2), epsilon=1.0, objective="average")
    with pytest.raises(SizeError, match="local search"):
        dp.sample("lattice", (1, 1, 1, 1), (2500,) * 4, epsilon=0.05, objective="average")
    monkeypatch.delenv("DPPOSTERIOR_MAX_SOLVE_SECONDS")
    with pytest.raises(SizeError, match=r"window remap for k=5, n=100 .* limit of an exact computation .*" + hint):
        dp.sample("lattice", (1,) * 5, (20,) * 5, epsilon=2.0, objective="worst")
    # k = 4 past the window's LP: the corner remap (lattice.corners_any), as the average objective's local search
    dp.sample("lattice", (1, 1, 1, 1), (100, 100, 100, 100), epsilon=1.0, objective="worst", rng=1)
    dp.sample("lattice", (1, 1, 1, 1), (100, 100, 100, 100), epsilon=1.0, objective="average", rng=1)
    # k = 3: the worst case past the window's LP is the corner remap, at any n
    dp.sample("lattice", (1, 1, 1), (300000, 300000, 400000), epsilon=1.0, objective="worst", rng=1)
    monkeypatch.setenv("DPPOSTERIOR_MEMORY_GB", "0.01")
    with pytest.raises(SizeError, match="GiB limit"):
        LATTICE.rows(np.ones(3), 25, _spec(1.0, "average"))


@pytest.mark.parametrize("prior, counts, objective", [((1, 1, 1), (2, 1, 1), "average"),
                                                     ((1, 1, 1), (0, 0, 4), "worst"),
                                                     ((2, 0.5, 1), (0, 3, 1), "average"),
                                                     ((1, 1, 1, 1), (1, 0, 2, 0), "average")])
@pytest.mark.parametrize("tol", [1e-9, 1e-3])
def test_pmf_at_one_data_set_is_the_rows_within_both_brackets(prior, counts, objective, tol):
    """Where the rows over R(n) run, the pmf at one data set (the remap at the z near c) agrees with them:
    P_D <= P <= P_D + tail and P_win <= P <= P_win + tail_win, so each is within the other's bracket."""
    spec = _spec(1.0, objective)
    rows = np.exp(dp.log_pmf("lattice", prior, counts, epsilon=1.0, objective=objective))
    tail_rows = LATTICE.rows(np.asarray(prior, float), sum(counts), spec).tail
    low, tail = LATTICE.pmf_at(np.asarray(prior, float), np.asarray(counts), spec, tol=tol)
    assert tail <= tol and 1 - tail <= low.sum() <= 1 + 1e-12
    assert (low <= rows + tail_rows + 1e-12).all() and (rows <= low + tail + 1e-12).all()


def test_pmf_at_from_the_local_search_matches_the_sampler(monkeypatch):
    """Where a draw runs the local search at its z, the pmf at one data set is the law of the draws (chi-square on
    seeded draws). The same draws reject the pmf at the neighbouring data set (3, 2, 1) (total variation ~0.2), so
    the check has power. (It used to show power against the window remap's pmf at c; the two remaps differ there
    only where the window's LP breaks a near tie, which moved between hosts: 0.09 of mass on one, 0.01 on another.)"""
    from dpposterior.mechanisms import lattice as module
    from dpposterior.models import candidate_rank

    prior, counts, eps, tol = (1, 1, 1), (3, 3, 0), 0.7, 1e-4
    spec = _spec(eps, "average")
    monkeypatch.setattr(module, "DENSE_DRAW_SECONDS", -1.0)  # every draw runs the local search
    assert not LATTICE.uses_window(6, 3, spec)
    p, tail = LATTICE.pmf_at(np.ones(3), np.asarray(counts), spec, tol=tol)
    other, _ = LATTICE.pmf_at(np.ones(3), np.array([3, 2, 1]), spec, tol=tol)
    assert 1 - tail <= p.sum() <= 1 + 1e-12 and np.abs(p - other).sum() / 2 > 0.1
    size = 2000
    draws = dp.sample("lattice", prior, counts, epsilon=eps, objective="average", size=size, rng=5)
    seen = np.bincount(candidate_rank(draws), minlength=p.size)
    big = p * size >= 5  # the rest in one bin (with the outputs of z beyond the ball: mass <= tail)
    f_exp = np.append(p[big], p[~big].sum()) * size
    f_obs = np.append(seen[big], seen[~big].sum())
    f_exp *= f_obs.sum() / f_exp.sum()
    assert chisquare(f_obs, f_exp).pvalue > 1e-6
    # the pmf at a neighbouring data set is not the law of these draws
    o_exp = np.append(other[big], other[~big].sum()) * size
    assert chisquare(f_obs, o_exp * f_obs.sum() / o_exp.sum()).pvalue < 1e-6


def test_pmf_at_one_data_set_runs_past_the_rows_and_refuses_in_one_line():
    spec = _spec(1.0, "average")
    LATTICE.check_pmf_at(100, 3, spec)  # c = (33, 33, 34): 1,951 local searches, within the budget
    with pytest.raises(SizeError, match=r"pmf at one data set for k=4, n=100, eps=1 \(85,609 points within distance "
                       r"29\): would take about 18 minutes here \(batched local search: .*DPPOSTERIOR_MAX_SOLVE_SECONDS"):
        LATTICE.check_pmf_at(100, 4, spec)
    # at a symmetric prior and Fig. 3c's data set, one search per orbit of the ball's points: within the budget
    plan = LATTICE.check_pmf_at(100, 4, spec, counts=np.array([25, 25, 25, 25]), prior=np.ones(4))
    assert plan.route == "batched local search, by orbits" and plan.seconds < 45 and plan.bracket < 1e-9
    assert LATTICE.plan_pmf_at(np.array([1.0, 1.0, 1.0, 2.0]), 100, 4, spec, counts=np.array([25, 25, 25, 25])
                               ).route == "batched local search"
    # a ball too large to list (eps = 0.05: 6e8 points) is planned without listing it, and refused in one line
    with pytest.raises(SizeError, match=r"622,197,003 points within distance 571\): needs ~111 GiB"):
        LATTICE.check_pmf_at(100, 4, _spec(0.05, "average"), counts=np.array([25, 25, 25, 25]), prior=np.ones(4))
    with pytest.raises(InputError, match="lattice under tv is not built"):
        LATTICE.check_pmf_at(100, 3, ReleaseSpec.of("lattice", 1.0, objective="average", distance="tv"))


@pytest.mark.parametrize("argv", [
    ["release", "--counts", "2,1,1", "--objective", "average", "--seed", "1"],
    ["pmf", "--counts", "2,1,1", "--objective", "average", "--top", "3"],
    ["accuracy", "--n", "4", "--objective", "average"],
    ["privacy", "--n", "3", "--objective", "average"],
    ["posterior", "--released", "2,1,1"],
    ["audit", "--n", "3", "--samples", "2000", "--seed", "1"],
])
def test_cli_runs_on_lattice(argv, capsys):
    from dpposterior.cli import main

    code = main([*argv, "--mechanism", "lattice", "--prior", "1,1,1", "--epsilon", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.strip()
