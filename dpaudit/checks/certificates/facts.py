"""Building certificates in checkers: exact inputs, outward-rounded enclosures."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dpaudit.kernel.evidence import CertifiedFact, decimal_bound

__all__ = ["ENCLOSURE_DIGITS", "certified_fact", "exact_decimal"]

#: Significant digits of a certificate's enclosure ends (rounded outward).
ENCLOSURE_DIGITS = 30


def exact_decimal(value: Any) -> str:
    """The exact decimal expansion of a float or int (a float's binary value, every digit)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a float or int, got {type(value).__name__}")
    return str(Decimal(value))


def certified_fact(
    route: str,
    quantity: str,
    inputs: Mapping[str, float],
    enclosure: tuple[Any, Any],
    bound: float,
    *,
    relation: str = "<=",
) -> CertifiedFact:
    """A fact whose inputs are written exactly and whose enclosure is rounded outward."""
    low, high = enclosure
    return CertifiedFact(
        route=route,
        quantity=quantity,
        inputs={name: exact_decimal(value) for name, value in inputs.items()},
        enclosure=(decimal_bound(low, ENCLOSURE_DIGITS, up=False), decimal_bound(high, ENCLOSURE_DIGITS, up=True)),
        bound=exact_decimal(bound),
        relation=relation,
    )
