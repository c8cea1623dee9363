"""Accountant results that say which way they err.

Every number an accountant returns is an :class:`AccountedValue`: an enclosure
``[lower, upper]`` of the true quantity, the point value reported, and the rounding
direction in words (``exact to N digits``, ``upper bound``, ``lower bound``,
``interval``), so that a checker never has to guess whether a number is safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath

from dpaudit.errors import InvalidArgument

__all__ = ["EXACT", "INTERVAL", "LOWER_BOUND", "UPPER_BOUND", "AccountedValue"]

EXACT = "exact"
UPPER_BOUND = "upper bound"
LOWER_BOUND = "lower bound"
INTERVAL = "interval"
_KINDS = (EXACT, UPPER_BOUND, LOWER_BOUND, INTERVAL)


@dataclass(frozen=True)
class AccountedValue:
    """A quantity computed by an accountant, with an enclosure and its rounding direction.

    Attributes:
        value: the point value reported (mpmath number or float).
        lower: a certified lower bound on the true quantity (``-inf`` when unknown).
        upper: a certified upper bound on the true quantity (``inf`` when unknown).
        kind: ``exact`` (value is the quantity up to ``error``), ``upper bound``,
            ``lower bound`` (the quantity itself is only bounded on one side), or
            ``interval`` (an enclosure from a discretisation).
        method: how the number was computed, e.g. ``MTZ series, mpmath 60 digits``.
        digits: the working precision in decimal digits (0 for float64 methods).
        error: for ``exact`` values, the bound on ``|value - true|`` behind the enclosure.
    """

    value: Any
    lower: Any
    upper: Any
    kind: str
    method: str
    digits: int = 0
    error: Any = 0

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise InvalidArgument(f"kind={self.kind!r}: expected one of {', '.join(_KINDS)}")
        if mpmath.mpf(self.lower) > mpmath.mpf(self.upper):
            raise InvalidArgument(f"lower={self.lower!r} > upper={self.upper!r}: not an enclosure")

    @classmethod
    def exact(cls, value: Any, error: Any, *, method: str, digits: int) -> AccountedValue:
        """An exact value with absolute error bound ``error``: encloses ``[value - error, value + error]``."""
        value, error = mpmath.mpf(value), mpmath.mpf(error)
        lower, upper = mpmath.fsub(value, error, exact=True), mpmath.fadd(value, error, exact=True)
        return cls(value, lower, upper, EXACT, method, digits, error)

    @property
    def direction(self) -> str:
        """The rounding direction in words, for evidence and reports."""
        if self.kind == EXACT:
            if self.value == 0:
                return f"exact (|error| <= {mpmath.nstr(mpmath.mpf(self.error), 3)})"
            relative = mpmath.mpf(self.error) / abs(mpmath.mpf(self.value))
            shown = 0 if relative == 0 else int(-mpmath.floor(mpmath.log10(relative)))
            return f"exact to {min(shown, self.digits) if self.digits else shown} digits"
        return self.kind

    def scaled(self, factor: Any) -> AccountedValue:
        """The value multiplied by a non-negative exact ``factor`` (e.g. a number of composed steps)."""
        if factor < 0:
            raise InvalidArgument(f"factor={factor!r}: expected a non-negative factor")
        return AccountedValue(
            self.value * factor,
            self.lower * factor,
            self.upper * factor,
            self.kind,
            self.method,
            self.digits,
            self.error * factor,
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in evidence: numbers as decimal strings with 17 significant digits."""
        return {
            "value": _text(self.value),
            "lower": _text(self.lower),
            "upper": _text(self.upper),
            "direction": self.direction,
            "method": self.method,
            "digits": self.digits,
        }


def _text(number: Any) -> str:
    return mpmath.nstr(mpmath.mpf(number), 17, min_fixed=-4, max_fixed=6)
