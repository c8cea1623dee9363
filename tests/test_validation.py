"""Argument validators: tables of valid and invalid values, including nasty floats."""

import math
from fractions import Fraction

import numpy as np
import pytest

from dpaudit._validation import (
    check_choice,
    check_finite_array,
    check_integer,
    check_probability_vector,
    check_rational,
    check_real,
)
from dpaudit.errors import DpAuditError, InvalidArgument, InvalidType

SUBNORMAL = 5e-324
BELOW_ONE = 1 - 2**-53


@pytest.mark.parametrize(
    ("value", "bounds", "expected"),
    [
        (0, {}, 0.0),
        (-0.0, {}, 0.0),
        (SUBNORMAL, {"low": 0.0, "low_open": True}, SUBNORMAL),
        (BELOW_ONE, {"low": 0.0, "high": 1.0, "high_open": True}, BELOW_ONE),
        (1.0, {"low": 0.0, "high": 1.0}, 1.0),
        (np.float32(0.5), {}, 0.5),
        (np.int64(3), {"low": 3}, 3.0),
        (math.inf, {"allow_inf": True}, math.inf),
        (Fraction(1, 3), {}, 1 / 3),
    ],
)
def test_check_real_accepts(value, bounds, expected):
    assert check_real("x", value, **bounds) == expected


def test_negative_zero_is_normalised():
    assert math.copysign(1.0, check_real("x", -0.0)) == 1.0


@pytest.mark.parametrize(
    ("value", "bounds", "error"),
    [
        (math.nan, {}, InvalidArgument),
        (math.inf, {}, InvalidArgument),
        (-math.inf, {"allow_inf": True, "low": 0.0}, InvalidArgument),
        (0.0, {"low": 0.0, "low_open": True}, InvalidArgument),
        (-0.0, {"low": 0.0, "low_open": True}, InvalidArgument),
        (-SUBNORMAL, {"low": 0.0}, InvalidArgument),
        (1.0, {"high": 1.0, "high_open": True}, InvalidArgument),
        (1.0 + 2**-52, {"high": 1.0}, InvalidArgument),
        (True, {}, InvalidType),
        ("1.0", {}, InvalidType),
        (None, {}, InvalidType),
        ([1.0], {}, InvalidType),
    ],
)
def test_check_real_rejects(value, bounds, error):
    with pytest.raises(error) as info:
        check_real("epsilon", value, **bounds)
    assert "epsilon=" in str(info.value)
    assert isinstance(info.value, DpAuditError)


def test_errors_are_builtin_subclasses():
    assert issubclass(InvalidArgument, ValueError)
    assert issubclass(InvalidType, TypeError)


def test_message_says_what_was_expected():
    with pytest.raises(InvalidArgument, match=r"delta=1.5: expected a real number >= 0 and < 1"):
        check_real("delta", 1.5, low=0.0, high=1.0, high_open=True)


@pytest.mark.parametrize("value", [0, 5, np.int32(7)])
def test_check_integer_accepts(value):
    assert check_integer("n", value, low=0) == int(value)


@pytest.mark.parametrize(
    ("value", "error"), [(-1, InvalidArgument), (1.0, InvalidType), (True, InvalidType), ("3", InvalidType)]
)
def test_check_integer_rejects(value, error):
    with pytest.raises(error, match="n="):
        check_integer("n", value, low=0)


def test_check_rational_is_exact():
    assert check_rational("gamma", "99/100") == Fraction(99, 100)
    assert check_rational("gamma", 0.5) == Fraction(1, 2)
    with pytest.raises(InvalidArgument):
        check_rational("gamma", "not a number")
    with pytest.raises(InvalidArgument):
        check_rational("gamma", "3/2", high=1.0)


def test_check_choice():
    assert check_choice("norm", "l2", ("l1", "l2")) == "l2"
    with pytest.raises(InvalidArgument, match="expected one of 'l1', 'l2'"):
        check_choice("norm", "l3", ("l1", "l2"))


def test_check_finite_array_names_offending_index():
    with pytest.raises(InvalidArgument, match=r"P\[1, 0\]=nan"):
        check_finite_array("P", [[0.5, 0.5], [math.nan, 1.0]])
    with pytest.raises(InvalidArgument, match=r"P\[0, 1\]=-0.25: expected entries >= 0"):
        check_finite_array("P", [[1.25, -0.25]], nonnegative=True)
    with pytest.raises(InvalidArgument, match="expected shape"):
        check_finite_array("P", [1.0, 2.0], shape=(3,))
    assert check_finite_array("P", [[1.0, 2.0]], shape=(None, 2)).shape == (1, 2)


@pytest.mark.parametrize("vector", [[1.0], [0.5, 0.5], [BELOW_ONE, 2**-53], [0.0, 1.0]])
def test_probability_vector_accepts(vector):
    assert check_probability_vector("p", vector).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("vector", [[0.5, 0.6], [1.5, -0.5], [math.nan, 1.0], [math.inf], [], [[0.5, 0.5]]])
def test_probability_vector_rejects(vector):
    with pytest.raises(InvalidArgument):
        check_probability_vector("p", vector)


def test_check_finite_array_refuses_what_numpy_would_read_as_numbers():
    with pytest.raises(InvalidType, match=r"P\[0\]\[1\]='2': expected a real number, got str"):
        check_finite_array("P", [[1.0, "2"]])
    with pytest.raises(InvalidType, match=r"P\[1\]=True: expected a real number, got bool"):
        check_finite_array("P", [1.0, True])
    with pytest.raises(InvalidType, match="got dtype bool"):
        check_finite_array("P", [np.array([True, False])])
    assert check_finite_array("P", [np.array([1.0, 2.0]), (3, 4)]).shape == (2, 2)  # arrays and tuples of numbers
