"""The release as a program: exact integer sampling, reachability, constant-time padding, messages."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.stats import binomtest, chisquare

from dpposterior import mechanisms, sampling
from dpposterior.cli import main
from dpposterior.errors import SizeError
from dpposterior.guarantee import SEEDED_WARNING
from dpposterior.mechanisms import ReleaseSpec, _inverse_cdf, laplace_noise_tables
from dpposterior.models import candidates

SEEDED = "dpposterior: warning: " + SEEDED_WARNING
from dpposterior.padding import _DEADLINES
from dpposterior.padding import padded_draw as release
from dpposterior.randomness import (
    WEIGHT_BITS,
    BitSource,
    bernoulli_exp_float,
    bit_source,
    choose,
    exp_weights,
    float_weights,
    weights_tv_bound,
)


class ScriptedBits(BitSource):
    """Scripted uniforms ``U`` (to force extreme paths) for :func:`choose` and :func:`bernoulli_exp_float`.

    Those draw ``U = u 2^shift + v``: ``integers`` returns the blocks ``u`` of the scripted values;
    ``randbelow(2^shift)`` returns the low part ``v`` of the next one whose block is in
    ``blocks`` (the rows where a bucket boundary falls in the block; None: every row).
    """

    def __init__(self, values, shift, blocks=None):
        self.values, self.shift, self.blocks, self.pending = list(values), shift, blocks, []

    def integers(self, high, size):
        vals = [self.values.pop(0) for _ in range(size)]
        self.pending += vals
        return np.array([v >> self.shift for v in vals], dtype=np.int64)

    def randbelow(self, high):
        assert high == 1 << self.shift
        while True:
            v = self.pending.pop(0)
            if self.blocks is None or (v >> self.shift) in self.blocks:
                return v & (high - 1)


def scripted_for(W, values):
    cum = np.cumsum(np.array(W, dtype=object))
    shift = max(0, int(cum[-1]).bit_length() - 62)
    return ScriptedBits(values, shift, {int(c) >> shift for c in cum})


# ------------------------------------------------------------------ integer weights, reachability


def test_exp_weights_reach_tiny_probabilities_and_respect_the_bound():
    logp = np.log(np.array([1.0, 0.5, 1e-20, 1e-300])).tolist() + [-1e6, -np.inf]
    W = exp_weights(logp)
    assert W[0] == 2**WEIGHT_BITS and W[-1] == 0 and all(w >= 1 for w in W[:-1])
    with mpmath.workprec(300):  # the distance in high precision (float64 cannot see 2^-61)
        P = [mpmath.exp(mpmath.mpf(x)) if x > -np.inf else mpmath.mpf(0) for x in logp]
        S, T = mpmath.fsum(P), sum(W)
        tv = mpmath.fsum(abs(pi / S - mpmath.mpf(w) / T) for pi, w in zip(P, W)) / 2
        assert 0 < tv <= weights_tv_bound(len(W))
    # a relative probability of 1e-20 is drawn when the bits say so
    cum = np.cumsum(np.array(W, dtype=object))
    assert choose(W, 1, scripted_for(W, [int(cum[1])]))[0] == 2
    assert choose(W, 1, scripted_for(W, [int(cum[4]) - 1]))[0] == 4  # even exp(-1e6)


def test_ehds_k2_n19999_every_candidate_reachable():
    """The old one-uniform inverse cdf reached only 328 of these 20000 candidates."""
    params = ReleaseSpec.of("ehds", 1000.0)
    mech = params.mechanism
    a, c = np.ones(2), np.array([0, 19999])
    logp = mech.log_pmf(a, c, params)
    cands = candidates(19999, 2)
    W = exp_weights(logp)
    cum = np.cumsum(np.array(W, dtype=object))
    starts = [0] + [int(x) for x in cum[:-1]]  # U = start of each candidate's interval
    drawn = _inverse_cdf(logp, cands, len(starts), scripted_for(W, starts))
    assert len({tuple(m) for m in drawn}) == 20000 > 328
    assert logp.min() < -46  # some of them have probability below 1e-20


def test_inverse_cdf_matches_pmf_and_power():
    params = ReleaseSpec.of("ehds", 1.0)
    mech = params.mechanism
    a, c = np.ones(3), np.array([3, 0, 5])
    logp = mech.log_pmf(a, c, params)
    draws = _inverse_cdf(logp, candidates(8, 3), 40000, bit_source(7))
    idx = {tuple(m): i for i, m in enumerate(candidates(8, 3))}
    hist = np.bincount([idx[tuple(m)] for m in draws], minlength=logp.size)
    p = np.exp(logp)
    assert pooled_pvalue(hist, p) > 1e-3
    assert pooled_pvalue(hist, np.roll(p, 1)) < 1e-6  # power: a wrong pmf fails


def pooled_pvalue(hist, p):
    """Chi-square p-value, cells with expected count < 5 pooled into one (when there are any)."""
    n = hist.sum()
    keep = p * n >= 5
    obs, exp = hist[keep], p[keep] * n
    if (~keep).any():
        obs, exp = np.append(obs, hist[~keep].sum()), np.append(exp, n - exp.sum())
    return chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


def test_bernoulli_exp_float_probability():
    bits = bit_source(3)
    for x, n in ((-0.7, 20000), (-5.0, 20000)):
        k = int(bernoulli_exp_float(np.full(n, x), bits).sum())
        assert binomtest(k, n, math.exp(x)).pvalue > 1e-3
    assert not bernoulli_exp_float([-np.inf], bits)[0]
    # exp(-100) is drawn when the bits are small enough
    assert bernoulli_exp_float([-100.0], ScriptedBits([0], WEIGHT_BITS - 62))[0]
    assert not bernoulli_exp_float([-100.0], ScriptedBits([1], WEIGHT_BITS - 62))[0]


def test_float_weights_exact_scaling():
    W = float_weights([1.0, 0.25, 0.0, 1e-300])
    assert W[0] == 4 * W[1] and W[2] == 1 and W[3] == 1


def test_rejection_sampler_tiny_weights_do_not_overflow():
    for w in (1e-300, 1e-160):
        m = sampling.sample_exponential(np.ones(2), np.array([0, 30000]), w, 3, bit_source(1))
        assert m.shape == (3, 2) and (m.sum(axis=1) == 30000).all()


# ------------------------------------------------------------------ Laplace: exact integers


@pytest.mark.parametrize("scale", [0.7, 2.0])
def test_laplace_noise_is_floor_laplace(scale):
    mech = mechanisms.MECHANISMS["lshist"]
    d = mech.noise(scale, (40000, 1), 5).ravel()
    point, _, _ = laplace_noise_tables(scale, 40)
    p = np.exp(point)  # d = -41 .. 41 (tails beyond carry < e^-40)
    hist = np.bincount(np.clip(d, -41, 41) + 41, minlength=83)
    assert pooled_pvalue(hist, p) > 1e-3
    assert pooled_pvalue(hist, np.roll(p, 1)) < 1e-6


def test_laplace_large_counts_are_exact():
    """At counts near 2^53 the noise is not lost in a float addition."""
    c = np.array([2**52, 2**52 - 1])
    m = mechanisms.sample("lshist", [1, 1], c, epsilon=1.0, size=2000, rng=1)
    assert (m.sum(axis=1) == c.sum()).all()
    assert (m[:, 0] != c[0]).mean() > 0.4  # P(D = 0) = 1 - e^-1... of floor cells: about 0.32 stays
    d = m[:, 0] - c[0]
    assert abs(np.median(d)) <= 1 and np.abs(d).max() < 60


# ------------------------------------------------------------------ constant time


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, dt):
        self.now += dt


def test_release_time_does_not_depend_on_the_draw():
    params = ReleaseSpec.of("ehds", 1.0)
    mech = params.mechanism
    clock = FakeClock()
    costs = iter([])  # reference draws (boundary, balanced, twice), then the real draw
    real_sample = mech.sample

    def slow_sample(*args, **kw):
        clock.now += next(costs)
        return real_sample(*args, **kw)

    ends = []
    for last in (0.05, 0.89):
        costs = iter([0.3, 0.1, 0.2, 0.1, last])
        clock.now = 0.0
        _DEADLINES.clear()
        object.__setattr__(mech, "sample", slow_sample)
        try:
            m, info = release(params, np.ones(2), np.array([3, 4]), 1, clock=clock, sleep=clock.sleep)
        finally:
            del mech.sample
        ends.append(clock.now)
        assert info.overrun_slots == 0 and info.deadline_seconds == pytest.approx(3 * 0.3 + 0.02)
    assert ends[0] == pytest.approx(ends[1]) == pytest.approx(0.7 + 0.92)
    # later releases in the process reuse the deadline: they take exactly the deadline
    costs = iter([0.2])
    clock.now = 0.0
    object.__setattr__(mech, "sample", slow_sample)
    try:
        _, info = release(params, np.ones(2), np.array([3, 4]), 1, clock=clock, sleep=clock.sleep)
    finally:
        del mech.sample
    assert clock.now == pytest.approx(0.92)
    # an overrun waits for the next multiple of the deadline
    costs = iter([0.3, 0.1, 0.2, 0.1, 1.0])
    clock.now = 0.0
    _DEADLINES.clear()
    object.__setattr__(mech, "sample", slow_sample)
    try:
        _, info = release(params, np.ones(2), np.array([3, 4]), 1, clock=clock, sleep=clock.sleep)
    finally:
        del mech.sample
    assert info.overrun_slots == 1 and clock.now == pytest.approx(0.7 + 2 * 0.92)


def test_prepare_runs_before_the_timed_reference_draws():
    """A public set-up (optimal's solved remap) is built by Mechanism.set_up, outside the deadline."""
    params = ReleaseSpec.of("optimal", 1.0, objective="worst")
    mech = params.mechanism
    clock = FakeClock()
    calls = []
    real_sample, real_prepare = mech.sample, mech.set_up

    def prepare(*args, **kw):
        calls.append("prepare")
        clock.now += 5.0  # a slow solve: it must not enter the deadline
        return real_prepare(*args, **kw)

    def sample(*args, **kw):
        calls.append("sample")
        clock.now += 0.1
        return real_sample(*args, **kw)

    _DEADLINES.clear()
    object.__setattr__(mech, "set_up", prepare)
    object.__setattr__(mech, "sample", sample)
    try:
        _, info = release(params, np.ones(2), np.array([3, 4]), 1, clock=clock, sleep=clock.sleep)
    finally:
        del mech.set_up, mech.sample
        _DEADLINES.clear()
    assert calls == ["prepare"] + ["sample"] * 5
    assert info.deadline_seconds == pytest.approx(3 * 0.1 + 0.02)


def test_release_budget_refuses_from_public_inputs():
    params = ReleaseSpec.of("ehds", 1.0)
    mech = params.mechanism
    with pytest.raises(SizeError, match="rejection sampler"):
        release(params, np.ones(2), np.array([0, 10**13]), 1)


def test_cli_release_huge_n_one_line(capsys):
    assert main(["release", "--prior", "1,1", "--counts", "0,10000000000000", "--mechanism", "ehds",
                 "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dpposterior: error:")


# ------------------------------------------------------------------ messages


def _csv(tmp_path, rows):
    p = tmp_path / "records.csv"
    p.write_text("name,answer\n" + "".join(f"{a},{b}\n" for a, b in rows))
    return str(p)


def test_csv_errors_do_not_echo_records(tmp_path, capsys):
    path = _csv(tmp_path, [("x", "yes"), ("y", "Alice Smith"), ("z", "no")])
    assert main(["release", "--prior", "1,1", "--data", path, "--column", "answer", "--categories", "no,yes",
                 "--mechanism", "lshist", "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert "not in --categories" in err and "Alice" not in err
    path = _csv(tmp_path, [("x", "yes"), ("y", ""), ("z", ""), ("w", "no")])
    assert main(["release", "--prior", "1,1", "--data", path, "--column", "answer", "--categories", "no,yes",
                 "--mechanism", "lshist", "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert "empty values" in err and not any(ch.isdigit() for ch in err.replace(path, ""))


@pytest.mark.parametrize("rows", [[("x", "yes"), ("y", "yes")], [("x", "no"), ("y", "yes")], [("x", "no")] * 3])
def test_valid_release_never_warns_because_of_the_data(tmp_path, capsys, rows):
    path = _csv(tmp_path, rows)
    assert main(["release", "--prior", "1,1", "--data", path, "--column", "answer", "--categories", "no,yes",
                 "--mechanism", "lshist", "--epsilon", "1", "--seed", "1"]) == 0
    out = capsys.readouterr()
    # the one warning is the seed's, a setting
    assert out.err.splitlines() == [SEEDED] and out.out.startswith("Beta(")


def test_categories_warning_depends_on_the_flag_only(tmp_path, capsys):
    path = _csv(tmp_path, [("x", "no"), ("y", "yes")])
    assert main(["release", "--prior", "1,1", "--data", path, "--column", "answer", "--mechanism", "lshist",
                 "--epsilon", "1", "--seed", "1"]) == 0
    assert "warning: categories taken from the data" in capsys.readouterr().err


def test_release_without_seed_uses_the_os_csprng(monkeypatch):
    from dpposterior import randomness

    calls = []
    real = randomness.SystemBits.integers

    def spy(self, high, size):
        calls.append(high)
        return real(self, high, size)

    monkeypatch.setattr(randomness.SystemBits, "integers", spy)
    assert main(["release", "--prior", "1,1", "--counts", "3,4", "--mechanism", "ehds", "--epsilon", "1"]) == 0
    assert calls


def test_remainder_bands_dominate_the_trimmed_candidates():
    """Every candidate of the rejection sampler is reachable: a candidate its band's factors trim
    (w beta_j t_i >= 745) is proposed by the band's remainder, whose bound must dominate the target."""
    s = sampling.ExponentialSampler(np.ones(2), np.array([0, 30000]), 5000.0)
    m = candidates(30000, 2)
    T = s.T(m)
    checked = 0
    for j in range(s.J):
        if s.beta[j] == 0:
            continue
        f = s._band(j)[0]
        trimmed = np.zeros(len(m), dtype=bool)
        for i, (off, vals) in enumerate(f):
            trimmed |= (m[:, i] < off) | (m[:, i] > off + vals.size - 1)
        sel = s._inside(j, T) & trimmed
        log_ratio = -s.w * sampling._phi(T[sel]) + s.w * s.alpha[j] + sampling._UNDERFLOW
        assert (log_ratio <= 1e-9).all()
        checked += int(sel.sum())
    assert checked >= 5  # such candidates exist (a handful at this size)
    # and the remainder bands carry positive weight in the band choice
    trim = np.where(s.beta > 0, s._log_R - s.w * s.alpha - sampling._UNDERFLOW, -np.inf)
    assert all(w >= 1 for w, b in zip(exp_weights(np.concatenate([s.log_mass, trim]))[s.J:], s.beta) if b > 0)


def test_a_per_z_remap_release_is_padded_to_its_draw_not_its_set_up():
    """optimal~average at n >= 20,000 computes T(z) per drawn z; the loss's tables it reads are a one-off set-up from
    (prior, n), built by Mechanism.set_up, so the first reference draw costs what a draw costs (it cost ~2 s, 200x
    a draw, and the deadline was 3x that)."""
    from dpposterior.mechanisms.optimal import PER_Z_FROM, _bayes_at

    n = 100_000
    assert n >= PER_Z_FROM
    params = ReleaseSpec.of("optimal", 1.0, objective="average")
    _DEADLINES.clear()
    _bayes_at.cache_clear()
    try:
        params.mechanism.set_up(np.ones(2), n, params)
        assert _bayes_at((1.0, 1.0), n, 1.0).loss._log_bc._psi is not None  # built before any draw
        _, info = release(params, np.ones(2), np.array([41_234, n - 41_234]), 5)
    finally:
        _DEADLINES.clear()
    # every reference draw, the first included, within a small multiple of the release's own draw (a new z each)
    assert max(info.reference_seconds) <= 10 * max(info.draw_seconds, 1e-3)
    assert info.deadline_seconds <= 3 * 10 * max(info.draw_seconds, 1e-3) + 0.02
