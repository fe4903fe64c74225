"""docs/definitions.md §5: exact privacy loss (concrete epsilon, privacy profile) and the claimed guarantees of docs/definitions.md §4."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

import dpposterior as dp
import reference as ref
from conftest import ALL_IDS, LAPLACE_IDS, MECHANISM_IDS, distance_setting, epsilons, setting
from dpposterior import InputError, SizeError, concrete_epsilon, log_pmf, privacy_profile, validate
from dpposterior.mechanisms import MECHANISMS
from dpposterior.mechanisms.optimal import SolverError
from dpposterior.models import candidate_rank
from dpposterior.privacy import claim_tolerance

# Laplace references subtract scipy cdf values near 1: ~1e-9 relative on the smallest cells.
TOL = {m: (1e-6 if m in LAPLACE_IDS else 1e-8) for m in MECHANISM_IDS}


def check_worst_pair(res, mech, prior, n, **kw):
    """The reported pair is adjacent, of size n, and attains the reported loss at the reported output."""
    c, cp = (np.array(x) for x in res.worst_pair)
    assert c.sum() == n and cp.sum() == n and np.all(c >= 0) and np.all(cp >= 0)
    assert ref.dist(c, cp) == 1
    r = int(candidate_rank(np.array(res.worst_output)))
    attained = abs(log_pmf(mech, prior, c, **kw)[r] - log_pmf(mech, prior, cp, **kw)[r])
    assert attained == pytest.approx(res.concrete_epsilon, rel=1e-9, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(setting(k_max=3, n_max=6), st.sampled_from(MECHANISM_IDS), epsilons)
def test_worst_case_and_local_concrete_epsilon_vs_brute_force(s, mech, eps):
    prior, c = s
    n = sum(c)
    b = ref.brute(prior, n)
    res = concrete_epsilon(mech, prior, n, epsilon=eps)
    assert res.scope == "worst-case"
    assert res.concrete_epsilon == pytest.approx(b.concrete_epsilon(mech, eps), rel=TOL[mech], abs=1e-12)
    check_worst_pair(res, mech, prior, n, epsilon=eps)
    local = concrete_epsilon(mech, prior, n, epsilon=eps, at=c)
    assert local.scope == "local" and list(local.worst_pair[0]) == list(c)
    assert local.concrete_epsilon == pytest.approx(b.concrete_epsilon(mech, eps, at=c), rel=TOL[mech], abs=1e-12)
    assert local.concrete_epsilon <= res.concrete_epsilon * (1 + 1e-12)
    check_worst_pair(local, mech, prior, n, epsilon=eps)


@pytest.mark.parametrize("mech", MECHANISM_IDS)
@pytest.mark.parametrize("prior, n", [((0.5, 0.5), 4), ((1.0, 1.0, 1.0), 3), ((0.3, 1.0, 2.0, 0.7), 2)])
def test_concrete_epsilon_fixed_grid_vs_brute_force(mech, prior, n):
    b = ref.brute(prior, n)
    res = concrete_epsilon(mech, prior, n, epsilon=1.0, delta=1e-4, gamma=1.0)
    assert res.concrete_epsilon == pytest.approx(b.concrete_epsilon(mech, 1.0, 1e-4), rel=TOL[mech])
    check_worst_pair(res, mech, prior, n, epsilon=1.0, delta=1e-4)


@pytest.mark.parametrize("mech", MECHANISM_IDS)
@pytest.mark.parametrize("prior, n", [((0.5, 0.5), 4), ((1.0, 2.0, 0.4), 3)])
def test_privacy_profile_vs_brute_force_hockey_stick(mech, prior, n):
    b = ref.brute(prior, n)
    exact = concrete_epsilon(mech, prior, n, epsilon=1.0).concrete_epsilon
    grid = np.sort([0.0, 0.05, 0.2, 0.5 * exact, 0.9 * exact, exact, 1.5 * exact])
    prof = privacy_profile(mech, prior, n, grid, epsilon=1.0)
    want = [b.delta_at(mech, e, 1.0) for e in grid]
    np.testing.assert_allclose(prof, want, rtol=1e-7, atol=1e-12)
    assert np.all(np.diff(prof) <= 1e-15)  # non-increasing in eps'
    assert prof[0] > 0  # total variation distance of a neighbour pair: positive
    at_exact = int(np.flatnonzero(grid == exact)[0])
    assert np.all(prof[at_exact:] <= 1e-12)  # delta(concrete eps) = 0
    assert np.all(prof[:at_exact] > 0)
    # the local profile is at most the worst case one, and matches the brute force local one
    c = tuple(b.cands[len(b.cands) // 2])
    local = privacy_profile(mech, prior, n, grid, epsilon=1.0, at=c)
    np.testing.assert_allclose(local, [b.delta_at(mech, e, 1.0, at=c) for e in grid], rtol=1e-7, atol=1e-12)
    assert np.all(local <= prof + 1e-15)


def test_delta_at_returned_with_concrete_epsilon():
    res = concrete_epsilon("mh", (1.0, 1.0), 5, epsilon=1.0, delta_at=0.1)
    assert res.delta_at["epsilon"] == 0.1
    assert res.delta_at["delta"] == pytest.approx(ref.brute((1.0, 1.0), 5).delta_at("mh", 0.1, 1.0), rel=1e-8)
    at_loss = concrete_epsilon("mh", (1.0, 1.0), 5, epsilon=1.0, delta_at=res.concrete_epsilon)
    assert at_loss.delta_at["delta"] <= 1e-12


# --- claimed guarantees (docs/definitions.md §4 tables) on a grid -------------------------------------------

GRID_PRIORS = {
    2: [(0.5, 0.5), (0.2, 1.5), (1.0, 1.0), (3.0, 0.7)],
    3: [(0.5, 0.5, 0.5), (0.2, 1.5, 1.0), (1.0, 1.0, 1.0), (3.0, 0.7, 0.3)],
}
GRID = [(k, prior, n, eps) for k in (2, 3) for prior in GRID_PRIORS[k] for n in (1, 2, 3, 5, 8)
        for eps in (0.5, 1.0, 2.0)]
CLAIMING = ("ehd", "ehds", "mh", "lszhang", "lsdim", "lshist")
# Cases where the exact loss exceeds the claim: (mech, prior, n, eps) -> reason.  None on this grid
# (largest ratios to the claim: lszhang/lshist 1.0000 (attained), ehd 0.665, lsdim 0.667, ehds 0.357,
# mh 0.354 of 2 eps); kept so a future violation is recorded as a FINDING, not weakened.
FINDINGS: dict[tuple, str] = {}


def _grid_params():
    for mech in CLAIMING:
        for k, prior, n, eps in GRID:
            marks = []
            if (mech, prior, n, eps) in FINDINGS:
                marks = [pytest.mark.xfail(strict=True, reason=FINDINGS[(mech, prior, n, eps)])]
            yield pytest.param(mech, prior, n, eps, marks=marks, id=f"{mech}-{prior}-n{n}-eps{eps}")


@pytest.mark.parametrize("mech, prior, n, eps", list(_grid_params()))
def test_claimed_pure_epsilon_holds(mech, prior, n, eps):
    res = concrete_epsilon(mech, prior, n, epsilon=eps)
    factor = 2.0 if mech == "mh" else 1.0
    assert res.claimed_epsilon == factor * eps and res.claimed_delta == 0.0
    assert res.concrete_epsilon <= factor * eps * (1 + 1e-9), (res.concrete_epsilon, res.worst_pair)
    assert not res.exceeds_claim


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_mh_delta_claim_holds_on_grid(k, eps):
    """(eps, delta)-DP claim of mh-delta: delta(eps) <= delta on every grid point (here even delta(eps) = 0)."""
    for prior in GRID_PRIORS[k]:
        for n in (1, 2, 3, 5, 8):
            res = concrete_epsilon("mh-delta", prior, n, epsilon=eps, delta=1e-8, delta_at=eps)
            assert res.claimed_epsilon == eps and res.claimed_delta == 1e-8
            assert res.delta_at["delta"] <= 1e-8
            assert not res.exceeds_claim  # (eps, delta) claims are never flagged on epsilon alone


def test_laplace_loss_attains_epsilon_exactly():
    """lszhang at k = 3 (L1 sensitivity 2, scale 2/eps) uses its whole budget: loss = eps."""
    res = concrete_epsilon("lszhang", (0.5, 0.5, 0.5), 5, epsilon=0.5)
    assert res.concrete_epsilon == pytest.approx(0.5, rel=1e-12)


def _ehdl_loss_naive(prior, c, cp, r, eps):
    """|ln p_c(r) - ln p_c'(r)| of ehdl from reference.hellinger only (LS by the reduced definition)."""
    n, k = sum(c), len(c)
    cands = ref.compositions(n, k)
    a = prior

    def row(x):
        return np.array([ref.hellinger([ai + xi for ai, xi in zip(a, x)], [ai + mi for ai, mi in zip(a, m)])
                         for m in cands])

    def ls(x):
        return max(ref.hellinger([ai + xi for ai, xi in zip(a, x)], [ai + yi for ai, yi in zip(a, y)])
                   for y in ref.neighbours(x))

    def logp(x):
        logits = -eps / (2 * ls(x)) * row(x)
        return logits - logsumexp(logits)

    i = cands.index(tuple(r))
    return abs(logp(c)[i] - logp(cp)[i])


