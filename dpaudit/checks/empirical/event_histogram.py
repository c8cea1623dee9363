"""What a distinguishing event looks like: the event in the output's own coordinates, and a small
histogram of both sides' outputs around it, for the report's figure of a violated claim.

The histogram is made from the pilot draws, which are already made (before the event was chosen
on the selection draws, and independent of the draws that certify it): it costs no sampling, is
the same for the same seed, and holds at most :data:`MAX_BINS` bins per side.

A one-dimensional output is shown on its own axis y, also when the event thresholds a fitted score
(``w·y`` or ``a·y + b·y²``): the event is then the set of y whose score lies in the event's range, a
union of at most two intervals. Other events keep the axis of their score.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.checks.empirical.events import (
    AtomProjection,
    CoordinateProjection,
    Event,
    IntervalEvent,
    LinearProjection,
    OutcomeProjection,
    QuadraticProjection,
)
from dpaudit.errors import NumericalError
from dpaudit.kernel.evidence import json_number

__all__ = ["MAX_BINS", "Interval", "event_histogram", "output_region"]

#: Bins of the histogram per side; outputs with at most this many distinct values get a bin each.
MAX_BINS = 40
#: The share of the pooled draws left out of the axis range at each end (they count in the end bins).
_TAIL = 0.001


@dataclass(frozen=True)
class Interval:
    """A real interval; an infinite end is open."""

    low: float
    high: float
    low_closed: bool
    high_closed: bool

    def text(self, name: str) -> str:
        """The interval as a condition on ``name``: six significant digits, more when the two ends
        would otherwise read alike (an interval of width 0.2 at 1e8)."""
        digits = 6
        while digits < 17 and f"{self.low:.{digits}g}" == f"{self.high:.{digits}g}":
            digits += 1
        below = f"{name} {'≤' if self.high_closed else '<'} {self.high:.{digits}g}"
        above = f"{name} {'≥' if self.low_closed else '>'} {self.low:.{digits}g}"
        if math.isinf(self.low) and math.isinf(self.high):
            return f"any {name}"
        if math.isinf(self.low):
            return below
        if math.isinf(self.high):
            return above
        return f"{self.low:.{digits}g} {'≤' if self.low_closed else '<'} {below}"


_EVERYTHING = (Interval(-math.inf, math.inf, False, False),)


def _complement(intervals: tuple[Interval, ...]) -> tuple[Interval, ...]:
    """The complement of disjoint intervals sorted by their ends."""
    gaps, start, start_closed = [], -math.inf, False
    for piece in intervals:
        if piece.low > start or (piece.low == start and not piece.low_closed and start_closed):
            gaps.append(Interval(start, piece.low, start_closed, not piece.low_closed))
        start, start_closed = piece.high, not piece.high_closed
    if start < math.inf:
        gaps.append(Interval(start, math.inf, start_closed, False))
    return tuple(gaps)


def _intersection(first: tuple[Interval, ...], second: tuple[Interval, ...]) -> tuple[Interval, ...]:
    pieces = []
    for a in first:
        for b in second:
            low, low_open = max((a.low, not a.low_closed), (b.low, not b.low_closed))
            high, high_closed = min((a.high, a.high_closed), (b.high, b.high_closed))
            if low < high or (low == high and not low_open and high_closed):
                pieces.append(Interval(low, high, not low_open, high_closed))
    return tuple(sorted(pieces, key=lambda piece: (piece.low, piece.high)))


def _at_most(quadratic: float, linear: float, value: float, *, strict: bool) -> tuple[Interval, ...]:
    """{y : quadratic·y² + linear·y ≤ value} (``<`` when ``strict``), for ``quadratic > 0``.

    Raises:
        NumericalError: when the discriminant is not a float64 number.
    """
    discriminant = linear * linear + 4.0 * quadratic * value
    if not math.isfinite(discriminant):
        raise NumericalError(f"the discriminant of {quadratic!r}·y² + {linear!r}·y = {value!r} is not a float64 number")
    if discriminant < 0 or (strict and discriminant == 0):
        return ()
    half = -(linear + math.copysign(math.sqrt(discriminant), linear)) / 2.0  # no cancellation
    roots = sorted((half / quadratic, -value / half)) if half != 0 else [0.0, 0.0]
    return (Interval(roots[0], roots[1], not strict, not strict),)


def _score_range(event: Event) -> tuple[float, float]:
    """The event as ``low <= score < high`` (an infinite end: no condition)."""
    if isinstance(event, IntervalEvent):
        return event.low, event.high
    return (event.threshold, math.inf) if event.upper else (-math.inf, event.threshold)


def _quadratic_preimage(linear: float, quadratic: float, low: float, high: float) -> tuple[Interval, ...]:
    """{y : low <= linear·y + quadratic·y² < high} for ``quadratic != 0``."""
    sign = 1.0 if quadratic > 0 else -1.0
    b, a = sign * quadratic, sign * linear  # the upward parabola q = sign · score
    # sign > 0: score >= low is not (q < low), score < high is q < high
    # sign < 0: score >= low is q <= -low, score < high is not (q <= -high)
    above = _EVERYTHING if math.isinf(low) else _at_most(b, a, sign * low, strict=sign > 0)
    below = _EVERYTHING if math.isinf(high) else _at_most(b, a, sign * high, strict=sign > 0)
    if sign > 0:
        above = above if math.isinf(low) else _complement(above)
    else:
        below = below if math.isinf(high) else _complement(below)
    return _intersection(above, below)


def output_region(event: Event, dimension: int) -> tuple[str, tuple[Interval, ...]] | None:
    """The event as intervals of an output coordinate, with that coordinate's name, when it is one:
    a coordinate threshold, or any threshold on a fitted score of a one-dimensional output.
    ``None`` for events on sets of outcomes or atoms, and on scores of several coordinates."""
    projection = event.projection
    low, high = _score_range(event)
    score = (Interval(low, high, True, False),)
    if isinstance(projection, CoordinateProjection):
        return ("y" if dimension == 1 else f"y[{projection.index}]"), score
    if dimension != 1:
        return None
    if isinstance(projection, LinearProjection) and projection.weights[0] != 0:
        w = projection.weights[0]
        if w > 0:
            return "y", (Interval(low / w, high / w, True, False),)
        return "y", (Interval(high / w, low / w, False, True),)
    if isinstance(projection, QuadraticProjection):
        a, b = projection.linear[0], projection.quadratic[0]
        if b != 0:
            try:
                return "y", _quadratic_preimage(a, b, low, high)
            except NumericalError:  # roots past float64's range: the score stays the axis
                return None
        if a != 0:
            return output_region(IntervalEvent(LinearProjection((a,), projection.origin), low, high), 1)
    return None


def _edges(pooled: np.ndarray, region: tuple[Interval, ...]) -> np.ndarray:
    """Bin edges: a bin per value when the draws take at most :data:`MAX_BINS` values, else equal
    bins over the central range of the draws, widened to show the region's finite ends; bins of
    equal counts when those edges are not finite and increasing (values near float64's limits)."""
    values = np.unique(pooled)
    with np.errstate(over="ignore", invalid="ignore"):
        if values.size <= MAX_BINS:
            half = float(np.min(np.diff(values))) / 2 if values.size > 1 else 0.5
            edges = np.concatenate([[values[0] - half], (values[:-1] + values[1:]) / 2, [values[-1] + half]])
        else:
            low, high = (float(q) for q in np.quantile(pooled, [_TAIL, 1 - _TAIL]))
            ends = [end for piece in region for end in (piece.low, piece.high) if math.isfinite(end)]
            inside = [end for end in ends if values[0] <= end <= values[-1]]
            low, high = min([low, *inside]), max([high, *inside])
            edges = np.linspace(low, high, MAX_BINS + 1) if high > low else np.array([low - 0.5, high + 0.5])
    if np.isfinite(edges).all() and (np.diff(edges) > 0).all():
        return edges
    return np.unique(np.quantile(values, np.linspace(0.0, 1.0, min(MAX_BINS, values.size - 1) + 1)))


def event_histogram(event: Event, first: np.ndarray, second: np.ndarray) -> dict[str, Any]:
    """A JSON summary of the outputs of both sides of the event's pair around the event.

    Args:
        event: the certified event (chosen on other draws).
        first, second: pilot outputs of X and X', rows of shape (n, d).

    Returns:
        ``axis`` (what the histogram's x is: ``y``, ``y[i]`` or the event's score),
        ``in_output_coordinates``, ``event`` (the event in the axis's terms, or in the output's
        words for outcomes and atoms), ``region`` (the event's intervals on the axis, ends as
        report numbers), ``edges``, ``counts`` and ``in_event`` per side (``X``, ``X'``), ``draws``
        per side and ``draws_from``. Draws beyond the axis count in its end bins.
    """
    dimension = first.shape[1]
    found = output_region(event, dimension)
    projection = event.projection
    if found is not None:
        axis, region = found
        column = projection.index if isinstance(projection, CoordinateProjection) else 0
        values = [first[:, column], second[:, column]]
        text = " or ".join(piece.text(axis) for piece in region) or f"no {axis} (an empty event)"
    else:
        low, high = _score_range(event)
        region = (Interval(low, high, True, False),)
        axis = _axis_of_score(projection)
        values = [projection.scores(first), projection.scores(second)]
        text = event.describe()
    edges = _edges(np.concatenate(values), region)
    counts = [np.histogram(np.clip(side, edges[0], edges[-1]), edges)[0] for side in values]
    inside = [int(np.count_nonzero(event.indicator(projection.scores(side)))) for side in (first, second)]
    return {
        "axis": axis,
        "in_output_coordinates": found is not None,
        "event": text,
        "region": [[json_number(piece.low), json_number(piece.high)] for piece in region],
        "edges": [float(edge) for edge in edges],
        "counts": {"X": [int(c) for c in counts[0]], "X'": [int(c) for c in counts[1]]},
        "in_event": {"X": inside[0], "X'": inside[1]},
        "draws": {"X": int(first.shape[0]), "X'": int(second.shape[0])},
        "draws_from": "pilot",
    }


def _axis_of_score(projection: Any) -> str:
    if isinstance(projection, AtomProjection):
        return "output is one of the atoms (1) or not (0)"
    if isinstance(projection, OutcomeProjection):
        return "outcome rank (the pilot's likelihood-ratio order)"
    return str(projection.describe())
