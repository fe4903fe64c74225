"""A k = 3 family release over the plan's stop is known over it from a lower end, before the plan runs the stay
certificate and the exact descent filter on its samples (``lattice.sampled_release_cost``'s ``stop``): the same
decision at every stop, the full estimate wherever it is within the stop, and the refusal as before."""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior.limits import Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L

#: Dir(1,1,1), eps 0.2, n = 1,000: the family is costed with the exact filter priced, and the plan is refused at the
#: default limit (a release of the family over the limit)
EPS, N = 0.2, 1000


def _releases():
    a = (1.0, 1.0, 1.0)
    return [np.asarray(r) for r in L._family_probes(a, N, EPS)]


def _cost(released, stop=float("inf")):
    Dc, W = L._radius(3, EPS, 1e-12), L.LATTICE.column_radius(N, 3, EPS)
    return L.sampled_release_cost(np.ones(3), N, EPS, Dc, W, released, stop)


def test_the_cell_prices_the_exact_filter():
    assert L.exact_filter_priced(N, 3, EPS) and L.family_costed(N, 3, EPS)


@pytest.mark.parametrize("index", [0, -1])
def test_the_same_decision_at_every_stop_and_the_full_estimate_within_it(index):
    released = _releases()[index]
    full = _cost(released)
    assert full[2] > 1.0
    for stop in (0.0, 0.5 * full[2], 0.999 * full[2], 1.001 * full[2], 2.0 * full[2]):
        got = _cost(released, stop)
        assert (got[2] > stop) == (full[2] > stop), (stop, got, full)
        assert got[2] <= full[2] * (1 + 1e-12)  # a lower end of the same estimate
        if full[2] <= stop:
            assert got == full


def test_over_the_stop_the_plans_own_runs_are_skipped(monkeypatch):
    """At stop 0 the lower end (the filters at least) is over it: neither the certificate nor the exact filter runs."""

    def boom(*args, **kwargs):
        raise AssertionError("ran")

    import dpposterior.lattice.batched as B

    monkeypatch.setattr(L, "_kept_share", boom)
    monkeypatch.setattr(B, "stays", boom)
    parts, left, seconds = _cost(_releases()[0], 0.0)
    assert seconds > 0.0 and parts > 0


def test_the_refusal_is_the_same_line_kind_and_still_a_lower_end():
    spec = ReleaseSpec.of("optimal", EPS, objective="average")
    plan = spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(3), N)
    line = plan.refused()
    assert plan.at_least and line and "\n" not in line and "would take at least" in line