def test_finding_ehdl_exceeds_epsilon():
    """FINDING (docs/definitions.md §4: ehdl claims nothing): with local sensitivity the loss exceeds eps.

    Prior Dir(0.1, 5, 5), n = 40, eps = 0.1: loss 0.11037 (= 1.104 eps) between (40,0,0) and (39,1,0) at
    output (40,0,0).  Also k = 2: Beta(0.1, 5), n = 100, eps = 0.1: 0.10123.  (Small n stays below eps on
    the claims grid: ehdl's largest ratio there is 0.66.)
    """
    res = concrete_epsilon("ehdl", (0.1, 5.0, 5.0), 40, epsilon=0.1)
    assert res.claimed_epsilon is None and not res.exceeds_claim
    assert res.concrete_epsilon == pytest.approx(0.11037088639, rel=1e-8)
    assert res.concrete_epsilon > 0.1 * 1.1
    assert sorted(map(tuple, res.worst_pair)) == [(39, 1, 0), (40, 0, 0)]
    naive = _ehdl_loss_naive((0.1, 5.0, 5.0), tuple(res.worst_pair[0]), tuple(res.worst_pair[1]),
                             res.worst_output, 0.1)
    assert naive == pytest.approx(res.concrete_epsilon, rel=1e-8)
    res2 = concrete_epsilon("ehdl", (0.1, 5.0), 100, epsilon=0.1)
    assert res2.concrete_epsilon == pytest.approx(0.10122955218, rel=1e-8)
    assert res2.concrete_epsilon > 0.1


