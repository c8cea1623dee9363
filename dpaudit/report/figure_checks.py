"""The figure convention of the report (README, 'Report schema'): every figure dict is checked
before it is drawn, so a malformed or hostile figure is a clear error, never a broken SVG."""

from __future__ import annotations

import itertools
import math
from typing import Any

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.report.values import to_float

__all__ = ["FIGURE_KINDS", "MAX_POINTS", "check_figure"]


FIGURE_KINDS = ("line", "scatter", "histogram", "comparison")


MAX_POINTS = 5000


_SCALES = ("linear", "log")


_ROLES = ("data", "bound")


_SAFE_SIDES = ("below", "above")


def _require_text(where: str, figure: dict[str, Any], key: str, required: bool = False) -> None:
    if key not in figure:
        if required:
            raise InvalidArgument(f"{where}.{key}: missing; expected a string")
        return
    if not isinstance(figure[key], str):
        raise InvalidType(f"{where}.{key}={figure[key]!r}: expected a string")


def _require_numbers(where: str, values: Any, allow_missing: bool = False) -> int:
    if not isinstance(values, list):
        raise InvalidType(f"{where}={values!r:.80}: expected a list of numbers")
    if len(values) > MAX_POINTS:
        raise InvalidArgument(f"{where}: {len(values)} points; expected at most {MAX_POINTS} (thin the series)")
    for value in values:
        if to_float(value) is None and not (allow_missing and value is None):
            raise InvalidType(f"{where} holds {value!r}: expected numbers (or number strings such as '1/3', 'inf')")
    return len(values)


def _check_series(where: str, series: Any, kind: str) -> None:
    if not isinstance(series, dict):
        raise InvalidType(f"{where}={series!r:.80}: expected a dict with label, x, y")
    unknown = set(series) - {"label", "x", "y", "lower", "upper", "role"}
    if unknown:
        raise InvalidArgument(f"{where}: unknown keys {sorted(unknown)}")
    _require_text(where, series, "label", required=True)
    for key in ("x", "y"):
        if key not in series:
            raise InvalidArgument(f"{where}.{key}: missing; expected a list of numbers")
    n_x = _require_numbers(f"{where}.x", series["x"])
    n_y = _require_numbers(f"{where}.y", series["y"])
    if n_y == 0:
        raise InvalidArgument(f"{where}.y: empty; expected at least one point")
    expected_x = n_y + 1 if kind == "histogram" else n_y
    if n_x != expected_x:
        what = "len(y) + 1 bin edges" if kind == "histogram" else "as many x as y"
        raise InvalidArgument(f"{where}: len(x)={n_x}, len(y)={n_y}; expected {what}")
    if kind == "histogram":
        edges = _floats(series["x"])
        if any(not math.isfinite(e) for e in edges) or any(b <= a for a, b in itertools.pairwise(edges)):
            raise InvalidArgument(f"{where}.x: expected finite, strictly increasing bin edges")
    for key in ("lower", "upper"):
        if key in series and _require_numbers(f"{where}.{key}", series[key], allow_missing=True) != n_y:
            raise InvalidArgument(f"{where}.{key}: expected one value per y ({n_y})")
    if series.get("role", "data") not in _ROLES:
        raise InvalidArgument(f"{where}.role={series['role']!r}: expected one of {', '.join(_ROLES)}")


def _check_rows(where: str, rows: Any) -> None:
    if not isinstance(rows, list) or not rows:
        raise InvalidType(f"{where}={rows!r:.80}: expected a non-empty list of rows")
    for index, row in enumerate(rows):
        at = f"{where}[{index}]"
        if not isinstance(row, dict):
            raise InvalidType(f"{at}={row!r:.80}: expected a dict with label, claimed, measured")
        unknown = set(row) - {"label", "claimed", "measured", "lower", "upper", "verdict", "safe", "role"}
        if unknown:
            raise InvalidArgument(f"{at}: unknown keys {sorted(unknown)}")
        _require_text(at, row, "label", required=True)
        for key in ("claimed", "measured", "lower", "upper"):
            if (key in row or key in ("claimed", "measured")) and to_float(row.get(key)) is None:
                raise InvalidType(f"{at}.{key}={row.get(key)!r}: expected a number")
        if row.get("safe", "below") not in _SAFE_SIDES:
            raise InvalidArgument(f"{at}.safe={row['safe']!r}: expected one of {', '.join(_SAFE_SIDES)}")
        if row.get("role", "power") != "power":
            raise InvalidArgument(f"{at}.role={row['role']!r}: expected 'power' or no role")


