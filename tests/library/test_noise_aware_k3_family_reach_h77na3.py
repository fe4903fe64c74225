"""The k = 3 noise-aware plan over its family of releases at every n (within the centre's reach and past it): each
release's filters, certificate and searches as its run's check counts them (:func:`L.sampled_release_cost`, read
through :func:`L.release_search_seconds`, the rule the run's check reads), and a release on a face or next to it
(:func:`L.face_release`) at :data:`L.FACE_PART_FACTOR` times its parts' cost.

- the plan (the limit raised) above every measured run in :data:`RUNS` (the whole ``posterior --released`` process);
  a run stopped at its CPU cap sits in a refused cell;
- eps 0.2, n = 1,000 (admitted by the tree before at 4.9 s; its vertex (10, 10, 980) runs 118 CPU s) refused in one
  line, the CLI exit 2;
- the sample's counts near the run's at a face and a vertex past the centre's reach.

Within the centre's reach from n = 205 the family is costed the same way (test_noise_aware_k3_face_plateau_h78na3:
eps 0.3, n = 600, planned 7.5 s before while its face (2, 299, 299) runs 53.4 CPU s, is refused in one line).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from dpposterior.mechanisms import lattice as L

from .test_noise_aware_k3_h73na3 import _plan  # the plan at Dir(1,1,1), its limit raised where asked

#: ``posterior --prior 1,1,1 --released R --n N --mechanism optimal --objective average --epsilon EPS`` with
#: ``DPPOSTERIOR_MAX_SOLVE_SECONDS=100000``, the whole process, CPU s (``None``: stopped at the CPU cap given last),
#: load; OLD/src (the run is the same code in both trees), 2026-12-02.
RUNS = [
    (0.2, 1000, (10, 10, 980), 118.0, None, None),  # the closing note's run (114.8 s its search)
    (0.25, 10_000, (10, 10, 9980), 55.7, None, 2.9),
    (0.3, 10_000, (10, 10, 9980), 29.9, None, 4.8),
    (0.25, 1_000_000, (10, 10, 999980), None, 200, 5.7),
    (0.25, 10_000, (2, 4999, 4999), None, 200, 4.8),
    (0.5, 10_000, (10, 10, 9980), 7.2, None, 7.9),
    (1.0, 1_000_000, (10, 10, 999980), 15.4, None, 8.3),
    (0.3, 1000, (3, 499, 498), 79.9, None, 5.2),
    (0.3, 1000, (10, 10, 980), 31.5, None, 6.9),
    (0.25, 1000, (4, 498, 498), None, 150, 7.1),
    (0.3, 10_000, (3, 4999, 4998), 139.5, None, 7.8),
    (1.0, 1_000_000, (2, 499999, 499999), 30.7, None, 8.6),
    (0.3, 204, (2, 101, 101), 13.2, None, 9.6),
    (0.5, 1_000_000, (2, 499999, 499999), None, 150, 9.7),
]


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_the_plan_is_above_every_measured_release(run, monkeypatch):
    """The plan above each measured run (1.2x where its run ended); a run stopped at its cap in a refused cell.  These
    runs predate the exact descent filter (the searches it drops ran in them): where the plan now prices what it keeps
    (:func:`L.exact_filter_priced`) the cell is refused, or measured again with the filter
    (``benchmarks/face_runs_filter_plan_h81fx.json``, the plan's bound asserted there:
    tests/library/test_noise_aware_k3_filter_plan_h81fx.py)."""
    eps, n, _, seconds, cap, _ = run
    if L.exact_filter_priced(n, 3, eps):
        import json
        import pathlib

        if _plan(n, eps).refused():
            return
        bench = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "face_runs_filter_plan_h81fx.json"
        rows = json.loads(bench.read_text())["runs"]
        assert (eps, n) in {(r["eps"], r["n"]) for r in rows if not r["stopped_at_cap"]}
        return
    raised = _plan(n, eps, limit=1e6, monkeypatch=monkeypatch)
    assert not raised.refused()
    if seconds is None:
        assert raised.seconds >= cap
        monkeypatch.delenv("DPPOSTERIOR_MAX_SOLVE_SECONDS")
        assert _plan(n, eps).refused()
    else:
        assert raised.seconds >= 1.2 * seconds, (raised.seconds, seconds)


@pytest.mark.parametrize("objective", ["average", "worst"])
def test_eps_02_n_1000_is_refused_in_one_line(objective):
    """Admitted before at 4.9 s (the centre alone); its vertex (10, 10, 980) runs 118 CPU s."""
    line = _plan(1000, 0.2, objective).refused()
    assert line and "\n" not in line and "over the limit" in line


def test_the_cli_refuses_the_cell_with_exit_2_and_one_line():
    proc = subprocess.run([sys.executable, "-m", "dpposterior", "release", "--prior", "1,1,1", "--counts",
                           "10,10,980", "--mechanism", "optimal", "--epsilon", "0.2", "--noise-aware", "--seed", "1"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and not proc.stdout.strip()


def test_the_family_reaches_past_the_centre():
    """Past the centre's reach (eps 0.2, n = 1,000 and 1e6) the family holds the centre, two faces, two vertices."""
    assert not L.sampled_column(1000, 3, 0.2) and L.family_past_reach(1000, 3, 0.2)
    assert L.family_past_reach(10**6, 3, 0.2) and not L.family_past_reach(10**6, 4, 0.2)
    assert not L.family_past_reach(10**6, 3, 2.0) and not L.family_past_reach(300, 3, 0.2)
    fam = L.sampled_release_probes((1, 1, 1), 1000, 3, 0.2)
    assert len(fam) == 5 and all(int(r.sum()) == 1000 for r in fam)
    assert min(int(r.min()) for r in fam) <= L.FACE_PART_SHARE * L._radius(3, 0.2, 1e-12)


def test_the_face_factor_is_read_by_the_runs_check_at_its_release():
    """The run's check reads the release: the same parts cost face_part_factor times more on a face."""
    Z = np.tile(np.array([[0, 0, 1050]]), (1000, 1))
    face = L.release_search_seconds(0, len(Z), 1000, 3, 0.3, released=np.array([2, 499, 499]))
    centre = L.release_search_seconds(0, len(Z), 1000, 3, 0.3, released=np.array([334, 333, 333]))
    assert face == pytest.approx(L.face_part_factor(1000, 0.3) * centre)
    assert L.release_search_seconds(0, 1000, 204, 3, 0.3, released=np.array([2, 101, 101])) == pytest.approx(
        L.release_search_seconds(0, 1000, 204, 3, 0.3))


@pytest.mark.parametrize("eps,m,parts,left", [(0.3, (3, 499, 498), 21_900, 2_923), (0.3, (10, 10, 980), 14_345, 1_135),
                                              (0.2, (10, 10, 980), 30_816, 768)])
def test_the_sample_counts_what_the_run_counts(eps, m, parts, left):
    """The sample's parts within 10 % of the run's (counted by the run at n = 1,000, 2026-12-02), and the points of
    R(n) the certificate leaves within 1.5x."""
    n = 1000
    Dc, W = L._radius(3, eps, 1e-12), L.LATTICE.column_radius(n, 3, eps)
    p, lft, _ = L.sampled_release_cost(np.ones(3), n, eps, Dc, W, np.asarray(m))
    assert 0.9 * parts <= p <= 1.1 * parts
    assert left / 1.5 <= lft <= 1.5 * left
