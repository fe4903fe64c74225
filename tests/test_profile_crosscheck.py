"""The privacy profile delta(eps') against a second implementation: Google's dp-accounting PLD.

For each mechanism, every adjacent pair of data sets of size n (k = 2) goes to
``from_two_probability_mass_functions`` in both orders; the largest ``delta(eps')`` must agree
with :func:`dpposterior.privacy.privacy_profile` (the worst case over the same pairs).

Tolerance: the PLD rounds each privacy loss *up* to a multiple of its
``value_discretization_interval`` Delta (``pessimistic_estimate=True``, no mass truncation), so
for the exact profile ``delta``

    delta(eps') - 1e-12  <=  delta_PLD(eps')  <=  delta(eps' - Delta) + 1e-12,

the 1e-12 absorbing float summation.  Both sides can fail: a profile too small breaks the
left one, too large the right one (Delta = 1e-4 here; the gap delta(eps'-Delta) - delta(eps')
is about 1e-5, far above the 1e-12 slack).
"""

from __future__ import annotations

import pytest

from dpposterior.mechanisms import log_pmf
from dpposterior.privacy import privacy_profile

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
