"""Figures the report builds from what evidence holds, for reports that carry no figure of their
own: the comparison of every measurement with its claim (per claim and relation), and the picture
of a violated black-box claim's distinguishing event (the two output distributions around it)."""

from __future__ import annotations

import math
from typing import Any

from dpaudit.report.values import format_value, to_float

__all__ = ["comparison_figure", "event_figure"]

#: The measurement role of what a budget could have detected (not a property of the mechanism).
POWER_ROLE = "power"


def _safe_side(claimed: float, measured: float, margin: float | None) -> str:
    """Which side of the claim is safe, read from the sign convention of the margin."""
    if margin is None or not math.isfinite(margin) or margin == 0 or claimed == measured:
        return "below"
    return "below" if (margin > 0) == (claimed > measured) else "above"


def comparison_figure(title: str, relation: dict[str, Any]) -> dict[str, Any] | None:
    """The default figure of one (claim, relation): every measurement as measured / claimed.

    Built only from what every evidence holds (measurements with claimed, measured,
    margin and interval), so it exists for reports written before figures did. A measurement of
    what the budget could have detected (role ``power``) is a row of role ``power``: it states
    the check's reach, not a verdict on the claim.

    Args:
        title: the figure title.
        relation: one ``claims[].relations[]`` entry of a report document.

    Returns:
        A ``comparison`` figure dict, or ``None`` when no measurement is a pair of numbers.
    """
    rows = []
    for item in relation.get("obligations", []):
        evidence = item.get("evidence", {})
        obligation_id = item.get("obligation", {}).get("id", "?")
        for measurement in evidence.get("measurements", []):
            claimed, measured = to_float(measurement.get("claimed")), to_float(measurement.get("measured"))
            if claimed is None or measured is None or not (math.isfinite(claimed) and math.isfinite(measured)):
                continue
            if claimed == 0:
                continue
            row = {
                "label": f"{obligation_id}: {measurement.get('quantity', '')}",
                "claimed": claimed,
                "measured": measured,
                "verdict": str(evidence.get("verdict", "")),
                "safe": _safe_side(claimed, measured, to_float(measurement.get("margin"))),
            }
            if measurement.get("role") == POWER_ROLE:
                row["role"] = POWER_ROLE
            interval = measurement.get("interval")
            if isinstance(interval, list) and len(interval) == 2:
                low, high = to_float(interval[0]), to_float(interval[1])
                if low is not None and high is not None and math.isfinite(low) and math.isfinite(high):
                    row["lower"], row["upper"] = low, high
            rows.append(row)
    if not rows:
        return None
    power = (
        " Hollow diamonds are power: what the budget could have detected, not a verdict."
        if any(row.get("role") == POWER_ROLE for row in rows)
        else ""
    )
    return {
        "kind": "comparison",
        "title": title,
        "x_label": "measured / claimed (claim = dashed line at 1)",
        "y_label": "",
        "rows": rows,
        "caption": "Each measurement divided by its claimed value; bars are the stated enclosures. "
        "'safe ≤ 1' means the claim holds when the point is left of the line." + power,
    }


_SIDES = ("X", "X'")


def _per_side(value: Any, length: int | None = None) -> dict[str, Any] | None:
    """``{"X": ..., "X'": ...}`` with report numbers (or lists of ``length`` of them) as floats."""
    if not isinstance(value, dict):
        return None
    read: dict[str, Any] = {}
    for side in _SIDES:
        inner = value.get(side)
        if length is None:
            read[side] = to_float(inner)
        elif isinstance(inner, list) and len(inner) == length:
            read[side] = [to_float(v) for v in inner]
        else:
            return None
        if read[side] is None or (length is not None and None in read[side]):
            return None
    return read


def _certified_counts(counterexample: dict[str, Any]) -> str:
    """The certification counts of both sides, in words."""
    p_side, q_side = ("X'", "X") if counterexample.get("order") == "X' vs X" else ("X", "X'")
    samples = format_value(counterexample.get("samples"))
    p_count, q_count = format_value(counterexample.get("p_count")), format_value(counterexample.get("q_count"))
    return f"{p_side}: {p_count} of {samples}, {q_side}: {q_count} of {samples}"


def event_figure(title: str, item: dict[str, Any]) -> dict[str, Any] | None:
    """The two output distributions of a violated black-box obligation's pair, with its event shaded.

    Built from ``counterexample["event_histogram"]`` (written by the black-box check: see
    :mod:`dpaudit.checks.empirical.event_histogram`): a histogram of each side's pilot outputs on
    the event's axis, as shares of that side's draws, with the event's region and both the pilot and
    the certification counts.

    Args:
        title: the figure title.
        item: one ``relations[].obligations[]`` entry of a report document.

    Returns:
        A ``histogram`` figure dict, or ``None`` when the obligation is not violated or its
        counterexample holds no (well-formed) event histogram.
    """
    evidence = item.get("evidence")
    if not isinstance(evidence, dict) or evidence.get("verdict") != "violated":
        return None
    counterexample = evidence.get("counterexample")
    if not isinstance(counterexample, dict) or not isinstance(counterexample.get("event_histogram"), dict):
        return None
    data = counterexample["event_histogram"]
    edges = data.get("edges")
    if not isinstance(edges, list) or len(edges) < 2:
        return None
    counts = _per_side(data.get("counts"), len(edges) - 1)
    draws, inside = _per_side(data.get("draws")), _per_side(data.get("in_event"))
    if counts is None or draws is None or inside is None:
        return None
    if not all(math.isfinite(number) and number > 0 for number in draws.values()):
        return None
    event = str(data.get("event", ""))
    series = [
        {
            "label": f"{side}: {inside[side]:.0f} of {draws[side]:.0f} in E",
            "x": edges,
            "y": [count / draws[side] for count in counts[side]],
        }
        for side in _SIDES
    ]
    regions = [
        {"axis": "x", "low": piece[0], "high": piece[1], "label": f"E: {event}"}
        for piece in data.get("region") or []
        if isinstance(piece, list) and len(piece) == 2
    ]
    axis = str(data.get("axis", "score"))
    return {
        "kind": "histogram",
        "title": title,
        "x_label": axis if data.get("in_output_coordinates") else f"score: {axis}",
        "y_label": f"share of the {data.get('draws_from', '')} draws".replace("  ", " "),
        "series": series,
        "regions": regions,
        "caption": f"The event E that told X from X′: {event}. Certified on fresh draws: "
        f"{_certified_counts(counterexample)} in E. The histograms are the {data.get('draws_from', '')} draws "
        "(made before E was chosen); the end bins also hold the draws beyond the axis.",
    }
