"""Reading and showing the numbers of a report document (floats, decimal strings, ``"p/q"``)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

__all__ = ["format_value", "to_float"]


def to_float(value: Any) -> float | None:
    """The float nearest a report number, or ``None`` when ``value`` is not a number.

    Accepts ints, floats, decimal strings (``"9.87e-6"``), fractions (``"1/3"``) and the
    non-finite spellings ``"inf"``, ``"-inf"``, ``"nan"``. Booleans are not numbers. The
    result is for display and plotting only; it may round the stored value.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return float(Fraction(text)) if "/" in text else float(text)
        except (ValueError, ZeroDivisionError, OverflowError):
            return None
    return None


def format_value(value: Any) -> str:
    """A report value as text, without losing the digits the report stores.

    Floats print in their shortest round-trip form; strings (high-precision decimals,
    fractions) print as stored; lists print element-wise; ``None`` prints as ``—``.
    """
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return ", ".join(f"{key}={format_value(inner)}" for key, inner in value.items())
    return str(value)