def _check_regions(where: str, regions: Any) -> None:
    if not isinstance(regions, list):
        raise InvalidType(f"{where}={regions!r:.80}: expected a list")
    for index, region in enumerate(regions):
        at = f"{where}[{index}]"
        if not isinstance(region, dict) or set(region) - {"axis", "low", "high", "label"}:
            raise InvalidArgument(f"{at}={region!r:.80}: expected {{axis: 'x', low: number, high: number, label}}")
        low, high = to_float(region.get("low")), to_float(region.get("high"))
        if region.get("axis") != "x" or low is None or high is None or not low <= high:
            raise InvalidArgument(f"{at}={region!r:.80}: expected axis 'x' and numbers low <= high")
        _require_text(at, region, "label")


def check_figure(figure: Any, where: str = "figure") -> None:
    """Check that ``figure`` follows the figure-data convention of this module.

    Args:
        figure: the figure dict a checker puts in ``evidence.details["figures"]``.
        where: how the figure is named in error messages.

    Raises:
        InvalidType: a field has the wrong type.
        InvalidArgument: a field is missing, unknown or out of range.
    """
    if not isinstance(figure, dict):
        raise InvalidType(f"{where}={figure!r:.80}: expected a dict (see dpaudit.report.figures)")
    kind = figure.get("kind")
    if kind not in FIGURE_KINDS:
        raise InvalidArgument(f"{where}.kind={kind!r}: expected one of {', '.join(FIGURE_KINDS)}")
    allowed = {"kind", "title", "x_label", "y_label", "x_scale", "y_scale", "caption", "reference_lines"}
    allowed |= {"rows"} if kind == "comparison" else {"series", "regions"}
    unknown = set(figure) - allowed
    if unknown:
        raise InvalidArgument(f"{where}: unknown keys {sorted(unknown)} for kind {kind!r}")
    _require_text(where, figure, "title", required=True)
    for key in ("x_label", "y_label", "caption"):
        _require_text(where, figure, key)
    for key in ("x_scale", "y_scale"):
        if figure.get(key, "linear") not in _SCALES:
            raise InvalidArgument(f"{where}.{key}={figure[key]!r}: expected one of {', '.join(_SCALES)}")
    if kind == "comparison":
        _check_rows(f"{where}.rows", figure.get("rows"))
    else:
        series = figure.get("series")
        if not isinstance(series, list) or not series:
            raise InvalidType(f"{where}.series={series!r:.80}: expected a non-empty list of series")
        for index, item in enumerate(series):
            _check_series(f"{where}.series[{index}]", item, kind)
    _check_regions(f"{where}.regions", figure.get("regions", []))
    lines = figure.get("reference_lines", [])
    if not isinstance(lines, list):
        raise InvalidType(f"{where}.reference_lines={lines!r:.80}: expected a list")
    for index, line in enumerate(lines):
        at = f"{where}.reference_lines[{index}]"
        if not isinstance(line, dict) or line.get("axis") not in ("x", "y") or to_float(line.get("value")) is None:
            raise InvalidArgument(f"{at}={line!r:.80}: expected {{axis: 'x' | 'y', value: number, label}}")
        if kind == "comparison" and line["axis"] != "x":
            raise InvalidArgument(
                f"{at}.axis='y': a comparison's rows are its y axis; a reference line is a value of "
                "measured / claimed on axis 'x'"
            )
        _require_text(at, line, "label")


def _float(value: Any) -> float:
    """A report number as a float for plotting; NaN when it is not a number."""
    number = to_float(value)
    return math.nan if number is None else number


def _floats(values: list[Any]) -> list[float]:
    return [_float(value) for value in values]
