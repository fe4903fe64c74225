"""`dpposterior release` names the eps a lattice release ran at where it is not the claimed one (k >= 4: eps floored
to a multiple of 2^-20, ``mechanisms.lattice.working_epsilon``): a ``working eps:`` line and JSON
``"working_epsilon"``, from public inputs only; and a refusal names the claimed eps with the working one beside it.
The oracle of the working eps is an exact rational computation here, importing nothing from the library."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dpposterior.errors import SizeError
from dpposterior.mechanisms import ReleaseSpec
from dpposterior.mechanisms.lattice import LATTICE, claimed_text

from .helpers import run, run_json


def oracle(eps: float) -> float:
    """The largest num / 2^j <= eps with j <= 20 and num < 2^20, by exact rationals."""
    e = Fraction(eps)
    best = Fraction(0)
    for j in range(21):
        num = min(2**20 - 1, (e * 2**j).__floor__())
        best = max(best, Fraction(num, 2**j))
    return float(best)


#: n = 19: past the linear program of ``optimal`` (its table is solved at eps itself: n = 4 here, by orbits to n = 12
#: and over a coarser lattice at n = 13 to 18 and 21 at eps 0.4), so both read it
K4 = ["release", "--prior", "1,1,1,1", "--counts", "5,5,5,4", "--seed", "1"]


@pytest.mark.parametrize("mechanism", ["lattice", "optimal"])
def test_k4_names_its_working_eps(capsys, mechanism):
    """eps 0.4 at k = 4 runs at 0.39999962: the JSON says so, the text prints one line with it and the claim 0.4;
    the guarantee line keeps 0.4."""
    got = run_json(capsys, *K4, "--mechanism", mechanism, "--epsilon", "0.4")
    assert got["remap"] == "local search"
    assert got["working_epsilon"] == oracle(0.4) < 0.4 and got["epsilon"] == 0.4
    code, out, _ = run(capsys, *K4, "--mechanism", mechanism, "--epsilon", "0.4")
    lines = out.splitlines()
    assert code == 0 and "guarantee: 0.4-DP (seeded: not private)" in lines
    assert [x for x in lines if x.startswith("working eps:")] == [
        "working eps: 0.39999962 (eps floored to a multiple of 2^-20 so that the searches share work; still 0.4-DP)"]


@pytest.mark.parametrize("flags", [
    ["--prior", "1,1,1,1", "--counts", "1,1,1,1", "--mechanism", "lattice", "--epsilon", "0.5"],  # on the grid
    ["--prior", "1,1,1", "--counts", "2,2,2", "--mechanism", "lattice", "--epsilon", "0.4"],  # k = 3: eps itself
    ["--prior", "1,1,1,1", "--counts", "1,1,1,1", "--mechanism", "geometric", "--epsilon", "0.4"],
    ["--prior", "1,1", "--counts", "4,6", "--mechanism", "optimal", "--epsilon", "0.4"],
    ["--prior", "1,1,1,1", "--counts", "1,1,1,1", "--mechanism", "optimal", "--epsilon", "0.4"],  # its LP's table
])
def test_eps_itself_prints_no_line(capsys, flags):
    eps = float(flags[-1])
    assert run_json(capsys, "release", "--seed", "1", *flags)["working_epsilon"] == eps
    code, out, _ = run(capsys, "release", "--seed", "1", *flags)
    assert code == 0 and not any(x.startswith("working eps:") for x in out.splitlines())


def test_the_working_eps_reads_no_count(capsys):
    """A function of public inputs: two data sets of one n name one working eps."""
    base = ["release", "--prior", "1,1,1,1", "--mechanism", "lattice", "--epsilon", "0.3", "--seed", "2"]
    got = {run_json(capsys, *base, "--counts", c)["working_epsilon"] for c in ("1,1,1,1", "4,0,0,0")}
    assert got == {oracle(0.3)}


def test_a_refusal_names_the_claimed_eps(capsys):
    """The noise-aware posterior at k = 4, n = 25, eps 0.3 is refused before the draw; its line names eps 0.3 and
    the working eps, not the working eps alone (which ``:g`` prints as 0.299999)."""
    code, out, err = run(capsys, "release", "--prior", "1,1,1,1", "--counts", "7,6,6,6", "--mechanism", "optimal",
                         "--epsilon", "0.3", "--noise-aware", "--seed", "1")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "eps=0.3 (working eps 0.29999924)" in err and "0.299999 " not in err and "eps=0.299999" not in err


def test_a_raised_refusal_names_the_claimed_eps():
    """The same where a method raises (the pmf at one data set, admitted inside the call): the same exception type,
    its line rewritten."""
    with pytest.raises(SizeError, match=r"eps=0\.3 \(working eps 0\.29999924\)"):
        LATTICE.check_pmf_at(1000, 4, ReleaseSpec.of("lattice", 0.3))
    # at an eps on the grid nothing is rewritten
    with pytest.raises(SizeError, match=r"eps=0\.25 \("):
        LATTICE.check_pmf_at(1000, 4, ReleaseSpec.of("lattice", 0.25))


def test_claimed_text():
    """Only ``eps=<working>`` as a whole number is rewritten, every time it occurs; equal eps leave the text."""
    w = oracle(0.3)
    assert claimed_text("k=4, eps=0.299999: x", 0.3, w) == "k=4, eps=0.3 (working eps 0.29999924): x"
    assert claimed_text("eps=0.2999995, eps=0.299999", 0.3, w) == "eps=0.2999995, eps=0.3 (working eps 0.29999924)"
    assert claimed_text("eps=0.5", 0.5, 0.5) == "eps=0.5"
    assert np.isclose(w, 0.3, atol=2**-20) and w < 0.3


def test_the_python_release_records_it():
    """``dpposterior.release`` keeps the working eps beside the claimed one (eps itself where they agree)."""
    import warnings

    import dpposterior

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = dpposterior.release("lattice", [1, 1, 1, 1], [2, 2, 2, 2], epsilon=0.4, rng=1)
        same = dpposterior.release("geometric", [1, 1, 1, 1], [2, 2, 2, 2], epsilon=0.4, rng=1)
    assert (got.epsilon, got.working_epsilon) == (0.4, oracle(0.4)) and got.guarantee.startswith("0.4-DP")
    assert same.working_epsilon == 0.4
