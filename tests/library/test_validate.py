"""The one validation layer (dpposterior.validate): strict types, documented ranges, one-line errors."""

from __future__ import annotations

import fractions
import math
import re
from functools import partial

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpposterior as dp
from dpposterior import validate as V
from dpposterior.errors import InputError
from dpposterior.mechanisms import ReleaseSpec, log_pmf, sample


def one_line_error(fn, *args, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        fn(*args, **kwargs)
    msg = str(info.value)
    assert "\n" not in msg and msg
    return msg


# ---------------------------------------------------------------------------------------- scalars

SCALARS = [
    (V.epsilon, "epsilon", V.MIN_EPSILON, V.MAX_EPSILON),
    (V.gamma, "gamma", V.MIN_GAMMA, V.MAX_GAMMA),
    (V.eps_prime, "delta_at", 0.0, V.MAX_EPS_PRIME),
]


@pytest.mark.parametrize("fn, name, lo, hi", SCALARS)
def test_scalar_range_ends_are_accepted_and_outside_refused(fn, name, lo, hi):
    assert fn(lo) == lo and fn(hi) == hi
    assert fn(np.float32(1.0)) == 1.0 and isinstance(fn(1), float)
    for bad in (math.nextafter(hi, math.inf), -1.0, float("nan"), float("inf"), -float("inf")):
        msg = one_line_error(fn, bad)
        assert msg.startswith(name) and f"{hi:g}" in msg  # names the argument and the accepted range
    if lo > 0:
        msg = one_line_error(fn, lo / 2)
        assert f"{lo:g}" in msg and f"{lo / 2:g}" in msg  # ... and the value


@pytest.mark.parametrize("fn", [V.epsilon, V.gamma, V.delta, V.eps_prime, V.level, partial(V.positive, name="x")])
@pytest.mark.parametrize("bad", [True, False, np.bool_(True), "1", "0.5", None, [1.0], 1 + 0j])
def test_no_bool_string_or_container_is_a_number(fn, bad):
    one_line_error(fn, bad)


def test_delta_and_level_are_open_unit():
    assert V.delta(1e-300) == 1e-300 and V.delta(0.5) == 0.5
    for bad in (0.0, 1.0, 1e-320, -0.1, float("nan")):
        assert "(0, 1)" in one_line_error(V.delta, bad)
    for bad in (0.0, 1.0):
        assert one_line_error(V.level, bad).startswith("confidence must be in (0, 1)")


@pytest.mark.parametrize("value, expected", [(3, 3), (3.0, 3), (np.int64(7), 7), (2**53 - 1, 2**53 - 1)])
def test_sizes_accept_exact_integers(value, expected):
    assert V.size(value) == expected and isinstance(V.size(value), int)


@pytest.mark.parametrize("bad", [0, -1, 1.5, 2**53, 1e16, float("nan"), True, "7", None])
def test_sizes_refuse_the_rest(bad):
    assert one_line_error(V.size, bad).startswith("n must be a positive integer at most 2^53 - 1")


def test_sample_count_never_truncates():
    assert V.sample_count(0) == 0 and V.sample_count(5.0) == 5
    for bad in (1.5, -1, True, float("inf"), V.MAX_SAMPLES + 1):
        one_line_error(V.sample_count, bad)


def test_seeds():
    assert V.seed(0) == 0 and V.seed(2**128 - 1) == 2**128 - 1
    for bad in (-1, 2**128, 0.5, True, "1"):
        assert "non-negative integer below 2^128" in one_line_error(V.seed, bad)


# ---------------------------------------------------------------------------------------- vectors

@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=-(2**70), max_value=2**70), min_size=0, max_size=6))
def test_counts_are_exact_or_refused(xs):
    """Any list of Python ints: accepted exactly as given (Python-int sum), or one InputError."""
    ok = len(xs) >= 2 and all(x >= 0 for x in xs) and 1 <= sum(xs) <= V.MAX_TOTAL
    if ok:
        out = V.counts(xs)
        assert out.dtype == np.int64 and out.tolist() == xs
    else:
        one_line_error(V.counts, xs)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=2, max_size=4))
def test_float_counts_only_when_integral(xs):
    integral = all(math.isfinite(x) and x.is_integer() and x >= 0 for x in xs)
    if integral and 1 <= sum(int(x) for x in xs) <= V.MAX_TOTAL:
        assert V.counts(xs).tolist() == [int(x) for x in xs]
    else:
        one_line_error(V.counts, xs)


def test_counts_overflow_is_reported_not_wrapped():
    msg = one_line_error(V.counts, [4 * 10**18] * 3)
    assert "2^53 - 1" in msg
    msg = one_line_error(V.counts, np.array([4 * 10**18] * 3, dtype=np.int64))  # int64 sum would wrap
    assert "2^53 - 1" in msg


