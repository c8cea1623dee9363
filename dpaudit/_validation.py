"""Shared argument checks.

Each helper returns the normalised value or raises :class:`~dpaudit.errors.InvalidArgument`
(or :class:`~dpaudit.errors.InvalidType`) with a message that echoes ``name=value`` and
says what was expected.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.errors import InvalidArgument, InvalidType

__all__ = [
    "MAX_JSON_DEPTH",
    "check_choice",
    "check_finite_array",
    "check_integer",
    "check_json_data",
    "check_module_callable",
    "check_probability_vector",
    "check_rational",
    "check_real",
]


def _describe(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _interval_text(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    if low is None and high is None:
        return "any finite real number"
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high:g}")
    return "a real number " + " and ".join(parts)


def check_real(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """Return ``value`` as a float after checking it is a real number in the stated range.

    Args:
        name: the argument's name, echoed in the error.
        value: the value to check; bools and non-numbers are rejected.
        low, high: optional bounds; ``None`` means unbounded on that side.
        low_open, high_open: whether the bound itself is excluded.
        allow_inf: accept ``±inf`` (still subject to the bounds).

    Returns:
        The value as a Python float (``-0.0`` is normalised to ``0.0``).

    Raises:
        InvalidType: if the value is not a real number.
        InvalidArgument: if it is NaN, infinite (unless allowed) or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise InvalidType(f"{name}={_describe(value)}: expected a real number, got {type(value).__name__}")
    number = float(value)
    expected = _interval_text(low, high, low_open, high_open)
    if math.isnan(number):
        raise InvalidArgument(f"{name}=nan: expected {expected}")
    if math.isinf(number) and not allow_inf:
        raise InvalidArgument(f"{name}={number}: expected a finite value, {expected}")
    if low is not None and (number < low or (low_open and number == low)):
        raise InvalidArgument(f"{name}={_describe(value)}: expected {expected}")
    if high is not None and (number > high or (high_open and number == high)):
        raise InvalidArgument(f"{name}={_describe(value)}: expected {expected}")
    return number + 0.0


def check_rational(name: str, value: Any, **bounds: Any) -> Fraction:
    """Return ``value`` as an exact :class:`fractions.Fraction` after :func:`check_real`'s checks.

    Floats convert exactly (their binary value); strings such as ``"99/100"`` are parsed.
    """
    if isinstance(value, str):
        try:
            exact = Fraction(value)
        except (ValueError, ZeroDivisionError) as exc:
            raise InvalidArgument(f"{name}={value!r}: expected a rational such as '99/100'") from exc
        check_real(name, float(exact), **bounds)
        return exact
    if isinstance(value, Fraction):
        check_real(name, float(value), **bounds)
        return value
    check_real(name, value, **bounds)
    return Fraction(value)


