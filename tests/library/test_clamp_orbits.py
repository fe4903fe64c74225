"""The sequential clamp's expected errors by orbits of the first k - 1 counts (``lattice.scale.clamped_errors_by_orbits``)
against a brute-force transcription of the definition ``E(c) = sum_w K(w) H(BI(c), Dir(a + B(c, w)))`` with
``B(c, w)_i = clamp(c_i + D_i, 0, n - B_1 - ... - B_(i-1))``, ``B_k = n - sum`` (an oracle that imports nothing from
the library: its own clamp, noise law and Hellinger distance), at k = 3 and 4, with noise laws that need not be
symmetric (iid is what the proof uses); a prior that is not symmetric in the first k - 1 counts is refused; and the
route's choice from public inputs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from dpposterior.errors import InputError
from dpposterior.lattice import scale
from dpposterior.mechanisms.clamped import CLAMPED_MECHANISMS


def _oracle_data_sets(n, k):
    return [(*h, n - sum(h)) for h in itertools.product(range(n + 1), repeat=k - 1) if sum(h) <= n]


def _oracle_errors(a, n, masses):
    """``{c: E(c)}`` over every data set, the noise ``D_i`` iid on ``-D..D`` with ``P(D = d) = masses[d + D]``."""
    k = len(a)
    D = len(masses) // 2
    out = {}
    for c in _oracle_data_sets(n, k):
        e = 0.0
        for d in itertools.product(range(-D, D + 1), repeat=k - 1):
            wt = math.prod(masses[di + D] for di in d)
            e += wt * ref.hellinger_posteriors(a, c, ref.sequential_clamp(c, d, n))
        out[c] = e
    return out


def _law(raw):
    total = sum(raw)
    return [r / total for r in raw]


laws = st.lists(st.floats(0.2, 1.0), min_size=3, max_size=5).filter(lambda v: len(v) % 2 == 1).map(_law)


@settings(max_examples=25, deadline=None)
@given(k=st.sampled_from([3, 4]), n=st.integers(0, 7), a0=st.floats(0.3, 3.0), ak=st.floats(0.3, 3.0),
       masses=laws, route=st.sampled_from(["loss", "factors"]))
def test_orbits_match_the_direct_sum(k, n, a0, ak, masses, route):
    if k == 4:
        n = min(n, 5)
    a = [a0] * (k - 1) + [ak]
    got = scale.clamped_errors_by_orbits(a, n, np.log(masses), 1e-9, route)
    want = _oracle_errors(a, n, masses)
    assert got.tail <= 1e-9 + 2 * scale.factor_margin(k) + 4 * scale.ORBIT_MARGIN + 1e-12
    for c, low in zip(map(tuple, got.counts.tolist()), got.low.tolist()):
        e = want[c]
        assert low - 1e-12 <= e <= low + got.tail + 1e-12, (c, low, e)


@pytest.mark.parametrize("a", [[1.0, 2.0, 1.0], [1.0, 1.0, 2.0, 1.0], [1.0, 1.0]])
def test_a_prior_not_symmetric_in_the_first_counts_is_refused(a):
    assert not scale.orbit_symmetric(a)
    with pytest.raises(InputError):
        scale.clamped_errors_by_orbits(a, 4, np.log([0.25, 0.5, 0.25]), 1e-9)


def test_the_clamp_from_above_breaks_the_symmetry():
    """The oracle's own errors: symmetric in the first k - 1 counts away from the clamp from above, not at it
    (why the route sums the capped terms at every data set), and never symmetric in the last count."""
    a, n, masses = [1.0, 1.0, 1.0], 8, _law([0.3, 0.5, 1.0, 0.5, 0.3])
    e = _oracle_errors(a, n, masses)
    assert abs(e[(3, 4, 1)] - e[(4, 3, 1)]) > 1e-4  # c_3 = 1: the first count to reach the room takes it
    assert abs(e[(1, 3, 4)] - e[(3, 1, 4)]) < 1e-12  # c_3 = 4 = 2 D: the clamp from above never acts
    assert abs(e[(1, 3, 4)] - e[(1, 4, 3)]) > 1e-3


def test_the_route_is_chosen_from_public_inputs():
    """A prior symmetric in the first k - 1 counts takes the orbit chain; another the chain before."""
    m = next(x for x in CLAMPED_MECHANISMS if x.id == "geometric")
    route, *_ = m.translation_plan(100, 4, 2.0, prior=[1.0, 1.0, 1.0, 1.0])
    assert route.startswith("orbits (")
    route, *_ = m.translation_plan(100, 4, 2.0, prior=[1.0, 1.0, 1.0, 3.0])
    assert route.startswith("orbits (")
    route, *_ = m.translation_plan(100, 4, 2.0, prior=[1.0, 2.0, 1.0, 1.0])
    assert route in ("loss", "factors")
    route, *_ = m.translation_plan(100, 4, 2.0)
    assert route in ("loss", "factors")


def test_a_prior_let_in_unchecked_would_be_wrong(monkeypatch):
    """The refusal is needed: with the check bypassed, a prior with a_1 != a_2 gets errors off the direct sum."""
    a, n, masses = [1.0, 3.0, 1.0], 5, _law([0.3, 1.0, 0.6])
    monkeypatch.setattr(scale, "orbit_symmetric", lambda prior: True)
    got = scale.clamped_errors_by_orbits(a, n, np.log(masses), 1e-9, "loss")
    want = _oracle_errors(a, n, masses)
    assert max(abs(low - want[c]) for c, low in zip(map(tuple, got.counts.tolist()), got.low.tolist())) > 1e-3
