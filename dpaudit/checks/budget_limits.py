"""Ceilings on the budgets a spec may ask for: a request above one is refused when the spec
loads (exit 2), before any work, instead of running for days or exhausting memory.

The default ceilings are far above every budget the built-in specs use (the largest: 10^7
samples per side, 80 digits, 2,048 bins, 2.5*10^8 enumerated pairs) and below what a 2-core
machine could finish in a CI job; the memory ceiling is the machine's physical memory (see
:mod:`dpaudit.audit.memory_budget`). They can be **lowered**, never raised: on the command line
(``--ceiling samples=1e7``, for a CI job that bounds the cost of any spec it is given) and in a
spec's ``[ceilings]`` table (for that spec's obligations). A spec may be hostile; a ceiling it
could raise would protect nothing.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, overload

from dpaudit.errors import InvalidArgument

__all__ = [
    "DEFAULT_CEILINGS",
    "MAX_BINS",
    "MAX_DIGITS",
    "MAX_ENUMERATION",
    "MAX_GRID",
    "MAX_MEMORY_MIB",
    "MAX_SAMPLES",
    "MAX_SEARCH_EXAMPLES",
    "MAX_TIME_LIMIT_SECONDS",
    "Ceiling",
    "ceiling",
    "check_ceilings",
    "check_enumeration",
    "lowered_ceilings",
    "parse_ceiling",
    "run_time_limit",
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
#: Items an exhaustive enumeration visits (neighbouring pairs of a sweep, box points times
#: neighbours times orders of a smoothness check, records drawn by a search).
MAX_ENUMERATION = 10**10
#: The longest wall-time budget a spec or the command line may set (a week).
MAX_TIME_LIMIT_SECONDS = 7 * 24 * 3600.0


def _physical_memory_mib() -> float:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (ValueError, OSError, AttributeError):  # a platform without these names
        return float(2**20)  # 1 TiB: no practical ceiling


#: The auditor's memory (data segment) in MiB: the machine's physical memory.
MAX_MEMORY_MIB = _physical_memory_mib()

DEFAULT_CEILINGS: Mapping[str, float] = MappingProxyType(
    {
        "samples": MAX_SAMPLES,
        "digits": MAX_DIGITS,
        "bins": MAX_BINS,
        "grid": MAX_GRID,
        "search_examples": MAX_SEARCH_EXAMPLES,
        "enumeration": MAX_ENUMERATION,
        "memory_mib": MAX_MEMORY_MIB,
        "time_limit_seconds": MAX_TIME_LIMIT_SECONDS,
    }
)

_LOWERED: ContextVar[Mapping[str, float]] = ContextVar("dpaudit_ceilings", default=MappingProxyType({}))


def ceiling(name: str) -> Any:
    """The ceiling ``name`` in force (an int for counts, a float for seconds and MiB)."""
    value = _LOWERED.get().get(name, DEFAULT_CEILINGS[name])
    return value if name in ("time_limit_seconds", "memory_mib") else int(value)


@overload
def run_time_limit(asked: float) -> float: ...


@overload
def run_time_limit(asked: None) -> float | None: ...


def run_time_limit(asked: float | None) -> float | None:
    """The seconds a whole run may take: ``asked`` (None: no limit), at most the ``time_limit_seconds``
    ceiling when ``--ceiling`` lowered it (a CI job's bound on any run, whatever its spec or options say)."""
    lowered = _LOWERED.get().get("time_limit_seconds")
    if lowered is None:
        return asked
    return float(lowered) if asked is None else min(asked, float(lowered))


@dataclass(frozen=True)
class Ceiling:
    """The ceiling ``name`` as the upper bound of a checker param
    (:func:`~dpaudit.kernel.checker_config.param`): read when the param is checked, so a lowered
    ceiling applies; the docs name it."""

    name: str

    def __call__(self) -> Any:
        return ceiling(self.name)

    def __str__(self) -> str:
        return f"the {self.name} ceiling"


def check_enumeration(what: str, count: int) -> int:
    """``count``, the items an exhaustive check of ``what`` would visit, if within the ceiling.

    Raises:
        InvalidArgument: naming the count and the ceiling, before any of the work is done.
    """
    if count > ceiling("enumeration"):
        raise InvalidArgument(
            f"{what}: {count:.3g} items to enumerate, above the enumeration ceiling "
            f"({ceiling('enumeration'):.3g}); make the domain smaller"
        )
    return count


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