def check_integer(name: str, value: Any, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int after checking it is an integer in ``[low, high]``.

    Raises:
        InvalidType: for bools, floats and non-numbers.
        InvalidArgument: when out of range.
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise InvalidType(f"{name}={_describe(value)}: expected an integer, got {type(value).__name__}")
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise InvalidArgument(f"{name}={number}: expected an integer in [{lo}, {hi}]")
    return number


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``; otherwise raise InvalidArgument listing them."""
    options = list(choices)
    if value not in options:
        listed = ", ".join(repr(option) for option in options)
        raise InvalidArgument(f"{name}={_describe(value)}: expected one of {listed}")
    return value


def check_finite_array(
    name: str,
    value: Any,
    *,
    ndim: int | None = None,
    shape: Sequence[int | None] | None = None,
    nonnegative: bool = False,
) -> np.ndarray:
    """Return ``value`` as a float64 array after checking finiteness, dimension and shape.

    Args:
        shape: expected shape; ``None`` entries accept any length along that axis.
        nonnegative: also require every entry to be ``>= 0``.

    Raises:
        InvalidArgument: naming the first offending index and its value.
    """
    if isinstance(value, list | tuple):
        _check_plain_numbers(name, value)
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidType(f"{name}: expected an array of real numbers ({exc})") from exc
    if ndim is not None and array.ndim != ndim:
        raise InvalidArgument(f"{name}: expected a {ndim}-dimensional array, got shape {array.shape}")
    if shape is not None and (
        array.ndim != len(shape)
        or any(want is not None and got != want for got, want in zip(array.shape, shape, strict=False))
    ):
        wanted = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
        raise InvalidArgument(f"{name}: expected shape {wanted}, got {array.shape}")
    bad = ~np.isfinite(array)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidArgument(f"{name}[{_index_text(index)}]={float(array[index])!r}: expected finite entries")
    if nonnegative and (array < 0).any():
        index = tuple(int(i) for i in np.argwhere(array < 0)[0])
        raise InvalidArgument(f"{name}[{_index_text(index)}]={float(array[index])!r}: expected entries >= 0")
    return array


def _check_plain_numbers(name: str, value: list[Any] | tuple[Any, ...]) -> None:
    """Every leaf of nested lists is a number: numpy would read ``"0.5"`` and ``true`` as 0.5 and 1.0.

    Raises:
        InvalidType: naming the first leaf that is a string, a boolean or another non-number.
    """
    stack: list[tuple[str, Any]] = [(name, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend((f"{where}[{index}]", child) for index, child in reversed(list(enumerate(item))))
        elif isinstance(item, np.ndarray):
            if item.dtype.kind not in "iuf":
                raise InvalidType(f"{where}: expected an array of real numbers, got dtype {item.dtype}")
        elif isinstance(item, bool) or not isinstance(item, numbers.Real | np.floating | np.integer):
            raise InvalidType(f"{where}={_describe(item)}: expected a real number, got {type(item).__name__}")


def check_probability_vector(name: str, value: Any, *, atol: float = 1e-12) -> np.ndarray:
    """Return ``value`` as a probability vector: finite, non-negative, summing to 1 within ``atol``."""
    vector = check_finite_array(name, value, ndim=1, nonnegative=True)
    total = float(vector.sum())
    if abs(total - 1.0) > atol:
        raise InvalidArgument(f"{name}: entries sum to {total!r}, expected 1 within {atol:g}")
    return vector


def _index_text(index: tuple[int, ...]) -> str:
    return ", ".join(str(i) for i in index)


def check_module_callable(name: str, value: Any) -> tuple[str, str]:
    """Check a ``module:callable`` reference and return (module, callable).

    Raises:
        InvalidArgument: when the text is not of that form, with Python identifiers.
    """
    if not isinstance(value, str) or value.count(":") != 1:
        raise InvalidArgument(f"{name}={value!r}: expected 'module:callable', e.g. 'mypkg.mech:dp_lsw'")
    module, attribute = (part.strip() for part in value.split(":"))
    if not module or not attribute or not all(piece.isidentifier() for piece in (*module.split("."), attribute)):
        raise InvalidArgument(f"{name}={value!r}: expected 'module:callable' with Python identifiers")
    return module, attribute


#: The deepest nesting of JSON data :func:`check_json_data` accepts.
MAX_JSON_DEPTH = 32


def check_json_data(value: Any, where: str = "input", depth: int = 0) -> Any:
    """``value`` as plain JSON data: numbers (finite), strings, booleans, null, lists and tables
    with string keys; numpy arrays and scalars and tuples are converted.

    Raises:
        InvalidArgument: naming the position of a value that is not JSON data.
    """
    if depth > MAX_JSON_DEPTH:
        raise InvalidArgument(f"{where}: nested more than {MAX_JSON_DEPTH} levels")
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not np.isfinite(value):
            raise InvalidArgument(f"{where}={value!r}: expected a finite number")
        return value
    if isinstance(value, list | tuple):
        return [check_json_data(item, f"{where}[{index}]", depth + 1) for index, item in enumerate(value)]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise InvalidArgument(f"{where}: a table's keys must be strings")
        return {key: check_json_data(item, f"{where}[{key!r}]", depth + 1) for key, item in value.items()}
    raise InvalidArgument(f"{where}: a {type(value).__name__}; expected JSON data (numbers, strings, lists, tables)")