@pytest.mark.parametrize("prior", GRID_PRIORS[2][:2] + GRID_PRIORS[3][:2])
def test_ehd_paper_constant_within_eps_on_grid_priors(prior):
    """FINDING: with the drafts' GS = sqrt(1 - pi/4) (an under-estimate for priors below 1, see
    test_sensitivity) ehd still stays within eps for priors >= 0.2: the exponential mechanism's factor 2
    absorbs it (worst ratio 0.843 at Beta(0.2, 1.5), n = 3)."""
    for n in (1, 2, 3, 5, 8):
        for eps in (0.5, 1.0, 2.0):
            res = concrete_epsilon("ehd", prior, n, epsilon=eps, global_sensitivity_method="paper")
            assert res.concrete_epsilon <= eps


@pytest.mark.parametrize("prior, n, loss", [
    ((0.01, 1.0), 5, 1.17524768844),
    ((0.01, 0.01), 1, 1.06270381373),
    ((0.01, 0.01, 0.01), 1, 1.06270381373),
])
def test_finding_ehd_paper_constant_exceeds_epsilon_for_tiny_priors(prior, n, loss):
    """FINDING: ehd with the paper's constant GS breaks its eps-DP claim for priors ~0.01 (eps = 1).

    With the exact GS the same settings stay within eps.
    """
    res = concrete_epsilon("ehd", prior, n, epsilon=1.0, global_sensitivity_method="paper")
    assert res.concrete_epsilon == pytest.approx(loss, rel=1e-8)
    assert res.concrete_epsilon > 1.0 and res.exceeds_claim
    if len(prior) == 2:
        brute = ref.brute(prior, n).concrete_epsilon("ehd", 1.0, gs="paper")
        assert brute == pytest.approx(loss, rel=1e-8)
    assert concrete_epsilon("ehd", prior, n, epsilon=1.0).concrete_epsilon <= 1.0


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, pattern", [
    (dict(epsilon=0.0), "epsilon must be a positive number"),
    (dict(epsilon=float("inf")), "epsilon must be a positive number"),
    (dict(delta=1.5), r"delta must be in \(0, 1\)"),
    (dict(gamma=-1.0), "gamma must be a positive number"),
    (dict(mechanism="exp"), "unknown mechanism 'exp'; choose one of ehd, ehdl, ehds, mh, mh-delta"),
    (dict(mechanism="mh", gamma=2.0), "mechanism 'mh' is defined with gamma = 1"),
    (dict(prior=(1.0, 0.0)), r"prior must be > 0"),
    (dict(n=0), "n must be a positive integer"),
    (dict(n=2.5), "n must be a positive integer"),
    (dict(at=(1, 1)), r"--at counts must have 2 categories summing to n=3"),
    (dict(at=(1, 1, 1)), r"--at counts must have 2 categories summing to n=3"),
    (dict(at=(4, -1)), "--at counts must be non-negative"),
    (dict(delta_at=-0.5), r"delta_at must be a number in \[0, 700\]"),
    (dict(delta_at=float("nan")), r"delta_at must be a number in \[0, 700\]"),
    (dict(delta_at=True), r"delta_at must be a number in \[0, 700\], got True"),
    (dict(delta_at=1e300), r"delta_at must be a number in \[0, 700\]"),
])
def test_bad_input(kwargs, pattern):
    args = dict(mechanism="ehds", prior=(1.0, 1.0), n=3, epsilon=1.0)
    args.update(kwargs)
    with pytest.raises(InputError, match=pattern):
        concrete_epsilon(args.pop("mechanism"), args.pop("prior"), args.pop("n"), **args)


