"""Ceilings on the budgets a spec may ask for: a request above one is refused when the spec
loads (exit 2), before any work, instead of running for days or exhausting memory.

The ceilings are far above every budget the built-in specs use (the largest: 10^7 samples per
side, 80 digits, 2,048 bins) and below what a 2-core machine could finish in a CI job.
"""

from __future__ import annotations

__all__ = ["MAX_BINS", "MAX_DIGITS", "MAX_GRID", "MAX_SAMPLES", "MAX_SEARCH_EXAMPLES", "MAX_TIME_LIMIT_SECONDS"]

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
