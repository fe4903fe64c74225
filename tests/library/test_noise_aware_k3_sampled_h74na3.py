"""The noise-aware posterior at k = 3, small eps: the sampled plan counts a release off the centre too
(:func:`dpposterior.mechanisms.lattice.sampled_probe`), the points the stay certificate leaves are checked at their
measured cost by the plan and the run alike (:func:`~dpposterior.mechanisms.lattice.stay_left_seconds`), and the
whole-ball fit is refitted up to eps 0.12 on runs with the search's cycles cut
(:data:`~dpposterior.mechanisms.lattice.WHOLE_CUT_SECONDS`).

Side-by-side runs: ``benchmarks/noise_aware_k3_h74na3.json`` (``benchmarks/noise_aware_k3_small_eps.py``).
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import benchmark_records
from dpposterior.limits import SizeError, Task
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms import lattice as L

from .test_noise_aware_k3_h72 import _cli_refusal

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORD = ROOT / "benchmarks" / "noise_aware_k3_h74na3.json"

#: ``posterior --released R --n N`` at Dir(1,1,1) (the whole process, CPU s, load 5 to 10, 2026-12-01, the limit
#: raised): (eps, n, released, CPU s).  The releases: the centre, and the sampled plan's probe or near it.
POSTERIOR_RUNS = [
    (0.15, 204, (68, 68, 68), 3.1), (0.1, 400, (152, 98, 150), 30.3),
    (0.1, 400, (134, 133, 133), 7.9), (0.12, 300, (71, 115, 114), 17.2), (0.15, 250, (96, 59, 95), 6.9),
    (0.1, 275, (75, 100, 100), 16.2), (0.12, 330, (96, 117, 117), 6.4), (0.1, 320, (90, 115, 115), 12.8),
]
#: ``release --noise-aware`` (seed 1, the whole process, CPU s, load 3 to 10, 2026-12-01; the limit raised where the
#: plan refuses): (counts, eps, objective, CPU s), the whole-ball fit's cells and the sampled route's.
RELEASE_RUNS = [
    ("19,18,18", 0.1, "average", 18.5), ("19,18,18", 0.1, "worst", 18.5), ("20,20,20", 0.1, "worst", 25.3),
    ("20,20,20", 0.1, "average", 23.4), ("27,27,26", 0.12, "average", 24.9), ("27,27,26", 0.12, "worst", 26.5),
    ("34,33,33", 0.12, "worst", 38.3), ("34,33,33", 0.12, "average", 37.3), ("2,27,27", 0.1, "worst", 19.2),
    ("2,30,28", 0.1, "average", 23.6), ("2,40,38", 0.12, "worst", 23.9), ("14,14,13", 0.1, "worst", 11.8),
    ("15,15,15", 0.1, "average", 12.3), ("17,16,16", 0.1, "average", 14.4), ("17,17,17", 0.1, "worst", 15.8),
    ("17,17,17", 0.105, "worst", 14.0), ("17,17,17", 0.11, "worst", 12.5), ("17,17,17", 0.115, "worst", 11.0),
    ("17,17,17", 0.117, "worst", 10.1), ("34,33,33", 0.1, "average", 62.1), ("15,15,15", 0.12, "average", 9.2),
    ("68,68,68", 0.1, "average", 143.6), ("24,24,23", 0.1, "worst", 27.5), ("2,35,34", 0.1, "average", 26.6),
    ("33,32,32", 0.12, "average", 39.4), ("34,33,33", 0.1, "average", 66.7), ("34,33,33", 0.1, "worst", 69.4),
    # the edges measured again after the merge (seed 2, next to a face, load ~2): eps 0.12, n = 93 ran 40.1 s against
    # 44.3 planned by the fit before (1.10x), so c1 was raised 9 % (the edges now n = 67 and 90)
    ("2,45,46", 0.12, "worst", 40.1), ("3,33,33", 0.1, "worst", 28.2),
]
#: the whole-ball fit's plans at most, and at least, this many times their runs (up to eps 0.12; the least measured
#: 1.18x, eps 0.1, n = 100 at load 8.6, planned over the default limit; the cells it admits 1.2x or more).  The most is
#: 2.2x, not 2x: one c1 covers the small n (eps 0.1, n = 41 to 51: 10 to 15 s runs, 1.9x to 2.15x) and the edges it
#: admits (eps 0.12, n = 90: ~1.2x), and the edge's margin comes first
MOST_OVER, LEAST_OVER = 2.2, 1.15


def _plan(n, eps, objective="average", limit=None, monkeypatch=None):
    if limit is not None:
        monkeypatch.setenv("DPPOSTERIOR_MAX_SOLVE_SECONDS", str(limit))
    spec = ReleaseSpec.of("optimal", eps, objective=objective)
    return spec.mechanism.plan(Task.POSTERIOR, spec, np.ones(3), n)


def _probe_oracle(n: int, low: int) -> tuple[int, ...]:
    """The centre of R(n) at k = 3 (the first counts one larger where n is not a multiple of 3) with its least count
    (the first of them) lowered by ``min(that count, low)`` and that amount handed to the other two, the first of them
    first, as evenly as it goes."""
    c = [n // 3] * 3
    for i in range(n - 3 * (n // 3)):
        c[i] += 1
    i = c.index(min(c))
    d = min(c[i], low)
    c[i] -= d
    others = [j for j in range(3) if j != i]
    c[others[0]] += d - d // 2
    c[others[1]] += d // 2
    return tuple(c)


@pytest.mark.parametrize("eps", [0.1, 0.105, 0.11, 0.12, 0.15, 0.2])
@pytest.mark.parametrize("n", [15, 100, 193, 200, 204, 301, 400, 1000])
def test_the_probe_is_the_centre_lowered_toward_a_face(n, eps):
    """:func:`sampled_probe` against a transcription: in R(n), its least count lowered by half the noise's median
    distance; ``None`` where the sampled route does not count it."""
    probe = L.sampled_probe(n, 3, eps)
    if not L.sampled_column(n, 3, eps):
        assert probe is None
        return
    low = int(0.5 * L._radius(3, eps, 0.5))
    assert tuple(int(x) for x in probe) == _probe_oracle(n, low)
    assert int(probe.sum()) == n and int(probe.min()) >= 0


@pytest.mark.parametrize("n", [20, 50, 100, 150])
@pytest.mark.parametrize("eps", [0.25, 0.5, 1.0])
def test_from_eps_025_no_probe_and_the_face_rule_is_the_old_one(n, eps):
    """Not below COLUMN_BATCH_MIN_EPSILON: no probe, and the stay certificate's miss counted where ``n < 1.2 Dc`` as
    before."""
    assert L.sampled_probe(n, 3, eps) is None
    assert L.sampled_face_reach(n, 3, eps) == (n < L.SAMPLED_FACE_RATIO * L._radius(3, eps, 1e-12))


@pytest.mark.parametrize("objective", ["average", "worst"])
@pytest.mark.parametrize("n,eps", [(204, 0.1), (195, 0.105), (200, 0.11), (250, 0.1), (200, 0.12), (204, 0.12)])
def test_the_cells_the_old_plan_admitted_are_refused_up_front(n, eps, objective):
    """Planned at 13 to 33 s before (the centre's sample alone), their releases checked at the run at ~215 s
    (eps 0.1, n = 204, the release of seed 1); now refused in one line by the plan."""
    line = _plan(n, eps, objective).refused()
    assert line and "\n" not in line and "over the limit" in line


def test_the_run_check_refuses_the_release_the_old_plan_admitted():
    """eps 0.1, n = 204, the release (67, 66, 71) (seed 1 at the data (68, 68, 68)): the run's check of its kept
    points refuses in one line, and the plan (limit raised) is above the check's seconds."""
    from dpposterior.lattice.column import reach_region, search_filter

    n, eps, m = 204, 0.1, np.array([67, 66, 71])
    a = np.ones(3)
    Dc, W = L._radius(3, eps, 1e-12), L.LATTICE.column_radius(n, 3, eps)
    Z = reach_region(n, 3, m, Dc, W)
    _, first = np.unique(np.maximum(Z, 0), axis=0, return_index=True)
    reps = Z[first]
    kept = reps[search_filter(a, n, eps, m, reps, Dc)]
    off = kept[~np.all(kept >= 2, axis=1)]
    with pytest.raises(SizeError) as err:
        L._check_searches(off, n, 3, eps)
    assert "\n" not in str(err.value) and "over the limit" in str(err.value)
    assert L._parts_seconds(len(off), n, 3, eps) > 45.0


@pytest.mark.parametrize("run", POSTERIOR_RUNS, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_the_sampled_plan_is_above_its_runs_at_the_centre_and_the_probe(run, monkeypatch):
    """The plan (limit raised) above the whole process at the centre and at (or near) the probe."""
    eps, n, _, seconds = run
    plan = _plan(n, eps, limit=1e5, monkeypatch=monkeypatch)
    assert not plan.refused() and plan.route == "local column"
    assert seconds <= plan.seconds, (plan.seconds, seconds)


@pytest.mark.parametrize("n,eps,points,seconds", [(204, 0.1, 6648, 11.8), (300, 0.1, 1889, 9.4),
                                                  (400, 0.1, 1476, 18.6)])
def test_the_stay_miss_term_is_above_the_searches_it_checks(n, eps, points, seconds):
    """:func:`stay_left_seconds` above the measured search of the points the stay certificate left (the batched
    search's terms had checked them at 8.3, 2.4 and 1.8 s: under)."""
    assert L.stay_left_seconds(points, n, 3, eps) >= seconds
    assert L._inside_seconds(points, n, 3, eps) < seconds


@pytest.mark.parametrize("run", RELEASE_RUNS, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_each_plan_is_above_its_run(run, monkeypatch):
    """The plan (limit raised) above the whole process; up to eps 0.12 on the whole-ball fit within
    :data:`MOST_OVER`."""
    counts, eps, objective, seconds = run
    n = sum(int(c) for c in counts.split(","))
    plan = _plan(n, eps, objective, limit=1e5, monkeypatch=monkeypatch)
    assert not plan.refused()
    assert seconds <= plan.seconds, (plan.seconds, seconds)
    if L.whole_column_fit(n, 3, eps):
        assert plan.seconds <= MOST_OVER * seconds, (plan.seconds, seconds)
        assert plan.seconds >= LEAST_OVER * seconds, (plan.seconds, seconds)


@pytest.mark.parametrize("objective", ["average", "worst"])
@pytest.mark.parametrize("n,eps", [(55, 0.1), (60, 0.1), (67, 0.1), (80, 0.12), (90, 0.12)])
def test_the_cells_opened_or_kept_are_admitted(n, eps, objective):
    """eps 0.1 to n = 67, eps 0.12 to n = 90 (the refit).  The sampled cells whose probe kept nothing off R(n)
    (eps 0.1, n = 275; 0.12, 300; 0.15, 400) are refused now: the plan counts every release, and one next to a vertex
    keeps tens of thousands (tests/library/test_noise_aware_k3_all_releases_h75na3.py)."""
    plan = _plan(n, eps, objective)
    assert plan.fits and not plan.refused(), plan.refusal


@pytest.mark.parametrize("objective", ["average", "worst"])
@pytest.mark.parametrize("n,eps", [(68, 0.1), (100, 0.1), (91, 0.12), (100, 0.12), (110, 0.15), (400, 0.1)])
def test_the_cells_still_out_are_refused_in_one_line(n, eps, objective, monkeypatch):
    """Over the default limit: one line that states the seconds; planned with the limit raised."""
    line = _plan(n, eps, objective).refused()
    assert line and "\n" not in line and "over the limit" in line
    assert not _plan(n, eps, objective, limit=1e5, monkeypatch=monkeypatch).refused()


def test_the_fit_above_eps_012_is_the_one_before():
    """eps 0.121 to 0.15: the constants before (eps 0.15, n = 100 ran 39.7 s against 44.4 planned)."""
    rows = L.n_candidates(100, 3)
    assert L._parts_seconds(1000, 100, 3, 0.15) == pytest.approx(1000 * (7e-5 + 1.45e-8 * rows / 0.15))
    assert L._parts_seconds(1000, 100, 3, 0.12) == pytest.approx(1000 * (3.5e-5 + 8.6e-9 * rows / 0.12))


def test_the_cli_refuses_the_old_plans_cell_up_front_with_exit_2():
    """``release --noise-aware`` at eps 0.1, n = 204: exit 2, one line, nothing released (the old tree printed the
    release and then refused its posterior)."""
    proc, lines = _cli_refusal("68,68,68", "0.1")
    assert proc.returncode == 2 and not proc.stdout.strip()
    assert len(lines) == 1 and "over the limit" in lines[0] and "Traceback" not in proc.stderr


def test_the_benchmark_outputs_match_the_old_tree():
    """Where both trees released a cell (limits raised where refused), the JSON printed has the same hash."""
    runs = benchmark_records.runs(RECORD.name)
    if not runs:
        pytest.skip("no benchmark record")
    done: dict = {}
    for r in runs:
        if r["rc"] == 0:
            done.setdefault((r["counts"], r["epsilon"], r["objective"]), {})[r["tree"]] = r["sha256"]
    both = [v for v in done.values() if len(v) == 2]
    assert both and all(v["new"] == v["old"] for v in both)