def test_size_error():
    with pytest.raises(SizeError, match=r"exact privacy loss over R\(n\) for k=5, n=100000"):
        concrete_epsilon("mh", (1.0,) * 5, 100_000, epsilon=1.0)


@pytest.mark.parametrize("mech", ["mh", "ehdl", "lsdim", "mh-delta"])
@pytest.mark.parametrize("prior, n", [((0.5, 2.0), 7), ((1.0, 0.3, 2.0), 5), ((0.4, 1.0, 1.0, 3.0), 3)])
def test_worst_case_scan_in_small_chunks_agrees(monkeypatch, mech, prior, n):
    """Force the chunked scan (neighbour rows outside the chunk are recomputed) and compare with one chunk."""
    import dpposterior.mechanisms.scan as privacy

    whole = concrete_epsilon(mech, prior, n, epsilon=1.0, delta_at=0.3)
    n_cands = math.comb(n + len(prior) - 1, len(prior) - 1)
    for rows in (1, 3):
        monkeypatch.setattr(privacy, "WORK_BYTES", 8 * n_cands * 4 * rows)
        part = concrete_epsilon(mech, prior, n, epsilon=1.0, delta_at=0.3)
        assert part.concrete_epsilon == pytest.approx(whole.concrete_epsilon, rel=1e-12)
        assert part.delta_at["delta"] == pytest.approx(whole.delta_at["delta"], rel=1e-12, abs=1e-15)
    assert whole.concrete_epsilon == pytest.approx(ref.brute(prior, n).concrete_epsilon(mech, 1.0), rel=TOL[mech])


pld_lib = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")


