"""High-precision values with a rigorous error: PreciseValue, and the two-precision evaluation
(mpmath at d and d + 20 digits) that encloses a computed value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath

from dpaudit.errors import NumericalError

__all__ = ["DEFAULT_DIGITS", "PreciseValue"]


DEFAULT_DIGITS = 60


@dataclass(frozen=True)
class PreciseValue:
    """An mpmath value with an absolute error bound.

    Attributes:
        value: the value at the higher working precision.
        error: an upper bound on ``|value - true value|`` (difference between two
            precisions, plus one unit in the last place of the lower one).
        digits: the working precision (decimal digits) of ``value``.
    """

    value: mpmath.mpf
    error: mpmath.mpf
    digits: int

    @property
    def lower(self) -> mpmath.mpf:
        """A lower bound on the true value (computed exactly: no rounding can move it inward)."""
        return mpmath.fsub(self.value, self.error, exact=True)

    @property
    def upper(self) -> mpmath.mpf:
        """An upper bound on the true value (computed exactly: no rounding can move it inward)."""
        return mpmath.fadd(self.value, self.error, exact=True)


def two_precisions(compute: Callable[[], Any], digits: int, *, stable: bool = True) -> PreciseValue:
    """Run ``compute`` at ``digits`` and ``digits + 20``; it returns a value or (value, truncation bound).

    The error is |difference of the two| + one unit in the last digit + the truncation bound.
    With ``stable`` (the default) a result whose error exceeds half its digits is refused
    (NumericalError); series whose truncation bound is set by the caller pass ``stable=False``.
    """
    with mpmath.workdps(digits):
        low, _ = _with_bound(compute())
    with mpmath.workdps(digits + 20):
        high, bound = _with_bound(compute())
        error = abs(high - low) + abs(high) * mpmath.mpf(10) ** (-digits) + bound
        if stable and error > abs(high) * mpmath.mpf(10) ** (-digits // 2) and high != 0:
            raise NumericalError(
                f"value not stable between {digits} and {digits + 20} digits: {mpmath.nstr(low, 15)} vs "
                f"{mpmath.nstr(high, 15)}"
            )
        return PreciseValue(high, error, digits + 20)


def _with_bound(result: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    if isinstance(result, tuple):
        return result
    return result, mpmath.mpf(0)