def test_count_errors_do_not_echo_counts():
    """Counts are data: an error names the position, never a count."""
    for bad in ([12345, -67890], [12345, 1.5], [12345, True]):
        msg = one_line_error(V.counts, bad)
        assert "12345" not in msg and "67890" not in msg and "entry 2" in msg


@pytest.mark.parametrize("bad, pattern", [
    ([1.0, 1e-13], r"\[1e-12, 1e\+09\]"),
    ([1.0, 2e9], r"\[1e-12, 1e\+09\]"),
    ([1.0, 0.0], "> 0"),
    ([1.0, True], "positive numbers"),
    ([1.0, "1"], "positive numbers"),
    ([1.0, float("nan")], "finite"),
    (np.ones((2, 2)), "flat list"),
])
def test_prior_range(bad, pattern):
    msg = one_line_error(V.prior, bad)
    assert msg.startswith("prior")
    assert re.search(pattern, msg)


def test_prior_ends_accepted():
    assert V.prior([V.MIN_PRIOR, V.MAX_PRIOR]).tolist() == [1e-12, 1e9]


def test_parse_helpers():
    assert V.parse_number("12", "x") == 12 and isinstance(V.parse_number("12", "x"), int)
    assert V.parse_number("4000000000000000001", "x") == 4000000000000000001  # exact, not via float
    assert V.parse_number("1e-3", "x") == 1e-3
    assert V.parse_int("1e6", "x") == 10**6
    one_line_error(V.parse_int, "1.5", "x")
    assert V.parse_list("1, 2.5", "prior") == [1, 2.5]
    for bad in ("1,,2", "1,a", "", ","):
        assert one_line_error(V.parse_list, bad, "prior").startswith("prior must be comma-separated numbers")


@pytest.mark.parametrize("text", ["1_0", "\u0661", "\uff11", "inf", "nan", "0x10", "", " ", "1e", "9" * 4001])
def test_parse_number_is_strict_ascii_decimal(text):
    assert one_line_error(V.parse_number, text, "x").startswith("x must be a number")


def test_parse_int_exact_forms_only():
    assert V.parse_int(" +7\t", "x") == 7 and V.parse_int("2.5e7", "x") == 25_000_000
    assert V.parse_int(str(2**53), "x") == 2**53 and V.parse_int("9007199254740992e0", "x") == 2**53
    assert V.parse_int("9" * 100, "x") == int("9" * 100)  # digits: exact at any length
    for bad in ("1e30", "2.5", "1_000", "\u0661"):
        one_line_error(V.parse_int, bad, "x")
    assert one_line_error(V.parse_int, "5", "x", 10, 20).startswith("x must be an integer in [10, 20]")
    assert V.parse_int(4.0, "x") == 4  # not text: straight to integer()


def test_parse_list_strict():
    assert V.parse_list(" 1,\t0.5 ,2e3", "prior") == [1, 0.5, 2000.0]
    for bad in ("1,\u0661", "5_0,5", "1,inf"):
        assert "ASCII decimal" in one_line_error(V.parse_list, bad, "prior")

@pytest.mark.parametrize("kwargs, pattern", [
    (dict(epsilon=True), "epsilon"),
    (dict(epsilon=1e12), "epsilon"),
    (dict(epsilon=1e-300), "epsilon"),
    (dict(delta=True), "delta"),
    (dict(gamma=1e-9), "gamma"),
    (dict(size=1.5), "size"),
    (dict(size=-1), "size"),
    (dict(rng=-1), "seed"),
    (dict(rng=True), "rng"),
    (dict(counts=[True, 3]), "counts"),
    (dict(prior=[1, -1]), "prior"),
])
def test_api_refuses_what_it_used_to_accept(kwargs, pattern):
    args = dict(mechanism="ehds", prior=[1, 1], counts=[3, 3], epsilon=1.0) | kwargs
    assert pattern in one_line_error(sample, **args)
    if "size" not in kwargs and "rng" not in kwargs:
        assert pattern in one_line_error(log_pmf, **args)


def test_check_params_messages_name_the_range():
    msg = one_line_error(ReleaseSpec.of, "ehds", 1e12, 1e-8, gamma=1.0)
    assert msg == "epsilon must be a positive number in [1e-06, 1000], got 1e+12"