N, PRIOR, EPS = 12, [1.0, 1.0], 1.0


INTERVAL = 1e-4


def pld_delta(mechanism: str, eps_prime: float) -> float:
    """max over adjacent pairs and both orders of dp-accounting's delta(eps')."""
    logs = [log_pmf(mechanism, PRIOR, [j, N - j], epsilon=EPS) for j in range(N + 1)]
    best = 0.0
    for j in range(N):
        for lo, hi in ((logs[j], logs[j + 1]), (logs[j + 1], logs[j])):
            pld = pld_lib.from_two_probability_mass_functions(
                dict(enumerate(lo)), dict(enumerate(hi)), pessimistic_estimate=True,
                value_discretization_interval=INTERVAL, symmetric=False)
            best = max(best, pld.get_delta_for_epsilon(eps_prime))
    return best


@pytest.mark.parametrize("mechanism", ["lshist", "ehds", "geometric"])
@pytest.mark.parametrize("eps_prime", [0.1, 0.25])
def test_profile_agrees_with_dp_accounting(mechanism, eps_prime):
    ours, ours_shifted = privacy_profile(mechanism, PRIOR, N, [eps_prime, eps_prime - INTERVAL], epsilon=EPS)
    theirs = pld_delta(mechanism, eps_prime)
    print(f"{mechanism} eps'={eps_prime}: dpposterior {ours:.10g}, dp-accounting {theirs:.10g}, "
          f"dpposterior at eps'-Delta {ours_shifted:.10g}")
    assert ours > 1e-4  # a non-trivial comparison
    assert ours - 1e-12 <= theirs <= ours_shifted + 1e-12


PRIORS = [(validate.MIN_PRIOR,) * 2, (1e6,) * 2, (validate.MIN_PRIOR,) * 3, (1e6,) * 3,
          (validate.MIN_PRIOR, 1e6, 1.0)]


def _eps_range(mech: str) -> list[float]:
    top = validate.MAX_EPSILON if MECHANISMS[mech].family != "optimal" else 30.0
    return [validate.MIN_EPSILON, 1.0, top]


@pytest.mark.parametrize("mech", ALL_IDS)  # every registered mechanism
@pytest.mark.parametrize("prior", PRIORS[:4], ids=lambda p: ",".join(f"{x:g}" for x in p))
def test_edges_give_a_finite_concrete_epsilon_with_its_pair(mech, prior):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for eps in _eps_range(mech):
            try:
                res = concrete_epsilon(mech, prior, 4, epsilon=eps)
            except SolverError as exc:  # the LP at k >= 3 and eps 30: right or refused, never wrong
                assert MECHANISMS[mech].family == "optimal" and len(prior) >= 3 and eps >= 30.0, exc
                assert "use geometric" in str(exc)
                continue
            except SizeError as exc:  # the lattice release below its smallest eps: refused in one line
                assert mech == "lattice" and eps < 0.01 and "epsilon >= 0.01" in str(exc), exc
                continue
            assert np.isfinite(res.concrete_epsilon) and res.concrete_epsilon >= 0
            assert res.worst_pair is not None and len(res.worst_pair) == 2
            if res.claimed_epsilon is not None and res.claimed_delta == 0:  # pure claims hold at the edges too
                assert res.concrete_epsilon <= res.claimed_epsilon + 1e-12  # log-pmf differences: ~1e-15 absolute


@pytest.mark.parametrize("grid, needle", [
    ("abc", "eps_grid must be a number or a list"), ([[0.5, 1]], "flat list"), ([1e300], "[0, 700]"),
    ([True], "got True"), ([], "1 to 10000 points"), (np.zeros(10_001), "1 to 10000 points"),
])
def test_privacy_profile_checks_its_grid(grid, needle):
    with pytest.raises(InputError) as err:
        dp.privacy_profile("ehds", [1, 1], 5, grid, epsilon=1)
    assert needle in str(err.value)


