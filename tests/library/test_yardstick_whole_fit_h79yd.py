"""The whole LP by orbits at k = 4 planned by its measured fit (``lattice.yardstick.whole_seconds``' k = 4 branch,
``WHOLE_FIT_SECONDS``), so ``compare`` runs it at n = 12 (the LP's optimum itself as the worst case's bound), the
weighted dual left out where it runs, and the certificate of a block LP checked against perturbed duals."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from scipy import optimize

import reference as ref
from dpposterior.lattice import yardstick as ys
from dpposterior.yardstick import block_bounds, plan_blocks

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"


def _plans(n, eps, seconds):
    return plan_blocks(np.ones(4), n, eps, seconds, start=True, floor=0.1, whole=True, weighted=True, deeper=True)


def test_the_fit_is_above_every_recorded_k4_run_and_below_the_k3_constants():
    """Every recorded whole LP at k = 4 (both JSONs) ran at or under the fit, which is within 4x of it (+1 s), and the
    fit plans n = 12 and 13 under the k = 3 constants (which planned 50 s and 128 s).  Breaks if the fit drops
    under a run or the k = 4 branch is not taken."""
    calls = [c for f in ("yardstick_whole.json", "yardstick_whole_h79yd.json")
             for c in json.loads((BENCH / f).read_text())["calls"] if c["k"] == 4]
    assert {c["n"] for c in calls} >= {10, 11, 12, 13}
    for c in calls:
        planned = ys.whole_seconds(c["rows"], c["groups"], c["pairs"], c["order"], 4)
        assert c["cpu_seconds"] <= planned <= 4 * c["cpu_seconds"] + 1.0, c
        assert planned < ys.whole_seconds(c["rows"], c["groups"], c["pairs"], c["order"]) or c["n"] <= 9


def test_compare_takes_the_whole_lp_at_n12_and_drops_the_weighted_dual():
    """Dir(1,1,1,1), n = 12, ``compare``'s share at eps 0.5 (64.6 s), 1 and 2: the worst case is the whole LP (depth
    12, within the solve limit), and no weighted worst case is planned beside it; at n = 13 (planned 58.7 s, over
    the 45 s solve limit) the corner blocks and a relaxation of the LP (every data set's ball) stay.  Breaks if the fit is dropped (the LP planned
    at 50 s, refused) or the weighted dual is kept beside the LP."""
    for eps, share in ((0.5, 64.6), (1.0, 69.95), (2.0, 73.4)):
        out = _plans(12, eps, share)
        plan, depth = out["worst"]
        assert plan.fits and depth == 12 and plan.route.startswith("the whole LP")
        assert ys.WEIGHTED_KEY not in out
    out = _plans(13, 0.5, 63.65)
    assert out["worst"][1] < 13 and out[ys.BALL_KEY][0].fits  # the balls' LP in the weighted dual's place


@pytest.mark.heavy
def test_the_whole_lp_at_n12_is_the_bound_and_below_every_release():
    """Dir(1,1,1,1), n = 12, eps = 0.5: ``block_bounds`` of ``compare``'s plans certifies the LP's optimum
    (0.65040, benchmarks/yardstick_whole_h79yd.json) for the worst case, above the 0.6150 ``compare`` printed before
    and below every closed-form release's exact worst case there.  Breaks if the certificate is above a release or
    the swap loses the LP."""
    from dpposterior.accuracy import expected_errors

    a, n, eps = np.ones(4), 12, 0.5
    got = block_bounds(a, n, eps, {"worst": _plans(n, eps, 64.6)["worst"]})["worst"][0]
    assert 0.6150 < got <= 0.65040 and got == pytest.approx(0.6503968, abs=1e-6)
    for name in ("geometric", "lszhang", "lsdim", "ehd"):
        assert got <= expected_errors(name, a, n, epsilon=eps).worst


@pytest.mark.parametrize("scale", [0.9, 1.1, -1.0])
def test_the_certificate_stays_below_the_lp_when_its_duals_are_perturbed(monkeypatch, scale):
    """The certified value reads HiGHS's duals, never its objective: with every dual scaled (or its sign flipped) the
    value is still at most the LP oracle's worst case (``tests/reference.py``, no library code) and lower than with
    the solver's own duals; Dir(1,1,1,1), n = 3, eps = 0.5.  Breaks if the certificate trusts ``res.fun`` or drops
    the box's reduced-cost term (a perturbed dual would then certify above the optimum)."""
    a, n, eps = np.ones(4), 3, 0.5
    lp = ref.optimal_lp_value(ref.brute(tuple(a), n), eps, "worst")
    exact = ys.corner_bound(a, n, eps, n).worst
    solve = optimize.linprog

    def perturbed(*args, **kw):
        res = solve(*args, **kw)
        res.ineqlin.marginals = scale * np.asarray(res.ineqlin.marginals)
        res.eqlin.marginals = scale * np.asarray(res.eqlin.marginals) + 0.01
        return res

    monkeypatch.setattr(optimize, "linprog", perturbed)
    got = ys.corner_bound(a, n, eps, n).worst
    assert got <= lp + 1e-9
    assert got < exact - 1e-6
    assert exact <= lp + 1e-9