@pytest.mark.parametrize("call, text", [
    (lambda: V.number(30.000001, "epsilon", 0.0, 30.0), "epsilon must be a number in [0, 30], got 30.000001"),
    (lambda: V.epsilon(1000.0000001), "in [1e-06, 1000], got 1000.0000001"),
    (lambda: V.number(0.3, "x", 0.1 + 0.2, 1.0), "in [0.30000000000000004, 1], got 0.3"),  # the bound exactly too
    (lambda: V.integer(2**53, "n", 0, V.MAX_TOTAL), "n must be an integer in [0, 9007199254740991], got 9007199254740992"),
    (lambda: V.integer(12_345_678, "n", 0, 10**7), "in [0, 1e+07], got 12345678"),  # 1e+07 is exact: kept short
    (lambda: V.integer(10**700, "n", 0, 10**12), "got 1.00e+700"),  # past 30 digits: the short form
    (lambda: V.sample_count(2**53, "size", 0, 2**53 - 1), "an integer at most 9007199254740991; got 9007199254740992"),
])
def test_range_messages_print_the_value_and_the_bound_exactly(call, text):
    with pytest.raises(InputError) as info:
        call()
    assert text in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("call", [
    lambda: dp.sample("ehds", [1, 1], pd.DataFrame([[30, 40]]), epsilon=1, rng=1),
    lambda: dp.log_pmf("ehds", [1, 1], pd.DataFrame([[3, 4]]), epsilon=1),
    lambda: dp.noise_aware_posterior("ehds", [1, 1], pd.DataFrame([[30, 40]]), epsilon=1),
    lambda: dp.sample("ehds", pd.DataFrame([[1, 1]]), [30, 40], epsilon=1, rng=1),
    lambda: dp.log_pmf("ehds", [1, 1], pd.DataFrame({"no": [30], "yes": [40]}), epsilon=1),
    lambda: dp.concrete_epsilon("ehds", pd.DataFrame([[1, 1]]), 5, epsilon=1),
    lambda: dp.posterior(pd.DataFrame([[1, 1]]), [3, 4]),
    lambda: dp.smooth_sensitivity([1, 1], pd.DataFrame([[3, 4]]), gamma=1),
])
def test_dataframes_are_refused_with_what_to_pass(call):
    with pytest.raises(InputError, match="got a DataFrame; pass one row or column") as err:
        call()
    assert "\n" not in str(err.value)


def test_masked_arrays_are_refused():
    with pytest.raises(InputError, match="masked array"):
        dp.log_pmf("ehds", [1, 1], np.ma.masked_array([3, 4], [0, 1]), epsilon=1)


@pytest.mark.parametrize("wrap", [list, tuple, np.array, pd.Series, pd.Index, lambda v: pd.Series(v, index=[7, 9])])
def test_lists_tuples_arrays_and_series_give_the_same_answer(wrap):
    expect = dp.log_pmf("ehds", [1, 1], [3, 4], epsilon=1)
    got = dp.log_pmf("ehds", wrap([1.0, 1.0]), wrap([3, 4]), epsilon=1)
    assert got.shape == expect.shape == (8,) and np.array_equal(got, expect)
    draws = dp.sample("ehds", [1, 1], wrap([30, 40]), epsilon=1, rng=1, size=3)
    assert (draws.sum(axis=1) == 70).all()  # n = 70 released, never the labels' n = 1


@pytest.mark.parametrize("call", [
    lambda: dp.log_pmf("ehds", [10**400, 1], [3, 4], epsilon=1),
    lambda: dp.concrete_epsilon("ehds", [10**400, 1], 5, epsilon=1),
    lambda: dp.noise_aware_posterior("ehds", [10**400, 1], [3, 4], epsilon=1),
    lambda: dp.posterior([10**400, 1], [3, 4]),
    lambda: dp.global_sensitivity([10**400, 1], 5),
    lambda: dp.smooth_sensitivity([10**400, 1], [3, 4], gamma=1),
    lambda: dp.log_pmf("ehds", [fractions.Fraction(10**400, 3), 1], [3, 4], epsilon=1),
    lambda: dp.log_pmf("ehds", [1, 1], [fractions.Fraction(10**400, 3), 4], epsilon=1),
    lambda: dp.log_pmf("ehds", [-(10**400), 1], [3, 4], epsilon=1),
    lambda: dp.log_pmf("ehds", [10**5000, 1], [3, 4], epsilon=1),
    lambda: dp.log_pmf("ehds", [1, 1], [3, 4], epsilon=1, objective=np.array(["worst", "average"])),
    lambda: dp.log_pmf("ehds", [1, 1], [3, 4], epsilon=1, objective=np.array(["worst"])),
    lambda: dp.log_pmf("ehds", [1, 1], [3, 4], epsilon=1, global_sensitivity_method=np.array(["exact", "paper"])),
    lambda: dp.log_pmf(np.array(["ehds", "ehd"]), [1, 1], [3, 4], epsilon=1),
])
def test_api_types_are_input_errors(call):
    with pytest.raises(InputError) as err:
        call()
    assert "\n" not in str(err.value) and len(str(err.value)) < 400
