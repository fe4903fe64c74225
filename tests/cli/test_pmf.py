"""`dpposterior pmf`: the exact pmf over R(n), as JSON and text."""

from __future__ import annotations

import numpy as np

from dpposterior.mechanisms import log_pmf
from dpposterior.models import candidates
from dpposterior.sensitivity import PAPER_GLOBAL_SENSITIVITY, global_sensitivity

from .helpers import LIMIT_S, assert_clean_refusal, ones, run, run_case, run_json


def test_pmf_json_has_every_candidate_and_exact_values(capsys):
    out = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "ehds", "--epsilon", "1")
    assert set(out) == {"mechanism", "epsilon", "delta", "outputs"}
    assert (out["mechanism"], out["epsilon"], out["delta"]) == ("ehds", 1.0, 1e-8)
    rows = out["outputs"]
    assert [r["counts"] for r in rows] == candidates(8, 2).tolist()
    assert set(rows[0]) == {"counts", "alpha", "probability", "hellinger", "steps"}
    expected = np.exp(log_pmf("ehds", [1, 1], [4, 4], epsilon=1.0))
    assert np.allclose([r["probability"] for r in rows], expected, rtol=1e-12)
    assert [r["steps"] for r in rows] == [4, 3, 2, 1, 0, 1, 2, 3, 4]
    assert rows[4]["hellinger"] == 0.0 and rows[4]["alpha"] == [5.0, 5.0]
    # 000 Table 1 prints these distances for steps 4..1
    assert [round(r["hellinger"], 11) for r in rows[:4]] == [0.83737258593, 0.6621743917, 0.45763586503, 0.23362948071]


def test_pmf_options_change_the_distribution(capsys):
    base = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "ehd", "--epsilon", "1")
    paper = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "ehd", "--epsilon", "1",
                     "--global-sensitivity", "paper")
    g2 = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "ehds", "--epsilon", "1",
                  "--gamma", "2")
    g1 = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "ehds", "--epsilon", "1")
    p = lambda o: np.array([r["probability"] for r in o["outputs"]])  # noqa: E731
    # exact GS for Beta(1,1), n = 8 is below the paper constant sqrt(1 - pi/4) (attained only at n = 1),
    # so the paper constant spreads the output more
    assert global_sensitivity([1, 1], 8) < PAPER_GLOBAL_SENSITIVITY
    assert p(paper)[4] < p(base)[4]
    assert not np.allclose(p(g1), p(g2))
    md = run_json(capsys, "pmf", "--prior", "1,1", "--counts", "4,4", "--mechanism", "mh-delta", "--epsilon", "1",
                  "--delta", "1e-3")
    assert md["delta"] == 1e-3
    assert np.allclose(p(md), np.exp(log_pmf("mh-delta", [1, 1], [4, 4], epsilon=1.0, delta=1e-3)))


def test_pmf_text_output_lists_candidates(capsys):
    code, out, _ = run(capsys, "pmf", "--prior", "1,1,1", "--counts", "1,1,0", "--mechanism", "lshist", "--epsilon", "1")
    assert code == 0
    lines = [x for x in out.splitlines() if x.strip() and not x.startswith("#")]
    assert len(lines) == 1 + 6  # header + |R(2)| for k = 3


def test_pmf_count_past_4300_digits_is_one_line():
    k = 60_000  # |R(n)| = C(2k - 1, k - 1) has ~36,000 digits
    code, out, err, wall = run_case(["pmf", "--prior", ones(k), "--counts", ones(k), "--mechanism", "ehds",
                                     "--epsilon", "1", "--top", "1"])
    assert_clean_refusal(code, out, err, "DPPOSTERIOR_MAX_PMF_WORK")
    assert "e+3612" in err and wall < LIMIT_S


def test_pmf_of_the_lattice_release_past_its_rows_is_its_pmf_at_one_data_set(capsys):
    """Past the rows over R(n) (|R(n)| = 455 > 60) ``pmf`` prints the lattice release's pmf at the one data set asked
    (``LatticeMechanism.pmf_at``): its probabilities, the route and the bracket in the head; the worst objective's
    randomised corner rows are refused in one line."""
    from dpposterior.mechanisms import ReleaseSpec
    from dpposterior.mechanisms.lattice import LATTICE

    argv = ["pmf", "--prior", "1,1,1,1", "--counts", "3,3,3,3", "--mechanism", "lattice", "--objective", "average",
            "--epsilon", "2"]
    out = run_json(capsys, *argv)
    spec = ReleaseSpec.of("lattice", 2.0, objective="average")
    low, slack = LATTICE.pmf_at(np.ones(4), np.array([3, 3, 3, 3]), spec)
    assert out["route"].startswith("pmf at one data set, ") and out["prob_slack"] == slack < 1e-9
    p = np.array([r["probability"] for r in out["outputs"]])
    assert [r["counts"] for r in out["outputs"]] == candidates(12, 4).tolist() and np.allclose(p, low, rtol=1e-13, atol=0)
    assert 1 - slack <= p.sum() <= 1 + 1e-12
    code, text, _ = run(capsys, *argv, "--top", "2")
    assert code == 0 and "lower ends of the output distribution" in text and "within 4" in text
    code, _, err = run(capsys, "pmf", "--prior", "1,1,1,1", "--counts", "25,25,25,25", "--mechanism", "lattice",
                       "--epsilon", "1")
    assert code == 2 and "corner table's rows are randomised" in err and len(err.strip().splitlines()) == 1


def test_pmf_of_optimal_past_its_linear_program_is_the_lattice_releases_pmf_at_one_data_set(capsys):
    """``optimal`` past its LP (k = 4, n = 20: |R(n)| = 1,771 > 260) is the lattice release: ``pmf`` prints that
    release's pmf at the data set asked, the same numbers and bracket as ``lattice``'s, not a refusal."""
    argv = ["--prior", "1,1,1,1", "--counts", "5,5,5,5", "--objective", "average", "--epsilon", "2"]
    ours = run_json(capsys, "pmf", "--mechanism", "optimal", *argv)
    theirs = run_json(capsys, "pmf", "--mechanism", "lattice", *argv)
    assert ours["route"] == theirs["route"] and ours["prob_slack"] == theirs["prob_slack"]
    assert ours["outputs"] == theirs["outputs"] and ours["mechanism"] == "optimal"