def test_privacy_profile_counts_every_scan_in_the_pair_budget(monkeypatch):
    one = dp.privacy_profile("ehds", [1, 1], 5, [0.5, 1.0], epsilon=1)  # 2 x 6^2 = 72 evaluations
    assert one.shape == (2,) and (one >= 0).all()
    monkeypatch.setenv("DPPOSTERIOR_MAX_PAIRS", "71")
    with pytest.raises(SizeError, match="2 x"):
        dp.privacy_profile("ehds", [1, 1], 5, [0.5, 1.0], epsilon=1)


@pytest.mark.parametrize("mechanism", ["geometric", "lshist", "lszhang"])
def test_api_exceeds_claim_uses_the_tolerance(mechanism):
    loss = dp.concrete_epsilon(mechanism, [1, 1, 1], 5, epsilon=1e-6)
    assert loss.concrete_epsilon > loss.claimed_epsilon  # the rounding the old absolute check called a finding
    assert loss.exceeds_claim is False and loss.tolerance == claim_tolerance(1e-6, loss.log_p_magnitude)


def test_a_real_violation_is_still_found():
    loss = dp.concrete_epsilon("mh", [1, 1], 30, epsilon=1)  # claims 2 eps; ehdl claims nothing
    assert loss.exceeds_claim is False
    from dataclasses import replace

    over = replace(loss, claimed_epsilon=loss.concrete_epsilon * (1 - 1e-6), claimed_delta=0.0)
    assert over.exceeds_claim is True  # 1e-6 relative is far above the tolerance


def test_claim_tolerance_scales_with_eps_and_log_p():
    assert claim_tolerance(1.0) == pytest.approx(1e-9, rel=1e-3)
    assert claim_tolerance(1e-6, 30) > 1e-6 * 5e-9  # the observed rounding at eps 1e-6
    assert claim_tolerance(1e-6, 30) < 1e-6 * 1e-5  # still a hundred-thousandth of eps
    assert claim_tolerance(1.0, 1000) > claim_tolerance(1.0, 1)


@settings(max_examples=10, deadline=None)
@given(distance_setting(), st.sampled_from(["ehd", "ehds", "mh"]), epsilons)
def test_privacy_is_the_exact_loss_under_the_distance(s, mech, eps):
    """The exact concrete eps uses the chosen score; the exponential mechanism's eps-DP proof needs only
    the score's GS, so ehd (and ehds: smooth sensitivity from a valid LS) keep their claims under tv and kl."""
    distance, prior, n = s
    b = ref.brute(prior, n, distance)
    res = concrete_epsilon(mech, prior, n, epsilon=eps, distance=distance)
    assert res.distance == distance
    assert res.concrete_epsilon == pytest.approx(b.concrete_epsilon(mech, eps), rel=1e-7, abs=1e-10)
    claim = res.claimed_epsilon
    assert res.concrete_epsilon <= claim + 1e-9


def test_kl_with_the_metric_reduction_would_break_ehd():
    """Beta(1, 1), n = 2: with the reduced (too small) LS the exponential mechanism would not be eps-DP;
    with the definition's GS it is."""
    prior, n, eps = (1.0, 1.0), 2, 1.0
    b = ref.brute(prior, n, "kl")
    gs_reduced = max(ref.kl(tuple(np.add(prior, c)), tuple(np.add(prior, d)))
                     for c in b.cands for d in ref.neighbours(c))
    assert gs_reduced < b.gs()
    # P(r | c) ~ exp(-eps / (2 GS) KL): with GS too small, the loss of some pair passes eps
    def loss(gs):
        w = eps / (2 * gs)
        rows = {c: [math.exp(-w * x) for x in b.H[b.index[c]]] for c in b.cands}
        rows = {c: [x / sum(r) for x in r] for c, r in rows.items()}
        return max(abs(math.log(p) - math.log(q)) for c in b.cands for d in ref.neighbours(c)
                   for p, q in zip(rows[c], rows[d]))
    assert loss(gs_reduced) > eps
    assert loss(b.gs()) <= eps
    assert concrete_epsilon("ehd", prior, n, epsilon=eps, distance="kl").concrete_epsilon == pytest.approx(
        loss(b.gs()), rel=1e-9)
