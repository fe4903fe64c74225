"""docs/definitions.md §2: the distance registry and dpposterior.distance, and what the distances share (the kept k = 2
matrix, the remembered values)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpposterior
from dpposterior import distance, hellinger
from dpposterior.distances import (
    DEFAULT_DISTANCE,
    DENSE_ENTRIES,
    DISTANCES,
    Distance,
    DistanceGrid,
    beta_matrix,
    get_distance,
    kl,
    tv,
)
from dpposterior.distances.hellinger import hellinger_from_log_bc
from dpposterior.errors import InputError
from dpposterior.models import candidates

DOCS = Path(__file__).resolve().parents[2] / "docs" / "definitions.md"


def test_registry_entries():
    assert list(DISTANCES) == ["hellinger", "tv", "kl"]
    assert DEFAULT_DISTANCE == "hellinger" and DEFAULT_DISTANCE in DISTANCES
    for name, d in DISTANCES.items():
        assert isinstance(d, Distance) and d.name == name and get_distance(name) is d
    assert [DISTANCES[n].is_metric for n in ("hellinger", "tv", "kl")] == [True, True, False]
    assert DISTANCES["tv"].domain == "Beta only (k = 2)"
    assert DISTANCES["kl"].domain == DISTANCES["hellinger"].domain == "Dirichlet, any k"
    with pytest.raises(AttributeError):  # frozen
        DISTANCES["tv"].name = "x"


def test_formulas_are_the_documented_ones():
    text = DOCS.read_text()
    for d in DISTANCES.values():
        assert d.formula in text, d.name


def test_unknown_name_one_line_listing_names():
    for bad in ("TV", "total variation", "", None, 3):
        with pytest.raises(InputError) as exc:
            get_distance(bad)
        msg = str(exc.value)
        assert "\n" not in msg and "unknown distance" in msg and "hellinger, tv, kl" in msg
        with pytest.raises(InputError, match="unknown distance"):
            distance(bad, [1.0, 2.0], [2.0, 1.0])


def test_check_k():
    for k in (2, 3, 10):
        DISTANCES["hellinger"].check(k)
        DISTANCES["kl"].check(k)
    DISTANCES["tv"].check(2)
    with pytest.raises(InputError, match=r"^tv is exact for Beta \(k = 2\) only, got k = 3$"):
        DISTANCES["tv"].check(3)


def test_distance_dispatches_exactly():
    rng = np.random.default_rng(7)
    p = 1.0 + rng.integers(0, 1000, (20, 2)).astype(float)
    q = 1.0 + rng.integers(0, 1000, (20, 2)).astype(float)
    np.testing.assert_array_equal(distance("hellinger", p, q), hellinger(p, q))
    np.testing.assert_array_equal(distance("tv", p, q), tv(p, q))
    np.testing.assert_array_equal(distance("kl", p, q), kl(p, q))
    for name, d in DISTANCES.items():
        np.testing.assert_array_equal(d.value(p, q), distance(name, p, q))
    assert dpposterior.distance is distance and "distance" in dpposterior.__all__


@pytest.mark.parametrize("name", list(DISTANCES))
def test_bad_parameters_refused_as_hellinger_refuses(name):
    for p, q in [([1, 0], [1, 1]), ([1, -2], [1, 1]), ([1, np.nan], [1, 1]), ([1, 2], [1, 2, 3]), ("ab", [1, 1]),
                 ([True, 2], [1, 1]), ([1], [1])]:
        with pytest.raises(InputError) as ours:
            distance(name, p, q)
        with pytest.raises(InputError) as theirs:
            hellinger(p, q)
        assert str(ours.value) == str(theirs.value) and "\n" not in str(ours.value)


def test_old_names_still_importable():
    from dpposterior.distances import (  # noqa: F401
        HELLINGER_TOLERANCE,
        SERIES_TERMS,
        SERIES_THRESHOLD,
        HellingerGrid,
        _lgamma_bound,
        hellinger,
        hellinger_from_log_bc,
        lgamma_jensen_gap,
        log_beta,
        log_bhattacharyya,
    )
    assert hellinger is dpposterior.hellinger


@pytest.mark.parametrize("name", ["tv", "kl"])
def test_the_matrix_is_the_distance_elementwise(name):
    prior, n = (0.7, 2.5), 9
    M = beta_matrix(name, prior, n)
    a = np.asarray(prior)
    for c in range(n + 1):
        for r in range(n + 1):
            assert M[c, r] == distance(name, a + [c, n - c], a + [r, n - r])
    assert not M.flags.writeable
    cands = candidates(n, 2)
    assert np.array_equal(DistanceGrid(prior, n, name).values(cands[3:5], cands), M[3:5])


def test_no_matrix_for_hellinger_k3_or_large_n():
    assert beta_matrix("hellinger", (1, 1), 10) is None
    assert beta_matrix("kl", (1, 1, 1), 10) is None
    n = int(DENSE_ENTRIES ** 0.5)  # (n + 1)^2 > DENSE_ENTRIES
    assert beta_matrix("kl", (1, 1), n) is None


def test_remembered_distance_values_are_copies_and_exact():
    from dpposterior.distances import DISTANCES, tv_unchecked
    from dpposterior.models import candidates

    p, q = np.array([3.0, 4.0]), 1.0 + candidates(20_000, 2).astype(np.float64)
    first = DISTANCES["tv"].value(p, q)
    first[:] = -1.0
    again = DISTANCES["tv"].value(p, q)
    assert np.array_equal(again, tv_unchecked(np.broadcast_to(p, q.shape), q)) and again.min() >= 0.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from([0.0, -0.0, 1e-300, -1e-300, -5e-324, 3.0, -800.0, -1e-17]),
                          st.floats(-50.0, 1.0, allow_nan=False)), min_size=1, max_size=30))
def test_the_in_place_hellinger_is_the_allocating_ones_floats(xs):
    """``hellinger_from_log_bc(x, out=x)`` gives the very floats (bytes: +0.0, never -0.0) of ``sqrt(-expm1(min(x,
    0))) + 0.0``, the allocating form's expression written here, zeros of both signs and positive ``ln BC`` included."""
    x = np.array(xs, dtype=np.float64)
    want = np.sqrt(-np.expm1(np.minimum(x, 0.0))) + 0.0
    got = hellinger_from_log_bc(x.copy(), out=x)
    assert got is x
    assert got.tobytes() == want.tobytes()
    assert hellinger_from_log_bc(np.array(xs, dtype=np.float64)).tobytes() == want.tobytes()
