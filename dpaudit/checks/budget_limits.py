"""Ceilings on the budgets a spec may ask for: a request above one is refused when the spec
loads (exit 2), before any work, instead of running for days or exhausting memory.

The default ceilings are far above every budget the built-in specs use (the largest: 10^7
samples per side, 80 digits, 2,048 bins) and below what a 2-core machine could finish in a CI
job. They can be **lowered**, never raised: on the command line (``--ceiling samples=1e7``, for a
CI job that bounds the cost of any spec it is given) and in a spec's ``[ceilings]`` table (for
that spec's obligations). A spec may be hostile; a ceiling it could raise would protect nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any

from dpaudit.errors import InvalidArgument

__all__ = [
    "DEFAULT_CEILINGS",
    "MAX_BINS",
    "MAX_DIGITS",
    "MAX_GRID",
    "MAX_SAMPLES",
    "MAX_SEARCH_EXAMPLES",
    "MAX_TIME_LIMIT_SECONDS",
    "ceiling",
    "check_ceilings",
    "lowered_ceilings",
    "parse_ceiling",
]

#: Monte Carlo draws per side (and per pilot, selection and certification split).
MAX_SAMPLES = 10**9
#: Working precision of an mpmath computation, in decimal digits.
MAX_DIGITS = 1_000
#: Histogram bins, threshold grids and profile grids.
MAX_BINS = 10**6
MAX_GRID = 10**5
#: Examples of a hypothesis counterexample search.
MAX_SEARCH_EXAMPLES = 10**6
#: The longest wall-time budget a spec or the command line may set (a week).
MAX_TIME_LIMIT_SECONDS = 7 * 24 * 3600.0

DEFAULT_CEILINGS: Mapping[str, float] = MappingProxyType(
    {
        "samples": MAX_SAMPLES,
        "digits": MAX_DIGITS,
        "bins": MAX_BINS,
        "grid": MAX_GRID,
        "search_examples": MAX_SEARCH_EXAMPLES,
        "time_limit_seconds": MAX_TIME_LIMIT_SECONDS,
    }
)

_LOWERED: ContextVar[Mapping[str, float]] = ContextVar("dpaudit_ceilings", default=MappingProxyType({}))


def ceiling(name: str) -> Any:
    """The ceiling ``name`` in force (an int for counts, a float for seconds)."""
    value = _LOWERED.get().get(name, DEFAULT_CEILINGS[name])
    return value if name == "time_limit_seconds" else int(value)


def check_ceilings(overrides: Mapping[str, Any]) -> dict[str, float]:
    """The overrides, checked: known names, positive numbers, none above the ceiling in force.

    Raises:
        InvalidArgument: naming the ceiling and what is wrong with it.
    """
    checked = {}
    for name, value in overrides.items():
        if name not in DEFAULT_CEILINGS:
            raise InvalidArgument(f"unknown ceiling {name!r}; expected one of {sorted(DEFAULT_CEILINGS)}")
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
            raise InvalidArgument(f"ceiling {name} = {value!r}; expected a positive number")
        if value > ceiling(name):
            raise InvalidArgument(
                f"ceiling {name} = {value:g} is above the one in force ({ceiling(name):g}); "
                "ceilings can only be lowered"
            )
        checked[name] = float(value)
    return checked


@contextmanager
def lowered_ceilings(overrides: Mapping[str, Any]) -> Iterator[None]:
    """Lower ceilings for the code run inside (a spec's validation, a command).

    Raises:
        InvalidArgument: as :func:`check_ceilings`.
    """
    token = _LOWERED.set(MappingProxyType({**_LOWERED.get(), **check_ceilings(overrides)}))
    try:
        yield
    finally:
        _LOWERED.reset(token)


def parse_ceiling(text: str) -> tuple[str, float]:
    """``NAME=VALUE`` from the command line, e.g. ``samples=1e7``.

    Raises:
        InvalidArgument: when the text is not of that form.
    """
    name, sep, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not sep or not name.strip() or math.isnan(number):
        raise InvalidArgument(f"--ceiling {text!r}: expected NAME=VALUE, e.g. samples=1e7")
    return name.strip(), number
