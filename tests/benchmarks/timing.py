"""Timing with repetitions for the benchmarks (see conftest.py for the report)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def timed(function: Callable[[], Any], repetitions: int = 3) -> tuple[Any, list[float]]:
    """The last result of ``function`` and the wall time of each of ``repetitions`` runs."""
    timings, result = [], None
    for _ in range(repetitions):
        started = time.perf_counter()
        result = function()
        timings.append(time.perf_counter() - started)
    return result, timings
