"""The lattice (K-norm) release and its remaps (docs/lattice.md), against brute force and an LP oracle written here.

The oracle (the LP of docs/definitions.md §9 over R(n)) imports nothing from the library: plain Python,
``math.lgamma`` and scipy's HiGHS.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.optimize import linprog
from scipy.stats import chisquare

import dpposterior
from dpposterior.lattice import noise as N
from dpposterior.lattice.remap import (
    LatticeSetup,
    bayes_remap,
    local_bayes_at,
    local_bayes_remap,
    minimax_remap,
    project,
    reweighted_remap,
    sample_release,
)

# --- brute force and the LP oracle (no library imports) -------------------------------------------------------


def lattice_points(k, radius):
    """Every w in Z^k with sum 0 and |w|_1 / 2 <= radius, with its distance."""
    out = []
    for w in itertools.product(range(-radius, radius + 1), repeat=k - 1):
        last = -sum(w)
        full = (*w, last)
        d = sum(abs(x) for x in full) // 2
        if d <= radius:
            out.append((full, d))
    return out


def comps(n, k):
    return sorted(m for m in itertools.product(range(n + 1), repeat=k) if sum(m) == n)


def hell(p, q):
    lb = lambda v: sum(math.lgamma(x) for x in v) - math.lgamma(sum(v))
    mid = [(x + y) / 2 for x, y in zip(p, q)]
    return math.sqrt(max(0.0, -math.expm1(lb(mid) - (lb(p) + lb(q)) / 2)))


def dirmult(a, c):
    n, A = sum(c), sum(a)
    return math.exp(math.lgamma(n + 1) - sum(math.lgamma(x + 1) for x in c) + math.lgamma(A) - math.lgamma(n + A)
                    + sum(math.lgamma(x + y) - math.lgamma(y) for x, y in zip(c, a)))


def lp_optimum(a, n, eps, objective):
    """min over eps-DP tables P(r | c) on R(n) of max_c E(c) ('worst') or sum_c pi(c) E(c) ('average')."""
    R = comps(n, len(a))
    M = len(R)
    idx = {c: i for i, c in enumerate(R)}
    L = np.array([[hell([x + y for x, y in zip(a, c)], [x + y for x, y in zip(a, r)]) for r in R] for c in R])
    pi = np.array([dirmult(a, c) for c in R])
    pi /= pi.sum()
    rows, cols, vals, row = [], [], [], 0
    e = math.exp(eps)
    for c in R:
        for i, j in itertools.permutations(range(len(a)), 2):
            if c[i] >= 1:
                d = list(c)
                d[i] -= 1
                d[j] += 1
                ci, di = idx[c], idx[tuple(d)]
                for r in range(M):
                    rows += [row, row]
                    cols += [ci * M + r, di * M + r]
                    vals += [1.0, -e]
                    row += 1
    nv = M * M + 1
    A_dp = sparse.csr_array((vals, (rows, cols)), shape=(row, nv))
    A_eq = sparse.hstack([sparse.kron(sparse.eye_array(M), np.ones((1, M))), sparse.csr_array((M, 1))])
    if objective == "worst":
        E = sparse.hstack([sparse.block_diag([L[c][None, :] for c in range(M)]), sparse.csr_array(-np.ones((M, 1)))])
        A_ub, cost = sparse.vstack([A_dp, E]), np.zeros(nv)
        cost[-1] = 1.0
    else:
        A_ub, cost = A_dp, np.append((pi[:, None] * L).ravel(), 0.0)
    res = linprog(cost, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=A_eq, b_eq=np.ones(M), bounds=(0, None),
                  method="highs")
    assert res.status == 0, res.message
    return res.fun


# --- the noise ------------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.integers(0, 5))
def test_sphere_counts_match_enumeration(k, t):
    brute = sum(1 for _, d in lattice_points(k, t) if d == t)
    assert N.sphere_count(k, t) == brute


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7])
def test_envelope_bounds_every_sphere(k):
    B = N.envelope_constant(k)
    assert all(N.sphere_count(k, t) <= B * math.comb(t + k - 2, k - 2) for t in range(300))


@pytest.mark.parametrize("k,eps", [(2, 1.0), (3, 1.0), (3, 0.5), (4, 2.0)])
def test_normaliser_and_radius_law_match_enumeration(k, eps):
    radius = {2: 80, 3: 80, 4: 25}[k]
    pts = lattice_points(k, radius)
    Z = sum(math.exp(-eps * d) for _, d in pts)  # the tail past the radius is below 1e-10 here
    assert N.log_normaliser(k, eps) == pytest.approx(math.log(Z), rel=1e-9, abs=1e-9)
    law = N.radius_pmf(k, eps, 6)
    brute = [sum(math.exp(-eps * d) for _, d in pts if d == t) / Z for t in range(7)]
    np.testing.assert_allclose(law, brute, rtol=1e-9)


@pytest.mark.parametrize("k,eps", [(2, 1.0), (3, 1.0), (3, 0.3), (4, 1.0)])
def test_tail_bound_covers_the_mass_left_out(k, eps):
    radius = {2: 200, 3: 150, 4: 40}[k]
    pts = lattice_points(k, radius)
    Z = sum(math.exp(-eps * d) for _, d in pts)
    for W in range(0, 12 if k == 4 else 25):
        left_out = sum(math.exp(-eps * d) for _, d in pts if d > W) / Z
        assert left_out <= N.tail_bound(k, eps, W)


def test_window_holds_all_but_the_tail_for_every_data_set():
    k, n, eps, W = 3, 4, 1.0, 6
    Z = N.window(n, k, W)
    assert all(int(z.sum()) == n and z.min() >= -W for z in Z)
    for c in comps(n, k):
        inside = np.exp(N.log_kernel(Z, np.array(c), eps)).sum()
        assert 1 - inside <= N.tail_bound(k, eps, W)
        assert 1 - inside >= 0


def test_kernel_is_eps_dp_exactly():
    k, n, eps = 3, 4, 0.7
    Z = N.window(n, k, 8)
    worst = 0.0
    for c in comps(n, k):
        for i, j in itertools.permutations(range(k), 2):
            if c[i] >= 1:
                d = list(c)
                d[i] -= 1
                d[j] += 1
                ratio = np.abs(N.log_kernel(Z, np.array(c), eps) - N.log_kernel(Z, np.array(d), eps)).max()
                worst = max(worst, ratio)
    assert worst == pytest.approx(eps, abs=1e-12)  # attained at z = c, never exceeded


@pytest.mark.parametrize("k,eps,seed", [(3, 1.0, 1), (3, 0.4, 2), (4, 1.5, 3), (2, 1.0, 4)])
def test_sampler_matches_its_exact_law(k, eps, seed):
    draws = N.sample_noise(k, eps, 6000, seed)
    assert (draws.sum(axis=1) == 0).all()
    # the radius
    T = 5 if eps >= 1 else 12
    t = np.minimum(N.substitution_distance(draws), T + 1)
    p = np.append(N.radius_pmf(k, eps, T), 0.0)
    p[-1] = 1 - p[:-1].sum()
    assert chisquare(np.bincount(t, minlength=T + 2), 6000 * p).pvalue > 1e-9
    # the points of the ball d(w) <= 2, and the rest
    ball = [w for w, d in lattice_points(k, 2)]
    cell = {w: i for i, w in enumerate(ball)}
    obs = np.zeros(len(ball) + 1)
    for w in map(tuple, draws.tolist()):
        obs[cell.get(w, len(ball))] += 1
    q = np.array([math.exp(-eps * (sum(map(abs, w)) // 2) - N.log_normaliser(k, eps)) for w in ball])
    q = np.append(q, 1 - q.sum())
    assert chisquare(obs, 6000 * q).pvalue > 1e-9


def test_k2_clamped_is_the_geometric_release():
    """At k = 2 the lattice noise on (c_1, n - c_1), clamped to [0, n], is the `geometric` release (scale 1/eps)."""
    n, eps, W = 7, 1.0, 40
    Z = N.window(n, 2, W)
    tail = N.tail_bound(2, eps, W)
    for c1 in range(n + 1):
        c = np.array([c1, n - c1])
        pz = np.exp(N.log_kernel(Z, c, eps))
        clamped = np.zeros(n + 1)
        np.add.at(clamped, np.clip(Z[:, 0], 0, n), pz)
        geo = np.exp(dpposterior.log_pmf("geometric", [1, 1], c, epsilon=eps))  # candidates (m_1 = 0..n)
        assert np.abs(clamped - geo).max() <= tail + 1e-14


# --- the remaps -----------------------------------------------------------------------------------------------

REFERENCE = [([1, 1, 1], 3), ([1, 1, 1], 5), ([1, 1, 1], 8)]


@pytest.mark.parametrize("a,n", REFERENCE)
def test_remapped_release_is_never_below_the_lp_optimum(a, n, capsys):
    s = LatticeSetup(a, n, 1.0)
    bayes, _ = bayes_remap(s)
    mm = minimax_remap(s)
    eb, em = s.errors(bayes), s.errors(mm)
    lw, la = lp_optimum(a, n, 1.0, "worst"), lp_optimum(a, n, 1.0, "average")
    # upper ends (the errors the release is certified to reach) and lower ends (what it surely has) both >= LP
    assert em.worst[0] >= lw - 1e-7
    assert eb.average[0] >= la - 1e-7
    assert em.worst[1] - em.worst[0] <= 1e-8
    # the certificate: Bayes risk <= minimax over remaps <= the remap's worst case, and the LP below it all
    cert = mm.certificate
    assert cert["lower"] <= cert["upper"] + 1e-12 and lw <= cert["upper"]
    assert cert["closed"]
    with capsys.disabled():
        print(f"\nDir{tuple(a)} n={n} eps=1: lattice+minimax worst {em.worst[1]:.5f} / LP {lw:.5f} = "
              f"{em.worst[1] / lw:.4f}; lattice+Bayes average {eb.average[1]:.5f} / LP {la:.5f} = {eb.average[1] / la:.4f}")


@pytest.mark.slow
def test_remapped_release_at_k4_against_the_lp(capsys):
    a, n = [1, 1, 1, 1], 3
    s = LatticeSetup(a, n, 1.0, tol=1e-7)
    mm = minimax_remap(s, inner=5)
    em = s.errors(mm)
    lw = lp_optimum(a, n, 1.0, "worst")
    assert em.worst[0] >= lw - 1e-7
    with capsys.disabled():
        print(f"\nDir{tuple(a)} n={n} eps=1: lattice+minimax worst {em.worst[1]:.5f} / LP {lw:.5f} = {em.worst[1] / lw:.4f}")


def test_pmf_rows_are_the_errors_and_keep_dp():
    a, n, eps = [1, 2, 0.5], 4, 1.0
    s = LatticeSetup(a, n, eps, tol=1e-10)
    bayes, _ = bayes_remap(s)
    P, tail = s.pmf_rows(bayes, np.arange(len(s.R)))
    assert (P.sum(axis=1) <= 1 + 1e-12).all() and (P.sum(axis=1) >= 1 - tail - 1e-12).all()
    E = s.errors(bayes).low
    L = np.array([[hell(np.add(a, c), np.add(a, r)) for r in s.R] for c in s.R])
    np.testing.assert_allclose((P * L).sum(axis=1), E, rtol=1e-10, atol=1e-13)
    idx = {tuple(c): i for i, c in enumerate(s.R.tolist())}
    for c in s.R.tolist():
        for i, j in itertools.permutations(range(3), 2):
            if c[i] >= 1:
                d = list(c)
                d[i] -= 1
                d[j] += 1
                assert (P[idx[tuple(c)]] <= math.exp(eps) * (P[idx[tuple(d)]] + tail) + 1e-15).all()


def test_release_sampler_matches_its_pmf():
    a, n, eps = [1, 1, 1], 3, 1.0
    s = LatticeSetup(a, n, eps)
    mm = minimax_remap(s)
    c = np.array([3, 0, 0])
    draws = sample_release(s, mm, c, size=4000, rng=7)
    P, _ = s.pmf_rows(mm, [int(np.flatnonzero((s.R == c).all(axis=1))[0])])
    idx = {tuple(r): i for i, r in enumerate(s.R.tolist())}
    obs = np.bincount([idx[tuple(r)] for r in draws.tolist()], minlength=len(s.R))
    keep = P[0] * 4000 > 5
    exp_ = np.append(4000 * P[0][keep], 4000 * (1 - P[0][keep].sum()))
    obs_ = np.append(obs[keep], 4000 - obs[keep].sum())
    assert chisquare(obs_, exp_).pvalue > 1e-9


def test_project_lands_in_r_n():
    z = np.array([[-3, 5, 4], [7, -1, 0], [2, 2, 2], [-1, -1, 8]])
    p = project(z, 6)
    assert (p >= 0).all() and (p.sum(axis=1) == 6).all()
    assert (p[2] == [2, 2, 2]).all()


def test_local_bayes_agrees_with_the_window_remap():
    a, n, eps = [1, 1, 1], 6, 1.0
    s = LatticeSetup(a, n, eps, tol=1e-12)
    bayes, _ = bayes_remap(s)
    rng = np.random.default_rng(5)
    picks = rng.choice(np.flatnonzero(np.all(s.Z >= -3, axis=1)), 40, replace=False)
    agree = sum(tuple(local_bayes_at(a, n, eps, s.Z[i], r_radius=n)) == tuple(s.R[bayes.index[i]]) for i in picks)
    assert agree == len(picks)


# --- the yardstick --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("a,n,eps,side,reach", [
    ([1, 1, 1], 6, 1.0, 3, 2),
    ([0.5, 2, 1], 5, 0.5, 3, 3),
    ([2, 2, 2], 6, 2.0, 4, 1),
    ([1, 1, 1, 1], 3, 1.0, 2, 1),
    ([0.5, 1, 1, 3], 3, 0.7, 2, 2),
])
def test_yardstick_is_at_or_below_the_lp(a, n, eps, side, reach):
    from dpposterior.lattice.yardstick import lower_bound

    y = lower_bound(a, n, eps, side=side, reach=reach)
    lw, la = lp_optimum(a, n, eps, "worst"), lp_optimum(a, n, eps, "average")
    assert 0 < y.worst <= lw + 1e-9
    assert 0 < y.average <= la + 1e-9
    assert y.blocks > 1  # a strict relaxation: blocks and lumped outputs
    yw = lower_bound(a, n, eps, side=side, reach=reach, objective="worst")
    assert yw.worst <= y.worst + 1e-12
    ya = lower_bound(a, n, eps, side=side, reach=reach, objective="average")
    assert ya.average == pytest.approx(y.average, abs=1e-9) and math.isnan(ya.worst)


@pytest.mark.parametrize("a,n,eps", [([1, 1, 1], 5, 1.0), ([0.5, 2, 1], 4, 0.5)])
def test_yardstick_with_one_block_and_every_output_is_the_lp(a, n, eps):
    from dpposterior.lattice.yardstick import lower_bound

    y = lower_bound(a, n, eps, side=n + 1, reach=n)
    assert y.blocks == 1
    assert y.worst == pytest.approx(lp_optimum(a, n, eps, "worst"), abs=1e-7)
    assert y.average == pytest.approx(lp_optimum(a, n, eps, "average"), abs=1e-7)


def test_minimax_with_restricted_outputs_keeps_its_certificate():
    a, n = [1, 2, 1], 4
    s = LatticeSetup(a, n, 1.0)
    full = minimax_remap(s)
    near = minimax_remap(s, r_radius=1)
    lw = lp_optimum(a, n, 1.0, "worst")
    assert s.errors(near).worst[0] >= lw - 1e-7
    assert near.certificate["lower"] <= full.certificate["upper"] + 1e-12
    assert near.certificate["upper"] >= full.certificate["upper"] - 1e-7  # fewer outputs: never better


def test_local_bayes_remap_is_the_one_draw_remap_everywhere():
    a, n, eps = [1, 2, 1], 4, 1.0
    s = LatticeSetup(a, n, eps, tol=1e-4)
    r = local_bayes_remap(s, c_radius=8, r_radius=2)
    for i in range(0, len(s.Z), 7):
        assert tuple(local_bayes_at(a, n, eps, s.Z[i], c_radius=8, r_radius=2)) == tuple(s.R[r.index[i]])
    assert s.errors(r).average[0] >= lp_optimum(a, n, eps, "average") - 1e-7


def test_yardstick_at_chosen_data_sets_is_a_valid_worst_case_bound():
    from dpposterior.lattice.yardstick import lower_bound

    a, n, eps = [1, 2, 1], 5, 1.0
    one = lower_bound(a, n, eps, side=3, reach=2, objective="worst", at=[[0, 0, 5]])
    every = lower_bound(a, n, eps, side=3, reach=2, objective="both")
    assert one.blocks == 1 and one.worst <= every.worst + 1e-12
    assert one.worst <= lp_optimum(a, n, eps, "worst") + 1e-9


@pytest.mark.parametrize("a,n,eps,depth", [([1, 1, 1], 6, 1.0, 3), ([0.5, 2, 1], 5, 0.5, 4), ([1, 1, 1, 1], 3, 1.0, 2)])
def test_corner_bound_is_at_or_below_the_lp(a, n, eps, depth):
    from dpposterior.lattice.yardstick import corner_bound

    y = corner_bound(a, n, eps, depth, reach=2)
    assert 0 < y.worst <= lp_optimum(a, n, eps, "worst") + 1e-9


def test_reweighted_remap_returns_its_best_round():
    a, n, eps = [1, 1, 1], 4, 1.0
    s = LatticeSetup(a, n, eps, tol=1e-6)
    r, trace = reweighted_remap(s, rounds=3, step=2.0, c_radius=8, r_radius=2)
    assert len(trace) == 3 and s.errors(r).worst[1] == pytest.approx(min(trace), abs=1e-15)
    assert s.errors(r).worst[0] >= lp_optimum(a, n, eps, "worst") - 1e-7


def test_minimax_on_chosen_rows_improves_its_base():
    a, n, eps = [1, 1, 1], 6, 1.0
    s = LatticeSetup(a, n, eps, tol=1e-6)
    base = local_bayes_remap(s, c_radius=8, r_radius=2)
    near = s.Z.max(axis=1) >= n - 2
    m = minimax_remap(s, inner=4, r_radius=2, base=base, free_rows=near)
    assert s.errors(m).worst[1] <= s.errors(base).worst[1] + 1e-9
    assert s.errors(m).worst[0] >= lp_optimum(a, n, eps, "worst") - 1e-7
    assert m.certificate["lower"] <= m.certificate["upper"] + 1e-12


def test_ball_pmf_at_one_data_set_is_the_sum_over_the_ball():
    """P_D(r | c) = sum over d(w) <= D of K(w) T(c + w, r), with the kernel, its normaliser and two remaps (one
    deterministic, one randomised) written here; the mass left out is at most the tail bound."""
    from dpposterior.lattice.pointwise import ball_pmf

    k, n, eps, D, c = 3, 5, 0.8, 6, (3, 0, 2)
    R = comps(n, k)
    Z = sum(math.exp(-eps * d) for _, d in lattice_points(k, 60))

    def nearest(z):  # the output nearest to z in l1 (ties: the first)
        return min(range(len(R)), key=lambda i: (sum(abs(x - y) for x, y in zip(R[i], z)), i))

    def row(z):  # a randomised remap: half to the nearest output, half to the output (0, 0, n)
        out = np.zeros(len(R))
        out[nearest(z)] += 0.5
        out[R.index((0, 0, n))] += 0.5
        return out

    det, mixed = np.zeros(len(R)), np.zeros(len(R))
    for w, d in lattice_points(k, D):
        z = tuple(x + y for x, y in zip(c, w))
        det[nearest(z)] += math.exp(-eps * d) / Z
        mixed += math.exp(-eps * d) / Z * row(z)
    got, tail = ball_pmf(c, eps, lambda zs: np.array([nearest(tuple(z)) for z in zs]), D)
    np.testing.assert_allclose(got, det, rtol=1e-12, atol=1e-15)
    got_mixed, _ = ball_pmf(c, eps, lambda zs: np.array([row(tuple(z)) for z in zs]), D)
    np.testing.assert_allclose(got_mixed, mixed, rtol=1e-12, atol=1e-15)
    left_out = 1 - sum(math.exp(-eps * d) for _, d in lattice_points(k, D)) / Z
    assert 0 < left_out <= tail and abs((1 - got.sum()) - left_out) <= 1e-12
