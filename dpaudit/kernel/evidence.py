"""Evidence: a verdict and the numbers behind it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath

from dpaudit.errors import InvalidArgument
from dpaudit.kernel.verdicts import Verdict

__all__ = ["Evidence", "Measurement", "json_number"]


def json_number(value: Any, digits: int = 17) -> Any:
    """A JSON-safe form of a number: floats stay floats, exact and high-precision values become strings.

    ``Fraction`` becomes ``"p/q"``; mpmath values become decimal strings with ``digits``
    significant digits; non-finite floats become ``"inf"``, ``"-inf"`` or ``"nan"``.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    if isinstance(value, (mpmath.mpf,)):
        return mpmath.nstr(value, digits, min_fixed=-4, max_fixed=6) if mpmath.isfinite(value) else str(value)
    if isinstance(value, mpmath.iv.mpf):
        return [json_number(mpmath.mpf(value.a), digits), json_number(mpmath.mpf(value.b), digits)]
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    return number


@dataclass(frozen=True)
class Measurement:
    """One claimed-versus-measured comparison.

    Attributes:
        quantity: what is compared, e.g. ``delta at epsilon=4.38``.
        claimed: the value the claim asserts (a bound).
        measured: the value dpaudit computed or estimated.
        margin: claimed minus measured in the direction that makes a positive margin safe.
        direction: how ``measured`` errs: ``exact to N digits``, ``upper bound``,
            ``lower bound``, ``interval``, ``point estimate``.
        interval: a (low, high) enclosure of the true value when one is known.
    """

    quantity: str
    claimed: Any
    measured: Any
    margin: Any = None
    direction: str = "exact"
    interval: tuple[Any, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        data = {
            "quantity": self.quantity,
            "claimed": json_number(self.claimed),
            "measured": json_number(self.measured),
            "margin": json_number(self.margin),
            "direction": self.direction,
        }
        if self.interval is not None:
            data["interval"] = [json_number(self.interval[0]), json_number(self.interval[1])]
        return data


@dataclass(frozen=True)
class Evidence:
    """The result of one checker run on one obligation under one relation.

    Attributes:
        verdict: what the check found.
        summary: one sentence a reader can act on.
        domain: the domain or budget the verdict covers (shown next to the verdict).
        method: how the check was done, e.g. ``mpmath 60 digits``, ``Monte Carlo, Clopper-Pearson 95%``.
        measurements: claimed vs measured numbers with margins and directions.
        budget: counts behind the verdict (samples, datasets, pairs, grid points, digits).
        counterexample: a concrete witness when the verdict is ``violated``.
        details: further JSON-ready data for reports and figures.
        elapsed_seconds: wall time of the check (a timing field, excluded from reproducibility).
    """

    verdict: Verdict
    summary: str
    domain: str
    method: str
    measurements: tuple[Measurement, ...] = ()
    budget: dict[str, Any] = field(default_factory=dict)
    counterexample: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)
    elapsed_seconds: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            raise InvalidArgument(f"verdict={self.verdict!r}: expected a Verdict")
        object.__setattr__(self, "measurements", tuple(self.measurements))

    def with_elapsed(self, seconds: float) -> Evidence:
        """A copy with the wall time set."""
        return Evidence(
            verdict=self.verdict,
            summary=self.summary,
            domain=self.domain,
            method=self.method,
            measurements=self.measurements,
            budget=self.budget,
            counterexample=self.counterexample,
            details=self.details,
            elapsed_seconds=seconds,
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {
            "verdict": self.verdict.value,
            "summary": self.summary,
            "domain": self.domain,
            "method": self.method,
            "measurements": [m.to_json() for m in self.measurements],
            "budget": {key: json_number(value) for key, value in self.budget.items()},
            "counterexample": self.counterexample,
            "details": self.details,
            "elapsed_seconds": self.elapsed_seconds,
        }
